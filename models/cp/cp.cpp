// Command processor: registers, CTA dispatch, completion records, interrupt.
// See models/cp/README.md and docs/registers.md.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn of the per-queue dispatch threads
#include "models/cp/cp.h"
#include "tlm_bus/byte_enables.h"

#include "models/common/run_progress.h"
#include "models/common/trace_events.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace vgpu::cp {

using tlm_bus::reg_access;
using tlm_bus::reg_write;

namespace {
std::uint64_t to_ps(const sc_core::sc_time& t)
{
    return static_cast<std::uint64_t>(std::llround(t / sc_core::sc_time(1, sc_core::SC_PS)));
}
} // namespace

cp::cp(const sc_core::sc_module_name& name, const cp_config& cfg, const clock_params& clk,
       unsigned num_sms, unsigned cta_slots_per_sm, unsigned warp_slots_per_sm)
    : cp(name, cfg, clk, num_sms,
         sm::sm_resources{warp_slots_per_sm * 32, warp_slots_per_sm, cta_slots_per_sm, 1u << 31, 1,
                          ~0u},
         0)
{
}

cp::cp(const sc_core::sc_module_name& name, const cp_config& cfg, const clock_params& clk,
       unsigned num_sms, const sm::sm_resources& sm, unsigned regs_per_thread)
    : sc_module(name), mmio("mmio"), cta_done("cta_done"), irq("irq"), events("events"), m_cfg(cfg),
      m_clk(clk), m_num_sms(num_sms), m_res(sm), m_regs_per_thread(regs_per_thread),
      m_regs(this->name()), m_sm(num_sms), m_log(this->name()), m_stats(this->name()),
      m_launches(m_stats, "launches", "count", "accepted LAUNCH writes (valid or not)"),
      m_bad_launches(m_stats, "bad_launches", "count",
                     "launches refused by validation (STATUS error, ERROR_CAUSE 1)"),
      m_refused_launches(m_stats, "refused_launches", "count",
                         "LAUNCH writes to a running queue (TLM command error)"),
      m_ctas_dispatched(m_stats, "ctas_dispatched", "count", "CTAs launched to an SM"),
      m_ctas_done(m_stats, "ctas_done", "count", "CTAs reported finished without fault"),
      m_faults(m_stats, "faults", "count", "CTAs reported ended by a fault"),
      m_dispatch_stalls(m_stats, "dispatch_stalls", "count",
                        "CTAs that waited for a free CTA or warp slot on the queue's SMs"),
      m_bad_done(m_stats, "bad_done_records", "count",
                 "cta_done records refused (unknown queue, kernel or CTA, bad size)"),
      m_tlb_invalidations(m_stats, "tlb_invalidations", "count",
                          "TLB_INVALIDATE writes (shootdowns of every TLB)"),
      m_l1_invalidations(m_stats, "l1_invalidations", "count",
                         "L1_INVALIDATE writes (a physical range dropped from every L1)"),
      m_mmio_errors(m_stats, "mmio_errors", "count",
                    "register accesses answered with an error response",
                    [this] { return static_cast<double>(m_regs.errors()); })
{
    if (num_sms == 0 || sm.cta_slots == 0 || sm.warp_slots == 0)
        throw std::invalid_argument(std::string(this->name()) +
                                    ": num_sms, cta_slots_per_sm and warp_slots_per_sm must be "
                                    "nonzero");
    if (cfg.queues == 0 || cfg.queues > 16)
        throw std::invalid_argument(std::string(this->name()) + ": cp.queues must be 1..16");

    mmio.register_b_transport(this, &cp::mmio_b_transport);
    mmio.register_transport_dbg(this, &cp::mmio_transport_dbg);
    cta_done.register_b_transport(this, &cp::done_b_transport);
    cta_done.register_transport_dbg(this, &cp::done_transport_dbg);

    for (auto& st : m_sm)
        st.of_queue.assign(cfg.queues, 0);
    for (unsigned q = 0; q < cfg.queues; ++q) {
        m_q.push_back(std::make_unique<queue_state>());
        m_kernel_time.push_back(std::make_unique<stats::average>(
            m_stats, "queue" + std::to_string(q) + ".kernel_time", "ns",
            "time from the LAUNCH write to the end of the kernel's last CTA"));
    }
    define_registers();
    for (unsigned i = 0; i < num_sms; ++i)
        dispatch.push_back(
            std::make_unique<tlm_bus::initiator_port>(("dispatch" + std::to_string(i)).c_str()));

    SC_HAS_PROCESS(cp);
    SC_METHOD(process_done);
    sensitive << m_done_ev;
    dont_initialize();
    SC_METHOD(drive_irq);
    sensitive << m_irq_ev;
    for (unsigned q = 0; q < cfg.queues; ++q)
        sc_core::sc_spawn([this, q] { run_queue(q); }, ("queue" + std::to_string(q)).c_str());
}

