"""Tensor-core and async-copy instructions of the emulator (accy/runtime/emulator/tensorcore.py):
mma.sync (bf16 / f16 / tf32, f32 and f16 accumulation), wmma, ldmatrix / stmatrix and cp.async,
on nvcc-compiled kernels (inline PTX and nvcuda::wmma) and hand-written PTX checked by ptxas,
against numpy on random inputs."""
import shutil
import subprocess

import ml_dtypes
import numpy as np
import pytest

from accy.lowering.ptxas import find_ptxas
from accy.runtime.emulator import Emulator, KernelFault

BF16 = ml_dtypes.bfloat16
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")

CUDA = r"""
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>
using namespace nvcuda;

// One warp per 16x8 tile (batch index = warp): the fragments are loaded from memory with the
// PTX ISA's layouts written out. A: 16x16 row-major, B: 16x8 row-major (K x N), C, D: 16x8 f32.
#define MMA_K16(NAME, T, PTXT)                                                                  \
extern "C" __global__ void NAME(const T *A, const T *B, const float *C, float *D) {             \
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;              \
    int g = lane >> 2, t = lane & 3;                                                             \
    A += w * 256; B += w * 128; C += w * 128; D += w * 128;                                      \
    uint32_t a[4], b[2];                                                                         \
    for (int i = 0; i < 8; i += 2) {                                                             \
        int row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;                                      \
        int col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);                                            \
        unsigned short lo = *(const unsigned short *)&A[row * 16 + col];                         \
        unsigned short hi = *(const unsigned short *)&A[row * 16 + col + 1];                     \
        a[i / 2] = lo | ((uint32_t)hi << 16);                                                    \
    }                                                                                            \
    for (int i = 0; i < 4; i += 2) {                                                             \
        int row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);                                            \
        unsigned short lo = *(const unsigned short *)&B[row * 8 + g];                            \
        unsigned short hi = *(const unsigned short *)&B[(row + 1) * 8 + g];                      \
        b[i / 2] = lo | ((uint32_t)hi << 16);                                                    \
    }                                                                                            \
    float c[4], d[4];                                                                            \
    for (int i = 0; i < 4; i++) c[i] = C[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)];            \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." PTXT "." PTXT ".f32 "                  \
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                     \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),             \
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));                                  \
    for (int i = 0; i < 4; i++) D[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)] = d[i];            \
}
MMA_K16(mma_bf16, __nv_bfloat16, "bf16")
MMA_K16(mma_f16, __half, "f16")

// f16 accumulation: C, D are 16x8 f16 in two .f16x2 registers per lane.
extern "C" __global__ void mma_f16_f16(const __half *A, const __half *B, const __half *C,
                                       __half *D) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    int g = lane >> 2, t = lane & 3;
    A += w * 256; B += w * 128; C += w * 128; D += w * 128;
    const uint32_t *A32 = (const uint32_t *)A;
    uint32_t a0 = A32[(g * 16 + 2 * t) / 2], a1 = A32[((g + 8) * 16 + 2 * t) / 2];
    uint32_t a2 = A32[(g * 16 + 2 * t + 8) / 2], a3 = A32[((g + 8) * 16 + 2 * t + 8) / 2];
    __half2 bb0 = __halves2half2(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]);
    __half2 bb1 = __halves2half2(B[(2 * t + 8) * 8 + g], B[(2 * t + 9) * 8 + g]);
    uint32_t b0 = *(uint32_t *)&bb0, b1 = *(uint32_t *)&bb1;
    const uint32_t *C32 = (const uint32_t *)C;
    uint32_t c0 = C32[(g * 8 + 2 * t) / 2], c1 = C32[((g + 8) * 8 + 2 * t) / 2], d0, d1;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
                 "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d0), "=r"(d1)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1));
    uint32_t *D32 = (uint32_t *)D;
    D32[(g * 8 + 2 * t) / 2] = d0;
    D32[((g + 8) * 8 + 2 * t) / 2] = d1;
}

// m16n8k8 tf32: A 16x8, B 8x8 (row-major, row stride ld), C, D 16x8 f32; A and B hold tf32
// bit patterns.
extern "C" __global__ void mma_tf32(const uint32_t *A, const uint32_t *B, const float *C,
                                   float *D, int ld) {  // ld = 8 (nvcc: mad, not bfi)
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    int g = lane >> 2, t = lane & 3;
    A += w * 128; B += w * 64; C += w * 128; D += w * 128;
    uint32_t a0 = A[g * ld + t], a1 = A[(g + 8) * ld + t];
    uint32_t a2 = A[g * ld + t + 4], a3 = A[(g + 8) * ld + t + 4];
    uint32_t b0 = B[t * ld + g], b1 = B[(t + 4) * ld + g];
    float c0 = C[g * ld + 2 * t], c1 = C[g * ld + 2 * t + 1];
    float c2 = C[(g + 8) * ld + 2 * t], c3 = C[(g + 8) * ld + 2 * t + 1], d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),
                   "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    D[g * ld + 2 * t] = d0;
    D[g * ld + 2 * t + 1] = d1;
    D[(g + 8) * ld + 2 * t] = d2;
    D[(g + 8) * ld + 2 * t + 1] = d3;
}

// m16n8k8 f16 with f32 accumulation: A 16x8, B 8x8 (row-major), C, D 16x8 f32.
extern "C" __global__ void mma_k8_f16(const __half *A, const __half *B, const float *C,
                                      float *D) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    int g = lane >> 2, t = lane & 3;
    A += w * 128; B += w * 64; C += w * 128; D += w * 128;
    const uint32_t *A32 = (const uint32_t *)A;
    uint32_t a0 = A32[(g * 8 + 2 * t) / 2], a1 = A32[((g + 8) * 8 + 2 * t) / 2];
    __half2 bb = __halves2half2(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]);
    uint32_t b0 = *(uint32_t *)&bb;
    float c[4], d[4];
    for (int i = 0; i < 4; i++) c[i] = C[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; i++) D[(i < 2 ? g : g + 8) * 8 + t * 2 + (i & 1)] = d[i];
}

// wmma 16x16x16, one warp per batch entry: D = A (row-major) @ B (col-major) + C (col-major),
// D stored row-major.
template <typename T>
__device__ void wmma_body(const T *A, const T *B, const float *C, float *D) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, A + w * 256, 16);
    wmma::load_matrix_sync(fb, B + w * 256, 16);
    wmma::load_matrix_sync(fc, C + w * 256, 16, wmma::mem_col_major);
    wmma::mma_sync(fc, fa, fb, fc);
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 2.0f;
    wmma::store_matrix_sync(D + w * 256, fc, 16, wmma::mem_row_major);
}
extern "C" __global__ void wmma_f16(const __half *A, const __half *B, const float *C, float *D) {
    wmma_body(A, B, C, D);
}
extern "C" __global__ void wmma_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                                     const float *C, float *D) {
    wmma_body(A, B, C, D);
}

// wmma through shared memory with f16 accumulators: a 32x32 tile C = A @ B (row-major, K = 32),
// four warps, one 16x16 output tile each.
extern "C" __global__ void wmma_shared_f16(const __half *A, const __half *B, __half *C) {
    __shared__ __align__(32) __half As[32 * 32], Bs[32 * 32], Cs[32 * 32];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) { As[i] = A[i]; Bs[i] = B[i]; }
    __syncthreads();
    int w = threadIdx.x >> 5, tm = (w >> 1) * 16, tn = (w & 1) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> fc;
    wmma::fill_fragment(fc, __float2half(0.f));
    for (int k = 0; k < 32; k += 16) {
        wmma::load_matrix_sync(fa, As + tm * 32 + k, 32);
        wmma::load_matrix_sync(fb, Bs + k * 32 + tn, 32);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(Cs + tm * 32 + tn, fc, 32, wmma::mem_row_major);
    __syncthreads();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) C[i] = Cs[i];
}

// A tiled matmul C (M x N, f32) = A (M x K, bf16 row-major) @ B (K x N, bf16 row-major):
// a block of 4 warps computes a 32x16 tile (each warp 16x8), staging 32x16 of A and 16x16 of B
// in shared memory per k step; A fragments come from ldmatrix.x4, B fragments from
// ldmatrix.x2.trans (B is row-major, the mma wants it column-wise).
extern "C" __global__ void mma_ldmatrix(const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                                        float *C, int M, int N, int K) {
    __shared__ __align__(128) __nv_bfloat16 As[32][16];
    __shared__ __align__(128) __nv_bfloat16 Bs[16][16];
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    int bm = blockIdx.y * 32, bn = blockIdx.x * 16;
    int wm = (warp >> 1) * 16, wn = (warp & 1) * 8;
    float d[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
            As[i / 16][i % 16] = A[(bm + i / 16) * K + k0 + i % 16];
        for (int i = threadIdx.x; i < 16 * 16; i += blockDim.x)
            Bs[i / 16][i % 16] = B[(k0 + i / 16) * N + bn + i % 16];
        __syncthreads();
        uint32_t a[4], b[2];
        // ldmatrix.x4: lanes 0-15 rows 0-15 at column 0, lanes 16-31 rows 0-15 at column 8
        uint32_t pa = (uint32_t)__cvta_generic_to_shared(&As[wm + (lane & 15)][(lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
        // ldmatrix.x2.trans: lanes 0-15 give rows k = 0..15 of B's 8 columns wn..wn+7
        uint32_t pb = (uint32_t)__cvta_generic_to_shared(&Bs[lane & 15][wn]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncthreads();
    }
    int row = bm + wm + g, col = bn + wn + 2 * t;
    C[row * N + col] = d[0];
    C[row * N + col + 1] = d[1];
    C[(row + 8) * N + col] = d[2];
    C[(row + 8) * N + col + 1] = d[3];
}

// ldmatrix (.x1 / .x2 / .x4, plain and .trans) of an 8x(8*4) shared tile, each lane writing
// out the registers it received: out[lane * 4 + i] = register i.
extern "C" __global__ void ldmatrix_dump(const unsigned short *src, uint32_t *out, int mode) {
    __shared__ __align__(16) unsigned short S[4][8][8];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) S[i / 64][(i / 8) % 8][i % 8] = src[i];
    __syncwarp();
    uint32_t p = (uint32_t)__cvta_generic_to_shared(&S[lane / 8][lane % 8][0]);
    uint32_t r[4] = {0, 0, 0, 0};
    if (mode == 1)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(p));
    else if (mode == 2)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                     : "=r"(r[0]), "=r"(r[1]) : "r"(p));
    else if (mode == 4)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(p));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(p));
    for (int i = 0; i < 4; i++) out[lane * 4 + i] = r[i];
}

// stmatrix.x4 (.trans when trans != 0) of in[lane * 4 + i], then the 4 8x8 tiles copied out.
extern "C" __global__ void stmatrix_dump(const uint32_t *in, unsigned short *dst, int trans) {
    __shared__ __align__(16) unsigned short S[4][8][8];
    int lane = threadIdx.x;
    uint32_t p = (uint32_t)__cvta_generic_to_shared(&S[lane / 8][lane % 8][0]);
    uint32_t r0 = in[lane * 4], r1 = in[lane * 4 + 1], r2 = in[lane * 4 + 2], r3 = in[lane * 4 + 3];
    if (trans)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};"
                     :: "r"(p), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
    else
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
                     :: "r"(p), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
    __syncwarp();
    for (int i = lane; i < 256; i += 32) dst[i] = S[i / 64][(i / 8) % 8][i % 8];
}

// Double-buffered streaming copy with cp.async: out[i] = 2 * in[i] over `tiles` tiles of
// blockDim.x float4 per block; tile k + 1 is in flight while tile k is read.
extern "C" __global__ void cp_async_stream(const float4 *in, float4 *out, int tiles) {
    __shared__ __align__(16) float4 buf[2][128];
    int t = threadIdx.x;
    const float4 *src = in + blockIdx.x * tiles * blockDim.x;
    float4 *dst = out + blockIdx.x * tiles * blockDim.x;
    uint32_t s0 = (uint32_t)__cvta_generic_to_shared(&buf[0][t]);
    uint32_t s1 = (uint32_t)__cvta_generic_to_shared(&buf[1][t]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s0), "l"(src + t));
    asm volatile("cp.async.commit_group;");
    for (int k = 0; k < tiles; k++) {
        if (k + 1 < tiles) {
            uint32_t s = (k & 1) ? s0 : s1;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                         :: "r"(s), "l"(src + (k + 1) * blockDim.x + t));
        }
        asm volatile("cp.async.commit_group;");
        asm volatile("cp.async.wait_group 1;");
        __syncthreads();
        float4 v = buf[k & 1][t];
        dst[k * blockDim.x + t] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w);
        __syncthreads();
    }
    asm volatile("cp.async.wait_all;");
}

// cp.async.ca with a per-thread src-size (zero-fills the rest of the 16 bytes) and 4/8-byte
// copies; `wait` = 0 reads the buffer without waiting (a race the emulator reports).
extern "C" __global__ void cp_async_sizes(const int *in, int *out, int wait) {
    __shared__ __align__(16) int buf[32 * 4 + 32 + 64];
    int t = threadIdx.x;
    uint32_t s = (uint32_t)__cvta_generic_to_shared(&buf[t * 4]);
    int bytes = (t % 5) * 4;                       // 0, 4, 8, 12, 16
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" :: "r"(s), "l"(in + t * 4),
                 "r"(bytes));
    uint32_t s4 = (uint32_t)__cvta_generic_to_shared(&buf[128 + t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s4), "l"(in + 128 + t));
    uint32_t s8 = (uint32_t)__cvta_generic_to_shared(&buf[160 + 2 * t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(s8), "l"(in + 160 + 2 * t));
    asm volatile("cp.async.commit_group;");
    if (wait) asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    for (int i = t; i < 224; i += 32) out[i] = buf[i];
}

// mma in a block whose second warp is half empty (48 threads).
extern "C" __global__ void mma_partial(const __nv_bfloat16 *A, float *D) {
    uint32_t a = ((const uint32_t *)A)[threadIdx.x];
    float d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, {%5,%5,%5,%5};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3) : "r"(a), "f"(0.f));
    D[threadIdx.x] = d0 + d1 + d2 + d3;
}
"""

