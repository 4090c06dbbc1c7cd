# cython: language_level=3
"""The PTX emitter's assembler (accy/lowering/ptx.py builds on it): numbered registers and
labels, the kernel's text, and the walk that hands each kl op to its handler, read from the IR
records.

Most ops are recorded once and replayed. Such an op's text is a function of its signature: its
name, attributes, result types, operand types, its operands' register classes and the text of
its immediate operands; the registers themselves only appear in it. The first op of a
signature runs its handler, and what the handler wrote is recorded with the op's operand
registers, the registers it took and the labels it took as slots. Every later op of that
signature, in any kernel of the process, writes the recording with its own operands and the
next free registers and labels. Registers are numbered per class, so a replayed op takes the
very numbers its handler would have taken and the text is byte for byte what the handler would
write. Ops whose handler reads more than their signature (control flow, which emits nested
blocks; shared arrays, which declare module-level names) are handled every time.
"""
cimport cython
from libc.stdint cimport int32_t

from accy._core.context cimport BLK, OP, USE, VAL, Block, Context, OpRec, Value, op_handle

import re

from accy._core.attributes import attribute_key

# register classes, in declaration order, with their .reg types
REGISTERS = (("p", "pred"), ("rs", "b16"), ("r", "b32"), ("rd", "b64"), ("f", "f32"),
             ("fd", "f64"))
DECLARED = dict(REGISTERS)
# a PTX type suffix -> the class of a register of that type
TYPE_CLASS = {"pred": "p", "b16": "rs", "f16": "rs", "bf16": "rs", "u16": "rs", "s16": "rs",
              "b32": "r", "u32": "r", "s32": "r", "b64": "rd", "u64": "rd", "s64": "rd",
              "f32": "f", "f64": "fd"}
cdef enum:
    NCLASSES = 6
    LABEL = 6                   # the kind of a label among the register classes
MAX_RECORDINGS = 8192           # per math tier; a full table is emptied and filled again

cdef tuple CLASSES = tuple(cls for cls, _ in REGISTERS)
cdef dict CLASS_INDEX = {cls: i for i, cls in enumerate(CLASSES)}
cdef list NAMES = [[] for _ in range(NCLASSES + 1)]    # "%r0", "%r1", ...; "$L__0", ...
cdef dict DEST_CLASS = {}                              # opcode -> its destination's class
# one string object per op name and type text, whatever the context: signatures then compare
# by identity when a dict lookup hits
cdef dict CANONICAL = {}
TOKEN = re.compile(r"(%(?:rd|rs|r|fd|f|p)\d+|\$L__\d+)")
cdef object UNRECORDABLE = object()     # a signature whose handler runs every time


cdef str name_of(int kind, Py_ssize_t n):
    """Register `n` of class index `kind` ("%rd3"), or label `n` ("$L__3")."""
    cdef list names = <list>NAMES[kind]
    while len(names) <= n:
        names.append(f"$L__{len(names)}" if kind == LABEL else
                     f"%{CLASSES[kind]}{len(names)}")
    return <str>names[n]


def dest_class(str opcode):
    """The register class of `opcode`'s destination: p for setp/testp, else from its type
    suffixes (a cvt's first, the last otherwise)."""
    found = DEST_CLASS.get(opcode)
    if found is None:
        parts = opcode.split(".")
        if parts[0] in ("setp", "testp"):
            found = "p"
        else:
            types = [p for p in parts[1:] if p in TYPE_CLASS]
            found = TYPE_CLASS[types[0] if parts[0] == "cvt" else types[-1]]
        DEST_CLASS[opcode] = found
    return found


cdef inline object operand_shape(str reg):
    """What an operand's register shows its handler: the class index of a register, the text
    of an immediate."""
    cdef Py_UCS4 second
    if reg[0] != "%" or len(reg) < 3:
        return reg
    second = reg[2]
    if reg[1] == "p":
        return 0
    if reg[1] == "f":
        return 5 if second == "d" else 4
    return 1 if second == "s" else 3 if second == "d" else 2


@cython.final
cdef class _Recording:
    cdef tuple pieces       # literal text and slots, alternating, literal first and last
    cdef tuple kinds        # per new-name slot: a class index or LABEL
    cdef tuple offsets      # its number past the first free one of its kind
    cdef int takes[NCLASSES + 1]    # registers per class and labels the op takes
    cdef tuple results      # each result's slot, or its text (an immediate)


