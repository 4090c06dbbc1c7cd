"""`BufferPlanAnalysis`: the memory of a function's kernels. Every value that crosses a kernel
boundary gets a buffer: the function's arguments are input buffers and its results output
buffers (the caller's, separate from each other), every other crossing value a slice of one
arena, at a 256-byte aligned offset (`BUFFER_ALIGNMENT`), live from the work item that writes
it to the last one that reads it.

    plan = buffer_plan(pass_context, func)
    plan.buffer_of[value].offset, plan.arena_bytes, plan.peak_bytes

- Packing: "greedy by size" (Pisarchyk and Lee, "Efficient Memory Management for Deep Neural
  Net Inference", 2020): the arena buffers, largest first, each take the lowest offset whose
  gap between the buffers already placed that live at the same time is big enough. The arena
  is at least the peak live bytes; on chains and trees it is usually equal.
- In place: an elementwise work item with one output writes it into the buffer of an input
  it is computed from when the input's last reader is this item, both have the same byte size
  and element size, and every op on the way from the input reads it at the index it writes
  (identity index maps), so each thread reads an element before it overwrites it. The two
  values share one buffer (`alias_of`).
- Donation: the function attribute `accy.donate = [i, ...]` donates arguments; a donated
  argument can hold a result written in place as above, instead of a separate output buffer.
  A result that is itself an argument (or returned twice) is copied (`copy_of`).
- Constants: a dense constant that a work item or the terminator reads (`SchedulePlan.
  constants`) is a constant buffer holding its bytes (`data`), outside the arena: the runtime
  uploads it once per device, and kernels read it like an input. A returned constant is copied.
- iterate: the cond and body blocks get buffer plans of their own (their block arguments are
  bound to the loop-carried buffers, their yields to the next ones); their arenas take one
  workspace buffer in the enclosing arena while the loop runs, and so do two buffers per
  loop-carried value (a step reads one and writes the other) and the condition's flag.
"""
from dataclasses import dataclass, field

import numpy as np

from accy.errors import AccyError
from accy.passes.core import AnalysisDescriptor, WorkContract, analysis_pass
from accy.passes.schedule import schedule_plan
from accy.passes.shape_layout import BUFFER_ALIGNMENT, shape_layout, value_numbers
from accy._core.registry import ELEMENTWISE
from accy._core.types import numpy_dtype

DONATE = "accy.donate"
ARENA_KINDS = ("arena", "workspace", "loop_state", "loop_flag")
MAX_BUFFER_BYTES = 2**63 - 1


class BufferPlanError(AccyError):
    """A malformed `accy.donate` attribute, or a buffer past MAX_BUFFER_BYTES."""


