"""The PTX emitter's assembler (accy.lowering.assembler): an op signature's text is recorded
once and replayed, and the replay is byte for byte what the op's handler writes.

The emitter's own kernels are emitted three ways and compared: every op through its handler
(no recordings), with an empty table (each signature's first op recorded, the rest replayed),
and with the table the first run filled (every recordable op replayed). A probe assembler with
handlers of its own shows which ops are recorded, which run their handler, and the numbers a
replay takes.
"""
import collections

import ml_dtypes
import numpy as np
import pytest

import accy.ops as ops
from accy.compiler import compilation
from accy.ir import Context, Module
from accy.lowering import ptx
from accy.lowering.assembler import Assembler
from accy.lowering.kl import KernelBuilder, ptr_type, scalar
from accy.lowering.legalize import legalize


def grid_kernel(ins, out, fn):
    """A module with kernel `k`: out[i] = fn(kb, *loads) over a grid-stride loop."""
    ctx = Context()
    m = Module.create(ctx)
    kb = KernelBuilder(ctx, m.body, "k", [ptr_type(d) for d in ins] +
                       [ptr_type(out), scalar("i64")])
    *xs, y, n = kb.params

    def body(kb, i):
        kb.store(fn(kb, *[kb.load(p, i) for p in xs]), y, i)
    kb.for_(kb.global_index(), n, kb.grid_size(), [], body)
    kb.finish()
    return m


def integers(kb, x, y):
    """i32 and i64 ops, twice each (the second replays): guarded and constant divisions,
    shifts, a power loop (labels), counts, small-integer wraps, repeated operands."""
    out = x
    for _ in range(2):
        v = kb.op("add", kb.op("mul", out, y), kb.op("div", out, y))
        v = kb.op("sub", v, kb.op("rem", v, kb.constant(7, "i32")))
        v = kb.op("xor", v, kb.op("div", v, kb.constant(-6, "i32")))
        v = kb.op("add", kb.op("shl", v, y), kb.op("shr", v, kb.constant(3, "i32")))
        v = kb.op("max", kb.op("pow", v, kb.op("and", y, kb.constant(7, "i32"))), v)
        v = kb.op("add", v, kb.op("popc", v))
        v = kb.op("add", v, kb.op("mul", v, v))                 # a repeated operand
        wide = kb.op("div", kb.convert(v, "i64"), kb.constant(1_000_003, "i64"))
        small = kb.op("add", kb.convert(v, "i8"), kb.convert(y, "i8"))
        v = kb.op("add", kb.convert(wide, "i32"), kb.convert(small, "i32"))
        v = kb.op("select", kb.cmp("LT", v, y), v, kb.op("neg", kb.op("abs", v)))
        out = kb.op("select", kb.cmp("EQ", v, v), v, v)
    return out


def floats(kb, x, y):
    """f32, f16 and bf16 ops, twice each: math-library transcendentals, min/max, rounding,
    fmod, widened half arithmetic, converts."""
    out = x
    for _ in range(2):
        v = kb.op("add", kb.op("exp", out), kb.op("tanh", kb.op("mul", out, y)))
        v = kb.op("max", kb.op("min", v, y), kb.op("log", kb.op("abs", v)))
        v = kb.op("add", kb.op("round_afz", v), kb.op("rem", v, y))
        v = kb.op("fma", kb.op("sqrt", kb.op("abs", v)), kb.op("sign", v), kb.op("div", v, y))
        h = kb.convert(v, "f16")
        h = kb.op("add", kb.op("mul", h, h), kb.op("exp", h))
        b = kb.convert(v, "bf16")
        b = kb.op("sub", kb.op("neg", b), kb.op("logistic", b))
        v = kb.op("add", kb.op("add", kb.convert(h, "f32"), kb.convert(b, "f32")), v)
        out = kb.op("select", kb.is_finite(v), v, y)
    return out


def built():
    return [grid_kernel(("i32", "i32"), "i32", integers),
            grid_kernel(("f32", "f32"), "f32", floats)]


def compiled():
    """The kl of a few compiled functions (softmax, a bf16 tensor-core matmul, causal flash
    attention), small shapes."""
    rng = np.random.default_rng(0)
    m = rng.standard_normal((64, 128)).astype(np.float32)
    a = rng.standard_normal((128, 128)).astype(ml_dtypes.bfloat16)
    q = rng.standard_normal((1, 2, 128, 64)).astype(ml_dtypes.bfloat16)
    out = []
    for fn, args in ((ops.softmax, (m,)), (lambda x, y: x @ y, (a, a)),
                     (lambda q, k, v: ops.attention(q, k, v, causal=True), (q, q, q))):
        c = compilation(fn, *args, stop="kl")
        out.append((c.kl, c.target))
    return out


