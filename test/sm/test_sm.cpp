// Shell tests of the SM: kernels run through an ideal TLB into memory, with a stub CP on the
// control path and the protocol checker on every socket. See models/sm/README.md.
#include "models/cdl/cdl_unit.h"
#include "models/common/page_table.h"
#include "models/common/stats.h"
#include "models/common/trace_events.h"
#include "models/cp/cta_launch.h"
#include "models/sm/core/assembler.h"
#include "models/sm/sm.h"
#include "models/tlb/tlb.h"
#include "test/support/stats_probe.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"
#include "tlm_bus/router.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
using test::stat;
constexpr std::uint64_t page = 4096;
constexpr std::uint64_t ram_size = 4 << 20; ///< tlm_bus::memory at PA [0, 4 MiB)
constexpr std::uint64_t be_base = 4 << 20;  ///< byte-enable memory at PA [4 MiB, 5 MiB)
constexpr std::uint64_t be_size = 1 << 20;
constexpr std::uint64_t ptbr = 0x1000;
constexpr unsigned line_bytes = 64;
constexpr unsigned sm_id = 5;
constexpr std::uint32_t prog_va = 0x10000;

/// Stub command processor: writes the launches in order at time 0, records cta_done.
struct cp_stub : sc_core::sc_module {
    tlm_bus::initiator_port dispatch{"dispatch"};
    tlm_utils::simple_target_socket<cp_stub> cta_done{"cta_done"};
    /// A launch and the number of bytes to write (sizeof(cta_launch) unless testing errors).
    struct item {
        cp::cta_launch l;
        unsigned bytes;
    };
    std::vector<item> launches;
    std::vector<tlm::tlm_response_status> responses;
    struct record {
        cp::cta_done d;
        sc_time at;
    };
    std::vector<record> dones;

