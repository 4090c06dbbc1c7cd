"""numpy-like functions for `accy.jit`-traced code. They take Tensors, numpy arrays (embedded as
constants) and Python numbers (weak: they take the other operand's dtype, docs/frontend.md)."""
from accy.frontend import methods  # noqa: F401  (installs Tensor's operators)
from accy.frontend.control import cond, fori_loop, switch, while_loop
from accy.frontend.creation import arange, asarray, full, full_like, ones, ones_like, zeros, \
    zeros_like
from accy.frontend.elementwise import absolute, add, arctan2, astype, bitwise_and, bitwise_or, \
    bitwise_xor, broadcast_to, cbrt, ceil, clip, cos, equal, erf, exp, exp2, expm1, floor, \
    floor_divide, greater, greater_equal, invert, left_shift, less, less_equal, log, log1p, \
    logical_not, maximum, minimum, multiply, negative, not_equal, power, remainder, right_shift, \
    round, rsqrt, sigmoid, sign, sin, sqrt, subtract, tan, tanh, true_divide, where
from accy.frontend.linalg import attention, einsum, matmul
from accy.frontend.nn import gelu, layer_norm, log_softmax, relu, rms_norm, silu, softmax
from accy.frontend.reductions import argmax, argmin, cummax, cumprod, cumsum, logcumsumexp, \
    max, mean, min, prod, sum
from accy.frontend.sorting import argsort, sort
from accy.frontend.shapes import concatenate, dynamic_slice, dynamic_update_slice, expand_dims, \
    pad, ravel, reshape, scatter, squeeze, take, take_along_axis, transpose

abs = absolute          # noqa: A001 - numpy's names
divide = true_divide
mod = remainder
convert = astype

__all__ = [
    "abs", "absolute", "add", "arange", "arctan2", "argmax", "argmin", "argsort", "asarray",
    "astype", "attention", "bitwise_and", "bitwise_or", "bitwise_xor", "broadcast_to", "cbrt",
    "ceil", "clip", "cond", "concatenate", "convert", "cos", "cummax", "cumprod", "cumsum",
    "divide", "dynamic_slice", "dynamic_update_slice", "einsum", "equal", "erf", "exp", "exp2",
    "expand_dims", "expm1", "floor", "floor_divide", "fori_loop", "full", "full_like", "gelu",
    "greater", "greater_equal", "invert", "layer_norm", "left_shift", "less", "less_equal", "log",
    "log1p", "log_softmax", "logcumsumexp", "logical_not", "matmul", "max", "maximum", "mean",
    "min", "minimum", "mod", "multiply", "negative", "not_equal", "ones", "ones_like", "pad",
    "power", "prod", "ravel", "relu", "remainder", "reshape", "right_shift", "rms_norm", "round",
    "rsqrt", "scatter", "sigmoid", "sign", "silu", "sin", "softmax", "sort", "sqrt", "squeeze",
    "subtract", "sum", "switch", "take", "take_along_axis", "tan", "tanh", "transpose",
    "true_divide", "where", "while_loop", "zeros", "zeros_like",
]
