"""MLIR's generic form as MLIR and JAX print it: each form the parser reads (dense arrays, dialect
attributes and types, every dense spelling, aliases, locations, discardable dictionaries,
properties of unregistered ops, MLIR's integer spellings), what it prints back, and each form it
refuses, with its error."""
import numpy as np
import pytest

from accy.ir import (UNIT, Builder, Context, DenseArrayAttr, DenseAttr, FloatAttr, FunctionType,
                     IntAttr, Module, OpaqueAttr, OpaqueType, ParseError, PropertyDict,
                     TensorType, VerifyError, parse)
from accy._core.types import body_end


def new_ctx():
    return Context(allow_unregistered=True)


def attr_of(text):
    """The attribute `text` parses to, and how accy prints it back."""
    op = parse(f'"t.op"() {{a = {text}}} : () -> ()', new_ctx()).body.first_op
    printed = op.print(generic=True)
    return op.attributes["a"], printed[len('"t.op"() {a = '):-len("} : () -> ()\n")]


def f32_bits(*bits):
    return np.array(bits, np.uint32).view(np.float32)


ATTRIBUTES = [
    # text, expected value, printed text (None: the text itself)
    ("array<i64: 0, 1>", DenseArrayAttr([0, 1], "i64"), None),
    ("array<i64>", DenseArrayAttr([], "i64"), None),
    ("array<i64: -9223372036854775808, 9223372036854775807>",
     DenseArrayAttr([-2**63, 2**63 - 1], "i64"), None),
    ("array<i1: true, false>", DenseArrayAttr([True, False], "i1"), None),
    ("array<i8: -128, 127>", DenseArrayAttr([-128, 127], "i8"), None),
    ("array<i16: -32768>", DenseArrayAttr([-32768], "i16"), None),
    ("array<i32: 7, 0x10>", DenseArrayAttr([7, 16], "i32"), "array<i32: 7, 16>"),
    ("array<ui8: 255>", DenseArrayAttr([255], "ui8"), None),
    ("array<ui16: 65535>", DenseArrayAttr([65535], "ui16"), None),
    ("array<ui32: 4294967295>", DenseArrayAttr([2**32 - 1], "ui32"), None),
    ("array<ui64: 18446744073709551615>", DenseArrayAttr([2**64 - 1], "ui64"), None),
    ("array<si8: -1>", DenseArrayAttr([-1], "si8"), None),
    ("array<si16: -1>", DenseArrayAttr([-1], "si16"), None),
    ("array<si32: -1, 2>", DenseArrayAttr([-1, 2], "si32"), None),
    ("array<si64: -1>", DenseArrayAttr([-1], "si64"), None),
    ("array<f32: 1.000000e+00, 1.000000e-01>", DenseArrayAttr([1.0, 0.1], "f32"),
     "array<f32: 1.0, 0.1>"),
    ("array<f64: 0x7FF8000000000000, -0.0>",
     DenseArrayAttr(np.array([0x7FF8000000000000, 1 << 63], np.uint64).view(np.float64), "f64"),
     None),
    ("array<f16: 1.5, 0x7C00>", DenseArrayAttr(np.array([0x3E00, 0x7C00], np.uint16)
                                                .view(np.float16), "f16"), None),
    ("array<bf16: 1.500000e+00>", DenseArrayAttr([1.5], "bf16"), "array<bf16: 1.5>"),
    ("array<f32: 0x7FC00001>", DenseArrayAttr(f32_bits(0x7FC00001), "f32"), None),
    ("#stablehlo<comparison_direction LT>", OpaqueAttr("#stablehlo<comparison_direction LT>"),
     None),
    ("#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
     "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>", None, None),
    ("#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
     "index_vector_dim = 1>", None, None),
    ("#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
     "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>", None, None),
    ('#d.a<"s > ) ] } \\" \\\\", (x, [y <z>]), {w = ">"}, a -> b>', None, None),
    ("#d.flag", OpaqueAttr("#d.flag"), None),
    ('[#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]',
     (OpaqueAttr("#stablehlo<precision DEFAULT>"), OpaqueAttr("#stablehlo<precision HIGHEST>")),
     None),
    ("!stablehlo.token", OpaqueType("!stablehlo.token"), None),
    ("!d<[1, {2}]>", OpaqueType("!d<[1, {2}]>"), None),
    # dense: every spelling
    ("dense<> : tensor<0xf32>", DenseAttr(np.zeros(0, np.float32)), "dense<[]> : tensor<0xf32>"),
    ("dense<> : tensor<2x0xi32>", DenseAttr(np.zeros((2, 0), np.int32)), 'dense<"0x"> : '
     "tensor<2x0xi32>"),
    ('dense<"0x0000803F"> : tensor<3xf32>', DenseAttr(np.ones(3, np.float32)),
     "dense<1.0> : tensor<3xf32>"),
    ("dense<0xFF800000> : tensor<f32>", DenseAttr(np.float32(-np.inf)),
     'dense<"0x000080FF"> : tensor<f32>'),
    ("dense<0x7FC00000> : tensor<2x2xf32>", DenseAttr(np.full((2, 2), f32_bits(0x7FC00000)[0])),
     'dense<"0x0000C07F0000C07F0000C07F0000C07F"> : tensor<2x2xf32>'),
    ("dense<[0x7FC00000, 1.000000e+00]> : tensor<2xf32>", DenseAttr(f32_bits(0x7FC00000,
                                                                             0x3F800000)),
     'dense<"0x0000C07F0000803F"> : tensor<2xf32>'),
    ("dense<0x7C00> : tensor<f16>", DenseAttr(np.float16(np.inf)), 'dense<"0x007C"> : tensor<f16>'),
    ("dense<[[1.000000e+00, 2.5]]> : tensor<1x2xbf16>", DenseAttr([[1.0, 2.5]], "bf16"),
     "dense<[[1.0, 2.5]]> : tensor<1x2xbf16>"),
    ('dense<"0x010001"> : tensor<3xi1>', DenseAttr(np.array([True, False, True])),
     "dense<[true, false, true]> : tensor<3xi1>"),
    ('dense<"0x05"> : tensor<3xi1>', DenseAttr(np.ones(3, bool)), "dense<true> : tensor<3xi1>"),
    ("dense<[0x1F, -2]> : tensor<2xi16>", DenseAttr(np.array([31, -2], np.int16)),
     "dense<[31, -2]> : tensor<2xi16>"),
    ("dense<[1, 255]> : tensor<2xui8>", DenseAttr(np.array([1, 255], np.uint8)), None),
    ("dense<[[3, 0], [0, 0]]> : tensor<2x2xi64>", DenseAttr([[3, 0], [0, 0]]), None),
    ("1 : ui8", IntAttr(1, "u8"), None),
    ("1 : i64", IntAttr(1, "i64"), None),
]


