"""Batch compile throughput: accy.compile_many on N distinct graphs (default 1,000: shape
variants of the reference graphs plus random fused elementwise/reduction chains, from a fixed
seed), cold and warm, with pools of 1 and 2 worker processes; side by side in the same run,
Triton compiling the same memory-bound kernels (the chains) in a pool of the same size, and
JAX's `jax.jit(f).lower(...).compile()` (CPU backend) on the same chains with its persistent
cache off and on (when they are installed: pip install ".[bench]").

Every pool is started and its processes have imported their compiler before the clock starts,
so the figures are throughput, not start-up. Measures:
  accy cold     compile_many(graphs, executor=pool) with an empty compile cache (its writes
                included); "no cache": cache=False
  accy warm     the same graphs again: every one a cache hit served in the caller, given as
                functions (trace, fingerprint, look-up, load) and as traced modules (copy,
                fingerprint, look-up, load)
  Triton        triton.compile of each chain's @triton.jit kernel for sm_90 (to its cubin),
                each worker with an empty cache of its own
  JAX off/on    jax.jit(f).lower(shapes).compile() in fresh processes, persistent cache off;
                on: first into an empty cache directory (cold), then again in new processes
                reading it (warm)
The peers compile a sample of the chains (--peer-graphs); accy compiles the same sample apart
for the ratios (peer seconds / accy seconds on the same graphs, > 1: accy is faster).
Targets: a warm hit <= 0.5 ms per graph end to end; cold >= 50x Triton and >= 20x JAX;
2 workers >= 1.7x one.

    python bench/batch.py
    python bench/batch.py --graphs 200 --peer-graphs 24 --no-peers
"""
import argparse
import concurrent.futures as cf
import multiprocessing
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import accy
import accy.ops as ops
from accy.compiler import compilation
from ir_core import print_table

SEED = 19
TARGET_WARM_MS = 0.5
TARGET_TRITON = 50.0
TARGET_JAX = 20.0
TARGET_SCALING = 1.7
UNARY = ("exp", "abs", "neg", "tanh", "sigmoid", "sqrt_abs", "square")
BINARY = ("add", "subtract", "multiply", "maximum", "minimum")
COMBINE = BINARY + ("divide",)


# ---- the graphs: plain data, so that any process can build them --------------------------

def chain(rng, rows, cols):
    """A random fused chain over (rows, cols) f32: elementwise steps on the running value with
    an input (y: rows x cols, w: cols) or a constant, and row reductions combined back."""
    steps = []
    for _ in range(int(rng.integers(2, 9))):
        roll = rng.random()
        if roll < 0.35:
            steps.append(("unary", str(rng.choice(UNARY))))
        elif roll < 0.75:
            operand = str(rng.choice(("y", "w", "const")))
            steps.append(("binary", str(rng.choice(BINARY)), operand,
                          round(float(rng.uniform(0.25, 4)), 3)))
        else:
            steps.append(("reduce", str(rng.choice(("sum", "max", "mean"))),
                          str(rng.choice(("none", "square"))), str(rng.choice(("none", "rsqrt"))),
                          str(rng.choice(COMBINE))))
    final = str(rng.choice(("none", "none", "sum", "max")))
    return ("chain", rows, cols, tuple(steps), final)


def softmax_chain(rows, cols):
    return ("chain", rows, cols, (("reduce", "max", "none", "none", "subtract"),
                                  ("unary", "exp"),
                                  ("reduce", "sum", "none", "none", "divide")), "none")


def layer_norm_chain(rows, cols):
    return ("chain", rows, cols, (("reduce", "mean", "none", "none", "subtract"),
                                  ("reduce", "mean", "square", "rsqrt", "multiply"),
                                  ("binary", "multiply", "w", 1.0),
                                  ("binary", "add", "y", 1.0)), "none")


def rms_norm_chain(rows, cols):
    return ("chain", rows, cols, (("reduce", "mean", "square", "rsqrt", "multiply"),
                                  ("binary", "multiply", "w", 1.0)), "none")


