// Post-dominators and the reconverging block layout of the translator (translate.h).
#include "models/sm/ptx/translate.h"

#include <algorithm>
#include <functional>
#include <string>

namespace vgpu::ptx {

namespace {

/// Immediate dominators of a graph given by preds/succs from `root` (Cooper, Harvey and
/// Kennedy's iterative algorithm); unreachable nodes get npos.
std::vector<std::size_t> dominators(const std::vector<std::vector<std::size_t>>& succs,
                                    const std::vector<std::vector<std::size_t>>& preds,
                                    std::size_t root)
{
    const std::size_t n = succs.size(), none = static_cast<std::size_t>(-1);
    // Reverse postorder from root.
    std::vector<std::size_t> post, order(n, none);
    std::vector<char> seen(n, 0);
    std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
    seen[root] = 1;
    while (!stack.empty()) {
        auto& [v, i] = stack.back();
        if (i < succs[v].size()) {
            const std::size_t w = succs[v][i++];
            if (!seen[w]) {
                seen[w] = 1;
                stack.push_back({w, 0});
            }
        } else {
            order[v] = post.size();
            post.push_back(v);
            stack.pop_back();
        }
    }
    std::vector<std::size_t> idom(n, none);
    idom[root] = root;
    auto intersect = [&](std::size_t a, std::size_t b) {
        while (a != b) {
            while (order[a] < order[b])
                a = idom[a];
            while (order[b] < order[a])
                b = idom[b];
        }
        return a;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t k = post.size(); k-- > 0;) {
            const std::size_t v = post[k];
            if (v == root)
                continue;
            std::size_t nd = none;
            for (const std::size_t p : preds[v])
                if (idom[p] != none)
                    nd = nd == none ? p : intersect(p, nd);
            if (nd != idom[v]) {
                idom[v] = nd;
                changed = true;
            }
        }
    }
    return idom;
}

/// True when a dominates b in the tree idom (root maps to itself).
bool dominates(const std::vector<std::size_t>& idom, std::size_t a, std::size_t b)
{
    const std::size_t none = static_cast<std::size_t>(-1);
    if (idom[b] == none)
        return false;
    for (;;) {
        if (a == b)
            return true;
        if (idom[b] == b)
            return false;
        b = idom[b];
    }
}

std::vector<std::vector<std::size_t>> predecessors(const std::vector<std::vector<std::size_t>>& s)
{
    std::vector<std::vector<std::size_t>> p(s.size());
    for (std::size_t v = 0; v < s.size(); ++v)
        for (const std::size_t w : s[v])
            p[w].push_back(v);
    return p;
}

/// Blocks reachable from b without passing through p (b included, p excluded).
std::vector<char> region(const flow_graph& g, std::size_t b, std::size_t p)
{
    std::vector<char> in(g.succs.size(), 0);
    std::vector<std::size_t> work{b};
    in[b] = 1;
    while (!work.empty()) {
        const std::size_t v = work.back();
        work.pop_back();
        for (const std::size_t w : g.succs[v])
            if (w != p && !in[w]) {
                in[w] = 1;
                work.push_back(w);
            }
    }
    return in;
}

bool branches(const flow_graph& g, std::size_t b)
{
    const auto& s = g.succs[b];
    return std::any_of(s.begin(), s.end(), [&](std::size_t x) { return x != s.front(); });
}

} // namespace

std::vector<std::size_t> post_dominators(const flow_graph& g)
{
    const std::size_t n = g.succs.size();
    // Reverse graph with a virtual exit n: exits (and blocks that reach no exit) lead to it.
    std::vector<std::vector<std::size_t>> fwd = g.succs;
    fwd.emplace_back();
    for (std::size_t v = 0; v < n; ++v)
        if (g.succs[v].empty())
            fwd[v].push_back(n);
    // Blocks that cannot reach an exit (an infinite loop) also lead to it.
    std::vector<char> reach(n + 1, 0);
    {
        const auto pr = predecessors(fwd);
        std::vector<std::size_t> work{n};
        reach[n] = 1;
        while (!work.empty()) {
            const std::size_t v = work.back();
            work.pop_back();
            for (const std::size_t p : pr[v])
                if (!reach[p]) {
                    reach[p] = 1;
                    work.push_back(p);
                }
        }
    }
    for (std::size_t v = 0; v < n; ++v)
        if (!reach[v])
            fwd[v].push_back(n);
    const auto rev = predecessors(fwd); // succs of the reverse graph
    std::vector<std::size_t> ip = dominators(rev, fwd, n);
    ip.pop_back();
    for (std::size_t& x : ip)
        if (x == static_cast<std::size_t>(-1))
            x = n;
    return ip;
}

