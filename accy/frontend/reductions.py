"""Reductions and scans: sum, prod, mean, max, min, argmax, argmin, cumsum, cumprod, cummax,
logcumsumexp.

`axis` is an int, a tuple of ints or None (every axis); negative axes count from the end.
Sums, products and means of f16/bf16 accumulate in f32 and round once back to the input dtype
(the reduce op accumulates in its own dtype, and with 11 or 8 significant bits a long running
sum loses most of each addend). Sums and products of i1, u8, i8 and i16 accumulate in i32 and
give i32, as JAX does (numpy widens too); i32 and i64 keep their dtype and wrap. Means of ints
are f32. max, min, argmax and argmin of an empty axis raise, as numpy does (no identity).
"""
from accy.errors import ShapeError
from accy.frontend.elementwise import astype, tensor_of, true_divide
from accy.frontend.promotion import WIDENED, to_float
from accy.frontend.shapes import normalize_axes, normalize_axis, ravel
from accy.frontend.tensor import Tensor, as_dtype, emitter
from accy.tensor import identity

# input dtype -> (accumulation dtype, result dtype), for sum, prod, cumsum, cumprod, mean
ACCUMULATE = {**{d: (wide, d) for d, wide in WIDENED.items()},
              **{d: ("i32", "i32") for d in ("i1", "u8", "i8", "i16")}}


def _keep(x, axes, keepdims, source_shape):
    if not keepdims:
        return x
    # the reduced shape with its axes back as 1s: a valid reshape, made without reshape's checks
    shape = tuple(1 if i in axes else d for i, d in enumerate(source_shape))
    return Tensor(emitter().reshape(x.value, shape))


def _nonempty(name, x, axes):
    """numpy's refusal to take a max, min or arg of no elements (there is no identity to give)."""
    if any(x.shape[a] == 0 for a in axes):
        raise ShapeError(f"'{name}' of an empty axis (shape {x.shape}, axes {axes}): a zero-size "
                         f"reduction has no identity")


def _reduce(name, kind, x, axis, keepdims, accumulate):
    x = tensor_of(x)
    axes = normalize_axes(name, axis, x.ndim)
    if kind in ("max", "min"):
        _nonempty(name, x, axes)
    acc, result = ACCUMULATE.get(x.dtype, (x.dtype, x.dtype)) if accumulate else (x.dtype,) * 2
    out = Tensor(emitter().reduce_kind(as_dtype(x, acc).value, axes, kind))
    return _keep(as_dtype(out, result), axes, keepdims, x.shape)


def sum(x, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    return _reduce("sum", "sum", x, axis, keepdims, accumulate=True)


def prod(x, axis=None, keepdims=False):
    return _reduce("prod", "prod", x, axis, keepdims, accumulate=True)


def max(x, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    return _reduce("max", "max", x, axis, keepdims, accumulate=False)


def min(x, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    return _reduce("min", "min", x, axis, keepdims, accumulate=False)


def mean(x, axis=None, keepdims=False):
    """sum / count, in f32 for f16/bf16 (then rounded back) and for ints (an f32 result)."""
    x = tensor_of(x)
    dtype = to_float(x.dtype)
    axes = normalize_axes("mean", axis, x.ndim)
    count = 1
    for a in axes:
        count *= x.shape[a]
    total = _reduce("mean", "sum", astype(x, ACCUMULATE.get(dtype, (dtype,))[0]), axis,
                    keepdims, accumulate=False)
    return astype(true_divide(total, float(count)), dtype)


def _argreduce(kind, x, axis, keepdims):
    x = tensor_of(x)
    source_shape = x.shape
    if axis is None:
        x, axis = ravel(x), 0
        axes = tuple(range(len(source_shape)))
    else:
        axis = normalize_axis(kind, axis, x.ndim)
        axes = (axis,)
    _nonempty(kind, x, (axis,))
    _, index = emitter().argreduce(x.value, axis, kind)
    return _keep(Tensor(index), axes, keepdims, source_shape)


def argmax(x, axis=None, keepdims=False):
    """The i32 index of the first largest element (NaN counts as largest, as in numpy)."""
    return _argreduce("argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """The i32 index of the first smallest element (NaN counts as smallest, as in numpy)."""
    return _argreduce("argmin", x, axis, keepdims)


def _scan(name, kind, x, axis, accumulate=ACCUMULATE, body=None):
    """An inclusive scan along `axis` (None: of the flattened x) by a named kind, or by `body`
    (emitter, acc, elem) -> acc starting from kind's identity."""
    x = tensor_of(x)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(name, axis, x.ndim)
    acc, result = accumulate.get(x.dtype, (x.dtype, x.dtype))
    init = emitter().constant(identity(kind, acc), acc)
    out = Tensor(emitter().scan(as_dtype(x, acc).value, init, axis, body or kind))
    return as_dtype(out, result)


def cumsum(x, axis=None):
    """Inclusive running sum along `axis` (None: of the flattened x)."""
    return _scan("cumsum", "sum", x, axis)


def cumprod(x, axis=None):
    """Inclusive running product along `axis` (None: of the flattened x)."""
    return _scan("cumprod", "prod", x, axis)


def cummax(x, axis=None):
    """Inclusive running maximum along `axis` (NaN propagates; exact in every dtype)."""
    return _scan("cummax", "max", x, axis, accumulate={})


def _log_add_exp(e, a, b):
    """log(exp(a) + exp(b)) = max + log1p(exp(min - max)), without overflow; where the max is
    not finite (both -inf, or an inf) it is the answer itself (inf - inf would be NaN)."""
    high, low = e.op("tensor.maximum", a, b), e.op("tensor.minimum", a, b)
    tail = e.op("tensor.log1p", e.op("tensor.exp", e.op("tensor.subtract", low, high)))
    return e.op("tensor.select", e.op("tensor.is_finite", high),
                e.op("tensor.add", high, tail), high)


def logcumsumexp(x, axis=None):
    """log(cumsum(exp(x))) along `axis`, stable; ints compute in f32, f16/bf16 in f32."""
    x = tensor_of(x)
    x = as_dtype(x, to_float(x.dtype))
    return _scan("logcumsumexp", "max", x, axis, body=_log_add_exp,
                 accumulate={d: (wide, d) for d, wide in WIDENED.items()})
