"""Bundles: an Executable in one file (docs/runtime.md, format version 1).

    data = write(exe)            # bytes (accy/runtime/bundle_writer.py); save(exe, path)
    exe = read(data)             # an Executable; load(path) reads a file
    print(describe(data))        # what `accy inspect` prints

The reader is a bounds-checked cursor over the bytes: every size, count and id is checked
against what is there before it is used, and every check of the format (docs/runtime.md), and
what Python itself builds from the info JSON and the IR texts, passes before the Executable is
made. Any failure is a BundleError naming the section and the field; nothing else is raised.
"""
import json
import math
import os
import re
import stat
import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache

from accy._core.attributes import MAX_NESTING, DictAttr
from accy._core.context import Context
from accy._core.text import parse
from accy._core.types import FunctionType, TensorType
from accy.errors import AccyError, BundleError
from accy.frontend.tensor import STRUCTURES
from accy.lowering.kernelize import HostFallback
from accy.lowering.launch import Launch as KernelLaunch
from accy.passes.target import TargetError, TargetProfile, target_from_attribute
from accy.runtime import bundle_format as F
from accy.runtime.bundle_writer import save, write
from accy.runtime.executable import Executable, KernelInfo
from accy.runtime.program import (Copy, Host, HostProgram, Launch, Loop, Memset, Operand, Ref,
                                  Slot, StatePair)

__all__ = ["read", "load", "write", "save", "describe"]


def read(data, parse_modules=True):
    """The Executable of bundle bytes `data`; BundleError when they are not a valid bundle.
    With `parse_modules` False the IR texts (the module text, host steps' modules) are checked
    as UTF-8 only and parsed on first use: for bundles this accy wrote and checksummed (the
    compile cache's entries), whose texts it printed itself."""
    return _decode(data, parse_modules).executable


def load(path):
    """The Executable of the bundle file at `path` (OSError when it cannot be read)."""
    return read(read_bytes(path))


MAX_STREAM_BYTES = 1 << 32      # what is read of a file that is not a regular one (a pipe)


def read_bytes(path):
    """The bytes of the bundle file at `path`, read no further than its header's file size
    (and one byte more, to tell a file longer than it says), and, where the file is not a
    regular one, at most MAX_STREAM_BYTES: `accy inspect /dev/zero` reads 72 bytes."""
    with open(path, "rb") as f:
        head = f.read(F.HEADER_BYTES)
        if len(head) < F.HEADER_BYTES or head[:len(F.MAGIC)] != F.MAGIC:
            return head                 # the reader names what is wrong with it
        declared = struct.unpack_from("<Q", head, 16)[0]
        info = os.fstat(f.fileno())
        limit = info.st_size if stat.S_ISREG(info.st_mode) else MAX_STREAM_BYTES
        if declared > limit:
            _fail("header", f"it gives a file size of {declared} bytes; the file has "
                            + (f"{limit} bytes" if stat.S_ISREG(info.st_mode) else
                               f"more than accy reads of a stream ({limit} bytes)"))
        return head + f.read(max(declared - F.HEADER_BYTES, 0) + 1)


def describe(data):
    """The bundle `data` as text: its header, sections, signature, kernels and host program
    (checked whole first, as `read` checks it)."""
    b = _decode(data)
    exe = b.executable
    lines = [f"accy bundle, format version {F.VERSION}, written by accy {b.accy_version}, "
             f"target {b.arch}, {b.size} bytes",
             f"sections ({len(b.sections)}):"]
    lines += [f"  {F.SECTION_NAMES[kind]:<14} offset {offset:>8}  length {length:>8}  "
              f"crc32 {crc:08x}" for kind, crc, offset, length in b.sections]
    lines.append(f"function {exe.function}: ({', '.join(_tensor_text(a) for a in exe.arguments)})"
                 f" -> ({', '.join(_tensor_text(r) for r in exe.results)})")
    lines.append(f"kernels ({len(exe.kernels)}):")
    lines += [f"  {k.name}: {k.kind} ({k.schedule} schedule), "
              f"{'the ptx section' if k.ptx is None else 'its own module'}, {k.launch.text()}"
              for k in exe.kernels]
    lines += [f"host fallback: item {f.work_item} {f.kind} ({f.reason})" for f in exe.fallbacks]
    return "\n".join(lines) + "\n" + exe.program.text()


def _tensor_text(signature):
    shape, dtype = signature
    return f"{dtype}[{','.join(map(str, shape))}]"


@dataclass(frozen=True)
class _Bundle:
    size: int
    accy_version: str
    arch: str
    sections: tuple         # (kind, crc, offset, length) in table order
    executable: Executable


def _decode(data, parse_modules=True):
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise BundleError(f"bundle: a bundle is bytes, got {type(data).__name__}")
    data = bytes(data)
    size, accy_version, arch, entries = _header(data)
    sections = _sections(data, entries)
    manifest = _manifest(_Cursor(sections[F.MANIFEST], F.MANIFEST))
    modules = _kernel_modules(sections, manifest)
    ptx = _ptx(sections, manifest)
    params = _params(ptx, modules, manifest)
    if F.CUBIN in sections:
        _check_elf(sections[F.CUBIN])
    program = _Program(_Cursor(sections[F.PROGRAM], F.PROGRAM), manifest, params).read()
    module_text = _text(sections, F.MODULE_TEXT)
    info = _Info(sections[F.INFO], manifest, program, arch).read()
    parsed = _check_modules(module_text, info["function"], manifest, program) \
        if parse_modules else {}
    kernels = tuple(KernelInfo(k["name"], k["kind"], k["work_item"], k["scope"], k["schedule"],
                               k["launch"], k["workspace"], modules.get(k["name"]))
                    for k in info["kernels"])
    exe = Executable(
        ptx=ptx, cubin=sections.get(F.CUBIN), program=program, arguments=manifest.arguments,
        results=manifest.results, module_text=module_text, function=info["function"],
        kernels=kernels, fallbacks=info["fallbacks"], target=info["target"],
        stats=info["stats"], timings=info["timings"], rebuild=info["rebuild"],
        _modules=parsed)
    return _Bundle(size, accy_version, arch, tuple(entries), exe)


