"""`Tensor`, the traced value, and turning user values (numpy arrays, Python scalars) into IR.

While `accy.jit` traces a function, every op goes to the Emitter on top of a per-thread stack; a
loop body traced into a region pushes that region's Emitter, so the same user code builds ops
wherever it is being traced. Tensor operators and methods are installed by
`accy.frontend.methods` (they live with the ops they call).
"""
import threading

import numpy as np

from accy._core.types import INT_DTYPES, dtype_of_numpy, numpy_dtype
from accy.errors import AccyError, TypeError as DTypeError
from accy.frontend.promotion import DEFAULTS, weak_kind

_STATE = threading.local()


def emitter():
    """The Emitter of the innermost trace in progress."""
    stack = getattr(_STATE, "stack", None)
    if not stack:
        raise AccyError("accy.ops functions and Tensor operations run only while accy.jit traces "
                        "a function")
    return stack[-1]


class emitting:
    """Context manager: build ops with `e` inside the block (a class, not @contextmanager, so an
    error passing through adds no stdlib frames before the user's line)."""

    def __init__(self, e):
        self.e = e

    def __enter__(self):
        _STATE.__dict__.setdefault("stack", []).append(self.e)
        return self.e

    def __exit__(self, *exc):
        _STATE.stack.pop()


class Tensor:
    """An IR value being traced: `.shape`, `.dtype` (an accy dtype name), `.ndim`, `.size`, `.T`,
    numpy's operators (`+ - * / // % ** @`, comparisons, `& | ^ ~ << >>`, unary `-`, `abs`),
    static indexing and the methods `reshape astype sum mean max min prod argmax argmin
    transpose`."""
    __slots__ = ("value",)
    __array_ufunc__ = None      # `ndarray + Tensor` defers to Tensor.__radd__
    __hash__ = None             # `==` builds a comparison, as in numpy

    def __init__(self, value):
        self.value = value

    shape = property(lambda self: self.value.type.shape)
    dtype = property(lambda self: self.value.type.dtype)
    ndim = property(lambda self: self.value.type.rank)
    size = property(lambda self: self.value.type.num_elements)

    def __len__(self):
        if not self.shape:
            raise DTypeError("len() of a rank-0 Tensor")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        raise DTypeError("a traced Tensor has no Python truth value; use accy.ops.where, "
                         "while_loop or fori_loop for data-dependent choices")

    def __repr__(self):
        return f"Tensor({self.value.type})"


def constant(array, dtype=None):
    """A constant Tensor holding `array` (of `dtype`, default the array's own)."""
    array = np.asarray(array)
    if dtype is None:
        try:
            dtype = dtype_of_numpy(array.dtype)
        except ValueError:
            raise DTypeError(f"numpy dtype {array.dtype} has no accy dtype") from None
    return Tensor(emitter().constant(array, dtype))


def lift(x):
    """A Tensor for a Tensor, numpy array or scalar, or a (nested) list of Python numbers (whose
    dtype is the Python default, i32/f32/i1); a Python scalar is returned as is (weak)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        return constant(x)
    if weak_kind(x) is not None:
        return x
    if isinstance(x, (list, tuple)):
        if _holds_tensor(x):
            raise DTypeError("a list of Tensors is not an array; join them with "
                             "accy.ops.concatenate")
        array = np.asarray(x)
        kind = {"b": bool, "i": int, "u": int, "f": float}.get(array.dtype.kind)
        if kind is None:
            raise DTypeError(f"cannot trace a list holding {array.dtype} values")
        return constant(array, DEFAULTS[kind])
    raise DTypeError(f"cannot use a {type(x).__name__} in a traced computation (Tensors, numpy "
                     f"arrays and Python numbers only)")


def _holds_tensor(items):
    return any(isinstance(i, Tensor) or isinstance(i, (list, tuple)) and _holds_tensor(i)
               for i in items)


def dtype_of(x):
    """The dtype of a lifted operand, or its Python type if it is a weak scalar."""
    return x.dtype if isinstance(x, Tensor) else weak_kind(x)


def as_dtype(x, dtype):
    """A lifted operand as a Tensor of `dtype` (converting a Tensor, materializing a scalar)."""
    if isinstance(x, Tensor):
        return Tensor(emitter().convert(x.value, dtype))
    if dtype in INT_DTYPES and type(x) is int:
        info = np.iinfo(numpy_dtype(dtype))
        if not info.min <= x <= info.max:
            raise DTypeError(f"the Python int {x} does not fit {dtype}")
    with np.errstate(over="ignore"):    # a float beyond the dtype's range is inf, as in numpy
        return constant(np.asarray(x).astype(numpy_dtype(dtype)), dtype)
