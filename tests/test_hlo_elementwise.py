"""The elementwise ops StableHLO has beyond numpy's core (docs/tensor-ops.md): cbrt, tan,
atan2, round_nearest_afz, popcnt, count_leading_zeros and bitcast_convert. For each: the
reference against formulas of its own (Python's math and Fractions, numpy f64, bit counts on
Python ints, numpy views), then the compiled kernel on the emulator against the reference (no
host fallback; transcendentals within ULP_BOUND, the rest bit for bit) with every PTX text
assembled by ptxas. Inputs are fresh random values with the dtype's edges mixed in."""
import math
from fractions import Fraction

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.ir import parse
from accy.lowering.ptx import ULP_BOUND

from tensor_helpers import (BITS, NP, assert_bits, assert_close_ulp, edges, elementwise,
                            random_array, round_f64, run_op, unsigned_value)

HALF_AND_F32 = ("f32", "f16", "bf16")
INTS = ("i64", "i32", "i16", "i8", "u8")


def module(name, in_dtypes, out_dtype, n):
    """@main applying `tensor.name` to operands of `in_dtypes` (shape (n,)), giving `out_dtype`."""
    ins = [f"tensor<{n}x{d}>" for d in in_dtypes]
    out = f"tensor<{n}x{out_dtype}>"
    args = ", ".join(f"%{i}: {t}" for i, t in enumerate(ins))
    operands = ", ".join(f"%{i}" for i in range(len(ins)))
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = ({', '.join(ins)}) -> {out}, sym_name = "main"}}> ({{
  ^bb0({args}):
    %r = tensor.{name} {operands} : {out}
    builtin.return %r
  }})
}})""")


def compiled(m, ptxas):
    exe = accy.compile(m)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    return exe


def emulated(exe, *arrays):
    (got,), (want,) = exe.run(*arrays, device="emulator"), exe.run(*arrays, device="reference")
    return got, want


def ulp_distance(a, b):
    """|a - b| in ulps of their dtype, as ordered integers (NaN vs NaN: 0; -0 vs +0: 1)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = (x.view(bits).astype(np.int64) for x in (a, b))
    low = np.iinfo(bits).min
    ia, ib = (np.where(i < 0, low - i, i) for i in (ia, ib))
    d = np.abs(ia - ib)
    both_nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(both_nan, 0, d)


def wide_floats(rng, dtype, n):
    """Magnitudes over most of the dtype's range, both signs, edges mixed in."""
    hi = {"f16": 15, "bf16": 120, "f32": 120, "f64": 300}[dtype]
    with np.errstate(over="ignore"):
        x = (rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-hi, hi, n))).astype(NP[dtype])
    x[:len(edges(dtype))] = edges(dtype)
    return x


# ---- the reference ----------------------------------------------------------------------------

def _cbrt(x):
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    a = Fraction(abs(x))
    y = Fraction(float(a) ** (1 / 3))
    y -= (y ** 3 - a) / (3 * y * y)                 # one exact Newton step: well within an ulp
    return math.copysign(float(y), x)


FORMULAS = {"cbrt": _cbrt,
            "tan": lambda x: math.nan if math.isinf(x) or math.isnan(x) else math.tan(x)}


@pytest.mark.parametrize("dtype", ("f64",) + HALF_AND_F32)
@pytest.mark.parametrize("name", ["cbrt", "tan"])
def test_reference_unary_transcendentals(name, dtype, rng):
    x = wide_floats(rng, dtype, 400)
    got = run_op(f"tensor.{name}", x)
    want = elementwise(FORMULAS[name], x, dtype="f64")
    assert_close_ulp(got, want, dtype, 1 if dtype != "f64" else 4, f"{name} {dtype}")
    assert_bits(got[x == 0], x[x == 0], "zeros keep their sign")


