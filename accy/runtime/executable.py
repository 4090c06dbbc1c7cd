"""The `Executable` that `accy.compile` returns, and the runs that follow its host program.

    exe = accy.compile(fn, *example_args, target="sm_90")
    exe.kernels, exe.ptx, exe.program, print(exe.report())
    outputs = exe.run(*arrays, device="emulator")      # "cuda", "emulator" or "reference"
    exe.cubin                   # with target artifact_format = "cubin": ptxas's output, else None
    exe.save("model.accy")      # a bundle, which accy.load reads back (docs/runtime.md)
    with exe.bind(*arrays, device="cuda") as bound:    # buffers kept on the device
        bound.launch()                                 # the steps again, no host copies
    exe.run(*arrays, device="cuda", runtime="c")       # the same steps, followed by libaccyrt

An Executable is data, nothing live from the compiler: the PTX (and the cubin), the host
program (accy/runtime/program.py), the arguments' and results' shapes and dtypes, the
tensor-level module as text (for the reference device), and what the report tells. A run
allocates the program's slots on the device, copies the arguments in, follows the steps and
copies the results out. A GPU loads the cubin when the executable has one for its architecture,
else the PTX (which its driver compiles). Modules and constants are loaded once per device that
outlives a run (kept until the executable is collected); a device opened for one run
(`device="emulator"`) gets its constants with the run's buffers. On the emulator every arena and
result byte starts as 0xFF (NaN in any float dtype), so a kernel that skips an element shows.

With `runtime="c"` libaccyrt follows the host program instead (accy/runtime/crt.py), from the
executable's bundle: on a GPU through the library's own CUDA device (no PyCUDA), on the
emulator or a device object through a device table of Python callbacks. A GPU keeps the
session (modules, arena, constants) until the executable is collected.
"""
import math
import weakref
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from accy import reference
from accy._core.context import Context
from accy._core.text import parse
from accy._core.types import numpy_dtype
from accy.errors import AccyError, ShapeError, TypeError as DTypeError
from accy.lowering import ptxas
from accy.runtime import bundle_writer, crt
from accy.runtime.devices import DEVICES, DeviceUnavailable, best_device, open_device
from accy.runtime.program import Copy, Host, Launch, Loop, Memset, Ref


class ArgumentError(AccyError, ValueError):
    """Arrays that do not match what the executable was compiled for."""


RUNTIMES = ("python", "c")      # who follows the host program: accy's Python code or libaccyrt


_KEPT = "_accy_kept"      # the device attribute holding what executables keep there


class _PerDevice:
    """What an executable keeps for each device it runs on (its loaded modules, its uploaded
    constants), made by `make(device)` on the first use there. The values are held by the
    device, in a dictionary keyed weakly by this object (which the executable holds), so that
    neither keeps the other alive: an executable may outlive many devices, and a value may
    refer to its device (the emulator's modules do), which a dictionary of the executable's
    keyed weakly by device would keep alive for ever. `free(device, value)`, if given,
    releases a value when the executable is collected, if its device is still there."""

    def __init__(self, free=None):
        self.free = free

    @staticmethod
    def can_hold(device):
        """Whether `device` can keep values (it has a __dict__ and takes weak references); a
        device that cannot gets values made afresh for each run, which the run frees."""
        try:
            weakref.ref(device)
        except TypeError:
            return False
        return hasattr(device, "__dict__")

    def get(self, device, make):
        if not self.can_hold(device):
            return make(device)
        kept = vars(device).setdefault(_KEPT, weakref.WeakKeyDictionary())
        if self not in kept:
            value = make(device)
            if self.free is not None:
                done = []           # the finalizer, dropped if the device goes first
                device_ref = weakref.ref(device, lambda _: done[0].detach())
                done.append(weakref.finalize(self, _free_if_open, self.free, device_ref,
                                             value))
                done[0].atexit = False  # at exit the device (a GPU context) may be gone first
            kept[self] = value
        return kept[self]


def _free_if_open(free, device_ref, value):
    device = device_ref()
    if device is not None:
        free(device, value)


def _free_constants(device, addresses):
    for p in addresses.values():
        device.mem_free(p)


def _close_session(device, session):
    session.close()


