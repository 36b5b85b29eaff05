// Shell tests of the command processor with stub SMs, the protocol checker on every socket.
// See models/cp/README.md.
#include "models/common/trace_events.h"
#include "models/cp/cp.h"
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/protocol_checker.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;
namespace reg = vgpu::cp::reg;

namespace {
/// Accepts cta_launch records and answers each with a cta_done after a fixed time; optionally
/// reports a fault for one CTA.
struct stub_sm : sc_core::sc_module {
    tlm_utils::simple_target_socket<stub_sm> ctrl{"ctrl"};
    tlm_bus::initiator_port done{"done"};
    /// One received launch and when it took effect.
    struct launched {
        cp::cta_launch rec;
        sc_time at;
    };
    std::vector<launched> launches;
    unsigned resident = 0, max_resident = 0;
    sc_time exec{50, SC_NS};
    std::optional<cp::cta_done> fault; ///< status fault for the CTA at (fault->cta_x, cta_y)
    std::deque<std::pair<sc_time, cp::cta_done>> replies;
    sc_core::sc_event reply_ev;
    const unsigned index;

    stub_sm(const sc_core::sc_module_name& n, unsigned i) : sc_module(n), index(i)
    {
        ctrl.register_b_transport(this, &stub_sm::b_transport);
        SC_HAS_PROCESS(stub_sm);
        SC_THREAD(run);
    }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay)
    {
        CHECK(gp.get_command() == tlm::TLM_WRITE_COMMAND);
        CHECK(gp.get_address() == 0u);
        CHECK(gp.get_data_length() == sizeof(cp::cta_launch));
        if (gp.get_data_length() != sizeof(cp::cta_launch)) {
            gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
            return;
        }
        launched l;
        std::memcpy(&l.rec, gp.get_data_ptr(), sizeof l.rec);
        l.at = sc_core::sc_time_stamp() + delay;
        launches.push_back(l);
        max_resident = std::max(max_resident, ++resident);
        cp::cta_done r{};
        r.queue = l.rec.queue;
        r.kernel_seq = l.rec.kernel_seq;
        r.sm = index;
        r.cta_x = l.rec.cta_x;
        r.cta_y = l.rec.cta_y;
        r.cta_z = l.rec.cta_z;
        r.status = cp::cta_status::ok;
        if (fault && fault->cta_x == r.cta_x && fault->cta_y == r.cta_y) {
            r.status = cp::cta_status::fault;
            r.warp = fault->warp;
            r.pc = fault->pc;
            r.vaddr = fault->vaddr;
            std::memcpy(r.message, fault->message, sizeof r.message);
        }
        replies.emplace_back(l.at + exec, r);
        reply_ev.notify();
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    void run()
    {
        for (;;) {
            while (replies.empty())
                sc_core::wait(reply_ev);
            const sc_time t = replies.front().first;
            if (t > sc_core::sc_time_stamp())
                sc_core::wait(t - sc_core::sc_time_stamp());
            cp::cta_done r = replies.front().second;
            replies.pop_front();
            --resident;
            sc_time d = sc_core::SC_ZERO_TIME;
            CHECK(done.access(tlm::TLM_WRITE_COMMAND, 0, &r, sizeof r, d) == tlm::TLM_OK_RESPONSE);
        }
    }
};

/// Records the level changes of the interrupt line.
struct irq_monitor : sc_core::sc_module {
    sc_core::sc_in<bool> in{"in"};
    std::vector<std::pair<sc_time, bool>> changes;
    explicit irq_monitor(const sc_core::sc_module_name& n) : sc_module(n)
    {
        SC_HAS_PROCESS(irq_monitor);
        SC_METHOD(on_change);
        sensitive << in;
        dont_initialize();
    }
    void on_change() { changes.emplace_back(sc_core::sc_time_stamp(), in.read()); }
};

struct bench_params {
    unsigned sms = 2;
    unsigned cta_slots = 1;
    unsigned warp_slots = 4;
    std::optional<sm::sm_resources> res; ///< occupancy limits (else slots only)
    unsigned regs_per_thread = 255;      ///< with res: registers of a launch with REGS 0
};

std::unique_ptr<cp::cp> make_cp(const bench_params& p)
{
    if (p.res)
        return std::make_unique<cp::cp>("cp", cp::cp_config{}, clock_params{}, p.sms, *p.res,
                                        p.regs_per_thread);
    return std::make_unique<cp::cp>("cp", cp::cp_config{}, clock_params{}, p.sms, p.cta_slots,
                                    p.warp_slots);
}

/// host -> checker -> cp.mmio; cp.dispatch[i] -> checker -> sm i; sm i -> checker -> cp.cta_done.
struct bench {
    test::test_initiator host{"host"};
    tlm_bus::protocol_checker pc_mmio{"pc_mmio"};
    std::unique_ptr<cp::cp> dut_ptr;
    cp::cp& dut;
    std::vector<std::unique_ptr<stub_sm>> sms;
    std::vector<std::unique_ptr<tlm_bus::protocol_checker>> pcs;
    sc_core::sc_signal<bool> irq{"irq"};
    irq_monitor irq_mon{"irq_mon"};

