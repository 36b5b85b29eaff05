// Tests of vgpu::tlm_bus::protocol_checker: correct traffic passes untouched, and the error
// mode raises an SC_ERROR. The broken stubs are in test_checker_blocking.cpp and
// test_checker_nb.cpp. See docs/protocol-checker.md.
#include "test/tlm_bus/checker_bench.h"

using namespace vgpu::tlm_bus::checker_test;

// ---- correct traffic ----------------------------------------------------------------------------

TEST_CASE("protocol_checker: correct b_transport reads and writes pass", "[protocol_checker]")
{
    bench b;
    counting_mm mm;
    b.init.script = [&] {
        tlm_generic_payload trans;
        std::array<unsigned char, 8> written{1, 2, 3, 4, 5, 6, 7, 8};
        std::array<unsigned char, 8> read{};
        sc_time delay = ns(5);

        prepare(trans, tlm::TLM_WRITE_COMMAND, 0x100, written.data(), 8);
        b.init.socket->b_transport(trans, delay);
        CHECK(trans.get_response_status() == tlm::TLM_OK_RESPONSE);
        prepare(trans, tlm::TLM_READ_COMMAND, 0x100, read.data(), 8);
        b.init.socket->b_transport(trans, delay);
        CHECK(trans.get_response_status() == tlm::TLM_OK_RESPONSE);
        CHECK(read == written);
        CHECK(delay == ns(25));
        sc_core::wait(delay);

        // Byte enables: a repeating pattern shorter than the data.
        std::array<unsigned char, 2> enables{TLM_BYTE_ENABLED, TLM_BYTE_DISABLED};
        std::array<unsigned char, 4> ones{0xff, 0xff, 0xff, 0xff};
        prepare(trans, tlm::TLM_WRITE_COMMAND, 0x100, ones.data(), 4);
        trans.set_byte_enable_ptr(enables.data());
        trans.set_byte_enable_length(2);
        CHECK(b_call(b, trans) == tlm::TLM_OK_RESPONSE);
        CHECK(b.tgt.mem[0x100] == 0xff);
        CHECK(b.tgt.mem[0x101] == 2);

        // Streaming: a width smaller than the length (it need not divide it).
        prepare(trans, tlm::TLM_WRITE_COMMAND, 0x200, written.data(), 7);
        trans.set_streaming_width(3);
        CHECK(b_call(b, trans) == tlm::TLM_OK_RESPONSE);
        CHECK(b.tgt.mem[0x200] == 7);
        // A width larger than the length means no streaming.
        prepare(trans, tlm::TLM_READ_COMMAND, 0x200, read.data(), 4);
        trans.set_streaming_width(64);
        CHECK(b_call(b, trans) == tlm::TLM_OK_RESPONSE);

        // The ignore command, and an error response, are both correct protocol.
        prepare(trans, tlm::TLM_IGNORE_COMMAND, 0x300, read.data(), 4);
        CHECK(b_call(b, trans) == tlm::TLM_OK_RESPONSE);
        prepare(trans, tlm::TLM_READ_COMMAND, 0x5000, read.data(), 4);
        CHECK(b_call(b, trans) == tlm::TLM_ADDRESS_ERROR_RESPONSE);

        // A pooled payload holding a reference, the way a memory manager hands it out.
        tlm_generic_payload pooled(&mm);
        pooled.acquire();
        prepare(pooled, tlm::TLM_READ_COMMAND, 0x100, read.data(), 4);
        CHECK(b_call(b, pooled) == tlm::TLM_OK_RESPONSE);
        pooled.release();
    };
    sc_core::sc_start();
    require_none(b);
    REQUIRE(b.checker.calls() == 8);
    REQUIRE(mm.frees == 1);
}

TEST_CASE("protocol_checker: correct DMI, debug transport and invalidation pass",
          "[protocol_checker]")
{
    bench b;
    b.tgt.script = [&] {
        sc_core::wait(ns(5));
        b.tgt.socket->invalidate_direct_mem_ptr(0, mem_size - 1);
    };
    b.init.script = [&] {
        tlm_generic_payload trans;
        tlm::tlm_dmi dmi;
        std::array<unsigned char, 4> data{9, 8, 7, 6};
        std::array<unsigned char, 4> back{};

        prepare(trans, tlm::TLM_READ_COMMAND, 0x40, data.data(), 4);
        CHECK(b.init.socket->get_direct_mem_ptr(trans, dmi));
        CHECK(dmi.get_dmi_ptr() == b.tgt.mem.data());
        dmi.init();
        prepare(trans, tlm::TLM_WRITE_COMMAND, 0x40, data.data(), 4);
        CHECK(b.init.socket->get_direct_mem_ptr(trans, dmi));
        dmi.init();
        prepare(trans, tlm::TLM_READ_COMMAND, 0x8000, data.data(), 4);
        CHECK_FALSE(b.init.socket->get_direct_mem_ptr(trans, dmi));

        prepare(trans, tlm::TLM_WRITE_COMMAND, 0x80, data.data(), 4);
        CHECK(b.init.socket->transport_dbg(trans) == 4);
        prepare(trans, tlm::TLM_READ_COMMAND, 0x80, back.data(), 4);
        CHECK(b.init.socket->transport_dbg(trans) == 4);
        CHECK(back == data);
        prepare(trans, tlm::TLM_READ_COMMAND, 0x80, nullptr, 0); // length 0 is legal for debug
        CHECK(b.init.socket->transport_dbg(trans) == 0);
        prepare(trans, tlm::TLM_READ_COMMAND, mem_size - 2, back.data(), 4); // clipped at the end
        CHECK(b.init.socket->transport_dbg(trans) == 2);
    };
    sc_core::sc_start();
    require_none(b);
    REQUIRE(b.checker.calls() == 8);
    REQUIRE(b.init.invalidations.size() == 1);
    REQUIRE(b.init.invalidations.front() ==
            std::make_pair(sc_dt::uint64{0}, sc_dt::uint64{mem_size - 1}));
}