def graphs(count, seed=SEED):
    """`count` distinct graph specs (distinct fingerprints once traced): a quarter drawn as
    shape variants of the reference graphs (softmax, layer_norm, rms_norm, an MLP layer,
    cumsum, attention), the rest random chains; a draw that repeats a graph is drawn again
    (the run prints how many of each it kept)."""
    rng = np.random.default_rng(seed)
    specs, seen = [], set()
    while len(specs) < count:
        rows, cols = int(rng.integers(1, 65)) * 16, int(rng.integers(1, 129)) * 8
        pick = rng.random()
        if pick < 0.75:
            spec = chain(rng, rows, cols)
        else:
            kind = int(rng.integers(0, 6))
            spec = [softmax_chain(rows, cols), layer_norm_chain(rows, cols),
                    rms_norm_chain(rows, cols),
                    ("mlp", rows, int(rng.integers(1, 33)) * 16, cols),
                    ("cumsum", rows, cols),
                    ("attention", 1, int(rng.integers(1, 5)), int(rng.integers(1, 9)) * 16,
                     int(rng.choice((32, 64))))][kind]
        fn, args = accy_graph(spec)
        fingerprint = compilation(fn, *args, stop="tensor").module.fingerprint()
        if fingerprint not in seen:
            seen.add(fingerprint)
            specs.append(spec)
    return specs


def _inputs(spec):
    """The (name, shape) of each input of a chain, in order."""
    _, rows, cols, steps, _ = spec
    used = {s[2] for s in steps if s[0] == "binary"}
    return [("x", (rows, cols))] + [(n, (rows, cols) if n == "y" else (cols,))
                                    for n in ("y", "w") if n in used]


def _chain_fn(spec, ns):
    """The chain as a function of its inputs, in numpy-like namespace `ns` (accy.ops or
    jax.numpy, with sigmoid and rsqrt)."""
    _, _, cols, steps, final = spec
    names = [n for n, _ in _inputs(spec)]
    unary = {"exp": ns.exp, "abs": ns.abs, "neg": lambda v: -v, "tanh": ns.tanh,
             "sigmoid": ns.sigmoid, "sqrt_abs": lambda v: ns.sqrt(ns.abs(v)),
             "square": lambda v: v * v}
    combine = {"add": ns.add, "subtract": ns.subtract, "multiply": ns.multiply,
               "maximum": ns.maximum, "minimum": ns.minimum, "divide": ns.divide}
    reduce = {"sum": lambda v: ns.sum(v, axis=1, keepdims=True),
              "max": lambda v: ns.max(v, axis=1, keepdims=True),
              "mean": lambda v: ns.sum(v, axis=1, keepdims=True) * (1.0 / cols)}

    def fn(*args):
        env = dict(zip(names, args))
        cur = env["x"]
        for step in steps:
            if step[0] == "unary":
                cur = unary[step[1]](cur)
            elif step[0] == "binary":
                cur = combine[step[1]](cur, step[3] if step[2] == "const" else env[step[2]])
            else:
                _, kind, pre, post, how = step
                r = reduce[kind](cur * cur if pre == "square" else cur)
                if post == "rsqrt":
                    r = ns.rsqrt(r + 1e-5)
                cur = combine[how](cur, r)
        if final != "none":
            cur = ns.sum(cur, axis=1) if final == "sum" else ns.max(cur, axis=1)
        return cur
    return fn


def accy_graph(spec):
    """(function, example arrays) of a spec for accy.compile_many."""
    if spec[0] == "chain":
        return _chain_fn(spec, ops), [np.empty(s, np.float32) for _, s in _inputs(spec)]
    if spec[0] == "mlp":
        _, m, k, n = spec
        return (lambda x, w, b: ops.gelu(x @ w + b),
                [np.empty(s, np.float32) for s in ((m, k), (k, n), (n,))])
    if spec[0] == "cumsum":
        return lambda x: ops.cumsum(x, axis=1), [np.empty(spec[1:], np.float32)]
    _, b, h, s, d = spec
    q = np.empty((b, h, s, d), np.float32)
    return (lambda q, k, v: ops.attention(q, k, v, causal=True), [q, q, q])


# ---- the pools ----------------------------------------------------------------------------

def pool(count, initializer=None, initargs=()):
    """A started spawn pool of `count` processes that have each run `initializer`."""
    ctx = multiprocessing.get_context("spawn")
    executor = cf.ProcessPoolExecutor(count, mp_context=ctx, initializer=initializer,
                                      initargs=initargs)
    barrier = ctx.Manager().Barrier(count)
    list(executor.map(_meet, [barrier] * count))      # every process up, not just the first
    return executor


