"""All preparation analyses of a module at once, outside a pass pipeline: for tools
(`accy opt --print-plans`), benchmarks and tests. Passes get the same analyses through the
analysis cache (`shape_layout`, `schedule_plan`, `outline_plan`, `buffer_plan`).

    for p in prepare(module):
        p.schedule.items, p.outlines.kernels(), p.buffers.arena_bytes
"""
from dataclasses import dataclass

from accy.passes.bufferize import compute_buffer_plan
from accy.passes.outline import compute_outline_plan
from accy.passes.schedule import compute_schedule_plan
from accy.passes.shape_layout import compute_shape_layout
from accy.passes.target import read_target_profile


@dataclass(eq=False)
class Plans:
    func: object
    target: object
    layout: object
    schedule: object
    outlines: object
    buffers: object

    def text(self, layout=True):
        """The plans as text (`layout=False` leaves the shape/layout dump out)."""
        sym = self.func.attributes.get("sym_name") or "func"
        return "\n".join(([self.layout.text().rstrip("\n")] if layout else []) + [
            f"SchedulePlanAnalysis @{sym}: " + self.schedule.text().rstrip("\n"),
            self.outlines.text().rstrip("\n"),
            f"BufferPlanAnalysis @{sym}: " + self.buffers.text().rstrip("\n"),
        ]) + "\n"


def prepare_function(func, target):
    layout = compute_shape_layout(func)
    schedule = compute_schedule_plan(func, layout)
    return Plans(func, target, layout, schedule,
                 compute_outline_plan(func, schedule, layout, target),
                 compute_buffer_plan(func, schedule, layout))


def prepare(module):
    """The Plans of every function of `module`, in order."""
    target = read_target_profile(module)
    return [prepare_function(op, target) for op in module.body if op.name == "builtin.func"]


def plans_text(module):
    """The target profile, then each function's plans."""
    texts = [read_target_profile(module).text().rstrip("\n")]
    texts += [p.text().rstrip("\n") for p in prepare(module)]
    return "\n".join(texts) + "\n"
