// Matrix transpose through shared memory: out = in^T for a row-major rows x cols matrix of
// 32-bit words (out is cols x rows). Each block of 32 x 8 threads moves one 32 x 32 tile: it
// reads the tile row by row into shared memory, synchronises, and writes the transposed tile
// row by row, every thread 4 elements each way. Memory behaviour: global reads and writes are
// both coalesced (a warp touches 32 consecutive words, one 128-byte line); the transposition
// happens in shared memory, where a warp reads a column of the tile. The tile rows are padded
// to PAD + 32 words (PAD = 1 by default) so that the 32 words of a column fall in 32 different
// banks; with -DPAD=0 (`defines: {PAD: 0}`) every column read is a 32-way bank conflict.
#define TILE 32
#define ROWS 8
#ifndef PAD
#define PAD 1
#endif
__global__ void transpose_shared(const unsigned int* in, unsigned int* out, int rows, int cols)
{
    __shared__ unsigned int tile[TILE][TILE + PAD];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    for (int j = 0; j < TILE; j += ROWS)
        if (c < cols && r + j < rows)
            tile[ty + j][tx] = in[(r + j) * cols + c];
    __syncthreads();
    // Out's tile (blockIdx.x, blockIdx.y) swapped: its rows are in's columns.
    c = blockIdx.y * TILE + tx; // a column of out = a row of in
    r = blockIdx.x * TILE + ty; // a row of out = a column of in
    for (int j = 0; j < TILE; j += ROWS)
        if (c < rows && r + j < cols)
            out[(r + j) * rows + c] = tile[tx][ty + j];
}
