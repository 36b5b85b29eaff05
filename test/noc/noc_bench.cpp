// Host speed of the module NoC: simulated requests per host-second and host time per request
// of a crossbar or a mesh under random traffic (scripts/bench noc). See models/noc/README.md.
#include "models/noc/interconnect.h"
#include "models/noc/mesh.h"
#include "tlm_bus/memory.h"

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace vgpu;

namespace {

constexpr std::uint64_t window = 1 << 20; ///< output o serves [o window, (o + 1) window)

/// One requester: a thread of back-to-back random 64-byte reads and writes to random outputs.
struct requester : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<requester> mem{"mem"};
    unsigned outputs = 1, count = 0;
    std::uint64_t seed = 1;
    bool done = false;
    requester(const sc_core::sc_module_name& n, unsigned outs, unsigned cnt, std::uint64_t s)
        : sc_module(n), outputs(outs), count(cnt), seed(s)
    {
        SC_HAS_PROCESS(requester);
        SC_THREAD(run);
    }
    void run()
    {
        std::mt19937_64 rng(seed);
        tlm_utils::tlm_quantumkeeper qk;
        qk.reset();
        std::uint8_t line[64] = {};
        tlm::tlm_generic_payload gp;
        for (unsigned q = 0; q < count; ++q) {
            gp.set_command(rng() % 2 ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
            gp.set_address((rng() % outputs) * window + (rng() % (window / 64)) * 64);
            gp.set_data_ptr(line);
            gp.set_data_length(64);
            gp.set_streaming_width(64);
            gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            sc_core::sc_time d = qk.get_local_time();
            mem->b_transport(gp, d);
            qk.set(d);
            if (qk.need_sync())
                qk.sync();
        }
        qk.sync();
        done = true;
    }
};

} // namespace

int sc_main(int argc, char** argv)
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1); // stdout carries the result line only
    if (argc < 5) {
        std::fprintf(stderr, "usage: vgpu-noc-bench crossbar|mesh SIDE fast|accurate REQUESTS\n"
                             "  SIDE x SIDE inputs and outputs (a SIDE x SIDE mesh); REQUESTS "
                             "per input\n");
        return 2;
    }
    const std::string topo = argv[1], mode = argv[3];
    const unsigned side = static_cast<unsigned>(std::atoi(argv[2]));
    const unsigned count = static_cast<unsigned>(std::atoi(argv[4]));
    const bool accurate = mode == "accurate";
    const unsigned n = side * side;
    tlm::tlm_global_quantum::instance().set(accurate ? sc_core::SC_ZERO_TIME
                                                     : sc_core::sc_time(1, sc_core::SC_US));
    noc::noc_config cfg;
    cfg.topology = topo == "mesh" ? noc::topology_kind::mesh : noc::topology_kind::crossbar;
    clock_params clk;
    clk.accurate = accurate;
    clk.noc_ps = 1000;
    auto net = noc::make_interconnect("noc", cfg, clk, cfg.module_noc());
    std::vector<std::unique_ptr<requester>> req;
    std::vector<std::unique_ptr<tlm_bus::memory>> mem;
    tlm_bus::memory_params mp;
    mp.size = n * window;
    mp.latency = sc_core::sc_time(10, sc_core::SC_NS);
    mp.bytes_per_ns = 1e9;
    mp.dmi = false;
    for (unsigned k = 0; k < n; ++k) {
        req.push_back(
            std::make_unique<requester>(("i" + std::to_string(k)).c_str(), n, count, 1000 + k));
        req.back()->mem.bind(net->in);
    }
    for (unsigned k = 0; k < n; ++k) {
        mem.push_back(std::make_unique<tlm_bus::memory>(("m" + std::to_string(k)).c_str(), mp));
        net->out.bind(mem.back()->in);
    }
    net->set_route([n](const tlm::tlm_generic_payload& gp) {
        const std::uint64_t o = gp.get_address() / window;
        return o < n ? static_cast<int>(o) : -1;
    });
    const auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    const double host =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& r : req)
        if (!r->done) {
            std::fprintf(stderr, "vgpu-noc-bench: a requester did not finish\n");
            return 1;
        }
    const double total = static_cast<double>(n) * count;
    // topology side mode requests host_s requests_per_host_s host_ns_per_request simulated_ns
    std::printf("%s %u %s %.0f %.3f %.0f %.0f %.0f\n", topo.c_str(), side, mode.c_str(), total,
                host, total / host, host * 1e9 / total,
                sc_core::sc_time_stamp().to_seconds() * 1e9);
    return 0;
}
