// The VCD waveform writer of `--vcd`. See docs/outputs.md ("trace.vcd").
#include "platforms/vcd_writer.h"

#include <algorithm>
#include <functional>

namespace vgpu::platforms {

namespace {
std::uint64_t now_ps()
{
    return sc_core::sc_time_stamp().value(); // the kernel's resolution is 1 ps
}

/// VCD identifier of signal `i`: letters only, so no reader mistakes it for a time or keyword.
std::string code_of(unsigned i)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::string c;
    do {
        c += digits[i % 52];
        i /= 52;
    } while (i != 0);
    return c;
}

/// A scope of the definitions: nested scopes and signals, in the order first registered.
struct scope {
    std::string name;
    std::vector<scope> children;
    std::vector<unsigned> signals;
    scope& child(const std::string& n)
    {
        for (auto& c : children)
            if (c.name == n)
                return c;
        children.push_back({n, {}, {}});
        return children.back();
    }
};
} // namespace

vcd_writer::vcd_writer(const std::string& file) : m_file(file), m_out(file)
{
    m_ok = static_cast<bool>(m_out);
    if (m_ok)
        sc_core::sc_get_curr_simcontext()->add_trace_file(this);
}

vcd_writer::~vcd_writer()
{
    if (m_ok && !m_closed)
        sc_core::sc_get_curr_simcontext()->remove_trace_file(this);
}

unsigned vcd_writer::declare(const std::string& name, unsigned width, const void* object,
                             reader read)
{
    if (m_header)
        SC_REPORT_ERROR(
            "vgpu/vcd",
            (m_file + ": signal '" + name + "' registered after the simulation started").c_str());
    const auto id = static_cast<unsigned>(m_signals.size());
    signal s{name, code_of(id), std::max(1u, std::min(64u, width)), object, read, 0};
    if (object)
        s.value = read(object) & (s.width == 64 ? ~0ull : (1ull << s.width) - 1);
    m_signals.push_back(std::move(s));
    if (object)
        m_sampled.push_back(id);
    return id;
}

template <class T> void vcd_writer::add(const T& object, const std::string& name, int width)
{
    declare(name, width > 0 ? static_cast<unsigned>(width) : 8 * sizeof(T), &object,
            [](const void* p) { return static_cast<std::uint64_t>(*static_cast<const T*>(p)); });
}

unsigned vcd_writer::add_level(const std::string& name, bool bit)
{
    const unsigned id = declare(name, bit ? 1 : 32, nullptr, nullptr);
    m_signals[id].bit_level = bit;
    return id;
}

void vcd_writer::step_level(unsigned id, std::uint64_t at_ps, int delta)
{
    m_steps.emplace(std::max(at_ps, now_ps()), id, delta);
}

void vcd_writer::refuse(const std::string& name, const char* type)
{
    SC_REPORT_ERROR("vgpu/vcd", (m_file + ": cannot trace '" + name + "': " + type +
                                 " is not supported (bool and integers are)")
                                    .c_str());
}

void vcd_writer::trace(const bool& object, const std::string& name)
{
    add(object, name, 1);
}
void vcd_writer::trace(const unsigned char& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const unsigned short& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const unsigned int& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const unsigned long& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const char& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const short& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const int& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const long& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const sc_dt::int64& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const sc_dt::uint64& object, const std::string& name, int width)
{
    add(object, name, width);
}
void vcd_writer::trace(const unsigned int& object, const std::string& name, const char**)
{
    add(object, name, 32);
}
void vcd_writer::trace(const sc_core::sc_event&, const std::string& name)
{
    refuse(name, "sc_event");
}
void vcd_writer::trace(const sc_core::sc_time&, const std::string& name)
{
    refuse(name, "sc_time");
}
void vcd_writer::trace(const sc_dt::sc_bit&, const std::string& name)
{
    refuse(name, "sc_bit");
}
void vcd_writer::trace(const sc_dt::sc_logic&, const std::string& name)
{
    refuse(name, "sc_logic");
}
void vcd_writer::trace(const float&, const std::string& name)
{
    refuse(name, "float");
}
void vcd_writer::trace(const double&, const std::string& name)
{
    refuse(name, "double");
}
void vcd_writer::trace(const sc_dt::sc_int_base&, const std::string& name)
{
    refuse(name, "sc_int");
}
void vcd_writer::trace(const sc_dt::sc_uint_base&, const std::string& name)
{
    refuse(name, "sc_uint");
}
void vcd_writer::trace(const sc_dt::sc_signed&, const std::string& name)
{
    refuse(name, "sc_bigint");
}
void vcd_writer::trace(const sc_dt::sc_unsigned&, const std::string& name)
{
    refuse(name, "sc_biguint");
}
void vcd_writer::trace(const sc_dt::sc_fxval&, const std::string& name)
{
    refuse(name, "sc_fxval");
}
void vcd_writer::trace(const sc_dt::sc_fxval_fast&, const std::string& name)
{
    refuse(name, "sc_fxval_fast");
}
void vcd_writer::trace(const sc_dt::sc_fxnum&, const std::string& name)
{
    refuse(name, "sc_fxnum");
}
void vcd_writer::trace(const sc_dt::sc_fxnum_fast&, const std::string& name)
{
    refuse(name, "sc_fxnum_fast");
}
void vcd_writer::trace(const sc_dt::sc_bv_base&, const std::string& name)
{
    refuse(name, "sc_bv");
}
void vcd_writer::trace(const sc_dt::sc_lv_base&, const std::string& name)
{
    refuse(name, "sc_lv");
}

