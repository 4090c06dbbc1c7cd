"""The PTX front end: module text -> kernels, each a flat list of decoded instructions.

Covers what accy emits and what nvcc writes for ordinary kernels: the module directives
(.version, .target, .address_size), .visible/.extern .entry, .param lists, .reg (with the
`%r<11>` range form), .shared/.const/.global variables with .align and array sizes, labels,
predicate guards (`@%p` / `@!%p`), `{ }` scopes (inline asm, call sequences, also right after
a label; registers and .param variables declared in a scope are renamed apart), and operands:
registers, immediates (decimal, hex, 0f/0d floats), special registers (%tid.x, ...), symbols,
`[addr+offset]`, vectors `{a, b}`, `%r|%p` pairs and the video instructions' selectors
(`%r1.b3210`, `%r1.h10`).
Device functions: `.func` definitions (Module.functions, with their return parameters) and
bodiless prototypes (Module.declarations), `.param` variables inside bodies, and
`call[.uni] (results), target, (arguments)[, prototype]`; calls.py links them into kernels.
Anything else is a PtxError naming the line, never skipped.
"""
import re
import struct
from dataclasses import dataclass, field

from accy.errors import AccyError


class PtxError(AccyError):
    """PTX text the emulator cannot read or run; names the line and the instruction."""


SCOPED = "~"        # a call site's .param variable `x` is `x~<serial>`, unique in its body
# (no PTX identifier holds the character, so the declared name is all before it)


def declared_name(name):
    """The name a call site's .param variable has in the PTX text (any other name as it is)."""
    return name.partition(SCOPED)[0]


@dataclass(frozen=True)
class Reg:
    name: str


@dataclass(frozen=True)
class Imm:
    value: object           # int, or float for 0f/0d/decimal-point literals
    is_float: bool = False


@dataclass(frozen=True)
class Special:
    name: str               # e.g. "tid.x", "laneid", "clock64"


@dataclass(frozen=True)
class Symbol:
    name: str               # a variable or parameter used as an address


@dataclass(frozen=True)
class Address:
    base: object            # Reg, Symbol or None (absolute)
    offset: int


@dataclass(frozen=True)
class Vector:
    items: tuple


@dataclass(frozen=True)
class NotPred:
    pred: Reg               # `!%p` as a source operand: the predicate's negation


@dataclass(frozen=True)
class Selected:
    reg: Reg                # `%r1.b3210` / `%r1.h10` of the video instructions: a register
    selector: str           # with a byte or half-word selector or mask ("b3210")


@dataclass(frozen=True)
class PredPair:
    value: Reg              # `%r|%p`: a value and a predicate output
    pred: Reg


@dataclass
class Instruction:
    line: int
    text: str
    opcode: str             # the first dotted part, e.g. "ld"
    mods: tuple             # the other dotted parts, e.g. ("global", "f32")
    operands: tuple
    guard: object = None    # Reg of the guarding predicate
    negate: bool = False


@dataclass
class Variable:
    name: str
    space: str              # shared, const, global, local
    dtype: str              # e.g. "b8", "f32"
    size: int               # bytes
    align: int
    init: bytes = None


@dataclass
class Kernel:
    """An .entry, or a .func (then `returns` lists its return parameters)."""
    name: str
    params: list            # (name, dtype, size, align)
    registers: dict         # name -> dtype
    variables: list         # shared/local variables of the body, and .param of call sites
    instructions: list
    labels: dict            # label -> instruction index
    line: int = 0
    returns: list = None    # a .func's return parameters, as params; None for an .entry
    linkage: object = None  # the device functions linked in (calls.Linkage), if it calls any


@dataclass
class Module:
    version: str = ""
    target: str = ""
    address_size: int = 64
    kernels: dict = field(default_factory=dict)
    variables: list = field(default_factory=list)   # module-scope .global/.const/.shared
    functions: dict = field(default_factory=dict)   # .func definitions by name
    declarations: dict = field(default_factory=dict)  # .func name -> line of a bodiless one
    unsupported: dict = field(default_factory=dict)   # .func name -> (line, why it cannot run)


