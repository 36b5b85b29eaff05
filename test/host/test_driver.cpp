// Shell tests of the host driver against a stub GPU: a stub CP register target that records
// launches, emulates the kernels through the page table and raises irq after a delay, and a
// tlm_bus::memory as GPU memory. See models/host/README.md.
#include "models/cp/cp.h"
#include "models/host/driver.h"
#include "tlm_bus/memory.h"
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <functional>
#include <map>

using namespace vgpu;
using namespace vgpu::host;
using sc_core::SC_NS;
using sc_core::sc_time;
namespace reg = vgpu::cp::reg;

namespace {

constexpr std::uint64_t cp_base = 0x40000000;
constexpr std::uint64_t dram = 64ull << 20;

/// What the stub saw at a LAUNCH write.
struct launch_rec {
    unsigned queue;
    std::map<std::uint64_t, std::uint32_t> regs; ///< the queue block at LAUNCH
    sc_time at;
};

/// Stub command processor: registers in a map, completion `latency` after LAUNCH.
struct stub_cp : sc_core::sc_module {
    tlm_utils::simple_target_socket<stub_cp> mmio{"mmio"};
    sc_core::sc_out<bool> irq{"irq"};
    std::map<std::uint64_t, std::uint32_t> regs;
    std::vector<launch_rec> launches;
    /// Runs at completion; returns false to fail the kernel (fills ERROR_* itself).
    std::function<bool(const launch_rec&, std::map<std::uint64_t, std::uint32_t>&)> on_done;
    sc_time latency{1000, SC_NS};
    bool never_finish = false;
    std::uint32_t irq_status = 0;
    std::vector<std::pair<sc_time, unsigned>> completions;
    sc_core::sc_event_queue complete_ev;
    sc_core::sc_event irq_ev;

    SC_HAS_PROCESS(stub_cp);
    explicit stub_cp(const sc_core::sc_module_name& n) : sc_module(n)
    {
        mmio.register_b_transport(this, &stub_cp::b_transport);
        regs[reg::NUM_QUEUES] = 4;
        regs[reg::NUM_SMS] = 8;
        SC_METHOD(complete);
        sensitive << complete_ev;
        dont_initialize();
        SC_METHOD(drive_irq);
        sensitive << irq_ev;
    }

    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        const std::uint64_t off = gp.get_address() - cp_base;
        std::uint32_t v = 0;
        if (gp.get_data_length() != 4 || off >= reg::WINDOW_BYTES) {
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        delay += sc_time(10, SC_NS);
        if (gp.is_read()) {
            v = off == reg::IRQ_STATUS ? irq_status : regs[off];
            std::memcpy(gp.get_data_ptr(), &v, 4);
        } else {
            std::memcpy(&v, gp.get_data_ptr(), 4);
            if (off == reg::IRQ_STATUS) {
                irq_status &= ~v;
                irq_ev.notify(delay);
            } else if (off % reg::QUEUE_STRIDE == reg::LAUNCH && off < reg::GLOBAL) {
                const unsigned q = static_cast<unsigned>(off / reg::QUEUE_STRIDE);
                launch_rec r{q, {}, sc_core::sc_time_stamp() + delay};
                for (std::uint64_t o = 0; o < reg::QUEUE_STRIDE; o += 4)
                    if (regs.count(reg::queue(q, o)))
                        r.regs[o] = regs[reg::queue(q, o)];
                launches.push_back(r);
                regs[reg::queue(q, reg::STATUS)] = 1;
                if (!never_finish) {
                    completions.emplace_back(r.at + latency, q);
                    complete_ev.notify(delay + latency);
                }
            } else {
                regs[off] = v;
            }
        }
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }

