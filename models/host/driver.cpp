// Native host driver. See models/host/README.md.
#include "models/host/driver.h"
#include "models/llc/switch_regs.h"
#include "tlm_bus/byte_enables.h"

#include "models/cdl/cbv_table.h"
#include "models/common/trace_events.h"
#include "models/cp/cp.h"
#include "models/shader_trace/core/image.h"
#include "models/shader_trace/trace_regs.h"
#include "models/tlb/fault_unit.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <set>

namespace vgpu::host {

namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t a)
{
    return (v + a - 1) / a * a;
}

std::string hex(std::uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return buf;
}

} // namespace

std::optional<std::uint64_t> memory_plan::translate(std::uint64_t va,
                                                    std::uint64_t page_bytes) const
{
    auto it = pages.find(va / page_bytes);
    if (it == pages.end())
        return std::nullopt;
    return it->second + va % page_bytes;
}

page_placer::page_placer(const platform_facts& f)
    : m_f(f), m_next(std::max(1u, f.modules)), m_bytes(std::max(1u, f.modules)),
      m_pages(std::max(1u, f.modules))
{
    for (unsigned m = 0; m < modules(); ++m)
        m_next[m] = m * f.dram_bytes;
}

unsigned page_placer::home(std::uint64_t vpn, unsigned touch_module)
{
    const unsigned n = modules();
    unsigned m = std::min(touch_module, n - 1);
    if (m_f.alloc == page_alloc::round_robin) {
        m = static_cast<unsigned>(vpn % n);
    } else if (m_f.alloc == page_alloc::adaptive &&
               static_cast<double>(m_pages[m] + 1) >
                   m_f.balance_ratio * static_cast<double>(m_placed + 1) / n) {
        m = m_rr;
        m_rr = (m_rr + 1) % n;
    }
    ++m_pages[m];
    ++m_placed;
    return m;
}

std::optional<std::uint64_t> page_placer::frame(unsigned m)
{
    if (m_next[m] + m_f.page_bytes > (m + 1ull) * m_f.dram_bytes)
        return std::nullopt;
    const std::uint64_t pa = m_next[m];
    m_next[m] += m_f.page_bytes;
    m_bytes[m] += m_f.page_bytes;
    return pa;
}

std::uint64_t page_placer::reserve(unsigned m, std::uint64_t bytes)
{
    const std::uint64_t at = m_next[m];
    m_next[m] += round_up(bytes, m_f.page_bytes);
    return at;
}

memory_plan plan_memory(const workload& wl, const platform_facts& f, page_placer* placer)
{
    memory_plan plan;
    const std::uint64_t page = f.page_bytes;
    const unsigned modules = std::max(1u, f.modules);
    page_placer local(f);
    page_placer& frames = placer ? *placer : local;

    auto module_of_sm = [&](unsigned sm) {
        return std::min(modules - 1, sm / std::max(1u, f.sms_per_module));
    };
    // First touch: the first kernel of the schedule that takes the buffer as a parameter.
    std::vector<int> first_module(wl.buffers.size(), -1);
    for (const auto& phase : wl.schedule)
        for (std::size_t k : phase)
            for (const auto& p : wl.kernels[k].params) {
                const int b = p.is_buffer ? wl.buffer_index(p.buffer) : -1;
                if (b >= 0 && first_module[static_cast<std::size_t>(b)] < 0)
                    first_module[static_cast<std::size_t>(b)] =
                        static_cast<int>(module_of_sm(wl.kernels[k].sms.first));
            }

    // `what` is the kernel (>= 0) or ~buffer (< 0) being placed, recorded with a first error.
    auto place = [&](std::uint64_t& va, std::uint64_t bytes, unsigned touch_module, region& r,
                     int what) {
        r.va = va;
        r.bytes = bytes;
        r.module = touch_module;
        const std::uint64_t npages = round_up(bytes, page) / page;
        for (std::uint64_t i = 0; i < npages; ++i) {
            const std::uint64_t vpn = va / page + i;
            if (r.on_demand) { // the fault handler places it when an access faults
                plan.on_demand.emplace(vpn, 0);
                continue;
            }
            const unsigned m = frames.home(vpn, touch_module);
            const std::optional<std::uint64_t> pa = frames.frame(m);
            if (!pa) {
                if (plan.error.empty()) {
                    plan.error = "module " + std::to_string(m) + "'s DRAM (" +
                                 std::to_string(f.dram_bytes) + " bytes) is full";
                    (what >= 0 ? plan.error_kernel : plan.error_buffer) = what >= 0 ? what : ~what;
                }
                return;
            }
            plan.pages[vpn] = *pa;
        }
        // One unmapped page after each region turns an overrun into a page fault.
        va += (npages + 1) * page;
    };

    std::uint64_t va = round_up(program_va_base, page);
    plan.instrumented.resize(wl.kernels.size());
    for (std::size_t k = 0; k < wl.kernels.size(); ++k) {
        const kernel_decl& kd = wl.kernels[k];
        const unsigned module = module_of_sm(kd.sms.first);
        plan.programs.emplace_back();
        place(va, kd.code.size() * sm::instruction_bytes, module, plan.programs.back(),
              static_cast<int>(k));
        if (kd.instrumented()) {
            // Seed 002: the profiling and the traced program beside the kernel's own.
            instrument_plan& ip = plan.instrumented[k];
            const auto params = static_cast<unsigned>(kd.params.size());
            ip.profile = instrument_profile(kd.code, params, f.regs_per_thread);
            ip.traced =
                instrument_trace(kd.code, kd.instrument, params, f.regs_per_thread);
            ip.active = ip.profile.error.empty() && ip.traced.error.empty();
            if (!ip.active && plan.error.empty()) {
                plan.error = "kernel '" + kd.name + "' cannot be instrumented: " +
                             (ip.profile.error.empty() ? ip.traced.error : ip.profile.error);
                plan.error_kernel = static_cast<int>(k);
            }
            place(va, ip.profile.code.size() * sm::instruction_bytes, module, ip.profile_prog,
                  static_cast<int>(k));
            place(va, ip.traced.code.size() * sm::instruction_bytes, module, ip.traced_prog,
                  static_cast<int>(k));
        }
        if (va > buffer_va_base && plan.error.empty()) {
            plan.error = "the programs do not fit below " + hex(buffer_va_base);
            plan.error_kernel = static_cast<int>(k);
        }
    }
    va = std::max(va, round_up(buffer_va_base, page));
    for (std::size_t b = 0; b < wl.buffers.size(); ++b) {
        plan.buffers.emplace_back();
        plan.buffers.back().on_demand = wl.buffers[b].on_demand;
        place(va, wl.buffers[b].bytes(), static_cast<unsigned>(std::max(0, first_module[b])),
              plan.buffers.back(), ~static_cast<int>(b));
        if (va > va_limit && plan.error.empty()) {
            plan.error = "the buffers do not fit in the 32-bit virtual address space";
            plan.error_buffer = static_cast<int>(b);
        }
    }
    // Seed 002: per instrumented kernel its counters and pointers, and one window per record
    // type, reserved (its page-table nodes built) but mapped only once the profiling run has
    // sized the buffer.
    for (std::size_t k = 0; k < wl.kernels.size(); ++k) {
        instrument_plan& ip = plan.instrumented[k];
        if (!ip.active)
            continue;
        const unsigned module = module_of_sm(wl.kernels[k].sms.first);
        place(va, 4 * (ip.profile.blocks.size() + shader_trace::record_types), module, ip.control,
              static_cast<int>(k));
        for (unsigned t = 0; t < shader_trace::record_types; ++t) {
            ip.window[t].on_demand = true;
            place(va, f.instrument_bytes, module, ip.window[t], static_cast<int>(k));
        }
        if (va > va_limit && plan.error.empty()) {
            plan.error = "the trace buffers of kernel '" + wl.kernels[k].name +
                         "' do not fit in the 32-bit virtual address space (host.instrument_bytes)";
            plan.error_kernel = static_cast<int>(k);
        }
    }
    // The page table's nodes follow the frames on module 0 (page-aligned, so node-aligned),
    // with the nodes of on_demand pages too, so that the fault handler only writes leaves.
    std::map<std::uint64_t, std::uint64_t> vpns = plan.pages;
    vpns.insert(plan.on_demand.begin(), plan.on_demand.end());
    plan.table_bytes = page_table::builder::bytes_for(vpns, page);
    plan.ptbr = frames.next(0);
    if (plan.error.empty() && plan.ptbr + plan.table_bytes > f.dram_bytes)
        plan.error = "the page table (" + std::to_string(plan.table_bytes) +
                     " bytes) does not fit in module 0's DRAM after the frames placed there";
    frames.reserve(0, plan.table_bytes);
    plan.bytes_per_module = frames.bytes_per_module();
    return plan;
}

