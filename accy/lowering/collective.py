"""Warp and block collectives for kl kernels: all-reductions whose combination order is fixed
by lane, warp and slice index, so that a reduction gives the same bits on every run and every
thread of a group ends with the same value (a row pipeline's threads all need the row's sum).

Values travel as lists (the several accumulators of a variadic reduce) and are merged by
`combine(left, right) -> list`, where `left` always covers lower indices than `right`: a body
that is associative but not commutative keeps its order, and a commutative one gets one fixed
tree. The parts combined are the threads' partials in index order, so an all-reduce over the
lanes of a warp combines lane 0 .. lane n-1 as ((0 1) (2 3)) ((4 5) (6 7)) ... (an xor
butterfly over offsets 1, 2, 4, ...: at each step the half with the lower lanes is the left
operand).

Not every thread need hold data: `count` (None: all do) is how many leading threads of the
group do, a Python int or an i32 kl value; the others' values are left out (their garbage never
reaches a result). Combining a group that holds nothing gives garbage, which the callers never
read.

The same pattern serves a scan's block-level step: the per-warp totals through shared memory,
then one ordered combination that every warp repeats.
"""
from accy.lowering.kl import pointee

WARP = 32


def _i32(kb, value):
    return kb.constant(value, "i32") if isinstance(value, int) else kb.convert(value, "i32")


def storage_dtype(dtype):
    """The dtype an accumulator of `dtype` is kept as in memory (i1 has no memory form)."""
    return "u8" if dtype == "i1" else dtype


def store_value(kb, value, ptr, index):
    """Store accumulator `value` into an array of its `storage_dtype`."""
    kb.store(kb.convert(value, pointee(ptr.type)), ptr, index)


def store_where(kb, cond, stores):
    """`kl.store` each (value, pointer, index) of `stores` where i1 `cond` holds (None:
    everywhere); the values and indices are computed before, outside the branch."""
    def write(kb):
        for value, ptr, index in stores:
            kb.store(value, ptr, index)
    if cond is None:
        write(kb)
    else:
        kb.if_(cond, write)


def load_value(kb, ptr, index, dtype):
    """Load an accumulator of `dtype` stored by `store_value`."""
    return kb.convert(kb.load(ptr, index), dtype)


def warp_allreduce(kb, values, combine, width, lane, count=None):
    """All-reduce `values` over each aligned group of `width` lanes of a warp (a power of two
    up to 32), in lane order: every lane of the group ends with the group's total. `lane` is
    the i32 lane index within the group; `count` as in the module doc."""
    if isinstance(count, int) and count >= width:
        count = None
    k = 1
    while k < width:
        theirs = [kb.shuffle("xor", v, kb.constant(k, "i32")) for v in values]
        lower = kb.cmp("EQ", kb.op("and", lane, kb.constant(k, "i32")), kb.constant(0, "i32"))
        left = [kb.op("select", lower, mine, other) for mine, other in zip(values, theirs)]
        right = [kb.op("select", lower, other, mine) for mine, other in zip(values, theirs)]
        merged = combine(left, right)
        if count is not None:           # the upper half holds data only below `count`
            upper = kb.op("add", kb.op("and", lane, kb.constant(~(2 * k - 1), "i32")),
                          kb.constant(k, "i32"))
            has = kb.cmp("LT", upper, _i32(kb, count))
            merged = [kb.op("select", has, m, a) for m, a in zip(merged, left)]
        values = merged
        k *= 2
    return values


def block_allreduce(kb, values, combine, threads, tid, count=None):
    """All-reduce `values` over a block of `threads` threads (a multiple of 32; `tid` the i32
    thread index): each warp's butterfly, the warps' totals through shared memory, then every
    warp combines those totals in warp order, so every thread ends with the block's total.
    Every thread of the block must call it (it waits at barriers)."""
    warps = threads // WARP
    lane = kb.op("and", tid, kb.constant(WARP - 1, "i32"))
    warp = kb.op("shr", tid, kb.constant(5, "i32"))
    if isinstance(count, int) and count >= threads:
        count = None
    in_warp = None if count is None else \
        kb.op("sub", _i32(kb, count), kb.op("mul", warp, kb.constant(WARP, "i32")))
    values = warp_allreduce(kb, values, combine, WARP, lane, in_warp)
    if warps == 1:
        return values
    totals = [kb.shared(storage_dtype(v.type.dtype), warps) for v in values]
    first = kb.cmp("EQ", lane, kb.constant(0, "i32"))
    at = kb.convert(warp, "i64")
    store_where(kb, first, [(kb.convert(v, pointee(t.type)), t, at)
                            for v, t in zip(values, totals)])
    kb.barrier()
    width = 1 << (warps - 1).bit_length()
    slot = kb.op("min", kb.op("and", lane, kb.constant(width - 1, "i32")),
                 kb.constant(warps - 1, "i32"))
    slot = kb.convert(slot, "i64")
    loaded = [load_value(kb, t, slot, v.type.dtype) for v, t in zip(values, totals)]
    if count is None:
        holding = warps
    elif isinstance(count, int):
        holding = -(-count // WARP)
    else:
        holding = kb.op("div", kb.op("add", _i32(kb, count), kb.constant(WARP - 1, "i32")),
                        kb.constant(WARP, "i32"))
    group_lane = kb.op("and", lane, kb.constant(width - 1, "i32"))
    out = warp_allreduce(kb, loaded, combine, width, group_lane, holding)
    kb.barrier()                        # the totals' slots are written again by the next call
    return out


def column_allreduce(kb, values, combine, x, y, columns, height, count=None):
    """All-reduce `values` over the `height` threads of each column of a (columns x height)
    block (`x`, `y` the i64 thread coordinates): the partials through shared memory, then each
    thread folds its column's partials in y order. `count`: how many leading y hold data (an
    int; None: all). Every thread of the block must call it."""
    n = height if count is None else min(count, height)
    slots = [kb.shared(storage_dtype(v.type.dtype), columns * height) for v in values]
    mine = kb.op("add", kb.op("mul", y, kb.constant(columns, "i64")), x)
    for v, s in zip(values, slots):
        store_value(kb, v, s, mine)
    kb.barrier()
    out = None
    for k in range(n):
        at = kb.op("add", x, kb.constant(k * columns, "i64"))
        part = [load_value(kb, s, at, v.type.dtype) for v, s in zip(values, slots)]
        out = part if out is None else combine(out, part)
    kb.barrier()                        # the slots are written again by the next call
    return out
