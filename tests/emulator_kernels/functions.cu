// Device functions for tests/test_emulator_functions.py: the math library's double (and
// precise float) functions, which nvcc calls as .func (trig argument reduction, pow), and
// __noinline__ functions: several arguments and a return value, recursion with a local array,
// and calls taken by only some threads of a warp.

// 5 results per element: sin, cos, pow(x, e), exp, log (of |x|)
extern "C" __global__ void math_f64(const double *x, const double *e, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    double *o = out + 5 * i;
    o[0] = sin(v);
    o[1] = cos(v);
    o[2] = pow(fabs(v), e[i]);
    o[3] = exp(e[i] * 100.0);
    o[4] = log(fabs(v));
}

extern "C" __global__ void math_f32(const float *x, const float *e, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float *o = out + 5 * i;
    o[0] = sinf(v);
    o[1] = cosf(v);
    o[2] = powf(fabsf(v), e[i]);
    o[3] = expf(e[i] * 10.0f);
    o[4] = logf(fabsf(v));
}

// several arguments of several types, a pointer among them, and a double result
__device__ __noinline__ double blend(double a, float b, int c, long long d, const float *p,
                                     unsigned char s) {
    return a * b + (double)c * (double)d - p[c & 7] + s;
}

extern "C" __global__ void noinline_args(const double *a, const float *b, const long long *d,
                                         const float *table, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = blend(a[i], b[i], i * 3 - 50, d[i], table, (unsigned char)(i * 7));
}

// recursion that cannot become a loop: two calls, each activation with its own local array
// (indexed at run time, so it lives in local memory)
__device__ __noinline__ int walk(int n, int k) {
    int buf[8];
    for (int j = 0; j < 8; ++j) buf[j] = n * j + k;
    if (n <= 0) return buf[k & 7];
    int left = walk(n - 1, k + buf[(n + k) & 7]);
    int right = walk(n - 2, left ^ buf[(k * 3) & 7]);
    return (left * 31 + right) ^ buf[(left + k) & 7];
}

extern "C" __global__ void recursive(const int *depth, const int *seed, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = walk(depth[i], seed[i]);
}

// deep recursion, one call a level with a local array each (thousands of levels)
__device__ __noinline__ int descend(int n, int x) {
    volatile int arr[8];
    for (int j = 0; j < 8; ++j) arr[j] = x + j;
    if (n == 0) return arr[x & 7];
    return descend(n - 1, x + 1) + arr[n & 7];
}

extern "C" __global__ void deep_recursion(const int *depth, const int *seed, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = descend(depth[i], seed[i]);
}

// only lanes i % 3 == 0 call; the block then meets at a barrier and the warp shuffles
__device__ __noinline__ float poly(float v, int k) {
    float r = 0.0f;
    for (int j = 0; j <= (k & 3); ++j) r = r * v + (float)(j + 1);
    return r;
}

