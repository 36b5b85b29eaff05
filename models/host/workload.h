// Workloads: buffers, kernels (assembly programs), a schedule of phases and result checks,
// read from YAML with every error located. No SystemC. See docs/workloads.md.
#pragma once

#include "models/common/config.h"
#include "models/host/instrument.h"
#include "models/host/reference.h"
#include "models/llc/core/llc_org.h"
#include "models/sm/core/assembler.h"
#include "models/sm/core/cta_slots.h"
#include "models/sm/ptx/printf_format.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vgpu::host {

constexpr unsigned max_grid_dim = 65535;              ///< largest grid.x, grid.y and grid.z
constexpr unsigned max_block_z = 64;                  ///< largest block.z (as CUDA)
constexpr unsigned max_block_threads = 1024;          ///< largest block.x * block.y * block.z
constexpr std::uint64_t max_total_bytes = 1ull << 30; ///< largest sum of buffer sizes
constexpr unsigned max_kernel_params = 16;            ///< parameters per kernel (CP limit)
constexpr unsigned kernel_registers = 64;             ///< registers per thread programs may use
constexpr std::uint32_t max_shared_bytes = 1u << 24;  ///< largest `shared_bytes:` (dynamic)
constexpr std::uint64_t max_loop_passes = 1000000;    ///< largest `times:` and `max:` of a loop

/// How the driver fills a buffer before the first kernel.
enum class init_kind : std::uint8_t { zero, iota, fill, values, random, file };

/// Initial contents of a buffer. Float buffers (f32, f64) use the doubles; integer buffers use
/// the exact 64-bit fields (two's complement, cut to the element width), so that every u64 and
/// i64 value is exact; the doubles hold the same numbers (rounded) for messages and tests.
struct buffer_init {
    init_kind kind = init_kind::zero;  ///< which rule
    double start = 0;                  ///< iota: value of element 0
    double step = 1;                   ///< iota: increment per element
    double value = 0;                  ///< fill: value of every element
    std::vector<std::uint64_t> values; ///< values: the bits of each element (to_bits)
    std::uint64_t seed = 0;            ///< random: generator seed
    bool run_seed = false;             ///< random: seed derived from the run's (none in the file)
    double min = 0;                    ///< random: smallest value
    double max = 0;                    ///< random: largest value (integers), bound (floats)
    std::uint64_t istart = 0;          ///< integer iota: element 0 (bits)
    std::uint64_t istep = 1;           ///< integer iota: increment (modulo 2^64)
    std::uint64_t ivalue = 0;          ///< integer fill: the element's bits
    std::uint64_t imin = 0;            ///< integer random: smallest value (bits)
    std::uint64_t imax = 0;            ///< integer random: largest value (bits)
    std::string raw;                   ///< file: the file's bytes (elements x element bytes)
};

/// A buffer the driver allocates in GPU virtual memory.
struct buffer_decl {
    std::string name;                ///< name used by params and checks
    elem_type type = elem_type::u32; ///< element type
    std::uint64_t elements = 0;      ///< number of elements
    buffer_init init;                ///< initial contents
    bool read_only = false; ///< its pages are not writable (a store faults) and carry the hint
    bool on_demand = false; ///< alloc: on_demand: no pages until a kernel's access faults
    /// Shared copy-on-write pages (seed 003): not writable on the GPU until a store's
    /// protection fault makes the host copy the page (native host).
    bool copy_on_write = false;
    config::location where; ///< position of the declaration
    /// Size in bytes (elements x element size).
    std::uint64_t bytes() const { return elements * elem_bytes(type); }
};

/// The initial contents of b as a packed little-endian image (typed_buffer::words;
/// deterministic for random).
std::vector<std::uint32_t> initial_words(const buffer_decl& b);

/// One 32-bit kernel parameter (read by LDP).
struct kernel_param {
    std::string name;       ///< symbol used in the program
    bool is_buffer = false; ///< the value is a buffer's virtual address
    std::string buffer;     ///< is_buffer: the buffer's name
    std::uint32_t bits = 0; ///< !is_buffer: the value's bits (integers, or f32 for decimals)
    double number = 0;      ///< !is_buffer: the value as written
    std::string text;       ///< !is_buffer: the value's text (converted to the PTX type)
    config::location where; ///< position of the entry
};