# Hand-written PTX: ldmatrix.x4 from one shared tile then stmatrix.x4.trans into another, so
# the 4 tiles come back transposed; and a divergent mma (lanes 16-31 branch around it).
HAND_PTX = r"""
.version 8.0
.target sm_90
.address_size 64

.visible .entry ld_st_trans(.param .u64 src, .param .u64 dst)
{
    .reg .b16 %h<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;
    .shared .align 16 .b8 tile_in[512];
    .shared .align 16 .b8 tile_out[512];
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    mov.u32 %r1, %laneid;
    mov.u32 %r2, %r1;
COPY_IN:
    mul.wide.u32 %rd3, %r2, 2;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u16 %h1, [%rd4];
    mov.u32 %r3, tile_in;
    mul.lo.u32 %r4, %r2, 2;
    add.u32 %r3, %r3, %r4;
    st.shared.u16 [%r3], %h1;
    add.u32 %r2, %r2, 32;
    setp.lt.u32 %p1, %r2, 256;
    @%p1 bra COPY_IN;
    bar.warp.sync -1;
    mov.u32 %r5, tile_in;
    shl.b32 %r6, %r1, 4;
    add.u32 %r5, %r5, %r6;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r7, %r8, %r9, %r10}, [%r5];
    mov.u32 %r5, tile_out;
    add.u32 %r5, %r5, %r6;
    stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r5], {%r7, %r8, %r9, %r10};
    bar.warp.sync -1;
    mov.u32 %r2, %r1;
COPY_OUT:
    mov.u32 %r3, tile_out;
    mul.lo.u32 %r4, %r2, 2;
    add.u32 %r3, %r3, %r4;
    ld.shared.u16 %h1, [%r3];
    mul.wide.u32 %rd3, %r2, 2;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u16 [%rd4], %h1;
    add.u32 %r2, %r2, 32;
    setp.lt.u32 %p1, %r2, 256;
    @%p1 bra COPY_OUT;
    ret;
}

.visible .entry mma_diverged(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    mov.u32 %r1, %laneid;
    mov.b32 %r2, 0x3f803f80;
    mov.f32 %f1, 0f00000000;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra SKIP;
    mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f2, %f3, %f4, %f5},
        {%r2, %r2, %r2, %r2}, {%r2, %r2}, {%f1, %f1, %f1, %f1};
SKIP:
    ret;
}
"""


