// Traffic generator. See models/traffic/README.md.
#include "models/traffic/traffic_gen.h"

#include <algorithm>
#include <cstring>

namespace vgpu::traffic {

traffic_gen::traffic_gen(const sc_core::sc_module_name& name, const pattern_params& p,
                         std::uint64_t transactions, bool check)
    : sc_module(name), mem("mem"), m_params(p), m_transactions(transactions), m_check(check),
      m_log(this->name()), m_stats(this->name()),
      m_reads(m_stats, "reads", "count", "read transactions"),
      m_writes(m_stats, "writes", "count", "write transactions"),
      m_errors(m_stats, "errors", "count", "transactions answered with an error response"),
      m_mismatches(m_stats, "mismatches", "count", "reads whose data differed from the reference"),
      m_latency(m_stats, "latency", "ns", "time from issue to completion of a transaction")
{
    SC_HAS_PROCESS(traffic_gen);
    SC_THREAD(run);
}

void traffic_gen::fill(std::uint64_t seq, std::uint8_t* data) const
{
    std::uint64_t x = m_params.seed * 0x9E3779B97F4A7C15ull + seq;
    for (unsigned i = 0; i < m_params.access_bytes; i += 8) {
        // splitmix64: cheap, and every transaction writes different bytes
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        std::memcpy(data + i, &z, std::min(8u, m_params.access_bytes - i));
    }
}

std::uint8_t* traffic_gen::reference(std::uint64_t offset, bool create)
{
    auto it = m_reference.find(offset / ref_page_bytes);
    if (it == m_reference.end()) {
        if (!create)
            return nullptr;
        // Value-initialised: a page never written reads as zero, like the memory.
        it = m_reference
                 .emplace(offset / ref_page_bytes, std::make_unique<std::uint8_t[]>(ref_page_bytes))
                 .first;
    }
    return it->second.get() + offset % ref_page_bytes;
}

void traffic_gen::run()
{
    m_qk.reset();
    pattern_generator gen(m_params);
    std::vector<std::uint8_t> data(m_params.access_bytes);
    const std::vector<std::uint8_t> zeros(m_params.access_bytes, 0);
    tlm_bus::gpu_extension attrs;
    attrs.kind = tlm_bus::access_kind::other;
    for (std::uint64_t seq = 0; seq < m_transactions; ++seq) {
        access a = gen.next();
        std::uint64_t offset = a.addr - m_params.base;
        if (a.write)
            fill(seq, data.data());
        sc_core::sc_time before = m_qk.get_current_time();
        tlm::tlm_response_status status =
            mem.access(a.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, a.addr,
                       data.data(), m_params.access_bytes, m_qk, &attrs);
        m_latency.sample(static_cast<double>((m_qk.get_current_time() - before).value()) / 1000.0);
        if (status != tlm::TLM_OK_RESPONSE) {
            ++m_errors;
            VGPU_ERROR(m_log, "%s at 0x%llx: error response %d", a.write ? "write" : "read",
                       static_cast<unsigned long long>(a.addr), static_cast<int>(status));
            continue;
        }
        if (a.write) {
            ++m_writes;
            if (m_check)
                std::memcpy(reference(offset, true), data.data(), data.size());
        } else {
            ++m_reads;
            const std::uint8_t* expected = m_check ? reference(offset, false) : nullptr;
            if (m_check &&
                std::memcmp(expected ? expected : zeros.data(), data.data(), data.size()) != 0) {
                if (m_mismatches.value() < 10)
                    VGPU_ERROR(m_log, "read of 0x%llx (transaction %llu) returned wrong data",
                               static_cast<unsigned long long>(a.addr),
                               static_cast<unsigned long long>(seq));
                ++m_mismatches;
            }
        }
    }
    m_qk.sync();
    m_finished = true;
    done.notify();
}

} // namespace vgpu::traffic