/// A CBV slot a kernel binds to a buffer (base = the buffer's address, size = its bytes).
struct cbv_binding {
    unsigned slot = 0;      ///< CBV table slot (< cdl.cbv_slots)
    std::string buffer;     ///< the buffer
    config::location where; ///< position of the entry
};

/// The SMs a kernel's CTAs are dispatched to.
struct sm_range {
    unsigned first = 0; ///< first SM (global index)
    unsigned count = 0; ///< number of SMs; 0 = every SM from first to the last
};

/// A kernel: program, parameters, launch geometry and SM set.
struct kernel_decl {
    std::string name;                  ///< name used by the schedule
    std::string source;                ///< program text
    sm::source_origin origin;          ///< where the text starts in the file
    sm::program code;                  ///< assembled program
    std::vector<int> lines;            ///< file line of each instruction
    std::vector<kernel_param> params;  ///< parameters in LDP index order
    unsigned grid_x = 1, grid_y = 1;   ///< CTAs in the grid
    unsigned block_x = 1, block_y = 1; ///< threads per CTA
    unsigned grid_z = 1;               ///< CTAs in the grid in z
    unsigned block_z = 1;              ///< threads per CTA in z
    sm_range sms;                      ///< SMs that run the kernel
    std::vector<cbv_binding> cbvs;     ///< CBV slots the driver programs before its launch
    /// `instrument: [control, memory]`: record types of seed 002's per-type trace buffers
    /// (models/shader_trace/README.md); none: not instrumented.
    instrument_types instrument;
    /// `llc`: the LLC organisation the driver switches to before the launch (ARCH, CHANGE on
    /// multi-module GPUs); none: as it is.
    std::optional<llc::llc_org> llc;
    config::location instrument_where; ///< position of the `instrument` key
    config::location where;            ///< position of the declaration
    /// The kernel runs instrumented (a profiling launch, then the traced one).
    bool instrumented() const { return instrument.control || instrument.memory; }
    unsigned block_threads() const { return block_x * block_y * block_z; } ///< threads per CTA
    /// Warps per CTA.
    unsigned block_warps() const { return (block_threads() + sm::warp_size - 1) / sm::warp_size; }
    /// The encoded program as the driver writes it to memory.
    std::vector<std::uint8_t> image() const { return sm::encode_program(code); }
    // ---- a kernel given as CUDA or PTX (`cuda:` / `ptx:` with `entry:`) instead of `program:`
    std::string cuda;                    ///< `cuda:` path, resolved against the workload's folder
    std::string ptx_file;                ///< `ptx:` path, resolved ("" when compiled from `cuda:`)
    std::string entry;                   ///< `entry:` as written
    std::string ptx;                     ///< the PTX text (compiled or read)
    std::string lines_file;              ///< the file `lines` refer to ("": the workload file)
    std::vector<std::string> cuda_lines; ///< per PC: "FILE.cu:LINE" from .loc, or ""
    config::location source_where;       ///< the `cuda:` or `ptx:` key
    /// A kernel translated from PTX (it has `cuda:` or `ptx:`).
    bool translated() const { return !cuda.empty() || !ptx_file.empty(); }
    // clang-format off
    unsigned registers = 0;         ///< registers per thread of a translated kernel; 0: sm.regs_per_thread
    std::uint32_t shared_bytes = 0; ///< shared memory per CTA: static (translation) + dynamic (shared_bytes:)
    // clang-format on
    /// Kernel printf (docs/cuda.md): the formats of its vprintf calls (record id - 1 indexes
    /// them) and its FIFO buffer's name ("" when the kernel does not call printf).
    std::vector<ptx::printf_format> printf_formats;
    std::string printf_buffer;
};

/// What a check compares the buffer with.
enum class check_kind : std::uint8_t { reference, expect };

/// A comparison of a buffer after the run.
struct check_decl {
    std::string buffer;                             ///< checked buffer
    check_kind kind = check_kind::reference;        ///< reference or literal values
    std::string reference;                          ///< reference: its name
    std::map<std::string, std::string> buffer_args; ///< reference: argument -> buffer name
    std::map<std::string, double> scalar_args;      ///< reference: argument -> number
    tolerance tol;                                  ///< f32, f64 buffers: allowed difference
    std::vector<std::uint32_t> expect;              ///< expect: the packed image
    config::location where;                         ///< position of the entry
};

