// Tests of vgpu::tlm_bus::protocol_checker: correct traffic passes untouched, and each broken
// stub initiator or target is caught with the exact message. See docs/protocol-checker.md.
#include "tlm_bus/protocol_checker.h"

#include <catch2/catch.hpp>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;
using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;
namespace tb = vgpu::tlm_bus;

TLM_DECLARE_EXTENDED_PHASE(vgpu_probe);

constexpr unsigned int mem_size = 0x1000;

sc_time ns(double value)
{
    return sc_time(value, SC_NS);
}

/// Sets every attribute the initiator is responsible for, as IEEE 1666-2011 14.7 asks.
void prepare(tlm_generic_payload& trans, tlm::tlm_command command, sc_dt::uint64 address,
             unsigned char* data, unsigned int length)
{
    trans.set_command(command);
    trans.set_address(address);
    trans.set_data_ptr(data);
    trans.set_data_length(length);
    trans.set_streaming_width(length);
    trans.set_byte_enable_ptr(nullptr);
    trans.set_byte_enable_length(0);
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// The payload has no setter that takes a raw integer; an explicit instantiation may name the
// private member (access checking does not apply there), which yields a pointer to it.
struct command_member {
    using type = tlm::tlm_command tlm_generic_payload::*;
    friend type member(command_member);
};
template <command_member::type M> struct expose_command_member {
    friend command_member::type member(command_member) { return M; }
};
template struct expose_command_member<&tlm_generic_payload::m_command>;

/// Writes `value` into the command attribute byte by byte, as stale memory would hold it.
void store_raw_command(tlm_generic_payload& trans, unsigned value)
{
    static_assert(sizeof value == sizeof(tlm::tlm_command));
    std::memcpy(&(trans.*member(command_member{})), &value, sizeof value);
}

/// Memory manager that only counts frees (payloads live on the test's stack).
struct counting_mm : tlm::tlm_mm_interface {
    int frees = 0;
    void free(tlm_generic_payload*) override { ++frees; }
};

/// Stub target: a correct 4 KiB memory by default; each hook replaces one behaviour.
struct stub_target : sc_core::sc_module {
    tlm_utils::simple_target_socket<stub_target> socket; ///< bound to the checker's `out`
    std::array<unsigned char, mem_size> mem{};           ///< the memory contents

    std::function<void(tlm_generic_payload&, sc_time&)> on_b; ///< replaces b_transport
    std::function<tlm_sync_enum(tlm_generic_payload&, tlm_phase&, sc_time&)> on_nb; ///< fw
    std::function<bool(tlm_generic_payload&, tlm::tlm_dmi&)> on_dmi; ///< replaces DMI
    std::function<unsigned int(tlm_generic_payload&)> on_dbg;        ///< replaces debug
    std::function<void()> script; ///< body of the target's thread (backward-path calls)

    SC_HAS_PROCESS(stub_target);
    explicit stub_target(const sc_core::sc_module_name& name) : sc_module(name), socket("socket")
    {
        socket.register_b_transport(this, &stub_target::b_transport);
        socket.register_nb_transport_fw(this, &stub_target::nb_transport_fw);
        socket.register_get_direct_mem_ptr(this, &stub_target::get_direct_mem_ptr);
        socket.register_transport_dbg(this, &stub_target::transport_dbg);
        SC_THREAD(run);
    }

    /// A correct access: an error response for anything it cannot do, never a bad pointer.
    void access(tlm_generic_payload& trans)
    {
        const tlm::tlm_command command = trans.get_command();
        if (command != tlm::TLM_READ_COMMAND && command != tlm::TLM_WRITE_COMMAND &&
            command != tlm::TLM_IGNORE_COMMAND) {
            trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
            return;
        }
        const unsigned int length = trans.get_data_length();
        const unsigned int width = trans.get_streaming_width();
        const unsigned int enable_length = trans.get_byte_enable_length();
        unsigned char* data = trans.get_data_ptr();
        const unsigned char* enables = trans.get_byte_enable_ptr();
        if (length == 0 || data == nullptr) {
            trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        if (width == 0) {
            trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
            return;
        }
        if (enables != nullptr && enable_length == 0) {
            trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
            return;
        }
        const sc_dt::uint64 address = trans.get_address();
        const sc_dt::uint64 span = std::min(length, width);
        if (address >= mem_size || span > mem_size - address) {
            trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        if (command != tlm::TLM_IGNORE_COMMAND) {
            for (unsigned int i = 0; i < length; ++i) {
                if (enables != nullptr && enables[i % enable_length] == TLM_BYTE_DISABLED)
                    continue;
                unsigned char& cell = mem[address + i % width];
                if (command == tlm::TLM_READ_COMMAND)
                    data[i] = cell;
                else
                    cell = data[i];
            }
        }
        trans.set_response_status(tlm::TLM_OK_RESPONSE);
    }

    void b_transport(tlm_generic_payload& trans, sc_time& delay)
    {
        if (on_b) {
            on_b(trans, delay);
            return;
        }
        access(trans);
        delay += ns(10);
    }
    tlm_sync_enum nb_transport_fw(tlm_generic_payload& trans, tlm_phase& phase, sc_time& delay)
    {
        if (on_nb)
            return on_nb(trans, phase, delay);
        access(trans);
        delay += ns(10);
        return tlm::TLM_COMPLETED;
    }
    bool get_direct_mem_ptr(tlm_generic_payload& trans, tlm::tlm_dmi& dmi)
    {
        if (on_dmi)
            return on_dmi(trans, dmi);
        if (trans.get_address() >= mem_size) {
            dmi.set_start_address(mem_size);
            dmi.set_end_address(std::numeric_limits<sc_dt::uint64>::max());
            return false;
        }
        dmi.set_dmi_ptr(mem.data());
        dmi.set_start_address(0);
        dmi.set_end_address(mem_size - 1);
        dmi.allow_read_write();
        dmi.set_read_latency(ns(1));
        dmi.set_write_latency(ns(1));
        return true;
    }
    unsigned int transport_dbg(tlm_generic_payload& trans)
    {
        if (on_dbg)
            return on_dbg(trans);
        const sc_dt::uint64 address = trans.get_address();
        const unsigned int length = trans.get_data_length();
        if (trans.get_command() == tlm::TLM_IGNORE_COMMAND || length == 0 || address >= mem_size)
            return 0;
        const auto count =
            static_cast<unsigned int>(std::min<sc_dt::uint64>(length, mem_size - address));
        if (trans.is_read())
            std::memcpy(trans.get_data_ptr(), &mem[address], count);
        else
            std::memcpy(&mem[address], trans.get_data_ptr(), count);
        return count;
    }

private:
    void run()
    {
        if (script)
            script();
    }
};

/// Stub initiator: two threads and a method run the test's scripts; hooks answer backward calls.
struct stub_initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<stub_initiator> socket; ///< bound to the checker's `in`
    std::function<void()> script;                              ///< body of the first thread
    std::function<void()> script2;                             ///< body of the second thread
    std::function<void()> method_script; ///< body of a method run once at initialization
    std::function<tlm_sync_enum(tlm_generic_payload&, tlm_phase&, sc_time&)> on_bw; ///< bw
    std::vector<std::pair<sc_dt::uint64, sc_dt::uint64>> invalidations; ///< ranges received

    SC_HAS_PROCESS(stub_initiator);
    explicit stub_initiator(const sc_core::sc_module_name& name) : sc_module(name), socket("socket")
    {
        socket.register_nb_transport_bw(this, &stub_initiator::nb_transport_bw);
        socket.register_invalidate_direct_mem_ptr(this, &stub_initiator::invalidate);
        SC_THREAD(run);
        SC_THREAD(run2);
        SC_METHOD(run_method);
    }

private:
    tlm_sync_enum nb_transport_bw(tlm_generic_payload& trans, tlm_phase& phase, sc_time& delay)
    {
        return on_bw ? on_bw(trans, phase, delay) : tlm::TLM_ACCEPTED;
    }
    void invalidate(sc_dt::uint64 start, sc_dt::uint64 end)
    {
        invalidations.emplace_back(start, end);
    }
    void run()
    {
        if (script)
            script();
    }
    void run2()
    {
        if (script2)
            script2();
    }
    void run_method()
    {
        if (method_script)
            method_script();
    }
};

tb::protocol_checker_config counting()
{
    tb::protocol_checker_config cfg;
    cfg.mode = tb::report_mode::count;
    return cfg;
}

/// initiator -> checker -> target, the checker counting violations.
struct bench {
    stub_initiator init{"init"};
    tb::protocol_checker checker;
    stub_target tgt{"tgt"};
    explicit bench(const tb::protocol_checker_config& cfg = counting()) : checker("checker", cfg)
    {
        tb::bind_checked(init.socket, checker, tgt.socket);
    }
};

/// Calls b_transport with `delay` and returns the payload's final response status.
tlm::tlm_response_status b_call(bench& b, tlm_generic_payload& trans, sc_time delay = SC_ZERO_TIME)
{
    b.init.socket->b_transport(trans, delay);
    return trans.get_response_status();
}

/// Sends `phase` forward and returns the status; `phase` and `delay` keep what came back.
tlm_sync_enum fw(bench& b, tlm_generic_payload& trans, tlm_phase& phase, sc_time& delay)
{
    return b.init.socket->nb_transport_fw(trans, phase, delay);
}

tlm_sync_enum bw(bench& b, tlm_generic_payload& trans, tlm_phase& phase, sc_time& delay)
{
    return b.tgt.socket->nb_transport_bw(trans, phase, delay);
}

/// The checker saw exactly one violation, with this message.
void require_one(const bench& b, const std::string& message)
{
    INFO("messages: " << b.checker.messages().size());
    for (const std::string& m : b.checker.messages())
        UNSCOPED_INFO(m);
    REQUIRE(b.checker.violations() == 1);
    REQUIRE(b.checker.messages().size() == 1);
    REQUIRE(b.checker.messages().front() == message);
}

void require_none(const bench& b)
{
    for (const std::string& m : b.checker.messages())
        UNSCOPED_INFO(m);
    REQUIRE(b.checker.violations() == 0);
    REQUIRE(b.checker.messages().empty());
}

} // namespace

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

// ---- broken targets: b_transport ---------------------------------------------------------------

/// Runs one b_transport of 4 bytes at 0x10 with the given delay from the initiator thread.
void one_b_transport(bench& b, tlm::tlm_command command = tlm::TLM_READ_COMMAND,
                     sc_time delay = SC_ZERO_TIME)
{
    b.init.script = [&b, command, delay] {
        static std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, command, 0x10, data.data(), 4);
        b_call(b, trans, delay);
    };
}

