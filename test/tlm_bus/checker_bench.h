// The bench of the protocol checker's tests: stub initiator and target around the checker, and
// the helpers the tests share. See docs/protocol-checker.md.
#pragma once

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

namespace vgpu::tlm_bus::checker_test {

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;
using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;
namespace tb = vgpu::tlm_bus;

/// A phase of no exchange: what a checker allowing ignorable phases lets through.
TLM_DECLARE_EXTENDED_PHASE(vgpu_probe);

inline constexpr unsigned int mem_size = 0x1000;

inline sc_time ns(double value)
{
    return sc_time(value, SC_NS);
}

/// Sets every attribute the initiator is responsible for, as IEEE 1666-2011 14.7 asks.
inline void prepare(tlm_generic_payload& trans, tlm::tlm_command command, sc_dt::uint64 address,
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

inline tb::protocol_checker_config counting()
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
inline tlm::tlm_response_status b_call(bench& b, tlm_generic_payload& trans,
                                       sc_time delay = SC_ZERO_TIME)
{
    b.init.socket->b_transport(trans, delay);
    return trans.get_response_status();
}

/// Sends `phase` forward and returns the status; `phase` and `delay` keep what came back.
inline tlm_sync_enum fw(bench& b, tlm_generic_payload& trans, tlm_phase& phase, sc_time& delay)
{
    return b.init.socket->nb_transport_fw(trans, phase, delay);
}

inline tlm_sync_enum bw(bench& b, tlm_generic_payload& trans, tlm_phase& phase, sc_time& delay)
{
    return b.tgt.socket->nb_transport_bw(trans, phase, delay);
}

/// The checker saw exactly one violation, with this message.
inline void require_one(const bench& b, const std::string& message)
{
    INFO("messages: " << b.checker.messages().size());
    for (const std::string& m : b.checker.messages())
        UNSCOPED_INFO(m);
    REQUIRE(b.checker.violations() == 1);
    REQUIRE(b.checker.messages().size() == 1);
    REQUIRE(b.checker.messages().front() == message);
}

inline void require_none(const bench& b)
{
    for (const std::string& m : b.checker.messages())
        UNSCOPED_INFO(m);
    REQUIRE(b.checker.violations() == 0);
    REQUIRE(b.checker.messages().empty());
}

/// Runs one b_transport of 4 bytes at 0x10 with the given delay from the initiator thread.
inline void one_b_transport(bench& b, tlm::tlm_command command = tlm::TLM_READ_COMMAND,
                            sc_time delay = SC_ZERO_TIME)
{
    b.init.script = [&b, command, delay] {
        static std::array<unsigned char, 4> data{};
        tlm_generic_payload trans;
        prepare(trans, command, 0x10, data.data(), 4);
        b_call(b, trans, delay);
    };
}

} // namespace vgpu::tlm_bus::checker_test
