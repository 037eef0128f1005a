// Warp-level primitives: shuffles, votes, match, redux and warp-synchronous reductions.
#include <stdint.h>

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

__device__ __forceinline__ float warp_max_xor(float v) {
    for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
    return v;
}

extern "C" __global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = warp_sum(v);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x + 31) / 32 ? partial[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

extern "C" __global__ void row_max(const float* in, float* out, int cols) {
    const float* row = in + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, row[c]);
    m = warp_max_xor(m);
    if (threadIdx.x == 0) out[blockIdx.x] = m;
}

extern "C" __global__ void int_redux(const unsigned* in, unsigned* out) {
    unsigned v = in[blockIdx.x * 32 + threadIdx.x];
    unsigned s = __reduce_add_sync(0xffffffffu, v);
    unsigned mx = __reduce_max_sync(0xffffffffu, v);
    unsigned a = __reduce_and_sync(0xffffffffu, v);
    unsigned o = __reduce_or_sync(0xffffffffu, v);
    if (threadIdx.x == 0) {
        out[blockIdx.x * 4 + 0] = s;
        out[blockIdx.x * 4 + 1] = mx;
        out[blockIdx.x * 4 + 2] = a;
        out[blockIdx.x * 4 + 3] = o;
    }
}

extern "C" __global__ void votes(const int* in, unsigned* out) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    int all = __all_sync(0xffffffffu, v != 0);
    int any = __any_sync(0xffffffffu, v < 0);
    unsigned active = __activemask();
    unsigned peers = __match_any_sync(0xffffffffu, v);
    int pred;
    unsigned same = __match_all_sync(0xffffffffu, v, &pred);
    if ((threadIdx.x & 31) == 0) {
        out[blockIdx.x * 6 + 0] = ballot;
        out[blockIdx.x * 6 + 1] = all;
        out[blockIdx.x * 6 + 2] = any;
        out[blockIdx.x * 6 + 3] = active;
        out[blockIdx.x * 6 + 4] = __popc(peers);
        out[blockIdx.x * 6 + 5] = pred ? same : 0;
    }
}

extern "C" __global__ void inclusive_warp_scan(const int* in, int* out) {
    int lane = threadIdx.x & 31;
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int d = 1; d < 32; d <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

extern "C" __global__ void partial_mask_broadcast(const double* in, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned mask = __activemask();
        int leader = __ffs(mask) - 1;
        double v = __shfl_sync(mask, in[i], leader);
        out[i] = v;
        __syncwarp(mask);
    }
}
