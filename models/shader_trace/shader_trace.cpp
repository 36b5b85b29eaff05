// The shader-trace unit. See models/shader_trace/shader_trace.h.
#include "models/shader_trace/shader_trace.h"
#include "tlm_bus/byte_enables.h"
#if VGPU_OUTLIS_RTL
#include "models/shader_trace/rtl/outlis_adapter.h"
#endif

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>

namespace vgpu::shader_trace {

bool trace_unit::queued::operator>(const queued& o) const
{
    // Same cycle: by kind (events, idle checks, flushes), then source, then posting order.
    return std::tie(cycle, kind, e.source, seq) > std::tie(o.cycle, o.kind, o.e.source, o.seq);
}

namespace {
std::vector<unsigned> priority_order(const shader_trace_config& cfg, unsigned sms)
{
    // Source ids: 0 CE, 1 RM, 2 + s the ISU of SM s; priority follows `sources`, and the
    // kinds not recorded come last (they never hold a slot).
    std::vector<unsigned> order;
    auto add_kind = [&](const std::string& k) {
        if (k == "ce")
            order.push_back(0);
        else if (k == "rm")
            order.push_back(1);
        else
            for (unsigned s = 0; s < sms; ++s)
                order.push_back(2 + s);
    };
    const auto list = cfg.source_list();
    for (const auto& k : list)
        add_kind(k);
    for (const auto& k : source_names())
        if (std::find(list.begin(), list.end(), k) == list.end())
            add_kind(k);
    return order;
}

/// The unit's group buffer, by shader_trace.impl (the configuration refuses rtl in a build
/// without the verilated model, and at a size other than the one verilated).
std::unique_ptr<group_buffer> make_group_buffer(const shader_trace_config& cfg, unsigned sources,
                                                std::vector<unsigned> priority)
{
    if (cfg.impl == buffer_impl::rtl) {
#if VGPU_OUTLIS_RTL
        return std::make_unique<outlis_rtl_buffer>(cfg.slots, sources, cfg.full, cfg.victim,
                                                   priority);
#else
        throw std::invalid_argument("shader_trace.impl rtl: this build has no verilated OUTLis "
                                    "buffer (verilator was not found when it was configured)");
#endif
    }
    return std::make_unique<slot_buffer>(cfg.slots, sources, cfg.full, cfg.victim,
                                         std::move(priority));
}
} // namespace

trace_unit::trace_unit(const sc_core::sc_module_name& name, const shader_trace_config& cfg,
                       const clock_params& clk, unsigned sms)
    : sc_module(name), events("events"), mem("mem"), mmio("mmio"), irq("irq"), m_cfg(cfg),
      m_clk(clk), m_g(cfg.tokens_per_group()), m_dropped(2 + sms, 0), m_held_count(2 + sms, 0),
      m_check_pending(2 + sms, false),
      m_buffer(make_group_buffer(cfg, 2 + sms, priority_order(cfg, sms))), m_regs(this->name()),
      m_log(this->name()), m_stats(this->name()),
      m_events(m_stats, "events", "count", "events recorded (packed into tokens)"),
      m_tokens(m_stats, "tokens", "count",
               "non-PAD tokens packed into groups (= tokens in memory + dropped_tokens)"),
      m_late(m_stats, "late_events", "count",
             "events that arrived after their cycle was packed (packed one cycle late; 0 "
             "unless a source breaks the time contract)"),
      m_stored(m_stats, "groups_stored", "count", "groups stored into a free slot (S50)"),
      m_replaced(m_stats, "groups_replaced", "count",
                 "groups stored over the victim's oldest group (replace, S30)"),
      m_claim5(m_stats, "groups_dropped", "count",
               "groups lost because no source could give up a slot (replace, claim 5)"),
      m_written(m_stats, "groups_written", "count", "group writes completed"),
      m_bytes(m_stats, "bytes_written", "bytes", "bytes written into the trace region"),
      m_region_drops(m_stats, "region_full_drops", "count",
                     "groups dropped because the region was full (mode stop) or not set up"),
      m_overwritten(m_stats, "overwritten_groups", "count",
                    "groups written over older groups of the region (mode wrap)"),
      m_write_errors(m_stats, "write_errors", "count",
                     "group writes memory refused (their tokens count as dropped)"),
      m_stall_cycles(m_stats, "stall_cycles", "cycles",
                     "group-cycles groups waited for a free slot (full_policy stall)"),
      m_flushes(m_stats, "flushes", "count",
                "partial groups padded and stored (kernel end, idle timeout, FLUSH)"),
      m_idle_flushes(m_stats, "idle_flushes", "count",
                     "partial groups flushed by shader_trace.idle_flush_cycles"),
      m_dropped_total(m_stats, "dropped_tokens", "count",
                      "tokens lost, all sources (per source: DROPPED registers, the image header)",
                      [this] {
                          std::uint64_t n = 0;
                          for (std::uint64_t d : m_dropped)
                              n += d;
                          return static_cast<double>(n);
                      }),
      m_sync_tokens(m_stats, "sync_tokens", "count",
                    "SYNC tokens packed (the format's overhead: periodic, after a loss, before a "
                    "long delta, closing a flushed group)",
                    [this] {
                        std::uint64_t n = 0;
                        for (const packer& p : m_packers)
                            n += p.syncs();
                        return static_cast<double>(n);
                    }),
      m_rtl_cycles(m_stats, "rtl_cycles", "cycles",
                   "clock cycles of the verilated group buffer evaluated (shader_trace.impl rtl: "
                   "one per buffer call; 0 with tlm)",
                   [this] { return static_cast<double>(m_buffer->clock_cycles()); })
{
    const auto list = cfg.source_list();
    const auto recorded = [&](const char* k) {
        return std::find(list.begin(), list.end(), k) != list.end();
    };
    for (unsigned s = 0; s < 2 + sms; ++s) {
        m_kind.push_back(s == 0 ? source_kind::ce : s == 1 ? source_kind::rm : source_kind::isu);
        m_sm.push_back(s < 2 ? 0 : s - 2);
        m_recorded.push_back(recorded(s == 0 ? "ce" : s == 1 ? "rm" : "isu"));
        m_packers.emplace_back(s, m_g, cfg.sync_interval);
        m_last.push_back(0);
    }
    events.bind(*this);
    mmio.register_b_transport(this, &trace_unit::b_transport);
    mmio.register_transport_dbg(this, &trace_unit::transport_dbg);
    define_registers();
    SC_HAS_PROCESS(trace_unit);
    SC_METHOD(pack);
    sensitive << m_wake;
    dont_initialize();
    SC_METHOD(update_irq);
    sensitive << m_irq_ev;
    m_engine_data.assign(cfg.writes_in_flight, std::vector<std::uint8_t>(cfg.group_bytes()));
    for (unsigned i = 0; i < cfg.writes_in_flight; ++i)
        sc_core::sc_spawn([this, i] { write_thread(i); },
                          sc_core::sc_gen_unique_name("write_engine"));
}

void trace_unit::define_registers()
{
    using tlm_bus::reg_access;
    using tlm_bus::reg_write;
    namespace r = trace_reg;
    m_regs.set_warning_handler([this](const std::string& m) { VGPU_WARN(m_log, "%s", m.c_str()); });
    const std::uint32_t gbytes = m_cfg.group_bytes();
    m_regs.add("TRACE_BASE_LO", r::BASE_LO, reg_access::rw, 0, ~(gbytes - 1));
    m_regs.add("TRACE_BASE_HI", r::BASE_HI, reg_access::rw, 0, ~0u);
    m_regs.add("TRACE_SIZE", r::SIZE, reg_access::rw, 0, ~(gbytes - 1),
               [](const reg_write& w) { return w.new_value <= max_region_bytes; });
    m_regs.add("TRACE_MODE", r::MODE, reg_access::rw, m_cfg.mode == region_mode::wrap ? 1u : 0u, 1);
    m_regs.add("TRACE_ENABLE", r::ENABLE, reg_access::rw, 0, 1, [this](const reg_write& w) {
        if ((w.new_value & 1) && !(w.old_value & 1)) { // a new region: start at BASE
            m_wptr = 0;
            m_regs.set(r::WPTR, 0);
            m_regs.set(r::WRITTEN_LO, 0);
            m_regs.set(r::WRITTEN_HI, 0);
            m_regs.set(r::STATUS, 0);
            m_owner.assign(m_regs.get(r::SIZE) / m_cfg.group_bytes(), 0);
        }
        m_irq_ev.notify(w.delay);
        return true;
    });
    m_regs.add("TRACE_WPTR", r::WPTR, reg_access::ro, 0, 0);
    m_regs.add("TRACE_STATUS", r::STATUS, reg_access::w1c, 0, trace_status::WMARK,
               [this](const reg_write& w) {
                   m_irq_ev.notify(w.delay);
                   return true;
               });
    m_regs.add("TRACE_WATERMARK", r::WATERMARK, reg_access::rw, 0, ~0u);
    m_regs.add("TRACE_IRQ_ENABLE", r::IRQ_ENABLE, reg_access::rw, 0, 1, [this](const reg_write& w) {
        m_irq_ev.notify(w.delay);
        return true;
    });
    m_regs.add("TRACE_FLUSH", r::FLUSH, reg_access::wo, 0, 1, [this](const reg_write& w) {
        if (w.new_value & 1) {
            const sc_core::sc_time at = sc_core::sc_time_stamp() + w.delay;
            flush_at((at.value() + m_clk.core_ps - 1) / m_clk.core_ps);
        }
        return true;
    });
    m_regs.add("TRACE_SRC_SEL", r::SRC_SEL, reg_access::rw, 0, ~0u,
               [this](const reg_write& w) { return w.new_value < sources(); });
    m_regs.add("TRACE_SRC_INFO", r::SRC_INFO, reg_access::ro, 0, 0);
    m_regs.add("TRACE_DROPPED_LO", r::DROPPED_LO, reg_access::ro, 0, 0);
    m_regs.add("TRACE_DROPPED_HI", r::DROPPED_HI, reg_access::ro, 0, 0);
    m_regs.add("TRACE_SOURCES", r::SOURCES, reg_access::ro, sources(), 0);
    m_regs.add("TRACE_GROUP_TOKENS", r::GROUP_TOKENS, reg_access::ro, m_g, 0);
    m_regs.add("TRACE_CLOCK_PS", r::CLOCK_PS, reg_access::ro,
               static_cast<std::uint32_t>(m_clk.core_ps), 0);
    m_regs.add("TRACE_WRITTEN_LO", r::WRITTEN_LO, reg_access::ro, 0, 0);
    m_regs.add("TRACE_WRITTEN_HI", r::WRITTEN_HI, reg_access::ro, 0, 0);
}

// ---- sources ----

event trace_code(tlm_bus::event_kind k)
{
    using tlm_bus::event_kind;
    switch (k) {
    case event_kind::kernel_begin:
        return event::kernel_begin;
    case event_kind::kernel_end:
        return event::kernel_end;
    case event_kind::cta_dispatch:
        return event::cta_dispatch;
    case event_kind::cta_retire:
        return event::cta_retire;
    case event_kind::warp_start:
        return event::warp_start;
    case event_kind::warp_exit:
        return event::warp_exit;
    case event_kind::barrier_arrive:
        return event::barrier_arrive;
    case event_kind::barrier_release:
        return event::barrier_release;
    case event_kind::user:
        break;
    }
    return event::user;
}

unsigned trace_unit::source_id(tlm_bus::event_source kind, unsigned sm) const
{
    using tlm_bus::event_source;
    const unsigned id = kind == event_source::ce ? 0 : kind == event_source::rm ? 1 : 2 + sm;
    return id < sources() && m_recorded[id] ? id : no_source;
}

std::uint64_t trace_unit::now_cycle() const
{
    return (sc_core::sc_time_stamp().value() + m_clk.core_ps - 1) / m_clk.core_ps;
}

void trace_unit::arm(std::uint64_t cycle)
{
    const sc_core::sc_time at = sc_core::sc_time::from_value(cycle * m_clk.core_ps);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    m_wake.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
}

void trace_unit::post(const tlm_bus::gpu_event& e)
{
    if (e.source >= sources() || !m_recorded[e.source] || !(m_regs.get(trace_reg::ENABLE) & 1))
        return;
    queued q;
    q.cycle = e.cycle;
    if (q.cycle < m_done_cycle) { // the source broke the contract: pack it as early as possible
        ++m_late;
        q.cycle = m_done_cycle;
    }
    q.e = {e.cycle, e.source, trace_code(e.what), e.warp, e.arg};
    q.seq = m_seq++;
    m_queue.push(q);
    arm(q.cycle + 1);
}

void trace_unit::flush_at(std::uint64_t cycle)
{
    queued q;
    q.cycle = std::max(cycle, m_done_cycle);
    q.kind = 2;
    q.seq = m_seq++;
    m_queue.push(q);
    arm(q.cycle + 1);
}

// ---- packing ----

void trace_unit::pack()
{
    // Every event of a cycle before now has been posted: a source posts only at or after its
    // own current time, which is never behind simulated time. Packing them in (cycle, source)
    // order makes the result independent of the order the sources ran in.
    const std::uint64_t horizon = now_cycle();
    while (!m_queue.empty() && m_queue.top().cycle < horizon) {
        const queued q = m_queue.top();
        m_queue.pop();
        process(q);
    }
    m_done_cycle = std::max(m_done_cycle, horizon);
    if (!m_queue.empty())
        arm(m_queue.top().cycle + 1);
    m_irq_ev.notify(sc_core::SC_ZERO_TIME);
}

void trace_unit::process(const queued& q)
{
    const unsigned src = q.e.source;
    switch (q.kind) {
    case 0: {
        ++m_events;
        std::vector<group> done;
        m_packers[src].add(q.e.what, q.e.warp, q.e.arg, q.cycle, done);
        m_last[src] = q.cycle;
        for (group& g : done)
            store(src, std::move(g), q.cycle);
        if (m_cfg.idle_flush_cycles > 0 && !m_check_pending[src]) {
            m_check_pending[src] = true;
            queued c;
            c.cycle = q.cycle + m_cfg.idle_flush_cycles;
            c.kind = 1;
            c.e.source = src;
            c.seq = m_seq++;
            m_queue.push(c);
        }
        break;
    }
    case 1: { // idle check: flush when the source has been quiet for idle_flush_cycles
        m_check_pending[src] = false;
        const std::uint64_t due = m_last[src] + m_cfg.idle_flush_cycles;
        if (q.cycle >= due) {
            if (auto g = m_packers[src].flush()) {
                ++m_flushes;
                ++m_idle_flushes;
                store(src, std::move(*g), q.cycle);
            }
        } else {
            m_check_pending[src] = true;
            queued c = q;
            c.cycle = due;
            c.seq = m_seq++;
            m_queue.push(c);
        }
        break;
    }
    default: // flush every source
        for (unsigned s = 0; s < sources(); ++s)
            flush_source(s, q.cycle);
        break;
    }
}

void trace_unit::flush_source(unsigned source, std::uint64_t cycle)
{
    if (auto g = m_packers[source].flush()) {
        ++m_flushes;
        store(source, std::move(*g), cycle);
    }
}

std::uint64_t trace_unit::tokens_in(const group& g)
{
    return static_cast<std::uint64_t>(
        std::count_if(g.begin(), g.end(), [](std::uint64_t t) { return t != 0; }));
}

void trace_unit::store(unsigned source, group g, std::uint64_t cycle)
{
    const std::uint64_t tokens = tokens_in(g);
    m_tokens += tokens;
    // A source's groups enter the buffer in order: behind its own waiting groups.
    if (m_held_count[source] != 0 ||
        (m_cfg.full == full_policy::stall && m_buffer->free_slots() == 0)) {
        m_held.push_back({source, std::move(g), cycle});
        ++m_held_count[source];
        return;
    }
    const store_result r = m_buffer->store(source, std::move(g));
    switch (r.what) {
    case store_result::kind::stored:
        ++m_stored;
        break;
    case store_result::kind::replaced:
        // The victim's chain is broken: its next event is preceded by a SYNC (and the
        // buffer flags its next group written, docs/trace-format.md).
        ++m_replaced;
        m_dropped[r.victim_source] += tokens_in(r.lost);
        m_packers[r.victim_source].request_sync();
        break;
    case store_result::kind::dropped:
    case store_result::kind::stall: // not reached: a full stall buffer holds the group above
        ++m_claim5;
        m_dropped[source] += tokens; // g was moved into the buffer's store()
        m_packers[source].request_sync();
        return;
    }
    m_have_head.notify(sc_core::SC_ZERO_TIME);
}

void trace_unit::store_held(std::uint64_t cycle)
{
    bool any = false;
    while (!m_held.empty() && m_buffer->free_slots() != 0) {
        held_group& h = m_held.front();
        m_buffer->store(h.source, std::move(h.g));
        ++m_stored;
        m_stall_cycles += cycle > h.since ? cycle - h.since : 0;
        --m_held_count[h.source];
        m_held.pop_front();
        any = true;
    }
    if (any) {
        m_have_head.notify(sc_core::SC_ZERO_TIME);
        m_unblocked.notify(sc_core::SC_ZERO_TIME);
    }
}

// ---- the write engine (S40) ----

void trace_unit::write_thread(unsigned engine)
{
    namespace r = trace_reg;
    const unsigned gbytes = m_cfg.group_bytes();
    std::vector<std::uint8_t>& data = m_engine_data[engine];
    tlm_bus::gpu_extension ext;
    ext.kind = tlm_bus::access_kind::trace;
    for (;;) {
        while (m_buffer->head() == group_buffer::none)
            sc_core::wait(m_have_head);
        if (m_cfg.write_interval_cycles > 0) {
            const std::uint64_t c = now_cycle();
            if (c < m_next_write) {
                sc_core::wait(sc_core::sc_time::from_value(m_next_write * m_clk.core_ps) -
                              sc_core::sc_time_stamp());
                continue; // another engine may have taken the head meanwhile
            }
            m_next_write = c + m_cfg.write_interval_cycles;
        }
        ++m_issued;
        const unsigned slot = *m_buffer->take_head();
        const group& g = m_buffer->contents(slot);
        const unsigned src = m_buffer->source_of_slot(slot);
        const std::uint64_t tokens = tokens_in(g);
        for (unsigned i = 0; i < m_g; ++i)
            for (unsigned b = 0; b < 8; ++b)
                data[8 * i + b] = static_cast<std::uint8_t>(g[i] >> (8 * b));
        // The group travels in the write request from here: its slot is free once the write
        // is issued to the NoC, not when it completes.
        m_buffer->write_done(slot);
        store_held(now_cycle());
        const std::uint64_t base =
            std::uint64_t{m_regs.get(r::BASE_HI)} << 32 | m_regs.get(r::BASE_LO);
        const std::uint64_t size = m_regs.get(r::SIZE);
        const bool wrap = m_regs.get(r::MODE) & 1;
        bool write = true;
        std::uint64_t offset = m_wptr;
        if (size < gbytes || (!wrap && m_wptr + gbytes > size)) {
            write = false; // stop mode, region full (or never set up): count what is lost
            ++m_region_drops;
            m_dropped[src] += tokens;
            lost(src);
            if (size >= gbytes)
                m_regs.set(r::STATUS, m_regs.get(r::STATUS) | trace_status::FULL);
        } else if (wrap) {
            offset = m_wptr % size;
            const std::size_t place = offset / gbytes;
            if (m_wptr >= size) {
                ++m_overwritten;
                if (place < m_owner.size())
                    m_dropped[m_owner[place] >> 16] += m_owner[place] & 0xffff;
                m_regs.set(r::STATUS, m_regs.get(r::STATUS) | trace_status::WRAPPED);
            }
            if (place < m_owner.size())
                m_owner[place] = src << 16 | static_cast<std::uint32_t>(tokens);
        }
        if (write) {
            m_wptr += gbytes;
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            const auto rsp =
                mem.access(tlm::TLM_WRITE_COMMAND, base + offset, data.data(), gbytes, delay, &ext);
            if (rsp != tlm::TLM_OK_RESPONSE) {
                if (m_write_errors.value() == 0)
                    VGPU_WARN(m_log, "group write at %#llx refused (%s); its tokens count as lost",
                              static_cast<unsigned long long>(base + offset),
                              tlm_bus::response_name(rsp));
                ++m_write_errors;
                m_dropped[src] += tokens;
                lost(src);
            }
            sc_core::wait(delay);
            if (rsp == tlm::TLM_OK_RESPONSE) {
                ++m_written;
                m_bytes += gbytes;
            }
            const std::uint32_t wm = m_regs.get(r::WATERMARK);
            if (wm != 0 && m_wptr >= wm && m_wptr - gbytes < wm)
                m_regs.set(r::STATUS, m_regs.get(r::STATUS) | trace_status::WMARK);
        }
        --m_issued;
        m_irq_ev.notify(sc_core::SC_ZERO_TIME);
    }
}

void trace_unit::lost(unsigned source)
{
    // A group taken for writing did not reach memory: the source's next group written is
    // flagged and its packer syncs again.
    m_buffer->mark_lost(source);
    m_packers[source].request_sync();
}

// ---- registers ----

bool trace_unit::idle() const
{
    if (m_buffer->head() != group_buffer::none || m_issued != 0 || !m_held.empty() ||
        !m_queue.empty())
        return false;
    return true;
}

void trace_unit::refresh_regs()
{
    namespace r = trace_reg;
    const std::uint32_t st = m_regs.get(r::STATUS);
    m_regs.set(r::STATUS, idle() ? st | trace_status::IDLE : st & ~trace_status::IDLE);
    const std::uint32_t sel = std::min(m_regs.get(r::SRC_SEL), sources() - 1);
    m_regs.set(r::SRC_INFO, static_cast<std::uint32_t>(m_kind[sel]) | m_sm[sel] << 8);
    m_regs.set(r::DROPPED_LO, static_cast<std::uint32_t>(m_dropped[sel]));
    m_regs.set(r::DROPPED_HI, static_cast<std::uint32_t>(m_dropped[sel] >> 32));
    m_regs.set(r::WPTR, static_cast<std::uint32_t>(
                            m_regs.get(r::SIZE) == 0 ? 0
                            : m_regs.get(r::MODE) & 1
                                ? m_wptr % m_regs.get(r::SIZE)
                                : std::min<std::uint64_t>(m_wptr, m_regs.get(r::SIZE))));
    m_regs.set(r::WRITTEN_LO, static_cast<std::uint32_t>(m_written.value()));
    m_regs.set(r::WRITTEN_HI, static_cast<std::uint32_t>(m_written.value() >> 32));
}

void trace_unit::update_irq()
{
    namespace r = trace_reg;
    refresh_regs();
    irq.write((m_regs.get(r::STATUS) & trace_status::WMARK) && (m_regs.get(r::IRQ_ENABLE) & 1));
}

void trace_unit::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay)
{
    refresh_regs();
    m_regs.transport(gp, delay);
}

unsigned trace_unit::transport_dbg(tlm::tlm_generic_payload& gp)
{
    refresh_regs();
    return m_regs.transport_dbg(gp);
}

} // namespace vgpu::shader_trace
