// k-means over n points of d f32 features and k clusters (Lloyd's algorithm), one launch per
// step as a host program runs it:
//   kmeans_points      generates the input: point i belongs to cluster c = i mod k and has
//                      feature f = spacing * (c d + f + 1) + noise[f n + i] (one f32 rounding),
//                      the initial centroids are points 0..k-1 (one per cluster);
//   per iteration:
//   kmeans_assign      assignment: point i -> the nearest centroid (squared distance, ties to
//                      the lowest index); also clears the sums and counts of the update;
//   kmeans_accumulate  update, part 1: per-cluster feature sums and point counts, first in
//                      shared memory (shared atomics), then one global atomic per CTA and entry;
//   kmeans_divide      update, part 2: centroid = sum / count (an empty cluster keeps its
//                      centroid).
//
// Memory behaviour: points are feature-major (pts[f * n + i]), so a warp's loads of one feature
// are coalesced. kmeans_assign keeps the k x d centroids in dynamic shared memory (every lane
// reads the same word: a broadcast) and reads each point's d features once per centroid (the
// repeats hit in L1). kmeans_accumulate contends on k x d + k shared words (all the lanes of a
// warp whose points share a cluster add to the same word), then adds k x d + k words per CTA
// to global memory with float and integer atomics. kmeans_divide is a tiny elementwise kernel.

__global__ void kmeans_points(const float* noise, float* pts, float* cent, int n, int d, int k,
                              float spacing)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int c = i % k;
    for (int f = 0; f < d; ++f) {
        const float v = spacing * (float)(c * d + f + 1) + noise[f * n + i];
        pts[f * n + i] = v;
        if (i < k)
            cent[i * d + f] = v;
    }
}

__global__ void kmeans_assign(const float* pts, const float* cent, unsigned* assign, float* sums,
                              unsigned* counts, int n, int d, int k)
{
    extern __shared__ float cs[];
    for (int t = threadIdx.x; t < k * d; t += blockDim.x)
        cs[t] = cent[t];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k * d)
        sums[i] = 0.0f;
    if (i < k)
        counts[i] = 0;
    __syncthreads();
    if (i >= n)
        return;
    int best = 0;
    float bestd = 3.402823466e38f;
    for (int c = 0; c < k; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < d; ++f) {
            const float diff = pts[f * n + i] - cs[c * d + f];
            dist += diff * diff;
        }
        if (dist < bestd) {
            bestd = dist;
            best = c;
        }
    }
    assign[i] = best;
}

__global__ void kmeans_accumulate(const float* pts, const unsigned* assign, float* sums,
                                  unsigned* counts, int n, int d, int k)
{
    extern __shared__ float sh[]; // k * d sums, then k counts
    float* ssum = sh;
    unsigned* scount = (unsigned*)(sh + k * d);
    for (int t = threadIdx.x; t < k * d + k; t += blockDim.x)
        sh[t] = 0.0f;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const unsigned c = assign[i];
        for (int f = 0; f < d; ++f)
            atomicAdd(&ssum[c * d + f], pts[f * n + i]);
        atomicAdd(&scount[c], 1u);
    }
    __syncthreads();
    for (int t = threadIdx.x; t < k * d; t += blockDim.x)
        atomicAdd(&sums[t], ssum[t]);
    for (int t = threadIdx.x; t < k; t += blockDim.x)
        if (scount[t] != 0)
            atomicAdd(&counts[t], scount[t]);
}

__global__ void kmeans_divide(const float* sums, const unsigned* counts, float* cent, int d, int k)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= k * d)
        return;
    const unsigned cnt = counts[t / d];
    if (cnt != 0)
        cent[t] = sums[t] / (float)cnt;
}
