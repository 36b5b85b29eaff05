// Workload reader: kernels, their parameters, programs, instrumentation and CBV bindings.
// See docs/workloads.md ("Kernels").
#include "models/host/workload_reader.h"

namespace vgpu::host {

namespace detail {

void workload_reader::read_instrument(const field& f, kernel_decl& d)
{
    d.instrument_where = m_r.where(f.value);
    if (!list(f)) // an empty list is an error too
        return;
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field it = item(f, i);
        const auto n = m_r.identifier(it);
        if (!n)
            continue;
        bool* type = *n == "control"  ? &d.instrument.control
                     : *n == "memory" ? &d.instrument.memory
                                      : nullptr;
        if (!type) {
            const std::string hint = config::suggest(*n, {"control", "memory"});
            m_r.error(m_r.where(it.value), it.path,
                      "'" + *n + "' is not a record type (control, memory)" +
                          (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
        } else if (*type) {
            m_r.error(m_r.where(it.value), it.path, "'" + *n + "' is listed twice");
        } else {
            *type = true;
        }
    }
}

void workload_reader::read_cbvs(const field& f, kernel_decl& d)
{
    if (!list(f))
        return;
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field it = item(f, i);
        if (!m_r.is_map(it, "a CBV binding (a mapping with slot, buffer)"))
            continue;
        const fields e = m_r.open(it.value, it.path, {"slot", "buffer"});
        cbv_binding c;
        c.where = m_r.where(it.value);
        for (const char* k : {"slot", "buffer"})
            m_r.require(e, it.value, it.path, k);
        if (const field* x = e.get("slot"))
            if (auto v = m_r.uint(*x, 0, 255)) {
                c.slot = static_cast<unsigned>(*v);
                for (const cbv_binding& o : d.cbvs)
                    if (o.slot == c.slot)
                        m_r.error(m_r.where(*x), x->path,
                                  "CBV slot " + std::to_string(c.slot) + " is bound twice");
            }
        if (const field* x = e.get("buffer"))
            if (auto n = m_r.identifier(*x)) {
                c.buffer = *n;
                const int b = m_wl.buffer_index(*n);
                if (b < 0) // an on_demand buffer is fine: CDL reads replay page faults
                    m_r.error(m_r.where(*x), x->path, "no buffer named '" + *n + "'");
            }
        d.cbvs.push_back(c);
    }
}

bool workload_reader::dims(const field& f, const unsigned (&hi)[3], unsigned (&out)[3])
{
    out[0] = out[1] = out[2] = 1;
    if (f.value.IsScalar()) {
        auto v = m_r.uint(f, 1, hi[0]);
        out[0] = static_cast<unsigned>(v.value_or(1));
        return v.has_value();
    }
    if (!f.value.IsSequence() || f.value.size() < 1 || f.value.size() > 3) {
        m_r.wrong_type(f, "[x, y, z], [x, y] or x");
        return false;
    }
    bool ok = true;
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        YAML::Node e;
        e.reset(f.value[i]);
        auto v = m_r.uint(e, at(f.path, i), 1, hi[i], e);
        ok = ok && v;
        out[i] = static_cast<unsigned>(v.value_or(1));
    }
    return ok;
}

void workload_reader::read_kernels(const field& f)
{
    if (!list(f)) {
        m_kernels_ok = false;
        return;
    }
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field it = item(f, i);
        if (!m_r.is_map(it, "a kernel (a mapping with name, program, params, grid, block)")) {
            m_kernels_ok = false;
            continue;
        }
        const fields k = m_r.open(it.value, it.path,
                                  {"name", "program", "params", "grid", "block", "sms", "cbvs",
                                   "instrument", "llc", "cuda", "ptx", "entry", "defines",
                                   "includes", "shared_bytes", "constants"});
        kernel_decl d;
        d.where = m_r.where(it.value);
        // The code: `program:` (assembly), or `cuda:` / `ptx:` with `entry:` (translated).
        const bool translated = k.get("cuda") || k.get("ptx");
        const bool both = translated && k.get("program");
        if (both) {
            m_r.error(m_r.where(k.get("program")->key), k.get("program")->path,
                      std::string("a kernel has 'program:' or '") +
                          (k.get("cuda") ? "cuda" : "ptx") + ":', not both");
            m_kernels_ok = false;
        } else if (!translated && !k.get("program")) {
            m_r.error(m_r.where(it.value), it.path,
                      "missing required key 'program' (or 'cuda:' / 'ptx:' with 'entry:')");
            m_kernels_ok = false;
        } else if (!translated) {
            for (const char* key : {"entry", "defines", "includes"})
                if (const field* x = k.get(key))
                    m_r.error(m_r.where(x->key), x->path,
                              "is only used with 'cuda:' or 'ptx:' (this kernel has 'program:')");
        }
        for (const char* key : {"name", "grid", "block"})
            if (!m_r.require(k, it.value, it.path, key))
                m_kernels_ok = false;
        if (const field* x = k.get("name")) {
            if (auto n = m_r.identifier(*x)) {
                d.name = *n;
                const int prev = m_wl.kernel_index(*n);
                if (prev >= 0)
                    m_r.error(m_r.where(*x), x->path,
                              "duplicate kernel name '" + *n + "' (first defined on line " +
                                  std::to_string(m_wl.kernels[prev].where.line) + ")");
            }
        }
        if (const field* x = k.get("params"))
            read_params(*x, d, translated);
        if (const field* x = k.get("grid")) {
            unsigned g[3];
            dims(*x, {max_grid_dim, max_grid_dim, max_grid_dim}, g);
            d.grid_x = g[0];
            d.grid_y = g[1];
            d.grid_z = g[2];
        }
        if (const field* x = k.get("block")) {
            unsigned b[3];
            const bool ok = dims(*x, {max_block_threads, max_block_threads, max_block_z}, b);
            d.block_x = b[0];
            d.block_y = b[1];
            d.block_z = b[2];
            if (ok && std::uint64_t{d.block_x} * d.block_y * d.block_z > max_block_threads)
                m_r.error(m_r.where(x->value), x->path,
                          "block has " +
                              std::to_string(std::uint64_t{d.block_x} * d.block_y * d.block_z) +
                              " threads (expected 1.." + std::to_string(max_block_threads) + ")");
        }
        if (const field* x = k.get("sms")) {
            if (m_r.is_map(*x, "a mapping with first, count")) {
                const fields s = m_r.open(x->value, x->path, {"first", "count"});
                if (const field* y = s.get("first"))
                    d.sms.first = static_cast<unsigned>(m_r.uint(*y, 0, 65535).value_or(0));
                if (const field* y = s.get("count"))
                    d.sms.count = static_cast<unsigned>(m_r.uint(*y, 1, 65536).value_or(0));
            }
        }
        if (const field* x = k.get("shared_bytes")) // dynamic; + the translation's static
            d.shared_bytes =
                static_cast<std::uint32_t>(m_r.uint(*x, 0, max_shared_bytes).value_or(0));
        if (const field* x = k.get("constants"); x && !translated) // read by translate_kernel
            m_r.error(m_r.where(x->key), x->path,
                      "is only used with 'cuda:' or 'ptx:' (it sets a translated kernel's "
                      "__constant__ variables)");
        if (const field* x = k.get("cbvs"))
            read_cbvs(*x, d);
        if (const field* x = k.get("instrument"))
            read_instrument(*x, d);
        if (const field* x = k.get("llc"))
            d.llc = m_r.choice<llc::llc_org>(
                *x, {{"shared", llc::llc_org::shared}, {"private", llc::llc_org::private_org}});
        if (const field* x = k.get("program"); x && !translated)
            assemble(*x, d);
        else if (translated && !both && !d.name.empty())
            translate_kernel(k, it, d);
        m_wl.kernels.push_back(std::move(d));
    }
    // A translated kernel's constant bank has its own CBV slot (workload_cuda.cpp): another
    // kernel's `cbvs:` must not bind that slot to another buffer (kernels side by side share
    // the CBV table).
    for (const kernel_decl& k : m_wl.kernels)
        for (const cbv_binding& bank : k.cbvs)
            for (std::size_t oi = 0;
                 k.translated() && bank.buffer == k.name + ".const" && oi < m_wl.kernels.size();
                 ++oi)
                for (std::size_t ci = 0; ci < m_wl.kernels[oi].cbvs.size(); ++ci) {
                    const cbv_binding& c = m_wl.kernels[oi].cbvs[ci];
                    if (c.slot == bank.slot && c.buffer != bank.buffer)
                        m_r.error(c.where,
                                  "kernels[" + std::to_string(oi) + "].cbvs[" + std::to_string(ci) +
                                      "]",
                                  "CBV slot " + std::to_string(c.slot) +
                                      " holds the constant bank of kernel '" + k.name +
                                      "' (banks take slots 0, 1, ... in kernel order): bind "
                                      "another slot");
                }
}

