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

/// GPU memory that refuses the `fail_at`-th 8-byte write of zero (a PTE clear), counted from 1.
struct refusing_memory : sc_core::sc_module {
    tlm_utils::simple_target_socket<refusing_memory> in{"in"};
    tlm_utils::simple_initiator_socket<refusing_memory> out{"out"};
    unsigned fail_at = 0, clears = 0;
    std::vector<std::uint64_t> refused; ///< addresses of refused writes

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
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
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
