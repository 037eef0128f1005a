// Blackwell fifth-generation tensor cores through cuda::ptx: tensor-memory allocation,
// tcgen05.mma from shared-memory descriptors, commit to an mbarrier, tcgen05.ld/st/cp,
// fences and deallocation (sm_100a).
#include <cuda/ptx>
#include <cuda_fp16.h>
#include <stdint.h>

namespace ptx = cuda::ptx;

__device__ __forceinline__ uint64_t smem_desc(const void* p, uint32_t lbo, uint32_t sbo) {
    uint64_t addr = static_cast<uint64_t>(__cvta_generic_to_shared(p));
    uint64_t d = (addr & 0x3FFFF) >> 4;
    d |= (uint64_t)((lbo >> 4) & 0x3FFF) << 16;
    d |= (uint64_t)((sbo >> 4) & 0x3FFF) << 32;
    d |= (uint64_t)1 << 46;  // descriptor version for tcgen05
    return d;
}

__device__ __forceinline__ uint32_t instr_desc_f16(int m, int n) {
    uint32_t d = 0;
    d |= 1u << 4;                     // D format: f32
    d |= (uint32_t)(n >> 3) << 17;    // N / 8
    d |= (uint32_t)(m >> 4) << 24;    // M / 16
    return d;
}

// One CTA computes a 128x64 fp32 tile of A(128x16) * B(64x16)^T with a single tcgen05.mma,
// then every warp reads its 32 lanes of the accumulator back from tensor memory.
extern "C" __global__ void __launch_bounds__(128) tcgen05_gemm_tile(const half* a, const half* b, float* c, int k_steps) {
    __shared__ alignas(1024) half As[128 * 16];
    __shared__ alignas(1024) half Bs[64 * 16];
    __shared__ alignas(8) uint64_t mma_bar;
    __shared__ uint32_t tmem_base;
    int warp = threadIdx.x / 32;
    if (warp == 0) {
        ptx::tcgen05_alloc(ptx::cta_group_1, &tmem_base, 64u);
        ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);
    }
    if (threadIdx.x == 32) {
        ptx::mbarrier_init(&mma_bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    ptx::tcgen05_fence_after_thread_sync();
    uint32_t tmem = tmem_base;
    for (int step = 0; step < k_steps; ++step) {
        for (int k = threadIdx.x; k < 128 * 16; k += blockDim.x) As[k] = a[step * 128 * 16 + k];
        for (int k = threadIdx.x; k < 64 * 16; k += blockDim.x) Bs[k] = b[step * 64 * 16 + k];
        ptx::fence_proxy_async(ptx::space_shared);
        __syncthreads();
        if (threadIdx.x == 0) {
            ptx::tcgen05_fence_after_thread_sync();
            ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem, smem_desc(As, 128, 256), smem_desc(Bs, 128, 256),
                             instr_desc_f16(128, 64), step > 0);
            ptx::tcgen05_commit(ptx::cta_group_1, &mma_bar);
        }
        while (!ptx::mbarrier_try_wait_parity(&mma_bar, (uint32_t)(step & 1))) {}
        ptx::tcgen05_fence_after_thread_sync();
    }
    uint32_t lane_base = tmem + ((uint32_t)(warp * 32) << 16);
    float acc[64];
    for (int col = 0; col < 64; col += 4) {
        uint32_t r[4];
        ptx::tcgen05_ld_32x32b(r, lane_base + col);
        ptx::tcgen05_wait_ld();
        for (int j = 0; j < 4; ++j) acc[col + j] = __uint_as_float(r[j]);
    }
    for (int col = 0; col < 64; ++col) c[(warp * 32 + threadIdx.x % 32) * 64 + col] = acc[col];
    ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    if (warp == 0) ptx::tcgen05_dealloc(ptx::cta_group_1, tmem, 64u);
}

// Tensor memory as scratch: store registers, shift rows, copy a shared-memory matrix in,
// load it all back.
extern "C" __global__ void __launch_bounds__(128) tcgen05_st_cp_ld(const uint32_t* in, uint32_t* out) {
    __shared__ alignas(1024) uint32_t staged[128 * 8];
    __shared__ uint32_t tmem_base;
    int warp = threadIdx.x / 32;
    for (int k = threadIdx.x; k < 128 * 8; k += blockDim.x) staged[k] = in[k];
    if (warp == 0) ptx::tcgen05_alloc(ptx::cta_group_1, &tmem_base, 32u);
    ptx::fence_proxy_async(ptx::space_shared);
    ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    ptx::tcgen05_fence_after_thread_sync();
    uint32_t lane_base = tmem_base + ((uint32_t)(warp * 32) << 16);
    uint32_t vals[4] = {in[threadIdx.x], in[threadIdx.x] + 1, in[threadIdx.x] + 2, in[threadIdx.x] + 3};
    ptx::tcgen05_st_32x32b(lane_base, vals);
    ptx::tcgen05_wait_st();
    ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    ptx::tcgen05_fence_after_thread_sync();
    if (threadIdx.x == 0) {
        ptx::tcgen05_cp_128x256b(ptx::cta_group_1, tmem_base + 8, smem_desc(staged, 128, 256));
        ptx::tcgen05_shift_down(ptx::cta_group_1, tmem_base + 16);
    }
    ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    ptx::tcgen05_fence_after_thread_sync();
    uint32_t r[8];
    ptx::tcgen05_ld_32x32b(r, lane_base);
    ptx::tcgen05_wait_ld();
    for (int j = 0; j < 8; ++j) out[threadIdx.x * 8 + j] = r[j];
    ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    if (warp == 0) ptx::tcgen05_dealloc(ptx::cta_group_1, tmem_base, 32u);
}