@pytest.mark.parametrize("text, expected, printed", ATTRIBUTES, ids=[a[0][:40] for a in ATTRIBUTES])
def test_attribute_forms(text, expected, printed):
    value, text_back = attr_of(text)
    if expected is None:
        expected = OpaqueAttr(text)
    assert value == expected
    assert text_back == (printed or text)
    assert attr_of(text_back) == (value, text_back)          # and the print is a fixed point


def test_dense_array_values_and_checks():
    a = DenseArrayAttr([1, 2, 3], "i32")
    assert a.values == (1, 2, 3) and len(a) == 3 and a.element_type == "i32"
    assert a != (1, 2, 3) and a != DenseArrayAttr([1, 2, 3], "i64")
    assert DenseArrayAttr([0.1], "f32").values == (float(np.float32(0.1)),)
    assert hash(DenseArrayAttr([1], "ui8")) == hash(DenseArrayAttr([1], "ui8"))
    for bad in ([[1]], "i64"), ([[1.0]], "f32"), ([256], "ui8"), ([2], "i1"), ([1], "u8"), \
            ([-1], "ui64"):
        with pytest.raises((ValueError, TypeError)):
            DenseArrayAttr(*bad)


@pytest.mark.parametrize("text", ["#d", "#d.x<", "#d.x<(>)>", "#d.x<a\nb>", '#d.x<">', "d.x",
                                  "#d.x<a> ", "#d.x<a // b>", "#1.x"])
