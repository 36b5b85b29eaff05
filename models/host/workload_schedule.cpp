// Workload reader: the schedule (phases of kernels side by side) and evictions. See
// docs/workloads.md ("Schedule").
#include "models/host/workload_reader.h"

namespace vgpu::host {

namespace detail {

void workload_reader::read_evictions(const field& f)
{
    if (!list(f))
        return;
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field it = item(f, i);
        if (!m_r.is_map(it, "an eviction (a mapping with buffer, phase, after_ns)"))
            continue;
        const fields e = m_r.open(it.value, it.path, {"buffer", "phase", "after_ns"});
        evict_decl d;
        d.where = m_r.where(it.value);
        for (const char* k : {"buffer", "after_ns"})
            m_r.require(e, it.value, it.path, k);
        if (const field* x = e.get("buffer"))
            if (auto n = m_r.identifier(*x)) {
                d.buffer = *n;
                if (m_wl.buffer_index(*n) < 0)
                    m_r.error(m_r.where(*x), x->path, "no buffer named '" + *n + "'");
            }
        if (const field* x = e.get("phase"))
            if (auto p = m_r.uint(*x, 0, 1u << 20)) {
                d.phase = static_cast<unsigned>(*p);
                if (!m_wl.schedule.empty() && d.phase >= m_wl.schedule.size())
                    m_r.error(m_r.where(*x), x->path,
                              "phase " + std::to_string(d.phase) +
                                  " does not exist (the "
                                  "schedule has " +
                                  std::to_string(m_wl.schedule.size()) + " phases)");
            }
        if (const field* x = e.get("after_ns"))
            if (auto t = m_r.uint(*x, 0, 1000000000))
                d.after_ns = *t;
        m_wl.evictions.push_back(d);
    }
}

void workload_reader::read_schedule(const field& f)
{
    if (!list(f))
        return;
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field ph = item(f, i);
        if (ph.value.IsMap())
            read_loop(ph, i);
        else
            read_phase(ph);
    }
}

void workload_reader::read_phase(const field& ph)
{
    std::vector<std::size_t> phase;
    std::vector<field> entries;
    if (ph.value.IsScalar()) {
        entries.push_back(ph);
    } else if (ph.value.IsSequence() && ph.value.size() > 0) {
        for (std::size_t j = 0; j < ph.value.size(); ++j)
            entries.push_back(item(ph, j));
    } else {
        m_r.error(m_r.where(ph), ph.path,
                  ph.value.IsSequence() ? "the phase is empty"
                                        : "wrong type (expected a list of kernel names, got " +
                                              m_r.what(ph.value) + ")");
        return;
    }
    for (const field& e : entries) {
        auto n = m_r.string(e);
        if (!n)
            continue;
        const int k = m_wl.kernel_index(*n);
        if (k < 0) {
            m_r.error(m_r.where(e), e.path,
                      "undefined kernel '" + *n + "'" + hint_of(*n, kernel_names()));
            continue;
        }
        if (std::find(phase.begin(), phase.end(), static_cast<std::size_t>(k)) != phase.end()) {
            m_r.error(m_r.where(e), e.path, "kernel '" + *n + "' appears twice in the phase");
            continue;
        }
        for (std::size_t other : phase)
            overlap(e, m_wl.kernels[other], m_wl.kernels[k]);
        phase.push_back(static_cast<std::size_t>(k));
    }
    m_wl.schedule.push_back(phase);
    m_wl.schedule_where.push_back(m_r.where(ph));
}

