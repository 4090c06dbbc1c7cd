# cython: language_level=3, boundscheck=False, cdivision=True
"""Text forms of the IR: accy's pretty form and MLIR's generic operation form.

Both are printed and parsed here; `print(parse(t)) == t` for printed text. The parser reads
either form, even mixed, op by op:

  generic   %r = "d.op"(%a, %b) <{props}> ({regions}) {attrs} : (t1, t2) -> t3
  pretty    %r = d.op %a, %b <{props}> {attrs} : t3 ({regions})

The pretty form drops the quotes, the operand parentheses and the operand types (known from the
definitions). Registered ops print their schema attributes as properties `<{...}>`, everything
else in `{...}`; the parser merges both. An unregistered op keeps which attributes its text gave
as properties (a PropertyDict) and prints them so again. Values and blocks are renumbered in
order of appearance, so printed text and the fingerprint do not depend on names or ids.

The generic form is read as MLIR and JAX print it:

  #name = attribute            an attribute alias, at the top level, defined before its uses
  #name = loc(...)             a location alias; it may follow its uses, as MLIR prints them
  !name = type                 a type alias; aliases are printed inline, not as aliases
  op ... loc(...)              after an op, and after a block argument's type; read and dropped
                               (accy keeps no locations): unknown, "file":line:col [to ...],
                               "name", "name"(loc), callsite(loc at loc), fused<attr>[loc, ...],
                               #alias
  array<i64: 0, 1>, array<f32> a dense array (DenseArrayAttr) of any element type MLIR has
  #dialect<body>, #dialect.name<body>, #dialect.name, !dialect.name<body>
                               an attribute or type of a dialect accy does not know, kept as its
                               text (OpaqueAttr, OpaqueType); a body is scanned as MLIR scans it:
                               <>, (), [] and {} nest and match, strings are skipped, '->' is an
                               arrow, and it closes on its line
  dense<[[1, 2], [3, 4]]>, dense<1.5> (a splat), dense<> (no elements),
  dense<"0x0000803F">          raw little-endian element bytes (one element's worth: a splat;
                               i1 is a byte per element), dense<0xFF800000> and
  dense<[0x7FC00000, 1.0]>     hex elements of a float tensor: the element's bit pattern (how
                               MLIR writes nan and inf); complex constants are refused

Element types are accy's dtypes in MLIR's spelling (u8 prints as ui8; u8 still reads). MLIR's
other integer and float types (ui32, si32, index, f8E4M3FN), dynamic and unranked shapes,
encodings, complex and non-tensor types are ParseErrors naming the type; so are block
successors. Float literals always print with a '.', as MLIR reads them (1.0e-05).
"""
import hashlib
import math
import re

import numpy as np

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Malloc, PyMem_Realloc, PyMem_Free
from libc.string cimport memcmp
from libc.stdint cimport int32_t, uint32_t
from accy._core.context cimport (
    Context, Operation, Module, OpRec, ValueRec, BlockRec, OP, USE, VAL, BLK, REG, ARGS,
    VALUE_PLACEHOLDER, create_op, create_block, append_op, append_block, erase_op, erase_block,
    add_argument, replace_all_uses, drop_uses_of, new_placeholder, free_placeholder, op_handle,
    as_module,
)
from accy._core.types import (Type, TensorType, FunctionType, OpaqueType, TYPE_KINDS,
                              FLOAT_DTYPES, TEXT_NAMES, TEXT_DTYPES, body_end, dtype_from_text)
from accy._core.attributes import (IntAttr, FloatAttr, DictAttr, DenseAttr, DenseArrayAttr,
                                   OpaqueAttr, PropertyDict, SymbolRefAttr, UnitAttr, UNIT,
                                   ARRAY_ELEMENT_TYPES, check_attribute,
                                   _float_to_bits, _bits_to_array, _FLOAT_BITS)
from accy._core.types import numpy_dtype, round_float
from accy.errors import ParseError, CapacityError, AccyError, IRError
from accy._core.registry import ISOLATED_FROM_ABOVE

cdef uint32_t T_ISOLATED = ISOLATED_FROM_ABOVE

cdef enum:
    MAX_DEPTH = 200              # attribute and type nesting
    MAX_REGION_DEPTH = 1000      # region nesting, for the parser and the printer (both recurse)
    DENSE_LIST_LIMIT = 1024

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")
_ALIAS_REF = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(?![A-Za-z0-9_$.])")
LOCATION = object()     # what a `#name = loc(...)` alias stands for (locations are not kept)
# MLIR builtin attributes accy has no value for
_UNSUPPORTED_ATTRS = {"dense_resource": "resource blobs", "sparse": "sparse elements",
                      "affine_map": "affine maps", "affine_set": "affine sets",
                      "strided": "strided layouts", "distinct": "distinct attributes",
                      "opaque": "opaque elements", "loc": "location attributes"}
MAX_MESSAGE = 400   # characters of a parse error's message; the source line shown is cut too


def _bounded(str message):
    """`message` cut in the middle to MAX_MESSAGE characters: an error quoting a 10 MB token
    stays readable."""
    if len(message) <= MAX_MESSAGE:
        return message
    cut = len(message) - MAX_MESSAGE + 80
    return f"{message[:240]} ... [{cut} characters left out] ... {message[-80:]}"


def decode_text(data):
    """`data` (bytes) as str; a ParseError naming the byte offset (and line and column) where
    it is not valid UTF-8."""
    cdef Parser parser
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as e:
        parser = Parser(Context(), bytes(data))
        parser.error(f"the text is not valid UTF-8 ({e.reason} at byte offset {e.start})",
                     e.start)


# ---- attributes and types as text -------------------------------------------------------------

def escape_string(str s):
    out = ['"']
    for byte in s.encode("utf-8"):
        ch = chr(byte)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append(f"\\{byte:02X}")
    out.append('"')
    return "".join(out)


def _key_str(str k):
    return k if _IDENT.match(k) else escape_string(k)


def float_text(bits, str dtype):
    """Shortest decimal text that reads back to exactly `bits`, else the hex bit pattern."""
    key = (bits, dtype)
    text = _FLOAT_TEXTS.get(key)
    if text is None:
        if len(_FLOAT_TEXTS) >= MAX_FLOAT_TEXTS:
            _FLOAT_TEXTS.clear()
        text = _FLOAT_TEXTS[key] = _float_text(bits, dtype)
    return text


# float_text's answers (a pure function of its arguments, a few microseconds each through
# numpy's rounding): kernels and modules print the same few constants again and again
_FLOAT_TEXTS = {}
MAX_FLOAT_TEXTS = 4096


def _float_text(bits, str dtype):
    value = _bits_to_array(bits, dtype)[0]
    if math.isfinite(float(value)):
        text = repr(float(value)) if dtype == "f64" else str(value)
        if "." not in text:             # MLIR's float literals have a '.': 1.0, 1.0e-05
            text = text.replace("e", ".0e") if "e" in text else text + ".0"
        if _float_to_bits(float(text), dtype) == bits:
            return text
    return f"0x{bits:0{_FLOAT_BITS[dtype] // 4}X}"


def attr_text(a):
    """An attribute's text (the same in both forms)."""
    if a is True:
        return "true"
    if a is False:
        return "false"
    if isinstance(a, int):
        return str(a)
    if isinstance(a, str):
        return escape_string(a)
    if isinstance(a, Type):
        return str(a)
    if isinstance(a, tuple):
        return "[" + ", ".join([attr_text(x) for x in a]) + "]"
    if isinstance(a, FloatAttr):
        text = float_text(a.bits, a.dtype)
        return text if a.dtype == "f64" and not text.startswith("0x") else f"{text} : {a.dtype}"
    if isinstance(a, IntAttr):
        return f"{a.value} : {TEXT_NAMES.get(a.dtype, a.dtype)}"
    if isinstance(a, DictAttr):
        return "{" + ", ".join([f"{_key_str(k)} = {attr_text(v)}" for k, v in a.items()]) + "}"
    if isinstance(a, SymbolRefAttr):
        return "@" + _key_str(a.name)
    if isinstance(a, UnitAttr):
        return "unit"
    if isinstance(a, DenseAttr):
        return f"dense<{_dense_body(a)}> : {a.type}"
    if isinstance(a, DenseArrayAttr):
        return _dense_array_text(a)
    if isinstance(a, OpaqueAttr):
        return a.text
    raise TypeError(f"cannot print attribute {a!r}")