def test_opaque_attribute_text_is_checked(text):
    with pytest.raises(ValueError):
        OpaqueAttr(text)


@pytest.mark.parametrize("text", ["!t", "!t<", "!d.t<]>"])
def test_opaque_type_text_is_checked(text):
    with pytest.raises(ValueError):
        OpaqueType(text)


@pytest.mark.parametrize("text, end", [("<a>", 3), ("<(a, [b])>x", 10), ('<">">', 5), ("<a->b>", 6),
                                       ("(\n)", 3), ('<"\\">">', 7)])
def test_body_end(text, end):
    assert body_end(text, 0) == end


# ---- aliases, locations ------------------------------------------------------------------------

ALIASES = """\
#dims = array<i64: 0, 1>
!vec = tensor<4xf32>
!tok = !stablehlo.token
#inner = [1, 2]
%0, %1 = "t.op"() {d = #dims, f = (!vec) -> !vec, w = #d.wrap<#inner, !vec>} : () -> (!vec, !tok)
#dims2 = #dims
"t.use"() {x = #dims2} : () -> ()
"""


def test_attribute_and_type_aliases_are_read_and_printed_inline():
    m = parse(ALIASES, new_ctx())
    op, use = list(m.body)
    vec = TensorType("f32", (4,))
    assert op.attributes["d"] == DenseArrayAttr([0, 1]) == use.attributes["x"]
    assert op.attributes["f"] == FunctionType([vec], [vec])
    assert op.attributes["w"] == OpaqueAttr("#d.wrap<[1, 2], tensor<4xf32>>")
    assert op.result_types == (vec, OpaqueType("!stablehlo.token"))
    text = m.print(generic=True)
    assert "#dims" not in text and "!vec" not in text and "#inner" not in text
    assert parse(text, new_ctx()).print(generic=True) == text


LOCATIONS = """\
#loc1 = loc("x")
#loc16 = loc("reduce_max:"(#loc6))
"builtin.module"() ({
  "t.f"() ({
  ^bb0(%arg0: tensor<f32> loc("x"), %arg1: tensor<f32> loc(#loc16)):
    %0 = "t.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc29)
    %1 = t.pretty %0 : tensor<f32> loc(fused<"jit">[#loc1, "n", unknown])
    t.region ({
      "t.y"() : () -> () loc(callsite(#loc13 at #loc14))
    }) loc("f.py":3:17 to :27)
  }) : () -> () loc(#loc)
}) {mhlo.num_partitions = 1 : i32} : () -> () loc(#loc)
#loc = loc(unknown)
#loc6 = loc("reduce_max")
#loc3 = loc("f.py":5:26 to 7:31)
#loc4 = loc("f.py":7)
#loc13 = loc("f"(#loc3))
#loc14 = loc("<module>"(#loc4))
#loc29 = loc("jit(f)/dot_general"(#loc13))
"""


def test_locations_are_read_and_dropped():
    """Locations after ops (both forms), on block arguments, as aliases defined after their
    uses (as MLIR prints them), of every kind; accy keeps none, so the text prints without."""
    m = parse(LOCATIONS, new_ctx())
    assert "loc" not in m.print(generic=True)
    assert m.attributes["mhlo.num_partitions"] == IntAttr(1, "i32")
    ops = [op.name for op in m.walk()]
    assert ops == ["builtin.module", "t.f", "t.add", "t.pretty", "t.region", "t.y"]


def test_a_location_alias_and_an_attribute_alias_share_no_uses():
    m = parse('#a = loc("x")\n#b = 3\n"t.op"() {v = #b} : () -> () loc(#a)', new_ctx())
    assert m.body.first_op.attributes["v"] == 3


