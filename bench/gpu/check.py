"""accy's kernels against PyTorch on one GPU: elementwise chains, softmax, layer_norm, rms_norm,
row and column sums, cumsum and a transpose, each moving a few GB (GB/s against the copy
ceiling and torch eager); then matrix products (f16/bf16 4096^3 and 8192^3, tall-skinny,
batched) against torch.matmul (cuBLAS) and attention (batch 4, 16 heads, seq 4096, head dim 64
and 128, causal and not) against torch's scaled_dot_product_attention, in TFLOP/s.

    python bench/gpu/check.py                 # a GPU with torch and PyCUDA (bench/gpu/run.sh)
    python bench/gpu/check.py --scale 0.25    # a quarter of the default sizes
    python bench/gpu/check.py --dry-run       # anywhere: every executable built at small sizes
                                              # and run on the emulator against the reference
    python bench/gpu/check.py --tune          # also each matrix product and attention under
                                              # every schedule of TUNE / TUNE_ATTENTION, as
                                              # generated `accy.target` schedules would set it

For each case: accy compiles the program (`accy.compile`), binds its buffer plan on the GPU
once (`Executable.bind`), fills the arguments from torch tensors device to device, checks its
result against torch's, then times `Bound.launch()` (kernel launches only: no host copies)
between PyCUDA events; torch's eager version of the same program is timed between CUDA events
on the same (default) stream. Bandwidth counts the bytes a perfect kernel would move (every
argument read once, every result written once), in GB/s (1e9 bytes); the device-to-device
copy bandwidth (torch, bytes read + written) measured in the same run is the ceiling. Prints a
table (kernel, size, accy GB/s, accy/copy, torch GB/s, accy/torch speed, largest difference),
also written as markdown to $OUT/gpu_table.md when OUT is set (or to --markdown PATH).
"""
import argparse
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

try:
    import accy
except ImportError:         # run from a checkout whose extension was built in place
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import accy
import accy.ops as ops
from accy._core.types import numpy_dtype

M = 1 << 20


# (tile_m, tile_n, tile_k, stages) tried by --tune for each matrix product, beside the default
# rule (the 64-deep stages need sm_80/sm_90's shared memory)
TUNE = ((128, 256, 32, 4), (128, 256, 64, 3), (128, 128, 32, 5), (128, 128, 64, 4),
        (64, 64, 64, 4))
# (query rows a block, keys a tile) tried by --tune for each attention, beside the default 64 x 64
TUNE_ATTENTION = ((128, 64), (64, 32))


@dataclass(frozen=True)
class Case:
    name: str
    accy_fn: object         # accy.ops program
    torch_fn: object        # (torch, *tensors) -> tensor: the same program in torch
    args: tuple             # ((shape, dtype), ...) at full size; the leading dim scales
    small: tuple            # the same for --dry-run
    tol: float              # largest |accy - torch| / (1 + |torch|) accepted
    flops: object = None    # args -> floating-point operations: a compute case (TFLOP/s)


def _rows(rows, cols, dtype="f32", extra=()):
    return (((rows, cols), dtype),) + tuple(((cols,), dtype) for _ in extra)


