// The GPU-wide figures of the SMs. See docs/outputs.md.
#include "platforms/gpu_figures.h"

namespace vgpu::platforms {

gpu_figures::gpu_figures(stats::group& g, const std::vector<std::unique_ptr<module_unit>>& modules,
                         const host::driver& host)
    : instructions(g, "instructions", "count", "warp-instructions of all SMs",
                   [this] { return sum_over_sms(m_modules, &sm::sm::instructions); }),
      mem_requests(g, "mem_requests", "count", "line requests of all SMs",
                   [this] { return sum_over_sms(m_modules, &sm::sm::mem_requests); }),
      lsu_budget_waits(g, "lsu_budget_waits", "count",
                       "line requests of all SMs that waited for an LSU thread because "
                       "platform.max_host_threads was spent (timing then differs from the model)",
                       [this] { return sum_over_sms(m_modules, &sm::sm::lsu_budget_waits); }),
      line_limit_waits(g, "line_limit_waits", "count",
                       "line requests of all SMs that waited in the LSU because "
                       "sm.max_line_requests were in flight",
                       [this] { return sum_over_sms(m_modules, &sm::sm::line_limit_waits); }),
      kernel_time(g, "kernel_time", "ns",
                  "sum of the phase windows (first LAUNCH to last interrupt of each phase; "
                  "kernels side by side count once)",
                  [this] {
                      std::uint64_t ps = 0;
                      for (const auto& ph : m_host.phases())
                          if (ph.ended)
                              ps += (ph.end - ph.start).value();
                      return static_cast<double>(ps) / 1000.0;
                  }),
      active(g, "active_cycles", "cycles", "SM cycles with a resident CTA, all SMs",
             [this] { return sum_over_sms(m_modules, &sm::sm::active_cycles); }),
      issue_share(
          g, "issue_share", "ratio",
          "share of active SM cycles that issued an instruction or had a ready warp "
          "whose functional unit was busy",
          [this] { return share(&sm::sm::issue_cycles) + share(&sm::sm::stall_structural); }),
      memory_share(g, "memory_stall_share", "ratio",
                   "share of active SM cycles with no warp ready, mostly waiting for memory",
                   [this] { return share(&sm::sm::stall_memory); }),
      alu_share(g, "alu_stall_share", "ratio",
                "share of active SM cycles with no warp ready, mostly waiting for ALU results",
                [this] { return share(&sm::sm::stall_scoreboard); }),
      barrier_share(g, "barrier_stall_share", "ratio",
                    "share of active SM cycles with no warp ready, mostly waiting at barriers",
                    [this] { return share(&sm::sm::stall_barrier); }),
      m_modules(modules), m_host(host)
{
}

double gpu_figures::share(std::uint64_t (sm::sm::*stat)() const) const
{
    const double active_cycles = sum_over_sms(m_modules, &sm::sm::active_cycles);
    return active_cycles > 0 ? sum_over_sms(m_modules, stat) / active_cycles : 0.0;
}

} // namespace vgpu::platforms