std::vector<std::string> check_memory_fit(const workload& wl, const platform_facts& facts)
{
    const memory_plan plan = plan_memory(wl, facts);
    if (plan.error.empty())
        return {};
    const std::string limits = " (dram.size is " + std::to_string(facts.dram_bytes) +
                               " bytes per module, " + std::to_string(facts.modules) +
                               " module(s))";
    if (plan.error_buffer >= 0) {
        const buffer_decl& b = wl.buffers[static_cast<std::size_t>(plan.error_buffer)];
        return {b.where.str() + ": error: buffers[" + std::to_string(plan.error_buffer) +
                "]: buffer '" + b.name + "' (" + std::to_string(b.bytes()) +
                " bytes) does not fit in GPU memory: " + plan.error + limits};
    }
    if (plan.error_kernel >= 0) {
        const kernel_decl& k = wl.kernels[static_cast<std::size_t>(plan.error_kernel)];
        return {k.where.str() + ": error: kernels[" + std::to_string(plan.error_kernel) +
                "].program: the program of kernel '" + k.name + "' (" +
                std::to_string(k.code.size() * sm::instruction_bytes) +
                " bytes) does not fit in GPU memory: " + plan.error + limits};
    }
    return {config::location{wl.file}.str() + ": error: " + plan.error + limits};
}

driver::driver(const sc_core::sc_module_name& name, const host_config& cfg, const workload& wl,
               const platform_facts& facts)
    : sc_module(name), mmio("mmio"), dma("dma"), irq("irq"), fault_irq("fault_irq"), m_cfg(cfg),
      m_wl(wl), m_facts(facts), m_placer(facts), m_plan(plan_memory(wl, facts, &m_placer)),
      m_chunk(cfg.load == load_kind::dma ? std::max(4u, std::min(cfg.dma_bytes, facts.line_bytes))
                                         : facts.line_bytes),
      m_piece_interval(sc_core::sc_time::from_value(static_cast<std::uint64_t>(
          std::ceil(m_chunk / std::max(1e-9, facts.port_bytes_per_ps))))),
      m_log(this->name()), m_stats(this->name()),
      m_bytes_written(m_stats, "bytes_written", "bytes",
                      "bytes written to GPU memory (set-up; DMA or backdoor per host.load)"),
      m_bytes_read(m_stats, "bytes_read", "bytes",
                   "bytes read from GPU memory (result checks; DMA or backdoor per host.load)"),
      m_transactions(m_stats, "dma_transactions", "count",
                     "timed DMA transactions of the copy engine (0 with host.load backdoor)"),
      m_kernels(m_stats, "kernels", "count", "kernel launches"),
      m_checks_passed(m_stats, "checks_passed", "count", "result checks that passed"),
      m_checks_failed(m_stats, "checks_failed", "count", "result checks that failed"),
      m_fault_records(m_stats, "fault_records", "count",
                      "fault records the shadow thread took from the fault buffer"),
      m_fault_services(m_stats, "fault_services", "count",
                       "pages the host's fault handler mapped (one per page however many "
                       "accesses faulted on it)"),
      m_fault_batches(m_stats, "fault_batches", "count",
                      "service rounds of the shadow thread (each up to host.fault_batch records)"),
      m_fatal_faults(m_stats, "fatal_faults", "count",
                     "records the host refused (not mapped, read-only, memory full, not a page "
                     "fault): the kernel fails"),
      m_evictions(m_stats, "evictions", "count",
                  "resident pages the driver evicted (copied out, unmapped, shot down)"),
      m_service_time(m_stats, "fault_service_time", "ns",
                     "time of a service round, from taking its records to the last answer"),
      m_load_ns(m_stats, "load_time", "ns",
                "simulated time of the set-up before the first launch (0 with host.load backdoor)",
                [this] { return static_cast<double>(m_load_time.value()) / 1000.0; })
{
    m_ext.kind = tlm_bus::access_kind::host;
    for (std::size_t m = 0; m < m_plan.bytes_per_module.size(); ++m)
        m_pages.push_back(std::make_unique<stats::formula>(
            m_stats, "pages.m" + std::to_string(m), "count",
            "pages placed on module " + std::to_string(m) + " (memory.page_alloc)", [this, m] {
                return static_cast<double>(m_plan.bytes_per_module[m] / m_facts.page_bytes);
            }));
    for (const auto& k : wl.kernels) {
        std::vector<std::string> records{k.name};
        if (k.instrumented())
            records.push_back(k.name + ".profile");
        for (const std::string& n : records)
            if (!m_kernel_time.count(n))
                m_kernel_time.emplace(
                    n, std::make_unique<stats::average>(
                           m_stats, "kernel_time." + n, "ns",
                           "time from LAUNCH to the interrupt of kernel '" + n + "'"));
    }
    // Seed 002's per-type statistics, when a kernel is instrumented.
    if (std::any_of(wl.kernels.begin(), wl.kernels.end(),
                    [](const kernel_decl& k) { return k.instrumented(); }))
        for (unsigned t = 0; t < shader_trace::record_types; ++t) {
            const std::string type = t == 0 ? "control" : "memory";
            const auto add = [&](const std::string& n, const char* unit, const std::string& doc,
                                 const std::uint64_t* v) {
                m_instrument_stats.push_back(
                    std::make_unique<stats::formula>(m_stats, "instrument." + type + "." + n, unit,
                                                     doc, [v] { return static_cast<double>(*v); }));
            };
            add("records", "count", type + " records the instrumented kernel wrote",
                &m_instrument_records[t]);
            add("refused", "count", type + " records that did not fit their buffer (not written)",
                &m_instrument_refused[t]);
            add("bytes", "bytes", type + " trace buffer bytes the profiling run sized",
                &m_instrument_bytes[t]);
        }
    SC_HAS_PROCESS(driver);
    SC_THREAD(run);
    if (cfg.kind == host_kind::riscv) {
        // The firmware CPU, a child of the host: interrupt source 0 is the CP, 1 the fault
        // unit; the firmware services page faults (no shadow thread).
        std::string why;
        const std::string path = firmware_image(cfg, why);
        if (path.empty())
            throw std::runtime_error(why);
        host_cpu::elf_image im = host_cpu::load_elf(
            path, host_cpu::ram_base, static_cast<std::uint32_t>(cfg.cpu.ram_bytes.bytes));
        for (const auto& seg : im.segments)
            m_image_end = std::max(m_image_end, seg.addr + seg.mem_bytes);
        m_cpu = std::make_unique<host_cpu::cpu>("cpu", cfg.cpu, im, 2);
        m_cpu->irq[0](irq);
        m_cpu->irq[1](fault_irq);
        m_cpu->host_window = [this](bool write, std::uint32_t off, std::uint32_t& v) {
            return host_service(write, off, v);
        };
    } else if (facts.fault_base != 0) { // a platform with a fault unit
        SC_THREAD(shadow_thread);
    }
    // The copy engine serves host.load dma, and the fault handler's fills and evictions.
    const bool faults_move_data =
        !wl.evictions.empty() || std::any_of(wl.buffers.begin(), wl.buffers.end(),
                                             [](const buffer_decl& b) { return b.on_demand; });
    if (cfg.load == load_kind::dma || faults_move_data)
        for (unsigned i = 0; i < cfg.dma_outstanding; ++i)
            sc_core::sc_spawn([this] { dma_engine(); }, sc_core::sc_gen_unique_name("dma_engine"));
}

sc_core::sc_time driver::now() const
{
    return sc_core::sc_time_stamp() + m_qk.get_local_time();
}

void driver::fail(const std::string& msg)
{
    VGPU_ERROR(m_log, "%s", msg.c_str());
    m_failures.push_back(msg);
}

