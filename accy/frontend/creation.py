"""Arrays made inside a trace: full/zeros/ones (a constant broadcast), arange (an iota), and
asarray (a constant). Shapes and arange's bounds are static Python numbers."""
import math
import operator

from accy.errors import ShapeError, TypeError as DTypeError
from accy.frontend.elementwise import add, multiply, tensor_of
from accy.frontend.promotion import canonical_dtype, result_dtype
from accy.frontend.shapes import iota
from accy.frontend.tensor import Tensor, as_dtype, dtype_of, emitter, lift


def _shape(shape):
    try:
        shape = tuple(operator.index(d) for d in (shape if isinstance(shape, (tuple, list))
                                                  else (shape,)))
    except TypeError:
        raise DTypeError(f"a shape is ints, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ShapeError(f"shape {shape} has a negative size")
    return shape


def asarray(x, dtype=None):
    """`x` (a Tensor, numpy array, list or Python number) as a Tensor, of `dtype` if given."""
    return tensor_of(x) if dtype is None else as_dtype(lift(x), canonical_dtype(dtype))


def full(shape, fill_value, dtype=None):
    """An array of `shape` filled with the scalar `fill_value` (dtype: given, or fill_value's)."""
    x = lift(fill_value)
    x = as_dtype(x, canonical_dtype(dtype) if dtype is not None else result_dtype(dtype_of(x)))
    if x.ndim:
        raise ShapeError(f"'full' fill_value must be a scalar, got shape {x.shape}")
    return Tensor(emitter().broadcast(x.value, _shape(shape)))


def zeros(shape, dtype="f32"):
    return full(shape, 0, dtype)


def ones(shape, dtype="f32"):
    return full(shape, 1, dtype)


def full_like(x, fill_value, dtype=None):
    x = tensor_of(x)
    return full(x.shape, fill_value, x.dtype if dtype is None else dtype)


def zeros_like(x, dtype=None):
    return full_like(x, 0, dtype)


def ones_like(x, dtype=None):
    return full_like(x, 1, dtype)


def arange(start, stop=None, step=1, dtype=None):
    """numpy's arange over static Python numbers: start + step·iota (i32 when start, stop and step
    are ints, else f32, unless `dtype` is given)."""
    if stop is None:
        start, stop = 0, start
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v in (start, stop, step)):
        raise DTypeError("'arange' takes static Python numbers")
    if step == 0:
        raise ShapeError("'arange' step must not be 0")
    dtype = canonical_dtype(dtype) if dtype is not None else \
        result_dtype(*(type(v) for v in (start, stop, step)))
    n = max(0, math.ceil((stop - start) / step))
    out = iota(dtype, (n,), 0)
    if step != 1:
        out = multiply(out, step)
    return add(out, start) if start != 0 else out