TEST_CASE("protocol_checker: target leaving the response status incomplete", "[protocol_checker]")
{
    bench b;
    b.tgt.on_b = [](tlm_generic_payload&, sc_time&) {};
    one_b_transport(b);
    sc_core::sc_start();
    require_one(b, "b_transport: response status still TLM_INCOMPLETE_RESPONSE after return "
                   "(address 0x10)");
}

TEST_CASE("protocol_checker: target changing the address", "[protocol_checker]")
{
    bench b;
    b.tgt.on_b = [&](tlm_generic_payload& trans, sc_time&) {
        b.tgt.access(trans);
        trans.set_address(0x14);
    };
    one_b_transport(b);
    sc_core::sc_start();
    require_one(b, "b_transport: target changed the address from 0x10 to 0x14");
}

TEST_CASE("protocol_checker: target changing the data length", "[protocol_checker]")
{
    bench b;
    b.tgt.on_b = [&](tlm_generic_payload& trans, sc_time&) {
        b.tgt.access(trans);
        trans.set_data_length(2);
    };
    one_b_transport(b);
    sc_core::sc_start();
    require_one(b, "b_transport: target changed the data length from 4 to 2 (address 0x10)");
}

TEST_CASE("protocol_checker: target changing the command", "[protocol_checker]")
{
    bench b;
    b.tgt.on_b = [&](tlm_generic_payload& trans, sc_time&) {
        b.tgt.access(trans);
        trans.set_command(tlm::TLM_WRITE_COMMAND);
    };
    one_b_transport(b);
    sc_core::sc_start();
    require_one(b, "b_transport: target changed the command from TLM_READ_COMMAND to "
                   "TLM_WRITE_COMMAND (address 0x10)");
}

