"""Folds of the tensor dialect, for `canonicalize`.

Constant operands fold through the op's evaluator in `accy.tensor.semantics`, the one the
reference interpreter runs, so a folded constant is exactly what the program would have computed
(by definition of the semantics);
results above FOLD_LIMIT elements are left alone to keep modules small (so a broadcast scalar
becomes a splat constant, and identities such as `x * 1` see it, only up to that size). A
fold that would grow a dense constant (a result with more elements than its operands that are
not splats, and not a splat itself: a broadcast bias, an outer product of two constants) is
left alone too: the constant buffer would hold and every kernel read the grown copy. Identities
fold only where they hold bit for bit for every input (see accy/passes/folding.py).
"""
import numpy as np

from accy._core.attributes import DenseAttr
from accy.passes.folding import BinaryFold, splat_bits
from accy.tensor.semantics import EVALUATORS

FOLD_LIMIT = 4096

# Binary identities (the constant-constant case goes through the evaluator instead).
_IDENTITIES = {
    "add": BinaryFold(None, right_identity=0, float_right_identity=-0.0, left_identity=0,
                      float_left_identity=-0.0),
    "subtract": BinaryFold(None, right_identity=0, float_right_identity=0.0, int_self=0),
    "multiply": BinaryFold(None, right_identity=1, float_right_identity=1.0, left_identity=1,
                           float_left_identity=1.0, int_absorbing=0),
    "divide": BinaryFold(None, right_identity=1, float_right_identity=1.0),
    "maximum": BinaryFold(None, self_is_identity=True),
    "minimum": BinaryFold(None, self_is_identity=True),
    "and": BinaryFold(None, self_is_identity=True, int_absorbing=0),
    "or": BinaryFold(None, self_is_identity=True, right_identity=0),
    "xor": BinaryFold(None, right_identity=0, int_self=0),
}


def _unchanged(op):
    """The operand when a shape op or convert leaves it exactly as it is, else None."""
    x = op.operands[0]
    if x.type != op.result_types[0]:
        return None
    a = op.attributes
    name = op.name
    keeps = (
        name in ("tensor.convert", "tensor.reshape", "tensor.broadcast_in_dim")
        or (name == "tensor.transpose" and tuple(a["permutation"]) == tuple(range(x.type.rank)))
        or (name == "tensor.slice" and all(s == 1 for s in a.get("strides", ())))
        or (name == "tensor.reverse" and all(x.type.shape[d] <= 1 for d in a["dimensions"]))
        or (name == "tensor.pad" and not any(a["edge_padding_low"] + a["edge_padding_high"]))
        or (name == "tensor.concatenate" and len(op.operands) == 1))
    return x if keeps else None


def _grows(folded, operands):
    """Whether constant `folded` has more elements than the `operands` it comes from that are
    not splats, and is not a splat itself."""
    if splat_bits(folded) is not None:
        return False
    return folded.array.size > sum(c.array.size for c in operands if splat_bits(c) is None)


class TensorFold:
    """OpDef.fold for a tensor op: constants through its evaluator, then identities."""

    def __init__(self, name, identities=None, shape_identity=False):
        self.name = name
        self.identities = identities
        self.shape_identity = shape_identity
        # Binary identity folds need a constant or a repeated operand; the others look at types.
        self.constants_only = not shape_identity

    def __call__(self, op, constants):
        if constants and all(type(c) is DenseAttr for c in constants):
            if op.result_types[0].num_elements > FOLD_LIMIT:
                return None
            folded = self._evaluate(op, [c.array for c in constants])
            return None if _grows(folded, constants) else (folded,)
        if self.shape_identity:
            same = _unchanged(op)
            return None if same is None else (same,)
        return self.identities(op, constants) if self.identities is not None else None

    @staticmethod
    def _evaluate(op, arrays):
        value = EVALUATORS[op.name](op, *arrays)
        t = op.result_types[0]
        return DenseAttr(np.asarray(value).reshape(t.shape), t.dtype)


SHAPE_OPS = ("convert", "reshape", "transpose", "broadcast_in_dim", "slice", "reverse", "pad",
             "concatenate")


# ops folded only when every operand is a constant
CONSTANT_ONLY = ("gather", "dot_general", "dynamic_slice", "dynamic_update_slice")


def fold_for(short_name, elementwise):
    """The fold of op `tensor.<short_name>`, or None."""
    if short_name in SHAPE_OPS:
        return TensorFold(short_name, shape_identity=True)
    if short_name in _IDENTITIES or elementwise or short_name in CONSTANT_ONLY:
        return TensorFold(short_name, _IDENTITIES.get(short_name))
    return None
