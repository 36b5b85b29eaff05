// One LLC slice. See models/llc/README.md.
#include "models/llc/llc.h"
#include "tlm_bus/byte_enables.h"

#include <cstdio>

#include <algorithm>
#include <cstring>
#include <string>

namespace vgpu::llc {

namespace {
/// Time from now until `t`, zero if `t` has passed.
sc_core::sc_time until(const sc_core::sc_time& t)
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    return t > now ? t - now : sc_core::SC_ZERO_TIME;
}

/// The slice's controller core: write-back, write-allocate; the line number XOR-folded into
/// the set index, so whichever address bits the NoC uses to pick the slice, all sets are used.
cache::controller_params core_params(const llc_config& cfg)
{
    cache::controller_params p;
    p.sets = cfg.sets;
    p.ways = cfg.ways;
    p.line_bytes = cfg.line_bytes;
    p.index = cache::index_kind::xor_fold;
    p.mshrs = cfg.mshrs;
    p.policy = cache::write_policy::write_back_allocate;
    return p;
}

double count(std::uint64_t v)
{
    return static_cast<double>(v);
}
} // namespace

llc::llc(const sc_core::sc_module_name& name, const llc_config& cfg, const clock_params& clk)
    : sc_module(name), in("in"), out("out"), m_cfg(cfg), m_accurate(clk.accurate),
      m_cycle(static_cast<double>(clk.noc_ps), sc_core::SC_PS),
      m_hit(static_cast<double>(cfg.hit_latency) * static_cast<double>(clk.noc_ps), sc_core::SC_PS),
      m_core(core_params(cfg)), m_mshrs_in_use("mshrs_in_use", false), m_log(this->name()),
      m_stats(this->name()), m_reads(m_stats, "reads", "count", "read requests"),
      m_writes(m_stats, "writes", "count", "write requests"),
      m_errors(m_stats, "errors", "count", "requests answered with an error response"),
      m_hits(m_stats, "hits", "count", "line lookups served from the array",
             [this] { return count(m_core.counts().hits); }),
      m_misses(m_stats, "misses", "count", "line lookups that allocated the line",
               [this] { return count(m_core.counts().misses); }),
      m_merges(m_stats, "mshr_merges", "count",
               "line lookups that waited for a fill already in flight",
               [this] { return count(m_core.counts().merges); }),
      m_full_stalls(m_stats, "mshr_full_stalls", "count", "misses that waited for a free MSHR",
                    [this] { return count(m_core.counts().full_stalls); }),
      m_fills(m_stats, "fills", "count", "lines read from DRAM",
              [this] { return count(m_core.counts().fills); }),
      m_writebacks(m_stats, "writebacks", "count", "dirty lines written back to DRAM",
                   [this] { return count(m_core.counts().writebacks); }),
      m_hit_rate(m_stats, "hit_rate", "ratio", "hits / (hits + misses + mshr_merges)",
                 [this] {
                     const cache::controller_counts& c = m_core.counts();
                     double all = count(c.hits + c.misses + c.merges);
                     return all > 0 ? count(c.hits) / all : 0.0;
                 }),
      m_bank_wait(m_stats, "bank_wait", "ns", "time a request waited for its bank"),
      m_miss_latency(m_stats, "miss_latency", "ns",
                     "time from a missing lookup's tag check to its line's arrival")
{
    m_wb_attrs.kind = tlm_bus::access_kind::writeback;
    noc::resource_params p;
    p.accurate = clk.accurate;
    p.cycle = m_cycle;
    p.inputs = 1; // requests reach a slice through one NoC port: one queue per bank
    for (unsigned b = 0; b < cfg.banks; ++b)
        m_banks.push_back(
            std::make_unique<noc::shared_resource>(("bank" + std::to_string(b)).c_str(), p));
    in.register_b_transport(this, &llc::b_transport);
    in.register_transport_dbg(this, &llc::transport_dbg);
    in.register_get_direct_mem_ptr(this, &llc::get_direct_mem_ptr);
}

void llc::trace(sc_core::sc_trace_file* tf) const
{
    m_mshrs_in_use.trace(tf);
}

unsigned llc::bank_of(std::uint64_t addr) const
{
    return m_core.set_of(addr) % m_cfg.banks;
}

bool llc::check(tlm::tlm_generic_payload& gp)
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