CASES = (
    Case("x*y+z", lambda x, y, z: x * y + z, lambda t, x, y, z: x * y + z,
         _rows(256 * M // 1024, 1024) * 3, _rows(3, 70) * 3, 1e-6),
    Case("tanh(x*y+z)", lambda x, y, z: ops.tanh(x * y + z),
         lambda t, x, y, z: t.tanh(x * y + z), _rows(256, M) * 3, _rows(3, 70) * 3, 1e-5),
    Case("exp(x)*y+tanh(x-y)", lambda x, y: ops.exp(x) * y + ops.tanh(x - y),
         lambda t, x, y: t.exp(x) * y + t.tanh(x - y), _rows(256, M) * 2, _rows(3, 70) * 2,
         1e-5),
    Case("tanh(x*y+z) bf16", lambda x, y, z: ops.tanh(x * y + z),
         lambda t, x, y, z: t.tanh(x * y + z), _rows(512, M, "bf16") * 3,
         _rows(3, 70, "bf16") * 3, 2e-2),
    Case("softmax", lambda x: ops.softmax(x), lambda t, x: t.softmax(x, -1),
         _rows(256 * 1024, 1024), _rows(5, 40), 1e-5),
    Case("layer_norm", lambda x, w, b: ops.layer_norm(x, w, b),
         lambda t, x, w, b: t.nn.functional.layer_norm(x, x.shape[-1:], w, b, eps=1e-5),
         _rows(256 * 1024, 1024, extra="wb"), _rows(5, 40, extra="wb"), 1e-4),
    Case("rms_norm", lambda x, w: ops.rms_norm(x, w),
         lambda t, x, w: t.nn.functional.rms_norm(x, x.shape[-1:], w, eps=1e-6),
         _rows(256 * 1024, 1024, extra="w"), _rows(5, 40, extra="w"), 1e-4),
    Case("row sum", lambda x: ops.sum(x, axis=-1), lambda t, x: x.sum(-1),
         _rows(256 * 1024, 1024), _rows(5, 40), 1e-4),
    Case("column sum", lambda x: ops.sum(x, axis=0), lambda t, x: x.sum(0),
         _rows(16 * 1024, 16 * 1024), _rows(40, 5), 1e-3),
    Case("cumsum", lambda x: ops.cumsum(x, axis=1), lambda t, x: x.cumsum(1),
         _rows(256 * 1024, 1024), _rows(5, 40), 1e-4),
    Case("transpose", lambda x: ops.transpose(x), lambda t, x: x.t().contiguous(),
         _rows(16 * 1024, 16 * 1024), _rows(7, 33), 0.0),
)


def _matmul_flops(args):
    (a, _), (b, _) = args
    return 2 * int(np.prod(a[:-1], dtype=np.int64)) * a[-1] * b[-1]


def _attention_flops(causal):
    def flops(args):
        (q, _), (k, _), _ = args
        *bh, sq, d = q
        full = 4 * int(np.prod(bh, dtype=np.int64)) * sq * k[-2] * d     # two products
        return full // 2 if causal else full
    return flops


def _matmul(shape_a, shape_b, dtype, small_a, small_b):
    return Case(f"matmul {dtype}", lambda a, b: a @ b, lambda t, a, b: a @ b,
                ((shape_a, dtype), (shape_b, dtype)), ((small_a, dtype), (small_b, dtype)),
                2e-2, _matmul_flops)


def _attention(d, causal, dtype="bf16"):
    shape, small = (4, 16, 4096, d), (1, 2, 70, d)
    return Case(f"attention d{d}{' causal' if causal else ''}",
                lambda q, k, v: ops.attention(q, k, v, causal=causal),
                lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=causal),
                ((shape, dtype),) * 3, ((small, dtype),) * 3, 3e-2, _attention_flops(causal))


# matrix products and attention, in TFLOP/s against cuBLAS (torch.matmul) and torch's SDPA
COMPUTE = (
    _matmul((4096, 4096), (4096, 4096), "f16", (40, 48), (48, 24)),
    _matmul((4096, 4096), (4096, 4096), "bf16", (40, 48), (48, 24)),
    _matmul((8192, 8192), (8192, 8192), "bf16", (33, 64), (64, 17)),
    _matmul((65536, 4096), (4096, 256), "bf16", (130, 32), (32, 8)),        # tall-skinny
    _matmul((32, 1024, 1024), (32, 1024, 1024), "bf16", (2, 24, 32), (2, 32, 16)),  # batched
    _attention(64, False), _attention(64, True), _attention(128, False), _attention(128, True),
)


def scaled(case, scale):
    """The case's arguments with their leading dim scaled (a weight vector stays whole); a
    compute case's shapes (matrix products, attention) are kept as they are."""
    if case.flops is not None:
        return case.args
    out = []
    for shape, dtype in case.args:
        if len(shape) > 1:
            shape = (max(1, int(shape[0] * scale)),) + tuple(shape[1:])
        out.append((shape, dtype))
    return tuple(out)


def nbytes(shape, dtype):
    return int(np.prod(shape, dtype=np.int64)) * numpy_dtype(dtype).itemsize


def size_text(args):
    (shape, dtype) = args[0]
    return f"{'x'.join(map(str, shape))} {dtype}" + (f" (+{len(args) - 1})" if len(args) > 1
                                                     else "")


def tuned(case, args):
    """(label, accy.target) of each --tune schedule for `case` (a matrix product or an
    attention) at `args`."""
    if case.name.startswith("attention"):
        (q, dtype), (k, _), _ = args
        return [(f"{bq} rows x {bk} keys", {"attention_schedules": [
            {"seq_q": q[-2], "seq_k": k[-2], "head_dim": q[-1], "dtype": dtype,
             "block_q": bq, "block_k": bk}]}) for bq, bk in TUNE_ATTENTION]
    if not case.name.startswith("matmul"):
        return []
    (a, dtype), (b, _) = args
    return [(f"{tm}x{tn}x{tk}, {stages} stages", {"dot_schedules": [
        {"m": a[-2], "n": b[-1], "k": a[-1], "dtype": dtype, "tile_m": tm, "tile_n": tn,
         "tile_k": tk, "stages": stages, "splits": 1}]}) for tm, tn, tk, stages in TUNE]


def dry_run(cases, tune=False):
    """Every executable the GPU run times, built at small sizes and run on the emulator (also
    through `bind`/`launch`, as timed) against the reference interpreter; with `tune`, the
    matrix products under each --tune schedule too."""
    failed = 0
    runs = [(case, "", None) for case in cases]
    if tune:
        runs += [(case, f" [{label}]", target) for case in cases
                 for label, target in tuned(case, case.small)]
    for case, label, target in runs:
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal(shape).astype(numpy_dtype(dtype))
                  for shape, dtype in case.small]
        exe = accy.compile(case.accy_fn, *arrays, target=target)
        want = np.asarray(exe.run(*arrays, device="reference"), np.float64)
        got = np.asarray(exe.run(*arrays, device="emulator"), np.float64)
        with exe.bind(*arrays, device="emulator") as bound:
            bound.launch()
            bound.launch()
            again = np.asarray(bound.results(), np.float64)
        err = max(_difference(got, want), _difference(again, want))
        ok = err <= max(case.tol, 1e-6) and not exe.fallbacks
        failed += not ok
        kinds = ", ".join(f"{k.kind}:{k.schedule}" for k in exe.kernels) or "none"
        print(f"{'ok' if ok else 'FAILED'}: {case.name}{label} {size_text(case.small)}: kernels "
              f"{kinds}; {len(exe.fallbacks)} host fallbacks; largest difference {err:.2e}")
    return 1 if failed else 0


