// Shared memory: tiled transpose with padding, dynamic shared memory, a shared-memory
// tiled SGEMM with register blocking, and a block-wide prefix sum.
#define TILE 32

extern "C" __global__ void transpose_padded(const float* in, float* out, int w, int h) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < h && y + j < w) out[(size_t)(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void dyn_shared_reverse(int* d, int n) {
    extern __shared__ int s[];
    int t = threadIdx.x;
    if (t < n) s[t] = d[t];
    __syncthreads();
    if (t < n) d[t] = s[n - t - 1];
}

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) sgemm_tiled(int M, int N, int K, const float* A, const float* B, float* C) {
    __shared__ float As[BK][BM];
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
    const int nthreads = (BM / TM) * (BN / TN);
    float acc[TM][TN] = {};
    float ra[TM], rb[TN];
    const float* Ab = A + (size_t)blockIdx.y * BM * K;
    const float* Bb = B + (size_t)blockIdx.x * BN;
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK; e += nthreads) {
            int r = e / BK, c = e % BK;
            As[c][r] = Ab[(size_t)r * K + k0 + c];
        }
        for (int e = threadIdx.x; e < BK * BN; e += nthreads) {
            int r = e / BN, c = e % BN;
            Bs[r][c] = Bb[(size_t)(k0 + r) * N + c];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
            for (int i = 0; i < TM; ++i) ra[i] = As[kk][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) rb[j] = Bs[kk][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            int r = blockIdx.y * BM + ty * TM + i, c = blockIdx.x * BN + tx * TN + j;
            if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
        }
}

template __global__ void sgemm_tiled<64, 64, 8, 4, 4>(int, int, int, const float*, const float*, float*);
template __global__ void sgemm_tiled<128, 128, 8, 8, 8>(int, int, int, const float*, const float*, float*);

extern "C" __global__ void __launch_bounds__(256, 2) block_scan_blelloch(const int* in, int* out) {
    __shared__ int temp[512];
    int t = threadIdx.x;
    temp[2 * t] = in[blockIdx.x * 512 + 2 * t];
    temp[2 * t + 1] = in[blockIdx.x * 512 + 2 * t + 1];
    int offset = 1;
    for (int d = 256; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (t == 0) temp[511] = 0;
    for (int d = 1; d < 512; d *= 2) {
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
            int x = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += x;
        }
    }
    __syncthreads();
    out[blockIdx.x * 512 + 2 * t] = temp[2 * t];
    out[blockIdx.x * 512 + 2 * t + 1] = temp[2 * t + 1];
}

__shared__ float static_table[64];

extern "C" __global__ void static_shared_lookup(const int* idx, float* out, const float* table, int n) {
    if (threadIdx.x < 64) static_table[threadIdx.x] = table[threadIdx.x];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = static_table[idx[i] & 63];
}
