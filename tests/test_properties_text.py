"""Property tests of the text forms: random valid modules built through the API print, parse back
and print again to the same text (pretty and generic), keep their fingerprint and attributes, and
clone (in the same or a fresh Context) to the same text. Float attributes round-trip bit-exactly:
random f32/f64 patterns, and every f16/bf16 pattern."""
import math
import operator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings, strategies as st

from accy.ir import (UNIT, AccyError, Builder, Context, DenseArrayAttr, DenseAttr, DictAttr,
                     FloatAttr, FunctionType, IntAttr, Module, OpaqueAttr, OpaqueType,
                     PropertyDict, SymbolRefAttr, TensorType, DTYPES, numpy_dtype, parse)
from accy._core.attributes import ARRAY_ELEMENT_TYPES
from accy._core.text import escape_string

INT_RANGES = {"i64": (-2**63, 2**63 - 1), "i32": (-2**31, 2**31 - 1), "i16": (-2**15, 2**15 - 1),
              "i8": (-128, 127), "u8": (0, 255), "i1": (0, 1)}
FLOAT_BITS = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}
EXP_MASK = {"f64": 0x7FF0000000000000, "f32": 0x7F800000, "f16": 0x7C00, "bf16": 0x7F80}


def new_ctx():
    return Context(allow_unregistered=True)


# ---- strategies --------------------------------------------------------------------------------

idents = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
op_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_$]{0,4}\.[A-Za-z0-9_$.\-]{1,6}", fullmatch=True)
# strings: anything unicode, with the characters that need escaping made frequent
nasty_chars = st.sampled_from('"\\\n\t\r\x00\x01\x1f\x7f\x80é€😀 {}[]<>=,:@%^#')
strings = st.text(st.characters(codec="utf-8") | nasty_chars, max_size=12)
keys = idents | strings

tensor_types = st.builds(TensorType, st.sampled_from(sorted(DTYPES)),
                         st.lists(st.integers(0, 4), max_size=3))
opaque_types = st.from_regex(r"![a-z]{1,3}\.[a-z_]{1,4}(<[0-9x]{1,5}>)?", fullmatch=True).map(
    OpaqueType)
types = st.recursive(tensor_types | opaque_types,
                     lambda inner: st.builds(FunctionType, st.lists(inner, max_size=2),
                                             st.lists(inner, max_size=2)), max_leaves=5)


def bits_of(dtype):
    """Bit patterns of `dtype`: any, with inf/nan payloads and subnormals made frequent."""
    n, exp = FLOAT_BITS[dtype], EXP_MASK[dtype]
    magnitude = (st.integers(0, (1 << (n - 1)) - 1) | st.integers(exp, (1 << (n - 1)) - 1)
                 | st.integers(0, 0xFF))
    return st.builds(operator.or_, st.sampled_from([0, 1 << (n - 1)]), magnitude)


float_attrs = st.sampled_from(sorted(FLOAT_BITS)).flatmap(
    lambda d: bits_of(d).map(lambda b: FloatAttr(None, d, bits=b)))


def float_of_value(x, dtype):
    """FloatAttr(x, dtype); values out of the dtype's range (refused) become infinities."""
    try:
        return FloatAttr(x, dtype)
    except ValueError:
        return FloatAttr(math.copysign(math.inf, x), dtype)


float_values = st.builds(float_of_value, st.floats(), st.sampled_from(sorted(FLOAT_BITS)))
int_attrs = st.sampled_from(sorted(INT_RANGES)).flatmap(
    lambda d: st.integers(*INT_RANGES[d]).map(lambda v: IntAttr(v, d)))


@st.composite
def dense_attrs(draw):
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    n, dt = math.prod(shape), numpy_dtype(dtype)
    kind = draw(st.sampled_from(["bytes", "small", "splat"]))
    if dtype == "i1":
        arr = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    elif kind == "bytes":      # arbitrary bit patterns (nan payloads, -0.0, subnormals, ...)
        arr = np.frombuffer(draw(st.binary(min_size=n * dt.itemsize, max_size=n * dt.itemsize)),
                            dtype=dt)
    else:
        arr = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.int64)
        arr = np.abs(arr).astype(dt) if dtype == "u8" else arr.astype(dt)
    if kind == "splat" and n:
        arr = np.full(n, arr[0], dtype=arr.dtype)
    return DenseAttr(arr.reshape(shape), dtype)


