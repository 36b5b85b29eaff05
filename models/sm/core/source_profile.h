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
/// per-PC counters (shared by every SM: the simulation runs on one host thread).
class source_profile {
public:
    /// Profiles the program at va of `instructions` instructions.
    void add_program(std::uint64_t va, std::size_t instructions);
    /// The counters of the program at va (indexed by PC), or nullptr when it is not profiled.
    /// The pointer stays valid (programs are only added before the run).
    pc_counters* find(std::uint64_t va);
    /// The counters of the program at va, or nullptr.
    const std::vector<pc_counters>* counters(std::uint64_t va) const;
    /// True when no program is profiled.
    bool empty() const { return m_programs.empty(); }

private:
    std::map<std::uint64_t, std::vector<pc_counters>> m_programs;
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
