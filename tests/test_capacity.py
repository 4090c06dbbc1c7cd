"""Capacity limits (refused changes leave the Context exactly as before) and fingerprints."""
import dataclasses
import os
import sys

import numpy as np
import pytest

from accy.ir import (Block, Builder, Capacity, CapacityError, Context, DenseAttr, Module,
                     SymbolRefAttr, TensorType, parse)
from child_process import run_bounded
from ir_helpers import F32, I32, build_func, counts

FIELDS = ["max_operations", "max_values", "max_blocks", "max_attribute_bytes",
          "max_analysis_bytes", "max_analysis_entries"]


# ---- Capacity itself ------------------------------------------------------------------------

def test_capacity_defaults_and_as_limits():
    cap = Capacity()
    limits = cap.as_limits()
    assert list(limits) == FIELDS
    assert all(isinstance(v, int) and v > 0 for v in limits.values())
    assert limits["max_operations"] >= 1_000_000
    small = Capacity(max_operations=5, max_blocks=0)
    assert small.as_limits() == {**limits, "max_operations": 5, "max_blocks": 0}
    small.as_limits()["max_operations"] = 99          # a fresh dict: the Capacity is unchanged
    assert small.max_operations == 5 and small.as_limits()["max_operations"] == 5
    assert Capacity(max_operations=2**31 - 2).max_operations == 2**31 - 2
    assert Capacity(max_attribute_bytes=2**40).as_limits()["max_attribute_bytes"] == 2**40
    assert Capacity(max_operations=3) == Capacity(max_operations=3)


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("bad", [-1, 1.0, True, None, "5", 2.5])
def test_capacity_rejects_bad_values(field, bad):
    with pytest.raises(ValueError, match=field):
        Capacity(**{field: bad})


@pytest.mark.parametrize("field", ["max_operations", "max_values", "max_blocks"])
def test_capacity_id_limits_fit_32_bits(field):
    with pytest.raises(ValueError):
        Capacity(**{field: 2**31 - 1})
    with pytest.raises(ValueError):
        Capacity(**{field: 2**40})


def test_capacity_is_frozen_and_checked_by_context():
    cap = Capacity()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cap.max_operations = 1
    with pytest.raises(TypeError):
        Context(capacity={"max_operations": 3})
    assert Context(capacity=Capacity(max_values=7)).capacity == Capacity(max_values=7)


# ---- exceeding limits through the builder ---------------------------------------------------

def _base(ctx):
    """module { func @f(a0, a1) { %x = add; return %x } } : 3 ops, 3 values, 2 blocks."""
    m, f, entry, b = build_func(ctx)
    x = b.create("test.add", list(entry.arguments))
    b.create("builtin.return", [x.result])
    return m, f, entry, b


def _exact_capacity(**extra):
    probe = Context()
    _base(probe)
    ops, values, blocks, abytes = counts(probe)
    return Capacity(**{"max_operations": ops, "max_values": values, "max_blocks": blocks,
                       "max_attribute_bytes": abytes, **extra})


BUILDER_CASES = {
    "op": lambda ctx, m, entry, b: Builder(ctx).at_start(entry).create("test.sink"),
    "detached_op": lambda ctx, m, entry, b: Builder(ctx).create("test.sink"),
    "result": lambda ctx, m, entry, b: Builder(ctx).create("test.pair", result_types=[F32, F32]),
    "block": lambda ctx, m, entry, b: entry.parent.add_block(),
    "detached_block": lambda ctx, m, entry, b: Block.create(ctx, []),
    "block_with_args": lambda ctx, m, entry, b: Block.create(ctx, [F32, F32]),
    "argument": lambda ctx, m, entry, b: entry.add_argument(F32),
    "module": lambda ctx, m, entry, b: Module.create(ctx),
    "module_body": lambda ctx, m, entry, b: Module.create(ctx),
    "attribute_on_create": lambda ctx, m, entry, b: Builder(ctx).at_start(entry).create(
        "test.sink", attributes={"note": "x" * 10}),
    "set_attribute": lambda ctx, m, entry, b: entry.first_op.set_attribute("note", "x"),
    "dense_attribute": lambda ctx, m, entry, b: entry.first_op.set_attribute(
        "big", DenseAttr(np.zeros(1000, np.float32))),
}


