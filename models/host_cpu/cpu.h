// The firmware CPU: an rv32imac hart (core/iss.h) in a SystemC/TLM shell with its RAM, an
// interrupt controller, a timer, a console and a result register. See models/host_cpu/README.md.
#pragma once

#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/host_cpu/core/gdb_stub.h"
#include "models/host_cpu/core/iss.h"
#include "models/host_cpu/cpu_config.h"
#include "tlm_bus/initiator_port.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <systemc>

namespace vgpu::host_cpu {

constexpr std::uint32_t ram_base = 0x80000000; ///< first byte of the firmware RAM
constexpr std::uint32_t sys_base = 0x50000000; ///< the CPU's own register window

/// The CPU's own registers at sys_base (docs/registers.md, "Firmware CPU").
namespace sys_reg {
constexpr std::uint32_t CONSOLE = 0x00;     ///< W: one byte to the console
constexpr std::uint32_t RESULT = 0x04;      ///< W: ends the run; 0 pass, else a failure code
constexpr std::uint32_t IRQ_PENDING = 0x10; ///< RO: bit s = level of interrupt source s
constexpr std::uint32_t IRQ_ENABLE = 0x14;  ///< RW: bit s enables source s (mip.MEIP)
constexpr std::uint32_t IRQ_CLAIM = 0x18;   ///< R: lowest pending enabled source + 1, or 0
constexpr std::uint32_t MTIME_LO = 0x20;    ///< RO: simulated time in ns (low word first)
constexpr std::uint32_t MTIME_HI = 0x24;    ///< RO
constexpr std::uint32_t MTIMECMP_LO = 0x28; ///< RW: mip.MTIP while mtime >= mtimecmp
constexpr std::uint32_t MTIMECMP_HI = 0x2c; ///< RW
constexpr std::uint32_t HOST = 0x100;       ///< the owner's window (host_window) starts here
constexpr std::uint32_t WINDOW_BYTES = 0x1000;
} // namespace sys_reg

/// The firmware CPU (`gpu.host.cpu`).
class cpu : public sc_core::sc_module {
public:
    tlm_bus::initiator_port mmio;                 ///< accesses outside RAM and sys_base
    sc_core::sc_vector<sc_core::sc_in<bool>> irq; ///< interrupt sources (level), bit s
    sc_core::sc_event done;                       ///< the run ended (result, fault or error)

    /// Loads `image` into RAM; the hart starts when start() is called.
    cpu(const sc_core::sc_module_name& name, const cpu_config& cfg, const elf_image& image,
        unsigned sources);
    ~cpu() override;

    /// The owner's registers at sys_base + HOST: called in the CPU's thread at the current
    /// simulated time (the CPU has synchronised; the callback may wait). Returns false for an
    /// access error.
    std::function<bool(bool write, std::uint32_t off, std::uint32_t& value)> host_window;
    /// Releases the hart (after the owner has written what the firmware reads in RAM).
    void start() { m_start.notify(sc_core::SC_ZERO_TIME); }

    bool finished() const { return m_finished; } ///< the run ended
    bool passed() const { return m_finished && m_failure.empty(); }
    const std::string& failure() const { return m_failure; } ///< why the run failed, or empty
    const std::string& console() const { return m_console; } ///< every byte written so far
    std::string state() const; ///< where the hart is (for a run that hit its time limit)
    iss& core() { return *m_core; }
    std::uint64_t instructions() const { return m_core->instructions(); }
    std::uint64_t interrupts() const { return m_interrupts.value(); }
    sc_core::sc_time idle_time() const { return m_idle; }

private:
    class bus;
    void run();
    std::uint32_t mip() const; ///< the pending interrupts (MEIP, MTIP)
    std::uint64_t mtime_ns() const;
    bool sys_access(bool write, std::uint32_t off, std::uint32_t& value);
    bool bus_access(bool write, std::uint32_t addr, unsigned len, std::uint32_t& value);
    sc_core::sc_time local_now() const; ///< the hart's time ahead of sc_time_stamp()
    void finish(const std::string& failure);

    const cpu_config m_cfg;
    const sc_core::sc_time m_period; ///< one instruction
    std::unique_ptr<bus> m_bus;
    std::unique_ptr<iss> m_core;
    std::unique_ptr<gdb_stub> m_gdb; ///< host.cpu.gdb_port, or null
    /// Hands the stopped hart to the debugger; false when the run must end (kill, no debugger).
    bool debug_stop();
    bool m_step = false, m_resume_bp = false;
    sc_core::sc_time m_local_base; ///< time ahead of the global time before this run()
    sc_core::sc_time m_idle, m_idle_since;
    bool m_sleeping = false;
    std::uint32_t m_irq_enable = 0;
    std::uint64_t m_mtimecmp = ~0ull;
    sc_core::sc_event m_start, m_timer;
    sc_core::sc_event_or_list m_wake; ///< what ends WFI: any interrupt line, the timer
    bool m_finished = false;
    std::string m_failure, m_console, m_line;
    std::uint32_t m_fault_pc = 0, m_fault_addr = 0;
    logger m_log;
    stats::group m_stats;
    bool m_running = false, m_faulted = false;
    std::uint64_t m_instr_mark = 0; ///< run_instructions() at the last synchronisation
    stats::counter m_interrupts, m_mmio_accesses;
    stats::formula m_exceptions, m_instructions, m_idle_ns;
};

} // namespace vgpu::host_cpu
