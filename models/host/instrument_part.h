// Seed 002's driver part: an instrumented kernel's profiling launch, the sizing and mapping of
// its per-type trace buffers, its traced launch and the merged trace. See models/host/README.md.
#pragma once

#include "models/host/driver_part.h"
#include "models/shader_trace/core/typed_buffers.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace vgpu::host {

/// Before a phase with an instrumented kernel (alone in its phase): saves its buffers, runs the
/// profiling program, sizes and maps the trace buffers, restores the buffers and has the phase
/// launch the traced program; after the phase: reads the buffers back and merges them into
/// OUTDIR/instrumented_trace.csv. The firmware host calls the steps itself (save, size,
/// restore, collect).
class instrument_part : public driver_part {
public:
    explicit instrument_part(part_host& host);
    bool before_phase(unsigned p, std::vector<launch_variant>& variants) override;
    bool after_phase(unsigned p) override;
    void files(output_files& out) const override;

    /// Before the profiling launch of kernel ki: saves the buffers it uses (parameters and
    /// CBVs) and zeroes its block counters.
    bool save(std::size_t ki);
    /// After the profiling launch: reads the counters and sizes each traced type's buffer
    /// (trace_bytes); false, reported, when one needs more than its window.
    bool size(std::size_t ki);
    /// Before the traced launch: writes back what save() saved.
    bool restore();
    /// After the traced launch: reads the buffers back, reports refused records, merges them.
    bool collect(std::size_t ki);
    /// The trace buffer bytes of type t the profiling run computed.
    std::uint64_t trace_bytes(unsigned t) const { return m_bytes[t]; }

private:
    /// Saves, profiles, sizes and maps kernel ki's buffers; fills v with the traced launch.
    bool profile(unsigned p, std::size_t ki, launch_variant& v);

    part_host& m_host;
    std::array<std::uint64_t, shader_trace::record_types> m_bytes{}; ///< see trace_bytes()
    /// Per type: records written, refused, buffer bytes sized (statistics).
    std::array<std::uint64_t, shader_trace::record_types> m_records{}, m_refused{}, m_sized{};
    std::vector<std::unique_ptr<stats::formula>> m_stats;
    /// The instrumented kernel's buffers, saved around its profiling launch.
    std::vector<std::pair<std::size_t, std::vector<std::uint8_t>>> m_saved;
    std::string m_csv; ///< the merged trace (docs/trace-format.md, "instrumented_trace.csv")
};

} // namespace vgpu::host
