"""IR core benchmark: accy against xDSL and MLIR's C++ core (through jaxlib) on one workload.

The workload is a function whose body is a chain of N binary adds on tensor<4xf32>, each adding
either the function's second argument or a shared zero constant. Every framework builds the same
IR through its Python API; each measure is the best of a few runs, in microseconds per op, and
the ratio columns say how many times slower a peer is than accy (> 1: accy is faster).

    python bench/ir_core.py            # N = 10,000 and 100,000, peers when installed
    python bench/ir_core.py --n 20000  # one size
"""
import argparse
import gc
import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from accy.ir import (Builder, Context, DenseAttr, FunctionType, Module, OpDef, TensorType,
                     parse, register_dialect, traits)
from accy._core.context import count_ops
from accy.passes.folding import BinaryFold

# Targets at N = 100,000 on a 2-core machine (µs/op; bytes/op for memory).
TARGETS = {"build": 1.5, "verify": 0.2, "walk (native)": 0.05, "walk (python)": 0.3,
           "print": 1.0, "parse": 2.0, "clone": 0.1, "retained bytes/op": 150}

register_dialect("bench", [
    OpDef("bench.add", operands=2, results=1,
          traits=traits.PURE | traits.COMMUTATIVE | traits.SAME_OPERANDS_AND_RESULT_TYPE,
          fold=BinaryFold(np.add, right_identity=0, float_right_identity=-0.0)),
    OpDef("bench.constant", results=1, attributes={"value": (DenseAttr, True)},
          traits=traits.PURE | traits.CONSTANT),
])


def chain_function(t, context=None):
    """A module holding `builtin.func @chain(t, t) -> t` with an entry block; returns the module,
    a builder at the end of that block, and the block's two arguments."""
    ctx = context or Context()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    f = b.create("builtin.func", attributes={
        "sym_name": "chain", "function_type": FunctionType([t, t], [t])})
    block = f.regions[0].add_block([t, t])
    b.at_end(block)
    return m, b, block.arguments


class AccyWorkload:
    name = "accy"

    def __init__(self):
        self.t = TensorType("f32", (4,))

    def build(self, n, dead=False, context=None):
        t = self.t
        m, b, (a0, a1) = chain_function(t, context)
        zero = b.create("bench.constant", (), (t,),
                        attributes={"value": DenseAttr(np.zeros(4, np.float32))}).result
        create = b.create
        x = a0
        for i in range(n):
            x = create("bench.add", (x, a1 if i % 2 else zero), (t,)).result
        b.create("builtin.return", (a1 if dead else x,))
        return m

    def verify(self, m):
        m.verify()

    def walk(self, m):
        return sum(1 for _ in m.walk())

    def walk_native(self, m):
        return count_ops(m)

    def use_lists(self, m):
        n = 0
        for op in m.walk():
            for v in op.results:
                n += len(v.uses)
        return n

    def print(self, m):
        return m.print()

    def parse(self, text):
        return parse(text, Context(), verify=False)

    def clone(self, m):
        return m.clone()

    def rewrite(self, m):
        n = 0
        for op in m.walk(name="bench.add"):
            rhs = op.operands[1]
            if not rhs.is_block_argument and rhs.owner.name == "bench.constant":
                op.result.replace_all_uses_with(op.operands[0])
                op.erase()
                n += 1
        return n

    def dce(self, m):
        n = 0
        body = m.body.first_op.regions[0].entry
        for op in reversed(body.operations):
            if op.has_trait(traits.PURE) and op.results and not any(
                    v.has_uses for v in op.results):
                op.erase()
                n += 1
        return n

    def retained_bytes(self, n):
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        ctx = Context()
        m = self.build(n, context=ctx)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del m, ctx
        return (after - before) / n


def best_of(fn, repeats, setup=None, clock=time.perf_counter, collect=True):
    """Best time by `clock` (default wall time) of `fn(setup())` over `repeats` runs (setup
    untimed), and the result of that fastest run. `collect`: a full garbage collection before
    each run and none during it (else the collector runs as it would in any program)."""
    best, result = float("inf"), None
    for _ in range(repeats):
        arg = setup() if setup else None
        if collect:
            gc.collect()
            gc.disable()
        try:
            t0 = clock()
            out = fn(arg) if setup else fn()
            seconds = clock() - t0
        finally:
            if collect:
                gc.enable()
        if seconds < best:
            best, result = seconds, out
    return best, result


def measure(w, n, repeats):
    """Every measure for workload `w` at size `n`: {measure: µs/op (bytes/op for memory)}."""
    per = 1e6 / n
    out = {}
    t, m = best_of(lambda: w.build(n), repeats)
    out["build"] = t * per
    out["verify"] = best_of(lambda: w.verify(m), repeats)[0] * per
    if getattr(w, "walk_native", None) is not None:
        t, count = best_of(lambda: w.walk_native(m), repeats)
        out["walk (native)"] = t * per if count is not None else None
    out["walk (python)"] = best_of(lambda: w.walk(m), repeats)[0] * per
    out["use lists"] = best_of(lambda: w.use_lists(m), repeats)[0] * per
    t, text = best_of(lambda: w.print(m), repeats)
    out["print"] = t * per
    out["parse"] = best_of(lambda: w.parse(text), repeats)[0] * per
    out["clone"] = best_of(lambda: w.clone(m), repeats)[0] * per
    t, rewritten = best_of(w.rewrite, repeats, setup=lambda: w.build(n))
    assert rewritten == n // 2, f"{w.name}: rewrite changed {rewritten} ops, expected {n // 2}"
    out["rewrite add(x, 0)"] = t * per
    t, erased = best_of(w.dce, repeats, setup=lambda: w.build(n, dead=True))
    assert erased == n + 1, f"{w.name}: dce erased {erased} ops, expected {n + 1}"
    out["dead-code removal"] = t * per
    out["retained bytes/op"] = w.retained_bytes(n)
    return out


def peers():
    found = []
    try:
        from _ir_peers import XdslWorkload
        found.append(XdslWorkload())
    except ImportError as e:
        print(f"# xDSL not measured: {e}")
    try:
        from _ir_peers import MlirWorkload
        found.append(MlirWorkload())
    except ImportError as e:
        print(f"# MLIR (jaxlib) not measured: {e}")
    return found


def print_table(title, head, rows):
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    print(f"\n{title}")
    print(" | ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("-|-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)))


def fmt(x):
    if x is None:
        return "-"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, action="append", help="chain length(s)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    sizes = args.n or [10_000, 100_000]
    workloads = [AccyWorkload()] + ([] if args.no_peers else peers())
    for n in sizes:
        results = {w.name: measure(w, n, args.repeats) for w in workloads}
        names = [w.name for w in workloads]
        head = ["measure (µs/op)"] + names + [f"{p}/accy" for p in names[1:]]
        if n == 100_000:
            head.append("target")
        rows = []
        for key in results["accy"]:
            a = results["accy"][key]
            row = [key] + [fmt(results[p].get(key)) for p in names]
            for p in names[1:]:
                v = results[p].get(key)
                row.append(f"{v / a:.1f}x" if v is not None and a else "-")
            if n == 100_000:
                target = TARGETS.get(key)
                row.append("-" if target is None else
                           f"<= {target} {'ok' if a <= target else 'MISSED'}")
            rows.append(row)
        print_table(f"N = {n:,}", head, rows)


if __name__ == "__main__":
    main()
