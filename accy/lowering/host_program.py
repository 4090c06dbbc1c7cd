"""The compiler's last stage: the `HostProgram` (accy/runtime/program.py) of a function, from its
schedule plan, buffer plan and kernelization: every work item of the function's block, in
order, becomes a launch (a kernel, its scratch zeroed first when it takes one), a host loop
(an iterate) or a host step (a host fallback, with the item's ops as a module of its own), and
the results that are copies of other values become copies at the end.

Every buffer of the plan gets a fixed place: the arguments, the results and each dense
constant a slot of their own, every other buffer an offset of the one arena; a loop's cond and
body blocks have buffer plans whose arena is the loop's workspace, a buffer of the enclosing
arena, so their offsets are fixed too, at any depth.

Loops follow this rule: a loop runs as a host loop over device kernels, a loop inside a loop as
a host loop run by its enclosing block (each trip of the outer body runs the inner loop whole).
Each trip:

1. the cond block's kernels run, their arguments bound to the current state buffers, and write
   the condition (one byte, the loop's flag) on the device;
2. the host reads that byte back: the only transfer per trip;
3. if it is true, the body block's kernels run, reading the current state buffers and writing
   the next ones, which then trade places.

Each carried value has two state buffers in the arena, so carried values are never copied: a
yielded value that a kernel of the block makes is written straight into its target (a yield's
first use of that value; `_in_place`). The other yields (a block argument passed on unchanged,
a value from outside the loop, a value yielded twice) are copied after the block. Zero trips
work: the results are then the initial values. Running a whole loop inside one kernel is not
done.
"""
from accy.errors import AccyError
from accy.passes.work_item_module import work_item_module
from accy.runtime.program import (Copy, Host, HostProgram, Launch, Loop, Memset, Operand, Ref,
                                  Slot, StatePair)


def build_host_program(schedule, buffers, kernels):
    """The HostProgram of a function: `schedule` and `buffers` its block's SchedulePlan and
    BufferPlan, `kernels` the LoweredKernels of its kernelization."""
    return _Builder(buffers, kernels).program(schedule)


class _Frame:
    """A block being written: its buffer plan, the arena offset its plan's offsets start at,
    and the values bound to state slots or a loop's flag (block arguments and in-place
    yields)."""

    def __init__(self, plan, base, bound=None):
        self.plan, self.base, self.bound = plan, base, dict(bound or {})