void cp::define_registers()
{
    m_regs.set_warning_handler([this](const std::string& m) { VGPU_WARN(m_log, "%s", m.c_str()); });
    for (unsigned q = 0; q < m_cfg.queues; ++q) {
        const std::string p = "Q" + std::to_string(q) + "_";
        auto rw = [&](const char* n, std::uint64_t off) {
            m_regs.add(p + n, reg::queue(q, off), reg_access::rw, 0, ~0u);
        };
        auto ro = [&](const std::string& n, std::uint64_t off) {
            m_regs.add(p + n, reg::queue(q, off), reg_access::ro, 0, ~0u);
        };
        rw("PROG_ADDR", reg::PROG_ADDR);
        rw("PROG_BYTES", reg::PROG_BYTES);
        rw("GRID_X", reg::GRID_X);
        rw("GRID_Y", reg::GRID_Y);
        rw("BLOCK_X", reg::BLOCK_X);
        rw("BLOCK_Y", reg::BLOCK_Y);
        rw("SM_FIRST", reg::SM_FIRST);
        rw("SM_COUNT", reg::SM_COUNT);
        rw("NPARAMS", reg::NPARAMS);
        m_regs.add(p + "GRID_Z", reg::queue(q, reg::GRID_Z), reg_access::rw, 1, ~0u);
        m_regs.add(p + "BLOCK_Z", reg::queue(q, reg::BLOCK_Z), reg_access::rw, 1, ~0u);
        rw("REGS", reg::REGS);
        rw("SHARED_BYTES", reg::SHARED_BYTES);
        m_regs.add(
            p + "LAUNCH", reg::queue(q, reg::LAUNCH), reg_access::wo, 0, 1,
            [this, q](const reg_write& w) { return (w.new_value & 1) == 0 || launch(q, w.delay); });
        ro("STATUS", reg::STATUS);
        ro("CTAS_DONE", reg::CTAS_DONE);
        ro("ERROR_SM", reg::ERROR_SM);
        ro("ERROR_WARP", reg::ERROR_WARP);
        ro("ERROR_PC", reg::ERROR_PC);
        ro("ERROR_VADDR_LO", reg::ERROR_VADDR_LO);
        ro("ERROR_VADDR_HI", reg::ERROR_VADDR_HI);
        ro("KERNEL_SEQ", reg::KERNEL_SEQ);
        ro("ERROR_CAUSE", reg::ERROR_CAUSE);
        ro("CTAS_DISPATCHED", reg::CTAS_DISPATCHED);
        for (unsigned i = 0; i < max_params; ++i)
            m_regs.add(p + "PARAM" + std::to_string(i), reg::queue(q, reg::PARAM0 + 4 * i),
                       reg_access::rw, 0, ~0u);
        for (unsigned i = 0; i < reg::ERROR_MSG_BYTES / 4; ++i)
            ro("ERROR_MSG" + std::to_string(i), reg::ERROR_MSG + 4 * i);
    }
    const std::uint32_t qmask = (1u << m_cfg.queues) - 1;
    auto irq_changed = [this](const reg_write& w) {
        m_irq_ev.notify(w.delay);
        return true;
    };
    m_regs.add("IRQ_STATUS", reg::IRQ_STATUS, reg_access::w1c, 0, qmask, irq_changed);
    m_regs.add("IRQ_ENABLE", reg::IRQ_ENABLE, reg_access::rw, 0, qmask, irq_changed);
    m_regs.add("PTBR_LO", reg::PTBR_LO, reg_access::rw, 0, ~0u);
    m_regs.add("PTBR_HI", reg::PTBR_HI, reg_access::rw, 0, ~0u);
    m_regs.add("NUM_SMS", reg::NUM_SMS, reg_access::ro, m_num_sms, ~0u);
    m_regs.add("LAUNCH_SEQ", reg::LAUNCH_SEQ, reg_access::ro, 0, ~0u);
    m_regs.add("VERSION", reg::VERSION, reg_access::ro, reg::VERSION_VALUE, ~0u);
    m_regs.add("NUM_QUEUES", reg::NUM_QUEUES, reg_access::ro, m_cfg.queues, ~0u);
    m_regs.add("TLB_INV_VA_LO", reg::TLB_INV_VA_LO, reg_access::rw, 0, ~0u);
    m_regs.add("TLB_INV_VA_HI", reg::TLB_INV_VA_HI, reg_access::rw, 0, ~0u);
    m_regs.add("TLB_INV_BYTES", reg::TLB_INV_BYTES, reg_access::rw, 0, ~0u);
    m_regs.add("TLB_INVALIDATE", reg::TLB_INVALIDATE, reg_access::wo, 0, 1,
               [this](const reg_write& w) {
                   if ((w.new_value & 1) == 0)
                       return true;
                   ++m_tlb_invalidations;
                   if (tlb_invalidate)
                       tlb_invalidate(std::uint64_t{m_regs.get(reg::TLB_INV_VA_HI)} << 32 |
                                          m_regs.get(reg::TLB_INV_VA_LO),
                                      m_regs.get(reg::TLB_INV_BYTES));
                   return true;
               });
    m_regs.add("L1_INV_PA_LO", reg::L1_INV_PA_LO, reg_access::rw, 0, ~0u);
    m_regs.add("L1_INV_PA_HI", reg::L1_INV_PA_HI, reg_access::rw, 0, ~0u);
    m_regs.add("L1_INV_BYTES", reg::L1_INV_BYTES, reg_access::rw, 0, ~0u);
    m_regs.add("L1_INVALIDATE", reg::L1_INVALIDATE, reg_access::wo, 0, 1,
               [this](const reg_write& w) {
                   if ((w.new_value & 1) == 0)
                       return true;
                   ++m_l1_invalidations;
                   const std::uint64_t pa = std::uint64_t{m_regs.get(reg::L1_INV_PA_HI)} << 32 |
                                            m_regs.get(reg::L1_INV_PA_LO);
                   for (const auto& f : m_l1_invalidate)
                       f(pa, m_regs.get(reg::L1_INV_BYTES));
                   return true;
               });
}

