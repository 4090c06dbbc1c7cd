"""Text forms: golden printing (pretty and generic), round trips, MLIR-style generic input,
attribute syntax, parse errors with positions, and no leftovers after a failed parse."""
import ml_dtypes
import numpy as np
import pytest

from accy.ir import (UNIT, Builder, Context, DenseAttr, DictAttr, FloatAttr, FunctionType,
                     IntAttr, Module, OpaqueType, ParseError, SymbolRefAttr, TensorType,
                     VerifyError, parse)
from ir_helpers import F32, I32, build_func, counts

# ---- golden printing --------------------------------------------------------------------------

GOLDEN_PRETTY = """\
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xf32>, %1: tensor<4xf32>):
    %2 = test.constant <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : tensor<4xf32>
    %3 = test.add %0, %2 : tensor<4xf32>
    %4, %5 = test.pair : tensor<4xf32>, tensor<4xi32>
    %6 = test.loop %3, %5 : tensor<4xf32> ({
    ^bb0(%7: tensor<4xf32>):
      test.yield %7
    })
    test.graph ({
      test.sink %4
    ^bb1:
    })
    builtin.return %6
  })
})
"""

GOLDEN_GENERIC = """\
"builtin.module"() ({
  "builtin.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
  ^bb0(%0: tensor<4xf32>, %1: tensor<4xf32>):
    %2 = "test.constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %3 = "test.add"(%0, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %4, %5 = "test.pair"() : () -> (tensor<4xf32>, tensor<4xi32>)
    %6 = "test.loop"(%3, %5) ({
    ^bb0(%7: tensor<4xf32>):
      "test.yield"(%7) : (tensor<4xf32>) -> ()
    }) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
    "test.graph"() ({
      "test.sink"(%4) : (tensor<4xf32>) -> ()
    ^bb1:
    }) : () -> ()
    "builtin.return"(%6) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"""


def build_golden(ctx):
    m, func, entry, b = build_func(ctx)
    a0, a1 = entry.arguments
    c = b.create("test.constant", attributes={"value": DenseAttr(np.arange(1, 5, dtype=np.float32))})
    add = b.create("test.add", [a0, c.result])
    pair = b.create("test.pair", result_types=[F32, I32])
    loop = b.create("test.loop", [add.result, pair.results[1]], result_types=[F32])
    lb = Builder(ctx).at_end(loop.regions[0].add_block([F32]))
    lb.create("test.yield", [lb.insertion_block.arguments[0]])
    g = b.create("test.graph")
    Builder(ctx).at_end(g.regions[0].add_block()).create("test.sink", [pair.results[0]])
    g.regions[0].add_block()
    b.create("builtin.return", [loop.result])
    return m


def test_golden_pretty_and_generic():
    m = build_golden(Context())
    m.verify()
    assert m.print() == GOLDEN_PRETTY and str(m) == GOLDEN_PRETTY
    assert m.print(generic=True) == GOLDEN_GENERIC


@pytest.mark.parametrize("text, generic", [(GOLDEN_PRETTY, False), (GOLDEN_GENERIC, True),
                                           (GOLDEN_PRETTY, True), (GOLDEN_GENERIC, False)])
def test_golden_parses_to_the_same_ir(text, generic):
    m = parse(text)
    assert m.print(generic=generic) == (GOLDEN_GENERIC if generic else GOLDEN_PRETTY)
    assert m.fingerprint() == build_golden(Context()).fingerprint()


def test_golden_discardable_attributes():
    ctx = Context(allow_unregistered=True)
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    c = b.create("test.constant", attributes={"value": DenseAttr(np.zeros(2, np.int32)),
                                              "note": UNIT})
    b.create("u.op", [c.result], result_types=[F32], attributes={"b": IntAttr(1, "i32"), "a": "x"})
    pretty = ("builtin.module ({\n"
              "  %0 = test.constant <{value = dense<0> : tensor<2xi32>}> {note = unit} : tensor<2xi32>\n"
              '  %1 = u.op %0 {a = "x", b = 1 : i32} : tensor<4xf32>\n'
              "})\n")
    generic = ('"builtin.module"() ({\n'
               '  %0 = "test.constant"() <{value = dense<0> : tensor<2xi32>}> {note = unit} : () -> tensor<2xi32>\n'
               '  %1 = "u.op"(%0) {a = "x", b = 1 : i32} : (tensor<2xi32>) -> tensor<4xf32>\n'
               "}) : () -> ()\n")
    assert m.print() == pretty and m.print(generic=True) == generic
    for text in (pretty, generic):
        again = parse(text, Context(allow_unregistered=True))
        assert again.print() == pretty and again.print(generic=True) == generic
        assert again.body.first_op.attributes == {"value": DenseAttr(np.zeros(2, np.int32)),
                                                  "note": UNIT}


