// fp64 kernels: DAXPY (y = a * x + y) and a double dot product accumulated with atomicAdd on
// double, plus 64-bit integer arithmetic on a long long index. Run by test_ptx_fp64.cpp.
__global__ void daxpy(double a, const double* x, double* y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void ddot(const double* x, const double* y, double* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(sum, x[i] * y[i]);
}

// Conversions and fp64 functions: out[i] = f(x[i]) for a few of them.
__global__ void dconv(const double* x, double* out, float* outf, long long* outl, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = x[i];
    out[4 * i] = sqrt(fabs(v));
    out[4 * i + 1] = 1.0 / (v + 3.0);
    out[4 * i + 2] = fmin(v, 0.5) - fmax(v, -0.25);
    out[4 * i + 3] = (double)(int)v + (double)(float)v;
    outf[i] = (float)v;
    outl[i] = (long long)(v * 1e6) / 7 + ((long long)i << 33);
}