@dataclass(frozen=True)
class KernelInfo:
    """One kernel of an executable, for the report and for loading: `launch` its grid, block
    and shared bytes (`.text()`); `ptx` a kernel_call's own PTX module, else None."""
    name: str
    kind: str
    work_item: int
    scope: tuple            # None, or (iterate item id, "cond" | "body", ...): a loop's kernel
    schedule: str
    launch: object
    workspace: int = 0
    ptx: str = None



@dataclass(eq=False)
class Executable:
    ptx: str
    cubin: bytes            # `ptx` assembled by ptxas, when the target asks for a cubin
    program: object         # the HostProgram
    arguments: tuple        # (shape, dtype) per argument
    results: tuple          # (shape, dtype) per result
    module_text: str        # the tensor-level module it was compiled from (after preparation)
    function: str           # the name of that module's function
    kernels: tuple          # KernelInfo per kernel
    fallbacks: tuple        # HostFallback per work item left to the host, and why
    target: object          # the TargetProfile
    stats: dict = field(default_factory=dict)   # bytes moved, ideal bytes, arena, peak live
    timings: dict = field(default_factory=dict)  # milliseconds per compiler stage
    rebuild: object = None  # the traced function's output structure, from the result list
    _loaded: object = field(default_factory=_PerDevice, repr=False)    # functions per device
    _constants: object = field(default_factory=partial(_PerDevice, _free_constants), repr=False)
    _assembled: object = field(default=None, repr=False)       # ptxas's Assembled, once run
    _modules: dict = field(default_factory=dict, repr=False)   # IR text -> parsed module
    _bundle: object = field(default=None, repr=False)          # crt.Bundle, once run in C
    _sessions: object = field(default_factory=partial(_PerDevice, _close_session), repr=False)

    def __repr__(self):         # short: the PTX, the module text and constants are large
        return (f"<accy.Executable {self.function}: {len(self.kernels)} kernels, "
                f"{len(self.fallbacks)} host fallbacks, {len(self.program.slots)} slots, "
                f"{self.target.arch}>")

    def save(self, path):
        """Write this executable as a bundle (docs/runtime.md) to `path`, which `accy.load`
        reads back (or libaccyrt, in C): a new file in path's folder, renamed onto it."""
        bundle_writer.save(self, path)

    def resources(self):
        """{kernel name: KernelResources} (registers, spills, stack, shared memory) from
        `ptxas -v` on `ptx`, or None when ptxas is not installed. Reuses the ptxas call that
        made the cubin; otherwise runs ptxas once, on first use."""
        if self._assembled is None and self.ptx and ptxas.find_ptxas() is not None:
            self._assembled = ptxas.assemble(self.ptx, self.target.arch)
        return self._assembled.resources if self._assembled is not None else None

    def report(self):
        """Kernels, kinds, registers and spills (from `ptxas -v`, when ptxas is installed),
        host fallbacks, bytes moved, arena size and compile time per stage."""
        s, t = self.stats, self.target
        try:
            resources, unread = self.resources(), "ptxas is not installed"
        except ptxas.PtxasError as e:         # still a report, saying why registers are missing
            resources, unread = None, str(e).splitlines()[0]
        lines = [f"target {t.arch}, PTX {t.ptx_version}, math tier {t.math_tier}"
                 + (f", cubin {len(self.cubin)} bytes" if self.cubin is not None else ""),
                 f"{len(self.kernels)} kernels, {len(self.fallbacks)} host fallbacks; "
                 f"{s['bytes']} bytes moved (ideal {s['ideal_bytes']}); arena "
                 f"{s['arena_bytes']} bytes (peak live {s['peak_bytes']})"]
        for k in self.kernels:
            lines.append(f"  kernel {k.name}: {k.kind} ({k.schedule} schedule), item "
                         f"{k.work_item}{_where(k.scope)}, {k.launch.text()}"
                         + (f", workspace {k.workspace} bytes" if k.workspace else "")
                         + _resources_text(k, resources))
        if self.ptx and resources is None:
            lines.append(f"  (registers and spills: {unread})")
        lines += _loop_lines(self.program.steps, ())
        for f in self.fallbacks:
            lines.append(f"  host   item {f.work_item}{_where(f.scope)}: {f.kind} ({f.reason})")
        lines.append("compile time: " + ", ".join(f"{stage} {ms:.2f} ms"
                                                  for stage, ms in self.timings.items()))
        return "\n".join(lines)

    def run(self, *arrays, device=None, runtime="python"):
        """The function's results for `arrays` on `device` (default: a GPU when there is one,
        else the emulator), or on a device object such as `Emulator(counters=True)`, whose
        `launches` then tell each kernel's memory transactions. `runtime="c"`: libaccyrt
        follows the host program (on "cuda", "emulator" or a device object)."""
        arrays = self._check(arrays)
        if _runtime(runtime, device) == "c":
            results = _c_run(self, device).run(arrays)
            return self.rebuild(list(results)) if self.rebuild else tuple(results)
        device = device or best_device()
        if not isinstance(device, str):
            results = _Run(self, device).run(arrays)
        elif device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
        elif device == "reference":
            results = reference.run(self.parsed(self.module_text), *arrays,
                                    function=self.function)
        else:
            results = _run_on(self, device).run(arrays)
        return self.rebuild(list(results)) if self.rebuild else tuple(results)

    def bind(self, *arrays, device=None, runtime="python"):
        """A `Bound` run on `device` ("cuda", "emulator" or a device object): the slots
        allocated once, `arrays` (all of them, or none: the buffers then start as they are)
        copied in; its `launch()` runs the steps again on those buffers with no host copies,
        so that kernel time can be measured apart from transfers (bench/gpu/check.py). Close
        it (or use it in a `with`) to free the buffers. `runtime="c"`: libaccyrt runs them."""
        if arrays:
            arrays = self._check(arrays)
        if _runtime(runtime, device) == "c":
            return Bound(_c_run(self, device), arrays)
        device = device or best_device()
        if not isinstance(device, str):
            return Bound(_Run(self, device), arrays)
        if device not in ("cuda", "emulator"):
            raise ValueError(f"bind needs device 'cuda' or 'emulator', got {device!r}")
        return Bound(_run_on(self, device), arrays)

    def c_bundle(self):
        """This executable's bundle as libaccyrt opened it (a crt.Bundle), written once. A
        bundle with host fallbacks is refused there (crt.CrtUnsupported)."""
        if self._bundle is None:
            self._bundle = crt.Bundle.from_bytes(bundle_writer.write(self))
        return self._bundle

    def parsed(self, text):
        """The module of IR `text` (the tensor-level module, a host step's), parsed once."""
        module = self._modules.get(text)
        if module is None:
            module = self._modules[text] = parse(text, Context(allow_unregistered=True))
        return module

    def loaded(self, device):
        """{kernel name: function} on `device`, its modules loaded once per device: the cubin
        where the device runs the target's architecture (`device.runs_cubin(arch)`), else the
        PTX (which a GPU's driver compiles when it loads it)."""
        return self._loaded.get(device, self._load)

    def constants(self, device):
        """{constant slot id: device address}, uploaded on the first run on `device` and kept
        there (runs only read them) until the executable is collected, when they are freed."""
        return self._constants.get(device, self.upload_constants)

    def _load(self, device):
        functions = {}
        runs_ptx = getattr(device, "runs_ptx", None)
        if self.ptx and runs_ptx is not None and not runs_ptx(self.target.arch):
            raise DeviceUnavailable(
                f"this executable was compiled for {self.target.arch}, which the GPU "
                f"({device.arch()}) cannot run: compile with target={device.arch()!r}")
        if self.ptx:
            runs_cubin = getattr(device, "runs_cubin", None)
            use_cubin = self.cubin is not None and runs_cubin is not None and runs_cubin(
                self.target.arch)
            module = device.module_from_buffer(self.cubin if use_cubin else self.ptx)
            functions = {k.name: module.get_function(k.name) for k in self.kernels
                         if k.ptx is None}
        for k in self.kernels:
            if k.ptx is not None:           # a kernel_call: the user's own module
                functions[k.name] = device.module_from_buffer(k.ptx).get_function(k.name)
        return functions

    def upload_constants(self, device):
        """The constant slots in new allocations on `device`, which the caller frees:
        {slot id: address}. An upload that fails frees what it allocated."""
        addresses = {}
        try:
            for slot in self.program.constants():
                addresses[slot.id] = int(device.mem_alloc(slot.nbytes))
                device.memcpy_htod(addresses[slot.id], np.frombuffer(slot.data, np.uint8))
        except BaseException:
            _free_constants(device, addresses)
            raise
        return addresses

    def _check(self, arrays):
        expected = self.arguments
        if len(arrays) != len(expected):
            raise ArgumentError(f"the executable takes {len(expected)} arrays, got "
                                f"{len(arrays)}")
        out = []
        for i, (x, (shape, dtype)) in enumerate(zip(arrays, expected)):
            a = np.asarray(x)
            if a.dtype != numpy_dtype(dtype):
                raise DTypeError(f"argument {i} must be {dtype} ({numpy_dtype(dtype)}), got "
                                 f"{a.dtype}")
            if a.shape != tuple(shape):
                raise ShapeError(f"argument {i} must have shape {tuple(shape)}, got {a.shape}")
            if isinstance(x, np.ndarray) and not x.flags.c_contiguous:
                raise ArgumentError(f"argument {i} is not C-contiguous (strides {x.strides}); "
                                    f"pass np.ascontiguousarray(x)")
            out.append(a)
        return out


