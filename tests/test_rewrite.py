"""The pattern API and the greedy driver: the PatternRewriter's operations, the driver's
contract (patterns and folds must say exactly what they did), benefit order, non-convergence,
and the dead-code and common-subexpression eliminations it is built with (checked against
reference implementations on random programs)."""
import threading

import numpy as np
import pytest

from accy.errors import IRError
from accy.ir import (Builder, Context, DenseAttr, FunctionType, Module, OpDef, VARIADIC,
                     parse, register_dialect, traits)
from accy.passes.rewrite import (Pattern, PatternRewriter, RewriteError,
                                 apply_patterns_greedily, eliminate_common_subexpressions,
                                 eliminate_dead_code, pattern)
from ir_helpers import I32

SOURCE = """\
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>), sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>, %y: tensor<4xi32>):
    %c = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %n = test.neg %c : tensor<4xi32>
    %s = test.sub %x, %y : tensor<4xi32>
    %m = test.mul %s, %n : tensor<4xi32>
    test.sink
    builtin.return %m, %s
  })
})
"""


def body(module):
    return list(next(iter(module.body)).regions[0].entry)


def names(module):
    return [op.name for op in body(module)]


def result(module, pats=(), **kw):
    r = apply_patterns_greedily(module, pats, **kw)
    module.verify()
    return r


# ---- a dialect whose fold the tests choose -----------------------------------------------------

HOOK = {"fold": lambda op, constants: None}


def _hooked_fold(op, constants):
    return HOOK["fold"](op, constants)


@pytest.fixture(scope="module", autouse=True)
def hooked_dialects():
    """`rw.op` folds with HOOK["fold"]; `rw.const` is its dialect's CONSTANT op. `nc.op` folds
    the same way, but its dialect has no CONSTANT op."""
    register_dialect("rw", [
        OpDef("rw.const", results=1, attributes={"value": (DenseAttr, True)},
              traits=traits.PURE | traits.CONSTANT),
        OpDef("rw.op", operands=(0, VARIADIC), results=(0, VARIADIC), traits=traits.PURE,
              fold=_hooked_fold),
    ])
    register_dialect("nc", [OpDef("nc.op", operands=(0, VARIADIC), results=(0, VARIADIC),
                                  traits=traits.PURE, fold=_hooked_fold)])
    yield
    register_dialect("rw", [])
    register_dialect("nc", [])


@pytest.fixture
def hook():
    yield HOOK
    HOOK["fold"] = lambda op, constants: None


def hooked_module(op_name="rw.op", n_results=1):
    """f(%x) { %r... = <op_name> %x ; test.sink %r... }"""
    ctx = Context()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    func = b.create("builtin.func", attributes={"sym_name": "f",
                                                "function_type": FunctionType((I32,), ())})
    entry = b.create_block(func.regions[0], [I32])
    op = b.create(op_name, [entry.arguments[0]], result_types=[I32] * n_results)
    b.create("test.sink", op.results)
    b.create("builtin.return")
    m.verify()
    return m, op


# ---- the rewriter's operations ---------------------------------------------------------------

@pattern("test.sub")
def sub_to_add_neg(op, rw):
    """x - y -> x + neg(y): create, then replace_op_with."""
    x, y = op.operands
    neg = rw.create("test.neg", [y])
    new = rw.replace_op_with(op, "test.add", [x, neg.result])
    assert new.name == "test.add" and new.result_types == (I32,)
    return True


@pattern("test.neg")
def neg_of_constant(op, rw):
    """neg(constant) -> constant: rewriter.constant, then replace_op."""
    c = op.operands[0].owner
    if getattr(c, "name", None) != "test.constant":
        return False
    value = c.attributes["value"]
    rw.replace_op(op, [rw.constant(DenseAttr(-value.array), value.type)])
    return True


@pattern("test.sink")
def erase_empty_sink(op, rw):
    if op.operands:
        return False
    rw.erase_op(op)
    return True


