// The firmware CPU's instruction-set simulator on Unicorn. See models/host_cpu/README.md.
#include "models/host_cpu/core/iss.h"

#include <unicorn/unicorn.h>

#include <cstring>

namespace vgpu::host_cpu {

namespace {
constexpr std::uint32_t wfi_word = 0x10500073;
constexpr std::uint32_t ebreak_word = 0x00100073;
constexpr std::uint32_t mret_word = 0x30200073;
constexpr std::uint16_t c_ebreak_half = 0x9002;

std::uint32_t reg_id(unsigned i)
{
    return UC_RISCV_REG_X0 + i;
}
} // namespace

iss::iss(std::uint32_t ram_base, std::uint32_t ram_bytes, bus_if& bus)
    : m_bus(bus), m_ram_base(ram_base), m_ram(ram_bytes, 0)
{
    if (ram_base % 4096 != 0 || ram_bytes % 4096 != 0 || ram_bytes == 0 ||
        std::uint64_t{ram_base} + ram_bytes > (1ull << 32))
        throw std::invalid_argument("firmware RAM must be whole 4 KiB pages inside 32 bits");
    uc_engine* uc = nullptr;
    if (uc_open(UC_ARCH_RISCV, UC_MODE_RISCV32, &uc) != UC_ERR_OK)
        throw std::runtime_error("the Unicorn engine cannot open a RISC-V 32-bit CPU");
    m_uc = uc;
    // The SiFive E31 is an rv32imac core: no F/D, so the firmware cannot depend on them.
    uc_ctl_set_cpu_model(uc, UC_CPU_RISCV32_SIFIVE_E31);
    uc_mem_map_ptr(uc, ram_base, ram_bytes, UC_PROT_ALL, m_ram.data());
    const std::uint64_t end = std::uint64_t{ram_base} + ram_bytes;
    m_windows[0] = {this, 0};
    m_windows[1] = {this, static_cast<std::uint32_t>(end)};
    if (ram_base > 0)
        uc_mmio_map(uc, 0, ram_base, &iss::on_read, &m_windows[0], &iss::on_write, &m_windows[0]);
    if (end < (1ull << 32))
        uc_mmio_map(uc, end, (1ull << 32) - end, &iss::on_read, &m_windows[1], &iss::on_write,
                    &m_windows[1]);
    uc_hook h;
    uc_hook_add(uc, &h, UC_HOOK_CODE, reinterpret_cast<void*>(&iss::on_code), this, 1, 0);
    m_hooks[0] = h;
    uc_hook_add(uc, &h, UC_HOOK_INTR, reinterpret_cast<void*>(&iss::on_intr), this, 1, 0);
    m_hooks[1] = h;
}

iss::~iss()
{
    if (m_uc)
        uc_close(m_uc);
}

void iss::load(const elf_image& im)
{
    for (const elf_segment& s : im.segments) {
        std::uint8_t* at = m_ram.data() + (s.addr - m_ram_base);
        std::memset(at, 0, s.mem_bytes);
        if (!s.data.empty())
            std::memcpy(at, s.data.data(), s.data.size());
    }
    uc_ctl_remove_cache(m_uc, m_ram_base, std::uint64_t{m_ram_base} + m_ram.size());
    set_pc(im.entry);
}

std::uint32_t iss::pc() const
{
    std::uint32_t v = 0;
    uc_reg_read(m_uc, UC_RISCV_REG_PC, &v);
    return v;
}

void iss::set_pc(std::uint32_t pc)
{
    uc_reg_write(m_uc, UC_RISCV_REG_PC, &pc);
}

std::uint32_t iss::reg(unsigned i) const
{
    std::uint32_t v = 0;
    if (i != 0)
        uc_reg_read(m_uc, reg_id(i), &v);
    return v;
}

void iss::set_reg(unsigned i, std::uint32_t v)
{
    if (i != 0)
        uc_reg_write(m_uc, reg_id(i), &v);
}

std::uint32_t iss::csr(int id) const
{
    std::uint32_t v = 0;
    uc_reg_read(m_uc, id, &v);
    return v;
}

void iss::set_csr(int id, std::uint32_t v)
{
    uc_reg_write(m_uc, id, &v);
}

stop_reason iss::run(std::uint64_t budget)
{
    m_budget = budget;
    m_run_count = 0;
    m_stop = stop_reason::limit;
    m_halt = false;
    m_csr_window = false;
    const uc_err e = uc_emu_start(m_uc, pc(), 0, 0, 0);
    m_skip_bp = false;
    if (e != UC_ERR_OK && m_stop != stop_reason::error) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s at PC 0x%08x", uc_strerror(e),
                      e == UC_ERR_FETCH_UNMAPPED || e == UC_ERR_FETCH_PROT ? pc() : m_cur_pc);
        m_error = buf;
        m_stop = stop_reason::error;
    }
    return m_stop;
}

