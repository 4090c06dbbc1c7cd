// Integer tensor-core products for tests/test_emulator_tensorcore.py: one warp computes
// D = A * B + C for one tile with mma.sync (inline asm, each lane loading its fragment words
// as the PTX ISA lays them out) or with nvcuda::wmma on signed char.
// A: M x K bytes row-major; Bt: N x K bytes row-major (B column-major); C, D: M x N int32.
#include <mma.h>

#define WORD(p) (*(const unsigned *)(p))

#define K32(NAME, TYPES)                                                                     \
extern "C" __global__ void NAME(const unsigned char *A, const unsigned char *Bt,             \
                                const int *C, int *D) {                                      \
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;                                           \
    unsigned a[4], b[2];                                                                     \
    int c[4], d[4];                                                                          \
    for (int r = 0; r < 4; ++r) a[r] = WORD(A + (g + 8 * (r % 2)) * 32 + 4 * t + 16 * (r / 2)); \
    for (int r = 0; r < 2; ++r) b[r] = WORD(Bt + g * 32 + 4 * t + 16 * r);                   \
    for (int r = 0; r < 4; ++r) c[r] = C[(g + 8 * (r / 2)) * 8 + 2 * t + r % 2];             \
    asm volatile("mma.sync.aligned.m16n8k32.row.col" TYPES " {%0, %1, %2, %3}, "             \
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"                         \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                            \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),         \
                   "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));                              \
    for (int r = 0; r < 4; ++r) D[(g + 8 * (r / 2)) * 8 + 2 * t + r % 2] = d[r];             \
}

#define K16(NAME, TYPES)                                                                     \
extern "C" __global__ void NAME(const unsigned char *A, const unsigned char *Bt,             \
                                const int *C, int *D) {                                      \
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;                                           \
    unsigned a[2], b;                                                                        \
    int c[4], d[4];                                                                          \
    for (int r = 0; r < 2; ++r) a[r] = WORD(A + (g + 8 * r) * 16 + 4 * t);                   \
    b = WORD(Bt + g * 16 + 4 * t);                                                           \
    for (int r = 0; r < 4; ++r) c[r] = C[(g + 8 * (r / 2)) * 8 + 2 * t + r % 2];             \
    asm volatile("mma.sync.aligned.m16n8k16.row.col" TYPES " {%0, %1, %2, %3}, "             \
                 "{%4, %5}, {%6}, {%7, %8, %9, %10};"                                        \
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                            \
                 : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])); \
    for (int r = 0; r < 4; ++r) D[(g + 8 * (r / 2)) * 8 + 2 * t + r % 2] = d[r];             \
}

#define M8(NAME, TYPES)                                                                      \
extern "C" __global__ void NAME(const unsigned char *A, const unsigned char *Bt,             \
                                const int *C, int *D) {                                      \
    int g = threadIdx.x >> 2, t = threadIdx.x & 3;                                           \
    unsigned a = WORD(A + g * 16 + 4 * t), b = WORD(Bt + g * 16 + 4 * t);                    \
    int c[2], d[2];                                                                          \
    for (int r = 0; r < 2; ++r) c[r] = C[g * 8 + 2 * t + r];                                 \
    asm volatile("mma.sync.aligned.m8n8k16.row.col" TYPES " {%0, %1}, {%2}, {%3}, {%4, %5};" \
                 : "=r"(d[0]), "=r"(d[1]) : "r"(a), "r"(b), "r"(c[0]), "r"(c[1]));           \
    for (int r = 0; r < 2; ++r) D[g * 8 + 2 * t + r] = d[r];                                 \
}

K32(imma_m16n8k32_s8_s8, ".s32.s8.s8.s32")
K32(imma_m16n8k32_u8_s8, ".s32.u8.s8.s32")
K32(imma_m16n8k32_u8_u8_satfinite, ".satfinite.s32.u8.u8.s32")
K16(imma_m16n8k16_s8_u8, ".s32.s8.u8.s32")
K16(imma_m16n8k16_s8_s8_satfinite, ".satfinite.s32.s8.s8.s32")
M8(imma_m8n8k16_u8_u8, ".s32.u8.u8.s32")
M8(imma_m8n8k16_s8_s8_satfinite, ".satfinite.s32.s8.s8.s32")

// nvcuda::wmma 16x16x16 on signed / unsigned char with int accumulators: A row-major 16 x 16,
// B column-major (Bt row-major), C and D row-major 16 x 16
#define WMMA8(NAME, T)                                                                       \
extern "C" __global__ void NAME(const T *A, const T *Bt, const int *C, int *D) {             \
    using namespace nvcuda;                                                                  \
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;                        \
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;                        \
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> c;                                    \
    wmma::load_matrix_sync(a, A, 16);                                                        \
    wmma::load_matrix_sync(b, Bt, 16);                                                       \
    wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);                                   \
    wmma::mma_sync(c, a, b, c);                                                              \
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);                                  \
}

WMMA8(wmma_s8, signed char)
WMMA8(wmma_u8, unsigned char)
