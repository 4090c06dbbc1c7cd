// Softmax rows (one block per row) for tests/test_emulator_nvcc.py.

template <bool FAST>
__device__ void softmax_row(const float *x, float *y, int cols) {
    __shared__ float red[256];
    const float *row = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;
    int t = threadIdx.x;
    float m = -INFINITY;
    for (int c = t; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    red[t] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = t; c < cols; c += blockDim.x) sum += FAST ? __expf(row[c] - m) : expf(row[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];
    for (int c = t; c < cols; c += blockDim.x)
        out[c] = (FAST ? __expf(row[c] - m) : expf(row[c] - m)) / sum;
}

extern "C" __global__ void softmax_expf(const float *x, float *y, int cols) {
    softmax_row<false>(x, y, cols);
}

extern "C" __global__ void softmax_fast(const float *x, float *y, int cols) {
    softmax_row<true>(x, y, cols);
}
