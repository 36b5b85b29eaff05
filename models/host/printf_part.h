// Kernel printf's driver part: the printf FIFO of each kernel translated from CUDA or PTX that
// calls printf (a buffer `<kernel>.printf` of host.printf_buffer_bytes after a 16-byte header,
// passed as a hidden parameter), read after each phase and formatted into OUTDIR/console.txt.
// See docs/cuda.md, "Kernel printf".
#pragma once

#include "models/host/driver_part.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vgpu::host {

/// Before the first launch: writes each FIFO's header (cursor 0, nothing dropped, capacity).
/// After each phase: reads the records of the phase's printf kernels in the order they were
/// reserved, formats them (ptx::format_printf_record), counts the dropped ones, and empties
/// the FIFO for the kernel's next launch.
class printf_part : public driver_part {
public:
    explicit printf_part(part_host& host);
    bool set_up() override;
    bool after_phase(unsigned p) override;
    void files(output_files& out) const override;
    std::uint64_t records() const { return m_records; } ///< records formatted
    std::uint64_t dropped() const { return m_dropped; } ///< records the full FIFOs dropped
    /// One line per kernel whose FIFO dropped records (the run summary's warnings).
    const std::vector<std::string>& warnings() const { return m_warnings; }

private:
    /// Writes kernel ki's FIFO header and zeroes its first `used` data bytes.
    bool reset(std::size_t ki, std::uint64_t used);

    part_host& m_host;
    std::uint64_t m_records = 0, m_dropped = 0;
    std::vector<std::unique_ptr<stats::formula>> m_stats;
    std::vector<std::string> m_warnings;
    std::string m_console; ///< the formatted records, in order
};

} // namespace vgpu::host
