"""libaccyrt, accy's C runtime, without a GPU: C programs built only from the installed header
and library (`accy config`) open the sample bundles (tests/bundles.py) and run them on test
devices (tests/c/devices.c); the recording device's log matches the Python runtime's steps for
the same bundle, call for call. The library's sources also go through a fuzz driver under
AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer. Tests marked `gpu` run bundles
on a GPU through the CUDA device and compare with the reference interpreter."""
import dataclasses
import functools
import os
import re
import shutil
import subprocess
import sys

import ml_dtypes  # noqa: F401  (bf16 arrays)
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy._core.types import numpy_dtype
from accy.runtime.executable import _Run
from accy.runtime.native import config_flags
from accy.runtime.program import Launch, Loop, Memset, Operand, Ref, walk

import bundles

CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler")

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS_C = os.path.join(HERE, "c")
ROOT = os.path.dirname(HERE)
EXAMPLE = os.path.join(ROOT, "examples", "c", "run_bundle.c")
LIBRARY_SOURCES = os.path.join(ROOT, "accy", "runtime", "libaccyrt")
STRICT = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"]
WINDOW = 1 << 40            # the test devices' allocations, inputs and outputs are this apart
HOST_STEPS = ("host_only", "nested_host")
RUNNABLE = [name for name in bundles.SAMPLES if name not in HOST_STEPS] + ["nested_loops"]
LOOP_FLAGS = (1, 1, 0)      # each loop runs two trips (an inner one, two per outer trip)


@functools.cache
def accy_config(*flags):
    """`accy config FLAGS` of the installed accy, split into arguments."""
    out = subprocess.run([sys.executable, "-m", "accy", "config", *flags], capture_output=True,
                         text=True, check=True)
    return out.stdout.split()


def compile_c(output, *sources, flags=()):
    subprocess.run([CC, *STRICT, *flags, "-I", TESTS_C, *sources, *accy_config("--cflags",
                                                                              "--libs"),
                    "-o", output], check=True, capture_output=True, text=True)
    return output


@pytest.fixture(scope="session")
def programs(tmp_path_factory):
    """{name: path}: tests/c/check_bundles (with the test devices) and the README's example."""
    folder = tmp_path_factory.mktemp("libaccyrt_programs")
    check = compile_c(str(folder / "check_bundles"), os.path.join(TESTS_C, "check_bundles.c"),
                      os.path.join(TESTS_C, "devices.c"), flags=["-pthread"])
    example = compile_c(str(folder / "run_bundle"), EXAMPLE)
    return {"check": check, "example": example}


def _nested_loops(x, n):
    """Two f32 loops, one inside the other's body: every step runs on the device."""
    return ops.fori_loop(0, n, lambda i, c: ops.fori_loop(
        0, n, lambda j, d: ops.softmax(d * 1.5, -1), c) + 1.0, x)


@pytest.fixture(scope="session")
def samples(tmp_path_factory):
    """The folder of sample bundles (tests/bundles.py), with a nested loop and an sm_90a
    variant of the cubin sample; and {name: Executable}."""
    folder = tmp_path_factory.mktemp("libaccyrt_samples")
    bundles.write_samples(str(folder))
    exes = {name: bundles.compiled(name)[0] for name in bundles.SAMPLES}
    x = np.random.default_rng(5).standard_normal((4, 8)).astype(np.float32) + 0.25
    exes["nested_loops"] = accy.compile(_nested_loops, x, np.int32(2))
    cubin = exes["cubin"]
    exes["cubin_sm90a"] = dataclasses.replace(
        cubin, target=dataclasses.replace(cubin.target, arch="sm_90a"))
    # a launch asking for more than 48 KB of dynamic shared memory
    elementwise = exes["elementwise"]
    launch = elementwise.program.steps[0]
    exes["big_shared"] = dataclasses.replace(elementwise, program=dataclasses.replace(
        elementwise.program, steps=(dataclasses.replace(launch, shared_bytes=100 * 1024),)))
    # result 0 read straight from the argument (no copy step): the runtime copies it out
    copies = exes["copies"]
    program = copies.program
    exes["result_elsewhere"] = dataclasses.replace(copies, program=dataclasses.replace(
        program, steps=program.steps[:1],
        results=(Operand(Ref(program.arguments[0]), (5,), "f32"), program.results[1])))
    for name in ("nested_loops", "cubin_sm90a", "result_elsewhere", "big_shared"):
        exes[name].save(str(folder / f"{name}.accy"))
    return folder, exes


def bundle_path(samples, name):
    return str(samples[0] / f"{name}.accy")


