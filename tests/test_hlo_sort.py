"""tensor.sort (docs/tensor-ops.md): the reference against numpy's stable sorts (ascending with
NaN last, descending, several operands sorted by the first as argsort does, a comparator on
the second operand, one reading a value from outside); the compiled `rank` kernel on the
emulator against the reference bit for bit (no host fallback) with every PTX text assembled
by ptxas; the frontend's sort and argsort against numpy."""
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.ir import TensorType

from tensor_helpers import NP, assert_bits, module_of, random_array


def ascending(e, a, b, *rest):
    """numpy's order: a < b, or b is NaN and a is not."""
    less = e.compare(a, b, "LT")
    if a.type.dtype not in ("f64", "f32", "f16", "bf16"):
        return less
    return e.op("tensor.or", less, e.op("tensor.and", e.compare(b, b, "NE"),
                                        e.compare(a, a, "EQ")))


def descending(e, a, b, *rest):
    return e.compare(a, b, "GT")


def by_second(e, a, b, c, d):
    return e.compare(c, d, "LT")


def sort_module(types, axis, comparator, with_iota=False):
    def build(e, *xs):
        inputs = list(xs)
        if with_iota:
            inputs.append(e.op("tensor.iota", iota_dimension=axis,
                               result_type=TensorType("i32", xs[0].type.shape)))
        return list(e.sort(inputs, axis, comparator))
    return module_of(types, build)


def draw(rng, dtype, shape):
    """Random values with repeats (ties to keep in order) and the dtype's edges."""
    x = random_array(rng, dtype, shape)
    flat = x.reshape(-1)
    if flat.size > 4:
        flat[rng.integers(0, flat.size, flat.size // 4)] = flat[0]
    return x


def run(m, *arrays):
    return accy.reference.run(m, *arrays)


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f64", "i32", "u8", "i1"])
@pytest.mark.parametrize("shape,axis", [((9,), 0), ((4, 11), 1), ((6, 3, 5), 0), ((3, 0), 1)],
                         ids=str)
def test_reference_ascending_with_indices_is_numpys_stable_argsort(dtype, shape, axis, rng):
    x = draw(rng, dtype, shape)
    values, index = run(sort_module([TensorType(dtype, shape)], axis, ascending, True), x)
    want = np.argsort(x, axis=axis, kind="stable")
    assert_bits(index, want.astype(np.int32))
    assert_bits(values, np.take_along_axis(x, want, axis))


@pytest.mark.parametrize("dtype", ["f16", "i64"])
def test_reference_descending_keeps_ties_in_order(dtype, rng):
    x = np.round(rng.standard_normal((5, 17)) * 3).astype(NP[dtype])
    _, index = run(sort_module([TensorType(dtype, x.shape)], 1, descending, True), x)
    want = np.argsort(-x.astype(np.float64), axis=1, kind="stable")     # stable on -x
    assert_bits(index, want.astype(np.int32))


def test_reference_sorts_by_a_second_operand_and_reads_outside_values(rng):
    keys = rng.integers(0, 5, (3, 12)).astype(np.int32)
    vals = rng.standard_normal((3, 12)).astype(np.float32)
    a, b = run(sort_module([TensorType("f32", (3, 12)), TensorType("i32", (3, 12))], 1,
                           by_second), vals, keys)
    order = np.argsort(keys, axis=1, kind="stable")
    assert_bits(a, np.take_along_axis(vals, order, 1))
    assert_bits(b, np.take_along_axis(keys, order, 1))

    def build(e, x, t):                     # |x - t| ascending, t defined outside the region
        def near(e, a, b):
            da = e.op("tensor.abs", e.op("tensor.subtract", a, t))
            db = e.op("tensor.abs", e.op("tensor.subtract", b, t))
            return e.compare(da, db, "LT")
        return list(e.sort([x], 0, near))
    x, t = rng.standard_normal(20).astype(np.float32), np.float32(0.3)
    (got,) = run(module_of([TensorType("f32", (20,)), TensorType("f32", ())], build), x, t)
    assert_bits(got, x[np.argsort(np.abs(x - t), kind="stable")])


# ---- compiled ---------------------------------------------------------------------------------

def check(m, arrays, ptxas):
    exe = accy.compile(m)
    assert not exe.fallbacks, exe.report()
    assert "rank" in [k.schedule for k in exe.kernels if k.kind == "sort"]
    ptxas(exe.ptx)
    got, want = exe.run(*arrays, device="emulator"), exe.run(*arrays, device="reference")
    for g, w in zip(got, want):
        assert_bits(g, w)


@pytest.mark.parametrize("dtype", ["f32", "f16", "i64", "i8", "i1"])
@pytest.mark.parametrize("shape,axis", [((37,), 0), ((5, 33), 1), ((33, 2, 3), 0)], ids=str)
def test_emulated_sort_with_indices(dtype, shape, axis, rng, ptxas):
    x = draw(rng, dtype, shape)
    check(sort_module([TensorType(dtype, shape)], axis, ascending, True), [x], ptxas)


def test_emulated_comparators_on_other_operands_and_outside_values(rng, ptxas):
    keys = rng.integers(0, 5, (3, 40)).astype(np.int32)
    vals = rng.standard_normal((3, 40)).astype(np.float32)
    check(sort_module([TensorType("f32", (3, 40)), TensorType("i32", (3, 40))], 1, by_second),
          [vals, keys], ptxas)

    def build(e, x, t):
        def near(e, a, b):
            return e.compare(e.op("tensor.abs", e.op("tensor.subtract", a, t)),
                             e.op("tensor.abs", e.op("tensor.subtract", b, t)), "LT")
        return list(e.sort([x], 0, near))
    m = module_of([TensorType("f32", (50,)), TensorType("f32", ())], build)
    check(m, [rng.standard_normal(50).astype(np.float32), np.float32(-0.2)], ptxas)


def test_frontend_sort_and_argsort(rng, ptxas):
    x = rng.standard_normal((6, 45)).astype(np.float32)
    x[1, 3], x[2, :10] = np.nan, 0.5

    def fn(x):
        return ops.sort(x * 2.0) + 1.0, ops.argsort(x, axis=0), ops.sort(x, axis=None)
    exe = accy.compile(fn, x)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    a, b, c = exe.run(x, device="emulator")
    assert_bits(a, np.sort(x * 2.0, axis=-1) + np.float32(1.0))
    assert_bits(b, np.argsort(x, axis=0, kind="stable").astype(np.int32))
    assert_bits(c, np.sort(x, axis=None))