# ---- header and section table -------------------------------------------------------------

MAX_MESSAGE = 1000      # a message quotes names and values from the file: a long one is cut


def _fail(where, message):
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE * 2 // 3] + " ... " + message[-MAX_MESSAGE // 3:]
    raise BundleError(f"bundle: {where}: {message}")


def _header(data):
    size = len(data)
    if size < F.HEADER_BYTES:
        _fail("header", f"the file is {size} bytes, shorter than the {F.HEADER_BYTES}-byte "
                        f"header")
    magic, version, count, file_size, accy_version, arch, crc, reserved = \
        F.HEADER.unpack_from(data)
    if magic != F.MAGIC:
        _fail("header", f"the magic is {magic!r}, not {F.MAGIC!r}: not an accy bundle")
    if version != F.VERSION:
        _fail("header", f"format version {version}; this reader reads version {F.VERSION}")
    if count > F.MAX_SECTIONS:
        _fail("header", f"section count {count} is more than {F.MAX_SECTIONS}")
    if file_size != size:
        _fail("header", f"the file is {size} bytes, but its header says {file_size} (cut "
                        f"short, or bytes added)")
    table_end = F.HEADER_BYTES + F.ENTRY_BYTES * count
    if table_end > size:
        _fail("section table", f"{count} entries end at byte {table_end}, past the file's "
                               f"{size} bytes")
    zeroed = data[:F.CRC_AT] + b"\0\0\0\0" + data[F.CRC_AT + 4:table_end]
    if zlib.crc32(zeroed) != crc:
        _fail("header", f"the header's CRC-32 is {crc:08x}, but the header and section table "
                        f"hold {zlib.crc32(zeroed):08x}")
    if reserved != 0:
        _fail("header", f"the reserved field is {reserved}, not 0")
    entries = [F.ENTRY.unpack_from(data, F.HEADER_BYTES + F.ENTRY_BYTES * i)
               for i in range(count)]
    return (size, _padded(accy_version, "accy version"), _padded(arch, "target arch"),
            entries)


def _padded(field, what):
    text = field.rstrip(b"\0")
    if not text or not all(0x20 <= c < 0x7F for c in text):
        _fail("header", f"the {what} field {field!r} is not printable ASCII padded with NULs")
    return text.decode("ascii")


def _sections(data, entries):
    """{kind: bytes} of every section, its bounds and CRC checked."""
    table_end = F.HEADER_BYTES + F.ENTRY_BYTES * len(entries)
    found = {}
    for i, (kind, crc, offset, length) in enumerate(entries):
        where = f"section table: entry {i}"
        if kind not in F.SECTION_NAMES:
            _fail(where, f"kind {kind} is not a section kind of format version {F.VERSION} "
                         f"(1 to {len(F.SECTION_NAMES)})")
        name = F.SECTION_NAMES[kind]
        if kind in found:
            _fail(where, f"a second {name} section (kind {kind})")
        if offset < table_end:
            _fail(where, f"the {name} section's offset {offset} is inside the header or table "
                         f"(which end at {table_end})")
        if offset + length > len(data):
            _fail(where, f"the {name} section ({length} bytes at offset {offset}) runs past "
                         f"the end of the file ({len(data)} bytes)")
        found[kind] = (offset, length, crc)
    spans = sorted((offset, offset + length, kind) for kind, (offset, length, _) in found.items()
                   if length)              # an empty section overlaps nothing
    for (_, end, first), (start, _, second) in zip(spans, spans[1:]):
        if start < end:
            _fail("section table", f"the {F.SECTION_NAMES[first]} and "
                                   f"{F.SECTION_NAMES[second]} sections overlap")
    for kind in F.REQUIRED:
        if kind not in found:
            _fail("section table", f"there is no {F.SECTION_NAMES[kind]} section (kind {kind}),"
                                   f" which every bundle has")
    out = {}
    for kind, (offset, length, crc) in found.items():
        section = data[offset:offset + length]
        if zlib.crc32(section) != crc:
            _fail(f"{F.SECTION_NAMES[kind]} section",
                  f"its CRC-32 is {zlib.crc32(section):08x}, the table says {crc:08x}")
        out[kind] = section
    return out


def _ptx(sections, manifest):
    """The ptx section's text ("" when there is none), which the manifest's kernels of
    module 0 need."""
    needed = any(module == F.IN_PTX for _, module in manifest.kernels)
    if F.PTX not in sections:
        if needed:
            _fail("section table", "there is no ptx section, but the manifest has kernels in it")
        return ""
    ptx = _text(sections, F.PTX)
    if needed and not ptx:
        _fail("ptx section", "it is empty, but the manifest has kernels in it")
    if ptx.startswith("\x7fELF"):
        _fail("ptx section", "it is an ELF file, not PTX text")
    return ptx


# ---- what the driver reads: kernels' parameters, the cubin's ELF ---------------------------