void cp::trace(sc_core::sc_trace_file* tf) const
{
    for (std::size_t q = 0; q < m_q.size(); ++q)
        sc_core::sc_trace(tf, m_q[q]->busy,
                          std::string(name()) + ".queue" + std::to_string(q) + ".busy");
}

sc_core::sc_time cp::cycles(std::uint64_t n) const
{
    return sc_core::sc_time(static_cast<double>(n * m_clk.core_ps), sc_core::SC_PS);
}

// ---- registers ----

void cp::mmio_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    m_regs.transport(gp, delay);
}

unsigned cp::mmio_transport_dbg(tlm::tlm_generic_payload& gp)
{
    return m_regs.transport_dbg(gp);
}

std::string cp::check_launch(const cta_launch& l, std::uint32_t first, std::uint32_t count) const
{
    if (l.grid_x == 0 || l.grid_y == 0 || l.grid_z == 0)
        return "empty grid (GRID_X " + std::to_string(l.grid_x) + ", GRID_Y " +
               std::to_string(l.grid_y) + ", GRID_Z " + std::to_string(l.grid_z) + ")";
    if (l.block_x == 0 || l.block_y == 0 || l.block_z == 0)
        return "empty block (BLOCK_X " + std::to_string(l.block_x) + ", BLOCK_Y " +
               std::to_string(l.block_y) + ", BLOCK_Z " + std::to_string(l.block_z) + ")";
    const std::uint64_t threads = std::uint64_t{l.block_x} * l.block_y * l.block_z;
    if (threads > std::uint64_t{m_res.warp_slots} * 32)
        return "block of " + std::to_string(threads) + " threads exceeds " +
               std::to_string(m_res.warp_slots) + " warp slots of 32";
    if (m_regs_per_thread != 0 && l.regs_per_thread > m_regs_per_thread)
        return "REGS " + std::to_string(l.regs_per_thread) + " > sm.regs_per_thread " +
               std::to_string(m_regs_per_thread);
    if (count == 0 || std::uint64_t{first} + count > m_num_sms)
        return "SM range [" + std::to_string(first) + ", " +
               std::to_string(std::uint64_t{first} + count) + ") empty or outside the " +
               std::to_string(m_num_sms) + " SMs";
    if (l.nparams > max_params)
        return "NPARAMS " + std::to_string(l.nparams) + " > " + std::to_string(max_params);
    if (l.prog_bytes == 0 || l.prog_bytes % 16 != 0)
        return "PROG_BYTES " + std::to_string(l.prog_bytes) + " not a nonzero multiple of 16";
    if (std::uint64_t{l.prog_addr} + l.prog_bytes > (1ull << 32))
        return "program at PROG_ADDR + PROG_BYTES runs past the 32-bit virtual address space";
    return {};
}