    void complete()
    {
        for (auto it = completions.begin(); it != completions.end();) {
            if (it->first > sc_core::sc_time_stamp()) {
                ++it;
                continue;
            }
            const unsigned q = it->second;
            const launch_rec* rec = nullptr;
            for (const auto& l : launches)
                if (l.queue == q)
                    rec = &l;
            std::map<std::uint64_t, std::uint32_t> err;
            const bool ok = !on_done || on_done(*rec, err);
            for (const auto& [o, v] : err)
                regs[reg::queue(q, o)] = v;
            regs[reg::queue(q, reg::STATUS)] = ok ? 2 : 3;
            irq_status |= 1u << q;
            irq_ev.notify(sc_core::SC_ZERO_TIME);
            it = completions.erase(it);
        }
    }

    void drive_irq() { irq.write((irq_status & regs[reg::IRQ_ENABLE]) != 0); }
};

/// The leaf entry of va (4 KiB pages) in the radix table at ptbr, or 0: three levels of 8-byte
/// entries in 4 KiB nodes decoding VA bits 30..31, 21..29 and 12..20, written out here
/// independently of models/common/page_table.h (docs/architecture.md, "Address spaces").
std::uint64_t radix_pte(tlm_bus::memory& mem, std::uint64_t ptbr, std::uint64_t va)
{
    std::uint64_t table = ptbr;
    for (unsigned shift : {30u, 21u, 12u}) {
        std::uint64_t e = 0;
        mem.store().read(table + ((va >> shift) & 0x1ff) * 8, &e, 8);
        if (!(e & 1) || shift == 12)
            return e;
        table = e & ~0xfffull;
    }
    return 0;
}

/// Reads a 32-bit word at virtual address va by walking the page table in memory, as the
/// GPU would (independent of the driver's own plan).
struct page_walker {
    tlm_bus::memory& mem;
    std::uint64_t ptbr = 0;
    std::optional<std::uint64_t> pa(std::uint32_t va) const
    {
        const std::uint64_t pte = radix_pte(mem, ptbr, va);
        if (!(pte & 1))
            return std::nullopt;
        return (pte & ~0xfffull) + va % 4096;
    }
    std::uint32_t read(std::uint32_t va) const
    {
        std::uint32_t v = 0;
        auto p = pa(va);
        REQUIRE(p);
        mem.store().read(*p, &v, 4);
        return v;
    }
    void write(std::uint32_t va, std::uint32_t v) const
    {
        auto p = pa(va);
        REQUIRE(p);
        mem.store().write(*p, &v, 4);
    }
};

const char* const workload_text = R"(name: drv
buffers:
  - {name: x, type: u32, elements: 1500, init: iota}
  - {name: y, type: u32, elements: 8, init: {values: [1, 2, 3, 4, 5, 6, 7, 8]}}
  - {name: z, type: u32, elements: 1500}
kernels:
  - name: k1
    params: [{name: x, buffer: x}, {name: y, buffer: y}, {name: n, value: 1500}]
    grid: [3, 2]
    block: [64, 2]
    sms: {first: 4, count: 4}
    program: |
      LDP R0, x
      EXIT
  - name: k2
    params: [{name: y, buffer: y}]
    grid: 1
    block: 32
    sms: {first: 0, count: 4}
    program: |
      LDP R0, y
      NOP
      EXIT
  - name: k3
    params: [{name: z, buffer: z}, {name: x, buffer: x}, {name: n, value: 1500}]
    grid: 6
    block: 256
    program: |
      LDP R0, z
      LD R1, [R0]
      EXIT
schedule: [[k1, k2], [k3]]
checks:
  - {buffer: z, reference: stream, args: {in: x, k: 2, c: 1}}
)";

