"""`accy.compile` and the `Executable` it returns: a traced function (or a module) prepared,
kernelized and emitted as PTX, with a host schedule that runs its work items in order.

    exe = accy.compile(fn, *example_args, target="sm_90")
    exe.kernels, exe.ptx, print(exe.report())
    outputs = exe.run(*arrays, device="emulator")      # "cuda", "emulator" or "reference"
    exe.cubin                   # with target artifact_format = "cubin": ptxas's output, else None
    with exe.bind(*arrays, device="cuda") as bound:    # buffers kept on the device
        bound.launch()                                 # the work items again, no host copies

A run allocates the buffer plan on the device (the arguments and results in buffers of their
own, every intermediate in one arena), copies the arguments in, launches each kernel with its
buffers and scalars, runs each host fallback through the reference interpreter (reading and
writing the same buffers), runs each iterate as a host loop (its carried values in two state
buffers that trade places each trip, the condition's flag read back after each test, the
kernels of its cond and body blocks launched per trip), makes the copies the buffer plan asks
for, and copies the results out. A GPU loads the cubin when the executable has one for its
architecture, else the PTX (which its driver compiles). Modules and constant buffers are
loaded once per device that outlives a run (kept until the executable is collected); a device
opened for one run (`device="emulator"`) gets its constants with the run's buffers. On the
emulator every arena and result byte starts as 0xFF (NaN in any float dtype), so a kernel that
skips an element shows.
"""
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np

from accy._core.types import numpy_dtype
from accy.errors import AccyError, ShapeError, TypeError as DTypeError
from accy.runtime.devices import DEVICES, DeviceUnavailable, best_device, open_device

PREPARE = "canonicalize,cse"


def _nbytes(value):
    t = value.type
    return int(np.prod(t.shape, dtype=np.int64)) * numpy_dtype(t.dtype).itemsize


class ArgumentError(AccyError, ValueError):
    """Arrays that do not match what the executable was compiled for."""


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