void driver::run()
{
    m_qk.reset();
    VGPU_INFO(m_log, "workload '%s': %zu buffers, %zu kernels, %zu phases, %zu checks",
              m_wl.name.c_str(), m_wl.buffers.size(), m_wl.kernels.size(), m_wl.schedule.size(),
              m_wl.checks.size());
    auto& rec = trace::recorder::instance();
    bool ok = m_plan.error.empty();
    if (!ok)
        fail("memory allocation: " + m_plan.error);
    sc_core::sc_time t0 = now();
    const bool firmware = m_cpu != nullptr;
    ok = ok && load_memory() && set_up_cp(!firmware) && set_up_trace();
    if (rec.enabled())
        rec.host_span("load", "load memory, set up the CP", t0.value(), now().value());
    if (ok && firmware)
        ok = run_firmware();
    for (unsigned p = 0; ok && !firmware && p < m_wl.schedule.size(); ++p) {
        t0 = now();
        ok = run_phase(p);
        if (rec.enabled())
            rec.host_span("phase " + std::to_string(p), "phase " + std::to_string(p), t0.value(),
                          now().value());
    }
    if (ok && m_facts.trace_base != 0)
        ok = save_trace();
    if (ok) {
        t0 = now();
        run_checks();
        if (rec.enabled())
            rec.host_span("checks", "checks", t0.value(), now().value());
    } else if (!m_wl.checks.empty())
        fail("checks skipped: the run did not complete");
    m_qk.sync();
    m_finished = true;
    VGPU_INFO(m_log, "workload '%s' %s", m_wl.name.c_str(),
              m_failures.empty() ? "passed" : "FAILED");
    done.notify(sc_core::SC_ZERO_TIME);
}

void driver::pieces_physical(std::uint64_t pa, std::uint8_t* data, std::uint64_t bytes,
                             std::vector<transfer_piece>& out) const
{
    for (std::uint64_t done_bytes = 0; done_bytes < bytes;) {
        const std::uint64_t a = pa + done_bytes;
        // Pieces are aligned to the piece size, so they never cross a line or a page.
        const auto len = static_cast<unsigned>(
            std::min<std::uint64_t>(m_chunk - a % m_chunk, bytes - done_bytes));
        out.push_back({a, data + done_bytes, len});
        done_bytes += len;
    }
}

bool driver::pieces_virtual(std::uint64_t va, std::uint8_t* data, std::uint64_t bytes,
                            std::vector<transfer_piece>& out)
{
    const std::uint64_t page = m_facts.page_bytes;
    // At most a piece per m_chunk bytes and one more per page boundary: room for them at once
    // (a buffer of 64 MiB is half a million pieces).
    const std::size_t most = out.size() + bytes / m_chunk + bytes / page + 2;
    if (out.capacity() < most)
        out.reserve(std::max(most, 2 * out.capacity()));
    for (std::uint64_t done_bytes = 0; done_bytes < bytes;) {
        const std::uint64_t a = va + done_bytes;
        const std::uint64_t len = std::min(page - a % page, bytes - done_bytes);
        const auto pa = m_plan.translate(a, page);
        std::size_t b = 0;
        if (!pa && region_of(a, &b) && (m_plan.buffers[b].on_demand || m_evicted.count(a / page))) {
            // Not on the GPU (never touched, or evicted): the host's copy is the data.
            std::vector<std::uint8_t> copy(page, 0);
            host_copy(b, a / page, copy);
            std::memcpy(data + done_bytes, copy.data() + a % page, len);
            done_bytes += len;
            continue;
        }
        if (!pa) {
            fail("driver bug: virtual address " + hex(a) + " is not mapped");
            return false;
        }
        pieces_physical(*pa, data + done_bytes, len, out);
        done_bytes += len;
    }
    return true;
}

bool driver::transfer(tlm::tlm_command cmd, const std::vector<transfer_piece>& pieces)
{
    const bool read = cmd == tlm::TLM_READ_COMMAND;
    if (m_cfg.load == load_kind::dma) {
        if (!transfer_dma(cmd, pieces, m_qk))
            return false;
    } else {
        for (const transfer_piece& p : pieces) {
            if (dma.debug(cmd, p.pa, p.data, p.len) != p.len) {
                fail(std::string("backdoor ") + (read ? "read" : "write") + " of " +
                     std::to_string(p.len) + " bytes at physical " + hex(p.pa) +
                     " failed (no memory answered for every byte)");
                return false;
            }
        }
    }
    for (const transfer_piece& p : pieces)
        (read ? m_bytes_read : m_bytes_written) += p.len;
    return true;
}

bool driver::transfer_dma(tlm::tlm_command cmd, const std::vector<transfer_piece>& pieces,
                          tlm_utils::tlm_quantumkeeper& qk)
{
    if (pieces.empty())
        return true;
    qk.sync();         // the engine's slots start from simulated time
    m_dma_lock.lock(); // one batch at a time (driver, shadow thread, evictions)
    m_batch = &pieces;
    m_batch_cmd = cmd;
    m_batch_next = m_batch_done = 0;
    m_batch_start = m_batch_end = sc_core::sc_time_stamp();
    m_batch_error.clear();
    m_batch_posted.notify(sc_core::SC_ZERO_TIME);
    sc_core::wait(m_batch_finished);
    m_batch = nullptr;
    m_dma_lock.unlock();
    qk.set(m_batch_end > sc_core::sc_time_stamp() ? m_batch_end - sc_core::sc_time_stamp()
                                                  : sc_core::SC_ZERO_TIME);
    if (!m_batch_error.empty()) {
        fail(m_batch_error);
        return false;
    }
    return true;
}

void driver::dma_engine()
{
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    for (;;) {
        qk.sync();
        while (!m_batch || m_batch_next >= m_batch->size())
            sc_core::wait(m_batch_posted);
        const std::size_t i = m_batch_next++;
        const transfer_piece& p = (*m_batch)[i];
        // The copy engine's port issues one piece per m_piece_interval at most.
        const sc_core::sc_time earliest =
            m_batch_start + sc_core::sc_time::from_value(m_piece_interval.value() * i);
        qk.set(earliest > sc_core::sc_time_stamp() ? earliest - sc_core::sc_time_stamp()
                                                   : sc_core::SC_ZERO_TIME);
        const auto rsp = dma.access(m_batch_cmd, p.pa, p.data, p.len, qk, &m_ext);
        ++m_transactions;
        if (rsp != tlm::TLM_OK_RESPONSE && m_batch_error.empty())
            m_batch_error = std::string("DMA ") +
                            (m_batch_cmd == tlm::TLM_READ_COMMAND ? "read" : "write") + " of " +
                            std::to_string(p.len) + " bytes at physical " + hex(p.pa) +
                            " failed (" + tlm_bus::response_name(rsp) + ")";
        m_batch_end = std::max(m_batch_end, sc_core::sc_time_stamp() + qk.get_local_time());
        if (++m_batch_done == m_batch->size())
            m_batch_finished.notify(sc_core::SC_ZERO_TIME);
    }
}

