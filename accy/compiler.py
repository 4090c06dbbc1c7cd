"""The compiler: an ordered table of stages, from a tensor-level module to an `Executable`.

    STAGES: tensor -> prepared -> plans -> kl -> ptx -> cubin -> host

    exe = accy.compile(fn, *example_args, target="sm_90")       # every stage
    c = compilation(fn, *example_args, stop="kl")               # the stages up to kl
    print(c.text("kl"))                                         # any stage's output as text
    c = compilation(module, start="prepared")                   # resume from prepared IR
    c = resume_kl(kl_text, target="sm_90")                      # ... or from printed kl

- tensor: the function traced on its example arguments (frontend/trace.py), or a copy of the
  module given (in a Context of its own, so the caller's module is never changed), with its
  target set.
- prepared: lower-case (no tensor.case reaches the planner), canonicalize, cse and
  raise-attention: the IR the plans read.
- plans: the preparation analyses (target profile, shape/layout, schedule, outlines, buffers),
  taken once each in dependency order under a lease of the compilation's own.
- kl: each outline lowered by kind to a `kl.kernel` (accy/lowering/kernelize.py), or left to
  the host.
- ptx: the kl kernels legalized (accy/lowering/legalize.pyx), then emitted as one PTX module.
- cubin: ptxas's output for that module, when the target's artifact_format is cubin (else none).
- host: the host program (accy/lowering/host_program.py), and with it the Executable, which
  holds no IR.

Each stage's output prints (`Compilation.text(stage)`; `accy compile --emit STAGE`), and each
is deterministic. A compilation prints a stage's output while it holds it: the tensor module
until prepared rewrites it in place, the kl until ptx legalizes it in place (stop at a stage
to print it), and no stage it resumed past. Compiling resumes from a printed stage that is IR text (tensor, prepared,
kl) or PTX: from tensor or prepared IR every later stage runs; from kl or PTX only the stages
that need nothing but their text (ptx, cubin): a host program needs the plans, which no printed
kl or PTX holds.

`compile` looks the executable up in the compile cache first (accy/cache.py), after the tensor
stage (the key needs the traced module), and on a miss runs the stages with the cache's kernel
level, then stores the result; `compilation` and the resume functions never use the cache.
"""
import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from accy._core.analysis import AnalysisCache, AnalysisScope
from accy._core.attributes import DictAttr
from accy._core.context import Context, Module, Operation
from accy._core.text import parse
from accy.cache import KernelReuse, cache_for, executable_key
from accy.errors import AccyError, TypeError as DTypeError
from accy.frontend.trace import signature, trace
from accy.lowering.host_program import build_host_program
from accy.lowering.kernelize import KERNELIZATION, compute_kernelization
from accy.lowering.ptx import emit_module
from accy.lowering import ptxas
from accy.passes import PassManager
from accy.passes.bufferize import buffer_plan
from accy.passes.outline import outline_plan
from accy.passes.plans import Plans
from accy.passes.schedule import schedule_plan
from accy.passes.shape_layout import shape_layout
from accy.passes.target import ATTRIBUTE, TargetProfile, read_target_profile, target_profile
from accy.runtime.devices import open_device
from accy.runtime.executable import Executable, KernelInfo

PREPARE = "lower-case,canonicalize,cse,raise-attention"


class StageError(AccyError):
    """A stage asked for that a compilation cannot reach from where it started."""


@dataclass(frozen=True)
class Stage:
    name: str
    run: object             # Compilation -> None: makes the stage's output
    text: object            # Compilation -> str: that output printed
    resumes: bool = False   # whether compiling can start from this stage's printed text (--from)
    timed_as: str = None    # its name in the timings (default: its own)


