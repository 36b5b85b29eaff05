// Constant memory in three forms (issue 36): a float4 at a known address (ld.const.v4 at an
// immediate offset: one bulk CDL), a float4 indexed by the thread (legacy CDLs at a register
// offset) and an int table with an initialiser that `constants:` does not override; the
// float4 loads sit on the two sides of a divergent branch.
__constant__ float4 lut4[4];
__constant__ int offsets[8] = {0, 1, 2, 3, 5, 8, 13, 21};

__global__ void const_mix(float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = static_cast<float>(offsets[i & 7]);
    if (i % 3 == 0) {
        const float4 v = lut4[1];
        acc += v.x + 2.0f * v.y + 3.0f * v.z + 4.0f * v.w;
    } else {
        const float4 w = lut4[i & 3];
        acc += w.x - w.w;
    }
    out[i] = acc;
}
