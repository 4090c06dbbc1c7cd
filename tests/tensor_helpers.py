"""Helpers for tests of tensor-dialect IR: build one-function modules with an `Emitter`, run them
with the reference interpreter, make random arrays with edge values mixed in, and compute
independent expectations (correct rounding from f64 or exact integers/Fractions to any float
dtype, integer wrapping, bit-exact and ulp comparisons).

Nothing here uses `accy.reference`'s own helpers, so expectations stay independent of it.
"""
from fractions import Fraction

import ml_dtypes
import numpy as np

import accy.reference
import accy.tensor  # noqa: F401  (registers the tensor dialect)
from accy.ir import Builder, Context, FunctionType, Module, TensorType
from accy.tensor import Emitter

FLOATS = ("f64", "f32", "f16", "bf16")
INTS = ("i64", "i32", "i16", "i8", "u8")
SIGNED = ("i64", "i32", "i16", "i8")
ALL_DTYPES = FLOATS + INTS + ("i1",)

NP = {"f64": np.dtype(np.float64), "f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
      "bf16": np.dtype(ml_dtypes.bfloat16), "i64": np.dtype(np.int64),
      "i32": np.dtype(np.int32), "i16": np.dtype(np.int16), "i8": np.dtype(np.int8),
      "u8": np.dtype(np.uint8), "i1": np.dtype(np.bool_)}
BITS = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16, "i64": 64, "i32": 32, "i16": 16, "i8": 8,
        "u8": 8, "i1": 1}
UINT = {64: np.uint64, 32: np.uint32, 16: np.uint16, 8: np.uint8}
# float dtype -> (significand bits incl. the implicit one, max exponent, min normal exponent)
FLOAT_FORMAT = {"f64": (53, 1023, -1022), "f32": (24, 127, -126), "f16": (11, 15, -14),
                "bf16": (8, 127, -126)}


# ---- building and running ----------------------------------------------------------------------

def module_of(in_types, build, name="main", module=None):
    """A module (new unless given) holding `builtin.func @name(in_types)` whose body is
    `build(emitter, *args) -> list of result Values`; verified. Returns the module."""
    if module is None:
        module = Module.create(Context())
    ctx = module.context
    f = Builder(ctx).at_end(module.body).create(
        "builtin.func", attributes={"sym_name": name, "function_type": FunctionType(in_types, [])})
    blk = f.regions[0].add_block(list(in_types))
    outs = build(Emitter(Builder(ctx).at_end(blk)), *blk.arguments)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    Builder(ctx).at_end(blk).create("builtin.return", outs)
    f.set_attribute("function_type", FunctionType(list(in_types), [o.type for o in outs]))
    module.verify()
    return module


def ttype(arr_or_dtype, shape=None):
    """TensorType of a numpy array, or of (accy dtype, shape)."""
    if shape is None:
        return TensorType(accy_dtype(arr_or_dtype.dtype), arr_or_dtype.shape)
    return TensorType(arr_or_dtype, shape)


def accy_dtype(np_dtype):
    for k, v in NP.items():
        if v == np.dtype(np_dtype):
            return k
    raise ValueError(np_dtype)


def run_build(build, *arrays, **kwargs):
    """Build a module taking `arrays`' types with `build(e, *args)`; run it; return outputs."""
    m = module_of([ttype(a) for a in arrays], build)
    return accy.reference.run(m, *arrays, **kwargs)


def run_op(name, *arrays, result_type=None, **attrs):
    """One op on the arrays; returns its single output."""
    (out,) = run_build(lambda e, *xs: [e.op(name, *xs, result_type=result_type, **attrs)],
                       *arrays)
    return out


def softmax64(x, axis=-1):
    """numpy's softmax of `x` along `axis`, in x's dtype (float64 for an expectation)."""
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


# ---- random data with edge values -------------------------------------------------------------

