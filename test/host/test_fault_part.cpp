// Shell tests of the fault part's evictions against a stub GPU (a CP register target that
// accepts every write and a memory that can refuse one chosen write): the host's page table
// stays what the GPU's page table says. See models/host/README.md ("Page faults").
#include "models/cp/cp.h"
#include "models/host/driver.h"
#include "models/host/fault_part.h"
#include "tlm_bus/memory.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <functional>

using namespace vgpu;
using namespace vgpu::host;
using sc_core::SC_NS;
using sc_core::sc_time;
namespace reg = vgpu::cp::reg;

namespace {

constexpr std::uint64_t cp_base = 0x40000000;
constexpr std::uint64_t dram = 64ull << 20;

/// Stub command processor: registers in a map; a LAUNCH completes `latency` later.
struct stub_cp : sc_core::sc_module {
    tlm_utils::simple_target_socket<stub_cp> mmio{"mmio"};
    sc_core::sc_out<bool> irq{"irq"};
    std::map<std::uint64_t, std::uint32_t> regs;
    std::uint32_t irq_status = 0;
    sc_core::sc_event done_ev, irq_ev;
    sc_time latency{5000, SC_NS};
    unsigned queue = 0;
    bool refuse_tlb_invalidate = false;      ///< writes to TLB_INVALIDATE get an address error
    std::function<void()> on_tlb_invalidate; ///< called at a write to TLB_INVALIDATE

    SC_HAS_PROCESS(stub_cp);
    explicit stub_cp(const sc_core::sc_module_name& n) : sc_module(n)
    {
        mmio.register_b_transport(this, &stub_cp::b_transport);
        regs[reg::NUM_QUEUES] = 4;
        regs[reg::NUM_SMS] = 8;
        SC_METHOD(complete);
        sensitive << done_ev;
        dont_initialize();
        SC_METHOD(drive_irq);
        sensitive << irq_ev;
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        const std::uint64_t off = gp.get_address() - cp_base;
        std::uint32_t v = 0;
        delay += sc_time(10, SC_NS);
        if (gp.is_read()) {
            v = off == reg::IRQ_STATUS ? irq_status : regs[off];
            std::memcpy(gp.get_data_ptr(), &v, 4);
        } else {
            std::memcpy(&v, gp.get_data_ptr(), 4);
            if (off == reg::TLB_INVALIDATE && on_tlb_invalidate)
                on_tlb_invalidate();
            if (off == reg::TLB_INVALIDATE && refuse_tlb_invalidate) {
                gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
                return;
            }
            if (off == reg::IRQ_STATUS) {
                irq_status &= ~v;
                irq_ev.notify(delay);
            } else if (off % reg::QUEUE_STRIDE == reg::LAUNCH && off < reg::GLOBAL) {
                queue = static_cast<unsigned>(off / reg::QUEUE_STRIDE);
                regs[reg::queue(queue, reg::STATUS)] = 1;
                done_ev.notify(delay + latency);
            } else {
                regs[off] = v;
            }
        }
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void complete()
    {
        regs[reg::queue(queue, reg::STATUS)] = 2;
        irq_status |= 1u << queue;
        irq_ev.notify(sc_core::SC_ZERO_TIME);
    }
    void drive_irq() { irq.write((irq_status & regs[reg::IRQ_ENABLE]) != 0); }
};

/// GPU memory that refuses the `fail_at`-th 8-byte write of zero (a PTE clear), counted from 1,
/// and every debug (backdoor) write while `refuse_debug_writes` is set.
struct refusing_memory : sc_core::sc_module {
    tlm_utils::simple_target_socket<refusing_memory> in{"in"};
    tlm_utils::simple_initiator_socket<refusing_memory> out{"out"};
    unsigned fail_at = 0, clears = 0;
    std::vector<std::uint64_t> refused; ///< addresses of refused writes
    bool refuse_debug_writes = false;
    unsigned debug_refused = 0; ///< debug writes refused

