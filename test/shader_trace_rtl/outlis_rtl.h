// The verilated OUTLis buffer (models/shader_trace/rtl/outlis_buffer.sv) behind a cycle call:
// one clock cycle's inputs (take, done, store, lost) per cycle(), eval() only for a cycle with
// work or a reset. See models/shader_trace/rtl/README.md.
#pragma once

#include <verilated.h>
#include <verilated_vcd_c.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vgpu::shader_trace::rtl_test {

/// One cycle's inputs: the core's calls take_head(), write_done(done_slot),
/// store(store_src, group with tag), mark_lost(lost_src), applied in that order.
struct rtl_in {
    bool take = false;
    bool done = false;
    unsigned done_slot = 0;
    bool store = false;
    unsigned store_src = 0; ///< the source's rank: 0 = highest priority
    unsigned tag = 0;
    bool empty = false; ///< the group has no token
    bool lost = false;
    unsigned lost_src = 0;
    bool any() const { return take || done || store || lost; }
};

/// The cycle's combinational results.
struct rtl_out {
    bool take_ok = false;
    unsigned take_slot = 0, take_src = 0, take_tag = 0;
    bool take_loss = false;
    unsigned st_kind = 0; ///< 0 stored, 1 replaced, 2 stall, 3 dropped
    unsigned st_slot = 0, st_victim = 0, st_lost_tag = 0;
};

/// The registered state, as the observation ports give it.
struct rtl_state {
    unsigned head = 0, tail = 0, count = 0, free = 0, flight = 0;
    std::vector<unsigned> next, src, where; ///< per slot; where: 0 free, 1 OUTLis, 2 in flight
};

namespace detail {
inline std::uint64_t bits(std::uint64_t v, unsigned lsb, unsigned width)
{
    return v >> lsb & ((std::uint64_t{1} << width) - 1);
}
template <std::size_t N> std::uint64_t bits(const VlWide<N>& v, unsigned lsb, unsigned width)
{
    std::uint64_t r = 0;
    for (unsigned i = 0; i < width;) { // a word's bits at a time
        const unsigned bit = (lsb + i) % 32, n = std::min(32 - bit, width - i);
        r |= (std::uint64_t{v[(lsb + i) / 32]} >> bit & ((std::uint64_t{1} << n) - 1)) << i;
        i += n;
    }
    return r;
}
inline unsigned width_of(unsigned n) ///< $clog2(n), at least 1
{
    unsigned w = 0;
    while ((1u << w) < n)
        ++w;
    return w == 0 ? 1 : w;
}
} // namespace detail

