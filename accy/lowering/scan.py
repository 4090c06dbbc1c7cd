"""Lowering of `scan` work items to a `kl.kernel`, one thread per row (the serial schedule):
a row is every element along the scan's dimension, so a thread takes a row (a grid-stride loop
over rows) and walks it in the reference interpreter's order (backwards for a reverse scan),
carrying the accumulator: an inclusive scan writes the accumulator after each step, an
exclusive one before it. The scan's elementwise producers run as each element is read, its
consumers as each result is made, and every output (all of the scan's shape) is written at
the element the step is at, so the results are the reference's bit for bit wherever the
arithmetic is.

This is the correctness baseline; the block and multi-block schedules of the outline's launch
(warp scans with shuffles, decoupled look-back) are a later lowering of the same items.
"""
import math

from accy.lowering.elementwise import Lowering, identity_index, start_kernel
from accy.lowering.rows import lower_body
from accy.passes.shape_layout import row_major_strides


def lower_scan(context, block, outline, item, layout, target=None):
    """Write the kernel of scan `item` into `block`; it takes the item's inputs and outputs
    (pointers), then one i64 per outline scalar."""
    scan = item.hero
    shape = scan.result_types[0].shape
    axis = scan.attributes["dimension"]
    exclusive = scan.attributes.get("exclusive", False)
    reverse = scan.attributes.get("reverse", False)
    rank, length = len(shape), shape[axis]
    keep = [d for d in range(rank) if d != axis]
    rows_shape = [shape[d] for d in keep]
    kb, pointers = start_kernel(context, block, outline, item)
    at = identity_index(rank)

    def row_body(kb, r):
        lowering = Lowering(kb, layout, pointers, item)
        root = [kb.constant(0, "i64")] * rank
        for d, v in zip(keep, lowering.unravel(r, rows_shape)):
            root[d] = v
        lowering.root = root
        init = lowering.value(scan.operands[1], (), False)

        def step(kb, j, acc):
            lowering.push()
            root[axis] = kb.op("sub", kb.constant(length - 1, "i64"), j) if reverse else j
            x = lowering.value(scan.operands[0], at, False)
            (new,) = lower_body(lowering, scan.regions[0].entry, [acc, x])
            lowering.remember(scan.results[0], acc if exclusive else new)
            linear = lowering.materialize(("affine", row_major_strides(shape), 0))
            for v in item.outputs:
                kb.store(lowering.value(v, at, False), pointers[v], linear)
            lowering.pop()
            return [new]

        kb.for_(kb.constant(0, "i64"), kb.constant(length, "i64"), kb.constant(1, "i64"),
                [init], step)
        root[axis] = kb.constant(0, "i64")

    kb.for_(kb.global_index(), kb.constant(math.prod(rows_shape), "i64"), kb.grid_size(), [],
            row_body)
    return kb.finish(), math.prod(rows_shape)
