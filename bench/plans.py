"""Preparation plans benchmark: how many kernels accy's schedule plan makes for the reference
graphs (`accy/examples/graphs.py`), how many bytes they move through global memory against the
ideal, how tightly the buffer plan packs the arena, and how long planning takes; next to XLA
(JAX on the CPU backend) compiling the same graphs.

Per graph (after `canonicalize,cse`):
  kernels     work items that launch a kernel (an iterate counts its cond and body kernels
              once; the host runs the loop)
  bytes/ideal bytes the plan moves (each kernel reads its inputs once and writes its outputs
              once, plus dot_general/attention tile re-reads) over the ideal: each graph input
              read once, each result written once, plus the same re-reads
  arena/peak  arena bytes over the peak of live intermediate bytes (both 256-byte aligned)
  plan us/op  shape + schedule + outline + buffer planning per tensor op (every tensor op of
              the function, reduce/scan bodies included, terminators not): the best of
              --repeats runs, and in parentheses the first run after the graph was traced
              (module-level caches of op signatures are warm from the graphs before it, as
              in batch compilation; the very first graph of a process pays for them)
  XLA fusions kernels in XLA's optimized HLO for the CPU backend (fusions, custom calls and
              unfused ops of the entry computation and loop bodies); XLA's GPU fusion rules
              differ, so this is a point of reference, not a target
  XLA bytes   XLA's cost analysis of the optimized module ("bytes accessed") over accy's
              bytes moved (> 1: XLA's plan moves more); XLA counts no tile re-reads
Loops: an iterate's bytes are its inputs and outputs once; what each trip moves is not
counted on either side, so bytes/ideal says nothing about loop bodies.
  XLA compile jax.jit(f).lower(...).compile() time over accy's planning time (XLA does all
              of compilation; informational)
Targets: softmax, layer_norm, rms_norm, mlp and attention are 1 kernel each; bytes/ideal
<= 1.10 on the elementwise and row-pipeline graphs (softmax, layer_norm, rms_norm, cumsum);
arena/peak <= 1.05 everywhere; planning <= 20 us per tensor op on the transformer.

    python bench/plans.py                 # every graph, XLA when JAX is installed
    python bench/plans.py --no-peers --repeats 20
"""
import argparse
import math
import os
import re
import sys

os.environ["JAX_PLATFORMS"] = "cpu"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from accy.examples.graphs import GRAPHS
from accy.passes import PassManager
from accy.passes.plans import prepare
from ir_core import best_of, print_table

ONE_KERNEL = ("softmax", "layer_norm", "rms_norm", "mlp", "attention")
BYTES_TARGET = {"softmax": 1.10, "layer_norm": 1.10, "rms_norm": 1.10, "cumsum": 1.10}
ARENA_TARGET = 1.05
PLAN_TARGET_US = 20.0


def kernels(schedule):
    n = 0
    for item in schedule.items:
        if item.kind == "iterate":
            n += sum(kernels(sub) for sub in item.plans)
        else:
            n += 1
    return n


def accy_row(name, repeats):
    module = GRAPHS[name]()
    PassManager("canonicalize,cse").run(module)
    n_ops = sum(1 for op in module.walk()
                if op.name.startswith("tensor.") and op.name != "tensor.yield")
    first, _ = best_of(lambda: prepare(module), 1)
    seconds, (plans,) = best_of(lambda: prepare(module), repeats)
    s, b = plans.schedule, plans.buffers
    return {"kernels": kernels(s), "bytes": s.bytes, "ideal": s.ideal_bytes,
            "arena": b.arena_bytes, "peak": b.peak_bytes, "us_per_op": seconds * 1e6 / n_ops,
            "first_us_per_op": first * 1e6 / n_ops, "ops": n_ops, "seconds": seconds,
            "kinds": [i.kind for i in s.items]}


# ---- XLA (JAX, CPU) -----------------------------------------------------------------------------

