// The CUDA application suite's stencils (testbenches/cuda/): each passes its checks on the
// default and mcm4 platforms in both timing modes, fast within 5 % of accurate (suite_util.h).
#include "suite_util.h"

using vgpu::ptx::test::run_testbench;

TEST_CASE("testbenches/cuda/jacobi2d.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("jacobi2d");
}

TEST_CASE("testbenches/cuda/hotspot.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("hotspot");
}

TEST_CASE("testbenches/cuda/conv2d.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("conv2d");
}

TEST_CASE("testbenches/cuda/pathfinder.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("pathfinder");
}
