"""IR types: immutable, hashable values, independent of any Context.

A Context interns each distinct type to a small integer for its records, so types compare by id
inside the core and by value outside of it. New type kinds (the kernel language's pointer and
register types) subclass `Type` and register a text keyword with `register_type_kind`.
"""
import functools
import operator
import re

import numpy as np

from accy.errors import ShapeError

# dtype name -> (numpy dtype, bit width)
DTYPES = {
    "f64": ("float64", 64), "f32": ("float32", 32), "f16": ("float16", 16), "bf16": ("bfloat16", 16),
    "i64": ("int64", 64), "i32": ("int32", 32), "i16": ("int16", 16), "i8": ("int8", 8),
    "u8": ("uint8", 8), "i1": ("bool", 1),
}
_BY_NUMPY_NAME = {numpy_name: name for name, (numpy_name, _) in DTYPES.items()}
# How dtypes are spelled in text where the spelling differs from the name: MLIR's, so that text
# passing through accy stays MLIR's (`u8` is still read, as accy's older spelling).
TEXT_NAMES = {"u8": "ui8"}
TEXT_DTYPES = {**{name: name for name in DTYPES},
               **{text: name for name, text in TEXT_NAMES.items()}}
MAX_ELEMENTS = 2**63 - 1     # element counts and dims fit in a signed 64-bit index
# Most dims a tensor may have: numpy 2's limit (NPY_MAXDIMS), so that every tensor has a numpy
# array (the reference, the emulator, inputs and outputs), and the bound that keeps the passes'
# per-rank work (dense index maps of rank x rank coefficients) small.
MAX_RANK = 64
FLOAT_DTYPES = frozenset(("f64", "f32", "f16", "bf16"))
INT_DTYPES = frozenset(("i64", "i32", "i16", "i8", "u8"))


@functools.cache
def ml_dtypes():
    """The ml_dtypes module (bf16's numpy dtype), imported on first need: its import registers
    tens of thousands of ufunc loops and promoters (0.7.0: about half a second), which a process
    that never touches bf16 should not pay."""
    try:
        import ml_dtypes as module
    except ImportError:  # pragma: no cover - a hard dependency; keep the error clear
        raise ImportError("bf16 needs the ml_dtypes package") from None
    return module


def numpy_dtype(dtype):
    """The numpy dtype that stores elements of an accy dtype."""
    found = _NUMPY_DTYPES.get(dtype)
    if found is None:
        name = DTYPES[dtype][0]
        found = np.dtype(ml_dtypes().bfloat16) if name == "bfloat16" else np.dtype(name)
        _NUMPY_DTYPES[dtype] = found
    return found


_NUMPY_DTYPES = {}      # accy dtype -> its numpy dtype, made on first use (bf16's loads ml_dtypes)


def round_float(x, dtype):
    """Float array `x` rounded once (to nearest even) to float `dtype`, via f64. numpy rounds
    f64 to f32 and f16 directly; ml_dtypes rounds f64 to bf16 through f32 (twice), so bf16 goes
    through round-to-odd at f32 precision, which makes the second rounding exact."""
    x = np.asarray(x, np.float64)
    if dtype != "bf16":
        with np.errstate(over="ignore"):        # overflow to inf is the rounding's answer
            return x.astype(numpy_dtype(dtype))
    with np.errstate(over="ignore"):            # beyond f32, inf: its inexact odd neighbour
        y = x.astype(np.float32)                # (f32 max) still rounds to bf16 inf
    inexact = (y.astype(np.float64) != x) & ~np.isnan(x)
    overshoot = inexact & (np.abs(y.astype(np.float64)) > np.abs(x))
    y = np.where(overshoot, np.nextafter(y, np.float32(0)), y)
    bits = y.view(np.uint32) | inexact.astype(np.uint32)
    return bits.view(np.float32).astype(numpy_dtype(dtype))


def dtype_of_numpy(np_dtype):
    """The accy dtype name for a numpy dtype, or ValueError."""
    np_dtype = np.dtype(np_dtype)
    name = _NAME_OF.get(np_dtype)
    if name is not None:
        return name
    # By name first, so that only a bfloat16 array loads ml_dtypes; equality then rules out
    # another byte order or another package's dtype of the same name.
    name = _BY_NUMPY_NAME.get(np_dtype.name)
    if name is not None and numpy_dtype(name) == np_dtype:
        if len(_NAME_OF) < 64:
            _NAME_OF[np_dtype] = name
        return name
    raise ValueError(f"numpy dtype {np_dtype} has no accy dtype")


_NAME_OF = {}       # numpy dtype -> accy name, as found (numpy computes dtype.name in Python)


class Type:
    """Base of all types. Subclasses set `_key` (a tuple that identifies the type) in __init__."""
    __slots__ = ("_key", "_hash")

    def __init__(self):
        raise TypeError("Type is abstract: use TensorType, FunctionType, OpaqueType or a "
                        "registered kind")

    def _init_key(self, key):
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    def __setattr__(self, name, value):
        raise AttributeError("types are immutable")

    def __eq__(self, other):
        return type(other) is type(self) and other._key == self._key

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"<Type {self}>"


