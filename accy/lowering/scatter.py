"""Lowering of `scatter` work items to a `kl.kernel` (schedule `gather`): a thread per output
element (a grid-stride loop over x's positions). The thread at (a, k, b) (the dims before the
axis, the axis, the dims after) starts from x there and walks every index position i in
row-major order: where indices[i] is k, it applies the update region to its value and
updates[a, i, b]. That is the reference interpreter's order, so every body (set, add, any
other) gives its results bit for bit (an f32 transcendental in it: within its 1 ulp),
duplicates included, and an index out of range matches
no element (it is skipped, as StableHLO skips it). O(number of indices) per element, no
atomics, no workspace.

The operands are the item's inputs (an alone item); values the update region reads from
outside the op are loaded as rank-0 inputs.
"""
import math

from accy.lowering.launch import lowered, plan_thread_per_element
from accy.lowering.rows import lower_body
from accy.lowering.values import Lowering, start_kernel


# a thread per output element
plan_scatter = plan_thread_per_element("gather")


def lower_scatter(context, block, outline, item, layout, target=None):
    op = item.hero
    x, indices, updates = op.operands
    shape, axis = x.type.shape, op.attributes["axis"]
    size, inner, count = shape[axis], math.prod(shape[axis + 1:]), math.prod(indices.type.shape)
    kb, pointers = start_kernel(context, block, outline, item)
    lowering = Lowering(kb, layout, pointers, item)
    region = op.regions[0].entry
    out = pointers[op.results[0]]
    i64 = lambda n: kb.constant(n, "i64")        # noqa: E731

    def element(kb, p):
        b = kb.op("rem", p, i64(inner))
        k = kb.op("rem", kb.op("div", p, i64(inner)), i64(size))
        a = kb.op("div", p, i64(inner * size))
        row = kb.op("add", kb.op("mul", a, i64(count * inner)), b)

        def step(kb, i, acc):
            lowering.push()
            hit = kb.cmp("EQ", kb.convert(kb.load(pointers[indices], i), "i64"), k)
            new = kb.load(pointers[updates], kb.op("add", row, kb.op("mul", i, i64(inner))))
            (combined,) = lower_body(lowering, region, [acc, new])
            lowering.pop()
            return [kb.op("select", hit, combined, acc)]
        (value,) = kb.for_(i64(0), i64(count), i64(1), [kb.load(pointers[x], p)], step,
                           unroll=False)
        kb.store(value, out, p)

    kb.for_(kb.global_index(), i64(math.prod(shape)), kb.grid_size(), [], element)
    return lowered(outline, kb.finish(), outline.schedule)
