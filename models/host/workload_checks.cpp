// Workload reader: checks (expected values and references), their bounded work, and the
// expected contents the driver compares with. See docs/workloads.md ("Checks").
#include "models/host/workload_reader.h"

namespace vgpu::host {

namespace detail {

// ---- Bounded reference work (docs/workloads.md, "References") ----
// A check whose numbers make its host reference run for minutes (a typo such as
// `count: 4000000000`) is refused here, at the argument that scales the work.

/// Reports check d (the item `check`, its `args` field) when its reference would do more
/// element operations than work_limit() allows; silent when the arguments are invalid (the
/// reference reports those itself, without looping).
void check_reference_work(reader& r, const workload& wl, const field& check, const field* args,
                          const buffer_decl* out, const check_decl& d)
{
    if (d.kind != check_kind::reference || d.reference.empty() || !out)
        return;
    reference_shape shape;
    shape.out = out->elements;
    for (const auto& [arg, name] : d.buffer_args)
        if (const int bi = wl.buffer_index(name); bi >= 0)
            shape.buffers[arg] = wl.buffers[static_cast<std::size_t>(bi)].elements;
    for (const auto& [arg, v] : d.scalar_args)
        shape.scalars[arg] = v;
    const reference_work w = estimate_work(d.reference, shape);
    const std::uint64_t limit = work_limit(shape);
    if (!w.ok() || w.ops <= limit)
        return;
    config::location at = r.where(args ? args->key : check.value);
    if (args && args->value.IsMap())
        for (const auto& kv : args->value)
            if (kv.first.IsScalar() && kv.first.Scalar() == w.driver)
                at = r.where(YAML::Node(kv.second));
    r.error(at, check.path + ".args." + w.driver,
            "reference '" + d.reference + "' would do " + std::to_string(w.ops) +
                " element operations, more than its limit of " + std::to_string(limit) +
                " (2^32 + " + std::to_string(work_per_element) + " per element of its " +
                std::to_string(shape.elements()) + " buffer elements)");
}

void workload_reader::read_checks(const field& f)
{
    if (!list(f))
        return;
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field it = item(f, i);
        if (!m_r.is_map(it, "a check (a mapping with buffer and reference or expect)"))
            continue;
        const fields c =
            m_r.open(it.value, it.path,
                     {"buffer", "reference", "args", "tolerance", "expect", "expect_file"});
        check_decl d;
        d.where = m_r.where(it.value);
        const buffer_decl* buf = nullptr;
        if (m_r.require(c, it.value, it.path, "buffer")) {
            const field& b = *c.get("buffer");
            if (auto n = m_r.string(b)) {
                d.buffer = *n;
                const int bi = m_wl.buffer_index(*n);
                if (bi < 0)
                    m_r.error(m_r.where(b), b.path,
                              "undefined buffer '" + *n + "'" + hint_of(*n, buffer_names()));
                else
                    buf = &m_wl.buffers[static_cast<std::size_t>(bi)];
            }
        }
        const field* ref = c.get("reference");
        const field* exp = c.get("expect");
        const field* exp_file = c.get("expect_file");
        if (exp && exp_file)
            m_r.error(exp_file->key, exp_file->path,
                      "a check has 'expect' or 'expect_file', not both");
        else if (exp_file)
            exp = exp_file;
        if ((ref != nullptr) == (exp != nullptr)) {
            m_r.error(it.value, it.path,
                      ref ? std::string("has both 'reference' and '") +
                                (exp == exp_file ? "expect_file" : "expect") + "' (expected one)"
                          : "missing required key 'reference' or 'expect'");
        } else if (ref) {
            d.kind = check_kind::reference;
            read_reference(*ref, c.get("args"), it, buf, d);
            check_reference_work(m_r, m_wl, it, c.get("args"), buf, d);
        } else {
            d.kind = check_kind::expect;
            if (const field* a = c.get("args"))
                m_r.error(a->key, a->path, "only a 'reference' check takes args");
            if (exp == exp_file)
                read_expect_file(*exp, it.value, buf, d);
            else
                read_expect(*exp, buf, d);
        }
        if (const field* t = c.get("tolerance")) {
            if (buf && !is_float(buf->type))
                m_r.error(t->key, t->path,
                          std::string("a tolerance applies only to f32 and f64 buffers ('") +
                              buf->name + "' is " + name(buf->type) + ")");
            else
                read_tolerance(*t, d.tol);
        }
        m_wl.checks.push_back(d);
    }
}

void workload_reader::read_tolerance(const field& t, tolerance& tol)
{
    if (t.value.IsScalar()) {
        if (auto v = m_r.number(t)) {
            if (*v < 0)
                m_r.error(m_r.where(t), t.path,
                          "value out of range (expected >= 0, got " + t.value.Scalar() + ")");
            tol.relative = *v;
        }
        return;
    }
    if (!m_r.is_map(t, "a number (relative) or a mapping with relative, absolute"))
        return;
    const fields tf = m_r.open(t.value, t.path, {"relative", "absolute"});
    for (const char* k : {"relative", "absolute"}) {
        const field* x = tf.get(k);
        if (!x)
            continue;
        if (auto v = m_r.number(*x)) {
            if (*v < 0)
                m_r.error(m_r.where(*x), x->path,
                          "value out of range (expected >= 0, got " + x->value.Scalar() + ")");
            (std::string(k) == "relative" ? tol.relative : tol.absolute) = *v;
        }
    }
}

void workload_reader::read_expect(const field& e, const buffer_decl* buf, check_decl& d)
{
    if (!e.value.IsSequence()) {
        m_r.wrong_type(e, "a list of numbers");
        return;
    }
    const elem_type t = buf ? buf->type : elem_type::f32;
    d.expect.assign(image_words(e.value.size(), t), 0);
    for (std::size_t i = 0; i < e.value.size(); ++i) {
        YAML::Node v;
        v.reset(e.value[i]);
        auto x = m_r.element_bits(v, at(e.path, i), t, v);
        put_element(d.expect, i, t, x.value_or(0));
    }
    if (buf && e.value.size() != buf->elements)
        m_r.error(m_r.where(e), e.path,
                  "has " + std::to_string(e.value.size()) + " values, buffer '" + buf->name +
                      "' has " + std::to_string(buf->elements) + " elements");
}

void workload_reader::read_reference(const field& ref, const field* args, const field& it,
                                     const buffer_decl* buf, check_decl& d)
{
    auto n = m_r.string(ref);
    if (!n)
        return;
    const reference_spec* spec = find_reference(*n);
    if (!spec) {
        std::vector<std::string> names;
        for (const auto& s : references())
            names.emplace_back(s.name);
        m_r.error(m_r.where(ref), ref.path,
                  "unknown reference '" + *n + "' (expected one of " + join(names, "|") + ")" +
                      hint_of(*n, names));
        return;
    }
    d.reference = *n;
    if (buf && std::find(spec->out_types.begin(), spec->out_types.end(), buf->type) ==
                   spec->out_types.end())
        m_r.error(m_r.where(ref), ref.path,
                  "reference '" + *n + "' does not produce " + name(buf->type) +
                      " elements (buffer '" + buf->name + "')");
    std::vector<std::string> known;
    for (const auto& a : spec->args)
        known.emplace_back(a.name);
    fields given;
    if (args) {
        if (!m_r.is_map(*args, "a mapping of argument names to buffers or numbers"))
            return;
        given = m_r.open(args->value, args->path, known);
    }
    for (const auto& a : spec->args) {
        const field* x = given.get(a.name);
        if (!x) {
            if (a.required)
                m_r.error(args ? args->key : it.value, args ? args->path : it.path + ".args",
                          std::string("missing argument '") + a.name + "' of reference '" + *n +
                              "'");
            continue;
        }
        if (a.kind == arg_kind::buffer)
            buffer_arg(*x, a, d);
        else
            scalar_arg(*x, a, d);
    }
}

void workload_reader::buffer_arg(const field& x, const arg_spec& a, check_decl& d)
{
    auto s = m_r.string(x);
    if (!s)
        return;
    const int bi = m_wl.buffer_index(*s);
    if (bi < 0) {
        m_r.error(m_r.where(x), x.path,
                  "undefined buffer '" + *s + "'" + hint_of(*s, buffer_names()));
        return;
    }
    const elem_type t = m_wl.buffers[static_cast<std::size_t>(bi)].type;
    if (std::find(a.types.begin(), a.types.end(), t) == a.types.end()) {
        std::vector<std::string> tn;
        for (auto e : a.types)
            tn.emplace_back(name(e));
        m_r.error(m_r.where(x), x.path,
                  "buffer '" + *s + "' is " + host::name(t) + " (expected " + join(tn, "|") + ")");
        return;
    }
    d.buffer_args[a.name] = *s;
}

void workload_reader::scalar_arg(const field& x, const arg_spec& a, check_decl& d)
{
    if (!x.value.IsScalar()) {
        m_r.wrong_type(x, "a number or kernel.param");
        return;
    }
    const std::string& s = x.value.Scalar();
    const auto dot = s.find('.');
    if (dot != std::string::npos && dot > 0 && !std::isdigit(static_cast<unsigned char>(s[0])) &&
        s[0] != '-' && s[0] != '+') {
        const std::string kn = s.substr(0, dot);
        const std::string pn = s.substr(dot + 1);
        const int k = m_wl.kernel_index(kn);
        if (k < 0) {
            m_r.error(m_r.where(x), x.path,
                      "undefined kernel '" + kn + "'" + hint_of(kn, kernel_names()));
            return;
        }
        std::vector<std::string> pnames;
        for (const auto& p : m_wl.kernels[static_cast<std::size_t>(k)].params) {
            pnames.push_back(p.name);
            if (p.name != pn)
                continue;
            if (p.is_buffer) {
                m_r.error(m_r.where(x), x.path,
                          "parameter '" + s + "' is a buffer address, not a number");
                return;
            }
            d.scalar_args[a.name] = p.number;
            return;
        }
        m_r.error(m_r.where(x), x.path,
                  "kernel '" + kn + "' has no parameter '" + pn + "'" + hint_of(pn, pnames));
        return;
    }
    if (auto v = m_r.number(x))
        d.scalar_args[a.name] = *v;
}

} // namespace detail

