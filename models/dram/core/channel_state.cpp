// Bank and data-bus timing of one DRAM channel. See models/dram/README.md ("Bank timing").
#include "models/dram/core/channel_state.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace vgpu::dram {

std::uint64_t dram_timing::transfer_ps(std::uint64_t bytes) const
{
    // The small epsilon keeps exact results (128 B at 64 GB/s = 2000 ps) from rounding up.
    const double ps = std::ceil(static_cast<double>(bytes) * 1000.0 / bandwidth_gbps - 1e-6);
    const auto exact = static_cast<std::uint64_t>(std::max(1.0, ps));
    return std::max(tBURST, exact);
}

channel_state::channel_state(const dram_timing& t, unsigned banks) : m_t(t), m_banks(banks)
{
    if (banks == 0 || !(t.bandwidth_gbps > 0))
        throw std::invalid_argument("dram channel: needs a bank and a positive bandwidth");
}

access_plan channel_state::plan_after(const bank_state& prev, std::uint64_t row,
                                      std::uint64_t occupancy, std::uint64_t start, bool bus) const
{
    access_plan p;
    p.outcome = prev.outcome(row);
    const std::uint64_t s = std::max(start, prev.ready_ps);
    std::uint64_t column = s;
    switch (p.outcome) {
    case row_outcome::hit:
        p.row_activated_ps = prev.activated_ps;
        break;
    case row_outcome::miss:
        p.first_ps = p.activate_ps = p.row_activated_ps = s;
        column = s + m_t.tRCD;
        break;
    case row_outcome::conflict:
        p.first_ps = std::max(s, prev.activated_ps + m_t.tRAS); // PRECHARGE
        p.activate_ps = p.row_activated_ps = p.first_ps + m_t.tRP;
        column = p.activate_ps + m_t.tRCD;
        break;
    }
    p.data_ps = bus ? m_bus.first_fit(column + m_t.tCL, occupancy) : column + m_t.tCL;
    p.column_ps = p.data_ps - m_t.tCL;
    if (p.outcome == row_outcome::hit)
        p.first_ps = p.column_ps;
    p.end_ps = p.data_ps + occupancy;
    return p;
}

bool channel_state::fits(const access_plan& a, std::uint64_t row, std::uint64_t next_first,
                         const booking& next) const
{
    const std::uint64_t a_end = a.column_ps + (a.end_ps - a.data_ps);
    const std::uint64_t close = std::max(a_end, a.row_activated_ps + m_t.tRAS); // PRECHARGE
    // An access that leaves open the row the next booking opens or uses: that booking's column
    // command finds its row open at its planned time (a miss's or conflict's PRECHARGE and
    // ACTIVATE are then not needed and the bank idles instead), so it runs as planned.
    if (next.after.row == row)
        return a_end <= next_first;
    switch (next.outcome) {
    case row_outcome::hit:
        return close + m_t.tRP + m_t.tRCD <= next_first; // its row must be open again
    case row_outcome::conflict:
        return close <= next_first;
    case row_outcome::miss:
        return close + m_t.tRP <= next_first; // it found the bank closed: close it again
    }
    return false;
}

access_plan channel_state::plan(unsigned bank, std::uint64_t row, std::uint64_t bytes,
                                std::uint64_t start) const
{
    plan_cursor at;
    return plan(bank, row, bytes, start, at);
}

access_plan channel_state::plan(unsigned bank, std::uint64_t row, std::uint64_t bytes,
                                std::uint64_t start, plan_cursor& at) const
{
    const timeline& tl = settle(bank);
    // The first gap to try: the one start falls in, or the earlier plan's gap if that is later.
    auto next = tl.booked.begin() + static_cast<std::ptrdiff_t>(at.gap);
    if (next == tl.booked.begin() || !(start < std::prev(next)->first))
        next = tl.booked.upper_bound(start);
    bank_state prev = next == tl.booked.begin() ? tl.base : std::prev(next)->second.after;
    // Accesses are nearly always one size: the last size's transfer time is kept (the
    // computation takes a floating-point division and rounding, per plan).
    if (bytes != m_occupancy_bytes) {
        m_occupancy_bytes = bytes;
        m_occupancy_ps = m_t.transfer_ps(bytes);
    }
    const std::uint64_t occupancy = m_occupancy_ps;
    for (;;) {
        // A later data slot only ends the access later, so a gap that cannot hold it with the
        // bus free cannot hold it at all: skip the bus search there.
        const bool last = next == tl.booked.end();
        if (last ||
            fits(plan_after(prev, row, occupancy, start, false), row, next->first, next->second)) {
            const access_plan p = plan_after(prev, row, occupancy, start, true);
            if (last || fits(p, row, next->first, next->second)) {
                at.gap = static_cast<std::size_t>(next - tl.booked.begin());
                return p;
            }
        }
        prev = next->second.after;
        ++next;
    }
}

const bank_state& channel_state::state_at(unsigned bank, std::uint64_t start) const
{
    const timeline& tl = settle(bank);
    const auto next = tl.booked.upper_bound(start);
    return next == tl.booked.begin() ? tl.base : std::prev(next)->second.after;
}

bool channel_state::booked_after(unsigned bank, std::uint64_t start) const
{
    const timeline& tl = settle(bank);
    return !tl.booked.empty() && start < tl.booked.back().first;
}

bool channel_state::commit(unsigned bank, std::uint64_t row, const access_plan& p)
{
    m_committed[m_commits++ % commit_log] = {bank, p.data_ps, p.end_ps};
    timeline& tl = settle(bank);
    booking b;
    b.outcome = p.outcome;
    b.after.open = true;
    b.after.row = row;
    b.after.activated_ps = p.row_activated_ps;
    // The column commands of the access span its data transfer; the bank's next command
    // (another column command, or a PRECHARGE) follows them.
    b.after.ready_ps = p.column_ps + (p.end_ps - p.data_ps);
    auto at = tl.booked.lower_bound(p.first_ps);
    if (at != tl.booked.end() && at->first == p.first_ps)
        throw std::logic_error("dram bank booking collides with an earlier booking");
    at = tl.booked.insert(at, p.first_ps, b);
    // A row hit booked after it that needs another row gets it back just in time (fits()
    // checked there is room): that row's ACTIVATE moves to then, for tRAS.
    auto next = std::next(at);
    if (next != tl.booked.end() && next->second.outcome == row_outcome::hit &&
        next->second.after.row != row)
        next->second.after.activated_ps =
            std::max(next->second.after.activated_ps, next->first - m_t.tRCD);
    m_bus.book(p.data_ps, p.end_ps - p.data_ps);
    return next != tl.booked.end() && next->second.outcome != row_outcome::hit &&
           next->second.after.row == row;
}

void channel_state::prune(timeline& tl) const
{
    tl.settled = m_forgets;
    while (!tl.booked.empty() && tl.booked.front().second.after.ready_ps <= m_forget_ps) {
        tl.base = tl.booked.front().second.after;
        tl.booked.pop_front();
    }
}

void channel_state::forget(std::uint64_t now)
{
    if (now < m_forget_ps) // time went back (tests): apply the later time to every bank first
        for (unsigned b = 0; b < banks(); ++b)
            settle(b);
    m_forget_ps = now;
    m_forgotten_until = std::max(m_forgotten_until, now);
    ++m_forgets;
    m_bus.forget(now);
}

bank_state channel_state::bank(unsigned b) const
{
    const timeline& tl = settle(b);
    return tl.booked.empty() ? tl.base : tl.booked.back().second.after;
}

} // namespace vgpu::dram
