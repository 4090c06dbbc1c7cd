"""StableHLO in: `load(text or path)` gives an accy Module whose `builtin.func @main` computes
the StableHLO module's public entry (docs/stablehlo.md lists the ops and forms it reads)."""
import os
import re

from accy._core.context import Context
from accy._core.text import parse
from accy.errors import ParseError, UnsupportedError
from accy.stablehlo.importer import Importer, SUPPORTED, op_lines
from accy.stablehlo.pretty import error_at, is_pretty, to_generic

__all__ = ["load", "from_jax", "is_stablehlo", "SUPPORTED"]


def load(source):
    """A verified tensor-level Module from StableHLO text (pretty or generic form) or a path
    to a file holding it."""
    text = _read(source)
    if not is_pretty(text):
        return Importer(parse(text, Context(allow_unregistered=True)), op_lines(text)).run()
    generic = to_generic(text)
    try:
        parsed = parse(generic, Context(allow_unregistered=True))
    except ParseError as e:
        raise _in_pretty(e, text, generic) from None
    return Importer(parsed, op_lines(text)).run()


def _in_pretty(error, text, generic):
    """A ParseError of the generic form made from pretty `text`, at the same token of `text`
    (its first occurrence), so that it names the user's line; else at the generic line."""
    lines = generic.splitlines()
    if 0 < error.line <= len(lines):
        found = re.match(r"[\s,()\[\]{}]*([^\s,()\[\]{}]*)",
                         lines[error.line - 1][error.column - 1:]).group(1)
        pos = text.find(found) if found else -1
        if pos >= 0:
            return error_at(text, pos, error.message)
    return ParseError(f"{error.message} (in the generic form of the pretty text)", error.line,
                      error.column, error.snippet)


def is_stablehlo(text):
    """True when `text` names StableHLO ops (what `accy compile FILE.mlir` imports first)."""
    return "stablehlo." in text or "chlo." in text


def _read(source):
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                           and not source.lstrip().startswith(("module", '"'))):
        try:
            with open(source, encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            raise UnsupportedError(f"cannot read StableHLO from {source!s}: {e.strerror}") \
                from None
    if not isinstance(source, str):
        raise UnsupportedError(f"load takes StableHLO text or a path, got "
                               f"{type(source).__name__}")
    return source


def from_jax(fn, *args):
    """The accy Module of `jax.jit(fn).lower(*args)` (args: arrays or jax.ShapeDtypeStruct);
    needs jax, imported only here."""
    try:
        import jax
    except ImportError:
        raise UnsupportedError("accy.from_jax needs jax (pip install jax)") from None
    lowered = jax.jit(fn).lower(*args)
    module = lowered.compiler_ir("stablehlo")
    return load(module.operation.get_asm(print_generic_op_form=True))