@pytest.mark.parametrize("dtype", ("f64",) + HALF_AND_F32)
def test_reference_atan2(dtype, rng):
    y, x = wide_floats(rng, dtype, 300), wide_floats(rng, dtype, 300)
    e = edges(dtype)
    y = np.concatenate([y, np.repeat(e, len(e))])
    x = np.concatenate([x, np.tile(e, len(e))])
    got = run_op("tensor.atan2", y, x)
    want = elementwise(math.atan2, y, x, dtype="f64")       # C's atan2, its special cases
    assert_close_ulp(got, want, dtype, 1, f"atan2 {dtype}")
    assert np.all(np.signbit(got[want == 0]) == np.signbit(want[want == 0]))


def _round_afz(x):
    if math.isnan(x) or math.isinf(x):
        return x
    a = abs(Fraction(x))
    r = math.floor(a) + (1 if a - math.floor(a) >= Fraction(1, 2) else 0)
    return math.copysign(float(r), x)


@pytest.mark.parametrize("dtype", ("f64",) + HALF_AND_F32)
def test_reference_round_nearest_afz(dtype, rng):
    x = wide_floats(rng, dtype, 200)
    halves = (rng.integers(-40, 40, 200) + rng.choice([0.5, 0.25, 0.75], 200)).astype(NP[dtype])
    x = np.concatenate([x, halves, np.array([-0.4, 0.4, -2.5, 2.5, 0.5], NP[dtype])])
    got = run_op("tensor.round_nearest_afz", x)
    assert_bits(got, round_f64(elementwise(_round_afz, x, dtype="f64"), dtype).astype(NP[dtype]))


@pytest.mark.parametrize("dtype", INTS)
def test_reference_popcnt_and_count_leading_zeros(dtype, rng):
    x = random_array(rng, dtype, (300,))
    bits = BITS[dtype]

    def popcnt(v):
        return bin(unsigned_value(v, dtype)).count("1")

    def clz(v):
        return bits - unsigned_value(v, dtype).bit_length()
    assert_bits(run_op("tensor.popcnt", x), elementwise(popcnt, x, dtype=dtype))
    assert_bits(run_op("tensor.count_leading_zeros", x), elementwise(clz, x, dtype=dtype))


SAME_WIDTH = [("f32", "i32"), ("i32", "f32"), ("f64", "i64"), ("i64", "f64"), ("f16", "i16"),
              ("i16", "bf16"), ("bf16", "f16"), ("i8", "u8"), ("u8", "i8"), ("i1", "i1"),
              ("f32", "f32")]


@pytest.mark.parametrize("src,dst", SAME_WIDTH, ids=[f"{a}-{b}" for a, b in SAME_WIDTH])
def test_reference_bitcast_convert(src, dst, rng):
    x = random_array(rng, src, (3, 40))
    got = run_op("tensor.bitcast_convert", x, result_type=accy.ir.TensorType(dst, (3, 40)))
    with np.errstate(invalid="ignore"):         # (NaN bit patterns compared as floats)
        assert_bits(got, x.view(NP[dst]) if dst != "i1" else x)


# ---- compiled, on the emulator ----------------------------------------------------------------

def assert_within_bound(name, got, want):
    d = ulp_distance(got, want)
    assert d.max() <= ULP_BOUND[name], f"{name}: {int((d > ULP_BOUND[name]).sum())} beyond"
    assert (d > 0).sum() <= 2, f"{name}: {(d > 0).sum()} of {d.size} differ from the reference"


