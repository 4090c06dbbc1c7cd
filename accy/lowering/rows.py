"""Lowering of `reduction` and `row_pipeline` work items to a `kl.kernel`.

Every reduction of an item reduces the same dims D of the same full shape F, so the item is a
set of R rows (the dims of F not in D) of length L = prod(F[D]), a row's elements numbered in
row-major order of D. The reductions fall into waves: those that read no other reduction's
result, then those that read only the first wave's, and so on (softmax: max, then the sum of
exp(x - max)); a wave is one pass over the row. Outputs are of the full shape (written at each
element) or row values (written once per row).

Schedules (`plan_rows` picks one, a `RowPlan` holding the launch the kernel gets, and
`lower_rows` follows it; `RowPlan.name` in the report says which one ran):
- `warp per row, ...` / `block per row, ...`: rows whose reduced dims are trailing (each row
  contiguous). The target's row schedule gives T threads per row: up to 32 pack 256 / T rows
  in a block of 256 threads (a warp or part of one per row), more take a block of T threads
  per row. Each thread folds its slice of the row, then the threads' partials are combined by
  an ordered warp butterfly and, for a block, the warps' totals through shared memory
  (`accy.lowering.collective`); every thread of the row ends with the result, so a row
  pipeline's later passes and outputs use it at once. What follows the comma says where a row
  pipeline's row is between passes: `registers` when T x elements_per_thread covers the row
  (each thread's elements unrolled, their values kept from pass to pass), `shared` when the row
  does not fit in registers but what later passes read of it fits the static shared memory for
  the block's rows (the target's `static_shared`; each pass keeps there what later passes read,
  `_staging`: softmax's x, then exp(x - max)), else `streamed` (every pass reads and recomputes
  from global memory).
- `column`: reduced dims not trailing (a reduction item): blocks of 32 x 8 threads, the 32
  threads of a warp on 32 consecutive rows (consecutive addresses when the kept dims are the
  inner ones), the 8 warps each folding a slice of the reduced positions; the 8 partials of a
  row are combined through shared memory in warp order.
- `split row`: a reduction item with few long rows (the outline's `splits` scalar): grid
  (splits, rows) of 1024-thread blocks, each folding a chunk of its row into a partial in the
  workspace; each block then takes a ticket from the row's counter there (an integer atomic),
  and the block that takes the last ticket combines all partials in chunk order and writes the
  row's outputs. No float atomics: the result does not depend on timing.
- `serial` (the fallback for what the others do not take: empty rows or no rows, a split row
  whose results another pass would need): a thread per row, each reduction folded in one pass
  in the reference interpreter's order (a sequential left fold in row-major order of the
  reduced dims), so its results are the reference's bit for bit wherever the arithmetic is.

A thread's slice: with a commutative body (every named kind: sum, prod, max, min, and, or,
argmax, argmin; `reduce_kind`) the thread takes every T-th element starting at its own index,
so consecutive threads read consecutive addresses; with any other body (associative but
perhaps not commutative) it takes a contiguous chunk, and chunks are combined in order. A
thread's partial starts from its first element and folds the rest in element order; a thread
with no element is left out of the combination; the row's result is body(init, total), which
is the reference's fold from init by associativity. The fold order is fixed by the schedule,
so results do not vary from run to run; floats differ from the reference's sequential fold by
rounding, integers are exact.

Grids are capped at `MAX_BLOCKS` blocks (accy/lowering/launch.py); every block strides over the
tiles of rows its grid does not cover, all of its threads the same number of times (shuffles
and barriers need the whole warp and block); a thread whose tile runs past the last row
computes the last row again and stores nothing. Every kernel declares its block size
(`max_threads`), so ptxas keeps a 1024-thread block's registers within the block's share.
"""
import contextlib
import functools
import math
from dataclasses import dataclass, field, replace

from accy._core.types import numpy_dtype
from accy.errors import AccyError, UnsupportedError
from accy.lowering.collective import (block_allreduce, column_allreduce, load_value,
                                      storage_dtype, store_value, store_where, warp_allreduce)
from accy.lowering.kl import KernelBuilder, pointee, ptr_type, scalar
from accy.lowering.launch import (GRID_YZ_LIMIT, MAX_BLOCKS, THREADS, KernelPlan, Launch,
                                  NoKernel, baseline_launch, blocks, capped_grid, lowered)
from accy.lowering.values import (MOVE, Affine, FloorDiv, Leaf, Lowering, Mod, Sum, direct_op,
                                  identity_index, position_expression)
from accy.passes.schedule import trailing
from accy.passes.shape_layout import row_major_strides
from accy.tensor.build import reduce_kind

MAX_SLOTS = 16              # most elements a thread holds in registers, unrolled
SPLIT_THREADS = 1024        # threads of a split row's block (the outline's launch)
SPLIT_ROW = 32 * 1024       # elements one block of a split row reduction covers
COLUMNS, SLICES = 32, 8     # a column block: 32 rows x 8 slices of the reduced positions


@dataclass(frozen=True)
class RowPlan:
    """The schedule `plan_rows` picks for a row item, which `lower_rows` follows: `kind` is
    serial, column, split row (over `splits` blocks a row) or packed (`threads` a row, the row
    kept in `storage`: registers, shared or streamed; see the module doc); `launch` is the
    launch the kernel gets and `workspace` its scratch bytes (a split row's tickets and
    partials); `shape`: the RowShape it was picked for, kept so that the lowering does not
    work it out again."""
    kind: str
    launch: Launch
    threads: int = 0
    storage: str = None
    splits: int = 0
    workspace: int = 0
    shape: object = field(default=None, compare=False, repr=False)

    @property
    def name(self):
        """The schedule's name, as the report shows it."""
        if self.kind == "packed":
            return f"{'warp' if self.threads <= 32 else 'block'} per row, {self.storage}"
        return self.kind


def plan_rows(item, layout, target):
    """The KernelPlan of `item` (its layout is not needed: rows are planned from the hero's
    shape): scalars `rows`, `row_length` and, for a reduction of fewer
    rows than 2 x the target's SMs, rows longer than SPLIT_ROW, `splits`, the blocks each row
    is split over; the launch domain, whose shared memory holds the warps' partials, and a row
    pipeline's row when it does not fit in registers but fits the target's shared memory per
    block; and the RowPlan (a NoKernel when the item is no set of rows the lowering takes)."""
    scalars, launch = _domain(item, target)
    return KernelPlan(tuple(scalars), launch,
                      _schedule_of(item, dict(scalars).get("splits"), target))


