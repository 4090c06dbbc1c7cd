"""`Tensor`, the traced value, and turning user values (numpy arrays, Python scalars) into IR.

While `accy.jit` traces a function, every op goes to the Emitter on top of a per-thread stack; a
loop body traced into a region pushes that region's Emitter, so the same user code builds ops
wherever it is being traced. Each Tensor remembers the Emitter it was made under and may be used
only while that one is on the stack (a loop body sees the enclosing trace's Tensors, but nothing
sees a finished body's or another trace's). Tensor operators and methods are installed by
`accy.frontend.methods` (they live with the ops they call).
"""
import threading

import numpy as np

from accy._core.types import INT_DTYPES, dtype_of_numpy, numpy_dtype
from accy.errors import AccyError, TypeError as DTypeError
from accy.frontend.promotion import weak_kind
from accy.tensor.build import constant_attr
from accy.tensor.semantics import convert


class _State(threading.local):
    def __init__(self):             # in each thread, on its first use
        self.stack = []


_STATE = _State()


def _stack():
    return _STATE.stack


def emitter():
    """The Emitter of the innermost trace in progress."""
    stack = _stack()
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
        _stack().append(self.e)
        return self.e

    def __exit__(self, *exc):
        _STATE.stack.pop()


class tracing(emitting):
    """`emitting(e)` for a new trace: the traces in progress around it (a function traced while
    another is, e.g. accy.compile called inside a traced function) are hidden inside, so their
    Tensors cannot leak into it."""

    def __enter__(self):
        self.outer = _stack()
        _STATE.stack = [self.e]
        return self.e

    def __exit__(self, *exc):
        _STATE.stack = self.outer


class Tensor:
    """An IR value being traced: `.shape`, `.dtype` (an accy dtype name), `.ndim`, `.size`, `.T`,
    numpy's operators (`+ - * / // % ** @`, comparisons, `& | ^ ~ << >>`, unary `-`, `abs`),
    static indexing and the methods `reshape astype sum mean max min prod argmax argmin
    transpose`."""
    __slots__ = ("_value", "_scope")
    __array_ufunc__ = None      # `ndarray + Tensor` defers to Tensor.__radd__
    __hash__ = None             # `==` builds a comparison, as in numpy

    def __init__(self, value):
        self._value = value
        stack = _stack()
        self._scope = stack[-1] if stack else None

    @property
    def value(self):
        """The IR value, to build an op with: only while the trace or loop body that made this
        Tensor is in progress (a leaked one would make IR that does not verify)."""
        if self._scope not in _stack():         # (Emitters compare by identity)
            emitter()                   # not tracing at all: that error
            raise DTypeError(f"a Tensor ({self._value.type}) made in another accy.jit trace, or "
                             f"inside a loop body that has finished, is used here; return it "
                             f"from the loop body (or pass it to the jitted function) instead")
        return self._value

    shape = property(lambda self: self._value.type.shape)
    dtype = property(lambda self: self._value.type.dtype)
    ndim = property(lambda self: self._value.type.rank)
    size = property(lambda self: self._value.type.num_elements)

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
        return f"Tensor({self._value.type})"


def constant(array, dtype=None):
    """A constant Tensor holding `array` (of `dtype`, default the array's own)."""
    array = np.asarray(array)
    if dtype is None:
        try:
            dtype = dtype_of_numpy(array.dtype)
        except ValueError:
            raise DTypeError(f"numpy dtype {array.dtype} has no accy dtype") from None
    return Tensor(emitter().constant(array, dtype))


def single(leaves):
    """The one leaf: how the values of a function or loop returning one value rebuild."""
    return leaves[0]


# every rebuild `flatten` gives, by name: an executable's output structure is saved as its name
STRUCTURES = {"value": single, "tuple": tuple, "list": list}


def flatten(value):
    """(leaves, rebuild) of a loop's or a traced function's values: a tuple/list's items (a tuple
    subclass rebuilds as a tuple) or `value` alone."""
    if isinstance(value, (tuple, list)):
        return list(value), (list if isinstance(value, list) else tuple)
    return [value], single


