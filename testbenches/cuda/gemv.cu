// GEMV: y = alpha A x + beta y for a row-major M x N matrix A, one warp per row of A (blocks of
// blockDim.x threads hold blockDim.x / 32 rows). Memory behaviour: the lanes of a warp stride
// along their row 32 words at a time, so every warp load of A is one coalesced 128-byte line
// and A is streamed once from DRAM; x is read by every warp (reused through the caches); the
// 32 partial sums of a row are added by a five-step __shfl_xor_sync butterfly, and lane 0
// makes the one read-modify-write of y[row]. Warps past the last row do nothing.
__global__ void gemv(int M, int N, float alpha, float beta, const float* A, const float* x,
                     float* y)
{
    const int lane = threadIdx.x & 31;
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (row >= M)
        return;
    const float* a = A + row * N;
    float acc = 0.0f;
    for (int j = lane; j < N; j += 32)
        acc += a[j] * x[j];
    for (int offset = 16; offset > 0; offset >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if (lane == 0)
        y[row] = alpha * acc + beta * y[row];
}
