// Each SM's CDL access controller and scheduling/execution core, a unit behind the SM's unit
// seam (models/sm/sm_unit.h). See models/cdl/README.md.
#pragma once

#include "models/cdl/cbv_table.h"
#include "models/cdl/cdl_config.h"
#include "models/cdl/core/cdl_core.h"
#include "models/common/stats.h"
#include "models/sm/sm_unit.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace vgpu::cdl {

/// The CDL access controller of one SM: checks each CDL against the CBV table, hands the
/// per-lane form to the SM's LSU as a load (kind constant) and runs the bulk form's line reads
/// itself (cdl.max_outstanding in flight, retired in address order, claim 8). Stats under
/// `<sm>_cdl.controller.` and `<sm>_cdl.core.`.
class cdl_unit : public sm::sm_unit {
public:
    cdl_unit(sm::unit_host& host, const cbv_table& table, const cdl_config& cfg);
    ~cdl_unit() override;
    /// What sm::attach_unit takes: a CDL unit with this table and configuration.
    static sm::unit_factory factory(const cbv_table& table, const cdl_config& cfg);

    /// The access controller receives a CDL the warp issued.
    void issue(unsigned warp, const sm::step_result& r) override;
    void read_made(const sm::line_read& rd, const sm::line_result& res) override;
    void read_arrived(const sm::line_read& rd, const sm::line_result& res,
                      std::uint64_t now) override;

private:
    /// A bulk CDL in flight (the scheduling/execution core's state for one instruction).
    struct bulk_op {
        unsigned warp = 0;                 ///< warp slot
        std::uint32_t pc = 0;              ///< PC of the CDL
        std::uint64_t issue = 0;           ///< cycle its first read may start
        std::vector<line_read> reads;      ///< in address order
        std::vector<std::uint8_t> data;    ///< read i at i * line bytes
        std::vector<std::uint64_t> done;   ///< read i's completion cycle (0: not yet)
        std::size_t next = 0, retired = 0; ///< next read to issue, reads retired
        unsigned in_flight = 0;            ///< reads issued, not completed
        std::optional<bulk_loader> loader;
        bool failed = false;
        std::uint64_t fail_vaddr = 0;
        std::uint64_t end = 0; ///< cycle of the last register write
    };
    struct counters;

    /// Bulk op id: issues its next reads while fewer than cdl.max_outstanding are in flight
    /// (fast mode: all of them, timed; accurate mode: by LSU threads).
    void issue_reads(unsigned id);
    /// Read i of op id through the SM (fast mode: done[i] is set before this returns).
    void read(unsigned id, std::size_t i, std::uint64_t at);
    /// Retires the completed reads in address order (claim 8), writing registers (accurate
    /// mode: at `now` at the earliest); ends the op when every read retired.
    void retire(unsigned id, std::uint64_t now);

    sm::unit_host& m_host;
    const sm::unit_params& m_sm;
    const cbv_table& m_table;
    const cdl_config m_cfg;
    std::vector<std::unique_ptr<bulk_op>> m_ops; ///< bulk CDLs in flight (nullptr: free)
    stats::group m_ctrl_stats, m_core_stats;
    std::unique_ptr<counters> m_count;
};

} // namespace vgpu::cdl
