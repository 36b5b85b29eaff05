// The driver's memory planning. See models/host/memory_plan.h and models/host/README.md.
#include "models/host/memory_plan.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace vgpu::host {

namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t a)
{
    return (v + a - 1) / a * a;
}

} // namespace

std::string hex(std::uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
    return buf;
}

std::optional<std::uint64_t> memory_plan::translate(std::uint64_t va,
                                                    std::uint64_t page_bytes) const
{
    auto it = pages.find(va / page_bytes);
    if (it == pages.end())
        return std::nullopt;
    return it->second + va % page_bytes;
}

placement::placer_config placer_config_of(const platform_facts& f)
{
    placement::placer_config c;
    c.modules = f.modules;
    c.dram_bytes = f.dram_bytes;
    c.page_bytes = f.page_bytes;
    c.alloc = f.alloc == host::page_alloc::round_robin ? placement::policy::round_robin
              : f.alloc == host::page_alloc::adaptive  ? placement::policy::adaptive
                                                       : placement::policy::first_touch;
    c.balance_ratio = f.balance_ratio;
    return c;
}

bool placed_at_first_touch(const platform_facts& f)
{
    return f.modules > 1 && f.alloc != host::page_alloc::round_robin && f.serves_faults;
}

memory_plan plan_memory(const workload& wl, const platform_facts& f, page_placer* placer)
{
    memory_plan plan;
    const std::uint64_t page = f.page_bytes;
    const unsigned modules = std::max(1u, f.modules);
    page_placer local(placer_config_of(f));
    page_placer& frames = placer ? *placer : local;

    auto module_of_sm = [&](unsigned sm) {
        return std::min(modules - 1, sm / std::max(1u, f.sms_per_module));
    };
    // Placed at set-up (round_robin, one module, or no fault service as in test benches):
    // first touch stands for the first kernel of the schedule that takes the buffer as a
    // parameter. Otherwise the fault handler places each buffer page at its first access.
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
            ip.traced = instrument_trace(kd.code, kd.instrument, params, f.regs_per_thread);
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
        plan.buffers.back().on_demand = wl.buffers[b].on_demand || placed_at_first_touch(f);
        plan.buffers.back().at_touch = !wl.buffers[b].on_demand && placed_at_first_touch(f);
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
    // Every buffer as if placed at set-up (the first kernel that names it picks the module),
    // so that a buffer too large for the memory is refused before the run whenever it is
    // placed; on_demand buffers are not counted.
    platform_facts at_set_up = facts;
    at_set_up.serves_faults = false;
    const memory_plan plan = plan_memory(wl, at_set_up);
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

} // namespace vgpu::host
