// HotSpot-style transient thermal simulation of a chip (the RC model of the HotSpot paper):
// a rows x cols grid of cells of a 16 mm x 16 mm die 0.5 mm thick, each with a temperature T
// and a dissipated power P. One time step of the explicit method is
//   T'[c] = T[c] + step / Cap * (P[c] + (T[N] + T[S] - 2 T[c]) / Ry
//                                     + (T[E] + T[W] - 2 T[c]) / Rx + (T_amb - T[c]) / Rz)
// with Cap, Rx, Ry, Rz the cell's thermal capacitance and lateral and vertical resistances
// (from the cell's size and silicon's conductivity and specific heat) and the step set by
// the precision over the largest slope; a neighbour outside the die is the cell itself (no
// heat crosses the die's edge).
//
// Memory: a launch runs `iters` time steps on overlapping tiles ("pyramid"): each 16 x 16
// CTA loads a tile of T (and of P) with a halo of `iters` cells on every side into shared
// memory, runs `iters` steps there with a barrier between them, each step valid on a region
// one cell smaller on every side, and writes the inner (16 - 2 iters)^2 cells. Neighbouring
// CTAs load and compute their overlaps twice: fewer launches and global round trips for some
// redundant work. The host ping-pongs two temperature buffers between launches.
#define TILE 16

#define T_CHIP 0.0005f       // die thickness (m)
#define CHIP_SIDE 0.016f     // die width and height (m)
#define K_SI 100.0f          // thermal conductivity of silicon (W / (m K))
#define SPEC_HEAT_SI 1.75e6f // volumetric specific heat of silicon (J / (m^3 K))
#define FACTOR_CHIP 0.5f     // capacitance fitting factor
#define MAX_PD 3.0e6f        // largest power density (W / m^3)
#define PRECISION 0.001f     // temperature precision of a step (K)
#define T_AMB 80.0f          // ambient temperature

__global__ void hotspot_steps(const float* power, const float* t_in, float* t_out, int rows,
                              int cols, int iters)
{
    __shared__ float t_tile[TILE][TILE];
    __shared__ float p_tile[TILE][TILE];
    __shared__ float t_next[TILE][TILE];

    const float cell_h = CHIP_SIDE / rows;
    const float cell_w = CHIP_SIDE / cols;
    const float cap = FACTOR_CHIP * SPEC_HEAT_SI * T_CHIP * cell_w * cell_h;
    const float rx = cell_w / (2.0f * K_SI * T_CHIP * cell_h);
    const float ry = cell_h / (2.0f * K_SI * T_CHIP * cell_w);
    const float rz = T_CHIP / (K_SI * cell_h * cell_w);
    const float max_slope = MAX_PD / (FACTOR_CHIP * T_CHIP * SPEC_HEAT_SI);
    const float step_over_cap = (PRECISION / max_slope) / cap;
    const float gx = 1.0f / rx, gy = 1.0f / ry, gz = 1.0f / rz;

    const int out_side = TILE - 2 * iters;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int r = blockIdx.y * out_side - iters + ty; // this thread's cell in the grid
    const int c = blockIdx.x * out_side - iters + tx;
    const bool inside = r >= 0 && r < rows && c >= 0 && c < cols;
    if (inside) {
        t_tile[ty][tx] = t_in[r * cols + c];
        p_tile[ty][tx] = power[r * cols + c];
    }
    __syncthreads();

    // The neighbours' tile positions, the cell itself where the die ends.
    const int n = r == 0 ? ty : ty - 1;
    const int s = r == rows - 1 ? ty : ty + 1;
    const int w = c == 0 ? tx : tx - 1;
    const int e = c == cols - 1 ? tx : tx + 1;

    bool computed = false;
    for (int k = 1; k <= iters; ++k) {
        computed = inside && tx >= k && tx < TILE - k && ty >= k && ty < TILE - k;
        if (computed) {
            const float t = t_tile[ty][tx];
            t_next[ty][tx] =
                t + step_over_cap *
                        (p_tile[ty][tx] + (t_tile[n][tx] + t_tile[s][tx] - 2.0f * t) * gy +
                         (t_tile[ty][e] + t_tile[ty][w] - 2.0f * t) * gx + (T_AMB - t) * gz);
        }
        __syncthreads();
        if (computed)
            t_tile[ty][tx] = t_next[ty][tx];
        __syncthreads();
    }
    if (computed)
        t_out[r * cols + c] = t_tile[ty][tx];
}
