"""Contractions: matmul and einsum (through `tensor.dot_general`), and attention (the composite
`tensor.attention`)."""
import math

import numpy as np

from accy._core.types import TensorType
from accy.errors import ShapeError, TypeError as DTypeError
from accy.frontend import reductions
from accy.frontend.elementwise import broadcast_shapes, broadcast_to, tensor_of, where
from accy.frontend.promotion import result_dtype, to_float, weak_kind
from accy.frontend.shapes import reshape, transpose
from accy.frontend.tensor import Tensor, as_dtype, dtype_of, emitter, lift
from accy.tensor.dialect import ATTENTION_COMPUTE


def _same_dtype(op, *xs):
    """`xs` as Tensors of their promoted dtype (no broadcasting)."""
    xs = [lift(x) for x in xs]
    dtype = result_dtype(*map(dtype_of, xs))
    if dtype == "i1":
        raise DTypeError(f"'{op}' does not multiply i1 arrays; convert them to a number type")
    return [as_dtype(x, dtype, op) for x in xs]


def dot_general(lhs, rhs, batch=((), ()), contract=((), ())):
    """`tensor.dot_general` of two Tensors of one dtype; result dims (batch, lhs free, rhs free)."""
    (lb, rb), (lc, rc) = map(tuple, batch), map(tuple, contract)
    shape = (tuple(lhs.shape[d] for d in lb)
             + tuple(s for i, s in enumerate(lhs.shape) if i not in lb + lc)
             + tuple(s for i, s in enumerate(rhs.shape) if i not in rb + rc))
    return Tensor(emitter().op(
        "tensor.dot_general", lhs.value, rhs.value, lhs_batching_dimensions=lb,
        rhs_batching_dimensions=rb, lhs_contracting_dimensions=lc, rhs_contracting_dimensions=rc,
        result_type=TensorType(lhs.dtype, shape)))