@pytest.mark.parametrize("dtype", HALF_AND_F32)
@pytest.mark.parametrize("name", ["cbrt", "tan"])
def test_emulated_unary_transcendentals(name, dtype, rng, ptxas):
    n = 4096
    x = wide_floats(rng, dtype, n)
    if name == "tan":       # next to multiples of pi/2, the hard part of the reduction
        k = np.round(np.exp2(rng.uniform(0, 40, n // 4)))
        with np.errstate(over="ignore"):
            near = np.nextafter((k * np.pi / 2).astype(NP[dtype]), np.array(np.inf, NP[dtype]))
        x[n // 2:n // 2 + n // 4] = near
    got, want = emulated(compiled(module(name, [dtype], dtype, n), ptxas), x)
    assert_within_bound(name, got, want)


@pytest.mark.parametrize("dtype", HALF_AND_F32)
def test_emulated_atan2(dtype, rng, ptxas):
    e = edges(dtype)
    y = np.concatenate([wide_floats(rng, dtype, 3000), np.repeat(e, len(e))])
    x = np.concatenate([wide_floats(rng, dtype, 3000), np.tile(e, len(e))])
    got, want = emulated(compiled(module("atan2", [dtype, dtype], dtype, len(x)), ptxas), y, x)
    assert_within_bound("atan2", got, want)


@pytest.mark.parametrize("dtype", ("f64",) + HALF_AND_F32)
def test_emulated_round_nearest_afz(dtype, rng, ptxas):
    n = 2000
    x = np.concatenate([wide_floats(rng, dtype, n // 2),
                        (rng.integers(-300, 300, n // 2) + rng.choice([0.5, 0.25], n // 2))
                        .astype(NP[dtype])])
    got, want = emulated(compiled(module("round_nearest_afz", [dtype], dtype, n), ptxas), x)
    assert_bits(got, want)


def widened(name, src, dst, n):
    """@main: `tensor.name` of a tensor<n x src> into dst, then converted to i64."""
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = (tensor<{n}x{src}>) -> tensor<{n}xi64>, sym_name = "main"}}> ({{
  ^bb0(%0: tensor<{n}x{src}>):
    %1 = tensor.{name} %0 : tensor<{n}x{dst}>
    %2 = tensor.convert %1 : tensor<{n}xi64>
    builtin.return %2
  }})
}})""")


@pytest.mark.parametrize("dtype", INTS)
def test_emulated_bit_counts(dtype, rng, ptxas):
    """popcnt and clz, and each widened to i64 (which reads a small int's whole register)."""
    x = random_array(rng, dtype, (1000,))
    for name in ("popcnt", "count_leading_zeros"):
        got, want = emulated(compiled(module(name, [dtype], dtype, 1000), ptxas), x)
        assert_bits(got, want, name)
        got, want = emulated(compiled(widened(name, dtype, dtype, 1000), ptxas), x)
        assert_bits(got, want, f"{name} widened")


@pytest.mark.parametrize("src,dst", SAME_WIDTH, ids=[f"{a}-{b}" for a, b in SAME_WIDTH])
def test_emulated_bitcast_convert(src, dst, rng, ptxas):
    x = random_array(rng, src, (1000,))
    got, want = emulated(compiled(module("bitcast_convert", [src], dst, 1000), ptxas), x)
    assert_bits(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("src,dst", [("f16", "i16"), ("bf16", "i16"), ("u8", "i8"),
                                     ("i8", "u8")])
def test_bitcast_into_a_small_int_then_arithmetic(src, dst, rng, ptxas):
    """The result register is re-extended as a small int is kept: a later widening sees it."""
    x = random_array(rng, src, (600,))
    got, want = emulated(compiled(widened("bitcast_convert", src, dst, 600), ptxas), x)
    assert_bits(got, want)


def test_frontend_cbrt_tan_arctan2(rng, ptxas):
    x = rng.standard_normal((7, 9)).astype(np.float32) * 4
    y = rng.standard_normal((9,)).astype(np.float32)
    fn = lambda x, y: ops.cbrt(x) * ops.tan(y) + ops.arctan2(x, y)     # noqa: E731
    exe = accy.compile(fn, x, y)
    assert not exe.fallbacks
    ptxas(exe.ptx)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = np.cbrt(x64) * np.tan(y64) + np.arctan2(x64, y64)
    np.testing.assert_allclose(exe.run(x, y, device="emulator"), want, rtol=1e-5, atol=1e-5)
