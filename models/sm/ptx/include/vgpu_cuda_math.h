// vgpu CUDA shim, device math: integer and float intrinsics, the fast math intrinsics and the
// math library (float and double overloads), written on NVVM and clang builtins. See docs/cuda.md.
#pragma once

#include "vgpu_cuda_device.h"

#include <math.h>
#include <stdlib.h>
#ifdef __cplusplus
#include <cmath>
#include <cstdlib>
#endif

// ---- bit casts and conversions ----
__VGPU_DEV int __float_as_int(float x)
{
    return __nvvm_bitcast_f2i(x);
}
__VGPU_DEV unsigned __float_as_uint(float x)
{
    return (unsigned)__nvvm_bitcast_f2i(x);
}
__VGPU_DEV float __int_as_float(int x)
{
    return __nvvm_bitcast_i2f(x);
}
__VGPU_DEV float __uint_as_float(unsigned x)
{
    return __nvvm_bitcast_i2f((int)x);
}
__VGPU_DEV long long __double_as_longlong(double x)
{
    return __nvvm_bitcast_d2ll(x);
}
__VGPU_DEV double __longlong_as_double(long long x)
{
    return __nvvm_bitcast_ll2d(x);
}
__VGPU_DEV int __float2int_rn(float x)
{
    return __nvvm_f2i_rn(x);
}
__VGPU_DEV int __float2int_rz(float x)
{
    return __nvvm_f2i_rz(x);
}
__VGPU_DEV int __float2int_rd(float x)
{
    return __nvvm_f2i_rm(x);
}
__VGPU_DEV int __float2int_ru(float x)
{
    return __nvvm_f2i_rp(x);
}
__VGPU_DEV unsigned __float2uint_rn(float x)
{
    return __nvvm_f2ui_rn(x);
}
__VGPU_DEV unsigned __float2uint_rz(float x)
{
    return __nvvm_f2ui_rz(x);
}
__VGPU_DEV float __int2float_rn(int x)
{
    return __nvvm_i2f_rn(x);
}
__VGPU_DEV float __uint2float_rn(unsigned x)
{
    return __nvvm_ui2f_rn(x);
}
__VGPU_DEV float __double2float_rn(double x)
{
    return __nvvm_d2f_rn(x);
}
__VGPU_DEV int __double2int_rn(double x)
{
    return __nvvm_d2i_rn(x);
}

// ---- integer intrinsics ----
__VGPU_DEV int __popc(unsigned x)
{
    return __builtin_popcount(x);
}
__VGPU_DEV int __popcll(unsigned long long x)
{
    return __builtin_popcountll(x);
}
__VGPU_DEV int __clz(int x)
{
    return x == 0 ? 32 : __builtin_clz((unsigned)x);
}
__VGPU_DEV int __clzll(long long x)
{
    return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
__VGPU_DEV unsigned __brev(unsigned x)
{
    return __builtin_bitreverse32(x);
}
__VGPU_DEV unsigned long long __brevll(unsigned long long x)
{
    return __builtin_bitreverse64(x);
}
__VGPU_DEV int __ffs(int x)
{
    return x == 0 ? 0 : __builtin_ctz((unsigned)x) + 1;
}
__VGPU_DEV int __ffsll(long long x)
{
    return x == 0 ? 0 : __builtin_ctzll((unsigned long long)x) + 1;
}
__VGPU_DEV int __mulhi(int a, int b)
{
    return __nvvm_mulhi_i(a, b);
}
__VGPU_DEV unsigned __umulhi(unsigned a, unsigned b)
{
    return __nvvm_mulhi_ui(a, b);
}
__VGPU_DEV long long __mul64hi(long long a, long long b)
{
    return __nvvm_mulhi_ll(a, b);
}
__VGPU_DEV unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return __nvvm_mulhi_ull(a, b);
}
__VGPU_DEV int __mul24(int a, int b)
{
    return __nvvm_mul24_i(a, b);
}
__VGPU_DEV unsigned __umul24(unsigned a, unsigned b)
{
    return __nvvm_mul24_ui(a, b);
}
__VGPU_DEV unsigned __sad(int a, int b, unsigned c)
{
    return __nvvm_sad_i(a, b, c);
}
__VGPU_DEV unsigned __usad(unsigned a, unsigned b, unsigned c)
{
    return __nvvm_sad_ui(a, b, c);
}
__VGPU_DEV unsigned __byte_perm(unsigned a, unsigned b, unsigned s)
{
    return __nvvm_prmt(a, b, s);
}
// min and max are host and device functions, with the mixed-signedness forms of the runtime
#define __VGPU_MINMAX(R, A, B)                                                                     \
    __VGPU_HD R min(A a, B b)                                                                      \
    {                                                                                              \
        return (R)a < (R)b ? (R)a : (R)b;                                                          \
    }                                                                                              \
    __VGPU_HD R max(A a, B b)                                                                      \
    {                                                                                              \
        return (R)a > (R)b ? (R)a : (R)b;                                                          \
    }