def test_golden_small_forms():
    ctx = Context()
    m = Module.create(ctx)
    assert m.print() == "builtin.module ({\n^bb0:\n})\n"
    assert m.print(generic=True) == '"builtin.module"() ({\n^bb0:\n}) : () -> ()\n'
    wrapped = parse('"test.sink"() : () -> ()')
    assert wrapped.print() == "builtin.module ({\n  test.sink\n})\n"
    g = Builder(ctx).at_end(m.body).create("test.graph")
    assert g.print() == "test.graph ({\n})\n"                 # a region without blocks
    assert g.print(generic=True) == '"test.graph"() ({\n}) : () -> ()\n'
    s = Builder(ctx).at_end(m.body).create("test.sink", [None])
    assert s.print() == "test.sink %<<null>>\n"
    assert s.print(generic=True) == '"test.sink"(%<<null>>) : (<<null>>) -> ()\n'


def test_names_restart_inside_isolated_ops_only():
    ctx = Context()
    m, f, entry, b = build_func(ctx, inputs=(F32,), results=(F32,))
    src = Builder(ctx).at_start(m.body).create("test.source", result_types=[F32])
    b.create("builtin.return", [entry.arguments[0]])
    g = Builder(ctx).at_end(m.body).create("test.graph")
    Builder(ctx).at_end(g.regions[0].add_block([F32])).create("test.sink", [src.result])
    assert m.print() == (
        "builtin.module ({\n"
        "  %0 = test.source : tensor<4xf32>\n"
        '  builtin.func <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({\n'
        "  ^bb0(%0: tensor<4xf32>):\n"
        "    builtin.return %0\n"
        "  })\n"
        "  test.graph ({\n"
        "  ^bb0(%1: tensor<4xf32>):\n"
        "    test.sink %0\n"
        "  })\n"
        "})\n")
    assert parse(m.print()).print() == m.print()


# ---- round trips ------------------------------------------------------------------------------

ROUND_TRIP = {
    "func_no_results": """\
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>) -> (), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xf32>):
    builtin.return
  })
})
""",
    "func_two_results": """\
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>), sym_name = "f"}> ({
  ^bb0(%0: tensor<4xf32>):
    builtin.return %0, %0
  })
})
""",
    "func_type_results": """\
builtin.module ({
  builtin.func <{function_type = () -> (() -> tensor<i1>), sym_name = "decl"}> ({
  })
})
""",
    "multi_block_regions": """\
builtin.module ({
  %0 = test.source : tensor<4xf32>
  test.graph ({
  ^bb0(%1: tensor<4xi32>, %2: tensor<4xf32>):
    test.sink %1, %0
  ^bb1:
    %3 = test.add %0, %0 : tensor<4xf32>
  ^bb2(%4: tensor<i1>):
  })
})
""",
    "zero_operand_op_then_result": """\
builtin.module ({
  test.sink
  %0 = test.source : tensor<f32>
  test.graph ({
  })
  %1 = test.source : tensor<f32>
  test.sink %0, %1
})
""",
    "generic_nested": """\
"builtin.module"() ({
  %0, %1 = "test.pair"() : () -> (tensor<4xf32>, tensor<4xf32>)
  "test.single"() ({
    "test.graph"() ({
      %2 = "test.add"(%0, %1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      "test.sink"(%2, %0) : (tensor<4xf32>, tensor<4xf32>) -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()
""",
    "attributes": """\
builtin.module ({
  test.attrs <{a = {b = [1, 2.5, -0.0, 0x7FC00001 : f32, 1.0 : f16, -2.0 : bf16], c = "q\\"\\n\\C3\\A9", d = @sym, e = unit, f = tensor<2x3xi1>, g = (tensor<f32>) -> (), h = dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>, i = 7 : ui8, "j k" = true}}>
})
""",
}


@pytest.mark.parametrize("text", list(ROUND_TRIP.values()), ids=list(ROUND_TRIP))
def test_round_trip(text):
    generic = text.lstrip().startswith('"')
    m = parse(text)
    assert m.print(generic=generic) == text
    other = m.print(generic=not generic)
    again = parse(other)
    assert again.print(generic=not generic) == other and again.print(generic=generic) == text
    assert again.fingerprint() == m.fingerprint()


