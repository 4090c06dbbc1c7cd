"""tensor.scatter (docs/tensor-ops.md): the reference against numpy (assignment in index order
for `set`, np.add.at for integer `add`, a sequential f64-free fold for float `add`, a max
body), out-of-range indices skipped and repeats applied in order; the compiled `gather` kernel
on the emulator against the reference bit for bit (no host fallback) with ptxas assembling
every text; the frontend's scatter (JAX's x.at[i].set/add) against numpy."""
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.ir import TensorType

from tensor_helpers import NP, assert_bits, module_of, random_array

CASES = [((6, 4), (5,), 0), ((3, 7), (2, 4), 1), ((2, 5, 3), (), 1), ((4,), (9,), 0),
         ((3, 4), (0,), 0)]


def scatter_module(dtype, shape, ishape, axis, update, idt="i32"):
    ushape = shape[:axis] + ishape + shape[axis + 1:]
    return module_of([TensorType(dtype, shape), TensorType(idt, ishape),
                      TensorType(dtype, ushape)],
                     lambda e, x, i, u: [e.scatter(x, i, u, axis, update)])


def draw(rng, dtype, shape, ishape, axis, idt="i32"):
    x = random_array(rng, dtype, shape, edge_fraction=0.0)
    u = random_array(rng, dtype, shape[:axis] + ishape + shape[axis + 1:], edge_fraction=0.0)
    low = 0 if idt == "u8" else -2
    i = rng.integers(low, shape[axis] + 2, ishape).astype(NP[idt])     # repeats, out of range
    return x, i, u


def expect(x, i, u, axis, combine):
    """Each index in row-major order, skipped out of range, combined into its slice."""
    out = x.copy()
    flat = u.reshape(x.shape[:axis] + (i.size,) + x.shape[axis + 1:])
    for n, k in enumerate(i.reshape(-1).astype(np.int64)):
        if 0 <= k < x.shape[axis]:
            at = (slice(None),) * axis + (k,)
            out[at] = combine(out[at], flat[(slice(None),) * axis + (n,)])
    return out


@pytest.mark.parametrize("shape,ishape,axis", CASES, ids=str)
@pytest.mark.parametrize("dtype", ["f32", "i16"])
def test_reference_set(dtype, shape, ishape, axis, rng):
    x, i, u = draw(rng, dtype, shape, ishape, axis)
    (got,) = accy.reference.run(scatter_module(dtype, shape, ishape, axis, "set"), x, i, u)
    assert_bits(got, expect(x, i, u, axis, lambda old, new: new))


@pytest.mark.parametrize("shape,ishape,axis", CASES, ids=str)
def test_reference_integer_add_is_numpys_add_at(shape, ishape, axis, rng):
    x, i, u = draw(rng, "i32", shape, ishape, axis, "i64")
    (got,) = accy.reference.run(scatter_module("i32", shape, ishape, axis, "add", "i64"),
                                x, i, u)
    want = x.copy()
    keep = (i >= 0) & (i < shape[axis])
    moved = np.moveaxis(u.reshape(shape[:axis] + (i.size,) + shape[axis + 1:]), axis, 0)
    np.add.at(np.moveaxis(want, axis, 0), i.reshape(-1)[keep.reshape(-1)],
              moved[keep.reshape(-1)])
    assert_bits(got, want)


def test_reference_float_add_sums_in_index_order_and_other_bodies(rng):
    x, i, u = draw(rng, "f16", (5, 3), (12,), 0)
    (got,) = accy.reference.run(scatter_module("f16", (5, 3), (12,), 0, "add"), x, i, u)
    assert_bits(got, expect(x, i, u, 0, lambda old, new: (old.astype(np.float64) + new)
                            .astype(np.float16)))      # each f16 sum rounded once
    m = scatter_module("f32", (5, 3), (12,), 0, lambda e, a, b: e.op("tensor.maximum", a, b))
    x, i, u = draw(rng, "f32", (5, 3), (12,), 0)
    (got,) = accy.reference.run(m, x, i, u)
    assert_bits(got, expect(x, i, u, 0, np.maximum))


# ---- compiled ---------------------------------------------------------------------------------

def check(m, arrays, ptxas):
    exe = accy.compile(m)
    assert not exe.fallbacks, exe.report()
    assert [k.schedule for k in exe.kernels if k.kind == "scatter"] == ["gather"]
    ptxas(exe.ptx)
    (got,), (want,) = exe.run(*arrays, device="emulator"), exe.run(*arrays, device="reference")
    assert_bits(got, want)


@pytest.mark.parametrize("shape,ishape,axis", CASES + [((40, 33), (70,), 1)], ids=str)
@pytest.mark.parametrize("dtype,update,idt", [("f32", "add", "i32"), ("bf16", "set", "u8"),
                                              ("i64", "add", "i64"), ("i8", "set", "i32")])
def test_emulated_scatter(dtype, update, idt, shape, ishape, axis, rng, ptxas):
    x, i, u = draw(rng, dtype, shape, ishape, axis, idt)
    check(scatter_module(dtype, shape, ishape, axis, update, idt), [x, i, u], ptxas)


def test_emulated_body_reading_an_outside_value(rng, ptxas):
    def build(e, x, i, u, w):
        return [e.scatter(x, i, u, 0, lambda e, a, b: e.op(
            "tensor.add", a, e.op("tensor.multiply", b, w)))]
    m = module_of([TensorType("f32", (6, 5)), TensorType("i32", (8,)),
                   TensorType("f32", (8, 5)), TensorType("f32", ())], build)
    x, i, u = draw(rng, "f32", (6, 5), (8,), 0)
    check(m, [x, i, u, np.float32(rng.standard_normal())], ptxas)


def test_frontend_scatter_set_and_add(rng, ptxas):
    x = rng.standard_normal((6, 5)).astype(np.float32)
    i = np.array([4, -1, 4, 9, 0], np.int32)
    v = rng.standard_normal((5, 5)).astype(np.float32)

    def fn(x, i, v):
        return ops.scatter(x, i, v, mode="add") * 2.0, ops.scatter(x, 2, 0.5, axis=1)
    exe = accy.compile(fn, x, i, v)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    added, put = exe.run(x, i, v, device="emulator")
    want = x.astype(np.float64)
    for k, row in zip(i, v.astype(np.float64)):       # -1 wraps, 9 is dropped
        if -6 <= k < 6:
            want[k] += row
    np.testing.assert_allclose(added, want * 2, rtol=1e-6, atol=2e-6)   # a sum of 3 f32 terms may cancel
    wput = x.copy()
    wput[:, 2] = 0.5
    assert_bits(put, wput)
    with pytest.raises(accy.ShapeError, match="mode"):
        accy.jit(lambda x: ops.scatter(x, 0, 1.0, mode="mul")).lower(x)
