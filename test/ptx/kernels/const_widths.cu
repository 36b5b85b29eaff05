// Constant loads of every element width (issue 36): bytes and half-words, signed and unsigned,
// 64-bit integers and doubles, at per-thread and fixed offsets. The tables' initialisers are
// the constant bank's contents.
__constant__ unsigned char cu8[8] = {1, 200, 3, 255, 5, 128, 7, 127};
__constant__ signed char cs8[8] = {-1, 100, -128, 127, 0, -7, 9, -100};
__constant__ unsigned short cu16[4] = {1, 65535, 32768, 12345};
__constant__ short cs16[4] = {-1, 32767, -32768, -12345};
__constant__ long long c64[4] = {-1, 0x123456789abcdefLL, -0x7000000000000000LL, 42};
__constant__ double cf64[4] = {1.5, -0.1, 1e300, -3.25};

__global__ void const_widths(int* out_i, long long* out_l, double* out_d, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out_i[4 * i + 0] = cu8[i & 7] + cu8[3];
    out_i[4 * i + 1] = cs8[i & 7] * 3 + cs8[2];
    out_i[4 * i + 2] = cu16[i & 3] + cu16[1];
    out_i[4 * i + 3] = cs16[i & 3] - cs16[2];
    out_l[i] = c64[i & 3] * 3 + c64[1];
    out_d[i] = cf64[i & 3] - cf64[1];
}