void llc::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    if (!check(gp))
        return;
    if (!gp.is_read() && !gp.is_write()) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    const bool write = gp.is_write();
    if (write)
        ++m_writes;
    else
        ++m_reads;
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    tlm_bus::for_each_segment(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(),
                              gp.get_byte_enable_ptr(), gp.get_byte_enable_length(),
                              m_cfg.line_bytes, [&](const segment& s) {
                                  status = access(s, write, ext, delay);
                                  return status == tlm::TLM_OK_RESPONSE;
                              });
    if (status != tlm::TLM_OK_RESPONSE)
        ++m_errors;
    gp.set_response_status(status);
}

void llc::apply(const segment& s, bool write)
{
    tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset, [&](unsigned off, unsigned n) {
        if (write)
            m_core.write(s.addr + off, s.data + off, n);
        else
            m_core.read(s.addr + off, s.data + off, n);
    });
}

void llc::settle(sc_core::sc_time& delay)
{
    if (m_accurate) {
        sc_core::wait(delay);
        delay = sc_core::SC_ZERO_TIME;
    }
}

std::uint8_t* llc::take_buffer()
{
    std::uint8_t* b = m_core.take_buffer();
    if (!b)
        SC_REPORT_ERROR("vgpu/llc",
                        (std::string(name()) + ": more line transfers than buffers").c_str());
    return b;
}

tlm::tlm_response_status llc::access(const segment& s, bool write,
                                     const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay)
{
    using outcome = cache::cache_controller::outcome;
    const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
    const unsigned cycles =
        std::max(1u, (s.len + m_cfg.bank_bytes_per_cycle - 1) / m_cfg.bank_bytes_per_cycle);
    m_banks[bank_of(s.addr)]->use(0, ext, cycles, delay);
    const sc_core::sc_time served = sc_core::sc_time_stamp() + delay;
    m_bank_wait.sample((served - arrival - cycles * m_cycle).to_seconds() * 1e9);
    delay += m_hit;
    const sc_core::sc_time tag_done = sc_core::sc_time_stamp() + delay;

    if (!m_accurate) {
        const cache::cache_controller::timed_outcome t = m_core.lookup_at(s.addr, tag_done.value());
        if (t.result == outcome::miss) {
            // The line stays busy while its fill is in flight (debug reads go to memory).
            m_core.begin_miss(s.addr);
            return miss(s, write, ext, tag_done, delay);
        }
        apply(s, write);
        delay = sc_core::sc_time::from_value(t.ready - sc_core::sc_time_stamp().value());
        return tlm::TLM_OK_RESPONSE;
    }

    // Accurate mode: requests meet here in simulated time; a line with an MSHR entry is being
    // filled or written back and must not be touched until the entry is released (merge); a
    // miss with every MSHR busy waits for one (stall).
    cache::cache_controller::request r;
    for (outcome o = m_core.lookup(s.addr, r); o != outcome::miss; o = m_core.lookup(s.addr, r)) {
        if (o == outcome::hit) {
            apply(s, write);
            delay = until(tag_done);
            return tlm::TLM_OK_RESPONSE;
        }
        sc_core::wait(m_mshr_freed);
    }
    return miss(s, write, ext, tag_done, delay);
}

