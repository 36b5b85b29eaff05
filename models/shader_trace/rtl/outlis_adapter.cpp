// The verilated OUTLis buffer as the unit's group buffer. See
// models/shader_trace/rtl/outlis_adapter.h.
#include "models/shader_trace/rtl/outlis_adapter.h"

#include <verilated.h>
#ifdef VGPU_OUTLIS_BROKEN // tests only: the model verilated with VGPU_RTL_BREAK_ORDER
#include <Voutlis_buffer_broken.h>
using Voutlis_buffer = Voutlis_buffer_broken;
#else
#include <Voutlis_buffer.h>
#endif

#include <stdexcept>
#include <string>

static_assert(VGPU_OUTLIS_RTL_SLOTS == vgpu::shader_trace::outlis_rtl_slots,
              "core/group_buffer.h states the slots the build verilated");
static_assert(VGPU_OUTLIS_RTL_SOURCES == vgpu::shader_trace::outlis_rtl_sources,
              "core/group_buffer.h states the sources the build verilated");

namespace vgpu::shader_trace {

namespace {
constexpr unsigned src_width = 7; ///< SW: $clog2(82 sources)
/// Fixed: the run's results do not depend on it (the reset sets every register read).
constexpr int rand_seed = 1;

unsigned bits(const VlWide<4>& v, unsigned lsb, unsigned width)
{
    std::uint64_t r = 0;
    for (unsigned i = 0; i < width;) {
        const unsigned bit = (lsb + i) % 32, n = std::min(32 - bit, width - i);
        r |= (std::uint64_t{v[(lsb + i) / 32]} >> bit & ((std::uint64_t{1} << n) - 1)) << i;
        i += n;
    }
    return static_cast<unsigned>(r);
}

[[noreturn]] void fail(const std::string& what)
{
    throw std::logic_error("shader_trace.impl rtl: " + what);
}
} // namespace

struct outlis_rtl_buffer::model {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Voutlis_buffer> top;
    VerilatedContext* saved = nullptr; ///< the thread's context before a call (restored after)
};

outlis_rtl_buffer::outlis_rtl_buffer(unsigned slots, unsigned sources, full_policy full,
                                     victim_policy victim, const std::vector<unsigned>& priority)
    : m_model(std::make_unique<model>()), m_rank(sources, 0), m_payload(slots), m_tag(slots, 0)
{
    if (slots != outlis_rtl_slots || sources > outlis_rtl_sources || priority.size() != sources)
        throw std::invalid_argument("the verilated OUTLis buffer has " +
                                    std::to_string(outlis_rtl_slots) + " slots and at most " +
                                    std::to_string(outlis_rtl_sources) + " sources");
    // Source numbers by priority, 0 the highest: the RTL's lowest_priority victim is the
    // highest-numbered source holding a slot, as the core walks `priority` from its end.
    for (unsigned rank = 0; rank < sources; ++rank) {
        m_rank.at(priority[rank]) = rank;
        m_source.push_back(priority[rank]);
    }
    model& m = *m_model;
    VerilatedContext* const saved = Verilated::threadContextp();
    m.ctx = std::make_unique<VerilatedContext>();
    Verilated::threadContextp(m.ctx.get()); // the model's construction draws random values
    m.ctx->randReset(2); // +verilator+rand+reset+2: a register the reset misses shows
    m.ctx->randSeed(rand_seed);
    m.ctx->fatalOnError(false); // edge() reports a failed assertion
    m.top = std::make_unique<Voutlis_buffer>(m.ctx.get(), "outlis");
    Voutlis_buffer& t = *m.top;
    t.clk = 1;
    t.eval();
    t.rst = 1;
    t.cfg_replace = full == full_policy::replace;
    t.cfg_lowest = victim == victim_policy::lowest_priority;
    for (int i = 0; i < 2; ++i) {
        begin();
        settle();
        edge();
    }
    t.rst = 0;
    m_cycles = 0;
    Verilated::threadContextp(saved);
}

outlis_rtl_buffer::~outlis_rtl_buffer()
{
    model& m = *m_model;
    VerilatedContext* const saved = Verilated::threadContextp();
    Verilated::threadContextp(m.ctx.get());
    m.top->final();
    m.top.reset();
    Verilated::threadContextp(saved == m.ctx.get() ? nullptr : saved);
}

void outlis_rtl_buffer::begin()
{
    model& m = *m_model;
    m.saved = Verilated::threadContextp();
    Verilated::threadContextp(m.ctx.get());
    Voutlis_buffer& t = *m.top;
    t.take = 0;
    t.done_valid = 0;
    t.st_valid = 0;
    t.lost_valid = 0;
}

void outlis_rtl_buffer::settle()
{
    Voutlis_buffer& t = *m_model->top;
    t.clk = 0;
    t.eval(); // the cycle's combinational results
}

void outlis_rtl_buffer::edge()
{
    model& m = *m_model;
    m.top->clk = 1;
    m.top->eval();
    m.ctx->timeInc(1);
    ++m_cycles;
    Verilated::threadContextp(m.saved);
    if (m.ctx->gotError())
        fail("an assertion of the OUTLis buffer's RTL failed (its message is above)");
}

store_result outlis_rtl_buffer::store(unsigned source, group g)
{
    Voutlis_buffer& t = *m_model->top;
    const std::uint16_t tag = m_next_tag++;
    begin();
    t.st_valid = 1;
    t.st_src = static_cast<std::uint8_t>(m_rank[source]);
    t.st_tag = tag;
    t.st_empty = g.empty();
    settle();
    const unsigned kind = t.st_kind, slot = t.st_slot, victim = t.st_victim;
    const std::uint16_t lost_tag = t.st_lost_tag;
    edge();
    store_result r;
    switch (kind) {
    case 0:
        r.what = store_result::kind::stored;
        break;
    case 1:
        r.what = store_result::kind::replaced;
        if (lost_tag != m_tag[slot])
            fail("the RTL replaced slot " + std::to_string(slot) + " with tag " +
                 std::to_string(lost_tag) + ", which holds tag " + std::to_string(m_tag[slot]));
        r.victim_source = m_source.at(victim);
        r.lost = std::move(m_payload[slot]);
        break;
    case 2:
        r.what = store_result::kind::stall;
        return r;
    default:
        r.what = store_result::kind::dropped;
        return r;
    }
    r.slot = slot;
    m_payload[slot] = std::move(g);
    m_tag[slot] = tag;
    return r;
}

std::optional<unsigned> outlis_rtl_buffer::take_head()
{
    Voutlis_buffer& t = *m_model->top;
    begin();
    t.take = 1;
    settle();
    const bool ok = t.take_ok, loss = t.take_loss;
    const unsigned slot = t.take_slot;
    const std::uint16_t tag = t.take_tag;
    edge();
    if (!ok)
        return std::nullopt;
    if (tag != m_tag[slot])
        fail("the RTL took slot " + std::to_string(slot) + " with tag " + std::to_string(tag) +
             ", which holds tag " + std::to_string(m_tag[slot]));
    if (loss) { // the RTL flags only a group with a token (st_empty low when it was stored)
        if (m_payload[slot].empty())
            fail("the RTL flagged a loss on slot " + std::to_string(slot) + ", an empty group");
        m_payload[slot][0] |= loss_flag;
    }
    return slot;
}

void outlis_rtl_buffer::write_done(unsigned slot)
{
    if (slot >= m_payload.size())
        return; // no such slot: ignored, as the core does (the RTL's port has no room for it)
    Voutlis_buffer& t = *m_model->top;
    const bool in_flight = (t.slot_where >> (2 * slot) & 3) == 2;
    begin();
    t.done_valid = 1;
    t.done_slot = static_cast<std::uint8_t>(slot);
    settle();
    edge();
    if (in_flight) // the RTL frees it (it ignores a slot not in flight, as the core does)
        m_payload[slot].clear();
}

void outlis_rtl_buffer::mark_lost(unsigned source)
{
    Voutlis_buffer& t = *m_model->top;
    begin();
    t.lost_valid = 1;
    t.lost_src = static_cast<std::uint8_t>(m_rank[source]);
    settle();
    edge();
}

unsigned outlis_rtl_buffer::source_of_slot(unsigned slot) const
{
    return m_source.at(bits(m_model->top->slot_src, slot * src_width, src_width));
}

unsigned outlis_rtl_buffer::head() const
{
    const Voutlis_buffer& t = *m_model->top;
    return t.count == 0 ? none : t.head;
}

std::size_t outlis_rtl_buffer::free_slots() const
{
    return m_model->top->free_count;
}

} // namespace vgpu::shader_trace
