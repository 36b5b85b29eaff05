// The token packer. See models/shader_trace/core/packer.h.
#include "models/shader_trace/core/packer.h"

#include <array>

namespace vgpu::shader_trace {

const char* name(event e)
{
    static const char* const names[] = {"kernel_begin",   "kernel_end",      "cta_dispatch",
                                        "cta_retire",     "warp_start",      "warp_exit",
                                        "barrier_arrive", "barrier_release", "user"};
    const auto i = static_cast<unsigned>(e);
    return i < sizeof names / sizeof names[0] ? names[i] : "unknown";
}

namespace {
constexpr std::array<std::uint8_t, 256> crc8_table()
{
    std::array<std::uint8_t, 256> t{};
    for (unsigned i = 0; i < 256; ++i) {
        unsigned c = i;
        for (int b = 0; b < 8; ++b)
            c = (c & 0x80) ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
        t[i] = static_cast<std::uint8_t>(c);
    }
    return t;
}
constexpr std::array<std::uint8_t, 256> crc8 = crc8_table();
} // namespace

std::uint8_t chain_check(std::uint8_t crc, std::uint64_t t)
{
    t &= ~loss_flag;
    for (int b = 0; b < 8; ++b)
        crc = crc8[static_cast<std::uint8_t>(crc ^ static_cast<std::uint8_t>(t >> (8 * b)))];
    return crc;
}

packer::packer(unsigned source, unsigned tokens_per_group, unsigned sync_interval)
    : m_source(source), m_g(tokens_per_group < 2 ? 2 : tokens_per_group),
      m_interval(sync_interval < 1 ? 1 : sync_interval)
{
    m_cur.reserve(m_g);
}

void packer::sync(std::uint64_t time)
{
    m_cur.push_back(make_sync(m_source, static_cast<unsigned>(m_seq), m_check, time));
    m_check = 0;
    m_last = time;
    m_need_sync = false;
    ++m_syncs;
}

void packer::add(event e, unsigned warp, std::uint32_t arg, std::uint64_t time,
                 std::vector<group>& out)
{
    // A SYNC before this event: periodic (a group opening at a multiple of sync_interval), a
    // delta too long for its field, or after a loss. It and the event go in one group: with
    // no room left for both, the group closes (padded) and the pair opens the next one.
    const bool opening = m_cur.empty() && m_seq % m_interval == 0;
    if (opening || m_need_sync || time - m_last > max_delta) {
        if (m_cur.size() + 2 > m_g)
            out.push_back(*close());
        sync(time);
    }
    const std::uint64_t t =
        make_event(m_source, e, warp, static_cast<unsigned>(time - m_last), arg);
    m_check = chain_check(m_check, t);
    m_cur.push_back(t);
    m_last = time;
    if (m_cur.size() == m_g)
        out.push_back(*close());
}

std::optional<group> packer::close()
{
    if (m_cur.empty())
        return std::nullopt;
    group g = std::move(m_cur);
    g.resize(m_g, 0); // PAD
    m_cur = {};
    m_cur.reserve(m_g);
    ++m_seq;
    return g;
}

std::optional<group> packer::flush()
{
    if (m_cur.empty())
        return std::nullopt;
    // A partial group always has room for a closing SYNC (in what would be padding): it lets
    // the decoder check the chain up to the last event now rather than at the next sync.
    sync(m_last);
    return close();
}

} // namespace vgpu::shader_trace
