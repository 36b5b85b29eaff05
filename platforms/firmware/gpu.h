/* Driver library of the vgpu firmware: access to the GPU's register windows (offsets in the
   generated gpu_regs.h, docs/registers.md) and the host-services registers
   (models/host/launch_table.h). docs/firmware.md. */
#ifndef VGPU_FW_GPU_H
#define VGPU_FW_GPU_H

#include "gpu_regs.h"
#include "models/host/launch_table.h"
#include "runtime.h"

extern const struct vgpu_lt_header* gpu_table;

static inline uint32_t cp_read(uint32_t off)
{
    return mmio_read(gpu_table->cp_base + off);
}
static inline void cp_write(uint32_t off, uint32_t v)
{
    mmio_write(gpu_table->cp_base + off, v);
}
static inline uint32_t cp_queue(uint32_t q, uint32_t off)
{
    return q * CP_QUEUE_STRIDE + off;
}
static inline uint32_t fu_read(uint32_t off)
{
    return mmio_read(gpu_table->fault_base + off);
}
static inline void fu_write(uint32_t off, uint32_t v)
{
    mmio_write(gpu_table->fault_base + off, v);
}
static inline void hs_write(uint32_t off, uint32_t v)
{
    sys_write(SYS_HOST + off, v);
}
static inline uint32_t hs_read(uint32_t off)
{
    return sys_read(SYS_HOST + off);
}

/* Writes the 64-bit page-table entry at physical address leaf (the host's copy engine). */
static inline void gpu_write_pte(uint64_t leaf, uint64_t pte)
{
    hs_write(VGPU_HS_COPY_PA_LO, (uint32_t)leaf);
    hs_write(VGPU_HS_COPY_PA_HI, (uint32_t)(leaf >> 32));
    hs_write(VGPU_HS_PTE_LO, (uint32_t)pte);
    hs_write(VGPU_HS_PTE_HI, (uint32_t)(pte >> 32));
    hs_write(VGPU_HS_COPY_GO, 2);
}

/* The table's arrays. */
#define LT_ARRAY(type, off) ((const type*)((const uint8_t*)gpu_table + gpu_table->off))

/* Finds and checks the launch table; returns 0 when it is usable. */
int gpu_open(void);
/* Writes the launch registers of launch i (queue, parameters, then the nextra parameters in
   extra, CBV bindings, the LLC organisation), without LAUNCH. */
void gpu_program_launch(uint32_t i, const uint32_t* extra, uint32_t nextra);
/* Shoots the page at va down in every TLB. */
void gpu_tlb_invalidate(uint32_t va, uint32_t bytes);
/* Drops the physical range [pa, pa + bytes) from every L1. */
void gpu_l1_invalidate(uint64_t pa, uint32_t bytes);

#endif
