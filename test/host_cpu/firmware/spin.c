/* Benchmark firmware (scripts/bench firmware): launches the table's first kernel (the GPU busy;
   spin_idle.c: nothing, the GPU idle), then runs a fixed arithmetic loop and reports its sum.
   It does not wait for the kernel: the host reports the launches it did not see finish. */
#include "gpu.h"

#ifndef SPIN_ITERATIONS
#define SPIN_ITERATIONS 20000000u
#endif

void on_external_interrupt(uint32_t source)
{
    (void)source;
}

int main(void)
{
#ifndef SPIN_IDLE
    if (gpu_open() == 0 && gpu_table->launches > 0) {
        cp_write(CP_PTBR_LO, gpu_table->ptbr_lo);
        cp_write(CP_PTBR_HI, gpu_table->ptbr_hi);
        gpu_program_launch(0, 0, 0);
        hs_write(VGPU_HS_MARK_LAUNCH, 0);
        cp_write(cp_queue(LT_ARRAY(struct vgpu_lt_launch, launch_off)[0].queue, CP_LAUNCH), 1);
    }
#endif
    uint32_t sum = 0;
    for (uint32_t i = 0; i < SPIN_ITERATIONS; ++i)
        sum += i ^ (sum >> 3);
    console_puts("spin sum ");
    console_hex(sum);
    console_putc('\n');
    return 0;
}
