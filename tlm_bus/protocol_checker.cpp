// TLM-2.0 base-protocol checker: the rules engine (protocol_monitor).
// See docs/protocol-checker.md for the rules and the IEEE 1666-2011 clauses they come from.
#include "tlm_bus/protocol_checker.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace vgpu::tlm_bus {
namespace {

using tlm::tlm_generic_payload;

unsigned long long hex(sc_dt::uint64 value)
{
    return static_cast<unsigned long long>(value);
}

// The command attribute as the integer stored in the payload. A broken initiator can store
// any integer there (a cast, a memset, stale memory), and loading a value outside the enum's
// range as a tlm_command is undefined behaviour (UBSan reports it), so the checker reads the
// raw integer and never calls get_command(). The payload has no accessor for it; an explicit
// instantiation may name the private member ([temp.explicit]: access checking does not apply
// there), which yields a pointer to it; its bytes are copied, never loaded as the enum.
struct command_member {
    using type = tlm::tlm_command tlm_generic_payload::*;
    friend type member(command_member);
};
template <command_member::type M> struct expose_command_member {
    friend command_member::type member(command_member) { return M; }
};
template struct expose_command_member<&tlm_generic_payload::m_command>;

unsigned raw_command(const tlm_generic_payload& trans)
{
    std::underlying_type_t<tlm::tlm_command> raw;
    static_assert(sizeof raw == sizeof(tlm::tlm_command));
    std::memcpy(&raw, &(trans.*member(command_member{})), sizeof raw);
    return static_cast<unsigned>(raw);
}

const char* command_name(unsigned command)
{
    switch (command) {
    case tlm::TLM_READ_COMMAND:
        return "TLM_READ_COMMAND";
    case tlm::TLM_WRITE_COMMAND:
        return "TLM_WRITE_COMMAND";
    case tlm::TLM_IGNORE_COMMAND:
        return "TLM_IGNORE_COMMAND";
    }
    return "invalid command";
}

bool valid_command(unsigned command)
{
    return command == tlm::TLM_READ_COMMAND || command == tlm::TLM_WRITE_COMMAND ||
           command == tlm::TLM_IGNORE_COMMAND;
}

const char* response_name(tlm::tlm_response_status status)
{
    switch (status) {
    case tlm::TLM_OK_RESPONSE:
        return "TLM_OK_RESPONSE";
    case tlm::TLM_INCOMPLETE_RESPONSE:
        return "TLM_INCOMPLETE_RESPONSE";
    case tlm::TLM_GENERIC_ERROR_RESPONSE:
        return "TLM_GENERIC_ERROR_RESPONSE";
    case tlm::TLM_ADDRESS_ERROR_RESPONSE:
        return "TLM_ADDRESS_ERROR_RESPONSE";
    case tlm::TLM_COMMAND_ERROR_RESPONSE:
        return "TLM_COMMAND_ERROR_RESPONSE";
    case tlm::TLM_BURST_ERROR_RESPONSE:
        return "TLM_BURST_ERROR_RESPONSE";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE:
        return "TLM_BYTE_ENABLE_ERROR_RESPONSE";
    }
    return "invalid response status";
}

const char* option_name(tlm::tlm_gp_option option)
{
    switch (option) {
    case tlm::TLM_MIN_PAYLOAD:
        return "TLM_MIN_PAYLOAD";
    case tlm::TLM_FULL_PAYLOAD:
        return "TLM_FULL_PAYLOAD";
    case tlm::TLM_FULL_PAYLOAD_ACCEPTED:
        return "TLM_FULL_PAYLOAD_ACCEPTED";
    }
    return "invalid gp option";
}

const char* access_name(tlm::tlm_dmi::dmi_access_e access)
{
    switch (access) {
    case tlm::tlm_dmi::DMI_ACCESS_NONE:
        return "DMI_ACCESS_NONE";
    case tlm::tlm_dmi::DMI_ACCESS_READ:
        return "DMI_ACCESS_READ";
    case tlm::tlm_dmi::DMI_ACCESS_WRITE:
        return "DMI_ACCESS_WRITE";
    case tlm::tlm_dmi::DMI_ACCESS_READ_WRITE:
        return "DMI_ACCESS_READ_WRITE";
    }
    return "invalid DMI access";
}

const char* phase_name(const tlm::tlm_phase& phase)
{
    return phase.get_name();
}

bool is_base_phase(const tlm::tlm_phase& phase)
{
    const unsigned int id = phase;
    return id >= static_cast<unsigned int>(tlm::BEGIN_REQ) &&
           id <= static_cast<unsigned int>(tlm::END_RESP);
}

bool same_phase(const tlm::tlm_phase& phase, tlm::tlm_phase_enum expected)
{
    return static_cast<unsigned int>(phase) == static_cast<unsigned int>(expected);
}

/// Phases sent on the forward path (by the initiator) in the base protocol (16.2).
bool is_initiator_phase(const tlm::tlm_phase& phase)
{
    return same_phase(phase, tlm::BEGIN_REQ) || same_phase(phase, tlm::END_RESP);
}

/// Phases a callee may return with TLM_UPDATED after a call with `called` (16.2, table 57).
bool valid_update(const tlm::tlm_phase& called, const tlm::tlm_phase& returned)
{
    if (same_phase(called, tlm::BEGIN_REQ))
        return same_phase(returned, tlm::END_REQ) || same_phase(returned, tlm::BEGIN_RESP);
    if (same_phase(called, tlm::BEGIN_RESP))
        return same_phase(returned, tlm::END_RESP);
    // No phase may follow END_REQ or END_RESP in the opposite direction within one call.
    return !is_base_phase(called);
}

} // namespace

