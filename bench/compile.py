"""Compile-time benchmark: how long accy takes from a traced function to PTX text, per workload,
next to Triton compiling an equivalent @triton.jit kernel to PTX for sm_90 in the same run (when
Triton is installed; `triton.compile` with a `GPUTarget("cuda", 90, 32)` needs no GPU).

Workloads: add (2^20 f32), softmax, layer_norm, rms_norm, a fused tanh GELU-bias gelu(x + b), a
column sum (axis 0), cumsum (last axis) and a transpose, all of a (4096, 1024) f32 matrix; a
bf16 matmul (4096^3); causal flash attention (batch 4, 16 heads, seq 4096, d64, bf16).

Every time is process time (time.process_time: this process's CPU time, so a loaded machine's
waits do not count), best of --repeats cold runs on each side: each accy run traces afresh and
runs every stage with no compile cache; each Triton run clears Triton's on-disk cache first.
The garbage collector runs as it does in a batch worker (no forced full collection between
runs: one slows accy's compile after it by a quarter, by half with Triton loaded in the
process, much as a cold CPU cache would); --collect forces one before each run on both sides.
  kernels        how many kernels accy's executable launches (no host fallbacks, checked)
  ops            tensor-dialect ops in the traced (tensor-stage) module, region bodies included
  accy           trace + every stage of accy/compiler.py up to PTX and the host program (the
                 default target's artifact is PTX, so ptxas does not run)
  stages         that run split as the compile-speed targets name the stages:
                   trace        the `tensor` stage: tracing the function, setting the target
                   canonicalize `prepared`: lower-case, canonicalize, cse, raise-attention
                   plan         `plans`: target profile, shape/layout, schedule, outlines, buffers
                   kernelize    `kl`: each outline lowered to a kl.kernel
                   emit         `ptx` + `host` (legalize and emit PTX, build the host program;
                                the `cubin` stage between them runs nothing for a PTX target)
  trace/op       trace and plan time per tensor op (µs)
  plan/op
  Triton         triton.compile of the kernel; its ptxas step (PTX -> cubin) runs in a child
                 process, which process time does not count, so this is Triton up to PTX
  ratio          Triton / accy (> 1: accy is faster)
  ptxas          ptxas on each side's PTX for the arch it targets (accy sm_90, Triton sm_90a), its
                 own process time; Triton's PTX ISA is newer than a CUDA 13.0 ptxas reads, so
                 it goes through the ptxas Triton uses
Targets (on a quiet machine): accy <= 1 ms for each memory-bound workload, <= 3 ms for matmul
and attention, >= 60x Triton on every row, trace and plan each <= 8 µs per tensor op. Every
number that misses its target is marked MISSED, and the last line lists the misses.

    python bench/compile.py
    python bench/compile.py --repeats 20 --no-peers
    python bench/compile.py --small --repeats 1      # tiny shapes: checks that it runs
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import accy.ops as ops
from accy.compiler import STAGES, compilation
from ir_core import best_of, print_table

MEMORY_MS, HEAVY_MS, TARGET_RATIO, PER_OP_US = 1.0, 3.0, 60.0, 8.0
HEAVY = ("matmul", "attention")          # rows held to HEAVY_MS; the rest are memory-bound
# the names for accy's stages (accy/compiler.py's STAGES), in order
SPLIT = {"tensor": "trace", "prepared": "canonicalize", "plans": "plan", "kl": "kernelize",
         "ptx": "emit", "cubin": "emit", "host": "emit"}
PHASES = ("trace", "canonicalize", "plan", "kernelize", "emit")
SIZES = {"full": {"rows": 4096, "cols": 1024, "n": 1 << 20, "matmul": 4096,
                  "attention": (4, 16, 4096, 64)},
         "small": {"rows": 64, "cols": 128, "n": 4096, "matmul": 256,
                   "attention": (1, 2, 256, 64)}}


def workloads(size):
    """{name: (function, example arguments)} at `size` (a SIZES entry)."""
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(size["n"]).astype(np.float32) for _ in range(2))
    m = rng.standard_normal((size["rows"], size["cols"])).astype(np.float32)
    w, b = (rng.standard_normal(size["cols"]).astype(np.float32) for _ in range(2))
    # tracing reads only shapes and dtypes
    a = np.empty((size["matmul"],) * 2, ml_dtypes.bfloat16)
    q = np.empty(size["attention"], ml_dtypes.bfloat16)
    return {
        "add": (lambda x, y: x + y, (x, y)),
        "softmax": (lambda x: ops.softmax(x), (m,)),
        "layer_norm": (lambda x, w, b: ops.layer_norm(x, w, b), (m, w, b)),
        "rms_norm": (lambda x, w: ops.rms_norm(x, w), (m, w)),
        "gelu_bias": (lambda x, b: ops.gelu(x + b, approximate=True), (m, b)),
        "column_sum": (lambda x: ops.sum(x, axis=0), (m,)),
        "cumsum": (lambda x: ops.cumsum(x, axis=-1), (m,)),
        "transpose": (lambda x: ops.transpose(x), (m,)),
        "matmul": (lambda a, b: a @ b, (a, a)),
        "attention": (lambda q, k, v: ops.attention(q, k, v, causal=True), (q, q, q)),
    }


def accy_cold(fn, args):
    """One cold compile of `fn` on `args`: (process seconds by phase, the Compilation, tensor
    op count)."""
    phases = dict.fromkeys(PHASES, 0.0)
    t0 = time.process_time()
    c = compilation(fn, *args, stop="tensor")
    phases["trace"] = time.process_time() - t0
    ops_count = sum(op.name.startswith("tensor.") for op in c.module.walk())
    for stage in STAGES[1:]:
        t0 = time.process_time()
        c.run(stage.name)
        phases[SPLIT[stage.name]] += time.process_time() - t0
    return phases, c, ops_count


def accy_row(name, fn, args, repeats, collect):
    seconds, (phases, c, ops_count) = best_of(lambda: accy_cold(fn, args), repeats,
                                              clock=time.process_time, collect=collect)
    exe = c.executable
    if not exe.kernels or exe.fallbacks:
        raise SystemExit(f"{name}: accy did not compile it to kernels alone:\n{exe.report()}")
    return seconds, phases, ops_count, exe


def ptxas_seconds(ptx, exe):
    """ptxas's process time on `ptx`, for the arch its .target names (None without a ptxas,
    or when it rejects the PTX)."""
    if exe is None or not ptx:
        return None
    arch = re.search(r"^\.target (\w+)", ptx, re.M).group(1)     # Triton writes sm_90a
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        before = children_seconds()
        done = subprocess.run([exe, f"-arch={arch}", path, "-o", os.path.join(d, "k.cubin")],
                              capture_output=True)
        seconds = children_seconds() - before
    return seconds if done.returncode == 0 else None


def children_seconds():
    """CPU seconds of this process's finished children (µs resolution, unlike os.times)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# ---- Triton ------------------------------------------------------------------------------------

