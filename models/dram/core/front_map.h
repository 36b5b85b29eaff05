// A sorted flat map whose oldest entries leave from the front (the DRAM timelines). Pure C++;
// see models/dram/README.md ("Timing modes").
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace vgpu::dram {

/// Keys in ascending order in one vector. The timelines it holds book near their end and
/// forget from their front as global time passes: forgetting moves a head index, and the
/// storage before it is reclaimed once it is the larger part (amortised constant time), so
/// neither booking nor forgetting calls the heap in steady state, and a search walks
/// contiguous memory. Iterators are invalidated by insert, erase and pop_front.
template <class K, class V> class front_map {
public:
    /// An entry. A plain struct, not std::pair: with trivially copyable K and V an insertion
    /// before the end moves the tail with one memmove instead of element by element.
    struct value_type {
        K first;  ///< key
        V second; ///< value
    };
    using iterator = typename std::vector<value_type>::iterator;             ///< to an entry
    using const_iterator = typename std::vector<value_type>::const_iterator; ///< to an entry

    iterator begin() { return m_v.begin() + static_cast<std::ptrdiff_t>(m_head); } ///< first
    iterator end() { return m_v.end(); }                                           ///< past last
    const_iterator begin() const
    {
        return m_v.begin() + static_cast<std::ptrdiff_t>(m_head);
    }                                                        ///< first
    const_iterator end() const { return m_v.end(); }         ///< past the last
    bool empty() const { return m_head == m_v.size(); }      ///< no entries
    std::size_t size() const { return m_v.size() - m_head; } ///< entries
    value_type& front() { return m_v[m_head]; }              ///< the smallest key's entry
    const value_type& back() const { return m_v.back(); }    ///< the largest key's entry

    /// First entry with a key greater than k.
    iterator upper_bound(const K& k)
    {
        // Most searches land after the last entry (bookings in time order): no bisection.
        if (empty() || !(k < m_v.back().first))
            return end();
        return std::upper_bound(begin(), end(), k,
                                [](const K& a, const value_type& e) { return a < e.first; });
    }
    /// See upper_bound().
    const_iterator upper_bound(const K& k) const
    {
        return const_cast<front_map*>(this)->upper_bound(k);
    }
    /// First entry with a key not less than k.
    iterator lower_bound(const K& k)
    {
        if (empty() || m_v.back().first < k)
            return end();
        return std::lower_bound(begin(), end(), k,
                                [](const value_type& e, const K& a) { return e.first < a; });
    }
    /// Inserts (k, v) before `pos` (the caller keeps the order); returns it.
    iterator insert(const_iterator pos, const K& k, const V& v)
    {
        return m_v.insert(pos, value_type{k, v});
    }
    /// Removes the entry at `pos`; returns the one after it.
    iterator erase(const_iterator pos) { return m_v.erase(pos); }
    /// Removes the first entry.
    void pop_front()
    {
        if (++m_head == m_v.size()) {
            m_v.clear();
            m_head = 0;
        } else if (m_head > 32 && 2 * m_head > m_v.size()) {
            m_v.erase(m_v.begin(), m_v.begin() + static_cast<std::ptrdiff_t>(m_head));
            m_head = 0;
        }
    }

private:
    std::vector<value_type> m_v; ///< entries from m_head on, ascending keys
    std::size_t m_head = 0;      ///< entries before it were popped
};

} // namespace vgpu::dram