    explicit cp_stub(const sc_core::sc_module_name& n) : sc_module(n)
    {
        cta_done.register_b_transport(this, &cp_stub::b_transport);
        SC_HAS_PROCESS(cp_stub);
        SC_THREAD(run);
    }
    void run()
    {
        for (auto& it : launches) {
            sc_time d = sc_core::SC_ZERO_TIME;
            responses.push_back(dispatch.access(tlm::TLM_WRITE_COMMAND, 0, &it.l, it.bytes, d));
        }
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        CHECK(gp.get_data_length() == sizeof(cp::cta_done));
        record r{};
        std::memcpy(&r.d, gp.get_data_ptr(), sizeof r.d);
        r.at = sc_core::sc_time_stamp() + delay;
        dones.push_back(r);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

/// A memory that honours TLM byte enables (tlm_bus::memory refuses them), as an L1 does.
struct be_memory : sc_core::sc_module {
    tlm_utils::simple_target_socket<be_memory> in{"in"};
    std::vector<std::uint8_t> data = std::vector<std::uint8_t>(be_size);
    unsigned be_writes = 0;
    bool blocking = false; ///< wait inside b_transport, as accurate-mode shared resources do
    explicit be_memory(const sc_core::sc_module_name& n) : sc_module(n)
    {
        in.register_b_transport(this, &be_memory::b_transport);
        in.register_transport_dbg(this, &be_memory::transport_dbg);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        const auto a = gp.get_address();
        const unsigned len = gp.get_data_length();
        if (a + len > be_size) {
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (blocking) {
            // Like an accurate-mode resource: the access happens after waiting for it.
            sc_core::wait(delay + sc_time(100, SC_NS));
            delay = sc_core::SC_ZERO_TIME;
        } else {
            delay += sc_time(100, SC_NS);
        }
        const unsigned char* be = gp.get_byte_enable_ptr();
        if (be) {
            CHECK(gp.get_byte_enable_length() == len);
            ++be_writes;
        }
        for (unsigned i = 0; i < len; ++i) {
            if (gp.is_read())
                gp.get_data_ptr()[i] = data[a + i];
            else if (!be || be[i] == 0xff)
                data[a + i] = gp.get_data_ptr()[i];
        }
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp)
    {
        const auto a = gp.get_address();
        const unsigned len = gp.get_data_length();
        if (a + len > be_size)
            return 0;
        if (gp.is_read())
            std::memcpy(gp.get_data_ptr(), &data[a], len);
        else
            std::memcpy(&data[a], gp.get_data_ptr(), len);
        return len;
    }
};

/// Most tests fetch the whole program at CTA start (sm.icache_bytes 0), so that their
/// figures count execution only; the instruction-cache tests use icache_cfg().
sm::sm_config default_cfg()
{
    sm::sm_config c;
    c.warp_slots = 16;
    c.cta_slots = 4;
    c.icache_bytes.bytes = 0;
    return c;
}

/// default_cfg() with the shipped instruction cache (sm.icache_bytes, sm.icache_ways).
sm::sm_config icache_cfg()
{
    sm::sm_config c = default_cfg();
    c.icache_bytes = sm::sm_config{}.icache_bytes;
    return c;
}

/// cp -> sm.ctrl; sm.mem -> TLB (ideal: zero-time walks) -> router -> {memory, be_memory};
/// the TLB's walk port -> router.
struct bench {
    cp_stub cp{"cp"};
    sm::sm sm;
    tlb::tlb_config tlb_cfg = ideal_tlb();
    tlb::cluster_tlb shared;
    tlb::tlb xl;
    tlm_bus::router bus{"bus"};
    tlm_bus::memory ram;
    be_memory bemem{"bemem"};
    tlm_bus::protocol_checker pc_ctrl{"pc_ctrl"}, pc_done{"pc_done"}, pc_mem{"pc_mem"},
        pc_out{"pc_out"}, pc_walk{"pc_walk"}, pc_ram{"pc_ram"}, pc_be{"pc_be"};
    std::map<std::uint64_t, std::uint64_t> pages; ///< vpn -> physical page address
    std::uint64_t next_pa = 0x100000, next_be = be_base;
    vgpu::page_table::builder table{ptbr, page}; ///< nodes from ptbr on, below next_pa

    explicit bench(const sm::sm_config& cfg = default_cfg(), bool accurate = false,
                   double latency_ns = 100)
        : sm("sm", cfg, clock(accurate), sm_id, 1, 2, line_bytes, /*per_warp_stats=*/true),
          shared("c0.tlb", tlb_cfg, clock(accurate), page),
          xl("xl", tlb_cfg, clock(accurate), page, shared), ram("ram", ram_params(latency_ns))
    {
        tlm::tlm_global_quantum::instance().set(accurate ? sc_core::SC_ZERO_TIME
                                                         : sc_time(1, sc_core::SC_US));
        tlm_bus::bind_checked(cp.dispatch, pc_ctrl, sm.ctrl);
        tlm_bus::bind_checked(sm.done, pc_done, cp.cta_done);
        tlm_bus::bind_checked(sm.mem, pc_mem, xl.in);
        tlm_bus::bind_checked(xl.out, pc_out, bus.in);
        tlm_bus::bind_checked(xl.walk, pc_walk, bus.in);
        tlm_bus::bind_checked(bus.out, pc_ram, ram.in);
        tlm_bus::bind_checked(bus.out, pc_be, bemem.in);
        bus.map({0, ram_size, 0, 0, "ram"});
        bus.map({be_base, be_size, 1, 0, "bemem"});
    }
    static tlb::tlb_config ideal_tlb()
    {
        tlb::tlb_config c;
        c.model = tlb::model_kind::ideal;
        return c;
    }
    static clock_params clock(bool accurate)
    {
        clock_params c;
        c.accurate = accurate;
        c.core_ps = 1000;
        return c;
    }
    static tlm_bus::memory_params ram_params(double latency_ns)
    {
        tlm_bus::memory_params p;
        p.size = ram_size;
        p.latency = sc_time(latency_ns, SC_NS);
        p.bytes_per_ns = 256;
        p.dmi = false;
        return p;
    }
    /// Maps [va, va + bytes) to fresh pages (in the byte-enable memory if `be`).
    void map(std::uint64_t va, std::uint64_t bytes, bool writable = true, bool be = false)
    {
        for (std::uint64_t v = va & ~(page - 1); v < va + bytes; v += page) {
            std::uint64_t& pa = pages[v / page];
            if (pa == 0) {
                pa = be ? next_be : next_pa;
                (be ? next_be : next_pa) += page;
            }
            table.map(v, vgpu::page_table::encode(pa, writable));
        }
        for (const auto& [at, raw] : table.entries())
            ram.store().write(at, &raw, 8);
    }
    std::uint64_t pa_of(std::uint64_t va) const { return pages.at(va / page) + va % page; }
    void write32(std::uint64_t va, std::uint32_t v)
    {
        const std::uint64_t pa = pa_of(va);
        if (pa >= be_base)
            std::memcpy(&bemem.data[pa - be_base], &v, 4);
        else
            ram.store().write(pa, &v, 4);
    }
    std::uint32_t read32(std::uint64_t va) const
    {
        const std::uint64_t pa = pa_of(va);
        std::uint32_t v = 0;
        if (pa >= be_base)
            std::memcpy(&v, &bemem.data[pa - be_base], 4);
        else
            const_cast<tlm_bus::memory&>(ram).store().read(pa, &v, 4);
        return v;
    }
    /// Assembles `text` (parameters named in `params`), maps and writes it at prog_va.
    std::uint32_t load(const std::string& text, const sm::symbol_table& params = {})
    {
        const auto res = sm::assemble(text, params, {"kernel.s", 1, 1});
        for (const auto& e : res.errors)
            UNSCOPED_INFO(e);
        REQUIRE(res.ok());
        const auto image = sm::encode_program(res.code);
        map(prog_va, image.size(), false);
        for (std::size_t i = 0; i < image.size(); i += 4) {
            std::uint32_t w;
            std::memcpy(&w, &image[i], 4);
            const std::uint64_t pa = pa_of(prog_va + i);
            ram.store().write(pa, &w, 4);
        }
        return static_cast<std::uint32_t>(image.size());
    }
    /// Queues a launch of one CTA.
    void launch(std::uint32_t prog_bytes, std::uint32_t threads, std::vector<std::uint32_t> params,
                std::uint32_t cta_x = 0, std::uint32_t grid_x = 1, std::uint32_t seq = 1,
                unsigned bytes = sizeof(cp::cta_launch))
    {
        cp::cta_launch l{};
        l.queue = 0;
        l.kernel_seq = seq;
        l.prog_addr = prog_va;
        l.prog_bytes = prog_bytes;
        l.grid_x = grid_x;
        l.grid_y = 1;
        l.block_x = threads;
        l.block_y = 1;
        l.cta_x = cta_x;
        l.nparams = static_cast<std::uint32_t>(params.size());
        for (std::size_t i = 0; i < params.size(); ++i)
            l.params[i] = params[i];
        l.ptbr = ptbr;
        cp.launches.push_back({l, bytes});
    }
    std::size_t violations() const
    {
        return pc_ctrl.violations() + pc_done.violations() + pc_mem.violations() +
               pc_out.violations() + pc_walk.violations() + pc_ram.violations() +
               pc_be.violations();
    }
};

const char* vector_add = R"(
        S2R R0, SR_GLOBAL_TID_X
        SHL R1, R0, 2
        LDP R2, a
        IADD R2, R2, R1
        LD R3, [R2]
        LDP R4, b
        IADD R4, R4, R1
        LD R5, [R4]
        IADD R6, R3, R5
        LDP R7, c
        IADD R7, R7, R1
        ST [R7], R6
        EXIT
)";
const sm::symbol_table abc{{"a", 0}, {"b", 1}, {"c", 2}};

const char* reduction = R"(
        S2R R0, SR_TID_X
        LDP R1, in
        LDP R2, tmp
        SHL R3, R0, 2
        IADD R4, R1, R3
        LD R5, [R4]
        IADD R6, R2, R3
        ST [R6], R5
        BAR
        MOV R7, 64
loop:   ISETP.LT P0, R0, R7
        SHL R8, R7, 2
        IADD R9, R6, R8
        @P0 LD R10, [R6]
        @P0 LD R11, [R9]
        @P0 IADD R10, R10, R11
        @P0 ST [R6], R10
        BAR
        SHR R7, R7, 1
        ISETP.GT P1, R7, 0
        @P1 BRA loop
        ISETP.EQ P2, R0, 0
        LDP R12, out
        @P2 LD R13, [R2]
        @P2 ST [R12], R13
        EXIT
)";
const sm::symbol_table red_params{{"in", 0}, {"tmp", 1}, {"out", 2}};
} // namespace

TEST_CASE("vector add: two CTAs of one launch compute a + b and fetch the program once")
{
    bench tb;
    const std::uint32_t n = 256, a = 0x20000, b = 0x30000, c = 0x40000;
    const auto bytes = tb.load(vector_add, abc);
    tb.map(a, n * 4, false);
    tb.map(b, n * 4, false);
    tb.map(c, n * 4);
    for (std::uint32_t i = 0; i < n; ++i) {
        tb.write32(a + 4 * i, 3 * i + 1);
        tb.write32(b + 4 * i, 1000000 - 7 * i);
    }
    tb.launch(bytes, 128, {a, b, c}, 0, 2);
    tb.launch(bytes, 128, {a, b, c}, 1, 2);
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.responses.size() == 2);
    CHECK(tb.cp.responses[0] == tlm::TLM_OK_RESPONSE);
    CHECK(tb.cp.responses[1] == tlm::TLM_OK_RESPONSE);
    REQUIRE(tb.cp.dones.size() == 2);
    for (const auto& d : tb.cp.dones) {
        CHECK(d.d.status == cp::cta_status::ok);
        CHECK(d.d.sm == sm_id);
        CHECK(d.d.kernel_seq == 1u);
    }
    for (std::uint32_t i = 0; i < n; ++i)
        CHECK(tb.read32(c + 4 * i) == (3 * i + 1) + (1000000 - 7 * i));
    CHECK(tb.sm.instructions() == 13u * 8);
    CHECK(tb.sm.lane_instructions() == 13u * 256);
    CHECK(stat("sm.fetch_requests", -1) == 4); // 208 bytes = 4 lines, once for both CTAs
    CHECK(tb.sm.mem_requests() == 8u * 3 * 2); // 8 warps x 3 accesses x 2 lines of 64 bytes
    CHECK(tb.sm.ctas() == 2u);
    CHECK(stat("sm.loads", -1) == 16);
    CHECK(stat("sm.stores", -1) == 8);
    CHECK(stat("sm.ipc", -1) > 0);
    CHECK(tb.xl.faults() == 0);
}

