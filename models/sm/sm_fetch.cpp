// SM fetch stage: program fetch at CTA start, the instruction cache and its fills.
// See models/sm/README.md ("Stages").
#include "models/sm/sm.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <cstdio>

namespace vgpu::sm {

namespace {
/// True when issuing `i` (of a checked program of `size` instructions) touches nothing but the
/// SM's own state: not a global memory access, a barrier, an exit, a trace event, a CDL hand-off
/// or a parameter read (which may fault), nor a branch out of the program.
bool runs_locally(const instruction& i, std::size_t size)
{
    switch (i.op) {
    case opcode::LD:
    case opcode::ST:
    case opcode::ATOM:
    case opcode::CAS:
    case opcode::CDL:
    case opcode::BAR:
    case opcode::EXIT:
    case opcode::TRACE:
    case opcode::LDP:
    case opcode::INVALID:
        return false;
    case opcode::BRA:
        return i.src[0].value < size;
    default:
        return true;
    }
}
} // namespace

int sm::fetch_program(cta_slot& c, std::uint64_t& ready)
{
    const cp::cta_launch& l = c.launch;
    for (std::size_t i = 0; i < m_progs.size(); ++i) {
        prog_entry& p = m_progs[i];
        if (p.valid && p.kernel_seq == l.kernel_seq && p.addr == l.prog_addr &&
            p.bytes == l.prog_bytes) {
            ++p.users;
            // Fast mode: a CTA started (at its launch time) right after the one whose fetch
            // brought the program still waits for the fetch to end.
            ready = std::max(ready, p.ready);
            return static_cast<int>(i);
        }
    }
    const int ci = static_cast<int>(&c - m_cta_slots.data());
    const int first_warp = static_cast<int>(ctz64(m_slots.warp_mask(ci)));
    auto fail = [&](std::uint64_t va, const std::string& msg) {
        fault_cta(ci, static_cast<unsigned>(first_warp), 0, va, msg);
        return -1;
    };
    if (l.prog_bytes == 0 || l.prog_bytes > max_program_bytes)
        return fail(l.prog_addr, "program size " + std::to_string(l.prog_bytes) +
                                     " bytes outside 1.." + std::to_string(max_program_bytes));
    auto victim = std::find_if(m_progs.begin(), m_progs.end(),
                               [](const prog_entry& p) { return p.users == 0; });
    if (victim == m_progs.end()) {
        SC_REPORT_ERROR("vgpu/sm", "no free program cache entry");
        return -1;
    }
    victim->valid = false;
    const std::uint64_t line = m_line_bytes;
    const std::uint64_t first = l.prog_addr & ~(line - 1);
    const std::uint64_t last = (std::uint64_t{l.prog_addr} + l.prog_bytes + line - 1) & ~(line - 1);
    m_fetch_buf.resize(last - first);
    std::uint64_t end = ready; // the warps start when the program arrived
    if (m_icache) {
        // The program is decoded from a debug read (no time): the warps' instruction fetches
        // are timed by the instruction cache (fetch_next).
        if (const auto bad = read_program(l, &m_fetch_buf[l.prog_addr - first])) {
            char msg[96];
            std::snprintf(msg, sizeof msg, "instruction fetch at VA 0x%llx failed (not readable)",
                          static_cast<unsigned long long>(*bad));
            return fail(*bad, msg);
        }
    } else {
        m_fetch = fetch_state{};
        m_fetch.launch = &l;
        m_fetch.first = first;
        m_fetch.lines = static_cast<unsigned>((last - first) / line);
        m_fetch.ready = ready;
        m_fetch.end = ready;
        if (m_clk.accurate) {
            // The lines are requested one per cycle, as in fast mode, by LSU threads (a blocking
            // fetch by this thread would serialise them); this thread waits for all of them.
            const unsigned threads = std::min(m_fetch.lines, fetch_threads);
            m_fetch.left = threads;
            for (unsigned k = 0; k < threads; ++k)
                hand_to_lsu({0, static_cast<std::uint16_t>(k), 0, true});
            while (m_fetch.left > 0)
                sc_core::wait(m_fetch_done);
        } else {
            for (unsigned i = 0; i < m_fetch.lines && fetch_line(i); ++i) {
            }
        }
        if (m_fetch.failed) {
            char msg[96];
            std::snprintf(msg, sizeof msg, "instruction fetch at VA 0x%llx failed (%s)",
                          static_cast<unsigned long long>(m_fetch.fail_va),
                          tlm_bus::response_name(m_fetch.fail_status));
            return fail(m_fetch.fail_va, msg);
        }
        end = m_fetch.end;
    }
    victim->code = decode_program(&m_fetch_buf[l.prog_addr - first], l.prog_bytes);
    for (std::size_t pc = 0; pc < victim->code.size(); ++pc)
        if (victim->code[pc].op == opcode::INVALID)
            return fail(l.prog_addr + pc * instruction_bytes,
                        "instruction at pc " + std::to_string(pc) + " does not decode");
    // Checked once here for every warp that runs it (a warp checks an instruction otherwise
    // at each step).
    victim->checked =
        std::none_of(victim->code.begin(), victim->code.end(), [this](const instruction& i) {
            return check(i, m_cfg.regs_per_thread).has_value();
        });
    victim->plans.clear();
    for (const instruction& i : victim->code) {
        victim->plans.push_back(scoreboard::plan(i));
        victim->plans.back().local = victim->checked && runs_locally(i, victim->code.size());
    }
    victim->valid = true;
    victim->kernel_seq = l.kernel_seq;
    victim->addr = l.prog_addr;
    victim->bytes = l.prog_bytes;
    victim->users = 1;
    victim->ready = end;
    ready = end;
    return static_cast<int>(victim - m_progs.begin());
}

bool sm::fetch_line(unsigned i)
{
    const std::uint64_t va = m_fetch.first + std::uint64_t{i} * m_line_bytes;
    const sc_core::sc_time at = time_of(m_fetch.ready + i);
    const sc_core::sc_time now = tlm_bus::sim_now();
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    const tlm_bus::gpu_extension ext =
        request_ext(-1, tlm_bus::access_kind::instruction, va, 0, *m_fetch.launch);
    const auto st = mem.access(tlm::TLM_READ_COMMAND, va, &m_fetch_buf[va - m_fetch.first],
                               m_line_bytes, delay, &ext);
    ++m_fetches;
    if (st != tlm::TLM_OK_RESPONSE) {
        if (!m_fetch.failed || va < m_fetch.fail_va) {
            m_fetch.fail_va = va;
            m_fetch.fail_status = st;
        }
        m_fetch.failed = true;
        return false;
    }
    m_fetch.end = std::max(m_fetch.end, cycle_of(tlm_bus::sim_now() + delay));
    return true;
}

std::optional<std::uint64_t> sm::read_program(const cp::cta_launch& l, std::uint8_t* buf)
{
    std::uint64_t va = l.prog_addr;
    const std::uint64_t end = va + l.prog_bytes;
    while (va < end) {
        // One line at a time: the caches below hold (and interleave) data by line, and a
        // debug read is served whole by the target its first address decodes to.
        const std::uint64_t line_end = (va | (m_line_bytes - 1)) + 1;
        const auto len = static_cast<unsigned>(std::min(end, line_end) - va);
        const tlm_bus::gpu_extension ext =
            request_ext(-1, tlm_bus::access_kind::instruction, va, 0, l);
        const unsigned n =
            mem.debug(tlm::TLM_READ_COMMAND, va, buf + (va - l.prog_addr), len, &ext);
        if (n == 0)
            return va;
        va += n;
    }
    return std::nullopt;
}

void sm::fetch_next(unsigned slot, std::uint64_t at, std::uint64_t now)
{
    warp_slot& ws = m_warps[slot];
    if (!m_icache || !(m_live >> slot & 1) || !ws.w->next())
        return;
    const std::uint64_t line =
        m_icache->line_of(ws.prog_va + std::uint64_t{ws.w->pc()} * instruction_bytes);
    if (line != ws.fetch_line) {
        // The warp holds the instructions of the line it looked up last (its fetch buffer);
        // another line is looked up in the instruction cache.
        const cp::cta_launch& l = m_cta_slots[ws.cta].launch;
        const icache::result r = m_icache->access(line, now);
        ws.fetch_line = line;
        ws.fetch_ready = r.ready;
        switch (r.kind) {
        case icache::outcome::hit:
            ++m_icache_hits;
            break;
        case icache::outcome::in_flight:
            ++m_icache_pending_hits;
            break;
        case icache::outcome::miss:
            ++m_icache_misses;
            // Fast mode: fill_done() sets fetch_ready (or faults the CTA) before this returns.
            request_fill(line, std::max(at, now), l);
            break;
        }
        if (!(m_live >> slot & 1))
            return; // the fill failed: the CTA faulted
        // The window of sm.icache_prefetch_lines lines after this one, those not yet present
        // or requested (in steady state one new line per line used).
        for (unsigned k = 1; r.prefetch_next && k <= m_cfg.icache_prefetch_lines; ++k) {
            const std::uint64_t next = line + std::uint64_t{k} * m_line_bytes;
            if (next >= ws.prog_end)
                break;
            if (m_icache->prefetch(next, now)) {
                ++m_icache_prefetches;
                request_fill(next, std::max(at, now), l);
            }
        }
    }
    if (ws.fetch_ready > m_ready.next(slot))
        m_ready.set(slot, ws.fetch_ready, wait_reason::memory);
}

void sm::request_fill(std::uint64_t va, std::uint64_t at, const cp::cta_launch& l)
{
    at = std::max(at, m_fill_port);
    m_fill_port = at + 1;
    VGPU_DEBUG(m_log, "instruction line 0x%llx requested at cycle %llu",
               static_cast<unsigned long long>(va), static_cast<unsigned long long>(at));
    ++m_fetches;
    const tlm_bus::gpu_extension ext = request_ext(-1, tlm_bus::access_kind::instruction, va, 0, l);
    if (m_clk.accurate) {
        auto f = std::find_if(m_fills.begin(), m_fills.end(),
                              [](const fill_request& r) { return !r.busy; });
        if (f == m_fills.end())
            f = m_fills.insert(m_fills.end(), fill_request{});
        const auto index = static_cast<std::size_t>(f - m_fills.begin());
        if (index > 0xffff)
            SC_REPORT_ERROR("vgpu/sm", "too many instruction fills in flight");
        *f = {true, va, at, ext};
        hand_to_lsu({0, static_cast<std::uint16_t>(index), 0, false, true});
        return;
    }
    const sc_core::sc_time now = tlm_bus::sim_now();
    const sc_core::sc_time t = time_of(at);
    sc_core::sc_time delay = t > now ? t - now : sc_core::SC_ZERO_TIME;
    const auto st =
        mem.access(tlm::TLM_READ_COMMAND, va, m_fill_buf.data(), m_line_bytes, delay, &ext);
    fill_done(va, cycle_of(tlm_bus::sim_now() + delay), st);
}

void sm::fill_done(std::uint64_t va, std::uint64_t ready, tlm::tlm_response_status st)
{
    VGPU_DEBUG(m_log, "instruction line 0x%llx arrives at cycle %llu (%s)",
               static_cast<unsigned long long>(va), static_cast<unsigned long long>(ready),
               tlm_bus::response_name(st));
    if (st == tlm::TLM_OK_RESPONSE)
        m_icache->filled(va, ready);
    else
        m_icache->fill_failed(va);
    for (std::uint64_t m = m_live; m != 0; m &= m - 1) {
        const unsigned s = ctz64(m);
        warp_slot& ws = m_warps[s];
        if (ws.fetch_line != va || ws.fetch_ready != never || !(m_live >> s & 1))
            continue;
        if (st != tlm::TLM_OK_RESPONSE) {
            char msg[96];
            std::snprintf(msg, sizeof msg, "instruction fetch at VA 0x%llx failed (%s)",
                          static_cast<unsigned long long>(va), tlm_bus::response_name(st));
            fault_cta(ws.cta, s, ws.w->pc(), va, msg);
            continue;
        }
        ws.fetch_ready = ready;
        if (m_clk.accurate)
            update_next(s); // fast mode: the warp that missed is the only one waiting
    }
}

} // namespace vgpu::sm