def test_round_trip_unregistered_ops_with_regions_and_attributes():
    text = """\
builtin.module ({
  %0:2 = "u.multi"() ({
  ^bb0(%a: tensor<2xf32>):
    "u.inner"(%a) {flag} : (tensor<2xf32>) -> ()
  }, {
  }) {n = 3 : i16, s = "x"} : () -> (tensor<f32>, tensor<i8>)
  "u.sink"(%0#1, %0#0) : (tensor<i8>, tensor<f32>) -> ()
})
"""
    ctx = Context(allow_unregistered=True)
    m = parse(text, ctx)
    pretty = m.print()
    assert pretty == """\
builtin.module ({
  %0, %1 = u.multi {n = 3 : i16, s = "x"} : tensor<f32>, tensor<i8> ({
  ^bb0(%2: tensor<2xf32>):
    u.inner %2 {flag = unit}
  }, {
  })
  u.sink %1, %0
})
"""
    generic = m.print(generic=True)
    for t in (pretty, generic):
        again = parse(t, Context(allow_unregistered=True))
        assert again.print() == pretty and again.print(generic=True) == generic


def test_round_trip_deep_nesting():
    depth = 100
    text = "".join("  " * i + "test.graph ({\n" for i in range(depth))
    text += "  " * depth + "test.sink\n"
    text += "".join("  " * i + "})\n" for i in reversed(range(depth)))
    m = parse(text)
    assert m.body.first_op.print() == text
    assert parse(m.print()).print() == m.print()


# ---- MLIR-style generic input ----------------------------------------------------------------

MLIR_TEXT = """\
// A module as MLIR's generic printer writes it.
"builtin.module"() ({
  "builtin.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "g"}> ({
  ^entry(%arg0: tensor<4xf32>):  // the entry block
    %x:2 = "test.pair"() : () -> (tensor<4xf32>, tensor<4xf32>)
    %sum = "test.add"(%x#0, %x#1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    // a comment line
    %t_1.v$2 = "test.add"(%sum, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "builtin.return"(%t_1.v$2) : (tensor<4xf32>) -> ()
  }) : () -> ()
}) : () -> ()   // done
"""


def test_parse_mlir_generic_text():
    m = parse(MLIR_TEXT)
    func = m.body.first_op
    pair, s, t, ret = func.regions[0].entry.operations
    assert s.operands == pair.results and t.operands == (s.result, func.regions[0].entry.arguments[0])
    assert ret.operands == (t.result,)
    assert m.print() == """\
builtin.module ({
  builtin.func <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "g"}> ({
  ^bb0(%0: tensor<4xf32>):
    %1, %2 = test.pair : tensor<4xf32>, tensor<4xf32>
    %3 = test.add %1, %2 : tensor<4xf32>
    %4 = test.add %3, %0 : tensor<4xf32>
    builtin.return %4
  })
})
"""


def test_parse_result_number_zero_of_a_single_result():
    # MLIR: `%v#0` names the only result of `%v`.
    m = parse('%v = "test.source"() : () -> tensor<4xf32>\n'
              '"test.sink"(%v#0, %v) : (tensor<4xf32>, tensor<4xf32>) -> ()\n')
    src, sink = m.body.operations
    assert sink.operands == (src.result, src.result)


def test_parse_block_labels_and_arguments():
    text = """\
"test.graph"() ({
^start(%a: tensor<4xf32>, %b: tensor<4xi32>):
  "test.sink"(%b, %a) : (tensor<4xi32>, tensor<4xf32>) -> ()
^second:
^third(%c: tensor<i1>):
  "test.sink"(%c, %a) : (tensor<i1>, tensor<4xf32>) -> ()
}) : () -> ()
"""
    m = parse(text)
    g = m.body.first_op
    b0, b1, b2 = g.regions[0].blocks
    assert [a.type for a in b0.arguments] == [F32, I32] and b1.arguments == ()
    assert b0.first_op.operands == (b0.arguments[1], b0.arguments[0])
    assert b2.first_op.operands == (b2.arguments[0], b0.arguments[0])
    assert len(b1) == 0
    assert "^bb2(%2: tensor<i1>):" in m.print()


def test_pretty_and_generic_forms_mix():
    m = parse('%0 = test.source : tensor<4xf32>\n'
              '%1 = "test.add"(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n'
              'test.sink %1, %0\n')
    assert [op.name for op in m.body] == ["test.source", "test.add", "test.sink"]
    assert m.body.last_op.operands == (m.body.operations[1].result, m.body.first_op.result)


