"""Compile-cache benchmark: what `accy.compile` costs on a warm hit (trace, then key, lookup and
load), next to a compile without the cache and a miss that stores its entries, for the graphs of
bench/compile.py (add, softmax, layer_norm, a 4096^3 bf16 matmul) and the bundled transformer
block. Best of --repeats runs each, in one process (the source digest, read once per process,
is timed apart).

  no cache     accy.compile(fn, *args, cache=False)
  miss         the same with a cache folder emptied before each run (a new Cache object, so no
               kernel in memory): every stage, then the entries written
  hit          a warm hit, end to end: the trace, the key (fingerprint, digest), the file read
               and the bundle read back (accy.load's checks)
  trace / key+load   a hit's split (Executable.timings: "tensor", "cache")
Target: a hit at most 0.5 ms per graph.

    python bench/cache.py
    python bench/cache.py --repeats 50
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import accy
from accy.cache import Cache, source_digest
from accy.examples import transformer
from compile import workloads
from ir_core import best_of, fmt, print_table

TARGET_MS = 0.5


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    graphs = dict(workloads())
    graphs["transformer block"] = (transformer.block, transformer.example_inputs())
    t0 = time.perf_counter()
    source_digest.__wrapped__()
    digest_ms = (time.perf_counter() - t0) * 1e3
    folder = tempfile.mkdtemp(prefix="accy-bench-cache-")
    rows = []
    try:
        for name, (fn, arrays) in graphs.items():
            cold, _ = best_of(lambda: accy.compile(fn, *arrays, cache=False), args.repeats)

            def emptied():          # the folder and its lock file stay: a cache in use
                store = Cache(os.path.join(folder, "miss"))
                store.clear()
                return store
            miss, _ = best_of(lambda c: accy.compile(fn, *arrays, cache=c), args.repeats,
                              setup=emptied)
            warm = Cache(os.path.join(folder, "warm"))
            accy.compile(fn, *arrays, cache=warm)
            splits = []

            def hit():
                exe = accy.compile(fn, *arrays, cache=warm)
                splits.append((exe.timings["tensor"], exe.timings["cache"]))
                return exe
            seconds, exe = best_of(hit, args.repeats)
            assert exe.timings.keys() == {"tensor", "cache"}, "not a hit"
            trace, lookup = min(splits, key=sum)
            ms = seconds * 1e3
            rows.append([name, len(exe.kernels), fmt(cold * 1e3), fmt(miss * 1e3), fmt(ms),
                         fmt(trace), fmt(lookup),
                         "yes" if ms <= TARGET_MS else "no"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print_table(f"accy.compile, ms (best of {args.repeats}; the source digest, once per "
                f"process: {digest_ms:.1f} ms)",
                ["graph", "kernels", "no cache", "miss", "hit", "trace", "key+load",
                 f"hit <= {TARGET_MS} ms"], rows)


if __name__ == "__main__":
    main()
