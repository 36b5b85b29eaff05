// PTX-to-vgpu translator: the performance directives of `__launch_bounds__` (.maxntid,
// .reqntid, .minnctapersm, .maxnreg). See docs/cuda.md, "Launch bounds".
#include "models/sm/ptx/translate.h"
#include "models/sm/ptx/translate_impl.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace vgpu::ptx {

namespace {

std::uint64_t threads_of(const std::vector<unsigned>& dims)
{
    std::uint64_t n = 1;
    for (const unsigned d : dims)
        n *= d;
    return n;
}

std::string dims_text(const std::vector<unsigned>& dims)
{
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + std::to_string(dims[i]);
    return s;
}

} // namespace

namespace detail {

void apply_launch_bounds(const function& f, translate_options& opt)
{
    if (f.maxnreg > 0)
        opt.max_registers = std::min(opt.max_registers, f.maxnreg);
    // .minnctapersm C with at most T threads per CTA (.maxntid, else .reqntid): C CTAs of T
    // threads (whole warps) must fit the SM's registers, as CUDA's compiler guarantees.
    const std::vector<unsigned>& bound = !f.maxntid.empty() ? f.maxntid : f.reqntid;
    if (f.minnctapersm > 0 && !bound.empty()) {
        const std::uint64_t threads = (threads_of(bound) + 31) / 32 * 32;
        const std::uint64_t cap = opt.sm_registers / (threads * f.minnctapersm);
        opt.max_registers = static_cast<unsigned>(
            std::min<std::uint64_t>(opt.max_registers, std::max<std::uint64_t>(cap, 1)));
    }
}

} // namespace detail

std::string launch_bounds_problem(const translation& t, unsigned x, unsigned y, unsigned z)
{
    const std::vector<unsigned> block = {x, y, z};
    const std::uint64_t threads = std::uint64_t{x} * y * z;
    if (!t.reqntid.empty()) {
        std::vector<unsigned> want = t.reqntid;
        want.resize(3, 1);
        if (want != block)
            return "block [" + dims_text(block) + "] is not the kernel's .reqntid " +
                   dims_text(t.reqntid) + " (__launch_bounds__ or __reqntid__)";
    }
    if (!t.maxntid.empty() && threads > threads_of(t.maxntid))
        return "block [" + dims_text(block) + "] has " + std::to_string(threads) +
               " threads, more than the " + std::to_string(threads_of(t.maxntid)) +
               " of the kernel's .maxntid " + dims_text(t.maxntid) + " (__launch_bounds__)";
    return "";
}

} // namespace vgpu::ptx
