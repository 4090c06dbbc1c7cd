"""Graphs for the compile cache's tests, and the child process of its hammer test.

    graph(i)            (function, arrays) of graph i of GRAPH_COUNT: GRAPH_COUNT distinct small
                        graphs (elementwise chains, some ending in a row reduction or a
                        softmax) over a few shapes, so that many share kernels
    outcome(exe, ...)   what a compile made, as digests: PTX, cubin, program, module, kernels,
                        and the emulator's results when arrays are given

    python tests/cache_helpers.py DIR MAX_BYTES I...
        compiles graphs I... with Cache(DIR, MAX_BYTES) (a CacheWarning is an error) and
        prints one JSON object: {"outcomes": {i: outcome}, "stats": the Cache's counters}
"""
import hashlib
import json
import sys
import warnings

import numpy as np

import accy
import accy.ops as ops

GRAPH_COUNT = 200
SHAPES = [(2, 8), (3, 16), (4, 8), (5, 32), (2, 24), (6, 16), (3, 40), (4, 64), (7, 8), (1, 48)]
UNARY = [ops.exp, ops.tanh, lambda x: x * 2.0, lambda x: x + 1.0, lambda x: -x, ops.abs,
         lambda x: x * x, ops.sigmoid]
ENDS = [None, None, lambda x: ops.sum(x, -1), lambda x: ops.max(x, -1),
        lambda x: ops.softmax(x, -1)]
SAMPLED = range(0, GRAPH_COUNT, 20)          # graphs whose emulator results are compared


def graph(i):
    """(function, arrays) of graph i: chain i // len(SHAPES) on shape i % len(SHAPES)."""
    shape = SHAPES[i % len(SHAPES)]
    chain = i // len(SHAPES)
    rng = np.random.default_rng(chain)
    steps = [UNARY[k] for k in rng.integers(0, len(UNARY), 2 + chain % 3)]
    end = ENDS[chain % len(ENDS)]

    def fn(x, y):
        t = x + y
        for step in steps:
            t = step(t)
        return end(t) if end is not None else t
    data = np.random.default_rng(1000 + i)
    arrays = [(data.standard_normal(shape) * 0.5 + 0.1).astype(np.float32) for _ in range(2)]
    return fn, arrays


def _digest(data):
    if data is None:
        return None
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


def outcome(exe, arrays=None):
    results = None
    if arrays is not None:
        got = exe.run(*arrays, device="emulator")
        got = got if isinstance(got, (tuple, list)) else (got,)
        results = _digest(b"".join(np.ascontiguousarray(r).tobytes() for r in got))
    return {"ptx": _digest(exe.ptx), "cubin": _digest(exe.cubin),
            "program": _digest(exe.program.text()), "module": _digest(exe.module_text),
            "kernels": [[k.name, k.kind, k.schedule, k.launch.text()] for k in exe.kernels],
            "results": results}


def main(folder, max_bytes, indices):
    from accy.cache import Cache, CacheWarning
    warnings.simplefilter("error", CacheWarning)
    cache = Cache(folder, max_bytes)
    outcomes = {}
    for i in indices:
        fn, arrays = graph(i)
        exe = accy.compile(fn, *arrays, cache=cache)
        outcomes[i] = outcome(exe, arrays if i in SAMPLED else None)
    print(json.dumps({"outcomes": outcomes, "stats": cache.stats()}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), [int(a) for a in sys.argv[3:]])
