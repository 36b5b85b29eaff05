// Source profile: per-PC counters of the SM for kernels translated from CUDA or PTX (those with
// a PC -> CUDA line map), and their aggregation per CUDA source line (OUTDIR/source_profile.csv,
// docs/outputs.md "Source profile"). Pure C++ core of the SM model, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vgpu::sm {

/// Columns of a stall: a warp's wait reason (scoreboard, memory, barrier) or structural (ready,
/// its unit busy).
enum class stall_column : std::uint8_t { scoreboard, memory, barrier, structural };
constexpr unsigned stall_columns = 4; ///< entries of pc_counters::stall

/// What the SMs count at one PC of a profiled program.
struct pc_counters {
    std::uint64_t issued = 0;                         ///< warp-instructions issued
    std::array<std::uint64_t, stall_columns> stall{}; ///< warp stall cycles by stall_column
    std::uint64_t line_requests = 0;                  ///< global line requests (coalesced)
    std::uint64_t l1_misses = 0; ///< of those, the loads that missed in the L1 (its `misses`)
};

/// The programs to profile, by the virtual address of their first instruction, each with its
/// per-PC counters: one copy per SM, so that SMs simulated on different host threads
/// (platform.host_threads) count apart; counters() adds the copies up.
class source_profile {
public:
    /// Profiles the program at va of `instructions` instructions.
    void add_program(std::uint64_t va, std::size_t instructions);
    /// SM `copy`'s counters of the program at va (indexed by PC), or nullptr when it is not
    /// profiled; made on first use (call from one thread at a time). The pointer stays valid.
    pc_counters* find(std::uint64_t va, unsigned copy);
    /// The counters of the program at va summed over the SMs, or nullptr.
    const std::vector<pc_counters>* counters(std::uint64_t va) const;
    /// True when no program is profiled.
    bool empty() const { return m_programs.empty(); }

private:
    struct program {
        std::size_t instructions = 0;
        std::vector<std::vector<pc_counters>> copies; ///< by SM
        mutable std::vector<pc_counters> sum;         ///< counters()
    };
    std::map<std::uint64_t, program> m_programs;
};

/// One profiled kernel: its name, per-PC "FILE:LINE" ("" for a PC without a line) and counters.
struct profiled_kernel {
    std::string name;                         ///< the workload's kernel name
    const std::vector<std::string>* lines;    ///< per PC: "FILE.cu:LINE" or ""
    const std::vector<pc_counters>* counters; ///< per PC
};

/// The CSV: a header, then per kernel one row per CUDA line (file, then line, ascending) with
/// the sums of its PCs' counters, and a row with an empty file and line 0 for the PCs without
/// a line (code the translator adds) when they issued or stalled.
std::string source_profile_csv(const std::vector<profiled_kernel>& kernels);

} // namespace vgpu::sm
