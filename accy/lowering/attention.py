"""Lowering of `flash_attention` work items to a `kl.kernel`: a `tensor.attention`, composite
or raised (the decomposed pattern dot_general -> elementwise score ops -> max -> subtract ->
exp -> sum -> divide -> (convert) -> dot_general, raised into one op by `raise-attention`).
Both become one `_Spec`: what the scores' dot reads as q, k and v, and the score chain: scale,
additive mask and causal mask for a composite; for a raised one, its `score` region's ops,
computed through `Lowering` at each score with the dot's value remembered for the region's
argument (so any chain works: scales, additive masks, iota masks), then softmax and the values
dot in its own dtypes. A top-left causal mask is known as such (the composite's attribute; in a
raised one, a select ending the chain that hides, by a compare of the key's and the query's
iota, exactly the keys past the query).

Which path, its launch and what the item computes are planned once, in `plan_attention`
(an `AttentionPlan` the outline stores); the lowering follows it.

**Flash** (schedule "flash", `_flash_plan`): q, k and v of one dtype, f16 or bf16; head dims
(q·k and v) of 64 or 128; each read from an item input through element moves only (reshape,
transpose, broadcast, slice) at element strides with the head dim contiguous and every other
stride and the offset a multiple of 8 elements (16-byte rows); at most 65535 batch entries.
A block of 4 warps computes `BM` = 64 query rows (16 per warp) of one batch entry (grid:
query tiles, batch entries). Its Q tile is copied global -> shared once, then held in
registers as mma A fragments. K and V tiles of `BN` = 64 keys stream through two shared
stages with `kl.cp_async` (rows past the sequence zero-filled; the stages take 36 KiB at head
dim 64, in static shared memory, and 68 KiB at 128, in dynamic shared memory), tile t + 1 in
flight while the warps work on tile t. A generated schedule (`accy.target` `attention_schedules`, by
sequence lengths, head dim and dtype) may ask for 128 query rows (8 warps) or 32-key tiles:
- S = Q·Kᵀ with `ldmatrix` + `mma.sync` m16n8k16 into f32;
- each score through the chain at its (query, key) (keys past the sequence: -inf);
- the online softmax in f32: each thread owns two rows of its warp's 16 (mma fragment rows g
  and g + 8, g = lane / 4), the tile's row maximum is combined over the 4 lanes of a quad
  with shuffles, the running output and sum are rescaled by exp(old max - new max) and
  p = exp(s - max) (as `exp2` of an fma, `approx`: the hardware's ex2). A composite's
  positive scale with no additive mask goes into that fma: the max is taken on the unscaled
  dots, which orders them as the scaled ones, saving a multiply per score. Maxima use the
  hardware's max (`kl.max {approx}`), over a row's scores as a tree;
- P, converted to the value dtype, is already laid out as mma A fragments (the accumulator
  layout of two 8-key tiles is the A layout of one 16-key step) for O += P·V, V read with
  `ldmatrix.trans`.
Causal blocks stop at the diagonal (key tiles wholly past their last query are skipped) and
only tiles that reach past their first query or past the sequence are masked: tiles that
need no mask run a loop of their own that skips the causal select (and the key guard). At
the end each row's sum is combined over its quad and O / sum goes through the item's
result (composite: rounded to the compute dtype then to q's; raised: to the values dot's
dtype), stored by pairs under a query-row guard. No score matrix is stored.

Numerics of the flash path: products exact, sums in f32 in the hardware's order, the
softmax in f32 with an approximate exp (about 2 ulp), P rounded to the value dtype before
P·V while the sum it is divided by is not: the result is within a few units of the value
dtype's roundoff (relative to Σ p |v|) of the exact attention. A raised attention's own dtypes
for its softmax (e.g. an f16 sum) are not followed; the score chain's are.

**Serial** (the general path: f32, f64 (host: no f64 exp), other head dims, other layouts):
one thread per query row in a grid-stride loop over (batch, query); the thread computes
each score on the fly (an f64-accumulated dot rounded once to the scores' dtype, then the
chain) and makes three passes over the keys: the row maximum, the sum of exp(s - max), then
for each output column the weighted sum of the values (f64-accumulated), in the reference's
order and dtypes (the composite's decomposition, docs/tensor-ops.md, or the raised one's own
ops), so its results match the reference's (f16 and bf16 bit for bit; f32 within the exact
tier's exp, 1 ulp of each weight). Scores are recomputed in every pass.
"""
import math
import operator
from dataclasses import dataclass

import numpy as np

from accy._core.types import numpy_dtype
from accy.errors import UnsupportedError
from accy.lowering.kl import MMA_TYPES
from accy.lowering.launch import (GRID_X_LIMIT, GRID_YZ_LIMIT, KernelPlan, Launch, NoKernel,
                                  baseline_launch, blocks, capped_grid, lowered)
from accy.lowering.mma import CHUNK, PAD, ldmatrix_lane
from accy.lowering.values import Affine, FloorDiv, Lowering, Mod, Sum, start_kernel
from accy.passes.shape_layout import identity_map, row_major_strides
from accy.tensor.dialect import ATTENTION_COMPUTE, attention_dims
from accy.tensor.semantics import accumulation_type

BM = 64                 # query rows per block (16 a warp), unless a generated schedule says
HEAD_DIMS = (64, 128)   # head dims (of q·k, and of v) on the flash path
BN = 64                 # keys per K/V tile, likewise
LOG2E = 1.4426950408889634
MOVES = frozenset(("tensor.broadcast_in_dim", "tensor.reshape", "tensor.transpose",
                   "tensor.slice", "tensor.reverse"))
