"""Tensor rank is capped at MAX_RANK (64, numpy's limit) wherever a tensor type is made: the
type itself, the text parser, the IR builder (an inferred result type), tracing and the `accy
compile` command. The largest allowed rank compiles and runs on the emulator as the reference
does (constant folding included), and what the elementwise lowering's memo hashes grows with
the square of the rank, not its cube."""
import os
import re
import sys

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.__main__ import main as accy_main
from accy._core.types import MAX_RANK
from accy.errors import AccyError, ParseError, ShapeError
from accy.ir import Builder, Context, FunctionType, Module, TensorType, parse
from accy.lowering import elementwise
from accy.tensor import Emitter

from compile_helpers import check

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
try:
    from rank_cases import KINDS, shape_of      # the programs bench/rank.py times
finally:
    sys.path.pop(0)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = f"at most {MAX_RANK} dimensions"


def tensor_text(rank, dtype="f32"):
    return "tensor<" + "1x" * rank + dtype + ">"


def func_text(rank):
    t = tensor_text(rank)
    return (f'builtin.module ({{\n  builtin.func <{{function_type = ({t}) -> {t}, '
            f'sym_name = "main"}}> ({{\n  ^bb0(%0: {t}):\n    %1 = tensor.exp %0 : {t}\n'
            f'    builtin.return %1\n  }})\n}})\n')


def test_the_limit_is_numpys():
    assert MAX_RANK == 64
    np.ones((1,) * MAX_RANK)                        # every allowed tensor has a numpy array
    with pytest.raises(ValueError):
        np.ones((1,) * (MAX_RANK + 1))


def test_the_numpy_accy_requires_holds_max_rank():
    """numpy 1 stops at 32 dimensions: installing and building accy both require numpy 2."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    numpys = re.findall(r'"numpy\b([^"]*)"', text)
    assert len(numpys) == 2, numpys                 # the dependency and the build requirement
    assert all(re.fullmatch(r">=2(\.\d+)*", spec) for spec in numpys), numpys


def test_tensor_type_takes_at_most_max_rank_dims():
    assert TensorType("f32", (1,) * MAX_RANK).rank == MAX_RANK
    for rank in (MAX_RANK + 1, 2048):
        with pytest.raises(ShapeError, match=f"{LIMIT}, got rank {rank}") as e:
            TensorType("i8", (1,) * rank)
        assert isinstance(e.value, AccyError)
        assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("shape, message", [
    ((2, -1), r"dimensions must be >= 0, got \(2, -1\)"),
    ((2**32, 2**32, 2), r"at most 2\^63 - 1 elements"),
])
def test_tensor_type_refuses_other_bad_shapes_with_a_shape_error(shape, message):
    with pytest.raises(ShapeError, match=message) as e:
        TensorType("f32", shape)
    assert isinstance(e.value, ValueError)


def test_tracing_names_the_users_line_for_too_many_elements():
    x = np.ones(2, np.float32)
    with pytest.raises(ShapeError, match=r"at most 2\^63 - 1 elements") as e:
        accy.jit(lambda x: ops.broadcast_to(x, (2**32, 2**32, 2))).lower(x)
    assert "test_rank_limit.py" in str(e.value)


def test_parser_rejects_a_rank_past_the_limit_where_the_type_is_written():
    parse(func_text(MAX_RANK))
    for text in (func_text(MAX_RANK + 1), func_text(2048)):     # 2048: a 10 KB module
        with pytest.raises(ParseError, match=f"bad type: a tensor has {LIMIT}") as e:
            parse(text)
        assert (e.value.line, e.value.column) == (2, 34)        # the function type's input
    generic = f'"t.op"() : () -> {tensor_text(MAX_RANK + 1, "i32")}'
    with pytest.raises(ParseError, match=LIMIT):
        parse(generic, Context(allow_unregistered=True))


def test_builder_rejects_an_inferred_type_past_the_limit():
    """A gather of a rank-64 tensor by rank-64 indices would have rank 127."""
    ctx = Context()
    module = Module.create(ctx)
    ins = [TensorType("f32", (1,) * MAX_RANK), TensorType("i32", (1,) * MAX_RANK)]
    func = Builder(ctx).at_end(module.body).create("builtin.func", attributes={
        "sym_name": "main", "function_type": FunctionType(ins, [])})
    block = func.regions[0].add_block(ins)
    before = ctx.num_operations
    with pytest.raises(ShapeError, match=f"'tensor.gather' a tensor has {LIMIT}, got rank 127"):
        Emitter(Builder(ctx).at_end(block)).op("tensor.gather", *block.arguments, axis=0)
    assert ctx.num_operations == before


@pytest.mark.parametrize("fn", [
    lambda x: x.reshape((1,) * (MAX_RANK + 1)),
    lambda x: x[None],
    lambda x: ops.expand_dims(x, 0),
    lambda x: ops.broadcast_to(x, (2,) + x.shape),
    lambda x: ops.take(x, np.zeros(x.shape, np.int32), axis=0),
], ids=["reshape", "none-index", "expand_dims", "broadcast_to", "take"])
def test_tracing_rejects_a_rank_past_the_limit_at_the_users_line(fn):
    x = np.ones((1,) * MAX_RANK, np.float32)
    with pytest.raises(ShapeError, match=LIMIT) as e:
        accy.jit(fn).lower(x)
    assert "test_rank_limit.py" in str(e.value)


def test_accy_compile_reports_the_rank_of_an_ir_file(tmp_path, capsys):
    src = tmp_path / "wide.mlir"
    src.write_text(func_text(MAX_RANK + 1))
    assert accy_main(["compile", str(src), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("accy: error: 2:34: bad type") and LIMIT in err


@pytest.mark.parametrize("kind", KINDS)
def test_the_largest_rank_compiles_and_runs_as_the_reference(kind, rng):
    x = rng.standard_normal(shape_of(MAX_RANK)).astype(np.float32)
    check(KINDS[kind], [x], exact=False, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["argmax", "argmin", "take_along_axis"])
def test_the_largest_rank_runs_arg_reductions_and_gathers_as_the_reference(kind, rng):
    """numpy's take_along_axis makes an index array per dimension and takes at most 63: the
    reference's argmax/argmin and along-axis gather must not rely on it."""
    shape = shape_of(MAX_RANK)
    x = rng.standard_normal(shape).astype(np.float32)
    if kind == "take_along_axis":
        idx = rng.integers(0, 2, shape[:11] + (3,) + shape[12:]).astype(np.int32)
        check(lambda x, i: ops.take_along_axis(x, i, axis=11), [x, idx])
    else:
        check(lambda x: getattr(ops, kind)(x, axis=3 if kind == "argmax" else MAX_RANK - 5), [x])