extern "C" __global__ void divergent_calls(const float *x, float *y) {
    __shared__ float s[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    if (threadIdx.x % 3 == 0) v = poly(v, threadIdx.x);
    s[threadIdx.x] = v;
    __syncthreads();
    float w = __shfl_xor_sync(0xffffffffu, v, 1);
    y[i] = w + s[(threadIdx.x + 1) % blockDim.x];
}

// calls through function pointers (nvcc writes an indirect call with a .callprototype): each
// thread picks one of three functions, one of which calls another
__device__ __noinline__ float f_square(float v, int k) { return v * v + (float)k; }
__device__ __noinline__ float f_half(float v, int k) { return v * 0.5f - (float)k; }
__device__ __noinline__ float f_poly(float v, int k) { return poly(v, k); }
typedef float (*unary_fn)(float, int);

extern "C" __global__ void pointer_calls(const float *x, const int *which, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unary_fn f = which[i] == 0 ? f_square : which[i] == 1 ? f_half : f_poly;
    y[i] = f(x[i], i & 7);
}

// warp- and block-synchronous instructions inside functions reached from two call sites: the
// lanes (or warps) meet at the same instruction through different call stacks
__device__ __noinline__ int pair_sum(int x) { return __shfl_xor_sync(0xffffffff, x, 1) + x; }
__device__ __noinline__ int affine(int x) { return x * 7 + 3; }
__device__ __noinline__ int synced(int x) { __syncwarp(); return x + 1; }

__device__ __noinline__ int mirrored(int x) {
    __shared__ int s[64];
    s[threadIdx.x] = x;
    __syncthreads();
    int r = s[63 - threadIdx.x];
    __syncthreads();
    return r;
}

extern "C" __global__ void sync_in_two_call_sites(const int *x, int *out) {
    int t = threadIdx.x, v = x[t];
    int a = (t & 1) ? affine(v) + pair_sum(v) : pair_sum(v + 100) * affine(v);
    int b = (t & 1) ? synced(affine(v)) : affine(synced(v));
    int c = (t < 32) ? mirrored(v) * 2 : mirrored(v + 1000) + 1;
    out[3 * t] = a;
    out[3 * t + 1] = b;
    out[3 * t + 2] = c;
}

// odd and even threads each loop inside their own function (no meeting instruction there)
__device__ __noinline__ unsigned mix3(unsigned x, int k) {
    for (int i = 0; i < k; i++) x = x * 3 + (x >> 5);
    return x;
}
__device__ __noinline__ unsigned mix5(unsigned x, int k) {
    for (int i = 0; i < k; i++) x = x * 5 + (x >> 3);
    return x;
}

extern "C" __global__ void two_loops(const unsigned *x, unsigned *out, int k) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = (t & 1) ? mix3(x[t], k) : mix5(x[t], k);
}

// a complete warp (block) and parts of another reach the same shuffle (barrier) through
// different call sites, the rest of the partial one later: the complete one must not run
// the partial one's lanes with it
extern "C" __global__ void partial_warp_meets(const int *x, int *out) {
    int t = threadIdx.x, lane = t & 31, warp = t >> 5, v = x[t], r = 0;
    if (warp == 0 && lane < 16) r = pair_sum(v * 2);
    if (warp == 1) r = pair_sum(v);
    if (warp == 0 && lane >= 16) {
        for (int i = 0; i < lane; i++) v += i;
        r = pair_sum(v * 3);
    }
    out[t] = r;
}

extern "C" __global__ void partial_block_meets(const int *x, int *out) {
    int t = threadIdx.x, i = blockIdx.x * 64 + t, v = x[i], r = 0;
    if (blockIdx.x == 1 && t < 32) r = mirrored(v * 2);
    if (blockIdx.x == 0) r = mirrored(v);
    if (blockIdx.x == 1 && t >= 32) {
        for (int k = 0; k < t; k++) v += k;
        r = mirrored(v * 3);
    }
    out[i] = r;
}

// the even lanes of warp 0 wait at a shuffle for the odd ones, which come after the spin
// loop of warps 2 and 3 in program order; thread 0 sets their (global) flag after the
// shuffle
__device__ __noinline__ int pair_sum_then_flag(int x, volatile int *flag) {
    int r = __shfl_xor_sync(0xffffffff, x, 1) + x;
    if (threadIdx.x == 0) *flag = 1;
    return r;
}

extern "C" __global__ void spin_while_lanes_wait(const int *x, int *out, volatile int *flag) {
    int t = threadIdx.x, v = x[t], r = 0;
    if (t < 32 && (t & 1) == 0) r = pair_sum_then_flag(v, flag);
    if (t >= 64) {
        while (*flag == 0) {}
        out[t] = 1;
        return;
    }
    if (t < 32 && (t & 1)) r = pair_sum_then_flag(v * 10, flag);
    if (t < 32) out[t] = r;
}

// odd lanes at __syncwarp, even ones at a shuffle: each waits for the other (an error)
extern "C" __global__ void crossed_meets(const int *x, int *out) {
    int t = threadIdx.x, v = x[t];
    out[t] = (t & 1) ? synced(v) : pair_sum(v);
}
