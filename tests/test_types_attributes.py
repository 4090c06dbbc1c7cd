"""Types and attributes: immutable values with value equality, exact bits and clear errors."""
import struct

import ml_dtypes
import numpy as np
import pytest

from accy.ir import (DTYPES, UNIT, DenseAttr, DictAttr, FloatAttr, FunctionType, IntAttr,
                     OpaqueType, SymbolRefAttr, TensorType, UnitAttr, numpy_dtype,
                     register_type_kind)
from accy._core.attributes import check_attribute
from accy._core.types import TEXT_NAMES

F32 = TensorType("f32", (4,))
I1 = TensorType("i1", ())


# ---- types ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, shape, text", [
    ("f32", (2, 3), "tensor<2x3xf32>"),
    ("f64", (), "tensor<f64>"),
    ("bf16", [1], "tensor<1xbf16>"),
    ("i1", (0, 4), "tensor<0x4xi1>"),
    ("u8", (7,), "tensor<7xui8>"),          # MLIR's spelling
])
def test_tensor_type_str_and_properties(dtype, shape, text):
    t = TensorType(dtype, shape)
    assert str(t) == text
    assert t.dtype == dtype and t.shape == tuple(shape) and t.rank == len(shape)
    assert t.num_elements == int(np.prod(shape))


def test_tensor_type_equality_and_hash():
    a, b = TensorType("f32", [2, 3]), TensorType("f32", (2, 3))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert {a: 1}[b] == 1
    for other in (TensorType("f16", (2, 3)), TensorType("f32", (3, 2)), TensorType("f32", (6,)),
                  TensorType("f32", ()), OpaqueType("!tensor<2x3xf32>"), "tensor<2x3xf32>"):
        assert a != other
    assert TensorType("f32", (np.int64(2),)) == TensorType("f32", (2,))


def test_every_dtype_has_a_tensor_type_and_numpy_dtype():
    for dtype in DTYPES:
        assert str(TensorType(dtype, (2,))) == f"tensor<2x{TEXT_NAMES.get(dtype, dtype)}>"
    assert numpy_dtype("bf16") == np.dtype(ml_dtypes.bfloat16)
    assert numpy_dtype("i1") == np.dtype(bool) and numpy_dtype("u8") == np.dtype(np.uint8)


@pytest.mark.parametrize("dtype, shape", [
    ("f8", (2,)), ("float32", (2,)), ("", ()), ("F32", (1,)),   # unknown dtypes
    ("f32", (-1,)), ("f32", (2, -3)),                           # negative dimensions
    ("f32", (2.5,)), ("f32", (1, 0.5)),                         # non-integral dimensions
])
def test_tensor_type_rejects_bad_dtype_and_shape(dtype, shape):
    with pytest.raises((ValueError, TypeError)):
        TensorType(dtype, shape)


def test_types_are_immutable():
    t = TensorType("f32", (2,))
    with pytest.raises(AttributeError):
        t.dtype = "f16"
    with pytest.raises(AttributeError):
        t.anything = 1
    assert str(t) == "tensor<2xf32>"


@pytest.mark.parametrize("inputs, results, text", [
    ((F32,), (F32,), "(tensor<4xf32>) -> tensor<4xf32>"),
    ((), (), "() -> ()"),
    ((F32, I1), (), "(tensor<4xf32>, tensor<i1>) -> ()"),
    ((), (F32, I1), "() -> (tensor<4xf32>, tensor<i1>)"),
    ((F32,), (FunctionType((), ()),), "(tensor<4xf32>) -> (() -> ())"),
    ((FunctionType((F32,), (F32,)),), (F32,), "((tensor<4xf32>) -> tensor<4xf32>) -> tensor<4xf32>"),
])
def test_function_type_str(inputs, results, text):
    t = FunctionType(inputs, results)
    assert str(t) == text
    assert t.inputs == tuple(inputs) and t.results == tuple(results)


def test_function_type_equality_hash_and_errors():
    a = FunctionType([F32], [I1])
    assert a == FunctionType((F32,), (I1,)) and hash(a) == hash(FunctionType((F32,), (I1,)))
    assert a != FunctionType([I1], [F32]) and a != FunctionType([F32], [I1, I1])
    assert a != FunctionType([F32, I1], [])   # same members, different split
    with pytest.raises(TypeError):
        FunctionType(["tensor<4xf32>"], [])
    with pytest.raises(TypeError):
        FunctionType([], [None])


