// L1 misses per CUDA line (docs/outputs.md, "Source profile"): line 9 streams (each warp reads
// a line of `in` no one else reads: all misses), line 11 re-reads the one 128-byte line of
// `tab` (a miss at an SM's first read, hits or merges after it).
__global__ void l1_reuse(const float* in, const float* tab, float* out, int reps, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = in[i];
    for (int r = 0; r < reps; ++r)
        s += tab[(threadIdx.x + r) & 31];
    out[i] = s;
}
