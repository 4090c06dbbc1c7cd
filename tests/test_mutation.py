"""Building and changing IR: builder, operands and uses, erase, moves, handles, epochs, clone,
walks and blocks."""
from types import SimpleNamespace

import numpy as np
import pytest

from accy.ir import (Block, Builder, Context, DenseAttr, IRError, Module, Operation, TensorType,
                     Value, VerifyError)
from accy._core.context import count_ops, op_statistics
from ir_helpers import F32, I32, build_func, counts


def names(ops):
    return [op.name for op in ops]


def use_set(value):
    return {(u.operation, u.index) for u in value.uses}


# ---- builder ----------------------------------------------------------------------------------

def test_module_create(ctx):
    m = Module.create(ctx)
    assert m.name == "builtin.module" and m.parent is None
    assert len(m.regions) == 1 and m.regions[0].blocks == [m.body]
    assert len(m.body) == 0 and m.body.arguments == ()
    assert counts(ctx) == (1, 0, 1, 0)


def test_builder_insertion_points(ctx, module, builder):
    body = module.body
    a = builder.create("test.sink", attributes={"k": "a"})
    c = builder.create("test.sink", attributes={"k": "c"})
    builder.at_start(body)
    s1 = builder.create("test.sink", attributes={"k": "s1"})
    s2 = builder.create("test.sink", attributes={"k": "s2"})   # after s1, before a
    builder.before_op(c)
    b = builder.create("test.sink", attributes={"k": "b"})
    builder.after_op(c)
    d = builder.create("test.sink", attributes={"k": "d"})
    e = builder.create("test.sink", attributes={"k": "e"})     # after d
    builder.after_op(s1)
    s3 = builder.create("test.sink", attributes={"k": "s3"})
    assert body.operations == [s1, s3, s2, a, b, c, d, e]
    assert builder.insertion_block == body
    assert body.first_op == s1 and body.last_op == e and len(body) == 8
    assert [op.attributes["k"] for op in body] == ["s1", "s3", "s2", "a", "b", "c", "d", "e"]
    assert a.next == b and b.prev == a and s1.prev is None and e.next is None


def test_builder_at_start_of_empty_block_keeps_creation_order(ctx, module, builder):
    builder.at_start(module.body)
    ops = [builder.create("test.sink", attributes={"i": i}) for i in range(3)]
    assert module.body.operations == ops


def test_builder_detached_and_insert(ctx, module, builder):
    builder.detached()
    assert builder.insertion_block is None
    op = builder.create("test.sink")
    assert op.parent is None and op.parent_op is None and len(module.body) == 0
    with pytest.raises(IRError):
        builder.insert(op)                       # no insertion point
    builder.at_end(module.body)
    assert builder.insert(op) == op
    assert op.parent == module.body and op.parent_op == module
    with pytest.raises(IRError):
        builder.insert(op)                       # already in a block
    assert module.body.operations == [op]


def test_builder_refuses_detached_anchor_and_stale_points(ctx, module, builder):
    loose = Builder(ctx).create("test.sink")
    with pytest.raises(IRError):
        builder.before_op(loose)
    with pytest.raises(IRError):
        builder.after_op(loose)
    def refuses_to_create():
        before = counts(ctx)
        with pytest.raises(IRError):
            builder.create("test.sink")
        assert counts(ctx) == before

    anchor = builder.create("test.sink")
    builder.before_op(anchor)
    anchor.erase()
    refuses_to_create()                          # insertion point erased
    g = Builder(ctx).at_end(module.body).create("test.graph")
    block = g.regions[0].add_block()
    builder.at_end(block)
    block.erase()
    refuses_to_create()                          # insertion block erased


def test_builder_refuses_values_of_another_context(ctx, module, builder):
    other = Context()
    src = Builder(other).create("test.source", result_types=[F32])
    before = counts(ctx)
    with pytest.raises(IRError):
        builder.create("test.sink", [src.result])
    with pytest.raises(TypeError):
        builder.create("test.sink", ["not a value"])
    assert counts(ctx) == before


def test_create_with_inferred_result_types(ctx):
    _, _, entry, b = build_func(ctx)
    a0, a1 = entry.arguments
    add = b.create("test.add", [a0, a1])
    assert add.result_types == (F32,)
    const = b.create("test.constant", attributes={"value": DenseAttr(np.zeros((2, 3), np.int32))})
    assert const.result_types == (TensorType("i32", (2, 3)),)
    assert b.create("test.sink", [a0]).results == ()          # registered: no results
    for name, operands in [("test.source", []), ("test.pair", [])]:
        with pytest.raises(IRError):
            b.create(name, operands)                          # nothing to infer from