@dataclass(eq=False)
class Compilation:
    """The stages' outputs, filled in as they run (None until then)."""
    module: object = None           # tensor, prepared: the tensor-level module
    func: object = None
    rebuild: object = None          # a traced function's output structure
    plans: object = None            # passes.plans.Plans
    cache: object = None            # the AnalysisCache the plans and the kl live in
    kernelization: object = None    # KernelizationAnalysis: the kl module, LoweredKernels
    kl: object = None               # the kl module (kernelization's, or resumed from text)
    target: object = None           # the TargetProfile
    ptx: str = None
    cubin: bytes = None
    assembled: object = None        # ptxas's Assembled, when the cubin stage ran it
    program: object = None          # the HostProgram
    executable: object = None
    kernel_text: object = None      # emit_module's kernel_text: the cache's KernelReuse, or None
    done: list = field(default_factory=list)        # the stages run (or resumed past), in order
    ran: set = field(default_factory=set)           # the stages this compilation ran itself
    held: set = field(default_factory=set)          # those whose output it holds as made
    timings: dict = field(default_factory=dict)     # stage name -> milliseconds

    def text(self, stage):
        """Stage `stage`'s output as text, while this compilation holds it: not for a stage
        it resumed past (it started from a later stage's text), nor for one a later stage
        rewrote in place (prepared rewrites the tensor module, ptx legalizes the kl: stop at
        the stage to print it)."""
        if stage not in STAGE:
            raise StageError(f"no stage {stage!r}: the stages are "
                             f"{', '.join(s.name for s in STAGES)}")
        if stage not in self.done:
            raise StageError(f"stage {stage!r} has not run in this compilation (ran: "
                             f"{', '.join(self.done) or 'none'})")
        if stage not in self.held:
            if stage in self.ran:
                raise StageError(f"stage {stage!r}'s output is no longer held: stage "
                                 f"{REWRITTEN_BY[stage]!r} rewrote it in place (stop at "
                                 f"{stage!r} to print it)")
            raise StageError(f"stage {stage!r} did not run in this compilation: it resumed "
                             f"from a later stage's text")
        return STAGE[stage].text(self)

    def _made(self, stage):
        self.ran.add(stage)
        self.held.add(stage)
        for earlier, later in REWRITTEN_BY.items():
            if later == stage:
                self.held.discard(earlier)

    def run(self, stop="host"):
        """Run the stages after the last one done, up to and including `stop`."""
        names = [s.name for s in STAGES]
        if stop not in names:
            raise StageError(f"no stage {stop!r}: the stages are {', '.join(names)}")
        for stage in STAGES[names.index(self.done[-1]) + 1:names.index(stop) + 1]:
            t0 = time.perf_counter()
            stage.run(self)
            if stage.name != "cubin" or self.assembled is not None:    # ptxas ran
                self.timings[stage.timed_as or stage.name] = (time.perf_counter() - t0) * 1e3
            self.done.append(stage.name)
            self._made(stage.name)
        return self


# ---- the stages ---------------------------------------------------------------------------

def _prepare(c):
    _prepare_pipeline().run(c.module, AnalysisCache(c.module.context))


@functools.cache
def _prepare_pipeline():
    """PREPARE's PassManager, parsed once (its passes are immutable values)."""
    return PassManager(PREPARE)


def _plans(c):
    funcs = [op for op in c.module.body if op.name == "builtin.func"]
    if len(funcs) != 1:
        raise AccyError(f"accy.compile takes a module with one function, got {len(funcs)}")
    c.func = func = funcs[0]
    # Taken here, each once, in dependency order, under a lease that is never ended: they stay
    # pinned (or, past a small Capacity, uncached but alive) while the compilation holds the
    # cache, and the kernels are lowered from these very objects.
    c.cache = AnalysisCache(c.module.context)
    held = AnalysisScope(c.cache, func, "", c.cache.begin_lease())   # errors name the analysis
    profile = target_profile(held, c.module)
    layout = shape_layout(held, func)
    schedule = schedule_plan(held, func)
    c.plans = Plans(func, profile, layout, schedule, outline_plan(held, func),
                    buffer_plan(held, func))
    c.target = profile


def _plans_text(c):
    return c.target.text().rstrip("\n") + "\n" + c.plans.text()


def _kl(c):
    p = c.plans
    # kept in the cache (closed with it) but computed from the plans above; the cache is new,
    # so nothing else can have computed it first
    held = AnalysisScope(c.cache, c.func, "", c.cache.begin_lease())
    c.kernelization = held.get_analysis(
        c.func, KERNELIZATION,
        lambda op, scope: compute_kernelization(op, p.schedule, p.outlines, p.layout,
                                                p.target),
        lambda analysis: analysis.close())
    c.kl = c.kernelization.module