    explicit bench(const bench_params& p = {}) : dut_ptr(make_cp(p)), dut(*dut_ptr)
    {
        tlm_bus::bind_checked(host.mem, pc_mmio, dut.mmio);
        for (unsigned i = 0; i < p.sms; ++i) {
            sms.push_back(std::make_unique<stub_sm>(("sm" + std::to_string(i)).c_str(), i));
            auto& to_sm = *pcs.emplace_back(std::make_unique<tlm_bus::protocol_checker>(
                ("pc_dispatch" + std::to_string(i)).c_str()));
            auto& from_sm = *pcs.emplace_back(std::make_unique<tlm_bus::protocol_checker>(
                ("pc_done" + std::to_string(i)).c_str()));
            tlm_bus::bind_checked(*dut.dispatch[i], to_sm, sms[i]->ctrl);
            tlm_bus::bind_checked(sms[i]->done, from_sm, dut.cta_done);
        }
        dut.irq(irq);
        irq_mon.in(irq);
    }
    std::size_t violations() const
    {
        std::size_t v = pc_mmio.violations();
        for (const auto& pc : pcs)
            v += pc->violations();
        return v;
    }
};

/// Kernel shape for setup().
struct kernel {
    std::uint32_t grid_x = 2, grid_y = 2, block_x = 8, block_y = 4;
    std::uint32_t sm_first = 0, sm_count = 2, nparams = 2;
};

/// Writes the launch registers of queue q (params are 0xa0 + i).
void setup(test::test_initiator& h, unsigned q, const kernel& k, sc_time& d)
{
    auto w = [&](std::uint64_t off, std::uint32_t v) {
        CHECK(h.write32(reg::queue(q, off), v, d) == tlm::TLM_OK_RESPONSE);
    };
    w(reg::PROG_ADDR, 0x4000 + 0x100 * q);
    w(reg::PROG_BYTES, 64);
    w(reg::GRID_X, k.grid_x);
    w(reg::GRID_Y, k.grid_y);
    w(reg::BLOCK_X, k.block_x);
    w(reg::BLOCK_Y, k.block_y);
    w(reg::SM_FIRST, k.sm_first);
    w(reg::SM_COUNT, k.sm_count);
    w(reg::NPARAMS, k.nparams);
    for (unsigned i = 0; i < 16; ++i)
        w(reg::PARAM0 + 4 * i, 0xa0 + i);
}

std::uint32_t rd(test::test_initiator& h, std::uint64_t addr)
{
    sc_time d = sc_core::SC_ZERO_TIME;
    tlm::tlm_response_status s;
    std::uint32_t v = h.read32(addr, d, &s);
    CHECK(s == tlm::TLM_OK_RESPONSE);
    return v;
}

std::string error_msg(test::test_initiator& h, unsigned q)
{
    char text[reg::ERROR_MSG_BYTES];
    for (unsigned i = 0; i < reg::ERROR_MSG_BYTES / 4; ++i) {
        std::uint32_t w = rd(h, reg::queue(q, reg::ERROR_MSG + 4 * i));
        std::memcpy(text + 4 * i, &w, 4);
    }
    text[sizeof text - 1] = '\0';
    return text;
}

tlm::tlm_response_status access(test::test_initiator& h, tlm::tlm_command cmd, std::uint64_t addr,
                                unsigned len)
{
    std::uint8_t buf[16] = {};
    sc_time d = sc_core::SC_ZERO_TIME;
    return h.mem.access(cmd, addr, buf, len, d);
}

std::uint32_t status(cp::queue_status s)
{
    return static_cast<std::uint32_t>(s);
}
} // namespace

