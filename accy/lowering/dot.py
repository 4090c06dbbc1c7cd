"""Lowering of `dot_general` work items to a `kl.kernel` on the FMA path, one thread per output
element (the correctness baseline): a grid-stride loop over the result; each thread walks the
contracting dims in row-major order accumulating products, then computes the item's epilogue
(bias, activation, scale, residual, convert) at its element and writes every output there.
Any batching, contracting and free dims work, and transposed or broadcast operands are read
through their index maps, never materialized.

Accumulation: under the `exact` tier a float dot accumulates in f64 (operands widened, one
`fma` per product) and rounds once to the result dtype, as the reference interpreter computes
a dot (in f64, rounded once): results match it except where the two f64 sums round to
different sides of a result-dtype midpoint. Integer dots accumulate in i64 and wrap to the
result dtype. Under `fast` a float dot accumulates in f32.

The tiled tensor-core kernels (mma.sync with ldmatrix and cp.async pipelines, the outline's
128 x 128 tiles) are a later lowering of the same items.
"""
import math

from accy.lowering.elementwise import Lowering, start_kernel

FLOATS = ("f64", "f32", "f16", "bf16")


def lower_dot(context, block, outline, item, layout, target):
    """Write the kernel of dot_general `item` into `block`; it takes the item's inputs and
    outputs (pointers), then one i64 per outline scalar."""
    dot = item.hero
    a = dot.attributes
    (lhs_shape, rhs_shape), out_shape = (t.shape for t in dot.operand_types), \
        dot.result_types[0].shape
    lb, rb = tuple(a["lhs_batching_dimensions"]), tuple(a["rhs_batching_dimensions"])
    lc, rc = tuple(a["lhs_contracting_dimensions"]), tuple(a["rhs_contracting_dimensions"])
    lfree = [d for d in range(len(lhs_shape)) if d not in lb and d not in lc]
    rfree = [d for d in range(len(rhs_shape)) if d not in rb and d not in rc]
    rank = len(out_shape)
    extended = rank + len(lc)               # root dims: the result's, then the contracted ones
    unit = [("affine", tuple(int(j == i) for j in range(extended)), 0) for i in range(extended)]

    def operand_index(shape, batch, free, contract, free_at):
        out = []
        for d in range(len(shape)):
            if d in batch:
                out.append(unit[batch.index(d)])
            elif d in contract:
                out.append(unit[rank + contract.index(d)])
            else:
                out.append(unit[free_at + free.index(d)])
        return tuple(out)

    lhs_at = operand_index(lhs_shape, lb, lfree, lc, len(lb))
    rhs_at = operand_index(rhs_shape, rb, rfree, rc, len(lb) + len(lfree))
    result_at = tuple(unit[:rank])
    out_dtype = dot.result_types[0].dtype
    acc_dtype = ("f64" if target.math_tier == "exact" else "f32") if out_dtype in FLOATS \
        else "i64"
    if out_dtype == "f64":
        acc_dtype = "f64"
    contracted = [lhs_shape[d] for d in lc]

    kb, pointers = start_kernel(context, block, outline, item)

    def element(kb, linear):
        lowering = Lowering(kb, layout, pointers, item)
        root = lowering.unravel(linear, out_shape) + [kb.constant(0, "i64")] * len(lc)
        lowering.root = root

        def product(kb, k, acc):
            lowering.push()
            for i, v in enumerate(lowering.unravel(k, contracted)):
                root[rank + i] = v
            x = kb.convert(lowering.value(dot.operands[0], lhs_at, False), acc_dtype)
            y = kb.convert(lowering.value(dot.operands[1], rhs_at, False), acc_dtype)
            lowering.pop()
            return [kb.op("fma", x, y, acc)]

        (acc,) = kb.for_(kb.constant(0, "i64"), kb.constant(math.prod(contracted), "i64"),
                         kb.constant(1, "i64"), [kb.constant(0, acc_dtype)], product)
        for i in range(len(lc)):
            root[rank + i] = kb.constant(0, "i64")
        lowering.remember(dot.results[0], kb.convert(acc, out_dtype))
        for v in item.outputs:
            kb.store(lowering.value(v, result_at, False), pointers[v], linear)

    kb.for_(kb.global_index(), kb.constant(math.prod(out_shape), "i64"), kb.grid_size(), [],
            element)
    return kb.finish(), math.prod(out_shape)

