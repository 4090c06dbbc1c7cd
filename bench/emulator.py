"""Emulator benchmark: thread-instructions per second of accy's PTX emulator on nvcc kernels.

Twelve kernels compiled with `nvcc -arch=sm_90 -ptx` run on the emulator
(accy/runtime/emulator), most at about 1M elements: vector add, a grid-stride saxpy, a block sum
with warp shuffles, a tiled 1024x1024 transpose, a per-block inclusive scan, a
shared-then-global atomic histogram, row softmax (4096 x 256), a tiled f32 matmul (256^3, 16x16
tiles), a divergent kernel (four paths by lane, loops of different lengths), two serial ones (a
running log-sum-exp with one thread per row of 128 x 512, and a single thread scanning 4096
elements: these pay the per-instruction cost, whatever the lane count, on every element) and an
mma.sync bf16 matmul (256^3, one warp per 16x8 tile). Each launch is timed alone (inputs
uploaded and outputs zeroed untimed), best of N, and its output checked against numpy. The rate
is LaunchStats.thread_instructions (instructions times the threads that ran them) over the
launch's wall time; the target is >= 50 M thread-instr/s on a 2-core machine. us/step is the
wall time per instruction issued: what serial kernels (few lanes per step) are bound by. A
kernel that cannot run yet (an instruction not in the table) prints "n/a: <error>" in its row.

No peer is compared: there is no installable PTX emulator to run the same kernels on (GPGPU-Sim
and friends need a CUDA build of their own), so the column is an absolute target only.

    python bench/emulator.py                 # all kernels, best of 3
    python bench/emulator.py --repeats 1 --kernel vadd --kernel softmax
    python bench/emulator.py --profile       # cProfile the slowest kernel, top entries
"""
import argparse
import cProfile
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))      # the repository, when accy is not installed

from ir_core import print_table  # noqa: E402  (registers the IR benchmark's ops; harmless)

from accy.runtime.emulator import Emulator  # noqa: E402

TARGET = 50.0          # M thread-instructions / s

CUDA = r"""
#include <cuda_bf16.h>
#include <stdint.h>

extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy_grid_stride(const float *x, float *y, float a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sum(const float *x, float *out, int n) {
    __shared__ float warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
        if (threadIdx.x == 0) out[blockIdx.x] = v;
    }
}

// 32x32 tiles, 32x8 threads, padded shared tile.
extern "C" __global__ void transpose(const float *in, float *out, int n) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Inclusive scan of each block's 1024 elements: warp scans with shuffles, then warp totals.
extern "C" __global__ void block_scan(const int *in, int *out) {
    __shared__ int totals[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int v = in[i];
    for (int o = 1; o < 32; o <<= 1) {
        int u = __shfl_up_sync(0xffffffff, v, o);
        if (lane >= o) v += u;
    }
    if (lane == 31) totals[w] = v;
    __syncthreads();
    if (w == 0) {
        int t = totals[lane];
        for (int o = 1; o < 32; o <<= 1) {
            int u = __shfl_up_sync(0xffffffff, t, o);
            if (lane >= o) t += u;
        }
        totals[lane] = t;
    }
    __syncthreads();
    if (w > 0) v += totals[w - 1];
    out[i] = v;
}

extern "C" __global__ void histogram(const unsigned char *x, unsigned int *bins, int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[x[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// One block of 256 threads per row of 256.
extern "C" __global__ void softmax_rows(const float *x, float *y, int cols) {
    __shared__ float red[8];
    const float *row = x + blockIdx.x * cols;
    float v = row[threadIdx.x];
    float m = v;
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
    __syncthreads();
    m = red[0];
    for (int k = 1; k < 8; k++) m = fmaxf(m, red[k]);
    __syncthreads();
    float e = __expf(v - m);
    float s = e;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
    __syncthreads();
    s = 0.f;
    for (int k = 0; k < 8; k++) s += red[k];
    y[blockIdx.x * cols + threadIdx.x] = e / s;
}

extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[16][16], Bs[16][16];
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < n; k0 += 16) {
        As[threadIdx.y][threadIdx.x] = A[row * n + k0 + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < 16; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

// Divergent: odd and even lanes run different loops, of 4 to 21 trips by lane and block.
extern "C" __global__ void divergent(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int path = threadIdx.x & 3, iters = 4 + path * 5 + blockIdx.x % 3;
    if (path & 1) {
        for (int k = 0; k < iters; k++) v = v * 0.5f + 1.f;
    } else {
        for (int k = 0; k < iters; k++) v = v - 0.25f * v;
    }
    y[i] = v;
}

// Serial: one thread per row walks its row (a running log-sum-exp), as accy's serial scans do.
extern "C" __global__ void row_logcumsumexp(const float *x, float *y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float m = -INFINITY, s = 0.f;
    for (int j = 0; j < cols; j++) {
        float v = x[r * cols + j];
        float n = fmaxf(m, v);
        s = s * expf(m - n) + expf(v - n);
        m = n;
        y[r * cols + j] = m + logf(s);
    }
}

// Single thread: a running max and sum over the whole input.
extern "C" __global__ void single_thread_scan(const float *x, float *y, int n) {
    float m = -INFINITY, s = 0.f;
    for (int i = 0; i < n; i++) {
        m = fmaxf(m, x[i]);
        s += x[i];
        y[2 * i] = m;
        y[2 * i + 1] = s;
    }
}
"""


