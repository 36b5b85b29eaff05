// Workload reader: `generators:` (seeded CSR graphs and sparse matrices, models/host/
// csr_generator.h) and the buffers that take their parts. See docs/workloads.md
// ("Generated CSR inputs").
#include "models/host/workload_reader.h"

namespace vgpu::host::detail {

namespace {

struct generator_kind {
    const char* name;
    csr_kind kind;
    std::vector<std::string> keys;     ///< accepted keys
    std::vector<const char*> required; ///< required keys
};

const std::vector<generator_kind>& generator_kinds()
{
    static const std::vector<generator_kind> kinds = {
        {"csr_graph", csr_kind::graph, {"nodes", "degree", "degrees", "seed"}, {"nodes", "degree"}},
        {"csr_banded",
         csr_kind::banded,
         {"rows", "cols", "band", "seed", "min", "max"},
         {"rows", "cols", "band", "min", "max"}},
        {"csr_power_law",
         csr_kind::power_law,
         {"rows", "cols", "per_row", "seed", "min", "max"},
         {"rows", "cols", "per_row", "min", "max"}},
    };
    return kinds;
}

const char* part_name(csr_part p)
{
    return p == csr_part::row_ptr ? "row_ptr" : p == csr_part::col_idx ? "col_idx" : "values";
}

/// How the part's size follows from the generator's keys, for messages.
std::string part_rule(const csr_spec& s, csr_part p)
{
    const bool graph = s.kind == csr_kind::graph;
    if (p == csr_part::row_ptr)
        return graph ? "nodes + 1" : "rows + 1";
    return graph                           ? "nodes x degree"
           : s.kind == csr_kind::power_law ? "rows x per_row"
                                           : "the entries of the band";
}

} // namespace

void workload_reader::read_generators(const field& f)
{
    if (!m_r.is_map(f, "a mapping of generator names to {csr_graph|csr_banded|csr_power_law: "
                       "{...}}"))
        return;
    const fields all = m_r.index(f.value, f.path);
    std::vector<std::string> names;
    for (const field& e : all.entries)
        names.push_back(e.key.IsScalar() ? e.key.Scalar() : "?");
    m_r.check_keys(all, names); // duplicates only
    std::vector<std::string> kind_names;
    std::vector<std::pair<std::string, std::size_t>> kind_index;
    for (const auto& k : generator_kinds()) {
        kind_names.push_back(k.name);
        kind_index.emplace_back(k.name, kind_index.size());
    }
    for (const field& e : all.entries) {
        const auto name = m_r.identifier({e.key, e.key, e.path});
        if (!name || std::count(m_generator_names.begin(), m_generator_names.end(), *name))
            continue;
        m_generator_names.push_back(*name);
        const auto seed_default = m_opts.seed + (m_generator_names.size() - 1);
        if (!e.value.IsMap() || e.value.size() != 1) {
            m_r.wrong_type(e, "a mapping with one of " + join(kind_names, "|"));
            continue;
        }
        YAML::Node key, val;
        for (const auto& kv : e.value) {
            key.reset(kv.first);
            val.reset(kv.second);
        }
        const auto ki = m_r.choice<std::size_t>({key, key, e.path}, kind_index);
        if (!ki)
            continue;
        const generator_kind& gk = generator_kinds()[*ki];
        const field body{key, val, e.path + "." + gk.name};
        if (!m_r.is_map(body, ("a mapping with " + join(gk.keys, ", ")).c_str()))
            continue;
        const fields s = m_r.open(val, body.path, gk.keys);
        bool ok = true;
        for (const char* k : gk.required)
            ok = m_r.require(s, val, body.path, k) && ok;
        csr_spec spec;
        spec.kind = gk.kind;
        spec.seed = seed_default;
        const auto get = [&](const char* k, std::uint64_t lo, std::uint64_t hi,
                             std::uint64_t& out) {
            if (const field* x = s.get(k)) {
                const auto v = m_r.uint(*x, lo, hi);
                ok = ok && v;
                out = v.value_or(0);
            }
        };
        const std::uint64_t most = csr_max_entries;
        if (gk.kind == csr_kind::graph) {
            get("nodes", 2, most - 1, spec.rows);
            get("degree", 1, most, spec.per_row);
            spec.cols = spec.rows;
            if (ok && spec.per_row >= spec.rows) {
                m_r.error(m_r.where(s.get("degree")->value), s.get("degree")->path,
                          "degree " + std::to_string(spec.per_row) + " is not below nodes (" +
                              std::to_string(spec.rows) +
                              "): a node has at most nodes - 1 distinct edges (no self loops, "
                              "no duplicates)");
                ok = false;
            }
            if (const field* x = s.get("degrees")) {
                const auto d = m_r.choice<csr_degrees>(
                    *x, {{"uniform", csr_degrees::uniform}, {"power_law", csr_degrees::power_law}});
                ok = ok && d;
                spec.degrees = d.value_or(csr_degrees::uniform);
            }
        } else {
            get("rows", 1, most - 1, spec.rows);
            get("cols", 1, most, spec.cols);
            get(gk.kind == csr_kind::banded ? "band" : "per_row",
                gk.kind == csr_kind::banded ? 0 : 1, most,
                gk.kind == csr_kind::banded ? spec.band : spec.per_row);
            if (ok && gk.kind == csr_kind::power_law && spec.per_row > spec.cols) {
                m_r.error(m_r.where(s.get("per_row")->value), s.get("per_row")->path,
                          "per_row " + std::to_string(spec.per_row) + " is above cols (" +
                              std::to_string(spec.cols) + "): a row has at most cols nonzeros");
                ok = false;
            }
            spec.degrees = csr_degrees::power_law;
            std::optional<double> lo, hi;
            if (const field* x = s.get("min"))
                lo = m_r.element(x->value, x->path, elem_type::f32, x->value);
            if (const field* x = s.get("max"))
                hi = m_r.element(x->value, x->path, elem_type::f32, x->value);
            if (lo && hi && *lo > *hi) {
                m_r.error(m_r.where(s.get("max")->value), s.get("max")->path,
                          "max (" + s.get("max")->value.Scalar() + ") is below min (" +
                              s.get("min")->value.Scalar() + ")");
                ok = false;
            }
            ok = ok && lo && hi;
            spec.min = lo.value_or(0);
            spec.max = hi.value_or(0);
        }
        // Without a seed, the run's seed reaches it (seed_default above).
        get("seed", 0, std::numeric_limits<std::uint64_t>::max(), spec.seed);
        if (!ok)
            continue;
        const std::uint64_t nnz = csr_nnz(spec);
        if (nnz > most) {
            m_r.error(m_r.where(key), body.path,
                      "the generator makes " + std::to_string(nnz) + " nonzeros (" +
                          part_rule(spec, csr_part::col_idx) + "), more than " +
                          std::to_string(most) + " (a u32 col_idx of 1 GiB)");
            continue;
        }
        m_wl.generators[*name] = spec;
    }
}

bool workload_reader::read_init_csr(const field& f, buffer_decl& d)
{
    d.init.kind = init_kind::csr;
    if (!m_r.is_map(f, "a mapping with generator, part"))
        return false;
    const fields s = m_r.open(f.value, f.path, {"generator", "part"});
    bool ok = true;
    for (const char* k : {"generator", "part"})
        ok = m_r.require(s, f.value, f.path, k) && ok;
    const csr_spec* spec = nullptr;
    if (const field* x = s.get("generator")) {
        const auto g = m_r.string(*x);
        if (g && std::count(m_generator_names.begin(), m_generator_names.end(), *g) == 0)
            m_r.error(m_r.where(*x), x->path,
                      "undefined generator '" + *g + "'" +
                          (m_generator_names.empty() ? " (the workload has no `generators:`)"
                                                     : hint_of(*g, m_generator_names)));
        const auto it = g ? m_wl.generators.find(*g) : m_wl.generators.end();
        if (it != m_wl.generators.end()) {
            spec = &it->second;
            d.init.generator = *g;
            d.init.csr = *spec;
        }
    }
    std::optional<csr_part> part;
    if (const field* x = s.get("part"))
        part = m_r.choice<csr_part>(*x, {{"row_ptr", csr_part::row_ptr},
                                         {"col_idx", csr_part::col_idx},
                                         {"values", csr_part::values}});
    if (!ok || !spec || !part)
        return false; // a generator with errors was reported where it is declared
    d.init.part = *part;
    const field& px = *s.get("part");
    const std::string gen = "generator '" + d.init.generator + "'";
    if (spec->kind == csr_kind::graph && *part == csr_part::values) {
        m_r.error(m_r.where(px), px.path,
                  gen + " (csr_graph) has no part values (its parts are row_ptr and col_idx)");
        return false;
    }
    const bool want_float = *part == csr_part::values;
    if (is_float(d.type) != want_float || (!want_float && elem_bytes(d.type) < 4)) {
        m_r.error(m_r.where(px), px.path,
                  std::string("part ") + part_name(*part) + " needs " +
                      (want_float ? "an f32 or f64" : "a u32, i32, u64 or i64") +
                      " buffer (buffer '" + d.name + "' is " + name(d.type) + ")");
        return false;
    }
    const std::uint64_t n = csr_part_elements(*spec, *part);
    if (d.elements != 0 && d.elements != n) {
        m_r.error(m_r.where(px), px.path,
                  "buffer '" + d.name + "' has " + std::to_string(d.elements) + " elements, part " +
                      part_name(*part) + " of " + gen + " has " + std::to_string(n) + " (" +
                      part_rule(*spec, *part) + ")");
        return false;
    }
    return true;
}

} // namespace vgpu::host::detail
