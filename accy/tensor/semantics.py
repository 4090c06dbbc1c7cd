"""What each tensor op without regions computes, on numpy arrays, exactly as docs/tensor-ops.md
("Numerics") defines it: `EVALUATORS[name](op, *operands) -> array`. The reference interpreter
runs these (`accy.reference`), and the folds fold constants through them (`accy.tensor.folds`),
so a folded constant is exactly what the program would have computed. Exactness comes before
speed:

- f16/bf16/f32 elementwise math is evaluated in f64 and rounded once to the op's dtype
  (`round_to`; bf16 through round-to-odd, since a plain f64 -> f32 -> bf16 cast rounds twice);
- integers wrap, with XLA's rules for division by zero and out-of-range shifts;
- dot_general multiplies and sums in f64 (integers: in the accumulation dtype, wrapping),
  rounds once to the accumulation dtype, then converts to the result dtype.

What an absent optional attribute means (`compare_type`, `accumulation_type`, dot_general's
dimension lists) is defined here too; the type rules and the lowering read the same defaults.
"""
import math

import numpy as np

from accy._core.types import FLOAT_DTYPES, numpy_dtype, round_float


# ---- attribute defaults ------------------------------------------------------------------------

SIGNED = frozenset(("i64", "i32", "i16", "i8"))
ACCUMULATION = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "i64": "i64"}
DOT_DIMENSIONS = ("lhs_batching_dimensions", "rhs_batching_dimensions",
                  "lhs_contracting_dimensions", "rhs_contracting_dimensions")


def default_compare_type(dtype):
    return "FLOAT" if dtype in FLOAT_DTYPES else "SIGNED" if dtype in SIGNED else "UNSIGNED"


def accumulation_type(attrs, dtype):
    """The dtype a dot_general multiplies and sums in."""
    given = attrs.get("accumulation_type")
    return ACCUMULATION.get(dtype, "i32") if given is None else given


def dot_dimensions(attrs):
    """(lhs batching, rhs batching, lhs contracting, rhs contracting) dims; absent ones: ()."""
    return tuple(attrs.get(name, ()) for name in DOT_DIMENSIONS)


# ---- rounding ---------------------------------------------------------------------------------

round_to = round_float     # every float result is rounded once from f64


def _f64(x):
    return np.asarray(x).astype(np.float64)


def _float_op(fn):
    """An op on float operands: evaluate `fn` in f64, round once to the operands' dtype."""
    def apply(op, *xs):
        with np.errstate(all="ignore"):
            return round_to(np.asarray(fn(*map(_f64, xs)), np.float64), op.result_types[0].dtype)
    return apply


# ---- elementwise semantics --------------------------------------------------------------------

def _max(a, b):
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), b, a), np.maximum(a, b))


def _min(a, b):
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), a, b), np.minimum(a, b))


def _sign(x):
    return np.where(x == 0, x, np.sign(x))


_erf = np.frompyfunc(math.erf, 1, 1)


def _round_afz(x):
    """Round to the nearest integer, ties away from zero (C's `round`); -0.4 gives -0.0."""
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.copysign(1.0, x), t)

FLOAT_FNS = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "remainder": np.fmod, "power": np.power, "maximum": _max, "minimum": _min,
    "negate": np.negative, "abs": np.abs, "sign": _sign, "exp": np.exp, "exp2": np.exp2,
    "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "tanh": np.tanh,
    "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "erf": lambda x: np.asarray(_erf(x), np.float64), "sin": np.sin, "cos": np.cos,
    "floor": np.floor, "ceil": np.ceil, "round_nearest_even": np.rint,
    "round_nearest_afz": _round_afz, "cbrt": np.cbrt, "tan": np.tan, "atan2": np.arctan2,
}


def _unsigned(x):
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _signed(dtype):
    return dtype.kind == "i"


def _int_divide(a, b):
    """Truncating division; x / 0 = -1, INT_MIN / -1 = INT_MIN (wrapping), as XLA."""
    minus_one = (b == -1) if _signed(a.dtype) else np.zeros(b.shape, bool)
    safe = np.where((b == 0) | minus_one, 1, b).astype(a.dtype)
    q = (a - np.fmod(a, safe)) // safe
    return np.where(b == 0, np.array(-1).astype(a.dtype),
                    np.where(minus_one, np.negative(a), q)).astype(a.dtype)


