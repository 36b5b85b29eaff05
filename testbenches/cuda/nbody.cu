// All-pairs N-body, one time step (semi-implicit Euler): body i at pos[i] = (x, y, z, mass)
// feels a[i] = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps^2)^(3/2) (the softening eps keeps
// the self term and close pairs finite); then v[i] += a[i] dt (in place) and
// newpos[i] = pos[i] + v[i] dt, the mass carried over.
//
// Memory behaviour: one thread per body. The bodies are read in tiles of blockDim.x float4s:
// each thread loads one body of the tile into dynamic shared memory (coalesced 16-byte loads),
// a barrier, then every thread reads the whole tile from shared memory (a broadcast: all lanes
// read the same word), a barrier before the next tile. Global traffic is n / blockDim.x reads
// of the whole position array per CTA; the inner loop is compute bound (about 20 FP
// instructions per interaction, one rsqrt). Bodies past n load mass 0 and add nothing.
__global__ void nbody_step(const float4* pos, float4* vel, float4* newpos, int n, float dt,
                           float eps)
{
    extern __shared__ float4 tile[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float4 p = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float eps2 = eps * eps;
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < n; base += blockDim.x) {
        const int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        __syncthreads();
        for (int k = 0; k < blockDim.x; ++k) {
            const float4 q = tile[k];
            const float dx = q.x - p.x;
            const float dy = q.y - p.y;
            const float dz = q.z - p.z;
            const float r2 = dx * dx + dy * dy + dz * dz + eps2;
            const float inv = rsqrtf(r2);
            const float s = q.w * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        __syncthreads();
    }
    if (i < n) {
        float4 v = vel[i];
        v.x += ax * dt;
        v.y += ay * dt;
        v.z += az * dt;
        vel[i] = v;
        newpos[i] = make_float4(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
    }
}
