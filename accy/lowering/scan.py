"""Lowering of `scan` work items to a `kl.kernel`. A row is every element along the scan's
dimension (length L); `plan_scan` picks one of five schedules (`ScanPlan`, stored in the
outline and followed by `lower_scan`; its `name` is the one the report and the tests see,
its launch the one the kernel gets) from the shape, the body and the target's scan schedule
for (L, dtype) (`threads` T, rounded up to whole warps, and `elements_per_thread` E, at most
16 and at most 4096 / T: each element takes a register, and a block of T threads has
65536 / T per thread; the parallel kernels declare their block size, `max_threads`, so
ptxas stays within that):

- serial: a thread per row (a grid-stride loop over rows) walking it in the reference
  interpreter's order (backwards for a reverse scan), carrying the accumulator; an inclusive
  scan writes it after each step, an exclusive one before. Results are the reference's bit for
  bit wherever the arithmetic is (not f32 transcendentals: within 1 ulp each). Chosen for bodies not known to be associative (anything but
  one add, multiply, maximum, minimum, and, or, xor of the accumulator and the element, e.g.
  logcumsumexp's), i1 scans, empty shapes, and rows that fit in one thread (L <= E).
- column: the same kernel, chosen when the scan dimension is not innermost and the dims after
  it hold at least a warp of elements: consecutive threads then take consecutive columns, so
  each step of the serial walk is a coalesced load across the warp, with no cross-thread work.
- warp: a warp per row (8 rows per block of 256), for T = 32. The row is cut in tiles of
  32 x E scan positions; in a tile each lane scans its E consecutive elements in registers, a
  Kogge-Stone scan of the lane totals with `kl.shuffle` up (5 steps) gives each lane the total
  of the lanes before it, and the prefix carried from the earlier tiles is combined in front.
- block: a block of T threads per row, tiles of T x E: as warp, then the warp totals go through
  shared memory (`kl.barrier`), the first warp scans them with shuffles, and each thread adds
  its warp's prefix. Chosen for T > 32 when the row fits one tile or there are many rows.
- lookback: a row longer than one tile (L > T x E) with few rows (< 2 x the target's SMs, so a
  block per row would leave the GPU idle): a block per tile, tiles of every row numbered in
  order. A block takes its tile from an integer atomic counter in the zeroed workspace (not its
  block index), so a tile only ever waits on tiles that running blocks hold: no deadlock
  whatever order the GPU starts blocks in. It scans its tile as block does; its first thread
  publishes the tile's aggregate (flag 1), walks back over the row's earlier tiles until one has
  published its inclusive prefix (flag 2; a row's first tile publishes that at once), spinning
  on a flag still 0, then folds the aggregates after that tile onto its prefix in increasing
  order and publishes its own inclusive prefix. Values are written before their flag with a
  `kl.fence` between; flags are read with atomics and a fence follows, so the values are
  visible. The fold is always init, A0, A1, ... left to right, whichever tile the walk stopped
  at, so results are deterministic.

Inside a tile the combine order is fixed too (a tree per tile), so every schedule is
deterministic; integer results and max/min are exact, float sums and products differ from the
sequential reference only by rounding. Elements past the row's end (and lanes with none) take
the combine's identity (-0.0 for a float sum) and are never stored; their loads are clamped to
the row. The scan's elementwise producers run as each element is loaded, its consumers as each
result is made, and every output (all of the scan's shape) is written at the element's index.
Each element keeps its own `Lowering`, so a consumer that reads an input the producers read
reuses that load.

Loads: a thread's E elements are consecutive. When the row is contiguous (no elements after
the scan dim), holds whole vectors (L a multiple of E) and E is a width kl moves in one access
(`VECTOR_WIDTHS`: 2 or 4 for 4-byte dtypes, 2 for 8-byte, 2, 4 or 8 for 2-byte; at most 16
bytes), each input read at the item's own position is one `kl.vload` per thread and tile, and
each output of such a dtype one `kl.vstore` (`_vector_plan`, in the ScanPlan; lanes reversed for a
reverse scan). Every vector is aligned: tiles and thread offsets are multiples of E, so is
each row's start, and buffers are 256-byte aligned. A thread's vector is then all in the row or
all past it (clamped to the row's last vector and not stored). Other reads (broadcasts, moved
or 1-byte elements) stay scalar, as do all accesses of a row not meeting those conditions:
there a warp's load of its k-th elements is strided by E, and the E loads of a tile touch the
same lines, which stay in L1. A non-innermost scan
dimension with fewer than a warp of trailing elements uses the row schedules with each row's
elements strided by that count.
"""
import math
from dataclasses import dataclass

