"""The graph the fusion planner works on: the ops of one block as `PlanNode`s with the facts
the planner asks about again and again (role, shape, accesses through copied element-moving
ops, readers, liveness), and the op roles that decide what the planner does with an op.

Roles: cheap (element-moving ops and generators, copied into every reader: `CHEAP`), ew
(elementwise), shape (a materializing shape op: `MATERIALIZING`, or a cheap op whose value
must exist in memory), reduce, dot, scan, alone (an item of its own: `ALONE`), term.
"""
import math

import numpy as np

from accy._core.registry import ELEMENTWISE, PURE, TERMINATOR
from accy.errors import AccyError
from accy.passes.shape_layout import identity_map, row_major_strides
from accy.tensor.dialect import FLOAT_UNARY

# element-moving ops and generators: copied into every work item that reads them
CHEAP = frozenset(("tensor.constant", "tensor.iota", "tensor.broadcast_in_dim",
                   "tensor.reshape", "tensor.transpose", "tensor.slice", "tensor.reverse"))
MATERIALIZING = frozenset(("tensor.pad", "tensor.concatenate", "tensor.gather",
                           "tensor.dynamic_slice", "tensor.dynamic_update_slice"))
ALONE = {"tensor.attention": "flash_attention", "tensor.iterate": "iterate",
         "tensor.kernel_call": "kernel_call", "tensor.sort": "sort",
         "tensor.scatter": "scatter"}
EXPENSIVE = frozenset(["tensor.divide", "tensor.remainder", "tensor.power"] + [
    "tensor." + n for n in FLOAT_UNARY if n not in ("floor", "ceil", "round_nearest_even")])


class ScheduleError(AccyError):
    """An op the schedule planner cannot place in a work item."""


def position(n):
    """A node's position in its block (the planner's order of choice)."""
    return n.index


def dense_constant(op):
    """Whether constant `op` has elements of more than one value (bit for bit): it lives in a
    constant buffer, which kernels read like an input; a splat is an immediate."""
    a = op.attributes["value"].array.reshape(-1)
    if a.size <= 1:
        return False
    rows = a.view(np.uint8).reshape(a.size, -1)
    return not bool((rows == rows[0]).all())


# ---- roles --------------------------------------------------------------------------------------

def _role(op, name):
    """What the planner does with `op` (named `name`), see the module doc. Registered ops'
    roles follow from their name (`_ROLES` remembers them)."""
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


def _moves_inner(op):
    """Whether transpose `op` changes which dim is innermost (its reads stride across memory)."""
    shape = op.operand_types[0].shape
    perm = op.attributes["permutation"]
    kept = [p for p in perm if shape[p] != 1]
    inner = [d for d in range(len(shape)) if shape[d] != 1]
    return bool(kept) and kept[-1] != inner[-1]


# ---- linear positions -------------------------------------------------------------------------

def row_strides(full, dims):
    """Linear position of a row value read from the full index: row-major over the kept dims."""
    kept = [n for d, n in enumerate(full) if d not in dims]
    strides = iter(row_major_strides(tuple(kept)))
    return [0 if d in dims else next(strides) for d in range(len(full))]


# ---- the graph --------------------------------------------------------------------------------

class PlanNode:
    """One op of the planned block with the facts the planner asks about again and again (IR
    handles hash slowly; nodes hash by identity). `access`: per operand (source value, its
    producer node or None, the copied element-moving nodes in between, operand index); values
    the op's regions capture come last with index -1 (a raised attention's, which its score
    ops read elementwise, come after its k, through their copied chains, with index -1). `readers`: planned nodes (and the
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
        self.size = math.prod(self.shape)
        self.operand_shapes = tuple(getattr(t, "shape", ()) for t in self.op.operand_types)
        self.expensive = self.name in EXPENSIVE


class PlanGraph:
    """The ops of one block as nodes, with their accesses, readers and liveness."""

    def __init__(self, block, layout):
        self.block = block
        self.layout = layout
        ops = list(block.operations)
        self.nodes = [PlanNode(op, i) for i, op in enumerate(ops)]
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
        self._maps = {}
        self._linears = {}              # ids of a chain's maps -> _pull_back
        self.rules = {}                 # (node, reduction space) -> the judges' rules

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
            if n.name != "tensor.attention":    # its score ops read like its operands
                self.captured.update(n.captures)
        wanted = list(self.term.op.operands) if self.term is not None else []
        for v in list(self.captured) + wanted:
            n = self.local.get(v)
            if n is not None and n.role == "cheap":
                n.role = "shape"

    def _accesses(self, n):
        reads, captured = list(enumerate(n.op.operands)), n.captures
        if n.name == "tensor.attention":    # a raised one's score ops read between k and v,
            reads[2:2], captured = [(-1, v) for v in captured], ()     # through moves
        out = []
        for i, v in reads:
            src, chain = self._chain(v)
            out.append((src, self.local.get(src), chain, i))
        for v in captured:
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
    map's output, through `maps` (innermost first); see `PlanGraph._linear`."""
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