tlm::tlm_response_status llc::miss(const segment& s, bool write, const tlm_bus::gpu_extension* ext,
                                   const sc_core::sc_time& tag_done, sc_core::sc_time& delay)
{
    // The miss holds an MSHR entry (claimed by the lookup).
    const std::uint64_t line = m_core.line_addr(s.addr);
    if (m_accurate)
        m_mshrs_in_use.step(sc_core::sc_time_stamp().value(), +1);
    // A write of the whole line without byte enables replaces it: nothing to fetch.
    const bool fetch = m_core.needs_fetch(write, s.len, s.be != nullptr);
    sc_core::sc_time d = until(tag_done);
    bool timed_slot = false;
    unsigned slot = 0;
    std::uint64_t slot_from = tag_done.value(); ///< fast mode: when the MSHR is taken
    if (!m_accurate && fetch) {
        // Fast mode: the MSHR freed first serves this miss; if busy at tag time, wait for it.
        std::uint64_t issue = 0;
        slot = m_core.reserve_fill(tag_done.value(), issue);
        timed_slot = true;
        slot_from = std::max(issue, slot_from);
        if (issue > tag_done.value())
            d = sc_core::sc_time::from_value(issue - sc_core::sc_time_stamp().value());
    }
    make_resident(line, d);
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    if (fetch) {
        std::uint8_t* buf = take_buffer();
        status = out.access(tlm::TLM_READ_COMMAND, line, buf, m_cfg.line_bytes, d, ext);
        settle(d);
        if (status == tlm::TLM_OK_RESPONSE) {
            make_resident(line, d);
            m_core.fill(line, buf);
            const sc_core::sc_time ready = sc_core::sc_time_stamp() + d;
            if (timed_slot) {
                // Fast mode: the slot is held from when this miss could take it to the fill.
                m_mshrs_in_use.add(slot_from, ready.value());
                m_core.fill_arrives(slot, line, ready.value());
            }
            m_miss_latency.sample((ready - tag_done).to_seconds() * 1e9);
        } else if (m_core.array().probe(line)) {
            m_core.array().invalidate(line); // the clean, empty way allocated for the fill
        }
        m_core.give_buffer(buf);
    }
    if (status == tlm::TLM_OK_RESPONSE)
        apply(s, write);
    m_core.finish_miss(line);
    if (m_accurate) {
        m_mshrs_in_use.step(sc_core::sc_time_stamp().value(), -1);
        m_mshr_freed.notify(sc_core::SC_ZERO_TIME);
    }
    delay = d;
    return status;
}

void llc::make_resident(std::uint64_t line, sc_core::sc_time& delay)
{
    // Accurate mode: a write-back waits, and meanwhile another miss may evict this (clean,
    // still empty) way again; then allocate once more.
    while (!m_core.array().probe(line)) {
        const cache::cache_array::victim v = m_core.allocate(line);
        if (v.valid && v.dirty)
            write_back(v, delay);
    }
}

void llc::write_back(const cache::cache_array::victim& v, sc_core::sc_time& delay)
{
    if (m_core.busy(v.line_addr))
        SC_REPORT_ERROR("vgpu/llc",
                        (std::string(name()) + ": evicted a dirty line with an MSHR").c_str());
    // The victim's data lives in the array's scratch until the next removal: copy it now.
    std::uint8_t* buf = take_buffer();
    std::memcpy(buf, v.data, m_cfg.line_bytes);
    m_core.begin_writeback(v.line_addr);
    const tlm::tlm_response_status status =
        out.access(tlm::TLM_WRITE_COMMAND, v.line_addr, buf, m_cfg.line_bytes, delay, &m_wb_attrs);
    settle(delay);
    if (status != tlm::TLM_OK_RESPONSE) {
        // The routing guarantees a home for every line the LLC holds; losing dirty data is a
        // broken invariant of the platform, not a guest mistake.
        char msg[160];
        std::snprintf(msg, sizeof msg, "%s: write-back of dirty line 0x%llx failed (response %d)",
                      name(), static_cast<unsigned long long>(v.line_addr),
                      static_cast<int>(status));
        SC_REPORT_ERROR("vgpu/llc", msg);
    }
    m_core.give_buffer(buf);
    m_core.end_writeback(v.line_addr);
    if (m_accurate)
        m_mshr_freed.notify(sc_core::SC_ZERO_TIME);
}

unsigned llc::transport_dbg(tlm::tlm_generic_payload& gp)
{
    const tlm::tlm_command cmd = gp.get_command();
    if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND)
        return 0;
    unsigned moved = 0;
    tlm_bus::for_each_segment(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), nullptr, 0,
                              m_cfg.line_bytes, [&](const segment& s) {
                                  cache::cache_array& a = m_core.array();
                                  const bool held = a.probe(s.addr) && !m_core.busy(s.addr);
                                  unsigned n = s.len;
                                  if (held && cmd == tlm::TLM_READ_COMMAND) {
                                      a.read(s.addr, s.data, s.len);
                                  } else {
                                      // Writes also reach memory, so a clean line stays clean and
                                      // correct.
                                      if (held)
                                          a.write(s.addr, s.data, s.len, false);
                                      n = out.debug(cmd, s.addr, s.data, s.len);
                                  }
                                  moved += n;
                                  return n == s.len;
                              });
    return moved;
}

bool llc::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi)
{
    // A cache must see every access: DMI is refused for the whole address space.
    dmi.set_start_address(0);
    dmi.set_end_address(~sc_dt::uint64{0});
    return false;
}

} // namespace vgpu::llc
