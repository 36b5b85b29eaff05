// GDB remote serial protocol stub for the firmware CPU: registers, memory, breakpoints,
// single step and continue over TCP on 127.0.0.1. No SystemC. See models/host_cpu/README.md.
#pragma once

#include "models/host_cpu/core/iss.h"

#include <stdexcept>
#include <string>

namespace vgpu::host_cpu {

/// Listening failed (port taken, no permission): the message names the port.
struct gdb_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// One debugger connection to one hart.
class gdb_stub {
public:
    /// What the debugger asked the hart to do next.
    enum class action { cont, step, detach, kill };

    /// Listens on 127.0.0.1:port (loopback only); throws gdb_error.
    gdb_stub(iss& core, unsigned port);
    ~gdb_stub();
    gdb_stub(const gdb_stub&) = delete;
    gdb_stub& operator=(const gdb_stub&) = delete;

    /// Waits up to `timeout_s` seconds for the debugger to connect; false if none did.
    bool accept(unsigned timeout_s);
    /// The hart has stopped (at the start, a breakpoint or after a step): reports it and serves
    /// the debugger's requests until it continues, steps, detaches or kills.
    action serve();
    bool connected() const { return m_fd >= 0; }
    /// The run ended while the debugger waited for the hart: tells it the exit status.
    void exited(unsigned status);

private:
    bool get_packet(std::string& out);
    void put_packet(const std::string& body);
    std::string handle(const std::string& p, bool& resume, action& act);
    std::string read_regs() const;

    iss& m_core;
    int m_listen = -1, m_fd = -1;
    bool m_resumed = false; ///< the debugger waits for a stop reply
};

} // namespace vgpu::host_cpu