TEST_CASE("cp: register reset values and RW/RO/W1C/WO/hole responses")
{
    bench tb;
    tb.host.body = [&](test::test_initiator& h) {
        for (unsigned q = 0; q < 4; ++q) {
            for (std::uint64_t off = 0; off < reg::LAUNCH; off += 4)
                CHECK(rd(h, reg::queue(q, off)) == 0u);
            for (std::uint64_t off = reg::STATUS; off <= reg::CTAS_DISPATCHED; off += 4)
                CHECK(rd(h, reg::queue(q, off)) == 0u);
            CHECK(rd(h, reg::queue(q, reg::REGS)) == 0u);
            CHECK(rd(h, reg::queue(q, reg::SHARED_BYTES)) == 0u);
            for (unsigned i = 0; i < 16; ++i)
                CHECK(rd(h, reg::queue(q, reg::PARAM0 + 4 * i)) == 0u);
        }
        CHECK(rd(h, reg::IRQ_STATUS) == 0u);
        CHECK(rd(h, reg::IRQ_ENABLE) == 0u);
        CHECK(rd(h, reg::PTBR_LO) == 0u);
        CHECK(rd(h, reg::PTBR_HI) == 0u);
        CHECK(rd(h, reg::NUM_SMS) == 2u);
        CHECK(rd(h, reg::LAUNCH_SEQ) == 0u);
        CHECK(rd(h, reg::VERSION) == reg::VERSION_VALUE);
        CHECK(rd(h, reg::NUM_QUEUES) == 4u);

        sc_time d = sc_core::SC_ZERO_TIME;
        tlm::tlm_response_status s;
        // RW, with the IRQ_ENABLE mask limited to the queues
        CHECK(h.write32(reg::queue(3, reg::GRID_X), 7, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::queue(3, reg::GRID_X)) == 7u);
        CHECK(h.write32(reg::IRQ_ENABLE, 0xffffffff, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::IRQ_ENABLE) == 0xfu);
        CHECK(h.write32(reg::PTBR_HI, 0x12345678, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::PTBR_HI) == 0x12345678u);
        // RO
        CHECK(h.write32(reg::queue(1, reg::STATUS), 2, d) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        CHECK(h.write32(reg::NUM_SMS, 8, d) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        CHECK(rd(h, reg::NUM_SMS) == 2u);
        // W1C with nothing pending stays 0
        CHECK(h.write32(reg::IRQ_STATUS, 0xf, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::IRQ_STATUS) == 0u);
        // WO
        h.read32(reg::queue(0, reg::LAUNCH), d, &s);
        CHECK(s == tlm::TLM_COMMAND_ERROR_RESPONSE);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 0, d) == tlm::TLM_OK_RESPONSE); // no launch
        // holes, alignment, size
        CHECK(rd(h, reg::queue(0, reg::GRID_Z)) == 1u); // 2-D launches need not write z
        CHECK(rd(h, reg::queue(0, reg::BLOCK_Z)) == 1u);
        h.read32(0x1044, d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        h.read32(reg::queue(4, reg::GRID_X), d, &s); // queue 4 does not exist
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(h.write32(0x1040, 1, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(access(h, tlm::TLM_READ_COMMAND, 0x2, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(access(h, tlm::TLM_READ_COMMAND, reg::PTBR_LO, 8) == tlm::TLM_BURST_ERROR_RESPONSE);
        sc_core::wait(1, sc_core::SC_US);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.dut.regs().command_errors() == 3);
    CHECK(tb.dut.regs().errors() == 8);
    CHECK(tb.dut.launches() == 0);
    CHECK(tb.irq_mon.changes.empty());
    for (const auto& sm : tb.sms)
        CHECK(sm->launches.empty());
}

TEST_CASE("cp: TLB_INVALIDATE calls the shootdown with TLB_INV_VA and TLB_INV_BYTES")
{
    bench tb;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
    tb.dut.tlb_invalidate = [&](std::uint64_t va, std::uint64_t bytes) {
        calls.emplace_back(va, bytes);
    };
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        tlm::tlm_response_status s;
        CHECK(h.write32(reg::TLB_INV_VA_LO, 0x10003000, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::TLB_INV_VA_HI, 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::TLB_INV_BYTES, 0x2000, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::TLB_INVALIDATE, 0, d) == tlm::TLM_OK_RESPONSE); // bit 0 clear
        CHECK(calls.empty());
        CHECK(h.write32(reg::TLB_INVALIDATE, 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::TLB_INV_BYTES, 0, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::TLB_INVALIDATE, 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::TLB_INV_VA_LO) == 0x10003000u);
        h.read32(reg::TLB_INVALIDATE, d, &s); // write-only
        CHECK(s == tlm::TLM_COMMAND_ERROR_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    CHECK(tb.violations() == 0);
    CHECK(calls == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0x110003000ull, 0x2000},
                                                                        {0x110003000ull, 0}});
}

TEST_CASE("cp: transport_dbg reads and writes registers without side effects")
{
    bench tb;
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        setup(h, 0, kernel{}, d);
        CHECK(h.write32(reg::IRQ_ENABLE, 1, d) == tlm::TLM_OK_RESPONSE);
        std::uint32_t one = 1;
        CHECK(h.mem.debug(tlm::TLM_WRITE_COMMAND, reg::queue(0, reg::LAUNCH), &one, 4) == 4u);
        std::uint8_t block[0x100];
        // The queue block has no hole.
        CHECK(h.mem.debug(tlm::TLM_READ_COMMAND, reg::queue(0, 0), block, 0x100) == 0x100u);
        std::uint32_t grid_x;
        std::memcpy(&grid_x, block + reg::GRID_X, 4);
        CHECK(grid_x == 2u);
        char msg[reg::ERROR_MSG_BYTES];
        CHECK(h.mem.debug(tlm::TLM_READ_COMMAND, reg::queue(0, reg::ERROR_MSG), msg, sizeof msg) ==
              sizeof msg);
        std::uint32_t v = 0;
        CHECK(h.mem.debug(tlm::TLM_READ_COMMAND, reg::IRQ_STATUS, &v, 4) == 4u);
        CHECK(h.mem.debug(tlm::TLM_READ_COMMAND, 0x1040, &v, 4) == 0u);
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
        sc_core::wait(2, sc_core::SC_US);
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::idle));
        CHECK(rd(h, reg::LAUNCH_SEQ) == 0u);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    CHECK(tb.dut.launches() == 0);
    CHECK(tb.dut.ctas_dispatched() == 0);
    CHECK(tb.irq_mon.changes.empty());
}

TEST_CASE("cp: a 2x2 grid on 2 SMs dispatches every CTA within the slot limit and raises IRQ")
{
    bench tb; // 1 CTA slot per SM, CTAs run 50 ns, dispatch latency 100 cycles of 1 ns
    trace::recorder::instance().enable(true);
    sc_time irq_seen;
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(h.write32(reg::IRQ_ENABLE, 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::PTBR_LO, 0x5000, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::PTBR_HI, 0x1, d) == tlm::TLM_OK_RESPONSE);
        setup(h, 0, kernel{}, d);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::running));
        CHECK(rd(h, reg::queue(0, reg::KERNEL_SEQ)) == 1u);
        // A second launch on a running queue is refused.
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        sc_core::wait(tb.irq.posedge_event());
        irq_seen = sc_core::sc_time_stamp();
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::done));
        CHECK(rd(h, reg::queue(0, reg::CTAS_DONE)) == 4u);
        CHECK(rd(h, reg::queue(0, reg::CTAS_DISPATCHED)) == 4u);
        CHECK(rd(h, reg::queue(0, reg::ERROR_CAUSE)) == 0u);
        CHECK(rd(h, reg::IRQ_STATUS) == 1u);
        CHECK(rd(h, reg::LAUNCH_SEQ) == 1u);
        d = sc_time(5, SC_NS);
        CHECK(h.write32(reg::IRQ_STATUS, 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::IRQ_STATUS) == 0u);
        sc_core::wait(10, SC_NS);
        CHECK(!tb.irq.read());
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    CHECK(irq_seen == sc_time(200, SC_NS));
    REQUIRE(tb.irq_mon.changes.size() == 2);
    CHECK(tb.irq_mon.changes[0] == std::make_pair(sc_time(200, SC_NS), true));
    CHECK(tb.irq_mon.changes[1] == std::make_pair(sc_time(205, SC_NS), false));
    CHECK(tb.dut.ctas_dispatched() == 4);
    CHECK(tb.dut.ctas_done() == 4);
    CHECK(trace::recorder::instance().size() == 1); // the kernel's span
    // Row-major CTAs, round-robin over the SMs, the next CTA when a slot frees.
    const std::uint32_t expect[2][2][2] = {{{0, 0}, {0, 1}}, {{1, 0}, {1, 1}}};
    for (unsigned s = 0; s < 2; ++s) {
        const auto& sm = *tb.sms[s];
        CHECK(sm.max_resident == 1u);
        REQUIRE(sm.launches.size() == 2);
        for (unsigned k = 0; k < 2; ++k) {
            const cp::cta_launch& l = sm.launches[k].rec;
            CHECK(sm.launches[k].at == sc_time(k == 0 ? 100 : 150, SC_NS));
            CHECK(l.cta_x == expect[s][k][0]);
            CHECK(l.cta_y == expect[s][k][1]);
            CHECK(l.queue == 0u);
            CHECK(l.kernel_seq == 1u);
            CHECK(l.prog_addr == 0x4000u);
            CHECK(l.prog_bytes == 64u);
            CHECK(l.grid_x == 2u);
            CHECK(l.grid_y == 2u);
            CHECK(l.block_x == 8u);
            CHECK(l.block_y == 4u);
            CHECK(l.nparams == 2u);
            CHECK(l.params[0] == 0xa0u);
            CHECK(l.params[1] == 0xa1u);
            CHECK(l.params[2] == 0u);
            CHECK(l.ptbr == 0x100005000ull);
        }
    }
}

