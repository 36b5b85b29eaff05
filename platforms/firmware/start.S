/* Start-up and trap entry of the vgpu firmware (docs/firmware.md). */
#define SYS_BASE 0x50000000
#define HS_TABLE (SYS_BASE + 0x100)

    .section .text.start
    .globl _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    li t0, HS_TABLE
    lw sp, 0(t0)            /* the stack grows down from the launch table */
    bnez sp, 1f
    li sp, 0x80010000       /* no table (a test firmware): the top of the image's 64 KiB */
1:  andi sp, sp, -16
    la t0, __bss_start
    la t1, __bss_end
2:  bgeu t0, t1, 3f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 2b
3:  la t0, trap_entry
    csrw mtvec, t0
    call main
    li t0, SYS_BASE
    sw a0, 4(t0)            /* RESULT: main's return value (0 pass) */
4:  j 4b

/* Saves the caller-saved registers, calls trap_handler(mcause, mepc, mtval), restores them
   and returns with mret (mepc may have been changed by the handler). */
    .text
    .balign 4               /* mtvec's BASE is 4-byte aligned (direct mode) */
    .globl trap_entry
trap_entry:
    addi sp, sp, -64
    sw ra, 0(sp)
    sw t0, 4(sp)
    sw t1, 8(sp)
    sw t2, 12(sp)
    sw a0, 16(sp)
    sw a1, 20(sp)
    sw a2, 24(sp)
    sw a3, 28(sp)
    sw a4, 32(sp)
    sw a5, 36(sp)
    sw a6, 40(sp)
    sw a7, 44(sp)
    sw t3, 48(sp)
    sw t4, 52(sp)
    sw t5, 56(sp)
    sw t6, 60(sp)
    csrr a0, mcause
    csrr a1, mepc
    csrr a2, mtval
    call trap_handler
    lw ra, 0(sp)
    lw t0, 4(sp)
    lw t1, 8(sp)
    lw t2, 12(sp)
    lw a0, 16(sp)
    lw a1, 20(sp)
    lw a2, 24(sp)
    lw a3, 28(sp)
    lw a4, 32(sp)
    lw a5, 36(sp)
    lw a6, 40(sp)
    lw a7, 44(sp)
    lw t3, 48(sp)
    lw t4, 52(sp)
    lw t5, 56(sp)
    lw t6, 60(sp)
    addi sp, sp, 64
    mret
