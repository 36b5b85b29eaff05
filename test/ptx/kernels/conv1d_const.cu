// 1-D convolution with a filter in constant memory (issue 36: __constant__ through the CDL).
// coeffs is set by the workload's `constants:` (cudaMemcpyToSymbol); each tap's load is a
// legacy CDL at an immediate offset.
#define TAPS 7

__constant__ float coeffs[TAPS];

__global__ void conv1d_const(const float* in, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.0f;
    for (int k = 0; k < TAPS; ++k) {
        const int j = i + k - TAPS / 2;
        if (j >= 0 && j < n)
            s += coeffs[k] * in[j];
    }
    out[i] = s;
}
