"""The reference interpreter (`accy.reference.run`) op by op against independent formulas.

Every expectation is computed here without accy.reference's helpers: exact integer arithmetic in
Python ints (then wrapped), exact rounding of f64 values / Fractions to a float dtype
(`tensor_helpers.round_f64`, `round_fraction`), numpy's native-dtype IEEE arithmetic for `+ - *
/ sqrt fmod`, Python's `math` for transcendentals. Comparisons are bit-exact wherever
docs/tensor-ops.md ("Numerics") makes the result exact, and within a few ulp of the dtype for
transcendentals. Inputs are fresh random arrays (seed printed, shown on failure) with the
dtype's edge values mixed in: inf, -inf, nan, -0.0, subnormals, the largest finite values,
integer extremes.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

import accy.reference
from accy.errors import AccyError, ShapeError, UnsupportedError
from accy.errors import TypeError as AccyTypeError
from accy.ir import FloatAttr, SymbolRefAttr, TensorType

from tensor_helpers import (ALL_DTYPES, BITS, FLOATS, INTS, NP, SIGNED, assert_bits,
                            assert_close_ulp, edge_pairs, edges, elementwise, module_of,
                            random_array, random_values, round_f64, round_fraction, run_build,
                            run_op, signed_value, ulp, unsigned_value, wrap)

SHAPES = [(), (1,), (2, 1, 3), (0, 3), "edges"]


def _inputs(rng, dtype, shape, n, **kw):
    """n operands of `dtype`: random of `shape`, or ("edges") every pair of edge values."""
    if shape == "edges":
        if n == 1:
            return [np.concatenate([edges(dtype), random_values(rng, dtype, 24, **kw)])]
        return list(edge_pairs(rng, dtype, **kw))
    return [random_array(rng, dtype, shape, **kw) for _ in range(n)]


def _native(fn):
    """An IEEE op in the dtype itself (numpy/ml_dtypes: correctly rounded for + - * / sqrt,
    exact for fmod)."""
    def apply(*xs):
        with np.errstate(all="ignore"):
            return fn(*xs)
    return apply


# ---- scalar formulas on Python floats ----------------------------------------------------------

def fmax(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == 0 and b == 0:
        return -0.0 if (math.copysign(1, a) < 0 and math.copysign(1, b) < 0) else 0.0
    return a if a > b else b


def fmin(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == 0 and b == 0:
        return 0.0 if (math.copysign(1, a) > 0 and math.copysign(1, b) > 0) else -0.0
    return a if a < b else b


def fsign(x):
    if math.isnan(x) or x == 0:
        return x
    return math.copysign(1.0, x)


def _keep_zero_sign(fn):
    def apply(x):
        if math.isnan(x) or math.isinf(x):
            return x
        r = float(fn(x))
        return math.copysign(r, x) if r == 0 else r
    return apply


def _guard(fn, domain=None):
    """fn on a Python float with IEEE results where math raises."""
    def apply(x):
        if math.isnan(x):
            return math.nan
        if domain is not None:
            special = domain(x)
            if special is not None:
                return special
        try:
            return fn(x)
        except OverflowError:
            return math.inf
        except ValueError:
            return math.nan
    return apply


def _exp(x):
    return _guard(math.exp)(x)


FLOAT_BINARY_EXACT = {
    "add": _native(np.add), "subtract": _native(np.subtract),
    "multiply": _native(np.multiply), "divide": _native(np.divide),
    "remainder": _native(np.fmod),
}
FLOAT_UNARY_EXACT = {
    "negate": _native(np.negative), "abs": _native(np.abs), "sqrt": _native(np.sqrt),
    "sign": fsign, "floor": _keep_zero_sign(math.floor), "ceil": _keep_zero_sign(math.ceil),
    "round_nearest_even": _keep_zero_sign(round),
}
# f64 formulas; the reference must be within `ulps` of the dtype (f64: of f64)
TRANSCENDENTAL = {
    "exp": _exp,
    "exp2": _guard(lambda x: 2.0 ** x),
    "log": _guard(math.log, lambda x: -math.inf if x == 0 else math.nan if x < 0 else None),
    "log1p": _guard(math.log1p,
                    lambda x: -math.inf if x == -1 else math.nan if x < -1 else None),
    "expm1": _guard(math.expm1),
    "rsqrt": _guard(lambda x: 1.0 / math.sqrt(x),
                    lambda x: math.copysign(math.inf, x) if x == 0 else
                    0.0 if x == math.inf else None),
    "tanh": _guard(math.tanh),
    "logistic": _guard(lambda x: 1.0 / (1.0 + _exp(-x))),
    "erf": _guard(math.erf),
    "sin": _guard(math.sin, lambda x: math.nan if math.isinf(x) else None),
    "cos": _guard(math.cos, lambda x: math.nan if math.isinf(x) else None),
}


def _pow_f64(x, y):
    with np.errstate(all="ignore"):
        return np.power(x, y)       # the C pow of f64: the only sensible f64 formula


# ---- scalar formulas on Python ints ------------------------------------------------------------

def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def int_binary(name, dt):
    bits = BITS[dt]

    def shift_ok(b):
        return 0 <= b < bits
    fns = {
        "add": lambda a, b: wrap(a + b, dt),
        "subtract": lambda a, b: wrap(a - b, dt),
        "multiply": lambda a, b: wrap(a * b, dt),
        "divide": lambda a, b: wrap(-1, dt) if b == 0 else wrap(_trunc_div(a, b), dt),
        "remainder": lambda a, b: a if b == 0 else wrap(a - b * _trunc_div(a, b), dt),
        "power": lambda a, b: (1 if a == 1 else (-1 if b % 2 else 1) if a == -1 else 0)
        if b < 0 else wrap(pow(a, b, 1 << bits), dt),
        "maximum": max, "minimum": min,
        "and": lambda a, b: wrap(a & b, dt), "or": lambda a, b: wrap(a | b, dt),
        "xor": lambda a, b: wrap(a ^ b, dt),
        "shift_left": lambda a, b: wrap(a << b, dt) if shift_ok(b) else 0,
        "shift_right_logical":
            lambda a, b: wrap(unsigned_value(a, dt) >> b, dt) if shift_ok(b) else 0,
        # arithmetic: the bits read as signed, shifted with sign fill (as XLA/StableHLO)
        "shift_right_arithmetic":
            lambda a, b: wrap(signed_value(a, dt) >> (b if shift_ok(b) else bits), dt),
    }
    return fns[name]


BOOL_BINARY = {"add": lambda a, b: a or b, "or": lambda a, b: a or b,
               "maximum": lambda a, b: a or b, "multiply": lambda a, b: a and b,
               "and": lambda a, b: a and b, "minimum": lambda a, b: a and b,
               "xor": lambda a, b: a != b}
INT_BINARY_NAMES = ("add", "subtract", "multiply", "divide", "remainder", "power", "maximum",
                    "minimum", "and", "or", "xor", "shift_left", "shift_right_arithmetic",
                    "shift_right_logical")


def _expect_float_binary(name, dt, x, y):
    if name in FLOAT_BINARY_EXACT:
        return FLOAT_BINARY_EXACT[name](x, y)
    if name in ("maximum", "minimum"):
        return elementwise(fmax if name == "maximum" else fmin, x, y, dtype=dt)
    raise KeyError(name)


# ---- elementwise: binary -----------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "remainder",
                                  "maximum", "minimum"])
def test_float_binary_exact(rng, name, dt, shape):
    x, y = _inputs(rng, dt, shape, 2)
    out = run_op(f"tensor.{name}", x, y)
    assert_bits(out, _expect_float_binary(name, dt, x, y), f"{name} {dt}")


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dt", FLOATS)
def test_float_power(rng, dt, shape):
    x, y = _inputs(rng, dt, shape, 2)
    if shape != "edges":       # mostly moderate exponents, some integral (negative bases)
        with np.errstate(all="ignore"):
            y = np.where(rng.random(y.shape) < 0.5, np.round(y.astype(np.float64) % 7 - 3),
                         y.astype(np.float64) % 4).astype(NP[dt])
    out = run_op("tensor.power", x, y)
    expected = _pow_f64(x.astype(np.float64), y.astype(np.float64))
    assert_close_ulp(out, expected, dt, 1 if dt != "f64" else 2, f"power {dt}")


def test_float_arithmetic_rounds_once_from_f64():
    """Spot checks of correct rounding against exact Fractions: a bf16 product and f16
    quotients (incl. a subnormal and an overflowing one)."""
    a = np.array([1 + 2 ** -7], NP["bf16"])            # 1.0078125
    b = np.array([1 + 2 ** -7 + 2 ** -8], NP["bf16"])   # not representable: rounds
    b = np.array([float(b[0])], NP["bf16"])
    exact = Fraction(float(a[0])) * Fraction(float(b[0]))
    out = run_op("tensor.multiply", a, b)
    assert_bits(out, np.array([round_fraction(exact, "bf16")], NP["bf16"]))
    # f16 division: correctly rounded quotient of 1/3 and of a subnormal result
    x = np.array([1.0, 2 ** -14, 65504.0, 1e-7], np.float16)
    y = np.array([3.0, 3.0, 0.5, 7.0], np.float16)
    out = run_op("tensor.divide", x, y)
    want = [round_fraction(Fraction(float(p)) / Fraction(float(q)), "f16") for p, q in zip(x, y)]
    assert_bits(out, np.array(want, np.float16))


def test_max_min_nan_and_signed_zeros():
    x = np.array([-0.0, 0.0, -0.0, 0.0, np.nan, 1.0, np.nan, -np.inf], np.float32)
    y = np.array([0.0, -0.0, -0.0, 0.0, 1.0, np.nan, np.nan, np.nan], np.float32)
    mx = run_op("tensor.maximum", x, y)
    mn = run_op("tensor.minimum", x, y)
    assert_bits(mx, np.array([0.0, 0.0, -0.0, 0.0, np.nan, np.nan, np.nan, np.nan], np.float32))
    assert_bits(mn, np.array([-0.0, -0.0, -0.0, 0.0, np.nan, np.nan, np.nan, np.nan],
                             np.float32))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name,dt", [(n, d) for n in INT_BINARY_NAMES for d in INTS
                                     if (n, d) != ("shift_right_arithmetic", "u8")],
                         ids="-".join)      # u8 arithmetic shift: test_shift_right_arithmetic_u8
def test_int_binary(rng, name, dt, shape):
    x, y = _inputs(rng, dt, shape, 2)
    if name.startswith("shift") and shape != "edges":
        y = np.where(rng.random(y.shape) < 0.7, rng.integers(0, BITS[dt] + 2, y.shape), y
                     ).astype(NP[dt])
    out = run_op(f"tensor.{name}", x, y)
    assert_bits(out, elementwise(int_binary(name, dt), x, y, dtype=dt), f"{name} {dt}")


def test_shift_right_arithmetic_u8():
    x = np.array([200, 200, 100, 255, 128], np.uint8)
    y = np.array([1, 9, 1, 200, 7], np.uint8)
    out = run_op("tensor.shift_right_arithmetic", x, y)
    assert_bits(out, elementwise(int_binary("shift_right_arithmetic", "u8"), x, y, dtype="u8"))


def test_int_division_rules():
    """The XLA rules, spelled out: x/0 = -1 (255 for u8), x%0 = x, INT_MIN/-1 = INT_MIN,
    INT_MIN%-1 = 0, truncation toward zero, remainder with the dividend's sign."""
    x = np.array([7, -7, 7, -7, -128, -128, 5, -5, 0], np.int8)
    y = np.array([2, 2, -2, -2, -1, -1, 0, 0, 0], np.int8)
    assert run_op("tensor.divide", x, y).tolist() == [3, -3, -3, 3, -128, -128, -1, -1, -1]
    assert run_op("tensor.remainder", x, y).tolist() == [1, -1, 1, -1, 0, 0, 5, -5, 0]
    u = np.array([7, 255, 0], np.uint8)
    v = np.array([0, 0, 0], np.uint8)
    assert run_op("tensor.divide", u, v).tolist() == [255, 255, 255]
    assert run_op("tensor.remainder", u, v).tolist() == [7, 255, 0]
    m = np.array([np.iinfo(np.int64).min], np.int64)
    assert run_op("tensor.divide", m, np.array([-1], np.int64)).tolist() == [m[0]]
    f = np.array([5.5, -5.5, 5.5, -0.0], np.float32)
    g = np.array([2.0, 2.0, -2.0, 3.0], np.float32)
    assert_bits(run_op("tensor.remainder", f, g), np.array([1.5, -1.5, 1.5, -0.0], np.float32))


