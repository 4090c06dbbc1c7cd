"""Decompositions of composite tensor ops into primitive ones: `attention` becomes
dot_general -> scale -> mask -> softmax -> dot_general, exactly as docs/tensor-ops.md defines it;
a raised attention (the decomposed pattern kept as one op: the `raise-attention` pass) becomes
the ops it was raised from: its scores dot, its `score` region's ops, softmax in its dtypes and
its values dot.

The reference interpreter runs these decompositions, so an attention and its decomposition
agree bit for bit there; the `decompose-attention` pass applies them to a module.
"""
import numpy as np

from accy._core.types import TensorType
from accy.tensor.build import Emitter
from accy.tensor.dialect import ATTENTION_COMPUTE as COMPUTE, attention_score_type


def emit_attention(e, q, k, v, mask=None, scale=1.0, causal=False):
    """Emit softmax(q·kᵀ·scale + mask)·v with `e` (an Emitter); returns the result value."""
    dtype = q.type.dtype
    ct = COMPUTE.get(dtype, dtype)
    b, h, sq, _ = q.type.shape
    sk, dv = k.type.shape[2], v.type.shape[3]
    scores_t = TensorType(ct, (b, h, sq, sk))
    s = e.op("tensor.dot_general", q, k, lhs_batching_dimensions=(0, 1),
             rhs_batching_dimensions=(0, 1), lhs_contracting_dimensions=(3,),
             rhs_contracting_dimensions=(3,), result_type=scores_t)
    s = e.op("tensor.multiply", s, e.full(float(scale), ct, scores_t.shape))
    if mask is not None:
        m = e.convert(mask, ct)
        s = e.op("tensor.add", s, e.broadcast(m, scores_t.shape))
    if causal:          # key j is hidden from query i when j > i (top-left aligned)
        rows = e.op("tensor.iota", iota_dimension=2, result_type=TensorType("i32", scores_t.shape))
        cols = e.op("tensor.iota", iota_dimension=3, result_type=TensorType("i32", scores_t.shape))
        hidden = e.compare(cols, rows, "GT")
        s = e.op("tensor.select", hidden, e.full(-np.inf, ct, scores_t.shape), s)
    return e.convert(emit_softmax_values(e, s, v, _values_dims(3, 2, ct)), dtype)


def _values_dims(contract_p, contract_v, accumulation=None):
    dims = {"lhs_batching_dimensions": (0, 1), "rhs_batching_dimensions": (0, 1),
            "lhs_contracting_dimensions": (contract_p,),
            "rhs_contracting_dimensions": (contract_v,)}
    if accumulation is not None:
        dims["accumulation_type"] = accumulation
    return dims


def emit_softmax_values(e, z, v, values, sum_dtype=None, result_dtype=None):
    """Emit softmax(z) over the last dim (the sum in `sum_dtype`, default z's dtype, the exps
    converted to it and the sum back), p converted to v's dtype, then the dot_general of p and
    `v` by dimensions `values` (a dict) into `result_dtype` (default the accumulation dtype or
    v's); returns its value."""
    shape = z.type.shape
    rows = tuple(range(len(shape) - 1))
    row_max = e.reduce_kind(z, (len(shape) - 1,), "max")
    p = e.op("tensor.exp", e.op("tensor.subtract", z, e.broadcast(row_max, shape, rows)))
    summed = e.convert(p, sum_dtype or p.type.dtype)
    total = e.convert(e.reduce_kind(summed, (len(shape) - 1,), "sum"), p.type.dtype)
    p = e.convert(e.op("tensor.divide", p, e.broadcast(total, shape, rows)), v.type.dtype)
    dtype = result_dtype or values.get("accumulation_type", v.type.dtype)
    nb = len(shape) - 2
    out_shape = shape[:-1] + tuple(n for i, n in enumerate(v.type.shape)
                                   if i >= nb and i != values["rhs_contracting_dimensions"][0])
    return e.op("tensor.dot_general", p, v, **values,
                result_type=TensorType(dtype, out_shape))


def emit_scores(e, op, q, k):
    """Emit raised attention `op`'s scores dot of `q` and `k`; returns its value."""
    attrs = dict(op.attributes)
    return e.op("tensor.dot_general", q, k, **dict(attrs["scores"].items()),
                result_type=attention_score_type([q.type, k.type], attrs))


def emit_raised_values(e, op, z, v):
    """Emit raised attention `op`'s softmax of `z` (what its score block yields) and values
    dot with `v`, in the op's dtypes; returns the result value."""
    attrs = op.attributes
    return emit_softmax_values(e, z, v, dict(attrs["values"].items()), attrs.get("sum_dtype"),
                               attrs["value_dtype"])


def decompose_attention(op, builder):
    """Emit the decomposition of attention `op` before it with `builder` (placed before `op`);
    returns the replacement value."""
    e = Emitter(builder.before_op(op))
    operands = op.operands
    attrs = op.attributes
    if "scores" not in attrs:
        return emit_attention(e, *operands[:3], mask=operands[3] if len(operands) == 4 else None,
                              scale=attrs["scale"].value, causal=attrs.get("causal", False))
    z = _inline_score(e, op, emit_scores(e, op, *operands[:2]))
    return emit_raised_values(e, op, z, operands[2])


def _inline_score(e, op, s):
    """Copy the ops of `op`'s score block to `e`'s insertion point, its argument mapped to
    `s`; returns the copy of the yielded z."""
    block = op.regions[0].blocks[0]
    mapping = {block.arguments[0]: s}
    for inner in block.operations:
        if inner.name == "tensor.yield":
            return mapping.get(inner.operands[0], inner.operands[0])
        copy = e.builder.insert(inner.clone(mapping=mapping))
        mapping.update(zip(inner.results, copy.results))
    raise AssertionError("a verified score block ends with tensor.yield")
