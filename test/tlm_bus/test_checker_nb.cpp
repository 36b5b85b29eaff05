// Tests of vgpu::tlm_bus::protocol_checker: each broken nb_transport exchange is caught with the
// exact message. See docs/protocol-checker.md.
#include "test/tlm_bus/checker_bench.h"

using namespace vgpu::tlm_bus::checker_test;

// ---- broken nb_transport exchanges --------------------------------------------------------------

/// Target that accepts every call and does nothing else.
void accepting_target(bench& b)
{
    b.tgt.on_nb = [](tlm_generic_payload&, tlm_phase&, sc_time&) { return tlm::TLM_ACCEPTED; };
}

TEST_CASE("protocol_checker: BEGIN_REQ twice without END_REQ", "[protocol_checker]")
{
    bench b;
    accepting_target(b);
    b.init.script = [&] {
        std::array<unsigned char, 8> data{};
        tlm_generic_payload first, second;
        prepare(first, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        prepare(second, tlm::TLM_READ_COMMAND, 0x20, data.data() + 4, 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, first, phase, delay);
        sc_core::wait(ns(1));
        phase = tlm::BEGIN_REQ;
        fw(b, second, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: BEGIN_REQ while the request at address 0x10 has not ended "
                   "(request exclusion rule)");
    REQUIRE(b.checker.open_transactions() == 2);
}

TEST_CASE("protocol_checker: BEGIN_REQ again for a transaction in progress", "[protocol_checker]")
{
    bench b;
    b.tgt.on_nb = [](tlm_generic_payload&, tlm_phase& phase, sc_time&) {
        phase = tlm::END_REQ;
        return tlm::TLM_UPDATED;
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, trans, phase, delay);
        phase = tlm::BEGIN_REQ;
        fw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: BEGIN_REQ for a transaction already in progress "
                   "(address 0x10)");
}

TEST_CASE("protocol_checker: BEGIN_RESP for an unknown transaction", "[protocol_checker]")
{
    bench b;
    b.tgt.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x20, data.data(), 4);
        trans.set_response_status(tlm::TLM_OK_RESPONSE);
        tlm_phase phase = tlm::BEGIN_RESP;
        sc_time delay = SC_ZERO_TIME;
        bw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_bw: BEGIN_RESP for a transaction without an open request "
                   "(address 0x20)");
}

TEST_CASE("protocol_checker: BEGIN_RESP before the previous END_RESP", "[protocol_checker]")
{
    bench b;
    std::vector<tlm_generic_payload*> requests;
    b.tgt.on_nb = [&](tlm_generic_payload& trans, tlm_phase& phase, sc_time&) {
        requests.push_back(&trans);
        phase = tlm::END_REQ;
        return tlm::TLM_UPDATED;
    };
    b.tgt.script = [&] {
        sc_core::wait(ns(1));
        CHECK(requests.size() == 2);
        for (tlm_generic_payload* trans : requests) {
            b.tgt.access(*trans);
            tlm_phase phase = tlm::BEGIN_RESP;
            sc_time delay = SC_ZERO_TIME;
            bw(b, *trans, phase, delay); // the initiator accepts and never ends the response
        }
    };
    b.init.script = [&] {
        std::array<unsigned char, 8> data{};
        tlm_generic_payload first, second;
        prepare(first, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        prepare(second, tlm::TLM_READ_COMMAND, 0x20, data.data() + 4, 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, first, phase, delay);
        phase = tlm::BEGIN_REQ;
        fw(b, second, phase, delay);
        sc_core::wait(ns(5));
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_bw: BEGIN_RESP while the response at address 0x10 has not "
                   "ended (response exclusion rule)");
}

TEST_CASE("protocol_checker: target returning TLM_UPDATED with END_RESP to BEGIN_REQ",
          "[protocol_checker]")
{
    bench b;
    b.tgt.on_nb = [&](tlm_generic_payload& trans, tlm_phase& phase, sc_time&) {
        b.tgt.access(trans);
        phase = tlm::END_RESP;
        return tlm::TLM_UPDATED;
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: returned TLM_UPDATED with phase END_RESP in response to "
                   "BEGIN_REQ (address 0x10)");
}

TEST_CASE("protocol_checker: target returning TLM_ACCEPTED with a changed phase",
          "[protocol_checker]")
{
    bench b;
    b.tgt.on_nb = [](tlm_generic_payload&, tlm_phase& phase, sc_time&) {
        phase = tlm::END_REQ;
        return tlm::TLM_ACCEPTED;
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: returned TLM_ACCEPTED but changed the phase from BEGIN_REQ "
                   "to END_REQ (address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending END_RESP before BEGIN_RESP", "[protocol_checker]")
{
    bench b;
    b.tgt.on_nb = [](tlm_generic_payload&, tlm_phase& phase, sc_time&) {
        if (phase == tlm::BEGIN_REQ) {
            phase = tlm::END_REQ;
            return tlm::TLM_UPDATED;
        }
        return tlm::TLM_ACCEPTED;
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, trans, phase, delay);
        phase = tlm::END_RESP;
        fw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: END_RESP for a transaction not in the BEGIN_RESP phase "
                   "(address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending END_REQ on the forward path", "[protocol_checker]")
{
    bench b;
    accepting_target(b);
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, trans, phase, delay);
        phase = tlm::END_REQ;
        fw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: END_REQ is a target phase, not sent on the forward path "
                   "(address 0x10)");
}

