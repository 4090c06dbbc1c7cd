"""Lowering of `reduction` and `row_pipeline` work items to a `kl.kernel`, one thread per row
(the serial schedule): every reduction of the item reduces the same dims D of the same full
shape F, so the item is a set of rows (the dims of F not in D) of length prod(F[D]). A thread
takes a row (a grid-stride loop over rows) and, for each reduction in program order, folds
its row in one pass: the reduction's input is computed element by element from the item's
inputs (its elementwise producers run inside the loop), in the reference interpreter's
order, a sequential left fold in row-major order of the reduced dims, so the results are the
reference's bit for bit wherever the arithmetic is. Row values (reduction results and what
the item computes from them) are then known to the thread; a last pass writes the outputs of
the full shape, and row-shaped outputs are written once per row.

This is the correctness baseline that runs any reduction or row pipeline the planner makes
(column reductions included). The throughput schedules (a warp or a block per row with
shuffles, as the outline's launch describes) are a later lowering of the same items; until
then a row is read from global memory once per pass.
"""
import contextlib
import math

from accy.errors import UnsupportedError
from accy.lowering.elementwise import Lowering, identity_index, start_kernel
from accy.passes.shape_layout import row_major_strides


def lower_rows(context, block, outline, item, layout, target=None):
    """Write the kernel of `item` (kind reduction or row_pipeline) into `block`; the kernel
    takes the item's inputs and outputs (pointers), then one i64 per outline scalar."""
    reduces = [op for op in item.ops if op.name == "tensor.reduce"]
    full = reduces[0].operand_types[0].shape
    dims = sorted(reduces[0].attributes["dimensions"])
    keep = [d for d in range(len(full)) if d not in dims]
    rows_shape = [full[d] for d in keep]
    n_rows = math.prod(rows_shape)
    kb, pointers = start_kernel(context, block, outline, item)
    rank = len(full)
    row_linear = tuple((0 if d in dims else stride) for d, stride in
                       zip(range(rank), _row_strides(full, keep)))

    def row_body(kb, r):
        lowering = Lowering(kb, layout, pointers, item)
        zero = kb.constant(0, "i64")
        root = [zero] * rank
        for d, v in zip(keep, lowering.unravel(r, rows_shape)):
            root[d] = v
        lowering.root = root
        for red in reduces:
            _fold(kb, lowering, red, full, keep)
        lowering.root = root
        full_outputs = []
        for v in item.outputs:
            if v.type.shape == full:
                full_outputs.append(v)
                continue
            if math.prod(v.type.shape) != n_rows:
                raise UnsupportedError(f"work item {item.id}: an output of shape "
                                       f"{v.type.shape} is neither a row nor the full shape")
            idx = _row_index(v.type.shape, keep, full, row_linear)
            kb.store(lowering.value(v, idx, False), pointers[v], r)
        if full_outputs:
            length = math.prod(full[d] for d in dims)

            def element(kb, c):
                with _along(lowering, dims, full, c):
                    linear = lowering.materialize(("affine", row_major_strides(full), 0))
                    for v in full_outputs:
                        kb.store(lowering.value(v, identity_index(rank), False), pointers[v],
                                 linear)
            kb.for_(kb.constant(0, "i64"), kb.constant(length, "i64"),
                    kb.constant(1, "i64"), [], element)

    kb.for_(kb.global_index(), kb.constant(n_rows, "i64"), kb.grid_size(), [], row_body)
    return kb.finish(), n_rows


def _fold(kb, lowering, red, full, keep):
    """One pass over the row folding `red`; its results become row values of `lowering`."""
    order = tuple(sorted(red.attributes["dimensions"]))     # row-major, as the reference
    n = len(red.operands) // 2
    rank = len(full)
    inits = [lowering.value(red.operands[n + j], (), False) for j in range(n)]

    def element(kb, c, *accs):
        with _along(lowering, order, full, c):
            xs = [lowering.value(red.operands[j], identity_index(rank), False)
                  for j in range(n)]
            return lower_body(lowering, red.regions[0].entry, list(accs) + xs)

    length = math.prod(full[d] for d in order)
    results = kb.for_(kb.constant(0, "i64"), kb.constant(length, "i64"),
                      kb.constant(1, "i64"), inits, element)
    for v, value in zip(red.results, results):
        lowering.remember(v, value)


@contextlib.contextmanager
def _along(lowering, dims, full, c):
    """A scope in which the root's `dims` are the row-major multi-index of position `c`
    along them; their row-scope values come back after it."""
    saved = [lowering.root[d] for d in dims]
    lowering.push()
    for d, v in zip(dims, lowering.unravel(c, [full[d] for d in dims])):
        lowering.root[d] = v
    try:
        yield
    finally:
        lowering.pop()
        for d, v in zip(dims, saved):
            lowering.root[d] = v


def lower_body(lowering, block, args):
    """The reduce body's ops on scalars: `args` are the accumulators then the elements."""
    env = dict(zip(block.arguments, args))
    for op in block.operations:
        if op.name == "tensor.yield":
            return [env[v] for v in op.operands]
        ins = [env[v] if v in env else lowering.value(v, (), False) for v in op.operands]
        name = op.name.removeprefix("tensor.")
        if name == "constant":
            env[op.results[0]] = lowering.value(op.results[0], (), False)
            continue
        env[op.results[0]] = lowering.compute(op, name, ins, op.result_types[0].dtype)
    raise UnsupportedError("a reduce body without tensor.yield")


def _row_strides(full, keep):
    """Row-major strides of the kept dims, placed at their positions in the full shape."""
    strides = dict(zip(keep, row_major_strides([full[d] for d in keep])))
    return [strides.get(d, 0) for d in range(len(full))]


def _row_index(shape, keep, full, row_linear):
    """Index expressions of a row value of `shape` (as many elements as rows, at the row's
    row-major position): the kept dims' own indices when its non-unit dims are theirs (the
    form reduction results and keepdims take, so the fold's results are found), else the
    position taken apart."""
    rank = len(full)
    kept = [d for d in keep if full[d] != 1]
    if [n for n in shape if n != 1] == [full[d] for d in kept]:
        dims = iter(kept)
        return tuple(("affine", (0,) * rank, 0) if n == 1 else
                     ("affine", tuple(int(j == d) for j in range(rank)), 0)
                     for n, d in ((n, next(dims) if n != 1 else None) for n in shape))
    return _reshaped(("affine", row_linear, 0), shape, rank)


def _reshaped(linear, shape, rank):
    """Index expressions of a value of `shape` whose row-major position is `linear`."""
    out = []
    for stride, size in zip(row_major_strides(shape), shape):
        if size == 1:
            out.append(("affine", (0,) * rank, 0))
        else:
            e = linear if stride == 1 else ("floordiv", linear, stride)
            out.append(("mod", e, size))
    return tuple(out)