workload parse(const char* text = workload_text)
{
    auto r = parse_workload_text(text, "drv.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    return r.wl;
}

platform_facts facts(page_alloc policy)
{
    platform_facts f;
    f.modules = 2;
    f.dram_bytes = dram;
    f.page_bytes = 4096;
    f.alloc = policy;
    f.sms_per_module = 4;
    f.cp_base = cp_base;
    f.line_bytes = 64;
    return f;
}

/// The bench: driver -> checkers -> stub CP and memory.
struct bench {
    workload wl;
    host_config cfg;
    stub_cp cp{"cp"};
    tlm_bus::memory mem;
    tlm_bus::protocol_checker mmio_pc{"mmio_pc"};
    tlm_bus::protocol_checker dma_pc{"dma_pc"};
    sc_core::sc_signal<bool> irq{"irq"}, fault_irq{"fault_irq"};
    driver drv;
    page_walker walk{mem};

    static tlm_bus::memory_params mem_params()
    {
        tlm_bus::memory_params p;
        p.size = 2 * dram;
        p.latency = sc_time(20, SC_NS);
        return p;
    }

    bench(workload w, page_alloc policy, host_config c = {})
        : wl(std::move(w)), cfg(c), mem("mem", mem_params()), drv("drv", cfg, wl, facts(policy))
    {
        tlm_bus::bind_checked(drv.mmio, mmio_pc, cp.mmio);
        tlm_bus::bind_checked(drv.dma, dma_pc, mem.in);
        drv.irq(irq);
        drv.fault_irq(fault_irq); // no fault unit here (facts.fault_base 0)
        cp.irq(irq);
    }

    /// Makes the stub compute k3 (z = 2 * x + 1) through the page table.
    void emulate_k3()
    {
        cp.on_done = [this](const launch_rec& r, std::map<std::uint64_t, std::uint32_t>&) {
            if (r.regs.at(reg::SM_COUNT) != 8)
                return true; // only k3 runs on every SM; k1 and k2 compute nothing
            const std::uint32_t z = r.regs.at(reg::PARAM0);
            const std::uint32_t x = r.regs.at(reg::PARAM0 + 4);
            const std::uint32_t n = r.regs.at(reg::PARAM0 + 8);
            walk.ptbr = std::uint64_t{cp.regs[reg::PTBR_HI]} << 32 | cp.regs[reg::PTBR_LO];
            for (std::uint32_t i = 0; i < n; ++i)
                walk.write(z + 4 * i, walk.read(x + 4 * i) * 2 + 1);
            return true;
        };
    }

    void run()
    {
        sc_core::sc_start();
        CHECK(mmio_pc.violations() == 0);
        CHECK(dma_pc.violations() == 0);
        REQUIRE(drv.finished());
    }

    std::uint64_t pte(std::uint64_t va) { return radix_pte(mem, drv.plan().ptbr, va); }
};

/// Expected PTEs, computed by hand from the layout in docs/workloads.md: programs k1, k2, k3
/// at 0x01000000, 0x01002000, 0x01004000; buffers x (2 pages), y (1), z (2) at 0x10000000,
/// 0x10003000, 0x10005000; module 0's frames start at 0, module 1's at 64 MiB; frames are
/// handed out in that order (programs, then buffers), the page table's nodes after module 0's.
const std::map<std::uint64_t, std::uint64_t> first_touch_frames = {
    {0x01000000, 0x4000000}, // k1 runs on SMs 4..7: module 1
    {0x01002000, 0x0000000}, // k2 on SMs 0..3: module 0
    {0x01004000, 0x0001000}, // k3 on every SM (first 0): module 0
    {0x10000000, 0x4001000}, // x: first used by k1 -> module 1
    {0x10001000, 0x4002000},
    {0x10003000, 0x4003000}, // y: first used by k1 (first in phase 0) -> module 1
    {0x10005000, 0x0002000}, // z: first used by k3 -> module 0
    {0x10006000, 0x0003000},
};
const std::map<std::uint64_t, std::uint64_t> round_robin_frames = {
    {0x01000000, 0x0000000}, // vpn 0x1000: even -> module 0
    {0x01002000, 0x0001000}, {0x01004000, 0x0002000}, {0x10000000, 0x0003000}, // vpn 0x10000 even
    {0x10001000, 0x4000000}, // vpn 0x10001 odd -> module 1
    {0x10003000, 0x4001000}, {0x10005000, 0x4002000}, {0x10006000, 0x0004000},
};

void check_page_table(bench& b, const std::map<std::uint64_t, std::uint64_t>& frames)
{
    for (const auto& [va, pa] : frames) {
        INFO("va " << std::hex << va);
        // Present, writable, not read-only, home module = pa / 64 MiB in bits 3..8.
        CHECK(b.pte(va) == (pa | 3 | (pa >> 26) << 3));
    }
    // Guard pages and everything else stay unmapped.
    for (std::uint64_t va : {0x01001000ull, 0x01003000ull, 0x10002000ull, 0x10004000ull,
                             0x10007000ull, 0x0ull, 0xfffff000ull})
        CHECK(b.pte(va) == 0);
    CHECK(b.drv.plan().pages.size() == frames.size());
    // The table's nodes follow module 0's frames: a root, one node below it (every VA here is
    // below 1 GiB) and two leaf nodes (VAs 0x01xxxxxx and 0x10xxxxxx, 2 MiB regions 8 and 128).
    std::uint64_t module0_frames = 0;
    for (const auto& [va, pa] : frames)
        module0_frames += pa < 0x4000000 ? 1 : 0;
    CHECK(b.drv.plan().ptbr == module0_frames * 4096);
    CHECK(b.drv.plan().table_bytes == 4 * 4096);
}

void check_contents(bench& b)
{
    b.walk.ptbr = b.drv.plan().ptbr;
    for (std::uint32_t i = 0; i < 1500; ++i)
        if (b.walk.read(0x10000000 + 4 * i) != i)
            FAIL("x[" << i << "]");
    for (std::uint32_t i = 0; i < 8; ++i)
        CHECK(b.walk.read(0x10003000 + 4 * i) == i + 1);
    // The programs, as encoded by the ISA.
    for (std::size_t k = 0; k < 3; ++k) {
        const auto image = b.wl.kernels[k].image();
        std::vector<std::uint8_t> got(image.size());
        b.mem.store().read(*b.walk.pa(static_cast<std::uint32_t>(0x01000000 + 0x2000 * k)),
                           got.data(), got.size());
        CHECK(got == image);
    }
}

} // namespace

