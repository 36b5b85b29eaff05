/* The launch table: what the platform writes into the firmware CPU's RAM for the generic
 * firmware driver (host.kind riscv), and the host-services registers the firmware reports
 * through. Plain C (the firmware includes it too). See docs/firmware.md. */
#ifndef VGPU_HOST_LAUNCH_TABLE_H
#define VGPU_HOST_LAUNCH_TABLE_H

#include <stdint.h>

#define VGPU_LT_MAGIC 0x544c4756u /* "VGLT" */
#define VGPU_LT_VERSION 2u
#define VGPU_LT_MAX_PARAMS 16u /* the CP's PARAM0..PARAM15 */
#define VGPU_LT_MAX_CBVS 8u
#define VGPU_LT_TRACE_TYPES 2u /* seed 002's record types: 0 control, 1 memory */

/* Header at the table's address (host-services register TABLE). Offsets are from the table's
 * first byte; every array is 8-byte aligned. */
struct vgpu_lt_header {
    uint32_t magic, version, bytes;         /* VGPU_LT_MAGIC, VGPU_LT_VERSION, table size */
    uint32_t cp_base, fault_base, cbv_base; /* register windows on the MMIO bus (0: none) */
    uint32_t ptbr_lo, ptbr_hi;              /* page-table root for the CP's PTBR */
    uint32_t irq_enable;                    /* CP IRQ_ENABLE: one bit per queue used */
    uint32_t phases, phase_off;             /* phases run (struct vgpu_lt_phase; a `times`
                                               loop's body once per pass) */
    uint32_t launches, launch_off;          /* launches in schedule order (struct vgpu_lt_launch) */
    uint32_t page_bytes, modules, sms_per_module;
    uint32_t page_alloc;             /* 0 first_touch, 1 round_robin, 2 adaptive */
    uint32_t balance_lo, balance_hi; /* memory.balance_ratio: IEEE double bits (adaptive) */
    uint32_t fault_batch;            /* host.fault_batch: records per service round */
    uint32_t pool_off;               /* modules x struct vgpu_lt_pool: the frame pools */
    uint32_t placed, rr;             /* pages placed at set-up; rr unused (0) */
    uint32_t regions, region_off;    /* buffers faults may map (struct vgpu_lt_region) */
    uint32_t pages, leaf_off;        /* leaf-PTE addresses (uint64_t): regions', trace pages' */
    uint32_t home_shift, home_mask;  /* the leaf PTE's home-module field */
    uint32_t llc_base;               /* LLC switcher window (0: none; launches' llc ignored) */
    uint32_t traces, trace_off;      /* instrumented kernels (struct vgpu_lt_trace) */
    uint32_t evictions, evict_off;   /* `evict` entries in file order (struct vgpu_lt_evict) */
    uint32_t evict_drain_ns;         /* an eviction's wait from its shootdown to its copy */
};

struct vgpu_lt_phase {
    uint32_t first, count; /* launches [first, first + count): profiling launches, then kernel
                              i of the phase on queue i */
};

struct vgpu_lt_cbv {
    uint32_t slot, base_lo, base_hi, size;
};

/* Launch kinds: the kernel's own program; seed 002's profiling and traced programs. */
#define VGPU_LT_KERNEL 0u
#define VGPU_LT_PROFILE 1u /* parameters include the block counters' address */
#define VGPU_LT_TRACED 2u  /* the firmware appends window, pointer, bytes per traced type */

/* A launch's LLC organisation (the kernel's `llc` key): ARCH then CHANGE before LAUNCH. */
#define VGPU_LT_LLC_KEEP 0u
#define VGPU_LT_LLC_SHARED 1u
#define VGPU_LT_LLC_PRIVATE 2u

struct vgpu_lt_launch {
    uint32_t kernel, queue, phase;
    uint32_t kind;  /* VGPU_LT_KERNEL, VGPU_LT_PROFILE, VGPU_LT_TRACED */
    uint32_t trace; /* PROFILE and TRACED: index of the kernel's struct vgpu_lt_trace */
    uint32_t llc;   /* VGPU_LT_LLC_* */
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

/* Region flags. */
#define VGPU_LT_READ_ONLY 1u /* a store to it is refused */
#define VGPU_LT_ON_DEMAND 2u /* no frames at set-up (else every page is resident at first) */

/* A buffer faults may map (on demand, or evicted by an `evict` entry): its pages are leaves
 * [first_leaf, first_leaf + bytes / page_bytes). */
struct vgpu_lt_region {
    uint32_t va, bytes, first_leaf, flags;
    uint32_t pte_lo, pte_hi; /* leaf PTE bits other than the frame and home (present, ...) */
};

/* An instrumented kernel (seed 002): per record type a window of reserved, unmapped pages the
 * firmware maps after the profiling launch has sized the type's buffer. */
struct vgpu_lt_trace {
    uint32_t types;          /* bit t: records of type t are traced */
    uint32_t touch;          /* the module trace pages are first touched from */
    uint32_t pte_lo, pte_hi; /* leaf PTE bits of a trace page other than the frame and home */
    uint32_t window[VGPU_LT_TRACE_TYPES];       /* the window's VA */
    uint32_t window_bytes[VGPU_LT_TRACE_TYPES]; /* its size (host.instrument_bytes) */
    uint32_t first_leaf[VGPU_LT_TRACE_TYPES];   /* its first page's leaf (traced types only) */
    uint32_t pointer[VGPU_LT_TRACE_TYPES];      /* VA of the buffer's next-free pointer */
};

/* An `evict` entry: the region's resident pages are evicted after_ns after the first launch of
 * each table phase whose launches carry schedule phase `phase` (every pass of a loop's phase). */
struct vgpu_lt_evict {
    uint32_t phase, after_ns, region, pad;
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
    0x24                          /* W 1: fill COPY_PA from the host's copy of COPY_VA;            \
                                     2: write PTE at COPY_PA (8 bytes); the store completes        \
                                     when the copy has (timed DMA); 3: page COPY_VA joins the      \
                                     eviction's copy-out; 4: copy those pages out to the host */
#define VGPU_HS_MAPPED 0x28       /* W module: COPY_VA is mapped at COPY_PA (host bookkeeping) */
#define VGPU_HS_ROUND 0x2c        /* W records taken: a fault service round starts */
#define VGPU_HS_ROUND_END 0x30    /* W refused records of the round: the round ends */
#define VGPU_HS_TRACE_SAVE 0x34   /* W profiling launch: save its kernel's buffers, zero counters */
#define VGPU_HS_TRACE_SIZE 0x38   /* W profiling launch (ended): size each type's buffer */
#define VGPU_HS_TRACE_BYTES0 0x3c /* RO the control buffer's bytes (after TRACE_SIZE) */
#define VGPU_HS_TRACE_BYTES1 0x40 /* RO the memory buffer's bytes */
#define VGPU_HS_TRACE_MAPPED 0x44 /* W module: trace page COPY_VA is mapped at COPY_PA */
#define VGPU_HS_TRACE_RESTORE 0x48 /* W profiling launch: restore the buffers saved */
#define VGPU_HS_TRACE_COLLECT 0x4c /* W traced launch (ended): read the trace buffers back */
#define VGPU_HS_FAILED 0x50        /* RO failures the host has reported (nonzero: stop) */
#define VGPU_HS_FRAME_LO 0x54      /* RO frame (physical address) of page COPY_VA, 0: none */
#define VGPU_HS_FRAME_HI 0x58

#endif
