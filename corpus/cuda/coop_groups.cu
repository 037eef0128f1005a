// Cooperative groups: thread block tiles, cg::reduce and cg::inclusive_scan, coalesced
// groups, labeled partitions, grid-wide sync, and cg::memcpy_async.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

extern "C" __global__ void tiles_reduce(const int* in, int* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> octet = cg::tiled_partition<8>(warp);
    int v = in[block.group_index().x * block.size() + block.thread_rank()];
    int ws = cg::reduce(warp, v, cg::plus<int>());
    int om = cg::reduce(octet, v, cg::greater<int>());
    int sc = cg::inclusive_scan(octet, v);
    if (warp.thread_rank() == 0) atomicAdd(out, ws);
    out[1 + block.thread_rank()] = om + sc + octet.shfl_down(v, 1) + (int)warp.ballot(v > 0);
    block.sync();
}

extern "C" __global__ void coalesced_and_labeled(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    if (v & 1) {
        cg::coalesced_group active = cg::coalesced_threads();
        int rank = active.thread_rank();
        int total = cg::reduce(active, v, cg::plus<int>());
        out[i] = rank * 1000 + total;
    }
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    cg::coalesced_group same = cg::labeled_partition(warp, v & 3);
    out[n + i] = same.size() + same.thread_rank();
}

extern "C" __global__ void grid_two_phase(float* data, float* partial, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    float s = 0;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) s += data[i];
    s = cg::reduce(cg::tiled_partition<32>(block), s, cg::plus<float>());
    if ((block.thread_rank() & 31) == 0) atomicAdd(&partial[block.group_index().x], s);
    grid.sync();
    if (grid.thread_rank() == 0) {
        float t = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
        partial[0] = t;
    }
    grid.sync();
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) data[i] /= partial[0];
}

extern "C" __global__ void async_copy_tile(const float* in, float* out, int tile) {
    extern __shared__ float sm[];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, sm, in + blockIdx.x * tile, sizeof(float) * tile);
    cg::wait(block);
    for (int k = threadIdx.x; k < tile; k += blockDim.x) out[blockIdx.x * tile + k] = sm[tile - 1 - k];
}