void protocol_monitor::snapshot::take(const tlm_generic_payload& trans)
{
    command = raw_command(trans);
    address = trans.get_address();
    data = trans.get_data_ptr();
    length = trans.get_data_length();
    byte_enable = trans.get_byte_enable_ptr();
    byte_enable_length = trans.get_byte_enable_length();
    streaming_width = trans.get_streaming_width();
    option = trans.get_gp_option();
}

protocol_monitor::protocol_monitor(const char* owner, const protocol_checker_config& cfg)
    : m_owner(owner), m_cfg(cfg)
{
    // Capacity for the usual concurrency up front, so the steady state never allocates.
    m_blocking.reserve(8);
    m_nb.reserve(16);
}

void protocol_monitor::clear()
{
    m_violations = 0;
    m_messages.clear();
}

void protocol_monitor::violation(const char* fmt, ...)
{
    char text[640];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    ++m_violations;
    m_messages.emplace_back(text);
    if (m_cfg.mode == report_mode::error) {
        const std::string full = std::string(m_owner) + ": " + text;
        SC_REPORT_ERROR(protocol_checker_msg_type, full.c_str());
    }
}

// ---- attribute rules (clause 14) ----------------------------------------------------------------

void protocol_monitor::check_payload(const char* where, const tlm_generic_payload& trans)
{
    const unsigned long long address = hex(trans.get_address());
    if (!valid_command(raw_command(trans)))
        violation("%s: invalid command %u (address 0x%llx)", where, raw_command(trans), address);
    if (trans.get_data_length() == 0)
        violation("%s: data length is 0 (address 0x%llx)", where, address);
    else if (trans.get_data_ptr() == nullptr)
        violation("%s: data pointer is null with data length %u (address 0x%llx)", where,
                  trans.get_data_length(), address);
    if (trans.get_streaming_width() == 0)
        violation("%s: streaming width is 0 (address 0x%llx)", where, address);
    if (const unsigned char* enables = trans.get_byte_enable_ptr()) {
        const unsigned int count = trans.get_byte_enable_length();
        if (count == 0)
            violation("%s: byte enable pointer set with byte enable length 0 (address 0x%llx)",
                      where, address);
        for (unsigned int i = 0; i < count; ++i) {
            if (enables[i] != TLM_BYTE_DISABLED && enables[i] != TLM_BYTE_ENABLED) {
                violation("%s: byte enable %u is 0x%02x, neither TLM_BYTE_DISABLED nor "
                          "TLM_BYTE_ENABLED (address 0x%llx)",
                          where, i, static_cast<unsigned int>(enables[i]), address);
                break;
            }
        }
    }
    if (trans.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
        violation("%s: response status is %s on entry, not TLM_INCOMPLETE_RESPONSE "
                  "(address 0x%llx)",
                  where, response_name(trans.get_response_status()), address);
    if (trans.is_dmi_allowed())
        violation("%s: DMI allowed attribute is true on entry (address 0x%llx)", where, address);
}

void protocol_monitor::check_memory_manager(const char* where, const tlm_generic_payload& trans)
{
    if (trans.has_mm() && trans.get_ref_count() <= 0)
        violation("%s: payload has a memory manager but reference count %d (address 0x%llx)", where,
                  trans.get_ref_count(), hex(trans.get_address()));
}

void protocol_monitor::check_in_use(const char* where, const tlm_generic_payload& trans)
{
    if (std::find(m_blocking.begin(), m_blocking.end(), &trans) != m_blocking.end())
        violation("%s: payload already in use by an outstanding b_transport (address 0x%llx)",
                  where, hex(trans.get_address()));
    else if (find(trans) != nullptr)
        violation("%s: payload already in use by an open nb_transport transaction "
                  "(address 0x%llx)",
                  where, hex(trans.get_address()));
}

void protocol_monitor::check_unchanged(const char* where, const char* who,
                                       const tlm_generic_payload& trans, snapshot& saved)
{
    // Each change is reported once: the snapshot follows the payload after a report.
    const unsigned long long address = hex(saved.address);
    if (raw_command(trans) != saved.command) {
        violation("%s: %s the command from %s to %s (address 0x%llx)", where, who,
                  command_name(saved.command), command_name(raw_command(trans)), address);
        saved.command = raw_command(trans);
    }
    if (trans.get_address() != saved.address && !m_cfg.target_may_modify_address) {
        violation("%s: %s the address from 0x%llx to 0x%llx", where, who, address,
                  hex(trans.get_address()));
        saved.address = trans.get_address();
    }
    if (trans.get_data_ptr() != saved.data) {
        violation("%s: %s the data pointer (address 0x%llx)", where, who, address);
        saved.data = trans.get_data_ptr();
    }
    if (trans.get_data_length() != saved.length) {
        violation("%s: %s the data length from %u to %u (address 0x%llx)", where, who, saved.length,
                  trans.get_data_length(), address);
        saved.length = trans.get_data_length();
    }
    if (trans.get_byte_enable_ptr() != saved.byte_enable) {
        violation("%s: %s the byte enable pointer (address 0x%llx)", where, who, address);
        saved.byte_enable = trans.get_byte_enable_ptr();
    }
    if (trans.get_byte_enable_length() != saved.byte_enable_length) {
        violation("%s: %s the byte enable length from %u to %u (address 0x%llx)", where, who,
                  saved.byte_enable_length, trans.get_byte_enable_length(), address);
        saved.byte_enable_length = trans.get_byte_enable_length();
    }
    if (trans.get_streaming_width() != saved.streaming_width) {
        violation("%s: %s the streaming width from %u to %u (address 0x%llx)", where, who,
                  saved.streaming_width, trans.get_streaming_width(), address);
        saved.streaming_width = trans.get_streaming_width();
    }
}

// ---- blocking transport (11.1.1, 11.1.3, 14) ----------------------------------------------------

void protocol_monitor::b_transport_begin(const tlm_generic_payload& trans,
                                         const sc_core::sc_time& delay, b_call& call)
{
    ++m_calls;
    call.saved.take(trans);
    call.entry_at = sc_core::sc_time_stamp() + delay;
    if (sc_core::sc_is_running()) {
        const sc_core::sc_process_handle process = sc_core::sc_get_current_process_handle();
        if (process.proc_kind() == sc_core::SC_METHOD_PROC_)
            violation("b_transport: called from method process %s; b_transport may wait, call "
                      "it from a thread (address 0x%llx)",
                      process.name(), hex(trans.get_address()));
    }
    check_payload("b_transport", trans);
    check_memory_manager("b_transport", trans);
    check_in_use("b_transport", trans);
    m_blocking.push_back(&trans);
}

void protocol_monitor::b_transport_end(const tlm_generic_payload& trans,
                                       const sc_core::sc_time& delay, b_call& call)
{
    // Bookkeeping first: an error report may throw.
    const auto it = std::find(m_blocking.begin(), m_blocking.end(), &trans);
    if (it != m_blocking.end()) {
        *it = m_blocking.back();
        m_blocking.pop_back();
    }
    const unsigned long long address = hex(call.saved.address);
    if (trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
        violation("b_transport: response status still TLM_INCOMPLETE_RESPONSE after return "
                  "(address 0x%llx)",
                  address);
    check_unchanged("b_transport", "target changed", trans, call.saved);
    const sc_core::sc_time return_at = sc_core::sc_time_stamp() + delay;
    if (return_at < call.entry_at)
        violation("b_transport: target decreased the timing annotation: effective time %s on "
                  "return is before %s on entry (address 0x%llx)",
                  return_at.to_string().c_str(), call.entry_at.to_string().c_str(), address);
}

// ---- non-blocking transport and the base protocol (11.1.2, 15, 16.2) ---------------------------

protocol_monitor::nb_transaction* protocol_monitor::find(const tlm_generic_payload& trans)
{
    for (nb_transaction& entry : m_nb)
        if (entry.trans == &trans)
            return &entry;
    return nullptr;
}

void protocol_monitor::forget(const tlm_generic_payload& trans)
{
    if (m_open_request == &trans)
        m_open_request = nullptr;
    if (m_open_response == &trans)
        m_open_response = nullptr;
    for (std::size_t i = 0; i < m_nb.size(); ++i) {
        if (m_nb[i].trans == &trans) {
            m_nb[i] = m_nb.back();
            m_nb.pop_back();
            return;
        }
    }
}

void protocol_monitor::transition(const char* where, const tlm_generic_payload& trans,
                                  const tlm::tlm_phase& phase, const sc_core::sc_time& at)
{
    const unsigned long long address = hex(trans.get_address());
    nb_transaction* entry = find(trans);
    if (entry != nullptr && at < entry->last_at)
        violation("%s: %s at effective time %s precedes the previous phase of this transaction "
                  "at %s (address 0x%llx)",
                  where, phase_name(phase), at.to_string().c_str(),
                  entry->last_at.to_string().c_str(), address);
    if (entry != nullptr && entry->last_at < at)
        entry->last_at = at;

    if (same_phase(phase, tlm::BEGIN_REQ)) {
        if (entry != nullptr) {
            violation("%s: BEGIN_REQ for a transaction already in progress (address 0x%llx)", where,
                      address);
        } else {
            if (m_open_request != nullptr)
                violation("%s: BEGIN_REQ while the request at address 0x%llx has not ended "
                          "(request exclusion rule)",
                          where, hex(m_open_request->get_address()));
            m_nb.push_back(nb_transaction{&trans, nb_state::request, {}, at});
            entry = &m_nb.back();
        }
        entry->state = nb_state::request;
        entry->saved.take(trans);
        entry->last_at = at;
        m_open_request = &trans;
    } else if (same_phase(phase, tlm::END_REQ)) {
        if (entry == nullptr || entry->state != nb_state::request) {
            violation("%s: END_REQ for a transaction not in the BEGIN_REQ phase (address 0x%llx)",
                      where, address);
            return;
        }
        entry->state = nb_state::request_ended;
        if (m_open_request == &trans)
            m_open_request = nullptr;
    } else if (same_phase(phase, tlm::BEGIN_RESP)) {
        if (entry == nullptr || entry->state == nb_state::response) {
            violation("%s: BEGIN_RESP for a transaction without an open request (address 0x%llx)",
                      where, address);
            return;
        }
        if (m_open_response != nullptr && m_open_response != &trans)
            violation("%s: BEGIN_RESP while the response at address 0x%llx has not ended "
                      "(response exclusion rule)",
                      where, hex(m_open_response->get_address()));
        if (trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
            violation("%s: response status still TLM_INCOMPLETE_RESPONSE at BEGIN_RESP "
                      "(address 0x%llx)",
                      where, address);
        // BEGIN_RESP implies END_REQ.
        entry->state = nb_state::response;
        if (m_open_request == &trans)
            m_open_request = nullptr;
        m_open_response = &trans;
    } else if (same_phase(phase, tlm::END_RESP)) {
        if (entry == nullptr || entry->state != nb_state::response) {
            violation("%s: END_RESP for a transaction not in the BEGIN_RESP phase "
                      "(address 0x%llx)",
                      where, address);
            return;
        }
        forget(trans);
    } else if (entry == nullptr) {
        // An ignorable phase (accepted only when configured, see nb_call_begin).
        violation("%s: phase %s outside an open transaction (address 0x%llx)", where,
                  phase_name(phase), address);
    }
}

void protocol_monitor::nb_call_begin(const char* where, bool forward,
                                     const tlm_generic_payload& trans, const tlm::tlm_phase& phase,
                                     const sc_core::sc_time& delay)
{
    ++m_calls;
    const unsigned long long address = hex(trans.get_address());
    check_memory_manager(where, trans);
    if (!is_base_phase(phase)) {
        if (!m_cfg.allow_ignorable_phases || static_cast<unsigned int>(phase) == 0)
            violation("%s: unknown phase %s (address 0x%llx)", where, phase_name(phase), address);
        else
            transition(where, trans, phase, sc_core::sc_time_stamp() + delay);
        return;
    }
    if (is_initiator_phase(phase) != forward) {
        violation(forward ? "%s: %s is a target phase, not sent on the forward path "
                            "(address 0x%llx)"
                          : "%s: %s is an initiator phase, not sent on the backward path "
                            "(address 0x%llx)",
                  where, phase_name(phase), address);
        return;
    }
    if (same_phase(phase, tlm::BEGIN_REQ)) {
        check_payload(where, trans);
        if (std::find(m_blocking.begin(), m_blocking.end(), &trans) != m_blocking.end())
            violation("%s: payload already in use by an outstanding b_transport "
                      "(address 0x%llx)",
                      where, address);
    } else if (nb_transaction* entry = find(trans)) {
        // The caller presents the payload, so a change since the previous phase is its doing.
        check_unchanged(where, forward ? "initiator changed" : "target changed", trans,
                        entry->saved);
    }
    transition(where, trans, phase, sc_core::sc_time_stamp() + delay);
}

void protocol_monitor::nb_call_end(const char* where, bool forward,
                                   const tlm_generic_payload& trans, const tlm::tlm_phase& phase,
                                   const sc_core::sc_time& delay, tlm::tlm_sync_enum status,
                                   const nb_call& call)
{
    const unsigned long long address = hex(trans.get_address());
    const char* callee = forward ? "target changed" : "initiator changed";
    if (nb_transaction* entry = find(trans))
        check_unchanged(where, callee, trans, entry->saved);

    switch (status) {
    case tlm::TLM_ACCEPTED:
        // The callee shall not modify the phase or the timing annotation (11.1.2).
        if (phase != call.phase)
            violation("%s: returned TLM_ACCEPTED but changed the phase from %s to %s "
                      "(address 0x%llx)",
                      where, phase_name(call.phase), phase_name(phase), address);
        if (delay != call.delay)
            violation("%s: returned TLM_ACCEPTED but changed the timing annotation from %s to "
                      "%s (address 0x%llx)",
                      where, call.delay.to_string().c_str(), delay.to_string().c_str(), address);
        return;
    case tlm::TLM_UPDATED:
    case tlm::TLM_COMPLETED:
        break;
    default:
        violation("%s: returned an invalid tlm_sync_enum value %d (address 0x%llx)", where,
                  static_cast<int>(status), address);
        return;
    }

    sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    if (delay < call.delay) {
        violation("%s: returned %s with the timing annotation decreased from %s to %s "
                  "(address 0x%llx)",
                  where, status == tlm::TLM_UPDATED ? "TLM_UPDATED" : "TLM_COMPLETED",
                  call.delay.to_string().c_str(), delay.to_string().c_str(), address);
        at = sc_core::sc_time_stamp() + call.delay; // reported once, not again as a transition
    }

    if (status == tlm::TLM_COMPLETED) {
        if (forward && same_phase(call.phase, tlm::BEGIN_REQ) &&
            trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
            violation("%s: target returned TLM_COMPLETED with response status "
                      "TLM_INCOMPLETE_RESPONSE (address 0x%llx)",
                      where, address);
        forget(trans);
        return;
    }

    // TLM_UPDATED: the callee answers with the next phase in the opposite direction.
    if (!is_base_phase(phase)) {
        if (!m_cfg.allow_ignorable_phases || static_cast<unsigned int>(phase) == 0)
            violation("%s: returned TLM_UPDATED with unknown phase %s (address 0x%llx)", where,
                      phase_name(phase), address);
        else
            transition(where, trans, phase, at);
        return;
    }
    if (!valid_update(call.phase, phase)) {
        violation("%s: returned TLM_UPDATED with phase %s in response to %s (address 0x%llx)",
                  where, phase_name(phase), phase_name(call.phase), address);
        return;
    }
    transition(where, trans, phase, at);
}

void protocol_monitor::nb_transport_fw_begin(const tlm_generic_payload& trans,
                                             const tlm::tlm_phase& phase,
                                             const sc_core::sc_time& delay, nb_call& call)
{
    call.phase = phase;
    call.delay = delay;
    nb_call_begin("nb_transport_fw", true, trans, phase, delay);
}

void protocol_monitor::nb_transport_fw_end(const tlm_generic_payload& trans,
                                           const tlm::tlm_phase& phase,
                                           const sc_core::sc_time& delay, tlm::tlm_sync_enum status,
                                           const nb_call& call)
{
    nb_call_end("nb_transport_fw", true, trans, phase, delay, status, call);
}

void protocol_monitor::nb_transport_bw_begin(const tlm_generic_payload& trans,
                                             const tlm::tlm_phase& phase,
                                             const sc_core::sc_time& delay, nb_call& call)
{
    call.phase = phase;
    call.delay = delay;
    nb_call_begin("nb_transport_bw", false, trans, phase, delay);
}

void protocol_monitor::nb_transport_bw_end(const tlm_generic_payload& trans,
                                           const tlm::tlm_phase& phase,
                                           const sc_core::sc_time& delay, tlm::tlm_sync_enum status,
                                           const nb_call& call)
{
    nb_call_end("nb_transport_bw", false, trans, phase, delay, status, call);
}

// ---- DMI (11.2) and debug transport (11.3) ------------------------------------------------------

void protocol_monitor::dmi_begin(const tlm_generic_payload& trans, untimed_call& call)
{
    ++m_calls;
    call.saved.take(trans);
    if (!valid_command(raw_command(trans)))
        violation("get_direct_mem_ptr: invalid command %u (address 0x%llx)", raw_command(trans),
                  hex(trans.get_address()));
    if (trans.get_gp_option() == tlm::TLM_FULL_PAYLOAD_ACCEPTED)
        violation("get_direct_mem_ptr: gp option is TLM_FULL_PAYLOAD_ACCEPTED on entry "
                  "(address 0x%llx)",
                  hex(trans.get_address()));
}

void protocol_monitor::dmi_end(const tlm_generic_payload& trans, const tlm::tlm_dmi& dmi,
                               bool granted, untimed_call& call)
{
    const sc_dt::uint64 requested = call.saved.address;
    check_unchanged("get_direct_mem_ptr", "target changed", trans, call.saved);
    const sc_dt::uint64 start = dmi.get_start_address();
    const sc_dt::uint64 end = dmi.get_end_address();
    if (!granted) {
        if (start > end)
            violation("get_direct_mem_ptr: denied range start 0x%llx > end 0x%llx "
                      "(address 0x%llx)",
                      hex(start), hex(end), hex(requested));
        return;
    }
    if (start > end)
        violation("get_direct_mem_ptr: granted range start 0x%llx > end 0x%llx (address 0x%llx)",
                  hex(start), hex(end), hex(requested));
    else if (requested < start || requested > end)
        violation("get_direct_mem_ptr: granted range [0x%llx, 0x%llx] does not contain address "
                  "0x%llx",
                  hex(start), hex(end), hex(requested));
    if (dmi.get_dmi_ptr() == nullptr)
        violation("get_direct_mem_ptr: granted with a null DMI pointer (address 0x%llx)",
                  hex(requested));
    bool covered = !dmi.is_none_allowed();
    if (call.saved.command == tlm::TLM_READ_COMMAND)
        covered = dmi.is_read_allowed();
    else if (call.saved.command == tlm::TLM_WRITE_COMMAND)
        covered = dmi.is_write_allowed();
    if (!covered)
        violation("get_direct_mem_ptr: granted access %s does not cover the requested %s "
                  "(address 0x%llx)",
                  access_name(dmi.get_granted_access()), command_name(call.saved.command),
                  hex(requested));
}

void protocol_monitor::debug_begin(const tlm_generic_payload& trans, untimed_call& call)
{
    ++m_calls;
    call.saved.take(trans);
    const unsigned long long address = hex(trans.get_address());
    if (!valid_command(raw_command(trans)))
        violation("transport_dbg: invalid command %u (address 0x%llx)", raw_command(trans),
                  address);
    // Debug transport permits data length 0 (nothing is transferred).
    if (trans.get_data_length() > 0 && trans.get_data_ptr() == nullptr)
        violation("transport_dbg: data pointer is null with data length %u (address 0x%llx)",
                  trans.get_data_length(), address);
    if (trans.get_gp_option() == tlm::TLM_FULL_PAYLOAD_ACCEPTED)
        violation("transport_dbg: gp option is TLM_FULL_PAYLOAD_ACCEPTED on entry "
                  "(address 0x%llx)",
                  address);
}

void protocol_monitor::debug_end(const tlm_generic_payload& trans, unsigned int count,
                                 untimed_call& call)
{
    const unsigned long long address = hex(call.saved.address);
    if (count > call.saved.length)
        violation("transport_dbg: returned %u bytes for data length %u (address 0x%llx)", count,
                  call.saved.length, address);
    const tlm::tlm_gp_option before = call.saved.option;
    const tlm::tlm_gp_option after = trans.get_gp_option();
    const bool accepted =
        before == tlm::TLM_FULL_PAYLOAD && after == tlm::TLM_FULL_PAYLOAD_ACCEPTED;
    if (after != before && !accepted)
        violation("transport_dbg: target changed the gp option from %s to %s (address 0x%llx)",
                  option_name(before), option_name(after), address);
    check_unchanged("transport_dbg", "target changed", trans, call.saved);
}

void protocol_monitor::invalidate(sc_dt::uint64 start, sc_dt::uint64 end)
{
    ++m_calls;
    if (start > end)
        violation("invalidate_direct_mem_ptr: start 0x%llx > end 0x%llx", hex(start), hex(end));
}

} // namespace vgpu::tlm_bus
