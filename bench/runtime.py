"""Runtime benchmark: the host cost of running an executable, accy's Python runtime next to
libaccyrt (the C runtime) in the same run, for executables of 1, 9 and 100 kernels (chains of
`cumsum`, each scan its own kernel, on a 4 x 32 f32 array) and the transformer block (9
kernels, accy/examples/transformer.py); and the time to open the transformer block's bundle.

Measures, in µs per run of the whole host program, best of --repeats (each repeat times many
runs in a row; its buffers stay bound: no host copies):
  null device       nothing reaches a driver: what is left is the runtime's own cost
    Python          Executable.bind(device=NullDevice()).launch(): the Python runtime's steps
    C (ctypes)      crt.Session.run on a C null device (tests/c/devices.c): libaccyrt plus one
                    ctypes call
    C               accyrt_session_run in a C loop (bench/runtime_harness.c) on that device
    raw             the same launches replayed straight through the null device's launch
                    entry, in C: the floor
    C - raw         per launch: what libaccyrt adds to each launch (target <= 2 µs)
  GPU               when libaccyrt's CUDA device opens (and, for its columns, PyCUDA / torch)
    driver          the launches replayed through the CUDA device's launch entry
                    (cuLaunchKernel), in C, then one synchronize
    C               accyrt_session_run in a C loop on the CUDA device, then one synchronize
    Python          the Python runtime on PyCUDA (Bound.launch()), then one synchronize
    PyCUDA          the same launches through PyCUDA's prepared_call, no runtime
    torch           torch eager running the same chain of cumsums (no torch row for the block)
    C - driver      per launch (target <= 2 µs)
  open              the transformer block's bundle: libaccyrt from the file and from memory
                    (target <= 1 ms), Python's accy.load from the file

    python bench/runtime.py
    python bench/runtime.py --repeats 10 --runs 500
"""
import argparse
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import accy  # noqa: E402
import accy.ops as ops  # noqa: E402
from accy.examples import transformer  # noqa: E402
from accy.runtime import crt  # noqa: E402
from accy.runtime.bundle_writer import write  # noqa: E402
from accy.runtime.recording import NullDevice  # noqa: E402
from ir_core import best_of, print_table  # noqa: E402

TARGET_US_PER_LAUNCH = 2.0
TARGET_OPEN_MS = 1.0
CHAINS = (1, 9, 100)
SHAPE = (4, 32)


def executables():
    """{name: (executable, arguments)}, each with exactly the kernels its name says."""
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    out = {}
    for n in CHAINS:
        def chain(x, n=n):
            for _ in range(n):
                x = ops.cumsum(x, axis=1)
            return x
        out[f"cumsum x{n}"] = (accy.compile(chain, x), [x], n)
    args = transformer.example_inputs()
    out["transformer block"] = (accy.compile(transformer.block, *args), list(args), 9)
    for name, (exe, _, n) in out.items():
        assert len(exe.kernels) == n == len(exe.program.launches()) and not exe.fallbacks, \
            f"{name}: {exe.report()}"
    return {name: (exe, args) for name, (exe, args, _) in out.items()}


# ---- the C harness --------------------------------------------------------------------------

