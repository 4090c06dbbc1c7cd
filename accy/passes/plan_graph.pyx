# cython: language_level=3, boundscheck=False
"""The graph the fusion planner works on: the ops of one block as `PlanNode`s with the facts
the planner asks about again and again (role, shape, accesses through copied element-moving
ops, readers, liveness), and the op roles that decide what the planner does with an op.

Roles: cheap (element-moving ops and generators, copied into every reader: `CHEAP`), ew
(elementwise), shape (a materializing shape op: `MATERIALIZING`, or a cheap op whose value
must exist in memory), reduce, dot, scan, alone (an item of its own: `ALONE`), term.

Built in Cython from the IR's records: ops, operands and results are read as record ids (a
value's producer is found by its id), and handles are made only for what the planner keeps.
"""
import math

from libc.stdint cimport int32_t

from accy._core.context cimport (
    Block, Context, Operation, OpRec, Value, BLK, OP, REG, USE, VAL, ARGS, op_handle,
    value_handle, walk_next,
)
from accy._core.registry import ELEMENTWISE, PURE, TERMINATOR
from accy.errors import AccyError
from accy.passes.folding import splat_bits
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

cdef unsigned int T_PURE = PURE


class ScheduleError(AccyError):
    """An op the schedule planner cannot place in a work item."""


def position(n):
    """A node's position in its block (the planner's order of choice)."""
    return (<PlanNode?>n).index


def dense_constant(op):
    """Whether constant `op` has elements of more than one value (bit for bit): it lives in a
    constant buffer, which kernels read like an input; a splat is an immediate."""
    value = op.attributes["value"]
    return value.array.size > 1 and splat_bits(value) is None     # (cached per attribute)


# ---- roles --------------------------------------------------------------------------------------

cdef str _role(Operation op, str name):
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

cdef class PlanNode:
    """One op of the planned block with the facts the planner asks about again and again (IR
    handles hash slowly; nodes hash by identity). `access`: per operand (source value, its
    producer node or None, the copied element-moving nodes in between, operand index); values
    the op's regions capture come last with index -1 (a raised attention's, which its score
    ops read elementwise, come after its k, through their copied chains, with index -1).
    `readers`: planned nodes (and the terminator's node) that read a result. `shape`, `size`,
    `operand_shapes` and `expensive` are set for planned nodes and the terminator only."""
    def __init__(self, Operation op, Py_ssize_t index):
        self.op = op
        self.oid = op.id
        self.index = index
        name = op.context.op_names[OP(op.context, op.id).name]
        self.name = name
        self.role = _role(op, name)
        self.moves_inner = name == "tensor.transpose" and _moves_inner(op)
        self.access = ()
        self.producers = ()     # (producer node, operand index) of the in-block operands
        self.reads_across = False   # a copied transpose makes it read across the innermost dim
        self.readers = []
        self.captures = ()      # values its regions read from outside it

    def describe(self):
        """The facts of a planned node (copied nodes need none)."""
        cdef Context c = (<Operation>self.op).context
        cdef OpRec* o = OP(c, self.oid)
        cdef int32_t i, v
        shape = _shape(c, o.results) if o.n_results else ()
        self.shape = shape
        self.size = math.prod(shape)
        self.operand_shapes = tuple([_shape(c, USE(c, o.operands + i).value)
                                     for i in range(o.n_operands)])
        self.expensive = self.name in EXPENSIVE


