// Separate compilation, library side: externally visible device functions and variables,
// used by rdc_main.cu (compiled with -rdc=true, these stay .visible .func).
#include "rdc_shared.cuh"

__device__ int rdc_call_count;
__constant__ float rdc_coeffs[8] = {1.0f, 0.5f, 0.25f, 0.125f, 0.0625f, 0.03125f, 0.015625f, 0.0078125f};

__device__ float poly_eval(float x) {
    float acc = 0.0f;
#pragma unroll
    for (int k = 7; k >= 0; --k) acc = fmaf(acc, x, rdc_coeffs[k]);
    atomicAdd(&rdc_call_count, 1);
    return acc;
}

__device__ Vec3 cross(Vec3 a, Vec3 b) {
    return Vec3{a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

__device__ __noinline__ float norm(Vec3 v) { return sqrtf(v.x * v.x + v.y * v.y + v.z * v.z); }

__device__ int collatz_steps(long long n) {
    int steps = 0;
    while (n > 1 && steps < 1000) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        ++steps;
    }
    return steps;
}

extern "C" __global__ void lib_kernel(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = poly_eval(x[i]);
}