TEST_CASE("cp: warp slots and CTA slots limit resident CTAs, spaced by the dispatch interval")
{
    bench_params p;
    p.sms = 1;
    p.cta_slots = 3;
    p.warp_slots = 4;
    bench tb(p);
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        kernel k;
        k.grid_x = 4;
        k.grid_y = 1;
        k.block_x = 40; // 2 warps: two CTAs fill the 4 warp slots
        k.block_y = 1;
        k.sm_count = 1;
        setup(h, 0, k, d);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(1, sc_core::SC_US);
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::done));
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    const auto& sm = *tb.sms[0];
    CHECK(sm.max_resident == 2u);
    REQUIRE(sm.launches.size() == 4);
    CHECK(sm.launches[0].at == sc_time(100, SC_NS));
    CHECK(sm.launches[1].at == sc_time(110, SC_NS)); // cta_dispatch_interval
    CHECK(sm.launches[2].at == sc_time(150, SC_NS)); // CTA 0 ended
    CHECK(sm.launches[3].at == sc_time(160, SC_NS));
}

TEST_CASE("cp: two queues run side by side on disjoint SM sets")
{
    bench_params p;
    p.sms = 4;
    bench tb(p);
    sc_time irq_seen;
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(h.write32(reg::IRQ_ENABLE, 3, d) == tlm::TLM_OK_RESPONSE);
        kernel k0;
        k0.grid_x = 4;
        k0.grid_y = 1;
        setup(h, 0, k0, d);
        kernel k1;
        k1.sm_first = 2;
        setup(h, 1, k1, d);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::queue(1, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(tb.irq.posedge_event());
        irq_seen = sc_core::sc_time_stamp();
        sc_core::wait(1, SC_NS);
        CHECK(rd(h, reg::IRQ_STATUS) == 3u);
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::done));
        CHECK(rd(h, reg::queue(1, reg::STATUS)) == status(cp::queue_status::done));
        CHECK(rd(h, reg::queue(0, reg::KERNEL_SEQ)) == 1u);
        CHECK(rd(h, reg::queue(1, reg::KERNEL_SEQ)) == 2u);
        CHECK(rd(h, reg::LAUNCH_SEQ) == 2u);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    CHECK(irq_seen == sc_time(200, SC_NS));
    for (unsigned s = 0; s < 4; ++s) {
        const auto& sm = *tb.sms[s];
        CHECK(sm.max_resident == 1u);
        REQUIRE(sm.launches.size() == 2);
        for (const auto& l : sm.launches) {
            CHECK(l.rec.queue == (s < 2 ? 0u : 1u));
            CHECK(l.rec.kernel_seq == (s < 2 ? 1u : 2u));
            CHECK(l.rec.prog_addr == (s < 2 ? 0x4000u : 0x4100u));
        }
        CHECK(sm.launches[0].at == sc_time(100, SC_NS));
        CHECK(sm.launches[1].at == sc_time(150, SC_NS));
    }
    CHECK(tb.sms[0]->launches[1].rec.cta_x == 2u);
    CHECK(tb.sms[1]->launches[1].rec.cta_x == 3u);
    CHECK(tb.sms[3]->launches[1].rec.cta_y == 1u);
}

