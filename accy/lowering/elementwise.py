"""Lowering of `elementwise` and `shape` work items to a `kl.kernel`. Each thread computes
every output of the item at its elements, reading the item's inputs through the composed index
maps of the shape/layout analysis (broadcast, transpose, slice, reverse, reshape, pad,
concatenate and gather become index arithmetic; nothing is materialized in between).

The values come from the shared evaluator (`Lowering`, accy/lowering/values.py): index
expressions are built symbolically first (affine functions of the output index, with floor
divisions and remainders for general reshapes, and loaded values for gathered dims) and turned
into kl ops once each, so an operand read through the same map twice is loaded once. Where a
pad or concatenate guard may fail, the operand's index is clamped into range before the load
and a select picks the padding value (or the other operand) instead. A gather loads its index,
converts it to i64 and clamps it into the gathered dim (the reference's rule for out-of-range
indices, in both modes), then reads the data there. A dynamic_slice loads its starts,
clamps them into [0, dim - size] and reads its operand at the output index plus them; a
dynamic_update_slice reads its update at the output index minus the clamped starts (clamped
into the update) and selects it where that lies inside the update, its operand elsewhere.

The plan (`plan_elementwise`, when the outline is made) lists the item's input reads
(`Lowering.reads`, which writes nothing) and picks a schedule from them, an `ElementwisePlan`
holding the kernel's launch and what moves as vectors or through shared tiles; the lowering
follows it:
- `tiled_transpose`: some input is read across the output's rows (its stride along the
  output's innermost dim is neither 0 nor +-1) and at stride +-1 along another output dim `a`:
  a transpose (batched, reshaped, with elementwise ops fused, ...). Blocks of 32 x 8 threads
  take 32 x 32 tiles of (a, innermost dim) per batch index: they read those inputs along `a`
  (coalesced) into 32 x 33 shared tiles (padded against bank conflicts), wait at a barrier,
  then compute and write the outputs along the innermost dim (coalesced), reading every other
  input directly. Grid (tiles along the innermost dim, tiles along `a`, batch), each dim a
  grid-stride loop; tile edges are guarded.
- `vector`: when some output or some input read at the item's own row-major position has a
  2-, 4- or 8-byte dtype, each thread takes one vector of `16 / the widest such itemsize`
  elements per grid-stride step: each such read is one `kl.vload` and each such output one
  `kl.vstore` (every buffer starts 256-byte aligned, so every vector is aligned); the other
  reads (broadcasts, moved or guarded elements, 1-byte dtypes) and 1-byte stores are scalar
  per lane, and values at constant indices are computed once per vector. A scalar tail loop
  takes the last n % width elements. The outline's domain for that width: blocks of 256
  threads, one per 256 vectors.
- `serial`: otherwise (only 1-byte dtypes, or no elements): one element per thread and
  grid-stride step, the baseline launch.

Parameters: the item's inputs (a dense constant among them: its constant buffer), then its
outputs (pointers), then `n`, the element count (i64). A splat constant is an immediate.
Not lowered here (UnsupportedError, so the item runs on the host under the exact tier):
compares with a non-default compare_type, f64 transcendentals.
"""
import math
from dataclasses import dataclass
from functools import lru_cache

from accy._core.types import numpy_dtype
from accy.errors import UnsupportedError
from accy.lowering.kl import VECTOR_WIDTHS, pointee
from accy.lowering.launch import (GRID_X_LIMIT, GRID_YZ_LIMIT, THREADS, KernelPlan, Launch,
                                  NoKernel, baseline_launch, blocks, capped_grid, lowered)
from accy.lowering.values import (Affine, Lowering, identity_index, position_expression,
                                  start_kernel)
from accy.passes.shape_layout import buffer_layout

VECTOR_BYTES = 16           # one 128-bit access
TILE = 32                   # tiled transpose: tile edge, and the threads along it
TILE_ROWS = 8               # ... threads across it (a block of 32 x 8 = 256 threads)


