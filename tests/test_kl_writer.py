"""KernelWriter (accy/lowering/kl_writer.pyx), the part of KernelBuilder that writes kl ops into
the IR core's records: result types, where ops and constants land, the hoisting writer, shared
attribute dictionaries, and the errors for bad operands and insertion points."""
import numpy as np
import pytest

from accy.errors import CapacityError, IRError
from accy.ir import Capacity, Context, Module
from accy.lowering.kl import KernelBuilder, ptr_type, scalar, shared_type


def _kernel(params=(ptr_type("f32"), scalar("i64")), capacity=None):
    ctx = Context(capacity=capacity)
    m = Module.create(ctx)
    return m, KernelBuilder(ctx, m.body, "k", list(params))


def _names(block):
    return [op.name for op in block.operations]


def test_results_take_the_types_each_op_gives():
    m, kb = _kernel([ptr_type("f16"), shared_type("i32"), scalar("i64"), scalar("f32")])
    p, s, i, x = kb.params
    assert kb.op("add", i, i).type == scalar("i64")
    assert kb.op("fma", x, x, x).type == scalar("f32")
    assert kb.op("select", kb.cmp("LT", i, i), x, x).type == scalar("f32")   # the last's
    assert kb.cmp("EQ", x, x).type == scalar("i1")
    assert kb.is_finite(x).type == scalar("i1")
    assert kb.load(p, i).type == scalar("f16")
    assert kb.load(s, i).type == scalar("i32")
    assert [v.type for v in kb.vload(p, i, 4)] == [scalar("f16")] * 4
    assert kb.special("tid.x").type == scalar("i32")
    assert kb.to_tf32(x).type == scalar("i32")
    assert [v.type for v in kb.unpack(kb.pack(x, x), "bf16")] == [scalar("bf16")] * 2
    assert [v.type for v in kb.ldmatrix(s, i, 2)] == [scalar("i32")] * 2
    assert kb.shuffle("xor", x, kb.constant(1, "i64")).type == scalar("f32")
    kb.finish()


def test_convert_and_bitcast_to_the_own_type_write_nothing():
    m, kb = _kernel()
    p, i = kb.params
    before = len(list(kb.kernel.regions[0].entry.operations))
    assert kb.convert(i, "i64") is i and kb.bitcast(i, "i64") is i
    assert len(list(kb.kernel.regions[0].entry.operations)) == before
    wide = kb.convert(kb.convert(i, "i32"), "f64")
    assert wide.type == scalar("f64") and wide.owner.operands[0].type == scalar("i32")


def test_ops_land_in_order_at_the_end_of_the_insertion_block():
    m, kb = _kernel()
    p, i = kb.params
    a = kb.op("add", i, i)
    b = kb.op("mul", a, i)
    kb.store(kb.load(p, b), p, a)
    kb.finish()
    entry = kb.kernel.regions[0].entry
    assert _names(entry) == ["kl.add", "kl.mul", "kl.load", "kl.store", "kl.return"]
    assert list(entry.operations)[1].operands == (a, i)


def test_constants_are_made_once_at_the_top_of_the_entry_block_in_made_order():
    m, kb = _kernel()
    p, i = kb.params
    one = kb.constant(1, "i64")

    def body(kb, j):
        kb.store(kb.convert(kb.op("add", j, kb.constant(7, "i64")), "f32"), p, j)
        assert kb.constant(1, "i64") is one      # found again, inside the loop too
    kb.for_(one, i, kb.constant(np.int64(2), "i64"), [], body)
    kb.finish()
    entry = kb.kernel.regions[0].entry
    values = [op.attributes["value"].array.item() for op in entry.operations
              if op.name == "kl.constant"]
    assert values == [1, 2, 7]
    assert _names(entry)[:3] == ["kl.constant"] * 3
    m.verify()


def test_literals_apart_that_print_apart():
    m, kb = _kernel()
    zero, negative_zero, one = (kb.constant(v, "f32") for v in (0.0, -0.0, 1.0))
    assert len({zero, negative_zero, one}) == 3
    assert kb.constant(1, "f32") is not one         # int 1 and float 1.0 are two keys
    assert kb.constant(True, "i1") is not kb.constant(1, "i1")
    assert kb.constant(np.float32(1.0), "f32") is one
    assert np.signbit(negative_zero.owner.attributes["value"].array)


def test_hoisting_writes_before_what_the_writer_writes_next():
    m, kb = _kernel()
    p, i = kb.params
    a = kb.op("add", i, i)
    hoist = kb.hoisting()
    b = kb.op("mul", i, i)
    c = hoist.op("sub", i, i)
    d = kb.op("xor", i, i)
    e = hoist.op("or", i, i)
    kb.finish()
    order = [op.results[0] for op in kb.kernel.regions[0].entry.operations
             if op.name in ("kl.add", "kl.mul", "kl.sub", "kl.xor", "kl.or")]
    assert order == [a, c, e, b, d]
    assert hoist.kernel is kb.kernel and hoist.params == kb.params


