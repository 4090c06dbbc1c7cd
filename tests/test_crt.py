"""accy's executables run through libaccyrt, the C runtime, from Python (accy/runtime/crt.py):
bundles of every kernel kind, loops, a kernel_call and the transformer block followed by C on
the emulator (a device table of Python callbacks) give the Python runtime's emulator results
bit for bit and the reference's within tolerance, and C launches the same kernels with the same
grids, blocks, shared bytes and parameters (pointers compared as slot + offset), step for step.
Also: the errors (statuses as AccyError subclasses, a device entry's exception as the cause,
bad bundles, host fallbacks refused, a missing library), `bind(runtime="c")`, and, marked
`gpu`, libaccyrt's CUDA device against numpy."""
import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.examples import transformer
from accy.examples.graphs import GRAPHS
from accy.runtime import crt, native
from accy.runtime.bundle_writer import write
from accy.runtime.emulator.driver import Emulator
from accy.runtime.emulator.machine import KernelFault
from accy.runtime.recording import NullDevice, Recorder

from bundles import TRIPLE_PTX
from child_process import run_bounded
from compile_helpers import draw


def kernel_call_module(grid):
    """exp, the user's `triple` kernel (128 threads per block, `grid` blocks), negate."""
    from accy.ir import parse
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = (tensor<256xf32>) -> tensor<256xf32>, sym_name = "main"}}> ({{
  ^bb0(%0: tensor<256xf32>):
    %1 = tensor.exp %0 : tensor<256xf32>
    %2 = tensor.kernel_call %1 <{{block = [128, 1, 1], grid = [{grid}, 1, 1], kernel = "triple", ptx = {json.dumps(TRIPLE_PTX)}}}> : tensor<256xf32>
    %3 = tensor.negate %2 : tensor<256xf32>
    builtin.return %3
  }})
}})""")


def fori_with_copies(x, b, n):
    """A loop whose body writes one yield in place and copies three (an unchanged carry, a
    captured value, a value yielded twice)."""
    def body(i, c):
        acc, keep, outer, again = c
        new = acc * 0.5 + i.astype("f32")
        return new, keep, b, new
    return ops.fori_loop(0, n, body, (x, x * 2, x, x))


def case(name, rng):
    """(executable, arguments, the kernel kinds it must have) of the case `name`."""
    f32 = lambda *shape: draw(rng, shape, "f32")       # noqa: E731
    if name == "elementwise":
        fn, args = (lambda x, y: (x * y + 1, ops.tanh(x) - y)), [f32(7, 13), f32(7, 13)]
        kinds = {"elementwise"}
    elif name == "elementwise_i32":
        fn, args = (lambda x: x * 3 - 7), [draw(rng, (1000,), "i32")]
        kinds = {"elementwise"}
    elif name == "reductions":
        fn = lambda x: (ops.sum(x, axis=-1), ops.max(x, axis=0), ops.softmax(x))  # noqa: E731
        args, kinds = [f32(5, 67)], {"reduction", "row_pipeline"}
    elif name == "scan":
        fn, args, kinds = (lambda x: ops.cumsum(x, axis=1)), [f32(3, 40)], {"scan"}
    elif name == "dot":
        fn = lambda x, w, b: ops.tanh(x @ w + b)    # noqa: E731
        args, kinds = [f32(9, 16), f32(16, 12), f32(12)], {"dot_general"}
    elif name == "constants":       # captured arrays: constant slots, uploaded by C
        w1, b, w2 = f32(16, 24), f32(24), f32(24, 8)
        fn = lambda x: ops.tanh(x @ w1 + b) @ w2    # noqa: E731
        args, kinds = [f32(9, 16)], {"dot_general"}
    elif name == "attention":
        fn = lambda q, k, v: ops.attention(q, k, v, causal=True)    # noqa: E731
        args, kinds = [f32(1, 2, 9, 8) for _ in range(3)], {"flash_attention"}
    elif name == "while_loop":
        exe = accy.compile(GRAPHS["while_matmul_tanh"](small=True))
        args = [f32(16, 16) * 0.3, f32(16, 16) * 0.3, np.asarray(3, np.int32)]
        return exe, args, {"elementwise", "dot_general"}
    elif name == "fori_loop":
        fn, args = fori_with_copies, [f32(5, 3), f32(5, 3), np.asarray(3, np.int32)]
        kinds = {"elementwise"}
    elif name == "kernel_call":
        exe = accy.compile(kernel_call_module(grid=2))
        return exe, [f32(256)], {"elementwise", "kernel_call"}
    elif name == "transformer":
        fn, args = transformer.block, list(transformer.example_inputs(int(rng.integers(1 << 30))))
        kinds = {"row_pipeline", "dot_general", "flash_attention"}
    else:
        raise KeyError(name)
    return accy.compile(fn, *args), args, kinds


CASES = ["elementwise", "elementwise_i32", "reductions", "scan", "dot", "constants", "attention",
         "while_loop", "fori_loop", "kernel_call", "transformer"]


def as_tuple(results):
    return results if isinstance(results, tuple) else (results,)


def raw(a):
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def assert_close_to_reference(got, want):
    for g, w in zip(as_tuple(got), as_tuple(want)):
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w)
            continue
        g, w = g.astype(np.float64), w.astype(np.float64)
        scale = max(1.0, float(np.max(np.abs(w), initial=0.0)))
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5 * scale)


# ---- launches as slot + offset ---------------------------------------------------------------

def slot_label(slot):
    """A slot as both runtimes can name it: by kind and position; a constant by its bytes (two
    constants with the same bytes are interchangeable)."""
    if slot.kind == "constant":
        return ("constant", hashlib.sha256(slot.data).hexdigest()[:16])
    if slot.kind in ("argument", "result"):
        return (slot.kind, slot.position)
    return (slot.kind,)


def normalized(launches, regions):
    """Each launch with every parameter that points into a region (base, nbytes, label) as
    (label, offset), the others as i64 values."""
    def param(raw8):
        value = int.from_bytes(raw8, "little")
        for base, nbytes, label in regions:
            if base <= value < base + nbytes:
                return (label, value - base)
        return ("i64", int.from_bytes(raw8, "little", signed=True))
    return [(name, grid, block, shared, tuple(param(p) for p in params))
            for _, name, grid, block, shared, params in launches]


def python_regions(exe, bound):
    slots = {s.id: s for s in exe.program.slots}
    # the Python runtime's own slot table: base address per slot id (state slots as bound)
    return [(address, slots[i].nbytes, slot_label(slots[i]))
            for i, address in bound._run.base.items() if slots[i].kind != "state"]


def c_regions(exe, bound, calls):
    """The C run's memory as slots: the caller's buffers are the argument slots and the result
    slots (by position); each allocation the session made is the constant whose bytes were
    uploaded to it, or else the arena or the scratch, told apart by size."""
    program = exe.program
    regions = []
    for i, slot in enumerate(program.arguments):
        if slot is not None:
            regions.append((bound.argument_address(i), program.slots[slot].nbytes,
                            slot_label(program.slots[slot])))
    for slot in program.slots:
        if slot.kind == "result":
            regions.append((bound.result_address(slot.position), slot.nbytes, slot_label(slot)))
    caller = {bound.argument_address(i) for i in range(len(exe.arguments))} | {
        bound.result_address(i) for i in range(len(exe.results))}
    uploads = {}
    for c in calls:
        if c[0] == "htod":
            uploads.setdefault(c[1], []).append(c[2])
    others = [s for s in program.slots if s.kind in ("arena", "scratch")]
    for _, nbytes, address in (c for c in calls if c[0] == "alloc" and c[2] not in caller):
        constant = [s for s in program.constants()
                    if s.nbytes == nbytes and s.data in uploads.get(address, ())]
        if constant:
            regions.append((address, nbytes, slot_label(constant[0])))
            continue
        sized = [s for s in others if s.nbytes == nbytes]
        assert len(sized) == 1, f"allocation of {nbytes} bytes: which slot? {others}"
        regions.append((address, nbytes, slot_label(sized[0])))
    return regions


# ---- every kind through C on the emulator ----------------------------------------------------

@pytest.mark.parametrize("name", CASES)
def test_c_runtime_on_the_emulator_matches_the_python_runtime(name, rng):
    """Bit for bit with the Python runtime on the emulator, close to the reference, and the
    same launches (kernel, grid, block, shared bytes, parameters) in the same order."""
    exe, args, kinds = case(name, rng)
    assert kinds <= {k.kind for k in exe.kernels} and not exe.fallbacks, exe.report()
    if name == "kernel_call":       # the reference interpreter does not run user PTX
        want = (-3 * np.exp(args[0].astype(np.float64))).astype(np.float32)
    else:
        want = exe.run(*args, device="reference")

    python_device = Recorder(Emulator())
    with exe.bind(*args, device=python_device) as bound:
        bound.launch()
        python = bound.results()
        python_launches = normalized(python_device.launches(), python_regions(exe, bound))

    c_device = Recorder(Emulator())
    with exe.bind(*args, device=c_device, runtime="c") as bound:
        bound.launch()
        c = bound.results()
        c_launches = normalized(c_device.launches(), c_regions(exe, bound, c_device.calls))

    for p, g in zip(as_tuple(python), as_tuple(c)):
        assert p.dtype == g.dtype and p.shape == g.shape
        np.testing.assert_array_equal(raw(g), raw(p))
    assert_close_to_reference(c, want)
    assert len(c_launches) >= len(exe.program.launches())
    for step, (p, g) in enumerate(zip(python_launches, c_launches)):
        assert g == p, f"launch {step}"
    assert len(c_launches) == len(python_launches)


@pytest.mark.parametrize("name", ["elementwise", "while_loop", "kernel_call"])
def test_run_with_runtime_c_on_the_emulator(name, rng):
    exe, args, _ = case(name, rng)
    got = exe.run(*args, device="emulator", runtime="c")
    for g, p in zip(as_tuple(got), as_tuple(exe.run(*args, device="emulator"))):
        np.testing.assert_array_equal(raw(g), raw(p))


def test_loop_trips_follow_the_flag(rng):
    """0, 1 and 4 trips of a while loop: C reads the flag back once per trip."""
    exe = accy.compile(GRAPHS["while_matmul_tanh"](small=True))
    x, w = draw(rng, (16, 16), "f32") * 0.3, draw(rng, (16, 16), "f32") * 0.3
    body = {s.kernel for s in exe.program.launches()}
    for trips in (0, 1, 4):
        args = [x, w, np.asarray(trips, np.int32)]
        device = Recorder(Emulator())
        (got,) = exe.run(*args, device=device, runtime="c")
        # the same kernels as the Python runtime's, bit for bit; tanh within 1 ulp a step
        np.testing.assert_array_equal(got, exe.run(*args, device="emulator")[0])
        np.testing.assert_allclose(got, exe.run(*args, device="reference")[0], rtol=0, atol=2e-6)
        flags = [c for c in device.calls if c[0] == "dtoh" and c[2] == 1]
        assert len(flags) == trips + 1
        assert {c[1] for c in device.launches()} <= body


# ---- the binding --------------------------------------------------------------------------------

def test_bundle_signature_from_c(rng):
    exe, args, _ = case("reductions", rng)
    bundle = crt.Bundle.from_bytes(write(exe))
    assert [(s.dtype, s.shape) for s in bundle.arguments] == [(d, tuple(s))
                                                              for s, d in exe.arguments]
    assert [(s.dtype, s.shape) for s in bundle.results] == [(d, tuple(s))
                                                            for s, d in exe.results]
    assert bundle.results[0].nbytes == 5 * 4 and bundle.arguments[0].nbytes == 5 * 67 * 4
    assert bundle.target == exe.target.arch and bundle.accy_version == accy.__version__


def test_bundle_from_a_file(tmp_path, rng):
    exe, args, _ = case("scan", rng)
    path = tmp_path / "scan.accy"
    exe.save(path)
    bundle = crt.Bundle.open(path)
    assert bundle.arguments == crt.Bundle.from_bytes(path.read_bytes()).arguments
    with pytest.raises(crt.CrtIOError) as e:
        crt.Bundle.open(tmp_path / "missing.accy")
    assert isinstance(e.value, OSError) and "missing.accy" in str(e.value)


def test_bad_bundles_are_bundle_errors(rng):
    exe, _, _ = case("elementwise", rng)
    data = bytearray(write(exe))
    for bad in (bytes(data[:100]), bytes(data[:-1]), b"", b"ACCYBNDL" + bytes(64)):
        with pytest.raises(accy.BundleError, match="libaccyrt: "):
            crt.Bundle.from_bytes(bad)
    data[len(data) // 2] ^= 0x40
    with pytest.raises(accy.BundleError) as e:
        crt.Bundle.from_bytes(bytes(data))
    assert e.value.code == crt.BAD_BUNDLE and isinstance(e.value, crt.CrtError)


def test_a_bundle_with_a_host_fallback_is_refused():
    exe = accy.compile(lambda x: ops.exp(x) + 1, np.linspace(0, 1, 5))
    assert exe.fallbacks
    with pytest.raises(crt.CrtUnsupported, match="host") as e:
        exe.run(np.linspace(0, 1, 5), device="emulator", runtime="c")
    assert isinstance(e.value, accy.errors.UnsupportedError) and e.value.code == crt.UNSUPPORTED


def test_wrong_counts_are_invalid_arguments(rng):
    exe, args, _ = case("elementwise", rng)
    device = crt.PythonDevice(NullDevice())
    session = crt.Session(crt.Bundle.from_bytes(write(exe)), device)
    with pytest.raises(crt.CrtInvalidArgument) as e:
        session.run([device.alloc(4)], [device.alloc(4)])
    assert isinstance(e.value, ValueError) and e.value.code == crt.INVALID_ARGUMENT
    session.close()
    with pytest.raises(accy.AccyError, match="closed"):
        session.run([], [])


def test_closing_a_bundle_waits_for_its_sessions(rng):
    exe, args, _ = case("elementwise_i32", rng)
    bundle = crt.Bundle.from_bytes(write(exe))
    emulator = Emulator()
    device = crt.PythonDevice(emulator)
    session = crt.Session(bundle, device)
    bundle.close()
    with pytest.raises(accy.AccyError, match="closed"):
        crt.Session(bundle, device)
    x, out = device.alloc(4000), device.alloc(4000)
    device.upload(x, args[0])
    session.run([x], [out])                 # the C bundle is still there
    got = np.empty(1000, np.int32)
    device.download(got, out)
    np.testing.assert_array_equal(got, args[0] * 3 - 7)
    assert bundle._free.alive
    session.close()
    assert not bundle._free.alive


def test_a_kernel_fault_in_a_device_entry_comes_back_as_its_cause(rng):
    """The user's kernel reads past its buffer (4 blocks of 128 threads over 256 floats): the
    emulator's KernelFault inside the launch entry becomes a status, and the C call's CrtError
    carries it as its cause and in its message."""
    exe = accy.compile(kernel_call_module(grid=4))
    x = draw(rng, (256,), "f32")
    with pytest.raises(KernelFault):
        exe.run(x, device="emulator")
    with pytest.raises(crt.CrtDeviceError) as e:
        exe.run(x, device="emulator", runtime="c")
    assert isinstance(e.value, accy.AccyError) and isinstance(e.value.__cause__, KernelFault)
    assert "KernelFault" in str(e.value) and "triple" in str(e.value)


class FailingAlloc(NullDevice):
    """A null device whose allocation number `fail_at` raises."""

    def __init__(self, fail_at):
        super().__init__()
        self.count, self.fail_at = 0, fail_at

    def mem_alloc(self, nbytes):
        self.count += 1
        if self.count == self.fail_at:
            raise MemoryError("the device is full")
        return super().mem_alloc(nbytes)


def test_a_failing_entry_mid_session_frees_what_was_made(rng):
    """A session whose n-th allocation fails, for each n: a CrtError caused by the MemoryError,
    and every allocation and module made before it freed again (no leak on the error path)."""
    exe, _, _ = case("constants", rng)
    assert len(exe.program.constants()) == 3 and exe.program.slot("arena") is not None
    bundle = crt.Bundle.from_bytes(write(exe))
    for fail_at in range(1, 5):
        device = FailingAlloc(fail_at)
        table = crt.PythonDevice(device)
        with pytest.raises(crt.CrtError, match="the device is full") as e:
            crt.Session(bundle, table)
        assert isinstance(e.value.__cause__, MemoryError)
        assert device.count == fail_at and not device.live and not table._handles


class Interrupted(NullDevice):
    def module_from_buffer(self, image):
        raise KeyboardInterrupt


def test_an_interrupt_in_a_device_entry_is_raised_as_itself(rng):
    exe, _, _ = case("elementwise", rng)
    with pytest.raises(KeyboardInterrupt):
        crt.Session(crt.Bundle.from_bytes(write(exe)), crt.PythonDevice(Interrupted()))


def test_bind_with_runtime_c_launches_again(rng):
    exe, args, _ = case("fori_loop", rng)
    want = exe.run(*args, device="emulator")
    device = Recorder(Emulator())
    bound = exe.bind(*args, device=device, runtime="c")
    per_run = None
    for _ in range(2):
        before = len(device.launches())
        bound.launch()
        per_run = per_run or len(device.launches()) - before
        assert len(device.launches()) - before == per_run > 0
        for g, w in zip(bound.results(), want):
            np.testing.assert_array_equal(raw(g), raw(w))
    bound.close()
    assert not device.inner.memory.buffers        # every buffer and module freed
    with pytest.raises(accy.AccyError, match="closed"):
        bound.launch()


def test_runtime_and_device_choices_are_checked(rng):
    exe, args, _ = case("elementwise", rng)
    with pytest.raises(ValueError, match="runtime must be one of"):
        exe.run(*args, device="emulator", runtime="rust")
    with pytest.raises(ValueError, match="runtime 'c' runs on"):
        exe.run(*args, device="reference", runtime="c")


def test_a_missing_library_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(crt, "_LIBRARY", None)
    monkeypatch.setattr(native, "get_library", lambda: str(tmp_path / "libaccyrt.so"))
    with pytest.raises(crt.LibraryUnavailable, match="libaccyrt could not be loaded"):
        crt.Bundle.from_bytes(b"")
    (tmp_path / "libaccyrt.so").write_bytes(b"not a library")
    with pytest.raises(crt.LibraryUnavailable, match="libaccyrt could not be loaded"):
        crt.Bundle.from_bytes(b"")

    def not_built():
        raise accy.AccyError("libaccyrt is not built")
    monkeypatch.setattr(native, "get_library", not_built)
    with pytest.raises(crt.LibraryUnavailable, match="not available: libaccyrt is not built"):
        accy.compile(lambda x: x + 1, np.ones(3, np.float32)).run(
            np.ones(3, np.float32), device="emulator", runtime="c")


# ---- libaccyrt's CUDA device, on a stand-in driver and on a GPU ------------------------------

FAKE_DRIVER_CHILD = """
import sys
import numpy as np
import accy
rng = np.random.default_rng(int(sys.argv[1]))
x, y = (rng.standard_normal((5, 7)).astype(np.float32) for _ in range(2))
exe = accy.compile(lambda x, y: (y, x * 2, x), x, y)     # one kernel, two copies
for _ in range(2):
    got = exe.run(x, y, device="cuda", runtime="c")
    assert got[0].tobytes() == y.tobytes() and got[2].tobytes() == x.tobytes()
