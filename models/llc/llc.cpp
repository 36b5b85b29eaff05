// One LLC slice. See models/llc/README.md.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/llc/llc.h"
#include "models/cache/core/set_index.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/sim_time.h"

#include <cstdio>

#include <algorithm>
#include <cstring>
#include <string>

namespace vgpu::llc {

namespace {
/// Time from now until `t`, zero if `t` has passed.
sc_core::sc_time until(const sc_core::sc_time& t)
{
    const sc_core::sc_time now = tlm_bus::sim_now();
    return t > now ? t - now : sc_core::SC_ZERO_TIME;
}

/// The slice's controller core: write-back, write-allocate; the line number XOR-folded into
/// the set index, so whichever address bits the NoC uses to pick the slice, all sets are used.
cache::controller_params core_params(const llc_config& cfg)
{
    cache::controller_params p;
    p.sets = cfg.sets;
    p.ways = cfg.ways - cfg.remote_ways; // the others hold read-only lines of other modules
    p.line_bytes = cfg.line_bytes;
    p.sector_bytes = cfg.sector_bytes;
    p.index = cache::index_kind::xor_fold;
    p.mshrs = cfg.mshrs;
    p.policy = cache::write_policy::write_back_allocate;
    p.wb_entries = cfg.wb_entries;
    return p;
}

/// True for the one-word read-modify-write of an ATOM (checked in b_transport).
bool atomic(const tlm_bus::line_segment&, bool write, const tlm_bus::gpu_extension* ext)
{
    return write && ext && ext->kind == tlm_bus::access_kind::atomic;
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
      m_core(core_params(cfg)), m_waits(clk.accurate ? m_core.entries() : 0, true),
      m_mshrs_in_use("mshrs_in_use", false), m_log(this->name()), m_stats(this->name()),
      m_cache_stats(m_stats, m_core, "from DRAM"),
      m_writeback_bytes(m_stats, "writeback_bytes", "bytes",
                        "bytes written to DRAM by write-backs (dirty sectors only)"),
      m_wb_read_waits(m_stats, "wb_read_waits", "count",
                      "misses whose fetch waited until their line's buffered write-back had "
                      "reached DRAM"),
      m_local_lookups(m_stats, "local_lookups", "count",
                      "line lookups of requests from this slice's own module"),
      m_local_hits(m_stats, "local_hits", "count",
                   "local_lookups served without a fetch (hits and merges)"),
      m_remote_lookups(m_stats, "remote_lookups", "count",
                       "line lookups of requests from other modules (over the links: shared "
                       "organisation, or another module's private copy being filled)"),
      m_remote_hits(m_stats, "remote_hits", "count",
                    "remote_lookups served without a fetch (hits and merges)"),
      m_home_writes(m_stats, "home_writes", "count",
                    "private organisation: writes and atomics to lines homed on another module, "
                    "passed through to the home"),
      m_switch_waits(m_stats, "switch_waits", "count",
                     "line requests that waited for an organisation switch in progress"),
      m_remote_way_hits(m_stats, "remote_way_hits", "count",
                        "llc.remote_ways: reads of read-only lines of other modules served by "
                        "the remote ways"),
      m_remote_way_misses(m_stats, "remote_way_misses", "count",
                          "llc.remote_ways: such reads that filled the remote ways through the "
                          "line's home"),
      m_range_lookups(m_stats, "range_lookups", "count",
                      "L1_INVALIDATE ranges (a frame about to be reused) looked up for lines "
                      "homed elsewhere"),
      m_range_dropped(m_stats, "range_dropped", "count",
                      "lines homed elsewhere (private copies, remote ways) those ranges dropped"),
      m_fills(m_stats, "fills", "count", "fills from DRAM (some sectors of a line each)",
              [this] { return count(m_core.counts().fills); }),
      m_writebacks(m_stats, "writebacks", "count",
                   "dirty victims put into the write-back buffer (and written to DRAM)",
                   [this] { return count(m_core.counts().writebacks); }),
      m_wb_full_stalls(m_stats, "wb_full_stalls", "count",
                       "misses whose dirty victim waited for a free write-back buffer entry",
                       [this] { return count(m_core.counts().wb_full_stalls); }),
      m_local_hit_rate(m_stats, "local_hit_rate", "ratio", "local_hits / local_lookups",
                       [this] {
                           return m_local_lookups.value() > 0
                                      ? count(m_local_hits.value()) / count(m_local_lookups.value())
                                      : 0.0;
                       }),
      m_remote_hit_rate(m_stats, "remote_hit_rate", "ratio", "remote_hits / remote_lookups",
                        [this] {
                            return m_remote_lookups.value() > 0
                                       ? count(m_remote_hits.value()) /
                                             count(m_remote_lookups.value())
                                       : 0.0;
                        }),
      m_bank_wait(m_stats, "bank_wait", "ns", "time a request waited for its bank"),
      m_wb_occupancy(m_stats, "wb_occupancy", "entries",
                     "write-back buffer entries in use when a victim enters (itself included)")
{
    m_wb_attrs.kind = tlm_bus::access_kind::writeback;
    if (cfg.remote_ways > 0)
        m_remote_ways = std::make_unique<cache::cache_array>(
            cfg.sets, cfg.remote_ways, cfg.line_bytes,
            cache::make_index(
                cache::line_index(cache::index_kind::xor_fold, cfg.sets, cfg.line_bytes, 0)),
            cfg.sector_bytes);
    noc::resource_params p;
    p.accurate = clk.accurate;
    p.cycle = m_cycle;
    // Two queues per bank: the local access queue (requests of this module's SMs, the host)
    // and the remote access queue (requests from other modules, and fills of their private
    // copies). The bank serves them oldest first, the order fast mode's booking gives
    // (README.md, "Queues").
    p.inputs = 2;
    p.policy = noc::arbiter_kind::fifo;
    for (unsigned b = 0; b < cfg.banks; ++b)
        m_banks.push_back(
            std::make_unique<noc::shared_resource>(("bank" + std::to_string(b)).c_str(), p));
    if (clk.accurate) {
        // One drain process per write-back buffer entry: the buffered victims reach DRAM in
        // parallel, off the path of the misses that evicted them.
        for (unsigned i = 0; i < cfg.wb_entries; ++i) {
            m_drain_go.push_back(std::make_unique<sc_core::sc_event>());
            sc_core::sc_spawn(
                [this, i] {
                    for (;;) {
                        sc_core::wait(*m_drain_go[i]);
                        drain(i);
                    }
                },
                sc_core::sc_gen_unique_name("drain"));
        }
    }
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
        ++m_cache_stats.errors;
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
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    if (ext && ext->kind == tlm_bus::access_kind::atomic && write &&
        (!tlm_bus::atomic_size_ok(gp.get_address(), gp.get_data_length()) ||
         gp.get_byte_enable_ptr() != nullptr)) {
        VGPU_WARN(m_log,
                  "atomic at 0x%llx of %u bytes: an atomic is one aligned 32- or 64-bit word",
                  static_cast<unsigned long long>(gp.get_address()), gp.get_data_length());
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        ++m_cache_stats.errors;
        return;
    }
    if (write)
        ++m_cache_stats.writes;
    else
        ++m_cache_stats.reads;
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    tlm_bus::for_each_segment(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(),
                              gp.get_byte_enable_ptr(), gp.get_byte_enable_length(),
                              m_cfg.line_bytes, [&](const segment& s) {
                                  status = access(s, write, ext, delay);
                                  return status == tlm::TLM_OK_RESPONSE;
                              });
    if (status != tlm::TLM_OK_RESPONSE)
        ++m_cache_stats.errors;
    gp.set_response_status(status);
}

void llc::apply(const segment& s, bool write, const tlm_bus::gpu_extension* atomic,
                cache::sector_mask whole)
{
    if (atomic) {
        // ATOM/CAS: the read-modify-write of the word (4 or 8 bytes), the old value back in
        // the buffer.
        std::uint8_t word[8] = {};
        m_core.read(s.addr, word, s.len);
        tlm_bus::atomic_apply_bytes(atomic->atomic, s.len, word, s.data, atomic->swap);
        m_core.write(s.addr, word, s.len);
        return;
    }
    if (write)
        m_core.array().set_valid(s.addr, whole);
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

tlm::tlm_response_status llc::fetch(std::uint64_t line, cache::sector_mask sectors,
                                    std::uint8_t* buf, const tlm_bus::gpu_extension* ext,
                                    sc_core::sc_time& delay)
{
    unsigned off = 0, bytes = 0;
    m_core.fetch_span(sectors, off, bytes);
    m_cache_stats.bytes_fetched += bytes;
    if (remote(line)) { // a private copy is filled through the line's home slice
        const tlm_bus::gpu_extension home = home_ext(ext);
        return out.access(tlm::TLM_READ_COMMAND, line + off, buf + off, bytes, delay, &home);
    }
    const sc_core::sc_time start = tlm_bus::sim_now() + delay;
    const tlm::tlm_response_status st =
        out.access(tlm::TLM_READ_COMMAND, line + off, buf + off, bytes, delay, ext);
    if (m_measure)
        m_switcher->note_dram((tlm_bus::sim_now() + delay - start).value());
    return st;
}

void llc::attach(llc_switcher& sw, unsigned module, const noc::address_map& map)
{
    m_switcher = &sw;
    m_measure = m_cfg.mode == llc_mode::adaptive; // the monitor measures the paths
    m_module = module;
    m_map.emplace(map);
    sw.add_slice(*this, module);
}

bool llc::remote(std::uint64_t addr) const
{
    if (!m_map)
        return false;
    const auto home = m_map->home(addr);
    return home && *home != m_module;
}

unsigned llc::drop_remote_lines()
{
    std::vector<std::uint64_t> drop;
    m_core.array().for_each_valid([&](std::uint64_t line, cache::sector_mask dirty, const void*) {
        // A copy being filled stays until its fill has landed (it is dropped then).
        if (remote(line) && m_core.entry_of(line) < 0) {
            if (dirty != 0)
                SC_REPORT_ERROR("vgpu/llc", (std::string(name()) +
                                             ": a private copy of another module's line is dirty")
                                                .c_str());
            drop.push_back(line);
        }
    });
    for (std::uint64_t line : drop)
        m_core.array().invalidate(line);
    ++m_copy_drops; // and a copy's fill in flight is not installed (miss_accurate)
    unsigned dropped = static_cast<unsigned>(drop.size());
    if (m_remote_ways) {
        drop.clear();
        m_remote_ways->for_each_valid(
            [&](std::uint64_t line, cache::sector_mask, const void*) { drop.push_back(line); });
        for (std::uint64_t line : drop)
            m_remote_ways->invalidate(line);
        dropped += static_cast<unsigned>(drop.size());
    }
    return dropped;
}

unsigned llc::drop_remote_range(std::uint64_t pa, std::uint64_t bytes)
{
    ++m_range_lookups;
    if (!m_map || bytes == 0)
        return 0;
    cache::cache_array& a = m_core.array();
    const std::uint64_t lb = a.line_bytes();
    const std::uint64_t first = pa / lb * lb, end = pa + bytes;
    std::vector<std::uint64_t> lines;
    if ((end - first) / lb <= std::uint64_t{m_cfg.sets} * m_cfg.ways) {
        for (std::uint64_t line = first; line < end; line += lb)
            if (remote(line))
                lines.push_back(line);
    } else { // a range larger than the slice: visit its valid lines instead
        auto in_range = [&](std::uint64_t line, cache::sector_mask, const void*) {
            if (line + lb > pa && line < end && remote(line))
                lines.push_back(line);
        };
        a.for_each_valid(in_range);
        if (m_remote_ways)
            m_remote_ways->for_each_valid(in_range);
    }
    unsigned dropped = 0;
    for (std::uint64_t line : lines) {
        // A fill in flight (accurate mode) carries the old frame's data: it is not installed.
        if (m_core.entry_of(line) >= 0 || m_remote_fills.count(line) != 0)
            m_stale_fills.insert(line);
        if (m_core.entry_of(line) < 0 && a.probe(line)) {
            a.invalidate(line);
            ++dropped;
        }
        if (m_remote_ways && m_remote_ways->probe(line)) {
            m_remote_ways->invalidate(line);
            ++dropped;
        }
    }
    m_range_dropped += dropped;
    return dropped;
}

tlm_bus::gpu_extension llc::home_ext(const tlm_bus::gpu_extension* ext)
{
    tlm_bus::gpu_extension home = ext ? *ext : tlm_bus::gpu_extension{};
    home.home_access = true;
    home.fault.reset();
    return home;
}

tlm::tlm_response_status llc::read_remote_ways(const segment& s, cache::sector_mask need,
                                               const tlm_bus::gpu_extension* ext, bool local,
                                               sc_core::sc_time& delay)
{
    cache::cache_array& a = *m_remote_ways;
    const std::uint64_t line = a.line_addr(s.addr);
    const std::uint64_t now = tlm_bus::sim_now().value();
    auto copy_out = [&] {
        tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset, [&](unsigned off, unsigned n) {
            a.read(s.addr + off, s.data + off, n);
        });
    };
    // Accurate mode: a read of a line whose fill is in flight waits for it (a merge), as the
    // slice's MSHRs make requests do; fast mode fills at once with the data's arrival time.
    for (auto it = m_remote_fills.find(line); m_accurate && it != m_remote_fills.end();
         it = m_remote_fills.find(line)) {
        const std::shared_ptr<sc_core::sc_event> filled = it->second;
        sc_core::wait(*filled);
    }
    const cache::sector_mask valid = a.valid_sectors(line);
    if ((valid & need) == need) {
        a.lookup(line); // most recently used
        ++m_remote_way_hits;
        ++(local ? m_local_hits : m_remote_hits);
        copy_out();
        if (!m_accurate) // a sector still in flight (fast mode) arrives at its recorded time
            delay = tlm_bus::ps_time(
                std::max<std::uint64_t>(now + delay.value(), a.ready(line, need)) - now);
        return tlm::TLM_OK_RESPONSE;
    }
    ++m_remote_way_misses;
    const cache::sector_mask missing = need & ~valid;
    unsigned off = 0, bytes = 0;
    m_core.fetch_span(missing, off, bytes);
    m_cache_stats.bytes_fetched += bytes;
    std::uint8_t* buf = take_buffer();
    const tlm_bus::gpu_extension home = home_ext(ext);
    std::shared_ptr<sc_core::sc_event> filled;
    if (m_accurate)
        m_remote_fills.emplace(line, filled = std::make_shared<sc_core::sc_event>());
    const tlm::tlm_response_status status =
        out.access(tlm::TLM_READ_COMMAND, line + off, buf + off, bytes, delay, &home);
    settle(delay);
    bool stale = false; // its frame was invalidated while the fill was in flight
    if (filled) {
        m_remote_fills.erase(line);
        stale = m_stale_fills.erase(line) > 0;
        filled->notify(sc_core::SC_ZERO_TIME);
    }
    if (status == tlm::TLM_OK_RESPONSE) {
        // Read-only and clean: a line replaced meanwhile (accurate mode) is simply refilled,
        // and a victim is dropped.
        if (!a.probe(line))
            a.allocate(line);
        a.fill(line, buf, missing);
        if (!m_accurate)
            a.set_ready(line, missing, now + delay.value());
        copy_out();
        if (stale) // the request gets its data; the line is not kept
            a.invalidate(line);
    }
    m_core.give_buffer(buf);
    return status;
}

tlm::tlm_response_status llc::write_home(const segment& s, const tlm_bus::gpu_extension* ext,
                                         sc_core::sc_time& delay)
{
    ++m_home_writes;
    const std::uint64_t line = m_core.line_addr(s.addr);
    // Accurate mode: a fill of this line in flight must land first, or it would bring back the
    // bytes from before this write; a fill asked while this write is in flight waits for it
    // (miss_accurate), or it could read the home before the write and land after it.
    if (m_accurate) {
        settle(delay);
        for (int e = m_core.entry_of(line); e >= 0; e = m_core.entry_of(line))
            m_waits.wait_entry(e);
        ++m_home_writes_in_flight[line];
    }
    const tlm_bus::gpu_extension home = home_ext(ext);
    std::vector<std::uint8_t> be;
    if (s.be) {
        be.resize(s.len);
        for (unsigned i = 0; i < s.len; ++i)
            be[i] = s.be[(s.be_offset + i) % s.be_len];
    }
    const bool atom = ext && ext->kind == tlm_bus::access_kind::atomic;
    std::uint8_t addend[8] = {};
    if (atom)
        std::memcpy(addend, s.data, s.len);
    const tlm::tlm_response_status status = out.access(
        tlm::TLM_WRITE_COMMAND, s.addr, s.data, s.len, delay, &home, s.be ? be.data() : nullptr);
    if (m_accurate) {
        const auto it = m_home_writes_in_flight.find(line);
        if (--it->second == 0)
            m_home_writes_in_flight.erase(it);
        m_home_written.notify(sc_core::SC_ZERO_TIME);
    }
    if (status != tlm::TLM_OK_RESPONSE || !m_core.array().probe(line))
        return status;
    if (atom) { // the home answered the old value: the copy gets the new one
        std::uint8_t sum[8] = {};
        std::memcpy(sum, s.data, s.len); // the old value, made the new one
        tlm_bus::atomic_apply_bytes(ext->atomic, s.len, sum, addend, ext->swap);
        m_core.array().write_valid(s.addr, sum, s.len, false);
        return status;
    }
    tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset, [&](unsigned off, unsigned n) {
        m_core.array().write_valid(s.addr + off, s.data + off, n, false);
    });
    return status;
}

sc_core::sc_time llc::write_victim(std::uint64_t line, const std::uint8_t* data,
                                   cache::sector_mask dirty, const sc_core::sc_time& delay)
{
    const unsigned sb = m_core.array().sector_bytes();
    // Accurate mode waits inside each write (channel arbitration): completions are kept as
    // absolute times.
    sc_core::sc_time done = tlm_bus::sim_now() + delay;
    while (dirty != 0) {
        const auto first = static_cast<unsigned>(__builtin_ctzll(dirty));
        unsigned last = first;
        while (last + 1 < 64 && (dirty & (cache::sector_mask{1} << (last + 1))))
            ++last;
        const unsigned off = first * sb, bytes = (last - first + 1) * sb;
        for (unsigned k = first; k <= last; ++k)
            dirty &= ~(cache::sector_mask{1} << k);
        sc_core::sc_time d = m_accurate ? sc_core::SC_ZERO_TIME : delay;
        m_writeback_bytes += bytes;
        // The victim's data buffer stays valid until the write returns: nothing is copied.
        const tlm::tlm_response_status status =
            out.access(tlm::TLM_WRITE_COMMAND, line + off, const_cast<std::uint8_t*>(data + off),
                       bytes, d, &m_wb_attrs);
        if (status != tlm::TLM_OK_RESPONSE) {
            // The routing guarantees a home for every line the LLC holds; losing dirty data is
            // a broken invariant of the platform, not a guest mistake.
            char msg[160];
            std::snprintf(msg, sizeof msg,
                          "%s: write-back of dirty line 0x%llx failed (response %d)", name(),
                          static_cast<unsigned long long>(line), static_cast<int>(status));
            SC_REPORT_ERROR("vgpu/llc", msg);
        }
        done = std::max(done, tlm_bus::sim_now() + d);
    }
    return done - tlm_bus::sim_now();
}

tlm::tlm_response_status llc::access(const segment& s, bool write,
                                     const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay)
{
    using outcome = cache::cache_controller::outcome;
    if (m_switcher) {
        // An SM's request is the adaptive monitor's access stream; every request waits for a
        // switch in progress.
        if (ext && ext->sm >= 0 && !ext->home_access && ext->module >= 0)
            m_switcher->note_access(static_cast<unsigned>(ext->module), s.addr, write);
        const std::uint64_t at = (tlm_bus::sim_now() + delay).value();
        if (at < m_switcher->busy_until(m_module)) {
            delay += tlm_bus::ps_time(m_switcher->busy_until(m_module) - at);
            ++m_switch_waits;
        }
    }
    const bool local = !ext || ext->module < 0 || static_cast<unsigned>(ext->module) == m_module;
    ++(local ? m_local_lookups : m_remote_lookups);
    const bool copy = remote(s.addr); // a private copy of a line homed elsewhere
    const sc_core::sc_time arrival = tlm_bus::sim_now() + delay;
    // An atomic holds its bank two cycles: the read and the write of the word.
    const unsigned cycles =
        atomic(s, write, ext)
            ? 2
            : std::max(1u, (s.len + m_cfg.bank_bytes_per_cycle - 1) / m_cfg.bank_bytes_per_cycle);
    m_banks[bank_of(s.addr)]->use(local ? 0 : 1, ext, cycles, delay);
    const sc_core::sc_time served = tlm_bus::sim_now() + delay;
    m_bank_wait.sample((served - arrival - cycles * m_cycle).to_seconds() * 1e9);
    delay += m_hit;
    const sc_core::sc_time tag_done = tlm_bus::sim_now() + delay;
    if (m_measure && ext && ext->sm >= 0 && !ext->home_access)
        m_switcher->note_lookup((tag_done - arrival).value());

    cache::sector_cover c;
    tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset,
                          [&](unsigned off, unsigned n) { m_core.cover(c, s.addr + off, n); });
    // A read needs every sector it touches; a write only those it writes in part (the others
    // it replaces whole).
    // An atomic reads the word first: like a read, it needs the sector it touches.
    const cache::sector_mask need = write && !atomic(s, write, ext) ? c.partial() : c.touched;
    if (c.touched == 0) { // no byte enabled: nothing to move
        delay = until(tag_done);
        return tlm::TLM_OK_RESPONSE;
    }
    if (copy && write) { // write through to the home; the copy stays clean
        delay = until(tag_done);
        return write_home(s, ext, delay);
    }
    if (copy && m_remote_ways && ext && ext->read_only) {
        delay = until(tag_done);
        return read_remote_ways(s, need, ext, local, delay);
    }
    if (copy && m_switcher->cur(m_module) == llc_org::shared && m_core.entry_of(s.addr) < 0 &&
        m_core.array().probe(s.addr))
        m_core.array().invalidate(s.addr); // a copy left from before a switch: read home again

