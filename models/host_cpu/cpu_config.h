// Configuration of the firmware CPU (section `host.cpu`). See models/host_cpu/README.md.
#pragma once

#include "models/common/config.h"

namespace vgpu::host_cpu {

/// Section `host.cpu`: the RISC-V hart that runs the firmware (host.kind riscv).
struct cpu_config {
    double mips = 1000;                   ///< instructions per simulated microsecond
    unsigned quantum_instructions = 1000; ///< instructions between interrupt checks
    byte_size ram_bytes{1u << 20};        ///< firmware RAM at ram_base
    unsigned gdb_port = 0;                ///< GDB remote stub on 127.0.0.1 (0: none; --gdb)

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("mips", mips,
                spec("firmware instructions per simulated microsecond (the hart's speed: one "
                     "instruction takes 1/mips us)")
                    .range(1, 100000));
        v.value("quantum_instructions", quantum_instructions,
                spec("instructions the hart runs between two synchronisations with the platform; "
                     "interrupts are taken at these boundaries, so they arrive at most "
                     "quantum_instructions / mips us late")
                    .range(1, 1000000));
        v.value("ram_bytes", ram_bytes,
                spec("firmware RAM (code, data, stack and the launch table) at 0x80000000")
                    .range(65536, 256u << 20));
        v.value("gdb_port", gdb_port,
                spec("TCP port of the GDB remote stub on 127.0.0.1 (0: none; vgpu-sim --gdb "
                     "PORT); the hart waits up to 120 s of host time for the debugger before its "
                     "first instruction")
                    .range(0, 65535));
    }
    void validate(config::checker& c) const
    {
        if (ram_bytes.bytes % 4096 != 0)
            c.error("host.cpu.ram_bytes", "must be a whole number of 4 KiB pages");
    }
};

} // namespace vgpu::host_cpu
