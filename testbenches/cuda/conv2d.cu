// 2D convolution (correlation form, as image filters are written) of an h x w f32 image with
// a 5 x 5 filter, zero outside the image:
//   out[y][x] = sum_{dy, dx in -2..2} filt[dy + 2][dx + 2] * in[y + dy][x + dx].
// Memory: the filter is a __constant__ array (cudaMemcpyToSymbol; vgpu reads it through the
// CDL block: the 25 taps are loads at fixed addresses, read by one bulk CDL per warp). Each
// 16 x 16 CTA stages its 20 x 20 input tile (its 256 pixels and a halo of 2 on every side,
// zero outside the image) in shared memory with coalesced row loads, two passes of its 256
// threads over the 400 pixels, then a barrier; each thread then computes its pixel from
// shared memory (25 FMAs) and stores it.
#define TILE 16
#define R 2
#define SIDE (2 * R + 1)
#define HALO (TILE + 2 * R)

__constant__ float filt[SIDE * SIDE];

__global__ void conv2d(const float* in, float* out, int h, int w)
{
    __shared__ float tile[HALO][HALO];
    const int x0 = blockIdx.x * TILE - R, y0 = blockIdx.y * TILE - R;
    const int t = threadIdx.y * TILE + threadIdx.x;
    for (int k = t; k < HALO * HALO; k += TILE * TILE) {
        const int ty = k / HALO, tx = k % HALO;
        const int y = y0 + ty, x = x0 + tx;
        tile[ty][tx] = (y >= 0 && y < h && x >= 0 && x < w) ? in[y * w + x] : 0.0f;
    }
    __syncthreads();
    const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float acc = 0.0f;
#pragma unroll
    for (int dy = 0; dy < SIDE; ++dy)
#pragma unroll
        for (int dx = 0; dx < SIDE; ++dx)
            acc += filt[dy * SIDE + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
    out[y * w + x] = acc;
}