class TensorType(Type):
    """A tensor of `dtype` with a static `shape`; rank 0 is a scalar."""
    __slots__ = ()

    def __init__(self, dtype, shape=()):
        if dtype not in DTYPES:
            raise ValueError(f"unknown dtype '{dtype}' (known: {', '.join(DTYPES)})")
        shape = tuple(operator.index(d) for d in shape)
        if len(shape) > MAX_RANK:
            raise ShapeError(f"a tensor has at most {MAX_RANK} dimensions, got rank {len(shape)}: "
                             f"merge dimensions (reshape) or split the tensor")
        if any(d < 0 for d in shape):
            raise ShapeError(f"tensor dimensions must be >= 0, got {shape}")
        count = 1
        for d in shape:
            count *= d
        if count > MAX_ELEMENTS or any(d > MAX_ELEMENTS for d in shape):
            raise ShapeError(f"a tensor holds at most 2^63 - 1 elements, got shape {shape}")
        self._init_key(("tensor", dtype, shape))

    dtype = property(lambda self: self._key[1])
    shape = property(lambda self: self._key[2])
    rank = property(lambda self: len(self._key[2]))

    @property
    def num_elements(self):
        n = 1
        for d in self._key[2]:
            n *= d
        return n

    def __str__(self):
        dims = "".join(f"{d}x" for d in self._key[2])
        return f"tensor<{dims}{TEXT_NAMES.get(self._key[1], self._key[1])}>"


def dtype_from_text(text):
    """The accy dtype an element type's text names; ValueError saying why when there is none."""
    name = TEXT_DTYPES.get(text)
    if name is not None:
        return name
    if re.fullmatch(r"(ui|si|i)[0-9]+", text):
        raise ValueError(f"element type '{text}' is not supported (accy's integer types are "
                         f"i1, i8, i16, i32, i64 and ui8; integers are signless, as StableHLO's)")
    if text.startswith("complex<") or text == "complex":
        raise ValueError(f"complex element types are not supported ('{text}')")
    if re.fullmatch(r"f[0-9]+\w*|tf32|index", text):
        raise ValueError(f"element type '{text}' is not supported (accy's float types are "
                         f"f16, bf16, f32 and f64)")
    raise ValueError(f"unknown element type '{text}'")


class FunctionType(Type):
    """(inputs) -> results; used by function signatures."""
    __slots__ = ()

    def __init__(self, inputs, results):
        inputs, results = tuple(inputs), tuple(results)
        for t in inputs + results:
            if not isinstance(t, Type):
                raise TypeError(f"function type members must be types, got {t!r}")
        self._init_key(("function", inputs, results))

    inputs = property(lambda self: self._key[1])
    results = property(lambda self: self._key[2])

    def __str__(self):
        ins = ", ".join(map(str, self._key[1]))
        res = self._key[2]
        out = str(res[0]) if len(res) == 1 and not isinstance(res[0], FunctionType) else \
            "(" + ", ".join(map(str, res)) + ")"
        return f"({ins}) -> {out}"


class OpaqueType(Type):
    """A type of a dialect accy does not know: `!dialect.name`, `!dialect<body>` or
    `!dialect.name<body>`, kept as text (`!name` alone is a type alias)."""
    __slots__ = ()

    def __init__(self, text):
        if not isinstance(text, str) or not is_dialect_symbol(text, "!"):
            raise ValueError(f"opaque type text is '!dialect.name' or '!dialect' with a balanced "
                             f"<...> body on one line, got {text!r}")
        self._init_key(("opaque", text))

    text = property(lambda self: self._key[1])

    def __str__(self):
        return self._key[1]


_SYMBOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_CLOSERS = {">": "<", ")": "(", "]": "[", "}": "{"}
MAX_BODY_NESTING = 200      # the parser's nesting limit for attributes and types


def body_end(text, start):
    """Index just after the group that opens at text[start] ('<', '(', '[' or '{'), scanned as
    MLIR scans a dialect symbol's body: <>, (), [] and {} nest and must match, '->' is an arrow,
    strings (with their escapes) are skipped. ValueError when an angle-bracket body does not
    close on its line, a bracket closes one it did not open, or the group nests too deep or holds
    a '//' comment. (The parser scans its bytes by the same rules.)"""
    stack = []
    i, n = start, len(text)
    while i < n:
        ch = text[i]
        if ch in "<([{":
            stack.append(ch)
            if len(stack) > MAX_BODY_NESTING:
                raise ValueError(f"nesting too deep: more than {MAX_BODY_NESTING} levels")
        elif ch == "-" and text.startswith(">", i + 1):
            i += 1
        elif ch in _CLOSERS:
            if not stack or stack[-1] != _CLOSERS[ch]:
                raise ValueError(f"unbalanced '{ch}'")
            stack.pop()
            if not stack:
                return i + 1
        elif ch == '"':
            i += 1
            while i < n and text[i] != '"' and text[i] != "\n":
                i += 2 if text[i] == "\\" else 1
            if i >= n or text[i] != '"':
                raise ValueError("unterminated string")
        elif (ch == "\n" or ch == "\r") and "<" in stack:
            break
        elif ch == "/" and text.startswith("/", i + 1):
            raise ValueError("a '//' comment inside a dialect body")
        i += 1
    raise ValueError(f"unbalanced '{stack[-1] if stack else text[start:start + 1]}'")


def is_dialect_symbol(text, sigil):
    """True when `text` is `sigil` + a dialect name + an optional balanced body, and is not an
    alias reference (a name with no '.' and no body)."""
    if not text.startswith(sigil):
        return False
    m = _SYMBOL_NAME.match(text, 1)
    if m is None:
        return False
    if m.end() == len(text):
        return "." in m.group(0)
    if text[m.end()] != "<":
        return False
    try:
        return body_end(text, m.end()) == len(text)
    except ValueError:
        return False


# keyword -> callable(text) -> Type, for type kinds added by dialects (e.g. the kernel language).
TYPE_KINDS = {}


def register_type_kind(keyword, parse):
    """Make `keyword...` parse as a type through `parse(text) -> Type` (text is the whole type)."""
    if keyword in TYPE_KINDS or keyword == "tensor":
        raise ValueError(f"type keyword '{keyword}' is already registered")
    TYPE_KINDS[keyword] = parse
