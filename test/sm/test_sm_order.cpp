// Fast mode's same-time order: threads (SMs) that resume at one simulated time run in key
// (SM id) order, whatever order SystemC's scheduler would run them in.
// See docs/architecture.md ("Timing": same-time order).
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn, before the first <systemc>
#include "models/sm/same_time_gate.h"
#include "test/sm/sm_bench.h"

#include <tlm_utils/multi_passthrough_target_socket.h>

#include <algorithm>
#include <memory>

using namespace vgpu::test::sm_bench;

namespace {

// ---- the gate alone ----

/// Members with keys `keys`, their threads created in that order; each sleeps through the
/// gate as its script says and logs (time ns, key) when it resumes.
struct gate_bench : sc_core::sc_module {
    sm::same_time_gate gate{"gate"};
    std::vector<unsigned> keys;
    std::vector<std::pair<double, unsigned>> log;
    std::function<void(gate_bench&, unsigned)> script;

    /// `early`: the keys that join as early members (they go before the others).
    gate_bench(const sc_core::sc_module_name& n, std::vector<unsigned> k,
               std::function<void(gate_bench&, unsigned)> s, std::vector<unsigned> early = {})
        : sc_module(n), keys(std::move(k)), script(std::move(s))
    {
        gate.record(true);
        for (unsigned key : keys) {
            gate.join(key, std::find(early.begin(), early.end(), key) != early.end());
            sc_core::sc_spawn([this, key] { script(*this, key); },
                              ("member" + std::to_string(key)).c_str());
        }
    }
    void note(unsigned key) { log.emplace_back(sc_core::sc_time_stamp().to_seconds() * 1e9, key); }
    /// The log as "ns:key ns:key ...".
    std::string text() const
    {
        std::string t;
        for (const auto& [ns, key] : log)
            t += (t.empty() ? "" : " ") + std::to_string(static_cast<long>(ns + 0.5)) + ":" +
                 std::to_string(key);
        return t;
    }
};

std::vector<unsigned> keys_of(const std::vector<std::pair<double, unsigned>>& log)
{
    std::vector<unsigned> k;
    for (const auto& e : log)
        k.push_back(e.second);
    return k;
}

} // namespace

namespace {
void key_order_case(bool reverse)
{
    std::vector<unsigned> keys{0, 3, 7, 12};
    if (reverse)
        std::reverse(keys.begin(), keys.end());
    gate_bench b("b", keys, [](gate_bench& g, unsigned key) {
        for (int round = 0; round < 3; ++round) {
            // All sleep until 10, 20, 30 ns (a quantum boundary); key 3 sleeps 5 ns longer in
            // round 1.
            const double until = 10.0 * (round + 1) + (key == 3 && round == 1 ? 5 : 0);
            g.gate.sleep(key, sc_time(until, SC_NS), false);
            g.note(key);
        }
    });
    sc_core::sc_start();
    CHECK(b.text() == "10:0 10:3 10:7 10:12 20:0 20:7 20:12 25:3 30:0 30:3 30:7 30:12");
    CHECK(b.gate.released().size() == 12);
}
} // namespace

// One simulation per process: each case of a pair is its own test.
TEST_CASE("same_time_gate: members due at one time resume in key order (threads created in key "
          "order)")
{
    key_order_case(false);
}

TEST_CASE("same_time_gate: members due at one time resume in key order (threads created in "
          "reverse key order)")
{
    key_order_case(true);
}

namespace {
/// Keys 0, 3, 7, 12; 7 and 12 join early (as a cluster's TLB walk thread does): at each time
/// they go first, in key order, then the others in key order, whatever the creation order.
void early_case(bool reverse)
{
    std::vector<unsigned> keys{0, 3, 7, 12};
    if (reverse)
        std::reverse(keys.begin(), keys.end());
    gate_bench b("b", keys,
                 [](gate_bench& g, unsigned key) {
                     for (int round = 0; round < 2; ++round) {
                         // Key 7 sleeps 5 ns longer in round 1: it goes alone then.
                         const double until = 10.0 * (round + 1) + (key == 7 && round == 1 ? 5 : 0);
                         g.gate.sleep(key, sc_time(until, SC_NS), false);
                         g.note(key);
                     }
                 },
                 {7, 12});
    sc_core::sc_start();
    CHECK(b.text() == "10:7 10:12 10:0 10:3 20:12 20:0 20:3 25:7");
}
} // namespace

TEST_CASE("same_time_gate: early members go first at one time (threads created in key order)")
{
    early_case(false);
}

TEST_CASE("same_time_gate: early members go first at one time (threads created in reverse key "
          "order)")
{
    early_case(true);
}

