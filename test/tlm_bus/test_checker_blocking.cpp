// Tests of vgpu::tlm_bus::protocol_checker: each broken stub target or initiator of blocking,
// DMI, debug and invalidation traffic is caught with the exact message. See
// docs/protocol-checker.md.
#include "test/tlm_bus/checker_bench.h"

using namespace vgpu::tlm_bus::checker_test;

namespace {
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
} // namespace

// ---- broken targets: b_transport ---------------------------------------------------------------

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