def _dense_body(a):
    full = arr = a.array
    dtype = a.type.dtype
    splat = False
    if arr.size > DENSE_LIST_LIMIT:
        # a splat (every element the same bits: a folded broadcast) prints as its one element
        # whatever its size, as MLIR prints it; others as hex
        words = arr.reshape(-1).view(f"u{arr.dtype.itemsize}")
        if not (words == words[0]).all():
            return '"0x' + arr.tobytes().hex().upper() + '"'
        arr, splat = arr.reshape(-1)[:1], True
    elif arr.size == 0 and arr.ndim != 1:
        return '"0x' + arr.tobytes().hex().upper() + '"'
    if dtype in FLOAT_DTYPES:
        bits = arr.reshape(-1).view(_UINT_OF_BITS[_FLOAT_BITS[dtype]])
        texts = [float_text(int(b), dtype) for b in bits]
        if any(t.startswith("0x") for t in texts):
            return '"0x' + full.tobytes().hex().upper() + '"'
        flat = texts
    elif dtype == "i1":
        flat = ["true" if x else "false" for x in arr.reshape(-1).tolist()]
    else:
        flat = [str(x) for x in arr.reshape(-1).tolist()]
    if splat or arr.ndim == 0 or (arr.size > 1 and all(x == flat[0] for x in flat)):
        return flat[0]
    return _nest(flat, arr.shape)


_UINT_OF_BITS = {64: np.uint64, 32: np.uint32, 16: np.uint16}


def _dense_array_text(a):
    """`array<i64: 1, 2>`, `array<i64>` when empty; floats exactly (hex bits where decimal text
    would not read back), as MLIR prints them."""
    etype = a.element_type
    arr = a.array
    if not len(arr):
        return f"array<{etype}>"
    if etype == "i1":
        items = ["true" if x else "false" for x in arr.tolist()]
    elif etype in FLOAT_DTYPES:
        items = [float_text(int(b), etype) for b in arr.view(_UINT_OF_BITS[_FLOAT_BITS[etype]])]
    else:
        items = [str(x) for x in arr.tolist()]
    return f"array<{etype}: {', '.join(items)}>"


def _nest(list flat, tuple shape):
    if len(shape) == 1:
        return "[" + ", ".join(flat) + "]"
    step = len(flat) // shape[0] if shape[0] else 0
    return "[" + ", ".join([_nest(flat[i * step:(i + 1) * step], shape[1:])
                            for i in range(shape[0])]) + "]"


# ---- printer ----------------------------------------------------------------------------------

cdef class Printer:
    cdef Context c
    cdef bint generic
    cdef list out
    cdef dict vnum          # value id -> number
    cdef list names

    def __init__(self, Context c, bint generic):
        self.c = c
        self.generic = generic
        self.out = []
        self.vnum = {}
        self.names = []

    cdef str vname(self, int32_t v):
        if v < 0:
            return "%<<null>>"
        n = self.vnum.get(v)
        if n is None:
            n = len(self.vnum)
            self.vnum[v] = n
        if n < len(self.names):
            return self.names[n]
        while len(self.names) <= n:
            self.names.append("%" + str(len(self.names)))
        return self.names[n]

    cdef void print_op(self, int32_t op, str indent) except *:
        cdef Context c = self.c
        cdef OpRec* o = OP(c, op)
        cdef list out = self.out
        cdef int32_t i, nres = o.n_results, nops = o.n_operands, r0 = o.results
        cdef int32_t u0 = o.operands, nreg = o.n_regions
        out.append(indent)
        if nres:
            out.append(", ".join([self.vname(r0 + i) for i in range(nres)]))
            out.append(" = ")
        name = c.op_names[o.name]
        cdef str operands = ", ".join([self.vname(USE(c, u0 + i).value) for i in range(nops)])
        cdef bint generic = self.generic or not c.names[o.name].bare_name
        if generic:
            out.append(escape_string(name) if not c.names[o.name].bare_name else f'"{name}"')
            out.append('(')
            out.append(operands)
            out.append(")")
        else:
            out.append(name)
            if nops:
                out.append(" ")
                out.append(operands)
        attrs = c.op_attrs.get(op) if c.op_attrs else None
        if attrs:
            opdef = c.op_defs[o.name]
            if opdef is not None:
                schema = opdef.attributes
            elif type(attrs) is PropertyDict:       # an unregistered op, as its text gave it
                schema = (<object>attrs).properties
            else:
                schema = ()
            props = sorted([k for k in attrs if k in schema])
            rest = sorted([k for k in attrs if k not in schema])
            if props:
                out.append(" <{" + ", ".join([f"{_key_str(k)} = {attr_text(attrs[k])}"
                                              for k in props]) + "}>")
        else:
            rest = ()
        if generic:
            if nreg:
                self.print_regions(op, indent)
            if rest:
                out.append(" {" + ", ".join([f"{_key_str(k)} = {attr_text(attrs[k])}"
                                             for k in rest]) + "}")
            out.append(" : (")
            out.append(", ".join([self.c.type_str(VAL(c, USE(c, u0 + i).value).type)
                                  if USE(c, u0 + i).value >= 0 else "<<null>>"
                                  for i in range(nops)]))
            out.append(") -> ")
            res = [self.c.type_str(VAL(c, r0 + i).type) for i in range(nres)]
            if nres == 1 and not res[0].startswith("("):
                out.append(res[0])
            else:
                out.append("(" + ", ".join(res) + ")")
        else:
            if rest:
                out.append(" {" + ", ".join([f"{_key_str(k)} = {attr_text(attrs[k])}"
                                             for k in rest]) + "}")
            if nres:
                out.append(" : ")
                out.append(", ".join([self.c.type_str(VAL(c, r0 + i).type)
                                      for i in range(nres)]))
            if nreg:
                self.print_regions(op, indent)
        out.append("\n")

    cdef void print_regions(self, int32_t op, str indent) except *:
        cdef Context c = self.c
        cdef int32_t i, nreg = OP(c, op).n_regions, g0 = OP(c, op).regions
        # Names restart at %0 inside ops isolated from above (as MLIR's printer does): nothing
        # inside can refer to a value outside.
        cdef bint isolated = c.names[OP(c, op).name].traits & T_ISOLATED
        saved = self.vnum
        if isolated:
            self.vnum = {}
        self.out.append(" (")
        for i in range(nreg):
            if i:
                self.out.append(", ")
            self.print_region(g0 + i, indent)
        self.out.append(")")
        if isolated:
            self.vnum = saved

    cdef void print_region(self, int32_t region, str indent) except *:
        cdef Context c = self.c
        if len(indent) > 2 * MAX_REGION_DEPTH:
            raise IRError(f"cannot print regions nested more than {MAX_REGION_DEPTH} levels")
        cdef int32_t b = REG(c, region).first_block, op, i
        cdef BlockRec* blk
        cdef str inner = indent + "  "
        self.out.append("{\n")
        cdef bint first = True
        cdef int label = 0
        while b >= 0:
            blk = BLK(c, b)
            if not first or blk.n_args or blk.first_op < 0:
                self.out.append(f"{indent}^bb{label}")
                if blk.n_args:
                    self.out.append("(" + ", ".join([
                        self.vname(ARGS(c, blk.args)[i]) + ": " +
                        c.type_str(VAL(c, ARGS(c, blk.args)[i]).type)
                        for i in range(blk.n_args)]) + ")")
                self.out.append(":\n")
            first = False
            label += 1
            op = BLK(c, b).first_op
            while op >= 0:
                self.print_op(op, inner)
                op = OP(c, op).next
            b = BLK(c, b).next
        self.out.append(indent + "}")


def print_op(Operation op not None, bint generic=False):
    cdef Printer p = Printer(op.context, generic)
    p.print_op(op.check(), "")
    return "".join(p.out)


def fingerprint(Operation op not None):
    """sha256 of the generic text: values and blocks are numbered by position, so the digest
    depends only on structure, types and attributes."""
    return hashlib.sha256(print_op(op, True).encode("utf-8")).hexdigest()


# ---- parser -----------------------------------------------------------------------------------

cdef inline bint is_ident_start(char ch) noexcept:
    return (b'a' <= ch <= b'z') or (b'A' <= ch <= b'Z') or ch == b'_'


cdef inline bint is_ident_char(char ch) noexcept:
    return (is_ident_start(ch) or (b'0' <= ch <= b'9') or ch == b'.' or ch == b'$'
            or ch == b'-')


cdef inline bint is_digit(char ch) noexcept:
    return b'0' <= ch <= b'9'


cdef inline bint is_hex_digit(char ch) noexcept:
    return is_digit(ch) or (b'a' <= ch <= b'f') or (b'A' <= ch <= b'F')