bool driver::load_memory()
{
    const sc_core::sc_time start = now();
    // Page table: a radix tree of the mapped pages (models/common/page_table.h); its entries,
    // written in runs of consecutive addresses.
    // Pages of read_only buffers are not writable and carry the read-only hint.
    const std::uint64_t page = m_facts.page_bytes;
    for (std::size_t b = 0; b < m_wl.buffers.size(); ++b)
        if (m_wl.buffers[b].read_only)
            for (std::uint64_t v = m_plan.buffers[b].va / page;
                 v * page < m_plan.buffers[b].va + m_plan.buffers[b].bytes; ++v)
                m_read_only.insert(v);
    page_table::builder table(m_plan.ptbr, page);
    for (const auto& [vpn, pa] : m_plan.pages) {
        const bool ro = m_read_only.count(vpn) != 0;
        const auto home =
            static_cast<unsigned>(pa / std::max<std::uint64_t>(1, m_facts.dram_bytes));
        m_leaf[vpn] = table.map(vpn * page, page_table::encode(pa, !ro, ro, home));
    }
    // On_demand pages: not present, their nodes built; the fault handler writes the leaves.
    for (const auto& [vpn, unused] : m_plan.on_demand)
        m_leaf[vpn] = table.map(vpn * page, 0);
    std::vector<std::uint64_t> entries;
    entries.reserve(table.entries().size());
    for (const auto& [pa, raw] : table.entries())
        entries.push_back(raw);
    std::vector<transfer_piece> pieces;
    std::size_t e = 0;
    for (auto it = table.entries().begin(); it != table.entries().end();) {
        auto end = std::next(it);
        std::size_t n = 1;
        while (end != table.entries().end() &&
               end->first == std::prev(end)->first + page_table::entry_bytes) {
            ++end;
            ++n;
        }
        pieces_physical(it->first, reinterpret_cast<std::uint8_t*>(&entries[e]),
                        n * page_table::entry_bytes, pieces);
        e += n;
        it = end;
    }
    // Memory is zero at reset and frames are never reused: zero buffers need no writes.
    // An on_demand buffer's initial data stays staged on the host until its pages fault.
    std::vector<std::vector<std::uint32_t>> words(m_wl.buffers.size());
    m_staged.assign(m_wl.buffers.size(), {});
    for (std::size_t b = 0; b < m_wl.buffers.size(); ++b) {
        const buffer_decl& d = m_wl.buffers[b];
        if (d.init.kind == init_kind::zero)
            continue;
        if (d.on_demand) {
            m_staged[b] = initial_words(d);
            continue;
        }
        words[b] = initial_words(d);
        if (!pieces_virtual(m_plan.buffers[b].va, reinterpret_cast<std::uint8_t*>(words[b].data()),
                            d.bytes(), pieces))
            return false;
    }
    std::vector<std::vector<std::uint8_t>> images;
    images.reserve(3 * m_wl.kernels.size());
    const auto program = [&](const region& r, std::vector<std::uint8_t> image) {
        images.push_back(std::move(image));
        return pieces_virtual(r.va, images.back().data(), images.back().size(), pieces);
    };
    for (std::size_t k = 0; k < m_wl.kernels.size(); ++k) {
        if (!program(m_plan.programs[k], m_wl.kernels[k].image()))
            return false;
        const instrument_plan& ip = m_plan.instrumented[k];
        if (ip.active && (!program(ip.profile_prog, sm::encode_program(ip.profile.code)) ||
                          !program(ip.traced_prog, sm::encode_program(ip.traced.code))))
            return false;
    }
    if (!transfer(tlm::TLM_WRITE_COMMAND, pieces))
        return false;
    // The checks' references, while the initial words are at hand: run_checks does not
    // generate them a second time (host time only; simulated time does not move).
    m_expected = expected_all(m_wl, std::move(words));
    m_qk.sync();
    m_load_time = sc_core::sc_time_stamp() - start;
    VGPU_INFO(m_log, "loaded %" PRIu64 " bytes in %s (%zu pages mapped, page table at %s)",
              m_bytes_written.value(), m_load_time.to_string().c_str(), m_plan.pages.size(),
              hex(m_plan.ptbr).c_str());
    return true;
}

bool driver::mmio_write(std::uint64_t addr, std::uint32_t value, tlm_utils::tlm_quantumkeeper& qk,
                        const char* window)
{
    const auto rsp = mmio.access(tlm::TLM_WRITE_COMMAND, addr, &value, 4, qk);
    if (rsp != tlm::TLM_OK_RESPONSE) {
        fail("MMIO write of " + hex(value) + " to " + window + " register " + hex(addr) +
             " failed (" + tlm_bus::response_name(rsp) + ")");
        return false;
    }
    return true;
}

std::uint32_t driver::mmio_read(std::uint64_t addr, tlm_utils::tlm_quantumkeeper& qk,
                                const char* window, bool* ok)
{
    std::uint32_t v = 0;
    const auto rsp = mmio.access(tlm::TLM_READ_COMMAND, addr, &v, 4, qk);
    if (rsp != tlm::TLM_OK_RESPONSE)
        fail(std::string("MMIO read of ") + window + " register " + hex(addr) + " failed (" +
             tlm_bus::response_name(rsp) + ")");
    if (ok)
        *ok = rsp == tlm::TLM_OK_RESPONSE;
    return v;
}

bool driver::reg_write(std::uint64_t off, std::uint32_t value)
{
    return mmio_write(m_facts.cp_base + off, value, m_qk, "CP");
}

std::uint32_t driver::reg_read(std::uint64_t off, bool* ok)
{
    return mmio_read(m_facts.cp_base + off, m_qk, "CP", ok);
}

bool driver::set_up_cp(bool program)
{
    namespace reg = cp::reg;
    bool ok = true;
    const std::uint32_t queues = reg_read(reg::NUM_QUEUES, &ok);
    if (!ok)
        return false;
    std::size_t widest = 0;
    for (const auto& ph : m_wl.schedule)
        widest = std::max(widest, ph.size());
    if (widest > queues) {
        fail("a schedule phase runs " + std::to_string(widest) + " kernels but the CP has " +
             std::to_string(queues) + " queues");
        return false;
    }
    const std::uint32_t num_sms = reg_read(reg::NUM_SMS, &ok);
    if (!ok)
        return false;
    for (const auto& e : check_against_platform(m_wl, num_sms, ~0u))
        fail(e);
    if (!m_failures.empty())
        return false;
    m_num_sms = num_sms;
    if (!program)
        return true;
    const std::uint32_t enable =
        widest >= 32 ? ~0u : static_cast<std::uint32_t>((1ull << widest) - 1);
    return reg_write(reg::PTBR_LO, static_cast<std::uint32_t>(m_plan.ptbr)) &&
           reg_write(reg::PTBR_HI, static_cast<std::uint32_t>(m_plan.ptbr >> 32)) &&
           reg_write(reg::IRQ_ENABLE, enable);
}

bool driver::set_up_trace()
{
    namespace r = shader_trace::trace_reg;
    if (m_facts.trace_base == 0)
        return true;
    const std::uint64_t bytes = m_facts.trace_region_bytes;
    // Physically contiguous on module 0, after everything the workload placed there.
    if (m_placer.next(0) + bytes > m_facts.dram_bytes) {
        fail("the shader-trace region (shader_trace.region_bytes = " + std::to_string(bytes) +
             " bytes) does not fit in module 0's DRAM after the workload's memory (" +
             std::to_string(m_placer.next(0)) + " of " + std::to_string(m_facts.dram_bytes) +
             " bytes used)");
        return false;
    }
    m_trace_pa = m_placer.reserve(0, bytes);
    const auto w = [&](std::uint64_t off, std::uint32_t v) {
        return mmio_write(m_facts.trace_base + off, v, m_qk, "shader-trace");
    };
    const auto watermark = static_cast<std::uint64_t>(
        std::floor(m_facts.trace_watermark * static_cast<double>(bytes)));
    VGPU_INFO(m_log, "shader trace: %llu-byte region at physical %s",
              static_cast<unsigned long long>(bytes), hex(m_trace_pa).c_str());
    return w(r::BASE_LO, static_cast<std::uint32_t>(m_trace_pa)) &&
           w(r::BASE_HI, static_cast<std::uint32_t>(m_trace_pa >> 32)) &&
           w(r::SIZE, static_cast<std::uint32_t>(bytes)) &&
           w(r::MODE, m_facts.trace_wrap ? 1 : 0) &&
           w(r::WATERMARK, static_cast<std::uint32_t>(watermark)) && w(r::ENABLE, 1);
}

bool driver::save_trace()
{
    namespace r = shader_trace::trace_reg;
    namespace st = shader_trace::trace_status;
    bool ok = true;
    const auto rd = [&](std::uint64_t off) {
        return mmio_read(m_facts.trace_base + off, m_qk, "shader-trace", &ok);
    };
    const auto w = [&](std::uint64_t off, std::uint32_t v) {
        return mmio_write(m_facts.trace_base + off, v, m_qk, "shader-trace");
    };
    // Flush the partial groups, then poll until the buffer is drained into memory.
    if (!w(r::FLUSH, 1))
        return false;
    const sc_core::sc_time poll(100, sc_core::SC_NS);
    const sc_core::sc_time deadline = now() + sc_core::sc_time::from_value(m_cfg.kernel_timeout.ps);
    std::uint32_t status = rd(r::STATUS);
    while (ok && !(status & st::IDLE)) {
        if (now() > deadline) {
            fail("the shader-trace unit did not drain within host.kernel_timeout after FLUSH");
            return false;
        }
        m_qk.inc(poll);
        m_qk.sync();
        status = rd(r::STATUS);
    }
    shader_trace::image im;
    im.tokens_per_group = rd(r::GROUP_TOKENS);
    im.cycle_ps = rd(r::CLOCK_PS);
    const std::uint32_t sources = rd(r::SOURCES);
    for (std::uint32_t s = 0; ok && s < sources; ++s) {
        if (!w(r::SRC_SEL, s))
            return false;
        const std::uint32_t info = rd(r::SRC_INFO);
        shader_trace::source_info si;
        si.kind = static_cast<shader_trace::source_kind>(info & 0xff);
        si.sm = info >> 8;
        si.dropped_tokens = rd(r::DROPPED_LO) | std::uint64_t{rd(r::DROPPED_HI)} << 32;
        im.sources.push_back(si);
    }
    const std::uint64_t size = m_facts.trace_region_bytes;
    const std::uint64_t wptr = rd(r::WPTR);
    if (!ok)
        return false;
    // Oldest group first: from BASE, or from WPTR once the region has wrapped.
    std::vector<std::uint8_t> bytes(status & st::WRAPPED ? size : wptr);
    std::vector<transfer_piece> pieces;
    if (status & st::WRAPPED) {
        pieces_physical(m_trace_pa + wptr, bytes.data(), size - wptr, pieces);
        pieces_physical(m_trace_pa, bytes.data() + (size - wptr), wptr, pieces);
    } else {
        pieces_physical(m_trace_pa, bytes.data(), wptr, pieces);
    }
    if (!transfer(tlm::TLM_READ_COMMAND, pieces))
        return false;
    im.tokens.resize(bytes.size() / 8);
    for (std::size_t i = 0; i < im.tokens.size(); ++i)
        for (unsigned b = 0; b < 8; ++b)
            im.tokens[i] |= std::uint64_t{bytes[8 * i + b]} << (8 * b);
    m_trace_image = shader_trace::encode_image(im);
    VGPU_INFO(m_log, "shader trace: %zu tokens from %u sources%s", im.tokens.size(), sources,
              status & st::FULL ? " (the region filled up: later groups were dropped)" : "");
    return true;
}