def test_int_power_rules():
    x = np.array([1, -1, -1, 2, 0, 3, 2, -2, 0], np.int8)
    y = np.array([-5, -5, -4, -1, -1, 5, 8, 7, 0], np.int8)
    # 3^5 = 243 wraps to -13; 2^8 wraps to 0; (-2)^7 = -128
    assert run_op("tensor.power", x, y).tolist() == [1, -1, 1, 0, 0, -13, 0, -128, 1]


@pytest.mark.parametrize("shape", [(), (3,), (2, 0), "edges"], ids=str)
@pytest.mark.parametrize("name", sorted(BOOL_BINARY))
def test_bool_binary(rng, name, shape):
    x, y = _inputs(rng, "i1", shape, 2)
    out = run_op(f"tensor.{name}", x, y)
    assert_bits(out, elementwise(BOOL_BINARY[name], x, y, dtype="i1"), name)


# ---- elementwise: unary ------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("name", sorted(FLOAT_UNARY_EXACT))
def test_float_unary_exact(rng, name, dt, shape):
    (x,) = _inputs(rng, dt, shape, 1, ints=name in ("floor", "ceil", "round_nearest_even"))
    if name in ("floor", "ceil", "round_nearest_even") and shape != "edges":
        x = np.where(rng.random(x.shape) < 0.5, x, random_array(rng, dt, x.shape))
    out = run_op(f"tensor.{name}", x)
    fn = FLOAT_UNARY_EXACT[name]
    expected = fn(x) if name in ("negate", "abs", "sqrt") else elementwise(fn, x, dtype=dt)
    assert_bits(out, expected, f"{name} {dt}")


def _unary_params():
    out = []
    for name in sorted(TRANSCENDENTAL):
        for dt in FLOATS:
            for shape in SHAPES:
                out.append(pytest.param(name, dt, shape,
                                        id=f"{name}-{dt}-{shape}"))
    return out


@pytest.mark.parametrize("name,dt,shape", _unary_params())
def test_float_unary_transcendental(rng, name, dt, shape):
    (x,) = _inputs(rng, dt, shape, 1, exp_range=(-6, 5))
    out = run_op(f"tensor.{name}", x)
    expected = elementwise(TRANSCENDENTAL[name], x).astype(np.float64)
    ulps = 1 if dt != "f64" else 4
    assert_close_ulp(out, expected, dt, ulps, f"{name} {dt}")


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("name", ["negate", "abs", "sign", "not"])
def test_int_unary(rng, name, dt, shape):
    (x,) = _inputs(rng, dt, shape, 1)
    fn = {"negate": lambda a: wrap(-a, dt), "abs": lambda a: wrap(abs(a), dt),
          "sign": lambda a: (a > 0) - (a < 0), "not": lambda a: wrap(~a, dt)}[name]
    assert_bits(run_op(f"tensor.{name}", x), elementwise(fn, x, dtype=dt), f"{name} {dt}")


def test_bool_not_and_abs_of_int_min():
    x = np.array([True, False])
    assert_bits(run_op("tensor.not", x), np.array([False, True]))
    m = np.array([-128, -127], np.int8)
    assert run_op("tensor.abs", m).tolist() == [-128, 127]
    assert run_op("tensor.negate", m).tolist() == [-128, 127]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dt", FLOATS)
def test_is_finite(rng, dt, shape):
    (x,) = _inputs(rng, dt, shape, 1)
    out = run_op("tensor.is_finite", x)
    assert_bits(out, elementwise(math.isfinite, x, dtype="i1"), f"is_finite {dt}")


# ---- compare, select, clamp --------------------------------------------------------------------

DIRECTIONS = {"EQ": lambda a, b: a == b, "NE": lambda a, b: a != b, "LT": lambda a, b: a < b,
              "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b}


def _compare_params():
    out = []
    for d in DIRECTIONS:
        for dt in ALL_DTYPES:
            kinds = ["FLOAT"] if dt in FLOATS else ["SIGNED", "UNSIGNED"]
            for kind in kinds + [None]:
                out.append(pytest.param(d, dt, kind, id=f"{d}-{dt}-{kind}"))
    return out


@pytest.mark.parametrize("direction,dt,kind", _compare_params())
def test_compare(rng, direction, dt, kind):
    x, y = _inputs(rng, dt, "edges", 2)
    x2, y2 = _inputs(rng, dt, (2, 3), 2)
    y2[0] = x2[0]           # some equal pairs
    attrs = {"comparison_direction": direction}
    if kind is not None:
        attrs["compare_type"] = kind
    effective = kind or ("FLOAT" if dt in FLOATS else "SIGNED" if dt in SIGNED else "UNSIGNED")
    read = {"FLOAT": float, "SIGNED": lambda v: signed_value(v, dt),
            "UNSIGNED": lambda v: unsigned_value(v, dt)}[effective]
    fn = DIRECTIONS[direction]
    for a, b in ((x, y), (x2, y2)):
        out = run_op("tensor.compare", a, b, **attrs)
        assert_bits(out, elementwise(lambda p, q: fn(read(p), read(q)), a, b, dtype="i1"),
                    f"compare {direction} {dt} {kind}")


def test_compare_unsigned_on_negative_ints():
    x = np.array([-1, -128, 1, 0], np.int8)
    y = np.array([1, 127, -1, -1], np.int8)
    out = run_op("tensor.compare", x, y, comparison_direction="GT", compare_type="UNSIGNED")
    assert out.tolist() == [True, True, False, False]
    out = run_op("tensor.compare", x, y, comparison_direction="GT", compare_type="SIGNED")
    assert out.tolist() == [False, False, True, True]


def test_compare_nan_only_ne():
    x = np.array([np.nan] * 6 + [1.0] * 6, np.float32)
    y = np.array([1.0] * 6 + [np.nan] * 6, np.float32)
    for d in DIRECTIONS:
        out = run_op("tensor.compare", x, y, comparison_direction=d)
        assert out.tolist() == [d == "NE"] * 12, d


@pytest.mark.parametrize("pred_rank0", [False, True])
@pytest.mark.parametrize("dt", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 0), (2, 1, 3)], ids=str)
def test_select(rng, dt, shape, pred_rank0):
    a, b = _inputs(rng, dt, shape, 2)
    pred = random_array(rng, "i1", () if pred_rank0 else shape)
    out = run_op("tensor.select", pred, a, b)
    expected = elementwise(lambda p, x, y: x if p else y, pred, a, b, dtype=dt)
    assert_bits(out, expected, f"select {dt}")