def float_edges(dtype):
    """Edge values of a float dtype (as that dtype)."""
    d = NP[dtype]
    info = ml_dtypes.finfo(d) if dtype == "bf16" else np.finfo(d)
    tiny, sub = float(info.smallest_normal), float(info.smallest_subnormal)
    vals = [0.0, -0.0, np.inf, -np.inf, np.nan, sub, -sub, tiny, -tiny, tiny - sub,
            float(info.max), -float(info.max), 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 7.0]
    with np.errstate(all="ignore"):
        return np.array(vals, np.float64).astype(d)


def int_edges(dtype):
    if dtype == "i1":
        return np.array([False, True])
    info = np.iinfo(NP[dtype])
    vals = {info.min, info.max, info.min + 1, info.max - 1, 0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 63,
            64, 65}
    if info.min < 0:
        vals |= {-1, -2, -3, -7, -8, -9, -64}
    vals = sorted(v for v in vals if info.min <= v <= info.max)
    return np.array(vals, NP[dtype])


def edges(dtype):
    return float_edges(dtype) if dtype in FLOATS else int_edges(dtype)


def random_values(rng, dtype, size, exp_range=None, ints=False):
    """`size` random values of `dtype` (no edge values), never all zero."""
    d = NP[dtype]
    if dtype == "i1":
        out = rng.integers(0, 2, size).astype(bool)
        if size:
            out[rng.integers(size)] = True
        return out
    if dtype in INTS:
        info = np.iinfo(d)
        mode = rng.integers(0, 3, size)
        wide = rng.integers(int(info.min), int(info.max), size, dtype=np.int64, endpoint=True) \
            if dtype != "i64" else rng.integers(info.min, info.max, size, dtype=np.int64,
                                                endpoint=True)
        lo = max(int(info.min), -20)
        small = rng.integers(lo, 21, size)
        out = np.where(mode == 0, small, wide).astype(d)
        if size and not out.any():
            out[0] = 5
        return out
    if ints:
        vals = rng.integers(-8, 9, size) + rng.choice([0.0, 0.5], size)
    else:
        lo, hi = exp_range or ((-14, 14) if dtype == "f16" else (-40, 40))
        vals = (rng.choice([-1.0, 1.0], size) * np.exp2(rng.uniform(lo, hi, size))
                * rng.uniform(1.0, 2.0, size))
    out = vals.astype(d)
    if size and not out.astype(np.float64).any():
        out[0] = 1.5
    return out


def random_array(rng, dtype, shape, edge_fraction=0.3, **kw):
    """Random array of `shape`, with edge values of the dtype sprinkled in."""
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    out = random_values(rng, dtype, size, **kw)
    e = edges(dtype)
    if size:
        mask = rng.random(size) < edge_fraction
        out[mask] = e[rng.integers(0, len(e), int(mask.sum()))]
    return out.reshape(shape)


def edge_pairs(rng, dtype, extra=16, **kw):
    """Two 1-d arrays holding every pair of edge values of `dtype`, then `extra` random pairs."""
    e = edges(dtype)
    x = np.concatenate([np.repeat(e, len(e)), random_values(rng, dtype, extra, **kw)])
    y = np.concatenate([np.tile(e, len(e)), random_values(rng, dtype, extra, **kw)])
    return x, y


# ---- correct rounding (independent of accy.tensor.semantics.round_to) -------------------------

def _inf_bits(dtype):
    d = NP[dtype]
    return int(np.array([np.inf], d).view(UINT[BITS[dtype]])[0])


def _bits_value(bits, dtype):
    """f64 value of non-negative bit patterns of `dtype`; the +inf pattern stands for
    2**(emax+1), the value RNE overflow rounds to."""
    _, emax, _ = FLOAT_FORMAT[dtype]
    u = UINT[BITS[dtype]]
    bits = np.minimum(np.asarray(bits), _inf_bits(dtype))
    vals = bits.astype(u).view(NP[dtype]).astype(np.float64)
    return np.where(bits >= _inf_bits(dtype), 2.0 ** (emax + 1), vals)


