// Fast mode against accurate mode on shipped workloads (kernel times, capacities never
// exceeded), and the SM's LSU threads as a simulator detail. See docs/architecture.md
// ("Timing") and models/cache/README.md ("Capacity in fast mode").
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using vgpu::test::cli_runner;

namespace {
/// Runs vgpu-sim on a shipped workload with `args` into `out`; returns its stats.json.
nlohmann::json run(const cli_runner& r, const std::string& workload, const std::string& args,
                   const std::string& out)
{
    const auto res = r.run("-w '" VGPU_SOURCE_DIR "/testbenches/workloads/" + workload + ".yaml' " +
                           args + " -o " + out);
    INFO(res.out << res.err);
    REQUIRE(res.code == 0);
    return nlohmann::json::parse(r.read(out + "/stats.json"));
}

/// Kernel time of the first kernel record (end_ns - start_ns).
double kernel_ns(const nlohmann::json& s)
{
    const auto& k = s.at("kernels").at(0);
    return k.at("end_ns").get<double>() - k.at("start_ns").get<double>();
}

/// Sum of every L1 and LLC `capacity_overrun` (fast mode: MSHR and buffer time booked beyond
/// the configured entries), and how many there are.
double overruns(const nlohmann::json& s, unsigned& count)
{
    const std::string suffix = ".capacity_overrun";
    double sum = 0;
    count = 0;
    for (const auto& kv : s.at("stats").items())
        if (kv.key().size() > suffix.size() &&
            kv.key().compare(kv.key().size() - suffix.size(), suffix.size(), suffix) == 0) {
            sum += kv.value().get<double>();
            ++count;
        }
    return sum;
}

/// Fast mode (`quantum`: "" = the default) against accurate mode: kernel times within 5 %,
/// and no MSHR or write-back buffer interval booked beyond its capacity.
void fast_against_accurate(const std::string& workload, const std::string& quantum)
{
    cli_runner r("fidelity_" + workload + quantum);
    const nlohmann::json fast =
        run(r, workload, quantum.empty() ? "" : "-s platform.timing.quantum_ns=" + quantum, "fast");
    const nlohmann::json acc = run(r, workload, "-s platform.timing.mode=accurate", "acc");
    CHECK(fast.at("meta").at("timing_mode") == "fast");
    const double f = kernel_ns(fast), a = kernel_ns(acc);
    INFO(workload << ": fast " << f << " ns, accurate " << a << " ns, " << 100.0 * (f / a - 1.0)
                  << " %");
    CHECK(f == Approx(a).epsilon(0.05));
    unsigned n = 0;
    CHECK(overruns(fast, n) == 0.0);
    CHECK(n == 8 + 4); // 8 L1s and 4 LLC slices on the default platform
}
} // namespace

// At a quantum of 100 ns the error left is that of the models (memory side included), not of
// the SMs' synchronisation: these must hold.
TEST_CASE("fidelity: random_gather in fast mode at a 100 ns quantum is within 5 % of accurate")
{
    fast_against_accurate("random_gather", "100");
}

// Known gap since the DRAM controller with banks joined, so [!mayfail] (printed on every run):
// fast 169.7 us against accurate 193.0 us (-12 %). The DRAM's fast mode books a bank's requests
// in call order; accurate mode queues and reorders them (FR-FCFS) and loses bus time to it.
TEST_CASE("fidelity: stream in fast mode at a 100 ns quantum is within 5 % of accurate",
          "[!mayfail]")
{
    fast_against_accurate("stream", "100");
}

// Known gaps at the default quantum (1000 ns), so marked [!mayfail] (the deviation is printed
// on every run); neither comes from MSHRs or buffers (no MSHR stall, no overrun):
// - random_gather, +5.6 % (5759 ns against 5456; +1.8 % at q = 0, +3.2 % at q = 100): an SM
//   that ran ahead within its quantum sees a CTA launch only at its next synchronisation, so
//   the second CTA of an SM starts at 1.0-1.6 us instead of 0.25 us (the small kernels saxpy,
//   vector_add, multi_kernel lose 24-26 % this way);
// - stream, +5.8 % (174.5 us against 164.9; +1.0 % at q = 100): with both clusters' NoC ports
//   near saturation, the SMs that share a port progress unevenly under temporal decoupling
//   (CTAs of 44 to 128 us, against 81 to 83 us in accurate mode) and the ports lose busy time
//   (5.2 % at n = 1M, 9.8 % at n = 4M).
TEST_CASE("fidelity: random_gather in fast mode at the default quantum is within 5 % of accurate",
          "[!mayfail]")
{
    fast_against_accurate("random_gather", "");
}

TEST_CASE("fidelity: stream in fast mode at the default quantum is within 5 % of accurate",
          "[!mayfail]")
{
    fast_against_accurate("stream", "");
}

TEST_CASE("sm.lsu_threads is a simulator detail: stream in accurate mode with 2 and 32 threads")
{
    cli_runner r("lsu_threads");
    const nlohmann::json two =
        run(r, "stream", "-s platform.timing.mode=accurate -s sm.lsu_threads=2", "two");
    const nlohmann::json many =
        run(r, "stream", "-s platform.timing.mode=accurate -s sm.lsu_threads=32", "many");
    CHECK(kernel_ns(two) == kernel_ns(many));
    // Not just the kernel time: every statistic is the same.
    unsigned differ = 0;
    for (const auto& kv : two.at("stats").items())
        if (many.at("stats").value(kv.key(), nlohmann::json()) != kv.value() && ++differ <= 5)
            FAIL_CHECK(kv.key() << ": " << kv.value() << " with 2 threads, "
                                << many.at("stats").value(kv.key(), nlohmann::json())
                                << " with 32");
    CHECK(differ == 0);
}