def _int_remainder(a, b):
    """Remainder with the dividend's sign; x % 0 = x, INT_MIN % -1 = 0."""
    minus_one = (b == -1) if _signed(a.dtype) else np.zeros(b.shape, bool)
    safe = np.where((b == 0) | minus_one, 1, b).astype(a.dtype)
    return np.where(b == 0, a, np.fmod(a, safe)).astype(a.dtype)


def _int_power(a, b):
    """Wrapping exponentiation by squaring; negative exponents as docs/tensor-ops.md says."""
    result = np.ones(np.broadcast(a, b).shape, a.dtype)
    base = np.array(a, copy=True)
    e = np.where(b < 0, 0, b).astype(np.int64) if _signed(b.dtype) else b.astype(np.int64)
    for _ in range(64):
        result = np.where(e & 1, result * base, result).astype(a.dtype)
        base = (base * base).astype(a.dtype)
        e = e >> 1
    if _signed(b.dtype):
        odd = (b & 1).astype(bool)
        negative = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(a.dtype)
        result = np.where(b < 0, negative, result)
    return result.astype(a.dtype)


def _shift(kind):
    def shift(a, b):
        bits = a.dtype.itemsize * 8
        amount = b.astype(np.int64)
        valid = (amount >= 0) & (amount < bits)
        safe = np.where(valid, amount, 0).astype(a.dtype)
        if kind == "left":
            out, fill = a << safe, 0
        elif kind == "logical":
            out, fill = _unsigned(_unsigned(a) >> _unsigned(safe)).view(a.dtype), 0
        else:                           # sign fill, reading the bits as signed (also u8)
            signed = a.view(np.dtype(f"i{a.dtype.itemsize}"))
            out = (signed >> safe.view(signed.dtype)).view(a.dtype)
            fill = np.where(signed < 0, -1, 0).astype(signed.dtype).view(a.dtype)
        return np.where(valid, out, fill).astype(a.dtype)
    return shift


def _popcnt(x):
    return np.bitwise_count(_unsigned(x))


def _count_leading_zeros(x):
    u = _unsigned(x)
    bits = 8 * x.dtype.itemsize
    length = sum(((u >> np.array(k, u.dtype)) != 0).astype(np.int64) for k in range(bits))
    return bits - length


INT_FNS = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": _int_divide,
    "remainder": _int_remainder, "power": _int_power, "maximum": np.maximum,
    "minimum": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "shift_left": _shift("left"), "shift_right_arithmetic": _shift("arithmetic"),
    "shift_right_logical": _shift("logical"), "negate": np.negative, "abs": np.abs,
    "sign": np.sign, "not": np.invert, "popcnt": _popcnt,
    "count_leading_zeros": _count_leading_zeros,
}
BOOL_FNS = {
    "add": np.logical_or, "or": np.logical_or, "maximum": np.logical_or,
    "multiply": np.logical_and, "and": np.logical_and, "minimum": np.logical_and,
    "xor": np.logical_xor, "not": np.logical_not,
}


def _elementwise(name):
    short = name.split(".", 1)[1]

    def apply(op, *xs):
        dtype = op.result_types[0].dtype
        if dtype in FLOAT_DTYPES:
            return _float_op(FLOAT_FNS[short])(op, *xs)
        table = BOOL_FNS if dtype == "i1" else INT_FNS
        with np.errstate(all="ignore"):
            return np.asarray(table[short](*xs)).astype(numpy_dtype(dtype))
    return apply


_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
            "GT": np.greater, "GE": np.greater_equal}


def _compare(op, a, b):
    attrs = op.attributes
    dtype = op.operand_types[0].dtype
    kind = attrs.get("compare_type", default_compare_type(dtype))
    if dtype == "i1" and kind == "SIGNED":
        a, b = -a.astype(np.int8), -b.astype(np.int8)      # a signed 1-bit true is -1
    elif kind == "UNSIGNED" and dtype != "i1":
        a, b = _unsigned(a), _unsigned(b)
    elif kind == "SIGNED" and dtype == "u8":
        a, b = a.view(np.int8), b.view(np.int8)
    with np.errstate(invalid="ignore"):
        return _COMPARE[attrs["comparison_direction"]](a, b)