TEST_CASE("protocol_checker: target decreasing the timing annotation", "[protocol_checker]")
{
    bench b;
    b.tgt.on_b = [&](tlm_generic_payload& trans, sc_time& delay) {
        b.tgt.access(trans);
        delay = ns(5);
    };
    one_b_transport(b, tlm::TLM_READ_COMMAND, ns(10));
    sc_core::sc_start();
    require_one(b, "b_transport: target decreased the timing annotation: effective time 5 ns "
                   "on return is before 10 ns on entry (address 0x10)");
}

TEST_CASE("protocol_checker: target that waits may consume its delay", "[protocol_checker]")
{
    bench b;
    b.tgt.on_b = [&](tlm_generic_payload& trans, sc_time& delay) {
        sc_core::wait(delay); // synchronises: the annotation becomes 0, effective time kept
        delay = SC_ZERO_TIME;
        b.tgt.access(trans);
    };
    one_b_transport(b, tlm::TLM_READ_COMMAND, ns(10));
    sc_core::sc_start();
    require_none(b);
}

// ---- broken initiators: payload attributes -----------------------------------------------------

/// Runs one b_transport of a correctly prepared payload after `spoil` broke it.
void spoiled_b_transport(bench& b, std::function<void(tlm_generic_payload&)> spoil)
{
    b.init.script = [&b, spoil] {
        static std::array<unsigned char, 4> data{};
        static std::array<unsigned char, 4> enables{TLM_BYTE_ENABLED, 0x0f, TLM_BYTE_ENABLED,
                                                    TLM_BYTE_ENABLED};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_WRITE_COMMAND, 0x10, data.data(), 4);
        spoil(trans);
        if (trans.get_byte_enable_ptr() != nullptr)
            trans.set_byte_enable_ptr(enables.data());
        b_call(b, trans);
    };
}

