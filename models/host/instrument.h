// Seed 002's instrumentation pass (pure C++, no SystemC): the counting or record-writing code
// inserted at each basic block of a kernel. See models/shader_trace/README.md ("Per-type trace
// buffers").
#pragma once

#include "models/shader_trace/core/typed_buffers.h"
#include "models/sm/core/isa.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::host {

/// Record types a kernel's `instrument:` list enables.
struct instrument_types {
    bool control = false; ///< a control record at each block entry
    bool memory = false;  ///< a memory record before each LD/ST/ATOM
};

/// First instruction of each basic block, ascending: the entry, every branch target, and the
/// instruction after a BRA or an EXIT (a lane may leave there).
std::vector<std::uint32_t> block_leaders(const sm::program& prog);

/// An instrumented program and what the host needs to run it.
struct instrumented {
    sm::program code;                      ///< the program with the inserted code
    std::vector<std::uint32_t> blocks;     ///< block b starts at original PC blocks[b]
    std::vector<std::uint32_t> origin;     ///< per new PC: the original PC it belongs to
    shader_trace::instrumentation records; ///< records of each type per block execution
    unsigned first_param = 0;              ///< index of the first added parameter (LDP)
    unsigned added_params = 0;             ///< parameters the host appends, see below
    std::string error;                     ///< why the program cannot be instrumented (else empty)
};

/// The profiling run: at each block entry one ATOM.ADD of 1 on counter[b] (a u32 array at the
/// added parameter 0), so that counter[b] ends at the block's executions summed over threads.
instrumented instrument_profile(const sm::program& prog, unsigned params, unsigned nregs);

/// The traced run: per enabled type (control first) three added parameters: the buffer's
/// base, the address of its next-free pointer (a u32 byte offset, starting at 0), and its
/// capacity in bytes. A record's slot is claimed by ATOM.ADD of the record size on the
/// pointer; a slot that does not fit entirely is not written (the pointer still counts it, so
/// the host knows how many records were refused: refused_records()).
instrumented instrument_trace(const sm::program& prog, instrument_types types, unsigned params,
                              unsigned nregs);

/// Records of a type refused by a buffer of `capacity` bytes whose next-free pointer ended at
/// `pointer` (every claimed slot advanced it by one record).
std::uint64_t refused_records(shader_trace::record_type t, std::uint64_t pointer,
                              std::uint64_t capacity);

/// The merged trace as text (docs/trace-format.md, "instrumented_trace.csv"): a header line
/// `thread,seq,type,block,address,size`, then one line per record in the order given; control
/// records leave address and size empty.
std::string trace_csv(const std::vector<shader_trace::record>& merged);

/// Parameters the kernel may have in all (the SM's limit).
constexpr unsigned max_params = 16;

} // namespace vgpu::host