def lift(x):
    """A Tensor for a Tensor, numpy array or scalar, or a (nested) list of Python numbers (of
    `default_dtype`); a Python scalar is returned as is (weak)."""
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
        try:
            array = np.asarray(x)
        except ValueError:
            raise DTypeError(f"a ragged list is not an array: {x!r}") from None
        dtype = default_dtype(array)
        if dtype is None:
            raise DTypeError(f"cannot trace a list holding {array.dtype} values")
        return converted(array, dtype)
    raise DTypeError(f"cannot use a {type(x).__name__} in a traced computation (Tensors, numpy "
                     f"arrays and Python numbers only)")


def _holds_tensor(items):
    return any(isinstance(i, Tensor) or isinstance(i, (list, tuple)) and _holds_tensor(i)
               for i in items)


def dtype_of(x):
    """The dtype of a lifted operand, or its Python type if it is a weak scalar."""
    return x.dtype if isinstance(x, Tensor) else weak_kind(x)


# int dtype -> (least, greatest) value
_INT_RANGES = {d: (int(np.iinfo(numpy_dtype(d)).min), int(np.iinfo(numpy_dtype(d)).max))
               for d in INT_DTYPES}


def _fits(n, dtype):
    low, high = _INT_RANGES[dtype]
    return low <= n <= high


def default_dtype(array):
    """The dtype of Python numbers standing alone (`array` holds them: a jit argument, a list,
    `ops.asarray(2)`): i1 / i32 / f32, as JAX, but an int outside i32 is i64 (numpy's int64). An
    int outside i64, or a finite float beyond f32's range, is an accy.TypeError, not a wrapped
    value or an inf. None for values that are not Python numbers."""
    if array.dtype.kind == "b":
        return "i1"
    if array.dtype.kind == "f":
        with np.errstate(over="ignore"):
            beyond = array[np.isinf(array.astype(np.float32)) & np.isfinite(array)]
        if beyond.size:
            raise DTypeError(f"the Python float {float(beyond.flat[0])!r} is beyond f32's range "
                             f"(a numpy float64 is f64)")
        return "f32"
    values = array.ravel().tolist()
    if array.dtype.kind not in "iuO" or not all(type(v) is int for v in values):
        return None
    extremes = (min(values, default=0), max(values, default=0))
    for dtype in ("i32", "i64"):
        if all(_fits(v, dtype) for v in extremes):
            return dtype
    raise DTypeError(f"the Python int {next(v for v in extremes if not _fits(v, 'i64'))} does "
                     f"not fit i64")


def as_dtype(x, dtype, op="asarray"):
    """A lifted operand as a Tensor of `dtype`: a Tensor converted, a Python scalar made a
    constant by `tensor.convert`'s rule (a float into an int truncates and saturates, NaN is 0;
    into bf16 it rounds once), so a constant is what converting at run time would give. A Python
    int that does not fit `dtype` (or, for a float dtype, i64) is an accy.TypeError naming `op`."""
    if isinstance(x, Tensor):
        return Tensor(emitter().convert(x.value, dtype))
    holder = dtype if dtype in INT_DTYPES else "i64"
    if type(x) is int and not _fits(x, holder):
        raise DTypeError(f"'{op}' the Python int {x} does not fit {holder}")
    return Tensor(emitter().op("tensor.constant", value=_scalar_attr(x, dtype)))


def converted(array, dtype):
    """A constant Tensor of `dtype` holding numpy `array` converted by `tensor.convert`'s rule."""
    return Tensor(emitter().constant(convert(array, dtype), dtype))


# (dtype, Python type, exact value) -> the DenseAttr of that weak scalar as a constant: traces
# use the same few scalars (0, 1.0, eps) again and again. Floats are keyed by their hex text,
# so 0.0 and -0.0 differ; a NaN (whose payload the text drops) is not kept. Cleared when full.
_SCALAR_ATTRS = {}
MAX_SCALAR_ATTRS = 4096


def _scalar_attr(x, dtype):
    """The DenseAttr of weak scalar `x` as a constant of `dtype` (`tensor.convert`'s rule)."""
    kind = type(x)
    if kind is float:
        key = (dtype, kind, x.hex()) if x == x else None
    else:
        key = (dtype, kind, x) if kind in (int, bool) else None
    found = _SCALAR_ATTRS.get(key) if key is not None else None
    if found is None:
        found = constant_attr(convert(np.asarray(x), dtype), dtype)
        if key is not None:
            if len(_SCALAR_ATTRS) >= MAX_SCALAR_ATTRS:
                _SCALAR_ATTRS.clear()
            _SCALAR_ATTRS[key] = found
    return found