def matmul(a, b):
    """numpy's matmul: 1-D operands are a row (left) or a column (right) that is dropped from the
    result; leading (batch) dims broadcast."""
    a, b = _same_dtype("matmul", a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError(f"'matmul' needs operands of rank >= 1, got {a.shape} and {b.shape}")
    shapes = (a.shape, b.shape)
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    a = reshape(a, (1,) + a.shape) if a_vec else a
    b = reshape(b, b.shape + (1,)) if b_vec else b
    if a.shape[-1] != b.shape[-2]:
        raise ShapeError(f"'matmul' contracting dims differ: {shapes[0]} @ {shapes[1]}")
    batch = broadcast_shapes("matmul", a.shape[:-2], b.shape[:-2])
    a = broadcast_to(a, batch + a.shape[-2:], "matmul")
    b = broadcast_to(b, batch + b.shape[-2:], "matmul")
    n = len(batch)
    out = dot_general(a, b, (range(n), range(n)), ((n + 1,), (n,)))
    drop = {n} if a_vec else set()
    drop |= {out.ndim - 1} if b_vec else set()
    return reshape(out, tuple(d for i, d in enumerate(out.shape) if i not in drop))


def einsum(subscripts, *operands):
    """The einsum forms that are one dot_general: one operand (sums and a transpose, e.g.
    "ij->j", "ijk->kij") or two (indices in both and in the output are batch dims, in both and not
    in the output are contracted, in one only are free or, when not in the output, summed
    first), then a transpose into the output order. Without '->' the output is the indices that
    appear once, sorted (numpy's rule). Ellipses, repeated indices within an operand and more than
    two operands raise ShapeError."""
    if not isinstance(subscripts, str):
        raise DTypeError(f"'einsum' subscripts must be a string, got {subscripts!r}")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    letters = [c for t in terms for c in t]
    if not arrow:
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if "." in spec or not 1 <= len(operands) <= 2 or len(terms) != len(operands):
        raise ShapeError(f"'einsum' {subscripts!r}: supported forms have one or two operands "
                         f"(as many terms as operands) and no ellipsis")
    if not all(c.isalpha() for c in letters + list(output)):
        raise ShapeError(f"'einsum' {subscripts!r}: indices must be letters")
    if any(len(set(t)) != len(t) for t in terms + [output]):
        raise ShapeError(f"'einsum' {subscripts!r}: an index repeats within one term (diagonals "
                         f"are not supported)")
    if set(output) - set(letters):
        raise ShapeError(f"'einsum' {subscripts!r}: output index not in any input")
    xs = _same_dtype("einsum", *operands)
    sizes = {}
    for term, x in zip(terms, xs):
        if len(term) != x.ndim:
            raise ShapeError(f"'einsum' term {term!r} has {len(term)} indices for an operand "
                             f"of rank {x.ndim}")
        for c, d in zip(term, x.shape):
            if sizes.setdefault(c, d) != d:
                raise ShapeError(f"'einsum' index {c!r} has sizes {sizes[c]} and {d}")
    # sum away the indices only one operand has and the output lacks
    others = [set("".join(terms[:i] + terms[i + 1:])) for i in range(len(terms))]
    for i, (term, x) in enumerate(zip(terms, xs)):
        gone = [j for j, c in enumerate(term) if c not in output and c not in others[i]]
        if gone:
            xs[i] = reductions.sum(x, tuple(gone))
            terms[i] = "".join(c for j, c in enumerate(term) if j not in gone)
    if len(xs) == 1:
        result, have = xs[0], terms[0]
    else:
        (lt, rt), (lhs, rhs) = terms, xs
        batch = [c for c in output if c in lt and c in rt]
        contract = [c for c in lt if c in rt and c not in output]
        result = dot_general(lhs, rhs, ([lt.index(c) for c in batch], [rt.index(c) for c in batch]),
                             ([lt.index(c) for c in contract], [rt.index(c) for c in contract]))
        have = "".join(batch) + "".join(c for c in lt if c not in batch + contract) + \
            "".join(c for c in rt if c not in batch + contract)
    return transpose(result, tuple(have.index(c) for c in output))


def attention(q, k, v, mask=None, causal=False, scale=None):
    """softmax(q·kᵀ·scale + mask)·v over (batch, heads, seq, dim) Tensors (`tensor.attention`).
    `scale` defaults to 1/sqrt(dim); `mask` broadcasts to (batch, heads, seq_q, seq_k) and is
    added to the scores (in f32 for f16/bf16 q), or, if boolean, keeps the scores where it is
    True (-inf elsewhere); `causal` masks key j > query i."""
    q, k, v = _same_dtype("attention", q, k, v)
    dtype = to_float(q.dtype)
    q, k, v = (as_dtype(t, dtype) for t in (q, k, v))
    if any(t.ndim != 4 for t in (q, k, v)):
        raise ShapeError(f"'attention' q, k, v must be rank 4 (batch, heads, seq, dim), got "
                         f"{q.shape}, {k.shape}, {v.shape}")
    operands = [q, k, v]
    if mask is not None:
        mask = tensor_of(mask)
        if mask.ndim > 4:
            raise ShapeError(f"'attention' mask {mask.shape} has rank > 4")
        if mask.dtype == "i1":
            mask = where(mask, 0.0, -math.inf)
        # in the dtype the scores are computed in: in f16, -1e6 would round to -inf and a fully
        # masked row would be NaN instead of a softmax of equally shifted scores
        mask = as_dtype(mask, ATTENTION_COMPUTE.get(dtype, dtype))
        mask = reshape(mask, (1,) * (4 - mask.ndim) + mask.shape)
        operands.append(mask)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    if weak_kind(scale) is None and not isinstance(scale, (np.integer, np.floating)):
        raise DTypeError(f"'attention' scale must be a static number, got {scale!r}")
    return Tensor(emitter().op("tensor.attention", *(t.value for t in operands),
                               scale=float(scale), causal=bool(causal)))