TEST_CASE("protocol_checker: correct pipelined nb_transport 4-phase exchange passes",
          "[protocol_checker]")
{
    bench b;
    std::deque<tlm_generic_payload*> requests;
    sc_core::sc_event request_arrived, end_resp_arrived, end_req, response_a, response_b;
    tlm_generic_payload a, c;
    std::array<unsigned char, 4> wa{0xde, 0xad, 0xbe, 0xef};
    std::array<unsigned char, 4> rc{};

    // Target: ACCEPTED for every request; END_REQ after 1 ns, BEGIN_RESP 2 ns later, and no
    // new BEGIN_RESP before the previous response ended (response exclusion rule).
    b.tgt.on_nb = [&](tlm_generic_payload& trans, tlm_phase& phase, sc_time& delay) {
        if (phase == tlm::BEGIN_REQ) {
            requests.push_back(&trans);
            request_arrived.notify(delay);
            return tlm::TLM_ACCEPTED;
        }
        CHECK(phase == tlm::END_RESP);
        end_resp_arrived.notify(delay);
        return tlm::TLM_COMPLETED;
    };
    b.tgt.script = [&] {
        for (int n = 0; n < 2; ++n) {
            while (requests.empty())
                sc_core::wait(request_arrived);
            tlm_generic_payload* trans = requests.front();
            requests.pop_front();
            sc_core::wait(ns(1));
            tlm_phase phase = tlm::END_REQ;
            sc_time delay = SC_ZERO_TIME;
            CHECK(bw(b, *trans, phase, delay) == tlm::TLM_ACCEPTED);
            b.tgt.access(*trans);
            sc_core::wait(ns(2));
            phase = tlm::BEGIN_RESP;
            const tlm_sync_enum status = bw(b, *trans, phase, delay);
            if (status == tlm::TLM_ACCEPTED)
                sc_core::wait(end_resp_arrived);
            else
                CHECK((status == tlm::TLM_UPDATED && phase == tlm::END_RESP));
        }
    };
    // Initiator: the first response is ended with a later END_RESP call, the second with
    // TLM_UPDATED on the backward call.
    b.init.on_bw = [&](tlm_generic_payload& trans, tlm_phase& phase, sc_time&) {
        if (phase == tlm::END_REQ) {
            end_req.notify();
            return tlm::TLM_ACCEPTED;
        }
        CHECK(phase == tlm::BEGIN_RESP);
        if (&trans == &a) {
            response_a.notify();
            return tlm::TLM_ACCEPTED;
        }
        response_b.notify();
        phase = tlm::END_RESP;
        return tlm::TLM_UPDATED;
    };
    b.init.script = [&] {
        prepare(a, tlm::TLM_WRITE_COMMAND, 0x10, wa.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        CHECK(fw(b, a, phase, delay) == tlm::TLM_ACCEPTED);
        sc_core::wait(end_req);
        prepare(c, tlm::TLM_READ_COMMAND, 0x10, rc.data(), 4); // pipelined behind a
        phase = tlm::BEGIN_REQ;
        CHECK(fw(b, c, phase, delay) == tlm::TLM_ACCEPTED);
        sc_core::wait(response_a);
        sc_core::wait(ns(1));
        phase = tlm::END_RESP;
        CHECK(fw(b, a, phase, delay) == tlm::TLM_COMPLETED);
        sc_core::wait(response_b);
        CHECK(rc == wa);
        CHECK(c.get_response_status() == tlm::TLM_OK_RESPONSE);
    };
    sc_core::sc_start();
    require_none(b);
    REQUIRE(b.checker.open_transactions() == 0);
    REQUIRE(b.checker.calls() == 7);
    REQUIRE(sc_core::sc_time_stamp() == ns(7));
}

TEST_CASE("protocol_checker: correct nb_transport early completion and TLM_UPDATED shortcuts pass",
          "[protocol_checker]")
{
    bench b;
    sc_core::sc_event third_request;
    tlm_generic_payload* third = nullptr;
    b.tgt.on_nb = [&](tlm_generic_payload& trans, tlm_phase& phase, sc_time& delay) {
        if (phase == tlm::END_RESP)
            return tlm::TLM_COMPLETED;
        CHECK(phase == tlm::BEGIN_REQ);
        delay += ns(10);
        switch (trans.get_address()) {
        case 0x00: // early completion
            b.tgt.access(trans);
            return tlm::TLM_COMPLETED;
        case 0x10: // response on the return path (END_REQ implied)
            b.tgt.access(trans);
            phase = tlm::BEGIN_RESP;
            return tlm::TLM_UPDATED;
        default: // END_REQ on the return path, the response later
            third = &trans;
            third_request.notify(delay);
            phase = tlm::END_REQ;
            return tlm::TLM_UPDATED;
        }
    };
    b.tgt.script = [&] {
        sc_core::wait(third_request);
        b.tgt.access(*third);
        tlm_phase phase = tlm::BEGIN_RESP;
        sc_time delay = ns(1);
        CHECK(bw(b, *third, phase, delay) == tlm::TLM_COMPLETED);
    };
    b.init.on_bw = [&](tlm_generic_payload&, tlm_phase& phase, sc_time&) {
        CHECK(phase == tlm::BEGIN_RESP);
        return tlm::TLM_COMPLETED;
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{1, 2, 3, 4};
        tlm_generic_payload trans;
        for (sc_dt::uint64 address : {0x00, 0x10, 0x20}) {
            prepare(trans, tlm::TLM_WRITE_COMMAND, address, data.data(), 4);
            tlm_phase phase = tlm::BEGIN_REQ;
            sc_time delay = SC_ZERO_TIME;
            const tlm_sync_enum status = fw(b, trans, phase, delay);
            if (address == 0x10) {
                CHECK((status == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP));
                sc_core::wait(delay);
                phase = tlm::END_RESP;
                delay = SC_ZERO_TIME;
                CHECK(fw(b, trans, phase, delay) == tlm::TLM_COMPLETED);
            } else if (address == 0x20) {
                CHECK((status == tlm::TLM_UPDATED && phase == tlm::END_REQ));
                sc_core::wait(ns(20));
            } else {
                CHECK(status == tlm::TLM_COMPLETED);
                sc_core::wait(delay);
            }
            CHECK(trans.get_response_status() == tlm::TLM_OK_RESPONSE);
        }
    };
    sc_core::sc_start();
    require_none(b);
    REQUIRE(b.checker.open_transactions() == 0);
    REQUIRE(b.checker.calls() == 5);
}

TEST_CASE("protocol_checker: an interconnect may rewrite the address when configured",
          "[protocol_checker]")
{
    tb::protocol_checker_config cfg = counting();
    cfg.target_may_modify_address = true;
    bench b(cfg);
    b.tgt.on_b = [&](tlm_generic_payload& trans, sc_time& delay) {
        trans.set_address(trans.get_address() - 0x1000); // a router removing its base
        b.tgt.access(trans);
        delay += ns(1);
    };
    b.init.script = [&] {
        tlm_generic_payload trans;
        std::array<unsigned char, 4> data{};
        prepare(trans, tlm::TLM_READ_COMMAND, 0x1010, data.data(), 4);
        CHECK(b_call(b, trans) == tlm::TLM_OK_RESPONSE);
    };
    sc_core::sc_start();
    require_none(b);
}

TEST_CASE("protocol_checker: ignorable phases inside a transaction pass when allowed",
          "[protocol_checker]")
{
    tb::protocol_checker_config cfg = counting();
    cfg.allow_ignorable_phases = true;
    bench b(cfg);
    b.tgt.on_nb = [&](tlm_generic_payload& trans, tlm_phase& phase, sc_time&) {
        if (phase == tlm::BEGIN_REQ) {
            b.tgt.access(trans);
            phase = tlm::BEGIN_RESP;
            return tlm::TLM_UPDATED;
        }
        return tlm::TLM_ACCEPTED; // ignores the extended phase
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        tlm_phase phase = tlm::BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        CHECK(fw(b, trans, phase, delay) == tlm::TLM_UPDATED);
        phase = vgpu_probe;
        CHECK(fw(b, trans, phase, delay) == tlm::TLM_ACCEPTED);
        phase = tlm::END_RESP;
        CHECK(fw(b, trans, phase, delay) == tlm::TLM_ACCEPTED);
    };
    sc_core::sc_start();
    require_none(b);
    REQUIRE(b.checker.open_transactions() == 0);
}

// ---- error mode -----------------------------------------------------------------------------

TEST_CASE("protocol_checker: error mode raises an SC_ERROR with its message type",
          "[protocol_checker]")
{
    bench b(tb::protocol_checker_config{}); // report_mode::error by default
    b.tgt.on_b = [](tlm_generic_payload&, sc_time&) {};
    one_b_transport(b);
    std::string type;
    std::string message;
    try {
        sc_core::sc_start();
    } catch (const sc_core::sc_report& report) {
        type = report.get_msg_type();
        message = report.get_msg();
    }
    REQUIRE(type == tb::protocol_checker_msg_type);
    REQUIRE(message == "checker: b_transport: response status still TLM_INCOMPLETE_RESPONSE "
                       "after return (address 0x10)");
    REQUIRE(b.checker.violations() == 1);
}