bool driver::launch(unsigned phase, unsigned q, const kernel_decl& k, const launch_variant* v)
{
    namespace reg = cp::reg;
    const auto ki = static_cast<std::size_t>(m_wl.kernel_index(k.name));
    const region& prog = v && v->prog ? *v->prog : m_plan.programs[ki];
    const std::size_t extra = v ? v->extra.size() : 0;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> writes = {
        {reg::PROG_ADDR, static_cast<std::uint32_t>(prog.va)},
        {reg::PROG_BYTES, static_cast<std::uint32_t>(prog.bytes)},
        {reg::GRID_X, k.grid_x},
        {reg::GRID_Y, k.grid_y},
        {reg::BLOCK_X, k.block_x},
        {reg::BLOCK_Y, k.block_y},
        {reg::SM_FIRST, k.sms.first},
        {reg::SM_COUNT, k.sms.count},
        {reg::NPARAMS, static_cast<std::uint32_t>(k.params.size() + extra)}};
    if (k.sms.count == 0) {
        bool ok = true;
        const std::uint32_t num_sms = reg_read(reg::NUM_SMS, &ok);
        if (!ok)
            return false;
        writes[7].second = num_sms - k.sms.first;
    }
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        const kernel_param& p = k.params[i];
        std::uint32_t v = p.bits;
        if (p.is_buffer)
            v = static_cast<std::uint32_t>(
                m_plan.buffers[static_cast<std::size_t>(m_wl.buffer_index(p.buffer))].va);
        writes.emplace_back(reg::PARAM0 + 4 * i, v);
    }
    for (std::size_t i = 0; i < extra; ++i)
        writes.emplace_back(reg::PARAM0 + 4 * (k.params.size() + i), v->extra[i]);
    for (const auto& [off, value] : writes)
        if (!reg_write(reg::queue(q, off), value))
            return false;
    if (!program_cbvs(k))
        return false;
    // The kernel's LLC organisation: ARCH, then CHANGE (models/llc/README.md).
    if (k.llc && m_facts.llc_switch_base != 0 &&
        !(mmio_write(m_facts.llc_switch_base + llc::switch_reg::ARCH,
                     *k.llc == llc::llc_org::private_org ? 1u : 0u, m_qk, "LLC switcher") &&
          mmio_write(m_facts.llc_switch_base + llc::switch_reg::CHANGE, 1, m_qk, "LLC switcher")))
        return false;
    kernel_run r;
    r.name = v ? v->record : k.name;
    r.phase = phase;
    r.queue = q;
    r.sm_first = k.sms.first;
    r.sm_count = writes[7].second;
    r.start = now();
    r.start_mark = mark();
    if (!reg_write(reg::queue(q, reg::LAUNCH), 1))
        return false;
    ++m_kernels;
    // The CP numbers accepted launches from 1 (its KERNEL_SEQ): trace.json names them.
    trace::recorder::instance().name_kernel(static_cast<std::uint32_t>(m_kernels.value()), k.name);
    VGPU_INFO(m_log, "phase %u: launched '%s' on queue %u (grid %ux%u, block %ux%u, SMs %u+%u)",
              phase, r.name.c_str(), q, k.grid_x, k.grid_y, k.block_x, k.block_y, k.sms.first,
              writes[7].second);
    m_runs.push_back(r);
    return true;
}

void driver::report_kernel_error(kernel_run& r, const kernel_decl& k)
{
    namespace reg = cp::reg;
    const unsigned q = r.queue;
    const std::uint32_t cause = reg_read(reg::queue(q, reg::ERROR_CAUSE));
    const std::uint32_t sm = reg_read(reg::queue(q, reg::ERROR_SM));
    const std::uint32_t warp = reg_read(reg::queue(q, reg::ERROR_WARP));
    const std::uint32_t pc = reg_read(reg::queue(q, reg::ERROR_PC));
    const std::uint64_t va = reg_read(reg::queue(q, reg::ERROR_VADDR_LO)) |
                             std::uint64_t{reg_read(reg::queue(q, reg::ERROR_VADDR_HI))} << 32;
    std::string msg;
    for (unsigned i = 0; i < reg::ERROR_MSG_BYTES; i += 4) {
        const std::uint32_t w = reg_read(reg::queue(q, reg::ERROR_MSG + i));
        for (unsigned b = 0; b < 4; ++b) {
            const char c = static_cast<char>(w >> (8 * b));
            if (c == 0)
                i = reg::ERROR_MSG_BYTES;
            else if (i < reg::ERROR_MSG_BYTES)
                msg += c;
            if (c == 0)
                break;
        }
    }
    static const char* const causes[] = {"none", "bad launch", "CTA fault", "SM refused a CTA"};
    std::string text = "kernel '" + k.name + "' (phase " + std::to_string(r.phase) + ", queue " +
                       std::to_string(q) + ") failed: " +
                       (cause < 4 ? causes[cause] : "cause " + std::to_string(cause));
    if (cause != static_cast<std::uint32_t>(cp::error_cause::bad_launch)) {
        text += " on SM " + std::to_string(sm) + ", warp " + std::to_string(warp) + ", PC " +
                std::to_string(pc);
        if (pc < k.lines.size())
            text += " (" + m_wl.file + ":" + std::to_string(k.lines[pc]) + ")";
        if (va != 0) // faults that are not about an address (e.g. illegal instruction) have none
            text += ", VA " + hex(va);
    }
    if (!msg.empty())
        text += ": " + msg;
    fail(text);
}

bool driver::run_phase(unsigned p)
{
    const auto& phase = m_wl.schedule[p];
    const std::size_t first_run = m_runs.size();
    m_phases.push_back({});
    m_phases.back().index = p;
    // Seed 002: an instrumented kernel (alone in its phase) runs its profiling launch first.
    std::vector<launch_variant> variants(phase.size());
    for (unsigned q = 0; q < phase.size(); ++q)
        if (m_plan.instrumented[phase[q]].active && !profile_kernel(p, phase[q], variants[q]))
            return false;
    const std::size_t first_launch = m_runs.size();
    std::uint32_t pending = 0;
    std::vector<const kernel_decl*> kernels;
    for (unsigned q = 0; q < phase.size(); ++q) {
        const kernel_decl& k = m_wl.kernels[phase[q]];
        if (!launch(p, q, k, variants[q].prog ? &variants[q] : nullptr))
            return false;
        m_phases.back().kernels.push_back(m_runs.size() - 1);
        kernels.push_back(&k);
        pending |= 1u << q;
    }
    m_phases.back().start = m_runs[first_run].start;
    m_phases.back().start_mark = m_runs[first_run].start_mark;
    for (const evict_decl& e : m_wl.evictions)
        if (e.phase == p) {
            const sc_core::sc_time at =
                m_phases.back().start +
                sc_core::sc_time(static_cast<double>(e.after_ns), sc_core::SC_NS);
            const auto b = static_cast<std::size_t>(m_wl.buffer_index(e.buffer));
            sc_core::sc_spawn(
                [this, at, b] {
                    if (at > sc_core::sc_time_stamp())
                        sc_core::wait(at - sc_core::sc_time_stamp());
                    evict(b);
                },
                sc_core::sc_gen_unique_name("evict"));
        }
    if (!wait_launches(p, first_launch, pending, kernels))
        return false;
    for (unsigned q = 0; q < phase.size(); ++q)
        if (variants[q].prog && !collect_trace(phase[q]))
            return false;
    return true;
}

