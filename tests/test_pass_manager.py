"""The pass manager: pipeline text (round trips, errors with columns), options, the pass
registry, how failures are reported (always a PassError naming the pass), and the
instruments: timing, IR printing, crash reproducers, and the `accy opt` command using them."""
import io
import os
import re
import sys
import textwrap

import pytest

import accy.__main__ as cli
from accy.errors import AccyError, IRError, ParseError, PassError
from accy.ir import Context, parse
from accy.passes import (AnalysisDescriptor, CrashReproducer, Instrument, Nest, Option, Pass,
                         PassManager, PrintIR, Timing, lookup_pass, parse_pipeline,
                         register_pass, registered_passes)
from accy.passes import pipeline as pipeline_module
from accy.passes.instruments import read_reproducer

from child_process import run_bounded

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SOURCE = """\
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%x: tensor<4xi32>):
    %c = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %z = test.constant <{value = dense<0> : tensor<4xi32>}> : tensor<4xi32>
    %a = test.add %c, %x : tensor<4xi32>
    %b = test.add %x, %c : tensor<4xi32>
    %d = test.add %b, %z : tensor<4xi32>
    %m = test.mul %a, %d : tensor<4xi32>
    %dead = test.mul %m, %m : tensor<4xi32>
    builtin.return %m
  })
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "g"}> ({
  ^bb0(%y: tensor<4xi32>):
    %n = test.neg %y : tensor<4xi32>
    %nn = test.neg %n : tensor<4xi32>
    builtin.return %nn
  })
})
"""

AFTER_DEFAULT_PIPELINE = """\
builtin.module ({
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xi32>):
    %1 = test.constant <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : tensor<4xi32>
    %2 = test.add %0, %1 : tensor<4xi32>
    %3 = test.mul %2, %2 : tensor<4xi32>
    builtin.return %3
  })
  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, sym_name = "g"}> ({
  ^bb0(%0: tensor<4xi32>):
    builtin.return %0
  })
})
"""


@pytest.fixture(autouse=True)
def restore_pass_registry():
    """Passes registered by a test are forgotten after it."""
    saved = dict(pipeline_module._PASSES)
    yield
    pipeline_module._PASSES.clear()
    pipeline_module._PASSES.update(saved)


def source_module(ctx=None):
    return parse(SOURCE, ctx or Context())


def funcs(module):
    return [op for op in module.body if op.name == "builtin.func"]


# ---- pipeline text -----------------------------------------------------------------------------

@pytest.mark.parametrize("text, canonical", [
    ("canonicalize,cse,dce", "canonicalize,cse,dce"),
    ("", ""),
    ("   ", ""),
    ("func(cse)", "builtin.func(cse)"),
    ("builtin.func(cse,dce)", "builtin.func(cse,dce)"),
    ("func()", "builtin.func()"),
    ("test.loop(cse)", "test.loop(cse)"),
    ("func(test.loop(canonicalize,cse)),dce", "builtin.func(test.loop(canonicalize,cse)),dce"),
    ("canonicalize{max-iterations=3}", "canonicalize{max-iterations=3}"),
    ("canonicalize{max-iterations=10}", "canonicalize{max-iterations=10}"),   # set: printed
    ("canonicalize{}", "canonicalize"),
    ("canonicalize{test-convergence=1 max-iterations=2 fold=0}",
     "canonicalize{fold=false max-iterations=2 test-convergence=true}"),          # sorted
    (" canonicalize { max-iterations = 3 } , func ( cse ) , dce ",
     "canonicalize{max-iterations=3},builtin.func(cse),dce"),
    ("canonicalize{max-iterations=\"7\"}", "canonicalize{max-iterations=7}"),
    ("canonicalize{max-iterations=1_000}", "canonicalize{max-iterations=1000}"),
])
def test_pipeline_text_round_trips(text, canonical):
    pm = PassManager(text)
    assert pm.text() == canonical
    assert PassManager(pm.text()).text() == canonical
    assert PassManager(pm.text()).items == pm.items
    assert repr(pm) == f"PassManager({canonical!r})"


def test_pipeline_items_are_passes_and_nests():
    items = parse_pipeline("canonicalize{max-iterations=2},func(cse)")
    assert items[0].name == "canonicalize" and items[0].option_values == {
        "max-iterations": 2, "max-rewrites": -1, "test-convergence": False, "fold": True}
    assert items[1] == Nest("builtin.func", (lookup_pass("cse"),))
    assert PassManager(list(items)).text() == "canonicalize{max-iterations=2},builtin.func(cse)"


