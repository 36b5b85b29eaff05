// Memory target: sparse backing store, access latency, bandwidth with busy-until accounting,
// DMI grants page by page, side-effect-free debug access. See docs/tlm-bus.md.
#pragma once

#include "tlm_bus/busy_timeline.h"
#include "tlm_bus/sparse_store.h"

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace vgpu::tlm_bus {

/// Construction parameters of a memory target.
struct memory_params {
    std::uint64_t size = 1ull << 32; ///< bytes; accesses beyond are address errors
    sc_core::sc_time latency = sc_core::sc_time(50, sc_core::SC_NS); ///< fixed access latency
    double bytes_per_ns = 16.0;                                      ///< transfer bandwidth (GB/s)
    bool dmi = true;                                                 ///< grant DMI pointers
};

/// A memory that holds data. Timing of b_transport: wait for the port to be free (busy-until),
/// transfer at the bandwidth, then the latency. DMI accesses bypass bandwidth accounting.
class memory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<memory> in; ///< accesses (relative to the memory's start)

    memory(const sc_core::sc_module_name& name, const memory_params& p);
    sparse_store& store() { return m_store; }
    /// Withdraws every DMI grant (e.g. before changing the memory behind initiators' backs).
    void invalidate_dmi();

    std::uint64_t reads() const { return m_reads; }           ///< read transactions
    std::uint64_t writes() const { return m_writes; }         ///< write transactions
    std::uint64_t bytes() const { return m_bytes; }           ///< bytes moved by b_transport
    std::uint64_t errors() const { return m_errors; }         ///< error responses
    std::uint64_t dmi_grants() const { return m_dmi_grants; } ///< DMI pointers handed out
    sc_core::sc_time queue_time() const { return m_queue; }   ///< total time waiting for the port

private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
    /// Checks attributes; on failure sets the error response and returns false.
    bool check(tlm::tlm_generic_payload& gp);

    const memory_params m_params;
    sparse_store m_store;
    busy_timeline m_port; ///< occupancy of the memory port
    std::uint64_t m_reads = 0, m_writes = 0, m_bytes = 0, m_errors = 0, m_dmi_grants = 0;
    sc_core::sc_time m_queue;
};

} // namespace vgpu::tlm_bus
