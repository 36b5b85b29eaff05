// Register pressure: 40 loaded values stay live until a second pass reads them in reverse, and
// __launch_bounds__(256, 8) lets each thread have 65536 / (8 * 256) = 32 registers, so the
// translator spills to local memory. Reference: test/ptx/test_ptx_calls.cpp.
__global__ void __launch_bounds__(256, 8) spill_heavy(const unsigned* x, unsigned* y, int n)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    unsigned v[40];
#pragma unroll
    for (int i = 0; i < 40; ++i)
        v[i] = x[t + i * n];
    unsigned a = 0;
#pragma unroll
    for (int i = 0; i < 40; ++i)
        a = a * 31u + v[i];
    unsigned s = a;
#pragma unroll
    for (int i = 0; i < 40; ++i)
        s = (s ^ (v[39 - i] * (a | 1u))) + (unsigned)i;
    y[t] = s;
}