@dataclass(eq=False)
class Executable:
    module: object
    func: object
    schedule: object
    outlines: object
    buffers: object
    kernelization: object
    ptx: str
    rebuild: object = None
    timings: dict = field(default_factory=dict)
    cache: object = None        # holds the analyses above alive (their cleanups run with it)
    cubin: bytes = None         # `ptx` assembled by ptxas, when the target asks for a cubin
    loops: dict = field(default_factory=dict)   # iterate item id -> its LoopProgram
    _loaded: object = field(default_factory=_PerDevice, repr=False)    # functions per device
    _constants: object = field(default_factory=partial(_PerDevice, _free_constants), repr=False)
    _assembled: object = field(default=None, repr=False)       # ptxas's Assembled, once run

    @property
    def kernels(self):
        return self.kernelization.kernels

    @cached_property
    def kernels_by_scope(self):
        """{scope: {work item id: its kernel}}: the kernels of each block (None: the function's
        block, else a loop block's scope), for the runs that launch them."""
        by_scope = {}
        for k in self.kernels:
            by_scope.setdefault(k.scope, {})[k.work_item] = k
        return by_scope

    @property
    def fallbacks(self):
        return self.kernelization.fallbacks

    @property
    def target(self):
        return self.kernelization.target

    @property
    def arguments(self):
        return [(a.type.shape, a.type.dtype) for a in self.func.regions[0].blocks[0].arguments]

    def resources(self):
        """{kernel name: KernelResources} (registers, spills, stack, shared memory) from
        `ptxas -v` on `ptx`, or None when ptxas is not installed. Reuses the ptxas call that
        made the cubin; otherwise runs ptxas once, on first use."""
        from accy.lowering.ptxas import assemble, find_ptxas
        if self._assembled is None and self.ptx and find_ptxas() is not None:
            self._assembled = assemble(self.ptx, self.target.arch)
        return self._assembled.resources if self._assembled is not None else None

    def report(self):
        """Kernels, kinds, registers and spills (from `ptxas -v`, when ptxas is installed),
        host fallbacks, bytes moved, arena size and compile time per stage."""
        from accy.lowering.ptxas import PtxasError
        s, b, t = self.schedule, self.buffers, self.target
        try:
            resources, unread = self.resources(), "ptxas is not installed"
        except PtxasError as e:         # still a report, saying why registers are missing
            resources, unread = None, str(e).splitlines()[0]
        lines = [f"target {t.arch}, PTX {t.ptx_version}, math tier {t.math_tier}"
                 + (f", cubin {len(self.cubin)} bytes" if self.cubin is not None else ""),
                 f"{len(self.kernels)} kernels, {len(self.fallbacks)} host fallbacks; "
                 f"{s.bytes} bytes moved (ideal {s.ideal_bytes}); arena {b.arena_bytes} bytes "
                 f"(peak live {b.peak_bytes})"]
        for k in self.kernels:
            launch = k.launch
            lines.append(f"  kernel {k.name}: {k.kind} ({k.schedule} schedule), item "
                         f"{k.work_item}{_where(k.scope)}, {launch.text()}"
                         + (f", workspace {k.workspace} bytes" if k.workspace else "")
                         + _resources_text(k, resources))
        if self.ptx and resources is None:
            lines.append(f"  (registers and spills: {unread})")
        lines += self._loop_lines(self.loops, ())
        for f in self.fallbacks:
            lines.append(f"  host   item {f.work_item}{_where(f.scope)}: {f.kind} ({f.reason})")
        lines.append("compile time: " + ", ".join(f"{stage} {ms:.2f} ms"
                                                  for stage, ms in self.timings.items()))
        return "\n".join(lines)

    def _loop_lines(self, loops, scope):
        """A report line per loop of `loops` (a block's LoopPrograms; `scope` the block's),
        naming the kernels of its own blocks, then the lines of the loops inside them."""
        lines = []
        for item_id, program in sorted(loops.items()):
            inner = scope + (item_id,)
            inside = [k.name for k in self.kernels if k.scope and k.scope[:-1] == inner]
            lines.append(f"  loop   item {item_id}{_where(scope)}: a host loop launching "
                         f"{', '.join(inside) or 'host work only'}")
            for block in (program.cond, program.body):
                lines += self._loop_lines(block.loops, inner + (block.label,))
        return lines

    def run(self, *arrays, device=None):
        """The function's results for `arrays` on `device` (default: a GPU when there is one,
        else the emulator), or on a device object such as `Emulator(counters=True)`, whose
        `launches` then tell each kernel's memory transactions."""
        arrays = self._check(arrays)
        device = device or best_device()
        if not isinstance(device, str):
            results = _Run(self, device).run(arrays)
            return self.rebuild(list(results)) if self.rebuild else tuple(results)
        if device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
        if device == "reference":
            from accy import reference
            results = reference.run(self.module, *arrays,
                                    function=str(self.func.attributes["sym_name"]))
        else:
            results = _run_on(self, device).run(arrays)
        return self.rebuild(list(results)) if self.rebuild else tuple(results)

    def bind(self, *arrays, device=None):
        """A `Bound` run on `device` ("cuda" or "emulator"): the buffer plan allocated once,
        `arrays` (all of them, or none: the buffers then start as they are) copied in; its
        `launch()` runs the work items again on those buffers with no host copies, so that
        kernel time can be measured apart from transfers (bench/gpu/check.py). Close it (or use
        it in a `with`) to free the buffers."""
        if arrays:
            arrays = self._check(arrays)
        device = device or best_device()
        if device not in ("cuda", "emulator"):
            raise ValueError(f"bind needs device 'cuda' or 'emulator', got {device!r}")
        return Bound(_run_on(self, device), arrays)

    def loaded(self, device):
        """{kernel name: function} on `device`, its modules loaded once per device: the cubin
        where the device runs the target's architecture (`device.runs_cubin(arch)`), else the
        PTX (which a GPU's driver compiles when it loads it)."""
        return self._loaded.get(device, self._load)

    def constants(self, device):
        """{constant value: device address} of the constant buffers of the function's block
        and its loops' blocks, uploaded on the first run on `device` and kept there (runs only
        read them) until the executable is collected, when they are freed."""
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
        """The constant buffers (see `constants`) in new allocations on `device`, which the
        caller frees: {value: address}. An upload that fails frees what it allocated."""
        addresses, plans = {}, [self.buffers]
        try:
            while plans:
                plan = plans.pop()
                plans += [sub for subs in plan.nested.values() for sub in subs]
                for b in plan.buffers:
                    if b.kind == "constant":
                        addresses[b.value] = int(device.mem_alloc(b.nbytes))
                        device.memcpy_htod(addresses[b.value], np.frombuffer(b.data, np.uint8))
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


