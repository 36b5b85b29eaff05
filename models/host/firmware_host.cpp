// host.kind riscv: the driver's side of the firmware co-simulation. The platform loads memory
// as for the native driver, writes the launch table into the firmware CPU's RAM and runs the
// firmware, which launches the phases and services the page faults; the host keeps the
// records (windows, pages) the firmware reports and runs the checks. See docs/firmware.md.
#include "models/host/driver.h"
#include "models/host/fault_part.h"
#include "models/host/instrument_part.h"
#include "models/host/launch_table.h"

#include "models/common/trace_events.h"
#include "models/cp/cp.h"
#include "tlm_bus/byte_enables.h"

#include <algorithm>
#include <cstring>

namespace vgpu::host {

#ifndef VGPU_FIRMWARE_ELF
#define VGPU_FIRMWARE_ELF ""
#endif

std::string firmware_image(const host_config& cfg, std::string& why)
{
    if (!cfg.firmware.empty())
        return cfg.firmware;
    const std::string built = VGPU_FIRMWARE_ELF;
    if (built.empty())
        why = "host.kind riscv: the generic firmware was not built (the RISC-V cross compiler "
              "was not found when vgpu was configured: install the Debian packages "
              "gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf, as scripts/test does, "
              "and reconfigure), and host.firmware names no other image";
    return built;
}

namespace {
template <class T> void put(std::vector<std::uint8_t>& out, std::size_t off, const T& v)
{
    std::memcpy(out.data() + off, &v, sizeof v);
}

std::size_t align8(std::size_t v)
{
    return (v + 7) / 8 * 8;
}
} // namespace

std::vector<std::uint8_t> driver::launch_table()
{
    const std::uint64_t page = m_facts.page_bytes;
    vgpu_lt_header h{};
    h.magic = VGPU_LT_MAGIC;
    h.version = VGPU_LT_VERSION;
    h.cp_base = static_cast<std::uint32_t>(m_facts.cp_base);
    h.ptbr_lo = static_cast<std::uint32_t>(m_plan.ptbr);
    h.ptbr_hi = static_cast<std::uint32_t>(m_plan.ptbr >> 32);
    std::size_t widest = 0;
    for (const auto& ph : m_wl.schedule)
        widest = std::max(widest, ph.size());
    h.irq_enable = widest >= 32 ? ~0u : static_cast<std::uint32_t>((1ull << widest) - 1);
    h.page_bytes = static_cast<std::uint32_t>(page);
    h.modules = std::max(1u, m_facts.modules);
    h.sms_per_module = m_facts.sms_per_module;
    h.page_alloc = static_cast<std::uint32_t>(m_facts.alloc);
    std::uint64_t ratio_bits = 0;
    std::memcpy(&ratio_bits, &m_facts.balance_ratio, sizeof ratio_bits);
    h.balance_lo = static_cast<std::uint32_t>(ratio_bits);
    h.balance_hi = static_cast<std::uint32_t>(ratio_bits >> 32);
    h.fault_batch = m_cfg.fault_batch;
    h.placed = static_cast<std::uint32_t>(m_placer.placed());
    h.rr = 0; // unused: the adaptive rule's state is the pages per module (pools)
    h.home_shift = page_table::home_shift;
    h.home_mask = static_cast<std::uint32_t>(page_table::home_mask);

    h.evict_drain_ns = static_cast<std::uint32_t>(evict_drain_ns);
    for (const auto& p : m_parts) // the blocks' register windows (fault unit, CBVs, LLC switch)
        p->launch_table(h);

    // Regions: the buffers a fault may map (on demand, or evicted by an `evict` entry).
    std::vector<vgpu_lt_region> regions;
    std::vector<std::uint64_t> leaves;
    std::vector<int> region_of_buffer(m_wl.buffers.size(), -1);
    const auto leaves_of = [&](const region& r) {
        for (std::uint64_t vpn = r.va / page; vpn * page < r.va + r.bytes; ++vpn) {
            const auto it = m_leaf.find(vpn);
            if (it == m_leaf.end()) {
                fail("driver bug: no page-table leaf for VA " + hex(vpn * page));
                return false;
            }
            leaves.push_back(it->second);
        }
        return true;
    };
    for (std::size_t b = 0; b < m_wl.buffers.size(); ++b) {
        const region& r = m_plan.buffers[b];
        const bool evicted =
            std::any_of(m_wl.evictions.begin(), m_wl.evictions.end(),
                        [&](const evict_decl& e) { return e.buffer == m_wl.buffers[b].name; });
        if (!r.on_demand && !evicted)
            continue;
        const bool ro = m_wl.buffers[b].read_only;
        const std::uint64_t bits = page_table::encode(0, !ro, ro, 0);
        vgpu_lt_region lr{static_cast<std::uint32_t>(r.va),
                          static_cast<std::uint32_t>(r.bytes),
                          static_cast<std::uint32_t>(leaves.size()),
                          (ro ? VGPU_LT_READ_ONLY : 0u) | (r.on_demand ? VGPU_LT_ON_DEMAND : 0u),
                          static_cast<std::uint32_t>(bits),
                          static_cast<std::uint32_t>(bits >> 32)};
        if (!leaves_of(r))
            return {};
        region_of_buffer[b] = static_cast<int>(regions.size());
        regions.push_back(lr);
    }
    std::vector<vgpu_lt_evict> evictions;
    for (const evict_decl& e : m_wl.evictions)
        evictions.push_back(
            {e.phase, static_cast<std::uint32_t>(e.after_ns),
             static_cast<std::uint32_t>(
                 region_of_buffer[static_cast<std::size_t>(m_wl.buffer_index(e.buffer))]),
             0});

    // Launches in schedule order; an instrumented kernel's profiling launch before its phase's
    // kernels (the native driver's order), with its trace windows' leaves after the regions'.
    std::vector<vgpu_lt_phase> phases;
    std::vector<vgpu_lt_launch> launches;
    std::vector<vgpu_lt_trace> traces;
    m_launches.clear();
    const auto add_launch = [&](unsigned p, unsigned q, std::size_t ki, std::uint32_t kind) {
        const kernel_decl& k = m_wl.kernels[ki];
        const instrument_plan& ip = m_plan.instrumented[ki];
        const region& prog = kind == VGPU_LT_PROFILE  ? ip.profile_prog
                             : kind == VGPU_LT_TRACED ? ip.traced_prog
                                                      : m_plan.programs[ki];
        vgpu_lt_launch l{};
        l.kernel = static_cast<std::uint32_t>(ki);
        l.queue = q;
        l.phase = p;
        l.kind = kind;
        l.trace = kind == VGPU_LT_KERNEL ? 0 : static_cast<std::uint32_t>(traces.size() - 1);
        l.prog_addr = static_cast<std::uint32_t>(prog.va);
        l.prog_bytes = static_cast<std::uint32_t>(prog.bytes);
        l.grid_x = k.grid_x;
        l.grid_y = k.grid_y;
        l.block_x = k.block_x;
        l.block_y = k.block_y;
        l.sm_first = k.sms.first;
        l.sm_count = k.sms.count == 0 ? m_num_sms - k.sms.first : k.sms.count;
        const std::size_t nparams = k.params.size() + (kind == VGPU_LT_PROFILE ? 1 : 0);
        if (k.grid_z != 1 || k.block_z != 1 || k.registers != 0 || k.shared_bytes != 0) {
            // The launch table has no field for them: the firmware would launch it 2-D.
            fail("kernel '" + k.name +
                 "' has a 3-D grid or block, or a translated kernel's registers or shared "
                 "memory, which the firmware's launch table does not carry (host.kind native "
                 "runs it)");
            return false;
        }
        if (nparams > VGPU_LT_MAX_PARAMS || k.cbvs.size() > VGPU_LT_MAX_CBVS) {
            fail("kernel '" + k.name +
                 "' has more parameters or CBV bindings than the launch "
                 "table holds (" +
                 std::to_string(VGPU_LT_MAX_PARAMS) + ", " + std::to_string(VGPU_LT_MAX_CBVS) +
                 ")");
            return false;
        }
        l.nparams = static_cast<std::uint32_t>(nparams);
        for (std::size_t i = 0; i < k.params.size(); ++i) {
            const kernel_param& prm = k.params[i];
            l.params[i] =
                prm.is_buffer
                    ? static_cast<std::uint32_t>(
                          m_plan.buffers[static_cast<std::size_t>(m_wl.buffer_index(prm.buffer))]
                              .va)
                    : prm.bits;
        }
        if (kind == VGPU_LT_PROFILE)
            l.params[k.params.size()] = static_cast<std::uint32_t>(ip.control.va);
        for (const auto& part : m_parts) // the blocks' per-kernel registers (CBVs, LLC org)
            if (!part->launch_entry(k, l))
                return false;
        launches.push_back(l);
        m_launches.push_back(
            {&k, ki, kind == VGPU_LT_PROFILE ? k.name + ".profile" : k.name, kind});
        return true;
    };
    // A `times` loop's body is written once per pass (the firmware has no loops); the builder
    // refuses `until` loops with host.kind riscv.
    std::uint64_t pass = 0;
    for (unsigned p = 0; p < m_wl.schedule.size(); ++p) {
        const auto& phase = m_wl.schedule[p];
        const loop_decl* loop = m_wl.loop_of(p);
        if (loop && loop->until()) {
            fail(loop->where.str() + ": schedule[" + std::to_string(loop->entry) +
                 "]: an until loop needs host.kind native (the firmware's launch table has no "
                 "loops)");
            return {};
        }
        phases.push_back({static_cast<std::uint32_t>(launches.size()), 0});
        const std::size_t opens = launches.size();
        for (std::size_t ki : phase) {
            const instrument_plan& ip = m_plan.instrumented[ki];
            if (!ip.active)
                continue;
            const kernel_decl& k = m_wl.kernels[ki];
            vgpu_lt_trace tr{};
            tr.touch = k.sms.first / std::max(1u, m_facts.sms_per_module);
            const std::uint64_t bits = page_table::encode(0, true, false, 0);
            tr.pte_lo = static_cast<std::uint32_t>(bits);
            tr.pte_hi = static_cast<std::uint32_t>(bits >> 32);
            for (unsigned t = 0; t < shader_trace::record_types; ++t) {
                const bool on = t == 0 ? k.instrument.control : k.instrument.memory;
                tr.window[t] = static_cast<std::uint32_t>(ip.window[t].va);
                tr.window_bytes[t] = static_cast<std::uint32_t>(ip.window[t].bytes);
                tr.pointer[t] =
                    static_cast<std::uint32_t>(ip.control.va + 4 * (ip.profile.blocks.size() + t));
                if (!on)
                    continue;
                tr.types |= 1u << t;
                tr.first_leaf[t] = static_cast<std::uint32_t>(leaves.size());
                if (!leaves_of(ip.window[t]))
                    return {};
            }
            traces.push_back(tr);
            // Seed 002: an instrumented kernel (alone in its phase) is profiled on queue 0.
            if (!add_launch(p, 0, ki, VGPU_LT_PROFILE))
                return {};
        }
        for (unsigned q = 0; q < phase.size(); ++q)
            if (!add_launch(p, q, phase[q],
                            m_plan.instrumented[phase[q]].active ? VGPU_LT_TRACED : VGPU_LT_KERNEL))
                return {};
        phases.back().count = static_cast<std::uint32_t>(launches.size()) - phases.back().first;
        for (std::size_t i = opens; i < launches.size(); ++i)
            m_launches[i].pass = pass;
        if (opens < launches.size())
            m_launches[opens].opens_phase = true;
        if (loop && p + 1 == loop->first + loop->count && ++pass < loop->times)
            p = static_cast<unsigned>(loop->first) - 1; // the next pass
        else if (loop && p + 1 == loop->first + loop->count)
            pass = 0;
    }
    std::vector<vgpu_lt_pool> pools(h.modules);
    for (unsigned m = 0; m < h.modules; ++m) {
        const std::uint64_t next = m_placer.next(m), end = (m + 1ull) * m_facts.dram_bytes;
        pools[m] = {static_cast<std::uint32_t>(next),
                    static_cast<std::uint32_t>(next >> 32),
                    static_cast<std::uint32_t>(end),
                    static_cast<std::uint32_t>(end >> 32),
                    static_cast<std::uint32_t>(m_placer.pages_per_module()[m]),
                    0};
    }
    std::size_t off = align8(sizeof h);
    h.phase_off = static_cast<std::uint32_t>(off);
    h.phases = static_cast<std::uint32_t>(phases.size());
    off = align8(off + phases.size() * sizeof(vgpu_lt_phase));
    h.launch_off = static_cast<std::uint32_t>(off);
    h.launches = static_cast<std::uint32_t>(launches.size());
    off = align8(off + launches.size() * sizeof(vgpu_lt_launch));
    h.pool_off = static_cast<std::uint32_t>(off);
    off = align8(off + pools.size() * sizeof(vgpu_lt_pool));
    h.region_off = static_cast<std::uint32_t>(off);
    h.regions = static_cast<std::uint32_t>(regions.size());
    off = align8(off + regions.size() * sizeof(vgpu_lt_region));
    h.leaf_off = static_cast<std::uint32_t>(off);
    h.pages = static_cast<std::uint32_t>(leaves.size());
    off = align8(off + leaves.size() * sizeof(std::uint64_t));
    h.trace_off = static_cast<std::uint32_t>(off);
    h.traces = static_cast<std::uint32_t>(traces.size());
    off = align8(off + traces.size() * sizeof(vgpu_lt_trace));
    h.evict_off = static_cast<std::uint32_t>(off);
    h.evictions = static_cast<std::uint32_t>(evictions.size());
    off = align8(off + evictions.size() * sizeof(vgpu_lt_evict));
    h.bytes = static_cast<std::uint32_t>(off);
    std::vector<std::uint8_t> out(off, 0);
    put(out, 0, h);
    for (std::size_t i = 0; i < phases.size(); ++i)
        put(out, h.phase_off + i * sizeof(vgpu_lt_phase), phases[i]);
    for (std::size_t i = 0; i < launches.size(); ++i)
        put(out, h.launch_off + i * sizeof(vgpu_lt_launch), launches[i]);
    for (std::size_t i = 0; i < pools.size(); ++i)
        put(out, h.pool_off + i * sizeof(vgpu_lt_pool), pools[i]);
    for (std::size_t i = 0; i < regions.size(); ++i)
        put(out, h.region_off + i * sizeof(vgpu_lt_region), regions[i]);
    for (std::size_t i = 0; i < leaves.size(); ++i)
        put(out, h.leaf_off + i * sizeof(std::uint64_t), leaves[i]);
    for (std::size_t i = 0; i < traces.size(); ++i)
        put(out, h.trace_off + i * sizeof(vgpu_lt_trace), traces[i]);
    for (std::size_t i = 0; i < evictions.size(); ++i)
        put(out, h.evict_off + i * sizeof(vgpu_lt_evict), evictions[i]);
    return out;
}

bool driver::run_firmware()
{
    const std::vector<std::uint8_t> table = launch_table();
    if (table.empty())
        return false;
    host_cpu::iss& core = m_cpu->core();
    // At the top of RAM, page-aligned; the firmware's stack grows down from it.
    const std::uint64_t ram_end = std::uint64_t{core.ram_base()} + core.ram_bytes();
    const std::uint64_t at = (ram_end - table.size()) / 4096 * 4096;
    constexpr std::uint64_t min_stack = 16 << 10;
    if (table.size() + min_stack > core.ram_bytes() || at < m_image_end + min_stack) {
        fail("the launch table (" + std::to_string(table.size()) +
             " bytes) and a 16 KiB stack do not fit in the firmware RAM after the image (ends at " +
             hex(m_image_end) + "; host.cpu.ram_bytes = " + std::to_string(core.ram_bytes()) + ")");
        return false;
    }
    m_table_addr = static_cast<std::uint32_t>(at);
    core.poke(m_table_addr, table.data(), static_cast<std::uint32_t>(table.size()));
    m_launch_run.assign(m_launches.size(), -1);
    VGPU_INFO(m_log, "firmware: %zu-byte launch table at %s, %zu launches", table.size(),
              hex(m_table_addr).c_str(), m_launches.size());
    m_qk.sync();
    m_cpu->start();
    sc_core::wait(m_cpu->done);
    m_qk.reset();
    if (!m_cpu->passed()) {
        fail(m_cpu->failure());
        return false;
    }
    for (const kernel_run& r : m_runs)
        if (!r.ended) {
            fail("the firmware reported PASS but kernel '" + r.name + "' (phase " +
                 std::to_string(r.phase) + ") was not seen to finish");
            return false;
        }
    if (m_runs.size() != m_launches.size()) {
        fail("the firmware reported PASS after " + std::to_string(m_runs.size()) + " of " +
             std::to_string(m_launches.size()) + " launches");
        return false;
    }
    return m_failures.empty();
}

bool driver::host_service(bool write, std::uint32_t off, std::uint32_t& v)
{
    const std::uint64_t page = m_facts.page_bytes;
    fault_part& faults = *part<fault_part>();         // the TLB block adds it
    instrument_part* instr = part<instrument_part>(); // with an instrumented kernel
    if (!write) {
        switch (off) {
        case VGPU_HS_TABLE:
            v = m_table_addr;
            return true;
        case VGPU_HS_TRACE_BYTES0:
        case VGPU_HS_TRACE_BYTES1:
            v = static_cast<std::uint32_t>(
                instr ? instr->trace_bytes((off - VGPU_HS_TRACE_BYTES0) / 4) : 0);
            return true;
        case VGPU_HS_FAILED:
            v = static_cast<std::uint32_t>(m_failures.size());
            return true;
        case VGPU_HS_FRAME_LO:
        case VGPU_HS_FRAME_HI: {
            // The frame of a resident page (an eviction drops it from the L1s by its frame).
            const auto it = m_plan.pages.find(m_hs_va / page);
            const std::uint64_t pa = it == m_plan.pages.end() ? 0 : it->second;
            v = static_cast<std::uint32_t>(off == VGPU_HS_FRAME_LO ? pa : pa >> 32);
            return true;
        }
        default:
            return false;
        }
    }
    m_qk.reset();
    // A launch-table entry of the given kind (a firmware bug otherwise: an access error).
    const auto entry = [this](std::uint32_t i, std::uint32_t kind, bool ended) {
        return i < m_launches.size() && m_launches[i].kind == kind &&
               (!ended ||
                (m_launch_run[i] >= 0 && m_runs[static_cast<std::size_t>(m_launch_run[i])].ended));
    };
    switch (off) {
    case VGPU_HS_MARK_LAUNCH: {
        if (v >= m_launches.size() || m_launch_run[v] >= 0)
            return false;
        const kernel_decl& k = *m_launches[v].kernel;
        const auto* lt = reinterpret_cast<const vgpu_lt_launch*>(
            m_cpu->core().ram() + (m_table_addr - host_cpu::ram_base) +
            reinterpret_cast<const vgpu_lt_header*>(m_cpu->core().ram() +
                                                    (m_table_addr - host_cpu::ram_base))
                ->launch_off);
        kernel_run r;
        r.name = m_launches[v].name;
        r.phase = lt[v].phase;
        r.pass = m_launches[v].pass;
        r.queue = lt[v].queue;
        r.sm_first = lt[v].sm_first;
        r.sm_count = lt[v].sm_count;
        r.start = now();
        r.start_mark = mark();
        if (m_phases.empty() || m_launches[v].opens_phase) {
            m_phases.push_back({});
            m_phases.back().index = r.phase;
            m_phases.back().pass = r.pass;
            m_phases.back().start = r.start;
            m_phases.back().start_mark = r.start_mark;
        }
        m_launch_run[v] = static_cast<int>(m_runs.size());
        m_phases.back().kernels.push_back(m_runs.size());
        m_runs.push_back(r);
        ++m_kernels;
        trace::recorder::instance().name_kernel(static_cast<std::uint32_t>(m_kernels.value()),
                                                k.name);
        return true;
    }
    case VGPU_HS_DONE_STATUS:
        m_hs_status = v;
        return true;
    case VGPU_HS_MARK_DONE: {
        if (v >= m_launches.size() || m_launch_run[v] < 0)
            return false;
        kernel_run& r = m_runs[static_cast<std::size_t>(m_launch_run[v])];
        if (r.ended)
            return false;
        r.end = now();
        r.ended = true;
        r.end_mark = mark();
        phase_run& ph = m_phases.back();
        ph.end = r.end;
        ph.end_mark = r.end_mark;
        ph.ended = std::all_of(ph.kernels.begin(), ph.kernels.end(),
                               [this](std::size_t i) { return m_runs[i].ended; });
        r.ok = m_hs_status == static_cast<std::uint32_t>(cp::queue_status::done);
        m_kernel_time.at(r.name)->sample((r.end - r.start).to_seconds() * 1e9);
        if (!r.ok) {
            if (m_hs_status == static_cast<std::uint32_t>(cp::queue_status::error))
                report_kernel_error(r, *m_launches[v].kernel);
            else
                fail("kernel '" + r.name + "' interrupted with STATUS " +
                     std::to_string(m_hs_status));
        } else {
            VGPU_INFO(m_log, "phase %u: '%s' done in %.1f ns (firmware)", r.phase, r.name.c_str(),
                      (r.end - r.start).to_seconds() * 1e9);
        }
        m_qk.sync();
        return true;
    }
    case VGPU_HS_COPY_VA:
        m_hs_va = v;
        return true;
    case VGPU_HS_COPY_PA_LO:
        m_hs_pa_lo = v;
        return true;
    case VGPU_HS_COPY_PA_HI:
        m_hs_pa_hi = v;
        return true;
    case VGPU_HS_PTE_LO:
        m_hs_pte_lo = v;
        return true;
    case VGPU_HS_PTE_HI:
        m_hs_pte_hi = v;
        return true;
    case VGPU_HS_COPY_GO: {
        const std::uint64_t pa = m_hs_pa_lo | std::uint64_t{m_hs_pa_hi} << 32;
        faults.service_qk().reset();
        bool ok = true;
        if (v == 1) {
            std::size_t b = 0;
            const region* r = region_of(m_hs_va, &b);
            if (!r || r < m_plan.buffers.data() ||
                r >= m_plan.buffers.data() + m_plan.buffers.size() || pa % page != 0)
                return false;
            std::vector<std::uint8_t> data;
            if (host_copy(b, m_hs_va / page, data)) {
                std::vector<transfer_piece> pieces;
                pieces_physical(pa, data.data(), page, pieces);
                ok = transfer_dma(tlm::TLM_WRITE_COMMAND, pieces, faults.service_qk());
                m_bytes_written += page;
            }
        } else if (v == 2) {
            std::uint64_t raw = m_hs_pte_lo | std::uint64_t{m_hs_pte_hi} << 32;
            ok = dma.access(tlm::TLM_WRITE_COMMAND, pa, &raw, sizeof raw, faults.service_qk(),
                            &m_ext) == tlm::TLM_OK_RESPONSE;
            m_bytes_written += sizeof raw;
        } else if (v == 3) {
            if (m_plan.pages.count(m_hs_va / page) == 0)
                return false;
            m_evict_batch.push_back(m_hs_va / page);
        } else if (v == 4) {
            // The eviction's copy-out, as the native driver's evict(): one DMA batch from the
            // old frames to the host's copies; the pages are no longer resident.
            std::size_t b = 0;
            if (!region_of(m_hs_va, &b) || m_plan.buffers[b].va != m_hs_va)
                return false;
            faults.copy_out(m_evict_batch, b, faults.service_qk(), " (firmware)");
            m_evict_batch.clear();
        } else {
            return false;
        }
        faults.service_qk().sync();
        return ok;
    }
    case VGPU_HS_MAPPED: {
        if (v >= m_plan.bytes_per_module.size())
            return false;
        const std::uint64_t vpn = m_hs_va / page;
        m_plan.pages[vpn] = m_hs_pa_lo | std::uint64_t{m_hs_pa_hi} << 32;
        m_plan.bytes_per_module[v] += page;
        m_pages.evicted.erase(vpn);
        faults.page_mapped();
        return true;
    }
    case VGPU_HS_ROUND:
        faults.round_begun(v);
        return true;
    case VGPU_HS_ROUND_END:
        faults.round_ended(v);
        return true;
    case VGPU_HS_TRACE_SAVE:
        if (!entry(v, VGPU_LT_PROFILE, false))
            return false;
        instr->save(m_launches[v].index);
        m_qk.sync();
        return true;
    case VGPU_HS_TRACE_SIZE:
        if (!entry(v, VGPU_LT_PROFILE, true))
            return false;
        instr->size(m_launches[v].index);
        m_qk.sync();
        return true;
    case VGPU_HS_TRACE_MAPPED: {
        if (v >= m_plan.bytes_per_module.size())
            return false;
        m_plan.pages[m_hs_va / page] = m_hs_pa_lo | std::uint64_t{m_hs_pa_hi} << 32;
        m_plan.bytes_per_module[v] += page;
        return true;
    }
    case VGPU_HS_TRACE_RESTORE:
        if (!entry(v, VGPU_LT_PROFILE, true))
            return false;
        instr->restore();
        m_qk.sync();
        return true;
    case VGPU_HS_TRACE_COLLECT:
        if (!entry(v, VGPU_LT_TRACED, true))
            return false;
        instr->collect(m_launches[v].index);
        m_qk.sync();
        return true;
    default:
        return false;
    }
}

} // namespace vgpu::host
