// CUB block- and warp-level collectives: load/store with transposes, reduce, scans,
// radix sort, histogram and warp reduce.
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

template <int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS) block_reduce_sum(const float* in, float* out) {
    using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Reduce = cub::BlockReduce<float, THREADS>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Reduce::TempStorage reduce;
    } tmp;
    float items[ITEMS];
    Load(tmp.load).Load(in + blockIdx.x * THREADS * ITEMS, items);
    __syncthreads();
    float s = Reduce(tmp.reduce).Sum(items);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

template __global__ void block_reduce_sum<128, 4>(const float*, float*);
template __global__ void block_reduce_sum<256, 8>(const float*, float*);

struct MaxOp {
    __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

extern "C" __global__ void __launch_bounds__(256) block_scans(const int* in, int* inc, int* exc, int* mx) {
    using Scan = cub::BlockScan<int, 256, cub::BLOCK_SCAN_WARP_SCANS>;
    using ScanR = cub::BlockScan<int, 256, cub::BLOCK_SCAN_RAKING>;
    __shared__ typename Scan::TempStorage t0;
    __shared__ typename ScanR::TempStorage t1;
    int v = in[blockIdx.x * 256 + threadIdx.x];
    int a, b, c, total;
    Scan(t0).InclusiveSum(v, a);
    __syncthreads();
    ScanR(t1).ExclusiveSum(v, b, total);
    __syncthreads();
    Scan(t0).InclusiveScan(v, c, MaxOp());
    inc[blockIdx.x * 256 + threadIdx.x] = a;
    exc[blockIdx.x * 256 + threadIdx.x] = b + total;
    mx[blockIdx.x * 256 + threadIdx.x] = c;
}

extern "C" __global__ void __launch_bounds__(128) block_radix_sort_pairs(unsigned* keys, float* vals) {
    using Sort = cub::BlockRadixSort<unsigned, 128, 4, float>;
    using LoadK = cub::BlockLoad<unsigned, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>;
    using LoadV = cub::BlockLoad<float, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>;
    using StoreK = cub::BlockStore<unsigned, 128, 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    using StoreV = cub::BlockStore<float, 128, 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Sort::TempStorage sort;
        typename LoadK::TempStorage lk;
        typename LoadV::TempStorage lv;
        typename StoreK::TempStorage sk;
        typename StoreV::TempStorage sv;
    } tmp;
    unsigned k[4];
    float v[4];
    int off = blockIdx.x * 512;
    LoadK(tmp.lk).Load(keys + off, k);
    __syncthreads();
    LoadV(tmp.lv).Load(vals + off, v);
    __syncthreads();
    Sort(tmp.sort).SortDescending(k, v);
    __syncthreads();
    StoreK(tmp.sk).Store(keys + off, k);
    __syncthreads();
    StoreV(tmp.sv).Store(vals + off, v);
}

extern "C" __global__ void __launch_bounds__(256) block_histogram(const unsigned char* in, unsigned* bins) {
    using Hist = cub::BlockHistogram<unsigned char, 256, 4, 256, cub::BLOCK_HISTO_ATOMIC>;
    __shared__ typename Hist::TempStorage tmp;
    __shared__ unsigned smem_bins[256];
    unsigned char items[4];
    for (int k = 0; k < 4; ++k) items[k] = in[blockIdx.x * 1024 + threadIdx.x * 4 + k];
    Hist(tmp).Histogram(items, smem_bins);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], smem_bins[threadIdx.x]);
}

extern "C" __global__ void warp_collectives(const double* in, double* sums, double* scans) {
    using WR = cub::WarpReduce<double>;
    using WS = cub::WarpScan<double, 16>;
    __shared__ typename WR::TempStorage wr[4];
    __shared__ typename WS::TempStorage ws[8];
    int warp = threadIdx.x / 32;
    double v = in[blockIdx.x * 128 + threadIdx.x];
    double s = WR(wr[warp]).Sum(v);
    if (threadIdx.x % 32 == 0) sums[blockIdx.x * 4 + warp] = s;
    double x;
    WS(ws[threadIdx.x / 16]).ExclusiveSum(v, x);
    scans[blockIdx.x * 128 + threadIdx.x] = x;
}
