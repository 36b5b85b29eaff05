// Level-synchronous breadth-first search over a CSR graph (row_ptr, col_idx), one launch of
// bfs_expand per level: the host loop (the workload's repeat schedule) runs bfs_expand then
// bfs_advance until a level discovers no node.
//   level[v]: 0 at the source, 0xffffffff while v is unvisited;
//   state[0]: the level being expanded; state[1]: set when this pass discovered a node;
//   state[2]: 1 while another pass is needed (the host reads it between passes).
// bfs_expand scans every node (coalesced loads of level), and each node of the current level
// reads its edge list (a short contiguous run of col_idx) and the level of each neighbour
// (scattered loads), writing cur + 1 into the unvisited ones (threads that find the same
// neighbour write the same value) and setting state[1].
#define UNVISITED 0xffffffffu

__global__ void bfs_expand(const unsigned int* row_ptr, const unsigned int* col_idx,
                           unsigned int* level, unsigned int* state, int nodes)
{
    const unsigned int cur = state[0];
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < nodes; v += blockDim.x * gridDim.x) {
        if (level[v] != cur)
            continue;
        for (unsigned int k = row_ptr[v]; k < row_ptr[v + 1]; ++k) {
            const unsigned int u = col_idx[k];
            if (level[u] == UNVISITED) {
                level[u] = cur + 1;
                state[1] = 1;
            }
        }
    }
}

// One thread: the host's bookkeeping between levels.
__global__ void bfs_advance(unsigned int* state)
{
    if (state[1] != 0) {
        state[0] += 1;
        state[1] = 0;
        state[2] = 1;
    } else {
        state[2] = 0;
    }
}

// One thread: the source's level (the host's cudaMemset of one word).
__global__ void bfs_source(unsigned int* level, int source)
{
    level[source] = 0;
}