@st.composite
def dense_arrays(draw):
    """array<T: ...> of any element type MLIR has; floats of any bit pattern."""
    etype = draw(st.sampled_from(sorted(ARRAY_ELEMENT_TYPES)))
    n = draw(st.integers(0, 4))
    dt = DenseArrayAttr([], etype).array.dtype
    if etype == "i1":
        return DenseArrayAttr(draw(st.lists(st.booleans(), min_size=n, max_size=n)), etype)
    if dt.kind == "f" or etype == "bf16":
        raw = draw(st.binary(min_size=n * dt.itemsize, max_size=n * dt.itemsize))
        return DenseArrayAttr(np.frombuffer(raw, dtype=dt), etype)
    info = np.iinfo(dt)
    return DenseArrayAttr(draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=n,
                                        max_size=n)), etype)


# a dialect body: words, quoted strings (escapes and brackets inside), arrows and the four
# bracket kinds nested
body_words = (st.from_regex(r"[a-z0-9_ =,:.]{0,5}", fullmatch=True) | st.just(" -> ") |
              strings.map(escape_string))
bodies = st.recursive(body_words, lambda inner: st.builds(
    lambda pair, parts: pair[0] + "".join(parts) + pair[1],
    st.sampled_from(["<>", "()", "[]", "{}"]), st.lists(inner, max_size=3)), max_leaves=8)
opaque_attrs = st.builds(lambda name, body: OpaqueAttr(name + (f"<{body}>" if body is not None
                                                                else "")),
                         st.from_regex(r"#[a-z]{1,3}(\.[a-z_]{1,4})", fullmatch=True),
                         st.none() | bodies) | \
    st.builds(lambda name, body: OpaqueAttr(f"{name}<{body}>"),
              st.from_regex(r"#[a-z]{1,3}", fullmatch=True), bodies)

leaf_attrs = st.one_of(
    st.integers(-2**63, 2**63 - 1), int_attrs, float_attrs, float_values, strings,
    st.booleans(), st.just(UNIT), st.text(min_size=1, max_size=8).map(SymbolRefAttr),
    idents.map(SymbolRefAttr), types, dense_attrs(), dense_arrays(), opaque_attrs)
attributes = st.recursive(
    leaf_attrs, lambda inner: st.lists(inner, max_size=3).map(tuple) |
    st.dictionaries(keys, inner, max_size=3).map(DictAttr), max_leaves=6)
attr_dicts = st.dictionaries(keys, attributes, max_size=3)
# builtin.module's schema attribute (printed as a property) and others (printed in {...})
module_attrs = st.builds(lambda extra, name: {**{k: v for k, v in extra.items() if k != "sym_name"},
                                              **name},
                         attr_dicts, st.just({}) | strings.map(lambda s: {"sym_name": s}))


def fill_block(draw, ctx, block, visible, depth):
    """Append random ops to `block`; operands come from `visible` (values that dominate)."""
    visible = visible + list(block.arguments)
    b = Builder(ctx).at_end(block)
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["op", "op", "region", "module"]) if depth < 3 else
                    st.just("op"))
        if kind == "module":         # registered, isolated from above, prints <{sym_name}>
            op = b.create("builtin.module", attributes=draw(module_attrs))
            fill_block(draw, ctx, op.regions[0].add_block(), [], depth + 1)
            continue
        operands = draw(st.lists(st.sampled_from(visible), max_size=3)) if visible else []
        result_types = draw(st.lists(types, max_size=2))
        attrs = draw(attr_dicts)
        if attrs and draw(st.booleans()):         # some of them given as properties <{...}>
            attrs = PropertyDict(attrs, draw(st.lists(st.sampled_from(sorted(attrs)))))
        op = b.create(draw(op_names), operands, result_types, attrs,
                      regions=draw(st.integers(1, 2)) if kind == "region" else 0)
        for region in op.regions:
            for _ in range(draw(st.integers(0, 2))):
                block_args = draw(st.lists(types, max_size=2))
                fill_block(draw, ctx, region.add_block(block_args), visible, depth + 1)
        visible = visible + list(op.results)


@st.composite
def modules(draw):
    ctx = new_ctx()
    m = Module.create(ctx)
    for k, v in draw(module_attrs).items():
        m.set_attribute(k, v)
    fill_block(draw, ctx, m.body, [], 0)
    return m