namespace {

/// Buffers (indices) whose initial words check c's reference reads: its arguments, then the
/// checked buffer; -1 for a name that is no buffer.
std::vector<int> reference_inputs(const workload& wl, const check_decl& c)
{
    std::vector<int> in;
    if (c.kind != check_kind::reference)
        return in;
    for (const auto& [arg, buf] : c.buffer_args)
        in.push_back(wl.buffer_index(buf));
    in.push_back(wl.buffer_index(c.buffer));
    return in;
}

/// expected_contents of c; `words(b)` gives buffer b's initial words.
template <typename Words>
reference_result expected_with(const workload& wl, const check_decl& c, Words&& words)
{
    const int bi = wl.buffer_index(c.buffer);
    if (bi < 0)
        return {{}, "undefined buffer '" + c.buffer + "'"};
    const buffer_decl& out = wl.buffers[static_cast<std::size_t>(bi)];
    if (c.kind == check_kind::expect)
        return {c.expect, {}};
    reference_args args;
    for (const auto& [arg, buf] : c.buffer_args) {
        const int i = wl.buffer_index(buf);
        if (i < 0)
            return {{}, "undefined buffer '" + buf + "'"};
        args.buffers[arg] = typed_buffer{wl.buffers[static_cast<std::size_t>(i)].type, words(i)};
    }
    for (const auto& [arg, v] : c.scalar_args)
        args.scalars[arg] = v;
    return compute_reference(c.reference, args, typed_buffer{out.type, words(bi)});
}

} // namespace