void workload_reader::read_params(const field& f, kernel_decl& d, bool translated)
{
    if (f.value.IsNull())
        return;
    if (!f.value.IsSequence()) {
        m_r.wrong_type(f, "a list of {name, value} or {name, buffer}");
        return;
    }
    if (f.value.size() > max_kernel_params)
        m_r.error(m_r.where(f.value), f.path,
                  "has " + std::to_string(f.value.size()) + " parameters (at most " +
                      std::to_string(max_kernel_params) + ")");
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field it = item(f, i);
        kernel_param p;
        p.where = m_r.where(it.value);
        if (!m_r.is_map(it, "a mapping {name, value} or {name, buffer}")) {
            d.params.push_back(p);
            continue;
        }
        const fields pf = m_r.open(it.value, it.path, {"name", "value", "buffer"});
        if (!translated) // a translated kernel's parameter names are labels
            m_r.require(pf, it.value, it.path, "name");
        if (const field* x = pf.get("name")) {
            if (auto n = m_r.identifier(*x)) {
                p.name = *n;
                for (const auto& q : d.params)
                    if (q.name == *n)
                        m_r.error(m_r.where(*x), x->path, "duplicate parameter name '" + *n + "'");
            }
        }
        const field* v = pf.get("value");
        const field* b = pf.get("buffer");
        if ((v != nullptr) == (b != nullptr)) {
            m_r.error(it.value, it.path,
                      v ? "has both 'value' and 'buffer' (expected one)"
                        : "missing required key 'value' or 'buffer'");
        } else if (b) {
            if (auto n = m_r.string(*b)) {
                p.is_buffer = true;
                p.buffer = *n;
                if (m_wl.buffer_index(*n) < 0)
                    m_r.error(m_r.where(*b), b->path,
                              "undefined buffer '" + *n + "'" + hint_of(*n, buffer_names()));
            }
        } else if (v->value.IsScalar() && translated && v->value.Scalar().empty()) {
            m_r.error(m_r.where(*v), v->path, "expected a value");
        } else if (v->value.IsScalar() && translated) {
            p.text = v->value.Scalar(); // converted to the entry's parameter type
            p.where = m_r.where(v->value);
        } else if (v->value.IsScalar()) {
            const std::string& s = v->value.Scalar();
            if (auto iv = parse_int(s); iv && *iv >= INT32_MIN && *iv <= UINT32_MAX) {
                p.bits = static_cast<std::uint32_t>(*iv);
                p.number = static_cast<double>(*iv);
            } else if (auto uv = parse_uint(s); uv && *uv <= UINT32_MAX) {
                p.bits = static_cast<std::uint32_t>(*uv);
                p.number = static_cast<double>(*uv);
            } else if (iv || uv) {
                m_r.error(m_r.where(*v), v->path,
                          "value out of range (expected -2147483648..4294967295, got " + s + ")");
            } else if (auto dv = parse_double(s);
                       dv && std::fabs(*dv) <= std::numeric_limits<float>::max()) {
                p.bits = f32_bits(static_cast<float>(*dv));
                p.number = *dv;
            } else {
                m_r.wrong_type(*v, "a number (integer, or decimal for f32)");
            }
        } else {
            m_r.wrong_type(*v, "a number (integer, or decimal for f32)");
        }
        d.params.push_back(p);
    }
}

