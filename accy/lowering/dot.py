"""Lowering of `dot_general` work items to a `kl.kernel`, on one of two paths.

**Tensor cores** (schedule "mma"), when `mma_plan` accepts the item:
- f16 or bf16 operands, an f16, bf16 or f32 result and accumulation type, in any math tier;
- both operands are inputs of the item, read as they lie in memory (not through a convert or
  another op of the item), with one contracting dim each and their free dims adjacent in
  memory (so each operand is `free` rows by K, with a batch offset);
- each operand's innermost dim of size > 1 is its contracting dim (K-major) or its last free
  dim (free-major, a transposed operand: read with `ldmatrix.trans`), and that dim's extent is
  a multiple of 8 (so every staged row starts 16-byte aligned);
- a non-empty result, with at most 65535 batch entries (the grid's z).
Everything else takes the FMA path: f32 dots under the `exact` tier, f64 and integer dots, an f64
`accumulation_type`, converted or unaligned operands (e.g. a row-major K x N rhs whose N is not
a multiple of 8), several contracting dims.

**tf32** (schedule "mma tf32", "mma tf32 split-k"): f32 operands under a tier of `TF32_TIERS`
(`fast`), on the same conditions with 4-element chunks: each operand's contiguous dim's extent
a multiple of 4 (so a K-major operand needs K % 4 == 0; with both operands free-major any K
works, zero-filled past K; the rest takes the FMA path). `_Tf32Kernel` is the same kernel
(tiles, raster, pipeline, split-K, epilogue) over f32 stages: `_fit` keeps as many stages as
`STAGE_BUDGET` holds (SMALL 3, MEDIUM 3, LARGE 2: 48 and 96 KiB), the copies' 16-byte chunks
hold 4 elements under the same swizzle (rows of 32 or 64 chunks, a thread's chunks 4 rows apart,
take two shared addresses, one per swizzle phase). Fragments of mma.sync m16n8k8 .tf32 (K steps
8 deep, 4 per stage) are read one element a register with ld.shared, since ldmatrix moves 16-bit
elements (the swizzle XORs the whole offset, the stage's included, so the loop carries no
address per fragment element), and rounded to tf32 (`kl.to_tf32`, cvt.rna: the tensor cores
would otherwise truncate). Numerics: each operand rounded to tf32 (10 mantissa bits, relative
error at most 2^-11, so a product's at most about 2^-10), the exact products summed in f32 as
above: a result is within about 2^-10 of the sum of |products| of the f32 dot.

The kernel: a block computes a `Tiles.bm` x `bn` tile of one batch entry. The target's
generated dot schedule for the dot's M, N, K and dtype (`TargetProfile.dot_schedules`) names
the tiles, stages and split-K slices; without one, `_tiles` picks the
largest configuration whose blocks alone fill the GPU's SMs: `LARGE` (128 x 256, 8 warps of
64 x 64, three stages), `MEDIUM` (128 x 128, 4 warps of 64 x 64, four stages), else `SMALL` (64
x 64, 4 warps of 32 x 32, three stages: small problems waste less at the edges). The per-warp
tile decides the ratio of mma to shared-memory loads: 64 x 64 issues 32 mma per 8 ldmatrix x4.
The grid is (tiles, 1, batch): ctaid.x runs over the tiles in groups of `GROUP` row tiles, column
by column within a group, so the blocks resident at once share operand panels in L2. The stages
live in the kernel's dynamic shared memory (`kl.shared {dynamic}`, the launch's `shared_bytes`:
64 and 72 KiB, past the 48 KB static arrays may hold, within every arch's opt-in limit,
`ArchFacts.max_shared_per_block` in accy/passes/target.py). K advances `Tiles.bk` elements per stage
(`BK` = 32 by default, 64 in a generated schedule that asks for it): each thread copies
16-byte chunks of both operand tiles global -> shared with `kl.cp_async` (zero-filled past M, N
and K, so edge tiles need no other guard, and stages past K are copied too, as zeros, so every
stage is written before it is read); a thread's chunks are one chunk column of rows a multiple
of 8 apart, so their addresses are constant offsets from one computed before the loop, which
carries only the stage offset. Staged rows are unpadded; their 16-byte chunks are XOR-swizzled
(`swizzle_value`) so that the 8 rows one ldmatrix phase reads and the chunks a quarter warp's
cp.async writes fall in distinct banks. The pipeline keeps `stages - 1` tiles in flight while
the warps multiply the oldest one: `ldmatrix` x4 loads the A and B fragments (`.trans` for a
free-major operand), `mma.sync` m16n8k16 accumulates in f32 registers; the fragments of the
next 16-deep K step are loaded before the current step's mma (those of a stage's first step
right after the one barrier per stage, carried into the next trip). The epilogue stages the
accumulators in the same shared memory (as f32 rows padded by `PAD`, in one or two bands of
rows), then the block's threads walk the tile in row-major order: each computes the item's
epilogue (bias, activation, scale, residual, convert: the item's other ops, through `Lowering`
at that element, the dot's value being the f32 sum converted to the accumulation type, then to
the result dtype) and stores every output there, guarded by M and N. The kernel declares its
block size (`max_threads`), so ptxas may give a thread the 255 registers a 64 x 64 warp tile
needs (128 accumulators, 32 fragment registers) without spilling.

**Split-K** (schedule "mma split-k"): when the tiles of every batch entry together are fewer
than the GPU's SMs and K holds at least two slices of `MIN_SLICE`, `_slice_depth` cuts K into
slices of a whole number of stages, as many as bring the blocks to the target's SM count (at most K
/ MIN_SLICE);
the grid's y runs over the slices. A block runs the same pipeline over its slice (copies are
zero-filled past the slice's end as past K), stores its f32 accumulators as a partial tile in the
workspace, and thread 0 takes a ticket from the tile's i32 counter there (an atomic add between
fences). The block that takes the last ticket sums the tile's partials in slice order, so the
result does not depend on which block finishes last (no float atomics), and computes and stores
the outputs as the plain epilogue does.

Numerics of the tensor-core path: products of 16-bit operands are exact, sums are f32 in the
hardware's order, so a result differs from the reference's (an f64 sum rounded once) by f32
accumulation error (about K * 2^-24 relative to the sum of |products|; split-K sums each
slice, then the slices, in f32), and then by the roundings to the accumulation and result dtypes.

**FMA** (schedule "serial", the correctness baseline): a thread per output element in a
grid-stride loop; each thread walks the contracting dims in row-major order accumulating
products, then computes the epilogue at its element and writes every output there. Any
batching, contracting and free dims work, and transposed or broadcast operands are read
through their index maps, never materialized. As the reference interpreter computes a dot,
the sum is rounded once to the accumulation type (the op's `accumulation_type`; by default
f32 for f16, bf16 and f32 operands), then converted to the result dtype. Under the `exact`
tier a float dot accumulates in f64 (operands widened, one `fma` per product): results match
the reference except where the two f64 sums (in different orders) round to different sides
of a midpoint. Integer dots accumulate in i64, so they wrap as the accumulation type does.
Under `fast` a float dot accumulates in f32 (f64 when the accumulation or the result is f64).
"""
import math
from dataclasses import dataclass, replace