TEST_CASE("reduction with barriers across 4 warps, with trace spans per CTA, warp and barrier")
{
    trace::recorder::instance().enable(true);
    bench tb;
    const std::uint32_t in = 0x20000, tmp = 0x30000, out = 0x40000;
    const auto bytes = tb.load(reduction, red_params);
    tb.map(in, 512, false);
    tb.map(tmp, 512);
    tb.map(out, 4);
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < 128; ++i) {
        tb.write32(in + 4 * i, i * i + 7);
        sum += i * i + 7;
    }
    tb.launch(bytes, 128, {in, tmp, out});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.read32(out) == sum);
    CHECK(stat("sm.barrier_wait_cycles", -1) > 0);
    CHECK(stat("sm.w0.barrier_wait_cycles", -1) + stat("sm.w3.barrier_wait_cycles", -1) > 0);
    const std::string json = trace::recorder::instance().to_json();
    CHECK(json.find("\"BAR\"") != std::string::npos);
    CHECK(json.find("ctas") != std::string::npos);
    CHECK(json.find("warp 3") != std::string::npos);
}

TEST_CASE("divergent branch: odd and even lanes take different paths and reconverge")
{
    bench tb;
    const std::uint32_t out = 0x40000;
    const auto bytes = tb.load(R"(
        S2R R0, SR_TID_X
        AND R1, R0, 1
        ISETP.EQ P0, R1, 0
        @P0 BRA even
        IMUL R2, R0, 3
        BRA join
even:   IADD R2, R0, 100
join:   LDP R3, out
        SHL R4, R0, 2
        IADD R3, R3, R4
        ST [R3], R2
        EXIT
    )",
                               {{"out", 0}});
    tb.map(out, 256);
    tb.launch(bytes, 64, {out});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    for (std::uint32_t t = 0; t < 64; ++t)
        CHECK(tb.read32(out + 4 * t) == (t % 2 ? 3 * t : t + 100));
    CHECK(tb.sm.lane_instructions() < tb.sm.instructions() * 32);
}

TEST_CASE("guest errors fault the CTA with SM, warp, PC and VA, and other CTAs are unaffected")
{
    bench tb;
    const std::uint32_t out = 0x40000;
    const auto bytes = tb.load(R"(
        LDP R1, out
        IADD R1, R1, R2
        ST [R1], R0
        LD R3, [R1]
        EXIT
    )",
                               {{"out", 0}});
    tb.map(out, 256);
    tb.launch(bytes, 64, {out + 2}, 0, 1, 1); // misaligned store
    tb.launch(bytes, 32, {0x90000}, 0, 1, 2); // unmapped page
    tb.launch(bytes, 32, {out}, 0, 1, 3);     // fine
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 3);
    std::map<std::uint32_t, cp::cta_done> by_seq;
    for (const auto& d : tb.cp.dones)
        by_seq[d.d.kernel_seq] = d.d;
    const cp::cta_done& mis = by_seq[1];
    CHECK(mis.status == cp::cta_status::fault);
    CHECK(mis.sm == sm_id);
    CHECK(mis.warp < 2u);
    CHECK(mis.pc == 2u);
    CHECK(std::string(mis.message).find("misaligned") != std::string::npos);
    const cp::cta_done& unm = by_seq[2];
    CHECK(unm.status == cp::cta_status::fault);
    CHECK(unm.pc == 2u);
    CHECK(unm.vaddr == 0x90000u);
    CHECK(std::string(unm.message).find("0x90000") != std::string::npos);
    CHECK(by_seq[3].status == cp::cta_status::ok);
    CHECK(tb.sm.faults() == 2u);
    CHECK(tb.sm.ctas() == 3u);
}