def _ptx(c):
    kernels = list(c.kl.body) if c.kl is not None else []
    c.ptx = emit_module(kernels, target=c.target, kernel_text=c.kernel_text) if kernels else ""


def _cubin(c):
    if c.target.artifact_format == "cubin" and c.ptx:
        c.assembled = ptxas.assemble(c.ptx, c.target.arch)     # one ptxas call for every kernel
        c.cubin = c.assembled.cubin


def _host(c):
    if c.plans is None:
        raise StageError("a host program needs the plans, which printed kl or PTX does not "
                         "hold: compile from the tensor or prepared IR")
    p, k = c.plans, c.kernelization
    c.program = build_host_program(p.schedule, p.buffers, k.kernels)
    args = c.func.regions[0].blocks[0].arguments
    c.executable = Executable(
        ptx=c.ptx, cubin=c.cubin, program=c.program,
        arguments=tuple((tuple(a.type.shape), a.type.dtype) for a in args),
        results=tuple((r.shape, r.dtype) for r in c.program.results),
        module_text=c.module.print(), function=str(c.func.attributes["sym_name"]),
        kernels=tuple(KernelInfo(x.name, x.kind, x.work_item, x.scope, x.schedule, x.launch,
                                 x.workspace, x.ptx) for x in k.kernels),
        fallbacks=k.fallbacks, target=c.target,
        stats={"bytes": p.schedule.bytes, "ideal_bytes": p.schedule.ideal_bytes,
               "arena_bytes": p.buffers.arena_bytes, "peak_bytes": p.buffers.peak_bytes},
        timings=c.timings, rebuild=c.rebuild, _assembled=c.assembled)


def _module_text(c):
    return c.module.print()


STAGES = (
    Stage("tensor", lambda c: None, _module_text, resumes=True),
    Stage("prepared", _prepare, _module_text, resumes=True),
    Stage("plans", _plans, _plans_text),
    Stage("kl", _kl, lambda c: c.kl.print() if c.kl is not None else "", resumes=True),
    Stage("ptx", _ptx, lambda c: c.ptx, resumes=True),
    Stage("cubin", _cubin, lambda c: f"cubin {len(c.cubin)} bytes\n" if c.cubin is not None
          else "no cubin (the target's artifact_format is ptx)\n", timed_as="ptxas"),
    Stage("host", _host, lambda c: c.program.text()),
)
STAGE = {s.name: s for s in STAGES}
# stage -> the later stage that rewrites its output in place
REWRITTEN_BY = {"tensor": "prepared", "kl": "ptx"}


# ---- entry points -------------------------------------------------------------------------

def compile(fn, *example_args, target=None, start="tensor", cache=None):  # noqa: A001
    """An Executable for `fn` (a function traced on `example_args`' shapes and dtypes, an
    `accy.jit` function, or a module) for `target` (an arch name such as "sm_90", a
    TargetProfile field dictionary, or None for the module's own `accy.target`). `start`:
    "prepared" when the module is prepared IR already (printed by `--emit prepared`).
    `cache`: None the default compile cache (off under ACCY_CACHE=0), False none (every stage
    runs, every kernel emitted on its own), an `accy.cache.Cache` or a folder's path. With a
    cache, `timings` has the lookup ("cache", after "tensor"); a hit's has those two alone."""
    store = cache_for(cache)
    c = _begin(fn, example_args, target, start)
    t0 = time.perf_counter()
    key = executable_key(c.module, start) if store is not None else None
    if key is None:
        return c.run("host").executable
    digest, profile = key.digest(), read_target_profile(c.module)
    exe = store.executable(digest, key.arguments, profile)
    lookup = (time.perf_counter() - t0) * 1e3
    if exe is not None:
        exe.rebuild = c.rebuild
        exe.timings = {"tensor": c.timings["tensor"], "cache": lookup}
        return exe
    c.timings["cache"] = lookup
    c.kernel_text = KernelReuse(store, profile)
    exe = c.run("host").executable
    store.store(digest, exe, c.kernel_text.new)
    return exe