def test_create_with_explicit_result_types_and_unregistered_ops():
    ctx = Context(allow_unregistered=True)
    b = Builder(ctx).at_end(Module.create(ctx).body)
    src = b.create("test.pair", result_types=[F32, I32])
    assert src.result_types == (F32, I32)
    assert [r.index for r in src.results] == [0, 1]
    with pytest.raises(IRError):
        b.create("other.op", [src.results[0]])               # unregistered: give result types
    u = b.create("other.op", [src.results[0]], result_types=[I32], regions=2,
                 attributes={"x": 1})
    assert not u.is_registered and u.op_def is None and len(u.regions) == 2
    assert u.result_types == (I32,) and u.attributes["x"] == 1
    assert b.create("test.loop", result_types=[]).regions[0].blocks == []
    with pytest.raises(IRError):
        src.result                                            # two results, not one


def test_a_context_takes_the_row_a_name_has_when_it_first_meets_it():
    """What a Context records of an op name is worked out once per process, and again for a
    name registered anew since: a new Context sees the new row, a Context that met the name
    keeps the row it took, and an unregistered name stays refused without the flag."""
    from accy.ir import OpDef, register_dialect, traits
    register_dialect("renamed", [OpDef("renamed.op", operands=1, results=1,
                                       traits=traits.SAME_OPERANDS_AND_RESULT_TYPE)])
    try:
        old = Context()
        b = Builder(old).at_end(Module.create(old).body)
        x = b.create("test.source", result_types=[F32]).results[0]
        assert b.create("renamed.op", [x]).result_types == (F32,)     # inferred: same type
        register_dialect("renamed", [OpDef("renamed.op", operands=1, results=1)])
        new = Context()
        nb = Builder(new).at_end(Module.create(new).body)
        y = nb.create("test.source", result_types=[F32]).results[0]
        with pytest.raises(IRError, match="cannot infer"):
            nb.create("renamed.op", [y])                  # the new row: no type to infer
        assert b.create("renamed.op", [x]).result_types == (F32,)     # the row it took
        register_dialect("renamed", [])
        with pytest.raises(VerifyError, match="unregistered operation 'renamed.op'"):
            Builder(Context()).create("renamed.op", [])
        loose = Context(allow_unregistered=True)
        assert Builder(loose).create("renamed.op", [], result_types=[]).op_def is None
    finally:
        register_dialect("renamed", [])


def test_operands_results_and_uses_are_exact_after_create(ctx):
    _, func, entry, b = build_func(ctx)
    a0, a1 = entry.arguments
    pair = b.create("test.pair", result_types=[F32, F32])
    p0, p1 = pair.results
    x = b.create("test.add", [p0, p0])
    y = b.create("test.sink", [a1, p1, p0, a0])
    assert x.operands == (p0, p0) and y.operands == (a1, p1, p0, a0)
    assert x.operand_types == (F32, F32)
    assert p0.owner == pair and p0.index == 0 and p1.index == 1 and not p0.is_block_argument
    assert a1.owner == entry and a1.index == 1 and a1.is_block_argument
    assert use_set(p0) == {(x, 0), (x, 1), (y, 2)} and p0.num_uses == 3 and p0.has_uses
    assert use_set(p1) == {(y, 1)}
    assert use_set(a0) == {(y, 3)} and use_set(a1) == {(y, 0)}
    assert set(pair.uses) == use_set(p0) | use_set(p1)
    assert x.result.uses == [] and not x.result.has_uses and x.result.num_uses == 0


def test_set_operand(ctx):
    _, _, entry, b = build_func(ctx)
    a0, a1 = entry.arguments
    s = b.create("test.sink", [a0, a0])
    s.set_operand(1, a1)
    assert s.operands == (a0, a1)
    assert use_set(a0) == {(s, 0)} and use_set(a1) == {(s, 1)}
    s.set_operand(0, None)
    assert s.operands == (None, a1) and a0.uses == []
    for bad in (2, -1):
        with pytest.raises(IndexError):
            s.set_operand(bad, a0)
    assert s.operands == (None, a1)


def test_set_operands_changes_length(ctx):
    _, _, entry, b = build_func(ctx)
    a0, a1 = entry.arguments
    s = b.create("test.sink", [a0])
    s.set_operands([a1, a0, a1])
    assert s.operands == (a1, a0, a1)
    assert use_set(a1) == {(s, 0), (s, 2)} and use_set(a0) == {(s, 1)}
    s.set_operands([a0])
    assert s.operands == (a0,) and use_set(a0) == {(s, 0)} and a1.uses == []
    s.set_operands([])
    assert s.operands == () and a0.uses == [] and a1.uses == []
    s.set_operands([a1, None])
    assert s.operands == (a1, None) and use_set(a1) == {(s, 0)}
    with pytest.raises(TypeError):
        s.set_operands([a0, "x"])
    foreign = Builder(Context()).create("test.source", result_types=[F32]).result
    with pytest.raises(IRError):
        s.set_operands([a0, foreign])
    with pytest.raises(IRError):
        s.set_operand(0, foreign)
    assert s.operands == (a1, None) and a0.uses == []         # refused calls change nothing


