// Bitonic sort of unsigned keys, in place, one segment of 2 * blockDim.x keys per CTA (Batcher's
// network): the CTA loads its segment into shared memory (coalesced; keys past n are padded
// with 0xffffffff so that they sort last), runs the log2(m) * (log2(m) + 1) / 2 compare-exchange
// steps of the network on it, each thread one pair per step with a barrier between steps
// (pairs j apart: conflict-free for j >= 32, lanes two words apart below), and stores back the
// keys that were inside [0, n).
#define MAX_KEYS 2048
__shared__ unsigned int seg[MAX_KEYS];

__global__ void bitonic_sort_segments(unsigned int* keys, int n)
{
    const int t = threadIdx.x;
    const int m = 2 * blockDim.x; // keys per segment (a power of two)
    const int base = blockIdx.x * m;
    seg[t] = base + t < n ? keys[base + t] : 0xffffffffu;
    seg[t + blockDim.x] = base + t + blockDim.x < n ? keys[base + t + blockDim.x] : 0xffffffffu;
    for (int k = 2; k <= m; k *= 2) {     // bitonic runs of k keys are merged ...
        for (int j = k / 2; j > 0; j /= 2) { // ... by half-cleaners of span j
            __syncthreads();
            const int i = (t / j) * 2 * j + t % j; // t-th pair: i and i + j
            const unsigned int a = seg[i], b = seg[i + j];
            const bool up = (i & k) == 0; // ascending in even k-blocks, descending in odd
            if ((a > b) == up) {
                seg[i] = b;
                seg[i + j] = a;
            }
        }
    }
    __syncthreads();
    if (base + t < n)
        keys[base + t] = seg[t];
    if (base + t + blockDim.x < n)
        keys[base + t + blockDim.x] = seg[t + blockDim.x];
}
