// Local memory: per-thread arrays indexed by data, which clang keeps in the local depot
// (`__local_depot0`, ld/st.local of words and bytes). Reference: test/ptx/test_ptx_local.cpp.
__global__ void local_bins(const unsigned* in, unsigned* out, int n)
{
    unsigned bins[8];
    unsigned char tag[4];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    for (int i = 0; i < 8; ++i)
        bins[i] = i;
    const unsigned w = in[t];
    for (int i = 0; i < 4; ++i)
        tag[i] = (unsigned char)(w >> (8 * i));
    for (int j = 0; j < 16; ++j) {
        const unsigned v = in[(t + j) % n];
        bins[v & 7] += v >> 3;
    }
    out[t] = bins[w % 8] + tag[(w >> 5) & 3];
}
