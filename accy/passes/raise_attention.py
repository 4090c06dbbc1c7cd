"""`raise-attention`: raise each decomposed attention pattern (dot_general -> elementwise score
ops -> max -> subtract -> exp -> sum -> divide -> (convert) -> dot_general, as `match_attention`
recognizes it on the planner's graph of a block) into one raised `tensor.attention`
(docs/tensor-ops.md): q, k, v the dots' operands, the dots' dimensions and the softmax's dtypes
as attributes, and the score ops moved into its `score` region, which takes the scores and
yields what the max reduces. The ops of iota masks the pattern computes itself move along; the
values the score ops read from above (masks, splat constants, element moves of them) stay where
they are. The raised op computes what the pattern computed, op for op (the reference runs it
so), so results do not change; the planner and the lowering then see one attention form.

Patterns are raised in every block the planner plans (a function's body and the blocks of its
`iterate` ops), in the order the planner would claim them: the latest dot_general first.
"""
import math

from accy._core.attributes import DictAttr
from accy._core.context import Builder
from accy._core.registry import PURE
from accy.passes.core import Pass
from accy.passes.plan_graph import PlanGraph, position, row_strides
from accy.passes.shape_layout import row_major_strides, shape_layout
from accy.tensor.build import reduce_kind
from accy.tensor.dialect import EXACT_WIDENING


def match_attention(g, dot2):
    """The nodes of dot_general -> (elementwise score ops) -> max -> subtract -> exp -> sum ->
    divide -> (convert) -> dot_general ending at `dot2`, as (nodes, roles), or None; the sum
    may be taken in a wider dtype (exp converted before it, the sum converted back: how an
    f16/bf16 softmax is written). Every link
    reads its producer at the same index (the row max and sum at the same row), the max starts
    from -inf and the sum from 0, and every intermediate is read only inside the pattern."""
    roles = _softmax_roles(g, dot2)
    if roles is None:
        return None
    z = _link(g, roles["shifted"], 0)
    found = _score_chain(g, z)
    if found is None:
        return None
    chain, dot1 = found
    rank = len(z.shape)
    batch = tuple(range(rank - 2))
    for d in (dot1, dot2):
        a = d.op.attributes
        if tuple(a["lhs_batching_dimensions"]) != batch or \
                tuple(a["rhs_batching_dimensions"]) != batch or \
                tuple(a["lhs_contracting_dimensions"]) != (rank - 1,):
            return None
    roles["scores"] = dot1
    inside = set(chain) | set(roles.values())
    # mask-side ops that read nothing but constants and iota (causal masks) come along
    extra = []
    for n in chain:
        for _, q, _, _ in n.access:
            _closed(q, inside, extra)
    inside |= set(extra)
    if any(r not in inside for n in inside if n is not dot2 for r in n.readers):
        return None
    return sorted(inside, key=position), roles


def _softmax_roles(g, dot2):
    """The softmax whose probabilities `dot2` reads, from its divide back to the subtract of
    the row max: roles values, (convert), divide, sum, (narrow, widen), exp, shifted and max;
    else None."""
    roles = {"values": dot2}
    p = _link(g, dot2, 0)
    if p is not None and p.name == "tensor.convert":
        roles["convert"] = p
        p = _link(g, p, 0)
    if p is None or p.name != "tensor.divide":
        return None
    e, total = _link(g, p, 0), _link(g, p, 1, row=True)
    if total is not None and total.name == "tensor.convert":     # the sum taken in a wider
        roles["narrow"], total = total, _link(g, total, 0)        # dtype (f16/bf16 softmax)
    summed = _link(g, total, 0) if total is not None and total.role == "reduce" else None
    if summed is not None and summed.name == "tensor.convert":
        roles["widen"], summed = summed, _link(g, summed, 0)
    if e is None or e.name != "tensor.exp" or not _reduction(total, "sum", 0.0) \
            or summed is not e:
        return None
    exp_dtype, sum_dtype = e.op.result_types[0].dtype, total.op.result_types[0].dtype
    if sum_dtype != exp_dtype and (exp_dtype, sum_dtype) not in EXACT_WIDENING:
        return None                 # a sum of truncated or rounded exps: not softmax's
    shifted = _link(g, e, 0)
    if shifted is None or shifted.name != "tensor.subtract":
        return None
    z, row_max = _link(g, shifted, 0), _link(g, shifted, 1, row=True)
    if z is None or not _reduction(row_max, "max", -math.inf) or _link(g, row_max, 0) is not z:
        return None
    roles.update(max=row_max, shifted=shifted, exp=e, sum=total, divide=p)
    return roles


