// Warp-shuffle inclusive scan for tests/test_emulator_nvcc.py. Its own module: nvcc writes the
// address form `[%r9+-4]` here, which the PTX parser once refused (failing the whole module).

// block-level inclusive scan with __shfl_up_sync inside warps, warp totals through shared
extern "C" __global__ void scan_warp(const int *x, int *y, int n) {
    __shared__ int warp_totals[32];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    int lane = t & 31, warp = t >> 5;
    int v = i < n ? x[i] : 0;
    for (int off = 1; off < 32; off <<= 1) {
        int u = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v += u;
    }
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nwarps = blockDim.x >> 5;
        int w = lane < nwarps ? warp_totals[lane] : 0;
        for (int off = 1; off < 32; off <<= 1) {
            int u = __shfl_up_sync(0xffffffffu, w, off);
            if (lane >= off) w += u;
        }
        if (lane < nwarps) warp_totals[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v += warp_totals[warp - 1];
    if (i < n) y[i] = v;
}
