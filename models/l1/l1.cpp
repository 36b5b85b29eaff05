// L1 data cache of one SM. See models/l1/README.md.
#include "models/l1/l1.h"
#include "tlm_bus/byte_enables.h"
#include "tlm_bus/sim_time.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::l1 {

namespace {
sc_core::sc_time from_value(std::uint64_t v)
{
    return tlm_bus::ps_time(v);
}

/// The L1's controller core: sectored, write-through, no-write-allocate, modulo set index (a
/// shared L1's set index skips the `home_bits` that chose it as the line's home).
cache::controller_params core_params(const l1_config& cfg, unsigned home_bits)
{
    cache::controller_params p;
    p.sets = cfg.sets;
    p.ways = cfg.ways;
    p.line_bytes = cfg.line_bytes;
    p.sector_bytes = cfg.sector_bytes;
    p.index = home_bits ? cache::index_kind::bit_select : cache::index_kind::modulo;
    p.index_first_bit = home_bits;
    p.mshrs = cfg.mshrs;
    p.policy = cache::write_policy::write_through_no_allocate;
    return p;
}
} // namespace

l1::l1(const sc_core::sc_module_name& name, const l1_config& cfg, const clock_params& clk,
       unsigned home_bits)
    : sc_module(name), in("in"), out("out"), m_cfg(cfg), m_accurate(clk.accurate),
      m_hit(static_cast<double>(cfg.hit_latency) * static_cast<double>(clk.core_ps),
            sc_core::SC_PS),
      m_cycle_ps(sc_core::sc_time(static_cast<double>(clk.core_ps), sc_core::SC_PS).value()),
      m_core(core_params(cfg, home_bits)), m_tags(cfg.lines_per_cycle),
      m_waits(clk.accurate ? m_core.entries() : 0), m_log(this->name()), m_stats(this->name()),
      m_cache_stats(m_stats, m_core, "below"),
      m_invalidations(m_stats, "invalidations", "count",
                      "whole-cache invalidations at a new epoch (kernel boundary)"),
      m_range_invalidations(m_stats, "range_invalidations", "count",
                            "physical ranges invalidated (the CP's L1_INVALIDATE: a page the "
                            "host evicted)"),
      m_lines_invalidated(m_stats, "lines_invalidated", "count",
                          "resident lines dropped by range_invalidations"),
      m_tag_stalls(m_stats, "tag_stalls", "count",
                   "line lookups that waited for the tag stage (l1.lines_per_cycle taken)"),
      m_remote_reads(m_stats, "remote_reads", "count",
                     "read requests of other SMs of the cluster (l1.sharing shared: this L1 is "
                     "their lines' home; a peer policy: they read through it)"),
      m_remote_hits(m_stats, "remote_hits", "count",
                    "remote_reads served from the array (shared: line lookups; a peer policy: "
                    "requests)"),
      m_retries(m_stats, "mshr_retries", "count",
                "fast mode: line requests answered with every MSHR busy, which the SM replayed "
                "when one was free"),
      m_data_misses(m_stats, "data_misses", "count",
                    "misses of SMs' data loads (LD; not instruction fetches, constant loads or "
                    "atomics); a translated kernel's are OUTDIR/source_profile.csv's l1_misses"),
      m_tag_wait(m_stats, "tag_wait", "ns",
                 "time a line lookup waited for the tag stage (every lookup, reads and writes)")
{
    in.register_b_transport(this, &l1::b_transport);
    in.register_transport_dbg(this, &l1::transport_dbg);
    in.register_get_direct_mem_ptr(this, &l1::get_direct_mem_ptr);
}

bool l1::admit(tlm::tlm_generic_payload& gp)
{
    if (!check(gp))
        return false;
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    if (ext && ext->epoch > m_epoch)
        new_epoch(ext->epoch);
    return true;
}

bool l1::check(tlm::tlm_generic_payload& gp)
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

void l1::new_epoch(std::uint32_t epoch)
{
    m_epoch = epoch;
    ++m_invalidations;
    // What waits for this L1 or leaves it belongs to the old kernel's view of memory.
    if (m_peer)
        m_peer->new_kernel_epoch();
    m_core.invalidate_all([](std::uint64_t, const std::uint8_t*, cache::sector_mask) {
        SC_REPORT_ERROR("vgpu/l1", "an L1 line was dirty");
    });
}