class _Builder:
    def __init__(self, buffers, kernels):
        self.top = buffers
        self.slots = []
        self.kernels = {}           # (scope, work item id) -> LoweredKernel
        for k in kernels:
            self.kernels[(k.scope, k.work_item)] = k
        self.slot_of = {}           # buffer id of the function's plan -> its slot id
        self.arguments = [None] * len(buffers.block.arguments)
        self.constants = {}         # constant value -> slot id
        self.arena = None
        self.scratch = None
        self.frames = [_Frame(buffers, 0)]

    def _slot(self, kind, nbytes=0, **fields):
        slot = Slot(len(self.slots), kind, nbytes, **fields)
        self.slots.append(slot)
        return slot.id

    def program(self, schedule):
        plan = self.top
        if any(b.offset is not None for b in plan.buffers):
            self.arena = self._slot("arena", max(plan.arena_bytes, 1))
        positions = {v: i for i, v in enumerate(plan.block.arguments)}
        results = list(plan.block.last_op.operands)
        outputs = [b for b in plan.buffers if b.kind == "output"]
        result_position = {b.id: i for i, b in enumerate(outputs)}
        for b in plan.buffers:
            if b.alias_of is not None:
                continue
            if b.kind == "input":
                self.slot_of[b.id] = self._slot("argument", b.nbytes, position=positions[b.value])
            elif b.kind == "output":
                self.slot_of[b.id] = self._slot("result", b.nbytes,
                                                position=result_position[b.id])
        for a in plan.block.arguments:
            if a in plan.buffer_of:
                self.arguments[positions[a]] = self.slot_of[plan.storage(plan.buffer_of[a]).id]
        self._constants(plan)
        workspace = max((k.workspace for k in self.kernels.values()), default=0)
        if workspace:
            self.scratch = self._slot("scratch", workspace)
        steps = self.block(schedule, None)
        for b in plan.buffers:          # results that are arguments, or returned twice
            if b.copy_of is not None:
                steps.append(Copy(Ref(self.slot_of[plan.storage(b).id]),
                                  self.resolve(b.copy_of.value), b.nbytes))
        operands = [Operand(Ref(self.slot_of[plan.storage(b).id]), tuple(v.type.shape),
                            v.type.dtype) for v, b in zip(results, outputs)]
        return HostProgram(tuple(self.slots), tuple(steps), tuple(self.arguments),
                           tuple(operands))

    def _constants(self, plan):
        """A slot per dense constant of `plan` and of its loops' blocks (every block reads a
        constant where it lives, whatever its depth)."""
        for b in plan.buffers:
            if b.kind == "constant" and b.value not in self.constants:
                self.constants[b.value] = self._slot("constant", b.nbytes, data=b.data)
        for subs in plan.nested.values():
            for sub in subs:
                self._constants(sub)

    def resolve(self, value):
        """Where `value` lives as the block being written reads it."""
        for frame in reversed(self.frames):
            if value in frame.bound:
                return frame.bound[value]
        if value in self.constants:
            return Ref(self.constants[value])
        for frame in reversed(self.frames[1:]):      # a loop block's own intermediates
            b = frame.plan.buffer_of.get(value)
            if b is not None and b.kind not in ("input", "output"):
                return Ref(self.arena, frame.base + frame.plan.storage(b).offset)
        plan = self.top
        b = plan.buffer_of.get(value)
        if b is None:
            raise AccyError(f"the host program found no buffer for a value of type "
                            f"{value.type} that a step reads")
        storage = plan.storage(b)
        if storage.id in self.slot_of:
            return Ref(self.slot_of[storage.id])
        return Ref(self.arena, storage.offset)

    def _place(self, buffer_id):
        """The Ref of buffer `buffer_id` of the innermost frame's plan (a loop's own buffers)."""
        frame = self.frames[-1]
        b = frame.plan.storage(frame.plan.buffers[buffer_id])
        if len(self.frames) == 1 and b.id in self.slot_of:
            return Ref(self.slot_of[b.id])
        return Ref(self.arena, frame.base + b.offset)

    def block(self, schedule, scope):
        steps = []
        for item in schedule.items:
            kernel = self.kernels.get((scope, item.id))
            if kernel is not None:
                steps += self.launch(kernel)
            elif item.kind == "iterate" and item.id in self.frames[-1].plan.nested:
                steps += self.loop(item, scope)
            else:
                steps.append(self.host(item))
        return steps

    def launch(self, kernel):
        outline, launch = kernel.outline, kernel.launch
        params = [self.resolve(p.value) for p in outline.params]
        params += [int(s.value) for s in outline.scalars]
        steps = []
        if kernel.workspace:
            steps.append(Memset(Ref(self.scratch), kernel.workspace))
            params.append(Ref(self.scratch))
        steps.append(Launch(kernel.name, tuple(launch.grid), tuple(launch.block),
                            launch.shared_bytes, tuple(params)))
        return steps

    def host(self, item):
        def operands(values):
            return tuple(Operand(self.resolve(v), tuple(v.type.shape), v.type.dtype)
                         for v in values)
        return Host(item.id, item.kind, work_item_module(item).print(), operands(item.inputs),
                    operands(item.outputs))

    def loop(self, item, scope):
        frame = self.frames[-1]
        mine = [b for b in frame.plan.buffers if b.first == item.id and b.value is None]
        state_ids = [b.id for b in mine if b.kind == "loop_state"]
        flag = self._place(next(b.id for b in mine if b.kind == "loop_flag"))
        workspace = next((b.id for b in mine if b.kind == "workspace"), None)
        base = self._place(workspace).offset if workspace is not None else 0
        pairs = []
        for i, (a, b) in enumerate(zip(state_ids[0::2], state_ids[1::2])):
            note = f"loop item {item.id}, value {i}"
            pairs.append(StatePair(self._slot("state", note=note + ", current"),
                                   self._slot("state", note=note + ", next"),
                                   self._place(a), self._place(b)))
        steps = [Copy(p.first, self.resolve(v), _nbytes(v))
                 for v, p in zip(item.hero.operands, pairs)]
        inner = (scope or ()) + (item.id,)
        current = [Ref(p.current) for p in pairs]
        following = [Ref(p.next) for p in pairs]
        blocks = []
        for label, sub, plan, yields in zip(("cond", "body"), item.plans,
                                           frame.plan.nested[item.id], ([flag], following)):
            blocks.append(self.loop_block(sub, plan, base, inner + (label,), current, yields))
        steps.append(Loop(item.id, tuple(pairs), flag, *blocks))
        for r, ref in zip(item.hero.results, current):
            if r in frame.plan.buffer_of:
                steps.append(Copy(self.resolve(r), ref, _nbytes(r)))
        return steps

    def loop_block(self, schedule, plan, base, scope, args, yields):
        """The steps of a loop's cond or body block: its arguments read `args`, its yields land
        in `yields`, written there by the block's own kernels or copied after them."""
        block = schedule.block
        values = list(block.last_op.operands)
        in_place = _in_place(schedule)
        bound = dict(zip(block.arguments, args))
        bound.update((values[i], yields[i]) for i in in_place)
        self.frames.append(_Frame(plan, base, bound))
        try:
            steps = self.block(schedule, scope)
            steps += [Copy(yields[i], self.resolve(values[i]), _nbytes(values[i]))
                      for i in range(len(values)) if i not in in_place]
        finally:
            self.frames.pop()
        return tuple(steps)


def _in_place(schedule):
    """The yield positions whose value a work item of the block makes, each value's first
    yield only (a second one is a copy of the first)."""
    produced = {v for item in schedule.items for v in item.outputs}
    seen, out = set(), []
    for i, v in enumerate(schedule.block.last_op.operands):
        if v in produced and v not in seen:
            out.append(i)
        seen.add(v)
    return tuple(out)


def _nbytes(value):
    return Operand(None, tuple(value.type.shape), value.type.dtype).nbytes
