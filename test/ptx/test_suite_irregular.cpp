// The CUDA application suite (issue 37), scans, sorting and irregular applications: each
// testbenches/cuda/APP.yaml passes its checks on default and mcm4 in both timing modes, and fast
// mode's kernel time is within 5 % of accurate mode's (suite_util.h).
#include "suite_util.h"

using vgpu::ptx::test::run_testbench;

TEST_CASE("testbenches/cuda/scan.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("scan");
}

TEST_CASE("testbenches/cuda/bitonic_sort.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("bitonic_sort");
}

TEST_CASE("testbenches/cuda/spmv_csr.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("spmv_csr");
}

TEST_CASE("testbenches/cuda/bfs.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    run_testbench("bfs");
}
