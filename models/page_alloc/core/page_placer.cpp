// The page placer. See models/page_alloc/core/page_placer.h and models/page_alloc/README.md.
#include "models/page_alloc/core/page_placer.h"

#include <algorithm>

namespace vgpu::placement {

bool balanced(const std::vector<std::uint64_t>& pages, double ratio)
{
    std::uint64_t total = 0, most = 0;
    for (std::uint64_t p : pages) {
        total += p;
        most = std::max(most, p);
    }
    // most <= ratio x total / n, without the division.
    return static_cast<double>(most) * static_cast<double>(pages.size()) <=
           ratio * static_cast<double>(total);
}

page_placer::page_placer(const placer_config& c)
    : m_c(c), m_next(std::max(1u, c.modules)), m_bytes(std::max(1u, c.modules)),
      m_pages(std::max(1u, c.modules)), m_free(std::max(1u, c.modules)),
      m_next_policy(c.alloc == policy::adaptive ? policy::first_touch : c.alloc)
{
    for (unsigned m = 0; m < modules(); ++m)
        m_next[m] = m * c.dram_bytes;
}

unsigned page_placer::home(std::uint64_t vpn, unsigned touch_module)
{
    const unsigned n = modules();
    const unsigned m = m_next_policy == policy::round_robin ? static_cast<unsigned>(vpn % n)
                                                            : std::min(touch_module, n - 1);
    ++m_pages[m];
    ++m_placed;
    if (m_c.alloc == policy::adaptive)
        m_next_policy =
            balanced(m_pages, m_c.balance_ratio) ? policy::first_touch : policy::round_robin;
    return m;
}

std::optional<std::uint64_t> page_placer::frame(unsigned m, bool* reused)
{
    if (reused)
        *reused = !m_free[m].empty();
    if (!m_free[m].empty()) { // an evicted page's frame
        const std::uint64_t pa = m_free[m].back();
        m_free[m].pop_back();
        return pa;
    }
    if (m_next[m] + m_c.page_bytes > (m + 1ull) * m_c.dram_bytes)
        return std::nullopt;
    const std::uint64_t pa = m_next[m];
    m_next[m] += m_c.page_bytes;
    m_bytes[m] += m_c.page_bytes;
    return pa;
}

bool page_placer::full(unsigned m) const
{
    return m_free[m].empty() && m_next[m] + m_c.page_bytes > (m + 1ull) * m_c.dram_bytes;
}

unsigned page_placer::module_of(std::uint64_t pa) const
{
    return static_cast<unsigned>(
        std::min<std::uint64_t>(pa / std::max<std::uint64_t>(1, m_c.dram_bytes), modules() - 1));
}

std::uint64_t page_placer::reserve(unsigned m, std::uint64_t bytes)
{
    const std::uint64_t at = m_next[m];
    m_next[m] += (bytes + m_c.page_bytes - 1) / m_c.page_bytes * m_c.page_bytes;
    return at;
}

} // namespace vgpu::placement