bool driver::wait_launches(unsigned p, std::size_t first_run, std::uint32_t pending,
                           const std::vector<const kernel_decl*>& kernels)
{
    namespace reg = cp::reg;
    m_qk.sync();
    const sc_core::sc_time deadline =
        sc_core::sc_time_stamp() + sc_core::sc_time::from_value(m_cfg.kernel_timeout.ps);
    bool ok = true;
    while (pending != 0) {
        if (!irq.read()) {
            if (sc_core::sc_time_stamp() >= deadline) {
                break;
            }
            sc_core::wait(deadline - sc_core::sc_time_stamp(), irq.posedge_event());
            continue;
        }
        m_qk.reset();
        bool rok = true;
        const std::uint32_t status = reg_read(reg::IRQ_STATUS, &rok);
        if (!rok)
            return false;
        if ((status & pending) == 0) {
            // The level has not dropped yet after our last clear: wait until it does.
            if (status != 0 && !reg_write(reg::IRQ_STATUS, status))
                return false;
            m_qk.sync();
            if (irq.read())
                sc_core::wait(deadline - std::min(deadline, sc_core::sc_time_stamp()),
                              irq.negedge_event());
            if (sc_core::sc_time_stamp() >= deadline)
                break;
            continue;
        }
        for (unsigned q = 0; q < kernels.size(); ++q) {
            if (!((status & pending) >> q & 1))
                continue;
            kernel_run& r = m_runs[first_run + q];
            r.end = now();
            r.ended = true;
            r.end_mark = mark();
            phase_run& ph = m_phases.back();
            ph.end = r.end;
            ph.end_mark = r.end_mark;
            const std::uint32_t st = reg_read(reg::queue(q, reg::STATUS));
            r.ok = st == static_cast<std::uint32_t>(cp::queue_status::done);
            const kernel_decl& k = *kernels[q];
            m_kernel_time.at(r.name)->sample((r.end - r.start).to_seconds() * 1e9);
            if (!r.ok) {
                if (st == static_cast<std::uint32_t>(cp::queue_status::error))
                    report_kernel_error(r, k);
                else
                    fail("kernel '" + r.name + "' interrupted with STATUS " + std::to_string(st));
                ok = false;
            } else {
                VGPU_INFO(m_log, "phase %u: '%s' done in %.1f ns", p, r.name.c_str(),
                          (r.end - r.start).to_seconds() * 1e9);
            }
        }
        pending &= ~status;
        m_phases.back().ended = pending == 0;
        if (!reg_write(reg::IRQ_STATUS, status))
            return false;
        m_qk.sync();
    }
    if (pending != 0) {
        for (unsigned q = 0; q < kernels.size(); ++q)
            if (pending >> q & 1)
                fail("kernel '" + m_runs[first_run + q].name + "' (phase " + std::to_string(p) +
                     ") did not finish within host.kernel_timeout (" +
                     format(m_cfg.kernel_timeout) + ")");
        return false;
    }
    return ok;
}

bool driver::move_virtual(tlm::tlm_command cmd, std::uint64_t va, std::uint8_t* data,
                          std::uint64_t bytes)
{
    std::vector<transfer_piece> pieces;
    return pieces_virtual(va, data, bytes, pieces) && transfer(cmd, pieces);
}

bool driver::trace_save(std::size_t ki)
{
    const kernel_decl& k = m_wl.kernels[ki];
    const instrument_plan& ip = m_plan.instrumented[ki];
    // The profiling launch must not change what the traced launch reads: save the kernel's
    // buffers (parameters and CBVs) and restore them afterwards.
    std::set<std::size_t> used;
    for (const kernel_param& prm : k.params)
        if (prm.is_buffer)
            used.insert(static_cast<std::size_t>(m_wl.buffer_index(prm.buffer)));
    for (const cbv_binding& c : k.cbvs)
        used.insert(static_cast<std::size_t>(m_wl.buffer_index(c.buffer)));
    m_trace_saved.clear();
    for (std::size_t b : used) {
        m_trace_saved.emplace_back(b, std::vector<std::uint8_t>(m_wl.buffers[b].bytes()));
        if (!move_virtual(tlm::TLM_READ_COMMAND, m_plan.buffers[b].va,
                          m_trace_saved.back().second.data(), m_trace_saved.back().second.size()))
            return false;
    }
    std::vector<std::uint8_t> zeros(ip.control.bytes, 0);
    return move_virtual(tlm::TLM_WRITE_COMMAND, ip.control.va, zeros.data(), zeros.size());
}

bool driver::trace_size(std::size_t ki)
{
    using shader_trace::record_type;
    const kernel_decl& k = m_wl.kernels[ki];
    const instrument_plan& ip = m_plan.instrumented[ki];
    // The counters: executions per block, summed over threads; the sizes (the pre-pass).
    const std::size_t blocks = ip.profile.blocks.size();
    std::vector<std::uint32_t> counts(blocks);
    if (!move_virtual(tlm::TLM_READ_COMMAND, ip.control.va,
                      reinterpret_cast<std::uint8_t*>(counts.data()), 4 * blocks))
        return false;
    const std::vector<std::uint64_t> executions(counts.begin(), counts.end());
    m_trace_bytes = shader_trace::buffer_sizes(ip.traced.records, executions);
    for (unsigned t = 0; t < shader_trace::record_types; ++t) {
        const auto type = static_cast<record_type>(t);
        const bool on = type == record_type::control ? k.instrument.control : k.instrument.memory;
        if (!on)
            continue;
        // host.instrument_undersize (tests) takes records off the exact size.
        const std::uint64_t cut =
            std::uint64_t{m_cfg.instrument_undersize} * shader_trace::record_bytes(type);
        m_trace_bytes[t] -= std::min(cut, m_trace_bytes[t]);
        const std::uint64_t bytes = m_trace_bytes[t];
        if (bytes > ip.window[t].bytes) {
            fail("kernel '" + k.name + "': its " + (t == 0 ? "control" : "memory") +
                 " trace buffer needs " + std::to_string(bytes) +
                 " bytes, more than host.instrument_bytes (" + std::to_string(ip.window[t].bytes) +
                 ")");
            return false;
        }
        m_instrument_bytes[t] += bytes;
    }
    return true;
}

bool driver::trace_restore()
{
    for (auto& [b, data] : m_trace_saved)
        if (!move_virtual(tlm::TLM_WRITE_COMMAND, m_plan.buffers[b].va, data.data(), data.size()))
            return false;
    m_trace_saved.clear();
    return true;
}

bool driver::profile_kernel(unsigned p, std::size_t ki, launch_variant& v)
{
    using shader_trace::record_type;
    const kernel_decl& k = m_wl.kernels[ki];
    const instrument_plan& ip = m_plan.instrumented[ki];
    if (!trace_save(ki))
        return false;
    launch_variant prof{
        &ip.profile_prog, {static_cast<std::uint32_t>(ip.control.va)}, k.name + ".profile"};
    const std::size_t first = m_runs.size();
    if (!launch(p, 0, k, &prof))
        return false;
    m_phases.back().kernels.push_back(first);
    if (!wait_launches(p, first, 1, {&k}) || !trace_size(ki))
        return false;
    // Map exactly the pages each buffer needs, in its window (the rest stays unmapped).
    const std::uint64_t page = m_facts.page_bytes;
    const std::size_t blocks = ip.profile.blocks.size();
    const unsigned touch = k.sms.first / std::max(1u, m_facts.sms_per_module);
    v = {&ip.traced_prog, {}, k.name};
    for (unsigned t = 0; t < shader_trace::record_types; ++t) {
        const auto type = static_cast<record_type>(t);
        const bool on = type == record_type::control ? k.instrument.control : k.instrument.memory;
        if (!on)
            continue;
        const std::uint64_t bytes = m_trace_bytes[t];
        const region& w = ip.window[t];
        for (std::uint64_t off = 0; off < bytes; off += page) {
            const std::uint64_t vpn = (w.va + off) / page;
            const unsigned m = m_placer.home(vpn, touch);
            const std::optional<std::uint64_t> pa = m_placer.frame(m);
            if (!pa) {
                fail("kernel '" + k.name + "': no free frame for its trace buffers");
                return false;
            }
            if (!set_pte(w.va + off, page_table::encode(*pa, true, false, m), m_qk))
                return false;
            m_plan.pages[vpn] = *pa;
        }
        const std::uint64_t pointer = ip.control.va + 4 * (blocks + t);
        v.extra.push_back(static_cast<std::uint32_t>(w.va));
        v.extra.push_back(static_cast<std::uint32_t>(pointer));
        v.extra.push_back(static_cast<std::uint32_t>(bytes));
    }
    m_plan.bytes_per_module = m_placer.bytes_per_module();
    return trace_restore();
}