import numpy as np

from accy._core.types import numpy_dtype
from accy.errors import UnsupportedError
from accy.lowering.kl import VECTOR_WIDTHS, KernelBuilder, ptr_type, scalar
from accy.lowering.launch import (MAX_BLOCKS, KernelPlan, Launch, NoKernel, baseline_launch,
                                  blocks, capped_grid, lowered)
from accy.lowering.rows import lower_body
from accy.lowering.values import Affine, Lowering, identity_index, position_expression
from accy.passes.shape_layout import row_major_strides

WARP = 32
MAX_PER_THREAD = 16         # elements a thread holds in registers
MAX_TILE = 4096             # elements a block holds: a block of T threads has 65536 / T
                            # registers per thread, and each element takes at least one
WARP_BLOCK = 256            # threads per block of the warp schedule: 8 rows
MAX_GRID = 2 ** 31 - 1
# the scan bodies the parallel schedules reassociate: name -> kl op
COMBINES = {"tensor.add": "add", "tensor.multiply": "mul", "tensor.maximum": "max",
            "tensor.minimum": "min", "tensor.and": "and", "tensor.or": "or", "tensor.xor": "xor"}
FLAGS = 4                   # the workspace's i32 index of tile 0's flag (the counter is at 0)


@dataclass(frozen=True)
class ScanShape:
    """What the kernels need to know of a scan item's hero."""
    op: object
    shape: tuple
    axis: int
    keep: tuple             # the dims that are not the scan's, in order
    exclusive: bool
    reverse: bool
    dtype: str
    combine: str            # the kl op of an associative body, else None

    @property
    def length(self):
        return self.shape[self.axis]

    @property
    def rows_shape(self):
        return [self.shape[d] for d in self.keep]

    @property
    def rows(self):
        return math.prod(self.rows_shape)

    @property
    def inner(self):
        """Elements between two consecutive elements of a row."""
        return math.prod(self.shape[self.axis + 1:])


def scan_shape(item):
    scan = item.hero
    shape = scan.result_types[0].shape
    axis = scan.attributes["dimension"]
    return ScanShape(scan, shape, axis, tuple(d for d in range(len(shape)) if d != axis),
                     scan.attributes.get("exclusive", False),
                     scan.attributes.get("reverse", False), scan.result_types[0].dtype,
                     _combine(scan.regions[0].entry))


def _combine(body):
    """The kl op of a body that is one associative op of its two arguments, else None."""
    ops = list(body.operations)
    if len(ops) != 2 or ops[0].name not in COMBINES or ops[1].name != "tensor.yield":
        return None
    if set(ops[0].operands) != set(body.arguments) or \
            tuple(ops[1].operands) != tuple(ops[0].results):
        return None
    return COMBINES[ops[0].name]


@dataclass(frozen=True)
class ScanPlan:
    """The schedule `plan_scan` picks for a scan item, which `lower_scan` follows: `name`
    (serial, column, warp, block or lookback; the module doc says why), `threads` per block
    and `per_thread` elements a thread holds, the kernel's `launch`, the `workspace` bytes
    (lookback), and for the tiled schedules the input reads loaded with one `kl.vload` per
    thread and tile (`vectored`) and the outputs stored with one `kl.vstore`
    (`vector_outputs`)."""
    name: str
    launch: Launch
    threads: int
    per_thread: int
    workspace: int = 0
    vectored: tuple = ()
    vector_outputs: tuple = ()


