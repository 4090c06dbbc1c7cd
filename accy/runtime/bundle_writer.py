"""An Executable as a bundle's bytes (docs/runtime.md): `write(exe)` and `save(exe, path)`.

The same Executable always gives the same bytes: sections in kind order, packed after the
section table, the info JSON with sorted keys, and nothing that depends on the time or the
machine. What cannot be written as format version 1 (a rebuild that is not one of the
frontend's output structures, a NUL in a name, a size past the format's limits) is a
BundleError before anything is written.
"""
import dataclasses
import json
import math
import struct
import zlib

from accy.errors import BundleError
from accy.files import replace_file
from accy.frontend.tensor import STRUCTURES
from accy.runtime import bundle_format as F
from accy.runtime.program import Copy, Host, Launch, Loop, Memset, Ref
from accy.version import VERSION


def write(exe):
    """The bundle of Executable `exe`, as bytes."""
    try:
        return _bundle(exe)
    except struct.error as e:       # an integer past its field; the checks below name most
        raise BundleError(f"bundle: cannot write this executable: a value does not fit its "
                          f"field ({e})") from None


def save(exe, path):
    """Write `exe`'s bundle to `path` (a new file renamed onto it: nothing else is written, and
    no reader sees half a bundle)."""
    replace_file(path, write(exe))


def _bundle(exe):
    sections = [(F.MANIFEST, _manifest(exe)), (F.PROGRAM, _program(exe.program))]
    if exe.ptx:
        sections.append((F.PTX, _text(exe.ptx, "the ptx")))
    if exe.cubin is not None:
        sections.append((F.CUBIN, bytes(exe.cubin)))
    calls = [k for k in exe.kernels if k.ptx is not None]
    if calls:
        sections.append((F.KERNEL_MODULES, _kernel_modules(calls)))
    sections.append((F.MODULE_TEXT, _text(exe.module_text, "the module text")))
    sections.append((F.INFO, _info(exe)))
    offset = F.HEADER_BYTES + F.ENTRY_BYTES * len(sections)
    table = []
    for kind, data in sections:
        table.append(F.ENTRY.pack(kind, zlib.crc32(data), offset, len(data)))
        offset += len(data)
    table = b"".join(table)
    header = F.HEADER.pack(F.MAGIC, F.VERSION, len(sections), offset,
                           _field(VERSION, F.VERSION_FIELD, "accy version"),
                           _field(exe.target.arch, F.TARGET_FIELD, "target arch"), 0, 0)
    crc = zlib.crc32(header + table)          # its CRC field is 0 here
    header = header[:F.CRC_AT] + struct.pack("<I", crc) + header[F.CRC_AT + 4:]
    return b"".join([header, table] + [data for _, data in sections])


def _field(text, size, what):
    if not (text.isascii() and text.isprintable() and 1 <= len(text) <= size):
        raise BundleError(f"bundle: cannot write this executable: the {what} {text!r} is not "
                          f"1 to {size} printable ASCII characters")
    return text.encode("ascii")


def _text(text, what):
    if "\0" in text:
        raise BundleError(f"bundle: cannot write this executable: {what} holds a NUL")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise BundleError(f"bundle: cannot write this executable: {what} is not valid "
                          f"Unicode ({e.reason})") from None


class _Out:
    """A section's bytes, field by field."""

    def __init__(self):
        self.parts = []

    def u8(self, v):
        self.parts.append(struct.pack("<B", v))

    def u32(self, v):
        self.parts.append(struct.pack("<I", v))

    def u64(self, v):
        self.parts.append(struct.pack("<Q", v))

    def i64(self, v):
        self.parts.append(struct.pack("<q", v))

    def raw(self, data):
        self.parts.append(bytes(data))

    def str(self, text, what):
        data = _text(text, what)
        self.u32(len(data))
        self.parts.append(data)

    def name(self, text, what):
        """A name (a kernel's, a dtype): a str of ASCII, not empty."""
        if not text or not text.isascii():
            raise BundleError(f"bundle: cannot write this executable: {what} {text[:80]!r} is "
                              f"not a non-empty ASCII name")
        self.str(text, what)

    def tensor(self, shape, dtype):
        if dtype not in F.DTYPE_BYTES:
            raise BundleError(f"bundle: cannot write this executable: dtype {dtype!r} is not "
                              f"one of format {F.VERSION}'s")
        self.name(dtype, "a dtype")
        self.u32(len(shape))
        for d in shape:
            self.i64(d)

    def ref(self, ref):
        self.u32(ref.slot)
        self.u64(ref.offset)

    def operand(self, o):
        self.ref(o.ref)
        self.tensor(o.shape, o.dtype)

    def bytes(self):
        return b"".join(self.parts)


