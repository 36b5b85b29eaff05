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

unsigned log2u(unsigned v)
{
    unsigned n = 0;
    while ((1u << n) < v)
        ++n;
    return n;
}

/// XOR-folds all line-number bits into the set index: whichever address bits the NoC uses to
/// pick the slice, the sets of a slice are all used.
cache::index_fn folded_index(unsigned sets, unsigned line_bytes)
{
    const unsigned bits = log2u(sets), shift = log2u(line_bytes);
    return [bits, shift](std::uint64_t line_addr) -> unsigned {
        if (bits == 0)
            return 0;
        std::uint64_t n = line_addr >> shift, h = 0;
        for (; n != 0; n >>= bits)
            h ^= n;
        return static_cast<unsigned>(h);
    };
}
} // namespace

llc::llc(const sc_core::sc_module_name& name, const llc_config& cfg, const clock_params& clk)
    : sc_module(name), in("in"), out("out"), m_cfg(cfg), m_accurate(clk.accurate),
      m_cycle(static_cast<double>(clk.noc_ps), sc_core::SC_PS),
      m_hit(static_cast<double>(cfg.hit_latency) * static_cast<double>(clk.noc_ps), sc_core::SC_PS),
      m_array(cfg.sets, cfg.ways, cfg.line_bytes, folded_index(cfg.sets, cfg.line_bytes)),
      m_mshr(2 * cfg.mshrs, 1), m_slots(cfg.mshrs),
      m_buffer_store(2 * std::size_t{cfg.mshrs} * cfg.line_bytes),
      m_mshrs_in_use("mshrs_in_use", false), m_log(this->name()), m_stats(this->name()),
      m_reads(m_stats, "reads", "count", "read requests"),
      m_writes(m_stats, "writes", "count", "write requests"),
      m_hits(m_stats, "hits", "count", "line lookups served from the array"),
      m_misses(m_stats, "misses", "count", "line lookups that allocated the line"),
      m_merges(m_stats, "mshr_merges", "count",
               "line lookups that waited for a fill already in flight"),
      m_full_stalls(m_stats, "mshr_full_stalls", "count", "misses that waited for a free MSHR"),
      m_fills(m_stats, "fills", "count", "lines read from DRAM"),
      m_writebacks(m_stats, "writebacks", "count", "dirty lines written back to DRAM"),
      m_errors(m_stats, "errors", "count", "requests answered with an error response"),
      m_hit_rate(m_stats, "hit_rate", "ratio", "hits / (hits + misses + mshr_merges)",
                 [this] {
                     double all =
                         static_cast<double>(m_hits.value() + m_misses.value() + m_merges.value());
                     return all > 0 ? static_cast<double>(m_hits.value()) / all : 0.0;
                 }),
      m_bank_wait(m_stats, "bank_wait", "ns", "time a request waited for its bank"),
      m_miss_latency(m_stats, "miss_latency", "ns",
                     "time from a missing lookup's tag check to its line's arrival")
{
    m_free_buffers.reserve(2 * std::size_t{cfg.mshrs});
    for (std::size_t i = 0; i < 2 * std::size_t{cfg.mshrs}; ++i)
        m_free_buffers.push_back(&m_buffer_store[i * cfg.line_bytes]);
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
    return m_array.set_of(addr) % m_cfg.banks;
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
            m_array.write(s.addr + off, s.data + off, n, true);
        else
            m_array.read(s.addr + off, s.data + off, n);
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
    if (m_free_buffers.empty()) {
        SC_REPORT_ERROR("vgpu/llc",
                        (std::string(name()) + ": more line transfers than buffers").c_str());
        return nullptr;
    }
    std::uint8_t* b = m_free_buffers.back();
    m_free_buffers.pop_back();
    return b;
}

