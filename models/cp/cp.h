// Command processor: launch registers per queue, CTA dispatch with per-SM slot accounting,
// completion and fault records, level interrupt. See models/cp/README.md, docs/registers.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/cp/cp_config.h"
#include "models/cp/cp_regs.h"
#include "models/cp/cta_launch.h"
#include "models/sm/core/cta_slots.h"
#include "tlm_bus/event_port.h"
#include "tlm_bus/initiator_port.h"
#include "tlm_bus/reg_bank.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace vgpu::cp {

/// The command processor: host registers, CTA dispatch and completion, interrupt.
class cp : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<cp> mmio; ///< register window (offsets relative to it)
    /// dispatch[i] goes to global SM i: a cta_launch written to address 0.
    std::vector<std::unique_ptr<tlm_bus::initiator_port>> dispatch;
    /// cta_done records written by the SMs (any number of bindings, any address).
    tlm_utils::multi_passthrough_target_socket<cp> cta_done;
    sc_core::sc_out<bool> irq;  ///< level: IRQ_STATUS & IRQ_ENABLE != 0; driven by drive_irq()
    tlm_bus::event_port events; ///< CE and RM events (tlm_bus/event_port.h; optional)

    /// `num_sms` SMs, each holding up to `cta_slots_per_sm` CTAs and `warp_slots_per_sm` warps.
    /// No limit by threads, registers or shared memory.
    cp(const sc_core::sc_module_name& name, const cp_config& cfg, const clock_params& clk,
       unsigned num_sms, unsigned cta_slots_per_sm, unsigned warp_slots_per_sm);
    /// `num_sms` SMs, each giving resident CTAs `sm` (occupancy, models/sm/core/cta_slots.h);
    /// a launch with REGS 0 takes `regs_per_thread` registers per thread.
    cp(const sc_core::sc_module_name& name, const cp_config& cfg, const clock_params& clk,
       unsigned num_sms, const sm::sm_resources& sm, unsigned regs_per_thread);

    const tlm_bus::reg_bank& regs() const { return m_regs; }      ///< the register file
    std::uint64_t launches() const { return m_launches.value(); } ///< accepted LAUNCH writes
    std::uint64_t ctas_dispatched() const { return m_ctas_dispatched.value(); } ///< CTAs sent
    std::uint64_t ctas_done() const { return m_ctas_done.value(); } ///< CTAs finished ok
    std::uint64_t faults() const { return m_faults.value(); }       ///< fault records received
    std::uint64_t bad_done_records() const { return m_bad_done.value(); } ///< refused records
    /// Work the memory system does when a kernel's last CTA has ended (the LLC switcher drops
    /// private copies); the kernel completes (status, interrupt) after the time it returns.
    void on_kernel_end(std::function<sc_core::sc_time()> work)
    {
        m_kernel_end_work = std::move(work);
    }
    /// TLB shootdown: called on a TLB_INVALIDATE write with the range of TLB_INV_VA and
    /// TLB_INV_BYTES (bytes 0: every page); the platform connects it to every TLB.
    std::function<void(std::uint64_t va, std::uint64_t bytes)> tlb_invalidate;
    /// L1 invalidation by range: `f` is called, after the subscribers before it, on every
    /// L1_INVALIDATE write with the physical range of L1_INV_PA and L1_INV_BYTES; the platform
    /// subscribes every SM's L1 (and the LLC slices' copies of lines homed elsewhere).
    void on_l1_invalidate(std::function<void(std::uint64_t pa, std::uint64_t bytes)> f)
    {
        m_l1_invalidate.push_back(std::move(f));
    }
    /// Registers `<path>.queue<q>.busy` (a kernel runs on queue q) with the waveform.
    void trace(sc_core::sc_trace_file* tf) const override;