@pytest.mark.parametrize("bounds_rank0", [False, True])
@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_clamp(rng, dt, bounds_rank0):
    shape = (6, 5)
    x = random_array(rng, dt, shape)
    lo, hi = (random_array(rng, dt, () if bounds_rank0 else shape) for _ in range(2))
    out = run_op("tensor.clamp", lo, x, hi)
    if dt in FLOATS:
        f = lambda lo_, x_, hi_: fmin(fmax(x_, lo_), hi_)   # noqa: E731
    else:
        f = lambda lo_, x_, hi_: min(max(x_, lo_), hi_)     # noqa: E731
    assert_bits(out, elementwise(f, lo, x, hi, dtype=dt), f"clamp {dt}")


# ---- convert -----------------------------------------------------------------------------------

def _convert_edges(src):
    if src == "i1":
        return np.array([True, False, True])
    if src in FLOATS:
        extra = [1e10, -1e10, 3e9, -3e9, 300.7, -300.7, 255.5, 256.0, -128.5, -129.0, 127.9,
                 -0.7, 0.7, 32767.5, 32768.0, -32769.0, 65504.0, 65520.0, 65519.0,
                 2.0 ** 31, -2.0 ** 31, 2.0 ** 31 - 1, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64, 1e30,
                 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -23, 1 + 2 ** -8 + 2 ** -40,
                 1 + 2 ** -11, 1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -24, 1 + 2 ** -24 + 2 ** -60,
                 1e-40, -1e-40, 2.0 ** -126 * (1 + 2 ** -8), 6e-8, 3e-8, -3e-8, 1e-310]
        with np.errstate(all="ignore"):
            return np.concatenate([edges(src), np.array(extra).astype(NP[src])])
    info = np.iinfo(NP[src])
    extra = [2 ** 62 + 2 ** 54 + 1, 2 ** 62 + 2 ** 54, 2 ** 62 + 2 ** 38 + 1, 2 ** 53 + 1,
             -(2 ** 53 + 1), 2 ** 24 + 1, 2 ** 24 + 3, 65520, 65519, 65504, 2049, 2051, 257, 259,
             300, -300, 200, 128, -129, 2 ** 31 + 5, -(2 ** 31) - 5, 2 ** 40 + 2 ** 32 + 7]
    extra = [v for v in extra if info.min <= v <= info.max]
    return np.concatenate([edges(src), np.array(extra, NP[src])])


def _convert_scalar(v, src, dst):
    if dst == "i1":
        return v != 0
    if src == "i1":
        v = int(v)
    if dst in FLOATS:
        if isinstance(v, int):
            return round_fraction(v, dst)
        raise AssertionError("floats are rounded vectorially")
    if isinstance(v, float):
        if math.isnan(v):
            return 0
        info = np.iinfo(NP[dst])
        if math.isinf(v):
            return info.max if v > 0 else info.min
        return min(max(math.trunc(v), int(info.min)), int(info.max))
    return wrap(int(v), dst)


def _convert_params():
    out = []
    for src in ALL_DTYPES:
        for dst in ALL_DTYPES:
            out.append(pytest.param(src, dst, id=f"{src}-{dst}"))
    return out


@pytest.mark.parametrize("src,dst", _convert_params())
def test_convert(rng, src, dst):
    x = np.concatenate([_convert_edges(src), random_values(rng, src, 40)])
    for arr in (x, x[:0].reshape(0, 2), x[:6].reshape(2, 3), x[5].reshape(())):
        out = run_op("tensor.convert", arr, result_type=TensorType(dst, arr.shape))
        if src in FLOATS and dst in FLOATS:
            expected = round_f64(arr.astype(np.float64), dst)
        else:
            expected = elementwise(lambda v: _convert_scalar(v, src, dst), arr, dtype=dst)
        assert_bits(out, expected, f"convert {src} -> {dst}")


def test_convert_spot_values():
    f = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, -0.0, 2.9, -2.9, 300.0, -1.5], np.float32)
    assert run_op("tensor.convert", f, result_type=TensorType("i32", f.shape)).tolist() == \
        [0, 2 ** 31 - 1, -2 ** 31, 2 ** 31 - 1, -2 ** 31, 0, 2, -2, 300, -1]
    assert run_op("tensor.convert", f, result_type=TensorType("u8", f.shape)).tolist() == \
        [0, 255, 0, 255, 0, 0, 2, 0, 255, 0]
    assert run_op("tensor.convert", f, result_type=TensorType("i1", f.shape)).tolist() == \
        [True, True, True, True, True, False, True, True, True, True]
    # bf16 ties to even: 1 + 2^-8 -> 1, 1 + 3*2^-8 -> 1 + 2^-6; above the tie rounds up
    t = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -23], np.float32)
    out = run_op("tensor.convert", t, result_type=TensorType("bf16", t.shape))
    assert out.astype(np.float64).tolist() == [1.0, 1 + 2 ** -6, 1 + 2 ** -7]
    # f64 -> bf16 once: 1 + 2^-8 + 2^-40 is above the tie (an f32 step would land on it)
    d = np.array([1 + 2 ** -8 + 2 ** -40, -(1 + 2 ** -8 + 2 ** -40)], np.float64)
    out = run_op("tensor.convert", d, result_type=TensorType("bf16", d.shape))
    assert out.astype(np.float64).tolist() == [1 + 2 ** -7, -(1 + 2 ** -7)]
    i = np.array([-1, 255, 256, -129], np.int32)
    assert run_op("tensor.convert", i, result_type=TensorType("u8", i.shape)).tolist() == \
        [255, 255, 0, 127]


@pytest.mark.parametrize("src,dst,value", [("f64", "f32", 1e300), ("f64", "bf16", 1e300),
                                           ("i32", "f16", 70000)])
def test_convert_overflow_is_silent(src, dst, value):
    import warnings
    x = np.array([value], NP[src])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run_op("tensor.convert", x, result_type=TensorType(dst, (1,)))
    assert np.isinf(out.astype(np.float64)).all()


# ---- constant, iota ----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (3, 4), (0, 2)], ids=str)
def test_constant(rng, dt, shape):
    value = random_array(rng, dt, shape, edge_fraction=0.5)
    (out,) = run_build(lambda e: [e.constant(value, dt)])
    assert_bits(out, value, f"constant {dt}")


@pytest.mark.parametrize("dt", [d for d in ALL_DTYPES if d != "i1"])
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2),
                                       ((300,), 0), ((3, 0), 0), ((1, 7), 1)], ids=str)
def test_iota(dt, shape, dim):
    (out,) = run_build(lambda e: [e.op("tensor.iota", iota_dimension=dim,
                                       result_type=TensorType(dt, shape))])
    expected = np.empty(shape, NP[dt])
    for idx in np.ndindex(*shape):
        i = idx[dim]
        expected[idx] = round_fraction(i, dt) if dt in FLOATS else wrap(i, dt)
    assert_bits(out, expected, f"iota {dt} {shape} {dim}")


# ---- shape ops ---------------------------------------------------------------------------------

SHAPE_DTYPES = ["f32", "bf16", "f64", "i8", "u8", "i64", "i1"]


@pytest.mark.parametrize("dt", SHAPE_DTYPES)
@pytest.mark.parametrize("src,dst", [((2, 3, 4), (4, 6)), ((6,), (1, 6, 1)), ((), (1, 1)),
                                     ((1,), ()), ((0, 3), (3, 0, 5)), ((2, 2), (4,))], ids=str)
def test_reshape(rng, dt, src, dst):
    x = random_array(rng, dt, src)
    out = run_op("tensor.reshape", x, result_type=TensorType(dt, dst))
    flat = [x[i] for i in np.ndindex(*x.shape)]          # row-major
    expected = np.empty(dst, NP[dt])
    for k, i in enumerate(np.ndindex(*dst)):
        expected[i] = flat[k]
    assert_bits(out, expected, "reshape")


