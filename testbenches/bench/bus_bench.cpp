// vgpu-bus-bench: transactions per host-second through generator -> router -> memory, and a
// bare b_transport loop in the same binary as the yardstick. Run by scripts/bench.
#include "platforms/traffic_platform.h"
#include "tlm_bus/memory.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

namespace {

using namespace vgpu;

/// The least an LT initiator can do: one payload, reused, straight into the memory target.
struct bare_initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<bare_initiator> out{"out"};
    std::uint64_t count;
    std::uint64_t footprint;
    bare_initiator(const sc_core::sc_module_name& n, std::uint64_t c, std::uint64_t f)
        : sc_module(n), count(c), footprint(f)
    {
        SC_HAS_PROCESS(bare_initiator);
        SC_THREAD(run);
    }
    void run()
    {
        std::uint8_t data[64] = {};
        tlm::tlm_generic_payload gp;
        sc_core::sc_time delay;
        std::uint64_t addr = 0;
        for (std::uint64_t i = 0; i < count; ++i) {
            gp.set_command(i & 1 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
            gp.set_address(addr);
            gp.set_data_ptr(data);
            gp.set_data_length(64);
            gp.set_streaming_width(64);
            gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            out->b_transport(gp, delay);
            addr = (addr + 64) % footprint;
        }
        sc_core::wait(delay);
    }
};

int usage()
{
    std::fprintf(stderr, "usage: vgpu-bus-bench bare|fast-dmi|fast|lockstep TRANSACTIONS\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    if (argc != 3)
        return usage();
    std::string mode = argv[1];
    std::uint64_t n = std::strtoull(argv[2], nullptr, 10);
    if (n == 0)
        return usage();

    platforms::vgpu_config cfg;
    cfg.traffic.generators = 1;
    cfg.traffic.pattern = traffic::pattern_kind::linear;
    cfg.traffic.transactions = n;
    cfg.traffic.check = false; // the scoreboard is not what is measured
    if (mode == "fast-dmi") {
        cfg.platform.timing.quantum_ns = 100000;
    } else if (mode == "fast") {
        cfg.platform.timing.quantum_ns = 100000;
        cfg.dram.dmi = false;
    } else if (mode == "lockstep") {
        cfg.platform.timing.quantum_ns = 0;
        cfg.dram.dmi = false;
    } else if (mode != "bare") {
        return usage();
    }
    tlm::tlm_global_quantum::instance().set(
        sc_core::sc_time(static_cast<double>(cfg.platform.timing.quantum_ns), sc_core::SC_NS));

    std::unique_ptr<platforms::traffic_platform> top;
    std::unique_ptr<bare_initiator> bare;
    std::unique_ptr<tlm_bus::memory> mem;
    if (mode == "bare") {
        tlm_bus::memory_params p;
        p.dmi = false;
        bare = std::make_unique<bare_initiator>("bare", n, cfg.traffic.footprint.bytes);
        mem = std::make_unique<tlm_bus::memory>("mem", p);
        bare->out.bind(mem->in);
    } else {
        top = std::make_unique<platforms::traffic_platform>("traffic", cfg);
    }
    auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (top && !top->finished())
        return 1;
    std::printf("%s %llu %.6f %.0f\n", mode.c_str(), static_cast<unsigned long long>(n), s,
                static_cast<double>(n) / s);
    return 0;
}

/// libsystemc refers to sc_main; this binary has its own main().
int sc_main(int, char**)
{
    return 2;
}