class _Once:
    """A run's shape, whoever runs the steps: allocate, run them, read the results, free."""

    def run(self, arrays):
        try:
            self.allocate(arrays)
            self.run_steps()
            return self.results()
        finally:
            self.free()


class _Run(_Once):
    """One run of an executable's host program on a device."""

    def __init__(self, exe, device, keeps=True):
        self.exe, self.dev = exe, device
        # the device outlives the run (see `_run_on`) and can keep the executable's constants
        self.keeps = keeps and _PerDevice.can_hold(device)
        self.base = {}                  # slot id -> device address (a state slot: as bound)
        self.functions = {}
        self.allocations = []

    def run_steps(self):
        self.steps(self.exe.program.steps)

    def argument_address(self, i):
        slot = self.exe.program.arguments[i]
        return self.base[slot] if slot is not None else None

    def result_address(self, i):
        return self.address(self.exe.program.results[i].ref)

    def allocate(self, arrays):
        """The program's slots on the device; `arrays` (if any) copied into the arguments."""
        exe, dev = self.exe, self.dev
        program = exe.program
        self.functions = exe.loaded(dev)
        if self.keeps:
            self.base.update(exe.constants(dev))
        else:
            constants = exe.upload_constants(dev)
            self.allocations += constants.values()
            self.base.update(constants)
        for slot in program.slots:
            if slot.kind in ("argument", "result", "arena", "scratch"):
                p = dev.mem_alloc(slot.nbytes)
                self.allocations.append(p)
                self.base[slot.id] = int(p)
                if slot.kind in ("result", "arena"):
                    self._fill(p, slot.nbytes)
        for slot, x in zip(program.arguments, arrays):
            if slot is not None:
                dev.memcpy_htod(self.base[slot], np.ascontiguousarray(x))

    def address(self, ref):
        return self.base[ref.slot] + ref.offset

    def steps(self, steps):
        for step in steps:
            if isinstance(step, Launch):
                self.launch(step)
            elif isinstance(step, Memset):
                self.memset(step)
            elif isinstance(step, Copy):
                self.copy(step)
            elif isinstance(step, Loop):
                self.loop(step)
            elif isinstance(step, Host):
                self.host(step)
            else:
                raise AccyError(f"a host program step of an unknown kind: {step!r}")

    def launch(self, step):
        args = [np.uint64(self.address(p)) if isinstance(p, Ref) else np.int64(p)
                for p in step.params]
        self.functions[step.kernel](*args, block=step.block, grid=step.grid,
                                    shared=step.shared_bytes)

    def memset(self, step):
        memset = getattr(self.dev, "memset_d8", None)      # a GPU sets it in place
        if memset is not None:
            memset(self.address(step.target), step.value, step.nbytes)
        else:
            self.dev.memcpy_htod(self.address(step.target),
                                 np.full(step.nbytes, step.value, np.uint8))

    def copy(self, step):
        target, source = self.address(step.target), self.address(step.source)
        if step.nbytes and source != target:
            self.dev.memcpy_dtod(target, source, step.nbytes)

    def loop(self, step):
        """A host loop (see accy/lowering/host_program.py): the state slots bound to their
        buffers, trading places after each trip of the body."""
        for pair in step.states:
            self.base[pair.current] = self.address(pair.first)
            self.base[pair.next] = self.address(pair.second)
        flag = np.zeros((), np.bool_)
        while True:
            self.steps(step.cond)
            self.dev.memcpy_dtoh(flag, self.address(step.flag))
            if not flag:
                break
            self.steps(step.body)
            for pair in step.states:
                self.base[pair.current], self.base[pair.next] = (self.base[pair.next],
                                                                 self.base[pair.current])

    def host(self, step):
        inputs = [self.read(o) for o in step.inputs]
        outputs = reference.run(self.exe.parsed(step.module), *inputs)
        for o, x in zip(step.outputs, outputs):
            data = np.ascontiguousarray(np.asarray(x, numpy_dtype(o.dtype)))
            if data.nbytes:
                self.dev.memcpy_htod(self.address(o.ref), data)

    def read(self, operand):
        out = np.empty(operand.shape, numpy_dtype(operand.dtype))
        if out.nbytes:
            self.dev.memcpy_dtoh(out, self.address(operand.ref))
        return out

    def results(self):
        return [self.read(r) for r in self.exe.program.results]

    def free(self):
        for p in self.allocations:
            self.dev.mem_free(p)
        self.allocations = []

    def _fill(self, pointer, nbytes):
        if hasattr(self.dev, "memory"):         # the emulator: show what no kernel wrote
            self.dev.memcpy_htod(pointer, np.full(nbytes, 0xFF, np.uint8))


