// The token packer. See models/shader_trace/core/packer.h.
#include "models/shader_trace/core/packer.h"

namespace vgpu::shader_trace {

const char* name(event e)
{
    static const char* const names[] = {"kernel_begin",   "kernel_end",      "cta_dispatch",
                                        "cta_retire",     "warp_start",      "warp_exit",
                                        "barrier_arrive", "barrier_release", "user"};
    const auto i = static_cast<unsigned>(e);
    return i < sizeof names / sizeof names[0] ? names[i] : "unknown";
}

packer::packer(unsigned source, unsigned tokens_per_group)
    : m_source(source), m_g(tokens_per_group < 2 ? 2 : tokens_per_group)
{
    m_cur.reserve(m_g);
}

void packer::start(std::uint64_t time)
{
    m_cur.clear();
    m_cur.push_back(make_full(m_source, static_cast<unsigned>(m_seq), time));
    m_last = time;
}

void packer::add(event e, unsigned warp, std::uint32_t arg, std::uint64_t time,
                 std::vector<group>& out)
{
    if (m_cur.empty())
        start(time);
    // A delta that does not fit forces a FULL token (a resync within the group); with no room
    // left for FULL + event the group closes and the event starts the next one.
    if (time - m_last > max_delta) {
        if (m_cur.size() + 2 > m_g) {
            out.push_back(*flush());
            start(time);
        } else {
            m_cur.push_back(make_full(m_source, static_cast<unsigned>(m_seq), time));
            m_last = time;
        }
    }
    m_cur.push_back(make_event(m_source, e, warp, static_cast<unsigned>(time - m_last), arg));
    m_last = time;
    if (m_cur.size() == m_g)
        out.push_back(*flush());
}

std::optional<group> packer::flush()
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

} // namespace vgpu::shader_trace