TEST_CASE("a barrier that can never complete faults with what each warp waits on")
{
    bench tb;
    const auto bytes = tb.load(R"(
        S2R R0, SR_TID_X
        ISETP.GE P0, R0, 32
        @P0 EXIT
        BAR
        EXIT
    )");
    tb.launch(bytes, 64, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    const cp::cta_done& d = tb.cp.dones[0].d;
    CHECK(d.status == cp::cta_status::fault);
    CHECK(d.pc == 3u);
    CHECK(d.warp == 0u);
    const std::string msg = d.message;
    INFO(msg);
    CHECK(msg.find("warp 0 at pc 3: BAR (1 of 2 warps arrived)") != std::string::npos);
    CHECK(msg.find("warp 1: exited") != std::string::npos);
}

TEST_CASE("a CTA running longer than max_cta_cycles is stopped with a report")
{
    auto cfg = default_cfg();
    cfg.max_cta_cycles = 5000;
    bench tb(cfg);
    const auto bytes = tb.load(R"(
loop:   IADD R1, R1, 1
        BRA loop
    )");
    tb.launch(bytes, 32, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::fault);
    INFO(tb.sm.last_fault());
    CHECK(tb.sm.last_fault().find("more than 5000 cycles") != std::string::npos);
    CHECK(tb.sm.last_fault().find("warp 0 at pc") != std::string::npos);
    CHECK(tb.cp.dones[0].at >= sc_time(5000, SC_NS));
    CHECK(tb.cp.dones[0].at < sc_time(7000, SC_NS));
}

TEST_CASE("CTAs that do not fit the free slots, or arrive with a bad size, are refused")
{
    auto cfg = default_cfg();
    cfg.warp_slots = 8;
    cfg.cta_slots = 2;
    bench tb(cfg);
    const std::uint32_t n = 128, a = 0x20000, b = 0x30000, c = 0x40000;
    const auto bytes = tb.load(vector_add, abc);
    tb.map(a, n * 4);
    tb.map(b, n * 4);
    tb.map(c, n * 4);
    tb.launch(bytes, 128, {a, b, c});             // 4 warps: accepted
    tb.launch(bytes, 256, {a, b, c});             // 8 warps, 4 free: refused
    tb.launch(bytes, 128, {a, b, c}, 0, 1, 1, 8); // bad size: refused
    tb.launch(bytes, 4000, {a, b, c});            // more warps than the SM has: refused
    tb.launch(bytes, 96, {a, b, c});              // 3 warps: accepted
    tb.launch(bytes, 32, {a, b, c});              // no CTA slot left: refused
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.responses.size() == 6);
    CHECK(tb.cp.responses[0] == tlm::TLM_OK_RESPONSE);
    CHECK(tb.cp.responses[1] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(tb.cp.responses[2] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(tb.cp.responses[3] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(tb.cp.responses[4] == tlm::TLM_OK_RESPONSE);
    CHECK(tb.cp.responses[5] == tlm::TLM_GENERIC_ERROR_RESPONSE);
    REQUIRE(tb.cp.dones.size() == 2);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.cp.dones[1].d.status == cp::cta_status::ok);
    CHECK(tb.sm.resident_ctas() == 0u);
}

namespace {
/// A kernel whose result depends on memory order: stores, a barrier, loads of other warps'
/// stores, and stores with holes (odd lanes only) into the byte-enable memory.
const char* mixed = R"(
        S2R R0, SR_TID_X
        SHL R1, R0, 2
        LDP R2, a
        IADD R2, R2, R1
        LD R3, [R2]
        IMUL R3, R3, 5
        LDP R4, c
        IADD R5, R4, R1
        ST [R5], R3
        BAR
        IADD R6, R0, 1
        AND R6, R6, 127
        SHL R6, R6, 2
        IADD R6, R4, R6
        LD R7, [R6]
        IADD R7, R7, R0
        LDP R8, d
        IADD R8, R8, R1
        ST [R8], R7
        AND R9, R0, 1
        ISETP.EQ P0, R9, 1
        LDP R10, e
        IADD R10, R10, R1
        @P0 ST [R10], R3
        EXIT
)";

/// Runs `mixed` in the given mode and checks the results against host math.
void run_mixed(bool accurate)
{
    bench tb(default_cfg(), accurate);
    tb.bemem.blocking = accurate;
    const std::uint32_t a = 0x20000, c = 0x30000, d = 0x40000, e = 0x50000;
    const auto bytes = tb.load(mixed, {{"a", 0}, {"c", 1}, {"d", 2}, {"e", 3}});
    tb.map(a, 512, false);
    tb.map(c, 512, true, true);
    tb.map(d, 512, true, true);
    tb.map(e, 512, true, true);
    for (std::uint32_t i = 0; i < 128; ++i) {
        tb.write32(a + 4 * i, 11 * i + 3);
        tb.write32(e + 4 * i, 0xeeeeeeee);
    }
    tb.launch(bytes, 128, {a, c, d, e});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    std::uint64_t checksum = 0;
    for (std::uint32_t i = 0; i < 128; ++i) {
        const std::uint32_t ci = 5 * (11 * i + 3);
        const std::uint32_t di = 5 * (11 * ((i + 1) % 128) + 3) + i;
        const std::uint32_t ei = i % 2 ? ci : 0xeeeeeeee;
        CHECK(tb.read32(c + 4 * i) == ci);
        CHECK(tb.read32(d + 4 * i) == di);
        CHECK(tb.read32(e + 4 * i) == ei);
        checksum =
            checksum * 31 + tb.read32(c + 4 * i) + tb.read32(d + 4 * i) + tb.read32(e + 4 * i);
    }
    CHECK(tb.bemem.be_writes == 8u); // per warp two line segments with holes
    CHECK(tb.cp.dones[0].at > sc_time(300, SC_NS));
    WARN((accurate ? "accurate" : "fast")
         << " mode: CTA done at " << tb.cp.dones[0].at << ", checksum " << checksum);
}
} // namespace

TEST_CASE("fast mode: memory order, barrier and byte-enable stores give the reference contents")
{
    run_mixed(false);
}

TEST_CASE("accurate mode (quantum 0, LSU threads) gives the same memory contents as fast mode")
{
    run_mixed(true);
}

TEST_CASE("timing: each load of a dependent chain waits for the memory latency")
{
    bench tb(default_cfg(), false, 100);
    const std::uint32_t p = 0x20000;
    const auto bytes = tb.load(R"(
        LDP R0, p
        LD R0, [R0]
        LD R0, [R0]
        LD R0, [R0]
        LD R0, [R0]
        LDP R1, p
        ST [R1+64], R0
        EXIT
    )",
                               {{"p", 0}});
    tb.map(p, 256);
    tb.write32(p, p + 16);
    tb.write32(p + 16, p + 32);
    tb.write32(p + 32, p + 48);
    tb.write32(p + 48, 0x1234);
    tb.launch(bytes, 32, {p});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.read32(p + 64) == 0x1234u);
    // Fetch + 4 dependent loads + the store, each at least 100 ns.
    CHECK(tb.cp.dones[0].at >= sc_time(600, SC_NS));
    CHECK(tb.cp.dones[0].at < sc_time(700, SC_NS));
    CHECK(stat("sm.stall_memory", -1) >= 500);
}

TEST_CASE("timing: independent loads of several warps overlap")
{
    bench tb(default_cfg(), false, 100);
    const std::uint32_t a = 0x20000, c = 0x30000;
    const auto bytes = tb.load(R"(
        S2R R0, SR_TID_X
        SHL R1, R0, 2
        LDP R2, a
        IADD R2, R2, R1
        LD R3, [R2]
        LDP R4, c
        IADD R4, R4, R1
        ST [R4], R3
        EXIT
    )",
                               {{"a", 0}, {"c", 1}});
    tb.map(a, 1024);
    tb.map(c, 1024);
    for (std::uint32_t i = 0; i < 256; ++i)
        tb.write32(a + 4 * i, i ^ 0x5a5a);
    tb.launch(bytes, 256, {a, c}); // 8 warps, each a load then a dependent store
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    for (std::uint32_t i = 0; i < 256; ++i)
        CHECK(tb.read32(c + 4 * i) == (i ^ 0x5a5a));
    // One warp alone needs fetch + load + store >= 300 ns; 8 in sequence would need 8 x 200
    // for their memory; overlapped they finish in little more than one warp's time.
    CHECK(tb.cp.dones[0].at >= sc_time(300, SC_NS));
    CHECK(tb.cp.dones[0].at < sc_time(400, SC_NS));
}

namespace {
const char* independent = R"(
        MOV R1, 1
        MOV R2, 2
        MOV R3, 3
        MOV R4, 4
        MOV R5, 5
        MOV R6, 6
        MOV R7, 7
        MOV R8, 8
        MOV R9, 9
        MOV R10, 10
        MOV R11, 11
        MOV R12, 12
        MOV R13, 13
        MOV R14, 14
        MOV R15, 15
        MOV R16, 16
        MOV R17, 17
        MOV R18, 18
        MOV R19, 19
        MOV R20, 20
        EXIT
)";

/// Runs 4 warps of independent instructions under `policy`; returns warp slot 0's stalls.
double first_warp_stalls(sm::sched_policy policy, double& last_warp_stalls)
{
    auto cfg = default_cfg();
    cfg.scheduler = policy;
    bench tb(cfg);
    const auto bytes = tb.load(independent);
    tb.launch(bytes, 128, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(stat("sm.instructions", -1) == 84);
    last_warp_stalls = stat("sm.w3.stall_cycles", -1);
    return stat("sm.w0.stall_cycles", -1);
}
} // namespace