@pytest.mark.parametrize("dt", SHAPE_DTYPES)
@pytest.mark.parametrize("shape,perm", [((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 1, 2)),
                                        ((5, 1), (1, 0)), ((), ()), ((0, 2, 3), (1, 2, 0)),
                                        ((2, 3, 4, 5), (3, 1, 0, 2))], ids=str)
def test_transpose(rng, dt, shape, perm):
    x = random_array(rng, dt, shape)
    out = run_op("tensor.transpose", x, permutation=perm)
    expected = np.empty(tuple(shape[p] for p in perm), NP[dt])
    for idx in np.ndindex(*expected.shape):
        src = [0] * len(shape)
        for i, p in enumerate(perm):
            src[p] = idx[i]
        expected[idx] = x[tuple(src)]
    assert_bits(out, expected, "transpose")


@pytest.mark.parametrize("dt", SHAPE_DTYPES)
@pytest.mark.parametrize("src,dst,dims", [((3,), (2, 3), (1,)), ((3,), (3, 2), (0,)),
                                          ((), (2, 2), ()), ((1, 4), (3, 2, 4), (0, 2)),
                                          ((2, 1), (2, 5, 3), (0, 2)), ((1,), (0, 4), (1,)),
                                          ((2, 3), (2, 3), (0, 1))], ids=str)
def test_broadcast_in_dim(rng, dt, src, dst, dims):
    x = random_array(rng, dt, src)
    out = run_op("tensor.broadcast_in_dim", x, broadcast_dimensions=dims,
                 result_type=TensorType(dt, dst))
    expected = np.empty(dst, NP[dt])
    for idx in np.ndindex(*dst):
        expected[idx] = x[tuple(0 if src[i] == 1 else idx[d] for i, d in enumerate(dims))]
    assert_bits(out, expected, "broadcast_in_dim")


@pytest.mark.parametrize("dt", SHAPE_DTYPES)
@pytest.mark.parametrize("shape,start,limit,strides", [
    ((10,), (1,), (9,), (3,)), ((10,), (0,), (10,), (1,)), ((10,), (4,), (4,), (2,)),
    ((5, 6), (1, 0), (5, 6), (2, 4)), ((5, 6), (4, 5), (5, 6), (7, 7)),
    ((3, 4, 5), (0, 1, 2), (3, 4, 5), (1, 2, 2)), ((0, 3), (0, 1), (0, 3), (1, 1)),
    ((), (), (), ())], ids=str)
def test_slice(rng, dt, shape, start, limit, strides):
    x = random_array(rng, dt, shape)
    out = run_op("tensor.slice", x, start_indices=start, limit_indices=limit, strides=strides)
    ranges = [list(range(s, l, st)) for s, l, st in zip(start, limit, strides)]
    expected = np.empty(tuple(len(r) for r in ranges), NP[dt])
    for idx in np.ndindex(*expected.shape):
        expected[idx] = x[tuple(r[i] for r, i in zip(ranges, idx))]
    assert_bits(out, expected, "slice")


def test_slice_without_strides(rng):
    x = random_array(rng, "f32", (4, 5))
    out = run_op("tensor.slice", x, start_indices=(1, 2), limit_indices=(3, 5))
    assert_bits(out, x[1:3, 2:5].copy())


@pytest.mark.parametrize("dt", SHAPE_DTYPES)
@pytest.mark.parametrize("shapes,dim", [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1),
                                        ([(3,)], 0), ([(0, 2), (0, 2)], 0),
                                        ([(1, 2, 3), (1, 2, 2), (1, 2, 1)], 2)], ids=str)
def test_concatenate(rng, dt, shapes, dim):
    xs = [random_array(rng, dt, s) for s in shapes]
    (out,) = run_build(lambda e, *vs: [e.op("tensor.concatenate", *vs, dimension=dim)], *xs)
    total = sum(s[dim] for s in shapes)
    shape = list(shapes[0])
    shape[dim] = total
    expected = np.empty(shape, NP[dt])
    for idx in np.ndindex(*shape):
        k, off = 0, idx[dim]
        while off >= shapes[k][dim]:
            off -= shapes[k][dim]
            k += 1
        expected[idx] = xs[k][idx[:dim] + (off,) + idx[dim + 1:]]
    assert_bits(out, expected, "concatenate")


