// Native host driver. See models/host/README.md.
#include "models/host/driver.h"
#include "models/host/fault_part.h"
#include "models/host/instrument_part.h"
#include "models/host/printf_part.h"

#include "models/common/trace_events.h"
#include "models/cp/cp.h"
#include "tlm_bus/byte_enables.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <limits>

namespace vgpu::host {

driver::driver(const sc_core::sc_module_name& name, const host_config& cfg, const workload& wl,
               const platform_facts& facts, const std::function<void(driver&)>& add_parts)
    : sc_module(name), mmio("mmio"), dma("dma"), irq("irq"), fault_irq("fault_irq"), m_cfg(cfg),
      m_wl(wl), m_facts(facts), m_placer(placer_config_of(facts)),
      m_plan(plan_memory(wl, facts, &m_placer)), m_profile(profile_of(wl, m_plan)),
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
      m_touch_placements(m_stats, "touch_placements", "count",
                         "buffer pages placed at their first touch, in zero time "
                         "(models/page_alloc/README.md)"),
      m_checks_passed(m_stats, "checks_passed", "count", "result checks that passed"),
      m_checks_failed(m_stats, "checks_failed", "count", "result checks that failed"),
      m_load_ns(m_stats, "load_time", "ns",
                "simulated time of the set-up before the first launch (0 with host.load backdoor)",
                [this] { return static_cast<double>(m_load_time.value()) / 1000.0; })
{
    m_ext.kind = tlm_bus::access_kind::host;
    for (std::size_t m = 0; m < m_plan.bytes_per_module.size(); ++m)
        m_pages_placed.push_back(std::make_unique<stats::formula>(
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
    SC_HAS_PROCESS(driver);
    SC_THREAD(run);
    SC_METHOD(decide_touches);
    sensitive << m_touch_due;
    dont_initialize();
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
    }
    // The parts, after the driver thread and the firmware CPU: the fault part's shadow thread
    // follows them, as the copy engine's slots follow it.
    if (add_parts)
        add_parts(*this);
    if (std::any_of(wl.kernels.begin(), wl.kernels.end(),
                    [](const kernel_decl& k) { return k.instrumented(); }))
        add_part<instrument_part>();
    if (std::any_of(wl.kernels.begin(), wl.kernels.end(),
                    [](const kernel_decl& k) { return !k.printf_formats.empty(); }))
        add_part<printf_part>(); // kernel printf: OUTDIR/console.txt
    // The copy engine serves host.load dma, and the fault handler's fills, copy-on-write copies
    // and evictions.
    const bool faults_move_data = !wl.evictions.empty() ||
                                  std::any_of(m_plan.buffers.begin(), m_plan.buffers.end(),
                                              [](const region& r) { return r.on_demand; }) ||
                                  std::any_of(wl.buffers.begin(), wl.buffers.end(),
                                              [](const buffer_decl& b) { return b.copy_on_write; });
    if (cfg.load == load_kind::dma || faults_move_data)
        for (unsigned i = 0; i < cfg.dma_outstanding; ++i)
            sc_core::sc_spawn([this] { dma_engine(); }, sc_core::sc_gen_unique_name("dma_engine"));
}

driver::~driver() = default;

std::uint64_t driver::fault_services() const
{
    const auto* f = part<fault_part>();
    return f ? f->services() : 0;
}

std::uint64_t driver::fault_batches() const
{
    const auto* f = part<fault_part>();
    return f ? f->batches() : 0;
}

output_files driver::files() const
{
    output_files out = m_dumps;
    add_source_profile(out);
    for (const auto& p : m_parts)
        p->files(out);
    return out;
}

void driver::count_bytes(bool read, std::uint64_t bytes)
{
    (read ? m_bytes_read : m_bytes_written) += bytes;
}

bool driver::launch_and_wait(unsigned p, const kernel_decl& k, const launch_variant& v)
{
    const std::size_t first = m_runs.size();
    if (!launch(p, 0, k, &v))
        return false;
    m_phases.back().kernels.push_back(first);
    return wait_launches(p, first, 1, {&k});
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
    ok = ok && load_memory() && set_up_cp(!firmware);
    for (std::size_t i = 0; ok && i < m_parts.size(); ++i)
        ok = m_parts[i]->set_up();
    if (rec.enabled())
        rec.host_span("load", "load memory, set up the CP", t0.value(), now().value());
    if (ok && firmware)
        ok = run_firmware();
    for (std::size_t p = 0; ok && !firmware && p < m_wl.schedule.size();) {
        t0 = now();
        ok = run_phase(static_cast<unsigned>(p));
        if (rec.enabled())
            rec.host_span("phase " + std::to_string(p),
                          "phase " + std::to_string(p) +
                              (m_wl.loop_of(p) ? " pass " + std::to_string(m_pass) : ""),
                          t0.value(), now().value());
        const auto next = ok ? next_phase(p) : std::nullopt;
        ok = next.has_value();
        p = next.value_or(p);
    }
    for (std::size_t i = 0; ok && i < m_parts.size(); ++i)
        ok = m_parts[i]->after_run();
    if (ok) {
        t0 = now();
        run_checks();
        if (rec.enabled())
            rec.host_span("checks", "checks", t0.value(), now().value());
    } else if (!m_wl.checks.empty())
        fail("checks skipped: the run did not complete");
    dump_buffers();
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
        if (!pa && region_of(a, &b) &&
            (m_plan.buffers[b].on_demand || m_pages.evicted.count(a / page))) {
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
                m_pages.read_only.insert(v);
    page_table::builder table(m_plan.ptbr, page);
    for (const auto& [vpn, pa] : m_plan.pages) {
        const bool ro = m_pages.read_only.count(vpn) != 0;
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
    // An on_demand buffer's initial data (every buffer's, when pages are placed at first
    // touch) stays staged on the host until its pages fault; the fault handler copies it in.
    std::vector<std::vector<std::uint32_t>> words(m_wl.buffers.size());
    m_pages.staged.assign(m_wl.buffers.size(), {});
    for (std::size_t b = 0; b < m_wl.buffers.size(); ++b) {
        const buffer_decl& d = m_wl.buffers[b];
        if (d.init.kind == init_kind::zero)
            continue;
        if (m_plan.buffers[b].on_demand) {
            m_pages.staged[b] = initial_words(d);
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
    m_loaded = true;
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
        {reg::NPARAMS, static_cast<std::uint32_t>(k.params.size() + extra)},
        {reg::GRID_Z, k.grid_z},
        {reg::BLOCK_Z, k.block_z},
        {reg::REGS, k.registers},
        {reg::SHARED_BYTES, k.shared_bytes}};
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
    for (const auto& part : m_parts) // the blocks' per-kernel registers (CBVs, LLC switch)
        if (!part->before_launch(k))
            return false;
    kernel_run r;
    r.name = v ? v->record : k.name;
    r.kernel = ki;
    r.phase = phase;
    r.pass = m_pass;
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
    VGPU_INFO(m_log,
              "phase %u: launched '%s' on queue %u (grid %ux%ux%u, block %ux%ux%u, SMs %u+%u)",
              phase, r.name.c_str(), q, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y,
              k.block_z, k.sms.first, writes[7].second);
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
            text += " (" + (k.lines_file.empty() ? m_wl.file : k.lines_file) + ":" +
                    std::to_string(k.lines[pc]) +
                    (pc < k.cuda_lines.size() && !k.cuda_lines[pc].empty() ? ", " + k.cuda_lines[pc]
                                                                           : "") +
                    ")";
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
    m_phases.back().pass = m_pass;
    // A part may launch kernels first and vary the phase's launches (seed 002's profiling).
    std::vector<launch_variant> variants(phase.size());
    for (const auto& part : m_parts)
        if (!part->before_phase(p, variants))
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
    for (const auto& part : m_parts)
        part->phase_launched(p, m_phases.back().start);
    if (!wait_launches(p, first_launch, pending, kernels))
        return false;
    for (const auto& part : m_parts)
        if (!part->after_phase(p))
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
        std::vector<std::uint32_t> got(image_words(b.elements, b.type));
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
    if (const auto it = m_pages.evicted.find(vpn); it != m_pages.evicted.end()) {
        out = it->second;
        return true;
    }
    const std::vector<std::uint32_t>& words = m_pages.staged[b];
    if (words.empty())
        return false;
    const std::uint64_t off = vpn * page - m_plan.buffers[b].va;
    const std::uint64_t bytes = words.size() * 4;
    if (off < bytes)
        std::memcpy(out.data(), reinterpret_cast<const std::uint8_t*>(words.data()) + off,
                    std::min(page, bytes - off));
    return true;
}

driver::touch_answer driver::place_at_touch(std::uint64_t va, int sm, std::uint64_t at_ps,
                                            bool can_wait)
{
    const std::uint64_t page = m_facts.page_bytes;
    const std::uint64_t vpn = va / page;
    std::size_t b = 0;
    const region* r = region_of(va, &b);
    // Copy-on-write pages, and every page once a module's memory has filled (the fault
    // service evicts for it and places the page itself), take the page fault instead.
    if (!r || !r->at_touch || m_pages.evicted.count(vpn) || r < m_plan.buffers.data() ||
        r >= m_plan.buffers.data() + m_plan.buffers.size() || m_wl.buffers[b].copy_on_write)
        return {};
    update_touch_full();
    // Placed already: a walk that read the PTE before that placement wrote it (walks of
    // several TLBs overlap) takes the page where it is.
    if (const auto placed = m_plan.pages.find(vpn); placed != m_plan.pages.end()) {
        const bool ro = m_pages.read_only.count(vpn) != 0;
        return {page_table::encode(placed->second, !ro, ro, m_placer.module_of(placed->second)), 0};
    }
    // Its zero-time placement failed before (the run has failed; no new claim, or the failure
    // would repeat at every replay), or the fault service is placing it now (a claim decided
    // meanwhile would place it on a second frame): the access faults as usual.
    if (m_touch_failed.count(vpn) || m_touch_busy.count(vpn))
        return {};
    if (m_leaf.count(vpn) == 0 || m_touch_full) {
        m_claims.forget(vpn);
        return {};
    }
    // The earliest touch wins, ties to the lowest SM, in both timing modes: decided once
    // simulated time has passed the earliest touch's time (every touch is made at or before its
    // own time), so neither the order of the calls nor the quantum decides.
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    const std::optional<placement::touch_claim> first =
        m_claims.touch(vpn, placement::touch_claim{at_ps, std::max(0, sm)}, now, !can_wait);
    if (first)
        return {place_touched(vpn, b, *first), nullptr};
    // Not decided yet: the toucher waits (as for a page fault, answered when the page is
    // decided; no fault is raised) and replays.
    std::shared_ptr<tlm_bus::fault_wait>& w = m_touch_waits[vpn];
    if (!w) {
        w = std::make_shared<tlm_bus::fault_wait>();
        w->raised_ps = now;
        w->deadline_ps = std::numeric_limits<std::uint64_t>::max();
        w->placement = true;
    }
    m_touch_due.notify(sc_core::sc_time::from_value(m_claims.due_ps(vpn) - now));
    return {0, w};
}

std::uint64_t driver::place_touched(std::uint64_t vpn, std::size_t b,
                                    const placement::touch_claim& first)
{
    const unsigned touch = static_cast<unsigned>(first.sm) / std::max(1u, m_facts.sms_per_module);
    const placed_page p = place_page(b, vpn, touch, nullptr);
    if (p.result != placed_page::outcome::placed)
        return 0;
    ++m_touch_placements;
    for (const auto& part : m_parts)
        part->page_placed(vpn);
    return p.pte;
}

void driver::update_touch_full()
{
    for (unsigned i = 0; !m_touch_full && i < m_placer.modules(); ++i)
        m_touch_full = m_placer.full(i);
}

void driver::decide_touches()
{
    // Every page whose earliest touch is past: placed for it, its touchers told to replay.
    // Once a module's memory is full, a page whose zero-time placement failed, and a page the
    // fault service is placing: not placed here, its touchers replay at once and fault.
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    std::uint64_t next = 0;
    update_touch_full();
    for (auto it = m_touch_waits.begin(); it != m_touch_waits.end();) {
        const std::uint64_t vpn = it->first;
        const bool refused =
            m_touch_full || m_touch_failed.count(vpn) != 0 || m_touch_busy.count(vpn) != 0;
        std::optional<placement::touch_claim> first;
        if (refused) {
            m_claims.forget(vpn);
        } else {
            first = m_claims.decide(vpn, now);
            if (!first && m_claims.earliest(vpn)) {
                const std::uint64_t due = m_claims.due_ps(vpn);
                next = next == 0 ? due : std::min(next, due);
                ++it;
                continue;
            }
        }
        // Decided here, or placed (or refused) by another path meanwhile: the replay finds
        // the page where it is, or faults.
        std::size_t b = 0;
        if (first && region_of(vpn * m_facts.page_bytes, &b) && !m_plan.pages.count(vpn))
            place_touched(vpn, b, *first);
        it->second->resolved = true;
        it->second->done.notify();
        it = m_touch_waits.erase(it);
    }
    if (next != 0)
        m_touch_due.notify(sc_core::sc_time::from_value(next - now));
}

placed_page driver::place_page(std::size_t b, std::uint64_t vpn, unsigned touch,
                               tlm_utils::tlm_quantumkeeper* qk)
{
    const std::uint64_t page = m_facts.page_bytes;
    placed_page out;
    // Timed: in service until it returns (place_at_touch makes no claim for it meanwhile).
    struct in_service {
        std::set<std::uint64_t>* busy;
        std::uint64_t vpn;
        ~in_service()
        {
            if (busy)
                busy->erase(vpn);
        }
    } const service{qk && m_touch_busy.insert(vpn).second ? &m_touch_busy : nullptr, vpn};
    const bool ro = m_pages.read_only.count(vpn) != 0;
    const unsigned m = m_placer.home(vpn, touch);
    bool reused = false;
    const std::optional<std::uint64_t> pa = m_placer.frame(m, &reused);
    if (!pa)
        return out;
    // The fill: the host's copy (staged initial data or the evicted copy). A new frame reads
    // as zero; a reused one (an evicted page's) is zeroed when the page has nothing staged.
    std::vector<std::uint8_t> data;
    const bool staged = host_copy(b, vpn, data);
    if (!staged && reused)
        data.assign(page, 0);
    bool ok = true;
    if (staged || reused) {
        std::vector<transfer_piece> pieces;
        pieces_physical(*pa, data.data(), page, pieces);
        if (qk)
            ok = transfer_dma(tlm::TLM_WRITE_COMMAND, pieces, *qk);
        else
            for (const transfer_piece& piece : pieces)
                ok = ok && dma.debug(tlm::TLM_WRITE_COMMAND, piece.pa, piece.data, piece.len) ==
                               piece.len;
        out.filled = ok;
    }
    std::uint64_t raw = page_table::encode(*pa, !ro, ro, m);
    bool written = false; // the leaf PTE points to the frame
    if (ok && qk) {
        ok = set_pte(vpn * page, raw, *qk, &written);
    } else if (ok) {
        const auto leaf = m_leaf.find(vpn);
        ok = leaf != m_leaf.end() &&
             dma.debug(tlm::TLM_WRITE_COMMAND, leaf->second, reinterpret_cast<std::uint8_t*>(&raw),
                       sizeof raw) == sizeof raw;
        written = ok;
        if (!ok)
            fail("first-touch placement of VA " + hex(vpn * page) + ": " +
                 (leaf == m_leaf.end() ? std::string("driver bug: no page-table leaf")
                                       : "the PTE write at physical " + hex(leaf->second) +
                                             " by the backdoor failed"));
    } else if (!qk) {
        fail("first-touch placement of VA " + hex(vpn * page) + ": the fill of frame " + hex(*pa) +
             " by the backdoor failed");
    }
    if (!written) {
        m_placer.release(*pa); // nothing maps it: free for the next page
        if (!qk)
            m_touch_failed.insert(vpn);
        out.result = placed_page::outcome::write_failed;
        return out;
    }
    // Mapped (also when the TLB shootdown after the PTE write failed: the GPU's PTE points to
    // the frame, so the frame stays the page's and the plan says so).
    m_plan.pages[vpn] = *pa;
    m_plan.bytes_per_module = m_placer.bytes_per_module();
    m_pages.evicted.erase(vpn);
    m_claims.forget(vpn);
    m_touch_failed.erase(vpn);
    out.mapped = true;
    out.pa = *pa;
    out.pte = raw;
    out.result = ok ? placed_page::outcome::placed : placed_page::outcome::write_failed;
    return out;
}

bool driver::set_pte(std::uint64_t va, std::uint64_t raw, tlm_utils::tlm_quantumkeeper& qk,
                     bool* written)
{
    if (written)
        *written = false;
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
    if (written)
        *written = true;
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

} // namespace vgpu::host
