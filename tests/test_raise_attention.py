"""The `raise-attention` pass (accy/passes/raise_attention.py): each decomposed attention
pattern the tests write (ops.softmax between two matmuls, a causal `where` on aranges, the
decomposition of the composite, the transformer block's heads) becomes one raised
`tensor.attention` whose results are the pattern's bit for bit through the reference (and
through `decompose-attention`, which gives the pattern's ops back); the iota masks' ops move
into the score region with the score ops; near-misses (a max from
another init, an intermediate read outside the pattern, a sum of truncated exps) are left
alone."""
import math

import numpy as np
import pytest

import accy.ops as ops
from accy import reference
from accy._core.context import Builder
from accy.frontend.trace import signature, trace
from accy.ir import parse, print_op
from accy.passes import PassManager
from accy.tensor.build import Emitter

F16 = np.float16


def traced(fn, args, pipeline="canonicalize,cse"):
    module, _ = trace(fn, [signature(a) for a in args])
    PassManager(pipeline).run(module)
    return module


def ops_named(module, name):
    return list(module.walk(name=name))


def assert_raised_keeps_results(module, args, count=1):
    """Raise `module`'s patterns: `count` raised attentions, no dot_general or exp left at the
    top of the function, and the reference's results unchanged bit for bit, raised and
    decomposed again; its text parses back to itself."""
    want = reference.run(module, *args)
    stats = PassManager("raise-attention").run(module)
    assert stats["raise-attention"]["raised"] == count
    raised = ops_named(module, "tensor.attention")
    assert len(raised) == count and all("scores" in op.attributes for op in raised)
    body = next(iter(module.body)).regions[0].blocks[0]
    assert not {"tensor.dot_general", "tensor.exp", "tensor.reduce"} & \
        {op.name for op in body.operations}
    text = print_op(module)
    assert print_op(parse(text)) == text                # the raised form prints and parses
    for got in (reference.run(module, *args),
                reference.run(_decomposed_again(module.clone()), *args)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    return raised


def _decomposed_again(module):
    PassManager("decompose-attention").run(module)
    assert not ops_named(module, "tensor.attention")
    return module


def draw(rng, shape, dtype=F16):
    return rng.standard_normal(shape).astype(dtype)


def test_a_causal_pattern_written_with_ops_is_raised(rng):
    s, d = 9, 16

    def fn(q, k, v):
        scores = (q @ ops.transpose(k, (0, 1, 3, 2))).astype("float32") * (1 / math.sqrt(d))
        keep = ops.arange(s)[None, :] <= ops.arange(s)[:, None]
        p = ops.softmax(ops.where(keep, scores, -math.inf))
        return p.astype("float16") @ v
    args = [draw(rng, (1, 2, s, d)) for _ in range(3)]
    (op,) = assert_raised_keeps_results(traced(fn, args), args)
    block = op.regions[0].blocks[0]
    assert block.arguments[0].type.dtype == "f16"       # the dot's own dtype
    names = [o.name for o in block.operations]
    assert names[-2:] == ["tensor.select", "tensor.yield"] and "tensor.compare" in names
    assert "sum_dtype" not in op.attributes and op.attributes["value_dtype"] == "f16"


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_softmax_in_the_inputs_dtype_keeps_its_wider_sum(dtype, rng):
    def fn(q, k, v):
        return ops.softmax(q @ ops.transpose(k, (0, 1, 3, 2)) * 0.125) @ v
    args = [draw(rng, (1, 2, 7, 8), dtype) for _ in range(3)]
    (op,) = assert_raised_keeps_results(traced(fn, args), args)
    if dtype == np.float16:     # f16 exps summed in f32 and the sum converted back
        assert op.attributes["sum_dtype"] == "f32"
    else:
        assert "sum_dtype" not in op.attributes


@pytest.mark.parametrize("mask", ["none", "causal", "additive"])
def test_the_composites_decomposition_is_raised(mask, rng):
    args = [draw(rng, (2, 2, 5, 8)) for _ in range(3)]
    if mask == "additive":
        args.append(rng.standard_normal((2, 5, 5)).astype(np.float32))

    def fn(q, k, v, *m):
        return ops.attention(q, k, v, mask=m[0] if m else None, causal=mask == "causal")
    assert_raised_keeps_results(traced(fn, args, "decompose-attention,canonicalize,cse"), args)


def test_the_heads_of_an_attention_block_and_two_patterns(rng):
    """Heads split by reshape + transpose, two patterns in one function (one per head
    group), any batch rank (here 1)."""
    def fn(x, y, v):
        a = ops.softmax(x @ ops.transpose(y, (0, 2, 1))) @ v
        b = ops.softmax(y @ ops.transpose(x, (0, 2, 1)) * 0.5) @ v
        return a + b
    args = [draw(rng, (3, 6, 4), np.float32) for _ in range(3)]
    assert_raised_keeps_results(traced(fn, args), args, count=2)


def _max_init(module, value):
    """Replace the init of the max reduction by a constant `value`."""
    for op in module.walk(name="tensor.reduce"):
        init = op.operands[1].owner
        if float(init.attributes["value"].array.reshape(-1)[0]) == -math.inf:
            e = Emitter(Builder(op.context).before_op(op))
            op.set_operand(1, e.constant(value, init.result_types[0].dtype))
            return


def near_miss(rng):
    args = [draw(rng, (1, 1, 6, 8), np.float32) for _ in range(3)]
    return args


def assert_left_alone(module, args):
    text = module.print()
    want = reference.run(module, *args)
    stats = PassManager("raise-attention").run(module)
    assert stats["raise-attention"]["raised"] == 0 and module.print() == text
    for g, w in zip(reference.run(module, *args), want):
        np.testing.assert_array_equal(g, w)


def test_a_max_from_another_init_is_left_alone(rng):
    args = near_miss(rng)
    module = traced(lambda q, k, v: ops.softmax(q @ ops.transpose(k, (0, 1, 3, 2))) @ v, args)
    _max_init(module, 0.0)
    assert_left_alone(module, args)


def test_an_intermediate_read_outside_the_pattern_is_left_alone(rng):
    def fn(q, k, v):
        p = ops.softmax(q @ ops.transpose(k, (0, 1, 3, 2)))
        return p @ v, p
    args = near_miss(rng)
    assert_left_alone(traced(fn, args), args)


@pytest.mark.parametrize("sum_dtype", ["int32", "float16"])
def test_a_sum_of_truncated_exps_is_left_alone(sum_dtype, rng):
    def fn(q, k, v):
        scores = (q @ ops.transpose(k, (0, 1, 3, 2))).astype("float32") * 0.125
        e = ops.exp(scores - ops.max(scores, axis=-1, keepdims=True))
        total = ops.sum(e.astype(sum_dtype), axis=-1, keepdims=True).astype("float32")
        return (e / total).astype("float16") @ v
    args = [draw(rng, (1, 1, 6, 8)) for _ in range(3)]
    assert_left_alone(traced(fn, args), args)


def test_a_pattern_in_a_loop_body_is_raised(rng):
    """The planner plans iterate bodies too: a pattern there is raised in place."""
    def fn(q, k, v):
        def body(s):
            i, x = s
            return i + 1, ops.softmax(x @ ops.transpose(k, (0, 2, 1)) * 0.5) @ v
        return ops.while_loop(lambda s: s[0] < 2, body, (0, q))[1]
    args = [draw(rng, (2, 4, 4), np.float32) for _ in range(3)]
    (op,) = assert_raised_keeps_results(traced(fn, args), args)
    assert op.parent_op.name == "tensor.iterate"


@pytest.mark.parametrize("dtype, d", [(np.float32, 8), (F16, 64)])
def test_a_raised_attention_with_no_score_ops_compiles_and_runs(dtype, d, rng):
    """softmax(q @ k^T) @ v with nothing between the scores' dot and the max: the score
    region yields its own argument. It is planned and lowered (f32 on the serial path, f16
    with a head dim of 64 on the flash path) and its kernel agrees with the reference on the
    emulator."""
    import accy
    q, k, v = (rng.standard_normal((1, 2, 16, d)).astype(dtype) for _ in range(3))

    def fn(q, k, v):
        return ops.softmax(q @ ops.transpose(k, (0, 1, 3, 2))) @ v
    exe = accy.compile(fn, q, k, v, target="sm_90")
    assert [x.kind for x in exe.kernels] == ["flash_attention"] and not exe.fallbacks
    assert exe.kernels[0].schedule == ("serial" if dtype == np.float32 else "flash")
    got = exe.run(q, k, v, device="emulator").astype(np.float64)
    want = exe.run(q, k, v, device="reference").astype(np.float64)
    tol = 1e-5 if dtype == np.float32 else 2e-2
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
