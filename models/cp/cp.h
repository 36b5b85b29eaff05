// Command processor: launch registers per queue, CTA dispatch with per-SM slot accounting,
// completion and fault records, level interrupt. See models/cp/README.md, docs/registers.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/timing.h"
#include "models/cp/cp_config.h"
#include "models/cp/cta_launch.h"
#include "models/shader_trace/trace_port.h"
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

/// Register offsets of the CP window (docs/registers.md). Queue q's block starts at
/// q * QUEUE_STRIDE; the global block at GLOBAL.
namespace reg {
inline constexpr std::uint64_t QUEUE_STRIDE = 0x100;   ///< bytes between queue blocks
inline constexpr std::uint64_t PROG_ADDR = 0x00;       ///< RW virtual address of the program
inline constexpr std::uint64_t PROG_BYTES = 0x04;      ///< RW program size (multiple of 16)
inline constexpr std::uint64_t GRID_X = 0x08;          ///< RW CTAs in x
inline constexpr std::uint64_t GRID_Y = 0x0c;          ///< RW CTAs in y
inline constexpr std::uint64_t BLOCK_X = 0x10;         ///< RW threads per CTA in x
inline constexpr std::uint64_t BLOCK_Y = 0x14;         ///< RW threads per CTA in y
inline constexpr std::uint64_t SM_FIRST = 0x18;        ///< RW first SM of the queue's SM set
inline constexpr std::uint64_t SM_COUNT = 0x1c;        ///< RW SMs in the queue's SM set
inline constexpr std::uint64_t NPARAMS = 0x20;         ///< RW valid PARAMn registers (<= 16)
inline constexpr std::uint64_t LAUNCH = 0x24;          ///< WO bit 0 = 1 launches the kernel
inline constexpr std::uint64_t STATUS = 0x28;          ///< RO queue_status
inline constexpr std::uint64_t CTAS_DONE = 0x2c;       ///< RO CTAs of the kernel finished ok
inline constexpr std::uint64_t ERROR_SM = 0x30;        ///< RO faulting SM
inline constexpr std::uint64_t ERROR_WARP = 0x34;      ///< RO faulting warp slot
inline constexpr std::uint64_t ERROR_PC = 0x38;        ///< RO faulting PC
inline constexpr std::uint64_t ERROR_VADDR_LO = 0x3c;  ///< RO faulting address, bits 0..31
inline constexpr std::uint64_t ERROR_VADDR_HI = 0x40;  ///< RO faulting address, bits 32..63
inline constexpr std::uint64_t KERNEL_SEQ = 0x44;      ///< RO kernel_seq of the latest launch
inline constexpr std::uint64_t ERROR_CAUSE = 0x48;     ///< RO error_cause of STATUS error
inline constexpr std::uint64_t CTAS_DISPATCHED = 0x4c; ///< RO CTAs of the kernel dispatched
inline constexpr std::uint64_t PARAM0 = 0x60;          ///< RW PARAM0..PARAM15 at PARAM0 + 4 * i
inline constexpr std::uint64_t ERROR_MSG = 0xa0;       ///< RO 96-byte NUL-terminated message
inline constexpr unsigned ERROR_MSG_BYTES = 96;        ///< size of the ERROR_MSG window

inline constexpr std::uint64_t GLOBAL = 0x1000;         ///< start of the global block
inline constexpr std::uint64_t IRQ_STATUS = 0x1000;     ///< W1C bit q: queue q finished or failed
inline constexpr std::uint64_t IRQ_ENABLE = 0x1004;     ///< RW bit q: queue q drives irq
inline constexpr std::uint64_t PTBR_LO = 0x1008;        ///< RW page-table base, bits 0..31
inline constexpr std::uint64_t PTBR_HI = 0x100c;        ///< RW page-table base, bits 32..63
inline constexpr std::uint64_t NUM_SMS = 0x1010;        ///< RO SMs the CP dispatches to
inline constexpr std::uint64_t LAUNCH_SEQ = 0x1014;     ///< RO launches so far (latest kernel_seq)
inline constexpr std::uint64_t VERSION = 0x1018;        ///< RO register-map version
inline constexpr std::uint64_t NUM_QUEUES = 0x101c;     ///< RO queues (cp.queues)
inline constexpr std::uint64_t TLB_INV_VA_LO = 0x1020;  ///< RW first VA to invalidate, bits 0..31
inline constexpr std::uint64_t TLB_INV_VA_HI = 0x1024;  ///< RW first VA, bits 32..63
inline constexpr std::uint64_t TLB_INV_BYTES = 0x1028;  ///< RW bytes from it (0: every page)
inline constexpr std::uint64_t TLB_INVALIDATE = 0x102c; ///< WO bit 0 = 1: invalidate the TLBs

inline constexpr std::uint64_t WINDOW_BYTES = 0x2000;      ///< size to map for the CP window
inline constexpr std::uint32_t VERSION_VALUE = 0x00010000; ///< 1.0

/// Offset of queue register `off` of queue `q`.
constexpr std::uint64_t queue(unsigned q, std::uint64_t off)
{
    return q * QUEUE_STRIDE + off;
}
} // namespace reg