std::uint64_t l1::invalidate_range(std::uint64_t pa, std::uint64_t bytes)
{
    ++m_range_invalidations;
    cache::cache_array& a = m_core.array();
    const std::uint64_t lb = a.line_bytes();
    const std::uint64_t first = pa / lb * lb;
    const std::uint64_t end = pa + bytes;
    std::vector<std::uint64_t> lines;
    if ((end - first) / lb <= std::uint64_t{m_cfg.sets} * m_cfg.ways) {
        for (std::uint64_t line = first; line < end; line += lb)
            lines.push_back(line);
    } else { // a range larger than the L1: visit its valid lines instead
        a.for_each_valid([&](std::uint64_t line, cache::sector_mask, const std::uint8_t*) {
            if (line + lb > pa && line < end)
                lines.push_back(line);
        });
    }
    std::uint64_t dropped = 0;
    for (std::uint64_t line : lines) {
        // A fill in flight carries the old page's data: marked stale, it is not installed.
        if (m_core.wrote_below(line)) {
            a.invalidate(line);
            ++dropped;
        }
        if (m_peer)
            m_peer->line_written(line);
    }
    m_lines_invalidated += dropped;
    return dropped;
}

void l1::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    if (!admit(gp))
        return;
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    if (m_peer && ext &&
        (ext->kind == tlm_bus::access_kind::data || ext->kind == tlm_bus::access_kind::atomic))
        m_peer->tick(tlm_bus::sim_now().value() + delay.value());
    if (gp.is_read()) {
        lookups n;
        gp.set_response_status(read(gp, delay, n));
        if (n.retry_ps != 0) {
            // Every MSHR is busy: the SM replays the access when one is free (fast mode), as a
            // miss waits in the L1 until then in accurate mode.
            auto f = std::make_shared<tlm_bus::fault_wait>();
            f->resolved = true;
            f->retry_ps = n.retry_ps;
            gp.get_extension<tlm_bus::gpu_extension>()->fault = std::move(f);
            ++m_retries;
            return;
        }
        ++m_cache_stats.reads;
        if (ext && ext->kind == tlm_bus::access_kind::data)
            m_data_misses += n.misses;
        if (ext && ext->l1_misses) // the requester's count (an SM's source profile)
            *ext->l1_misses += n.misses;
        // l1.sharing shared: a read of another SM reached this L1 as the line's home.
        const bool remote = m_owner >= 0 && ext && ext->sm >= 0 && ext->sm != m_owner;
        if (remote) {
            ++m_remote_reads;
            m_remote_hits += n.hits;
        } else if (m_peer && ext && ext->kind == tlm_bus::access_kind::data) {
            // The policy sees the SM's data reads only (not its instruction fetches).
            m_peer->own_reads(n.hits + n.misses + n.merges, n.misses);
        }
    } else if (gp.is_write()) {
        ++m_cache_stats.writes;
        write(gp, delay);
    } else {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    if (!gp.is_response_ok())
        ++m_cache_stats.errors;
}

tlm::tlm_response_status l1::read(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, lookups& n)
{
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    tlm_bus::for_each_segment(
        gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), gp.get_byte_enable_ptr(),
        gp.get_byte_enable_length(), m_cfg.line_bytes, [&](const segment& s) {
            status = m_accurate ? read_accurate(s, ext, delay, n) : read_fast(s, ext, delay, n);
            return status == tlm::TLM_OK_RESPONSE && n.retry_ps == 0;
        });
    return status;
}

void l1::write(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    // Write-through: a tag check per line, then the write travels on with its byte enables.
    // The payload is forwarded as it is (an interconnect may do so), so nothing is copied.
    const std::uint64_t now = tlm_bus::sim_now().value();
    const std::uint64_t arrival = now + delay.value();
    std::uint64_t start = arrival;
    tlm_bus::for_each_segment(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), nullptr, 0,
                              m_cfg.line_bytes, [&](const segment&) {
                                  start = tag_start(arrival);
                                  return true;
                              });
    delay = tlm_bus::ps_time(start + m_hit.value() - now);
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    const bool atomic = ext && ext->kind == tlm_bus::access_kind::atomic;
    const unsigned atomic_len = gp.get_data_length();
    std::uint8_t addend[8] = {};
    if (atomic && tlm_bus::atomic_size_ok(gp.get_address(), atomic_len))
        std::memcpy(addend, gp.get_data_ptr(), atomic_len);
    if (m_peer)
        m_peer->store_begins(gp);
    struct ender { // the store's updates are over however write() returns
        peer_policy* peer;
        tlm::tlm_generic_payload& gp;
        ~ender()
        {
            if (peer)
                peer->store_ends(gp);
        }
    } end_order{m_peer.get(), gp};
    out->b_transport(gp, delay);
    gp.set_dmi_allowed(false);
    if (!gp.is_response_ok())
        return;
    if (atomic) {
        // The LLC carried it out and answered with the old value: a present line takes the
        // new one, as it would a store's (a fill in flight is marked stale).
        if (!tlm_bus::atomic_size_ok(gp.get_address(), atomic_len))
            return;
        std::uint8_t v[8] = {};
        std::memcpy(v, gp.get_data_ptr(), atomic_len); // the old value, made the new one
        tlm_bus::atomic_apply_bytes(ext->atomic, atomic_len, v, addend, ext->swap);
        if (m_core.wrote_below(gp.get_address()))
            m_core.write_valid(gp.get_address(), v, atomic_len);
        if (m_peer)
            m_peer->store_done(gp, v, ext, delay);
        return;
    }
    update_copy(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), gp.get_byte_enable_ptr(),
                gp.get_byte_enable_length());
    if (m_peer)
        m_peer->store_done(gp, gp.get_data_ptr(), ext, delay);
}