def _schedule_of(item, splits, target):
    try:
        shape = RowShape.of(item)
    except UnsupportedError as e:
        return NoKernel(str(e))
    return replace(_choose(shape, splits, target), shape=shape)


def _domain(item, target):
    hero = item.hero
    full = hero.operand_types[0].shape
    dims = tuple(sorted(hero.attributes["dimensions"]))
    dtype = hero.operand_types[0].dtype
    row = math.prod(full[d] for d in dims)
    rows = math.prod(full) // max(row, 1) if row else 0
    scalars = [("rows", rows), ("row_length", row)]
    if not trailing((full, dims)):              # a column reduction
        return scalars, Launch(capped_grid(blocks(rows, COLUMNS)), (COLUMNS, SLICES, 1),
                               COLUMNS * SLICES * 4 * 2)
    s = target.row_schedule(row, dtype)
    if item.kind == "reduction" and rows < 2 * target.facts.sms and row > SPLIT_ROW:
        splits = min(1024, blocks(row, SPLIT_ROW))
        return scalars + [("splits", splits)], Launch(capped_grid(splits, max(rows, 1)),
                                                       (SPLIT_THREADS, 1, 1), 32 * 8)
    staged = 0
    if item.kind == "row_pipeline" and s.threads_per_row * s.elements_per_thread < row:
        staged = row * numpy_dtype(dtype).itemsize
        per_block = max(1, THREADS // s.threads_per_row) if s.threads_per_row <= 32 else 1
        if staged * per_block > target.facts.max_shared_per_block:
            staged = 0                          # too long: each pass reads the row again
    if s.threads_per_row <= 32:
        per_block = THREADS // s.threads_per_row
        return scalars, Launch(capped_grid(blocks(rows, per_block)), (THREADS, 1, 1),
                               staged * per_block)
    warps = -(-s.threads_per_row // 32)
    return scalars, Launch(capped_grid(max(rows, 1)), (s.threads_per_row, 1, 1),
                           warps * 8 + staged)


def lower_rows(context, block, outline, item, layout, target=None):
    """Write the kernel of `item` (kind reduction or row_pipeline) into `block`; the kernel
    takes the item's inputs and outputs (pointers), then one i64 per outline scalar (then the
    workspace pointer, for a split row), under the schedule its outline's plan picked.
    Returns its LoweredKernel."""
    plan = outline.schedule
    if isinstance(plan, NoKernel):
        plan.refuse()
    shape = plan.shape if plan.shape is not None else RowShape.of(item)
    schedule = _follow(shape, plan)
    if schedule is None:
        return _lower_serial(context, block, outline, shape, layout)
    return schedule.lower(context, block, outline, shape, layout)


@dataclass(frozen=True)
class RowShape:
    """A reduction or row_pipeline item as rows: its reductions in waves, and its outputs by
    when they can be written."""
    item: object
    reduces: tuple
    full: tuple             # F
    dims: tuple             # D, sorted
    keep: tuple             # the dims of F not in D
    rows: int               # R
    length: int             # L
    waves: tuple            # tuples of reduces; a wave reads only earlier waves' results
    ordered: bool           # some body is not known commutative: contiguous slices
    early: tuple            # full-shape outputs that read no reduction result
    late: tuple             # full-shape outputs that do
    row_outputs: tuple      # outputs with one element per row
    staged: tuple           # `Staged` values: what passes keep for later passes (`_staging`)

    @staticmethod
    def of(item):
        reduces = tuple(op for op in item.ops if op.name == "tensor.reduce")
        full = tuple(reduces[0].operand_types[0].shape)
        dims = tuple(sorted(reduces[0].attributes["dimensions"]))
        keep = tuple(d for d in range(len(full)) if d not in dims)
        rows = math.prod(full[d] for d in keep)
        fulls, row_outputs = [], []
        for v in item.outputs:
            if v.type.shape == full:
                fulls.append(v)
            elif math.prod(v.type.shape) == rows:
                row_outputs.append(v)
            else:
                raise UnsupportedError(f"work item {item.id}: an output of shape "
                                       f"{v.type.shape} is neither a row nor the full shape")
        graph = _Dependences(item)
        results = [r for red in reduces for r in red.results]
        late = tuple(v for v in fulls if graph.reads(v, results))
        waves = _waves(graph, reduces)
        return RowShape(item, reduces, full, dims, keep, rows,
                        math.prod(full[d] for d in dims), waves,
                        any(reduce_kind(r) is None for r in reduces),
                        tuple(v for v in fulls if v not in late), late, tuple(row_outputs),
                        _staging(item, graph, full, waves, bool(late)))

    @property
    def rank(self):
        return len(self.full)

    @property
    def row_shape(self):
        return [self.full[d] for d in self.keep]

    @property
    def along(self):
        return [self.full[d] for d in self.dims]


class _Dependences:
    """Which values of an item are computed from which (through its ops and the regions'
    captured values). Each value's sources are one integer, a bit per value, made once from
    its operands' (an item of thousands of ops walked each query again and again)."""

    def __init__(self, item):
        self.ops = set(item.ops)
        self.bits = {}          # value -> its bit's position
        self.closures = {}      # barriers -> {value: bits of every value it is computed from,
        #                         itself included, through no op named in barriers}
        self.sources = {}       # op -> the values it reads (`_sources`)

    def reads(self, value, targets, barriers=()):
        """Whether `value` is computed from one of `targets`, through no op named in
        `barriers`."""
        closure = self._closure(value, tuple(barriers))
        for t in targets:
            bit = self.bits.get(t)
            if bit is not None and closure >> bit & 1:
                return True
        return False

    def _closure(self, value, barriers):
        table = self.closures.get(barriers)
        if table is None:
            table = self.closures[barriers] = {}
        found = table.get(value)
        if found is not None:
            return found
        stack, entered = [value], set()
        while stack:                        # each value after the values it reads
            v = stack[-1]
            if v in table:
                stack.pop()
                continue
            bit = self.bits.get(v)
            if bit is None:
                bit = self.bits[v] = len(self.bits)
            owner = v.owner
            if owner not in self.ops or owner.name in barriers:
                table[v] = 1 << bit
                stack.pop()
                continue
            reads = self.sources.get(owner)
            if reads is None:
                reads = self.sources[owner] = tuple(_sources(owner))
            if v not in entered:
                entered.add(v)
                pending = [s for s in reads if s not in table]
                if pending:
                    stack += pending
                    continue
            elif any(s not in table for s in reads):
                raise AccyError(f"internal error: a value of '{owner.name}' is computed from "
                                f"itself")
            closure = 1 << bit
            for s in reads:
                closure |= table[s]
            table[v] = closure
            stack.pop()
        return table[value]


def _sources(op):
    """The values `op` reads, those its regions capture included."""
    yield from op.operands
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield from _sources(inner)


@dataclass(frozen=True)
class Staged:
    """A full-shape value a `shared` row pipeline keeps: computed and stored in pass `written`,
    read back by the passes after it up to pass `last`."""
    value: object
    written: int
    last: int


def _staging(item, graph, full, waves, late):
    """The values that a pass computes and a later pass reads again: full-shape values made
    from the rows' own data (an input as large as the full shape, not broadcast). Softmax
    keeps x in the pass of its max and exp(x - max) in the pass of its sum; layer_norm its
    widened x, then x - mean. A value's earliest pass follows the waves whose results it
    reads; an op's pass is when it can first be computed (a reduce's: its wave's)."""
    wave_of = {r: w for w, wave in enumerate(waves) for red in wave for r in red.results}
    final = len(waves) - 1 + late

    def earliest(v):
        return max((w + 1 for r, w in wave_of.items() if graph.reads(v, (r,))), default=0)

    size = math.prod(full)
    rows = [v for v in item.inputs if math.prod(v.type.shape) >= size]
    last = {}
    for op in item.ops:
        if op.name == "tensor.reduce":
            at = wave_of[op.results[0]]
        elif any(r.type.shape == full for r in op.results):
            at = min(earliest(op.results[0]), final)
        else:
            continue
        for v in op.operands:
            if v.type.shape == full and graph.reads(v, rows, ("tensor.broadcast_in_dim",)):
                last[v] = max(last.get(v, 0), at)
    return tuple(Staged(v, earliest(v), read) for v, read in last.items()
                 if read > earliest(v))


def _stage_slots(staged):
    """Shared arrays for `staged` values: a value takes the array of one of its dtype whose
    value is read for the last time no later than the pass that writes it (the pass reads
    before it writes); else an array of its own. Returns (the arrays' storage dtypes,
    {value: array index})."""
    dtypes, free_after, slot = [], [], {}
    for s in sorted(staged, key=lambda s: s.written):
        dtype = storage_dtype(s.value.type.dtype)
        k = next((k for k, d in enumerate(dtypes) if d == dtype and free_after[k] <= s.written),
                 None)
        if k is None:
            k = len(dtypes)
            dtypes.append(dtype)
            free_after.append(0)
        free_after[k], slot[s.value] = s.last, k
    return tuple(dtypes), slot


def _waves(graph, reduces):
    depth = {}
    for red in reduces:                     # program order: what a reduce reads comes first
        before = [depth[r] for r in depth if any(graph.reads(s, r.results)
                                                  for s in _sources(red))]
        depth[red] = 1 + max(before, default=-1)
    return tuple(tuple(r for r in reduces if depth[r] == d)
                 for d in range(max(depth.values()) + 1))


def _choose(shape, splits, target):
    """The RowPlan for `shape` (`splits`: the domain's blocks per split row, or None)."""
    serial = RowPlan("serial", baseline_launch(shape.rows))
    if shape.rows == 0 or shape.length == 0:
        return serial
    if not trailing((shape.full, shape.dims)):
        return RowPlan("column", Launch((min(blocks(shape.rows, COLUMNS), MAX_BLOCKS), 1, 1),
                                        (COLUMNS, SLICES, 1)))
    if splits is not None:
        if len(shape.waves) != 1 or shape.late:
            return serial
        return RowPlan("split row", Launch((splits, min(shape.rows, GRID_YZ_LIMIT), 1),
                                           (SPLIT_THREADS, 1, 1)),
                       splits=splits, workspace=_split_layout(shape, splits)[-1])
    row = target.row_schedule(shape.length, shape.item.hero.operand_types[0].dtype)
    threads = row.threads_per_row
    slots = -(-shape.length // threads)
    if slots <= min(row.elements_per_thread, MAX_SLOTS):
        return _packed(shape, threads, "registers")
    stage_bytes = sum(_aligned(_rows_per_block(threads) * shape.length * numpy_dtype(d).itemsize)
                      for d in _stage_slots(shape.staged)[0])
    if shape.item.kind == "row_pipeline" and shape.staged and \
            stage_bytes + _collective_bytes(shape, threads) <= target.facts.static_shared:
        return _packed(shape, threads, "shared")
    return _packed(shape, threads, "streamed")


def _packed(shape, threads, storage):
    """The packed RowPlan of `threads` a row: 256 / T rows a block up to a warp, else a block
    a row; blocks stride over the row tiles past MAX_BLOCKS."""
    per_block = _rows_per_block(threads)
    return RowPlan("packed", Launch((min(blocks(shape.rows, per_block), MAX_BLOCKS), 1, 1),
                                    (threads * per_block, 1, 1)), threads, storage)


def _rows_per_block(threads):
    """Rows a packed block of `threads` a row takes: 256 / T up to a warp, else one."""
    return THREADS // threads if threads <= 32 else 1


def _split_layout(shape, splits):
    """(reduction dtypes, their partials' byte offsets, bytes) of a split row's workspace: a
    ticket counter per row (i32), then per accumulator the blocks' partials, [row][block]."""
    types = [t.dtype for red in shape.waves[0] for t in red.result_types]
    at, offsets = _aligned(4 * shape.rows), []
    for dtype in types:
        offsets.append(at)
        at += _aligned(shape.rows * splits * numpy_dtype(storage_dtype(dtype)).itemsize)
    return types, offsets, at


def _follow(shape, plan):
    """The schedule that writes `plan` for `shape`, or None for the serial one."""
    if plan.kind == "column":
        return _Column(shape, plan)
    if plan.kind == "split row":
        return _SplitRow(shape, plan)
    if plan.kind == "packed":
        return _PackedRows(shape, plan)
    return None


def _collective_bytes(shape, threads):
    """Shared bytes of the block all-reduces (the warps' totals of each accumulator)."""
    if threads <= 32:
        return 0
    warps = threads // 32
    return sum(_aligned(warps * numpy_dtype(storage_dtype(t.dtype)).itemsize)
               for wave in shape.waves for red in wave for t in red.result_types)


# ---- values of a row and of its elements ----------------------------------------------------

class _RowLowering(Lowering):
    """The values of one row that do not vary along it (reduction results, what the item
    computes from them, weights of the kept dims), computed once per row; `_Element`s of the
    row defer to it. `index` is the row (i64), `ok` whether it is one (None: always)."""

    def __init__(self, kernel, index, ok):
        shape = kernel.shape
        super().__init__(kernel.kb, kernel.layout, kernel.pointers, shape.item,
                         memo=kernel.memo)
        self.main_kb = kernel.kb            # self.kb may be hoisting (`hoisted`)
        self.shape, self.index, self.ok = shape, index, ok
        self.results = set()
        self.start = None if not trailing((shape.full, shape.dims)) else \
            self.kb.op("mul", index, self.kb.constant(shape.length, "i64"))
        self.root = [None] * shape.rank     # the reduced dims: never read at the row scope
        for d, v in zip(shape.keep, _unravel(self.kb, index, shape.row_shape)):
            self.root[d] = v

    @contextlib.contextmanager
    def hoisted(self):
        """Around a pass over the row: row values it asks for first are written before the
        pass's first op (before its loops too: they do not change along the row), in the
        order asked for, and kept for later passes."""
        kb = self.kb
        self.kb = kb.hoisting()
        try:
            yield
        finally:
            self.kb = kb

    @contextlib.contextmanager
    def scoped(self):
        """Inside a branch: what is computed there is forgotten after it."""
        self.push()
        try:
            yield
        finally:
            self.pop()

    def finish(self, reduces, totals):
        """The results of `reduces` from the row's combined `totals`: body(init, total)."""
        at = 0
        for red in reduces:
            n = len(red.results)
            inits = [self.value(red.operands[n + j], (), False) for j in range(n)]
            for v, x in zip(red.results, lower_body(self, red.regions[0].entry,
                                                    inits + totals[at:at + n])):
                self.remember(v, x)
                self.results.add(v)
            at += n

    def store_outputs(self, kernel, guard):
        """Write the row outputs where `guard()` (an i1) holds and the row is one."""
        shape = kernel.shape
        if not shape.row_outputs:
            return
        linear = tuple((0 if d in shape.dims else s) for d, s in
                       enumerate(_row_strides(shape.full, shape.keep)))
        values = [(self.value(v, _row_index(v.type.shape, shape.keep, shape.full,
                                            Affine(linear, 0)), False), kernel.pointers[v])
                  for v in shape.row_outputs]
        where = guard() if self.ok is None else self.kb.op("and", guard(), self.ok)
        store_where(self.kb, where, [(x, p, self.index) for x, p in values])


class _Element(Lowering):
    """The values at one element of a row (`offset` along it, an i64): what varies along the
    row is computed here, the rest comes from the row. `staged`, in a pass of a `shared` row:
    {value kept by an earlier pass: a function loading it at this element}."""

    def __init__(self, row, offset, staged=None):
        super().__init__(row.main_kb, row.layout, row.pointers, row.item, memo=row.memo)
        self.row, self.offset = row, offset
        shape = row.shape
        self.at_root = identity_index(shape.rank)
        self.root = _Root(row.root)
        for d, v in zip(shape.dims, _unravel(self.kb, offset, shape.along)):
            self.root[d] = v
        if row.start is not None:           # a contiguous row: the position is start + offset
            self.root.linear = self.kb.op("add", row.start, offset)
            self.position = position_expression(shape.full)
        self.staged, self.loaded = staged or {}, {}
        self.varying = self.memo.setdefault(_VARYING, {})   # index exprs -> `_varies` of them

    def value(self, v, idx, clamped):
        varies = self.varying.get(idx)
        if varies is None:
            varies = self.varying[idx] = _varies(idx, self.row.shape.dims)
        if not varies or v in self.row.results:
            return self.row.value(v, idx, clamped)
        if v in self.staged and idx == self.at_root:
            if v not in self.loaded:
                self.loaded[v] = self.staged[v]()
            return self.loaded[v]
        return super().value(v, idx, clamped)

    def _operand_reads_to_lower(self, v, idx, clamped):
        varies = self.varying.get(idx)
        if varies is None:
            varies = self.varying[idx] = _varies(idx, self.row.shape.dims)
        if not varies or v in self.row.results or v in self.staged and idx == self.at_root:
            return ()                       # the row's, or staged: lowered where `value` goes
        return super()._operand_reads_to_lower(v, idx, clamped)

    def reduce_inputs(self, reduces):
        return [self.value(red.operands[j], self.at_root, False)
                for red in reduces for j in range(len(red.results))]

    def full_position(self):
        """The element's row-major position in the full shape."""
        return self.materialize(position_expression(self.row.shape.full))


_VARYING = "varying"        # the kernel memo's table of whether index exprs move along the row


class _Root(list):
    """An element's root index (kl i64 per dim); `linear`, when set, its row-major position
    (the Lowering reads it for that expression instead of summing the dims)."""
    linear = None


def _varies(idx, dims):
    """Whether index expressions `idx` depend on the root dims `dims`."""
    for e in idx:
        if _expr_varies(e, dims):
            return True
    return False


def _expr_varies(e, dims):
    if isinstance(e, Affine):
        coeffs = e.coeffs
        for d in dims:
            if coeffs[d]:
                return True
        return False
    if isinstance(e, Leaf):                 # a loaded (gathered) index: taken to vary
        return True
    if isinstance(e, Sum):
        for _, x in e.terms:
            if _expr_varies(x, dims):
                return True
        return False
    return _expr_varies(e.expr, dims)       # FloorDiv, Mod


def _combiner(lowering, reduces):
    """combine(left, right): each reduce's body on its accumulators, `left` first."""
    key = ("bodies", reduces)
    bodies = lowering.memo.get(key)
    if bodies is None:
        bodies = lowering.memo[key] = tuple(
            (len(red.results), body_program(lowering.memo, red.regions[0].entry))
            for red in reduces)

    if len(bodies) == 1 and bodies[0][0] == 1:
        steps, results = bodies[0][1]
        if len(steps) == 1 and steps[0][3] == (0, 1) and results == (2,) and \
                steps[0][4] not in (None, MOVE):
            op = steps[0][4]                # a body of one arithmetic op: sum, max, ...
            return lambda left, right: [lowering.kb.op(op, left[0], right[0])]

    def combine(left, right):
        out, at = [], 0
        for n, program in bodies:
            out += run_body(lowering, program, list(left[at:at + n]) + list(right[at:at + n]))
            at += n
        return out
    return combine


# ---- a thread's walk over its elements of a row -------------------------------------------

class _Walk:
    """The elements of its row one thread visits, the same ones in every pass: `start`,
    `start + step`, ... below `end` (i64 values; a thread may have none, and has none on a row
    past the last). The first `certain` of them are inside the row for every thread (when the
    row is one); a later one may not be, and is then read at the row's last element and left
    out. With `slots` the row is held in registers: that many elements, unrolled, whose values
    persist from pass to pass; else each pass is a loop. With `stage` (the shared arrays of
    `_stage_slots`, the row's base offset in them, and {value: its array}) each pass keeps the
    values `Staged` in it there, and later passes read them back."""

    def __init__(self, kernel, row, slices, slots=None, stage=None):
        self.kernel, self.row, self.kb = kernel, row, kernel.kb
        self.start, self.step, self.end = slices.start, slices.step, slices.end
        self.certain, self.slots, self.stage = slices.certain, slots, stage
        self.begin = slices.start if row.ok is None else \
            self.kb.op("select", row.ok, slices.start, self.kb.constant(
                kernel.shape.length, "i64"))        # on a row past the last: none is in
        self.elements = None
        self.passes = 0

    def fold(self, reduces, stores):
        """One pass: the partials of `reduces` (their accumulators in a list) over the
        thread's elements, storing the full-shape values `stores` at each element."""
        with self.row.hoisted():
            out = self._unrolled(reduces, stores) if self.slots else \
                self._looped(reduces, stores)
        self.passes += 1
        return out

    def _unrolled(self, reduces, stores):
        kb = self.kb
        if self.elements is None:
            self.elements = [self._slot(k) for k in range(self.slots)]
            self.copies = _copies(kb, self.elements, self.certain)
            self.templates = {copy[0] for copy in self.copies if copy is not None}
        accs = None
        written = {}            # template element -> (its inputs segment, xs, its stores segment)
        for i, (element, valid) in enumerate(self.elements):
            copy, template = self.copies[i], i in self.templates
            if copy is None:
                if template:
                    kb.record()
                xs = element.reduce_inputs(reduces)
                inputs = kb.recorded() if template else None
            else:
                inputs, xs, stored = written[copy[0]]
                kb.replay(inputs, copy[1])
                xs = kb.mapped(xs, copy[1])
            if accs is None:
                accs = xs
            elif xs:
                merged = _combiner(element, reduces)(accs, xs)
                accs = merged if valid is None else \
                    [kb.op("select", valid, m, a) for m, a in zip(merged, accs)]
            if copy is not None:
                kb.replay(stored, copy[1])
                continue
            if template:
                kb.record()
            self._store(element, stores, valid)
            if template:
                written[i] = (inputs, xs, kb.recorded())
        return accs

    def _looped(self, reduces, stores):
        kb = self.kb
        first, valid = self._slot(0)
        xs = first.reduce_inputs(reduces)
        self._keep_staged(first, valid)
        self._store(first, stores, valid)

        def body(kb, j, *accs):
            element = self._element(j, None)
            xs = element.reduce_inputs(reduces)
            self._keep_staged(element, None)
            self._store(element, stores, None)
            return _combiner(element, reduces)(list(accs), xs)
        return kb.for_(kb.op("add", self.begin, kb.constant(self.step, "i64")), self.end,
                       kb.constant(self.step, "i64"), xs, body)

    def _slot(self, k):
        """(the thread's k-th element, the i1 that says it is in, None when it surely is)."""
        kb = self.kb
        if k < self.certain:
            return self._element(self._nth(self.start, k), self.row.ok), self.row.ok
        position = self._nth(self.begin, k)
        valid = kb.cmp("LT", position, self.end)
        at = kb.op("min", position, kb.constant(self.kernel.shape.length - 1, "i64"))
        return self._element(at, valid), valid

    def _nth(self, first, k):
        return first if k == 0 else self.kb.op("add", first, self.kb.constant(k * self.step,
                                                                              "i64"))

    def _element(self, position, valid):
        staged = None
        if self.stage is not None:
            arrays, base, slot = self.stage
            at = self.kb.op("add", base, position)
            staged = {s.value: functools.partial(self._read_staged, arrays[slot[s.value]], at,
                                                 s.value.type.dtype, valid)
                      for s in self.kernel.shape.staged if s.written < self.passes <= s.last}
        return _Element(self.row, position, staged)

    def _read_staged(self, array, at, dtype, valid):
        if valid is None:
            return load_value(self.kb, array, at, dtype)
        return self.kb.if_(valid, lambda kb: [load_value(kb, array, at, dtype)],
                           lambda kb: [kb.constant(0, dtype)],    # never staged: past the row
                           [scalar(dtype)])[0]

    def _keep_staged(self, element, valid):
        """Store this pass's `Staged` values at the element, after computing all of them (an
        array's value may be read here for the last time before it is written over)."""
        if self.stage is None:
            return
        arrays, base, slot = self.stage
        kept = [s.value for s in self.kernel.shape.staged if s.written == self.passes]
        if not kept:
            return
        values = [element.value(v, element.at_root, False) for v in kept]
        at = self.kb.op("add", base, element.offset)
        store_where(self.kb, valid, [(self.kb.convert(x, pointee(arrays[slot[v]].type)),
                                      arrays[slot[v]], at) for v, x in zip(kept, values)])

    def _store(self, element, stores, valid):
        if not stores:
            return
        at = element.full_position()
        store_where(self.kb, valid, [(element.value(v, element.at_root, False),
                                      self.kernel.pointers[v], at) for v in stores])


def _copies(kb, elements, certain):
    """Which of a walk's unrolled elements are written as a copy of another: each element's
    ops are the same program at its own offset, so within the elements surely inside the row
    (the first `certain`) and within the rest, the first with an offset op of its own (k >= 1)
    is written and the later ones copy its ops pass by pass. For each element: None (written),
    or (the element it copies, a ValueMap from that element's values to its own), seeded with
    the values an element is made of (offset, root, position, validity) and grown by each
    replay."""
    out, template = [], {}
    for k, (element, valid) in enumerate(elements):
        cls = k < certain
        t = template.get(cls)
        if t is None:
            out.append(None)
            if k >= 1:
                template[cls] = k
            continue
        out.append((t, kb.value_map(zip(_made_of(*elements[t]), _made_of(element, valid)))))
    return out


def _made_of(element, valid):
    """The kl values an `_Element` is built from, the same list for every element of a walk."""
    dims = element.row.shape.dims
    out = [element.offset] + [element.root[d] for d in dims]
    if element.root.linear is not None:
        out.append(element.root.linear)
    if valid is not None:
        out.append(valid)
    return out


@dataclass(frozen=True)
class _Slices:
    """How a thread walks its part of a row (see `_Walk`); `holding`: how many leading
    threads have elements (None: all)."""
    start: object
    step: int
    end: object
    holding: object
    certain: int


def _slices(kb, index, threads, length, ordered, slots=1):
    """The `_Slices` of thread `index` (i64) of `threads` sharing `length` elements: every
    threads-th element from its own index, or for an ordered body the least contiguous chunk
    that covers the row. `slots`: how many of its elements are looked at for `certain`."""
    end = kb.constant(length, "i64")
    if not ordered:
        last = [threads - 1 + k * threads for k in range(slots)]
        return _Slices(index, threads, end, _unless_all(min(length, threads), threads),
                       sum(p < length for p in last))
    chunk = -(-length // threads)
    start = kb.op("mul", index, kb.constant(chunk, "i64"))
    last = [(threads - 1) * chunk + k for k in range(min(slots, chunk))]
    return _Slices(start, 1, kb.op("min", kb.op("add", start, kb.constant(chunk, "i64")), end),
                   _unless_all(-(-length // chunk), threads), sum(p < length for p in last))


def _unless_all(holding, threads):
    """`holding` threads of `threads` have elements: None when all do."""
    return None if holding >= threads else holding


# ---- schedules -----------------------------------------------------------------------------

class _Kernel:
    """The kernel being written: its builder, its pointers and the item's rows."""

    def __init__(self, context, block, outline, shape, layout, workspace=False):
        item = shape.item
        params = [ptr_type(v.type.dtype) for v in item.inputs + item.outputs]
        params += [scalar("i64")] * len(outline.scalars)
        params += [ptr_type("i32")] if workspace else []
        self.kb = KernelBuilder(context, block, outline.name, params)
        self.outline = outline
        self.pointers = dict(zip(list(item.inputs) + list(item.outputs), self.kb.params))
        self.workspace = self.kb.params[-1] if workspace else None
        self.shape, self.layout = shape, layout
        self.memo = {}      # the `Lowering.memo` its rows and their elements share

    def finish(self, plan):
        """The LoweredKernel launched as RowPlan `plan` says, declared for its blocks' size."""
        self.kb.kernel.set_attribute("max_threads", math.prod(plan.launch.block))
        return lowered(self.outline, self.kb.finish(), plan)

    def tid(self, axis="x"):
        return self.kb.special(f"tid.{axis}")

    def tiles(self, count, per_tile, offset, body):
        """Each block walks tiles ctaid.x, ctaid.x + nctaid.x, ... below `count`, all of its
        threads alike; `body(row)` for the thread's row tile * per_tile + offset (i64), clamped
        to the last row in a tile past it (`row.ok` then says whether it is one)."""
        kb, rows = self.kb, self.shape.rows

        def tile(kb, t):
            index = kb.op("add", kb.op("mul", t, kb.constant(per_tile, "i64")), offset)
            if rows % per_tile == 0:        # every tile full: every thread's row is one
                return body(_RowLowering(self, index, None))
            ok = kb.cmp("LT", index, kb.constant(rows, "i64"))
            body(_RowLowering(self, kb.op("min", index, kb.constant(rows - 1, "i64")), ok))
        kb.for_(kb.convert(kb.special("ctaid.x"), "i64"), kb.constant(count, "i64"),
                kb.convert(kb.special("nctaid.x"), "i64"), [], tile)

    def passes(self, row, walk, allreduce):
        """Every wave's pass and combination, the full-shape outputs, and the row's values:
        the body of a schedule whose every thread of a row learns the row's results."""
        shape = self.shape
        for i, wave in enumerate(shape.waves):
            partials = walk.fold(wave, shape.early if i == 0 else ())
            row.finish(wave, allreduce(partials, _combiner(row, wave)))
        if shape.late:
            walk.fold((), shape.late)


class _PackedRows:
    """A warp (or part of one) per row, 256 / T rows per block, or a block of T threads per
    row; see the module doc."""

    def __init__(self, shape, plan):
        self.shape, self.plan = shape, plan
        self.threads, self.storage = plan.threads, plan.storage
        self.per_block = _rows_per_block(plan.threads)

    def lower(self, context, block, outline, shape, layout):
        kernel = _Kernel(context, block, outline, shape, layout)
        kb, threads = kernel.kb, self.threads
        tid = kernel.tid()
        if threads <= 32:               # rows of `threads` lanes, several in a warp
            lane = kb.op("and", tid, kb.constant(threads - 1, "i32"))
            group = kb.convert(kb.op("shr", tid, kb.constant(threads.bit_length() - 1,
                                                             "i32")), "i64")
        else:
            lane, group = tid, kb.constant(0, "i64")
        stage = None
        if self.storage == "shared":
            dtypes, slot = _stage_slots(shape.staged)
            arrays = [kb.shared(d, self.per_block * shape.length) for d in dtypes]
            stage = (arrays, kb.op("mul", group, kb.constant(shape.length, "i64")), slot)
        slots = -(-shape.length // threads) if self.storage == "registers" else None
        slices = _slices(kb, kb.convert(lane, "i64"), threads, shape.length, shape.ordered,
                         slots or 1)

        def allreduce(values, combine):
            if threads <= 32:
                return warp_allreduce(kb, values, combine, threads, lane, slices.holding)
            return block_allreduce(kb, values, combine, threads, tid, slices.holding)

        def body(row):
            walk = _Walk(kernel, row, slices, slots, stage)
            kernel.passes(row, walk, allreduce)
            row.store_outputs(kernel, lambda: kb.cmp("EQ", lane, kb.constant(0, "i32")))

        kernel.tiles(blocks(shape.rows, self.per_block), self.per_block, group, body)
        return kernel.finish(self.plan)


class _Column:
    """Blocks of 32 x 8 threads: 32 rows, 8 slices of each; see the module doc."""
    def __init__(self, shape, plan):
        self.shape, self.plan = shape, plan

    def lower(self, context, block, outline, shape, layout):
        kernel = _Kernel(context, block, outline, shape, layout)
        kb = kernel.kb
        x = kb.convert(kernel.tid("x"), "i64")
        y = kb.convert(kernel.tid("y"), "i64")
        slices = _slices(kb, y, SLICES, shape.length, shape.ordered)

        def allreduce(values, combine):
            return column_allreduce(kb, values, combine, x, y, COLUMNS, SLICES,
                                    slices.holding)

        def body(row):
            kernel.passes(row, _Walk(kernel, row, slices), allreduce)
            row.store_outputs(kernel, lambda: kb.cmp("EQ", y, kb.constant(0, "i64")))

        kernel.tiles(blocks(shape.rows, COLUMNS), COLUMNS, x, body)
        return kernel.finish(self.plan)


class _SplitRow:
    """A row over `splits` blocks of 1024 threads, combined by the last block to finish; see
    the module doc. The workspace holds a ticket counter per row (i32), then per accumulator
    the blocks' partials, [row][block]."""
    def __init__(self, shape, plan):
        self.shape, self.plan, self.splits = shape, plan, plan.splits
        self.chunk = -(-shape.length // plan.splits)
        self.holding_blocks = -(-shape.length // self.chunk)     # blocks with elements
        self.types, self.offsets, _ = _split_layout(shape, plan.splits)

    def lower(self, context, block, outline, shape, layout):
        kernel = _Kernel(context, block, outline, shape, layout, workspace=True)
        kb = kernel.kb

        arrays = [kb.view(kernel.workspace, kb.constant(offset, "i64"), storage_dtype(t))
                  for offset, t in zip(self.offsets, self.types)]
        ticket = kb.shared("i32", 1)

        def body(kb, r):
            self._row(kernel, _RowLowering(kernel, r, None), arrays, ticket)
        kb.for_(kb.convert(kb.special("ctaid.y"), "i64"), kb.constant(shape.rows, "i64"),
                kb.convert(kb.special("nctaid.y"), "i64"), [], body)
        return kernel.finish(self.plan)

    def _row(self, kernel, row, arrays, ticket):
        """Fold the block's chunk of `row`, publish the partial in `arrays` (the workspace's)
        and take a ticket (through shared `ticket` to the whole block); the last block
        combines every partial and writes the row's outputs."""
        kb, shape = kernel.kb, self.shape
        wave = shape.waves[0]
        tid = kernel.tid()
        b = kb.convert(kb.special("ctaid.x"), "i64")
        lo = kb.op("mul", b, kb.constant(self.chunk, "i64"))
        hi = kb.op("min", kb.op("add", lo, kb.constant(self.chunk, "i64")),
                   kb.constant(shape.length, "i64"))
        slices = self._slices(kb, kb.convert(tid, "i64"), lo, hi)
        partials = _Walk(kernel, row, slices).fold(wave, shape.early)
        combine = _combiner(row, wave)
        partial = block_allreduce(kb, partials, combine, SPLIT_THREADS, tid, slices.holding)
        slot = kb.op("add", kb.op("mul", row.index, kb.constant(self.splits, "i64")), b)
        zero = kb.constant(0, "i64")

        def publish(kb):                # thread 0: the partial, then a ticket
            for v, a in zip(partial, arrays):
                store_value(kb, v, a, slot)
            kb.fence()
            taken = kb.atomic("add", kernel.workspace, row.index, kb.constant(1, "i32"))
            kb.fence()
            kb.store(taken, ticket, zero)
        first = kb.cmp("EQ", tid, kb.constant(0, "i32"))
        kb.if_(first, publish)
        kb.barrier()
        last = kb.cmp("EQ", kb.load(ticket, zero), kb.constant(self.splits - 1, "i32"))

        def combine_all(kb):            # the last block: every partial, in block order
            kb.fence()
            mine = kb.convert(kb.op("min", tid, kb.constant(self.splits - 1, "i32")), "i64")
            at = kb.op("add", kb.op("mul", row.index, kb.constant(self.splits, "i64")), mine)
            loaded = [load_value(kb, a, at, t) for a, t in zip(arrays, self.types)]
            with row.scoped():
                row.finish(wave, block_allreduce(kb, loaded, combine, SPLIT_THREADS, tid,
                                                 self.holding_blocks))
                row.store_outputs(kernel, lambda: first)
        kb.if_(last, combine_all)

    def _slices(self, kb, tid, lo, hi):
        """The `_Slices` of thread `tid` in the block's chunk [lo, hi) of the row."""
        shortest = self.shape.length - (self.holding_blocks - 1) * self.chunk
        every_block = self.holding_blocks == self.splits
        if not self.shape.ordered:
            holding = None if every_block and shortest >= SPLIT_THREADS else \
                kb.op("sub", hi, lo)
            return _Slices(kb.op("add", lo, tid), SPLIT_THREADS, hi, holding,
                           int(holding is None))
        per = -(-self.chunk // SPLIT_THREADS)
        start = kb.op("add", lo, kb.op("mul", tid, kb.constant(per, "i64")))
        end = kb.op("min", kb.op("add", start, kb.constant(per, "i64")), hi)
        holding = None if every_block and shortest > (SPLIT_THREADS - 1) * per else kb.op(
            "div", kb.op("add", kb.op("sub", hi, lo), kb.constant(per - 1, "i64")),
            kb.constant(per, "i64"))
        return _Slices(start, 1, end, holding, int(holding is None))


def _aligned(nbytes):
    """`nbytes` rounded up to the 16-byte alignment of shared arrays and workspace parts."""
    return -(-nbytes // 16) * 16


def _unravel(kb, linear, shape):
    """The row-major multi-index of `linear` (an i64 below prod(shape)) in `shape`: the
    outermost dim that is not 1 takes what is left without a remainder."""
    outer = next((d for d, n in enumerate(shape) if n != 1), None)
    out, rest = [], linear
    for d in reversed(range(len(shape))):
        if shape[d] == 1:
            out.append(kb.constant(0, "i64"))
        elif d == outer:
            out.append(rest)
        else:
            size = kb.constant(shape[d], "i64")
            out.append(kb.op("rem", rest, size))
            rest = kb.op("div", rest, size)
    return out[::-1]


# ---- the serial schedule -------------------------------------------------------------------

def _lower_serial(context, block, outline, shape, layout):
    """A thread per row (a grid-stride loop over rows): each reduction folded in one pass in
    the reference's order, then a pass writing the full-shape outputs; see the module doc."""
    kernel = _Kernel(context, block, outline, shape, layout)
    kb, full, dims, keep, rank = kernel.kb, shape.full, shape.dims, shape.keep, shape.rank
    row_linear = tuple((0 if d in dims else stride) for d, stride in
                       zip(range(rank), _row_strides(full, keep)))

    def row_body(kb, r):
        lowering = Lowering(kb, layout, kernel.pointers, shape.item)
        root = [kb.constant(0, "i64")] * rank
        for d, v in zip(keep, lowering.unravel(r, shape.row_shape)):
            root[d] = v
        lowering.root = root
        for red in shape.reduces:
            _fold(kb, lowering, red, full)
        lowering.root = root
        for v in shape.row_outputs:
            idx = _row_index(v.type.shape, keep, full, Affine(row_linear, 0))
            kb.store(lowering.value(v, idx, False), kernel.pointers[v], r)
        full_outputs = shape.early + shape.late
        if full_outputs:
            def element(kb, c):
                with _along(lowering, dims, full, c):
                    linear = lowering.materialize(Affine(row_major_strides(full), 0))
                    for v in full_outputs:
                        kb.store(lowering.value(v, identity_index(rank), False),
                                 kernel.pointers[v], linear)
            kb.for_(kb.constant(0, "i64"), kb.constant(shape.length, "i64"),
                    kb.constant(1, "i64"), [], element)

    kb.for_(kb.global_index(), kb.constant(shape.rows, "i64"), kb.grid_size(), [], row_body)
    return lowered(outline, kb.finish(), outline.schedule)


def _fold(kb, lowering, red, full):
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
    return run_body(lowering, body_program(lowering.memo, block), args)


def run_body(lowering, program, args):
    """`lower_body` of the body whose `body_program` is `program`."""
    steps, results = program
    kb = lowering.kb
    env = list(args)                        # the block's arguments, then each step's value
    for op, name, dtype, operands, direct in steps:
        if name == "constant":
            env.append(lowering.value(op.results[0], (), False))
            continue
        ins = [env[r] if type(r) is int else lowering.value(r, (), False) for r in operands]
        if direct is not None and direct is not MOVE:
            env.append(kb.op(direct, *ins))
        else:
            env.append(lowering.compute(op, name, ins, dtype))
    return [env[r] for r in results]


def body_program(memo, block):
    """A reduce body as (steps, results), read from the IR once per item (`memo`: the item's
    Lowering memo): a step is (op, its name without the dialect, result dtype, operands, its
    `direct_op`), an operand an int (the env slot of a block argument or an earlier step's
    value) or a value captured from outside; results are the yield's slots."""
    key = ("body", block)
    found = memo.get(key)
    if found is None:
        slot = {v: i for i, v in enumerate(block.arguments)}
        steps = []
        for op in block.operations:
            if op.name == "tensor.yield":
                found = memo[key] = (tuple(steps), tuple(slot[v] for v in op.operands))
                break
            name, dtype = op.name.removeprefix("tensor."), op.result_types[0].dtype
            steps.append((op, name, dtype, tuple(slot.get(v, v) for v in op.operands),
                          direct_op(name, dtype)))
            slot[op.results[0]] = len(slot)
        else:
            raise UnsupportedError("a reduce body without tensor.yield")
    return found


def _row_strides(full, keep):
    """Row-major strides of the kept dims, placed at their positions in the full shape."""
    strides = dict(zip(keep, row_major_strides([full[d] for d in keep])))
    return [strides.get(d, 0) for d in range(len(full))]


def _row_index(shape, keep, full, row_linear):
    """Index expressions of a row value of `shape` (as many elements as rows, at the row's
    row-major position `row_linear`): the kept dims' own indices when its non-unit dims are
    theirs (the form reduction results and keepdims take, so the fold's results are found),
    else the position taken apart."""
    rank = len(full)
    kept = [d for d in keep if full[d] != 1]
    if [n for n in shape if n != 1] == [full[d] for d in kept]:
        dims = iter(kept)
        return tuple(Affine((0,) * rank, 0) if n == 1 else
                     Affine(tuple(int(j == d) for j in range(rank)), 0)
                     for n, d in ((n, next(dims) if n != 1 else None) for n in shape))
    return _reshaped(row_linear, shape, rank)


def _reshaped(linear, shape, rank):
    """Index expressions of a value of `shape` whose row-major position is `linear`."""
    out = []
    for stride, size in zip(row_major_strides(shape), shape):
        if size == 1:
            out.append(Affine((0,) * rank, 0))
        else:
            e = linear if stride == 1 else FloorDiv(linear, stride)
            out.append(Mod(e, size))
    return tuple(out)
