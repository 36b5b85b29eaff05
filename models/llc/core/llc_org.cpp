// The LLC switcher's algorithm: flags and the shadow-tag estimator. See
// models/llc/core/llc_org.h.
#include "models/llc/core/llc_org.h"

#include <stdexcept>
#include <string>

namespace vgpu::llc {

namespace {
unsigned log2_exact(unsigned v, const char* what)
{
    if (v == 0 || (v & (v - 1)) != 0)
        throw std::invalid_argument(std::string("org_estimator: ") + what +
                                    " must be a power of two");
    unsigned b = 0;
    while ((1u << b) < v)
        ++b;
    return b;
}
} // namespace

org_estimator::org_estimator(const estimator_params& p) : m_p(p)
{
    m_line_shift = log2_exact(p.line_bytes, "line_bytes");
    log2_exact(p.sets, "sets");
    log2_exact(p.sample_every, "sample_every");
    if (p.modules == 0 || p.ways == 0 || p.sample_every > p.sets)
        throw std::invalid_argument("org_estimator: modules and ways must be positive and "
                                    "sample_every at most sets");
    m_sampled_sets = p.sets / p.sample_every;
    m_sets.assign(2 * std::size_t{p.modules} * m_sampled_sets, std::vector<way>(p.ways));
}

std::vector<org_estimator::way>& org_estimator::shadow_set(unsigned org, unsigned module,
                                                           unsigned sampled_set)
{
    return m_sets[(std::size_t{org} * m_p.modules + module) * m_sampled_sets + sampled_set];
}

bool org_estimator::touch(std::vector<way>& set, std::uint64_t line, bool write, bool* newly_dirty)
{
    // Ways in LRU order, most recent first; the last one is the victim.
    std::size_t i = 0;
    while (i < set.size() && set[i].line != line)
        ++i;
    const bool hit = i < set.size();
    way w = hit ? set[i] : way{line, false};
    if (!hit)
        i = set.size() - 1;
    for (; i > 0; --i)
        set[i] = set[i - 1];
    *newly_dirty = write && !w.dirty;
    w.dirty = w.dirty || write;
    set[0] = w;
    return hit;
}

void org_estimator::access(unsigned from, unsigned home, std::uint64_t addr, bool write)
{
    if (from >= m_p.modules || home >= m_p.modules)
        throw std::out_of_range("org_estimator::access: module out of range");
    const std::uint64_t line = addr >> m_line_shift;
    const auto set = static_cast<unsigned>(line & (m_p.sets - 1));
    if (set % m_p.sample_every != 0)
        return;
    const unsigned sampled = set / m_p.sample_every;
    ++m_samples;
    const path_costs& c = m_p.costs;
    const bool remote = from != home;
    bool dirtied = false;
    // Shared: the home module's LLC; a remote requester crosses the link both ways.
    const bool sh = touch(shadow_set(0, home, sampled), line, write, &dirtied);
    m_hits[0] += sh;
    m_crossings[0] += remote ? 2 : 0;
    m_cost[0] += c.llc + (sh ? 0 : c.dram) + (remote ? 2 * c.link : 0);
    // Private: the requester's LLC holds what its SMs read; a miss reads through the home
    // (crossing the link both ways if remote). A write to a line homed elsewhere goes through
    // to the home (one crossing) and allocates nothing, so private copies are always clean.
    if (write && remote) {
        m_crossings[1] += 1;
        m_cost[1] += c.llc + c.link;
        return;
    }
    const bool pr = touch(shadow_set(1, from, sampled), line, write, &dirtied);
    m_hits[1] += pr;
    const unsigned pc = !pr && remote ? 2 : 0;
    m_crossings[1] += pc;
    m_cost[1] += c.llc + (pr ? 0 : c.dram) + pc * c.link;
}

double org_estimator::cost(llc_org o) const
{
    return m_samples == 0 ? 0.0 : m_cost[index(o)] / static_cast<double>(m_samples);
}

std::optional<llc_org> org_estimator::decide(llc_org current, double margin) const
{
    if (m_samples < m_p.min_samples)
        return std::nullopt;
    const llc_org alt = other(current);
    if (cost(alt) < cost(current) * (1.0 - margin))
        return alt;
    return std::nullopt;
}

void org_estimator::new_epoch()
{
    m_samples = 0;
    m_hits[0] = m_hits[1] = 0;
    m_crossings[0] = m_crossings[1] = 0;
    m_cost[0] = m_cost[1] = 0;
}

} // namespace vgpu::llc