TEST_CASE("GTO runs the oldest warp to completion before switching")
{
    double last = 0;
    CHECK(first_warp_stalls(sm::sched_policy::gto, last) == 0);
    CHECK(last == 63);
}

TEST_CASE("LRR interleaves warps, so the first warp stalls while the others issue")
{
    double last = 0;
    CHECK(first_warp_stalls(sm::sched_policy::lrr, last) == 60);
    CHECK(last == 63);
}

// ---- sub-cores and functional units (exact cycle counts, computed by hand) ----
// "Execution cycles" below are active_cycles - stall_memory: the cycles from a CTA's first
// issue to its last (the wait for the program fetch is charged to memory).

namespace {
/// `n` copies of `line`, one per line.
std::string repeat(const std::string& line, unsigned n)
{
    std::string s;
    for (unsigned i = 0; i < n; ++i)
        s += line + "\n";
    return s;
}

/// The SM's statistics after a run, by name without "sm." ("instructions").
std::map<std::string, double> last_stats;

/// Runs one CTA of `threads` threads of `text` on an SM with `cfg`; returns execution cycles
/// and keeps the SM's statistics in last_stats.
double exec_cycles(const sm::sm_config& cfg, const std::string& text, unsigned threads,
                   bool accurate = false)
{
    bench tb(cfg, accurate);
    const auto bytes = tb.load(text);
    tb.launch(bytes, threads, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    REQUIRE(tb.cp.dones[0].d.status == cp::cta_status::ok);
    last_stats.clear();
    for (const auto& e : stats::collect_all())
        if (e.name.rfind("sm.", 0) == 0)
            last_stats[e.name.substr(3)] = e.value.get<double>();
    for (const auto& [k, v] : last_stats)
        UNSCOPED_INFO(k << " = " << v);
    return last_stats.at("active_cycles") - last_stats.at("stall_memory");
}

/// A statistic of the last exec_cycles() run; -1 if absent.
double sm_stat(const std::string& name)
{
    const auto it = last_stats.find(name);
    return it == last_stats.end() ? -1 : it->second;
}

/// 20 independent MOVs and EXIT (21 instructions per warp).
std::string independent_movs()
{
    std::string s;
    for (unsigned r = 1; r <= 20; ++r)
        s += "MOV R" + std::to_string(r) + ", " + std::to_string(r) + "\n";
    return s + "EXIT\n";
}
} // namespace

TEST_CASE("one warp: a dependent FFMA chain issues once per fp32 latency")
{
    auto cfg = default_cfg();
    cfg.fp_latency = 4;
    // FFMA i at cycle 4 i (i = 0..63), EXIT at 4 * 63 + 1: 254 cycles.
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R1, R2, R3", 64) + "EXIT", 32) == 254);
    CHECK(sm_stat("instructions") == 65);
    CHECK(sm_stat("stall_structural") == 0);
}

TEST_CASE("units.fp32.latency overrides sm.fp_latency")
{
    auto cfg = default_cfg();
    cfg.fp_latency = 4;
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::fp32)].latency = 6;
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R1, R2, R3", 64) + "EXIT", 32) == 6 * 63 + 2);
}

TEST_CASE("four warps on one scheduler issue one instruction per cycle")
{
    // 4 warps x 21 independent instructions: 84 cycles, every one issuing.
    CHECK(exec_cycles(default_cfg(), independent_movs(), 128) == 84);
    CHECK(sm_stat("issue_cycles") == 84);
    CHECK(sm_stat("core0.instructions") == 84);
}

TEST_CASE("four schedulers issue four instructions per cycle, one per sub-core")
{
    auto cfg = default_cfg();
    cfg.schedulers = 4;
    // Warp slot w on sub-core w mod 4: each of the 4 warps has a sub-core of its own, 21 cycles.
    CHECK(exec_cycles(cfg, independent_movs(), 128) == 21);
    CHECK(sm_stat("instructions") == 84);
    CHECK(sm_stat("issue_cycles") == 21);
    for (int k = 0; k < 4; ++k)
        CHECK(sm_stat("core" + std::to_string(k) + ".instructions") == 21);
}

TEST_CASE("four schedulers with two warps each: 42 cycles")
{
    auto cfg = default_cfg();
    cfg.schedulers = 4;
    CHECK(exec_cycles(cfg, independent_movs(), 256) == 42);
}

TEST_CASE("four schedulers with two warps each, accurate mode: 42 cycles")
{
    auto cfg = default_cfg();
    cfg.schedulers = 4;
    CHECK(exec_cycles(cfg, independent_movs(), 256, true) == 42);
}

TEST_CASE("fp32 with 16 lanes: independent FFMAs of one warp issue every other cycle")
{
    auto cfg = default_cfg();
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::fp32)].lanes = 16;
    // 20 FFMAs hold the unit 2 cycles each: at 0, 2, ..., 38; EXIT (branch unit) at 39: 40.
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R2, R3, R4", 20) + "EXIT", 32) == 40);
    // The 19 cycles between them had a ready warp and a busy unit.
    CHECK(sm_stat("stall_structural") == 19);
    CHECK(sm_stat("core0.structural_stalls") == 19);
    CHECK(sm_stat("stall_scoreboard") == 0);
}

TEST_CASE("a mix of units: FFMA and IADD alternate without a structural stall")
{
    auto cfg = default_cfg();
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::fp32)].lanes = 16;
    // FFMA at even cycles (fp32 busy 2 cycles), IADD at odd ones on the int unit: 40
    // instructions and EXIT in 41 cycles.
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R2, R3, R4\nIADD R5, R6, R7", 20) + "EXIT", 32) == 41);
    CHECK(sm_stat("stall_structural") == 0);
}

TEST_CASE("mul with 8 lanes: independent IMULs issue every fourth cycle")
{
    auto cfg = default_cfg();
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::mul)].lanes = 8;
    // IMUL at 0, 4, ..., 76 (4 cycles each on 8 lanes), EXIT at 77: 78 cycles.
    CHECK(exec_cycles(cfg, repeat("IMUL R1, R2, R3", 20) + "EXIT", 32) == 78);
    CHECK(sm_stat("stall_structural") == 57); // 3 per IMUL after the first 19
}

TEST_CASE("an FFMA chain with 16 lanes on four sub-cores is throughput-bound at 4 warps each")
{
    auto cfg = default_cfg();
    cfg.schedulers = 4;
    cfg.fp_latency = 4;
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::fp32)].lanes = 16;
    // 16 warps, 4 per sub-core, each a chain of 32 dependent FFMAs. Per sub-core the unit takes
    // one FFMA every 2 cycles and a warp's next one is ready 4 cycles after its last: 4 warps
    // keep the unit busy, so the 128 FFMAs issue at 0, 2, ..., 254; the 4 EXITs (branch unit)
    // then fill the cycles between: warp k (k = 0..3) issued its last FFMA at 254 - 2 (3 - k)
    // and exits at the next free cycle, the last at 255. 256 cycles.
    CHECK(exec_cycles(cfg, repeat("FFMA R1, R1, R2, R3", 32) + "EXIT", 512) == 256);
    CHECK(sm_stat("instructions") == 16 * 33);
    for (int k = 0; k < 4; ++k)
        CHECK(sm_stat("core" + std::to_string(k) + ".instructions") == 4 * 33);
}

