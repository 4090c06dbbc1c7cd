"""`canonicalize`: folds (constants and exact identities), the ops' canonicalization patterns,
constants moved to the right of commutative ops, and dead pure ops erased, to a fixed point."""
from accy.passes.core import Option, Pass
from accy.passes.rewrite import apply_patterns_greedily


def _run(op, ctx):
    o = ctx.options
    r = apply_patterns_greedily(op, fold=o["fold"], max_iterations=o["max-iterations"],
                                max_rewrites=o["max-rewrites"])
    for key in ("folded", "rewritten", "erased", "created", "iterations"):
        if r[key]:
            ctx.statistics[key] += r[key]
    if not r["changed"]:
        ctx.preserve_all_analyses()
    if o["test-convergence"] and not r["converged"]:
        ctx.fail(f"no fixed point within {o['max-iterations']} sweeps "
                 f"(of at most {o['max-rewrites']} rewrites each; -1: automatic)")


PASS = Pass("canonicalize", _run,
            "Fold constants and exact algebraic identities, apply canonicalization patterns, "
            "erase dead pure ops",
            options=(Option("max-iterations", int, 10, "sweeps before giving up", minimum=1,
                            maximum=2**31 - 1),
                     Option("max-rewrites", int, -1,
                            "changes per sweep before giving up (-1: 16 per op + 1024)",
                            minimum=-1, maximum=2**62),
                     Option("test-convergence", bool, False,
                            "fail when no fixed point is reached"),
                     Option("fold", bool, True, "use the ops' fold functions")))