def test_hoisting_shares_constants_and_keeps_its_own_last_one():
    """The hoisting writer finds the kernel's constants; one it makes follows the constants
    made before it was taken, and the writer's later constants are placed after those."""
    m, kb = _kernel()
    p, i = kb.params
    c0 = kb.constant(0, "i64")
    hoist = kb.hoisting()
    assert hoist.constant(0, "i64") is c0
    h = hoist.constant(5, "i64")
    assert kb.constant(5, "i64") is h
    k = kb.constant(9, "i64")
    entry = kb.kernel.regions[0].entry
    assert [op.results[0] for op in entry.operations if op.name == "kl.constant"] == [c0, k, h]


def test_hoisting_loops_nest_inside_the_hoisted_point():
    m, kb = _kernel()
    p, i = kb.params
    first = kb.op("add", i, i)
    hoist = kb.hoisting()
    later = kb.op("mul", i, i)
    (out,) = hoist.for_(i, i, i, [first], lambda kb, j, acc: [kb.op("add", acc, j)])
    after = hoist.op("sub", out, i)
    kb.finish()
    ops = list(kb.kernel.regions[0].entry.operations)
    names = [op.name for op in ops if not op.name == "kl.constant"]
    assert names == ["kl.add", "kl.for", "kl.sub", "kl.mul", "kl.return"]
    assert after.owner.operands[0] == out and later.owner.name == "kl.mul"
    m.verify()


def test_a_replayed_segment_is_the_same_program_on_other_values():
    """record/recorded/replay: the copy reads its own inputs through the mapping, values from
    outside the segment as they are, earlier copied results as the copies', and nested
    regions come along."""
    m, kb = _kernel()
    p, i = kb.params
    x0, x1 = kb.op("add", i, i), kb.op("mul", i, i)     # the two "elements" the segment is at
    hoist = kb.hoisting()
    kb.record()
    a = kb.op("add", x0, kb.constant(3, "i64"))
    (acc,) = kb.for_(i, a, i, [x0], lambda kb, j, acc: [kb.op("max", acc, j)])
    h = hoist.op("sub", i, i)                           # not the segment's: hoisted before it
    b = kb.op("mul", acc, kb.op("add", a, h))
    segment = kb.recorded()
    mapping = kb.value_map([(x0, x1)])
    kb.replay(segment, mapping)
    (b1,) = kb.mapped([b], mapping)
    assert kb.mapped([h], mapping) == [h]
    kb.finish()
    m.verify()
    names = [op.name for op in kb.kernel.regions[0].entry.operations
             if op.name not in ("kl.constant", "kl.return")]
    assert names == ["kl.add", "kl.mul", "kl.sub", "kl.add", "kl.for", "kl.add", "kl.mul",
                     "kl.add", "kl.for", "kl.add", "kl.mul"]
    copy_add, copy_for, copy_inner, copy_mul = (op for op in list(
        kb.kernel.regions[0].entry.operations)[-5:-1])
    assert copy_add.operands[0] == x1 and copy_for.operands[1] == copy_add.results[0]
    assert copy_for.operands[3] == x1 and copy_inner.operands[1] == h
    assert copy_mul.results[0] == b1
    assert list(copy_mul.operands) == [copy_for.results[0], copy_inner.results[0]]


def test_recording_refuses_a_segment_another_writer_wrote_into():
    m, kb = _kernel()
    p, i = kb.params
    kb.op("add", i, i)
    kb.record()
    kb.op("mul", i, i)
    inner = kb.hoisting()           # taken inside the segment: it writes into it
    kb.op("xor", i, i)
    inner.op("sub", i, i)
    with pytest.raises(IRError, match="another writer inserted"):
        kb.recorded()
    kb.record()                     # nor into a region of one of its ops
    blocks = []

    def body(kb, j, acc):
        blocks.append(j.owner)
        return [kb.op("max", acc, j)]
    kb.for_(i, i, i, [i], body)
    other = kb.hoisting()
    saved = other.enter(blocks[0])
    other.op("and", i, i)
    other.leave(saved)
    with pytest.raises(IRError, match="another writer inserted"):
        kb.recorded()
    kb.record()
    assert kb.recorded() is None    # nothing written: nothing to replay
    kb.replay(None, kb.value_map([]))