COMPARE = {"EQ": operator.eq, "NE": operator.ne, "LT": operator.lt, "LE": operator.le,
           "GT": operator.gt, "GE": operator.ge}


@dataclass(frozen=True)
class AttentionPlan:
    """The schedule `plan_attention` picks for an attention item, which `lower_attention`
    follows: `name` (flash or serial), the kernel's `launch`, `spec`, what the item computes
    (`_Spec`), and `flash`, the flash kernel's `_FlashPlan` (None on the serial path)."""
    name: str
    launch: Launch
    spec: object
    flash: object = None
    workspace: int = 0          # (neither path takes scratch)


def plan_attention(item, layout, target):
    """The KernelPlan of attention `item`: scalars `batch_heads`, `seq_q`, `seq_k` and
    `head_dim`; the launch domain (64 query rows per block of 128 threads, K/V tiles of 64
    rows in two shared-memory stages; grid (query tiles, batch x heads)); and the
    AttentionPlan (the flash path when `_flash_plan` takes the item, else the serial one; a
    NoKernel when no kernel computes it)."""
    batch, sq, sk, d, dv = attention_dims(item.hero)
    heads = math.prod(batch)
    itemsize = numpy_dtype(item.hero.operand_types[0].dtype).itemsize
    shared = 2 * 64 * (d + dv) * itemsize
    scalars = (("batch_heads", heads), ("seq_q", sq), ("seq_k", sk), ("head_dim", d))
    return KernelPlan(scalars, Launch(capped_grid(blocks(sq, 64), heads), (128, 1, 1), shared),
                      _schedule(item, layout, target))


def _schedule(item, layout, target):
    try:
        spec = _raised_spec(item, layout) if "scores" in item.hero.attributes \
            else _composite_spec(item)
    except UnsupportedError as e:
        return NoKernel(str(e))
    flash = _flash_plan(spec, item, layout, target)
    if flash is None:
        return AttentionPlan("serial", baseline_launch(math.prod(spec.batch) * spec.sq), spec)
    return AttentionPlan("flash", Launch(flash.grid, (flash.threads, 1, 1),
                                         flash.dynamic_bytes), spec, flash)


def lower_attention(context, block, outline, item, layout, target=None):
    """Write the kernel of attention `item` into `block` under the AttentionPlan its
    outline's plan picked; it takes the item's inputs and outputs (pointers), then one i64
    per outline scalar. Returns its LoweredKernel."""
    plan = outline.schedule
    if isinstance(plan, NoKernel):
        plan.refuse()
    if plan.flash is not None:
        kernel = _lower_flash(context, block, outline, item, layout, plan.spec, plan.flash)
    else:
        kernel = _lower_serial(context, block, outline, item, layout, plan.spec)
    return lowered(outline, kernel, plan)


# ---- what the item computes -------------------------------------------------------------------

@dataclass(frozen=True)
class _Spec:
    """One attention item as both kernels see it. Every index expression is over the root
    dims (batch dims..., query i, key j, x), x being the head dim for q and k and the value
    column for v and the result. `q`, `k`, `v`: (value, index expressions) of what the dots
    read at (batch, i, x), (batch, j, x), (batch, j, x); `out`: the result's index
    expressions at (batch, i, x); `scores`: `_CompositeScores` or `_RaisedScores`."""
    batch: tuple
    sq: int
    sk: int
    d: int
    dv: int
    q: tuple
    k: tuple
    v: tuple
    out: tuple
    scores: object

    @property
    def i(self):
        return len(self.batch)

    @property
    def j(self):
        return len(self.batch) + 1

    @property
    def x(self):
        return len(self.batch) + 2


def _unit(rank, d):
    return Affine(tuple(int(n == d) for n in range(rank)), 0)


def _at(rank, dims):
    """Index expressions reading root dims `dims` (None: index 0)."""
    return tuple(Affine((0,) * rank, 0) if d is None else _unit(rank, d) for d in dims)


def _composite_spec(item):
    op = item.hero
    if op.operand_types[0].dtype == "f64":
        raise UnsupportedError("attention on f64 (the PTX emitter has no f64 exp)")
    q, k, v = op.operands[:3]
    b, h, sq, d = q.type.shape
    sk, dv = k.type.shape[2], v.type.shape[3]
    rank = 5                # b, h, i, j, x
    return _Spec((b, h), sq, sk, d, dv, (q, _at(rank, (0, 1, 2, 4))),
                 (k, _at(rank, (0, 1, 3, 4))), (v, _at(rank, (0, 1, 3, 4))),
                 _at(rank, (0, 1, 2, 4)), _CompositeScores(op))


def _raised_spec(item, layout):
    op = item.hero
    score_op = op.regions[0].blocks[0]
    z = score_op.last_op.operands[0]
    if z.type.dtype == "f64":
        raise UnsupportedError("attention on f64 (the PTX emitter has no f64 exp)")
    batch, sq, sk, d, dv = attention_dims(op)
    nb = len(batch)
    rank = nb + 3
    i, j, x = nb, nb + 1, nb + 2
    lead = tuple(range(nb))
    q, k, v = op.operands
    scores, values = op.attributes["scores"], op.attributes["values"]
    k_at = (j, x) if scores["rhs_contracting_dimensions"][0] == nb + 1 else (x, j)
    v_at = (j, x) if values["rhs_contracting_dimensions"][0] == nb else (x, j)
    at = _at(rank, lead + (i, j))
    keep = _causal_keep(layout, item, z, at, batch + (sq, sk, 1))
    return _Spec(batch, sq, sk, d, dv, (q, _at(rank, lead + (i, x))), (k, _at(rank, lead + k_at)),
                 (v, _at(rank, lead + v_at)), _at(rank, lead + (i, x)),
                 _RaisedScores(op, z, at, keep))


