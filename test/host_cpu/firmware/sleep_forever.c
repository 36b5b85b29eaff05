/* Test firmware: sleeps in WFI until a timer interrupt due after 1 s of simulated time, so the
   run's time limit ends it first. */
#include "runtime.h"

void on_external_interrupt(uint32_t source)
{
    (void)source;
}

int main(void)
{
    console_puts("going to sleep\n");
    sys_write(SYS_MTIMECMP_HI, 0);
    sys_write(SYS_MTIMECMP_LO, 1000000000u);
    csr_set(mie, MIE_MTIE);
    for (;;)
        wfi();
}