class _TypeTextError(Exception):
    pass


cdef class _Ids:
    """A growable int32 buffer reused across ops (operand ids, then result type ids)."""
    cdef int32_t* p
    cdef Py_ssize_t n, cap

    def __cinit__(self):
        self.cap = 64
        self.p = <int32_t*>PyMem_Malloc(self.cap * sizeof(int32_t))
        if self.p == NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.p)

    cdef int push(self, int32_t x) except -1:
        cdef int32_t* q
        if self.n == self.cap:
            q = <int32_t*>PyMem_Realloc(self.p, 2 * self.cap * sizeof(int32_t))
            if q == NULL:
                raise MemoryError()
            self.p = q
            self.cap *= 2
        self.p[self.n] = x
        self.n += 1
        return 0


cdef class Parser:
    cdef Context c
    cdef bytes data
    cdef const char* s
    cdef Py_ssize_t pos, end
    cdef int depth           # attribute nesting
    cdef int region_depth
    cdef dict names          # value name -> value id
    cdef list scopes         # per region: {name: previous binding or None}
    cdef dict forward        # name -> (placeholder id, position of first use)
    cdef dict type_cache     # type text -> type id
    cdef dict opname_cache   # op name bytes -> name id
    cdef list top_ops
    cdef list loose_blocks
    cdef _Ids ids
    cdef bytes last_type
    cdef int32_t last_type_id
    cdef dict attr_aliases   # `#name = ...` at the top level: name -> attribute, or LOCATION
    cdef dict type_aliases   # `!name = ...`: name -> Type
    cdef dict loc_uses       # `loc(#name)` before `#name` is defined: name -> position

    def __init__(self, Context c, bytes data):
        self.c = c
        self.data = data
        self.s = data
        self.pos = 0
        self.end = len(data)
        self.depth = 0
        self.names = {}
        self.scopes = [{}]
        self.forward = {}
        self.type_cache = {}
        self.opname_cache = {}
        self.top_ops = []
        self.loose_blocks = []
        self.ids = _Ids()
        self.last_type = None
        self.last_type_id = -1
        self.attr_aliases = {}
        self.type_aliases = {}
        self.loc_uses = {}

    # -- errors and lexing --
    cdef error(self, str message, Py_ssize_t at=-1):
        message = _bounded(message)
        if at < 0:
            at = self.pos
        if at > self.end:
            at = self.end
        text = self.data.decode("utf-8", "replace")
        prefix = self.data[:at].decode("utf-8", "replace")
        line = prefix.count("\n") + 1
        line_start = prefix.rfind("\n") + 1
        col = len(prefix) - line_start + 1
        line_end = text.find("\n", line_start)
        line_text = text[line_start:line_end if line_end >= 0 else len(text)]
        caret = col
        if len(line_text) > 160:            # show a window of a long line around the column
            lo = max(0, col - 80)
            line_text = line_text[lo:lo + 160]
            caret -= lo
        raise ParseError(message, line, col, line_text + "\n" + " " * (caret - 1) + "^")

    cdef inline void skip_ws(self) noexcept:
        cdef const char* s = self.s
        cdef Py_ssize_t p = self.pos, end = self.end
        while p < end:
            if s[p] == b' ' or s[p] == b'\n' or s[p] == b'\t' or s[p] == b'\r':
                p += 1
            elif s[p] == b'/' and p + 1 < end and s[p + 1] == b'/':
                while p < end and s[p] != b'\n':
                    p += 1
            else:
                break
        self.pos = p

    cdef inline char peek(self) noexcept:
        self.skip_ws()
        return self.s[self.pos] if self.pos < self.end else 0

    cdef inline bint accept(self, char ch):
        if self.peek() == ch:
            self.pos += 1
            return True
        return False

    cdef inline bint accept2(self, char a, char b):
        if self.peek() == a and self.pos + 1 < self.end and self.s[self.pos + 1] == b:
            self.pos += 2
            return True
        return False

    cdef int expect(self, char ch, str what) except -1:
        if not self.accept(ch):
            self.error(f"expected {what}")
        return 0

    cdef bytes ident(self, str what):
        self.skip_ws()
        cdef Py_ssize_t start = self.pos
        if start >= self.end or not is_ident_start(self.s[start]):
            self.error(f"expected {what}")
        cdef Py_ssize_t p = start + 1
        while p < self.end and is_ident_char(self.s[p]):
            p += 1
        self.pos = p
        return PyBytes_FromStringAndSize(self.s + start, p - start)

    cdef bint at_keyword(self, const char* kw, Py_ssize_t n):
        self.skip_ws()
        if self.pos + n > self.end:
            return False
        cdef Py_ssize_t i
        for i in range(n):
            if self.s[self.pos + i] != kw[i]:
                return False
        return self.pos + n >= self.end or not is_ident_char(self.s[self.pos + n])

    cdef bytes value_name(self):
        """`%name` or `%name#k` (the text, including `%`)."""
        self.skip_ws()
        cdef Py_ssize_t start = self.pos, p = self.pos + 1
        if start >= self.end or self.s[start] != b'%':
            self.error("expected a value name like %0")
        while p < self.end and (is_ident_char(self.s[p])):
            p += 1
        if p == start + 1:
            self.error("expected a value name after '%'")
        if p < self.end and self.s[p] == b'#':
            p += 1
            if p >= self.end or not is_digit(self.s[p]):
                self.pos = p
                self.error("expected a result number after '#'")
            while p < self.end and is_digit(self.s[p]):
                p += 1
        self.pos = p
        return PyBytes_FromStringAndSize(self.s + start, p - start)

    cdef str string_literal(self):
        self.skip_ws()
        cdef Py_ssize_t start = self.pos
        if start >= self.end or self.s[start] != b'"':
            self.error("expected a string")
        cdef Py_ssize_t p = start + 1
        cdef bytearray out = bytearray()
        cdef char ch
        while True:
            if p >= self.end or self.s[p] == b'\n':
                self.error("unterminated string", start)
            ch = self.s[p]
            if ch == b'"':
                break
            if ch == b'\\':
                if p + 1 >= self.end:
                    self.error("unterminated string", start)
                nxt = self.s[p + 1]
                if nxt == b'n':
                    out.append(10)
                    p += 2
                elif nxt == b't':
                    out.append(9)
                    p += 2
                elif nxt == b'"' or nxt == b'\\':
                    out.append(nxt)
                    p += 2
                else:
                    hexpair = PyBytes_FromStringAndSize(self.s + p + 1, min(2, self.end - p - 1))
                    try:
                        if len(hexpair) != 2 or not all(chr(x) in "0123456789abcdefABCDEF"
                                                        for x in hexpair):
                            raise ValueError
                        out.append(int(hexpair, 16))
                    except ValueError:
                        self.error("bad escape in string (use \\n, \\t, \\\\, \\\" or \\XX)", p)
                    p += 3
            else:
                out.append(<unsigned char>ch)
                p += 1
        self.pos = p + 1
        try:
            return out.decode("utf-8")
        except UnicodeDecodeError:
            self.error("string is not valid UTF-8", start)

    cdef int enter(self) except -1:
        """One more level of attribute nesting (bounded: the parser recurses in C)."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.error(f"nesting too deep: attributes nested more than {MAX_DEPTH} levels")
        return 0

    # -- types --
    cdef Py_ssize_t body_end(self, Py_ssize_t p) except -1:
        """Position just after the group that opens at `p` ('<', '(', '[' or '{'), scanned as
        MLIR scans a dialect body (the rules of accy._core.types.body_end): the four bracket
        kinds nest and match, '->' is an arrow, strings are skipped, an angle-bracket body closes
        on its line, and nothing nests more than MAX_DEPTH deep."""
        cdef char stack[MAX_DEPTH]
        cdef int n = 0, angles = 0
        cdef Py_ssize_t start = p, q, end = self.end
        cdef const char* s = self.s
        cdef char ch, want
        while p < end:
            ch = s[p]
            if ch == b'<' or ch == b'(' or ch == b'[' or ch == b'{':
                if n == MAX_DEPTH:
                    self.error(f"nesting too deep: brackets nested more than {MAX_DEPTH} levels",
                               p)
                stack[n] = ch
                n += 1
                angles += ch == b'<'
            elif ch == b'-' and p + 1 < end and s[p + 1] == b'>':
                p += 1
            elif ch == b'>' or ch == b')' or ch == b']' or ch == b'}':
                want = b'<' if ch == b'>' else b'(' if ch == b')' else b'[' if ch == b']' else b'{'
                if n == 0 or stack[n - 1] != want:
                    self.error(f"unbalanced '{chr(ch)}'", p)
                n -= 1
                angles -= ch == b'>'
                if n == 0:
                    return p + 1
            elif ch == b'"':
                q = p
                p += 1
                while p < end and s[p] != b'"' and s[p] != b'\n':
                    p += 2 if s[p] == b'\\' else 1
                if p >= end or s[p] != b'"':
                    self.error("unterminated string", q)
            elif (ch == b'\n' or ch == b'\r') and angles:
                break
            elif ch == b'/' and p + 1 < end and s[p + 1] == b'/':
                self.error("a '//' comment inside a bracketed body", p)
            p += 1
        self.error(f"unbalanced '{chr(stack[n - 1] if n else s[start])}': it does not close on "
                   f"its line", start)

    cdef Py_ssize_t type_end(self, Py_ssize_t p) except -1:
        """Position after the type text starting at `p` (no whitespace skipping inside)."""
        cdef Py_ssize_t q
        if p >= self.end:
            self.error("expected a type", p)
        if self.s[p] == b'(':
            q = self.body_end(p)
            while q < self.end and self.s[q] in b' \t\r\n':
                q += 1
            if q + 1 < self.end and self.s[q] == b'-' and self.s[q + 1] == b'>':
                q += 2
                while q < self.end and self.s[q] in b' \t\r\n':
                    q += 1
                if q < self.end and self.s[q] == b'(':
                    return self.body_end(q)                 # a result list
                return self.type_end(q)
            self.error("expected '->' in a function type", q)
        if self.s[p] == b'!' or is_ident_start(self.s[p]):
            q = p + 1
            while q < self.end and is_ident_char(self.s[q]) and self.s[q] != b'-':
                q += 1
            if q < self.end and self.s[q] == b'<':
                p = q + 1                       # a flat body (tensor<4xf32>) needs no stack
                while p < self.end and is_ident_char(self.s[p]) and self.s[p] != b'-':
                    p += 1
                q = p + 1 if p < self.end and self.s[p] == b'>' else self.body_end(q)
            return q
        self.error("expected a type", p)

    cdef int32_t parse_type(self) except -1:
        self.skip_ws()
        cdef Py_ssize_t start = self.pos
        cdef Py_ssize_t stop = self.type_end(start)
        if self.last_type is not None and len(self.last_type) == stop - start and \
                memcmp(<const char*>self.last_type, self.s + start, stop - start) == 0:
            self.pos = stop
            return self.last_type_id
        cdef bytes key = PyBytes_FromStringAndSize(self.s + start, stop - start)
        found = self.type_cache.get(key)
        if found is not None:
            self.last_type = key
            self.last_type_id = found
        if found is not None:
            self.pos = stop
            return found
        try:
            text = key.decode("utf-8")
            if _nesting(text) > MAX_DEPTH:
                raise _TypeTextError(f"nesting too deep: more than {MAX_DEPTH} levels")
            t = type_from_text(text, 0, self.type_aliases)
        except (_TypeTextError, ValueError, TypeError, UnicodeDecodeError) as e:
            self.error(f"bad type: {e}", start)
        cdef int32_t tid = self.c.type_id(t)
        self.type_cache[key] = tid
        self.pos = stop
        return tid

    cdef object parse_type_obj(self):
        return self.c.types[self.parse_type()]

    cdef list type_list_parens(self):
        """`(t, ...)` -> list of type ids."""
        self.expect(b'(', "'('")
        cdef list out = []
        if self.accept(b')'):
            return out
        while True:
            out.append(self.parse_type())
            if self.accept(b')'):
                return out
            self.expect(b',', "',' or ')' in a type list")

    # -- attributes --
    cdef object parse_attr(self):
        cdef char ch = self.peek()
        cdef Py_ssize_t start = self.pos
        self.enter()
        try:
            if ch == b'"':
                return self.string_literal()
            if ch == b'[':
                return tuple(self.bracket_list(False))
            if ch == b'{':
                return DictAttr(self.parse_attr_dict())
            if ch == b'@':
                self.pos += 1
                if self.peek() == b'"':
                    name = self.string_literal()
                else:
                    name = self.ident("a symbol name").decode()
                if not name:
                    self.error("a symbol reference needs a non-empty name", start)
                return SymbolRefAttr(name)
            if ch == b'-' or is_digit(ch):
                return self.parse_number()
            if self.at_keyword(b"true", 4):
                self.pos += 4
                return True
            if self.at_keyword(b"false", 5):
                self.pos += 5
                return False
            if self.at_keyword(b"unit", 4):
                self.pos += 4
                return UNIT
            if self.at_keyword(b"dense", 5):
                return self.parse_dense()
            if ch == b'#':
                return self.hash_attr()
            if self.at_keyword(b"array", 5):
                return self.parse_dense_array()
            if is_ident_start(ch):
                self.refuse_builtin_attr()
            if ch == b'(' or ch == b'!' or is_ident_start(ch):
                return self.parse_type_obj()
            self.error("expected an attribute value")
        finally:
            self.depth -= 1

    cdef Py_ssize_t symbol_name_end(self, Py_ssize_t p):
        """End of the name of `#name` / `!name` starting at p (after the sigil): letters, digits,
        '_', '$' and '.'."""
        while p < self.end and (is_ident_start(self.s[p]) or is_digit(self.s[p]) or
                                self.s[p] == b'.' or self.s[p] == b'$'):
            p += 1
        return p

    cdef object hash_attr(self):
        """`#dialect<...>`, `#dialect.name<...>` or `#dialect.name` (kept as text), or `#alias`."""
        cdef Py_ssize_t start = self.pos
        cdef Py_ssize_t p = self.symbol_name_end(start + 1)
        if p == start + 1 or not is_ident_start(self.s[start + 1]):
            self.error("expected an attribute alias or a dialect attribute after '#'", start)
        name = PyBytes_FromStringAndSize(self.s + start + 1, p - start - 1).decode()
        if p < self.end and self.s[p] == b'<':
            p = self.body_end(p)
        elif "." not in name:
            self.pos = p
            value = self.attr_aliases.get(name)
            if value is None:
                self.error(f"undefined attribute alias #{name} (an alias is defined before its "
                           f"first use: '#{name} = ...' at the top level)", start)
            if value is LOCATION:
                self.error(f"#{name} is a location; a location is not an attribute value",
                           start)
            return value
        self.pos = p
        text = PyBytes_FromStringAndSize(self.s + start, p - start).decode("utf-8")
        if self.type_aliases or self.attr_aliases:
            text = self.expand_aliases(text)
        try:
            return OpaqueAttr(text)
        except ValueError as e:
            self.error(f"bad dialect attribute: {e}", start)

    cdef str expand_aliases(self, str text):
        """`text` (a dialect body) with the aliases it names replaced by their text: the
        aliases are not printed, so the body must not name them."""
        out = []
        cdef Py_ssize_t i = 0, j, n = len(text), last = 0
        while i < n:
            ch = text[i]
            if ch == '"':
                i += 1
                while i < n and text[i] != '"':
                    i += 2 if text[i] == "\\" else 1
            elif (ch == "#" or ch == "!") and i > 0:
                m = _ALIAS_REF.match(text, i + 1)
                if m is not None and not text.startswith("<", m.end()):
                    name = m.group(0)
                    value = (self.attr_aliases.get(name) if ch == "#"
                             else self.type_aliases.get(name))
                    if value is not None and value is not LOCATION:
                        out.append(text[last:i])
                        out.append(attr_text(value))
                        last = m.end()
                    i = m.end()
                    continue
            i += 1
        if not out:
            return text
        out.append(text[last:])
        return "".join(out)

    cdef int refuse_builtin_attr(self) except -1:
        """MLIR's builtin attributes that accy has no value for: a clear error, not 'bad type'."""
        cdef Py_ssize_t p = self.pos
        while p < self.end and is_ident_char(self.s[p]) and self.s[p] != b'-':
            p += 1
        word = PyBytes_FromStringAndSize(self.s + self.pos, p - self.pos).decode()
        if word in _UNSUPPORTED_ATTRS and p < self.end and self.s[p] in b'<[(':
            self.error(f"{_UNSUPPORTED_ATTRS[word]} ({word}{chr(self.s[p])}...) are not "
                       f"supported")
        return 0

    cdef object parse_dense_array(self):
        """`array<i64: 1, 2>` or `array<i64>` (empty)."""
        cdef Py_ssize_t start = self.pos
        self.pos += 5
        self.expect(b'<', "'<' after array")
        self.skip_ws()
        cdef Py_ssize_t tpos = self.pos
        etype = self.ident("an element type").decode()
        if etype not in ARRAY_ELEMENT_TYPES:
            self.error(f"a dense array's element type is one of "
                       f"{', '.join(ARRAY_ELEMENT_TYPES)}, not '{etype}'", tpos)
        items = []
        if self.accept(b':'):
            while True:
                items.append(self.dense_literal())
                if not self.accept(b','):
                    break
        self.expect(b'>', "',' or '>' in array<...>")
        if any(isinstance(x, list) for x in items):
            self.error("a dense array is flat: array<i64: 1, 2>", start)
        try:
            return DenseArrayAttr(_array_values(items, etype), etype)
        except (ValueError, TypeError, OverflowError) as e:
            self.error(f"bad dense array: {e}", start)

    cdef list bracket_list(self, bint dense):
        """`[item, ...]` of attributes, or of dense<...> literal elements."""
        self.pos += 1
        cdef list items = []
        if self.accept(b']'):
            return items
        while True:
            items.append(self.dense_literal() if dense else self.parse_attr())
            if self.accept(b']'):
                return items
            self.expect(b',', "',' or ']'")

    cdef object parse_number(self):
        self.skip_ws()
        cdef Py_ssize_t start = self.pos, p = self.pos
        cdef bint is_float = False, is_hex = False
        if p < self.end and self.s[p] == b'-':
            p += 1
        if p + 1 < self.end and self.s[p] == b'0' and self.s[p + 1] in b'xX':
            is_hex = True
            p += 2
            while p < self.end and is_hex_digit(self.s[p]):
                p += 1
        else:
            while p < self.end and (is_digit(self.s[p]) or self.s[p] in b'.eE' or
                                    (self.s[p] in b'+-' and self.s[p - 1] in b'eE')):
                if self.s[p] in b'.eE':
                    is_float = True
                p += 1
        text = PyBytes_FromStringAndSize(self.s + start, p - start).decode()
        self.pos = p
        dtype = None
        if self.accept(b':'):
            self.skip_ws()
            dpos = self.pos
            dtext = self.ident("a dtype").decode()
            dtype = TEXT_DTYPES.get(dtext)
            if dtype is None:
                try:
                    dtype_from_text(dtext)
                except ValueError as e:
                    self.error(str(e), dpos)
        try:
            if is_hex:
                if text.startswith("-"):
                    raise ValueError("negative hex literal")
                bits = int(text, 16)
                if dtype in FLOAT_DTYPES:
                    return FloatAttr(None, dtype, bits=bits)
                value = bits
            elif is_float:
                if dtype is not None and dtype not in FLOAT_DTYPES:
                    raise ValueError(f"a float literal cannot have dtype {dtype}")
                return FloatAttr(float(text), dtype or "f64")
            else:
                value = int(text)
                if dtype in FLOAT_DTYPES:
                    return FloatAttr(float(value), dtype)
            if dtype is None:
                return check_attribute(value)
            return IntAttr(value, dtype)
        except (ValueError, OverflowError) as e:
            self.error(f"bad number '{text}': {e}", start)

    cdef object parse_dense(self):
        cdef Py_ssize_t start = self.pos
        self.pos += 5
        self.expect(b'<', "'<' after dense")
        cdef Py_ssize_t body = self.pos
        if self.peek() == b'"':
            payload = self.string_literal()
        elif self.peek() == b'>':
            payload = None                      # dense<>: no elements
        else:
            payload = self.dense_literal()
        self.expect(b'>', "'>' closing dense<...>")
        self.expect(b':', "': tensor<...>' after dense<...>")
        cdef Py_ssize_t tpos = self.pos
        t = self.parse_type_obj()
        if not isinstance(t, TensorType):
            self.error("a dense attribute needs a tensor type", tpos)
        dt = numpy_dtype(t.dtype)
        nbytes = t.num_elements * dt.itemsize
        if self.c.attribute_bytes + nbytes > self.c.capacity.max_attribute_bytes:
            raise CapacityError(f"dense<...> of {nbytes} bytes would exceed "
                                f"Capacity.max_attribute_bytes={self.c.capacity.max_attribute_bytes}")
        try:
            if payload is None:
                if t.num_elements:
                    raise ValueError(f"dense<> has no elements, the type {t.num_elements}")
                arr = np.zeros(t.shape, dtype=dt)
            elif type(payload) is str:
                if not payload.startswith("0x"):
                    raise ValueError("a string dense payload is hex: \"0x...\"")
                raw = bytes.fromhex(payload[2:])
                if t.dtype == "i1":                 # a byte per element, as MLIR writes it
                    arr = np.frombuffer(raw, dtype=np.uint8) != 0
                else:
                    arr = np.frombuffer(raw, dtype=dt)
                if arr.size == 1 and t.num_elements > 1:        # one element: a splat
                    arr = np.full(t.shape, arr[0], dtype=arr.dtype)
                elif arr.size != t.num_elements:
                    raise ValueError(f"hex payload holds {arr.size} elements, the type "
                                     f"{t.num_elements}")
                arr = arr.reshape(t.shape)
            else:
                arr = _dense_from_literal(payload, t, dt)
            return DenseAttr(arr, t.dtype)
        except (ValueError, TypeError, OverflowError) as e:
            self.error(f"bad dense attribute: {e}", body)

    cdef object dense_literal(self):
        """Nested lists of numbers/bools, as Python lists of (text or bool) leaves."""
        cdef char ch = self.peek()
        cdef Py_ssize_t start, p
        self.enter()
        try:
            if ch == b'[':
                return self.bracket_list(True)
            if self.at_keyword(b"true", 4):
                self.pos += 4
                return True
            if self.at_keyword(b"false", 5):
                self.pos += 5
                return False
            if ch == b'(':
                self.error("complex constants (dense<(re, im)>) are not supported")
            if is_ident_start(ch) or (ch == b'-' and self.pos + 1 < self.end and
                                      is_ident_start(self.s[self.pos + 1])):
                self.error("expected a number, true, false or '[' (MLIR writes inf and nan as "
                           "the hex bit pattern: 0x7F800000 is f32's inf, 0x7FC00000 a nan)")
            if ch == b'-' or is_digit(ch):
                start = self.pos
                p = self.pos + 1
                while p < self.end and (is_digit(self.s[p]) or self.s[p] in b'.eExXabcdefABCDEF'
                                        or (self.s[p] in b'+-' and self.s[p - 1] in b'eE')):
                    p += 1
                self.pos = p
                return _NumText(PyBytes_FromStringAndSize(self.s + start, p - start).decode())
            self.error("expected a number, true, false or '[' in dense<...>")
        finally:
            self.depth -= 1

    # -- locations (read and dropped: accy's IR keeps none) --
    cdef int parse_location(self) except -1:
        """`loc(...)` after an op, a block argument or in a `#name = loc(...)` alias."""
        self.skip_ws()
        self.pos += 3
        self.expect(b'(', "'(' after loc")
        self.location_body()
        self.expect(b')', "')' closing loc(...)")
        return 0

    cdef int location_body(self) except -1:
        cdef char ch = self.peek()
        cdef Py_ssize_t start = self.pos, p
        self.enter()
        try:
            if ch == b'#':
                p = self.symbol_name_end(start + 1)
                name = PyBytes_FromStringAndSize(self.s + start + 1, p - start - 1).decode()
                if not _ALIAS_NAME.match(name) or (p < self.end and self.s[p] == b'<'):
                    self.error("expected a location alias like #loc3", start)
                self.pos = p
                value = self.attr_aliases.get(name)
                if value is None:       # MLIR prints location aliases after their uses
                    self.loc_uses.setdefault(name, start)
                elif value is not LOCATION:
                    self.error(f"#{name} is an attribute, not a location", start)
            elif self.at_keyword(b"unknown", 7):
                self.pos += 7
            elif self.at_keyword(b"callsite", 8):
                self.pos += 8
                self.expect(b'(', "'(' after callsite")
                self.location_body()
                if not self.at_keyword(b"at", 2):
                    self.error("expected 'at' in callsite(callee at caller)")
                self.pos += 2
                self.location_body()
                self.expect(b')', "')' closing callsite(...)")
            elif self.at_keyword(b"fused", 5):
                self.pos += 5
                if self.accept(b'<'):
                    self.parse_attr()
                    self.expect(b'>', "'>' closing fused<...>")
                self.expect(b'[', "'[' after fused")
                if not self.accept(b']'):
                    while True:
                        self.location_body()
                        if self.accept(b']'):
                            break
                        self.expect(b',', "',' or ']' in fused[...]")
            elif ch == b'"':
                self.string_literal()
                if self.accept(b':'):               # "file":line[:col] [to [line][:col]]
                    self.location_number()
                    if self.accept(b':'):
                        self.location_number()
                    if self.at_keyword(b"to", 2):
                        self.pos += 2
                        if self.accept(b':'):
                            self.location_number()
                        else:
                            self.location_number()
                            if self.accept(b':'):
                                self.location_number()
                elif self.accept(b'('):             # "name"(child)
                    self.location_body()
                    self.expect(b')', "')' closing a name location's child")
            else:
                self.error("expected a location: unknown, \"file\":line:column, \"name\", "
                           "\"name\"(location), callsite(... at ...), fused[...] or #alias")
        finally:
            self.depth -= 1
        return 0

    cdef int location_number(self) except -1:
        self.skip_ws()
        cdef Py_ssize_t p = self.pos
        while p < self.end and is_digit(self.s[p]):
            p += 1
        if p == self.pos:
            self.error("expected a line or column number")
        self.pos = p
        return 0

    cdef int parse_alias_definition(self) except -1:
        """`#name = attribute`, `#name = loc(...)` or `!name = type`, at the top level."""
        cdef Py_ssize_t start = self.pos
        cdef char sigil = self.s[start]
        cdef Py_ssize_t p = self.symbol_name_end(start + 1)
        name = PyBytes_FromStringAndSize(self.s + start + 1, p - start - 1).decode()
        if not name or not is_ident_start(self.s[start + 1]):
            self.error(f"expected an alias name after '{chr(sigil)}'", start)
        if "." in name:
            self.error(f"an alias name has no '.' (those name dialect "
                       f"{'attributes' if sigil == b'#' else 'types'}): {chr(sigil)}{name}",
                       start)
        self.pos = p
        self.expect(b'=', f"'=' after {chr(sigil)}{name} (an alias definition)")
        if sigil == b'!':
            if name in self.type_aliases:
                self.error(f"redefinition of type alias !{name}", start)
            self.type_aliases[name] = self.parse_type_obj()
            return 0
        if name in self.attr_aliases:
            self.error(f"redefinition of attribute alias #{name}", start)
        if self.at_keyword(b"loc", 3):
            self.parse_location()
            value = LOCATION
        else:
            value = self.parse_attr()
            if name in self.loc_uses:
                self.error(f"#{name} is used as a location but defined as an attribute", start)
        self.attr_aliases[name] = value
        self.loc_uses.pop(name, None)
        return 0

    cdef dict parse_attr_dict(self):
        """`{name = attr, ...}` (a bare name means `= unit`)."""
        self.expect(b'{', "'{'")
        cdef dict out = {}
        if self.accept(b'}'):
            return out
        while True:
            self.skip_ws()
            kpos = self.pos
            if self.peek() == b'"':
                key = self.string_literal()
            else:
                key = self.ident("an attribute name").decode()
            if key in out:
                self.error(f"duplicate attribute '{key}'", kpos)
            if self.accept(b'='):
                out[key] = self.parse_attr()
            else:
                out[key] = UNIT
            if self.accept(b'}'):
                return out
            self.expect(b',', "',' or '}' in an attribute dictionary")

    # -- values --
    cdef int32_t use_value(self, bytes name, Py_ssize_t at) except -2:
        found = self.names.get(name)
        if found is not None:
            return found
        if name.endswith(b"#0"):            # `%v#0` also names the single result `%v`
            found = self.names.get(name[:-2])
            if found is not None:
                return found
        fwd = self.forward.get(name)
        if fwd is not None:
            return fwd[0]
        cdef int32_t ph = new_placeholder(self.c, -1)
        self.forward[name] = (ph, at)
        return ph

    cdef int define(self, bytes name, int32_t value, Py_ssize_t at) except -1:
        cdef dict scope = self.scopes[-1]
        if name in scope:
            self.error(f"redefinition of value {name.decode()}", at)
        fwd = self.forward.get(name) if self.forward else None
        if fwd is not None:
            ph = fwd[0]
            t = VAL(self.c, ph).type
            if t >= 0 and t != VAL(self.c, value).type:
                self.error(f"{name.decode()} is defined with type "
                           f"{self.c.type_str(VAL(self.c, value).type)} but used as "
                           f"{self.c.type_str(t)}", at)
            del self.forward[name]
            replace_all_uses(self.c, ph, value)
            free_placeholder(self.c, ph)
        scope[name] = self.names.get(name)
        self.names[name] = value
        return 0

    cdef void pop_scope(self):
        cdef dict scope = self.scopes.pop()
        for name, prev in reversed(scope.items()):
            if prev is None:
                del self.names[name]
            else:
                self.names[name] = prev

    # -- ops, blocks, regions --
    cdef int32_t op_name_id(self, bytes raw, Py_ssize_t at) except -1:
        found = self.opname_cache.get(raw)
        if found is not None:
            return found
        try:
            nid = self.c.name_id(raw.decode("utf-8"))
        except AccyError as e:
            self.error(str(e), at)
        except UnicodeDecodeError:
            self.error("operation name is not valid UTF-8", at)
        self.opname_cache[raw] = nid
        return nid

    cdef int parse_op(self, int32_t block) except -1:
        """One op, appended to `block` (-1: top level)."""
        cdef list res_names = None       # [(name, position, count)]
        cdef Py_ssize_t name_pos, i, k, n_results = 0, count
        cdef Py_ssize_t start = self.pos
        if self.peek() == b'%':
            res_names = []
            while True:
                npos = self.pos
                name = self.value_name()
                if b'#' in name:
                    self.error("a result name cannot contain '#'", npos)
                count = self.small_int() if self.accept(b':') else 1
                if n_results + count > 65535:
                    self.error("an operation has at most 65535 results", npos)
                res_names.append((name, npos, count))
                n_results += count
                if not self.accept(b','):
                    break
            self.expect(b'=', "'=' after result names")
        self.skip_ws()
        name_pos = self.pos
        cdef bint generic = self.pos < self.end and self.s[self.pos] == b'"'
        if generic:
            raw = self.string_literal().encode("utf-8")
        else:
            raw = self.ident("an operation name")
        cdef int32_t nid = self.op_name_id(raw, name_pos)
        cdef _Ids ids = self.ids         # a stack: nested ops (in regions) push above `base`
        cdef Py_ssize_t base = ids.n
        if generic:
            self.expect(b'(', "'(' after the operation name")
            if not self.accept(b')'):
                while True:
                    self.operand(ids)
                    if self.accept(b')'):
                        break
                    self.expect(b',', "',' or ')' in the operand list")
            if self.peek() == b'[':
                self.error("block successors are not supported")
        elif self.peek() == b'%' and not self.at_result_list():
            while True:
                self.operand(ids)
                if not self.accept(b','):
                    break
        cdef Py_ssize_t n_ops = ids.n - base
        cdef dict attrs = None
        cdef list props = None
        if self.accept2(b'<', b'{'):
            self.pos -= 1
            attrs = self.parse_attr_dict()
            self.expect(b'>', "'>' closing the properties")
            if attrs and self.c.op_defs[nid] is None:     # unregistered: keep which they were
                props = list(attrs)
        cdef list regions = None
        if generic and self.peek() == b'(':
            regions = self.parse_region_list(block >= 0 or raw != b"builtin.module")
        if self.peek() == b'{':
            extra = self.parse_attr_dict()
            if attrs is None:
                attrs = extra
            else:
                for k2, a in extra.items():
                    if k2 in attrs:
                        self.error(f"attribute '{k2}' given twice")
                    attrs[k2] = a
        cdef object op_attrs = attrs if props is None else PropertyDict(attrs, props)
        cdef Py_ssize_t n_types = 0
        cdef int32_t t
        cdef ValueRec* vr
        if generic:
            self.expect(b':', "':' and the function type of the operation")
            self.expect(b'(', "'(' and the operand types")
            if not self.accept(b')'):
                while True:
                    self.skip_ws()
                    tpos = self.pos
                    t = self.parse_type()
                    if n_types < n_ops:
                        vr = VAL(self.c, ids.p[base + n_types])
                        if vr.kind == VALUE_PLACEHOLDER and vr.type < 0:
                            vr.type = t
                        elif vr.type != t:
                            self.error(f"operand #{n_types} has type {self.c.type_str(vr.type)}, "
                                       f"not {self.c.type_str(t)}", tpos)
                    n_types += 1
                    if self.accept(b')'):
                        break
                    self.expect(b',', "',' or ')' in a type list")
            if n_types != n_ops:
                self.error(f"{n_ops} operands but {n_types} operand types", name_pos)
            if not self.accept2(b'-', b'>'):
                self.error("expected '->' and result types")
            if self.peek() == b'(':
                self.pos += 1
                if not self.accept(b')'):
                    while True:
                        ids.push(self.parse_type())
                        if self.accept(b')'):
                            break
                        self.expect(b',', "',' or ')' in a type list")
            else:
                ids.push(self.parse_type())
        elif self.accept(b':'):
            while True:
                ids.push(self.parse_type())
                if not self.accept(b','):
                    break
        if not generic and self.peek() == b'(':
            regions = self.parse_region_list(block >= 0 or raw != b"builtin.module")
        if self.at_keyword(b"loc", 3):
            self.parse_location()
        if n_results != ids.n - base - n_ops:
            self.error(f"{n_results} result names but {ids.n - base - n_ops} result types", start)
        cdef Py_ssize_t n_regions = len(regions) if regions is not None else 0
        cdef int32_t op = create_op(self.c, nid, ids.p + base, <int32_t>n_ops,
                                    ids.p + base + n_ops, <int32_t>n_results,
                                    <int32_t>n_regions, op_attrs)
        ids.n = base
        if block >= 0:
            append_op(self.c, op, block)
        else:
            self.top_ops.append(op_handle(self.c, op))
        if regions is not None:
            for i in range(n_regions):
                for b in regions[i]:
                    append_block(self.c, b, OP(self.c, op).regions + i)
        if res_names is None:
            return 0
        cdef int32_t r0 = OP(self.c, op).results
        k = 0
        for name, npos, count in res_names:
            self.define(name, r0 + k, npos)           # `%a` also names a group's first result
            if count > 1:
                for i in range(count):
                    self.define(name + b"#" + str(i).encode(), r0 + k + i, npos)
            elif self.forward and name + b"#0" in self.forward:
                self.define(name + b"#0", r0 + k, npos)   # a forward `%a#0` named it
            k += count
        return 0

    cdef bint at_result_list(self) except -1:
        """True when the `%names` ahead are the next op's results (`%a, %b:2 = ...`), not
        operands of a pretty-form op that has none. Scans without consuming."""
        cdef Py_ssize_t p = self.pos, end = self.end
        cdef const char* s = self.s
        while True:
            if p >= end or s[p] != b'%':
                return False
            p += 1
            while p < end and is_ident_char(s[p]):
                p += 1
            while p < end and s[p] in b' \t\r\n':
                p += 1
            if p < end and s[p] == b':':          # a result group `%x:2`
                p += 1
                while p < end and s[p] in b' \t\r\n':
                    p += 1
                if p >= end or not is_digit(s[p]):
                    return False
                while p < end and is_digit(s[p]):
                    p += 1
                while p < end and s[p] in b' \t\r\n':
                    p += 1
            if p < end and s[p] == b',':
                p += 1
                while p < end and s[p] in b' \t\r\n':
                    p += 1
                continue
            return p < end and s[p] == b'='

    cdef int operand(self, _Ids ids) except -1:
        self.skip_ws()
        cdef Py_ssize_t at = self.pos
        ids.push(self.use_value(self.value_name(), at))
        return 0

    cdef Py_ssize_t small_int(self) except -1:
        self.skip_ws()
        cdef Py_ssize_t start = self.pos, p = self.pos
        while p < self.end and is_digit(self.s[p]) and p - start < 7:
            p += 1
        if p == start:
            self.error("expected a count")
        self.pos = p
        cdef Py_ssize_t n = int(PyBytes_FromStringAndSize(self.s + start, p - start))
        if n < 1:
            self.error("a result group has at least one result", start)
        return n

    cdef list parse_region_list(self, bint counted):
        self.expect(b'(', "'('")
        cdef list regions = []
        while True:
            regions.append(self.parse_region(counted))
            if self.accept(b')'):
                return regions
            self.expect(b',', "',' or ')' after a region")

    cdef list parse_region(self, bint counted):
        """`{ blocks }` -> list of detached block ids (kept in loose_blocks until attached).
        Nesting is bounded; the region of a top-level module does not count, so that wrapping
        top-level ops in a module (as printing does) never pushes text over the limit."""
        self.region_depth += counted
        if self.region_depth > MAX_REGION_DEPTH:
            self.error(f"nesting too deep: regions nested more than {MAX_REGION_DEPTH} levels")
        self.expect(b'{', "'{' opening a region")
        self.scopes.append({})
        cdef list blocks = []
        cdef dict labels = {}
        cdef int32_t b
        try:
            if self.peek() == b'}':
                self.pos += 1
                return blocks
            if self.peek() != b'^':
                b = self.new_block(blocks)
                self.parse_block_body(b)
            while self.peek() == b'^':
                b = self.parse_block_header(blocks, labels)
                self.parse_block_body(b)
            self.expect(b'}', "'}' closing the region (or another operation)")
            return blocks
        finally:
            self.pop_scope()
            self.region_depth -= counted

    cdef int32_t new_block(self, list blocks) except -1:
        cdef int32_t b = create_block(self.c, NULL, 0)
        self.loose_blocks.append((b, BLK(self.c, b).gen))
        blocks.append(b)
        return b

    cdef int32_t parse_block_header(self, list blocks, dict labels) except -1:
        cdef Py_ssize_t at = self.pos
        self.pos += 1
        label = self.ident("a block label")
        if label in labels:
            self.error(f"redefinition of block ^{label.decode()}", at)
        cdef int32_t b = self.new_block(blocks)
        labels[label] = b
        cdef int32_t v
        if self.accept(b'('):
            if not self.accept(b')'):
                while True:
                    self.skip_ws()
                    npos = self.pos
                    name = self.value_name()
                    if b'#' in name:
                        self.error("an argument name cannot contain '#'", npos)
                    self.expect(b':', "':' and the argument type")
                    v = add_argument(self.c, b, self.parse_type())
                    self.define(name, v, npos)
                    if self.at_keyword(b"loc", 3):
                        self.parse_location()
                    if self.accept(b')'):
                        break
                    self.expect(b',', "',' or ')' in block arguments")
        self.expect(b':', "':' after the block label")
        return b

    cdef int parse_block_body(self, int32_t b) except -1:
        cdef char ch
        while True:
            ch = self.peek()
            if ch == b'}' or ch == b'^' or ch == 0:
                return 0
            self.parse_op(b)

    cdef object parse_top(self):
        cdef char ch
        while True:
            ch = self.peek()
            if ch == 0:
                break
            if ch == b'#' or ch == b'!':
                self.parse_alias_definition()
            elif ch == b'{' and self.pos + 1 < self.end and self.s[self.pos + 1] == b'-':
                self.error("file metadata ({-# ... #-}: dialect resources) is not supported")
            else:
                self.parse_op(-1)
        if self.loc_uses:
            name, at = min(self.loc_uses.items(), key=lambda kv: kv[1])
            self.error(f"undefined location alias #{name}", at)
        if self.forward:
            name, (ph, at) = min(self.forward.items(), key=lambda kv: kv[1][1])
            self.error(f"use of undefined value {name.decode()}", at)
        if len(self.top_ops) == 1 and (<Operation>self.top_ops[0]).name == "builtin.module":
            return as_module(self.c, (<Operation>self.top_ops[0]).id)
        module = Module.create(self.c)
        body = module.body
        for op in self.top_ops:
            op.move_to_end(body)
        self.top_ops = [module]         # what cleanup() erases if verification fails
        return module

    cdef void cleanup(self):
        """Undo everything this parse created (after an error)."""
        cdef Context c = self.c
        cdef Operation h
        for h in self.top_ops:
            if OP(c, h.id).name >= 0 and OP(c, h.id).gen == h.gen:
                erase_op(c, h.id, True)
        for b, gen in self.loose_blocks:
            if BLK(c, b).live and BLK(c, b).gen == gen and BLK(c, b).region < 0:
                erase_block(c, b, True)
        for name, (ph, at) in self.forward.items():
            if VAL(c, ph).kind == VALUE_PLACEHOLDER:
                drop_uses_of(c, ph)
                free_placeholder(c, ph)


