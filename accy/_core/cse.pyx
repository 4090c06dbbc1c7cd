# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Common subexpression elimination over scoped hash tables.

Two ops are equal when they have the same name, operands, result types and attributes. A pure
op (not a terminator, no regions, at least one result) equal to one seen earlier in its block or
in an enclosing block before it is replaced by that one and erased. Entering a block opens a
scope (its entries leave with it); an op isolated from above (or unregistered, which may be)
starts from an empty table. Blocks are kept on an explicit stack, so nesting depth is no limit.
"""
from libc.stdint cimport int32_t, uint32_t, uint64_t
cimport cython

from accy._core import registry as _registry
from accy._core.attributes import attribute_key
from accy._core.idtable cimport IdTable, idtable_init, idtable_free, idtable_put, idtable_remove
from accy._core.context cimport (Context, Operation, OpRec, OP, REG, BLK, USE, VAL, erase_op,
                                 replace_all_uses)

cdef uint32_t T_PURE = _registry.PURE
cdef uint32_t T_TERMINATOR = _registry.TERMINATOR
cdef uint32_t T_ISOLATED = _registry.ISOLATED_FROM_ABOVE


cdef inline uint64_t step(uint64_t h, uint64_t x) noexcept:
    h = (h ^ x) * <uint64_t>0x100000001B3
    return h ^ (h >> 29)


@cython.final
cdef class _Table:
    """A scope chain's table: equal-op candidates by hash."""
    cdef IdTable t

    def __cinit__(self):
        idtable_init(&self.t, 64)

    def __dealloc__(self):
        idtable_free(&self.t)


cdef uint64_t op_hash(Context c, int32_t op, object attrs) except? 0:
    cdef OpRec* o = OP(c, op)
    cdef uint64_t h = <uint64_t>0xCBF29CE484222325
    cdef int32_t i
    h = step(h, <uint32_t>o.name)
    for i in range(o.n_operands):
        h = step(h, <uint32_t>USE(c, o.operands + i).value)
    for i in range(o.n_results):
        h = step(h, <uint32_t>VAL(c, o.results + i).type)
    if attrs is not None:
        h = step(h, <uint64_t>hash(strict_attributes(attrs)))
    return h


cdef frozenset strict_attributes(object attrs):      # a dict or a PropertyDict
    return frozenset((k, attribute_key(v)) for k, v in attrs.items())


cdef bint same(Context c, int32_t a, int32_t b) except -1:
    cdef OpRec* x = OP(c, a)
    cdef OpRec* y = OP(c, b)
    cdef int32_t i
    if x.name != y.name or x.n_operands != y.n_operands or x.n_results != y.n_results:
        return False
    for i in range(x.n_operands):
        if USE(c, x.operands + i).value != USE(c, y.operands + i).value:
            return False
    for i in range(x.n_results):
        if VAL(c, x.results + i).type != VAL(c, y.results + i).type:
            return False
    ax, bx = c.op_attrs.get(a), c.op_attrs.get(b)
    if ax is None or bx is None:
        return ax is bx
    return ax is bx or strict_attributes(ax) == strict_attributes(bx)


@cython.final
cdef class _Frame:
    """A block being processed: where it is, its table, and what it put in the table."""
    cdef int32_t next_op
    cdef _Table table
    cdef list scope             # (op, hash) inserted by this block, removed when it is done


cdef class _Cse:
    cdef Context c
    cdef Py_ssize_t erased
    cdef list frames            # innermost block last: an explicit stack, so depth is no limit

    cdef int enter_regions(self, int32_t op, _Table table) except -1:
        """Queue the blocks of `op`'s regions, first block on top. An op isolated from above
        (or unregistered, so possibly isolated) gives its regions an empty table."""
        cdef Context c = self.c
        cdef OpRec* o = OP(c, op)
        cdef int32_t k, b
        cdef _Frame f
        if o.n_regions == 0:
            return 0
        if c.names[o.name].traits & T_ISOLATED or not c.names[o.name].registered:
            table = _Table()
        for k in range(o.n_regions - 1, -1, -1):
            b = REG(c, OP(c, op).regions + k).last_block
            while b >= 0:
                f = _Frame()
                f.next_op, f.table, f.scope = BLK(c, b).first_op, table, []
                self.frames.append(f)
                b = BLK(c, b).prev
        return 0

    cdef int run(self, int32_t root) except -1:
        cdef Context c = self.c
        cdef _Frame f
        cdef _Table table
        cdef int32_t op, i, found
        cdef OpRec* o
        cdef uint32_t traits
        cdef uint64_t h
        cdef Py_ssize_t s
        self.enter_regions(root, _Table())
        while self.frames:
            f = <_Frame>self.frames[len(self.frames) - 1]
            op = f.next_op
            if op < 0:                  # the block is done: its entries leave the table
                for i in range(len(f.scope) - 1, -1, -1):
                    op, h = f.scope[i]
                    idtable_remove(&f.table.t, op, h)
                self.frames.pop(len(self.frames) - 1)
                continue
            f.next_op = OP(c, op).next
            if OP(c, op).n_regions:
                self.enter_regions(op, f.table)  # not a candidate itself
                continue
            o = OP(c, op)
            traits = c.names[o.name].traits
            if not (traits & T_PURE) or traits & T_TERMINATOR or o.n_results == 0:
                continue
            table = f.table
            h = op_hash(c, op, c.op_attrs.get(op))
            s = h & table.t.mask
            found = -1
            while table.t.slots[s] >= 0:
                if table.t.hashes[s] == h and same(c, table.t.slots[s], op):
                    found = table.t.slots[s]
                    break
                s = (s + 1) & table.t.mask
            if found >= 0:
                for i in range(OP(c, op).n_results):
                    replace_all_uses(c, OP(c, op).results + i, OP(c, found).results + i)
                erase_op(c, op, False)
                self.erased += 1
            else:
                idtable_put(&table.t, op, h)
                f.scope.append((op, h))
        return 0


def eliminate_common_subexpressions(Operation root not None):
    """CSE below `root` (see the module docstring); returns the number of ops erased."""
    cdef _Cse cse = _Cse()
    cse.c = root.context
    cse.frames = []
    cse.run(root.check())
    return cse.erased