/// A parsed, validated workload.
/// An eviction of a buffer's resident pages by the driver, in the middle of a phase (the
/// unpinned memory of seed 003): copied out, unmapped, shot down; the next access faults.
struct evict_decl {
    std::string buffer;         ///< the buffer whose resident pages are evicted
    unsigned phase = 0;         ///< schedule phase during which it happens
    std::uint64_t after_ns = 0; ///< time after the phase's first LAUNCH write
    config::location where;     ///< position of the entry
};

/// A host loop of the schedule (`{repeat: [...], times: N}` or `{repeat: [...], until: {buffer,
/// index, equals}, max: N}`): phases [first, first + count) of `schedule` run in order, pass
/// after pass. Loops do not nest and do not overlap.
struct loop_decl {
    std::size_t first = 0;    ///< its body's first phase (index into workload::schedule)
    std::size_t count = 0;    ///< phases in its body (at least one)
    std::uint64_t times = 0;  ///< `times`: passes; 0 for an `until` loop
    std::string buffer;       ///< until: the buffer the driver reads after each pass
    std::uint64_t index = 0;  ///< until: the element it reads
    std::uint64_t equals = 0; ///< until: the value that ends the loop (to_bits of its type)
    std::uint64_t max = 0;    ///< until: most passes (the run fails when they are all used)
    config::location where;   ///< position of the loop's mapping
    std::size_t entry = 0;    ///< its index in the `schedule` list as written
    bool until() const { return times == 0; }                    ///< ended by a value, not a count
    std::uint64_t most() const { return until() ? max : times; } ///< most passes
    /// Passes at least (a lower bound of the loop's work: an `until` loop runs once at least).
    std::uint64_t least() const { return until() ? 1 : times; }
    bool contains(std::size_t phase) const { return phase >= first && phase < first + count; }
};

struct workload {
    std::string file;                               ///< file (or display) name
    std::string name;                               ///< workload name
    std::string description;                        ///< one-paragraph description
    std::map<std::string, std::string> vars;        ///< every declared variable's value as used
    std::string text;                               ///< the text as used (see parse_workload)
    std::vector<buffer_decl> buffers;               ///< in declaration order (= allocation order)
    std::vector<kernel_decl> kernels;               ///< in declaration order
    std::vector<std::vector<std::size_t>> schedule; ///< phases of kernel indices
    std::vector<config::location> schedule_where;   ///< each phase's position (none: default)
    /// Host loops over runs of `schedule` (phases in file order, each loop body once), in order.
    std::vector<loop_decl> loops;
    std::vector<check_decl> checks;    ///< run after the last phase
    std::vector<evict_decl> evictions; ///< `evict` entries, in file order
    /// Files a run writes beside its record (path relative to OUTDIR -> contents), which
    /// `text` refers to: kernels/<kernel>.ptx and kernels/<kernel>.vasm of translated kernels.
    std::map<std::string, std::string> files;
    /// Index of the buffer called name, or -1.
    int buffer_index(std::string_view name) const;
    /// Index of the kernel called name, or -1.
    int kernel_index(std::string_view name) const;
    /// The loop whose body holds phase p, or nullptr.
    const loop_decl* loop_of(std::size_t p) const;
};

/// A value given to a declared workload variable from outside the file (-D NAME=VALUE).
struct var_setting {
    std::string name;       ///< variable name
    std::string value;      ///< a number, as written
    config::location where; ///< where it was given, for messages ("-D n=5", a config line)
};

/// What a run adds to a workload file.
struct workload_options {
    std::vector<var_setting> vars; ///< values that replace declared ones (undeclared: an error)
    /// Seed of a random initialiser without its own: buffer i gets seed + i (platform.seed).
    std::uint64_t seed = 0;
    /// sm.regs_per_thread and sm.registers of the platform, when known (0: not known): CUDA and
    /// PTX kernels are translated for them (spilling above regs_per_thread), as a compiler
    /// targets the device's register file; else for sm::max_registers and 65,536.
    unsigned regs_per_thread = 0;
    unsigned sm_registers = 0;
    /// host.printf_buffer_bytes: the data bytes of a printf kernel's FIFO (docs/cuda.md).
    std::uint64_t printf_buffer_bytes = 1u << 20;
};

