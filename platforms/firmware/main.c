/* The generic firmware driver: runs any workload from the launch table the platform wrote
   (models/host/launch_table.h). It launches each phase through the CP registers (an
   instrumented kernel's profiling launch first, its trace buffers sized and mapped between),
   sleeps in WFI until the interrupts, services GPU page faults in its interrupt handler in the
   order of the native driver's shadow thread (models/host/README.md, "Page faults") and runs
   the `evict` entries while it waits. docs/firmware.md. */
#include "gpu.h"

#define MAX_BATCH 512u       /* fault records per round this firmware can hold */
#define MAX_PAGES (1u << 17) /* pages of regions and trace windows (leaves) it can track */
#define MAX_QUEUES 32u
#define MAX_EVICTIONS 64u /* `evict` entries */

struct fault_record {
    uint32_t va, va_hi, sm, warp, pc, info;
};

static struct fault_record round_records[MAX_BATCH];
static uint32_t resident[MAX_PAGES / 32]; /* by leaf: the region's page is mapped */
static volatile uint32_t queues_done;     /* bit q: queue q's interrupt seen */
static volatile uint32_t queues_failed;   /* bit q: it ended in error */
static uint32_t queue_launch[MAX_QUEUES]; /* launch index running on queue q */
static struct vgpu_lt_pool pools[64];     /* the frame pools (a copy the firmware updates) */
static uint32_t placed;
static double balance_ratio;
static uint32_t trace_bytes[VGPU_LT_TRACE_TYPES]; /* the traced launch's buffer sizes */
static uint64_t evict_due[MAX_EVICTIONS];         /* MTIMER_NEVER: not armed, or done */
static uint32_t irq_sources;                      /* the controller's enabled sources */

static int resident_page(uint32_t leaf)
{
    return resident[leaf / 32] >> (leaf % 32) & 1;
}

static void set_resident(uint32_t leaf, int on)
{
    if (on)
        resident[leaf / 32] |= 1u << (leaf % 32);
    else
        resident[leaf / 32] &= ~(1u << (leaf % 32));
}

/* ---- the memory manager: placement and frames, as page_placer does natively ---- */

/* Inlined: as calls they cost the fault path a quarter more instructions per page. */
#define HOT_PATH static inline __attribute__((always_inline))

/* Seed 004's balance test: the most pages on one module <= balance_ratio x the mean. */
HOT_PATH int balanced(void)
{
    uint32_t most = 0;
    for (uint32_t m = 0; m < gpu_table->modules; ++m)
        most = pools[m].pages > most ? pools[m].pages : most;
    return (double)most * (double)gpu_table->modules <= balance_ratio * (double)placed;
}

/* The home module of page vpn first touched from module touch (models/page_alloc/README.md):
   adaptive places with the policy the last placement chose (first touch when the pages were
   balanced after it, else round robin), which is the balance test of the pages so far. */
HOT_PATH uint32_t home(uint32_t vpn, uint32_t touch)
{
    const uint32_t n = gpu_table->modules;
    uint32_t m = touch < n - 1 ? touch : n - 1;
    if (gpu_table->page_alloc == 1 || (gpu_table->page_alloc == 2 && !balanced()))
        m = vpn % n;
    ++pools[m].pages;
    ++placed;
    return m;
}

/* A free frame on module m (0 in *ok when the module's DRAM is full). */
HOT_PATH uint64_t frame(uint32_t m, int* ok)
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
        return FU_REASON_NOT_MAPPED;
    if (write && (r->flags & VGPU_LT_READ_ONLY))
        return FU_REASON_READ_ONLY;
    const uint32_t vpn = va / page;
    const uint32_t touch = sm / (gpu_table->sms_per_module ? gpu_table->sms_per_module : 1);
    const uint32_t m = home(vpn, touch);
    int ok = 0;
    const uint64_t pa = frame(m, &ok);
    if (!ok)
        return FU_REASON_MEMORY_FULL;
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
    gpu_write_pte(leaf, pte);
    gpu_tlb_invalidate(vpn * page, page);
    hs_write(VGPU_HS_COPY_PA_LO, (uint32_t)pa);
    hs_write(VGPU_HS_COPY_PA_HI, (uint32_t)(pa >> 32));
    hs_write(VGPU_HS_MAPPED, m);
    set_resident(leaf_index, 1);
    return 0;
}