def _tight_context(case):
    """A Context whose limits are exactly what the base IR needs, with room only where the
    case needs none, so that the case must exceed one limit."""
    room = {"max_operations": 0, "max_values": 0, "max_blocks": 0, "max_attribute_bytes": 0}
    cap = _exact_capacity()
    grow = {k: getattr(cap, k) + 1000 for k in room}
    limited = {
        "op": "max_operations", "detached_op": "max_operations", "result": "max_values",
        "block": "max_blocks", "detached_block": "max_blocks", "block_with_args": "max_values",
        "argument": "max_values", "module": "max_operations", "module_body": "max_blocks",
        "attribute_on_create": "max_attribute_bytes", "set_attribute": "max_attribute_bytes",
        "dense_attribute": "max_attribute_bytes",
    }[case]
    grow[limited] = getattr(cap, limited)
    return Context(capacity=Capacity(**grow)), limited


@pytest.mark.parametrize("case", list(BUILDER_CASES), ids=list(BUILDER_CASES))
def test_exceeding_a_limit_through_the_api_changes_nothing(case):
    ctx, limited = _tight_context(case)
    m, f, entry, b = _base(ctx)
    before, text, epoch = counts(ctx), m.print(), m.epoch
    with pytest.raises(CapacityError, match=limited):
        BUILDER_CASES[case](ctx, m, entry, b)
    assert counts(ctx) == before and m.print() == text and m.epoch == epoch
    assert entry.first_op.attributes == {}
    # still usable: free room, build again, verify
    entry.first_op.replace_all_uses_with(entry.arguments[0])
    entry.first_op.erase()
    x = Builder(ctx).at_start(entry).create("test.add", list(entry.arguments))
    entry.last_op.set_operand(0, x.result)
    m.verify()
    assert counts(ctx) == before


def test_limits_count_live_records_and_freed_room_is_reused():
    ctx = Context(capacity=Capacity(max_operations=3, max_values=2))
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    a = b.create("test.source", result_types=[F32])
    c = b.create("test.source", result_types=[F32])
    with pytest.raises(CapacityError):
        b.create("test.sink")
    for _ in range(5):                                 # erase/create cycles stay within limits
        c.erase()
        c = b.create("test.source", result_types=[F32])
    assert counts(ctx)[:3] == (3, 2, 1)
    with pytest.raises(CapacityError):
        b.create("test.sink")
    a.erase()
    b.create("test.sink", [c.result])
    m.verify()


def test_attribute_bytes_are_returned_on_erase_and_removal():
    ctx = Context()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    assert ctx.attribute_bytes == 0
    s = b.create("test.sink", attributes={"text": "x" * 100})
    held = ctx.attribute_bytes
    assert held >= 100
    s.set_attribute("big", DenseAttr(np.zeros(256, np.float64)))
    assert ctx.attribute_bytes >= held + 2048
    s.remove_attribute("big")
    assert ctx.attribute_bytes == held
    s.set_attribute("text", "y" * 100)                 # replacing a value of the same size
    assert ctx.attribute_bytes == held
    s.erase()
    assert ctx.attribute_bytes == 0


# ---- exceeding limits through parse and clone -----------------------------------------------

PROGRAM = """\
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xf32>, %1: tensor<4xf32>):
    %2 = test.add %0, %1 : tensor<4xf32>
    %3 = test.loop %2 {tag = "loop"} : tensor<4xf32> ({
    ^bb0(%4: tensor<4xf32>):
      %5 = test.add %4, %2 : tensor<4xf32>
      test.yield %5
    })
    test.graph ({
      test.sink %3
    ^bb1(%6: tensor<4xi32>):
    })
    builtin.return %3
  })
})
"""
LIMITED = ["max_operations", "max_values", "max_blocks", "max_attribute_bytes"]


