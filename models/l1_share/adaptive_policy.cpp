// L1 sharing `adaptive` as the peer policy of one L1. See models/l1_share/README.md.
#include "models/l1_share/adaptive_policy.h"
#include "models/cache/core/cache_controller.h"

#include <algorithm>
#include <optional>

namespace vgpu::l1_share {

namespace {
sc_core::sc_time from_value(std::uint64_t v)
{
    return sc_core::sc_time::from_value(v);
}
} // namespace

adaptive_policy::adaptive_policy(const sc_core::sc_module_name& name, l1::peer_host& host,
                                 cluster_classes& classes, unsigned index, unsigned cluster_l1s,
                                 const l1::l1_config& cfg, share_stats& counts)
    : sc_module(name), remote_in("remote_in"), peer("peer"), m_host(host), m_classes(classes),
      m_index(index), m_cluster_l1s(cluster_l1s), m_line_bytes(cfg.line_bytes), m_counts(counts),
      m_queues(cfg.replacement_queue)
{
    remote_in.register_b_transport(this, &adaptive_policy::remote_transport);
    remote_in.register_transport_dbg(this, &adaptive_policy::remote_dbg);
    remote_in.register_get_direct_mem_ptr(this, &adaptive_policy::get_direct_mem_ptr);
    m_counts.queue_drops = [this] { return m_queues.dropped_blocks(); };
    if (host.accurate()) {
        SC_HAS_PROCESS(adaptive_policy);
        SC_THREAD(send_blocks);
    }
}

int adaptive_policy::miss_source(std::uint64_t arrival_ps)
{
    return m_classes.partner(m_index, arrival_ps);
}

tlm::tlm_response_status adaptive_policy::read_peer(int partner, std::uint64_t addr,
                                                    std::uint8_t* data, unsigned len,
                                                    sc_core::sc_time& delay,
                                                    const tlm_bus::gpu_extension* ext)
{
    // S14: a memory-intensive SM's miss goes to its partner's L1.
    ++m_counts.borrowed;
    return peer.access(tlm::TLM_READ_COMMAND, peer_address(static_cast<unsigned>(partner), addr),
                       data, len, delay, ext);
}

void adaptive_policy::order_stores(const tlm::tlm_generic_payload& gp, bool begin)
{
    store_order& order = m_classes.order();
    const cache::cache_controller& core = m_host.core();
    const std::uint64_t first = core.line_addr(gp.get_address());
    const std::uint64_t last = core.line_addr(gp.get_address() + gp.get_data_length() - 1);
    for (std::uint64_t line = first; line <= last; line += m_line_bytes) {
        if (begin)
            order.begin(line);
        else
            order.end(line);
    }
}

void adaptive_policy::new_kernel_epoch()
{
    m_queues.clear();
    m_outbox.clear();
}

void adaptive_policy::line_written(std::uint64_t line)
{
    // Blocks of the line waiting here or on their way out carry older data.
    m_queues.drop_replacements_if([line](const block& b) { return b.line == line; });
    m_outbox.erase(std::remove_if(m_outbox.begin(), m_outbox.end(),
                                  [line](const block& b) { return b.line == line; }),
                   m_outbox.end());
    if (m_sending_line == line)
        m_sending_stale = true;
}

void adaptive_policy::evicted(int partner, const cache::cache_array::victim& v,
                              const tlm_bus::gpu_extension* ext, const sc_core::sc_time& delay)
{
    // S15: a line this L1 evicted for a fill from its partner goes there. The victim's data
    // pointer lives only until the next removal: the block takes a copy.
    store_order& order = m_classes.order();
    if (order.in_progress(v.line_addr)) {
        ++m_counts.unstorable; // a store of the line has not updated every L1 yet: may be old
        return;
    }
    block b;
    b.line = v.line_addr;
    b.stamp = order.stamp();
    b.epoch = ext ? ext->epoch : m_host.epoch();
    b.sectors = v.valid_sectors;
    b.data.assign(v.data, v.data + m_line_bytes);
    b.partner = partner;
    ++m_counts.blocks_sent;
    if (m_host.accurate()) {
        // Posted: the load's data does not wait for its victim's transfer.
        m_outbox.push_back(std::move(b));
        m_outbox_event.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    sc_core::sc_time d = delay; // posted: the load's delay is not extended
    transmit_block(b, d);
}

void adaptive_policy::transmit_block(const block& b, sc_core::sc_time& delay)
{
    tlm_bus::gpu_extension attrs;
    attrs.sm = static_cast<std::int16_t>(m_host.owner());
    attrs.epoch = b.epoch;
    attrs.kind = tlm_bus::access_kind::writeback;
    attrs.vaddr = b.stamp; // a block of a physical line has no virtual address: its stamp
    const unsigned sb = m_host.core().array().sector_bytes();
    std::vector<std::uint8_t> be(m_line_bytes, 0);
    for (cache::sector_mask m = b.sectors; m != 0; m &= m - 1)
        std::fill_n(be.begin() + static_cast<unsigned>(__builtin_ctzll(m)) * sb, sb, 0xff);
    peer.access(tlm::TLM_WRITE_COMMAND, peer_address(static_cast<unsigned>(b.partner), b.line),
                const_cast<std::uint8_t*>(b.data.data()), m_line_bytes, delay, &attrs, be.data());
}

void adaptive_policy::send_blocks()
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
            attrs.sm = static_cast<std::int16_t>(m_host.owner());
            attrs.epoch = b.epoch;
            attrs.kind = tlm_bus::access_kind::other;
            std::uint32_t none = 0;
            peer.access(tlm::TLM_WRITE_COMMAND,
                        peer_address(static_cast<unsigned>(b.partner), b.line), &none, 4, d,
                        &attrs);
        }
        m_sending_line = ~std::uint64_t{0};
        sc_core::wait(d);
    }
}