def _pad_expected(x, value, low, high, interior):
    shape = [lo + hi + d + max(d - 1, 0) * it for lo, hi, it, d in
             zip(low, high, interior, x.shape)]
    out = np.empty(shape, x.dtype)
    for idx in np.ndindex(*shape):
        src = []
        for i, lo, it, d in zip(idx, low, interior, x.shape):
            o = i - lo
            if o < 0 or o % (it + 1) or o // (it + 1) >= d:
                src = None
                break
            src.append(o // (it + 1))
        out[idx] = value if src is None else x[tuple(src)]
    return out


@pytest.mark.parametrize("dt", ["f32", "bf16", "i8", "i1"])
@pytest.mark.parametrize("shape,low,high,interior", [
    ((4,), (1,), (2,), (0,)), ((4,), (0,), (0,), (2,)), ((4,), (-1,), (-2,), (0,)),
    ((4,), (-2,), (1,), (1,)), ((4,), (-3,), (-3,), (1,)), ((3, 2), (1, -1), (0, 2), (1, 3)),
    ((1,), (2,), (-1,), (5,)), ((), (), (), ()), ((2, 0), (1, 0), (0, 0), (0, 2)),
    ((0,), (1,), (1,), (0,)), ((2, 0), (0, 1), (0, 2), (0, 0)),
    ((3, 4), (-1, -2), (-1, -2), (0, 0))], ids=str)
def test_pad(rng, dt, shape, low, high, interior):
    x = random_array(rng, dt, shape)
    value = random_array(rng, dt, ())
    out = run_op("tensor.pad", x, value, edge_padding_low=low, edge_padding_high=high,
                 interior_padding=interior)
    assert_bits(out, _pad_expected(x, value, low, high, interior), "pad")


@pytest.mark.parametrize("dt", SHAPE_DTYPES)
@pytest.mark.parametrize("shape,dims", [((5,), (0,)), ((2, 3, 4), (0, 2)), ((2, 3), ()),
                                        ((3, 0), (1,)), ((2, 3, 4), (2, 1, 0))], ids=str)
def test_reverse(rng, dt, shape, dims):
    x = random_array(rng, dt, shape)
    out = run_op("tensor.reverse", x, dimensions=dims)
    expected = np.empty(shape, NP[dt])
    for idx in np.ndindex(*shape):
        expected[idx] = x[tuple(s - 1 - i if d in dims else i
                                for d, (i, s) in enumerate(zip(idx, shape)))]
    assert_bits(out, expected, "reverse")


# ---- gather ------------------------------------------------------------------------------------

def _clampi(i, n):
    return min(max(int(i), 0), n - 1)


@pytest.mark.parametrize("idt", ["i32", "i64", "i8", "u8"])
@pytest.mark.parametrize("dt", ["f32", "bf16", "i16", "i1"])
@pytest.mark.parametrize("shape,axis,ishape", [((5,), 0, (7,)), ((3, 4), 1, (2, 3)),
                                               ((3, 4), 0, ()), ((4, 2, 3), 1, (5,)),
                                               ((3, 4), 1, (0,))], ids=str)
def test_gather_take(rng, dt, idt, shape, axis, ishape):
    x = random_array(rng, dt, shape)
    n = shape[axis]
    lo = 0 if idt == "u8" else -3
    idx = rng.integers(lo, n + 3, ishape).astype(NP[idt])
    if idx.size:
        idx.flat[0] = np.iinfo(NP[idt]).max
    out = run_op("tensor.gather", x, idx, axis=axis)
    oshape = shape[:axis] + ishape + shape[axis + 1:]
    expected = np.empty(oshape, NP[dt])
    k = len(ishape)
    for o in np.ndindex(*oshape):
        a, i, b = o[:axis], o[axis:axis + k], o[axis + k:]
        expected[o] = x[a + (_clampi(idx[i], n),) + b]
    assert_bits(out, expected, "gather take")
    if idt == "i32":        # mode="take" is the default
        assert_bits(run_op("tensor.gather", x, idx, axis=axis, mode="take"), expected)


@pytest.mark.parametrize("idt", ["i32", "i64", "u8"])
@pytest.mark.parametrize("dt", ["f32", "f16", "i64", "i1"])
@pytest.mark.parametrize("shape,axis,ilen", [((5,), 0, 8), ((3, 4), 1, 2), ((3, 4), 0, 6),
                                             ((2, 3, 4), 1, 1), ((3, 4), 1, 0)], ids=str)
def test_gather_along_axis(rng, dt, idt, shape, axis, ilen):
    x = random_array(rng, dt, shape)
    ishape = shape[:axis] + (ilen,) + shape[axis + 1:]
    n = shape[axis]
    idx = rng.integers(0 if idt == "u8" else -4, n + 4, ishape).astype(NP[idt])
    out = run_op("tensor.gather", x, idx, axis=axis, mode="along_axis")
    expected = np.empty(ishape, NP[dt])
    for o in np.ndindex(*ishape):
        src = list(o)
        src[axis] = _clampi(idx[o], n)
        expected[o] = x[tuple(src)]
    assert_bits(out, expected, "gather along_axis")


# ---- dot_general -------------------------------------------------------------------------------

# (lhs shape, rhs shape, lhs batch, rhs batch, lhs contracting, rhs contracting)
DOT_PATTERNS = {
    "matmul": ((3, 4), (4, 5), (), (), (1,), (0,)),
    "batched": ((2, 3, 4), (2, 4, 5), (0,), (0,), (2,), (1,)),
    "transposed": ((4, 3), (5, 4), (), (), (0,), (1,)),
    "two-contracting": ((3, 2, 4), (4, 5, 2), (), (), (1, 2), (2, 0)),
    "outer": ((3,), (4,), (), (), (), ()),
    "batch-inside": ((4, 2, 3), (3, 5, 2), (1,), (2,), (2,), (0,)),
    "vector-dot": ((6,), (6,), (), (), (0,), (0,)),
    "empty-contraction": ((3, 0), (0, 2), (), (), (1,), (0,)),
    "two-batch": ((2, 1, 3, 2), (1, 2, 2, 3), (0, 1), (1, 0), (3,), (2,)),
    "size-1": ((1, 1), (1, 1), (), (), (1,), (0,)),
    "batch-list-order": ((2, 3, 4), (3, 2, 4, 5), (1, 0), (0, 1), (2,), (2,)),
}
ACC_DEFAULT = {"f16": "f32", "bf16": "f32", "f32": "f32", "f64": "f64", "i64": "i64"}


def _dot_exact(lhs, rhs, lb, rb, lc, rc):
    """The exact products' sums (Fractions for floats, ints for ints), as an object array."""
    lf = [d for d in range(lhs.ndim) if d not in lb + lc]
    rf = [d for d in range(rhs.ndim) if d not in rb + rc]
    bshape = tuple(lhs.shape[d] for d in lb)
    cshape = tuple(lhs.shape[d] for d in lc)
    oshape = bshape + tuple(lhs.shape[d] for d in lf) + tuple(rhs.shape[d] for d in rf)
    is_float = lhs.dtype.kind == "f" or lhs.dtype == NP["bf16"]
    conv = (lambda v: Fraction(float(v))) if is_float else int
    out = np.empty(oshape, object)
    nb, nl = len(lb), len(lf)
    for o in np.ndindex(*oshape):
        b, li, ri = o[:nb], o[nb:nb + nl], o[nb + nl:]
        total = Fraction(0) if is_float else 0
        for c in np.ndindex(*cshape):
            li_full, ri_full = [0] * lhs.ndim, [0] * rhs.ndim
            for full, pairs in ((li_full, ((lb, b), (lf, li), (lc, c))),
                                (ri_full, ((rb, b), (rf, ri), (rc, c)))):
                for dims, values in pairs:
                    for d, v in zip(dims, values):
                        full[d] = v
            total += conv(lhs[tuple(li_full)]) * conv(rhs[tuple(ri_full)])
        out[o] = total
    return out


def _run_dot(lhs, rhs, pattern, out_dt, acc=None):
    _, _, lb, rb, lc, rc = pattern
    exact = _dot_exact(lhs, rhs, lb, rb, lc, rc)
    kw = dict(lhs_batching_dimensions=lb, rhs_batching_dimensions=rb,
              lhs_contracting_dimensions=lc, rhs_contracting_dimensions=rc)
    if acc is not None:
        kw["accumulation_type"] = acc
    (out,) = run_build(lambda e, a, b: [e.op("tensor.dot_general", a, b, result_type=TensorType(
        out_dt, exact.shape), **kw)], lhs, rhs)
    return out, exact


def _exactish(rng, dt, shape):
    """Random floats with few significand bits, so every f64 product and partial sum is exact
    but the sums need more bits than f32 (or the dtype) holds."""
    bits, scale = {"f32": (10, 12), "f64": (10, 12), "f16": (5, 6), "bf16": (7, 8)}[dt]
    m = rng.integers(-(2 ** bits) + 1, 2 ** bits, shape)
    e = rng.integers(-scale, scale + 1, shape) if dt in ("f16", "bf16") else \
        rng.integers(0, scale + 1, shape)
    out = (m * np.exp2(e)).astype(NP[dt])
    if out.size and not out.astype(np.float64).any():
        out.flat[0] = 1.0
    return out


@pytest.mark.parametrize("pattern", sorted(DOT_PATTERNS))
@pytest.mark.parametrize("dt,out_dt,acc", [
    ("f32", "f32", None), ("f16", "f32", None), ("f16", "f16", None), ("bf16", "bf16", None),
    ("bf16", "f32", None), ("f64", "f64", None), ("f32", "f64", None), ("f32", "f32", "f64"),
    ("f16", "f16", "f16"), ("bf16", "f32", "bf16")])
def test_dot_general_float_exact(rng, pattern, dt, out_dt, acc):
    """Exact sums rounded once to the accumulation dtype, then converted to the result (the
    reference's documented behaviour)."""
    p = DOT_PATTERNS[pattern]
    lhs, rhs = _exactish(rng, dt, p[0]), _exactish(rng, dt, p[1])
    out, exact = _run_dot(lhs, rhs, p, out_dt, acc)
    acc = acc or ACC_DEFAULT[dt]
    at_acc = np.array([round_fraction(v, acc) for v in exact.flat], NP[acc]).reshape(exact.shape)
    expected = round_f64(at_acc.astype(np.float64), out_dt)
    assert_bits(out, expected, f"dot_general {pattern} {dt}->{out_dt}")


@pytest.mark.parametrize("pattern", ["matmul", "batched", "two-contracting", "vector-dot"])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_dot_general_float_random(rng, pattern, dt):
    p = DOT_PATTERNS[pattern]
    lhs = rng.standard_normal(p[0]).astype(NP[dt])
    rhs = rng.standard_normal(p[1]).astype(NP[dt])
    out, exact = _run_dot(lhs, rhs, p, "f32")
    abs_sum = _dot_exact(np.abs(lhs.astype(np.float64)), np.abs(rhs.astype(np.float64)),
                         *p[2:]).astype(np.float64)
    e = exact.astype(np.float64)
    tol = ulp(e, "f32") + abs_sum * 2.0 ** -50
    assert np.all(np.abs(out.astype(np.float64) - e) <= tol), (out, e)


@pytest.mark.parametrize("pattern", sorted(DOT_PATTERNS))
@pytest.mark.parametrize("dt,out_dt,acc", [("i8", "i32", None), ("i32", "i32", None),
                                           ("u8", "u8", None), ("i64", "i64", None),
                                           ("i16", "i64", "i64"), ("i16", "i16", None),
                                           ("i8", "i8", "i32"), ("i32", "i32", "i64")])
def test_dot_general_int(rng, pattern, dt, out_dt, acc):
    p = DOT_PATTERNS[pattern]
    lhs, rhs = random_array(rng, dt, p[0]), random_array(rng, dt, p[1])
    out, exact = _run_dot(lhs, rhs, p, out_dt, acc)
    acc_dt = acc or ACC_DEFAULT.get(dt, "i32")
    expected = elementwise(lambda v: wrap(wrap(v, acc_dt), out_dt), exact, dtype=out_dt)
    assert_bits(out, expected, f"dot_general {pattern} {dt}")


def test_dot_general_i16_accumulation_width_matters():
    """i16 products summed in i32 wrap; summed in i64 they do not."""
    lhs = np.full((1, 4), 32767, np.int16)
    rhs = np.full((4, 1), 32767, np.int16)
    p = DOT_PATTERNS["matmul"]
    out32, _ = _run_dot(lhs, rhs, p, "i32")
    out64, _ = _run_dot(lhs, rhs, p, "i64", "i64")
    assert out64.tolist() == [[4 * 32767 ** 2]]
    assert out32.tolist() == [[wrap(4 * 32767 ** 2, "i32")]]


# ---- reduce ------------------------------------------------------------------------------------

def _fold_rows(x, dims):
    """x with `dims` moved last (in increasing order) and flattened: row-major fold order."""
    dims = sorted(dims)
    moved = np.moveaxis(x, dims, list(range(x.ndim - len(dims), x.ndim)))
    outer = moved.shape[:x.ndim - len(dims)]
    n = int(np.prod([x.shape[d] for d in dims], dtype=np.int64))
    return outer, moved.reshape(outer + (n,))


def fold_expected(x, dims, init, step, dtype):
    outer, rows = _fold_rows(x, dims)
    out = np.empty(outer, NP[dtype])
    for o in np.ndindex(*outer):
        acc = init
        for v in rows[o]:
            acc = step(acc, v)
        out[o] = acc
    return out


def kind_step(kind, dt):
    """acc' = kind(acc, e) on numpy scalars of dt, exactly as the elementwise op defines it."""
    if dt == "i1":
        return {"sum": lambda a, b: bool(a or b), "or": lambda a, b: bool(a or b),
                "max": lambda a, b: bool(a or b), "prod": lambda a, b: bool(a and b),
                "and": lambda a, b: bool(a and b), "min": lambda a, b: bool(a and b)}[kind]
    if dt in FLOATS:
        d = NP[dt]
        if kind in ("max", "min"):
            f = fmax if kind == "max" else fmin
            return lambda a, b: d.type(f(float(a), float(b)))
        op = {"sum": np.add, "prod": np.multiply}[kind]

        def native(a, b):
            with np.errstate(all="ignore"):
                return op(np.asarray(a, d), np.asarray(b, d))[()]
        return native
    name = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
            "and": "and", "or": "or"}[kind]
    f = int_binary(name, dt)
    return lambda a, b: f(int(a), int(b))