class _Run:
    """One run of an executable on a device."""

    def __init__(self, exe, device, keeps=True):
        self.exe, self.dev = exe, device
        # the device outlives the run (see `_run_on`) and can keep the executable's constants
        self.keeps = keeps and _PerDevice.can_hold(device)
        self.addresses = {}             # buffer id -> device address
        self.functions = {}
        self.bound = {}                 # value -> address, for a loop block's arguments/yields
        self.frames = []                # (a loop block's BufferPlan, its arena's address)
        self.constants = {}             # constant value -> address (`Executable.constants`)
        self.allocations = []

    def run_items(self, items, scope, loops=None):
        """Run one block's work items in order: kernels, loops (`loops`: the block's
        LoopPrograms by item id; the function's by default), host fallbacks."""
        loops = self.exe.loops if loops is None else loops
        kernels = self.exe.kernels_by_scope.get(scope, {})
        for item in items:
            if item.id in kernels:
                self.launch(kernels[item.id], item)
            elif item.id in loops:
                self.loop(item, loops[item.id], scope)
            else:
                self.host(item)

    def loop(self, item, program, scope):
        """An iterate item of the block with `scope` as a host loop over its cond and body
        kernels, as its LoopProgram (accy/lowering/iterate.py) says. A loop inside a loop has
        its buffers in the enclosing block's plan (in the workspace of the loop around it)."""
        plan, base = self.frames[-1] if scope is not None else (self.exe.buffers, None)

        def address(buffer_id):
            if base is None:
                return self.addresses[buffer_id]
            return base + plan.storage(plan.buffers[buffer_id]).offset
        current = [address(a) for a, _ in program.states]
        following = [address(b) for _, b in program.states]
        flag = address(program.flag)
        work = address(program.workspace) if program.workspace is not None else 0
        for v, to in zip(item.hero.operands, current):
            self.copy(self.address(v), to, _nbytes(v))
        flag_value = np.zeros((), np.bool_)
        inner = (scope or ()) + (item.id,)
        while True:
            self.block(inner, program.cond, work, current, [flag])
            self.dev.memcpy_dtoh(flag_value, flag)
            if not flag_value:
                break
            self.block(inner, program.body, work, current, following)
            current, following = following, current
        for r, src in zip(item.hero.results, current):
            if r in plan.buffer_of:
                self.copy(src, self.address(r), _nbytes(r))

    def block(self, scope, loop_block, work, args, yields):
        """Run a loop block (its kernels' scope: `scope` and its label): its arguments read
        `args`, its yields land in `yields` (written there by the block's kernels, or copied
        after them)."""
        block = loop_block.schedule.block
        values = block.last_op.operands
        made = [values[i] for i in loop_block.in_place]
        self.bound.update(zip(block.arguments, args))
        self.bound.update(zip(made, (yields[i] for i in loop_block.in_place)))
        self.frames.append((loop_block.buffers, work))
        try:
            self.run_items(loop_block.schedule.items, scope + (loop_block.label,),
                           loop_block.loops)
        finally:
            self.frames.pop()
        for i in loop_block.copied:
            self.copy(self.address(values[i]), yields[i], _nbytes(values[i]))
        for v in made + list(block.arguments):      # (a yielded outer value stays bound)
            self.bound.pop(v, None)

    def copy(self, source, target, nbytes):
        """A device-to-device copy (a loop's initial states and copied yields)."""
        if nbytes and source != target:
            self.dev.memcpy_dtod(target, source, nbytes)

    def run(self, arrays):
        try:
            self.allocate(arrays)
            self.run_items(self.exe.schedule.items, None)
            return self.results()
        finally:
            self.free()

    def allocate(self, arrays):
        """The buffer plan on the device; `arrays` (if any) copied into the arguments."""
        exe, dev = self.exe, self.dev
        plan = exe.buffers
        self.functions = exe.loaded(dev)
        allocations = self.allocations
        if self.keeps:
            self.constants = exe.constants(dev)
        else:
            self.constants = exe.upload_constants(dev)
            allocations += self.constants.values()
        self.scratch = None
        arena = None
        if any(b.offset is not None for b in plan.buffers):     # (empty ones too)
            arena = dev.mem_alloc(max(plan.arena_bytes, 1))
            allocations.append(arena)
            self._fill(arena, plan.arena_bytes)
        args = plan.block.arguments
        for b in plan.buffers:
            if b.alias_of is not None or b.copy_of is not None:
                continue
            if b.kind in ("input", "output"):
                p = dev.mem_alloc(b.nbytes)
                allocations.append(p)
                self.addresses[b.id] = int(p)
                if b.kind == "output":
                    self._fill(p, b.nbytes)
            elif b.offset is not None:
                self.addresses[b.id] = int(arena) + b.offset
        for a, x in zip(args, arrays):
            if a in plan.buffer_of:
                dev.memcpy_htod(self.address(a), np.ascontiguousarray(x))

    def results(self):
        """Make the copies the plan asks for, then copy the results out."""
        plan, dev = self.exe.buffers, self.dev
        for b in plan.buffers:
            if b.copy_of is not None:
                data = self.read(b.copy_of.value)
                if b.id not in self.addresses:
                    p = dev.mem_alloc(b.nbytes)
                    self.allocations.append(p)
                    self.addresses[b.id] = int(p)
                dev.memcpy_htod(self.addresses[b.id], data)
        outputs = [b for b in plan.buffers if b.kind == "output"]
        return [self.read(v, buffer) for v, buffer in zip(plan.block.last_op.operands, outputs)]

    def free(self):
        for p in self.allocations:
            self.dev.mem_free(p)
        self.allocations = []

    def _fill(self, pointer, nbytes):
        if hasattr(self.dev, "memory"):         # the emulator: show what no kernel wrote
            self.dev.memcpy_htod(pointer, np.full(nbytes, 0xFF, np.uint8))

    def address(self, value, buffer=None):
        if buffer is None:
            if value in self.bound:
                return self.bound[value]
            if value in self.constants:
                return self.constants[value]
            for plan, base in reversed(self.frames):     # a loop block's intermediates
                b = plan.buffer_of.get(value)
                if b is not None and b.kind not in ("input", "output"):
                    return base + plan.storage(b).offset
        b = buffer or self.exe.buffers.buffer_of[value]
        return self.addresses[self.exe.buffers.storage(b).id]

    def read(self, value, buffer=None):
        t = value.type
        out = np.empty(t.shape, numpy_dtype(t.dtype))
        if out.nbytes:
            self.dev.memcpy_dtoh(out, self.address(value, buffer))
        return out

    def launch(self, lowered, item):
        outline = lowered.outline
        args = [np.uint64(self.address(p.value)) for p in outline.params]
        args += [np.int64(s.value) for s in outline.scalars]
        if lowered.workspace:
            args.append(np.uint64(self.zeroed_scratch(lowered.workspace)))
        launch = lowered.launch
        self.functions[lowered.name](*args, block=launch.block, grid=launch.grid,
                                     shared=launch.shared_bytes)

    def zeroed_scratch(self, nbytes):
        """A kernel's workspace: one scratch buffer per run, as large as the largest asked
        for, zeroed before each launch that takes it."""
        if self.scratch is None:
            size = max(k.workspace for k in self.exe.kernels)
            self.scratch = self.dev.mem_alloc(size)
            self.allocations.append(self.scratch)
        memset = getattr(self.dev, "memset_d8", None)      # a GPU zeroes it in place
        if memset is not None:
            memset(self.scratch, 0, nbytes)
        else:
            self.dev.memcpy_htod(self.scratch, np.zeros(nbytes, np.uint8))
        return int(self.scratch)

    def host(self, item):
        from accy import reference
        from accy.passes.schedule import work_item_module
        inputs = [self.read(v) for v in item.inputs]
        outputs = reference.run(work_item_module(item), *inputs)
        for v, x in zip(item.outputs, outputs):
            data = np.ascontiguousarray(np.asarray(x, numpy_dtype(v.type.dtype)))
            if data.nbytes:
                self.dev.memcpy_htod(self.address(v), data)