void adaptive_policy::store_done(tlm::tlm_generic_payload& gp, const std::uint8_t* data,
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
        ++m_counts.updates_sent;
        peer.access(tlm::TLM_WRITE_COMMAND, peer_address(j, gp.get_address()),
                    const_cast<std::uint8_t*>(data), len, delay, &attrs,
                    be.empty() ? nullptr : be.data());
    }
}

void adaptive_policy::remote_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    if (!m_host.accept(gp))
        return;
    const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
    cache::cache_controller& core = m_host.core();
    const std::uint64_t addr = gp.get_address() & ((std::uint64_t{1} << peer_shift) - 1);
    if (gp.is_read()) {
        m_host.count_remote_read();
        gp.set_response_status(serve_remote(gp, addr, ext, delay));
    } else if (gp.is_write() && ext && ext->kind == tlm_bus::access_kind::writeback) {
        // S15 at the partner: the block waits for S24.
        ++m_counts.blocks_received;
        block b;
        b.line = core.line_addr(addr);
        b.epoch = ext->epoch;
        b.stamp = ext->vaddr;
        const unsigned sb = core.array().sector_bytes();
        for (unsigned i = 0; i < core.array().sectors(); ++i)
            if (!gp.get_byte_enable_ptr() || gp.get_byte_enable_ptr()[i * sb] != 0)
                b.sectors |= cache::sector_mask{1} << i;
        b.data.assign(gp.get_data_ptr(), gp.get_data_ptr() + m_line_bytes);
        const store_order& order = m_classes.order();
        if (order.in_progress(b.line) || order.stale(b.line, b.stamp))
            ++m_counts.unstorable; // a store of its line may have overtaken it
        else
            m_queues.push_replacement(std::move(b));
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    } else if (gp.is_write() && ext && ext->kind == tlm_bus::access_kind::other) {
        // A block made stale on its way here: forget it wherever it is.
        const std::uint64_t line = core.line_addr(addr);
        m_queues.drop_replacements_if([line](const block& b) { return b.line == line; });
        if (!core.busy(line))
            core.array().invalidate(line);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    } else if (gp.is_write()) {
        ++m_counts.updates_received;
        m_host.apply_write(addr, gp.get_data_ptr(), gp.get_data_length(), gp.get_byte_enable_ptr(),
                           gp.get_byte_enable_length());
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    } else {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    if (!gp.is_response_ok())
        m_host.count_error();
}

