// vgpu CUDA shim, host side: declarations of the CUDA runtime API that the host code of public
// benchmark suites uses, so that such files parse in device-only mode (nothing here is
// defined: vgpu runs only the kernel, launched from a workload file). See docs/cuda.md.
#pragma once

#include "vgpu_cuda_device.h"

// what the runtime's headers bring in for host code
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define __VGPU_HOST extern __host__

/// Runtime error codes (the subset host code names).
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorLaunchFailure = 4,
    cudaErrorLaunchTimeout = 6,
    cudaErrorLaunchOutOfResources = 7,
    cudaErrorInvalidDeviceFunction = 8,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevice = 10,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorNoDevice = 38,
    cudaErrorNotReady = 34,
    cudaErrorUnknown = 30
};
typedef enum cudaError cudaError_t;
typedef enum cudaError CUresult;
#define CUDA_SUCCESS cudaSuccess

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};
enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};
enum cudaSharedMemConfig {
    cudaSharedMemBankSizeDefault = 0,
    cudaSharedMemBankSizeFourByte = 1,
    cudaSharedMemBankSizeEightByte = 2
};
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrClockRate = 13,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76
};
enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceMapHost 0x08
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaStreamNonBlocking 0x01
#define cudaMemAttachGlobal 0x01

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct cudaArray* cudaArray_t;
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef unsigned long long CUdeviceptr;

/// Device properties (the fields host code reads).
struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int deviceOverlap;
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;
    int integrated;
    int canMapHostMemory;
    int computeMode;
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int singleToDoublePrecisionPerfRatio;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int maxBlocksPerMultiProcessor;
};

struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
};

struct cudaChannelFormatDesc {
    int x, y, z, w;
    enum cudaChannelFormatKind f;
};
struct cudaExtent {
    size_t width, height, depth;
};

// ---- device management and errors ----
__VGPU_HOST cudaError_t cudaGetDeviceCount(int* count);
__VGPU_HOST cudaError_t cudaGetDevice(int* device);
__VGPU_HOST cudaError_t cudaSetDevice(int device);
__VGPU_HOST cudaError_t cudaSetDeviceFlags(unsigned flags);
__VGPU_HOST cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
__VGPU_HOST cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
__VGPU_HOST cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop);
__VGPU_HOST cudaError_t cudaDeviceSynchronize();
__VGPU_HOST cudaError_t cudaDeviceReset();
__VGPU_HOST cudaError_t cudaThreadSynchronize();
__VGPU_HOST cudaError_t cudaThreadExit();
__VGPU_HOST cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
__VGPU_HOST cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
__VGPU_HOST cudaError_t cudaDeviceSetLimit(int limit, size_t value);
__VGPU_HOST cudaError_t cudaDriverGetVersion(int* version);
__VGPU_HOST cudaError_t cudaRuntimeGetVersion(int* version);
__VGPU_HOST cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
__VGPU_HOST cudaError_t cudaGetLastError();
__VGPU_HOST cudaError_t cudaPeekAtLastError();
__VGPU_HOST const char* cudaGetErrorString(cudaError_t error);
__VGPU_HOST const char* cudaGetErrorName(cudaError_t error);

// ---- memory ----
__VGPU_HOST cudaError_t cudaMalloc(void** ptr, size_t size);
__VGPU_HOST cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
__VGPU_HOST cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned flags = 1);
__VGPU_HOST cudaError_t cudaMallocHost(void** ptr, size_t size);
__VGPU_HOST cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned flags);
__VGPU_HOST cudaError_t cudaHostGetDevicePointer(void** dptr, void* hptr, unsigned flags);
__VGPU_HOST cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned flags);
__VGPU_HOST cudaError_t cudaHostUnregister(void* ptr);
__VGPU_HOST cudaError_t cudaFree(void* ptr);
__VGPU_HOST cudaError_t cudaFreeHost(void* ptr);
__VGPU_HOST cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
__VGPU_HOST cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                        cudaMemcpyKind kind, cudaStream_t stream = 0);
__VGPU_HOST cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind kind);
__VGPU_HOST cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count,
                                           size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice);
__VGPU_HOST cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                                             size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
__VGPU_HOST cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                                size_t offset, cudaMemcpyKind kind,
                                                cudaStream_t stream = 0);
__VGPU_HOST cudaError_t cudaMemset(void* ptr, int value, size_t count);
__VGPU_HOST cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count,
                                        cudaStream_t stream = 0);
__VGPU_HOST cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device,
                                             cudaStream_t stream = 0);
template <class T> static __host__ inline cudaError_t cudaMalloc(T** ptr, size_t size)
{
    return cudaMalloc((void**)ptr, size);
}
template <class T>
static __host__ inline cudaError_t cudaMallocManaged(T** ptr, size_t size, unsigned flags = 1)
{
    return cudaMallocManaged((void**)ptr, size, flags);
}
template <class T> static __host__ inline cudaError_t cudaMallocHost(T** ptr, size_t size)
{
    return cudaMallocHost((void**)ptr, size);
}
template <class T>
static __host__ inline cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned flags)
{
    return cudaHostAlloc((void**)ptr, size, flags);
}
template <class T>
static __host__ inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src,
                                                      size_t count, size_t offset = 0,
                                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return cudaMemcpyToSymbol((const void*)&symbol, src, count, offset, kind);
}
template <class T>
static __host__ inline cudaError_t
cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                     cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return cudaMemcpyFromSymbol(dst, (const void*)&symbol, count, offset, kind);
}