with exe.bind(x, y, device="cuda", runtime="c") as bound:
    bound.launch()
    bound.launch()
    got = bound.results()
    assert got[0].tobytes() == y.tobytes() and got[2].tobytes() == x.tobytes()
print("ok")
"""


def test_cuda_device_on_a_stand_in_driver(tmp_path, rng):
    """exe.run(device="cuda", runtime="c") on tests/c/fake_cuda.c built as libcuda.so.1 (device
    memory in host memory, kernels that do nothing): the copies give the inputs back exactly;
    the module is loaded once for two runs and a bound run (the executable keeps its session);
    at exit the sessions and then the device are closed with nothing left allocated."""
    subprocess.run([shutil.which("cc") or "cc", "-std=c11", "-O2", "-fPIC", "-shared",
                    os.path.join(os.path.dirname(__file__), "c", "fake_cuda.c"),
                    "-o", str(tmp_path / "libcuda.so.1")], check=True)
    log = tmp_path / "driver.log"
    env = dict(os.environ, FAKE_CUDA_LOG=str(log), LD_LIBRARY_PATH=str(tmp_path))
    done = run_bounded([sys.executable, "-c", FAKE_DRIVER_CHILD, str(rng.integers(1 << 30))],
                       env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
    lines = log.read_text().splitlines()
    assert sum(line.startswith("cuModuleLoadData") for line in lines) == 1
    assert sum(line.startswith("cuLaunchKernel main$k0$elementwise") for line in lines) == 4
    assert lines[-1] == "cuDevicePrimaryCtxRelease 0 (0 allocations and modules live)"


def test_no_cuda_driver_is_device_unavailable(rng):
    try:
        crt.cuda_device()
    except crt.CrtError:
        pass
    else:
        pytest.skip("libaccyrt's CUDA device opens here")
    exe, args, _ = case("elementwise", rng)
    with pytest.raises(accy.DeviceUnavailable, match="through libaccyrt"):
        exe.run(*args, device="cuda", runtime="c")
    got = exe.run(*args, runtime="c")           # no GPU: the emulator
    for g, p in zip(got, exe.run(*args, device="emulator")):
        np.testing.assert_array_equal(raw(g), raw(p))


@pytest.fixture
def c_cuda():
    try:
        return crt.cuda_device()
    except crt.CrtError as e:
        pytest.skip(f"libaccyrt's CUDA device does not open here: {e}")


@pytest.mark.gpu
def test_c_runtime_on_a_gpu_runs_the_transformer_block(c_cuda):
    args = transformer.example_inputs(seed=int(np.random.SeedSequence().entropy % (1 << 30)))
    exe = accy.compile(transformer.block, *args)
    got = exe.run(*args, device="cuda", runtime="c")
    np.testing.assert_allclose(got, transformer.block_numpy(*args), rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
def test_c_runtime_on_a_gpu_runs_loops_and_scans(c_cuda, rng):
    x, w = draw(rng, (256, 256), "f32") * 0.05, draw(rng, (256, 256), "f32") * 0.05
    exe = accy.compile(GRAPHS["while_matmul_tanh"]())
    (got,) = exe.run(x, w, np.asarray(3, np.int32), device="cuda", runtime="c")
    want = x.astype(np.float64)
    for _ in range(3):
        want = np.tanh(want @ w)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    y = draw(rng, (64, 1000), "f32")
    scan = accy.compile(lambda y: ops.cumsum(y, axis=1), y)
    (got,) = as_tuple(scan.run(y, device="cuda", runtime="c"))
    np.testing.assert_allclose(got, np.cumsum(y.astype(np.float64), axis=1), rtol=1e-4,
                               atol=1e-3)


class _Paused(NullDevice):
    """A null device whose launches wait for `go`, after saying so (`inside`)."""

    def __init__(self):
        super().__init__()
        import threading
        self.inside, self.go = threading.Event(), threading.Event()

    def module_from_buffer(self, image):
        device = self

        class Module:
            def get_function(self, name):
                def launch(*args, **config):
                    device.inside.set()
                    device.go.wait(10)
                return launch
        return Module()


def test_a_close_from_another_thread_waits_for_the_run(rng):
    """A session closed by one thread while another's run is inside C is freed after that run,
    never under it; a close or run from inside the session's own run is an AccyError."""
    import threading
    exe = accy.compile(lambda x: ops.exp(x) + 1.0, rng.standard_normal(64).astype(np.float32))
    device = _Paused()
    table = crt.PythonDevice(device)
    session = crt.Session(crt.Bundle.from_bytes(write(exe)), table)
    inputs = [device.mem_alloc(256)]
    outputs = [device.mem_alloc(256)]
    closed = []
    closer = threading.Thread(target=lambda: (session.close(), closed.append(True)))
    runner = threading.Thread(target=session.run, args=(inputs, outputs))
    runner.start()
    assert device.inside.wait(10)
    closer.start()
    closer.join(0.2)
    assert not closed                   # waiting for the run, which is inside C
    device.go.set()
    runner.join(10)
    closer.join(10)
    assert closed == [True]
    with pytest.raises(accy.AccyError, match="this session is closed"):
        session.run(inputs, outputs)


def test_a_session_refuses_calls_from_inside_its_own_run(rng):
    exe = accy.compile(lambda x: ops.exp(x) + 1.0, rng.standard_normal(64).astype(np.float32))
    seen = []

    class Reentrant(NullDevice):
        def module_from_buffer(self, image):
            class Module:
                def get_function(self, name):
                    def launch(*args, **config):
                        for call in (session.close, lambda: session.run([1], [2])):
                            try:
                                call()
                            except accy.AccyError as e:
                                seen.append(str(e))
                    return launch
            return Module()

    device = Reentrant()
    session = crt.Session(crt.Bundle.from_bytes(write(exe)), crt.PythonDevice(device))
    session.run([device.mem_alloc(256)], [device.mem_alloc(256)])
    assert seen == ["a session cannot be closed from inside its own run",
                    "a session cannot run from inside its own run"]
