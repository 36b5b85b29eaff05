// Sparse matrix-vector product y = A x, A in CSR (row_ptr, col_idx, values), one warp per row
// (the "vector" CSR kernel): the lanes of a warp read the row's nonzeros 32 at a time
// (coalesced loads of col_idx and values), gather x at the columns (scattered loads, reused
// through the caches where columns repeat), and sum their products with five shuffle steps;
// lane 0 writes y. Rows shorter than 32 leave lanes idle; a long row is read by one warp.
__global__ void spmv_csr_vector(int rows, const unsigned int* row_ptr, const unsigned int* col_idx,
                                const float* values, const float* x, float* y)
{
    const int lane = threadIdx.x & 31;
    const int warps = (blockDim.x * gridDim.x) >> 5;
    for (int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < rows; row += warps) {
        const unsigned int begin = row_ptr[row], end = row_ptr[row + 1];
        float sum = 0.0f;
        for (unsigned int k = begin + lane; k < end; k += 32)
            sum = fmaf(values[k], x[col_idx[k]], sum);
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (lane == 0)
            y[row] = sum;
    }
}
