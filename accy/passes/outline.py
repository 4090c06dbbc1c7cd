"""`KernelOutlinePlan`: one outline per kernel of a function's schedule plan: its kind, work
item, a stable kernel name, the signature (buffer params with dtype and shape, then scalar
params) and the launch domain the lowering covers.

    plan = outline_plan(pass_context, func)
    for k in plan.outlines:
        k.name, k.kind, k.work_item, k.params, k.scalars, k.launch

Names are `<function>$k<item>$<kind>` (blocks of an iterate: `<function>$k<item>$cond$k<j>$<kind>`
and `...$body$...`), so one input gives the same names in any process. The function's part is
its name when that is a PTX identifier without `$`; else the name with every other character
turned into `_`, then `$h` and a hash of the original, within MAX_PREFIX characters
(`kernel_prefix`, by accy/safe_names.py): the kernels of two functions never share a name.
A kernel_call keeps the user's entry name and launch; a name met twice is an OutlineError. An
iterate item is no kernel: its outline has no launch and holds the outlines of its cond and
body blocks (the host runs the loop).

Launch domains (grid, block, shared bytes), from the target profile's generated schedules:
the domain each kind's throughput kernel is planned for. (A lowering launches its kernel with
the domain it was written for, `LoweredKernel.launch`: the serial baselines and some throughput
schedules pick their own.)
Grid dims are capped at CUDA's limits (x 2^31 - 1, y and z 65535); every kernel strides over
whatever its grid does not cover (a grid-stride loop per dim), so a capped grid stays correct.
- elementwise, shape: 256 threads, each covering one vector of the output's vector width per
  grid-stride step; one block per 256 vectors. (A shape item that transposes is lowered as
  32 x 32 tiles through shared memory with a launch of its own: accy/lowering/elementwise.py.)
- row_pipeline and row reductions: the row schedule's threads per row; up to 32 threads per
  row pack 256 / threads rows in a block, more take a block per row. Shared memory holds the
  per-warp partials, and, for a row_pipeline whose row does not fit in registers (threads x
  elements per thread < row length), the row itself when it fits the target's shared memory per
  block (`ArchFacts.max_shared_per_block`); a longer row is read again from global memory by
  each pass. (accy/lowering/rows.py launches these, the split rows and the column reductions
  with grids of at most 4096 blocks and static shared memory, at most 48 KB a block: a row
  pipeline whose staged row needs more is read again instead.)
- a row reduction with few rows and long ones (fewer rows than 2 x the target's SMs, rows
  longer than SPLIT_ROW): each row is split over ceil(length / SPLIT_ROW) blocks (at most 1024) that
  write partials; the last block to finish a row combines them in a fixed order (no float
  atomics, so the result does not depend on timing). Grid (splits, rows).
- column reductions (reduced dims not trailing): blocks of 32 x 8 threads over 32 columns.
- scan: the scan schedule's threads per block, one block per row and ceil(length / (threads x
  elements per thread)) blocks along a row longer than one block covers; grid (blocks per
  row, rows).
- dot_general: 128 x 128 output tiles (DOT_TILE) of 256 threads, two shared-memory stages of
  128 x 32 operand tiles; grid (column tiles, row tiles, batch).
- flash_attention: 64 query rows per block of 128 threads, K/V tiles of 64 rows in two
  shared-memory stages; grid (query tiles, batch x heads).
"""
import math
import string
from dataclasses import dataclass

from accy._core.types import numpy_dtype
from accy.errors import AccyError
from accy.lowering.launch import THREADS, Launch, blocks, capped_grid
from accy.passes.core import AnalysisDescriptor, WorkContract, analysis_pass
from accy.passes.schedule import DOT_TILE, schedule_plan, trailing
from accy.passes.shape_layout import buffer_layout, value_numbers
from accy.passes.target import TargetProfile, target_profile
from accy.safe_names import safe_name

SPLIT_ROW = 32 * 1024   # elements one block of a split row reduction covers


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
    launch: object              # Launch, or None for iterate (a host loop)
    nested: tuple = ()          # iterate: (cond outlines, body outlines)


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


def compute_outline_plan(func, schedule, target):
    plan = KernelOutlinePlan(func, schedule, _outlines(schedule, target, kernel_prefix(func)))
    seen = set()
    for k in plan.kernels():
        if k.name in seen:
            raise OutlineError(f"two kernels of @{_symbol(func)} are named '{k.name}' (a "
                               f"kernel_call entry may not reuse a generated name)")
        seen.add(k.name)
    return plan


def _outlines(schedule, target, prefix):
    out = []
    for item in schedule.items:
        name = f"{prefix}$k{item.id}${item.kind}"
        if item.kind == "iterate":
            nested = tuple(_outlines(sub, target, f"{prefix}$k{item.id}${label}")
                           for sub, label in zip(item.plans, ("cond", "body")))
            out.append(KernelOutline(name, "iterate", item.id, _params(item), (), None, nested))
            continue
        if item.kind == "kernel_call":
            a = item.hero.attributes
            name = a["kernel"]
            launch = Launch(tuple(a["grid"]), tuple(a["block"]), a.get("shared_bytes", 0))
            out.append(KernelOutline(name, item.kind, item.id, _params(item), (), launch))
            continue
        scalars, launch = _DOMAINS[item.kind](item, target)
        out.append(KernelOutline(name, item.kind, item.id, _params(item),
                                 tuple(ScalarParam(n, "u64", v) for n, v in scalars), launch))
    return tuple(out)


def _params(item):
    params = [BufferParam(f"in{i}", v, v.type.dtype, v.type.shape, "in")
              for i, v in enumerate(item.inputs)]
    params += [BufferParam(f"out{i}", v, v.type.dtype, v.type.shape, "out")
               for i, v in enumerate(item.outputs)]
    return tuple(params)


