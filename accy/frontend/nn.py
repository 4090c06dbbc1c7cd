"""Neural-network functions, decomposed into primitive tensor ops (reduce, subtract, exp, divide,
rsqrt, erf, tanh, ...) so later stages see and fuse the pieces. softmax and log_softmax subtract
the row maximum first (no overflow in exp). The norms compute f16/bf16 inputs in f32 and round
the result back to the input dtype once. Int and i1 inputs compute in f32.
"""
import math

from accy.errors import ShapeError
from accy.frontend.elementwise import add, astype, erf, exp, log, maximum, multiply, rsqrt, \
    sigmoid, subtract, tanh, tensor_of, true_divide
from accy.frontend.promotion import WIDENED, to_float
from accy.frontend.reductions import max as reduce_max, mean, sum as reduce_sum
from accy.frontend.shapes import normalize_axes
from accy.frontend.tensor import Tensor, emitter


def _float(x):
    x = tensor_of(x)
    return astype(x, to_float(x.dtype))


def relu(x):
    """max(x, 0) (NaN stays NaN)."""
    return maximum(x, 0)


def gelu(x, approximate=False):
    """x·Φ(x) = x/2·(1 + erf(x/√2)); approximate=True: the tanh form
    x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))."""
    x = _float(x)
    if approximate:
        cube = multiply(multiply(x, x), x)
        inner = multiply(math.sqrt(2 / math.pi), add(x, multiply(0.044715, cube)))
        return multiply(multiply(0.5, x), add(1.0, tanh(inner)))
    return multiply(multiply(0.5, x), add(1.0, erf(multiply(x, 1 / math.sqrt(2)))))


def silu(x):
    """x·sigmoid(x)."""
    x = _float(x)
    return multiply(x, sigmoid(x))


def _shifted(op, x, axis):
    """x - max(x, axis), the stable argument of exp."""
    x = _float(x)
    axes = normalize_axes(op, axis, x.ndim)
    return subtract(x, reduce_max(x, axes, keepdims=True)), axes


def softmax(x, axis=-1):
    """exp(x - max) / sum(exp(x - max)) along `axis` (an int or a tuple)."""
    z, axes = _shifted("softmax", x, axis)
    e = exp(z)
    return true_divide(e, reduce_sum(e, axes, keepdims=True))


def log_softmax(x, axis=-1):
    """(x - max) - log(sum(exp(x - max))) along `axis`."""
    z, axes = _shifted("log_softmax", x, axis)
    return subtract(z, log(reduce_sum(exp(z), axes, keepdims=True)))


def _param(op, p, x, axes):
    """A weight or bias of the normalized axes' shape, broadcast onto x's shape."""
    p = tensor_of(p)
    expected = tuple(x.shape[a] for a in axes)
    if p.shape != expected:
        raise ShapeError(f"'{op}' weight and bias must have the normalized axes' shape "
                         f"{expected}, got {p.shape}")
    return Tensor(emitter().broadcast(astype(p, x.dtype).value, x.shape, axes))


def _norm(op, x, axis, scale, weight, bias):
    """`scale(x_wide, axes) * weight + bias` in the widened dtype, rounded back to x's dtype."""
    x = _float(x)
    axes = normalize_axes(op, axis, x.ndim)
    wide = astype(x, WIDENED.get(x.dtype, x.dtype))
    y = scale(wide, axes)
    if weight is not None:
        y = multiply(y, _param(op, weight, wide, axes))
    if bias is not None:
        y = add(y, _param(op, bias, wide, axes))
    return astype(y, x.dtype)


def layer_norm(x, weight=None, bias=None, eps=1e-5, axis=-1):
    """(x - mean) / sqrt(var + eps) · weight + bias over `axis` (biased variance, as torch)."""
    def scale(x, axes):
        centered = subtract(x, mean(x, axes, keepdims=True))
        var = mean(multiply(centered, centered), axes, keepdims=True)
        return multiply(centered, rsqrt(add(var, eps)))
    return _norm("layer_norm", x, axis, scale, weight, bias)


def rms_norm(x, weight=None, eps=1e-6, axis=-1):
    """x / sqrt(mean(x²) + eps) · weight over `axis`."""
    def scale(x, axes):
        return multiply(x, rsqrt(add(mean(multiply(x, x), axes, keepdims=True), eps)))
    return _norm("rms_norm", x, axis, scale, weight, None)