TEST_CASE("cp: invalid launches set STATUS error with a cause and raise the IRQ")
{
    bench tb; // 2 SMs, 4 warp slots: at most 128 threads per CTA
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(h.write32(reg::IRQ_ENABLE, 0xf, d) == tlm::TLM_OK_RESPONSE);
        kernel bad[4];
        bad[0].grid_x = 0;
        bad[1].sm_first = 1; // SMs 1..2 of 2
        bad[2].block_x = 16;
        bad[2].block_y = 16; // 256 threads
        bad[3].nparams = 17;
        for (unsigned q = 0; q < 4; ++q)
            setup(h, q, bad[q], d);
        d = sc_time(10, SC_NS);
        for (unsigned q = 0; q < 4; ++q)
            CHECK(h.write32(reg::queue(q, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        for (unsigned q = 0; q < 4; ++q) {
            CHECK(rd(h, reg::queue(q, reg::STATUS)) == status(cp::queue_status::error));
            CHECK(rd(h, reg::queue(q, reg::ERROR_CAUSE)) ==
                  static_cast<std::uint32_t>(cp::error_cause::bad_launch));
        }
        CHECK(error_msg(h, 0) == "bad launch: empty grid (GRID_X 0, GRID_Y 2, GRID_Z 1)");
        CHECK(error_msg(h, 1) == "bad launch: SM range [1, 3) empty or outside the 2 SMs");
        CHECK(error_msg(h, 2) == "bad launch: block of 256 threads exceeds 4 warp slots of 32");
        CHECK(error_msg(h, 3) == "bad launch: NPARAMS 17 > 16");
        sc_core::wait(50, SC_NS);
        CHECK(tb.irq.read());
        CHECK(rd(h, reg::IRQ_STATUS) == 0xfu);
        d = sc_core::SC_ZERO_TIME;
        CHECK(h.write32(reg::IRQ_STATUS, 0x5, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::IRQ_STATUS) == 0xau);
        sc_core::wait(10, SC_NS);
        CHECK(tb.irq.read());
        CHECK(h.write32(reg::IRQ_STATUS, 0xa, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(10, SC_NS);
        CHECK(!tb.irq.read());
        CHECK(rd(h, reg::LAUNCH_SEQ) == 4u);
        sc_core::wait(1, sc_core::SC_US);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    REQUIRE(tb.irq_mon.changes.size() == 2);
    CHECK(tb.irq_mon.changes[0] == std::make_pair(sc_time(10, SC_NS), true));
    CHECK(tb.irq_mon.changes[1] == std::make_pair(sc_time(60, SC_NS), false));
    CHECK(tb.dut.ctas_dispatched() == 0);
    for (const auto& sm : tb.sms)
        CHECK(sm->launches.empty());
}

TEST_CASE("cp: a CTA fault stops dispatch, waits for running CTAs, reports SM, warp and PC")
{
    bench tb;
    tb.sms[0]->exec = sc_time(80, SC_NS);
    cp::cta_done f{};
    f.cta_x = 1;
    f.cta_y = 0;
    f.warp = 3;
    f.pc = 0x40;
    f.vaddr = 0x123456789abcull;
    std::strcpy(f.message, "load from unmapped address");
    tb.sms[1]->fault = f;
    sc_time irq_seen;
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        CHECK(h.write32(reg::IRQ_ENABLE, 1, d) == tlm::TLM_OK_RESPONSE);
        kernel k;
        k.grid_x = 4;
        k.grid_y = 1;
        setup(h, 0, k, d);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(160, SC_NS); // SM 1 faulted at 150; SM 0 runs until 180
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::running));
        sc_core::wait(tb.irq.posedge_event());
        irq_seen = sc_core::sc_time_stamp();
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::error));
        CHECK(rd(h, reg::queue(0, reg::ERROR_CAUSE)) ==
              static_cast<std::uint32_t>(cp::error_cause::cta_fault));
        CHECK(rd(h, reg::queue(0, reg::ERROR_SM)) == 1u);
        CHECK(rd(h, reg::queue(0, reg::ERROR_WARP)) == 3u);
        CHECK(rd(h, reg::queue(0, reg::ERROR_PC)) == 0x40u);
        CHECK(rd(h, reg::queue(0, reg::ERROR_VADDR_LO)) == 0x56789abcu);
        CHECK(rd(h, reg::queue(0, reg::ERROR_VADDR_HI)) == 0x1234u);
        CHECK(rd(h, reg::queue(0, reg::CTAS_DONE)) == 1u);
        CHECK(rd(h, reg::queue(0, reg::CTAS_DISPATCHED)) == 2u);
        CHECK(error_msg(h, 0) == "load from unmapped address");
        // The queue accepts the next kernel (on SM 0 only, which does not fault).
        d = sc_core::SC_ZERO_TIME;
        CHECK(h.write32(reg::IRQ_STATUS, 1, d) == tlm::TLM_OK_RESPONSE);
        k.grid_x = 1;
        k.sm_count = 1;
        setup(h, 0, k, d);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::queue(0, reg::ERROR_CAUSE)) == 0u);
        sc_core::wait(tb.irq.posedge_event());
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::done));
        CHECK(rd(h, reg::queue(0, reg::KERNEL_SEQ)) == 2u);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    CHECK(irq_seen == sc_time(180, SC_NS));
    CHECK(tb.dut.faults() == 1);
    CHECK(tb.sms[1]->launches.size() == 1); // CTAs 2 and 3 were never dispatched
    REQUIRE(tb.sms[0]->launches.size() == 2);
    CHECK(tb.sms[0]->launches[1].rec.kernel_seq == 2u);
}