TEST_CASE("branch latency holds the warp's next instruction")
{
    auto cfg = default_cfg();
    cfg.units.by_class[static_cast<unsigned>(sm::unit_class::branch)].latency = 5;
    // MOV at 0, BRA (taken, to the next line) at 1, MOV at 1 + 5 = 6, EXIT at 7: 8 cycles.
    CHECK(exec_cycles(cfg, "MOV R1, 1\nBRA next\nnext: MOV R2, 2\nEXIT", 32) == 8);
}

// ---- loads in flight per warp, stores that do not block ----
// The bench's memory answers in 100 ns + 0.25 ns of transfer: a line access issued at cycle c
// (1 GHz) completes at c + 101. Translation takes no time.

namespace {
/// Done time of one CTA of one warp running `text` with parameter p = 0x20000 (4 KiB mapped,
/// words i hold i); checks the word at p + 1024 against `expect`.
sc_time run_memory_warp(const sm::sm_config& cfg, const std::string& text, std::uint32_t expect,
                        bool accurate, std::uint64_t* line_limit_waits = nullptr)
{
    bench tb(cfg, accurate);
    const std::uint32_t p = 0x20000;
    const auto bytes = tb.load(text, {{"p", 0}});
    tb.map(p, 4096);
    for (std::uint32_t i = 0; i < 1024; ++i)
        tb.write32(p + 4 * i, i);
    tb.launch(bytes, 32, {p});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    REQUIRE(tb.cp.dones[0].d.status == cp::cta_status::ok);
    CHECK(tb.read32(p + 1024) == expect);
    if (line_limit_waits)
        *line_limit_waits = tb.sm.line_limit_waits();
    return tb.cp.dones[0].at;
}

// Four independent loads of four lines, summed, stored at p + 1024; 10 instructions (3 lines
// of 64 B fetched at cycles 0..2, so the warp starts at 103).
const char* four_loads = R"(
        LDP R0, p
        LD R1, [R0]
        LD R2, [R0+64]
        LD R3, [R0+128]
        LD R4, [R0+192]
        IADD R5, R1, R2
        IADD R6, R3, R4
        IADD R7, R5, R6
        ST [R0+1024], R7
        EXIT
)";
} // namespace

namespace {
// From the warp's start (103): LDP 0 (R0 at 4); LDs at 4, 5, 6, 7 (data at 105..108); IADDs at
// 106, 108, 112; ST at 116, complete at 217; EXIT drains it at 217, the CTA ends at 218:
// 103 + 218 = 321 ns. Words 0, 16, 32, 48 hold 0, 16, 32, 48: sum 96.
void four_loads_in_flight(bool accurate)
{
    auto cfg = default_cfg();
    cfg.max_loads_per_warp = 4;
    CHECK(run_memory_warp(cfg, four_loads, 96, accurate) == sc_time(321, SC_NS));
}

// 6 instructions, 2 lines (the warp starts at 102). LDP 0; ST at 4 (done 105); LD of another
// line at 5 (data 106); IADD at 106; ST at 110 (done 211); EXIT at 211; end 212: 102 + 212 =
// 314 ns (a blocking store would add 100). Word 64 + 1 = 65.
void store_then_independent_load(bool accurate)
{
    const char* text = R"(
        LDP R0, p
        ST [R0+4], R9
        LD R1, [R0+256]
        IADD R2, R1, 1
        ST [R0+1024], R2
        EXIT
    )";
    CHECK(run_memory_warp(default_cfg(), text, 65, accurate) == sc_time(314, SC_NS));
}

// MOV at 1 (R9 at 5); ST at 5 (done 106); the LD of the same word issues at 6 but its request
// leaves when the store completed, at 106 (data 207); ST at 207 (done 308); EXIT at 308; end
// 309: 102 + 309 = 411 ns, and the load read the stored 1234.
void store_then_same_line_load(bool accurate)
{
    const char* text = R"(
        LDP R0, p
        MOV R9, 1234
        ST [R0+8], R9
        LD R1, [R0+8]
        ST [R0+1024], R1
        EXIT
    )";
    CHECK(run_memory_warp(default_cfg(), text, 1234, accurate) == sc_time(411, SC_NS));
}
} // namespace

TEST_CASE("a warp keeps 4 independent loads in flight: one memory latency, not four (fast)")
{
    four_loads_in_flight(false);
}

TEST_CASE("a warp keeps 4 independent loads in flight: one memory latency, not four (accurate)")
{
    four_loads_in_flight(true);
}

namespace {
// sm.max_line_requests 2: the loads' requests are due at 4, 5, 6, 7; the third waits for the
// first to complete (105) and the fourth for the second (106), so R4 arrives at 207. IADD R6 at
// 207, R7 at 211; ST at 215 (nothing in flight then), complete at 316; end 317: 103 + 317 =
// 420 ns (321 ns without the limit).
void four_loads_two_requests_in_flight(bool accurate)
{
    auto cfg = default_cfg();
    cfg.max_loads_per_warp = 4;
    cfg.max_line_requests = 2;
    std::uint64_t waits = 0;
    CHECK(run_memory_warp(cfg, four_loads, 96, accurate, &waits) == sc_time(420, SC_NS));
    CHECK(waits == 2);
}
} // namespace

TEST_CASE("sm.max_line_requests: a request waits for one in flight to complete (fast)")
{
    four_loads_two_requests_in_flight(false);
}

TEST_CASE("sm.max_line_requests: a request waits for one in flight to complete (accurate)")
{
    four_loads_two_requests_in_flight(true);
}

TEST_CASE("one load entry per warp serialises the same loads: four memory latencies")
{
    auto cfg = default_cfg();
    cfg.max_loads_per_warp = 1;
    // LDs at 4, 105, 206, 307 (data at 105, 206, 307, 408); IADD R5 at 206, R6 at 408, R7 at
    // 412; ST at 416, complete at 517; end 518: 103 + 518 = 621 ns.
    CHECK(run_memory_warp(cfg, four_loads, 96, false) == sc_time(621, SC_NS));
}

TEST_CASE("a store does not block the warp: an independent load issues the next cycle (fast)")
{
    store_then_independent_load(false);
}

TEST_CASE("a store does not block the warp: an independent load issues the next cycle (accurate)")
{
    store_then_independent_load(true);
}

TEST_CASE("a load after a store to the same line waits for it, reads the stored value (fast)")
{
    store_then_same_line_load(false);
}

TEST_CASE("a load after a store to the same line waits for it, reads the stored value (accurate)")
{
    store_then_same_line_load(true);
}

