"""The decomposed attention pattern as the fusion planner recognizes it on its graph
(`PlanGraph`): dot_general -> (elementwise score ops) -> max -> subtract -> exp -> sum ->
divide -> (convert) -> dot_general, which becomes one `flash_attention` work item.

    nodes, roles = match_attention(g, dot2)     # or None
"""
import math

from accy.passes.plan_graph import position, row_strides
from accy.passes.shape_layout import row_major_strides
from accy.tensor.build import reduce_kind

# float -> float conversions that keep every value: a sum taken in the wider dtype still sums
# the exps themselves
_EXACT_WIDENING = {("f16", "f32"), ("bf16", "f32"), ("f16", "f64"), ("bf16", "f64"),
                   ("f32", "f64")}


def match_attention(g, dot2):
    """The nodes of dot_general -> (elementwise score ops) -> max -> subtract -> exp -> sum ->
    divide -> (convert) -> dot_general ending at `dot2`, as (nodes, roles), or None; the sum
    may be taken in a wider dtype (exp converted before it, the sum converted back: how an
    f16/bf16 softmax is written). Every link
    reads its producer at the same index (the row max and sum at the same row), the max starts
    from -inf and the sum from 0, and every intermediate is read only inside the pattern."""
    def link(n, i, row=False):
        """The producer operand `i` of `n` reads at its own index (or row), else None."""
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

    def reduction(n, kind, init):
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

    roles = {"values": dot2}
    p = link(dot2, 0)
    if p is not None and p.name == "tensor.convert":
        roles["convert"] = p
        p = link(p, 0)
    if p is None or p.name != "tensor.divide":
        return None
    e, total = link(p, 0), link(p, 1, row=True)
    if total is not None and total.name == "tensor.convert":     # the sum taken in a wider
        roles["narrow"], total = total, link(total, 0)            # dtype (f16/bf16 softmax)
    summed = link(total, 0) if total is not None and total.role == "reduce" else None
    if summed is not None and summed.name == "tensor.convert":
        roles["widen"], summed = summed, link(summed, 0)
    if e is None or e.name != "tensor.exp" or not reduction(total, "sum", 0.0) \
            or summed is not e:
        return None
    exp_dtype, sum_dtype = e.op.result_types[0].dtype, total.op.result_types[0].dtype
    if sum_dtype != exp_dtype and (exp_dtype, sum_dtype) not in _EXACT_WIDENING:
        return None                 # a sum of truncated or rounded exps: not softmax's
    shifted = link(e, 0)
    if shifted is None or shifted.name != "tensor.subtract":
        return None
    z, row_max = link(shifted, 0), link(shifted, 1, row=True)
    if z is None or not reduction(row_max, "max", -math.inf) or link(row_max, 0) is not z:
        return None
    # the score chain: elementwise ops of the score shape from z back to one dot_general,
    # each reading the chain at its own index
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
                if link(n, i) is not q:
                    return None
                stack.append(q)
    if dot1 is None or dot1.shape != full:
        return None
    batch = tuple(range(len(full) - 2))
    for d in (dot1, dot2):
        a = d.op.attributes
        if tuple(a["lhs_batching_dimensions"]) != batch or \
                tuple(a["rhs_batching_dimensions"]) != batch or \
                tuple(a["lhs_contracting_dimensions"]) != (len(full) - 1,):
            return None
    roles.update(scores=dot1, max=row_max, shifted=shifted, exp=e, sum=total, divide=p)
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


# ---- grouping ---------------------------------------------------------------------------------