__VGPU_MINMAX(int, int, int)
__VGPU_MINMAX(unsigned, unsigned, unsigned)
__VGPU_MINMAX(unsigned, int, unsigned)
__VGPU_MINMAX(unsigned, unsigned, int)
__VGPU_MINMAX(long, long, long)
__VGPU_MINMAX(unsigned long, unsigned long, unsigned long)
__VGPU_MINMAX(unsigned long, long, unsigned long)
__VGPU_MINMAX(unsigned long, unsigned long, long)
__VGPU_MINMAX(long long, long long, long long)
__VGPU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__VGPU_MINMAX(unsigned long long, long long, unsigned long long)
__VGPU_MINMAX(unsigned long long, unsigned long long, long long)
#undef __VGPU_MINMAX
__VGPU_DEV float min(float a, float b)
{
    return __nvvm_fmin_f(a, b);
}
__VGPU_DEV float max(float a, float b)
{
    return __nvvm_fmax_f(a, b);
}
__VGPU_DEV double min(double a, double b)
{
    return __nvvm_fmin_d(a, b);
}
__VGPU_DEV double max(double a, double b)
{
    return __nvvm_fmax_d(a, b);
}
__VGPU_DEV double min(float a, double b)
{
    return __nvvm_fmin_d(a, b);
}
__VGPU_DEV double max(float a, double b)
{
    return __nvvm_fmax_d(a, b);
}
__VGPU_DEV double min(double a, float b)
{
    return __nvvm_fmin_d(a, b);
}
__VGPU_DEV double max(double a, float b)
{
    return __nvvm_fmax_d(a, b);
}

