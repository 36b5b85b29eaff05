// Shared test support: a cache shell (L1, LLC slice) over a DRAM controller with the protocol
// checker on every link, and the helpers its tests use. See test/CMakeLists.txt.
#pragma once

#include "models/common/timing.h"
#include "models/dram/dram.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/initiator_port.h"
#include "tlm_bus/protocol_checker.h"
#include "tlm_bus/router.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>

namespace vgpu::test {

/// Bytes of the DRAM below the cache; the router maps twice as much (the rest is unmapped).
constexpr std::uint64_t mem_size = 1 << 20;

/// A DRAM whose figures are easy to add up: 10 ns latency, a line occupies a channel for two
/// 1 ns cycles, no bank timings.
inline dram::dram_config dram_cfg()
{
    dram::dram_config c;
    c.size.bytes = mem_size;
    c.latency.ps = 10000;
    c.bandwidth_gbps = 64.0; // a line occupies a channel 2 cycles of 1 ns
    c.channels = 2;
    // No bank timings: a read costs its transfer and then the 10 ns latency.
    c.tRCD = c.tCL = c.tRP = c.tRAS = duration{0};
    c.tBURST = duration{1000}; // at least one 1 ns DRAM cycle per transfer, as the figures assume
    c.dmi = true;              // offered by the DRAM, refused by the cache above it
    return c;
}

/// Every clock at 1 ns; fast or accurate timing.
inline clock_params clocks(bool accurate = false)
{
    clock_params p;
    p.accurate = accurate;
    p.core_ps = 1000;
    p.noc_ps = 1000;
    p.dram_ps = 1000;
    return p;
}

/// init (+ init2) -> router -> cache -> dram, and `side` -> dram directly (another requester's
/// path). `Cache` is constructed as Cache("cache", cfg, clocks).
template <class Cache, class Config> struct cache_bench {
    test::test_initiator init{"init"}, side{"side"};
    std::unique_ptr<test::test_initiator> init2;
    tlm_bus::protocol_checker pc_in{"pc_in"}, pc_cache{"pc_cache"}, pc_out{"pc_out"},
        pc_side{"pc_side"};
    std::unique_ptr<tlm_bus::protocol_checker> pc_in2;
    tlm_bus::router bus{"bus"};
    Cache cache;
    dram::dram mem;
    /// `two`: a second initiator `init2` on the router.
    cache_bench(const Config& c, bool two, bool accurate, const dram::dram_config& d = dram_cfg())
        : cache("cache", c, clocks(accurate)), mem("mem", d, clocks(accurate), 0, c.line_bytes)
    {
        tlm_bus::bind_checked(init.mem, pc_in, bus.in);
        if (two) {
            init2 = std::make_unique<test::test_initiator>("init2");
            pc_in2 = std::make_unique<tlm_bus::protocol_checker>("pc_in2");
            tlm_bus::bind_checked(init2->mem, *pc_in2, bus.in);
        }
        tlm_bus::bind_checked(bus.out, pc_cache, cache.in);
        tlm_bus::bind_checked(cache.out, pc_out, mem.in);
        tlm_bus::bind_checked(side.mem, pc_side, mem.in);
        bus.map({0, 2 * mem_size, 0, 0, "cache"}); // the upper half is beyond the memory
        side.body = [](test::test_initiator&) {};
    }
    /// Protocol violations seen on every link.
    std::size_t violations() const
    {
        return pc_in.violations() + pc_cache.violations() + pc_out.violations() +
               pc_side.violations() + (pc_in2 ? pc_in2->violations() : 0);
    }
};

/// A timed access with an optional byte-enable mask through a hand-built payload.
inline tlm::tlm_response_status access_be(tlm_bus::initiator_port& port, tlm::tlm_command cmd,
                                          std::uint64_t addr, void* data, unsigned len,
                                          unsigned char* be, unsigned be_len,
                                          sc_core::sc_time& delay)
{
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_byte_enable_ptr(be);
    gp.set_byte_enable_length(be ? be_len : 0);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    port->b_transport(gp, delay);
    return gp.get_response_status();
}

/// The word at `addr` as a debug read through `port` sees it.
inline std::uint32_t dbg_read32(tlm_bus::initiator_port& port, std::uint64_t addr)
{
    std::uint32_t v = 0;
    port.debug(tlm::TLM_READ_COMMAND, addr, &v, 4);
    return v;
}

} // namespace vgpu::test