class _NumText(str):
    """A number's text inside dense<...> (kept as text to convert with the target dtype)."""


def _dense_from_literal(payload, t, dt):
    def shape_of(x):
        if isinstance(x, list):
            inner = {shape_of(y) for y in x} if x else {()}
            if len(inner) != 1:
                raise ValueError("ragged nested lists")
            return (len(x),) + inner.pop()
        return ()

    def flatten(x, out):
        if isinstance(x, list):
            for y in x:
                flatten(y, out)
        else:
            out.append(x)
        return out

    shape = shape_of(payload)
    if shape != () and shape != t.shape:
        raise ValueError(f"literal has shape {shape}, the type {t.shape}")
    flat = flatten(payload, [])
    if t.dtype in FLOAT_DTYPES:
        arr = _float_leaves(flat, t.dtype)
    elif t.dtype == "i1":
        arr = np.array([_bool_leaf(x) for x in flat], dtype=bool)
    else:
        info = np.iinfo(dt)
        values = [int(x) if isinstance(x, bool) else int(x, 0) for x in flat]
        for x in values:
            if not info.min <= x <= info.max:
                raise ValueError(f"{x} does not fit in {t.dtype}")
        arr = np.array(values, dtype=dt)
    if shape == ():
        return np.full(t.shape, arr[0], dtype=arr.dtype)
    return arr.reshape(t.shape)