// ---- float intrinsics: rounding-mode arithmetic and the fast approximations ----
__VGPU_DEV float __fadd_rn(float a, float b)
{
    return __nvvm_add_rn_f(a, b);
}
__VGPU_DEV float __fadd_rz(float a, float b)
{
    return __nvvm_add_rz_f(a, b);
}
__VGPU_DEV float __fmul_rn(float a, float b)
{
    return __nvvm_mul_rn_f(a, b);
}
__VGPU_DEV float __fmul_rz(float a, float b)
{
    return __nvvm_mul_rz_f(a, b);
}
__VGPU_DEV float __fmaf_rn(float a, float b, float c)
{
    return __nvvm_fma_rn_f(a, b, c);
}
__VGPU_DEV float __fdiv_rn(float a, float b)
{
    return __nvvm_div_rn_f(a, b);
}
__VGPU_DEV float __frcp_rn(float a)
{
    return __nvvm_rcp_rn_f(a);
}
__VGPU_DEV float __fsqrt_rn(float a)
{
    return __nvvm_sqrt_rn_f(a);
}
__VGPU_DEV float __frsqrt_rn(float a)
{
    return __nvvm_rcp_rn_f(__nvvm_sqrt_rn_f(a));
}
__VGPU_DEV float __saturatef(float a)
{
    return __nvvm_saturate_f(a);
}
__VGPU_DEV float __fdividef(float a, float b)
{
    return __nvvm_div_approx_f(a, b);
}
__VGPU_DEV float __expf(float x)
{
    return __nvvm_ex2_approx_ftz_f(x * 1.4426950408889634f);
}
__VGPU_DEV float __exp10f(float x)
{
    return __nvvm_ex2_approx_ftz_f(x * 3.3219280948873623f);
}
__VGPU_DEV float __log2f(float x)
{
    return __nvvm_lg2_approx_ftz_f(x);
}
__VGPU_DEV float __logf(float x)
{
    return __nvvm_lg2_approx_ftz_f(x) * 0.6931471805599453f;
}
__VGPU_DEV float __log10f(float x)
{
    return __nvvm_lg2_approx_ftz_f(x) * 0.3010299956639812f;
}
__VGPU_DEV float __powf(float x, float y)
{
    return __nvvm_ex2_approx_ftz_f(y * __nvvm_lg2_approx_ftz_f(x));
}
__VGPU_DEV float __sinf(float x)
{
    return __nvvm_sin_approx_ftz_f(x);
}
__VGPU_DEV float __cosf(float x)
{
    return __nvvm_cos_approx_ftz_f(x);
}
__VGPU_DEV float __tanf(float x)
{
    return __nvvm_div_approx_f(__nvvm_sin_approx_ftz_f(x), __nvvm_cos_approx_ftz_f(x));
}
__VGPU_DEV void __sincosf(float x, float* s, float* c)
{
    *s = __sinf(x);
    *c = __cosf(x);
}
__VGPU_DEV double __dadd_rn(double a, double b)
{
    return __nvvm_add_rn_d(a, b);
}
__VGPU_DEV double __dmul_rn(double a, double b)
{
    return __nvvm_mul_rn_d(a, b);
}
__VGPU_DEV double __fma_rn(double a, double b, double c)
{
    return __nvvm_fma_rn_d(a, b, c);
}
__VGPU_DEV double __ddiv_rn(double a, double b)
{
    return __nvvm_div_rn_d(a, b);
}
__VGPU_DEV double __drcp_rn(double a)
{
    return __nvvm_rcp_rn_d(a);
}
__VGPU_DEV double __dsqrt_rn(double a)
{
    return __nvvm_sqrt_rn_d(a);
}

