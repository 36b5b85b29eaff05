// The SM shell tests' bench: an SM whose memory port goes through an ideal TLB into memory,
// a stub CP on the control path, the protocol checker on every socket. See models/sm/README.md.
#pragma once

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

namespace vgpu::test::sm_bench {
using vgpu::test::stat;
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
inline sm::sm_config default_cfg()
{
    sm::sm_config c;
    c.warp_slots = 16;
    c.cta_slots = 4;
    c.icache_bytes.bytes = 0;
    return c;
}

/// default_cfg() with the shipped instruction cache (sm.icache_bytes, sm.icache_ways).
inline sm::sm_config icache_cfg()
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
        l.grid_z = 1;
        l.block_z = 1;
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

inline const char* const vector_add = R"(
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
inline const sm::symbol_table abc{{"a", 0}, {"b", 1}, {"c", 2}};

inline const char* const reduction = R"(
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
inline const sm::symbol_table red_params{{"in", 0}, {"tmp", 1}, {"out", 2}};
} // namespace vgpu::test::sm_bench