def _meet(barrier):
    barrier.wait(timeout=300)


def timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


# ---- accy ---------------------------------------------------------------------------------

def _accy_init():
    import accy.batch.worker  # noqa: F401 - imported before the clock starts


def accy_seconds(specs, workers, cache_dir):
    """Seconds compile_many takes for `specs` on a started pool of `workers` processes, with
    the cache of `cache_dir` (None: no cache)."""
    jobs = [accy_graph(spec) for spec in specs]
    executor = pool(workers, _accy_init)
    cache = _cache(cache_dir) if cache_dir else False
    try:
        cpu = time.process_time()
        seconds, results = timed(lambda: accy.compile_many(jobs, executor=executor,
                                                           cache=cache))
        CALLER_CPU.append((time.process_time() - cpu) / len(jobs))
    finally:
        executor.shutdown()
    failed = [r for r in results if isinstance(r, accy.CompileFailure)]
    assert not failed, failed[0]
    return seconds


CALLER_CPU = []     # the caller's CPU seconds per graph in each accy_seconds run


def accy_warm_seconds(specs, cache_dir, traced=False):
    """Seconds compile_many takes when every graph is in the cache (served in the caller);
    `traced`: the jobs are the traced modules (no tracing: fingerprint, look-up, load)."""
    jobs = [accy_graph(spec) for spec in specs]
    if traced:
        jobs = [accy.Job(module=compilation(fn, *args, stop="tensor").module)
                for fn, args in jobs]
    seconds, outcomes = timed(lambda: accy.batch.compile_batch(jobs, workers=0,
                                                               cache=_cache(cache_dir)))
    hits = sum(o.cache_hit for o in outcomes)
    return seconds, hits


def _cache(cache_dir):
    from accy.cache import Cache
    return Cache(cache_dir)


# ---- Triton -------------------------------------------------------------------------------

_TRITON_UNARY = {"exp": "tl.exp({})", "abs": "tl.abs({})", "neg": "(-{})",
                 "tanh": "(2 * tl.sigmoid(2 * {}) - 1)", "sigmoid": "tl.sigmoid({})",
                 "sqrt_abs": "tl.sqrt(tl.abs({}))", "square": "({0} * {0})"}
_TRITON_COMBINE = {"add": "({} + {})", "subtract": "({} - {})", "multiply": "({} * {})",
                   "divide": "({} / {})", "maximum": "tl.maximum({}, {})",
                   "minimum": "tl.minimum({}, {})"}
_IDENTITY = {"sum": "0.0", "mean": "0.0", "max": "-float('inf')"}


def triton_source(spec, name):
    """A @triton.jit kernel for chain `spec`: a program per row, the row in one block."""
    _, _, cols, steps, final = spec
    inputs = [n for n, _ in _inputs(spec)]
    lines = [f"@triton.jit\ndef {name}({', '.join(n + '_ptr' for n in inputs)}, out_ptr, cols, "
             f"BLOCK: tl.constexpr):",
             "    row = tl.program_id(0)",
             "    offs = tl.arange(0, BLOCK)",
             "    mask = offs < cols",
             "    cur = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)"]
    if "y" in inputs:
        lines.append("    y = tl.load(y_ptr + row * cols + offs, mask=mask, other=0.0)")
    if "w" in inputs:
        lines.append("    w = tl.load(w_ptr + offs, mask=mask, other=0.0)")

    def reduced(kind, value):
        body = (f"tl.sum(tl.where(mask, {value}, 0.0), 0)" if kind != "max" else
                f"tl.max(tl.where(mask, {value}, -float('inf')), 0)")
        return f"({body} / cols)" if kind == "mean" else body
    for step in steps:
        if step[0] == "unary":
            expr = _TRITON_UNARY[step[1]].format("cur")
        elif step[0] == "binary":
            operand = repr(step[3]) if step[2] == "const" else step[2]
            expr = _TRITON_COMBINE[step[1]].format("cur", operand)
        else:
            _, kind, pre, post, how = step
            lines.append(f"    r = {reduced(kind, 'cur * cur' if pre == 'square' else 'cur')}")
            if post == "rsqrt":
                lines.append("    r = 1 / tl.sqrt(r + 1e-5)")
            expr = _TRITON_COMBINE[how].format("cur", "r")
        lines.append(f"    cur = {expr}")
    if final != "none":
        lines.append(f"    tl.store(out_ptr + row, {reduced(final, 'cur')})")
    else:
        lines.append("    tl.store(out_ptr + row * cols + offs, cur, mask=mask)")
    return "\n".join(lines) + "\n"