def compilation(fn, *example_args, target=None, start="tensor", stop="host"):
    """A Compilation of `fn` (as `compile` takes it) run from `start` ("tensor" or
    "prepared") up to `stop`, with no cache."""
    return _begin(fn, example_args, target, start).run(stop)


def _begin(fn, example_args, target, start):
    """A Compilation that has made its tensor stage (or, from "prepared", taken it as done)."""
    if start not in ("tensor", "prepared"):
        raise StageError(f"a function or module starts at stage 'tensor' or 'prepared', got "
                         f"{start!r} (printed kl: resume_kl; PTX: resume_ptx)")
    c = Compilation()
    t0 = time.perf_counter()
    c.module, c.rebuild = _tensor_module(fn, example_args)
    _set_target(c.module, target)
    c.timings["tensor"] = (time.perf_counter() - t0) * 1e3
    c.done.append("tensor")
    if start == "prepared":             # the module given is prepared IR already
        c.done.append("prepared")
        c.held.add("prepared")
    else:
        c._made("tensor")
    return c


def resume_kl(text, target=None, stop="cubin"):
    """A Compilation resumed from printed kl (a module of kl.kernel ops) up to `stop` (ptx or
    cubin); `target` as accy.compile takes it (None: sm_90's defaults)."""
    c = Compilation(target=_profile(target))
    c.kl = parse(text, Context())
    c.done += ["tensor", "prepared", "plans", "kl"]
    c.held.add("kl")
    return c.run(stop)


def resume_ptx(text, target=None):
    """A Compilation resumed from PTX text: the cubin stage (for a cubin target)."""
    c = Compilation(target=_profile(target), ptx=text)
    c.done += ["tensor", "prepared", "plans", "kl", "ptx"]
    c.held.add("ptx")
    return c.run("cubin")


def _tensor_module(fn, example_args):
    if isinstance(fn, Module):      # compiled as a copy: the caller's module stays as it is
        source = fn.context
        return fn.clone(Context(allow_unregistered=source.allow_unregistered,
                                capacity=source.capacity)), None
    if callable(fn):
        inner = getattr(fn, "__accy_function__", fn)     # an accy.jit function: its own
        return trace(inner, [signature(a) for a in example_args])
    if isinstance(fn, Operation) and fn.name == "builtin.module":
        raise DTypeError("accy.compile takes a module as the Module object accy.ir.parse or "
                         "accy.jit(f).lower(...) gives, got a builtin.module as a plain "
                         "Operation (an op's parent_op, or Operation.clone): pass that Module")
    raise DTypeError(f"accy.compile takes a function, an accy.jit function or a module, got "
                     f"{type(fn).__name__}")


def _fields(target):
    if not isinstance(target, (str, Mapping)):
        raise DTypeError(f"target must be an arch name such as 'sm_90', a dict of "
                         f"TargetProfile fields, or None; got {type(target).__name__} "
                         f"{target!r}")
    return {"arch": target} if isinstance(target, str) else dict(target)


def _set_target(module, target):
    if target is not None:
        module.set_attribute(ATTRIBUTE, DictAttr(_fields(target)))
    read_target_profile(module)                 # a malformed target fails here, by name


def _profile(target):
    """The TargetProfile of `target` (as accy.compile takes it) outside a module."""
    if target is None:
        return TargetProfile()
    module = Module.create(Context())
    _set_target(module, target)
    return read_target_profile(module)


def target_for(device, own=None):
    """The target to compile for, when none is given, to run on `device`: None (the module's
    own target, or the default) unless `device` is a GPU that cannot run its arch; then the
    module's own target fields (`own`, a dict) with the GPU's arch (the newest accy targets
    that it runs)."""
    if device != "cuda":
        return None
    gpu = open_device("cuda")
    own = dict(own or {})
    if gpu.runs_ptx(own.get("arch", TargetProfile().arch)):
        return None
    return {**own, "arch": gpu.arch()}
