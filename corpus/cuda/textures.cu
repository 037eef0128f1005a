// Texture and surface objects: 1D linear fetch, 2D filtered sampling, gathers,
// layered and 3D reads, surface loads and stores.
#include <cuda_runtime.h>

extern "C" __global__ void tex1d_fetch(cudaTextureObject_t t, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, i) * 2.0f;
}

extern "C" __global__ void tex2d_bilinear(cudaTextureObject_t t, float* out, int w, int h, float theta) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float u = x / (float)w - 0.5f, v = y / (float)h - 0.5f;
    float tu = u * cosf(theta) - v * sinf(theta) + 0.5f;
    float tv = v * cosf(theta) + u * sinf(theta) + 0.5f;
    out[y * w + x] = tex2D<float>(t, tu, tv);
}

extern "C" __global__ void tex2d_gather_lod(cudaTextureObject_t t, float4* g, float4* l, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float u = (i + 0.5f) / n;
        g[i] = tex2Dgather<float4>(t, u, 0.5f, 1);
        l[i] = tex2DLod<float4>(t, u, 0.5f, 1.5f);
    }
}

extern "C" __global__ void tex3d_and_layered(cudaTextureObject_t t3, cudaTextureObject_t tl, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float c = (i + 0.5f) / n;
        out[i] = tex3D<float>(t3, c, 1.0f - c, 0.5f) + tex2DLayered<float>(tl, c, c, i & 3);
    }
}

extern "C" __global__ void surface_blur(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float4 acc = make_float4(0, 0, 0, 0);
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            uchar4 p = surf2Dread<uchar4>(src, (x + dx) * 4, y + dy, cudaBoundaryModeClamp);
            acc.x += p.x; acc.y += p.y; acc.z += p.z; acc.w += p.w;
        }
    surf2Dwrite(make_uchar4(acc.x / 9, acc.y / 9, acc.z / 9, acc.w / 9), dst, x * 4, y);
}

extern "C" __global__ void surface_1d_int(cudaSurfaceObject_t s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v;
        surf1Dread(&v, s, i * 4, cudaBoundaryModeZero);
        surf1Dwrite(v + 1, s, i * 4);
    }
}

extern "C" __global__ void texture_query(cudaTextureObject_t t, int4* out) {
    int4 r;
    r.x = 0;
    r.y = 0;
    float f = tex2D<float>(t, 0.25f, 0.75f);
    r.z = __float_as_int(f);
    r.w = (int)tex1D<float>(t, 0.5f);
    out[threadIdx.x] = r;
}
