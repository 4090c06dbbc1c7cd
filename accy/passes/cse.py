"""`cse`: replace a pure op by an equal one that dominates it."""
from accy.passes.core import erasing_pass
from accy.passes.rewrite import eliminate_common_subexpressions

PASS = erasing_pass("cse", eliminate_common_subexpressions, "Eliminate common subexpressions")