def _run_on(exe, name):
    """A _Run on the device `name` opens: "cuda" is the one GPU context, which keeps the
    executable's constants; "emulator" a new device for this run only, whose constants are
    allocations of the run, freed with it."""
    return _Run(exe, open_device(name), keeps=name == "cuda")


class Bound:
    """An executable's buffer plan allocated on a device, for launching its work items again
    and again without host copies (`Executable.bind`): time `launch()` with the device's
    events (PyCUDA's `drv.Event`, or torch's on the same default stream).

        with exe.bind(x, device="cuda") as bound:
            bound.launch()                      # every work item, in order, on the same buffers
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
        """Run the work items once (kernels are launched asynchronously on a GPU; host loops
        and host fallbacks read back what they need)."""
        self._open.run_items(self._run.exe.schedule.items, None)

    def results(self):
        exe = self._open.exe
        results = self._run.results()
        return exe.rebuild(list(results)) if exe.rebuild else tuple(results)

    def argument_address(self, i):
        """The device address of argument `i`'s buffer (None when no kernel reads it)."""
        a = self._open.exe.buffers.block.arguments[i]
        return self._run.address(a) if a in self._run.exe.buffers.buffer_of else None

    def result_address(self, i):
        """The device address of result `i`'s buffer (a result that is an argument has one
        only after `results()`)."""
        plan = self._open.exe.buffers
        buffer = [b for b in plan.buffers if b.kind == "output"][i]
        storage = plan.storage(buffer)
        return self._run.addresses.get(storage.id)

    def close(self):
        """Free the buffers (again: nothing); every other call raises AccyError after it."""
        if not self._closed:
            self._closed = True
            self._run.free()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


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