    if (!m_accurate) {
        const cache::cache_controller::timed_outcome t =
            m_core.lookup_at(s.addr, need, tag_done.value());
        if (t.result == outcome::miss) {
            const tlm::tlm_response_status st =
                miss_fast(s, write, c, t, ext, tag_done.value(), delay);
            if (copy && m_switcher->cur(m_module) == llc_org::shared)
                m_core.array().invalidate(s.addr); // filled after a switch to shared
            return st;
        }
        ++(local ? m_local_hits : m_remote_hits);
        apply(s, write, atomic(s, write, ext) ? ext : nullptr, c.whole);
        delay = tlm_bus::ps_time(t.ready - tlm_bus::sim_now().value());
        return tlm::TLM_OK_RESPONSE;
    }

    // Accurate mode: requests meet here in simulated time; a line with an MSHR entry is being
    // filled or its write-back is buffered, and must not be touched until the entry is
    // released (merge); a miss with every MSHR busy waits for one (stall).
    cache::cache_controller::request r;
    const std::uint64_t line = m_core.line_addr(s.addr);
    bool woken = false; // woken from the line of stalled misses
    for (outcome o = m_core.lookup(s.addr, need, r); o != outcome::miss;
         o = m_core.lookup(s.addr, need, r)) {
        if (woken && o != outcome::stall && m_core.misses_in_flight() < m_cfg.mshrs)
            m_waits.pass_on(); // the freed MSHR is not needed here
        if (o == outcome::hit) {
            ++(local ? m_local_hits : m_remote_hits);
            apply(s, write, atomic(s, write, ext) ? ext : nullptr, c.whole);
            delay = until(tag_done);
            return tlm::TLM_OK_RESPONSE;
        }
        if (o == outcome::merge) {
            woken = false;
            m_waits.wait_entry(m_core.entry_of(line));
        } else {
            m_waits.wait_free(woken);
            woken = true;
        }
    }
    const tlm::tlm_response_status st = miss_accurate(s, write, c, r, ext, tag_done, delay);
    // Filled after a switch to shared, or after its frame was invalidated while in flight.
    const bool stale = copy && m_stale_fills.erase(line) > 0;
    if (copy && (stale || m_switcher->cur(m_module) == llc_org::shared) &&
        m_core.entry_of(s.addr) < 0)
        m_core.array().invalidate(s.addr);
    return st;
}

tlm::tlm_response_status llc::miss_fast(const segment& s, bool write, const cache::sector_cover& c,
                                        const cache::cache_controller::timed_outcome& t,
                                        const tlm_bus::gpu_extension* ext, std::uint64_t tag_done,
                                        sc_core::sc_time& delay)
{
    const std::uint64_t now = tlm_bus::sim_now().value();
    const std::uint64_t line = m_core.line_addr(s.addr);
    // The line's fill in flight holds its MSHR entry: the miss goes below once it has arrived.
    std::uint64_t base = std::max(tag_done, t.busy_until);
    // A fetch must not read DRAM before a buffered write-back of the line has landed there.
    if (t.fetch != 0) {
        const std::uint64_t landed = m_core.writeback_done(line);
        if (landed > base) {
            base = landed;
            ++m_wb_read_waits;
        }
    }
    const bool allocated = !m_core.array().probe(line);
    cache::cache_array::victim v;
    if (allocated)
        v = m_core.allocate(line);
    std::uint8_t* victim_data = nullptr;
    if (v.dirty) {
        // The array's copy lives until the next removal: keep it for the write below.
        victim_data = take_buffer();
        std::memcpy(victim_data, v.data, m_cfg.line_bytes);
    }
    // An MSHR (if sectors are fetched) and a buffer entry (for a dirty victim) must both be
    // free from the issue on; they are booked as intervals and trimmed to the real ends.
    cache::cache_controller::fast_miss m =
        m_core.begin_fast_miss(base, t.fetch != 0, v.dirty_sectors, now);
    const sc_core::sc_time issue = tlm_bus::ps_time(m.issue - now);
    std::uint64_t ready = m.issue; // the fetch's data (the MSHR is held until then)
    std::uint64_t data = ready;    // the request's data
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    if (t.fetch != 0) {
        std::uint8_t* buf = take_buffer();
        sc_core::sc_time d = issue;
        status = fetch(line, t.fetch, buf, ext, d);
        ready = now + d.value();
        if (status == tlm::TLM_OK_RESPONSE) {
            // Sectors filled for a request asked later (t.early) keep their data (it may have
            // been written since) and take the earlier arrival.
            const cache::sector_mask fresh = t.fetch & ~t.early;
            if (fresh != 0) {
                m_core.fill(line, buf, fresh);
                m_core.array().set_ready(line, fresh, ready, tag_done);
            }
            if (t.early != 0) {
                m_core.array().advance_ready(line, t.early, ready, tag_done);
                data = std::max(fresh != 0 ? ready : 0, m_core.array().ready(line, t.early));
            } else {
                data = ready;
            }
            m_cache_stats.miss_latency.sample(static_cast<double>(data - tag_done) / 1000.0);
        } else if (allocated) {
            m_core.array().invalidate(line); // the empty way allocated for the fill
        }
        m_core.give_buffer(buf);
    }
    // The victim leaves through the buffer after the fill was issued: off the critical path.
    std::uint64_t landed = m.issue;
    if (victim_data) {
        landed = now + write_victim(v.line_addr, victim_data, v.dirty_sectors, issue).value();
        m_core.note_writeback(v.line_addr, landed, now);
        m_core.give_buffer(victim_data);
    }
    m_core.end_fast_miss(m, ready, landed);
    if (t.fetch != 0)
        m_mshrs_in_use.add(m.issue, ready); // the MSHR is held from the issue to the fill
    if (victim_data)
        m_wb_occupancy.sample(m_core.fast_wb().in_use(m.issue));
    if (status == tlm::TLM_OK_RESPONSE)
        apply(s, write, atomic(s, write, ext) ? ext : nullptr, c.whole);
    delay =
        tlm_bus::ps_time(std::max(status == tlm::TLM_OK_RESPONSE ? data : ready, t.ready) - now);
    return status;
}

tlm::tlm_response_status
llc::miss_accurate(const segment& s, bool write, const cache::sector_cover& c,
                   cache::cache_controller::request& r, const tlm_bus::gpu_extension* ext,
                   const sc_core::sc_time& tag_done, sc_core::sc_time& delay)
{
    // The miss holds an MSHR entry (claimed by the lookup); a resident line is pinned.
    const std::uint64_t line = m_core.line_addr(s.addr);
    m_mshrs_in_use.step(tlm_bus::sim_now().value(), +1);
    bool allocated = false;
    while (!m_core.array().probe(line)) {
        if (!m_core.can_allocate(line)) {
            sc_core::wait(m_released); // every way has a miss in flight
            continue;
        }
        if (m_core.array().victim_dirty(line) && m_core.wb_full()) {
            m_core.count_wb_stall(r);
            sc_core::wait(m_released);
            continue;
        }
        const cache::cache_array::victim v = m_core.allocate(line);
        allocated = true;
        if (v.dirty) {
            const unsigned e = m_core.buffer_writeback(v);
            m_wb_occupancy.sample(m_core.wb_in_use());
            m_drain_go[e]->notify(sc_core::SC_ZERO_TIME);
        }
    }
    // A copy's fill reads the home: this slice's writes to the line already on their way there
    // land first, or the fill could read the bytes from before them and install them after
    // those writes patched the copy (while its sectors were still invalid).
    while (r.fetch != 0 && m_home_writes_in_flight.count(line) != 0)
        sc_core::wait(m_home_written);
    sc_core::sc_time d = until(tag_done);
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    if (r.fetch != 0) {
        std::uint8_t* buf = take_buffer();
        const std::uint64_t drops = m_copy_drops;
        status = fetch(line, r.fetch, buf, ext, d);
        settle(d);
        // The module left private while the fill was in flight: its requests went to the home
        // directly meanwhile, perhaps after the fill read it; the fill is not kept (access),
        // even if the module is private again.
        if (drops != m_copy_drops && remote(line))
            m_stale_fills.insert(line);
        if (status == tlm::TLM_OK_RESPONSE) {
            m_core.fill(line, buf, r.fetch);
            m_cache_stats.miss_latency.sample((tlm_bus::sim_now() - tag_done).to_seconds() * 1e9);
        } else if (allocated) {
            m_core.array().invalidate(line); // the empty way allocated for the fill
        }
        m_core.give_buffer(buf);
    }
    if (status == tlm::TLM_OK_RESPONSE)
        apply(s, write, atomic(s, write, ext) ? ext : nullptr, c.whole);
    const int entry = m_core.entry_of(line);
    m_core.finish_miss(line);
    m_mshrs_in_use.step(tlm_bus::sim_now().value(), -1);
    m_waits.released(entry, true);
    m_released.notify(sc_core::SC_ZERO_TIME);
    delay = d;
    return status;
}

void llc::drain(unsigned entry)
{
    const cache::cache_controller::wb_entry& e = m_core.writeback(entry);
    sc_core::sc_time d = write_victim(e.line, e.data, e.dirty, sc_core::SC_ZERO_TIME);
    settle(d);
    const int mshr_entry = m_core.entry_of(e.line);
    m_core.end_writeback(entry);
    m_waits.released(mshr_entry, false);
    m_released.notify(sc_core::SC_ZERO_TIME);
}

unsigned llc::transport_dbg(tlm::tlm_generic_payload& gp)
{
    const tlm::tlm_command cmd = gp.get_command();
    if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND)
        return 0;
    unsigned moved = 0;
    tlm_bus::for_each_segment(
        gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), nullptr, 0, m_cfg.line_bytes,
        [&](const segment& s) {
            // Memory, then the newer copies over it: a buffered victim's dirty sectors, then
            // the valid sectors of a resident line (the newest data, dirty or not). A write
            // goes to all three, so a clean sector stays clean and correct.
            const unsigned n = out.debug(cmd, s.addr, s.data, s.len);
            const std::uint64_t line = m_core.line_addr(s.addr);
            const unsigned sb = m_core.array().sector_bytes();
            if (cmd == tlm::TLM_WRITE_COMMAND) {
                m_core.debug_write_buffered(s.addr, s.data, n);
                if (m_core.array().probe(s.addr))
                    m_core.array().write_valid(s.addr, s.data, n, false);
            } else {
                const int e = m_core.find_writeback(line);
                const cache::sector_mask valid = m_core.array().valid_sectors(line);
                if (valid == 0 && e < 0) {
                    // No copy here (every line while the host loads and most while it checks):
                    // memory's bytes are the data.
                    moved += n;
                    return n == s.len;
                }
                // Every byte of a sector has the same source: one copy per sector (the
                // driver's loads and checks move whole buffers through here).
                for (unsigned k = 0; k < n;) {
                    const std::uint64_t off = (s.addr & (m_cfg.line_bytes - 1)) + k;
                    const auto len =
                        static_cast<unsigned>(std::min<std::uint64_t>(n - k, sb - off % sb));
                    const cache::sector_mask bit = cache::sector_mask{1} << (off / sb);
                    if (valid & bit)
                        m_core.read(line + off, s.data + k, len);
                    else if (e >= 0 && (m_core.writeback(static_cast<unsigned>(e)).dirty & bit))
                        std::memcpy(s.data + k,
                                    m_core.writeback(static_cast<unsigned>(e)).data + off, len);
                    k += len;
                }
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
