"""The StableHLO corpus (tests/stablehlo/, JAX exports printed by MLIR; tools/stablehlo_corpus.py
regenerates it): every generic-form file parses as unregistered ops, and accy's generic print is
MLIR's text re-printed canonically -- values and blocks renumbered in order of appearance,
locations dropped (accy keeps none), and each literal MLIR spelled decoded here (with numpy) and
spelled as accy spells that value. Printing is a fixed point in both forms. Each case also has
its pretty form and its inputs and JAX's outputs (tests/stablehlo_cases.py), checked here
against the case's `main`."""
import pathlib
import re

import numpy as np
import pytest

from accy.ir import Context, DenseArrayAttr, DenseAttr, TensorType, parse
from accy._core.text import attr_text
from accy._core.types import TEXT_DTYPES, numpy_dtype, round_float

from stablehlo_cases import CORPUS, load_case, names

FILES = sorted(CORPUS.glob("*.generic.mlir"))    # the pretty NAME.mlir files are not read here
UINT = {64: np.uint64, 32: np.uint32, 16: np.uint16}
FLOAT_WIDTH = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}


def read(path):
    return parse(path.read_text(), Context(allow_unregistered=True))


def test_the_corpus_covers_the_forms_jax_prints():
    text = "".join(p.read_text() for p in FILES)
    assert len(FILES) >= 15
    for form in ("array<i64: ", "array<i64>", "#stablehlo<comparison_direction", "#stablehlo.dot<",
                 "#stablehlo.gather<", "#stablehlo.scatter<", 'dense<"0x', "dense<0xFF800000>",
                 "dense<0x7FC00000>", "xui8>", "xbf16>", "xi1>", "sym_visibility", "arg_attrs",
                 "res_attrs", "jax.result_info", "mhlo.num_partitions",
                 "jax.uses_shape_polymorphism",
                 "loc(callsite(", "loc(#loc", "#loc = loc(unknown)", ':2 = "stablehlo.'):
        assert form in text, form


# ---- the canonical re-print of MLIR's text ------------------------------------------------------

def skip_parens(text, i):
    """Index after the parenthesized group at text[i] ('('), strings skipped."""
    depth = 0
    while True:
        ch = text[i]
        if ch == '"':
            i = text.index('"', i + 1)
            while text[i - 1] == "\\":
                i = text.index('"', i + 1)
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1


def drop_locations(text):
    lines = [line for line in text.splitlines(keepends=True) if not line.startswith("#loc")]
    text, out, i = "".join(lines), [], 0
    while (j := text.find(" loc(", i)) >= 0:
        out.append(text[i:j])
        i = skip_parens(text, j + 4)
    return "".join(out) + text[i:]


def renumber(text):
    """Result groups `%x:2 = ` as `%x#0, %x#1 = `; then every value name and block label
    numbered in order of first appearance."""
    text = re.sub(r"(%[\w$.]+):(\d+) = ",
                  lambda m: ", ".join(f"{m.group(1)}#{k}" for k in range(int(m.group(2)))) + " = ",
                  text)
    names = {}
    return re.sub(r"%[\w$.]+(?:#\d+)?", lambda m: names.setdefault(m.group(0), f"%{len(names)}"),
                  text)


def decode_elements(body, dtype, shape):
    """A dense literal's body (MLIR's spelling) as a numpy array of `dtype` and `shape`."""
    dt = numpy_dtype(dtype)
    n = int(np.prod(shape))
    if body.startswith('"0x'):
        raw = bytes.fromhex(body[3:-1])
        arr = np.frombuffer(raw, np.uint8) != 0 if dtype == "i1" else np.frombuffer(raw, dt)
    else:
        arr = decode_list(re.findall(r"[-\w.+]+", body), dtype)
    return (np.full(n, arr[0]) if arr.size == 1 else arr).astype(dt).reshape(shape)


def decode_list(tokens, dtype):
    if dtype == "i1":
        return np.array([t == "true" for t in tokens])
    if dtype not in FLOAT_WIDTH:
        return np.array([int(t) for t in tokens], numpy_dtype(dtype))
    hexes = [t.startswith("0x") for t in tokens]
    arr = round_float(np.array([0.0 if h else float(t) for t, h in zip(tokens, hexes)]), dtype)
    bits = arr.view(UINT[FLOAT_WIDTH[dtype]]).copy()
    for k, (t, h) in enumerate(zip(tokens, hexes)):
        if h:
            bits[k] = int(t, 16)
    return bits.view(arr.dtype)


def respell_dense(m):
    body, dims, dtype = m.group(1), m.group(2), TEXT_DTYPES[m.group(3)]
    shape = tuple(int(d) for d in dims.split("x") if d)
    return attr_text(DenseAttr(decode_elements(body, dtype, shape), dtype))