GRAPH_TEXT = """\
"u.graph"() ({
  %a = "u.use"(%b, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b = "u.def"() : () -> tensor<f32>
}) : () -> ()
"""


def test_forward_references_resolve_later_in_the_block():
    ctx = Context(allow_unregistered=True)
    before = counts(ctx)
    m = parse(GRAPH_TEXT, ctx, verify=False)
    use, d = m.body.first_op.regions[0].entry.operations
    assert use.operands == (d.result, use.result)
    assert {(u.operation, u.index) for u in d.result.uses} == {(use, 0)}
    assert {(u.operation, u.index) for u in use.result.uses} == {(use, 1)}
    assert d.result.type == TensorType("f32")
    # no placeholder is left behind: 3 ops (+ the wrapper module), 2 values, 2 blocks
    assert counts(ctx)[:3] == (before[0] + 4, before[1] + 2, before[2] + 2)
    assert m.print(generic=True) == ('"builtin.module"() ({\n' + "".join(
        "  " + line + "\n" for line in GRAPH_TEXT.replace("%a", "%0").replace("%b", "%1")
        .splitlines()) + "}) : () -> ()\n")


def test_graph_region_of_unregistered_op_verifies():
    # As in MLIR, the regions of an unregistered op may be graph regions: no dominance there.
    m = parse(GRAPH_TEXT, Context(allow_unregistered=True))
    m.verify()


def test_forward_reference_with_conflicting_type():
    ctx = Context(allow_unregistered=True)
    with pytest.raises(ParseError, match="%b"):
        parse('"u.g"() ({\n'
              '  "u.use"(%b) : (tensor<f32>) -> ()\n'
              '  %b = "u.def"() : () -> tensor<i32>\n'
              '}) : () -> ()\n', ctx, verify=False)
    assert counts(ctx) == (0, 0, 0, 0)


def test_parse_accepts_bytes_and_rejects_other_inputs():
    m = parse(b'"test.sink"() : () -> ()')
    assert m.body.first_op.name == "test.sink"
    assert parse(bytearray(b"test.sink")).body.first_op.name == "test.sink"
    with pytest.raises(TypeError):
        parse(42)


# ---- attribute syntax ------------------------------------------------------------------------

def _f(dtype, bits):
    return FloatAttr(None, dtype, bits=bits)