from accy._core.types import numpy_dtype
from accy.lowering.kl import VECTOR_WIDTHS, KernelBuilder, ptr_type, scalar
from accy.lowering.launch import (GRID_X_LIMIT, GRID_YZ_LIMIT, KernelPlan, Launch,
                                  baseline_launch, blocks, capped_grid, lowered)
from accy.lowering.mma import CHUNK, PAD, swizzle_value
from accy.lowering.values import Affine, Lowering, identity_index, start_kernel
from accy.passes.schedule import DOT_TILE
from accy.passes.shape_layout import row_major_strides
from accy.passes.target import TargetError
from accy.tensor.semantics import accumulation_type

FLOATS = ("f64", "f32", "f16", "bf16")
MMA_OPERANDS = ("f16", "bf16")
TF32_TIERS = ("fast",)  # math tiers whose f32 dots may round their operands to tf32
ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4}  # bytes of a staged operand element
MMA_RESULTS = ("f16", "bf16", "f32")
BK = 32             # K elements per pipeline stage
GROUP = 8           # row tiles of one raster group (blocks launched together share rows)
MIN_SLICE = 4 * BK  # fewest K elements of one split-K slice (enough stages to fill the pipeline)
STAGE_BUDGET = 96 * 1024    # bytes of staged operands: within sm_86/sm_89's 99 KB opt-in limit


@dataclass(frozen=True)
class Tiles:
    """A block tile of bm x bn outputs, warps_m x warps_n warps each computing a wm x wn part
    of it, `stages` operand tiles of `bk` K elements staged at once."""
    bm: int
    bn: int
    warps_m: int
    warps_n: int
    stages: int
    bk: int = BK

    @property
    def threads(self):
        return 32 * self.warps_m * self.warps_n

    @property
    def wm(self):
        return self.bm // self.warps_m

    @property
    def wn(self):
        return self.bn // self.warps_n


# the per-warp tile sets the ratio of mma to ldmatrix: 64 x 64 issues 32 mma per 8 ldmatrix x4
SMALL = Tiles(64, 64, 2, 2, 3)      # 4 warps of 32 x 32: small problems, edge-heavy shapes
MEDIUM = Tiles(128, 128, 2, 2, 4)   # 4 warps of 64 x 64, 64 KiB of stages
LARGE = Tiles(128, 256, 2, 4, 3)    # 8 warps of 64 x 64, 72 KiB of stages


@dataclass(frozen=True)
class Operand:
    """One operand as the tensor-core path reads it: `free` rows (its free dims merged) of K
    elements at element strides `free_stride` and `k_stride`, plus `batch_strides` (one per
    batching dim); `k_major`: K is its contiguous dim (else the free dim is)."""
    value: object
    free: int
    free_stride: int
    k_stride: int
    batch_strides: tuple
    k_major: bool


@dataclass(frozen=True)
class MmaPlan:
    lhs: Operand
    rhs: Operand
    k: int
    batch: tuple            # the result's batch dims
    m_shape: tuple          # the result's lhs free dims
    n_shape: tuple          # the result's rhs free dims
    tiles: Tiles
    grid: tuple             # (tiles, K slices, batch entries)
    depth: int              # K elements of one slice (a multiple of tiles.bk; all of K unsplit)
    passes: int             # bands of rows the epilogue stages its results in
    shared_bytes: int       # the kernel's dynamic shared memory: the stages, or a band
    partials_at: int        # split-K: the workspace's byte offset of the partial tiles
    workspace: int          # split-K: bytes of workspace (0 unsplit)

    @property
    def splits(self):
        return self.grid[1]


@dataclass(frozen=True)
class DotPlan:
    """The schedule `plan_dot` picks for a dot_general item, which `lower_dot` follows: `name`
    (serial: the FMA path; mma, mma tf32 and their split-k: tensor cores), the kernel's
    `launch`, its `workspace` bytes (split-K's tickets and partial tiles), and `mma`, the
    tensor-core MmaPlan (None on the FMA path)."""
    name: str
    launch: Launch
    workspace: int = 0
    mma: MmaPlan = None


def plan_dot(item, layout, target):
    """The KernelPlan of dot_general `item` (its operands' layouts are read from their
    shapes): scalars `m`, `n`, `k`, `batch`; the launch domain (DOT_TILE x DOT_TILE output
    tiles of 256 threads, two shared-memory stages of DOT_TILE x 32 operand tiles; grid
    (column tiles, row tiles, batch)); and the DotPlan (the tensor-core path when `mma_plan`
    accepts the item, else the FMA path)."""
    hero = item.hero
    a = hero.attributes
    lhs, rhs = hero.operand_types
    batch = math.prod(lhs.shape[d] for d in a["lhs_batching_dimensions"])
    k = math.prod(lhs.shape[d] for d in a["lhs_contracting_dimensions"])
    m = math.prod(n for d, n in enumerate(lhs.shape) if d not in a["lhs_batching_dimensions"]
                  and d not in a["lhs_contracting_dimensions"])
    n = math.prod(s for d, s in enumerate(rhs.shape) if d not in a["rhs_batching_dimensions"]
                  and d not in a["rhs_contracting_dimensions"])
    itemsize = numpy_dtype(lhs.dtype).itemsize
    shared = 2 * 2 * DOT_TILE * 32 * itemsize
    return KernelPlan((("m", m), ("n", n), ("k", k), ("batch", batch)), Launch(
        capped_grid(blocks(n, DOT_TILE), blocks(m, DOT_TILE), batch), (256, 1, 1), shared),
        _schedule(item, target))


