// L1 data cache of one SM. See models/l1/README.md.
#include "models/l1/l1.h"
#include "tlm_bus/byte_enables.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

namespace vgpu::l1 {

namespace {
sc_core::sc_time from_value(std::uint64_t v)
{
    return sc_core::sc_time::from_value(v);
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

double count(std::uint64_t v)
{
    return static_cast<double>(v);
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
      m_reads(m_stats, "reads", "count", "read requests"),
      m_writes(m_stats, "writes", "count", "write requests (all forwarded)"),
      m_invalidations(m_stats, "invalidations", "count",
                      "whole-cache invalidations at a new epoch (kernel boundary)"),
      m_errors(m_stats, "errors", "count", "requests answered with an error response"),
      m_bytes_fetched(m_stats, "bytes_fetched", "bytes",
                      "bytes read below by misses (the span of the sectors each one fetched)"),
      m_tag_stalls(m_stats, "tag_stalls", "count",
                   "line lookups that waited for the tag stage (l1.lines_per_cycle taken)"),
      m_remote_reads(m_stats, "remote_reads", "count",
                     "read requests of other SMs of the cluster (l1.sharing shared: this L1 is "
                     "their lines' home; adaptive: they borrow this L1)"),
      m_remote_hits(m_stats, "remote_hits", "count",
                    "remote_reads served from the array (shared: line lookups; adaptive: "
                    "requests)"),
      m_hits(m_stats, "hits", "count", "read line lookups served from the array",
             [this] { return count(m_core.counts().hits); }),
      m_misses(m_stats, "misses", "count",
               "read line lookups that fetched sectors (line_misses + sector_misses)",
               [this] { return count(m_core.counts().misses); }),
      m_line_misses(
          m_stats, "line_misses", "count",
          "misses whose line was absent (the sectors read are fetched)",
          [this] { return count(m_core.counts().misses - m_core.counts().sector_misses); }),
      m_sector_misses(m_stats, "sector_misses", "count",
                      "misses whose line was resident without every sector read (the missing "
                      "ones are fetched)",
                      [this] { return count(m_core.counts().sector_misses); }),
      m_merges(m_stats, "mshr_merges", "count",
               "read line lookups that waited for a fill already in flight",
               [this] { return count(m_core.counts().merges); }),
      m_full_stalls(m_stats, "mshr_full_stalls", "count", "misses that waited for a free MSHR",
                    [this] { return count(m_core.counts().full_stalls); }),
      m_hit_rate(m_stats, "hit_rate", "ratio", "hits / (hits + misses + mshr_merges)",
                 [this] {
                     const cache::controller_counts& c = m_core.counts();
                     double all = count(c.hits + c.misses + c.merges);
                     return all > 0 ? count(c.hits) / all : 0.0;
                 }),
      m_overrun(m_stats, "capacity_overrun", "ns",
                "fast mode: MSHR time booked beyond l1.mshrs (a miss that outlived every earlier "
                "one into a stretch where all were taken; 0 normally)",
                [this] { return count(m_core.fast_mshrs().overrun()) / 1000.0; }),
      m_miss_latency(m_stats, "miss_latency", "ns",
                     "time from a missing read's arrival to its sectors' arrival"),
      m_tag_wait(m_stats, "tag_wait", "ns",
                 "time a line lookup waited for the tag stage (every lookup, reads and writes)"),
      m_queues(cfg.replacement_queue),
      m_remote_misses(m_stats, "remote_misses", "count",
                      "adaptive: remote_reads that missed and went on to the LLC (this L1 is "
                      "not filled)"),
      m_borrowed(m_stats, "borrowed_reads", "count",
                 "adaptive: this SM's misses sent to its partner's L1 (memory-intensive epochs)"),
      m_blocks_sent(m_stats, "replacements_sent", "count",
                    "adaptive: lines evicted by fills of borrowed reads, sent to the partner as "
                    "block-replacement requests"),
      m_blocks_received(m_stats, "replacements_received", "count",
                        "adaptive: block-replacement requests of borrowing SMs received"),
      m_blocks_stored(m_stats, "replacements_stored", "count",
                      "adaptive: replacement blocks stored into this L1 (lines migrated; one "
                      "after each remote request, S24)"),
      m_updates_sent(m_stats, "updates_sent", "count",
                     "adaptive: store updates sent to the other L1s of the cluster"),
      m_updates_received(m_stats, "updates_received", "count",
                         "adaptive: store updates of other SMs applied to this L1's copies"),
      m_blocks_dropped(m_stats, "replacements_dropped", "count",
                       "adaptive: replacement blocks not stored: the pending queue was full "
                       "(l1.replacement_queue), or at S24 the line was in flight or its set "
                       "pinned, or a store made them stale",
                       [this] { return count(m_queues.dropped_blocks() + m_unstorable); }),
      m_remote_wait(m_stats, "remote_wait", "ns",
                    "adaptive: time a remote request waited for the tag stage behind the SM's "
                    "own lookups")
{
    in.register_b_transport(this, &l1::b_transport);
    in.register_transport_dbg(this, &l1::transport_dbg);
    in.register_get_direct_mem_ptr(this, &l1::get_direct_mem_ptr);
    if (cfg.sharing == sharing_mode::adaptive) {
        remote_in = std::make_unique<tlm_utils::simple_target_socket<l1>>("remote_in");
        remote_in->register_b_transport(this, &l1::remote_transport);
        remote_in->register_transport_dbg(this, &l1::remote_dbg);
        remote_in->register_get_direct_mem_ptr(this, &l1::get_direct_mem_ptr);
        peer = std::make_unique<tlm_bus::initiator_port>("peer");
        if (m_accurate) {
            SC_HAS_PROCESS(l1);
            SC_THREAD(send_blocks);
        }
    }
}

void l1::set_adaptive(l1_share::cluster_classes* classes, unsigned index, unsigned cluster_l1s)
{
    m_classes = classes;
    m_index = index;
    m_cluster_l1s = cluster_l1s;
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
    // What waits for this L1 or leaves it belongs to the old kernel's view of memory.
    m_queues.clear();
    m_outbox.clear();
    m_core.invalidate_all([](std::uint64_t, const std::uint8_t*, cache::sector_mask) {
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
    if (m_classes && ext &&
        (ext->kind == tlm_bus::access_kind::data || ext->kind == tlm_bus::access_kind::atomic))
        m_classes->tick(sc_core::sc_time_stamp().value() + delay.value());
    if (gp.is_read()) {
        ++m_reads;
        // l1.sharing shared: a read of another SM reached this L1 as the line's home.
        const bool remote = m_owner >= 0 && ext && ext->sm >= 0 && ext->sm != m_owner;
        lookups n;
        gp.set_response_status(read(gp, delay, n));
        if (remote) {
            ++m_remote_reads;
            m_remote_hits += n.hits;
        } else if (m_classes && ext && ext->kind == tlm_bus::access_kind::data) {
            // Classification counts the SM's data reads only (not its instruction fetches).
            m_classes->count(m_index, n.hits + n.misses + n.merges, n.misses);
        }
    } else if (gp.is_write()) {
        ++m_writes;
        write(gp, delay);
    } else {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    if (!gp.is_response_ok())
        ++m_errors;
}

tlm::tlm_response_status l1::read(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, lookups& n)
{
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    tlm_bus::for_each_segment(
        gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), gp.get_byte_enable_ptr(),
        gp.get_byte_enable_length(), m_cfg.line_bytes, [&](const segment& s) {
            status = m_accurate ? read_accurate(s, ext, delay, n) : read_fast(s, ext, delay, n);
            return status == tlm::TLM_OK_RESPONSE;
        });
    return status;
}

void l1::write(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    // Write-through: a tag check per line, then the write travels on with its byte enables.
    // The payload is forwarded as it is (an interconnect may do so), so nothing is copied.
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    const std::uint64_t arrival = now + delay.value();
    std::uint64_t start = arrival;
    tlm_bus::for_each_segment(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), nullptr, 0,
                              m_cfg.line_bytes, [&](const segment&) {
                                  start = tag_start(arrival);
                                  return true;
                              });
    delay = sc_core::sc_time::from_value(start + m_hit.value() - now);
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    const bool atomic = ext && ext->kind == tlm_bus::access_kind::atomic;
    std::uint32_t addend = 0;
    if (atomic && gp.get_data_length() == 4)
        std::memcpy(&addend, gp.get_data_ptr(), 4);
    if (m_classes)
        order_stores(gp, true);
    struct ender { // the store's updates are over however write() returns
        l1* self;
        tlm::tlm_generic_payload& gp;
        ~ender()
        {
            if (self->m_classes)
                self->order_stores(gp, false);
        }
    } end_order{this, gp};
    out->b_transport(gp, delay);
    gp.set_dmi_allowed(false);
    if (!gp.is_response_ok())
        return;
    if (atomic) {
        // The LLC carried it out and answered with the old value: a present line takes the
        // new one, as it would a store's (a fill in flight is marked stale).
        if (gp.get_data_length() != 4)
            return;
        std::uint32_t v;
        std::memcpy(&v, gp.get_data_ptr(), 4);
        v += addend;
        if (m_core.wrote_below(gp.get_address()))
            m_core.write_valid(gp.get_address(), &v, 4);
        if (m_classes)
            update_peers(gp, reinterpret_cast<const std::uint8_t*>(&v), ext, delay);
        return;
    }
    update_copy(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), gp.get_byte_enable_ptr(),
                gp.get_byte_enable_length());
    if (m_classes)
        update_peers(gp, gp.get_data_ptr(), ext, delay);
}

void l1::update_copy(std::uint64_t addr, const std::uint8_t* data, unsigned len,
                     const std::uint8_t* be, unsigned be_len)
{
    tlm_bus::for_each_segment(
        addr, const_cast<std::uint8_t*>(data), len, be, be_len, m_cfg.line_bytes,
        [&](const segment& s) {
            if (m_classes) {
                // Blocks of the line waiting here or on their way out carry older data.
                const std::uint64_t line = m_core.line_addr(s.addr);
                m_queues.drop_replacements_if([line](const block& b) { return b.line == line; });
                m_outbox.erase(std::remove_if(m_outbox.begin(), m_outbox.end(),
                                              [line](const block& b) { return b.line == line; }),
                               m_outbox.end());
                if (m_sending_line == line)
                    m_sending_stale = true;
            }
            // A fill in flight may have read the line before this write reached memory: the
            // core marks it stale. A present line is updated (clean): the sectors written whole
            // become valid, the bytes in other valid sectors are updated, the rest skipped.
            if (m_core.wrote_below(s.addr)) {
                cache::sector_cover c;
                tlm_bus::for_each_run(
                    s.len, s.be, s.be_len, s.be_offset,
                    [&](unsigned off, unsigned n) { m_core.cover(c, s.addr + off, n); });
                m_core.array().set_valid(s.addr, c.whole);
                tlm_bus::for_each_run(s.len, s.be, s.be_len, s.be_offset,
                                      [&](unsigned off, unsigned n) {
                                          m_core.write_valid(s.addr + off, s.data + off, n);
                                      });
            }
            return true;
        });
}

std::uint64_t l1::tag_start(std::uint64_t arrival)
{
    const std::uint64_t now = sc_core::sc_time_stamp().value();
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
                                   sc_core::sc_time& delay, int partner)
{
    unsigned off = 0, bytes = 0;
    m_core.fetch_span(sectors, off, bytes);
    m_bytes_fetched += bytes;
    // adaptive, S14: a memory-intensive SM's miss goes to its partner's L1.
    tlm_bus::initiator_port& below = partner >= 0 ? *peer : out;
    const std::uint64_t window = partner >= 0 ? peer_address(static_cast<unsigned>(partner), 0) : 0;
    if (partner >= 0)
        ++m_borrowed;
    const unsigned sb = m_core.array().sector_bytes();
    const auto first = static_cast<unsigned>(__builtin_ctzll(sectors));
    const cache::sector_mask span = ((cache::sector_mask{2} << (bytes / sb - 1)) - 1) << first;
    if (span == sectors)
        return below.access(tlm::TLM_READ_COMMAND, window | (line + off), buf + off, bytes, delay,
                            ext);
    // The span covers valid sectors too: only the missing ones are taken from it (the valid
    // ones in `buf` are the L1's copy the request is served with).
    std::uint8_t* tmp = take_buffer();
    const tlm::tlm_response_status status =
        below.access(tlm::TLM_READ_COMMAND, window | (line + off), tmp + off, bytes, delay, ext);
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

void l1::install(std::uint64_t line, const std::uint8_t* data, cache::sector_mask sectors,
                 int partner, const tlm_bus::gpu_extension* ext, const sc_core::sc_time& delay)
{
    const cache::cache_array::victim v = m_core.complete_fill(line, data, sectors);
    if (v.dirty)
        SC_REPORT_ERROR("vgpu/l1", (std::string(name()) + ": evicted a dirty line").c_str());
    if (v.valid && partner >= 0)
        send_block(v, partner, ext, delay);
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
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    const std::uint64_t arrival = now + delay.value();
    const std::uint64_t tag_done = tag_start(arrival) + m_hit.value();
    const std::uint64_t line = m_core.line_addr(s.addr);
    const cache::sector_mask sectors = need(s);
    if (sectors == 0) { // no byte enabled: nothing to read
        delay = from_value(tag_done - now);
        return tlm::TLM_OK_RESPONSE;
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
    cache::cache_controller::fast_miss m = m_core.begin_fast_miss(tag_done, true, 0, now);
    sc_core::sc_time d = from_value(m.issue - now);
    std::uint8_t* buf = take_buffer();
    copy_valid(line, sectors, buf);
    const int partner = borrow_partner(arrival); // the class when the request arrived
    if (!m_core.array().probe(line))
        m_core.array().prefetch_victim(line); // install() replaces it after the fetch
    const tlm::tlm_response_status status = fetch(line, t.fetch, buf, ext, d, partner);
    std::uint64_t ready = sc_core::sc_time_stamp().value() + d.value();
    if (status == tlm::TLM_OK_RESPONSE) {
        install(line, buf, t.fetch, partner, ext, d);
        if (m_core.array().probe(line))
            m_core.array().set_ready(line, t.fetch, ready);
        copy_from_buffer(s, buf);
        m_miss_latency.sample(static_cast<double>(ready - arrival) / 1000.0);
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
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    const std::uint64_t arrival = now + delay.value();
    const sc_core::sc_time tag_done = from_value(tag_start(arrival) + m_hit.value());
    const std::uint64_t line = m_core.line_addr(s.addr);
    const cache::sector_mask sectors = need(s);
    auto until = [](const sc_core::sc_time& t) {
        const sc_core::sc_time n = sc_core::sc_time_stamp();
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
    const int partner = borrow_partner(arrival); // the class when the request arrived
    const tlm::tlm_response_status status = fetch(line, r.fetch, buf, ext, d, partner);
    // The sectors become visible to merged requests when their data arrives.
    sc_core::wait(d);
    if (status == tlm::TLM_OK_RESPONSE) {
        install(line, buf, r.fetch, partner, ext, sc_core::SC_ZERO_TIME);
        copy_from_buffer(s, buf);
        m_miss_latency.sample(static_cast<double>(sc_core::sc_time_stamp().value() - arrival) /
                              1000.0);
    }
    m_core.give_buffer(buf);
    const int entry = m_core.entry_of(line);
    m_core.finish_miss(line);
    m_waits.released(entry, true);
    delay = sc_core::SC_ZERO_TIME;
    return status;
}

void l1::order_stores(const tlm::tlm_generic_payload& gp, bool begin)
{
    l1_share::store_order& order = m_classes->order();
    const std::uint64_t first = m_core.line_addr(gp.get_address());
    const std::uint64_t last = m_core.line_addr(gp.get_address() + gp.get_data_length() - 1);
    for (std::uint64_t line = first; line <= last; line += m_cfg.line_bytes) {
        if (begin)
            order.begin(line);
        else
            order.end(line);
    }
}

int l1::borrow_partner(std::uint64_t at)
{
    return m_classes ? m_classes->partner(m_index, at) : -1;
}

void l1::send_block(const cache::cache_array::victim& v, int partner,
                    const tlm_bus::gpu_extension* ext, const sc_core::sc_time& delay)
{
    // The victim's data pointer lives only until the next removal: the block takes a copy.
    l1_share::store_order& order = m_classes->order();
    if (order.in_progress(v.line_addr)) {
        ++m_unstorable; // a store of the line has not updated every L1 yet: the copy may be old
        return;
    }
    block b;
    b.line = v.line_addr;
    b.stamp = order.stamp();
    b.epoch = ext ? ext->epoch : m_epoch;
    b.sectors = v.valid_sectors;
    b.data.assign(v.data, v.data + m_cfg.line_bytes);
    b.partner = partner;
    ++m_blocks_sent;
    if (m_accurate) {
        // Posted: the load's data does not wait for its victim's transfer.
        m_outbox.push_back(std::move(b));
        m_outbox_event.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    sc_core::sc_time d = delay; // posted: the load's delay is not extended
    transmit_block(b, d);
}

void l1::transmit_block(const block& b, sc_core::sc_time& delay)
{
    tlm_bus::gpu_extension attrs;
    attrs.sm = static_cast<std::int16_t>(m_owner);
    attrs.epoch = b.epoch;
    attrs.kind = tlm_bus::access_kind::writeback;
    attrs.vaddr = b.stamp; // a block of a physical line has no virtual address: its stamp
    const unsigned sb = m_core.array().sector_bytes();
    std::vector<std::uint8_t> be(m_cfg.line_bytes, 0);
    for (cache::sector_mask m = b.sectors; m != 0; m &= m - 1)
        std::fill_n(be.begin() + static_cast<unsigned>(__builtin_ctzll(m)) * sb, sb, 0xff);
    peer->access(tlm::TLM_WRITE_COMMAND, peer_address(static_cast<unsigned>(b.partner), b.line),
                 const_cast<std::uint8_t*>(b.data.data()), m_cfg.line_bytes, delay, &attrs,
                 be.data());
}

void l1::send_blocks()
{
    for (;;) {
        while (m_outbox.empty())
            sc_core::wait(m_outbox_event);
        block b = std::move(m_outbox.front());
        m_outbox.pop_front();
        m_sending_line = b.line;
        m_sending_stale = false;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        transmit_block(b, d);
        if (m_sending_stale) {
            // A store wrote the line while its block was on the way: the partner drops it
            // (an update that overtook the block could not reach it).
            tlm_bus::gpu_extension attrs;
            attrs.sm = static_cast<std::int16_t>(m_owner);
            attrs.epoch = b.epoch;
            attrs.kind = tlm_bus::access_kind::other;
            std::uint32_t none = 0;
            peer->access(tlm::TLM_WRITE_COMMAND,
                         peer_address(static_cast<unsigned>(b.partner), b.line), &none, 4, d,
                         &attrs);
        }
        m_sending_line = ~std::uint64_t{0};
        sc_core::wait(d);
    }
}

void l1::update_peers(tlm::tlm_generic_payload& gp, const std::uint8_t* data,
                      const tlm_bus::gpu_extension* ext, sc_core::sc_time& delay)
{
    // Write-through reached the LLC; every other L1 of the cluster may hold the line (its own
    // fill, a stored replacement block): each gets the written bytes, one after another.
    tlm_bus::gpu_extension attrs = ext ? *ext : tlm_bus::gpu_extension{};
    attrs.kind = tlm_bus::access_kind::data;
    const unsigned len = gp.get_data_length();
    std::vector<std::uint8_t> be;
    if (gp.get_byte_enable_ptr()) {
        be.resize(len);
        for (unsigned i = 0; i < len; ++i)
            be[i] = gp.get_byte_enable_ptr()[i % gp.get_byte_enable_length()];
    }
    for (unsigned j = 0; j < m_cluster_l1s; ++j) {
        if (j == m_index)
            continue;
        ++m_updates_sent;
        peer->access(tlm::TLM_WRITE_COMMAND, peer_address(j, gp.get_address()),
                     const_cast<std::uint8_t*>(data), len, delay, &attrs,
                     be.empty() ? nullptr : be.data());
    }
}

void l1::remote_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    if (!check(gp))
        return;
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    if (ext && ext->epoch > m_epoch)
        new_epoch(ext->epoch);
    const std::uint64_t addr = gp.get_address() & ((std::uint64_t{1} << peer_shift) - 1);
    if (gp.is_read()) {
        ++m_remote_reads;
        gp.set_response_status(serve_remote(gp, addr, ext, delay));
    } else if (gp.is_write() && ext && ext->kind == tlm_bus::access_kind::writeback) {
        // S15 at the partner: the block waits for S24.
        ++m_blocks_received;
        block b;
        b.line = m_core.line_addr(addr);
        b.epoch = ext->epoch;
        b.stamp = ext->vaddr;
        const unsigned sb = m_core.array().sector_bytes();
        for (unsigned i = 0; i < m_core.array().sectors(); ++i)
            if (!gp.get_byte_enable_ptr() || gp.get_byte_enable_ptr()[i * sb] != 0)
                b.sectors |= cache::sector_mask{1} << i;
        b.data.assign(gp.get_data_ptr(), gp.get_data_ptr() + m_cfg.line_bytes);
        const l1_share::store_order& order = m_classes->order();
        if (order.in_progress(b.line) || order.stale(b.line, b.stamp))
            ++m_unstorable; // a store of its line may have overtaken it
        else
            m_queues.push_replacement(std::move(b));
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    } else if (gp.is_write() && ext && ext->kind == tlm_bus::access_kind::other) {
        // A block made stale on its way here: forget it wherever it is.
        const std::uint64_t line = m_core.line_addr(addr);
        m_queues.drop_replacements_if([line](const block& b) { return b.line == line; });
        if (!m_core.busy(line))
            m_core.array().invalidate(line);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    } else if (gp.is_write()) {
        ++m_updates_received;
        update_copy(addr, gp.get_data_ptr(), gp.get_data_length(), gp.get_byte_enable_ptr(),
                    gp.get_byte_enable_length());
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    } else {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    if (!gp.is_response_ok())
        ++m_errors;
}

tlm::tlm_response_status l1::serve_remote(tlm::tlm_generic_payload& gp, std::uint64_t addr,
                                          const tlm_bus::gpu_extension* ext,
                                          sc_core::sc_time& delay)
{
    // S21-S22: the request waits behind the SM's own lookups booked in the tag stage.
    m_queues.push_remote(addr);
    m_queues.pop_remote();
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    const std::uint64_t arrival = now + delay.value();
    const std::uint64_t start = tag_start(arrival);
    m_remote_wait.sample(static_cast<double>(start - arrival) / 1000.0);
    const std::uint64_t tag_done = start + m_hit.value();
    const std::uint64_t line = m_core.line_addr(addr);
    const unsigned len = gp.get_data_length();
    const cache::sector_mask need =
        m_core.array().sectors_of(addr, std::min<unsigned>(len, m_cfg.line_bytes - (addr - line)));
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    // S23: a hit returns the data; a miss reads the LLC and does not fill this L1. A hit leaves
    // the line's LRU place alone: the borrower now holds it too, and this L1's replacement order
    // stays that of its own SM's use and of the blocks stored (a copy made most recently used
    // here would push out the blocks the borrower needs next).
    // A copy is not taken while a store of the line is still updating the cluster's L1s.
    if (need != 0 && (m_core.array().valid_sectors(line) & need) == need &&
        !m_classes->order().in_progress(line)) {
        ++m_remote_hits;
        m_core.read(addr, gp.get_data_ptr(), len);
        std::uint64_t ready = tag_done;
        if (!m_accurate)
            ready = std::max(ready, m_core.array().ready(line, need));
        delay = from_value(ready - now);
    } else {
        ++m_remote_misses;
        delay = from_value(tag_done - now);
        status = out.access(tlm::TLM_READ_COMMAND, addr, gp.get_data_ptr(), len, delay, ext);
    }
    // S24: after a remote request, one pending replacement block is stored.
    if (std::optional<block> b = m_queues.pop_replacement())
        store_block(*b, tag_done);
    return status;
}

void l1::store_block(const block& b, std::uint64_t at)
{
    const l1_share::store_order& order = m_classes->order();
    if (order.in_progress(b.line) || order.stale(b.line, b.stamp) || m_core.busy(b.line) ||
        (!m_core.array().probe(b.line) && !m_core.can_allocate(b.line))) {
        ++m_unstorable;
        return;
    }
    tag_start(at); // the block's write takes a slot of the tag (and data) stage
    if (!m_core.array().probe(b.line))
        m_core.allocate(b.line); // the victim is clean: nothing to write back
    m_core.array().fill(b.line, b.data.data(), b.sectors);
    ++m_blocks_stored;
}

unsigned l1::remote_dbg(tlm::tlm_generic_payload& gp)
{
    // A window is another view of the same memory: the debug access goes where this L1's own
    // would (memory below; a write updates a present copy), without side effects on timing.
    gp.set_address(gp.get_address() & ((std::uint64_t{1} << peer_shift) - 1));
    return transport_dbg(gp);
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
