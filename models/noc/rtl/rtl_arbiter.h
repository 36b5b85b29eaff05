// The verilated NoC arbiter (noc_arbiter.sv) behind the core's arbiter interface: a C++
// adapter that steps the RTL one clock per grant() call with work. See models/noc/rtl/README.md.
#pragma once

#include "models/noc/core/arbiter.h"

#include <verilated.h>
#include <verilated_vcd_c.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace vgpu::noc {

/// What the RTL's registered state holds (the core's m_last), for reports.
struct rtl_arbiter_state {
    bool last_valid = false; ///< a grant happened since reset
    unsigned last_idx = 0;   ///< the requester granted last
};

/// An arbiter whose decisions come from a verilated noc_arbiter (Model: its Verilator class,
/// Vnoc_arbiter, or a test variant). One RTL clock per grant() call with a valid candidate;
/// a call without one does not clock the RTL (nothing there changes), as an idle port costs
/// nothing. Policies: round_robin and barrier_aware (with ageing); the RTL has no fifo.
template <class Model> class verilated_arbiter final : public arbiter {
public:
    static constexpr unsigned max_inputs = 64; ///< N the RTL is verilated for (-GN)
    static constexpr unsigned count_bits = 8;  ///< CW: bits of a barrier count
    static constexpr unsigned age_bits = 16;   ///< AW: bits of an age, saturated
    static constexpr std::uint64_t max_age = (std::uint64_t{1} << age_bits) - 1;
    static constexpr unsigned max_count = (1u << count_bits) - 1;

    /// inputs 1..max_inputs (the unused requesters are tied off); kind round_robin or
    /// barrier_aware; max_wait_cycles <= max_age. Anything else throws std::invalid_argument.
    /// The model starts from random values (Verilator's randReset(2), seeded by rand_seed)
    /// and is reset for one clock, so a register the reset misses shows as a mismatch.
    verilated_arbiter(unsigned inputs, arbiter_kind kind, std::uint64_t max_wait_cycles,
                      int rand_seed = 1)
        : arbiter(inputs)
    {
        if (inputs > max_inputs)
            throw std::invalid_argument("rtl arbiter: " + std::to_string(inputs) +
                                        " inputs, the RTL has " + std::to_string(max_inputs));
        if (kind == arbiter_kind::fifo)
            throw std::invalid_argument("rtl arbiter: no fifo policy in the RTL");
        if (max_wait_cycles > max_age)
            throw std::invalid_argument("rtl arbiter: max_wait_cycles above " +
                                        std::to_string(max_age));
        m_ctx.randReset(2);
        m_ctx.randSeed(rand_seed);
        m_ctx.fatalOnError(false); // a failed assertion is reported by assertion_failed()
        m_ctx.traceEverOn(true);
        m_rtl = std::make_unique<Model>(&m_ctx, "noc_arbiter");
        m_rtl->barrier_aware = kind == arbiter_kind::barrier_aware;
        m_rtl->max_wait = static_cast<std::uint32_t>(max_wait_cycles);
        m_rtl->req_valid = 0; // tie-off of every requester, the unused ones for good
        for (unsigned w = 0; w < (max_inputs * count_bits + 31) / 32; ++w)
            m_rtl->req_count[w] = 0;
        for (unsigned w = 0; w < (max_inputs * age_bits + 31) / 32; ++w)
            m_rtl->req_age[w] = 0;
        reset_rtl();
    }
    ~verilated_arbiter() override
    {
        stop_trace();
        // The model's scopes unregister from the thread's current context: make it ours (another
        // arbiter created since may have replaced it, and may be gone).
        Verilated::threadContextp(&m_ctx);
        m_rtl->final();
        m_rtl.reset();
    }
    verilated_arbiter(const verilated_arbiter&) = delete;
    verilated_arbiter& operator=(const verilated_arbiter&) = delete;

    /// Forgets the priority state in the core interface and resets the RTL (one clock).
    void reset()
    {
        arbiter::reset();
        reset_rtl();
    }
    /// The RTL's registered state.
    rtl_arbiter_state state() const
    {
        return {m_rtl->last_valid != 0, static_cast<unsigned>(m_rtl->last_idx)};
    }
    /// An RTL assertion failed (its message went to stdout).
    bool assertion_failed() const { return m_ctx.gotError(); }
    std::uint64_t clocks() const { return m_clocks; } ///< RTL clocks run (grants with work)

    /// Writes the code coverage gathered so far (verilated with VGPU_RTL_COVERAGE; else
    /// nothing) to path, for verilator_coverage.
    void write_coverage([[maybe_unused]] const std::string& path)
    {
#if VM_COVERAGE
        m_ctx.coveragep()->write(path.c_str());
#endif
    }

    /// Writes the RTL's signals to a VCD file from now on (one time unit per half clock).
    void start_trace(const std::string& path)
    {
        stop_trace();
        m_vcd = std::make_unique<VerilatedVcdC>();
        m_rtl->trace(m_vcd.get(), 99);
        m_vcd->open(path.c_str());
    }
    /// Closes the VCD file, if one is open.
    void stop_trace()
    {
        if (m_vcd) {
            m_vcd->close();
            m_vcd.reset();
        }
    }

protected:
    int choose(const candidate* cands) override
    {
        bool any = false;
        for (unsigned i = 0; i < inputs(); ++i)
            any = any || cands[i].valid;
        if (!any) { // no work: the RTL is not clocked
            set_reason(grant_reason::none);
            return -1;
        }
        std::uint64_t valid = 0;
        for (unsigned i = 0; i < inputs(); ++i) {
            const candidate& c = cands[i];
            if (c.valid)
                valid |= std::uint64_t{1} << i;
            if (c.barrier_count > max_count)
                throw std::invalid_argument("rtl arbiter: barrier count " +
                                            std::to_string(c.barrier_count) + " above " +
                                            std::to_string(max_count));
            put(m_rtl->req_count, i * count_bits, count_bits, c.valid ? c.barrier_count : 0);
            put(m_rtl->req_age, i * age_bits, age_bits,
                c.valid ? static_cast<std::uint32_t>(std::min(c.age_cycles, max_age)) : 0);
        }
        m_rtl->req_valid = valid;
        // Low phase: the grant settles from the registered pointer and these requests.
        m_rtl->clk = 0;
        eval();
        const int g = m_rtl->gnt_valid ? static_cast<int>(m_rtl->gnt_idx) : -1;
        set_reason(static_cast<grant_reason>(m_rtl->gnt_reason));
        // Rising edge: the pointer moves to the grant; the assertions are checked.
        m_rtl->clk = 1;
        eval();
        ++m_clocks;
        return g;
    }

private:
    /// Writes value into bits [lsb, lsb + width) of a Verilator wide signal (32-bit words);
    /// the fields (8 and 16 bits) never straddle a word.
    template <class Words>
    static void put(Words& words, unsigned lsb, unsigned width, std::uint32_t value)
    {
        const unsigned w = lsb / 32, s = lsb % 32;
        const std::uint32_t mask = ((1u << width) - 1) << s;
        words[w] = (words[w] & ~mask) | ((value << s) & mask);
    }
    void eval()
    {
        m_rtl->eval();
        if (m_vcd)
            m_vcd->dump(m_time);
        ++m_time;
    }
    void reset_rtl()
    {
        m_rtl->rst = 1;
        m_rtl->clk = 0;
        eval();
        m_rtl->clk = 1;
        eval();
        m_rtl->rst = 0;
    }

    VerilatedContext m_ctx;
    std::unique_ptr<Model> m_rtl;
    std::unique_ptr<VerilatedVcdC> m_vcd;
    std::uint64_t m_time = 0;
    std::uint64_t m_clocks = 0;
};

} // namespace vgpu::noc
