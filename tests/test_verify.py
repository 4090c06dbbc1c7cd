"""The verifier: one test per core rule (V1..V9), the builtin dialect's checks, valid IR."""
import random

import numpy as np
import pytest

from accy.ir import (Builder, Context, DenseAttr, FunctionType, IRError, Module, ParseError,
                     SymbolRefAttr, TensorType, VerifyError, parse, verify)
from ir_helpers import F32, I32, build_func


def new_module(ctx=None):
    """A module and a builder inside an ordered (non-graph) region: the module's own body is a
    graph region, where dominance imposes no order."""
    ctx = ctx or Context()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    body = b.create("test.graph")
    return m, Builder(ctx).at_end(body.regions[0].add_block())


def test_module_body_and_unregistered_regions_are_graph_regions():
    ctx = Context(allow_unregistered=True)
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    src = b.create("test.source", result_types=[F32])
    b.create("test.sink", [src.result]).move_before(src)
    m.verify()                                        # use before def: fine in a graph region
    g = b.create("u.graph", result_types=(), regions=1)
    gb = Builder(ctx).at_end(g.regions[0].add_block())
    inner = gb.create("test.source", result_types=[F32])
    gb.create("test.sink", [inner.result]).move_before(inner)
    m.verify()
    nested, _ = new_module(ctx)                        # the same order in an ordered region fails
    nb = Builder(ctx).at_end(nested.body.first_op.regions[0].entry)
    late = nb.create("test.source", result_types=[F32])
    nb.create("test.sink", [late.result]).move_before(late)
    expect_error(nested, "test.sink", "used before it is defined")


def expect_error(root, op_name, fragment, not_fragment=None):
    with pytest.raises(VerifyError) as info:
        root.verify()
    err = info.value
    assert f"'{op_name}'" in err.message and fragment in err.message
    assert not_fragment is None or not_fragment not in err.message
    assert op_name in err.op_text                     # the op is printed too
    assert op_name in str(err)
    return err


# ---- V1: registered, or allowed -------------------------------------------------------------

def test_v1_unregistered_op_refused_in_strict_context():
    m, b = new_module()
    before = (m.context.num_operations, m.context.num_values)
    with pytest.raises(VerifyError, match="'nope.op'"):
        b.create("nope.op", result_types=[])
    assert (m.context.num_operations, m.context.num_values) == before
    with pytest.raises(ParseError, match="nope.op"):
        parse('"nope.op"() : () -> ()', m.context, verify=False)
    assert (m.context.num_operations, m.context.num_values) == before
    m.verify()


def test_v1_unregistered_op_cannot_be_cloned_into_strict_context():
    loose = Context(allow_unregistered=True)
    m, b = new_module(loose)
    b.create("nope.op", result_types=[F32])
    m.verify()                                        # allowed where the Context allows it
    strict = Context()
    with pytest.raises(VerifyError, match="nope.op"):
        m.clone(strict)
    assert strict.num_operations == 0 and strict.num_values == 0 and strict.num_blocks == 0


# ---- V2: counts -----------------------------------------------------------------------------

@pytest.mark.parametrize("build, fragment", [
    (lambda b, s: b.create("test.add", [s], result_types=[F32]), "expects 2 operands, got 1"),
    (lambda b, s: b.create("test.add", [s, s, s], result_types=[F32]), "expects 2 operands, got 3"),
    (lambda b, s: b.create("test.add", [s, s], result_types=[F32, F32]), "expects 1 results, got 2"),
    (lambda b, s: b.create("test.add", [s, s], result_types=[]), "expects 1 results, got 0"),
    (lambda b, s: b.create("test.graph", regions=2), "expects 1 regions, got 2"),
    (lambda b, s: b.create("test.sink", regions=1), "expects 0 regions, got 1"),
    (lambda b, s: b.create("test.constant", [s], attributes={
        "value": DenseAttr(np.zeros(4, np.float32))}), "expects 0 operands, got 1"),
], ids=["too_few_operands", "too_many_operands", "too_many_results", "no_result",
        "extra_region", "region_on_leaf", "operand_on_constant"])
def test_v2_counts(build, fragment):
    m, b = new_module()
    src = b.create("test.source", result_types=[F32]).result
    op = build(b, src)
    expect_error(m, op.name, fragment)


# ---- V3: live operands ----------------------------------------------------------------------

def test_v3_null_operand():
    m, b = new_module()
    src = b.create("test.source", result_types=[F32])
    b.create("test.sink", [src.result, None])
    expect_error(m, "test.sink", "operand #1 is null")


