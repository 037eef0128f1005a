// Math: libdevice transcendental functions in float and double, integer intrinsics,
// half/bf16/fp8 conversions and rounding modes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

extern "C" __global__ void float_math(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float s, c;
    sincosf(v, &s, &c);
    out[8 * i + 0] = expf(v) + logf(fabsf(v) + 1.0f);
    out[8 * i + 1] = powf(fabsf(v), 1.7f);
    out[8 * i + 2] = s * c + tanf(v * 0.1f);
    out[8 * i + 3] = erff(v) + erfcinvf(0.5f + 0.25f * tanhf(v));
    out[8 * i + 4] = rsqrtf(fabsf(v) + 1e-6f) + sqrtf(fabsf(v)) + cbrtf(v);
    out[8 * i + 5] = atan2f(v, 1.0f + v * v) + asinhf(v) + lgammaf(fabsf(v) + 1.0f);
    out[8 * i + 6] = __fdividef(v, 3.0f) + __expf(v) + __logf(fabsf(v) + 1.0f) + __sinf(v);
    out[8 * i + 7] = fmodf(v, 2.5f) + remainderf(v, 1.5f) + copysignf(ldexpf(v, 3), -v) + normcdff(v);
}

extern "C" __global__ void double_math(const double* x, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    out[4 * i + 0] = exp(v) + log1p(fabs(v)) + expm1(v * 0.01);
    out[4 * i + 1] = sin(v) * cos(v) + pow(fabs(v), 0.3) + hypot(v, 2.0);
    out[4 * i + 2] = sqrt(fabs(v)) / (1.0 + v * v) + rcbrt(fabs(v) + 1.0);
    out[4 * i + 3] = tgamma(fabs(v) * 0.1 + 1.0) + j0(v) + erfinv(tanh(v) * 0.5);
}

extern "C" __global__ void rounding_modes(const float* a, const float* b, float* out, double* dout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[4 * i + 0] = __fadd_rn(a[i], b[i]) + __fadd_rz(a[i], b[i]);
    out[4 * i + 1] = __fmul_ru(a[i], b[i]) + __fmul_rd(a[i], b[i]);
    out[4 * i + 2] = __fdiv_rn(a[i], b[i]) + __frcp_rz(b[i]) + __fsqrt_ru(fabsf(a[i]));
    out[4 * i + 3] = __fmaf_rz(a[i], b[i], 1.0f) + __saturatef(a[i]);
    dout[i] = __dadd_rz((double)a[i], (double)b[i]) * __drcp_rn((double)b[i]) + __fma_ru(a[i], b[i], 1.0);
}

extern "C" __global__ void integer_intrinsics(const unsigned* a, const unsigned* b, unsigned* out, unsigned long long* wide, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    out[8 * i + 0] = __popc(x) + __clz(y) + __ffs(x);
    out[8 * i + 1] = __brev(x) ^ __byte_perm(x, y, 0x5140);
    out[8 * i + 2] = __funnelshift_l(x, y, 7) + __funnelshift_r(x, y, y & 31);
    out[8 * i + 3] = __dp4a((int)x, (int)y, 5) + __dp2a_lo((int)x, (int)y, 1);
    out[8 * i + 4] = __umulhi(x, y) + __mul24((int)x, (int)y) + __sad((int)x, (int)y, 3u);
    out[8 * i + 5] = __vadd4(x, y) ^ __vabsdiffu4(x, y) ^ __vcmpgtu2(x, y);
    out[8 * i + 6] = __urhadd(x, y) + __uhadd(x, y) + x / (y | 1) + x % (y | 1);
    out[8 * i + 7] = (unsigned)(__umul64hi(x, y)) + __viaddmax_u32(x, y, 9u) + __vimax3_u32(x, y, 4u);
    wide[i] = __popcll((unsigned long long)x << 32 | y) + __clzll(y) + __brevll(x) + (unsigned long long)x * y / 7;
}

extern "C" __global__ void low_precision(const float* x, __half* h, __nv_bfloat16* bf, __nv_fp8_e4m3* e4, __nv_fp8_e5m2* e5, float* back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    __half hv = __float2half_rn(v);
    __nv_bfloat16 bv = __float2bfloat16_rz(v);
    __nv_fp8_e4m3 f8a(v);
    __nv_fp8_e5m2 f8b(v * 2.0f);
    h[i] = __hfma(hv, hv, __float2half(1.0f));
    bf[i] = __hmul(bv, bv);
    e4[i] = f8a;
    e5[i] = f8b;
    __half2 pair = __halves2half2(hv, __float2half(-v));
    back[i] = __half2float(__low2half(h2exp(pair))) + __bfloat162float(hsqrt(bv)) + (float)f8a + (float)f8b;
}