TEST_CASE("same_time_gate: a wake ends a wakeable sleep early, in the next delta and in key order")
{
    std::vector<unsigned> order;
    gate_bench b("b", {5, 1, 2}, [&order](gate_bench& g, unsigned key) {
        if (key == 5) {
            // Wakes 1 and 2 at 40 ns (both sleep wakeable until 100 ns), then sleeps to 40 ns.
            g.gate.sleep(5, sc_time(10, SC_NS), false);
            g.gate.wake(2, sc_time(40, SC_NS));
            g.gate.wake(1, sc_time(40, SC_NS));
            g.gate.sleep(5, sc_time(40, SC_NS), false);
            g.note(5);
            // A wake at the current time: member 1 goes in the next delta, after this one.
            g.gate.wake(1, sc_core::sc_time_stamp());
            return;
        }
        if (key == 2) {
            g.gate.sleep(2, sc_time(100, SC_NS), true);
            g.note(2);
            g.gate.sleep_forever(2); // nothing wakes it again
            return;
        }
        g.gate.sleep(1, sc_time(100, SC_NS), true);
        g.note(1);
        g.gate.sleep(1, sc_time(500, SC_NS), true);
        g.note(1);
        // A wake that finds it running ends its next wakeable sleep.
        g.gate.wake(1, sc_time(60, SC_NS));
        g.gate.sleep(1, sc_time(500, SC_NS), true);
        g.note(1);
    });
    sc_core::sc_start();
    CHECK(b.text() == "40:1 40:2 40:5 40:1 60:1");
}

TEST_CASE("same_time_gate: a member that waits elsewhere with the turn holds the others one "
          "delta cycle at most")
{
    sc_core::sc_event never_notified;
    gate_bench b("b", {0, 1, 2}, [&never_notified](gate_bench& g, unsigned key) {
        g.gate.sleep(key, sc_time(10, SC_NS), false);
        g.note(key);
        if (key == 0)
            sc_core::wait(never_notified); // not through the gate: the turn passes on
    });
    sc_core::sc_start();
    CHECK(keys_of(b.log) == std::vector<unsigned>{0, 1, 2});
    for (const auto& e : b.log)
        CHECK(e.first == 10);
}

// ---- SMs sharing a memory ----

namespace {

/// A flat memory (PA = VA) shared by several SMs that logs each access's time and SM.
struct shared_memory : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<shared_memory> in{"in"};
    std::vector<std::uint8_t> data = std::vector<std::uint8_t>(1 << 20);
    struct call {
        std::uint64_t at_ps;
        int sm;
    };
    std::vector<call> calls;

    explicit shared_memory(const sc_core::sc_module_name& n) : sc_module(n)
    {
        in.register_b_transport(this, &shared_memory::b_transport);
        in.register_transport_dbg(this, &shared_memory::transport_dbg);
    }
    void b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        const auto* ext = gp.get_extension<tlm_bus::gpu_extension>();
        calls.push_back({sc_core::sc_time_stamp().value(), ext ? ext->sm : -1});
        if (gp.get_address() + gp.get_data_length() > data.size()) {
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        copy(gp);
        delay += sc_time(100, SC_NS);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    unsigned transport_dbg(int, tlm::tlm_generic_payload& gp)
    {
        if (gp.get_address() + gp.get_data_length() > data.size())
            return 0;
        copy(gp);
        return gp.get_data_length();
    }
    void copy(tlm::tlm_generic_payload& gp)
    {
        std::uint8_t* at = &data[gp.get_address()];
        if (gp.is_read())
            std::memcpy(gp.get_data_ptr(), at, gp.get_data_length());
        else
            std::memcpy(at, gp.get_data_ptr(), gp.get_data_length());
    }
};

/// `ids.size()` SMs in fast mode, built in the order of `ids`, each with its own stub CP, all
/// sharing one memory; with `gated`, they sleep through one same_time_gate.
struct multi_bench {
    shared_memory ram{"ram"};
    sm::same_time_gate gate{"gate"};
    std::vector<std::unique_ptr<cp_stub>> cps;
    std::vector<std::unique_ptr<sm::sm>> sms;

    multi_bench(const std::vector<unsigned>& ids, const sc_time& quantum, bool gated = true)
    {
        tlm::tlm_global_quantum::instance().set(quantum);
        clock_params clk;
        clk.accurate = false;
        clk.core_ps = 1000;
        for (unsigned id : ids) {
            const std::string n = "sm" + std::to_string(id);
            cps.push_back(std::make_unique<cp_stub>(("cp" + std::to_string(id)).c_str()));
            sms.push_back(
                std::make_unique<sm::sm>(n.c_str(), default_cfg(), clk, id, 0, 0, line_bytes));
            cps.back()->dispatch.bind(sms.back()->ctrl);
            sms.back()->done.bind(cps.back()->cta_done);
            sms.back()->mem.bind(ram.in);
            if (gated)
                sms.back()->join_gate(gate);
        }
    }
};

} // namespace