def _choose(s, target):
    """(schedule name, threads per block, elements per thread) for ScanShape `s` (the module
    doc says why)."""
    plan = target.scan_schedule(s.length, s.dtype)
    threads = max(WARP, -(-plan.threads // WARP) * WARP)
    per_thread = max(1, min(plan.elements_per_thread, MAX_TILE // threads, MAX_PER_THREAD))
    if s.combine is None or s.dtype == "i1" or 0 in s.shape:
        return "serial", threads, per_thread
    if s.inner >= WARP:
        return "column", threads, per_thread
    if s.length <= per_thread:
        return "serial", threads, per_thread
    tiles = -(-s.length // (threads * per_thread))
    # (2 x SMS rows or more fill the GPU with a block per row)
    if tiles > 1 and s.rows < 2 * target.facts.sms and s.rows * tiles <= MAX_GRID:
        return "lookback", threads, per_thread
    return ("warp" if threads == WARP else "block"), threads, per_thread


def plan_scan(item, layout, target):
    """The KernelPlan of scan `item`: scalars `rows` and `length`; the launch domain (the
    target's scan schedule's threads per block, one block per row and as many along a row as
    its tiles); and the ScanPlan (a NoKernel when the item's reads cannot be listed)."""
    hero = item.hero
    shape = hero.operand_types[0].shape
    length = shape[hero.attributes["dimension"]] if shape else 1
    rows = math.prod(shape) // max(length, 1)
    s = target.scan_schedule(length, hero.operand_types[0].dtype)
    per_row = blocks(length, s.threads * s.elements_per_thread)
    try:
        schedule = _schedule(scan_shape(item), item, layout, target)
    except UnsupportedError as e:
        schedule = NoKernel(str(e))
    return KernelPlan((("rows", rows), ("length", length)), Launch(
        capped_grid(per_row, max(rows, 1)), (s.threads, 1, 1), (s.threads // 32) * 8), schedule)


def _schedule(s, item, layout, target):
    """The ScanPlan of ScanShape `s`: the schedule `_choose` picks, its launch and workspace,
    and what moves as vectors."""
    name, threads, per_thread = _choose(s, target)
    if name in ("serial", "column"):
        return ScanPlan(name, baseline_launch(s.rows), threads, per_thread)
    vectored, vector_outputs = _vector_plan(s, item, layout, per_thread)
    workspace = 0
    if name == "warp":
        launch = _rows_launch(s.rows, WARP_BLOCK // WARP, MAX_BLOCKS)
    elif name == "block":
        launch = Launch((min(s.rows, MAX_BLOCKS), 1, 1), (threads, 1, 1))
    else:
        count = _lookback_tiles(s, threads * per_thread)
        launch, workspace = Launch((count, 1, 1), (threads, 1, 1)), \
            Workspace(count, s.dtype).bytes
    return ScanPlan(name, launch, threads, per_thread, workspace, tuple(vectored),
                    tuple(vector_outputs))


def _lookback_tiles(s, size):
    """The lookback schedule's tiles (of `size` scan positions) over every row."""
    return s.rows * -(-s.length // size)


def _vector_plan(s, item, layout, width):
    """(the input reads loaded with one `kl.vload` per thread and tile, the outputs stored
    with one `kl.vstore`), both empty when the thread's `width` elements cannot move as one
    vector: that needs the row contiguous (no elements after the scan dim), E a width kl
    moves in one access for the dtype, and every vector aligned, i.e. the row length a
    multiple of E (tiles and thread offsets in them are; buffers are 256-byte aligned).
    A read moves as a vector when it is at the item's own position; the others (and
    1-byte dtypes) stay scalar."""
    if s.inner != 1 or width < 2 or s.length % width:
        return [], []

    def fits(dtype):
        return dtype != "i1" and width in VECTOR_WIDTHS.get(numpy_dtype(dtype).itemsize, ())
    lowering = Lowering(None, layout, {}, item)     # (lists reads only: writes nothing)
    lowering.root = [None] * len(s.shape)           # (only its rank is read)
    here = position_expression(tuple(s.shape))
    reads = lowering.reads([s.op.operands[0]])
    vectored = [key for key, address in reads.items()
                if address == here and fits(key[0].type.dtype)]
    return vectored, [v for v in item.outputs if fits(v.type.dtype)]


def lower_scan(context, block, outline, item, layout, target=None):
    """Write the kernel of scan `item` into `block` under the ScanPlan its outline's plan
    picked; it takes the item's inputs and outputs (pointers), then one i64 per outline
    scalar, then (lookback) the workspace. Returns its LoweredKernel."""
    plan = outline.schedule
    if isinstance(plan, NoKernel):
        plan.refuse()
    s = scan_shape(item)
    if plan.name in ("serial", "column"):
        kernel = _lower_serial(context, block, outline, item, layout, s)
        return lowered(outline, kernel, plan)
    tiles = _Tiles.start(context, block, outline, item, layout, s, plan)
    if plan.name == "warp":
        tiles.write_rows(*_warp_rows(tiles.kb))
    elif plan.name == "block":
        tiles.write_rows(*_block_rows(tiles.kb))
    else:
        tiles.write_lookback(_lookback_tiles(s, tiles.size))
    # ptxas keeps each thread's registers within what a block this large may hold
    tiles.kb.kernel.set_attribute("max_threads", math.prod(plan.launch.block))
    return lowered(outline, tiles.kb.finish(), plan)


# ---- serial and column -------------------------------------------------------------------------

def _lower_serial(context, block, outline, item, layout, s):
    kb, pointers = _start_kernel(context, block, outline, item, workspace=False)
    scan, shape, length, rank = s.op, s.shape, s.length, len(s.shape)
    at = identity_index(rank)

    def row_body(kb, r):
        lowering = Lowering(kb, layout, pointers, item)
        root = _row_root(kb, lowering, s, r)
        lowering.root = root
        init = lowering.value(scan.operands[1], (), False)

        def step(kb, j, acc):
            lowering.push()
            root[s.axis] = kb.op("sub", kb.constant(length - 1, "i64"), j) if s.reverse else j
            x = lowering.value(scan.operands[0], at, False)
            (new,) = lower_body(lowering, scan.regions[0].entry, [acc, x])
            lowering.remember(scan.results[0], acc if s.exclusive else new)
            linear = lowering.materialize(Affine(row_major_strides(shape), 0))
            for v in item.outputs:
                kb.store(lowering.value(v, at, False), pointers[v], linear)
            lowering.pop()
            return [new]

        kb.for_(kb.constant(0, "i64"), kb.constant(length, "i64"), kb.constant(1, "i64"),
                [init], step)

    kb.for_(kb.global_index(), kb.constant(s.rows, "i64"), kb.grid_size(), [], row_body)
    return kb.finish()


def _start_kernel(context, block, outline, item, workspace):
    """A KernelBuilder taking the item's inputs and outputs (pointers), one i64 per outline
    scalar, then with `workspace` an i32 pointer to the zeroed scratch; {value: pointer}."""
    values = list(item.inputs) + list(item.outputs)
    params = [ptr_type(v.type.dtype) for v in values] + [scalar("i64")] * len(outline.scalars)
    kb = KernelBuilder(context, block, outline.name,
                       params + ([ptr_type("i32")] if workspace else []))
    return kb, dict(zip(values, kb.params))


def _row_root(kb, lowering, s, r):
    """Root indices of row `r`: its row-major position among the rows; the scan dim 0."""
    root = [kb.constant(0, "i64")] * len(s.shape)
    for d, v in zip(s.keep, lowering.unravel(r, s.rows_shape)):
        root[d] = v
    return root


# ---- launches of the row schedules -------------------------------------------------------------

def _warp_rows(kb):
    """(first row, row stride, thread in the group, lane, warp in the block) of the warp
    schedule: a row per warp, warps striding over the rows."""
    lane = kb.op("rem", _tid(kb), kb.constant(WARP, "i64"))
    warp = kb.op("div", kb.global_index(), kb.constant(WARP, "i64"))
    stride = kb.op("div", kb.grid_size(), kb.constant(WARP, "i64"))
    return warp, stride, lane, lane, None


def _block_rows(kb):
    """As _warp_rows for the block schedule: a row per block, blocks striding over rows."""
    tid = _tid(kb)
    return (kb.convert(kb.special("ctaid.x"), "i64"), kb.convert(kb.special("nctaid.x"), "i64"),
            tid, kb.op("rem", tid, kb.constant(WARP, "i64")),
            kb.op("div", tid, kb.constant(WARP, "i64")))


def _tid(kb):
    return kb.convert(kb.special("tid.x"), "i64")


def _rows_launch(rows, per_block, max_blocks):
    """Blocks of `per_block` warps (fewer for fewer rows), a warp per row."""
    warps = min(per_block, rows)
    return Launch((min(max_blocks, -(-rows // warps)), 1, 1), (warps * WARP, 1, 1))


# ---- tiles ------------------------------------------------------------------------------------

@dataclass
class _Slot:
    """One of a thread's elements in a tile: its Lowering (root at the element), whether it
    is in the row, and its value (the identity when not)."""
    lowering: object
    valid: object
    x: object


@dataclass
class _Tile:
    slots: list
    before: object          # the combined elements of the tile before the thread's
    total: object           # the whole tile's
    index: object = None    # vector path: the flat position of the thread's lowest element


@dataclass(frozen=True)
class Workspace:
    """The lookback scratch (zeroed before each launch): an i32 tile counter at byte 0, an i32
    flag per tile from byte 16 (0 nothing yet, 1 aggregate, 2 inclusive prefix), then the
    aggregates and the inclusive prefixes in the scan's dtype, each array 16-byte aligned."""
    count: int
    dtype: str

    @property
    def aggregates(self):
        return _align(4 * (FLAGS + self.count))

    @property
    def prefixes(self):
        return self.aggregates + _align(self.count * numpy_dtype(self.dtype).itemsize)

    @property
    def bytes(self):
        return self.prefixes + self.count * numpy_dtype(self.dtype).itemsize


def _align(n):
    return -(-n // 16) * 16


class _Tiles:
    """Writes the scan of tiles of `threads` x `per_thread` consecutive scan positions of a row
    by a group of `threads` threads (a warp, or a block)."""

    def __init__(self, kb, pointers, item, layout, s, plan, workspace):
        self.kb, self.pointers, self.item, self.layout, self.s = kb, pointers, item, layout, s
        self.threads, self.per_thread = plan.threads, plan.per_thread
        self.size = plan.threads * plan.per_thread
        self.warps = plan.threads // WARP
        self.workspace = workspace
        self.thread = self.lane = self.warp = None      # i64 values, set by write_*
        self.vectored, self.vector_outputs = plan.vectored, plan.vector_outputs
        self.vector = bool(self.vectored or self.vector_outputs)
        self.i64 = kb.i64
        self.memo = {}          # the `Lowering.memo` of every element's Lowering

    @classmethod
    def start(cls, context, block, outline, item, layout, s, plan):
        kb, pointers = _start_kernel(context, block, outline, item, plan.name == "lookback")
        return cls(kb, pointers, item, layout, s, plan,
                   kb.params[-1] if plan.name == "lookback" else None)

    # ---- arithmetic ---------------------------------------------------------------------------
    def combine(self, earlier, later):
        return self.kb.op(self.s.combine, earlier, later)

    def identity(self):
        return self.kb.constant(_identity(self.s.combine, self.s.dtype), self.s.dtype)

    def warp_scan(self, value):
        """The inclusive scan of `value` over the lanes of the warp (Kogge-Stone)."""
        kb = self.kb
        for d in (1, 2, 4, 8, 16):
            up = kb.shuffle("up", value, kb.constant(d, "i32"))
            value = kb.op("select", kb.cmp("GE", self.lane, self.i64(d)),
                          self.combine(up, value), value)
        return value

    def shift(self, inclusive):
        """The exclusive scan from the inclusive one: the lane before's, lane 0 the identity."""
        kb = self.kb
        up = kb.shuffle("up", inclusive, kb.constant(1, "i32"))
        return kb.op("select", kb.cmp("EQ", self.lane, self.i64(0)), self.identity(), up)

    # ---- a tile -------------------------------------------------------------------------------
    def row_start(self, r):
        """Root indices of row `r` and the scan's init value."""
        lowering = Lowering(self.kb, self.layout, self.pointers, self.item, memo=self.memo)
        lowering.root = _row_root(self.kb, lowering, self.s, r)
        return lowering.root, lowering.value(self.s.op.operands[1], (), False)

    def load(self, root, base):
        """(the thread's slots of the tile at scan position `base`, the flat position of its
        vector or None): positions past the row read its last element (an address in range)
        and take the identity. On the vector path the thread's elements are all in the row
        or all past it (the row holds whole vectors); a vector past it reads the row's last."""
        kb, s, width = self.kb, self.s, self.per_thread
        first = kb.op("add", base, kb.op("mul", self.thread, self.i64(width)))
        last = self.i64(s.length - 1)
        lanes, index = {}, None
        if self.vector:
            start = kb.op("min", first, self.i64(s.length - width))
            if s.reverse:           # the thread's elements, backwards from the row's end
                start = kb.op("sub", self.i64(s.length - width), start)
            at = Lowering(kb, self.layout, self.pointers, self.item, memo=self.memo)
            at.root = list(root)
            at.root[s.axis] = start
            index = at.materialize(position_expression(tuple(s.shape)))
            for key in self.vectored:
                if key[0] not in lanes:
                    xs = kb.vload(self.pointers[key[0]], index, width)
                    lanes[key[0]] = xs[::-1] if s.reverse else xs
        slots = []
        for k in range(width):
            p = kb.op("add", first, self.i64(k))
            valid = kb.cmp("LT", p, self.i64(s.length))
            at = kb.op("min", p, last)
            lowering = Lowering(kb, self.layout, self.pointers, self.item, memo=self.memo)
            lowering.root = list(root)
            lowering.root[s.axis] = kb.op("sub", last, at) if s.reverse else at
            for key in self.vectored:
                lowering.preload(key, lanes[key[0]][k])
            x = lowering.value(s.op.operands[0], identity_index(len(s.shape)), False)
            slots.append(_Slot(lowering, valid, kb.op("select", valid, x, self.identity())))
        return slots, index

    def scan(self, root, base):
        """Scan the tile at `base` (without the prefix of the tiles before it)."""
        slots, index = self.load(root, base)
        mine = slots[0].x
        for slot in slots[1:]:
            mine = self.combine(mine, slot.x)
        inclusive = self.warp_scan(mine)
        before = self.shift(inclusive)
        if self.warps == 1:
            total = self.kb.shuffle("idx", inclusive, self.kb.constant(WARP - 1, "i32"))
            return _Tile(slots, before, total, index)
        warp_before, total = self.across_warps(inclusive)
        return _Tile(slots, self.combine(warp_before, before), total, index)

    def across_warps(self, inclusive):
        """(the totals of the warps before this thread's, the block's total), through shared
        memory: the last lane of each warp writes its warp's total, the first warp scans them."""
        kb, dtype, warps = self.kb, self.s.dtype, self.warps
        totals, prefixes = kb.shared(dtype, warps), kb.shared(dtype, warps + 1)
        kb.if_(kb.cmp("EQ", self.lane, self.i64(WARP - 1)),
               lambda kb: kb.store(inclusive, totals, self.warp))

        def first_warp(kb):
            lane, n = self.lane, self.i64(warps)
            inside = kb.cmp("LT", lane, n)
            mine = kb.op("select", inside,
                         kb.load(totals, kb.op("min", lane, self.i64(warps - 1))),
                         self.identity())
            scanned = self.warp_scan(mine)
            before = self.shift(scanned)
            kb.if_(inside, lambda kb: kb.store(before, prefixes, lane))
            kb.if_(kb.cmp("EQ", lane, self.i64(warps - 1)),
                   lambda kb: kb.store(scanned, prefixes, n))
        kb.barrier()
        kb.if_(kb.cmp("EQ", self.warp, self.i64(0)), first_warp)
        kb.barrier()
        return kb.load(prefixes, self.warp), kb.load(prefixes, self.i64(warps))

    def write(self, tile, carry):
        """Store every output at the tile's elements in the row, `carry` being the combined
        init and elements of the row before the tile. The thread folds its elements again
        onto its prefix (rather than keeping its running values: fewer live registers)."""
        acc = self.combine(carry, tile.before)
        results = []
        for slot in tile.slots:
            new = self.combine(acc, slot.x)
            results.append(acc if self.s.exclusive else new)
            if tile.index is None:
                self._store(slot, results[-1])
            acc = new
        if tile.index is not None:
            self._store_vector(tile, results)

    def _store(self, slot, result):
        lowering, s = slot.lowering, self.s

        def outputs(kb):
            lowering.remember(s.op.results[0], result)
            linear = lowering.materialize(Affine(row_major_strides(s.shape), 0))
            for v in self.item.outputs:
                kb.store(lowering.value(v, identity_index(len(s.shape)), False),
                         self.pointers[v], linear)
        self.kb.if_(slot.valid, outputs)

    def _store_vector(self, tile, results):
        """As `_store` for every slot of a tile on the vector path: the slots are all in the
        row or all past it; each output in `vector_outputs` is one `kl.vstore` of the slots'
        values (backwards for a reverse scan), the others scalar stores."""
        s, at = self.s, identity_index(len(self.s.shape))

        def outputs(kb):
            values = {v: [] for v in self.item.outputs}
            for slot, result in zip(tile.slots, results):
                slot.lowering.remember(s.op.results[0], result)
                for v in self.item.outputs:
                    values[v].append(slot.lowering.value(v, at, False))
            for v, xs in values.items():    # stored after every slot is read: in place is safe
                if v in self.vector_outputs:
                    kb.vstore(xs[::-1] if s.reverse else xs, self.pointers[v], tile.index)
                    continue
                for x, slot in zip(xs, tile.slots):
                    kb.store(x, self.pointers[v], slot.lowering.materialize(
                        Affine(row_major_strides(s.shape), 0)))
        self.kb.if_(tile.slots[0].valid, outputs)

    # ---- kernels ------------------------------------------------------------------------------
    def write_rows(self, first, stride, thread, lane, warp):
        """The warp or block schedule: groups striding over rows, each walking its row's tiles
        in order and carrying the prefix."""
        kb, s = self.kb, self.s
        self.thread, self.lane, self.warp = thread, lane, warp

        def row(kb, r):
            root, init = self.row_start(r)

            def tile(kb, base, carry):
                t = self.scan(root, base)
                self.write(t, carry)
                return [self.combine(carry, t.total)]
            kb.for_(self.i64(0), self.i64(s.length), self.i64(self.size), [init], tile)
        kb.for_(first, self.i64(s.rows), stride, [], row)

    def write_lookback(self, count):
        """The lookback schedule over `count` tiles (module doc)."""
        kb, s = self.kb, self.s
        tid = _tid(kb)
        self.thread, self.lane = tid, kb.op("rem", tid, self.i64(WARP))
        self.warp = kb.op("div", tid, self.i64(WARP))
        per_row = count // s.rows
        leader = kb.cmp("EQ", tid, self.i64(0))
        index = self.broadcast(leader, lambda kb: kb.convert(kb.atomic(
            "add", self.workspace, self.i64(0), kb.constant(1, "i32")), "i64"), "i64")
        row, j = kb.op("div", index, self.i64(per_row)), kb.op("rem", index, self.i64(per_row))
        root, init = self.row_start(row)
        tile = self.scan(root, kb.op("mul", j, self.i64(self.size)))
        carry = self.broadcast(leader, lambda kb: self.look_back(index, j, tile.total, init,
                                                                 Workspace(count, s.dtype)),
                               s.dtype)
        self.write(tile, carry)

    def broadcast(self, leader, compute, dtype):
        """`compute(kb)` run by the `leader` thread, given to the whole block."""
        kb = self.kb
        cell = kb.shared(dtype, 1)
        kb.if_(leader, lambda kb: kb.store(compute(kb), cell, self.i64(0)))
        kb.barrier()
        return kb.load(cell, self.i64(0))

    def look_back(self, index, j, total, init, ws):
        """The combined init and elements of the row before tile `index` (the `j`-th of its
        row). First, with no waiting, the tile publishes what it knows: a row's first tile its
        inclusive prefix, any other its aggregate; only then does it walk back (code order
        matters on the emulator too: it runs the lowest program counter first, so a wait
        written before a publish would spin forever)."""
        kb, dtype = self.kb, self.s.dtype
        aggregates = kb.view(self.workspace, self.i64(ws.aggregates), dtype)
        prefixes = kb.view(self.workspace, self.i64(ws.prefixes), dtype)
        first = kb.cmp("EQ", j, self.i64(0))
        kb.if_(first, lambda kb: kb.store(self.combine(init, total), prefixes, index),
               lambda kb: kb.store(total, aggregates, index))
        self.raise_flag(index, kb.op("select", first, kb.constant(2, "i32"),
                                     kb.constant(1, "i32")))

        def walk(kb):
            carry = self.fold_back(index, aggregates, prefixes)
            kb.store(self.combine(carry, total), prefixes, index)
            self.raise_flag(index, kb.constant(2, "i32"))
            return [carry]
        (carry,) = kb.if_(first, lambda kb: [init], walk, result_types=[scalar(dtype)])
        return carry

    def raise_flag(self, index, flag):
        kb = self.kb
        kb.fence()                  # the values stored before reach other blocks before the flag
        kb.atomic("exch", self.workspace, kb.op("add", index, self.i64(FLAGS)), flag)

    def fold_back(self, index, aggregates, prefixes):
        """Walk back from tile `index` to the nearest with an inclusive prefix (waiting on
        tiles that have published nothing), then fold the aggregates after it onto it."""
        kb = self.kb

        def step(kb, tile):
            earlier = kb.op("sub", tile, self.i64(1))
            return [kb.cmp("NE", self.wait(earlier), kb.constant(2, "i32")), earlier]
        (found,) = kb.while_([index], step)
        kb.fence()                  # flags seen: their values are visible from here on
        (carry,) = kb.for_(kb.op("add", found, self.i64(1)), index, self.i64(1),
                           [kb.load(prefixes, found)],
                           lambda kb, t, acc: [self.combine(acc, kb.load(aggregates, t))])
        return carry

    def wait(self, tile):
        """The flag of `tile` once it is not 0 (read by atomics: a plain load may be served
        from a stale L1 line)."""
        kb = self.kb
        at = kb.op("add", tile, self.i64(FLAGS))

        def poll(kb, _):
            flag = kb.atomic("add", self.workspace, at, kb.constant(0, "i32"))
            return [kb.cmp("EQ", flag, kb.constant(0, "i32")), flag]
        (flag,) = kb.while_([kb.constant(0, "i32")], poll)
        return flag


def _identity(kind, dtype):
    """x op identity == x for every x of `dtype` (-0.0 for a float sum: -0.0 + -0.0 is -0.0)."""
    is_float = dtype in ("f16", "bf16", "f32", "f64")
    if kind in ("add", "or", "xor"):
        return -0.0 if is_float else 0
    if kind == "mul":
        return 1.0 if is_float else 1
    if kind == "and":
        return int(np.iinfo(numpy_dtype(dtype)).max) if dtype == "u8" else -1
    if is_float:
        return -math.inf if kind == "max" else math.inf
    info = np.iinfo(numpy_dtype(dtype))
    return int(info.min) if kind == "max" else int(info.max)