void iss::on_code(uc_struct* uc, std::uint64_t addr64, std::uint32_t size, void* p)
{
    auto& s = *static_cast<iss*>(p);
    const auto addr = static_cast<std::uint32_t>(addr64);
    if (s.m_halt) {
        s.m_stop = stop_reason::halted;
        uc_emu_stop(uc);
        return;
    }
    if (s.m_run_count >= s.m_budget) {
        uc_emu_stop(uc);
        return;
    }
    if (s.m_csr_window) {
        // The previous instruction may have enabled an interrupt: the hart takes it before
        // this one, as the privileged specification has it.
        s.m_csr_window = false;
        s.m_stop = stop_reason::csr;
        uc_emu_stop(uc);
        return;
    }
    if (!s.m_breakpoints.empty() && s.m_breakpoints.count(addr) &&
        !(s.m_skip_bp && s.m_run_count == 0)) {
        s.m_stop = stop_reason::breakpoint;
        uc_emu_stop(uc);
        return;
    }
    // Instructions Unicorn does not carry out as the privileged specification says: WFI (a
    // no-op there) idles the hart; EBREAK raises a breakpoint exception.
    if (s.in_ram(addr, size)) {
        const std::uint8_t* w = s.m_ram.data() + (addr - s.m_ram_base);
        std::uint32_t word = 0;
        std::memcpy(&word, w, size == 2 ? 2 : 4);
        if (size == 4 && word == wfi_word) {
            s.m_stop = stop_reason::wfi;
            uc_emu_stop(uc);
            return;
        }
        if (size == 4 && (word & 0x7f) == 0x73 && (word >> 12 & 7) != 0) {
            const std::uint32_t csr = word >> 20;
            s.m_csr_window = csr == 0x300 || csr == 0x304; // mstatus, mie
        } else if (size == 4 && word == mret_word) {
            s.m_csr_window = true;
        }
        if ((size == 4 && word == ebreak_word) ||
            (size == 2 && static_cast<std::uint16_t>(word) == c_ebreak_half)) {
            s.m_cur_pc = addr;
            s.trap(cause::breakpoint, addr);
            return;
        }
    }
    ++s.m_run_count;
    ++s.m_instructions;
    s.m_cur_pc = addr;
}

void iss::on_intr(uc_struct*, std::uint32_t intno, void* p)
{
    auto& s = *static_cast<iss*>(p);
    // Unicorn reports an environment call by its user-mode number; the hart is in M-mode.
    const std::uint32_t c = intno == 8 ? cause::ecall_m : intno;
    s.trap(c, 0);
}

