"""Legalization (accy.lowering.legalize): hand-built kl in, legal kl out.

Each case asserts the rewrite on the kernel's ops, that the result is still valid kl, and
that the emitted PTX of the rewritten kernel, run on the CPU emulator, matches
`accy.reference` bit for bit over random inputs with the dtype's edge values mixed in.
"""
import numpy as np
import pytest

import accy.reference
from accy.errors import UnsupportedError
from accy.ir import Context, Module, TensorType
from accy.lowering.kl import KernelBuilder, ptr_type, scalar
from accy.lowering.legalize import legalize
from accy.lowering.ptx import emit_module
from accy.runtime.emulator.driver import Emulator

from tensor_helpers import NP, assert_bits, module_of, random_array

N = 2048
TENSOR = {"add": "add", "mul": "multiply", "min": "minimum", "max": "maximum",
          "div": "divide", "rem": "remainder", "sub": "subtract", "sqrt": "sqrt"}


def elementwise(ins, out, fn, name="k"):
    """(module, kernel): out[i] = fn(kb, *operands[i]) over a grid-stride loop; parameters:
    the operand pointers, the output pointer, n (i64)."""
    ctx = Context()
    m = Module.create(ctx)
    kb = KernelBuilder(ctx, m.body, name, [ptr_type(d) for d in ins] +
                       [ptr_type(out), scalar("i64")])
    *xs, y, n = kb.params

    def body(kb, i):
        kb.store(fn(kb, *[kb.load(p, i) for p in xs]), y, i)
    kb.for_(kb.global_index(), n, kb.grid_size(), [], body)
    kernel = kb.finish()
    m.verify()
    return m, kernel


def op_names(kernel):
    return [op.name for op in kernel.walk()]


def legalized(m, kernel):
    legalize(m)
    m.verify()
    assert kernel.attributes["legal"] is True
    return op_names(kernel)


def run(m, inputs, out_dtype, rng, name="k"):
    """The output of kernel `name` of `m` (emitted, run on the emulator) on `inputs`."""
    dev = Emulator()
    text = emit_module(m, arch="sm_80")
    pointers = [dev.to_device(np.ascontiguousarray(a)) for a in inputs]
    store = np.uint8 if out_dtype == "i1" else NP[out_dtype]
    out = dev.mem_alloc(N * np.dtype(store).itemsize)
    dev.memcpy_htod(out, rng.integers(2, 256, N * np.dtype(store).itemsize, dtype=np.uint8))
    dev.module_from_buffer(text).get_function(name)(
        *pointers, out, np.int64(N), block=(128, 1, 1), grid=(4, 1, 1))
    return dev.from_device(out, (N,), store)


def reference(body, arrays):
    ttypes = [TensorType(next(k for k, v in NP.items() if v == a.dtype), a.shape)
              for a in arrays]
    return accy.reference.run(module_of(ttypes, lambda e, *xs: [body(e, *xs)]), *arrays)[0]


@pytest.mark.parametrize("dtype,c", [("i32", 7), ("i32", -6), ("i32", 8), ("i64", 1_000_003),
                                     ("i64", -4), ("i64", 1)])
def test_division_by_a_constant_becomes_shifts_or_a_multiply_high(dtype, c, rng):
    m, kernel = elementwise((dtype,), dtype, lambda kb, x: kb.op(
        "sub", kb.op("div", x, kb.constant(c, dtype)), kb.op("rem", x, kb.constant(c, dtype))))
    names = legalized(m, kernel)
    assert "kl.div" not in names and "kl.rem" not in names
    assert ("kl.mul_hi" in names) == (c not in (8, -4, 1))
    immediates = [op for op in kernel.walk() if op.name == "kl.constant" and
                  op.attributes.get("immediate", False)]
    # each immediate is made once per kernel, in the entry block (it dominates every use)
    keys = [(op.attributes["value"], op.results[0].type) for op in immediates]
    assert immediates and len(set(keys)) == len(keys)
    assert all(op.parent == kernel.regions[0].entry for op in immediates)
    x = random_array(rng, dtype, (N,))
    d = lambda e: e.constant(np.full(N, c), dtype)         # noqa: E731
    want = reference(lambda e, v: e.op("tensor.subtract", e.op("tensor.divide", v, d(e)),
                                       e.op("tensor.remainder", v, d(e))), [x])
    assert_bits(run(m, [x], dtype, rng), want, f"x / {c} - x % {c} on {dtype}")


