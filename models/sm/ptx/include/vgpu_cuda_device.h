// vgpu CUDA shim, device side: qualifiers, vector types, built-in variables, synchronisation,
// atomics, warp functions and __ldg on clang's NVVM builtins. See docs/cuda.md.
#pragma once

#ifndef __CUDA__
#error "the vgpu CUDA shim is for clang's CUDA mode (-x cuda)"
#endif

#include <stddef.h>
#include <stdint.h>

// ---- function and variable qualifiers ----
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
// nodebug: code inlined from the shim carries the line of the CUDA source that called it
#define __VGPU_DEV static __device__ __inline__ __attribute__((always_inline, nodebug))
#define __VGPU_HD static __host__ __device__ __inline__ __attribute__((always_inline, nodebug))

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 11050
#endif
#ifndef __CUDA_ARCH__
#ifdef __CUDA_ARCH_VGPU
#define __CUDA_ARCH__ __CUDA_ARCH_VGPU
#endif
#endif

// ---- vector types (the runtime's layout and alignment) ----
#define __VGPU_VEC1(T, N)                                                                          \
    struct N##1                                                                                    \
    {                                                                                              \
        T x;                                                                                       \
    };
#define __VGPU_VEC2(T, N, A)                                                                       \
    struct __align__(A) N##2                                                                       \
    {                                                                                              \
        T x, y;                                                                                    \
    };
#define __VGPU_VEC3(T, N)                                                                          \
    struct N##3                                                                                    \
    {                                                                                              \
        T x, y, z;                                                                                 \
    };
#define __VGPU_VEC4(T, N, A)                                                                       \
    struct __align__(A) N##4                                                                       \
    {                                                                                              \
        T x, y, z, w;                                                                              \
    };
#define __VGPU_VECS(T, N, A2, A4)                                                                  \
    __VGPU_VEC1(T, N) __VGPU_VEC2(T, N, A2) __VGPU_VEC3(T, N) __VGPU_VEC4(T, N, A4)
__VGPU_VECS(signed char, char, 2, 4)
__VGPU_VECS(unsigned char, uchar, 2, 4)
__VGPU_VECS(short, short, 4, 8)
__VGPU_VECS(unsigned short, ushort, 4, 8)
__VGPU_VECS(int, int, 8, 16)
__VGPU_VECS(unsigned int, uint, 8, 16)
__VGPU_VECS(long, long, 16, 16)
__VGPU_VECS(unsigned long, ulong, 16, 16)
__VGPU_VECS(long long, longlong, 16, 16)
__VGPU_VECS(unsigned long long, ulonglong, 16, 16)
__VGPU_VECS(float, float, 8, 16)
__VGPU_VECS(double, double, 16, 16)
#undef __VGPU_VECS
#undef __VGPU_VEC1
#undef __VGPU_VEC2
#undef __VGPU_VEC3
#undef __VGPU_VEC4

#define __VGPU_MAKE2(T, N)                                                                         \
    __VGPU_HD N##2 make_##N##2(T x, T y)                                                           \
    {                                                                                              \
        N##2 v = {x, y};                                                                           \
        return v;                                                                                  \
    }
#define __VGPU_MAKE3(T, N)                                                                         \
    __VGPU_HD N##3 make_##N##3(T x, T y, T z)                                                      \
    {                                                                                              \
        N##3 v = {x, y, z};                                                                        \
        return v;                                                                                  \
    }
#define __VGPU_MAKE4(T, N)                                                                         \
    __VGPU_HD N##4 make_##N##4(T x, T y, T z, T w)                                                 \
    {                                                                                              \
        N##4 v = {x, y, z, w};                                                                     \
        return v;                                                                                  \
    }
#define __VGPU_MAKES(T, N) __VGPU_MAKE2(T, N) __VGPU_MAKE3(T, N) __VGPU_MAKE4(T, N)
__VGPU_MAKES(signed char, char)
__VGPU_MAKES(unsigned char, uchar)
__VGPU_MAKES(short, short)
__VGPU_MAKES(unsigned short, ushort)
__VGPU_MAKES(int, int)
__VGPU_MAKES(unsigned int, uint)
__VGPU_MAKES(long long, longlong)
__VGPU_MAKES(unsigned long long, ulonglong)
__VGPU_MAKES(float, float)
__VGPU_MAKES(double, double)
#undef __VGPU_MAKES
#undef __VGPU_MAKE2
#undef __VGPU_MAKE3
#undef __VGPU_MAKE4