void l1::update_copy(std::uint64_t addr, const std::uint8_t* data, unsigned len,
                     const std::uint8_t* be, unsigned be_len)
{
    tlm_bus::for_each_segment(addr, const_cast<std::uint8_t*>(data), len, be, be_len,
                              m_cfg.line_bytes, [&](const segment& s) {
                                  if (m_peer)
                                      m_peer->line_written(m_core.line_addr(s.addr));
                                  // A fill in flight may have read the line before this write
                                  // reached memory: the core marks it stale. A present line is
                                  // updated (clean): the sectors written whole become valid, the
                                  // bytes in other valid sectors are updated, the rest skipped.
                                  if (m_core.wrote_below(s.addr)) {
                                      cache::sector_cover c;
                                      tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset,
                                                            [&](unsigned off, unsigned n) {
                                                                m_core.cover(c, s.addr + off, n);
                                                            });
                                      m_core.array().set_valid(s.addr, c.whole);
                                      tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset,
                                                            [&](unsigned off, unsigned n) {
                                                                m_core.write_valid(s.addr + off,
                                                                                   s.data + off, n);
                                                            });
                                  }
                                  return true;
                              });
}

std::uint64_t l1::tag_start(std::uint64_t arrival)
{
    const std::uint64_t now = tlm_bus::sim_now().value();
    const std::uint64_t start = m_tags.reserve_for(arrival, m_cycle_ps, now).start;
    if (start > arrival)
        ++m_tag_stalls;
    m_tag_wait.sample(static_cast<double>(start - arrival) / 1000.0);
    return start;
}

cache::sector_mask l1::need(const segment& s) const
{
    cache::sector_cover c;
    tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset,
                          [&](unsigned off, unsigned n) { m_core.cover(c, s.addr + off, n); });
    return c.touched;
}

tlm::tlm_response_status l1::fetch(std::uint64_t line, cache::sector_mask sectors,
                                   std::uint8_t* buf, const tlm_bus::gpu_extension* ext,
                                   sc_core::sc_time& delay, int peer)
{
    unsigned off = 0, bytes = 0;
    m_core.fetch_span(sectors, off, bytes);
    m_cache_stats.bytes_fetched += bytes;
    // The peer policy chose where the miss reads from: `peer` (>= 0), or below.
    auto read = [&](std::uint8_t* data) {
        return peer >= 0 ? m_peer->read_peer(peer, line + off, data, bytes, delay, ext)
                         : out.access(tlm::TLM_READ_COMMAND, line + off, data, bytes, delay, ext);
    };
    const unsigned sb = m_core.array().sector_bytes();
    const auto first = static_cast<unsigned>(__builtin_ctzll(sectors));
    const cache::sector_mask span = ((cache::sector_mask{2} << (bytes / sb - 1)) - 1) << first;
    if (span == sectors)
        return read(buf + off);
    // The span covers valid sectors too: only the missing ones are taken from it (the valid
    // ones in `buf` are the L1's copy the request is served with).
    std::uint8_t* tmp = take_buffer();
    const tlm::tlm_response_status status = read(tmp + off);
    for (cache::sector_mask m = sectors; m != 0; m &= m - 1) {
        const unsigned o = static_cast<unsigned>(__builtin_ctzll(m)) * sb;
        std::memcpy(buf + o, tmp + o, sb);
    }
    m_core.give_buffer(tmp);
    return status;
}

