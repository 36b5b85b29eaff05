// Shell tests of the TLB block: two SMs' L1 TLBs sharing a cluster's L2 TLB, page-walk cache and
// walkers over a memory with a known latency; every latency below is computed by hand from the
// configuration. The protocol checker sits on every socket. See models/tlb/README.md.
#include "models/common/page_table.h"
#include "models/tlb/tlb.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"
#include "tlm_bus/router.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <memory>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
constexpr std::uint64_t ptbr = 0x1000; ///< the table's nodes from here, below the frames
constexpr std::uint64_t page = 4096;
// The memory: 10 ns after a transfer of 16 B/ns, one transfer at a time.
constexpr double pte_read_ns = 10.5;   // 8 bytes
constexpr double data_read_ns = 10.25; // 4 bytes
constexpr double l2_hit_ns = 10;       // tlb.l2.hit_latency 10 cycles of 1 ns

tlb::tlb_config make_config(unsigned walkers = 8, tlb::model_kind model = tlb::model_kind::timed)
{
    tlb::tlb_config c;
    c.model = model;
    c.l1 = {16, 4, 0};
    c.l2 = {64, 8, 10};
    c.walkers = walkers;
    c.pwc_entries = 16;
    return c;
}

clock_params clocks(bool accurate)
{
    clock_params c;
    c.accurate = accurate;
    c.core_ps = 1000;
    return c;
}

/// Two initiators (SMs) -> checker -> L1 TLB -> checker -> router -> checker -> memory; both
/// TLBs' walk ports -> checker -> router; one cluster_tlb behind both.
struct bench {
    tlb::tlb_config cfg;
    tlb::cluster_tlb shared;
    test::test_initiator i0{"i0"}, i1{"i1"};
    tlb::tlb t0, t1;
    tlm_bus::router bus{"bus"};
    tlm_bus::memory ram{"ram", params()};
    page_table::builder table{ptbr, page};
    tlm_bus::protocol_checker pc_in0{"pc_in0"}, pc_in1{"pc_in1"}, pc_out0{"pc_out0"},
        pc_out1{"pc_out1"}, pc_walk0{"pc_walk0"}, pc_walk1{"pc_walk1"}, pc_ram{"pc_ram"};

    explicit bench(const tlb::tlb_config& c, bool accurate = false)
        : cfg(c), shared("c0.tlb", cfg, clocks(accurate), page),
          t0("t0", cfg, clocks(accurate), page, shared),
          t1("t1", cfg, clocks(accurate), page, shared)
    {
        tlm_bus::bind_checked(i0.mem, pc_in0, t0.in);
        tlm_bus::bind_checked(i1.mem, pc_in1, t1.in);
        tlm_bus::bind_checked(t0.out, pc_out0, bus.in);
        tlm_bus::bind_checked(t1.out, pc_out1, bus.in);
        tlm_bus::bind_checked(t0.walk, pc_walk0, bus.in);
        tlm_bus::bind_checked(t1.walk, pc_walk1, bus.in);
        tlm_bus::bind_checked(bus.out, pc_ram, ram.in);
        bus.map({0, 1 << 20, 0, 0, "ram"});
        i1.body = [](test::test_initiator&) {};
    }
    static tlm_bus::memory_params params()
    {
        tlm_bus::memory_params p;
        p.size = 1 << 20;
        p.latency = sc_time(10, SC_NS);
        p.dmi = false;
        return p;
    }
    /// Maps va's page to frame pa and puts `value` at the frame's first word.
    void map(std::uint64_t va, std::uint64_t pa, bool writable, std::uint32_t value)
    {
        table.map(va, page_table::encode(pa, writable));
        for (const auto& [at, raw] : table.entries())
            ram.store().write(at, &raw, 8);
        ram.store().write(pa, &value, 4);
    }
    std::size_t violations() const
    {
        return pc_in0.violations() + pc_in1.violations() + pc_out0.violations() +
               pc_out1.violations() + pc_walk0.violations() + pc_walk1.violations() +
               pc_ram.violations();
    }
};

tlm_bus::gpu_extension ctx(int sm)
{
    tlm_bus::gpu_extension e;
    e.epoch = 1;
    e.ptbr = ptbr;
    e.sm = static_cast<std::int16_t>(sm);
    return e;
}

/// A read of 4 bytes at va by `i` from time 0 + d; returns the value, updates d to the end.
std::uint32_t read(test::test_initiator& i, std::uint64_t va, sc_time& d, int sm,
                   tlm::tlm_response_status* status = nullptr)
{
    const auto e = ctx(sm);
    std::uint32_t v = 0;
    const auto s = i.mem.access(tlm::TLM_READ_COMMAND, va, &v, 4, d, &e);
    if (status)
        *status = s;
    return v;
}

double ns(const sc_time& t)
{
    return t.to_seconds() * 1e9;
}

/// The time an access ended: the initiator's current time plus its remaining offset.
double end_ns(const sc_time& d)
{
    return ns(sc_core::sc_time_stamp() + d);
}

/// L1 miss, L2 miss and a 3-level walk; an L1 hit; a neighbouring page whose walk finds its
/// leaf node in the page-walk cache. Same figures in both timing modes.
void one_sm(bool accurate)
{
    bench b(make_config(), accurate);
    b.map(0x5000, 0x20000, true, 11);
    b.map(0x6000, 0x31000, true, 22);
    std::vector<double> ends;
    std::uint32_t v[3] = {};
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        v[0] = read(i, 0x5000, d, 0);
        ends.push_back(end_ns(d));
        v[1] = read(i, 0x5000, d, 0);
        ends.push_back(end_ns(d));
        v[2] = read(i, 0x6000, d, 0);
        ends.push_back(end_ns(d));
    };
    sc_core::sc_start();
    REQUIRE(b.i0.done);
    CHECK(b.violations() == 0);
    CHECK(v[0] == 11);
    CHECK(v[1] == 11);
    CHECK(v[2] == 22);
    const double first = l2_hit_ns + 3 * pte_read_ns + data_read_ns;      // 51.75
    const double second = first + data_read_ns;                           // L1 hit: 62.0
    const double third = second + l2_hit_ns + pte_read_ns + data_read_ns; // PWC hit: 92.75
    REQUIRE(ends.size() == 3);
    CHECK(ends[0] == Approx(first));
    CHECK(ends[1] == Approx(second));
    CHECK(ends[2] == Approx(third));
    CHECK(b.t0.array().hits() == 1);
    CHECK(b.t0.array().misses() == 2);
    CHECK(b.shared.walks() == 2);
    CHECK(b.shared.pte_reads() == 4);
    CHECK(b.shared.pwc().hits() == 1);
    CHECK(b.shared.pwc().misses() == 2); // the first walk probed both upper levels
    REQUIRE(b.shared.l2());
    CHECK(b.shared.l2()->misses() == 2);
}
} // namespace