bool driver::collect_trace(std::size_t ki)
{
    using shader_trace::record_type;
    const kernel_decl& k = m_wl.kernels[ki];
    const instrument_plan& ip = m_plan.instrumented[ki];
    const std::size_t blocks = ip.profile.blocks.size();
    std::vector<shader_trace::typed_buffer> buffers;
    bool ok = true;
    for (unsigned t = 0; t < shader_trace::record_types; ++t) {
        const auto type = static_cast<record_type>(t);
        const bool on = type == record_type::control ? k.instrument.control : k.instrument.memory;
        if (!on)
            continue;
        std::uint32_t pointer = 0;
        if (!move_virtual(tlm::TLM_READ_COMMAND, ip.control.va + 4 * (blocks + t),
                          reinterpret_cast<std::uint8_t*>(&pointer), 4))
            return false;
        const std::uint64_t capacity = m_trace_bytes[t];
        const std::uint64_t refused = refused_records(type, pointer, capacity);
        const std::uint64_t used = std::min<std::uint64_t>(pointer, capacity);
        std::vector<std::uint8_t> data(used);
        if (!move_virtual(tlm::TLM_READ_COMMAND, ip.window[t].va, data.data(), used))
            return false;
        buffers.push_back(
            shader_trace::typed_buffer::from_bytes(type, std::move(data), capacity, refused));
        m_instrument_records[t] += used / shader_trace::record_bytes(type);
        m_instrument_refused[t] += refused;
        if (refused != 0) {
            fail("kernel '" + k.name + "': " + std::to_string(refused) + " " +
                 (t == 0 ? "control" : "memory") + " records did not fit their buffer of " +
                 std::to_string(capacity) + " bytes and were not written");
            ok = false;
        }
    }
    std::string err;
    const std::vector<shader_trace::record> merged = shader_trace::merge(buffers, err);
    if (!err.empty()) {
        fail("kernel '" + k.name + "': its trace buffers do not parse: " + err);
        return false;
    }
    m_instrumented_csv = trace_csv(merged);
    VGPU_INFO(m_log, "kernel '%s': %zu trace records merged", k.name.c_str(), merged.size());
    return ok;
}

void driver::run_checks()
{
    for (std::size_t i = 0; i < m_wl.checks.size(); ++i) {
        const check_decl& c = m_wl.checks[i];
        const std::string what =
            "check " + std::to_string(i) + " of buffer '" + c.buffer + "' (" +
            (c.kind == check_kind::reference ? "reference " + c.reference : std::string("expect")) +
            ")";
        const reference_result& exp = m_expected.at(i);
        if (!exp.ok()) {
            ++m_checks_failed;
            fail(what + ": the reference cannot be computed: " + exp.error);
            continue;
        }
        const auto bi = static_cast<std::size_t>(m_wl.buffer_index(c.buffer));
        const buffer_decl& b = m_wl.buffers[bi];
        std::vector<std::uint32_t> got(b.elements);
        std::vector<transfer_piece> pieces;
        if (!pieces_virtual(m_plan.buffers[bi].va, reinterpret_cast<std::uint8_t*>(got.data()),
                            b.bytes(), pieces) ||
            !transfer(tlm::TLM_READ_COMMAND, pieces)) {
            ++m_checks_failed;
            continue;
        }
        const comparison cmp = compare(exp.words, got, b.type, c.tol, m_cfg.max_mismatches);
        if (cmp.ok()) {
            ++m_checks_passed;
            VGPU_INFO(m_log, "%s passed (%" PRIu64 " elements)", what.c_str(), b.elements);
            continue;
        }
        ++m_checks_failed;
        std::string text = what + ": " + std::to_string(cmp.mismatches) + " of " +
                           std::to_string(b.elements) + " elements differ;";
        for (const auto& m : cmp.first)
            text +=
                " [" + std::to_string(m.index) + "] expected " + m.expected + " got " + m.got + ";";
        text.pop_back();
        fail(text);
    }
    m_qk.sync();
}

// ---- page faults (seed 003) ----

const region* driver::region_of(std::uint64_t va, std::size_t* buffer) const
{
    for (std::size_t b = 0; b < m_plan.buffers.size(); ++b)
        if (m_plan.buffers[b].contains(va)) {
            if (buffer)
                *buffer = b;
            return &m_plan.buffers[b];
        }
    for (const region& r : m_plan.programs)
        if (r.contains(va))
            return &r;
    return nullptr;
}

bool driver::host_copy(std::size_t b, std::uint64_t vpn, std::vector<std::uint8_t>& out) const
{
    const std::uint64_t page = m_facts.page_bytes;
    out.assign(page, 0);
    if (const auto it = m_evicted.find(vpn); it != m_evicted.end()) {
        out = it->second;
        return true;
    }
    const std::vector<std::uint32_t>& words = m_staged[b];
    if (words.empty())
        return false;
    const std::uint64_t off = vpn * page - m_plan.buffers[b].va;
    const std::uint64_t bytes = words.size() * 4;
    if (off < bytes)
        std::memcpy(out.data(), reinterpret_cast<const std::uint8_t*>(words.data()) + off,
                    std::min(page, bytes - off));
    return true;
}

std::uint32_t driver::fault_read(std::uint64_t off, tlm_utils::tlm_quantumkeeper& qk)
{
    return mmio_read(m_facts.fault_base + off, qk, "fault-unit");
}

bool driver::fault_write(std::uint64_t off, std::uint32_t value, tlm_utils::tlm_quantumkeeper& qk)
{
    return mmio_write(m_facts.fault_base + off, value, qk, "fault-unit");
}

bool driver::set_pte(std::uint64_t va, std::uint64_t raw, tlm_utils::tlm_quantumkeeper& qk)
{
    namespace reg = cp::reg;
    const std::uint64_t page = m_facts.page_bytes;
    const auto leaf = m_leaf.find(va / page);
    if (leaf == m_leaf.end()) {
        fail("driver bug: no page-table leaf for VA " + hex(va));
        return false;
    }
    const auto rsp = dma.access(tlm::TLM_WRITE_COMMAND, leaf->second, &raw, sizeof raw, qk, &m_ext);
    if (rsp != tlm::TLM_OK_RESPONSE) {
        fail("PTE write at physical " + hex(leaf->second) + " failed (" +
             tlm_bus::response_name(rsp) + ")");
        return false;
    }
    m_bytes_written += sizeof raw;
    // (5) Stale translations of the page go (a TLB never holds a not-present entry, but the
    // page may have been mapped to another frame before an eviction).
    const std::uint64_t first = va / page * page;
    return mmio_write(m_facts.cp_base + reg::TLB_INV_VA_LO, static_cast<std::uint32_t>(first), qk,
                      "CP") &&
           mmio_write(m_facts.cp_base + reg::TLB_INV_VA_HI, static_cast<std::uint32_t>(first >> 32),
                      qk, "CP") &&
           mmio_write(m_facts.cp_base + reg::TLB_INV_BYTES, static_cast<std::uint32_t>(page), qk,
                      "CP") &&
           mmio_write(m_facts.cp_base + reg::TLB_INVALIDATE, 1, qk, "CP");
}

