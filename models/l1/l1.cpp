// L1 data cache of one SM. See models/l1/README.md.
#include "models/l1/l1.h"
#include "tlm_bus/byte_enables.h"

#include <cstring>
#include <string>

namespace vgpu::l1 {

namespace {
sc_core::sc_time from_value(std::uint64_t v)
{
    return sc_core::sc_time::from_value(v);
}

/// The L1's controller core: write-through, no-write-allocate, modulo set index; in fast mode a
/// hit on a line with several fills in flight waits for the one in the last MSHR slot.
cache::controller_params core_params(const l1_config& cfg)
{
    cache::controller_params p;
    p.sets = cfg.sets;
    p.ways = cfg.ways;
    p.line_bytes = cfg.line_bytes;
    p.index = cache::index_kind::modulo;
    p.mshrs = cfg.mshrs;
    p.policy = cache::write_policy::write_through_no_allocate;
    p.fast_merge = cache::merge_wait::last_slot;
    return p;
}
} // namespace

l1::l1(const sc_core::sc_module_name& name, const l1_config& cfg, const clock_params& clk)
    : sc_module(name), in("in"), out("out"), m_cfg(cfg), m_accurate(clk.accurate),
      m_hit(static_cast<double>(cfg.hit_latency) * static_cast<double>(clk.core_ps),
            sc_core::SC_PS),
      m_core(core_params(cfg)), m_log(this->name()), m_stats(this->name()),
      m_reads(m_stats, "reads", "count", "read requests"),
      m_writes(m_stats, "writes", "count", "write requests (all forwarded)"),
      m_invalidations(m_stats, "invalidations", "count",
                      "whole-cache invalidations at a new epoch (kernel boundary)"),
      m_errors(m_stats, "errors", "count", "requests answered with an error response"),
      m_hits(m_stats, "hits", "count", "read line lookups served from the array",
             [this] { return static_cast<double>(m_core.counts().hits); }),
      m_misses(m_stats, "misses", "count", "read line lookups that fetched the line",
               [this] { return static_cast<double>(m_core.counts().misses); }),
      m_merges(m_stats, "mshr_merges", "count",
               "read line lookups that waited for a fill already in flight",
               [this] { return static_cast<double>(m_core.counts().merges); }),
      m_full_stalls(m_stats, "mshr_full_stalls", "count", "misses that waited for a free MSHR",
                    [this] { return static_cast<double>(m_core.counts().full_stalls); }),
      m_hit_rate(m_stats, "hit_rate", "ratio", "hits / (hits + misses + mshr_merges)",
                 [this] {
                     const cache::controller_counts& c = m_core.counts();
                     double all = static_cast<double>(c.hits + c.misses + c.merges);
                     return all > 0 ? static_cast<double>(c.hits) / all : 0.0;
                 }),
      m_miss_latency(m_stats, "miss_latency", "ns",
                     "time from a missing read's arrival to its line's arrival")
{
    in.register_b_transport(this, &l1::b_transport);
    in.register_transport_dbg(this, &l1::transport_dbg);
    in.register_get_direct_mem_ptr(this, &l1::get_direct_mem_ptr);
}

bool l1::check(tlm::tlm_generic_payload& gp)
{
    tlm::tlm_response_status rsp;
    if (const char* why = tlm_bus::unsupported_attributes(gp, rsp)) {
        VGPU_WARN(m_log, "%s at 0x%llx", why, static_cast<unsigned long long>(gp.get_address()));
        gp.set_response_status(rsp);
        ++m_errors;
        return false;
    }
    return true;
}

void l1::new_epoch(std::uint32_t epoch)
{
    m_epoch = epoch;
    ++m_invalidations;
    m_core.invalidate_all([](std::uint64_t, const std::uint8_t*) {
        SC_REPORT_ERROR("vgpu/l1", "an L1 line was dirty");
    });
}

void l1::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    if (!check(gp))
        return;
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    if (ext && ext->epoch > m_epoch)
        new_epoch(ext->epoch);
    if (gp.is_read()) {
        ++m_reads;
        gp.set_response_status(read(gp, delay));
    } else if (gp.is_write()) {
        ++m_writes;
        write(gp, delay);
    } else {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    if (!gp.is_response_ok())
        ++m_errors;
}

tlm::tlm_response_status l1::read(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    tlm_bus::for_each_segment(
        gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), gp.get_byte_enable_ptr(),
        gp.get_byte_enable_length(), m_cfg.line_bytes, [&](const segment& s) {
            status = m_accurate ? read_accurate(s, ext, delay) : read_fast(s, ext, delay);
            return status == tlm::TLM_OK_RESPONSE;
        });
    return status;
}

void l1::write(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    // Write-through: the tag check, then the write travels on with its byte enables. The
    // payload is forwarded as it is (an interconnect may do so), so nothing is copied.
    delay += m_hit;
    out->b_transport(gp, delay);
    gp.set_dmi_allowed(false);
    if (!gp.is_response_ok())
        return;
    tlm_bus::for_each_segment(
        gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), gp.get_byte_enable_ptr(),
        gp.get_byte_enable_length(), m_cfg.line_bytes, [&](const segment& s) {
            // A fill in flight may have read the line before this write reached memory: the
            // core marks it stale. A present line is updated (clean).
            if (m_core.wrote_below(s.addr)) {
                tlm_bus::for_each_run(
                    s.len, s.be, s.be_len, s.be_offset,
                    [&](unsigned off, unsigned n) { m_core.write(s.addr + off, s.data + off, n); });
            }
            return true;
        });
}