// ---- math library, float ----
__VGPU_DEV float fabsf(float x)
{
    return __nvvm_fabs_f(x);
}
__VGPU_DEV float fminf(float a, float b)
{
    return __nvvm_fmin_f(a, b);
}
__VGPU_DEV float fmaxf(float a, float b)
{
    return __nvvm_fmax_f(a, b);
}
__VGPU_DEV float floorf(float x)
{
    return __nvvm_floor_f(x);
}
__VGPU_DEV float ceilf(float x)
{
    return __nvvm_ceil_f(x);
}
__VGPU_DEV float truncf(float x)
{
    return __nvvm_trunc_f(x);
}
__VGPU_DEV float rintf(float x)
{
    return __builtin_rintf(x);
}
__VGPU_DEV float nearbyintf(float x)
{
    return __builtin_rintf(x);
}
__VGPU_DEV float roundf(float x)
{
    // half-way cases away from zero; x - trunc(x) is exact
    const float t = __nvvm_trunc_f(x);
    return __nvvm_fabs_f(x - t) >= 0.5f ? t + __builtin_copysignf(1.0f, x) : t;
}
__VGPU_DEV float copysignf(float a, float b)
{
    return __builtin_copysignf(a, b);
}
__VGPU_DEV float fmaf(float a, float b, float c)
{
    return __nvvm_fma_rn_f(a, b, c);
}
__VGPU_DEV float sqrtf(float x)
{
    return __nvvm_sqrt_rn_f(x);
}
__VGPU_DEV float rsqrtf(float x)
{
    return __nvvm_rsqrt_approx_f(x);
}
__VGPU_DEV float cbrtf(float x);
__VGPU_DEV float fdimf(float a, float b)
{
    return a > b ? a - b : 0.0f;
}
__VGPU_DEV float exp2f(float x)
{
    return __nvvm_ex2_approx_f(x);
}
__VGPU_DEV float log2f(float x)
{
    return __nvvm_lg2_approx_f(x);
}
__VGPU_DEV float ldexpf(float x, int n)
{
    // two steps keep 2^n representable for n down to -252 and up to 254
    const int h = n / 2;
    return x * __int_as_float((h + 127) << 23) * __int_as_float((n - h + 127) << 23);
}
__VGPU_DEV float expf(float x)
{
    if (x > 88.7228394f)
        return __int_as_float(0x7f800000);
    if (x < -103.972084f)
        return 0.0f;
    const float n = __builtin_rintf(x * 1.44269504f);
    float r = __nvvm_fma_rn_f(-n, 0.693145752f, x); // ln2 high part (exact product)
    r = __nvvm_fma_rn_f(-n, 1.42860677e-6f, r);     // ln2 low part
    float p = 1.0f / 5040.0f;
    p = __nvvm_fma_rn_f(p, r, 1.0f / 720.0f);
    p = __nvvm_fma_rn_f(p, r, 1.0f / 120.0f);
    p = __nvvm_fma_rn_f(p, r, 1.0f / 24.0f);
    p = __nvvm_fma_rn_f(p, r, 1.0f / 6.0f);
    p = __nvvm_fma_rn_f(p, r, 0.5f);
    p = __nvvm_fma_rn_f(p, r, 1.0f);
    p = __nvvm_fma_rn_f(p, r, 1.0f);
    return ldexpf(p, (int)n);
}
__VGPU_DEV float expm1f(float x)
{
    return __nvvm_fabs_f(x) < 1e-5f ? x + 0.5f * x * x : expf(x) - 1.0f;
}
__VGPU_DEV float exp10f(float x)
{
    return expf(x * 2.30258509f);
}
__VGPU_DEV float logf(float x)
{
    if (!(x > 0.0f))
        return x == 0.0f ? -__int_as_float(0x7f800000) : __int_as_float(0x7fffffff);
    if (x == __int_as_float(0x7f800000))
        return x;
    int e = 0;
    if (x < 1.17549435e-38f) { // denormal: scale into the normal range
        x *= 8388608.0f;
        e = -23;
    }
    const int bits = __float_as_int(x);
    e += ((bits >> 23) & 0xff) - 127;
    float m = __int_as_float((bits & 0x007fffff) | 0x3f800000);
    if (m > 1.41421356f) {
        m *= 0.5f;
        ++e;
    }
    const float f = m - 1.0f;
    const float s = f / (2.0f + f);
    const float s2 = s * s;
    float p = 1.0f / 9.0f;
    p = __nvvm_fma_rn_f(p, s2, 1.0f / 7.0f);
    p = __nvvm_fma_rn_f(p, s2, 1.0f / 5.0f);
    p = __nvvm_fma_rn_f(p, s2, 1.0f / 3.0f);
    const float lm = f - s * (f - 2.0f * p * s2); // 2 atanh(s) = f - s (f - 2 s^2 P)
    const float fe = (float)e;
    return __nvvm_fma_rn_f(fe, 0.693145752f, __nvvm_fma_rn_f(fe, 1.42860677e-6f, lm));
}
__VGPU_DEV float log10f(float x)
{
    return logf(x) * 0.434294482f;
}
__VGPU_DEV float log1pf(float x)
{
    return __nvvm_fabs_f(x) < 1e-4f ? x - 0.5f * x * x : logf(1.0f + x);
}
__VGPU_DEV float __vgpu_sin_poly(float r)
{
    const float r2 = r * r;
    float p = 2.75573192e-6f;
    p = __nvvm_fma_rn_f(p, r2, -1.98412698e-4f);
    p = __nvvm_fma_rn_f(p, r2, 8.33333333e-3f);
    p = __nvvm_fma_rn_f(p, r2, -1.66666667e-1f);
    return __nvvm_fma_rn_f(p * r2, r, r);
}
__VGPU_DEV float __vgpu_cos_poly(float r)
{
    const float r2 = r * r;
    float p = -2.75573192e-7f;
    p = __nvvm_fma_rn_f(p, r2, 2.48015873e-5f);
    p = __nvvm_fma_rn_f(p, r2, -1.38888889e-3f);
    p = __nvvm_fma_rn_f(p, r2, 4.16666667e-2f);
    p = __nvvm_fma_rn_f(p, r2, -0.5f);
    return __nvvm_fma_rn_f(p, r2, 1.0f);
}
/// x - k pi/2 with k the nearest integer to x 2/pi (Cody-Waite, three parts); quadrant in *q.
__VGPU_DEV float __vgpu_reduce_pio2(float x, int* q)
{
    const float k = __builtin_rintf(x * 0.636619772f);
    float r = __nvvm_fma_rn_f(-k, 1.5703125f, x);
    r = __nvvm_fma_rn_f(-k, 4.83751297e-4f, r);
    r = __nvvm_fma_rn_f(-k, 7.54978995e-8f, r);
    *q = (int)k;
    return r;
}
__VGPU_DEV float sinf(float x)
{
    int q;
    const float r = __vgpu_reduce_pio2(x, &q);
    const float v = (q & 1) ? __vgpu_cos_poly(r) : __vgpu_sin_poly(r);
    return (q & 2) ? -v : v;
}
__VGPU_DEV float cosf(float x)
{
    int q;
    const float r = __vgpu_reduce_pio2(x, &q);
    const float v = (q & 1) ? __vgpu_sin_poly(r) : __vgpu_cos_poly(r);
    return ((q + 1) & 2) ? -v : v;
}
__VGPU_DEV void sincosf(float x, float* s, float* c)
{
    *s = sinf(x);
    *c = cosf(x);
}
__VGPU_DEV float tanf(float x)
{
    return sinf(x) / cosf(x);
}
__VGPU_DEV float tanhf(float x)
{
    const float a = __nvvm_fabs_f(x);
    const float t =
        a < 0.0625f ? a - a * a * a * (1.0f / 3.0f) : 1.0f - 2.0f / (expf(2.0f * a) + 1.0f);
    return __builtin_copysignf(t, x);
}
__VGPU_DEV float sinhf(float x)
{
    return 0.5f * (expf(x) - expf(-x));
}
__VGPU_DEV float coshf(float x)
{
    return 0.5f * (expf(x) + expf(-x));
}
__VGPU_DEV float cbrtf(float x)
{
    if (x == 0.0f || !(__nvvm_fabs_f(x) < __int_as_float(0x7f800000)))
        return x;
    const float a = __nvvm_fabs_f(x);
    float y = exp2f(log2f(a) * (1.0f / 3.0f));
    y = y - (y * y * y - a) / (3.0f * y * y); // one Newton step
    return __builtin_copysignf(y, x);
}

