"""The tracing frontend (accy.jit, accy.ops, Tensor): lowering, promotion, the jit cache, errors,
and numerics (accy.reference.run) against numpy formulas written here."""
import math
import pathlib
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import accy
import accy.ops as ops
from accy.frontend.promotion import PARENTS, UPPER, join, result_dtype
from accy.ir import parse, numpy_dtype
from accy.tensor.semantics import convert

from tensor_helpers import softmax64

RNG = np.random.default_rng()
DTYPES = list(PARENTS)



# ---- inputs (fresh each run, never zero) --------------------------------------------------------

def rand(*shape, dtype="f32"):
    """Magnitudes in [0.25, 2), either sign."""
    x = RNG.uniform(0.25, 2.0, shape) * RNG.choice([-1.0, 1.0], shape)
    return x.astype(numpy_dtype(dtype))


def pos(*shape, dtype="f32"):
    return RNG.uniform(0.25, 2.0, shape).astype(numpy_dtype(dtype))


def ints(*shape, dtype="i32", high=9):
    """Non-zero ints in [-high, high] ([1, high] for u8)."""
    x = RNG.integers(1, high + 1, shape)
    if dtype != "u8":
        x = x * RNG.choice([-1, 1], shape)
    return x.astype(numpy_dtype(dtype))


def bools(*shape):
    return RNG.random(shape) < 0.5


def halves(*shape):
    """Multiples of 0.5 (ties for round)."""
    return (RNG.integers(1, 9, shape) * RNG.choice([-1, 1], shape) / 2).astype(np.float32)


# ---- numpy formulas (float64) -----------------------------------------------------------------

erf64 = np.vectorize(math.erf)


def attention64(q, k, v, mask=None, causal=False, scale=None):
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    if mask is not None:
        s = s + mask
    if causal:
        sq, sk = s.shape[-2:]
        s = np.where(np.arange(sk)[None, :] > np.arange(sq)[:, None], -np.inf, s)
    return np.einsum("bhqk,bhkd->bhqd", softmax64(s), v)


def gelu64(x):
    return 0.5 * x * (1 + erf64(x / math.sqrt(2)))