@dataclass(eq=False)
class Buffer:
    """`kind`: input (an argument), output (a result), arena (an intermediate), workspace (an
    iterate's nested arena), loop_state (one of the two buffers of a loop-carried value),
    loop_flag (an iterate condition's result) or constant (a dense constant, its bytes in
    `data`). `first`/`last`: the work items (ids) of its live range in the
    arena. `alias_of`: the buffer it shares (in place or donated); `copy_of`: the buffer a
    result is copied from."""
    id: int
    kind: str
    value: object
    nbytes: int
    first: int = -1
    last: int = -1
    offset: int = None
    alias_of: object = None
    copy_of: object = None
    donated: bool = False
    data: bytes = field(default=None, repr=False)

    @property
    def size(self):
        """Bytes it takes in the arena (a multiple of BUFFER_ALIGNMENT)."""
        return -(-self.nbytes // BUFFER_ALIGNMENT) * BUFFER_ALIGNMENT


@dataclass(eq=False)
class BufferPlan:
    block: object
    buffers: list
    buffer_of: dict
    arena_bytes: int
    peak_bytes: int
    nested: dict = field(default_factory=dict)     # iterate item id -> (cond plan, body plan)

    def storage(self, buffer):
        """The buffer that owns `buffer`'s memory (following in-place and donation aliases)."""
        while buffer.alias_of is not None:
            buffer = buffer.alias_of
        return buffer

    def text(self, numbers=None, depth=0):
        numbers = value_numbers(self.block.parent_op) if numbers is None else numbers
        pad = "  " * depth
        lines = [f"{pad}arena {self.arena_bytes} bytes, peak live {self.peak_bytes} bytes"]
        for b in self.buffers:
            name = f"%{numbers[b.value]}" if b.value is not None else "-"
            where = f" offset {b.offset}" if b.offset is not None else ""
            if b.kind in ARENA_KINDS:
                live = f" live {b.first}..{b.last}"
            else:
                live = f" written by item {b.first}" if b.first >= 0 else ""
            tags = "".join([f" in place of buffer {b.alias_of.id}" if b.alias_of else "",
                            f" copy of buffer {b.copy_of.id}" if b.copy_of else "",
                            " donated" if b.donated else ""])
            lines.append(f"{pad}buffer {b.id} {b.kind} {name} {b.nbytes} bytes{where}{live}"
                         f"{tags}")
        for item_id, subs in sorted(self.nested.items()):
            for label, sub in zip(("cond", "body"), subs):
                lines.append(f"{pad}item {item_id} {label}:")
                lines.append(sub.text(numbers, depth + 1).rstrip("\n"))
        return "\n".join(lines) + ("\n" if depth == 0 else "")


def _check_size(what, nbytes):
    if nbytes > MAX_BUFFER_BYTES:
        raise BufferPlanError(f"{what} needs {nbytes} bytes, more than a buffer can hold "
                              f"({MAX_BUFFER_BYTES} = 2^63 - 1: byte offsets and element "
                              f"indices are 64-bit signed integers)")


def _nbytes(value):
    t = value.type
    n = numpy_dtype(t.dtype).itemsize
    for d in t.shape:
        n *= d
    return n


def _constant_bytes(op):
    """The elements of constant `op` as its buffer holds them (row-major, its dtype)."""
    t = op.results[0].type
    array = np.broadcast_to(op.attributes["value"].array, t.shape)
    return np.ascontiguousarray(array, numpy_dtype(t.dtype)).tobytes()


def donated_arguments(func):
    """The argument indices `accy.donate` names (checked)."""
    attr = func.attributes.get(DONATE)
    if attr is None:
        return frozenset()
    n = len(func.regions[0].blocks[0].arguments)
    if not isinstance(attr, tuple) or any(type(i) is not int or not 0 <= i < n for i in attr) \
            or len(set(attr)) != len(attr):
        raise BufferPlanError(f"{DONATE} must list distinct argument indices in [0, {n}), "
                              f"got {attr!r}")
    return frozenset(attr)


def compute_buffer_plan(func, schedule, layout):
    """The BufferPlan of `func` from its schedule plan and ShapeLayoutAnalysis."""
    return plan_buffers(schedule, layout, donated_arguments(func))


def plan_buffers(schedule, layout, donated=frozenset()):
    block = schedule.block
    buffers, buffer_of = [], {}

    def new(kind, value, nbytes, **kw):
        if nbytes > MAX_BUFFER_BYTES:       # (the message is made only then)
            _check_size(f"the {kind} buffer" + (f" of {value.type}" if value is not None
                                                else ""), nbytes)
        b = Buffer(len(buffers), kind, value, nbytes, **kw)
        buffers.append(b)
        if value is not None and value not in buffer_of:
            buffer_of[value] = b
        return b

    for i, a in enumerate(block.arguments):
        if hasattr(a.type, "shape"):
            new("input", a, _nbytes(a), donated=i in donated)
    for op in schedule.constants:
        v = op.results[0]
        new("constant", v, _nbytes(v), data=_constant_bytes(op))
    term = block.last_op if block.last_op is not None and block.last_op.operands else None
    last_read = {}
    for item in schedule.items:
        for v in item.inputs:
            last_read[v] = item.id
    results = list(term.operands) if term is not None else []
    nested = {}
    for item in schedule.items:
        for v in item.outputs:
            if v in results:
                continue
            b = new("arena", v, _nbytes(v), first=item.id, last=last_read.get(v, item.id))
            _in_place(b, item, buffer_of, last_read, layout, results)
        if item.kind == "iterate":
            subs = tuple(plan_buffers(sub, layout) for sub in item.plans)
            nested[item.id] = subs
            space = max(s.arena_bytes for s in subs)
            if space:
                new("workspace", None, space, first=item.id, last=item.id)
            # the loop-carried values in two buffers each (a step reads one, writes the other;
            # the host swaps them) and the condition's flag, live while the loop runs
            for v in item.hero.operands:
                for _ in range(2):
                    new("loop_state", None, _nbytes(v), first=item.id, last=item.id)
            new("loop_flag", None, 1, first=item.id, last=item.id)
    producers = {v: item for item in schedule.items for v in item.outputs}
    for v in results:
        if v in buffer_of and buffer_of[v].kind in ("input", "output", "constant"):
            new("output", v, _nbytes(v), copy_of=buffer_of[v])
            continue
        producer = producers.get(v)
        b = new("output", v, _nbytes(v), first=producer.id if producer else -1)
        if producer is not None:
            _in_place(b, producer, buffer_of, last_read, layout, results)
    arena, peak = _pack([b for b in buffers if b.kind in ARENA_KINDS and b.alias_of is None])
    _check_size("the arena of intermediates", arena)
    return BufferPlan(block, buffers, buffer_of, arena, peak, nested)


def _in_place(out, item, buffer_of, last_read, layout, results):
    """Let `out` share the buffer of an input of elementwise `item` (see the module doc)."""
    if item.kind != "elementwise" or len(item.outputs) != 1:
        return      # (a thread storing one output first could clobber what another reads)
    out_type = out.value.type
    for v in item.inputs:
        src = buffer_of.get(v)
        if src is None or last_read.get(v) != item.id or v in results:
            continue
        owner = src
        while owner.alias_of is not None:
            owner = owner.alias_of
        # an intermediate shares an intermediate's buffer, a result a donated argument's
        wanted = ("input",) if out.kind == "output" else ("arena",)
        if owner.kind not in wanted or (owner.kind == "input" and not owner.donated) or any(
                b.first == out.first for b in _aliases(buffer_of, owner)):
            continue            # another output of this item already writes there
        if src.nbytes != out.nbytes or numpy_dtype(v.type.dtype).itemsize != \
                numpy_dtype(out_type.dtype).itemsize or v.type.shape != out_type.shape:
            continue
        if not _reads_in_place(item, v, out.value, layout):
            continue
        out.alias_of = owner
        if owner.kind == "arena":
            owner.last = max(owner.last, out.last)
        return


def _aliases(buffer_of, owner):
    return [b for b in buffer_of.values() if b.alias_of is owner]


def _reads_in_place(item, value, out, layout):
    """Whether the item computes each output element from `value` at the output's own index:
    every op on a path from `value` is elementwise with `value`'s shape and reads the path at
    its own index (other operands may be read any way), so no thread reads an element another
    thread may have overwritten already."""
    shape = value.type.shape
    reached = {value}
    for op in item.ops:
        hits = [i for i, v in enumerate(op.operands) if v in reached]
        if not hits:
            continue
        if not op.has_trait(ELEMENTWISE) or op.result_types[0].shape != shape:
            return False
        for i in hits:
            m = layout.index_map(op, i)
            if m is None or not m.is_identity:
                return False
        reached.update(op.results)
    return out in reached


def _pack(buffers):
    """(arena bytes, peak live bytes): offsets for `buffers` by greedy by size."""
    if not buffers:
        return 0, 0
    steps = max(b.last for b in buffers) + 1
    live = [0] * steps
    for b in buffers:
        for t in range(b.first, b.last + 1):
            live[t] += b.size
    placed = []                                         # (offset, end, first, last)
    for b in sorted(buffers, key=lambda b: (-b.size, b.first, b.id)):
        overlapping = sorted((o, e) for o, e, f, l in placed
                             if f <= b.last and b.first <= l)
        best, cursor = None, 0
        for o, e in overlapping:
            if o - cursor >= b.size and (best is None or o - cursor < best[1]):
                best = (cursor, o - cursor)
            cursor = max(cursor, e)
        b.offset = best[0] if best is not None else cursor
        placed.append((b.offset, b.offset + b.size, b.first, b.last))
    return max(e for _, e, _, _ in placed), max(live)


def estimated_bytes(plan):
    """What `plan` holds, for the analysis cache's budget: its buffers, the bytes of its
    constant buffers, and the same for the plans of its loops' blocks, at any depth."""
    return 512 + sum(160 + len(b.data or b"") for b in plan.buffers) + sum(
        estimated_bytes(sub) for subs in plan.nested.values() for sub in subs)


BUFFER_PLAN = AnalysisDescriptor("BufferPlanAnalysis", WorkContract(
    ("BufferPlanAnalysis", 2), estimate=estimated_bytes))


def buffer_plan(pass_context, func):
    """The BufferPlan of `func` through the analysis cache (reads the schedule plan and the
    shape/layout analysis)."""
    return pass_context.get_analysis(
        func, BUFFER_PLAN, lambda op, scope: compute_buffer_plan(
            op, schedule_plan(scope, op), shape_layout(scope, op)))


PASS = analysis_pass("bufferize", buffer_plan, "BufferPlanAnalysis (buffers of values "
                     "crossing kernels, liveness, arena offsets, in-place reuse, donation)")