def test_opaque_type():
    t = OpaqueType('!foo.bar<1, "x">')
    assert str(t) == '!foo.bar<1, "x">' and t.text == '!foo.bar<1, "x">'
    assert t == OpaqueType('!foo.bar<1, "x">') and hash(t) == hash(OpaqueType('!foo.bar<1, "x">'))
    assert t != OpaqueType("!foo.bar<2>")
    with pytest.raises(ValueError):
        OpaqueType("foo.bar")


def test_register_type_kind_refuses_taken_keywords():
    with pytest.raises(ValueError):
        register_type_kind("tensor", lambda text: None)


# ---- integer attributes -----------------------------------------------------------------------

INT_RANGES = {"i64": (-2**63, 2**63 - 1), "i32": (-2**31, 2**31 - 1), "i16": (-2**15, 2**15 - 1),
              "i8": (-128, 127), "u8": (0, 255), "i1": (0, 1)}


@pytest.mark.parametrize("dtype", sorted(INT_RANGES))
def test_int_attr_ranges(dtype):
    lo, hi = INT_RANGES[dtype]
    assert IntAttr(lo, dtype).value == lo and IntAttr(hi, dtype).value == hi
    assert IntAttr(hi, dtype).dtype == dtype
    for bad in (lo - 1, hi + 1):
        with pytest.raises(ValueError):
            IntAttr(bad, dtype)


@pytest.mark.parametrize("value, dtype", [
    (1, "f32"), (1, "bf16"), (1, "i128"),      # not an integer dtype
    (2.5, "i32"), (-0.5, "i64"),               # not an integer: must not be truncated silently
])
def test_int_attr_rejections(value, dtype):
    with pytest.raises((ValueError, TypeError)):
        IntAttr(value, dtype)


def test_int_attr_equality():
    assert IntAttr(5) == IntAttr(5, "i64") and hash(IntAttr(5)) == hash(IntAttr(5, "i64"))
    assert IntAttr(5, "i32") != IntAttr(5, "i64")
    assert IntAttr(5, "i32") != IntAttr(6, "i32")
    assert IntAttr(1, "i64") != 1           # a plain int is a different attribute
    with pytest.raises(AttributeError):
        IntAttr(1).value = 2


# ---- float attributes: exact bit patterns -----------------------------------------------------

def _f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


FLOAT_BITS = [
    # dtype, value, bits
    ("f64", float("inf"), 0x7FF0000000000000),
    ("f64", float("-inf"), 0xFFF0000000000000),
    ("f64", -0.0, 0x8000000000000000),
    ("f64", 0.0, 0x0000000000000000),
    ("f64", 5e-324, 0x0000000000000001),                       # smallest subnormal
    ("f64", _f64(0x000FFFFFFFFFFFFF), 0x000FFFFFFFFFFFFF),     # largest subnormal
    ("f64", 1.0, 0x3FF0000000000000),
    ("f64", 0.1, 0x3FB999999999999A),
    ("f32", float("inf"), 0x7F800000),
    ("f32", float("-inf"), 0xFF800000),
    ("f32", -0.0, 0x80000000),
    ("f32", 2.0**-149, 0x00000001),
    ("f32", 2.0**-126 - 2.0**-149, 0x007FFFFF),
    ("f32", 1.0, 0x3F800000),
    ("f32", 0.1, 0x3DCCCCCD),                                  # rounded to nearest
    ("f16", float("inf"), 0x7C00),
    ("f16", float("-inf"), 0xFC00),
    ("f16", -0.0, 0x8000),
    ("f16", 2.0**-24, 0x0001),
    ("f16", 65504.0, 0x7BFF),
    ("f16", 1.0, 0x3C00),
    ("bf16", float("inf"), 0x7F80),
    ("bf16", float("-inf"), 0xFF80),
    ("bf16", -0.0, 0x8000),
    ("bf16", 2.0**-133, 0x0001),
    ("bf16", 1.0, 0x3F80),
    ("bf16", -2.0, 0xC000),
]


@pytest.mark.parametrize("dtype, value, bits", FLOAT_BITS)
def test_float_attr_bits_from_value(dtype, value, bits):
    a = FloatAttr(value, dtype)
    assert (a.bits, a.dtype) == (bits, dtype)
    b = FloatAttr(None, dtype, bits=bits)
    assert b == a and hash(b) == hash(a)
    rounded = float(np.array(value, np.float64).astype(numpy_dtype(dtype)))
    assert struct.pack("<d", b.value) == struct.pack("<d", rounded)   # -0.0 keeps its sign


NAN_PAYLOADS = [("f64", 0x7FF8000000000001), ("f64", 0xFFF8000000000123),
                ("f64", 0x7FF0000000000001), ("f32", 0x7FC00001), ("f32", 0xFF800002),
                ("f16", 0x7E01), ("f16", 0xFC01), ("bf16", 0x7FC1), ("bf16", 0xFF81)]


