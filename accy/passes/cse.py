"""`cse`: replace a pure op by an equal one that dominates it."""
from accy.passes.core import Pass
from accy.passes.rewrite import eliminate_common_subexpressions


def _run(op, ctx):
    erased = eliminate_common_subexpressions(op)
    if erased:
        ctx.statistics["erased"] += erased
    else:
        ctx.preserve_all_analyses()


PASS = Pass("cse", _run, "Eliminate common subexpressions")