class _CompositeScores:
    """The score chain and result of a `tensor.attention` op, as its decomposition computes
    them (docs/tensor-ops.md): in the compute dtype `dtype`, scaled, plus the mask, then the
    causal select; p = exp(s - max) / sum rounded to v's dtype; the result rounded to the
    compute dtype, then to q's."""

    def __init__(self, op):
        self.op = op
        q_dtype = op.operand_types[0].dtype
        self.dtype = self.sum_dtype = ATTENTION_COMPUTE.get(q_dtype, q_dtype)
        self.scale = float(op.attributes["scale"].value)
        self.causal = bool(op.attributes.get("causal", False))
        self.mask = None
        if len(op.operands) == 4:       # broadcast onto (b, h, i, j), root dims 0-3
            mask = op.operands[3]
            self.mask = (mask, _at(5, [None if n == 1 else d
                                       for d, n in enumerate(mask.type.shape)]))

    def folded_scale(self):
        """The scale when the online softmax may apply it inside its exp instead: a positive
        scale, no additive mask, f32 scores (max(s * scale) is max(s) * scale, so the max
        is taken on the unscaled dots), else 1.0."""
        return self.scale if self.mask is None and self.dtype == "f32" and self.scale > 0 \
            else 1.0

    def score(self, lw, s, masked, folded=False):
        """The score at the root's (query, key) from the dot `s`; `masked`: apply the causal
        select (tiles that need none skip it); `folded`: leave out a `folded_scale` other
        than 1 (the caller applies it)."""
        kb, ct = lw.kb, self.dtype
        s = kb.convert(s, ct)
        if not folded or self.folded_scale() == 1.0:
            s = kb.op("mul", s, kb.constant(self.scale, ct))
        if self.mask is not None:
            s = kb.op("add", s, kb.convert(lw.value(*self.mask, False), ct))
        if self.causal and masked:
            hidden = kb.cmp("GT", lw.root[3], lw.root[2])
            s = kb.op("select", hidden, kb.constant(-np.inf, ct), s)
        return s

    def exp(self, lw, z, m):
        return lw.kb.op("exp", lw.kb.op("sub", z, m))

    def prob(self, lw, z, m, total):
        p = lw.kb.op("div", self.exp(lw, z, m), total)
        return lw.kb.convert(p, self.op.operand_types[2].dtype)

    def result(self, lw, acc):
        """Make the op's result at the root the weighted sum `acc` (f32 or f64)."""
        kb = lw.kb
        lw.remember(self.op.results[0], kb.convert(kb.convert(acc, self.dtype),
                                                   self.op.result_types[0].dtype))


class _RaisedScores:
    """A raised attention's own ops: its score block from the scores' dot (its argument) to
    `z`, read at `at` = (batch, i, j), then softmax and the values dot in the op's dtypes, as
    the ops it was raised from computed them; `keep`: (the compare value, the truth that
    keeps a score) of a recognized causal select ending the chain, else None."""

    def __init__(self, op, z, at, keep):
        self.op, self.z = op, z
        self.scores = op.regions[0].blocks[0].arguments[0]
        self.dtype = z.type.dtype
        self.sum_dtype = op.attributes.get("sum_dtype", self.dtype)     # wider, when it is
        self.at, self.keep = at, keep

    @property
    def causal(self):
        return self.keep is not None

    def folded_scale(self):
        return 1.0                      # the chain is the op's own ops, computed as is

    def score(self, lw, s, masked, folded=False):
        kb = lw.kb
        lw.remember(self.scores, _dot_value(kb, self.op.attributes["scores"],
                                            self.op.operand_types[0].dtype,
                                            self.scores.type.dtype, s))
        if self.keep is not None and not masked:
            lw.remember(self.keep[0], kb.constant(self.keep[1], "i1"))
        return lw.value(self.z, self.at, False)

    def exp(self, lw, z, m):
        """exp(z - m), z read again as the softmax's subtract reads it: at the index its
        identity map gives, an entry of its own in the scope (the chain's last op is
        computed again there, the ops below it are found)."""
        kb = lw.kb
        at, _ = lw.apply(identity_map(self.z.type.shape), self.at)
        return kb.op("exp", kb.op("sub", lw.value(self.z, at, False), m))

    def prob(self, lw, z, m, total):
        """exp(z - m) / total (the sum converted back to z's dtype), converted to v's."""
        kb = lw.kb
        p = self.exp(lw, z, m)
        return kb.convert(kb.op("div", p, kb.convert(total, self.dtype)),
                          self.op.operand_types[2].dtype)

    def result(self, lw, acc):
        a = self.op.attributes
        lw.remember(self.op.results[0], _dot_value(lw.kb, a["values"],
                                                   self.op.operand_types[2].dtype,
                                                   a["value_dtype"], acc))


def _dot_value(kb, dims, operand_dtype, dtype, total):
    """The value of a dot_general by dimensions `dims` (its attributes) of `operand_dtype`
    operands into `dtype`, from its sum `total`, as the reference rounds it: to the
    accumulation type, then to the result dtype."""
    accumulation = accumulation_type(dict(dims.items()), operand_dtype)
    return kb.convert(kb.convert(total, accumulation), dtype)