@pytest.mark.parametrize("dtype, bits", NAN_PAYLOADS)
def test_float_attr_nan_payload_kept(dtype, bits):
    a = FloatAttr(None, dtype, bits=bits)
    assert a.bits == bits and np.isnan(a.value)
    assert a == FloatAttr(None, dtype, bits=bits)
    assert a != FloatAttr(float("nan"), dtype)        # the canonical nan has other bits


def test_float_attr_f64_nan_payload_from_python_float():
    assert FloatAttr(_f64(0x7FF8000000000123)).bits == 0x7FF8000000000123


@pytest.mark.parametrize("dtype", ["f64", "f32", "f16", "bf16"])
def test_float_attr_nan_equality_and_signed_zero(dtype):
    assert FloatAttr(float("nan"), dtype) == FloatAttr(float("nan"), dtype)
    assert np.isnan(FloatAttr(float("nan"), dtype).value)
    assert FloatAttr(0.0, dtype) != FloatAttr(-0.0, dtype)


def test_float_attr_default_dtype_and_distinct_dtypes():
    assert FloatAttr(1.5).dtype == "f64"
    assert FloatAttr(1.5, "f32") != FloatAttr(1.5, "f64")
    assert FloatAttr(1.5, "f16") != FloatAttr(1.5, "bf16")


@pytest.mark.parametrize("kwargs", [
    dict(value=1.0, dtype="i32"), dict(value=1.0, dtype="f8"),
    dict(value=None, dtype="f16", bits=0x10000), dict(value=None, dtype="bf16", bits=-1),
    dict(value=None, dtype="f32", bits=1 << 32), dict(value=None, dtype="f64", bits=1 << 64),
])
def test_float_attr_rejections(kwargs):
    with pytest.raises(ValueError):
        FloatAttr(**kwargs)


# ---- dictionaries, symbols, unit --------------------------------------------------------------

def test_dict_attr_sorted_and_converted():
    d = DictAttr({"zeta": 1, "alpha": [1, 2], "mid": {"y": 1.5, "x": True}})
    assert [k for k, _ in d.items()] == ["alpha", "mid", "zeta"]
    assert d["alpha"] == (1, 2)
    assert d["mid"] == DictAttr({"x": True, "y": FloatAttr(1.5)})
    assert len(d) == 3
    assert d == DictAttr([("mid", {"x": True, "y": 1.5}), ("zeta", 1), ("alpha", (1, 2))])
    assert hash(d) == hash(DictAttr({"alpha": (1, 2), "zeta": 1, "mid": {"x": True, "y": 1.5}}))
    assert d != DictAttr({"zeta": 1, "alpha": [1, 2]})
    with pytest.raises(KeyError):
        d["missing"]


def test_dict_attr_rejections():
    with pytest.raises(TypeError):
        DictAttr({1: 2})
    with pytest.raises(TypeError):
        DictAttr({"a": object()})


def test_symbol_ref_and_unit():
    assert SymbolRefAttr("f") == SymbolRefAttr("f") and SymbolRefAttr("f") != SymbolRefAttr("g")
    assert SymbolRefAttr("f").name == "f"
    for bad in ("", None, 3):
        with pytest.raises(ValueError):
            SymbolRefAttr(bad)
    assert UnitAttr() == UNIT and hash(UnitAttr()) == hash(UNIT)


# ---- dense attributes -------------------------------------------------------------------------

def test_dense_attr_is_a_read_only_copy():
    src = np.arange(6, dtype=np.float32).reshape(2, 3)
    d = DenseAttr(src)
    src[0, 0] = 99.0
    assert d.array[0, 0] == 0.0
    assert d.type == TensorType("f32", (2, 3))
    assert not d.array.flags.writeable
    with pytest.raises(ValueError):
        d.array[0, 0] = 5.0
    with pytest.raises(AttributeError):
        d.array = np.zeros(3)


def test_dense_attr_array_cannot_be_made_writable():
    d = DenseAttr(np.arange(4, dtype=np.int32))
    with pytest.raises(ValueError):
        d.array.setflags(write=True)
    assert d.array.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("array, dtype, type_text", [
    (np.zeros(3, np.float64), None, "tensor<3xf64>"),
    (np.zeros((2, 2), np.float16), None, "tensor<2x2xf16>"),
    ([1, 2, 3], None, "tensor<3xi64>"),
    ([True, False], None, "tensor<2xi1>"),
    (np.zeros(2, np.uint8), None, "tensor<2xui8>"),
    (np.float32(2.0), None, "tensor<f32>"),
    ([1, 2], "i8", "tensor<2xi8>"),
    ([1.5, -0.0], "bf16", "tensor<2xbf16>"),
    (np.array([1.5, 2.0], dtype=ml_dtypes.bfloat16), None, "tensor<2xbf16>"),
    (np.zeros((0, 3), np.int32), None, "tensor<0x3xi32>"),
])
def test_dense_attr_types(array, dtype, type_text):
    d = DenseAttr(array, dtype)
    assert str(d.type) == type_text
    assert d.array.dtype == numpy_dtype(d.type.dtype)