IDENTITY = {"sum": 0, "prod": 1}

REDUCE_CASES = [((4, 5), (1,)), ((4, 5), (0,)), ((2, 3, 4), (0, 2)), ((2, 3, 4), (0, 1, 2)),
                ((3, 4), ()), ((3, 0, 2), (1,)), ((3, 0, 2), (0,)),
                ((1, 1), (0, 1)), ((5,), (0,)), ((2, 3, 4), (2, 0))]


def _kinds(dt):
    if dt == "i1":
        return ["sum", "prod", "max", "min", "and", "or"]
    if dt in FLOATS:
        return ["sum", "prod", "max", "min"]
    return ["sum", "prod", "max", "min", "and", "or"]


@pytest.mark.parametrize("shape,dims", REDUCE_CASES, ids=str)
@pytest.mark.parametrize("dt,kind", [(d, k) for d in ALL_DTYPES for k in _kinds(d)],
                         ids=lambda v: str(v))
def test_reduce_kind(rng, dt, kind, shape, dims):
    kw = {"exp_range": (-1, 1)} if kind == "prod" and dt in FLOATS else {}
    x = random_array(rng, dt, shape, edge_fraction=0.1, **kw)
    (out,) = run_build(lambda e, v: [e.reduce_kind(v, dims, kind)], x)
    init = accy.tensor.identity(kind, dt)
    # the identity itself, independently: 0 / 1 / -inf / +inf / INT_MIN / all ones ...
    if dt in FLOATS:
        want_init = {"sum": 0.0, "prod": 1.0, "max": -np.inf, "min": np.inf}[kind]
    elif dt == "i1":
        want_init = kind in ("prod", "min", "and")
    else:
        info = np.iinfo(NP[dt])
        want_init = {"sum": 0, "prod": 1, "max": int(info.min), "min": int(info.max),
                     "and": wrap(-1, dt), "or": 0}[kind]
    assert init.dtype == NP[dt] and init.item() == want_init
    expected = fold_expected(x, dims, init[()], kind_step(kind, dt), dt)
    assert_bits(out, expected, f"reduce {kind} {dt} {dims}")


def test_reduce_float_max_min_signed_zero_and_nan():
    x = np.array([[-0.0, 0.0, -0.0], [0.0, -0.0, -1.0], [-0.0, -0.0, -0.0],
                  [1.0, np.nan, 2.0]], np.float32)
    (mx,) = run_build(lambda e, v: [e.reduce_kind(v, (1,), "max")], x)
    (mn,) = run_build(lambda e, v: [e.reduce_kind(v, (1,), "min")], x)
    assert_bits(mx, np.array([0.0, 0.0, -0.0, np.nan], np.float32))
    assert_bits(mn, np.array([-0.0, -1.0, -0.0, np.nan], np.float32))


def test_reduce_f32_sum_is_a_sequential_fold_in_f32(rng):
    """Documented order: acc = init; for e in row-major order: acc = f32(acc + e)."""
    big = np.where(rng.random((4, 600)) < 0.02, 1e8, 1.0) * rng.uniform(0.5, 1.5, (4, 600))
    x = (big * rng.choice([-1, 1], (4, 600))).astype(np.float32)
    x[0] = 1.0
    x[0, 0] = 2.0 ** 24         # sequentially, every + 1.0 ties back to 2^24
    x3 = rng.standard_normal((3, 5, 40)).astype(np.float32) * np.float32(1e4)
    for arr, dims in ((x, (1,)), (x, (0, 1)), (x3, (0, 2)), (x3, (1,))):
        (out,) = run_build(lambda e, v: [e.reduce_kind(v, dims, "sum")], arr)
        outer, rows = _fold_rows(arr, dims)
        expected = np.empty(outer, np.float32)
        other = np.empty(outer, np.float32)
        for o in np.ndindex(*outer):
            acc = np.float32(0.0)
            for v in rows[o]:
                acc = np.float32(acc + v)
            expected[o] = acc
            other[o] = np.float32(math.fsum(float(v) for v in rows[o]))
        assert_bits(out, expected, f"f32 sum over {dims}")
        if dims == (1,) and arr is x:       # the fold order is observable on this data
            assert expected[0] == 2.0 ** 24 and other[0] == 2.0 ** 24 + 599


def test_reduce_sum_unsorted_dims_folds_row_major():
    """`dimensions` listed out of order still fold in row-major order of the input."""
    x = np.array([[[1.0, 2 ** -24]], [[-1.0, 0.0]]], np.float32)     # shape (2, 1, 2)
    (out,) = run_build(lambda e, v: [e.reduce_kind(v, (2, 0), "sum")], x)
    # row-major: ((0 + 1) + 2^-24) = 1; + -1 = 0; + 0 = 0
    assert_bits(out, np.array([0.0], np.float32))


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64", "i32", "i8"])
@pytest.mark.parametrize("shape,dims", [((4, 6), (1,)), ((2, 3, 4), (0, 2)), ((3, 0), (1,)),
                                        ((5,), (0,)),
                                        ((0, 3), (1,))], ids=str)
def test_reduce_custom_body_sum_of_squares(rng, dt, shape, dims):
    x = random_array(rng, dt, shape, edge_fraction=0.05, exp_range=(-3, 3))

    def body(e, acc, v):
        return e.op("tensor.add", acc, e.op("tensor.multiply", v, v))
    (out,) = run_build(lambda e, v: e.reduce([v], [e.constant(0, dt)], dims, body), x)
    add, mul = kind_step("sum", dt), kind_step("prod", dt)
    init = NP[dt].type(0)
    expected = fold_expected(x, dims, init, lambda a, v: add(a, mul(v, v)), dt)
    assert_bits(out, expected, f"sum of squares {dt}")


def test_reduce_two_operands_custom_body(rng):
    """(sum of x, max of y) in one reduce, with a body that is not a named kind."""
    x = random_array(rng, "f32", (3, 7), edge_fraction=0.1)
    y = random_array(rng, "i16", (3, 7))

    def body(e, a0, a1, v0, v1):
        return e.op("tensor.add", a0, v0), e.op("tensor.maximum", a1, v1)
    outs = run_build(lambda e, u, w: e.reduce(
        [u, w], [e.constant(0.0, "f32"), e.constant(-32768, "i16")], (1,), body), x, y)
    assert_bits(outs[0], fold_expected(x, (1,), np.float32(0), kind_step("sum", "f32"), "f32"))
    assert_bits(outs[1], y.max(axis=1))


@pytest.mark.parametrize("dt,kind,init", [("i8", "sum", 100), ("i32", "max", 5), ("u8", "min", 3),
                                          ("i16", "and", 0x0F0F), ("f32", "max", np.nan),
                                          ("f32", "max", 0.0), ("f32", "min", -0.0),
                                          ("f32", "sum", 1e8), ("bf16", "prod", -2.0),
                                          ("i1", "or", True), ("i1", "and", False)])
def test_reduce_named_body_with_any_init(rng, dt, kind, init):
    """A named-kind body with a non-identity init: the init is folded in like any element."""
    x = random_array(rng, dt, (3, 8), edge_fraction=0.1, **({"exp_range": (-1, 1)}
                                                            if dt in FLOATS else {}))
    if init == 0.0 and kind == "max":
        x[0] = -0.0
    if init == -0.0 and kind == "min":
        x[0] = 0.0
    init_arr = np.array(init).astype(NP[dt])
    (out,) = run_build(lambda e, v, i: e.reduce([v], [i], (1,), accy.tensor.build.kind_body(
        kind)), x, init_arr)
    assert_bits(out, fold_expected(x, (1,), init_arr[()], kind_step(kind, dt), dt),
                f"reduce {kind} {dt} from {init}")


def _twice_by_nested_reduce(e, v):
    """2 * v for a rank-0 v, through ops that are not elementwise (broadcast + reduce), so the
    interpreter cannot run the body on whole arrays."""
    pair = e.op("tensor.broadcast_in_dim", v, broadcast_dimensions=(),
                result_type=TensorType(v.type.dtype, (2,)))
    return e.reduce_kind(pair, (0,), "sum")