void iss::enter_trap(std::uint32_t mcause, std::uint32_t mepc, std::uint32_t mtval)
{
    std::uint32_t ms = csr(UC_RISCV_REG_MSTATUS);
    // Privileged specification 3.1.6.1: MPIE <- MIE, MIE <- 0, MPP <- M.
    ms = (ms & ~(csr_bit::mstatus_mie | csr_bit::mstatus_mpie)) |
         (ms & csr_bit::mstatus_mie ? csr_bit::mstatus_mpie : 0) | csr_bit::mstatus_mpp;
    set_csr(UC_RISCV_REG_MSTATUS, ms);
    set_csr(UC_RISCV_REG_MEPC, mepc);
    set_csr(UC_RISCV_REG_MCAUSE, mcause);
    set_csr(UC_RISCV_REG_MTVAL, mtval);
    const std::uint32_t mtvec = csr(UC_RISCV_REG_MTVEC);
    std::uint32_t target = mtvec & ~3u;
    if ((mtvec & 3) == 1 && (mcause & cause::interrupt))
        target += 4 * (mcause & ~cause::interrupt); // vectored mode
    m_last_cause = mcause;
    if (!(mcause & cause::interrupt))
        ++m_traps;
    if ((mtvec & ~3u) == 0 && !(mcause & cause::interrupt)) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "unhandled exception (mcause %u, mepc 0x%08x, mtval 0x%08x): mtvec is 0",
                      mcause, mepc, mtval);
        m_error = buf;
        m_stop = stop_reason::error;
        uc_emu_stop(m_uc);
    }
    set_pc(target);
}

void iss::trap(std::uint32_t mcause, std::uint32_t mtval)
{
    enter_trap(mcause, m_cur_pc, mtval);
}

bool iss::wfi_wakes(std::uint32_t mip) const
{
    return (mip & csr(UC_RISCV_REG_MIE)) != 0;
}

bool iss::take_interrupt(std::uint32_t mip)
{
    const std::uint32_t pending = mip & csr(UC_RISCV_REG_MIE);
    if (pending == 0 || !(csr(UC_RISCV_REG_MSTATUS) & csr_bit::mstatus_mie))
        return false;
    // Priority (privileged specification 3.1.9): external before timer.
    const std::uint32_t code =
        pending & csr_bit::meip ? cause::machine_external : cause::machine_timer;
    enter_trap(cause::interrupt | code, pc(), 0);
    return true;
}

void iss::resume_after_wfi()
{
    set_pc(pc() + 4);
}

std::uint64_t iss::on_read(uc_struct*, std::uint64_t off, unsigned size, void* p)
{
    const auto* w = static_cast<const window*>(p);
    return w->self->mmio_read(static_cast<std::uint32_t>(w->base + off), size);
}

void iss::on_write(uc_struct*, std::uint64_t off, unsigned size, std::uint64_t value, void* p)
{
    const auto* w = static_cast<const window*>(p);
    w->self->mmio_write(static_cast<std::uint32_t>(w->base + off), size,
                        static_cast<std::uint32_t>(value));
}

std::uint64_t iss::mmio_read(std::uint32_t addr, unsigned size)
{
    std::uint32_t v = 0;
    if (!m_bus.read(addr, size, v)) {
        trap(cause::load_access_fault, addr);
        return 0;
    }
    return v;
}

void iss::mmio_write(std::uint32_t addr, unsigned size, std::uint32_t value)
{
    if (!m_bus.write(addr, size, value))
        trap(cause::store_access_fault, addr);
}

bool iss::peek(std::uint32_t addr, std::uint8_t* data, std::uint32_t len)
{
    if (in_ram(addr, len)) {
        std::memcpy(data, m_ram.data() + (addr - m_ram_base), len);
        return true;
    }
    return false;
}

bool iss::poke(std::uint32_t addr, const std::uint8_t* data, std::uint32_t len)
{
    if (!in_ram(addr, len))
        return false;
    std::memcpy(m_ram.data() + (addr - m_ram_base), data, len);
    uc_ctl_remove_cache(m_uc, addr, std::uint64_t{addr} + len);
    return true;
}

} // namespace vgpu::host_cpu
