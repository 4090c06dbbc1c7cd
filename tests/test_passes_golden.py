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
from ir_helpers import divide_toward_zero

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
            return np.where(y == 0, np.zeros_like(x), divide_toward_zero(x, safe)).astype(x.dtype)
        return divide_toward_zero(x, y)


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


def random_program(rng, dtype, n_ops, shape=(4,), neg=True, few_results=False):
    """A function with two arguments, random constants (splat specials among them) and
    `n_ops` random arithmetic ops (test.neg, which has no fold, only if `neg`); returns every
    value it computes, or only the last three (`few_results`: most of it is dead)."""
    ctx = Context()
    t = TensorType(dtype, shape)
    module = Module.create(ctx)
    b = Builder(ctx).at_end(module.body)
    func = b.create("builtin.func", attributes={
        "sym_name": "f", "function_type": FunctionType((t, t), (t, t, t))})
    entry = b.create_block(func.regions[0], [t, t])
    computed = list(entry.arguments)       # arguments and op results
    constants = []
    kind = "float" if dtype.startswith(("f", "bf")) else "int"

    def pick(pool, other, p):
        pool = pool if pool and (rng.random() < p or not other) else other
        return pool[rng.integers(len(pool))]

    for _ in range(n_ops):
        r = rng.random()
        if r < 0.3:
            if rng.random() < 0.7:
                arr = np.full(shape, rng.choice(SPECIAL[kind]), dtype=numpy_dtype(dtype))
            else:
                arr = _random_array(rng, dtype, shape)
            constants.append(b.create("test.constant",
                                      attributes={"value": DenseAttr(arr, dtype)}).result)
        elif r < 0.4 and neg:
            computed.append(b.create("test.neg", [pick(computed, constants, 0.8)]).result)
        else:
            # mostly a computed value with a constant (the identities), the constant on either
            # side; sometimes two constants or two computed values
            x, y = pick(computed, constants, 0.8), pick(constants, computed, 0.6)
            if rng.random() < 0.3:
                x, y = y, x
            name = BINARY[rng.integers(len(BINARY))]
            computed.append(b.create(name, [x, y]).result)
    values = computed
    returned = values[-3:] if few_results else values[2:]
    func.set_attribute("function_type", FunctionType((t, t), (t,) * len(returned)))
    b.create("builtin.return", returned)
    module.verify()
    return module, func


@pytest.mark.parametrize("dtype", ["i32", "i8", "u8", "i64", "f32", "f16", "bf16", "f64"])
@pytest.mark.parametrize("seed", range(4))
def test_random_programs_keep_their_meaning(dtype, seed):
    """canonicalize,cse,dce never changes what a program computes, bit for bit, on inputs full
    of the values that break inexact identities (-0.0, NaN, inf, overflow)."""
    rng = np.random.default_rng([seed, sum(map(ord, dtype))])
    module, func = random_program(rng, dtype, n_ops=40, shape=(16,), few_results=seed % 2)
    inputs = [[_random_array(rng, dtype, (16,), specials=True) for _ in range(2)]
              for _ in range(8)]
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


@pytest.mark.parametrize("dtype", ["i32", "u8", "f32", "bf16"])
def test_every_identity_with_a_special_constant_is_exact(dtype):
    """Every binary op with every special splat constant on either side (and x op x) keeps
    its value under canonicalize, on inputs with -0.0, NaN, inf and the integer extremes;
    and exactly the exact identities fold."""
    rng = np.random.default_rng(sum(map(ord, dtype)))
    ctx = Context()
    t = TensorType(dtype, (64,))
    module = Module.create(ctx)
    b = Builder(ctx).at_end(module.body)
    func = b.create("builtin.func", attributes={
        "sym_name": "f", "function_type": FunctionType((t,), ())})
    (x,) = b.create_block(func.regions[0], [t]).arguments
    kind = "float" if dtype.startswith(("f", "bf")) else "int"
    returned, labels = [], []
    for value in SPECIAL[kind]:
        if dtype == "u8" and value < 0:
            continue
        arr = np.full((64,), value, dtype=numpy_dtype(dtype))
        c = b.create("test.constant", attributes={"value": DenseAttr(arr, dtype)}).result
        for name in BINARY:
            returned += [b.create(name, [x, c]).result, b.create(name, [c, x]).result]
            labels += [f"{name} x, {value!r}", f"{name} {value!r}, x"]
    for name in BINARY:
        returned.append(b.create(name, [x, x]).result)
        labels.append(f"{name} x, x")
    func.set_attribute("function_type", FunctionType((t,), (t,) * len(returned)))
    b.create("builtin.return", returned)
    module.verify()
    inputs = [_random_array(rng, dtype, (64,), specials=True) for _ in range(4)]
    before = [interpret(func, [arr]) for arr in inputs]
    stats = PassManager("canonicalize").run(module)
    module.verify()
    # int: x+0, 0+x, x-0, x*0, 0*x, x*1, 1*x, x/1, x-x; float: x+(-0.0), (-0.0)+x, x-0.0, x*1,
    # 1*x, x/1
    assert stats["canonicalize"]["folded"] == (9 if kind == "int" else 6)
    after = [interpret(func, [arr]) for arr in inputs]
    for got, want in zip(after, before):
        bad = [i for i, (g, w) in enumerate(zip(got, want)) if not same_bits(g, w)]
        assert not bad, [labels[i] for i in bad]
