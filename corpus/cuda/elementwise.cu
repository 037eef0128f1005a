// Elementwise kernels: grid-stride loops, vector loads, half/bf16 arithmetic,
// predication and simple type conversions.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

extern "C" __global__ void daxpy_vec2(int n, double a, const double2* x, double2* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        double2 xv = x[i];
        double2 yv = y[i];
        yv.x = fma(a, xv.x, yv.x);
        yv.y = fma(a, xv.y, yv.y);
        y[i] = yv;
    }
}

extern "C" __global__ void add_float4(const float4* a, const float4* b, float4* c, size_t n4) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 p = __ldg(&a[i]);
        float4 q = __ldg(&b[i]);
        c[i] = make_float4(p.x + q.x, p.y + q.y, p.z + q.z, p.w + q.w);
    }
}

extern "C" __global__ void relu_half2(__half2* v, int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        __half2 z = __float2half2_rn(0.0f);
        v[i] = __hmax2(v[i], z);
    }
}

extern "C" __global__ void gelu_bf16(const __nv_bfloat16* in, __nv_bfloat16* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = __bfloat162float(in[i]);
        float t = tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
        out[i] = __float2bfloat16(0.5f * x * (1.0f + t));
    }
}

extern "C" __global__ void clamp_convert(const float* in, int8_t* q, uint16_t* u, int n, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = in[i] * scale;
    int r = __float2int_rn(s);
    q[i] = (int8_t)max(-128, min(127, r));
    u[i] = (uint16_t)__float2uint_rz(fabsf(s));
}

template <typename T, int UNROLL>
__global__ void scale_unrolled(T* p, T s, int n) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        int i = base + k;
        if (i < n) p[i] = p[i] * s;
    }
}

template __global__ void scale_unrolled<float, 4>(float*, float, int);
template __global__ void scale_unrolled<int, 8>(int*, int, int);
template __global__ void scale_unrolled<double, 2>(double*, double, int);
template __global__ void scale_unrolled<__half, 4>(__half*, __half, int);

extern "C" __global__ void select_where(const float* c, const float* a, const float* b, float* o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = c[i] > 0.0f ? a[i] : b[i];
}

extern "C" __global__ void copy_2d(const float* src, size_t spitch, float* dst, size_t dpitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        const float* srow = (const float*)((const char*)src + y * spitch);
        float* drow = (float*)((char*)dst + y * dpitch);
        drow[x] = srow[x];
    }
}