cdef class Assembler:
    """Registers, labels and text of one kernel; `block` walks a block's ops. Subclasses
    provide `handler(name)`: (the function called with the assembler and the op, whether the
    op may be recorded). `handlers` caches its answers; `recordings` holds the recorded
    texts (None: every op runs its handler)."""
    cdef readonly Context context
    cdef public list lines          # the kernel body's lines (a replayed op adds one string)
    cdef int counts[NCLASSES + 1]   # registers taken per class, and labels
    cdef list regs                  # value id -> its register (or an immediate's text)
    cdef list types                 # type id -> its text, canonical (None until asked)
    cdef dict handlers              # op name -> handler(name), shared by every kernel
    cdef dict recordings            # signature -> _Recording (or UNRECORDABLE)

    def __init__(self, Context context not None, dict handlers not None, dict recordings):
        self.context = context
        self.lines = []
        self.regs = [None] * context.values.top
        self.types = [None] * len(context.types)
        self.handlers = handlers
        self.recordings = recordings
        for i in range(NCLASSES + 1):
            self.counts[i] = 0

    # ---- the interface handlers write with --------------------------------------------------
    def new(self, str cls):
        """A new register of class `cls`."""
        cdef int kind = CLASS_INDEX[cls]
        cdef int n = self.counts[kind]
        self.counts[kind] = n + 1
        return name_of(kind, n)

    def label(self):
        self.counts[LABEL] += 1
        return name_of(LABEL, self.counts[LABEL])

    def place(self, str label):
        self.lines.append(label + ":")

    def emit(self, str text):
        self.lines.append("\t" + text + ";")

    def op(self, str opcode, *srcs, cls=None, dest=None):
        """`opcode dest, srcs...`; dest is a new register of `cls` (default: the class of the
        opcode's destination type) unless given. Returns dest."""
        if dest is None:
            dest = self.new(cls if cls is not None else dest_class(opcode))
        cdef list parts = [dest]
        for s in srcs:
            parts.append(s if type(s) is str else str(s))
        self.lines.append("\t" + opcode + " " + ", ".join(parts) + ";")
        return dest

    def reg(self, Value value not None):
        found = self.regs[value.id]
        if found is None:
            raise KeyError(value)
        return found

    def define(self, Value value not None, str reg):
        self.regs[value.id] = reg
        return reg

    def register_counts(self):
        """{class: registers taken}, in declaration order."""
        return {cls: self.counts[i] for i, cls in enumerate(CLASSES)}

    # ---- the walk -------------------------------------------------------------------------
    def block(self, Block block not None):
        """Emit the ops of `block`, in order."""
        cdef Context c = self.context
        cdef int32_t op = BLK(c, block.check()).first_op
        while op >= 0:
            self.emit_op(c, op)
            op = OP(c, op).next

    cdef emit_op(self, Context c, int32_t op):
        name = c.op_names[OP(c, op).name]
        name = CANONICAL.setdefault(name, name)
        entry = self.handlers.get(name)
        if entry is None:
            entry = self.handlers[name] = self.handler(name)
        handler, recorded = <tuple>entry
        if recorded and self.recordings is not None:
            key = self.signature(c, op, name)
            if key is not None:
                found = self.recordings.get(key)
                if found is None:
                    return self.record(c, op, handler, key)
                if found is not UNRECORDABLE:
                    return self.replay(c, OP(c, op), <_Recording>found)
        handler(self, op_handle(c, op))

    cdef tuple signature(self, Context c, int32_t op, str name):
        """The op's signature (see the module docstring), or None when an operand has no
        register yet (its handler then raises)."""
        cdef OpRec* o = OP(c, op)
        cdef list key = [name]
        cdef int32_t i, v
        attrs = c.op_attrs.get(op)
        if attrs:
            for k, a in attrs.items():     # (name, value, True for a bool) each
                kind = type(a)
                key.append(k)
                if kind is bool or kind is int or kind is str:
                    key.append(a)
                    key.append(kind is bool)    # True and 1 differ as attributes
                else:
                    key.append(attribute_key(a))
                    key.append(None)
        key.append(o.n_results)
        for i in range(o.n_results):
            key.append(self.type_text(c, VAL(c, o.results + i).type))
        for i in range(o.n_operands):
            v = USE(c, o.operands + i).value
            if v < 0:
                return None
            reg = self.regs[v]
            if reg is None:
                return None
            key.append(self.type_text(c, VAL(c, v).type))
            key.append(operand_shape(reg))
        return tuple(key)

    cdef str type_text(self, Context c, int32_t t):
        found = self.types[t]
        if found is None:
            text = c.type_strs[t]
            found = self.types[t] = CANONICAL.setdefault(text, text)
        return <str>found

    cdef replay(self, Context c, OpRec* o, _Recording r):
        cdef list subs = []
        cdef int32_t i
        cdef int kind
        cdef Py_ssize_t k, n = len(r.pieces)
        for i in range(o.n_operands):
            subs.append(self.regs[USE(c, o.operands + i).value])
        for k in range(len(r.kinds)):
            kind = r.kinds[k]
            # labels are numbered from 1, registers from 0
            subs.append(name_of(kind, self.counts[kind] + <int>r.offsets[k] + (kind == LABEL)))
        for kind in range(NCLASSES + 1):
            self.counts[kind] += r.takes[kind]
        if n:
            parts = list(r.pieces)
            for k in range(1, n, 2):
                parts[k] = subs[<Py_ssize_t>parts[k]]
            self.lines.append("".join(parts))
        for i in range(o.n_results):
            slot = r.results[i]
            self.regs[o.results + i] = subs[<Py_ssize_t>slot] if type(slot) is int else slot

    cdef record(self, Context c, int32_t op, handler, tuple key):
        """Run the op's handler and keep what it wrote as the recording of `key`, unless an
        operand register repeats (the next op of the signature is recorded instead)."""
        cdef int32_t i
        cdef int kind
        cdef Py_ssize_t k, start = len(self.lines)
        before = [self.counts[kind] for kind in range(NCLASSES + 1)]
        handler(self, op_handle(c, op))
        cdef OpRec* o = OP(c, op)
        slots = {}                          # register or label -> its slot
        for i in range(o.n_operands):
            reg = <str>self.regs[USE(c, o.operands + i).value]
            if reg[0] == "%":
                if reg in slots:
                    return
                slots[reg] = i
        new = []                            # (kind, offset) of each register or label taken
        pieces = TOKEN.split("\n".join(self.lines[start:])) if len(self.lines) > start else []
        results = [self.regs[o.results + i] for i in range(o.n_results)]
        for k in range(1, len(pieces), 2):
            pieces[k] = taken_slot(pieces[k], slots, o.n_operands, new, before)
        for k in range(len(results)):
            reg = results[k]
            if reg is not None and reg[0] in "%$":  # else an immediate's text, or undefined
                results[k] = taken_slot(reg, slots, o.n_operands, new, before)
        if None in pieces or None in results:
            self.recordings[key] = UNRECORDABLE
            return
        r = _Recording()
        r.pieces, r.results = tuple(pieces), tuple(results)
        r.kinds = tuple(kind for kind, _ in new)
        r.offsets = tuple(offset for _, offset in new)
        for kind in range(NCLASSES + 1):
            r.takes[kind] = self.counts[kind] - <int>before[kind]
        if len(self.recordings) >= MAX_RECORDINGS:
            self.recordings.clear()
        self.recordings[key] = r


cdef object taken_slot(str token, dict slots, int first, list new, list before):
    """The slot of register or label `token` in a recorded text: an operand's, or slot
    `first` on for the new ones (numbered from `before`, each kind's first free number when
    the op began); None for one the op neither took nor received (such an op is not
    recorded)."""
    found = slots.get(token)
    if found is not None:
        return found
    if TOKEN.fullmatch(token) is None:
        return None
    if token[0] == "$":
        kind, number = LABEL, int(token[4:]) - 1        # labels are numbered from 1
    else:
        digits = len(token) - len(token.lstrip("%dfprs"))
        kind, number = CLASS_INDEX[token[1:digits]], int(token[digits:])
    if number < before[kind]:
        return None
    found = slots[token] = first + len(new)
    new.append((kind, number - before[kind]))
    return found