TEST_CASE("tlb, fast: an L1 miss walks 3 levels, an L1 hit costs nothing, the page-walk cache "
          "shortens the next walk")
{
    one_sm(false);
}

TEST_CASE("tlb, accurate: the same latencies as fast mode, computed by hand")
{
    one_sm(true);
}

namespace {
/// Two SMs miss on one page at time 0: the second joins the first's walk (an L2 miss that
/// merged, in both modes), and both data reads wait for its end.
void shared_walk(bool accurate)
{
    bench b(make_config(), accurate);
    b.map(0x5000, 0x20000, true, 7);
    double e0 = 0, e1 = 0;
    std::uint32_t v0 = 0, v1 = 0;
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        v0 = read(i, 0x5000, d, 0);
        e0 = end_ns(d);
    };
    b.i1.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        v1 = read(i, 0x5000, d, 1);
        e1 = end_ns(d);
    };
    sc_core::sc_start();
    CHECK(b.violations() == 0);
    CHECK(v0 == 7);
    CHECK(v1 == 7);
    CHECK(b.shared.walks() == 1);
    CHECK(b.shared.merged() == 1);
    CHECK(b.shared.l2()->hits() == 0);
    CHECK(b.t0.misses() == 1);
    CHECK(b.t1.misses() == 1);
    // Both data reads start when the walk ends; the memory takes one transfer at a time.
    const double walk_end = l2_hit_ns + 3 * pte_read_ns;
    CHECK(std::min(e0, e1) == Approx(walk_end + data_read_ns));
    CHECK(std::max(e0, e1) == Approx(walk_end + data_read_ns + 0.25));
}
} // namespace

TEST_CASE("tlb, fast: two SMs missing on one page at once share one walk")
{
    shared_walk(false);
}

TEST_CASE("tlb, accurate: two SMs missing on one page at once share one walk")
{
    shared_walk(true);
}