def _difference(got, want):
    return float(np.max(np.abs(got - want) / (1 + np.abs(want)))) if want.size else 0.0


# ---- on the GPU ---------------------------------------------------------------------------

class Timer:
    """Mean milliseconds of `fn()` between two events, repeated to fill about `seconds`."""

    def __init__(self, event, sync, seconds):
        self.event, self.sync, self.seconds = event, sync, seconds

    def __call__(self, fn):
        fn()                                    # warm up (loads, caches, clocks)
        self.sync()
        once = self._time(fn, 1)
        repeat = int(min(50, max(3, self.seconds * 1e3 / max(once, 1e-3))))
        return self._time(fn, repeat)

    def _time(self, fn, repeat):
        start, end = self.event(), self.event()
        start.record()
        for _ in range(repeat):
            fn()
        end.record()
        end.synchronize()
        return start.time_till(end) / repeat


class _TorchEvent:
    def __init__(self, torch):
        self.e = torch.cuda.Event(enable_timing=True)

    def record(self):
        self.e.record()

    def synchronize(self):
        self.e.synchronize()

    def time_till(self, other):
        return self.e.elapsed_time(other.e)


def gpu_run(cases, scale, seconds, budget, tune=False):
    import torch
    from accy.runtime.devices import open_device
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    torch.cuda.init()
    torch.empty(1, device="cuda")                   # torch's context first: the primary one
    dev = open_device("cuda")                       # PyCUDA retains the same primary context
    drv = dev.drv
    accy_timer = Timer(drv.Event, drv.Context.synchronize, seconds)
    torch_timer = Timer(lambda: _TorchEvent(torch), torch.cuda.synchronize, seconds)
    name = torch.cuda.get_device_name()
    print(f"# {name}; torch {torch.__version__}; accy {accy.__version__}")

    copy_gbs = copy_bandwidth(torch, torch_timer)
    print(f"# device-to-device copy: {copy_gbs:.0f} GB/s (bytes read + written)")

    runs = [(case, "", None) for case in cases]
    if tune:        # after every case's default run, so a spent budget skips tuning first
        runs += [(case, f" [{label}]", target) for case in cases
                 for label, target in tuned(case, scaled(case, scale))]
    rows, t0 = [], time.perf_counter()
    for case, label, target in runs:
        if time.perf_counter() - t0 > budget:
            print(f"# {case.name}{label}: skipped, the time budget ({budget:.0f} s) is spent")
            continue
        args = scaled(case, scale)
        try:
            row = time_case(case, args, torch, dtypes, drv, accy_timer, torch_timer, copy_gbs,
                            target)
            row = (row[0] + label,) + row[1:]
        except Exception as e:      # noqa: BLE001 - one failing case must not hide the rest
            blanks = ("-",) * (len(COMPUTE_HEADER if case.flops else HEADER) - 3)
            row = (case.name + label, size_text(args)) + blanks + (
                f"ERROR {type(e).__name__}: {str(e).splitlines()[0][:80]}",)
        rows.append((case, row))
        print(" | ".join(row), flush=True)
        torch.cuda.empty_cache()
    return rows, name, copy_gbs


