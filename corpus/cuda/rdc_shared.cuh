// Declarations shared by rdc_lib.cu and rdc_main.cu.
#pragma once

struct Vec3 {
    float x, y, z;
};

extern __device__ int rdc_call_count;
extern __constant__ float rdc_coeffs[8];

__device__ float poly_eval(float x);
__device__ Vec3 cross(Vec3 a, Vec3 b);
__device__ float norm(Vec3 v);
__device__ int collatz_steps(long long n);
extern "C" __global__ void lib_kernel(float* x, int n);
