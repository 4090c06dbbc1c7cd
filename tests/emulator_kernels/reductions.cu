// Reductions, scans, histograms and softmax for tests/test_emulator_nvcc.py.

// one partial sum per block: warp shuffles, then shared memory across warps; plus atomicAdd
extern "C" __global__ void block_reduce(const float *x, float *partial, float *total, int n) {
    __shared__ float warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nwarps = (blockDim.x + 31) >> 5;
        v = lane < nwarps ? warp_sums[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) {
            partial[blockIdx.x] = v;
            atomicAdd(total, v);
        }
    }
}

// block-level inclusive scan, Hillis-Steele with double buffering in shared memory
extern "C" __global__ void scan_shared(const int *x, int *y, int n) {
    __shared__ int buf[2][256];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    int src = 0;
    buf[0][t] = i < n ? x[i] : 0;
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        int v = buf[src][t];
        if (t >= off) v += buf[src][t - off];
        buf[1 - src][t] = v;
        src = 1 - src;
        __syncthreads();
    }
    if (i < n) y[i] = buf[src][t];
}

extern "C" __global__ void hist_global(const int *x, int *bins, int n, int nbins) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[x[i] % nbins], 1);
}

// privatized: a per-block histogram in dynamic shared memory, then merged into global
extern "C" __global__ void hist_shared(const int *x, int *bins, int n, int nbins) {
    extern __shared__ int local[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[x[i] % nbins], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}