class Case:
    """One kernel: inputs, outputs (shape, dtype), launch shape, scalars and a numpy check."""

    def __init__(self, name, kernel, inputs, outputs, block, grid, scalars, check):
        self.name, self.kernel = name, kernel
        self.inputs, self.outputs = inputs, outputs
        self.block, self.grid, self.scalars, self.check = block, grid, scalars, check

    @property
    def threads(self):
        return int(np.prod(self.block) * np.prod(self.grid))


def cases(rng):
    import ml_dtypes
    n = 1 << 20
    a, b = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    out = []
    out.append(Case("vector add f32", "vadd", [a, b], [((n,), np.float32)], (256,), (n // 256,),
                    [np.int32(n)], lambda o: np.allclose(o[0], a + b)))
    out.append(Case("grid-stride saxpy", "saxpy_grid_stride", [a], [((n,), np.float32)],
                    (256,), (64,), [np.float32(2.0), np.int32(n)],
                    lambda o: np.allclose(o[0], 2 * a)))
    out.append(Case("block sum (shuffles)", "block_sum", [a], [((n // 256,), np.float32)],
                    (256,), (n // 256,), [np.int32(n)],
                    lambda o: np.allclose(o[0], a.reshape(-1, 256).sum(1), atol=1e-4)))
    t = rng.standard_normal((1024, 1024), np.float32)
    out.append(Case("transpose 1024^2", "transpose", [t], [((1024, 1024), np.float32)],
                    (32, 8), (32, 32), [np.int32(1024)], lambda o: np.array_equal(o[0], t.T)))
    ints = rng.integers(-100, 100, n).astype(np.int32)
    out.append(Case("inclusive scan (blocks of 1024)", "block_scan", [ints],
                    [((n,), np.int32)], (1024,), (n // 1024,), [],
                    lambda o: np.array_equal(o[0], np.cumsum(ints.reshape(-1, 1024), 1)
                                             .reshape(-1))))
    data = rng.integers(0, 256, n).astype(np.uint8)
    out.append(Case("atomic histogram 256 bins", "histogram", [data], [((256,), np.uint32)],
                    (256,), (64,), [np.int32(n)],
                    lambda o: np.array_equal(o[0], np.bincount(data, minlength=256))))
    x = rng.standard_normal((4096, 256), np.float32)
    e = np.exp(x - x.max(1, keepdims=True))
    out.append(Case("softmax rows 4096x256", "softmax_rows", [x], [((4096, 256), np.float32)],
                    (256,), (4096,), [np.int32(256)],
                    lambda o: np.allclose(o[0], e / e.sum(1, keepdims=True), rtol=1e-4,
                                          atol=1e-7)))
    m = 256
    A, B = rng.standard_normal((m, m), np.float32), rng.standard_normal((m, m), np.float32)
    out.append(Case("tiled f32 matmul 256^3", "matmul_tiled", [A, B], [((m, m), np.float32)],
                    (16, 16), (m // 16, m // 16), [np.int32(m)],
                    lambda o: np.allclose(o[0], A @ B, rtol=1e-4, atol=1e-3)))

    def divergent(v):
        idx = np.arange(n)
        path = idx % 256 & 3
        iters = 4 + path * 5 + (idx // 256) % 3
        v = v.copy()
        for k in range(int(iters.max())):
            go = k < iters
            v = np.where(go & (path & 1 == 1), v * np.float32(0.5) + np.float32(1), v)
            v = np.where(go & (path & 1 == 0), v - np.float32(0.25) * v, v)
        return v
    out.append(Case("divergent (2 loops by lane)", "divergent", [a], [((n,), np.float32)],
                    (256,), (n // 256,), [np.int32(n)],
                    lambda o: np.allclose(o[0], divergent(a), rtol=1e-5)))
    rows, cols = 128, 512
    xs = rng.standard_normal((rows, cols), np.float32)
    lcse = np.logaddexp.accumulate(xs.astype(np.float64), axis=1)
    out.append(Case("serial rows: logcumsumexp 128x512", "row_logcumsumexp", [xs],
                    [((rows, cols), np.float32)], (128,), (1,), [np.int32(rows), np.int32(cols)],
                    lambda o: np.allclose(o[0], lcse, rtol=1e-4, atol=1e-4)))
    k = 4096
    xk = a[:k]
    serial = np.stack([np.maximum.accumulate(xk), np.cumsum(xk, dtype=np.float32)], 1)
    out.append(Case("single thread: max/sum scan 4096", "single_thread_scan", [xk],
                    [((k, 2), np.float32)], (1,), (1,), [np.int32(k)],
                    lambda o: np.allclose(o[0], serial, rtol=1e-5, atol=1e-5)))
    bf = ml_dtypes.bfloat16
    Ab, Bt = rng.standard_normal((m, m)).astype(bf), rng.standard_normal((m, m)).astype(bf)
    ref = Ab.astype(np.float64) @ Bt.astype(np.float64).T
    out.append(Case("mma.sync bf16 matmul 256^3", "mma_bf16", [Ab, Bt], [((m, m), np.float32)],
                    (128,), ((m // 16) * (m // 8) * 32 // 128,), [np.int32(m)] * 3,
                    lambda o: np.allclose(o[0], ref, rtol=1e-4, atol=1e-3)))
    return out


# the mma.sync matmul is the tests' kernel (mma_bf16: one warp per 16x8 tile of C)
TENSORCORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests",
                          "emulator_kernels", "tensorcore.cu")


def compile_ptx():
    with tempfile.TemporaryDirectory() as d:
        src, ptx = os.path.join(d, "k.cu"), os.path.join(d, "k.ptx")
        with open(src, "w") as f, open(TENSORCORE) as tensorcore:
            f.write(CUDA + "\n" + tensorcore.read())
        subprocess.run(["nvcc", "-arch=sm_90", "-ptx", src, "-o", ptx], check=True,
                       capture_output=True)
        with open(ptx) as f:
            return f.read()


def run_case(case, ptx, repeats):
    """(steps, thread-instructions, best seconds); raises what the emulator raised."""
    dev = Emulator()
    fn = dev.module_from_buffer(ptx).get_function(case.kernel)
    ins = [dev.to_device(x) for x in case.inputs]
    outs = [dev.mem_alloc(int(np.prod(s)) * np.dtype(t).itemsize) for s, t in case.outputs]
    best, stats = None, None
    for _ in range(repeats):
        for p, (s, t) in zip(outs, case.outputs):
            dev.memcpy_htod(p, np.zeros(s, t))
        start = time.perf_counter()
        stats = fn(*ins, *outs, *case.scalars, block=case.block, grid=case.grid)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    results = [dev.from_device(p, s, t) for p, (s, t) in zip(outs, case.outputs)]
    if not case.check(results):
        raise AssertionError("wrong result")
    return stats.steps, stats.thread_instructions, best


def profile_case(case, ptx, top):
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        run_case(case, ptx, 1)
    finally:
        profiler.disable()
    print(f"\ncProfile of `{case.name}` (top {top} by own time):")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--kernel", action="append", help="run only kernels whose name contains this")
    ap.add_argument("--profile", action="store_true", help="cProfile the slowest kernel")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    if shutil.which("nvcc") is None:
        print("skipped: nvcc is not on PATH (the benchmark's kernels are CUDA C++)")
        return
    ptx = compile_ptx()
    selected = [c for c in cases(np.random.default_rng(0))
                if not args.kernel or any(k in c.name or k == c.kernel for k in args.kernel)]
    rows, slowest = [], None
    for case in selected:
        try:
            steps, ti, sec = run_case(case, ptx, args.repeats)
        except Exception as e:    # noqa: BLE001 - an unsupported instruction, a fault, ...
            msg = " ".join(str(e).split()) or type(e).__name__
            rows.append([case.name, f"{case.threads:,}", "-", "-", "-", "-", "-",
                         f"n/a: {msg[:120]}"])
            continue
        rate = ti / sec / 1e6
        if slowest is None or rate < slowest[0]:
            slowest = (rate, case)
        rows.append([case.name, f"{case.threads:,}", f"{steps:,}", f"{ti:,}", f"{sec:.3f}",
                     f"{sec / steps * 1e6:.1f}", f"{rate:.1f}",
                     "ok" if rate >= TARGET else "MISSED"])
    print_table(f"emulator: thread-instructions per second, best of {args.repeats} "
                f"(target >= {TARGET:g} M/s)",
                ["kernel", "threads", "steps", "thread-instr", "seconds", "us/step",
                 "M thread-instr/s", "target"], rows)
    if args.profile and slowest is not None:
        profile_case(slowest[1], ptx, args.top)


if __name__ == "__main__":
    main()
