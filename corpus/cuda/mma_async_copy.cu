// Warp-level mma.sync with ldmatrix (inline PTX), cp.async through __pipeline_memcpy_async,
// cuda::memcpy_async with cuda::barrier, and a multi-stage cuda::pipeline.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <stdint.h>

namespace cg = cooperative_groups;

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One warp: a 16x16 (A, row-major) times 16x8 (B, col-major) fp16 tile, fp32 accumulate,
// through a double-buffered cp.async pipeline over K.
extern "C" __global__ void mma_m16n8k16_pipelined(const half* A, const half* B, float* C, int K) {
    __shared__ alignas(128) half As[2][16 * 16];
    __shared__ alignas(128) half Bs[2][8 * 16];
    int lane = threadIdx.x;
    float acc[4] = {0, 0, 0, 0};
    auto issue = [&](int stage, int k0) {
        // 32 lanes x 16 bytes = the A tile; lanes 0..15 also fetch the B tile.
        int r = lane / 2, c = (lane % 2) * 8;
        __pipeline_memcpy_async(&As[stage][r * 16 + c], A + r * K + k0 + c, 16);
        if (lane < 16) {
            int n = lane / 2;
            __pipeline_memcpy_async(&Bs[stage][n * 16 + c], B + n * K + k0 + c, 16);
        }
        __pipeline_commit();
    };
    issue(0, 0);
    for (int k0 = 0, s = 0; k0 < K; k0 += 16, s ^= 1) {
        if (k0 + 16 < K) {
            issue(s ^ 1, k0 + 16);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncwarp();
        uint32_t a0, a1, a2, a3, b0, b1;
        const half* pa = &As[s][(lane % 16) * 16 + (lane / 16) * 8];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                     : "r"(smem_u32(pa)));
        const half* pb = &Bs[s][(lane % 8) * 16 + ((lane / 8) % 2) * 8];
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(b0), "=r"(b1) : "r"(smem_u32(pb)));
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncwarp();
    }
    int g = lane / 4, t = lane % 4;
    C[g * 8 + t * 2] = acc[0];
    C[g * 8 + t * 2 + 1] = acc[1];
    C[(g + 8) * 8 + t * 2] = acc[2];
    C[(g + 8) * 8 + t * 2 + 1] = acc[3];
}

extern "C" __global__ void mma_other_types(const uint32_t* a, const uint32_t* b, int* ci, float* cf, double* cd) {
    uint32_t a0 = a[threadIdx.x * 4], a1 = a[threadIdx.x * 4 + 1], a2 = a[threadIdx.x * 4 + 2], a3 = a[threadIdx.x * 4 + 3];
    uint32_t b0 = b[threadIdx.x * 2], b1 = b[threadIdx.x * 2 + 1];
    int d[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    float f[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#if __CUDA_ARCH__ >= 890
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
    double dd[2] = {0, 0};
    double da = __longlong_as_double(a0), db = __longlong_as_double(b0);
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(dd[0]), "+d"(dd[1])
                 : "d"(da), "d"(db));
    for (int k = 0; k < 4; ++k) {
        ci[threadIdx.x * 4 + k] = d[k];
        cf[threadIdx.x * 4 + k] = f[k];
    }
    cd[threadIdx.x * 2] = dd[0];
    cd[threadIdx.x * 2 + 1] = dd[1];
}

extern "C" __global__ void ldmatrix_trans_stmatrix(const half* in, half* out) {
    __shared__ alignas(16) half tile[16 * 16];
    for (int k = threadIdx.x; k < 256; k += 32) tile[k] = in[k];
    __syncwarp();
    uint32_t r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(smem_u32(&tile[(threadIdx.x % 16) * 16 + (threadIdx.x / 16) * 8])));
    __syncwarp();
#if __CUDA_ARCH__ >= 900
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(smem_u32(&tile[(threadIdx.x % 16) * 16 + (threadIdx.x / 16) * 8])),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3));
#else
    uint32_t* t32 = reinterpret_cast<uint32_t*>(tile);
    t32[threadIdx.x * 4 + 0] = r0;
    t32[threadIdx.x * 4 + 1] = r1;
    t32[threadIdx.x * 4 + 2] = r2;
    t32[threadIdx.x * 4 + 3] = r3;
#endif
    __syncwarp();
    for (int k = threadIdx.x; k < 256; k += 32) out[k] = tile[k];
}

extern "C" __global__ void memcpy_async_barrier(const float4* in, float4* out, int chunk) {
    extern __shared__ float4 buf[];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in + blockIdx.x * chunk, cuda::aligned_size_t<16>(sizeof(float4) * chunk), bar);
    bar.arrive_and_wait();
    for (int k = threadIdx.x; k < chunk; k += blockDim.x) {
        float4 v = buf[k];
        out[blockIdx.x * chunk + k] = make_float4(v.w, v.z, v.y, v.x);
    }
}

extern "C" __global__ void pipeline_stages(const int* in, int* out, int tiles, int tile) {
    constexpr int STAGES = 3;
    extern __shared__ int stage_buf[];
    auto block = cg::this_thread_block();
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto pipe = cuda::make_pipeline(block, &state);
    int sum = 0;
    for (int fetch = 0, use = 0; use < tiles; ++use) {
        for (; fetch < tiles && fetch < use + STAGES; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, stage_buf + (fetch % STAGES) * tile, in + fetch * tile, sizeof(int) * tile, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        for (int k = threadIdx.x; k < tile; k += blockDim.x) sum += stage_buf[(use % STAGES) * tile + k];
        pipe.consumer_release();
    }
    atomicAdd(out, sum);
}
