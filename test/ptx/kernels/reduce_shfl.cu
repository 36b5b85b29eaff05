// Sum reduction: warp shuffles within a warp, one float atomicAdd per warp.
__global__ void reduce_shfl(const float* in, float* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(sum, v);
}
