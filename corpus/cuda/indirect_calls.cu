// Indirect calls: device function pointers, tables of them, and virtual functions
// on objects constructed on the device.
#include <new>

typedef float (*unary_fn)(float);

__device__ float op_square(float x) { return x * x; }
__device__ float op_neg(float x) { return -x; }
__device__ float op_sqrt(float x) { return sqrtf(fabsf(x)); }
__device__ float op_exp(float x) { return __expf(x); }

__device__ unary_fn table[4] = {op_square, op_neg, op_sqrt, op_exp};

extern "C" __global__ void apply_table(const int* which, const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unary_fn f = table[which[i] & 3];
        out[i] = f(in[i]);
    }
}

typedef int (*binop)(int, int, void*);

__device__ int bin_add(int a, int b, void*) { return a + b; }
__device__ int bin_scaled(int a, int b, void* ctx) { return a * *(int*)ctx + b; }

__device__ __noinline__ int fold(const int* v, int n, binop f, void* ctx) {
    int acc = 0;
    for (int k = 0; k < n; ++k) acc = f(acc, v[k], ctx);
    return acc;
}

extern "C" __global__ void fold_with_pointer(const int* v, int n, int mode, int* out) {
    int scale = 3;
    out[threadIdx.x] = fold(v, n, mode ? bin_scaled : bin_add, &scale);
}

struct Shape {
    __device__ virtual ~Shape() {}
    __device__ virtual float area() const = 0;
    __device__ virtual float perimeter() const { return 0.0f; }
};

struct Circle : Shape {
    float r;
    __device__ explicit Circle(float r) : r(r) {}
    __device__ float area() const override { return 3.14159265f * r * r; }
    __device__ float perimeter() const override { return 2.0f * 3.14159265f * r; }
};

struct Rect : Shape {
    float w, h;
    __device__ Rect(float w, float h) : w(w), h(h) {}
    __device__ float area() const override { return w * h; }
    __device__ float perimeter() const override { return 2.0f * (w + h); }
};

struct Square final : Rect {
    __device__ explicit Square(float s) : Rect(s, s) {}
    __device__ float area() const override { return w * w; }
};

extern "C" __global__ void virtual_shapes(const int* kind, const float* p, float* area, float* perim, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    alignas(16) unsigned char storage[sizeof(Rect) > sizeof(Circle) ? sizeof(Rect) : sizeof(Circle)];
    Shape* s;
    switch (kind[i] % 3) {
    case 0: s = new (storage) Circle(p[i]); break;
    case 1: s = new (storage) Rect(p[i], p[i] + 1.0f); break;
    default: s = new (storage) Square(p[i]); break;
    }
    area[i] = s->area();
    perim[i] = s->perimeter();
    s->~Shape();
}