# ---- helpers -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    d = tmp_path_factory.mktemp("tc")
    (d / "k.cu").write_text(CUDA)
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", str(d / "k.cu"), "-o", str(d / "k.ptx")],
                   check=True, capture_output=True)
    dev = Emulator()
    return dev, dev.module_from_buffer((d / "k.ptx").read_text())


def launch(kernels, name, inputs, outputs, block, grid=(1, 1, 1), scalars=()):
    """Copy inputs, launch, return the outputs (given as (shape, dtype)) as numpy arrays."""
    dev, module = kernels
    ins = [dev.to_device(np.ascontiguousarray(x)) for x in inputs]
    outs = [dev.mem_alloc(int(np.prod(shape)) * np.dtype(dtype).itemsize)
            for shape, dtype in outputs]
    module.get_function(name)(*ins, *outs, *scalars, block=block, grid=grid)
    return [dev.from_device(p, shape, dtype) for p, (shape, dtype) in zip(outs, outputs)]


def f32_tolerance(exact, scale):
    """|error| allowed for an f32-accumulated result: a few f32 ulps of the magnitudes summed."""
    return 8 * np.finfo(np.float32).eps * scale + 1e-30


def rng_values(rng, shape, dtype):
    return rng.uniform(-2, 2, shape).astype(dtype)