/* Steps (2) to (4) for one record: 1 mapped, 2 refused (reason set). */
static uint32_t service(const struct fault_record* f, uint32_t* reason)
{
    /* (52) The record's type: other exceptions take their own branch (58), refused; a
       protection fault (a store to a page that is not writable) is refused as read-only:
       the firmware resolves no copy-on-write (the native host does). */
    const uint32_t type = (f->info & FU_INFO_TYPE) >> FU_INFO_TYPE_SHIFT;
    if (type == FU_TYPE_OTHER) {
        *reason = FU_REASON_NOT_A_FAULT;
        return 2;
    }
    if (type == FU_TYPE_PROTECTION) {
        *reason = FU_REASON_READ_ONLY;
        return 2;
    }
    if (type != FU_TYPE_NOT_PRESENT || f->va_hi != 0) {
        *reason = FU_REASON_NOT_A_FAULT;
        return 2;
    }
    const int write = (f->info & 0xff) == 1;
    const struct vgpu_lt_region* r = region_of(f->va);
    uint32_t why = 0;
    if (r) {
        const uint32_t page = gpu_table->page_bytes;
        const uint32_t leaf_index = r->first_leaf + (f->va / page - r->va / page);
        if (resident_page(leaf_index)) /* another record mapped it */
            why = write && (r->flags & VGPU_LT_READ_ONLY) ? FU_REASON_READ_ONLY : 0;
        else
            why = map_page(f->va, write, f->sm);
    } else {
        why = FU_REASON_NOT_MAPPED;
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
        f->va_hi = fu_read(FU_VA_HI);
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
        fu_write(FU_ACK_VA_HI, f->va_hi);
        fu_write(FU_ACK, ack);
    }
    hs_write(VGPU_HS_ROUND_END, refused);
}

/* ---- evictions (`evict` entries): run by the main loop while it waits ---- */

/* Sleeps until simulated time t; interrupts are taken meanwhile. */
static void sleep_until(uint64_t t)
{
    for (;;) {
        csr_clear(mstatus, MSTATUS_MIE);
        if (mtime_ns() >= t)
            break;
        mtimecmp_set(t);
        wfi();
        csr_set(mstatus, MSTATUS_MIE);
    }
    csr_set(mstatus, MSTATUS_MIE);
}

/* Evicts the resident pages of a region, in the native driver's order: clear each PTE and
   shoot the page down, let accesses translated before that land, drop each page's frame from
   every L1 (physically addressed, so a page given the frame later is not read from them),
   copy the pages out. The fault unit's interrupt waits meanwhile (the native eviction holds
   the memory manager, the shadow thread waits for it); the CP's is taken. */
static void evict(const struct vgpu_lt_evict* e)
{
    const struct vgpu_lt_region* r = &LT_ARRAY(struct vgpu_lt_region, region_off)[e->region];
    const uint64_t* leaves = LT_ARRAY(uint64_t, leaf_off);
    const uint32_t page = gpu_table->page_bytes;
    const uint32_t pages = (r->bytes + page - 1) / page;
    sys_write(SYS_IRQ_ENABLE, irq_sources & ~(1u << IRQ_SOURCE_FAULT));
    for (uint32_t i = 0; i < pages; ++i)
        if (resident_page(r->first_leaf + i)) {
            gpu_write_pte(leaves[r->first_leaf + i], 0);
            gpu_tlb_invalidate(r->va + i * page, page);
        }
    sleep_until(mtime_ns() + gpu_table->evict_drain_ns);
    for (uint32_t i = 0; i < pages; ++i)
        if (resident_page(r->first_leaf + i)) {
            hs_write(VGPU_HS_COPY_VA, r->va + i * page);
            gpu_l1_invalidate(hs_read(VGPU_HS_FRAME_LO) | (uint64_t)hs_read(VGPU_HS_FRAME_HI) << 32,
                              page);
        }
    for (uint32_t i = 0; i < pages; ++i)
        if (resident_page(r->first_leaf + i)) {
            hs_write(VGPU_HS_COPY_VA, r->va + i * page);
            hs_write(VGPU_HS_COPY_GO, 3);
            set_resident(r->first_leaf + i, 0);
        }
    hs_write(VGPU_HS_COPY_VA, r->va);
    hs_write(VGPU_HS_COPY_GO, 4);
    sys_write(SYS_IRQ_ENABLE, irq_sources);
}

/* The armed eviction due first (file order among equal times), or MAX_EVICTIONS. */
static uint32_t next_eviction(void)
{
    uint32_t next = MAX_EVICTIONS;
    for (uint32_t e = 0; e < gpu_table->evictions; ++e)
        if (evict_due[e] != MTIMER_NEVER &&
            (next == MAX_EVICTIONS || evict_due[e] < evict_due[next]))
            next = e;
    return next;
}

/* Runs the evictions that are due. */
static void run_evictions(void)
{
    const struct vgpu_lt_evict* entries = LT_ARRAY(struct vgpu_lt_evict, evict_off);
    uint32_t e;
    while ((e = next_eviction()) != MAX_EVICTIONS && evict_due[e] <= mtime_ns()) {
        evict_due[e] = MTIMER_NEVER;
        evict(&entries[e]);
    }
}

