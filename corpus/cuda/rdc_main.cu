// Separate compilation, caller side: calls extern device functions defined in rdc_lib.cu
// (.extern .func in PTX under -rdc=true), reads an extern __device__ variable, and launches a
// child grid from the device (dynamic parallelism, which needs -rdc=true).
#include "rdc_shared.cuh"

extern "C" __global__ void child_normalize(Vec3* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float l = norm(v[i]);
        v[i] = Vec3{v[i].x / l, v[i].y / l, v[i].z / l};
    }
}

extern "C" __global__ void rdc_entry(const Vec3* a, const Vec3* b, Vec3* c, float* p, int* steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = cross(a[i], b[i]);
        p[i] = poly_eval(norm(c[i])) + rdc_coeffs[i & 7];
        steps[i] = collatz_steps(i + 1) + rdc_call_count;
    }
#if defined(PTX_CORPUS_DEVICE_LAUNCH)
    if (i == 0) {
        child_normalize<<<(n + 127) / 128, 128>>>(c, n);
        lib_kernel<<<(n + 127) / 128, 128, 0, cudaStreamFireAndForget>>>(p, n);
    }
#endif
}
