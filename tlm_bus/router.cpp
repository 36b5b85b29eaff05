// Address router. See docs/tlm-bus.md.
#include "tlm_bus/router.h"

#include <algorithm>
#include <stdexcept>

namespace vgpu::tlm_bus {

router::router(const sc_core::sc_module_name& name) : sc_module(name), in("in"), out("out")
{
    in.register_b_transport(this, &router::b_transport);
    in.register_transport_dbg(this, &router::transport_dbg);
    in.register_get_direct_mem_ptr(this, &router::get_direct_mem_ptr);
    out.register_invalidate_direct_mem_ptr(this, &router::invalidate_direct_mem_ptr);
}

void router::map(const address_range& r)
{
    if (r.size == 0 || r.base + r.size - 1 < r.base)
        throw std::invalid_argument(std::string(name()) + ": window '" + r.name +
                                    "' is empty or wraps");
    for (const auto& o : m_ranges)
        if (r.base < o.base + o.size && o.base < r.base + r.size)
            throw std::invalid_argument(std::string(name()) + ": window '" + r.name +
                                        "' overlaps '" + o.name + "'");
    m_ranges.push_back(r);
    std::sort(m_ranges.begin(), m_ranges.end(),
              [](const address_range& a, const address_range& b) { return a.base < b.base; });
}

std::uint64_t router::base(const std::string& name) const
{
    for (const auto& w : m_bases)
        if (w.name == name)
            return w.base;
    throw std::invalid_argument(std::string(this->name()) + ": no window '" + name +
                                "' in the address map");
}

void router::end_of_elaboration()
{
    for (const auto& r : m_ranges)
        if (r.target >= out.size())
            SC_REPORT_FATAL("vgpu/router", (std::string(name()) + ": window '" + r.name +
                                            "' maps to an unbound output")
                                               .c_str());
}

const address_range* router::decode(std::uint64_t addr) const
{
    auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), addr,
                               [](std::uint64_t a, const address_range& r) { return a < r.base; });
    if (it == m_ranges.begin())
        return nullptr;
    --it;
    return addr - it->base < it->size ? &*it : nullptr;
}

void router::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    std::uint64_t addr = gp.get_address();
    const address_range* r = decode(addr);
    if (!r || addr - r->base + gp.get_data_length() > r->size) {
        ++m_unmapped;
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    gp.set_address(addr - r->base + r->offset);
    out[r->target]->b_transport(gp, delay);
    gp.set_address(addr);
}

unsigned router::transport_dbg(int, tlm::tlm_generic_payload& gp)
{
    std::uint64_t addr = gp.get_address();
    const address_range* r = decode(addr);
    if (!r)
        return 0;
    // A debug access is clipped to the window rather than refused: it reports what it moved.
    unsigned len = gp.get_data_length();
    auto room = r->size - (addr - r->base);
    if (len > room)
        gp.set_data_length(static_cast<unsigned>(room));
    gp.set_address(addr - r->base + r->offset);
    unsigned n = out[r->target]->transport_dbg(gp);
    gp.set_address(addr);
    gp.set_data_length(len);
    return n;
}

bool router::get_direct_mem_ptr(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi)
{
    std::uint64_t addr = gp.get_address();
    const address_range* r = decode(addr);
    if (!r)
        return false;
    gp.set_address(addr - r->base + r->offset);
    bool ok = out[r->target]->get_direct_mem_ptr(gp, dmi);
    gp.set_address(addr);
    // Translate the granted range back into our address space and clip it to the window.
    std::uint64_t lo = r->offset, hi = r->offset + r->size - 1;
    std::uint64_t start = std::max<std::uint64_t>(dmi.get_start_address(), lo);
    std::uint64_t end = std::min<std::uint64_t>(dmi.get_end_address(), hi);
    if (start > end) {
        dmi.set_start_address(addr);
        dmi.set_end_address(addr);
        return false;
    }
    if (ok)
        dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (start - dmi.get_start_address()));
    dmi.set_start_address(start - r->offset + r->base);
    dmi.set_end_address(end - r->offset + r->base);
    return ok;
}

void router::invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end)
{
    for (const auto& r : m_ranges) {
        if (r.target != static_cast<unsigned>(id))
            continue;
        std::uint64_t lo = std::max<std::uint64_t>(start, r.offset);
        std::uint64_t hi = std::min<std::uint64_t>(end, r.offset + r.size - 1);
        if (lo > hi)
            continue;
        for (unsigned i = 0; i < in.size(); ++i)
            in[i]->invalidate_direct_mem_ptr(lo - r.offset + r.base, hi - r.offset + r.base);
    }
}

} // namespace vgpu::tlm_bus
