// Shell tests of the shader-trace unit: random sources posting ahead of simulated time (as
// temporally decoupled initiators do), a memory whose writes take random time, and the
// decoded region compared with the ground truth. See models/shader_trace/README.md.
#include "models/shader_trace/core/decoder.h"
#include "models/shader_trace/shader_trace.h"
#include "test/seed.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

using namespace vgpu;
using namespace vgpu::shader_trace;
namespace r = vgpu::shader_trace::trace_reg;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
constexpr std::uint64_t region_base = 0x100000;
constexpr std::uint64_t core_ps = 1000;

/// Memory that stores the trace writes and answers each after a random time.
struct slow_memory : sc_core::sc_module {
    tlm_utils::simple_target_socket<slow_memory> in{"in"};
    std::vector<std::uint8_t> bytes;
    std::mt19937 rng;
    unsigned max_ns;
    std::uint64_t writes = 0;
    slow_memory(const sc_core::sc_module_name& n, std::size_t size, std::uint32_t seed,
                unsigned max_latency_ns)
        : sc_module(n), bytes(size, 0), rng(seed), max_ns(max_latency_ns)
    {
        in.register_b_transport(this, &slow_memory::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        const std::uint64_t a = gp.get_address();
        REQUIRE(gp.is_write());
        REQUIRE(a >= region_base);
        REQUIRE(a - region_base + gp.get_data_length() <= bytes.size());
        auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
        REQUIRE(ext);
        CHECK(ext->kind == tlm_bus::access_kind::trace);
        std::memcpy(&bytes[a - region_base], gp.get_data_ptr(), gp.get_data_length());
        ++writes;
        delay += sc_time(static_cast<double>(1 + rng() % max_ns), SC_NS);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

/// One source: posts `count` random events at its local time, which runs up to `ahead` cycles
/// in front of simulated time before the thread waits (temporal decoupling).
struct source_thread : sc_core::sc_module {
    sc_core::sc_port<tlm_bus::event_if> out{"out"};
    unsigned id, count, ahead;
    std::mt19937 rng;
    std::vector<decoded_event> truth;
    bool stall_aware;
    source_thread(const sc_core::sc_module_name& n, unsigned id_, unsigned count_, unsigned ahead_,
                  std::uint32_t seed, bool stall_aware_)
        : sc_module(n), id(id_), count(count_), ahead(ahead_), rng(seed), stall_aware(stall_aware_)
    {
        SC_HAS_PROCESS(source_thread);
        SC_THREAD(run);
    }
    void run()
    {
        wait(10, SC_NS); // after the registers are set up
        std::uint64_t local = sc_core::sc_time_stamp().value() / core_ps;
        for (unsigned i = 0; i < count; ++i) {
            // Mostly short gaps, sometimes one longer than a delta (511) or the idle timeout.
            const unsigned pick = rng() % 100;
            local += pick < 80 ? rng() % 8 : pick < 95 ? rng() % 600 : 1000 + rng() % 3000;
            decoded_event e;
            e.time = local;
            e.source = id;
            const auto kind = static_cast<tlm_bus::event_kind>(rng() % 9);
            e.what = trace_code(kind);
            e.warp = rng() % 64;
            e.arg = static_cast<std::uint32_t>(rng());
            out->post({e.time, id, kind, e.warp, e.arg});
            truth.push_back(e);
            const std::uint64_t now = sc_core::sc_time_stamp().value() / core_ps;
            if (local > now + ahead || (stall_aware && out->blocked(id))) {
                wait(sc_time::from_value((local - now) * core_ps));
                while (stall_aware && out->blocked(id))
                    wait(out->unblocked());
                local = std::max<std::uint64_t>(local, sc_core::sc_time_stamp().value() / core_ps);
            }
        }
    }
};

struct bench {
    shader_trace_config cfg;
    trace_unit dut;
    slow_memory memory;
    test::test_initiator host{"host"};
    std::vector<std::unique_ptr<source_thread>> sources;
    sc_core::sc_signal<bool> irq{"irq"};
    static shader_trace_config make(full_policy p, unsigned slots, std::uint64_t region)
    {
        shader_trace_config c;
        c.enable = true;
        c.slots = slots;
        c.full = p;
        c.region_bytes.bytes = region;
        c.writes_in_flight = 2;
        c.idle_flush_cycles = 800;
        return c;
    }
    bench(full_policy p, unsigned slots, unsigned nsources, unsigned events, unsigned ahead,
          std::uint32_t seed, unsigned latency_ns, std::uint64_t region = 1 << 20)
        : cfg(make(p, slots, region)),
          dut("dut", cfg, clock_params{false, core_ps, core_ps, core_ps}, nsources - 2),
          memory("memory", region, seed, latency_ns)
    {
        dut.mem.bind(memory.in);
        host.mem.bind(dut.mmio);
        dut.irq(irq);
        for (unsigned s = 0; s < nsources; ++s) {
            sources.push_back(std::make_unique<source_thread>(("src" + std::to_string(s)).c_str(),
                                                              s, events, ahead, seed * 31 + s,
                                                              p == full_policy::stall));
            sources.back()->out.bind(dut.events);
        }
    }
    /// Programs the region, waits for the sources, flushes and waits until idle.
    void drive(test::test_initiator& h)
    {
        sc_time d = sc_core::SC_ZERO_TIME;
        REQUIRE(h.write32(r::BASE_LO, static_cast<std::uint32_t>(region_base), d) ==
                tlm::TLM_OK_RESPONSE);
        REQUIRE(h.write32(r::SIZE, static_cast<std::uint32_t>(memory.bytes.size()), d) ==
                tlm::TLM_OK_RESPONSE);
        REQUIRE(h.write32(r::ENABLE, 1, d) == tlm::TLM_OK_RESPONSE);
        for (;;) {
            sc_core::wait(1, sc_core::SC_US);
            bool more = false;
            for (auto& s : sources)
                more = more || s->truth.size() < s->count;
            if (!more)
                break;
        }
        REQUIRE(h.write32(r::FLUSH, 1, d) == tlm::TLM_OK_RESPONSE);
        while (!(h.read32(r::STATUS, d) & trace_status::IDLE))
            sc_core::wait(100, SC_NS);
    }
    /// The region's tokens up to WPTR.
    std::vector<std::uint64_t> tokens(test::test_initiator& h)
    {
        sc_time d = sc_core::SC_ZERO_TIME;
        const std::uint32_t wptr = h.read32(r::WPTR, d);
        std::vector<std::uint64_t> t(wptr / 8);
        std::memcpy(t.data(), memory.bytes.data(), wptr);
        return t;
    }
};

/// Events of one source, gaps left out.
std::vector<decoded_event> of_source(const std::vector<decoded_event>& all, unsigned s,
                                     unsigned* gaps = nullptr)
{
    std::vector<decoded_event> out;
    for (const auto& e : all) {
        if (e.source != s)
            continue;
        if (e.is_gap) {
            if (gaps)
                ++*gaps;
            continue;
        }
        out.push_back(e);
    }
    return out;
}

bool same(const decoded_event& a, const decoded_event& b)
{
    return a.time == b.time && a.source == b.source && a.what == b.what && a.warp == b.warp &&
           a.arg == b.arg;
}
} // namespace

TEST_CASE(
    "trace unit: stall under random back-pressure loses nothing and decodes to the ground truth")
{
    const std::uint32_t seed = vgpu::test::seed_or(1234);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    bench tb(full_policy::stall, 2, 6, 400, 300, seed, 400);
    std::vector<decoded_event> decoded;
    std::uint64_t dropped = 0;
    tb.host.body = [&](test::test_initiator& h) {
        tb.drive(h);
        const auto t = tb.tokens(h);
        const decode_result d = decode(t, tb.cfg.tokens_per_group());
        REQUIRE(d.ok());
        decoded = d.events;
        sc_time z = sc_core::SC_ZERO_TIME;
        for (unsigned s = 0; s < 6; ++s) {
            REQUIRE(h.write32(r::SRC_SEL, s, z) == tlm::TLM_OK_RESPONSE);
            dropped += h.read32(r::DROPPED_LO, z);
        }
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    CHECK(dropped == 0);
    CHECK(tb.dut.stall_cycles() > 0); // the back-pressure was real
    for (unsigned s = 0; s < 6; ++s) {
        unsigned gaps = 0;
        const auto got = of_source(decoded, s, &gaps);
        const auto& want = tb.sources[s]->truth;
        CHECK(gaps == 0);
        REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            INFO("source " << s << " event " << i);
            REQUIRE(same(got[i], want[i]));
        }
    }
}

TEST_CASE("trace unit: replace under random back-pressure: every token in memory is exact, "
          "losses are gaps and counted")
{
    const std::uint32_t seed = vgpu::test::seed_or(99);
    INFO("seed " << seed << " (VGPU_TEST_SEED reruns it)");
    bench tb(full_policy::replace, 3, 5, 500, 300, seed, 600);
    std::vector<decoded_event> decoded;
    std::vector<std::uint64_t> dropped(5, 0);
    std::uint64_t tokens_in_memory = 0;
    tb.host.body = [&](test::test_initiator& h) {
        tb.drive(h);
        const auto t = tb.tokens(h);
        for (std::uint64_t x : t)
            tokens_in_memory += x != 0;
        const decode_result d = decode(t, tb.cfg.tokens_per_group());
        REQUIRE(d.ok());
        decoded = d.events;
        sc_time z = sc_core::SC_ZERO_TIME;
        for (unsigned s = 0; s < 5; ++s) {
            REQUIRE(h.write32(r::SRC_SEL, s, z) == tlm::TLM_OK_RESPONSE);
            dropped[s] = h.read32(r::DROPPED_LO, z);
        }
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    std::uint64_t total_dropped = 0;
    for (unsigned s = 0; s < 5; ++s) {
        INFO("source " << s);
        total_dropped += dropped[s];
        unsigned gaps = 0;
        const auto got = of_source(decoded, s, &gaps);
        const auto& want = tb.sources[s]->truth;
        // What reached memory is an in-order subsequence of the truth, with exact times.
        std::size_t j = 0;
        for (const auto& e : got) {
            while (j < want.size() && !same(e, want[j]))
                ++j;
            REQUIRE(j < want.size());
            ++j;
        }
        CHECK((got.size() < want.size()) == (dropped[s] > 0));
        // A source that lost groups shows gaps, unless only its last groups were lost.
        if (gaps > 0)
            CHECK(dropped[s] > 0);
    }
    CHECK(total_dropped > 0); // the case exercises replacement
    CHECK(tokens_in_memory + total_dropped == tb.dut.tokens_packed());
}

TEST_CASE("trace unit: sources running far ahead of simulated time decode to the ground truth")
{
    // Sources posting up to 2000 cycles ahead of simulated time, against a memory with fixed
    // latency: the image must equal the one of sources in lock-step (checked against the
    // ground truth, which is the same for both by construction).
    const std::uint32_t seed = vgpu::test::seed_or(7);
    INFO("seed " << seed);
    bench tb(full_policy::replace, 2, 4, 300, 2000, seed, 1);
    std::vector<std::uint64_t> image;
    tb.host.body = [&](test::test_initiator& h) {
        tb.drive(h);
        image = tb.tokens(h);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    // With memory answering in 1 ns nothing is lost: decoded = truth exactly.
    const decode_result d = decode(image, tb.cfg.tokens_per_group());
    REQUIRE(d.ok());
    for (unsigned s = 0; s < 4; ++s) {
        const auto got = of_source(d.events, s);
        REQUIRE(got.size() == tb.sources[s]->truth.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            REQUIRE(same(got[i], tb.sources[s]->truth[i]));
    }
    CHECK(tb.dut.regs().get(r::SOURCES) == 4u);
}

TEST_CASE("trace unit: stop mode drops and counts what does not fit, and the watermark raises the "
          "interrupt")
{
    const std::uint32_t seed = vgpu::test::seed_or(5);
    INFO("seed " << seed);
    // 16 groups of region for far more events: stop mode.
    bench tb(full_policy::stall, 8, 3, 300, 10, seed, 20, 16 * 64);
    std::uint32_t status = 0, wptr = 0;
    std::uint64_t dropped = 0;
    bool irq_before = true, irq_after_clear = true;
    tb.host.body = [&](test::test_initiator& h) {
        sc_time z = sc_core::SC_ZERO_TIME;
        // Watermark at half the region, raising the interrupt.
        REQUIRE(h.write32(r::WATERMARK, 8 * 64, z) == tlm::TLM_OK_RESPONSE);
        REQUIRE(h.write32(r::IRQ_ENABLE, 1, z) == tlm::TLM_OK_RESPONSE);
        irq_before = tb.irq.read();
        tb.drive(h);
        status = h.read32(r::STATUS, z);
        CHECK(tb.irq.read());
        REQUIRE(h.write32(r::STATUS, trace_status::WMARK, z) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        irq_after_clear = tb.irq.read();
        wptr = h.read32(r::WPTR, z);
        for (unsigned s = 0; s < 3; ++s) {
            REQUIRE(h.write32(r::SRC_SEL, s, z) == tlm::TLM_OK_RESPONSE);
            dropped += h.read32(r::DROPPED_LO, z);
        }
        tlm::tlm_response_status st;
        REQUIRE(h.write32(r::SRC_SEL, 3, z) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        h.read32(r::FLUSH, z, &st);
        CHECK(st == tlm::TLM_COMMAND_ERROR_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    CHECK((status & trace_status::FULL) != 0);
    CHECK((status & trace_status::WMARK) != 0);
    CHECK_FALSE(irq_before);
    CHECK_FALSE(irq_after_clear);
    CHECK(wptr == 16u * 64u);
    std::uint64_t in_memory = 0;
    for (std::size_t i = 0; i < tb.memory.bytes.size(); i += 8) {
        std::uint64_t t = 0;
        std::memcpy(&t, &tb.memory.bytes[i], 8);
        in_memory += t != 0;
    }
    CHECK(in_memory + dropped == tb.dut.tokens_packed());
    CHECK(tb.memory.writes == 16u);
}

TEST_CASE("trace unit: every event the GPU posts has the trace code of its name")
{
    using k = tlm_bus::event_kind;
    CHECK(trace_code(k::kernel_begin) == event::kernel_begin);
    CHECK(trace_code(k::kernel_end) == event::kernel_end);
    CHECK(trace_code(k::cta_dispatch) == event::cta_dispatch);
    CHECK(trace_code(k::cta_retire) == event::cta_retire);
    CHECK(trace_code(k::warp_start) == event::warp_start);
    CHECK(trace_code(k::warp_exit) == event::warp_exit);
    CHECK(trace_code(k::barrier_arrive) == event::barrier_arrive);
    CHECK(trace_code(k::barrier_release) == event::barrier_release);
    CHECK(trace_code(k::user) == event::user);
}
