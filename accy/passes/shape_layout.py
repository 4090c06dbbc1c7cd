"""`ShapeLayoutAnalysis`: the first preparation analysis. For every value of a `builtin.func`
its `Layout` (shape, dtype, row-major strides, contiguity, alignment), and for every operand of
an elementwise or shape op its `IndexMap`: where the op's output element at index `o` reads that
operand, so that a fused kernel can address the operand directly instead of materializing the
shape op. Fusion planning, kernel outlining, bufferization and lowering read it.

    analysis = shape_layout(pass_context, func)
    analysis.layouts[value].vector_width()           # elements per vector load
    m = analysis.index_maps[(op, 0)]                 # or analysis.index_map(op, 0)
    in_idx, valid = m.apply(out_idx)                 # numpy, vectorized over output indices

Index maps, output index `o` -> input index:
- `AffineMap`: `in[i] = (A[i] . o + b[i]) floordiv d[i]`, valid where every guard holds (a
  guard is an affine expression of `o` that must divide exactly and fall in `[0, size)`).
  Elementwise ops, broadcast_in_dim, transpose, slice, reverse, pad, concatenate and reshapes
  that only split input dims (unit dims included) are affine; where a pad or concatenate guard
  fails, the element is the pad value or another operand's.
- `ReshapeMap`: a general reshape (linearize `o` row-major, delinearize into the input shape).
- `GatherMap`: data dependent; `apply` needs the indices tensor.
- `OffsetMap`: a dynamic_slice's operand, a dynamic_update_slice's update: shifted by the
  clamped start indices (data dependent; `apply` needs their values).
- `ChainMap`: a composition that is not affine (it applies its parts in turn).
reduce, scan, dot_general, iterate, attention, kernel_call, call and return operands have no
index map: they are not fusible as an index transformation.

Layout assumption: every value is laid out as it will be when it gets a buffer: dense
row-major in a buffer of its own, 256-byte aligned (`BUFFER_ALIGNMENT`). The buffer plan
guarantees this for function arguments and for every value that crosses a kernel boundary;
values fused away never get a buffer, so nothing loads through their layout.
"""
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from accy._core.registry import ELEMENTWISE
from accy._core.types import numpy_dtype
from accy.passes.core import AnalysisDescriptor, WorkContract, analysis_pass

BUFFER_ALIGNMENT = 256       # bytes: what the buffer plan guarantees for each buffer's start


# ---- layouts ----------------------------------------------------------------------------------

