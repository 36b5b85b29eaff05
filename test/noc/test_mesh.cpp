// Shell tests of noc::mesh: unloaded latency per hop in both modes, a busy link serialises,
// debug transport and DMI, and a scoreboard of random traffic against full buffers (no loss,
// no duplicate, no deadlock). See models/noc/README.md ("Mesh topology").
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn, before the first <systemc>
#include "models/noc/interconnect.h"
#include "models/noc/mesh.h"
#include "test/seed.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr std::uint64_t window = 0x10000; ///< output o serves [o window, (o + 1) window)

clock_params clocks(bool accurate)
{
    clock_params c;
    c.accurate = accurate;
    c.noc_ps = 1000;
    return c;
}

/// Module-NoC path of the tests: 2-cycle request hops, 1-cycle response hops, 32-byte request
/// and 16-byte response links (different, so a swap shows), headers of one flit.
noc::path_params mesh_path(unsigned columns = 0, unsigned rows = 0, unsigned depth = 4)
{
    noc::path_params p{32, 16, 2, 1, 0};
    p.topology = noc::topology_kind::mesh;
    p.mesh_columns = columns;
    p.mesh_rows = rows;
    p.mesh_buffer_depth = depth;
    return p;
}

tlm_bus::memory_params mem_params(bool dmi)
{
    tlm_bus::memory_params p;
    p.size = 64 * window;
    p.latency = sc_time(10, SC_NS);
    p.bytes_per_ns = 1e9; // no transfer time: only the mesh is measured
    p.dmi = dmi;
    return p;
}

/// Output `o` of the route: address window o; beyond the last window: unmapped.
noc::route_fn window_route(unsigned outputs)
{
    return [outputs](const tlm::tlm_generic_payload& gp) {
        const std::uint64_t o = gp.get_address() / window;
        return o < outputs ? static_cast<int>(o) : -1;
    };
}

/// Dumped statistics by name.
std::map<std::string, double> stats_by_name()
{
    std::map<std::string, double> m;
    for (const auto& e : stats::collect_all())
        if (e.value.is_number())
            m[e.name] = e.value.get<double>();
    return m;
}

/// n test initiators -> checkers -> mesh -> checkers -> n memories (output o = window o).
struct bench {
    std::vector<std::unique_ptr<test::test_initiator>> ini;
    std::vector<std::unique_ptr<tlm_bus::protocol_checker>> pc;
    std::unique_ptr<noc::interconnect> net;
    std::vector<std::unique_ptr<tlm_bus::memory>> mem;
    bench(unsigned n, bool accurate, const noc::path_params& path, bool dmi = false,
          noc::noc_config cfg = {})
    {
        cfg.topology = noc::topology_kind::mesh;
        net = noc::make_interconnect("mesh", cfg, clocks(accurate), path);
        for (unsigned k = 0; k < n; ++k) {
            ini.push_back(
                std::make_unique<test::test_initiator>(("i" + std::to_string(k)).c_str()));
            ini.back()->body = [](test::test_initiator&) {};
            pc.push_back(
                std::make_unique<tlm_bus::protocol_checker>(("pc_i" + std::to_string(k)).c_str()));
            tlm_bus::bind_checked(ini.back()->mem, *pc.back(), net->in);
        }
        for (unsigned k = 0; k < n; ++k) {
            mem.push_back(std::make_unique<tlm_bus::memory>(("m" + std::to_string(k)).c_str(),
                                                            mem_params(dmi)));
            pc.push_back(
                std::make_unique<tlm_bus::protocol_checker>(("pc_m" + std::to_string(k)).c_str()));
            tlm_bus::bind_checked(net->out, *pc.back(), mem.back()->in);
        }
        net->set_route(window_route(n));
    }
    noc::mesh& m() { return dynamic_cast<noc::mesh&>(*net); }
    std::size_t violations() const
    {
        std::size_t v = 0;
        for (const auto& p : pc)
            v += p->violations();
        return v;
    }
};

/// Routers a packet passes through from (xa, ya) to (xb, yb): Manhattan distance + 1.
unsigned routers_between(int xa, int ya, int xb, int yb)
{
    return static_cast<unsigned>(std::abs(xa - xb) + std::abs(ya - yb)) + 1;
}

/// Unloaded time of a transaction, from the path's numbers (1 ns NoC cycle, memory 10 ns).
unsigned expected_ns(unsigned routers, unsigned request_bytes, unsigned response_bytes)
{
    auto flits = [](unsigned bytes, unsigned width) {
        return (std::max(bytes, 8u) + width - 1) / width;
    };
    return routers * (2 + flits(request_bytes, 32)) + 10 +
           routers * (1 + flits(response_bytes, 16));
}