ATTRIBUTES = [
    # text, expected value, canonical printed text
    ("1 : i32", IntAttr(1, "i32"), None),
    ("-128 : i8", IntAttr(-128, "i8"), None),
    ("255 : ui8", IntAttr(255, "u8"), None),
    ("255 : u8", IntAttr(255, "u8"), "255 : ui8"),         # accy's older spelling
    ("1 : i1", IntAttr(1, "i1"), None),
    ("0x10 : i16", IntAttr(16, "i16"), "16 : i16"),
    ("42", 42, None),
    ("-7", -7, None),
    ("0x10", 16, "16"),
    ("9223372036854775807", 2**63 - 1, None),
    ("-9223372036854775808", -2**63, None),
    ("true", True, None),
    ("false", False, None),
    ("2.5", FloatAttr(2.5), None),
    ("-0.0", FloatAttr(-0.0), None),
    ("1e-05", FloatAttr(1e-05), "1.0e-05"),     # MLIR's literals have a '.'
    ("1.0e10", FloatAttr(1e10), "10000000000.0"),
    ("2.5e+20", FloatAttr(2.5e20), "2.5e+20"),
    ("0.1 : f32", FloatAttr(0.1, "f32"), None),
    ("5 : f32", FloatAttr(5.0, "f32"), "5.0 : f32"),
    ("1.0e-45 : f32", _f("f32", 1), None),
    ("0x7FC00001 : f32", _f("f32", 0x7FC00001), None),
    ("0xFF800000 : f32", _f("f32", 0xFF800000), None),
    ("0x80000000 : f32", _f("f32", 0x80000000), "-0.0 : f32"),
    ("0x7FF0000000000001 : f64", _f("f64", 0x7FF0000000000001), None),
    ("0xFFF0000000000000 : f64", _f("f64", 0xFFF0000000000000), None),
    ("0x0000000000000001 : f64", _f("f64", 1), "5.0e-324"),
    ("0x7E01 : f16", _f("f16", 0x7E01), None),
    ("0x3C00 : f16", _f("f16", 0x3C00), "1.0 : f16"),
    ("0x7C00 : f16", _f("f16", 0x7C00), None),
    ("0x0001 : f16", _f("f16", 0x0001), "6.0e-08 : f16"),
    ("0x7FC1 : bf16", _f("bf16", 0x7FC1), None),
    ("0x0001 : bf16", _f("bf16", 0x0001), "9.18355e-41 : bf16"),
    ("-1.5 : bf16", FloatAttr(-1.5, "bf16"), None),
    ('"a\\"b\\\\c\\n\\t"', 'a"b\\c\n\t', None),
    ('"é€"', "é€", '"\\C3\\A9\\E2\\82\\AC"'),
    ('"\\C3\\A9"', "é", None),
    ('"nul\\00x\\7F"', "nul\x00x\x7f", None),
    ('""', "", None),
    ('[1, [2, "x"], []]', (1, (2, "x"), ()), None),
    ("{b = 1, a, \"q r\" = unit}", DictAttr({"a": UNIT, "b": 1, "q r": UNIT}),
     '{a = unit, b = 1, "q r" = unit}'),
    ("{}", DictAttr({}), None),
    ("@foo", SymbolRefAttr("foo"), None),
    ('@"a b"', SymbolRefAttr("a b"), None),
    ("unit", UNIT, None),
    ("tensor<2x3xf32>", TensorType("f32", (2, 3)), None),
    ("tensor<i1>", TensorType("i1"), None),
    ("() -> tensor<f32>", FunctionType([], [TensorType("f32")]), None),
    ("(tensor<f32>, tensor<i1>) -> tensor<f32>",
     FunctionType([TensorType("f32"), TensorType("i1")], [TensorType("f32")]), None),
    ("(tensor<f32>) -> ()", FunctionType([TensorType("f32")], []), None),
    ("(tensor<f32>) -> (tensor<f32>, tensor<i1>)",
     FunctionType([TensorType("f32")], [TensorType("f32"), TensorType("i1")]), None),
    ('!foo.bar<1, "x">', OpaqueType('!foo.bar<1, "x">'), None),
    ("dense<[1.5, 2.0]> : tensor<2xf32>", DenseAttr([1.5, 2.0], "f32"), None),
    ("dense<[1, 2, 3]> : tensor<3xi32>", DenseAttr([1, 2, 3], "i32"), None),
    ("dense<3> : tensor<2x2xi32>", DenseAttr(np.full((2, 2), 3, np.int32)), None),
    ("dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>", DenseAttr([[1, 2], [3, 4]], "i8"), None),
    ("dense<[255, 0]> : tensor<2xui8>", DenseAttr([255, 0], "u8"), None),
    ('dense<"0x0000803F00000040"> : tensor<2xf32>', DenseAttr([1.0, 2.0], "f32"),
     "dense<[1.0, 2.0]> : tensor<2xf32>"),
    ('dense<"0x0100C07F00000080"> : tensor<2xf32>',
     DenseAttr(np.array([0x7FC00001, 0x80000000], np.uint32).view(np.float32)), None),
    ("dense<[1.5, -2.0]> : tensor<2xbf16>", DenseAttr([1.5, -2.0], "bf16"), None),
    ('dense<"0xC03F"> : tensor<1xbf16>', DenseAttr([1.5], "bf16"),
     "dense<[1.5]> : tensor<1xbf16>"),
    ('dense<"0xC17F"> : tensor<1xbf16>',
     DenseAttr(np.array([0x7FC1], np.uint16).view(ml_dtypes.bfloat16)), None),
    ("dense<[true, false, true]> : tensor<3xi1>", DenseAttr([True, False, True]), None),
    ("dense<true> : tensor<4xi1>", DenseAttr(np.ones(4, bool)), None),
    ("dense<1.5> : tensor<f16>", DenseAttr(np.float16(1.5)), None),
    ("dense<[]> : tensor<0xf32>", DenseAttr(np.zeros(0, np.float32)), None),
    ("dense<-0.0> : tensor<2xf32>", DenseAttr(np.full(2, -0.0, np.float32)), None),
]


@pytest.mark.parametrize("text, expected, canonical", ATTRIBUTES, ids=[a[0] for a in ATTRIBUTES])
def test_attribute_syntax(text, expected, canonical):
    op = parse(f"test.attrs <{{a = {text}}}>").body.first_op
    value = op.attributes["a"]
    assert value == expected and type(value) is type(expected)
    printed = f"test.attrs <{{a = {canonical or text}}}>\n"
    assert op.print() == printed
    again = parse(printed).body.first_op
    assert again.attributes["a"] == expected and again.print() == printed


