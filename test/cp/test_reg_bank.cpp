// Unit tests of tlm_bus::reg_bank behind a target socket, with the protocol checker on the link.
// See docs/registers.md.
#include "test/tlm_bus/bench_util.h"
#include "tlm_bus/protocol_checker.h"
#include "tlm_bus/reg_bank.h"

#include <catch2/catch.hpp>
#include <string>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;
using sc_core::sc_time;
using tlm_bus::reg_access;

namespace {
/// A target holding a reg_bank: CTRL (RW, mask 0xff, callback), STAT (RO), FLAGS (W1C),
/// GO (WO, callback), a hole at 0x10, BIG (RW) at 0x14.
struct reg_target : sc_core::sc_module {
    tlm_utils::simple_target_socket<reg_target> in{"in"};
    tlm_bus::reg_bank regs{"tb.regs"};
    std::vector<std::string> warnings;
    std::vector<sc_time> ctrl_effects; ///< times the CTRL side effect ran
    std::vector<std::uint32_t> go_values;
    unsigned ctrl_calls = 0, stat_reads = 0;
    sc_core::sc_event ctrl_ev;

    explicit reg_target(const sc_core::sc_module_name& n) : sc_module(n)
    {
        in.register_b_transport(this, &reg_target::b_transport);
        in.register_transport_dbg(this, &reg_target::transport_dbg);
        regs.set_warning_handler([this](const std::string& m) { warnings.push_back(m); });
        tlm_bus::reg_def ctrl;
        ctrl.name = "CTRL";
        ctrl.offset = 0x0;
        ctrl.reset = 0x5;
        ctrl.write_mask = 0xff;
        ctrl.on_write = [this](const tlm_bus::reg_write& w) {
            ++ctrl_calls;
            ctrl_ev.notify(w.delay);
            return w.written != 0xdead; // refused
        };
        regs.add(ctrl);
        tlm_bus::reg_def stat;
        stat.name = "STAT";
        stat.offset = 0x4;
        stat.access = reg_access::ro;
        stat.reset = 0x1234;
        stat.on_read = [this](std::uint32_t v, const sc_time&) {
            ++stat_reads;
            return v;
        };
        regs.add(stat);
        tlm_bus::reg_def flags;
        flags.name = "FLAGS";
        flags.offset = 0x8;
        flags.access = reg_access::w1c;
        flags.reset = 0xf0;
        flags.write_mask = 0x3f;
        regs.add(flags);
        tlm_bus::reg_def go;
        go.name = "GO";
        go.offset = 0xc;
        go.access = reg_access::wo;
        go.on_write = [this](const tlm_bus::reg_write& w) {
            go_values.push_back(w.new_value);
            return true;
        };
        regs.add(go);
        tlm_bus::reg_def big;
        big.name = "BIG";
        big.offset = 0x14;
        regs.add(big);
        SC_HAS_PROCESS(reg_target);
        SC_METHOD(effect);
        sensitive << ctrl_ev;
        dont_initialize();
    }
    void effect() { ctrl_effects.push_back(sc_core::sc_time_stamp()); }
    void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) { regs.transport(gp, delay); }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return regs.transport_dbg(gp); }
};

struct bench {
    test::test_initiator init{"init"};
    tlm_bus::protocol_checker pc{"pc"};
    reg_target tgt{"tgt"};
    bench() { tlm_bus::bind_checked(init.mem, pc, tgt.in); }
};

tlm::tlm_response_status access(test::test_initiator& i, tlm::tlm_command cmd, std::uint64_t addr,
                                unsigned len)
{
    std::uint8_t buf[16] = {};
    sc_time d = sc_core::SC_ZERO_TIME;
    return i.mem.access(cmd, addr, buf, len, d);
}
} // namespace