namespace {
void sm_order_case(bool reverse, double quantum_ns)
{
    INFO("SMs built in " << (reverse ? "descending" : "ascending") << " id order, quantum "
                         << quantum_ns << " ns");
    std::vector<unsigned> ids{0, 1, 2, 3};
    if (reverse)
        std::reverse(ids.begin(), ids.end());
    multi_bench tb(ids, sc_time(quantum_ns, SC_NS));
    // vector_add over 64 elements per SM (2 warps): the program at prog_va, a/b/c per SM.
    const auto res = sm::assemble(vector_add, abc, {"kernel.s", 1, 1});
    REQUIRE(res.ok());
    const auto image = sm::encode_program(res.code);
    std::memcpy(&tb.ram.data[prog_va], image.data(), image.size());
    const std::uint32_t n = 64;
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const unsigned id = ids[k];
        const std::uint32_t a = 0x20000 + id * 0x3000, b = a + 0x1000, c = a + 0x2000;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t va = 7 * i + id, vb = 1000 * id + i;
            std::memcpy(&tb.ram.data[a + 4 * i], &va, 4);
            std::memcpy(&tb.ram.data[b + 4 * i], &vb, 4);
        }
        cp::cta_launch l{};
        l.kernel_seq = 1;
        l.prog_addr = prog_va;
        l.prog_bytes = static_cast<std::uint32_t>(image.size());
        l.grid_x = l.grid_y = l.grid_z = l.block_y = l.block_z = 1;
        l.block_x = n;
        l.nparams = 3;
        l.params[0] = a;
        l.params[1] = b;
        l.params[2] = c;
        tb.cps[k]->launches.push_back({l, sizeof l});
    }
    sc_core::sc_start();
    for (std::size_t k = 0; k < ids.size(); ++k) {
        REQUIRE(tb.cps[k]->dones.size() == 1);
        CHECK(tb.cps[k]->dones[0].d.status == cp::cta_status::ok);
        const std::uint32_t c = 0x20000 + ids[k] * 0x3000 + 0x2000;
        for (std::uint32_t i = 0; i < n; ++i) {
            std::uint32_t v = 0;
            std::memcpy(&v, &tb.ram.data[c + 4 * i], 4);
            CHECK(v == 7 * i + ids[k] + 1000 * ids[k] + i);
        }
    }
    // Within each time stamp, the calls come in SM-id order; and ties happen (every SM
    // fetches its program at time 0, so at least that group has all four SMs).
    const auto& calls = tb.ram.calls;
    REQUIRE(!calls.empty());
    unsigned ties = 0;
    for (std::size_t i = 1; i < calls.size(); ++i) {
        if (calls[i].at_ps != calls[i - 1].at_ps)
            continue;
        INFO("call " << i << " at " << calls[i].at_ps << " ps: SM " << calls[i - 1].sm
                     << " then SM " << calls[i].sm);
        CHECK(calls[i].sm >= calls[i - 1].sm);
        ties += calls[i].sm != calls[i - 1].sm;
    }
    CHECK(ties >= 3);
    CHECK(calls[0].sm == 0);
}
} // namespace

// One simulation per process: a test per construction order and quantum.
TEST_CASE("fast mode: same-time SMs reach a shared memory in SM-id order (built in id order, "
          "quantum 0)")
{
    sm_order_case(false, 0);
}

TEST_CASE("fast mode: same-time SMs reach a shared memory in SM-id order (built in reverse id "
          "order, quantum 0)")
{
    sm_order_case(true, 0);
}

TEST_CASE("fast mode: same-time SMs reach a shared memory in SM-id order (built in id order, "
          "quantum 100 ns)")
{
    sm_order_case(false, 100);
}

TEST_CASE("fast mode: same-time SMs reach a shared memory in SM-id order (built in reverse id "
          "order, quantum 100 ns)")
{
    sm_order_case(true, 100);
}

TEST_CASE("fast mode: same-time SMs reach a shared memory in SM-id order (built in id order, "
          "quantum 1000 ns)")
{
    sm_order_case(false, 1000);
}

TEST_CASE("fast mode: same-time SMs reach a shared memory in SM-id order (built in reverse id "
          "order, quantum 1000 ns)")
{
    sm_order_case(true, 1000);
}
