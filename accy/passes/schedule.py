"""`SchedulePlanAnalysis`: the fusion plan. It splits a function's ops into work items, one
kernel each; nothing inside a work item goes through global memory, and the work item's hero
op picks its kind (XLA's rule).

    plan = schedule_plan(pass_context, func)
    for item in plan.items:        # in an order that runs every producer first
        item.kind, item.ops, item.inputs, item.outputs, item.bytes, item.flops

Kinds: elementwise, shape, dot_general, reduction, row_pipeline, iterate, flash_attention,
scan, kernel_call, sort, scatter (`KINDS`).

How ops are grouped (docs/plans.md has the full rules):
- Shape ops that only move elements (broadcast_in_dim, reshape, transpose, slice, reverse) and
  splat constants and iota compute nothing: they are never a work item's member of their own;
  every work item that reads through one takes a copy (`ops` lists it) and addresses the source
  through the composed index map. Where their value must exist in memory (returned, or an
  operand of iterate/kernel_call), or a transpose would make a reduction or scan read across
  the innermost dim, they are materialized like any other op. A dense constant (several
  distinct elements) lives in a constant buffer instead: items read it as an input
  (`SchedulePlan.constants` lists them).
- Every other op lands in exactly one work item. Work items grow by merging a producer's item
  into its consumer's (visiting consumers from the last op back) and then sibling items that
  read the same value; a merge is taken when the union is a valid work item
  (`plan_judges.judge`) and leaves the item graph acyclic. A producer read by other items too
  stays an output of the merged item (multi-output fusion), so a merge never recomputes an op.
- Valid work items: a loop (elementwise ops and materialized shape ops; all outputs of one
  shape; kind `shape` when it moves data across the innermost dim or holds pad/concatenate/
  gather, else `elementwise`); reductions over one input space (`row_pipeline` when they
  reduce trailing dims and a row result flows back into the row, which is also how one
  reduction feeds another; else `reduction`, several of them a multi-output reduction); one dot_general with convert operands and an elementwise epilogue of its
  shape; one scan with elementwise producers and consumers of its shape; and attention,
  iterate, kernel_call, sort and scatter alone (the decomposed attention pattern reaches the
  planner raised into one attention by the `raise-attention` pass).
- Cost model against recomputation: ops are never duplicated (only the element-moving ops and
  constants above, which cost no arithmetic). Inside a work item a value smaller than the
  item's iteration space is recomputed per use, so such members must be cheap: no division,
  power or transcendental (`EXPENSIVE`).

Bytes are estimated as each input read once and each output written once (broadcast reads hit
the cache), plus the tile re-reads of a dot_general or attention (`dot_rereads`).

This module holds the analysis (`WorkItem`, `SchedulePlan`, the estimates, `plan_block`); the
planner's graph is `plan_graph`, its judges `plan_judges`, its merge phases `plan_merge`. `DOT_TILE`, `trailing` and `dense_constant`
are imported from here by the outline and the lowering, `work_item_module` by the runtime.
"""
import math
from dataclasses import dataclass
from functools import lru_cache

from accy._core.types import numpy_dtype
from accy.passes.core import AnalysisDescriptor, WorkContract, analysis_pass
from accy.passes.plan_graph import ALONE, PlanGraph, dense_constant, position
from accy.passes.plan_judges import judge, trailing
from accy.passes.plan_merge import group, item_order
from accy.passes.shape_layout import shape_layout, value_numbers
from accy.passes.work_item_module import work_item_module
from accy.tensor.dialect import attention_dims

__all__ = ["KINDS", "DOT_TILE", "WorkItem", "SchedulePlan", "dot_rereads", "plan_block",
           "compute_schedule_plan", "SCHEDULE_PLAN", "schedule_plan", "PASS",
           "dense_constant", "trailing", "work_item_module"]

KINDS = ("elementwise", "shape", "dot_general", "reduction", "row_pipeline", "iterate",
         "flash_attention", "scan", "kernel_call", "sort", "scatter")
DOT_TILE = 128          # the tile edge the byte estimate assumes for dot_general re-reads


