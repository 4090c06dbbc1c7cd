"""Elementwise ops with numpy broadcasting and the promotion rule of `promotion.py`.

Operands are lifted (`tensor.lift`), promoted to one dtype, converted, and broadcast to one shape
with `broadcast_in_dim` before the tensor op (which takes one type only). Ops that only take floats
(exp, true divide, ...) compute int and i1 operands in f32, as JAX does.
"""
import numpy as np

from accy._core.types import FLOAT_DTYPES
from accy.errors import ShapeError
from accy.frontend.promotion import WIDENED, canonical_dtype, result_dtype, to_float
from accy.frontend.tensor import Tensor, as_dtype, default_dtype, dtype_of, emitter, lift


def broadcast_shapes(op, *shapes):
    """numpy's broadcast of `shapes`; a ShapeError naming `op` if they do not fit."""
    if shapes and all(shape == shapes[0] for shape in shapes):
        return tuple(shapes[0])         # the common case: nothing to broadcast
    out = ()
    for shape in shapes:
        if len(shape) > len(out):
            out = (1,) * (len(shape) - len(out)) + out
        shape = (1,) * (len(out) - len(shape)) + tuple(shape)
        if any(a != b and 1 not in (a, b) for a, b in zip(out, shape)):
            raise ShapeError(f"'{op}' cannot broadcast shapes {' and '.join(map(str, shapes))}")
        out = tuple(b if a == 1 else a for a, b in zip(out, shape))
    return out


def broadcast_to(x, shape, op="broadcast_to"):
    """`x` broadcast to `shape` by numpy's rule (the trailing dims line up)."""
    x = tensor_of(x)
    shape = tuple(shape)
    if broadcast_shapes(op, x.shape, shape) != shape:
        raise ShapeError(f"'{op}' cannot broadcast {x.shape} to {shape}")
    return Tensor(emitter().broadcast(x.value, shape))


def tensor_of(x):
    """`x` lifted; a Python scalar becomes a Tensor of its default dtype (`default_dtype`)."""
    x = lift(x)
    return x if isinstance(x, Tensor) else as_dtype(x, default_dtype(np.asarray(x)))


def promoted(op, *xs, widen=None):
    """`xs` lifted, promoted to one dtype (then `widen(dtype)` if given) and broadcast to one
    shape."""
    if widen is None and len(xs) == 2 and type(xs[0]) is Tensor and type(xs[1]) is Tensor \
            and xs[0]._value.type == xs[1]._value.type:
        return xs                       # the common case: one type already, nothing to do
    xs = [lift(x) for x in xs]
    dtype = result_dtype(*map(dtype_of, xs))
    dtype = widen(dtype) if widen else dtype
    shape = broadcast_shapes(op, *[x.shape for x in xs if isinstance(x, Tensor)])
    e = emitter()          # a Tensor of the dtype and shape already takes no op
    return [Tensor(x.value) if isinstance(x, Tensor) and x.dtype == dtype and x.shape == shape
            else Tensor(e.broadcast(as_dtype(x, dtype, op)._value, shape))
            for x in xs]


def apply(op, *operands, **attributes):
    """The tensor op `op` on Tensors of one type."""
    return Tensor(emitter().op(op, *(t.value for t in operands), **attributes))


def _binary(name, op, doc):
    def fn(x, y):
        return apply(op, *promoted(op, x, y))
    fn.__name__, fn.__doc__ = name, doc + " (operands promoted and broadcast)."
    return fn


add = _binary("add", "tensor.add", "x + y")
subtract = _binary("subtract", "tensor.subtract", "x - y")
multiply = _binary("multiply", "tensor.multiply", "x * y")
power = _binary("power", "tensor.power", "x ** y")
maximum = _binary("maximum", "tensor.maximum", "The larger of x and y (NaN propagates)")
minimum = _binary("minimum", "tensor.minimum", "The smaller of x and y (NaN propagates)")
bitwise_and = _binary("bitwise_and", "tensor.and", "x & y")
bitwise_or = _binary("bitwise_or", "tensor.or", "x | y")
bitwise_xor = _binary("bitwise_xor", "tensor.xor", "x ^ y")
left_shift = _binary("left_shift", "tensor.shift_left", "x << y")


def true_divide(x, y):
    """x / y; ints and bools divide as f32 (numpy's and JAX's true division)."""
    return apply("tensor.divide", *promoted("tensor.divide", x, y, widen=to_float))


def arctan2(y, x):
    """The angle of the point (x, y), in [-pi, pi]; ints and bools compute in f32."""
    return apply("tensor.atan2", *promoted("tensor.atan2", y, x, widen=to_float))


def right_shift(x, y):
    """Arithmetic shift for signed ints, logical for u8 (numpy's >>)."""
    x, y = promoted("tensor.shift_right_arithmetic", x, y)
    op = "tensor.shift_right_logical" if x.dtype == "u8" else "tensor.shift_right_arithmetic"
    return apply(op, x, y)


def _compare(name, direction):
    def fn(x, y):
        return apply("tensor.compare", *promoted("tensor.compare", x, y),
                     comparison_direction=direction)
    fn.__name__, fn.__doc__ = name, f"x {direction} y as an i1 Tensor (operands promoted)."
    return fn


equal = _compare("equal", "EQ")
not_equal = _compare("not_equal", "NE")
less = _compare("less", "LT")
less_equal = _compare("less_equal", "LE")
greater = _compare("greater", "GT")
greater_equal = _compare("greater_equal", "GE")


# numpy's // and % (npy_divmod): both start from C's fmod (tensor.remainder), which numpy moves
# by one divisor where it is non-zero and its sign differs from the divisor's. The float quotient
# is (x - fmod) / y snapped to an integer, exact where floor(x / y) is not (1.0 // 0.1 is 9, not
# 10; inf // 2.0 is nan). f16/bf16 compute in f32, as numpy's half loops do. By zero, numpy gives
# x / y and nan for floats, 0 for ints (tensor.divide and remainder give -1 and x).

