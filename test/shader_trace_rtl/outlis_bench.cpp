// The equivalence bench of the OUTLis buffer. See test/shader_trace_rtl/outlis_bench.h.
#include "test/shader_trace_rtl/outlis_bench.h"

#include "Voutlis_buffer.h"
#include "Voutlis_buffer_broken.h"
#include "models/shader_trace/core/slot_buffer.h"
#include "test/shader_trace_rtl/outlis_rtl.h"
#include "test/shader_trace_rtl/stimulus.h"

#include <algorithm>
#include <sstream>

namespace vgpu::shader_trace::rtl_test {

namespace {

constexpr unsigned slots = VGPU_OUTLIS_RTL_SLOTS;
constexpr unsigned sources = VGPU_OUTLIS_RTL_SOURCES;
constexpr unsigned none = slot_buffer::none;
constexpr unsigned tag_count = 1u << 16; // TAG_W

/// One model's view of a cycle: its results and the state after it, in core terms (source
/// ids, `none` for a missing slot, groups with the loss flag applied).
struct view {
    bool take_ok = false;
    unsigned take_slot = 0;
    group written;
    int st_kind = -1; ///< store_result::kind, -1 without a store
    unsigned st_slot = 0, st_victim = 0;
    group st_lost;
    unsigned head = none, tail = none, count = 0, free = 0, flight = 0;
    std::vector<unsigned> outlis, outlis_src, flight_slots;

