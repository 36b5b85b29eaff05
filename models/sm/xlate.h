// Ideal VA -> PA translation stage between an SM and its L1 (until the TLB block lands):
// radix page table walked with debug reads, a PTE cache flushed per epoch. See models/sm/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "tlm_bus/gpu_extension.h"
#include "tlm_bus/initiator_port.h"
#include "tlm_bus/path_stage.h"

#include <cstdint>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace vgpu::sm {

/// Translates each request from virtual to physical addresses in zero time; faults come back
/// as TLM_ADDRESS_ERROR_RESPONSE.
class xlate : public sc_core::sc_module, public tlm_bus::path_stage {
public:
    tlm_utils::simple_target_socket<xlate> in; ///< virtual-address requests from the SM
    tlm_bus::initiator_port out;               ///< the same requests at physical addresses (L1)
    tlm_bus::initiator_port walk;              ///< page-table reads (debug transport, zero time)

    /// Outcome of a translation.
    enum class result { ok, not_present, read_only };

    /// page_bytes: power of two >= 4096 (memory.page_bytes); pte_cache_entries: power of two.
    xlate(const sc_core::sc_module_name& name, std::uint64_t page_bytes,
          unsigned pte_cache_entries = 256);

    /// Translates va for a request of `ext`; `write` checks the writable bit. `fill` caches
    /// the PTE (false for debug accesses, which have no side effects).
    result translate(std::uint64_t va, bool write, const tlm_bus::gpu_extension& ext,
                     std::uint64_t& pa, bool fill = true);

    tlm::tlm_target_socket<>& path_in() override { return in; }      ///< = in
    tlm::tlm_initiator_socket<>& path_out() override { return out; } ///< = out
    std::vector<tlm_bus::side_port> side_ports() override { return {{"walk", &walk}}; }
    const char* stage_name() const override { return name(); } ///< SystemC instance name

    std::uint64_t page_bytes() const { return m_page_bytes; }             ///< bytes per page
    std::uint64_t translations() const { return m_translations.value(); } ///< b_transport calls
    std::uint64_t pte_reads() const { return m_pte_reads.value(); }       ///< PTEs read from memory
    std::uint64_t faults() const { return m_faults.value(); }             ///< error responses
    std::uint64_t flushes() const { return m_flushes.value(); }           ///< PTE cache flushes

private:
    /// One direct-mapped PTE cache entry, valid while gen equals the cache generation.
    struct pte_entry {
        std::uint64_t vpn = 0;
        std::uint64_t pte = 0;
        std::uint32_t gen = 0;
    };

    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& gp);
    /// Flushes the PTE cache when ext names another epoch or page table.
    void check_context(const tlm_bus::gpu_extension& ext);

    const std::uint64_t m_page_bytes;
    const unsigned m_page_shift;
    std::vector<pte_entry> m_cache;
    std::uint32_t m_gen = 1;
    std::uint32_t m_epoch = 0;
    std::uint64_t m_ptbr = 0;
    bool m_context_valid = false;
    logger m_log;
    stats::group m_stats;
    stats::counter m_translations, m_pte_reads, m_pte_hits, m_faults, m_flushes;
};

} // namespace vgpu::sm
