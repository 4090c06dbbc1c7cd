"""`KernelizationAnalysis`: every kernel outline of a function lowered, by kind, to a
`kl.kernel` in an IR Context of its own (with the parent's capacity limits), as the original
accy's kernelization pass does: it reads the schedule plan, the outline plan, the buffer
plan, the shape/layout analysis and the target profile; finds each outline's work item by id
(the index, when it matches, else a search); and drops everything it built when a lowering
fails.

Under the `exact` math tier an item no lowering handles yet becomes a host fallback (its work
item runs on the host through the reference interpreter; `fallbacks` says which and why);
under any other tier it is an error. An iterate item is lowered block by block: the kernels of
its cond and body blocks (`scope` = (item id, "cond" | "body"), after the enclosing block's
scope for a loop inside a loop), which the executable launches once per trip of a host loop.
Each kind's lowering follows the schedule its plan function picked when the outline was made
(`KernelOutline.schedule`: the launch, the schedule's name and workspace; the serial baseline
when the parallel ones do not apply) and returns its `LoweredKernel`: elementwise and shape
items (`elementwise.py`: vector, tiled transpose), reduction and row_pipeline items (`rows.py`:
a warp or a block per row, column, split rows), scan items (`scan.py`: warp, block, look-back,
column), dot_general items (`dot.py`: tensor cores, else the FMA path), flash_attention items,
composite or decomposed (`attention.py`: the flash kernel on tensor cores, else a thread per
query row), sort items (`sort.py`: a thread per element placing it by its rank), scatter
items (`scatter.py`: a thread per output element folding the updates aimed at it); a
kernel_call passes its user PTX through with its declared launch (checked by
ptxas when installed); every other kind falls back.

    analysis = kernelization(pass_context, func)
    analysis.kernels       # LoweredKernel: name, kind, work item, kl kernel, outline, launch
    analysis.fallbacks     # HostFallback: work item, kind, reason

The kl module is verified only under `ACCY_VERIFY_KERNELS=1` (the tests set it; see
docs/compile.md, "The kernel language").
"""
import os
from dataclasses import dataclass, replace

from accy._core.context import Context, Module
from accy.errors import AccyError, UnsupportedError
from accy.lowering.attention import lower_attention
from accy.lowering.dot import lower_dot
from accy.lowering.elementwise import lower_elementwise
from accy.lowering.launch import LoweredKernel
from accy.lowering.ptxas import PtxasError, assemble, find_ptxas
from accy.lowering.rows import lower_rows
from accy.lowering.scan import lower_scan
from accy.lowering.scatter import lower_scatter
from accy.lowering.sort import lower_sort
from accy.passes.bufferize import buffer_plan
from accy.passes.core import AnalysisDescriptor, WorkContract, analysis_pass
from accy.passes.outline import outline_plan
from accy.passes.schedule import schedule_plan
from accy.passes.shape_layout import shape_layout
from accy.passes.target import TargetProfile, target_profile


class KernelizationError(AccyError):
    """A kernel could not be lowered under a math tier that allows no host fallback."""


@dataclass(frozen=True)
class HostFallback:
    work_item: int
    kind: str
    reason: str
    scope: tuple = None     # as LoweredKernel.scope


@dataclass(eq=False)
class KernelizationAnalysis:
    context: object
    module: object          # the builtin.module holding the kl kernels
    kernels: tuple
    fallbacks: tuple
    target: object

    def close(self):
        """Drop the kernels' IR (the cache calls this when it lets the analysis go)."""
        self.kernels, self.module, self.context = (), None, None


LOWERINGS = {"elementwise": lower_elementwise, "shape": lower_elementwise,
             "reduction": lower_rows, "row_pipeline": lower_rows, "scan": lower_scan,
             "dot_general": lower_dot, "flash_attention": lower_attention, "sort": lower_sort,
             "scatter": lower_scatter}


def verify_kernels():
    """Whether kernelization verifies the kl kernels it writes: under ACCY_VERIFY_KERNELS=1
    (the tests, debugging a lowering); an ordinary compile trusts the lowerings."""
    return os.environ.get("ACCY_VERIFY_KERNELS") == "1"


