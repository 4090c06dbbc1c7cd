// Tensor-core matmuls (mma.sync with plain loads, with cp.async + ldmatrix, and wmma) for
// tests/test_emulator_nvcc.py.
#include <cuda_bf16.h>
#include <mma.h>
#include <stdint.h>

// C (M x N, f32) = A (M x K, bf16, row-major) @ Bt^T (Bt: N x K, bf16, row-major), one warp per
// 16x8 tile of C, mma.sync m16n8k16 with f32 accumulation. M % 16 == 0, N % 8 == 0, K % 16 == 0.
extern "C" __global__ void mma_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *Bt, float *C,
                                    int M, int N, int K) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    int tiles_n = N / 8;
    if (warp >= (M / 16) * tiles_n) return;
    int m0 = (warp / tiles_n) * 16, n0 = (warp % tiles_n) * 8;
    int g = lane >> 2, t = lane & 3;
    const uint32_t *A32 = reinterpret_cast<const uint32_t *>(A);
    const uint32_t *B32 = reinterpret_cast<const uint32_t *>(Bt);
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        uint32_t a0 = A32[((m0 + g) * K + k0 + 2 * t) / 2];
        uint32_t a1 = A32[((m0 + g + 8) * K + k0 + 2 * t) / 2];
        uint32_t a2 = A32[((m0 + g) * K + k0 + 2 * t + 8) / 2];
        uint32_t a3 = A32[((m0 + g + 8) * K + k0 + 2 * t + 8) / 2];
        uint32_t b0 = B32[((n0 + g) * K + k0 + 2 * t) / 2];
        uint32_t b1 = B32[((n0 + g) * K + k0 + 2 * t + 8) / 2];
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    C[(m0 + g) * N + n0 + 2 * t] = d0;
    C[(m0 + g) * N + n0 + 2 * t + 1] = d1;
    C[(m0 + g + 8) * N + n0 + 2 * t] = d2;
    C[(m0 + g + 8) * N + n0 + 2 * t + 1] = d3;
}

// The same product staged through shared memory with cp.async and read with ldmatrix:
// one block = one warp = one 16x8 tile of C.
extern "C" __global__ void mma_bf16_ldmatrix(const __nv_bfloat16 *A, const __nv_bfloat16 *Bt,
                                             float *C, int M, int N, int K) {
    __shared__ __align__(128) __nv_bfloat16 As[16][16];
    __shared__ __align__(128) __nv_bfloat16 Bs[8][16];
    int lane = threadIdx.x;
    int tiles_n = N / 8;
    int m0 = (blockIdx.x / tiles_n) * 16, n0 = (blockIdx.x % tiles_n) * 8;
    int g = lane >> 2, t = lane & 3;
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        // 16 rows x 32 bytes of A and 8 rows x 32 bytes of Bt: 48 chunks of 16 bytes
        for (int c = lane; c < 48; c += 32) {
            const __nv_bfloat16 *src;
            __nv_bfloat16 *dst;
            if (c < 32) { src = A + (m0 + c / 2) * K + k0 + (c % 2) * 8; dst = &As[c / 2][(c % 2) * 8]; }
            else { int e = c - 32; src = Bt + (n0 + e / 2) * K + k0 + (e % 2) * 8; dst = &Bs[e / 2][(e % 2) * 8]; }
            uint32_t s = (uint32_t)__cvta_generic_to_shared(dst);
            asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" :: "r"(s), "l"(src));
        }
        asm volatile("cp.async.commit_group;\n" ::);
        asm volatile("cp.async.wait_group 0;\n" ::);
        __syncwarp();
        uint32_t a0, a1, a2, a3, b0, b1;
        // x4: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15)
        uint32_t pa = (uint32_t)__cvta_generic_to_shared(&As[lane % 16][(lane / 16) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(pa));
        uint32_t pb = (uint32_t)__cvta_generic_to_shared(&Bs[lane % 8][((lane / 8) % 2) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(b0), "=r"(b1) : "r"(pb));
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncwarp();
    }
    C[(m0 + g) * N + n0 + 2 * t] = d0;
    C[(m0 + g) * N + n0 + 2 * t + 1] = d1;
    C[(m0 + g + 8) * N + n0 + 2 * t] = d2;
    C[(m0 + g + 8) * N + n0 + 2 * t + 1] = d3;
}

// nvcuda::wmma 16x16x16 bf16 -> f32: one warp per 16x16 tile of C; A row-major M x K,
// B row-major K x N. M, N, K multiples of 16.
extern "C" __global__ void wmma_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C,
                                     int M, int N, int K) {
    using namespace nvcuda;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int tiles_n = N / 16;
    if (warp >= (M / 16) * tiles_n) return;
    int m0 = (warp / tiles_n) * 16, n0 = (warp % tiles_n) * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        wmma::load_matrix_sync(a, A + m0 * K + k0, K);
        wmma::load_matrix_sync(b, B + k0 * N + n0, N);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + m0 * N + n0, c, N, wmma::mem_row_major);
}