def _bool_leaf(x):
    if isinstance(x, bool):
        return x
    if x in ("0", "1"):
        return x == "1"
    raise ValueError(f"an i1 element is true or false, not {x}")


def _float_leaves(list flat, str dtype):
    """Leaves (number texts) as a 1-d array of float `dtype`: decimals rounded once, hex
    integers taken as the element's bit pattern (how MLIR writes nan and inf: 0xFF800000)."""
    cdef Py_ssize_t k, n = len(flat)
    cdef int width = _FLOAT_BITS[dtype]
    values = np.zeros(n, dtype=np.float64)
    patterns = []
    for k in range(n):
        x = flat[k]
        if isinstance(x, bool):
            raise ValueError(f"{'true' if x else 'false'} is not a {dtype} value")
        text = str(x)
        if text[:2] in ("0x", "0X"):
            bits = int(text, 16)
            if bits >> width:
                raise ValueError(f"hex float {text} does not fit in {dtype}")
            patterns.append((k, bits))
        elif text[:3] in ("-0x", "-0X"):
            raise ValueError(f"a hex float is the element's bit pattern, its sign bit included: "
                             f"{text} has a '-'")
        else:
            values[k] = float(text)
    arr = round_float(values, dtype)
    if patterns:
        words = arr.view(_UINT_OF_BITS[width]).copy()
        for k, bits in patterns:
            words[k] = bits
        arr = words.view(arr.dtype)
    return arr


