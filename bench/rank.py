"""Compile time against tensor rank: an elementwise chain, a reduction, a transpose and a
broadcast (bench/rank_cases.py) at ranks 8 to 64 (shapes of 1s with a few 2s), each traced
and compiled by accy.compile, and the same modules as IR text compiled by `accy compile`
in-process (parse included; the CLI also runs ptxas for its report). Prints the best of 5 in
milliseconds; with --profile, the top functions by cumulative time of the largest rank.

    python bench/rank.py                       # ranks 8 16 32 64
    python bench/rank.py --ranks 16 32 --profile
"""
import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import accy
from accy.__main__ import main as accy_main
from rank_cases import KINDS, shape_of


def best_time(fn, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def compile_api(kind, rank):
    x = np.ones(shape_of(rank), np.float32)
    return lambda: accy.compile(KINDS[kind], x)


def compile_cli(kind, rank, folder):
    x = np.ones(shape_of(rank), np.float32)
    path = os.path.join(folder, f"{kind}{rank}.mlir")
    with open(path, "w", encoding="utf-8") as f:
        f.write(accy.jit(KINDS[kind]).lower(x).print())
    out = os.path.join(folder, f"out{kind}{rank}")
    args = ["compile", path, "-o", out]

    def run():
        devnull = open(os.devnull, "w")
        stdout, sys.stdout = sys.stdout, devnull
        try:
            assert accy_main(args) == 0
        finally:
            sys.stdout = stdout
            devnull.close()
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[8, 16, 32, 64])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--profile", action="store_true",
                        help="profile accy.compile at the largest rank, per kind")
    args = parser.parse_args()
    compile_api("chain", 2)()                  # imports and first-use caches, untimed
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'kind':10} {'rank':>4} {'accy.compile ms':>16} {'accy compile ms':>16}")
        for kind in args.kinds:
            for rank in args.ranks:
                api = best_time(compile_api(kind, rank)) * 1e3
                cli = best_time(compile_cli(kind, rank, folder)) * 1e3
                print(f"{kind:10} {rank:4d} {api:16.2f} {cli:16.2f}", flush=True)
        if args.profile:
            for kind in args.kinds:
                profile = cProfile.Profile()
                profile.runcall(compile_api(kind, max(args.ranks)))
                print(f"\n== {kind}, rank {max(args.ranks)}")
                pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