bool cp::launch(unsigned q, const sc_core::sc_time& delay)
{
    queue_state& qs = *m_q[q];
    if (qs.busy) {
        ++m_refused_launches;
        VGPU_WARN(m_log, "queue %u: LAUNCH while kernel %u is running (refused)", q,
                  qs.launch.kernel_seq);
        return false;
    }
    auto get = [&](std::uint64_t off) { return m_regs.get(reg::queue(q, off)); };
    cta_launch l{};
    l.queue = q;
    l.kernel_seq = ++m_launch_seq;
    l.prog_addr = get(reg::PROG_ADDR);
    l.prog_bytes = get(reg::PROG_BYTES);
    l.grid_x = get(reg::GRID_X);
    l.grid_y = get(reg::GRID_Y);
    l.block_x = get(reg::BLOCK_X);
    l.block_y = get(reg::BLOCK_Y);
    l.grid_z = get(reg::GRID_Z);
    l.block_z = get(reg::BLOCK_Z);
    l.regs_per_thread = get(reg::REGS);
    l.shared_bytes = get(reg::SHARED_BYTES);
    l.nparams = get(reg::NPARAMS);
    for (unsigned i = 0; i < std::min(l.nparams, max_params); ++i)
        l.params[i] = get(reg::PARAM0 + 4 * i);
    l.ptbr = (std::uint64_t{m_regs.get(reg::PTBR_HI)} << 32) | m_regs.get(reg::PTBR_LO);

    ++m_launches;
    run_progress::get().count(run_progress::get().launches, sc_core::sc_time_stamp().value());
    m_regs.set(reg::LAUNCH_SEQ, m_launch_seq);
    m_regs.set(reg::queue(q, reg::KERNEL_SEQ), l.kernel_seq);
    m_regs.set(reg::queue(q, reg::CTAS_DONE), 0);
    m_regs.set(reg::queue(q, reg::CTAS_DISPATCHED), 0);
    record_error(q, error_cause::none, 0, 0, 0, 0, "");
    qs.launch = l;
    qs.launch_at = sc_core::sc_time_stamp() + delay;
    qs.sm_first = get(reg::SM_FIRST);
    qs.sm_count = get(reg::SM_COUNT);
    qs.fault = false;

    std::string problem = check_launch(l, qs.sm_first, qs.sm_count);
    if (problem.empty()) {
        qs.occ =
            sm::occupancy(m_res, {l.block_x * l.block_y * l.block_z,
                                  l.regs_per_thread != 0 ? l.regs_per_thread : m_regs_per_thread,
                                  l.shared_bytes});
        if (qs.occ.ctas_per_sm == 0)
            problem = "no CTA fits an SM: " + qs.occ.why;
    }
    if (!problem.empty()) {
        ++m_bad_launches;
        VGPU_WARN(m_log, "queue %u: bad launch of kernel %u: %s", q, l.kernel_seq, problem.c_str());
        record_error(q, error_cause::bad_launch, 0, 0, 0, 0, ("bad launch: " + problem).c_str());
        set_status(q, queue_status::error);
        raise_irq_status(q, delay);
        auto& tr = trace::recorder::instance();
        if (tr.enabled())
            tr.instant(trace::kernel_process, "queue " + std::to_string(q), "bad launch {kernel}",
                       to_ps(qs.launch_at), l.kernel_seq);
        return true;
    }
    qs.warps_per_cta = qs.occ.warps_per_cta;
    qs.busy = true;
    set_status(q, queue_status::running);
    VGPU_DEBUG(m_log,
               "queue %u: launch kernel %u, grid %ux%ux%u, block %ux%ux%u, %u CTAs per SM (%s)", q,
               l.kernel_seq, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z,
               qs.occ.ctas_per_sm, qs.occ.limit.c_str());
    post_event(tlm_bus::event_source::ce, tlm_bus::event_kind::kernel_begin, l.kernel_seq,
               qs.launch_at);
    qs.launch_ev.notify(delay);
    return true;
}

