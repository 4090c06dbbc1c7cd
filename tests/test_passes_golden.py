"""Pass pipelines on IR text: golden cases from tests/golden/passes/ (format in its README.md),
and random programs over the `test` dialect's arithmetic, folded by canonicalize and checked
against numpy, both as constants and by running the program before and after the pipeline.

A golden file is

    // pipeline: <pipeline text>
    <input IR>
    // expected:
    <exact output of module.print()>
"""
import pathlib

import numpy as np
import pytest

from accy.ir import Builder, Context, DenseAttr, FunctionType, Module, TensorType, parse
from accy.passes import PassManager
from accy._core.types import numpy_dtype
from conftest import _divide

GOLDEN = pathlib.Path(__file__).parent / "golden" / "passes"
CASES = sorted(GOLDEN.glob("*.mlir"))
PIPELINE_TAG = "// pipeline:"
EXPECTED_TAG = "// expected:\n"


def read_case(path):
    text = path.read_text(encoding="utf-8")
    first, _, rest = text.partition("\n")
    assert first.startswith(PIPELINE_TAG), f"{path.name}: the first line is '{PIPELINE_TAG} ...'"
    assert rest.count(EXPECTED_TAG) == 1, f"{path.name}: needs exactly one '// expected:' line"
    given, expected = rest.split(EXPECTED_TAG)
    return first[len(PIPELINE_TAG):].strip(), given, expected


def run_pipeline(pipeline, text):
    module = parse(text, Context())
    PassManager(pipeline).run(module)
    module.verify()
    return module


def test_there_are_golden_cases():
    assert len(CASES) >= 15


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden(path):
    pipeline, given, expected = read_case(path)
    assert run_pipeline(pipeline, given).print() == expected
    # the expected text is valid IR that prints as itself, and the pipeline leaves it alone
    assert parse(expected, Context()).print() == expected
    assert run_pipeline(pipeline, expected).print() == expected


# ---- random programs --------------------------------------------------------------------------

BINARY = ("test.add", "test.sub", "test.mul", "test.div")
SPECIAL = {"int": (0, 1, -1, 2), "float": (0.0, -0.0, 1.0, -1.0, 2.0, 0.5)}


def _random_array(rng, dtype, shape, specials=False):
    np_dtype = numpy_dtype(dtype)
    if dtype.startswith(("i", "u")):
        info = np.iinfo(np_dtype)
        if specials:                  # the values that break naive identities and overflow
            pool = np.array([0, 1, -1, info.min, info.max], dtype=np.int64)
            pool = pool[(pool >= info.min) & (pool <= info.max)]
            return rng.choice(pool, shape).astype(np_dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(np_dtype)
    if specials:
        pool = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.5], dtype=np.float32)
        return rng.choice(pool, shape).astype(np_dtype)
    return (rng.standard_normal(shape) * 8).astype(np_dtype)


def _evaluate(op_name, x, y=None):
    """What the test dialect's ops compute (integer division by zero: 0, as the fold never
    folds it and both programs run the same)."""
    with np.errstate(all="ignore"):
        if op_name == "test.neg":
            return np.negative(x)
        if op_name == "test.add":
            return np.add(x, y)
        if op_name == "test.sub":
            return np.subtract(x, y)
        if op_name == "test.mul":
            return np.multiply(x, y)
        if x.dtype.kind in "iu":
            safe = np.where(y == 0, np.ones_like(y), y)
            return np.where(y == 0, np.zeros_like(x), _divide(x, safe)).astype(x.dtype)
        return _divide(x, y)


def interpret(func, inputs):
    """Run the straight-line body of `func` on numpy arrays; returns the returned arrays."""
    env = dict(zip(func.regions[0].entry.arguments, inputs))
    for op in func.regions[0].entry:
        if op.name == "builtin.return":
            return [env[v] for v in op.operands]
        if op.name == "test.constant":
            out = op.attributes["value"].array
        else:
            out = _evaluate(op.name, *(env[v] for v in op.operands))
        env[op.result] = np.asarray(out)
    raise AssertionError("no builtin.return")