def test_rewriter_create_replace_constant_and_erase():
    m = parse(SOURCE, Context())
    r = result(m, [sub_to_add_neg, neg_of_constant, erase_empty_sink], fold=False)
    assert m.print().split("^bb0", 1)[1] == """\
(%0: tensor<4xi32>, %1: tensor<4xi32>):
    %2 = test.constant <{value = dense<[-1, -2, -3, -4]> : tensor<4xi32>}> : tensor<4xi32>
    %3 = test.neg %1 : tensor<4xi32>
    %4 = test.add %0, %3 : tensor<4xi32>
    %5 = test.mul %4, %2 : tensor<4xi32>
    builtin.return %5, %4
  })
})
"""
    assert r["changed"] and r["converged"] and r["iterations"] == 2
    # created: neg and add for the sub, the constant for the neg
    assert r["created"] == 3 and r["folded"] == 0
    # erased: the sub, the neg of the constant, the old constant (dead), the sink
    assert r["erased"] == 4


ADD_ZERO_SOURCE = SOURCE.replace("%n = test.neg %c", """\
%z = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %n = test.add %x, %z""")


def skip_add_zero(op, rw):
    """Any op using add(v, splat 0) uses v instead: set_operand (run with fold=False, or the
    add's own fold would do it first)."""
    done = False
    for i, v in enumerate(op.operands):
        add = v.owner
        if getattr(add, "name", None) == "test.add":
            c = add.operands[1].owner
            if getattr(c, "name", None) == "test.constant" and \
                    not c.attributes["value"].array.any():
                rw.set_operand(op, i, add.operands[0])
                done = True
    return done


def test_rewriter_replace_all_uses_with_and_set_operand():
    m = parse(ADD_ZERO_SOURCE, Context())
    r = result(m, [Pattern(skip_add_zero)], fold=False)
    # the add and the zero die; so does the unused constant %c
    assert names(m) == ["test.sub", "test.mul", "test.sink", "builtin.return"]
    x = next(iter(m.body)).regions[0].entry.arguments[0]
    assert body(m)[1].operands[1] == x
    assert r["erased"] == 3 and r["rewritten"] == 1 and r["created"] == 0

    m = parse(SOURCE, Context())

    @pattern("test.sub")
    def sub_is_x(op, rw):                               # not exact: only to move uses
        rw.replace_all_uses_with(op.result, op.operands[0])
        rw.erase_op(op)
        return True
    result(m, [sub_is_x], fold=False)
    ops = body(m)
    assert "test.sub" not in names(m)
    x = next(iter(m.body)).regions[0].entry.arguments[0]
    assert ops[-1].operands[1] == x and ops[2].operands[0] == x


def test_rewriter_misuse_is_refused():
    m = parse(SOURCE, Context())
    other = parse(SOURCE, Context())
    foreign = body(other)[0].result
    calls = []

    def misuse(op, rw):
        with pytest.raises(RewriteError, match="has 1 results, got 2 replacements"):
            rw.replace_op(op, [op.operands[0], op.operands[1]])
        with pytest.raises(RewriteError, match="expected a Value of the IR being rewritten"):
            rw.replace_op(op, [foreign])
        with pytest.raises(RewriteError, match="expected a Value"):
            rw.replace_all_uses_with(op.result, "x")
        with pytest.raises(IndexError):
            rw.set_operand(op, 2, op.operands[0])
        with pytest.raises(IRError, match="still has uses"):
            rw.erase_op(op)
        calls.append(op.name)
        return False
    r = result(m, [Pattern(misuse, "test.sub")], fold=False)
    assert calls == ["test.sub"] and not r["changed"]
    assert m.print() == parse(SOURCE, Context()).print()


def test_rewriter_constant_needs_a_constant_op_in_the_dialect():
    ctx = Context(allow_unregistered=True)
    m = parse(SOURCE.replace("    test.sink\n", "    %u = other.op %x : tensor<4xi32>\n"
                                                "    test.sink %u\n"), ctx)

    @pattern("other.op")
    def materialize(op, rw):
        rw.replace_op(op, [rw.constant(DenseAttr(np.zeros(4, np.int32)), I32)])
        return True
    with pytest.raises(RewriteError, match="dialect 'other' has no CONSTANT op"):
        apply_patterns_greedily(m, [materialize])