def test_v3_operand_nulled_by_forced_erase():
    m, b = new_module()
    src = b.create("test.source", result_types=[F32])
    b.create("test.add", [src.result, src.result])
    src.erase(force=True)
    expect_error(m, "test.add", "operand #0 is null")


# ---- V4: use lists agree with operands ------------------------------------------------------

def _check_use_lists(root):
    """Every operand slot appears exactly once in its value's use list, and vice versa."""
    slots = {}
    for op in root.walk():
        for i, v in enumerate(op.operands):
            if v is not None:
                slots.setdefault(v, []).append((op, i))
    defined = []
    for op in root.walk():
        defined.extend(op.results)
        for region in op.regions:
            for block in region:
                defined.extend(block.arguments)
    for v in defined:
        uses = [(u.operation, u.index) for u in v.uses]
        assert len(uses) == len(set(uses)) and set(uses) == set(slots.get(v, []))


def test_v4_use_lists_stay_exact_under_random_mutations():
    """The API cannot put an operand outside its value's use list (V4 guards the C level);
    a long random sequence of mutations keeps the lists exact and the verifier happy."""
    rng = random.Random(1234)
    ctx = Context()
    m, func, entry, b = build_func(ctx, inputs=(F32, F32), results=(F32,))
    values = list(entry.arguments)
    ops = []
    for _ in range(20):
        op = b.create("test.add", [rng.choice(values), rng.choice(values)])
        ops.append(op)
        values.append(op.result)
    ret = b.create("builtin.return", [values[-1]])
    for step in range(400):
        op = rng.choice(ops)
        kind = rng.randrange(6)
        pos = ops.index(op)
        visible = list(entry.arguments) + [o.result for o in ops[:pos]]
        if kind == 0:
            op.set_operand(rng.randrange(2), rng.choice(visible))
        elif kind == 1:
            op.set_operands([rng.choice(visible), rng.choice(visible)])
        elif kind == 2 and pos > 0:
            ops[pos - 1].result.replace_all_uses_with(rng.choice(visible[:-1]))
        elif kind == 3 and len(ops) > 3 and not op.result.has_uses:
            op.erase()
            ops.remove(op)
        elif kind == 4:
            new = op.clone()
            Builder(ctx).after_op(op).insert(new)
            ops.insert(pos + 1, new)
        elif kind == 5:
            op.set_operands([rng.choice(visible)] * rng.randrange(1, 4))
            op.set_operands([rng.choice(visible), rng.choice(visible)])
        if step % 40 == 0:
            _check_use_lists(m)
    ret.set_operand(0, ops[-1].result)
    _check_use_lists(m)
    m.verify()


# ---- V5: dominance --------------------------------------------------------------------------

def _v5_use_before_def(b):
    src = b.create("test.source", result_types=[F32])
    sink = b.create("test.sink", [src.result])
    sink.move_before(src)


def _v5_isolated(b):
    src = b.create("test.source", result_types=[F32])
    iso = b.create("test.isolated")
    b.create_block(iso.regions[0])
    b.create("test.sink", [src.result])


def _v5_sibling_block(b):
    g = b.create("test.graph")
    first = g.regions[0].add_block()
    second = g.regions[0].add_block([F32])
    Builder(b.context).at_end(first).create("test.sink", [second.arguments[0]])


def _v5_later_in_enclosing_block(b):
    g = b.create("test.graph")
    b.create_block(g.regions[0])
    late = Builder(b.context).after_op(g).create("test.source", result_types=[F32])
    b.create("test.sink", [late.result])


def _v5_detached_definition(b):
    loose = Builder(b.context).create("test.source", result_types=[F32])
    b.create("test.sink", [loose.result])


def _v5_value_from_inside_a_region(b):
    g = b.create("test.graph")
    b.create_block(g.regions[0])
    inner = b.create("test.source", result_types=[F32])
    Builder(b.context).after_op(g).create("test.sink", [inner.result])


def _v5_isolated_func(b):
    src = b.create("test.source", result_types=[F32])
    f = b.create("builtin.func", attributes={"sym_name": "f",
                                             "function_type": FunctionType([], [])})
    b.create_block(f.regions[0])
    b.create("test.sink", [src.result])
    b.create("builtin.return")


@pytest.mark.parametrize("build, fragment, wrong", [
    (_v5_use_before_def, "used before it is defined", None),
    (_v5_isolated, "isolated from above", None),
    (_v5_sibling_block, "another block that does not dominate", None),
    (_v5_later_in_enclosing_block, "used before it is defined", None),
    (_v5_detached_definition, "detached", None),
    (_v5_value_from_inside_a_region, "does not dominate", "isolated from above"),
    (_v5_isolated_func, "isolated from above", None),
])
def test_v5_dominance(build, fragment, wrong):
    m, b = new_module()
    build(b)
    expect_error(m, "test.sink", fragment, wrong)


