/* Test firmware: a load from an address no block answers. The hart must take a precise load
   access fault (mepc = the load, mtval = the address); the runtime reports it and fails. */
#include "runtime.h"

void on_external_interrupt(uint32_t source)
{
    (void)source;
}

int main(void)
{
    console_puts("reading an unmapped address\n");
    volatile uint32_t* bad = (volatile uint32_t*)0x70000040u;
    return (int)*bad; /* never returns: the trap handler ends the run */
}
