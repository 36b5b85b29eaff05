// The firmware CPU's instruction-set simulator: an rv32imac hart in machine mode on the
// Unicorn engine, with the traps and interrupts of the RISC-V privileged specification that
// Unicorn leaves out. No SystemC. See models/host_cpu/README.md.
#pragma once

#include "models/host_cpu/core/elf_loader.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

struct uc_struct;

namespace vgpu::host_cpu {

/// mcause values (RISC-V privileged specification, table 3.6).
namespace cause {
constexpr std::uint32_t interrupt = 0x80000000u; ///< the Interrupt bit
constexpr std::uint32_t machine_timer = 7;       ///< with the Interrupt bit
constexpr std::uint32_t machine_external = 11;   ///< with the Interrupt bit
constexpr std::uint32_t illegal_instruction = 2;
constexpr std::uint32_t breakpoint = 3;
constexpr std::uint32_t load_access_fault = 5;
constexpr std::uint32_t store_access_fault = 7;
constexpr std::uint32_t ecall_m = 11;
} // namespace cause

/// mstatus and mie/mip bits used here.
namespace csr_bit {
constexpr std::uint32_t mstatus_mie = 1u << 3;
constexpr std::uint32_t mstatus_mpie = 1u << 7;
constexpr std::uint32_t mstatus_mpp = 3u << 11;
constexpr std::uint32_t mtip = 1u << 7;  ///< machine timer interrupt (mie.MTIE, mip.MTIP)
constexpr std::uint32_t meip = 1u << 11; ///< machine external interrupt (mie.MEIE, mip.MEIP)
} // namespace csr_bit

/// Why run() returned.
enum class stop_reason {
    limit,      ///< the instruction budget is used up
    wfi,        ///< the next instruction is WFI (not executed: see resume_after_wfi())
    breakpoint, ///< a debugger breakpoint at pc() (not executed)
    halted,     ///< the bus asked to stop (e.g. the result register was written)
    csr,        ///< an instruction changed mstatus or mie, or was mret: check interrupts now
    error       ///< the engine could not go on (error() says why)
};

/// The bus of everything outside RAM: returns false for an access error (the hart takes a
/// precise access fault). `cycles_hint` is unused by the core.
struct bus_if {
    virtual ~bus_if() = default;
    virtual bool read(std::uint32_t addr, unsigned len, std::uint32_t& value) = 0;
    virtual bool write(std::uint32_t addr, unsigned len, std::uint32_t value) = 0;
};

/// One rv32imac hart in M-mode with RAM at [ram_base, ram_base + ram_bytes).
class iss {
public:
    iss(std::uint32_t ram_base, std::uint32_t ram_bytes, bus_if& bus);
    ~iss();
    iss(const iss&) = delete;
    iss& operator=(const iss&) = delete;

    /// Copies the segments into RAM (zero-filling the rest of each) and sets pc to the entry.
    void load(const elf_image& im);
    /// Runs at most `budget` instructions; instructions() counts those executed.
    stop_reason run(std::uint64_t budget);
    /// Takes interrupt `code` (mcause = Interrupt | code) if mstatus.MIE is set and the bit
    /// `code` of mie is set in `mip`; returns true if it did. `mip` is the platform's view of
    /// the pending interrupts (the hart's own mip CSR is not used).
    bool take_interrupt(std::uint32_t mip);
    /// True if an interrupt of `mip` is enabled in mie (what ends WFI, whatever mstatus.MIE).
    bool wfi_wakes(std::uint32_t mip) const;
    /// Steps over the WFI at pc() (after stop_reason::wfi, once it has woken).
    void resume_after_wfi();
    /// Asks a running run() to return with stop_reason::halted after this instruction.
    void halt() { m_halt = true; }

    std::uint64_t instructions() const { return m_instructions; }  ///< executed so far
    std::uint64_t run_instructions() const { return m_run_count; } ///< in the current run()
    std::uint32_t pc() const;
    void set_pc(std::uint32_t pc);
    std::uint32_t reg(unsigned i) const; ///< x0..x31
    void set_reg(unsigned i, std::uint32_t v);
    std::uint32_t csr(int uc_reg) const; ///< a CSR by Unicorn register id
    void set_csr(int uc_reg, std::uint32_t v);
    /// PC of the instruction being executed (inside a bus callback: the one accessing it).
    std::uint32_t current_pc() const { return m_cur_pc; }
    const std::string& error() const { return m_error; } ///< after stop_reason::error

    /// Takes a synchronous exception at current_pc() (mepc), with mtval; used for bus errors.
    void trap(std::uint32_t mcause, std::uint32_t mtval);
    std::uint32_t last_trap_cause() const { return m_last_cause; } ///< 0 if none yet
    std::uint64_t traps() const { return m_traps; }                ///< exceptions taken

    std::uint8_t* ram() { return m_ram.data(); } ///< RAM contents (DMI)
    std::uint32_t ram_base() const { return m_ram_base; }
    std::uint32_t ram_bytes() const { return static_cast<std::uint32_t>(m_ram.size()); }
    bool in_ram(std::uint32_t addr, std::uint32_t len) const
    {
        return addr >= m_ram_base && addr - m_ram_base <= m_ram.size() &&
               len <= m_ram.size() - (addr - m_ram_base);
    }
    /// Debugger access to RAM or, outside it, the bus (false where neither answers).
    bool peek(std::uint32_t addr, std::uint8_t* data, std::uint32_t len);
    bool poke(std::uint32_t addr, const std::uint8_t* data, std::uint32_t len);
    std::set<std::uint32_t>& breakpoints() { return m_breakpoints; } ///< debugger breakpoints
    /// True while a debugger steps: the breakpoint at the first instruction is stepped over.
    void skip_breakpoint_once() { m_skip_bp = true; }

private:
    static void on_code(uc_struct* uc, std::uint64_t addr, std::uint32_t size, void* self);
    static void on_intr(uc_struct* uc, std::uint32_t intno, void* self);
    static std::uint64_t on_read(uc_struct* uc, std::uint64_t off, unsigned size, void* self);
    static void on_write(uc_struct* uc, std::uint64_t off, unsigned size, std::uint64_t value,
                         void* self);
    std::uint64_t mmio_read(std::uint32_t addr, unsigned size);
    void mmio_write(std::uint32_t addr, unsigned size, std::uint32_t value);
    void enter_trap(std::uint32_t mcause, std::uint32_t mepc, std::uint32_t mtval);

    uc_struct* m_uc = nullptr;
    bus_if& m_bus;
    std::uint32_t m_ram_base;
    std::vector<std::uint8_t> m_ram;
    std::uint64_t m_instructions = 0, m_run_count = 0, m_budget = 0, m_traps = 0;
    std::uint32_t m_cur_pc = 0, m_last_cause = 0;
    stop_reason m_stop = stop_reason::limit;
    bool m_halt = false, m_skip_bp = false, m_csr_window = false;
    std::set<std::uint32_t> m_breakpoints;
    std::string m_error;
    std::uint64_t m_hooks[2] = {0, 0};
    /// One MMIO mapping of the engine: the address space below or above RAM.
    struct window {
        iss* self;
        std::uint32_t base;
    };
    window m_windows[2] = {};
};

} // namespace vgpu::host_cpu
