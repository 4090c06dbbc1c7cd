"""Bundles (docs/runtime.md): every kind of executable (tests/bundles.py) round-trips through its
bundle with bit-identical results and equal fields; the same executable gives the same bytes;
`save` writes only the path named; and bad bundles (cut short, flipped, lying with their CRCs
recomputed, and 10,000+ seeded mutations) are each a BundleError naming the problem, never
another exception and never an executable that cannot be written back."""
import dataclasses
import json
import os
import random
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, strategies as st

import accy
from accy.__main__ import main
from accy.errors import BundleError
from accy.runtime import bundle, bundle_format as F
from accy.runtime.program import Copy, Loop, Memset, Operand, Ref, Slot

from bundles import SAMPLES, compiled, write_samples


def leaves(results):
    return results if isinstance(results, (tuple, list)) else (results,)


def same_bits(a, b):
    a, b = leaves(a), leaves(b)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()


# ---- round trips ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_kind_round_trips(name, rng):
    exe, _ = compiled(name)
    data = bundle.write(exe)
    loaded = bundle.read(data)
    for field in ("ptx", "cubin", "program", "arguments", "results", "module_text", "function",
                  "kernels", "fallbacks", "target", "stats", "timings"):
        assert getattr(loaded, field) == getattr(exe, field), field
    assert loaded.rebuild is exe.rebuild
    assert loaded.program.text() == exe.program.text() and loaded.ptx == exe.ptx
    assert bundle.write(loaded) == data
    arrays = SAMPLES[name][1](rng)          # fresh inputs
    got = loaded.run(*arrays, device="emulator")
    assert type(got) is type(exe.run(*arrays, device="emulator"))
    same_bits(got, exe.run(*arrays, device="emulator"))
    for r in leaves(got):
        if r.dtype.kind == "f":
            assert np.isfinite(r.astype(np.float64)).all()   # no element left unwritten
    if name != "kernel_call":           # the reference cannot run a user's PTX
        same_bits(loaded.run(*arrays, device="reference"), exe.run(*arrays, device="reference"))


@pytest.mark.parametrize("name", ["transformer", "nested_host", "kernel_call", "cubin"])
def test_the_report_of_a_loaded_executable_is_the_original_s(name):
    exe, _ = compiled(name)
    assert bundle.read(bundle.write(exe)).report() == exe.report()


def test_the_same_executable_gives_the_same_bytes(tmp_path):
    exe, _ = compiled("nested_host")
    exe.save(tmp_path / "a.accy")
    exe.save(tmp_path / "b.accy")
    first = (tmp_path / "a.accy").read_bytes()
    assert first == (tmp_path / "b.accy").read_bytes() == bundle.write(exe)
    fn, _, target = SAMPLES["nested_host"]
    again = accy.compile(fn, *compiled("nested_host")[1], target=target)
    again = dataclasses.replace(again, timings=exe.timings)     # the clock differs
    assert bundle.write(again) == first


def test_save_writes_only_the_path_named(tmp_path):
    """A new file renamed onto the path: a link planted there is replaced, not followed, and
    no temporary file is left."""
    exe, arrays = compiled("while_loop")
    folder, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (elsewhere / "victim").write_text("not yours")
    os.symlink(elsewhere / "victim", folder / "m.accy")
    exe.save(str(folder / "m.accy"))
    assert (elsewhere / "victim").read_text() == "not yours"
    assert os.listdir(folder) == ["m.accy"] and not os.path.islink(folder / "m.accy")
    same_bits(accy.load(folder / "m.accy").run(*arrays, device="emulator"),
              exe.run(*arrays, device="emulator"))


def test_a_save_that_fails_leaves_the_old_file(tmp_path):
    exe, _ = compiled("elementwise")
    path = tmp_path / "m.accy"
    exe.save(path)
    odd = dataclasses.replace(exe, rebuild=lambda values: values[::-1])
    with pytest.raises(BundleError, match="rebuild .* is not one of the frontend's output "
                                          "structures"):
        odd.save(path)
    assert path.read_bytes() == bundle.write(exe) and os.listdir(tmp_path) == ["m.accy"]


def test_a_jit_function_s_structures_round_trip(rng):
    """tuple, list and one value: the traced function's output structure, by name."""
    x = rng.standard_normal((3, 4)).astype(np.float32)
    for fn, kind in ((lambda x: (x + 1, x * 2), tuple), (lambda x: [x + 1], list),
                     (lambda x: x - 1, np.ndarray)):
        loaded = bundle.read(bundle.write(accy.compile(fn, x)))
        out = loaded.run(x, device="emulator")
        assert type(out) is kind
        np.testing.assert_array_equal(leaves(out)[0], leaves(fn(x))[0])


def test_the_sample_corpus(tmp_path):
    """write_samples: each bundle loads, and its inputs and results files have the manifest's
    sizes; the emulator's results are what the loaded bundle gives."""
    written = write_samples(tmp_path)
    assert len([w for w in written if w.endswith(".accy")]) == len(SAMPLES)
    for name in SAMPLES:
        exe = accy.load(tmp_path / f"{name}.accy")
        arrays = []
        for i, (shape, dtype) in enumerate(exe.arguments):
            raw = (tmp_path / f"{name}.arg{i}.bin").read_bytes()
            arrays.append(np.frombuffer(raw, accy.ir.numpy_dtype(dtype)).reshape(shape))
        for i, r in enumerate(leaves(exe.run(*arrays, device="emulator"))):
            assert (tmp_path / f"{name}.result{i}.bin").read_bytes() == r.tobytes()