TEST_CASE("first_touch: page table, contents, launch sequence and a passing check", "[driver]")
{
    bench b(parse(), page_alloc::first_touch);
    b.emulate_k3();
    b.run();
    CHECK(b.drv.failures() == std::vector<std::string>{});
    check_page_table(b, first_touch_frames);
    check_contents(b);
    CHECK(b.cp.regs[reg::PTBR_LO] == 4 * 4096); // after module 0's 4 frames
    CHECK(b.cp.regs[reg::PTBR_HI] == 0);
    CHECK(b.cp.regs[reg::IRQ_ENABLE] == 3); // two queues used at most
    CHECK(b.cp.irq_status == 0);

    REQUIRE(b.cp.launches.size() == 3);
    const auto& l1 = b.cp.launches[0];
    const auto& l2 = b.cp.launches[1];
    const auto& l3 = b.cp.launches[2];
    CHECK(l1.queue == 0);
    CHECK(l2.queue == 1);
    CHECK(l3.queue == 0);
    CHECK(l1.regs.at(reg::PROG_ADDR) == 0x01000000);
    CHECK(l1.regs.at(reg::PROG_BYTES) == 32);
    CHECK(l1.regs.at(reg::GRID_X) == 3);
    CHECK(l1.regs.at(reg::GRID_Y) == 2);
    CHECK(l1.regs.at(reg::BLOCK_X) == 64);
    CHECK(l1.regs.at(reg::BLOCK_Y) == 2);
    CHECK(l1.regs.at(reg::SM_FIRST) == 4);
    CHECK(l1.regs.at(reg::SM_COUNT) == 4);
    CHECK(l1.regs.at(reg::NPARAMS) == 3);
    CHECK(l1.regs.at(reg::PARAM0) == 0x10000000);
    CHECK(l1.regs.at(reg::PARAM0 + 4) == 0x10003000);
    CHECK(l1.regs.at(reg::PARAM0 + 8) == 1500);
    CHECK(l2.regs.at(reg::PROG_ADDR) == 0x01002000);
    CHECK(l2.regs.at(reg::PROG_BYTES) == 48);
    CHECK(l2.regs.at(reg::SM_FIRST) == 0);
    CHECK(l2.regs.at(reg::SM_COUNT) == 4);
    CHECK(l3.regs.at(reg::PROG_ADDR) == 0x01004000);
    CHECK(l3.regs.at(reg::SM_FIRST) == 0);
    CHECK(l3.regs.at(reg::SM_COUNT) == 8); // "every SM" resolved from NUM_SMS
    CHECK(l3.regs.at(reg::GRID_X) == 6);
    CHECK(l3.regs.at(reg::GRID_Y) == 1);
    // Phase 1's kernels start together; phase 2 only after both have finished.
    CHECK(l2.at - l1.at < sc_time(1000, SC_NS));
    CHECK(l3.at >= l2.at + b.cp.latency);

    const auto& runs = b.drv.runs();
    REQUIRE(runs.size() == 3);
    for (const auto& r : runs) {
        CHECK(r.ok);
        CHECK(r.end - r.start >= b.cp.latency);
        CHECK(r.end - r.start < b.cp.latency + sc_time(500, SC_NS));
    }
    CHECK(runs[2].phase == 1);
}