/// Input 0 (router r0_0 of a 2 x 2 mesh) reads and writes each output alone: latency per hop.
void unloaded_case(bool accurate)
{
    if (accurate)
        tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    bench tb(4, accurate, mesh_path());
    // Outputs from the last router backwards: o at router 3 - o, (x, y) = ((3-o) % 2, (3-o) / 2).
    std::vector<unsigned> got_write(4), got_read(4), want_write(4), want_read(4);
    for (unsigned o = 0; o < 4; ++o) {
        const int r = 3 - static_cast<int>(o);
        const unsigned routers = routers_between(0, 0, r % 2, r / 2);
        want_write[o] = expected_ns(routers, 64, 0); // data out, an acknowledgement flit back
        want_read[o] = expected_ns(routers, 0, 64);  // a header flit out, data back
    }
    tb.ini[0]->body = [&](test::test_initiator& i) {
        std::uint8_t line[64];
        for (unsigned o = 0; o < 4; ++o) {
            for (unsigned k = 0; k < 64; ++k)
                line[k] = static_cast<std::uint8_t>(o * 64 + k);
            sc_time d = sc_core::SC_ZERO_TIME;
            sc_time start = sc_core::sc_time_stamp();
            CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, o * window + 0x40, line, 64, d) ==
                  tlm::TLM_OK_RESPONSE);
            got_write[o] = static_cast<unsigned>(
                (sc_core::sc_time_stamp() + d - start).to_seconds() * 1e9 + 0.5);
            sc_core::wait(d + sc_time(100, SC_NS)); // let every resource drain
            d = sc_core::SC_ZERO_TIME;
            start = sc_core::sc_time_stamp();
            std::uint8_t back[64] = {};
            CHECK(i.mem.access(tlm::TLM_READ_COMMAND, o * window + 0x40, back, 64, d) ==
                  tlm::TLM_OK_RESPONSE);
            got_read[o] = static_cast<unsigned>(
                (sc_core::sc_time_stamp() + d - start).to_seconds() * 1e9 + 0.5);
            CHECK(std::memcmp(back, line, 64) == 0);
            sc_core::wait(d + sc_time(100, SC_NS));
        }
    };
    sc_core::sc_start();
    REQUIRE(tb.ini[0]->done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.m().geometry().columns() == 2);
    CHECK(tb.m().geometry().rows() == 2);
    for (unsigned o = 0; o < 4; ++o) {
        INFO("output " << o);
        CHECK(got_write[o] == want_write[o]);
        CHECK(got_read[o] == want_read[o]);
    }
    CHECK(want_write[0] == 3 * (2 + 2) + 10 + 3 * (1 + 1)); // the far corner, spelled out
    CHECK(want_read[3] == 1 * (2 + 1) + 10 + 1 * (1 + 4));  // the same router
    auto s = stats_by_name();
    CHECK(s["mesh.requests"] == 8);
    CHECK(s["mesh.hops"] == Approx((3 + 2 + 2 + 1) / 4.0));
    CHECK(s["mesh.r0_0.east.grants"] == 4);  // to outputs 0 and 2 (x = 1), write and read
    CHECK(s["mesh.r1_0.south.grants"] == 2); // to output 0 only
    CHECK(s["mesh.r0_0.south.grants"] == 2); // to output 1
    // Responses route X first too: output 0 (r1_1) goes west, then north at r0_1.
    CHECK(s["mesh.r1_1.rsp_west.grants"] == 2);
    CHECK(s["mesh.r0_1.rsp_north.grants"] == 4); // outputs 0 and 1
    CHECK(s["mesh.m0.grants"] == 0);             // a memory is not a mesh port
    CHECK(s["mesh.out0.grants"] == 2);           // output 0's ejection port
    CHECK(s["mesh.in0.grants"] == 8);            // every response to input 0
}

} // namespace