void cp::post_event(tlm_bus::event_source k, tlm_bus::event_kind e, std::uint32_t arg,
                    const sc_core::sc_time& at)
{
    if (events.size() == 0)
        return;
    const unsigned src = events->source_id(k);
    if (src != tlm_bus::event_if::no_source)
        events->post({(at.value() + m_clk.core_ps - 1) / m_clk.core_ps, src, e, 0, arg});
}

void cp::set_status(unsigned q, queue_status s)
{
    m_regs.set(reg::queue(q, reg::STATUS), static_cast<std::uint32_t>(s));
}

void cp::record_error(unsigned q, error_cause cause, std::uint32_t sm, std::uint32_t warp,
                      std::uint32_t pc, std::uint64_t vaddr, const char* message)
{
    auto set = [&](std::uint64_t off, std::uint32_t v) { m_regs.set(reg::queue(q, off), v); };
    set(reg::ERROR_CAUSE, static_cast<std::uint32_t>(cause));
    set(reg::ERROR_SM, sm);
    set(reg::ERROR_WARP, warp);
    set(reg::ERROR_PC, pc);
    set(reg::ERROR_VADDR_LO, static_cast<std::uint32_t>(vaddr));
    set(reg::ERROR_VADDR_HI, static_cast<std::uint32_t>(vaddr >> 32));
    char text[reg::ERROR_MSG_BYTES] = {};
    std::strncpy(text, message, sizeof text - 1);
    for (unsigned i = 0; i < reg::ERROR_MSG_BYTES / 4; ++i) {
        std::uint32_t w;
        std::memcpy(&w, text + 4 * i, 4);
        set(reg::ERROR_MSG + 4 * i, w);
    }
}

void cp::raise_irq_status(unsigned q, const sc_core::sc_time& delay)
{
    if (delay == sc_core::SC_ZERO_TIME) {
        m_regs.set(reg::IRQ_STATUS, m_regs.get(reg::IRQ_STATUS) | (1u << q));
    } else {
        // The bit belongs to the caller's future (LT offset): drive_irq sets it then.
        const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
        auto pos = std::upper_bound(
            m_irq_pending.begin(), m_irq_pending.end(), at,
            [](const sc_core::sc_time& t, const irq_entry& e) { return t < e.at; });
        m_irq_pending.insert(pos, irq_entry{at, 1u << q});
    }
    m_irq_ev.notify(delay);
}

void cp::drive_irq()
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    std::size_t n = 0;
    for (; n < m_irq_pending.size() && m_irq_pending[n].at <= now; ++n)
        m_regs.set(reg::IRQ_STATUS, m_regs.get(reg::IRQ_STATUS) | m_irq_pending[n].bits);
    m_irq_pending.erase(m_irq_pending.begin(),
                        m_irq_pending.begin() + static_cast<std::ptrdiff_t>(n));
    if (!m_irq_pending.empty())
        m_irq_ev.notify(m_irq_pending.front().at - now);
    irq.write((m_regs.get(reg::IRQ_STATUS) & m_regs.get(reg::IRQ_ENABLE)) != 0);
}

