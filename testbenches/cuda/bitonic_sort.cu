// Bitonic sort of unsigned keys in place (Batcher's network), in segments of m = 2 * blockDim.x
// keys in shared memory and, for a whole array of a power-of-two length, across segments with
// one launch per step:
//   bitonic_sort_segments: each CTA loads its segment into shared memory (coalesced; keys past
//     n are padded with 0xffffffff so that they sort last), runs the log2(m) (log2(m) + 1) / 2
//     compare-exchange steps of the network on it, each thread one pair per step with a
//     barrier between steps (pairs j apart: conflict-free for j >= 32, lanes two words apart
//     below), and stores back the keys inside [0, n). alternate = 0: every segment ascending;
//     1: odd segments descending, the first stage of the whole-array network;
//   bitonic_step: the host loop's step of the whole-array network, (k, j) = (state[0],
//     state[1]): for j >= m one compare-exchange of keys j apart in global memory per thread
//     (two coalesced loads and stores per pair); for j < m the remaining steps j = m/2 .. 1 of
//     stage k inside each segment, in shared memory;
//   bitonic_advance: one thread moves (k, j) to the next launch and clears state[2] when the
//     network is done (the host reads it between passes).
#define MAX_KEYS 2048
__shared__ unsigned int seg[MAX_KEYS];

// Steps j = jstart, jstart/2, .., 1 of stage k on the segment in seg (global index base + i
// decides the direction), with a barrier before each.
__device__ void merge_shared(int base, int k, int jstart)
{
    const int t = threadIdx.x;
    for (int j = jstart; j > 0; j /= 2) {
        __syncthreads();
        const int i = (t / j) * 2 * j + t % j; // t-th pair: i and i + j
        const unsigned int a = seg[i], b = seg[i + j];
        const bool up = ((base + i) & k) == 0; // ascending in even k-blocks
        if ((a > b) == up) {
            seg[i] = b;
            seg[i + j] = a;
        }
    }
    __syncthreads();
}

__device__ void load_segment(const unsigned int* keys, int base, int n)
{
    const int t = threadIdx.x;
    seg[t] = base + t < n ? keys[base + t] : 0xffffffffu;
    seg[t + blockDim.x] = base + t + blockDim.x < n ? keys[base + t + blockDim.x] : 0xffffffffu;
}

__device__ void store_segment(unsigned int* keys, int base, int n)
{
    const int t = threadIdx.x;
    if (base + t < n)
        keys[base + t] = seg[t];
    if (base + t + blockDim.x < n)
        keys[base + t + blockDim.x] = seg[t + blockDim.x];
}

__global__ void bitonic_sort_segments(unsigned int* keys, int n, int alternate)
{
    const int m = 2 * blockDim.x; // keys per segment (a power of two)
    const int base = blockIdx.x * m;
    load_segment(keys, base, n);
    for (int k = 2; k <= m; k *= 2) // bitonic runs of k keys merged by half-cleaners
        merge_shared(alternate ? base : 0, k, k / 2);
    store_segment(keys, base, n);
}

// n a power of two, a multiple of m; one thread per pair for j >= m (n / 2 threads), one CTA
// per segment below.
__global__ void bitonic_step(unsigned int* keys, const unsigned int* state, int n)
{
    const int k = state[0], j = state[1];
    const int m = 2 * blockDim.x;
    if (j >= m) {
        const int t = blockIdx.x * blockDim.x + threadIdx.x;
        const int i = (t / j) * 2 * j + t % j;
        if (i + j < n) {
            const unsigned int a = keys[i], b = keys[i + j];
            if ((a > b) == ((i & k) == 0)) {
                keys[i] = b;
                keys[i + j] = a;
            }
        }
    } else {
        const int base = blockIdx.x * m;
        load_segment(keys, base, n);
        merge_shared(base, k, j);
        store_segment(keys, base, n);
    }
}

__global__ void bitonic_advance(unsigned int* state, int n, int m)
{
    unsigned int k = state[0], j = state[1];
    if (j >= (unsigned int)m) {
        j /= 2; // the next global step, or the in-segment rest (j < m)
    } else {
        k *= 2; // the next stage starts at j = k / 2
        j = k / 2;
    }
    state[0] = k;
    state[1] = j;
    state[2] = k <= (unsigned int)n;
}