std::vector<std::size_t> reconverging_layout(const flow_graph& g, std::string* why)
{
    const std::size_t n = g.succs.size();
    if (n == 0)
        return {};
    const auto preds = predecessors(g.succs);
    const auto idom = dominators(g.succs, preds, 0);
    const auto ipdom = post_dominators(g);
    // Forward in-degree (back edges: to a dominator of the source; unreachable blocks drop).
    std::vector<std::size_t> indeg(n, 0);
    for (std::size_t v = 0; v < n; ++v)
        if (idom[v] != static_cast<std::size_t>(-1))
            for (const std::size_t w : g.succs[v])
                if (!dominates(idom, w, v))
                    ++indeg[w];
    // Joins: p must wait until every block of each region it closes is placed. left[k]: the
    // blocks of region k not placed yet; member[x]: the regions x belongs to.
    std::vector<std::vector<std::size_t>> waits(n), member(n);
    std::vector<std::size_t> left;
    for (std::size_t b = 0; b < n; ++b) {
        if (idom[b] == static_cast<std::size_t>(-1) || !branches(g, b) || ipdom[b] >= n)
            continue;
        const auto r = region(g, b, ipdom[b]);
        std::size_t count = 0;
        for (std::size_t x = 0; x < n; ++x)
            if (r[x]) {
                member[x].push_back(left.size());
                ++count;
            }
        waits[ipdom[b]].push_back(left.size());
        left.push_back(count);
    }
    std::vector<char> placed(n, 0);
    std::vector<std::size_t> order;
    std::vector<char> ready(n, 0);
    ready[0] = 1;
    std::size_t reachable = 0;
    for (std::size_t v = 0; v < n; ++v)
        reachable += idom[v] != static_cast<std::size_t>(-1);
    while (order.size() < reachable) {
        std::size_t pick = n;
        for (std::size_t v = 0; v < n && pick == n; ++v)
            if (ready[v] && !placed[v] &&
                std::all_of(waits[v].begin(), waits[v].end(),
                            [&](std::size_t k) { return left[k] == 0; }))
                pick = v;
        if (pick == n) {
            if (why) {
                bool cyclic = true;
                for (std::size_t v = 0; v < n; ++v)
                    if (ready[v] && !placed[v])
                        cyclic = false;
                *why = cyclic ? "irreducible control flow (a loop with several entries)"
                              : "no block layout puts every join after the blocks that reach "
                                "it (a join reached only through a loop's back edge)";
            }
            return {};
        }
        placed[pick] = 1;
        order.push_back(pick);
        for (const std::size_t k : member[pick])
            --left[k];
        for (const std::size_t w : g.succs[pick])
            if (!dominates(idom, w, pick) && --indeg[w] == 0)
                ready[w] = 1;
    }
    return order;
}

std::string check_layout(const flow_graph& g, const std::vector<std::size_t>& order)
{
    const std::size_t n = g.succs.size(), none = static_cast<std::size_t>(-1);
    std::vector<std::size_t> pos(n, none);
    for (std::size_t i = 0; i < order.size(); ++i)
        pos[order[i]] = i;
    if (order.empty() || order[0] != 0)
        return "the entry block is not first";
    const auto idom = dominators(g.succs, predecessors(g.succs), 0);
    const auto ipdom = post_dominators(g);
    for (std::size_t v = 0; v < n; ++v) {
        if (idom[v] == none)
            continue;
        if (pos[v] == none)
            return "block " + std::to_string(v) + " is not placed";
        for (const std::size_t w : g.succs[v])
            if (!dominates(idom, w, v) && pos[w] < pos[v])
                return "forward edge " + std::to_string(v) + "->" + std::to_string(w) +
                       " goes backward";
        if (!branches(g, v) || ipdom[v] >= n)
            continue;
        const auto r = region(g, v, ipdom[v]);
        for (std::size_t x = 0; x < n; ++x)
            if (r[x] && pos[x] != none && pos[x] > pos[ipdom[v]])
                return "block " + std::to_string(x) + " reached from branch " + std::to_string(v) +
                       " is placed after its join " + std::to_string(ipdom[v]);
    }
    return "";
}

} // namespace vgpu::ptx
