"""`SchedulePlanAnalysis`: the fusion plan. It splits a function's ops into work items, one
kernel each; nothing inside a work item goes through global memory, and the work item's hero
op picks its kind (XLA's rule).

    plan = schedule_plan(pass_context, func)
    for item in plan.items:        # in an order that runs every producer first
        item.kind, item.ops, item.inputs, item.outputs, item.bytes, item.flops

Kinds: elementwise, shape, dot_general, reduction, row_pipeline, iterate, flash_attention,
scan, kernel_call (`KINDS`).

How ops are grouped (docs/plans.md has the full rules):
- Shape ops that only move elements (broadcast_in_dim, reshape, transpose, slice, reverse) and
  splat constants and iota compute nothing: they are never a work item's member of their own;
  every work item that reads through one takes a copy (`ops` lists it) and addresses the source
  through the composed index map. Where their value must exist in memory (returned, or an
  operand of iterate/kernel_call), or a transpose would make a reduction or scan read across
  the innermost dim, they are materialized like any other op. A dense constant (several
  distinct elements) lives in a constant buffer instead: items read it as an input
  (`SchedulePlan.constants` lists them).
- Every other op lands in exactly one work item. Work items grow by merging a producer's item
  into its consumer's (visiting consumers from the last op back) and then sibling items that
  read the same value; a merge is taken when the union is a valid work item (`_judge`) and
  leaves the item graph acyclic. A producer read by other items too stays an output of the
  merged item (multi-output fusion), so a merge never recomputes an op.
- Valid work items: a loop (elementwise ops and materialized shape ops; all outputs of one
  shape; kind `shape` when it moves data across the innermost dim or holds pad/concatenate/
  gather, else `elementwise`); reductions over one input space (`row_pipeline` when they
  reduce trailing dims and a row result flows back into the row, which is also how one
  reduction feeds another; else `reduction`, several of them a multi-output reduction); one dot_general with convert operands and an elementwise epilogue of its
  shape; one scan with elementwise producers and consumers of its shape; and attention,
  iterate, kernel_call alone. The decomposed attention pattern (dot_general -> scale/mask ->
  softmax -> dot_general) becomes one `flash_attention` item.
- Cost model against recomputation: ops are never duplicated (only the element-moving ops and
  constants above, which cost no arithmetic). Inside a work item a value smaller than the
  item's iteration space is recomputed per use, so such members must be cheap: no division,
  power or transcendental (`EXPENSIVE`).

Bytes are estimated as each input read once and each output written once (broadcast reads hit
the cache), plus the tile re-reads of a dot_general (`dot_rereads`).
"""
import heapq
import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from accy._core.registry import ELEMENTWISE, PURE, TERMINATOR
from accy._core.types import numpy_dtype
from accy.errors import AccyError
from accy.passes.core import AnalysisDescriptor, WorkContract, analysis_pass
from accy.passes.shape_layout import identity_map, row_major_strides, shape_layout, \
    value_numbers
from accy.tensor.dialect import FLOAT_UNARY

KINDS = ("elementwise", "shape", "dot_general", "reduction", "row_pipeline", "iterate",
         "flash_attention", "scan", "kernel_call")

# element-moving ops and generators: copied into every work item that reads them
CHEAP = frozenset(("tensor.constant", "tensor.iota", "tensor.broadcast_in_dim",
                   "tensor.reshape", "tensor.transpose", "tensor.slice", "tensor.reverse"))
MATERIALIZING = frozenset(("tensor.pad", "tensor.concatenate", "tensor.gather"))
ALONE = {"tensor.attention": "flash_attention", "tensor.iterate": "iterate",
         "tensor.kernel_call": "kernel_call"}
EXPENSIVE = frozenset(["tensor.divide", "tensor.remainder", "tensor.power"] + [
    "tensor." + n for n in FLOAT_UNARY if n not in ("floor", "ceil", "round_nearest_even")])
DOT_TILE = 128          # the tile edge the byte estimate assumes for dot_general re-reads


class ScheduleError(AccyError):
    """An op the schedule planner cannot place in a work item."""


@dataclass(eq=False)
class WorkItem:
    """One kernel. `ops`: every op it computes, in program order (copied element-moving ops and
    constants included); `inputs`: values it reads from outside (function arguments, values of
    enclosing blocks, or earlier items' outputs); `outputs`: values it writes for later items or
    for the block's terminator. `hero`: the op that picked the kind. `roles`: for a recognized
    flash_attention pattern, role name -> op. `plans`: for iterate, the plans of its cond and
    body blocks."""
    id: int
    kind: str
    hero: object
    ops: tuple
    inputs: tuple
    outputs: tuple
    bytes: int
    flops: int
    roles: dict = field(default_factory=dict)
    plans: tuple = ()


@dataclass(eq=False)
class SchedulePlan:
    """The work items of one block (a function body, or an iterate's cond or body block), in
    execution order. Every op of the block but its terminator is in exactly one of three
    places: `item_of` (op -> item id) holds every op of a work item's `ops` (a copied op maps
    to the first item that copies it); `constants`: the block's dense constants that items
    or the terminator read from memory (`dense_constant`), in program order, in no item (an
    item reads one as an input, like an argument); `unused`: pure ops nothing reads, left out
    of the plan (unread dense constants among them)."""
    block: object
    items: tuple
    item_of: dict
    unused: tuple
    ideal_bytes: int
    constants: tuple = ()

    @property
    def bytes(self):
        return sum(item.bytes for item in self.items)

    def text(self, numbers=None, depth=0):
        numbers = value_numbers(self.block.parent_op) if numbers is None else numbers

        def vals(values):
            return ", ".join(f"%{numbers[v]}: {v.type}" for v in values) or "-"

        pad = "  " * depth
        lines = [f"{pad}{len(self.items)} work items, {self.bytes} bytes moved "
                 f"(ideal {self.ideal_bytes})"]
        for item in self.items:
            hero = item.hero
            lines.append(f"{pad}item {item.id} {item.kind}: hero "
                         f"{_op_ref(hero, numbers)}, {item.bytes} bytes, {item.flops} flops")
            lines.append(f"{pad}  ops: " + " ".join(_op_ref(op, numbers) for op in item.ops))
            lines.append(f"{pad}  inputs: {vals(item.inputs)}")
            lines.append(f"{pad}  outputs: {vals(item.outputs)}")
            if item.roles:
                lines.append(f"{pad}  roles: " + ", ".join(
                    f"{role} {_op_ref(op, numbers)}" for role, op in item.roles.items()))
            for label, sub in zip(("cond", "body"), item.plans):
                lines.append(f"{pad}  {label}: " + sub.text(numbers, depth + 2).lstrip())
        if self.constants:
            lines.append(f"{pad}constants: " + " ".join(_op_ref(op, numbers)
                                                       for op in self.constants))
        if self.unused:
            lines.append(f"{pad}unused: " + " ".join(_op_ref(op, numbers) for op in self.unused))
        return "\n".join(lines) + ("\n" if depth == 0 else "")