# ---- the command line -----------------------------------------------------------------------

def test_compile_writes_the_bundle_and_inspect_prints_it(tmp_path, capsys):
    assert main(["compile", "accy.examples.transformer:block", "-o", str(tmp_path)]) == 0
    capsys.readouterr()
    exe = accy.load(tmp_path / "block.accy")
    assert exe.ptx == (tmp_path / "block.ptx").read_text()
    assert main(["inspect", str(tmp_path / "block.accy")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"accy bundle, format version 1, written by accy {accy.__version__}, "
                          f"target sm_90")
    for text in ("  manifest       offset      ", "  info ", "function main: (f32[2,16,32], ",
                 "kernels (9):", "main$k4$flash_attention: flash_attention (serial schedule)",
                 exe.program.text()):
        assert text in out


@pytest.mark.parametrize("content, message", [
    (b"", "the file is 0 bytes, shorter than the 72-byte header"),
    (b"not a bundle at all, but long enough to hold a header of seventy-two bytes..",
     "not an accy bundle"),
])
def test_inspect_of_a_bad_file_is_one_error_line(content, message, tmp_path, capsys):
    (tmp_path / "bad.accy").write_bytes(content)
    assert main(["inspect", str(tmp_path / "bad.accy")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("accy: error: bundle: header: ") and message in err
    assert err.count("\n") == 1
    assert main(["inspect", str(tmp_path / "missing.accy")]) == 1
    assert "No such file" in capsys.readouterr().err


# ---- bundles cut short and flipped ----------------------------------------------------------

def table(data):
    """(kind, crc, offset, length) per entry of `data`'s section table."""
    count = struct.unpack_from("<I", data, 12)[0]
    return [F.ENTRY.unpack_from(data, F.HEADER_BYTES + F.ENTRY_BYTES * i) for i in range(count)]


def sections(data):
    return {kind: data[offset:offset + length] for kind, _, offset, length in table(data)}


def pack(parts, version=F.VERSION, arch=b"sm_90"):
    """A bundle of `parts` ({kind: bytes}, or (kind, bytes) pairs in table order), its table,
    sizes and CRCs consistent."""
    parts = list(parts.items()) if isinstance(parts, dict) else list(parts)
    offset = F.HEADER_BYTES + F.ENTRY_BYTES * len(parts)
    entries = []
    for kind, data in parts:
        entries.append(F.ENTRY.pack(kind, zlib.crc32(data), offset, len(data)))
        offset += len(data)
    header = F.HEADER.pack(F.MAGIC, version, len(parts), offset, b"0.1.0", arch, 0, 0)
    return reseal(header + b"".join(entries) + b"".join(d for _, d in parts))


def reseal(data):
    """`data` with its header CRC recomputed (whatever its fields say)."""
    count = min(struct.unpack_from("<I", data, 12)[0], (len(data) - F.HEADER_BYTES) // 24)
    end = F.HEADER_BYTES + F.ENTRY_BYTES * count
    zeroed = data[:F.CRC_AT] + b"\0\0\0\0" + data[F.CRC_AT + 4:end]
    return data[:F.CRC_AT] + struct.pack("<I", zlib.crc32(zeroed)) + data[F.CRC_AT + 4:]


def with_section(data, kind, new):
    parts = [(k, new if k == kind else data[o:o + n]) for k, _, o, n in table(data)]
    return pack(parts)


def refused(data, message):
    with pytest.raises(BundleError, match=message) as e:
        bundle.read(data)
    assert str(e.value).startswith("bundle: ")
    return str(e.value)


SAMPLE = "while_loop"


def test_the_test_packer_makes_the_writer_s_bytes():
    data = bundle.write(compiled(SAMPLE)[0])
    assert pack(sections(data)) == data


def test_truncation_at_every_section_boundary_and_a_spread_of_offsets():
    for name in ("kernel_call", "nested_host", "cubin"):
        data = bundle.write(compiled(name)[0])
        cuts = {0, 1, 8, 71, 72, 73, len(data) - 1}
        for _, _, offset, length in table(data):
            cuts |= {offset - 1, offset, offset + 1, offset + length - 1}
        cuts |= set(range(0, len(data), max(1, len(data) // 97)))
        for cut in sorted(c for c in cuts if 0 <= c < len(data)):
            short = data[:cut]
            want = ("shorter than the 72-byte header" if cut < F.HEADER_BYTES else
                    f"the file is {cut} bytes, but its header says {len(data)}")
            refused(short, want)
            if cut >= F.HEADER_BYTES:       # the header's size made to agree: the table tells
                fixed = reseal(short[:16] + struct.pack("<Q", cut) + short[24:])
                refused(fixed, "bundle: section table: ")


def test_a_flipped_byte_in_any_section_fails_its_crc():
    data = bundle.write(compiled("kernel_call")[0])
    for kind, _, offset, length in table(data):
        for at in (offset, offset + length // 2, offset + length - 1):
            flipped = bytearray(data)
            flipped[at] ^= 0x20
            refused(bytes(flipped), f"bundle: {F.SECTION_NAMES[kind]} section: its CRC-32 is ")
    for at in range(F.HEADER_BYTES + F.ENTRY_BYTES * len(table(data))):
        flipped = bytearray(data)
        flipped[at] ^= 0x01
        refused(bytes(flipped), "bundle: header: ")


def _exe(**changes):
    return dataclasses.replace(compiled(SAMPLE)[0], **changes)


def _program(**changes):
    return dataclasses.replace(compiled(SAMPLE)[0].program, **changes)


def _steps_with(index, step):
    steps = list(compiled(SAMPLE)[0].program.steps)
    steps[index] = step
    return _program(steps=tuple(steps))


def _first_launch():
    return compiled(SAMPLE)[0].program.steps[0]


def _loop():
    return next(s for s in compiled(SAMPLE)[0].program.steps if isinstance(s, Loop))


def _nested(depth):
    """`depth` loops, one inside the other, around the sample's loop body."""
    inner = _loop()
    for _ in range(depth - 1):
        inner = dataclasses.replace(_loop(), states=(), cond=(), body=(inner,))
    return inner


def _write(**program_changes):
    return bundle.write(_exe(program=_program(**program_changes)))


def _patched(kind, find, replace, data=None):
    data = data or bundle.write(compiled(SAMPLE)[0])
    section = sections(data)[kind]
    assert section.count(find) >= 1, find
    return with_section(data, kind, section.replace(find, replace, 1))


def _u32_count(kind, at, value, data=None):
    data = data or bundle.write(compiled(SAMPLE)[0])
    section = bytearray(sections(data)[kind])
    section[at:at + 4] = struct.pack("<I", value)
    return with_section(data, kind, bytes(section))


def _info(edit, name=SAMPLE):
    data = bundle.write(compiled(name)[0])
    info = json.loads(sections(data)[F.INFO])
    edit(info)
    return with_section(data, F.INFO, json.dumps(info).encode())


def _header_field(offset, fmt, value, data=None):
    data = data or bundle.write(compiled(SAMPLE)[0])
    return reseal(data[:offset] + struct.pack(fmt, value) + data[offset + struct.calcsize(fmt):])


def _entry_field(index, field, value):
    data = bundle.write(compiled(SAMPLE)[0])
    at = F.HEADER_BYTES + F.ENTRY_BYTES * index + {"kind": 0, "offset": 8, "length": 16}[field]
    return reseal(data[:at] + struct.pack("<I" if field == "kind" else "<Q", value)
                  + data[at + (4 if field == "kind" else 8):])


def _state_copy_before_the_loop():
    steps = list(compiled(SAMPLE)[0].program.steps)
    return bundle.write(_exe(program=_program(steps=(Copy(Ref(3), Ref(5), 4),) + tuple(steps))))


BAD = {
    # header and table, the CRC recomputed so that the field itself is read
    "wrong version": (lambda: _header_field(8, "<I", 2),
                      "header: format version 2; this reader reads version 1"),
    "too many sections": (lambda: _header_field(12, "<I", 65), "section count 65 is more than 64"),
    "a table past the file": (lambda: _header_field(12, "<I", 60, bundle.write(
                                  compiled("no_kernels")[0])),
                              "section table: 60 entries end at byte 1512, past the file's"),
    "reserved field": (lambda: _header_field(68, "<I", 7), "the reserved field is 7, not 0"),
    "bad arch text": (lambda: _header_field(48, "<4s", b"sm\x0190"), "target arch field .* "
                                                                      "printable ASCII"),
    "unknown section kind": (lambda: _entry_field(1, "kind", 9),
                             "entry 1: kind 9 is not a section kind of format version 1"),
    "kind zero": (lambda: _entry_field(0, "kind", 0), "entry 0: kind 0 is not a section kind"),
    "duplicate kinds": (lambda: _entry_field(1, "kind", F.MANIFEST),
                        "entry 1: a second manifest section"),
    "overlapping sections": (lambda: _entry_field(1, "offset",
                                                  table(bundle.write(compiled(SAMPLE)[0]))[1][2]
                                                  - 1),
                             "overlap"),
    "a section in the table": (lambda: _entry_field(0, "offset", 10),
                               "offset 10 is inside the header or table"),
    "a huge section": (lambda: _entry_field(2, "length", 2 ** 64 - 1), "runs past the end"),
    "no program": (lambda: pack([(k, d) for k, d in sections(bundle.write(compiled(SAMPLE)[0]))
                                 .items() if k != F.PROGRAM]),
                   "there is no program section"),
    "no ptx": (lambda: pack([(k, d) for k, d in sections(bundle.write(compiled(SAMPLE)[0]))
                             .items() if k != F.PTX]),
               "there is no ptx section, but the manifest has kernels in it"),
    "an empty ptx": (lambda: with_section(bundle.write(compiled(SAMPLE)[0]), F.PTX, b""),
                     "ptx section: it is empty, but the manifest has kernels in it"),
    "no kernel modules": (lambda: pack([(k, d) for k, d in
                                        sections(bundle.write(compiled("kernel_call")[0])).items()
                                        if k != F.KERNEL_MODULES]),
                          "no kernel modules section, but the manifest has 1 kernel_call"),
    # counts and sizes that lie
    "lying argument count": (lambda: _u32_count(F.MANIFEST, 0, 2 ** 32 - 1),
                             "manifest section: the count of arguments is 4294967295, which "
                             "take at least"),
    "lying slot count": (lambda: _u32_count(F.PROGRAM, 0, 10 ** 6),
                         "program section: the count of slots is 1000000"),
    "lying string length": (lambda: _u32_count(F.MANIFEST, 4, 2 ** 31),
                            "argument 0's dtype needs 2147483648 bytes at byte 8"),
    "a huge slot": (lambda: _write(slots=(dataclasses.replace(
                        compiled(SAMPLE)[0].program.slots[0], nbytes=2 ** 60),)
                        + compiled(SAMPLE)[0].program.slots[1:]),
                    "slot 0's size 1152921504606846976 is 2.48 bytes or more"),
    "overflowing dims": (lambda: bundle.write(_exe(arguments=(((2 ** 62, 4), "f32"),)
                                                   + compiled(SAMPLE)[0].arguments[1:])),
                         "argument 0's f32\\[4611686018427387904, 4\\] is 2.63 bytes or more"),
    "a negative dim": (lambda: bundle.write(_exe(results=(((-1,), "i32"),)
                                                 + compiled(SAMPLE)[0].results[1:])),
                       "result 0 has a negative dim"),
    "a rank past 64": (lambda: bundle.write(_exe(arguments=(((1,) * 65, "f32"),)
                                                 + compiled(SAMPLE)[0].arguments[1:])),
                       "argument 0's rank 65 is more than 64"),
    "an unknown dtype": (lambda: _patched(F.MANIFEST, b"f32", b"f31"),
                         "argument 0's dtype 'f31' is not one of f64 f32"),
    "leftover bytes": (lambda: with_section(bundle.write(compiled(SAMPLE)[0]), F.MANIFEST,
                                            sections(bundle.write(compiled(SAMPLE)[0]))
                                            [F.MANIFEST] + b"\0"),
                       "manifest section: 1 bytes are left over"),
    # slot ids and refs
    "a ref past the slots": (lambda: _write(steps=(dataclasses.replace(
                                 _first_launch(), params=(Ref(99), 1)),)
                                 + compiled(SAMPLE)[0].program.steps[1:]),
                             "program section: slot 99 of launch main\\$k0\\$elementwise's "
                             "param 0 is past the 9 slots"),
    "a ref past its slot's end": (lambda: _write(steps=(Copy(Ref(0, 1500), Ref(2), 64),)),
                                  "a copy's target: 64 bytes at offset 1500 of slot 0 are past "
                                  "its 1536 bytes"),
    "an argument slot of another size": (lambda: _write(slots=(dataclasses.replace(
                                             compiled(SAMPLE)[0].program.slots[0],
                                             kind="argument", position=1),)
                                             + compiled(SAMPLE)[0].program.slots[1:]),
                                         "argument slot 0 is 1536 bytes, but argument 1 is 4"),
    "a position on an arena": (lambda: _write(slots=(dataclasses.replace(
                                   compiled(SAMPLE)[0].program.slots[0], position=0),)
                                   + compiled(SAMPLE)[0].program.slots[1:]),
                               "slot 0 \\(arena\\) has position 0, not -1"),
    "two results at one position": (lambda: _write(slots=tuple(
                                        dataclasses.replace(s, position=0, nbytes=4)
                                        if s.id == 4 else s
                                        for s in compiled(SAMPLE)[0].program.slots)),
                                    "result slot 4 has position 0, as another result slot"),
    "an argument naming another slot": (lambda: _write(arguments=(2, 2)),
                                        "argument 0 names slot 2, which is not the argument "
                                        "slot at position 0"),
    "constant data of the wrong size": (lambda: _write(slots=compiled(SAMPLE)[0].program.slots
                                                       + (Slot(9, "constant", 8, data=b"1234"),)),
                                        "slot 9 \\(constant, 8 bytes\\) has 4 bytes of data"),
    "a state slot with bytes": (lambda: _write(slots=tuple(
                                    dataclasses.replace(s, nbytes=4) if s.id == 5 else s
                                    for s in compiled(SAMPLE)[0].program.slots)),
                                "slot 5 is a state slot of 4 bytes"),
    "a state read where no loop binds it": (_state_copy_before_the_loop,
                                            "a copy's source reads state slot 5 where no loop "
                                            "binds it"),
    "a state ref at an offset": (lambda: _write(steps=compiled(SAMPLE)[0].program.steps
                                                + (Copy(Ref(3), Ref(5, 4), 4),)),
                                 "a copy's source is state slot 5 at offset 4, not 0"),
    "a loop state that is not a state slot": (
        lambda: _write(steps=tuple(dataclasses.replace(s, states=(dataclasses.replace(
            s.states[0], current=0),) + s.states[1:]) if isinstance(s, Loop) else s
            for s in compiled(SAMPLE)[0].program.steps)),
        "loop item 1's state 0 current is slot 0, not a state slot"),
    "a state slot declared twice": (
        lambda: _write(steps=tuple(dataclasses.replace(s, states=(dataclasses.replace(
            s.states[0], next=s.states[0].current),) + s.states[1:]) if isinstance(s, Loop)
            else s for s in compiled(SAMPLE)[0].program.steps)),
        "state 0 next is state slot 5, which a loop declared already"),
    "a flag in a state slot": (lambda: _write(steps=tuple(
                                   dataclasses.replace(s, flag=Ref(5)) if isinstance(s, Loop)
                                   else s for s in compiled(SAMPLE)[0].program.steps)),
                               "loop item 1's flag is state slot 5, which it may not be"),
    "loops 17 deep": (lambda: _write(steps=(_nested(17),)),
                      "loop item 1 nests 17 loops deep, more than 16"),
    # launches
    "an unknown kernel": (lambda: _write(steps=(dataclasses.replace(_first_launch(),
                                                                    kernel="nope"),)),
                          "a launch names kernel nope, which the manifest does not list"),
    "a zero grid dim": (lambda: _write(steps=(dataclasses.replace(_first_launch(),
                                                                  grid=(0, 1, 1)),)),
                        "every dim is at least 1"),
    "a block of 2048 threads": (lambda: _write(steps=(dataclasses.replace(
                                    _first_launch(), block=(1024, 2, 1)),)),
                                "is 2048 threads, more than 1024"),
    "too much shared memory": (lambda: _write(steps=(dataclasses.replace(
                                   _first_launch(), shared_bytes=300 * 1024),)),
                               "asks for 307200 shared bytes, more than 232448"),
    "an unknown step": (lambda: _patched(F.PROGRAM, b"\x01\x13\x00\x00\x00main$k0",
                                         b"\x09\x13\x00\x00\x00main$k0"),
                        "a step's tag is 9, not 1 to 5"),
    "an unknown param tag": (lambda: _patched(F.PROGRAM, b"\x02\x01\x00\x00\x00\x00\x00\x00\x00"
                                              b"\x03", b"\x07\x01\x00\x00\x00\x00\x00\x00\x00"
                                              b"\x03"),
                             "param 1 has tag 7, not 1 \\(ref\\) or 2 \\(i64\\)"),
    "a copy into an argument": (lambda: bundle.write(_exe(program=_steps_with(
                                    1, Copy(Ref(1), Ref(0), 4)))),
                                "a copy's target writes argument slot 1, which is read only"),
    "more bytes through a state slot than its buffers hold": (
        lambda: bundle.write(_exe(program=_steps_with(4, Memset(Ref(5), 1100)))),
        "1100 bytes through state slot 5 are more than its buffers hold \\(1024 bytes\\)"),
    "a result in another result's slot": (
        lambda: bundle.write(_exe(program=_program(results=(
            Operand(Ref(4), (), "i32"),) + compiled(SAMPLE)[0].program.results[1:]))),
        "result 0 lies in result slot 4 \\(position 1\\) at offset 0"),
    # the manifest against the program
    "a result of another dtype": (lambda: bundle.write(_exe(results=(((), "f32"),)
                                                            + compiled(SAMPLE)[0].results[1:])),
                                  "result 0 is i32\\[\\], but the manifest says f32\\[\\]"),
    "a kernel listed twice": (lambda: bundle.write(_exe(kernels=compiled(SAMPLE)[0].kernels * 2)),
                              "kernel main\\$k0\\$elementwise is listed twice"),
    "a kernel without a name": (lambda: _patched(F.MANIFEST, b"\x13\x00\x00\x00main$k0$elementwise"
                                                 b"\x00", b"\x00\x00\x00\x00"),
                                "kernel 0's name '' is not a non-empty ASCII name"),
    "a kernel with a non-ASCII name": (lambda: _patched(F.MANIFEST, b"main$k0", b"m\xc3\xafn$k0"),
                                       "kernel 0's name 'm\u00efn\\$k0\\$elementwise' is not a "
                                       "non-empty ASCII name"),
    # texts and the info
    "a NUL in the ptx": (lambda: with_section(bundle.write(compiled(SAMPLE)[0]), F.PTX,
                                              b".version 8.0\0"),
                         "ptx section: a NUL at byte 12"),
    "a module text that does not parse": (lambda: with_section(
                                              bundle.write(compiled(SAMPLE)[0]), F.MODULE_TEXT,
                                              b"builtin.module ({ nope"),
                                          "module text section: the IR does not parse"),
    "a module text of another signature": (lambda: with_section(
                                               bundle.write(compiled(SAMPLE)[0]), F.MODULE_TEXT,
                                               compiled("elementwise")[0].module_text.encode()),
                                           "module text section: @main is \\(tensor<64xf32>"),
    "a host module of another signature": (lambda: bundle.write(dataclasses.replace(
                                               compiled("host_only")[0],
                                               program=dataclasses.replace(
                                                   compiled("host_only")[0].program,
                                                   steps=(dataclasses.replace(
                                                       compiled("host_only")[0].program.steps[0],
                                                       module=compiled("elementwise")[0]
                                                       .module_text),)))),
                                           "program section: host item 0's module: @main is"),
    "info not JSON": (lambda: with_section(bundle.write(compiled(SAMPLE)[0]), F.INFO, b"{"),
                      "info section: not valid JSON text"),
    "info NaN": (lambda: with_section(bundle.write(compiled(SAMPLE)[0]), F.INFO, b"NaN"),
                 "info section: not valid JSON text: NaN is not a JSON number"),
    "info deep": (lambda: with_section(bundle.write(compiled(SAMPLE)[0]), F.INFO,
                                       b"[" * 100000 + b"]" * 100000),
                  "info section: the JSON nests too deep"),
    "info missing a key": (lambda: _info(lambda i: i.pop("stats")),
                           "the info must be an object with the keys"),
    "info kernels in another order": (lambda: _info(lambda i: i["kernels"].reverse()),
                                      "kernels are not the manifest's 4 kernels, in its order"),
    "info launch disagreeing": (lambda: _info(lambda i: i["kernels"][0]["launch"].update(
                                    grid=[2, 1, 1])),
                                "kernel main\\$k0\\$elementwise's launch is grid 2x1x1 block "
                                "256x1x1 shared 0, but the program launches it with grid "
                                "\\(1, 1, 1\\)"),
    "info target arch": (lambda: _info(lambda i: i["target"].update(arch="sm_80")),
                         "target arch sm_80 is not the header's sm_90"),
    "info target unknown arch": (lambda: _info(lambda i: i["target"].update(arch="sm_99")),
                                 "target: accy.target.arch must be one of"),
    "info bad schedule": (lambda: _info(lambda i: i["target"]["row_pipeline_schedules"][0]
                                        .update(threads_per_row=0), "scheduled"),
                          "target: accy.target.row_pipeline_schedules\\[0\\].threads_per_row must "
                          "be an integer in \\[1, 1024\\], got 0"),
    "info bad scope": (lambda: _info(lambda i: i["kernels"][1].update(scope=[1, "loop"])),
                       "kernels\\[1\\] .*scope names block 'loop'"),
    "info bad rebuild": (lambda: _info(lambda i: i.update(rebuild="dict")),
                         "rebuild is 'dict', not null or one of value, tuple, list"),
    "info rebuild value with two results": (lambda: _info(lambda i: i.update(rebuild="value")),
                                            "rebuild 'value' needs one result, the manifest "
                                            "has 2"),
    "info a bool for an int": (lambda: _info(lambda i: i["kernels"][0].update(work_item=True)),
                               "work_item is True, not an integer"),
    "info bad timings": (lambda: _info(lambda i: i.update(timings=[["ptx", "fast"]])),
                         "timings\\[0\\] is \\['ptx', 'fast'\\], not a \\[stage, milliseconds\\]"),
    "info stats missing": (lambda: _info(lambda i: i.update(stats={"bytes": 1})),
                           "stats must be an object holding"),
    "info a lone surrogate": (lambda: with_section(
                                  bundle.write(compiled(SAMPLE)[0]), F.INFO,
                                  sections(bundle.write(compiled(SAMPLE)[0]))[F.INFO].replace(
                                      b'"main"', b'"\\ud800"')),
                              "info section: not valid JSON text"),
}


def _cubin_field(offset, fmt, value):
    exe = compiled("cubin")[0]
    cubin = bytearray(exe.cubin)
    struct.pack_into(fmt, cubin, offset, value)
    return bundle.write(dataclasses.replace(exe, cubin=bytes(cubin)))


# what the driver would read past: both readers refuse these (the C one in the test below)
DRIVER = {
    "a launch passing fewer parameters than its entry declares": (
        lambda: _write(steps=(dataclasses.replace(_first_launch(),
                                                  params=_first_launch().params[:1]),)),
        "it passes 1 parameters to kernel main\\$k0\\$elementwise, whose .entry declares 2"),
    "an array parameter": (
        lambda: _patched(F.PTX, b".param .u64 main$k0$elementwise_param_0,",
                         b".param .b8 main$k0$elementwise_param_0[8],"),
        "kernel main\\$k0\\$elementwise's parameter 0 is not a scalar of at most 8 bytes"),
    "an entry the ptx lacks": (
        lambda: _patched(F.PTX, b".entry main$k0$elementwise(", b".entry main$k0$elementwisf("),
        "kernel main\\$k0\\$elementwise has no .entry in its module"),
    "an ELF file for PTX": (lambda: with_section(bundle.write(compiled(SAMPLE)[0]), F.PTX,
                                                 b"\x7fELF" + b"x" * 60),
                            "it is an ELF file, not PTX text"),
    "an empty cubin": (lambda: with_section(bundle.write(compiled("cubin")[0]), F.CUBIN, b""),
                       "the cubin \\(0 bytes\\) is not an ELF file"),
    "a cubin of 32-bit ELF": (lambda: _cubin_field(4, "<B", 1),
                              "not a 64-bit little-endian ELF file"),
    "a cubin whose section headers lie past it": (
        lambda: _cubin_field(0x28, "<Q", 1 << 40), "section headers lie outside its"),
    "a cubin whose section lies past it": (
        lambda: _cubin_field(struct.unpack_from("<Q", compiled("cubin")[0].cubin, 0x28)[0]
                             + 64 + 0x20, "<Q", 1 << 40), "section 1 lies outside its"),
    "an overlapping copy": (lambda: bundle.write(_exe(program=_steps_with(
                                1, Copy(Ref(0, 260), Ref(0, 256), 8)))),
                            "the copy's source and target overlap"),
}
BAD.update(DRIVER)


@pytest.mark.parametrize("case", list(DRIVER))
def test_libaccyrt_refuses_what_the_driver_would_read_past(case):
    from accy.runtime import crt
    with pytest.raises(BundleError):
        crt.Bundle.from_bytes(DRIVER[case][0]())


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_bundle_is_a_bundle_error_naming_the_problem(case):
    make, message = BAD[case]
    refused(make(), message)


def test_a_target_read_once_is_no_excuse_for_a_look_alike_value():
    # targets are decoded once per distinct value; true and 1.0 equal 1 in Python
    def threads(value):
        return _info(lambda i: i["target"]["row_pipeline_schedules"][0].update(
            threads_per_row=value), "scheduled")
    good = bundle.read(threads(1)).target
    assert good.row_pipeline_schedules[0].threads_per_row == 1
    assert bundle.read(threads(1)).target == good
    for look_alike in (True, 1.0):
        refused(threads(look_alike), "threads_per_row must be an integer")


def test_a_target_nested_past_the_attribute_limit_is_refused():
    def deep(i):
        value = 1
        for _ in range(900):
            value = [value]
        i["target"]["row_pipeline_schedules"] = value
    refused(_info(deep), "nest at most 200 levels")


@pytest.mark.parametrize("code", ['"/a' * 20000, '"' * 30001, '/a' * 30000, '"//"/*x*/' * 5000,
                                  'x' * 50000 + '// end'])
def test_comments_are_blanked_as_the_pattern_says_in_long_texts(code):
    def blank(match):
        text = match.group()
        return text if text.startswith('"') else " " * len(text)
    from accy.runtime.bundle import _COMMENT, _blanked
    assert _blanked(code) == _COMMENT.sub(blank, code)


@given(st.text(alphabet='"/*\n .(a', max_size=40))
def test_comments_are_blanked_as_the_pattern_says(code):
    def blank(match):
        text = match.group()
        return text if text.startswith('"') else " " * len(text)
    from accy.runtime.bundle import _COMMENT, _blanked
    assert _blanked(code) == _COMMENT.sub(blank, code)


def test_a_read_of_no_bytes_is_a_bundle_error():
    with pytest.raises(BundleError, match="a bundle is bytes, got str"):
        bundle.read("ACCYBNDL")


def test_the_writer_refuses_what_format_1_cannot_hold():
    with pytest.raises(BundleError, match="a kernel name holds a NUL"):
        bundle.write(_exe(kernels=(dataclasses.replace(compiled(SAMPLE)[0].kernels[0],
                                                       name="a\0b"),)))
    with pytest.raises(BundleError, match="a kernel name 'caf\u00e9' is not a non-empty ASCII"):
        bundle.write(_exe(kernels=(dataclasses.replace(compiled(SAMPLE)[0].kernels[0],
                                                       name="caf\u00e9"),)))
    with pytest.raises(BundleError, match=r"the target arch 'sm 90\\n' is not 1 to 16 printable"):
        bundle.write(_exe(target=dataclasses.replace(compiled(SAMPLE)[0].target,
                                                     arch="sm 90\n")))
    with pytest.raises(BundleError, match="slot 0 of the host program has id 3"):
        bundle.write(_exe(program=_program(slots=(Slot(3, "arena", 8),))))
    with pytest.raises(BundleError, match="timing 'ptx' is nan"):
        bundle.write(_exe(timings={"ptx": float("nan")}))
    with pytest.raises(BundleError, match="a value does not fit its field"):
        bundle.write(_exe(program=_steps_with(0, dataclasses.replace(_first_launch(),
                                                                     grid=(2 ** 32, 1, 1)))))


# ---- fuzzing --------------------------------------------------------------------------------

FUZZ_SAMPLES = ("elementwise", "while_loop", "nested_host", "kernel_call", "constants",
                "no_kernels", "dtypes", "host_only")
FUZZ_FILES = 10_500
INTERESTING = (0, 1, 2, 3, 4, 7, 8, 16, 17, 64, 65, 255, 256, 1023, 1024, 1025, 2 ** 16,
               2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 48, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1)


def _mutate_bytes(r, data):
    data = bytearray(data)
    if not data:
        return bytes(r.randrange(256) for _ in range(r.randrange(1, 9)))
    choice = r.randrange(7)
    at = r.randrange(len(data))
    if choice == 0:
        data[at] ^= 1 << r.randrange(8)
    elif choice == 1:
        data[at] = r.randrange(256)
    elif choice in (2, 3):
        width, fmt = (4, "<I") if choice == 2 else (8, "<Q")
        value = r.choice(INTERESTING)
        if at + width <= len(data) and r.random() < 0.3:     # near the value that was there
            value = max(0, struct.unpack_from(fmt, data, at)[0] + r.choice((-1, 1, 8, 4096)))
        data[at:at + width] = struct.pack(fmt, value % 2 ** (8 * width))[:len(data) - at]
    elif choice == 4:
        del data[at:at + r.randrange(1, 17)]
    elif choice == 5:
        data[at:at] = bytes(r.randrange(256) for _ in range(r.randrange(1, 17)))
    else:
        start = r.randrange(len(data))
        data[at:at] = data[start:start + r.randrange(1, 33)]       # a repeated run
    return bytes(data)


def _mutate_json(r, info):
    """A random leaf of the info replaced by another kind of value, or a key dropped."""
    node = info
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return info
        key = r.choice(keys)
        if isinstance(node[key], (dict, list)) and node[key] and r.random() < 0.7:
            node = node[key]
            continue
        roll = r.randrange(4)
        if roll == 0 and isinstance(node, dict):
            del node[key]
        else:
            node[key] = r.choice((None, True, -1, 0, 2 ** 64, 1.5, "", "x", "sm_80", [],
                                  {}, [1, "body"], {"grid": [1, 1, 1]}))
        return info


def _mutant(r, data):
    """A mutated copy of bundle `data`: mostly inside one section, with every size and CRC
    remade so that the reader reaches the structure; sometimes the header or table, with the
    header CRC remade."""
    parts = list(sections(data).items())
    roll = r.random()
    if roll < 0.12:                                     # the header or the table
        end = F.HEADER_BYTES + F.ENTRY_BYTES * len(parts)
        head = _mutate_bytes(r, data[:end])[:end].ljust(end, b"\0")
        return reseal(head + data[end:]) if r.random() < 0.9 else head + data[end:]
    if roll < 0.17:                                     # sections dropped, repeated or swapped
        i = r.randrange(len(parts))
        if r.random() < 0.5:
            del parts[i]
        else:
            parts.insert(r.randrange(len(parts) + 1), (r.choice(list(range(0, 10))),
                                                       parts[i][1]))
        return pack(parts)
    weights = {F.MANIFEST: 4, F.PROGRAM: 10, F.PTX: 1, F.CUBIN: 1, F.KERNEL_MODULES: 3,
               F.MODULE_TEXT: 2, F.INFO: 4}
    for _ in range(r.choice((1, 1, 1, 2, 3))):
        i = r.choices(range(len(parts)), [weights[k] for k, _ in parts])[0]
        kind, section = parts[i]
        try:
            info = json.loads(section) if kind == F.INFO and r.random() < 0.5 else None
        except ValueError:          # an earlier mutation broke it
            info = None
        section = (_mutate_bytes(r, section) if info is None else
                   json.dumps(_mutate_json(r, info)).encode())
        parts[i] = (kind, section)
    return pack(parts)


def test_ten_thousand_mutated_bundles_are_each_an_error_or_an_executable():
    r = random.Random(20240501)
    originals = [bundle.write(compiled(name)[0]) for name in FUZZ_SAMPLES]
    where, accepted = {}, 0
    for i in range(FUZZ_FILES):
        data = _mutant(r, originals[i % len(originals)])
        try:
            exe = bundle.read(data)
        except BundleError as e:
            message = str(e)
            assert message.startswith("bundle: ") and len(message) < 2000, message
            section = message.split(":")[1].strip()
            where[section] = where.get(section, 0) + 1
            continue
        except Exception as e:          # noqa: BLE001 - the point of the test
            pytest.fail(f"mutant {i} raised {type(e).__name__}: {e}")
        accepted += 1
        again = bundle.write(exe)       # what was accepted can be written, and reads the same
        assert bundle.write(bundle.read(again)) == again
    checked_structure = sum(n for section, n in where.items() if section != "header")
    print(f"fuzz: {accepted} accepted; refused by {dict(sorted(where.items()))}")
    assert set(where) >= {"header", "section table", "manifest section", "program section",
                          "info section", "module text section", "kernel modules section"}
    assert checked_structure > FUZZ_FILES // 2 and where["program section"] > 1000


def test_a_message_quoting_a_long_name_stays_short():
    data = _write(steps=(dataclasses.replace(_first_launch(), kernel="k" * 1_000_000),))
    message = refused(data, "a launch names kernel kkkk.* ... k+, which the manifest does not "
                            "list")
    assert len(message) < 1100


def test_load_reads_no_further_than_the_header_says(tmp_path, capsys):
    """A header giving more bytes than the file holds is refused before they are read; a
    stream (here a FIFO) is read no further than its header's size, itself bounded."""
    import threading
    data = bundle.write(compiled(SAMPLE)[0])
    path = tmp_path / "big.accy"
    path.write_bytes(data[:16] + struct.pack("<Q", 1 << 50) + data[24:])
    with pytest.raises(BundleError, match="gives a file size of 1125899906842624 bytes; the "
                                          f"file has {len(data)} bytes"):
        accy.load(path)
    fifo = tmp_path / "stream.accy"
    os.mkfifo(fifo)
    head = data[:16] + struct.pack("<Q", bundle.MAX_STREAM_BYTES + 1) + data[24:72]
    writer = threading.Thread(target=lambda: fifo.write_bytes(head))
    writer.start()
    with pytest.raises(BundleError, match="more than accy reads of a stream"):
        accy.load(fifo)
    writer.join(10)
    assert main(["inspect", os.devnull]) == 1
    assert "shorter than the 72-byte header" in capsys.readouterr().err


def test_a_save_gets_the_mode_a_plain_create_gives(tmp_path):
    old = os.umask(0o027)
    try:
        compiled(SAMPLE)[0].save(tmp_path / "a.accy")
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "a.accy").st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["a.accy"]


def test_a_read_that_leaves_the_ir_texts_for_later(rng):
    """parse_modules=False (the cache's and the batch workers' own bundles) checks the IR texts
    as UTF-8 only and parses them on first use: the reference device still runs."""
    exe, arrays = compiled(SAMPLE)
    data = bundle.write(exe)
    lazy = bundle.read(data, parse_modules=False)
    assert not lazy._modules
    for a, b in zip(leaves(lazy.run(*arrays, device="reference")),
                    leaves(exe.run(*arrays, device="reference"))):
        same_bits(a, b)
    broken = with_section(data, F.MODULE_TEXT, b"builtin.module ({ nope")
    refused(broken, "module text section: the IR does not parse")
    with pytest.raises(accy.ParseError):
        bundle.read(broken, parse_modules=False).run(*arrays, device="reference")