def same_bits(a, b):
    """Equal bit for bit, except that any NaN equals any NaN (payloads are the hardware's)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f" or str(a.dtype) == "bfloat16":
        fa, fb = a.astype(np.float32), b.astype(np.float32)
        nan = np.isnan(fa) & np.isnan(fb)
        return bool(np.all(nan | (a.view(np.uint8).reshape(a.size, -1)
                                  == b.view(np.uint8).reshape(b.size, -1)).all(axis=-1)))
    return bool(np.array_equal(a, b))


def random_program(rng, dtype, n_ops, shape=(4,), neg=True):
    """A function with two arguments, random constants (splat specials among them) and
    `n_ops` random arithmetic ops (test.neg, which has no fold, only if `neg`); returns the
    last three values."""
    ctx = Context()
    t = TensorType(dtype, shape)
    module = Module.create(ctx)
    b = Builder(ctx).at_end(module.body)
    func = b.create("builtin.func", attributes={
        "sym_name": "f", "function_type": FunctionType((t, t), (t, t, t))})
    entry = b.create_block(func.regions[0], [t, t])
    values = list(entry.arguments)
    kind = "float" if dtype.startswith(("f", "bf")) else "int"
    for _ in range(n_ops):
        r = rng.random()
        if r < 0.3:
            if rng.random() < 0.6:
                arr = np.full(shape, rng.choice(SPECIAL[kind]), dtype=numpy_dtype(dtype))
            else:
                arr = _random_array(rng, dtype, shape)
            values.append(b.create("test.constant",
                                   attributes={"value": DenseAttr(arr, dtype)}).result)
        elif r < 0.4 and neg:
            values.append(b.create("test.neg", [values[rng.integers(len(values))]]).result)
        else:
            name = BINARY[rng.integers(len(BINARY))]
            x, y = (values[i] for i in rng.integers(len(values), size=2))
            values.append(b.create(name, [x, y]).result)
    b.create("builtin.return", values[-3:])
    module.verify()
    return module, func


@pytest.mark.parametrize("dtype", ["i32", "i8", "u8", "i64", "f32", "f16", "bf16", "f64"])
@pytest.mark.parametrize("seed", range(4))
def test_random_programs_keep_their_meaning(dtype, seed):
    """canonicalize,cse,dce never changes what a program computes, bit for bit, on inputs full
    of the values that break inexact identities (-0.0, NaN, inf, overflow)."""
    rng = np.random.default_rng([seed, sum(map(ord, dtype))])
    module, func = random_program(rng, dtype, n_ops=30)
    inputs = [[_random_array(rng, dtype, (4,), specials=True) for _ in range(2)]
              for _ in range(6)]
    before = [interpret(func, args) for args in inputs]
    PassManager("canonicalize,cse,dce").run(module)
    module.verify()
    func = next(iter(module.body))
    after = [interpret(func, args) for args in inputs]
    for got, want in zip(after, before):
        assert all(same_bits(g, w) for g, w in zip(got, want)), module.print()
    # what is left is a fixed point
    text = module.print()
    PassManager("canonicalize,cse,dce").run(module)
    assert module.print() == text


@pytest.mark.parametrize("dtype", ["i32", "i16", "u8", "f32", "f16"])
@pytest.mark.parametrize("seed", range(3))
def test_random_constant_expressions_fold_to_numpy(dtype, seed):
    """A program of constants only folds to one constant per result, equal to numpy's value."""
    rng = np.random.default_rng([seed, 7, sum(map(ord, dtype))])
    module, func = random_program(rng, dtype, n_ops=25, neg=False)
    args = [_random_array(rng, dtype, (4,)) for _ in range(2)]
    # make every argument use a constant instead, so that the whole program is constant
    consts = []
    b = Builder(module.context).at_start(func.regions[0].entry)
    for arg, arr in zip(func.regions[0].entry.arguments, args):
        c = b.create("test.constant", attributes={"value": DenseAttr(arr, dtype)})
        arg.replace_all_uses_with(c.result)
        consts.append(c)
    want = interpret(func, args)
    PassManager("canonicalize").run(module)
    module.verify()
    for op in func.regions[0].entry:
        if op.name in ("test.constant", "builtin.return"):
            continue
        # only integer division by a zero element is left, and what uses its result
        defs = [v.owner for v in op.operands]
        if all(d.name == "test.constant" for d in defs):
            assert op.name == "test.div" and dtype[0] in "iu", module.print()
            assert not defs[1].attributes["value"].array.all()
    got = interpret(func, [])
    assert all(same_bits(g, w) for g, w in zip(got, want)), module.print()
    for v, w in zip(list(func.regions[0].entry)[-1].operands, want):
        if v.owner.name == "test.constant":
            assert same_bits(v.owner.attributes["value"].array, w)