_COMMENT = re.compile(r'"[^"]*"?|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)
_SPACE = " \t\n\r"
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$%.")
_SCALARS = (".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64", ".b8", ".b16", ".b32",
            ".b64", ".f16", ".f32", ".f64")


def _params(ptx, modules, manifest):
    """{kernel: the number of parameters its .entry declares}: a launch passes exactly that
    many, 8 bytes each (the driver reads as many as the entry declares)."""
    code = {None: _blanked(ptx)}
    out = {}
    for name, module in manifest.kernels:
        where = "ptx section" if module == F.IN_PTX else "kernel modules section"
        if module == F.IN_KERNEL_MODULES:
            if modules[name].startswith("\x7fELF"):
                _fail(where, f"kernel {name}'s module is an ELF file, not PTX text")
            code[name] = _blanked(modules[name])
        out[name] = _entry_params(code[None if module == F.IN_PTX else name], name, where)
    return out


def _blanked(code):
    """`code` with its comments blanked (strings kept), as `_COMMENT.sub` would give it. A
    match starts only at a quote or a slash, so the scan jumps between those with str.find
    (the pattern's alternatives tried at every character cost ~6 ns a character); each
    character's next position is found again only once the scan has passed it, so the scan
    stays linear whatever the text."""
    parts, at, pos, n = [], 0, 0, len(code)
    quote = slash = -1
    while pos < n:
        if 0 <= quote < pos or quote == -1:
            quote = code.find('"', pos)
            if quote < 0:
                quote = n
        if 0 <= slash < pos or slash == -1:
            slash = code.find("/", pos)
            if slash < 0:
                slash = n
        pos = min(quote, slash)
        if pos >= n:
            break
        m = _COMMENT.match(code, pos)
        if m is None:
            pos += 1
            continue
        if code[pos] != '"':
            parts.append(code[at:pos])
            parts.append(" " * (m.end() - pos))
            at = m.end()
        pos = m.end()
    if not parts:
        return code
    parts.append(code[at:])
    return "".join(parts)


def _entry_params(code, name, where):
    """The parameter count of kernel `name`'s first `.entry` in `code` (comments blanked),
    found as libaccyrt finds it: `.entry` after a space or the start, spaces, the name (not
    followed by a name character), spaces, '('."""
    at, n = 0, len(code)
    while True:
        at = code.find(".entry", at)
        if at < 0:
            _fail(where, f"kernel {name} has no .entry in its module")
        c = at + 6
        before = at == 0 or code[at - 1] in _SPACE
        at = c
        if not before or c >= n or code[c] not in _SPACE:
            continue
        while c < n and code[c] in _SPACE:
            c += 1
        after = c + len(name)
        if not code.startswith(name, c) or (after < n and code[after] in _NAME_CHARS):
            continue
        c = after
        while c < n and code[c] in _SPACE:
            c += 1
        if c < n and code[c] == "(":
            break
    end = code.find(")", c + 1)
    if end < 0:
        _fail(where, f"kernel {name}'s .entry has no ')'")
    parts = code[c + 1:end].split(",")
    if len(parts) == 1 and not parts[0].strip(_SPACE):
        return 0
    for i, part in enumerate(parts):
        q = part.lstrip(_SPACE)
        ok = len(q) > 6 and q.startswith(".param") and q[6] in _SPACE
        if ok:
            rest = q[6:].lstrip(_SPACE)
            ok = "[" not in rest and any(len(rest) > len(t) and rest.startswith(t)
                                         and rest[len(t)] in _SPACE for t in _SCALARS)
        if not ok:
            _fail(where, f"kernel {name}'s parameter {i} is not a scalar of at most 8 bytes "
                         f"(a launch passes 8 bytes a parameter)")
    return len(parts)


def _check_elf(cubin):
    """A 64-bit little-endian ELF file whose program and section headers, and the bytes they
    place, lie inside it: what the driver reads of a cubin, which it takes with no size."""
    n = len(cubin)
    if n < 64 or cubin[:4] != b"\x7fELF":
        _fail("cubin section", f"the cubin ({n} bytes) is not an ELF file")
    if cubin[4] != 2 or cubin[5] != 1:
        _fail("cubin section", "the cubin is not a 64-bit little-endian ELF file")
    phoff, shoff = struct.unpack_from("<QQ", cubin, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", cubin, 0x36)
    for what, offset, count, size, least in (("program", phoff, phnum, phentsize, 56),
                                             ("section", shoff, shnum, shentsize, 64)):
        if not count:
            continue
        if size < least or offset + count * size > n:
            _fail("cubin section", f"the cubin's {what} headers lie outside its {n} bytes")
        for i in range(count):
            h = offset + i * size
            if what == "section":
                placed = struct.unpack_from("<I", cubin, h + 4)[0] != 8     # SHT_NOBITS
                at, length = struct.unpack_from("<QQ", cubin, h + 0x18)
            else:
                placed = True
                at, length = struct.unpack_from("<Q", cubin, h + 8)[0], \
                    struct.unpack_from("<Q", cubin, h + 0x20)[0]
            if placed and at + length > n:
                _fail("cubin section", f"the cubin's {'section' if what == 'section' else 'segment'}"
                                       f" {i} lies outside its {n} bytes")


def _text(sections, kind):
    data = sections[kind]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail(f"{F.SECTION_NAMES[kind]} section", f"byte {e.start} is not UTF-8")
    if "\0" in text:
        _fail(f"{F.SECTION_NAMES[kind]} section", f"a NUL at byte {data.index(0)}")
    return text


# ---- the cursor -----------------------------------------------------------------------------

_U8, _U32, _U64, _I64 = (struct.Struct(f) for f in ("<B", "<I", "<Q", "<q"))


class _Cursor:
    """Reads one section front to back; every read is checked against the bytes left."""

    def __init__(self, data, kind):
        self.data, self.pos, self.where = data, 0, F.SECTION_NAMES[kind] + " section"

    def fail(self, message):
        _fail(self.where, message)

    @property
    def left(self):
        return len(self.data) - self.pos

    def take(self, n, what):
        pos = self.pos
        if pos + n > len(self.data):
            self.fail(f"{what} needs {n} bytes at byte {pos}, {self.left} are left")
        self.pos = pos + n
        return self.data[pos:pos + n]

    def _unpack(self, form, what):
        pos = self.pos
        if pos + form.size > len(self.data):
            self.fail(f"{what} needs {form.size} bytes at byte {pos}, {self.left} are left")
        self.pos = pos + form.size
        return form.unpack_from(self.data, pos)[0]

    def u8(self, what):
        return self._unpack(_U8, what)

    def u32(self, what):
        return self._unpack(_U32, what)

    def u64(self, what):
        return self._unpack(_U64, what)

    def i64(self, what):
        return self._unpack(_I64, what)

    def count(self, what, item_bytes):
        """A u32 count of items taking at least `item_bytes` each, checked against the bytes
        left before any is read."""
        n = self.u32(f"the count of {what}")
        if n * item_bytes > self.left:
            self.fail(f"the count of {what} is {n}, which take at least {n * item_bytes} "
                      f"bytes, but {self.left} are left")
        return n

    def str(self, what):
        n = self.u32(f"the length of {what}")
        data = self.take(n, what)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"{what} is not UTF-8")
        if "\0" in text:
            self.fail(f"{what} holds a NUL")
        return text

    def name(self, what):
        text = self.str(what)
        if not text or not text.isascii():
            self.fail(f"{what} {text!r} is not a non-empty ASCII name")
        return text

    def tensor(self, what):
        """(shape, dtype): a dtype, then a shape whose bytes fit below 2^63."""
        dtype = self.str(f"{what}'s dtype")
        if dtype not in F.DTYPE_BYTES:
            self.fail(f"{what}'s dtype {dtype!r} is not one of {' '.join(F.DTYPE_BYTES)}")
        rank = self.u32(f"{what}'s rank")
        if rank > F.MAX_RANK:
            self.fail(f"{what}'s rank {rank} is more than {F.MAX_RANK}")
        dims = tuple(self.i64(f"{what}'s dim {i}") for i in range(rank))
        if any(d < 0 for d in dims):
            self.fail(f"{what} has a negative dim: {list(dims)}")
        if math.prod(dims) * F.DTYPE_BYTES[dtype] >= F.MAX_TENSOR_BYTES:
            self.fail(f"{what}'s {dtype}{list(dims)} is 2^63 bytes or more")
        return dims, dtype

    def done(self):
        if self.left:
            self.fail(f"{self.left} bytes are left over after its last field (at byte "
                      f"{self.pos})")


def _nbytes(shape, dtype):
    return math.prod(shape) * F.DTYPE_BYTES[dtype]


# ---- manifest and kernel modules ------------------------------------------------------------

@dataclass(frozen=True)
class _Manifest:
    arguments: tuple        # (shape, dtype)
    results: tuple
    kernels: tuple          # (name, module)


def _manifest(c):
    signatures = []
    for what in ("argument", "result"):
        n = c.count(f"{what}s", F.TENSOR_MIN)
        signatures.append(tuple(c.tensor(f"{what} {i}") for i in range(n)))
    n = c.count("kernels", F.KERNEL_MIN)
    kernels, seen = [], set()
    for i in range(n):
        name = c.name(f"kernel {i}'s name")
        module = c.u8(f"kernel {name}'s module")
        if module not in (F.IN_PTX, F.IN_KERNEL_MODULES):
            c.fail(f"kernel {name}'s module is {module}, not 0 (ptx) or 1 (kernel modules)")
        if name in seen:
            c.fail(f"kernel {name} is listed twice")
        seen.add(name)
        kernels.append((name, module))
    c.done()
    return _Manifest(signatures[0], signatures[1], tuple(kernels))


def _kernel_modules(sections, manifest):
    """{kernel name: its own PTX} for the kernel_call kernels."""
    calls = {name for name, module in manifest.kernels if module == F.IN_KERNEL_MODULES}
    if F.KERNEL_MODULES not in sections:
        if calls:
            _fail("section table", f"there is no kernel modules section, but the manifest "
                                   f"has {len(calls)} kernel_call kernels")
        return {}
    c = _Cursor(sections[F.KERNEL_MODULES], F.KERNEL_MODULES)
    n = c.count("modules", F.MODULE_MIN)
    modules = {}
    for i in range(n):
        name = c.name(f"module {i}'s kernel")
        if name not in calls:
            c.fail(f"module {i} is for kernel {name}, which the manifest does not list as a "
                   f"kernel_call (module 1)")
        if name in modules:
            c.fail(f"kernel {name} has two modules")
        modules[name] = c.str(f"kernel {name}'s PTX")
    c.done()
    missing = sorted(calls - set(modules))
    if missing:
        c.fail(f"no module for kernel {missing[0]}")
    return modules


# ---- the host program -----------------------------------------------------------------------

class _Program:
    """Reads the program section into a HostProgram, checking it against the manifest."""

    def __init__(self, c, manifest, params):
        self.c, self.manifest, self.params = c, manifest, params
        self.slots = ()
        self.declared = set()       # the state slots some loop has declared
        self.room = {}              # state slot -> the bytes both of its buffers hold

    def read(self):
        c, m = self.c, self.manifest
        n = c.count("slots", F.SLOT_MIN)
        self.slots = tuple(self.slot(i) for i in range(n))
        self.check_positions()
        n = c.count("arguments", 8)
        if n != len(m.arguments):
            c.fail(f"{n} arguments, but the manifest has {len(m.arguments)}")
        arguments = tuple(self.argument(i) for i in range(n))
        for s in self.slots:
            if s.kind == "argument" and arguments[s.position] != s.id:
                c.fail(f"argument slot {s.id} (position {s.position}) is not the one argument "
                       f"{s.position} names")
        n = c.count("results", F.OPERAND_MIN)
        if n != len(m.results):
            c.fail(f"{n} results, but the manifest has {len(m.results)}")
        results = [self.raw_operand(f"result {i}") for i in range(n)]
        for i, (_, shape, dtype) in enumerate(results):
            if (shape, dtype) != m.results[i]:
                c.fail(f"result {i} is {dtype}{list(shape)}, but the manifest says "
                       f"{m.results[i][1]}{list(m.results[i][0])}")
        bound = set()
        steps = self.steps(bound, 0)
        c.done()
        results = tuple(self.operand(raw, f"result {i}", bound)
                        for i, raw in enumerate(results))
        for i, r in enumerate(results):
            s = self.slots[r.ref.slot]
            if s.kind == "result" and (s.position != i or r.ref.offset):
                c.fail(f"result {i} lies in result slot {s.id} (position {s.position}) at "
                       f"offset {r.ref.offset}: a result in a result slot is in its own, at "
                       f"offset 0")
        return HostProgram(self.slots, steps, arguments, results)

    def slot(self, i):
        c = self.c
        code = c.u8(f"slot {i}'s kind")
        if code >= len(F.SLOT_CODES):
            c.fail(f"slot {i}'s kind is {code}, not 0 to {len(F.SLOT_CODES) - 1}")
        kind = F.SLOT_CODES[code]
        position = c.i64(f"slot {i}'s position")
        nbytes = c.u64(f"slot {i}'s size")
        if nbytes >= F.MAX_SLOT_BYTES:
            c.fail(f"slot {i}'s size {nbytes} is 2^48 bytes or more")
        if kind == "state" and nbytes:
            c.fail(f"slot {i} is a state slot of {nbytes} bytes (a state slot has none)")
        n_data = c.u64(f"slot {i}'s data length")
        if n_data != (nbytes if kind == "constant" else 0):
            c.fail(f"slot {i} ({kind}, {nbytes} bytes) has {n_data} bytes of data"
                   + (" (a constant holds exactly its size)" if kind == "constant" else
                      " (only a constant has data)"))
        data = c.take(n_data, f"slot {i}'s data") if kind == "constant" else None
        note = c.str(f"slot {i}'s note")
        return Slot(i, kind, nbytes, None if position == -1 else position, data, note)

    def check_positions(self):
        c, m = self.c, self.manifest
        results = set()
        for s in self.slots:
            p = s.position
            if s.kind not in ("argument", "result"):
                if p is not None:
                    c.fail(f"slot {s.id} ({s.kind}) has position {p}, not -1")
                continue
            tensors = m.arguments if s.kind == "argument" else m.results
            if p is None or not 0 <= p < len(tensors):
                c.fail(f"{s.kind} slot {s.id} has position {-1 if p is None else p}, not one "
                       f"of the manifest's {len(tensors)} {s.kind}s")
            if s.kind == "result":
                if p in results:
                    c.fail(f"result slot {s.id} has position {p}, as another result slot does")
                results.add(p)
            want = _nbytes(*tensors[p])
            if s.nbytes != want:
                c.fail(f"{s.kind} slot {s.id} is {s.nbytes} bytes, but {s.kind} {p} is {want}")

    def argument(self, i):
        slot = self.c.i64(f"argument {i}'s slot")
        if slot == -1:
            return None
        if not 0 <= slot < len(self.slots) or self.slots[slot].kind != "argument" or \
                self.slots[slot].position != i:
            self.c.fail(f"argument {i} names slot {slot}, which is not the argument slot at "
                        f"position {i}")
        return slot

    # refs and operands

    def raw_ref(self, what):
        return self.c.u32(f"the slot of {what}"), self.c.u64(f"the offset of {what}")

    def ref(self, raw, what, nbytes, bound, state=True, writes=False):
        """Ref `raw` (slot, offset), checked: its slot in range; in a slot with memory, its
        offset plus `nbytes` inside; in a state slot (where `state` allows one), offset 0, the
        slot in `bound` and `nbytes` within both of its buffers; where the step `writes` it,
        not in an argument or constant slot (the caller's inputs are read only)."""
        slot, offset = raw
        if slot >= len(self.slots):
            self.c.fail(f"slot {slot} of {what} is past the {len(self.slots)} slots")
        s = self.slots[slot]
        if writes and s.kind in ("argument", "constant"):
            self.c.fail(f"{what} writes {s.kind} slot {slot}, which is read only")
        if s.kind == "state":
            if slot in self.room and nbytes > self.room[slot]:
                self.c.fail(f"{what}: {nbytes} bytes through state slot {slot} are more than "
                            f"its buffers hold ({self.room[slot]} bytes)")
            if not state:
                self.c.fail(f"{what} is state slot {slot}, which it may not be")
            if offset:
                self.c.fail(f"{what} is state slot {slot} at offset {offset}, not 0")
            if slot not in bound:
                self.c.fail(f"{what} reads state slot {slot} where no loop binds it")
        elif offset + nbytes > s.nbytes:
            self.c.fail(f"{what}: {nbytes} bytes at offset {offset} of slot {slot} are past "
                        f"its {s.nbytes} bytes")
        return Ref(slot, offset)

    def raw_operand(self, what):
        raw = self.raw_ref(what)
        shape, dtype = self.c.tensor(what)
        return raw, shape, dtype

    def operand(self, raw_operand, what, bound, writes=False):
        raw, shape, dtype = raw_operand
        return Operand(self.ref(raw, what, _nbytes(shape, dtype), bound, writes=writes), shape,
                       dtype)

    # steps

    def steps(self, bound, depth):
        """A step list; `bound` the state slots its steps may read, to which a loop among them
        adds its own for the steps after it."""
        c = self.c
        n = c.count(f"steps (depth {depth})", F.ANY_STEP_MIN)
        steps = []
        for i in range(n):
            tag = c.u8("a step's tag")
            if tag not in F.STEP_MIN:
                c.fail(f"a step's tag is {tag}, not 1 to {len(F.STEP_MIN)}")
            read = {F.LAUNCH: self.launch, F.MEMSET: self.memset, F.COPY: self.copy,
                    F.LOOP: self.loop, F.HOST: self.host}[tag]
            steps.append(read(bound, depth))
        return tuple(steps)

    def launch(self, bound, depth):
        c = self.c
        kernel = c.name("a launch's kernel")
        if kernel not in {name for name, _ in self.manifest.kernels}:
            c.fail(f"a launch names kernel {kernel}, which the manifest does not list")
        grid = tuple(c.u32(f"launch {kernel}'s grid") for _ in range(3))
        block = tuple(c.u32(f"launch {kernel}'s block") for _ in range(3))
        shared = c.u32(f"launch {kernel}'s shared bytes")
        if min(grid + block) < 1:
            c.fail(f"launch {kernel} has grid {grid} and block {block}: every dim is at least 1")
        if math.prod(block) > F.MAX_BLOCK_THREADS:
            c.fail(f"launch {kernel}'s block {block} is {math.prod(block)} threads, more than "
                   f"{F.MAX_BLOCK_THREADS}")
        if shared > F.MAX_SHARED_BYTES:
            c.fail(f"launch {kernel} asks for {shared} shared bytes, more than "
                   f"{F.MAX_SHARED_BYTES}")
        n = c.count(f"launch {kernel}'s params", F.PARAM_MIN)
        if n != self.params[kernel]:
            c.fail(f"it passes {n} parameters to kernel {kernel}, whose .entry declares "
                   f"{self.params[kernel]}")
        params = []
        for i in range(n):
            tag = c.u8(f"launch {kernel}'s param {i}'s tag")
            if tag == F.PARAM_REF:
                params.append(self.ref(self.raw_ref(f"launch {kernel}'s param {i}"),
                                       f"launch {kernel}'s param {i}", 0, bound))
            elif tag == F.PARAM_SCALAR:
                params.append(c.i64(f"launch {kernel}'s param {i}"))
            else:
                c.fail(f"launch {kernel}'s param {i} has tag {tag}, not 1 (ref) or 2 (i64)")
        return Launch(kernel, grid, block, shared, tuple(params))

    def memset(self, bound, depth):
        raw = self.raw_ref("a memset's target")
        nbytes = self.c.u64("a memset's size")
        value = self.c.u8("a memset's value")
        return Memset(self.ref(raw, "a memset's target", nbytes, bound, writes=True), nbytes,
                      value)

    def copy(self, bound, depth):
        target, source = self.raw_ref("a copy's target"), self.raw_ref("a copy's source")
        nbytes = self.c.u64("a copy's size")
        copy = Copy(self.ref(target, "a copy's target", nbytes, bound, writes=True),
                    self.ref(source, "a copy's source", nbytes, bound), nbytes)
        a, b = copy.target, copy.source
        if a.slot == b.slot and self.slots[a.slot].kind != "state" and a.offset != b.offset \
                and abs(a.offset - b.offset) < nbytes:
            self.c.fail(f"the copy's source and target overlap ({nbytes} bytes at offsets "
                        f"{b.offset} and {a.offset} of slot {a.slot})")
        return copy

    def loop(self, bound, depth):
        c = self.c
        item = c.u32("a loop's item")
        where = f"loop item {item}"
        if depth + 1 > F.MAX_LOOP_DEPTH:
            c.fail(f"{where} nests {depth + 1} loops deep, more than {F.MAX_LOOP_DEPTH}")
        n = c.count(f"{where}'s states", F.STATE_BYTES)
        states, own = [], set()
        for i in range(n):
            pair = []
            for role in ("current", "next"):
                slot = c.u32(f"{where}'s state {i} {role}")
                if slot >= len(self.slots) or self.slots[slot].kind != "state":
                    c.fail(f"{where}'s state {i} {role} is slot {slot}, not a state slot")
                if slot in self.declared:
                    c.fail(f"{where}'s state {i} {role} is state slot {slot}, which a loop "
                           f"declared already")
                self.declared.add(slot)
                own.add(slot)
                pair.append(slot)
            buffers = [self.ref(self.raw_ref(f"{where}'s state {i} {role} buffer"),
                                f"{where}'s state {i} {role} buffer", 0, bound, state=False,
                                writes=True)
                       for role in ("first", "second")]
            room = min(self.slots[b.slot].nbytes - b.offset for b in buffers)
            self.room[pair[0]] = self.room[pair[1]] = room
            states.append(StatePair(pair[0], pair[1], *buffers))
        flag = self.ref(self.raw_ref(f"{where}'s flag"), f"{where}'s flag", 1, bound,
                        state=False)
        inside = bound | own
        cond = self.steps(set(inside), depth + 1)
        body = self.steps(set(inside), depth + 1)
        bound |= own            # the steps after the loop read its final states
        return Loop(item, tuple(states), flag, cond, body)

    def host(self, bound, depth):
        c = self.c
        item = c.u32("a host step's item")
        kind = c.str(f"host item {item}'s kind")
        module = c.str(f"host item {item}'s module")
        operands = []
        for what in ("inputs", "outputs"):
            n = c.count(f"host item {item}'s {what}", F.OPERAND_MIN)
            raw = [self.raw_operand(f"host item {item}'s {what[:-1]} {i}") for i in range(n)]
            operands.append(tuple(self.operand(r, f"host item {item}'s {what[:-1]} {i}", bound,
                                               writes=what == "outputs")
                                  for i, r in enumerate(raw)))
        return Host(item, kind, module, *operands)


# ---- the info JSON --------------------------------------------------------------------------

INFO_KEYS = {"function", "kernels", "fallbacks", "target", "stats", "timings", "rebuild"}
KERNEL_KEYS = {"name", "kind", "work_item", "scope", "schedule", "launch", "workspace"}
FALLBACK_KEYS = {"work_item", "kind", "reason", "scope"}
LAUNCH_KEYS = {"grid", "block", "shared_bytes"}
TARGET_KEYS = {f.name for f in TargetProfile.__dataclass_fields__.values()}
REPORT_STATS = {"bytes", "ideal_bytes", "arena_bytes", "peak_bytes"}


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


class _Info:
    """Reads the info section: what only Python uses (the report's facts, the result
    structure), each field's type checked, and its agreement with the binary sections."""

    def __init__(self, data, manifest, program, arch):
        self.data, self.manifest, self.program, self.arch = data, manifest, program, arch

    def fail(self, message):
        _fail("info section", message)

    def read(self):
        try:
            text = self.data.decode("utf-8")
            info = json.loads(text, parse_constant=_no_constant)
            if "\\u" in text:         # only an escape can make a lone surrogate
                json.dumps(info, ensure_ascii=False).encode("utf-8")
        except RecursionError:
            self.fail("the JSON nests too deep")
        except ValueError as e:     # not UTF-8, not JSON, a number too long, a lone surrogate
            self.fail(f"not valid JSON text: {e}")
        info = self.keys(info, INFO_KEYS, "the info")
        function = info["function"]
        if not isinstance(function, str) or not function:
            self.fail(f"function is {function!r}, not a name")
        return {"function": function, "kernels": self.kernels(info["kernels"]),
                "fallbacks": self.fallbacks(info["fallbacks"]),
                "target": self.target(info["target"]), "stats": self.stats(info["stats"]),
                "timings": self.timings(info["timings"]),
                "rebuild": self.rebuild(info["rebuild"])}

    def keys(self, value, keys, what):
        if not isinstance(value, dict) or set(value) != keys:
            got = sorted(value) if isinstance(value, dict) else type(value).__name__
            self.fail(f"{what} must be an object with the keys {sorted(keys)}, got {got}")
        return value

    def list(self, value, what):
        if not isinstance(value, list):
            self.fail(f"{what} must be a list, got {type(value).__name__}")
        return value

    def int(self, value, what, low=0, high=2 ** 63 - 1):
        if type(value) is not int or not low <= value <= high:
            self.fail(f"{what} is {value!r}, not an integer in [{low}, {high}]")
        return value

    def str(self, value, what):
        if not isinstance(value, str):
            self.fail(f"{what} is {value!r}, not a string")
        return value

    def scope(self, value, what):
        if value is None:
            return None
        value = self.list(value, what)
        if len(value) % 2:
            self.fail(f"{what} has {len(value)} entries, not (item, 'cond' | 'body') pairs")
        for item, label in zip(value[0::2], value[1::2]):
            self.int(item, f"an item of {what}", 0, 2 ** 32 - 1)
            if label not in ("cond", "body"):
                self.fail(f"{what} names block {label!r}, not 'cond' or 'body'")
        return tuple(value)

    def kernels(self, value):
        value = self.list(value, "kernels")
        names = [name for name, _ in self.manifest.kernels]
        if [k.get("name") if isinstance(k, dict) else None for k in value] != names:
            self.fail(f"kernels are not the manifest's {len(names)} kernels, in its order")
        out = []
        for i, k in enumerate(value):
            what = f"kernels[{i}] ({names[i]})"
            self.keys(k, KERNEL_KEYS, what)
            launch = self.keys(k["launch"], LAUNCH_KEYS, f"{what}.launch")
            dims = []
            for key in ("grid", "block"):
                d = self.list(launch[key], f"{what}.launch.{key}")
                if len(d) != 3:
                    self.fail(f"{what}.launch.{key} has {len(d)} dims, not 3")
                dims.append(tuple(self.int(x, f"{what}.launch.{key}", 1, 2 ** 32 - 1)
                                  for x in d))
            shared = self.int(launch["shared_bytes"], f"{what}.launch.shared_bytes", 0,
                              F.MAX_SHARED_BYTES)
            out.append({"name": names[i], "kind": self.str(k["kind"], f"{what}.kind"),
                        "work_item": self.int(k["work_item"], f"{what}.work_item"),
                        "scope": self.scope(k["scope"], f"{what}.scope"),
                        "schedule": self.str(k["schedule"], f"{what}.schedule"),
                        "launch": KernelLaunch(dims[0], dims[1], shared),
                        "workspace": self.int(k["workspace"], f"{what}.workspace")})
        launches = {k["name"]: k["launch"] for k in out}
        for step in _walk(self.program.steps):
            if isinstance(step, Launch):
                want = launches[step.kernel]
                if (step.grid, step.block, step.shared_bytes) != (want.grid, want.block,
                                                                  want.shared_bytes):
                    self.fail(f"kernel {step.kernel}'s launch is {want.text()}, but the program "
                              f"launches it with grid {step.grid} block {step.block} shared "
                              f"{step.shared_bytes}")
        return out

    def fallbacks(self, value):
        out = []
        for i, f in enumerate(self.list(value, "fallbacks")):
            what = f"fallbacks[{i}]"
            self.keys(f, FALLBACK_KEYS, what)
            out.append(HostFallback(self.int(f["work_item"], f"{what}.work_item"),
                                    self.str(f["kind"], f"{what}.kind"),
                                    self.str(f["reason"], f"{what}.reason"),
                                    self.scope(f["scope"], f"{what}.scope")))
        return tuple(out)

    def target(self, value):
        value = self.keys(value, TARGET_KEYS, "target")
        try:
            profile = _target(_frozen(value))
        except (TargetError, TypeError, ValueError) as e:
            self.fail(f"target: {e}")
        if profile.arch != self.arch:
            self.fail(f"target arch {profile.arch} is not the header's {self.arch}")
        return profile

    def stats(self, value):
        if not isinstance(value, dict) or not REPORT_STATS <= set(value):
            self.fail(f"stats must be an object holding {sorted(REPORT_STATS)}")
        return {k: self.int(v, f"stats.{k}") for k, v in value.items()}

    def timings(self, value):
        out = {}
        for i, pair in enumerate(self.list(value, "timings")):
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str) \
                    or type(pair[1]) not in (int, float) or not math.isfinite(pair[1]):
                self.fail(f"timings[{i}] is {pair!r}, not a [stage, milliseconds] pair")
            if pair[0] in out:
                self.fail(f"timings name stage {pair[0]!r} twice")
            out[pair[0]] = pair[1]
        return out

    def rebuild(self, value):
        if value is None:
            return None
        if not isinstance(value, str) or value not in STRUCTURES:
            self.fail(f"rebuild is {value!r}, not null or one of {', '.join(STRUCTURES)}")
        if value == "value" and len(self.manifest.results) != 1:
            self.fail(f"rebuild 'value' needs one result, the manifest has "
                      f"{len(self.manifest.results)}")
        return STRUCTURES[value]


