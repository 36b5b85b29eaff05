// The firmware CPU's SystemC/TLM shell. See models/host_cpu/README.md.
#include "models/host_cpu/cpu.h"

#include "tlm_bus/byte_enables.h"

#include <unicorn/unicorn.h>

#include <cinttypes>

namespace vgpu::host_cpu {

namespace {
std::string hex32(std::uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

const char* cause_name(std::uint32_t c)
{
    switch (c) {
    case cause::illegal_instruction:
        return "illegal instruction";
    case cause::breakpoint:
        return "breakpoint";
    case cause::load_access_fault:
        return "load access fault";
    case cause::store_access_fault:
        return "store access fault";
    case cause::ecall_m:
        return "environment call";
    case 0:
        return "instruction address misaligned";
    case 1:
        return "instruction access fault";
    case 4:
        return "load address misaligned";
    case 6:
        return "store address misaligned";
    default:
        return "exception";
    }
}
} // namespace

/// The core's view of everything outside RAM.
class cpu::bus : public bus_if {
public:
    explicit bus(cpu& c) : m_cpu(c) {}
    bool read(std::uint32_t addr, unsigned len, std::uint32_t& value) override
    {
        return m_cpu.bus_access(false, addr, len, value);
    }
    bool write(std::uint32_t addr, unsigned len, std::uint32_t value) override
    {
        return m_cpu.bus_access(true, addr, len, value);
    }

private:
    cpu& m_cpu;
};

cpu::cpu(const sc_core::sc_module_name& name, const cpu_config& cfg, const elf_image& image,
         unsigned sources)
    : sc_module(name), mmio("mmio"), irq("irq", sources), m_cfg(cfg),
      m_period(sc_core::sc_time(1.0 / cfg.mips, sc_core::SC_US)),
      m_bus(std::make_unique<bus>(*this)),
      m_core(
          std::make_unique<iss>(ram_base, static_cast<std::uint32_t>(cfg.ram_bytes.bytes), *m_bus)),
      m_log(this->name()), m_stats(this->name()),
      m_interrupts(m_stats, "interrupts", "count", "interrupts the hart took"),
      m_mmio_accesses(m_stats, "mmio_accesses", "count",
                      "loads and stores outside RAM (the CPU's registers and the MMIO bus)"),
      m_exceptions(m_stats, "exceptions", "count",
                   "synchronous exceptions (access faults, ecall, ebreak, illegal instructions)",
                   [this] { return static_cast<double>(m_core->traps()); }),
      m_instructions(m_stats, "instructions", "count", "instructions the hart executed",
                     [this] { return static_cast<double>(m_core->instructions()); }),
      m_idle_ns(m_stats, "idle_ns", "ns", "simulated time the hart slept in WFI",
                [this] { return m_idle.to_seconds() * 1e9; })
{
    m_core->load(image);
    if (cfg.gdb_port != 0)
        m_gdb = std::make_unique<gdb_stub>(*m_core, cfg.gdb_port);
    SC_HAS_PROCESS(cpu);
    SC_THREAD(run);
    // Unicorn's translator and the firmware's MMIO callbacks run on this thread's stack.
    set_stack_size(16 << 20);
}

cpu::~cpu() = default;

std::uint64_t cpu::mtime_ns() const
{
    return static_cast<std::uint64_t>((sc_core::sc_time_stamp() + local_now()).to_seconds() * 1e9);
}

std::uint32_t cpu::mip() const
{
    std::uint32_t pending = 0;
    for (unsigned s = 0; s < irq.size(); ++s)
        if (irq[s].read())
            pending |= 1u << s;
    std::uint32_t v = (pending & m_irq_enable) ? csr_bit::meip : 0;
    if (mtime_ns() >= m_mtimecmp)
        v |= csr_bit::mtip;
    return v;
}

sc_core::sc_time cpu::local_now() const
{
    if (!m_running)
        return m_local_base;
    return m_local_base + m_period * static_cast<double>(m_core->run_instructions() - m_instr_mark);
}

std::string cpu::state() const
{
    const std::uint32_t pc = m_core->pc();
    std::string s = "the firmware CPU ";
    if (m_finished)
        return s + "had ended its run";
    if (m_sleeping)
        s += "was asleep in WFI at PC " + hex32(pc) + " since " +
             std::to_string(m_idle_since.to_seconds() * 1e9) + " ns";
    else
        s += "was running at PC " + hex32(pc);
    std::uint32_t pending = 0;
    for (unsigned k = 0; k < irq.size(); ++k)
        if (irq[k].read())
            pending |= 1u << k;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  " (mstatus.MIE %u, mie 0x%x, interrupt sources pending 0x%x, enabled 0x%x)",
                  m_core->csr(UC_RISCV_REG_MSTATUS) & csr_bit::mstatus_mie ? 1u : 0u,
                  m_core->csr(UC_RISCV_REG_MIE), pending, m_irq_enable);
    return s + buf;
}

void cpu::finish(const std::string& failure)
{
    if (m_finished)
        return;
    m_finished = true;
    m_failure = failure;
    if (!m_line.empty())
        VGPU_INFO(m_log, "console: %s", m_line.c_str());
    if (!failure.empty())
        VGPU_ERROR(m_log, "%s", failure.c_str());
    m_core->halt();
    if (m_gdb)
        m_gdb->exited(failure.empty() ? 0 : 1);
    done.notify(sc_core::SC_ZERO_TIME);
}

bool cpu::sys_access(bool write, std::uint32_t off, std::uint32_t& v)
{
    namespace r = sys_reg;
    if (off >= r::HOST) {
        if (!host_window)
            return false;
        // The owner's registers may take time (a copy engine): let it start at global time.
        const sc_core::sc_time ahead = local_now();
        sc_core::wait(ahead);
        m_local_base = sc_core::SC_ZERO_TIME;
        m_instr_mark = m_core->run_instructions();
        return host_window(write, off - r::HOST, v);
    }
    if (!write) {
        switch (off) {
        case r::IRQ_PENDING:
            v = 0;
            for (unsigned s = 0; s < irq.size(); ++s)
                v |= irq[s].read() ? 1u << s : 0;
            return true;
        case r::IRQ_ENABLE:
            v = m_irq_enable;
            return true;
        case r::IRQ_CLAIM:
            v = 0;
            for (unsigned s = 0; s < irq.size() && v == 0; ++s)
                if (irq[s].read() && (m_irq_enable >> s & 1))
                    v = s + 1;
            return true;
        case r::MTIME_LO:
            v = static_cast<std::uint32_t>(mtime_ns());
            return true;
        case r::MTIME_HI:
            v = static_cast<std::uint32_t>(mtime_ns() >> 32);
            return true;
        case r::MTIMECMP_LO:
            v = static_cast<std::uint32_t>(m_mtimecmp);
            return true;
        case r::MTIMECMP_HI:
            v = static_cast<std::uint32_t>(m_mtimecmp >> 32);
            return true;
        case r::CONSOLE:
        case r::RESULT:
            v = 0;
            return true;
        default:
            return false;
        }
    }
    switch (off) {
    case r::CONSOLE: {
        const char c = static_cast<char>(v & 0xff);
        m_console += c;
        if (c == '\n') {
            VGPU_INFO(m_log, "console: %s", m_line.c_str());
            m_line.clear();
        } else {
            m_line += c;
        }
        return true;
    }
    case r::RESULT:
        if (v == 0) {
            VGPU_INFO(m_log, "firmware reported PASS after %" PRIu64 " instructions",
                      m_core->instructions());
            finish("");
        } else {
            std::string msg = "the firmware reported failure code " + std::to_string(v);
            if (m_faulted)
                msg += " after " + std::string(cause_name(m_core->csr(UC_RISCV_REG_MCAUSE))) +
                       " at PC " + hex32(m_fault_pc) + ", address " + hex32(m_fault_addr);
            finish(msg);
        }
        return true;
    case r::IRQ_ENABLE:
        m_irq_enable = v;
        return true;
    case r::IRQ_CLAIM: // completion: the sources are levels, nothing to do
        return true;
    case r::MTIMECMP_LO:
        m_mtimecmp = (m_mtimecmp & ~0xffffffffull) | v;
        m_timer.notify(sc_core::SC_ZERO_TIME);
        return true;
    case r::MTIMECMP_HI:
        m_mtimecmp = (m_mtimecmp & 0xffffffffull) | std::uint64_t{v} << 32;
        m_timer.notify(sc_core::SC_ZERO_TIME);
        return true;
    default:
        return false;
    }
}

bool cpu::bus_access(bool write, std::uint32_t addr, unsigned len, std::uint32_t& value)
{
    ++m_mmio_accesses;
    bool ok = false;
    std::string why;
    if (addr >= sys_base && addr - sys_base < sys_reg::WINDOW_BYTES) {
        ok = len == 4 && addr % 4 == 0 && sys_access(write, addr - sys_base, value);
        why = "no such register of the CPU window";
    } else {
        sc_core::sc_time d = local_now();
        const sc_core::sc_time before = d;
        const auto rsp = mmio.access(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr,
                                     &value, len, d);
        m_local_base += d - before;
        ok = rsp == tlm::TLM_OK_RESPONSE;
        why = tlm_bus::response_name(rsp);
    }
    if (!ok) {
        m_fault_pc = m_core->current_pc();
        m_fault_addr = addr;
        m_faulted = true;
        VGPU_WARN(m_log,
                  "%s access fault: %u-byte %s at address %s by the instruction at PC %s (%s)",
                  write ? "store" : "load", len, write ? "store" : "load", hex32(addr).c_str(),
                  hex32(m_fault_pc).c_str(), why.c_str());
    }
    return ok;
}

bool cpu::debug_stop()
{
    const gdb_stub::action a = m_gdb->serve();
    m_step = a == gdb_stub::action::step;
    m_resume_bp = true; // the instruction at a breakpoint runs when the debugger resumes
    if (a == gdb_stub::action::detach)
        m_gdb.reset();
    if (a == gdb_stub::action::kill) {
        finish("the debugger killed the firmware");
        return false;
    }
    return true;
}

void cpu::run()
{
    sc_core::wait(m_start);
    // A member, not a local: a run may end with this thread suspended (its frame not unwound).
    sc_core::sc_event_or_list& wake = m_wake;
    for (unsigned s = 0; s < irq.size(); ++s)
        wake |= irq[s].value_changed_event();
    wake |= m_timer;
    m_local_base = sc_core::SC_ZERO_TIME;
    if (m_gdb) {
        VGPU_WARN(m_log, "waiting for GDB on 127.0.0.1:%u (target remote :%u)", m_cfg.gdb_port,
                  m_cfg.gdb_port);
        if (!m_gdb->accept(120)) {
            finish("no debugger connected to 127.0.0.1:" + std::to_string(m_cfg.gdb_port) +
                   " within 120 s");
            return;
        }
        if (!debug_stop())
            return;
    }
    std::uint64_t used = 0; // instructions since the last synchronisation
    while (!m_finished) {
        if (m_core->take_interrupt(mip()))
            ++m_interrupts;
        m_instr_mark = 0;
        m_running = true;
        if (m_resume_bp)
            m_core->skip_breakpoint_once();
        m_resume_bp = false;
        const std::uint64_t before = m_core->instructions();
        const stop_reason r = m_core->run(m_step ? 1 : m_cfg.quantum_instructions - used);
        used += m_core->run_instructions();
        const sc_core::sc_time ahead = local_now();
        m_running = false;
        m_local_base = ahead;
        // An instruction that may have enabled an interrupt: check it now, within the quantum.
        if (r == stop_reason::csr && used < m_cfg.quantum_instructions && !m_finished)
            continue;
        used = 0;
        m_local_base = sc_core::SC_ZERO_TIME;
        sc_core::wait(ahead); // one synchronisation per quantum: interrupts are seen here
        if (m_finished)
            break;
        switch (r) {
        case stop_reason::limit:
        case stop_reason::halted:
        case stop_reason::csr:
            if (m_step && m_core->instructions() != before && !debug_stop())
                return;
            break;
        case stop_reason::breakpoint:
            if (!m_gdb || !m_gdb->connected())
                finish("breakpoint at PC " + hex32(m_core->pc()) + " without a debugger");
            else if (!debug_stop())
                return;
            break;
        case stop_reason::error:
            finish("the firmware CPU stopped: " + m_core->error());
            break;
        case stop_reason::wfi:
            m_sleeping = true;
            m_idle_since = sc_core::sc_time_stamp();
            while (!m_core->wfi_wakes(mip())) {
                if (m_mtimecmp != ~0ull && m_core->csr(UC_RISCV_REG_MIE) & csr_bit::mtip) {
                    const auto at =
                        sc_core::sc_time(static_cast<double>(m_mtimecmp), sc_core::SC_NS);
                    const auto now = sc_core::sc_time_stamp();
                    if (at > now)
                        m_timer.notify(at - now);
                }
                sc_core::wait(wake);
            }
            m_idle += sc_core::sc_time_stamp() - m_idle_since;
            m_sleeping = false;
            m_core->resume_after_wfi();
            break;
        }
    }
}

} // namespace vgpu::host_cpu