    explicit refusing_memory(const sc_core::sc_module_name& n) : sc_module(n)
    {
        in.register_b_transport(this, &refusing_memory::b_transport);
        in.register_transport_dbg(this, &refusing_memory::transport_dbg);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        std::uint64_t v = 1;
        if (gp.is_write() && gp.get_data_length() == 8)
            std::memcpy(&v, gp.get_data_ptr(), 8);
        if (v == 0 && ++clears == fail_at) {
            refused.push_back(gp.get_address());
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        out->b_transport(gp, delay);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp)
    {
        if (gp.is_write() && refuse_debug_writes) {
            ++debug_refused;
            return 0;
        }
        return out->transport_dbg(gp);
    }
};

/// One buffer of four pages, resident from set-up, evicted 1 us into the kernel.
const char* const evict_text = R"(name: evict
buffers:
  - {name: x, type: u32, elements: 4096, init: iota}
kernels:
  - name: k
    params: [{name: x, buffer: x}]
    grid: 1
    block: 32
    program: |
      LDP R0, x
      EXIT
evict:
  - {buffer: x, phase: 0, after_ns: 1000}
)";

/// The leaf PTE of va by walking the radix table (4 KiB pages, three levels) independently.
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

struct evict_bench {
    workload wl;
    host_config cfg;
    stub_cp cp{"cp"};
    refusing_memory gate{"gate"};
    tlm_bus::memory mem;
    sc_core::sc_signal<bool> irq{"irq"}, fault_irq{"fault_irq"};
    driver drv;

    static tlm_bus::memory_params mem_params()
    {
        tlm_bus::memory_params p;
        p.size = 2 * dram;
        p.latency = sc_time(20, SC_NS);
        return p;
    }
    static platform_facts facts()
    {
        platform_facts f;
        f.modules = 1;
        f.dram_bytes = dram;
        f.page_bytes = 4096;
        f.sms_per_module = 8;
        f.cp_base = cp_base;
        f.line_bytes = 64;
        return f;
    }
    static workload parse()
    {
        auto r = parse_workload_text(evict_text, "evict.yaml");
        for (const auto& e : r.errors)
            UNSCOPED_INFO(e);
        REQUIRE(r.ok());
        return r.wl;
    }
    explicit evict_bench(unsigned fail_at)
        : wl(parse()), mem("mem", mem_params()), drv("drv", cfg, wl, facts(), [](driver& d) {
              d.add_part<fault_part>(fault_facts{}, d.fault_irq, false);
          })
    {
        gate.fail_at = fail_at;
        drv.mmio.bind(cp.mmio);
        drv.dma.bind(gate.in);
        gate.out.bind(mem.in);
        drv.irq(irq);
        drv.fault_irq(fault_irq);
        cp.irq(irq);
    }
    std::uint64_t pte(std::uint64_t va) { return radix_pte(mem, drv.plan().ptbr, va); }
};

/// A part that calls `probe` from its set_up hook (the driver thread, before the first launch).
struct probe_part : driver_part {
    part_host& host;
    std::function<bool(part_host&)> probe;
    probe_part(part_host& h, std::function<bool(part_host&)> f) : host(h), probe(std::move(f)) {}
    bool set_up() override { return probe(host); }
};

/// One buffer of four pages on a two-module GPU that serves faults: its pages are placed at
/// their first touch (none at set-up).
const char* const touch_text = R"(name: touch
buffers:
  - {name: x, type: u32, elements: 4096, init: iota}
kernels:
  - name: k
    params: [{name: x, buffer: x}]
    grid: 1
    block: 32
    program: |
      LDP R0, x
      EXIT
)";

struct touch_bench {
    workload wl;
    host_config cfg;
    stub_cp cp{"cp"};
    refusing_memory gate{"gate"};
    tlm_bus::memory mem;
    sc_core::sc_signal<bool> irq{"irq"}, fault_irq{"fault_irq"};
    std::function<bool(part_host&)> probe; ///< run at set-up
    driver drv;