// ---- math library, double ----
__VGPU_DEV double fabs(double x)
{
    return __nvvm_fabs_d(x);
}
__VGPU_DEV double fmin(double a, double b)
{
    return __nvvm_fmin_d(a, b);
}
__VGPU_DEV double fmax(double a, double b)
{
    return __nvvm_fmax_d(a, b);
}
__VGPU_DEV double floor(double x)
{
    return __nvvm_floor_d(x);
}
__VGPU_DEV double ceil(double x)
{
    return __nvvm_ceil_d(x);
}
__VGPU_DEV double trunc(double x)
{
    return __nvvm_trunc_d(x);
}
__VGPU_DEV double rint(double x)
{
    return __builtin_rint(x);
}
__VGPU_DEV double round(double x)
{
    const double t = __nvvm_trunc_d(x);
    return __nvvm_fabs_d(x - t) >= 0.5 ? t + __builtin_copysign(1.0, x) : t;
}
__VGPU_DEV double copysign(double a, double b)
{
    return __builtin_copysign(a, b);
}
__VGPU_DEV double fma(double a, double b, double c)
{
    return __nvvm_fma_rn_d(a, b, c);
}
__VGPU_DEV double sqrt(double x)
{
    return __nvvm_sqrt_rn_d(x);
}
__VGPU_DEV double rsqrt(double x)
{
    return 1.0 / __nvvm_sqrt_rn_d(x);
}
__VGPU_DEV double ldexp(double x, int n)
{
    const int h = n / 2;
    return x * __longlong_as_double((long long)(h + 1023) << 52) *
           __longlong_as_double((long long)(n - h + 1023) << 52);
}
__VGPU_DEV double exp(double x)
{
    if (x > 709.782712893384)
        return __longlong_as_double(0x7ff0000000000000ll);
    if (x < -745.1332191019412)
        return 0.0;
    const double n = __builtin_rint(x * 1.4426950408889634);
    double r = __nvvm_fma_rn_d(-n, 6.93147180369123816490e-01, x);
    r = __nvvm_fma_rn_d(-n, 1.90821492927058770002e-10, r);
    double p = 1.0 / 6227020800.0; // Taylor to r^13 for |r| <= ln2/2
    const double inv[] = {479001600.0, 39916800.0, 3628800.0, 362880.0, 40320.0, 5040.0, 720.0,
                          120.0,       24.0,       6.0,       2.0,      1.0,     1.0};
    for (int i = 0; i < 13; ++i)
        p = __nvvm_fma_rn_d(p, r, 1.0 / inv[i]);
    return ldexp(p, (int)n);
}
__VGPU_DEV double exp2(double x)
{
    return exp(x * 0.6931471805599453);
}
__VGPU_DEV double log(double x)
{
    if (!(x > 0.0))
        return x == 0.0 ? -__longlong_as_double(0x7ff0000000000000ll)
                        : __longlong_as_double(0x7fffffffffffffffll);
    if (x == __longlong_as_double(0x7ff0000000000000ll))
        return x;
    int e = 0;
    if (x < 2.2250738585072014e-308) {
        x *= 4503599627370496.0; // 2^52
        e = -52;
    }
    const long long bits = __double_as_longlong(x);
    e += (int)((bits >> 52) & 0x7ff) - 1023;
    double m = __longlong_as_double((bits & 0x000fffffffffffffll) | 0x3ff0000000000000ll);
    if (m > 1.4142135623730951) {
        m *= 0.5;
        ++e;
    }
    const double f = m - 1.0;
    const double s = f / (2.0 + f);
    const double s2 = s * s;
    double p = 1.0 / 23.0;
    for (int k = 21; k >= 3; k -= 2)
        p = __nvvm_fma_rn_d(p, s2, 1.0 / k);
    const double lm = f - s * (f - 2.0 * p * s2);
    const double de = (double)e;
    return __nvvm_fma_rn_d(de, 6.93147180369123816490e-01,
                           __nvvm_fma_rn_d(de, 1.90821492927058770002e-10, lm));
}
__VGPU_DEV double log2(double x)
{
    return log(x) * 1.4426950408889634;
}
__VGPU_DEV double log10(double x)
{
    return log(x) * 0.4342944819032518;
}
__VGPU_DEV double log1p(double x)
{
    return __nvvm_fabs_d(x) < 1e-8 ? x : log(1.0 + x);
}
__VGPU_DEV double expm1(double x)
{
    return __nvvm_fabs_d(x) < 1e-8 ? x : exp(x) - 1.0;
}
__VGPU_DEV double pow(double x, double y)
{
    if (y == 0.0)
        return 1.0;
    if (x < 0.0) {
        if (__nvvm_trunc_d(y) != y)
            return __longlong_as_double(0x7fffffffffffffffll);
        const double m = exp(y * log(-x));
        const bool odd = __nvvm_trunc_d(y * 0.5) != y * 0.5;
        return odd ? -m : m;
    }
    return x == 0.0 ? (y < 0.0 ? __longlong_as_double(0x7ff0000000000000ll) : 0.0)
                    : exp(y * log(x));
}
__VGPU_DEV double __vgpu_sin_poly_d(double r)
{
    const double r2 = r * r;
    double p = -1.0 / 121645100408832000.0; // Taylor to r^19 for |r| <= pi/4
    const double fact[] = {355687428096000.0, -1307674368000.0, 6227020800.0, -39916800.0,
                           362880.0,          -5040.0,          120.0,        -6.0};
    for (int i = 0; i < 8; ++i)
        p = __nvvm_fma_rn_d(p, r2, 1.0 / fact[i]);
    return __nvvm_fma_rn_d(p * r2, r, r);
}
__VGPU_DEV double __vgpu_cos_poly_d(double r)
{
    const double r2 = r * r;
    double p = 1.0 / 2432902008176640000.0; // Taylor to r^20
    const double fact[] = {-6402373705728000.0,
                           20922789888000.0,
                           -87178291200.0,
                           479001600.0,
                           -3628800.0,
                           40320.0,
                           -720.0,
                           24.0,
                           -2.0};
    for (int i = 0; i < 9; ++i)
        p = __nvvm_fma_rn_d(p, r2, 1.0 / fact[i]);
    return __nvvm_fma_rn_d(p, r2, 1.0);
}
__VGPU_DEV double __vgpu_reduce_pio2_d(double x, int* q)
{
    const double k = __builtin_rint(x * 0.6366197723675814);
    double r = __nvvm_fma_rn_d(-k, 1.5707963267341256e+00, x);
    r = __nvvm_fma_rn_d(-k, 6.0771005065061922e-11, r);
    r = __nvvm_fma_rn_d(-k, 2.0222662487959506e-21, r);
    *q = (int)k;
    return r;
}
__VGPU_DEV double sin(double x)
{
    int q;
    const double r = __vgpu_reduce_pio2_d(x, &q);
    const double v = (q & 1) ? __vgpu_cos_poly_d(r) : __vgpu_sin_poly_d(r);
    return (q & 2) ? -v : v;
}
__VGPU_DEV double cos(double x)
{
    int q;
    const double r = __vgpu_reduce_pio2_d(x, &q);
    const double v = (q & 1) ? __vgpu_sin_poly_d(r) : __vgpu_cos_poly_d(r);
    return ((q + 1) & 2) ? -v : v;
}
__VGPU_DEV void sincos(double x, double* s, double* c)
{
    *s = sin(x);
    *c = cos(x);
}
__VGPU_DEV double tan(double x)
{
    return sin(x) / cos(x);
}
__VGPU_DEV double tanh(double x)
{
    const double a = __nvvm_fabs_d(x);
    const double t = a < 1e-4 ? a - a * a * a / 3.0 : 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
    return __builtin_copysign(t, x);
}
__VGPU_DEV double sinh(double x)
{
    return 0.5 * (exp(x) - exp(-x));
}
__VGPU_DEV double cosh(double x)
{
    return 0.5 * (exp(x) + exp(-x));
}
__VGPU_DEV float powf(float x, float y)
{
    return (float)pow((double)x, (double)y);
}

