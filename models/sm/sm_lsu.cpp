// SM LSU stage: LD/ST/ATOM issue, line requests and their places, memory order, LSU
// threads, page-fault replay and completion. See models/sm/README.md ("Stages").
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/sm/sm.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/sim_time.h"

#include "models/common/host_resources.h"

#include <algorithm>
#include <cstring>

namespace vgpu::sm {

bool sm::ordered(const mem_op& a, const mem_op& b)
{
    // An atomic writes as a store does.
    const bool a_writes = a.store || a.kind == tlm_bus::access_kind::atomic;
    const bool b_writes = b.store || b.kind == tlm_bus::access_kind::atomic;
    if ((!a_writes && !b_writes) || (a.lines_sig & b.lines_sig) == 0)
        return false;
    for (unsigned i = 0; i < a.lines.count; ++i)
        for (unsigned j = 0; j < b.lines.count; ++j)
            if (a.lines.requests[i].line_addr == b.lines.requests[j].line_addr)
                return true;
    return false;
}

void sm::issue_mem(unsigned slot, const step_result& r, const mem_access& a,
                   tlm_bus::access_kind kind, std::uint32_t zero_lanes)
{
    if (a.space == mem_space::shared) {
        issue_shared(slot, r, a);
        return;
    }
    warp_slot& ws = m_warps[slot];
    cta_slot& c = m_cta_slots[ws.cta];
    // An entry not in flight; the scoreboard's limits leave one (loads + stores < entries).
    unsigned k = 0;
    while (k < ws.ops.size() && (ws.ops[k]->busy || ws.ops[k]->end > m_cycle))
        ++k;
    if (k == ws.ops.size()) {
        if (k == m_cfg.max_loads_per_warp + m_cfg.max_stores_per_warp) {
            SC_REPORT_ERROR("vgpu/sm",
                            "no free memory-instruction entry (scoreboard limits broken)");
            return;
        }
        // Entries are added one at a time as the warps of this slot need them: most slots use
        // few (a streaming kernel's warp three of 16), and a platform has thousands of slots.
        // Each entry is allocated alone, so adding one never moves another (an LSU thread
        // holds a reference across its access) and the entries a kernel uses lie close
        // together in host memory.
        ws.ops.push_back(std::make_unique<mem_op>()); // a fresh entry is free
    }
    mem_op& op = *ws.ops[k];
    m_coalescer.coalesce_into(a.lane_mask, a.addr.data(), op.lines, width_bytes(a.width));
    if (op.lines.misaligned) {
        fault_cta(ws.cta, slot, r.pc, a.addr[ctz64(op.lines.misaligned)], "misaligned access");
        return;
    }
    op.width = a.width;
    op.aop = a.aop;
    op.cas = a.cas;
    if (kind == tlm_bus::access_kind::atomic) {
        // One request per distinct word, in the order of the first lane on it, carrying its
        // lanes' operands folded into one (ADD: their sum); do_line hands the lanes their old
        // values in lane order, as one read-modify-write at the LLC per word of the warp
        // (docs/isa.md, "Atomics"). An operation whose lanes do not fold into one operand
        // (FADD, INC, DEC, CAS) sends one request per lane, in lane order.
        const bool combines = !a.cas && atom_combines(a.aop);
        op.lines.count = 0;
        for (std::uint32_t m = a.lane_mask; m != 0; m &= m - 1) {
            const auto l = static_cast<unsigned>(__builtin_ctz(m));
            const std::uint64_t line = a.addr[l] & ~std::uint64_t{m_line_bytes - 1};
            const auto offset = static_cast<unsigned>(a.addr[l] - line);
            unsigned i = combines ? 0 : op.lines.count;
            while (i < op.lines.count && (op.lines.requests[i].line_addr != line ||
                                          op.lines.requests[i].offset != offset))
                ++i;
            coalescer::request& q = op.lines.requests[i];
            if (i == op.lines.count) {
                ++op.lines.count;
                q.line_addr = line;
                q.lane_mask = 0;
                q.offset = offset;
                q.bytes = width_bytes(a.width); // a word, or a doubleword (B64)
            }
            q.lane_mask |= 1u << l;
        }
        op.data = a.data;
        if (a.cas)
            op.data2 = a.data2;
        if (a.width == mem_width::b64) {
            op.data_hi = a.data_hi;
            if (a.cas)
                op.data2_hi = a.data2_hi;
        }
        ++m_atomics;
    }
    op.lines_sig = 0;
    for (unsigned i = 0; i < op.lines.count; ++i)
        op.lines_sig |= 1ull << ((op.lines.requests[i].line_addr / m_line_bytes) % 64);
    op.addr = a.addr;
    op.store = r.kind == step_kind::store;
    if (op.store)
        op.data = a.data;
    op.lane_mask = a.lane_mask;
    op.kind = kind;
    op.zero_lanes = zero_lanes;
    for (std::uint32_t m = zero_lanes; m != 0; m &= m - 1)
        op.data[static_cast<unsigned>(__builtin_ctz(m))] = 0;
    op.reg = a.reg;
    op.pc = r.pc;
    op.issue = m_cycle + m_cfg.lsu_delay(); // address stage (sm.units.lsu.latency)
    op.end = op.issue;
    op.remaining = op.lines.count;
    op.failed = false;
    op.fail_reason = nullptr;
    if (op.store)
        ++m_stores;
    else if (kind == tlm_bus::access_kind::data) // a unit counts its own loads
        ++m_loads;
    if (a.space == mem_space::local && (op.store || kind == tlm_bus::access_kind::data))
        ++(op.store ? m_local_stores : m_local_loads);
    m_mem_requests += op.lines.count;
    if (ws.prof)
        ws.prof[r.pc].line_requests += op.lines.count;
    ++c.outstanding;
    ws.board.memory_issued(op.store, m_cycle);
    // The memory pipeline sends one line request per cycle for the whole SM (all sub-cores;
    // LD, ST, ATOM and a unit's loads), in instruction order: an instruction's first request
    // follows the previous instruction's last one. The requests of warps that issue on
    // consecutive cycles thus leave warp by warp in both timing modes, not interleaved. The
    // instruction takes its cycles here, before the memory order below: one that waits for an
    // earlier access of its warp waits aside (as in accurate mode, where it waits in the LSU
    // threads), and never holds back the other warps' requests.
    op.issue = std::max(op.issue, m_line_port_free);
    m_line_port_free = op.issue + op.lines.count;
    // A warp's accesses to one line keep program order where one of them writes. After a store
    // the later access follows it through the same in-order path (the line port, the L1's tag
    // stage, the interconnect's queues, the LLC) and only waits until the store's requests
    // went; a load takes the values of the words the store writes (as the L1's copy would
    // hold them), so it reads them whatever path its own data takes. After a load or an atomic
    // (whose value comes back at its completion), and for an atomic after a store, the later
    // access waits until the earlier completed. Both timing modes apply this one rule.
    op.waits = 0;
    op.waits_sent = 0;
    op.after = 0;
    op.fwd_mask = 0;
    op.unsent = op.lines.count;
    op.seq = ++ws.mem_seq;
    const std::uint64_t port = op.issue;
    const bool atomic = kind == tlm_bus::access_kind::atomic;
    bool forward = false;
    for (unsigned j = 0; j < ws.ops.size(); ++j) {
        const mem_op& o = *ws.ops[j];
        if (j == k || !(o.busy || o.end > op.issue) || !ordered(o, op))
            continue;
        // A sub-word store or load waits for the earlier access's completion instead (the
        // forwarding below moves whole words).
        const bool words = o.width == mem_width::b32 && op.width == mem_width::b32;
        if (o.store && !atomic && m_stores_follow && words) {
            if (o.unsent != 0)
                op.waits_sent |= 1ull << j;
            if (o.busy)
                op.after |= 1ull << j;
            forward = forward || !op.store;
        } else if (o.busy) {
            op.waits |= 1ull << j;
        } else {
            op.issue = std::max(op.issue, o.end);
        }
    }
    if (forward)
        forward_stores(slot, op);
    op.behind = op.waits != 0 || op.waits_sent != 0 || op.issue > port;
    op.fault_cycle = 0;
    if (op.lines.count == 0) { // a unit's load whose lanes all read 0
        finish_mem(slot, k);
        return;
    }
    // Fast mode: an access that waits for an earlier one of its warp is made when it goes,
    // not now. Made now, its requests would book the shared resources ahead of the requests
    // other warps and SMs make meanwhile in simulated time (call order is not time order):
    // a chain of stores to one line, each made at the previous one's completion, would book
    // a saturated channel before them and hold them back (docs/architecture.md, "Timing").
    // One that follows a store already made goes now, at its cycle of the line port.
    const bool deferred = !m_clk.accurate && op.issue > port;
    if (m_clk.accurate || op.waits != 0 || op.waits_sent != 0 || deferred) {
        // Accurate mode; or fast mode behind an access of this warp that completes later or
        // whose requests wait (a place, a page fault): LSU threads perform it when it may go.
        op.busy = true;
        if (!m_clk.accurate)
            ++m_busy_ops;
        if (op.waits == 0 && op.waits_sent == 0)
            dispatch_mem(slot, k);
        return;
    }
    op.end = op.issue;
    op.remaining = 0;
    catch_up();
    const sc_core::sc_time now = tlm_bus::sim_now();
    for (unsigned i = 0; i < op.lines.count; ++i) {
        lsu_job job{static_cast<std::uint16_t>(slot), static_cast<std::uint16_t>(i),
                    static_cast<std::uint8_t>(k)};
        if (m_line_limit.limit() != 0 && !take_place(job)) {
            // sm.max_line_requests are in flight: the request waits in the LSU and the SM
            // makes it when its place is free (send_queued_lines), in time order with the
            // other SMs' requests.
            hold_op(op);
            continue;
        }
        sc_core::sc_time delay = time_of(op.issue + i) - now;
        auto f = do_line(slot, k, i, delay, m_line_bufs.data(), m_be_bufs.data());
        if (!f || !f->walk) // a walk wait keeps its place until its replay completes
            m_line_limit.release(cycle_of(now + delay));
        if (f)
            wait_fault(job, std::move(f));
        else
            line_sent(slot, k, op.issue + i);
    }
    if (op.remaining == 0)
        finish_mem(slot, k);
}

shared_pipe::shared_pipe(stats::group& g, const sm_config& cfg)
    : banks(cfg.shared_banks),
      accesses(g, "shared_accesses", "count", "warp LD/ST/ATOM/CAS.SHARED instructions"),
      atomics(g, "shared_atomics", "count", "warp ATOM/CAS.SHARED instructions"),
      passes(g, "shared_passes", "cycles",
             "cycles of the shared-memory pipeline those instructions occupied (one per "
             "bank-conflict way)"),
      conflict_cycles(g, "shared_conflict_cycles", "cycles",
                      "pipeline cycles beyond one per shared access: the k - 1 extra passes of "
                      "each k-way bank conflict")
{
}

void sm::issue_shared(unsigned slot, const step_result& r, const mem_access& a)
{
    // The shared-memory pipeline is the SM's own: the access is carried out now, in issue
    // order, and timed by the one rule of both timing modes (docs/isa.md, "Shared memory"):
    // it takes the pipeline from its first free cycle for one pass per way of its worst bank
    // conflict; its result is readable sm.shared_latency cycles after its last pass began.
    warp_slot& ws = m_warps[slot];
    cta_slot& c = m_cta_slots[ws.cta];
    const auto window = static_cast<std::uint32_t>(c.shared.size());
    if (const auto l = shared_out_of_window(a.lane_mask, a.addr, width_bytes(a.width), window)) {
        char msg[96];
        std::snprintf(msg, sizeof msg,
                      "shared address 0x%x in lane %u outside the CTA's %u bytes of shared memory",
                      a.addr[*l], *l, window);
        fault_cta(ws.cta, slot, r.pc, a.addr[*l], msg);
        return;
    }
    const unsigned passes = m_shared.banks.passes(a.lane_mask, a.addr.data(), width_bytes(a.width));
    const std::uint64_t start = std::max(m_cycle, m_shared.free);
    m_shared.free = start + passes;
    const std::uint64_t end = start + passes - 1 + m_cfg.shared_latency;
    ++m_shared.accesses;
    m_shared.passes += passes;
    m_shared.conflict_cycles += passes - 1;
    const bool store = r.kind == step_kind::store;
    if (r.kind == step_kind::atomic)
        ++m_shared.atomics;
    shared_execute(c.shared, a, r.kind, m_shared.values, &m_shared.values_hi);
    ws.board.memory_issued(store, m_cycle);
    ws.board.memory_done(store, end);
    if (!store && a.reg != reg_zero) {
        ws.w->complete_load(a.reg, m_shared.values, a.lane_mask);
        ws.board.write_load(a.reg, end);
        if (r.kind == step_kind::atomic && a.width == mem_width::b64) { // the pair's high word
            ws.w->complete_load(a.reg + 1u, m_shared.values_hi, a.lane_mask);
            ws.board.write_load(static_cast<std::uint8_t>(a.reg + 1), end);
        }
    }
    c.end = std::max(c.end, end);
}

void sm::catch_up()
{
    // Fast mode books shared resources in call order: an SM that ran ahead would take a
    // saturated port before SMs that reach it earlier in simulated time. Far ahead, it first
    // lets global time catch up (platform.timing.memory_quantum_ns).
    if (const std::uint64_t local = time_of(m_cycle).value(), global = tlm_bus::sim_now().value();
        local > global && local - global > m_clk.memory_quantum_ps) {
        m_qk.set(time_of(m_cycle) - tlm_bus::sim_now());
        m_qk.sync();
        ++m_memory_syncs;
        if (m_gate) // the access goes after the turns of lower SMs whose local cycles ran first
            m_gate->in_order(m_sm_id);
    }
}

std::uint64_t sm::due_of(const lsu_job& job) const
{
    return m_warps[job.slot].ops[job.op]->issue + job.line;
}

void sm::hold_op(mem_op& op)
{
    if (op.remaining++ == 0) {
        op.busy = true;
        ++m_busy_ops;
    }
}

bool sm::take_place(lsu_job& job)
{
    const std::uint64_t due = due_of(job);
    std::optional<std::uint64_t> at;
    if (m_line_queue.empty()) // requests take places in request order
        at = m_line_limit.take(due);
    if (at) {
        job.not_before = *at;
        job.counted = true;
        if (m_clk.accurate || *at == due)
            return true; // it goes (accurate mode: from *at on, in run_lsu_job)
    }
    m_line_queue.push_back(job);
    return false;
}

void sm::wait_fault(lsu_job job, std::shared_ptr<tlm_bus::fault_wait> f)
{
    // The page is being faulted in: an LSU thread waits for the host's answer and replays the
    // line; the SM goes on issuing the other warps.
    mem_op& op = *m_warps[job.slot].ops[job.op];
    hold_op(op);
    if (op.fault_cycle == 0 && f->retry_ps == 0 && !f->placement)
        op.fault_cycle = op.issue + job.line;
    // Its place was given up when the fault was answered; a walk wait keeps it (run_lsu_job).
    job.counted = job.counted && f->walk;
    job.fault = std::move(f);
    hand_to_lsu(job);
}

void sm::send_queued_lines()
{
    while (!m_line_queue.empty()) {
        lsu_job& front = m_line_queue.front();
        const std::uint64_t due = due_of(front);
        if (!front.counted) {
            // Fast mode knows the completion of every request sent: a place is found.
            const auto at = m_line_limit.take(due);
            if (!at)
                return; // every place is held by a walk wait: release_line() sends it
            front.not_before = *at;
            front.counted = true;
        }
        if (front.not_before > m_cycle)
            return;
        const lsu_job job = front;
        m_line_queue.pop_front();
        mem_op& op = *m_warps[job.slot].ops[job.op];
        count_line_wait(due, job.not_before);
        catch_up();
        const sc_core::sc_time at = time_of(job.not_before), now = tlm_bus::sim_now();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        auto f = do_line(job.slot, job.op, job.line, delay, m_line_bufs.data(), m_be_bufs.data());
        if (!f || !f->walk)
            m_line_limit.release(cycle_of(now + delay));
        if (f) {
            --op.remaining; // wait_fault counts it again
            wait_fault(job, std::move(f));
            continue;
        }
        line_sent(job.slot, job.op, job.not_before);
        if (--op.remaining == 0)
            finish_mem(job.slot, job.op);
    }
}

void sm::dispatch_mem(unsigned slot, unsigned k)
{
    // One LSU thread per line request, woken in request order (so the order in which the
    // requests reach the L1 does not depend on which thread takes which).
    const mem_op& op = *m_warps[slot].ops[k];
    for (unsigned i = 0; i < op.lines.count; ++i) {
        lsu_job job{static_cast<std::uint16_t>(slot), static_cast<std::uint16_t>(i),
                    static_cast<std::uint8_t>(k)};
        // Accurate mode, sm.max_line_requests: a request takes a place, or waits for one in
        // request order (release_line). Fast mode calls this only for an access behind an
        // earlier one of its warp, which is not limited.
        if (m_line_limit.limit() != 0 && !op.behind && m_clk.accurate && !take_place(job))
            continue;
        hand_to_lsu(job);
    }
}

void sm::count_line_wait(std::uint64_t due, std::uint64_t at)
{
    if (at > due) {
        ++m_line_limit_waits;
        m_line_limit_wait_cycles += at - due;
    }
}

void sm::release_line(std::uint64_t end)
{
    m_line_limit.release(end);
    while (!m_line_queue.empty()) {
        lsu_job& front = m_line_queue.front();
        const auto at = m_line_limit.take(due_of(front));
        if (!at)
            return;
        lsu_job job = front;
        m_line_queue.pop_front();
        job.not_before = *at;
        job.counted = true;
        hand_to_lsu(job);
    }
}

std::shared_ptr<tlm_bus::fault_wait> sm::do_line(unsigned slot, unsigned k, unsigned line,
                                                 sc_core::sc_time& delay, std::uint8_t* buf,
                                                 std::uint8_t* be)
{
    warp_slot& ws = m_warps[slot];
    mem_op& op = *ws.ops[k];
    const coalescer::request& req = op.lines.requests[line];
    const std::uint64_t va = req.line_addr + req.offset;
    const unsigned len = req.bytes;
    tlm_bus::gpu_extension ext =
        request_ext(static_cast<int>(slot), op.kind, va, op.pc, m_cta_slots[ws.cta].launch);
    // A load the L1 cannot give an MSHR yet is answered at once, and replayed (replay_line)
    // when one is free (fast mode; accurate mode's L1 keeps it waiting until then).
    ext.replayable = !op.store && op.kind != tlm_bus::access_kind::atomic;
    ext.replay = m_replaying;
    if (ws.prof && !op.store && op.kind != tlm_bus::access_kind::atomic)
        ext.l1_misses = &ws.prof[op.pc].l1_misses; // the L1 tells which of its reads missed
    m_request_barrier_count.sample(ext.barrier_waiting);
    tlm::tlm_response_status st;
    std::shared_ptr<tlm_bus::fault_wait> fault;
    if (op.kind == tlm_bus::access_kind::atomic) {
        // A write of the lanes' operands folded into one (ADD: their sum), answered with the
        // word's old value in the same buffer; lane by lane, each lane's old value is the word
        // after the lanes before it.
        // ATOM/CAS.B64: the same on an 8-byte doubleword, the operands' high words in the
        // _hi values.
        const bool wide = op.width == mem_width::b64;
        const unsigned n = wide ? 8 : 4;
        const auto value = [&](const lane_values& lo, const lane_values& hi, unsigned l) {
            return lo[l] | (wide ? std::uint64_t{hi[l]} << 32 : 0);
        };
        const auto first = static_cast<unsigned>(__builtin_ctz(req.lane_mask));
        std::uint64_t operand = value(op.data, op.data_hi, first);
        for (std::uint32_t m = req.lane_mask & (req.lane_mask - 1); m != 0; m &= m - 1) {
            const auto l = static_cast<unsigned>(__builtin_ctz(m));
            const std::uint64_t b = value(op.data, op.data_hi, l);
            operand = wide ? atom_fold64(op.aop, operand, b)
                           : atom_fold(op.aop, static_cast<std::uint32_t>(operand),
                                       static_cast<std::uint32_t>(b));
        }
        ext.atomic = op.cas ? tlm_bus::atomic_op::cas : static_cast<tlm_bus::atomic_op>(op.aop);
        ext.swap = op.cas ? value(op.data2, op.data2_hi, first) : 0;
        std::memcpy(buf, &operand, n); // little-endian: the low n bytes
        st = mem.access(tlm::TLM_WRITE_COMMAND, va, buf, n, delay, &ext, nullptr, &fault);
        if (st == tlm::TLM_OK_RESPONSE) {
            std::uint8_t word[8] = {};
            std::memcpy(word, buf, n);
            for (std::uint32_t m = req.lane_mask; m != 0; m &= m - 1) {
                const auto l = static_cast<unsigned>(__builtin_ctz(m));
                std::uint8_t b[8] = {};
                const std::uint64_t operand_l = value(op.data, op.data_hi, l);
                std::memcpy(b, &operand_l, n);
                std::uint64_t old = 0;
                std::memcpy(&old, word, n);
                op.data[l] = static_cast<std::uint32_t>(old);
                op.data_hi[l] = static_cast<std::uint32_t>(old >> 32);
                tlm_bus::atomic_apply_bytes(ext.atomic, n, word, b,
                                            op.cas ? value(op.data2, op.data2_hi, l) : 0);
            }
        }
    } else if (!op.store) {
        st = mem.access(tlm::TLM_READ_COMMAND, va, buf, len, delay, &ext, nullptr, &fault);
        if (st == tlm::TLM_OK_RESPONSE)
            for (std::uint32_t m = req.lane_mask; m != 0; m &= m - 1) {
                const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
                std::uint32_t raw = 0;
                std::memcpy(&raw, buf + (op.addr[l] - va), width_bytes(op.width));
                op.data[l] = load_extend(op.width, raw);
            }
    } else {
        std::memset(be, 0, len);
        for (std::uint32_t m = req.lane_mask; m != 0; m &= m - 1) {
            const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
            const std::uint64_t off = op.addr[l] - va;
            std::memcpy(buf + off, &op.data[l], width_bytes(op.width)); // the low bytes
            std::memset(be + off, 0xff, width_bytes(op.width));
        }
        // Lanes that leave holes in the segment write with TLM byte enables.
        const bool holes = std::memchr(be, 0, len) != nullptr;
        st = mem.access(tlm::TLM_WRITE_COMMAND, va, buf, len, delay, &ext, holes ? be : nullptr,
                        &fault);
    }
    if (fault) {
        if (fault->retry_ps == 0 && !fault->placement)
            ++m_page_faults;
        return fault;
    }
    op.end = std::max(op.end, cycle_of(tlm_bus::sim_now() + delay));
    if (st != tlm::TLM_OK_RESPONSE && !op.failed) {
        op.failed = true;
        op.fail_vaddr = op.addr[static_cast<unsigned>(__builtin_ctz(req.lane_mask))];
        op.fail_status = st;
    }
    return nullptr;
}

void sm::replay_line(unsigned slot, unsigned k, unsigned line,
                     std::shared_ptr<tlm_bus::fault_wait> f, std::uint8_t* buf, std::uint8_t* be)
{
    mem_op& op = *m_warps[slot].ops[k]; // entries never move
    bool my_turn = false;
    while (f) {
        if (f->retry_ps != 0) {
            // Not a fault: the L1 had no free MSHR. The request goes again when one is, after
            // the requests that waited before it (one at a time: each waiter is told the same
            // first free MSHR, and all replaying then would mostly be told to wait again).
            if (!my_turn) {
                if (m_retry_busy) {
                    sc_core::sc_event turn;
                    m_retry_line.push_back(&turn);
                    sc_core::wait(turn);
                }
                m_retry_busy = my_turn = true;
            }
            const std::uint64_t now = tlm_bus::sim_now().value();
            if (f->retry_ps > now)
                sc_core::wait(tlm_bus::ps_time(f->retry_ps - now));
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            m_replaying = true; // do_line does not wait in fast mode
            f = do_line(slot, k, line, delay, buf, be);
            m_replaying = false;
            if (f && f->retry_ps != 0)
                continue;
            // Made (or faulted): the next waiter's turn.
            my_turn = false;
            if (m_retry_line.empty()) {
                m_retry_busy = false;
            } else {
                m_retry_line.front()->notify(sc_core::SC_ZERO_TIME);
                m_retry_line.pop_front();
            }
            continue;
        }
        if (op.fault_cycle == 0 && !f->placement)
            op.fault_cycle = std::max<std::uint64_t>(1, cycle_of(tlm_bus::sim_now()));
        while (!f->resolved && tlm_bus::sim_now().value() < f->deadline_ps)
            sc_core::wait(tlm_bus::ps_time(f->deadline_ps - tlm_bus::sim_now().value()), f->done);
        if (!f->resolved || f->fatal) {
            if (!op.failed) {
                const coalescer::request& req = op.lines.requests[line];
                op.failed = true;
                op.fail_vaddr = op.addr[static_cast<unsigned>(__builtin_ctz(req.lane_mask))];
                op.fail_status = tlm::TLM_ADDRESS_ERROR_RESPONSE;
                op.fail_reason = f->resolved ? f->fatal
                                             : "page fault not answered by the host within "
                                               "host.fault_timeout";
            }
            op.end = std::max(op.end, cycle_of(tlm_bus::sim_now()));
            return;
        }
        // Accurate mode: an access that followed earlier stores of its warp (it was made
        // before they were answered, so they may have page-faulted too) replays after them.
        while (m_clk.accurate && op.after != 0)
            sc_core::wait(m_wake);
        // The replay: the same line request again, now (not a new instruction).
        const sc_core::sc_time at = time_of(op.issue + line);
        const sc_core::sc_time now = tlm_bus::sim_now();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        f = do_line(slot, k, line, delay, buf, be);
    }
}

void sm::finish_mem(unsigned slot, unsigned k)
{
    warp_slot& ws = m_warps[slot];
    cta_slot& c = m_cta_slots[ws.cta];
    mem_op& op = *ws.ops[k];
    --c.outstanding;
    ws.board.memory_done(op.store, op.end);
    if (op.busy) {
        op.busy = false;
        if (!m_clk.accurate)
            --m_busy_ops;
        // Accesses of this warp that waited for this one may go when it completed (op.end,
        // which may lie beyond now: a target can annotate the end of its response).
        release_followers(slot, k, op.end, true);
    }
    for (auto& o : ws.ops) // the stores it followed are complete
        o->after &= ~(1ull << k);
    if (op.fault_cycle != 0)
        m_fault_stall_cycles += op.end - std::min(op.end, op.fault_cycle);
    c.end = std::max(c.end, op.end);
    if (op.failed) {
        // The translation answers an unmapped page with an address error and a store to a
        // page that is not writable with a command error (TLM-2.0's meaning of each); a page
        // fault the host refused carries the host's reason.
        const char* why = op.fail_reason                                      ? op.fail_reason
                          : op.fail_status == tlm::TLM_ADDRESS_ERROR_RESPONSE ? "not mapped"
                          : op.fail_status != tlm::TLM_COMMAND_ERROR_RESPONSE
                              ? tlm_bus::response_name(op.fail_status)
                          : op.store ? "read-only"
                                     : "not readable";
        char msg[96];
        const char* what = op.kind != tlm_bus::access_kind::atomic ? (op.store ? "ST" : "LD")
                           : op.cas                                ? "CAS"
                                                                   : "ATOM";
        std::snprintf(msg, sizeof msg, "%s at VA 0x%llx failed (%s)", what,
                      static_cast<unsigned long long>(op.fail_vaddr), why);
        fault_cta(ws.cta, slot, op.pc, op.fail_vaddr, msg);
        m_check = true;
        return;
    }
    if (!op.store && op.reg != reg_zero) {
        for (std::uint32_t m = op.fwd_mask; m != 0; m &= m - 1) {
            const auto l = static_cast<unsigned>(__builtin_ctz(m));
            op.data[l] = op.fwd[l];
        }
        ws.w->complete_load(op.reg, op.data, op.lane_mask | op.zero_lanes);
        ws.board.write_load(op.reg, op.end);
        if (op.kind == tlm_bus::access_kind::atomic && op.width == mem_width::b64) {
            ws.w->complete_load(op.reg + 1u, op.data_hi, op.lane_mask); // the pair's high word
            ws.board.write_load(static_cast<std::uint8_t>(op.reg + 1), op.end);
        }
    }
    if (m_live & (1ull << slot))
        update_next(slot);
    if (m_slots.state(ws.cta) == cta_state::ending || m_barriers.all_exited(ws.cta))
        m_check = true;
}

void sm::line_sent(unsigned slot, unsigned k, std::uint64_t at)
{
    mem_op& op = *m_warps[slot].ops[k];
    if (op.unsent == 0 || --op.unsent != 0 || !op.store)
        return;
    // The store's requests went: the accesses that follow it take the next cycles of the path.
    release_followers(slot, k, at + 1, false);
}

void sm::release_followers(unsigned slot, unsigned k, std::uint64_t from, bool done)
{
    warp_slot& ws = m_warps[slot];
    const std::uint64_t bit = 1ull << k;
    for (unsigned j = 0; j < ws.ops.size(); ++j) {
        mem_op& o = *ws.ops[j];
        if (!o.busy || !((o.waits_sent | (done ? o.waits : 0)) & bit))
            continue;
        o.issue = std::max(o.issue, from);
        o.waits_sent &= ~bit;
        if (done)
            o.waits &= ~bit;
        if (o.waits == 0 && o.waits_sent == 0)
            dispatch_mem(slot, j);
    }
}

void sm::forward_stores(unsigned slot, mem_op& op)
{
    // The earlier stores in flight to op's lines, oldest first; none older than an atomic op
    // waits for that shares a line with it (that atomic waited for the store's completion, and
    // the load reads after the atomic completed).
    warp_slot& ws = m_warps[slot];
    std::array<std::uint8_t, 64> order, atomics;
    unsigned n = 0, na = 0;
    for (unsigned j = 0; j < ws.ops.size(); ++j) {
        const mem_op& o = *ws.ops[j];
        if (&o == &op || !(o.busy || o.end > op.issue) || !ordered(o, op))
            continue;
        if (!o.store) {
            atomics[na++] = static_cast<std::uint8_t>(j);
            continue;
        }
        unsigned i = n++;
        for (; i > 0 && ws.ops[order[i - 1]]->seq > o.seq; --i)
            order[i] = order[i - 1];
        order[i] = static_cast<std::uint8_t>(j);
    }
    for (unsigned i = 0; i < n; ++i) {
        const mem_op& o = *ws.ops[order[i]];
        bool before_atomic = false;
        for (unsigned a = 0; a < na && !before_atomic; ++a) {
            const mem_op& at = *ws.ops[atomics[a]];
            before_atomic = at.seq > o.seq && ordered(o, at);
        }
        if (before_atomic)
            continue;
        for (std::uint32_t lm = op.lane_mask; lm != 0; lm &= lm - 1) {
            const auto l = static_cast<unsigned>(__builtin_ctz(lm));
            for (std::uint32_t sl = o.lane_mask; sl != 0; sl &= sl - 1) { // highest lane wins
                const auto s = static_cast<unsigned>(__builtin_ctz(sl));
                if (o.addr[s] == op.addr[l]) {
                    op.fwd[l] = o.data[s];
                    op.fwd_mask |= 1u << l;
                }
            }
        }
    }
}

unsigned sm::spawn_lsu()
{
    const auto id = static_cast<unsigned>(m_lsu.size());
    auto w = std::make_unique<lsu_worker>();
    w->buf.resize(m_line_bytes);
    w->be.resize(m_line_bytes);
    w->process =
        sc_core::sc_spawn([this, id] { lsu_thread(id); }, sc_core::sc_gen_unique_name("lsu"))
            .get_process_object();
    m_lsu.push_back(std::move(w));
    return id;
}

void sm::hand_to_lsu(const lsu_job& job)
{
    unsigned id;
    if (!m_lsu_idle.empty()) {
        id = m_lsu_idle.back();
        m_lsu_idle.pop_back();
    } else if (const auto g = host_resources::take_thread(); g == host_resources::grant::thread) {
        id = spawn_lsu();
    } else if (g == host_resources::grant::host_spent) {
        // Waiting here would make the timing depend on the host: fail instead.
        const std::string msg =
            "the host's memory mappings (vm.max_map_count) allow no more SystemC threads after " +
            std::to_string(host_resources::threads_taken()) + " of platform.max_host_threads (" +
            std::to_string(host_resources::thread_budget()) +
            "): raise vm.max_map_count or lower platform.max_host_threads "
            "(docs/architecture.md, \"Host limits\")";
        SC_REPORT_ERROR("vgpu/sm", msg.c_str());
        return;
    } else {
        // platform.max_host_threads is spent (docs/architecture.md, "Host limits"): the job
        // waits for the next LSU thread to finish, in request order.
        if (!m_lsu_budget_warned) {
            m_lsu_budget_warned = true;
            VGPU_WARN(m_log,
                      "platform.max_host_threads (%llu) is spent: this SM keeps at most %zu "
                      "line requests in flight, so timing differs from the model",
                      static_cast<unsigned long long>(host_resources::thread_budget()),
                      m_lsu.size());
        }
        m_lsu_waiting.push_back(job);
        ++m_lsu_budget_waits;
        return;
    }
    lsu_worker& w = *m_lsu[id];
    w.job = job;
    w.go.notify(sc_core::SC_ZERO_TIME);
}

void sm::run_lsu_job(const lsu_job& job, lsu_worker& w)
{
    if (job.fill) {
        // The vector may grow while this thread waits in the access: copy, index again after.
        const fill_request f = m_fills[job.line];
        const sc_core::sc_time at = time_of(f.cycle);
        const sc_core::sc_time now = tlm_bus::sim_now();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        const auto st =
            mem.access(tlm::TLM_READ_COMMAND, f.va, w.buf.data(), m_line_bytes, delay, &f.ext);
        m_fills[job.line].busy = false;
        fill_done(f.va, cycle_of(tlm_bus::sim_now() + delay), st);
        ++m_wakeups;
        m_wake.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    if (job.unit) {
        // The vector may grow while this thread waits: copy, and free the entry now.
        const pending_read u = m_unit_reads[job.slot];
        m_unit_reads_free.push_back(job.slot);
        std::shared_ptr<tlm_bus::fault_wait> f = job.fault;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        line_result res;
        if (!f) {
            const sc_core::sc_time at = time_of(u.rd.at);
            const sc_core::sc_time now = tlm_bus::sim_now();
            delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
            res = unit_read(u.rd, delay, &f);
        }
        if (f) // a page fault: wait for the host's answer and replay, as an SM load does
            res = unit_replay(u.rd, std::move(f), delay);
        u.unit->read_made(u.rd, res);
        // Accurate mode: the unit learns of the data when it is here. Fast mode (a faulted
        // read) tells it at once, as it tells read_made(): the unit retires by the read's end.
        if (m_clk.accurate)
            sc_core::wait(delay);
        u.unit->read_arrived(u.rd, res, cycle_of(tlm_bus::sim_now()));
        if (!m_clk.accurate)
            --m_busy_ops; // fast mode hands a unit's read to an LSU thread only when it faulted
        ++m_wakeups;
        m_wake.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    if (job.fetch) {
        for (unsigned i = job.line; i < m_fetch.lines; i += fetch_threads)
            if (!fetch_line(i))
                break;
        if (--m_fetch.left == 0)
            m_fetch_done.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    mem_op& op = *m_warps[job.slot].ops[job.op];
    std::shared_ptr<tlm_bus::fault_wait> f = job.fault;
    if (!f) {
        const std::uint64_t due = op.issue + job.line;
        count_line_wait(due, job.not_before);
        const sc_core::sc_time at = time_of(std::max(due, job.not_before));
        // Fast mode: the request is made at its time, so that it reaches the shared resources
        // in time order with the other SMs' requests (the targets never wait).
        if (!m_clk.accurate && at > tlm_bus::sim_now())
            sc_core::wait(at - tlm_bus::sim_now());
        const sc_core::sc_time now = tlm_bus::sim_now();
        sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
        // Accurate mode: the request is on its way once the call is made (the accesses that
        // follow it are made after it, in a later delta); fast mode: once it was answered.
        if (m_clk.accurate)
            line_sent(job.slot, job.op, cycle_of(at));
        f = do_line(job.slot, job.op, job.line, delay, w.buf.data(), w.be.data());
        // Its place is free from its completion on (a page fault gives it up when reported;
        // the replay is not limited; a walk wait keeps it until the replay completes).
        if (job.counted && (!f || !f->walk))
            release_line(cycle_of(tlm_bus::sim_now() + delay));
        if (!f && !m_clk.accurate)
            line_sent(job.slot, job.op, cycle_of(at));
    }
    if (f) {
        const bool walk_place = job.counted && f->walk;
        replay_line(job.slot, job.op, job.line, std::move(f), w.buf.data(), w.be.data());
        if (walk_place) // free from the replay's completion on (op.end includes it)
            release_line(op.end);
        if (!m_clk.accurate)
            line_sent(job.slot, job.op, cycle_of(tlm_bus::sim_now()));
    }
    if (--op.remaining == 0) {
        finish_mem(job.slot, job.op);
        ++m_wakeups;
        m_wake.notify(sc_core::SC_ZERO_TIME);
    }
}

void sm::lsu_thread(unsigned id)
{
    lsu_worker& w = *m_lsu[id];
    for (;;) {
        sc_core::wait(w.go);
        run_lsu_job(w.job, w);
        while (!m_lsu_waiting.empty()) { // only when platform.max_host_threads is spent
            const lsu_job next = m_lsu_waiting.front();
            m_lsu_waiting.pop_front();
            run_lsu_job(next, w);
        }
        m_lsu_idle.push_back(id);
    }
}

} // namespace vgpu::sm
