// TLM-2.0 base-protocol checker: a pass-through module that checks the IEEE 1666-2011 rules
// (generic payload, base protocol, DMI, debug transport) on one link. See docs/protocol-checker.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

namespace vgpu::tlm_bus {

/// What the checker does with a violation besides counting and recording it.
enum class report_mode {
    error, ///< also SC_REPORT_ERROR(protocol_checker_msg_type, "<checker path>: <message>")
    count  ///< only count and record (tests assert on violations() and messages())
};

/// Message type of every report raised by a protocol checker.
inline constexpr const char* protocol_checker_msg_type = "vgpu/protocol_checker";

/// Options of a protocol checker; the defaults suit a link from an initiator to a leaf target.
struct protocol_checker_config {
    /// Reporting of violations.
    report_mode mode = report_mode::error;
    /// `out` leads to an interconnect, which may rewrite the address on the forward path
    /// (IEEE 1666-2011 14.7): address changes are then not violations.
    bool target_may_modify_address = false;
    /// Accept phases other than the four base-protocol phases inside an open nb_transport
    /// transaction (ignorable phases); otherwise every such phase is a violation.
    bool allow_ignorable_phases = false;
};

/// The rules engine of the checker, independent of sockets: the checker calls a `*_begin`
/// hook before forwarding a call and the matching `*_end` hook after it returns. Usable on
/// its own by an interconnect that wants to check its ports without an extra module.
class protocol_monitor {
public:
    /// Attributes set by the initiator that no other component may change (14.7).
    struct snapshot {
        unsigned command;           ///< command attribute, as stored (may be no tlm_command at all)
        sc_dt::uint64 address;      ///< address attribute
        unsigned char* data;        ///< data pointer attribute
        unsigned int length;        ///< data length attribute
        unsigned char* byte_enable; ///< byte enable pointer attribute
        unsigned int byte_enable_length;                  ///< byte enable length attribute
        unsigned int streaming_width;                     ///< streaming width attribute
        tlm::tlm_gp_option option;                        ///< gp option attribute
        void take(const tlm::tlm_generic_payload& trans); ///< copy the attributes of `trans`
    };
    /// State of one b_transport call, held on the caller's stack.
    struct b_call {
        snapshot saved;            ///< attributes on entry
        sc_core::sc_time entry_at; ///< effective time on entry (time stamp + delay)
    };
    /// State of one nb_transport call, held on the caller's stack.
    struct nb_call {
        tlm::tlm_phase phase;   ///< phase argument on entry
        sc_core::sc_time delay; ///< delay argument on entry
    };
    /// State of one transport_dbg or get_direct_mem_ptr call, held on the caller's stack.
    struct untimed_call {
        snapshot saved; ///< attributes on entry
    };

    /// `owner` (the checker's path, must outlive the monitor) prefixes reported messages.
    protocol_monitor(const char* owner, const protocol_checker_config& cfg);

    void b_transport_begin(const tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
                           b_call& call); ///< before forwarding b_transport
    void b_transport_end(const tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
                         b_call& call); ///< after b_transport returned
    void nb_transport_fw_begin(const tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase,
                               const sc_core::sc_time& delay,
                               nb_call& call); ///< before forwarding nb_transport_fw
    void nb_transport_fw_end(const tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase,
                             const sc_core::sc_time& delay, tlm::tlm_sync_enum status,
                             const nb_call& call); ///< after nb_transport_fw returned
    void nb_transport_bw_begin(const tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase,
                               const sc_core::sc_time& delay,
                               nb_call& call); ///< before forwarding nb_transport_bw
    void nb_transport_bw_end(const tlm::tlm_generic_payload& trans, const tlm::tlm_phase& phase,
                             const sc_core::sc_time& delay, tlm::tlm_sync_enum status,
                             const nb_call& call); ///< after nb_transport_bw returned
    void dmi_begin(const tlm::tlm_generic_payload& trans,
                   untimed_call& call); ///< before forwarding get_direct_mem_ptr
    void dmi_end(const tlm::tlm_generic_payload& trans, const tlm::tlm_dmi& dmi, bool granted,
                 untimed_call& call); ///< after get_direct_mem_ptr returned
    void debug_begin(const tlm::tlm_generic_payload& trans,
                     untimed_call& call); ///< before forwarding transport_dbg
    void debug_end(const tlm::tlm_generic_payload& trans, unsigned int count,
                   untimed_call& call); ///< after transport_dbg returned `count`
    void invalidate(sc_dt::uint64 start, sc_dt::uint64 end); ///< on invalidate_direct_mem_ptr

    std::size_t violations() const { return m_violations; } ///< violations seen so far
    /// One message per violation, in order, without the checker path.
    const std::vector<std::string>& messages() const { return m_messages; }
    std::uint64_t calls() const { return m_calls; } ///< interface calls checked so far
    /// nb_transport transactions begun (BEGIN_REQ) and not yet completed.
    std::size_t open_transactions() const { return m_nb.size(); }
    void clear(); ///< forget counted violations and messages (protocol state is kept)
    void set_report_mode(report_mode mode) { m_cfg.mode = mode; }   ///< change reporting
    const protocol_checker_config& config() const { return m_cfg; } ///< options in force

private:
    enum class nb_state : std::uint8_t { request, request_ended, response };
    /// An nb_transport transaction between BEGIN_REQ and its completion.
    struct nb_transaction {
        const tlm::tlm_generic_payload* trans;
        nb_state state;
        snapshot saved;
        sc_core::sc_time last_at; ///< effective time of the latest phase transition
    };