LABEL = Pass("labelled", lambda op, ctx: None,
             options=(Option("label", str, "", "a text option"),
                      Option("scale", float, 1.0), Option("on", bool, False)))


@pytest.mark.parametrize("value", ["plain", "two words", 'a "quoted" one', "back\\slash",
                                   "braces {} and, commas", "", "x=1 y=2"])
def test_string_options_round_trip_with_quotes(value):
    register_pass(LABEL)
    p = LABEL.with_options(label=value)
    text = p.text()
    assert text.startswith('labelled{label="')
    (again,) = parse_pipeline(text)
    assert again.option_values["label"] == value and again == p
    assert PassManager([p]).text() == text


def test_scalar_options_round_trip():
    register_pass(LABEL)
    (p,) = parse_pipeline("labelled{scale=2 on=true label=bare}")
    assert p.option_values == {"label": "bare", "scale": 2.0, "on": True}
    assert p.text() == 'labelled{label="bare" on=true scale=2.0}'
    (q,) = parse_pipeline("labelled{scale=1e-05}")
    assert parse_pipeline(q.text()) == (q,) and q.option_values["scale"] == 1e-05


@pytest.mark.parametrize("text, column, message", [
    ("cse,nope", 5, "unknown pass 'nope'"),
    ("func(cse,nope)", 10, "unknown pass 'nope'"),
    ("canonicalize{bogus=1}", 14, "has no option 'bogus'"),
    ("canonicalize{max-iterations=abc}", 14, "expects a value of type int, got 'abc'"),
    ("canonicalize{ max-iterations=0x10 }", 15, "expects a value of type int"),
    ("canonicalize{fold=yes}", 14, "takes true or false, got 'yes'"),
    ("func(cse", 9, "expected ')'"),
    ("func(cse))", 10, "expected ',' or the end of the pipeline"),
    ("cse)", 4, "expected ',' or the end of the pipeline"),
    ("(cse)", 1, "expected a pass name or an op name"),
    ("canonicalize{max-iterations=3", 30, "expected '}'"),
    ("canonicalize}", 13, "expected ',' or the end of the pipeline"),
    ("canonicalize{max-iterations=3}}", 31, "expected ',' or the end of the pipeline"),
    ("cse dce", 5, "expected ',' or the end of the pipeline"),
    ("cse,", 5, "expected a pass name or an op name"),
    (",cse", 1, "expected a pass name or an op name"),
    ("cse,,dce", 5, "expected a pass name or an op name"),
    ("canonicalize{max-iterations}", 28, "expected '=' after the option name"),
    ("canonicalize{=3}", 14, "expected an option name"),
    ("canonicalize{max-iterations=}", 29, "expected an option value"),
    ('canonicalize{max-iterations="7}', 29, "unterminated string"),
    ("canonicalize{max-iterations=3 max-iterations=4}", 31, "option 'max-iterations' is given "
                                                            "twice"),
    ("canonicalize{max-iterations=0}", 14, "'max-iterations' must be at least 1, got 0"),
    ("canonicalize{max-rewrites=-2}", 14, "'max-rewrites' must be at least -1, got -2"),
    ("cse(dce)", 1, "'cse' is a pass, which takes no nested pipeline"),
    ("nosuchop(cse)", 1, "no such op is registered"),
])
def test_pipeline_errors_have_columns(text, column, message):
    with pytest.raises(ParseError) as info:
        PassManager(text)
    e = info.value
    assert (e.line, e.column) == (1, column)
    assert message in e.message and e.message.startswith("pipeline: ")
    assert e.snippet == f"  {text}\n  {' ' * (column - 1)}^"
    assert str(e).startswith(f"1:{column}: pipeline: ")


def test_pipeline_errors_name_the_registered_passes():
    with pytest.raises(ParseError, match=r"registered: bufferize, canonicalize, cse, dce, decompose-attention, kernelize, lower-case, outline, raise-attention, schedule, shape"):
        parse_pipeline("nope")


def test_pipeline_must_be_text_of_passes_and_nests():
    with pytest.raises(TypeError):
        parse_pipeline(["cse"])
    with pytest.raises(TypeError, match="Pass and Nest"):
        PassManager([lookup_pass("cse"), "dce"])
    with pytest.raises(TypeError, match="Pass and Nest"):
        PassManager([Nest("builtin.func", ("cse",))])


# ---- options -------------------------------------------------------------------------------

