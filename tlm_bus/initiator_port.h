// The one way models issue bus traffic: payload set-up from the pool, optional quantum keeping,
// a DMI cache with invalidation, and debug access. See docs/tlm-bus.md.
#pragma once

#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/payload_pool.h"

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <vector>

namespace vgpu::tlm_bus {

/// An initiator socket that builds payloads itself; bind it like any TLM initiator socket.
class initiator_port : public tlm::tlm_initiator_socket<>, private tlm::tlm_bw_transport_if<> {
public:
    explicit initiator_port(const char* name);

    /// Blocking access with `delay` as the annotated local time offset (updated on return).
    /// Uses DMI when a granted region covers the access and DMI is enabled. `byte_enable`,
    /// when given, holds `len` bytes of 0x00/0xff (TLM byte enables; such accesses skip DMI).
    /// `fault`, when given, receives gpu_extension::fault of an access that page-faulted
    /// (replay it once the host has answered); it is left alone otherwise.
    tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, void* data,
                                    unsigned len, sc_core::sc_time& delay,
                                    const gpu_extension* attrs = nullptr,
                                    const std::uint8_t* byte_enable = nullptr,
                                    std::shared_ptr<fault_wait>* fault = nullptr);
    /// Access timed by `qk`: starts at its local time, advances it, syncs when the quantum is
    /// used up (lock-step when the global quantum is zero).
    tlm::tlm_response_status access(tlm::tlm_command cmd, std::uint64_t addr, void* data,
                                    unsigned len, tlm_utils::tlm_quantumkeeper& qk,
                                    const gpu_extension* attrs = nullptr);
    /// Debug access (no time, no side effects); returns the bytes transferred. `attrs`, when
    /// given, travels as the payload's gpu_extension (e.g. for address translation).
    unsigned debug(tlm::tlm_command cmd, std::uint64_t addr, void* data, unsigned len,
                   const gpu_extension* attrs = nullptr);

    void set_dmi_enabled(bool on);                                ///< DMI is off until enabled
    std::uint64_t transactions() const { return m_transactions; } ///< b_transport calls
    std::uint64_t dmi_accesses() const { return m_dmi_accesses; } ///< accesses served by DMI
    std::uint64_t dmi_invalidations() const { return m_invalidations; } ///< invalidate calls

private:
    tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                       sc_core::sc_time&) override;
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override;
    const tlm::tlm_dmi* find_dmi(std::uint64_t addr, unsigned len, tlm::tlm_command cmd) const;
    unsigned run_debug(pooled_payload& gp, tlm::tlm_command cmd, std::uint64_t addr, void* data,
                       unsigned len, const gpu_extension* attrs);

    payload_pool m_pool;
    pooled_payload* m_debug = nullptr; ///< the payload of debug(), from m_pool
    bool m_debug_busy = false;         ///< m_debug is in use (a nested debug())
    std::vector<tlm::tlm_dmi> m_dmi;
    mutable std::size_t m_last_dmi = 0; ///< index of the region that served the last access
    bool m_dmi_enabled = false;
    std::uint64_t m_transactions = 0, m_dmi_accesses = 0, m_invalidations = 0;
};

} // namespace vgpu::tlm_bus