TEST_CASE("protocol_checker: target completing with the response status incomplete",
          "[protocol_checker]")
{
    bench b;
    b.tgt.on_nb = [](tlm_generic_payload&, tlm_phase&, sc_time&) { return tlm::TLM_COMPLETED; };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: target returned TLM_COMPLETED with response status "
                   "TLM_INCOMPLETE_RESPONSE (address 0x10)");
    REQUIRE(b.checker.open_transactions() == 0);
}

TEST_CASE("protocol_checker: target sending BEGIN_RESP with the response status incomplete",
          "[protocol_checker]")
{
    bench b;
    tlm_generic_payload* request = nullptr;
    b.tgt.on_nb = [&](tlm_generic_payload& trans, tlm_phase&, sc_time&) {
        request = &trans;
        return tlm::TLM_ACCEPTED;
    };
    b.tgt.script = [&] {
        sc_core::wait(ns(1));
        tlm_phase phase = tlm::BEGIN_RESP;
        sc_time delay = SC_ZERO_TIME;
        bw(b, *request, phase, delay);
    };
    b.init.on_bw = [](tlm_generic_payload&, tlm_phase&, sc_time&) { return tlm::TLM_COMPLETED; };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, trans, phase, delay);
        sc_core::wait(ns(2));
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_bw: response status still TLM_INCOMPLETE_RESPONSE at BEGIN_RESP "
                   "(address 0x10)");
    REQUIRE(b.checker.open_transactions() == 0);
}

TEST_CASE("protocol_checker: unknown phase when ignorable phases are not allowed",
          "[protocol_checker]")
{
    bench b;
    accepting_target(b);
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        fw(b, trans, phase, delay);
        phase = vgpu_probe;
        fw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: unknown phase vgpu_probe (address 0x10)");
}

TEST_CASE("protocol_checker: nb target decreasing the timing annotation", "[protocol_checker]")
{
    bench b;
    b.tgt.on_nb = [](tlm_generic_payload&, tlm_phase& phase, sc_time& delay) {
        phase = tlm::END_REQ;
        delay = ns(2);
        return tlm::TLM_UPDATED;
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = ns(10);
        fw(b, trans, phase, delay);
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_fw: returned TLM_UPDATED with the timing annotation decreased "
                   "from 10 ns to 2 ns (address 0x10)");
}

TEST_CASE("protocol_checker: END_REQ earlier than its BEGIN_REQ", "[protocol_checker]")
{
    bench b;
    tlm_generic_payload* request = nullptr;
    b.tgt.on_nb = [&](tlm_generic_payload& trans, tlm_phase&, sc_time&) {
        request = &trans;
        return tlm::TLM_ACCEPTED;
    };
    b.tgt.script = [&] {
        sc_core::wait(ns(1)); // the request was annotated to happen at 10 ns
        tlm_phase phase = tlm::END_REQ;
        sc_time delay = SC_ZERO_TIME;
        bw(b, *request, phase, delay);
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = ns(10);
        fw(b, trans, phase, delay);
        sc_core::wait(ns(20));
    };
    sc_core::sc_start();
    require_one(b, "nb_transport_bw: END_REQ at effective time 1 ns precedes the previous phase "
                   "of this transaction at 10 ns (address 0x10)");
}