def test_rewriter_set_attribute_and_notify_changed():
    seen = []

    @pattern("builtin.return")
    def watch(op, rw):
        seen.append(op.name)
        return False

    @pattern("test.mul")
    def tag(op, rw):
        if "tag" in op.attributes:
            return False
        rw.set_attribute(op, "tag", 1)                  # revisits the op and its users
        return True
    m = parse(SOURCE, Context())
    r = result(m, [tag, watch], fold=False)
    assert body(m)[3].attributes["tag"] == 1 and r["rewritten"] == 1 and r["converged"]
    assert len(seen) == 3                               # revisited, then once per sweep

    @pattern("test.mul")
    def tag_directly(op, rw):
        if "tag" in op.attributes:
            return False
        op.set_attribute("tag", 2)                      # through the op API...
        rw.notify_changed(op)                           # ...so the driver revisits its users
        return True
    seen.clear()
    m = parse(SOURCE, Context())
    r = result(m, [tag_directly, watch], fold=False, max_iterations=1)
    assert body(m)[3].attributes["tag"] == 2 and r["rewritten"] == 1
    assert len(seen) == 2                               # both in the one sweep


def test_a_pattern_with_no_root_sees_every_op_below_the_root_once_per_sweep():
    m = parse(SOURCE, Context())
    seen = []
    r = result(m, [Pattern(lambda op, rw: seen.append(op.name) and False)], fold=False)
    assert seen == ["builtin.func", "test.constant", "test.neg", "test.sub", "test.mul",
                    "test.sink", "builtin.return"]
    assert not r["changed"] and r["converged"] and r["iterations"] == 1


def test_pattern_decorator_and_names():
    @pattern("test.add", benefit=5)
    def my_pattern(op, rw):
        return False
    assert isinstance(my_pattern, Pattern)
    assert (my_pattern.root, my_pattern.benefit, my_pattern.name) == ("test.add", 5, "my_pattern")
    assert Pattern(my_pattern.fn).root is None and Pattern(my_pattern.fn).benefit == 1
    with pytest.raises(TypeError):
        PatternRewriter(None)


# ---- the driver's contract ---------------------------------------------------------------------

def test_a_pattern_that_claims_a_change_it_did_not_make_is_an_error():
    m = parse(SOURCE, Context())

    @pattern("test.mul")
    def liar(op, rw):
        return True
    with pytest.raises(RewriteError, match="pattern 'liar' reported a change on 'test.mul' but "
                                           "changed nothing"):
        apply_patterns_greedily(m, [liar])


def test_a_pattern_that_hides_a_change_is_an_error():
    m = parse(SOURCE, Context())

    @pattern("test.mul")
    def sneaky(op, rw):
        a, b = op.operands
        op.set_operands([b, a])
        return False
    with pytest.raises(RewriteError, match="pattern 'sneaky' changed the IR of 'test.mul' but "
                                           "reported no change"):
        apply_patterns_greedily(m, [sneaky])


def test_a_fold_that_changes_the_ir_is_an_error(hook):
    m, op = hooked_module()

    def mutating(op, constants):
        op.set_attribute("x", 1)
        return None
    hook["fold"] = mutating
    with pytest.raises(RewriteError, match="the fold of 'rw.op' changed the IR"):
        apply_patterns_greedily(m)


@pytest.mark.parametrize("n_results, replacements", [(1, 2), (1, 0), (2, 1)])
def test_a_fold_with_the_wrong_number_of_replacements_is_an_error(hook, n_results, replacements):
    m, op = hooked_module(n_results=n_results)
    hook["fold"] = lambda op, constants: (op.operands[0],) * replacements
    with pytest.raises(RewriteError, match=f"the fold of 'rw.op' returned {replacements} "
                                           f"replacements for {n_results} results"):
        apply_patterns_greedily(m)


