# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The greedy pattern rewrite driver, its `PatternRewriter`, and dead-code elimination.

The driver keeps a worklist of ops (id + generation, so an erased op is skipped) seeded with every
op below the root in pre-order, and for each op: erases it when trivially dead (pure, not a
terminator, no result used), puts constant operands of a commutative binary op on the right,
calls the op's fold, then its patterns by benefit. Changes made through the rewriter put the ops
they affect back on the worklist. Sweeps repeat until one changes nothing or `max_iterations`
sweeps ran; ops with no fold and no pattern never leave C.
"""
from cpython.mem cimport PyMem_Realloc, PyMem_Free
from libc.string cimport memset
from libc.stdint cimport int32_t, uint32_t, uint64_t
cimport cython

from accy.errors import AccyError
from accy._core import registry as _registry
from accy._core.context import Builder
from accy._core.context cimport (Context, Operation, Value, OpRec, VALUE_RESULT, OP, VAL, USE,
                                 op_handle, erase_op, replace_all_uses, set_operand, walk_first,
                                 walk_next)

cdef uint32_t T_PURE = _registry.PURE
cdef uint32_t T_TERMINATOR = _registry.TERMINATOR
cdef uint32_t T_COMMUTATIVE = _registry.COMMUTATIVE
cdef uint32_t T_CONSTANT = _registry.CONSTANT


class RewriteError(AccyError):
    """A pattern or fold broke the driver's contract (e.g. changed the IR but said it did not)."""


cdef inline bint trivially_dead(Context c, int32_t op) noexcept:
    """Pure, not a terminator, and no result has a use."""
    cdef OpRec* o = OP(c, op)
    cdef uint32_t traits = c.names[o.name].traits
    cdef int32_t i
    if not (traits & T_PURE) or traits & T_TERMINATOR:
        return False
    for i in range(o.n_results):
        if VAL(c, o.results + i).first_use >= 0:
            return False
    return True


cdef inline int32_t defining_op(Context c, int32_t v) noexcept:
    if v < 0 or VAL(c, v).kind != VALUE_RESULT:
        return -1
    return VAL(c, v).owner


cdef inline bint is_constant(Context c, int32_t v) noexcept:
    cdef int32_t d = defining_op(c, v)
    return d >= 0 and (c.names[OP(c, d).name].traits & T_CONSTANT) != 0