def _runtime(runtime, device):
    if runtime not in RUNTIMES:
        raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
    if runtime == "c" and isinstance(device, str) and device not in ("cuda", "emulator"):
        raise ValueError(f"runtime 'c' runs on device 'cuda', 'emulator' or a device object, "
                         f"got {device!r}")
    return runtime


class _CRun(_Once):
    """A run through libaccyrt: the caller's buffers (one per argument and result) allocated
    through the session's device table, the steps run by `accyrt_session_run`. `owned`: the
    session is this run's, freed with it; otherwise the executable keeps it for the device."""

    def __init__(self, exe, dev, session, owned):
        self.exe, self.dev, self.session, self.owned = exe, dev, session, owned
        self.inputs, self.outputs = [], []

    def allocate(self, arrays):
        exe = self.exe
        for shape, dtype in exe.arguments:
            self.inputs.append(self.dev.alloc(max(_nbytes(shape, dtype), 1)))
        for shape, dtype in exe.results:
            self.outputs.append(self.dev.alloc(max(_nbytes(shape, dtype), 1)))
        for address, x in zip(self.inputs, arrays):
            self.dev.upload(address, np.ascontiguousarray(x))

    def run_steps(self):
        self.session.run(self.inputs, self.outputs)

    def results(self):
        out = []
        for address, (shape, dtype) in zip(self.outputs, self.exe.results):
            array = np.empty(shape, numpy_dtype(dtype))
            self.dev.download(array.reshape(-1).view(np.uint8), address)
            out.append(array)
        return out

    def argument_address(self, i):
        return self.inputs[i]

    def result_address(self, i):
        return self.outputs[i]

    def free(self):
        """Free every buffer (a failure to free one does not keep the others), then an owned
        session; the first failure is raised."""
        buffers, self.inputs, self.outputs = self.inputs + self.outputs, [], []
        failure = None
        for address in buffers:
            try:
                self.dev.free(address)
            except crt.CrtError as e:
                failure = failure or e
        if self.owned:
            self.session.close()
        if failure is not None:
            raise failure