def work_item(schedule, item_id):
    """The work item with `item_id`: by index when that matches (the usual case), else found."""
    items = schedule.items
    if 0 <= item_id < len(items) and items[item_id].id == item_id:
        return items[item_id]
    for item in items:
        if item.id == item_id:
            return item
    raise KernelizationError(f"no work item has id {item_id}")


def compute_kernelization(func, schedule, outlines, layout, target):
    """Lower every outline of `func` (see the module doc)."""
    context = Context(capacity=func.context.capacity)
    module = Module.create(context)
    kernels, fallbacks = [], []
    try:
        _lower_block(context, module, schedule, outlines.outlines, layout, target, None,
                     kernels, fallbacks)
        if verify_kernels():
            module.verify()
    except BaseException:
        module.erase(force=True)    # a failed kernelization leaves no kernels behind
        raise
    return KernelizationAnalysis(context, module, tuple(kernels), tuple(fallbacks), target)


def _lower_block(context, module, schedule, outlines, layout, target, scope, kernels,
                 fallbacks):
    """Lower the outlines of one block's schedule. `scope`: None for the function's body,
    (iterate item id, "cond" or "body") for a loop's blocks, whose kernels the host launches
    once per trip; a loop inside a loop's block adds its own pair to that block's scope."""
    for outline in outlines:
        item = work_item(schedule, outline.work_item)
        if outline.kind == "kernel_call":
            kernels.append(_kernel_call(outline, item, target, scope))
            continue
        if outline.kind == "iterate":
            for sub, label, nested in zip(item.plans, ("cond", "body"), outline.nested):
                _lower_block(context, module, sub, nested, layout, target,
                             (scope or ()) + (item.id, label), kernels, fallbacks)
            continue
        lower = LOWERINGS.get(outline.kind)
        built = len(list(module.body))
        try:
            if lower is None:
                raise UnsupportedError(f"no {outline.kind} lowering yet")
            try:
                lowered = lower(context, module.body, outline, item, layout, target)
            except RecursionError:
                # a backstop: chains through gathered data or nested index expressions still
                # lower by recursion, a few frames a step
                raise UnsupportedError("its values or index expressions nest too deep to "
                                       "lower into one kernel") from None
        except UnsupportedError as e:
            for op in list(module.body)[built:]:    # the kernel it had begun
                op.erase(force=True)
            if target.math_tier != "exact":
                raise KernelizationError(
                    f"work item {item.id} ({outline.kind}) cannot be lowered under the "
                    f"'{target.math_tier}' math tier: {e}") from e
            fallbacks.append(HostFallback(item.id, outline.kind, str(e), scope))
            continue
        kernels.append(lowered if scope is None else replace(lowered, scope=scope))


def _kernel_call(outline, item, target, scope):
    """A kernel_call's user PTX, passed through with its declared launch; checked by ptxas for
    the target's arch when ptxas is installed (a user kernel that does not assemble is an
    error now, not at launch)."""
    a = item.hero.attributes
    ptx = a["ptx"]
    if find_ptxas() is not None:
        try:
            assemble(ptx, target.arch)
        except PtxasError as e:
            raise KernelizationError(f"the PTX of kernel_call '{a['kernel']}' (work item "
                                     f"{item.id}) does not assemble for {target.arch}:\n"
                                     f"{e}") from None
    return LoweredKernel(outline.name, "kernel_call", item.id, None, outline, outline.launch,
                         ptx, scope)


KERNELIZATION = AnalysisDescriptor("KernelizationAnalysis", WorkContract(
    ("KernelizationAnalysis", 1),
    estimate=lambda a: 4096 + (a.context.memory_bytes() if a.context is not None else 0)))


def kernelization(pass_context, func):
    """The KernelizationAnalysis of `func` through the analysis cache."""
    def compute(op, scope):
        module = op.parent_op
        target = target_profile(scope, module) if module is not None else TargetProfile()
        schedule = schedule_plan(scope, op)
        buffer_plan(scope, op)      # the executable needs it; computed (and cached) with these
        return compute_kernelization(op, schedule, outline_plan(scope, op),
                                     shape_layout(scope, op), target)
    return pass_context.get_analysis(func, KERNELIZATION, compute,
                                     lambda analysis: analysis.close())


PASS = analysis_pass("kernelize", kernelization, "KernelizationAnalysis (each kernel outline "
                     "lowered by kind to a kl kernel, or a host fallback under the exact tier)")
