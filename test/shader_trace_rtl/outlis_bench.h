// The equivalence bench of the OUTLis buffer: the verilated RTL and the core (slot_buffer)
// driven by the same constrained-random stimulus from a seed and compared every cycle; the
// first mismatch is reported with its cycle, the seed and both states, and the run is replayed
// into a VCD of its last cycles. See models/shader_trace/rtl/README.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace vgpu::shader_trace::rtl_test {

struct bench_options {
    std::uint32_t seed = 1;
    std::uint64_t cycles = 100000; ///< cycles compared (over several runs, a reset each)
    bool broken = false;           ///< the test-only model verilated with VGPU_RTL_BREAK_ORDER
    /// Write the RTL's code coverage (verilated with VGPU_RTL_COVERAGE) here at the end.
    std::string code_coverage;
    bool with_rtl = true; ///< false: the stimulus and the core alone (host cost, scripts/bench)
    /// Stimulus aimed at the victim choice: every run under `replace` with the
    /// `lowest_priority` victim and at least 2 sources, and half the phases fill the buffer.
    bool replacements = false;
    /// A VCD of the last `vcd_window` cycles is written on a mismatch (the run replayed),
    /// and of the final window when `vcd_final` is set; into `vcd_dir`.
    std::string vcd_dir = ".";
    unsigned vcd_window = 64;
    bool vcd_final = false;
    // Replay: stop after this cycle, tracing from vcd_from into vcd_path.
    std::uint64_t stop_after = ~std::uint64_t{0};
    std::uint64_t vcd_from = ~std::uint64_t{0};
    std::string vcd_path;
};

struct bench_result {
    bool ok = true;
    std::uint64_t cycles = 0;                 ///< cycles compared
    std::uint64_t mismatch = 0;               ///< !ok: the cycle of the first mismatch
    std::string report;                       ///< !ok: seed, cycle, the cycle's inputs, both states
    std::string vcd;                          ///< the VCD written, if any
    std::uint64_t evaluated = 0, skipped = 0; ///< RTL cycles evaluated; idle cycles skipped
    std::map<std::string, std::uint64_t> cover; ///< events the stimulus reached, by name
};

/// Runs the bench (both models are verilated at 16 slots and 82 sources).
bench_result run_bench(const bench_options& opts);

} // namespace vgpu::shader_trace::rtl_test