def gelu_tanh64(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def while64(x):
    i, v = 0, x
    while i < 5 and v.sum() < 40.0:
        i, v = i + 1, v * 1.5 + 1.0
    return v


def fori64(x):
    for i in range(1, 5):
        x = x * 0.5 + i
    return x


C4 = rand(4)                       # constants the traced functions close over
C53 = rand(5, 3)
TAKE_IDX = np.array([[0, -1], [2, -3]], np.int32)
W4, B4 = rand(4), rand(4)


def _while(x):
    def cond(state):
        i, v = state
        return (i < 5) & (v.sum() < 40.0)
    return ops.while_loop(cond, lambda s: (s[0] + 1, s[1] * 1.5 + 1.0), (0, x))[1]


# id, accy function, numpy function (float64 for floats), inputs, result dtype
CASES = [
    ("add_broadcast", lambda x, y: x + y, lambda x, y: x + y, lambda: (rand(3, 1, 4), rand(2, 4)), "f32"),
    ("radd_weak", lambda x: 1.5 + x, lambda x: 1.5 + x, lambda: (rand(3),), "f32"),
    ("rsub_weak_int", lambda x: 2 - x, lambda x: 2 - x, lambda: (rand(2, 3),), "f32"),
    ("mul_numpy_const", lambda x: x * C4, lambda x: x * C4, lambda: (rand(3, 4),), "f32"),
    ("rmul_numpy_left", lambda x: C4 * x, lambda x: C4 * x, lambda: (rand(3, 4),), "f32"),
    ("truediv", lambda x, y: x / y, lambda x, y: x / y, lambda: (rand(3, 4), rand(4)), "f32"),
    ("rtruediv", lambda x: 1.5 / x, lambda x: 1.5 / x, lambda: (rand(5),), "f32"),
    ("int_truediv", lambda a, b: a / b, lambda a, b: a / b, lambda: (ints(6), ints(6)), "f32"),
    ("floordiv_float", lambda x, y: x // y, lambda x, y: x // y, lambda: (rand(8) * 4, rand(8)), "f32"),
    ("floordiv_int", lambda a, b: a // b, lambda a, b: a // b, lambda: (ints(16, high=30), ints(16, high=7)), "i32"),
    ("mod_float", lambda x, y: x % y, lambda x, y: x % y, lambda: (rand(8) * 4, rand(8)), "f32"),
    ("mod_int", lambda a, b: a % b, lambda a, b: a % b, lambda: (ints(16, high=30), ints(16, high=7)), "i32"),
    ("pow", lambda x, y: abs(x) ** y, lambda x, y: np.abs(x) ** y, lambda: (rand(6), rand(6)), "f32"),
    ("pow_weak_int", lambda x: x ** 3, lambda x: x ** 3, lambda: (rand(6),), "f32"),
    ("matmul_operator", lambda x, y: x @ y, lambda x, y: x @ y, lambda: (rand(2, 3, 4), rand(4, 5)), "f32"),
    ("rmatmul_numpy_left", lambda x: C53 @ x, lambda x: C53 @ x, lambda: (rand(3, 4),), "f32"),
    ("lt", lambda x, y: x < y, lambda x, y: x < y, lambda: (rand(3, 4), rand(4)), "i1"),
    ("le_weak", lambda x: x <= 0.5, lambda x: x <= 0.5, lambda: (rand(7),), "i1"),
    ("gt_reflected", lambda x: 0.5 > x, lambda x: 0.5 > x, lambda: (rand(7),), "i1"),
    ("ge", lambda a, b: a >= b, lambda a, b: a >= b, lambda: (ints(9), ints(9)), "i1"),
    ("eq", lambda a, b: a == b, lambda a, b: a == b, lambda: (ints(20, high=2), ints(20, high=2)), "i1"),
    ("ne", lambda a, b: a != b, lambda a, b: a != b, lambda: (ints(20, high=2), ints(20, high=2)), "i1"),
    ("neg", lambda x: -x, lambda x: -x, lambda: (rand(3, 2),), "f32"),
    ("abs_builtin", lambda x: abs(x), np.abs, lambda: (rand(3, 2),), "f32"),
    ("invert_int", lambda a: ~a, lambda a: ~a, lambda: (ints(5),), "i32"),
    ("invert_bool", lambda p: ~p, lambda p: ~p, lambda: (bools(5),), "i1"),
    ("and_int", lambda a, b: a & b, lambda a, b: a & b, lambda: (ints(8, high=100), ints(8, high=100)), "i32"),
    ("or_bool", lambda p, q: p | q, lambda p, q: p | q, lambda: (bools(8), bools(8)), "i1"),
    ("xor_weak", lambda a: a ^ 5, lambda a: a ^ 5, lambda: (ints(8, high=100),), "i32"),
    ("lshift", lambda a: a << 2, lambda a: a << 2, lambda: (ints(8),), "i32"),
    ("rshift_signed", lambda a: a >> 1, lambda a: a >> 1, lambda: (ints(8, high=100),), "i32"),
    ("rshift_u8", lambda a: a >> 1, lambda a: a >> 1, lambda: (ints(8, dtype="u8", high=255),), "u8"),
    ("index_int", lambda x: x[1], lambda x: x[1], lambda: (rand(3, 4),), "f32"),
    ("index_negative_int", lambda x: x[-1, -2], lambda x: x[-1, -2], lambda: (rand(3, 4),), "f32"),
    ("index_reverse", lambda x: x[:, ::-1], lambda x: x[:, ::-1], lambda: (rand(3, 4),), "f32"),
    ("index_neg_step", lambda x: x[::-2, 3:0:-2], lambda x: x[::-2, 3:0:-2], lambda: (rand(5, 6),), "f32"),
    ("index_step", lambda x: x[1::2, -3:], lambda x: x[1::2, -3:], lambda: (rand(5, 6),), "f32"),
    ("index_none_ellipsis", lambda x: x[None, ..., 0], lambda x: x[None, ..., 0], lambda: (rand(2, 3, 4),), "f32"),
    ("index_empty_slice", lambda x: x[3:1], lambda x: x[3:1], lambda: (rand(4, 2),), "f32"),
    ("reshape_minus1", lambda x: x.reshape(2, -1), lambda x: x.reshape(2, -1), lambda: (rand(3, 4),), "f32"),
    ("reshape_tuple", lambda x: x.reshape((4, 3)), lambda x: x.reshape(4, 3), lambda: (rand(3, 4),), "f32"),
    ("astype_f16", lambda x: x.astype("f16"), lambda x: x.astype(np.float16), lambda: (rand(5),), "f16"),
    ("astype_numpy_int", lambda x: (x * 3).astype(np.int32), lambda x: np.trunc(x * 3), lambda: (rand(5),), "i32"),
    ("T", lambda x: x.T, lambda x: x.T, lambda: (rand(2, 3, 4),), "f32"),
    ("transpose_method", lambda x: x.transpose(1, 0, 2), lambda x: x.transpose(1, 0, 2), lambda: (rand(2, 3, 4),), "f32"),
    ("sum_all", lambda x: x.sum(), np.sum, lambda: (rand(3, 4),), "f32"),
    ("sum_axes_keepdims", lambda x: x.sum(axis=(0, -1), keepdims=True), lambda x: x.sum((0, 2), keepdims=True), lambda: (rand(2, 3, 4),), "f32"),
    ("sum_bool_counts", lambda p: p.sum(axis=1), lambda p: p.sum(1), lambda: (bools(3, 7),), "i32"),
    ("prod", lambda x: x.prod(axis=0), lambda x: x.prod(0), lambda: (rand(3, 4),), "f32"),
    ("max_neg_axis", lambda x: x.max(axis=-1), lambda x: x.max(-1), lambda: (rand(3, 4),), "f32"),
    ("min_tuple", lambda x: x.min(axis=(0,)), lambda x: x.min(0), lambda: (rand(3, 4),), "f32"),
    ("mean_keepdims", lambda x: x.mean(axis=1, keepdims=True), lambda x: x.mean(1, keepdims=True), lambda: (rand(3, 4),), "f32"),
    ("mean_int", lambda a: a.mean(), np.mean, lambda: (ints(3, 4),), "f32"),
    ("argmax_all", lambda x: x.argmax(), np.argmax, lambda: (rand(3, 4),), "i32"),
    ("argmin_axis", lambda x: x.argmin(axis=0), lambda x: x.argmin(0), lambda: (rand(3, 4),), "i32"),
    ("argmax_keepdims", lambda x: x.argmax(axis=-1, keepdims=True), lambda x: x.argmax(-1, keepdims=True), lambda: (rand(3, 4),), "i32"),
    ("exp", ops.exp, np.exp, lambda: (rand(6),), "f32"),
    ("exp_of_int", ops.exp, lambda a: np.exp(a), lambda: (ints(6, high=5),), "f32"),
    ("log", ops.log, np.log, lambda: (pos(6),), "f32"),
    ("tanh", ops.tanh, np.tanh, lambda: (rand(6),), "f32"),
    ("sigmoid", ops.sigmoid, lambda x: 1 / (1 + np.exp(-x)), lambda: (rand(6),), "f32"),
    ("relu", ops.relu, lambda x: np.maximum(x, 0), lambda: (rand(12),), "f32"),
    ("gelu", ops.gelu, gelu64, lambda: (rand(12),), "f32"),
    ("gelu_tanh", lambda x: ops.gelu(x, approximate=True), gelu_tanh64, lambda: (rand(12),), "f32"),
    ("silu", ops.silu, lambda x: x / (1 + np.exp(-x)), lambda: (rand(12),), "f32"),
    ("sqrt", ops.sqrt, np.sqrt, lambda: (pos(6),), "f32"),
    ("rsqrt", ops.rsqrt, lambda x: 1 / np.sqrt(x), lambda: (pos(6),), "f32"),
    ("sin", ops.sin, np.sin, lambda: (rand(6),), "f32"),
    ("cos", ops.cos, np.cos, lambda: (rand(6),), "f32"),
    ("tan", ops.tan, np.tan, lambda: (rand(6),), "f32"),
    ("cbrt", ops.cbrt, np.cbrt, lambda: (rand(6) * 9,), "f32"),
    ("cbrt_of_int", ops.cbrt, np.cbrt, lambda: (ints(6),), "f32"),
    ("arctan2", ops.arctan2, np.arctan2, lambda: (rand(3, 4), rand(4)), "f32"),
    ("arctan2_weak", lambda y: ops.arctan2(y, -1.0), lambda y: np.arctan2(y, -1.0), lambda: (rand(6),), "f32"),
    ("log1p", ops.log1p, np.log1p, lambda: (pos(6) * 1e-3,), "f32"),
    ("expm1", ops.expm1, np.expm1, lambda: (rand(6) * 1e-3,), "f32"),
    ("exp2", ops.exp2, np.exp2, lambda: (rand(6),), "f32"),
    ("erf", ops.erf, erf64, lambda: (rand(6),), "f32"),
    ("floor", ops.floor, np.floor, lambda: (rand(6) * 3,), "f32"),
    ("ceil", ops.ceil, np.ceil, lambda: (rand(6) * 3,), "f32"),
    ("round_half_even", ops.round, np.round, lambda: (halves(12),), "f32"),
    ("sign", ops.sign, np.sign, lambda: (rand(6),), "f32"),
    ("clip", lambda x: ops.clip(x, -0.5, 1.0), lambda x: np.clip(x, -0.5, 1.0), lambda: (rand(12),), "f32"),
    ("astype_op", lambda x: ops.astype(x, "f64"), lambda x: x, lambda: (rand(4),), "f64"),
    ("where", lambda p, x, y: ops.where(p, x, y), np.where, lambda: (bools(3, 4), rand(4), rand(3, 1)), "f32"),
    ("where_weak", lambda x: ops.where(x > 0, x, 0.0), lambda x: np.where(x > 0, x, 0.0), lambda: (rand(6),), "f32"),
    ("maximum", ops.maximum, np.maximum, lambda: (rand(3, 4), rand(4)), "f32"),
    ("minimum_promotes", ops.minimum, np.minimum, lambda: (rand(3, 4), ints(4, dtype="i8")), "f32"),
    ("matmul_vec_mat", ops.matmul, np.matmul, lambda: (rand(3), rand(3, 4)), "f32"),
    ("matmul_mat_vec", ops.matmul, np.matmul, lambda: (rand(2, 3, 4), rand(4)), "f32"),
    ("matmul_vec_vec", ops.matmul, np.matmul, lambda: (rand(5), rand(5)), "f32"),
    ("matmul_batch_broadcast", ops.matmul, np.matmul, lambda: (rand(2, 1, 3, 4), rand(5, 4, 2)), "f32"),
    ("matmul_int", ops.matmul, np.matmul, lambda: (ints(2, 3), ints(3, 4)), "i32"),
    ("einsum_matmul", lambda a, b: ops.einsum("ij,jk->ik", a, b), lambda a, b: a @ b, lambda: (rand(3, 4), rand(4, 5)), "f32"),
    ("einsum_batch", lambda a, b: ops.einsum("bij,bjk->bik", a, b), lambda a, b: a @ b, lambda: (rand(2, 3, 4), rand(2, 4, 5)), "f32"),
    ("einsum_out_perm", lambda a, b: ops.einsum("ij,kj->ki", a, b), lambda a, b: (a @ b.T).T, lambda: (rand(3, 4), rand(5, 4)), "f32"),
    ("einsum_heads", lambda q, k: ops.einsum("bqhd,bkhd->bhqk", q, k), lambda q, k: np.einsum("bqhd,bkhd->bhqk", q, k), lambda: (rand(2, 3, 2, 4), rand(2, 5, 2, 4)), "f32"),
    ("einsum_dot", lambda a, b: ops.einsum("i,i->", a, b), lambda a, b: a @ b, lambda: (rand(6), rand(6)), "f32"),
    ("einsum_outer_implicit", lambda a, b: ops.einsum("i,j", a, b), np.outer, lambda: (rand(3), rand(4)), "f32"),
    ("einsum_sum_first", lambda a, b: ops.einsum("ij,jk->k", a, b), lambda a, b: (a @ b).sum(0), lambda: (rand(3, 4), rand(4, 5)), "f32"),
    ("einsum_transpose", lambda a: ops.einsum("ijk->kij", a), lambda a: a.transpose(2, 0, 1), lambda: (rand(2, 3, 4),), "f32"),
    ("einsum_sum", lambda a: ops.einsum("ij->j", a), lambda a: a.sum(0), lambda: (rand(3, 4),), "f32"),
    ("softmax", ops.softmax, softmax64, lambda: (rand(3, 5) * 4,), "f32"),
    ("softmax_axis0", lambda x: ops.softmax(x, axis=0), lambda x: softmax64(x, 0), lambda: (rand(3, 5) * 4,), "f32"),
    ("softmax_large", ops.softmax, softmax64, lambda: (rand(2, 5) * 1e3,), "f32"),
    ("log_softmax", ops.log_softmax, lambda x: x - x.max(-1, keepdims=True) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)), lambda: (rand(3, 5) * 4,), "f32"),
    ("layer_norm", lambda x: ops.layer_norm(x, W4, B4), lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * W4 + B4, lambda: (rand(3, 4),), "f32"),
    ("layer_norm_axes", lambda x: ops.layer_norm(x, axis=(0, 2)), lambda x: (x - x.mean((0, 2), keepdims=True)) / np.sqrt(x.var((0, 2), keepdims=True) + 1e-5), lambda: (rand(2, 3, 4),), "f32"),
    ("rms_norm", lambda x: ops.rms_norm(x, W4), lambda x: x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * W4, lambda: (rand(3, 4),), "f32"),
    ("cumsum", lambda x: ops.cumsum(x, 1), lambda x: np.cumsum(x, 1), lambda: (rand(3, 6),), "f32"),
    ("cumsum_flat", ops.cumsum, np.cumsum, lambda: (rand(3, 4),), "f32"),
    ("cumprod", lambda x: ops.cumprod(x, axis=0), lambda x: np.cumprod(x, 0), lambda: (rand(4, 3),), "f32"),
    ("cummax", lambda x: ops.cummax(x, 1), lambda x: np.maximum.accumulate(x, 1), lambda: (rand(3, 6),), "f32"),
    ("logcumsumexp", lambda x: ops.logcumsumexp(x, 0), lambda x: np.logaddexp.accumulate(x, 0), lambda: (rand(5, 3) * 30,), "f32"),
    ("logcumsumexp_f16", lambda x: ops.logcumsumexp(x.astype("f16")), lambda x: np.logaddexp.accumulate(x.astype(np.float16).astype(np.float64).ravel()), lambda: (rand(2, 3),), "f16"),
    ("concatenate_promotes", lambda x, a: ops.concatenate([x, a, x], axis=-1), lambda x, a: np.concatenate([x, a, x], -1), lambda: (rand(2, 3), ints(2, 1)), "f32"),
    ("pad_int", lambda x: ops.pad(x, 1), lambda x: np.pad(x, 1), lambda: (rand(2, 3),), "f32"),
    ("pad_pair_value", lambda x: ops.pad(x, (1, 2), constant_values=7.5), lambda x: np.pad(x, (1, 2), constant_values=7.5), lambda: (rand(2, 3),), "f32"),
    ("pad_per_axis", lambda x: ops.pad(x, ((0, 1), (2, 0))), lambda x: np.pad(x, ((0, 1), (2, 0))), lambda: (rand(2, 3),), "f32"),
    ("transpose_axes", lambda x: ops.transpose(x, (2, 0, -2)), lambda x: x.transpose(2, 0, 1), lambda: (rand(2, 3, 4),), "f32"),
    ("transpose_default", ops.transpose, np.transpose, lambda: (rand(2, 3, 4),), "f32"),
    ("take_negative", lambda x: ops.take(x, TAKE_IDX, axis=1), lambda x: np.take(x, TAKE_IDX, 1), lambda: (rand(2, 4, 3),), "f32"),
    ("take_traced_indices", lambda x, i: ops.take(x, i, axis=0), lambda x, i: np.take(x, i, 0), lambda: (rand(5, 2), RNG.integers(-5, 5, 7).astype(np.int32)), "f32"),
    ("take_flat", lambda x: ops.take(x, [5, -1, 0]), lambda x: np.take(x, [5, -1, 0]), lambda: (rand(2, 3),), "f32"),
    ("take_along_axis", lambda x, i: ops.take_along_axis(x, i, 1), lambda x, i: np.take_along_axis(x, i, 1), lambda: (rand(3, 5), RNG.integers(-5, 5, (3, 2)).astype(np.int32)), "f32"),
    ("dynamic_slice", lambda x, i: ops.dynamic_slice(x, (i, 2), (2, 3)), lambda x, i: x[min(max(int(i), 0), 1):][:2, 2:5], lambda: (rand(3, 5), np.int32(RNG.integers(-2, 4))), "f32"),
    ("dynamic_update_slice", lambda x, u, i: ops.dynamic_update_slice(x, u, (1, i)), lambda x, u, i: np.concatenate([x[:1], np.concatenate([x[1:3, :min(max(int(i), 0), 3)], u, x[1:3, min(max(int(i), 0), 3) + 2:]], 1), x[3:]]), lambda: (rand(4, 5), rand(2, 2), np.int64(RNG.integers(-2, 6))), "f32"),
    ("sort", ops.sort, lambda x: np.sort(x, -1), lambda: (rand(3, 5),), "f32"),
    ("argsort_axis0", lambda x: ops.argsort(x, axis=0), lambda x: np.argsort(x, 0, kind="stable"), lambda: (ints(4, 3, high=3),), "i32"),
    ("scatter_add", lambda x, i: ops.scatter(x, i, 1.0, mode="add"), lambda x, i: x + np.bincount(i, minlength=4)[:, None], lambda: (rand(4, 3), RNG.integers(0, 4, (6,)).astype(np.int32)), "f32"),
    ("switch", lambda i, x: ops.switch(i, [lambda v: v * 2.0, lambda v: v - 1.0], x), lambda i, x: x * 2 if i <= 0 else x - 1, lambda: (np.int32(RNG.integers(-1, 3)), rand(4)), "f32"),
    ("cond", lambda x: ops.cond(x.sum() > 0, lambda v: v * 3.0, lambda v: -v, x), lambda x: x * 3 if x.sum() > 0 else -x, lambda: (rand(5),), "f32"),
    ("take_along_broadcast", lambda x, i: ops.take_along_axis(x, i, -1), lambda x, i: np.take_along_axis(x, i, -1), lambda: (rand(3, 5), RNG.integers(0, 5, (1, 4)).astype(np.int64)), "f32"),
    ("attention", ops.attention, attention64, lambda: (rand(2, 2, 3, 4), rand(2, 2, 5, 4), rand(2, 2, 5, 3)), "f32"),
    ("attention_causal_scale", lambda q, k, v: ops.attention(q, k, v, causal=True, scale=0.3), lambda q, k, v: attention64(q, k, v, causal=True, scale=0.3), lambda: (rand(1, 2, 4, 4), rand(1, 2, 4, 4), rand(1, 2, 4, 4)), "f32"),
    ("attention_float_mask", ops.attention, attention64, lambda: (rand(1, 2, 3, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 4), rand(3, 5)), "f32"),
    ("attention_bool_mask", lambda q, k, v, m: ops.attention(q, k, v, m | (ops.arange(5) == 0)), lambda q, k, v, m: attention64(q, k, v, np.where(m | (np.arange(5) == 0), 0, -np.inf)), lambda: (rand(1, 1, 3, 4), rand(1, 1, 5, 4), rand(1, 1, 5, 4), bools(3, 5)), "f32"),
    ("while_loop", _while, while64, lambda: (pos(4),), "f32"),
    ("fori_loop", lambda x: ops.fori_loop(1, 5, lambda i, v: v * 0.5 + i.astype("f32"), x), fori64, lambda: (rand(3),), "f32"),
    ("creation", lambda x: x + ops.ones((2, 3)) + ops.arange(3) * ops.full((2, 1), 2.5) + ops.zeros(3), lambda x: x + 1 + np.arange(3) * 2.5, lambda: (rand(2, 3),), "f32"),
    ("arange_float", lambda x: x * ops.arange(0.5, 2.0, 0.25), lambda x: x * np.arange(0.5, 2.0, 0.25), lambda: (rand(6),), "f32"),
    ("arange_negative_step", lambda a: a + ops.arange(10, 2, -3), lambda a: a + np.arange(10, 2, -3), lambda: (ints(3),), "i32"),
]
IDS = [c[0] for c in CASES]


def result_types(module):
    (func,) = module.body.operations
    return func.attributes["function_type"].results


def check_module(module):
    """Verified, and print -> parse -> print gives the same text."""
    module.verify()
    text = module.print()
    assert parse(text).print() == text
    return text


def to64(x):
    x = np.asarray(x)
    return x.astype(np.float64) if x.dtype.kind == "f" or x.dtype == numpy_dtype("bf16") else x


def compare(got, want, dtype, rtol=None):
    if dtype in ("i1", "u8", "i8", "i16", "i32", "i64"):
        np.testing.assert_array_equal(got, want)
        return
    tol = rtol or {"f16": 2e-3, "bf16": 1.6e-2, "f32": 2e-5, "f64": 1e-12}[dtype]
    np.testing.assert_allclose(to64(got), to64(want), rtol=tol, atol=tol)


# ---- lowering -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, fn, ref, make, dtype", CASES, ids=IDS)
def test_lowers_and_round_trips(name, fn, ref, make, dtype):
    args = make()
    module = accy.jit(fn).lower(*args)
    check_module(module)
    (out,) = result_types(module)
    assert out.dtype == dtype
    assert out.shape == np.shape(ref(*map(to64, args)))


@pytest.mark.parametrize("name, fn, ref, make, dtype", CASES, ids=IDS)
def test_numerics_match_numpy(name, fn, ref, make, dtype):
    args = make()
    got = accy.jit(fn)(*args)
    assert got.dtype == numpy_dtype(dtype)
    compare(got, ref(*map(to64, args)), dtype)


def test_every_public_op_is_exercised():
    """Each name in accy.ops appears in a case (or an alias test below)."""
    source = pathlib.Path(__file__).read_text()
    aliases = {"abs", "absolute", "divide", "mod", "convert", "add", "subtract", "multiply",
               "true_divide", "floor_divide", "remainder", "power", "negative", "invert",
               "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "equal",
               "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_not",
               "broadcast_to", "expand_dims", "squeeze", "ravel", "reshape", "sum", "prod",
               "mean", "max", "min", "argmax", "argmin", "asarray", "full_like", "zeros_like",
               "ones_like"}
    missing = [n for n in ops.__all__ if n not in aliases and f"ops.{n}" not in source]
    assert not missing


def test_function_forms_of_methods_and_aliases():
    def fn(x, a):
        parts = [ops.add(x, 1), ops.subtract(x, 1), ops.multiply(x, 2), ops.divide(x, 2),
                 ops.true_divide(x, 4), ops.floor_divide(x, 1), ops.mod(x, 1.5),
                 ops.remainder(x, 1.5), ops.power(ops.abs(x), 0.5), ops.negative(x),
                 ops.absolute(x), ops.convert(ops.logical_not(x > 0), "f32"),
                 ops.sum(ops.expand_dims(x, 0), 0), ops.squeeze(ops.reshape(x, (1, 6)), 0),
                 ops.prod(ops.broadcast_to(ops.ravel(x), (1, 6)), 0),
                 ops.mean(ops.full_like(x, 2.0)) * ops.ones_like(x) + ops.zeros_like(x),
                 (ops.max(x) + ops.min(x) + ops.asarray(3, dtype="f32") + ops.asarray([1.0]))
                 * ops.ones(6),
                 ops.astype(ops.argmax(x) + ops.argmin(x), "f32") * ops.ones(6)]
        ints_ = [ops.bitwise_and(a, 3), ops.bitwise_or(a, 3), ops.bitwise_xor(a, 3),
                 ops.left_shift(a, 1), ops.right_shift(a, 1), ops.invert(a)]
        cmps = [ops.equal(x, 1), ops.not_equal(x, 1), ops.less(x, 1), ops.less_equal(x, 1),
                ops.greater(x, 1), ops.greater_equal(x, 1)]
        return (ops.concatenate(parts), ops.concatenate(ints_), ops.concatenate(cmps))

    def ref(x, a):
        parts = [x + 1, x - 1, x * 2, x / 2, x / 4, x // 1, x % 1.5, x % 1.5, np.abs(x) ** 0.5,
                 -x, np.abs(x), (~(x > 0)).astype(float), x, x, x, np.full(6, 2.0),
                 np.full(6, x.max() + x.min() + 3 + 1), np.full(6, x.argmax() + x.argmin())]
        ints_ = [a & 3, a | 3, a ^ 3, a << 1, a >> 1, ~a]
        cmps = [x == 1, x != 1, x < 1, x <= 1, x > 1, x >= 1]
        return np.concatenate(parts), np.concatenate(ints_), np.concatenate(cmps)

    x, a = halves(6), ints(6)
    jitted = accy.jit(fn)
    module = jitted.lower(x, a)
    check_module(module)
    assert [t.dtype for t in result_types(module)] == ["f32", "i32", "i1"]
    got = jitted(x, a)
    assert isinstance(got, tuple)
    for got, want, dtype in zip(got, ref(to64(x), a), ("f32", "i32", "i1")):
        compare(got, want, dtype)


def test_negative_step_slices_reverse_and_int_indices_reshape():
    text = accy.jit(lambda x: x[::-1, 2]).lower(rand(4, 5)).print()
    assert "tensor.reverse" in text and "tensor.slice" in text and "tensor.reshape" in text


def test_broadcast_goes_through_broadcast_in_dim():
    module = accy.jit(lambda x, y: x * y).lower(rand(3, 1), rand(4))
    ops_ = [op.name for op in next(iter(module.body.operations)).regions[0].blocks[0].operations]
    assert ops_.count("tensor.broadcast_in_dim") == 2 and "tensor.multiply" in ops_


def test_decompositions_use_primitive_ops():
    text = accy.jit(lambda x: (ops.softmax(x), ops.log_softmax(x), ops.layer_norm(x),
                               ops.rms_norm(x), ops.gelu(x))).lower(rand(2, 4)).print()
    for name in ("tensor.reduce", "tensor.maximum", "tensor.subtract", "tensor.exp",
                 "tensor.divide", "tensor.log", "tensor.rsqrt", "tensor.erf"):
        assert name in text
    assert "softmax" not in text and "norm" not in text


# ---- f16 / bf16 accumulation ---------------------------------------------------------------------

def test_f16_sum_accumulates_in_f32():
    text = accy.jit(lambda x: x.sum()).lower(rand(8, dtype="f16")).print()
    assert "tensor<8xf32>" in text and "tensor.convert" in text
    assert "-> tensor<f16>" in text


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_sum_and_mean_keep_precision_over_long_rows(dtype):
    x = pos(4, 4096, dtype=dtype)
    got_sum, got_mean = accy.jit(lambda x: (x.sum(axis=1), x.mean(axis=1)))(x)
    assert got_sum.dtype == numpy_dtype(dtype)
    compare(got_sum, to64(x).sum(1), dtype)       # an f16 accumulator would be far off by now
    compare(got_mean, to64(x).mean(1), dtype)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_precision_functions(dtype):
    x, w = rand(3, 64, dtype=dtype), rand(64, 8, dtype=dtype)
    got = accy.jit(lambda x, w: (ops.softmax(x), ops.layer_norm(x), x @ w, ops.cumsum(x, 1)))(x, w)
    x64, w64 = to64(x), to64(w)
    want = (softmax64(x64), (x64 - x64.mean(-1, keepdims=True)) /
            np.sqrt(x64.var(-1, keepdims=True) + 1e-5), x64 @ w64, np.cumsum(x64, 1))
    for g, wnt in zip(got, want):
        assert g.dtype == numpy_dtype(dtype)
        compare(g, wnt, dtype, rtol={"f16": 1e-2, "bf16": 5e-2}[dtype])


# ---- promotion -----------------------------------------------------------------------------------

def test_promotion_table_matches_docs():
    doc = (pathlib.Path(__file__).parent.parent / "docs" / "frontend.md").read_text()
    rows = re.findall(r"^\| \*\*(\w+)\*\* \|(.*)\|$", doc, re.M)
    assert [r[0] for r in rows] == DTYPES
    for a, cells in rows:
        assert [c.strip() for c in cells.split("|")] == [join(a, b) for b in DTYPES]


@pytest.mark.parametrize("a, b, want", [
    ("u8", "i8", "i16"), ("f16", "bf16", "f32"), ("i64", "f16", "f16"), ("i32", "bf16", "bf16"),
    ("i1", "u8", "u8"), ("i1", "i1", "i1"), ("u8", "i32", "i32"), ("i8", "i64", "i64"),
    ("f32", "f64", "f64"), ("bf16", "i8", "bf16"),
])
def test_lattice_pairs(a, b, want):
    assert join(a, b) == want == join(b, a)


@given(st.sampled_from(DTYPES), st.sampled_from(DTYPES), st.sampled_from(DTYPES))
def test_lattice_is_a_join_semilattice(a, b, c):
    assert join(a, a) == a
    assert join(a, b) == join(b, a)
    assert join(join(a, b), c) == join(a, join(b, c))
    j = join(a, b)
    assert j in UPPER[a] and j in UPPER[b]
    assert all(d in UPPER[j] for d in UPPER[a] & UPPER[b])  # least: below every common bound


@pytest.mark.parametrize("operands, want", [
    (("u8", int), "u8"), (("i8", int), "i8"), (("f16", int), "f16"), (("i1", int), "i32"),
    (("i1", bool), "i1"), (("f32", bool), "f32"), (("u8", bool), "u8"),
    (("i8", float), "f32"), (("i1", float), "f32"), (("f16", float), "f16"),
    (("bf16", float), "bf16"), (("i64", float), "f32"), (("f64", float), "f64"),
    ((int,), "i32"), ((float,), "f32"), ((bool,), "i1"), ((int, float), "f32"),
    ((bool, int), "i32"), (("u8", "i8", int), "i16"),
])
def test_weak_scalars(operands, want):
    assert result_dtype(*operands) == want


@pytest.mark.parametrize("fn, arg, want", [
    (lambda x: x + 1, ints(3, dtype="u8"), "u8"),
    (lambda x: x * 2.0, rand(3, dtype="f16"), "f16"),
    (lambda x: x * 2.0, rand(3, dtype="bf16"), "bf16"),
    (lambda x: x + 0.5, ints(3, dtype="i8"), "f32"),
    (lambda x: x + 1, bools(3), "i32"),
    (lambda x: x & True, bools(3), "i1"),
    (lambda x: x / 2, ints(3), "f32"),
    (lambda x: x + x.astype("i8"), ints(3, dtype="u8"), "i16"),
    (lambda x: x + np.float64(1.0), rand(3), "f64"),          # numpy scalars are strong
    (lambda x: x + np.ones(3, np.float16), rand(3, dtype="bf16"), "f32"),
    (lambda x: ops.exp(x), ints(3, dtype="i16"), "f32"),
    (lambda x: ops.maximum(1, 2.5) + x, ints(3, dtype="i8"), "f32"),
    (lambda x: x.astype(bool), rand(3), "i1"),
    (lambda x: x.astype(np.float16), rand(3), "f16"),
])
def test_traced_promotion(fn, arg, want):
    (out,) = result_types(accy.jit(fn).lower(arg))
    assert out.dtype == want


def _constants(module):
    return [op.attributes["value"].array for op in module.walk() if op.name == "tensor.constant"]


@pytest.mark.parametrize("a, b, dtype", [(0.0, -0.0, "f32"), (1, True, "i32"), (1, 1.0, "f16"),
                                          (2.5, 2.5000000000000004, "f64")])
def test_weak_scalar_constants_keep_their_exact_value(a, b, dtype):
    """A weak scalar's constant is made once per exact value: numbers that compare equal in
    Python (0.0 and -0.0, 1 and True and 1.0) still give their own constants, traced in
    either order."""
    x = rand(3, dtype=dtype)
    for first, second in ((a, b), (b, a)):
        for scalar in (first, second):
            (c,) = _constants(accy.jit(lambda x: x * scalar).lower(x))
            want = convert(np.asarray(scalar), dtype)
            assert c.dtype == want.dtype and c.tobytes() == want.tobytes(), (scalar, c)


def test_weak_nan_and_inf_constants():
    x = rand(3)
    for scalar in (math.nan, -math.nan, math.inf, -math.inf):
        (c,) = _constants(accy.jit(lambda x: x + scalar).lower(x))
        assert c.tobytes() == np.float32(scalar).tobytes()


def test_reduction_identities_are_fresh_per_dtype():
    """The init constants of named reductions, shared between traces, hold each dtype's
    identity."""
    for x, want in ((rand(4, 2), -np.inf), (ints(4, 2), np.iinfo(np.int32).min),
                    (ints(4, 2, dtype="i8"), -128), (rand(4, 2, dtype="f16"), -np.inf)):
        (init,) = _constants(accy.jit(lambda x: x.max(axis=0)).lower(x))
        assert init.dtype == x.dtype and init == want


def test_python_scalar_arguments_take_default_dtypes():
    module = accy.jit(lambda a, b, c, x: x).lower(1.5, 2, True, np.float16(1))
    (func,) = module.body.operations
    assert [str(t) for t in func.attributes["function_type"].inputs] == [
        "tensor<f32>", "tensor<i32>", "tensor<i1>", "tensor<f16>"]


# ---- jit cache -----------------------------------------------------------------------------------

def test_jit_cache_reuses_per_signature():
    traces = []

    def fn(x, y):
        traces.append(x.shape)
        return [x * y, x + y]

    f = accy.jit(fn)
    x, y = rand(3, 4), rand(4)
    out, s = f(x, y)
    compare(out, to64(x) * y, "f32")
    compare(s, to64(x) + y, "f32")
    f(rand(3, 4), rand(4))
    assert len(traces) == 1 and f.cache_info() == (1, 1, 1)
    f(rand(2, 4), rand(4))                        # new shape: traced again
    f(rand(3, 4).astype(np.float64), rand(4))     # new dtype: traced again
    assert len(traces) == 3 and f.cache_info() == (1, 3, 3)
    assert isinstance(f(x, y), list)


def test_lower_traces_fresh_and_wraps():
    def model(x):
        """Doubles."""
        return x * 2

    f = accy.jit(model)
    assert f.__name__ == "model" and f.__doc__ == "Doubles." and f.__wrapped__ is model
    a, b = f.lower(rand(2)), f.lower(rand(2))
    assert a is not b and a.print() == b.print()
    assert f.cache_info().size == 0


# ---- errors --------------------------------------------------------------------------------------

def raises_at(fn, args, exc, *fragments, line_of=None):
    """Tracing `fn` raises `exc` naming the fragments and the first body line of `line_of`."""
    with pytest.raises(exc) as info:
        accy.jit(fn).lower(*args)
    message = str(info.value)
    line = (line_of or fn).__code__.co_firstlineno + 1
    assert f"(at test_frontend.py:{line})" in message, message
    for fragment in fragments:
        assert fragment in message, message
    return info.value


def test_broadcast_mismatch_is_a_shape_error_at_the_user_line():
    def bad(x, y):
        return x + y
    err = raises_at(bad, (rand(3, 4), rand(5)), accy.ShapeError, "'tensor.add'", "(3, 4)")
    assert isinstance(err, ValueError)


def test_dtype_class_mismatch_is_a_type_error():
    def bad(x, y):
        return x & y
    err = raises_at(bad, (rand(3), rand(3)), accy.TypeError, "'tensor.and'", "f32")
    assert isinstance(err, TypeError)


def test_matmul_mismatch_names_matmul():
    def bad(x, y):
        return x @ y
    raises_at(bad, (rand(3, 4), rand(5, 6)), accy.ShapeError, "'matmul'", "(3, 4) @ (5, 6)")


def test_matmul_of_bools_is_a_type_error():
    def bad(x, y):
        return ops.matmul(x, y)
    raises_at(bad, (bools(3, 4), bools(4, 2)), accy.TypeError, "'matmul'")


def test_error_in_a_loop_body_names_the_body_line():
    def body(v):
        return v + np.ones(7, np.float32)

    def fn(x):
        return ops.while_loop(lambda v: v.sum() < 3.0, body, x)
    raises_at(fn, (rand(3),), accy.ShapeError, "'tensor.add'", line_of=body)


def test_loop_body_with_the_wrong_type():
    def fn(x):
        return ops.fori_loop(0, 3, lambda i, v: v.astype("f16"), x)
    raises_at(fn, (rand(3),), accy.TypeError, "'fori_loop'", "tensor<3xf16>")


@pytest.mark.parametrize("fn, args, exc, fragment", [
    (lambda x: x.sum(axis=2), (rand(3, 4),), accy.ShapeError, "'sum' axis 2"),
    (lambda x: x.max(axis=(0, -2)), (rand(3, 4),), accy.ShapeError, "'max' repeats"),
    (lambda x: x[3], (rand(3, 4),), accy.ShapeError, "'getitem' index 3"),
    (lambda x: x[0, 0, 0], (rand(3, 4),), accy.ShapeError, "'getitem' has 3 indices"),
    (lambda x: x[..., ...], (rand(3, 4),), accy.ShapeError, "one Ellipsis"),
    (lambda x: x[x > 0], (rand(3, 4),), accy.TypeError, "boolean masks are not supported"),
    (lambda x: x.reshape(5, -1), (rand(3, 4),), accy.ShapeError, "'reshape'"),
    (lambda x: x.reshape(-1, -1), (rand(3, 4),), accy.ShapeError, "'reshape'"),
    (lambda x: x.reshape(7), (rand(3, 4),), accy.ShapeError, "'reshape'"),
    (lambda x: x.astype("complex64"), (rand(3),), accy.TypeError, "'complex64'"),
    (lambda x: ops.transpose(x, (0, 0)), (rand(3, 4),), accy.ShapeError, "'transpose'"),
    (lambda x: ops.concatenate([]), (rand(3),), accy.ShapeError, "'concatenate'"),
    (lambda x: ops.concatenate([x, x[None]]), (rand(3),), accy.ShapeError, "'tensor.concatenate'"),
    (lambda x: ops.pad(x, -1), (rand(3),), accy.ShapeError, "'pad'"),
    (lambda x: ops.pad(x, ((1, 2, 3),)), (rand(3),), accy.ShapeError, "'pad'"),
    (lambda x: ops.take(x, x), (rand(3),), accy.TypeError, "'take' indices"),
    (lambda x: ops.take_along_axis(x, np.zeros(2, np.int32), 0), (rand(3, 2),), accy.ShapeError, "'take_along_axis'"),
    (lambda x: ops.einsum("ii->i", x), (rand(3, 3),), accy.ShapeError, "repeats"),
    (lambda x: ops.einsum("...i->i", x), (rand(3, 3),), accy.ShapeError, "ellipsis"),
    (lambda x: ops.einsum("ij,jk,kl->il", x, x, x), (rand(3, 3),), accy.ShapeError, "'einsum'"),
    (lambda x: ops.einsum("ij,jk->ik", x, x), (rand(3, 4),), accy.ShapeError, "'einsum' index 'j'"),
    (lambda x: ops.einsum("ij->k", x), (rand(3, 4),), accy.ShapeError, "output index"),
    (lambda x: ops.attention(x, x, x), (rand(3, 4),), accy.ShapeError, "'attention'"),
    (lambda x: ops.layer_norm(x, np.ones(3, np.float32)), (rand(2, 4),), accy.ShapeError, "'layer_norm'"),
    (lambda x: x + 300, (ints(3, dtype="u8"),), accy.TypeError, "300 does not fit u8"),
    (lambda x: x + "a", (rand(3),), accy.TypeError, "str"),
    (lambda x: ops.take(x, [x[0], 1]), (rand(3),), accy.TypeError, "list of Tensors"),
    (lambda x: ops.where(x, x, x) if x else x, (rand(3),), accy.TypeError, "truth value"),
    (lambda x: ops.while_loop(lambda v: v, lambda v: v, x), (rand(3),), accy.TypeError, "boolean scalar"),
    (lambda x: ops.fori_loop(0.5, 3, lambda i, v: v, x), (rand(3),), accy.TypeError, "integers"),
])
def test_bad_input_raises_accy_errors(fn, args, exc, fragment):
    with pytest.raises(exc) as info:
        accy.jit(fn).lower(*args)
    assert fragment in str(info.value)
    assert "(at test_frontend.py:" in str(info.value)


def test_ops_outside_a_trace_raise_a_clear_error():
    with pytest.raises(accy.AccyError, match="only while accy.jit traces"):
        ops.exp(np.ones(3, np.float32))


def test_jit_rejects_unknown_argument_dtypes():
    with pytest.raises(accy.TypeError, match="complex128"):
        accy.jit(lambda x: x).lower(np.ones(2, complex))


# ---- property test: random broadcast graphs ------------------------------------------------------

# name -> (arity, accy function, numpy float64 function); values stay bounded so f32 stays close
GRAPH_OPS = {
    "add": (2, lambda a, b: a + b, np.add),
    "sub": (2, lambda a, b: a - b, np.subtract),
    "mul": (2, lambda a, b: a * b, np.multiply),
    "div": (2, lambda a, b: a / (abs(b) + 1.0), lambda a, b: a / (np.abs(b) + 1.0)),
    "max": (2, ops.maximum, np.maximum),
    "min": (2, ops.minimum, np.minimum),
    "select": (2, lambda a, b: ops.where(a > b, a, b * 0.5), lambda a, b: np.where(a > b, a, b * 0.5)),
    "neg": (1, lambda a: -a, np.negative),
    "tanh": (1, ops.tanh, np.tanh),
    "sin": (1, ops.sin, np.sin),
    "abs": (1, abs, np.abs),
    "sigmoid": (1, ops.sigmoid, lambda a: 1 / (1 + np.exp(-a))),
    "scale": (1, lambda a: a * 0.75 + 0.5, lambda a: a * 0.75 + 0.5),
    "rsub": (1, lambda a: 1 - a, lambda a: 1 - a),
}


@st.composite
def graphs(draw):
    rank = draw(st.integers(0, 3))
    base = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    shapes = []
    for _ in range(draw(st.integers(1, 3))):
        suffix = base[rank - draw(st.integers(0, rank)):]
        shapes.append(tuple(d if draw(st.booleans()) else 1 for d in suffix))
    steps = draw(st.lists(st.tuples(st.sampled_from(sorted(GRAPH_OPS)), st.integers(0, 99),
                                    st.integers(0, 99)), min_size=1, max_size=8))
    return shapes, steps


def run_graph(steps, inputs, which):
    values = list(inputs)
    for name, i, j in steps:
        arity, fns = GRAPH_OPS[name][0], GRAPH_OPS[name][1:]
        operands = [values[i % len(values)], values[j % len(values)]][:arity]
        values.append(fns[which](*operands))
    return values[-1]


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_random_broadcast_graphs_match_numpy(graph):
    shapes, steps = graph
    inputs = [rand(*s) for s in shapes]
    want = run_graph(steps, [to64(x) for x in inputs], 1)
    fn = accy.jit(lambda *xs: run_graph(steps, xs, 0))
    module = fn.lower(*inputs)
    check_module(module)
    (out,) = result_types(module)
    assert out.shape == np.shape(want) and out.dtype == "f32"
    compare(fn(*inputs), want, "f32", rtol=1e-4)


# ---- indexing: bools refused, one integer array gathered -----------------------------------------

@pytest.mark.parametrize("index", [True, False, np.True_, (0, True), "mask"])
def test_bool_indices_are_refused(index):
    def fn(x):
        return x[x > 0] if index == "mask" else x[index]
    raises_at(fn, (rand(3, 4),), accy.TypeError, "'getitem'",
              "boolean masks are not supported in static indexing")


def _array_index_cases():
    """Index tuples for a (2, 3, 4) array with one integer array (fresh, negatives included)."""
    a2, a3, a4 = RNG.integers(-2, 2, 3), RNG.integers(-3, 3, 4), RNG.integers(-4, 4, (2, 3))
    return [(a2,), (slice(None), a3), (0, slice(None), a4), (Ellipsis, a4), (a2, 1),
            (a2, slice(None), 0), (0, Ellipsis, a4[0]), (0, Ellipsis, 1, a4),
            (None, a2, slice(1, None)), (slice(None), None, a3),
            (slice(None, None, -1), [int(i) for i in a3], 2), (0, None, a3)]


@pytest.mark.parametrize("k", range(12))
def test_integer_array_index_matches_numpy(k):
    x = rand(2, 3, 4)
    index = _array_index_cases()[k]
    compare(accy.jit(lambda x: x[index])(x), to64(x)[index], "f32")


def test_tensor_index_gathers():
    x, t = rand(5, 3), RNG.integers(-5, 5, (2, 4)).astype(np.int8)
    got, row = accy.jit(lambda x, t, i: (x[t], x[i, 1:]))(x, t, np.int32(-2))
    compare(got, to64(x)[t], "f32")
    compare(row, to64(x)[-2, 1:], "f32")


# ---- fori_loop counts in the bounds' dtype -------------------------------------------------------

def test_fori_loop_counts_in_i64_for_i64_bounds():
    seen = []

    def fn(x, n):
        def body(i, v):
            seen.append(i.dtype)
            return v + i
        return ops.fori_loop(2 ** 31 - 1, n, body, x)
    extra = int(RNG.integers(1, 5))
    got = accy.jit(fn)(np.int64(0), np.int64(2 ** 31 - 1 + extra))    # an i32 bound would wrap
    assert seen == ["i64"] and got == sum(range(2 ** 31 - 1, 2 ** 31 - 1 + extra))


@pytest.mark.parametrize("bounds, want", [
    ((0, 3), "i32"), ((np.int8(0), np.int16(3)), "i32"), ((np.uint8(0), 3), "i32"),
    ((0, np.int64(3)), "i64"), ((np.int64(0), np.int32(3)), "i64"), ((0, 2 ** 40), "i64"),
])
def test_fori_loop_counter_dtype(bounds, want):
    seen = []

    def fn(x):
        return ops.fori_loop(*bounds, lambda i, v: seen.append(i.dtype) or v, x)
    accy.jit(fn).lower(rand(2))
    assert seen == [want]


@pytest.mark.parametrize("bound, exc, fragment", [
    (np.zeros(2, np.int32), accy.ShapeError, "bounds must be scalars"),
    (3.0, accy.TypeError, "bounds must be integers"),
    (np.float32(3), accy.TypeError, "bounds must be integers"),
    (True, accy.TypeError, "bounds must be integers"),
])
def test_fori_loop_bad_bounds(bound, exc, fragment):
    def fn(x):
        return ops.fori_loop(0, bound, lambda i, v: v, x)
    raises_at(fn, (rand(2),), exc, "'fori_loop'", fragment)


def test_loop_errors_speak_of_init_val():
    def wrong_type(x):
        return ops.fori_loop(0, 3, lambda i, v: (v[0].astype("f16"), v[1]), (x, x))
    raises_at(wrong_type, (rand(3),), accy.TypeError,
              "body_fun returned tensor<3xf16> for init_val[0], which is tensor<3xf32>")

    def wrong_count(x):
        return ops.fori_loop(0, 3, lambda i, v: (v[0], v[1], v[0]), (x, x))
    raises_at(wrong_count, (rand(3),), accy.TypeError,
              "'fori_loop' body_fun must return init_val's structure (2 values), got 3")


# ---- Python numbers become constants by tensor.convert's rule ------------------------------------

def convert64(v, dtype):
    """tensor.convert of a float into an int dtype: truncate, saturate, NaN -> 0."""
    info = np.iinfo(numpy_dtype(dtype))
    if math.isnan(v):
        return 0
    return int(info.max) if v >= info.max else int(info.min) if v <= info.min else math.trunc(v)


@pytest.mark.parametrize("dtype", ["u8", "i8", "i16", "i32", "i64"])
def test_float_constants_into_ints_truncate_and_saturate(dtype):
    values = [float(v) for v in RNG.uniform(-1, 1, 4) * 10.0 ** RNG.integers(0, 21, 4)]
    values += [1e20, -1e20, float("nan"), float("inf"), -float("inf"), 300.7, -0.9]

    def fn(x):
        return [ops.asarray(v, dtype=dtype) for v in values] + [
            ops.full((2,), values[0], dtype=dtype), ops.astype(values[1], dtype),
            ops.pad(x, 1, constant_values=values[2])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no RuntimeWarning from a raw numpy cast
        got = accy.jit(fn)(ints(2, dtype=dtype))
    want = [convert64(v, dtype) for v in values]
    assert [int(g) for g in got[:len(values)]] == want
    assert got[-3].tolist() == [want[0]] * 2 and int(got[-2]) == want[1]
    assert got[-1][0] == got[-1][-1] == want[2]


def test_python_float_to_bf16_rounds_once():
    v = 1 + 2 ** -8 + 2 ** -30           # via f32 it is a tie and rounds to even (1.0)
    got = accy.jit(lambda x: (ops.asarray(v, dtype="bf16"), x * v))(np.ones(1, numpy_dtype("bf16")))
    assert float(got[0]) == float(got[1][0]) == 1 + 2 ** -7


# ---- // and % are numpy's ------------------------------------------------------------------------

def _division_operands(dtype):
    n = 32
    x = RNG.uniform(-10, 10, n) * RNG.choice([1, 1e-3, 1e3], n)
    y = RNG.uniform(-3, 3, n)
    y[:8] = RNG.choice([0.1, -0.1, 0.3, 0.7, -0.7], 8)
    x[:8] = RNG.integers(-9, 9, 8)
    x[8:14], y[8:14] = [np.inf, -np.inf, np.nan, 0.0, -0.0, -0.0], [2.0, 3.0, 1.0, -3.0, 3.0, 0.0]
    y[14:17] = [0.0, -0.0, np.nan]
    y[17:19] = [np.inf, -np.inf]
    return x.astype(numpy_dtype(dtype)), y.astype(numpy_dtype(dtype))


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32", "f64"])
def test_float_floor_divide_and_remainder_match_numpy(dtype):
    x, y = _division_operands(dtype)
    got_q, got_r = accy.jit(lambda x, y: (x // y, x % y))(x, y)
    with np.errstate(all="ignore"):
        want_q, want_r = x // y, x % y
    for got, want in ((got_q, want_q), (got_r, want_r)):
        assert got.dtype == want.dtype
        got, want = to64(got), to64(want)
        np.testing.assert_array_equal(got, want)
        number = ~np.isnan(want)                    # signed zeros too (a NaN's sign is no matter)
        assert (np.signbit(got[number]) == np.signbit(want[number])).all()


@pytest.mark.parametrize("dtype", ["u8", "i8", "i16", "i32", "i64"])
def test_int_floor_divide_and_remainder_match_numpy(dtype):
    info = np.iinfo(numpy_dtype(dtype))
    x = RNG.integers(info.min, int(info.max) + 1, 40, dtype=numpy_dtype(dtype))
    y = RNG.integers(info.min, int(info.max) + 1, 40, dtype=numpy_dtype(dtype))
    y[:10] = RNG.integers(max(info.min, -5), 6, 10)
    y[10:14] = 0
    x[14], y[14] = info.min, -1 if info.min else 1        # wraps to INT_MIN in numpy
    got_q, got_r = accy.jit(lambda x, y: (x // y, x % y))(x, y)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got_q, x // y)
        np.testing.assert_array_equal(got_r, x % y)


# ---- attention masks in the compute dtype --------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("fill", [-1e6, -1e9, float(np.finfo(np.float32).min), "bool"])
def test_half_attention_with_a_fully_masked_row(dtype, fill):
    q, k, v = (rand(1, 2, s, 4, dtype=dtype) for s in (3, 5, 5))
    mask = rand(3, 5)
    if fill == "bool":
        mask = np.ones((3, 5), bool)
        mask[1] = False
        added = np.where(mask, np.float32(0), np.float32(-np.inf))
    else:
        mask[1] = fill
        added = mask
    got = accy.jit(ops.attention)(q, k, v, mask)
    # the op's semantics: f32 scores plus the f32 mask, softmax, p in v's dtype
    q64, k64, v64 = map(to64, (q, k, v))
    s = (np.einsum("bhqd,bhkd->bhqk", q64, k64).astype(np.float32) * np.float32(0.5) + added)
    with np.errstate(invalid="ignore"):
        p = softmax64(s.astype(np.float64))
    want = to64(p.astype(numpy_dtype(dtype))) @ v64
    if fill == "bool":
        assert np.isnan(got[0, :, 1].astype(np.float64)).all()    # all -inf: NaN, as softmax
        got, want = got[0, :, [0, 2]], want[0, :, [0, 2]]
    else:
        assert np.isfinite(got.astype(np.float64)).all()
    compare(got, want, dtype, rtol={"f16": 2e-3, "bf16": 2e-2}[dtype])
    if fill in (-1e9, float(np.finfo(np.float32).min)):     # the mask swamps the scores
        compare(got[0, :, 1], v64[0].mean(1), dtype, rtol={"f16": 2e-3, "bf16": 2e-2}[dtype])


def test_attention_scale_must_be_a_number():
    def fn(q):
        return ops.attention(q, q, q, scale="x")
    raises_at(fn, (rand(1, 1, 2, 4),), accy.TypeError, "'attention' scale")


# ---- arange honours dtype ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["i32", "i8", "i64", "f16", "f32", "f64", "i1"])
def test_arange_with_float_bounds_and_a_dtype(dtype):
    start, step = float(RNG.uniform(-5, 5)), float(RNG.uniform(0.1, 1.5)) * RNG.choice([-1, 1])
    stop = start + step * float(RNG.uniform(2, 12))
    got = accy.jit(lambda: ops.arange(start, stop, step, dtype=dtype))()
    n = len(np.arange(start, stop, step))
    want = convert(start + np.arange(n) * step, dtype)
    assert got.dtype == numpy_dtype(dtype)
    np.testing.assert_array_equal(got, want)
    assert accy.jit(lambda: ops.arange(0.5, 3, dtype="i32"))().tolist() == [0, 1, 2]


# ---- narrow index dtypes, empty reductions -------------------------------------------------------

def test_narrow_int_indices_widen_before_wrapping():
    x = rand(200)
    i8 = RNG.integers(-128, 128, 9).astype(np.int8)
    u8 = RNG.integers(0, 200, 9).astype(np.uint8)
    got = accy.jit(lambda x, a, b: (ops.take(x, a), ops.take(x, b), x[a],
                                    ops.take_along_axis(x[None], a[None], 1)))(x, i8, u8)
    for g, want in zip(got, (x[i8], x[u8], x[i8], x[i8][None])):
        compare(g, to64(want), "f32")


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_reductions_without_identity_refuse_empty_axes(name):
    def fn(x):
        return getattr(x, name)(axis=0)
    raises_at(fn, (np.zeros((0, 3), np.float32),), accy.ShapeError, f"'{name}'", "empty axis")
    accy.jit(lambda x: getattr(x, name)(axis=1)).lower(np.zeros((0, 3), np.float32))  # 0 rows: fine


def test_sum_prod_mean_of_empty_axes():
    x = np.zeros((0, 3), np.float32)
    got = accy.jit(lambda x: (x.sum(0), x.prod(0), x.mean(0)))(x)
    for g, want in zip(got, (np.zeros(3), np.ones(3), np.full(3, np.nan))):   # as numpy
        np.testing.assert_array_equal(g, want)


# ---- narrow ints accumulate in i32 ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["i1", "u8", "i8", "i16", "i32"])
def test_narrow_int_sums_widen_to_i32(dtype):
    x = bools(4, 300) if dtype == "i1" else ints(4, 300, dtype=dtype, high=min(
        100, int(np.iinfo(numpy_dtype(dtype)).max)))
    small = x[:, :3]
    got = accy.jit(lambda x, s: (x.sum(), x.sum(axis=1), ops.cumsum(x, 1), s.prod(axis=1),
                                 ops.cumprod(s, 1), x.mean()))(x, small)
    want = (x.sum(dtype=np.int32), x.sum(1, dtype=np.int32), np.cumsum(x, 1, dtype=np.int32),
            small.prod(1, dtype=np.int32), np.cumprod(small, 1, dtype=np.int32))
    for g, w in zip(got, want):
        assert g.dtype == np.int32
        np.testing.assert_array_equal(g, w)
    assert got[-1].dtype == np.float32
    compare(got[-1], to64(x).mean(), "f32")


# ---- jit arguments -------------------------------------------------------------------------------

def test_python_argument_dtypes():
    f = accy.jit(lambda *args: args)
    big = int(RNG.integers(2 ** 31, 2 ** 40))
    module = f.lower(big, 3, [1, 2], [1.5], [[True]])
    (func,) = module.body.operations
    assert [str(t) for t in func.attributes["function_type"].inputs] == [
        "tensor<i64>", "tensor<i32>", "tensor<2xi64>", "tensor<1xf64>", "tensor<1x1xi1>"]
    assert int(f(big, 3, [1, 2], [1.5], [[True]])[0]) == big


@pytest.mark.parametrize("arg, fragment", [
    (1e300, "beyond f32's range"), (2 ** 70, "does not fit i64"), ([[1, 2], [3]], "rectangular"),
])
def test_bad_python_arguments_are_type_errors(arg, fragment):
    with pytest.raises(accy.TypeError, match=fragment):
        accy.jit(lambda x: x)(arg)


# ---- errors name the op and the user's terms -----------------------------------------------------

@pytest.mark.parametrize("fn, exc, fragment", [
    (lambda x: x + 300, accy.TypeError, "'tensor.add' the Python int 300 does not fit u8"),
    (lambda x: ops.zeros((-1,)), accy.ShapeError, "'zeros' shape (-1,) has a negative size"),
    (lambda x: ops.full((2,), 256, dtype="u8"), accy.TypeError, "'full' the Python int 256"),
    (lambda x: x << x, accy.TypeError, "'tensor.shift_left'"),
    (lambda x: ops.arange(0, float("inf")), accy.ShapeError, "'arange'"),
])
def test_errors_name_the_op(fn, exc, fragment):
    arg = bools(3) if fragment == "'tensor.shift_left'" else ints(3, dtype="u8")
    with pytest.raises(exc) as info:
        accy.jit(fn).lower(arg)
    assert fragment in str(info.value) and "(at test_frontend.py:" in str(info.value)


def test_a_tensor_from_another_trace_is_refused():
    kept = []
    accy.jit(lambda x: kept.append(x * 2) or x).lower(rand(3))

    def later(x):
        return x + kept[0]
    raises_at(later, (rand(3),), accy.TypeError, "another accy.jit trace")


def test_a_loop_body_tensor_used_after_the_loop_is_refused():
    inner = []

    def fn(x):
        return ops.fori_loop(0, 3, lambda i, v: inner.append(v * 2) or v, x) + inner[0]
    raises_at(fn, (rand(3),), accy.TypeError, "inside a loop body that has finished")


def test_a_failed_loop_body_leaves_no_op_behind():
    def fn(x):
        try:
            ops.while_loop(lambda v: v.sum() < 3.0, lambda v: v + np.ones(7, np.float32), x)
        except accy.ShapeError:
            pass
        return x * 2
    x = rand(3)
    module = accy.jit(fn).lower(x)
    check_module(module)
    assert "tensor.iterate" not in module.print()
    compare(accy.jit(fn)(x), to64(x) * 2, "f32")