TEST_CASE("cp: unknown or malformed cta_done records get an error response")
{
    bench tb;
    test::test_initiator rogue{"rogue"};
    tlm_bus::protocol_checker pc_rogue{"pc_rogue"};
    tlm_bus::bind_checked(rogue.mem, pc_rogue, tb.dut.cta_done);
    tb.sms[0]->exec = sc_time(1, sc_core::SC_US);
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        kernel k;
        k.grid_x = 1;
        k.grid_y = 1;
        setup(h, 0, k, d);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(2, sc_core::SC_US);
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::done));
        CHECK(rd(h, reg::queue(0, reg::CTAS_DONE)) == 1u);
    };
    rogue.body = [&](test::test_initiator& r) {
        sc_core::wait(500, SC_NS); // the kernel is running on SM 0
        auto send = [&](std::uint32_t q, std::uint32_t seq, std::uint32_t sm, std::uint32_t x) {
            cp::cta_done rec{};
            rec.queue = q;
            rec.kernel_seq = seq;
            rec.sm = sm;
            rec.cta_x = x;
            sc_time d = sc_core::SC_ZERO_TIME;
            return r.mem.access(tlm::TLM_WRITE_COMMAND, 0, &rec, sizeof rec, d);
        };
        CHECK(send(9, 1, 0, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE); // no such queue
        CHECK(send(1, 1, 0, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE); // queue idle
        CHECK(send(0, 7, 0, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE); // other kernel
        CHECK(send(0, 1, 1, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE); // not on SM 1
        CHECK(send(0, 1, 0, 5) == tlm::TLM_GENERIC_ERROR_RESPONSE); // no such CTA
        CHECK(access(r, tlm::TLM_WRITE_COMMAND, 0, 8) == tlm::TLM_BURST_ERROR_RESPONSE);
        CHECK(access(r, tlm::TLM_READ_COMMAND, 0, 8) == tlm::TLM_COMMAND_ERROR_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(rogue.done);
    REQUIRE(tb.violations() + pc_rogue.violations() == 0);
    CHECK(tb.dut.bad_done_records() == 7);
    CHECK(tb.dut.ctas_done() == 1);
}

TEST_CASE("cp: a 3-D grid dispatches every CTA once, x fastest, then y, then z")
{
    bench_params p;
    p.sms = 2;
    p.cta_slots = 2;
    p.warp_slots = 8;
    bench tb(p);
    tb.host.body = [&](test::test_initiator& h) {
        sc_time d = sc_core::SC_ZERO_TIME;
        kernel k;
        k.grid_x = 3;
        k.grid_y = 2;
        k.block_x = 4;
        k.block_y = 2;
        setup(h, 0, k, d);
        CHECK(h.write32(reg::queue(0, reg::GRID_Z), 4, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::queue(0, reg::BLOCK_Z), 8, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        sc_core::wait(5, sc_core::SC_US);
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::done));
        CHECK(rd(h, reg::queue(0, reg::CTAS_DONE)) == 24u);
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    std::vector<std::pair<sc_time, cp::cta_launch>> all;
    for (const auto& sm : tb.sms)
        for (const auto& l : sm->launches)
            all.emplace_back(l.at, l.rec);
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    REQUIRE(all.size() == 24);
    // Reference: CUDA's block order, i = (z * grid_y + y) * grid_x + x, written out.
    unsigned i = 0;
    for (unsigned z = 0; z < 4; ++z)
        for (unsigned y = 0; y < 2; ++y)
            for (unsigned x = 0; x < 3; ++x, ++i) {
                INFO("CTA " << i);
                const cp::cta_launch& l = all[i].second;
                CHECK(l.cta_x == x);
                CHECK(l.cta_y == y);
                CHECK(l.cta_z == z);
                CHECK(l.grid_z == 4u);
                CHECK(l.block_z == 8u);
            }
}

TEST_CASE("cp: occupancy by registers and shared memory bounds the resident CTAs")
{
    // V100-like SM: 2048 threads, 64 warps, 32 CTAs, 65,536 registers in 4 partitions,
    // 96 KiB of shared memory.
    bench_params p;
    p.sms = 1;
    p.res = sm::sm_resources{2048, 64, 32, 65536, 4, 96 * 1024};
    struct shape {
        std::uint32_t regs, shared, max_resident; // max_resident computed by hand
    };
    // 64 threads = 2 warps. 128 regs: 4096 per warp, 16384 / 4096 = 4 warps per partition,
    // 16 per SM: 8 CTAs. 16 regs: 512 per warp, 32 per partition, 128 warps: 64 CTAs, so the
    // 32 CTA slots bind. 16 regs and 30,000 B of shared: 30,208 allocated, 98,304 / 30,208 = 3.
    const shape shapes[] = {{128, 0, 8}, {16, 0, 32}, {16, 30000, 3}};
    std::vector<unsigned> seen;
    bench tb(p);
    tb.sms[0]->exec = sc_time(500, SC_NS);
    tb.host.body = [&](test::test_initiator& h) {
        for (const shape& sh : shapes) {
            tb.sms[0]->max_resident = 0;
            sc_time d = sc_core::SC_ZERO_TIME;
            kernel k;
            k.grid_x = 40;
            k.grid_y = 1;
            k.block_x = 64;
            k.block_y = 1;
            k.sm_count = 1;
            setup(h, 0, k, d);
            CHECK(h.write32(reg::queue(0, reg::REGS), sh.regs, d) == tlm::TLM_OK_RESPONSE);
            CHECK(h.write32(reg::queue(0, reg::SHARED_BYTES), sh.shared, d) ==
                  tlm::TLM_OK_RESPONSE);
            CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
            sc_core::wait(20, sc_core::SC_US);
            CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::done));
            seen.push_back(tb.sms[0]->max_resident);
        }
        // No CTA fits: 1,024 threads of 255 registers need 32 x 8,192 > 65,536.
        sc_time d = sc_core::SC_ZERO_TIME;
        kernel k;
        k.grid_x = 1;
        k.grid_y = 1;
        k.block_x = 1024;
        k.block_y = 1;
        k.sm_count = 1;
        setup(h, 0, k, d);
        CHECK(h.write32(reg::queue(0, reg::REGS), 255, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::queue(0, reg::SHARED_BYTES), 0, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::error));
        CHECK(error_msg(h, 0).rfind("bad launch: no CTA fits an SM: 255 registers per thread", 0) ==
              0);
        // 0xFFFFFF01 B of shared memory rounds up to 2^32 (0 in 32 bits): fits no SM either.
        k.block_x = 64;
        setup(h, 0, k, d);
        CHECK(h.write32(reg::queue(0, reg::REGS), 16, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::queue(0, reg::SHARED_BYTES), 0xFFFFFF01u, d) == tlm::TLM_OK_RESPONSE);
        CHECK(h.write32(reg::queue(0, reg::LAUNCH), 1, d) == tlm::TLM_OK_RESPONSE);
        CHECK(rd(h, reg::queue(0, reg::STATUS)) == status(cp::queue_status::error));
        CHECK(error_msg(h, 0).rfind("bad launch: no CTA fits an SM: 4294967041 bytes of shared "
                                    "memory per CTA (4294967296 allocated)",
                                    0) == 0); // the register holds the start of the message
    };
    sc_core::sc_start();
    REQUIRE(tb.host.done);
    REQUIRE(tb.violations() == 0);
    REQUIRE(seen.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        INFO("regs " << shapes[i].regs << " shared " << shapes[i].shared);
        CHECK(seen[i] == shapes[i].max_resident);
    }
    CHECK(tb.sms[0]->launches.size() == 120u);
}