def test_fold_replacements_must_belong_to_the_ir(hook):
    m, op = hooked_module()
    other, _ = hooked_module()
    hook["fold"] = lambda op, constants: (next(iter(other.body)).regions[0].entry.arguments[0],)
    with pytest.raises(RewriteError, match="expected a Value of the IR being rewritten"):
        apply_patterns_greedily(m)


def test_fold_attributes_are_materialized_with_the_dialects_constant(hook):
    m, op = hooked_module(n_results=2)
    value = DenseAttr(np.arange(4, dtype=np.int32))
    hook["fold"] = lambda op, constants: (value, op.operands[0])
    r = result(m)
    ops = body(m)
    assert [o.name for o in ops] == ["rw.const", "test.sink", "builtin.return"]
    assert ops[0].attributes["value"] == value and ops[0].result_types == (I32,)
    assert ops[1].operands == (ops[0].result, next(iter(m.body)).regions[0].entry.arguments[0])
    assert r["folded"] == 1 and r["created"] == 1 and r["erased"] == 0    # folded, not erased

    # the constants of the operands come from the CONSTANT op's `value`
    got = []
    m, op = hooked_module()
    c = Builder(m.context).before_op(op).create("rw.const", attributes={"value": value},
                                                result_types=[I32])
    op.set_operands([c.result, op.operands[0], c.result])
    hook["fold"] = lambda op, constants: got.append(constants)
    result(m)
    assert got == [(value, None, value)]


def test_fold_attributes_need_a_constant_op(hook):
    m, op = hooked_module("nc.op")
    hook["fold"] = lambda op, constants: (DenseAttr(np.zeros(4, np.int32)),)
    with pytest.raises(RewriteError, match="dialect 'nc' has no CONSTANT op to hold it"):
        apply_patterns_greedily(m)


def test_fold_false_skips_folds_but_not_patterns(hook):
    m, op = hooked_module()
    hook["fold"] = lambda op, constants: (op.operands[0],)
    r = result(m, fold=False)
    assert not r["changed"] and names(m) == ["rw.op", "test.sink", "builtin.return"]
    r = result(m)
    assert r["folded"] == 1 and names(m) == ["test.sink", "builtin.return"]


# ---- benefit order, convergence ----------------------------------------------------------------

def test_patterns_are_tried_by_benefit_then_in_order():
    tried = []

    def recorder(label, fire):
        def fn(op, rw):
            tried.append(label)
            if fire:
                rw.replace_op_with(op, "test.add", list(op.operands))
            return fire
        fn.__name__ = label
        return fn

    m = parse(SOURCE, Context())
    pats = [Pattern(recorder("low", True), "test.sub", benefit=1),
            Pattern(recorder("any-high", False), None, benefit=3),
            Pattern(recorder("high-a", False), "test.sub", benefit=2),
            Pattern(recorder("high-b", True), "test.sub", benefit=2),
            Pattern(recorder("high-c", True), "test.sub", benefit=2)]
    r = result(m, pats, fold=False, max_iterations=1)
    # "any-high" is tried on every op; on the sub: the best first, ties in the order given,
    # and the first that fires ends it
    assert tried[:6] == ["any-high"] * 3 + ["any-high", "high-a", "high-b"]
    assert set(tried[6:]) == {"any-high"}             # the other ops, and those revisited
    assert "test.sub" not in names(m) and "test.add" in names(m)
    assert r["converged"] is False and r["iterations"] == 1      # one sweep, and it changed


def test_dialect_patterns_and_extra_patterns_are_merged_by_benefit():
    m = parse(SOURCE.replace("%n = test.neg %c", "%n0 = test.neg %c : tensor<4xi32>\n"
                                                 "    %n = test.neg %n0"), Context())
    tried = []

    @pattern("test.neg", benefit=0)
    def after(op, rw):
        tried.append("after")
        return False

    @pattern("test.neg", benefit=2)
    def before(op, rw):
        tried.append("before")
        return False
    result(m, [after, before], fold=False)
    # the inner neg: nothing fires; the outer neg: before, then the dialect's neg-neg
    # (benefit 1), which fires, so that "after" is not tried
    assert tried == ["before", "after", "before"] and "test.neg" not in names(m)