/// Output of parse_workload().
struct parse_result {
    workload wl;                               ///< valid only when ok()
    std::vector<std::string> errors;           ///< "file:line:col: error: key.path: problem"
    bool ok() const { return errors.empty(); } ///< true when the workload is usable
};

/// Reads and validates a workload file (missing file and YAML syntax errors included).
/// wl.text is the file's text with the `vars:` values that opts replaced rewritten and, when
/// the file has no `name:`, a `name:` line with the default name: read again, it gives the
/// same workload without the options' vars (the record written to a run's output folder).
parse_result parse_workload(const std::string& path, const workload_options& opts = {});
/// Reads and validates workload text; name is used in messages.
parse_result parse_workload_text(const std::string& text, const std::string& name,
                                 const workload_options& opts = {});

/// Checks wl against a platform with num_sms SMs of warp_slots warps and regs_per_thread
/// registers each: SM ranges within the platform, CTAs that fit an SM, programs that use only
/// the registers an SM gives a thread, and (with count 0 resolved) no shared SMs in a phase.
std::vector<std::string> check_against_platform(const workload& wl, unsigned num_sms,
                                                unsigned warp_slots,
                                                unsigned regs_per_thread = sm::max_registers);

/// What check_against_platform(wl, limits) checks a workload against.
struct platform_limits {
    unsigned num_sms = 1;                         ///< SMs of the platform
    unsigned warp_slots = 64;                     ///< warp slots of an SM
    unsigned regs_per_thread = sm::max_registers; ///< registers an SM gives a thread
    unsigned queues = 16;                         ///< cp.queues: kernels a phase may run at once
    std::uint32_t max_program_bytes = sm::max_program_bytes; ///< the SM's program limit
    std::uint64_t core_period_ps = 1000;                     ///< platform.clocks.core
    unsigned dispatch_latency = 0;                           ///< cp.dispatch_latency (core cycles)
    unsigned cta_dispatch_interval = 0;  ///< cp.cta_dispatch_interval (core cycles)
    std::uint64_t max_time_ps = 0;       ///< platform.max_time; 0 = not checked
    std::uint64_t kernel_timeout_ps = 0; ///< host.kernel_timeout; 0 = not checked
    sm::sm_resources sm;                 ///< what an SM gives resident CTAs (occupancy)
};

/// Resident CTAs of kernel k per SM (sm::occupancy): its registers per thread (those of its
/// translation, else regs_per_thread, sm.regs_per_thread) and shared memory per CTA.
sm::occupancy_result kernel_occupancy(const kernel_decl& k, const sm::sm_resources& sm,
                                      unsigned regs_per_thread);

/// Least simulated time (ps, saturated) kernel k can take on `sms` SMs: its CTAs spread over
/// them, each SM starts one CTA per cta_dispatch_interval cycles after dispatch_latency and
/// issues at most one warp-instruction per cycle (every warp issues at least its EXIT).
std::uint64_t min_kernel_ps(const kernel_decl& k, unsigned sms, const platform_limits& limits);

/// check_against_platform(wl, num_sms, warp_slots, regs_per_thread), then: no schedule phase
/// with more kernels than limits.queues, no program longer than limits.max_program_bytes, no
/// kernel (min_kernel_ps) or schedule that cannot end within kernel_timeout or max_time.
std::vector<std::string> check_against_platform(const workload& wl, const platform_limits& limits);

/// The expected contents of check c's buffer, computed from the initial buffer contents.
reference_result expected_contents(const workload& wl, const check_decl& c);

/// expected_contents of every check, in order. `initial[b]`, when not empty, is buffer b's
/// initial_words, taken instead of computing them again: the last check that needs a buffer
/// takes its words over (a 64 MiB table is neither generated nor copied twice), earlier ones
/// copy them.
std::vector<reference_result> expected_all(const workload& wl,
                                           std::vector<std::vector<std::uint32_t>> initial);

} // namespace vgpu::host