def write_triton_module(specs, folder):
    """A module of one kernel per chain, k0, k1, ... (Triton reads a kernel's source file)."""
    text = "import triton\nimport triton.language as tl\n\n\n" + "\n\n".join(
        triton_source(spec, f"k{i}") for i, spec in enumerate(specs))
    with open(os.path.join(folder, "batch_triton_kernels.py"), "w") as f:
        f.write(text)


def _triton_init(folder):
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(dir=folder)   # a cold cache per worker
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # its default, said (no warning)
    sys.path.insert(0, folder)
    import batch_triton_kernels  # noqa: F401 - imported (with triton) before the clock starts


def _triton_compile(jobs):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    import batch_triton_kernels as kernels
    for index, names, cols in jobs:
        signature = {n + "_ptr": "*fp32" for n in names}
        signature.update(out_ptr="*fp32", cols="i32", BLOCK="constexpr")
        block = max(16, 1 << (cols - 1).bit_length())
        src = ASTSource(fn=getattr(kernels, f"k{index}"), signature=signature,
                        constexprs={"BLOCK": block})
        triton.compile(src, target=GPUTarget("cuda", 90, 32))
    return len(jobs)


def triton_seconds(specs, workers, folder):
    executor = pool(workers, _triton_init, (folder,))
    jobs = [(i, [n for n, _ in _inputs(spec)], spec[2]) for i, spec in enumerate(specs)]
    try:
        seconds, _ = timed(lambda: list(executor.map(_triton_compile, [[j] for j in jobs])))
    finally:
        executor.shutdown()
    return seconds


# ---- JAX ----------------------------------------------------------------------------------