def test_replace_all_uses_with_value(ctx):
    _, _, entry, b = build_func(ctx)
    a0, a1 = entry.arguments
    x = b.create("test.add", [a0, a0])
    s = b.create("test.sink", [a0, x.result])
    a0.replace_all_uses_with(a1)
    assert x.operands == (a1, a1) and s.operands == (a1, x.result)
    assert a0.uses == [] and use_set(a1) == {(x, 0), (x, 1), (s, 0)}
    a1.replace_all_uses_with(a1)                              # no-op
    assert use_set(a1) == {(x, 0), (x, 1), (s, 0)}
    with pytest.raises(TypeError):
        a1.replace_all_uses_with(None)


def test_replace_all_uses_with_operation(ctx):
    _, _, entry, b = build_func(ctx)
    old = b.create("test.pair", result_types=[F32, F32])
    new = b.create("test.pair", result_types=[F32, F32])
    s = b.create("test.sink", [old.results[1], old.results[0], old.results[1]])
    old.replace_all_uses_with(new)
    assert s.operands == (new.results[1], new.results[0], new.results[1])
    assert old.uses == []
    new.replace_all_uses_with(list(old.results))              # a sequence of values
    assert s.operands == (old.results[1], old.results[0], old.results[1])
    with pytest.raises(IRError):
        old.replace_all_uses_with(entry.arguments[0])         # 2 results, 1 value
    assert s.operands == (old.results[1], old.results[0], old.results[1])
    one = b.create("test.add", list(entry.arguments))
    t = b.create("test.sink", [one.result])
    one.replace_all_uses_with(entry.arguments[1])             # the Value form
    assert t.operands == (entry.arguments[1],)


CROSS_CONTEXT = {
    "move_before": lambda x, y: x.op.move_before(y.op),
    "move_after": lambda x, y: x.op.move_after(y.op),
    "move_to_end": lambda x, y: x.op.move_to_end(y.m.body),
    "move_to_start": lambda x, y: x.op.move_to_start(y.m.body),
    "builder_insert": lambda x, y: Builder(y.ctx).at_end(y.m.body).insert(x.op.detach()),
    "builder_at_end": lambda x, y: Builder(y.ctx).at_end(x.m.body),
    "builder_before_op": lambda x, y: Builder(y.ctx).before_op(x.op),
    "region_append": lambda x, y: y.m.regions[0].append(Block.create(x.ctx)),
    "value_rauw": lambda x, y: x.op.result.replace_all_uses_with(y.op.result),
    "op_rauw": lambda x, y: x.op.replace_all_uses_with(y.op),
    "set_operand": lambda x, y: x.sink.set_operand(0, y.op.result),
}


@pytest.mark.parametrize("action", list(CROSS_CONTEXT.values()), ids=list(CROSS_CONTEXT))
def test_handles_of_another_context_are_refused(action):
    def side():
        ctx = Context()
        m = Module.create(ctx)
        b = Builder(ctx).at_end(m.body)
        op = b.create("test.source", result_types=[F32])
        return SimpleNamespace(ctx=ctx, m=m, op=op, sink=b.create("test.sink", [op.result]))
    x, y = side(), side()
    texts = (x.m.print(), y.m.print())
    with pytest.raises(IRError, match="another Context"):
        action(x, y)
    assert y.m.print() == texts[1] and counts(y.ctx) == (3, 1, 1, 0)
    assert x.sink.operands == (x.op.result,)


# ---- erase and detach -------------------------------------------------------------------------

def test_erase_refused_while_results_have_uses(ctx):
    m, _, entry, b = build_func(ctx)
    x = b.create("test.add", list(entry.arguments))
    s = b.create("test.sink", [x.result])
    before, text = counts(ctx), m.print()
    with pytest.raises(IRError, match="test.add"):
        x.erase()
    assert counts(ctx) == before and m.print() == text
    s.erase()
    x.erase()
    assert counts(ctx) == (before[0] - 2, before[1] - 1, before[2], before[3])
    assert entry.arguments[0].uses == []


def test_erase_with_force_leaves_null_operands(ctx):
    m, _, entry, b = build_func(ctx)
    x = b.create("test.add", list(entry.arguments))
    s = b.create("test.sink", [x.result, entry.arguments[0], x.result])
    x.erase(force=True)
    assert s.operands == (None, entry.arguments[0], None)
    assert use_set(entry.arguments[0]) == {(s, 1)}
    with pytest.raises(VerifyError, match="null"):
        m.verify()


def _loop_ir(ctx):
    """module { %s = source; %l = loop(%s) { ^(%arg): %in = add(%arg, %s); yield(%in) };
    sink(%l) }"""
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    src = b.create("test.source", result_types=[F32])
    loop = b.create("test.loop", [src.result], result_types=[F32])
    body = b.create_block(loop.regions[0], [F32])
    inner = b.create("test.add", [body.arguments[0], src.result])
    yld = b.create("test.yield", [inner.result])
    b.at_end(m.body)
    sink = b.create("test.sink", [loop.result])
    return SimpleNamespace(m=m, src=src, loop=loop, body=body, inner=inner, yld=yld, sink=sink)


