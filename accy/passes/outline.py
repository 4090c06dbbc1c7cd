"""`KernelOutlinePlan`: one outline per kernel of a function's schedule plan: its kind, work
item, a stable kernel name, the signature (buffer params with dtype and shape, then scalar
params), the launch domain the lowering covers and the schedule the kind's plan picked.

    plan = outline_plan(pass_context, func)
    for k in plan.outlines:
        k.name, k.kind, k.work_item, k.params, k.scalars, k.launch, k.schedule

Names are `<function>$k<item>$<kind>` (blocks of an iterate: `<function>$k<item>$cond$k<j>$<kind>`
and `...$body$...`), so one input gives the same names in any process. The function's part is
its name when that is a PTX identifier without `$`; else the name with every other character
turned into `_`, then `$h` and a hash of the original, within MAX_PREFIX characters
(`kernel_prefix`, by accy/safe_names.py): the kernels of two functions never share a name.
A kernel_call keeps the user's entry name and launch; a name met twice is an OutlineError. An
iterate item is no kernel: its outline has no launch and holds the outlines of its cond and
body blocks (the host runs the loop).

Each kind's module plans its kernels (`plan_elementwise`, `plan_rows`, `plan_scan`,
`plan_dot`, `plan_attention`: `PLANS`) from the work item, the shape/layout analysis and the
target profile (its generated schedules and its arch's machine facts, `TargetProfile.facts`),
as a `KernelPlan`: the scalars, the launch domain the kind's throughput kernel is planned for
(what the outline text shows), and the kind's schedule (`ElementwisePlan`, `RowPlan`,
`ScanPlan`, `DotPlan`, `AttentionPlan`, or a `NoKernel` saying why none takes the item),
which holds the launch the kernel gets, its workspace and what the lowering needs of the
choice. The outline stores all three (`schedule`) and the lowering follows the schedule
instead of deciding again, so each launch is decided here, once. Grid dims are capped at
CUDA's limits (accy/lowering/launch.py); every kernel strides over whatever its grid does
not cover, so a capped grid stays correct. The plans' domains are described in their
modules' plan functions.
"""
import string
from dataclasses import dataclass

from accy.errors import AccyError
from accy.lowering.attention import plan_attention
from accy.lowering.dot import plan_dot
from accy.lowering.elementwise import plan_elementwise
from accy.lowering.launch import Launch
from accy.lowering.rows import plan_rows
from accy.lowering.scan import plan_scan
from accy.lowering.scatter import plan_scatter
from accy.lowering.sort import plan_sort
from accy.passes.core import AnalysisDescriptor, WorkContract, analysis_pass
from accy.passes.schedule import schedule_plan
from accy.passes.shape_layout import shape_layout, value_numbers
from accy.passes.target import TargetProfile, target_profile
from accy.safe_names import safe_name



class OutlineError(AccyError):
    """Two kernels of a function would have one name."""


@dataclass(frozen=True)
class BufferParam:
    """A kernel parameter pointing at a buffer: `role` is in or out."""
    name: str
    value: object
    dtype: str
    shape: tuple
    role: str


@dataclass(frozen=True)
class ScalarParam:
    name: str
    dtype: str
    value: int


@dataclass(frozen=True)
class KernelOutline:
    name: str
    kind: str
    work_item: int
    params: tuple
    scalars: tuple
    launch: object              # the launch domain (Launch), or None for iterate (a host loop)
    nested: tuple = ()          # iterate: (cond outlines, body outlines)
    schedule: object = None     # the kind's schedule as its plan picked it (KernelPlan.schedule):
                                # the launch the kernel gets, which the lowering follows


@dataclass(eq=False)
class KernelOutlinePlan:
    func: object
    schedule: object
    outlines: tuple

    def kernels(self):
        """Every outline that is a kernel (iterate bodies included), in launch order."""
        def walk(outlines):
            for k in outlines:
                if k.launch is not None:
                    yield k
                for group in k.nested:
                    yield from walk(group)
        return list(walk(self.outlines))

    def text(self):
        numbers = value_numbers(self.func)
        lines = [f"KernelOutlinePlan @{_symbol(self.func)}: {len(self.kernels())} kernels"]

        def emit(outlines, depth):
            pad = "  " * depth
            for k in outlines:
                lines.append(f"{pad}{k.name}: {k.kind}, item {k.work_item}"
                             + (f", {k.launch.text()}" if k.launch else ", host loop"))
                params = [f"{p.role} {p.name} %{numbers.get(p.value, '?')}: "
                          f"tensor<{''.join(f'{d}x' for d in p.shape)}{p.dtype}>"
                          for p in k.params]
                params += [f"{s.name}: {s.dtype} = {s.value}" for s in k.scalars]
                if params:
                    lines.append(f"{pad}  (" + ", ".join(params) + ")")
                for label, group in zip(("cond", "body"), k.nested):
                    lines.append(f"{pad}  {label}:")
                    emit(group, depth + 2)
        emit(self.outlines, 1)
        return "\n".join(lines) + "\n"