tlm::tlm_response_status adaptive_policy::serve_remote(tlm::tlm_generic_payload& gp,
                                                       std::uint64_t addr,
                                                       const tlm_bus::gpu_extension* ext,
                                                       sc_core::sc_time& delay)
{
    // S21-S22: the request waits behind the SM's own lookups booked in the tag stage.
    m_queues.push_remote(addr);
    m_queues.pop_remote();
    cache::cache_controller& core = m_host.core();
    const std::uint64_t now = sc_core::sc_time_stamp().value();
    const std::uint64_t arrival = now + delay.value();
    const std::uint64_t start = m_host.book_tag(arrival);
    m_counts.remote_wait.sample(static_cast<double>(start - arrival) / 1000.0);
    const std::uint64_t tag_done = start + m_host.hit_latency().value();
    const std::uint64_t line = core.line_addr(addr);
    const unsigned len = gp.get_data_length();
    const cache::sector_mask need =
        core.array().sectors_of(addr, std::min<unsigned>(len, m_line_bytes - (addr - line)));
    tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
    // S23: a hit returns the data; a miss reads the LLC and does not fill this L1. A hit leaves
    // the line's LRU place alone: the borrower now holds it too, and this L1's replacement order
    // stays that of its own SM's use and of the blocks stored (a copy made most recently used
    // here would push out the blocks the borrower needs next).
    // A copy is not taken while a store of the line is still updating the cluster's L1s.
    if (need != 0 && (core.array().valid_sectors(line) & need) == need &&
        !m_classes.order().in_progress(line)) {
        m_host.count_remote_hit();
        core.read(addr, gp.get_data_ptr(), len);
        std::uint64_t ready = tag_done;
        if (!m_host.accurate())
            ready = std::max(ready, core.array().ready(line, need));
        delay = from_value(ready - now);
    } else {
        ++m_counts.remote_misses;
        delay = from_value(tag_done - now);
        status =
            m_host.below().access(tlm::TLM_READ_COMMAND, addr, gp.get_data_ptr(), len, delay, ext);
    }
    // S24: after a remote request, one pending replacement block is stored.
    if (std::optional<block> b = m_queues.pop_replacement())
        store_block(*b, tag_done);
    return status;
}

void adaptive_policy::store_block(const block& b, std::uint64_t at)
{
    cache::cache_controller& core = m_host.core();
    const store_order& order = m_classes.order();
    if (order.in_progress(b.line) || order.stale(b.line, b.stamp) || core.busy(b.line) ||
        (!core.array().probe(b.line) && !core.can_allocate(b.line))) {
        ++m_counts.unstorable;
        return;
    }
    m_host.book_tag(at); // the block's write takes a slot of the tag (and data) stage
    if (!core.array().probe(b.line))
        core.allocate(b.line); // the victim is clean: nothing to write back
    core.array().fill(b.line, b.data.data(), b.sectors);
    ++m_counts.blocks_stored;
}

unsigned adaptive_policy::remote_dbg(tlm::tlm_generic_payload& gp)
{
    // A window is another view of the same memory: the debug access goes where this L1's own
    // would (memory below; a write updates a present copy), without side effects on timing.
    // The initiator's address comes back as it came (IEEE 1666-2011 14.7: a target does not
    // change it).
    const std::uint64_t window = gp.get_address();
    gp.set_address(window & ((std::uint64_t{1} << peer_shift) - 1));
    const unsigned n = m_host.debug(gp);
    gp.set_address(window);
    return n;
}

bool adaptive_policy::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi)
{
    // A cache must see every access: DMI is refused for the whole address space.
    dmi.set_start_address(0);
    dmi.set_end_address(~sc_dt::uint64{0});
    return false;
}

} // namespace vgpu::l1_share
