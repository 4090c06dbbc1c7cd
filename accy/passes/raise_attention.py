"""`raise-attention`: raise each decomposed attention pattern (dot_general -> elementwise score
ops -> max -> subtract -> exp -> sum -> divide -> (convert) -> dot_general, as
`accy.passes.plan_attention.match_attention` recognizes it on the planner's graph of a block)
into one raised `tensor.attention` (docs/tensor-ops.md): q, k, v the dots' operands, the dots'
dimensions and the softmax's dtypes as attributes, and the score ops moved into its `score`
region, which takes the scores and yields what the max reduces. Values the score ops read from
above (masks, iota masks, constants) stay where they are. The raised op computes what the
pattern computed, op for op (the reference runs it so), so results do not change.

Patterns are raised in every block the planner plans (a function's body and the blocks of its
`iterate` ops), in the order the planner would claim them: the latest dot_general first.
"""
from accy._core.attributes import DictAttr
from accy._core.context import Builder
from accy.passes.core import Pass
from accy.passes.plan_attention import match_attention
from accy.passes.plan_graph import PlanGraph
from accy.passes.shape_layout import shape_layout


def _run(op, ctx):
    raised = 0
    for func in list(op.walk(name="builtin.func")):
        if func.regions[0].entry is None:
            continue
        found = []
        for block in _planned_blocks(func.regions[0].entry):
            found += _patterns(block, shape_layout(ctx, func))
        for roles in found:
            raise_pattern(roles)
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
    """The roles (role name -> op) of the patterns of `block` that do not overlap, the
    latest dot_general's first."""
    names = [op.name for op in block.operations]
    if names.count("tensor.dot_general") < 2 or "tensor.exp" not in names:
        return []           # no pattern: spare the graph
    g = PlanGraph(block, layout)
    taken, found = set(), []
    for n in reversed(g.planned):
        if n.role == "dot" and n not in taken:
            match = match_attention(g, n)
            if match is not None and not taken.intersection(match[0]):
                taken.update(match[0])
                found.append({role: node.op for role, node in match[1].items()})
    return found


def raise_pattern(roles):
    """Replace the pattern named by `roles` (role name -> op, `match_attention`'s roles) by
    one raised `tensor.attention` where its values dot was; returns that op."""
    dot1, dot2 = roles["scores"], roles["values"]
    scores, z = dot1.results[0], roles["max"].operands[0]
    attrs = {"scores": DictAttr(dict(dot1.attributes)), "score_dtype": scores.type.dtype,
             "values": DictAttr(dict(dot2.attributes)),
             "value_dtype": dot2.result_types[0].dtype}
    if roles["sum"].result_types[0].dtype != z.type.dtype:
        attrs["sum_dtype"] = roles["sum"].result_types[0].dtype
    score_ops = _between(scores, z)
    softmax_ops = _between(z, dot2.results[0])
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
        if o in erased or o.uses:
            continue
        stack += _producers(o)
        erased.add(o)
        o.erase()


PASS = Pass("raise-attention", _run,
            "Raise each decomposed attention pattern into one tensor.attention")
