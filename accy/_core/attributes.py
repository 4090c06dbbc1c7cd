"""IR attributes: immutable, hashable values, independent of any Context.

Plain Python values stand for the simple kinds (`int` is an i64 integer, `str` a string, `bool` a
boolean, `tuple` an array, `Type` a type attribute). The classes below cover what Python values
cannot say: an integer of another width, a float of a given dtype (kept as its bit pattern, so
every f64/f32/f16/bf16 value, nan payloads and -0.0 included, round-trips exactly), a sorted
dictionary, a dense numpy constant, a dense array (MLIR's `array<i64: 1, 2>`), an attribute of a
dialect accy does not know (kept as its text), a symbol reference and the unit attribute.
"""
import math
import operator
import struct

import numpy as np

from .types import (DTYPES, FLOAT_DTYPES, INT_DTYPES, Type, TensorType, numpy_dtype,
                    dtype_of_numpy, round_float, is_dialect_symbol)

_INT_RANGES = {"i64": (-2**63, 2**63 - 1), "i32": (-2**31, 2**31 - 1), "i16": (-2**15, 2**15 - 1),
               "i8": (-128, 127), "u8": (0, 255), "i1": (0, 1)}
_FLOAT_BITS = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}


def check_text(text, what="string"):
    """`text` if it is a str that UTF-8 can encode (no lone surrogates), else ValueError."""
    if type(text) is str and text.isascii():     # the common case: ASCII always encodes
        return text
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{what} {text!r} is not valid Unicode text ({e.reason})") from None
    return text


class _Frozen:
    __slots__ = ("_key", "_hash")

    def _init_key(self, key):
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    def __setattr__(self, name, value):
        raise AttributeError("attributes are immutable")

    def __eq__(self, other):
        return type(other) is type(self) and other._key == self._key

    def __hash__(self):
        return self._hash


class IntAttr(_Frozen):
    """An integer of a given integer dtype (plain `int` means i64)."""
    __slots__ = ()

    def __init__(self, value, dtype="i64"):
        if dtype not in _INT_RANGES:
            raise ValueError(f"IntAttr dtype must be an integer dtype, got '{dtype}'")
        lo, hi = _INT_RANGES[dtype]
        value = operator.index(value)
        if not lo <= value <= hi:
            raise ValueError(f"{value} does not fit in {dtype}")
        self._init_key((int(value), dtype))

    value = property(lambda self: self._key[0])
    dtype = property(lambda self: self._key[1])

    def __repr__(self):
        return f"IntAttr({self._key[0]}, {self._key[1]!r})"


class FloatAttr(_Frozen):
    """A float of dtype f64/f32/f16/bf16, stored as its exact bit pattern."""
    __slots__ = ()

    def __init__(self, value, dtype="f64", *, bits=None):
        if dtype not in _FLOAT_BITS:
            raise ValueError(f"FloatAttr dtype must be a float dtype, got '{dtype}'")
        if bits is None:
            bits = _float_to_bits(value, dtype)
        elif not 0 <= bits < 1 << _FLOAT_BITS[dtype]:
            raise ValueError(f"bit pattern {bits:#x} does not fit in {dtype}")
        self._init_key((int(bits), dtype))

    bits = property(lambda self: self._key[0])
    dtype = property(lambda self: self._key[1])

    @property
    def value(self):
        """The value as a Python float (exact for every dtype; nan payloads may not survive)."""
        return float(_bits_to_array(self._key[0], self._key[1])[0])

    def __repr__(self):
        return f"FloatAttr({self.value!r}, {self._key[1]!r}, bits={self._key[0]:#x})"


def _uint_dtype(bits):
    return {64: np.uint64, 32: np.uint32, 16: np.uint16}[bits]


def _float_to_bits(value, dtype):
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{value} is out of range for {dtype}") from None
    if dtype == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    arr = round_float(np.array([value]), dtype)
    if math.isfinite(value) and not math.isfinite(float(arr[0])):
        raise ValueError(f"{value} is out of range for {dtype}")
    return int(arr.view(_uint_dtype(_FLOAT_BITS[dtype]))[0])


def _bits_to_array(bits, dtype):
    return np.array([bits], dtype=_uint_dtype(_FLOAT_BITS[dtype])).view(numpy_dtype(dtype))