# ---- mma.sync ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,dtype", [("mma_bf16", BF16), ("mma_f16", np.float16)])
def test_mma_m16n8k16_f32(kernels, name, dtype):
    rng = np.random.default_rng(1)
    W = 6                                    # warps, 3 blocks of 64 threads
    A, B = rng_values(rng, (W, 16, 16), dtype), rng_values(rng, (W, 16, 8), dtype)
    C = rng.uniform(-4, 4, (W, 16, 8)).astype(np.float32)
    (D,) = launch(kernels, name, [A, B, C], [((W, 16, 8), np.float32)], (64, 1, 1), (3, 1, 1))
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    exact = A64 @ B64 + C
    scale = np.abs(A64) @ np.abs(B64) + np.abs(C)
    assert np.all(np.abs(D - exact) <= f32_tolerance(exact, scale))
    # one f64 sum rounded once: the emulator's result is the correctly rounded f32 here
    np.testing.assert_array_equal(D, exact.astype(np.float32))


def test_mma_f16_accumulate(kernels):
    rng = np.random.default_rng(2)
    W = 2
    A, B = rng_values(rng, (W, 16, 16), np.float16), rng_values(rng, (W, 16, 8), np.float16)
    C = rng_values(rng, (W, 16, 8), np.float16)
    (D,) = launch(kernels, "mma_f16_f16", [A, B, C], [((W, 16, 8), np.float16)], (64, 1, 1))
    exact = A.astype(np.float64) @ B.astype(np.float64) + C
    np.testing.assert_array_equal(D, exact.astype(np.float16))


