// The shader-trace group buffer. See models/shader_trace/core/slot_buffer.h.
#include "models/shader_trace/core/slot_buffer.h"

#include <algorithm>

namespace vgpu::shader_trace {

slot_buffer::slot_buffer(unsigned slots, unsigned sources, full_policy full, victim_policy victim,
                         std::vector<unsigned> priority, write_order order)
    : m_slot(std::max(1u, slots)), m_in(sources), m_lost(sources, false),
      m_priority(std::move(priority)), m_full(full), m_victim(victim), m_order(order)
{
    if (m_priority.empty())
        for (unsigned s = 0; s < sources; ++s)
            m_priority.push_back(s);
    for (unsigned i = static_cast<unsigned>(m_slot.size()); i-- > 0;)
        m_free.push_back(i); // slot 0 is taken first
}

void slot_buffer::append(unsigned a)
{
    slot& s = m_slot[a];
    s.prev = m_tail;
    s.next = none;
    if (m_tail != none)
        m_slot[m_tail].next = a;
    else
        m_head = a;
    m_tail = a;
    s.at = where::outlis;
}

void slot_buffer::unlink(unsigned a)
{
    slot& s = m_slot[a];
    if (a == m_head)
        m_head = s.next;
    else
        m_slot[s.prev].next = s.next;
    if (a == m_tail)
        m_tail = s.prev;
    else
        m_slot[s.next].prev = s.prev;
    s.prev = s.next = none;
}

void slot_buffer::drop_from_inlis(unsigned source, unsigned a)
{
    auto& in = m_in[source];
    in.erase(std::find(in.begin(), in.end(), a));
}

std::optional<unsigned> slot_buffer::victim(unsigned arriving) const
{
    // Claims 6/7: the oldest slot (INLis head) of the victim source. In-flight slots are in
    // no INLis, so they are never victims.
    if (m_victim == victim_policy::same_source)
        return m_in[arriving].empty() ? std::nullopt
                                      : std::optional<unsigned>(m_in[arriving].front());
    for (auto it = m_priority.rbegin(); it != m_priority.rend(); ++it)
        if (!m_in[*it].empty())
            return m_in[*it].front();
    return std::nullopt;
}

store_result slot_buffer::store(unsigned source, group g)
{
    store_result r;
    if (!m_free.empty()) { // S50: a free slot
        const unsigned a = m_free.back();
        m_free.pop_back();
        m_slot[a].g = std::move(g);
        m_slot[a].source = source;
        append(a);
        m_in[source].push_back(a);
        r.slot = a;
        return r;
    }
    if (m_full == full_policy::stall) {
        r.what = store_result::kind::stall;
        return r;
    }
    const std::optional<unsigned> v = victim(source);
    if (!v) { // claim 5: nothing may be replaced
        r.what = store_result::kind::dropped;
        m_lost[source] = true;
        return r;
    }
    // S30: overwrite slot a; unless it is already the tail, unlink it and make it the tail.
    const unsigned a = *v;
    r.what = store_result::kind::replaced;
    r.slot = a;
    r.victim_source = m_slot[a].source;
    m_lost[r.victim_source] = true;
    drop_from_inlis(m_slot[a].source, a);
    if (a != m_tail) {
        unlink(a);
        append(a);
    }
    r.lost = std::move(m_slot[a].g);
    m_slot[a].g = std::move(g);
    m_slot[a].source = source;
    m_in[source].push_back(a);
    return r;
}

std::optional<unsigned> slot_buffer::take_head()
{
    if (m_head == none)
        return std::nullopt;
    unsigned a = m_head;
    if (m_order == write_order::slot_index) // tests: no OUTLis
        for (unsigned i = m_head; i != none; i = m_slot[i].next)
            a = std::min(a, i);
    unlink(a);
    drop_from_inlis(m_slot[a].source, a); // outlis: it is that INLis's head, the oldest
    m_slot[a].at = where::flight;
    // The victim's next group in store order is the one whose chain the loss broke: the lost
    // group was that source's oldest in OUTLis, or (claim 5) newer than all of its groups.
    if (m_lost[m_slot[a].source] && !m_slot[a].g.empty()) {
        m_slot[a].g[0] |= loss_flag;
        m_lost[m_slot[a].source] = false;
    }
    ++m_flight;
    return a;
}

void slot_buffer::write_done(unsigned a)
{
    if (a >= m_slot.size() || m_slot[a].at != where::flight)
        return;
    m_slot[a].at = where::free;
    m_slot[a].g.clear();
    --m_flight;
    m_free.push_back(a);
}

std::vector<unsigned> slot_buffer::outlis() const
{
    std::vector<unsigned> out;
    for (unsigned a = m_head; a != none && out.size() <= m_slot.size(); a = m_slot[a].next)
        out.push_back(a);
    return out;
}

std::string slot_buffer::check() const
{
    const std::vector<unsigned> out = outlis();
    if (out.size() > m_slot.size())
        return "OUTLis has a cycle";
    std::vector<int> seen(m_slot.size(), 0);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const unsigned a = out[i];
        if (m_slot[a].at != where::outlis)
            return "slot " + std::to_string(a) + " in OUTLis is not marked so";
        if (m_slot[a].prev != (i == 0 ? none : out[i - 1]))
            return "prev of slot " + std::to_string(a) + " is wrong";
        ++seen[a];
    }
    if ((out.empty() ? none : out.back()) != m_tail)
        return "tail is not the last slot of OUTLis";
    for (unsigned a : m_free) {
        if (m_slot[a].at != where::free)
            return "slot " + std::to_string(a) + " in the free list is not marked so";
        ++seen[a];
    }
    std::size_t flight = 0;
    for (std::size_t a = 0; a < m_slot.size(); ++a) {
        if (m_slot[a].at == where::flight) {
            ++seen[a];
            ++flight;
        }
        if (seen[a] != 1)
            return "slot " + std::to_string(a) + " is in " + std::to_string(seen[a]) +
                   " of free list, OUTLis, in flight";
    }
    if (flight != m_flight)
        return "in-flight count is wrong";
    for (std::size_t s = 0; s < m_in.size(); ++s) {
        std::vector<unsigned> want;
        for (unsigned a : out)
            if (m_slot[a].source == s)
                want.push_back(a);
        if (!std::equal(want.begin(), want.end(), m_in[s].begin(), m_in[s].end()))
            return "INLis of source " + std::to_string(s) + " differs from its OUTLis slots";
    }
    return "";
}

} // namespace vgpu::shader_trace
