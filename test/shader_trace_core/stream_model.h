// A shader-trace unit in miniature for tests: packers, the slot buffer and a write engine with
// random back-pressure, losses handled as the unit handles them (the victim's packer syncs
// again, the buffer flags its next group), and the decode expected from the ground truth:
// each group's identity (source, sequence number) is known here, not read from the tokens.
#pragma once

#include "models/shader_trace/core/decoder.h"
#include "models/shader_trace/core/packer.h"
#include "models/shader_trace/core/slot_buffer.h"

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <vector>

namespace vgpu::shader_trace::test {

class stream_model {
public:
    struct truth_group {
        unsigned source = 0;
        std::uint64_t seq = 0;
        std::vector<decoded_event> events; ///< in token order
    };

    stream_model(unsigned sources, unsigned g, unsigned k, full_policy fp, victim_policy vp,
                 unsigned sync_interval, write_order order = write_order::outlis)
        : lost(sources, 0), m_g(g), m_buf(k, sources, fp, vp, {}, order), m_open(sources),
          m_produced(sources, 0), m_waiting(sources), m_slot_group(k, 0)
    {
        for (unsigned s = 0; s < sources; ++s)
            m_packers.emplace_back(s, g, sync_interval);
    }

    unsigned g() const { return m_g; }
    unsigned sources() const { return static_cast<unsigned>(m_packers.size()); }

    /// An event of source e.source at e.time (non-decreasing per source).
    void add(const decoded_event& e)
    {
        std::vector<group> out;
        m_open[e.source].push_back(e);
        m_packers[e.source].add(e.what, e.warp, e.arg, e.time, out);
        collect(e.source, out);
        try_store(e.source);
    }

    /// The write engine takes the next group (if any) into memory; `hold` keeps its slot in
    /// flight until complete_one() (a model that frees at completion), otherwise it is freed
    /// at once (the unit: free once issued).
    bool write_one(bool hold)
    {
        const auto h = m_buf.take_head();
        if (!h)
            return false;
        const group& gr = m_buf.contents(*h);
        memory.insert(memory.end(), gr.begin(), gr.end());
        memory_groups.push_back(m_slot_group[*h]);
        if (hold) {
            m_flight.push_back(*h);
        } else {
            m_buf.write_done(*h);
            store_all();
        }
        return true;
    }
    /// A held write completes (a random one).
    void complete_one(std::mt19937& rng)
    {
        if (m_flight.empty())
            return;
        const std::size_t i = rng() % m_flight.size();
        m_buf.write_done(m_flight[i]);
        m_flight.erase(m_flight.begin() + static_cast<std::ptrdiff_t>(i));
        store_all();
    }
    /// Flushes every packer and writes everything.
    void drain()
    {
        for (unsigned s = 0; s < sources(); ++s)
            if (auto gr = m_packers[s].flush()) {
                std::vector<group> out{std::move(*gr)};
                collect(s, out);
            }
        for (bool more = true; more;) {
            store_all();
            more = write_one(false);
            for (unsigned a : m_flight)
                m_buf.write_done(a);
            more = more || !m_flight.empty();
            m_flight.clear();
            for (const auto& w : m_waiting)
                more = more || !w.empty();
        }
    }