def _schedule(item, target):
    mma = mma_plan(item, target)
    if mma is None:
        return DotPlan("serial", baseline_launch(math.prod(item.hero.result_types[0].shape)))
    name = "mma tf32" if mma.lhs.value.type.dtype == "f32" else "mma"
    launch = Launch(mma.grid, (mma.tiles.threads, 1, 1), mma.shared_bytes)
    if mma.splits == 1:
        return DotPlan(name, launch, mma=mma)
    return DotPlan(f"{name} split-k", launch, mma.workspace, mma)


def lower_dot(context, block, outline, item, layout, target):
    """Write the kernel of dot_general `item` into `block` under the DotPlan its outline's
    plan picked; it takes the item's inputs and outputs (pointers), then one i64 per outline
    scalar (then the workspace, split-K). Returns its LoweredKernel."""
    plan = outline.schedule
    if plan.mma is not None:
        kernel = _lower_mma(context, block, outline, item, layout, plan.mma)
    else:
        kernel = _lower_fma(context, block, outline, item, layout, target)
    return lowered(outline, kernel, plan)


# ---- which path -------------------------------------------------------------------------------

def mma_plan(item, target):
    """The tensor-core plan of dot_general `item` for `target` (its math tier; its generated
    dot schedule for this shape, else the default rule), or None when it takes the FMA path
    (see the module doc for the conditions)."""
    math_tier = target.math_tier
    dot = item.hero
    a = dot.attributes
    lhs, rhs = dot.operands
    out = dot.result_types[0]
    dtype = lhs.type.dtype
    tensor_cores = dtype in MMA_OPERANDS or dtype == "f32" and math_tier in TF32_TIERS
    if not tensor_cores or out.dtype not in MMA_RESULTS or \
            accumulation_type(a, lhs.type.dtype) not in MMA_RESULTS or 0 in out.shape or \
            lhs not in item.inputs or rhs not in item.inputs:
        return None
    lb, lc = tuple(a["lhs_batching_dimensions"]), tuple(a["lhs_contracting_dimensions"])
    rb, rc = tuple(a["rhs_batching_dimensions"]), tuple(a["rhs_contracting_dimensions"])
    left, right = _operand(lhs, lb, lc), _operand(rhs, rb, rc)
    if left is None or right is None:
        return None
    batch = out.shape[:len(lb)]
    nm = len(lhs.type.shape) - len(lb) - len(lc)
    k = lhs.type.shape[lc[0]]
    generated = target.dot_schedule(left.free, right.free, k, dtype)
    if generated is None:
        tiles = _fit(_tiles(left.free, right.free, math.prod(batch), target.facts.sms),
                     ITEMSIZE[dtype])
    else:
        tiles = _generated_tiles(generated, target)
    count = -(-right.free // tiles.bn) * -(-left.free // tiles.bm)
    if generated is None:
        depth = _slice_depth(count * math.prod(batch), k, target.facts.sms)
    else:
        depth = _generated_depth(generated)
    grid = (count, -(-k // depth), math.prod(batch))
    if grid[0] > GRID_X_LIMIT or grid[2] > GRID_YZ_LIMIT:
        return None
    passes, shared_bytes = _shared_memory(tiles, ITEMSIZE[dtype])
    partials_at, workspace = _split_workspace(tiles, grid)
    return MmaPlan(left, right, k, batch, out.shape[len(lb):len(lb) + nm],
                   out.shape[len(lb) + nm:], tiles, grid, depth, passes, shared_bytes,
                   partials_at, workspace)


def _shared_memory(tiles, itemsize):
    """(bands, bytes) of the kernel's dynamic shared memory: the pipeline's stages of operand
    elements of `itemsize` bytes, which the staged results reuse in as few bands of rows as
    fit there. Dynamic memory: more than the 48 KB of static arrays, within the arch's opt-in
    limit (ArchFacts.max_shared_per_block: the default stages stay within every arch's 99
    KB; `_generated_tiles` checks a generated schedule's against its target's arch)."""
    pipeline = itemsize * tiles.stages * (tiles.bm + tiles.bn) * tiles.bk
    passes = next((p for p in range(1, tiles.warps_m) if tiles.warps_m % p == 0 and
                   _band_bytes(tiles, p) <= pipeline), tiles.warps_m)
    return passes, max(pipeline, _band_bytes(tiles, passes))


def _split_workspace(tiles, grid):
    """(offset of the partials, bytes) of the split-K workspace: a ticket counter per tile
    (i32), then per tile its slices' partial sums (bm x bn f32 each, row-major), tiles in
    (batch, ctaid.x) order; no workspace unsplit."""
    if grid[1] == 1:
        return 0, 0
    tile_count = grid[0] * grid[2]
    partials_at = -(-4 * tile_count // 16) * 16
    return partials_at, partials_at + tile_count * grid[1] * tiles.bm * tiles.bn * 4


def _operand(value, batch, contract):
    """How the tensor-core path reads `value`, or None when it cannot (see the module doc)."""
    shape = value.type.shape
    if len(contract) != 1:
        return None
    (c,) = contract
    strides = row_major_strides(shape)
    big = [d for d in range(len(shape)) if shape[d] > 1]     # a unit dim's stride never counts
    free = [d for d in big if d not in batch and d != c]
    if any(strides[x] != strides[y] * shape[y] for x, y in zip(free, free[1:])):
        return None                 # free dims apart in memory: no one row stride
    inner = big[-1] if big else c
    if inner in batch:
        return None
    rows = math.prod(shape[d] for d in free)
    # every stride outside the contiguous dim is a multiple of its extent, so of a chunk
    if (shape[c] if inner == c else rows) % (16 // ITEMSIZE[value.type.dtype]):
        return None
    return Operand(value, rows, strides[free[-1]] if free else 0, strides[c],
                   tuple(strides[d] for d in batch), inner == c)


def _tiles(m, n, batch, sms):
    """The largest tiles whose blocks alone fill the GPU's `sms` SMs (fewer blocks, each
    reusing its staged operands more), else SMALL (more blocks, less waste at the edges)."""
    for tiles in (LARGE, MEDIUM):
        if -(-m // tiles.bm) * -(-n // tiles.bn) * batch >= sms:
            return tiles
    return SMALL


def _generated_tiles(schedule, target):
    """The Tiles a generated dot schedule names; its stages must fit the shared memory of
    `target`'s arch (the results staged in the epilogue take no more than the stages)."""
    arch, limit = target.arch, target.facts.max_shared_per_block
    tiles = next(t for t in (SMALL, MEDIUM, LARGE)
                 if (t.bm, t.bn) == (schedule.tile_m, schedule.tile_n))
    tiles = replace(tiles, stages=schedule.stages, bk=schedule.tile_k)
    need = max((tiles.bm + tiles.bn) * tiles.bk * ITEMSIZE[schedule.dtype] * tiles.stages,
               _band_bytes(tiles, tiles.warps_m))     # at most what `_MmaKernel` takes
    if need > limit:
        raise TargetError(
            f"accy.target.dot_schedules entry for {schedule.m} x {schedule.n} x {schedule.k} "
            f"{schedule.dtype}: {tiles.stages} stages of {tiles.bm} x {tiles.bn} x {tiles.bk} "
            f"tiles need {need // 1024} KiB of shared memory; {arch} allows "
            f"{limit // 1024} KiB")
    return tiles


def _generated_depth(schedule):
    """K elements of one slice when a generated schedule cuts K into `splits` slices of whole
    stages (the last may be shorter); a cut that cannot give exactly that many is an error."""
    k, splits, bk = schedule.k, schedule.splits, schedule.tile_k
    if splits == 1:
        return k
    depth = -(-k // (splits * bk)) * bk
    if -(-k // depth) != splits:
        raise TargetError(
            f"accy.target.dot_schedules entry for {schedule.m} x {schedule.n} x {k} "
            f"{schedule.dtype}: K = {k} cannot be cut into {splits} slices of whole "
            f"{bk}-deep stages (slices of {depth} give {-(-k // depth)})")
    return depth


def _fit(tiles, itemsize):
    """`tiles` keeping as many of its stages as STAGE_BUDGET holds for operand elements of
    `itemsize` bytes (f32 stages are twice as large as 16-bit ones: LARGE keeps 2, MEDIUM 3)."""
    stage = (tiles.bm + tiles.bn) * tiles.bk * itemsize
    return replace(tiles, stages=min(tiles.stages, STAGE_BUDGET // stage))


def _slice_depth(blocks, k, sms):
    """K elements per split-K slice for `blocks` tiles (all batch entries) over K `k`: all of K
    (one slice) when the tiles alone fill the GPU's SMs; else as many slices as bring the
    blocks to between SMS and 2 SMS, but none shallower than MIN_SLICE, each a whole number of
    stages (the last one may be shorter)."""
    splits = min(-(-sms // blocks), k // MIN_SLICE)
    if blocks >= sms or splits < 2:
        return k
    return -(-k // (splits * BK)) * BK


# ---- the tensor-core path ---------------------------------------------------------------------

@dataclass(frozen=True)
class _Staging:
    """Where one operand's tile of a stage lies in the shared array: `rows` x `cols` elements
    (free x K when K-major, K x free when free-major), unpadded and swizzled (`swizzle_value`), at
    `base` in each stage; `chunk` elements make 16 bytes."""
    rows: int
    cols: int
    base: int
    chunk: int

    @property
    def size(self):
        return self.rows * self.cols

    @property
    def chunks(self):
        """16-byte chunks per row."""
        return self.cols // self.chunk


def _itemsize(value):
    dtype = value.type.dtype
    return 1 if dtype == "i1" else numpy_dtype(dtype).itemsize


def _epilogue_vector(item, n):
    """Result elements of one row the epilogue writes per step: 16 bytes of the widest output
    that moves as vectors, when the result's rows (`n` elements) hold whole runs (so every run
    is aligned, and inside the result or outside it whole); else 1."""
    sizes = [_itemsize(v) for v in item.outputs if _itemsize(v) in VECTOR_WIDTHS]
    run = 16 // max(sizes) if sizes else 1
    return run if run > 1 and n % run == 0 else 1


def _band_bytes(tiles, passes):
    """Bytes of one band of staged f32 results when the epilogue takes `passes` bands."""
    return tiles.bm // passes * (tiles.bn + PAD) * 4


def _staging(operand, free_tile, bk, base, chunk):
    return _Staging(free_tile, bk, base, chunk) if operand.k_major else \
        _Staging(bk, free_tile, base, chunk)


@dataclass(frozen=True)
class _Tile:
    """One operand's tile as this thread sees it: `copies`, its 16-byte chunks of a stage
    (shared index at stage 0, global index at k = 0, whether the chunk's free row exists,
    its K past the thread's first chunk's), `k_left`, K past the first chunk's K, `lanes`, its ldmatrix row addresses at stage 0 keyed by
    what they vary with (K-major: the 16-deep K step, free-major: the 16-wide free block; the
    other adds a constant, `_shift`)."""
    operand: Operand
    staging: _Staging
    copies: tuple
    k_left: object
    lanes: tuple


def _lower_mma(context, block, outline, item, layout, plan):
    if plan.splits == 1:
        kb, pointers = start_kernel(context, block, outline, item)
    else:   # start_kernel's parameters, then the workspace
        kb = KernelBuilder(context, block, outline.name,
                           [ptr_type(v.type.dtype) for v in item.inputs + item.outputs] +
                           [scalar("i64")] * len(outline.scalars) + [ptr_type("i32")])
        pointers = dict(zip(list(item.inputs) + list(item.outputs), kb.params))
    tf32 = plan.lhs.value.type.dtype == "f32"
    (_Tf32Kernel if tf32 else _MmaKernel)(kb, pointers, item, layout, plan).write()
    kb.kernel.set_attribute("max_threads", plan.tiles.threads)  # 255 registers for 64 x 64
    return kb.finish()


class _MmaKernel:
    """Writes the tensor-core kernel of one MmaPlan on 16-bit operands (see the module doc):
    fragments by ldmatrix, mma m16n8k16."""
    shape, kstep = "m16n8k16", 16   # the mma and the K elements one of it takes

    def __init__(self, kb, pointers, item, layout, plan):
        self.kb, self.pointers, self.item, self.layout = kb, pointers, item, layout
        self.plan, self.t = plan, plan.tiles
        t = self.t
        self.element = plan.lhs.value.type.dtype            # as staged
        self.ab = "tf32" if self.element == "f32" else self.element
        itemsize = ITEMSIZE[self.element]
        self.a = _staging(plan.lhs, t.bm, t.bk, 0, 16 // itemsize)
        self.b = _staging(plan.rhs, t.bn, t.bk, self.a.size, 16 // itemsize)
        self.stage = self.a.size + self.b.size  # elements; stages lie one after another
        self.passes = plan.passes               # (`_shared_memory`)
        self.smem = kb.shared(self.element, plan.shared_bytes // itemsize, dynamic=True)
        self.partials_at = plan.partials_at     # (`_split_workspace`)
        self.vector = _epilogue_vector(item, plan.rhs.free)
        self.c = kb.i64
        self.memo = {}          # the `Lowering.memo` of the epilogue's elements

    def write(self):
        kb, t, c = self.kb, self.t, self.c
        self.tid = kb.convert(kb.special("tid.x"), "i64")
        self.lane = kb.op("rem", self.tid, c(32))
        warp = kb.op("div", self.tid, c(32))
        self.warp_m, self.warp_n = kb.op("div", warp, c(t.warps_n)), kb.op("rem", warp,
                                                                             c(t.warps_n))
        row_tile, column_tile = self._raster()
        self.tile_m = kb.op("mul", row_tile, c(t.bm))
        self.tile_n = kb.op("mul", column_tile, c(t.bn))
        self.batch = kb.convert(kb.special("ctaid.z"), "i64")
        self.k_first, self.k_end = c(0), c(self.plan.k)   # this block's K slice
        if self.plan.splits > 1:
            self.slice = kb.convert(kb.special("ctaid.y"), "i64")
            self.k_first = kb.op("mul", self.slice, c(self.plan.depth))
            self.k_end = kb.op("min", kb.op("add", self.k_first, c(self.plan.depth)),
                               c(self.plan.k))
        self.batch_root = Lowering(kb, self.layout, self.pointers, self.item).unravel(
            self.batch, self.plan.batch)
        tiles = (self._tile(self.plan.lhs, self.a, self.tile_m, self.warp_m, True),
                 self._tile(self.plan.rhs, self.b, self.tile_n, self.warp_n, False))
        acc = self._main_loop(tiles)
        if self.plan.splits == 1:
            self._epilogue(acc)
        else:
            self._split_epilogue(acc)

    def _raster(self):
        """(row tile, column tile) of this block: ctaid.x runs over the tiles in groups of
        GROUP row tiles, column by column within a group, so the blocks resident at once
        share a few row and column panels of the operands in L2."""
        kb, c = self.kb, self.c
        rows = -(-self.plan.lhs.free // self.t.bm)
        columns = self.plan.grid[0] // rows
        pid = self.pid = kb.convert(kb.special("ctaid.x"), "i64")
        group, at = kb.op("div", pid, c(GROUP * columns)), kb.op("rem", pid, c(GROUP * columns))
        first = kb.op("mul", group, c(GROUP))
        size = kb.op("min", kb.op("sub", c(rows), first), c(GROUP))    # the last group's rows
        return kb.op("add", first, kb.op("rem", at, size)), kb.op("div", at, size)

    # ---- operand tiles: global -> shared ------------------------------------------------------
    def _tile(self, operand, staging, tile_f, warp, is_a):
        """The loop-invariant part of this thread's work on one operand's tiles: its chunks
        are one chunk column of rows `step` apart, so each lies at a constant distance from
        the first in global memory, and in shared memory from the first of its row % 8 (the
        swizzle's period): one shared address when `step` is a multiple of 8, two when it is
        4 (f32 rows of 32 chunks or more)."""
        kb, c, t = self.kb, self.c, self.t
        per_row = staging.chunks
        step = t.threads // per_row
        count = staging.rows // step
        assert t.threads % per_row == 0 and staging.rows % step == 0, (staging, t)
        start = c(0)
        for stride, index in zip(operand.batch_strides, self.batch_root):
            start = kb.op("add", start, kb.op("mul", index, c(stride)))
        row, chunk = kb.op("div", self.tid, c(per_row)), kb.op("rem", self.tid, c(per_row))
        dsts = {}           # rows down % 8 -> the shared index of that chunk, at rows down - it

        def dst(rows_down):
            phase = rows_down % 8
            if phase not in dsts:
                r = kb.op("add", row, c(phase)) if phase else row
                dsts[phase] = kb.op("add", c(staging.base + phase * staging.cols), kb.op(
                    "add", kb.op("mul", row, c(staging.cols)), kb.op("mul", kb.op(
                        "xor", chunk, swizzle_value(kb, r, per_row)), c(staging.chunk))))
            return kb.op("add", dsts[phase], c((rows_down - phase) * staging.cols))
        col = kb.op("mul", chunk, c(staging.chunk))
        f, k = (row, col) if operand.k_major else (col, row)
        f = kb.op("add", tile_f, f)
        src = kb.op("add", start, kb.op("add", kb.op("mul", f, c(operand.free_stride)),
                                        kb.op("mul", k, c(operand.k_stride))))
        k_left = kb.op("sub", self.k_end, k)     # zero-filled past the slice's K too
        copies = []
        for j in range(count):
            rows_down = j * step            # along the free dim (K-major) or K (free-major)
            if operand.k_major:
                inside = kb.cmp("LT", kb.op("add", f, c(rows_down)), c(operand.free))
                src_j = kb.op("add", src, c(rows_down * operand.free_stride))
            else:
                inside = kb.cmp("LT", f, c(operand.free))
                src_j = kb.op("add", src, c(rows_down * operand.k_stride))
            copies.append((dst(rows_down), src_j, inside,
                           (0 if operand.k_major else rows_down)))
        return _Tile(operand, staging, tuple(copies), k_left,
                     self._lanes(operand, staging, warp, is_a))

    def _issue(self, tiles, k0, stage):
        """Start copying the K tile at `k0` (an i64 value) into the stage at element offset
        `stage`; chunks past M, N or K are zero-filled, reading nothing (a copy of source size
        0 does not touch its address, as CUTLASS's zero-fill copies rely on, so the address
        needs no clamping: fewer instructions and registers in the loop)."""
        kb, c = self.kb, self.c
        full, none = kb.constant(16, "i32"), kb.constant(0, "i32")
        for tile in tiles:
            ptr = self.pointers[tile.operand.value]
            k_offset = kb.op("mul", k0, c(tile.operand.k_stride))
            for dst, src, inside, k_down in tile.copies:
                ok = kb.op("and", inside, kb.cmp("LT", kb.op("add", k0, c(k_down)) if k_down
                                                 else k0, tile.k_left))
                kb.cp_async(self.smem, kb.op("add", stage, dst), ptr,
                            kb.op("add", src, k_offset), 16, kb.op("select", ok, full, none))

    def _main_loop(self, tiles):
        """The K loop: `stages - 1` tiles in flight ahead of the one multiplied, the next 16-deep
        K step's fragments loaded while the current one's mma run (the first step's from the
        next stage, once it has landed, carried into the next trip); returns the accumulators
        (f32, 4 per 16 x 8 fragment, fragments row-major over the warp tile)."""
        kb, c, t = self.kb, self.c, self.t
        bk = t.bk
        steps = -(-self.plan.depth // bk)
        ahead, last = t.stages - 1, (t.stages - 1) * self.stage
        for s in range(ahead):      # zero-filled past K: every stage is written before read
            self._issue(tiles, kb.op("add", self.k_first, c(s * bk)), c(s * self.stage))
            kb.cp_async_wait(t.stages - 2)      # one group per tile
        kb.barrier()
        first = self._fragments(tiles, c(0), 0)
        fragments = (t.wm // 16) * (t.wn // 8)
        nregs = len(first)
        substeps = bk // self.kstep

        def step(kb, k0, stage, *carried):
            regs, acc = list(carried[:nregs]), list(carried[nregs:])
            after = kb.op("select", kb.cmp("EQ", stage, c(last)), c(0), kb.op("add", stage,
                                                                         c(self.stage)))
            for ks in range(substeps):
                if ks == substeps - 1:
                    kb.cp_async_wait(t.stages - 2)  # tile k0 + bk has landed ...
                    kb.barrier()                    # ... for every thread, this stage is read
                    upcoming = self._fragments(tiles, after, 0)
                else:
                    upcoming = self._fragments(tiles, stage, ks + 1)
                if ks == 0:     # into the stage read last trip (every thread is past it)
                    free = kb.op("select", kb.cmp("EQ", stage, c(0)), c(last),
                                     kb.op("sub", stage, c(self.stage)))
                    self._issue(tiles, kb.op("add", k0, c(ahead * bk)), free)
                acc = self._multiply(regs, acc)
                regs = upcoming
            return [after] + regs + acc
        out = kb.for_(self.k_first, kb.op("add", self.k_first, c(steps * bk)), c(bk),
                      [c(0)] + first + [kb.constant(0.0, "f32")] * (4 * fragments), step,
                      unroll=False)
        kb.cp_async_wait(0)     # the zero-filled copies past K land before the epilogue ...
        kb.barrier()            # ... reuses the memory, and every warp is done reading
        return out[1 + nregs:]

    # ---- fragments and mma --------------------------------------------------------------------
    def _lanes(self, operand, staging, warp, is_a):
        """This lane's ldmatrix x4 row addresses (element indices in stage 0) for the warp's
        16 (free) x 16 (K) blocks: lanes 8i..8i+7 point at the rows of matrix i, which is
        (free 0-7, K 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15) for an A operand (its four
        registers) and (0-7, 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15) for a B operand
        (two 8-column fragments). The swizzle of a row depends on the row % 8 only, which
        is the lane's % 8; K-major: one address per K step (the free block adds 16 rows),
        free-major (read with `.trans`): one per free block (the K step adds 16 rows)."""
        kb, c, t = self.kb, self.c, self.t
        lane = self.lane
        i, r = kb.op("div", lane, c(8)), kb.op("rem", lane, c(8))
        low, high = kb.op("rem", i, c(2)), kb.op("div", i, c(2))
        fb, kblock = (low, high) if is_a else (high, low)
        first = kb.op("mul", warp, c(t.wm if is_a else t.wn))
        xor = swizzle_value(kb, r, staging.chunks)
        lanes = []
        if operand.k_major:
            row = kb.op("add", kb.op("add", first, r), kb.op("mul", fb, c(8)))
            for ks in range(t.bk // 16):
                chunk = kb.op("xor", kb.op("add", kblock, c(2 * ks)), xor)
                lanes.append(kb.op("add", c(staging.base), kb.op("add", kb.op(
                    "mul", row, c(staging.cols)), kb.op("mul", chunk, c(CHUNK)))))
        else:
            row = kb.op("add", r, kb.op("mul", kblock, c(8)))
            for block in range((t.wm if is_a else t.wn) // 16):
                chunk = kb.op("add", kb.op("div", first, c(CHUNK)), kb.op("add", fb,
                                                                           c(2 * block)))
                chunk = kb.op("xor", chunk, xor)
                lanes.append(kb.op("add", c(staging.base), kb.op("add", kb.op(
                    "mul", row, c(staging.cols)), kb.op("mul", chunk, c(CHUNK)))))
        return tuple(lanes)

    def _fragments(self, tiles, stage, ks):
        """The warp's A and B fragment registers at K step `ks` of the stage at element
        offset `stage`: A's 16 x 16 blocks (4 registers each), then B's 16 x 8 ones (2)."""
        kb, c, t = self.kb, self.c, self.t
        regs = []
        for tile, blocks in ((tiles[0], t.wm // 16), (tiles[1], t.wn // 16)):
            cols, trans = tile.staging.cols, not tile.operand.k_major
            if tile.operand.k_major:
                base = kb.op("add", tile.lanes[ks], stage)
                at = [kb.op("add", base, c(16 * block * cols)) for block in range(blocks)]
            else:
                at = [kb.op("add", kb.op("add", tile.lanes[block], stage), c(16 * ks * cols))
                      for block in range(blocks)]
            for index in at:
                regs += kb.ldmatrix(self.smem, index, 4, trans=trans)
        return regs

    def _multiply(self, regs, acc):
        """The accumulators after every mma of one K step's fragments `regs`."""
        kb, t = self.kb, self.t
        mt, nt = t.wm // 16, t.wn // 8
        a, b = regs[:4 * mt], regs[4 * mt:]
        for i in range(mt):
            for j in range(nt):
                at = 4 * (i * nt + j)
                acc[at:at + 4] = kb.mma(a[4 * i:4 * i + 4], b[2 * j:2 * j + 2], acc[at:at + 4],
                                        self.ab, self.shape)
        return acc

    # ---- epilogue -------------------------------------------------------------------------------
    def _epilogue(self, acc):
        """Stage the accumulators in shared memory (as f32, `passes` bands of warp rows one
        after the other), then compute and store every output of the tile `vector` elements
        (one row's consecutive columns) a thread, consecutive threads on consecutive runs."""
        kb, c, t = self.kb, self.c, self.t
        staged = kb.view(self.smem, c(0), "f32")
        pitch = t.bn + PAD
        v = self.vector

        def sums(r, col):       # the run's staged sums: 16-byte loads (pitch and col keep
            row = kb.op("mul", r, c(pitch))                         # them aligned)
            flip = kb.op("and", kb.op("shr", col, c(3)), c(4))     # `_stage`'s swizzle
            if v == 1:
                return [kb.load(staged, kb.op("add", row, kb.op("xor", col, flip)))]
            return [x for j in range(0, v, 4) for x in kb.vload(staged, kb.op("add", row, kb.op(
                "xor", kb.op("add", col, c(j)) if j else col, flip)), min(v, 4))]
        rows = t.bm // self.passes
        warps = t.warps_m // self.passes            # warp rows per band
        for p in range(self.passes):
            if p:
                kb.barrier()                        # the band before is read
            if self.passes == 1:
                self._stage(staged, acc, pitch, 0)
            else:
                band = kb.cmp("EQ", kb.op("div", self.warp_m, c(warps)), c(p))
                kb.if_(band, lambda kb: self._stage(staged, acc, pitch, p * warps))
            kb.barrier()
            kb.for_(self.tid, c(rows * t.bn // v), c(t.threads), [],
                    lambda kb, i: self._element(sums, p * rows, i))

    def _stage(self, staged, acc, pitch, first_warp, swizzle=True):
        """Write this warp's accumulators at their rows of the band starting at warp row
        `first_warp`: fragment register pairs (row g, columns 2t, 2t + 1) and (row g + 8).
        `swizzle` (shared memory): column c lies at c ^ ((c >> 3) & 4), its 16-byte chunk
        swapped with its neighbour in every other group of 8 chunks, so the 8 lanes of a
        phase reading every other chunk of a row (8 floats a lane) hit all 32 banks."""
        kb, c, t = self.kb, self.c, self.t
        g, q = kb.op("div", self.lane, c(4)), kb.op("rem", self.lane, c(4))
        row = kb.op("add", kb.op("mul", kb.op("sub", self.warp_m, c(first_warp)), c(t.wm)), g)
        first = kb.op("mul", self.warp_n, c(t.wn))          # a multiple of 8
        pair = kb.op("mul", q, c(2))                        # below 8: never carries past bit 2
        rows = kb.op("mul", row, c(pitch))
        nt = t.wn // 8
        lanes = []
        for j in range(nt):     # the swizzle of column first + 8j + pair, by first + 8j alone
            base = kb.op("add", first, c(8 * j))
            flip = kb.op("and", kb.op("shr", base, c(3)), c(4)) if swizzle else None
            lanes.append(kb.op("add", rows, kb.op("add", base, kb.op("xor", pair, flip)
                                                  if swizzle else pair)))
        for i in range(t.wm // 16):
            for j in range(nt):
                at = 4 * (i * nt + j)
                top = kb.op("add", lanes[j], c(16 * i * pitch))
                kb.vstore(acc[at:at + 2], staged, top)
                kb.vstore(acc[at + 2:at + 4], staged, kb.op("add", top, c(8 * pitch)))

    def _split_epilogue(self, acc):
        """Split-K: publish this block's partial tile in the workspace and take a ticket from
        the tile's counter there (an integer atomic between fences); the block that takes
        the last one sums the tile's partials in slice order (the same sums, in the same
        order, whichever block finishes last) and computes and stores every output."""
        kb, c, t, plan = self.kb, self.c, self.t, self.plan
        workspace = kb.params[-1]
        tile = kb.op("add", kb.op("mul", self.batch, c(plan.grid[0])), self.pid)
        size = t.bm * t.bn
        partials = kb.view(workspace, kb.op("add", c(self.partials_at), kb.op(
            "mul", tile, c(plan.splits * size * 4))), "f32")
        mine = kb.view(partials, kb.op("mul", self.slice, c(size * 4)), "f32")
        self._stage(mine, acc, t.bn, 0, swizzle=False)
        kb.barrier()                    # every thread's part of the partial is written
        ticket = kb.view(self.smem, c(0), "i32")    # the pipeline's memory is free now
        zero = c(0)

        def take(kb):                   # thread 0, for the block
            kb.fence()
            taken = kb.atomic("add", workspace, tile, kb.constant(1, "i32"))
            kb.fence()
            kb.store(taken, ticket, zero)
        kb.if_(kb.cmp("EQ", self.tid, zero), take)
        kb.barrier()
        last = kb.cmp("EQ", kb.load(ticket, zero), kb.constant(plan.splits - 1, "i32"))

        v = self.vector

        def total(r, col):              # the run's sums over the slices, in slice order
            at = kb.op("add", kb.op("mul", r, c(t.bn)), col)

            def add(kb, s, *acc):
                here = kb.op("add", s, at)
                parts = [kb.load(partials, here)] if v == 1 else [
                    x for j in range(0, v, 4)
                    for x in kb.vload(partials, kb.op("add", here, c(j)) if j else here,
                                      min(v, 4))]
                return [kb.op("add", a, x) for a, x in zip(acc, parts)]
            return kb.for_(zero, c(plan.splits * size), c(size),
                           [kb.constant(0.0, "f32")] * v, add)

        def combine(kb):                # the last block: every partial, in slice order
            kb.fence()
            kb.for_(self.tid, c(size // v), c(t.threads), [],
                    lambda kb, i: self._element(total, 0, i))
        kb.if_(last, combine)

    def _element(self, sums, first_row, i):
        """The outputs at run `i` (`vector` consecutive elements of a row) of the tile's rows
        from `first_row` on, when inside the result (N is a multiple of the run, so a run is
        inside or outside whole); sums(row, column) gives the run's f32 sums of the dot."""
        kb, c, t, plan = self.kb, self.c, self.t, self.plan
        at = kb.op("mul", i, c(self.vector)) if self.vector > 1 else i
        r, col = kb.op("div", at, c(t.bn)), kb.op("rem", at, c(t.bn))
        m = kb.op("add", self.tile_m, kb.op("add", r, c(first_row)))
        n = kb.op("add", self.tile_n, col)
        inside = kb.op("and", kb.cmp("LT", m, c(plan.lhs.free)),
                       kb.cmp("LT", n, c(plan.rhs.free)))
        kb.if_(inside, lambda kb: self._outputs(sums(r, col), m, n))

    def _outputs(self, sums, m, n):
        """Every output of the item at the result elements (batch, m, n + j), the dot being
        sums[j] there: a vector store per output whose dtype has one of that width."""
        kb, c, plan, item = self.kb, self.c, self.plan, self.item
        dot = item.hero
        at = identity_index(len(dot.result_types[0].shape))
        row_index = None
        values = {v: [] for v in item.outputs}
        for j, total in enumerate(sums):
            lowering = Lowering(kb, self.layout, self.pointers, item, memo=self.memo)
            row_index = row_index or lowering.unravel(m, plan.m_shape)
            lowering.root = self.batch_root + row_index + lowering.unravel(
                kb.op("add", n, c(j)) if j else n, plan.n_shape)
            lowering.remember(dot.results[0], _rounded(kb, dot, total))
            for v in item.outputs:
                values[v].append(lowering.value(v, at, False))
        rows = kb.op("add", kb.op("mul", self.batch, c(plan.lhs.free)), m)
        linear = kb.op("add", kb.op("mul", rows, c(plan.rhs.free)), n)
        for v, xs in values.items():
            if len(xs) > 1 and len(xs) in VECTOR_WIDTHS.get(_itemsize(v), ()):
                kb.vstore(xs, self.pointers[v], linear)
                continue
            for j, x in enumerate(xs):
                kb.store(x, self.pointers[v], kb.op("add", linear, c(j)) if j else linear)


class _Tf32Kernel(_MmaKernel):
    """The tensor-core kernel on f32 operands (the `fast` tier): the same pipeline, raster and
    epilogue over f32 stages (4-element chunks, the same swizzle), mma m16n8k8 .tf32 on
    fragments read one element a register with ld.shared (ldmatrix moves 16-bit elements
    only) and rounded to tf32 (`kl.to_tf32`)."""
    shape, kstep = "m16n8k8", 8

    def _lanes(self, operand, staging, warp, is_a):
        """(lane, mask): this lane's parts of its fragment elements' offsets, for `_at`. An
        element lies at free index first + fo + g and K index ko + t (g = lane / 4, t = lane
        % 4, `first` the warp's first row or column, fo a multiple of 8, ko of 4 below BK).
        Every swizzle XORs the 16-byte chunk (4 elements) by its row % 8, so its offset is
        ((first + g) cols + t + fo cols + ko) ^ 4 g when K-major (rows of 32 elements),
        (t cols + first + g % 4 + ko cols + (fo ^ 4 (ko % 8))) ^ 4 (g / 4 ^ t) when free-major
        (rows of `cols`, a multiple of 32): the XOR changes bits 2-4 only, which in the sum
        come from the constant alone (t and g % 4 take bits 0-1 and never carry; every other
        term, the stage offsets and `base` included, is a multiple of 32). XORing the whole
        sum, which varies with the stage, keeps ptxas from hoisting a register per (fo, ko)."""
        kb, c = self.kb, self.c
        g, q = kb.op("div", self.lane, c(4)), kb.op("rem", self.lane, c(4))
        first = kb.op("mul", warp, c(self.t.wm if is_a else self.t.wn))
        if operand.k_major:
            lane = kb.op("add", kb.op("mul", kb.op("add", first, g), c(staging.cols)), q)
            mask = kb.op("mul", g, c(4))
        else:
            lane = kb.op("add", kb.op("add", kb.op("mul", q, c(staging.cols)), first),
                         kb.op("rem", g, c(4)))
            mask = kb.op("mul", kb.op("xor", kb.op("div", g, c(4)), q), c(4))
        return kb.op("add", lane, c(staging.base)), mask

    def _at(self, tile, stage, fo, ko):
        """This lane's element of `tile` at free offset `fo`, K offset `ko` in the stage at
        element offset `stage` (see `_lanes`)."""
        kb, c = self.kb, self.c
        lane, mask = tile.lanes
        cols = tile.staging.cols
        const = fo * cols + ko if tile.operand.k_major else ko * cols + (fo ^ 4 * (ko % 8))
        return kb.op("xor", kb.op("add", kb.op("add", stage, lane), c(const)), mask)

    def _fragments(self, tiles, stage, ks):
        """The warp's A and B fragment registers at K step `ks` (8 deep) of the stage at element
        offset `stage`: A's 16 x 8 blocks (rows g, g + 8 at columns t, then t + 4), then B's
        8 x 8 ones (rows t, t + 4 at column g)."""
        kb, t = self.kb, self.t
        k = 8 * ks
        a = [(16 * i + 8 * (r % 2), k + 4 * (r // 2)) for i in range(t.wm // 16)
             for r in range(4)]
        b = [(8 * j, k + 4 * r) for j in range(t.wn // 8) for r in range(2)]
        return [kb.to_tf32(kb.load(self.smem, self._at(tile, stage, fo, ko)))
                for tile, where in zip(tiles, (a, b)) for fo, ko in where]


# ---- the FMA path -----------------------------------------------------------------------------

def _lower_fma(context, block, outline, item, layout, target):
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
    unit = [Affine(tuple(int(j == i) for j in range(extended)), 0) for i in range(extended)]

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
    if out_dtype not in FLOATS:
        acc_dtype = "i64"
    elif target.math_tier == "exact" or "f64" in (out_dtype, accumulation_type(
            a, dot.operand_types[0].dtype)):
        acc_dtype = "f64"
    else:
        acc_dtype = "f32"
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
        lowering.remember(dot.results[0], _rounded(kb, dot, acc))
        for v in item.outputs:
            kb.store(lowering.value(v, result_at, False), pointers[v], linear)

    kb.for_(kb.global_index(), kb.constant(math.prod(out_shape), "i64"), kb.grid_size(), [],
            element)
    return kb.finish()


def _rounded(kb, dot, total):
    """The dot's value from its sum `total`: rounded to the accumulation type, then
    converted to the result dtype (the reference's two steps)."""
    accumulation = accumulation_type(dot.attributes, dot.operand_types[0].dtype)
    return kb.convert(kb.convert(total, accumulation), dot.result_types[0].dtype)
