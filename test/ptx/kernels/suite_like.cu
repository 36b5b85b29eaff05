// A file shaped like a public benchmark suite's: host code with main, the CUDA headers, stdio
// and sys/time, runtime API calls; only the kernel is compiled (device-only mode).
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#define BLOCK_SIZE 256

__constant__ float c_scale[4];

__global__ void scale_kernel(float* data, int n)
{
    int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i < n)
        data[i] = data[i] * c_scale[i & 3];
}

static double now_s()
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    int devices = 0;
    cudaGetDeviceCount(&devices);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("%s: %d SMs, %zu bytes shared per block, cc %d.%d\n", prop.name,
           prop.multiProcessorCount, prop.sharedMemPerBlock, prop.major, prop.minor);
    float* h = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i)
        h[i] = (float)i;
    float scale[4] = {1, 2, 3, 4};
    float* d = NULL;
    cudaMalloc((void**)&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpyToSymbol(c_scale, scale, sizeof scale);
    cudaFuncSetCacheConfig(scale_kernel, cudaFuncCachePreferL1);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    double t0 = now_s();
    cudaEventRecord(start, 0);
    dim3 grid((n + BLOCK_SIZE - 1) / BLOCK_SIZE), block(BLOCK_SIZE);
    scale_kernel<<<grid, block>>>(d, n);
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "error: %s\n", cudaGetErrorString(err));
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaThreadSynchronize();
    printf("%f ms (%f s host), h[5] = %f\n", ms, now_s() - t0, h[5]);
    cudaFree(d);
    free(h);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return 0;
}