// ---- C++ overloads: float forms of the double names, and std:: ----
__VGPU_DEV float fabs(float x)
{
    return fabsf(x);
}
__VGPU_DEV float fmin(float a, float b)
{
    return fminf(a, b);
}
__VGPU_DEV float fmax(float a, float b)
{
    return fmaxf(a, b);
}
__VGPU_DEV float floor(float x)
{
    return floorf(x);
}
__VGPU_DEV float ceil(float x)
{
    return ceilf(x);
}
__VGPU_DEV float trunc(float x)
{
    return truncf(x);
}
__VGPU_DEV float round(float x)
{
    return roundf(x);
}
__VGPU_DEV float rint(float x)
{
    return rintf(x);
}
__VGPU_DEV float copysign(float a, float b)
{
    return copysignf(a, b);
}
__VGPU_DEV float fma(float a, float b, float c)
{
    return fmaf(a, b, c);
}
__VGPU_DEV float sqrt(float x)
{
    return sqrtf(x);
}
__VGPU_DEV float rsqrt(float x)
{
    return rsqrtf(x);
}
__VGPU_DEV float exp(float x)
{
    return expf(x);
}
__VGPU_DEV float exp2(float x)
{
    return exp2f(x);
}
__VGPU_DEV float expm1(float x)
{
    return expm1f(x);
}
__VGPU_DEV float log(float x)
{
    return logf(x);
}
__VGPU_DEV float log2(float x)
{
    return log2f(x);
}
__VGPU_DEV float log10(float x)
{
    return log10f(x);
}
__VGPU_DEV float log1p(float x)
{
    return log1pf(x);
}
__VGPU_DEV float pow(float x, float y)
{
    return powf(x, y);
}
// the mixed forms <cmath> declares as templates for the host
__VGPU_DEV float pow(float x, int n)
{
    return powf(x, (float)n);
}
__VGPU_DEV double pow(double x, int n)
{
    return pow(x, (double)n);
}
__VGPU_DEV double pow(float x, double y)
{
    return pow((double)x, y);
}
__VGPU_DEV double pow(double x, float y)
{
    return pow(x, (double)y);
}
__VGPU_DEV double pow(int x, int n)
{
    return pow((double)x, (double)n);
}
__VGPU_DEV double pow(int x, double y)
{
    return pow((double)x, y);
}
__VGPU_DEV float sin(float x)
{
    return sinf(x);
}
__VGPU_DEV float cos(float x)
{
    return cosf(x);
}
__VGPU_DEV float tan(float x)
{
    return tanf(x);
}
__VGPU_DEV float tanh(float x)
{
    return tanhf(x);
}
__VGPU_DEV float sinh(float x)
{
    return sinhf(x);
}
__VGPU_DEV float cosh(float x)
{
    return coshf(x);
}
__VGPU_DEV float ldexp(float x, int n)
{
    return ldexpf(x, n);
}
__VGPU_DEV float cbrt(float x)
{
    return cbrtf(x);
}
__VGPU_DEV int abs(int x)
{
    return x < 0 ? -x : x;
}
__VGPU_DEV long long llabs(long long x)
{
    return x < 0 ? -x : x;
}
__VGPU_DEV bool isnan(float x)
{
    return x != x;
}
__VGPU_DEV bool isnan(double x)
{
    return x != x;
}
__VGPU_DEV bool isinf(float x)
{
    return __nvvm_fabs_f(x) == __int_as_float(0x7f800000);
}
__VGPU_DEV bool isinf(double x)
{
    return __nvvm_fabs_d(x) == __longlong_as_double(0x7ff0000000000000ll);
}
__VGPU_DEV bool isfinite(float x)
{
    return __nvvm_fabs_f(x) < __int_as_float(0x7f800000);
}
__VGPU_DEV bool isfinite(double x)
{
    return __nvvm_fabs_d(x) < __longlong_as_double(0x7ff0000000000000ll);
}
namespace std {
using ::abs;
using ::cbrt;
using ::ceil;
using ::copysign;
using ::cos;
using ::cosh;
using ::exp;
using ::exp2;
using ::expm1;
using ::fabs;
using ::floor;
using ::fma;
using ::fmax;
using ::fmin;
using ::isfinite;
using ::isinf;
using ::isnan;
using ::ldexp;
using ::log;
using ::log10;
using ::log1p;
using ::log2;
using ::max;
using ::min;
using ::pow;
using ::rint;
using ::round;
using ::sin;
using ::sinh;
using ::sqrt;
using ::tan;
using ::tanh;
using ::trunc;
} // namespace std
