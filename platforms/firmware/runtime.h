/* Firmware runtime: the firmware CPU's registers (console, result, interrupt controller,
   timer), CSR helpers and the trap hook. docs/firmware.md. */
#ifndef VGPU_FW_RUNTIME_H
#define VGPU_FW_RUNTIME_H

#include <stdint.h>

#define SYS_BASE 0x50000000u
#define SYS_CONSOLE 0x00u
#define SYS_RESULT 0x04u
#define SYS_IRQ_PENDING 0x10u
#define SYS_IRQ_ENABLE 0x14u
#define SYS_IRQ_CLAIM 0x18u
#define SYS_MTIME_LO 0x20u
#define SYS_MTIME_HI 0x24u
#define SYS_MTIMECMP_LO 0x28u
#define SYS_MTIMECMP_HI 0x2cu
#define SYS_HOST 0x100u

#define IRQ_SOURCE_CP 0u    /* interrupt source 0: the command processor */
#define IRQ_SOURCE_FAULT 1u /* interrupt source 1: the fault unit */

#define MSTATUS_MIE (1u << 3)
#define MIE_MEIE (1u << 11)
#define MIE_MTIE (1u << 7)

static inline uint32_t mmio_read(uint32_t addr)
{
    return *(volatile uint32_t*)addr;
}
static inline void mmio_write(uint32_t addr, uint32_t v)
{
    *(volatile uint32_t*)addr = v;
}
static inline uint32_t sys_read(uint32_t off)
{
    return mmio_read(SYS_BASE + off);
}
static inline void sys_write(uint32_t off, uint32_t v)
{
    mmio_write(SYS_BASE + off, v);
}

#define csr_set(csr, bits) __asm__ volatile("csrs " #csr ", %0" ::"r"(bits))
#define csr_clear(csr, bits) __asm__ volatile("csrc " #csr ", %0" ::"r"(bits))
static inline void wfi(void)
{
    __asm__ volatile("wfi");
}

/* The timer: simulated time in ns; mtimecmp (MTIMER_NEVER: no timer interrupt). */
#define MTIMER_NEVER 0xffffffffffffffffull
uint64_t mtime_ns(void);
void mtimecmp_set(uint64_t at);

void console_putc(char c);
void console_puts(const char* s);
void console_hex(uint32_t v);
void console_dec(uint32_t v);
/* Ends the run: 0 pass, anything else a failure code. */
void result(uint32_t code) __attribute__((noreturn));

/* Called by the trap handler for machine external interrupts (one claimed source each). */
void on_external_interrupt(uint32_t source);
/* Called for the machine timer interrupt (weak: the default turns mie.MTIE off). */
void on_timer_interrupt(void);

#endif
