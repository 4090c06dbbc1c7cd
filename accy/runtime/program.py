"""The host program: what the host does to run an executable, as flat data that holds no IR
(the compiler's last stage writes it, `accy/lowering/host_program.py`; the runtime follows it).

    program.slots       # Slot: numbered device memory (arguments, results, constants, the
                        #   arena, the kernels' scratch) and the loops' state slots
    program.steps       # Launch, Memset, Copy, Loop, Host, in order
    program.arguments   # per argument: its slot (None when no step reads it)
    program.results     # per result: an Operand (where to read it, its shape and dtype)
    program.text()      # the same, as deterministic text (`accy compile --emit host`)

Memory. A slot of kind argument, result, constant, arena or scratch is one allocation of
`nbytes`; a constant's bytes are its `data` (uploaded once per device). Everything kernels pass
to each other lives at a fixed byte offset of the one arena, a loop's state buffers, condition
flag and workspace included, at any depth of loops. A place is a `Ref`: (slot, offset).

A slot of kind state has no memory: it names one carried value of a loop, as the current or the
next state. `Loop.states` pairs each value's current and next slot with its two buffers; the
loop binds current to the first and next to the second, and after each trip of the body the two
trade places (the body reads current and writes next). After the loop, current names the final
state until the loop runs again.

Steps:
- `Launch`: a kernel by name, its grid, block and dynamic shared bytes, and its parameters in
  order: a Ref is a pointer (u64), an int a scalar (i64).
- `Memset`: `nbytes` bytes at a Ref set to `value` (a kernel's scratch is zeroed before it).
- `Copy`: device to device (a loop's initial states, yields that no kernel writes in place, a
  result that is an argument or is returned twice); nothing when source and target are one.
- `Loop`: run `cond`; read the one-byte `flag`; stop when it is 0; else run `body`, swap states.
- `Host`: a work item no kernel runs (a host fallback): its own small tensor-level module (IR
  text of one function) run on the host by the reference interpreter, reading `inputs` from
  the device and writing `outputs` back.
"""
import math
from dataclasses import dataclass, field

from accy._core.types import numpy_dtype

SLOT_KINDS = ("argument", "result", "constant", "arena", "scratch", "state")


@dataclass(frozen=True)
class Slot:
    id: int
    kind: str
    nbytes: int = 0
    position: int = None    # an argument's or a result's index
    data: bytes = field(default=None, repr=False)   # a constant's bytes
    note: str = ""          # what it holds, for the text (a state slot's loop and value)

    def text(self):
        where = f" {self.position}" if self.position is not None else ""
        size = f" {self.nbytes} bytes" if self.kind != "state" else ""
        return f"slot {self.id}: {self.kind}{where}{size}" + (f" ({self.note})" if self.note
                                                              else "")


@dataclass(frozen=True)
class Ref:
    slot: int
    offset: int = 0

    def text(self):
        return f"@{self.slot}" + (f"+{self.offset}" if self.offset else "")


@dataclass(frozen=True)
class Operand:
    """A tensor at a Ref: what a host step or the caller reads and writes."""
    ref: Ref
    shape: tuple
    dtype: str

    @property
    def nbytes(self):
        return math.prod(self.shape) * numpy_dtype(self.dtype).itemsize

    def text(self):
        return f"{self.ref.text()}:{self.dtype}[{','.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class Launch:
    kernel: str
    grid: tuple
    block: tuple
    shared_bytes: int
    params: tuple           # Ref (a pointer) or int (an i64 scalar), in the kernel's order

    def text(self):
        params = ", ".join(p.text() if isinstance(p, Ref) else f"i64 {p}" for p in self.params)
        return (f"launch {self.kernel} grid {_dims(self.grid)} block {_dims(self.block)} "
                f"shared {self.shared_bytes} ({params})")


@dataclass(frozen=True)
class Memset:
    target: Ref
    nbytes: int
    value: int = 0

    def text(self):
        return f"memset {self.target.text()} {self.nbytes} bytes to {self.value}"


@dataclass(frozen=True)
class Copy:
    target: Ref
    source: Ref
    nbytes: int

    def text(self):
        return f"copy {self.target.text()} <- {self.source.text()} {self.nbytes} bytes"


@dataclass(frozen=True)
class StatePair:
    current: int            # the state slot the loop's blocks read
    next: int               # the state slot the body writes
    first: Ref              # the value's two buffers: current starts at `first`
    second: Ref


@dataclass(frozen=True)
class Loop:
    item: int               # the iterate work item
    states: tuple           # StatePair per carried value
    flag: Ref
    cond: tuple             # steps
    body: tuple             # steps

    def lines(self, depth):
        pad = "  " * depth
        states = "; ".join(f"@{s.current}/@{s.next} = {s.first.text()}/{s.second.text()}"
                           for s in self.states)
        out = [f"loop item {self.item} flag {self.flag.text()} states [{states}]",
               f"{pad}  cond:"]
        out += _step_lines(self.cond, depth + 2)
        out.append(f"{pad}  body:")
        out += _step_lines(self.body, depth + 2)
        return out


@dataclass(frozen=True)
class Host:
    item: int
    kind: str
    module: str             # IR text: a module with one function, the work item's ops
    inputs: tuple           # Operand per argument of the module's function
    outputs: tuple          # Operand per result

    def text(self):
        return (f"host item {self.item} ({self.kind}) "
                f"({', '.join(o.text() for o in self.inputs)}) -> "
                f"({', '.join(o.text() for o in self.outputs)})")


@dataclass(frozen=True)
class HostProgram:
    slots: tuple
    steps: tuple
    arguments: tuple        # per argument, its slot id or None
    results: tuple          # per result, an Operand

    def constants(self):
        return [s for s in self.slots if s.kind == "constant"]

    def slot(self, kind):
        """The one slot of `kind` ("arena", "scratch"), or None."""
        return next((s for s in self.slots if s.kind == kind), None)

    def launches(self):
        """Every Launch step, loops' included, in program order."""
        return [s for s in walk(self.steps) if isinstance(s, Launch)]

    def text(self):
        lines = [f"host program: {len(self.slots)} slots, {len(self.steps)} steps"]
        lines += [s.text() for s in self.slots]
        lines.append("arguments: " + ", ".join("-" if a is None else f"@{a}"
                                               for a in self.arguments))
        lines += _step_lines(self.steps, 0)
        lines.append("results: " + ", ".join(r.text() for r in self.results))
        return "\n".join(lines) + "\n"


def walk(steps):
    """`steps` and the steps of their loops, depth first, in program order."""
    for step in steps:
        yield step
        if isinstance(step, Loop):
            yield from walk(step.cond)
            yield from walk(step.body)


def _step_lines(steps, depth):
    pad = "  " * depth
    out = []
    for step in steps:
        if isinstance(step, Loop):
            first, *rest = step.lines(depth)
            out.append(pad + first)
            out += rest
        else:
            out.append(pad + step.text())
    return out


def _dims(dims):
    return "(" + ",".join(map(str, dims)) + ")"