def _array_values(list items, str etype):
    """array<etype: ...>'s leaves as what DenseArrayAttr takes."""
    if etype == "i1":
        return [_bool_leaf(x) for x in items]
    if etype in FLOAT_DTYPES:
        return _float_leaves(items, etype)
    for x in items:
        if isinstance(x, bool):
            raise ValueError(f"{'true' if x else 'false'} is not a {etype} value")
    return [int(x, 0) for x in items]


# ---- type text --------------------------------------------------------------------------------

_ALIAS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")     # no '.': those name dialects
# MLIR's builtin types that are not tensors, and why accy has none of them
_NOT_TENSORS = {"vector": "vector types", "memref": "memref types", "tuple": "tuple types",
                "complex": "complex types", "none": "the none type", "index": "the index type"}


def type_from_text(str text, int depth=0, dict aliases=None):
    """Parse one type's complete text; `!name` is looked up in `aliases` (name -> Type)."""
    if depth > MAX_DEPTH:
        raise _TypeTextError(f"nesting too deep: more than {MAX_DEPTH} levels")
    text = text.strip()
    if text.startswith("tensor<"):
        return _tensor_type(text)
    if text.startswith("("):
        i = _group_end(text, 0)
        inputs = _split_types(text[1:i - 1], depth + 1, aliases)
        rest = text[i:].strip()
        if not rest.startswith("->"):
            raise _TypeTextError("expected '->' in a function type")
        rest = rest[2:].strip()
        if rest.startswith("(") and _group_end(rest, 0) == len(rest):
            results = _split_types(rest[1:-1], depth + 1, aliases)
        else:
            results = [type_from_text(rest, depth + 1, aliases)]
        return FunctionType(inputs, results)
    if text.startswith("!"):
        if _ALIAS_NAME.match(text, 1):
            if aliases is not None and text[1:] in aliases:
                return aliases[text[1:]]
            raise _TypeTextError(f"undefined type alias '{text}' (an alias is defined before "
                                 f"its first use: '{text} = type' at the top level)")
        return OpaqueType(text)
    keyword = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text)
    if keyword and keyword.group(0) in TYPE_KINDS:
        return TYPE_KINDS[keyword.group(0)](text)
    if keyword and (keyword.group(0) in _NOT_TENSORS or keyword.group(0) in TEXT_DTYPES or
                    re.fullmatch(r"(ui|si|i|f)[0-9]+|bf16|tf32", keyword.group(0))):
        what = _NOT_TENSORS.get(keyword.group(0), "scalar types")
        raise _TypeTextError(f"{what} ('{text}') are not supported: accy's values are static "
                             f"tensors "
                             f"(tensor<...>)" + (f", e.g. tensor<{text}>"
                                                  if keyword.group(0) in TEXT_DTYPES else ""))
    raise _TypeTextError(f"unknown type '{text}'")


