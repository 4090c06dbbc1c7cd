"""canonicalize on the tensor dialect: constants fold to exactly what the reference computes,
identities fold only where they are exact, shape ops that change nothing disappear."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import accy.reference
import accy.tensor  # noqa: F401
from accy.ir import TensorType, parse
from accy.passes import PassManager
from accy.tensor.folds import FOLD_LIMIT
from tensor_helpers import module_of


def _names(m):
    return [op.name for op in m.walk() if op.name.startswith("tensor.")]


def _canonicalize(m):
    PassManager("canonicalize").run(m)
    m.verify()
    return m


@pytest.mark.parametrize("name,dtype", [
    ("tensor.divide", "i32"), ("tensor.remainder", "i8"), ("tensor.power", "i16"),
    ("tensor.add", "bf16"), ("tensor.divide", "f16"), ("tensor.exp", "f32"),
    ("tensor.shift_right_arithmetic", "i32"), ("tensor.maximum", "f64"),
])
def test_constant_folds_match_the_reference_bit_for_bit(name, dtype):
    rng = np.random.default_rng()
    t = TensorType(dtype, (3, 5))
    draw = (lambda: rng.integers(-40, 40, t.shape)) if dtype.startswith("i") else \
        (lambda: rng.standard_normal(t.shape) * 3)
    a, b = draw(), draw()
    if dtype.startswith("i"):
        b[0, 0] = 0                 # division by zero folds to what the program computes
    unary = name == "tensor.exp"

    def build(e):
        x, y = e.constant(a, dtype), e.constant(b, dtype)
        return [e.op(name, x) if unary else e.op(name, x, y)]
    m = module_of([], build)
    (expected,) = accy.reference.run(m)
    _canonicalize(m)
    assert _names(m) == ["tensor.constant"]
    (got,) = accy.reference.run(m)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def test_large_results_are_not_folded():
    n = FOLD_LIMIT + 1
    m = module_of([], lambda e: [e.op("tensor.negate", e.constant(np.arange(n), "f32"))])
    assert "tensor.negate" in _names(_canonicalize(m))


@pytest.mark.parametrize("name,const,dtype,folds", [
    ("tensor.add", -0.0, "f32", True), ("tensor.add", 0.0, "f32", False),   # -0.0 + 0.0 = +0.0
    ("tensor.add", 0, "i32", True), ("tensor.multiply", 1.0, "f16", True),
    ("tensor.multiply", 0.0, "f32", False), ("tensor.subtract", 0.0, "f64", True),
    ("tensor.divide", 1, "i8", True), ("tensor.divide", 2, "i8", False),
])
def test_identities_fold_only_when_exact(name, const, dtype, folds):
    t = TensorType(dtype, (4,))
    m = module_of([t], lambda e, x: [e.op(name, x, e.full(const, dtype, (4,)))])
    _canonicalize(m)
    assert ("tensor." + name.split(".")[1] in _names(m)) != folds


def test_self_identities_and_repeated_operands():
    t = TensorType("i32", (4,))
    m = module_of([t], lambda e, x: [e.op("tensor.maximum", x, x), e.op("tensor.xor", x, x),
                                   e.op("tensor.and", x, x)])
    _canonicalize(m)
    ret = next(op for op in m.walk() if op.name == "builtin.return")
    arg = m.body.first_op.regions[0].entry.arguments[0]
    assert ret.operands[0] == arg and ret.operands[2] == arg
    (zero,) = accy.reference.run(m, np.arange(4, dtype=np.int32))[1:2]
    assert not zero.any()


@pytest.mark.parametrize("build,folds", [
    (lambda e, x: e.op("tensor.transpose", x, permutation=(0, 1)), True),
    (lambda e, x: e.op("tensor.transpose", x, permutation=(1, 0)), False),  # 3x3: same type
    (lambda e, x: e.op("tensor.reverse", x, dimensions=()), True),
    (lambda e, x: e.op("tensor.reverse", x, dimensions=(0,)), False),
    (lambda e, x: e.op("tensor.slice", x, start_indices=(0, 0), limit_indices=(3, 3)), True),
    (lambda e, x: e.op("tensor.pad", x, e.constant(0, "f32"), edge_padding_low=(1, 0),
                       edge_padding_high=(-1, 0)), False),                 # a shift
    (lambda e, x: e.reshape(e.op("tensor.convert", x, result_type=x.type), (3, 3)), True),
    (lambda e, x: e.op("tensor.concatenate", x, dimension=0), True),
])
def test_shape_ops_that_change_nothing_disappear(build, folds):
    t = TensorType("f32", (3, 3))
    m = module_of([t], lambda e, x: [build(e, x)])
    x = np.random.default_rng().standard_normal((3, 3)).astype(np.float32)
    (before,) = accy.reference.run(m, x)
    _canonicalize(m)
    assert (_names(m) == []) == folds
    (after,) = accy.reference.run(m, x)
    assert after.tobytes() == before.tobytes()


def test_decompose_attention_pass_matches_the_composite():
    rng = np.random.default_rng()
    q = TensorType("f32", (2, 2, 5, 8))
    m = module_of([q, q, q], lambda e, a, b, c: [e.op("tensor.attention", a, b, c, scale=0.25,
                                                     causal=True)])
    args = [rng.standard_normal(q.shape).astype(np.float32) for _ in range(3)]
    (composite,) = accy.reference.run(m, *args)
    PassManager("decompose-attention,canonicalize,cse").run(m)
    m.verify()
    assert "tensor.attention" not in _names(m) and "tensor.dot_general" in _names(m)
    (decomposed,) = accy.reference.run(parse(m.print()), *args)
    assert decomposed.tobytes() == composite.tobytes()


@pytest.mark.parametrize("build,left", [
    # reshape(reshape(x)) -> one reshape
    (lambda e, x: e.reshape(e.reshape(x, (6, 4)), (4, 6)), ["tensor.reshape"]),
    # transposes compose
    (lambda e, x: e.op("tensor.transpose", e.op("tensor.transpose", x, permutation=(1, 2, 0)),
                       permutation=(2, 0, 1)), []),
    (lambda e, x: e.op("tensor.transpose", e.op("tensor.transpose", x, permutation=(1, 0, 2)),
                       permutation=(0, 2, 1)), ["tensor.transpose"]),
    # broadcasts compose; a keepdims reshape melts into the broadcast after it
    (lambda e, x: e.broadcast(e.broadcast(x, (5, 2, 3, 4)), (6, 5, 2, 3, 4)),
     ["tensor.broadcast_in_dim"]),
    (lambda e, x: e.broadcast(e.reshape(x, (2, 1, 3, 4, 1)), (2, 7, 3, 4, 5)),
     ["tensor.broadcast_in_dim"]),
])
def test_shape_op_chains_collapse_exactly(build, left):
    t = TensorType("f32", (2, 3, 4))
    m = module_of([t], lambda e, x: [build(e, x)])
    x = np.random.default_rng().standard_normal(t.shape).astype(np.float32)
    (before,) = accy.reference.run(m, x)
    _canonicalize(m)
    assert _names(m) == left
    (after,) = accy.reference.run(m, x)
    assert after.shape == before.shape and after.tobytes() == before.tobytes()


def _dot(e, a, b, out_shape, **dims):
    return e.op("tensor.dot_general", a, b, result_type=TensorType("f32", out_shape), **dims)


@pytest.mark.parametrize("build,out_shape,folded,dims", [
    # a @ b.T: b (5, 4) read as 4 x 5 -> contract b's dim 1, no transpose left
    (lambda e, a, b: _dot(e, a, e.op("tensor.transpose", b, permutation=(1, 0)), (3, 5),
                          lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(0,)),
     (3, 5), True, {"rhs_contracting_dimensions": (1,)}),
    # a.T @ b.T, batched: both folded, batch dims renumbered
    (lambda e, a, b: _dot(e, e.op("tensor.transpose", a, permutation=(0, 2, 1)),
                          e.op("tensor.transpose", b, permutation=(0, 2, 1)), (2, 3, 5),
                          lhs_batching_dimensions=(0,), rhs_batching_dimensions=(0,),
                          lhs_contracting_dimensions=(2,), rhs_contracting_dimensions=(1,)),
     (2, 3, 5), True, {"lhs_contracting_dimensions": (1,), "rhs_contracting_dimensions": (2,)}),
    # a transpose that swaps two free dims would transpose the result: kept
    (lambda e, a, b: _dot(e, e.op("tensor.transpose", a, permutation=(1, 0, 2)), b, (6, 2, 5),
                          lhs_contracting_dimensions=(2,), rhs_contracting_dimensions=(0,)),
     (6, 2, 5), False, {}),
])
def test_a_transposed_dot_operand_is_read_through_the_dimension_numbers(build, out_shape,
                                                                        folded, dims):
    """dot_general(transpose(x)) reads x through its dimension numbers when the transpose
    keeps the order of the operand's free dims; the result is the same bit for bit."""
    rng = np.random.default_rng()
    shapes = {(3, 5): ((3, 4), (5, 4)), (2, 3, 5): ((2, 4, 3), (2, 5, 4)),
              (6, 2, 5): ((2, 6, 4), (4, 5))}[out_shape]
    m = module_of([TensorType("f32", s) for s in shapes], lambda e, a, b: [build(e, a, b)])
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    (before,) = accy.reference.run(m, *args)
    _canonicalize(m)
    assert ("tensor.transpose" not in _names(m)) == folded
    (dot,) = [op for op in m.walk() if op.name == "tensor.dot_general"]
    for name, value in dims.items():
        assert tuple(dot.attributes[name]) == value
    (after,) = accy.reference.run(m, *args)
    assert after.shape == out_shape and after.tobytes() == before.tobytes()


