"""Pipeline text and the pass registry.

    pipeline := element ("," element)*
    element  := NAME options?              a registered pass
              | NAME "(" pipeline ")"      the inner pipeline on each child op named NAME
    options  := "{" (KEY "=" VALUE)* "}"   space-separated; VALUE may be "quoted"

A nesting NAME without a dot names a builtin op (`func` is `builtin.func`). Passes are
registered by name with the module that defines them (attribute `PASS`), and imported only when
a pipeline names them, so that importing accy stays cheap.
"""
import importlib
import re
from dataclasses import dataclass

from accy._core import builtin as _builtin  # noqa: F401  (nests name builtin ops)
from accy._core.registry import lookup as lookup_op
from accy.errors import ParseError
from accy.passes.core import Pass

_PASSES = {
    "canonicalize": "accy.passes.canonicalize",
    "cse": "accy.passes.cse",
    "dce": "accy.passes.dce",
    "decompose-attention": "accy.passes.decompose_attention",
    "lower-case": "accy.passes.lower_case",
    "raise-attention": "accy.passes.raise_attention",
    "shape": "accy.passes.shape_layout",
    "schedule": "accy.passes.schedule",
    "outline": "accy.passes.outline",
    "bufferize": "accy.passes.bufferize",
    "kernelize": "accy.lowering.kernelize",
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def register_pass(pass_or_name, module=None):
    """Register a `Pass`, or a name with the module (text) that defines it as `PASS`."""
    if isinstance(pass_or_name, Pass):
        _PASSES[pass_or_name.name] = pass_or_name
    elif isinstance(pass_or_name, str) and isinstance(module, str):
        _PASSES[pass_or_name] = module
    else:
        raise TypeError("register_pass(Pass) or register_pass(name, 'module.path')")


def registered_passes():
    return sorted(_PASSES)


def lookup_pass(name):
    """The registered `Pass` called `name` (importing its module on first use)."""
    entry = _PASSES.get(name)
    if entry is None:
        raise KeyError(f"no pass is registered as '{name}'")
    if isinstance(entry, str):
        p = importlib.import_module(entry).PASS
        if not isinstance(p, Pass) or p.name != name:
            raise TypeError(f"module {entry} does not define PASS as the pass '{name}'")
        _PASSES[name] = entry = p
    return entry


@dataclass(frozen=True)
class Nest:
    """Run `items` on every op named `op_name` directly inside the op the pipeline runs on."""
    op_name: str
    items: tuple

    def text(self):
        return f"{self.op_name}({pipeline_text(self.items)})"


def pipeline_text(items):
    """Canonical text of a parsed pipeline (every option set is printed, sorted)."""
    return ",".join(item.text() for item in items)


def parse_pipeline(text):
    """Parse pipeline text into a tuple of `Pass` and `Nest` items."""
    if not isinstance(text, str):
        raise TypeError("a pipeline is text")
    p = _Parser(text)
    items = p.pipeline() if text.strip() else ()
    p.skip()
    if p.pos != len(text):
        p.fail("expected ',' or the end of the pipeline")
    return items


class _Parser:
    def __init__(self, text):
        self.text, self.pos = text, 0

    def fail(self, message, pos=None):
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        start = self.text.rfind("\n", 0, pos) + 1
        end = self.text.find("\n", pos)
        text = self.text[start:end if end >= 0 else len(self.text)]
        raise ParseError(f"pipeline: {message}", line, pos - start + 1,
                         f"  {text}\n  {' ' * (pos - start)}^")

    def skip(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self):
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def name(self, what):
        self.skip()
        m = _NAME.match(self.text, self.pos)
        if not m:
            self.fail(f"expected {what}")
        self.pos = m.end()
        return m.group()

    def pipeline(self):
        items = [self.element()]
        while self.peek() == ",":
            self.pos += 1
            items.append(self.element())
        return tuple(items)

    def element(self):
        self.skip()
        start = self.pos
        name = self.name("a pass name or an op name")
        if self.peek() == "(":
            op_name = name if "." in name else f"builtin.{name}"
            if "." not in name and lookup_op(op_name) is None:
                self.fail(f"'{name}(...)' nests a pipeline in ops named '{name}', but no such "
                          f"op is registered (write a full op name such as builtin.func)"
                          + (f"; '{name}' is a pass, which takes no nested pipeline"
                             if name in _PASSES else ""), start)
            self.pos += 1
            inner = self.pipeline() if self.peek() != ")" else ()
            if self.peek() != ")":
                self.fail("expected ')'")
            self.pos += 1
            return Nest(op_name, inner)
        if name not in _PASSES:
            self.fail(f"unknown pass '{name}' (registered: {', '.join(registered_passes())})",
                      start)
        try:
            p = lookup_pass(name)
        except (ImportError, AttributeError, TypeError) as e:
            self.fail(f"pass '{name}' could not be loaded: {type(e).__name__}: {e}", start)
        if self.peek() == "{":
            self.pos += 1
            values = {}
            while self.peek() != "}":
                if not self.peek():
                    self.fail("expected '}'")
                self.skip()
                key_at = self.pos
                key = self.name("an option name")
                if key in values:
                    self.fail(f"option '{key}' is given twice", key_at)
                if self.peek() != "=":
                    self.fail("expected '=' after the option name")
                self.pos += 1
                try:
                    values[key] = p.with_options({key: self.value()}).option_values[key]
                except ValueError as e:
                    self.fail(str(e), key_at)
            self.pos += 1
            p = p.with_options(values)
        return p

    def value(self):
        self.skip()
        t = self.text
        if self.pos < len(t) and t[self.pos] == '"':
            out, i = [], self.pos + 1
            while i < len(t) and t[i] != '"':
                if t[i] == "\\" and i + 1 < len(t):
                    i += 1
                out.append(t[i])
                i += 1
            if i >= len(t):
                self.fail("unterminated string")
            self.pos = i + 1
            return "".join(out)
        start = self.pos
        while self.pos < len(t) and not t[self.pos].isspace() and t[self.pos] != "}":
            self.pos += 1
        if self.pos == start:
            self.fail("expected an option value")
        return t[start:self.pos]
