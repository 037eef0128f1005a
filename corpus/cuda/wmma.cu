// WMMA (nvcuda::wmma) tensor-core fragments: f16, bf16, tf32, s8, f64 and b1 shapes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void wmma_f16_f32(const half* a, const half* b, float* c, int M, int N, int K) {
    int wm = (blockIdx.y * blockDim.y + threadIdx.y) * 16;
    int wn = (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + wm * K + k, K);
        wmma::load_matrix_sync(fb, b + wn * K + k, K);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    for (int t = 0; t < fc.num_elements; ++t) fc.x[t] = fmaxf(fc.x[t], 0.0f);
    wmma::store_matrix_sync(c + wm * N + wn, fc, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f16_acc_f16(const half* a, const half* b, half* c) {
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
    wmma::load_matrix_sync(fa, a, 32);
    wmma::load_matrix_sync(fb, b, 8);
    wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
}

extern "C" __global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {
    wmma::fragment<wmma::matrix_a, 8, 32, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, float> fc;
    wmma::fill_fragment(fc, 1.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 32);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 32, wmma::mem_col_major);
}

extern "C" __global__ void wmma_tf32(const float* a, const float* b, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    for (int t = 0; t < fa.num_elements; ++t) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
    for (int t = 0; t < fb.num_elements; ++t) fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_s8(const signed char* a, const signed char* b, int* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::fill_fragment(fc, 0);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc, true);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f64(const double* a, const double* b, double* c) {
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
    for (int k = 0; k < 32; k += 4) {
        wmma::load_matrix_sync(fa, a + k, 32);
        wmma::load_matrix_sync(fb, b + k * 8, 8);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
}

extern "C" __global__ void wmma_b1(const unsigned* a, const unsigned* b, int* c) {
    using namespace wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;
    wmma::fill_fragment(fc, 0);
    wmma::load_matrix_sync(fa, a, 128);
    wmma::load_matrix_sync(fb, b, 128);
    wmma::bmma_sync(fc, fa, fb, fc, bmmaBitOpAND);
    wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
}