@dataclass(frozen=True)
class ElementwisePlan:
    """The schedule `plan_elementwise` picks for an elementwise or shape item, which
    `lower_elementwise` follows: `name` (serial, vector or tiled_transpose; the module doc
    says when), the kernel's `launch`, and what the schedule moves: `width`, the elements of
    one vector, and `vectored`, the input reads that move as vectors (vector); `tile_dim`,
    the output dim the staged reads walk, `inner`, the output's innermost non-unit dim, and
    `staged`, the reads staged in shared tiles (tiled_transpose). Reads are keyed as
    `Lowering.reads` keys them."""
    name: str
    launch: Launch
    width: int = 0
    vectored: tuple = ()
    tile_dim: int = None
    inner: int = None
    staged: tuple = ()
    workspace: int = 0          # (no elementwise schedule takes scratch)


def plan_elementwise(item, layout, target):
    """The KernelPlan of `item`: the scalar `n`, the element count; the launch domain (blocks
    of THREADS threads, each covering one vector of the output's vector width per grid-stride
    step); and the ElementwisePlan its reads allow (a NoKernel when they cannot be listed)."""
    out = item.outputs[0].type if item.outputs else item.hero.result_types[0]
    n = math.prod(out.shape)
    vec = buffer_layout(out.shape, out.dtype).vector_width()
    try:
        schedule = _schedule(item, layout, target.facts.static_shared)
    except UnsupportedError as e:
        schedule = NoKernel(str(e))
    return KernelPlan((("n", n),), Launch(capped_grid(blocks(n, THREADS * vec)), (THREADS, 1, 1)),
                      schedule)