void driver::shadow_thread()
{
    namespace fr = tlb::fault_reg;
    tlm_utils::tlm_quantumkeeper& qk = m_sqk;
    qk.reset();
    if (!fault_write(fr::IRQ_ENABLE, 1, qk))
        return;
    qk.sync();
    for (unsigned idle = 0;;) {
        // (1) The blocking read: asleep until the fault buffer holds records.
        if (!fault_irq.read()) {
            sc_core::wait(fault_irq.posedge_event());
            continue;
        }
        qk.reset();
        const std::uint32_t count = fault_read(fr::COUNT, qk);
        if (count == 0) {
            // The level drops a delta after the last pop; give it that delta (and a
            // nanosecond once in a while, should a late pop still be on its way).
            qk.sync();
            sc_core::wait(++idle % 64 == 0 ? sc_core::sc_time(1, sc_core::SC_NS)
                                           : sc_core::SC_ZERO_TIME);
            continue;
        }
        idle = 0;
        const sc_core::sc_time start = sc_core::sc_time_stamp() + qk.get_local_time();
        // A member, not a local: a run may end while this thread waits mid-round.
        std::vector<fault_entry>& batch = m_round;
        batch.assign(std::min(count, m_cfg.fault_batch), fault_entry{});
        for (fault_entry& f : batch) {
            f.va = fault_read(fr::VA_LO, qk) | std::uint64_t{fault_read(fr::VA_HI, qk)} << 32;
            f.sm = fault_read(fr::SM, qk);
            f.warp = fault_read(fr::WARP, qk);
            f.pc = fault_read(fr::PC, qk);
            f.info = fault_read(fr::INFO, qk);
            fault_write(fr::POP, 1, qk);
        }
        m_fault_records += batch.size();
        ++m_fault_batches;
        qk.inc(sc_core::sc_time::from_value(m_cfg.fault_latency.ps));
        qk.sync();
        m_mm_lock.lock();
        for (const fault_entry& f : batch) {
            std::uint32_t reason = 0;
            const std::uint32_t ack = service(f, reason);
            if (ack == 2)
                fault_write(fr::ACK_REASON, reason, qk);
            // (6) The answer: the accesses waiting on the page replay (or fail).
            fault_write(fr::ACK_VA_LO, static_cast<std::uint32_t>(f.va), qk);
            fault_write(fr::ACK_VA_HI, static_cast<std::uint32_t>(f.va >> 32), qk);
            fault_write(fr::ACK, ack, qk);
        }
        m_mm_lock.unlock();
        m_service_time.sample(
            (sc_core::sc_time_stamp() + qk.get_local_time() - start).to_seconds() * 1e9);
        qk.sync(); // (7) back to the blocking read
    }
}

std::uint32_t driver::service(const fault_entry& f, std::uint32_t& reason)
{
    using tlb::fault_reason;
    // (2) Only a page fault is serviced; anything else takes the other-exception path: the
    // accesses fail and the kernel reports it.
    if ((f.info >> 8 & 0xff) != 0) {
        ++m_fatal_faults;
        reason = static_cast<std::uint32_t>(fault_reason::not_a_fault);
        return 2;
    }
    const bool write = (f.info & 0xff) == static_cast<std::uint32_t>(tlb::fault_access::store);
    // (3) The same access in the host's view of the shared address space: a page that is
    // resident there needs nothing (another record of the batch mapped it).
    const std::uint64_t vpn = f.va / m_facts.page_bytes;
    std::uint32_t r = 0;
    if (m_plan.pages.count(vpn) == 0)
        r = map_page(f.va, write, f.sm); // (4) it faults: the host's page-fault handler
    else if (write && m_read_only.count(vpn))
        r = static_cast<std::uint32_t>(fault_reason::read_only);
    if (r == 0)
        return 1;
    ++m_fatal_faults;
    reason = r;
    VGPU_DEBUG(m_log, "fault at VA %s refused: %s", hex(f.va).c_str(),
               tlb::reason_text(static_cast<fault_reason>(r)));
    return 2;
}

std::uint32_t driver::map_page(std::uint64_t va, bool write, unsigned sm)
{
    using tlb::fault_reason;
    const std::uint64_t page = m_facts.page_bytes;
    const std::uint64_t vpn = va / page;
    std::size_t b = 0;
    const region* r = region_of(va, &b);
    if (!r || (!r->on_demand && m_evicted.count(vpn) == 0) || r < m_plan.buffers.data() ||
        r >= m_plan.buffers.data() + m_plan.buffers.size())
        return static_cast<std::uint32_t>(fault_reason::not_mapped);
    const bool ro = m_read_only.count(vpn) != 0;
    if (write && ro)
        return static_cast<std::uint32_t>(fault_reason::read_only);
    // Placement: first touch is the module of the SM whose access faulted first.
    const unsigned touch = sm / std::max(1u, m_facts.sms_per_module);
    const unsigned m = m_placer.home(vpn, touch);
    const std::optional<std::uint64_t> pa = m_placer.frame(m);
    if (!pa)
        return static_cast<std::uint32_t>(fault_reason::memory_full);
    // Fill: the staged initial data or the evicted copy, by DMA (a new frame reads as zero).
    std::vector<std::uint8_t> data;
    if (host_copy(b, vpn, data)) {
        std::vector<transfer_piece> pieces;
        pieces_physical(*pa, data.data(), page, pieces);
        if (!transfer_dma(tlm::TLM_WRITE_COMMAND, pieces, m_sqk))
            return static_cast<std::uint32_t>(fault_reason::memory_full);
        m_bytes_written += page;
    }
    if (!set_pte(va, page_table::encode(*pa, !ro, ro, m), m_sqk))
        return static_cast<std::uint32_t>(fault_reason::not_mapped);
    m_plan.pages[vpn] = *pa;
    m_plan.bytes_per_module = m_placer.bytes_per_module();
    m_evicted.erase(vpn);
    ++m_fault_services;
    return 0;
}

void driver::evict(std::size_t b)
{
    namespace reg = cp::reg;
    const std::uint64_t page = m_facts.page_bytes;
    const region& r = m_plan.buffers[b];
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    m_mm_lock.lock();
    std::vector<std::uint64_t> vpns;
    for (auto it = m_plan.pages.lower_bound(r.va / page);
         it != m_plan.pages.end() && it->first * page < r.va + r.bytes; ++it)
        vpns.push_back(it->first);
    // Unmap first, so that no access reaches the old frames after the copy: clear the PTEs,
    // shoot the buffer's range down, give accesses translated before it time to land, copy.
    for (std::uint64_t vpn : vpns)
        if (!set_pte(vpn * page, 0, qk)) {
            m_mm_lock.unlock();
            return;
        }
    qk.inc(sc_core::sc_time(evict_drain_ns, sc_core::SC_NS));
    copy_out(vpns, b, qk, "");
    qk.sync();
    m_mm_lock.unlock();
}

void driver::copy_out(const std::vector<std::uint64_t>& vpns, std::size_t b,
                      tlm_utils::tlm_quantumkeeper& qk, const char* by)
{
    const std::uint64_t page = m_facts.page_bytes;
    std::vector<transfer_piece> pieces;
    for (std::uint64_t vpn : vpns)
        m_evicted[vpn].assign(page, 0);
    for (std::uint64_t vpn : vpns)
        pieces_physical(m_plan.pages.at(vpn), m_evicted[vpn].data(), page, pieces);
    if (transfer_dma(tlm::TLM_READ_COMMAND, pieces, qk))
        m_bytes_read += vpns.size() * page;
    for (std::uint64_t vpn : vpns)
        m_plan.pages.erase(vpn);
    m_evictions += vpns.size();
    VGPU_INFO(m_log, "evicted %zu pages of buffer '%s'%s", vpns.size(),
              m_wl.buffers[b].name.c_str(), by);
}

bool driver::cbv_slot_exists(const kernel_decl& k, const cbv_binding& c)
{
    if (m_facts.cbv_base != 0 && c.slot < m_facts.cbv_slots)
        return true;
    fail("kernel '" + k.name + "' binds CBV slot " + std::to_string(c.slot) +
         " but the platform's CBV table has " + std::to_string(m_facts.cbv_slots) +
         " slots (cdl.cbv_slots)");
    return false;
}

bool driver::program_cbvs(const kernel_decl& k)
{
    for (const cbv_binding& c : k.cbvs) {
        if (!cbv_slot_exists(k, c))
            return false;
        const region& b = m_plan.buffers[static_cast<std::size_t>(m_wl.buffer_index(c.buffer))];
        namespace cr = cdl::cbv_reg;
        const std::uint64_t base = m_facts.cbv_base;
        if (!mmio_write(base + cr::slot(c.slot, cr::BASE_LO), static_cast<std::uint32_t>(b.va),
                        m_qk, "CBV") ||
            !mmio_write(base + cr::slot(c.slot, cr::BASE_HI),
                        static_cast<std::uint32_t>(b.va >> 32), m_qk, "CBV") ||
            !mmio_write(base + cr::slot(c.slot, cr::SIZE), static_cast<std::uint32_t>(b.bytes),
                        m_qk, "CBV"))
            return false;
    }
    return true;
}

} // namespace vgpu::host