def _nbytes(shape, dtype):
    return math.prod(shape) * numpy_dtype(dtype).itemsize


def _c_run(exe, device):
    """A _CRun on `device`: "cuda" is libaccyrt's CUDA device for GPU 0, whose session the
    executable keeps; "emulator" a new emulator and a device object a table over it, each
    with a session for this run only (the emulator's memory starting as 0xFF, as in _Run); a
    crt.Device is used as it is."""
    if device is None:
        device = "cuda" if _c_cuda_available() else "emulator"
    if device == "cuda":
        table = _c_cuda()
        session = exe._sessions.get(table, lambda t: crt.Session(exe.c_bundle(), t))
        return _CRun(exe, table, session, owned=False)
    if isinstance(device, crt.Device):     # a table already (a C device of the caller's)
        table = device
    else:
        device = open_device("emulator") if device == "emulator" else device
        table = crt.PythonDevice(device, fill=0xFF if hasattr(device, "memory") else None)
    return _CRun(exe, table, crt.Session(exe.c_bundle(), table), owned=True)


def _c_cuda():
    try:
        return crt.cuda_device()
    except crt.CrtError as e:
        raise DeviceUnavailable(f"device 'cuda' through libaccyrt: {e}") from None


def _c_cuda_available():
    try:
        _c_cuda()
    except DeviceUnavailable:
        return False
    return True


