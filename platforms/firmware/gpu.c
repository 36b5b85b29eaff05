/* Driver library of the vgpu firmware. docs/firmware.md. */
#include "gpu.h"

const struct vgpu_lt_header* gpu_table;

int gpu_open(void)
{
    gpu_table = (const struct vgpu_lt_header*)hs_read(VGPU_HS_TABLE);
    if (!gpu_table || gpu_table->magic != VGPU_LT_MAGIC || gpu_table->version != VGPU_LT_VERSION) {
        console_puts("no launch table of version ");
        console_dec(VGPU_LT_VERSION);
        console_puts(" at the address TABLE gives\n");
        return 1;
    }
    return 0;
}

void gpu_program_launch(uint32_t i, const uint32_t* extra, uint32_t nextra)
{
    const struct vgpu_lt_launch* l = &LT_ARRAY(struct vgpu_lt_launch, launch_off)[i];
    const uint32_t q = l->queue;
    cp_write(cp_queue(q, CP_PROG_ADDR), l->prog_addr);
    cp_write(cp_queue(q, CP_PROG_BYTES), l->prog_bytes);
    cp_write(cp_queue(q, CP_GRID_X), l->grid_x);
    cp_write(cp_queue(q, CP_GRID_Y), l->grid_y);
    cp_write(cp_queue(q, CP_BLOCK_X), l->block_x);
    cp_write(cp_queue(q, CP_BLOCK_Y), l->block_y);
    cp_write(cp_queue(q, CP_SM_FIRST), l->sm_first);
    cp_write(cp_queue(q, CP_SM_COUNT), l->sm_count);
    cp_write(cp_queue(q, CP_NPARAMS), l->nparams + nextra);
    for (uint32_t p = 0; p < l->nparams; ++p)
        cp_write(cp_queue(q, CP_PARAM0 + 4 * p), l->params[p]);
    for (uint32_t p = 0; p < nextra; ++p)
        cp_write(cp_queue(q, CP_PARAM0 + 4 * (l->nparams + p)), extra[p]);
    for (uint32_t c = 0; c < l->ncbvs; ++c) {
        const uint32_t base = gpu_table->cbv_base + l->cbv[c].slot * CBV_SLOT_STRIDE;
        mmio_write(base + 0x0, l->cbv[c].base_lo);
        mmio_write(base + 0x4, l->cbv[c].base_hi);
        mmio_write(base + 0x8, l->cbv[c].size);
    }
    /* The kernel's LLC organisation: ARCH, then CHANGE (models/llc/README.md). */
    if (l->llc != VGPU_LT_LLC_KEEP && gpu_table->llc_base) {
        mmio_write(gpu_table->llc_base + LLC_ARCH, l->llc == VGPU_LT_LLC_PRIVATE ? 1 : 0);
        mmio_write(gpu_table->llc_base + LLC_CHANGE, 1);
    }
}

void gpu_tlb_invalidate(uint32_t va, uint32_t bytes)
{
    cp_write(CP_TLB_INV_VA_LO, va);
    cp_write(CP_TLB_INV_VA_HI, 0);
    cp_write(CP_TLB_INV_BYTES, bytes);
    cp_write(CP_TLB_INVALIDATE, 1);
}

void gpu_l1_invalidate(uint64_t pa, uint32_t bytes)
{
    cp_write(CP_L1_INV_PA_LO, (uint32_t)pa);
    cp_write(CP_L1_INV_PA_HI, (uint32_t)(pa >> 32));
    cp_write(CP_L1_INV_BYTES, bytes);
    cp_write(CP_L1_INVALIDATE, 1);
}
