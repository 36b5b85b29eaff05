// Ideal VA -> PA translation stage. See models/sm/README.md.
#include "models/sm/xlate.h"
#include "models/common/page_table.h"

namespace vgpu::sm {

namespace {
unsigned log2_exact(std::uint64_t v)
{
    return static_cast<unsigned>(__builtin_ctzll(v));
}

/// The extension of a request, or the defaults (ptbr 0, epoch 0) for one without.
const tlm_bus::gpu_extension& attrs(const tlm::tlm_generic_payload& gp)
{
    static const tlm_bus::gpu_extension none;
    const auto* e = gp.get_extension<tlm_bus::gpu_extension>();
    return e ? *e : none;
}
} // namespace

xlate::xlate(const sc_core::sc_module_name& name, std::uint64_t page_bytes,
             unsigned pte_cache_entries)
    : sc_module(name), in("in"), out("out"), walk("walk"), m_page_bytes(page_bytes),
      m_page_shift(log2_exact(page_bytes)), m_cache(pte_cache_entries), m_log(this->name()),
      m_stats(this->name()),
      m_translations(m_stats, "translations", "count", "requests translated (b_transport)"),
      m_pte_reads(m_stats, "pte_reads", "count", "page-table entries read from memory"),
      m_pte_hits(m_stats, "pte_cache_hits", "count", "translations served by the PTE cache"),
      m_faults(m_stats, "faults", "count", "requests answered with an address error"),
      m_flushes(m_stats, "flushes", "count", "PTE cache flushes (new epoch or page table)")
{
    if (!page_table::valid_page_bytes(page_bytes))
        SC_REPORT_ERROR("vgpu/sm/xlate", "page_bytes must be a power of two >= 4096");
    if (pte_cache_entries == 0 || (pte_cache_entries & (pte_cache_entries - 1)) != 0)
        SC_REPORT_ERROR("vgpu/sm/xlate", "pte_cache_entries must be a power of two");
    in.register_b_transport(this, &xlate::b_transport);
    in.register_transport_dbg(this, &xlate::transport_dbg);
}

void xlate::check_context(const tlm_bus::gpu_extension& ext)
{
    if (m_context_valid && ext.epoch == m_epoch && ext.ptbr == m_ptbr)
        return;
    m_context_valid = true;
    m_epoch = ext.epoch;
    m_ptbr = ext.ptbr;
    ++m_flushes;
    if (++m_gen == 0) {
        // The generation wrapped: entries stamped long ago would look valid again.
        for (auto& e : m_cache)
            e.gen = 0;
        m_gen = 1;
    }
}

xlate::result xlate::translate(std::uint64_t va, bool write, const tlm_bus::gpu_extension& ext,
                               std::uint64_t& pa, bool fill)
{
    if (!page_table::covers(va))
        return result::not_present;
    const std::uint64_t vpn = va >> m_page_shift;
    std::uint64_t pte = 0;
    pte_entry& e = m_cache[vpn & (m_cache.size() - 1)];
    const bool cached = m_context_valid && ext.epoch == m_epoch && ext.ptbr == m_ptbr &&
                        e.gen == m_gen && e.vpn == vpn;
    if (cached) {
        pte = e.pte;
        if (fill)
            ++m_pte_hits;
    } else {
        unsigned reads = 0;
        const auto leaf = page_table::walk(
            ext.ptbr, va, m_page_bytes,
            [this](std::uint64_t pa, std::uint64_t& raw) {
                return walk.debug(tlm::TLM_READ_COMMAND, pa, &raw, sizeof raw) == sizeof raw;
            },
            &reads);
        pte = leaf.value_or(0);
        if (fill) {
            m_pte_reads += reads;
            if (page_table::decode(pte, m_page_bytes).present) {
                e.vpn = vpn;
                e.pte = pte;
                e.gen = m_gen;
            }
        }
    }
    const page_table::entry entry = page_table::decode(pte, m_page_bytes);
    if (!entry.present)
        return result::not_present;
    if (write && !entry.writable)
        return result::read_only;
    pa = page_table::physical(entry, va, m_page_bytes);
    return result::ok;
}

void xlate::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    const tlm_bus::gpu_extension& ext = attrs(gp);
    check_context(ext);
    ++m_translations;
    const std::uint64_t va = gp.get_address();
    if ((va & (m_page_bytes - 1)) + gp.get_data_length() > m_page_bytes) {
        VGPU_WARN(m_log, "request at VA 0x%llx (%u bytes) crosses a page boundary",
                  static_cast<unsigned long long>(va), gp.get_data_length());
        ++m_faults;
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    std::uint64_t pa = 0;
    const result r = translate(va, gp.is_write(), ext, pa);
    if (r != result::ok) {
        VGPU_DEBUG(m_log, "%s fault at VA 0x%llx (pc %u, warp %d)",
                   r == result::not_present ? "not-present" : "write-protection",
                   static_cast<unsigned long long>(va), ext.pc, ext.warp);
        ++m_faults;
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    gp.set_address(pa);
    out->b_transport(gp, delay);
    gp.set_address(va);
    // Grants below are for physical addresses; the SM sees virtual ones.
    gp.set_dmi_allowed(false);
}

unsigned xlate::transport_dbg(tlm::tlm_generic_payload& gp)
{
    const tlm_bus::gpu_extension& ext = attrs(gp);
    const std::uint64_t va = gp.get_address();
    std::uint64_t pa = 0;
    if (translate(va, gp.is_write(), ext, pa, false) != result::ok)
        return 0;
    // A debug access may span pages: serve the part in the first page only.
    const unsigned len = gp.get_data_length();
    const std::uint64_t room = m_page_bytes - (va & (m_page_bytes - 1));
    const unsigned n = room < len ? static_cast<unsigned>(room) : len;
    gp.set_address(pa);
    gp.set_data_length(n);
    gp.set_streaming_width(n);
    const unsigned done = out->transport_dbg(gp);
    gp.set_address(va);
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    return done;
}

} // namespace vgpu::sm