def test_a_constant_gather_at_the_largest_rank_folds_as_the_reference(rng):
    shape = shape_of(MAX_RANK)
    x, data = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    idx = rng.integers(0, 2, shape).astype(np.int32)

    def fn(x):
        return x + ops.take_along_axis(data, idx, axis=19)
    assert "tensor.gather" in accy.jit(fn).lower(x).print()
    exe = check(fn, [x])
    assert "tensor.gather" not in exe.module_text              # folded when compiling
    eight = (2,) * 8                    # the dims of 2 (3, 11, 19, ...): axis 19 is the third
    want = np.take_along_axis(data.reshape(eight), idx.reshape(eight), axis=2).reshape(shape)
    np.testing.assert_array_equal(exe.run(x, device="emulator"), x + want)


def three_twos(rank):
    """Three dims of 2 (the others 1) at any rank: 8 elements, so only the rank grows."""
    return tuple(2 if i in (3, rank // 2, rank - 2) else 1 for i in range(rank))


def scalars(key):
    """The scalars hashing `key` reads (a tuple hashes each of its items)."""
    return sum(map(scalars, key)) if isinstance(key, tuple) else 1


ITEM_ENTRIES = {"inputs", "recipes"}      # what a Lowering puts in its item's memo when made


class HashCountingMemo(dict):
    """A Lowering memo adding to `counts["hashed"]` the scalars each lookup or store hashes."""

    def __init__(self, counts):
        super().__init__()
        self.counts = counts

    def hashing(self, key):
        self.counts["hashed"] += scalars(key)
        return key

    def get(self, key, default=None):
        return super().get(self.hashing(key), default)

    def setdefault(self, key, default=None):
        return super().setdefault(self.hashing(key), default)

    def __getitem__(self, key):
        return super().__getitem__(self.hashing(key))

    def __setitem__(self, key, value):
        super().__setitem__(self.hashing(key), value)

    def __contains__(self, key):
        return super().__contains__(self.hashing(key))


def lowering_work(fn, rank, monkeypatch):
    """Scalars hashed by the elementwise lowering's memo lookups while compiling `fn`."""
    counts = {"hashed": 0}
    init = elementwise.Lowering.__init__

    def counting(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if not isinstance(self.memo, HashCountingMemo):     # a sibling shares its parent's
            assert set(self.memo) <= ITEM_ENTRIES        # a new item's memo: nothing looked up
            memo = HashCountingMemo(counts)
            memo.update(self.memo)                      # the same inputs set and recipe table
            self.memo = memo
    with monkeypatch.context() as patch:
        patch.setattr(elementwise.Lowering, "__init__", counting)
        accy.compile(fn, np.ones(three_twos(rank), np.float32))
    assert counts["hashed"], "the lowering's memo was not used"
    return counts["hashed"]


@pytest.mark.parametrize("kind", KINDS)
def test_lowering_work_grows_at_most_with_the_square_of_the_rank(kind, monkeypatch):
    """An index expression has rank coefficients, a read rank expressions: a lookup hashing
    one read's index is rank^2 work, and an index map must look its table up once. Hashing
    the index once per expression (rank times per map) made lowering cubic in the rank."""
    work = {rank: lowering_work(KINDS[kind], rank, monkeypatch) for rank in (16, 32, 64)}
    per_square = {rank: w / rank ** 2 for rank, w in work.items()}
    assert per_square[64] <= per_square[32] <= per_square[16], work