// ---- dispatch ----

void cp::run_queue(unsigned q)
{
    queue_state& qs = *m_q[q];
    for (;;) {
        sc_core::wait(qs.launch_ev);
        sc_core::wait(cycles(m_cfg.dispatch_latency));
        dispatch_ctas(q);
        while (qs.running > 0)
            sc_core::wait(qs.ended_ev);
        finish(q);
    }
}

void cp::dispatch_ctas(unsigned q)
{
    queue_state& qs = *m_q[q];
    const cta_launch& l = qs.launch;
    const std::uint32_t sm_first = qs.sm_first, sm_count = qs.sm_count;
    const std::uint64_t total = std::uint64_t{l.grid_x} * l.grid_y * l.grid_z;
    unsigned rr = 0;
    // Fast mode: the thread is temporally decoupled like the SMs. It does not wait for a
    // launch's time but sends the launch annotated with it (`local`: the thread's local time),
    // so an SM gets every launch before it runs past the launch's time; it synchronises only
    // before waiting for a free slot, and at the end.
    sc_core::sc_time local = sc_core::sc_time_stamp();
    const auto sync = [&] {
        if (local > sc_core::sc_time_stamp())
            sc_core::wait(local - sc_core::sc_time_stamp());
    };
    for (std::uint64_t i = 0; i < total; ++i) {
        if (qs.fault)
            return;
        unsigned sm = 0;
        bool stalled = false;
        for (;;) {
            bool found = false;
            for (unsigned k = 0; k < sm_count && !found; ++k) {
                const unsigned s = sm_first + (rr + k) % sm_count;
                if (fits(m_sm[s], q)) {
                    sm = s;
                    rr = (rr + k + 1) % sm_count;
                    found = true;
                }
            }
            if (found)
                break;
            if (!stalled) {
                ++m_dispatch_stalls;
                stalled = true;
            }
            sync();
            sc_core::wait(m_slot_freed);
            if (qs.fault)
                return;
        }
        // Reserve the slot before waiting for the SM's dispatch interval, so that another
        // queue cannot take it meanwhile.
        sm_state& st = m_sm[sm];
        ++st.ctas;
        st.warps += qs.warps_per_cta;
        st.registers += qs.occ.regs_per_cta;
        st.shared += qs.occ.shared_per_cta;
        ++st.of_queue[q];
        ++qs.running;
        const sc_core::sc_time now = std::max(sc_core::sc_time_stamp(), local);
        const sc_core::sc_time at = std::max(now, st.ready);
        st.ready = at + cycles(m_cfg.cta_dispatch_interval);
        local = at;
        if (at > now && m_clk.accurate) {
            sc_core::wait(at - now);
            if (qs.fault) {
                release(sm, q);
                return;
            }
        }

        cta_launch rec = l;
        // CTAs in CUDA's order: x fastest, then y, then z.
        rec.cta_x = static_cast<std::uint32_t>(i % l.grid_x);
        rec.cta_y = static_cast<std::uint32_t>(i / l.grid_x % l.grid_y);
        rec.cta_z = static_cast<std::uint32_t>(i / l.grid_x / l.grid_y);
        const cta_key key{sm, rec.cta_x, rec.cta_y, rec.cta_z};
        qs.outstanding.insert(key);
        tlm_bus::gpu_extension attrs;
        attrs.sm = static_cast<std::int16_t>(sm);
        attrs.kind = tlm_bus::access_kind::host;
        attrs.epoch = l.kernel_seq;
        attrs.ptbr = l.ptbr;
        sc_core::sc_time delay = at - sc_core::sc_time_stamp();
        const tlm::tlm_response_status rsp =
            dispatch[sm]->access(tlm::TLM_WRITE_COMMAND, 0, &rec, sizeof rec, delay, &attrs);
        if (rsp != tlm::TLM_OK_RESPONSE) {
            qs.outstanding.erase(key);
            const std::string msg = "SM " + std::to_string(sm) + " refused CTA (" +
                                    std::to_string(rec.cta_x) + "," + std::to_string(rec.cta_y) +
                                    "," + std::to_string(rec.cta_z) +
                                    "): " + tlm_bus::response_name(rsp);
            VGPU_WARN(m_log, "queue %u: kernel %u: %s", q, l.kernel_seq, msg.c_str());
            if (!qs.fault) {
                qs.fault = true;
                record_error(q, error_cause::dispatch, sm, 0, 0, 0, msg.c_str());
            }
            sync();
            release(sm, q);
            return;
        }
        ++m_ctas_dispatched;
        post_event(tlm_bus::event_source::rm, tlm_bus::event_kind::cta_dispatch,
                   static_cast<std::uint32_t>(i), at);
        m_regs.set(reg::queue(q, reg::CTAS_DISPATCHED),
                   m_regs.get(reg::queue(q, reg::CTAS_DISPATCHED)) + 1);
        local = sc_core::sc_time_stamp() + delay;
        if (m_clk.accurate)
            sync();
    }
    sync();
}

