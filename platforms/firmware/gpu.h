/* Driver library of the vgpu firmware: the GPU's register windows (docs/registers.md) and the
   host-services registers (models/host/launch_table.h). docs/firmware.md. */
#ifndef VGPU_FW_GPU_H
#define VGPU_FW_GPU_H

#include "models/host/launch_table.h"
#include "runtime.h"

/* Command processor (docs/registers.md, "Command processor"). */
#define CP_QUEUE_STRIDE 0x100u
#define CP_PROG_ADDR 0x00u
#define CP_PROG_BYTES 0x04u
#define CP_GRID_X 0x08u
#define CP_GRID_Y 0x0cu
#define CP_BLOCK_X 0x10u
#define CP_BLOCK_Y 0x14u
#define CP_SM_FIRST 0x18u
#define CP_SM_COUNT 0x1cu
#define CP_NPARAMS 0x20u
#define CP_LAUNCH 0x24u
#define CP_STATUS 0x28u
#define CP_PARAM0 0x60u
#define CP_IRQ_STATUS 0x1000u
#define CP_IRQ_ENABLE 0x1004u
#define CP_PTBR_LO 0x1008u
#define CP_PTBR_HI 0x100cu
#define CP_TLB_INV_VA_LO 0x1020u
#define CP_TLB_INV_VA_HI 0x1024u
#define CP_TLB_INV_BYTES 0x1028u
#define CP_TLB_INVALIDATE 0x102cu
#define CP_STATUS_DONE 2u

/* Fault unit (docs/registers.md, "Fault unit"). */
#define FU_COUNT 0x00u
#define FU_VA_LO 0x04u
#define FU_VA_HI 0x08u
#define FU_SM 0x0cu
#define FU_WARP 0x10u
#define FU_PC 0x14u
#define FU_INFO 0x18u
#define FU_POP 0x1cu
#define FU_ACK_VA_LO 0x20u
#define FU_ACK_VA_HI 0x24u
#define FU_ACK_REASON 0x28u
#define FU_ACK 0x2cu
#define FU_IRQ_ENABLE 0x30u

/* Fault answers (ACK_REASON). */
#define REASON_NOT_MAPPED 1u
#define REASON_READ_ONLY 2u
#define REASON_MEMORY_FULL 3u
#define REASON_NOT_A_FAULT 4u

/* CBV table: per slot BASE_LO, BASE_HI, SIZE. */
#define CBV_SLOT_STRIDE 0x10u

/* LLC switcher (docs/registers.md, "LLC switcher"). */
#define LLC_ARCH 0x00u
#define LLC_CHANGE 0x04u

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

#endif