    void violation(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
    void check_payload(const char* where, const tlm::tlm_generic_payload& trans);
    void check_memory_manager(const char* where, const tlm::tlm_generic_payload& trans);
    void check_in_use(const char* where, const tlm::tlm_generic_payload& trans);
    void check_unchanged(const char* where, const char* who, const tlm::tlm_generic_payload& trans,
                         snapshot& saved);
    nb_transaction* find(const tlm::tlm_generic_payload& trans);
    void forget(const tlm::tlm_generic_payload& trans);
    void nb_call_begin(const char* where, bool forward, const tlm::tlm_generic_payload& trans,
                       const tlm::tlm_phase& phase, const sc_core::sc_time& delay);
    void nb_call_end(const char* where, bool forward, const tlm::tlm_generic_payload& trans,
                     const tlm::tlm_phase& phase, const sc_core::sc_time& delay,
                     tlm::tlm_sync_enum status, const nb_call& call);
    void transition(const char* where, const tlm::tlm_generic_payload& trans,
                    const tlm::tlm_phase& phase, const sc_core::sc_time& at);

    const char* m_owner;
    protocol_checker_config m_cfg;
    std::size_t m_violations = 0;
    std::vector<std::string> m_messages;
    std::uint64_t m_calls = 0;
    std::vector<const tlm::tlm_generic_payload*> m_blocking;   ///< payloads inside b_transport
    std::vector<nb_transaction> m_nb;                          ///< open nb_transport transactions
    const tlm::tlm_generic_payload* m_open_request = nullptr;  ///< BEGIN_REQ awaiting END_REQ
    const tlm::tlm_generic_payload* m_open_response = nullptr; ///< BEGIN_RESP awaiting END_RESP
};

/// Pass-through module inserted on one link: forwards every forward and backward call
/// unchanged and checks the IEEE 1666-2011 base-protocol rules on the way in and out.
template <unsigned int BUSWIDTH = 32>
class basic_protocol_checker : public sc_core::sc_module,
                               public tlm::tlm_fw_transport_if<>,
                               public tlm::tlm_bw_transport_if<> {
public:
    tlm::tlm_target_socket<BUSWIDTH> in;     ///< bound by the initiator (upstream side)
    tlm::tlm_initiator_socket<BUSWIDTH> out; ///< bound to the target (downstream side)

    /// A checker with default options and the given reporting.
    explicit basic_protocol_checker(const sc_core::sc_module_name& name,
                                    report_mode mode = report_mode::error)
        : basic_protocol_checker(name, protocol_checker_config{mode})
    {
    }
    /// A checker with explicit options.
    basic_protocol_checker(const sc_core::sc_module_name& name, const protocol_checker_config& cfg)
        : sc_core::sc_module(name), in("in"), out("out"), m_monitor(this->name(), cfg)
    {
        in.bind(*this);
        out.bind(*this);
    }

    const char* kind() const override { return "vgpu::tlm_bus::protocol_checker"; }

    std::size_t violations() const { return m_monitor.violations(); } ///< violations so far
    /// One message per violation, in order, without the checker path.
    const std::vector<std::string>& messages() const { return m_monitor.messages(); }
    std::uint64_t calls() const { return m_monitor.calls(); } ///< interface calls checked
    /// nb_transport transactions begun and not yet completed.
    std::size_t open_transactions() const { return m_monitor.open_transactions(); }
    void clear() { m_monitor.clear(); } ///< forget counted violations and messages
    void set_report_mode(report_mode mode) { m_monitor.set_report_mode(mode); } ///< reporting
    const protocol_monitor& monitor() const { return m_monitor; } ///< the rules engine

    void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override
    {
        protocol_monitor::b_call call;
        m_monitor.b_transport_begin(trans, delay, call);
        out->b_transport(trans, delay);
        m_monitor.b_transport_end(trans, delay, call);
    }
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay) override
    {
        protocol_monitor::nb_call call;
        m_monitor.nb_transport_fw_begin(trans, phase, delay, call);
        const tlm::tlm_sync_enum status = out->nb_transport_fw(trans, phase, delay);
        m_monitor.nb_transport_fw_end(trans, phase, delay, status, call);
        return status;
    }
    tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                       sc_core::sc_time& delay) override
    {
        protocol_monitor::nb_call call;
        m_monitor.nb_transport_bw_begin(trans, phase, delay, call);
        const tlm::tlm_sync_enum status = in->nb_transport_bw(trans, phase, delay);
        m_monitor.nb_transport_bw_end(trans, phase, delay, status, call);
        return status;
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) override
    {
        protocol_monitor::untimed_call call;
        m_monitor.dmi_begin(trans, call);
        const bool granted = out->get_direct_mem_ptr(trans, dmi);
        m_monitor.dmi_end(trans, dmi, granted, call);
        return granted;
    }
    unsigned int transport_dbg(tlm::tlm_generic_payload& trans) override
    {
        protocol_monitor::untimed_call call;
        m_monitor.debug_begin(trans, call);
        const unsigned int count = out->transport_dbg(trans);
        m_monitor.debug_end(trans, count, call);
        return count;
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override
    {
        m_monitor.invalidate(start, end);
        in->invalidate_direct_mem_ptr(start, end);
    }

private:
    protocol_monitor m_monitor;
};

/// The checker for the default 32-bit TLM sockets.
using protocol_checker = basic_protocol_checker<32>;

/// Binds `initiator_socket -> checker.in` and `checker.out -> target_socket`.
template <class Init, class Tgt, unsigned int BUSWIDTH>
void bind_checked(Init& initiator_socket, basic_protocol_checker<BUSWIDTH>& checker,
                  Tgt& target_socket)
{
    initiator_socket.bind(checker.in);
    checker.out.bind(target_socket);
}

} // namespace vgpu::tlm_bus