def round_f64(x, dtype):
    """Round f64 array `x` to `dtype` once, to nearest even (incl. overflow to inf, subnormals,
    signed zeros, NaN); exact, no double rounding (for f64, `x` itself)."""
    x = np.asarray(x, np.float64)
    if dtype == "f64":
        return x.copy()
    d = NP[dtype]
    u = UINT[BITS[dtype]]
    a = np.abs(x)
    nan = np.isnan(x)
    a_safe = np.where(nan, 0.0, a)
    with np.errstate(all="ignore"):
        guess = a_safe.astype(np.float32).astype(d)      # may be off by one step: adjusted below
    lo = guess.view(u).astype(np.int64)
    inf_bits = _inf_bits(dtype)
    lo = np.minimum(lo, inf_bits)
    for _ in range(3):
        lo = np.where(_bits_value(lo, dtype) > a_safe, np.maximum(lo - 1, 0), lo)
    for _ in range(3):
        lo = np.where((lo < inf_bits) & (_bits_value(lo + 1, dtype) <= a_safe), lo + 1, lo)
    hi = np.minimum(lo + 1, inf_bits)
    vlo, vhi = _bits_value(lo, dtype), _bits_value(hi, dtype)
    mid = (vlo + vhi) / 2           # exact in f64: one bit more than the dtype's precision
    pick_hi = (a_safe > mid) | ((a_safe == mid) & (lo % 2 == 1))
    bits = np.where(lo >= inf_bits, inf_bits, np.where(pick_hi, hi, lo))
    mag = bits.astype(u).view(d)
    out = np.where(np.signbit(x), -mag, mag).astype(d)
    out[nan] = np.nan
    return out


def round_fraction(q, dtype):
    """Round an exact Fraction (or int) once to `dtype` (nearest even); returns a numpy scalar
    of the dtype. Zero results are +0.0 (the caller handles signed zeros)."""
    q = Fraction(q)
    if q == 0:
        return NP[dtype].type(0.0)
    neg = q < 0
    a = -q if neg else q
    p, emax, emin = FLOAT_FORMAT[dtype]
    # exponent e with 2**e <= a < 2**(e+1)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - (p - 1))
    n, r = divmod(a, quantum)
    n = int(n)
    if r * 2 > quantum or (r * 2 == quantum and n % 2 == 1):
        n += 1
    value = n * quantum
    if value >= Fraction(2) ** (emax + 1):
        result = np.inf
    else:
        result = float(value)       # exact: value has at most p significant bits
    return NP[dtype].type(-result if neg else result)


def wrap(v, dtype):
    """Python int `v` wrapped (two's complement) into `dtype`."""
    bits = BITS[dtype]
    v &= (1 << bits) - 1
    if dtype in SIGNED and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def signed_value(v, dtype):
    """The bits of int `v` of `dtype` read as a signed integer."""
    if dtype == "i1":
        return -1 if v else 0
    bits = BITS[dtype]
    v = int(v) & ((1 << bits) - 1)
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def unsigned_value(v, dtype):
    if dtype == "i1":
        return int(bool(v))
    return int(v) & ((1 << BITS[dtype]) - 1)


# ---- comparisons -------------------------------------------------------------------------------

