// 3-point stencil out[i] = wl in[i-1] + wc in[i] + wr in[i+1], with a shared-memory halo.
#define BLOCK 256
__global__ void stencil3(const float* in, float* out, int n, float wl, float wc, float wr)
{
    __shared__ float s[BLOCK + 2];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + 1;
    s[l] = i < n ? in[i] : 0.0f;
    if (threadIdx.x == 0)
        s[0] = i > 0 ? in[i - 1] : 0.0f;
    if (threadIdx.x == blockDim.x - 1)
        s[l + 1] = i + 1 < n ? in[i + 1] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = wl * s[l - 1] + wc * s[l] + wr * s[l + 1];
}
