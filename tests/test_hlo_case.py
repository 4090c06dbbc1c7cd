"""tensor.case (docs/tensor-ops.md) and the `lower-case` pass: the reference picks the branch the
index names (the last one out of range) against numpy formulas; `lower-case` makes the select
form of elementwise branches and the guarded form (an iterate per branch) otherwise, nested
cases included, and a loop in a branch not taken never starts; compiled on the emulator against
the reference bit for bit (exp within its 1 ulp) with no host fallback (ptxas assembles every text); the frontend's
switch and cond against numpy."""
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.ir import TensorType
from accy.passes import PassManager

from tensor_helpers import NP, assert_bits, assert_close_ulp, module_of

X = TensorType("f32", (37,))


def elementwise_branches(e, i, x):
    return list(e.case(i, [lambda e: [e.op("tensor.negate", x)],
                           lambda e: [e.op("tensor.exp", x)],
                           lambda e: [x]]))


def heavy_branches(e, i, x):
    """A reduction in branch 0, a nested case in branch 1."""
    def nested(e):
        return list(e.case(i, [lambda e: [e.op("tensor.abs", x)],
                               lambda e: [e.op("tensor.multiply", x, x)]]))
    return list(e.case(i, [lambda e: [e.broadcast(e.reduce_kind(x, (0,), "max"), X.shape)],
                           nested]))


def expect_elementwise(i, x):
    return [-x, np.exp(x.astype(np.float64)).astype(np.float32), x][i if 0 <= i < 3 else 2]


def expect_heavy(i, x):
    """Branch 0 the max; any other index reaches the nested case, whose branch 1 (also its
    last, for an index out of range) squares."""
    return np.full(x.shape, x.max(), np.float32) if i == 0 else x * x


@pytest.mark.parametrize("index", [-4, 0, 1, 2, 9])
def test_reference_takes_the_indexed_branch_or_the_last(index, rng):
    x = rng.standard_normal(37).astype(np.float32)
    for dtype in ("i32", "u8", "i64"):
        if dtype == "u8" and index < 0:
            continue
        m = module_of([TensorType(dtype, ()), X], elementwise_branches)
        (got,) = accy.reference.run(m, np.array(index).astype(NP[dtype]), x)
        np.testing.assert_allclose(got, expect_elementwise(index, x), rtol=1e-6)


def forms(module):
    """The ops lower-case leaves: (selects, iterates); no case is left."""
    stats = PassManager("lower-case").run(module)
    names = [op.name for op in module.walk()]
    assert "tensor.case" not in names
    return stats["lower-case"]["lowered"], names.count("tensor.select"), \
        names.count("tensor.iterate")


def test_lower_case_forms():
    m = module_of([TensorType("i32", ()), X], elementwise_branches)
    assert forms(m) == (1, 2, 0)
    m = module_of([TensorType("i32", ()), X], heavy_branches)
    lowered, selects, iterates = forms(m)
    assert (lowered, iterates) == (2, 2) and selects >= 2     # the inner case fused in a body


@pytest.mark.parametrize("build,expect", [(elementwise_branches, expect_elementwise),
                                          (heavy_branches, expect_heavy)])
def test_emulated_case(build, expect, rng, ptxas):
    m = module_of([TensorType("i32", ()), X], build)
    exe = accy.compile(m)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    x = rng.standard_normal(37).astype(np.float32)
    for index in (-1, 0, 1, 2, 5):
        i = np.int32(index)
        (got,), (want,) = exe.run(i, x, device="emulator"), exe.run(i, x, device="reference")
        if build is elementwise_branches and index == 1:
            assert_close_ulp(got, want.astype(np.float64), "f32", 1)     # exp: within 1 ulp
        else:
            assert_bits(got, want)
        np.testing.assert_allclose(got, expect(index, x), rtol=1e-6)


def test_a_loop_in_a_branch_not_taken_never_starts(rng, ptxas):
    """Branch 1 loops forever on this input; the guarded form never runs it."""
    def build(e, i, x):
        def forever(e):
            (out,) = e.iterate([x], lambda e, v: e.constant(True, "i1"),
                               lambda e, v: [e.op("tensor.add", v, v)])
            return [out]
        return list(e.case(i, [lambda e: [e.op("tensor.negate", x)], forever]))
    m = module_of([TensorType("i32", ()), X], build)
    exe = accy.compile(m)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    x = rng.standard_normal(37).astype(np.float32)
    assert_bits(exe.run(np.int32(0), x, device="emulator")[0], -x)


def test_frontend_switch_and_cond(rng, ptxas):
    x = rng.standard_normal((4, 5)).astype(np.float32)

    def fn(i, x):
        a = ops.switch(i, [lambda x: x * 2.0, ops.tanh, lambda x: x - 1.0], x)
        b, s = ops.cond(x.sum() > 0, lambda v: (v, v.sum()), lambda v: (-v, v.max()), x)
        return a, b, s
    exe = accy.compile(fn, np.int32(0), x)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    for index, want in ((-3, x * 2), (1, np.tanh(x)), (7, x - 1)):    # switch clamps
        a, b, s = exe.run(np.int32(index), x, device="emulator")
        np.testing.assert_allclose(a, want, rtol=1e-6)
    up = x.sum() > 0
    np.testing.assert_allclose(b, x if up else -x)
    np.testing.assert_allclose(s, x.sum() if up else x.max(), rtol=1e-5)
    with pytest.raises(accy.TypeError, match="integer scalar"):
        accy.jit(lambda x: ops.switch(x, [lambda: 1.0])).lower(x)
