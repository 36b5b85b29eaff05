// Kernel printf (docs/cuda.md, "Kernel printf"): every thread prints ints, an unsigned, hex,
// octal, a char, floats and doubles (promoted), a pointer and 64-bit integers, and stores what
// printf returned; thread 0 also prints a line with no arguments.
__global__ void printf_kernel(int* ret, const float* f, double d, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (i == 0)
        printf("hello from thread 0\n");
    const int r = printf("t%03d i=%i u=%u x=%#x X=%X o=%o c=%c f=%.3f e=%e g=%g d=%10.4f "
                         "p=%p ll=%lld lu=%lu %%\n",
                         i, -i, 4000000000u - i, i * 255, i * 4096, i, 'A' + i % 26, f[i],
                         f[i] * 1e-3f, d / (i + 1), d * i, ret + i, -((long long)i << 35),
                         (unsigned long)i * 1000000007ul);
    ret[i] = r;
}
