/* Test firmware: interrupt delivery under load. The machine timer interrupts a busy loop
   every 2 us; the handler counts and re-arms it. Each interrupt must return (mret) to the
   interrupted instruction with every register intact: the loop's sum is checked. */
#include "runtime.h"

static volatile uint32_t ticks;
static uint64_t next;

void on_external_interrupt(uint32_t source)
{
    (void)source;
}

void on_timer_interrupt(void)
{
    ++ticks;
    next += 2000;
    mtimecmp_set(next);
}

int main(void)
{
    next = mtime_ns() + 2000;
    mtimecmp_set(next);
    csr_set(mie, MIE_MTIE);
    csr_set(mstatus, MSTATUS_MIE);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 200000; ++i)
        sum += i ^ (sum >> 3);
    uint32_t expect = 0;
    for (uint32_t i = 0; i < 200000; ++i)
        expect += i ^ (expect >> 3);
    csr_clear(mstatus, MSTATUS_MIE);
    console_puts("timer interrupts: ");
    console_dec(ticks);
    console_putc('\n');
    if (sum != expect || ticks < 50)
        return 1;
    /* Then sleep until a tick armed 2 us ahead (the periodic one may have fallen due during
       the report above, and would be taken at once): WFI must wake on the timer interrupt. */
    next = mtime_ns() + 2000;
    mtimecmp_set(next);
    const uint32_t before = ticks;
    csr_set(mstatus, MSTATUS_MIE);
    while (ticks == before)
        wfi();
    console_puts("woke from WFI by the timer\n");
    return 0;
}
