// Dynamic-programming wavefront in the manner of PathFinder: on a rows x cols grid of integer
// weights, the cheapest path from the top row to each cell of the bottom row that moves down
// one row per step, straight or diagonally:
//   cost[0][c] = wall[0][c],   cost[t][c] = wall[t][c] + min(cost[t-1][c-1], cost[t-1][c],
//                                                             cost[t-1][c+1])
// (neighbours outside the grid left out). Row t depends on row t - 1 only, so a launch
// processes `iters` rows ("pyramid", as the thermal tiles of hotspot.cu): each CTA of 256
// threads loads 256 costs of the previous row (its 256 - 2 iters columns and a halo of iters
// on each side) into shared memory, then per row reads the row's weights from global memory
// (coalesced), takes the minimum of three shared neighbours, and synchronises; every row the
// valid region shrinks by one column on each side. Overlapping CTAs redo their halos. The host
// ping-pongs two cost rows between launches.
#define BLOCK 256

__global__ void pathfinder_rows(const int* wall, const int* src, int* dst, int rows, int cols,
                                int start_row, int iters)
{
    __shared__ int prev[BLOCK];
    __shared__ int next[BLOCK];
    const int tx = threadIdx.x;
    const int c = blockIdx.x * (BLOCK - 2 * iters) - iters + tx;
    const bool inside = c >= 0 && c < cols;
    if (inside)
        prev[tx] = src[c];
    __syncthreads();
    const int w = c == 0 ? tx : tx - 1; // the cell itself where the grid ends
    const int e = c == cols - 1 ? tx : tx + 1;
    bool computed = false;
    for (int k = 1; k <= iters && start_row + k - 1 < rows; ++k) {
        const int t = start_row + k - 1;
        computed = inside && tx >= k && tx < BLOCK - k;
        if (computed)
            next[tx] = wall[t * cols + c] + min(prev[w], min(prev[tx], prev[e]));
        __syncthreads();
        if (computed)
            prev[tx] = next[tx];
        __syncthreads();
    }
    if (computed)
        dst[c] = prev[tx];
}