@dataclass(eq=False)
class WorkItem:
    """One kernel. `ops`: every op it computes, in program order (copied element-moving ops and
    constants included); `inputs`: values it reads from outside (function arguments, values of
    enclosing blocks, or earlier items' outputs); `outputs`: values it writes for later items or
    for the block's terminator. `hero`: the op that picked the kind. `plans`: for iterate, the
    plans of its cond and body blocks."""
    id: int
    kind: str
    hero: object
    ops: tuple
    inputs: tuple
    outputs: tuple
    bytes: int
    flops: int
    plans: tuple = ()


@dataclass(eq=False)
class SchedulePlan:
    """The work items of one block (a function body, or an iterate's cond or body block), in
    execution order. Every op of the block but its terminator is in exactly one of three
    places: `item_of` (op -> item id) holds every op of a work item's `ops` (a copied op maps
    to the first item that copies it); `constants`: the block's dense constants that items
    or the terminator read from memory (`dense_constant`), in program order, in no item (an
    item reads one as an input, like an argument); `unused`: pure ops nothing reads, left out
    of the plan (unread dense constants among them)."""
    block: object
    items: tuple
    item_of: dict
    unused: tuple
    ideal_bytes: int
    constants: tuple = ()

    @property
    def bytes(self):
        return sum(item.bytes for item in self.items)

    def text(self, numbers=None, depth=0):
        numbers = value_numbers(self.block.parent_op) if numbers is None else numbers

        def vals(values):
            return ", ".join(f"%{numbers[v]}: {v.type}" for v in values) or "-"

        pad = "  " * depth
        lines = [f"{pad}{len(self.items)} work items, {self.bytes} bytes moved "
                 f"(ideal {self.ideal_bytes})"]
        for item in self.items:
            hero = item.hero
            lines.append(f"{pad}item {item.id} {item.kind}: hero "
                         f"{_op_ref(hero, numbers)}, {item.bytes} bytes, {item.flops} flops")
            lines.append(f"{pad}  ops: " + " ".join(_op_ref(op, numbers) for op in item.ops))
            lines.append(f"{pad}  inputs: {vals(item.inputs)}")
            lines.append(f"{pad}  outputs: {vals(item.outputs)}")
            for label, sub in zip(("cond", "body"), item.plans):
                lines.append(f"{pad}  {label}: " + sub.text(numbers, depth + 2).lstrip())
        if self.constants:
            lines.append(f"{pad}constants: " + " ".join(_op_ref(op, numbers)
                                                       for op in self.constants))
        if self.unused:
            lines.append(f"{pad}unused: " + " ".join(_op_ref(op, numbers) for op in self.unused))
        return "\n".join(lines) + ("\n" if depth == 0 else "")


def _op_ref(op, numbers):
    if op.results:
        return f"%{numbers[op.results[0]]}={op.name.removeprefix('tensor.')}"
    return op.name.removeprefix("tensor.")



# ---- estimates ---------------------------------------------------------------------------------

def _nbytes(value):
    return _type_bytes(value.type)


@lru_cache(maxsize=4096)
def _type_bytes(t):
    return math.prod(t.shape) * numpy_dtype(t.dtype).itemsize if hasattr(t, "shape") else 0


def _flops(n):
    """Arithmetic of planned node `n`, estimated: one per element for elementwise ops, one per
    input element and body op for reduce and scan, 2·M·N·K for dot_general, the
    decomposition's for attention; 0 for the element-moving ops."""
    if n.role == "ew":
        return n.size
    if n.role in ("reduce", "scan"):
        body = sum(1 for _ in n.op.regions[0].blocks[0].operations) - 1
        return math.prod(n.operand_shapes[0]) * max(1, body)
    if n.role == "dot":
        k = math.prod([n.operand_shapes[0][d]
                   for d in n.op.attributes["lhs_contracting_dimensions"]])
        return 2 * n.size * k
    if n.name == "tensor.attention":
        batch, sq, sk, d, dv = attention_dims(n.op)
        rows = math.prod(batch) * sq
        return 2 * rows * sk * (d + dv) + 5 * rows * sk
    return 0


