"""Dtype promotion: which dtype a traced op computes in when its operands differ (JAX's rule).

**The lattice.** Each dtype's *parents* below are the dtypes it promotes to directly; a dtype
promotes to everything reachable from it. Two dtypes promote to their least upper bound: the
one reachable dtype both reach from which every other common one is reachable too.

    i1   -> u8, i8                  bool below every number
    u8   -> i16                     u8 with a signed int: the next signed int that holds both
    i8   -> i16 -> i32 -> i64
    i64  -> f16, bf16               int with float: the float (any int, any float)
    f16  -> f32,  bf16 -> f32       f16 with bf16: f32
    f32  -> f64

So `u8 + i8 -> i16`, `i64 + f16 -> f16`, `f16 + bf16 -> f32`, `i1 + u8 -> u8`.

**Weak Python scalars.** A Python `bool`, `int` or `float` next to a tensor is *weak*: it takes
the tensor's dtype when its kind (bool < int < float) fits in the tensor's, so `x_f16 * 2.0` stays
f16 and `x_u8 + 1` stays u8. Otherwise the tensor's dtype is promoted with the scalar's default
dtype: an int scalar with an i1 tensor gives i32, a float scalar with an int or i1 tensor gives
f32. Python scalars alone (several weak operands, or a jit argument) take the default dtype of the
widest kind among them: `DEFAULTS` (f32, i32, i1). numpy arrays and numpy scalars are never weak.
"""
import functools

import numpy as np

from accy._core.types import DTYPES, FLOAT_DTYPES, INT_DTYPES, dtype_of_numpy
from accy.errors import TypeError as DTypeError

PARENTS = {
    "i1": ("u8", "i8"), "u8": ("i16",), "i8": ("i16",), "i16": ("i32",), "i32": ("i64",),
    "i64": ("f16", "bf16"), "f16": ("f32",), "bf16": ("f32",), "f32": ("f64",), "f64": (),
}

# Python scalar type -> (kind rank, default dtype); bool < int < float
WEAK_KINDS = {bool: (0, "i1"), int: (1, "i32"), float: (2, "f32")}
DEFAULTS = {kind: dtype for kind, (_, dtype) in WEAK_KINDS.items()}


def _upper_sets():
    """dtype -> the set of dtypes it promotes to (itself included)."""
    ups = {}

    def visit(d):
        if d not in ups:
            ups[d] = {d}.union(*(visit(p) for p in PARENTS[d]))
        return ups[d]
    for d in PARENTS:
        visit(d)
    return ups


UPPER = _upper_sets()
assert set(UPPER) == set(DTYPES)


def join(a, b):
    """The least upper bound of two dtypes in the lattice."""
    common = UPPER[a] & UPPER[b]
    (least,) = [d for d in common if UPPER[d] == common]  # the lattice makes this unique
    return least


def kind_rank(dtype):
    return 2 if dtype in FLOAT_DTYPES else 1 if dtype in INT_DTYPES else 0


def weak_kind(value):
    """The Python scalar type of a weak value (bool, int or float), or None if it is not one."""
    for kind in (bool, int, float):     # bool first: bool is an int subclass
        if isinstance(value, kind):
            return kind
    return None


@functools.lru_cache(maxsize=4096)       # a pure function of a few dtypes, asked per op
def result_dtype(*operands):
    """The dtype `operands` promote to. Each is a dtype name (a strong operand) or one of the
    Python types bool/int/float (a weak scalar)."""
    strong = [o for o in operands if isinstance(o, str)]
    weak = [o for o in operands if not isinstance(o, str)]
    widest_weak = max(weak, key=lambda k: WEAK_KINDS[k][0], default=None)
    if not strong:
        return DEFAULTS[widest_weak]
    dtype = strong[0]
    for d in strong[1:]:
        dtype = join(dtype, d)
    if widest_weak is not None and WEAK_KINDS[widest_weak][0] > kind_rank(dtype):
        dtype = join(dtype, DEFAULTS[widest_weak])
    return dtype


# dtypes that compute in f32 where rounding every step to 11 or 8 significant bits would lose
# too much (accumulations, norms, numpy's float division)
WIDENED = {"f16": "f32", "bf16": "f32"}


def to_float(dtype):
    """The dtype a float-only op (exp, true divide, mean) computes an operand of `dtype` in."""
    return dtype if dtype in FLOAT_DTYPES else result_dtype(dtype, float)


def canonical_dtype(dtype):
    """An accy dtype name for a user's dtype: an accy name ("f16"), a numpy dtype or type, or
    Python's bool/int/float (their default dtypes)."""
    if isinstance(dtype, str) and dtype in DTYPES:
        return dtype
    if isinstance(dtype, type) and dtype in DEFAULTS:
        return DEFAULTS[dtype]
    try:
        return dtype_of_numpy(np.dtype(dtype))
    except (TypeError, ValueError):
        raise DTypeError(f"{dtype!r} is not a dtype accy has (accy names: "
                         f"{', '.join(DTYPES)}, or a numpy dtype of one of them)") from None