TEST_CASE("round_robin: page i on module i mod M", "[driver]")
{
    bench b(parse(), page_alloc::round_robin);
    b.emulate_k3();
    b.run();
    CHECK(b.drv.failures() == std::vector<std::string>{});
    check_page_table(b, round_robin_frames);
    check_contents(b);
}

TEST_CASE("a failing check is reported with index, expected and got", "[driver]")
{
    host_config cfg;
    cfg.max_mismatches = 3;
    bench b(parse(), page_alloc::first_touch, cfg);
    // No emulation: z stays zero.
    b.run();
    CHECK(b.drv.failures() ==
          std::vector<std::string>{
              "check 0 of buffer 'z' (reference stream): 1500 of 1500 elements differ; [0] "
              "expected 1 got 0; [1] expected 3 got 0; [2] expected 5 got 0"});
    CHECK(b.drv.runs().size() == 3);
}

TEST_CASE("a kernel fault is reported with SM, warp, PC, source line and VA", "[driver]")
{
    bench b(parse(), page_alloc::first_touch);
    b.cp.on_done = [](const launch_rec& r, std::map<std::uint64_t, std::uint32_t>& err) {
        if (r.regs.at(reg::NPARAMS) != 3 || r.regs.at(reg::SM_FIRST) != 0)
            return true;
        err[reg::ERROR_CAUSE] = 2;
        err[reg::ERROR_SM] = 5;
        err[reg::ERROR_WARP] = 7;
        err[reg::ERROR_PC] = 1;
        err[reg::ERROR_VADDR_LO] = 0x10007000;
        const char msg[] = "page fault";
        for (unsigned i = 0; i < sizeof msg; i += 4) {
            std::uint32_t w = 0;
            std::memcpy(&w, msg + i, std::min<std::size_t>(4, sizeof msg - i));
            err[reg::ERROR_MSG + i] = w;
        }
        return false;
    };
    b.run();
    CHECK(b.drv.failures() ==
          std::vector<std::string>{
              "kernel 'k3' (phase 1, queue 0) failed: CTA fault on SM 5, warp 7, PC 1 "
              "(drv.yaml:30), VA 0x10007000: page fault",
              "checks skipped: the run did not complete"});
    REQUIRE(b.drv.runs().size() == 3);
    CHECK(!b.drv.runs()[2].ok);
}

TEST_CASE("a kernel that never finishes is reported after the timeout", "[driver]")
{
    host_config cfg;
    cfg.kernel_timeout.ps = 50'000'000; // 50 us
    bench b(parse(), page_alloc::first_touch, cfg);
    b.cp.never_finish = true;
    b.run();
    CHECK(b.drv.failures() ==
          std::vector<std::string>{
              "kernel 'k1' (phase 0) did not finish within host.kernel_timeout (50 us)",
              "kernel 'k2' (phase 0) did not finish within host.kernel_timeout (50 us)",
              "checks skipped: the run did not complete"});
    CHECK(sc_core::sc_time_stamp() >= sc_time(50, sc_core::SC_US));
}