def _symbol(func):
    return func.attributes.get("sym_name") or "func"


_IDENTIFIER = frozenset(string.ascii_letters + string.digits + "_")
MAX_PREFIX = 100        # a 10 MB sym_name must not give 10 MB kernel names


def kernel_prefix(func):
    """The function's name as a PTX identifier prefix, by `safe_name`: a name that had to change
    (characters PTX does not allow become `_`, a leading digit gets `_` before it, a name past
    MAX_PREFIX characters is cut) ends in `$h` and a hash of the original, the whole within
    MAX_PREFIX characters, so two functions never share a prefix; an unchanged name has no `$`,
    the separator of what follows."""
    return safe_name(str(_symbol(func)), _IDENTIFIER, _IDENTIFIER - set(string.digits), "$",
                     MAX_PREFIX)


def compute_outline_plan(func, schedule, layout, target):
    plan = KernelOutlinePlan(func, schedule,
                             _outlines(schedule, layout, target, kernel_prefix(func)))
    seen = set()
    for k in plan.kernels():
        if k.name in seen:
            raise OutlineError(f"two kernels of @{_symbol(func)} are named '{k.name}' (a "
                               f"kernel_call entry may not reuse a generated name)")
        seen.add(k.name)
    return plan


def _outlines(schedule, layout, target, prefix):
    out = []
    for item in schedule.items:
        name = f"{prefix}$k{item.id}${item.kind}"
        if item.kind == "iterate":
            nested = tuple(_outlines(sub, layout, target, f"{prefix}$k{item.id}${label}")
                           for sub, label in zip(item.plans, ("cond", "body")))
            out.append(KernelOutline(name, "iterate", item.id, _params(item), (), None, nested))
            continue
        if item.kind == "kernel_call":
            a = item.hero.attributes
            name = a["kernel"]
            launch = Launch(tuple(a["grid"]), tuple(a["block"]), a.get("shared_bytes", 0))
            out.append(KernelOutline(name, item.kind, item.id, _params(item), (), launch))
            continue
        plan = PLANS[item.kind](item, layout, target)
        out.append(KernelOutline(name, item.kind, item.id, _params(item),
                                 tuple(ScalarParam(n, "u64", v) for n, v in plan.scalars),
                                 plan.launch, schedule=plan.schedule))
    return tuple(out)


def _params(item):
    params = [BufferParam(f"in{i}", v, v.type.dtype, v.type.shape, "in")
              for i, v in enumerate(item.inputs)]
    params += [BufferParam(f"out{i}", v, v.type.dtype, v.type.shape, "out")
               for i, v in enumerate(item.outputs)]
    return tuple(params)


PLANS = {"elementwise": plan_elementwise, "shape": plan_elementwise, "reduction": plan_rows,
         "row_pipeline": plan_rows, "scan": plan_scan, "dot_general": plan_dot,
         "flash_attention": plan_attention, "sort": plan_sort,
         "scatter": plan_scatter}


OUTLINE_PLAN = AnalysisDescriptor("KernelOutlinePlan", WorkContract(
    ("KernelOutlinePlan", 1), estimate=lambda p: 512 + 600 * len(p.kernels())))


def outline_plan(pass_context, func):
    """The KernelOutlinePlan of `func` through the analysis cache (reads the schedule plan, the
    shape/layout analysis and the target profile of the enclosing module)."""
    def compute(op, scope):
        module = op.parent_op
        target = target_profile(scope, module) if module is not None else TargetProfile()
        return compute_outline_plan(op, schedule_plan(scope, op), shape_layout(scope, op),
                                    target)
    return pass_context.get_analysis(func, OUTLINE_PLAN, compute)


PASS = analysis_pass("outline", outline_plan, "KernelOutlinePlan (one outline per kernel: "
                     "name, signature, launch domain)")
