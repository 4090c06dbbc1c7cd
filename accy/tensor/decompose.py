"""Decompositions of composite tensor ops into primitive ones: `attention` becomes
dot_general -> scale -> mask -> softmax -> dot_general, exactly as docs/tensor-ops.md defines it.

The reference interpreter runs this decomposition, so the composite and its decomposition agree
bit for bit there; the `decompose-attention` pass applies it to a module.
"""
import numpy as np

from accy._core.types import TensorType
from accy.tensor.build import Emitter
from accy.tensor.dialect import ATTENTION_COMPUTE as COMPUTE


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
    row_max = e.reduce_kind(s, (3,), "max")
    shifted = e.op("tensor.subtract", s, e.broadcast(row_max, scores_t.shape, (0, 1, 2)))
    p = e.op("tensor.exp", shifted)
    total = e.reduce_kind(p, (3,), "sum")
    p = e.op("tensor.divide", p, e.broadcast(total, scores_t.shape, (0, 1, 2)))
    p = e.convert(p, v.type.dtype)
    out = e.op("tensor.dot_general", p, v, lhs_batching_dimensions=(0, 1),
               rhs_batching_dimensions=(0, 1), lhs_contracting_dimensions=(3,),
               rhs_contracting_dimensions=(2,), accumulation_type=ct,
               result_type=TensorType(ct, (b, h, sq, dv)))
    return e.convert(out, dtype)


def decompose_attention(op, builder):
    """Emit the decomposition of attention `op` before it with `builder` (placed before `op`);
    returns the replacement value."""
    e = Emitter(builder.before_op(op))
    operands = op.operands
    attrs = op.attributes
    return emit_attention(e, *operands[:3], mask=operands[3] if len(operands) == 4 else None,
                          scale=attrs["scale"].value, causal=attrs.get("causal", False))
