"""Pass benchmark: accy's canonicalize / cse / dce and analysis cache hits, against MLIR's C++
passes (through jaxlib) and xDSL's, on the IR core benchmark's workload and three variants.

Workloads (a function `chain`, N ops; see bench/_pass_peers.py for the peers' caveats):
  f32   N float adds of a1 or a shared zero constant: no pass may change it (x + 0.0 is not x)
  i32   the same on integers: canonicalize folds the N/2 adds of zero and the constant
  dup   N/3 triples p = x + a1; q = x + a1; x = p + q: cse erases every q
  dead  f32 whose result is unused: every add and the constant are dead
Each framework runs its own pass through its own pass manager, with verification after the pass
turned off (accy: verify_each=False; MLIR: enable_verifier(False)); every run starts from a fresh
module (built untimed) and the op counts after the pass are checked to agree. Times are the
best of a few runs in µs per op; ratio columns say how many times slower a peer is than accy.

    python bench/passes.py             # N = 100,000, peers when installed
    python bench/passes.py --n 10000
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from accy.ir import Context, DenseAttr, Module, TensorType
from accy._core.analysis import AnalysisCache, hit_loop
from accy._core.context import count_ops
from accy.passes import AnalysisDescriptor, PassManager
from ir_core import best_of, chain_function, fmt, print_table  # registers `bench` ops

import numpy as np

TARGETS = {"canonicalize": 1.0, "cse": 1.0, "dce": 1.0, "cache hit (Python)": 0.5,
           "cache hit (Cython)": 0.1}
CASES = [("canonicalize", "f32"), ("canonicalize", "i32"), ("canonicalize", "dead"),
         ("cse", "f32"), ("cse", "dup"), ("dce", "f32"), ("dce", "dead")]


def expected_ops(pass_name, variant, n):
    """Ops left after the pass (module, func and return included), for an even n."""
    if variant == "dup":
        return 3 + 3 * (n // 3) - (n // 3 if pass_name == "cse" else 0)
    if variant == "dead" and pass_name != "cse":
        return 3
    if variant == "i32" and pass_name == "canonicalize":
        return 3 + n // 2
    return n + 4


class AccyPasses:
    name = "accy"

    def __init__(self):
        self.managers = {p: PassManager(p, verify_each=False) for p in ("canonicalize", "cse",
                                                                        "dce")}

    def build(self, n, variant="f32"):
        t = TensorType("i32" if variant == "i32" else "f32", (4,))
        m, b, (x, a1) = chain_function(t)
        create = b.create
        if variant == "dup":
            for _ in range(n // 3):
                p = create("bench.add", (x, a1), (t,)).result
                q = create("bench.add", (x, a1), (t,)).result
                x = create("bench.add", (p, q), (t,)).result
        else:
            zero = create("bench.constant", (), (t,), attributes={
                "value": DenseAttr(np.zeros(4, np.int32 if variant == "i32" else np.float32))
            }).result
            for i in range(n):
                x = create("bench.add", (x, a1 if i % 2 else zero), (t,)).result
        create("builtin.return", (a1 if variant == "dead" else x,))
        return m

    def apply(self, m, pass_name):
        self.managers[pass_name].run(m)

    def count_ops(self, m):
        return count_ops(m)


def cache_hits(n):
    """µs per hit of one cached analysis: from Python (PassContext-style scope) and Cython."""
    ctx = Context()
    m = Module.create(ctx)
    desc = AnalysisDescriptor("bench-analysis")
    cache = AnalysisCache(ctx)
    lease = cache.begin_lease()
    from accy.passes.core import Pass, PassContext
    scope = PassContext(cache, m, Pass("bench", lambda op, c: None), lease)
    compute = lambda op, s: object()          # noqa: E731
    scope.get_analysis(m, desc, compute)
    get = scope.get_analysis

    def python_hits():
        for _ in range(n):
            get(m, desc, compute)
    t_py = best_of(python_hits, 3)[0] / n * 1e6
    t_cy = best_of(lambda: hit_loop(cache, m, desc, n), 3)[0] / n * 1e6
    cache.end_lease(lease)
    assert cache.statistics()["misses"] == 1
    cache.close()
    return t_py, t_cy


def peers():
    found = []
    for cls in ("XdslPasses", "MlirPasses"):
        try:
            import _pass_peers
            found.append(getattr(_pass_peers, cls)())
        except ImportError as e:
            print(f"# {cls[:-6]} not measured: {e}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    n = args.n + args.n % 2
    frameworks = [AccyPasses()] + ([] if args.no_peers else peers())
    names = [w.name for w in frameworks]
    rows = []
    for pass_name, variant in CASES:
        times, counts = {}, {}
        for w in frameworks:
            def run(m, w=w):
                w.apply(m, pass_name)
                return m
            t, m = best_of(run, args.repeats, setup=lambda w=w: w.build(n, variant))
            times[w.name], counts[w.name] = t / n * 1e6, w.count_ops(m)
        if counts["accy"] != expected_ops(pass_name, variant, n):
            raise SystemExit(f"accy's {pass_name} on {variant} left {counts['accy']} ops, "
                             f"expected {expected_ops(pass_name, variant, n)}")
        agree = len(set(counts.values())) == 1
        note = "" if agree else "ops after: " + ", ".join(f"{k} {v}" for k, v in counts.items())
        rows.append((f"{pass_name} ({variant})", pass_name, times, note))
    t_py, t_cy = cache_hits(1_000_000)
    rows.append(("cache hit (Python)", "cache hit (Python)", {"accy": t_py}, ""))
    rows.append(("cache hit (Cython)", "cache hit (Cython)", {"accy": t_cy}, ""))

    head = ["measure (µs/op)"] + names + [f"{p}/accy" for p in names[1:]] + ["target (100k)",
                                                                            "note"]
    table = []
    for label, key, times, note in rows:
        a = times["accy"]
        row = [label] + [fmt(times.get(p)) for p in names]
        row += [f"{times[p] / a:.1f}x" if p in times and a else "-" for p in names[1:]]
        target = TARGETS.get(key) if n == 100_000 else None     # targets are set at 100k
        row.append("-" if target is None else f"<= {target} {'ok' if a <= target else 'MISSED'}")
        row.append(note)
        table.append(row)
    print_table(f"N = {n:,}", head, table)


if __name__ == "__main__":
    main()