namespace {
/// Two SMs miss at once on a page that is not present: the second shares the first's walk and
/// its answer (no second walk, in both modes); both get an address error, and the page enters
/// no TLB, so a later read walks again.
void shared_absent_walk(bool accurate)
{
    bench b(make_config(), accurate);
    b.map(0x5000, 0x20000, true, 7); // builds the table's nodes; 0x6000 is not mapped
    tlm::tlm_response_status s0 = tlm::TLM_OK_RESPONSE, s1 = tlm::TLM_OK_RESPONSE,
                             s2 = tlm::TLM_OK_RESPONSE;
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        read(i, 0x6000, d, 0, &s0);
        sc_core::wait(sc_time(500, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        read(i, 0x6000, d, 0, &s2);
    };
    b.i1.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        read(i, 0x6000, d, 1, &s1);
    };
    sc_core::sc_start();
    CHECK(b.violations() == 0);
    CHECK(s0 == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(s1 == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(s2 == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(b.shared.merged() == 1);
    CHECK(b.shared.walks() == 2); // one for the two reads at once, one for the later read
}
} // namespace

TEST_CASE("tlb, fast: two SMs missing at once on a page not present share one walk")
{
    shared_absent_walk(false);
}

TEST_CASE("tlb, accurate: two SMs missing at once on a page not present share one walk")
{
    shared_absent_walk(true);
}

namespace {
/// A read of a page first touch has not decided yet waits for the placement and replays; the
/// replay (same VA and warp, no replay mark, as the SM makes it) asks the placement again
/// without a second walk. A read of another warp to the page is a new request: it walks.
void touch_replay(bool accurate)
{
    bench b(make_config(), accurate);
    b.map(0x5000, 0x20000, true, 7); // the table's nodes; 0x6000 has no leaf
    const auto placement = std::make_shared<tlm_bus::fault_wait>();
    placement->placement = true;
    placement->deadline_ps = ~std::uint64_t{0};
    unsigned asked = 0;
    b.t0.set_first_touch([&](std::uint64_t, int, std::uint64_t, bool can_wait) {
        ++asked;
        CHECK(can_wait);
        return placement->resolved
                   ? tlb::tlb::touch_answer{page_table::encode(0x20000, true), nullptr}
                   : tlb::tlb::touch_answer{0, placement};
    });
    std::uint32_t v = 0, v2 = 0;
    tlm::tlm_response_status st = tlm::TLM_INCOMPLETE_RESPONSE;
    std::uint64_t walks_before_replay = 0, walks_after_replay = 0;
    // A read by warp `warp`, replayed while it is answered with a wait other than the
    // placement's (fast mode: a walk's); returns the placement's wait if it got that.
    const auto read_by = [&](test::test_initiator& i, int warp, std::uint32_t& out) {
        auto x = ctx(0);
        x.kind = tlm_bus::access_kind::data;
        x.warp = warp;
        for (;;) {
            std::shared_ptr<tlm_bus::fault_wait> f;
            sc_time d = sc_core::SC_ZERO_TIME;
            st = i.mem.access(tlm::TLM_READ_COMMAND, 0x6000, &out, 4, d, &x, nullptr, &f);
            if (!f || f == placement)
                return f;
            while (!f->resolved)
                sc_core::wait(f->done);
        }
    };
    b.i0.body = [&](test::test_initiator& i) {
        CHECK(read_by(i, 3, v) == placement);
        CHECK(b.shared.walks() == 1);
        sc_core::wait(sc_time(100, SC_NS));
        placement->resolved = true;
        walks_before_replay = b.shared.walks();
        CHECK(read_by(i, 3, v) == nullptr); // the replay
        walks_after_replay = b.shared.walks();
        CHECK(st == tlm::TLM_OK_RESPONSE);
        read_by(i, 4, v2); // another warp: a new request, translated (a walk)
    };
    sc_core::sc_start();
    CHECK(b.violations() == 0);
    CHECK(v == 7);
    CHECK(v2 == 7);
    CHECK(asked == 3);
    CHECK(walks_after_replay == walks_before_replay);
    CHECK(b.shared.walks() == walks_after_replay + 1);
}
} // namespace

TEST_CASE("tlb, fast: the replay after a first-touch wait makes no second walk")
{
    touch_replay(false);
}

TEST_CASE("tlb, accurate: the replay after a first-touch wait makes no second walk")
{
    touch_replay(true);
}

namespace {
/// A second read of the warp at the VA, made while the first waits for the page's placement,
/// is a request of its own: it walks (the first's wait is not released yet), and each replay,
/// once the placement is decided, makes no walk. Taken by the second read, the first's wait
/// let it skip its walk.
void touch_wait_taken_by_its_replay(bool accurate)
{
    bench b(make_config(), accurate);
    b.map(0x5000, 0x20000, true, 7); // the table's nodes; 0x6000 has no leaf
    const auto placement = std::make_shared<tlm_bus::fault_wait>();
    placement->placement = true;
    placement->deadline_ps = ~std::uint64_t{0};
    b.t0.set_first_touch([&](std::uint64_t, int, std::uint64_t, bool) {
        return placement->resolved
                   ? tlb::tlb::touch_answer{page_table::encode(0x20000, true), nullptr}
                   : tlb::tlb::touch_answer{0, placement};
    });
    std::uint32_t v[2] = {};
    tlm::tlm_response_status st[2] = {tlm::TLM_INCOMPLETE_RESPONSE, tlm::TLM_INCOMPLETE_RESPONSE};
    std::uint64_t walks_second = 0, walks_before_replays = 0, walks_after_replays = 0;
    // A read by warp 3 at 0x6000, replayed while it is answered with a wait other than the
    // placement's (fast mode: a walk's); returns the placement's wait if it got that.
    const auto read = [&](test::test_initiator& i, int k) {
        auto x = ctx(0);
        x.kind = tlm_bus::access_kind::data;
        x.warp = 3;
        for (;;) {
            std::shared_ptr<tlm_bus::fault_wait> f;
            sc_time d = sc_core::SC_ZERO_TIME;
            st[k] = i.mem.access(tlm::TLM_READ_COMMAND, 0x6000, &v[k], 4, d, &x, nullptr, &f);
            if (!f || f == placement)
                return f;
            while (!f->resolved)
                sc_core::wait(f->done);
        }
    };
    b.i0.body = [&](test::test_initiator& i) {
        CHECK(read(i, 0) == placement);
        CHECK(b.shared.walks() == 1);
        sc_core::wait(sc_time(100, SC_NS)); // past the walk's end
        CHECK(read(i, 1) == placement);     // the second read, while the first waits
        walks_second = b.shared.walks();
        sc_core::wait(sc_time(100, SC_NS));
        placement->resolved = true;
        walks_before_replays = b.shared.walks();
        CHECK(read(i, 0) == nullptr); // the replays
        CHECK(read(i, 1) == nullptr);
        walks_after_replays = b.shared.walks();
    };
    sc_core::sc_start();
    CHECK(b.violations() == 0);
    CHECK(walks_second == 2);
    CHECK(walks_after_replays == walks_before_replays);
    CHECK(st[0] == tlm::TLM_OK_RESPONSE);
    CHECK(st[1] == tlm::TLM_OK_RESPONSE);
    CHECK(v[0] == 7);
    CHECK(v[1] == 7);
}
} // namespace

TEST_CASE("tlb, fast: a second read of the warp at the VA during a first-touch wait walks itself")
{
    touch_wait_taken_by_its_replay(false);
}

TEST_CASE("tlb, accurate: a second read of the warp at the VA during a first-touch wait walks "
          "itself")
{
    touch_wait_taken_by_its_replay(true);
}

namespace {
/// One walker: a miss on another page waits for the walk in progress.
void one_walker(bool accurate)
{
    bench b(make_config(1), accurate);
    b.map(0x5000, 0x20000, true, 1);
    b.map(0x9000, 0x30000, true, 2);
    double e0 = 0, e1 = 0;
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(read(i, 0x5000, d, 0) == 1);
        e0 = end_ns(d);
    };
    b.i1.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(read(i, 0x9000, d, 1) == 2);
        e1 = end_ns(d);
    };
    sc_core::sc_start();
    CHECK(b.violations() == 0);
    CHECK(b.shared.walks() == 2);
    // The first walk: 3 reads from 10 ns, then its data read, which takes the memory's port
    // at 41.5 for 0.25 ns. The second walk starts when the walker frees (41.5), finds the
    // leaf node in the page-walk cache, and its one PTE read waits for that port.
    const double walk1 = l2_hit_ns + 3 * pte_read_ns;
    const double first = walk1 + data_read_ns;
    const double second = walk1 + 0.25 + pte_read_ns + data_read_ns;
    CHECK(std::min(e0, e1) == Approx(first));
    CHECK(std::max(e0, e1) == Approx(second));
}
} // namespace

TEST_CASE("tlb, fast: with one walker, a miss on another page waits for the walk in progress")
{
    one_walker(false);
}

TEST_CASE("tlb, accurate: with one walker, a miss on another page waits for the walk in "
          "progress")
{
    one_walker(true);
}

// Fast mode, reads the SM can replay: a read that needs a walk is answered at once and replays
// at the walk's end with the walk's answer; a walk that waits for a walker runs when one is
// free, at its own time. The ends are accurate mode's above (one_walker), up to the order of
// the data read and the second walk's PTE read, which reach the memory's port at one instant.
TEST_CASE("tlb, fast: reads that wait for a walk replay at its end, and a walk runs at its time")
{
    bench b(make_config(1), false);
    b.map(0x5000, 0x20000, true, 1);
    b.map(0x9000, 0x30000, true, 2);
    double e[2] = {}, answered[2] = {-1, -1};
    unsigned waits = 0;
    const auto replaying_read = [&](test::test_initiator& i, std::uint64_t va, int sm) {
        auto x = ctx(sm);
        x.kind = tlm_bus::access_kind::data; // an SM's load: it can wait for a walk
        x.replayable = true;
        x.warp = 0;
        std::uint32_t v = 0;
        sc_time d = sc_core::SC_ZERO_TIME;
        std::shared_ptr<tlm_bus::fault_wait> f;
        i.mem.access(tlm::TLM_READ_COMMAND, va, &v, 4, d, &x, nullptr, &f);
        answered[sm] = end_ns(d);
        if (f) {
            REQUIRE(f->placement); // a wait, not a page fault
            ++waits;
            while (!f->resolved)
                sc_core::wait(f->done);
            d = sc_core::SC_ZERO_TIME;
            i.mem.access(tlm::TLM_READ_COMMAND, va, &v, 4, d, &x);
        }
        e[sm] = end_ns(d);
        return v;
    };
    b.i0.body = [&](test::test_initiator& i) { CHECK(replaying_read(i, 0x5000, 0) == 1); };
    b.i1.body = [&](test::test_initiator& i) { CHECK(replaying_read(i, 0x9000, 1) == 2); };
    sc_core::sc_start();
    CHECK(b.violations() == 0);
    CHECK(waits == 2);
    CHECK(answered[0] == Approx(0)); // answered at once, not forwarded with the walk's end
    CHECK(answered[1] == Approx(0));
    CHECK(b.shared.walks() == 2);
    CHECK(b.t0.translations() == 1); // the replay takes the walk's answer: no translation
    CHECK(b.t1.translations() == 1);
    const double walk1 = l2_hit_ns + 3 * pte_read_ns;
    CHECK(std::min(e[0], e[1]) == Approx(walk1 + data_read_ns).margin(0.5));
    CHECK(std::max(e[0], e[1]) == Approx(walk1 + pte_read_ns + data_read_ns).margin(0.5));
}

TEST_CASE("tlb: an absent page is an address error, a store to a read-only page a command error")
{
    bench b(make_config());
    b.map(0x5000, 0x20000, false, 3);
    tlm::tlm_response_status st[3] = {};
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        read(i, 0x5000, d, 0, &st[0]);
        read(i, 0x7000, d, 0, &st[1]);
        const auto e = ctx(0);
        std::uint32_t v = 5;
        st[2] = i.mem.access(tlm::TLM_WRITE_COMMAND, 0x5000, &v, 4, d, &e);
    };
    sc_core::sc_start();
    CHECK(b.violations() == 0);
    CHECK(st[0] == tlm::TLM_OK_RESPONSE);
    CHECK(st[1] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(st[2] == tlm::TLM_COMMAND_ERROR_RESPONSE); // the page refuses a write
    CHECK(b.t0.faults() == 2);
    std::uint32_t kept = 0;
    b.ram.store().read(0x20000, &kept, 4);
    CHECK(kept == 3); // the refused store changed nothing
}

TEST_CASE("tlb, ideal model: translation in zero time, no TLB traffic")
{
    bench b(make_config(8, tlb::model_kind::ideal));
    b.map(0x5000, 0x20000, true, 9);
    double end = 0;
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(read(i, 0x5000, d, 0) == 9);
        end = end_ns(d);
    };
    sc_core::sc_start();
    CHECK(end == Approx(data_read_ns));
    CHECK(b.shared.walks() == 0);
    CHECK(b.t0.array().misses() == 0);
}