def test_ping_pong_through_the_op_api_is_reported_as_not_converged():
    m = parse(SOURCE, Context())

    @pattern("test.mul")
    def swap(op, rw):
        a, b = op.operands
        op.set_operands([b, a])         # not through the rewriter: seen on the next sweep
        return True
    r = apply_patterns_greedily(m, [swap], fold=False, max_iterations=3)
    assert r == {"changed": True, "converged": False, "iterations": 3, "erased": 0,
                 "folded": 0, "rewritten": 3, "created": 0}
    m.verify()


def test_ping_pong_through_the_rewriter_stops_at_max_iterations():
    """A pattern that undoes itself through the rewriter must not keep the driver busy
    forever: `max_iterations` (or some bound) ends it, and it reports no convergence."""
    m = parse(SOURCE, Context())
    applied = [0]

    @pattern("test.mul")
    def swap(op, rw):
        applied[0] += 1
        if applied[0] > 10_000:
            raise RuntimeError("the driver is still rewriting after 10000 rewrites")
        a, b = op.operands
        rw.set_operand(op, 0, b)
        rw.set_operand(op, 1, a)
        return True
    r = apply_patterns_greedily(m, [swap], fold=False, max_iterations=3)
    assert r["converged"] is False


def test_canonicalize_with_zero_iterations_does_nothing():
    m = parse(SOURCE, Context())
    r = apply_patterns_greedily(m, max_iterations=0)
    assert r["iterations"] == 0 and not r["changed"]
    assert m.print() == parse(SOURCE, Context()).print()


def test_rewritten_counts_one_per_pattern_application():
    """One pattern application is one rewrite, whether the pattern used set_operand
    (skip_add_zero) or replace_op (the dialect's neg(neg(x)) -> x)."""
    m = parse(ADD_ZERO_SOURCE, Context())
    r = result(m, [Pattern(skip_add_zero)], fold=False)
    assert "test.add" not in names(m) and r["rewritten"] == 1
    m = parse(SOURCE.replace("%n = test.neg %c", "%n0 = test.neg %x : tensor<4xi32>\n"
                                                 "    %n = test.neg %n0"), Context())
    r = result(m, fold=False)
    assert "test.neg" not in names(m)
    assert r["rewritten"] == 1


# ---- dead code and common subexpressions ---------------------------------------------------

def test_eliminate_dead_code_counts_and_keeps_side_effects():
    m = parse(SOURCE.replace("builtin.return %m, %s", "%d = test.add %m, %m : tensor<4xi32>\n"
                                                       "    %s2 = test.source : tensor<4xi32>\n"
                                                       "    builtin.return %x, %x"), Context())
    assert eliminate_dead_code(m) == 5         # c, n, s, m, d (a chain) and nothing else
    m.verify()
    assert names(m) == ["test.sink", "test.source", "builtin.return"]
    assert eliminate_dead_code(m) == 0


def test_eliminate_common_subexpressions_counts():
    m = parse(SOURCE.replace("    test.sink\n", """\
    %c2 = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %n2 = test.neg %c2 : tensor<4xi32>
    %s2 = test.sub %x, %y : tensor<4xi32>
    %m2 = test.mul %s2, %n2 : tensor<4xi32>
    %m3 = test.mul %n2, %s2 : tensor<4xi32>
    test.sink %m2, %m3
"""), Context())
    assert eliminate_common_subexpressions(m) == 4     # c2, n2, s2, m2; not m3
    m.verify()
    ops = body(m)
    assert names(m).count("test.mul") == 2 and ops[5].operands == (ops[3].result, ops[4].result)
    assert eliminate_common_subexpressions(m) == 0