# ---- discardable dictionaries and properties -----------------------------------------------------

MODULE = """\
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{arg_attrs = [{mhlo.sharding = "{replicated}"}], function_type = (tensor<2xf32>) -> tensor<2xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%0: tensor<2xf32>):
    %1 = "stablehlo.constant"() <{value = dense<1.0> : tensor<2xf32>}> {mhlo.frontend_attributes = {a = "b"}} : () -> tensor<2xf32>
    "func.return"(%1) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.sharding = "{devices=[2,1]<=[2]}"} : () -> ()
"""


def test_discardable_attributes_and_properties_print_back_as_read():
    m = parse(MODULE, new_ctx())
    assert m.print(generic=True) == MODULE
    assert m.attributes["jax.uses_shape_polymorphism"] is False
    assert m.attributes["mhlo.sharding"] == "{devices=[2,1]<=[2]}"
    func = m.body.first_op
    assert func.attributes["res_attrs"][0]["jax.result_info"] == "result"
    pretty = m.print()
    assert parse(pretty, new_ctx()).print(generic=True) == MODULE
    assert "func.func <{arg_attrs" in pretty


def test_properties_of_unregistered_ops_survive_edits_and_clones():
    text = '"t.op"() <{a = 1, b = 2}> {c = 3} : () -> ()\n'
    m = parse(text, new_ctx())
    op = m.body.first_op
    op.set_attribute("d", 4)                          # a new attribute is discardable
    op.set_attribute("a", 5)                          # an old one stays a property
    op.remove_attribute("b")
    expect = '"t.op"() <{a = 5}> {c = 3, d = 4} : () -> ()\n'
    assert op.print(generic=True) == expect
    assert m.clone().body.first_op.print(generic=True) == expect
    assert m.clone(new_ctx()).body.first_op.print(generic=True) == expect
    moved = parse('"t.op"() {a = 5, c = 3, d = 4} : () -> ()', new_ctx())
    assert moved.body.first_op.fingerprint() != op.fingerprint()


def test_builder_takes_properties_for_unregistered_ops_only():
    ctx = new_ctx()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    op = b.create("t.op", result_types=(), attributes=PropertyDict({"a": 1, "b": UNIT}, ["a"]))
    assert op.print(generic=True) == '"t.op"() <{a = 1}> {b = unit} : () -> ()\n'
    mod = b.create("builtin.module", attributes=PropertyDict({"x": 1, "sym_name": "m"}, ["x"]))
    mod.regions[0].add_block()
    assert '<{sym_name = "m"}> ({' in mod.print(generic=True)     # the schema decides


def test_builtin_func_takes_arg_attrs_and_res_attrs():
    func = """builtin.func <{arg_attrs = [{}], function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [{jax.result_info = "result"}], sym_name = "f", sym_visibility = "private"}> ({
^bb0(%0: tensor<f32>):
  builtin.return %0
})
"""
    assert parse(func).body.first_op.print() == func
    with pytest.raises(VerifyError, match="arg_attrs is one dictionary per function input"):
        parse(func.replace("arg_attrs = [{}]", "arg_attrs = [{}, {}]"))
    with pytest.raises(VerifyError, match="res_attrs is one dictionary"):
        parse(func.replace('[{jax.result_info = "result"}]', "[1]"))
    with pytest.raises(VerifyError, match="sym_visibility is 'public', 'private' or 'nested'"):
        parse(func.replace('"private"', '"hidden"'))


def test_ui8_is_u8_and_prints_as_mlir_spells_it():
    m = parse('%0 = "t.op"() {v = dense<[1, 2]> : tensor<2xu8>, s = 3 : u8} : () -> tensor<2xu8>',
              new_ctx())
    op = m.body.first_op
    assert op.result_types == (TensorType("u8", (2,)),)
    assert op.print(generic=True) == ('%0 = "t.op"() {s = 3 : ui8, v = dense<[1, 2]> : '
                                      'tensor<2xui8>} : () -> tensor<2xui8>\n')