def _op_ref(op, numbers):
    if op.results:
        return f"%{numbers[op.results[0]]}={op.name.removeprefix('tensor.')}"
    return op.name.removeprefix("tensor.")


# ---- per-op facts -------------------------------------------------------------------------------

def _size(shape):
    return math.prod(shape)


def _nbytes(value):
    return _type_bytes(value.type)


@lru_cache(maxsize=4096)
def _type_bytes(t):
    return _size(t.shape) * numpy_dtype(t.dtype).itemsize if hasattr(t, "shape") else 0


def _role(op, name):
    """What the planner does with `op` (named `name`): cheap (copied into readers), ew, shape
    (materializing shape op), reduce, dot, scan, alone, or term. Registered ops' roles follow
    from their name (`_ROLES` remembers them)."""
    role = _ROLES.get(name)
    if role is None:
        role = _role_of(op, name)
        if op.is_registered:
            _ROLES[name] = role
    return role


_ROLES = {}


def _role_of(op, name):
    if name in CHEAP:
        return "cheap"
    if op.has_trait(ELEMENTWISE):
        return "ew"
    if name in MATERIALIZING:
        return "shape"
    if name == "tensor.reduce":
        return "reduce"
    if name == "tensor.dot_general":
        return "dot"
    if name == "tensor.scan":
        return "scan"
    if name in ALONE:
        return "alone"
    if op.has_trait(TERMINATOR):
        return "term"
    raise ScheduleError(f"the schedule planner has no rule for '{name}'")


def _flops(n):
    """Arithmetic of planned node `n`, estimated: one per element for elementwise ops, one per
    input element and body op for reduce and scan, 2·M·N·K for dot_general, the
    decomposition's for attention; 0 for the element-moving ops."""
    if n.role == "ew":
        return n.size
    if n.role in ("reduce", "scan"):
        body = sum(1 for _ in n.op.regions[0].blocks[0].operations) - 1
        return _size(n.operand_shapes[0]) * max(1, body)
    if n.role == "dot":
        k = _size([n.operand_shapes[0][d]
                   for d in n.op.attributes["lhs_contracting_dimensions"]])
        return 2 * n.size * k
    if n.name == "tensor.attention":
        b, h, sq, d = n.operand_shapes[0]
        sk, dv = n.operand_shapes[1][2], n.operand_shapes[2][3]
        return 2 * b * h * sq * sk * (d + dv) + 5 * b * h * sq * sk
    return 0


