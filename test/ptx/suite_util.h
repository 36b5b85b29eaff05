// The CUDA application suite (testbenches/cuda/): run one application's workload at its default
// sizes on platforms/default.yaml and platforms/mcm4.yaml in both timing modes; every run must
// pass its checks (the host references, models/host/references/) and fast mode's kernel time
// must be within 5 % of accurate mode's. Needs VGPU_PTX_TEST_DIR and VGPU_SIM_PATH.
#pragma once

#include "translate_test_util.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <string>

namespace vgpu::ptx::test {

/// Sum of the kernels' windows (end_ns - start_ns) in a run's stats.json.
inline double kernel_ns(const std::filesystem::path& outdir)
{
    const nlohmann::json j = nlohmann::json::parse(slurp(outdir / "stats.json"));
    double ns = 0;
    for (const auto& k : j.at("kernels"))
        ns += k.at("end_ns").get<double>() - k.at("start_ns").get<double>();
    return ns;
}

/// A measured gap of fast mode beyond the 5 % contract on one platform, kept in sight rather
/// than hidden: the case warns with it and fails if the gap grows beyond `limit` (a ratchet
/// until the model is fixed; docs/performance.md lists each with its cause).
struct known_gap {
    const char* platform; ///< "default" or "mcm4"
    double limit;         ///< the largest |fast / accurate - 1| accepted there
    const char* why;      ///< the measured cause, in a few words
};

/// testbenches/cuda/<name>.yaml (plus `extra` vgpu-sim arguments) on default and mcm4, fast and
/// accurate: each passes, and fast is within 5 % of accurate on each platform (or within a
/// known gap's limit).
inline void run_testbench(const std::string& name, std::initializer_list<known_gap> known = {},
                          const std::string& extra = "")
{
    const std::string root = std::string(VGPU_PTX_TEST_DIR) + "/../..";
    const std::filesystem::path dir = scratch("tb_" + name);
    for (const char* plat : {"default", "mcm4"}) {
        double ns[2] = {};
        for (int m = 0; m < 2; ++m) {
            const std::string mode = m ? "accurate" : "fast";
            const std::string out = std::string(plat) + "_" + mode;
            const run_result r = run_in(dir, "-c " + root + "/platforms/" + plat + ".yaml -w " +
                                                 root + "/testbenches/cuda/" + name +
                                                 ".yaml -s platform.timing.mode=" + mode + " " +
                                                 extra + " -o " + out);
            INFO(name << " on " << plat << ", " << mode << "\n" << r.out);
            REQUIRE(r.code == 0);
            REQUIRE(r.out.find("verdict: pass") != std::string::npos);
            ns[m] = kernel_ns(dir / out);
        }
        const double gap = (ns[0] - ns[1]) / ns[1];
        INFO(name << " on " << plat << ": kernel " << ns[0] << " ns fast, " << ns[1]
                  << " ns accurate, gap " << 100 * gap << " %");
        double limit = 0.05;
        for (const known_gap& k : known)
            if (std::string(k.platform) == plat) {
                limit = k.limit;
                WARN(name << " on " << plat << ": fast mode " << 100 * gap
                          << " % from accurate, a known gap beyond 5 % (" << k.why << ")");
            }
        CHECK(std::fabs(gap) <= limit);
        CHECK(ns[1] > 0);
    }
    std::filesystem::remove_all(dir);
}

} // namespace vgpu::ptx::test
