"""accy.stablehlo: each StableHLO op imported from MLIR's generic form, run on the reference and
(compiled, no host fallbacks) on the emulator, against numpy; every refused form's error."""
import math
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from child_process import run_bounded
from hypothesis import HealthCheck, given, settings, strategies as st

import accy
from accy import stablehlo
from accy.errors import AccyError, ParseError, UnsupportedError
from accy.reference import run

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "i8": np.int8,
          "i16": np.int16, "ui8": np.uint8, "i1": np.bool_, "f16": np.float16}


def _type(t):
    shape, dtype = t
    return f"tensor<{''.join(f'{d}x' for d in shape)}{dtype}>"


def module(body, args, results, rets=None):
    """A generic-form module whose public @main runs `body` (lines using %a0, %a1, ... and
    defining %r0, %r1, ..., or the values `rets` names) on arguments of types `args` ((shape,
    dtype) pairs)."""
    ins = ", ".join(_type(t) for t in args)
    outs = ", ".join(_type(t) for t in results)
    params = ", ".join(f"%a{i}: {_type(t)}" for i, t in enumerate(args))
    rets = ", ".join(rets or (f"%r{i}" for i in range(len(results))))
    return (f'"builtin.module"() ({{\n'
            f'  "func.func"() <{{function_type = ({ins}) -> ({outs}), sym_name = "main", '
            f'sym_visibility = "public"}}> ({{\n'
            f'  ^bb0({params}):\n'
            + "".join(f"    {line}\n" for line in body.strip().splitlines()) +
            f'    "func.return"({rets}) : ({outs}) -> ()\n'
            f'  }}) : () -> ()\n'
            f'}}) : () -> ()\n')


def draw(rng, t, low=-3.0, high=3.0):
    shape, dtype = t
    np_dtype = DTYPES[dtype]
    if dtype == "i1":
        return rng.random(shape) < 0.5
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape,
                            endpoint=True).astype(np_dtype)
    return rng.uniform(low, high, shape).astype(np_dtype)


def check(text, arrays, expected, rtol=1e-6, emulator=True):
    """The imported module gives `expected` on the reference and (compiled with no host
    fallbacks) on the emulator."""
    m = stablehlo.load(text)
    got = run(m, *arrays)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    for g, w in zip(got, expected, strict=True):
        _close(g, w, rtol)
    if emulator:
        exe = accy.compile(m)
        assert not exe.fallbacks, exe.fallbacks
        out = exe.run(*arrays, device="emulator")
        out = list(out) if isinstance(out, (tuple, list)) else [out]
        for g, w in zip(out, expected, strict=True):
            _close(g, w, rtol)
    return m


def _close(got, want, rtol):
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                   atol=rtol, equal_nan=True)


F = ((3, 4), "f32")