def dot_rereads(op):
    """Bytes a tiled dot_general (or attention) must read beyond each operand once: with
    DOT_TILE x DOT_TILE output tiles, the lhs is read once per column tile and the rhs once per
    row tile (attention: K and V once per query tile)."""
    if op.name == "tensor.attention":
        sq = op.operand_types[0].shape[-2]
        return (-(-sq // DOT_TILE) - 1) * sum(_nbytes(v) for v in op.operands[1:3])
    if op.name != "tensor.dot_general":
        return 0
    a = op.attributes
    lhs, rhs = op.operand_types
    free_l = [n for d, n in enumerate(lhs.shape)
              if d not in a["lhs_contracting_dimensions"] and d not in a["lhs_batching_dimensions"]]
    free_r = [n for d, n in enumerate(rhs.shape)
              if d not in a["rhs_contracting_dimensions"] and d not in a["rhs_batching_dimensions"]]
    m, n = math.prod(free_l), math.prod(free_r)
    return ((-(-n // DOT_TILE) - 1) * _nbytes(op.operands[0])
            + (-(-m // DOT_TILE) - 1) * _nbytes(op.operands[1]))


# ---- a block's plan ----------------------------------------------------------------------------

def plan_block(block, layout):
    """The SchedulePlan of `block` (a function body, or an iterate's cond/body block)."""
    g = PlanGraph(block, layout)
    groups = group(g)
    items, item_of = [], {}
    for root in item_order(g, groups):
        members = sorted(groups.members[root], key=position)
        item = _item(g, len(items), members, groups.judged.get(root))
        items.append(item)
        for op in item.ops:
            item_of.setdefault(op, item.id)
    read = {v for item in items for v in item.inputs}
    read.update(g.term.op.operands if g.term is not None else ())
    constants = [n for n in g.constants if n.op.results[0] in read]
    unread = [n for n in g.constants if n.op.results[0] not in read]
    unused = sorted(g.dead + [n for n in g.cheap if n.op not in item_of] + unread, key=position)
    return SchedulePlan(g.block, tuple(items), item_of, tuple(n.op for n in unused),
                        _ideal_bytes(g, items), tuple(n.op for n in constants))


def _item(g, index, members, judged):
    member_set = set(members)
    copied, inputs, seen = {}, [], set()
    for n in members:
        for src, p, chain, _ in n.access:
            for c in chain:
                copied[c] = None
            if src is not None and (p is None or p not in member_set) and src not in seen:
                seen.add(src)
                inputs.append(src)
    nodes = sorted(members + list(copied), key=position)
    outputs = [r for n in members for r, readers, escapes in n.results
               if escapes or any(x not in member_set for x in readers)]
    if len(members) == 1 and members[0].role == "alone":
        kind, hero = ALONE[members[0].name], members[0]
    else:
        kind, hero = (judged or judge(g, member_set))[:2]
    nbytes = sum(_nbytes(v) for v in inputs) + sum(_nbytes(v) for v in outputs)
    nbytes += dot_rereads(hero.op)
    plans = ()
    if kind == "iterate":
        plans = tuple(plan_block(region.blocks[0], g.layout) for region in hero.op.regions)
    flops = sum(_flops(n) for n in members)
    return WorkItem(index, kind, hero.op, tuple(n.op for n in nodes), tuple(inputs),
                    tuple(outputs), nbytes, flops, plans)


def _ideal_bytes(g, items):
    """Each block argument and dense constant read once, each terminator operand written
    once, plus the re-reads a dot_general or attention must make."""
    read = {src for item in items for src in item.inputs if src not in g.local}
    total = sum(_nbytes(v) for v in read)
    if g.term is not None:
        total += sum(_nbytes(v) for v in set(g.term.op.operands))
    for item in items:
        if item.kind in ("dot_general", "flash_attention"):
            total += dot_rereads(item.hero)
    return total


# ---- the analysis -----------------------------------------------------------------------------

def compute_schedule_plan(func, layout):
    """The SchedulePlan of `func`'s body, given its ShapeLayoutAnalysis."""
    return plan_block(func.regions[0].blocks[0], layout)


SCHEDULE_PLAN = AnalysisDescriptor("SchedulePlanAnalysis", WorkContract(
    ("SchedulePlanAnalysis", 2),
    estimate=lambda p: 512 + 200 * len(p.item_of) + 400 * len(p.items)))


def schedule_plan(pass_context, func):
    """The SchedulePlan of `func` through the analysis cache (reads ShapeLayoutAnalysis)."""
    return pass_context.get_analysis(
        func, SCHEDULE_PLAN,
        lambda op, scope: compute_schedule_plan(op, shape_layout(scope, op)))


PASS = analysis_pass("schedule", schedule_plan, "SchedulePlanAnalysis (work items: fusion "
                     "groups with a kind and cost estimate)")