TYPE_BYTES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
              "b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "tf32": 4,
              "b64": 8, "u64": 8, "s64": 8, "f64": 8, "pred": 1, "b128": 16}
_TOKEN = re.compile(r"""\s*(?:
      (?P<str>"(?:[^"\\]|\\.)*")
    | (?P<word>[%$A-Za-z_.][%$\w.]*(?:<\d+>)?)
    | (?P<num>[-+]?(?:0[fFdD][0-9a-fA-F]+|0[xX][0-9a-fA-F]+U?|\d+\.\d*(?:[eE][-+]?\d+)?|\d+U?))
    | (?P<punct>[{}()\[\];,:@!|+\-=<>])
    )""", re.X)


def _strip_comments(text):
    """Comments removed (keeping line numbers), and the line directives that end without a
    ';' (.version, .target, .address_size, .file, .loc) given one."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    # debug sections (nvcc -lineinfo / -G) say nothing about execution
    text = re.sub(r"^\s*\.section\b[^{]*\{.*?^\s*\}", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S | re.M)
    return re.sub(r"^(\s*\.(?:version|target|address_size|file|loc)\b[^\n;]*)$", r"\1;", text,
                  flags=re.M)


def parse_immediate(text):
    """An Imm from PTX number text."""
    t = text.rstrip("U")
    if t[:2] in ("0f", "0F"):
        return Imm(struct.unpack("<f", int(t[2:], 16).to_bytes(4, "little"))[0], True)
    if t[:2] in ("0d", "0D"):
        return Imm(struct.unpack("<d", int(t[2:], 16).to_bytes(8, "little"))[0], True)
    if "." in t or "e" in t.lower() and not t.lower().startswith(("0x", "-0x")):
        return Imm(float(t), True)
    digits = t.lstrip("+-")
    if len(digits) > 1 and digits[0] == "0" and digits.isdigit():    # PTX: 0[0-7]+ is octal
        if not set(digits) <= set("01234567"):
            raise PtxError(f"{text} is not an octal number (PTX reads a leading 0 as octal)")
        return Imm(int(t, 8))
    return Imm(int(t, 0))


_LABELS_ONLY = re.compile(r"^(?:[$\w.]+\s*:(?!:)\s*)+$")


def _statements(text):
    """The text split into (line, statement, terminator) with terminator ';', '{' or '}'.
    A '{' after statement text is an operand brace (`{%r1, %r2}`, `= {1, 2}`), except after a
    kernel or function header, where it opens the body, and after labels (`$L1: {`), where
    it opens a scope as it does on its own (the statement is then the labels)."""
    out, cur, line, start, depth = [], [], 1, None, 0

    def emit(end):
        nonlocal cur, start
        out.append((start or line, "".join(cur).strip(), end))
        cur, start = [], None
    for ch in text:
        if ch == "\n":
            line += 1
        if ch == "{":
            head = "".join(cur).strip()
            if depth or (head and not re.search(r"\.(entry|func)\b", head)
                         and not _LABELS_ONLY.match(head)):
                depth += 1
                cur.append(ch)
            else:
                emit("{")
        elif ch == "}" and depth:
            depth -= 1
            cur.append(ch)
        elif ch == "}" or (ch == ";" and not depth):
            emit(ch)
        else:
            if start is None and not ch.isspace():
                start = line
            cur.append(ch)
    if "".join(cur).strip():
        raise PtxError(f"line {start}: statement without ';': {''.join(cur).strip()}")
    return out


def parse(text):
    """Parse PTX module text into a Module; raise PtxError at the first thing not understood."""
    return _Parser(_strip_comments(text)).module()


class _Parser:
    def __init__(self, text):
        self.stmts = _statements(text)
        self.i = 0
        self.symbols = [{}]      # the .param variables of call sites in scope (see body)

    def error(self, line, message, stmt=""):
        stmt = " ".join(stmt.split())
        if len(stmt) > 160:
            stmt = stmt[:160] + " ..."
        raise PtxError(f"line {line}: {message}" + (f": {stmt}" if stmt else ""))

    def module(self):
        m = Module()
        while self.i < len(self.stmts):
            line, stmt, end = self.stmts[self.i]
            self.i += 1
            words = stmt.split()
            if not words:
                if end == "}" or end == "{":
                    self.error(line, "unexpected brace")
                continue
            head = words[0]
            if head in (".file", ".loc", ".pragma"):
                continue
            if head == ".version":
                m.version = words[1]
            elif head == ".target":
                m.target = stmt.split(None, 1)[1]
            elif head == ".address_size":
                m.address_size = int(words[1])
                if m.address_size != 64:
                    self.error(line, "only .address_size 64 is supported")
            elif ".entry" in words or ".func" in words:
                if ".func" in words and end == ";":      # a prototype (.extern or forward)
                    m.declarations[self.header(line, stmt)[0]] = line
                    continue
                if ".func" in words and re.search(r"[(,]\s*\.reg\b", stmt):
                    name = self.skip_function(line, stmt)      # an error only if called
                    m.unsupported[name] = (line, "has .reg parameters (the emulator supports "
                                                 ".param ones only)")
                    continue
                kernel = self.kernel(line, stmt, end)
                table = m.kernels if kernel.returns is None else m.functions
                if kernel.name in m.kernels or kernel.name in m.functions:
                    self.error(line, f"{kernel.name} is defined twice")
                table[kernel.name] = kernel
            elif head in (".global", ".const", ".shared", ".extern", ".visible") or \
                    head.startswith(".global") or ".global" in words or ".const" in words:
                m.variables.append(self.variable(line, stmt))
            else:
                self.error(line, "unknown module directive", stmt)
        return m

    def kernel(self, line, header, end):
        if end == ";":           # a declaration without a body
            self.error(line, "a kernel declaration without a body", header)
        if end == "{" and "(" in header and ")" not in header:
            self.error(line, "unterminated parameter list", header)
        name, params, returns = self.header(line, header)
        k = Kernel(name, params, {}, [], [], {}, line, returns)
        self.body(k)
        self.check_registers(k)
        return k

    def skip_function(self, line, header):
        """The name of the .func at `header`, its body read past."""
        m = re.match(r"(?:\.\w+\s+)*\.func\s+(?:\([^)]*\)\s*)?([\w$]+)", header)
        if not m:
            self.error(line, "bad .func header", header)
        self.body(Kernel(m.group(1), [], {}, [], [], {}, line, []))
        return m.group(1)

    def header(self, line, text):
        """(name, params, returns) of `[.visible|.extern|.weak] .entry NAME (params)` or
        `.func [(returns)] NAME [(params)]`; returns is None for an .entry."""
        m = re.match(r"(?:\.\w+\s+)*\.(entry|func)\s+(?:\(([^)]*)\)\s*)?([\w$]+)\s*"
                     r"(?:\((.*?)\))?\s*(.*)$", text, re.S)
        if not m or (m.group(1) == "entry" and m.group(2) is not None):
            self.error(line, "bad .entry or .func header", text)
        kind, returns_text, name, params_text, _ = m.groups()
        params = self.param_list(line, params_text or "")
        return name, params, (self.param_list(line, returns_text or "") if kind == "func"
                              else None)

    def param_list(self, line, text):
        params = []
        for p in filter(None, (s.strip() for s in text.split(","))):
            params.append(self.param(line, p))
        return params

    def param(self, line, text):
        """(name, dtype, size, align) of `.param [.align N] .type name[count]`."""
        pm = re.match(r"\.param\s+((?:\.\w+(?:\s+\d+)?\s+)*)\.(\w+)\s+([\w$]+)(?:\[(\d+)\])?$",
                      text)
        if not pm:
            self.error(line, "bad parameter (only .param ones are supported)", text)
        quals, dtype, pname, count = pm.groups()
        if dtype not in TYPE_BYTES:
            self.error(line, f"unknown parameter type .{dtype}", text)
        align = re.search(r"\.align\s+(\d+)", quals or "")
        size = TYPE_BYTES[dtype] * int(count or 1)
        return pname, dtype, size, int(align.group(1)) if align else TYPE_BYTES[dtype]

    def check_registers(self, k):
        """Every register an instruction names is declared (PTX requires it; ptxas rejects it
        otherwise), and every branch target is a label."""
        for ins in k.instructions:
            for reg in _registers(ins):
                if reg.name != "_" and reg.name not in k.registers:
                    self.error(ins.line, f"undeclared register {reg.name} (or an unsupported "
                                         f"special register)", ins.text)

    def body(self, k):
        scopes = [{}]            # per scope: declared register name -> unique name
        self.symbols = [{}]      # likewise for the .param variables of call sites
        serial = 0
        while self.i < len(self.stmts):
            line, stmt, end = self.stmts[self.i]
            self.i += 1
            if end == "{":
                line, stmt = self.labels(k, line, stmt)
                if stmt:
                    self.error(line, "unexpected '{'", stmt)
                scopes.append({})
                self.symbols.append({})
                continue
            if end == "}":
                line, stmt = self.labels(k, line, stmt)
                if stmt:
                    self.instruction(k, line, stmt, scopes)
                scopes.pop()
                self.symbols.pop()
                if not scopes:
                    return
                continue
            if not stmt:
                continue
            if re.match(r"^[$\w]+\s*:\s*\.callprototype\b", stmt):
                continue        # a prototype for indirect calls: checked by ptxas
            line, stmt = self.labels(k, line, stmt)
            if not stmt:
                continue
            if stmt.startswith(".reg"):
                for name, dtype in self.registers(line, stmt):
                    if len(scopes) > 1 and any(name in s for s in scopes[1:]) or len(scopes) > 2 \
                            or (len(scopes) == 2 and name in k.registers):
                        serial += 1
                        unique = f"{name}__s{serial}"
                    else:
                        unique = name
                    scopes[-1][name] = unique
                    k.registers[unique] = dtype
            elif stmt.startswith((".shared", ".local", ".const", ".global")):
                k.variables.append(self.variable(line, stmt))
            elif stmt.startswith(".param"):          # an argument or result of a call
                name, dtype, size, align = self.param(line, stmt)
                serial += 1
                self.symbols[-1][name] = unique = f"{name}{SCOPED}{serial}"
                k.variables.append(Variable(unique, "param", dtype, size, align))
            elif stmt.startswith((".pragma", ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg",
                                  ".loc", ".file", ".noreturn")):
                continue
            elif stmt.startswith("."):
                self.error(line, "unknown directive in a kernel body", stmt)
            else:
                self.instruction(k, line, stmt, scopes)
        self.error(k.line, f"kernel {k.name} has no closing brace")

    def labels(self, k, line, stmt):
        """Record the labels in front of `stmt`; (its own line, the rest of it)."""
        label = re.match(r"^([$\w.]+)\s*:(?!:)\s*(.*)$", stmt, re.S)
        while label and not stmt.startswith("@"):
            if label.group(1) in k.labels:
                self.error(line, f"label {label.group(1)} is defined twice")
            k.labels[label.group(1)] = len(k.instructions)
            line += stmt[:label.start(2)].count("\n")
            stmt = label.group(2).strip()
            label = re.match(r"^([$\w.]+)\s*:(?!:)\s*(.*)$", stmt, re.S)
        return line, stmt

    def registers(self, line, stmt):
        m = re.match(r"\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+(.*)$", stmt, re.S)
        if not m or m.group(1) not in TYPE_BYTES:
            self.error(line, "bad .reg declaration", stmt)
        dtype = m.group(1)
        if dtype == "b128":             # (TYPE_BYTES keeps .b128 for variables)
            self.error(line, ".b128 registers are not supported by the emulator: hold the 128 "
                             "bits in two .b64 registers (ld/st .v2.b64 instead of .b128)", stmt)
        for item in (s.strip() for s in m.group(2).split(",")):
            rm = re.match(r"^(%?[A-Za-z_$][\w$]*)(?:<(\d+)>)?$", item)
            if not rm:
                self.error(line, "bad register name", item)
            if rm.group(2) is None:
                yield rm.group(1), dtype
            else:
                for n in range(int(rm.group(2))):
                    yield f"{rm.group(1)}{n}", dtype

    def variable(self, line, stmt):
        m = re.match(r"(?:\.(?:visible|extern|weak)\s+)*\.(shared|const|global|local)\s+"
                     r"((?:\.align\s+\d+\s+)?)\.(\w+)\s+([\w$]+)((?:\[\d*\])*)\s*(?:=\s*(.*))?$",
                     stmt, re.S)
        if not m:
            self.error(line, "bad variable declaration", stmt)
        space, align, dtype, name, dims, init = m.groups()
        if dtype not in TYPE_BYTES:
            self.error(line, f"unknown type .{dtype}", stmt)
        count = 1
        for d in re.findall(r"\[(\d*)\]", dims or ""):
            count *= int(d) if d else 0      # `[]`: extern dynamic shared memory
        elem = TYPE_BYTES[dtype]
        data = None
        if init:
            try:
                values = [parse_immediate(v.strip()) for v in init.strip("{} ").split(",")]
            except ValueError:
                self.error(line, "only numbers are supported as initializers", stmt)
            fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[elem]
            if dtype.startswith("f"):
                fmt = {4: "f", 8: "d"}.get(elem, fmt)
            data = b"".join(struct.pack("<" + fmt, v.value if dtype.startswith("f")
                                        else int(v.value) & ((1 << 8 * elem) - 1))
                            for v in values)
        a = re.search(r"\d+", align or "")
        return Variable(name, space, dtype, elem * count, int(a.group(0)) if a else elem, data)

    def instruction(self, k, line, stmt, scopes):
        text = " ".join(stmt.split())       # as written, guard included, on one line
        guard, negate = None, False
        gm = re.match(r"^@(!?)(%[\w$]+)\s+(.*)$", stmt, re.S)
        if gm:
            negate, guard, stmt = gm.group(1) == "!", Reg(self.rename(gm.group(2), scopes)), \
                gm.group(3)
        parts = stmt.split(None, 1)
        op = parts[0]
        pieces = op.split(".")
        if pieces[0] == "call":
            operands = self.call_operands(line, parts[1] if len(parts) > 1 else "", scopes, stmt)
        else:
            operands = self.operands(line, parts[1] if len(parts) > 1 else "", scopes, stmt)
        k.instructions.append(Instruction(line, text, pieces[0], tuple(pieces[1:]),
                                          operands, guard, negate))

    @staticmethod
    def rename(name, scopes):
        for scope in reversed(scopes):
            if name in scope:
                return scope[name]
        return name

    def call_operands(self, line, text, scopes, stmt):
        """`call (results), target, (arguments)[, prototype]`, results and arguments
        optional: (Vector of result Symbols, target, Vector of argument Symbols) plus the
        prototype's Symbol; the target is a Symbol (a function) or a Reg (indirect)."""
        m = re.match(r"^(?:\(([^)]*)\)\s*,\s*)?([%$\w.]+)\s*(?:,\s*\(([^)]*)\))?\s*"
                     r"(?:,\s*([$\w.]+))?$", text.strip(), re.S)
        if not m:
            self.error(line, "bad call", stmt)
        results, target, arguments, prototype = m.groups()
        if prototype is not None and arguments is None and not target.startswith("%"):
            # a direct call has no prototype (an indirect one's arguments may be left out)
            self.error(line, f"a call's arguments go in parentheses, `({prototype})`, after "
                             f"the target (a name alone there is an indirect call's prototype)",
                       stmt)

        def names(items):
            out = []
            for item in _split_top(items or ""):
                if not re.match(r"^[$A-Za-z_][$\w]*$", item):
                    self.error(line, f"a call's arguments and results must be .param "
                                     f"variables, not '{item}'", stmt)
                out.append(Symbol(self.rename(item, self.symbols)))
            return Vector(tuple(out))
        callee = Reg(self.rename(target, scopes)) if target.startswith("%") else Symbol(target)
        return (names(results), callee, names(arguments)) + \
            ((Symbol(prototype),) if prototype else ())

    def operands(self, line, text, scopes, stmt):
        return tuple(self.operand(line, item, scopes, stmt) for item in _split_top(text))

    def operand(self, line, t, scopes, stmt):
        if not t:
            self.error(line, "empty operand", stmt)
        if t.startswith("{"):
            return Vector(tuple(self.operand(line, x.strip(), scopes, stmt)
                                for x in _split_top(t[1:-1])))
        if t.startswith("["):
            inner = t[1:-1].replace(" ", "")
            inner = inner.replace("+-", "-")          # nvcc writes [%rd1+-128]
            m = re.match(r"^([%$\w.]+)?(?:([+-])(0[xX][0-9a-fA-F]+|\d+))?$", inner)
            if not m or not (m.group(1) or m.group(3)):
                if re.match(r"^(0[xX][0-9a-fA-F]+|\d+)$", inner):
                    return Address(None, int(inner, 0))
                self.error(line, f"bad address [{inner}]", stmt)
            base = m.group(1)
            if base is not None and not base.startswith("%"):
                base = self.rename(base, self.symbols)
            offset = int(m.group(3), 0) * (-1 if m.group(2) == "-" else 1) if m.group(3) else 0
            if base is None:
                return Address(None, offset)
            if re.match(r"^(0[xX][0-9a-fA-F]+|\d+)$", base):
                return Address(None, int(base, 0) + offset)
            return Address(Reg(self.rename(base, scopes)) if base.startswith("%") and
                           not _is_special(base) else Symbol(base), offset)
        if "|" in t:
            a, b = t.split("|")
            return PredPair(Reg(self.rename(a.strip(), scopes)), Reg(self.rename(b.strip(), scopes)))
        if t.startswith("!%"):
            return NotPred(Reg(self.rename(t[1:], scopes)))
        if t.startswith("%"):
            if _is_special(t):
                return Special(t[1:])
            selected = re.match(r"^(%[\w$]+)\.([bh]\d+)$", t)
            if selected:
                return Selected(Reg(self.rename(selected.group(1), scopes)), selected.group(2))
            return Reg(self.rename(t, scopes))
        if re.match(r"^[-+]?(0[fFdDxX][0-9a-fA-F]+U?|\d+\.?\d*(?:[eE][-+]?\d+)?U?)$", t):
            return parse_immediate(t)
        if t == "_":
            return Reg("_")
        if any(t in scope for scope in scopes):         # a register named without '%'
            return Reg(self.rename(t, scopes))
        if re.match(r"^[$A-Za-z_.][$\w.]*$", t):
            return Symbol(self.rename(t, self.symbols))
        self.error(line, f"bad operand '{t}'", stmt)


SPECIAL = re.compile(r"^%(tid|ntid|ctaid|nctaid)\.[xyz]$|^%(laneid|warpid|nwarpid|clock|clock64|"
                     r"dynamic_smem_size|total_smem_size|smid|nsmid|gridid|lanemask_\w+|"
                     r"globaltimer)$")


def _is_special(name):
    return bool(SPECIAL.match(name))


def _registers(ins):
    """The Regs an instruction names: guard, operands, and inside addresses and vectors."""
    stack = list(ins.operands) + ([ins.guard] if ins.guard is not None else [])
    while stack:
        x = stack.pop()
        if isinstance(x, Reg):
            yield x
        elif isinstance(x, Vector):
            stack.extend(x.items)
        elif isinstance(x, Address) and isinstance(x.base, Reg):
            yield x.base
        elif isinstance(x, PredPair):
            stack.extend((x.value, x.pred))
        elif isinstance(x, NotPred):
            yield x.pred
        elif isinstance(x, Selected):
            yield x.reg


def _split_top(text):
    """Split on commas outside braces and brackets."""
    items, depth, cur = [], 0, []
    for ch in text:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        items.append("".join(cur))
    return [x for x in (s.strip() for s in items) if x]
