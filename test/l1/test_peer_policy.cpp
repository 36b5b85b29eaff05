// The L1's peer-policy seam (models/l1/peer_policy.h) with a toy policy written here: it sends
// every miss of L1 `a` to a second L1 `b` and records what the L1 tells it. See
// models/l1/README.md.
#include "models/l1/l1.h"
#include "test/support/cache_bench.h"
#include "test/support/stats_probe.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
using test::clocks;
using test::dram_cfg;
using test::stat;

/// `ways` 2: lines 0x100, 0x300, 0x500 of set 2 do not fit at once.
l1::l1_config l1_cfg(unsigned ways = 2)
{
    l1::l1_config c;
    c.sets = 4;
    c.ways = ways;
    c.line_bytes = 128;
    c.hit_latency = 2; // 2 ns at a 1 ns core clock
    c.mshrs = 4;
    return c;
}

/// Sends each miss to "peer 7" (a port bound to another L1) while `borrow`, records the rest.
struct toy_policy : sc_core::sc_module, l1::peer_policy {
    tlm_bus::initiator_port to_peer{"to_peer"};
    bool borrow = true;
    unsigned asked = 0, peer_reads = 0, begins = 0, dones = 0, ends = 0, ticks = 0, epochs = 0;
    std::uint64_t lookups = 0, misses = 0;
    std::vector<std::uint64_t> written, evicted_lines, stored_addrs;
    std::vector<std::uint32_t> stored_values;

    explicit toy_policy(const sc_core::sc_module_name& n) : sc_module(n) {}

    int miss_source(std::uint64_t) override
    {
        ++asked;
        return borrow ? 7 : -1;
    }
    tlm::tlm_response_status read_peer(int peer, std::uint64_t addr, std::uint8_t* data,
                                       unsigned len, sc_time& delay,
                                       const tlm_bus::gpu_extension* ext) override
    {
        CHECK(peer == 7); // the L1 hands back the policy's own choice
        ++peer_reads;
        return to_peer.access(tlm::TLM_READ_COMMAND, addr, data, len, delay, ext);
    }
    void evicted(int peer, const cache::cache_array::victim& v, const tlm_bus::gpu_extension*,
                 const sc_time&) override
    {
        CHECK(peer == 7);
        evicted_lines.push_back(v.line_addr);
    }
    void tick(std::uint64_t) override { ++ticks; }
    void own_reads(std::uint64_t l, std::uint64_t m) override
    {
        lookups += l;
        misses += m;
    }
    void store_begins(const tlm::tlm_generic_payload&) override { ++begins; }
    void store_done(tlm::tlm_generic_payload& gp, const std::uint8_t* data,
                    const tlm_bus::gpu_extension*, sc_time&) override
    {
        ++dones;
        CHECK(begins == dones); // below first, then the others
        stored_addrs.push_back(gp.get_address());
        std::uint32_t v = 0;
        std::memcpy(&v, data, 4);
        stored_values.push_back(v);
    }
    void store_ends(const tlm::tlm_generic_payload&) override { ++ends; }
    void line_written(std::uint64_t line) override { written.push_back(line); }
    void new_kernel_epoch() override { ++epochs; }
};

/// SM -> a -> DRAM, a's policy -> b -> DRAM, checked on every link. b has 4 ways: it keeps
/// every line a evicts.
struct bench {
    test::test_initiator sm{"sm"};
    tlm_bus::protocol_checker pc_sm{"pc_sm"}, pc_a{"pc_a"}, pc_peer{"pc_peer"}, pc_b{"pc_b"};
    l1::l1 a, b;
    dram::dram mem;
    toy_policy* policy;
    bench()
        : a("a", l1_cfg(), clocks()), b("b", l1_cfg(4), clocks()),
          mem("mem", dram_cfg(), clocks(), 0, l1_cfg().line_bytes)
    {
        auto p = std::make_unique<toy_policy>("toy");
        policy = p.get();
        tlm_bus::bind_checked(sm.mem, pc_sm, a.in);
        tlm_bus::bind_checked(a.out, pc_a, mem.in);
        tlm_bus::bind_checked(p->to_peer, pc_peer, b.in);
        tlm_bus::bind_checked(b.out, pc_b, mem.in);
        a.attach_peer(std::move(p));
    }
    std::size_t violations() const
    {
        return pc_sm.violations() + pc_a.violations() + pc_peer.violations() + pc_b.violations();
    }
};

