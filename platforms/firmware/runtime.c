/* Firmware runtime: console, result, trap handler. docs/firmware.md. */
#include "runtime.h"

void console_putc(char c)
{
    sys_write(SYS_CONSOLE, (uint8_t)c);
}

void console_puts(const char* s)
{
    while (*s)
        console_putc(*s++);
}

void console_hex(uint32_t v)
{
    console_puts("0x");
    for (int i = 28; i >= 0; i -= 4)
        console_putc("0123456789abcdef"[(v >> i) & 0xf]);
}

void console_dec(uint32_t v)
{
    char buf[12];
    int n = 0;
    do {
        buf[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        console_putc(buf[--n]);
}

uint64_t mtime_ns(void)
{
    uint32_t hi, lo;
    do {
        hi = sys_read(SYS_MTIME_HI);
        lo = sys_read(SYS_MTIME_LO);
    } while (hi != sys_read(SYS_MTIME_HI));
    return (uint64_t)hi << 32 | lo;
}

void mtimecmp_set(uint64_t at)
{
    /* High word first to all ones, so that no intermediate value is due early. */
    sys_write(SYS_MTIMECMP_HI, 0xffffffffu);
    sys_write(SYS_MTIMECMP_LO, (uint32_t)at);
    sys_write(SYS_MTIMECMP_HI, (uint32_t)(at >> 32));
}

void result(uint32_t code)
{
    sys_write(SYS_RESULT, code);
    for (;;)
        wfi();
}

static const char* cause_name(uint32_t c)
{
    switch (c) {
    case 0:
        return "instruction address misaligned";
    case 1:
        return "instruction access fault";
    case 2:
        return "illegal instruction";
    case 3:
        return "breakpoint";
    case 4:
        return "load address misaligned";
    case 5:
        return "load access fault";
    case 6:
        return "store address misaligned";
    case 7:
        return "store access fault";
    case 11:
        return "environment call";
    default:
        return "exception";
    }
}

/* Without a handler of its own, a firmware that enabled the timer interrupt turns it off. */
__attribute__((weak)) void on_timer_interrupt(void)
{
    csr_clear(mie, MIE_MTIE);
}

/* From trap_entry (start.S). An exception is a firmware bug: report it precisely and fail. */
void trap_handler(uint32_t mcause, uint32_t mepc, uint32_t mtval)
{
    if (mcause & 0x80000000u) {
        if ((mcause & 0xff) == 11) {
            uint32_t id;
            while ((id = sys_read(SYS_IRQ_CLAIM)) != 0) {
                on_external_interrupt(id - 1);
                sys_write(SYS_IRQ_CLAIM, id); /* completion */
            }
        }
        else if ((mcause & 0xff) == 7)
            on_timer_interrupt();
        return;
    }
    console_puts("firmware trap: ");
    console_puts(cause_name(mcause));
    console_puts(" (mcause ");
    console_dec(mcause);
    console_puts(") at PC ");
    console_hex(mepc);
    console_puts(", address ");
    console_hex(mtval);
    console_putc('\n');
    result(0x100 + mcause);
}