TEST_CASE("tlb: debug accesses translate without side effects and are clipped to the page")
{
    bench b(make_config());
    b.map(0x5000, 0x20000, true, 0);
    std::uint8_t pattern[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    b.ram.store().write(0x20ff8, pattern, 8);
    unsigned n[3] = {};
    std::uint8_t buf[16] = {};
    b.i0.body = [&](test::test_initiator& i) {
        auto debug = [&](tlm::tlm_command cmd, std::uint64_t va, void* data, unsigned len) {
            tlm::tlm_generic_payload gp;
            gp.set_extension(new tlm_bus::gpu_extension(ctx(0)));
            gp.set_command(cmd);
            gp.set_address(va);
            gp.set_data_ptr(static_cast<unsigned char*>(data));
            gp.set_data_length(len);
            gp.set_streaming_width(len);
            return i.mem->transport_dbg(gp);
        };
        n[0] = debug(tlm::TLM_READ_COMMAND, 0x5ff8, buf, 16);
        std::uint32_t v = 0x55aa55aa;
        n[1] = debug(tlm::TLM_WRITE_COMMAND, 0x5010, &v, 4);
        n[2] = debug(tlm::TLM_READ_COMMAND, 0x9000, &v, 4);
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    };
    sc_core::sc_start();
    REQUIRE(b.i0.done);
    CHECK(b.violations() == 0);
    CHECK(n[0] == 8u); // the rest of the first page only
    CHECK(std::equal(pattern, pattern + 8, buf));
    CHECK(n[1] == 4u);
    std::uint32_t w = 0;
    b.ram.store().read(0x20010, &w, 4);
    CHECK(w == 0x55aa55aau);
    CHECK(n[2] == 0u); // not mapped
    CHECK(b.t0.translations() == 0);
    CHECK(b.t0.misses() == 0);
    CHECK(b.shared.walks() == 0);
    CHECK(b.ram.reads() + b.ram.writes() == 0);
}

TEST_CASE("tlb: a shootdown of a page makes its next access walk again, others stay")
{
    bench b(make_config());
    b.map(0x5000, 0x20000, true, 1);
    b.map(0x6000, 0x21000, true, 2);
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        read(i, 0x5000, d, 0);
        read(i, 0x6000, d, 0);
        CHECK(b.shared.walks() == 2);
        b.t0.invalidate(0x5000, 4096); // what the CP's TLB_INVALIDATE does, per TLB
        b.shared.invalidate(0x5000, 4096);
        read(i, 0x6000, d, 0); // still in the L1 TLB
        CHECK(b.shared.walks() == 2);
        read(i, 0x5000, d, 0); // gone from both levels: a new walk
        CHECK(b.shared.walks() == 3);
        b.t0.invalidate(0, 0); // every page
        b.shared.invalidate(0, 0);
        read(i, 0x6000, d, 0);
        CHECK(b.shared.walks() == 4);
    };
    sc_core::sc_start();
    REQUIRE(b.i0.done);
    CHECK(b.violations() == 0);
    CHECK(b.t0.array().hits() == 1);
}