cdef class PlanGraph:
    """The ops of one block as nodes, with their accesses, readers and liveness."""

    def __init__(self, Block block, layout):
        cdef Context c = block.context
        cdef PlanNode n, p
        cdef int32_t op, i, v
        cdef OpRec* o
        self.c = c
        self.block = block
        self.layout = layout
        nodes = []
        op = BLK(c, block.check()).first_op
        while op >= 0:
            nodes.append(PlanNode(op_handle(c, op), len(nodes)))
            op = OP(c, op).next
        self.nodes = nodes
        self.term = nodes[-1] if nodes and (<PlanNode>nodes[-1]).role == "term" else None
        body = nodes[:-1] if self.term is not None else nodes
        self.local = {}                 # value -> producing node of this block
        self.producer = {}
        self.constants = []             # dense constants: read from memory, like arguments
        for n in body:
            if n.name == "tensor.constant" and dense_constant(n.op):
                self.constants.append(n)
                continue
            o = OP(c, n.oid)
            for i in range(o.n_results):
                self.local[value_handle(c, o.results + i)] = n
                self.producer[o.results + i] = n
        self.chains = None              # value -> _chain, once the roles are final
        self._materialize(body)
        self.chains = {}
        candidates = [n for n in body if n.role != "cheap"]
        for n in candidates + ([self.term] if self.term is not None else []):
            n.describe()
            n.access = self._accesses(n)
            n.producers = tuple([(a[1], a[3]) for a in n.access if a[1] is not None])
            n.reads_across = any((<PlanNode>x).moves_inner for a in n.access for x in a[2])
        live = self._live(candidates)
        self.planned = [n for n in candidates if n in live]
        self.dead = [n for n in candidates if n not in live]
        dense = set(self.constants)
        self.cheap = [n for n in body if n.role == "cheap" and n not in dense]
        readers_of = self.value_readers = {}    # value -> planned nodes reading it
        for n in self.planned + ([self.term] if self.term is not None else []):
            for a in n.access:
                src, q = a[0], a[1]
                if n is not self.term:
                    lst = readers_of.get(src)
                    if lst is None:
                        lst = readers_of[src] = []
                    if n not in lst:
                        lst.append(n)
                if q is not None and n not in (<PlanNode>q).readers:
                    (<PlanNode>q).readers.append(n)
        terminal = {a[0] for a in self.term.access} if self.term else set()
        captured = self.captured
        for n in self.planned:          # (result, its reader nodes, read by the terminator
            o = OP(c, n.oid)            # or a nested region)
            results = []
            for i in range(o.n_results):
                r = value_handle(c, o.results + i)
                results.append((r, readers_of.get(r, ()), r in terminal or r in captured))
            n.results = results
        self._maps = {}
        self._linears = {}              # ids of a chain's maps -> _pull_back
        self.rules = {}                 # (node, reduction space) -> the judges' rules

    cdef tuple _chain(self, int32_t value):
        """(source value or None for a pure generator, copied nodes from the reader outward);
        memoized per value once roles are final (`self.chains`)."""
        cdef Context c = self.c
        cdef PlanNode n
        cdef OpRec* o
        cdef int32_t v = value
        memo = self.chains
        if memo is not None:
            found = memo.get(value)
            if found is not None:
                return found
        chain = []
        while True:
            if v < 0:                   # a null operand (no verified IR has one)
                found = None, chain
                break
            n = self.producer.get(v)
            if n is None or n.role != "cheap":
                found = value_handle(c, v), chain
                break
            chain.append(n)
            o = OP(c, n.oid)
            if not o.n_operands:
                found = None, chain
                break
            v = USE(c, o.operands).value
        if memo is not None:
            memo[value] = found
        return found

    cdef _materialize(self, list body):
        """Element-moving ops whose value must exist in memory become planned ops: operands of
        iterate and kernel_call, terminator operands, captured values, and a transpose that
        would make a reduce or scan read across the innermost dim."""
        cdef Context c = self.c
        cdef PlanNode n, x
        cdef OpRec* o
        cdef int32_t i
        for n in body:
            if n.role in ("reduce", "scan") or n.role == "alone" and n.name != "tensor.attention":
                o = OP(c, n.oid)
                for i in range(o.n_operands):
                    chain = self._chain(USE(c, o.operands + i).value)[1]
                    if n.role == "alone":
                        if chain:
                            (<PlanNode>chain[0]).role = "shape"
                        continue
                    for x in chain:
                        if x.moves_inner:
                            x.role = "shape"
                            break
        self.captured = set()           # values that nested regions of this block read
        for n in body:
            n.captures = _captures(c, n.oid)
            if n.name != "tensor.attention":    # its score ops read like its operands
                self.captured.update(n.captures)
        wanted = list(self.term.op.operands) if self.term is not None else []
        for v in list(self.captured) + wanted:
            x = self.local.get(v)
            if x is not None and x.role == "cheap":
                x.role = "shape"

    cdef list _accesses(self, PlanNode n):
        cdef Context c = self.c
        cdef OpRec* o = OP(c, n.oid)
        cdef int32_t i
        reads = [(i, USE(c, o.operands + i).value) for i in range(o.n_operands)]
        captured = n.captures
        if n.name == "tensor.attention":    # a raised one's score ops read between k and v,
            reads[2:2] = [(-1, (<Value>v).id if v is not None else -1)    # through moves
                          for v in captured]
            captured = ()
        out = []
        for i, v in reads:
            src, chain = self._chain(v)
            out.append((src, self.local.get(src) if src is not None else None, chain, i))
        for v in captured:
            out.append((v, self.local.get(v), [], -1))
        return out

    cdef set _live(self, list candidates):
        """Nodes whose results something reads, transitively from the terminator (impure ops
        and ops whose values nested regions capture always count)."""
        cdef Context c = self.c
        cdef PlanNode n
        needed = set()
        if self.term is not None:
            needed |= {a[1] for a in self.term.access if a[1] is not None}
        for n in reversed(candidates):
            if n in needed or not c.names[OP(c, n.oid).name].traits & T_PURE or \
                    _read_in_regions(self, n.op):
                needed.add(n)
                needed |= {a[1] for a in n.access if a[1] is not None}
        return needed

    def reads_linear(self, n, index, expected):
        """Whether operand `index` of `n`, through its copied chain, reads its source at linear
        (row-major) position `expected . o` for every index `o` of `n` (cached)."""
        key = (n, index, expected)
        found = self._maps.get(key)
        if found is None:
            lin = self._linear(n, index)
            want = [0 if d == 1 else c for c, d in zip(expected, lin[0])] if lin else None
            found = self._maps[key] = lin is not None and lin[1] == 0 and lin[2] == want
        return found

    def _linear(self, n, index):
        """(reader shape, offset, coefficients): the source's row-major position as an affine
        function of `n`'s index, pulled back through the chain's maps; None where a map is not
        a plain affine map (guards, divisions, general reshapes)."""
        src, _, chain, _ = n.access[index]
        if src is None or not hasattr(src.type, "shape"):
            return None
        maps = [self.layout.index_map(x.op, 0) for x in reversed(chain)]
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