def test_a_reshape_that_moves_data_is_not_merged_into_a_broadcast():
    t = TensorType("f32", (2, 3))
    m = module_of([t], lambda e, x: [e.broadcast(e.reshape(x, (3, 2)), (4, 3, 2))])
    _canonicalize(m)
    assert _names(m) == ["tensor.reshape", "tensor.broadcast_in_dim"]



def test_pad_by_nothing_disappears():
    t = TensorType("f32", (3, 1))
    m = module_of([t], lambda e, x: [e.op("tensor.pad", x, e.constant(0.0, "f32"),
                                         edge_padding_low=(0, 0), edge_padding_high=(0, 0),
                                         interior_padding=(0, 5))])   # a size-1 dim: moot
    assert "tensor.pad" not in _names(_canonicalize(m))


# ---- property: canonicalize and cse never change what a program computes -------------------------

_BINARY = ["tensor.add", "tensor.subtract", "tensor.multiply", "tensor.divide",
           "tensor.maximum", "tensor.minimum", "tensor.remainder"]
_UNARY = ["tensor.negate", "tensor.abs", "tensor.exp", "tensor.floor", "tensor.sqrt"]
_IDENTITY_VALUES = [0.0, -0.0, 1.0, -1.0, float("inf"), float("nan")]


@st.composite
def _programs(draw):
    """A random chain over one argument and splat or dense constants (often identities), for
    f32 or i32: a list of (op, operand indices or constant) steps."""
    dtype = draw(st.sampled_from(["f32", "i32"]))
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        pool = len(steps) + 1
        if dtype == "f32" and draw(st.booleans()):
            steps.append((draw(st.sampled_from(_UNARY)), draw(st.integers(0, pool - 1))))
            continue
        name = draw(st.sampled_from(_BINARY[:6] if dtype == "i32" else _BINARY))
        value = draw(st.sampled_from(_IDENTITY_VALUES)) if dtype == "f32" else \
            draw(st.sampled_from([0, 1, -1, 2, 7]))
        other = draw(st.one_of(st.integers(0, pool - 1), st.just(("const", value))))
        left = draw(st.integers(0, pool - 1))
        steps.append((name, left, other) if draw(st.booleans()) else (name, other, left))
    return dtype, steps