def emitted(module, tier, recordings, monkeypatch, calls=None):
    """`module`'s PTX emitted with recording table `recordings` (None: no recording); `calls`
    counts the handler calls by op name."""
    monkeypatch.setattr(ptx, "_RECORDINGS", {t: recordings for t in ptx.MATH_TIERS})
    monkeypatch.setattr(ptx, "_HANDLERS", {})
    if calls is not None:
        plain = ptx._Kernel.handler

        def counted(name):
            handler, recorded = plain(name)

            def call(kernel, op):
                calls[name] += 1
                return handler(kernel, op)
            return call, recorded
        monkeypatch.setattr(ptx._Kernel, "handler", staticmethod(counted))
    text = ptx.emit_module(module, arch="sm_90", math_tier=tier)
    monkeypatch.undo()
    return text


def check_replay(module, tier, monkeypatch):
    legalize(module)
    plain = emitted(module, tier, None, monkeypatch)
    table, first, second = {}, collections.Counter(), collections.Counter()
    assert emitted(module, tier, table, monkeypatch, first) == plain
    assert emitted(module, tier, table, monkeypatch, second) == plain
    n_ops = sum(1 for op in module.walk() if op.name.startswith("kl.") and
                op.name != "kl.kernel")
    # the first run ran a handler for each signature's first op, the second for fewer ops
    # still (loops, branches, constants, and ops whose signature was never recorded)
    assert table and sum(first.values()) < n_ops
    assert sum(second.values()) < sum(first.values())


@pytest.mark.parametrize("tier", ptx.MATH_TIERS)
@pytest.mark.parametrize("which", [0, 1])
def test_replay_writes_the_handlers_text(which, tier, monkeypatch):
    check_replay(built()[which], tier, monkeypatch)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_replay_of_compiled_kernels(which, monkeypatch):
    module, target = compiled()[which]
    check_replay(module, target.math_tier, monkeypatch)


class Probe(Assembler):
    """Handlers of its own: kl.add takes a register and a label, kl.mul also reads a register
    it was not given, the first op's (so it is never recorded)."""

    def __init__(self, kernel, recordings):
        super().__init__(kernel.context, {}, recordings)
        self.calls = collections.Counter()

    def handler(self, name):
        def call(k, op):
            k.calls[name] += 1
            getattr(k, "_" + name[3:])(op)
        return call, True

    def _special(self, op):
        self.define(op.results[0], self.op("mov.u32", "%tid.x"))

    def _add(self, op):
        d = self.new("r")
        self.place(self.label())
        self.emit(f"add.s32 {d}, {self.reg(op.operands[0])}, {self.reg(op.operands[1])}")
        self.define(op.results[0], d)

    def _mul(self, op):
        first = op.parent.first_op.results[0]
        self.define(op.results[0], self.op("mad.lo.s32", *(self.reg(v) for v in op.operands),
                                           self.reg(first)))

    def _return(self, op):
        self.emit("ret")


def probe_kernel():
    ctx = Context()
    m = Module.create(ctx)
    kb = KernelBuilder(ctx, m.body, "k", [scalar("i32")])
    t = kb.special("tid.x")
    a = kb.op("add", t, t)          # a repeated operand: handled, not recorded
    b = kb.op("add", a, t)          # recorded
    c = kb.op("add", b, a)          # replayed
    kb.op("mul", kb.op("mul", c, kb.params[0]), c)
    return kb.finish()


PROBED = """\tmov.u32 %r1, %tid.x;
$L__1:
\tadd.s32 %r2, %r1, %r1;
$L__2:
\tadd.s32 %r3, %r2, %r1;
$L__3:
\tadd.s32 %r4, %r3, %r2;
\tmad.lo.s32 %r5, %r4, %r0, %r1;
\tmad.lo.s32 %r6, %r5, %r4, %r1;
\tret;"""


@pytest.mark.parametrize("recorded", [False, True])
def test_probe_records_once_per_signature(recorded):
    kernel = probe_kernel()
    table = {} if recorded else None
    runs = []
    for _ in range(2):
        k = Probe(kernel, table)
        k.define(kernel.regions[0].entry.arguments[0], k.new("r"))
        k.block(kernel.regions[0].entry)
        assert "\n".join(k.lines) == PROBED
        assert k.register_counts() == {"p": 0, "rs": 0, "r": 7, "rd": 0, "f": 0, "fd": 0}
        runs.append(dict(k.calls))
    if not recorded:
        assert runs == [{"kl.special": 1, "kl.add": 3, "kl.mul": 2, "kl.return": 1}] * 2
    else:
        # first run: the repeated-operand add and the recorded add ran, the third replayed;
        # second run: every add replays the one recording of their signature (the repeated
        # operand written twice); the muls read a register outside the op and always run
        assert runs == [{"kl.special": 1, "kl.add": 2, "kl.mul": 2, "kl.return": 1},
                        {"kl.mul": 2}]


def test_a_value_without_a_register_is_the_handlers_error():
    kernel = probe_kernel()
    k = Probe(kernel, {})
    with pytest.raises(KeyError):               # the parameter was never defined
        k.block(kernel.regions[0].entry)