namespace {
/// Stands for a fast-mode L1 between an L1 TLB and the memory: answers the first `refuse`
/// reads "every MSHR busy, replay at retry_ps" (as models/l1 does) and passes the others on,
/// recording the physical address of every request it sees.
struct retrier : sc_core::sc_module {
    tlm_utils::simple_target_socket<retrier> in{"in"};
    tlm_bus::initiator_port out{"out"};
    unsigned refuse = 1;
    std::vector<std::uint64_t> seen;

    explicit retrier(const sc_core::sc_module_name& n) : sc_module(n)
    {
        in.register_b_transport(this, &retrier::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        seen.push_back(gp.get_address());
        auto* x = gp.get_extension<tlm_bus::gpu_extension>();
        if (refuse > 0 && x) {
            --refuse;
            auto f = std::make_shared<tlm_bus::fault_wait>();
            f->resolved = true;
            f->retry_ps = (sc_core::sc_time_stamp() + delay).value() + 100000; // 100 ns on
            x->fault = std::move(f);
            gp.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        out->b_transport(gp, delay);
    }
};

/// One SM -> L1 TLB -> retrier -> memory; the walks go to the memory directly.
struct replay_bench {
    tlb::tlb_config cfg = make_config();
    tlb::cluster_tlb shared{"c0.tlb", cfg, clocks(false), page};
    test::test_initiator i0{"i0"};
    tlb::tlb t0{"t0", cfg, clocks(false), page, shared};
    retrier l1{"l1"};
    tlm_bus::router bus{"bus"};
    tlm_bus::memory ram{"ram", bench::params()};
    page_table::builder table{ptbr, page};
    tlm_bus::protocol_checker pc_in{"pc_in"}, pc_out{"pc_out"}, pc_l1{"pc_l1"}, pc_walk{"pc_walk"},
        pc_ram{"pc_ram"};

    replay_bench()
    {
        tlm_bus::bind_checked(i0.mem, pc_in, t0.in);
        tlm_bus::bind_checked(t0.out, pc_out, l1.in);
        tlm_bus::bind_checked(l1.out, pc_l1, bus.in);
        tlm_bus::bind_checked(t0.walk, pc_walk, bus.in);
        tlm_bus::bind_checked(bus.out, pc_ram, ram.in);
        bus.map({0, 1 << 20, 0, 0, "ram"});
    }
    void map(std::uint64_t va, std::uint64_t pa, std::uint32_t value)
    {
        table.map(va, page_table::encode(pa, true));
        for (const auto& [at, raw] : table.entries())
            ram.store().write(at, &raw, 8);
        ram.store().write(pa, &value, 4);
    }
    /// A read of va at d; `replay`: the SM's replay of a read answered with retry_ps.
    std::uint32_t read(test::test_initiator& i, std::uint64_t va, sc_time& d, bool replay)
    {
        auto e = ctx(0);
        e.kind = tlm_bus::access_kind::data; // an SM's load: it can wait for a walk
        e.replayable = true;
        e.replay = replay;
        std::uint32_t v = 0;
        std::shared_ptr<tlm_bus::fault_wait> f;
        i.mem.access(tlm::TLM_READ_COMMAND, va, &v, 4, d, &e, nullptr, &f);
        if (f && f->placement) {
            // Told to wait for its page's walk: replayed when the walk ends, as the SM does.
            sc_core::wait(d);
            while (!f->resolved)
                sc_core::wait(f->done);
            ++walk_waits;
            d = sc_core::SC_ZERO_TIME;
            i.mem.access(tlm::TLM_READ_COMMAND, va, &v, 4, d, &e);
        }
        return v;
    }
    unsigned walk_waits = 0; ///< reads told to wait for their page's walk, then replayed
    std::size_t violations() const
    {
        return pc_in.violations() + pc_out.violations() + pc_l1.violations() +
               pc_walk.violations() + pc_ram.violations();
    }
};
} // namespace

// A read the L1 cannot take yet is translated once: its replay goes below with the translation
// it had (no L1 TLB lookup, no count, no time), as accurate mode's request waits in the L1 with
// its physical address. A shootdown of the page drops the kept translation.
TEST_CASE("tlb, fast: the replay of a read the L1 could not take keeps its translation")
{
    replay_bench b;
    b.map(0x5000, 0x20000, 11);
    b.map(0x6000, 0x31000, 22);
    std::uint32_t v[4] = {};
    double replay_at = 0, replay_end = 0;
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        // Translated (a walk: the read waits for it and replays at its end, with the walk's
        // answer, not a second translation), then refused by the L1.
        b.read(i, 0x5000, d, false);
        CHECK(b.walk_waits == 1);
        CHECK(b.t0.translations() == 1);
        CHECK(b.shared.walks() == 1);
        sc_core::wait(sc_time(200, SC_NS));
        replay_at = ns(sc_core::sc_time_stamp());
        d = sc_core::SC_ZERO_TIME;
        v[0] = b.read(i, 0x5000, d, true); // the replay: no second translation
        replay_end = end_ns(d);
        CHECK(b.t0.translations() == 1);
        CHECK(b.t0.array().hits() + b.t0.array().misses() == 1);
        // A replay with no kept translation (none refused for that page) translates.
        v[1] = b.read(i, 0x6000, d, true);
        CHECK(b.t0.translations() == 2);
        // Refused again, then the page is shot down: the replay translates again (a walk).
        b.l1.refuse = 1;
        b.read(i, 0x5000, d, false);
        CHECK(b.t0.translations() == 3);
        b.t0.invalidate(0x5000, 4096);
        b.shared.invalidate(0x5000, 4096);
        const std::uint64_t walks = b.shared.walks();
        v[2] = b.read(i, 0x5000, d, true);
        CHECK(b.t0.translations() == 4);
        CHECK(b.shared.walks() == walks + 1);
        const unsigned waits = b.walk_waits;
        v[3] = b.read(i, 0x5000, d, false); // an L1 TLB hit: no wait
        CHECK(b.walk_waits == waits);
    };
    sc_core::sc_start();
    REQUIRE(b.i0.done);
    CHECK(b.violations() == 0);
    CHECK(v[0] == 11);
    CHECK(v[1] == 22);
    CHECK(v[2] == 11);
    CHECK(v[3] == 11);
    // The replay reads the frame at once: the data read alone.
    CHECK(replay_at > 200);
    CHECK(replay_end == Approx(replay_at + data_read_ns));
    REQUIRE(b.l1.seen.size() >= 2);
    CHECK(b.l1.seen[0] == 0x20000);
    CHECK(b.l1.seen[1] == 0x20000);
}

// ---- page faults: the TLB raises them, the fault unit holds the records, a host answers ----

namespace {

/// Two SMs (i0, i1) -> checker -> L1 TLB (each) -> router -> memory, as above, with a fault
/// unit behind every TLB, and a host initiator -> checker -> the fault unit's registers.
struct fault_bench : bench {
    tlb::fault_unit faults;
    test::test_initiator host{"host"};
    tlm_bus::protocol_checker pc_mmio{"pc_mmio"};
    sc_core::sc_signal<bool> irq{"fault_irq"};

