"""`dce`: erase pure ops whose results are unused, to a fixed point."""
from accy.passes.core import Pass
from accy.passes.rewrite import eliminate_dead_code


def _run(op, ctx):
    erased = eliminate_dead_code(op)
    if erased:
        ctx.statistics["erased"] += erased
    else:
        ctx.preserve_all_analyses()


PASS = Pass("dce", _run, "Erase dead pure operations")
