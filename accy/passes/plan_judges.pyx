# cython: language_level=3
"""The fusion planner's judges: whether a set of planned nodes of one block (`PlanGraph`)
makes a valid work item, and of which kind (docs/plans.md has the rules). Every judge takes
the graph it judges on; its cached map checks (`PlanGraph.reads_linear`) and reduction rules
(`PlanGraph.rules`) live there.

    kind, hero = judge(g, members)          # or None: not a valid work item
"""
import math
from functools import lru_cache

from accy.passes.plan_graph cimport PlanGraph, PlanNode
from accy.passes.plan_graph import MATERIALIZING, position, row_strides
from accy.passes.shape_layout import row_major_strides


def judge(PlanGraph g, members, heroes=None):
    """(kind, hero node) when `members` (a set of planned nodes of one block) make a valid work
    item, else None. `heroes`: role -> nodes of the hero roles among them, when known."""
    cdef PlanNode n
    if heroes is None:
        heroes = {}
        for n in members:
            if n.role in HEROES:
                heroes.setdefault(n.role, []).append(n)
    if not compatible(heroes):
        return None
    reduces, dots, scans = heroes.get("reduce", ()), heroes.get("dot", ()), heroes.get("scan", ())
    if reduces:
        return _judge_reduction(g, members, sorted(reduces, key=position))
    outputs = [n for n in members if any(r not in members for r in n.readers)]
    if dots or scans:
        return _judge_tiled(g, members, (dots or scans)[0], outputs)
    return _judge_loop(g, members, outputs)


HEROES = frozenset(("reduce", "dot", "scan", "alone"))


def compatible(heroes):
    """Whether these heroes may share a work item: reductions together, or one dot_general, or
    one scan; attention, iterate and kernel_call never."""
    if "alone" in heroes:
        return False
    tiled = len(heroes.get("dot", ())) + len(heroes.get("scan", ()))
    return tiled == 0 or (tiled == 1 and "reduce" not in heroes)


cdef _judge_loop(PlanGraph g, members, list outputs):
    """Elementwise and materialized shape ops, all outputs of one shape; smaller members are
    recomputed per use, so they must be cheap (`_computed_once`)."""
    cdef PlanNode n
    shapes = {n.shape for n in outputs}
    if len(shapes) != 1:
        return None
    size = math.prod(shapes.pop())
    movers = []
    for n in members:
        if not _computed_once(g, n, members, size):
            return None
        if n.name in MATERIALIZING or n.moves_inner or n.reads_across:
            movers.append(n)
    if movers:                          # the first in program order is the hero
        return "shape", min(movers, key=position)
    return "elementwise", min(outputs, key=position)


cdef bint _computed_once(PlanGraph g, PlanNode n, members, size) except -1:
    """Whether the kernel computes expensive member `n` once per element: it is not smaller
    than the item's space (else every element of the space that reads it recomputes it), and
    every member reading it reads it at its own index (a slice, broadcast or stencil would
    compute it again per read). Cheap members may be recomputed."""
    cdef PlanNode r
    if not n.expensive:
        return True
    if n.size < size:
        return False
    for r in n.readers:
        if r in members:
            for p, i in r.producers:
                if p is n and not (r.shape == n.shape and
                                   g.reads_linear(r, i, row_major_strides(r.shape))):
                    return False
    return True


cdef set _prologue(members, PlanNode hero):
    """The convert ops feeding dot_general `hero` inside the item: a chain of converts, each
    read only by the next (or by the dot)."""
    cdef PlanNode cur, p
    found, stack = set(), [hero]
    while stack:
        cur = stack.pop()
        for p, _ in cur.producers:
            if p in members and p.name == "tensor.convert" and p.readers == [cur] \
                    and p not in found:
                found.add(p)
                stack.append(p)
    return found


cdef _judge_tiled(PlanGraph g, members, PlanNode hero, list outputs):
    """One dot_general or scan with its elementwise epilogue (and, for dot_general, convert
    operands; for scan, elementwise producers): every member of the hero's result shape reads
    the others at its own index."""
    cdef PlanNode n, p
    cdef bint is_dot, in_prologue, ok
    space, size = hero.shape, hero.size
    strides = row_major_strides(space)
    is_dot = hero.role == "dot"
    if any((<PlanNode>n).shape != space for n in outputs):
        return None
    prologue = _prologue(members, hero) if is_dot else ()
    for n in members:
        if n.role == "shape" or (n.reads_across and not is_dot):
            return None
        in_prologue = n in prologue
        if not in_prologue and not _computed_once(g, n, members, size):
            return None
        for p, i in n.producers:
            if p not in members:
                continue
            if i < 0:
                return None         # a region would read a value the item never stores
            if n is hero or in_prologue:
                if is_dot or in_prologue:
                    ok = p in prologue
                elif i == 0:
                    ok = g.reads_linear(n, 0, strides)
                else:
                    ok = p.size == 1
            elif p in prologue:
                ok = False                  # a prologue convert feeds only the dot
            elif n.shape != space:
                ok = True                   # a small member: checked below
            elif p is hero or p.shape == space:
                ok = g.reads_linear(n, i, strides)
            else:
                ok = True                   # read from a small member (recomputed)
            if not ok:
                return None
        if n is not hero and not in_prologue and n.shape != space:
            if n.expensive or n.size >= size or _depends_on(n, hero, members):
                return None
    return ("dot_general" if is_dot else "scan"), hero


