// Integer, conversion, float-math, warp-vote and atomic kernels for tests/test_emulator_nvcc.py.
#include <stdint.h>

// out holds 12 results per element (n x 12 int32 row-major)
extern "C" __global__ void int_ops(const int *a, const int *b, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    int *o = out + i * 12;
    o[0] = x * y;                       // wrapping multiply
    o[1] = __mulhi(x, y);
    o[2] = (int)__umulhi(ux, uy);
    o[3] = x >> (y & 31);               // arithmetic shift
    o[4] = (int)(ux >> (uy & 31));      // logical shift
    o[5] = x << (y & 31);
    o[6] = (x & y) ^ (x | ~y);
    o[7] = __popc(ux);
    o[8] = __clz(x);
    o[9] = (int)__brev(ux);
    o[10] = x / (y | 1);                // signed division, truncating
    o[11] = x % (y | 1);
}

// float -> int with each rounding mode; 5 outputs per element
extern "C" __global__ void float_to_int(const float *f, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = f[i];
    int *o = out + i * 5;
    o[0] = __float2int_rn(x);
    o[1] = __float2int_rz(x);
    o[2] = __float2int_rd(x);
    o[3] = __float2int_ru(x);
    o[4] = (int)__float2uint_rn(x);
}

// int -> float: round to nearest, and from unsigned
extern "C" __global__ void int_to_float(const int *k, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[2 * i] = __int2float_rn(k[i]);
    out[2 * i + 1] = (float)(unsigned)k[i];
}

// int -> float rounding toward zero
extern "C" __global__ void int_to_float_rz(const int *k, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __int2float_rz(k[i]);
}

// exactly rounded float math; 3 outputs per element
extern "C" __global__ void float_exact(const float *a, const float *b, const float *c, float *out,
                                       int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    out[3 * i] = x / y;
    out[3 * i + 1] = __fmul_rn(x, y) + z;
    out[3 * i + 2] = __fadd_rn(__fmul_rn(x, x), -z);
}

extern "C" __global__ void fma_f32(const float *a, const float *b, const float *c, float *out,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaf(a[i], b[i], c[i]);
}

// sqrtf (IEEE), rsqrtf and __fdividef (approximate); 3 outputs per element
extern "C" __global__ void float_approx(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    out[3 * i] = sqrtf(fabsf(x));
    out[3 * i + 1] = rsqrtf(fabsf(x) + 1.0f);
    out[3 * i + 2] = __fdividef(x, y);
}

extern "C" __global__ void minmax_nan(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[2 * i] = fminf(a[i], b[i]);
    out[2 * i + 1] = fmaxf(a[i], b[i]);
}

// __ldg and float4 vector loads / stores; n4 = number of float4
extern "C" __global__ void ldg_float4(const float4 *__restrict__ x, const float *__restrict__ s,
                                      float4 *y, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 v = __ldg(&x[i]);
    float k = __ldg(&s[0]);
    y[i] = make_float4(v.x * k, v.y + k, v.z - k, v.w);
}

// per thread: ballot of (x > 0), any (x > 100), all (x > -100), with __syncwarp between
// phases; 3 outputs per thread
extern "C" __global__ void warp_vote(const int *x, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    __syncwarp();
    int any = __any_sync(0xffffffffu, v > 100);
    int all = __all_sync(0xffffffffu, v > -100);
    __syncwarp();
    if (i < n) {
        out[3 * i] = ballot;
        out[3 * i + 1] = any;
        out[3 * i + 2] = all;
    }
}

// __activemask() of converged warps (the block's last warp may be partial)
extern "C" __global__ void active_mask(unsigned *out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = __activemask();
}

__device__ float atomic_max_float(float *addr, float value) {
    int *p = (int *)addr;
    int old = *p, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(p, assumed, __float_as_int(value));
    } while (old != assumed);
    return __int_as_float(old);
}

// stats[0] = max via CAS loop (float), istats = {min, max, exch-ticket count, or-bits}
extern "C" __global__ void atomics(const float *x, const int *k, float *fmax_out, int *istats,
                                   int *slots, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomic_max_float(fmax_out, x[i]);
    atomicMin(&istats[0], k[i]);
    atomicMax(&istats[1], k[i]);
    atomicOr(&istats[2], 1 << (k[i] & 31));
    int ticket = atomicAdd(&istats[3], 1);
    slots[ticket] = i;                     // every ticket is distinct
    atomicExch(&istats[4], 12345);
}

// SIMD intrinsics (nvcc writes vabsdiff4 for the byte absolute differences and sums, plain
// integer code for the others); 14 results per element
extern "C" __global__ void simd_intrinsics(const unsigned *a, const unsigned *b, unsigned *out,
                                           int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    unsigned *o = out + 14 * i;
    o[0] = __vabsdiffu4(x, y);
    o[1] = __vabsdiffs4(x, y);
    o[2] = __vsadu4(x, y);
    o[3] = __vsads4(x, y);
    o[4] = __vabs4(x);
    o[5] = __vadd4(x, y);
    o[6] = __vaddss4(x, y);
    o[7] = __vavgu4(x, y);
    o[8] = __vhaddu4(x, y);
    o[9] = __vsub2(x, y);
    o[10] = __vmaxs2(x, y);
    o[11] = __vsetgtu2(x, y);
    o[12] = __vabsdiffu2(x, y);
    o[13] = __vsads2(x, y);
}
