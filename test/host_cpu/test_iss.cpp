// Unit tests of the firmware CPU's core without SystemC: a test firmware on the hart with a
// stub bus. See models/host_cpu/README.md.
#include "models/host_cpu/core/iss.h"

#include <catch2/catch.hpp>
#include <unicorn/unicorn.h>

#include <cstring>
#include <string>

using namespace vgpu::host_cpu;

namespace {
constexpr std::uint32_t ram = 0x80000000, sys = 0x50000000;

/// The CPU window as the firmware runtime uses it; 0x70000040 answers with an error.
struct stub_bus : bus_if {
    iss* core = nullptr;
    std::string console;
    std::uint32_t result = ~0u, failed_pc = 0;
    bool read(std::uint32_t addr, unsigned, std::uint32_t& v) override
    {
        v = 0; // TABLE 0: no launch table
        if (addr == 0x70000040) {
            failed_pc = core->current_pc();
            return false;
        }
        return addr >= sys && addr < sys + 0x1000;
    }
    bool write(std::uint32_t addr, unsigned, std::uint32_t v) override
    {
        if (addr == sys)
            console += static_cast<char>(v);
        else if (addr == sys + 4) {
            result = v;
            core->halt();
        }
        return addr >= sys && addr < sys + 0x1000;
    }
};
} // namespace

TEST_CASE("a bus error is a precise load access fault: mepc the load, mtval the address")
{
    stub_bus bus;
    iss core(ram, 1 << 20, bus);
    bus.core = &core;
    core.load(load_elf(VGPU_FW_MMIO_FAULT, ram, 1 << 20));
    for (int i = 0; i < 1000 && bus.result == ~0u; ++i)
        REQUIRE(core.run(1000) != stop_reason::error);
    INFO(bus.console);
    REQUIRE(bus.result == 0x105); // the runtime's code for mcause 5
    REQUIRE(core.csr(UC_RISCV_REG_MCAUSE) == cause::load_access_fault);
    REQUIRE(core.csr(UC_RISCV_REG_MTVAL) == 0x70000040);
    REQUIRE(core.csr(UC_RISCV_REG_MEPC) == bus.failed_pc);
    // The instruction at mepc is the load (LW, or C.LW / C.LWSP).
    std::uint32_t word = 0;
    REQUIRE(core.peek(bus.failed_pc, reinterpret_cast<std::uint8_t*>(&word), 4));
    const bool lw = (word & 0x7f) == 0x03 || (word & 0xe003) == 0x4000 || (word & 0xe003) == 0x4002;
    REQUIRE(lw);
    REQUIRE(bus.console.find("firmware trap: load access fault (mcause 5)") != std::string::npos);
    REQUIRE(core.traps() == 1);
}

TEST_CASE("WFI stops the hart before it, and interrupts are taken only when enabled")
{
    stub_bus bus;
    iss core(ram, 1 << 20, bus);
    bus.core = &core;
    core.load(load_elf(VGPU_FW_SLEEP_FOREVER, ram, 1 << 20));
    stop_reason r = stop_reason::limit;
    for (int i = 0; i < 1000 && (r == stop_reason::limit || r == stop_reason::csr); ++i)
        r = core.run(1000);
    REQUIRE(r == stop_reason::wfi);
    std::uint32_t word = 0;
    REQUIRE(core.peek(core.pc(), reinterpret_cast<std::uint8_t*>(&word), 4));
    REQUIRE(word == 0x10500073); // stopped before the WFI, not after it
    // The firmware enabled only the timer in mie and left mstatus.MIE off.
    REQUIRE_FALSE(core.wfi_wakes(csr_bit::meip));
    REQUIRE(core.wfi_wakes(csr_bit::mtip));
    REQUIRE_FALSE(core.take_interrupt(csr_bit::mtip)); // MIE off: WFI wakes, no trap
    const std::uint32_t at = core.pc();
    core.resume_after_wfi();
    REQUIRE(core.pc() == at + 4);
}
