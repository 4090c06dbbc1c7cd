"""Device functions: `.func` definitions linked into each kernel that calls them, and the
`call` / `ret` instructions.

Linking (`link(module)`, at load time) appends the code of every function a kernel can reach
to the kernel's instruction list, its registers and labels renamed apart per function
(`%r1` of `f` is `%r1@f`). A function's `.param` variables (parameters, return values, and the
arguments and results of the calls it makes) and its `.local` variables (nvcc's
`__local_depot` stack) make up its frame, one per activation, in the thread's local memory
above the kernel's own local variables; the code addresses them from the frame base register
`%__frame` (`ld.param [x+4]` becomes `ld.local [%__frame+off+4]`, `mov.u64 %SPL,
__local_depot0` becomes an add to the frame base). The kernel's own call-site `.param`
variables become plain `.local` ones.

Running: `call` copies the arguments into a new frame on top of the caller's (its bytes
unwritten until then, so a read of what an earlier activation left faults), remembers the
call site, and jumps to the function; `ret` copies the return values back into the call
site's variables and returns (in the kernel itself it exits). A recursive function's
registers that it writes are saved on each call (for the threads making it) and restored on
return, so each activation has its own. The call stacks are a tree of activations (CallStack:
one node per call path, shared by every thread on it); while threads diverge, those inside a
call run before those after it in the caller (the order of their call stacks, then PCs),
which keeps barriers and warp-synchronous instructions after a divergent call meeting every
thread. Threads of different call stacks meet at the same barrier, .sync warp instruction
or mma (a function reached from two call sites): a group there waits while threads it
waits for are elsewhere and can still run, then runs together with all of them (a
register membermask counts as the full warp).

Function pointers: a function's name as a value (`mov.u64 %rd1, f`) is its address, 16 bytes
apart from CODE_WINDOW on (no memory there). An indirect call (`call (r), %rd1, (a),
prototype`) can reach every function whose address the kernel takes with the same parameter
and result sizes; it runs as a check (a target outside that set is a fault naming the
thread) followed, per candidate, by a compare and a guarded direct call.

Not modelled: `.extern .func` without a body (separate compilation: a PtxError), `.reg`
parameters (an error only where such a function is called), function addresses in variable
initializers (a PtxError). The stack's limits are the emulator's own: MAX_DEPTH calls deep,
MAX_STACK bytes a thread, and MAX_LAUNCH_STACK bytes for the recursive calls of the whole
launch (every thread's local memory from the outermost recursive call's frame up to the
deepest frame, plus the saved registers; frames outside any recursion, whose depth the code
fixes, are not counted), so a runaway recursion on 1024 threads with 256-byte frames faults
about 1000 levels deep, before it takes gigabytes; a GPU's (1 KiB a thread by default,
cudaLimitStackSize) depends on ptxas's frame sizes, which PTX does not show.
"""
import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from accy.runtime.emulator.instructions import op, _check_mods
from accy.runtime.emulator.machine import KernelFault
from accy.runtime.emulator.memory import LaneFault
from accy.runtime.emulator.ptx import Address, Imm, Instruction, Kernel, NotPred, PredPair, \
    PtxError, Reg, Selected, Symbol, Variable, Vector, declared_name

FRAME = "%__frame"              # the register holding the running function's frame base
CALL_PREDICATE = "%__call"      # which threads an indirect call sends to one target
STACK = "__accy_stack"          # the kernel's local variable the frames stack up from
MAX_DEPTH = 4096                # calls deep (a runaway recursion faults rather than hangs)
MAX_STACK = 1 << 20             # bytes of call frames a thread
MAX_LAUNCH_STACK = 1 << 28      # bytes of call frames (all threads) and saved registers
CODE_WINDOW = 0x30000000000     # a function's address (no memory there): 16 bytes apart


