// Kernels for the emulator's checks: races a missing barrier leaves, a guarded barrier, a
// struct parameter, and the correct versions that must run clean.
struct Affine { float scale; int shift; double unused; };

extern "C" __global__ void tree_sum(const float* x, float* out, int sync) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    if (sync) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void mirror(float* out, int sync) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = (float)t;
  if (sync) __syncthreads();
  out[t] = s[63 - t];
}

extern "C" __global__ void overwrite_in_loop(const float* x, float* out, int sync) {
  __shared__ float s[64];
  int t = threadIdx.x;
  float acc = 0.f;
  for (int r = 0; r < 3; r++) {
    s[t] = x[r * 64 + t];
    __syncthreads();
    acc += s[63 - t];
    if (sync) __syncthreads();     // without it, the next round's store races with this load
  }
  out[t] = acc;
}

extern "C" __global__ void guarded_barrier(float* out) {
  int t = threadIdx.x;
  if (t < 32) __syncthreads();
  out[t] = (float)t;
}

extern "C" __global__ void affine(const float* x, float* y, Affine a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * a.scale + (float)a.shift;
}

extern "C" __global__ void spin(volatile int* flag) {
  while (*flag == 0) { }
}