def _tensor_type(str text):
    """`tensor<2x3xf32>`: static dims, an element type accy has, no encoding."""
    if _group_end(text, 6) != len(text):
        raise _TypeTextError(f"'{text}' is not a tensor type")
    body = text[7:-1].strip()
    dims = []
    cdef Py_ssize_t i = 0, j, n = len(body)
    while True:
        j = i
        while j < n and "0" <= body[j] <= "9":
            j += 1
        if j > i and j < n and body[j] == "x":
            dims.append(int(body[i:j]))
            i = j + 1
            continue
        if body.startswith("?", i):
            raise _TypeTextError(f"dynamic shapes are not supported: '{text}' has a dynamic "
                                 f"dimension (accy's tensors have static shapes)")
        if body.startswith("*", i):
            raise _TypeTextError(f"dynamic shapes are not supported: '{text}' is unranked "
                                 f"(accy's tensors have static shapes)")
        break
    element = body[i:].strip()
    if _top_level_comma(element) >= 0:
        raise _TypeTextError(f"tensor encodings are not supported ('{text}')")
    try:
        dtype = dtype_from_text(element)
    except ValueError as e:
        raise _TypeTextError(f"{e} in '{text}'") from None
    return TensorType(dtype, dims)


def _group_end(str text, Py_ssize_t i):
    """Index after the bracket group opening at text[i] (accy._core.types.body_end's rules)."""
    try:
        return body_end(text, i)
    except ValueError as e:
        raise _TypeTextError(f"{e} in '{text}'") from None