def test_with_options_checks_and_coerces():
    canon = lookup_pass("canonicalize")
    p = canon.with_options(max_iterations=3)
    assert p.values == (("max-iterations", 3),) and p.text() == "canonicalize{max-iterations=3}"
    assert p.with_options({"fold": "false"}).option_values["fold"] is False
    assert p.with_options({"max-iterations": " 4 "}).option_values["max-iterations"] == 4
    assert canon.values == ()                         # passes are immutable
    for bad in ({"max_iterations": True}, {"max_iterations": 2.0}, {"fold": 1},
                {"fold": "yes"}, {"max_iterations": "many"}, {"test_convergence": None}):
        with pytest.raises(ValueError, match="option '"):
            canon.with_options(**bad)
    with pytest.raises(ValueError, match=r"has no option 'bogus' \(options: fold, "
                                         r"max-iterations, max-rewrites, test-convergence\)"):
        canon.with_options(bogus=1)
    with pytest.raises(ValueError, match=r"options: none"):
        lookup_pass("cse").with_options(x=1)
    with pytest.raises(ValueError, match="has no option"):
        Pass("p", lambda op, ctx: None, values=(("x", 1),))


def test_float_options_take_ints_and_values_are_sorted():
    p = LABEL.with_options(scale=2, on=True)
    assert p.option_values["scale"] == 2.0 and type(p.option_values["scale"]) is float
    assert [k for k, _ in p.values] == ["on", "scale"]


# ---- the registry ------------------------------------------------------------------------------