def test_a_replay_checks_what_it_is_given():
    m, kb = _kernel()
    p, i = kb.params
    x0 = kb.op("add", i, i)
    kb.record()
    y = kb.op("mul", x0, x0)
    segment = kb.recorded()
    with pytest.raises(TypeError):
        kb.replay((0, 0), kb.value_map([]))             # ids are not a segment
    with pytest.raises(TypeError):
        kb.replay(segment, {})                          # nor a dict a mapping
    stale = kb.op("neg", i)
    mapping = kb.value_map([(x0, stale)])
    stale.owner.erase()
    with pytest.raises(IRError, match="was erased"):
        kb.replay(segment, mapping)
    with pytest.raises(IRError, match="was erased"):
        kb.mapped([x0], mapping)
    y.owner.erase()
    with pytest.raises(IRError, match="erased or moved"):
        kb.replay(segment, kb.value_map([]))
    m2, kb2 = _kernel()
    with pytest.raises(IRError, match="another Context"):
        kb2.replay(segment, kb2.value_map([]))


def test_ops_with_equal_attributes_share_them_until_one_is_set():
    m, kb = _kernel()
    p, i = kb.params
    a, b = kb.cmp("LT", i, i).owner, kb.cmp("LT", i, i).owner
    c = kb.cmp("GE", i, i).owner
    assert a.attributes["predicate"] == b.attributes["predicate"] == "LT"
    assert c.attributes["predicate"] == "GE"
    a.set_attribute("predicate", "EQ")
    assert (a.attributes["predicate"], b.attributes["predicate"]) == ("EQ", "LT")
    assert kb.cmp("LT", i, i).owner.attributes["predicate"] == "LT"


def test_attributes_keep_their_types_apart():
    """An attribute set given True and one given 1 are two sets, not one."""
    m, kb = _kernel([shared_type("f16"), scalar("i64")])
    s, i = kb.params
    exact = kb.op("shr", i, i, arithmetic=True).owner
    assert exact.attributes["arithmetic"] is True
    counted = kb.ldmatrix(s, i, 1, trans=1)[0].owner
    assert counted.attributes["trans"] is True and counted.attributes["count"] == 1
    assert type(kb.emit("kl.shared", (), [shared_type("f32")], count=True)
                .attributes["count"]) is bool


def test_attribute_values_are_checked():
    m, kb = _kernel()
    p, i = kb.params
    with pytest.raises(ValueError, match="i64"):
        kb.op("shr", i, i, arithmetic=2 ** 70)
    with pytest.raises(TypeError, match="not an attribute value"):
        kb.op("shr", i, i, arithmetic=object())
    op = kb.emit("kl.shared", (), [shared_type("f32")], count=[4])   # a list: a tuple
    assert op.attributes["count"] == (4,)


def test_emit_without_result_types_asks_the_registry():
    m, kb = _kernel()
    p, i = kb.params
    op = kb.emit("kl.add", (i, i))
    assert op.results[0].type == scalar("i64")
    hoist = kb.hoisting()
    later = kb.op("mul", i, i)
    early = hoist.emit("kl.sub", (i, i)).results[0]
    ops = [o.name for o in kb.kernel.regions[0].entry.operations]
    assert ops == ["kl.add", "kl.sub", "kl.mul"] and early.type == scalar("i64")
    assert later.owner.name == "kl.mul"


def test_bad_operands_are_clear_errors():
    m, kb = _kernel()
    p, i = kb.params
    other = _kernel()[1]
    with pytest.raises(IRError, match="another Context"):
        kb.op("add", i, other.params[1])
    with pytest.raises(TypeError, match="expected a Value"):
        kb.op("add", i, 3)
    with pytest.raises(IRError, match="pointer"):
        kb.load(i, i)
    with pytest.raises(IRError, match="needs operands"):
        kb.op("add")
    dead = kb.op("add", i, i)
    dead.owner.erase()
    with pytest.raises(IRError, match="erased"):
        kb.op("mul", dead, i)
    assert _names(kb.kernel.regions[0].entry) == []


def test_an_erased_insertion_point_is_an_error():
    m, kb = _kernel()
    p, i = kb.params
    anchor = kb.op("add", i, i)
    hoist = kb.hoisting()
    anchor.owner.erase()
    with pytest.raises(IRError, match="insertion point"):
        hoist.op("mul", i, i)
    (loop,) = kb.for_(i, i, i, [i], lambda kb, j, acc: [acc])
    body = loop.owner.regions[0].entry
    kb.enter(body)
    loop.owner.erase(force=True)
    with pytest.raises(IRError, match="insertion block"):
        kb.op("mul", i, i)


def test_capacity_limits_hold_and_a_refused_op_changes_nothing():
    m, kb = _kernel(capacity=Capacity(max_operations=5))   # the module, the kernel, three
    p, i = kb.params
    made = [kb.op("add", i, i) for _ in range(3)]
    with pytest.raises(CapacityError, match="max_operations"):
        kb.op("add", i, i)
    with pytest.raises(CapacityError, match="max_operations"):
        kb.constant(3, "i64")
    entry = kb.kernel.regions[0].entry
    assert [op.results[0] for op in entry.operations] == made
    assert m.context.num_operations == 5