bool cp::fits(const sm_state& st, unsigned q) const
{
    const queue_state& qs = *m_q[q];
    // The kernel's own occupancy (exact by CUDA's rules when it is alone on the SM), then
    // what CTAs of other queues on the same SM already take.
    return st.of_queue[q] < qs.occ.ctas_per_sm && st.ctas < m_res.cta_slots &&
           st.warps + qs.warps_per_cta <= m_res.warp_slots &&
           std::uint64_t{st.warps + qs.warps_per_cta} * 32 <= m_res.max_threads &&
           st.registers + qs.occ.regs_per_cta <= m_res.registers &&
           st.shared + qs.occ.shared_per_cta <= m_res.shared_bytes;
}

void cp::release(unsigned sm, unsigned q)
{
    queue_state& qs = *m_q[q];
    --m_sm[sm].ctas;
    m_sm[sm].warps -= qs.warps_per_cta;
    m_sm[sm].registers -= qs.occ.regs_per_cta;
    m_sm[sm].shared -= qs.occ.shared_per_cta;
    --m_sm[sm].of_queue[q];
    --qs.running;
    m_slot_freed.notify();
    qs.ended_ev.notify();
}

void cp::finish(unsigned q)
{
    queue_state& qs = *m_q[q];
    if (m_kernel_end_work) {
        const sc_core::sc_time t = m_kernel_end_work();
        if (t > sc_core::SC_ZERO_TIME)
            sc_core::wait(t);
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    set_status(q, qs.fault ? queue_status::error : queue_status::done);
    qs.busy = false;
    run_progress::get().count(run_progress::get().kernels_done, now.value());
    raise_irq_status(q, sc_core::SC_ZERO_TIME);
    post_event(tlm_bus::event_source::ce, tlm_bus::event_kind::kernel_end, qs.launch.kernel_seq,
               now);
    if (events.size() != 0) // kernel end flushes every source's partial group
        events->flush_at((now.value() + m_clk.core_ps - 1) / m_clk.core_ps);
    m_kernel_time[q]->sample((now - qs.launch_at).to_seconds() * 1e9);
    VGPU_DEBUG(m_log, "queue %u: kernel %u %s", q, qs.launch.kernel_seq,
               qs.fault ? "failed" : "done");
    auto& tr = trace::recorder::instance();
    if (tr.enabled())
        tr.span(trace::kernel_process, "queue " + std::to_string(q),
                qs.fault ? "{kernel} (error)" : "{kernel}", to_ps(qs.launch_at), to_ps(now),
                qs.launch.kernel_seq);
}

// ---- completion records ----

void cp::done_b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    auto refuse = [&](tlm::tlm_response_status s, const std::string& why) {
        ++m_bad_done;
        VGPU_WARN(m_log, "cta_done refused: %s", why.c_str());
        gp.set_response_status(s);
    };
    if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (gp.get_command() != tlm::TLM_WRITE_COMMAND)
        return refuse(tlm::TLM_COMMAND_ERROR_RESPONSE, "not a write");
    if (gp.get_byte_enable_ptr() != nullptr)
        return refuse(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, "byte enables");
    if (gp.get_data_length() != sizeof(::vgpu::cp::cta_done) ||
        gp.get_streaming_width() < gp.get_data_length())
        return refuse(tlm::TLM_BURST_ERROR_RESPONSE,
                      std::to_string(gp.get_data_length()) + " bytes instead of " +
                          std::to_string(sizeof(::vgpu::cp::cta_done)));
    done_entry e{sc_core::sc_time_stamp() + delay, {}};
    ::vgpu::cp::cta_done& rec = e.rec;
    std::memcpy(&rec, gp.get_data_ptr(), sizeof rec);
    rec.message[sizeof rec.message - 1] = '\0';
    // Built only for a refusal: every CTA passes here, and the text costs more than the checks.
    const auto what = [&] {
        return "queue " + std::to_string(rec.queue) + " kernel " + std::to_string(rec.kernel_seq) +
               " SM " + std::to_string(rec.sm) + " CTA (" + std::to_string(rec.cta_x) + "," +
               std::to_string(rec.cta_y) + "," + std::to_string(rec.cta_z) + ")";
    };
    if (rec.queue >= m_cfg.queues)
        return refuse(tlm::TLM_GENERIC_ERROR_RESPONSE, what() + ": no such queue");
    queue_state& qs = *m_q[rec.queue];
    if (!qs.busy || rec.kernel_seq != qs.launch.kernel_seq)
        return refuse(tlm::TLM_GENERIC_ERROR_RESPONSE, what() + ": kernel not running");
    if (rec.status != cta_status::ok && rec.status != cta_status::fault)
        return refuse(tlm::TLM_GENERIC_ERROR_RESPONSE,
                      what() + ": unknown status " +
                          std::to_string(static_cast<std::uint32_t>(rec.status)));
    if (qs.outstanding.erase(cta_key{rec.sm, rec.cta_x, rec.cta_y, rec.cta_z}) == 0)
        return refuse(tlm::TLM_GENERIC_ERROR_RESPONSE, what() + ": CTA not running there");
    // Effects are applied by process_done at the record's time, in time order.
    auto pos =
        std::upper_bound(m_pending.begin(), m_pending.end(), e.at,
                         [](const sc_core::sc_time& t, const done_entry& d) { return t < d.at; });
    m_pending.insert(pos, e);
    m_done_ev.notify(delay);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned cp::done_transport_dbg(int, tlm::tlm_generic_payload&)
{
    // Records are messages, not storage: there is nothing a debugger could read or write.
    return 0;
}

void cp::process_done()
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    std::size_t n = 0;
    for (; n < m_pending.size() && m_pending[n].at <= now; ++n) {
        const ::vgpu::cp::cta_done& rec = m_pending[n].rec;
        queue_state& qs = *m_q[rec.queue];
        const std::uint64_t cta =
            (std::uint64_t{rec.cta_z} * qs.launch.grid_y + rec.cta_y) * qs.launch.grid_x +
            rec.cta_x; // the linear index dispatch posted
        post_event(tlm_bus::event_source::rm, tlm_bus::event_kind::cta_retire,
                   static_cast<std::uint32_t>(cta), now);
        run_progress::get().count(run_progress::get().ctas_done, now.value());
        if (rec.status == cta_status::ok) {
            ++m_ctas_done;
            m_regs.set(reg::queue(rec.queue, reg::CTAS_DONE),
                       m_regs.get(reg::queue(rec.queue, reg::CTAS_DONE)) + 1);
        } else {
            ++m_faults;
            if (!qs.fault) {
                qs.fault = true;
                record_error(rec.queue, error_cause::cta_fault, rec.sm, rec.warp, rec.pc, rec.vaddr,
                             rec.message);
                VGPU_INFO(m_log,
                          "queue %u: kernel %u: fault on SM %u warp %u pc 0x%x vaddr 0x%llx: %s",
                          rec.queue, rec.kernel_seq, rec.sm, rec.warp, rec.pc,
                          static_cast<unsigned long long>(rec.vaddr), rec.message);
            }
        }
        release(rec.sm, rec.queue);
    }
    m_pending.erase(m_pending.begin(), m_pending.begin() + static_cast<std::ptrdiff_t>(n));
    if (!m_pending.empty())
        m_done_ev.notify(m_pending.front().at - now);
}

} // namespace vgpu::cp