def test_v5_dominance_from_text():
    text = ('"test.graph"() ({\n'
            '  "test.sink"(%v) : (tensor<4xf32>) -> ()\n'
            '  %v = "test.source"() : () -> tensor<4xf32>\n'
            '}) : () -> ()\n')
    m = parse(text, verify=False)
    expect_error(m, "test.sink", "used before it is defined")
    with pytest.raises(VerifyError):
        parse(text)


def test_v5_valid_cases():
    m, b = new_module()
    src = b.create("test.source", result_types=[F32])
    g = b.create("test.graph")
    entry = g.regions[0].add_block([F32])
    other = g.regions[0].add_block()
    inner = Builder(m.context).at_end(entry).create("test.source", result_types=[F32])
    Builder(m.context).at_end(other).create("test.sink", [src.result, entry.arguments[0],
                                                          inner.result])
    b2 = Builder(m.context).at_end(other)
    nested = b2.create("test.graph")
    b2.create_block(nested.regions[0])
    b2.create("test.sink", [src.result, entry.arguments[0], inner.result])
    m.verify()


# ---- V6: terminators ------------------------------------------------------------------------

def _v6_terminator_not_last(b):
    g = b.create("test.graph")
    b.create_block(g.regions[0])
    b.create("test.yield")
    b.create("test.sink")
    return "test.yield", "is a terminator but is not the last op"


def _v6_terminator_not_last_in_module(b):
    b.create("test.yield")
    b.create("test.sink")
    return "test.yield", "is a terminator but is not the last op"


def _v6_missing_terminator(b):
    loop = b.create("test.loop", result_types=[])
    b.create_block(loop.regions[0])
    b.create("test.sink")
    return "test.loop", "does not end with a terminator"


def _v6_empty_block(b):
    loop = b.create("test.loop", result_types=[])
    loop.regions[0].add_block()
    return "test.loop", "does not end with a terminator"


def _v6_func_without_return(b):
    f = b.create("builtin.func", attributes={"sym_name": "f",
                                             "function_type": FunctionType([], [])})
    b.create_block(f.regions[0])
    b.create("test.sink")
    return "builtin.func", "does not end with a terminator"


@pytest.mark.parametrize("build", [_v6_terminator_not_last, _v6_terminator_not_last_in_module,
                                   _v6_missing_terminator, _v6_empty_block,
                                   _v6_func_without_return])
def test_v6_terminators(build):
    m, b = new_module()
    name, fragment = build(b)
    expect_error(m, name, fragment)


def test_v6_no_terminator_regions_accept_any_last_op():
    m, b = new_module()
    g = b.create("test.graph")
    b.create_block(g.regions[0])
    b.create("test.sink")
    g.regions[0].add_block()                          # empty block in a no_terminator region
    m.verify()


# ---- V7: single block -----------------------------------------------------------------------

def test_v7_single_block():
    m, b = new_module()
    s = b.create("test.single")
    s.regions[0].add_block()
    m.verify()
    s.regions[0].add_block()
    expect_error(m, "test.single", "must hold one block, holds 2")


def test_v7_module_body_is_single_block():
    m, b = new_module()
    m.regions[0].add_block()
    expect_error(m, "builtin.module", "must hold one block")


# ---- V8: same operand and result type -------------------------------------------------------

@pytest.mark.parametrize("lhs, rhs, result", [
    (F32, I32, F32), (I32, F32, F32), (F32, F32, I32), (F32, TensorType("f32", (5,)), F32),
])
def test_v8_same_operands_and_result_type(lhs, rhs, result):
    m, b = new_module()
    x = b.create("test.source", result_types=[lhs]).result
    y = b.create("test.source", result_types=[rhs]).result
    b.create("test.add", [x, y], result_types=[result])
    expect_error(m, "test.add", "one type")


def test_v8_after_set_type():
    m, b = new_module()
    x = b.create("test.source", result_types=[F32]).result
    b.create("test.add", [x, x])
    m.verify()
    x.set_type(I32)
    expect_error(m, "test.add", "one type")


# ---- V9: attribute schema, inference, the row's verify --------------------------------------

ZEROS = DenseAttr(np.zeros(4, np.float32))