TEST_CASE("reg_bank: reset values, RW mask, RO/WO/hole/size errors")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d = sc_core::SC_ZERO_TIME;
        tlm::tlm_response_status s;
        CHECK(i.read32(0x0, d) == 0x5u);
        CHECK(i.read32(0x4, d) == 0x1234u);
        CHECK(i.read32(0x8, d) == 0xf0u);
        CHECK(i.read32(0x14, d) == 0u);
        CHECK(i.write32(0x0, 0x12345678, d) == tlm::TLM_OK_RESPONSE);
        CHECK(i.read32(0x0, d) == 0x78u); // only the low byte is writable
        CHECK(i.write32(0x14, 0xffffffff, d) == tlm::TLM_OK_RESPONSE);
        CHECK(i.read32(0x14, d) == 0xffffffffu);
        CHECK(i.write32(0x4, 1, d) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        CHECK(i.read32(0x4, d) == 0x1234u);
        i.read32(0xc, d, &s);
        CHECK(s == tlm::TLM_COMMAND_ERROR_RESPONSE); // write-only
        CHECK(i.write32(0xc, 7, d) == tlm::TLM_OK_RESPONSE);
        i.read32(0x10, d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE); // hole
        CHECK(i.write32(0x10, 7, d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        i.read32(0x100, d, &s);
        CHECK(s == tlm::TLM_ADDRESS_ERROR_RESPONSE); // past the last register
        CHECK(access(i, tlm::TLM_READ_COMMAND, 0x2, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(access(i, tlm::TLM_READ_COMMAND, 0x0, 8) == tlm::TLM_BURST_ERROR_RESPONSE);
        CHECK(access(i, tlm::TLM_WRITE_COMMAND, 0x0, 2) == tlm::TLM_BURST_ERROR_RESPONSE);
        CHECK(access(i, tlm::TLM_READ_COMMAND, 0x14, 1) == tlm::TLM_BURST_ERROR_RESPONSE);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.pc.violations() == 0);
    CHECK(tb.tgt.go_values == std::vector<std::uint32_t>{7});
    CHECK(tb.tgt.stat_reads == 2);
    CHECK(tb.tgt.regs.command_errors() == 2);
    CHECK(tb.tgt.regs.errors() == 9);
    CHECK(tb.tgt.warnings.size() == 9);
    CHECK(tb.tgt.warnings[0] == "write to read-only register STAT at 0x4");
}

TEST_CASE("reg_bank: W1C clears written ones, write side effects run at the LT offset")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        sc_time d(30, SC_NS);
        CHECK(i.write32(0x8, 0x30, d) == tlm::TLM_OK_RESPONSE);
        CHECK(i.read32(0x8, d) == 0xc0u);
        CHECK(i.write32(0x8, 0xff, d) == tlm::TLM_OK_RESPONSE); // 0xc0: bits 7..6 not in mask
        CHECK(i.read32(0x8, d) == 0xc0u);
        d = sc_time(20, SC_NS);
        CHECK(i.write32(0x0, 0x11, d) == tlm::TLM_OK_RESPONSE);
        CHECK(tb.tgt.ctrl_effects.empty()); // scheduled, not run in the caller
        sc_core::wait(100, SC_NS);
        d = sc_time(5, SC_NS);
        CHECK(i.write32(0x0, 0xdead, d) == tlm::TLM_COMMAND_ERROR_RESPONSE);
        CHECK(i.read32(0x0, d) == 0x11u); // the refused write left the value
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.pc.violations() == 0);
    REQUIRE(tb.tgt.ctrl_effects.size() == 2);
    CHECK(tb.tgt.ctrl_effects[0] == sc_time(20, SC_NS));
    CHECK(tb.tgt.ctrl_effects[1] == sc_time(105, SC_NS));
    CHECK(tb.tgt.ctrl_calls == 2);
    CHECK(tb.tgt.regs.command_errors() == 1);
}

TEST_CASE("reg_bank: transport_dbg moves stored bytes without callbacks or W1C")
{
    bench tb;
    tb.init.body = [&](test::test_initiator& i) {
        std::uint32_t v = 0;
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x8, &v, 4) == 4u);
        CHECK(v == 0xf0u);
        v = 0xff;
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0x0, &v, 4) == 4u); // no callback
        CHECK(i.mem.debug(tlm::TLM_WRITE_COMMAND, 0xc, &v, 4) == 4u); // WO: no launch
        std::uint32_t words[4] = {};
        // 0x0..0xf are registers, 0x10 is a hole: the access stops there.
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x0, words, 16) == 16u);
        CHECK(words[0] == 0xffu);
        CHECK(words[1] == 0x1234u);
        CHECK(words[2] == 0xf0u); // W1C not applied by a debug write or read
        std::uint8_t bytes[8] = {};
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x5, bytes, 8) == 8u);
        CHECK(bytes[0] == 0x12u);
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0xe, bytes, 8) == 2u);
        CHECK(i.mem.debug(tlm::TLM_READ_COMMAND, 0x10, bytes, 4) == 0u);
        CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    };
    sc_core::sc_start();
    REQUIRE(tb.init.done);
    REQUIRE(tb.pc.violations() == 0);
    CHECK(tb.tgt.ctrl_calls == 0);
    CHECK(tb.tgt.stat_reads == 0);
    CHECK(tb.tgt.go_values.empty());
    CHECK(tb.tgt.ctrl_effects.empty());
    CHECK(tb.tgt.regs.reads() + tb.tgt.regs.writes() + tb.tgt.regs.errors() == 0);
    CHECK(tb.tgt.warnings.empty());
}

TEST_CASE("reg_bank: misaligned or overlapping registers are refused, set/get/reset work")
{
    tlm_bus::reg_bank b("b");
    tlm_bus::reg_def r;
    r.name = "A";
    r.offset = 0x10;
    r.reset = 3;
    b.add(r);
    r.name = "B";
    CHECK_THROWS_WITH(b.add(r), "b: register B at 0x10 overlaps A");
    r.offset = 0x12;
    CHECK_THROWS_WITH(b.add(r), "b: register B at 0x12 is not 4-byte aligned");
    CHECK(b.get(0x10) == 3u);
    b.set(0x10, 9);
    CHECK(b.get(0x10) == 9u);
    b.reset();
    CHECK(b.get(0x10) == 3u);
    CHECK_THROWS_AS(b.get(0x14), std::out_of_range);
    CHECK(b.find(0x14) == nullptr);
    CHECK(b.find(0x10)->name == "A");
}