tlm::tlm_response_status llc::access(const segment& s, bool write,
                                     const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay)
{
    const sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
    const unsigned cycles =
        std::max(1u, (s.len + m_cfg.bank_bytes_per_cycle - 1) / m_cfg.bank_bytes_per_cycle);
    m_banks[bank_of(s.addr)]->use(0, ext, cycles, delay);
    const sc_core::sc_time served = sc_core::sc_time_stamp() + delay;
    m_bank_wait.sample((served - arrival - cycles * m_cycle).to_seconds() * 1e9);
    delay += m_hit;
    const sc_core::sc_time tag_done = sc_core::sc_time_stamp() + delay;
    const std::uint64_t line = m_array.line_addr(s.addr);

    if (!m_accurate) {
        if (!m_array.lookup(s.addr))
            return miss(s, write, ext, tag_done, delay);
        std::uint64_t done = tag_done.value();
        bool merged = false;
        for (const auto& f : m_slots) {
            if (f.line == line && f.ready > done) {
                done = f.ready;
                merged = true;
            }
        }
        ++(merged ? m_merges : m_hits);
        apply(s, write);
        delay = sc_core::sc_time::from_value(done - sc_core::sc_time_stamp().value());
        return tlm::TLM_OK_RESPONSE;
    }

    // Accurate mode: requests meet here in simulated time; a line with an MSHR entry is being
    // filled or written back and must not be touched until the entry is released.
    bool merged = false, stalled = false;
    for (;;) {
        if (m_mshr.lookup(line)) {
            if (!merged)
                ++m_merges;
            merged = true;
            sc_core::wait(m_mshr_freed);
            continue;
        }
        if (m_array.lookup(s.addr)) {
            if (!merged)
                ++m_hits;
            apply(s, write);
            delay = until(tag_done);
            return tlm::TLM_OK_RESPONSE;
        }
        if (m_misses_in_flight < m_cfg.mshrs)
            return miss(s, write, ext, tag_done, delay);
        if (!stalled)
            ++m_full_stalls;
        stalled = true;
        sc_core::wait(m_mshr_freed);
    }
}

tlm::tlm_response_status llc::miss(const segment& s, bool write, const tlm_bus::gpu_extension* ext,
                                   const sc_core::sc_time& tag_done, sc_core::sc_time& delay)
{
    ++m_misses;
    const std::uint64_t line = m_array.line_addr(s.addr);
    m_mshr.add_target(m_mshr.allocate(line), 0);
    ++m_misses_in_flight;
    if (m_accurate)
        m_mshrs_in_use.step(sc_core::sc_time_stamp().value(), +1);
    // A write of the whole line without byte enables replaces it: nothing to fetch.
    const bool whole = write && s.len == m_cfg.line_bytes && !s.be;
    sc_core::sc_time d = until(tag_done);
    fill_slot* slot = nullptr;
    if (!m_accurate && !whole) {
        // Fast mode: the MSHR freed first serves this miss; if busy at tag time, wait for it.
        slot = &m_slots[0];
        for (auto& f : m_slots)
            if (f.ready < slot->ready)
                slot = &f;
        if (slot->ready > tag_done.value()) {
            ++m_full_stalls;
            d = sc_core::sc_time::from_value(slot->ready - sc_core::sc_time_stamp().value());
        }
    }
    make_resident(line, d);
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    if (!whole) {
        std::uint8_t* buf = take_buffer();
        status = out.access(tlm::TLM_READ_COMMAND, line, buf, m_cfg.line_bytes, d, ext);
        settle(d);
        if (status == tlm::TLM_OK_RESPONSE) {
            make_resident(line, d);
            m_array.fill(line, buf);
            ++m_fills;
            const sc_core::sc_time ready = sc_core::sc_time_stamp() + d;
            if (slot) {
                // Fast mode: the slot is held from when this miss could take it to the fill.
                m_mshrs_in_use.add(std::max<std::uint64_t>(tag_done.value(), slot->ready),
                                   ready.value());
                *slot = fill_slot{line, ready.value()};
            }
            m_miss_latency.sample((ready - tag_done).to_seconds() * 1e9);
        } else if (m_array.probe(line)) {
            m_array.invalidate(line); // the clean, empty way allocated for the fill
        }
        give_buffer(buf);
    }
    if (status == tlm::TLM_OK_RESPONSE)
        apply(s, write);
    m_mshr.release(line);
    --m_misses_in_flight;
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
    while (!m_array.probe(line)) {
        const cache::cache_array::victim v = m_array.allocate(line);
        if (v.valid && v.dirty)
            write_back(v, delay);
    }
}

void llc::write_back(const cache::cache_array::victim& v, sc_core::sc_time& delay)
{
    if (m_mshr.lookup(v.line_addr))
        SC_REPORT_ERROR("vgpu/llc",
                        (std::string(name()) + ": evicted a dirty line with an MSHR").c_str());
    // The victim's data lives in the array's scratch until the next removal: copy it now.
    std::uint8_t* buf = take_buffer();
    std::memcpy(buf, v.data, m_cfg.line_bytes);
    m_mshr.add_target(m_mshr.allocate(v.line_addr), 1);
    ++m_writebacks;
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
    give_buffer(buf);
    m_mshr.release(v.line_addr);
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
                                  const bool held = m_array.probe(s.addr) &&
                                                    !m_mshr.lookup(m_array.line_addr(s.addr));
                                  unsigned n = s.len;
                                  if (held && cmd == tlm::TLM_READ_COMMAND) {
                                      m_array.read(s.addr, s.data, s.len);
                                  } else {
                                      // Writes also reach memory, so a clean line stays clean and
                                      // correct.
                                      if (held)
                                          m_array.write(s.addr, s.data, s.len, false);
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