def _manifest(exe):
    out = _Out()
    for signature in (exe.arguments, exe.results):
        out.u32(len(signature))
        for shape, dtype in signature:
            out.tensor(shape, dtype)
    out.u32(len(exe.kernels))
    for k in exe.kernels:
        out.name(k.name, "a kernel name")
        out.u8(F.IN_PTX if k.ptx is None else F.IN_KERNEL_MODULES)
    return out.bytes()


def _program(program):
    out = _Out()
    out.u32(len(program.slots))
    for i, slot in enumerate(program.slots):
        if slot.id != i:
            raise BundleError(f"bundle: cannot write this executable: slot {i} of the host "
                              f"program has id {slot.id} (ids are 0, 1, ... in order)")
        out.u8(F.SLOT_CODES.index(slot.kind))
        out.i64(-1 if slot.position is None else slot.position)
        out.u64(slot.nbytes)
        data = slot.data if slot.kind == "constant" else b""
        out.u64(len(data))
        out.raw(data)
        out.str(slot.note, "a slot's note")
    out.u32(len(program.arguments))
    for slot in program.arguments:
        out.i64(-1 if slot is None else slot)
    out.u32(len(program.results))
    for o in program.results:
        out.operand(o)
    _steps(out, program.steps)
    return out.bytes()


def _steps(out, steps):
    out.u32(len(steps))
    for step in steps:
        if isinstance(step, Launch):
            out.u8(F.LAUNCH)
            out.name(step.kernel, "a kernel name")
            for d in tuple(step.grid) + tuple(step.block):
                out.u32(d)
            out.u32(step.shared_bytes)
            out.u32(len(step.params))
            for p in step.params:
                if isinstance(p, Ref):
                    out.u8(F.PARAM_REF)
                    out.ref(p)
                else:
                    out.u8(F.PARAM_SCALAR)
                    out.i64(p)
        elif isinstance(step, Memset):
            out.u8(F.MEMSET)
            out.ref(step.target)
            out.u64(step.nbytes)
            out.u8(step.value)
        elif isinstance(step, Copy):
            out.u8(F.COPY)
            out.ref(step.target)
            out.ref(step.source)
            out.u64(step.nbytes)
        elif isinstance(step, Loop):
            out.u8(F.LOOP)
            out.u32(step.item)
            out.u32(len(step.states))
            for s in step.states:
                out.u32(s.current)
                out.u32(s.next)
                out.ref(s.first)
                out.ref(s.second)
            out.ref(step.flag)
            _steps(out, step.cond)
            _steps(out, step.body)
        elif isinstance(step, Host):
            out.u8(F.HOST)
            out.u32(step.item)
            out.str(step.kind, "a host step's kind")
            out.str(step.module, "a host step's module")
            for operands in (step.inputs, step.outputs):
                out.u32(len(operands))
                for o in operands:
                    out.operand(o)
        else:
            raise BundleError(f"bundle: cannot write this executable: a host program step of "
                              f"an unknown kind: {step!r}")


def _kernel_modules(calls):
    out = _Out()
    out.u32(len(calls))
    for k in calls:
        out.name(k.name, "a kernel name")
        out.str(k.ptx, f"kernel {k.name}'s PTX")
    return out.bytes()


def _info(exe):
    """The info section: what only Python reads (the report's facts, the result structure)."""
    rebuild = next((name for name, fn in STRUCTURES.items() if exe.rebuild is fn), None)
    if exe.rebuild is not None and rebuild is None:
        raise BundleError(f"bundle: cannot write this executable: its rebuild "
                          f"({exe.rebuild!r}) is not one of the frontend's output structures "
                          f"({', '.join(STRUCTURES)}), and a function cannot be saved as data")
    info = {
        "function": exe.function,
        "kernels": [{"name": k.name, "kind": k.kind, "work_item": k.work_item,
                     "scope": _scope(k.scope), "schedule": k.schedule,
                     "launch": {"grid": list(k.launch.grid), "block": list(k.launch.block),
                                "shared_bytes": k.launch.shared_bytes},
                     "workspace": k.workspace} for k in exe.kernels],
        "fallbacks": [{"work_item": f.work_item, "kind": f.kind, "reason": f.reason,
                       "scope": _scope(f.scope)} for f in exe.fallbacks],
        "target": dataclasses.asdict(exe.target),
        "stats": dict(exe.stats),
        "timings": [[stage, ms] for stage, ms in exe.timings.items()],   # in stage order
        "rebuild": rebuild,
    }
    for name, value in exe.timings.items():
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            raise BundleError(f"bundle: cannot write this executable: timing {name!r} is "
                              f"{value!r}, not a finite number")
    try:
        text = json.dumps(info, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except (TypeError, ValueError) as e:
        raise BundleError(f"bundle: cannot write this executable: its report's facts are not "
                          f"JSON ({e})") from None
    return _text(text, "the info")


def _scope(scope):
    return None if scope is None else list(scope)