@pytest.mark.parametrize("name, attrs, result_types, fragment", [
    ("test.constant", None, [F32], "requires attribute 'value'"),
    ("test.constant", {"value": 3}, [F32], "attribute 'value' must be DenseAttr"),
    ("test.constant", {"value": ZEROS}, [I32], "differ from the inferred"),
    ("test.constant", {"value": ZEROS}, [TensorType("f32", (2, 2))], "differ from the inferred"),
    ("test.count", {"n": 0}, [], "needs n > 0, got 0"),
    ("test.count", {"n": "3"}, [], "attribute 'n' must be int"),
    ("test.count", {}, [], "requires attribute 'n'"),
], ids=["missing", "wrong_kind", "inferred_type", "inferred_shape", "row_verify", "kind_str",
        "missing_int"])
def test_v9_attributes_inference_and_row_verify(name, attrs, result_types, fragment):
    m, b = new_module()
    b.create(name, attributes=attrs, result_types=result_types)
    expect_error(m, name, fragment)


def test_v9_after_attribute_changes():
    m, b = new_module()
    c = b.create("test.constant", attributes={"value": ZEROS})
    m.verify()
    c.set_attribute("value", DenseAttr(np.zeros(4, np.int32)))
    expect_error(m, "test.constant", "differ from the inferred")
    c.remove_attribute("value")
    expect_error(m, "test.constant", "requires attribute 'value'")


def test_v9_rechecked_after_a_result_type_changes():
    m, b = new_module()
    c = b.create("test.constant", attributes={"value": ZEROS})
    m.verify()
    m.verify()                  # passes again: the op's checks are remembered at its epoch
    c.result.set_type(I32)
    expect_error(m, "test.constant", "differ from the inferred")


def test_v9_rechecked_for_an_op_made_where_an_erased_one_was():
    m, b = new_module()
    for _ in range(3):          # erased records are reused; a new op is checked afresh
        good = b.create("test.constant", attributes={"value": ZEROS})
        m.verify()
        good.erase()
    bad = b.create("test.constant", attributes={"value": ZEROS}, result_types=[I32])
    expect_error(m, "test.constant", "differ from the inferred")
    bad.erase()
    m.verify()


def test_v9_row_verify_runs_on_every_verify():
    # a call's check reads its callee, which the call's own epoch does not follow
    m, entry, b = _module_with_callee()
    b.create("builtin.call", [entry.arguments[0]], result_types=[F32],
             attributes={"callee": SymbolRefAttr("callee")})
    b.create("builtin.return", [entry.arguments[0]])
    m.verify()
    callee = next(op for op in m.body if op.attributes.get("sym_name") == "callee")
    callee.set_attribute("sym_name", "renamed")
    expect_error(m, "builtin.call", "calls unknown function @callee")


# ---- builtin dialect ------------------------------------------------------------------------

def test_func_entry_arguments_must_match_function_type():
    m, f, entry, b = build_func(Context(), inputs=(F32,), results=(F32,))
    b.create("builtin.return", [entry.arguments[0]])
    m.verify()
    entry.add_argument(I32)
    expect_error(m, "builtin.func", "differ from the function inputs")


def test_func_argument_type_mismatch():
    m, f, entry, b = build_func(Context(), inputs=(F32,), results=())
    b.create("builtin.return")
    entry.arguments[0].set_type(I32)
    expect_error(m, "builtin.func", "differ from the function inputs")


def test_func_declaration_without_body_verifies():
    m, b = new_module()
    b.create("builtin.func", attributes={"sym_name": "decl",
                                         "function_type": FunctionType([F32], [F32])})
    m.verify()


@pytest.mark.parametrize("results, returned, fragment", [
    ((F32,), [], "returns () but the function returns (tensor<4xf32>)"),
    ((), ["a0"], "returns (tensor<4xf32>) but the function returns ()"),
    ((I32,), ["a0"], "returns (tensor<4xf32>) but the function returns (tensor<4xi32>)"),
    ((F32, F32), ["a0"], "but the function returns"),
])
def test_return_types_must_match_function_results(results, returned, fragment):
    m, f, entry, b = build_func(Context(), inputs=(F32,), results=results)
    b.create("builtin.return", [entry.arguments[0] for _ in returned])
    expect_error(m, "builtin.return", fragment)


def test_return_outside_func():
    m, b = new_module()
    g = b.create("test.graph")
    b.create_block(g.regions[0])
    b.create("builtin.return")
    expect_error(m, "builtin.return", "must be inside a builtin.func")


