// SM unit seam, host side: the services the attached unit uses (models/sm/sm_unit.h).
// See models/sm/README.md ("Units").
#include "models/sm/sm.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>

namespace vgpu::sm {

void sm::attach_unit(const unit_factory& make)
{
    // One unit per SM: a second would take the first one's instructions and leave its reads
    // in flight pointing at a destroyed unit.
    if (m_attached)
        SC_REPORT_ERROR("vgpu/sm", (std::string(name()) + ": a unit is already attached").c_str());
    m_attached = make(*this);
}

void sm::load(unsigned warp, const step_result& r, const mem_access& a, tlm_bus::access_kind kind,
              std::uint32_t zero_lanes)
{
    issue_mem(warp, r, a, kind, zero_lanes);
}

void sm::read_line(sm_unit& unit, const line_read& rd)
{
    if (m_clk.accurate) {
        unit_to_lsu(unit, rd, nullptr);
        return;
    }
    const sc_core::sc_time at = time_of(rd.at), now = tlm_bus::sim_now();
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    std::shared_ptr<tlm_bus::fault_wait> f;
    const line_result res = unit_read(rd, delay, &f);
    if (!f) {
        unit.read_made(rd, res);
        return;
    }
    // The line page-faulted: as an SM load's, an LSU thread waits for the host's answer and
    // replays it; the unit learns of it (read_made, read_arrived) from that thread.
    ++m_busy_ops;
    unit_to_lsu(unit, rd, std::move(f));
}

void sm::unit_to_lsu(sm_unit& unit, const line_read& rd, std::shared_ptr<tlm_bus::fault_wait> fault)
{
    unsigned index;
    if (!m_unit_reads_free.empty()) {
        index = m_unit_reads_free.back();
        m_unit_reads_free.pop_back();
    } else {
        index = static_cast<unsigned>(m_unit_reads.size());
        m_unit_reads.emplace_back();
        if (index > 0xffff)
            SC_REPORT_ERROR("vgpu/sm", "too many unit line reads in flight");
    }
    m_unit_reads[index] = {&unit, rd};
    lsu_job job(static_cast<std::uint16_t>(index), 0);
    job.unit = true;
    job.fault = std::move(fault);
    hand_to_lsu(job);
}

line_result sm::unit_read(const line_read& rd, sc_core::sc_time& delay,
                          std::shared_ptr<tlm_bus::fault_wait>* fault)
{
    line_result res;
    res.start = cycle_of(tlm_bus::sim_now() + delay);
    if (rd.bytes > 0) {
        const tlm_bus::gpu_extension ext =
            request_ext(static_cast<int>(rd.warp), rd.kind, rd.addr, rd.pc,
                        m_cta_slots[m_warps[rd.warp].cta].launch);
        res.status = mem.access(tlm::TLM_READ_COMMAND, rd.addr, rd.data, rd.bytes, delay, &ext,
                                nullptr, fault);
        ++m_mem_requests;
        if (fault && *fault && (*fault)->retry_ps == 0 && !(*fault)->placement)
            ++m_page_faults;
    }
    res.end = std::max<std::uint64_t>(1, cycle_of(tlm_bus::sim_now() + delay));
    return res;
}

line_result sm::unit_replay(const line_read& rd, std::shared_ptr<tlm_bus::fault_wait> f,
                            sc_core::sc_time& delay)
{
    line_result res;
    while (f) {
        if (f->retry_ps != 0) {
            // Not a fault: the cache had no free MSHR; the read goes again when one is.
            const std::uint64_t now = tlm_bus::sim_now().value();
            if (f->retry_ps > now)
                sc_core::wait(tlm_bus::ps_time(f->retry_ps - now));
        } else {
            while (!f->resolved && tlm_bus::sim_now().value() < f->deadline_ps)
                sc_core::wait(tlm_bus::ps_time(f->deadline_ps - tlm_bus::sim_now().value()),
                              f->done);
            if (!f->resolved || f->fatal) {
                // Refused, or not answered within host.fault_timeout: the read failed.
                res.status = tlm::TLM_ADDRESS_ERROR_RESPONSE;
                res.start = res.end = std::max<std::uint64_t>(1, cycle_of(tlm_bus::sim_now()));
                delay = sc_core::SC_ZERO_TIME;
                return res;
            }
        }
        // The replay: the same line read again, now.
        const sc_core::sc_time at = time_of(rd.at), now = tlm_bus::sim_now();
        delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        f.reset();
        res = unit_read(rd, delay, &f);
    }
    return res;
}

void sm::begin_access(unsigned warp)
{
    settle();
    warp_slot& ws = m_warps[warp];
    ++m_cta_slots[ws.cta].outstanding;
    ws.board.memory_issued(false, m_cycle);
}

void sm::end_access(unsigned warp, std::uint64_t end)
{
    settle();
    warp_slot& ws = m_warps[warp];
    cta_slot& c = m_cta_slots[ws.cta];
    --c.outstanding;
    ws.board.memory_done(false, end);
    c.end = std::max(c.end, end);
    if (m_live & (1ull << warp))
        update_next(warp);
    if (m_slots.state(ws.cta) == cta_state::ending || m_barriers.all_exited(ws.cta))
        m_check = true;
}

void sm::write_register(unsigned warp, unsigned reg, const lane_values& v, std::uint64_t at)
{
    settle();
    warp_slot& ws = m_warps[warp];
    ws.w->complete_load(reg, v, ~0u);
    ws.board.write_load(static_cast<std::uint8_t>(reg), at);
}

void sm::wake(unsigned warp)
{
    settle();
    if (m_live & (1ull << warp))
        update_next(warp);
}

void sm::fault(unsigned warp, std::uint32_t pc, std::uint64_t vaddr, const std::string& msg)
{
    settle();
    fault_cta(m_warps[warp].cta, warp, pc, vaddr, msg);
    m_check = true;
}

} // namespace vgpu::sm