private:
    /// A CTA in flight, as (sm, cta_x, cta_y, cta_z).
    using cta_key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
    struct queue_state {
        bool busy = false;             ///< a kernel is running (LAUNCH refused)
        bool fault = false;            ///< stop dispatching, finish with STATUS error
        cta_launch launch{};           ///< snapshot of the registers at LAUNCH
        std::uint32_t sm_first = 0;    ///< SM_FIRST at LAUNCH
        std::uint32_t sm_count = 0;    ///< SM_COUNT at LAUNCH
        unsigned warps_per_cta = 0;    ///< warp slots one CTA needs
        sm::occupancy_result occ;      ///< resident CTAs per SM and what one CTA is allocated
        unsigned running = 0;          ///< CTAs reserved or resident, not yet processed as ended
        std::set<cta_key> outstanding; ///< CTAs dispatched and not yet reported
        sc_core::sc_time launch_at;    ///< time of the LAUNCH write
        sc_core::sc_event launch_ev;   ///< starts the queue's dispatch thread
        sc_core::sc_event ended_ev;    ///< a CTA of the queue ended
    };
    struct sm_state {
        unsigned ctas = 0;              ///< resident (or reserved) CTAs of all queues
        unsigned warps = 0;             ///< warp slots they take
        std::uint64_t registers = 0;    ///< registers allocated to them
        std::uint64_t shared = 0;       ///< shared memory allocated to them
        std::vector<unsigned> of_queue; ///< of which CTAs of queue q
        sc_core::sc_time ready;         ///< earliest time of the next CTA launch to this SM
    };
    struct done_entry {
        sc_core::sc_time at;      ///< when the record takes effect
        ::vgpu::cp::cta_done rec; ///< the record
    };

    struct irq_entry {
        sc_core::sc_time at; ///< when the bits are set
        std::uint32_t bits;  ///< IRQ_STATUS bits to set
    };

    void define_registers();
    bool launch(unsigned q, const sc_core::sc_time& delay);
    std::string check_launch(const cta_launch& l, std::uint32_t first, std::uint32_t count) const;
    void run_queue(unsigned q);
    void dispatch_ctas(unsigned q);
    void finish(unsigned q);
    void release(unsigned sm, unsigned q);
    /// A CTA of queue q fits SM state `st` (occupancy and what other queues hold there).
    bool fits(const sm_state& st, unsigned q) const;
    void record_error(unsigned q, error_cause cause, std::uint32_t sm, std::uint32_t warp,
                      std::uint32_t pc, std::uint64_t vaddr, const char* message);
    void set_status(unsigned q, queue_status s);
    void raise_irq_status(unsigned q, const sc_core::sc_time& delay);
    void process_done();
    void drive_irq();
    sc_core::sc_time cycles(std::uint64_t n) const;
    /// Hands a CE or RM event at simulated time `at` to the shader-trace unit, if any.
    void post_event(tlm_bus::event_source k, tlm_bus::event_kind e, std::uint32_t arg,
                    const sc_core::sc_time& at);

    void mmio_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned mmio_transport_dbg(tlm::tlm_generic_payload& gp);
    void done_b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned done_transport_dbg(int id, tlm::tlm_generic_payload& gp);

    const cp_config m_cfg;
    const clock_params m_clk;
    const unsigned m_num_sms;
    const sm::sm_resources m_res;     ///< what each SM gives resident CTAs
    const unsigned m_regs_per_thread; ///< registers per thread of a launch with REGS 0
    tlm_bus::reg_bank m_regs;
    std::vector<std::unique_ptr<queue_state>> m_q;
    std::vector<sm_state> m_sm;
    std::vector<done_entry> m_pending;    ///< cta_done records by time, not yet processed
    std::vector<irq_entry> m_irq_pending; ///< IRQ_STATUS bits raised at an LT offset, by time
    std::function<sc_core::sc_time()> m_kernel_end_work; ///< see on_kernel_end()
    /// see on_l1_invalidate()
    std::vector<std::function<void(std::uint64_t, std::uint64_t)>> m_l1_invalidate;
    std::uint32_t m_launch_seq = 0;
    sc_core::sc_event m_done_ev, m_slot_freed, m_irq_ev;
    logger m_log;
    stats::group m_stats;
    stats::counter m_launches, m_bad_launches, m_refused_launches, m_ctas_dispatched, m_ctas_done,
        m_faults, m_dispatch_stalls, m_bad_done, m_tlb_invalidations, m_l1_invalidations;
    stats::formula m_mmio_errors;
    std::vector<std::unique_ptr<stats::average>> m_kernel_time;
};

} // namespace vgpu::cp
