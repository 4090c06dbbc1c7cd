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
from functools import lru_cache

import numpy as np

from accy._core.attributes import DenseAttr
from accy._core.types import FLOAT_DTYPES, INT_DTYPES, TensorType, numpy_dtype


@lru_cache(maxsize=4096)
def splat_bits(attr):
    """The bytes of the one value of every element of dense `attr`, or None (cached: attributes
    are immutable)."""
    if not isinstance(attr, DenseAttr) or attr.array.size == 0:
        return None
    flat = attr.array.reshape(-1)
    word = _WORDS.get(flat.itemsize)        # each element's bits as one unsigned int
    raw = flat.view(word) if word is not None else flat.view(np.uint8).reshape(flat.size, -1)
    return flat[:1].tobytes() if (raw == raw[0]).all() else None


_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def is_splat_of(attr, value):
    """Whether every element of `attr` is `value`, bit for bit (so -0.0 is not 0.0)."""
    bits = splat_bits(attr)
    return bits is not None and bits == np.asarray(value, attr.array.dtype).tobytes()


_FOLDABLE = INT_DTYPES | FLOAT_DTYPES


@dataclass(frozen=True)
class BinaryFold:
    """A fold for an op `r = f(a, b)` on same-typed tensors.

    compute: numpy function of two arrays (both constants -> a constant).
    right_identity / float_right_identity: b whose value makes r = a, for integers / floats.
    left_identity / float_left_identity: the same for a.
    int_absorbing: b (or a) that makes r = that constant, integers only.
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
    constants_only = True       # the driver calls it only with a constant or repeated operand

    def __post_init__(self):
        values = {}
        for name, value, dtypes in (("right", self.right_identity, INT_DTYPES),
                                    ("right", self.float_right_identity, FLOAT_DTYPES),
                                    ("left", self.left_identity, INT_DTYPES),
                                    ("left", self.float_left_identity, FLOAT_DTYPES),
                                    ("absorbing", self.int_absorbing, INT_DTYPES)):
            if value is not None:
                values.update({(name, d): value for d in dtypes})
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_bits", {})

    def _bits_of(self, name, dtype):
        """The bytes of identity `name` ("right", "left", "absorbing") in `dtype`, or None;
        made on first use, so that bf16's (ml_dtypes) is made only when bf16 is folded."""
        key = (name, dtype)
        if key not in self._bits:
            value = self._values.get(key)
            self._bits[key] = None if value is None else \
                np.asarray(value, numpy_dtype(dtype)).tobytes()
        return self._bits[key]

    def __call__(self, op, constants):
        ca, cb = constants
        if ca is not None and type(ca) is not DenseAttr:
            ca = None
        if cb is not None and type(cb) is not DenseAttr:
            cb = None
        rtype = op.result.type
        dtype = rtype.dtype if type(rtype) is TensorType else None
        if dtype not in _FOLDABLE:
            return None         # i1 (numpy bool arithmetic is not 1-bit arithmetic), non-tensors
        if ca is not None and cb is not None:
            x, y = ca.array, cb.array
            if self.divides and dtype in INT_DTYPES and not y.all():
                return None
            with np.errstate(all="ignore"):
                out = np.asarray(self.compute(x, y)).astype(x.dtype)
            return (DenseAttr(out, dtype),)
        for const, identity, other in ((cb, "right", 0), (ca, "left", 1)):
            s = splat_bits(const) if const is not None else None
            if s is not None:
                if s == self._bits_of(identity, dtype):
                    return (op.operands[other],)
                if s == self._bits_of("absorbing", dtype):
                    return (op.operands[1 - other],)
        a, b = op.operands
        if a == b:
            if self.self_is_identity:
                return (a,)
            if self.int_self is not None and dtype in INT_DTYPES:
                return (DenseAttr(np.full(op.result.type.shape, self.int_self,
                                          numpy_dtype(dtype)), dtype),)
        return None