def test_erase_op_with_regions(ctx):
    ir = _loop_ir(ctx)
    out = Builder(ctx).at_end(ir.m.body).create("test.sink", [ir.inner.result])
    before, text = counts(ctx), ir.m.print()
    with pytest.raises(IRError):
        ir.loop.erase()                  # the inner value is used outside
    assert counts(ctx) == before and ir.m.print() == text
    ir.sink.erase()
    with pytest.raises(IRError):
        ir.loop.erase()                  # still refused: `out` uses the inner value
    assert counts(ctx)[:3] == (before[0] - 1, before[1], before[2])
    out.erase()
    assert len(ir.src.result.uses) == 2
    ir.loop.erase()                      # its region uses %s from outside: that use goes away
    assert ir.src.result.uses == []
    assert names(ir.m.body) == ["test.source"]
    assert counts(ctx) == (2, 1, 1, 0)
    for handle in (ir.loop, ir.inner, ir.yld):
        with pytest.raises(IRError):
            handle.name
    with pytest.raises(IRError):
        ir.body.arguments
    ir.m.verify()


def test_erase_op_with_regions_force(ctx):
    ir = _loop_ir(ctx)
    out = Builder(ctx).at_end(ir.m.body).create("test.sink", [ir.inner.result, ir.src.result])
    ir.loop.erase(force=True)
    assert out.operands == (None, ir.src.result) and ir.sink.operands == (None,)
    assert use_set(ir.src.result) == {(out, 1)}
    assert counts(ctx) == (4, 1, 1, 0)


def test_detach_keeps_op_and_uses(ctx):
    ir = _loop_ir(ctx)
    before = counts(ctx)
    assert ir.inner.detach() == ir.inner
    assert ir.inner.parent is None and ir.inner.parent_op is None
    assert names(ir.body) == ["test.yield"]
    assert use_set(ir.inner.result) == {(ir.yld, 0)}
    assert ir.inner.operands == (ir.body.arguments[0], ir.src.result)
    assert counts(ctx) == before
    ir.inner.detach()                                         # detaching twice is harmless
    Builder(ctx).before_op(ir.yld).insert(ir.inner)
    assert names(ir.body) == ["test.add", "test.yield"]
    ir.m.verify()


# ---- moves and cycles -------------------------------------------------------------------------

def test_moves(ctx):
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    a, c, d = (b.create("test.sink", attributes={"k": k}) for k in "acd")
    g = b.create("test.graph")
    inner = g.regions[0].add_block()
    assert c.move_before(a) == c
    assert m.body.operations == [c, a, d, g]
    d.move_after(c)
    assert m.body.operations == [c, d, a, g]
    a.move_after(g)
    assert m.body.operations == [c, d, g, a]
    a.move_after(a)
    a.move_before(a)                                          # moving next to itself: no-op
    assert m.body.operations == [c, d, g, a]
    c.move_to_end(inner)
    d.move_to_start(inner)
    assert inner.operations == [d, c] and m.body.operations == [g, a]
    assert c.parent == inner and c.parent_op == g
    a.move_before(c)
    assert inner.operations == [d, a, c]
    loose = Builder(ctx).create("test.sink")
    loose.move_to_end(m.body)                                 # a detached op can be moved in
    assert m.body.operations == [g, loose]
    with pytest.raises(IRError):
        a.move_before(Builder(ctx).create("test.sink"))       # anchor is detached
    m.verify()


def _nested(ctx):
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    outer = b.create("test.graph")
    ob = b.create_block(outer.regions[0])
    mid = b.create("test.graph")
    mb = b.create_block(mid.regions[0])
    leaf = b.create("test.sink")
    return SimpleNamespace(m=m, outer=outer, ob=ob, mid=mid, mb=mb, leaf=leaf)


CYCLES = {
    # name: (prepare, refused action)
    "move_to_end_own_block": (None, lambda t: t.outer.move_to_end(t.ob)),
    "move_to_start_nested": (None, lambda t: t.outer.move_to_start(t.mb)),
    "move_before_descendant": (None, lambda t: t.outer.move_before(t.leaf)),
    "move_after_child": (None, lambda t: t.outer.move_after(t.mid)),
    "module_into_leaf_block": (None, lambda t: t.m.move_to_start(t.mb)),
    "builder_insert": (lambda t: t.outer.detach(),
                       lambda t: Builder(t.leaf.context).at_end(t.mb).insert(t.outer)),
    "block_into_own_child": (lambda t: t.ob.detach(),
                             lambda t: t.mid.regions[0].append(t.ob)),
}


@pytest.mark.parametrize("prepare, move", list(CYCLES.values()), ids=list(CYCLES))
def test_moves_that_make_cycles_are_refused(ctx, prepare, move):
    t = _nested(ctx)
    if prepare:
        prepare(t)
    text, ops = t.m.print(), count_ops(t.m)
    with pytest.raises(IRError, match="cycle"):
        move(t)
    assert t.m.print() == text and count_ops(t.m) == ops
    assert t.leaf.parent_op == t.mid and t.mid.parent == t.ob and t.mb.parent_op == t.mid


