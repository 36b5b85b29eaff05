// The CUDA application suite, ML and physics group (issue 37): each application's workload
// passes its checks on default and mcm4 in both timing modes, fast within 5 % of accurate.
#include "suite_util.h"

using vgpu::ptx::test::run_testbench;

TEST_CASE("testbenches/cuda/nbody.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("nbody");
}

TEST_CASE("testbenches/cuda/kmeans.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("kmeans");
}