def respell_array(m):
    etype, body = m.group(1), m.group(2) or ""
    tokens = re.findall(r"[-\w.+]+", body)
    if etype in FLOAT_WIDTH:
        return attr_text(DenseArrayAttr(decode_list(tokens, etype), etype))
    return attr_text(DenseArrayAttr([t == "true" if etype == "i1" else int(t) for t in tokens],
                                    etype))


def canonical(mlir_text):
    text = renumber(drop_locations(mlir_text))
    text = re.sub(r'dense<("0x[0-9A-F]*"|[^>]*)> : tensor<((?:\d+x)*)(\w+)>', respell_dense, text)
    return re.sub(r"array<(\w+)(?:: ([^>]*))?>", respell_array, text)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_generic_print_is_mlirs_text_reprinted(path):
    text = path.read_text()
    generic = read(path).print(generic=True)
    assert generic == canonical(text)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_both_forms_are_fixed_points(path):
    module = read(path)
    generic, pretty = module.print(generic=True), module.print()
    again = parse(generic, Context(allow_unregistered=True))
    assert again.print(generic=True) == generic and again.print() == pretty
    from_pretty = parse(pretty, Context(allow_unregistered=True))
    assert from_pretty.print() == pretty and from_pretty.print(generic=True) == generic
    assert from_pretty.fingerprint() == module.fingerprint()


@pytest.mark.parametrize("name", sorted({p.name.split(".")[0] for p in CORPUS.glob("*.loc.*")}))
def test_locations_are_read_and_dropped(name):
    with_locations = read(CORPUS / f"{name}.loc.generic.mlir")
    without = read(CORPUS / f"{name}.generic.mlir")
    assert with_locations.print(generic=True) == without.print(generic=True)
    assert "loc(" in (CORPUS / f"{name}.loc.generic.mlir").read_text()


def test_unregistered_ops_keep_properties_and_attributes_apart():
    module = read(CORPUS / "exported.generic.mlir")
    func = next(iter(module.body))
    assert func.name == "func.func" and func.attributes["sym_visibility"] == "public"
    assert module.attributes["jax.uses_shape_polymorphism"] is False
    assert module.attributes["mhlo.num_partitions"].value == 1
    generic = module.print(generic=True)
    assert '<{sym_name = "jit__lambda"}>' in generic          # builtin.module's schema
    assert "{jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32" in generic
    assert '"func.func"() <{function_type' in generic and "res_attrs = [{jax.result_info" in generic
    assert generic.count("<{") == (CORPUS / "exported.generic.mlir").read_text().count("<{")
    assert isinstance(func.attributes["function_type"].inputs[0], TensorType)


# ---- the cases: both forms, inputs and outputs --------------------------------------------------

def test_every_case_has_both_forms_and_its_arrays():
    files = {p.name for p in CORPUS.iterdir()}
    located = {name for name in files if ".loc." in name}
    assert len(names()) >= 20 and "softmax.loc.mlir" in located
    assert {name.replace(".loc.", ".") for name in located} <= files
    cases = {f"{name}{suffix}" for name in names() for suffix in (".mlir", ".generic.mlir", ".npz")}
    assert files == cases | located | {"exported.generic.mlir"}


def main_types(generic):
    module = parse(generic, Context(allow_unregistered=True))
    main = next(op for op in module.body if op.attributes["sym_name"] == "main")
    ftype = main.attributes["function_type"]
    return list(ftype.inputs), list(ftype.results)


def assert_arrays_match(types, arrays):
    assert len(types) == len(arrays)
    for t, a in zip(types, arrays):
        assert (tuple(t.shape), numpy_dtype(t.dtype)) == (a.shape, a.dtype)


@pytest.mark.parametrize("name", names())
def test_case_arrays_fit_main_and_are_drawn_sensibly(name):
    case = load_case(name)
    inputs, results = main_types(case.generic)
    assert_arrays_match(inputs, case.inputs)
    assert_arrays_match(results, case.outputs)
    for a in case.inputs:
        assert np.any(a != 0)
        if a.dtype == bool and a.size > 1:
            assert not a.all()
    finite = [np.isfinite(a.astype(np.float64)).all() for a in case.outputs]
    assert all(finite) if case.finite else not all(finite)


@pytest.mark.parametrize("name", names())
def test_pretty_form_is_jaxs_print_without_locations(name):
    case = load_case(name)
    assert case.pretty.startswith("module @jit_") and case.pretty.endswith("}\n")
    assert "loc(" not in case.pretty and '"func.func"' not in case.pretty
    assert case.pretty.count("func.func ") == case.generic.count('"func.func"')


def test_a_pretty_form_with_locations():
    text = (CORPUS / "softmax.loc.mlir").read_text()
    assert "#loc = loc(unknown)" in text and "loc(callsite(" in text
    assert drop_locations(text) == load_case("softmax").pretty
