"""Arrays made inside a trace: full/zeros/ones (a constant broadcast), arange (an iota), and
asarray (a constant). Shapes and arange's bounds are static Python numbers."""
import math
import operator

import numpy as np

from accy._core.types import INT_DTYPES
from accy.errors import ShapeError, TypeError as DTypeError
from accy.frontend.elementwise import add, astype, multiply, tensor_of
from accy.frontend.promotion import canonical_dtype, result_dtype
from accy.frontend.shapes import iota
from accy.frontend.tensor import Tensor, as_dtype, default_dtype, emitter, lift


def _shape(op, shape):
    try:
        shape = tuple(operator.index(d) for d in (shape if isinstance(shape, (tuple, list))
                                                  else (shape,)))
    except TypeError:
        raise DTypeError(f"'{op}' shape must be ints, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ShapeError(f"'{op}' shape {shape} has a negative size")
    return shape


def asarray(x, dtype=None):
    """`x` (a Tensor, numpy array, list or Python number) as a Tensor, of `dtype` if given."""
    return tensor_of(x) if dtype is None else as_dtype(lift(x), canonical_dtype(dtype))


def _full(op, shape, fill_value, dtype):
    x = lift(fill_value)
    if dtype is not None:
        x = as_dtype(x, canonical_dtype(dtype), op)
    elif not isinstance(x, Tensor):
        x = as_dtype(x, default_dtype(np.asarray(x)), op)
    if x.ndim:
        raise ShapeError(f"'{op}' fill_value must be a scalar, got shape {x.shape}")
    return Tensor(emitter().broadcast(x.value, _shape(op, shape)))


def full(shape, fill_value, dtype=None):
    """An array of `shape` filled with the scalar `fill_value` (dtype: given, or fill_value's)."""
    return _full("full", shape, fill_value, dtype)


def zeros(shape, dtype="f32"):
    return _full("zeros", shape, 0, dtype)


def ones(shape, dtype="f32"):
    return _full("ones", shape, 1, dtype)


def _full_like(op, x, fill_value, dtype):
    x = tensor_of(x)
    return _full(op, x.shape, fill_value, x.dtype if dtype is None else dtype)


def full_like(x, fill_value, dtype=None):
    return _full_like("full_like", x, fill_value, dtype)


def zeros_like(x, dtype=None):
    return _full_like("zeros_like", x, 0, dtype)


def ones_like(x, dtype=None):
    return _full_like("ones_like", x, 1, dtype)


def arange(start, stop=None, step=1, dtype=None):
    """numpy's arange over static Python numbers: ceil((stop - start) / step) values
    start + i·step (i32 when start, stop and step are ints, else f32, unless `dtype` is given).
    Int bounds into an int dtype count in that dtype (an iota); otherwise the values are computed
    in f64 and converted once to `dtype` (`arange(0.5, 3, dtype="i32")` is [0, 1, 2])."""
    if stop is None:
        start, stop = 0, start
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v in (start, stop, step)):
        raise DTypeError("'arange' takes static Python numbers")
    if any(isinstance(v, float) and not math.isfinite(v) for v in (start, stop, step)):
        raise ShapeError(f"'arange' bounds and step must be finite, got {(start, stop, step)}")
    if step == 0:
        raise ShapeError("'arange' step must not be 0")
    dtype = canonical_dtype(dtype) if dtype is not None else \
        result_dtype(*(type(v) for v in (start, stop, step)))
    exact = all(type(v) is int for v in (start, stop, step))
    n = len(range(start, stop, step)) if exact else max(0, math.ceil((stop - start) / step))
    counted = dtype if exact and dtype in INT_DTYPES else "f64"
    out = iota(counted, (n,), 0)
    if step != 1:
        out = multiply(out, step)
    if start != 0:
        out = add(out, start)
    return astype(out, dtype)