    static platform_facts facts()
    {
        platform_facts f = evict_bench::facts();
        f.modules = 2;
        f.serves_faults = true;
        return f;
    }
    static workload parse()
    {
        auto r = parse_workload_text(touch_text, "touch.yaml");
        for (const auto& e : r.errors)
            UNSCOPED_INFO(e);
        REQUIRE(r.ok());
        return r.wl;
    }
    touch_bench()
        : wl(parse()), mem("mem", evict_bench::mem_params()),
          drv("drv", cfg, wl, facts(), [this](driver& d) {
              d.add_part<probe_part>([this](part_host& h) { return probe ? probe(h) : true; });
          })
    {
        drv.mmio.bind(cp.mmio);
        drv.dma.bind(gate.in);
        gate.out.bind(mem.in);
        drv.irq(irq);
        drv.fault_irq(fault_irq);
        cp.irq(irq);
    }
    std::uint64_t pte(std::uint64_t va) { return radix_pte(mem, drv.plan().ptbr, va); }
    bool reported(const std::string& a, const std::string& b = "") const
    {
        for (const std::string& f : drv.failures())
            if (f.find(a) != std::string::npos && f.find(b) != std::string::npos)
                return true;
        return false;
    }
};

constexpr std::uint64_t x_va = 0x10000000, x_vpn = x_va / 4096;

/// The timed placement of page 0 of x with the TLB shootdown refused, then of page 1: page 0
/// keeps its frame (its PTE points to it), page 1 gets another; the run reports the failure.
void shootdown_refused(sc_time quantum)
{
    tlm::tlm_global_quantum::instance().set(quantum);
    touch_bench b;
    placed_page p0, p1;
    std::uint64_t base = 0; // module 0's bytes before (the kernel's program)
    b.probe = [&](part_host& h) {
        base = h.memory().bytes_per_module.at(0);
        tlm_utils::tlm_quantumkeeper qk;
        qk.reset();
        b.cp.refuse_tlb_invalidate = true;
        p0 = h.place_page(0, x_vpn, 0, &qk);
        b.cp.refuse_tlb_invalidate = false;
        p1 = h.place_page(0, x_vpn + 1, 0, &qk);
        qk.sync();
        return true;
    };
    sc_core::sc_start();
    const auto& pages = b.drv.plan().pages;
    CHECK(p0.result == placed_page::outcome::write_failed);
    CHECK(p0.mapped);
    CHECK(p1.result == placed_page::outcome::placed);
    REQUIRE(pages.count(x_vpn) == 1);
    REQUIRE(pages.count(x_vpn + 1) == 1);
    CHECK(pages.at(x_vpn) != pages.at(x_vpn + 1));
    // The GPU's page table (walked here) against the plan.
    CHECK(b.pte(x_va) == page_table::encode(pages.at(x_vpn), true, false, 0));
    CHECK(b.pte(x_va + 4096) == page_table::encode(pages.at(x_vpn + 1), true, false, 0));
    CHECK(p0.pte == b.pte(x_va));
    CHECK(b.drv.plan().bytes_per_module.at(0) == base + 2 * 4096); // two frames
    CHECK(b.reported("MMIO write", "CP register"));
}

/// The zero-time placement at first touch with every backdoor write refused: the run fails
/// naming the page's VA; a later touch of the page is told to fault as usual, with no new claim
/// and no new attempt (no livelock of claims and replays).
void backdoor_refused(bool can_wait)
{
    touch_bench b;
    driver::touch_answer first, again;
    unsigned refused_first = 0;
    std::uint64_t base = 0; // module 0's bytes before (the kernel's program)
    b.probe = [&](part_host& h) {
        base = h.memory().bytes_per_module.at(0);
        b.gate.refuse_debug_writes = true;
        first = b.drv.place_at_touch(x_va, 0, sc_core::sc_time_stamp().value(), can_wait);
        if (first.wait)
            while (!first.wait->resolved)
                sc_core::wait(first.wait->done);
        refused_first = b.gate.debug_refused;
        again = b.drv.place_at_touch(x_va + 8, 1, sc_core::sc_time_stamp().value(), can_wait);
        b.gate.refuse_debug_writes = false;
        return true;
    };
    sc_core::sc_start();
    CHECK(first.pte == 0);
    CHECK(refused_first >= 1);
    CHECK(again.pte == 0);
    CHECK(!again.wait);
    CHECK(b.gate.debug_refused == refused_first);
    CHECK(b.drv.plan().pages.count(x_vpn) == 0);
    CHECK(b.drv.plan().bytes_per_module.at(0) == base);
    CHECK(b.reported("first-touch placement of VA 0x10000000"));
}

/// A touch of page 0 of x while the timed placement (the fault service's) writes its PTE: told
/// to fault as usual (no claim, no second frame); the page has one frame, the timed one's.
void touch_in_service(bool can_wait)
{
    touch_bench b;
    placed_page p;
    driver::touch_answer during;
    bool touched = false;
    b.cp.on_tlb_invalidate = [&] {
        if (touched)
            return;
        touched = true;
        during = b.drv.place_at_touch(x_va, 0, sc_core::sc_time_stamp().value(), can_wait);
    };
    std::uint64_t base = 0; // bytes before (the kernel's program)
    b.probe = [&](part_host& h) {
        base = h.memory().bytes_per_module.at(0) + h.memory().bytes_per_module.at(1);
        tlm_utils::tlm_quantumkeeper qk;
        qk.reset();
        p = h.place_page(0, x_vpn, 0, &qk);
        qk.sync();
        return true;
    };
    sc_core::sc_start();
    REQUIRE(touched);
    CHECK(during.pte == 0);
    CHECK(!during.wait);
    CHECK(p.result == placed_page::outcome::placed);
    REQUIRE(b.drv.plan().pages.count(x_vpn) == 1);
    CHECK(b.drv.plan().pages.at(x_vpn) == p.pa);
    CHECK(b.pte(x_va) == p.pte);
    CHECK(b.drv.plan().bytes_per_module.at(0) + b.drv.plan().bytes_per_module.at(1) ==
          base + 4096); // one frame
    CHECK(b.drv.failures().empty());
}

} // namespace