reference_result expected_contents(const workload& wl, const check_decl& c)
{
    return expected_with(
        wl, c, [&](int b) { return initial_words(wl.buffers[static_cast<std::size_t>(b)]); });
}

std::vector<reference_result> expected_all(const workload& wl,
                                           std::vector<std::vector<std::uint32_t>> initial)
{
    initial.resize(wl.buffers.size());
    std::vector<unsigned> uses(wl.buffers.size(), 0); // reads still to come, per buffer
    for (const check_decl& c : wl.checks)
        for (int b : reference_inputs(wl, c))
            if (b >= 0)
                ++uses[static_cast<std::size_t>(b)];
    std::vector<reference_result> out;
    out.reserve(wl.checks.size());
    for (const check_decl& c : wl.checks) {
        // A check that stops at an undefined buffer leaves the later ones' words in place.
        out.push_back(expected_with(wl, c, [&](int b) -> std::vector<std::uint32_t> {
            const auto i = static_cast<std::size_t>(b);
            std::vector<std::uint32_t>& w = initial[i];
            if (w.empty() && wl.buffers[i].elements != 0)
                w = initial_words(wl.buffers[i]);
            if (--uses[i] == 0)
                return std::move(w); // the last read: taken over
            return w;                // read again later: a copy
        }));
    }
    return out;
}

} // namespace vgpu::host
