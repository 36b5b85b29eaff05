// Workload reader: buffers and their initialisers, and the initial words the driver writes.
// See docs/workloads.md ("Buffers").
#include "models/host/workload_reader.h"

namespace vgpu::host {

namespace {

/// Elements 0..n-1 of w (type t, f32 or f64) from `state`: min + (max - min) x u, u the top 24
/// (f32) or 53 (f64) bits of each output over 2^24 or 2^53 (the `random` rule).
void random_floats(std::vector<std::uint32_t>& w, elem_type t, std::uint64_t n, std::uint64_t state,
                   double min, double max)
{
    if (t == elem_type::f32) {
        for (std::uint64_t i = 0; i < n; ++i) {
            const double u = static_cast<double>(splitmix64(state) >> 40) / 16777216.0; // [0, 1)
            w[i] = f32_bits(static_cast<float>(min + (max - min) * u));
        }
        return;
    }
    for (std::uint64_t i = 0; i < n; ++i) {
        const double u = static_cast<double>(splitmix64(state) >> 11) / 9007199254740992.0;
        put_element(w, i, t, f64_bits(min + (max - min) * u));
    }
}

} // namespace

std::vector<std::uint32_t> initial_words(const buffer_decl& b)
{
    const buffer_init& in = b.init;
    if (in.kind == init_kind::file)
        return image_of_bytes(in.raw);
    std::vector<std::uint32_t> w(image_words(b.elements, b.type), 0);
    const elem_type t = b.type;
    const std::uint64_t n = b.elements;
    // Asked once: a call per element cost as much as the element (a 64 MiB table has 16 M).
    const bool words = elem_bytes(t) == 4;
    const auto put = [&](std::uint64_t i, std::uint64_t bits) {
        if (words)
            w[i] = static_cast<std::uint32_t>(bits); // the common case, without a call
        else
            put_element(w, i, t, bits);
    };
    switch (in.kind) {
    case init_kind::zero:
    case init_kind::file:
        break;
    case init_kind::iota:
        if (t == elem_type::f32) {
            for (std::uint64_t i = 0; i < n; ++i)
                w[i] = f32_bits(static_cast<float>(in.start + in.step * static_cast<double>(i)));
        } else if (t == elem_type::f64) {
            for (std::uint64_t i = 0; i < n; ++i)
                put(i, f64_bits(in.start + in.step * static_cast<double>(i)));
        } else {
            // Integer iota wraps modulo 2^width like the GPU's integer arithmetic.
            for (std::uint64_t i = 0; i < n; ++i)
                put(i, in.istart + i * in.istep);
        }
        break;
    case init_kind::fill: {
        const std::uint64_t bits = is_float(t) ? to_bits(in.value, t) : in.ivalue;
        for (std::uint64_t i = 0; i < n; ++i)
            put(i, bits);
        break;
    }
    case init_kind::values:
        for (std::uint64_t i = 0; i < n && i < in.values.size(); ++i)
            put(i, in.values[i]);
        break;
    case init_kind::random: {
        std::uint64_t state = in.seed;
        if (is_float(t)) {
            random_floats(w, t, n, state, in.min, in.max);
            break;
        }
        // imin + z mod span, modulo 2^64 (signed or unsigned alike); span 0: all 2^64 values.
        const std::uint64_t lo = in.imin;
        const std::uint64_t span = in.imax - lo + 1;
        if ((span & (span - 1)) == 0) {
            // A power-of-two span (the usual index range, or 2^64): z % span is z & (span - 1),
            // without a 64-bit division per element.
            for (std::uint64_t i = 0; i < n; ++i)
                put(i, lo + (splitmix64(state) & (span - 1)));
        } else {
            for (std::uint64_t i = 0; i < n; ++i)
                put(i, lo + splitmix64(state) % span);
        }
        break;
    }
    case init_kind::csr: {
        if (in.part == csr_part::values) { // the values stream alone: no structure needed
            random_floats(w, t, n, csr_stream(in.csr.seed, 3), in.csr.min, in.csr.max);
            break;
        }
        const csr_structure g = csr_generate(in.csr, in.part == csr_part::col_idx);
        const std::vector<std::uint32_t>& v = in.part == csr_part::row_ptr ? g.row_ptr : g.col_idx;
        for (std::uint64_t i = 0; i < n && i < v.size(); ++i)
            put(i, v[i]);
        break;
    }
    }
    return w;
}

namespace detail {

void workload_reader::read_buffers(const field& f)
{
    if (!list(f))
        return;
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field it = item(f, i);
        if (!m_r.is_map(it, "a buffer (a mapping with name, type, elements, init, "
                            "read_only, alloc, copy_on_write)"))
            continue;
        const fields b =
            m_r.open(it.value, it.path,
                     {"name", "type", "elements", "init", "read_only", "alloc", "copy_on_write"});
        buffer_decl d;
        d.where = m_r.where(it.value);
        for (const char* k : {"name", "type", "elements"})
            m_r.require(b, it.value, it.path, k);
        if (const field* x = b.get("name")) {
            auto n = m_r.identifier(*x);
            if (n) {
                d.name = *n;
                const int prev = m_wl.buffer_index(*n);
                if (prev >= 0) {
                    m_r.error(m_r.where(*x), x->path,
                              "duplicate buffer name '" + *n + "' (first defined on line " +
                                  std::to_string(m_wl.buffers[prev].where.line) + ")");
                }
            }
        }
        if (const field* x = b.get("type")) {
            auto t = m_r.choice<elem_type>(*x, elem_type_names());
            if (t)
                d.type = *t;
        }
        if (const field* x = b.get("elements")) {
            auto e = m_r.uint(*x, 1, max_total_bytes / elem_bytes(d.type));
            if (e) {
                d.elements = *e;
                total += d.bytes();
            }
        }
        if (const field* x = b.get("init"))
            read_init(*x, d);
        if (const field* x = b.get("read_only"))
            if (auto ro = m_r.choice<bool>(*x, {{"true", true}, {"false", false}}))
                d.read_only = *ro;
        if (const field* x = b.get("alloc"))
            if (auto a = m_r.choice<bool>(*x, {{"eager", false}, {"on_demand", true}}))
                d.on_demand = *a;
        if (const field* x = b.get("copy_on_write"))
            if (auto c = m_r.choice<bool>(*x, {{"true", true}, {"false", false}})) {
                d.copy_on_write = *c;
                if (*c && d.read_only)
                    m_r.error(m_r.where(*x), x->path,
                              "a read_only buffer cannot be copy_on_write (a store to it is "
                              "refused, never copied)");
            }
        // A buffer with errors still reserves its name so that later uses do not cascade.
        m_wl.buffers.push_back(d);
    }
    if (total > max_total_bytes)
        m_r.error(m_r.where(f.key), f.path,
                  "the buffers need " + std::to_string(total) + " bytes (at most " +
                      std::to_string(max_total_bytes) + ", 1 GiB)");
}

bool workload_reader::read_init(const field& f, buffer_decl& d)
{
    const std::vector<std::pair<std::string, init_kind>> kinds = {
        {"zero", init_kind::zero},     {"iota", init_kind::iota},     {"fill", init_kind::fill},
        {"values", init_kind::values}, {"random", init_kind::random}, {"file", init_kind::file},
        {"csr", init_kind::csr}};
    if (f.value.IsScalar()) {
        // Only "zero" and "iota" take no settings, so only they may be written alone.
        auto k = m_r.choice<init_kind>(f, {{"zero", init_kind::zero}, {"iota", init_kind::iota}});
        if (k)
            d.init.kind = *k;
        return k.has_value();
    }
    if (!f.value.IsMap() || f.value.size() != 1) {
        m_r.wrong_type(f, "zero, iota, or a mapping with one of "
                          "zero|iota|fill|values|random|file|csr");
        return false;
    }
    YAML::Node key;
    YAML::Node val;
    for (const auto& kv : f.value) {
        key.reset(kv.first);
        val.reset(kv.second);
    }
    if (key.Scalar() == "file") // raw little-endian elements from a file (workload_cuda.cpp)
        return read_init_file({key, val, f.path + ".file"}, f.value, d);
    if (key.Scalar() == "csr") // a part of a generator (workload_generators.cpp)
        return read_init_csr({key, val, f.path + ".csr"}, d);
    const field kf{key, key, f.path};
    auto k = m_r.choice<init_kind>(kf, kinds);
    if (!k)
        return false;
    d.init.kind = *k;
    const field body{key, val, f.path + "." + key.Scalar()};
    switch (*k) {
    case init_kind::zero:
        if (!val.IsNull()) {
            m_r.wrong_type(body, "nothing");
            return false;
        }
        return true;
    case init_kind::iota: {
        if (val.IsNull())
            return true;
        if (!m_r.is_map(body, "a mapping with start, step"))
            return false;
        const fields s = m_r.open(val, body.path, {"start", "step"});
        bool ok = true;
        // An integer step may be negative in every integer type (it wraps like the GPU's adds).
        const elem_type step_type = is_float(d.type)          ? d.type
                                    : elem_bytes(d.type) == 8 ? elem_type::i64
                                                              : elem_type::i32;
        if (const field* x = s.get("start")) {
            auto v = m_r.element(x->value, x->path, d.type, x->value);
            auto bits = v ? m_r.element_bits(x->value, x->path, d.type, x->value) : std::nullopt;
            ok = ok && v;
            d.init.start = v.value_or(0);
            d.init.istart = bits.value_or(0);
        }
        if (const field* x = s.get("step")) {
            auto v = m_r.element(x->value, x->path, step_type, x->value);
            auto bits = v ? m_r.element_bits(x->value, x->path, step_type, x->value) : std::nullopt;
            ok = ok && v;
            d.init.step = v.value_or(1);
            d.init.istep = bits.value_or(1);
        }
        if (ok && is_float(d.type))
            ok = check_f32_iota(d, s.get("step") ? *s.get("step") : body);
        return ok;
    }
    case init_kind::fill: {
        const YAML::Node& at = val.IsNull() ? key : val;
        auto v = m_r.element(val, body.path, d.type, at);
        d.init.value = v.value_or(0);
        if (v)
            d.init.ivalue = m_r.element_bits(val, body.path, d.type, at).value_or(0);
        return v.has_value();
    }
    case init_kind::values: {
        if (!val.IsSequence()) {
            m_r.wrong_type(body, "a list of numbers");
            return false;
        }
        bool ok = true;
        for (std::size_t i = 0; i < val.size(); ++i) {
            YAML::Node e;
            e.reset(val[i]);
            auto v = m_r.element_bits(e, at(body.path, i), d.type, e);
            ok = ok && v;
            d.init.values.push_back(v.value_or(0));
        }
        if (d.elements != 0 && val.size() != d.elements) {
            m_r.error(m_r.where(val), body.path,
                      "has " + std::to_string(val.size()) + " values, the buffer has " +
                          std::to_string(d.elements) + " elements");
            ok = false;
        }
        return ok;
    }
    case init_kind::random: {
        if (!m_r.is_map(body, "a mapping with seed, min, max"))
            return false;
        const fields s = m_r.open(val, body.path, {"seed", "min", "max"});
        bool ok = true;
        for (const char* k2 : {"min", "max"})
            ok = m_r.require(s, val, body.path, k2) && ok;
        if (const field* x = s.get("seed")) {
            auto v = m_r.uint(*x, 0, std::numeric_limits<std::uint64_t>::max());
            ok = ok && v;
            d.init.seed = v.value_or(0);
        } else {
            // The run's seed reaches every random choice; buffers differ by their index.
            d.init.seed = m_opts.seed + m_wl.buffers.size();
            d.init.run_seed = true;
        }
        std::optional<double> lo, hi;
        std::optional<std::uint64_t> ilo, ihi;
        const auto bound = [&](const field& x, std::optional<double>& v,
                               std::optional<std::uint64_t>& bits) {
            const YAML::Node& at = x.value.IsNull() ? x.key : x.value;
            v = m_r.element(x.value, x.path, d.type, at);
            if (v)
                bits = m_r.element_bits(x.value, x.path, d.type, at);
        };
        if (const field* x = s.get("min"))
            bound(*x, lo, ilo);
        if (const field* x = s.get("max"))
            bound(*x, hi, ihi);
        // Integers compare exactly (two u64 or i64 values a double cannot tell apart).
        const bool below =
            lo && hi &&
            (is_float(d.type)    ? *lo > *hi
             : is_signed(d.type) ? static_cast<std::int64_t>(*ilo) > static_cast<std::int64_t>(*ihi)
                                 : *ilo > *ihi);
        if (below) {
            m_r.error(m_r.where(s.get("max")->value), s.get("max")->path,
                      "max (" + s.get("max")->value.Scalar() + ") is below min (" +
                          s.get("min")->value.Scalar() + ")");
            ok = false;
        }
        ok = ok && lo && hi;
        d.init.min = lo.value_or(0);
        d.init.max = hi.value_or(0);
        d.init.imin = ilo.value_or(0);
        d.init.imax = ihi.value_or(0);
        return ok;
    }
    case init_kind::file:
    case init_kind::csr:
        break; // `file` and `csr` are read above
    }
    return false;
}

bool workload_reader::check_f32_iota(const buffer_decl& d, const field& at)
{
    const auto value = [&](std::uint64_t i) {
        return d.init.start + d.init.step * static_cast<double>(i);
    };
    const auto overflows = [&](std::uint64_t i) {
        return d.type == elem_type::f32 ? !std::isfinite(static_cast<float>(value(i)))
                                        : !std::isfinite(value(i));
    };
    if (d.elements == 0 || !overflows(d.elements - 1))
        return true;
    // The values are monotonic and element 0 (start) is an f32 value: bisect.
    std::uint64_t lo = 0, hi = d.elements - 1;
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (overflows(mid) ? hi : lo) = mid;
    }
    m_r.error(m_r.where(at), at.path,
              "element " + std::to_string(hi) + " of buffer '" + d.name + "' is " +
                  number_text(value(hi)) + ", which overflows " + name(d.type) + " (largest " +
                  number_text(d.type == elem_type::f32 ? std::numeric_limits<float>::max()
                                                       : std::numeric_limits<double>::max()) +
                  ")");
    return false;
}

} // namespace detail

} // namespace vgpu::host