TEST_CASE("eviction: a failed PTE write leaves that page and the later ones mapped and present",
          "[fault_part]")
{
    // Four pages of x at 0x10000000; the third PTE clear is refused. By hand: pages 0 and 1
    // are unmapped (PTE 0), copied out and swapped out; pages 2 and 3 keep their frames and
    // PTEs and stay present in the host's page table; the run reports the failed write.
    evict_bench b(3);
    std::map<std::uint64_t, std::uint64_t> before;
    sc_core::sc_start(sc_time(500, SC_NS)); // set up, the kernel running, not evicted yet
    for (std::uint64_t p = 0; p < 4; ++p)
        before[p] = b.pte(0x10000000 + p * 4096);
    sc_core::sc_start();
    const fault_part* fp = b.drv.part<fault_part>();
    REQUIRE(fp);
    REQUIRE(b.gate.refused.size() == 1);
    const std::uint64_t vpn0 = 0x10000000 / 4096;
    for (std::uint64_t p = 0; p < 4; ++p) {
        INFO("page " << p);
        const std::uint64_t pte = b.pte(0x10000000 + p * 4096);
        const host_pte* e = fp->host_table().find(vpn0 + p);
        REQUIRE(e);
        CHECK((before[p] & 1) == 1);
        if (p < 2) {
            CHECK(pte == 0);
            CHECK(e->state == host_page_state::swapped);
            CHECK(b.drv.plan().pages.count(vpn0 + p) == 0);
        } else {
            CHECK(pte == before[p]);
            CHECK(e->state == host_page_state::present);
            CHECK(b.drv.plan().pages.count(vpn0 + p) == 1);
        }
    }
    bool reported = false;
    for (const std::string& f : b.drv.failures())
        reported = reported || f.find("PTE write") != std::string::npos;
    CHECK(reported);
}

TEST_CASE("placement: a refused TLB shootdown keeps the page on its frame (quantum 1 ns)",
          "[fault_part]")
{
    shootdown_refused(sc_time(1, SC_NS));
}

TEST_CASE("placement: a refused TLB shootdown keeps the page on its frame (quantum 1 us)",
          "[fault_part]")
{
    shootdown_refused(sc_time(1, sc_core::SC_US));
}

TEST_CASE("placement: a refused backdoor write at first touch fails the run, no new claim "
          "(touch can wait)",
          "[fault_part]")
{
    backdoor_refused(true);
}

TEST_CASE("placement: a refused backdoor write at first touch fails the run, no new claim "
          "(touch cannot wait)",
          "[fault_part]")
{
    backdoor_refused(false);
}

TEST_CASE("placement: a touch while the fault service places the page faults as usual "
          "(touch can wait)",
          "[fault_part]")
{
    touch_in_service(true);
}

TEST_CASE("placement: a touch while the fault service places the page faults as usual "
          "(touch cannot wait)",
          "[fault_part]")
{
    touch_in_service(false);
}