def _jax_init(cache_dir):
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    if cache_dir:
        jax.config.update("jax_compilation_cache_dir", cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    jax.jit(lambda v: v + 1).lower(jax.ShapeDtypeStruct((2,), "float32")).compile()


def _jax_compile(specs):
    import jax
    import jax.numpy as jnp
    ns = _JaxNamespace(jnp, jax)
    for spec in specs:
        fn = _chain_fn(spec, ns)
        shapes = [jax.ShapeDtypeStruct(s, jnp.float32) for _, s in _inputs(spec)]
        jax.jit(fn).lower(*shapes).compile()
    return len(specs)


class _JaxNamespace:
    """jax.numpy with sigmoid and rsqrt, the names the chains call."""

    def __init__(self, jnp, jax):
        self._jnp = jnp
        self.sigmoid = jax.nn.sigmoid
        self.rsqrt = jax.lax.rsqrt

    def __getattr__(self, name):
        return getattr(self._jnp, name)


def jax_seconds(specs, workers, cache_dir=None):
    executor = pool(workers, _jax_init, (cache_dir,))
    try:
        seconds, _ = timed(lambda: list(executor.map(_jax_compile, [[s] for s in specs])))
    finally:
        executor.shutdown()
    return seconds


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


# ---- the run ------------------------------------------------------------------------------

def rate(count, seconds):
    return f"{count / seconds:.1f}" if seconds else "-"


def ratio(peer, ours):
    return f"{peer / ours:.0f}x" if peer and ours else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=1000)
    ap.add_argument("--peer-graphs", type=int, default=48,
                    help="chains the peers compile (and accy again, for the ratios)")
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    specs = graphs(args.graphs)
    chains = [s for s in specs if s[0] == "chain"]
    step = max(1, len(chains) // max(1, args.peer_graphs))
    sample = chains[::step][:args.peer_graphs]
    peers = {"Triton": not args.no_peers and have("triton"),
             "JAX": not args.no_peers and have("jax")}
    for name, there in peers.items():
        if not there and not args.no_peers:
            print(f"({name} is not installed: no {name} column; pip install \".[bench]\")")
    print(f"{len(specs)} distinct graphs ({len(chains)} chains, "
          f"{len(specs) - len(chains)} reference-graph variants); peers on {len(sample)} "
          f"chains; {os.cpu_count()} CPUs")
    misses, rows = [], []
    with tempfile.TemporaryDirectory() as scratch:
        cold = {}
        for workers in (1, 2):
            cache = tempfile.mkdtemp(dir=scratch)
            cold[workers] = accy_seconds(specs, workers, cache)
            off = accy_seconds(specs, workers, None)
            for what, seconds in (("cold", cold[workers]), ("no cache", off)):
                rows.append([f"all graphs, {what}, {workers} worker{'s' * (workers > 1)}",
                             rate(len(specs), seconds), f"{seconds / len(specs) * 1e3:.2f}",
                             "-", "-", "-", "-"])
        for traced in (False, True):
            warm, hits = accy_warm_seconds(specs, cache, traced)
            warm_ms = warm / len(specs) * 1e3
            what = "traced modules" if traced else "functions, traced"
            rows.append([f"all graphs, warm ({what}; {hits} hits)", rate(len(specs), warm),
                         f"{warm_ms:.3f}", "-", "-", "-", "-"])
            if hits < len(specs):
                misses.append(f"warm ({what}): {hits} of {len(specs)} graphs were cache hits")
            elif warm_ms > TARGET_WARM_MS:
                misses.append(f"warm ({what}): {warm_ms:.3f} ms per graph > {TARGET_WARM_MS}")
        scaling = cold[1] / cold[2]
        if scaling < TARGET_SCALING:
            misses.append(f"2 workers: {scaling:.2f}x one < {TARGET_SCALING}x")
        if peers["Triton"]:
            write_triton_module(sample, scratch)
        for workers in (1, 2):
            ours = accy_seconds(sample, workers, tempfile.mkdtemp(dir=scratch))
            t = triton_seconds(sample, workers, scratch) if peers["Triton"] else None
            j_off = jax_seconds(sample, workers) if peers["JAX"] else None
            j_on = (jax_seconds(sample, workers, tempfile.mkdtemp(dir=scratch))
                    if peers["JAX"] else None)
            rows.append([f"sample chains, cold, {workers} worker{'s' * (workers > 1)}",
                         rate(len(sample), ours), f"{ours / len(sample) * 1e3:.2f}",
                         rate(len(sample), t), rate(len(sample), j_off),
                         rate(len(sample), j_on),
                         f"{ratio(t, ours)} / {ratio(j_off, ours)} / {ratio(j_on, ours)}"])
            if t and t / ours < TARGET_TRITON:
                misses.append(f"{workers} worker(s): Triton/accy {t / ours:.0f}x < "
                              f"{TARGET_TRITON}x")
            if j_off and j_off / ours < TARGET_JAX:
                misses.append(f"{workers} worker(s): JAX/accy {j_off / ours:.0f}x < "
                              f"{TARGET_JAX}x")
        if peers["JAX"]:
            jax_cache = tempfile.mkdtemp(dir=scratch)
            jax_seconds(sample, 1, jax_cache)                   # fills the cache
            j_warm = jax_seconds(sample, 1, jax_cache)
            ours, _ = accy_warm_seconds(sample, cache)
            rows.append(["sample chains, warm, 1 worker", rate(len(sample), ours),
                         f"{ours / len(sample) * 1e3:.3f}", "-", "-",
                         rate(len(sample), j_warm), f"- / - / {ratio(j_warm, ours)}"])
    print_table("Batch compile throughput (graphs/s; ratios: peer seconds / accy seconds)",
                ["run", "accy", "accy ms/graph", "Triton", "JAX cache off", "JAX cache on",
                 "Triton / JAX off / JAX on"], rows)
    print(f"\n2 workers / 1 worker (all graphs, cold): {scaling:.2f}x; the caller's own CPU "
          f"time (tracing, printing, reading bundles): {min(CALLER_CPU) * 1e3:.2f}-"
          f"{max(CALLER_CPU) * 1e3:.2f} ms per graph; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("\ntargets: " + ("all met" if not misses else "MISSED\n  " + "\n  ".join(misses)))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