def tf32_rna(x):
    """cvt.rna.tf32.f32: the 13 low bits rounded to nearest, ties away from zero."""
    bits = x.view(np.uint32).astype(np.uint64)
    return ((bits + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("rounded", [True, False])
def test_mma_tf32(kernels, rounded):
    rng = np.random.default_rng(3)
    W = 4
    A = rng.uniform(-2, 2, (W, 16, 8)).astype(np.float32)
    B = rng.uniform(-2, 2, (W, 8, 8)).astype(np.float32)
    C = rng.uniform(-2, 2, (W, 16, 8)).astype(np.float32)
    if rounded:
        A, B = tf32_rna(A), tf32_rna(B)
    (D,) = launch(kernels, "mma_tf32", [A.view(np.uint32), B.view(np.uint32), C],
                  [((W, 16, 8), np.float32)], (128, 1, 1), scalars=(np.int32(8),))
    # the tensor cores read the 19 high bits of a .tf32 operand: f32 bits are truncated
    At = (A.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    Bt = (B.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    exact = At @ Bt + C
    np.testing.assert_array_equal(D, exact.astype(np.float32))
    full = A.astype(np.float64) @ B.astype(np.float64) + C
    if not rounded:
        assert np.abs(D - full).max() > 0                 # the low bits were ignored
    scale = np.abs(At) @ np.abs(Bt) + np.abs(C)
    assert np.all(np.abs(D - full) <= scale * 2.0 ** -10)  # tf32 precision


def test_mma_m16n8k8_f16(kernels):
    rng = np.random.default_rng(4)
    W = 2
    A, B = rng_values(rng, (W, 16, 8), np.float16), rng_values(rng, (W, 8, 8), np.float16)
    C = rng.uniform(-2, 2, (W, 16, 8)).astype(np.float32)
    (D,) = launch(kernels, "mma_k8_f16", [A, B, C], [((W, 16, 8), np.float32)], (64, 1, 1))
    exact = A.astype(np.float64) @ B.astype(np.float64) + C
    np.testing.assert_array_equal(D, exact.astype(np.float32))


def test_mma_needs_the_whole_warp(kernels):
    A = np.ones(48 * 2, BF16)
    with pytest.raises(KernelFault, match=r"mma.sync with only 16 lanes of warp 1 \(block 0\)"):
        launch(kernels, "mma_partial", [A], [((48,), np.float32)], (48, 1, 1))


# ---- wmma ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,dtype", [("wmma_f16", np.float16), ("wmma_bf16", BF16)])
def test_wmma(kernels, name, dtype):
    rng = np.random.default_rng(5)
    W = 3
    A = rng_values(rng, (W, 16, 16), dtype)                       # row-major
    Bcm = rng_values(rng, (W, 16, 16), dtype)                     # col-major: Bcm[w, n, k]
    Ccm = rng.uniform(-2, 2, (W, 16, 16)).astype(np.float32)      # col-major: Ccm[w, n, m]
    (D,) = launch(kernels, name, [A, Bcm, Ccm], [((W, 16, 16), np.float32)], (96, 1, 1))
    B = np.swapaxes(Bcm, 1, 2).astype(np.float64)
    C = np.swapaxes(Ccm, 1, 2).astype(np.float64)
    exact = 2 * (A.astype(np.float64) @ B + C)
    np.testing.assert_array_equal(D, (exact / 2).astype(np.float32) * 2)


def test_wmma_shared_f16_accumulate(kernels):
    rng = np.random.default_rng(6)
    A, B = rng_values(rng, (32, 32), np.float16), rng_values(rng, (32, 32), np.float16)
    (C,) = launch(kernels, "wmma_shared_f16", [A, B], [((32, 32), np.float16)], (128, 1, 1))
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    # two k-steps, each rounded to f16
    step = (A64[:, :16] @ B64[:16]).astype(np.float16).astype(np.float64)
    expect = (step + A64[:, 16:] @ B64[16:]).astype(np.float16)
    np.testing.assert_array_equal(C, expect)


# ---- ldmatrix / stmatrix -------------------------------------------------------------------------

@pytest.mark.parametrize("mode", [1, 2, 4, 5])
def test_ldmatrix_layout(kernels, mode):
    src = np.arange(256, dtype=np.uint16) * 3 + 7
    (out,) = launch(kernels, "ldmatrix_dump", [src], [((32, 4), np.uint32)], (32, 1, 1),
                    scalars=(np.int32(mode),))
    mats = src.reshape(4, 8, 8)
    count = {1: 1, 2: 2, 4: 4, 5: 4}[mode]
    lane = np.arange(32)
    for i in range(4):
        if i >= count:
            assert (out[:, i] == 0).all()
            continue
        m = mats[i].T if mode == 5 else mats[i]
        lo, hi = m[lane >> 2, 2 * (lane & 3)], m[lane >> 2, 2 * (lane & 3) + 1]
        np.testing.assert_array_equal(out[:, i], lo.astype(np.uint32) | hi.astype(np.uint32) << 16)


@pytest.mark.parametrize("trans", [0, 1])
def test_stmatrix_inverts_ldmatrix(kernels, trans):
    src = np.arange(256, dtype=np.uint16) * 5 + 1
    (regs,) = launch(kernels, "ldmatrix_dump", [src], [((32, 4), np.uint32)], (32, 1, 1),
                     scalars=(np.int32(4),))
    (back,) = launch(kernels, "stmatrix_dump", [regs], [((256,), np.uint16)], (32, 1, 1),
                     scalars=(np.int32(trans),))
    mats = src.reshape(4, 8, 8)
    expect = np.swapaxes(mats, 1, 2) if trans else mats
    np.testing.assert_array_equal(back.reshape(4, 8, 8), expect)


@pytest.mark.parametrize("M,N,K", [(32, 16, 16), (64, 48, 64)])
def test_ldmatrix_mma_tiled_matmul(kernels, M, N, K):
    rng = np.random.default_rng(7)
    A, B = rng_values(rng, (M, K), BF16), rng_values(rng, (K, N), BF16)
    (C,) = launch(kernels, "mma_ldmatrix", [A, B], [((M, N), np.float32)], (128, 1, 1),
                  (N // 16, M // 32, 1), scalars=(np.int32(M), np.int32(N), np.int32(K)))
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    exact = A64 @ B64
    scale = np.abs(A64) @ np.abs(B64)
    # each k-step of 16 is one rounding to f32: K/16 roundings
    assert np.all(np.abs(C - exact) <= f32_tolerance(exact, scale) * K / 16)


# ---- cp.async ------------------------------------------------------------------------------------

def test_cp_async_double_buffer(kernels):
    rng = np.random.default_rng(8)
    blocks, tiles = 3, 5
    x = rng.standard_normal((blocks * tiles * 128, 4)).astype(np.float32)
    (y,) = launch(kernels, "cp_async_stream", [x], [(x.shape, np.float32)], (128, 1, 1),
                  (blocks, 1, 1), scalars=(np.int32(tiles),))
    np.testing.assert_array_equal(y, 2 * x)


def test_cp_async_sizes_and_zero_fill(kernels):
    x = np.arange(1, 225, dtype=np.int32)
    (y,) = launch(kernels, "cp_async_sizes", [x], [((224,), np.int32)], (32, 1, 1),
                  scalars=(np.int32(1),))
    expect = x.copy()
    for t in range(32):
        keep = t % 5                           # src-size / 4 words copied, the rest zero
        expect[t * 4 + keep: t * 4 + 4] = 0
    np.testing.assert_array_equal(y, expect)


def test_cp_async_read_before_wait_is_a_race(kernels):
    x = np.arange(1, 225, dtype=np.int32)
    with pytest.raises(KernelFault, match="read of shared memory before cp.async.wait_group"):
        launch(kernels, "cp_async_sizes", [x], [((224,), np.int32)], (32, 1, 1),
               scalars=(np.int32(0),))


# ---- hand-written PTX ----------------------------------------------------------------------------

@needs_ptxas
def test_hand_written_ptx_passes_ptxas(tmp_path):
    (tmp_path / "h.ptx").write_text(HAND_PTX)
    result = subprocess.run([find_ptxas(), "-arch=sm_90", str(tmp_path / "h.ptx"), "-o",
                             str(tmp_path / "h.cubin")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_hand_written_ldmatrix_stmatrix_trans():
    dev = Emulator()
    module = dev.module_from_buffer(HAND_PTX)
    src = np.arange(256, dtype=np.uint16) * 7 + 3
    a, b = dev.to_device(src), dev.mem_alloc(512)
    module.get_function("ld_st_trans")(a, b, block=(32, 1, 1))
    back = dev.from_device(b, (4, 8, 8), np.uint16)
    np.testing.assert_array_equal(back, np.swapaxes(src.reshape(4, 8, 8), 1, 2))


def test_hand_written_diverged_mma_faults():
    dev = Emulator()
    module = dev.module_from_buffer(HAND_PTX)
    out = dev.mem_alloc(4)
    with pytest.raises(KernelFault, match="mma.sync with only 16 lanes of warp 0"):
        module.get_function("mma_diverged")(out, block=(32, 1, 1))


def test_async_shared_passes_keywords_through(monkeypatch):
    """AsyncShared (shared memory once cp.async is used) forwards the keyword arguments of
    SharedMemory.load/store (the machine's race-check arguments) after its own pending check."""
    from accy.runtime.emulator.memory import SharedMemory
    from accy.runtime.emulator.tensorcore import AsyncShared

    seen = []
    monkeypatch.setattr(SharedMemory, "load",
                        lambda self, owner, offsets, dtype, **kw: seen.append(("load", kw)))
    monkeypatch.setattr(SharedMemory, "store",
                        lambda self, owner, offsets, values, dtype, **kw:
                        seen.append(("store", kw)))
    shared = AsyncShared.wrap(SharedMemory(1, 64), 32)
    block, offsets = np.zeros(2, np.int64), np.array([0, 4])
    shared.store(block, offsets, np.ones(2, np.uint32), np.uint32, probe=1)
    shared.load(block, offsets, np.uint32, probe=2)
    shared.load(block, offsets, np.uint32)
    assert seen == [("store", {"probe": 1}), ("load", {"probe": 2}), ("load", {})]


# ---- integer mma.sync and wmma (tests/emulator_kernels/integer_mma.cu) ----------------------

INT_MMA = [("imma_m16n8k32_s8_s8", 16, 8, 32), ("imma_m16n8k32_u8_s8", 16, 8, 32),
           ("imma_m16n8k32_u8_u8_satfinite", 16, 8, 32), ("imma_m16n8k16_s8_u8", 16, 8, 16),
           ("imma_m16n8k16_s8_s8_satfinite", 16, 8, 16), ("imma_m8n8k16_u8_u8", 8, 8, 16),
           ("imma_m8n8k16_s8_s8_satfinite", 8, 8, 16), ("wmma_s8", 16, 16, 16),
           ("wmma_u8", 16, 16, 16)]


@pytest.mark.parametrize("name, M, N, K", INT_MMA, ids=[x[0] for x in INT_MMA])
def test_integer_mma(ptx, rng, name, M, N, K):
    """D = A B + C exactly, wrapped to 32 bits, or clamped with .satfinite: the first rows of
    C sit at INT_MAX and INT_MIN, and the products into D[0, 0] (and D[1, 1] where a type is
    signed) are their types' extremes, so that sums pass INT_MAX (and INT_MIN) on every draw."""
    from emulator_helpers import load
    atype, btype = [name[-2:]] * 2 if name.startswith("wmma") else name.split("_")[2:4]
    A = rng.integers(0, 256, (M, K)).astype(np.uint8)
    Bt = rng.integers(0, 256, (N, K)).astype(np.uint8)
    C = rng.integers(-2**31, 2**31, (M, N)).astype(np.int32)
    C[0], C[1] = 2**31 - 1 - rng.integers(0, 1000, N), -2**31 + rng.integers(0, 1000, N)
    top = {"s8": 0x7F, "u8": 0xFF}                  # the largest value's bits
    A[0], Bt[0] = top[atype], top[btype]            # D[0, 0] = C[0, 0] + K * max * max
    if "s8" in (atype, btype):                      # D[1, 1] = C[1, 1] + K * -128 * max
        A[1] = 0x80 if atype == "s8" else top[atype]
        Bt[1] = 0x80 if atype != "s8" else top[btype]
    dev, fn = load(ptx, "integer_mma", name)
    out = dev.mem_alloc(4 * M * N)
    fn(dev.to_device(A), dev.to_device(Bt), dev.to_device(C), out, block=(32, 1, 1))
    a = A.view(np.int8) if atype == "s8" else A
    b = Bt.view(np.int8) if btype == "s8" else Bt
    exact = a.astype(np.int64) @ b.astype(np.int64).T + C
    if name.endswith("satfinite"):
        expected = np.clip(exact, -2**31, 2**31 - 1).astype(np.int32)
    else:
        expected = exact.astype(np.uint64).astype(np.uint32).view(np.int32)
    assert exact[0, 0] > 2**31 - 1
    if "s8" in (atype, btype):
        assert exact[1, 1] < -2**31
    np.testing.assert_array_equal(dev.from_device(out, (M, N), np.int32), expected)