@pytest.mark.parametrize("dt", ["f32", "i16"])
def test_region_bodies_that_are_not_elementwise(rng, dt):
    x = random_array(rng, dt, (3, 5), edge_fraction=0.1)
    init = np.array(1).astype(NP[dt])
    (red,) = run_build(lambda e, v, i: e.reduce(
        [v], [i], (1,), lambda b, acc, el: b.op("tensor.add", acc, _twice_by_nested_reduce(
            b, el))), x, init)
    (scn,) = run_build(lambda e, v, i: [e.scan(
        v, i, 1, lambda b, acc, el: b.op("tensor.add", acc, _twice_by_nested_reduce(b, el)),
        exclusive=True)], x, init)
    add = kind_step("sum", dt)
    step = lambda a, v: add(a, add(add(NP[dt].type(0), v), v))     # noqa: E731
    assert_bits(red, fold_expected(x, (1,), init[()], step, dt), "reduce, nested body")
    assert_bits(scn, scan_expected(x, 1, init[()], step, True, False, dt), "scan, nested body")


@pytest.mark.parametrize("index_dt", ["i32", "i64"])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64", "i32", "i8", "u8", "i1"])
@pytest.mark.parametrize("kind", ["argmax", "argmin"])
@pytest.mark.parametrize("shape,dim", [((4, 9), 1), ((4, 9), 0), ((2, 3, 5), 2), ((7,), 0),
                                       ((3, 1), 1)], ids=str)
def test_argreduce(rng, kind, dt, index_dt, shape, dim):
    x = random_array(rng, dt, shape, edge_fraction=0.2)
    if x.size > 2:      # ties: copy some values
        flat = x.reshape(-1)
        flat[rng.integers(0, flat.size, 3)] = flat[rng.integers(0, flat.size)]
    vals, idx = run_build(lambda e, v: e.argreduce(v, dim, kind, index_dt), x)
    x64 = x.astype(np.float64) if dt in FLOATS else x.astype(np.int64)
    want_idx = (np.argmax if kind == "argmax" else np.argmin)(x64, axis=dim)
    assert_bits(idx, want_idx.astype(NP[index_dt]), f"{kind} index {dt}")
    assert_bits(vals, np.take_along_axis(x, np.expand_dims(want_idx, dim), dim).squeeze(dim),
                f"{kind} value {dt}")


def test_argmax_nan_and_ties_pick_first():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [1.0, np.nan, 5.0, np.nan], [-np.inf] * 4,
                  [0.0, -0.0, 0.0, -1.0]], np.float32)
    vals, idx = run_build(lambda e, v: e.argreduce(v, 1, "argmax"), x)
    assert idx.tolist() == [1, 1, 0, 0]
    assert_bits(vals, np.array([3.0, np.nan, -np.inf, 0.0], np.float32))
    vals, idx = run_build(lambda e, v: e.argreduce(v, 1, "argmin"), x)
    assert idx.tolist() == [0, 1, 0, 3]


# ---- scan --------------------------------------------------------------------------------------

def scan_expected(x, axis, init, step, exclusive, reverse, dtype):
    moved = np.moveaxis(x, axis, -1)
    out = np.empty(moved.shape, NP[dtype])
    n = moved.shape[-1]
    order = list(range(n))[::-1] if reverse else list(range(n))
    for o in np.ndindex(*moved.shape[:-1]):
        acc = init
        for j in order:
            if exclusive:
                out[o + (j,)] = acc
                acc = step(acc, moved[o + (j,)])
            else:
                acc = step(acc, moved[o + (j,)])
                out[o + (j,)] = acc
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64", "i32", "i8", "u8"])
@pytest.mark.parametrize("kind", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("shape,axis", [((3, 6), 1), ((3, 6), 0), ((2, 3, 4), 1), ((5,), 0),
                                        ((2, 0), 1), ((0, 3), 1)], ids=str)
def test_scan_kind(rng, kind, dt, reverse, exclusive, shape, axis):
    kw = {"exp_range": (-1, 1)} if dt in FLOATS else {}
    x = random_array(rng, dt, shape, edge_fraction=0.1, **kw)
    init = random_array(rng, dt, (), exp_range=(-1, 1)) if dt in FLOATS else \
        np.array(rng.integers(-3, 4) if dt != "u8" else rng.integers(0, 4), NP[dt])
    (out,) = run_build(lambda e, v, i: [e.scan(v, i, axis, kind, exclusive=exclusive,
                                               reverse=reverse)], x, init)
    expected = scan_expected(x, axis, init[()], kind_step(kind, dt), exclusive, reverse, dt)
    assert_bits(out, expected, f"scan {kind} {dt}")


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dt", ["f32", "f64"])
def test_scan_logcumsumexp_body(rng, dt, reverse):
    x = (rng.standard_normal((3, 9)) * 5).astype(NP[dt])

    def body(e, acc, v):        # max(a, v) + log1p(exp(-|a - v|))
        m = e.op("tensor.maximum", acc, v)
        d = e.op("tensor.negate", e.op("tensor.abs", e.op("tensor.subtract", acc, v)))
        return e.op("tensor.add", m, e.op("tensor.log1p", e.op("tensor.exp", d)))
    (out,) = run_build(lambda e, v: [e.scan(v, e.constant(-np.inf, dt), 1, body,
                                            reverse=reverse)], x)
    x64 = x.astype(np.float64)
    if reverse:
        expected = np.flip(np.logaddexp.accumulate(np.flip(x64, 1), axis=1), 1)
    else:
        expected = np.logaddexp.accumulate(x64, axis=1)
    eps = np.finfo(NP[dt]).eps
    assert out.dtype == NP[dt]
    assert np.all(np.abs(out - expected) <= 4 * 9 * eps * np.maximum(1, np.abs(expected)))


# ---- iterate, call -----------------------------------------------------------------------------

def _counting_loop(e, n, x):
    """i = 0; acc = 0; while i < n: i += 1; acc += x   (n, x from outside the regions)."""
    i0 = e.constant(0, "i32")
    acc0 = e.full(0.0, "f32", x.type.shape)

    def cond(e2, i, acc):
        return e2.compare(i, n, "LT")

    def body(e2, i, acc):
        return [e2.op("tensor.add", i, e2.constant(1, "i32")), e2.op("tensor.add", acc, x)]
    return list(e.iterate([i0, acc0], cond, body))


@pytest.mark.parametrize("n", [0, -3, 1, 7])
def test_iterate_data_dependent_trip_count(rng, n):
    x = random_array(rng, "f32", (3,), edge_fraction=0.2)
    i, acc = run_build(_counting_loop, np.array(n, np.int32), x)
    assert i.dtype == np.int32 and i.shape == () and int(i) == max(n, 0)
    expected = np.zeros(3, np.float32)
    with np.errstate(all="ignore"):
        for _ in range(max(n, 0)):
            expected = (expected + x).astype(np.float32)
    assert_bits(acc, expected)


def test_iterate_max_iterations():
    m = module_of([TensorType("i32", ()), TensorType("f32", (2,))], _counting_loop)
    x = np.ones(2, np.float32)
    i, acc = accy.reference.run(m, np.array(5, np.int32), x, max_iterations=5)
    assert int(i) == 5 and acc.tolist() == [5.0, 5.0]
    with pytest.raises(UnsupportedError, match="max_iterations"):
        accy.reference.run(m, np.array(5, np.int32), x, max_iterations=4)
    with pytest.raises(UnsupportedError):
        accy.reference.run(m, np.array(1, np.int32), x, max_iterations=0)
    i, _ = accy.reference.run(m, np.array(0, np.int32), x, max_iterations=0)
    assert int(i) == 0


def test_builtin_call(rng):
    t = TensorType("f32", (2, 3))
    m = module_of([t, t], lambda e, a, b: [e.op("tensor.multiply", a, b),
                                           e.op("tensor.subtract", a, b)], name="helper")

    def main(e, a, b):
        c1 = e.builder.create("builtin.call", [a, b], result_types=[t, t],
                              attributes={"callee": SymbolRefAttr("helper")})
        p, d = c1.results
        c2 = e.builder.create("builtin.call", [d, p], result_types=[t, t],
                              attributes={"callee": SymbolRefAttr("helper")})
        return [c2.results[0], c2.results[1]]
    module_of([t, t], main, module=m)
    a, b = (random_array(rng, "f32", (2, 3)) for _ in range(2))
    out = accy.reference.run(m, a, b)
    with np.errstate(all="ignore"):
        p, d = a * b, a - b
        assert_bits(out[0], d * p)
        assert_bits(out[1], d - p)
    helper = accy.reference.run(m, a, b, function="helper")
    with np.errstate(all="ignore"):
        assert_bits(helper[0], a * b)


def test_recursive_call_is_refused():
    t = TensorType("f32", (2,))

    def rec(e, a):
        return [e.builder.create("builtin.call", [a], result_types=[t],
                                 attributes={"callee": SymbolRefAttr("main")}).results[0]]
    with pytest.raises(UnsupportedError, match="deeper"):
        accy.reference.run(module_of([t], rec), np.zeros(2, np.float32))


def test_unknown_op_is_refused():
    t = TensorType("f32", (2,))
    m = module_of([t], lambda e, a: [e.builder.create("test.add", [a, a]).results[0]])
    with pytest.raises(UnsupportedError, match="test.add"):
        accy.reference.run(m, np.zeros(2, np.float32))


@pytest.mark.parametrize("mode,shape,ishape", [("take", (0,), (2,)),
                                               ("along_axis", (2, 0), (2, 3))])
def test_gather_from_an_empty_axis(mode, shape, ishape):
    with pytest.raises(AccyError):
        run_op("tensor.gather", np.zeros(shape, np.float32), np.zeros(ishape, np.int32),
               axis=len(shape) - 1, mode=mode)


# ---- attention ---------------------------------------------------------------------------------

def _attention_expected(q, k, v, mask, scale, causal):
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    if mask is not None:
        s = s + mask.astype(np.float64)
    if causal:
        sq, sk = s.shape[2:]
        hidden = np.arange(sk)[None, :] > np.arange(sq)[:, None]
        s = np.where(hidden, -np.inf, s)
    with np.errstate(all="ignore"):
        m = s.max(axis=-1, keepdims=True)
        p = np.exp(s - m)
        p = p / p.sum(axis=-1, keepdims=True)
        return np.einsum("bhqk,bhkd->bhqd", p, v)


def _attention(q, k, v, mask=None, scale=0.5, causal=False):
    arrays = [q, k, v] + ([mask] if mask is not None else [])
    (out,) = run_build(lambda e, *xs: [e.op("tensor.attention", *xs, scale=FloatAttr(scale),
                                            causal=causal)], *arrays)
    return out


@pytest.mark.parametrize("mask_shape", [None, "heads-broadcast", "full", "row"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("sq,sk", [(4, 4), (3, 5), (5, 2), (1, 1)])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64"])
def test_attention(rng, dt, sq, sk, causal, mask_shape):
    b, h, d, dv = 2, 3, 4, 5
    q = rng.standard_normal((b, h, sq, d)).astype(NP[dt])
    k = rng.standard_normal((b, h, sk, d)).astype(NP[dt])
    v = rng.standard_normal((b, h, sk, dv)).astype(NP[dt])
    mshape = {None: None, "heads-broadcast": (b, 1, sq, sk), "full": (b, h, sq, sk),
              "row": (1, 1, 1, sk)}[mask_shape]
    mask = None if mshape is None else rng.standard_normal(mshape).astype(NP[dt])
    out = _attention(q, k, v, mask, 0.5, causal)
    assert out.dtype == NP[dt] and out.shape == (b, h, sq, dv)
    expected = _attention_expected(q, k, v, mask, 0.5, causal)
    tol = {"f64": 1e-12, "f32": 2e-6, "f16": 4e-3, "bf16": 3e-2}[dt]
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=tol, atol=tol)


def test_attention_all_masked_row_is_nan():
    b, h, sq, sk, d = 1, 2, 3, 4, 2
    rng = np.random.default_rng()
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in
               ((b, h, sq, d), (b, h, sk, d), (b, h, sk, d)))
    mask = np.zeros((1, 1, sq, sk), np.float32)
    mask[0, 0, 1, :] = -np.inf
    out = _attention(q, k, v, mask)
    assert np.isnan(out[:, :, 1]).all()
    assert np.isfinite(out[:, :, [0, 2]]).all()


def test_attention_causal_first_row_is_v0():
    rng = np.random.default_rng()
    q, k, v = (rng.standard_normal((1, 1, 3, 2)).astype(np.float32) for _ in range(3))
    out = _attention(q, k, v, causal=True)
    assert_bits(out[0, 0, 0], v[0, 0, 0])       # softmax over one key is exactly 1


# ---- refusals and argument checking ------------------------------------------------------------

PTX = """.version 7.0
.target sm_80
.address_size 64
.visible .entry my_kernel(.param .u64 a, .param .u64 b)
{
    ret;
}
"""


def test_kernel_call_is_refused_naming_the_kernel():
    t = TensorType("f32", (4,))
    m = module_of([t], lambda e, x: list(e.ops("tensor.kernel_call", [x], [t], {
        "ptx": PTX, "kernel": "my_kernel", "grid": (1, 1, 1), "block": (32, 1, 1)})))
    with pytest.raises(UnsupportedError, match="my_kernel"):
        accy.reference.run(m, np.zeros(4, np.float32))


def _add_module():
    t = TensorType("f32", (2, 3))
    return module_of([t, t], lambda e, a, b: [e.op("tensor.add", a, b)])


@pytest.mark.parametrize("args,error", [
    ((np.zeros((2, 3), np.float32),), AccyTypeError),
    ((np.zeros((2, 3), np.float32),) * 3, AccyTypeError),
    ((), AccyTypeError),
    ((np.zeros((2, 3), np.float64), np.zeros((2, 3), np.float32)), AccyTypeError),
    ((np.zeros((2, 3), np.float32), np.zeros((2, 3), np.int32)), AccyTypeError),
    ((np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32)), ShapeError),
    ((np.zeros((2, 3), np.float32), np.zeros((6,), np.float32)), ShapeError),
    ((np.zeros((2, 3), np.float32), np.float32(1)), ShapeError),
    ((np.zeros((2, 3), np.float32), None), AccyTypeError),
    ((np.zeros((2, 3), np.float32), "abc"), AccyTypeError),
    ((np.zeros((2, 3), np.float32), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), AccyTypeError),
], ids=["too-few", "too-many", "none", "dtype-f64", "dtype-i32", "shape-swapped", "shape-flat",
        "scalar", "None", "str", "list-f64"])
