// CUB device-wide algorithms. Calling them from host code instantiates their kernels
// (radix sort upsweep/scan/downsweep and onesweep, scan, reduce, select, run-length).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

struct IsPositive {
    __host__ __device__ bool operator()(const int& x) const { return x > 0; }
};

cudaError_t run_all(void* tmp, size_t& bytes, const unsigned* kin, unsigned* kout, const float* vin, float* vout,
                    const int* iin, int* iout, int* count, int n, cudaStream_t s) {
    cudaError_t e;
    e = cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n, 0, 32, s);
    if (e) return e;
    e = cub::DeviceRadixSort::SortKeysDescending(tmp, bytes, vin, vout, n, 0, 32, s);
    if (e) return e;
    e = cub::DeviceScan::InclusiveSum(tmp, bytes, iin, iout, n, s);
    if (e) return e;
    e = cub::DeviceReduce::Sum(tmp, bytes, vin, vout, n, s);
    if (e) return e;
    e = cub::DeviceSelect::If(tmp, bytes, iin, iout, count, n, IsPositive(), s);
    return e;
}