def _fmod(x, y):
    """C's fmod of x and y, and where numpy's remainder moves it by y."""
    mod = apply("tensor.remainder", x, y)
    return mod, bitwise_and(not_equal(mod, 0), not_equal(less(y, 0), less(mod, 0)))


def _signed_zero(v):
    """copysign(0, v) of a float (sign keeps ±0 and gives ±1 otherwise)."""
    return multiply(sign(v), 0.0)


def _division(op, x, y):
    """x and y promoted and broadcast, widened for float division, and the dtype to return."""
    x, y = promoted(op, x, y)
    wide = WIDENED.get(x.dtype, x.dtype)
    return as_dtype(x, wide), as_dtype(y, wide), x.dtype


def remainder(x, y):
    """numpy's %: the result takes the divisor's sign (a zero result too: -0.0 % 3.0 is 0.0);
    x % 0 is nan for floats and 0 for ints."""
    x, y, dtype = _division("tensor.remainder", x, y)
    mod, moves = _fmod(x, y)
    mod = where(moves, add(mod, y), mod)
    if dtype in FLOAT_DTYPES:
        mod = where(equal(mod, 0), _signed_zero(y), mod)
    else:
        mod = where(equal(y, 0), 0, mod)
    return as_dtype(mod, dtype)


def floor_divide(x, y):
    """numpy's //: the floor of the quotient (computed exactly, as numpy does); x // 0 is x / 0
    for floats and 0 for ints; ints wrap (INT_MIN // -1 is INT_MIN)."""
    x, y, dtype = _division("tensor.divide", x, y)
    mod, moves = _fmod(x, y)
    if dtype not in FLOAT_DTYPES:
        q = apply("tensor.divide", x, y)          # truncates toward zero
        return where(equal(y, 0), 0, where(moves, subtract(q, 1), q))
    div = true_divide(subtract(x, mod), y)
    div = where(moves, subtract(div, 1), div)
    q = floor(div)
    q = where(greater(subtract(div, q), 0.5), add(q, 1), q)
    q = where(equal(div, 0), _signed_zero(true_divide(x, y)), q)
    return as_dtype(where(equal(y, 0), true_divide(x, y), q), dtype)


def where(condition, x, y):
    """`x` where `condition` (non-zero) holds, else `y`; all three broadcast."""
    cond = lift(condition)
    cond = as_dtype(cond, "i1") if dtype_of(cond) in ("i1", bool) else not_equal(cond, 0)
    x, y = promoted("tensor.select", x, y)
    shape = broadcast_shapes("tensor.select", cond.shape, x.shape, y.shape)
    return apply("tensor.select", *(broadcast_to(t, shape, "tensor.select") for t in (cond, x, y)))


def clip(x, a_min=None, a_max=None):
    """minimum(maximum(x, a_min), a_max), either bound optional (numpy's clip)."""
    x = tensor_of(x)
    if a_min is not None:
        x = maximum(x, a_min)
    if a_max is not None:
        x = minimum(x, a_max)
    return x


def astype(x, dtype):
    """`x` converted to `dtype` (an accy name, a numpy dtype, or bool/int/float)."""
    return as_dtype(lift(x), canonical_dtype(dtype), "astype")


def negative(x):
    return apply("tensor.negate", tensor_of(x))


def absolute(x):
    x = tensor_of(x)
    return x if x.dtype == "i1" else apply("tensor.abs", x)


def sign(x):
    return apply("tensor.sign", tensor_of(x))


def invert(x):
    """~x: bitwise not of ints, logical not of bools."""
    return apply("tensor.not", tensor_of(x))


def logical_not(x):
    return invert(astype(x, "i1"))


def _float_unary(name, op, doc):
    def fn(x):
        x = tensor_of(x)
        return apply(op, as_dtype(x, to_float(x.dtype)))
    fn.__name__, fn.__doc__ = name, doc + " (int and i1 inputs compute in f32)."
    return fn


exp = _float_unary("exp", "tensor.exp", "e**x")
exp2 = _float_unary("exp2", "tensor.exp2", "2**x")
log = _float_unary("log", "tensor.log", "Natural log")
log1p = _float_unary("log1p", "tensor.log1p", "log(1 + x), exact near 0")
expm1 = _float_unary("expm1", "tensor.expm1", "e**x - 1, exact near 0")
sqrt = _float_unary("sqrt", "tensor.sqrt", "Square root")
rsqrt = _float_unary("rsqrt", "tensor.rsqrt", "1 / sqrt(x)")
tanh = _float_unary("tanh", "tensor.tanh", "Hyperbolic tangent")
sigmoid = _float_unary("sigmoid", "tensor.logistic", "1 / (1 + e**-x)")
erf = _float_unary("erf", "tensor.erf", "The error function")
sin = _float_unary("sin", "tensor.sin", "Sine")
cos = _float_unary("cos", "tensor.cos", "Cosine")
tan = _float_unary("tan", "tensor.tan", "Tangent")
cbrt = _float_unary("cbrt", "tensor.cbrt", "Cube root (negative for negative x)")
floor = _float_unary("floor", "tensor.floor", "Round down")
ceil = _float_unary("ceil", "tensor.ceil", "Round up")
_round_even = _float_unary("round_even", "tensor.round_nearest_even", "")


def round(x):  # noqa: A001 - numpy's name
    """Round to the nearest integer, ties to even (numpy's round); ints are returned as is."""
    x = tensor_of(x)
    return x if x.dtype not in FLOAT_DTYPES else _round_even(x)
