// Elementwise kernels for tests/test_emulator_nvcc.py (compiled with nvcc -arch=sm_90 -ptx).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void vadd_f32(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vadd_f16(const __half *a, const __half *b, __half *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __hadd(a[i], b[i]);
}

extern "C" __global__ void vadd_f16x2(const __half2 *a, const __half2 *b, __half2 *c, int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) c[i] = __hadd2(a[i], b[i]);
}

// plain float math on halves: c = a * b + 1 (the product of two halves is exact in f32)
extern "C" __global__ void f16_float_math(const __half *a, const __half *b, __half *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __float2half(__half2float(a[i]) * __half2float(b[i]) + 1.0f);
}

extern "C" __global__ void vadd_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                     __nv_bfloat16 *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __hadd(a[i], b[i]);
}

extern "C" __global__ void vadd_bf16x2(const __nv_bfloat162 *a, const __nv_bfloat162 *b,
                                       __nv_bfloat162 *c, int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) c[i] = __hadd2(a[i], b[i]);
}

extern "C" __global__ void bf16_float_math(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                           __nv_bfloat16 *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = __float2bfloat16(__bfloat162float(a[i]) * __bfloat162float(b[i]) + 1.0f);
}

// grid-stride loop: y = 2 x + y over more elements than threads
extern "C" __global__ void grid_stride(const float *x, float *y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = 2.0f * x[i] + y[i];
}

// early exit, data-dependent branches and a loop with a per-thread trip count
extern "C" __global__ void divergent(const int *x, int *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = x[i];
    int acc;
    if (v % 3 == 0) {
        acc = v * 7;
    } else if (v % 3 == 1) {
        acc = -v;
        if (v & 16) acc ^= 0x55;
    } else {
        y[i] = v + 1000;
        return;
    }
    for (int k = 0; k < (v & 15); ++k) {
        acc = acc * 3 + k;
        if (acc > 100000 || acc < -100000) break;
    }
    y[i] = acc;
}
