// 64-bit atomics from CUDA: sums of unsigned long long and double with atomicAdd on shared and
// global memory (every thread of the grid on one doubleword), atomicMin/atomicMax on long
// long, atomicExch on unsigned long long and an atomicCAS loop. Run by test_ptx_atom64.cpp
// against host references.
__global__ void sum64(const unsigned long long* x, const double* y, unsigned long long* usum,
                      double* dsum, int n)
{
    __shared__ unsigned long long part;
    __shared__ double dpart;
    if (threadIdx.x == 0) {
        part = 0;
        dpart = 0.0;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&part, x[i]);
        atomicAdd(&dpart, y[i]);
        atomicAdd(&usum[1], x[i]);
        atomicAdd(&dsum[1], y[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&usum[0], part);
        atomicAdd(&dsum[0], dpart);
    }
}

__global__ void minmax64(const long long* x, long long* out, unsigned long long* slot,
                         unsigned long long* prev, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicMin(&out[0], x[i]);
    atomicMax(&out[1], x[i]);
    prev[i] = atomicExch(&slot[i], (unsigned long long)x[i]);
    // out[2] += x[i] by compare-and-swap, as code without a native atomic does.
    unsigned long long* c = (unsigned long long*)&out[2];
    unsigned long long old = *c, assumed;
    do {
        assumed = old;
        old = atomicCAS(c, assumed, assumed + (unsigned long long)x[i]);
    } while (old != assumed);
}