def run(program, *args, check=True):
    out = subprocess.run([program, *map(str, args)], capture_output=True, text=True,
                         timeout=120)
    if check:
        assert out.returncode == 0, out.stdout + out.stderr
    return out


# ---- the signature ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(bundles.SAMPLES) + ["nested_loops"])
def test_signature(programs, samples, name):
    """From the file and from memory: the target, the writer's version, each argument's and
    result's dtype, dims and bytes, as the executable has them; a bundle with host steps does
    not open (ACCYRT_UNSUPPORTED)."""
    exe = samples[1][name]
    out = run(programs["check"], "signature", bundle_path(samples, name), check=False)
    if name in HOST_STEPS:
        assert out.returncode == 1
        assert re.match(r"open_file: 3 bundle: the host program has a host step \(item \d+, "
                        r"'\w+'\): libaccyrt runs no host fallbacks", out.stdout), out.stdout
        return
    assert out.returncode == 0, out.stdout + out.stderr
    want = ["open_file: 0 ", f"target {exe.target.arch}", f"accy {accy.__version__}"]
    for kind, tensors in (("argument", exe.arguments), ("result", exe.results)):
        for i, (shape, dtype) in enumerate(tensors):
            nbytes = int(np.prod(shape, dtype=np.int64)) * numpy_dtype(dtype).itemsize
            want.append(f"{kind} {i} {dtype} [{','.join(map(str, shape))}] {nbytes}")
    assert out.stdout.splitlines() == want


# ---- the C runtime's calls against the Python runtime's ------------------------------------

class _Recorder:
    """A device for accy's Python runtime (`_Run`) that does nothing but log, in the terms the
    C recording device's log is read into; loop flags come from a script, as there."""

    def __init__(self, flags, capability=(9, 0)):
        self.flags, self.capability = list(flags), capability
        self.allocations = 0
        self.loads, self.uploads, self.steps = [], [], []

    def mem_alloc(self, nbytes):
        self.allocations += 1
        return self.allocations * WINDOW

    def mem_free(self, pointer):
        pass

    def memcpy_htod(self, pointer, array):
        self.uploads.append((int(pointer), np.asarray(array).nbytes))

    def memcpy_dtoh(self, array, pointer):
        view = array.reshape(-1).view(np.uint8)
        view[:] = [self.flags.pop(0) if self.flags else 0 for _ in range(view.size)]
        self.steps.append(("flag", int(pointer), int(view[0])))

    def memcpy_dtod(self, target, source, nbytes):
        self.steps.append(("copy", int(target), int(source), int(nbytes)))

    def memset_d8(self, pointer, value, nbytes):
        self.steps.append(("memset", int(pointer), int(value), int(nbytes)))

    def module_from_buffer(self, image):
        cubin = isinstance(image, bytes)
        self.loads.append(("cubin" if cubin else "ptx",
                           len(image) if cubin else len(image.encode()) + 1))
        return self

    def get_function(self, name):
        self.loads.append(("function", name))

        def launch(*args, block, grid, shared):
            self.steps.append(("launch", name, tuple(grid), tuple(block), int(shared),
                               tuple(int(a) % (1 << 64) for a in args)))
        return launch

    def runs_cubin(self, arch):
        major, minor = _numbers(arch)
        if arch.endswith("a"):
            return self.capability == (major, minor)
        return self.capability[0] == major and self.capability[1] >= minor

    def runs_ptx(self, arch):
        if arch.endswith("a"):
            return self.capability == _numbers(arch)
        return _numbers(arch) <= self.capability


def _numbers(arch):
    digits = arch[3:].rstrip("a")
    return int(digits[:-1]), int(digits[-1])


def _symbolic(value, bases):
    """An address as "@slot+offset" when it lies in a slot's window, else a signed scalar."""
    for address, slot in bases:
        if 0 <= value - address < WINDOW:
            return f"@{slot}+{value - address}"
    return f"i64 {value - (1 << 64) if value >= 1 << 63 else value}"


def _normalized(events, bases):
    out = []
    for e in events:
        if e[0] == "launch":
            out.append(e[:5] + (tuple(_symbolic(p, bases) for p in e[5]),))
        elif e[0] == "copy":
            out.append(("copy", _symbolic(e[1], bases), _symbolic(e[2], bases), e[3]))
        else:
            out.append((e[0], _symbolic(e[1], bases)) + e[2:])
    return out


def python_calls(exe, flags, capability=(9, 0)):
    """(loads, constant uploads, steps) of the Python runtime following `exe`'s program."""
    device = _Recorder(flags, capability)
    runner = _Run(exe, device)
    runner.allocate([])
    bases = [(address, slot) for slot, address in runner.base.items()
             if exe.program.slots[slot].kind != "state"]
    runner.steps(exe.program.steps)
    uploads = sorted((_symbolic(p, bases), n) for p, n in device.uploads)
    return sorted(device.loads), uploads, _normalized(device.steps, bases)


