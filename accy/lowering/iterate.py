"""The host schedule of an `iterate` work item (a while loop), computed at compile time so that
the runtime only follows it.

The rule: a loop runs as a host loop over device kernels, a loop inside a loop as a host loop
run by its enclosing block (each trip of the outer body runs the inner loop whole). The
kernelization lowers its cond and body blocks like any block (their kernels have the scope
(item id, "cond" | "body"), a nested loop's the enclosing block's scope followed by its own).
Each trip:

1. the cond block's kernels run, their arguments bound to the current state buffers, and
   write the condition (one byte, the `flag` buffer) on the device;
2. the host reads that byte back: the only transfer per trip;
3. if it is true, the body block's kernels run, reading the current state buffers and writing
   the following ones, which then trade places.

Each carried value has two state buffers in the arena (`states`), so carried values are never
copied: a yielded value that a kernel of the block makes is written straight into its target
buffer (`LoopBlock.in_place`). The rest of the yields (a block argument passed on unchanged,
a value from outside the loop, a value yielded twice) are copied after the block. Zero trips
work: the results are then the initial values. A block's intermediates live in the loop's
workspace (its own buffer plan), and so do the state buffers, flag and workspace of a loop
inside it (`LoopBlock.loops`). Running a whole loop inside one kernel is not done.

    program = plan_loop(item, buffer_plan)
    program.states, program.flag, program.workspace     # buffer ids
    program.cond.in_place, program.body.in_place        # yield positions written in place
    program.body.loops                                  # the body's own loops, by item id
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class LoopBlock:
    label: str              # "cond" or "body": the scope of its kernels is (item id, label)
    schedule: object        # the block's SchedulePlan
    buffers: object         # its BufferPlan (offsets into the loop's workspace)
    in_place: tuple         # positions of the yields the block's own kernels write in place
    loops: dict             # item id -> LoopProgram of each loop inside the block

    @property
    def copied(self):
        """The positions of the yields copied into their targets after the block runs."""
        return tuple(i for i in range(len(self.schedule.block.last_op.operands))
                     if i not in self.in_place)


@dataclass(frozen=True)
class LoopProgram:
    item: int               # the iterate work item's id
    states: tuple           # per carried value, the ids of its two state buffers
    flag: int               # the id of the condition's one-byte buffer
    workspace: object       # the id of the blocks' workspace, or None when they need none
    cond: LoopBlock
    body: LoopBlock


def plan_loop(item, buffer_plan):
    """The LoopProgram of iterate `item` (a work item of `buffer_plan`'s block; its buffer
    ids are that plan's)."""
    mine = [b for b in buffer_plan.buffers if b.first == item.id and b.value is None]
    states = [b.id for b in mine if b.kind == "loop_state"]
    flag = next(b.id for b in mine if b.kind == "loop_flag")
    workspace = next((b.id for b in mine if b.kind == "workspace"), None)
    blocks = [LoopBlock(label, schedule, plan, _in_place(schedule),
                        {sub.id: plan_loop(sub, plan) for sub in schedule.items
                         if sub.kind == "iterate"})
              for label, schedule, plan in zip(("cond", "body"), item.plans,
                                               buffer_plan.nested[item.id])]
    return LoopProgram(item.id, tuple(zip(states[0::2], states[1::2])), flag, workspace,
                       *blocks)


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