def _top_level_comma(str text):
    """Index of the first ',' outside brackets and strings, or -1."""
    cdef Py_ssize_t i = 0, n = len(text)
    while i < n:
        ch = text[i]
        if ch == ",":
            return i
        if ch in "<([{":
            i = _group_end(text, i)
            continue
        if ch == '"':
            raise _TypeTextError(f"unexpected string in '{text}'")
        i += 1
    return -1


def _nesting(str text):
    """Deepest bracket nesting in a type's text (bounds the recursion of type_from_text)."""
    depth = deepest = 0
    for i, ch in enumerate(text):
        if ch in "(<":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")>" and not (ch == ">" and i > 0 and text[i - 1] == "-"):
            depth -= 1
    return deepest


def _split_types(str text, int depth, dict aliases):
    text = text.strip()
    if not text:
        return []
    out = []
    while True:
        i = _top_level_comma(text)
        if i < 0:
            out.append(type_from_text(text, depth, aliases))
            return out
        out.append(type_from_text(text[:i], depth, aliases))
        text = text[i + 1:]


def parse(text, Context context=None, *, verify=True):
    """Parse accy or MLIR generic text into a Module. Top-level ops that are not a single
    `builtin.module` are wrapped in one. On any error nothing is left in the Context."""
    if context is None:
        context = Context()
    if isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ParseError(f"the text is not valid Unicode ({e.reason} at character "
                             f"{e.start})") from None
    elif isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
        if not data.isascii():      # (ASCII is UTF-8: no need to decode it to know)
            decode_text(data)       # the parser reads the bytes; this only finds a bad offset
    else:
        raise TypeError("parse() takes str or bytes")
    if b"\x00" in data:
        pos = data.index(b"\x00")
        p = Parser(context, data)
        p.error("NUL byte in the input", pos)
    cdef Parser parser = Parser(context, data)
    try:
        module = parser.parse_top()
        if verify:
            module.verify()
        return module
    except BaseException:
        parser.cleanup()
        raise