/// Grid and block extents; unspecified components are 1.
struct dim3 {
    unsigned int x, y, z;
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                                       unsigned int vz = 1)
        : x(vx), y(vy), z(vz)
    {
    }
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

// ---- built-in variables: each component reads a PTX special register ----
#define __VGPU_SREG(FIELD, REG)                                                                    \
    __declspec(property(get = __get_##FIELD)) unsigned int FIELD;                                  \
    static __device__ __inline__                                                                   \
        __attribute__((always_inline, nodebug)) unsigned int __get_##FIELD()                       \
    {                                                                                              \
        return __nvvm_read_ptx_sreg_##REG();                                                       \
    }
#define __VGPU_BUILTIN_VAR(TYPE, REG)                                                              \
    struct TYPE {                                                                                  \
        __VGPU_SREG(x, REG##_x)                                                                    \
        __VGPU_SREG(y, REG##_y) __VGPU_SREG(z, REG##_z) __device__ operator dim3() const           \
        {                                                                                          \
            return dim3(x, y, z);                                                                  \
        }                                                                                          \
        __device__ operator uint3() const { return uint3{x, y, z}; }                               \
                                                                                                   \
    private:                                                                                       \
        __device__ TYPE() = delete;                                                                \
        __device__ TYPE(const TYPE&) = delete;                                                     \
        __device__ void operator=(const TYPE&) const = delete;                                     \
        __device__ TYPE* operator&() const = delete;                                               \
    };
__VGPU_BUILTIN_VAR(__vgpu_threadIdx_t, tid)
__VGPU_BUILTIN_VAR(__vgpu_blockIdx_t, ctaid)
__VGPU_BUILTIN_VAR(__vgpu_blockDim_t, ntid)
__VGPU_BUILTIN_VAR(__vgpu_gridDim_t, nctaid)
#undef __VGPU_BUILTIN_VAR
#undef __VGPU_SREG
extern const __device__ __vgpu_threadIdx_t threadIdx;
extern const __device__ __vgpu_blockIdx_t blockIdx;
extern const __device__ __vgpu_blockDim_t blockDim;
extern const __device__ __vgpu_gridDim_t gridDim;
/// Threads per warp.
static constexpr int warpSize = 32;

// ---- synchronisation and fences (__syncthreads is a clang builtin) ----
__VGPU_DEV int __syncthreads_count(int p)
{
    return __nvvm_bar0_popc(p);
}
__VGPU_DEV int __syncthreads_and(int p)
{
    return __nvvm_bar0_and(p);
}
__VGPU_DEV int __syncthreads_or(int p)
{
    return __nvvm_bar0_or(p);
}
__VGPU_DEV void __syncwarp(unsigned mask = 0xffffffffu)
{
    __nvvm_bar_warp_sync(mask);
}
__VGPU_DEV void __threadfence_block()
{
    __nvvm_membar_cta();
}
__VGPU_DEV void __threadfence()
{
    __nvvm_membar_gl();
}
__VGPU_DEV void __threadfence_system()
{
    __nvvm_membar_sys();
}
__VGPU_DEV long long clock64()
{
    return __nvvm_read_ptx_sreg_clock64();
}
__VGPU_DEV int clock()
{
    return __nvvm_read_ptx_sreg_clock();
}
__VGPU_DEV unsigned __laneid()
{
    return __nvvm_read_ptx_sreg_laneid();
}

// ---- atomics (generic address space; the translator resolves the space) ----
#define __VGPU_ATOM(NAME, T, BUILTIN, CT)                                                          \
    __VGPU_DEV T NAME(T* p, T v)                                                                   \
    {                                                                                              \
        return (T)BUILTIN((CT*)p, (CT)v);                                                          \
    }
__VGPU_ATOM(atomicAdd, int, __nvvm_atom_add_gen_i, int)
__VGPU_ATOM(atomicAdd, unsigned int, __nvvm_atom_add_gen_i, int)
__VGPU_ATOM(atomicAdd, unsigned long long, __nvvm_atom_add_gen_ll, long long)
__VGPU_ATOM(atomicAdd, float, __nvvm_atom_add_gen_f, float)
__VGPU_ATOM(atomicAdd, double, __nvvm_atom_add_gen_d, double)
__VGPU_ATOM(atomicExch, int, __nvvm_atom_xchg_gen_i, int)
__VGPU_ATOM(atomicExch, unsigned int, __nvvm_atom_xchg_gen_i, int)
__VGPU_ATOM(atomicExch, unsigned long long, __nvvm_atom_xchg_gen_ll, long long)
__VGPU_ATOM(atomicMin, int, __nvvm_atom_min_gen_i, int)
__VGPU_ATOM(atomicMin, unsigned int, __nvvm_atom_min_gen_ui, unsigned int)
__VGPU_ATOM(atomicMin, long long, __nvvm_atom_min_gen_ll, long long)
__VGPU_ATOM(atomicMin, unsigned long long, __nvvm_atom_min_gen_ull, unsigned long long)
__VGPU_ATOM(atomicMax, int, __nvvm_atom_max_gen_i, int)
__VGPU_ATOM(atomicMax, unsigned int, __nvvm_atom_max_gen_ui, unsigned int)
__VGPU_ATOM(atomicMax, long long, __nvvm_atom_max_gen_ll, long long)
__VGPU_ATOM(atomicMax, unsigned long long, __nvvm_atom_max_gen_ull, unsigned long long)
__VGPU_ATOM(atomicInc, unsigned int, __nvvm_atom_inc_gen_ui, unsigned int)
__VGPU_ATOM(atomicDec, unsigned int, __nvvm_atom_dec_gen_ui, unsigned int)
__VGPU_ATOM(atomicAnd, int, __nvvm_atom_and_gen_i, int)
__VGPU_ATOM(atomicAnd, unsigned int, __nvvm_atom_and_gen_i, int)
__VGPU_ATOM(atomicAnd, unsigned long long, __nvvm_atom_and_gen_ll, long long)
__VGPU_ATOM(atomicOr, int, __nvvm_atom_or_gen_i, int)
__VGPU_ATOM(atomicOr, unsigned int, __nvvm_atom_or_gen_i, int)
__VGPU_ATOM(atomicOr, unsigned long long, __nvvm_atom_or_gen_ll, long long)
__VGPU_ATOM(atomicXor, int, __nvvm_atom_xor_gen_i, int)
__VGPU_ATOM(atomicXor, unsigned int, __nvvm_atom_xor_gen_i, int)
__VGPU_ATOM(atomicXor, unsigned long long, __nvvm_atom_xor_gen_ll, long long)
#undef __VGPU_ATOM
__VGPU_DEV int atomicSub(int* p, int v)
{
    return __nvvm_atom_add_gen_i(p, -v);
}
__VGPU_DEV unsigned int atomicSub(unsigned int* p, unsigned int v)
{
    return (unsigned int)__nvvm_atom_add_gen_i((int*)p, (int)(0u - v));
}
__VGPU_DEV float atomicExch(float* p, float v)
{
    return __nvvm_bitcast_i2f(__nvvm_atom_xchg_gen_i((int*)p, __nvvm_bitcast_f2i(v)));
}
__VGPU_DEV int atomicCAS(int* p, int cmp, int v)
{
    return __nvvm_atom_cas_gen_i(p, cmp, v);
}
__VGPU_DEV unsigned int atomicCAS(unsigned int* p, unsigned int cmp, unsigned int v)
{
    return (unsigned int)__nvvm_atom_cas_gen_i((int*)p, (int)cmp, (int)v);
}
__VGPU_DEV unsigned long long atomicCAS(unsigned long long* p, unsigned long long cmp,
                                        unsigned long long v)
{
    return (unsigned long long)__nvvm_atom_cas_gen_ll((long long*)p, (long long)cmp, (long long)v);
}

// ---- warp shuffles and votes (the .sync forms of Volta and later) ----
#define __VGPU_SHFL(NAME, KIND, CLAMP)                                                             \
    __VGPU_DEV int NAME(unsigned m, int v, int s, int w = 32)                                      \
    {                                                                                              \
        return __nvvm_shfl_sync_##KIND##_i32(m, v, s, CLAMP);                                      \
    }                                                                                              \
    __VGPU_DEV unsigned int NAME(unsigned m, unsigned int v, int s, int w = 32)                    \
    {                                                                                              \
        return (unsigned int)__nvvm_shfl_sync_##KIND##_i32(m, (int)v, s, CLAMP);                   \
    }                                                                                              \
    __VGPU_DEV float NAME(unsigned m, float v, int s, int w = 32)                                  \
    {                                                                                              \
        return __nvvm_shfl_sync_##KIND##_f32(m, v, s, CLAMP);                                      \
    }                                                                                              \
    __VGPU_DEV long long NAME(unsigned m, long long v, int s, int w = 32)                          \
    {                                                                                              \
        int lo = __nvvm_shfl_sync_##KIND##_i32(m, (int)v, s, CLAMP);                               \
        int hi = __nvvm_shfl_sync_##KIND##_i32(m, (int)((unsigned long long)v >> 32), s, CLAMP);   \
        return (long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);               \
    }                                                                                              \
    __VGPU_DEV unsigned long long NAME(unsigned m, unsigned long long v, int s, int w = 32)        \
    {                                                                                              \
        return (unsigned long long)NAME(m, (long long)v, s, w);                                    \
    }                                                                                              \
    __VGPU_DEV double NAME(unsigned m, double v, int s, int w = 32)                                \
    {                                                                                              \
        return __nvvm_bitcast_ll2d(NAME(m, __nvvm_bitcast_d2ll(v), s, w));                         \
    }
// The c operand packs the segment mask (32 - width) << 8 and the clamp value.
__VGPU_SHFL(__shfl_sync, idx, ((32 - w) << 8) | 0x1f)
__VGPU_SHFL(__shfl_up_sync, up, (32 - w) << 8)
__VGPU_SHFL(__shfl_down_sync, down, ((32 - w) << 8) | 0x1f)
__VGPU_SHFL(__shfl_xor_sync, bfly, ((32 - w) << 8) | 0x1f)
#undef __VGPU_SHFL
__VGPU_DEV int __all_sync(unsigned m, int p)
{
    return __nvvm_vote_all_sync(m, p);
}
__VGPU_DEV int __any_sync(unsigned m, int p)
{
    return __nvvm_vote_any_sync(m, p);
}
__VGPU_DEV int __uni_sync(unsigned m, int p)
{
    return __nvvm_vote_uni_sync(m, p);
}
__VGPU_DEV unsigned __ballot_sync(unsigned m, int p)
{
    return __nvvm_vote_ballot_sync(m, p);
}
__VGPU_DEV unsigned __activemask()
{
    return __nvvm_vote_ballot_sync(0xffffffffu, 1);
}

// ---- read-only data cache loads ----
#define __VGPU_LDG(T, SUFFIX)                                                                      \
    __VGPU_DEV T __ldg(const T* p)                                                                 \
    {                                                                                              \
        return __nvvm_ldg_##SUFFIX(p);                                                             \
    }
__VGPU_LDG(char, c)
__VGPU_DEV signed char __ldg(const signed char* p)
{
    return (signed char)__nvvm_ldg_c((const char*)p);
}
__VGPU_LDG(short, s)
__VGPU_LDG(int, i)
__VGPU_LDG(long, l)
__VGPU_LDG(long long, ll)
__VGPU_LDG(unsigned char, uc)
__VGPU_LDG(unsigned short, us)
__VGPU_LDG(unsigned int, ui)
__VGPU_LDG(unsigned long, ul)
__VGPU_LDG(unsigned long long, ull)
__VGPU_LDG(float, f)
__VGPU_LDG(double, d)
#undef __VGPU_LDG
__VGPU_DEV float2 __ldg(const float2* p)
{
    return make_float2(__ldg(&p->x), __ldg(&p->y));
}
__VGPU_DEV float4 __ldg(const float4* p)
{
    return make_float4(__ldg(&p->x), __ldg(&p->y), __ldg(&p->z), __ldg(&p->w));
}
__VGPU_DEV int2 __ldg(const int2* p)
{
    return make_int2(__ldg(&p->x), __ldg(&p->y));
}
__VGPU_DEV int4 __ldg(const int4* p)
{
    return make_int4(__ldg(&p->x), __ldg(&p->y), __ldg(&p->z), __ldg(&p->w));
}

// ---- kernel printf (lowered by clang to vprintf) ----
extern "C" __device__ int printf(const char*, ...);
extern "C" __device__ void __assertfail(const char*, const char*, unsigned, const char*, size_t);