@dataclass
class Callee:
    """A function as linked into one kernel."""
    name: str
    entry: int                  # index of its first instruction (set as it is laid out)
    frame_size: int
    offsets: dict               # frame variable -> offset in the frame
    params: list                # (name, size) in order
    returns: list               # likewise
    saved: tuple = ()           # registers saved across a call (recursive functions)
    recursive: bool = False     # it can call itself, directly or through others


@dataclass
class CallSite:
    callee: Callee
    caller: Callee              # None: the kernel itself
    arguments: tuple            # per parameter: the caller's variable holding it
    results: tuple              # per return value: the caller's variable receiving it


@dataclass
class Linkage:
    sites: dict                 # instruction index of a direct call -> CallSite
    functions: dict             # instruction index of a function's ret -> its Callee
    dispatch: dict              # instruction index of an indirect call -> {address: name}


def link(module):
    """The module with each kernel that calls device functions replaced by its linked form
    (see the module docstring); PtxError naming the kernel for calls that cannot be
    resolved."""
    for name, kernel in list(module.kernels.items()):
        try:
            if any(ins.opcode == "call" for ins in kernel.instructions):
                module.kernels[name] = _Linker(module, kernel).kernel()
            else:
                _no_call_site_variables(kernel)
        except PtxError as e:
            raise PtxError(f"kernel {name}, {e}") from None
    return module


def _no_call_site_variables(kernel):
    """A .param variable in a body holds a call's argument or result: in a kernel that makes
    no call it is an error (ptxas does not accept it either)."""
    for v in kernel.variables:
        if v.space == "param":
            raise PtxError(f"line {kernel.line}: the .param variable {declared_name(v.name)} "
                           f"is declared but the kernel makes no call (a call's arguments and "
                           f"results only; use .reg or .local for other values)")


