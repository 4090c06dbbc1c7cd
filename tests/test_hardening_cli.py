"""Hostile or careless input to the `accy` command and the compile API: files land only where
asked, only the installed ptxas runs (and never forever), and every mistake is one clear
`accy: error:` line (or an accy error from the API), never a traceback."""
import os

import pytest

from accy.__main__ import main, output_stem


def function_ir(sym_name, shape="4x8"):
    """An IR module with one function `sym_name` (written as an IR string literal) doubling a
    tensor<SHAPExf32>."""
    t = f"tensor<{shape}xf32>"
    return ("builtin.module ({\n"
            f'  builtin.func <{{function_type = ({t}) -> {t}, sym_name = "{sym_name}"}}> ({{\n'
            f"  ^bb0(%a: {t}):\n"
            f"    %b = tensor.add %a, %a : {t}\n"
            "    builtin.return %b\n"
            "  })\n"
            "})\n")


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder)
                  for d, _, names in os.walk(folder) for f in names)


@pytest.mark.parametrize("sym_name", [
    "/tmp/accy-escape-absolute", "../escaped", "../../escaped", "a/../../b", "a/b", "..", ".",
    "", "-rf", ".hidden", "a\\00b", "a\\\\b", "x" * 400, "caf\u00e9 name",
])
def test_compile_writes_only_into_the_output_folder(sym_name, tmp_path, capsys):
    source = tmp_path / "f.mlir"
    source.write_text(function_ir(sym_name))
    out = tmp_path / "a" / "out"
    assert main(["compile", str(source), "-o", str(out)]) == 0, capsys.readouterr().err
    assert not os.path.exists("/tmp/accy-escape-absolute.ptx")
    written = files_under(tmp_path)
    assert "f.mlir" in written
    inside = [w for w in written if w != "f.mlir"]
    assert len(inside) == 2 and all(os.path.dirname(w) == os.path.join("a", "out")
                                    for w in inside), written
    stem = output_stem(sym_name.replace("\\00", "\0").replace("\\\\", "\\"))
    assert sorted(os.path.basename(w) for w in inside) == [stem + ".ptx", stem + ".report.txt"]


@pytest.mark.parametrize("name, stem", [
    ("main", "main"), ("layer_norm-2.v1", "layer_norm-2.v1"), ("../x", "_._x"), ("/abs", "_abs"),
    ("a\0b", "a_b"), ("", "main"), ("-o", "_o"), (".", "_"), ("a b\\c", "a_b_c"),
])
def test_output_stem_rule(name, stem):
    assert output_stem(name) == stem
    assert len(output_stem("n" * 1000)) == 200