def build_harness(folder):
    """bench/runtime_harness.c and tests/c/devices.c (its null device) built against the
    installed libaccyrt, loaded, their functions declared."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:
        raise SystemExit("bench/runtime.py needs a C compiler (cc, or $CC) for its harness")
    library = accy.get_library()
    out = os.path.join(folder, "libruntime_harness.so")
    libdir = os.path.dirname(library)
    subprocess.run([cc, "-std=c99", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
                    "-I", accy.get_include(), os.path.join(HERE, "runtime_harness.c"),
                    os.path.join(os.path.dirname(HERE), "tests", "c", "devices.c"),
                    "-L", libdir, "-laccyrt", f"-Wl,-rpath,{libdir}", "-o", out], check=True)
    crt.library()                   # libaccyrt first, through crt: the harness shares it
    h = ctypes.CDLL(out)
    vp, u64p, st = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_void_p)
    h.accyrt_test_null_device.restype, h.accyrt_test_null_device.argtypes = vp, []
    h.accyrt_test_device_free.restype, h.accyrt_test_device_free.argtypes = None, [vp]
    h.bench_recorder_new.restype, h.bench_recorder_new.argtypes = vp, [vp]
    h.bench_recorder_free.restype, h.bench_recorder_free.argtypes = None, [vp]
    h.bench_recorder_clear.restype, h.bench_recorder_clear.argtypes = None, [vp]
    h.bench_recorder_count.restype, h.bench_recorder_count.argtypes = ctypes.c_size_t, [vp]
    h.bench_replay.restype = ctypes.c_double
    h.bench_replay.argtypes = [vp, ctypes.c_int, vp, st]
    h.bench_runs.restype = ctypes.c_double
    h.bench_runs.argtypes = [vp, vp, u64p, ctypes.c_size_t, u64p, ctypes.c_size_t, ctypes.c_int,
                             vp, st]
    h.bench_open.restype = ctypes.c_double
    h.bench_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, st]
    return h


def timed(harness_call, *args):
    """Seconds a harness loop reports; its status raised as the CrtError it is."""
    status = ctypes.c_void_p()
    seconds = harness_call(*args, ctypes.byref(status))
    if seconds < 0:
        crt._raise_status(crt.library(), status)
    return seconds


class CRun:
    """A session of `exe` on a C device table, with caller buffers bound once."""

    def __init__(self, exe, device):
        self.device = device
        self.session = crt.Session(exe.c_bundle(), device)
        self.buffers = [device.alloc(max(s.nbytes, 1)) for s in exe.c_bundle().arguments
                        + exe.c_bundle().results]
        n = len(exe.arguments)
        self.inputs = (ctypes.c_uint64 * n)(*self.buffers[:n])
        self.outputs = (ctypes.c_uint64 * (len(self.buffers) - n))(*self.buffers[n:])
        self.input_list, self.output_list = list(self.inputs), list(self.outputs)

    def ctypes_run(self):
        self.session.run(self.input_list, self.output_list)

    def c_loop(self, harness, runs):
        return timed(harness.bench_runs, self.session._handle, self.device.table, self.inputs,
                     len(self.inputs), self.outputs, len(self.outputs), runs, None)

    def close(self):
        self.session.close()
        for b in self.buffers:
            self.device.free(b)


def replay_seconds(exe, harness, inner, runs, repeats):
    """Best seconds for `runs` replays of one run's launches through `inner`'s launch entry."""
    address = harness.bench_recorder_new(ctypes.cast(inner.table, ctypes.c_void_p))
    recorder = crt.TableDevice(address, harness)
    try:
        run = CRun(exe, recorder)
        harness.bench_recorder_clear(address)
        run.ctypes_run()
        assert harness.bench_recorder_count(address) == len(exe.program.launches())
        best = min(timed(harness.bench_replay, address, runs, None) for _ in range(repeats))
        run.close()
        return best
    finally:
        harness.bench_recorder_free(address)


def best_loop(fn, runs, repeats, finish=None):
    """Best seconds for `runs` calls of fn() in a row, then finish() (a synchronize)."""
    def loop():
        for _ in range(runs):
            fn()
        if finish is not None:
            finish()
    return best_of(loop, repeats)[0]


def runs_for(exe, runs):
    return max(10, runs // len(exe.kernels))


# ---- rows -----------------------------------------------------------------------------------

def null_row(name, exe, args, harness, runs, repeats):
    runs = runs_for(exe, runs)
    us = 1e6 / runs
    with exe.bind(*args, device=NullDevice()) as bound:
        python = best_loop(bound.launch, runs, repeats) * us
    address = harness.accyrt_test_null_device()
    null = crt.TableDevice(address, harness)
    try:
        run = CRun(exe, null)
        c_ctypes = best_loop(run.ctypes_run, runs, repeats) * us
        c = min(run.c_loop(harness, runs) for _ in range(repeats)) * us
        run.close()
        raw = replay_seconds(exe, harness, null, runs, repeats) * us
    finally:
        harness.accyrt_test_device_free(address)
    launches = len(exe.program.launches())
    return [name, launches, python, c_ctypes, c, raw, (c - raw) / launches, python / c_ctypes,
            python / c]


def gpu_row(name, exe, args, harness, cuda, runs, repeats):
    runs = runs_for(exe, runs)
    us = 1e6 / runs
    launches = len(exe.program.launches())
    driver = replay_seconds(exe, harness, cuda, runs, repeats) * us
    run = CRun(exe, cuda)
    c = min(run.c_loop(harness, runs) for _ in range(repeats)) * us
    run.close()
    python = pycuda = torch_us = None
    try:
        python, pycuda = pycuda_columns(exe, args, runs, repeats)
        python, pycuda = python * us, pycuda * us
    except accy.DeviceUnavailable:
        pass
    if name.startswith("cumsum"):
        torch_seconds = torch_chain(launches, runs, repeats)
        torch_us = torch_seconds * us if torch_seconds is not None else None
    return [name, launches, driver, c, python, pycuda, torch_us, (c - driver) / launches,
            python / c if python else None]


def pycuda_columns(exe, args, runs, repeats):
    """Seconds for `runs` runs: the Python runtime on PyCUDA, and the same launches through
    PyCUDA's prepared_call."""
    from accy.runtime.devices import open_device
    device = open_device("cuda")
    with exe.bind(*args, device="cuda") as bound:
        python_seconds = best_loop(bound.launch, runs, repeats, device.synchronize)
        functions = exe.loaded(device)
        calls = []
        for step in exe.program.launches():
            function = functions[step.kernel].function
            values = [bound._run.address(p) if hasattr(p, "slot") else p for p in step.params]
            function.prepare("".join("Q" if hasattr(p, "slot") else "q" for p in step.params))
            calls.append((function, step.grid, step.block, step.shared_bytes, values))

        def prepared():
            for function, grid, block, shared, values in calls:
                function.prepared_call(grid, block, *values, shared_size=shared)
        pycuda_seconds = best_loop(prepared, runs, repeats, device.synchronize)
    return python_seconds, pycuda_seconds


