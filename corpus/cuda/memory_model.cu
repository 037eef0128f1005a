// Memory model and miscellany: fences at each scope, acquire/release through cuda::atomic_ref
// and cuda::ptx::ld/st, volatile and cache-hinted loads/stores, special registers, clocks,
// nanosleep, named barriers, and __syncthreads_count/_and/_or.
#include <cuda/atomic>
#include <cuda/ptx>
#include <stdint.h>

namespace ptx = cuda::ptx;

extern "C" __global__ void message_passing(int* data, int* flag, int* seen) {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        data[0] = 42;
        __threadfence();
        f.store(1, cuda::memory_order_release);
    } else if (threadIdx.x == 0) {
        while (f.load(cuda::memory_order_acquire) == 0) __nanosleep(100);
        seen[blockIdx.x] = data[0];
    }
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
    __threadfence_block();
    __threadfence_system();
}

extern "C" __global__ void cache_hints(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = __ldcg(in + i);
    float b = __ldca(in + (i + 1) % n);
    float c = __ldcs(in + (i + 2) % n);
    float d = __ldlu(in + (i + 3) % n);
    float e = __ldcv(in + (i + 4) % n);
    __stcg(out + i, a + b);
    __stcs(out + n + i, c + d);
    __stwt(out + 2 * n + i, e);
    __stwb(out + 3 * n + i, a);
    volatile float* v = out + 4 * n;
    v[i] = v[i] + 1.0f;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(in + i));
}

extern "C" __global__ void ptx_ld_st(int* p, int* q) {
    int v = ptx::ld(ptx::space_global, p + threadIdx.x);
    ptx::st(ptx::space_global, q + threadIdx.x, v * 2);
}

extern "C" __global__ void registers_and_clocks(unsigned long long* out) {
    unsigned long long t0 = clock64();
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    unsigned smid, warpid, laneid, nsmid;
    asm("mov.u32 %0, %%smid;" : "=r"(smid));
    asm("mov.u32 %0, %%warpid;" : "=r"(warpid));
    asm("mov.u32 %0, %%laneid;" : "=r"(laneid));
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    unsigned lt = ptx::get_sreg_lanemask_lt();
    unsigned dyn = ptx::get_sreg_dynamic_smem_size();
    __nanosleep(1000);
    unsigned long long t1 = clock64();
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * 6;
    out[base + 0] = t1 - t0;
    out[base + 1] = g0;
    out[base + 2] = ((unsigned long long)smid << 32) | warpid;
    out[base + 3] = ((unsigned long long)laneid << 32) | nsmid;
    out[base + 4] = ((unsigned long long)lt << 32) | dyn;
    out[base + 5] = clock() + gridDim.x + blockDim.y + gridDim.z;
}

extern "C" __global__ void named_barriers(const int* in, int* out) {
    __shared__ int stage[256];
    int warp = threadIdx.x / 32;
    stage[threadIdx.x] = in[threadIdx.x];
    if (warp < 4) {
        asm volatile("bar.sync 1, 128;");
        out[threadIdx.x] = stage[(threadIdx.x + 32) % 128];
    } else {
        asm volatile("bar.arrive 2, 256;");
    }
    if (warp >= 4) return;
    int cnt = __syncthreads_count(in[threadIdx.x] > 0);
    int all = __syncthreads_and(in[threadIdx.x] != 0);
    int any = __syncthreads_or(in[threadIdx.x] < 0);
    if (threadIdx.x == 0) out[256] = cnt * 4 + all * 2 + any;
}

extern "C" __global__ void generic_address_spaces(int* g, int sel) {
    __shared__ int s[32];
    int local[8];
    for (int k = 0; k < 8; ++k) local[k] = g[k] + k;
    s[threadIdx.x % 32] = g[threadIdx.x];
    __syncthreads();
    int* p = sel == 0 ? g : (sel == 1 ? s : local);
    int r = p[threadIdx.x % 8];
    r += __isShared(p) * 100 + __isGlobal(p) * 10 + __isLocal(p);
    g[threadIdx.x] = r;
}
