// Per-thread division, SFU and rounding math, and warp-level sums, votes and ballots: what the
// vgpu ISA's FDIV, IDIV, MUFU, CVT, FSETPX, SHFL, VOTE and BALLOT give compiled CUDA.
__global__ void warp_math(const float* x, float* f, unsigned* u, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float v = i < n ? x[i] : 0.0f;
    float s = v;
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    const float total = __shfl_sync(0xffffffffu, s, 0); // lane 0's sum in every lane
    const float left = __shfl_up_sync(0xffffffffu, v, 1);
    const unsigned positive = __ballot_sync(0xffffffffu, v > 0.0f);
    const int small = __all_sync(0xffffffffu, v < 4.0f);
    const int big = __any_sync(0xffffffffu, v > 7.5f);
    const unsigned d = (unsigned)n >> 7; // divisors from a parameter: real divisions
    const int e = -(n >> 8);
    if (i < n) {
        f[4 * i] = v / (total + 100.0f);
        f[4 * i + 1] = exp2f(v);
        f[4 * i + 2] = rintf(v * 3.0f) + left;
        f[4 * i + 3] = (float)(unsigned)(i * 2654435761u);
        u[4 * i] = positive;
        u[4 * i + 1] = (unsigned)i / d + (unsigned)i % d;
        u[4 * i + 2] = small * 2 + big;
        u[4 * i + 3] = (unsigned)(int)floorf(v * 10.0f) + (unsigned)((i - 500) / e);
    }
}
