// printf, assert, trap and the device heap (malloc/free, new/delete).
#include <assert.h>
#include <cstdio>

extern "C" __global__ void say_hello(const float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (i % 64) == 0)
        printf("block %d thread %d: v=%f (%e) as int %d, hex %08x, ptr %p, name %s\n", blockIdx.x, threadIdx.x,
               v[i], (double)v[i], (int)v[i], __float_as_uint(v[i]), (const void*)(v + i), "probe");
}

extern "C" __global__ void checked_divide(const int* a, const int* b, int* q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(b[i] != 0);
    if (a[i] < 0) __trap();
    q[i] = a[i] / b[i];
}

extern "C" __global__ void heap_scratch(const int* sizes, float* out) {
    int n = sizes[threadIdx.x] & 255;
    float* buf = (float*)malloc(n * sizeof(float));
    if (!buf) {
        printf("thread %d: malloc(%d) failed\n", threadIdx.x, n);
        return;
    }
    for (int k = 0; k < n; ++k) buf[k] = k * 0.5f;
    float s = 0;
    for (int k = 0; k < n; ++k) s += buf[k];
    out[threadIdx.x] = s;
    free(buf);
}

struct Counter {
    int hits;
    __device__ Counter() : hits(0) {}
};

extern "C" __global__ void heap_new_delete(int* out) {
    Counter* c = new Counter;
    int* arr = new int[threadIdx.x + 1];
    for (unsigned k = 0; k <= threadIdx.x; ++k) { arr[k] = k; c->hits += arr[k]; }
    out[threadIdx.x] = c->hits;
    delete[] arr;
    delete c;
}
