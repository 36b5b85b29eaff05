// SGEMM without shared memory: C = alpha A B + beta C for row-major M x K (A), K x N (B) and
// M x N (C), one thread per element of C, a 2-D grid of 2-D blocks (x along the columns of C).
// Memory behaviour: every thread reads a whole row of A and a whole column of B straight from
// global memory (K loads of each). Within a warp, the lanes of one row of the block read the
// same A element (one broadcast line) and consecutive B elements (coalesced); a row of A is
// read again by every block of its block row and a column of B by every block of its column,
// so all reuse is left to the caches. Threads outside C (edge blocks) do nothing.
__global__ void sgemm_naive(int M, int N, int K, float alpha, float beta, const float* A,
                            const float* B, float* C)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N)
        return;
    const float* a = A + row * K;
    const float* b = B + col;
    float acc = 0.0f;
    for (int l = 0; l < K; ++l)
        acc += a[l] * b[l * N];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