def test_division_of_an_index_needs_no_sign_correction(rng):
    """A grid-stride index below a constant count is known to be >= 0: / 8 is one logical
    shift, % 8 one mask, / 6 a multiply-high, none with a shift by 63 for the sign."""
    ctx = Context()
    m = Module.create(ctx)
    kb = KernelBuilder(ctx, m.body, "k", [ptr_type("i64"), scalar("i64")])
    y, _ = kb.params
    c = lambda v: kb.constant(v, "i64")                     # noqa: E731

    def body(kb, i):
        q = kb.op("add", kb.op("div", i, c(8)), kb.op("rem", i, c(8)))
        kb.store(kb.op("add", kb.op("mul", q, c(1000)), kb.op("div", i, c(6))), y, i)
    kb.for_(kb.global_index(), c(N), kb.grid_size(), [], body)
    kernel = kb.finish()
    names = legalized(m, kernel)
    amounts = [int(op.operands[1].owner.attributes["value"].array)
               for op in kernel.walk() if op.name == "kl.shr"]
    assert 3 in amounts and 63 not in amounts, amounts
    assert names.count("kl.mul_hi") == 1 and "kl.and" in names
    got = run(m, [], "i64", rng)
    i = np.arange(N)
    assert got.tolist() == ((i // 8 + i % 8) * 1000 + i // 6).tolist()


@pytest.mark.parametrize("dtype", ["i16", "i8", "u8"])
def test_small_integer_division_by_a_constant_is_marked_safe(dtype, rng):
    m, kernel = elementwise((dtype,), dtype, lambda kb, x: kb.op(
        "add", kb.op("div", x, kb.constant(3, dtype)), kb.op("rem", x, kb.constant(0, dtype))))
    legalized(m, kernel)
    marks = {op.name: op.attributes.get("safe_divisor", False) for op in kernel.walk()
             if op.name in ("kl.div", "kl.rem")}
    assert marks == {"kl.div": True, "kl.rem": False}       # x % 0 keeps its guard
    x = random_array(rng, dtype, (N,))
    k = lambda e, c: e.constant(np.full(N, c), dtype)      # noqa: E731
    want = reference(lambda e, v: e.op("tensor.add", e.op("tensor.divide", v, k(e, 3)),
                                       e.op("tensor.remainder", v, k(e, 0))), [x])
    assert_bits(run(m, [x], dtype, rng), want, f"{dtype} / 3 + x % 0")


@pytest.mark.parametrize("dtype", ["i16", "i8", "u8"])
def test_small_integers_are_wrapped_after_ops_that_may_leave_their_range(dtype, rng):
    """add and a convert from i32 are followed by kl.wrap (the wrap is their one user), min is
    not: it keeps its operands' range."""
    m, kernel = elementwise((dtype, "i32"), dtype, lambda kb, x, w: kb.op(
        "min", kb.op("add", x, x), kb.convert(w, dtype)))
    legalized(m, kernel)
    wrapped = [op.operands[0].owner.name for op in kernel.walk() if op.name == "kl.wrap"]
    assert wrapped == ["kl.add", "kl.convert"]
    for op in kernel.walk():
        if op.name in ("kl.add", "kl.convert") and op.results[0].type == scalar(dtype):
            assert [use.operation.name for use in op.results[0].uses] == ["kl.wrap"]
    x, w = random_array(rng, dtype, (N,)), random_array(rng, "i32", (N,))
    want = reference(lambda e, a, b: e.op("tensor.minimum", e.op("tensor.add", a, a),
                                          e.convert(b, dtype)), [x, w])
    assert_bits(run(m, [x, w], dtype, rng), want, f"min(x + x, convert(w)) on {dtype}")


@pytest.mark.parametrize("op,logic", [("add", "or"), ("max", "or"), ("mul", "and"),
                                      ("min", "and")])
def test_i1_arithmetic_becomes_logic(op, logic, rng):
    m, kernel = elementwise(("i1", "i1"), "i1", lambda kb, a, b: kb.op(op, a, b))
    legalized(m, kernel)
    on_i1 = [o.name for o in kernel.walk() if o.results and o.results[0].type == scalar("i1")]
    assert f"kl.{op}" not in on_i1 and f"kl.{logic}" in on_i1
    a, b = (random_array(rng, "i1", (N,)) for _ in range(2))
    want = reference(lambda e, x, y: e.op(f"tensor.{TENSOR[op]}", x, y), [a, b])
    assert_bits(run(m, [a, b], "i1", rng), want.astype(np.uint8), f"{op} on i1")


def test_i1_select_and_compare(rng):
    """select on i1 -> (c and a) or (not c and b); a compare of i1 values compares u8."""
    m, kernel = elementwise(("i1", "i1", "i1"), "i1", lambda kb, c, a, b: kb.cmp(
        "LT", kb.op("select", c, a, b), b))
    names = legalized(m, kernel)
    assert "kl.select" not in names and names.count("kl.convert") >= 2
    assert names.count("kl.and") == 2 and "kl.not" in names and "kl.or" in names
    assert [op.operands[0].type for op in kernel.walk() if op.name == "kl.cmp"] == \
        [scalar("u8")]
    c, a, b = (random_array(rng, "i1", (N,)) for _ in range(3))
    want = reference(lambda e, x, y, z: e.compare(e.op("tensor.select", x, y, z), z, "LT"),
                     [c, a, b])
    assert_bits(run(m, [c, a, b], "i1", rng), want.astype(np.uint8), "select, compare on i1")


def float_dtypes(kernel):
    """{op name: the float dtypes it computes in} (converts, loads and stores aside)."""
    found = {}
    for op in kernel.walk():
        if op.name not in ("kl.convert", "kl.load", "kl.store") and op.operands:
            operand = getattr(op.operands[-1].type, "dtype", None)
            if operand in ("f32", "f16", "bf16"):
                found.setdefault(op.name, set()).add(operand)
    return found


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_arithmetic_widens_to_f32(dtype, rng):
    """add and sqrt go through f32 (converts around the f32 op), neg stays native; a compare
    compares f32, a convert to an integer converts the f32."""
    def fn(kb, a, b):
        s = kb.op("neg", kb.op("sqrt", kb.op("add", a, b)))
        return kb.convert(kb.op("select", kb.cmp("LT", s, a), s, b), "i32")
    m, kernel = elementwise((dtype, dtype), "i32", fn)
    legalized(m, kernel)
    computes = float_dtypes(kernel)
    assert computes["kl.add"] == computes["kl.sqrt"] == computes["kl.cmp"] == {"f32"}
    assert computes["kl.neg"] == computes["kl.select"] == {dtype}
    converts = [(op.operands[0].type.dtype, op.results[0].type.dtype) for op in kernel.walk()
                if op.name == "kl.convert"]
    assert (dtype, "i32") not in converts and ("f32", "i32") in converts
    a, b = (random_array(rng, dtype, (N,)) for _ in range(2))

    def want(e, x, y):
        s = e.op("tensor.negate", e.op("tensor.sqrt", e.op("tensor.add", x, y)))
        return e.convert(e.op("tensor.select", e.compare(s, x, "LT"), s, y), "i32")
    assert_bits(run(m, [a, b], "i32", rng), reference(want, [a, b]), f"{dtype} chain")


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_fma_and_transcendentals_stay_for_the_emitter(dtype):
    """fma is native on f16/bf16; the math library widens a transcendental's operand itself."""
    m, kernel = elementwise((dtype, dtype), dtype, lambda kb, a, b: kb.op(
        "fma", a, b, kb.op("exp", a)))
    legalized(m, kernel)
    assert float_dtypes(kernel) == {"kl.fma": {dtype}, "kl.exp": {dtype}}


def test_legalize_runs_once_and_emit_module_legalizes_what_is_not():
    """A legalized kernel is marked and left alone by a second legalize; emit_module gives
    the same text for a kernel it legalizes itself."""
    def make():
        return elementwise(("i32", "f16"), "f16", lambda kb, x, h: kb.op(
            "mul", kb.convert(kb.op("div", x, kb.constant(10, "i32")), "f16"), h))
    m, kernel = make()
    legalize(kernel)
    once = str(m.print())
    legalize([kernel])
    assert str(m.print()) == once
    fresh, _ = make()
    assert emit_module(m, arch="sm_80") == emit_module(fresh, arch="sm_80")


def test_what_the_emitter_refuses_is_left_for_it_to_name():
    m, kernel = elementwise(("i1", "i1"), "i1", lambda kb, a, b: kb.op("sub", a, b))
    legalize(m)
    assert "kl.sub" in op_names(kernel)
    with pytest.raises(UnsupportedError, match="op sub on dtype i1"):
        emit_module(m, arch="sm_80")
