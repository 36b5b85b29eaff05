// Volta's convergence (issue 36 item 3): in a loop of `iters` iterations lane l shuffles and
// reaches __syncthreads in iteration (l + 1) & 1 only, so the odd lanes of a warp arrive there
// in iteration 0 and the even lanes in iteration 1; they meet there (independent thread
// scheduling), and with iters = 2 every thread reads v of thread tid ^ 1.
__global__ void converge_loop(int* out, int iters)
{
    const unsigned lane = threadIdx.x & 31;
    int v = 10 * static_cast<int>(threadIdx.x);
    unsigned turn = lane; // odd in the iterations where this lane shuffles
#pragma unroll 1
    for (int k = 0; k < iters; ++k, ++turn) {
        if ((turn & 1u) != 0) {
            v = __shfl_sync(0xffffffffu, v, static_cast<int>(lane ^ 1));
            __syncthreads();
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