# ---- index expressions ------------------------------------------------------------------------

def _affine(e, extents):
    """Index expression `e` (`Lowering`'s form) as an affine one over root dims of `extents`,
    or None: a floordiv or mod of an affine expression simplifies when the terms whose
    coefficients the divisor does not divide stay within [0, divisor) (a reshape's index
    arithmetic over a row-major buffer)."""
    if isinstance(e, Affine):
        return e
    if isinstance(e, Sum):
        parts = [(c, _affine(x, extents)) for c, x in e.terms]
        if any(x is None for _, x in parts):
            return None
        coeffs = [sum(c * x.coeffs[n] for c, x in parts) for n in range(len(extents))]
        return Affine(tuple(coeffs), e.offset + sum(c * x.offset for c, x in parts))
    if isinstance(e, FloorDiv):
        n = e.divisor
    elif isinstance(e, Mod):
        n = e.modulus
    else:
        return None
    inner = _affine(e.expr, extents)
    if inner is None:
        return None
    whole = [c if c % n == 0 else 0 for c in inner.coeffs]
    rest = [c - w for c, w in zip(inner.coeffs, whole)]
    low = inner.offset + sum(min(0, c * (size - 1)) for c, size in zip(rest, extents))
    high = inner.offset + sum(max(0, c * (size - 1)) for c, size in zip(rest, extents))
    if low < 0 or high >= n:
        return None
    if isinstance(e, FloorDiv):
        return Affine(tuple(w // n for w in whole), 0)
    return Affine(tuple(rest), inner.offset)


def _probe(layout, item, rank):
    """A Lowering that only composes index expressions (it writes nothing)."""
    probe = Lowering(None, layout, None, item)
    probe.root = (None,) * rank
    return probe


def _operand(probe, op, n, idx):
    """Operand `n` of `op` and its index expressions where `op` is read at `idx`, or (None,
    None) under a guard (pad, concatenate)."""
    idx, guards = probe.apply(probe.layout.index_map(op, n), idx)
    return (None, None) if guards else (op.operands[n], idx)


def _follow(probe, value, idx):
    """`value` read at `idx`, followed down through element moves to an item input or the
    first other op: (that value, its index expressions), or (None, None) past a guard."""
    while value is not None and value not in probe.inputs and not value.is_block_argument \
            and value.owner.name in MOVES:
        value, idx = _operand(probe, value.owner, 0, idx)
    return value, idx


def _op_of(probe, value, name):
    """The op named `name` computing `value` inside the item, else None (a block argument,
    such as the scores themselves at the start of a raised attention's score region, has
    none)."""
    if value is None or value in probe.inputs or value.is_block_argument or \
            value.owner.name != name:
        return None
    return value.owner


def _causal_keep(layout, item, z, at, extents):
    """(compare value, truth that keeps) when `z`, the end of the score chain, is a select
    between the score and -inf on a compare of the key's and the query's iota that keeps
    exactly the keys j <= i (top-left causal); else None."""
    probe = _probe(layout, item, len(extents))
    op = _op_of(probe, z, "tensor.select")
    if op is None:
        return None
    pred, pred_at = _follow(probe, *_operand(probe, op, 0, at))
    compare = _op_of(probe, pred, "tensor.compare")
    hide = [n for n in (1, 2)
            if _is_minus_inf(probe, _follow(probe, *_operand(probe, op, n, at))[0])]
    if compare is None or len(hide) != 1:
        return None
    sides = [_iota_dim(probe, *_operand(probe, compare, n, pred_at), extents) for n in (0, 1)]
    i, j = len(extents) - 3, len(extents) - 2
    if not set(sides) <= {i, j}:
        return None
    keep_when = hide == [2]
    relation = COMPARE[compare.attributes["comparison_direction"]]
    for point, kept in (((1, 0), True), ((1, 1), True), ((0, 1), False)):
        where = dict(zip((i, j), point))
        if (relation(where[sides[0]], where[sides[1]]) == keep_when) != kept:
            return None
    return compare.results[0], keep_when


def _is_minus_inf(probe, value):
    op = _op_of(probe, value, "tensor.constant")
    if op is None:
        return False
    array = op.attributes["value"].array.reshape(-1)
    return array.size > 0 and bool(np.all(array == -np.inf))


def _iota_dim(probe, value, idx, extents):
    """The root dim an iota read at `idx` (through element moves) counts, else None."""
    value, idx = _follow(probe, value, idx)
    op = _op_of(probe, value, "tensor.iota")
    if op is None:
        return None
    e = _affine(idx[op.attributes["iota_dimension"]], extents)
    if e is None or e.offset != 0 or sorted(e.coeffs) != [0] * (len(extents) - 1) + [1]:
        return None
    return e.coeffs.index(1)


# ---- the flash path: which items take it ------------------------------------------------------

@dataclass(frozen=True)
class _Read:
    """How the flash kernel reads q, k or v: the item input, the element strides of the batch
    dims and of the row dim (query or key), and the offset; the head dim is contiguous."""
    value: object
    batch: tuple
    row: int
    offset: int


@dataclass(frozen=True)
class _FlashPlan:
    q: _Read
    k: _Read
    v: _Read
    ab: str         # the dtype of q, k, v (and of P)
    bm: int         # query rows per block (16 a warp)
    bn: int         # keys per K/V tile
    grid: tuple
    dynamic_bytes: int  # the K/V stages' bytes when they are dynamic shared memory, else 0

    @property
    def threads(self):
        return 2 * self.bm


def _flash_plan(spec, item, layout, target):
    """The flash plan of `spec` (blocks from `target`'s generated schedule for its shape, else
    BM x BN), or None when it takes the serial path (module doc)."""
    dtype = spec.q[0].type.dtype
    if dtype not in MMA_TYPES or any(r[0].type.dtype != dtype for r in (spec.k, spec.v)) or \
            spec.d not in HEAD_DIMS or spec.dv not in HEAD_DIMS or 0 in (spec.sq, spec.sk):
        return None
    generated = target.attention_schedule(spec.sq, spec.sk, spec.d, dtype) \
        if spec.d == spec.dv else None
    bm, bn = (generated.block_q, generated.block_k) if generated else (BM, BN)
    grid = (-(-spec.sq // bm), math.prod(spec.batch), 1)
    if grid[0] > GRID_X_LIMIT or grid[1] > GRID_YZ_LIMIT:
        return None
    extents = spec.batch + (spec.sq, spec.sk)
    reads = [_strided(layout, item, spec, spec.q, spec.i, extents + (spec.d,)),
             _strided(layout, item, spec, spec.k, spec.j, extents + (spec.d,)),
             _strided(layout, item, spec, spec.v, spec.j, extents + (spec.dv,))]
    if None in reads:
        return None
    return _FlashPlan(*reads, dtype, bm, bn, grid,
                      _stage_bytes(spec, bn, target.facts.static_shared))


def _stage_bytes(spec, bn, static_shared):
    """The bytes of dynamic shared memory the flash kernel's two K/V stages of `bn` rows take
    (`_FlashKernel.stage` elements each, 16-bit): 0 when they fit the target's static limit
    `static_shared` (static arrays), else all of them (68 KiB at head dim 128, within every
    arch's opt-in limit; the launch asks for it)."""
    nbytes = 2 * 2 * bn * (spec.d + PAD + spec.dv + PAD)
    return nbytes if nbytes > static_shared else 0


def _strided(layout, item, spec, read, row, extents):
    """The `_Read` of q, k or v (`read`: value, index expressions; `row`: its row's root
    dim), or None when the flash kernel cannot copy its rows in 16-byte chunks."""
    probe = _probe(layout, item, len(extents))
    value, idx = _follow(probe, *read)
    if value is None or value not in probe.inputs:
        return None
    shape = value.type.shape
    e = _affine(Sum(tuple((s, x) for s, x, n in zip(row_major_strides(shape), idx, shape)
                          if n != 1), 0), extents)
    if e is None:
        return None
    # a dim of extent 1 is always read at 0, whatever its coefficient
    coeffs, offset = tuple(0 if n == 1 else c for c, n in zip(e.coeffs, extents)), e.offset
    strides = coeffs[:spec.i] + (coeffs[row], offset)
    other = spec.j if row == spec.i else spec.i
    if coeffs[spec.x] != 1 or coeffs[other] or any(s % CHUNK for s in strides):
        return None
    return _Read(value, coeffs[:spec.i], coeffs[row], offset)


# ---- the flash kernel -------------------------------------------------------------------------

def _lower_flash(context, block, outline, item, layout, spec, plan):
    kb, pointers = start_kernel(context, block, outline, item)
    kb.kernel.set_attribute("max_threads", plan.threads)    # ptxas may give a thread 255
    _FlashKernel(kb, pointers, item, layout, spec, plan).write()
    return kb.finish()


@dataclass(frozen=True)
class _Copy:
    """This thread's part of copying tiles of one operand global -> shared: 16-byte chunks
    `step` tile rows apart, the first at tile row `row` and shared offset `dst` (in a
    stage); `src`: its global position at tile row 0."""
    read: _Read
    src: object
    dst: object
    row: object
    step: int
    pitch: int


class _FlashKernel:
    """Writes the flash kernel of one `_FlashPlan` (see the module doc)."""

    def __init__(self, kb, pointers, item, layout, spec, plan):
        self.kb, self.pointers, self.item, self.layout = kb, pointers, item, layout
        self.spec, self.plan, self.bn = spec, plan, plan.bn
        self.q_pitch, self.v_pitch = spec.d + PAD, spec.dv + PAD
        self.v_area = self.bn * self.q_pitch           # K rows first, then V rows
        self.stage = self.v_area + self.bn * self.v_pitch
        # the Q tile is staged in stage 1 before the first K/V tile goes there
        assert plan.bm * self.q_pitch <= self.stage
        # two stages, static or dynamic as the plan says (`_stage_bytes`)
        self.smem = kb.shared(plan.ab, 2 * self.stage, dynamic=bool(plan.dynamic_bytes))
        self.c = kb.i64

    def write(self):
        kb, c, spec = self.kb, self.c, self.spec
        self.tid = kb.convert(kb.special("tid.x"), "i64")
        lane = kb.op("rem", self.tid, c(32))
        warp = kb.op("div", self.tid, c(32))
        self.quad = kb.op("rem", lane, c(4))
        self.q0 = kb.op("mul", kb.convert(kb.special("ctaid.x"), "i64"), c(self.plan.bm))
        self.entry = kb.convert(kb.special("ctaid.y"), "i64")
        self.lw = Lowering(kb, self.layout, self.pointers, self.item)
        self.root = self.lw.unravel(self.entry, spec.batch) + [c(0)] * 3
        self.lw.root = self.root
        first = kb.op("add", self.q0, kb.op("add", kb.op("mul", warp, c(16)),
                                            kb.op("div", lane, c(4))))
        self.rows = [first, kb.op("add", first, c(8))]      # fragment rows g and g + 8
        self.copies = [self._copy(self.plan.q, spec.d, self.q_pitch),
                       self._copy(self.plan.k, spec.d, self.q_pitch),
                       self._copy(self.plan.v, spec.dv, self.v_pitch)]
        self._issue(self.copies[0], self.plan.bm, self.q0, spec.sq, c(self.stage))
        end, free = self._tile_bounds()
        self._issue_kv(c(0))
        kb.cp_async_wait(0)
        kb.barrier()
        at = kb.op("add", c(self.stage), ldmatrix_lane(
            kb, lane, kb.op("mul", warp, c(16)), self.q_pitch, True, True))
        self.q_frags = [kb.ldmatrix(self.smem, kb.op("add", at, c(16 * ks)), 4)
                        for ks in range(spec.d // 16)]
        self.k_lane = ldmatrix_lane(kb, lane, c(0), self.q_pitch, True, False)
        self.v_lane = kb.op("add", c(self.v_area),
                            ldmatrix_lane(kb, lane, c(0), self.v_pitch, False, False))
        state = [kb.constant(-np.inf, "f32")] * 2 + [kb.constant(0.0, "f32")] * (
            2 + spec.dv // 2)
        for lo, hi, masked in ((c(0), free, False), (free, end, True)):
            state = kb.for_(lo, hi, c(1), state,    # kept loops: unrolled, two of them
                            lambda kb, t, *s, masked=masked: self._tile(t, list(s), end,
                                                                        masked),
                            unroll=False)                 # run out of registers
        self._epilogue(state)

    def _tile_bounds(self):
        """(the key tiles this block reads, those of them that need no mask) as i64 values:
        a causal block stops at the tile of its last query (or the sequence's end), and only
        tiles wholly at or before its first query need no causal mask."""
        kb, c, spec, bn = self.kb, self.c, self.spec, self.bn
        if not spec.scores.causal:
            return c(-(-spec.sk // bn)), c(spec.sk // bn)
        last = kb.op("min", kb.op("add", self.q0, c(self.plan.bm)), c(min(spec.sq, spec.sk)))
        end = kb.op("div", kb.op("add", last, c(bn - 1)), c(bn))
        free = kb.op("min", kb.op("div", kb.op("add", self.q0, c(1)), c(bn)),
                     c(spec.sk // bn))
        return end, free

    # ---- copies global -> shared --------------------------------------------------------------
    def _copy(self, read, cols, pitch):
        kb, c = self.kb, self.c
        per_row = cols // CHUNK
        step = self.plan.threads // per_row
        row, col = kb.op("div", self.tid, c(per_row)), kb.op("mul", kb.op(
            "rem", self.tid, c(per_row)), c(CHUNK))
        src = kb.op("add", c(read.offset), kb.op("add", kb.op("mul", row, c(read.row)), col))
        for stride, index in zip(read.batch, self.root):
            src = kb.op("add", src, kb.op("mul", index, c(stride)))
        dst = kb.op("add", kb.op("mul", row, c(pitch)), col)
        return _Copy(read, src, dst, row, step, pitch)

    def _issue(self, copy, rows, first, limit, at):
        """Start copying tile rows `first` (an i64 value) to `first + rows` of `copy`'s
        operand to shared offset `at`; rows at or past `limit` are zero-filled."""
        kb, c, step = self.kb, self.c, copy.step
        full, none = kb.constant(16, "i32"), kb.constant(0, "i32")
        ptr = self.pointers[copy.read.value]
        base = kb.op("add", copy.src, kb.op("mul", first, c(copy.read.row)))
        left = kb.op("sub", kb.op("sub", c(limit), first), copy.row)    # this thread's rows
        at = kb.op("add", at, copy.dst)
        for n in range(rows // step):
            ok = kb.cmp("LT", c(n * step), left)
            src = kb.op("add", base, c(n * step * copy.read.row))
            kb.cp_async(self.smem, kb.op("add", at, c(n * step * copy.pitch)), ptr,
                        kb.op("select", ok, src, c(0)), 16, kb.op("select", ok, full, none))

    def _issue_kv(self, t):
        """Start copying key tile `t` (an i64 value) into stage t % 2."""
        kb, c, bn, sk = self.kb, self.c, self.bn, self.spec.sk
        at = kb.op("mul", kb.op("rem", t, c(2)), c(self.stage))
        first = kb.op("mul", t, c(bn))
        self._issue(self.copies[1], bn, first, sk, at)
        self._issue(self.copies[2], bn, first, sk, kb.op("add", at, c(self.v_area)))

    # ---- one key tile -------------------------------------------------------------------------
    def _tile(self, t, state, end, masked):
        """The running (max, sum, output) after key tile `t`, whose copies are in flight; tile
        t + 1's copies start first (into the stage tile t - 1 used)."""
        kb, c = self.kb, self.c
        kb.barrier()                        # every warp is done with tile t - 1
        nxt = kb.op("add", t, c(1))
        kb.if_(kb.cmp("LT", nxt, end), lambda kb: self._issue_kv(nxt))
        kb.cp_async_wait(1)                 # tile t has landed ...
        kb.barrier()                        # ... for every thread
        at = kb.op("mul", kb.op("rem", t, c(2)), c(self.stage))
        s = self._scores(at)
        z = self._chain(s, kb.op("mul", t, c(self.bn)), masked)
        m, total, o = state[:2], state[2:4], state[4:]
        m, total, o, p = self._online_softmax(z, m, total, o)
        return m + total + self._accumulate(p, at, o)

    def _scores(self, at):
        """S = Q·Kᵀ for the warp's 16 rows and the tile's keys: per 8-key tile, the f32 mma
        accumulator (rows g, g + 8; keys 2q, 2q + 1 of the quad's lane q)."""
        kb, c = self.kb, self.c
        zero = kb.constant(0.0, "f32")
        s = [[zero] * 4 for _ in range(self.bn // 8)]
        lane = kb.op("add", at, self.k_lane)
        for ks in range(self.spec.d // 16):
            for p in range(self.bn // 16):
                regs = kb.ldmatrix(self.smem, kb.op("add", lane, c(
                    16 * p * self.q_pitch + 16 * ks)), 4)
                s[2 * p] = kb.mma(self.q_frags[ks], regs[:2], s[2 * p], self.plan.ab)
                s[2 * p + 1] = kb.mma(self.q_frags[ks], regs[2:], s[2 * p + 1], self.plan.ab)
        return s

    def _chain(self, s, k0, masked):
        """Each score through the item's chain at its (query, key), as f32."""
        kb, c = self.kb, self.c
        keys = kb.op("add", k0, kb.op("mul", self.quad, c(2)))
        rows = [kb.op("min", r, c(self.spec.sq - 1)) for r in self.rows]
        return [[self._score(value, rows[e // 2], kb.op("add", keys, c(8 * n + e % 2)),
                             masked) for e, value in enumerate(frag)]
                for n, frag in enumerate(s)]

    def _score(self, s, row, key, masked):
        kb, spec, lw = self.kb, self.spec, self.lw
        inside = kb.cmp("LT", key, self.c(spec.sk)) if masked and spec.sk % self.bn else None
        if inside is not None:      # a key past the sequence: its inputs' reads stay inside
            key = kb.op("min", key, self.c(spec.sk - 1))
        z = self._at({spec.i: row, spec.j: key},
                     lambda: kb.convert(spec.scores.score(lw, s, masked, True), "f32"))
        if inside is None:
            return z
        return kb.op("select", inside, z, kb.constant(-np.inf, "f32"))

    def _at(self, where, fn):
        """`fn()` with root dims `where` ({dim: i64 value}) set, in a Lowering scope of its
        own (nothing it computes there is reused at other indices)."""
        saved = {d: self.root[d] for d in where}
        self.lw.push()
        for d, value in where.items():
            self.root[d] = value
        try:
            return fn()
        finally:
            self.lw.pop()
            for d, value in saved.items():
                self.root[d] = value

    def _quad(self, combine, value):
        """`combine` of `value` over the 4 lanes of this lane's quad."""
        kb = self.kb
        for mask in (1, 2):
            value = combine(value, kb.shuffle("xor", value, kb.constant(mask, "i32")))
        return value

    def _max(self, a, b):
        """The larger of `a` and `b` by the hardware's max (kl.max's NaN and signed-zero rules
        take four instructions; a NaN score still reaches the sum through its own exp)."""
        return self.kb.op("max", a, b, approx=True)

    def _online_softmax(self, z, m, total, o):
        """The new running max and sum per row, the output rescaled, and p = exp(z - max)."""
        kb = self.kb
        scale = LOG2E * self.spec.scores.folded_scale()     # exp(x) = 2^(x log2 e)
        factor = kb.constant(scale, "f32")
        p = [[None] * 4 for _ in z]
        alpha = []
        for h in (0, 1):                # fragment elements 2h, 2h + 1 are row h's
            top = _tree(self._max, [frag[e] for frag in z for e in (2 * h, 2 * h + 1)])
            new = self._max(m[h], self._quad(self._max, top))
            # a row whose scores are all -inf so far: subtract 0 (exp(-inf - -inf) is NaN)
            used = kb.op("select", kb.cmp("EQ", new, kb.constant(-np.inf, "f32")),
                         kb.constant(0.0, "f32"), new)
            shift = kb.op("mul", used, kb.constant(-scale, "f32"))
            alpha.append(_exp2(kb, kb.op("fma", m[h], factor, shift)))
            for n, frag in enumerate(z):
                for e in (2 * h, 2 * h + 1):
                    p[n][e] = _exp2(kb, kb.op("fma", frag[e], factor, shift))
            row = kb.constant(0.0, "f32")   # a chain: off the path to P·V, and a tree would
            for n in range(len(z)):         # hold more registers than the masked kernels have
                for e in (2 * h, 2 * h + 1):
                    row = kb.op("add", row, p[n][e])
            m[h] = new
            total[h] = kb.op("fma", total[h], alpha[h], row)
        o = [kb.op("mul", value, alpha[n % 4 // 2]) for n, value in enumerate(o)]
        return m, total, o, p

    def _accumulate(self, p, at, o):
        """O + P·V: P, rounded to the value dtype, packed as A fragments (16 keys each)."""
        kb, c, ab = self.kb, self.c, self.plan.ab

        def pair(lo, hi):
            return kb.pack(kb.convert(lo, ab), kb.convert(hi, ab))
        a = [[pair(*p[2 * s][0:2]), pair(*p[2 * s][2:4]), pair(*p[2 * s + 1][0:2]),
              pair(*p[2 * s + 1][2:4])] for s in range(self.bn // 16)]
        lane = kb.op("add", at, self.v_lane)
        for s in range(self.bn // 16):
            for n in range(self.spec.dv // 16):
                regs = kb.ldmatrix(self.smem, kb.op("add", lane, c(
                    16 * s * self.v_pitch + 16 * n)), 4, trans=True)
                o[8 * n:8 * n + 4] = kb.mma(a[s], regs[:2], o[8 * n:8 * n + 4], ab)
                o[8 * n + 4:8 * n + 8] = kb.mma(a[s], regs[2:], o[8 * n + 4:8 * n + 8], ab)
        return o

    # ---- the result ---------------------------------------------------------------------------
    def _epilogue(self, state):
        """O / sum through the item's result, stored by pairs of columns for each row of the
        thread that is inside the sequence."""
        kb, c = self.kb, self.c
        total, o = state[2:4], state[4:]
        for h in (0, 1):
            row_sum = self._quad(lambda a, b: kb.op("add", a, b), total[h])
            inverse = kb.op("div", kb.constant(1.0, "f32"), row_sum)
            kb.if_(kb.cmp("LT", self.rows[h], c(self.spec.sq)),
                   lambda kb, h=h, inverse=inverse: self._store_row(o, h, inverse))

    def _store_row(self, o, h, inverse):
        kb, c, spec, lw = self.kb, self.c, self.spec, self.lw
        row = self.rows[h]
        line = kb.op("mul", kb.op("add", kb.op("mul", self.entry, c(spec.sq)), row),
                     c(spec.dv))
        columns = kb.op("mul", self.quad, c(2))
        for n in range(spec.dv // 8):
            col = kb.op("add", columns, c(8 * n))
            pairs = []
            for e in (2 * h, 2 * h + 1):
                def outputs(e=e):
                    spec.scores.result(lw, kb.op("mul", o[4 * n + e], inverse))
                    return [lw.value(v, spec.out, False) for v in self.item.outputs]
                pairs.append(self._at({spec.i: row, spec.x: kb.op("add", col, c(e % 2))},
                                      outputs))
            for v, lo, hi in zip(self.item.outputs, *pairs):
                kb.vstore([lo, hi], self.pointers[v], kb.op("add", line, col))


def _tree(combine, values):
    """`combine` over `values` as a balanced tree: a chain as deep as log2 of their count,
    whose steps the hardware overlaps, rather than one step after another."""
    while len(values) > 1:
        values = [combine(values[i], values[i + 1]) if i + 1 < len(values) else values[i]
                  for i in range(0, len(values), 2)]
    return values[0]


def _exp2(kb, x):
    """2^x by the hardware's approximation: the flash path's results are approximate anyway,
    and the exact tier's exp would cost more than the tensor-core work."""
    return kb.op("exp2", x, approx=True)


# ---- the serial path --------------------------------------------------------------------------

def _lower_serial(context, block, outline, item, layout, spec):
    """A thread per query row (see the module doc)."""
    kb, pointers = start_kernel(context, block, outline, item)
    chain = spec.scores

    def row_body(kb, r):
        lw = Lowering(kb, layout, pointers, item)
        root = lw.unravel(r, spec.batch + (spec.sq,)) + [kb.constant(0, "i64")] * 2
        lw.root = root

        def c(value, dt="i64"):
            return kb.constant(value, dt)

        def loop(n, inits, body):
            return kb.for_(c(0), c(n), c(1), inits, body)

        def at(index, dim, fn):
            """Run `fn` in a scope where root dim `dim` is `index`."""
            saved = root[dim]
            lw.push()
            root[dim] = index
            try:
                return fn()
            finally:
                lw.pop()
                root[dim] = saved

        def score():
            """The score of the current query and key, through the chain."""
            def term(kb, t, acc):
                def read():
                    x = kb.convert(lw.value(*spec.q, False), "f64")
                    y = kb.convert(lw.value(*spec.k, False), "f64")
                    return [kb.op("fma", x, y, acc)]
                return at(t, spec.x, read)
            (acc,) = loop(spec.d, [c(0.0, "f64")], term)
            return chain.score(lw, acc, True)

        def over_keys(inits, step):
            return loop(spec.sk, inits,
                        lambda kb, j, *acc: at(j, spec.j, lambda: step(score(), *acc)))

        (row_max,) = over_keys([c(-np.inf, chain.dtype)], lambda z, m: [kb.op("max", m, z)])
        (total,) = over_keys([c(0.0, chain.sum_dtype)], lambda z, t: [
            kb.op("add", t, kb.convert(chain.exp(lw, z, row_max), chain.sum_dtype))])

        def column(kb, e):
            def weighted(z, acc):
                p = kb.convert(chain.prob(lw, z, row_max, total), "f64")
                return [kb.op("fma", p, kb.convert(lw.value(*spec.v, False), "f64"), acc)]

            def run():
                (acc,) = over_keys([c(0.0, "f64")], weighted)
                chain.result(lw, acc)
                index = kb.op("add", kb.op("mul", r, c(spec.dv)), e)
                for v in item.outputs:
                    kb.store(lw.value(v, spec.out, False), pointers[v], index)
            at(e, spec.x, run)
        loop(spec.dv, [], column)

    rows = math.prod(spec.batch) * spec.sq
    kb.for_(kb.global_index(), kb.constant(rows, "i64"), kb.grid_size(), [], row_body)
    return kb.finish()
