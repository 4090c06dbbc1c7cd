"""Variadic tensor.reduce as StableHLO's argmax/argmin export writes it: (value, index) pairs
with a body of compares and selects that no named kind covers (the importer maps it one to
one). The reference against numpy's argmax/argmin (NaN wins, ties take the first index), the
compiled reduction on the emulator against the reference bit for bit with ptxas assembling the
text, and a three-input body."""
import numpy as np
import pytest

import accy
from accy.ir import TensorType
from accy.tensor import reduce_kind

from tensor_helpers import assert_bits, module_of


def arg_body(direction):
    """JAX's body: keep the accumulator where it is better or NaN, or equal with a lower index."""
    def body(e, av, ai, bv, bi):
        better = e.op("tensor.or", e.compare(av, bv, direction), e.compare(av, av, "NE"))
        tie = e.op("tensor.and", e.compare(av, bv, "EQ"), e.compare(ai, bi, "LT"))
        keep = e.op("tensor.or", better, tie)
        return [e.op("tensor.select", keep, av, bv), e.op("tensor.select", keep, ai, bi)]
    return body


def arg_module(shape, axis, direction):
    init = np.inf if direction == "LT" else -np.inf

    def build(e, x):
        index = e.op("tensor.iota", iota_dimension=axis, result_type=TensorType("i32", shape))
        return list(e.reduce([x, index], [e.constant(init, "f32"), e.constant(0, "i32")],
                             (axis,), arg_body(direction)))
    return module_of([TensorType("f32", shape)], build)


def draw(rng, shape):
    x = np.round(rng.standard_normal(shape) * 2).astype(np.float32)    # ties
    x.reshape(-1)[rng.integers(0, x.size, 2)] = np.nan
    return x


@pytest.mark.parametrize("shape,axis", [((5, 37), 1), ((3, 1000), 1), ((70, 3), 0)], ids=str)
@pytest.mark.parametrize("direction", ["GT", "LT"])
def test_argmax_and_argmin_bodies(shape, axis, direction, rng, ptxas):
    m = arg_module(shape, axis, direction)
    assert reduce_kind(next(m.walk(name="tensor.reduce"))) is None   # not a named kind
    x = draw(rng, shape)
    values, index = accy.reference.run(m, x)
    want = (np.argmax if direction == "GT" else np.argmin)(x, axis)
    assert_bits(index, want.astype(np.int32))
    assert_bits(values, np.take_along_axis(x, np.expand_dims(want, axis), axis).squeeze(axis))
    exe = accy.compile(m)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    for got, ref in zip(exe.run(x, device="emulator"), (values, index)):
        assert_bits(got, ref)


def test_three_inputs_in_one_body(rng, ptxas):
    """(max of a, the b at that max, the sum of c): three accumulators (an associative body,
    as StableHLO requires: kernels combine partial accumulators by it)."""
    def body(e, am, ab, ac, xm, xb, xc):
        keep = e.compare(am, xm, "GE")
        return [e.op("tensor.select", keep, am, xm), e.op("tensor.select", keep, ab, xb),
                e.op("tensor.add", ac, xc)]

    def build(e, a, b, c):
        inits = [e.constant(-np.inf, "f32"), e.constant(0, "i64"), e.constant(0, "i32")]
        return list(e.reduce([a, b, c], inits, (1,), body))
    shape = (6, 50)
    m = module_of([TensorType("f32", shape), TensorType("i64", shape),
                   TensorType("i32", shape)], build)
    a = rng.permutation(300).reshape(shape).astype(np.float32)         # no ties
    b = rng.integers(-9, 9, shape).astype(np.int64)
    c = rng.integers(-3, 3, shape).astype(np.int32)
    m_, b_, c_ = accy.reference.run(m, a, b, c)
    assert_bits(m_, a.max(1))
    assert_bits(b_, b[np.arange(6), a.argmax(1)])
    assert_bits(c_, c.sum(1).astype(np.int32))
    exe = accy.compile(m)
    assert not exe.fallbacks, exe.report()
    ptxas(exe.ptx)
    for got, ref in zip(exe.run(a, b, c, device="emulator"), (m_, b_, c_)):
        assert_bits(got, ref)
