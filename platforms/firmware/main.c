/* The generic firmware driver: runs any workload from the launch table the platform wrote
   (models/host/launch_table.h). It launches each phase through the CP registers, sleeps in WFI
   until the interrupts, and services GPU page faults in its interrupt handler in the order of
   the native driver's shadow thread (models/host/README.md, "Page faults"). docs/firmware.md. */
#include "gpu.h"

#define MAX_BATCH 512u       /* fault records per round this firmware can hold */
#define MAX_PAGES (1u << 17) /* on-demand pages it can track */
#define MAX_QUEUES 32u

struct fault_record {
    uint32_t va, sm, warp, pc, info;
};

static struct fault_record round_records[MAX_BATCH];
static uint32_t resident[MAX_PAGES / 32]; /* on-demand pages mapped so far */
static volatile uint32_t queues_done;     /* bit q: queue q's interrupt seen */
static volatile uint32_t queues_failed;   /* bit q: it ended in error */
static uint32_t queue_launch[MAX_QUEUES]; /* launch index running on queue q */
static struct vgpu_lt_pool pools[64];     /* the frame pools (a copy the firmware updates) */
static uint32_t placed, rr;
static double balance_ratio;

/* ---- the memory manager: placement and frames, as page_placer does natively ---- */

static uint32_t home(uint32_t vpn, uint32_t touch)
{
    const uint32_t n = gpu_table->modules;
    uint32_t m = touch < n - 1 ? touch : n - 1;
    if (gpu_table->page_alloc == 1) {
        m = vpn % n;
    } else if (gpu_table->page_alloc == 2 &&
               (double)(pools[m].pages + 1) > balance_ratio * (double)(placed + 1) / n) {
        m = rr;
        rr = (rr + 1) % n;
    }
    ++pools[m].pages;
    ++placed;
    return m;
}

/* A free frame on module m (0 in *ok when the module's DRAM is full). */
static uint64_t frame(uint32_t m, int* ok)
{
    const uint64_t next = pools[m].next_lo | (uint64_t)pools[m].next_hi << 32;
    const uint64_t end = pools[m].end_lo | (uint64_t)pools[m].end_hi << 32;
    *ok = next + gpu_table->page_bytes <= end;
    if (!*ok)
        return 0;
    const uint64_t after = next + gpu_table->page_bytes;
    pools[m].next_lo = (uint32_t)after;
    pools[m].next_hi = (uint32_t)(after >> 32);
    return next;
}

static const struct vgpu_lt_region* region_of(uint32_t va)
{
    const struct vgpu_lt_region* r = LT_ARRAY(struct vgpu_lt_region, region_off);
    for (uint32_t i = 0; i < gpu_table->regions; ++i)
        if (va >= r[i].va && va - r[i].va < r[i].bytes)
            return &r[i];
    return 0;
}

/* The page-fault handler: places, allocates, fills and maps the page of va; 0 or a reason. */
static uint32_t map_page(uint32_t va, int write, uint32_t sm)
{
    const uint32_t page = gpu_table->page_bytes;
    const struct vgpu_lt_region* r = region_of(va);
    if (!r)
        return REASON_NOT_MAPPED;
    if (write && r->read_only)
        return REASON_READ_ONLY;
    const uint32_t vpn = va / page;
    const uint32_t touch = sm / (gpu_table->sms_per_module ? gpu_table->sms_per_module : 1);
    const uint32_t m = home(vpn, touch);
    int ok = 0;
    const uint64_t pa = frame(m, &ok);
    if (!ok)
        return REASON_MEMORY_FULL;
    /* Fill from the host's copy of the page (staged initial data) by the copy engine. */
    hs_write(VGPU_HS_COPY_VA, vpn * page);
    hs_write(VGPU_HS_COPY_PA_LO, (uint32_t)pa);
    hs_write(VGPU_HS_COPY_PA_HI, (uint32_t)(pa >> 32));
    hs_write(VGPU_HS_COPY_GO, 1);
    /* The leaf PTE: frame, the region's bits, the home module. */
    const uint32_t leaf_index = r->first_leaf + (vpn - r->va / page);
    const uint64_t leaf = LT_ARRAY(uint64_t, leaf_off)[leaf_index];
    const uint64_t pte = pa | (r->pte_lo | (uint64_t)r->pte_hi << 32) |
                         ((uint64_t)(m & gpu_table->home_mask) << gpu_table->home_shift);
    hs_write(VGPU_HS_COPY_PA_LO, (uint32_t)leaf);
    hs_write(VGPU_HS_COPY_PA_HI, (uint32_t)(leaf >> 32));
    hs_write(VGPU_HS_PTE_LO, (uint32_t)pte);
    hs_write(VGPU_HS_PTE_HI, (uint32_t)(pte >> 32));
    hs_write(VGPU_HS_COPY_GO, 2);
    gpu_tlb_invalidate(vpn * page, page);
    hs_write(VGPU_HS_COPY_PA_LO, (uint32_t)pa);
    hs_write(VGPU_HS_COPY_PA_HI, (uint32_t)(pa >> 32));
    hs_write(VGPU_HS_MAPPED, m);
    resident[leaf_index / 32] |= 1u << (leaf_index % 32);
    return 0;
}

/* Steps (2) to (4) for one record: 1 mapped, 2 refused (reason set). */
static uint32_t service(const struct fault_record* f, uint32_t* reason)
{
    if ((f->info >> 8 & 0xff) != 0) {
        *reason = REASON_NOT_A_FAULT;
        return 2;
    }
    const int write = (f->info & 0xff) == 1;
    const struct vgpu_lt_region* r = region_of(f->va);
    uint32_t why = 0;
    if (r) {
        const uint32_t page = gpu_table->page_bytes;
        const uint32_t leaf_index = r->first_leaf + (f->va / page - r->va / page);
        if (resident[leaf_index / 32] >> (leaf_index % 32) & 1)
            why = write && r->read_only ? REASON_READ_ONLY : 0; /* another record mapped it */
        else
            why = map_page(f->va, write, f->sm);
    } else {
        why = REASON_NOT_MAPPED;
    }
    if (why == 0)
        return 1;
    *reason = why;
    return 2;
}

