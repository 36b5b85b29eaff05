// The CBV table: cdl.cbv_slots constant buffer view descriptors {base, size} in registers the
// driver programs before a launch; every SM's CDL access controller reads it. See
// models/cdl/README.md and docs/registers.md ("CBV table").
#pragma once

#include "models/cdl/cbv_regs.h"
#include "models/cdl/core/cdl_core.h"
#include "models/common/logger.h"
#include "tlm_bus/reg_bank.h"

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace vgpu::cdl {

/// The GPU's CBV table (a register window on the MMIO bus).
class cbv_table : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<cbv_table> mmio; ///< register window

    cbv_table(const sc_core::sc_module_name& name, unsigned slots);
    const std::vector<cbv>& entries() const { return m_entries; } ///< the descriptors now
    /// Model side (tests, a boot image): sets slot i's registers as the driver would.
    void program(unsigned slot, const cbv& v);
    std::uint64_t window_bytes() const { return m_entries.size() * cbv_reg::SLOT_STRIDE; }
    const tlm_bus::reg_bank& regs() const { return m_regs; } ///< the register file

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    std::vector<cbv> m_entries;
    tlm_bus::reg_bank m_regs;
    logger m_log;
};

} // namespace vgpu::cdl
