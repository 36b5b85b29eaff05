// Kernels vgpu rejects, each for one reason; plus one it accepts that calls a device function.
texture<float, 1, cudaReadModeElementType> t_in;

__global__ void uses_texture(float* out)
{
    out[threadIdx.x] = tex1Dfetch(t_in, threadIdx.x);
}

__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__global__ void uses_recursion(int* out)
{
    out[threadIdx.x] = fib(threadIdx.x);
}

__device__ __noinline__ float twice(float x)
{
    return 2.0f * x;
}

__global__ void calls_function(float* out)
{
    out[threadIdx.x] = twice(out[threadIdx.x]);
}

__global__ void overloaded(float* out) { out[0] = 1.0f; }
__global__ void overloaded(int* out) { out[0] = 1; }

namespace ns {
template <class T> __global__ void scale(T* out, T s) { out[threadIdx.x] *= s; }
template __global__ void scale<float>(float*, float);
template __global__ void scale<double>(double*, double);
} // namespace ns