def _run_on(exe, name):
    """A _Run on the device `name` opens: "cuda" is the one GPU context, which keeps the
    executable's constants; "emulator" a new device for this run only, whose constants are
    allocations of the run, freed with it."""
    return _Run(exe, open_device(name), keeps=name == "cuda")


class Bound:
    """An executable's slots allocated on a device, for running its steps again and again
    without host copies (`Executable.bind`): time `launch()` with the device's events
    (PyCUDA's `drv.Event`, or torch's on the same default stream).

        with exe.bind(x, device="cuda") as bound:
            bound.launch()                      # every step, in order, on the same buffers
            y = bound.results()                 # copied out, as Executable.run returns them
            bound.argument_address(0)           # device addresses, to fill or read in place
    """

    def __init__(self, run, arrays):
        self._run = run
        self._closed = False
        try:
            run.allocate(arrays)
        except BaseException:
            run.free()
            raise

    @property
    def _open(self):
        """The run, while its buffers are allocated."""
        if self._closed:
            raise AccyError("this Bound is closed (its device buffers are freed); bind the "
                            "executable again")
        return self._run

    @property
    def device(self):
        return self._run.dev

    def launch(self):
        """Run the steps once (kernels are launched asynchronously on a GPU; host loops and
        host steps read back what they need)."""
        self._open.run_steps()

    def results(self):
        exe = self._open.exe
        results = self._run.results()
        return exe.rebuild(list(results)) if exe.rebuild else tuple(results)

    def argument_address(self, i):
        """The device address of argument `i`'s buffer (None when the Python runtime's
        steps never read it)."""
        return self._open.argument_address(i)

    def result_address(self, i):
        """The device address of result `i`'s buffer."""
        return self._open.result_address(i)

    def close(self):
        """Free the buffers (again: nothing); every other call raises AccyError after it."""
        if not self._closed:
            self._closed = True
            self._run.free()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _loop_lines(steps, scope):
    """A report line per loop among `steps` (a block's; `scope` the block's), naming the
    kernels its own blocks launch, then the lines of the loops inside them."""
    lines = []
    for step in steps:
        if not isinstance(step, Loop):
            continue
        inner = scope + (step.item,)
        inside = [s.kernel for block in (step.cond, step.body) for s in block
                  if isinstance(s, Launch)]
        lines.append(f"  loop   item {step.item}{_where(scope)}: a host loop launching "
                     f"{', '.join(inside) or 'host work only'}")
        for label, block in (("cond", step.cond), ("body", step.body)):
            lines += _loop_lines(block, inner + (label,))
    return lines


def _where(scope):
    """Where a loop's kernel, loop or host fallback sits: " (in item 1's body, item 4's
    cond)" for scope (1, "body", 4, "cond"), outermost first; "" in the function's block."""
    if not scope:
        return ""
    return " (in " + ", ".join(f"item {i}'s {label}" for i, label in zip(scope[0::2],
                                                                         scope[1::2])) + ")"


def _resources_text(kernel, resources):
    r = (resources or {}).get(kernel.name)
    if r is None:
        return ""
    return (f"; {r.registers} registers, spills {r.spill_stores}/{r.spill_loads} bytes "
            f"stored/loaded" + (f", stack {r.stack} bytes" if r.stack else ""))
