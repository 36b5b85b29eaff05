// Workload reader: buffers and their initialisers, and the initial words the driver writes.
// See docs/workloads.md ("Buffers").
#include "models/host/workload_reader.h"

namespace vgpu::host {

namespace {

/// splitmix64: a small, well-mixed, portable generator (the same on every host).
std::uint64_t splitmix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

std::vector<std::uint32_t> initial_words(const buffer_decl& b)
{
    std::vector<std::uint32_t> w(b.elements, 0);
    const buffer_init& in = b.init;
    switch (in.kind) {
    case init_kind::zero:
        break;
    case init_kind::iota:
        if (b.type == elem_type::f32) {
            for (std::uint64_t i = 0; i < b.elements; ++i)
                w[i] = f32_bits(static_cast<float>(in.start + in.step * static_cast<double>(i)));
        } else {
            // Integer iota wraps modulo 2^32 like the GPU's integer arithmetic.
            const auto start = static_cast<std::uint32_t>(static_cast<std::int64_t>(in.start));
            const auto step = static_cast<std::uint32_t>(static_cast<std::int64_t>(in.step));
            for (std::uint64_t i = 0; i < b.elements; ++i)
                w[i] = start + static_cast<std::uint32_t>(i) * step;
        }
        break;
    case init_kind::fill:
        std::fill(w.begin(), w.end(), detail::to_word(in.value, b.type));
        break;
    case init_kind::values:
        for (std::size_t i = 0; i < w.size() && i < in.values.size(); ++i)
            w[i] = detail::to_word(in.values[i], b.type);
        break;
    case init_kind::random: {
        std::uint64_t state = in.seed;
        if (b.type == elem_type::f32) {
            for (auto& x : w) {
                const double u =
                    static_cast<double>(splitmix64(state) >> 40) / 16777216.0; // [0, 1)
                x = f32_bits(static_cast<float>(in.min + (in.max - in.min) * u));
            }
            break;
        }
        const auto lo = static_cast<std::int64_t>(in.min);
        const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(in.max) - lo) + 1;
        if (span != 0 && (span & (span - 1)) == 0) {
            // A power-of-two span (the usual index range): z % span is z & (span - 1), without
            // a 64-bit division per element.
            for (auto& x : w)
                x = static_cast<std::uint32_t>(
                    lo + static_cast<std::int64_t>(splitmix64(state) & (span - 1)));
        } else {
            for (auto& x : w)
                x = static_cast<std::uint32_t>(lo +
                                               static_cast<std::int64_t>(splitmix64(state) % span));
        }
        break;
    }
    }
    return w;
}

namespace detail {

std::uint32_t to_word(double v, elem_type t)
{
    if (t == elem_type::f32)
        return f32_bits(static_cast<float>(v));
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(v));
}

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
            auto t = m_r.choice<elem_type>(
                *x, {{"u32", elem_type::u32}, {"i32", elem_type::i32}, {"f32", elem_type::f32}});
            if (t)
                d.type = *t;
        }
        if (const field* x = b.get("elements")) {
            auto e = m_r.uint(*x, 1, max_total_bytes / 4);
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
    const std::vector<std::pair<std::string, init_kind>> kinds = {{"zero", init_kind::zero},
                                                                  {"iota", init_kind::iota},
                                                                  {"fill", init_kind::fill},
                                                                  {"values", init_kind::values},
                                                                  {"random", init_kind::random}};
    if (f.value.IsScalar()) {
        // Only "zero" and "iota" take no settings, so only they may be written alone.
        auto k = m_r.choice<init_kind>(f, {{"zero", init_kind::zero}, {"iota", init_kind::iota}});
        if (k)
            d.init.kind = *k;
        return k.has_value();
    }
    if (!f.value.IsMap() || f.value.size() != 1) {
        m_r.wrong_type(f, "zero, iota, or a mapping with one of zero|iota|fill|values|random");
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
        if (const field* x = s.get("start")) {
            auto v = m_r.element(x->value, x->path, d.type, x->value);
            ok = ok && v;
            d.init.start = v.value_or(0);
        }
        if (const field* x = s.get("step")) {
            auto v = d.type == elem_type::f32
                         ? m_r.element(x->value, x->path, d.type, x->value)
                         : m_r.element(x->value, x->path, elem_type::i32, x->value);
            ok = ok && v;
            d.init.step = v.value_or(1);
        }
        if (ok && d.type == elem_type::f32)
            ok = check_f32_iota(d, s.get("step") ? *s.get("step") : body);
        return ok;
    }
    case init_kind::fill: {
        auto v = m_r.element(val, body.path, d.type, val.IsNull() ? key : val);
        d.init.value = v.value_or(0);
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
            auto v = m_r.element(e, at(body.path, i), d.type, e);
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
        if (const field* x = s.get("min"))
            lo = m_r.element(x->value, x->path, d.type, x->value.IsNull() ? x->key : x->value);
        if (const field* x = s.get("max"))
            hi = m_r.element(x->value, x->path, d.type, x->value.IsNull() ? x->key : x->value);
        if (lo && hi && *lo > *hi) {
            m_r.error(m_r.where(s.get("max")->value), s.get("max")->path,
                      "max (" + s.get("max")->value.Scalar() + ") is below min (" +
                          s.get("min")->value.Scalar() + ")");
            ok = false;
        }
        ok = ok && lo && hi;
        d.init.min = lo.value_or(0);
        d.init.max = hi.value_or(0);
        return ok;
    }
    }
    return false;
}

bool workload_reader::check_f32_iota(const buffer_decl& d, const field& at)
{
    const auto value = [&](std::uint64_t i) {
        return d.init.start + d.init.step * static_cast<double>(i);
    };
    const auto overflows = [&](std::uint64_t i) {
        return !std::isfinite(static_cast<float>(value(i)));
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
                  number_text(value(hi)) + ", which overflows f32 (largest " +
                  number_text(std::numeric_limits<float>::max()) + ")");
    return false;
}

} // namespace detail

} // namespace vgpu::host