def dot_rereads(op):
    """Bytes a tiled dot_general (or attention) must read beyond each operand once: with
    DOT_TILE x DOT_TILE output tiles, the lhs is read once per column tile and the rhs once per
    row tile (attention: K and V once per query tile)."""
    if op.name == "tensor.attention":
        sq = op.operand_types[0].shape[2]
        return (-(-sq // DOT_TILE) - 1) * sum(_nbytes(v) for v in op.operands[1:3])
    if op.name != "tensor.dot_general":
        return 0
    a = op.attributes
    lhs, rhs = op.operand_types
    free_l = [n for d, n in enumerate(lhs.shape)
              if d not in a["lhs_contracting_dimensions"] and d not in a["lhs_batching_dimensions"]]
    free_r = [n for d, n in enumerate(rhs.shape)
              if d not in a["rhs_contracting_dimensions"] and d not in a["rhs_batching_dimensions"]]
    m, n = _size(free_l), _size(free_r)
    return ((-(-n // DOT_TILE) - 1) * _nbytes(op.operands[0])
            + (-(-m // DOT_TILE) - 1) * _nbytes(op.operands[1]))


def _moves_inner(op):
    """Whether transpose `op` changes which dim is innermost (its reads stride across memory)."""
    shape = op.operand_types[0].shape
    perm = op.attributes["permutation"]
    kept = [p for p in perm if shape[p] != 1]
    inner = [d for d in range(len(shape)) if shape[d] != 1]
    return bool(kept) and kept[-1] != inner[-1]


# ---- linear positions -------------------------------------------------------------------------

def _row_strides(full, dims):
    """Linear position of a row value read from the full index: row-major over the kept dims."""
    kept = [n for d, n in enumerate(full) if d not in dims]
    strides = iter(row_major_strides(tuple(kept)))
    return [0 if d in dims else next(strides) for d in range(len(full))]


# ---- the graph the planner works on -----------------------------------------------------------

class _Node:
    """One op of the planned block with the facts the planner asks about again and again (IR
    handles hash slowly; nodes hash by identity). `access`: per operand (source value, its
    producer node or None, the copied element-moving nodes in between, operand index); values
    the op's regions capture come last with index -1. `readers`: planned nodes (and the
    terminator's node) that read a result."""
    __slots__ = ("op", "index", "name", "role", "shape", "size", "operand_shapes",
                 "moves_inner", "expensive", "access", "producers", "reads_across", "readers",
                 "captures", "results")

    def __init__(self, op, index):
        self.op = op
        self.index = index
        self.name = name = op.name
        self.role = _role(op, name)
        self.moves_inner = name == "tensor.transpose" and _moves_inner(op)
        self.access = ()
        self.producers = ()     # (producer node, operand index) of the in-block operands
        self.reads_across = False   # a copied transpose makes it read across the innermost dim
        self.readers = []
        self.captures = ()      # values its regions read from outside it

    def describe(self):
        """The facts of a planned node (copied nodes need none)."""
        types = self.op.result_types
        self.shape = types[0].shape if types and hasattr(types[0], "shape") else ()
        self.size = _size(self.shape)
        self.operand_shapes = tuple(getattr(t, "shape", ()) for t in self.op.operand_types)
        self.expensive = self.name in EXPENSIVE


class _Graph:
    """The ops of one block as nodes, with their accesses, readers and liveness."""

    def __init__(self, block, layout):
        self.block = block
        self.layout = layout
        ops = list(block.operations)
        self.nodes = [_Node(op, i) for i, op in enumerate(ops)]
        self.term = self.nodes[-1] if self.nodes and self.nodes[-1].role == "term" else None
        body = self.nodes[:-1] if self.term is not None else self.nodes
        self.local = {}                 # value -> producing node of this block
        self.constants = []             # dense constants: read from memory, like arguments
        for n in body:
            if n.name == "tensor.constant" and dense_constant(n.op):
                self.constants.append(n)
                continue
            for r in n.op.results:
                self.local[r] = n
        self.chains = None              # value -> _chain, once the roles are final
        self._materialize(body)
        self.chains = {}
        candidates = [n for n in body if n.role != "cheap"]
        for n in candidates + ([self.term] if self.term is not None else []):
            n.describe()
            n.access = self._accesses(n)
            n.producers = tuple((p, i) for _, p, _, i in n.access if p is not None)
            n.reads_across = any(c.moves_inner for _, _, chain, _ in n.access for c in chain)
        live = self._live(candidates)
        self.planned = [n for n in candidates if n in live]
        self.dead = [n for n in candidates if n not in live]
        dense = set(self.constants)
        self.cheap = [n for n in body if n.role == "cheap" and n not in dense]
        self.value_readers = {}         # value -> planned nodes reading it
        for n in self.planned + ([self.term] if self.term is not None else []):
            for src, p, _, _ in n.access:
                if n is not self.term:
                    lst = self.value_readers.setdefault(src, [])
                    if n not in lst:
                        lst.append(n)
                if p is not None and n not in p.readers:
                    p.readers.append(n)
        terminal = {src for src, _, _, _ in self.term.access} if self.term else set()
        for n in self.planned:          # (result, its reader nodes, read by the terminator
            n.results = [(r, self.value_readers.get(r, ()),      # or a nested region)
                          r in terminal or r in self.captured) for r in n.op.results]
        self.pattern_roles = {}         # fixed flash_attention group root -> roles
        self._maps = {}
        self._linears = {}              # ids of a chain's maps -> _pull_back
        self.rules = {}                 # (node, reduction space) -> _reduction_rules

    def _chain(self, value):
        """(source value or None for a pure generator, copied nodes from the reader outward);
        memoized per value once roles are final (`self.chains`)."""
        memo = self.chains
        if memo is not None and value in memo:
            return memo[value]
        chain, v = [], value
        while True:
            n = self.local.get(v)
            if n is None or n.role != "cheap":
                found = v, chain
                break
            chain.append(n)
            operands = n.op.operands
            if not operands:
                found = None, chain
                break
            v = operands[0]
        if memo is not None:
            memo[value] = found
        return found

    def _materialize(self, body):
        """Element-moving ops whose value must exist in memory become planned ops: operands of
        iterate and kernel_call, terminator operands, captured values, and a transpose that
        would make a reduce or scan read across the innermost dim."""
        for n in body:
            if n.role in ("reduce", "scan") or n.role == "alone" and n.name != "tensor.attention":
                for v in n.op.operands:
                    _, chain = self._chain(v)
                    if n.role == "alone":
                        if chain:
                            chain[0].role = "shape"
                        continue
                    for c in chain:
                        if c.moves_inner:
                            c.role = "shape"
                            break
        self.captured = set()           # values that nested regions of this block read
        for n in body:
            n.captures = _captures(n.op)
            self.captured.update(n.captures)
        wanted = list(self.term.op.operands) if self.term is not None else []
        for v in list(self.captured) + wanted:
            n = self.local.get(v)
            if n is not None and n.role == "cheap":
                n.role = "shape"

    def _accesses(self, n):
        out = []
        for i, v in enumerate(n.op.operands):
            src, chain = self._chain(v)
            out.append((src, self.local.get(src), chain, i))
        for v in n.captures:
            out.append((v, self.local.get(v), [], -1))
        return out

    def _live(self, candidates):
        """Nodes whose results something reads, transitively from the terminator (impure ops
        and ops whose values nested regions capture always count)."""
        needed = set()
        if self.term is not None:
            needed |= {p for _, p, _, _ in self.term.access if p is not None}
        for n in reversed(candidates):
            if n in needed or not n.op.has_trait(PURE) or _read_in_regions(self, n.op):
                needed.add(n)
                needed |= {p for _, p, _, _ in n.access if p is not None}
        return needed

    def reads_linear(self, n, index, expected):
        """Whether operand `index` of `n`, through its copied chain, reads its source at linear
        (row-major) position `expected . o` for every index `o` of `n` (cached)."""
        key = (n, index, expected)
        if key not in self._maps:
            found = self._linear(n, index)
            want = [0 if d == 1 else c for c, d in zip(expected, found[0])] if found else None
            self._maps[key] = found is not None and found[1] == 0 and found[2] == want
        return self._maps[key]

    def _linear(self, n, index):
        """(reader shape, offset, coefficients): the source's row-major position as an affine
        function of `n`'s index, pulled back through the chain's maps; None where a map is not
        a plain affine map (guards, divisions, general reshapes)."""
        src, _, chain, _ = n.access[index]
        if src is None or not hasattr(src.type, "shape"):
            return None
        maps = [self.layout.index_map(c.op, 0) for c in reversed(chain)]
        first = self.layout.index_map(n.op, index)
        maps.append(first if first is not None else identity_map(n.operand_shapes[index]))
        key = tuple(map(id, maps))          # maps are shared per op signature: memoize
        if key not in self._linears:
            self._linears[key] = _pull_back(maps, src.type.shape)
        return self._linears[key]


def _pull_back(maps, source_shape):
    """The row-major position in `source_shape` as an affine function of the index of the last
    map's output, through `maps` (innermost first); see `_Graph._linear`."""
    coeffs, offset = list(row_major_strides(source_shape)), 0
    for m in maps:
        if m is None or m.kind != "affine" or m.guards or \
                any(e.divisor != 1 for e in m.exprs):
            return None
        pulled = [0] * len(m.out_shape)
        for c, e in zip(coeffs, m.exprs):
            if c:
                offset += c * e.offset
                for j, a in enumerate(e.coeffs):
                    pulled[j] += c * a
        coeffs = pulled
    out_shape = maps[-1].out_shape
    return out_shape, offset, [0 if d == 1 else c for c, d in zip(coeffs, out_shape)]


def _read_in_regions(g, op):
    return any(r in g.captured for r in op.results)


def _captures(op):
    """Values that ops nested in `op`'s regions read from outside `op`, in first-use order."""
    if not op.regions:
        return []
    inside, found = set(), []
    nested = [x for x in op.walk()][1:]
    for x in nested:
        inside.update(x.results)
    for x in [op] + nested:
        for region in x.regions:
            for b in region.blocks:
                inside.update(b.arguments)
    for x in nested:
        for v in x.operands:
            if v not in inside and v not in found:
                found.append(v)
    return found


# ---- judging a candidate work item ------------------------------------------------------------

def _judge(members, heroes=None):
    """(kind, hero node) when `members` (a set of planned nodes of one block) make a valid work
    item, else None. `heroes`: role -> nodes of the hero roles among them, when known."""
    if heroes is None:
        heroes = {}
        for n in members:
            if n.role in _HEROES:
                heroes.setdefault(n.role, []).append(n)
    if not _compatible(heroes):
        return None
    reduces, dots, scans = heroes.get("reduce", ()), heroes.get("dot", ()), heroes.get("scan", ())
    if reduces:
        return _judge_reduction(members, sorted(reduces, key=_index))
    outputs = [n for n in members if any(r not in members for r in n.readers)]
    if dots or scans:
        return _judge_tiled(members, (dots or scans)[0], outputs)
    return _judge_loop(members, outputs)


_HEROES = frozenset(("reduce", "dot", "scan", "alone"))


def _compatible(heroes):
    """Whether these heroes may share a work item: reductions together, or one dot_general, or
    one scan; attention, iterate and kernel_call never."""
    if "alone" in heroes:
        return False
    tiled = len(heroes.get("dot", ())) + len(heroes.get("scan", ()))
    return tiled == 0 or (tiled == 1 and "reduce" not in heroes)


def _index(n):
    return n.index


def _judge_loop(members, outputs):
    """Elementwise and materialized shape ops, all outputs of one shape; smaller members are
    recomputed per use, so they must be cheap (`_computed_once`)."""
    shapes = {n.shape for n in outputs}
    if len(shapes) != 1:
        return None
    size = _size(shapes.pop())
    movers = []
    for n in members:
        if not _computed_once(n, members, size):
            return None
        if n.name in MATERIALIZING or n.moves_inner or n.reads_across:
            movers.append(n)
    if movers:                          # the first in program order is the hero
        return "shape", min(movers, key=_index)
    return "elementwise", min(outputs, key=_index)


def _computed_once(n, members, size):
    """Whether the kernel computes expensive member `n` once per element: it is not smaller
    than the item's space (else every element of the space that reads it recomputes it), and
    every member reading it reads it at its own index (a slice, broadcast or stencil would
    compute it again per read). Cheap members may be recomputed."""
    if not n.expensive:
        return True
    if n.size < size:
        return False
    return all(r.shape == n.shape and _G.reads_linear(r, i, row_major_strides(r.shape))
               for r in n.readers if r in members
               for p, i in r.producers if p is n)


def _prologue(members, hero):
    """The convert ops feeding dot_general `hero` inside the item: a chain of converts, each
    read only by the next (or by the dot)."""
    found, stack = set(), [hero]
    while stack:
        cur = stack.pop()
        for p, _ in cur.producers:
            if p in members and p.name == "tensor.convert" and p.readers == [cur] \
                    and p not in found:
                found.add(p)
                stack.append(p)
    return found


def _judge_tiled(members, hero, outputs):
    """One dot_general or scan with its elementwise epilogue (and, for dot_general, convert
    operands; for scan, elementwise producers): every member of the hero's result shape reads
    the others at its own index."""
    space, size = hero.shape, hero.size
    strides = row_major_strides(space)
    is_dot = hero.role == "dot"
    if any(n.shape != space for n in outputs):
        return None
    prologue = _prologue(members, hero) if is_dot else ()
    for n in members:
        if n.role == "shape" or (n.reads_across and not is_dot):
            return None
        in_prologue = n in prologue
        if not in_prologue and not _computed_once(n, members, size):
            return None
        for p, i in n.producers:
            if p not in members:
                continue
            if i < 0:
                return None         # a region would read a value the item never stores
            if n is hero or in_prologue:
                if is_dot or in_prologue:
                    ok = p in prologue
                elif i == 0:
                    ok = _G.reads_linear(n, 0, strides)
                else:
                    ok = p.size == 1
            elif p in prologue:
                ok = False                  # a prologue convert feeds only the dot
            elif n.shape != space:
                ok = True                   # a small member: checked below
            elif p is hero or p.shape == space:
                ok = _G.reads_linear(n, i, strides)
            else:
                ok = True                   # read from a small member (recomputed)
            if not ok:
                return None
        if n is not hero and not in_prologue and n.shape != space:
            if n.expensive or n.size >= size or _depends_on(n, hero, members):
                return None
    return ("dot_general" if is_dot else "scan"), hero


def _depends_on(n, target, members):
    seen, stack = set(), [n]
    while stack:
        cur = stack.pop()
        for _, p, _, _ in cur.access:
            if p is target:
                return True
            if p is not None and p in members and p not in seen:
                seen.add(p)
                stack.append(p)
    return False


def _judge_reduction(members, reduces):
    """Reductions over one input space (full shape F, reduced dims D) with elementwise ops in
    the full space, the row space (F without D) or on scalars. `row_pipeline` when a row
    result flows back into the full space (D must then be the trailing dims), which is also
    how one reduction can feed another; else `reduction` (several are a multi-output one)."""
    first = reduces[0]
    full = first.operand_shapes[0]
    dims = tuple(sorted(first.op.attributes["dimensions"]))
    for r in reduces[1:]:
        if r.operand_shapes[0] != full or tuple(sorted(r.op.attributes["dimensions"])) != dims:
            return None
    space = (full, dims)
    back = _check_rules(members, members, space)
    if back is None or (back and not trailing(space)) or _escaping_free(members, members, space):
        return None
    return ("row_pipeline" if back else "reduction"), first


def _check_rules(nodes, members, space):
    """Whether `nodes` may sit in a reduction item over `space` made of `members`: None when
    not, else whether a row result flows back into the full space among their reads."""
    back = False
    for n in nodes:
        rules = _G.reduction_rules(n, space)
        if rules is None:
            return None
        for p, ok, flows in rules:
            if p in members:
                if not ok:
                    return None
                back = back or flows
    return back


def trailing(space):
    """Whether reduced dims D of shape F are its innermost ones (size-1 dims aside): each row
    is then one contiguous run of memory."""
    full, dims = space
    return all(d in dims or full[d] == 1 for d in range(min(dims, default=len(full)), len(full)))


@lru_cache(maxsize=1024)
def _space_facts(space):
    """(rows, full-space strides, row-space strides read from a full index) of (F, D)."""
    full, dims = space
    return (_size([d for i, d in enumerate(full) if i not in dims]),
            tuple(row_major_strides(full)), tuple(_row_strides(full, dims)))


def _escaping_free(nodes, members, space):
    """Whether one of `nodes` is a recomputed value of another shape (`free` or `scalar` in
    `_reduction_rules`) that something outside `members` reads: it would have to be written,
    and a reduction item writes only full-shape and row values (a loop counter's `i + 1`
    beside a softmax is an item of its own)."""
    full, _ = space
    rows = _space_facts(space)[0]
    return any(n.role == "ew" and n.shape != full and n.size != rows
               and any(r not in members for r in n.readers) for n in nodes)


def _reduction_rules(g, n, space):
    """How node `n` may sit in a reduction item over `space` = (F, D): None when it cannot,
    else per in-block producer (producer, allowed inside the item, a row value broadcast back
    into the full space)."""
    full, dims = space
    rows, full_strides, row_strides = _space_facts(space)

    def where(x):
        if x.role == "reduce" or (x.shape != full and x.size == rows):
            return "row"
        if x.shape == full:
            return "full"
        if x.size == 1:
            return "scalar"
        # any other shape (a per-column weight, say): recomputed wherever it is read, so it
        # must be cheap and read nothing the item computes
        return "free" if x.role == "ew" and not x.expensive else None

    mine = where(n)
    if n.role == "shape" or mine is None or n.reads_across:
        return None                 # (a transposed read strides across the reduced rows)
    rules = []
    n_inputs = len(n.operand_shapes) // 2
    for p, i in n.producers:
        theirs, back = where(p), False
        if i < 0 or mine == "free":
            ok = False              # a region would read a value the item never stores
        elif n.role == "reduce":
            if i >= n_inputs:       # an init: a scalar computed in the item
                ok = theirs != "full" and _size(n.operand_shapes[i]) == 1
            else:
                ok = theirs == "full" and g.reads_linear(n, i, full_strides)
        elif theirs == "scalar" or (theirs == "free" and mine != "scalar"):
            ok = True
        elif mine == "full" and theirs == "full":
            ok = g.reads_linear(n, i, full_strides)
        elif mine == "full" and theirs == "row":
            ok = back = g.reads_linear(n, i, row_strides)
        elif mine == "row" and theirs == "row":
            ok = g.reads_linear(n, i, row_major_strides(n.shape))
        else:
            ok = False
        rules.append((p, ok, back))
    return rules


class _CurrentGraph:
    """The graph being planned, for the judges' cached map checks (each plan_block call sets
    and restores it; planning one block is not shared across threads)."""
    graph = None

    def reads_linear(self, n, index, expected):
        return self.graph.reads_linear(n, index, expected)

    def reduction_rules(self, n, space):
        cache = self.graph.rules
        key = (n, space)
        if key not in cache:
            cache[key] = _reduction_rules(self.graph, n, space)
        return cache[key]


_G = _CurrentGraph()


# ---- the recognized attention pattern ---------------------------------------------------------

# float -> float conversions that keep every value: a sum taken in the wider dtype still sums
# the exps themselves
_EXACT_WIDENING = {("f16", "f32"), ("bf16", "f32"), ("f16", "f64"), ("bf16", "f64"),
                   ("f32", "f64")}


def _match_attention(dot2):
    """The nodes of dot_general -> (elementwise score ops) -> max -> subtract -> exp -> sum ->
    divide -> (convert) -> dot_general ending at `dot2`, as (nodes, roles), or None; the sum
    may be taken in a wider dtype (exp converted before it, the sum converted back: how an
    f16/bf16 softmax is written). Every link
    reads its producer at the same index (the row max and sum at the same row), the max starts
    from -inf and the sum from 0, and every intermediate is read only inside the pattern."""
    def link(n, i, row=False):
        """The producer operand `i` of `n` reads at its own index (or row), else None."""
        if n is None or i >= len(n.access):
            return None
        _, q, chain, _ = n.access[i]
        if q is None:
            return None
        if n.role == "dot":
            return q if not chain else None
        shape = n.operand_shapes[0] if n.role == "reduce" else n.shape
        full = row_major_strides(shape)
        want = _row_strides(shape, (len(shape) - 1,)) if row else full
        return q if _G.reads_linear(n, i, tuple(want)) else None

    def reduction(n, kind, init):
        from accy.tensor.build import reduce_kind
        if n is None or n.role != "reduce" or len(n.operand_shapes) != 2:
            return False
        rank = len(n.operand_shapes[0])
        if tuple(n.op.attributes["dimensions"]) != (rank - 1,) or reduce_kind(n.op) != kind:
            return False
        src, _, chain, _ = n.access[1]          # the init: a constant of that value
        if src is not None or not chain or chain[-1].name != "tensor.constant":
            return False
        value = chain[-1].op.attributes["value"].array
        return value.size == 1 and float(value.reshape(-1)[0]) == init

    roles = {"values": dot2}
    p = link(dot2, 0)
    if p is not None and p.name == "tensor.convert":
        roles["convert"] = p
        p = link(p, 0)
    if p is None or p.name != "tensor.divide":
        return None
    e, total = link(p, 0), link(p, 1, row=True)
    if total is not None and total.name == "tensor.convert":     # the sum taken in a wider
        roles["narrow"], total = total, link(total, 0)            # dtype (f16/bf16 softmax)
    summed = link(total, 0) if total is not None and total.role == "reduce" else None
    if summed is not None and summed.name == "tensor.convert":
        roles["widen"], summed = summed, link(summed, 0)
    if e is None or e.name != "tensor.exp" or not reduction(total, "sum", 0.0) \
            or summed is not e:
        return None
    exp_dtype, sum_dtype = e.op.result_types[0].dtype, total.op.result_types[0].dtype
    if sum_dtype != exp_dtype and (exp_dtype, sum_dtype) not in _EXACT_WIDENING:
        return None                 # a sum of truncated or rounded exps: not softmax's
    shifted = link(e, 0)
    if shifted is None or shifted.name != "tensor.subtract":
        return None
    z, row_max = link(shifted, 0), link(shifted, 1, row=True)
    if z is None or not reduction(row_max, "max", -math.inf) or link(row_max, 0) is not z:
        return None
    # the score chain: elementwise ops of the score shape from z back to one dot_general,
    # each reading the chain at its own index
    full = z.shape
    chain, stack, dot1 = [], [z], None
    while stack:
        n = stack.pop()
        if n.role == "dot":
            if dot1 is not None and dot1 is not n:
                return None
            dot1 = n
            continue
        if n.role != "ew" or n.shape != full:
            return None
        if n in chain:
            continue
        chain.append(n)
        for q, i in n.producers:
            if q.role in ("ew", "dot") and _reaches_dot(q):
                if link(n, i) is not q:
                    return None
                stack.append(q)
    if dot1 is None or dot1.shape != full:
        return None
    batch = tuple(range(len(full) - 2))
    for d in (dot1, dot2):
        a = d.op.attributes
        if tuple(a["lhs_batching_dimensions"]) != batch or \
                tuple(a["rhs_batching_dimensions"]) != batch or \
                tuple(a["lhs_contracting_dimensions"]) != (len(full) - 1,):
            return None
    roles.update(scores=dot1, max=row_max, shifted=shifted, exp=e, sum=total, divide=p)
    inside = set(chain) | set(roles.values())
    # mask-side ops that read nothing but constants and iota (causal masks) come along
    extra = []
    for n in chain:
        for _, q, _, _ in n.access:
            _closed(q, inside, extra)
    inside |= set(extra)
    if any(r not in inside for n in inside if n is not dot2 for r in n.readers):
        return None
    return sorted(inside, key=_index), roles


def _reaches_dot(n):
    seen, stack = set(), [n]
    while stack:
        cur = stack.pop()
        if cur.role == "dot":
            return True
        for _, q, _, _ in cur.access:
            if q is not None and q not in seen and q.role in ("ew", "dot"):
                seen.add(q)
                stack.append(q)
    return False


def _closed(n, inside, extra):
    """Add `n` and its producers to `extra` when they read nothing but constants and iota."""
    if n is None or n in inside or n in extra:
        return True
    if n.role != "ew":
        return False
    for src, p, _, _ in n.access:
        if src is not None and (p is None or not _closed(p, inside, extra)):
            return False
    extra.append(n)
    return True


# ---- grouping ---------------------------------------------------------------------------------

class _Groups:
    """Union-find over planned nodes, with the item graph kept for the cycle check."""

    def __init__(self, g):
        self.parent = {n: n for n in g.planned}
        self.members = {n: [n] for n in g.planned}
        self.span = {n: n.index for n in g.planned}     # root -> first op's index
        self.fixed = set()
        self.refused = set()
        self.judged = {}                # root -> (kind, hero node) of its last merge
        self.heroes = {n: {n.role: [n]} for n in g.planned if n.role in _HEROES}
        self.succ = {n: set() for n in g.planned}
        self.pred = {n: set() for n in g.planned}
        for n in g.planned:
            for r in n.readers:
                if r in self.succ:
                    self.succ[n].add(r)
                    self.pred[r].add(n)

    def find(self, n):
        root = self.parent[n]
        while root is not self.parent[root]:
            root = self.parent[root]
        while n is not root:
            self.parent[n], n = root, self.parent[n]
        return root

    def union(self, a, b):
        """Merge groups `a` and `b` (roots); returns the new root."""
        if len(self.members[a]) < len(self.members[b]):
            a, b = b, a
        self.parent[b] = a
        self.members[a] += self.members.pop(b)
        self.heroes[a] = _joined(self.heroes.pop(a, None), self.heroes.pop(b, None))
        self.span[a] = min(self.span[a], self.span.pop(b))
        for edges, back in ((self.succ, self.pred), (self.pred, self.succ)):
            moved = edges.pop(b)
            for other in moved:
                back[other].discard(b)
                if other is not a:
                    back[other].add(a)
            edges[a] |= moved
            edges[a] -= {a, b}
        return a

    def reaches(self, a, b, skip_direct):
        """Whether group `b` is reachable from group `a` (not through the direct edge a->b when
        `skip_direct`). No pruning by program position: a merged group spans many ops, so one
        that starts after `b` may still lead into `b` through another."""
        stack = [s for s in self.succ[a] if not (skip_direct and s is b)]
        seen = set(stack)
        while stack:
            cur = stack.pop()
            if cur is b:
                return True
            for s in self.succ[cur]:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        return False

    def _cycle(self, a, b, producer_consumer):
        """Whether merging `a` and `b` would close a cycle: a path between them through a
        third group. For a producer `a` of consumer `b`, only a -> ... -> b can exist (the
        graph is acyclic), and not at all when `b` is `a`'s only successor."""
        if producer_consumer:
            return self.succ[a] != {b} and self.reaches(a, b, True)
        return self.reaches(a, b, False) or self.reaches(b, a, False)

    def _feeds_only(self, a, b, target):
        """Whether group `a` feeds group `b` only through node `target`."""
        return all(r is target or self.find(r) is not b
                   for n in self.members[a] for r in n.readers if r in self.parent)

    def try_merge(self, a, b, producer_consumer):
        if a is b or a in self.fixed or b in self.fixed:
            return False
        ha, hb = self.heroes.get(a), self.heroes.get(b)
        if ha and hb and not ("reduce" in ha and "reduce" in hb and len(ha) == len(hb) == 1):
            return False        # two heroes that never share an item (see _compatible)
        if producer_consumer and hb and "dot" in hb and not ha and \
                self._feeds_only(a, b, hb["dot"][0]) and \
                any(n.name != "tensor.convert" for n in self.members[a]):
            return False        # only converts join a dot_general from its operands' side
        # groups only grow: a pair refused at these sizes is refused again
        key = (a, b, len(self.members[a]), len(self.members[b]))
        if key in self.refused:
            return False
        heroes = _joined(ha, hb)
        if not _compatible(heroes) or self._cycle(a, b, producer_consumer):
            judged = None
        elif "reduce" in heroes:
            judged = self._join_reductions(a, b, heroes)
        else:
            judged = _judge(set(self.members[a] + self.members[b]), heroes)
        if judged is None:
            self.refused.add(key)
            return False
        self.judged[self.union(a, b)] = judged
        return True

    def _join_reductions(self, a, b, heroes):
        """`_judge_reduction` of the union of `a` and `b`, checking only what the union adds
        to an item that is already valid: the members of the other group, and the reads from
        the base group into them."""
        sa, sb = self.reduction_space(a), self.reduction_space(b)
        if sa is not None and sb is not None and sa[0] != sb[0]:
            return None
        base, other = (a, b) if sa is not None else (b, a)
        if sa is not None and sb is not None and len(self.members[a]) < len(self.members[b]):
            base, other = b, a              # check the smaller side
        space, back = self.reduction_space(base)
        if other in self.heroes and "reduce" in self.heroes[other]:
            back = back or self.reduction_space(other)[1]
        members = set(self.members[a] + self.members[b])
        added = self.members[other]
        flows = _check_rules(added, members, space)
        if flows is None or _escaping_free(added, members, space):
            return None
        back = back or flows
        added_set = set(added)
        for n in added:
            for r in n.readers:
                if r in members and r not in added_set:
                    for p, ok, flows in _G.reduction_rules(r, space):
                        if p is n:
                            if not ok:
                                return None
                            back = back or flows
        if back and not trailing(space):
            return None
        return ("row_pipeline" if back else "reduction"), min(heroes["reduce"], key=_index), \
            (space, back)

    def reduction_space(self, root):
        """((F, D), a row result flows back) of a group holding reductions, else None."""
        if root not in self.heroes or "reduce" not in self.heroes[root]:
            return None
        judged = self.judged.get(root)
        if judged is not None and len(judged) == 3:
            return judged[2]
        n = self.heroes[root]["reduce"][0]          # a single reduce
        return (n.operand_shapes[0], tuple(sorted(n.op.attributes["dimensions"]))), False


def _joined(x, y):
    """Two role -> nodes dicts in one (either may be None)."""
    if not x or not y:
        return dict(x or y or {})
    out = {role: list(nodes) for role, nodes in x.items()}
    for role, nodes in y.items():
        out[role] = out.get(role, []) + nodes
    return out


def plan_block(block, layout):
    """The SchedulePlan of `block` (a function body, or an iterate's cond/body block)."""
    g = _Graph(block, layout)
    saved, _G.graph = _G.graph, g
    try:
        groups = _group(g)
        return _build_plan(g, groups)
    finally:
        _G.graph = saved


def _group(g):
    groups = _Groups(g)
    # the decomposed attention pattern first: its nodes become one fixed group
    for n in reversed(g.planned):
        if n.role == "dot" and groups.find(n) not in groups.fixed:
            found = _match_attention(n)
            if found and all(groups.find(x) is x and x not in groups.fixed for x in found[0]):
                root = found[0][0]
                for x in found[0][1:]:
                    root = groups.union(groups.find(root), x)
                groups.fixed.add(root)
                g.pattern_roles[root] = found[1]
    groups.fixed |= {n for n in g.planned if n.role == "alone"}
    # a cheap elementwise op read only by an elementwise op of its shape joins it without a
    # judge: the pair is a valid loop, and wherever the reader goes later the op is valid too
    # (same shape, so the same space; cheap, so free to recompute). Not into a convert, which
    # a dot_general may want alone as its prologue.
    for n in g.planned:
        if n.role == "ew" and not n.expensive and len(n.readers) == 1:
            r = n.readers[0]
            a, b = groups.find(n), groups.find(r) if r in groups.parent else None
            if b is not None and a is not b and a not in groups.fixed and \
                    b not in groups.fixed and r.role == "ew" and r.name != "tensor.convert" and \
                    r.shape == n.shape and any(p is n and not chain
                                               for _, p, chain, _ in r.access):
                groups.judged[groups.union(a, b)] = None
    # epilogues first: a dot_general or scan takes its elementwise consumers before any
    # reduction can (a residual add then rides on the matmul's output instead of making the
    # next row pipeline read both of its operands)
    for hero in g.planned:
        if hero.role in ("dot", "scan"):
            queue, seen = list(hero.readers), set()
            while queue:
                r = queue.pop(0)
                if r in seen or r.role != "ew":
                    continue
                seen.add(r)
                if groups.try_merge(groups.find(hero), groups.find(r), True):
                    queue += r.readers
    # producer -> consumer merges, visiting consumers from the last op back, until no merge is
    # left (a merge refused early may become valid once the producer joined another group)
    edges = [(p, n) for n in reversed(g.planned) for p, _ in n.producers
             if p in groups.parent]
    while edges:
        refused = []
        for p, n in edges:
            a, b = groups.find(p), groups.find(n)
            if a is not b and not groups.try_merge(a, b, True):
                refused.append((p, n))
        edges = refused if len(refused) < len(edges) else []
    # siblings: groups reading one value merge when the union is a valid work item
    for readers in g.value_readers.values():       # (in first-read order)
        if len(readers) < 2:
            continue
        roots = []
        for r in readers:
            root = groups.find(r)
            if root not in roots:
                roots.append(root)
        for i in range(1, len(roots)):
            for j in range(i):
                a, b = groups.find(roots[j]), groups.find(roots[i])
                if groups.try_merge(a, b, False):
                    break
    return groups


def _build_plan(g, groups):
    roots = []
    for n in g.planned:
        root = groups.find(n)
        if root not in roots:
            roots.append(root)
    # topological order of the item graph, earliest program position first among the ready
    indeg = {r: len(groups.pred[r]) for r in roots}
    rank = {r: i for i, r in enumerate(roots)}
    heap = [(groups.span[r], rank[r]) for r in roots if indeg[r] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        r = roots[heapq.heappop(heap)[1]]
        order.append(r)
        for s in sorted(groups.succ[r], key=rank.__getitem__):
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(heap, (groups.span[s], rank[s]))
    assert len(order) == len(roots), "the work item graph has a cycle"
    items, item_of = [], {}
    for root in order:
        members = sorted(groups.members[root], key=_index)
        item = _item(g, len(items), members, g.pattern_roles.get(root),
                     groups.judged.get(root))
        items.append(item)
        for op in item.ops:
            item_of.setdefault(op, item.id)
    read = {v for item in items for v in item.inputs}
    read.update(g.term.op.operands if g.term is not None else ())
    constants = [n for n in g.constants if n.op.results[0] in read]
    unread = [n for n in g.constants if n.op.results[0] not in read]
    unused = sorted(g.dead + [n for n in g.cheap if n.op not in item_of] + unread, key=_index)
    return SchedulePlan(g.block, tuple(items), item_of, tuple(n.op for n in unused),
                        _ideal_bytes(g, items), tuple(n.op for n in constants))


def _item(g, index, members, pattern_roles, judged):
    member_set = set(members)
    copied, inputs, seen = {}, [], set()
    for n in members:
        for src, p, chain, _ in n.access:
            for c in chain:
                copied[c] = None
            if src is not None and (p is None or p not in member_set) and src not in seen:
                seen.add(src)
                inputs.append(src)
    nodes = sorted(members + list(copied), key=_index)
    outputs = [r for n in members for r, readers, escapes in n.results
               if escapes or any(x not in member_set for x in readers)]
    if pattern_roles is not None:
        kind, hero = "flash_attention", pattern_roles["values"]
    elif len(members) == 1 and members[0].role == "alone":
        kind, hero = ALONE[members[0].name], members[0]
    else:
        kind, hero = (judged or _judge(member_set))[:2]
    nbytes = sum(_nbytes(v) for v in inputs) + sum(_nbytes(v) for v in outputs)
    roles = {name: n.op for name, n in (pattern_roles or {}).items()}
    nbytes += _attention_rereads(roles) if roles else dot_rereads(hero.op)
    plans = ()
    if kind == "iterate":
        plans = tuple(plan_block(region.blocks[0], g.layout) for region in hero.op.regions)
    flops = sum(_flops(n) for n in members)
    return WorkItem(index, kind, hero.op, tuple(n.op for n in nodes), tuple(inputs),
                    tuple(outputs), nbytes, flops, roles, plans)


def _attention_rereads(roles):
    """K and V once per query tile, as a flash_attention kernel streams them."""
    scores, values = roles["scores"], roles["values"]
    tiles = -(-scores.operand_types[0].shape[-2] // DOT_TILE)
    return (tiles - 1) * (_nbytes(scores.operands[1]) + _nbytes(values.operands[1]))


def dense_constant(op):
    """Whether constant `op` has elements of more than one value (bit for bit): it lives in a
    constant buffer, which kernels read like an input; a splat is an immediate."""
    a = op.attributes["value"].array.reshape(-1)
    if a.size <= 1:
        return False
    rows = a.view(np.uint8).reshape(a.size, -1)
    return not bool((rows == rows[0]).all())


def _ideal_bytes(g, items):
    """Each block argument and dense constant read once, each terminator operand written
    once, plus the re-reads a dot_general or attention must make."""
    read = {src for item in items for src in item.inputs if src not in g.local}
    total = sum(_nbytes(v) for v in read)
    if g.term is not None:
        total += sum(_nbytes(v) for v in set(g.term.op.operands))
    for item in items:
        if item.roles:
            total += _attention_rereads(item.roles)
        elif item.kind in ("dot_general", "flash_attention"):
            total += dot_rereads(item.hero)
    return total


# ---- a work item on its own -------------------------------------------------------------------

def work_item_module(item, context=None):
    """A new module whose `builtin.func @main` computes `item` alone: its inputs are the
    arguments, its ops are cloned in order, its outputs are the results. The reference
    interpreter runs it (a host fallback, and how tests check a plan item by item)."""
    from accy._core.context import Builder, Context, Module
    from accy._core.types import FunctionType
    ctx = context if context is not None else Context()
    module = Module.create(ctx)
    ins = [v.type for v in item.inputs]
    func = Builder(ctx).at_end(module.body).create("builtin.func", attributes={
        "sym_name": "main", "function_type": FunctionType(ins, [v.type for v in item.outputs])})
    block = func.regions[0].add_block(ins)
    builder = Builder(ctx).at_end(block)
    mapping = dict(zip(item.inputs, block.arguments))
    for op in item.ops:
        clone = builder.insert(op.clone(ctx, mapping))
        mapping.update(zip(op.results, clone.results))
    builder.create("builtin.return", [mapping[v] for v in item.outputs])
    return module


# ---- the analysis -----------------------------------------------------------------------------

def compute_schedule_plan(func, layout):
    """The SchedulePlan of `func`'s body, given its ShapeLayoutAnalysis."""
    return plan_block(func.regions[0].blocks[0], layout)


SCHEDULE_PLAN = AnalysisDescriptor("SchedulePlanAnalysis", WorkContract(
    ("SchedulePlanAnalysis", 2),
    estimate=lambda p: 512 + 200 * len(p.item_of) + 400 * len(p.items)))


def schedule_plan(pass_context, func):
    """The SchedulePlan of `func` through the analysis cache (reads ShapeLayoutAnalysis)."""
    return pass_context.get_analysis(
        func, SCHEDULE_PLAN,
        lambda op, scope: compute_schedule_plan(op, shape_layout(scope, op)))


PASS = analysis_pass("schedule", schedule_plan, "SchedulePlanAnalysis (work items: fusion "
                     "groups with a kind and cost estimate)")