def test_attributes_in_generic_discardable_dictionary():
    text = ('"test.sink"() {s = "x\\0Ay", u, f = 0x7FC00001 : f32, '
            'd = dense<"0x0100C07F"> : tensor<1xf32>} : () -> ()')
    op = parse(text).body.first_op
    assert dict(op.attributes) == {"s": "x\ny", "u": UNIT, "f": _f("f32", 0x7FC00001),
                                   "d": DenseAttr(np.array([0x7FC00001], np.uint32)
                                                  .view(np.float32))}
    assert op.print(generic=True) == ('"test.sink"() {d = dense<"0x0100C07F"> : tensor<1xf32>, '
                                      'f = 0x7FC00001 : f32, s = "x\\ny", u = unit} : () -> ()\n')


@pytest.mark.parametrize("value, text", [
    (DenseAttr(np.full((4096, 1), 1024.0, np.float32)), "dense<1024.0> : tensor<4096x1xf32>"),
    (DenseAttr(np.full(2000, -0.0)), "dense<-0.0> : tensor<2000xf64>"),
    (DenseAttr(np.full(5000, 1.5, ml_dtypes.bfloat16)), "dense<1.5> : tensor<5000xbf16>"),
    (DenseAttr(np.full((50, 50), -7, np.int8)), "dense<-7> : tensor<50x50xi8>"),
    (DenseAttr(np.ones(1025, bool)), "dense<true> : tensor<1025xi1>"),
])
def test_a_large_splat_prints_as_its_element(value, text):
    """A dense attribute past the list limit whose elements all have the same bits (a folded
    broadcast) prints as its one element, and reads back as the same attribute."""
    op = parse(f"test.attrs <{{a = {text}}}>").body.first_op
    assert op.attributes["a"] == value
    assert op.print() == f"test.attrs <{{a = {text}}}>\n"
    ctx = Context()
    m = Module.create(ctx)
    Builder(ctx).at_end(m.body).create("test.attrs", attributes={"a": value})
    assert text in m.print()


@pytest.mark.parametrize("value", [
    np.arange(2000, dtype=np.int32),                                # not a splat
    np.r_[np.zeros(1999, np.float32), np.float32(-0.0)],            # -0.0 and 0.0 differ
    np.full(1500, np.nan, np.float32),                              # a NaN keeps its bits as hex
])
def test_a_large_dense_attribute_that_is_no_plain_splat_prints_as_hex(value):
    ctx = Context()
    m = Module.create(ctx)
    Builder(ctx).at_end(m.body).create("test.attrs", attributes={"a": DenseAttr(value)})
    printed = m.print()
    assert 'dense<"0x' in printed
    assert parse(printed).body.first_op.attributes["a"] == DenseAttr(value)


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 2), (0, 0), (1, 0, 3), (3, 1), (1,), ()])
@pytest.mark.parametrize("generic", [False, True])
def test_dense_attributes_of_every_shape_round_trip(shape, generic):
    ctx = Context()
    m = Module.create(ctx)
    value = DenseAttr(np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape))
    Builder(ctx).at_end(m.body).create("test.attrs", attributes={"a": value})
    again = parse(m.print(generic=generic))
    assert again.body.first_op.attributes["a"] == value
    assert again.print(generic=generic) == m.print(generic=generic)


@pytest.mark.parametrize("dtype, bits", [
    ("f64", 0x7FF8000000000123), ("f64", 0x8000000000000000), ("f64", 0x000FFFFFFFFFFFFF),
    ("f32", 0x7F800001), ("f32", 0x00000001), ("f32", 0x3DCCCCCD),
    ("f16", 0xFE01), ("f16", 0x03FF), ("f16", 0x7BFF),
    ("bf16", 0xFF81), ("bf16", 0x007F), ("bf16", 0x3DCD),
])
@pytest.mark.parametrize("generic", [False, True])
def test_float_attributes_round_trip_exactly(dtype, bits, generic):
    ctx = Context()
    m = Module.create(ctx)
    Builder(ctx).at_end(m.body).create("test.sink", attributes={"x": _f(dtype, bits)})
    again = parse(m.print(generic=generic))
    assert again.body.first_op.attributes["x"] == _f(dtype, bits)
    assert again.print(generic=generic) == m.print(generic=generic)