def row_major_strides(shape):
    """Strides in elements of a dense row-major tensor of `shape`."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


@dataclass(frozen=True)
class Layout:
    """How a value is stored: `strides` in elements, `contiguous` when they are the dense
    row-major ones, `alignment` in bytes of the buffer start."""
    shape: tuple
    dtype: str
    strides: tuple
    contiguous: bool
    alignment: int

    @property
    def itemsize(self):
        return numpy_dtype(self.dtype).itemsize

    @property
    def nbytes(self):
        return math.prod(self.shape) * self.itemsize

    def vector_width(self, max_bytes=16):
        """The most elements (a power of two) one vector access may load: it stays inside the
        innermost dimension, every row start is aligned for it (the row's bytes divide by it and
        the buffer's alignment covers it), and it is at most `max_bytes`."""
        if not self.contiguous or not self.shape or self.shape[-1] == 0:
            return 1
        inner, size = self.shape[-1], self.itemsize
        width = 1
        while (inner % (2 * width) == 0 and 2 * width * size <= max_bytes
               and 2 * width * size <= self.alignment):
            width *= 2
        return width

    def text(self):
        dims = "".join(f"{d}x" for d in self.shape)
        return (f"tensor<{dims}{self.dtype}> strides {list(self.strides)} "
                f"{'contiguous' if self.contiguous else 'strided'} align {self.alignment} "
                f"vec {self.vector_width()}")


@lru_cache(maxsize=4096)
def buffer_layout(shape, dtype, alignment=BUFFER_ALIGNMENT):
    """The layout of a value of this type in a buffer of its own (shared, immutable)."""
    return Layout(shape, dtype, row_major_strides(shape), True, alignment)


# ---- affine expressions -----------------------------------------------------------------------

@dataclass(frozen=True)
class Affine:
    """`(coeffs . o + offset) floordiv divisor`, always normalized (see `_affine`)."""
    coeffs: tuple
    offset: int = 0
    divisor: int = 1

    def evaluate(self, out):
        """Numerator of the expression over `out` (..., rank) as int64."""
        return out @ np.asarray(self.coeffs, np.int64).reshape(-1) + self.offset \
            if self.coeffs else np.full(out.shape[:-1], self.offset, np.int64)

    def text(self):
        terms = []
        for j, c in enumerate(self.coeffs):
            if c:
                name = f"d{j}" if abs(c) == 1 else f"{abs(c)}*d{j}"
                terms.append((c < 0, name))
        if self.offset or not terms:
            terms.append((self.offset < 0, str(abs(self.offset))))
        s = ("-" if terms[0][0] else "") + terms[0][1]
        for neg, t in terms[1:]:
            s += (" - " if neg else " + ") + t
        return s if self.divisor == 1 else f"({s}) floordiv {self.divisor}"


@dataclass(frozen=True)
class Guard:
    """Holds where `expr`'s numerator divides exactly by its divisor and `0 <= expr < size`."""
    expr: Affine
    size: int

    def text(self):
        exact = " exactly" if self.expr.divisor != 1 else ""
        return f"0 <= {self.expr.text()} < {self.size}{exact}"


def _affine(coeffs, offset, divisor, out_shape):
    """Normalized: coefficients of unit output dims (always index 0) dropped, common factors
    divided out, so equal maps compare equal and predicates need no algebra."""
    coeffs = tuple(0 if n == 1 else c for c, n in zip(coeffs, out_shape))
    g = math.gcd(*coeffs, offset, divisor)
    if g > 1:
        coeffs, offset, divisor = tuple(c // g for c in coeffs), offset // g, divisor // g
    return Affine(coeffs, offset, divisor)


def _unit(j, rank, scale=1):
    return tuple(scale if k == j else 0 for k in range(rank))


def _trivial(guard, out_shape):
    """Whether the guard holds at every output index (then it is dropped)."""
    e = guard.expr
    if e.divisor != 1:
        return False
    lo = hi = e.offset
    for c, n in zip(e.coeffs, out_shape):
        lo += min(0, c * (n - 1))
        hi += max(0, c * (n - 1))
    return 0 <= lo and hi < guard.size


# ---- index maps -------------------------------------------------------------------------------

class IndexMap:
    """Where the output element at index `o` (of `out_shape`) reads its input (of `in_shape`).
    `apply(out) -> (in, valid)`; `outer.compose(inner)` maps `outer`'s output indices to the
    input of `inner` (the map of the op that produced `outer`'s input)."""
    kind = None
    is_identity = is_broadcast = is_transpose = False

    @property
    def parts(self):
        return (self,)

    def apply(self, out_indices, indices=None):
        raise NotImplementedError

    def compose(self, inner):
        if self.in_shape != inner.out_shape:
            raise ValueError(f"cannot compose: this map reads {self.in_shape}, the inner map "
                             f"writes {inner.out_shape}")
        return _chain(self.parts + inner.parts)

    def text(self):
        raise NotImplementedError


def _out_array(out_indices, rank):
    out = np.asarray(out_indices, np.int64)
    if out.ndim == 0 or out.shape[-1] != rank:
        raise ValueError(f"output indices must have shape (..., {rank}), got {out.shape}")
    return out


@dataclass(frozen=True)
class AffineMap(IndexMap):
    """`in[i] = exprs[i](o)`; valid where every guard holds."""
    in_shape: tuple
    out_shape: tuple
    exprs: tuple
    guards: tuple = ()
    kind = "affine"

    @classmethod
    def make(cls, in_shape, out_shape, exprs, guarded=(), guards=()):
        """Normalizes the (coeffs, offset, divisor) triples; `guarded` input dims get the guard
        `0 <= in[i] < in_shape[i]`; guards that always hold are dropped."""
        exprs = [_affine(c, b, d, out_shape) for c, b, d in exprs]
        found = list(guards) + [Guard(exprs[i], in_shape[i]) for i in guarded]
        kept = []
        for g in found:
            if not _trivial(g, out_shape) and g not in kept:
                kept.append(g)
        # a unit input dim can only be read at 0 (a guard checks it where it could be other)
        exprs = [Affine((0,) * len(out_shape)) if n == 1 else e
                 for e, n in zip(exprs, in_shape)]
        return cls(tuple(in_shape), tuple(out_shape), tuple(exprs), tuple(kept))

    @property
    def matrix(self):
        return tuple(e.coeffs for e in self.exprs)

    @property
    def offset(self):
        return tuple(e.offset for e in self.exprs)

    @property
    def divisor(self):
        return tuple(e.divisor for e in self.exprs)

    def _reads(self):
        """For a pure projection (no guards, offsets or scales): the output dim each non-unit
        input dim reads, else None."""
        if self.guards:
            return None
        reads = []
        for e, n in zip(self.exprs, self.in_shape):
            if n == 1:
                continue
            if e.offset or e.divisor != 1 or e.coeffs.count(1) != 1 or \
                    e.coeffs.count(0) != len(e.coeffs) - 1:
                return None
            reads.append(e.coeffs.index(1))
        return reads if len(set(reads)) == len(reads) else None

    @property
    def is_identity(self):
        return self.in_shape == self.out_shape and self == identity_map(self.out_shape)

    @property
    def is_broadcast(self):
        """A projection that ignores some non-unit output dim (each input element is read for
        many outputs)."""
        reads = self._reads()
        return reads is not None and any(
            n != 1 and j not in reads for j, n in enumerate(self.out_shape))

    @property
    def is_transpose(self):
        """A pure permutation of the data (the non-unit dims change order)."""
        reads = self._reads()
        if reads is None or any(n != 1 and j not in reads for j, n in enumerate(self.out_shape)):
            return False
        return reads != sorted(reads)

    def apply(self, out_indices, indices=None):
        out = _out_array(out_indices, len(self.out_shape))
        rows = [e.evaluate(out) // e.divisor for e in self.exprs]
        result = np.stack(rows, -1) if rows else np.zeros(out.shape[:-1] + (0,), np.int64)
        valid = np.ones(out.shape[:-1], bool)
        for g in self.guards:
            v = g.expr.evaluate(out)
            q = v // g.expr.divisor
            valid &= (v % g.expr.divisor == 0) & (q >= 0) & (q < g.size)
        return result, valid

    def after(self, outer):
        """`outer`'s output -> this map's input, as one affine map. Where `outer` divides, the
        inner expressions are scaled by the lcm of its divisors, which stays exact wherever
        `outer`'s guards hold (and elsewhere the element is invalid anyway)."""
        lcm = math.lcm(*(e.divisor for e in outer.exprs)) if outer.exprs else 1
        rank = len(outer.out_shape)

        def substitute(e):
            coeffs, offset = [0] * rank, lcm * e.offset
            for r, inner in zip(e.coeffs, outer.exprs):
                if r:
                    scale = r * (lcm // inner.divisor)
                    offset += scale * inner.offset
                    for j, c in enumerate(inner.coeffs):
                        coeffs[j] += scale * c
            return tuple(coeffs), offset, lcm * e.divisor

        exprs = [substitute(e) for e in self.exprs]
        guards = list(outer.guards) + [
            Guard(_affine(*substitute(g.expr), outer.out_shape), g.size) for g in self.guards]
        return AffineMap.make(self.in_shape, outer.out_shape, exprs, guards=guards)

    def text(self):
        dims = ", ".join(f"d{j}" for j in range(len(self.out_shape)))
        s = f"({dims}) -> ({', '.join(e.text() for e in self.exprs)})"
        if self.guards:
            s += " where " + ", ".join(g.text() for g in self.guards)
        tags = [n for n in ("identity", "broadcast", "transpose") if getattr(self, "is_" + n)]
        return s + "".join(f" [{t}]" for t in tags)


@dataclass(frozen=True)
class ReshapeMap(IndexMap):
    """A general reshape: `o` linearized row-major in `out_shape`, delinearized in `in_shape`."""
    in_shape: tuple
    out_shape: tuple
    kind = "reshape"

    def apply(self, out_indices, indices=None):
        out = _out_array(out_indices, len(self.out_shape))
        linear = out @ np.asarray(row_major_strides(self.out_shape), np.int64).reshape(-1) \
            if self.out_shape else np.zeros(out.shape[:-1], np.int64)
        rows = [(linear // s) % max(n, 1)
                for s, n in zip(row_major_strides(self.in_shape), self.in_shape)]
        result = np.stack(rows, -1) if rows else np.zeros(out.shape[:-1] + (0,), np.int64)
        return result, np.ones(out.shape[:-1], bool)

    def text(self):
        return f"reshape {_dims(self.out_shape)} -> {_dims(self.in_shape)}"


@dataclass(frozen=True)
class GatherMap(IndexMap):
    """The gathered operand of a gather: `in = o` except at `axis`, which reads the indices
    tensor (clamped into range) at `o[axis:axis+rank(indices)]` (`take`) or at `o`
    (`along_axis`). `apply` needs that tensor as `indices`."""
    in_shape: tuple
    out_shape: tuple
    axis: int
    mode: str
    index_shape: tuple
    kind = "gather"

    def apply(self, out_indices, indices=None):
        if indices is None:
            raise ValueError("a gather's index map depends on the indices tensor: pass indices=")
        out = _out_array(out_indices, len(self.out_shape))
        idx = np.asarray(indices).astype(np.int64)
        a, r = self.axis, (len(self.index_shape) if self.mode == "take" else 1)
        where = out[..., a:a + len(self.index_shape)] if self.mode == "take" else out
        picked = idx[tuple(np.moveaxis(where, -1, 0))] if idx.ndim else \
            np.broadcast_to(idx, out.shape[:-1])
        picked = np.clip(picked, 0, self.in_shape[a] - 1)
        result = np.concatenate([out[..., :a], picked[..., None], out[..., a + r:]], -1)
        return result, np.ones(out.shape[:-1], bool)

    def text(self):
        return f"gather axis {self.axis} {self.mode} of indices {_dims(self.index_shape)}"


@dataclass(frozen=True)
class OffsetMap(IndexMap):
    """The operand of a dynamic_slice (`sign` 1: `in = o + k`) or the update of a
    dynamic_update_slice (`sign` -1: `in = o - k`, valid where in range), `k` the start
    indices clamped as StableHLO clamps them. `apply` needs the starts as `indices`."""
    in_shape: tuple
    out_shape: tuple
    sign: int
    kind = "offset"

    def starts(self, indices):
        """The clamped starts, from the start index values."""
        big, small = (self.in_shape, self.out_shape) if self.sign > 0 else \
            (self.out_shape, self.in_shape)
        return np.array([min(max(int(s), 0), b - n) for s, b, n in zip(indices, big, small)],
                        np.int64)

    def apply(self, out_indices, indices=None):
        if indices is None:
            raise ValueError("an offset map depends on the start indices: pass indices=")
        out = _out_array(out_indices, len(self.out_shape))
        result = out + self.sign * self.starts(indices)
        valid = np.all((result >= 0) & (result < np.array(self.in_shape, np.int64)), -1)
        return result, valid

    def text(self):
        return f"offset {'+' if self.sign > 0 else '-'}start {_dims(self.out_shape)} -> " \
               f"{_dims(self.in_shape)}"


@dataclass(frozen=True)
class ChainMap(IndexMap):
    """Maps applied in turn, the outermost (the consumer's) first; valid where all are."""
    maps: tuple
    kind = "chain"

    in_shape = property(lambda self: self.maps[-1].in_shape)
    out_shape = property(lambda self: self.maps[0].out_shape)
    parts = property(lambda self: self.maps)

    def apply(self, out_indices, indices=None):
        """`indices` goes to every gather in the chain (apply supports one gather per chain)."""
        current, valid = out_indices, None
        for m in self.maps:
            current, ok = m.apply(current, indices)
            valid = ok if valid is None else valid & ok
            # where invalid, any in-range index keeps the next map well defined
            current = np.where(valid[..., None], current, 0)
        return current, valid

    def text(self):
        return " ; then ".join(m.text() for m in self.maps)


def _dims(shape):
    return "x".join(map(str, shape)) or "scalar"


def _merge(outer, inner):
    """One map for `outer` then `inner`, or None when they stay apart in a chain."""
    if isinstance(outer, AffineMap) and isinstance(inner, AffineMap):
        return inner.after(outer)
    if isinstance(outer, ReshapeMap) and isinstance(inner, ReshapeMap):
        return reshape_map(inner.in_shape, outer.out_shape)   # linearize once
    if inner.is_identity:
        return outer
    if outer.is_identity:
        return inner
    return None


def _chain(parts):
    """Fold adjacent affine maps, adjacent reshapes and identities; a chain of what is left."""
    out = []
    for m in parts:
        out.append(m)
        while len(out) > 1:
            merged = _merge(out[-2], out[-1])
            if merged is None:
                break
            out[-2:] = [merged]
    return out[0] if len(out) == 1 else ChainMap(tuple(out))


@lru_cache(maxsize=4096)
def identity_map(shape):
    rank = len(shape)
    return AffineMap.make(shape, shape, [(_unit(i, rank), 0, 1) for i in range(rank)])


@lru_cache(maxsize=4096)
def reshape_map(in_shape, out_shape):
    """Affine when every non-unit input dim is the product of a run of output dims (the
    reshape only splits dims, or inserts/removes unit dims); else a ReshapeMap."""
    rank = len(out_shape)
    if math.prod(in_shape) == 0:         # nothing is read
        return AffineMap.make(in_shape, out_shape, [((0,) * rank, 0, 1)] * len(in_shape))
    exprs, j = [], 0
    for n in in_shape:
        coeffs = [0] * rank
        if n != 1:
            group, size = [], 1
            while j < rank and size < n:
                group.append(j)
                size *= out_shape[j]
                j += 1
            if size != n:
                return ReshapeMap(in_shape, out_shape)
            step = 1
            for k in reversed(group):
                coeffs[k], step = step, step * out_shape[k]
        exprs.append((tuple(coeffs), 0, 1))
    if any(n != 1 for n in out_shape[j:]):
        return ReshapeMap(in_shape, out_shape)
    return AffineMap.make(in_shape, out_shape, exprs)


# ---- rules: op -> index map per operand -------------------------------------------------------
# Each rule takes (attributes, operand shapes, result shape) -> one map per operand.

def _elementwise(a, ins, out_shape):
    # rank-0 operands (select's pred, clamp's bounds) are read at every output index
    return [identity_map(out_shape) if x == out_shape else
            AffineMap.make(x, out_shape, [((0,) * len(out_shape), 0, 1)] * len(x)) for x in ins]


def _broadcast_in_dim(a, ins, out_shape):
    x, rank = ins[0], len(out_shape)
    return [AffineMap.make(x, out_shape, [(_unit(d, rank, int(n != 1)), 0, 1)
                                          for n, d in zip(x, a["broadcast_dimensions"])])]


def _transpose(a, ins, out_shape):
    rank = len(out_shape)
    where = {p: i for i, p in enumerate(a["permutation"])}     # y.shape[i] = x.shape[perm[i]]
    return [AffineMap.make(ins[0], out_shape,
                           [(_unit(where[k], rank), 0, 1) for k in range(rank)])]


def _slice(a, ins, out_shape):
    rank = len(out_shape)
    strides = a.get("strides", (1,) * rank)
    return [AffineMap.make(ins[0], out_shape,
                           [(_unit(i, rank, s), b, 1)
                            for i, (b, s) in enumerate(zip(a["start_indices"], strides))])]


def _reverse(a, ins, out_shape):
    x, rank, dims = ins[0], len(out_shape), set(a["dimensions"])
    return [AffineMap.make(x, out_shape, [(_unit(i, rank, -1), n - 1, 1) if i in dims else
                                          (_unit(i, rank), 0, 1) for i, n in enumerate(x)])]


def _reshape(a, ins, out_shape):
    return [reshape_map(ins[0], out_shape)]


def _pad(a, ins, out_shape):
    # in = (o - low) / (interior + 1), valid where exact and in range (low < 0 crops); the
    # padding value (rank 0) is read wherever operand 0's map is invalid
    rank = len(out_shape)
    interior = a.get("interior_padding", (0,) * rank)
    exprs = [(_unit(i, rank), -lo, it + 1)
             for i, (lo, it) in enumerate(zip(a["edge_padding_low"], interior))]
    return [AffineMap.make(ins[0], out_shape, exprs, guarded=range(rank)),
            AffineMap.make((), out_shape, [])]


def _concatenate(a, ins, out_shape):
    # operand k covers [start_k, start_k + size_k) along the dimension
    d, rank, start, maps = a["dimension"], len(out_shape), 0, []
    for x in ins:
        exprs = [(_unit(i, rank), -start if i == d else 0, 1) for i in range(rank)]
        maps.append(AffineMap.make(x, out_shape, exprs, guarded=(d,)))
        start += x[d]
    return maps


def _gather(a, ins, out_shape):
    # indices operand: `take` reads it at o[axis:axis+rank(indices)], `along_axis` at o itself
    (x, idx), axis, mode, rank = ins, a["axis"], a.get("mode", "take"), len(out_shape)
    if mode == "take":
        index = AffineMap.make(idx, out_shape, [(_unit(axis + k, rank), 0, 1)
                                                for k in range(len(idx))])
    else:
        index = identity_map(out_shape)
    return [GatherMap(x, out_shape, axis, mode, idx), index]


def _dynamic_slice(a, ins, out_shape):
    # the starts (rank 0) are read at every output index
    return [OffsetMap(ins[0], out_shape, 1)] + [AffineMap.make((), out_shape, [])] * (len(ins) - 1)


def _dynamic_update_slice(a, ins, out_shape):
    # the operand where the update does not cover the output, the update where it does
    return [identity_map(out_shape), OffsetMap(ins[1], out_shape, -1)] + \
        [AffineMap.make((), out_shape, [])] * (len(ins) - 2)


RULES = {
    "tensor.dynamic_slice": _dynamic_slice,
    "tensor.dynamic_update_slice": _dynamic_update_slice,
    "tensor.broadcast_in_dim": _broadcast_in_dim,
    "tensor.transpose": _transpose,
    "tensor.slice": _slice,
    "tensor.reverse": _reverse,
    "tensor.reshape": _reshape,
    "tensor.pad": _pad,
    "tensor.concatenate": _concatenate,
    "tensor.gather": _gather,
}
# every other op without the elementwise trait (reduce, scan, dot_general, iterate, attention,
# kernel_call, call, return, yield) gets no index map


@lru_cache(maxsize=8192)
def _maps(rule, ins, out_shape, attributes):
    # models repeat the same few op signatures (layer after layer): build each map once
    return tuple(rule(dict(attributes), ins, out_shape))


def index_maps_of(op):
    """The index map of each operand of `op` (a tuple), or None when the op has none."""
    rule = RULES.get(op.name)
    if rule is None:
        if not op.has_trait(ELEMENTWISE):
            return None
        rule, attributes = _elementwise, ()     # their attributes do not move elements
    else:
        attributes = tuple(sorted(op.attributes.items()))
    ins = tuple(t.shape for t in op.operand_types)
    return _maps(rule, ins, op.result_types[0].shape, attributes)


# ---- the analysis -----------------------------------------------------------------------------

@dataclass
class ShapeLayoutAnalysis:
    """Layouts of every value of `func` (nested regions included) and index maps of every
    elementwise/shape operand: `op_maps[op]` holds an op's maps (one per operand),
    `index_maps` the same keyed by (op, operand index). `order` records the walk (blocks and
    ops with their depth) for `text`."""
    func: object
    layouts: dict
    op_maps: dict
    order: list

    def index_map(self, op, index):
        maps = self.op_maps.get(op)
        return maps[index] if maps is not None and 0 <= index < len(maps) else None

    @property
    def index_maps(self):
        return {(op, i): m for op, maps in self.op_maps.items() for i, m in enumerate(maps)}

    def text(self):
        """A deterministic dump; values are numbered as the printer numbers them."""
        numbers = value_numbers(self.func)

        def name(v):
            return f"%{numbers[v]}" if v in numbers else "%<<outside>>"

        def layout(v):
            lay = self.layouts.get(v)
            return lay.text() if lay is not None else "(no layout)"

        sym = self.func.attributes.get("sym_name")
        lines = [f"ShapeLayoutAnalysis @{sym}" if sym else "ShapeLayoutAnalysis"]
        for kind, item, depth in self.order:
            pad = "  " * depth
            if kind == "block":
                lines += [f"{pad}{name(a)}: {layout(a)}" for a in item.arguments]
                continue
            results = [name(r) for r in item.results]
            operands = ", ".join(name(v) if v is not None else "%<<null>>"
                                 for v in item.operands)
            head = (", ".join(results) + " = " if results else "") + item.name
            lines.append(f"{pad}{head}" + (f" {operands}" if operands else ""))
            lines += [f"{pad}    {n}: {layout(r)}" for n, r in zip(results, item.results)]
            for i in range(len(item.operands)):
                m = self.index_map(item, i)
                if m is not None:
                    lines.append(f"{pad}    operand {i}: {m.text()}")
        return "\n".join(lines) + "\n"


@lru_cache(maxsize=4096)
def _type_layout(t):
    """The buffer layout of a value of type `t` (None for a type without a shape)."""
    return buffer_layout(t.shape, t.dtype) if hasattr(t, "shape") else None


def value_numbers(func):
    """{value: n} as the printer numbers the values of `func` (%n): block arguments, then each
    op's results before the ops nested in it."""
    numbers = {}

    def block(b):
        for a in b.arguments:
            numbers[a] = len(numbers)
        for op in b.operations:
            for r in op.results:
                numbers[r] = len(numbers)
            for region in op.regions:
                for inner in region.blocks:
                    block(inner)

    for region in func.regions:
        for b in region.blocks:
            block(b)
    return numbers


def compute_shape_layout(func):
    """The ShapeLayoutAnalysis of `func`: one pass over its ops, linear in their number."""
    layouts, maps, order = {}, {}, []

    def add(values):
        for v in values:
            layout = _type_layout(v.type)
            if layout is not None:
                layouts[v] = layout

    def block(b, depth):
        order.append(("block", b, depth))
        add(b.arguments)
        for op in b.operations:
            order.append(("op", op, depth))
            add(op.results)
            found = index_maps_of(op)
            if found:
                maps[op] = found
            for region in op.regions:
                for inner in region.blocks:
                    block(inner, depth + 1)

    for region in func.regions:
        for b in region.blocks:
            block(b, 1)
    return ShapeLayoutAnalysis(func, layouts, maps, order)


SHAPE_LAYOUT = AnalysisDescriptor("ShapeLayoutAnalysis", WorkContract(
    ("ShapeLayoutAnalysis", 1),
    # layouts and identity maps are shared; count the dict slots and per-op maps
    estimate=lambda a: 512 + 120 * (len(a.layouts) + len(a.op_maps) + len(a.order))))


def shape_layout(pass_context, func):
    """The ShapeLayoutAnalysis of `func` through the analysis cache."""
    return pass_context.get_analysis(func, SHAPE_LAYOUT,
                                     lambda op, scope: compute_shape_layout(op))


PASS = analysis_pass("shape", shape_layout, "ShapeLayoutAnalysis (layouts and index maps)")