    bool operator==(const view& o) const
    {
        return take_ok == o.take_ok && take_slot == o.take_slot && written == o.written &&
               st_kind == o.st_kind && st_slot == o.st_slot && st_victim == o.st_victim &&
               st_lost == o.st_lost && head == o.head && tail == o.tail && count == o.count &&
               free == o.free && flight == o.flight && outlis == o.outlis &&
               outlis_src == o.outlis_src && flight_slots == o.flight_slots;
    }
};

std::string slot_name(unsigned s)
{
    return s == none ? "none" : std::to_string(s);
}

template <class T> std::string list(const std::vector<T>& v)
{
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < v.size(); ++i)
        os << (i ? " " : "") << v[i];
    os << ']';
    return os.str();
}

std::string group_text(const group& g)
{
    std::ostringstream os;
    os << std::hex << '[';
    for (std::size_t i = 0; i < g.size(); ++i)
        os << (i ? " " : "") << g[i];
    os << ']';
    return os.str();
}

std::string describe(const view& v)
{
    static const char* const kinds[] = {"stored", "replaced", "stall", "dropped"};
    std::ostringstream os;
    os << "  take: " << (v.take_ok ? "slot " + std::to_string(v.take_slot) : "nothing");
    if (v.take_ok)
        os << " written " << group_text(v.written);
    os << "\n  store: " << (v.st_kind < 0 ? "none" : kinds[v.st_kind]);
    if (v.st_kind == 0 || v.st_kind == 1)
        os << " slot " << v.st_slot;
    if (v.st_kind == 1)
        os << " victim source " << v.st_victim << " lost " << group_text(v.st_lost);
    os << "\n  head " << slot_name(v.head) << " tail " << slot_name(v.tail) << " count " << v.count
       << " free " << v.free << " in flight " << v.flight << "\n  OUTLis " << list(v.outlis)
       << " sources " << list(v.outlis_src) << "\n  in flight " << list(v.flight_slots) << '\n';
    return os.str();
}

std::string describe(const cycle_calls& c)
{
    std::ostringstream os;
    os << "  inputs:";
    if (c.take)
        os << " take_head()";
    if (c.done)
        os << " write_done(" << c.done_slot << ")";
    if (c.store)
        os << " store(" << c.store_src << ", " << group_text(c.g) << ")";
    if (c.lost)
        os << " mark_lost(" << c.lost_src << ")";
    if (!c.take && !c.done && !c.store && !c.lost)
        os << " none";
    return os.str() + '\n';
}

std::string describe(const run_config& r, unsigned run)
{
    std::ostringstream os;
    os << "run " << run << ": " << (r.full == full_policy::stall ? "stall" : "replace") << ", "
       << (r.victim == victim_policy::same_source ? "same_source" : "lowest_priority") << ", G "
       << r.tokens << ", active sources " << list(r.active) << ", priority (first 12) "
       << list(std::vector<unsigned>(r.priority.begin(),
                                     r.priority.begin() + std::min<std::size_t>(12, sources)))
       << '\n';
    return os.str();
}

template <class Model> class bench {
public:
    explicit bench(const bench_options& o) : m_opts(o), m_stim(o.seed, slots, sources) {}

    bench_result run()
    {
        outlis_rtl<Model> rtl(m_opts.seed, slots, sources);
        std::uint64_t cycle = 0;
        for (unsigned run = 0; cycle < m_opts.cycles && m_result.ok; ++run) {
            const run_config cfg = m_stim.next_run(m_opts.replacements);
            if (!run_one(rtl, cfg, run, cycle))
                break;
        }
        if (!m_opts.code_coverage.empty())
            rtl.write_coverage(m_opts.code_coverage);
        m_result.cycles = std::min(cycle, m_opts.cycles);
        m_result.evaluated = rtl.evaluated_cycles();
        m_result.skipped = rtl.skipped_cycles();
        m_result.cover["token_pad"] = m_stim.tokens_of(token_kind::pad);
        m_result.cover["token_sync"] = m_stim.tokens_of(token_kind::sync);
        m_result.cover["token_event"] = m_stim.tokens_of(token_kind::event);
        m_result.cover["empty_group"] = m_stim.empty_groups();
        return m_result;
    }

private:
    /// One run: a reset, then cycles until its length, the total or a mismatch. False to stop.
    bool run_one(outlis_rtl<Model>& rtl, const run_config& cfg, unsigned run, std::uint64_t& cycle)
    {
        slot_buffer core(slots, sources, cfg.full, cfg.victim, cfg.priority);
        std::vector<unsigned> rank(sources);
        for (unsigned r = 0; r < sources; ++r)
            rank[cfg.priority[r]] = r;
        std::vector<bool> in_flight(slots, false);
        m_live.assign(tag_count, false);
        const bool replace = cfg.full == full_policy::replace;
        rtl.reset(replace, cfg.victim == victim_policy::lowest_priority, cfg.reset_cycles);
        ++m_result.cover[replace ? (cfg.victim == victim_policy::same_source
                                        ? "run_replace_same_source"
                                        : "run_replace_lowest_priority")
                                 : "run_stall"];
        for (std::uint64_t i = 0; i < cfg.length; ++i, ++cycle) {
            if (cycle >= m_opts.cycles || cycle > m_opts.stop_after)
                return false;
            if (cycle == m_opts.vcd_from ||
                (m_opts.vcd_final && cycle + m_opts.vcd_window == m_opts.cycles)) {
                const std::string path =
                    m_opts.vcd_path.empty() ? vcd_name("final") : m_opts.vcd_path;
                rtl.trace_to(path);
                m_result.vcd = path;
            }
            const cycle_calls c = m_stim.next(core, in_flight, cycle);
            view want = reference(core, c, in_flight, replace);
            if (!m_opts.with_rtl) {
                if (cycle % 1024 == 0 && !core.check().empty())
                    mismatch(cycle, core.check(), describe(cfg, run));
                if (!m_result.ok)
                    return false;
                continue;
            }
            view got = model(rtl, c, rank, cfg);
            state_of(core, in_flight, want);
            state_of(rtl, cfg, got);
            count(want, core);
            if (core.free_slots() == 0 && !c.take && !c.done && !c.store)
                ++m_result.cover["full_idle"];
            const bool assertion = rtl.assertion_failed();
            std::string problem = assertion ? "an RTL assertion failed (its message above)" : "";
            if (problem.empty() && !(want == got))
                problem = "the RTL differs from the core";
            if (problem.empty() && cycle % 1024 == 0)
                problem = core.check();
            if (!problem.empty()) {
                mismatch(cycle, problem,
                         describe(cfg, run) + describe(c) + "core:\n" + describe(want) + "RTL:\n" +
                             describe(got));
                return false;
            }
        }
        return true;
    }

    /// The core's calls in the cycle's order: take_head, write_done, store, mark_lost.
    view reference(slot_buffer& core, const cycle_calls& c, std::vector<bool>& in_flight,
                   bool replace)
    {
        view v;
        if (c.take) {
            if (const std::optional<unsigned> a = core.take_head()) {
                v.take_ok = true;
                v.take_slot = *a;
                v.written = core.contents(*a);
                in_flight[*a] = true;
                m_freed.push_back(m_slot_tag[*a]);
                ++m_result.cover["take"];
                if (!v.written.empty() && lost_before(v.written[0]))
                    ++m_result.cover["take_loss_flag"];
            } else {
                ++m_result.cover["take_empty"];
            }
        }
        if (c.done) {
            ++m_result.cover[in_flight[c.done_slot] ? "done" : "done_ignored"];
            if (c.take && v.take_ok && c.done_slot == v.take_slot)
                ++m_result.cover["done_at_issue"];
            in_flight[c.done_slot] = false;
            core.write_done(c.done_slot);
        }
        if (c.store) {
            std::vector<unsigned> before;
            if (replace && core.free_slots() == 0)
                before = core.outlis();
            while (m_live[m_next_tag % tag_count])
                ++m_next_tag;
            const unsigned tag = m_next_tag++ % tag_count;
            m_payload[tag] = c.g;
            m_store_tag = tag;
            store_result r = core.store(c.store_src, c.g);
            if (r.what == store_result::kind::replaced)
                m_freed.push_back(m_slot_tag[r.slot]);
            if (r.what == store_result::kind::stored || r.what == store_result::kind::replaced) {
                m_slot_tag[r.slot] = tag;
                m_live[tag] = true;
            }
            v.st_kind = static_cast<int>(r.what);
            if (r.what == store_result::kind::stored || r.what == store_result::kind::replaced)
                v.st_slot = r.slot;
            if (r.what == store_result::kind::replaced) {
                v.st_victim = r.victim_source;
                v.st_lost = std::move(r.lost);
                const auto at = std::find(before.begin(), before.end(), r.slot) - before.begin();
                ++m_result.cover[at == 0 ? "replace_head"
                                 : static_cast<std::size_t>(at) + 1 == before.size()
                                     ? "replace_tail"
                                     : "replace_middle"];
                if (r.victim_source != c.store_src)
                    ++m_result.cover["replace_other_source"];
            }
            static const char* const kinds[] = {"store", "replace", "stall", "dropped"};
            ++m_result.cover[kinds[static_cast<unsigned>(r.what)]];
            if (c.take)
                ++m_result.cover["store_and_take"];
        }
        if (c.lost) {
            core.mark_lost(c.lost_src);
            ++m_result.cover["mark_lost"];
        }
        return v;
    }

    /// The RTL's cycle with the same calls (sources as priority ranks).
    view model(outlis_rtl<Model>& rtl, const cycle_calls& c, const std::vector<unsigned>& rank,
               const run_config& cfg)
    {
        rtl_in in;
        in.take = c.take;
        in.done = c.done;
        in.done_slot = c.done_slot;
        in.store = c.store;
        in.store_src = rank[c.store_src];
        in.tag = m_store_tag;
        in.empty = c.g.empty();
        in.lost = c.lost;
        in.lost_src = rank[c.lost_src];
        const rtl_out o = rtl.cycle(in);
        view v;
        if (o.take_ok) {
            v.take_ok = true;
            v.take_slot = o.take_slot;
            v.written = m_payload[o.take_tag];
            if (o.take_loss && !v.written.empty())
                v.written[0] |= loss_flag;
        }
        if (c.store) {
            v.st_kind = static_cast<int>(o.st_kind);
            if (o.st_kind <= 1)
                v.st_slot = o.st_slot;
            if (o.st_kind == 1) {
                v.st_victim = cfg.priority[o.st_victim % sources];
                v.st_lost = m_payload[o.st_lost_tag];
            }
        }
        // A tag is reused only after the cycle that wrote or replaced its group.
        for (unsigned tag : m_freed)
            m_live[tag] = false;
        m_freed.clear();
        return v;
    }

    void state_of(const slot_buffer& core, const std::vector<bool>& in_flight, view& v)
    {
        v.head = core.head();
        v.tail = core.tail();
        v.outlis = core.outlis();
        v.count = static_cast<unsigned>(v.outlis.size());
        for (unsigned a : v.outlis)
            v.outlis_src.push_back(core.source_of_slot(a));
        v.free = static_cast<unsigned>(core.free_slots());
        v.flight = static_cast<unsigned>(core.in_flight());
        for (unsigned a = 0; a < slots; ++a)
            if (in_flight[a])
                v.flight_slots.push_back(a);
    }

    void state_of(const outlis_rtl<Model>& rtl, const run_config& cfg, view& v)
    {
        const rtl_state s = rtl.state();
        v.count = s.count;
        v.free = s.free;
        v.flight = s.flight;
        if (s.count != 0) {
            v.head = s.head;
            v.tail = s.tail;
        }
        unsigned a = s.head;
        for (unsigned i = 0; i < s.count && i <= slots; ++i) {
            v.outlis.push_back(a);
            v.outlis_src.push_back(cfg.priority[s.src[a] % sources]);
            a = s.next[a];
        }
        for (unsigned i = 0; i < slots; ++i)
            if (s.where[i] == 2)
                v.flight_slots.push_back(i);
    }

    void count(const view& v, const slot_buffer& core)
    {
        if (core.free_slots() == 0)
            ++m_result.cover["full"];
        if (v.count == 0)
            ++m_result.cover["empty"];
        if (v.flight == slots)
            ++m_result.cover["all_in_flight"];
    }

    void mismatch(std::uint64_t cycle, const std::string& problem, const std::string& states)
    {
        m_result.ok = false;
        m_result.mismatch = cycle;
        std::ostringstream os;
        os << "seed " << m_opts.seed << (m_opts.broken ? " (broken RTL)" : "") << ", cycle "
           << cycle << ": " << problem << "\n"
           << states;
        m_result.report = os.str();
    }

    std::string vcd_name(const std::string& what) const
    {
        return m_opts.vcd_dir + "/outlis_rtl_seed" + std::to_string(m_opts.seed) +
               (m_opts.broken ? "_broken_" : "_") + what + ".vcd";
    }

    bench_options m_opts;
    stimulus m_stim;
    bench_result m_result;
    std::vector<group> m_payload = std::vector<group>(tag_count);
    std::vector<bool> m_live = std::vector<bool>(tag_count, false); ///< tags in a slot
    std::vector<unsigned> m_slot_tag = std::vector<unsigned>(slots, 0), m_freed;
    std::uint64_t m_next_tag = 0;
    unsigned m_store_tag = 0;
};

template <class Model> bench_result run_with(const bench_options& opts)
{
    bench_result r = bench<Model>(opts).run();
    if (!r.ok && opts.vcd_path.empty()) {
        // Replay the same seed up to the mismatch, tracing its last cycles.
        bench_options replay = opts;
        replay.stop_after = r.mismatch;
        replay.vcd_from = r.mismatch + 1 > opts.vcd_window ? r.mismatch + 1 - opts.vcd_window : 0;
        replay.vcd_final = false;
        replay.code_coverage.clear();
        replay.vcd_path = opts.vcd_dir + "/outlis_rtl_seed" + std::to_string(opts.seed) +
                          (opts.broken ? "_broken" : "") + "_cycle" + std::to_string(r.mismatch) +
                          ".vcd";
        const bench_result again = bench<Model>(replay).run();
        r.vcd = again.vcd;
        r.report += "the last " + std::to_string(r.mismatch + 1 - replay.vcd_from) +
                    " cycles: " + r.vcd +
                    (again.mismatch == r.mismatch ? "" : " (replay differs)") + '\n';
    }
    return r;
}

} // namespace

bench_result run_bench(const bench_options& opts)
{
    return opts.broken ? run_with<Voutlis_buffer_broken>(opts) : run_with<Voutlis_buffer>(opts);
}

} // namespace vgpu::shader_trace::rtl_test
