// Seed 002's driver part. See models/host/instrument_part.h.
#include "models/host/instrument_part.h"

#include <algorithm>
#include <set>

namespace vgpu::host {

instrument_part::instrument_part(part_host& host) : m_host(host)
{
    // Seed 002's per-type statistics.
    for (unsigned t = 0; t < shader_trace::record_types; ++t) {
        const std::string type = t == 0 ? "control" : "memory";
        const auto add = [&](const std::string& n, const char* unit, const std::string& doc,
                             const std::uint64_t* v) {
            m_stats.push_back(
                std::make_unique<stats::formula>(host.stats(), "instrument." + type + "." + n, unit,
                                                 doc, [v] { return static_cast<double>(*v); }));
        };
        add("records", "count", type + " records the instrumented kernel wrote", &m_records[t]);
        add("refused", "count", type + " records that did not fit their buffer (not written)",
            &m_refused[t]);
        add("bytes", "bytes", type + " trace buffer bytes the profiling run sized", &m_sized[t]);
    }
}

bool instrument_part::before_phase(unsigned p, std::vector<launch_variant>& variants)
{
    // An instrumented kernel (alone in its phase) runs its profiling launch first.
    const auto& phase = m_host.work().schedule[p];
    for (unsigned q = 0; q < phase.size(); ++q)
        if (m_host.memory().instrumented[phase[q]].active && !profile(p, phase[q], variants[q]))
            return false;
    return true;
}

bool instrument_part::after_phase(unsigned p)
{
    const auto& phase = m_host.work().schedule[p];
    for (unsigned q = 0; q < phase.size(); ++q)
        if (m_host.memory().instrumented[phase[q]].active && !collect(phase[q]))
            return false;
    return true;
}

void instrument_part::files(output_files& out) const
{
    out["instrumented_trace.csv"] = std::vector<std::uint8_t>(m_csv.begin(), m_csv.end());
}

bool instrument_part::save(std::size_t ki)
{
    const kernel_decl& k = m_host.work().kernels[ki];
    const instrument_plan& ip = m_host.memory().instrumented[ki];
    // The profiling launch must not change what the traced launch reads: save the kernel's
    // buffers (parameters and CBVs) and restore them afterwards.
    std::set<std::size_t> used;
    for (const kernel_param& prm : k.params)
        if (prm.is_buffer)
            used.insert(static_cast<std::size_t>(m_host.work().buffer_index(prm.buffer)));
    for (const cbv_binding& c : k.cbvs)
        used.insert(static_cast<std::size_t>(m_host.work().buffer_index(c.buffer)));
    m_saved.clear();
    for (std::size_t b : used) {
        m_saved.emplace_back(b, std::vector<std::uint8_t>(m_host.work().buffers[b].bytes()));
        if (!m_host.move_virtual(tlm::TLM_READ_COMMAND, m_host.memory().buffers[b].va,
                                 m_saved.back().second.data(), m_saved.back().second.size()))
            return false;
    }
    std::vector<std::uint8_t> zeros(ip.control.bytes, 0);
    return m_host.move_virtual(tlm::TLM_WRITE_COMMAND, ip.control.va, zeros.data(), zeros.size());
}

bool instrument_part::size(std::size_t ki)
{
    using shader_trace::record_type;
    const kernel_decl& k = m_host.work().kernels[ki];
    const instrument_plan& ip = m_host.memory().instrumented[ki];
    // The counters: executions per block, summed over threads; the sizes (the pre-pass).
    const std::size_t blocks = ip.profile.blocks.size();
    std::vector<std::uint32_t> counts(blocks);
    if (!m_host.move_virtual(tlm::TLM_READ_COMMAND, ip.control.va,
                             reinterpret_cast<std::uint8_t*>(counts.data()), 4 * blocks))
        return false;
    const std::vector<std::uint64_t> executions(counts.begin(), counts.end());
    m_bytes = shader_trace::buffer_sizes(ip.traced.records, executions);
    for (unsigned t = 0; t < shader_trace::record_types; ++t) {
        const auto type = static_cast<record_type>(t);
        const bool on = type == record_type::control ? k.instrument.control : k.instrument.memory;
        if (!on)
            continue;
        // host.instrument_undersize (tests) takes records off the exact size.
        const std::uint64_t cut =
            std::uint64_t{m_host.config().instrument_undersize} * shader_trace::record_bytes(type);
        m_bytes[t] -= std::min(cut, m_bytes[t]);
        const std::uint64_t bytes = m_bytes[t];
        if (bytes > ip.window[t].bytes) {
            m_host.fail("kernel '" + k.name + "': its " + (t == 0 ? "control" : "memory") +
                        " trace buffer needs " + std::to_string(bytes) +
                        " bytes, more than host.instrument_bytes (" +
                        std::to_string(ip.window[t].bytes) + ")");
            return false;
        }
        m_sized[t] += bytes;
    }
    return true;
}

bool instrument_part::restore()
{
    for (auto& [b, data] : m_saved)
        if (!m_host.move_virtual(tlm::TLM_WRITE_COMMAND, m_host.memory().buffers[b].va, data.data(),
                                 data.size()))
            return false;
    m_saved.clear();
    return true;
}

bool instrument_part::profile(unsigned p, std::size_t ki, launch_variant& v)
{
    using shader_trace::record_type;
    const kernel_decl& k = m_host.work().kernels[ki];
    const instrument_plan& ip = m_host.memory().instrumented[ki];
    if (!save(ki))
        return false;
    launch_variant prof{
        &ip.profile_prog, {static_cast<std::uint32_t>(ip.control.va)}, k.name + ".profile"};
    if (!m_host.launch_and_wait(p, k, prof) || !size(ki))
        return false;
    // Map exactly the pages each buffer needs, in its window (the rest stays unmapped).
    const std::uint64_t page = m_host.facts().page_bytes;
    const std::size_t blocks = ip.profile.blocks.size();
    const unsigned touch = k.sms.first / std::max(1u, m_host.facts().sms_per_module);
    v = {&ip.traced_prog, {}, k.name};
    for (unsigned t = 0; t < shader_trace::record_types; ++t) {
        const auto type = static_cast<record_type>(t);
        const bool on = type == record_type::control ? k.instrument.control : k.instrument.memory;
        if (!on)
            continue;
        const std::uint64_t bytes = m_bytes[t];
        const region& w = ip.window[t];
        for (std::uint64_t off = 0; off < bytes; off += page) {
            const std::uint64_t vpn = (w.va + off) / page;
            const unsigned m = m_host.placer().home(vpn, touch);
            const std::optional<std::uint64_t> pa = m_host.placer().frame(m);
            if (!pa) {
                m_host.fail("kernel '" + k.name + "': no free frame for its trace buffers");
                return false;
            }
            if (!m_host.set_pte(w.va + off, page_table::encode(*pa, true, false, m), m_host.qk()))
                return false;
            m_host.memory().pages[vpn] = *pa;
        }
        const std::uint64_t pointer = ip.control.va + 4 * (blocks + t);
        v.extra.push_back(static_cast<std::uint32_t>(w.va));
        v.extra.push_back(static_cast<std::uint32_t>(pointer));
        v.extra.push_back(static_cast<std::uint32_t>(bytes));
    }
    m_host.memory().bytes_per_module = m_host.placer().bytes_per_module();
    return restore();
}

bool instrument_part::collect(std::size_t ki)
{
    using shader_trace::record_type;
    const kernel_decl& k = m_host.work().kernels[ki];
    const instrument_plan& ip = m_host.memory().instrumented[ki];
    const std::size_t blocks = ip.profile.blocks.size();
    std::vector<shader_trace::typed_buffer> buffers;
    bool ok = true;
    for (unsigned t = 0; t < shader_trace::record_types; ++t) {
        const auto type = static_cast<record_type>(t);
        const bool on = type == record_type::control ? k.instrument.control : k.instrument.memory;
        if (!on)
            continue;
        std::uint32_t pointer = 0;
        if (!m_host.move_virtual(tlm::TLM_READ_COMMAND, ip.control.va + 4 * (blocks + t),
                                 reinterpret_cast<std::uint8_t*>(&pointer), 4))
            return false;
        const std::uint64_t capacity = m_bytes[t];
        const std::uint64_t refused = refused_records(type, pointer, capacity);
        const std::uint64_t used = std::min<std::uint64_t>(pointer, capacity);
        std::vector<std::uint8_t> data(used);
        if (!m_host.move_virtual(tlm::TLM_READ_COMMAND, ip.window[t].va, data.data(), used))
            return false;
        buffers.push_back(
            shader_trace::typed_buffer::from_bytes(type, std::move(data), capacity, refused));
        m_records[t] += used / shader_trace::record_bytes(type);
        m_refused[t] += refused;
        if (refused != 0) {
            m_host.fail("kernel '" + k.name + "': " + std::to_string(refused) + " " +
                        (t == 0 ? "control" : "memory") + " records did not fit their buffer of " +
                        std::to_string(capacity) + " bytes and were not written");
            ok = false;
        }
    }
    std::string err;
    const std::vector<shader_trace::record> merged = shader_trace::merge(buffers, err);
    if (!err.empty()) {
        m_host.fail("kernel '" + k.name + "': its trace buffers do not parse: " + err);
        return false;
    }
    m_csv = trace_csv(merged);
    VGPU_INFO(m_host.log(), "kernel '%s': %zu trace records merged", k.name.c_str(), merged.size());
    return ok;
}

} // namespace vgpu::host
