// Exclusive prefix sum of n unsigned ints (out[i] = in[0] + ... + in[i-1], mod 2^32), in three
// kernels (Blelloch's work-efficient scan):
//   scan_blocks: each CTA of B threads scans a segment of 2B elements in shared memory (an
//     up-sweep building a sum tree in place, then a down-sweep), writes the segment's exclusive
//     scan to out and its total to sums[CTA]; coalesced loads and stores, log2(2B) barriers
//     per sweep, shared indices padded by one word per 32 against bank conflicts;
//   scan_sums: one CTA scans the CTA totals the same way, segment after segment with a carry;
//   add_sums: out[i] += sums[i / 2B] (a broadcast load of one word per segment).
#define PAD(i) ((i) + ((i) >> 5))

// Scans the 2 * blockDim.x words of s (padded) in place, exclusive; returns the total (in
// every thread).
__device__ unsigned int scan_shared(unsigned int* s)
{
    const int t = threadIdx.x;
    const int m = 2 * blockDim.x;
    int offset = 1;
    for (int d = m >> 1; d > 0; d >>= 1) { // up-sweep: s[r] = sum of its subtree
        __syncthreads();
        if (t < d) {
            const int l = offset * (2 * t + 1) - 1;
            const int r = offset * (2 * t + 2) - 1;
            s[PAD(r)] += s[PAD(l)];
        }
        offset *= 2;
    }
    __syncthreads();
    const unsigned int total = s[PAD(m - 1)];
    __syncthreads();
    if (t == 0)
        s[PAD(m - 1)] = 0;
    for (int d = 1; d < m; d *= 2) { // down-sweep: left child gets the parent's prefix
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            const int l = offset * (2 * t + 1) - 1;
            const int r = offset * (2 * t + 2) - 1;
            const unsigned int left = s[PAD(l)];
            s[PAD(l)] = s[PAD(r)];
            s[PAD(r)] += left;
        }
    }
    __syncthreads();
    return total;
}

#define MAX_THREADS 512
__shared__ unsigned int tile[PAD(2 * MAX_THREADS)];

__global__ void scan_blocks(const unsigned int* in, unsigned int* out, unsigned int* sums, int n)
{
    const int t = threadIdx.x;
    const int base = 2 * blockIdx.x * blockDim.x;
    const int a = base + t, b = base + t + blockDim.x;
    tile[PAD(t)] = a < n ? in[a] : 0;
    tile[PAD(t + blockDim.x)] = b < n ? in[b] : 0;
    const unsigned int total = scan_shared(tile);
    if (a < n)
        out[a] = tile[PAD(t)];
    if (b < n)
        out[b] = tile[PAD(t + blockDim.x)];
    if (t == 0)
        sums[blockIdx.x] = total;
}

// One CTA: sums[0..count) becomes its exclusive scan.
__global__ void scan_sums(unsigned int* sums, int count)
{
    const int t = threadIdx.x;
    unsigned int carry = 0;
    for (int base = 0; base < count; base += 2 * blockDim.x) {
        const int a = base + t, b = base + t + blockDim.x;
        tile[PAD(t)] = a < count ? sums[a] : 0;
        tile[PAD(t + blockDim.x)] = b < count ? sums[b] : 0;
        const unsigned int total = scan_shared(tile);
        if (a < count)
            sums[a] = tile[PAD(t)] + carry;
        if (b < count)
            sums[b] = tile[PAD(t + blockDim.x)] + carry;
        carry += total;
    }
}

// CTAs of blockDim.x threads, each adding its segment's offset to 2 * blockDim.x elements.
__global__ void add_sums(unsigned int* out, const unsigned int* sums, int n)
{
    const int base = 2 * blockIdx.x * blockDim.x;
    const unsigned int add = sums[blockIdx.x];
    const int a = base + threadIdx.x, b = base + threadIdx.x + blockDim.x;
    if (a < n)
        out[a] += add;
    if (b < n)
        out[b] += add;
}