def _loop_domain(item, target):
    out = item.outputs[0].type if item.outputs else item.hero.result_types[0]
    n = math.prod(out.shape)
    vec = buffer_layout(out.shape, out.dtype).vector_width()
    return [("n", n)], Launch(capped_grid(blocks(n, THREADS * vec)), (THREADS, 1, 1))


def _reduction_domain(item, target):
    hero = item.hero
    full = hero.operand_types[0].shape
    dims = tuple(sorted(hero.attributes["dimensions"]))
    dtype = hero.operand_types[0].dtype
    row = math.prod(full[d] for d in dims)
    rows = math.prod(full) // max(row, 1) if row else 0
    scalars = [("rows", rows), ("row_length", row)]
    if not trailing((full, dims)):              # a column reduction
        return scalars, Launch(capped_grid(blocks(rows, 32)), (32, 8, 1), 32 * 8 * 4 * 2)
    s = target.row_schedule(row, dtype)
    if item.kind == "reduction" and rows < 2 * target.facts.sms and row > SPLIT_ROW:
        splits = min(1024, blocks(row, SPLIT_ROW))
        return scalars + [("splits", splits)], Launch(capped_grid(splits, max(rows, 1)),
                                                       (1024, 1, 1), 32 * 8)
    staged = 0
    if item.kind == "row_pipeline" and s.threads_per_row * s.elements_per_thread < row:
        staged = row * numpy_dtype(dtype).itemsize
        per_block = max(1, THREADS // s.threads_per_row) if s.threads_per_row <= 32 else 1
        if staged * per_block > target.facts.max_shared_per_block:
            staged = 0                          # too long: each pass reads the row again
    if s.threads_per_row <= 32:
        per_block = THREADS // s.threads_per_row
        return scalars, Launch(capped_grid(blocks(rows, per_block)), (THREADS, 1, 1),
                               staged * per_block)
    warps = -(-s.threads_per_row // 32)
    return scalars, Launch(capped_grid(max(rows, 1)), (s.threads_per_row, 1, 1),
                           warps * 8 + staged)


def _scan_domain(item, target):
    hero = item.hero
    shape = hero.operand_types[0].shape
    length = shape[hero.attributes["dimension"]] if shape else 1
    rows = math.prod(shape) // max(length, 1)
    s = target.scan_schedule(length, hero.operand_types[0].dtype)
    per_row = blocks(length, s.threads * s.elements_per_thread)
    return [("rows", rows), ("length", length)], Launch(
        capped_grid(per_row, max(rows, 1)), (s.threads, 1, 1), (s.threads // 32) * 8)


def _dot_domain(item, target):
    hero = item.hero
    a = hero.attributes
    lhs, rhs = hero.operand_types
    batch = math.prod(lhs.shape[d] for d in a["lhs_batching_dimensions"])
    k = math.prod(lhs.shape[d] for d in a["lhs_contracting_dimensions"])
    m = math.prod(n for d, n in enumerate(lhs.shape) if d not in a["lhs_batching_dimensions"]
                  and d not in a["lhs_contracting_dimensions"])
    n = math.prod(s for d, s in enumerate(rhs.shape) if d not in a["rhs_batching_dimensions"]
                  and d not in a["rhs_contracting_dimensions"])
    itemsize = numpy_dtype(lhs.dtype).itemsize
    shared = 2 * 2 * DOT_TILE * 32 * itemsize
    return [("m", m), ("n", n), ("k", k), ("batch", batch)], Launch(
        capped_grid(blocks(n, DOT_TILE), blocks(m, DOT_TILE), batch), (256, 1, 1), shared)


def _attention_domain(item, target):
    if item.roles:      # the decomposed pattern: the scores' shape says seq_q and seq_k
        q = item.roles["scores"].operand_types[0]
        *batch, sq, sk = item.roles["scores"].result_types[0].shape
        dv = item.roles["values"].result_types[0].shape[-1]
    else:
        q, k, v = item.hero.operand_types[:3]
        *batch, sq, _ = q.shape
        sk, dv = k.shape[-2], v.shape[-1]
    d = q.shape[-1]
    heads = math.prod(batch)
    itemsize = numpy_dtype(q.dtype).itemsize
    shared = 2 * 64 * (d + dv) * itemsize
    return [("batch_heads", heads), ("seq_q", sq), ("seq_k", sk), ("head_dim", d)], Launch(
        capped_grid(blocks(sq, 64), heads), (128, 1, 1), shared)


_DOMAINS = {
    "elementwise": _loop_domain, "shape": _loop_domain, "reduction": _reduction_domain,
    "row_pipeline": _reduction_domain, "scan": _scan_domain, "dot_general": _dot_domain,
    "flash_attention": _attention_domain,
}


OUTLINE_PLAN = AnalysisDescriptor("KernelOutlinePlan", WorkContract(
    ("KernelOutlinePlan", 1), estimate=lambda p: 512 + 600 * len(p.kernels())))


def outline_plan(pass_context, func):
    """The KernelOutlinePlan of `func` through the analysis cache (reads the schedule plan and
    the target profile of the enclosing module)."""
    def compute(op, scope):
        module = op.parent_op
        target = target_profile(scope, module) if module is not None else TargetProfile()
        return compute_outline_plan(op, schedule_plan(scope, op), target)
    return pass_context.get_analysis(func, OUTLINE_PLAN, compute)


PASS = analysis_pass("outline", outline_plan, "KernelOutlinePlan (one outline per kernel: "
                     "name, signature, launch domain)")