@cython.final
@cython.auto_pickle(False)
cdef class PatternRewriter:
    """Patterns change the IR through this object, so that the driver revisits what changed.

    New ops are inserted before the op being rewritten. Changes made through the op API directly
    are still correct, but are only seen by the driver's next sweep.
    """
    cdef Context c
    cdef int32_t* work
    cdef uint32_t* work_gen
    cdef Py_ssize_t n_work, cap_work
    cdef readonly Operation root
    cdef object builder
    cdef int32_t current            # the op being rewritten; new ops go before it
    cdef uint32_t current_gen
    cdef dict constant_ops
    cdef readonly Py_ssize_t erased, folded, rewritten, created

    def __cinit__(self, Operation root not None):
        self.c = root.context
        self.root = root
        self.builder = Builder(self.c)
        self.constant_ops = {}
        self.current = -1

    def __dealloc__(self):
        PyMem_Free(self.work)
        PyMem_Free(self.work_gen)

    cdef int push(self, int32_t op) except -1:
        cdef Py_ssize_t n
        if self.n_work == self.cap_work:
            n = max(256, self.cap_work * 2)
            w = <int32_t*>PyMem_Realloc(self.work, n * sizeof(int32_t))
            if not w:
                raise MemoryError()
            self.work = w
            g = <uint32_t*>PyMem_Realloc(self.work_gen, n * sizeof(uint32_t))
            if not g:
                raise MemoryError()
            self.work_gen = g
            self.cap_work = n
        self.work[self.n_work] = op
        self.work_gen[self.n_work] = OP(self.c, op).gen
        self.n_work += 1
        return 0

    cdef int seed(self, int32_t root, bint preorder) except -1:
        """Fill the worklist with every op below `root`, to be popped in pre-order (or in
        reverse pre-order: the worklist is a stack)."""
        cdef int32_t op = walk_first(self.c, root, False), i, n
        self.n_work = 0
        while op >= 0:
            if op != root:
                self.push(op)
            op = walk_next(self.c, root, op, False)
        if preorder:
            n = self.n_work
            for i in range(n // 2):
                self.work[i], self.work[n - 1 - i] = self.work[n - 1 - i], self.work[i]
                self.work_gen[i], self.work_gen[n - 1 - i] = (self.work_gen[n - 1 - i],
                                                              self.work_gen[i])
        return 0

    cdef int32_t pop(self) noexcept:
        """The next op of the worklist still alive and in the IR, or -1 when none is left."""
        cdef int32_t op
        cdef OpRec* o
        while self.n_work:
            self.n_work -= 1
            op = self.work[self.n_work]
            o = OP(self.c, op)
            if o.name >= 0 and o.gen == self.work_gen[self.n_work] and o.block >= 0:
                return op
        return -1

    cdef int push_users(self, int32_t v) except -1:
        cdef int32_t u = VAL(self.c, v).first_use
        while u >= 0:
            self.push(USE(self.c, u).owner)
            u = USE(self.c, u).next
        return 0

    cdef int push_result_users(self, int32_t op) except -1:
        cdef int32_t i
        for i in range(OP(self.c, op).n_results):
            self.push_users(OP(self.c, op).results + i)
        return 0

    cdef int erase(self, int32_t op) except -1:
        """Erase `op` (its results must be unused) and revisit the ops defining its operands."""
        cdef Context c = self.c
        cdef int32_t i, d
        for i in range(OP(c, op).n_operands):      # they outlive `op`: queue them first
            d = defining_op(c, USE(c, OP(c, op).operands + i).value)
            if d >= 0 and d != op:
                self.push(d)
        erase_op(c, op, False)
        self.erased += 1
        return 0

    cdef void at(self, int32_t op) noexcept:
        self.current, self.current_gen = op, OP(self.c, op).gen

    cdef int check_current(self) except -1:
        if self.current < 0:
            raise RewriteError("the rewriter is not at an op (outside the driver, it only edits)")
        if OP(self.c, self.current).name < 0 or OP(self.c, self.current).gen != self.current_gen:
            raise RewriteError("the op being rewritten was erased: create new ops before "
                               "erasing or replacing it")
        return 0

    cdef int32_t oid(self, Operation op) except -1:
        if op.context is not self.c:
            raise RewriteError(f"expected an op of the IR being rewritten, got {op!r}")
        return op.check()

    cdef int32_t vid(self, value) except -1:
        if not isinstance(value, Value) or (<Value>value).context is not self.c:
            raise RewriteError(f"expected a Value of the IR being rewritten, got {value!r}")
        return (<Value>value).check()

    # ---- the API patterns use ----------------------------------------------------------------

    def create(self, str name, operands=(), result_types=None, attributes=None, regions=None):
        """Create an op before the op being rewritten."""
        self.check_current()
        self.builder.before_op(op_handle(self.c, self.current))
        op = self.builder.create(name, operands, result_types, attributes, regions)
        self.push((<Operation>op).check())
        self.created += 1
        return op

    def constant(self, value, type):
        """Materialize attribute `value` of `type` with the CONSTANT op of the dialect of the op
        being rewritten; returns its result."""
        self.check_current()
        return self.materialize(self.c.op_names[OP(self.c, self.current).name].split(".", 1)[0],
                                value, type)

    cdef object materialize(self, str dialect, value, type):
        name = self.constant_ops.get(dialect)
        if name is None:
            name = _registry.constant_op(dialect)
            if name is None:
                raise RewriteError(f"a fold produced an attribute, but dialect '{dialect}' has "
                                   f"no CONSTANT op to hold it")
            self.constant_ops[dialect] = name
        return self.create(name, (), (type,), {"value": value}).result

    def replace_op(self, Operation op not None, values):
        """Replace every result of `op` by the matching value in `values`, then erase `op`."""
        cdef int32_t o = self.oid(op), i
        values = tuple(values)
        if len(values) != OP(self.c, o).n_results:
            raise RewriteError(f"replace_op: '{op.name}' has {OP(self.c, o).n_results} results, "
                               f"got {len(values)} replacements")
        for i in range(len(values)):
            self.replace_value(OP(self.c, o).results + i, self.vid(values[i]))
        self.erase(o)

    def replace_op_with(self, Operation op not None, str name, operands=(), result_types=None,
                        attributes=None):
        """Create op `name` (result types default to `op`'s) and replace `op` by it."""
        if result_types is None:
            result_types = op.result_types
        new = self.create(name, operands, result_types, attributes)
        self.replace_op(op, new.results)
        return new

    def erase_op(self, Operation op not None):
        """Erase `op`; its results must have no uses left."""
        self.erase(self.oid(op))

    def replace_all_uses_with(self, Value old not None, new):
        self.replace_value(self.vid(old), self.vid(new))

    cdef int replace_value(self, int32_t old, int32_t new) except -1:
        cdef int32_t d
        if old == new:
            return 0
        self.push_users(old)
        replace_all_uses(self.c, old, new)
        d = defining_op(self.c, new)
        if d >= 0:
            self.push(d)
        return 0

    def set_operand(self, Operation op not None, int index, value):
        cdef int32_t o = self.oid(op)
        if not 0 <= index < OP(self.c, o).n_operands:
            raise IndexError(f"operand index {index} out of range")
        old = defining_op(self.c, USE(self.c, OP(self.c, o).operands + index).value)
        set_operand(self.c, o, index, self.vid(value))
        if old >= 0:
            self.push(old)
        self.push(o)

    def set_attribute(self, Operation op not None, str name, value):
        cdef int32_t o = self.oid(op)
        op.set_attribute(name, value)
        self.push(o)
        self.push_result_users(o)

    def notify_changed(self, Operation op not None):
        """Tell the driver that `op` was changed in place through the op API."""
        cdef int32_t o = self.oid(op)
        self.push(o)
        self.push_result_users(o)


cdef class _Handlers:
    """What the driver may call for one op name: its fold and its patterns, best first."""
    cdef object fold
    cdef bint constants_only        # call the fold only if an operand is a constant or repeats
    cdef tuple patterns


cdef object handlers_for(Context c, int32_t nid, dict extra, bint fold):
    row = c.op_defs[nid]
    pats = list(row.canonicalize) if row is not None else []
    pats.extend(extra.get(c.op_names[nid], ()))
    pats.extend(extra.get(None, ()))
    pats.sort(key=lambda p: -getattr(p, "benefit", 1))        # stable: ties keep their order
    cdef _Handlers h = _Handlers()
    h.fold = row.fold if fold and row is not None else None
    h.constants_only = getattr(h.fold, "constants_only", False)
    h.patterns = tuple(pats)
    return h if (h.fold is not None or h.patterns) else None


cdef bint fold_may_apply(Context c, OpRec* o) noexcept:
    """Some operand is defined by a constant, or two operands are the same value."""
    cdef int32_t i, j, v
    for i in range(o.n_operands):
        v = USE(c, o.operands + i).value
        if is_constant(c, v):
            return True
        for j in range(i):
            if USE(c, o.operands + j).value == v:
                return True
    return False


cdef bint unchanged_since(Context c, OpRec* o, uint64_t when) noexcept:
    """Neither the op nor an op defining one of its operands changed after clock `when`."""
    cdef int32_t i, d
    if o.epoch > when:
        return False
    for i in range(o.n_operands):
        d = defining_op(c, USE(c, o.operands + i).value)
        if d >= 0 and OP(c, d).epoch > when:
            return False
    return True


def apply_patterns_greedily(Operation root not None, patterns=(), *, bint fold=True,
                            int max_iterations=10, Py_ssize_t max_rewrites=-1):
    """Rewrite the ops below `root` to a fixed point with the ops' folds, their `canonicalize`
    patterns and `patterns` (callables `fn(op, rewriter) -> bool` with an optional `root` op
    name, None for any op, and `benefit`). Returns a dict: changed, converged, iterations,
    erased, folded, rewritten, created.

    A sweep stops after `max_rewrites` changes (default: 16 per op it started with, plus 1024),
    so that patterns that undo each other end as "not converged" instead of running forever.

    A fold depends only on its op and the constants defining its operands, so after the first
    sweep an op with no patterns is only folded again if it or one of those ops changed.
    """
    cdef Context c = root.context
    cdef int32_t r = root.check(), op, nid, i, n, lhs, rhs
    cdef PatternRewriter rw = PatternRewriter(root)
    cdef dict extra = {}
    for p in patterns:
        extra.setdefault(getattr(p, "root", None), []).append(p)
    cdef list table = []                # name id -> _Handlers, None (nothing), or unset
    cdef _Handlers h
    cdef OpRec* o
    cdef uint64_t clock
    cdef uint64_t* seen = NULL          # op id -> clock after it was last folded (0: never)
    cdef uint64_t* grown
    cdef Py_ssize_t seen_cap = 0
    cdef bint changed = False, sweep_changed = True, stopped = False
    cdef int iterations = 0
    cdef Py_ssize_t changes, limit, pops, max_pops
    unset = object()
    try:
        while sweep_changed and iterations < max_iterations:
            iterations += 1
            sweep_changed = False
            rw.seed(r, True)
            limit = max_rewrites if max_rewrites >= 0 else 16 * rw.n_work + 1024
            max_pops = 4 * limit + rw.n_work    # requeues without changes must end too
            changes = pops = 0
            while True:
                if (changes >= limit or pops >= max_pops) and rw.n_work:
                    stopped = True
                    break
                op = rw.pop()
                pops += 1
                if op < 0:
                    break
                o = OP(c, op)
                if trivially_dead(c, op):
                    rw.erase(op)
                    sweep_changed = True
                    changes += 1
                    continue
                if o.n_operands == 2 and c.names[o.name].traits & T_COMMUTATIVE:
                    lhs, rhs = USE(c, o.operands).value, USE(c, o.operands + 1).value
                    if is_constant(c, lhs) and not is_constant(c, rhs):
                        set_operand(c, op, 0, rhs)
                        set_operand(c, op, 1, lhs)
                        sweep_changed = True
                        changes += 1
                nid = o.name
                while len(table) <= nid:
                    table.append(unset)
                hobj = table[nid]
                if hobj is unset:
                    hobj = table[nid] = handlers_for(c, nid, extra, fold)
                    o = OP(c, op)               # Python ran: the records may have moved
                if hobj is None:
                    continue
                h = <_Handlers>hobj
                if not h.patterns and iterations > 1 and op < seen_cap and \
                        unchanged_since(c, o, seen[op]):
                    continue
                handle = None
                if h.fold is not None and (not h.constants_only or fold_may_apply(c, o)):
                    handle = op_handle(c, op)
                    rw.at(op)
                    if try_fold(c, rw, op, handle, h.fold):
                        sweep_changed = True
                        changes += 1
                        continue
                if not h.patterns:
                    if op >= seen_cap:
                        n = max(c.ops.top, 2 * seen_cap)
                        grown = <uint64_t*>PyMem_Realloc(seen, n * sizeof(uint64_t))
                        if not grown:
                            raise MemoryError()
                        memset(grown + seen_cap, 0, (n - seen_cap) * sizeof(uint64_t))
                        seen, seen_cap = grown, n
                    seen[op] = c.clock
                    continue
                if handle is None:
                    handle = op_handle(c, op)
                    rw.at(op)
                for p in h.patterns:
                    clock = c.clock
                    done = p(handle, rw)
                    if done and c.clock == clock:
                        raise RewriteError(f"pattern {_name(p)} reported a change on "
                                           f"'{c.op_names[nid]}' but changed nothing")
                    if not done and c.clock != clock:
                        raise RewriteError(f"pattern {_name(p)} changed the IR of "
                                           f"'{c.op_names[nid]}' but reported no change")
                    if done:
                        rw.rewritten += 1
                        sweep_changed = True
                        changes += 1
                        break
            changed = changed or sweep_changed
            if stopped:
                break
    finally:
        PyMem_Free(seen)
    return {"changed": changed, "converged": not (sweep_changed or stopped),
            "iterations": iterations,
            "erased": rw.erased, "folded": rw.folded, "rewritten": rw.rewritten,
            "created": rw.created}


cdef bint try_fold(Context c, PatternRewriter rw, int32_t op, Operation handle, fold) except -1:
    cdef OpRec* o = OP(c, op)
    cdef int32_t i, d
    consts = []
    for i in range(o.n_operands):
        d = defining_op(c, USE(c, o.operands + i).value)
        if d >= 0 and c.names[OP(c, d).name].traits & T_CONSTANT:
            attrs = c.op_attrs.get(d)
            consts.append(attrs.get("value") if attrs else None)
        else:
            consts.append(None)
    cdef uint64_t clock = c.clock
    result = fold(handle, tuple(consts))
    if c.clock != clock:
        raise RewriteError(f"the fold of '{handle.name}' changed the IR; folds return "
                           f"replacements and leave the IR alone")
    if result is None:
        return False
    result = tuple(result)
    o = OP(c, op)
    if len(result) != o.n_results:
        raise RewriteError(f"the fold of '{handle.name}' returned {len(result)} replacements "
                           f"for {o.n_results} results")
    cdef int32_t v, r
    for i in range(len(result)):
        if isinstance(result[i], Value):
            v, r = rw.vid(result[i]), OP(c, op).results + i
            if v == r:
                raise RewriteError(f"the fold of '{handle.name}' returned the op's own result "
                                   f"#{i}; return None when nothing folds")
            if VAL(c, v).type != VAL(c, r).type:
                raise RewriteError(f"the fold of '{handle.name}' replaces result #{i} of type "
                                   f"{c.types[VAL(c, r).type]} by a value of type "
                                   f"{c.types[VAL(c, v).type]}")
    dialect = handle.name.split(".", 1)[0]
    values = []
    for i in range(len(result)):
        x = result[i]
        if isinstance(x, Value):
            values.append(x)
        else:
            values.append(rw.materialize(dialect, x, c.types[VAL(c, OP(c, op).results + i).type]))
    for i in range(len(values)):
        rw.replace_value(OP(c, op).results + i, rw.vid(values[i]))
    rw.erase(op)
    rw.erased -= 1                      # counted as folded, not as erased
    rw.folded += 1
    return True


cdef str _name(p):
    return f"'{getattr(p, 'name', None) or getattr(p, '__name__', None) or type(p).__name__}'"


def eliminate_dead_code(Operation root not None):
    """Erase every op below `root` that is trivially dead, to a fixed point: a block is swept
    from its last op to its first (users before the values they use), and an op whose operand
    became unused puts that operand's defining op back on the worklist. Returns the count."""
    cdef Context c = root.context
    cdef int32_t r = root.check(), op
    cdef PatternRewriter rw = PatternRewriter(root)
    rw.seed(r, False)                   # popped in reverse pre-order: users first
    op = rw.pop()
    while op >= 0:
        if trivially_dead(c, op):
            rw.erase(op)
        op = rw.pop()
    return rw.erased