def torch_chain(n, runs, repeats):
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    x = torch.randn(SHAPE, device="cuda")

    def chain():
        y = x
        for _ in range(n):
            y = torch.cumsum(y, 1)
    chain()
    torch.cuda.synchronize()
    return best_loop(chain, runs, repeats, torch.cuda.synchronize)


def open_row(exe, harness, repeats, folder):
    path = os.path.join(folder, "transformer.accy")
    exe.save(path)
    data = write(exe)
    n = 200
    c_file = min(timed(harness.bench_open, os.fsencode(path), None, 0, n) for _ in range(repeats))
    c_memory = min(timed(harness.bench_open, None, data, len(data), n) for _ in range(repeats))
    python = best_loop(lambda: accy.load(path), 20, repeats) / 20
    ms = 1e3
    return ["transformer block", len(data), c_file / n * ms, c_memory / n * ms, python * ms,
            python / (c_file / n)]


def fmt(x, digits=2):
    if x is None:
        return "-"
    if isinstance(x, int):
        return str(x)
    return f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--runs", type=int, default=2000, help="launches per timed repeat")
    args = ap.parse_args()
    misses = []
    with tempfile.TemporaryDirectory() as folder:
        harness = build_harness(folder)
        programs = executables()
        rows = [null_row(name, exe, a, harness, args.runs, args.repeats)
                for name, (exe, a) in programs.items()]
        print_table("Host cost per run on a null device (µs per run; C - raw: µs per launch)",
                    ["executable", "launches", "Python", "C (ctypes)", "C", "raw", "C - raw",
                     "Python / C (ctypes)", "Python / C"],
                    [[r[0], r[1]] + [fmt(v) for v in r[2:6]] + [fmt(r[6], 3)]
                     + [f"{v:.0f}x" for v in r[7:]] for r in rows])
        try:
            cuda = crt.cuda_device()
        except crt.CrtError as e:
            cuda = None
            print(f"\n(no GPU row: libaccyrt's CUDA device does not open here: {e})")
        if cuda is not None:
            gpu = [gpu_row(name, exe, a, harness, cuda, args.runs, args.repeats)
                   for name, (exe, a) in programs.items()]
            print_table("On the GPU (µs per run; C - driver: µs per launch)",
                        ["executable", "launches", "driver", "C", "Python", "PyCUDA", "torch",
                         "C - driver", "Python / C"],
                        [[r[0], r[1]] + [fmt(v) for v in r[2:7]] + [fmt(r[7], 3)]
                         + [f"{r[8]:.1f}x" if r[8] else "-"] for r in gpu])
            for r in gpu:
                if r[7] > TARGET_US_PER_LAUNCH:
                    misses.append(f"{r[0]}: C adds {r[7]:.2f} µs per launch over the driver "
                                  f"> {TARGET_US_PER_LAUNCH}")
        else:
            for r in rows:
                if r[6] > TARGET_US_PER_LAUNCH:
                    misses.append(f"{r[0]}: C adds {r[6]:.2f} µs per launch over a null "
                                  f"device's launch > {TARGET_US_PER_LAUNCH}")
        exe = programs["transformer block"][0]
        row = open_row(exe, harness, args.repeats, folder)
        print_table("Opening a bundle (ms)", ["bundle", "bytes", "C (file)", "C (memory)",
                                              "Python accy.load", "Python / C"],
                    [[row[0], row[1]] + [fmt(v, 3) for v in row[2:5]] + [f"{row[5]:.0f}x"]])
        if row[2] > TARGET_OPEN_MS:
            misses.append(f"opening the transformer bundle in C: {row[2]:.3f} ms > "
                          f"{TARGET_OPEN_MS}")
    print("\ntargets: " + ("all met" if not misses else "MISSED\n  " + "\n  ".join(misses)))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
