// Thread block clusters: __cluster_dims__, distributed shared memory through
// cooperative groups (mapa), cluster barriers and special registers through cuda::ptx,
// st.async into a peer block's shared memory, and a multicast TMA load (sm_90a).
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/ptx>
#include <stdint.h>

namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

// A histogram split across the blocks of a cluster: each block owns a slice of the bins.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_histogram(const int* in, int* bins, int n, int nbins) {
    extern __shared__ int slice[];
    cg::cluster_group cluster = cg::this_cluster();
    int per_block = nbins / cluster.num_blocks();
    for (int k = threadIdx.x; k < per_block; k += blockDim.x) slice[k] = 0;
    cluster.sync();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = min(max(in[i], 0), nbins - 1);
        int* dst = cluster.map_shared_rank(slice, b / per_block);
        atomicAdd(dst + b % per_block, 1);
    }
    cluster.sync();
    int base = cluster.block_rank() * per_block;
    for (int k = threadIdx.x; k < per_block; k += blockDim.x) atomicAdd(&bins[base + k], slice[k]);
}

// A neighbour exchange with explicit cluster barriers and special registers.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_ring_exchange(const float* in, float* out) {
    __shared__ float mine[128];
    mine[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
    uint32_t rank = ptx::get_sreg_cluster_ctarank();
    uint32_t count = ptx::get_sreg_cluster_nctarank();
    cg::cluster_group cluster = cg::this_cluster();
    float* peer = cluster.map_shared_rank(mine, (rank + 1) % count);
    float v = peer[threadIdx.x];
    uint32_t owner = ptx::getctarank(ptx::space_cluster, peer);
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
    out[blockIdx.x * 128 + threadIdx.x] = v + (float)owner + (float)ptx::get_sreg_clusterid_x() + (float)ptx::get_sreg_cluster_ctaid_x();
}

// st.async pushes values into the next block's shared memory and completes its mbarrier.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_st_async(const int* in, int* out) {
    __shared__ alignas(16) int inbox[64];
    __shared__ alignas(8) uint64_t bar;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    cluster.sync();
    if (threadIdx.x == 0)
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &bar, 64 * sizeof(int));
    unsigned peer_rank = (cluster.block_rank() + 1) % cluster.num_blocks();
    int* remote_inbox = cluster.map_shared_rank(inbox, peer_rank);
    uint64_t* remote_bar = cluster.map_shared_rank(&bar, peer_rank);
    if (threadIdx.x < 64) {
        cluster.sync();
        ptx::st_async(remote_inbox + threadIdx.x, in[blockIdx.x * 64 + threadIdx.x], remote_bar);
    } else {
        cluster.sync();
    }
    while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0)) {}
    if (threadIdx.x < 64) out[blockIdx.x * 64 + threadIdx.x] = inbox[threadIdx.x];
    cluster.sync();
}

// Multicast TMA: block rank 0 loads a box once for every block in the cluster.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_tma_multicast(const __grid_constant__ CUtensorMap map, float* out) {
    __shared__ alignas(128) float tile[32 * 32];
    __shared__ alignas(8) uint64_t bar;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &bar, sizeof(tile));
    }
    cluster.sync();
    if (threadIdx.x == 0 && cluster.block_rank() == 0) {
        int32_t coords[2] = {0, (int32_t)(blockIdx.y * 32)};
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL)
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &map, coords, &bar, (uint16_t)0x3);
#else
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &map, coords, &bar);
#endif
    }
    while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0)) {}
    for (int k = threadIdx.x; k < 32 * 32; k += blockDim.x) out[(blockIdx.x * gridDim.y + blockIdx.y) * 1024 + k] = tile[k];
    cluster.sync();
}

// No compile-time cluster shape: the launch decides it; queries use the cluster registers.
extern "C" __global__ void cluster_runtime_shape(int* out) {
    cg::cluster_group cluster = cg::this_cluster();
    dim3 d = cluster.dim_blocks();
    dim3 r = cluster.block_index();
    if (threadIdx.x == 0) out[blockIdx.x] = (int)(d.x * 10000 + r.x * 100 + cluster.num_threads() % 100);
    cluster.sync();
}
