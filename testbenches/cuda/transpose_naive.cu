// Matrix transpose without shared memory: out = in^T for a row-major rows x cols matrix of
// 32-bit words (out is cols x rows). Each block of 32 x 8 threads moves one 32 x 32 tile, every
// thread 4 elements, 8 rows apart. Memory behaviour: a warp reads 32 consecutive words of one
// row of in (one 128-byte line, coalesced) and writes them down one column of out, 32 words
// `rows` words apart (32 lines per warp store, strided). Elements outside the matrix (edge
// tiles) are skipped.
#define TILE 32
#define ROWS 8
__global__ void transpose_naive(const unsigned int* in, unsigned int* out, int rows, int cols)
{
    const int c = blockIdx.x * TILE + threadIdx.x;
    const int r0 = blockIdx.y * TILE + threadIdx.y;
    if (c >= cols)
        return;
    for (int j = 0; j < TILE; j += ROWS) {
        const int r = r0 + j;
        if (r < rows)
            out[c * rows + r] = in[r * cols + c];
    }
}