def attribute_key(value):
    """A hashable key equal for two attributes exactly when they are the same attribute. Python
    says True == 1 and (1,) == (True,); as attributes, a bool and an int differ."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, tuple):
        return ("tuple",) + tuple(attribute_key(x) for x in value)
    return value        # str, Type and the attribute classes compare exactly already


class DictAttr(_Frozen):
    """A dictionary attribute with string keys, kept sorted by key (as MLIR does)."""
    __slots__ = ("_items",)

    def __init__(self, items=(), _depth=0):
        items = dict(items)
        for k in items:
            check_text(k, "a dictionary attribute key")
        pairs = tuple(sorted((k, check_attribute(v, _depth + 1)) for k, v in items.items()))
        object.__setattr__(self, "_items", pairs)
        self._init_key(tuple((k, attribute_key(v)) for k, v in pairs))

    def items(self):
        return self._items

    def __getitem__(self, key):
        for k, v in self._items:
            if k == key:
                return v
        raise KeyError(key)

    def __len__(self):
        return len(self._items)

    def __repr__(self):
        return f"DictAttr({dict(self._items)!r})"


class DenseAttr(_Frozen):
    """A dense constant array; `array` is a read-only numpy copy, `type` its tensor type."""
    __slots__ = ("array", "type")

    def __init__(self, array, dtype=None):
        arr = np.asarray(array, dtype=numpy_dtype(dtype) if dtype else None)
        accy_dtype = dtype or dtype_of_numpy(arr.dtype)
        # A view of immutable bytes: nobody (not even the owner) can make it writable again.
        arr = np.frombuffer(arr.tobytes(), dtype=arr.dtype).reshape(arr.shape)
        object.__setattr__(self, "array", arr)
        object.__setattr__(self, "type", TensorType(accy_dtype, arr.shape))
        self._init_key((accy_dtype, arr.shape, arr.tobytes()))

    def __repr__(self):
        return f"DenseAttr({self.array!r})"


# element type of a dense array (MLIR's spelling) -> numpy dtype
ARRAY_ELEMENT_TYPES = {
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "si8": "int8", "si16": "int16", "si32": "int32", "si64": "int64",
    "ui8": "uint8", "ui16": "uint16", "ui32": "uint32", "ui64": "uint64",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
}


def _array_numpy_dtype(element_type):
    name = ARRAY_ELEMENT_TYPES[element_type]
    return numpy_dtype("bf16") if name == "bfloat16" else np.dtype(name)


class DenseArrayAttr(_Frozen):
    """A 1-d array of integers, bools or floats of one element type, MLIR's `array<i64: 0, 1>`
    (not a tuple, which is MLIR's `[0, 1]`). `array` is a read-only numpy copy; floats keep their
    exact bits."""
    __slots__ = ("array",)

    def __init__(self, values=(), element_type="i64"):
        if element_type not in ARRAY_ELEMENT_TYPES:
            raise ValueError(f"a dense array's element type is one of "
                             f"{', '.join(ARRAY_ELEMENT_TYPES)}, got {element_type!r}")
        dt = _array_numpy_dtype(element_type)
        if isinstance(values, np.ndarray) and values.dtype == dt:
            arr = values
        elif element_type in FLOAT_DTYPES:
            arr = round_float(np.asarray(values, dtype=np.float64), element_type)
        else:
            items = list(values)
            for x in items:
                if element_type == "i1":
                    if not isinstance(x, (bool, np.bool_)) and x not in (0, 1):
                        raise ValueError(f"an i1 array holds booleans, got {x!r}")
                else:
                    x = operator.index(x)
                    info = np.iinfo(dt)
                    if not info.min <= x <= info.max:
                        raise ValueError(f"{x} does not fit in {element_type}")
            arr = np.array(items, dtype=dt)
        if arr.ndim != 1:
            raise ValueError(f"a dense array is 1-d, got shape {arr.shape}")
        arr = np.frombuffer(arr.tobytes(), dtype=dt)
        object.__setattr__(self, "array", arr)
        self._init_key((element_type, arr.tobytes()))

    element_type = property(lambda self: self._key[0])

    @property
    def values(self):
        """The elements as Python ints, bools or floats."""
        return tuple(self.array.tolist())

    def __len__(self):
        return len(self.array)

    def __repr__(self):
        return f"DenseArrayAttr({list(self.values)!r}, {self._key[0]!r})"


class OpaqueAttr(_Frozen):
    """An attribute of a dialect accy does not know, kept as its text: `#dialect.name`,
    `#dialect<body>` or `#dialect.name<body>` (`#stablehlo<comparison_direction LT>`). The body's
    brackets balance and its strings close; `#name` alone is an attribute alias."""
    __slots__ = ()

    def __init__(self, text):
        if not isinstance(text, str) or not is_dialect_symbol(text, "#"):
            raise ValueError(f"opaque attribute text is '#dialect.name' or '#dialect' with a "
                             f"balanced <...> body on one line, got {text!r}")
        check_text(text, "opaque attribute text")
        self._init_key((text,))

    text = property(lambda self: self._key[0])

    def __repr__(self):
        return f"OpaqueAttr({self._key[0]!r})"


class PropertyDict(dict):
    """The attributes of an op the Context does not know (an unregistered op), when its text
    gave some of them as properties (`<{...}>`): `properties` names those, so that the op
    prints back as it was read (Builder.create takes one to build such an op). Registered ops
    print their schema's attributes as properties."""
    __slots__ = ("properties",)

    def __init__(self, items, properties):
        dict.__init__(self, items)
        self.properties = frozenset(k for k in properties if k in self)


def copy_attributes(attrs):
    """A copy of an op's attribute dict, keeping which of them are properties."""
    if type(attrs) is PropertyDict:
        return PropertyDict(attrs, attrs.properties)
    return dict(attrs)


class SymbolRefAttr(_Frozen):
    """A reference to a symbol by name, written `@name`."""
    __slots__ = ()

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise ValueError("a symbol reference needs a non-empty name")
        check_text(name, "a symbol name")
        self._init_key((name,))

    name = property(lambda self: self._key[0])

    def __repr__(self):
        return f"SymbolRefAttr({self._key[0]!r})"


class UnitAttr(_Frozen):
    """The attribute whose presence is its meaning, written `unit`."""
    __slots__ = ()

    def __init__(self):
        self._init_key(())

    def __repr__(self):
        return "UNIT"


UNIT = UnitAttr()
ATTRIBUTE_CLASSES = (bool, int, str, tuple, Type, IntAttr, FloatAttr, DictAttr, DenseAttr,
                     DenseArrayAttr, OpaqueAttr, SymbolRefAttr, UnitAttr)


# already-checked values (immutable, validated when constructed): returned as they are
_SELF_CHECKED = frozenset({bool, IntAttr, FloatAttr, DictAttr, DenseAttr, DenseArrayAttr,
                           OpaqueAttr, SymbolRefAttr, UnitAttr, TensorType})

_FLAT = frozenset({bool, int, IntAttr, FloatAttr, SymbolRefAttr, UnitAttr, TensorType})

MAX_NESTING = 200   # as the parser: deeper attributes could not be printed and read back


def check_attribute(value, _depth=0):
    """Return `value` as an attribute (lists become tuples, dicts DictAttr), or raise TypeError."""
    if _depth > MAX_NESTING:
        raise ValueError(f"attributes nest at most {MAX_NESTING} levels")
    kind = type(value)      # the common exact types first, each O(1)
    if kind is int:
        if not -2**63 <= value < 2**63:
            raise ValueError(f"{value} does not fit in i64")
        return value
    if kind in _SELF_CHECKED:
        return value
    if kind is str:
        return check_text(value)
    if kind is tuple and _depth < MAX_NESTING and all(type(v) is int and -2**63 <= v < 2**63
                                                      for v in value):
        return value        # a tuple of i64s (dimensions, permutations): nothing to convert
    if isinstance(value, list):
        value = tuple(value)
    if isinstance(value, dict):
        return DictAttr(value, _depth + 1)
    if isinstance(value, float):
        return FloatAttr(value, "f64")
    if isinstance(value, np.ndarray):
        return DenseAttr(value)
    if not isinstance(value, ATTRIBUTE_CLASSES):
        raise TypeError(f"{value!r} is not an attribute value")
    if isinstance(value, str):
        check_text(value)
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
        raise ValueError(f"{value} does not fit in i64")
    if isinstance(value, tuple):
        value = tuple(check_attribute(v, _depth + 1) for v in value)
    return value


def attribute_bytes(value):
    """Estimated bytes an attribute holds, for `Capacity.max_attribute_bytes`."""
    if type(value) in _FLAT:
        return 32
    if isinstance(value, (DenseAttr, DenseArrayAttr)):
        return 64 + value.array.nbytes
    if isinstance(value, OpaqueAttr):
        return 48 + len(value.text)
    if isinstance(value, str):
        return 48 + len(value)
    if isinstance(value, tuple):
        return 56 + sum(attribute_bytes(v) for v in value)
    if isinstance(value, DictAttr):
        return 56 + sum(len(k) + attribute_bytes(v) for k, v in value.items())
    return 32


__all__ = ["IntAttr", "FloatAttr", "DictAttr", "DenseAttr", "DenseArrayAttr", "OpaqueAttr",
           "PropertyDict", "SymbolRefAttr", "UnitAttr", "UNIT",
           "check_attribute", "check_text", "attribute_bytes", "DTYPES", "FLOAT_DTYPES", "INT_DTYPES"]