# ---- parse errors ----------------------------------------------------------------------------

BAD = [
    # id, text, line, column, message fragment
    ("unknown_op_generic", '%0 = "foo.bar"() : () -> tensor<f32>', 1, 6, "unregistered operation 'foo.bar'"),
    ("unknown_op_pretty", "test.sink\n  foo.bar", 2, 3, "unregistered operation 'foo.bar'"),
    ("undefined_value", '"test.sink"(%a) : (tensor<f32>) -> ()', 1, 13, "undefined value %a"),
    ("undefined_result_number", '%x:2 = "test.pair"() : () -> (tensor<f32>, tensor<f32>)\n'
     'test.sink %x#2', 2, 11, "undefined value %x#2"),
    ("redefinition", '%0 = "test.source"() : () -> tensor<f32>\n'
     '%0 = "test.source"() : () -> tensor<f32>', 2, 1, "redefinition of value %0"),
    ("wrong_operand_type", '%0 = "test.source"() : () -> tensor<f32>\n'
     '"test.add"(%0, %0) : (tensor<f32>, tensor<i32>) -> tensor<f32>', 2, 36, "tensor<i32>"),
    ("operand_count", '%0 = "test.source"() : () -> tensor<f32>\n'
     '"test.sink"(%0) : () -> ()', 2, 1, "1 operands but 0 operand types"),
    ("result_count", '%0, %1 = "test.source"() : () -> tensor<f32>', 1, 1,
     "2 result names but 1 result types"),
    ("bad_element_type", '%0 = "test.source"() : () -> tensor<4xf33>', 1, 30, "f33"),
    ("unknown_type", "%0 = test.source : vector<4xf32>", 1, 20, "vector<4xf32>"),
    ("bad_dimension", "%0 = test.source : tensor<4x-1xf32>", 1, 20, "bad type"),
    ("unterminated_string", 'test.attrs <{a = "abc}>', 1, 18, "unterminated string"),
    ("string_at_newline", 'test.attrs <{a = "ab\ncd"}>', 1, 18, "unterminated string"),
    ("bad_escape", 'test.attrs <{a = "a\\qb"}>', 1, 20, "bad escape"),
    ("unbalanced_angle", "%0 = test.source : tensor<4xf32", 1, 26, "unbalanced '<'"),
    ("unbalanced_square", "test.attrs <{a = [1, 2}>", 1, 23, "']'"),
    ("unbalanced_region", "test.graph ({\n  test.sink\n", 3, 1, "'}'"),
    ("unbalanced_paren", '"test.sink"(', 1, 13, "value name"),
    ("truncated_type", '%0 = "test.source"() : () ->', 1, 29, "expected a type"),
    ("truncated_attr", "test.attrs <{a = ", 1, 18, "attribute value"),
    ("truncated_dense", "test.attrs <{a = dense<[1, 2]>", 1, 31, "tensor"),
    ("dynamic_dimension", '%0 = "test.source"() : () -> tensor<?x4xf32>', 1, 30, "dynamic"),
    ("nul_byte", '"test.sink"() : () -> ()\x00', 1, 25, "NUL"),
    ("nul_byte_line_2", 'test.sink\ntest.\x00sink', 2, 6, "NUL"),
    ("duplicate_attribute", "test.attrs <{a = 1, a = 2}>", 1, 21, "duplicate attribute 'a'"),
    ("duplicate_block", '"test.graph"() ({\n^x:\n^x:\n}) : () -> ()', 3, 1, "^x"),
    ("int_out_of_range", "test.attrs <{a = 256 : ui8}>", 1, 18, "256"),
    ("float_with_int_dtype", "test.attrs <{a = 1.5 : i32}>", 1, 18, "1.5"),
    ("unknown_dtype", "test.attrs <{a = 1 : i7}>", 1, 22, "i7"),
    ("dense_shape", "test.attrs <{a = dense<[1, 2, 3]> : tensor<2xi32>}>", 1, 24, "shape"),
    ("dense_ragged", "test.attrs <{a = dense<[[1], [2, 3]]> : tensor<2x2xi32>}>", 1, 24, "ragged"),
    ("dense_range", "test.attrs <{a = dense<[1, 300]> : tensor<2xi8>}>", 1, 24, "300"),
    ("dense_hex_count", 'test.attrs <{a = dense<"0x0000000000000000"> : tensor<3xf32>}>', 1, 24,
     "2 elements"),
    ("dense_hex_bytes", 'test.attrs <{a = dense<"0x0000"> : tensor<2xf32>}>', 1, 24, "bad dense"),
    ("dense_hex_digits", 'test.attrs <{a = dense<"0xZZ"> : tensor<1xi8>}>', 1, 24, "bad dense"),
    ("successors", '"test.sink"() [^bb1] : () -> ()', 1, 15, "successors"),
]


