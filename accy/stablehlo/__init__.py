"""StableHLO in: `load(text or path)` gives an accy Module whose `builtin.func @main` computes
the StableHLO module's public entry (docs/stablehlo.md lists the ops and forms it reads)."""
import os
import re

from accy._core.context import Context
from accy._core.text import decode_text, parse
from accy.errors import ParseError, UnsupportedError
from accy.stablehlo.importer import IMPORTED_DIALECTS, Importer, SUPPORTED, op_lines
from accy.stablehlo.pretty import error_at, is_pretty, translate

__all__ = ["load", "from_jax", "is_stablehlo", "SUPPORTED"]


def load(source):
    """A verified tensor-level Module from StableHLO text (pretty or generic form) or a path
    to a file holding it."""
    text = _read(source)
    if not is_pretty(text):
        return Importer(parse(text, Context(allow_unregistered=True)), op_lines(text)).run()
    generic, origins = translate(text)
    try:
        parsed = parse(generic, Context(allow_unregistered=True))
    except ParseError as e:
        raise _in_pretty(e, text, generic, origins) from None
    return Importer(parsed, op_lines(text)).run()


def _in_pretty(error, text, generic, origins):
    """A ParseError of the generic form made from pretty `text`, at the op of `text` that the
    generic line spells (at the offending token when it is on that op's lines), so that it
    names the user's line."""
    lines = generic.splitlines()
    line = error.line
    while line > 0 and line not in origins:     # a block label: the op that holds it
        line -= 1
    if line == 0 or not 0 < error.line <= len(lines):
        return ParseError(f"{error.message} (in the generic form of the pretty text)",
                          error.line, error.column, error.snippet)
    at = origins[line]
    token = re.match(r"[\s,()\[\]{}]*([^\s,()\[\]{}]*)",
                     lines[error.line - 1][error.column - 1:]).group(1)
    end = text.find("\n", text.find("\n", at) + 1)      # the op's line and the next
    found = text.find(token, at, end if end >= 0 else len(text)) if token else -1
    return error_at(text, found if found >= 0 else at, error.message)


def is_stablehlo(text):
    """True when `text`'s ops include StableHLO's, CHLO's or func's (what `accy compile
    FILE.mlir` imports first; accy's own IR names builtin and tensor ops)."""
    return any(name.split(".")[0] in IMPORTED_DIALECTS for name in op_lines(text))


def _read(source):
    """The text of `source`: a path when it is an os.PathLike, or a str of one line ending in
    .mlir (a regular file, UTF-8); any other str is the text itself (so text from elsewhere is
    never taken for a file name)."""
    if isinstance(source, str) and not (source.endswith(".mlir") and "\n" not in source):
        return source
    if not isinstance(source, (str, os.PathLike)):
        raise UnsupportedError(f"load takes StableHLO text or a path, got "
                               f"{type(source).__name__}")
    try:
        if not os.path.isfile(source):
            raise UnsupportedError(f"cannot read StableHLO from {os.fspath(source)!r}: not a "
                                   f"file")
        with open(source, "rb") as f:
            return decode_text(f.read())
    except OSError as e:
        raise UnsupportedError(f"cannot read StableHLO from {os.fspath(source)!r}: "
                               f"{e.strerror}") from None


def from_jax(fn, *args):
    """The accy Module of `jax.jit(fn).lower(*args)` (args: arrays or jax.ShapeDtypeStruct);
    needs jax, imported only here."""
    try:
        import jax
    except ImportError:
        raise UnsupportedError("accy.from_jax needs jax (pip install jax)") from None
    lowered = jax.jit(fn, keep_unused=True).lower(*args)     # every argument stays one
    module = lowered.compiler_ir("stablehlo")
    return load(module.operation.get_asm(print_generic_op_form=True))