def test_register_pass_by_module_is_lazy(tmp_path, monkeypatch):
    (tmp_path / "lazy_pass_mod.py").write_text(textwrap.dedent("""\
        from accy.passes import Pass
        RAN = []
        PASS = Pass("lazy-pass", lambda op, ctx: RAN.append(op.name))
    """))
    (tmp_path / "wrong_pass_mod.py").write_text(textwrap.dedent("""\
        from accy.passes import Pass
        PASS = Pass("another-name", lambda op, ctx: None)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    register_pass("lazy-pass", "lazy_pass_mod")
    register_pass("wrong-pass", "wrong_pass_mod")
    assert "lazy-pass" in registered_passes() and "lazy_pass_mod" not in sys.modules
    try:
        pm = PassManager("func(lazy-pass)")          # naming it imports the module
        assert "lazy_pass_mod" in sys.modules
        pm.run(source_module())
        assert sys.modules["lazy_pass_mod"].RAN == ["builtin.func", "builtin.func"]
        assert lookup_pass("lazy-pass") is sys.modules["lazy_pass_mod"].PASS
        with pytest.raises(TypeError, match="does not define PASS as the pass 'wrong-pass'"):
            lookup_pass("wrong-pass")
    finally:
        sys.modules.pop("lazy_pass_mod", None)
        sys.modules.pop("wrong_pass_mod", None)
    with pytest.raises(KeyError):
        lookup_pass("never-registered")
    with pytest.raises(TypeError):
        register_pass("name-only")
    with pytest.raises(TypeError):
        register_pass(42, "module")


def test_builtin_passes_are_registered_by_module():
    assert {"canonicalize", "cse", "dce"} <= set(registered_passes())
    for name in ("canonicalize", "cse", "dce"):
        assert lookup_pass(name).name == name


# ---- running and failing -----------------------------------------------------------------------

def test_default_pipeline_and_statistics():
    m = source_module()
    stats = PassManager("canonicalize,func(cse),dce").run(m)
    m.verify()
    assert m.print() == AFTER_DEFAULT_PIPELINE
    assert stats["canonicalize"]["folded"] == 1             # %b + 0
    assert stats["canonicalize"]["rewritten"] >= 1          # neg(neg(y)) (see test_rewrite)
    assert stats["cse"]["erased"] == 1                      # %b is %a once %c is on the right
    assert "dce" not in stats or not stats["dce"]


def test_run_takes_an_operation_and_a_cache_of_its_context():
    from accy.passes import AnalysisCache
    with pytest.raises(TypeError, match="takes an Operation"):
        PassManager("cse").run("builtin.module")
    m = source_module()
    with pytest.raises(PassError, match="another Context"):
        PassManager("cse").run(m, AnalysisCache(Context()))


def failing(name, run, anchor=None):
    p = Pass(name, run, anchor=anchor)
    register_pass(p)
    return p


def _erase_return(op, ctx):
    for inner in op.walk():
        if inner.name == "builtin.return":
            inner.erase()
            return


@pytest.mark.parametrize("run, message", [
    (lambda op, ctx: False, r"^pass 'bad' failed on '(builtin.module|builtin.func)'$"),
    (lambda op, ctx: ctx.fail("no luck"), r"^pass 'bad' failed on '.*': no luck$"),
    (lambda op, ctx: 1 / 0, r"^pass 'bad' crashed on '.*': ZeroDivisionError: division by zero"),
    (lambda op, ctx: (_ for _ in ()).throw(ValueError("bad value")),
     r"^pass 'bad' crashed on '.*': ValueError: bad value$"),
    (lambda op, ctx: (_ for _ in ()).throw(IRError("misuse")),
     r"^pass 'bad' failed on '.*': IRError: misuse$"),
    (_erase_return, r"^pass 'bad' left invalid IR on '.*': "),
])
@pytest.mark.parametrize("nested", [False, True])
def test_a_failing_pass_raises_pass_error_naming_it(run, message, nested):
    bad = failing("bad", run)
    m = source_module()
    text = "canonicalize,func(cse,bad),dce" if nested else "canonicalize,bad,dce"
    with pytest.raises(PassError, match=message) as info:
        PassManager(text).run(m)
    e = info.value
    assert e.pass_name == "bad" and e.reproducer is None
    assert e.op_name == ("builtin.func" if nested else "builtin.module")
    assert isinstance(e, AccyError)
    if "crashed" in message:
        assert isinstance(e.__cause__, (ZeroDivisionError, ValueError))
    assert bad is lookup_pass("bad")


def test_verify_each_false_lets_invalid_ir_through():
    failing("unterminate", _erase_return)
    m = source_module()
    PassManager("unterminate", verify_each=False).run(m)
    with pytest.raises(AccyError):
        m.verify()


def test_a_pass_that_erases_its_op_is_reported():
    failing("self-eraser", lambda op, ctx: op.erase())
    m = source_module()
    with pytest.raises(PassError, match="pass 'self-eraser' erased the op it ran on") as info:
        PassManager("func(self-eraser)").run(m)
    assert info.value.pass_name == "self-eraser" and info.value.op_name == "builtin.func"


@pytest.mark.parametrize("how", ["return False", "fail", "raise"])
def test_a_pass_that_erases_its_op_and_fails_is_reported_as_pass_error(how):
    """A pass that erases the op it ran on and then fails must still give a PassError naming
    it (and reach the instruments), not the IRError of reading the erased op's name."""
    def run(op, ctx):
        op.erase()
        if how == "fail":
            ctx.fail("gone")
        if how == "raise":
            raise ValueError("gone")
        return False
    failing("erase-and-fail", run)
    seen = []

    class Watch(Instrument):
        def on_failure(self, pass_, op, error):
            seen.append(pass_.name)
    with pytest.raises(PassError) as info:
        PassManager("func(erase-and-fail)", instruments=[Watch()]).run(source_module())
    assert info.value.pass_name == "erase-and-fail"
    assert seen == ["erase-and-fail"]


def test_anchored_pass_runs_only_on_its_op():
    seen = []
    on_func = failing("on-func", lambda op, ctx: seen.append(op.name), anchor="builtin.func")
    m = source_module()
    PassManager("func(on-func)").run(m)
    assert seen == ["builtin.func", "builtin.func"]
    with pytest.raises(PassError, match="pass 'on-func' runs on 'builtin.func' ops, not on "
                                        "'builtin.module'") as info:
        PassManager([on_func]).run(m)
    assert info.value.pass_name == "on-func" and info.value.op_name == "builtin.module"
    # a nest named after the op a pipeline runs on is anchored on it
    PassManager("builtin.func(on-func)").run(funcs(m)[0])
    assert seen == ["builtin.func"] * 3


def test_a_failure_stops_the_pipeline():
    ran = []
    failing("first", lambda op, ctx: ran.append("first"))
    failing("second", lambda op, ctx: False)
    failing("third", lambda op, ctx: ran.append("third"))
    with pytest.raises(PassError, match="'second'"):
        PassManager("first,func(second),third").run(source_module())
    assert ran == ["first"]


# ---- instruments -------------------------------------------------------------------------------

OP_COUNT = AnalysisDescriptor("OpCount")


def _count_ops(op, ctx):
    n = ctx.get_analysis(op, OP_COUNT, lambda o, scope: sum(1 for _ in o.walk()))
    ctx.statistics["ops"] += n
    ctx.preserve_all_analyses()


def timing_names(report):
    """The names in a timing report's tree, indented as there."""
    return re.findall(r"(?m)^  +\d+\.\d{4} \( *\d+\.\d%\)  (.*)$", report)


def test_timing_lists_passes_nests_analyses_and_counters():
    register_pass(Pass("count-ops", _count_ops))
    out = io.StringIO()
    timing = Timing(out)
    m = source_module()
    PassManager("canonicalize,func(cse,count-ops,count-ops),count-ops,dce",
                instruments=[timing]).run(m)
    report = out.getvalue()
    assert report == timing.report
    lines = report.splitlines()
    assert "... Execution time report ..." in lines[1]
    assert lines[3].startswith("  Total Execution Time: ")
    names = timing_names(report)
    # the two count-ops in the nest get a line each; the runs over both functions add up
    assert names == ["canonicalize", "'builtin.func' Pipeline", "  cse", "  count-ops",
                     "    (A) OpCount", "  count-ops", "count-ops", "  (A) OpCount", "dce",
                     "Total"]
    # two functions: the analysis is computed once for each, and found once for each
    assert "  Analysis cache: 2 hits, 3 misses, " in report
    assert "  Statistics of canonicalize: " in report and "1 folded" in report
    assert "  Statistics of cse: 1 erased" in report
    # walks count the op itself: f holds 4 ops after canonicalize and cse, g one, and the module
    # the two functions and what they hold
    ops_in_f, ops_in_g, ops_in_m = 5, 2, 8
    assert (f"  Statistics of count-ops: "
            f"{2 * (ops_in_f + ops_in_g) + ops_in_m} ops") in report


def test_a_cache_given_to_run_keeps_analyses_across_runs():
    from accy.passes import AnalysisCache
    register_pass(Pass("count-ops", _count_ops))
    m = source_module()
    cache = AnalysisCache(m.context)
    try:
        PassManager("func(count-ops)").run(m, cache)
        assert cache.statistics()["misses"] == 2 and cache.statistics()["hits"] == 0
        timing = Timing(io.StringIO())
        PassManager("func(count-ops)", instruments=[timing]).run(m, cache)
        assert cache.statistics()["misses"] == 2 and cache.statistics()["hits"] == 2
        # the report counts this run's share of the reused cache
        assert "  Analysis cache: 2 hits, 0 misses, " in timing.report
        stats = PassManager("func(cse,count-ops)").run(m, cache)    # cse changes nothing
        assert not stats["cse"] and cache.statistics()["hits"] == 4
        stats = PassManager("func(dce,count-ops)").run(m, cache)    # dce changes f only
        assert stats["dce"]["erased"] == 1
        assert cache.statistics()["misses"] == 3 and cache.statistics()["hits"] == 5
    finally:
        cache.close()


def test_timing_reports_after_a_failure_too():
    failing("boom", lambda op, ctx: False)
    out = io.StringIO()
    with pytest.raises(PassError):
        PassManager("canonicalize,func(cse,boom)", instruments=[Timing(out)]).run(source_module())
    report = out.getvalue()
    assert "canonicalize" in report and "'builtin.func' Pipeline" in report and "boom" in report
    assert "Analysis cache: " in report


def _dumps(text):
    return [line for line in text.splitlines() if line.startswith("// -----// IR Dump After")]


def test_print_ir_after_all():
    out = io.StringIO()
    m = source_module()
    PassManager("canonicalize,func(cse,dce),dce", instruments=[PrintIR("all", out)]).run(m)
    assert _dumps(out.getvalue()) == [
        "// -----// IR Dump After canonicalize (builtin.module) //----- //",
        "// -----// IR Dump After cse (builtin.func) //----- //",
        "// -----// IR Dump After dce (builtin.func) //----- //",
        "// -----// IR Dump After cse (builtin.func) //----- //",
        "// -----// IR Dump After dce (builtin.func) //----- //",
        "// -----// IR Dump After dce (builtin.module) //----- //"]
    assert out.getvalue().endswith(AFTER_DEFAULT_PIPELINE + "\n")


def test_print_ir_generic_and_bad_mode():
    out = io.StringIO()
    PassManager("dce", instruments=[PrintIR("all", out, generic=True)]).run(source_module())
    assert '"builtin.module"() ({' in out.getvalue()
    with pytest.raises(ValueError):
        PrintIR("sometimes")


def test_print_ir_after_change_skips_passes_that_restore_the_ir():
    epochs = []

    def flip_and_restore(op, ctx):                    # mutates, then undoes it
        before = op.epoch
        mul = next((o for o in op.walk() if o.name == "test.mul"), None)
        if mul is None:
            return
        a, b = mul.operands
        mul.set_operand(0, b)
        mul.set_operand(0, a)
        mul.set_attribute("note", "x")
        mul.remove_attribute("note")
        epochs.append((before, op.epoch))

    def swap(op, ctx):
        mul = next(o for o in op.walk() if o.name == "test.mul")
        a, b = mul.operands
        mul.set_operands([b, a])

    register_pass(Pass("restore", flip_and_restore))
    register_pass(Pass("swap", swap))
    register_pass(Pass("noop", lambda op, ctx: None))
    out = io.StringIO()
    m = source_module()
    PassManager("noop,restore,swap,noop,restore,dce,cse",
                instruments=[PrintIR("change", out)]).run(m)
    assert all(before != after for before, after in epochs) and len(epochs) == 2
    assert _dumps(out.getvalue()) == [
        "// -----// IR Dump After swap (builtin.module) //----- //",
        "// -----// IR Dump After dce (builtin.module) //----- //"]
    # in nests too: only the function that changed is printed
    out = io.StringIO()
    PassManager("func(restore,canonicalize)", instruments=[PrintIR("change", out)]).run(
        source_module())
    assert _dumps(out.getvalue()) == [
        "// -----// IR Dump After canonicalize (builtin.func) //----- //"] * 2


def test_instrument_hooks_come_in_order():
    log = []

    class Log(Instrument):
        def before_pipeline(self, manager, op, cache): log.append(("pipeline", op.name))
        def after_pipeline(self, manager, op, cache): log.append(("/pipeline", op.name))
        def before_pass(self, pass_, op): log.append((pass_.name, op.name))
        def after_pass(self, pass_, op, changed, statistics):
            log.append(("/" + pass_.name, changed))
        def before_nest(self, nest, op): log.append((nest.op_name, op.name))
        def after_nest(self, nest, op): log.append(("/" + nest.op_name, op.name))
        def before_analysis(self, descriptor, op): log.append(("A " + descriptor.name, op.name))
        def after_analysis(self, descriptor, op): log.append(("/A " + descriptor.name, op.name))
    register_pass(Pass("count-ops", _count_ops))
    m = parse(SOURCE.split("  builtin.func <{function_type = (tensor<4xi32>) -> tensor<4xi32>, "
                           "sym_name = \"g\"")[0] + "})\n", Context())
    PassManager("func(count-ops,cse),dce", instruments=[Log()]).run(m)
    assert log == [("pipeline", "builtin.module"), ("builtin.func", "builtin.module"),
                   ("count-ops", "builtin.func"), ("A OpCount", "builtin.func"),
                   ("/A OpCount", "builtin.func"), ("/count-ops", False),
                   ("cse", "builtin.func"), ("/cse", False),
                   ("/builtin.func", "builtin.module"),
                   ("dce", "builtin.module"), ("/dce", True),
                   ("/pipeline", "builtin.module")]


# ---- crash reproducers ---------------------------------------------------------------------

def test_crash_reproducer_records_the_pipeline_and_the_input(tmp_path, capsys):
    failing("explode", lambda op, ctx: ctx.fail("kaboom"))
    path = tmp_path / "repro.mlir"
    m = source_module()
    given = m.print()
    pipeline = "canonicalize,func(cse,explode),dce"
    with pytest.raises(PassError) as info:
        PassManager(pipeline, instruments=[CrashReproducer(path)]).run(m)
    e = info.value
    assert e.reproducer == os.fspath(path)
    assert f"reproducer: {path} (replay: accy opt {path} --run-reproducer)" in str(e)
    text = path.read_text()
    assert text.startswith("// accy crash reproducer: ")
    assert "// accy-pipeline: canonicalize,builtin.func(cse,explode),dce\n" in text
    assert "// accy-allow-unregistered: false\n" in text
    assert "// error: pass 'explode' failed on 'builtin.func': kaboom\n" in text
    assert text.endswith(given + "\n")                 # the IR given, not the IR at the crash
    assert "%dead" not in text and "test.neg" in text
    assert read_reproducer(text) == ("canonicalize,builtin.func(cse,explode),dce", False, "")
    assert [p.name for p in tmp_path.iterdir()] == ["repro.mlir"]   # no temporary left

    # replayed by `accy opt FILE --run-reproducer`: it fails again, the same way
    assert cli.main(["opt", str(path), "--run-reproducer"]) == 1
    err = capsys.readouterr().err
    assert "accy: error: pass 'explode' failed on 'builtin.func': kaboom" in err

    # once the pass is fixed, the reproducer runs through
    register_pass(Pass("explode", lambda op, ctx: None))
    assert cli.main(["opt", str(path), "--run-reproducer"]) == 0
    assert capsys.readouterr().out == AFTER_DEFAULT_PIPELINE


def test_crash_reproducer_keeps_allow_unregistered(tmp_path, capsys):
    failing("explode", lambda op, ctx: False)
    ctx = Context(allow_unregistered=True)
    m = parse(SOURCE.replace("    builtin.return %nn",
                             "    other.op %nn\n    builtin.return %nn"), ctx)
    path = tmp_path / "r.mlir"
    with pytest.raises(PassError):
        PassManager("explode", instruments=[CrashReproducer(path)]).run(m)
    text = path.read_text()
    assert read_reproducer(text) == ("explode", True, "")
    assert cli.main(["opt", str(path), "--run-reproducer"]) == 1
    err = capsys.readouterr().err
    assert "pass 'explode' failed on 'builtin.module'" in err


def test_a_reproducer_of_a_pipeline_run_on_a_function_replays_on_that_function(tmp_path,
                                                                            capsys):
    """A pipeline run on a builtin.func (not on a module) writes a reproducer whose replay
    fails the same way: the same pass, on the same kind of op, with the same message."""
    failing("explode", lambda op, ctx: ctx.fail("kaboom"), anchor="builtin.func")
    path = tmp_path / "repro.mlir"
    func = funcs(source_module())[0]
    with pytest.raises(PassError, match=r"^pass 'explode' failed on 'builtin.func': kaboom\n"):
        PassManager("explode", instruments=[CrashReproducer(path)]).run(func)
    assert cli.main(["opt", str(path), "--run-reproducer"]) == 1
    err = capsys.readouterr().err
    assert "accy: error: pass 'explode' failed on 'builtin.func': kaboom" in err, err


def test_an_unwritable_reproducer_does_not_hide_the_failure(tmp_path, capsys):
    """When the reproducer cannot be written, the user still learns which pass failed."""
    failing("explode", lambda op, ctx: ctx.fail("kaboom"))
    src = tmp_path / "in.mlir"
    src.write_text(SOURCE)
    missing = tmp_path / "no" / "such" / "folder" / "r.mlir"
    assert cli.main(["opt", str(src), "--pipeline", "explode", "--reproducer", str(missing)]) == 1
    err = capsys.readouterr().err
    assert "pass 'explode' failed on 'builtin.module': kaboom" in err, err


def test_run_reproducer_needs_a_reproducer(tmp_path, capsys):
    plain = tmp_path / "plain.mlir"
    plain.write_text(SOURCE)
    assert cli.main(["opt", str(plain), "--run-reproducer"]) == 1
    assert "not an accy reproducer" in capsys.readouterr().err
    with pytest.raises(ValueError):
        read_reproducer("// just a comment\nbuiltin.module ({\n})\n")


def test_cli_writes_a_reproducer_and_prints_ir(tmp_path, capsys):
    failing("explode", lambda op, ctx: ctx.fail("kaboom"))
    src = tmp_path / "in.mlir"
    src.write_text(SOURCE)
    repro = tmp_path / "out" / "crash.mlir"
    repro.parent.mkdir()
    assert cli.main(["opt", str(src), "--pipeline", "canonicalize,explode",
                     "--reproducer", str(repro)]) == 1
    err = capsys.readouterr().err
    assert "pass 'explode' failed on 'builtin.module': kaboom" in err
    assert f"reproducer: {repro}" in err
    assert read_reproducer(repro.read_text()) == ("canonicalize,explode", False, "")

    assert cli.main(["opt", str(src), "--pipeline", "canonicalize,func(cse),dce",
                     "--print-ir-after-change"]) == 0
    out = capsys.readouterr()
    assert out.out == AFTER_DEFAULT_PIPELINE
    assert _dumps(out.err) == ["// -----// IR Dump After canonicalize (builtin.module) //----- //",
                               "// -----// IR Dump After cse (builtin.func) //----- //"]
    assert cli.main(["opt", str(src), "--pipeline", "func(cse)", "--print-ir-after-all",
                     "--timing"]) == 0
    err = capsys.readouterr().err
    assert len(_dumps(err)) == 2 and "'builtin.func' Pipeline" in err
    assert cli.main(["opt", str(src), "--pipeline", "nope"]) == 1
    assert "1:1: pipeline: unknown pass 'nope'" in capsys.readouterr().err


# ---- the accy command in a fresh process -------------------------------------------------------

def run_python(*args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return run_bounded([sys.executable, *args], capture_output=True, text=True, env=env,
                       cwd=ROOT)


def test_accy_opt_runs_a_pipeline_with_timing(tmp_path):
    """`python -m accy opt` has only the builtin dialect: the pipeline runs, changes nothing and
    reports its timing."""
    src = tmp_path / "chain.mlir"
    with open(os.path.join(ROOT, "accy", "examples", "chain.mlir"), encoding="utf-8") as f:
        src.write_text(f.read())
    r = run_python("-m", "accy", "opt", str(src), "--pipeline", "canonicalize,func(cse),dce",
                   "--timing")
    assert r.returncode == 0, r.stderr
    assert r.stdout == parse(src.read_text(), Context()).print()
    names = timing_names(r.stderr)
    assert names == ["canonicalize", "'builtin.func' Pipeline", "  cse", "dce", "Total"]
    assert "Analysis cache: " in r.stderr


# A fresh process with the test dialect registered, running `accy` as its command line says.
WITH_TEST_DIALECT = ("import sys; sys.path.insert(0, 'tests'); import conftest, accy.ir; "
                     "accy.ir.register_dialect('test', conftest.TEST_ROWS); "
                     "from accy.__main__ import main; sys.exit(main(sys.argv[1:]))")


def test_reproducer_of_a_non_converging_canonicalize_replays_in_a_new_process(tmp_path):
    """canonicalize{max-iterations=1 test-convergence=true} fails when its one sweep changes
    anything (no builtin op can change, so this needs the test dialect)."""
    src = tmp_path / "in.mlir"
    src.write_text(SOURCE)
    repro = tmp_path / "crash.mlir"
    pipeline = "canonicalize{max-iterations=1 test-convergence=true}"
    r = run_python("-c", WITH_TEST_DIALECT, "opt", str(src), "--pipeline", pipeline,
                   "--reproducer", str(repro))
    message = ("pass 'canonicalize' failed on 'builtin.module': no fixed point within 1 "
               "sweeps")
    assert r.returncode == 1 and message in r.stderr, r.stderr
    text = repro.read_text()
    assert read_reproducer(text) == (
        "canonicalize{max-iterations=1 test-convergence=true}", False, "")
    assert text.endswith(parse(SOURCE, Context()).print() + "\n")
    r = run_python("-c", WITH_TEST_DIALECT, "opt", str(repro), "--run-reproducer")
    assert r.returncode == 1 and message in r.stderr, r.stderr
    # builtin-only IR never fails it: nothing builtin folds, is pure and dead, or has patterns
    r = run_python("-m", "accy", "opt", os.path.join(ROOT, "accy", "examples", "chain.mlir"),
                   "--pipeline", pipeline)
    assert r.returncode == 0, r.stderr


def test_a_nested_pass_that_erases_a_sibling_not_reached_yet_is_reported():
    def erase_g(op, ctx):
        for sibling in list(op.parent):
            if sibling.attributes.get("sym_name") == "g":
                sibling.erase()
    failing("erase-g", erase_g)
    with pytest.raises(PassError, match=r"a pass of the nested pipeline 'builtin.func\(erase-g\)' "
                                        r"erased a 'builtin.func' op it had not reached yet"):
        PassManager("func(erase-g)").run(source_module())


def test_a_lost_sibling_still_leaves_a_reproducer_and_a_timing_report(tmp_path):
    def erase_g(op, ctx):
        for sibling in list(op.parent):
            if sibling.attributes.get("sym_name") == "g":
                sibling.erase()
    failing("erase-g", erase_g)
    path = tmp_path / "repro.mlir"
    out = io.StringIO()
    timing = Timing(out)
    with pytest.raises(PassError) as info:
        PassManager("func(erase-g)", instruments=[timing, CrashReproducer(path)]).run(
            source_module())
    assert info.value.reproducer == str(path)
    assert read_reproducer(path.read_text())[0] == "builtin.func(erase-g)"
    assert "'builtin.func' Pipeline" in timing.report and "erase-g" in timing.report


def test_pipeline_errors_on_later_lines_say_which_line():
    with pytest.raises(ParseError) as info:
        PassManager("canonicalize,\n  func(cse),\n  nope")
    e = info.value
    assert (e.line, e.column) == (3, 3) and "unknown pass 'nope'" in e.message
    assert e.snippet == "    nope\n    ^"


def test_a_nest_with_a_full_op_name_need_not_be_registered():
    # dialects may register their ops after the pipeline is written; dotted names are taken
    assert PassManager("later.op(cse)").items == (Nest("later.op", (lookup_pass("cse"),)),)