def _score_chain(g, z):
    """The score chain: the elementwise ops of the score shape from `z` back to one
    dot_general, each reading the chain at its own index, as (chain, that dot), else None."""
    full = z.shape
    chain, stack, dot1 = [], [z], None
    while stack:
        n = stack.pop()
        if n.role == "dot":
            if dot1 is not None and dot1 is not n:
                return None
            dot1 = n
            continue
        if n.role != "ew" or n.shape != full:
            return None
        if n in chain:
            continue
        chain.append(n)
        for q, i in n.producers:
            if q.role in ("ew", "dot") and _reaches_dot(q):
                if _link(g, n, i) is not q:
                    return None
                stack.append(q)
    if dot1 is None or dot1.shape != full:
        return None
    return chain, dot1


def _link(g, n, i, row=False):
    """The producer of operand `i` of node `n` when `n` reads it at its own index (or, with
    `row`, at its own row), else None."""
    if n is None or i >= len(n.access):
        return None
    _, q, chain, _ = n.access[i]
    if q is None:
        return None
    if n.role == "dot":
        return q if not chain else None
    shape = n.operand_shapes[0] if n.role == "reduce" else n.shape
    full = row_major_strides(shape)
    want = row_strides(shape, (len(shape) - 1,)) if row else full
    return q if g.reads_linear(n, i, tuple(want)) else None


def _reduction(n, kind, init):
    """Whether node `n` reduces the last dim by `kind` from a constant `init`."""
    if n is None or n.role != "reduce" or len(n.operand_shapes) != 2:
        return False
    rank = len(n.operand_shapes[0])
    if tuple(n.op.attributes["dimensions"]) != (rank - 1,) or reduce_kind(n.op) != kind:
        return False
    src, _, chain, _ = n.access[1]          # the init: a constant of that value
    if src is not None or not chain or chain[-1].name != "tensor.constant":
        return False
    value = chain[-1].op.attributes["value"].array
    return value.size == 1 and float(value.reshape(-1)[0]) == init


def _reaches_dot(n):
    seen, stack = set(), [n]
    while stack:
        cur = stack.pop()
        if cur.role == "dot":
            return True
        for _, q, _, _ in cur.access:
            if q is not None and q not in seen and q.role in ("ew", "dot"):
                seen.add(q)
                stack.append(q)
    return False


def _closed(n, inside, extra):
    """Add `n` and its producers to `extra` when they read nothing but constants and iota."""
    if n is None or n in inside or n in extra:
        return True
    if n.role != "ew":
        return False
    for src, p, _, _ in n.access:
        if src is not None and (p is None or not _closed(p, inside, extra)):
            return False
    extra.append(n)
    return True


# ---- the rewrite ------------------------------------------------------------------------------

def _run(op, ctx):
    raised = 0
    for func in list(op.walk(name="builtin.func")):
        if func.regions[0].entry is None:
            continue
        found = []
        for block in _planned_blocks(func.regions[0].entry):
            found += _patterns(block, lambda: shape_layout(ctx, func))
        for score_ops, roles in found:
            raise_pattern(score_ops, roles)
        raised += len(found)
    if raised:
        ctx.statistics["raised"] += raised
    else:
        ctx.preserve_all_analyses()


def _planned_blocks(block):
    """`block` and the blocks of the iterate ops in it (what the planner plans), nested ones
    included."""
    yield block
    for op in block.operations:
        if op.name == "tensor.iterate":
            for region in op.regions:
                for inner in region.blocks:
                    yield from _planned_blocks(inner)


