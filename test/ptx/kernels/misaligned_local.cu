// A 32-bit load from a local array at a byte offset read from data (in[t] & 7): lanes whose
// offset is not a multiple of 4 fault (misaligned). Test: test/ptx/test_ptx_local.cpp.
__global__ void misaligned_local(const unsigned* in, unsigned* out, int n)
{
    unsigned buf[8];
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < 8; ++i)
        buf[i] = in[t] + i;
    const unsigned off = in[t] & 7;
    out[t] = *(const unsigned*)((const char*)buf + off);
}
