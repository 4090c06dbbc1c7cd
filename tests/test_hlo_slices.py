"""dynamic_slice and dynamic_update_slice (docs/tensor-ops.md): the reference against numpy
slicing with StableHLO's clamping written out here, then compiled kernels on the emulator
against the reference bit for bit (no host fallback; fused producers and consumers; starts of
every integer dtype, negative and past the end; starts computed in a loop), each PTX text
assembled by ptxas; and the frontend's functions against numpy."""
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.ir import parse

from tensor_helpers import NP, assert_bits, assert_close_ulp, random_array, run_build


def tt(shape, dtype):
    return f"tensor<{''.join(f'{n}x' for n in shape)}{dtype}>"


def clamped(starts, big, small):
    """StableHLO's rule: each start into [0, big - small]."""
    return [int(np.clip(int(s), 0, b - n)) for s, b, n in zip(starts, big, small)]


def expect_slice(x, starts, sizes):
    k = clamped(starts, x.shape, sizes)
    return x[tuple(slice(a, a + n) for a, n in zip(k, sizes))]


def expect_update(x, update, starts):
    out = x.copy()
    k = clamped(starts, x.shape, update.shape)
    out[tuple(slice(a, a + n) for a, n in zip(k, update.shape))] = update
    return out


def draw_starts(rng, dtype, shape):
    low = 0 if dtype == "u8" else -4
    return [np.array(v).astype(NP[dtype]) for v in rng.integers(low, max(shape + (1,)) + 4,
                                                                len(shape))]


CASES = [((6, 5), (3, 2)), ((7,), (7,)), ((4, 5, 6), (2, 5, 1)), ((3, 4), (0, 2)), ((), ())]


@pytest.mark.parametrize("shape,sizes", CASES, ids=str)
@pytest.mark.parametrize("sdt", ["i32", "u8", "i64"])
def test_reference_dynamic_slice(shape, sizes, sdt, rng):
    x = random_array(rng, "f32", shape)
    for _ in range(3):
        starts = draw_starts(rng, sdt, shape)
        (got,) = run_build(lambda e, x, *s: [e.op("tensor.dynamic_slice", x, *s,
                                                  slice_sizes=sizes)], x, *starts)
        assert_bits(got, expect_slice(x, starts, sizes))


@pytest.mark.parametrize("shape,sizes", CASES, ids=str)
@pytest.mark.parametrize("sdt", ["i8", "i64"])
def test_reference_dynamic_update_slice(shape, sizes, sdt, rng):
    x, u = random_array(rng, "i16", shape), random_array(rng, "i16", sizes)
    for _ in range(3):
        starts = draw_starts(rng, sdt, shape)
        (got,) = run_build(lambda e, x, u, *s: [e.op("tensor.dynamic_update_slice", x, u, *s)],
                           x, u, *starts)
        assert_bits(got, expect_update(x, u, starts))


# ---- compiled -----------------------------------------------------------------------------------

def slice_module(shape, sizes, dtype, sdt):
    """@main: dynamic_slice of -x (fused producer), times 3 (fused consumer)."""
    x, y, s = tt(shape, dtype), tt(sizes, dtype), tt((), sdt)
    args = ", ".join([f"%x: {x}"] + [f"%s{i}: {s}" for i in range(len(shape))])
    starts = "".join(f", %s{i}" for i in range(len(shape)))
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = ({', '.join([x] + [s] * len(shape))}) -> {y}, sym_name = "main"}}> ({{
  ^bb0({args}):
    %n = tensor.negate %x : {x}
    %r = tensor.dynamic_slice %n{starts} <{{slice_sizes = {list(sizes)}}}> : {y}
    %t = tensor.add %r, %r : {y}
    builtin.return %t
  }})
}})""")


def update_module(shape, sizes, dtype, sdt):
    """@main: x with u * u written at the starts."""
    x, u, s = tt(shape, dtype), tt(sizes, dtype), tt((), sdt)
    args = ", ".join([f"%x: {x}", f"%u: {u}"] + [f"%s{i}: {s}" for i in range(len(shape))])
    starts = "".join(f", %s{i}" for i in range(len(shape)))
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = ({', '.join([x, u] + [s] * len(shape))}) -> {x}, sym_name = "main"}}> ({{
  ^bb0({args}):
    %q = tensor.multiply %u, %u : {u}
    %r = tensor.dynamic_update_slice %x, %q{starts} : {x}
    builtin.return %r
  }})
}})""")


def check(exe, ptxas, *arrays):
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    (got,), (want,) = exe.run(*arrays, device="emulator"), exe.run(*arrays, device="reference")
    assert_bits(got, want)


@pytest.mark.parametrize("shape,sizes", CASES + [((40, 70), (33, 64))], ids=str)
@pytest.mark.parametrize("dtype,sdt", [("f32", "i32"), ("bf16", "u8"), ("i64", "i64")])
def test_emulated_dynamic_slice(shape, sizes, dtype, sdt, rng, ptxas):
    exe = accy.compile(slice_module(shape, sizes, dtype, sdt))
    x = random_array(rng, dtype, shape)
    for _ in range(2):
        check(exe, ptxas, x, *draw_starts(rng, sdt, shape))


@pytest.mark.parametrize("shape,sizes", CASES + [((40, 70), (33, 64))], ids=str)
@pytest.mark.parametrize("dtype,sdt", [("f32", "i8"), ("f16", "i64"), ("i8", "i32")])
def test_emulated_dynamic_update_slice(shape, sizes, dtype, sdt, rng, ptxas):
    exe = accy.compile(update_module(shape, sizes, dtype, sdt))
    x, u = random_array(rng, dtype, shape), random_array(rng, dtype, sizes)
    for _ in range(2):
        check(exe, ptxas, x, u, *draw_starts(rng, sdt, shape))


def test_rows_written_in_a_loop(rng, ptxas):
    """The JAX pattern of a loop building its output row by row: the starts come from the
    loop counter, computed on the device."""
    x = rng.standard_normal((6, 4)).astype(np.float32)

    def fn(x):
        def step(i, acc):
            row = ops.dynamic_slice(x, (i, 0), (1, 4))
            return ops.dynamic_update_slice(acc, ops.tanh(row) * 2.0, (5 - i, 0))
        return ops.fori_loop(0, 6, step, ops.zeros_like(x))
    exe = accy.compile(fn, x)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    got = exe.run(x, device="emulator")
    np.testing.assert_allclose(got, np.tanh(x.astype(np.float64))[::-1] * 2, rtol=1e-6)
    assert_close_ulp(got, exe.run(x, device="reference").astype(np.float64), "f32", 1)   # tanh


def test_frontend_errors():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(accy.ShapeError, match="needs 2 start indices"):
        accy.jit(lambda x: ops.dynamic_slice(x, (0,), (1, 1))).lower(x)
    with pytest.raises(accy.TypeError, match="integer scalars"):
        accy.jit(lambda x: ops.dynamic_slice(x, (0, 1.5), (1, 1))).lower(x)
    with pytest.raises(accy.ShapeError, match="C51"):
        accy.jit(lambda x: ops.dynamic_slice(x, (0, 0), (4, 1))).lower(x)
    with pytest.raises(accy.TypeError, match="C52"):
        accy.jit(lambda x: ops.dynamic_update_slice(x, np.ones((5,), np.float32), (0, 0))).lower(x)
