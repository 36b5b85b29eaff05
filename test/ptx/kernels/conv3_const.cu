// Three taps from constant memory in one basic block (issue 36 item 4): clang loads w3[0],
// w3[1], w3[2] with three scalar ld.const at consecutive immediate offsets, which the
// translator merges into one bulk CDL of 3 dwords (and a SHFL.IDX per tap).
__constant__ float w3[3];

__global__ void conv3_const(const float* in, float* out, int n) // in has n + 2 elements
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = w3[0] * in[i] + w3[1] * in[i + 1] + w3[2] * in[i + 2];
}
