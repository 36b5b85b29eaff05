// Translations on their way into a TLB. See models/tlb/core/fill_queue.h.
#include "models/tlb/core/fill_queue.h"

namespace vgpu::tlb {

void fill_queue::push(std::uint64_t vpn, const pending_fill& f)
{
    const std::uint64_t seq = m_seq++;
    m_fills[vpn] = slot{f, seq};
    m_order.push(key{f.ready_ps, seq, vpn});
}

const pending_fill* fill_queue::find(std::uint64_t vpn) const
{
    const auto it = m_fills.find(vpn);
    return it == m_fills.end() ? nullptr : &it->second.fill;
}

void fill_queue::apply_until(std::uint64_t t, tlb_array* array)
{
    while (!m_order.empty() && m_order.top().ready_ps <= t) {
        const key k = m_order.top();
        m_order.pop();
        const auto it = m_fills.find(k.vpn);
        if (it == m_fills.end() || it->second.seq != k.seq)
            continue;                          // dropped, or replaced by a later push
        if (array && it->second.fill.pte != 0) // a page found not present enters no TLB
            array->insert(k.vpn, it->second.fill.entry);
        m_fills.erase(it);
    }
}

void fill_queue::drop(std::uint64_t first, std::uint64_t last)
{
    for (auto it = m_fills.begin(); it != m_fills.end();)
        it = it->first >= first && it->first <= last ? m_fills.erase(it) : std::next(it);
}

void fill_queue::clear()
{
    m_fills.clear();
    m_order = {};
}

} // namespace vgpu::tlb
