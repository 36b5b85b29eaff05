// The LLC switcher's algorithm: flags and the shadow-tag estimator. See
// models/llc/core/llc_org.h.
#include "models/llc/core/llc_org.h"

#include <algorithm>
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
    m_mod.assign(p.modules, counts{});
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
    counts& n = m_mod[from];
    ++n.samples;
    const bool remote = from != home;
    bool dirtied = false;
    // Shared: the home module's LLC; a remote requester crosses the link both ways.
    const bool sh = touch(shadow_set(0, home, sampled), line, write, &dirtied);
    ++(sh ? n.hits[0] : n.misses[0]);
    n.crossings[0] += remote ? 2 : 0;
    // Private: the requester's LLC holds what its SMs read; a miss reads through the home
    // (crossing the link both ways if remote). A write to a line homed elsewhere goes through
    // to the home (one crossing) and allocates nothing, so private copies are always clean.
    if (write && remote) {
        n.crossings[1] += 1;
        return;
    }
    const bool pr = touch(shadow_set(1, from, sampled), line, write, &dirtied);
    ++(pr ? n.hits[1] : n.misses[1]);
    n.crossings[1] += !pr && remote ? 2 : 0;
}

double org_estimator::weigh(const counts& c, unsigned org, unsigned in_effect) const
{
    if (c.samples == 0)
        return 0.0;
    const path_costs& base = m_p.costs;
    const path_costs& meas = m_has_measured ? m_measured : base;
    // The queueing measured under the organisation in effect, scaled by how much of the load
    // causing it the organisation weighed would put on the same path.
    auto ratio = [](std::uint64_t mine, std::uint64_t seen) {
        return seen > 0 ? static_cast<double>(mine) / static_cast<double>(seen) : 1.0;
    };
    const double dram = base.dram + std::max(0.0, meas.dram - base.dram) *
                                        ratio(c.misses[org], c.misses[in_effect]);
    const double link = base.link + std::max(0.0, meas.link - base.link) *
                                        ratio(c.crossings[org], c.crossings[in_effect]);
    const double sum = meas.llc * static_cast<double>(c.samples) +
                       dram * static_cast<double>(c.misses[org]) +
                       link * static_cast<double>(c.crossings[org]);
    return sum / static_cast<double>(c.samples);
}

org_estimator::counts org_estimator::total() const
{
    counts t;
    for (const counts& c : m_mod) {
        t.samples += c.samples;
        for (unsigned o = 0; o < 2; ++o) {
            t.hits[o] += c.hits[o];
            t.misses[o] += c.misses[o];
            t.crossings[o] += c.crossings[o];
        }
    }
    return t;
}

double org_estimator::cost(llc_org o, llc_org in_effect) const
{
    return weigh(total(), index(o), index(in_effect));
}

double org_estimator::cost(llc_org o, unsigned module, llc_org in_effect) const
{
    return weigh(m_mod.at(module), index(o), index(in_effect));
}

std::uint64_t org_estimator::samples() const
{
    return total().samples;
}

std::uint64_t org_estimator::hits(llc_org o) const
{
    return total().hits[index(o)];
}

std::uint64_t org_estimator::crossings(llc_org o) const
{
    return total().crossings[index(o)];
}

std::optional<llc_org> org_estimator::choose(const counts& c, llc_org current, double margin) const
{
    if (c.samples < m_p.min_samples)
        return std::nullopt;
    const llc_org alt = other(current);
    const unsigned cur = index(current);
    if (weigh(c, index(alt), cur) < weigh(c, cur, cur) * (1.0 - margin))
        return alt;
    return std::nullopt;
}

std::optional<llc_org> org_estimator::decide(llc_org current, double margin) const
{
    return choose(total(), current, margin);
}

std::optional<llc_org> org_estimator::decide(unsigned module, llc_org current, double margin) const
{
    return choose(m_mod.at(module), current, margin);
}

void org_estimator::new_epoch()
{
    for (counts& c : m_mod)
        c = counts{};
    m_has_measured = false;
}

} // namespace vgpu::llc
