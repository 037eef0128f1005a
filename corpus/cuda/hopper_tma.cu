// Hopper-class asynchronous data movement through CCCL's cuda::ptx: mbarriers, TMA tensor
// loads and stores, 1-D bulk copies and bulk reductions, proxy fences, plus wgmma (sm_90a),
// setmaxnreg, elect.sync and programmatic dependent launch.
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_fp16.h>
#include <stdint.h>

namespace ptx = cuda::ptx;

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
    while (!ptx::mbarrier_try_wait_parity(bar, parity)) {}
}

// Each block loads a 64x64 fp32 box through TMA, scales it in shared memory and
// stores it back through TMA.
extern "C" __global__ void tma_scale_2d(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map, float s) {
    __shared__ alignas(128) float tile[64 * 64];
    __shared__ alignas(8) uint64_t bar;
    int32_t coords[2] = {(int32_t)(blockIdx.x * 64), (int32_t)(blockIdx.y * 64)};
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &in_map, coords, &bar);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
    }
    wait_parity(&bar, 0);
    for (int k = threadIdx.x; k < 64 * 64; k += blockDim.x) tile[k] *= s;
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, tile);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}

// 1-D bulk copies: global -> shared with an mbarrier, shared -> global, and a bulk add-reduction.
extern "C" __global__ void bulk_copy_reduce(const int4* src, int4* dst, int* acc, int chunk_bytes) {
    extern __shared__ __align__(128) int4 buf[];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    const char* gsrc = reinterpret_cast<const char*>(src) + (size_t)blockIdx.x * chunk_bytes;
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, chunk_bytes);
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, gsrc, chunk_bytes, &bar);
    }
    wait_parity(&bar, 0);
    int n = chunk_bytes / 16;
    for (int k = threadIdx.x; k < n; k += blockDim.x) buf[k].x += 1;
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, reinterpret_cast<char*>(dst) + (size_t)blockIdx.x * chunk_bytes, buf, chunk_bytes);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, acc, reinterpret_cast<int*>(buf), 16);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
    }
}

// Producer/consumer ring of mbarriers: one producer warp streams tiles, consumers wait on
// full barriers and arrive on empty ones.
extern "C" __global__ void __launch_bounds__(384, 1) mbarrier_ring(const float* in, float* out, int tiles) {
    constexpr int STAGES = 4, TILE = 256;
    __shared__ alignas(128) float ring[STAGES][TILE];
    __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];
    int warp = threadIdx.x / 32;
    int consumers = blockDim.x - 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            ptx::mbarrier_init(&full[s], 1);
            ptx::mbarrier_init(&empty[s], consumers);
        }
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    if (warp == 0) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL)
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
#endif
        uint32_t is_leader;
        asm volatile("{\n .reg .pred p;\n elect.sync _|p, 0xffffffff;\n selp.u32 %0, 1, 0, p;\n}\n" : "=r"(is_leader));
        for (int t = 0; t < tiles; ++t) {
            int s = t % STAGES;
            if (t >= STAGES) wait_parity(&empty[s], ((t / STAGES) - 1) & 1);
            if (is_leader) {
                ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s], TILE * 4);
                ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, ring[s], in + (size_t)t * TILE, TILE * 4, &full[s]);
            }
            __syncwarp();
        }
    } else {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) || defined(__CUDA_ARCH_FEAT_SM100_ALL)
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
#endif
        float sum = 0;
        for (int t = 0; t < tiles; ++t) {
            int s = t % STAGES;
            wait_parity(&full[s], (t / STAGES) & 1);
            for (int k = threadIdx.x - 32; k < TILE; k += consumers) sum += ring[s][k];
            ptx::mbarrier_arrive(&empty[s]);
        }
        atomicAdd(out, sum);
    }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ uint64_t smem_desc(const void* p) {
    uint64_t addr = static_cast<uint64_t>(__cvta_generic_to_shared(p));
    uint64_t d = 0;
    d |= (addr & 0x3FFFF) >> 4;
    d |= (uint64_t)(16 >> 4) << 16;
    d |= (uint64_t)(128 >> 4) << 32;
    return d;
}
#endif

// One warpgroup: wgmma.mma_async m64n8k16 f32 += f16*f16 from shared-memory descriptors.
extern "C" __global__ void wgmma_m64n8k16(const half* a, const half* b, float* c) {
    __shared__ alignas(128) half As[64 * 16];
    __shared__ alignas(128) half Bs[8 * 16];
    for (int k = threadIdx.x; k < 64 * 16; k += blockDim.x) As[k] = a[k];
    for (int k = threadIdx.x; k < 8 * 16; k += blockDim.x) Bs[k] = b[k];
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    uint64_t da = smem_desc(As), db = smem_desc(Bs);
    asm volatile("wgmma.fence.sync.aligned;\n");
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %6, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "l"(da), "l"(db), "r"(0));
    asm volatile("wgmma.commit_group.sync.aligned;\n");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
#endif
    c[threadIdx.x * 4 + 0] = d0;
    c[threadIdx.x * 4 + 1] = d1;
    c[threadIdx.x * 4 + 2] = d2;
    c[threadIdx.x * 4 + 3] = d3;
    c[blockDim.x * 4 + threadIdx.x] = __half2float(As[threadIdx.x]) + __half2float(Bs[threadIdx.x % 128]);
}

// Programmatic dependent launch: wait for the previous grid, then let the next one start.
extern "C" __global__ void pdl_stage(const float* in, float* out, int n) {
    cudaGridDependencySynchronize();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * 2.0f;
    cudaTriggerProgrammaticLaunchCompletion();
}
