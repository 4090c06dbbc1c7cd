"""Launches and what a lowering hands back: `Launch` (grid, block, shared bytes), `KernelPlan` (what
a kind's plan function decides for the outline: scalars, launch domain, the kind's schedule),
`NoKernel` (the schedule of an item no kernel of its kind takes), CUDA's grid limits, the
block size and grid cap of the generated kernels (`THREADS`, `MAX_BLOCKS`), the serial
baseline's launch, `plan_thread_per_element` (the plan of a kind that gives each element a
thread), and `LoweredKernel` (a kl kernel with the launch it runs with), which every lowering
returns (`lowered`).

Every kernel strides over whatever its grid does not cover (a grid-stride loop per dim), so a
grid capped at these limits stays correct.
"""
import math
from dataclasses import dataclass
from typing import NamedTuple

from accy.errors import UnsupportedError

GRID_X_LIMIT = 2 ** 31 - 1
GRID_YZ_LIMIT = 65535
THREADS = 256               # threads per block of the elementwise, shape and row-packed kernels
MAX_BLOCKS = 4096           # the kernels stride over what a grid this size does not cover


@dataclass(frozen=True)
class Launch:
    grid: tuple
    block: tuple
    shared_bytes: int = 0

    def text(self):
        return (f"grid {'x'.join(map(str, self.grid))} block {'x'.join(map(str, self.block))} "
                f"shared {self.shared_bytes}")


class KernelPlan(NamedTuple):
    """What a kind's plan function (`plan_rows`, ...) decides for one work item from the item,
    its layout and the target; the outline stores it and the lowering follows it: the kernel's
    scalar parameters ((name, value) pairs, passed as u64), the launch domain the outline
    shows (the grid the kind's throughput kernel is planned for), and the kind's schedule
    (rows: a `RowPlan`; elementwise, scan, dot and attention: their plan, whose `name`,
    `launch` and `workspace` are the kernel's schedule name, the launch it gets and its
    scratch bytes; or a `NoKernel`)."""
    scalars: tuple
    launch: Launch
    schedule: object = None


class NoKernel(NamedTuple):
    """The schedule of an item no kernel of its kind takes: the lowering raises
    UnsupportedError(reason) (under the exact tier the item runs on the host)."""
    reason: str

    def refuse(self):
        raise UnsupportedError(self.reason)


def blocks(n, per_block):
    """Blocks of `per_block` covering `n` (at least one)."""
    return max(1, -(-n // per_block))


def capped_grid(x, y=1, z=1):
    """The grid (x, y, z) within CUDA's limits."""
    return (min(x, GRID_X_LIMIT), min(y, GRID_YZ_LIMIT), min(z, GRID_YZ_LIMIT))


def baseline_launch(threads):
    """The launch of a serial-schedule kernel wanting `threads` threads: blocks of THREADS,
    at most MAX_BLOCKS (each kernel is a grid-stride loop), no shared memory."""
    return Launch((max(1, min(MAX_BLOCKS, -(-threads // THREADS))), 1, 1), (THREADS, 1, 1), 0)


@dataclass(frozen=True)
class ThreadPerElementPlan:
    """The one schedule of a kind that gives each element of its first operand a thread in a
    grid-stride loop (`name` names it in reports: sort's "rank", scatter's "gather")."""
    name: str
    launch: Launch
    workspace: int = 0


def plan_thread_per_element(name):
    """The plan function of such a kind."""
    def plan(item, layout, target):
        n = math.prod(item.hero.operand_types[0].shape)
        launch = baseline_launch(n)
        return KernelPlan((("n", n),), launch, ThreadPerElementPlan(name, launch))
    return plan


@dataclass(frozen=True)
class LoweredKernel:
    name: str
    kind: str
    work_item: int
    kernel: object          # the kl.kernel op, in the analysis's Context
    outline: object         # its KernelOutline (params, scalars, the planned domain)
    launch: object          # the Launch this kernel runs with
    ptx: str = None         # a kernel_call's own PTX module (the user's text, passed through)
    scope: tuple = None     # None, or (iterate item id, "cond" | "body", ...): a loop's kernel
    schedule: str = "serial"    # the plan's schedule name, for the report
    workspace: int = 0      # bytes of scratch, zeroed before each launch, passed last


def lowered(outline, kernel, schedule):
    """The LoweredKernel of `outline`'s `kernel`, launched as `schedule`, the kind's plan
    (`RowPlan`, `ElementwisePlan`, ...: its `launch`, `name` and `workspace`), says."""
    return LoweredKernel(outline.name, outline.kind, outline.work_item, kernel, outline,
                         schedule.launch, schedule=schedule.name, workspace=schedule.workspace)
