// Address router: decodes to one of its outputs, translates addresses, clips DMI ranges to the
// mapping window and forwards invalidations; unmapped addresses get an address error.
// See docs/tlm-bus.md.
#pragma once

#include "tlm_bus/link_binder.h"

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <vector>

namespace vgpu::tlm_bus {

/// One mapping window: [base, base + size) goes to output `target`, seen there at `offset`.
struct address_range {
    std::uint64_t base = 0;   ///< first address of the window
    std::uint64_t size = 0;   ///< bytes in the window
    unsigned target = 0;      ///< index of the output socket binding
    std::uint64_t offset = 0; ///< address at the target that `base` maps to
    std::string name;         ///< for messages
};

/// Where a named window starts on the bus: one row of a platform's address map.
struct window_base {
    std::string name;       ///< the window's name, as bind() is given it
    std::uint64_t base = 0; ///< its first address
};

/// An N-initiator x M-target address decoder with no latency of its own.
class router : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<router> in;     ///< from initiators
    tlm_utils::multi_passthrough_initiator_socket<router> out; ///< to targets, in bind order

    explicit router(const sc_core::sc_module_name& name);
    /// Adds a window; throws std::invalid_argument when it overlaps another or is empty.
    void map(const address_range& r);
    /// Sets the address map bind() reads each window's base from (one table per bus).
    void set_address_map(std::vector<window_base> table) { m_bases = std::move(table); }
    /// The base of window `name` in the address map; throws std::invalid_argument when the map
    /// has no such window.
    std::uint64_t base(const std::string& name) const;
    /// Binds a new output to `target` (any TLM target socket) and maps the window `name` of the
    /// address map, `size` bytes, to it (seen there from offset 0). The output is a link of the
    /// platform (bind_link), its checker naming it `<path>.<name>`.
    template <typename Socket>
    void bind(const std::string& name, Socket& target, std::uint64_t size)
    {
        const std::uint64_t at = base(name);
        bind_output(name, target);
        map({at, size, static_cast<unsigned>(out.size()) - 1, 0, name});
    }
    /// Binds a new output to `target` as a link named `<path>.<name>`; map() it by its index
    /// (outputs are numbered in bind order from 0).
    template <typename Socket> void bind_output(const std::string& name, Socket& target)
    {
        bind_link(out, target, std::string(this->name()) + "." + name);
    }
    /// The window holding `addr`, or nullptr.
    const address_range* decode(std::uint64_t addr) const;
    std::uint64_t unmapped_accesses() const { return m_unmapped; } ///< address errors returned

private:
    void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);
    void end_of_elaboration() override;

    std::vector<address_range> m_ranges; ///< sorted by base
    std::vector<window_base> m_bases;    ///< the address map bind() uses
    std::uint64_t m_unmapped = 0;
};

} // namespace vgpu::tlm_bus