void l1::copy_valid(std::uint64_t line, cache::sector_mask sectors, std::uint8_t* buf) const
{
    const unsigned sb = m_core.array().sector_bytes();
    for (cache::sector_mask m = sectors & m_core.array().valid_sectors(line); m != 0; m &= m - 1) {
        const unsigned off = static_cast<unsigned>(__builtin_ctzll(m)) * sb;
        m_core.read(line + off, buf + off, sb);
    }
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

void l1::install(std::uint64_t line, const std::uint8_t* data, cache::sector_mask sectors, int peer,
                 const tlm_bus::gpu_extension* ext, const sc_core::sc_time& delay)
{
    const cache::cache_array::victim v = m_core.complete_fill(line, data, sectors);
    if (v.dirty)
        SC_REPORT_ERROR("vgpu/l1", (std::string(name()) + ": evicted a dirty line").c_str());
    if (v.valid && peer >= 0)
        m_peer->evicted(peer, v, ext, delay);
}

std::uint8_t* l1::take_buffer()
{
    std::uint8_t* b = m_core.take_buffer();
    if (!b)
        SC_REPORT_ERROR("vgpu/l1", (std::string(name()) + ": more fills than MSHRs").c_str());
    return b;
}

tlm::tlm_response_status l1::read_fast(const segment& s, const tlm_bus::gpu_extension* ext,
                                       sc_core::sc_time& delay, lookups& n)
{
    const std::uint64_t now = tlm_bus::sim_now().value();
    const std::uint64_t arrival = now + delay.value();
    // A replay (see below) had its tag check when it first came: it goes on from there, as
    // accurate mode's miss goes below when an MSHR is free without a second tag check. A new
    // check would hold the tag stage twice per miss and add its latency to the MSHR's wait
    // (dram_row_local: fast +10.7 % against accurate).
    const bool replay = ext && ext->replay && m_cfg.sharing != sharing_mode::shared;
    const std::uint64_t tag_done = replay ? arrival : tag_start(arrival) + m_hit.value();
    const std::uint64_t line = m_core.line_addr(s.addr);
    const cache::sector_mask sectors = need(s);
    if (sectors == 0) { // no byte enabled: nothing to read
        delay = from_value(tag_done - now);
        return tlm::TLM_OK_RESPONSE;
    }
    // A miss that finds every MSHR busy waits for one before it goes below, as in accurate
    // mode: an SM's line request (the first segment: nothing of it done yet) is answered at
    // once and replayed by the SM when an MSHR is free, so it reaches the memory below at that
    // time, in time order with the other SMs' requests. Booked ahead instead (annotated), such
    // misses reached the DRAM microseconds ahead of global time in the order of their calls,
    // and its banks lost the gaps that order left (a random gather: fast +6 % against
    // accurate). Under l1.sharing shared the request has crossed a crossbar (l1_route): it is
    // booked ahead. With a peer policy (models/l1_share) the SM reaches its own L1 directly:
    // the rule applies.
    // While such misses wait, a new miss goes behind them (in line, as in accurate mode); a
    // hit does not wait. The waiters are kept in the order they were answered, which is the
    // order the SM replays them in, each with the time it may go: its retry time, or when the
    // one ahead of it left, if later. A waiter leaves the line when its replay comes (the
    // oldest's turn), or once its time has passed without it: a replay can fault in the TLB
    // before it gets here, and come back later as a new request, or never.
    if (ext && ext->replayable && m_cfg.sharing != sharing_mode::shared &&
        n.hits + n.misses + n.merges == 0) {
        const auto leave_front = [this](std::uint64_t left) {
            m_retry_waiters.pop_front();
            if (!m_retry_waiters.empty())
                m_retry_waiters.front() = std::max(m_retry_waiters.front(), left);
        };
        while (!m_retry_waiters.empty() && m_retry_waiters.front() < now)
            leave_front(m_retry_waiters.front());
        if (ext->replay && !m_retry_waiters.empty())
            leave_front(now); // its turn has come
        const bool queued = !ext->replay && !m_retry_waiters.empty();
        if (const std::uint64_t at =
                m_core.fast_mshr_wait(s.addr, sectors, tag_done, now, queued, replay)) {
            // A replay told to wait again keeps its place at the head of the line.
            if (ext->replay)
                m_retry_waiters.push_front(at);
            else
                m_retry_waiters.push_back(at);
            n.retry_ps = at;
            delay = from_value(tag_done - now);
            return tlm::TLM_OK_RESPONSE;
        }
    }
    const cache::cache_controller::timed_outcome t = m_core.lookup_at(s.addr, sectors, tag_done);
    ++(t.result == cache::cache_controller::outcome::hit     ? n.hits
       : t.result == cache::cache_controller::outcome::merge ? n.merges
                                                             : n.misses);
    if (t.result != cache::cache_controller::outcome::miss) {
        // A hit, or a merge that completes when the fill in flight arrives.
        copy_from_array(s);
        delay = from_value(t.ready - now);
        return tlm::TLM_OK_RESPONSE;
    }
    // An MSHR must be free from the issue until the data arrives (interval booking).
    // The line's fill in flight holds its MSHR entry: the miss goes below once it has arrived.
    cache::cache_controller::fast_miss m =
        m_core.begin_fast_miss(std::max(tag_done, t.busy_until), true, 0, now);
    sc_core::sc_time d = from_value(m.issue - now);
    std::uint8_t* buf = take_buffer();
    copy_valid(line, sectors, buf);
    const int peer = m_peer ? m_peer->miss_source(arrival) : -1; // as the request arrived
    if (!m_core.array().probe(line))
        m_core.array().prefetch_victim(line); // install() replaces it after the fetch
    const tlm::tlm_response_status status = fetch(line, t.fetch, buf, ext, d, peer);
    std::uint64_t ready = tlm_bus::sim_now().value() + d.value();
    if (status == tlm::TLM_OK_RESPONSE) {
        install(line, buf, t.fetch, peer, ext, d);
        if (m_core.array().probe(line))
            m_core.array().set_ready(line, t.fetch, ready);
        copy_from_buffer(s, buf);
        m_cache_stats.miss_latency.sample(static_cast<double>(ready - arrival) / 1000.0);
    }
    m_core.end_fast_miss(m, ready, 0);
    m_core.give_buffer(buf);
    // The valid sectors it needs may still be in flight too.
    delay = from_value(std::max(ready, t.ready) - now);
    return status;
}

tlm::tlm_response_status l1::read_accurate(const segment& s, const tlm_bus::gpu_extension* ext,
                                           sc_core::sc_time& delay, lookups& n)
{
    using outcome = cache::cache_controller::outcome;
    const std::uint64_t now = tlm_bus::sim_now().value();
    const std::uint64_t arrival = now + delay.value();
    const sc_core::sc_time tag_done = from_value(tag_start(arrival) + m_hit.value());
    const std::uint64_t line = m_core.line_addr(s.addr);
    const cache::sector_mask sectors = need(s);
    auto until = [](const sc_core::sc_time& t) {
        const sc_core::sc_time n = tlm_bus::sim_now();
        return t > n ? t - n : sc_core::SC_ZERO_TIME;
    };
    if (sectors == 0) { // no byte enabled: nothing to read
        delay = until(tag_done);
        return tlm::TLM_OK_RESPONSE;
    }
    // A merge waits for the fill in flight, a stall (in line) for a free MSHR; then look again.
    cache::cache_controller::request r;
    bool woken = false; // woken from the line of stalled misses
    for (outcome o = m_core.lookup(s.addr, sectors, r); o != outcome::miss;
         o = m_core.lookup(s.addr, sectors, r)) {
        if (woken && o != outcome::stall && m_core.misses_in_flight() < m_cfg.mshrs)
            m_waits.pass_on(); // the freed MSHR is not needed here
        if (o == outcome::hit) {
            // The core counts a request that waited for a fill as a merge, not a hit.
            ++(r.merged ? n.merges : n.hits);
            copy_from_array(s);
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
    n.merges += r.merged ? 1 : 0; // it waited for a fill, then missed the sectors it lacked
    ++n.misses;
    // The request is served from the line buffer: its valid sectors now, the rest fetched
    // (the line may be evicted while the fetch is in flight).
    std::uint8_t* buf = take_buffer();
    copy_valid(line, sectors, buf);
    sc_core::sc_time d = until(tag_done);
    const int peer = m_peer ? m_peer->miss_source(arrival) : -1; // as the request arrived
    const tlm::tlm_response_status status = fetch(line, r.fetch, buf, ext, d, peer);
    // The sectors become visible to merged requests when their data arrives.
    sc_core::wait(d);
    if (status == tlm::TLM_OK_RESPONSE) {
        install(line, buf, r.fetch, peer, ext, sc_core::SC_ZERO_TIME);
        copy_from_buffer(s, buf);
        m_cache_stats.miss_latency.sample(
            static_cast<double>(tlm_bus::sim_now().value() - arrival) / 1000.0);
    }
    m_core.give_buffer(buf);
    const int entry = m_core.entry_of(line);
    m_core.finish_miss(line);
    m_waits.released(entry, true);
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
                                          m_core.write_valid(s.addr, s.data, s.len);
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