def triton_kernels(size):
    """Triton, and {name: (kernel, signature, constexprs)} for the workloads at `size`."""
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")     # its current default, unwarned
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
    def rms_norm(x_ptr, w_ptr, out_ptr, cols, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < cols
        x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
        scale = tl.rsqrt(tl.sum(x * x, 0) / cols + eps)
        tl.store(out_ptr + row * cols + offs, x * scale * tl.load(w_ptr + offs, mask=mask),
                 mask=mask)

    @triton.jit
    def gelu_bias(x_ptr, b_ptr, out_ptr, cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < cols
        x = tl.load(x_ptr + row * cols + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask)
        # (1 + tanh(u)) / 2 == sigmoid(2u): the tanh form of GELU
        u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        tl.store(out_ptr + row * cols + offs, x * tl.sigmoid(2 * u), mask=mask)

    @triton.jit
    def column_sum(x_ptr, out_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
        c = tl.program_id(0) * BC + tl.arange(0, BC)
        acc = tl.zeros((BR, BC), dtype=tl.float32)
        for start in range(0, rows, BR):
            r = start + tl.arange(0, BR)
            mask = (r[:, None] < rows) & (c[None, :] < cols)
            acc += tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask, other=0.0)
        tl.store(out_ptr + c, tl.sum(acc, 0), mask=c < cols)

    @triton.jit
    def cumsum(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < cols
        x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
        tl.store(out_ptr + row * cols + offs, tl.cumsum(x, 0), mask=mask)

    @triton.jit
    def transpose(x_ptr, out_ptr, rows, cols, TR: tl.constexpr, TC: tl.constexpr):
        r = tl.program_id(0) * TR + tl.arange(0, TR)
        c = tl.program_id(1) * TC + tl.arange(0, TC)
        tile = tl.load(x_ptr + r[:, None] * cols + c[None, :],
                       mask=(r[:, None] < rows) & (c[None, :] < cols))
        tl.store(out_ptr + c[:, None] * rows + r[None, :], tl.trans(tile),
                 mask=(c[:, None] < cols) & (r[None, :] < rows))

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

    @triton.jit
    def attention(q_ptr, k_ptr, v_ptr, o_ptr, seq, scale, D: tl.constexpr, BM: tl.constexpr,
                  BN: tl.constexpr):
        # one program per BM queries of one (batch, head); keys past the last query skipped
        first = tl.program_id(0) * BM
        base = tl.program_id(1) * seq * D
        queries = first + tl.arange(0, BM)
        dims = tl.arange(0, D)
        q = tl.load(q_ptr + base + queries[:, None] * D + dims[None, :])
        top = tl.full((BM,), -float("inf"), tl.float32)        # running row maximum
        total = tl.zeros((BM,), dtype=tl.float32)               # running softmax denominator
        acc = tl.zeros((BM, D), dtype=tl.float32)
        for start in range(0, first + BM, BN):
            keys = start + tl.arange(0, BN)
            k = tl.load(k_ptr + base + keys[:, None] * D + dims[None, :])
            v = tl.load(v_ptr + base + keys[:, None] * D + dims[None, :])
            s = tl.dot(q, tl.trans(k)) * scale
            s = tl.where(keys[None, :] <= queries[:, None], s, -float("inf"))
            new_top = tl.maximum(top, tl.max(s, 1))
            p = tl.exp(s - new_top[:, None])
            shrink = tl.exp(top - new_top)
            total = total * shrink + tl.sum(p, 1)
            acc = acc * shrink[:, None] + tl.dot(p.to(tl.bfloat16), v)
            top = new_top
        tl.store(o_ptr + base + queries[:, None] * D + dims[None, :],
                 (acc / total[:, None]).to(tl.bfloat16))

    cols = size["cols"]
    rowwise = {"BLOCK": cols}
    f32 = "*fp32"
    return triton, {
        "add": (add, {"x_ptr": f32, "y_ptr": f32, "out_ptr": f32, "n": "i32"},
                {"BLOCK": 1024}),
        "softmax": (softmax, {"x_ptr": f32, "out_ptr": f32, "cols": "i32"}, rowwise),
        "layer_norm": (layer_norm, {"x_ptr": f32, "w_ptr": f32, "b_ptr": f32, "out_ptr": f32,
                                    "cols": "i32", "eps": "fp32"}, rowwise),
        "rms_norm": (rms_norm, {"x_ptr": f32, "w_ptr": f32, "out_ptr": f32, "cols": "i32",
                                "eps": "fp32"}, rowwise),
        "gelu_bias": (gelu_bias, {"x_ptr": f32, "b_ptr": f32, "out_ptr": f32, "cols": "i32"},
                      rowwise),
        "column_sum": (column_sum, {"x_ptr": f32, "out_ptr": f32, "rows": "i32", "cols": "i32"},
                       {"BR": 32, "BC": 128}),
        "cumsum": (cumsum, {"x_ptr": f32, "out_ptr": f32, "cols": "i32"}, rowwise),
        "transpose": (transpose, {"x_ptr": f32, "out_ptr": f32, "rows": "i32", "cols": "i32"},
                      {"TR": 64, "TC": 64}),
        "matmul": (matmul, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "M": "i32",
                            "N": "i32", "K": "i32"}, {"BM": 128, "BN": 256, "BK": 32}),
        "attention": (attention, {"q_ptr": "*bf16", "k_ptr": "*bf16", "v_ptr": "*bf16",
                                  "o_ptr": "*bf16", "seq": "i32", "scale": "fp32"},
                      {"D": size["attention"][3], "BM": 128, "BN": 64}),
    }


def triton_row(triton, kernel, signature, constexprs, repeats, collect):
    """Triton's best process time compiling `kernel` cold, and its PTX."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    signature = {**signature, **{k: "constexpr" for k in constexprs}}
    target = GPUTarget("cuda", 90, 32)

    def cold():
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TRITON_CACHE_DIR"] = cache
            src = ASTSource(fn=kernel, signature=signature, constexprs=constexprs)
            return triton.compile(src, target=target)
    seconds, compiled = best_of(cold, repeats, clock=time.process_time, collect=collect)
    return seconds, compiled.asm.get("ptx", "")


def triton_ptxas():
    """The ptxas Triton assembles sm_90 PTX with (it reads the PTX ISA Triton writes)."""
    from triton.backends.nvidia.compiler import get_ptxas
    return get_ptxas(90).path


# ---- the table ---------------------------------------------------------------------------------

def checked(text, missed, misses, name, column):
    """`text`, marked MISSED (and (name, column) added to `misses`) when `missed`."""
    if missed:
        misses.append((name, column))
        return f"{text} MISSED"
    return text


def misses_line(misses):
    """One line: each workload with the columns where it missed its target."""
    by_name = {}
    for name, column in misses:
        by_name.setdefault(name, []).append(column)
    return f"MISSED {len(misses)}: " + "; ".join(f"{name} ({', '.join(columns)})"
                                                  for name, columns in by_name.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--small", action="store_true", help="tiny shapes (checks that it runs)")
    ap.add_argument("--collect", action="store_true",
                    help="a full garbage collection before each timed run")
    args = ap.parse_args()
    size = SIZES["small" if args.small else "full"]
    triton, peers = None, {}
    if not args.no_peers:
        try:
            triton, peers = triton_kernels(size)
        except ImportError:
            print("(Triton is not installed: no Triton column; pip install .[bench])")
    rows, misses = [], []
    for name, (fn, inputs) in workloads(size).items():
        seconds, phases, ops_count, exe = accy_row(name, fn, inputs, args.repeats, args.collect)
        ms = seconds * 1e3
        limit = HEAVY_MS if name in HEAVY else MEMORY_MS
        row = [name, len(exe.kernels), ops_count,
               checked(f"{ms:.2f}", ms > limit, misses, name, "accy")]
        row += [f"{phases[p] * 1e3:.2f}" for p in PHASES]
        for phase in ("trace", "plan"):
            us = phases[phase] * 1e6 / ops_count
            row.append(checked(f"{us:.1f}", us > PER_OP_US, misses, name, f"{phase}/op"))
        ours_ptxas = ptxas_seconds(exe.ptx, shutil.which("ptxas"))
        if name in peers:
            t_seconds, t_ptx = triton_row(triton, *peers[name], args.repeats, args.collect)
            ratio = t_seconds / seconds
            row += [f"{t_seconds * 1e3:.1f}",
                    checked(f"{ratio:.0f}x", ratio < TARGET_RATIO, misses, name, "ratio")]
            t_ptxas = ptxas_seconds(t_ptx, triton_ptxas())
        else:
            row += ["-", "-"]
            t_ptxas = None
        row += [f"{ours_ptxas * 1e3:.0f}" if ours_ptxas else "-",
                f"{t_ptxas * 1e3:.0f}" if t_ptxas else "-"]
        rows.append(row)
    print_table(f"Compile time, traced function -> PTX, process time, best of {args.repeats} "
                f"(ms; per op µs)",
                ["workload", "kernels", "ops", "accy"] + list(PHASES)
                + ["trace/op", "plan/op", "Triton", "ratio", "ptxas accy", "ptxas Triton"], rows)
    print(f"\ntargets: accy <= {MEMORY_MS} ms memory-bound, <= {HEAVY_MS} ms "
          f"{' and '.join(HEAVY)}; >= {TARGET_RATIO:.0f}x Triton; trace and plan <= "
          f"{PER_OP_US} µs per tensor op")
    print("all met" if not misses else misses_line(misses))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