cdef bint _depends_on(PlanNode n, PlanNode target, members) except -1:
    cdef PlanNode cur
    seen, stack = set(), [n]
    while stack:
        cur = stack.pop()
        for a in cur.access:
            p = a[1]
            if p is target:
                return True
            if p is not None and p in members and p not in seen:
                seen.add(p)
                stack.append(p)
    return False


cdef _judge_reduction(PlanGraph g, members, list reduces):
    """Reductions over one input space (full shape F, reduced dims D) with elementwise ops in
    the full space, the row space (F without D) or on scalars. `row_pipeline` when a row
    result flows back into the full space (D must then be the trailing dims), which is also
    how one reduction can feed another; else `reduction` (several are a multi-output one)."""
    cdef PlanNode first = reduces[0], r
    full = first.operand_shapes[0]
    dims = tuple(sorted(first.op.attributes["dimensions"]))
    for r in reduces[1:]:
        if r.operand_shapes[0] != full or tuple(sorted(r.op.attributes["dimensions"])) != dims:
            return None
    space = (full, dims)
    back = check_rules(g, members, members, space)
    if back is None or (back and not trailing(space)) or escaping_free(members, members, space):
        return None
    return ("row_pipeline" if back else "reduction"), first


def check_rules(PlanGraph g, nodes, members, space):
    """Whether `nodes` may sit in a reduction item over `space` made of `members`: None when
    not, else whether a row result flows back into the full space among their reads."""
    back = False
    for n in nodes:
        rules = reduction_rules(g, n, space)
        if rules is None:
            return None
        for p, ok, flows in rules:
            if p in members:
                if not ok:
                    return None
                back = back or flows
    return back


def trailing(space):
    """Whether reduced dims D of shape F are its innermost ones (size-1 dims aside): each row
    is then one contiguous run of memory."""
    full, dims = space
    return all(d in dims or full[d] == 1 for d in range(min(dims, default=len(full)), len(full)))


@lru_cache(maxsize=1024)
def _space_facts(space):
    """(rows, full-space strides, row-space strides read from a full index) of (F, D)."""
    full, dims = space
    return (math.prod([d for i, d in enumerate(full) if i not in dims]),
            tuple(row_major_strides(full)), tuple(row_strides(full, dims)))


def escaping_free(nodes, members, space):
    """Whether one of `nodes` is a recomputed value of another shape (`free` or `scalar` in
    `_reduction_rules`) that something outside `members` reads: it would have to be written,
    and a reduction item writes only full-shape and row values (a loop counter's `i + 1`
    beside a softmax is an item of its own)."""
    cdef PlanNode n
    full, _ = space
    rows = _space_facts(space)[0]
    for n in nodes:
        if n.role == "ew" and n.shape != full and n.size != rows \
                and any(r not in members for r in n.readers):
            return True
    return False


cdef str _where(PlanNode x, full, rows):
    """Where node `x` sits in a reduction item over full shape `full` with `rows` rows: row,
    full, scalar, free (any other shape, a per-column weight say: recomputed wherever it is
    read, so it must be cheap and read nothing the item computes) or None."""
    if x.role == "reduce" or (x.shape != full and x.size == rows):
        return "row"
    if x.shape == full:
        return "full"
    if x.size == 1:
        return "scalar"
    return "free" if x.role == "ew" and not x.expensive else None


cdef _reduction_rules(PlanGraph g, PlanNode n, space):
    """How node `n` may sit in a reduction item over `space` = (F, D): None when it cannot,
    else per in-block producer (producer, allowed inside the item, a row value broadcast back
    into the full space)."""
    cdef PlanNode p
    cdef bint ok, back
    full, dims = space
    rows, full_strides, row_strides = _space_facts(space)
    mine = _where(n, full, rows)
    if n.role == "shape" or mine is None or n.reads_across:
        return None                 # (a transposed read strides across the reduced rows)
    rules = []
    n_inputs = len(n.operand_shapes) // 2
    for p, i in n.producers:
        theirs, back = _where(p, full, rows), False
        if i < 0 or mine == "free":
            ok = False              # a region would read a value the item never stores
        elif n.role == "reduce":
            if i >= n_inputs:       # an init: a scalar computed in the item
                ok = theirs != "full" and math.prod(n.operand_shapes[i]) == 1
            else:
                ok = theirs == "full" and g.reads_linear(n, i, full_strides)
        elif theirs == "scalar" or (theirs == "free" and mine != "scalar"):
            ok = True
        elif mine == "full" and theirs == "full":
            ok = g.reads_linear(n, i, full_strides)
        elif mine == "full" and theirs == "row":
            ok = back = g.reads_linear(n, i, row_strides)
        elif mine == "row" and theirs == "row":
            ok = g.reads_linear(n, i, row_major_strides(n.shape))
        else:
            ok = False
        rules.append((p, ok, back))
    return rules


def reduction_rules(PlanGraph g, n, space):
    """`_reduction_rules` of `n` over `space`, cached in `g`."""
    key = (n, space)
    found = g.rules.get(key, g)         # (a cached None is an answer: `g` marks a miss)
    if found is g:
        found = g.rules[key] = _reduction_rules(g, n, space)
    return found