def _needs(text, verify=True):
    ctx = Context()
    parse(text, ctx, verify=verify)
    return dict(zip(LIMITED, counts(ctx)))


def _existing(ctx):
    """Some IR already in the Context, to check that a refused change leaves it alone."""
    m = Module.create(ctx)
    Builder(ctx).at_end(m.body).create("test.sink", attributes={"k": "v"})
    return m


@pytest.mark.parametrize("field", LIMITED)
def test_parse_within_and_beyond_each_limit(field):
    need = _needs(PROGRAM)
    probe = Context()
    _existing(probe)
    base = dict(zip(LIMITED, counts(probe)))
    for limit in range(base[field], base[field] + need[field] + 1):
        ctx = Context(capacity=Capacity(**{field: limit}))
        existing = _existing(ctx)
        before, text = counts(ctx), existing.print()
        if limit < base[field] + need[field]:
            with pytest.raises(CapacityError, match=field):
                parse(PROGRAM, ctx)
            assert counts(ctx) == before, f"{field}={limit}: records left behind"
            assert existing.print() == text
            existing.body.first_op.erase()             # still usable
            Builder(ctx).at_end(existing.body).create("test.sink")
            existing.verify()
        else:
            assert parse(PROGRAM, ctx).print() == PROGRAM


@pytest.mark.parametrize("field", LIMITED)
def test_parse_with_forward_references_beyond_limits(field):
    text = ('%a = test.source : tensor<4xf32>\n"test.graph"() ({\n'
            '  "test.sink"(%b, %a) : (tensor<4xf32>, tensor<4xf32>) -> ()\n'
            '  %b = "test.source"() {k = "long attribute"} : () -> tensor<4xf32>\n'
            '}) : () -> ()\n')
    need = _needs(text, verify=False)
    for limit in range(need[field]):
        ctx = Context(allow_unregistered=True, capacity=Capacity(**{field: limit}))
        with pytest.raises(CapacityError):
            parse(text, ctx, verify=False)
        assert counts(ctx) == (0, 0, 0, 0), f"{field}={limit}: records left behind"


def _clone_target(ctx, what, func):
    """Prepare a destination Context: existing IR, plus a value to map %2 to for the loop."""
    holder = _existing(ctx)
    if what != "loop":
        return holder, None
    v = Builder(ctx).at_end(holder.body).create("test.source", result_types=[F32])
    return holder, {func.regions[0].entry.first_op.result: v.result}


@pytest.mark.parametrize("field", LIMITED)
@pytest.mark.parametrize("what", ["module", "func", "loop"])
def test_clone_within_and_beyond_each_limit(field, what):
    src = parse(PROGRAM, Context())
    func = src.body.first_op
    root = {"module": src, "func": func, "loop": func.regions[0].entry.operations[1]}[what]
    src_text, src_counts = src.print(), counts(src.context)
    probe = Context()
    _, mapping = _clone_target(probe, what, func)
    base = dict(zip(LIMITED, counts(probe)))
    root.clone(probe, mapping=mapping)
    grown = dict(zip(LIMITED, counts(probe)))[field] - base[field]
    assert grown > 0
    for extra in range(grown + 1):
        dst = Context(capacity=Capacity(**{field: base[field] + extra}))
        holder, mapping = _clone_target(dst, what, func)
        before, text = counts(dst), holder.print()
        if extra < grown:
            with pytest.raises(CapacityError, match=field):
                root.clone(dst, mapping=mapping)
            assert counts(dst) == before and holder.print() == text
            holder.body.first_op.erase()               # still usable
            Builder(dst).at_end(holder.body).create("test.sink")
            holder.verify()
        else:
            assert root.clone(dst, mapping=mapping).print() == root.print()
    assert src.print() == src_text and counts(src.context) == src_counts


