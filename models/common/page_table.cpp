// The GPU page-table format: walk and builder. See docs/architecture.md ("Address spaces").
#include "models/common/page_table.h"

namespace vgpu::page_table {

std::optional<std::uint64_t> walk(std::uint64_t root, std::uint64_t va, std::uint64_t page_bytes,
                                  const read_fn& read, unsigned* reads)
{
    const unsigned n = levels(page_bytes);
    std::uint64_t table = root;
    for (unsigned level = 0; level < n; ++level) {
        std::uint64_t raw = 0;
        if (reads)
            ++*reads;
        if (!read(entry_address(table, va, level, page_bytes), raw) || (raw & present_bit) == 0)
            return std::nullopt;
        if (level + 1 == n)
            return raw;
        table = table_of(raw);
    }
    return std::nullopt;
}

builder::builder(std::uint64_t pool, std::uint64_t page_bytes)
    : m_pool(pool), m_page_bytes(page_bytes)
{
}

std::uint64_t builder::map(std::uint64_t va, std::uint64_t raw)
{
    const unsigned n = levels(m_page_bytes);
    std::uint64_t table = m_pool;
    for (unsigned level = 0; level + 1 < n; ++level) {
        std::uint64_t& e = m_entries[entry_address(table, va, level, m_page_bytes)];
        if (e == 0)
            e = encode_table(m_pool + node_bytes * m_nodes++);
        table = table_of(e);
    }
    const std::uint64_t leaf = entry_address(table, va, n - 1, m_page_bytes);
    m_entries[leaf] = raw;
    return leaf;
}

std::uint64_t builder::bytes_for(const std::map<std::uint64_t, std::uint64_t>& vpns,
                                 std::uint64_t page_bytes)
{
    const unsigned n = levels(page_bytes);
    std::uint64_t nodes = 1;
    for (unsigned level = 1; level < n; ++level) {
        // Nodes at `level`: one per distinct prefix of the levels above it (VPNs in order, so
        // equal prefixes are adjacent).
        bool first = true;
        std::uint64_t last = 0;
        for (const auto& [vpn, pa] : vpns) {
            const std::uint64_t p = prefix(vpn * page_bytes, level - 1, page_bytes);
            if (first || p != last)
                ++nodes;
            first = false;
            last = p;
        }
    }
    return nodes * node_bytes;
}

} // namespace vgpu::page_table
