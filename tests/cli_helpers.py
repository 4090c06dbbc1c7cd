"""Helpers for tests of the `accy` command: `cli_error`, and `function_ir`, the text of a small IR
module to feed it (and `accy.compile`)."""
from accy.__main__ import main


def cli_error(capsys, *argv, one_line=False):
    """The stderr of `accy ARGV`, which must fail (exit 1) with an `accy: error:` message and no
    traceback; with `one_line`, a message of one line."""
    assert main(list(argv)) == 1
    err = capsys.readouterr().err
    assert err.startswith("accy: error: ") and "Traceback" not in err, err
    if one_line:
        assert len(err.strip().splitlines()) == 1, err
    return err


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