TEST_CASE("MEMBAR waits for the warp's loads and stores")
{
    // LDP 0; ST at 4 (done 105); MEMBAR waits until 105; LD at 106 (data 207); ST at 207
    // (done 308); EXIT at 308; end 309: 102 + 309 = 411 ns (without MEMBAR the LD would go at 5).
    const char* text = R"(
        LDP R0, p
        ST [R0+4], R9
        MEMBAR
        LD R1, [R0+256]
        ST [R0+1024], R1
        EXIT
    )";
    CHECK(run_memory_warp(default_cfg(), text, 64, false) == sc_time(411, SC_NS));
}

// ---- instruction cache (sm.icache_bytes): exact figures computed by hand ----
// A fill requested at cycle c arrives at c + 101 (100 ns + 0.25 ns of transfer, rounded up to
// the 1 GHz clock); fills leave one per cycle. A warp looks up the line of its next
// instruction when it changes; a miss also prefetches the next line, as does the first use of
// a prefetched line.

namespace {
/// 15 independent MOVs and EXIT: 16 instructions = 4 lines of 64 B.
std::string four_line_program()
{
    std::string s;
    for (unsigned r = 1; r <= 15; ++r)
        s += "MOV R" + std::to_string(r) + ", " + std::to_string(r) + "\n";
    return s + "EXIT\n";
}

/// Three CTAs of two warps (kernel 1 CTAs 0 and 1, kernel 2 CTA 0; warp slots 0..5) run
/// four_line_program. Cycle 0: warp 0 misses line 0 (fill 0 -> 101) and prefetches line 1
/// (1 -> 102); warps 1..5 wait for line 0's fill. 101..104: warp 0 (GTO, oldest) issues line 0;
/// at 104 line 1 hits, a prefetched line's first use: line 2 prefetched (104 -> 205). Warp 0
/// issues line 1 (105..108), at 108 finds line 2 in flight, its first use: line 3 prefetched
/// (108 -> 209). Warps 1..5 each issue lines 0 and 1 in 8 cycles (109..148: line 1 hits, line
/// 2 in flight). 205: warp 5 (the last to issue) issues line 2 (205..208), finds line 3 in
/// flight (the program ends there: no prefetch), issues it 209..212 and exits. 213..252:
/// warps 0..4 issue lines 2 and 3 (both hits) in 8 cycles each. CTAs end one cycle after
/// their last EXIT: kernel 1 CTA 0 (warp 1) at 229, CTA 1 (warp 3) at 245, kernel 2 (warp 4)
/// at 253.
void icache_misses_once_per_line(bool accurate)
{
    bench tb(icache_cfg(), accurate);
    const auto bytes = tb.load(four_line_program());
    REQUIRE(bytes == 4 * line_bytes);
    tb.launch(bytes, 64, {}, 0, 2, 1);
    tb.launch(bytes, 64, {}, 1, 2, 1);
    tb.launch(bytes, 64, {}, 0, 1, 2);
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 3);
    std::map<std::pair<std::uint32_t, std::uint32_t>, sc_time> at;
    for (const auto& d : tb.cp.dones) {
        CHECK(d.d.status == cp::cta_status::ok);
        at[{d.d.kernel_seq, d.d.cta_x}] = d.at;
    }
    CHECK(at[{1, 0}] == sc_time(229, SC_NS));
    CHECK(at[{1, 1}] == sc_time(245, SC_NS));
    CHECK(at[{2, 0}] == sc_time(253, SC_NS));
    CHECK(tb.sm.instructions() == 6u * 16);
    // Each of the 4 lines is read once for the SM: line 0 by a miss, lines 1..3 by prefetches.
    CHECK(stat("sm.fetch_requests", -1) == 4);
    CHECK(tb.sm.icache_misses() == 1u);
    CHECK(tb.sm.icache_prefetches() == 3u);
    // 6 warps x 4 line lookups: 11 present, 12 waited for a fill in flight, 1 miss.
    CHECK(tb.sm.icache_hits() == 11u);
    CHECK(tb.sm.icache_pending_hits() == 12u);
    CHECK(stat("sm.issue_cycles", -1) == 96);
}

/// Two CTAs of one warp (slots 0 and 1); CTA 1 branches to line 5, CTA 0 loops on line 1.
const char* branch_far = R"(
        S2R R0, SR_CTAID_X
        ISETP.EQ P0, R0, 1
        @P0 BRA far
        MOV R1, 0
loop:   IADD R1, R1, 1
        ISETP.LT P1, R1, 10
        @P1 BRA loop
        EXIT
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
        NOP
far:    MOV R7, 7
        EXIT
)";

/// Cycle 0: warp 0 misses line 0 (0 -> 101), prefetches line 1 (1 -> 102); warp 1 waits for
/// line 0. S2R 101 / 102, ISETP 105 / 106 (ALU latency 4), warp 0's BRA (no lane taken) at
/// 109, its MOV at 110 (line 1 hits: line 2 prefetched, 110 -> 211). Warp 1's BRA at 111 goes
/// to line 5: a miss (111 -> 212, the program ends in it: no prefetch), so warp 1 stalls until
/// 212 while warp 0, on a present line, runs its 10 iterations of IADD, ISETP, BRA (9 cycles
/// each, from 114) and exits at 204: CTA 0 ends at 205. Warp 1: MOV at 212, EXIT at 213, CTA 1
/// ends at 214.
void icache_miss_stalls_only_its_warp(bool accurate)
{
    bench tb(icache_cfg(), accurate);
    const auto bytes = tb.load(branch_far);
    tb.launch(bytes, 32, {}, 0, 2);
    tb.launch(bytes, 32, {}, 1, 2);
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 2);
    std::map<std::uint32_t, sc_time> at;
    for (const auto& d : tb.cp.dones) {
        CHECK(d.d.status == cp::cta_status::ok);
        at[d.d.cta_x] = d.at;
    }
    CHECK(at[0] == sc_time(205, SC_NS));
    CHECK(at[1] == sc_time(214, SC_NS));
    CHECK(stat("sm.w0.instructions", -1) == 35); // 4 + 10 x 3 + EXIT
    CHECK(stat("sm.w1.instructions", -1) == 5);
    CHECK(stat("sm.w1.stall_cycles", -1) == 214 - 5);
    CHECK(tb.sm.icache_misses() == 2u);       // lines 0 and 5
    CHECK(tb.sm.icache_prefetches() == 2u);   // lines 1 and 2
    CHECK(tb.sm.icache_hits() == 1u);         // warp 0 on line 1
    CHECK(tb.sm.icache_pending_hits() == 1u); // warp 1 on line 0
    CHECK(stat("sm.fetch_requests", -1) == 4);
}
} // namespace

TEST_CASE("icache: a program run by several warps and CTAs misses once per line per SM (fast)")
{
    icache_misses_once_per_line(false);
}

TEST_CASE("icache: a program run by several warps and CTAs misses once per line per SM "
          "(accurate)")
{
    icache_misses_once_per_line(true);
}