void vcd_writer::write_comment(const std::string& comment)
{
    if (!m_header)
        m_comments.push_back(comment);
}

void vcd_writer::set_time_unit(double, sc_core::sc_time_unit) {}

void vcd_writer::write_header()
{
    m_header = true;
    for (const auto& c : m_comments)
        m_out << "$comment " << c << " $end\n";
    m_out << "$comment simulated picoseconds x 1000, plus the delta cycle within the instant "
             "$end\n$timescale 1 fs $end\n";
    scope top;
    for (unsigned i = 0; i < m_signals.size(); ++i) {
        std::string path = m_signals[i].name;
        std::replace_if(
            path.begin(), path.end(), [](char c) { return c == ' ' || c == '\t'; }, '_');
        scope* s = &top;
        std::string::size_type from = 0, dot;
        while ((dot = path.find('.', from)) != std::string::npos) {
            s = &s->child(path.substr(from, dot - from));
            from = dot + 1;
        }
        if (s == &top)
            s = &top.child("top"); // a variable needs a scope
        s->signals.push_back(i);
        m_signals[i].name = path.substr(from);
    }
    std::function<void(const scope&)> print = [&](const scope& s) {
        m_out << "$scope module " << s.name << " $end\n";
        for (unsigned i : s.signals) {
            const signal& g = m_signals[i];
            m_out << "$var wire " << g.width << ' ' << g.code << ' ' << g.name;
            if (g.width > 1)
                m_out << " [" << g.width - 1 << ":0]";
            m_out << " $end\n";
        }
        for (const auto& c : s.children)
            print(c);
        m_out << "$upscope $end\n";
    };
    for (const auto& c : top.children)
        print(c);
    m_out << "$enddefinitions $end\n#0\n$dumpvars\n";
    for (const auto& s : m_signals)
        write_value(s);
    m_out << "$end\n";
    m_time_written = true;
    m_last_fs = 0;
}

void vcd_writer::write_time(std::uint64_t fs)
{
    if (m_time_written && fs <= m_last_fs)
        return;
    m_out << '#' << fs << '\n';
    m_last_fs = fs;
    m_time_written = true;
}

void vcd_writer::write_value(const signal& s)
{
    if (s.width == 1) {
        m_out << (s.value ? '1' : '0') << s.code << '\n';
        return;
    }
    char bits[65];
    int n = 0;
    std::uint64_t v = s.value;
    do {
        bits[n++] = static_cast<char>('0' + (v & 1));
        v >>= 1;
    } while (v != 0);
    m_out << 'b';
    while (n > 0)
        m_out << bits[--n];
    m_out << ' ' << s.code << '\n';
}

void vcd_writer::apply_levels(std::uint64_t now)
{
    std::vector<unsigned> touched;
    while (!m_steps.empty() && std::get<0>(m_steps.top()) <= now) {
        const std::uint64_t t = std::get<0>(m_steps.top());
        touched.clear();
        for (; !m_steps.empty() && std::get<0>(m_steps.top()) == t; m_steps.pop()) {
            m_signals[std::get<1>(m_steps.top())].sum += std::get<2>(m_steps.top());
            touched.push_back(std::get<1>(m_steps.top()));
        }
        for (unsigned id : touched) {
            signal& s = m_signals[id];
            const std::uint64_t v =
                s.bit_level ? (s.sum > 0 ? 1u : 0u)
                            : static_cast<std::uint64_t>(std::max<std::int64_t>(s.sum, 0));
            if (v == s.value)
                continue;
            s.value = v;
            write_time(std::max(t * 1000, m_last_fs));
            write_value(s);
        }
    }
}

void vcd_writer::cycle(bool delta_cycle)
{
    if (m_closed)
        return;
    if (!m_header)
        write_header();
    if (!delta_cycle)
        return; // before a time step: the last delta cycle was sampled already
    const std::uint64_t now = now_ps();
    if (now != m_cur_ps) {
        m_cur_ps = now;
        m_delta = 0;
    }
    ++m_delta;
    apply_levels(now);
    const std::uint64_t fs = now * 1000 + std::min(m_delta, 999u);
    for (unsigned id : m_sampled) {
        signal& s = m_signals[id];
        std::uint64_t v = s.read(s.object);
        if (s.width < 64)
            v &= (1ull << s.width) - 1;
        if (v == s.value)
            continue;
        s.value = v;
        write_time(fs);
        write_value(s);
    }
}

bool vcd_writer::close()
{
    if (!m_ok)
        return false;
    if (m_closed)
        return !m_out.fail();
    if (!m_header)
        write_header();
    const std::uint64_t now = now_ps();
    apply_levels(now);
    write_time(now * 1000); // the end of the simulated time
    m_out.flush();
    const bool written = m_out.good();
    m_out.close();
    m_closed = true;
    sc_core::sc_get_curr_simcontext()->remove_trace_file(this);
    return written && !m_out.fail();
}

} // namespace vgpu::platforms