def _bitcast_convert(op, x):
    """The operand's bits read as the result's dtype (one bit width: an elementwise view)."""
    dtype = op.result_types[0].dtype
    if dtype == "i1":
        return np.asarray(x, np.bool_)
    return np.ascontiguousarray(x).view(numpy_dtype(dtype))


def _clamp(op, lo, x, hi):
    fn = _elementwise("tensor.maximum")
    return _elementwise("tensor.minimum")(op, fn(op, x, lo), hi)


def convert(x, dtype):
    """x converted to `dtype` by the rules of `tensor.convert`."""
    with np.errstate(all="ignore"):
        return _convert(np.asarray(x), dtype)


def _convert(x, dtype):
    src = x.dtype
    target = numpy_dtype(dtype)
    if dtype == "i1":
        return x != 0
    if src == np.bool_:
        return x.astype(target)
    if dtype in FLOAT_DTYPES:
        if src.kind in "iu" and dtype != "bf16":
            return x.astype(target)         # numpy's int -> float cast rounds once
        if src == np.int64:
            return _i64_to_bf16(x)
        return round_to(_f64(x), dtype)
    if src.kind in "iu":
        return x.astype(target)             # wraps
    info = np.iinfo(target)
    with np.errstate(invalid="ignore"):
        t = np.trunc(_f64(x))
        high, low = t >= float(info.max), t <= float(info.min)     # NaN is neither
        inside = np.where(high | low | np.isnan(t), 0, t).astype(np.int64)
    return np.where(high, info.max, np.where(low, info.min, inside)).astype(target)


def _i64_to_bf16(x):
    """i64 -> bf16 rounded once, in integers (through f64 would round twice above 2**53)."""
    negative = x < 0
    n = np.where(negative, -(x + 1), x).astype(np.uint64) + np.where(negative, 1, 0).astype(
        np.uint64)                                          # |x| without overflow at INT_MIN
    bits = sum(((n >> np.uint64(k)) > 0).astype(np.int64) for k in range(64))
    shift = np.maximum(bits - 8, 0).astype(np.uint64)      # keep bf16's 8 significant bits
    kept = n >> shift
    rest = n - (kept << shift)
    half = np.uint64(1) << (np.maximum(shift, 1) - np.uint64(1))
    up = (shift > 0) & ((rest > half) | ((rest == half) & (kept & np.uint64(1) == 1)))
    rounded = (kept + up.astype(np.uint64)).astype(np.float64) * np.exp2(shift.astype(np.float64))
    return np.where(negative, -rounded, rounded).astype(numpy_dtype("bf16"))


# ---- shape ops ----------------------------------------------------------------------------------

def _iota(op):
    t = op.result_types[0]
    d = op.attributes["iota_dimension"]
    shape = [1] * t.rank
    shape[d] = t.shape[d]
    values = np.arange(t.shape[d]).reshape(shape)
    return np.broadcast_to(convert(values, t.dtype), t.shape)


def _broadcast_in_dim(op, x):
    t = op.result_types[0]
    shape = [1] * t.rank
    for i, d in enumerate(op.attributes["broadcast_dimensions"]):
        shape[d] = x.shape[i]
    return np.broadcast_to(x.reshape(shape), t.shape)


def _slice(op, x):
    a = op.attributes
    strides = a.get("strides", (1,) * x.ndim)
    return x[tuple(slice(s, l, st) for s, l, st in
                   zip(a["start_indices"], a["limit_indices"], strides))]


def _pad(op, x, value):
    a = op.attributes
    low, high = a["edge_padding_low"], a["edge_padding_high"]
    interior = a.get("interior_padding", (0,) * x.ndim)
    grown = [max(lo, 0) + max(hi, 0) + d + max(d - 1, 0) * it
             for lo, hi, it, d in zip(low, high, interior, x.shape)]
    out = np.full(grown, value, x.dtype)
    out[tuple(slice(max(lo, 0), max(lo, 0) + (d - 1) * (it + 1) + 1 if d else max(lo, 0), it + 1)
              for lo, it, d in zip(low, interior, x.shape))] = x
    return out[tuple(slice(max(-lo, 0), g - max(-hi, 0))
                     for lo, hi, g in zip(low, high, grown))]