def test_cycle_refusal_changes_nothing(ctx):
    t = _nested(ctx)
    text = t.m.print()
    for move in (lambda: t.outer.move_to_end(t.mb), lambda: t.mid.move_before(t.leaf),
                 lambda: t.outer.move_after(t.leaf)):
        with pytest.raises(IRError):
            move()
        assert t.m.print() == text
    t.m.verify()


# ---- handles ----------------------------------------------------------------------------------

def test_handles_compare_and_hash_by_identity(ctx):
    _, func, entry, b = build_func(ctx)
    x = b.create("test.add", list(entry.arguments))
    y = b.create("test.add", list(entry.arguments))
    assert x.result == x.results[0] and hash(x.result) == hash(x.results[0])
    assert x.result is not x.results[0]
    assert x != y and x.result != y.result
    assert entry.arguments[0] == x.operands[0] and entry == func.regions[0].entry
    assert func.regions[0] == x.parent.parent and hash(func.regions[0]) == hash(x.parent.parent)
    assert len({x, y, entry.first_op, entry.first_op.next}) == 2
    assert {x.result: 1}[x.results[0]] == 1
    assert x != x.result and x.result != entry
    other = Context()
    om = Module.create(other)
    assert om != Module.create(other) and om.body != Module.create(other).body
    assert isinstance(x, Operation) and isinstance(x.result, Value)
    assert entry.first_op == x and entry.last_op == y


def test_handles_of_same_record_in_other_context_differ():
    a, b = Context(), Context()
    ma, mb = Module.create(a), Module.create(b)
    assert ma != mb and ma.body != mb.body   # same ids, different Contexts


def _erased_things(ctx):
    ir = _loop_ir(ctx)
    region = ir.loop.regions[0]
    ir.sink.erase()
    val = ir.inner.result
    arg = ir.body.arguments[0]
    ir.loop.erase()
    return ir, region, val, arg


STALE_USES = {
    "name": lambda ir, r, v, a: ir.loop.name,
    "operands": lambda ir, r, v, a: ir.inner.operands,
    "results": lambda ir, r, v, a: ir.loop.results,
    "attributes": lambda ir, r, v, a: ir.loop.attributes,
    "regions": lambda ir, r, v, a: ir.loop.regions,
    "parent": lambda ir, r, v, a: ir.inner.parent,
    "epoch": lambda ir, r, v, a: ir.loop.epoch,
    "walk": lambda ir, r, v, a: ir.loop.walk(),
    "erase": lambda ir, r, v, a: ir.loop.erase(),
    "erase_force": lambda ir, r, v, a: ir.inner.erase(force=True),
    "detach": lambda ir, r, v, a: ir.loop.detach(),
    "clone": lambda ir, r, v, a: ir.loop.clone(),
    "print": lambda ir, r, v, a: ir.loop.print(),
    "str": lambda ir, r, v, a: str(ir.loop),
    "verify": lambda ir, r, v, a: ir.loop.verify(),
    "fingerprint": lambda ir, r, v, a: ir.loop.fingerprint(),
    "set_attribute": lambda ir, r, v, a: ir.loop.set_attribute("k", 1),
    "set_operand": lambda ir, r, v, a: ir.inner.set_operand(0, ir.src.result),
    "move_to_end": lambda ir, r, v, a: ir.loop.move_to_end(ir.m.body),
    "move_before_erased": lambda ir, r, v, a: ir.src.move_before(ir.loop),
    "use_erased_value": lambda ir, r, v, a: Builder(ir.m.context).at_end(ir.m.body)
    .create("test.sink", [v]),
    "set_operand_erased": lambda ir, r, v, a: ir.src.replace_all_uses_with(v),
    "value_type": lambda ir, r, v, a: v.type,
    "value_uses": lambda ir, r, v, a: v.uses,
    "value_owner": lambda ir, r, v, a: a.owner,
    "value_rauw": lambda ir, r, v, a: v.replace_all_uses_with(ir.src.result),
    "block_args": lambda ir, r, v, a: ir.body.arguments,
    "block_ops": lambda ir, r, v, a: ir.body.operations,
    "block_add_arg": lambda ir, r, v, a: ir.body.add_argument(F32),
    "block_erase": lambda ir, r, v, a: ir.body.erase(),
    "builder_at_block": lambda ir, r, v, a: Builder(ir.m.context).at_end(ir.body),
    "region_blocks": lambda ir, r, v, a: r.blocks,
    "region_add_block": lambda ir, r, v, a: r.add_block(),
    "region_parent": lambda ir, r, v, a: r.parent,
}


@pytest.mark.parametrize("use", list(STALE_USES.values()), ids=list(STALE_USES))
def test_stale_handles_raise_irerror(ctx, use):
    ir, region, val, arg = _erased_things(ctx)
    before = counts(ctx)
    with pytest.raises(IRError):
        use(ir, region, val, arg)
    assert counts(ctx) == before


