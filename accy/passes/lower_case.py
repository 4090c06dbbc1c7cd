"""`lower-case`: replace each `tensor.case` by ops the planner schedules (innermost first), in one
of two forms, so that no case reaches the planner and none runs on the host:

- *select*, when every op in its branches is elementwise or moves elements (constants, iota,
  the shape ops, gather, the dynamic slices): every branch's ops are copied in front of the
  case and each result is a chain of `select`s on `index == k`, the last branch where no k
  matches (an index out of range). The branches fuse into the kernels around them; each costs
  its arithmetic whether taken or not.
- *guarded*, otherwise (a reduction, a contraction, a loop, a sort, a kernel call, ... in some
  branch): each branch becomes a `tensor.iterate` carrying a flag (`index == k`; for the last
  branch, no other k) and the results (zeros to start): the cond yields the flag, the body
  runs the branch and clears it. So a branch runs at most once and only when taken (a loop in
  a branch not taken never starts); the host reads one flag per branch (the iterate's host
  loop). The same select chain then picks the taken branch's results.

Both keep the case's meaning exactly (docs/tensor-ops.md): the results are the taken branch's
values, computed by the same ops.
"""
from accy._core.context import Builder
from accy._core.registry import ELEMENTWISE
from accy.passes.core import Pass
from accy.tensor.build import Emitter

# ops (besides elementwise ones) a select-form branch may hold: they only move elements
MOVING = frozenset("tensor." + n for n in (
    "constant", "iota", "broadcast_in_dim", "reshape", "transpose", "slice", "reverse", "pad",
    "concatenate", "gather", "dynamic_slice", "dynamic_update_slice", "yield"))


def lower_case(case):
    """Replace `case` (whose branches hold no case) by its select or guarded form."""
    e = Emitter(Builder(case.context).before_op(case))
    index = case.operands[0]
    blocks = [region.entry for region in case.regions]
    if all(op.has_trait(ELEMENTWISE) or op.name in MOVING
           for block in blocks for top in block.operations for op in top.walk()):
        branches = [_inline(e, block) for block in blocks]
    else:
        branches = [_guarded(e, block, _taken(e, index, k, len(blocks)), case.result_types)
                    for k, block in enumerate(blocks)]
    results = branches[-1]
    for k in reversed(range(len(branches) - 1)):
        taken = e.compare(index, e.constant(k, index.type.dtype), "EQ")
        results = [e.op("tensor.select", taken, a, b) for a, b in zip(branches[k], results)]
    for old, new in zip(case.results, results):
        old.replace_all_uses_with(new)
    case.erase()


def _inline(e, block):
    """Copy `block`'s ops to `e`'s insertion point; the copies of the values it yields."""
    mapping = {}
    for op in block.operations:
        if op.name == "tensor.yield":
            return [mapping.get(v, v) for v in op.operands]
        copy = e.builder.insert(op.clone(mapping=mapping))
        mapping.update(zip(op.results, copy.results))
    raise AssertionError("a verified branch ends with tensor.yield")


def _taken(e, index, k, n):
    """i1: branch k of n runs (the last one for any index no other branch takes)."""
    if k < n - 1:
        return e.compare(index, e.constant(k, index.type.dtype), "EQ")
    flag = e.constant(True, "i1")
    for j in range(n - 1):
        flag = e.op("tensor.and", flag, e.compare(index, e.constant(j, index.type.dtype), "NE"))
    return flag


def _guarded(e, block, taken, types):
    """The branch in an iterate that runs its body once when `taken`, else never."""
    zeros = [e.full(0, t.dtype, t.shape) for t in types]
    outs = e.iterate([taken] + zeros, lambda e, flag, *values: flag,
                     lambda e, flag, *values: [e.constant(False, "i1")] + _inline(e, block))
    return list(outs[1:])


def _run(op, ctx):
    found = list(op.walk(name="tensor.case"))
    for case in reversed(found):            # pre-order reversed: inner cases first
        lower_case(case)
    if found:
        ctx.statistics["lowered"] += len(found)
    else:
        ctx.preserve_all_analyses()


PASS = Pass("lower-case", _run, "Replace tensor.case by selects of its branches, or by a guarded "
                                "iterate per branch when a branch holds more than elementwise "
                                "and element-moving ops")