TEST_CASE("mesh config: topology mesh, grid and buffer keys, and their ranges")
{
    struct root {
        noc::noc_config noc;
        void declare(config::visitor& v) { v.section("noc", noc, "NoC"); }
        void validate(config::checker& c) const { noc.validate(c); }
    } r;
    auto load = [](root& x, const std::string& yaml) {
        config::loader l;
        l.add_text(yaml, "t.yaml");
        l.apply(x);
        return l.errs().messages();
    };
    CHECK(r.noc.mesh_buffer_depth == 4);
    CHECK(r.noc.module_noc().topology == noc::topology_kind::crossbar);
    REQUIRE(load(r, "noc: {topology: mesh, mesh_columns: 8, mesh_rows: 4, mesh_buffer_depth: 2}")
                .empty());
    CHECK(r.noc.module_noc().topology == noc::topology_kind::mesh);
    CHECK(r.noc.module_noc().mesh_columns == 8);
    CHECK(r.noc.module_noc().mesh_rows == 4);
    CHECK(r.noc.module_noc().mesh_buffer_depth == 2);
    CHECK(r.noc.cluster_xbar().topology == noc::topology_kind::crossbar); // crossbars stay
    root bad;
    CHECK(load(bad, "noc: {mesh_buffer_depth: 0, mesh_columns: 300, topology: ring}").size() == 3);
}

TEST_CASE("make_interconnect: the module NoC becomes a mesh, a cluster crossbar stays one")
{
    noc::noc_config cfg;
    cfg.topology = noc::topology_kind::mesh;
    auto n = noc::make_interconnect("noc", cfg, clocks(false), cfg.module_noc());
    auto x = noc::make_interconnect("xbar", cfg, clocks(false), cfg.cluster_xbar());
    CHECK(dynamic_cast<noc::mesh*>(n.get()) != nullptr);
    CHECK(dynamic_cast<noc::mesh*>(x.get()) == nullptr);
}

TEST_CASE("mesh fast mode: unloaded read and write latency = routers x (hop + flits), both ways")
{
    unloaded_case(false);
}

TEST_CASE("mesh accurate mode: unloaded read and write latency = routers x (hop + flits)")
{
    unloaded_case(true);
}

/// A 3 x 1 mesh; inputs 0 and 3 share router r0_0, output 0 is at r2_0. Both write 64 bytes at
/// 0 ns: the link r0_0.east carries one at a time, so the second finishes 2 cycles later.
void contention_case(bool accurate)
{
    if (accurate)
        tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    bench tb(4, accurate, mesh_path(3, 1));
    std::vector<unsigned> done;
    for (unsigned k : {0u, 3u})
        tb.ini[k]->body = [&](test::test_initiator& i) {
            std::uint8_t line[64] = {};
            sc_time d = sc_core::SC_ZERO_TIME;
            CHECK(i.mem.access(tlm::TLM_WRITE_COMMAND, 0x80, line, 64, d) == tlm::TLM_OK_RESPONSE);
            done.push_back(
                static_cast<unsigned>((sc_core::sc_time_stamp() + d).to_seconds() * 1e9 + 0.5));
        };
    sc_core::sc_start();
    REQUIRE(tb.ini[0]->done);
    REQUIRE(tb.ini[3]->done);
    REQUIRE(tb.violations() == 0);
    REQUIRE(done.size() == 2);
    std::sort(done.begin(), done.end());
    const unsigned alone = expected_ns(3, 64, 0);
    CHECK(alone == 3 * (2 + 2) + 10 + 3 * (1 + 1));
    CHECK(done[0] == alone);
    CHECK(done[1] == alone + 2); // behind the first one's two cycles on r0_0.east
    auto s = stats_by_name();
    CHECK(s["mesh.r0_0.east.grants"] == 2);
    CHECK(s["mesh.r0_0.east.busy_cycles"] == 4);
    CHECK(s["mesh.r0_0.east.wait.max"] == Approx(2));
    CHECK(s["mesh.r1_0.east.wait.max"] == Approx(0)); // serialised once, no further waits
    CHECK(tb.m().geometry().input_router(3) == 0);
    CHECK(tb.m().geometry().input_slot(3) == 1);
}

TEST_CASE("mesh fast mode: two packets on one link are serialised by its bandwidth")
{
    contention_case(false);
}

TEST_CASE("mesh accurate mode: two packets on one link are granted one after the other")
{
    contention_case(true);
}

