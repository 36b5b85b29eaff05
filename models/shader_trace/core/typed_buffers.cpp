// Per-type trace buffers. See models/shader_trace/core/typed_buffers.h.
#include "models/shader_trace/core/typed_buffers.h"

#include <algorithm>
#include <cstring>

namespace vgpu::shader_trace {

std::array<std::uint64_t, record_types> buffer_sizes(const instrumentation& ins,
                                                     const std::vector<std::uint64_t>& executions)
{
    std::array<std::uint64_t, record_types> sizes{};
    for (std::size_t b = 0; b < ins.per_block.size() && b < executions.size(); ++b)
        for (unsigned t = 0; t < record_types; ++t)
            sizes[t] += std::uint64_t{ins.per_block[b][t]} * executions[b] *
                        record_bytes(static_cast<record_type>(t));
    return sizes;
}

typed_buffer::typed_buffer(record_type type, std::uint64_t bytes) : m_type(type), m_capacity(bytes)
{
}

typed_buffer typed_buffer::from_bytes(record_type type, std::vector<std::uint8_t> used,
                                      std::uint64_t capacity, std::uint64_t refused)
{
    typed_buffer b(type, capacity);
    if (used.size() > capacity)
        used.resize(capacity);
    b.m_data = std::move(used);
    b.m_refused = refused;
    return b;
}

bool typed_buffer::append(const record& r)
{
    const unsigned n = record_bytes(m_type);
    if (r.type != m_type || m_data.size() + n > m_capacity) {
        ++m_refused;
        return false;
    }
    std::uint8_t rec[24] = {};
    std::memcpy(rec, &r.thread, 4);
    std::memcpy(rec + 4, &r.block, 4);
    std::memcpy(rec + 8, &r.seq, 4);
    if (m_type == record_type::memory) {
        std::memcpy(rec + 12, &r.size, 4);
        std::memcpy(rec + 16, &r.address, 8);
    }
    m_data.insert(m_data.end(), rec, rec + n);
    return true;
}

std::vector<record> merge(const std::vector<typed_buffer>& buffers, std::string& error)
{
    std::vector<record> all;
    error.clear();
    for (const typed_buffer& b : buffers) {
        const unsigned n = record_bytes(b.type());
        if (b.used() % n != 0) {
            error = "buffer of type " + std::to_string(static_cast<unsigned>(b.type())) +
                    ": offset " + std::to_string(b.used() / n * n) + ": a partial record";
            return {};
        }
        for (std::uint64_t off = 0; off < b.used(); off += n) {
            record r;
            r.type = b.type();
            const std::uint8_t* p = b.bytes().data() + off;
            std::memcpy(&r.thread, p, 4);
            std::memcpy(&r.block, p + 4, 4);
            std::memcpy(&r.seq, p + 8, 4);
            if (r.type == record_type::memory) {
                std::memcpy(&r.size, p + 12, 4);
                std::memcpy(&r.address, p + 16, 8);
            }
            all.push_back(r);
        }
    }
    // By thread, then the thread's sequence: its records in execution order (claim 7 groups
    // them by block; the sequence number orders the blocks and the records within one).
    std::stable_sort(all.begin(), all.end(), [](const record& a, const record& b) {
        return a.thread != b.thread ? a.thread < b.thread : a.seq < b.seq;
    });
    for (std::size_t i = 1; i < all.size(); ++i)
        if (all[i].thread == all[i - 1].thread && all[i].seq == all[i - 1].seq) {
            error = "thread " + std::to_string(all[i].thread) + " has two records with sequence " +
                    std::to_string(all[i].seq);
            return {};
        }
    return all;
}

} // namespace vgpu::shader_trace
