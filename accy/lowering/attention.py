"""Lowering of `flash_attention` work items holding a `tensor.attention` op to a `kl.kernel`,
one thread per query row (the correctness baseline): a grid-stride loop over (batch, head,
query); the thread computes each score q·k_j on the fly (accumulated in f64, rounded once to
the compute dtype, as the reference computes a dot), scales, masks and causally hides it, and
makes three passes over the keys: the row maximum, the sum of exp(s - max), then for each
output column the weighted sum of the values, in the decomposition's order and dtypes
(docs/tensor-ops.md), so no score or probability matrix is ever stored. Scores are
recomputed in every pass; the tiled online-softmax kernel on tensor cores (Q resident, K/V
streamed through shared memory) is a later lowering of the same items.

Not lowered here (UnsupportedError: the item runs on the host under the exact tier): the
decomposed attention pattern the planner recognizes (its items carry `roles`).
"""
import math

import numpy as np

from accy.errors import UnsupportedError
from accy.lowering.elementwise import Lowering, start_kernel
from accy.tensor.dialect import ATTENTION_COMPUTE


def lower_attention(context, block, outline, item, layout, target=None):
    """Write the kernel of attention `item` into `block`; it takes the item's inputs and
    outputs (pointers), then one i64 per outline scalar."""
    if item.roles:
        raise UnsupportedError("the decomposed attention pattern is not lowered yet")
    if item.hero.operand_types[0].dtype == "f64":
        raise UnsupportedError("attention on f64 (the PTX emitter has no f64 exp)")
    op = item.hero
    q, k, v = op.operands[:3]
    mask = op.operands[3] if len(op.operands) == 4 else None
    b, h, sq, d = q.type.shape
    sk, dv = k.type.shape[2], v.type.shape[3]
    dtype = q.type.dtype
    ct = ATTENTION_COMPUTE.get(dtype, dtype)
    scale = float(op.attributes["scale"].value)
    causal = bool(op.attributes.get("causal", False))
    kb, pointers = start_kernel(context, block, outline, item)
    (out,) = item.outputs
    # root dims: batch, head, query, key, then the head-dim (or value-column) index
    unit = [("affine", tuple(int(j == i) for j in range(5)), 0) for i in range(5)]
    zero = ("affine", (0,) * 5, 0)
    q_at, k_at, v_at = (unit[0], unit[1], unit[2], unit[4]), \
        (unit[0], unit[1], unit[3], unit[4]), (unit[0], unit[1], unit[3], unit[4])
    mask_at = None
    if mask is not None:        # numpy broadcast onto (b, h, sq, sk), aligned to the right
        dims = mask.type.shape
        mask_at = tuple(zero if n == 1 else unit[4 - len(dims) + i]
                        for i, n in enumerate(dims))

    def row_body(kb, r):
        lowering = Lowering(kb, layout, pointers, item)
        root = lowering.unravel(r, (b, h, sq)) + [kb.constant(0, "i64")] * 2
        lowering.root = root
        const = {}

        def c(value, dt):
            return const[(float(value), dt)]

        # every constant is made here, in the row's scope, so each loop below may use it
        for value, dt in ((0, "i64"), (1, "i64"), (d, "i64"), (sk, "i64"), (dv, "i64"),
                          (0.0, "f64"), (-np.inf, ct), (0.0, ct), (scale, ct)):
            const.setdefault((float(value), dt), kb.constant(value, dt))

        def loop(n, inits, body):
            return kb.for_(c(0, "i64"), c(n, "i64"), c(1, "i64"), inits, body)

        def at(j_or_e, dim, fn):
            """Run `fn` in a scope where root dim `dim` is `j_or_e`."""
            saved = root[dim]
            lowering.push()
            root[dim] = j_or_e
            try:
                return fn()
            finally:
                lowering.pop()
                root[dim] = saved

        def score():
            """The masked, scaled score of the current query and key (in ct)."""
            def term(kb, t, acc):
                def read():
                    x = kb.convert(lowering.value(q, q_at, False), "f64")
                    y = kb.convert(lowering.value(k, k_at, False), "f64")
                    return [kb.op("fma", x, y, acc)]
                return at(t, 4, read)
            (acc,) = loop(d, [c(0.0, "f64")], term)
            s = kb.op("mul", kb.convert(acc, ct), c(scale, ct))
            if mask is not None:
                s = kb.op("add", s, kb.convert(lowering.value(mask, mask_at, False), ct))
            if causal:
                s = kb.op("select", kb.cmp("GT", root[3], root[2]), c(-np.inf, ct), s)
            return s

        def over_keys(inits, step):
            return loop(sk, inits, lambda kb, j, *acc: at(j, 3, lambda: step(score(), *acc)))

        (row_max,) = over_keys([c(-np.inf, ct)], lambda s, m: [kb.op("max", m, s)])
        (total,) = over_keys([c(0.0, ct)],
                             lambda s, t: [kb.op("add", t, kb.op("exp", kb.op("sub", s,
                                                                              row_max)))])

        def column(kb, e):
            def weighted(s, acc):
                p = kb.op("div", kb.op("exp", kb.op("sub", s, row_max)), total)
                p = kb.convert(kb.convert(p, v.type.dtype), "f64")
                return [kb.op("fma", p, kb.convert(lowering.value(v, v_at, False), "f64"), acc)]

            def run():
                (acc,) = over_keys([c(0.0, "f64")], weighted)
                index = kb.op("add", kb.op("mul", r, c(dv, "i64")), e)
                kb.store(kb.convert(kb.convert(acc, ct), out.type.dtype), pointers[out], index)
            at(e, 4, run)
        loop(dv, [], column)

    rows = b * h * sq
    kb.for_(kb.global_index(), kb.constant(rows, "i64"), kb.grid_size(), [], row_body)
    return kb.finish(), math.prod((b, h, sq))