cdef object _shape(Context c, int32_t value):
    """The shape of `value`'s type, () for a null value or a type without one."""
    if value < 0 or VAL(c, value).type < 0:
        return ()
    return getattr(c.types[VAL(c, value).type], "shape", ())


cdef bint _read_in_regions(PlanGraph g, op):
    return any(r in g.captured for r in op.results)


cdef list _captures(Context c, int32_t op):
    """Values that ops nested in `op`'s regions read from outside `op`, in first-use order."""
    cdef OpRec* o = OP(c, op)
    cdef OpRec* x
    cdef int32_t cur, r, b, i, v
    if not o.n_regions:
        return []
    inside, found, nested = set(), [], []
    cur = walk_next(c, op, op, False)
    while cur >= 0:
        nested.append(cur)
        x = OP(c, cur)
        for i in range(x.n_results):
            inside.add(x.results + i)
        cur = walk_next(c, op, cur, False)
    for cur in [op] + nested:
        x = OP(c, cur)
        for r in range(x.regions, x.regions + x.n_regions):
            b = REG(c, r).first_block
            while b >= 0:
                for i in range(BLK(c, b).n_args):
                    inside.add(ARGS(c, BLK(c, b).args)[i])
                b = BLK(c, b).next
    for cur in nested:
        x = OP(c, cur)
        for i in range(x.n_operands):
            v = USE(c, x.operands + i).value
            if v not in inside and v not in found:
                found.append(v)
    return [value_handle(c, v) if v >= 0 else None for v in found]