def test_argument_checking(args, error):
    m = _add_module()
    with pytest.raises(error) as info:
        accy.reference.run(m, *args)
    assert isinstance(info.value, AccyError)


def test_argument_checking_ragged_list():
    m = _add_module()
    with pytest.raises(AccyError):
        accy.reference.run(m, np.zeros((2, 3), np.float32), [[1.0, 2.0, 3.0], [4.0]])


def test_unknown_function_and_bf16_argument():
    m = _add_module()
    with pytest.raises(UnsupportedError, match="nope"):
        accy.reference.run(m, function="nope")
    bf = TensorType("bf16", (2,))
    m = module_of([bf], lambda e, a: [e.op("tensor.add", a, a)])
    with pytest.raises(AccyTypeError):
        accy.reference.run(m, np.ones(2, np.float32))
    (out,) = accy.reference.run(m, np.ones(2, NP["bf16"]))
    assert_bits(out, np.full(2, 2.0, NP["bf16"]))


def test_outputs_are_fresh_arrays():
    """Results are numpy arrays owned by the caller (not views of the inputs or constants)."""
    t = TensorType("f32", (3,))
    m = module_of([t], lambda e, a: [a, e.constant(np.arange(3.0), "f32")])
    x = np.ones(3, np.float32)
    a, c = accy.reference.run(m, x)
    assert isinstance(a, np.ndarray) and isinstance(c, np.ndarray)
    a[0] = 7.0
    c[0] = 7.0
    assert x[0] == 1.0
    (_, c2) = accy.reference.run(m, x)
    assert c2[0] == 0.0


# ---- fast paths agree with the sequential fold they stand for ------------------------------------

@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "f64", "i32", "u8"])
def test_fast_paths_match_the_sequential_body_fold(rng, dt, monkeypatch):
    """Named-kind reduces and scans (and argmax/argmin) skip the body; with the kind hidden the
    interpreter folds the body step by step. Both must give the same bits."""
    t = TensorType(dt, (4, 6, 5))
    x = random_array(rng, dt, t.shape)
    if dt in FLOATS:
        x.flat[[1, 7, 20]] = np.nan
        x.flat[[2, 3]] = [-0.0, 0.0]

    def build(e, a):
        outs = []
        for kind in ("sum", "prod", "max", "min"):
            init = e.constant(accy.tensor.identity(kind, dt), dt)
            outs += [e.reduce_kind(a, (0, 2), kind),
                     e.scan(a, init, 1, kind, exclusive=True, reverse=True)]
        return outs + list(e.argreduce(a, 2, "argmax")) + list(e.argreduce(a, 1, "argmin"))
    m = module_of([t], build)
    fast = accy.reference.run(m, x)
    monkeypatch.setattr(accy.reference, "reduce_kind", lambda op: None)
    slow = accy.reference.run(m, x)
    for a, b in zip(fast, slow):
        assert_bits(a, b)


def test_a_body_may_yield_a_constant():
    t = TensorType("f32", (2, 3))
    m = module_of([t], lambda e, a: [e.reduce([a], [e.constant(0.0, "f32")], (1,),
                                             lambda e2, acc, x: e2.constant(7.0, "f32"))[0]])
    (out,) = accy.reference.run(m, np.ones((2, 3), np.float32))
    assert out.tolist() == [7.0, 7.0]


def test_arrays_numpy_cannot_hold_are_refused_clearly():
    t = TensorType("f32", (2**40, 2**21))        # 2^61 elements, 2^63 bytes
    m = module_of([], lambda e: [e.op("tensor.iota", iota_dimension=0, result_type=t)])
    with pytest.raises(UnsupportedError, match="larger than numpy can hold"):
        accy.reference.run(m)