def test_stale_handles_stay_stale_when_slots_are_reused(ctx):
    ir, region, val, arg = _erased_things(ctx)
    b = Builder(ctx).at_end(ir.m.body)
    fresh = [b.create("test.loop", [ir.src.result], result_types=[F32]) for _ in range(4)]
    for op in fresh:
        op.regions[0].add_block([F32])
    assert ir.loop not in fresh and "erased" in repr(ir.loop)
    with pytest.raises(IRError):
        ir.loop.name
    with pytest.raises(IRError):
        val.type
    with pytest.raises(IRError):
        ir.body.arguments
    with pytest.raises(IRError):
        region.blocks
    assert ir.loop == ir.loop and isinstance(hash(ir.loop), int)   # still hashable


# ---- epochs -----------------------------------------------------------------------------------

def _epoch_ir(ctx):
    """module { func { %x = add(a0, a1); %l = loop(%x) { ^(%arg): %in = add(%arg, %arg)
    {tag}; sink(); yield(%in) } ^bb1: ; sib = sink(a0); moved = sink(); return(%l) } }"""
    m, func, entry, b = build_func(ctx)
    a0, a1 = entry.arguments
    x = b.create("test.add", [a0, a1])
    loop = b.create("test.loop", [x.result], result_types=[F32])
    lb = b.create_block(loop.regions[0], [F32])
    inner = b.create("test.add", [lb.arguments[0], lb.arguments[0]], attributes={"tag": 1})
    victim = b.create("test.sink")
    yld = b.create("test.yield", [inner.result])
    spare = loop.regions[0].add_block()
    b.at_end(entry)
    sib = b.create("test.sink", [a0])
    moved = b.create("test.sink")
    ret = b.create("builtin.return", [loop.result])
    return SimpleNamespace(ctx=ctx, m=m, func=func, entry=entry, a0=a0, a1=a1, x=x, loop=loop,
                           lb=lb, inner=inner, victim=victim, yld=yld, spare=spare, sib=sib,
                           moved=moved, ret=ret)


# mutation -> the ops whose epochs (with all their ancestors) must change
EPOCH_CASES = {
    "set_operand": lambda t: (t.inner.set_operand(1, t.a0), [t.inner]),
    "set_operands": lambda t: (t.inner.set_operands([t.a0, t.a0, t.a1]), [t.inner]),
    "set_attribute": lambda t: (t.inner.set_attribute("k", "v"), [t.inner]),
    "remove_attribute": lambda t: (t.inner.remove_attribute("tag"), [t.inner]),
    "value_rauw": lambda t: (t.x.result.replace_all_uses_with(t.a1), [t.loop]),
    "op_rauw": lambda t: (t.inner.replace_all_uses_with(t.lb.arguments[0]), [t.yld]),
    "set_type": lambda t: (t.inner.result.set_type(I32), [t.inner, t.yld]),   # users too
    "set_arg_type": lambda t: (t.lb.arguments[0].set_type(I32), [t.loop, t.inner]),
    "add_argument": lambda t: (t.lb.add_argument(F32), [t.loop]),
    "add_block": lambda t: (t.loop.regions[0].add_block(), [t.loop]),
    "create": lambda t: (Builder(t.ctx).before_op(t.yld).create("test.sink"), [t.loop]),
    "erase": lambda t: (t.victim.erase(), [t.loop]),
    "erase_force": lambda t: (t.inner.erase(force=True), [t.loop, t.yld]),
    "detach": lambda t: (t.victim.detach(), [t.loop]),
    "block_erase": lambda t: (t.spare.erase(), [t.loop]),
    "block_detach": lambda t: (t.spare.detach(), [t.loop]),
    "move_in": lambda t: (t.moved.move_before(t.yld), [t.moved, t.loop]),
    "move_out": lambda t: (t.victim.move_after(t.sib), [t.victim, t.func]),
    "move_to_start": lambda t: (t.moved.move_to_start(t.lb), [t.moved, t.loop]),
    "move_to_end": lambda t: (t.moved.move_to_end(t.spare), [t.moved, t.loop]),
}


def _ancestors(op):
    out = []
    while op is not None:
        out.append(op)
        op = op.parent_op
    return out


@pytest.mark.parametrize("mutate", list(EPOCH_CASES.values()), ids=list(EPOCH_CASES))
def test_epochs_bump_op_and_ancestors_only(ctx, mutate):
    t = _epoch_ir(ctx)
    everything = list(t.m.walk())
    before = {op: op.epoch for op in everything}
    high = max(before.values())
    _, targets = mutate(t)
    bumped = {a for op in targets for a in _ancestors(op)}
    for op in bumped:
        assert op.epoch > high, f"{op.name} epoch not bumped"
    assert t.sib.epoch == before[t.sib]                       # unrelated sibling unchanged
    for op in (t.ret, t.x, t.yld, t.inner, t.victim, t.moved):  # other bystanders too
        if op not in bumped and _alive_and_attached(op):
            assert op.epoch == before[op], f"{op.attributes} {op.name} epoch changed"


def _alive_and_attached(op):
    try:
        return op.parent is not None
    except IRError:
        return False