TEST_CASE("mesh: debug transport, unmapped addresses, DMI with the unloaded path's latency")
{
    bench tb(4, false, mesh_path(), true);
    tb.ini[0]->mem.set_dmi_enabled(true);
    tb.ini[0]->body = [&](test::test_initiator& i) {
        std::uint32_t v = 0xcafe;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 2 * window + 0x20, &v, 4) == 4u);
        v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 2 * window + 0x20, &v, 4) == 4u);
        CHECK(v == 0xcafeu);
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 4 * window, &v, 4) == 0u); // unmapped
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
        sc_time d = sc_core::SC_ZERO_TIME;
        tlm::tlm_response_status st = tlm::TLM_OK_RESPONSE;
        i.read32(4 * window + 8, d, &st);
        CHECK(st == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x40, d) == 0u); // output 0 (r1_1) grants DMI for the next access
        d = sc_core::SC_ZERO_TIME;
        CHECK(i.read32(0x44, d) == 0u);
        CHECK(i.mem.dmi_accesses() == 1);
        // Three routers each way, one flit each: 3 x (2 + 1) + 10 + 3 x (1 + 1).
        CHECK(d == sc_time(3 * (2 + 1) + 10 + 3 * (1 + 1), SC_NS));
        tb.mem[0]->invalidate_dmi();
        d = sc_core::SC_ZERO_TIME;
        i.read32(0x44, d);
        CHECK(i.mem.transactions() == 3); // back through b_transport after the invalidation
    };
    sc_core::sc_start();
    REQUIRE(tb.ini[0]->done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.m().unmapped() == 1);
    CHECK(tb.ini[1]->mem.dmi_invalidations() == 1);       // invalidations reach every input
    CHECK(tb.mem[2]->reads() + tb.mem[2]->writes() == 0); // debug accesses only
}