def assert_bits(actual, expected, what=""):
    """Same dtype, shape and bits (floats: any NaN matches any NaN; signed zeros must match)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind in "iub":
        bad = actual != expected
    else:
        u = UINT[actual.dtype.itemsize * 8]
        a64, e64 = actual.astype(np.float64), expected.astype(np.float64)
        an, en = np.isnan(a64), np.isnan(e64)
        bad = (an != en) | (~an & (actual.view(u) != expected.view(u)))
    _report(bad, actual, expected, f"{what}: {{}} of {bad.size} differ")


def _report(bad, actual, expected, header):
    """Raise AssertionError listing the first few places where `bad` holds (`header` gets the
    count through `{}`)."""
    if not bad.any():
        return
    idx = np.argwhere(bad) if bad.ndim else [()]
    shown = [f"at {tuple(i)}: got {actual[tuple(i)]!r}, want {expected[tuple(i)]!r}"
             for i in idx[:8]]
    raise AssertionError(header.format(int(bad.sum())) + "\n  " + "\n  ".join(shown))


def ulp(x, dtype):
    """Spacing of `dtype` at |x| (x: f64 array); the smallest subnormal near zero; at or above
    the largest finite value, the spacing there."""
    x = np.abs(np.asarray(x, np.float64))
    p, emax, emin = FLOAT_FORMAT[dtype]
    with np.errstate(all="ignore"):
        e = np.floor(np.log2(np.where((x == 0) | ~np.isfinite(x), 1.0, x)))
    e = np.clip(e, emin, emax)
    return np.exp2(e - (p - 1))


def assert_close_ulp(actual, expected_f64, dtype, ulps, what=""):
    """`actual` (of `dtype`) within `ulps` ulp of the f64 value `expected_f64`; NaN exactly
    where the rounded expectation is NaN; infinities count as 2**(emax+1)."""
    actual = np.asarray(actual)
    assert actual.dtype == NP[dtype], f"{what}: dtype {actual.dtype} != {NP[dtype]}"
    expected_f64 = np.asarray(expected_f64, np.float64)
    assert actual.shape == expected_f64.shape, f"{what}: shape {actual.shape}"
    a = actual.astype(np.float64)
    _, emax, _ = FLOAT_FORMAT[dtype]
    big = 2.0 ** (emax + 1) if dtype != "f64" else np.finfo(np.float64).max
    an, en = np.isnan(a), np.isnan(expected_f64)
    same_inf = np.isinf(a) & (a == expected_f64)
    a2 = np.where(np.isinf(a), np.sign(a) * big, a)
    e2 = np.clip(np.where(np.isinf(expected_f64), np.sign(expected_f64) * big, expected_f64),
                 -big, big)
    with np.errstate(invalid="ignore"):
        far = np.abs(a2 - e2) > ulps * ulp(e2, dtype)
    bad = (an != en) | (~an & ~en & ~same_inf & far)
    _report(bad, a, expected_f64, f"{what}: {{}} of {bad.size} beyond {ulps} ulp")


def _scalar(v):
    """A numpy element as a Python int/float/bool (bf16 as float); others unchanged."""
    if isinstance(v, np.generic):
        return float(v) if v.dtype == NP["bf16"] else v.item()
    return v


def elementwise(fn, *arrays, dtype=None):
    """Apply scalar Python `fn` to each element (as Python int/float/bool), giving `dtype`."""
    shape = np.broadcast(*arrays).shape
    arrays = [np.broadcast_to(a, shape) for a in arrays]
    out = np.empty(shape, NP[dtype] if dtype else object)
    for idx in np.ndindex(*shape):
        out[idx] = fn(*(_scalar(a[idx]) for a in arrays))
    return out


# ---- error bounds -----------------------------------------------------------------------------

def f64(x):
    return np.asarray(x).astype(np.float64)


def assert_within(got, want, bound, what=""):
    """|got - want| <= bound everywhere (arrays broadcast; want and bound in float64), else
    an AssertionError naming the count off and the worst place."""
    err = np.abs(f64(got) - want)
    bad = ~(err <= bound)
    if bad.any():
        worst = np.argmax(err - bound)
        raise AssertionError(
            f"{what + ': ' if what else ''}{bad.sum()} of {bad.size} off; worst at "
            f"{np.unravel_index(worst, err.shape)}: got {f64(got).reshape(-1)[worst]}, want "
            f"{np.broadcast_to(want, err.shape).reshape(-1)[worst]}")