def c_calls(exe, log):
    """The same from the C recording device's log: its k-th allocation is the k-th constant,
    arena or scratch slot, in slot order; argument i lies at (0x100 + i) << 40 and result i at
    (0x200 + i) << 40, as check_bundles passes them."""
    program = exe.program
    allocated = [s for s in program.slots if s.kind in ("constant", "arena", "scratch")]
    bases = [((0x100 + s.position) * WINDOW, s.id) for s in program.slots
             if s.kind == "argument"]
    bases += [((0x200 + s.position) * WINDOW, s.id) for s in program.slots if s.kind == "result"]
    loads, uploads, steps, allocations = [], [], [], []
    for line in log:
        word, *rest = line.split()
        if word == "load_module":
            loads.append((rest[0], int(rest[1])))
        elif word == "get_function":
            loads.append(("function", rest[0]))
        elif word == "alloc":
            allocations.append((int(rest[0]), int(rest[2], 16)))
        elif word == "copy_htod":
            uploads.append((int(rest[0], 16), int(rest[1])))
        elif word == "launch":
            m = re.fullmatch(r"launch (\S+) grid (\d+),(\d+),(\d+) block (\d+),(\d+),(\d+) "
                             r"shared (\d+) params((?: 0x[0-9a-f]+)*)", line)
            assert m, line
            n = list(map(int, m.groups()[1:8]))
            steps.append(("launch", m[1], tuple(n[:3]), tuple(n[3:6]), n[6],
                          tuple(int(p, 16) for p in m[9].split())))
        elif word == "memset":
            steps.append(("memset", int(rest[0], 16), int(rest[1]), int(rest[2])))
        elif word == "copy_dtod":
            steps.append(("copy", int(rest[0], 16), int(rest[1], 16), int(rest[2])))
        elif word == "copy_dtoh":
            assert rest[1] == "1", line          # the runtime reads back loop flags only
            steps.append(("flag", int(rest[0], 16), int(rest[3])))
    assert [n for n, _ in allocations] == [s.nbytes for s in allocated]
    bases += [(address, s.id) for (_, address), s in zip(allocations, allocated)]
    uploads = sorted((_symbolic(p, bases), n) for p, n in uploads)
    return sorted(loads), uploads, _normalized(steps, bases)


def record(programs, samples, name, flags=(), capability=("--capability", "9.0")):
    out = run(programs["check"], "record", bundle_path(samples, name), *flags, *capability,
              check=False)
    return out


@pytest.mark.parametrize("name", RUNNABLE)
def test_recording_matches_python_runtime(programs, samples, name):
    """The C runtime's device calls are the Python runtime's for the same bundle: the same
    modules and functions, the same constants uploaded, and step for step the same launches
    (kernel, grid, block, shared bytes, each parameter's 8 bytes read as slot+offset or
    scalar), memsets, copies and loop flag reads, loops running as the flag script says."""
    exe = samples[1][name]
    out = record(programs, samples, name, LOOP_FLAGS)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["open_file: 0 ", "run: 0 "]
    got = c_calls(exe, lines[2:])
    want = python_calls(exe, LOOP_FLAGS)
    assert got[0] == want[0]
    assert got[1] == want[1]
    assert got[2] == want[2]
    launches = [s for s in walk(exe.program.steps) if isinstance(s, Launch)]
    assert bool(launches) == any(s[0] == "launch" for s in got[2])
    if any(isinstance(s, Loop) for s in exe.program.steps):
        flags = [s[2] for s in got[2] if s[0] == "flag"]
        assert flags and flags[-1] == 0 and 1 in flags
    # the session frees what it allocated and unloads what it loaded, once it is freed
    assert sum(line.startswith("free ") for line in lines) == len(
        [line for line in lines if line.startswith("alloc ")])
    assert sum(line == "unload_module" for line in lines) == len(
        [line for line in lines if line.startswith("load_module ")])


def test_result_copied_after_the_steps(programs, samples):
    """A result whose operand lies outside its own result slot (here, in the argument's) is
    copied into the caller's output after the steps, which are the Python runtime's."""
    exe = samples[1]["result_elsewhere"]
    out = record(programs, samples, "result_elsewhere")
    assert out.returncode == 0, out.stdout + out.stderr
    steps = c_calls(exe, out.stdout.splitlines()[2:])[2]
    assert steps[:-1] == python_calls(exe, ())[2]
    assert steps[-1] == ("copy", "@1+0", "@0+0", 20)      # into output 0, result slot 1's