TEST_CASE("icache: a miss stalls only the warp that needs the line (fast)")
{
    icache_miss_stalls_only_its_warp(false);
}

TEST_CASE("icache: a miss stalls only the warp that needs the line (accurate)")
{
    icache_miss_stalls_only_its_warp(true);
}

TEST_CASE("icache: a program that cannot be read faults the CTA at pc 0 with its VA")
{
    bench tb(icache_cfg());
    tb.launch(64, 32, {}); // nothing mapped at prog_va
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    const cp::cta_done& d = tb.cp.dones[0].d;
    CHECK(d.status == cp::cta_status::fault);
    CHECK(d.pc == 0u);
    CHECK(d.vaddr == prog_va);
    CHECK(std::string(d.message) == "instruction fetch at VA 0x10000 failed (not readable)");
    CHECK(stat("sm.fetch_requests", -1) == 0);
}

namespace {
/// Done time of one warp running 32 independent MOVs and EXIT (33 instructions, 9 lines of
/// 64 B) with the instruction cache and `depth` lines of prefetch.
sc_time straight_line_with_prefetch(unsigned depth)
{
    auto cfg = icache_cfg();
    cfg.icache_prefetch_lines = depth;
    bench tb(cfg);
    std::string text;
    for (unsigned r = 1; r <= 32; ++r)
        text += "MOV R" + std::to_string(r) + ", " + std::to_string(r) + "\n";
    const auto bytes = tb.load(text + "EXIT\n");
    tb.launch(bytes, 32, {});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(stat("sm.icache_misses", -1) == 1); // every other line was prefetched
    CHECK(stat("sm.icache_prefetches", -1) == 8);
    return tb.cp.dones[0].at;
}
} // namespace

TEST_CASE("instruction prefetch, one line ahead: straight-line code gets two lines per fill")
{
    // A warp looks up its next line when it issues the last instruction of the current one.
    // Line 0 misses at 0 (ready 101) and line 1 is prefetched (ready 102); the first use of a
    // prefetched line, even in flight, prefetches the next: line 2 at about 104 (ready about
    // 205), line 3 when the warp reaches line 2, and so on: two lines per 104 cycles or so,
    // 101 + 4 x 104 = 517 for the 9 lines (a fill per line would need about 9 x 101).
    const sc_time t = straight_line_with_prefetch(1);
    CHECK(t >= sc_time(505, SC_NS));
    CHECK(t <= sc_time(530, SC_NS));
}

TEST_CASE("instruction prefetch, four lines ahead: the fills overlap")
{
    // Line 0 misses at 0 (ready 101), lines 1..4 are prefetched at cycles 1..4 (ready 102..105);
    // the first use of lines 1..4 (cycles 104..117) prefetches lines 5..8 (ready about 206,
    // 210, 214, 218): the warp waits once more, and EXIT (line 8) issues at about 218.
    const sc_time t = straight_line_with_prefetch(4);
    CHECK(t >= sc_time(212, SC_NS));
    CHECK(t <= sc_time(225, SC_NS));
}

// ---- CDL: the access controller and its scheduling/execution core in the SM ----

namespace {
/// The bench with a CBV table whose slot 0 holds `dwords` dwords at va (value i + 1 at i).
struct cdl_bench : bench {
    cdl::cbv_table cbvs{"cbvs", 4};
    test::test_initiator host{"host"}; ///< on the table's register window (set model side)
    tlm_bus::protocol_checker pc_cbv{"pc_cbv"};
    cdl_bench(bool accurate, std::uint64_t va, unsigned dwords)
        : bench(default_cfg(), accurate, 100)
    {
        host.body = [](test::test_initiator&) {};
        tlm_bus::bind_checked(host.mem, pc_cbv, cbvs.mmio);
        map(va, dwords * 4, false);
        for (unsigned i = 0; i < dwords; ++i)
            write32(va + 4 * i, i + 1);
        cbvs.program(0, {va, dwords * 4ull});
        cdl::cdl_config c;
        c.max_outstanding = 8;
        sm.attach_unit(cdl::cdl_unit::factory(cbvs, c));
    }
};

/// Loads 256 dwords with one bulk CDL (or 8 legacy CDLs), stores R16..R23 to out; returns
/// the CTA's end.
sc_time run_cdl(bool accurate, bool bulk)
{
    const std::uint64_t cbv_va = 0x40000, out = 0x60000;
    cdl_bench tb(accurate, cbv_va, 256);
    std::string text = "S2R R2, SR_LANEID\nSHL R2, R2, 2\nLDP R4, out\nIADD R7, R4, R2\n";
    if (bulk) {
        text += "CDL R16, 0, cbv[0], 256\n";
    } else {
        text += "MOV R8, R2\n";
        for (int k = 0; k < 8; ++k)
            text += "CDL R" + std::to_string(16 + k) + ", R8, cbv[0]\nIADD R8, R8, 128\n";
    }
    for (int k = 0; k < 8; ++k)
        text += "ST [R7+" + std::to_string(128 * k) + "], R" + std::to_string(16 + k) + "\n";
    text += "EXIT\n";
    const auto bytes = tb.load(text, {{"out", 0}});
    tb.map(out, 1024);
    tb.launch(bytes, 32, {static_cast<std::uint32_t>(out)});
    sc_core::sc_start();
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.cp.dones.size() == 1);
    CHECK(tb.cp.dones[0].d.status == cp::cta_status::ok);
    // Lane l of R16 + k holds dword 32 k + l of the CBV (value 32 k + l + 1).
    for (unsigned i = 0; i < 256; ++i)
        REQUIRE(tb.read32(out + 4 * i) == i + 1);
    CHECK(stat(bulk ? "sm_cdl.core.registers_written" : "sm_cdl.controller.legacy") ==
          (bulk ? 8 : 8));
    CHECK(stat("sm_cdl.core.line_reads", -1) == (bulk ? 1024 / line_bytes : 0));
    return tb.cp.dones[0].at;
}
} // namespace

TEST_CASE("cdl, fast: one bulk CDL loads 8 registers and ends before 8 legacy CDLs")
{
    const sc_time bulk = run_cdl(false, true);
    // Fetch, two rounds of 8 line reads (cdl.max_outstanding) and the stores, 100 ns each.
    CHECK(bulk > sc_time(400, SC_NS));
    CHECK(bulk < sc_time(500, SC_NS));
}

TEST_CASE("cdl, accurate: one bulk CDL loads 8 registers in LSU threads, in address order")
{
    const sc_time bulk = run_cdl(true, true);
    CHECK(bulk > sc_time(400, SC_NS));
    CHECK(bulk < sc_time(500, SC_NS));
}

TEST_CASE("cdl, fast: eight legacy CDLs load the same registers")
{
    const sc_time legacy = run_cdl(false, false);
    CHECK(legacy > sc_time(200, SC_NS));
}

TEST_CASE("cdl, accurate: eight legacy CDLs load the same registers")
{
    const sc_time legacy = run_cdl(true, false);
    CHECK(legacy > sc_time(200, SC_NS));
}
