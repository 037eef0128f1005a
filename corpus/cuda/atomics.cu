// Atomics and reductions on global and shared memory, CAS loops and scoped atomics.
#include <cuda/atomic>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void histogram_shared(const unsigned char* data, unsigned* bins, int n) {
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

__device__ float atomic_max_float(float* addr, float v) {
    int* ia = (int*)addr;
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(ia, assumed, __float_as_int(v));
    } while (assumed != old);
    return __int_as_float(old);
}

extern "C" __global__ void many_atomics(float* f, double* d, int* i, unsigned long long* u,
                                        __half2* h, __nv_bfloat162* b, const float* x) {
    float v = x[threadIdx.x];
    atomicAdd(f, v);
    atomicAdd(d, (double)v);
    atomicSub(i, 1);
    atomicMax(i + 1, (int)v);
    atomicMin(i + 2, (int)v);
    atomicAnd(i + 3, 0xff);
    atomicOr(i + 4, 1 << (threadIdx.x & 31));
    atomicXor(i + 5, threadIdx.x);
    atomicExch(i + 6, threadIdx.x);
    atomicInc((unsigned*)i + 7, 100u);
    atomicDec((unsigned*)i + 8, 100u);
    atomicAdd(u, 1ull);
    atomicCAS(u + 1, 0ull, (unsigned long long)threadIdx.x);
    atomicAdd(h, __floats2half2_rn(v, -v));
    atomicAdd(b, __floats2bfloat162_rn(v, v));
    atomic_max_float(f + 1, v);
    atomicAdd_block(f + 2, v);
    atomicAdd_system(f + 3, v);
}

extern "C" __global__ void scoped_atomic_ref(int* counter, int* flag, int* data) {
    cuda::atomic_ref<int, cuda::thread_scope_device> c(*counter);
    cuda::atomic_ref<int, cuda::thread_scope_system> f(*flag);
    cuda::atomic_ref<int, cuda::thread_scope_block> d(data[blockIdx.x]);
    int ticket = c.fetch_add(1, cuda::memory_order_relaxed);
    d.fetch_max(ticket, cuda::memory_order_acq_rel);
    if (ticket == 0) f.store(1, cuda::memory_order_release);
    while (f.load(cuda::memory_order_acquire) == 0) {}
    int expected = 0;
    c.compare_exchange_strong(expected, -1, cuda::memory_order_seq_cst);
}

extern "C" __global__ void last_block_done(const float* in, float* partials, float* result, unsigned* count) {
    __shared__ bool is_last;
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence();
        unsigned t = atomicInc(count, gridDim.x);
        is_last = (t == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last && threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) s += ((volatile float*)partials)[b];
        *result = s;
        *count = 0;
    }
}