class _Linker:
    def __init__(self, module, kernel):
        self.module, self.root = module, kernel
        self.addresses = {name: CODE_WINDOW + 16 * k for k, name in enumerate(module.functions)}
        self.order, self.taken = self.reachable()
        # per unit: (index, call, functions it may call) of its calls, found once (a call to
        # an undefined function is an error here)
        self.targets = {unit.name: list(self.calls(unit))
                        for unit in [kernel] + [module.functions[f] for f in self.order]}
        self.recursive = self.recursive_functions()

    def calls(self, unit):
        """(index, call instruction, functions it may call) of each call in `unit`: the one
        named, or for an indirect call every function whose address the kernel takes with
        the call's parameter and result sizes."""
        sizes = {v.name: v.size for v in unit.variables if v.space == "param"}
        for i, ins in enumerate(unit.instructions):
            if ins.opcode != "call":
                continue
            _check_call(ins)
            results, target, arguments = ins.operands[:3]
            if isinstance(target, Reg):
                shape = ([sizes.get(x.name) for x in arguments.items],
                         [sizes.get(x.name) for x in results.items])
                yield i, ins, [f for f in self.taken
                               if ([p[2] for p in f.params], [p[2] for p in f.returns]) == shape]
                continue
            if target.name not in self.module.functions:
                if target.name in self.module.unsupported:
                    how = self.module.unsupported[target.name][1]
                elif target.name in self.module.declarations:
                    how = ("is declared without a body (a separately compiled function: link "
                           "the modules first)")
                else:
                    how = "is not defined in this module"
                raise PtxError(f"line {ins.line}: the called function {target.name} {how}: "
                               f"`{ins.text}`")
            yield i, ins, [self.module.functions[target.name]]

    def referenced(self, unit):
        """The functions `unit` calls by name or takes the address of."""
        for ins in unit.instructions:
            for x in ins.operands:
                if isinstance(x, Symbol) and x.name in self.module.functions:
                    yield self.module.functions[x.name], ins.opcode != "call"

    def reachable(self):
        """(names of the functions the kernel may run, in order; those whose address it
        takes)."""
        order, taken, todo = [], [], [self.root]
        while todo:
            for f, address in self.referenced(todo.pop()):
                if address and f not in taken:
                    taken.append(f)
                if f.name not in order:
                    order.append(f.name)
                    todo.append(f)
        return order, taken

    def recursive_functions(self):
        """The functions that can call themselves, directly or through others."""
        callees = {name: {f.name for _, _, fs in calls for f in fs}
                   for name, calls in self.targets.items()}
        recursive = set()
        for name in self.order:
            seen, todo = set(), list(callees[name])
            while todo:
                f = todo.pop()
                if f not in seen:
                    seen.add(f)
                    todo.extend(callees[f])
            if name in seen:
                recursive.add(name)
        return recursive

    def kernel(self):
        root = self.root
        temps = {v.name for v in root.variables if v.space == "param"}
        registers = dict(root.registers, **{FRAME: "u64", CALL_PREDICATE: "pred"})
        variables = [dataclasses.replace(v, space="local") if v.space == "param" else v
                     for v in root.variables] + [Variable(STACK, "local", "b8", 0, 16)]
        callees, units = {}, [(root, None, {}, "", temps, None)]
        for name in self.order:
            f = self.module.functions[name]
            offsets, size = _frame(f)
            renamed = {r: f"{r}@{name}" for r in f.registers}
            registers.update({renamed[r]: t for r, t in f.registers.items()})
            callees[name] = Callee(name, None, size, offsets, [(p[0], p[2]) for p in f.params],
                                   [(p[0], p[2]) for p in f.returns],
                                   tuple(renamed[r] for r in _written(f))
                                   if name in self.recursive else (),
                                   name in self.recursive)
            variables += [v for v in f.variables if v.space == "shared"]
            units.append((f, callees[name], renamed, f"{name}::", offsets, FRAME))
        instructions, labels, sites, dispatch, functions = [], {}, {}, {}, {}
        for unit, callee, renamed, prefix, frame, base in units:
            start = len(instructions)
            if callee is not None:
                callee.entry = start
            branch = {lab: prefix + lab for lab in unit.labels}
            position, targets = [], {i: fs for i, _, fs in self.targets[unit.name]}
            for i, ins in enumerate(unit.instructions):
                position.append(len(instructions))
                ins = _rewrite(ins, lambda r: renamed.get(r, r), branch, frame, base,
                               self.addresses)
                if i not in targets:
                    instructions.append(ins)
                    continue
                for call in _expand(ins, targets[i], self.addresses):
                    if call.opcode == "call" and isinstance(call.operands[1], Symbol):
                        sites[len(instructions)] = _site(call, callees[call.operands[1].name],
                                                         callee, unit)
                    elif call.opcode == "call":
                        dispatch[len(instructions)] = {self.addresses[f.name]: f.name
                                                       for f in targets[i]}
                    instructions.append(call)
            position.append(len(instructions))
            instructions += _closing(unit)
            labels.update({prefix + lab: position[i] for lab, i in unit.labels.items()})
            if callee is not None:
                functions.update({i: callee for i in range(start, len(instructions))
                                  if instructions[i].opcode == "ret"})
        return Kernel(root.name, root.params, registers, variables, instructions, labels,
                      root.line, None, Linkage(sites, functions, dispatch))


def _written(f):
    """The registers of function `f` that its instructions may write: those in each
    instruction's first operand (the destination, where it has one; a source there, as in
    `bar.sync %r`, is only saved needlessly)."""
    def names(x):
        if isinstance(x, Reg):
            yield x.name
        elif isinstance(x, Vector):
            for y in x.items:
                yield from names(y)
        elif isinstance(x, (PredPair, Selected)):
            yield from names(x.value if isinstance(x, PredPair) else x.reg)
            if isinstance(x, PredPair):
                yield from names(x.pred)
    found = {r for ins in f.instructions if ins.operands and ins.opcode != "call"
             for r in names(ins.operands[0])}
    return [r for r in f.registers if r in found]