def test_dense_attr_bf16_values():
    d = DenseAttr([1.5, -0.0, 3.0], "bf16")
    assert d.array.dtype == np.dtype(ml_dtypes.bfloat16)
    assert d.array.view(np.uint16).tolist() == [0x3FC0, 0x8000, 0x4040]
    assert d == DenseAttr(np.array([1.5, -0.0, 3.0], dtype=ml_dtypes.bfloat16))


def test_dense_attr_equality():
    a = DenseAttr(np.array([0.0, 1.0], np.float32))
    assert a == DenseAttr([0.0, 1.0], "f32") and hash(a) == hash(DenseAttr([0.0, 1.0], "f32"))
    assert a != DenseAttr(np.array([-0.0, 1.0], np.float32))        # bitwise, not numeric
    assert a != DenseAttr(np.array([0.0, 1.0], np.float64))
    assert DenseAttr(np.zeros(4, np.int32)) != DenseAttr(np.zeros((2, 2), np.int32))
    nan = np.array([np.nan], np.float32)
    assert DenseAttr(nan) == DenseAttr(nan)


@pytest.mark.parametrize("array", [np.zeros(2, np.uint16), np.zeros(2, np.complex64),
                                   np.array(["a", "b"]), np.zeros(2, np.int64).astype(object)])
def test_dense_attr_rejects_dtypes_without_accy_dtype(array):
    with pytest.raises((ValueError, TypeError)):
        DenseAttr(array)


# ---- check_attribute --------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    (True, True), (False, False), (0, 0), (2**63 - 1, 2**63 - 1), (-2**63, -2**63),
    ("text", "text"), ("", ""),
    ([1, [2, "x"]], (1, (2, "x"))), ((), ()),
    ({"b": 1, "a": [2]}, DictAttr({"a": (2,), "b": 1})),
    (1.5, FloatAttr(1.5, "f64")), (-0.0, FloatAttr(-0.0)),
    (np.arange(3, dtype=np.int32), DenseAttr(np.arange(3, dtype=np.int32))),
    (F32, F32), (UNIT, UNIT), (SymbolRefAttr("s"), SymbolRefAttr("s")),
    (IntAttr(3, "i8"), IntAttr(3, "i8")), (FloatAttr(2.0, "bf16"), FloatAttr(2.0, "bf16")),
])
def test_check_attribute_conversions(value, expected):
    out = check_attribute(value)
    assert out == expected and type(out) is type(expected)


def test_check_attribute_keeps_bool_distinct_from_int():
    assert check_attribute(True) is True
    assert check_attribute([True, 1]) == (True, 1)
    assert type(check_attribute([True, 1])[0]) is bool


@pytest.mark.parametrize("value, error", [
    (None, TypeError), (object(), TypeError), ({1, 2}, TypeError), (b"bytes", TypeError),
    (1j, TypeError), ([1, None], TypeError), ({"a": None}, TypeError), ({3: 1}, TypeError),
    (2**63, ValueError), (-2**63 - 1, ValueError), ([2**64], ValueError),
])
def test_check_attribute_rejections(value, error):
    with pytest.raises(error):
        check_attribute(value)


def test_bf16_values_round_once_from_f64():
    """1 + 2^-8 + 2^-30 lies just above the midpoint of two bf16 values: rounded once it goes
    up; through f32 first (ml_dtypes' cast) it would land on the midpoint and go down to 1."""
    from accy.ir import FloatAttr, parse
    import accy.tensor  # noqa: F401
    value = 1 + 2 ** -8 + 2 ** -30
    assert FloatAttr(value, "bf16").value == 1 + 2 ** -7
    m = parse("builtin.module ({\n"
              f"  %0 = tensor.constant <{{value = dense<{value!r}> : tensor<bf16>}}> : tensor<bf16>\n"
              f"  %1 = tensor.constant <{{value = dense<[{value!r}, 1.0]> : tensor<2xbf16>}}> : "
              "tensor<2xbf16>\n})")
    arrays = [op.attributes["value"].array.astype(float) for op in m.body]
    assert arrays[0].tolist() == 1 + 2 ** -7 and arrays[1].tolist() == [1 + 2 ** -7, 1.0]