TEST_CASE("protocol_checker: initiator sending a response status other than incomplete",
          "[protocol_checker]")
{
    bench b;
    spoiled_b_transport(
        b, [](tlm_generic_payload& t) { t.set_response_status(tlm::TLM_OK_RESPONSE); });
    sc_core::sc_start();
    require_one(b, "b_transport: response status is TLM_OK_RESPONSE on entry, not "
                   "TLM_INCOMPLETE_RESPONSE (address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending a null data pointer", "[protocol_checker]")
{
    bench b;
    spoiled_b_transport(b, [](tlm_generic_payload& t) { t.set_data_ptr(nullptr); });
    sc_core::sc_start();
    require_one(b, "b_transport: data pointer is null with data length 4 (address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending data length 0", "[protocol_checker]")
{
    bench b;
    spoiled_b_transport(b, [](tlm_generic_payload& t) { t.set_data_length(0); });
    sc_core::sc_start();
    require_one(b, "b_transport: data length is 0 (address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending streaming width 0", "[protocol_checker]")
{
    bench b;
    spoiled_b_transport(b, [](tlm_generic_payload& t) { t.set_streaming_width(0); });
    sc_core::sc_start();
    require_one(b, "b_transport: streaming width is 0 (address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending an invalid command", "[protocol_checker]")
{
    // 3 is within tlm_command's range of values (0..3) but names no command.
    bench b;
    spoiled_b_transport(
        b, [](tlm_generic_payload& t) { t.set_command(static_cast<tlm::tlm_command>(3)); });
    sc_core::sc_start();
    require_one(b, "b_transport: invalid command 3 (address 0x10)");
}

TEST_CASE("protocol_checker: a command outside tlm_command's range is read as raw bytes",
          "[protocol_checker]")
{
    // Stale memory: 7 cannot be stored by a cast without undefined behaviour, and loading it as
    // a tlm_command is undefined too (the sanitizer build fails this test if the checker does).
    // The target answers without looking at the command.
    bench b;
    spoiled_b_transport(b, [](tlm_generic_payload& t) { store_raw_command(t, 7); });
    b.tgt.on_b = [](tlm_generic_payload& t, sc_time&) {
        t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    };
    sc_core::sc_start();
    require_one(b, "b_transport: invalid command 7 (address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending byte enables with length 0", "[protocol_checker]")
{
    bench b;
    spoiled_b_transport(b, [](tlm_generic_payload& t) {
        t.set_byte_enable_ptr(reinterpret_cast<unsigned char*>(&t)); // replaced by the array
        t.set_byte_enable_length(0);
    });
    sc_core::sc_start();
    require_one(b, "b_transport: byte enable pointer set with byte enable length 0 "
                   "(address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending a byte enable that is neither 0x00 nor 0xff",
          "[protocol_checker]")
{
    bench b;
    spoiled_b_transport(b, [](tlm_generic_payload& t) {
        t.set_byte_enable_ptr(reinterpret_cast<unsigned char*>(&t)); // replaced by the array
        t.set_byte_enable_length(4);
    });
    sc_core::sc_start();
    require_one(b, "b_transport: byte enable 1 is 0x0f, neither TLM_BYTE_DISABLED nor "
                   "TLM_BYTE_ENABLED (address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending the DMI allowed hint set", "[protocol_checker]")
{
    bench b;
    spoiled_b_transport(b, [](tlm_generic_payload& t) { t.set_dmi_allowed(true); });
    sc_core::sc_start();
    require_one(b, "b_transport: DMI allowed attribute is true on entry (address 0x10)");
}

TEST_CASE("protocol_checker: initiator sending a managed payload without a reference",
          "[protocol_checker]")
{
    bench b;
    counting_mm mm;
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans(&mm); // acquire() forgotten
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        b_call(b, trans);
    };
    sc_core::sc_start();
    require_one(b, "b_transport: payload has a memory manager but reference count 0 "
                   "(address 0x10)");
}

TEST_CASE("protocol_checker: initiator using one payload in two concurrent b_transport calls",
          "[protocol_checker]")
{
    bench b;
    tlm_generic_payload shared;
    std::array<unsigned char, 4> data{};
    b.tgt.on_b = [&](tlm_generic_payload& trans, sc_time&) {
        sc_core::wait(ns(10)); // the first call is still outstanding when the second comes
        b.tgt.access(trans);
    };
    b.init.script = [&] {
        prepare(shared, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        b_call(b, shared);
    };
    b.init.script2 = [&] {
        sc_core::wait(ns(1));
        b_call(b, shared);
    };
    sc_core::sc_start();
    require_one(b, "b_transport: payload already in use by an outstanding b_transport "
                   "(address 0x10)");
}

TEST_CASE("protocol_checker: initiator calling b_transport from a method process",
          "[protocol_checker]")
{
    bench b;
    tlm_generic_payload trans;
    std::array<unsigned char, 4> data{};
    b.init.method_script = [&] {
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        b_call(b, trans);
    };
    sc_core::sc_start();
    require_one(b, "b_transport: called from method process init.run_method; b_transport may "
                   "wait, call it from a thread (address 0x10)");
}

// ---- broken targets: DMI, debug, invalidation --------------------------------------------------

/// Runs one DMI request of `command` at 0x10.
void one_dmi(bench& b, tlm::tlm_command command)
{
    b.init.script = [&b, command] {
        static std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        tlm::tlm_dmi dmi;
        prepare(trans, command, 0x10, data.data(), 4);
        b.init.socket->get_direct_mem_ptr(trans, dmi);
    };
}

TEST_CASE("protocol_checker: DMI granted range not containing the address", "[protocol_checker]")
{
    bench b;
    b.tgt.on_dmi = [&](tlm_generic_payload&, tlm::tlm_dmi& dmi) {
        dmi.set_dmi_ptr(b.tgt.mem.data() + 0x800);
        dmi.set_start_address(0x800);
        dmi.set_end_address(0xfff);
        dmi.allow_read_write();
        return true;
    };
    one_dmi(b, tlm::TLM_READ_COMMAND);
    sc_core::sc_start();
    require_one(b, "get_direct_mem_ptr: granted range [0x800, 0xfff] does not contain address "
                   "0x10");
}

TEST_CASE("protocol_checker: DMI granted read access for a write request", "[protocol_checker]")
{
    bench b;
    b.tgt.on_dmi = [&](tlm_generic_payload&, tlm::tlm_dmi& dmi) {
        dmi.set_dmi_ptr(b.tgt.mem.data());
        dmi.set_start_address(0);
        dmi.set_end_address(mem_size - 1);
        dmi.allow_read();
        return true;
    };
    one_dmi(b, tlm::TLM_WRITE_COMMAND);
    sc_core::sc_start();
    require_one(b, "get_direct_mem_ptr: granted access DMI_ACCESS_READ does not cover the "
                   "requested TLM_WRITE_COMMAND (address 0x10)");
}

TEST_CASE("protocol_checker: DMI granted with a null pointer", "[protocol_checker]")
{
    bench b;
    b.tgt.on_dmi = [&](tlm_generic_payload&, tlm::tlm_dmi& dmi) {
        dmi.set_start_address(0);
        dmi.set_end_address(mem_size - 1);
        dmi.allow_read_write();
        return true;
    };
    one_dmi(b, tlm::TLM_READ_COMMAND);
    sc_core::sc_start();
    require_one(b, "get_direct_mem_ptr: granted with a null DMI pointer (address 0x10)");
}

TEST_CASE("protocol_checker: debug transport returning more than the data length",
          "[protocol_checker]")
{
    bench b;
    b.tgt.on_dbg = [](tlm_generic_payload&) { return 8u; };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        b.init.socket->transport_dbg(trans);
    };
    sc_core::sc_start();
    require_one(b, "transport_dbg: returned 8 bytes for data length 4 (address 0x10)");
}

TEST_CASE("protocol_checker: debug transport changing the address", "[protocol_checker]")
{
    bench b;
    b.tgt.on_dbg = [](tlm_generic_payload& trans) {
        trans.set_address(0);
        return 4u;
    };
    b.init.script = [&] {
        std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, tlm::TLM_READ_COMMAND, 0x10, data.data(), 4);
        b.init.socket->transport_dbg(trans);
    };
    sc_core::sc_start();
    require_one(b, "transport_dbg: target changed the address from 0x10 to 0x0");
}

TEST_CASE("protocol_checker: DMI invalidation with start after end", "[protocol_checker]")
{
    bench b;
    b.tgt.script = [&] { b.tgt.socket->invalidate_direct_mem_ptr(0x100, 0xff); };
    sc_core::sc_start();
    require_one(b, "invalidate_direct_mem_ptr: start 0x100 > end 0xff");
    REQUIRE(b.init.invalidations.size() == 1); // still forwarded
}

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
