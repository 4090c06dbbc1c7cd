"""Misuse of the API and hostile input: always an accy error (or TypeError/ValueError for bad
arguments), never a crash, a leak or a silently wrong answer."""
import sys

import pytest

import accy.ir as ir
from accy.ir import (Builder, Context, FunctionType, IRError, Module, OpaqueType, OpDef,
                     ParseError, TensorType, VerifyError, parse, register_dialect)

from child_process import run_bounded

F32 = TensorType("f32", ())


def unregistered():
    ctx = Context(allow_unregistered=True)
    m = Module.create(ctx)
    return ctx, m, Builder(ctx).at_end(m.body)


@pytest.mark.parametrize("make", [ir.Operation, ir.Value, ir.Block, ir.Region])
def test_handles_not_made_by_accy_raise(make):
    h = make()
    attribute = {"Operation": "name", "Value": "type", "Block": "arguments",
                 "Region": "blocks"}[make.__name__]
    with pytest.raises(IRError, match="not a handle made by accy"):
        getattr(h, attribute)
    assert not hasattr(h, "__setstate_cython__")          # no way to forge ids by unpickling


@pytest.mark.parametrize("call", [
    lambda: ir.Block.create(None), lambda: Builder(None), lambda: ir.verify(None),
    lambda: ir.print_op(None), lambda: Builder(Context()).create_block(5),
    lambda: Builder(Context()).create("builtin.module", attributes=[("a", 1)]),
    lambda: Builder(Context()).create("builtin.module", regions=2**40),
    lambda: ir.Type(), lambda: OpDef("a.b", operands=(3, 1)),
])
def test_bad_arguments_are_type_or_value_errors(call):
    with pytest.raises((TypeError, ValueError)):
        call()


def test_context_initializes_once():
    ctx = Context()
    m = Module.create(ctx)
    with pytest.raises(IRError, match="once"):
        ctx.__init__()
    assert m.name == "builtin.module"


def test_deep_ir_prints_to_a_limit_then_refuses_cleanly():
    ctx, m, b = unregistered()
    for _ in range(1200):
        op = b.create("t.nest", result_types=(), regions=1)
        b = Builder(ctx).at_end(op.regions[0].add_block())
    with pytest.raises(IRError, match="nested more than 1000"):
        m.print()
    m.verify()                                            # iterative: no depth limit