def _expand(ins, targets, addresses):
    """A direct call as it is; an indirect one as its check (the call itself: every thread's
    target must be one of `targets`) and, per target, a compare and a guarded direct call."""
    results, target, arguments = ins.operands[:3]
    if isinstance(target, Symbol):
        return [ins]
    out = [ins]
    for f in targets:
        guard = () if ins.guard is None else \
            (NotPred(ins.guard) if ins.negate else ins.guard,)
        out.append(Instruction(ins.line, ins.text, "setp", ("eq",) + ("and",) * len(guard) +
                               ("u64",), (Reg(CALL_PREDICATE), target,
                                          Imm(addresses[f.name])) + guard))
        out.append(Instruction(ins.line, ins.text, "call", ins.mods,
                               (results, Symbol(f.name), arguments), Reg(CALL_PREDICATE)))
    return out


def _check_call(ins):
    _check_mods(ins, {"uni"})
    if len(ins.operands) not in (3, 4):
        raise PtxError(f"line {ins.line}: bad call `{ins.text}`")


def _closing(unit):
    """A `ret` after code that could run off its end (PTX returns there)."""
    last = unit.instructions[-1] if unit.instructions else None
    if last is not None and last.guard is None and last.opcode in ("ret", "exit", "bra") \
            and len(unit.instructions) not in unit.labels.values():
        return []
    line = last.line if last is not None else unit.line
    return [Instruction(line, f"ret (end of {unit.name})", "ret", (), ())]