def _random_block(rng, n_ops):
    """A function body of random pure ops (a few kinds, few leaves, so that duplicates and dead
    values are common) and side-effecting sinks."""
    ctx = Context()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    func = b.create("builtin.func", attributes={"sym_name": "f",
                                                "function_type": FunctionType((I32, I32), ())})
    entry = b.create_block(func.regions[0], [I32, I32])
    values = list(entry.arguments)
    consts = [DenseAttr(np.full(4, k, np.int32)) for k in (1, 2)]
    for _ in range(n_ops):
        r = rng.random()
        if r < 0.15:
            values.append(b.create("test.constant",
                                   attributes={"value": consts[rng.integers(2)]}).result)
        elif r < 0.25:
            b.create("test.sink", [values[i] for i in rng.integers(len(values), size=2)])
        elif r < 0.35:
            values.append(b.create("test.neg", [values[rng.integers(len(values))]]).result)
        else:
            name = ("test.add", "test.mul")[rng.integers(2)]
            lo = max(0, len(values) - 6)                # mostly recent values: deep chains
            x, y = (values[i] for i in rng.integers(lo, len(values), size=2))
            values.append(b.create(name, [x, y]).result)
    b.create("builtin.return")
    m.verify()
    return m


def _reference_live(ops):
    """Ops that are live: side-effecting ones, terminators, and what live ops use."""
    live = set()
    for op in reversed(ops):
        if op.name in ("test.sink", "builtin.return") or any(
                u.operation in live for r in op.results for u in r.uses):
            live.add(op)
    return live


def _reference_cse(ops):
    """How many ops an equal earlier op replaces (value numbering by name, operands, attrs)."""
    number, seen, erased = {}, {}, 0
    for op in ops:
        if op.name in ("test.sink", "builtin.return"):
            continue
        key = (op.name, tuple(number.get(v, v) for v in op.operands),
               tuple(sorted(op.attributes.items())))
        if key in seen:
            number[op.result] = seen[key]
            erased += 1
        else:
            seen[key] = number[op.result] = op.result
    return erased


@pytest.mark.parametrize("seed", range(12))
def test_random_dce_and_cse_match_references(seed):
    rng = np.random.default_rng(seed)
    m = _random_block(rng, 60)
    ops = body(m)
    live = _reference_live(ops)
    assert eliminate_dead_code(m) == len(ops) - len(live)
    m.verify()
    assert body(m) == [op for op in ops if op in live]

    m = _random_block(np.random.default_rng(seed), 60)
    expected = _reference_cse(body(m))
    assert eliminate_common_subexpressions(m) == expected
    m.verify()
    assert _reference_cse(body(m)) == 0


def test_cse_does_not_merge_true_with_1():
    """Attributes `true` and `1` differ (they print differently and fingerprint differently),
    so ops that differ only there are not common subexpressions."""
    m = parse("""\
%0 = rw.op {a = 1} : tensor<4xi32>
%1 = rw.op {a = true} : tensor<4xi32>
%2 = rw.op {a = 0} : tensor<4xi32>
%3 = rw.op {a = false} : tensor<4xi32>
test.sink %0, %1, %2, %3
""", Context())
    before = m.print()
    assert eliminate_common_subexpressions(m) == 0
    assert m.print() == before