def test_epochs_never_repeat(ctx):
    t = _epoch_ir(ctx)
    seen = [t.m.epoch]
    for i in range(5):
        t.inner.set_attribute("k", i)
        seen.append(t.m.epoch)
    assert seen == sorted(seen) and len(set(seen)) == len(seen)


# ---- clone ------------------------------------------------------------------------------------

def test_clone_deep_within_one_context(ctx):
    ir = _loop_ir(ctx)
    ir.loop.set_attribute("k", "v")
    before = counts(ctx)
    copy = ir.loop.clone()
    assert copy.parent is None and copy != ir.loop
    assert counts(ctx)[:3] == (before[0] + 3, before[1] + 3, before[2] + 1)
    assert copy.operands == (ir.src.result,)                  # outside values map to themselves
    assert use_set(ir.src.result) == {(ir.loop, 0), (ir.inner, 1), (copy, 0),
                                      (copy.regions[0].entry.first_op, 1)}
    cbody = copy.regions[0].entry
    cinner, cyield = cbody.operations
    assert cbody != ir.body and cinner != ir.inner
    assert cinner.operands == (cbody.arguments[0], ir.src.result)
    assert cyield.operands == (cinner.result,) and use_set(cinner.result) == {(cyield, 0)}
    assert copy.attributes == {"k": "v"} and copy.result_types == (F32,)
    assert copy.print() == ir.loop.print()
    cinner.set_attribute("only", "copy")                      # copies are independent
    assert "only" not in ir.inner.attributes
    Builder(ctx).after_op(ir.loop).insert(copy)
    ir.m.verify()


def test_clone_into_another_context_with_mapping(ctx):
    ir = _loop_ir(ctx)
    dst = Context()
    dm = Module.create(dst)
    dsrc = Builder(dst).at_end(dm.body).create("test.source", result_types=[F32])
    copy = ir.loop.clone(dst, mapping={ir.src.result: dsrc.result})
    assert copy.context is dst and copy.operands == (dsrc.result,)
    cinner = copy.regions[0].entry.first_op
    assert cinner.operands[1] == dsrc.result
    assert use_set(dsrc.result) == {(copy, 0), (cinner, 1)}
    assert len(ir.src.result.uses) == 2                      # the source is untouched
    Builder(dst).at_end(dm.body).insert(copy)
    dm.verify()
    assert copy.print() == ir.loop.print()


def test_clone_whole_module_into_another_context_needs_no_mapping(ctx):
    ir = _loop_ir(ctx)
    dst = Context()
    copy = ir.m.clone(dst)
    assert copy.context is dst and counts(dst) == counts(ctx)
    assert copy.print() == ir.m.print() and copy.fingerprint() == ir.m.fingerprint()
    copy.verify()


@pytest.mark.parametrize("mapping", [None, {}, "wrong_context"])
def test_clone_across_contexts_without_mapping_changes_nothing(ctx, mapping):
    ir = _loop_ir(ctx)
    dst = Context()
    dm = Module.create(dst)
    if mapping == "wrong_context":
        mapping = {ir.src.result: ir.src.result}              # a value of the source Context
    before_src, before_dst, text = counts(ctx), counts(dst), ir.m.print()
    with pytest.raises(IRError):
        ir.loop.clone(dst, mapping=mapping)
    assert counts(dst) == before_dst and counts(ctx) == before_src and ir.m.print() == text
    assert len(dm.body) == 0
    Builder(dst).at_end(dm.body).create("test.sink")          # still usable
    dm.verify()


def test_clone_within_context_with_mapping(ctx):
    ir = _loop_ir(ctx)
    other = Builder(ctx).at_end(ir.m.body).create("test.source", result_types=[F32])
    copy = ir.loop.clone(mapping={ir.src.result: other.result})
    assert copy.operands == (other.result,)
    assert copy.regions[0].entry.first_op.operands[1] == other.result


# ---- walks ------------------------------------------------------------------------------------

def _walk_ir():
    """module { a; g1 ({ ^0: b; g2 { c }; ^1: d }, { ^0: ; ^1: y }); e } (g1 is unregistered)"""
    ctx = Context(allow_unregistered=True)
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    k = lambda name: {"k": name}                               # noqa: E731
    b.create("test.sink", attributes=k("a"))
    g1 = b.create("u.multi", result_types=[], attributes=k("g1"), regions=2)
    b.create_block(g1.regions[0])
    b.create("test.sink", attributes=k("b"))
    g2 = b.create("test.graph", attributes=k("g2"))
    b.create_block(g2.regions[0])
    b.create("test.sink", attributes=k("c"))
    b.create_block(g1.regions[0])
    b.create("test.sink", attributes=k("d"))
    g1.regions[1].add_block()                                 # an empty block: nothing to visit
    b.create_block(g1.regions[1])
    b.create("test.yield", attributes=k("y"))
    b.at_end(m.body)
    b.create("test.sink", attributes=k("e"))
    return m, g1, g2


def _keys(ops):
    return [op.attributes.get("k", op.name) for op in ops]