def _gather(op, x, idx):
    a = op.attributes
    axis = a["axis"]
    idx = np.clip(idx.astype(np.int64), 0, x.shape[axis] - 1)
    if a.get("mode", "take") == "take":
        return np.take(x, idx, axis=axis)
    return take_along(x, idx, axis)


def dynamic_starts(starts, shape, sizes):
    """Each start index clamped into [0, dim - size], as StableHLO clamps them."""
    return [min(max(int(s), 0), d - n) for s, d, n in zip(starts, shape, sizes)]


def _dynamic_slice(op, x, *starts):
    sizes = op.attributes["slice_sizes"]
    return x[tuple(slice(k, k + n) for k, n in zip(dynamic_starts(starts, x.shape, sizes),
                                                   sizes))]


def _dynamic_update_slice(op, x, update, *starts):
    out = np.array(x, copy=True)
    at = dynamic_starts(starts, x.shape, update.shape)
    out[tuple(slice(k, k + n) for k, n in zip(at, update.shape))] = update
    return out


def take_along(x, idx, axis):
    """np.take_along_axis(x, idx, axis) for `idx` of x's shape except at `axis`, at any rank:
    numpy makes one index array per dimension and takes at most 63, so the other dimensions
    are merged into one (a 2-D take)."""
    x, idx = np.moveaxis(x, axis, -1), np.moveaxis(idx, axis, -1)
    rows = math.prod(idx.shape[:-1])
    taken = np.take_along_axis(x.reshape(rows, x.shape[-1]), idx.reshape(rows, idx.shape[-1]), 1)
    return np.moveaxis(taken.reshape(idx.shape), -1, axis)


def _dot_general(op, lhs, rhs):
    lb, rb, lc, rc = dot_dimensions(op.attributes)
    lf = [d for d in range(lhs.ndim) if d not in lb + lc]
    rf = [d for d in range(rhs.ndim) if d not in rb + rc]
    batch = [lhs.shape[d] for d in lb]
    k = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    m = int(np.prod([lhs.shape[d] for d in lf], dtype=np.int64))
    n = int(np.prod([rhs.shape[d] for d in rf], dtype=np.int64))
    nb = int(np.prod(batch, dtype=np.int64))
    a = np.transpose(lhs, list(lb) + lf + list(lc)).reshape(nb, m, k)
    b = np.transpose(rhs, list(rb) + list(rc) + rf).reshape(nb, k, n)
    acc = accumulation_type(op.attributes, op.operand_types[0].dtype)
    out_t = op.result_types[0]
    if acc in FLOAT_DTYPES:
        product = round_to(np.matmul(_f64(a), _f64(b)), acc)
    else:
        wide = numpy_dtype(acc)
        with np.errstate(all="ignore"):     # wrapping sums: exact in any order
            product = np.matmul(a.astype(wide), b.astype(wide))
    return convert(product, out_t.dtype).reshape(out_t.shape)


# ---- the evaluators ----------------------------------------------------------------------------

EVALUATORS = {
    **{f"tensor.{n}": _elementwise(f"tensor.{n}")
       for n in set(FLOAT_FNS) | set(INT_FNS) | set(BOOL_FNS)},
    "tensor.is_finite": lambda op, x: np.isfinite(x),
    "tensor.compare": _compare,
    "tensor.select": lambda op, p, a, b: np.where(p, a, b),
    "tensor.clamp": _clamp,
    "tensor.convert": lambda op, x: convert(x, op.result_types[0].dtype),
    "tensor.bitcast_convert": _bitcast_convert,
    "tensor.constant": lambda op: op.attributes["value"].array,
    "tensor.iota": _iota,
    "tensor.reshape": lambda op, x: x.reshape(op.result_types[0].shape),
    "tensor.transpose": lambda op, x: np.transpose(x, op.attributes["permutation"]),
    "tensor.broadcast_in_dim": _broadcast_in_dim,
    "tensor.slice": _slice,
    "tensor.concatenate": lambda op, *xs: np.concatenate(xs, op.attributes["dimension"]),
    "tensor.pad": _pad,
    "tensor.reverse": lambda op, x: np.flip(x, tuple(op.attributes["dimensions"])),
    "tensor.gather": _gather,
    "tensor.dynamic_slice": _dynamic_slice,
    "tensor.dynamic_update_slice": _dynamic_update_slice,
    "tensor.dot_general": _dot_general,
}