def copy_bandwidth(torch, timer):
    """Device-to-device copy of 2 GiB through torch, in GB/s of bytes read + written."""
    src = torch.empty(512 * M, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    return 2 * src.numel() * 4 / timer(lambda: dst.copy_(src)) / 1e6


def _against_f64(case, torch, tensors, got, want):
    """How many elements differ from torch's, and both results' largest difference from
    the same product in float64 (a matrix product only: the check that two different
    kernels agreeing everywhere is not one result read twice)."""
    if not case.name.startswith("matmul"):
        return ""
    exact = case.torch_fn(torch, *[t.double() for t in tensors])
    def off(x):
        return float(((x.double() - exact).abs() / (1 + exact.abs())).max())
    differ = int((got != want).sum())
    return f"; {differ} elements differ; vs f64: accy {off(got):.1e}, torch {off(want):.1e}"


def time_case(case, args, torch, dtypes, drv, accy_timer, torch_timer, copy_gbs, target=None):
    """One table row: accy's executable (for `target`: None, the default) checked against
    torch, then both timed."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    tensors = [torch.randn(shape, generator=gen, device="cuda", dtype=dtypes[d])
               for shape, d in args]
    # (tracing reads shapes and dtypes only: np.empty's pages are never touched)
    exe = accy.compile(case.accy_fn, *[np.empty(shape, numpy_dtype(d)) for shape, d in args],
                       target=target)
    want = case.torch_fn(torch, *tensors)
    torch.cuda.synchronize()
    with exe.bind(device="cuda") as bound:
        for i, t in enumerate(tensors):
            drv.memcpy_dtod(bound.argument_address(i), t.data_ptr(),
                            t.numel() * t.element_size())
        bound.launch()
        drv.Context.synchronize()
        got = torch.empty_like(want)
        drv.memcpy_dtod(got.data_ptr(), bound.result_address(0),
                        got.numel() * got.element_size())
        w = want.double()
        err = float(((got.double() - w).abs() / (1 + w.abs())).max())
        detail = _against_f64(case, torch, tensors, got, want) if case.flops else ""
        del w, got
        accy_ms = accy_timer(bound.launch)
    torch_ms = torch_timer(lambda: case.torch_fn(torch, *tensors))
    kinds = "+".join(f"{k.kind}:{k.schedule}" for k in exe.kernels)
    check = f"{err:.1e}" + ("" if err <= case.tol else " MISMATCH") + detail
    if case.flops is not None:
        flops = case.flops(args)
        return (f"{case.name} ({kinds})", f"{size_text(args)}, {flops / 1e12:.2f} TFLOP",
                f"{flops / accy_ms / 1e9:.1f}", f"{flops / torch_ms / 1e9:.1f}",
                f"{torch_ms / accy_ms:.2f}", check)
    moved = sum(nbytes(s, d) for s, d in args) + want.numel() * want.element_size()
    accy_gbs, torch_gbs = moved / accy_ms / 1e6, moved / torch_ms / 1e6
    return (f"{case.name} ({kinds})", f"{size_text(args)}, {moved / 1e9:.2f} GB",
            f"{accy_gbs:.0f}", f"{accy_gbs / copy_gbs:.2f}", f"{torch_gbs:.0f}",
            f"{torch_ms / accy_ms:.2f}", check)


HEADER = ("kernel (kind:schedule)", "size (bytes a perfect kernel moves)", "accy GB/s",
          "accy/copy", "torch GB/s", "accy/torch speed", "largest difference")
COMPUTE_HEADER = ("kernel (kind:schedule)", "size", "accy TFLOP/s", "torch TFLOP/s",
                  "accy/torch speed", "largest difference")


def table(rows, header, title):
    """(plain text, markdown) of `rows` under `header`."""
    if not rows:
        return "", ""
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    text = [" | ".join(h.ljust(w) for h, w in zip(header, widths)),
            "-+-".join("-" * w for w in widths)]
    text += [" | ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
    markdown = [title, "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    markdown += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(text), "\n".join(markdown) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dry-run", action="store_true",
                   help="no GPU: build every executable at small sizes, run it on the emulator "
                        "against the reference")
    p.add_argument("--scale", type=float, default=1.0,
                   help="fraction of the default sizes (a few GB each)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="run only these cases")
    p.add_argument("--seconds", type=float, default=0.25,
                   help="about how long to time each kernel (default 0.25)")
    p.add_argument("--budget", type=float, default=360,
                   help="seconds after which the remaining cases are skipped (default 360)")
    p.add_argument("--markdown", metavar="PATH",
                   help="write the table as markdown (default: $OUT/gpu_table.md if OUT is set)")
    p.add_argument("--tune", action="store_true",
                   help="also time each matrix product and attention under every schedule of "
                        "TUNE and TUNE_ATTENTION")
    args = p.parse_args(argv)
    cases = [c for c in CASES + COMPUTE if not args.only or c.name in args.only]
    if args.dry_run:
        return dry_run(cases, args.tune)
    rows, device, copy_gbs = gpu_run(cases, args.scale, args.seconds, args.budget, args.tune)
    compute = [r for c, r in rows if c.flops is not None]
    memory = [r for c, r in rows if c.flops is None]
    text, markdown = table(memory, HEADER, f"accy against torch (eager) on {device}; "
                           f"device-to-device copy {copy_gbs:.0f} GB/s. accy/torch speed > 1: "
                           f"accy is faster.")
    text2, markdown2 = table(compute, COMPUTE_HEADER, f"accy against torch.matmul (cuBLAS) "
                             f"and scaled_dot_product_attention on {device}.")
    print(text + "\n\n" + text2)
    markdown += "\n" + markdown2
    path = args.markdown or (os.path.join(os.environ["OUT"], "gpu_table.md")
                             if os.environ.get("OUT") else None)
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(markdown)
        print(f"# wrote {path}")
    return 1 if any("MISMATCH" in r[-1] or "ERROR" in r[-1] for _, r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
