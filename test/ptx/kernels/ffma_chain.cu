// FFMA chain: a long dependent chain of fused multiply-adds per thread (compute bound).
__global__ void ffma_chain(float* data, float a, float b, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = data[i];
    float y = x * 0.5f;
    for (int k = 0; k < iters; ++k) {
        x = fmaf(x, a, b);
        y = fmaf(y, b, a);
    }
    data[i] = x + y;
}