def test_erasing_an_op_with_regions_skips_its_queued_ops():
    """Ops queued for a visit that were erased with their parent (or whose slot a new op
    took) are skipped: the worklist checks generations."""
    m = parse("""\
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %r = test.loop %x : tensor<4xi32> ({
    ^bb0(%i: tensor<4xi32>):
      %a = test.add %i, %x : tensor<4xi32>
      %n = test.neg %a : tensor<4xi32>
      %nn = test.neg %n : tensor<4xi32>
      test.yield %nn
    })
    %k = test.mul %x, %x : tensor<4xi32>
    builtin.return %k
  })
})
""", Context())
    seen = []

    @pattern("test.loop")
    def drop_unused_loop(op, rw):
        if op.results[0].has_uses:
            return False
        after = op.next
        rw.erase_op(op)
        # new ops (made through the op API) may take the slots of the erased ones
        b = Builder(after.context).before_op(after)
        for _ in range(4):
            b.create("test.source", result_types=[I32])
        return True

    @pattern()
    def watch(op, rw):
        seen.append(op.name)
        return False
    r = result(m, [drop_unused_loop, watch])
    assert names(m) == ["test.source"] * 4 + ["test.mul", "builtin.return"]
    # first sweep: the loop's body is skipped, and so are the new ops (the next sweep's)
    assert seen[:3] == ["builtin.func", "test.mul", "builtin.return"]
    assert seen[3:] == ["builtin.func"] + ["test.source"] * 4 + ["test.mul", "builtin.return"]
    assert r["erased"] == 1 and r["converged"] and r["iterations"] == 2


def test_a_rewriter_outside_the_driver_has_no_current_op():
    m = parse(SOURCE, Context())
    rw = PatternRewriter(m)
    with pytest.raises(RewriteError, match="not at an op"):
        rw.constant(DenseAttr(np.zeros(4, np.int32)), I32)
    sub = body(m)[2]
    assert sub.name == "test.sub"
    rw.replace_all_uses_with(sub.result, sub.operands[0])
    rw.erase_op(sub)
    m.verify()
    assert rw.erased == 1 and "test.sub" not in names(m)


# ---- regressions from review ----------------------------------------------------------------

def test_the_rewriter_refuses_ops_of_another_context():
    m, other = parse(SOURCE, Context()), parse(SOURCE, Context())
    rw = PatternRewriter(m)
    for call in (lambda: rw.erase_op(body(other)[0]),
                 lambda: rw.notify_changed(body(other)[0]),
                 lambda: rw.set_attribute(body(other)[0], "a", 1),
                 lambda: rw.replace_all_uses_with(body(other)[0].result, body(m)[0].result)):
        with pytest.raises(RewriteError, match="of the IR being rewritten"):
            call()
    assert other.print() == parse(SOURCE, Context()).print()


def test_requeueing_without_changes_ends():
    @pattern("test.mul")
    def nag(op, rw):
        rw.notify_changed(op)           # queues the op again, changes nothing
        return False
    m = parse(SOURCE, Context())
    r = result(m, [nag], fold=False)
    assert not r["converged"] and not r["changed"]


def test_cse_handles_nesting_deeper_than_the_c_stack():
    """5,000 nested regions, on a thread with a 256 KiB stack: C recursion per level would
    overflow it (and crash the process); the explicit block stack does not care."""
    ctx = Context()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    for _ in range(5_000):
        op = b.create("test.single")
        b.create_block(op.regions[0])
    c1 = b.create("test.constant", attributes={"value": DenseAttr(np.arange(4, dtype=np.int32))})
    c2 = b.create("test.constant", attributes={"value": DenseAttr(np.arange(4, dtype=np.int32))})
    b.create("test.sink", (c1.result, c2.result))
    got = []
    old = threading.stack_size(256 * 1024)
    try:
        t = threading.Thread(target=lambda: got.append(eliminate_common_subexpressions(m)))
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert got == [1]


def test_cse_does_not_reach_into_unregistered_region_ops():
    text = """builtin.module ({
  %0 = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
  test.sink %0
  "foo.kernel"() ({
    %1 = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    test.sink %1
  }) : () -> ()
})"""
    m = parse(text, Context(allow_unregistered=True))
    assert eliminate_common_subexpressions(m) == 0      # foo.kernel may be isolated from above


def test_binary_folds_leave_i1_alone():
    text = """builtin.module ({
  %0 = test.constant <{value = dense<[true, false]> : tensor<2xi1>}> : tensor<2xi1>
  %1 = test.add %0, %0 : tensor<2xi1>
  test.sink %1
})"""
    m = parse(text, Context())
    r = result(m)
    assert r["folded"] == 0 and "test.add" in [op.name for op in m.body]
