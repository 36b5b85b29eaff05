/* The launch table: what the platform writes into the firmware CPU's RAM for the generic
 * firmware driver (host.kind riscv), and the host-services registers the firmware reports
 * through. Plain C (the firmware includes it too). See docs/firmware.md. */
#ifndef VGPU_HOST_LAUNCH_TABLE_H
#define VGPU_HOST_LAUNCH_TABLE_H

#include <stdint.h>

#define VGPU_LT_MAGIC 0x544c4756u /* "VGLT" */
#define VGPU_LT_VERSION 1u
#define VGPU_LT_MAX_PARAMS 16u /* the CP's PARAM0..PARAM15 */
#define VGPU_LT_MAX_CBVS 8u

/* Header at the table's address (host-services register TABLE). Offsets are from the table's
 * first byte; every array is 8-byte aligned. */
struct vgpu_lt_header {
    uint32_t magic, version, bytes;         /* VGPU_LT_MAGIC, VGPU_LT_VERSION, table size */
    uint32_t cp_base, fault_base, cbv_base; /* register windows on the MMIO bus (0: none) */
    uint32_t ptbr_lo, ptbr_hi;              /* page-table root for the CP's PTBR */
    uint32_t irq_enable;                    /* CP IRQ_ENABLE: one bit per queue used */
    uint32_t phases, phase_off;             /* schedule phases (struct vgpu_lt_phase) */
    uint32_t launches, launch_off;          /* launches in schedule order (struct vgpu_lt_launch) */
    uint32_t page_bytes, modules, sms_per_module;
    uint32_t page_alloc;             /* 0 first_touch, 1 round_robin, 2 adaptive */
    uint32_t balance_lo, balance_hi; /* memory.balance_ratio: IEEE double bits (adaptive) */
    uint32_t fault_batch;            /* host.fault_batch: records per service round */
    uint32_t pool_off;               /* modules x struct vgpu_lt_pool: the frame pools */
    uint32_t placed, rr;             /* the placement policy's state after set-up */
    uint32_t regions, region_off;    /* on-demand buffers (struct vgpu_lt_region) */
    uint32_t pages, leaf_off;        /* their pages: uint64_t leaf-PTE address each */
    uint32_t home_shift, home_mask;  /* the leaf PTE's home-module field */
};

struct vgpu_lt_phase {
    uint32_t first, count; /* launches [first, first + count), kernel i of the phase on queue i */
};

struct vgpu_lt_cbv {
    uint32_t slot, base_lo, base_hi, size;
};

struct vgpu_lt_launch {
    uint32_t kernel, queue, phase;
    uint32_t prog_addr, prog_bytes, grid_x, grid_y, block_x, block_y, sm_first, sm_count;
    uint32_t nparams, ncbvs;
    uint32_t params[VGPU_LT_MAX_PARAMS];
    struct vgpu_lt_cbv cbv[VGPU_LT_MAX_CBVS];
};

/* One module's frames: the next free frame and the end of the module's DRAM. */
struct vgpu_lt_pool {
    uint32_t next_lo, next_hi, end_lo, end_hi;
    uint32_t pages; /* pages placed on the module so far (adaptive placement) */
    uint32_t pad;
};

/* An on-demand buffer: its pages are leaves [first_leaf, first_leaf + bytes / page_bytes). */
struct vgpu_lt_region {
    uint32_t va, bytes, first_leaf, read_only;
    uint32_t pte_lo, pte_hi; /* leaf PTE bits other than the frame and home (present, ...) */
};

/* Host-services registers: the CPU window's HOST block (sys_base + 0x100). */
#define VGPU_HS_TABLE 0x00       /* RO address of the launch table */
#define VGPU_HS_MARK_LAUNCH 0x04 /* W launch index: about to write its LAUNCH */
#define VGPU_HS_DONE_STATUS 0x08 /* W the queue STATUS read after the interrupt */
#define VGPU_HS_MARK_DONE 0x0c   /* W launch index: its interrupt was seen */
#define VGPU_HS_COPY_VA 0x10     /* W page (virtual) the copy engine works on */
#define VGPU_HS_COPY_PA_LO 0x14  /* W physical destination */
#define VGPU_HS_COPY_PA_HI 0x18
#define VGPU_HS_PTE_LO 0x1c /* W value of a PTE write */
#define VGPU_HS_PTE_HI 0x20
#define VGPU_HS_COPY_GO                                                                            \
    0x24                       /* W 1: fill COPY_PA from the host's copy of COPY_VA;               \
                                  2: write PTE at COPY_PA (8 bytes); the store completes           \
                                  when the copy has (timed DMA) */
#define VGPU_HS_MAPPED 0x28    /* W module: COPY_VA is mapped at COPY_PA (host bookkeeping) */
#define VGPU_HS_ROUND 0x2c     /* W records taken: a fault service round starts */
#define VGPU_HS_ROUND_END 0x30 /* W refused records of the round: the round ends */

#endif