    /// The decode the ground truth gives for `memory`: per source, events exact while its
    /// groups follow each other; after a loss nothing can be timed until its next SYNC, where
    /// a gap counts the groups missing and the events that reached memory untimed.
    std::vector<decoded_event> expected() const
    {
        std::vector<decoded_event> want;
        struct st {
            long long prev = -1;
            bool synced = false;
            std::uint64_t lost = 0, unreadable = 0;
        };
        std::vector<st> per(sources());
        std::uint64_t latest = 0;
        for (std::size_t gi = 0; gi < memory_groups.size(); ++gi) {
            const truth_group& tg = groups[memory_groups[gi]];
            st& s = per[tg.source];
            const auto seq = static_cast<long long>(tg.seq);
            if (seq != s.prev + 1) {
                s.synced = false;
                s.lost += static_cast<std::uint64_t>(seq - s.prev - 1);
            }
            s.prev = seq;
            std::size_t ev = 0;
            for (unsigned i = 0; i < m_g; ++i) {
                const std::uint64_t t = memory[gi * m_g + i];
                if (kind_of(t) == token_kind::sync) {
                    if (!s.synced) {
                        // The SYNC's time: its event's (or, closing a group, the last one's).
                        const std::uint64_t time =
                            ev < tg.events.size() ? tg.events[ev].time : tg.events[ev - 1].time;
                        if (s.lost != 0 || s.unreadable != 0) {
                            decoded_event gap;
                            gap.time = time;
                            gap.source = tg.source;
                            gap.is_gap = true;
                            gap.lost_groups = static_cast<unsigned>(s.lost);
                            gap.unreadable = s.unreadable;
                            want.push_back(gap);
                        }
                        s.synced = true;
                        s.lost = s.unreadable = 0;
                        latest = std::max(latest, time);
                    }
                } else if (kind_of(t) == token_kind::event) {
                    if (s.synced) {
                        want.push_back(tg.events[ev]);
                        latest = std::max(latest, tg.events[ev].time);
                    } else {
                        ++s.unreadable;
                    }
                    ++ev;
                }
            }
        }
        for (unsigned src = 0; src < sources(); ++src)
            if (!per[src].synced && per[src].unreadable != 0) {
                decoded_event gap;
                gap.time = latest;
                gap.source = src;
                gap.is_gap = true;
                gap.unreadable = per[src].unreadable;
                want.push_back(gap);
            }
        return want;
    }

    /// Some source's groups reached memory out of sequence order, or a loss flag is not on
    /// exactly the groups that follow a loss (the flag is written, like the tokens, in the
    /// order the engine takes groups: a group taken ahead of an older one that is then lost
    /// carries no flag).
    bool misordered() const
    {
        std::vector<long long> prev(sources(), -1);
        for (std::size_t gi = 0; gi < memory_groups.size(); ++gi) {
            const truth_group& tg = groups[memory_groups[gi]];
            const auto seq = static_cast<long long>(tg.seq);
            if (seq <= prev[tg.source] ||
                (seq != prev[tg.source] + 1) != lost_before(memory[gi * m_g]))
                return true;
            prev[tg.source] = seq;
        }
        return false;
    }

    std::uint64_t groups_produced() const
    {
        std::uint64_t n = 0;
        for (std::uint64_t p : m_produced)
            n += p;
        return n;
    }

    std::vector<std::uint64_t> memory;      ///< tokens in write order
    std::vector<std::size_t> memory_groups; ///< per group in memory: index into `groups`
    std::vector<truth_group> groups;        ///< every group packed
    std::vector<std::uint64_t> lost;        ///< per source: groups lost (replaced, dropped)
    const slot_buffer& buffer() const { return m_buf; }

private:
    void collect(unsigned s, std::vector<group>& out)
    {
        // The packer closed groups; the open events' prefix belongs to them in order.
        for (group& gr : out) {
            truth_group tg;
            tg.source = s;
            tg.seq = m_produced[s]++;
            unsigned n = 0;
            for (std::uint64_t t : gr)
                n += kind_of(t) == token_kind::event ? 1 : 0;
            tg.events.assign(m_open[s].begin(), m_open[s].begin() + n);
            m_open[s].erase(m_open[s].begin(), m_open[s].begin() + n);
            groups.push_back(tg);
            m_waiting[s].push_back({groups.size() - 1, std::move(gr)});
        }
        out.clear();
    }
    void try_store(unsigned s)
    {
        while (!m_waiting[s].empty()) {
            auto& [id, gr] = m_waiting[s].front();
            const store_result r = m_buf.store(s, gr);
            if (r.what == store_result::kind::stall)
                return;
            if (r.what == store_result::kind::dropped) {
                ++lost[s];
                m_packers[s].request_sync();
            } else {
                if (r.what == store_result::kind::replaced) {
                    ++lost[r.victim_source];
                    m_packers[r.victim_source].request_sync();
                }
                m_slot_group[r.slot] = id;
            }
            m_waiting[s].pop_front();
        }
    }
    void store_all()
    {
        for (unsigned s = 0; s < sources(); ++s)
            try_store(s);
    }

    unsigned m_g;
    slot_buffer m_buf;
    std::vector<packer> m_packers;
    std::vector<std::vector<decoded_event>> m_open;
    std::vector<std::uint64_t> m_produced;
    std::vector<std::deque<std::pair<std::size_t, group>>> m_waiting;

    std::vector<unsigned> m_flight;
    std::vector<std::size_t> m_slot_group;
};

} // namespace vgpu::shader_trace::test