UNARY = {   # StableHLO name -> (numpy in f64, input range)
    "stablehlo.exponential": (np.exp, (-3, 3)), "stablehlo.log": (np.log, (0.1, 5)),
    "stablehlo.log_plus_one": (np.log1p, (-0.5, 3)), "stablehlo.exponential_minus_one":
        (np.expm1, (-2, 2)), "stablehlo.sqrt": (np.sqrt, (0, 5)),
    "stablehlo.rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 5)), "stablehlo.tanh": (np.tanh, (-3, 3)),
    "stablehlo.logistic": (lambda x: 1 / (1 + np.exp(-x)), (-5, 5)),
    "stablehlo.sine": (np.sin, (-3, 3)), "stablehlo.cosine": (np.cos, (-3, 3)),
    "stablehlo.tan": (np.tan, (-1.2, 1.2)), "stablehlo.cbrt": (np.cbrt, (-8, 8)),
    "stablehlo.floor": (np.floor, (-3, 3)), "stablehlo.ceil": (np.ceil, (-3, 3)),
    "stablehlo.round_nearest_even": (np.rint, (-3, 3)),
    "stablehlo.round_nearest_afz": (lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), (-3, 3)),
    "stablehlo.negate": (np.negative, (-3, 3)), "stablehlo.abs": (np.abs, (-3, 3)),
    "stablehlo.sign": (np.sign, (-3, 3)),
    "chlo.erf": (np.vectorize(math.erf), (-2, 2)), "chlo.erfc": (np.vectorize(math.erfc), (-2, 2)),
    "chlo.sinh": (np.sinh, (-2, 2)), "chlo.cosh": (np.cosh, (-2, 2)),
    "chlo.atan": (np.arctan, (-3, 3)), "chlo.asin": (np.arcsin, (-0.9, 0.9)),
    "chlo.acos": (np.arccos, (-0.9, 0.9)), "chlo.atanh": (np.arctanh, (-0.9, 0.9)),
    "chlo.tan": (np.tan, (-1.2, 1.2)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float_unary(name):
    fn, (low, high) = UNARY[name]
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    x = draw(rng, F, low, high)
    text = module(f'%r0 = "{name}"(%a0) : ({_type(F)}) -> {_type(F)}', [F], [F])
    check(text, [x], [fn(x.astype(np.float64)).astype(np.float32)], rtol=2e-6)


BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "atan2": np.arctan2,
    "remainder": np.fmod, "power": None,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_float_binary(name):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    x, y = draw(rng, F), draw(rng, F)
    if name == "power":
        x, fn = np.abs(x) + 0.5, np.power
    else:
        fn = BINARY[name]
    text = module(f'%r0 = "stablehlo.{name}"(%a0, %a1) : ({_type(F)}, {_type(F)}) -> '
                  f'{_type(F)}', [F, F], [F])
    want = fn(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    check(text, [x, y], [want], rtol=2e-6)


I = ((5,), "i32")


@pytest.mark.parametrize("name, fn", [
    ("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor),
    ("shift_left", lambda x, s: np.left_shift(x, s)),
    ("shift_right_arithmetic", lambda x, s: np.right_shift(x, s)),
    ("shift_right_logical", lambda x, s: (x.view(np.uint32) >> s.astype(np.uint32))
     .view(np.int32)),
])
def test_integer_binary(name, fn):
    rng = np.random.default_rng(7)
    x = rng.integers(-1000, 1000, 5, dtype=np.int32)
    y = rng.integers(0, 31, 5, dtype=np.int32) if "shift" in name else \
        rng.integers(-1000, 1000, 5, dtype=np.int32)
    text = module(f'%r0 = "stablehlo.{name}"(%a0, %a1) : ({_type(I)}, {_type(I)}) -> '
                  f'{_type(I)}', [I, I], [I])
    check(text, [x, y], [fn(x, y)])


def test_integer_unary_and_bool_ops():
    rng = np.random.default_rng(8)
    x = rng.integers(-2**31, 2**31 - 1, 5, dtype=np.int32)
    p, q = rng.random(5) < 0.5, rng.random(5) < 0.5
    B = ((5,), "i1")
    text = module(f'''
%r0 = "stablehlo.popcnt"(%a0) : ({_type(I)}) -> {_type(I)}
%r1 = "stablehlo.count_leading_zeros"(%a0) : ({_type(I)}) -> {_type(I)}
%r2 = "stablehlo.not"(%a0) : ({_type(I)}) -> {_type(I)}
%r3 = "stablehlo.not"(%a1) : ({_type(B)}) -> {_type(B)}
%r4 = "stablehlo.and"(%a1, %a2) : ({_type(B)}, {_type(B)}) -> {_type(B)}
''', [I, B, B], [I, I, I, B, B])
    bits = x.view(np.uint32)
    popcnt = np.array([bin(int(v)).count("1") for v in bits], np.int32)
    clz = np.array([32 - int(v).bit_length() for v in bits], np.int32)
    check(text, [x, p, q], [popcnt, clz, ~x, ~p, p & q])


def test_compare_select_clamp_is_finite():
    rng = np.random.default_rng(9)
    x, y = draw(rng, F), draw(rng, F)
    x[0, 0] = np.nan
    x[1, 1] = np.inf
    B = (F[0], "i1")
    S = ((), "f32")
    text = module(f'''
%r0 = "stablehlo.compare"(%a0, %a1) <{{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}}> : ({_type(F)}, {_type(F)}) -> {_type(B)}
%r1 = "stablehlo.select"(%r0, %a0, %a1) : ({_type(B)}, {_type(F)}, {_type(F)}) -> {_type(F)}
%r2 = "stablehlo.clamp"(%a2, %a1, %a3) : ({_type(S)}, {_type(F)}, {_type(S)}) -> {_type(F)}
%r3 = "stablehlo.is_finite"(%a0) : ({_type(F)}) -> {_type(B)}
''', [F, F, S, S], [B, F, F, B])
    lo, hi = np.float32(-1.0), np.float32(1.5)
    less = x < y
    check(text, [x, y, lo, hi], [less, np.where(less, x, y), np.clip(y, lo, hi),
                                 np.isfinite(x)])


def test_total_order_compare():
    """TOTALORDER: -NaN < -inf < -1 < -0 < +0 < 1 < inf < NaN, by the bits."""
    vals = np.array([-np.nan, -np.inf, -1.0, -0.0, 0.0, 1.0, np.inf, np.nan], np.float32)
    vals[0] = -np.abs(vals[0])                      # a NaN with the sign bit set
    vals.view(np.uint32)[0] |= np.uint32(0x80000000)
    x = np.repeat(vals, 8)
    y = np.tile(vals, 8)
    T = ((64,), "f32")
    B = ((64,), "i1")
    text = module(f'%r0 = "stablehlo.compare"(%a0, %a1) <{{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}}> : ({_type(T)}, {_type(T)}) -> {_type(B)}',
                  [T, T], [B])
    rank = np.repeat(np.arange(8), 8), np.tile(np.arange(8), 8)
    check(text, [x, y], [rank[0] < rank[1]])


def test_convert_bitcast_iota():
    rng = np.random.default_rng(10)
    x = draw(rng, F)
    U = (F[0], "ui8")
    Ii = (F[0], "i32")
    text = module(f'''
%r0 = "stablehlo.convert"(%a0) : ({_type(F)}) -> {_type(Ii)}
%r1 = "stablehlo.bitcast_convert"(%a0) : ({_type(F)}) -> {_type(Ii)}
%r2 = "stablehlo.iota"() <{{iota_dimension = 1 : i64}}> : () -> {_type(U)}
''', [F], [Ii, Ii, U])
    iota = np.broadcast_to(np.arange(4, dtype=np.uint8), (3, 4))
    check(text, [x], [np.trunc(x).astype(np.int32), x.view(np.int32), iota])


def test_shape_ops():
    rng = np.random.default_rng(11)
    x = draw(rng, F)
    y = draw(rng, ((3, 2), "f32"))
    v = np.float32(rng.uniform(-1, 1))
    text = module(f'''
%r0 = "stablehlo.broadcast_in_dim"(%a0) <{{broadcast_dimensions = array<i64: 0, 2>}}> : ({_type(F)}) -> tensor<3x2x4xf32>
%r1 = "stablehlo.reshape"(%a0) : ({_type(F)}) -> tensor<2x6xf32>
%r2 = "stablehlo.transpose"(%a0) <{{permutation = array<i64: 1, 0>}}> : ({_type(F)}) -> tensor<4x3xf32>
%r3 = "stablehlo.slice"(%a0) <{{limit_indices = array<i64: 3, 4>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 3>}}> : ({_type(F)}) -> tensor<2x2xf32>
%r4 = "stablehlo.concatenate"(%a0, %a1) <{{dimension = 1 : i64}}> : ({_type(F)}, tensor<3x2xf32>) -> tensor<3x6xf32>
%r5 = "stablehlo.pad"(%a0, %a2) <{{edge_padding_high = array<i64: 2, -1>, edge_padding_low = array<i64: -1, 1>, interior_padding = array<i64: 1, 0>}}> : ({_type(F)}, tensor<f32>) -> tensor<6x4xf32>
%r6 = "stablehlo.reverse"(%a0) <{{dimensions = array<i64: 1>}}> : ({_type(F)}) -> {_type(F)}
%r7 = "stablehlo.optimization_barrier"(%a0) : ({_type(F)}) -> {_type(F)}
''', [F, ((3, 2), "f32"), ((), "f32")],
        [((3, 2, 4), "f32"), ((2, 6), "f32"), ((4, 3), "f32"), ((2, 2), "f32"),
         ((3, 6), "f32"), ((6, 4), "f32"), F, F])
    interior = np.full((5, 4), v, np.float32)
    interior[::2] = x
    padded = np.pad(interior, ((0, 2), (1, 0)), constant_values=v)[1:, :-1]
    check(text, [x, y, v], [np.broadcast_to(x[:, None, :], (3, 2, 4)), x.reshape(2, 6), x.T,
                            x[1:3, ::3], np.concatenate([x, y], 1), padded, x[:, ::-1], x])


def test_dynamic_slice_and_update():
    rng = np.random.default_rng(12)
    x = draw(rng, F)
    u = draw(rng, ((2, 2), "f32"))
    S = ((), "i32")
    text = module(f'''
%r0 = "stablehlo.dynamic_slice"(%a0, %a2, %a3) <{{slice_sizes = array<i64: 2, 2>}}> : ({_type(F)}, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
%r1 = "stablehlo.dynamic_update_slice"(%a0, %a1, %a2, %a3) : ({_type(F)}, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> {_type(F)}
''', [F, ((2, 2), "f32"), S, S], [((2, 2), "f32"), F])
    i, j = np.int32(5), np.int32(-1)        # clamped into [0, 1] and [0, 2]
    updated = x.copy()
    updated[1:3, 0:2] = u
    check(text, [x, u, i, j], [x[1:3, 0:2], updated])


def test_dot_general_batched_with_preferred_type():
    rng = np.random.default_rng(13)
    a = draw(rng, ((2, 3, 4), "f16"))
    b = draw(rng, ((2, 4, 5), "f16"))
    text = module('''
%r0 = "stablehlo.dot_general"(%a0, %a1) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3x4xf16>, tensor<2x4x5xf16>) -> tensor<2x3x5xf32>
''', [((2, 3, 4), "f16"), ((2, 4, 5), "f16")], [((2, 3, 5), "f32")])
    want = np.einsum("bik,bkj->bij", a.astype(np.float64), b.astype(np.float64))
    check(text, [a, b], [want.astype(np.float32)], rtol=1e-5)


def test_variadic_reduce_argmax():
    rng = np.random.default_rng(14)
    x = draw(rng, F)
    text = module(f'''
%i = "stablehlo.iota"() <{{iota_dimension = 1 : i64}}> : () -> tensor<3x4xi32>
%c = "stablehlo.constant"() <{{value = dense<0xFF800000> : tensor<f32>}}> : () -> tensor<f32>
%z = "stablehlo.constant"() <{{value = dense<0> : tensor<i32>}}> : () -> tensor<i32>
%r:2 = "stablehlo.reduce"(%a0, %i, %c, %z) <{{dimensions = array<i64: 1>}}> ({{
^bb0(%p: tensor<f32>, %pi: tensor<i32>, %q: tensor<f32>, %qi: tensor<i32>):
  %gt = "stablehlo.compare"(%p, %q) <{{comparison_direction = #stablehlo<comparison_direction GT>}}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %v = "stablehlo.select"(%gt, %p, %q) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
  %k = "stablehlo.select"(%gt, %pi, %qi) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
  "stablehlo.return"(%v, %k) : (tensor<f32>, tensor<i32>) -> ()
}}) : ({_type(F)}, tensor<3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
''', [F], [((3,), "f32"), ((3,), "i32")], rets=["%r#0", "%r#1"])
    check(text, [x], [x.max(1), x.argmax(1).astype(np.int32)])


def _cumulative(op, init, pad, window):
    return f'''
%c = "stablehlo.constant"() <{{value = dense<{init}> : tensor<f32>}}> : () -> tensor<f32>
%r0 = "stablehlo.reduce_window"(%a0, %c) <{{padding = dense<{pad}> : tensor<2x2xi64>, window_dimensions = array<i64: {window}>}}> ({{
^bb0(%p: tensor<f32>, %q: tensor<f32>):
  %s = "{op}"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "stablehlo.return"(%s) : (tensor<f32>) -> ()
}}) : ({_type(F)}, tensor<f32>) -> {_type(F)}
'''


@pytest.mark.parametrize("op, init, pad, window, fn", [
    ("stablehlo.add", "0.0", "[[2, 0], [0, 0]]", "3, 1", lambda x: np.cumsum(x, 0)),
    ("stablehlo.multiply", "1.0", "[[0, 0], [3, 0]]", "1, 4", lambda x: np.cumprod(x, 1)),
    ("stablehlo.maximum", "0xFF800000", "[[0, 0], [0, 3]]", "1, 4",
     lambda x: np.maximum.accumulate(x[:, ::-1], 1)[:, ::-1]),
])
def test_cumulative_reduce_window(op, init, pad, window, fn):
    x = draw(np.random.default_rng(15), F)
    m = check(module(_cumulative(op, init, pad, window), [F], [F]), [x],
              [fn(x.astype(np.float64)).astype(np.float32)], rtol=2e-6)
    assert any(op.name == "tensor.scan" for op in m.body.operations[0].walk())


def test_sort_two_operands_stable():
    rng = np.random.default_rng(16)
    x = rng.integers(0, 3, (3, 4)).astype(np.float32)     # ties: the sort must be stable
    text = module(f'''
%i = "stablehlo.iota"() <{{iota_dimension = 1 : i64}}> : () -> tensor<3x4xi32>
%s:2 = "stablehlo.sort"(%a0, %i) <{{dimension = 1 : i64, is_stable = true}}> ({{
^bb0(%p: tensor<f32>, %q: tensor<f32>, %pi: tensor<i32>, %qi: tensor<i32>):
  %lt = "stablehlo.compare"(%p, %q) <{{comparison_direction = #stablehlo<comparison_direction LT>}}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
  "stablehlo.return"(%lt) : (tensor<i1>) -> ()
}}) : ({_type(F)}, tensor<3x4xi32>) -> ({_type(F)}, tensor<3x4xi32>)
%r0 = "stablehlo.add"(%s#0, %s#0) : ({_type(F)}, {_type(F)}) -> {_type(F)}
%r1 = "stablehlo.add"(%s#1, %s#1) : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
''', [F], [F, ((3, 4), "i32")])
    order = np.argsort(x, 1, kind="stable").astype(np.int32)
    check(text, [x], [2 * np.sort(x, 1), 2 * order])


def test_while_case_if_and_calls_inlined():
    rng = np.random.default_rng(17)
    x = draw(rng, ((4,), "f32"))
    V = ((4,), "f32")
    body = '''
%z = "stablehlo.constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
%w:2 = "stablehlo.while"(%z, %a0) ({
^bb0(%k: tensor<i32>, %y: tensor<4xf32>):
  %n = "stablehlo.constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
  %lt = "stablehlo.compare"(%k, %n) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
  "stablehlo.return"(%lt) : (tensor<i1>) -> ()
}, {
^bb0(%k: tensor<i32>, %y: tensor<4xf32>):
  %one = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %k1 = "stablehlo.add"(%k, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y1 = "func.call"(%y) <{callee = @step}> : (tensor<4xf32>) -> tensor<4xf32>
  "stablehlo.return"(%k1, %y1) : (tensor<i32>, tensor<4xf32>) -> ()
}) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
%r0 = "stablehlo.case"(%a1) ({
  "stablehlo.return"(%w#1) : (tensor<4xf32>) -> ()
}, {
  %neg = "stablehlo.negate"(%a0) : (tensor<4xf32>) -> tensor<4xf32>
  "stablehlo.return"(%neg) : (tensor<4xf32>) -> ()
}) : (tensor<i32>) -> tensor<4xf32>
%r1 = "stablehlo.if"(%a2) ({
  %s = "func.call"(%a0) <{callee = @step}> : (tensor<4xf32>) -> tensor<4xf32>
  "stablehlo.return"(%s) : (tensor<4xf32>) -> ()
}, {
  "stablehlo.return"(%a0) : (tensor<4xf32>) -> ()
}) : (tensor<i1>) -> tensor<4xf32>
'''
    step = '''  "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "step", sym_visibility = "private"}> ({
  ^bb0(%v: tensor<4xf32>):
    %h = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
    %hb = "stablehlo.broadcast_in_dim"(%h) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<4xf32>
    %m = "stablehlo.multiply"(%v, %hb) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %s = "stablehlo.sine"(%v) : (tensor<4xf32>) -> tensor<4xf32>
    %o = "stablehlo.add"(%m, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "func.return"(%o) : (tensor<4xf32>) -> ()
  }) : () -> ()
'''
    text = module(body, [V, ((), "i32"), ((), "i1")], [V, V])
    text = text.replace("}) : () -> ()\n}) : () -> ()\n", "}) : () -> ()\n" + step +
                        "}) : () -> ()\n")

    def f(v):
        v = v.astype(np.float64)
        return v * 0.5 + np.sin(v)
    looped = f(f(f(x)))
    for index, pred in ((0, True), (1, False), (7, True)):
        want0 = looped if index == 0 else -x.astype(np.float64)
        want1 = f(x) if pred else x
        m = check(text, [x, np.int32(index), np.bool_(pred)],
                  [want0.astype(np.float32), np.asarray(want1, np.float32)], rtol=2e-6)
    funcs = [op for op in m.body.operations]
    assert [op.attributes["sym_name"] for op in funcs] == ["main"]    # @step inlined


GATHER_TAKE = '''
%i = "stablehlo.reshape"(%a1) : (tensor<2xi32>) -> tensor<2x1xi32>
%r0 = "stablehlo.gather"(%a0, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 1>}> : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>
'''


def test_gather_take_on_a_later_axis_with_a_window_cut():
    """x[:2, idx] as one gather: the offset dim first, a slice size below the dim's."""
    rng = np.random.default_rng(18)
    x = draw(rng, F)
    idx = np.array([3, -5], np.int32)     # clamped into [0, 3]
    text = module(GATHER_TAKE, [F, ((2,), "i32")], [((2, 2), "f32")])
    check(text, [x, idx], [x[:2, np.clip(idx, 0, 3)]])


def test_gather_batch_dims_first():
    """offset_dims after the batch dims: the take's result transposed into the gather's."""
    rng = np.random.default_rng(19)
    x = draw(rng, F)
    idx = rng.integers(0, 4, (2,)).astype(np.int32)
    text = module(GATHER_TAKE.replace("offset_dims = [0]", "offset_dims = [1]"),
                  [F, ((2,), "i32")], [((2, 2), "f32")])
    check(text, [x, idx], [x[:2, idx].T])


def test_scatter_rows_set_and_add():
    rng = np.random.default_rng(20)
    x = draw(rng, F)
    u = draw(rng, ((2, 4), "f32"))
    idx = np.array([2, 0], np.int32)
    text = module('''
%i = "stablehlo.reshape"(%a1) : (tensor<2xi32>) -> tensor<2x1xi32>
%r0 = "stablehlo.scatter"(%a0, %i, %a2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
^bb0(%p: tensor<f32>, %q: tensor<f32>):
  %s = "stablehlo.add"(%p, %q) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "stablehlo.return"(%s) : (tensor<f32>) -> ()
}) : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
''', [F, ((2,), "i32"), ((2, 4), "f32")], [F])
    want = x.astype(np.float64)
    want[idx] += u
    check(text, [x, idx, u], [want.astype(np.float32)])


# -- refused forms ---------------------------------------------------------------------------
def _refused(body, args, results, *words, error=UnsupportedError, rets=None):
    with pytest.raises(error) as info:
        stablehlo.load(module(body, args, results, rets))
    for w in words:
        assert w in str(info.value), str(info.value)
    return info.value


def test_custom_call_is_refused_by_name_and_line():
    e = _refused('%r0 = "stablehlo.custom_call"(%a0) <{call_target_name = "Sharding"}> : '
                 '(tensor<3x4xf32>) -> tensor<3x4xf32>', [F], [F], "custom_call @Sharding",
                 "line 4")
    assert isinstance(e, AccyError) and not isinstance(e, ImportError)


def test_unknown_op_is_refused_by_name_and_line():
    _refused(f'%t = "stablehlo.negate"(%a0) : ({_type(F)}) -> {_type(F)}\n'
             f'%r0 = "stablehlo.fft"(%t) : ({_type(F)}) -> {_type(F)}', [F], [F],
             "stablehlo.fft is not supported", "line 5")


def test_gather_of_two_indexed_dims_is_refused():
    body = '''%r0 = "stablehlo.gather"(%a0, %a1) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<3x4xf32>, tensor<2x2xi32>) -> tensor<2xf32>'''
    _refused(body, [F, ((2, 2), "i32")], [((2,), "f32")], "stablehlo.gather",
             "one indexed dim")


def test_partial_window_scatter_is_refused():
    body = '''%r0 = "stablehlo.scatter"(%a0, %a1, %a2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
^bb0(%p: tensor<f32>, %q: tensor<f32>):
  "stablehlo.return"(%q) : (tensor<f32>) -> ()
}) : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x2xf32>) -> tensor<3x4xf32>'''
    _refused(body, [F, ((2, 1), "i32"), ((2, 2), "f32")], [F], "whole windows")


def test_sliding_reduce_window_is_refused():
    _refused(_cumulative("stablehlo.add", "0.0", "[[1, 0], [0, 0]]", "2, 1"), [F], [F],
             "stablehlo.reduce_window", "cumulative")


def test_reduce_window_with_a_non_identity_init_is_refused():
    _refused(_cumulative("stablehlo.add", "1.0", "[[2, 0], [0, 0]]", "3, 1"), [F], [F],
             "identity")


def test_recursion_is_refused():
    text = module('%r0 = "func.call"(%a0) <{callee = @main}> : (tensor<3x4xf32>) -> '
                  'tensor<3x4xf32>', [F], [F])
    with pytest.raises(UnsupportedError, match="calls itself"):
        stablehlo.load(text)


def test_declared_type_mismatch_is_an_error():
    _refused(f'%r0 = "stablehlo.add"(%a0, %a0) : ({_type(F)}, {_type(F)}) -> tensor<3x4xf64>',
             [F], [((3, 4), "f64")], "declares the result type", error=AccyError)


def test_bad_operands_name_the_constraint():
    _refused(f'%r0 = "stablehlo.add"(%a0, %a1) : ({_type(F)}, tensor<4x3xf32>) -> {_type(F)}',
             [F, ((4, 3), "f32")], [F], "stablehlo.add", "line 4", error=AccyError)


def test_no_entry_is_refused():
    text = module(f'%r0 = "stablehlo.negate"(%a0) : ({_type(F)}) -> {_type(F)}', [F], [F])
    with pytest.raises(UnsupportedError, match="public function"):
        stablehlo.load(text.replace('sym_visibility = "public"', 'sym_visibility = "private"'))


def test_dynamic_shapes_are_refused():
    text = module(f'%r0 = "stablehlo.negate"(%a0) : ({_type(F)}) -> {_type(F)}', [F], [F])
    with pytest.raises(ParseError, match="dynamic shapes are not supported"):
        stablehlo.load(text.replace("tensor<3x4xf32>", "tensor<?x4xf32>"))


def test_load_reads_a_path(tmp_path):
    path = tmp_path / "neg.mlir"
    text = module(f'%r0 = "stablehlo.negate"(%a0) : ({_type(F)}) -> {_type(F)}', [F], [F])
    path.write_text(text)
    x = draw(np.random.default_rng(21), F)
    for source in (path, str(path)):
        (got,) = run(stablehlo.load(source), x)
        np.testing.assert_array_equal(got, -x)
    with pytest.raises(UnsupportedError, match="cannot read"):
        stablehlo.load(str(tmp_path / "missing.mlir"))


def test_from_jax_needs_jax_or_imports(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_jax(name, *a, **k):
        if name == "jax" or name.startswith("jax."):
            raise ImportError(name)
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_jax)
    with pytest.raises(UnsupportedError, match="needs jax"):
        accy.from_jax(lambda x: x, np.ones(3, np.float32))


# -- the command line ------------------------------------------------------------------------
def _accy(*args):
    return run_bounded([sys.executable, "-m", "accy", *args], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)


def test_cli_import_and_run_with_inputs(tmp_path):
    path = tmp_path / "f.mlir"
    path.write_text(module(f'%r0 = "stablehlo.sine"(%a0) : ({_type(F)}) -> {_type(F)}',
                           [F], [F]))
    r = _accy("import", str(path))
    assert r.returncode == 0, r.stderr
    assert "tensor.sin %0 : tensor<3x4xf32>" in r.stdout
    assert '"tensor.sin"' in _accy("import", str(path), "--generic").stdout
    x = draw(np.random.default_rng(22), F)
    np.savez(tmp_path / "x.npz", arg0=x)
    r = _accy("run", str(path), "--inputs", str(tmp_path / "x.npz"), "--device", "emulator")
    assert r.returncode == 0, r.stderr
    assert "# ok: main on emulator" in r.stdout
    np.savez(tmp_path / "bad.npz", arg0=x.T.copy())
    r = _accy("run", str(path), "--inputs", str(tmp_path / "bad.npz"))
    assert r.returncode == 1
    assert "argument 0 is tensor<3x4xf32>, the file's array is float32[4, 3]" in r.stderr


def test_cli_refuses_a_custom_call_with_its_line(tmp_path):
    path = tmp_path / "c.mlir"
    path.write_text(module('%r0 = "stablehlo.custom_call"(%a0) <{call_target_name = "foo"}> : '
                           f'({_type(F)}) -> {_type(F)}', [F], [F]))
    for command in ("import", "compile"):
        r = _accy(command, str(path), *(("-o", str(tmp_path)) if command == "compile" else ()))
        assert r.returncode == 1
        assert "accy: error: line 4: 'stablehlo.custom_call': custom_call @foo" in r.stderr
        assert "Traceback" not in r.stderr


def _digamma(x):
    h = 1e-5
    return (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)


def test_lgamma_and_digamma_both_sides_of_one_half():
    rng = np.random.default_rng(23)
    x = np.concatenate([rng.uniform(-4.9, -0.1, 6), rng.uniform(0.1, 12, 6)]).astype(np.float32)
    x[np.abs(x - np.round(x)) < 0.05] += 0.1                 # away from the poles
    T = ((12,), "f32")
    text = module(f'''
%r0 = "chlo.lgamma"(%a0) : ({_type(T)}) -> {_type(T)}
%r1 = "chlo.digamma"(%a0) : ({_type(T)}) -> {_type(T)}
''', [T], [T, T])
    x64 = x.astype(np.float64)
    lg = np.array([math.lgamma(v) for v in x64])
    dg = np.array([_digamma(v) for v in x64])
    m = stablehlo.load(text)
    for got in (run(m, x), accy.compile(m).run(x, device="emulator")):
        for g, w in zip(got, (lg, dg)):
            # absolute near the zeros of lgamma, relative elsewhere; f32 ops, ~20 of them
            np.testing.assert_allclose(np.asarray(g, np.float64), w, rtol=2e-5, atol=2e-5)


def test_next_after_edges():
    x = np.array([1.0, 1.0, -1.0, 0.0, -0.0, 2.0, np.nan, 3.0, np.inf, -2.5], np.float32)
    y = np.array([2.0, 0.0, 0.0, -1.0, 1.0, 2.0, 1.0, np.nan, 0.0, -np.inf], np.float32)
    T = ((10,), "f32")
    text = module(f'%r0 = "chlo.next_after"(%a0, %a1) : ({_type(T)}, {_type(T)}) -> '
                  f'{_type(T)}', [T, T], [T])
    want = np.nextafter(x, y)
    m = stablehlo.load(text)
    for out in (run(m, x, y), accy.compile(m).run(x, y, device="emulator")):
        (got,) = out if isinstance(out, (tuple, list)) else (out,)
        np.testing.assert_array_equal(np.asarray(got).view(np.uint32)[~np.isnan(want)],
                                      want.view(np.uint32)[~np.isnan(want)])
        assert np.isnan(np.asarray(got)[np.isnan(want)]).all()


def test_top_k_ties_take_the_lower_index():
    x = np.array([[1, 5, 5, 2, 5, -1], [0, -3, 7, 7, 1, 2]], np.float32)
    text = module('%r:2 = "chlo.top_k"(%a0) <{k = 3 : i64}> : (tensor<2x6xf32>) -> '
                  '(tensor<2x3xf32>, tensor<2x3xi32>)', [((2, 6), "f32")],
                  [((2, 3), "f32"), ((2, 3), "i32")], rets=["%r#0", "%r#1"])
    order = np.argsort(-x, axis=1, kind="stable")[:, :3].astype(np.int32)
    check(text, [x], [np.take_along_axis(x, order, 1), order])


def test_asinh_acosh_large_and_small():
    x = np.array([-3e20, -5.0, -1e-3, 0.0, 2e-4, 0.5, 7.0, 4e19], np.float32)
    y = np.array([1.0, 1.5, 3.0, 10.0, 1e5, 1e10, 3e20, 1.0001], np.float32)
    T = ((8,), "f32")
    text = module(f'''
%r0 = "chlo.asinh"(%a0) : ({_type(T)}) -> {_type(T)}
%r1 = "chlo.acosh"(%a1) : ({_type(T)}) -> {_type(T)}
''', [T, T], [T, T])
    check(text, [x, y], [np.arcsinh(x.astype(np.float64)), np.arccosh(y.astype(np.float64))],
          rtol=2e-6)


# -- fuzz: mutated corpus programs import or give an accy error --------------------------------
CORPUS_TEXTS = [p.read_text() for p in sorted(
    (pathlib.Path(__file__).parent / "stablehlo").glob("*.generic.mlir"))]
OP_NAMES = ["add", "reduce", "sort", "gather", "while", "case", "compare", "convert", "slice",
            "pad", "iota", "if", "dot_general", "scatter", "reduce_window", "select", "negate",
            "custom_call", "broadcast_in_dim", "dynamic_slice", "optimization_barrier"]
MUTATIONS = {
    "number": (r"\b\d+\b", lambda draw: str(draw(st.sampled_from([0, 1, 2, 3, 7, 100, 2**40])))),
    "attribute": (r"\w+ = [^,}>]+(, )?", lambda draw: ""),
    "dtype": (r"x(f32|i32|i1|f16|bf16|ui8)>", lambda draw: "x" + draw(st.sampled_from(
        ["f32", "i32", "i1", "f16", "bf16", "ui8", "f64", "i64"])) + ">"),
    "op": (r'"stablehlo\.\w+"', lambda draw: f'"stablehlo.{draw(st.sampled_from(OP_NAMES))}"'),
    "operand": (r"%\w+(#\d+)?(?=[,)])", lambda draw: draw(st.sampled_from(["%arg0", "%0", "%5"]))),
}


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(CORPUS_TEXTS))
    for _ in range(draw(st.integers(1, 3))):
        pattern, replacement = MUTATIONS[draw(st.sampled_from(sorted(MUTATIONS)))]
        spans = [m.span() for m in re.finditer(pattern, text)]
        if spans:
            a, b = draw(st.sampled_from(spans))
            text = text[:a] + replacement(draw) + text[b:]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_programs_import_or_raise_an_accy_error(text):
    try:
        stablehlo.load(text)
    except AccyError:
        pass


PRETTY = """module @m {
  func.func public @main(%x: tensor<4xf32>) -> tensor<f32> {
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.add %0, %0 : tensor<f32>
    %2 = stablehlo.custom_call @lapack_spotrf(%1) : (tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
}
"""


def test_pretty_text_errors_name_its_own_lines():
    with pytest.raises(UnsupportedError, match="^line 6: 'stablehlo.custom_call': custom_call "
                                               "@lapack_spotrf"):
        stablehlo.load(PRETTY)
    # the reduce's `applies stablehlo.add` is an add of its own, on line 4
    bad_add = PRETTY.replace("stablehlo.add %0, %0 : tensor<f32>",
                             "stablehlo.add %0, %x : (tensor<f32>, tensor<4xf32>) -> tensor<f32>")
    with pytest.raises(AccyError, match="^line 5: 'stablehlo.add': 'tensor.add'"):
        stablehlo.load(bad_add)
    with pytest.raises(ParseError, match="dynamic shapes are not supported") as info:
        stablehlo.load(PRETTY.replace("%x: tensor<4xf32>", "%x: tensor<?xf32>"))
    assert info.value.line == 2 and "tensor<?xf32>" in info.value.snippet


def test_a_non_strict_comparator_sorts_within_the_row():
    """LE puts an element before itself and each of a tie before the other: read strictly, it
    sorts as LT, never placing an element outside its row (the kernel wrote out of bounds)."""
    x = np.random.default_rng(25).integers(0, 4, (3, 6)).astype(np.float32)
    text = module('''
%r0 = "stablehlo.sort"(%a0) <{dimension = 1 : i64, is_stable = true}> ({
^bb0(%p: tensor<f32>, %q: tensor<f32>):
  %le = "stablehlo.compare"(%p, %q) <{comparison_direction = #stablehlo<comparison_direction LE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
  "stablehlo.return"(%le) : (tensor<i1>) -> ()
}) : (tensor<3x6xf32>) -> tensor<3x6xf32>
''', [((3, 6), "f32")], [((3, 6), "f32")])
    check(text, [x], [np.sort(x, 1)])


# -- review findings: each a test ------------------------------------------------------------
NEG = module(f'%r0 = "stablehlo.negate"(%a0) : ({_type(F)}) -> {_type(F)}', [F], [F])


def test_only_a_path_or_a_one_line_dot_mlir_string_is_read_as_a_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN=hunter2\n")
    with pytest.raises(ParseError) as info:     # parsed as text, the file never opened
        stablehlo.load(str(secret))
    assert "hunter2" not in str(info.value)
    path = tmp_path / "neg.mlir"
    path.write_text(NEG)
    assert stablehlo.load(str(path)).fingerprint() == stablehlo.load(NEG).fingerprint()
    (tmp_path / "latin1.mlir").write_bytes(NEG.encode().replace(b"main", b"m\xe9in"))
    with pytest.raises(ParseError, match="not valid UTF-8"):
        stablehlo.load(tmp_path / "latin1.mlir")
    (tmp_path / "dir.mlir").mkdir()
    with pytest.raises(UnsupportedError, match="not a file"):
        stablehlo.load(tmp_path / "dir.mlir")


def test_dimension_numbers_read_with_any_spacing_and_refuse_what_they_cannot_read():
    rng = np.random.default_rng(26)
    a, b = draw(rng, ((3, 4), "f32")), draw(rng, ((4, 5), "f32"))
    dot = ('%r0 = "stablehlo.dot_general"(%a0, %a1) <{dot_dimension_numbers = '
           '#stablehlo.dot<lhs_contracting_dimensions=[1],rhs_contracting_dimensions = [ 0 ]>}> '
           ': (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>')
    args, out = [((3, 4), "f32"), ((4, 5), "f32")], [((3, 5), "f32")]
    check(module(dot, args, out), [a, b], [(a.astype(np.float64) @ b).astype(np.float32)],
          rtol=1e-5, emulator=False)
    for bad in ("[one]", "[0], lhs_contracting_dimensions = [1]"):
        _refused(dot.replace("[ 0 ]", bad), args, out, "cannot read")
    _refused(dot.replace("rhs_contracting", "rhs_contrasting"), args, out, "cannot read")


def test_top_k_needs_k_and_integer_indices():
    body = ('%r:2 = "chlo.top_k"(%a0) <{k = 2 : i64}> : (tensor<2x6xf32>) -> '
            '(tensor<2x2xf32>, tensor<2x2xi32>)')
    args, outs = [((2, 6), "f32")], [((2, 2), "f32"), ((2, 2), "i32")]
    _refused(body.replace("<{k = 2 : i64}> ", ""), args, outs, "needs k", rets=["%r#0", "%r#1"])
    _refused(body.replace("xi32>)", "xf32>)"), args, [outs[0], outs[0]], "integer indices",
             rets=["%r#0", "%r#1"])


def test_deep_nesting_is_an_accy_error_not_a_recursion_error():
    ret = '"stablehlo.return"({}) : (tensor<3x4xf32>) -> ()'
    inner = ret.format("%a0")
    for k in range(300, 0, -1):
        name = "%r0" if k == 1 else f"%n{k}"
        inner = (f'{name} = "stablehlo.if"(%a1) ({{\n{inner}\n}}, {{\n{ret.format("%a0")}\n'
                 f'}}) : (tensor<i1>) -> tensor<3x4xf32>' + ("" if k == 1 else
                                                              "\n" + ret.format(name)))
    _refused(inner, [F, ((), "i1")], [F], "nested more than 64 deep")


def test_a_cumulative_op_over_a_length_one_axis():
    x = draw(np.random.default_rng(27), ((3, 1), "f32"))
    T = ((3, 1), "f32")
    text = module(_cumulative("stablehlo.add", "0.0", "[[0, 0], [0, 0]]", "1, 1").replace(
        _type(F), _type(T)), [T], [T])
    check(text, [x], [x])


def test_narrow_chlo_ops_are_computed_in_f32():
    x = np.array([-11.5, -3.0, 0.5, 11.0], np.float16)
    y = np.array([1.5, 3.0, 301.0, 6e4], np.float16)
    H = ((4,), "f16")
    text = module(f'''
%r0 = "chlo.cosh"(%a0) : ({_type(H)}) -> {_type(H)}
%r1 = "chlo.sinh"(%a0) : ({_type(H)}) -> {_type(H)}
%r2 = "chlo.asinh"(%a1) : ({_type(H)}) -> {_type(H)}
%r3 = "chlo.acosh"(%a1) : ({_type(H)}) -> {_type(H)}
''', [H, H], [H] * 4)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = [np.cosh(x64), np.sinh(x64), np.arcsinh(y64), np.arccosh(y64)]
    check(text, [x, y], [w.astype(np.float16) for w in want], rtol=1e-3)


def test_f32_cosh_and_sinh_near_the_top_of_the_range():
    x = np.array([-89.0, 88.5, 10.0, -0.25], np.float32)
    T = ((4,), "f32")
    text = module(f'''
%r0 = "chlo.cosh"(%a0) : ({_type(T)}) -> {_type(T)}
%r1 = "chlo.sinh"(%a0) : ({_type(T)}) -> {_type(T)}
''', [T], [T, T])
    x64 = x.astype(np.float64)
    check(text, [x], [np.cosh(x64).astype(np.float32), np.sinh(x64).astype(np.float32)],
          rtol=2e-5)


def test_blocks_types_and_compare_types_are_checked():
    reduce = f'''
%c = "stablehlo.constant"() <{{value = dense<0.0> : tensor<f32>}}> : () -> tensor<f32>
%r0 = "stablehlo.reduce"(%a0, %c) <{{dimensions = array<i64: 1>}}> ({{
^bb0(%p: tensor<f32>):
  "stablehlo.return"(%p) : (tensor<f32>) -> ()
}}) : ({_type(F)}, tensor<f32>) -> tensor<3xf32>
'''
    _refused(reduce, [F], [((3,), "f32")], "a block takes (tensor<f32>)")
    text = module(f'%r0 = "stablehlo.negate"(%a0) : ({_type(F)}) -> {_type(F)}', [F], [F])
    with pytest.raises(AccyError, match="declares the results"):
        stablehlo.load(text.replace(f"-> ({_type(F)})", "-> (tensor<3x4xi32>)", 1))
    I3 = ((3,), "i32")
    _refused(f'%r0 = "stablehlo.compare"(%a0, %a0) <{{compare_type = #stablehlo<comparison_type '
             f'UNSIGNED>, comparison_direction = #stablehlo<comparison_direction LT>}}> : '
             f'({_type(I3)}, {_type(I3)}) -> tensor<3xi1>', [I3], [((3,), "i1")],
             "does not compare i32", error=AccyError)


def test_accy_ir_that_mentions_stablehlo_in_a_comment_is_accy_ir():
    text = ('// imported from stablehlo.mlir, once\nbuiltin.module ({\n  builtin.func '
            '<{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({\n'
            '  ^bb0(%0: tensor<2xf32>):\n    builtin.return %0\n  })\n})\n')
    assert not stablehlo.is_stablehlo(text)
    assert stablehlo.is_stablehlo(NEG) and stablehlo.is_stablehlo(PRETTY)


def test_from_jax_keeps_every_argument(monkeypatch):
    """The glue to jax, with a stand-in: jit with keep_unused, the generic form imported."""
    import types
    seen = {}

    class Lowered:
        def compiler_ir(self, dialect):
            seen["dialect"] = dialect
            asm = lambda print_generic_op_form: NEG          # noqa: E731
            return types.SimpleNamespace(operation=types.SimpleNamespace(get_asm=asm))

    def jit(fn, **kwargs):
        seen["kwargs"] = kwargs
        return types.SimpleNamespace(lower=lambda *args: Lowered())
    monkeypatch.setitem(sys.modules, "jax", types.SimpleNamespace(jit=jit))
    m = accy.from_jax(lambda x, unused: -x, np.ones((3, 4), np.float32), 1.0)
    assert seen == {"kwargs": {"keep_unused": True}, "dialect": "stablehlo"}
    assert m.fingerprint() == stablehlo.load(NEG).fingerprint()


def test_cli_inputs_files_that_are_not_the_right_npz(tmp_path):
    path = tmp_path / "f.mlir"
    path.write_text(NEG)
    x = draw(np.random.default_rng(28), F)
    np.save(tmp_path / "a.npy", x)
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 not a zip")
    np.savez(tmp_path / "gap.npz", arg1=x, out0=x)
    np.savez(tmp_path / "named.npz", out0=x, arg0=x, finite=True)
    for name, words in (("a.npy", "not an .npz file"), ("bad.npz", "not a readable .npz"),
                        ("gap.npz", "has no arg0")):
        r = _accy("run", str(path), "--inputs", str(tmp_path / name))
        assert r.returncode == 1 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = _accy("run", str(path), "--inputs", str(tmp_path / "named.npz"), "--device", "emulator")
    assert r.returncode == 0 and "# ok" in r.stdout, r.stderr


def test_cli_reads_the_corpus_npz_with_bf16_bits():
    r = _accy("run", str(pathlib.Path(__file__).parent / "stablehlo" / "mlp_bf16.generic.mlir"),
              "--inputs", str(pathlib.Path(__file__).parent / "stablehlo" / "mlp_bf16.npz"),
              "--device", "emulator")
    assert r.returncode == 0 and "# ok" in r.stdout, r.stderr
