// Host-side references: the table of every family and the calls into it. The references
// themselves are in models/host/references/. See docs/workloads.md ("References").
#include "models/host/reference.h"
#include "models/host/reference_family.h"

#include <limits>

namespace vgpu::host {

namespace detail {

reference_work elementwise(shape_reader& r, std::initializer_list<const char*> inputs)
{
    std::vector<std::uint64_t> sizes;
    for (const char* b : inputs)
        sizes.push_back(r.size(b));
    const std::uint64_t n = r.count("n", r.out());
    std::size_t i = 0;
    for (const char* b : inputs)
        r.fits(b, n, sizes[i++]);
    r.fits("the checked buffer", n, r.out());
    return {n, "n", {}};
}

reference_work repeated_per_element(shape_reader& r, const char* loop)
{
    const std::uint64_t in = r.size("in");
    const std::uint64_t k = r.count(loop);
    const std::uint64_t n = r.count("n", r.out());
    r.fits("in", n, in);
    r.fits("the checked buffer", n, r.out());
    return {saturating_mul(n, k), loop, {}};
}

} // namespace detail

namespace {

using detail::reference_entry;

/// Every reference, in documentation order (family by family).
const std::vector<reference_entry>& table()
{
    static const std::vector<reference_entry> t = [] {
        std::vector<reference_entry> all;
        for (auto family : {detail::elementwise_references, detail::reductions_references,
                            detail::irregular_references, detail::stencils_references,
                            detail::linear_algebra_references, detail::ml_references,
                            detail::sorting_references, detail::physics_references}) {
            auto entries = family();
            all.insert(all.end(), entries.begin(), entries.end());
        }
        return all;
    }();
    return t;
}

} // namespace

const std::vector<reference_spec>& references()
{
    static const std::vector<reference_spec> specs = [] {
        std::vector<reference_spec> s;
        for (const auto& e : table())
            s.push_back(e.spec);
        return s;
    }();
    return specs;
}

const reference_spec* find_reference(std::string_view name)
{
    for (const auto& s : references())
        if (name == s.name)
            return &s;
    return nullptr;
}

reference_result compute_reference(std::string_view name, const reference_args& args,
                                   const typed_buffer& out)
{
    reference_result res;
    for (const auto& e : table()) {
        if (name != e.spec.name)
            continue;
        detail::arg_reader r(args, out);
        res.words = out.words;
        e.fn(r, res.words);
        res.error = r.error();
        if (!res.ok())
            res.words.clear();
        return res;
    }
    res.error = "unknown reference '" + std::string(name) + "'";
    return res;
}

std::uint64_t reference_shape::elements() const
{
    std::uint64_t e = out;
    for (const auto& [arg, n] : buffers)
        e = n > std::numeric_limits<std::uint64_t>::max() - e
                ? std::numeric_limits<std::uint64_t>::max()
                : e + n;
    return e;
}

reference_work estimate_work(std::string_view name, const reference_shape& shape)
{
    for (const auto& e : table()) {
        if (name != e.spec.name)
            continue;
        detail::shape_reader r(shape);
        reference_work w = e.work(r);
        w.error = r.error();
        if (!w.ok())
            w.ops = 0;
        return w;
    }
    reference_work w;
    w.error = "unknown reference '" + std::string(name) + "'";
    return w;
}

std::uint64_t work_limit(const reference_shape& shape)
{
    const std::uint64_t scaled = detail::saturating_mul(work_per_element, shape.elements());
    return scaled > std::numeric_limits<std::uint64_t>::max() - work_base
               ? std::numeric_limits<std::uint64_t>::max()
               : work_base + scaled;
}

} // namespace vgpu::host
