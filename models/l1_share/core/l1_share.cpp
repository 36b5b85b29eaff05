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

epoch_classifier::epoch_classifier(unsigned sms, std::uint64_t epoch_length, classify_params p)
    : m_length(epoch_length), m_params(p), m_open(sms), m_last(sms),
      m_class(sms, intensity::compute), m_partner(sms, -1), m_memory_epochs(sms, 0),
      m_compute_epochs(sms, 1), m_changes(sms, 0)
{
    if (sms == 0)
        throw std::invalid_argument("l1_share: a cluster needs an SM");
    if (epoch_length == 0)
        throw std::invalid_argument("l1_share: the epoch length must not be 0");
}

std::vector<class_change> epoch_classifier::close(std::uint64_t new_epoch,
                                                  const std::vector<instruction_totals>& totals)
{
    // The epoch that ended decides the class of every epoch up to and including the new one
    // (epochs skipped had no L1 access in the cluster: nothing to classify them by).
    const std::uint64_t elapsed = new_epoch - m_epoch;
    std::vector<intensity> next(m_class.size());
    for (std::size_t s = 0; s < next.size(); ++s) {
        epoch_counts c = m_open[s];
        c.instructions = totals[s].instructions - m_last[s].instructions;
        c.mem_instructions = totals[s].mem_instructions - m_last[s].mem_instructions;
        next[s] = classify(c, m_params);
        m_last[s] = totals[s];
        m_open[s] = epoch_counts{};
        (next[s] == intensity::memory ? m_memory_epochs : m_compute_epochs)[s] += elapsed;
    }
    const std::vector<int> partner = assign_partners(next);
    std::vector<class_change> changed;
    for (std::size_t s = 0; s < next.size(); ++s) {
        if (next[s] != m_class[s])
            ++m_changes[s];
        if (next[s] != m_class[s] || partner[s] != m_partner[s])
            changed.push_back(
                {static_cast<unsigned>(s), next[s], partner[s], new_epoch * m_length});
    }
    m_class = next;
    m_partner = partner;
    m_epoch = new_epoch;
    return changed;
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