// ---- streams and events ----
__VGPU_HOST cudaError_t cudaStreamCreate(cudaStream_t* stream);
__VGPU_HOST cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
__VGPU_HOST cudaError_t cudaStreamDestroy(cudaStream_t stream);
__VGPU_HOST cudaError_t cudaStreamSynchronize(cudaStream_t stream);
__VGPU_HOST cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                            unsigned flags = 0);
__VGPU_HOST cudaError_t cudaEventCreate(cudaEvent_t* event);
__VGPU_HOST cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
__VGPU_HOST cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
__VGPU_HOST cudaError_t cudaEventSynchronize(cudaEvent_t event);
__VGPU_HOST cudaError_t cudaEventQuery(cudaEvent_t event);
__VGPU_HOST cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
__VGPU_HOST cudaError_t cudaEventDestroy(cudaEvent_t event);

// ---- kernels ----
__VGPU_HOST cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config);
__VGPU_HOST cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
__VGPU_HOST cudaError_t cudaFuncSetAttribute(const void* func, int attr, int value);
__VGPU_HOST cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                                         size_t shared_bytes = 0, cudaStream_t stream = 0);
__VGPU_HOST cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func,
                                                                      int block_size,
                                                                      size_t shared_bytes);
template <class F>
static __host__ inline cudaError_t cudaFuncSetCacheConfig(F* func, cudaFuncCache config)
{
    return cudaFuncSetCacheConfig((const void*)func, config);
}
template <class F>
static __host__ inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, F* func)
{
    return cudaFuncGetAttributes(attr, (const void*)func);
}
// The launch syntax kernel<<<g, b, s, t>>>(...) calls one of these (by CUDA version).
extern "C" __host__ unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block,
                                                         size_t shared_bytes = 0, void* stream = 0);
__VGPU_HOST cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared_bytes = 0,
                                          cudaStream_t stream = 0);

// ---- textures: declared so that files parse; a kernel that reads one is rejected ----
/// Texture reference (the runtime's C view of texture<>).
struct textureReference {
    int normalized;
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureAddressMode addressMode[3];
    cudaChannelFormatDesc channelDesc;
};
/// Texture reference; reading it in device code calls a function vgpu reports as unsupported.
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture : public textureReference {
};
typedef unsigned long long cudaTextureObject_t;
extern "C" __device__ void __vgpu_unsupported_texture_fetch(void);
template <class T, int dim, enum cudaTextureReadMode mode>
__VGPU_DEV T tex1Dfetch(texture<T, dim, mode>, int)
{
    __vgpu_unsupported_texture_fetch();
    return T();
}
template <class T, int dim, enum cudaTextureReadMode mode>
__VGPU_DEV T tex1D(texture<T, dim, mode>, float)
{
    __vgpu_unsupported_texture_fetch();
    return T();
}
template <class T, int dim, enum cudaTextureReadMode mode>
__VGPU_DEV T tex2D(texture<T, dim, mode>, float, float)
{
    __vgpu_unsupported_texture_fetch();
    return T();
}
template <class T> __VGPU_DEV T tex1Dfetch(cudaTextureObject_t, int)
{
    __vgpu_unsupported_texture_fetch();
    return T();
}
template <class T> static __host__ inline cudaChannelFormatDesc cudaCreateChannelDesc()
{
    return cudaChannelFormatDesc{8 * (int)sizeof(T), 0, 0, 0, cudaChannelFormatKindFloat};
}
__VGPU_HOST cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                        cudaChannelFormatKind f);
__VGPU_HOST cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                                        size_t width, size_t height = 0, unsigned flags = 0);
__VGPU_HOST cudaError_t cudaFreeArray(cudaArray_t array);
__VGPU_HOST cudaError_t cudaBindTexture(size_t* offset, const textureReference* t, const void* ptr,
                                        const cudaChannelFormatDesc* desc,
                                        size_t size = ~(size_t)0);
__VGPU_HOST cudaError_t cudaBindTextureToArray(const textureReference* t, cudaArray_t array,
                                               const cudaChannelFormatDesc* desc);
__VGPU_HOST cudaError_t cudaUnbindTexture(const textureReference* t);
__VGPU_HOST cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wo, size_t ho, const void* src,
                                          size_t count, cudaMemcpyKind kind);
template <class T, int dim, enum cudaTextureReadMode mode>
static __host__ inline cudaError_t cudaBindTexture(size_t* offset, const texture<T, dim, mode>& t,
                                                   const void* ptr, size_t size = ~(size_t)0)
{
    return cudaSuccess;
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __host__ inline cudaError_t
cudaBindTexture(size_t* offset, const texture<T, dim, mode>& t, const void* ptr,
                const cudaChannelFormatDesc& desc, size_t size = ~(size_t)0)
{
    return cudaSuccess;
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __host__ inline cudaError_t cudaBindTextureToArray(const texture<T, dim, mode>& t,
                                                          cudaArray_t array)
{
    return cudaSuccess;
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __host__ inline cudaError_t cudaBindTextureToArray(const texture<T, dim, mode>& t,
                                                          cudaArray_t array,
                                                          const cudaChannelFormatDesc& desc)
{
    return cudaSuccess;
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __host__ inline cudaError_t cudaUnbindTexture(const texture<T, dim, mode>& t)
{
    return cudaSuccess;
}

// ---- driver API names some files include cuda.h for ----
__VGPU_HOST CUresult cuInit(unsigned flags);
__VGPU_HOST CUresult cuDeviceGet(CUdevice* device, int ordinal);
__VGPU_HOST CUresult cuCtxCreate(CUcontext* ctx, unsigned flags, CUdevice device);
__VGPU_HOST CUresult cuCtxDestroy(CUcontext ctx);
__VGPU_HOST CUresult cuCtxSynchronize();

#undef __VGPU_HOST