void workload_reader::assemble(const field& f, kernel_decl& d)
{
    if (!f.value.IsScalar()) {
        m_r.wrong_type(f, "program text (a YAML block scalar: program: |)");
        return;
    }
    d.source = f.value.Scalar();
    d.origin.file = m_r.name();
    const auto expanded = m_spans.find({f.value.Mark().line, f.value.Mark().column});
    d.origin.spans = expanded != m_spans.end()
                         ? expanded->second
                         : expanded_spans(m_r.doc().runs(f.value), d.source.size(), {});
    const config::location start = m_r.where(f.value);
    d.origin.line = d.origin.spans.empty() ? start.line : d.origin.spans.front().line;
    d.origin.col = d.origin.spans.empty() ? start.col : d.origin.spans.front().col;
    sm::symbol_table symbols;
    for (std::size_t i = 0; i < d.params.size(); ++i)
        if (!d.params[i].name.empty())
            symbols.emplace(d.params[i].name, static_cast<std::uint32_t>(i));
    auto res = sm::assemble(d.source, symbols, d.origin, kernel_registers);
    for (auto e : res.errors) {
        // Put the key path after "error: " like every other workload message.
        const std::string tag = ": error: ";
        const auto pos = e.find(tag);
        if (pos != std::string::npos)
            e.insert(pos + tag.size(), f.path + ": ");
        m_r.add_raw(e);
    }
    if (res.ok() && res.code.empty())
        m_r.error(m_r.where(f), f.path, "the program has no instructions");
    d.code = std::move(res.code);
    d.lines = std::move(res.lines);
}

} // namespace detail

} // namespace vgpu::host