def compile(fn, *example_args, target=None):  # noqa: A001 - accy.compile, by design
    """An Executable for `fn` (a function traced on `example_args`' shapes and dtypes, an
    `accy.jit` function, or a module) for `target` (an arch name such as "sm_90", a
    TargetProfile field dictionary, or None for the module's own `accy.target`). A module is
    compiled as a copy in a Context of its own (same unregistered-op setting and Capacity), so
    the caller's module is never changed and each Executable owns its module."""
    # imported here: `import accy` stays cheap for programs that only trace
    from accy._core.analysis import AnalysisCache, AnalysisScope
    from accy._core.attributes import DictAttr
    from accy._core.context import Context, Module, Operation
    from accy.frontend.jit import Jit, signature, trace
    from accy.lowering.iterate import plan_loop
    from accy.lowering.kernelize import KERNELIZATION, compute_kernelization
    from accy.lowering.ptx import emit_module
    from accy.passes import PassManager
    from accy.passes.bufferize import buffer_plan
    from accy.passes.outline import outline_plan
    from accy.passes.schedule import schedule_plan
    from accy.passes.shape_layout import shape_layout
    from accy.passes.target import ATTRIBUTE, read_target_profile, target_profile
    timings = {}
    t0 = time.perf_counter()
    rebuild = None
    if isinstance(fn, Module):      # compiled as a copy: the caller's module stays as it is
        source = fn.context
        module = fn.clone(Context(allow_unregistered=source.allow_unregistered,
                                  capacity=source.capacity))
    elif callable(fn):
        inner = fn.__wrapped__ if isinstance(fn, Jit) else fn
        module, rebuild = trace(inner, [signature(a) for a in example_args])
    elif isinstance(fn, Operation) and fn.name == "builtin.module":
        raise DTypeError("accy.compile takes a module as the Module object accy.ir.parse or "
                         "accy.jit(f).lower(...) gives, got a builtin.module as a plain "
                         "Operation (an op's parent_op, or Operation.clone): pass that Module")
    else:
        raise DTypeError(f"accy.compile takes a function, an accy.jit function or a module, "
                         f"got {type(fn).__name__}")
    if target is not None:
        if not isinstance(target, (str, Mapping)):
            raise DTypeError(f"target must be an arch name such as 'sm_90', a dict of "
                             f"TargetProfile fields, or None; got {type(target).__name__} "
                             f"{target!r}")
        fields = {"arch": target} if isinstance(target, str) else dict(target)
        module.set_attribute(ATTRIBUTE, DictAttr(fields))
    read_target_profile(module)                 # a malformed target fails here, by name
    t1 = time.perf_counter()
    cache = AnalysisCache(module.context)
    PassManager(PREPARE).run(module, cache)
    t2 = time.perf_counter()
    funcs = [op for op in module.body if op.name == "builtin.func"]
    if len(funcs) != 1:
        raise AccyError(f"accy.compile takes a module with one function, got {len(funcs)}")
    func = funcs[0]
    # The plans (what the shape, schedule, outline, bufferize and kernelize passes compute) are
    # taken here, each once, in dependency order, under a lease of the compile's own that is
    # never ended: they stay pinned (or, past a small Capacity, uncached but alive) as long as
    # the Executable holds the cache. The kernels are lowered from these very objects (the
    # kernelize pass's computation would ask the cache again, which a small Capacity cannot
    # make hold them), so the executable's plans are the ones its kernels were lowered from.
    held = AnalysisScope(cache, func, "", cache.begin_lease())   # errors name the analysis
    profile = target_profile(held, module)
    layout = shape_layout(held, func)
    schedule = schedule_plan(held, func)
    outlines = outline_plan(held, func)
    buffers = buffer_plan(held, func)
    # Kept in the cache (which closes it with the Executable), but computed from these objects;
    # the cache is new, so nothing else can have computed it first.
    kernelized = held.get_analysis(
        func, KERNELIZATION,
        lambda op, scope: compute_kernelization(op, schedule, outlines, layout, profile),
        lambda analysis: analysis.close())
    loops = {item.id: plan_loop(item, buffers) for item in schedule.items
             if item.kind == "iterate" and item.id in buffers.nested}
    t3 = time.perf_counter()
    ours = [k.kernel for k in kernelized.kernels if k.kernel is not None]
    ptx = emit_module(ours, arch=profile.arch, ptx_version=profile.ptx_version,
                      math_tier=profile.math_tier) if ours else ""
    t4 = time.perf_counter()
    timings.update({"trace": (t1 - t0) * 1e3, "canonicalize": (t2 - t1) * 1e3,
                    "plan+kernelize": (t3 - t2) * 1e3, "ptx": (t4 - t3) * 1e3})
    assembled = None
    if profile.artifact_format == "cubin" and ptx:
        from accy.lowering.ptxas import assemble
        assembled = assemble(ptx, profile.arch)    # one ptxas call for every kernel
        timings["ptxas"] = (time.perf_counter() - t4) * 1e3
    return Executable(module, func, schedule, outlines, buffers, kernelized, ptx, rebuild,
                      timings, cache, cubin=assembled.cubin if assembled else None,
                      loops=loops, _assembled=assembled)
