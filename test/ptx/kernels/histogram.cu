// 256-bin histogram: per-block bins in shared memory, merged into global with atomics.
#define BINS 256
__global__ void histogram(const unsigned char* data, unsigned int* bins, int n)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&bins[b], local[b]);
}