def test_mlir_float_literals_always_have_a_dot():
    assert attr_of("1.0e-05")[1] == "1.0e-05"
    assert attr_of("dense<1.0e-05> : tensor<f32>")[1] == "dense<1.0e-05> : tensor<f32>"
    assert attr_of("array<f32: 1.0e+20>")[1] == "array<f32: 1.0e+20>"


# ---- refused forms -----------------------------------------------------------------------------

REFUSED = [
    # name, text, line, column, fragment of the message
    ("dynamic", '"t.op"() : () -> ()\n%0 = "t.s"() : () -> tensor<?x4xf32>', 2, 22,
     "dynamic shapes are not supported"),
    ("dynamic_inner", '%0 = "t.s"() : () -> tensor<4x?xf32>', 1, 22, "dynamic shapes are not supported"),
    ("unranked", '%0 = "t.s"() : () -> tensor<*xf32>', 1, 22, "unranked"),
    ("ui32_tensor", '%0 = "t.s"() : () -> tensor<4xui32>', 1, 22, "element type 'ui32' is not supported"),
    ("si32_tensor", '%0 = "t.s"() : () -> tensor<4xsi32>', 1, 22, "'si32' is not supported"),
    ("ui64_attr", '"t.s"() {a = 5 : ui64} : () -> ()', 1, 18, "'ui64' is not supported"),
    ("index_tensor", '"t.s"() {a = dense<[1, 0]> : tensor<2xindex>} : () -> ()', 1, 30, "'index'"),
    ("f8", '%0 = "t.s"() : () -> tensor<2xf8E4M3FN>', 1, 22, "'f8E4M3FN' is not supported"),
    ("complex_type", '%0 = "t.s"() : () -> tensor<2xcomplex<f32>>', 1, 22, "complex element types"),
    ("complex_dense", '"t.s"() {a = dense<(1.0, 2.0)> : tensor<complex<f32>>} : () -> ()', 1, 20,
     "complex constants"),
    ("encoding", '%0 = "t.s"() : () -> tensor<4xf32, #enc>', 1, 22, "tensor encodings"),
    ("scalar_type", '%0 = "t.s"() : () -> i32', 1, 22, "e.g. tensor<i32>"),
    ("vector", '%0 = "t.s"() : () -> vector<4xf32>', 1, 22, "vector types"),
    ("inf_word", '"t.s"() {a = dense<inf> : tensor<f32>} : () -> ()', 1, 20, "0x7F800000"),
    ("minus_inf", '"t.s"() {a = dense<-inf> : tensor<f32>} : () -> ()', 1, 20, "hex bit pattern"),
    ("negative_hex_float", '"t.s"() {a = dense<-0x7FC00000> : tensor<f32>} : () -> ()', 1, 20,
     "sign bit"),
    ("hex_float_too_wide", '"t.s"() {a = dense<0x1FFFFFFFF> : tensor<f32>} : () -> ()', 1, 20,
     "does not fit in f32"),
    ("hex_payload_count", '"t.s"() {a = dense<"0x00000000"> : tensor<0xf32>} : () -> ()', 1, 20,
     "1 elements"),
    ("empty_dense", '"t.s"() {a = dense<> : tensor<2xf32>} : () -> ()', 1, 20, "no elements"),
    ("array_range", '"t.s"() {a = array<i8: 300>} : () -> ()', 1, 14, "300 does not fit in i8"),
    ("array_bool_float", '"t.s"() {a = array<f32: true>} : () -> ()', 1, 14, "true is not a f32"),
    ("array_int_bool", '"t.s"() {a = array<i1: 2>} : () -> ()', 1, 14, "true or false"),
    ("array_type", '"t.s"() {a = array<x32: 1>} : () -> ()', 1, 20, "'x32'"),
    ("array_nested", '"t.s"() {a = array<i64: [1]>} : () -> ()', 1, 14, "flat"),
    ("array_unclosed", '"t.s"() {a = array<i64: 1 2>} : () -> ()', 1, 27, "',' or '>'"),
    ("undefined_attr_alias", '"t.s"() {a = #nope} : () -> ()', 1, 14, "undefined attribute alias #nope"),
    ("undefined_type_alias", '%0 = "t.s"() : () -> !nope', 1, 22, "undefined type alias '!nope'"),
    ("alias_after_use", '"t.s"() {a = #x} : () -> ()\n#x = 1', 1, 14, "undefined attribute alias"),
    ("undefined_loc_alias", '"t.s"() : () -> () loc(#loc9)\n#loc = loc(unknown)', 1, 24,
     "undefined location alias #loc9"),
    ("attr_as_location", '#a = 1\n"t.s"() : () -> () loc(#a)', 2, 24, "#a is an attribute, not a"),
    ("location_as_attr", '#l = loc(unknown)\n"t.s"() {a = #l} : () -> ()', 2, 14, "#l is a location"),
    ("location_then_attr", '"t.s"() : () -> () loc(#a)\n#a = 1', 2, 1, "used as a location"),
    ("alias_redefined", "#a = 1\n#a = 2", 2, 1, "redefinition of attribute alias #a"),
    ("type_alias_redefined", "!a = tensor<f32>\n!a = tensor<i32>", 2, 1, "redefinition of type alias"),
    ("alias_with_dot", "#a.b = 1", 1, 1, "an alias name has no '.'"),
    ("alias_no_equals", "#stablehlo<x>", 1, 11, "'=' after #stablehlo"),
    ("bad_location", '"t.s"() : () -> () loc(42)', 1, 24, "expected a location"),
    ("callsite_without_at", '"t.s"() : () -> () loc(callsite("a" "b"))', 1, 37, "'at'"),
    ("location_line", '"t.s"() : () -> () loc("f":x)', 1, 28, "line or column"),
    ("unbalanced_body", '"t.s"() {a = #d.x<(]>} : () -> ()', 1, 20, "unbalanced ']'"),
    ("unterminated_body_string", '"t.s"() {a = #d.x<"abc>} : () -> ()', 1, 19, "unterminated string"),
    ("body_across_lines", '"t.s"() {a = #d.x<a\n>} : () -> ()', 1, 18, "does not close on its line"),
    ("body_too_deep", '"t.s"() {a = #d.x' + "<" * 201 + ">" * 201 + "} : () -> ()", 1, 218,
     "nesting too deep"),
    ("successors", '"cf.br"()[^bb1] : () -> ()', 1, 10, "successors are not supported"),
    ("resources", '"t.s"() : () -> ()\n{-#\n  dialect_resources: {}\n#-}', 2, 1, "file metadata"),
    ("dense_resource", '"t.s"() {a = dense_resource<blob> : tensor<f32>} : () -> ()', 1, 14,
     "resource blobs (dense_resource<...)"),
    ("location_attribute", '"t.s"() {a = loc(unknown)} : () -> ()', 1, 14,
     "location attributes (loc(...)"),
]


@pytest.mark.parametrize("text, line, column, fragment", [r[1:] for r in REFUSED],
                         ids=[r[0] for r in REFUSED])
def test_refused_forms(text, line, column, fragment):
    ctx = new_ctx()
    with pytest.raises(ParseError) as info:
        parse(text, ctx)
    e = info.value
    assert fragment in e.message, e.message
    assert (e.line, e.column) == (line, column), str(e)
    assert (ctx.num_operations, ctx.num_values, ctx.num_blocks) == (0, 0, 0)


def test_float_attribute_checks_its_hex_width():
    assert attr_of("0x7FC00000 : f32")[0] == FloatAttr(None, "f32", bits=0x7FC00000)
    with pytest.raises(ParseError, match="does not fit in f16"):
        parse('"t.s"() {a = 0x10000 : f16} : () -> ()', new_ctx())