def _module_with_callee():
    ctx = Context()
    m, callee, entry, b = build_func(ctx, name="callee", inputs=(F32,), results=(F32,))
    b.create("builtin.return", [entry.arguments[0]])
    _, caller, centry, cb = build_func(ctx, name="caller", inputs=(F32,), results=(F32,),
                                       module=m)
    return m, centry, cb


@pytest.mark.parametrize("callee, operand_types, result_types, fragment", [
    ("missing", [F32], [F32], "calls unknown function @missing"),
    ("callee", [F32], [I32], "types do not match the callee's signature"),
    ("callee", [I32], [F32], "types do not match the callee's signature"),
    ("callee", [F32, F32], [F32], "types do not match the callee's signature"),
    ("callee", [F32], [], "types do not match the callee's signature"),
])
def test_call_checks(callee, operand_types, result_types, fragment):
    m, entry, b = _module_with_callee()
    args = [b.create("test.source", result_types=[t]).result for t in operand_types]
    call = b.create("builtin.call", args, result_types=result_types,
                    attributes={"callee": SymbolRefAttr(callee)})
    b.create("builtin.return", [entry.arguments[0]])
    expect_error(m, "builtin.call", fragment)
    call.erase(force=True)
    m.verify()


def test_call_to_a_non_function_symbol():
    m, entry, b = _module_with_callee()
    Builder(m.context).at_start(m.body).create("test.count", attributes={"n": 1,
                                                                         "sym_name": "notfn"})
    b.create("builtin.call", [], result_types=[], attributes={"callee": SymbolRefAttr("notfn")})
    b.create("builtin.return", [entry.arguments[0]])
    expect_error(m, "builtin.call", "unknown function @notfn")


# ---- valid IR -------------------------------------------------------------------------------

VALID = """builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "add"}> ({
  ^bb0(%0: tensor<4xf32>, %1: tensor<4xf32>):
    %2 = test.add %0, %1 : tensor<4xf32>
    builtin.return %2
  })
  builtin.func <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
  ^bb0(%0: tensor<4xf32>):
    %1 = test.constant <{value = dense<1.5> : tensor<4xf32>}> : tensor<4xf32>
    %2 = builtin.call %0, %1 <{callee = @add}> : tensor<4xf32>
    %3 = test.loop %2 : tensor<4xf32> ({
    ^bb0(%4: tensor<4xf32>):
      %5 = test.add %4, %2 : tensor<4xf32>
      test.yield %5
    })
    test.graph ({
      test.sink %3, %0
    ^bb1(%6: tensor<4xi32>):
      test.count <{n = 3}>
    })
    test.single ({
      %7 = test.add %3, %3 : tensor<4xf32>
    })
    builtin.return %3
  })
  builtin.func <{function_type = (tensor<4xf32>) -> (), sym_name = "decl"}> ({
  })
})
"""


def test_valid_module_verifies():
    ctx = Context()
    m, f, entry, b = build_func(ctx, name="add")
    b.create("builtin.return", [b.create("test.add", list(entry.arguments)).result])
    _, main, me, b = build_func(ctx, name="main", inputs=(F32,), results=(F32,), module=m)
    const = b.create("test.constant", attributes={"value": DenseAttr(np.full(4, 1.5, np.float32))})
    call = b.create("builtin.call", [me.arguments[0], const.result], result_types=[F32],
                    attributes={"callee": SymbolRefAttr("add")})
    loop = b.create("test.loop", [call.result], result_types=[F32])
    lb = Builder(ctx).at_end(loop.regions[0].add_block([F32]))
    lb.create("test.yield", [lb.create("test.add", [lb.insertion_block.arguments[0],
                                                    call.result]).result])
    g = b.create("test.graph")
    Builder(ctx).at_end(g.regions[0].add_block()).create("test.sink", [loop.result,
                                                                       me.arguments[0]])
    Builder(ctx).at_end(g.regions[0].add_block([I32])).create("test.count", attributes={"n": 3})
    s = b.create("test.single")
    Builder(ctx).at_end(s.regions[0].add_block()).create("test.add", [loop.result] * 2)
    b.create("builtin.return", [loop.result])
    Builder(ctx).at_end(m.body).create("builtin.func", attributes={
        "sym_name": "decl", "function_type": FunctionType([F32], [])})
    assert m.verify() is None and verify(m) is None
    for op in m.walk():
        op.verify()                                  # every sub-tree verifies on its own
    assert m.print() == VALID


def test_valid_module_from_text_verifies():
    m = parse(VALID)
    m.verify()
    assert m.print() == VALID


def test_verify_stale_root_raises_irerror():
    m, b = new_module()
    op = b.create("test.sink")
    op.erase()
    with pytest.raises(IRError):
        verify(op)