void workload_reader::read_loop(const field& ph, std::size_t entry)
{
    const fields l = m_r.open(ph.value, ph.path, {"repeat", "times", "until", "max"});
    loop_decl d;
    d.where = m_r.where(ph.value);
    d.entry = entry;
    d.first = m_wl.schedule.size();
    const field* times = l.get("times");
    const field* until = l.get("until");
    const field* max = l.get("max");
    if (times && until)
        m_r.error(m_r.where(*until), until->path, "a loop has either times or until, not both");
    else if (!times && !until)
        m_r.error(d.where, ph.path,
                  "a loop needs times (a count of passes) or until (a value to wait for) with "
                  "max");
    else if (times && max)
        m_r.error(m_r.where(*max), max->path, "max goes with until (times is the count)");
    else if (until)
        m_r.require(l, ph.value, ph.path, "max");
    if (times)
        if (auto t = m_r.uint(*times, 1, max_loop_passes))
            d.times = *t;
    if (max)
        if (auto t = m_r.uint(*max, 1, max_loop_passes))
            d.max = *t;
    if (until && !times)
        read_until(*until, d);
    if (m_r.require(l, ph.value, ph.path, "repeat")) {
        const field& body = *l.get("repeat");
        if (list(body))
            for (std::size_t j = 0; j < body.value.size(); ++j) {
                const field b = item(body, j);
                if (b.value.IsMap())
                    m_r.error(m_r.where(b), b.path,
                              "loops do not nest (a loop's body is a list of phases)");
                else
                    read_phase(b);
            }
    }
    d.count = m_wl.schedule.size() - d.first;
    if (d.count > 0 && (d.times != 0 || d.max != 0))
        m_wl.loops.push_back(d);
}

void workload_reader::read_until(const field& f, loop_decl& d)
{
    if (!m_r.is_map(f, "a mapping with buffer, index and equals"))
        return;
    const fields u = m_r.open(f.value, f.path, {"buffer", "index", "equals"});
    for (const char* k : {"buffer", "index", "equals"})
        m_r.require(u, f.value, f.path, k);
    const buffer_decl* buf = nullptr;
    if (const field* x = u.get("buffer"))
        if (auto n = m_r.string(*x)) {
            const int b = m_wl.buffer_index(*n);
            if (b < 0)
                m_r.error(m_r.where(*x), x->path,
                          "undefined buffer '" + *n + "'" + hint_of(*n, buffer_names()));
            else
                buf = &m_wl.buffers[static_cast<std::size_t>(b)];
        }
    if (!buf)
        return;
    d.buffer = buf->name;
    if (const field* x = u.get("index"))
        if (auto i = m_r.uint(*x, 0, buf->elements - 1))
            d.index = *i;
    if (const field* x = u.get("equals")) {
        if (!x->value.IsScalar())
            m_r.wrong_type(*x, "a number");
        else if (auto v = m_r.element_bits(x->value, x->path, buf->type, x->value))
            d.equals = *v;
    }
}

void workload_reader::check_all_scheduled()
{
    std::vector<bool> used(m_wl.kernels.size(), false);
    for (const auto& phase : m_wl.schedule)
        for (std::size_t k : phase)
            used[k] = true;
    for (std::size_t i = 0; i < m_wl.kernels.size(); ++i)
        if (!used[i] && !m_wl.kernels[i].name.empty())
            m_r.error(m_wl.kernels[i].where, at("kernels", i),
                      "kernel '" + m_wl.kernels[i].name +
                          "' is in no phase of the schedule, so it would never run");
}

void workload_reader::overlap(const field& e, const kernel_decl& a, const kernel_decl& b)
{
    const auto end = [](const sm_range& r) {
        return r.count == 0 ? std::numeric_limits<std::uint64_t>::max()
                            : std::uint64_t{r.first} + r.count;
    };
    if (a.sms.first < end(b.sms) && b.sms.first < end(a.sms))
        m_r.error(m_r.where(e), e.path,
                  "kernels '" + a.name + "' (" + describe(a.sms) + ") and '" + b.name + "' (" +
                      describe(b.sms) + ") share SMs in one phase");
}

std::string workload_reader::describe(const sm_range& r)
{
    if (r.count == 0)
        return "SMs " + std::to_string(r.first) + "..last";
    return "SMs " + std::to_string(r.first) + ".." + std::to_string(r.first + r.count - 1);
}

} // namespace detail

} // namespace vgpu::host