/* One service round: take up to fault_batch records, then answer each. */
static void service_faults(void)
{
    const uint32_t count = fu_read(FU_COUNT);
    if (count == 0)
        return;
    const uint32_t n = count < gpu_table->fault_batch ? count : gpu_table->fault_batch;
    for (uint32_t i = 0; i < n; ++i) {
        struct fault_record* f = &round_records[i];
        f->va = fu_read(FU_VA_LO);
        (void)fu_read(FU_VA_HI);
        f->sm = fu_read(FU_SM);
        f->warp = fu_read(FU_WARP);
        f->pc = fu_read(FU_PC);
        f->info = fu_read(FU_INFO);
        fu_write(FU_POP, 1);
    }
    hs_write(VGPU_HS_ROUND, n);
    uint32_t refused = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const struct fault_record* f = &round_records[i];
        uint32_t reason = 0;
        const uint32_t ack = service(f, &reason);
        if (ack == 2) {
            fu_write(FU_ACK_REASON, reason);
            ++refused;
        }
        fu_write(FU_ACK_VA_LO, f->va);
        fu_write(FU_ACK_VA_HI, 0);
        fu_write(FU_ACK, ack);
    }
    hs_write(VGPU_HS_ROUND_END, refused);
}

/* A CP interrupt: every finished queue is recorded and cleared. */
static void service_cp(void)
{
    const uint32_t status = cp_read(CP_IRQ_STATUS);
    for (uint32_t q = 0; q < MAX_QUEUES; ++q) {
        if (!(status >> q & 1) || (queues_done >> q & 1))
            continue;
        const uint32_t st = cp_read(cp_queue(q, CP_STATUS));
        hs_write(VGPU_HS_DONE_STATUS, st);
        hs_write(VGPU_HS_MARK_DONE, queue_launch[q]);
        if (st != CP_STATUS_DONE)
            queues_failed |= 1u << q;
        queues_done |= 1u << q;
    }
    if (status)
        cp_write(CP_IRQ_STATUS, status);
}

void on_external_interrupt(uint32_t source)
{
    if (source == IRQ_SOURCE_CP)
        service_cp();
    else if (source == IRQ_SOURCE_FAULT)
        service_faults();
}

int main(void)
{
    if (gpu_open())
        return 1;
    const struct vgpu_lt_header* t = gpu_table;
    if (t->modules > 64 || t->pages > MAX_PAGES || t->fault_batch > MAX_BATCH) {
        console_puts("the workload exceeds this firmware's limits (64 modules, 131072 on-demand "
                     "pages, host.fault_batch 512)\n");
        return 2;
    }
    const struct vgpu_lt_pool* p = LT_ARRAY(struct vgpu_lt_pool, pool_off);
    for (uint32_t m = 0; m < t->modules; ++m)
        pools[m] = p[m];
    placed = t->placed;
    rr = t->rr;
    const uint64_t bits = t->balance_lo | (uint64_t)t->balance_hi << 32;
    __builtin_memcpy(&balance_ratio, &bits, sizeof balance_ratio);

    cp_write(CP_PTBR_LO, t->ptbr_lo);
    cp_write(CP_PTBR_HI, t->ptbr_hi);
    cp_write(CP_IRQ_ENABLE, t->irq_enable);
    uint32_t sources = 1u << IRQ_SOURCE_CP;
    if (t->fault_base) {
        fu_write(FU_IRQ_ENABLE, 1);
        sources |= 1u << IRQ_SOURCE_FAULT;
    }
    sys_write(SYS_IRQ_ENABLE, sources);
    csr_set(mie, MIE_MEIE);
    csr_set(mstatus, MSTATUS_MIE);

    const struct vgpu_lt_phase* phases = LT_ARRAY(struct vgpu_lt_phase, phase_off);
    const struct vgpu_lt_launch* launches = LT_ARRAY(struct vgpu_lt_launch, launch_off);
    for (uint32_t ph = 0; ph < t->phases; ++ph) {
        uint32_t pending = 0;
        csr_clear(mstatus, MSTATUS_MIE);
        queues_done = 0;
        queues_failed = 0;
        csr_set(mstatus, MSTATUS_MIE);
        for (uint32_t i = phases[ph].first; i < phases[ph].first + phases[ph].count; ++i) {
            const uint32_t q = launches[i].queue;
            gpu_program_launch(i);
            queue_launch[q] = i;
            hs_write(VGPU_HS_MARK_LAUNCH, i);
            cp_write(cp_queue(q, CP_LAUNCH), 1);
            pending |= 1u << q;
        }
        /* Sleep until every queue of the phase has interrupted: check with interrupts off,
           WFI (it wakes on a pending enabled interrupt even then), take it with them on. */
        for (;;) {
            csr_clear(mstatus, MSTATUS_MIE);
            if ((queues_done & pending) == pending)
                break;
            wfi();
            csr_set(mstatus, MSTATUS_MIE);
        }
        csr_set(mstatus, MSTATUS_MIE);
        if (queues_failed & pending) {
            console_puts("phase ");
            console_dec(ph);
            console_puts(": a kernel failed\n");
            return 3;
        }
    }
    console_puts("all ");
    console_dec(t->launches);
    console_puts(" launches done\n");
    return 0;
}