namespace {

/// A target that keeps data and records every write it receives by its tag (the first 8
/// bytes: initiator, thread and sequence number), so a duplicate or a misrouted packet shows.
struct scoreboard_target : sc_core::sc_module {
    tlm_utils::simple_target_socket<scoreboard_target> in{"in"};
    unsigned index = 0;
    std::vector<std::uint8_t> data = std::vector<std::uint8_t>(window, 0);
    std::set<std::uint64_t> tags;
    std::uint64_t writes = 0, reads = 0, duplicates = 0, misrouted = 0;
    std::mt19937 latency_rng;
    scoreboard_target(const sc_core::sc_module_name& n, unsigned idx, std::uint64_t seed)
        : sc_module(n), index(idx), latency_rng(static_cast<std::uint32_t>(seed))
    {
        in.register_b_transport(this, &scoreboard_target::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        const std::uint64_t a = gp.get_address();
        if (a / window != index || a % window + gp.get_data_length() > window) {
            ++misrouted;
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        std::uint8_t* p = &data[a % window];
        if (gp.is_write()) {
            std::uint64_t tag;
            std::memcpy(&tag, gp.get_data_ptr(), 8);
            if (!tags.insert(tag).second)
                ++duplicates;
            std::memcpy(p, gp.get_data_ptr(), gp.get_data_length());
            ++writes;
        } else {
            std::memcpy(gp.get_data_ptr(), p, gp.get_data_length());
            ++reads;
        }
        delay += sc_time(1 + latency_rng() % 8, SC_NS);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

/// An initiator socket driven by several threads at once (each with its own payloads).
struct multi_initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<multi_initiator> mem{"mem"};
    explicit multi_initiator(const sc_core::sc_module_name& n) : sc_module(n) {}
};

} // namespace

TEST_CASE("mesh scoreboard: random reads and writes on a 4 x 4 mesh with one-packet buffers "
          "lose nothing, duplicate nothing and finish (XY routing does not deadlock)")
{
    const std::uint64_t seed = vgpu::test::seed_or(20240601);
    std::cout << "mesh scoreboard: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    tlm::tlm_global_quantum::instance().set(sc_core::SC_ZERO_TIME);
    constexpr unsigned n = 16, threads = 6, ops = 120, len = 64;
    // A slot per (initiator, thread) in every target: the last write to it is known, so every
    // read is checked while all threads run at once.
    constexpr unsigned slot = window / (n * threads) / len * len;
    static_assert(slot >= len, "one line per slot at least");
    noc::noc_config cfg;
    cfg.topology = noc::topology_kind::mesh;
    cfg.arbiter = noc::arbiter_kind::barrier_aware;
    cfg.max_wait_cycles = 64;
    auto net = noc::make_interconnect("mesh", cfg, clocks(true), mesh_path(0, 0, 1));
    std::vector<std::unique_ptr<multi_initiator>> ini;
    std::vector<std::unique_ptr<scoreboard_target>> tgt;
    for (unsigned k = 0; k < n; ++k) {
        ini.push_back(std::make_unique<multi_initiator>(("i" + std::to_string(k)).c_str()));
        ini.back()->mem.bind(net->in);
    }
    for (unsigned k = 0; k < n; ++k) {
        tgt.push_back(std::make_unique<scoreboard_target>(("t" + std::to_string(k)).c_str(), k,
                                                          seed + 1000 + k));
        net->out.bind(tgt.back()->in);
    }
    net->set_route(window_route(n));
    // Reference: what each thread last wrote to each target's slot; writes sent per target.
    std::vector<std::vector<std::uint8_t>> ref(n * threads * n, std::vector<std::uint8_t>(len, 0));
    std::vector<std::uint64_t> sent_writes(n, 0), sent_reads(n, 0);
    unsigned finished = 0, bad_reads = 0, errors = 0;
    for (unsigned k = 0; k < n; ++k)
        for (unsigned t = 0; t < threads; ++t)
            sc_core::sc_spawn([&, k, t] {
                std::mt19937_64 rng(seed * 7919 + k * threads + t);
                tlm_bus::gpu_extension ext;
                for (unsigned q = 0; q < ops; ++q) {
                    const unsigned target = static_cast<unsigned>(rng() % n);
                    auto& mine = ref[(k * threads + t) * n + target];
                    const std::uint64_t addr =
                        target * window + (k * threads + t) * static_cast<std::uint64_t>(slot);
                    std::uint8_t buf[len];
                    tlm::tlm_generic_payload gp;
                    const bool write = rng() % 2;
                    if (write) {
                        const std::uint64_t tag =
                            (std::uint64_t{k} << 48) | (std::uint64_t{t} << 32) | q;
                        std::memcpy(buf, &tag, 8);
                        for (unsigned b = 8; b < len; ++b)
                            buf[b] = static_cast<std::uint8_t>(rng());
                    }
                    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
                    gp.set_address(addr);
                    gp.set_data_ptr(buf);
                    gp.set_data_length(len);
                    gp.set_streaming_width(len);
                    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
                    ext.barrier_waiting = static_cast<std::uint16_t>(rng() % 8);
                    gp.set_extension(&ext);
                    sc_time d = sc_core::SC_ZERO_TIME;
                    (write ? sent_writes : sent_reads)[target]++;
                    ini[k]->mem->b_transport(gp, d);
                    gp.clear_extension(&ext);
                    if (gp.get_response_status() != tlm::TLM_OK_RESPONSE)
                        ++errors;
                    if (write)
                        std::memcpy(mine.data(), buf, len);
                    else if (std::memcmp(mine.data(), buf, len) != 0)
                        ++bad_reads;
                    sc_core::wait(d); // back to back: the next request leaves at once
                }
                ++finished;
            });
    sc_core::sc_start(sc_time(10, sc_core::SC_MS)); // far beyond the traffic: a hang shows
    auto& m = dynamic_cast<noc::mesh&>(*net);
    REQUIRE(finished == n * threads); // every transaction completed: no deadlock
    CHECK(errors == 0);
    CHECK(bad_reads == 0); // every read returned the target's data (its thread's last write)
    for (unsigned k = 0; k < n; ++k) {
        INFO("target " << k);
        CHECK(tgt[k]->misrouted == 0);
        CHECK(tgt[k]->duplicates == 0);
        CHECK(tgt[k]->writes == sent_writes[k]); // every write arrived exactly once
        CHECK(tgt[k]->reads == sent_reads[k]);
        CHECK(tgt[k]->tags.size() == sent_writes[k]);
    }
    // Every target's memory holds the last write of every slot.
    for (unsigned s = 0; s < n * threads; ++s)
        for (unsigned target = 0; target < n; ++target)
            CHECK(std::memcmp(&tgt[target]->data[s * slot], ref[s * n + target].data(), len) == 0);
    // The buffers were full: links waited for credits, and the waits were long.
    auto st = stats_by_name();
    double max_wait = 0;
    unsigned links = 0, stalled_links = 0;
    auto ends_with = [](const std::string& s, const std::string& tail) {
        return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    for (const auto& [name, v] : st)
        if (ends_with(name, ".credit_stalls")) {
            ++links;
            stalled_links += v > 0;
        } else if (ends_with(name, ".wait.max"))
            max_wait = std::max(max_wait, v);
    std::cout << "mesh scoreboard: " << stalled_links << " of " << links
              << " links met a full buffer; " << m.credit_stalls() << " credit stalls, "
              << m.injection_stalls() << " injection stalls, longest port wait " << max_wait
              << " ns, " << st["mesh.latency"] << " ns mean request latency\n";
    CHECK(links == 2 * 2 * 2 * 4 * 3); // (3 links x 4 rows) x 2 axes x 2 directions x 2 planes
    CHECK(stalled_links == links);     // every link of both planes met a full buffer: saturated
    CHECK(m.credit_stalls() > 0);
    CHECK(m.injection_stalls() > 0);
    CHECK(max_wait > 20);
    CHECK(st["mesh.requests"] == n * threads * ops);
}