def test_deep_region_text_in_a_subprocess_is_a_parse_error():
    code = ("import accy.ir as ir\n"
            "t = 'x.y ({\\n' * 1001 + '})\\n' * 1001\n"
            "try:\n    ir.parse(t, ir.Context(allow_unregistered=True))\n"
            "except ir.ParseError as e:\n    print('ParseError', 'nesting too deep' in str(e))\n")
    out = run_bounded([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ParseError True", out.stderr


def test_multi_result_ops_recycle_their_values():
    ctx, m, b = unregistered()
    for _ in range(50):
        b.create("t.two", result_types=(F32, F32)).erase()
    before = ctx.memory_bytes()
    for _ in range(5000):
        b.create("t.two", result_types=(F32, F32)).erase()
    assert ctx.memory_bytes() == before and ctx.num_values == 0


def test_builder_insertion_block_after_erase_raises():
    ctx, m, b = unregistered()
    holder = b.create("t.r", result_types=(), regions=1)
    inner = Builder(ctx).at_end(holder.regions[0].add_block())
    holder.erase()
    holder2 = b.create("t.r", result_types=(), regions=1)
    holder2.regions[0].add_block()                        # likely reuses the freed block slot
    with pytest.raises(IRError, match="erased"):
        inner.insertion_block


@pytest.mark.parametrize("name", ['t.x"() : () -> ()\n"t.evil', "t.a\\b", "t.é", "t x"])
def test_odd_op_names_round_trip(name):
    ctx, m, b = unregistered()
    b.create(name, result_types=())
    for generic in (False, True):
        again = parse(m.print(generic=generic), Context(allow_unregistered=True))
        assert [op.name for op in again.body] == [name]


@pytest.mark.parametrize("text", ["!a\nb", "!a // c", "!t, !u", "!a>", "!x ({", "!", "t"])
def test_opaque_type_text_is_checked(text):
    with pytest.raises(ValueError):
        OpaqueType(text)


def test_opaque_types_with_strings_and_arrows_round_trip():
    ctx, m, b = unregistered()
    for text in ['!d.t<1, "x>">', "!d.f<a->b>", "!d.n<<1>>"]:
        b.create("t.v", result_types=(OpaqueType(text),))
    assert parse(m.print(), Context(allow_unregistered=True)).print() == m.print()


@pytest.mark.parametrize("text", [
    '"t.x"() {a = (' + "() -> " * 3000 + "()) -> ()} : () -> ()",
    '"t.x"() {a = ' + "(" * 300 + ") -> ()" * 300 + "} : () -> ()",
], ids=["arrow chain", "nested inputs"])
def test_deep_function_types_are_parse_errors(text):
    with pytest.raises(ParseError, match="nesting too deep"):
        parse(text, Context(allow_unregistered=True))


def test_deep_attributes_through_the_api_are_value_errors():
    ctx, m, b = unregistered()
    deep = 1
    for _ in range(3000):
        deep = [deep]
    op = b.create("t.a", result_types=())
    with pytest.raises(ValueError, match="nest at most"):
        op.set_attribute("a", deep)
    assert dict(op.attributes) == {}


def test_call_to_a_function_with_a_broken_signature_is_a_verify_error():
    text = '''builtin.module ({
  builtin.func <{function_type = () -> (), sym_name = "f"}> ({
    builtin.call <{callee = @g}>
    builtin.return
  })
  builtin.func <{function_type = 5, sym_name = "g"}> ({
  })
})'''
    with pytest.raises(VerifyError, match="no valid function_type"):
        parse(text)


@pytest.mark.parametrize("text, message", [
    ('%a:2 = "t.two"() : () -> (tensor<f32>, tensor<f32>)\n'
     '%a = "t.one"() : () -> tensor<f32>', "redefinition of value %a"),
    ('"t.r"() ({\n  %a:2 = "t.two"() : () -> (tensor<f32>, tensor<f32>)\n}) : () -> ()\n'
     '"t.use"(%a) : (tensor<f32>) -> ()', "undefined value %a"),
])
def test_result_groups_are_scoped_like_other_names(text, message):
    ctx = Context(allow_unregistered=True)
    with pytest.raises(ParseError, match=message):
        parse(text, ctx, verify=False)
    assert (ctx.num_operations, ctx.num_values, ctx.num_blocks) == (0, 0, 0)


def test_forward_references_to_results_by_number():
    text = ('"t.g"() ({\n  "t.use"(%v#0, %w) : (tensor<f32>, tensor<f32>) -> ()\n'
            '  %v = "t.one"() : () -> tensor<f32>\n'
            '  %w:2 = "t.two"() : () -> (tensor<f32>, tensor<f32>)\n}) : () -> ()')
    m = parse(text, Context(allow_unregistered=True))
    use, one, two = m.body.first_op.regions[0].entry.operations
    assert use.operands == (one.result, two.results[0])


def test_clone_mapping_is_read_before_copying():
    ctx, m, b = unregistered()
    outside = b.create("t.src", result_types=(F32,)).result
    user = b.create("t.use", [outside], result_types=())
    target = Context(allow_unregistered=True)
    tm = Module.create(target)
    replacement = Builder(target).at_end(tm.body).create("t.src", result_types=(F32,)).result
    copy = user.clone(target, mapping={outside: replacement})
    assert copy.operands == (replacement,)
    with pytest.raises(IRError):                          # a key from the wrong Context
        user.clone(target, mapping={replacement: replacement})


def test_a_verify_hook_that_changes_the_ir_is_reported():
    def meddle(op):
        Builder(op.context).before_op(op).create("u.extra", result_types=())

    register_dialect("meddle", [OpDef("meddle.op", verify=meddle)])
    ctx = Context(allow_unregistered=True)
    m = Module.create(ctx)
    Builder(ctx).at_end(m.body).create("meddle.op")
    with pytest.raises(VerifyError, match="changed the IR"):
        m.verify()