/// Model: a verilated outlis_buffer (Voutlis_buffer, or the test-only Voutlis_buffer_broken).
template <class Model> class outlis_rtl {
public:
    /// Registers start from random values drawn from `seed` (+verilator+rand+reset+2).
    outlis_rtl(std::uint32_t seed, unsigned slots, unsigned sources)
        : m_ctx(std::make_unique<VerilatedContext>()), m_slots(slots),
          m_pw(detail::width_of(slots)), m_sw(detail::width_of(sources))
    {
        Verilated::threadContextp(m_ctx.get());
        m_ctx->randReset(2);
        m_ctx->randSeed(static_cast<int>(seed % 0x7fffffffu) + 1); // 0 would seed from the clock
        m_ctx->fatalOnError(false); // a failed assertion sets gotError(); the bench reports it
        m_ctx->traceEverOn(true);
        m_model = std::make_unique<Model>(m_ctx.get(), "outlis");
        m_model->clk = 1;
        m_model->eval(); // initial values, before any edge
    }
    ~outlis_rtl()
    {
        // Verilator's runtime finds a model's context through the thread's current one.
        Verilated::threadContextp(m_ctx.get());
        if (m_vcd)
            m_vcd->close();
        m_model->final();
        m_vcd.reset();
        m_model.reset();
        Verilated::threadContextp(nullptr);
    }
    outlis_rtl(const outlis_rtl&) = delete;
    outlis_rtl& operator=(const outlis_rtl&) = delete;

    /// Holds the synchronous reset for `cycles` cycles with the policy inputs set.
    void reset(bool replace, bool lowest, unsigned cycles)
    {
        m_model->rst = 1;
        m_model->cfg_replace = replace;
        m_model->cfg_lowest = lowest;
        apply({});
        for (unsigned i = 0; i < cycles; ++i)
            clock();
        m_model->rst = 0;
    }

    /// One clock cycle: the inputs, the combinational results, the rising edge. A cycle without
    /// work leaves the state as it is and is not evaluated (unless a VCD is being written).
    rtl_out cycle(const rtl_in& in)
    {
        rtl_out o;
        if (!in.any() && !m_vcd) {
            ++m_skipped;
            return o;
        }
        apply(in);
        m_model->clk = 0;
        eval();
        Model& m = *m_model;
        o.take_ok = m.take_ok;
        o.take_slot = m.take_slot;
        o.take_src = m.take_src;
        o.take_tag = m.take_tag;
        o.take_loss = m.take_loss;
        o.st_kind = m.st_kind;
        o.st_slot = m.st_slot;
        o.st_victim = m.st_victim;
        o.st_lost_tag = m.st_lost_tag;
        m_model->clk = 1;
        eval();
        return o;
    }

    rtl_state state() const
    {
        const Model& m = *m_model;
        rtl_state s;
        s.head = m.head;
        s.tail = m.tail;
        s.count = m.count;
        s.free = m.free_count;
        s.flight = m.flight_count;
        for (unsigned i = 0; i < m_slots; ++i) {
            s.next.push_back(static_cast<unsigned>(detail::bits(m.slot_next, i * m_pw, m_pw)));
            s.src.push_back(static_cast<unsigned>(detail::bits(m.slot_src, i * m_sw, m_sw)));
            s.where.push_back(static_cast<unsigned>(detail::bits(m.slot_where, i * 2, 2)));
        }
        return s;
    }
    /// The source whose loss is not yet flagged.
    bool source_lost(unsigned rank) const
    {
        return detail::bits(m_model->source_lost, rank, 1) != 0;
    }

    /// From now on every cycle is evaluated and written to a VCD at `path`.
    void trace_to(const std::string& path)
    {
        m_vcd = std::make_unique<VerilatedVcdC>();
        m_model->trace(m_vcd.get(), 99);
        m_vcd->open(path.c_str());
        m_vcd->dump(m_ctx->time());
    }

    /// Writes the code coverage gathered so far (verilated with VGPU_RTL_COVERAGE; else
    /// nothing) to `path`, for verilator_coverage and scripts/coverage.
    void write_coverage([[maybe_unused]] const std::string& path)
    {
#if VM_COVERAGE
        m_ctx->coveragep()->write(path.c_str());
#endif
    }

    bool assertion_failed() const
    {
        return m_ctx->gotError();
    } ///< an RTL assertion failed
    /// The model itself (tests: a model verilated with --public-flat-rw lets them corrupt it).
    Model& model()
    {
        return *m_model;
    }
    std::uint64_t evaluated_cycles() const
    {
        return m_evals / 2;
    }
    std::uint64_t skipped_cycles() const
    {
        return m_skipped;
    } ///< cycles without work

private:
    void apply(const rtl_in& in)
    {
        Model& m = *m_model;
        m.take = in.take;
        m.done_valid = in.done;
        m.done_slot = in.done_slot;
        m.st_valid = in.store;
        m.st_src = in.store_src;
        m.st_tag = in.tag;
        m.st_empty = in.empty;
        m.lost_valid = in.lost;
        m.lost_src = in.lost_src;
    }
    void clock()
    {
        m_model->clk = 0;
        eval();
        m_model->clk = 1;
        eval();
    }
    void eval()
    {
        Verilated::threadContextp(m_ctx.get());
        m_model->eval();
        ++m_evals;
        m_ctx->timeInc(1);
        if (m_vcd)
            m_vcd->dump(m_ctx->time());
    }

    std::unique_ptr<VerilatedContext> m_ctx;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<VerilatedVcdC> m_vcd;
    unsigned m_slots, m_pw, m_sw;
    std::uint64_t m_evals = 0, m_skipped = 0;
};

} // namespace vgpu::shader_trace::rtl_test
