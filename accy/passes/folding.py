"""Building blocks for exact folds (`OpDef.fold`): a dialect describes each binary op by its
numpy function and its exact identities, and gets a fold function.

Exact means the folded IR computes bit-for-bit what the original does, for every input:
`x * 1 -> x` holds for every dtype; `x + 0 -> x` only for integers, since (-0.0) + 0.0 is
+0.0, while `x + (-0.0) -> x` holds for floats; `x * 0 -> 0` and `x - x -> 0` only for integers
(NaN and infinities break them). Constant operands fold through numpy in the result's dtype
(IEEE round-to-nearest for + - * /, integers wrapping), except integer division or remainder
by zero, which is left for the program to do.
"""
from dataclasses import dataclass

import numpy as np

from accy._core.attributes import DenseAttr
from accy._core.types import FLOAT_DTYPES, INT_DTYPES, numpy_dtype


def splat(attr):
    """The one value of every element of dense `attr` (a numpy scalar), or None."""
    if not isinstance(attr, DenseAttr) or attr.array.size == 0:
        return None
    flat = attr.array.reshape(-1)
    first = flat[0]
    same = flat.view(np.uint8).reshape(flat.size, -1)
    return first if (same == same[0]).all() else None


def is_splat_of(attr, value):
    """Whether every element of `attr` is `value`, bit for bit (so -0.0 is not 0.0)."""
    x = splat(attr)
    if x is None:
        return False
    want = np.asarray(value, dtype=x.dtype)
    return x.tobytes() == want.tobytes()


@dataclass(frozen=True)
class BinaryFold:
    """A fold for an op `r = f(a, b)` on same-typed tensors.

    compute: numpy function of two arrays (both constants -> a constant).
    right_identity / float_right_identity: b whose value makes r = a, for integers / floats.
    left_identity / float_left_identity: the same for a.
    int_absorbing: b (or a, if commutative) that makes r = that constant, integers only.
    int_self: the constant r when a is b (x - x = 0), integers only; `self_is_identity`: r = a.
    divides: refuse to fold integer constants with a zero divisor.
    """
    compute: object
    right_identity: object = None
    float_right_identity: object = None
    left_identity: object = None
    float_left_identity: object = None
    int_absorbing: object = None
    int_self: object = None
    self_is_identity: bool = False
    divides: bool = False

    def __call__(self, op, constants):
        a, b = op.operands
        ca, cb = constants
        dtype = op.result.type.dtype
        is_float = dtype in FLOAT_DTYPES
        is_int = dtype in INT_DTYPES
        if ca is not None and cb is not None:
            x, y = ca.array, cb.array
            if self.divides and is_int and not y.all():
                return None
            with np.errstate(all="ignore"):
                out = np.asarray(self.compute(x, y)).astype(x.dtype)
            return (DenseAttr(out, dtype),)
        right = self.float_right_identity if is_float else self.right_identity if is_int else None
        left = self.float_left_identity if is_float else self.left_identity if is_int else None
        if right is not None and cb is not None and is_splat_of(cb, right):
            return (a,)
        if left is not None and ca is not None and is_splat_of(ca, left):
            return (b,)
        if is_int and self.int_absorbing is not None:
            for c in (cb, ca):
                if c is not None and is_splat_of(c, self.int_absorbing):
                    return (c,)
        if a == b:
            if self.self_is_identity:
                return (a,)
            if is_int and self.int_self is not None:
                return (DenseAttr(np.full(op.result.type.shape, self.int_self,
                                          dtype=numpy_dtype(dtype)), dtype),)
        return None