/// Value of a queue's STATUS register.
enum class queue_status : std::uint32_t {
    idle = 0,    ///< never launched
    running = 1, ///< launched, CTAs dispatched or running
    done = 2,    ///< every CTA finished ok
    error = 3,   ///< bad launch or a CTA fault (ERROR_* registers)
};

/// Value of a queue's ERROR_CAUSE register.
enum class error_cause : std::uint32_t {
    none = 0,       ///< no error
    bad_launch = 1, ///< the launch registers were invalid (ERROR_MSG says which)
    cta_fault = 2,  ///< an SM reported a fault (ERROR_SM/WARP/PC/VADDR/MSG)
    dispatch = 3,   ///< an SM answered a CTA launch with an error response
};

/// The command processor: host registers, CTA dispatch and completion, interrupt.
class cp : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<cp> mmio; ///< register window (offsets relative to it)
    /// dispatch[i] goes to global SM i: a cta_launch written to address 0.
    std::vector<std::unique_ptr<tlm_bus::initiator_port>> dispatch;
    /// cta_done records written by the SMs (any number of bindings, any address).
    tlm_utils::multi_passthrough_target_socket<cp> cta_done;
    sc_core::sc_out<bool> irq; ///< level: IRQ_STATUS & IRQ_ENABLE != 0; driven by drive_irq()
    shader_trace::trace_port trace_events; ///< CE and RM events to the shader-trace unit (optional)

    /// `num_sms` SMs, each holding up to `cta_slots_per_sm` CTAs and `warp_slots_per_sm` warps.
    cp(const sc_core::sc_module_name& name, const cp_config& cfg, const clock_params& clk,
       unsigned num_sms, unsigned cta_slots_per_sm, unsigned warp_slots_per_sm);

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
    /// Registers `<path>.queue<q>.busy` (a kernel runs on queue q) with the waveform.
    void trace(sc_core::sc_trace_file* tf) const override;

private:
    /// A CTA in flight, as (sm, cta_x, cta_y).
    using cta_key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
    struct queue_state {
        bool busy = false;             ///< a kernel is running (LAUNCH refused)
        bool fault = false;            ///< stop dispatching, finish with STATUS error
        cta_launch launch{};           ///< snapshot of the registers at LAUNCH
        std::uint32_t sm_first = 0;    ///< SM_FIRST at LAUNCH
        std::uint32_t sm_count = 0;    ///< SM_COUNT at LAUNCH
        unsigned warps_per_cta = 0;    ///< warp slots one CTA needs
        unsigned running = 0;          ///< CTAs reserved or resident, not yet processed as ended
        std::set<cta_key> outstanding; ///< CTAs dispatched and not yet reported
        sc_core::sc_time launch_at;    ///< time of the LAUNCH write
        sc_core::sc_event launch_ev;   ///< starts the queue's dispatch thread
        sc_core::sc_event ended_ev;    ///< a CTA of the queue ended
    };
    struct sm_state {
        unsigned ctas = 0;      ///< resident (or reserved) CTAs of all queues
        unsigned warps = 0;     ///< warp slots they take
        sc_core::sc_time ready; ///< earliest time of the next CTA launch to this SM
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
    void record_error(unsigned q, error_cause cause, std::uint32_t sm, std::uint32_t warp,
                      std::uint32_t pc, std::uint64_t vaddr, const char* message);
    void set_status(unsigned q, queue_status s);
    void raise_irq_status(unsigned q, const sc_core::sc_time& delay);
    void process_done();
    void drive_irq();
    sc_core::sc_time cycles(std::uint64_t n) const;
    /// Hands a CE or RM event at simulated time `at` to the shader-trace unit, if any.
    void trace_event(shader_trace::source_kind k, shader_trace::event e, std::uint32_t arg,
                     const sc_core::sc_time& at);

    void mmio_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned mmio_transport_dbg(tlm::tlm_generic_payload& gp);
    void done_b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned done_transport_dbg(int id, tlm::tlm_generic_payload& gp);

    const cp_config m_cfg;
    const clock_params m_clk;
    const unsigned m_num_sms, m_cta_slots, m_warp_slots;
    tlm_bus::reg_bank m_regs;
    std::vector<std::unique_ptr<queue_state>> m_q;
    std::vector<sm_state> m_sm;
    std::vector<done_entry> m_pending;    ///< cta_done records by time, not yet processed
    std::vector<irq_entry> m_irq_pending; ///< IRQ_STATUS bits raised at an LT offset, by time
    std::function<sc_core::sc_time()> m_kernel_end_work; ///< see on_kernel_end()
    std::uint32_t m_launch_seq = 0;
    sc_core::sc_event m_done_ev, m_slot_freed, m_irq_ev;
    logger m_log;
    stats::group m_stats;
    stats::counter m_launches, m_bad_launches, m_refused_launches, m_ctas_dispatched, m_ctas_done,
        m_faults, m_dispatch_stalls, m_bad_done, m_tlb_invalidations;
    stats::formula m_mmio_errors;
    std::vector<std::unique_ptr<stats::average>> m_kernel_time;
};

} // namespace vgpu::cp