@pytest.mark.parametrize("text, line, column, fragment", [b[1:] for b in BAD],
                         ids=[b[0] for b in BAD])
def test_parse_errors(text, line, column, fragment):
    ctx = Context()
    with pytest.raises(ParseError) as info:
        parse(text, ctx)
    err = info.value
    assert fragment in err.message
    assert (err.line, err.column) == (line, column)
    source_line, caret = err.snippet.split("\n")
    assert source_line == text.split("\n")[line - 1]
    assert caret == " " * (column - 1) + "^"
    assert str(err).startswith(f"{line}:{column}: ")
    assert counts(ctx) == (0, 0, 0, 0)


def test_parse_error_column_on_a_long_line():
    prefix = 'test.attrs <{a = "' + "x" * 300 + '", b = '
    text = prefix + "?}>"
    with pytest.raises(ParseError) as info:
        parse(text)
    err = info.value
    assert (err.line, err.column) == (1, len(prefix) + 1)
    shown, caret = err.snippet.split("\n")
    assert shown in text and caret.endswith("^")
    assert shown[len(caret) - 1] == "?"                       # the caret is under the culprit
    assert len(shown) <= 200                                  # a window, not the whole line


def test_parse_error_column_counts_characters_not_bytes():
    text = 'test.attrs <{a = "€€€", b = ?}>'
    with pytest.raises(ParseError) as info:
        parse(text)
    assert info.value.column == text.index("?") + 1
    assert info.value.snippet.split("\n")[1].index("^") == text.index("?")


@pytest.mark.parametrize("kind", ["regions", "attributes", "dense"])
def test_parse_deep_nesting_is_an_error_not_a_crash(kind):
    depth = 5000
    if kind == "regions":
        text = "test.graph ({\n" * depth + "})\n" * depth
    elif kind == "attributes":
        text = "test.attrs <{a = " + "[\n" * depth + "]" * depth + "}>"
    else:
        text = "test.attrs <{a = dense<" + "[\n" * depth + "1" + "]" * depth + "> : tensor<1xi8>}>"
    ctx = Context()
    with pytest.raises(ParseError, match="nesting") as info:
        parse(text, ctx)
    assert 100 < info.value.line < depth
    assert counts(ctx) == (0, 0, 0, 0)


# ---- nothing is left behind after a failed parse ---------------------------------------------

FAILING = [b[1] for b in BAD] + [
    # verification failures after a successful parse (with and without a wrapper module)
    '%0 = test.source : tensor<4xf32>\n%1 = test.source : tensor<4xi32>\n'
    '%2 = test.add %0, %1 : tensor<4xf32>',
    'builtin.module ({\n  %0 = test.source : tensor<4xf32>\n  test.yield\n  test.sink %0\n})',
    # errors deep inside regions, after blocks, arguments and forward references were made
    '"test.graph"() ({\n^a(%x: tensor<f32>):\n  "test.graph"() ({\n  ^b(%y: tensor<f32>):\n'
    '    "test.sink"(%y, %later) : (tensor<f32>, tensor<f32>) -> ()\n'
    '    %bad = "test.source"() : () -> tensor<f33>\n  }) : () -> ()\n}) : () -> ()',
    '"test.graph"() ({\n  "test.sink"(%fwd) : (tensor<f32>) -> ()\n}) : () -> ()',
    '%a = test.source : tensor<f32>\ntest.graph ({\n^bb0(%b: tensor<f32>):\n  test.sink %b, %a\n'
    '}, {\n  %c = test.source : tensor<f32>\n})',
    '%a = test.source : tensor<f32>\n' * 5 + "%b = test.source : tensor<f32",
]


@pytest.mark.parametrize("text", FAILING)
def test_failed_parse_leaves_the_context_unchanged(text):
    ctx = Context()
    existing = build_golden(ctx)
    before, printed = counts(ctx), existing.print()
    with pytest.raises((ParseError, VerifyError)):
        parse(text, ctx)
    assert counts(ctx) == before
    assert existing.print() == printed
    existing.verify()
    assert parse(GOLDEN_PRETTY, ctx).print() == GOLDEN_PRETTY   # still usable