@pytest.mark.parametrize("capability, loaded", [
    ("9.0", "cubin"), ("9.7", "cubin"), ("10.0", "ptx"), ("8.6", None), (None, "ptx")])
@pytest.mark.parametrize("arch", ["sm_90", "sm_90a"])
def test_cubin_or_ptx(programs, samples, capability, loaded, arch):
    """The cubin where the device runs the target (the same major version, a minor one at least
    the target's; an `a` arch on its own only), else the PTX (a newer GPU's driver compiles
    it); PTX for a newer arch than the device's is ACCYRT_UNSUPPORTED. No capability entry:
    always the PTX. The Python runtime chooses the same."""
    name = "cubin" if arch == "sm_90" else "cubin_sm90a"
    if arch == "sm_90a" and capability in ("9.7", "10.0"):
        loaded = None           # PTX for sm_90a runs on 9.0 alone
    flags = ("--capability", capability) if capability else ("--no-capability",)
    out = record(programs, samples, name, capability=flags)
    lines = out.stdout.splitlines()
    if loaded is None:
        assert out.returncode == 1
        assert lines[1] == (f"run: 3 session: the bundle was compiled for {arch}, which a "
                            f"device of compute capability {capability} cannot run: compile "
                            f"it for that device's arch")
        return
    assert out.returncode == 0, out.stdout + out.stderr
    assert [line.split()[1] for line in lines if line.startswith("load_module")] == [loaded]
    if capability is not None:
        exe = samples[1][name]
        python = python_calls(exe, (), tuple(map(int, capability.split("."))))
        assert c_calls(exe, lines[2:])[0] == python[0]


# ---- the null device, failing devices, the status contract -----------------------------------

def zero_trip_counts(steps):
    """(launches, memsets, flag reads) of `steps` when every loop's cond says stop at once."""
    launches = memsets = flags = 0
    for step in steps:
        if isinstance(step, Launch):
            launches += 1
        elif isinstance(step, Memset):
            memsets += 1
        elif isinstance(step, Loop):
            inner = zero_trip_counts(step.cond)
            launches, memsets, flags = (launches + inner[0], memsets + inner[1],
                                        flags + inner[2] + 1)
    return launches, memsets, flags


@pytest.mark.parametrize("name", RUNNABLE)
def test_null_device(programs, samples, name):
    """A session made once and run twice on the null device: one load per module, one
    allocation per constant, arena and scratch slot (each freed), one upload per constant,
    and the program's launches, memsets and flag reads twice."""
    exe = samples[1][name]
    out = run(programs["check"], "null", bundle_path(samples, name))
    counts = dict((k, int(v)) for k, v in (line.split() for line in out.stdout.splitlines()[1:]))
    slots = exe.program.slots
    modules = any(k.ptx is None for k in exe.kernels) + sum(k.ptx is not None
                                                            for k in exe.kernels)
    allocated = sum(s.kind in ("constant", "arena", "scratch") for s in slots)
    launches, memsets, flags = zero_trip_counts(exe.program.steps)
    assert counts == {
        "load_module": modules, "unload_module": modules, "get_function": len(exe.kernels),
        "alloc": allocated, "free": allocated,
        "copy_htod": sum(s.kind == "constant" and s.nbytes > 0 for s in slots),
        "copy_dtoh": 2 * flags, "copy_dtod": counts["copy_dtod"], "memset": 2 * memsets,
        "launch": 2 * launches, "synchronize": 1}


@pytest.mark.parametrize("name", ["fori_loop", "kernel_call", "constants", "nested_loops",
                                  "transformer"])
def test_each_device_call_failing(programs, samples, name):
    """A session created and run twice on a device whose n-th call fails, for every n up to
    the first that succeeds: each time a clean ACCYRT_DEVICE status with the device's words,
    and every allocation freed and module unloaded."""
    out = run(programs["check"], "faults", bundle_path(samples, name))
    assert int(out.stdout.split()[-1]) >= 5


def test_status_contract(programs, samples):
    """NULL pointers, indices past the end, counts that differ, address 0 for a buffer and
    struct sizes the library does not know are ACCYRT_INVALID_ARGUMENT; NULL statuses read as
    success; a missing file is ACCYRT_IO; *out is NULL after a failure."""
    out = run(programs["check"], "status", bundle_path(samples, "elementwise"))
    assert out.stdout.strip() == "status contract: ok"