void l1::copy_from_array(const segment& s) const
{
    tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset, [&](unsigned off, unsigned n) {
        m_core.read(s.addr + off, s.data + off, n);
    });
}

void l1::copy_from_buffer(const segment& s, const std::uint8_t* line_data) const
{
    const std::uint8_t* src = line_data + (s.addr & (m_cfg.line_bytes - 1));
    tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset, [&](unsigned off, unsigned n) {
        std::memcpy(s.data + off, src + off, n);
    });
}

void l1::install(std::uint64_t line, const std::uint8_t* data)
{
    if (m_core.complete_fill(line, data).dirty)
        SC_REPORT_ERROR("vgpu/l1", (std::string(name()) + ": evicted a dirty line").c_str());
}

std::uint8_t* l1::take_buffer()
{
    std::uint8_t* b = m_core.take_buffer();
    if (!b)
        SC_REPORT_ERROR("vgpu/l1", (std::string(name()) + ": more fills than MSHRs").c_str());
    return b;
}

tlm::tlm_response_status l1::read_fast(const segment& s, const tlm_bus::gpu_extension* ext,
                                       sc_core::sc_time& delay)
{
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    const std::uint64_t arrival = now + delay.value();
    const std::uint64_t tag_done = arrival + m_hit.value();
    const std::uint64_t line = m_core.line_addr(s.addr);
    const cache::cache_controller::timed_outcome t = m_core.lookup_at(s.addr, tag_done);
    if (t.result != cache::cache_controller::outcome::miss) {
        // A hit, or a merge that completes when the fill in flight arrives.
        copy_from_array(s);
        delay = from_value(t.ready - now);
        return tlm::TLM_OK_RESPONSE;
    }
    // The MSHR freed first serves this miss; if it is still busy at tag time, wait for it.
    std::uint64_t issue = 0;
    const unsigned slot = m_core.reserve_fill(tag_done, issue);
    sc_core::sc_time d = from_value(issue - now);
    std::uint8_t* buf = take_buffer();
    const tlm::tlm_response_status status =
        out.access(tlm::TLM_READ_COMMAND, line, buf, m_cfg.line_bytes, d, ext);
    if (status == tlm::TLM_OK_RESPONSE) {
        install(line, buf);
        copy_from_buffer(s, buf);
        const std::uint64_t ready = sc_core::sc_time_stamp().value() + d.value();
        m_core.fill_arrives(slot, line, ready);
        m_miss_latency.sample(static_cast<double>(ready - arrival) / 1000.0);
    }
    m_core.give_buffer(buf);
    delay = d;
    return status;
}

tlm::tlm_response_status l1::read_accurate(const segment& s, const tlm_bus::gpu_extension* ext,
                                           sc_core::sc_time& delay)
{
    using outcome = cache::cache_controller::outcome;
    const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
    const sc_core::sc_time tag_done = arrival + m_hit;
    const std::uint64_t line = m_core.line_addr(s.addr);
    auto until = [](const sc_core::sc_time& t) {
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        return t > now ? t - now : sc_core::SC_ZERO_TIME;
    };
    // A merge waits for the fill in flight, a stall for a free MSHR; then look again.
    cache::cache_controller::request r;
    for (outcome o = m_core.lookup(s.addr, r); o != outcome::miss; o = m_core.lookup(s.addr, r)) {
        if (o == outcome::hit) {
            copy_from_array(s);
            delay = until(tag_done);
            return tlm::TLM_OK_RESPONSE;
        }
        sc_core::wait(m_fill_done);
    }
    std::uint8_t* buf = take_buffer();
    sc_core::sc_time d = until(tag_done);
    const tlm::tlm_response_status status =
        out.access(tlm::TLM_READ_COMMAND, line, buf, m_cfg.line_bytes, d, ext);
    // The line becomes visible to merged requests when its data arrives.
    sc_core::wait(d);
    if (status == tlm::TLM_OK_RESPONSE) {
        install(line, buf);
        copy_from_buffer(s, buf);
        m_miss_latency.sample((sc_core::sc_time_stamp() - arrival).to_seconds() * 1e9);
    }
    m_core.give_buffer(buf);
    m_core.finish_miss(line);
    m_fill_done.notify(sc_core::SC_ZERO_TIME);
    delay = sc_core::SC_ZERO_TIME;
    return status;
}

unsigned l1::transport_dbg(tlm::tlm_generic_payload& gp)
{
    // The L1 holds no dirty data: memory below has everything, so reads go there.
    const unsigned n = out->transport_dbg(gp);
    if (gp.is_write() && n > 0) {
        tlm_bus::for_each_segment(gp.get_address(), gp.get_data_ptr(), n, nullptr, 0,
                                  m_cfg.line_bytes, [&](const segment& s) {
                                      if (m_core.array().probe(s.addr))
                                          m_core.array().write(s.addr, s.data, s.len, false);
                                      return true;
                                  });
    }
    return n;
}

bool l1::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi)
{
    // A cache must see every access: DMI is refused for the whole address space.
    dmi.set_start_address(0);
    dmi.set_end_address(~sc_dt::uint64{0});
    return false;
}

} // namespace vgpu::l1