TEST_CASE("check_memory_fit: the first region that does not fit, with its position", "[driver]")
{
    std::string text = workload_text;
    text.replace(text.find("elements: 1500}"), 15, "elements: 20000000}");
    const workload wl = parse(text.c_str());
    CHECK(check_memory_fit(wl, facts(page_alloc::first_touch)) ==
          std::vector<std::string>{
              // z (the third buffer) is first used by k3 on SM 0: module 0 gets its pages.
              "drv.yaml:5:5: error: buffers[2]: buffer 'z' (80000000 bytes) does not fit in GPU "
              "memory: module 0's DRAM (67108864 bytes) is full (dram.size is 67108864 bytes per "
              "module, 2 module(s))"});
    CHECK(check_memory_fit(parse(), facts(page_alloc::first_touch)).empty());
}

TEST_CASE("a workload that does not fit the DRAM is reported before any launch", "[driver]")
{
    const std::string text =
        std::string(workload_text)
            .replace(std::string(workload_text).find("elements: 1500}"), 15, "elements: 20000000}");
    bench b(parse(text.c_str()), page_alloc::first_touch);
    b.run();
    CHECK(b.drv.failures() ==
          std::vector<std::string>{"memory allocation: module 0's DRAM (67108864 bytes) is full",
                                   "checks skipped: the run did not complete"});
    CHECK(b.cp.launches.empty());
}

TEST_CASE("adaptive placement: first touch while balanced, round robin otherwise (by hand)")
{
    // Placed at set-up (no fault service in this bench): one kernel on SMs 0..3 (module 0),
    // its program (1 page, vpn 4096), then buffer a (10 pages, vpns 65536..65545), all first
    // touched by module 0; 2 modules, balance_ratio 1.5. Seed 004: after each placement the
    // pages are balanced iff 2 x max <= 1.5 x placed; balanced, the next page goes by first
    // touch (module 0), else by round robin (vpn mod 2). The first page goes by first touch.
    //   page (vpn):  4096 65536 65537 65538 65539 65540 65541 65542 65543 65544 65545
    //   policy:      FT   RR    RR    FT    FT    RR    RR    FT    FT    RR    RR
    //   module:      0    0     1     0     0     0     1     0     0     0     1
    //   after (m0,m1): (1,0) (2,0) (2,1) (3,1) (4,1) (5,1) (5,2) (6,2) (7,2) (8,2) (8,3)
    //   2 x max <= 1.5 x placed: 2>1.5 4>3 4<=4.5 6<=6 8>7.5 10>9 10<=10.5 12<=12 14>13.5 16>15
    const workload wl = parse("name: a\nbuffers:\n  - {name: a, type: u32, elements: 10240}\n"
                              "kernels:\n  - name: k\n    params:\n      - {name: a, buffer: a}\n"
                              "    grid: 1\n    block: 32\n    sms: {first: 0, count: 4}\n"
                              "    program: |\n      EXIT\n");
    platform_facts f = facts(page_alloc::adaptive);
    f.balance_ratio = 1.5;
    const memory_plan p = plan_memory(wl, f);
    REQUIRE(p.error.empty());
    std::vector<unsigned> modules;
    for (const auto& [vpn, pa] : p.pages)
        modules.push_back(static_cast<unsigned>(pa / dram));
    CHECK(modules == std::vector<unsigned>{0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1});
    CHECK(p.bytes_per_module == std::vector<std::uint64_t>{8 * 4096, 3 * 4096});
    // A ratio no placement reaches is plain first touch; round_robin ignores the touch.
    f.balance_ratio = 1024;
    CHECK(plan_memory(wl, f).bytes_per_module == std::vector<std::uint64_t>{11 * 4096, 0});
}
