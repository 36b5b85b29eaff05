// L1 sharing in a cluster: home map, classification, partner rule, closed forms. See
// models/l1_share/core/l1_share.h.
#include "models/l1_share/core/l1_share.h"

#include <stdexcept>

namespace vgpu::l1_share {

namespace {
unsigned log2_exact(unsigned v, const char* what)
{
    if (v == 0 || (v & (v - 1)) != 0)
        throw std::invalid_argument(std::string("l1_share: ") + what + " must be a power of two");
    unsigned b = 0;
    while ((1u << b) < v)
        ++b;
    return b;
}
} // namespace

home_map::home_map(home_kind kind, unsigned sms, unsigned sets, unsigned line_bytes)
    : m_kind(kind), m_home_bits(log2_exact(sms, "SMs per cluster")),
      m_set_bits(log2_exact(sets, "sets")), m_line_shift(log2_exact(line_bytes, "line bytes"))
{
}

unsigned home_map::home(std::uint64_t addr) const
{
    if (m_home_bits == 0)
        return 0;
    std::uint64_t n = addr >> m_line_shift;
    const std::uint64_t mask = (std::uint64_t{1} << m_home_bits) - 1;
    if (m_kind == home_kind::bits)
        return static_cast<unsigned>(n & mask);
    std::uint64_t h = 0;
    for (; n != 0; n >>= m_home_bits)
        h ^= n;
    return static_cast<unsigned>(h & mask);
}

unsigned home_map::set_index(std::uint64_t addr) const
{
    // Both functions leave the line number above the home bits free: with n = hi:lo, the home
    // is lo (bits) or lo ^ fold(hi) (xor), so for a given hi every home gets exactly one lo.
    const std::uint64_t hi = addr >> m_line_shift >> m_home_bits;
    return static_cast<unsigned>(hi & ((std::uint64_t{1} << m_set_bits) - 1));
}

std::uint64_t home_map::tag(std::uint64_t addr) const
{
    return addr >> m_line_shift >> m_home_bits >> m_set_bits;
}

intensity classify(const epoch_counts& c, const classify_params& p)
{
    if (c.accesses == 0 || c.instructions == 0)
        return intensity::compute;
    const double miss_rate = static_cast<double>(c.misses) / static_cast<double>(c.accesses);
    const double share =
        static_cast<double>(c.mem_instructions) / static_cast<double>(c.instructions);
    return miss_rate >= p.miss_rate && share >= p.mem_share ? intensity::memory
                                                            : intensity::compute;
}

std::vector<int> assign_partners(const std::vector<intensity>& classes)
{
    std::vector<int> compute;
    for (std::size_t s = 0; s < classes.size(); ++s)
        if (classes[s] == intensity::compute)
            compute.push_back(static_cast<int>(s));
    std::vector<int> partner(classes.size(), -1);
    std::size_t i = 0;
    for (std::size_t s = 0; s < classes.size(); ++s)
        if (classes[s] == intensity::memory && !compute.empty())
            partner[s] = compute[i++ % compute.size()];
    return partner;
}

double broadcast_hit_rate_private(std::uint64_t lines, std::uint64_t l1_lines, unsigned passes,
                                  unsigned sms)
{
    (void)sms; // every SM sees the same stream in its own L1
    if (lines == 0 || passes == 0)
        return 0.0;
    // A cyclic sweep larger than an LRU cache misses every time; one that fits misses once.
    return lines > l1_lines ? 0.0 : static_cast<double>(passes - 1) / passes;
}

double broadcast_hit_rate_shared(std::uint64_t lines, std::uint64_t capacity_lines, unsigned passes,
                                 unsigned sms)
{
    if (lines == 0 || passes == 0 || sms == 0)
        return 0.0;
    const double accesses = static_cast<double>(sms) * passes * static_cast<double>(lines);
    // One miss per line if the cluster holds the array (the first touch of its first pass);
    // otherwise one per line per pass (the first SM's touch; the other SMs hit behind it).
    const double misses = static_cast<double>(lines) * (lines > capacity_lines ? passes : 1);
    return 1.0 - misses / accesses;
}

} // namespace vgpu::l1_share
