"""Helpers for tests of the preparation plans: run a schedule plan one work item at a time
through the reference interpreter (`run_items`), reading dense constants as the reference
computes them (`constant_array`)."""
import numpy as np

from accy import reference
from accy.passes.work_item_module import work_item_module


def constant_array(op):
    """The value of constant `op`, as the reference interpreter computes it."""
    (value,) = reference.HANDLERS[op.name](reference.Interpreter(), op, [], {})
    return np.ascontiguousarray(value)


def run_items(p, arrays):
    """The function's results computed one work item at a time (values in a dict; the dense
    constants the items read from memory given as they are, like the arguments)."""
    block = p.schedule.block
    env = dict(zip(block.arguments, arrays))
    env.update((op.results[0], constant_array(op)) for op in p.schedule.constants)
    for item in p.schedule.items:
        sub = work_item_module(item)
        sub.verify()
        outs = reference.run(sub, *[env[v] for v in item.inputs])
        assert len(outs) == len(item.outputs)
        env.update(zip(item.outputs, outs))
    return [env[v] for v in block.last_op.operands]
