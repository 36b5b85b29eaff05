// Shared pieces of the tlm_bus shell tests: a test initiator thread around an initiator_port.
// See test/CMakeLists.txt.
#pragma once

#include "tlm_bus/initiator_port.h"

#include <functional>
#include <systemc>

namespace vgpu::test {

/// Runs `body` once in an SC_THREAD; the port is public for binding.
struct test_initiator : sc_core::sc_module {
    tlm_bus::initiator_port mem{"mem"};
    std::function<void(test_initiator&)> body;
    bool done = false;
    explicit test_initiator(const sc_core::sc_module_name& n) : sc_module(n)
    {
        SC_HAS_PROCESS(test_initiator);
        SC_THREAD(run);
    }
    void run()
    {
        body(*this);
        done = true;
    }
    std::uint32_t read32(std::uint64_t addr, sc_core::sc_time& delay,
                         tlm::tlm_response_status* status = nullptr)
    {
        std::uint32_t v = 0;
        auto s = mem.access(tlm::TLM_READ_COMMAND, addr, &v, 4, delay);
        if (status)
            *status = s;
        return v;
    }
    tlm::tlm_response_status write32(std::uint64_t addr, std::uint32_t v, sc_core::sc_time& delay)
    {
        return mem.access(tlm::TLM_WRITE_COMMAND, addr, &v, 4, delay);
    }
};

} // namespace vgpu::test
