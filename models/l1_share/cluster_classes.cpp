// L1 sharing (`adaptive`): per-epoch classification of a cluster's SMs. See
// models/l1_share/README.md.
#include "models/l1_share/cluster_classes.h"
#include "models/common/trace_events.h"

namespace vgpu::l1_share {

cluster_classes::cluster_classes(const std::string& path, unsigned sms, unsigned first_sm,
                                 std::uint64_t epoch_ps, classify_params p)
    : m_core(sms, epoch_ps, p), m_first_sm(first_sm), m_stats(path)
{
    auto add = [this](std::string name, const char* unit, std::string desc,
                      std::function<double()> f) {
        m_formulas.emplace_back(m_stats, std::move(name), unit, std::move(desc), std::move(f));
    };
    add("epochs", "count", "classification epochs seen (l1.epoch_cycles each)", [this] {
        settle();
        return static_cast<double>(m_core.epochs_seen());
    });
    for (unsigned s = 0; s < sms; ++s) {
        const std::string sm = "sm" + std::to_string(first_sm + s);
        add(sm + "_memory_epochs", "count",
            "epochs " + sm + " was memory-intensive (borrowing a partner's L1 if one was free)",
            [this, s] {
                settle();
                return static_cast<double>(m_core.memory_epochs(s));
            });
        add(sm + "_compute_epochs", "count",
            "epochs " + sm + " was compute-intensive (lending its L1)", [this, s] {
                settle();
                return static_cast<double>(m_core.compute_epochs(s));
            });
        add(sm + "_class_changes", "count", "times " + sm + "'s class changed at a boundary",
            [this, s] {
                settle();
                return static_cast<double>(m_core.changes(s));
            });
    }
}

void cluster_classes::settle()
{
    if (m_now)
        advance(m_now(), false);
}

void cluster_classes::advance(std::uint64_t now_ps, bool trace)
{
    const auto changes = m_core.advance(
        now_ps, [this](unsigned s) { return m_totals ? m_totals(s) : instruction_totals{}; });
    trace::recorder& rec = trace::recorder::instance();
    if (changes.empty() || !trace || !rec.enabled())
        return;
    for (const class_change& c : changes) {
        const std::string sm = "sm" + std::to_string(m_first_sm + c.sm);
        const bool memory = c.now == intensity::memory;
        rec.counter(m_stats.path(), sm + " memory-intensive", memory ? 1.0 : 0.0, c.at);
        std::string what = sm + (memory ? " memory-intensive" : " compute-intensive");
        if (memory)
            what += c.partner >= 0 ? ", borrows sm" + std::to_string(m_first_sm + c.partner)
                                   : ", no partner (misses to the LLC)";
        rec.instant(m_stats.path(), "classes", what, c.at);
    }
}

int cluster_classes::partner(unsigned sm, std::uint64_t now_ps)
{
    advance(now_ps);
    return m_core.partner(sm);
}

} // namespace vgpu::l1_share
