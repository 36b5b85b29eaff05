// The shader-trace unit (seed 000): events from the CE, the RM and every SM's ISU become token
// groups in a K-slot buffer ordered by OUTLis; a write engine writes the OUTLis head into the
// trace region as ordinary memory writes. See models/shader_trace/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/shader_trace/core/image.h"
#include "models/shader_trace/core/packer.h"
#include "models/shader_trace/core/slot_buffer.h"
#include "models/shader_trace/shader_trace_config.h"
#include "models/shader_trace/trace_regs.h"
#include "tlm_bus/event_port.h"
#include "tlm_bus/initiator_port.h"
#include "tlm_bus/reg_bank.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace vgpu::shader_trace {

/// An event as the unit packs it: a source's event (tlm_bus::gpu_event) with its trace code.
struct trace_event {
    std::uint64_t cycle = 0; ///< core cycle
    unsigned source = 0;     ///< source id
    event what = event::user;
    unsigned warp = 0;     ///< ISU: warp slot
    std::uint32_t arg = 0; ///< kernel sequence number, CTA index or TRACE code
};

/// The trace code (docs/trace-format.md) of an event the GPU posts.
event trace_code(tlm_bus::event_kind k);

/// The GPU's shader-trace unit: one per GPU; sources = CE, RM and one ISU per SM.
class trace_unit : public sc_core::sc_module, public tlm_bus::event_if {
public:
    sc_core::sc_export<tlm_bus::event_if> events;     ///< bind every source's tlm_bus::event_port
    tlm_bus::initiator_port mem;                      ///< group writes (physical)
    tlm_utils::simple_target_socket<trace_unit> mmio; ///< register window
    sc_core::sc_out<bool> irq;                        ///< level: STATUS.WMARK & IRQ_ENABLE

    /// `sms`: SMs of the GPU (ISU sources 2 .. 2 + sms - 1).
    trace_unit(const sc_core::sc_module_name& name, const shader_trace_config& cfg,
               const clock_params& clk, unsigned sms);

    // tlm_bus::event_if
    unsigned source_id(tlm_bus::event_source kind, unsigned sm = 0) const override;
    void post(const tlm_bus::gpu_event& e) override;
    bool blocked(unsigned source) const override { return m_held_count[source] != 0; }
    void flush_at(std::uint64_t cycle) override;
    const sc_core::sc_event& unblocked() const override { return m_unblocked; }

    unsigned sources() const { return static_cast<unsigned>(m_kind.size()); } ///< source ids
    /// Tokens of `source` lost (replaced, dropped by claim 5, or refused by a full region).
    std::uint64_t dropped_tokens(unsigned source) const { return m_dropped[source]; }
    std::uint64_t events_recorded() const { return m_events.value(); }    ///< events packed
    std::uint64_t tokens_packed() const { return m_tokens.value(); }      ///< non-PAD tokens
    std::uint64_t groups_written() const { return m_written.value(); }    ///< writes completed
    std::uint64_t stall_cycles() const { return m_stall_cycles.value(); } ///< held group-cycles
    bool idle() const; ///< nothing packed, buffered, held or in flight
    const tlm_bus::reg_bank& regs() const { return m_regs; } ///< the register file

private:
    /// A queued event, idle check or flush, ordered by (cycle, kind, source, posting order).
    struct queued {
        std::uint64_t cycle = 0;
        std::uint8_t kind = 0; ///< 0 event, 1 idle check of `source`, 2 flush all
        trace_event e;
        std::uint64_t seq = 0;
        bool operator>(const queued& o) const;
    };
    /// A group waiting for a slot (stall policy).
    struct held_group {
        unsigned source = 0;
        group g;
        std::uint64_t since = 0; ///< cycle it started waiting
    };
    void define_registers();
    void pack(); ///< SC_METHOD: the events of past cycles, in order, into the buffer
    void write_thread(unsigned engine); ///< one group write at a time (writes_in_flight of them)
    void process(const queued& q);
    void flush_source(unsigned source, std::uint64_t cycle);
    void store(unsigned source, group g, std::uint64_t cycle);
    void store_held(std::uint64_t cycle); ///< held groups, oldest first, while slots are free
    void lost(unsigned source);    ///< a group of `source` taken for writing did not reach memory
    void arm(std::uint64_t cycle); ///< wake pack_thread at the start of `cycle`
    void refresh_regs();           ///< the status registers from the model's state
    void update_irq();             ///< SC_METHOD: refresh_regs() and the irq line
    static std::uint64_t tokens_in(const group& g); ///< non-PAD tokens

public:
    /// Largest TRACE_SIZE the unit accepts (its wrap-mode bookkeeping is sized by it).
    static constexpr std::uint64_t max_region_bytes = std::uint64_t{256} << 20;

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    std::uint64_t now_cycle() const;

    const shader_trace_config m_cfg;
    const clock_params m_clk;
    const unsigned m_g;
    std::vector<source_kind> m_kind;   ///< per source id
    std::vector<std::uint32_t> m_sm;   ///< per source id (ISU)
    std::vector<bool> m_recorded;      ///< per source id: its kind is in `sources`
    std::vector<packer> m_packers;     ///< per source id
    std::vector<std::uint64_t> m_last; ///< per source id: cycle of its last event
    std::vector<std::uint64_t> m_dropped;
    std::vector<unsigned> m_held_count;     ///< per source: its groups in m_held
    std::vector<bool> m_check_pending;      ///< per source: an idle check is queued
    std::unique_ptr<group_buffer> m_buffer; ///< the core or the RTL (shader_trace.impl)
    std::deque<held_group> m_held;          ///< stall: waiting for a slot, in arrival order
    std::priority_queue<queued, std::vector<queued>, std::greater<>> m_queue;
    std::uint64_t m_seq = 0, m_done_cycle = 0;
    std::uint64_t m_wptr = 0;       ///< bytes written into the region (not wrapped)
    std::uint64_t m_next_write = 0; ///< earliest cycle of the next write (throttle)
    unsigned m_issued = 0;          ///< groups taken by a write engine whose write is not done
    /// Wrap mode: per group place of the region, its source << 16 | its tokens (so what a
    /// wrapped write overwrites is counted as that source's loss); set up by ENABLE.
    std::vector<std::uint32_t> m_owner;
    /// One write buffer per write engine (members, so that nothing is left on a thread's heap
    /// when the simulation ends with the engines waiting).
    std::vector<std::vector<std::uint8_t>> m_engine_data;
    sc_core::sc_event m_wake, m_have_head, m_unblocked, m_irq_ev;
    tlm_bus::reg_bank m_regs;
    logger m_log;
    stats::group m_stats;
    stats::counter m_events, m_tokens, m_late, m_stored, m_replaced, m_claim5, m_written, m_bytes,
        m_region_drops, m_overwritten, m_write_errors, m_stall_cycles, m_flushes, m_idle_flushes;
    stats::formula m_dropped_total, m_sync_tokens, m_rtl_cycles;
};

} // namespace vgpu::shader_trace