@pytest.mark.parametrize("damage, code, message", [
    (lambda b: b[:71], 2, "bundle: header: the file is 71 bytes, shorter than the 72-byte "
                          "header"),
    (lambda b: b"ACCYBNDX" + b[8:], 2, "bundle: header: no ACCYBNDL magic: not a bundle"),
    (lambda b: b + b"\0", 2, "bundle: header: it gives a file size of"),
    (lambda b: b[:8] + b"\x02" + b[9:], 3, "bundle: header: format version 2; this runtime "
                                            "reads version 1"),
    (lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:], 2, "CRC-32"),
])
def test_bad_files(programs, samples, tmp_path, damage, code, message):
    """Files that are not bundles, or not this version's, give the status that says why."""
    path = tmp_path / "damaged.accy"
    with open(bundle_path(samples, "elementwise"), "rb") as f:
        path.write_bytes(damage(f.read()))
    out = run(programs["check"], "open", path, check=False)
    assert out.stdout.startswith(f"open_file: {code} "), out.stdout
    assert message in out.stdout


# ---- the fuzz driver, under sanitizers ----------------------------------------------------------

def test_fuzz_under_sanitizers(samples, tmp_path):
    """Over 10,000 mutated bundles (seeded) through accyrt_bundle_open_memory with the
    library built under ASan, UBSan and LeakSanitizer: each a clean status, those that open
    run on the null device, the sample bundles with each device call failing in turn; no
    crash, no report, no leak. The mutations reach the structure checks of every section."""
    fuzz = str(tmp_path / "fuzz_bundles")
    sources = [os.path.join(LIBRARY_SOURCES, f) for f in sorted(os.listdir(LIBRARY_SOURCES))
               if f.endswith(".c")]
    subprocess.run([CC, "-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
                    "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    "-fno-omit-frame-pointer", "-I", LIBRARY_SOURCES, "-I", TESTS_C, *sources,
                    os.path.join(TESTS_C, "devices.c"), os.path.join(TESTS_C, "fuzz_bundles.c"),
                    "-ldl", "-o", fuzz], check=True, capture_output=True, text=True)
    seeds = sorted(str(p) for p in samples[0].glob("*.accy"))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1")
    dump = tmp_path / "cases"
    dump.mkdir()
    out = subprocess.run([fuzz, "--dump", dump, "20261203", "12000", *seeds],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr[-4000:]
    assert "Sanitizer" not in out.stderr, out.stderr[-4000:]
    stats = dict(re.findall(r"(cases|opened|ran|bad|unsupported|other) (\d+)",
                            out.stdout.splitlines()[0]))
    assert int(stats["cases"]) >= 12000 and stats["other"] == "0"
    assert int(stats["opened"]) > 100 and int(stats["ran"]) > 100
    reached = dict(re.findall(r"bad in the (.+): (\d+)", out.stdout))
    for section in ("header", "manifest section", "program section", "ptx section",
                    "kernel modules section", "module text section", "info section"):
        assert int(reached[section]) > 0, section
    assert out.stdout.splitlines()[-1] == "failures 0"
    readers_agree(dump)


# what only the Python reader reads: the info JSON and the IR texts (the tensor-level module, a
# host step's module)
PYTHON_ONLY = re.compile(r"bundle: (info section|module text section|program section: host item "
                         r"\d+'s module): ")


def readers_agree(folder):
    """The Python reader on every 8th fuzz case, held to libaccyrt's verdict: what C refuses as
    malformed Python refuses; what C opens Python opens too, unless Python finds fault in what
    only it reads (the info JSON, the IR texts); a newer format version is refused by
    both (UNSUPPORTED in C), a bundle with host steps opens in Python."""
    from accy.runtime import bundle
    verdicts = (folder / "verdicts.txt").read_text().splitlines()
    assert len(verdicts) >= 1000
    seen = set()
    for line in verdicts:
        name, code, message = line.split(" ", 2)
        try:
            bundle.read((folder / name).read_bytes())
            python = None
        except accy.BundleError as e:
            python = str(e)
        context = f"{name}: C says {code} {message!r}; Python says {python!r}"
        if code == "2":
            assert python is not None, context
        elif code == "0" or "has a host step" in message:
            assert python is None or PYTHON_ONLY.match(python), context
        else:
            assert code == "3" and "format version" in message and python is not None, context
        seen.add((code, python is None))
    assert {("0", True), ("2", False), ("3", False)} <= seen


# ---- the README's example, accy config -------------------------------------------------------

def readme_example():
    """The C program of README.md's section on running a bundle from C."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    blocks = re.findall(r"```c\n(.*?)```", readme, re.S)
    return [b for b in blocks if "accyrt_session_run" in b]


def test_readme_example_is_the_program():
    with open(EXAMPLE, encoding="utf-8") as f:
        assert readme_example() == [f.read()]


def test_readme_example_runs(programs, samples):
    """The example prints the signature; without a GPU it says so and exits 2, with one it
    runs the bundle and prints each result's first values (exit 0). A bundle with host steps
    is status 3 and exit 1."""
    exe = samples[1]["transformer"]
    path = bundle_path(samples, "transformer")
    out = run(programs["example"], path, check=False)
    lines = out.stdout.splitlines()
    assert lines[0] == f"{path}: written by accy {accy.__version__} for {exe.target.arch}"
    shapes = [f"  {kind} {i}: {dtype}[{','.join(map(str, shape))}] "
              f"({int(np.prod(shape)) * numpy_dtype(dtype).itemsize} bytes)"
              for kind, tensors in (("argument", exe.arguments), ("result", exe.results))
              for i, (shape, dtype) in enumerate(tensors)]
    assert lines[1:1 + len(shapes)] == shapes
    rest = lines[1 + len(shapes):]
    if out.returncode == 2:
        assert len(rest) == 1 and rest[0].startswith("no GPU to run it on: ")
        assert "CUDA" in rest[0] or "cuda" in rest[0]
    else:
        assert out.returncode == 0, out.stdout + out.stderr
        assert len(rest) == len(exe.results)
        assert all(re.fullmatch(r"result \d+:( \S+){1,4}( \.\.\.)?", r) for r in rest)
    out = run(programs["example"], bundle_path(samples, "host_only"), check=False)
    assert out.returncode == 1 and out.stdout == ""
    assert "the host program has a host step" in out.stderr and "(status 3)" in out.stderr


def test_accy_config_and_paths():
    """`accy config` gives -I for accyrt.h and -L, -l, rpath for libaccyrt.so; the library
    exports exactly the functions accyrt.h declares."""
    include, library = accy.get_include(), accy.get_library()
    assert os.path.isfile(os.path.join(include, "accyrt.h"))
    assert os.path.basename(library) == "libaccyrt.so" and os.path.isfile(library)
    folder = os.path.dirname(library)
    flags = [f"-I{include}", f"-L{folder}", "-laccyrt", f"-Wl,-rpath,{folder}"]
    assert accy_config("--cflags", "--libs") == flags
    assert accy_config() == flags
    assert config_flags(libs=False) == flags[0]
    assert config_flags(cflags=False) == " ".join(flags[1:])
    with open(os.path.join(include, "accyrt.h"), encoding="utf-8") as f:
        declared = set(re.findall(r"ACCYRT_API [^;(]*?\b(accyrt_\w+)\(", f.read()))
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm to list the library's exports")
    out = subprocess.run([nm, "-D", "--defined-only", library], capture_output=True, text=True,
                         check=True)
    exported = {line.split()[-1] for line in out.stdout.splitlines() if " T " in line}
    assert len(declared) == 18 and exported == declared


# ---- the CUDA device on a stand-in driver ----------------------------------------------------------

@pytest.fixture(scope="session")
def fake_driver(tmp_path_factory):
    """A folder holding tests/c/fake_cuda.c built as libcuda.so.1."""
    folder = tmp_path_factory.mktemp("fake_cuda")
    subprocess.run([CC, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
                    os.path.join(TESTS_C, "fake_cuda.c"), "-o", str(folder / "libcuda.so.1")],
                   check=True, capture_output=True, text=True)
    return folder


def on_fake_driver(fake_driver, tmp_path, program, *args, **env):
    """`program ARGS` with libcuda.so.1 the stand-in; (its output, the driver's log lines)."""
    log = tmp_path / "driver.log"
    log.unlink(missing_ok=True)
    variables = dict(os.environ, FAKE_CUDA_LOG=str(log), LD_LIBRARY_PATH=str(fake_driver),
                     **env)
    out = subprocess.run([program, *map(str, args)], capture_output=True, text=True,
                         env=variables, timeout=120)
    return out, log.read_text().splitlines() if log.exists() else []


def cuda_run(programs, samples, fake_driver, tmp_path, name, mode="cuda", **env):
    inputs = "elementwise" if name == "big_shared" else name     # its variant's are these
    return on_fake_driver(fake_driver, tmp_path, programs["check"], mode,
                          bundle_path(samples, name), samples[0] / f"{inputs}.arg",
                          tmp_path / "result", **env)


@pytest.mark.parametrize("mode", ["cuda", "cuda_thread"])
def test_cuda_device_copies(programs, samples, fake_driver, tmp_path, mode):
    """On the stand-in driver (device memory in host memory), a bundle of copies gives its
    results exactly, run twice, whether the device was opened on the thread that uses it or
    on another (each entry makes the primary context current there); the driver is
    initialized, the context retained and released with nothing left allocated."""
    out, log = cuda_run(programs, samples, fake_driver, tmp_path, "no_kernels", mode)
    assert out.returncode == 0, out.stdout + out.stderr
    for i in range(3):
        assert (tmp_path / f"result{i}.bin").read_bytes() == (
            samples[0] / f"no_kernels.result{i}.bin").read_bytes()
    assert log[:4] == ["cuInit 0", "cuDeviceGet 0", "cuDevicePrimaryCtxRetain 0",
                       "cuCtxSetCurrent"]
    assert log.count("cuCtxSetCurrent") == (2 if mode == "cuda_thread" else 1)
    assert sum(line.startswith("cuMemcpyDtoDAsync") for line in log) == 6
    assert log[-1] == "cuDevicePrimaryCtxRelease 0 (0 allocations and modules live)"


@pytest.mark.parametrize("name", ["kernel_call", "transformer", "big_shared"])
def test_cuda_device_launches(programs, samples, fake_driver, tmp_path, name):
    """The driver gets the program's modules (the PTX read to its NUL; a kernel_call's own),
    each kernel's function, and per run its launches as the program has them; a launch with
    more than 48 KB of dynamic shared memory opts its function in once."""
    exe = samples[1][name]
    out, log = cuda_run(programs, samples, fake_driver, tmp_path, name)
    assert out.returncode == 0, out.stdout + out.stderr
    modules = [line for line in log if line.startswith("cuModuleLoadData")]
    assert modules[0] == f"cuModuleLoadData ptx {len(exe.ptx.encode())}"
    assert modules[1:] == [f"cuModuleLoadData ptx {len(k.ptx.encode())}" for k in exe.kernels
                           if k.ptx is not None]
    assert sorted(line.split()[1] for line in log if line.startswith("cuModuleGetFunction")) \
        == sorted(k.name for k in exe.kernels)
    launches = [f"cuLaunchKernel {s.kernel} grid {','.join(map(str, s.grid))} block "
                f"{','.join(map(str, s.block))} shared {s.shared_bytes} default"
                for s in walk(exe.program.steps) if isinstance(s, Launch)]
    assert [line for line in log if line.startswith("cuLaunchKernel")] == launches * 2
    opt_ins = [line for line in log if line.startswith("cuFuncSetAttribute")]
    big = {(s.kernel, s.shared_bytes) for s in walk(exe.program.steps)
           if isinstance(s, Launch) and s.shared_bytes > 48 * 1024}
    assert opt_ins == [f"cuFuncSetAttribute {k} 8 {n}" for k, n in sorted(big)]
    assert bool(opt_ins) == (name == "big_shared")
    if opt_ins:
        assert log.index(opt_ins[0]) < log.index(launches[0])
    assert log[-1] == "cuDevicePrimaryCtxRelease 0 (0 allocations and modules live)"


@pytest.mark.parametrize("capability, module", [("9.0", "cubin"), ("9.9", "cubin"),
                                                ("10.0", "ptx"), ("8.9", None)])
def test_cuda_device_capability(programs, samples, fake_driver, tmp_path, capability, module):
    """The driver's compute capability chooses the cubin or the PTX (or neither)."""
    out, log = cuda_run(programs, samples, fake_driver, tmp_path, "cubin",
                        FAKE_CUDA_CAPABILITY=capability)
    loads = [line.split()[1] for line in log if line.startswith("cuModuleLoadData")]
    if module is None:
        assert out.returncode == 1 and loads == []
        assert f"run: 3 session: the bundle was compiled for sm_90, which a device of " \
               f"compute capability {capability} cannot run" in out.stdout
    else:
        assert out.returncode == 0, out.stdout + out.stderr
        assert loads == [module]
    assert log[-1] == "cuDevicePrimaryCtxRelease 0 (0 allocations and modules live)"


@pytest.mark.parametrize("call, where", [
    ("cuInit", "cuda_device_open: 4 CUDA driver: cuInit failed"),
    ("cuModuleLoadData", "run: 4 session: loading the PTX ({ptx_bytes} bytes): CUDA driver: "
                         "cuModuleLoadData failed"),
    ("cuMemAlloc", "run: 4 CUDA driver: cuMemAlloc failed"),
    ("cuLaunchKernel", "run: 4 session run: launching kernel 'main$k0$elementwise': CUDA "
                       "driver: cuLaunchKernel failed"),
    ("cuStreamSynchronize", "run: 4 session: synchronizing after the uploads: CUDA driver: "
                            "cuStreamSynchronize failed"),
])
def test_cuda_device_errors(programs, samples, fake_driver, tmp_path, call, where):
    """A driver call that fails is ACCYRT_DEVICE naming the call and the driver's words for the
    error, behind what the session was doing; nothing is left allocated."""
    out, log = cuda_run(programs, samples, fake_driver, tmp_path, "elementwise",
                        FAKE_CUDA_FAIL=call)
    assert out.returncode == (2 if call == "cuInit" else 1)
    where = where.format(ptx_bytes=len(samples[1]["elementwise"].ptx.encode()) + 1)
    assert f"{where}: unknown error (CUDA_ERROR_UNKNOWN, error 999)" in out.stdout, out.stdout
    if call != "cuInit":
        assert log[-1] == "cuDevicePrimaryCtxRelease 0 (0 allocations and modules live)"


def test_readme_example_on_a_driver(programs, samples, fake_driver, tmp_path):
    """With a driver (the stand-in), the README's example runs the bundle on random inputs and
    prints each result's first values: a bundle of copies gives back its inputs."""
    out, _ = on_fake_driver(fake_driver, tmp_path, programs["example"],
                            bundle_path(samples, "copies"))
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[-2:] == [line for line in lines if line.startswith("result ")]
    first = [line.split(": ")[1] for line in lines[-2:]]
    assert re.fullmatch(r"(-?[0-9.e-]+ ){3}-?[0-9.e-]+ \.\.\.", first[0]), first[0]
    values = [float(v) for v in first[0].split()[:4]]
    assert all(-1 <= v < 1 for v in values) and len(set(values)) == 4


# ---- on a GPU ----------------------------------------------------------------------------------

TOLERANCE = {"f32": 1e-4, "f16": 2e-3, "bf16": 2e-2, "f64": 1e-10}


@pytest.mark.gpu
@pytest.mark.parametrize("name", [n for n in RUNNABLE if n != "nested_loops"])
def test_cuda_device_matches_reference(programs, samples, name, tmp_path):
    """Each runnable sample on GPU 0 through libaccyrt's CUDA device, its inputs the sample's
    (random, never zeros): the results match the reference interpreter's within the dtype's
    tolerance (integers and booleans exactly)."""
    exe = samples[1][name]
    folder = samples[0]
    out = run(programs["check"], "cuda", bundle_path(samples, name), folder / f"{name}.arg",
              tmp_path / "result", check=False)
    if out.returncode == 2:
        pytest.skip(f"libaccyrt's CUDA device does not open: {out.stdout.strip()}")
    assert out.returncode == 0, out.stdout + out.stderr
    arrays = bundles.compiled(name)[1]
    want = exe.run(*arrays, device="reference")
    want = want if isinstance(want, (tuple, list)) else (want,)
    for i, ((shape, dtype), w) in enumerate(zip(exe.results, want)):
        got = np.fromfile(tmp_path / f"result{i}.bin", numpy_dtype(dtype)).reshape(shape)
        if dtype in TOLERANCE:
            np.testing.assert_allclose(got.astype(np.float64), np.asarray(w, np.float64),
                                       rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])
        else:
            np.testing.assert_array_equal(got, w)


def test_library_missing_is_an_accy_error(monkeypatch, tmp_path):
    """Where libaccyrt.so was not built, asking for it is an AccyError that says how to build
    it (and `accy config --libs` one `accy: error:` line)."""
    from accy.__main__ import main
    from accy.runtime import native
    monkeypatch.setattr(native, "FOLDER", str(tmp_path))
    with pytest.raises(native.LibraryMissing, match="libaccyrt is not built .* pip install"):
        accy.get_library()
    assert issubclass(native.LibraryMissing, accy.AccyError)
    assert main(["config", "--libs"]) == 1


def test_a_bundle_from_accy_compile_runs_through_c(programs, fake_driver, tmp_path):
    """`accy compile FILE.py:FUNC -o DIR` writes a bundle that C runs: through libaccyrt on the
    emulator it matches the reference interpreter, and the README's example, built only from
    the installed header and library, runs it on a driver (the stand-in)."""
    from accy.__main__ import main
    from accy.examples import transformer
    source = os.path.join(ROOT, "accy", "examples", "transformer.py")
    assert main(["compile", f"{source}:block", "-o", str(tmp_path)]) == 0
    path = tmp_path / "block.accy"
    exe = accy.load(path)
    args = transformer.example_inputs(int(np.random.default_rng().integers(1 << 30)))
    got = exe.run(*args, device="emulator", runtime="c")
    want = exe.run(*args, device="reference")
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=1e-4, atol=1e-4)
    out, _ = on_fake_driver(fake_driver, tmp_path, programs["example"], path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert [line.split(":")[0] for line in out.stdout.splitlines()
            if line.startswith("result ")] == [f"result {i}" for i in range(len(exe.results))]