def _schedule(item, layout, static_shared):
    """The ElementwisePlan the item's reads allow (see the module doc)."""
    root = item.outputs[0].type.shape if item.outputs else ()
    n = math.prod(root)
    if n == 0:
        return ElementwisePlan("serial", baseline_launch(n))
    lister = Lowering(None, layout, {}, item)   # (lists reads only: writes nothing)
    lister.root = (None,) * len(root)           # (only its rank is read)
    reads = lister.reads(item.outputs)
    tiles = _transpose_plan(root, reads, static_shared)
    if tiles is not None:
        a, inner, staged = tiles
        return ElementwisePlan("tiled_transpose", _transpose_launch(root, a, inner),
                               tile_dim=a, inner=inner, staged=tuple(staged))
    width, vectored = _vector_plan(item, root, reads)
    if width:
        # the outline's domain for this width (the outline knows only the output's dtype)
        count = min(max(1, -(-n // (THREADS * width))), GRID_X_LIMIT)
        return ElementwisePlan("vector", Launch((count, 1, 1), (THREADS, 1, 1)), width,
                               tuple(vectored))
    return ElementwisePlan("serial", baseline_launch(n))


def lower_elementwise(context, block, outline, item, layout, target=None):
    """Write the kernel of `item` (kind elementwise or shape) into `block` (a module body)
    under the ElementwisePlan its outline's plan picked; returns its LoweredKernel."""
    root = item.outputs[0].type.shape
    if any(v.type.shape != root for v in item.outputs):
        raise UnsupportedError(f"work item {item.id}: outputs of different shapes")
    plan = outline.schedule
    if isinstance(plan, NoKernel):
        plan.refuse()
    kb, pointers = start_kernel(context, block, outline, item)
    item_lowering = Lowering(kb, layout, pointers, item)
    if plan.name == "tiled_transpose":
        _tiled_transpose(kb, item_lowering, root, plan.tile_dim, plan.inner, plan.staged)
    elif plan.name == "vector":
        _vector(kb, item_lowering, root, plan.width, plan.vectored)
    else:
        _serial(kb, item_lowering, root)
    return lowered(outline, kb.finish(), plan)


def _store_outputs(kb, lowering, linear):
    """Store every output of the item at the root position `linear` (scalar stores)."""
    at_root = identity_index(len(lowering.root))
    for v in lowering.item.outputs:
        kb.store(lowering.value(v, at_root, False), lowering.pointers[v], linear)


# Each schedule below takes `item_lowering`, the item's Lowering that listed its reads, and
# makes a sibling of it (sharing what it worked out) for each element it writes.

def _element_loop(kb, item_lowering, root, first, stride):
    """A grid-stride loop over the root positions [first, n), one element per step."""
    def body(kb, linear):
        lowering = item_lowering.sibling()
        lowering.at_linear(linear, root)
        _store_outputs(kb, lowering, linear)
    kb.for_(first, kb.constant(math.prod(root), "i64"), stride, [], body)


def _serial(kb, item_lowering, root):
    _element_loop(kb, item_lowering, root, kb.global_index(), kb.grid_size())


# ---- vector -----------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _vectorizable(dtype):
    return numpy_dtype(dtype).itemsize in VECTOR_WIDTHS


def _vector_plan(item, root, reads):
    """(width, the reads that move as vectors), or (0, ()) when nothing would."""
    here = position_expression(root)
    vectored = [key for key, address in reads.items()
                if address == here and _vectorizable(key[0].type.dtype)]
    sizes = [numpy_dtype(v.type.dtype).itemsize for v in item.outputs
             if _vectorizable(v.type.dtype)]
    sizes += [numpy_dtype(key[0].type.dtype).itemsize for key in vectored]
    if not sizes:
        return 0, ()
    return VECTOR_BYTES // max(sizes), vectored


def _vector(kb, item_lowering, root, width, vectored):
    item, pointers = item_lowering.item, item_lowering.pointers
    n = math.prod(root)
    count = n // width
    at_root = identity_index(len(root))
    # when the innermost non-unit dim holds whole vectors, lanes differ in that dim only
    sizes = [size for size in root if size != 1]
    whole_rows = bool(sizes) and sizes[-1] % width == 0

    def body(kb, vector):
        base = kb.op("mul", vector, kb.constant(width, "i64"))
        lanes = {}                  # input -> its vector, loaded once however often it is read
        for key in vectored:
            if key[0] not in lanes:
                lanes[key[0]] = kb.vload(pointers[key[0]], base, width)
        invariant, lowerings = {}, []
        values = {v: [] for v in item.outputs}
        for lane in range(width):
            lowering = item_lowering.sibling(invariant)
            lowering.at_linear(base, root, lane,
                               lowerings[0].root if lane and whole_rows else None)
            for key in vectored:
                lowering.preload(key, lanes[key[0]][lane])
            for v in item.outputs:
                values[v].append(lowering.value(v, at_root, False))
            lowerings.append(lowering)
        for v, xs in values.items():        # stored after every lane is read: in place is safe
            if _vectorizable(v.type.dtype):
                kb.vstore(xs, pointers[v], base)
                continue
            for x, lowering in zip(xs, lowerings):
                kb.store(x, pointers[v], lowering.root.linear)

    first, stride = kb.global_index(), kb.grid_size()
    if count:
        kb.for_(first, kb.constant(count, "i64"), stride, [], body)
    if n % width:
        tail = kb.op("add", first, kb.constant(count * width, "i64")) if count else first
        _element_loop(kb, item_lowering, root, tail, stride)


# ---- tiled transpose --------------------------------------------------------------------------

def _transpose_plan(root, reads, static_shared):
    """(a, inner, staged reads) for a tiled transpose (see the module doc), or None: `inner`
    is the output's innermost non-unit dim, `a` the output dim the staged reads walk at
    stride +-1; the staged reads fit `static_shared`, the bytes of static shared memory a
    block may declare."""
    inner = next((d for d in reversed(range(len(root))) if root[d] != 1), None)
    if inner is None:
        return None
    a, staged, used = None, [], 0
    for key, address in reads.items():
        if not isinstance(address, Affine) or abs(address.coeffs[inner]) <= 1:
            continue            # clamped, gathered or reshaped; or coalesced along the rows
        along = [d for d, c in enumerate(address.coeffs) if abs(c) == 1 and root[d] != 1]
        if not along or (a is not None and along[-1] != a):
            continue
        size = TILE * (TILE + 1) * numpy_dtype(_staged_dtype(key[0].type.dtype)).itemsize
        if used + size > static_shared:
            break
        a, used = along[-1], used + size
        staged.append(key)
    return (a, inner, staged) if staged else None


def _staged_dtype(dtype):
    return "u8" if dtype == "i1" else dtype         # (shared memory holds no i1)


def _tiled_transpose(kb, item_lowering, root, a, inner, staged):
    batch = [d for d in range(len(root)) if d not in (a, inner)]
    batches = math.prod(root[d] for d in batch)
    tiles_a, tiles_b = -(-root[a] // TILE), -(-root[inner] // TILE)
    shared = {key: kb.shared(_staged_dtype(key[0].type.dtype), TILE * (TILE + 1))
              for key in staged}
    tx, ty = (kb.convert(kb.special(f"tid.{axis}"), "i64") for axis in "xy")
    const = {n: kb.constant(n, "i64") for n in (TILE, TILE + 1, TILE_ROWS, root[a], root[inner])}

    def tile(kb, z, ta, tb):
        index = dict(zip(batch, item_lowering.unravel(z, [root[d] for d in batch])))
        a0, b0 = (kb.op("mul", t, const[TILE]) for t in (ta, tb))

        def rows(reading, write):
            """For each row j of the tile this thread takes: `write(lowering, slot)` at the
            element (a0 + tx, b0 + j) when `reading`, else (a0 + j, b0 + tx), if it is in
            range; `slot` is the element's place in a shared tile."""
            def row(kb, j):
                at_a, at_b = (tx, j) if reading else (j, tx)
                dims = dict(index)
                dims[a], dims[inner] = kb.op("add", a0, at_a), kb.op("add", b0, at_b)
                ok = kb.op("and", kb.cmp("LT", dims[a], const[root[a]]),
                           kb.cmp("LT", dims[inner], const[root[inner]]))

                def then(kb):
                    lowering = item_lowering.sibling()
                    lowering.root = [dims[d] for d in range(len(root))]
                    write(lowering, kb.op("add", kb.op("mul", at_b, const[TILE + 1]), at_a))
                kb.if_(ok, then)
            kb.for_(ty, const[TILE], const[TILE_ROWS], [], row)

        def stage(lowering, slot):
            for key, tile in shared.items():
                kb.store(kb.convert(lowering.value(*key), pointee(tile.type)), tile, slot)

        def compute(lowering, slot):
            for key, tile in shared.items():
                lowering.preload(key, kb.convert(kb.load(tile, slot), key[0].type.dtype))
            _store_outputs(kb, lowering, lowering.materialize(position_expression(root)))

        rows(True, stage)
        kb.barrier()
        rows(False, compute)
        kb.barrier()            # the tile is read before the block's next tile overwrites it

    def grid(axis, count, body):
        """A grid-stride loop over [0, count) along the grid's `axis`, then `body`."""
        return lambda kb, *outer: kb.for_(
            kb.convert(kb.special(f"ctaid.{axis}"), "i64"), kb.constant(count, "i64"),
            kb.convert(kb.special(f"nctaid.{axis}"), "i64"), [],
            lambda kb, i: body(kb, *outer, i))

    tiles = grid("y", tiles_a, grid("x", tiles_b, tile))
    if batches == 1:
        tiles(kb, None)         # (no batch index to walk)
    else:
        grid("z", batches, tiles)(kb)


def _transpose_launch(root, a, inner):
    """A block of TILE x TILE_ROWS threads per tile of (a, inner) of every batch index."""
    batches = math.prod(root[d] for d in range(len(root)) if d not in (a, inner))
    tiles_a, tiles_b = -(-root[a] // TILE), -(-root[inner] // TILE)
    return Launch((min(tiles_b, GRID_X_LIMIT), min(tiles_a, GRID_YZ_LIMIT),
                   min(batches, GRID_YZ_LIMIT)), (TILE, TILE_ROWS, 1))