# ---- properties -------------------------------------------------------------------------------

def all_attributes(m):
    return [(op.name, dict(op.attributes)) for op in m.walk()]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(modules())
def test_random_modules_round_trip(m):
    m.verify()
    pretty, generic = m.print(), m.print(generic=True)
    note(generic)
    for text, is_generic in ((pretty, False), (generic, True)):
        again = parse(text, new_ctx())
        assert again.print(generic=is_generic) == text
        assert again.print(generic=not is_generic) == (generic if not is_generic else pretty)
        assert again.fingerprint() == m.fingerprint()
        assert all_attributes(again) == all_attributes(m)
    assert parse(pretty, m.context).print() == pretty     # parsing next to the original
    assert m.clone().print() == pretty
    other = m.clone(new_ctx())
    assert other.print() == pretty and other.print(generic=True) == generic
    assert other.fingerprint() == m.fingerprint()


def float_round_trip(dtype, bits):
    """Put FloatAttr(bits) in attributes, print (both forms), parse, and compare bit patterns."""
    ctx = new_ctx()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    for start in range(0, len(bits), 4096):
        chunk = bits[start:start + 4096]
        b.create("t.f", (), [], {f"a{i}": FloatAttr(None, dtype, bits=int(x))
                                 for i, x in enumerate(chunk)})
    for generic in (False, True):
        text = m.print(generic=generic)
        ops = list(parse(text, new_ctx()).body)
        got = [(op.attributes[f"a{i}"].dtype, op.attributes[f"a{i}"].bits)
               for op in ops for i in range(len(op.attributes))]
        bad = [(hex(x), g) for x, g in zip(bits, got) if g != (dtype, int(x))]
        assert len(got) == len(bits) and not bad, f"{dtype} patterns not kept: {bad[:5]}"


@settings(max_examples=300, deadline=None)
@given(st.lists(bits_of("f32"), min_size=1, max_size=64))
def test_f32_bit_patterns_round_trip(bits):
    float_round_trip("f32", bits)


@settings(max_examples=300, deadline=None)
@given(st.lists(bits_of("f64"), min_size=1, max_size=64))
def test_f64_bit_patterns_round_trip(bits):
    float_round_trip("f64", bits)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_every_16bit_pattern_round_trips(dtype):
    everything = np.arange(1 << 16, dtype=np.uint16)
    float_round_trip(dtype, everything.tolist())
    # and as dense elements: raw chunks (hex form when any is nan/inf) and the finite ones
    # (decimal lists)
    ctx = new_ctx()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    for chunk in np.split(everything.view(numpy_dtype(dtype)), 64):
        with np.errstate(invalid="ignore"):
            finite = chunk[np.isfinite(chunk)]
        b.create("t.d", (), [], {"raw": DenseAttr(chunk, dtype),
                                 "finite": DenseAttr(finite, dtype)})
    text = m.print()
    again = parse(text, new_ctx())
    assert all_attributes(again) == all_attributes(m)
    assert again.print() == text


BAD_TEXT = "a\ud800b"      # a lone surrogate: a Python str, but no Unicode text (no UTF-8 form)


@pytest.mark.parametrize("where", ["value", "key", "symbol", "nested", "op name"])
def test_strings_that_are_not_unicode_text_are_refused_or_round_trip(where):
    """accy must refuse such a string where the IR holds text, or print it so that it parses
    back -- not accept it and then fail to print (or to report a verify error)."""
    ctx = new_ctx()
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    name = "t." + BAD_TEXT if where == "op name" else "t.s"
    make_attrs = {"value": lambda: {"s": BAD_TEXT}, "key": lambda: {BAD_TEXT: 1},
                  "op name": dict, "symbol": lambda: {"s": SymbolRefAttr(BAD_TEXT)},
                  "nested": lambda: {"s": (1, DictAttr({"k": BAD_TEXT}))}}[where]
    try:
        attrs = make_attrs()
        b.create(name, (), [], attrs)
    except (TypeError, ValueError, AccyError) as e:
        assert "not valid Unicode text" in str(e)    # refused up front, for the right reason
        return
    again = parse(m.print(), new_ctx()).body.first_op
    assert (again.name, dict(again.attributes)) == (name, attrs)
