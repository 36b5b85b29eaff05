// First-touch claims (no SystemC): which SM's touch places a page when several touch it at
// nearly the same time. See models/page_alloc/README.md ("Who touches first").
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace vgpu::placement {

/// A touch of a page not placed yet: when (simulated ps) and by which SM.
struct touch_claim {
    std::uint64_t at_ps = 0; ///< when the touch found the page not present
    int sm = 0;              ///< the touching SM (global index)
    /// The earlier touch, ties to the lower SM.
    bool operator<(const touch_claim& o) const
    {
        return at_ps != o.at_ps ? at_ps < o.at_ps : sm < o.sm;
    }
};

/// The rule that picks a page's first touch, the same in both timing modes: the touch with the
/// earliest time wins, ties to the lowest SM id. A touch is made (a call) at a simulated time
/// at or before its own time (fast mode runs ahead, accurate mode calls at it), so once
/// simulated time has passed the earliest claim's time, every touch that could beat it has
/// been seen and the page is decided. Until then the touchers wait and the page stays unplaced.
class touch_claims {
public:
    /// A touch of page vpn, made at simulated time now_ps. The winner if the page can be
    /// decided now (now_ps past the earliest claim's time, or `decide_now`: a toucher that
    /// cannot wait), which forgets the page's claims; otherwise nothing (the claim is kept).
    std::optional<touch_claim> touch(std::uint64_t vpn, touch_claim c, std::uint64_t now_ps,
                                     bool decide_now)
    {
        auto [it, fresh] = m_claims.emplace(vpn, c);
        if (!fresh && c < it->second)
            it->second = c;
        return decide_now ? take(it) : decide(vpn, now_ps);
    }
    /// The winner of page vpn if simulated time now_ps has passed its earliest claim's time
    /// (forgetting the page's claims); otherwise, or without claims, nothing.
    std::optional<touch_claim> decide(std::uint64_t vpn, std::uint64_t now_ps)
    {
        const auto it = m_claims.find(vpn);
        if (it == m_claims.end() || now_ps <= it->second.at_ps)
            return std::nullopt;
        return take(it);
    }
    /// The earliest claim on page vpn so far, if any.
    std::optional<touch_claim> earliest(std::uint64_t vpn) const
    {
        const auto it = m_claims.find(vpn);
        return it == m_claims.end() ? std::nullopt : std::optional<touch_claim>(it->second);
    }
    /// When page vpn can be decided: just after its earliest claim's time.
    std::uint64_t due_ps(std::uint64_t vpn) const
    {
        const auto e = earliest(vpn);
        return e ? e->at_ps + 1 : 0;
    }
    /// Forgets the claims of page vpn (placed by another path).
    void forget(std::uint64_t vpn) { m_claims.erase(vpn); }
    std::size_t pending() const { return m_claims.size(); } ///< pages with claims, undecided

private:
    std::optional<touch_claim> take(std::map<std::uint64_t, touch_claim>::iterator it)
    {
        const touch_claim first = it->second;
        m_claims.erase(it);
        return first;
    }
    std::map<std::uint64_t, touch_claim> m_claims; ///< page -> earliest claim so far
};

} // namespace vgpu::placement
