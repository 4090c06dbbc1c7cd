"""Compile-time benchmark: how long accy takes from a traced function to PTX text, per kernel,
for a vector add, a row softmax, a layer norm and a bf16 tensor-core matmul (4096^3), next to
Triton compiling the equivalent kernels to PTX for sm_90 in the same run (when Triton is installed; `triton.compile` with a
`GPUTarget("cuda", 90, 32)` needs no GPU). ptxas (PTX -> cubin) is timed apart for both.

Measures, best of --repeats cold runs (each accy run traces afresh and compiles a new module;
each Triton run clears Triton's in-memory and on-disk caches first):
  accy to PTX    accy.compile(fn, *args): every stage of accy/compiler.py (the default target's
                 artifact is PTX, so ptxas does not run), the host program included
  stages         accy's split of that time by stage (tensor / prepared / plans / kl / ptx / host)
  Triton to PTX  triton.compile of the @triton.jit kernel up to its PTX
  ratio          Triton / accy (> 1: accy is faster)
  ptxas          ptxas -arch=sm_90 on each PTX (one process call; ~25 ms is its fixed cost)
Target: accy <= 2 ms per kernel to PTX, >= 50x faster than Triton.

    python bench/compile.py
    python bench/compile.py --repeats 20 --no-peers
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import accy
import accy.ops as ops
from ir_core import best_of, print_table

TARGET_MS = 2.0
TARGET_RATIO = 50.0
ROWS, COLS, N = 4096, 1024, 1 << 20
MATMUL = 4096


def workloads():
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    m = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    w, b = (rng.standard_normal(COLS).astype(np.float32) for _ in range(2))
    import ml_dtypes
    a = np.empty((MATMUL, MATMUL), ml_dtypes.bfloat16)    # tracing reads shapes and dtypes
    return {
        "add": (lambda x, y: x + y, (x, y)),
        "softmax": (lambda x: ops.softmax(x), (m,)),
        "layer_norm": (lambda x, w, b: ops.layer_norm(x, w, b), (m, w, b)),
        "matmul": (lambda a, b: a @ b, (a, a)),
    }


def accy_row(fn, args, repeats):
    seconds, exe = best_of(lambda: accy.compile(fn, *args), repeats)
    assert len(exe.kernels) == 1 and not exe.fallbacks, exe.report()
    return seconds, exe


def ptxas_seconds(ptx, exe=None):
    """Seconds ptxas takes for `ptx` (None when no ptxas here reads it: Triton writes a
    newer PTX ISA than CUDA 13's ptxas knows, and assembles it with the ptxas it ships)."""
    exe = exe or shutil.which("ptxas")
    if exe is None or not ptx:
        return None
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        t0 = time.perf_counter()
        done = subprocess.run([exe, "-arch=sm_90", path, "-o", os.path.join(d, "k.cubin")],
                              capture_output=True)
        return time.perf_counter() - t0 if done.returncode == 0 else None


def triton_ptxas(triton):
    """The ptxas Triton ships (it reads the PTX ISA Triton writes), if any."""
    root = os.path.dirname(triton.__file__)
    for folder, _, files in os.walk(root):
        if "ptxas" in files:
            return os.path.join(folder, "ptxas")
    return None


# ---- Triton ------------------------------------------------------------------------------------

def triton_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs,
                                                                             mask=mask),
                 mask=mask)

    @triton.jit
    def softmax(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < cols
        x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, 0))
        tl.store(out_ptr + row * cols + offs, e / tl.sum(e, 0), mask=mask)

    @triton.jit
    def layer_norm(x_ptr, w_ptr, b_ptr, out_ptr, cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < cols
        x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
        mean = tl.sum(x, 0) / cols
        c = tl.where(mask, x - mean, 0.0)
        rstd = 1 / tl.sqrt(tl.sum(c * c, 0) / cols + eps)
        y = c * rstd * tl.load(w_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask)
        tl.store(out_ptr + row * cols + offs, y, mask=mask)

    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        cols = tl.program_id(1) * BN + tl.arange(0, BN)
        ks = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :])
            b = tl.load(b_ptr + (k + ks)[:, None] * N + cols[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.bfloat16))

    return triton, {
        "matmul": (matmul, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "M": "i32",
                            "N": "i32", "K": "i32"}, {"BM": 128, "BN": 256, "BK": 32}),
        "add": (add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                {"BLOCK": 1024}),
        "softmax": (softmax, {"x_ptr": "*fp32", "out_ptr": "*fp32", "cols": "i32"},
                    {"BLOCK": COLS}),
        "layer_norm": (layer_norm, {"x_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                                    "out_ptr": "*fp32", "cols": "i32", "eps": "fp32"},
                       {"BLOCK": COLS}),
    }


def triton_row(triton, kernel, signature, constexprs, repeats):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    signature = {**signature, **{k: "constexpr" for k in constexprs}}
    target = GPUTarget("cuda", 90, 32)

    def cold():
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TRITON_CACHE_DIR"] = cache
            src = ASTSource(fn=kernel, signature=signature, constexprs=constexprs)
            return triton.compile(src, target=target)
    seconds, compiled = best_of(cold, repeats)
    return seconds, compiled.asm.get("ptx", "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    triton, peers = None, {}
    if not args.no_peers:
        try:
            triton, peers = triton_kernels()
        except ImportError:
            print("(Triton is not installed: no Triton column; pip install .[bench])")
    rows, misses = [], []
    for name, (fn, inputs) in workloads().items():
        seconds, exe = accy_row(fn, inputs, args.repeats)
        stages = " / ".join(f"{v:.2f}" for v in exe.timings.values())
        ours_ptxas = ptxas_seconds(exe.ptx)
        t_seconds = t_ptxas = None
        if name in peers:
            t_seconds, t_ptx = triton_row(triton, *peers[name], max(2, args.repeats // 3))
            t_ptxas = ptxas_seconds(t_ptx, triton_ptxas(triton))
        rows.append([name, f"{seconds * 1e3:.2f}", stages,
                     f"{t_seconds * 1e3:.1f}" if t_seconds else "-",
                     f"{t_seconds / seconds:.0f}x" if t_seconds else "-",
                     f"{ours_ptxas * 1e3:.0f}" if ours_ptxas else "-",
                     f"{t_ptxas * 1e3:.0f}" if t_ptxas else "-"])
        if seconds * 1e3 > TARGET_MS:
            misses.append(f"{name}: {seconds * 1e3:.2f} ms to PTX > {TARGET_MS}")
        if t_seconds and t_seconds / seconds < TARGET_RATIO:
            misses.append(f"{name}: Triton/accy {t_seconds / seconds:.0f}x < {TARGET_RATIO}x")
    print_table("Compile time per kernel, traced function -> PTX (ms)",
                ["kernel", "accy", "accy stages (" + "/".join(exe.timings) + ")", "Triton", "ratio",
                 "ptxas accy", "ptxas Triton"], rows)
    print("\ntargets: " + ("all met" if not misses else "MISSED\n  " + "\n  ".join(misses)))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