def _frozen(value, depth=0):
    """JSON value `value` as a hashable key that tells apart what JSON does (true from 1, 1
    from 1.0, a list from an object); ValueError past the nesting attributes allow."""
    if depth > MAX_NESTING:
        raise ValueError(f"attributes nest at most {MAX_NESTING} levels")
    if isinstance(value, dict):
        return dict, tuple((k, _frozen(v, depth + 1)) for k, v in value.items())
    if isinstance(value, list):
        return list, tuple(_frozen(v, depth + 1) for v in value)
    return type(value), value


def _thawed(key):
    kind, value = key
    if kind is dict:
        return {k: _thawed(v) for k, v in value}
    if kind is list:
        return [_thawed(v) for v in value]
    return value


@lru_cache(maxsize=64)
def _target(key):
    """The TargetProfile of a bundle's target object (by `_frozen` key): the entries of one
    cache share a handful of targets, and a profile is immutable. Errors are not kept."""
    return target_from_attribute(DictAttr(_thawed(key)))


def _walk(steps):
    for step in steps:
        yield step
        if isinstance(step, Loop):
            yield from _walk(step.cond)
            yield from _walk(step.body)


# ---- the IR texts ---------------------------------------------------------------------------

def _check_modules(module_text, function, manifest, program):
    """{IR text: parsed module} of the module text and the host steps' modules, each parsed,
    verified and holding the function its runs call, of the types they are run with."""
    parsed = {}

    def check(text, where, name, inputs, outputs):
        if text not in parsed:
            try:
                parsed[text] = parse(text, Context(allow_unregistered=True))
            except (AccyError, RecursionError) as e:
                _fail(where, f"the IR does not parse: {str(e).splitlines()[0][:300]}")
        funcs = [op for op in parsed[text].body if op.name == "builtin.func"
                 and op.attributes.get("sym_name") == name]
        if len(funcs) != 1 or funcs[0].regions[0].entry is None:
            _fail(where, f"the IR has no function @{name} with a body")
        ftype = funcs[0].attributes.get("function_type")
        if not isinstance(ftype, FunctionType):
            _fail(where, f"@{name} has no function type")
        want_in = tuple(TensorType(d, s) for s, d in inputs)
        want_out = tuple(TensorType(d, s) for s, d in outputs)
        if tuple(ftype.inputs) != want_in or tuple(ftype.results) != want_out:
            _fail(where, f"@{name} is {ftype}, but it is run as "
                         f"({', '.join(map(str, want_in))}) -> "
                         f"({', '.join(map(str, want_out))})")

    check(module_text, "module text section", function, manifest.arguments, manifest.results)
    for step in _walk(program.steps):
        if isinstance(step, Host):
            check(step.module, f"program section: host item {step.item}'s module", "main",
                  [(o.shape, o.dtype) for o in step.inputs],
                  [(o.shape, o.dtype) for o in step.outputs])
    return parsed
