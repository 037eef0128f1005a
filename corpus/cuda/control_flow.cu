// Control flow: switch statements (dense and sparse), loops of several shapes,
// non-inlined device functions, recursion (stack frames), local arrays, early exits.
#include <stdint.h>

__device__ __noinline__ int classify(int op, int a, int b) {
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return b != 0 ? a / b : 0;
    case 4: return b != 0 ? a % b : 0;
    case 5: return a & b;
    case 6: return a | b;
    case 7: return a ^ b;
    case 8: return a << (b & 31);
    case 9: return a >> (b & 31);
    case 10: return min(a, b);
    case 11: return max(a, b);
    default: return -1;
    }
}

__device__ __noinline__ int sparse_switch(int key) {
    switch (key) {
    case 3: return 30;
    case 100: return 1;
    case 1000: return 7;
    case 4096: return 12;
    case -5: return 99;
    default: return 0;
    }
}

extern "C" __global__ void interpreter(const int* ops, const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = classify(ops[i], a[i], b[i]) + sparse_switch(a[i]);
}

__device__ __noinline__ unsigned long long fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ int ackermann_small(int m, int n) {
    if (m == 0) return n + 1;
    if (n == 0) return ackermann_small(m - 1, 1);
    return ackermann_small(m - 1, ackermann_small(m, n - 1));
}

struct Node { int left, right, value; };

__device__ __noinline__ int tree_sum(const Node* nodes, int idx, int depth) {
    if (idx < 0 || depth > 64) return 0;
    int local[4];
    for (int k = 0; k < 4; ++k) local[k] = nodes[idx].value * k;
    return local[depth & 3] + tree_sum(nodes, nodes[idx].left, depth + 1) + tree_sum(nodes, nodes[idx].right, depth + 1);
}

extern "C" __global__ void recursion(const int* n, unsigned long long* f, int* ack, const Node* nodes, int* sums) {
    int t = threadIdx.x;
    f[t] = fib(n[t] & 15);
    ack[t] = ackermann_small(2, n[t] & 3);
    sums[t] = tree_sum(nodes, t, 0);
}

extern "C" __global__ void loops(const float* in, float* out, int n, int reps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    int k = 0;
    do {
        x = x * 0.5f + 1.0f;
        ++k;
    } while (x > 2.0f && k < reps);
    int steps = 0;
    unsigned v = __float_as_uint(x);
    while (v) { v &= v - 1; ++steps; }
#pragma unroll 1
    for (int j = 0; j < reps; ++j) {
        if (j == 7) continue;
        if (x > 1e6f) break;
        x += (float)j * 0.25f;
    }
    float acc = 0.0f;
#pragma unroll 4
    for (int j = 0; j < n; j += 3) acc += in[j];
    out[i] = x + (float)steps + acc;
}

extern "C" __global__ void local_array_indexing(const int* idx, float* out, int n) {
    float table[24];
    for (int k = 0; k < 24; ++k) table[k] = k * 1.5f + threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = idx[i] % 24;
        table[(j + 5) % 24] += 1.0f;
        out[i] = table[j] + table[(j * 7) % 24];
    }
}

__device__ __forceinline__ bool early(int x) { return x < 0; }

extern "C" __global__ void early_exit(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (early(in[i])) {
        out[i] = 0;
        return;
    }
    int x = in[i];
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        if (x > (1 << 28)) { out[i] = -1; return; }
    }
    out[i] = 1;
}
