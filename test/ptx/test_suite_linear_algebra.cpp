// The CUDA application suite, dense linear algebra (testbenches/cuda/, issue 37): each
// application passes its check on platforms/default.yaml and platforms/mcm4.yaml in both timing
// modes, fast within 5 % of accurate (suite_util.h).
#include "suite_util.h"

using vgpu::ptx::test::run_testbench;

TEST_CASE("testbenches/cuda/sgemm_naive.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("sgemm_naive");
}

TEST_CASE("testbenches/cuda/transpose_naive.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("transpose_naive");
}

TEST_CASE("testbenches/cuda/transpose_shared.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("transpose_shared");
}

TEST_CASE("testbenches/cuda/gemv.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("gemv");
}
