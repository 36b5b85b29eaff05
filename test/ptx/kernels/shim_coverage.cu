// Every device-side name of the shim, used once, so that a change that breaks one shows (the
// kernel must compile and call nothing but vprintf).
#include <cuda_runtime.h>

__constant__ float c_table[16];

__device__ float sum_float_math(const float* f)
{
    return expf(f[1]) + exp2f(f[2]) + exp10f(f[3]) + expm1f(f[4]) + logf(f[5]) + log2f(f[6]) +
           log10f(f[7]) + log1pf(f[8]) + powf(f[9], f[10]) + sqrtf(f[11]) + rsqrtf(f[12]) +
           cbrtf(f[13]) + sinf(f[14]) + cosf(f[15]) + tanf(f[16]) + tanhf(f[17]) + sinhf(f[18]) +
           coshf(f[19]) + fabsf(f[20]) + fminf(f[21], f[22]) + fmaxf(f[23], f[24]) +
           floorf(f[25]) + ceilf(f[26]) + truncf(f[27]) + roundf(f[28]) + rintf(f[29]) +
           copysignf(f[30], f[31]) + fmaf(f[32], f[33], f[34]) + ldexpf(f[35], 3) +
           fdimf(f[36], f[37]) + nearbyintf(f[38]) + pow(f[39], 2) + std::exp(f[40]) +
           std::sqrt(f[41]) + min(f[42], f[43]) + max(f[44], f[45]);
}

__device__ double sum_double_math(const double* d)
{
    return exp(d[1]) + exp2(d[2]) + expm1(d[3]) + log(d[4]) + log2(d[5]) + log10(d[6]) +
           log1p(d[7]) + pow(d[8], d[9]) + pow(d[10], 3) + sqrt(d[11]) + rsqrt(d[12]) + sin(d[13]) +
           cos(d[14]) + tan(d[15]) + tanh(d[16]) + sinh(d[17]) + cosh(d[18]) + fabs(d[19]) +
           fmin(d[20], d[21]) + fmax(d[22], d[23]) + floor(d[24]) + ceil(d[25]) + trunc(d[26]) +
           round(d[27]) + rint(d[28]) + copysign(d[29], d[30]) + fma(d[31], d[32], d[33]) +
           ldexp(d[34], 2) + std::log(d[35]) + std::pow(d[36], d[37]) + min(d[38], d[39]);
}

__device__ float sum_intrinsics(const float* f, const int* i, const unsigned* u)
{
    float s = __expf(f[0]) + __exp10f(f[1]) + __logf(f[2]) + __log2f(f[3]) + __log10f(f[4]) +
              __powf(f[5], f[6]) + __sinf(f[7]) + __cosf(f[8]) + __tanf(f[9]) +
              __fdividef(f[10], f[11]) + __frcp_rn(f[12]) + __fsqrt_rn(f[13]) +
              __frsqrt_rn(f[14]) + __fadd_rn(f[15], f[16]) + __fmul_rn(f[17], f[18]) +
              __fmaf_rn(f[19], f[20], f[21]) + __fdiv_rn(f[22], f[23]) + __saturatef(f[24]);
    float sn, cs;
    __sincosf(f[25], &sn, &cs);
    sincosf(f[26], &sn, &cs);
    s += sn + cs + __int_as_float(i[0]) + __uint_as_float(u[0]) + __int2float_rn(i[1]) +
         __uint2float_rn(u[1]);
    int k = __float_as_int(f[27]) + (int)__float_as_uint(f[28]) + __float2int_rn(f[29]) +
            __float2int_rz(f[30]) + __float2int_rd(f[31]) + __float2int_ru(f[32]) +
            (int)__float2uint_rn(f[33]) + (int)__float2uint_rz(f[34]);
    k += __popc(u[2]) + __popcll(u[3]) + __clz(i[2]) + __clzll(i[3]) + (int)__brev(u[4]) +
         (int)__brevll(u[5]) + __ffs(i[4]) + __ffsll(i[5]) + __mulhi(i[6], i[7]) +
         (int)__umulhi(u[6], u[7]) + (int)__mul64hi(i[8], i[9]) + (int)__umul64hi(u[8], u[9]) +
         __mul24(i[10], i[11]) + (int)__umul24(u[10], u[11]) + (int)__sad(i[12], i[13], u[12]) +
         (int)__usad(u[13], u[14], u[15]) + (int)__byte_perm(u[16], u[17], u[18]) +
         min(i[14], i[15]) + max(i[16], u[19]) + abs(i[17]);
    return s + (float)k;
}

__global__ void __launch_bounds__(256, 2)
    shim_coverage(float* f, double* d, int* i, unsigned* u, unsigned long long* ull)
{
    __shared__ float tile[256];
    const int t = threadIdx.x + blockIdx.x * blockDim.x + blockIdx.y * gridDim.x +
                  threadIdx.z * blockDim.y * gridDim.y + warpSize;
    tile[threadIdx.x] = f[t] + c_table[t & 15] + __ldg(&f[t + 1]);
    __syncthreads();
    f[0] = sum_float_math(f) + tile[(threadIdx.x + 1) & 255];
    d[0] = sum_double_math(d);
    f[1] = sum_intrinsics(f, i, u);
    atomicAdd(&f[2], 1.0f);
    atomicAdd(&d[2], 1.0);
    atomicAdd(&i[20], 1);
    atomicAdd(&u[20], 1u);
    atomicAdd(&ull[0], 1ull);
    atomicSub(&i[21], 1);
    atomicExch(&i[22], 2);
    atomicExch(&f[3], 2.0f);
    atomicMin(&i[23], 3);
    atomicMax(&u[21], 3u);
    atomicInc(&u[22], 9u);
    atomicDec(&u[23], 9u);
    atomicCAS(&i[24], 1, 2);
    atomicCAS(&ull[1], 1ull, 2ull);
    atomicAnd(&u[24], 6u);
    atomicOr(&u[25], 6u);
    atomicXor(&u[26], 6u);
    float v = __shfl_sync(0xffffffffu, f[t], 0) + __shfl_up_sync(0xffffffffu, f[t], 1) +
              __shfl_down_sync(0xffffffffu, f[t], 2, 16) + __shfl_xor_sync(0xffffffffu, f[t], 4);
    double dv = __shfl_down_sync(0xffffffffu, d[t], 1);
    u[30] = __ballot_sync(0xffffffffu, v > 0.0f) + __all_sync(0xffffffffu, v > 1.0f) +
            __any_sync(0xffffffffu, v > 2.0f) + __uni_sync(0xffffffffu, v > 3.0f) +
            __activemask() + __syncthreads_count(v > 0.0f) + __syncthreads_and(v > 1.0f) +
            __syncthreads_or(v > 2.0f);
    __syncwarp();
    __threadfence_block();
    __threadfence();
    __threadfence_system();
    d[3] = dv + (double)clock64() + clock() + __laneid();
    if (t == 0)
        printf("v=%f\n", v);
}
