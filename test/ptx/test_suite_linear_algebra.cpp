// The CUDA application suite, dense linear algebra (testbenches/cuda/, issue 37): each
// application passes its check on platforms/default.yaml and platforms/mcm4.yaml in both timing
// modes, fast within 5 % of accurate (suite_util.h), except two known gaps on mcm4, measured
// and named (docs/performance.md, "the CUDA suite's known gaps").
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
    // mcm4 -5.5 %: first-touch puts most pages on module 0, whose LLC takes every module's
    // strided partial-line writes; accurate mode finds its MSHRs full 1,019 times, fast 93.
    run_testbench("transpose_naive", {{"mcm4", 0.065, "LLC MSHRs full under partial writes"}});
}

TEST_CASE("testbenches/cuda/transpose_shared.yaml passes on default and mcm4, fast within 5 %",
          "[figures]")
{
    run_testbench("transpose_shared");
}

TEST_CASE("testbenches/cuda/gemv.yaml passes on default and mcm4, fast within 5 %", "[figures]")
{
    // mcm4 +5.7 %: fast mode merges more re-reads of x into pending L1 misses at the default
    // quantum (5,723 merges against 2,434); at quantum 0 the gap is +0.5 %.
    run_testbench("gemv", {{"mcm4", 0.065, "L1 merges of x's re-reads at the default quantum"}});
}