def _patterns(block, layout):
    """(score ops, roles: role name -> op) of the patterns of `block` that do not overlap,
    the latest dot_general's first; the score ops are the pattern's elementwise ops that are
    not in a role (the score chain and its iota masks). `layout()`: the function's
    ShapeLayoutAnalysis."""
    names = [op.name for op in block.operations]
    if names.count("tensor.dot_general") < 2 or "tensor.exp" not in names:
        return []           # no pattern: spare the analysis and the graph
    g = PlanGraph(block, layout())
    taken, found = set(), []
    for n in reversed(g.planned):
        if n.role == "dot" and n not in taken:
            match = match_attention(g, n)
            if match is not None and not taken.intersection(match[0]):
                taken.update(match[0])
                roles = set(match[1].values())
                found.append(([x.op for x in match[0] if x not in roles],
                              {role: x.op for role, x in match[1].items()}))
    return found


def raise_pattern(score_ops, roles):
    """Replace the pattern named by `roles` (role name -> op, `match_attention`'s roles) with
    its elementwise `score_ops` by one raised `tensor.attention` where its values dot was;
    returns that op."""
    dot1, dot2 = roles["scores"], roles["values"]
    scores, z = dot1.results[0], roles["max"].operands[0]
    attrs = {"scores": DictAttr(dict(dot1.attributes)), "score_dtype": scores.type.dtype,
             "values": DictAttr(dict(dot2.attributes)),
             "value_dtype": dot2.result_types[0].dtype}
    if roles["sum"].result_types[0].dtype != z.type.dtype:
        attrs["sum_dtype"] = roles["sum"].result_types[0].dtype
    softmax_ops = _between(z, dot2.results[0])
    score_ops = _with_readers(score_ops, set(softmax_ops))
    builder = Builder(dot2.context).before_op(dot2)
    op = builder.create("tensor.attention", [*dot1.operands, dot2.operands[1]],
                        dot2.result_types, attrs, regions=1)
    block = op.regions[0].add_block([scores.type])
    for inner in score_ops:
        inner.move_to_end(block)
    scores.replace_all_uses_with(block.arguments[0])
    Builder(dot2.context).at_end(block).create("tensor.yield",
                                               [block.arguments[0] if z == scores else z])
    dot2.results[0].replace_all_uses_with(op.results[0])
    producers = [p for o in softmax_ops for p in _producers(o)]
    for dead in reversed(softmax_ops):
        dead.erase()
    dot1.erase()
    _erase_unused(producers, set(softmax_ops) | {dot1})
    return op


def _with_readers(score_ops, softmax_ops):
    """`score_ops` and the ops of their block outside `softmax_ops` that read their values
    (the element moves between them), in program order: what moves into the score region."""
    block = score_ops[0].parent if score_ops else None
    if block is None:
        return []
    inside, made, out = set(score_ops), set(), []
    for o in block.operations:
        if o in inside or o not in softmax_ops and any(v in made for v in o.operands):
            out.append(o)
            made.update(o.results)
    return out


def _between(src, dst):
    """The ops of `dst`'s block that read `src` (directly or through others) and that `dst`
    reads (directly or through others), `dst`'s producer included, in program order."""
    block = dst.owner.parent
    wanted, stack = set(), [dst.owner]
    while stack:                        # what dst reads, in its block
        o = stack.pop()
        if o in wanted or o.parent != block:
            continue
        wanted.add(o)
        stack += [v.owner for v in o.operands if not v.is_block_argument and v != src]
    reached, out = {src}, []
    for o in block.operations:
        if o in wanted and any(v in reached for v in o.operands):
            out.append(o)
            reached.update(o.results)
    return out


def _producers(op):
    return [v.owner for v in op.operands if not v.is_block_argument]


def _erase_unused(ops, erased):
    """Erase those of `ops` (and, in turn, their producers) left without uses: the
    reductions' inits and the like; `erased`: the ops erased already."""
    stack = list(ops)
    while stack:
        o = stack.pop()
        if o in erased or o.uses or not o.has_trait(PURE):
            continue
        stack += _producers(o)
        erased.add(o)
        o.erase()


PASS = Pass("raise-attention", _run,
            "Raise each decomposed attention pattern into one tensor.attention")