/// A data access of SM 0 in kernel epoch 1.
tlm_bus::gpu_extension data_ext()
{
    tlm_bus::gpu_extension e;
    e.sm = 0;
    e.epoch = 1;
    e.kind = tlm_bus::access_kind::data;
    return e;
}

std::uint32_t read32(test::test_initiator& i, std::uint64_t addr, sc_time& d)
{
    const tlm_bus::gpu_extension e = data_ext();
    std::uint32_t v = 0;
    CHECK(i.mem.access(tlm::TLM_READ_COMMAND, addr, &v, 4, d, &e) == tlm::TLM_OK_RESPONSE);
    return v;
}

void write32(test::test_initiator& i, std::uint64_t addr, std::uint32_t v, sc_time& d)
{
    const tlm_bus::gpu_extension e = data_ext();
    CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, addr, &v, 4, d, &e) == tlm::TLM_OK_RESPONSE);
}

} // namespace

TEST_CASE("a toy peer policy sends L1 a's misses to L1 b and sees its stores and victims")
{
    bench tb;
    tb.sm.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0x11223344;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x104, &v, 4) == 4u);
        // Miss in a (2 ns tag) -> b: 2 ns tag, miss -> one 32-byte sector (1 ns) + 10 ns DRAM.
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(read32(i, 0x104, d) == 0x11223344u);
        CHECK(d == sc_time(15, SC_NS));
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        CHECK(read32(i, 0x104, d) == 0x11223344u); // a hit in a: the policy is not asked
        CHECK(d == sc_time(2, SC_NS));
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        write32(i, 0x108, 5, d); // through a to DRAM; the toy forwards it to no one
        sc_core::wait(100, SC_NS);
        // Two more lines of set 2 through b: the second evicts 0x100 (least recently used).
        d = sc_core::SC_ZERO_TIME;
        read32(i, 0x300, d);
        sc_core::wait(100, SC_NS);
        d = sc_core::SC_ZERO_TIME;
        read32(i, 0x500, d);
        sc_core::wait(100, SC_NS);
        // 0x108 again: a lost the line, so the miss reads b, whose copy predates the store.
        d = sc_core::SC_ZERO_TIME;
        CHECK(read32(i, 0x108, d) == 0u);
    };
    sc_core::sc_start();
    REQUIRE(tb.sm.done);
    REQUIRE(tb.violations() == 0);
    const toy_policy& p = *tb.policy;
    CHECK(p.asked == 4); // the four misses of a
    CHECK(p.peer_reads == 4);
    CHECK(stat("a.misses") == 4);
    CHECK(stat("a.hits") == 1);
    CHECK(stat("b.reads") == 4);  // every miss of a, none below it
    CHECK(stat("b.misses") == 3); // 0x100, 0x300, 0x500; 0x108 hits b's old copy
    CHECK(stat("b.hits") == 1);
    CHECK(p.lookups == 5);
    CHECK(p.misses == 4);
    CHECK(p.ticks == 6); // five reads, one write
    CHECK(p.begins == 1);
    CHECK(p.dones == 1);
    CHECK(p.ends == 1);
    CHECK(p.stored_addrs == std::vector<std::uint64_t>{0x108});
    CHECK(p.stored_values == std::vector<std::uint32_t>{5});
    CHECK(p.written == std::vector<std::uint64_t>{0x100});
    CHECK(p.evicted_lines == std::vector<std::uint64_t>{0x100, 0x300});
    CHECK(p.epochs == 1); // epoch 1 reached a at its first request
}