def _program_module(dtype, steps):
    t = TensorType(dtype, (2, 3))

    def build(e, x):
        values = [x]

        def operand(ref):
            return values[ref] if isinstance(ref, int) else e.full(ref[1], dtype, t.shape)
        for name, *refs in steps:
            values.append(e.op(name, *map(operand, refs)))
        return [values[-1]]
    return module_of([t], build)


@settings(max_examples=300, deadline=None)
@given(_programs())
def test_canonicalize_and_cse_keep_every_result(program):
    dtype, steps = program
    rng = np.random.default_rng()
    if dtype == "f32":
        x = rng.standard_normal((2, 3)).astype(np.float32) * 3
        x.flat[:4] = [0.0, -0.0, np.inf, -0.0]      # where inexact identities show
    else:
        x = rng.integers(-50, 50, (2, 3)).astype(np.int32)
    m = _program_module(dtype, steps)
    (before,) = accy.reference.run(m, x)
    PassManager("canonicalize,cse,canonicalize").run(m)
    m.verify()
    (after,) = accy.reference.run(parse(m.print()), x)
    nan = np.isnan(before) if dtype == "f32" else np.zeros(before.shape, bool)
    # NaN's sign and payload are unspecified (docs/tensor-ops.md); every other bit must agree
    assert np.array_equal(nan, np.isnan(after) if dtype == "f32" else nan)
    assert before[~nan].tobytes() == after[~nan].tobytes()
