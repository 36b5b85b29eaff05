// PTX-to-vgpu translator (first slice): control-flow graph and a reconverging block layout,
// lowering of PTX instructions onto the vgpu ISA, linear-scan register allocation and
// emission of assembler text with a map from every vgpu PC to its PTX and CUDA lines. No
// SystemC. See docs/cuda.md, "Translation".
#pragma once

#include "models/sm/ptx/ast.h"
#include "models/sm/ptx/printf_format.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::ptx {

/// Limits of the target SM (defaults: the ISA's, models/sm/core/isa.h).
struct translate_options {
    unsigned max_registers = 255; ///< registers per thread the program may use (R0..R(n-1))
    unsigned max_predicates = 8;  ///< predicate registers (P0..P(n-1))
    /// Registers per SM (sm.registers; V100: 65,536), for .minnctapersm: a kernel with
    /// `.maxntid` T and `.minnctapersm` C gets at most sm_registers / (C * T rounded up to
    /// whole warps) registers per thread (docs/cuda.md, "Launch bounds").
    unsigned sm_registers = 65536;
    unsigned const_slot = 0; ///< CBV slot the kernel's constant bank is bound to (CDL)
    bool bulk_cdl = true;    ///< group constant loads into bulk CDLs (false: legacy CDLs only)
};

/// A .const variable in the kernel's constant bank (docs/cuda.md, "Constant memory").
struct const_var {
    std::string name{};               ///< PTX name (the mangled name of a namespaced __constant__)
    std::uint32_t offset = 0;         ///< byte offset in the bank
    std::uint32_t bytes = 0;          ///< size in bytes
    data_type type = data_type::none; ///< PTX element type (clang declares every one .b8)
};

/// Where one vgpu instruction comes from.
struct pc_origin {
    int ptx_line = 0;   ///< line of the PTX instruction it lowers (0: added by the layout)
    std::string cuda{}; ///< "FILE.cu:LINE" from .loc, "" when unknown
};

/// Output of translate().
struct translation {
    std::string text{};           ///< vgpu assembler text (docs/isa.md), LDP by index
    std::vector<pc_origin> pcs{}; ///< one per vgpu instruction (PC order)
    unsigned registers = 0;       ///< registers per thread used (highest R + 1)
    unsigned predicates = 0;      ///< predicates used (highest P + 1)
    /// Static shared memory per CTA in bytes (the .shared variables, aligned); extern (dynamic)
    /// .shared arrays start at this offset, so a launch needs shared_bytes + its dynamic size.
    std::uint32_t shared_bytes = 0;
    /// Local memory per thread in bytes (the .local variables, whole words; docs/cuda.md,
    /// "Local memory"), 0 when the kernel has none. The launch then passes the base of a local
    /// area of local_area_bytes() as the hidden parameter local_param (after the entry's).
    std::uint32_t local_bytes = 0;
    unsigned local_param = 0; ///< LDP index of the local area's base (local_bytes > 0)
    /// Kernel printf (docs/cuda.md, "Kernel printf"): the formats of the vprintf calls (a
    /// record's id is its index); when there are any, the launch passes the printf FIFO's
    /// address as the hidden parameter printf_param (after the entry's, before local_param).
    std::vector<printf_format> printf_formats{};
    unsigned printf_param = 0;
    std::vector<unsigned> maxntid{}; ///< the entry's .maxntid (x, y, z; empty: none)
    std::vector<unsigned> reqntid{}; ///< the entry's .reqntid (x, y, z; empty: none)
    unsigned register_cap = 0;       ///< registers per thread the allocator could use
    /// Bytes of the local area of a launch of `ctas` CTAs of `threads` threads: each warp has
    /// local_bytes / 4 lines of 128 bytes, word k of lane l at line k, byte 4 * l.
    std::uint64_t local_area_bytes(std::uint64_t ctas, std::uint64_t threads) const
    {
        return ctas * ((threads + 31) / 32) * (local_bytes / 4) * 128;
    }
    /// The constant bank: the .const variables laid out in declaration order at their
    /// alignment (at most 64 KiB), with their initialisers; empty when the module has none.
    /// `ld.const` reads it through CBV `const_slot` (CDL).
    std::vector<std::uint8_t> const_bank{};
    std::vector<const_var> const_vars{}; ///< the bank's variables, in bank order
    std::vector<std::string> errors;     ///< "file.ptx:LINE:COL: error: unsupported ... (...)"
    bool ok() const { return errors.empty(); }
};

/// Why a CTA of x * y * z threads cannot run the translated kernel (more threads than its
/// .maxntid, other dimensions than its .reqntid), or "" when it can.
std::string launch_bounds_problem(const translation& t, unsigned x, unsigned y, unsigned z);

/// Translates functions[entry] of m (a parsed, checked module) into a vgpu program.
translation translate(const module& m, int entry, const translate_options& opt = {});

/// A control-flow graph of basic blocks, for the layout (exposed for tests).
struct flow_graph {
    std::vector<std::vector<std::size_t>> succs; ///< successors of each block; block 0 is entry
};

/// Immediate post-dominator of every block (the virtual exit is succs.size(); a block that
/// cannot reach an exit gets the virtual exit).
std::vector<std::size_t> post_dominators(const flow_graph& g);

/// A layout (a permutation of the blocks, entry first) in which every forward edge goes
/// forward and, for every block b with two or more successors, every block reachable from b
/// without passing through its immediate post-dominator p is placed before p (so lanes that
/// diverge at b wait at p, the minimum-PC rule's join, until all of them arrive). Ties keep
/// the original order. Empty, with `why` set, when the graph is irreducible or no such layout
/// exists (a join that is a loop header reached only through a back edge).
std::vector<std::size_t> reconverging_layout(const flow_graph& g, std::string* why = nullptr);

/// "" when `order` satisfies the property above, else the first violation in words.
std::string check_layout(const flow_graph& g, const std::vector<std::size_t>& order);

} // namespace vgpu::ptx
