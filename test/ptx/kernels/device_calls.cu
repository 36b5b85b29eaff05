// Device functions kept out of line (__noinline__): clang emits .func bodies and call
// sequences through .param, which the translator inlines; pick() passes a pointer to its local
// array to fill(). __launch_bounds__(128, 2) gives .maxntid 128 and .minnctapersm 2.
// Reference: test/ptx/test_ptx_local.cpp.
__device__ __noinline__ float mix(float a, float b, int k)
{
    return k > 0 ? a * b + (float)k : a - b;
}

__device__ __noinline__ void fill(unsigned* p, unsigned v, int n)
{
    for (int i = 0; i < n; ++i)
        p[i] = v + i * i;
}

__device__ __noinline__ unsigned pick(unsigned v)
{
    unsigned a[6];
    fill(a, v, 6);
    return a[v % 6] + a[(v >> 3) % 6];
}

__global__ void __launch_bounds__(128, 2)
    device_calls(const float* x, const unsigned* u, float* y, unsigned* z, int n)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        y[t] = mix(x[t], 2.0f, t & 3);
        z[t] = pick(u[t]);
    }
}