def test_clone_within_one_context_beyond_a_limit():
    src = parse(PROGRAM, Context(capacity=Capacity(max_operations=_needs(PROGRAM)[
        "max_operations"] + 2)))
    ctx = src.context
    before, text = counts(ctx), src.print()
    with pytest.raises(CapacityError):
        src.body.first_op.clone()
    assert counts(ctx) == before and src.print() == text
    src.verify()


# ---- fingerprints ---------------------------------------------------------------------------

def _fp_ir(ctx=None, *, attr=3, dtype="f32", swap=False, callee="f", shape=(4,)):
    ctx = ctx or Context()
    t = TensorType(dtype, shape)
    m, f, entry, b = build_func(ctx, name="f", inputs=(t, t), results=(t,))
    a0, a1 = entry.arguments
    ops = [lambda: b.create("test.count", attributes={"n": attr}),
           lambda: b.create("test.sink", [a1])]
    for make in (reversed(ops) if swap else ops):
        make()
    x = b.create("test.add", [a0, a1])
    b.create("builtin.return", [x.result])
    _, g, ge, gb = build_func(ctx, name="g", inputs=(t, t), results=(t,), module=m)
    call = gb.create("builtin.call", list(ge.arguments), result_types=[t],
                     attributes={"callee": SymbolRefAttr(callee)})
    gb.create("builtin.return", [call.result])
    return m


def test_fingerprint_equal_for_the_same_ir():
    a, b = _fp_ir(), _fp_ir()
    assert a.fingerprint() == b.fingerprint()
    assert len(a.fingerprint()) == 64 and int(a.fingerprint(), 16) >= 0
    ctx = Context()
    _ = [Module.create(ctx) for _ in range(3)]        # different ids in a used Context
    c = _fp_ir(ctx)
    assert c.fingerprint() == a.fingerprint()
    assert a.clone().fingerprint() == a.fingerprint()
    assert a.clone(Context()).fingerprint() == a.fingerprint()


def test_fingerprint_ignores_value_and_block_names_in_text():
    text = _fp_ir().print(generic=True)
    renamed = (text.replace("%0", "%arg_a").replace("%1", "%arg_b").replace("%2", "%v.sum")
               .replace("^bb0", "^entry"))
    assert renamed != text
    assert parse(renamed).fingerprint() == _fp_ir().fingerprint()
    assert parse(_fp_ir().print()).fingerprint() == _fp_ir().fingerprint()


@pytest.mark.parametrize("change", [dict(attr=4), dict(dtype="f16"), dict(shape=(2, 2)),
                                    dict(swap=True), dict(callee="g")],
                         ids=["attribute", "dtype", "shape", "op_order", "symbol"])
def test_fingerprint_changes_with_the_ir(change):
    assert _fp_ir(**change).fingerprint() != _fp_ir().fingerprint()


def test_fingerprint_changes_with_mutations():
    m = _fp_ir()
    seen = {m.fingerprint()}
    add = m.body.first_op.regions[0].entry.operations[2]
    add.set_attribute("extra", 1)
    seen.add(m.fingerprint())
    add.remove_attribute("extra")
    assert m.fingerprint() in seen
    add.set_operands([add.operands[1], add.operands[0]])
    seen.add(m.fingerprint())
    add.result.set_type(I32)
    seen.add(m.fingerprint())
    assert len(seen) == 4
    sub = add.fingerprint()
    assert sub != m.fingerprint() and len(sub) == 64


def test_fingerprint_stable_across_processes():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    code = (
        "import sys; sys.path[:0] = [{root!r}, {here!r}]\n"
        "import conftest, test_capacity\n"
        "from accy.ir import register_dialect\n"
        "register_dialect('test', conftest.TEST_ROWS)\n"
        "print(test_capacity._fp_ir().fingerprint())\n"
        "print(test_capacity._fp_ir(attr=4).fingerprint())\n"
    ).format(root=root, here=here)
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = run_bounded([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=root)
        assert out.returncode == 0, out.stderr
        outputs.add(tuple(out.stdout.split()))
    assert outputs == {(_fp_ir().fingerprint(), _fp_ir(attr=4).fingerprint())}
