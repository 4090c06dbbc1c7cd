"""Tensor rank is capped at MAX_RANK (64, numpy's limit) wherever a tensor type is made: the
type itself, the text parser, the IR builder (an inferred result type), tracing and the `accy
compile` command. The largest allowed rank compiles and runs on the emulator as the reference
does, and the elementwise lowering's remembered work grows with the square of the rank, not
its cube."""
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

from test_compile import check

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


def test_tensor_type_takes_at_most_max_rank_dims():
    assert TensorType("f32", (1,) * MAX_RANK).rank == MAX_RANK
    for rank in (MAX_RANK + 1, 2048):
        with pytest.raises(ShapeError, match=f"{LIMIT}, got rank {rank}") as e:
            TensorType("i8", (1,) * rank)
        assert isinstance(e.value, (AccyError, ValueError))


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


def shape_of(rank):
    """Mostly 1s, a 2 every eighth dim: 2^(rank / 8) elements."""
    return tuple(2 if i % 8 == 3 else 1 for i in range(rank))


def chain(x):
    return ops.tanh(ops.exp(x) * x + 1.5) - x


def reduction(x):
    return ops.sum(x * x, axis=tuple(range(1, x.ndim, 2)))


def transpose(x):
    return ops.transpose(x, tuple(reversed(range(x.ndim)))) * 2.0


def broadcast(x):
    return x + ops.reshape(ops.sum(x, axis=0), (1,) + x.shape[1:])


KINDS = {"chain": chain, "reduction": reduction, "transpose": transpose, "broadcast": broadcast}


@pytest.mark.parametrize("kind", KINDS)
def test_the_largest_rank_compiles_and_runs_as_the_reference(kind, rng):
    x = rng.standard_normal(shape_of(MAX_RANK)).astype(np.float32)
    check(KINDS[kind], [x], exact=False, rtol=1e-6, atol=1e-6)


def memo_key_size(memo):
    """Scalars in the keys of a Lowering memo (and of the tables it holds): what looking each
    key up once hashes."""
    def scalars(key):
        return sum(map(scalars, key)) if isinstance(key, tuple) else 1
    return sum(scalars(k) + (memo_key_size(v) if isinstance(v, dict) else 0)
               for k, v in memo.items())


def lowering_work(fn, rank, monkeypatch):
    memos = {}
    init = elementwise.Lowering.__init__

    def recording(self, *args, **kwargs):
        init(self, *args, **kwargs)
        memos[id(self.memo)] = self.memo
    monkeypatch.setattr(elementwise.Lowering, "__init__", recording)
    accy.compile(fn, np.ones(shape_of(rank), np.float32))
    monkeypatch.setattr(elementwise.Lowering, "__init__", init)
    return sum(map(memo_key_size, memos.values()))


@pytest.mark.parametrize("kind", KINDS)
def test_lowering_work_grows_at_most_with_the_square_of_the_rank(kind, monkeypatch):
    """Index expressions are rank coefficients each, rank of them per read: a memo key holding
    them all once per expression (rank times per index map) made the work cubic."""
    work = {rank: lowering_work(KINDS[kind], rank, monkeypatch) for rank in (16, 32, 64)}
    per_square = {rank: w / rank ** 2 for rank, w in work.items()}
    assert per_square[64] <= per_square[32] <= per_square[16], work