def jax_graphs():
    import jax
    import jax.numpy as jnp

    def ln(x, w, b):
        mu = x.mean(-1, keepdims=True)
        c = x - mu
        return c * jax.lax.rsqrt((c * c).mean(-1, keepdims=True) + 1e-5) * w + b

    def attention(q, k, v):
        s = q @ jnp.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]))
        n = s.shape[-1]
        s = jnp.where(jnp.tril(jnp.ones((n, n), bool)), s, -jnp.inf)
        return jax.nn.softmax(s, -1) @ v

    def transformer(x, *weights):
        seq, width = x.shape[1], x.shape[2]
        heads = 4

        def split(t):
            return jnp.transpose(t.reshape(1, seq, heads, width // heads), (0, 2, 1, 3))
        for i in range(len(weights) // 8):
            ln_w, ln_b, wq, wk, wv, wo, w1, w2 = weights[8 * i:8 * i + 8]
            h = ln(x, ln_w, ln_b)
            a = attention(split(h @ wq), split(h @ wk), split(h @ wv))
            x = x + jnp.transpose(a, (0, 2, 1, 3)).reshape(1, seq, width) @ wo
            x = x + jax.nn.gelu(ln(x, ln_w, ln_b) @ w1, approximate=False) @ w2
        return x

    def loop(x, w, steps):
        return jax.lax.while_loop(lambda c: c[0] < steps,
                                  lambda c: (c[0] + 1, jnp.tanh(c[1] @ w)), (0, x))[1]

    return {
        "mlp": lambda x, w, b: jax.nn.gelu(x @ w + b, approximate=False),
        "softmax": lambda x: jax.nn.softmax(x, -1),
        "layer_norm": ln,
        "rms_norm": lambda x, w: x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w,
        "attention": attention, "transformer": transformer,
        "cumsum": lambda x: jnp.cumsum(x, 1), "while_matmul_tanh": loop,
    }


def xla_row(name, fn, repeats):
    import jax
    import numpy as np
    module = GRAPHS[name]()
    func = next(op for op in module.body if op.name == "builtin.func")
    args = [jax.ShapeDtypeStruct(a.type.shape, np.dtype("float32" if a.type.dtype == "f32"
                                                         else "int32"))
            for a in func.regions[0].blocks[0].arguments]

    def compile_once():
        jax.clear_caches()
        return jax.jit(fn).lower(*args).compile()
    seconds, compiled = best_of(compile_once, max(1, repeats // 4))
    text = compiled.as_text()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    return {"fusions": _xla_kernels(text), "bytes": float(cost.get("bytes accessed", 0)),
            "seconds": seconds}


def _xla_kernels(hlo):
    """Kernels of an optimized CPU HLO module: the fusions, custom calls and compute ops of the
    entry computation and of while-loop bodies and conditions."""
    roots = {"ENTRY"} | set(re.findall(r"(?:body|condition)=%?([\w.\-]+)", hlo))
    count, current = 0, None
    skip = ("parameter", "constant", "get-tuple-element", "tuple", "bitcast", "copy-start",
            "copy-done", "after-all", "while", "partition-id", "replica-id")
    for line in hlo.splitlines():
        head = re.match(r"\s*(ENTRY\s+)?%?([\w.\-]+)\s.*\{\s*$", line)
        if head and not line.strip().startswith("ROOT") and "=" not in line.split("{")[0]:
            current = "ENTRY" if head.group(1) else head.group(2)
            continue
        if current in roots:
            op = re.search(r"=\s*[^=]*?\s([a-z][\w\-]*)\(", line)
            if op and op.group(1) not in skip:
                count += 1
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=8)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--graph", action="append", choices=sorted(GRAPHS))
    args = ap.parse_args()
    names = args.graph or list(GRAPHS)
    ours = {name: accy_row(name, args.repeats) for name in names}    # before JAX is imported
    peers = None
    if not args.no_peers:
        try:
            peers = jax_graphs()
        except ImportError:
            print("(JAX is not installed: no XLA columns; pip install .[bench])")
    rows, misses = [], []
    for name in names:
        r = ours[name]
        x = xla_row(name, peers[name], args.repeats) if peers else None
        ratio_b, ratio_a = r["bytes"] / r["ideal"], r["arena"] / r["peak"] if r["peak"] else 1.0
        rows.append([name, r["kernels"], f"{ratio_b:.3f}", f"{ratio_a:.3f}",
                     f"{r['us_per_op']:.1f} ({r['first_us_per_op']:.1f}), {r['ops']} ops",
                     x["fusions"] if x else "-",
                     f"{x['bytes'] / r['bytes']:.2f}" if x else "-",
                     f"{x['seconds'] / r['seconds']:.0f}x" if x else "-"])
        if name in ONE_KERNEL and r["kernels"] != 1:
            misses.append(f"{name}: {r['kernels']} kernels (target 1): {r['kinds']}")
        if ratio_b > BYTES_TARGET.get(name, math.inf):
            misses.append(f"{name}: bytes/ideal {ratio_b:.3f} > {BYTES_TARGET[name]}")
        if ratio_a > ARENA_TARGET:
            misses.append(f"{name}: arena/peak {ratio_a:.3f} > {ARENA_TARGET}")
        if name == "transformer" and r["us_per_op"] > PLAN_TARGET_US:
            misses.append(f"transformer: planning {r['us_per_op']:.1f} us/op > {PLAN_TARGET_US}")
    print_table("Preparation plans (accy) next to XLA:CPU",
                ["graph", "kernels", "bytes/ideal", "arena/peak", "plan us/op", "XLA fusions",
                 "XLA bytes / accy", "XLA compile / accy plan"], rows)
    print("\ntargets: " + ("all met" if not misses else "MISSED\n  " + "\n  ".join(misses)))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