def _frame(f):
    """(variable -> offset, size) of a function's frame: parameters, return values, .local
    and call-site .param variables, each at its alignment."""
    items = [(p[0], p[2], p[3]) for p in f.params + f.returns] + \
        [(v.name, v.size, v.align) for v in f.variables if v.space in ("local", "param")]
    offsets, top = {}, 0
    for name, size, align in items:
        top = -(-top // max(align, 1)) * max(align, 1)
        offsets[name] = top
        top += size
    for v in f.variables:
        if v.space not in ("local", "param", "shared"):
            raise PtxError(f"line {f.line}: .{v.space} variable {v.name} inside function "
                           f"{f.name} is not supported")
    return offsets, -(-top // 16) * 16


def _site(ins, callee, caller, unit):
    results, _, arguments = ins.operands[:3]
    if len(arguments.items) != len(callee.params) or \
            len(results.items) != len(callee.returns):
        raise PtxError(f"line {ins.line}: {callee.name} takes {len(callee.params)} arguments "
                       f"and returns {len(callee.returns)} values: `{ins.text}`")
    sizes = {v.name: v.size for v in unit.variables if v.space == "param"}
    for item, (_, size) in zip(arguments.items + results.items,
                               callee.params + callee.returns):
        if sizes.get(item.name) != size:
            raise PtxError(f"line {ins.line}: {declared_name(item.name)} is not a .param "
                           f"variable of {size} bytes, as {callee.name} needs: `{ins.text}`")
    return CallSite(callee, caller, tuple(x.name for x in arguments.items),
                    tuple(x.name for x in results.items))


def _rewrite(ins, rename, labels, frame, base, addresses):
    """`ins` of a unit with registers renamed, branch labels renamed, functions' names as
    values replaced by their `addresses`, and its frame variables (`frame`: name -> offset,
    addressed from register `base`; or a set of names that become .local variables of the
    kernel, when `base` is None) read from local memory."""
    def operand(x):
        if isinstance(x, Reg):
            return Reg(rename(x.name)) if x.name != "_" else x
        if isinstance(x, Vector):
            return Vector(tuple(operand(y) for y in x.items))
        if isinstance(x, NotPred):
            return NotPred(operand(x.pred))
        if isinstance(x, PredPair):
            return PredPair(operand(x.value), operand(x.pred))
        if isinstance(x, Selected):
            return Selected(operand(x.reg), x.selector)
        if isinstance(x, Address):
            if isinstance(x.base, Symbol) and x.base.name in frame and base is not None:
                return Address(Reg(base), frame[x.base.name] + x.offset)
            return Address(operand(x.base), x.offset) if isinstance(x.base, Reg) else x
        if isinstance(x, Symbol) and x.name in labels:
            return Symbol(labels[x.name])
        if isinstance(x, Symbol) and x.name in addresses:
            return Imm(addresses[x.name])
        return x
    if ins.opcode == "call":
        results, target, arguments = ins.operands[:3]
        target = operand(target) if isinstance(target, Reg) else target
        return dataclasses.replace(ins, operands=(results, target, arguments),
                                   guard=operand(ins.guard) if ins.guard else None)
    mods, operands = ins.mods, tuple(operand(x) for x in ins.operands)
    on_frame = [x for x in ins.operands if isinstance(x, Address) and
                isinstance(x.base, Symbol) and x.base.name in frame]
    if "param" in mods and ins.opcode in ("ld", "st"):
        if on_frame:
            mods = tuple("local" if m == "param" else m for m in mods)
        elif base is not None:
            raise PtxError(f"line {ins.line}: .param access to something other than this "
                           f"function's parameters and call arguments: `{ins.text}`")
    values = [i for i, x in enumerate(ins.operands) if isinstance(x, Symbol) and
              x.name in frame]
    opcode = ins.opcode
    if values and base is not None:     # a frame variable's address: frame base + offset
        if opcode != "mov" or values != [1]:
            raise PtxError(f"line {ins.line}: the address of a function's local or parameter "
                           f"variable is only supported in mov: `{ins.text}`")
        width = mods[-1][1:]
        opcode, mods = "add", (f"u{width}",)
        operands = (operands[0], Reg(base), Imm(frame[ins.operands[1].name]))
    return dataclasses.replace(ins, opcode=opcode, mods=mods, operands=operands,
                               guard=operand(ins.guard) if ins.guard else None)


# ---- running -------------------------------------------------------------------------------

class CallStack:
    """The threads' call stacks as a tree of activations: node 0 is the kernel itself, and a
    call from node p at call site s enters the child (p, s), one node however many threads
    (or times) make that call. Per node: its parent, call site, depth and frame base (a
    frame's place follows from the path: each caller's frame size on top of the last); per
    thread: the node it runs in, and per (node, thread) the registers a recursive callee
    saved on entry. Bytes of the frames of recursive calls (every thread's local memory from
    the outermost recursive activation's frame up to the deepest frame) plus saved registers
    are held to MAX_LAUNCH_STACK: a runaway recursion faults at a size, before it exhausts
    memory or time. Frames of calls outside any recursion are not (their depth is fixed by
    the code)."""

    def __init__(self, machine):
        self.m = machine
        self.node = np.zeros(machine.T, np.int64)
        self.parent, self.site, self.depth, self.frame = [0], [0], [0], [0]
        self.recursion = [None]     # the frame base of the node's outermost recursive call
        self.frame_bytes = 0        # bytes of recursive calls' frames, all threads
        self.children = {}
        self.saved = {}             # node -> [(threads, {register: values})] of calls into it
        self.saved_bytes = 0
        self.meeting = {pc: how for pc, ins in enumerate(machine.kernel.instructions)
                        if (how := _meeting(ins)) is not None}

    def node_of(self, threads):
        """The node `threads` run in (threads run together only with equal call stacks)."""
        nodes = self.node[threads]
        if not _alike(nodes):
            raise KernelFault("internal: threads of different call stacks run together")
        return int(nodes[0]) if len(nodes) else 0

    def enter(self, parent, site_pc, frame, recursive):
        """The node of a call from `parent` at `site_pc` to a function (`recursive`: one
        that can call itself), its frame at `frame`."""
        child = self.children.get((parent, site_pc))
        if child is None:
            if self.depth[parent] >= MAX_DEPTH:
                raise KernelFault(f"calls nested {MAX_DEPTH} deep: endless recursion?")
            child = self.children[parent, site_pc] = len(self.parent)
            self.parent.append(parent)
            self.site.append(site_pc)
            self.depth.append(self.depth[parent] + 1)
            self.frame.append(frame)
            outer = self.recursion[parent]
            self.recursion.append(frame if outer is None and recursive else outer)
        return child

    def push(self, threads, node, registers):
        """`threads` enter `node`, saving `registers` (their values in those threads)."""
        if registers:
            values = {name: self.m.regs[name][threads] for name in registers}
            self.saved_bytes += sum(v.nbytes for v in values.values())
            self.check(self.frame_bytes)
            self.saved.setdefault(node, []).append((threads, values))
        self.node[threads] = node

    def pop(self, threads, node, registers):
        """`threads` return from `node` to its parent, their saved registers restored."""
        if registers:
            kept = []
            for owners, values in self.saved.pop(node):
                mine = np.isin(owners, threads)
                for name, value in values.items():
                    self.m.regs[name][owners[mine]] = value[mine]
                if mine.all():
                    self.saved_bytes -= sum(v.nbytes for v in values.values())
                else:
                    rest = {name: value[~mine] for name, value in values.items()}
                    self.saved_bytes -= sum(v[mine].nbytes for v in values.values())
                    kept.append((owners[~mine], rest))
            if kept:
                self.saved[node] = kept
        parent = self.parent[node]
        self.m.regs[FRAME][threads] = self.frame[parent]
        self.node[threads] = parent

    def check(self, frame_bytes):
        """Fault when recursive calls' frames of `frame_bytes` in all plus the saved
        registers pass MAX_LAUNCH_STACK."""
        self.frame_bytes = frame_bytes
        total = frame_bytes + self.saved_bytes
        if total > MAX_LAUNCH_STACK:
            raise KernelFault(f"the launch's recursive calls need {total} bytes ({frame_bytes} "
                              f"of local memory for {self.m.T} threads' frames, "
                              f"{self.saved_bytes} of saved registers), more than the "
                              f"emulator's {MAX_LAUNCH_STACK}: endless recursion?")

    def next_group(self, waiting):
        """(pc, threads) to run next while threads diverge: the live threads whose call stack
        (call sites, outermost first, then the PC) comes first, all with that same stack.
        Threads of several call stacks meet at an instruction that waits for its warp or
        block (a barrier, a .sync warp operation, mma): see _meet."""
        n = len(self.m.kernel.instructions)
        threads = np.flatnonzero(waiting <= n)
        if not len(threads):
            return n + 1, threads
        nodes, pcs = self.node[threads], waiting[threads]
        if _alike(nodes):
            pc = int(pcs.min())
            return pc, threads[pcs == pc]
        node, pc = self._first(nodes, pcs)
        if pc in self.meeting:
            return self._meet(threads, nodes, pcs)
        return pc, threads[(nodes == node) & (pcs == pc)]

    def _first(self, nodes, pcs):
        """The (node, pc) group that runs first: of each node's lowest PC, the one whose call
        stack comes first."""
        order = np.argsort(nodes, kind="stable")
        nodes = nodes[order]
        starts = np.flatnonzero(np.r_[True, nodes[1:] != nodes[:-1]])
        lowest = np.minimum.reduceat(pcs[order], starts)
        best, best_pc = int(nodes[0]), int(lowest[0])
        for node, pc in zip(nodes[starts[1:]].tolist(), lowest[1:].tolist()):
            if self._before(node, pc, best, best_pc):
                best, best_pc = node, pc
        return best, best_pc

    def _meet(self, threads, nodes, pcs):
        """(pc, threads) to run when the first group is at a meeting instruction: a group
        there runs with every thread at that instruction, whatever its stack (as on sm_70 and
        later, where the lanes need only execute the same instruction), unless one of them
        waits for a thread elsewhere. Then the earliest group that holds a thread it waits
        for (or one such a group waits for in turn) and can run, runs; when none can, the
        first runs with the threads at its instruction and faults naming a thread it waited
        for."""
        width = len(self.m.kernel.instructions) + 2
        keys = np.unique(nodes * width + pcs)           # the distinct (node, pc) groups
        groups = sorted(zip((keys // width).tolist(), (keys % width).tolist()),
                        key=functools.cmp_to_key(self._order))
        first = groups[0][1]
        needed = self._missing(threads, pcs, first)
        while needed.any():
            for node, pc in groups:
                mine = (nodes == node) & (pcs == pc)
                if not (mine & needed).any():
                    continue
                if pc not in self.meeting:
                    return pc, threads[mine]
                missing = self._missing(threads, pcs, pc)
                if not missing.any():
                    return pc, threads[pcs == pc]
                if (missing & ~needed).any():
                    needed |= missing
                    break                               # look again from the first group
            else:
                break
        return first, threads[pcs == first]

    def _order(self, x, y):
        """Running order of two distinct (node, pc) groups, for sorting."""
        return -1 if self._before(x[0], x[1], y[0], y[1]) else 1

    def _missing(self, live, pcs, pc):
        """Which of the `live` threads (at `pcs`) the threads at meeting instruction `pc`
        wait for there: those of their blocks (a barrier) or of their warps' lanes in the
        mask that are elsewhere."""
        m = self.m
        scope, mask = self.meeting[pc]
        here = pcs == pc
        elsewhere = ~here
        if scope == "block":
            owners = m.block_of[live]
        else:
            owners = m.warp_of[live]
            lane = m.special["laneid"][live[elsewhere]].astype(np.int64)
            elsewhere[elsewhere] = (mask >> lane) & 1 == 1
        owned = np.zeros(int(owners.max()) + 1, bool)
        owned[owners[here]] = True
        return owned[owners] & elsewhere

    def one_stack(self, threads):
        """Whether `threads` are all in one call."""
        return _alike(self.node[threads])

    def _before(self, a, pc_a, b, pc_b):
        """Whether node `a` at `pc_a` runs before node `b` at `pc_b` (two distinct groups):
        compare their (call sites..., pc) sequences at the first place they differ, found by
        walking up to the nodes' common ancestor; a stack that is the other's prefix comes
        first."""
        key_a, key_b = pc_a, pc_b       # each sequence's entry just below the common part
        depth, parent, site = self.depth, self.parent, self.site
        shallower = depth[a] < depth[b]     # a tie: one is the other's caller, at its call
        while depth[a] > depth[b]:
            key_a, a = site[a], parent[a]
        while depth[b] > depth[a]:
            key_b, b = site[b], parent[b]
        while a != b:
            key_a, key_b, a, b = site[a], site[b], parent[a], parent[b]
        return key_a < key_b or key_a == key_b and shallower


def _alike(values):
    """Whether the array `values` holds one value (or none)."""
    return not len(values) or bool((values == values[0]).all())


def _meeting(ins):
    """("block" | "warp", lane mask) of an instruction whose threads wait for each other
    there: a block barrier, or a warp-synchronous one with its membermask (all lanes where
    the mask is a register, or for mma-like instructions of the whole warp); else None."""
    op, mods = ins.opcode, ins.mods
    if op in ("bar", "barrier") and "warp" not in mods:
        return None if "arrive" in mods else ("block", None)
    if op in ("bar", "barrier", "shfl", "vote", "redux", "match") and "sync" in mods:
        mask = ins.operands[-1] if ins.operands else None
        return "warp", int(mask.value) & 0xFFFFFFFF if isinstance(mask, Imm) else 0xFFFFFFFF
    if op in ("mma", "wmma", "ldmatrix", "stmatrix"):
        return "warp", 0xFFFFFFFF
    return None


def _stack(m):
    if m.call_stack is None:
        m.call_stack = CallStack(m)
    return m.call_stack


def _running(m, r):
    """(threads, call stack, their node, its frame base) of the threads running `r`, or None
    when none is."""
    threads = m.threads(r)
    if not len(threads):
        return None
    stack = _stack(m)
    node = stack.node_of(threads)
    return threads, stack, node, stack.frame[node]


def _location(m, site_caller, name, frame_base):
    """Local-memory offset of a caller's .param variable: in the kernel, a fixed variable;
    in a function, at its offset from the caller's frame base."""
    if site_caller is None:
        return m.symbol_address(name)
    return frame_base + site_caller.offsets[name]


@op("call")
def _call(ins, m):
    _check_call(ins)
    pc = m.pc_of[id(ins)]
    if pc in m.kernel.linkage.dispatch:
        return _dispatch_check(ins, m, m.kernel.linkage.dispatch[pc])
    site = m.kernel.linkage.sites[pc]
    callee = site.callee

    def run(r):
        running = _running(m, r)
        if running is None:
            return None
        threads, stack, node, here = running
        if site.caller is None:
            base = m.symbol_address(STACK)
        else:
            base = here + site.caller.frame_size
        top = base + callee.frame_size
        child = stack.enter(node, pc, base, callee.recursive)
        recursion = stack.recursion[child]
        if top > MAX_STACK:
            why = "endless recursion?" if recursion is not None else \
                "no recursion: the functions' local variables are too large"
            raise KernelFault(f"the call stack of {callee.name} needs {top} bytes of local "
                              f"memory a thread (at most {MAX_STACK}): {why}")
        memory = m.local_memory
        if top > memory.nbytes:
            rows = len(memory.data)
            if recursion is not None:
                stack.check(rows * (top - recursion))
            memory.grow(top, most=MAX_LAUNCH_STACK // rows)
        memory.forget(threads, base, callee.frame_size)  # a new frame: nothing written yet
        for name, (param, size) in zip(site.arguments, callee.params):
            memory.copy(threads, _location(m, site.caller, name, here),
                        base + callee.offsets[param], size)
        stack.push(threads, child, callee.saved)
        m.regs[FRAME][threads] = base
        return callee.entry
    return run


def _dispatch_check(ins, m, functions):
    """An indirect call's first step: each thread's target must be a function the call can
    reach (the compares and direct calls after it do the calling)."""
    known = np.array(sorted(functions), np.uint64)
    names = ", ".join(functions.values()) or \
        "none: no function with these parameter sizes has its address taken"

    def run(r):
        target = m.read(ins.operands[1], "u64", r)
        bad = np.flatnonzero(~np.isin(target, known))
        if len(bad):
            raise LaneFault(f"indirect call to {int(target[bad[0]]):#x}, which is none of the "
                            f"functions this call can reach ({names})", bad)
        return None
    return run


@op("ret")
def _ret(ins, m):
    """In the kernel, the thread exits; in a function, it returns to its call site."""
    _check_mods(ins, {"uni"})
    linkage = m.kernel.linkage
    pc = m.pc_of[id(ins)]
    if linkage is None or pc not in linkage.functions:
        return lambda r: "exit"
    callee = linkage.functions[pc]

    def run(r):
        running = _running(m, r)
        if running is None:
            return None
        threads, stack, node, here = running
        site_pc = stack.site[node]
        site = linkage.sites[site_pc]
        caller_frame = stack.frame[stack.parent[node]]
        for name, (value, size) in zip(site.results, callee.returns):
            m.local_memory.copy(threads, here + callee.offsets[value],
                                _location(m, site.caller, name, caller_frame), size)
        stack.pop(threads, node, callee.saved)
        return site_pc + 1
    return run