def test_walk_orders_and_filter():
    m, g1, g2 = _walk_ir()
    assert _keys(m.walk()) == ["builtin.module", "a", "g1", "b", "g2", "c", "d", "y", "e"]
    assert _keys(m.walk("post")) == ["a", "b", "c", "g2", "d", "y", "g1", "e", "builtin.module"]
    assert _keys(m.walk(name="test.sink")) == ["a", "b", "c", "d", "e"]
    assert _keys(m.walk("post", name="test.graph")) == ["g2"]
    assert list(m.walk(name="nothing.here")) == []
    assert _keys(g1.walk()) == ["g1", "b", "g2", "c", "d", "y"]
    assert _keys(g2.walk("post")) == ["c", "g2"]
    assert _keys(g2.regions[0].entry.first_op.walk()) == ["c"]
    with pytest.raises(ValueError):
        m.walk("inorder")


def test_count_ops_and_op_statistics():
    m, g1, g2 = _walk_ir()
    assert count_ops(m) == 9 and count_ops(g1) == 6 and count_ops(g2) == 2
    assert count_ops(m, "test.sink") == 5 and count_ops(m, "nothing.here") == 0
    assert op_statistics(m) == {"builtin.module": 1, "test.graph": 1, "test.sink": 5,
                                "test.yield": 1, "u.multi": 1}
    assert list(op_statistics(m)) == sorted(op_statistics(m))
    assert op_statistics(g2) == {"test.graph": 1, "test.sink": 1}


def test_walk_while_erasing_skips_erased_ops():
    m, g1, g2 = _walk_ir()
    ctx = m.context
    seen = []
    for op in m.walk():
        seen.append(op.attributes.get("k", op.name))
        if op.attributes.get("k") == "a":
            g1.erase()                                        # erases b, g2, c, d, y too
            Builder(ctx).at_end(m.body).create("test.sink", attributes={"k": "new"})
    assert seen == ["builtin.module", "a", "e"]
    assert _keys(m.walk()) == ["builtin.module", "a", "e", "new"]


def test_walk_post_order_while_erasing_each_op():
    m, g1, g2 = _walk_ir()
    it = m.walk("post", name="test.sink")
    assert len(it) == 5
    erased = 0
    for op in it:
        op.erase()
        erased += 1
    assert erased == 5 and count_ops(m, "test.sink") == 0
    m.verify()


# ---- blocks and regions -----------------------------------------------------------------------

def test_block_arguments(ctx, module, builder):
    g = builder.create("test.graph")
    block = g.regions[0].add_block([F32])
    v = block.add_argument(I32)
    assert block.arguments == (block.arguments[0], v) and v.index == 1
    assert v.owner == block and v.type == I32 and v.is_block_argument
    many = [block.add_argument(F32) for _ in range(10)]       # grows its storage
    assert block.arguments[2:] == tuple(many)
    assert [a.index for a in block.arguments] == list(range(12))
    assert counts(ctx)[1] == 12


def test_block_erase_refused_while_arguments_used_outside(ctx, module, builder):
    g = builder.create("test.graph")
    block = g.regions[0].add_block([F32])
    builder.at_end(block)
    inside = builder.create("test.sink", [block.arguments[0]])
    builder.at_end(module.body)
    outside = builder.create("test.sink", [block.arguments[0]])
    before = counts(ctx)
    with pytest.raises(IRError):
        block.erase()
    assert counts(ctx) == before and g.regions[0].blocks == [block]
    outside.set_operands([])
    block.erase()                                             # uses inside the block are fine
    assert g.regions[0].blocks == [] and counts(ctx) == (before[0] - 1, 0, before[2] - 1, 0)
    with pytest.raises(IRError):
        inside.name


def test_block_erase_force(ctx, module, builder):
    g = builder.create("test.graph")
    block = g.regions[0].add_block([F32])
    Builder(ctx).at_end(block).create("test.source", result_types=[F32])
    user = builder.create("test.sink", [block.arguments[0], block.first_op.result])
    block.erase(force=True)
    assert user.operands == (None, None)
    assert counts(ctx) == (3, 0, 1, 0)


def test_region_blocks(ctx, module, builder):
    g = builder.create("test.graph")
    r = g.regions[0]
    assert r.entry is None and len(r) == 0 and r.parent == g
    b1 = r.add_block([F32])
    b0 = Block.create(ctx, [I32])
    assert b0.parent is None and b0.parent_op is None
    assert r.insert_before(b0, b1) == b0
    b2 = r.append(Block.create(ctx))
    assert r.blocks == [b0, b1, b2] and list(r) == [b0, b1, b2] and r.entry == b0
    assert b0.parent == r and b2.parent_op == g
    with pytest.raises(IRError):
        r.append(b1)                                          # already in a region
    other = builder.create("test.graph").regions[0]
    with pytest.raises(IRError):
        r.insert_before(Block.create(ctx), other.add_block())  # anchor in another region
    assert b1.detach() == b1 and b1.parent is None and r.blocks == [b0, b2]
    other.append(b1)
    assert other.blocks[-1] == b1 and b1.parent_op == other.parent
    module.verify()