/* The timer only wakes the main loop's WFI (it sets mtimecmp again before sleeping). */
void on_timer_interrupt(void)
{
    mtimecmp_set(MTIMER_NEVER);
}

/* Arms the evictions of schedule phase ph (each pass of a loop's phase), after_ns from t0 (the
   table phase's first launch). */
static void arm_evictions(uint32_t ph, uint64_t t0)
{
    const struct vgpu_lt_evict* entries = LT_ARRAY(struct vgpu_lt_evict, evict_off);
    for (uint32_t e = 0; e < gpu_table->evictions; ++e)
        if (entries[e].phase == ph)
            evict_due[e] = t0 + entries[e].after_ns;
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

/* ---- launches ---- */

static const struct vgpu_lt_launch* launches;

/* Programs launch i, reports it and writes LAUNCH; *t0, if still MTIMER_NEVER, takes the time
   just before the report (a phase's start, for its evictions). */
static void start_launch(uint32_t i, const uint32_t* extra, uint32_t nextra, uint64_t* t0)
{
    const uint32_t q = launches[i].queue;
    gpu_program_launch(i, extra, nextra);
    csr_clear(mstatus, MSTATUS_MIE);
    queue_launch[q] = i;
    queues_done &= ~(1u << q);
    queues_failed &= ~(1u << q);
    csr_set(mstatus, MSTATUS_MIE);
    if (*t0 == MTIMER_NEVER && gpu_table->evictions)
        *t0 = mtime_ns();
    hs_write(VGPU_HS_MARK_LAUNCH, i);
    cp_write(cp_queue(q, CP_LAUNCH), 1);
}

/* Sleeps until every queue of pending has interrupted: check with interrupts off, WFI (it
   wakes on a pending enabled interrupt even then), take it with them on; evicts what falls
   due meanwhile. Returns the queues that ended in error. */
static uint32_t wait_queues(uint32_t pending)
{
    for (;;) {
        run_evictions();
        csr_clear(mstatus, MSTATUS_MIE);
        if ((queues_done & pending) == pending)
            break;
        if (gpu_table->evictions) {
            const uint32_t e = next_eviction();
            mtimecmp_set(e == MAX_EVICTIONS ? MTIMER_NEVER : evict_due[e]);
        }
        wfi();
        csr_set(mstatus, MSTATUS_MIE);
    }
    csr_set(mstatus, MSTATUS_MIE);
    return queues_failed & pending;
}

static int host_failed(void)
{
    return hs_read(VGPU_HS_FAILED) != 0;
}

/* Seed 002, profiling launch i: the host saves the kernel's buffers and zeroes its counters,
   the launch runs, the host sizes each type's buffer from the counters, the firmware maps the
   pages each buffer needs in its window (placement, frame, PTE, shootdown), the host restores
   the buffers. 0, or the failure code main returns. */
static uint32_t profile(uint32_t i, uint64_t* t0)
{
    const struct vgpu_lt_trace* tr = &LT_ARRAY(struct vgpu_lt_trace, trace_off)[launches[i].trace];
    const uint64_t* leaves = LT_ARRAY(uint64_t, leaf_off);
    const uint32_t page = gpu_table->page_bytes;
    hs_write(VGPU_HS_TRACE_SAVE, i);
    if (host_failed())
        return 4;
    start_launch(i, 0, 0, t0);
    if (wait_queues(1u << launches[i].queue))
        return 3;
    hs_write(VGPU_HS_TRACE_SIZE, i);
    if (host_failed())
        return 4;
    for (uint32_t t = 0; t < VGPU_LT_TRACE_TYPES; ++t) {
        if (!(tr->types >> t & 1))
            continue;
        trace_bytes[t] = hs_read(VGPU_HS_TRACE_BYTES0 + 4 * t);
        for (uint32_t off = 0; off < trace_bytes[t]; off += page) {
            const uint32_t va = tr->window[t] + off;
            const uint32_t m = home(va / page, tr->touch);
            int ok = 0;
            const uint64_t pa = frame(m, &ok);
            if (!ok) {
                console_puts("no free frame for the trace buffers\n");
                return 5;
            }
            gpu_write_pte(leaves[tr->first_leaf[t] + off / page],
                          pa | (tr->pte_lo | (uint64_t)tr->pte_hi << 32) |
                              ((uint64_t)(m & gpu_table->home_mask) << gpu_table->home_shift));
            gpu_tlb_invalidate(va, page);
            hs_write(VGPU_HS_COPY_VA, va);
            hs_write(VGPU_HS_COPY_PA_LO, (uint32_t)pa);
            hs_write(VGPU_HS_COPY_PA_HI, (uint32_t)(pa >> 32));
            hs_write(VGPU_HS_TRACE_MAPPED, m);
        }
    }
    hs_write(VGPU_HS_TRACE_RESTORE, i);
    return host_failed() ? 4 : 0;
}

/* The parameters a traced launch appends per traced type: window, pointer, bytes. */
static uint32_t traced_params(const struct vgpu_lt_launch* l, uint32_t* extra)
{
    const struct vgpu_lt_trace* tr = &LT_ARRAY(struct vgpu_lt_trace, trace_off)[l->trace];
    uint32_t n = 0;
    for (uint32_t t = 0; t < VGPU_LT_TRACE_TYPES; ++t)
        if (tr->types >> t & 1) {
            extra[n++] = tr->window[t];
            extra[n++] = tr->pointer[t];
            extra[n++] = trace_bytes[t];
        }
    return n;
}

int main(void)
{
    if (gpu_open())
        return 1;
    const struct vgpu_lt_header* t = gpu_table;
    if (t->modules > 64 || t->pages > MAX_PAGES || t->fault_batch > MAX_BATCH ||
        t->evictions > MAX_EVICTIONS) {
        console_puts("the workload exceeds this firmware's limits (64 modules, 131072 pages of "
                     "on-demand, evicted and trace buffers, host.fault_batch 512, 64 evict "
                     "entries)\n");
        return 2;
    }
    const struct vgpu_lt_pool* p = LT_ARRAY(struct vgpu_lt_pool, pool_off);
    for (uint32_t m = 0; m < t->modules; ++m)
        pools[m] = p[m];
    placed = t->placed;
    const uint64_t bits = t->balance_lo | (uint64_t)t->balance_hi << 32;
    __builtin_memcpy(&balance_ratio, &bits, sizeof balance_ratio);
    /* Pages of buffers that are not on demand are resident from the start. */
    const struct vgpu_lt_region* regions = LT_ARRAY(struct vgpu_lt_region, region_off);
    for (uint32_t r = 0; r < t->regions; ++r)
        if (!(regions[r].flags & VGPU_LT_ON_DEMAND))
            for (uint32_t i = 0; i < (regions[r].bytes + t->page_bytes - 1) / t->page_bytes; ++i)
                set_resident(regions[r].first_leaf + i, 1);
    for (uint32_t e = 0; e < t->evictions; ++e)
        evict_due[e] = MTIMER_NEVER;
    launches = LT_ARRAY(struct vgpu_lt_launch, launch_off);

    cp_write(CP_PTBR_LO, t->ptbr_lo);
    cp_write(CP_PTBR_HI, t->ptbr_hi);
    cp_write(CP_IRQ_ENABLE, t->irq_enable);
    irq_sources = 1u << IRQ_SOURCE_CP;
    if (t->fault_base) {
        fu_write(FU_IRQ_ENABLE, 1);
        irq_sources |= 1u << IRQ_SOURCE_FAULT;
    }
    sys_write(SYS_IRQ_ENABLE, irq_sources);
    csr_set(mie, MIE_MEIE);
    if (t->evictions)
        csr_set(mie, MIE_MTIE);
    csr_set(mstatus, MSTATUS_MIE);

    const struct vgpu_lt_phase* phases = LT_ARRAY(struct vgpu_lt_phase, phase_off);
    for (uint32_t ph = 0; ph < t->phases; ++ph) {
        const uint32_t end = phases[ph].first + phases[ph].count;
        uint64_t t0 = MTIMER_NEVER;
        uint32_t i = phases[ph].first, pending = 0, failed = 0;
        /* Seed 002: an instrumented kernel (alone in its phase) is profiled first. */
        for (; i < end && launches[i].kind == VGPU_LT_PROFILE && !failed; ++i)
            failed = profile(i, &t0);
        const uint32_t kernels = i;
        for (; i < end && !failed; ++i) {
            uint32_t extra[3 * VGPU_LT_TRACE_TYPES];
            const uint32_t n =
                launches[i].kind == VGPU_LT_TRACED ? traced_params(&launches[i], extra) : 0;
            start_launch(i, extra, n, &t0);
            pending |= 1u << launches[i].queue;
        }
        if (!failed) {
            arm_evictions(launches[phases[ph].first].phase, t0); /* its schedule phase */
            if (wait_queues(pending))
                failed = 3;
        }
        for (i = kernels; i < end && !failed; ++i)
            if (launches[i].kind == VGPU_LT_TRACED) {
                hs_write(VGPU_HS_TRACE_COLLECT, i);
                if (host_failed())
                    failed = 4;
            }
        if (failed) {
            console_puts("phase ");
            console_dec(ph);
            console_puts(failed == 3 ? ": a kernel failed\n" : ": stopped\n");
            return (int)failed;
        }
    }
    console_puts("all ");
    console_dec(t->launches);
    console_puts(" launches done\n");
    return 0;
}
