// Gather: out[i] = in[idx[i]], an indirect (uncoalesced) load per thread.
__global__ void gather(const float* in, const int* idx, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[idx[i]];
}