    explicit fault_bench(unsigned capacity, bool accurate = false)
        : bench(make_config(8, tlb::model_kind::ideal), accurate),
          faults("faults", capacity, page, 1000000000)
    {
        tlm_bus::bind_checked(host.mem, pc_mmio, faults.mmio);
        faults.irq(irq);
        t0.set_fault_unit(&faults);
        t1.set_fault_unit(&faults);
    }
    std::uint32_t reg(std::uint64_t off, sc_time& d)
    {
        return host.read32(off, d); // the host is bound to the window directly
    }
    tlm::tlm_response_status set(std::uint64_t off, std::uint32_t v, sc_time& d)
    {
        return host.write32(off, v, d);
    }
};

/// Reads va as SM `sm` until it succeeds, waiting for the host's answer after each fault;
/// returns the value and counts the faults.
std::uint32_t read_replaying(test::test_initiator& i, std::uint64_t va, int sm, unsigned& faults,
                             const char** fatal = nullptr)
{
    for (;;) {
        sc_time d = sc_core::SC_ZERO_TIME;
        const auto e = ctx(sm);
        std::uint32_t v = 0;
        std::shared_ptr<tlm_bus::fault_wait> f;
        const auto s = i.mem.access(tlm::TLM_READ_COMMAND, va, &v, 4, d, &e, nullptr, &f);
        if (s == tlm::TLM_OK_RESPONSE)
            return v;
        REQUIRE(f);
        ++faults;
        while (!f->resolved)
            sc_core::wait(f->done);
        if (f->fatal) {
            if (fatal)
                *fatal = f->fatal;
            return 0;
        }
    }
}

} // namespace

/// Two SMs fault on one page; the host reads the one record, maps the page and answers it.
void one_record_two_replays(bool accurate)
{
    {
        fault_bench b(4, accurate);
        unsigned f0 = 0, f1 = 0;
        std::uint32_t v0 = 0, v1 = 0;
        b.i0.body = [&](test::test_initiator& i) { v0 = read_replaying(i, 0x400000, 0, f0); };
        b.i1.body = [&](test::test_initiator& i) {
            sc_core::wait(5, SC_NS);
            v1 = read_replaying(i, 0x400010, 1, f1);
        };
        std::vector<std::uint32_t> seen;
        b.host.body = [&](test::test_initiator&) {
            sc_time d;
            REQUIRE(b.set(tlb::fault_reg::IRQ_ENABLE, 1, d) == tlm::TLM_OK_RESPONSE);
            sc_core::wait(b.irq.posedge_event());
            sc_core::wait(20, SC_NS); // the second SM's fault joins the pending record
            d = sc_core::SC_ZERO_TIME;
            seen = {b.reg(tlb::fault_reg::COUNT, d), b.reg(tlb::fault_reg::VA_LO, d),
                    b.reg(tlb::fault_reg::SM, d), b.reg(tlb::fault_reg::INFO, d)};
            REQUIRE(b.set(tlb::fault_reg::POP, 1, d) == tlm::TLM_OK_RESPONSE);
            CHECK(b.reg(tlb::fault_reg::COUNT, d) == 0);
            CHECK(b.set(tlb::fault_reg::POP, 1, d) == tlm::TLM_COMMAND_ERROR_RESPONSE);
            // The host maps the page (frame 0x20000, value 77) and answers it.
            b.map(0x400000, 0x20000, true, 77);
            b.set(tlb::fault_reg::ACK_VA_LO, 0x400abc, d);
            b.set(tlb::fault_reg::ACK_VA_HI, 0, d);
            CHECK(b.set(tlb::fault_reg::ACK, 1, d) == tlm::TLM_OK_RESPONSE);
            // A second answer for the page: nothing is pending any more.
            CHECK(b.set(tlb::fault_reg::ACK, 1, d) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        };
        // The rest of the page table exists; the page is not present until the host maps it.
        b.map(0x200000, 0x10000, true, 1);
        sc_core::sc_start();
        REQUIRE(seen.size() == 4);
        CHECK(seen[0] == 1);        // one record for the page
        CHECK(seen[1] == 0x400000); // the first fault's VA
        CHECK(seen[2] == 0);        // from SM 0
        CHECK(seen[3] == 0);        // a load, page not present
        CHECK(f0 == 1);
        CHECK(f1 == 1);
        CHECK(v0 == 77);
        std::uint32_t at16 = 0;
        b.ram.store().read(0x20010, &at16, 4);
        CHECK(v1 == at16);
        CHECK(b.faults.faults() == 2);
        CHECK(b.faults.records() == 1);
        CHECK(b.faults.answered() == 1);
        CHECK(b.t0.translations() == 2); // the fault and its replay
        CHECK(b.violations() + b.pc_mmio.violations() == 0);
    }
}

TEST_CASE("fault unit, fast: two SMs faulting on one page make one record, and the answer replays "
          "both")
{
    one_record_two_replays(false);
}

TEST_CASE("fault unit, accurate: two SMs faulting on one page make one record, and the answer "
          "replays both")
{
    one_record_two_replays(true);
}

TEST_CASE("fault unit: records beyond the buffer wait in order, and a refusal fails the access")
{
    fault_bench b(1);
    unsigned f0 = 0, f1 = 0;
    const char* why0 = nullptr;
    const char* why1 = nullptr;
    b.i0.body = [&](test::test_initiator& i) { read_replaying(i, 0x400000, 0, f0, &why0); };
    b.i1.body = [&](test::test_initiator& i) {
        sc_core::wait(1, SC_NS);
        read_replaying(i, 0x401000, 1, f1, &why1);
    };
    std::vector<std::uint32_t> vas, overflows;
    b.host.body = [&](test::test_initiator&) {
        sc_time d;
        b.set(tlb::fault_reg::IRQ_ENABLE, 1, d);
        for (int k = 0; k < 2; ++k) {
            if (!b.irq.read())
                sc_core::wait(b.irq.posedge_event());
            sc_core::wait(10, SC_NS);
            d = sc_core::SC_ZERO_TIME;
            CHECK(b.reg(tlb::fault_reg::COUNT, d) == 1); // capacity 1
            overflows.push_back(b.reg(tlb::fault_reg::OVERFLOWS, d));
            vas.push_back(b.reg(tlb::fault_reg::VA_LO, d));
            b.set(tlb::fault_reg::POP, 1, d);
            b.set(tlb::fault_reg::ACK_VA_LO, vas.back(), d);
            b.set(tlb::fault_reg::ACK_REASON,
                  static_cast<std::uint32_t>(tlb::fault_reason::read_only), d);
            b.set(tlb::fault_reg::ACK, 2, d);
            sc_core::wait(d);
        }
    };
    b.map(0x200000, 0x10000, true, 1);
    sc_core::sc_start();
    CHECK(vas == std::vector<std::uint32_t>{0x400000, 0x401000});
    CHECK(overflows == std::vector<std::uint32_t>{1, 1});
    CHECK(std::string(why0 ? why0 : "") == "read-only");
    CHECK(std::string(why1 ? why1 : "") == "read-only");
    CHECK(b.violations() + b.pc_mmio.violations() == 0);
}

TEST_CASE("fault unit: records carry their type, a protection fault replays once the host makes "
          "the page writable, an other exception fails with the host's refusal")
{
    fault_bench b(4);
    // SM 0: a read across a page boundary (an other exception); SM 1, 5 ns later: a store to a
    // present page that is not writable (a protection fault, as on a copy-on-write page).
    tlm::tlm_response_status st0 = tlm::TLM_OK_RESPONSE, st1 = tlm::TLM_OK_RESPONSE;
    const char* why0 = nullptr;
    bool f1_fatal = true;
    unsigned replays1 = 0;
    b.i0.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        const auto e = ctx(0);
        std::uint64_t v = 0;
        std::shared_ptr<tlm_bus::fault_wait> f;
        st0 = i.mem.access(tlm::TLM_READ_COMMAND, 0x200ffc, &v, 8, d, &e, nullptr, &f);
        REQUIRE(f);
        while (!f->resolved)
            sc_core::wait(f->done);
        why0 = f->fatal;
    };
    b.i1.body = [&](test::test_initiator& i) {
        sc_core::wait(5, SC_NS);
        for (;;) {
            sc_time d = sc_core::SC_ZERO_TIME;
            const auto e = ctx(1);
            std::uint32_t v = 42;
            std::shared_ptr<tlm_bus::fault_wait> f;
            const auto s =
                i.mem.access(tlm::TLM_WRITE_COMMAND, 0x300010, &v, 4, d, &e, nullptr, &f);
            if (s == tlm::TLM_OK_RESPONSE)
                break;
            st1 = s;
            REQUIRE(f);
            ++replays1;
            while (!f->resolved)
                sc_core::wait(f->done);
            f1_fatal = f->fatal != nullptr;
            if (f1_fatal)
                break;
        }
    };
    std::vector<std::uint32_t> info, vas;
    b.host.body = [&](test::test_initiator&) {
        sc_time d;
        b.set(tlb::fault_reg::IRQ_ENABLE, 1, d);
        sc_core::wait(b.irq.posedge_event());
        sc_core::wait(50, SC_NS); // both records are in
        d = sc_core::SC_ZERO_TIME;
        const std::uint32_t n = b.reg(tlb::fault_reg::COUNT, d);
        for (std::uint32_t k = 0; k < n; ++k) {
            vas.push_back(b.reg(tlb::fault_reg::VA_LO, d));
            info.push_back(b.reg(tlb::fault_reg::INFO, d));
            b.set(tlb::fault_reg::POP, 1, d);
        }
        for (std::size_t k = 0; k < vas.size(); ++k) {
            const auto type = static_cast<tlb::fault_type>((info[k] & tlb::fault_info::TYPE) >>
                                                           tlb::fault_info::TYPE_SHIFT);
            b.set(tlb::fault_reg::ACK_VA_LO, vas[k], d);
            b.set(tlb::fault_reg::ACK_VA_HI, 0, d);
            if (type == tlb::fault_type::other) { // the other-exception branch: refused
                b.set(tlb::fault_reg::ACK_REASON,
                      static_cast<std::uint32_t>(tlb::fault_reason::not_a_fault), d);
                CHECK(b.set(tlb::fault_reg::ACK, 2, d) == tlm::TLM_OK_RESPONSE);
            } else { // copy-on-write resolved: the page writable now
                b.map(0x300000, 0x30000, true, 0);
                b.t1.invalidate(0x300000, page); // the shootdown (CP TLB_INVALIDATE)
                b.shared.invalidate(0x300000, page);
                CHECK(b.set(tlb::fault_reg::ACK, 1, d) == tlm::TLM_OK_RESPONSE);
            }
        }
    };
    b.map(0x200000, 0x10000, true, 1);
    b.map(0x201000, 0x11000, true, 2);
    b.map(0x300000, 0x30000, false, 7); // present, not writable
    sc_core::sc_start();
    REQUIRE(vas.size() == 2);
    CHECK(vas[0] == 0x200ffc);
    CHECK(info[0] == (static_cast<std::uint32_t>(tlb::fault_type::other) << 8 |
                      static_cast<std::uint32_t>(tlb::fault_access::load)));
    CHECK(vas[1] == 0x300010);
    CHECK(info[1] == (static_cast<std::uint32_t>(tlb::fault_type::protection) << 8 |
                      static_cast<std::uint32_t>(tlb::fault_access::store)));
    CHECK(st0 == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(std::string(why0 ? why0 : "") == "not a page fault");
    CHECK(st1 == tlm::TLM_COMMAND_ERROR_RESPONSE); // what the first attempt saw
    CHECK(replays1 == 1);
    CHECK_FALSE(f1_fatal);
    std::uint32_t stored = 0;
    b.ram.store().read(0x30010, &stored, 4);
    CHECK(stored == 42); // the replay wrote
    CHECK(b.faults.records() == 2);
    CHECK(b.faults.answered() == 2);
}

// A replay takes only a walk wait already released: a second read of the warp at the VA, made
// while the first waits, took the first's wait before its walk had run (PTE 0: a false page
// fault; stencil with the timed TLB in fast mode made 67 fault records, accurate mode none).
TEST_CASE("fast mode: a second read of one warp at one VA while the first waits for its walk "
          "waits too")
{
    bench b(make_config(), false);
    b.map(0x5000, 0x20000, true, 7); // present
    tlm::tlm_response_status s[2] = {tlm::TLM_INCOMPLETE_RESPONSE, tlm::TLM_INCOMPLETE_RESPONSE};
    std::shared_ptr<tlm_bus::fault_wait> f[2];
    std::uint32_t v[2] = {};
    b.i0.body = [&](test::test_initiator& i) {
        auto x = ctx(0);
        x.kind = tlm_bus::access_kind::data;
        x.warp = 3;
        for (int k = 0; k < 2; ++k) {
            sc_time d = sc_core::SC_ZERO_TIME;
            s[k] = i.mem.access(tlm::TLM_READ_COMMAND, 0x5000, &v[k], 4, d, &x, nullptr, &f[k]);
        }
    };
    sc_core::sc_start();
    INFO("first: status " << s[0] << " wait " << (f[0] != nullptr));
    INFO("second: status " << s[1] << " wait " << (f[1] != nullptr) << " value " << v[1]);
    CHECK(f[0] != nullptr);
    // The second read must wait for the walk too (or read 7): never an error without a wait.
    CHECK((f[1] != nullptr || (s[1] == tlm::TLM_OK_RESPONSE && v[1] == 7)));
    CHECK(b.t0.faults() == 0);
}

namespace {
/// A walk queued (fast mode, a read that can wait) in context 1 runs after the cluster switched
/// to context 2 (another page table): with the page-walk cache on, context 1's read is answered
/// from context 2's table; with it off, context 1's result enters context 2's L2 TLB.
void queued_walk_across_contexts(unsigned pwc)
{
    auto cfg = make_config();
    cfg.pwc_entries = pwc;
    bench b(cfg, false);
    b.map(0x5000, 0x20000, true, 1); // context 1 (ptbr 0x1000): 0x5000 -> frame 0x20000 (1)
    page_table::builder table2{0x60000, page}; // context 2: 0x5000 -> frame 0x30000 (2)
    table2.map(0x5000, page_table::encode(0x30000, true));
    table2.map(0x9000, page_table::encode(0x31000, true));
    for (const auto& [at, raw] : table2.entries())
        b.ram.store().write(at, &raw, 8);
    const std::uint32_t two = 2;
    b.ram.store().write(0x30000, &two, 4);
    std::uint32_t v1 = 0, v2 = 0;
    b.i0.body = [&](test::test_initiator& i) {
        auto x = ctx(0);
        x.kind = tlm_bus::access_kind::data; // can wait: its walk is queued at its time
        std::shared_ptr<tlm_bus::fault_wait> f;
        sc_time d(50, SC_NS);
        i.mem.access(tlm::TLM_READ_COMMAND, 0x5000, &v1, 4, d, &x, nullptr, &f);
        REQUIRE(f);
        while (!f->resolved)
            sc_core::wait(f->done);
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x5000, &v1, 4, d, &x); // the replay
    };
    b.i1.body = [&](test::test_initiator& i) {
        auto x = ctx(1);
        x.ptbr = table2.root();
        x.epoch = 2;
        x.kind = tlm_bus::access_kind::other; // cannot wait
        std::uint32_t v = 0;
        sc_core::wait(sc_time(1, SC_NS)); // after i0's request, before its walk runs
        sc_time d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x9000, &v, 4, d, &x); // context 2: a flush
        sc_core::wait(sc_time(300, SC_NS));
        d = sc_core::SC_ZERO_TIME;
        i.mem.access(tlm::TLM_READ_COMMAND, 0x5000, &v2, 4, d, &x);
    };
    sc_core::sc_start();
    CHECK(v1 == 1); // context 1's frame
    CHECK(v2 == 2); // context 2's frame
}
} // namespace
TEST_CASE("fast mode: a walk queued before a context change runs in its own context with the "
          "page-walk cache")
{
    queued_walk_across_contexts(16);
}
TEST_CASE("fast mode: a walk queued before a context change runs in its own context without "
          "the page-walk cache")
{
    queued_walk_across_contexts(0);
}
