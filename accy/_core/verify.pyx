# cython: language_level=3, boundscheck=False, cdivision=True
"""The verifier: structural rules checked at C speed, then each registered op's own checks.

Core rules (each raises VerifyError naming and printing the op):
  V1 the op is registered, or its Context allows unregistered ops
  V2 operand, result and region counts fit the registry row
  V3 every operand holds a live value (not null, not an unresolved forward reference)
  V4 use lists agree with operands (each operand slot is linked in its value's use list)
  V5 every operand is dominated by its definition: earlier in the same block, an argument of an
     enclosing block, defined in the entry block of the same region, or in an enclosing block
     before the ancestor op; never across an isolated-from-above op. Blocks of graph regions
     (the graph_region trait, and unregistered ops, as MLIR assumes) impose no order.
  V6 terminators end their block; blocks of registered ops that need one end with a terminator
  V7 single_block regions hold at most one block
  V8 same_operands_and_result_type ops have one type for all operands and results
  V9 attribute schema (required names present, values of the accepted kinds), inferred result
     types equal the declared ones, and the row's own verify function
"""
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport int32_t, uint32_t
from accy._core.context cimport (
    Context, Operation, OpRec, UseRec, ValueRec, NameRec, OP, USE, VAL, BLK, REG,
    VALUE_RESULT, VALUE_ARGUMENT, walk_next, parent_op, op_handle,
)
from accy._core import registry as R
from accy.errors import VerifyError

cdef uint32_t T_TERMINATOR = R.TERMINATOR
cdef uint32_t T_NO_TERMINATOR = R.NO_TERMINATOR
cdef uint32_t T_ISOLATED = R.ISOLATED_FROM_ABOVE
cdef uint32_t T_SINGLE_BLOCK = R.SINGLE_BLOCK
cdef uint32_t T_SAME_TYPE = R.SAME_OPERANDS_AND_RESULT_TYPE
cdef uint32_t T_GRAPH_REGION = R.GRAPH_REGION


def _op_text(Operation op):
    text = op.print()
    if len(text) > 400:
        text = text[:400] + " ..."
    return text.rstrip("\n")


cdef int fail(Context c, int32_t op, str message) except -1:
    h = op_handle(c, op)
    raise VerifyError(f"'{h.name}' {message}", _op_text(h))


cdef str arity_text(int32_t lo, int32_t hi):
    if hi < 0:
        return f"at least {lo}"
    if lo == hi:
        return str(lo)
    return f"{lo} to {hi}"


cdef int check_dominance(Context c, int32_t root, int32_t op, int32_t i, int32_t v,
                         int32_t* order) except -1:
    """V5: climb from the user to the block holding the definition."""
    cdef ValueRec* val = VAL(c, v)
    cdef int32_t def_block, def_op = -1, a = op, p, blk, x, isolated = -1
    cdef bint outside = op == root   # `a` is the root or above it: `order` does not cover it
    if val.kind == VALUE_RESULT:
        def_op = val.owner
        def_block = OP(c, def_op).block
        if def_block < 0:
            return fail(c, op, f"operand #{i} is a result of a detached or enclosing op "
                               f"(it does not dominate this use)")
    else:
        def_block = val.owner
    while True:
        blk = OP(c, a).block
        if blk == def_block:
            break
        if blk >= 0 and BLK(c, blk).region >= 0 and BLK(c, blk).region == BLK(c, def_block).region:
            if REG(c, BLK(c, def_block).region).first_block == def_block:
                break           # the entry block dominates every block of its region
            return fail(c, op, f"operand #{i} is defined in another block that does not "
                               f"dominate this one")
        p = parent_op(c, a)
        if p < 0:
            return fail(c, op, f"operand #{i} is defined in a region that does not enclose "
                               f"this use (its definition does not dominate it)")
        if isolated < 0 and c.names[OP(c, p).name].traits & T_ISOLATED:
            isolated = p
        if a == root:
            outside = True
        a = p
        if a == root:
            outside = True
    if isolated >= 0:
        return fail(c, op, f"operand #{i} is defined above '{c.op_names[OP(c, isolated).name]}', "
                           f"which is isolated from above")
    if def_op < 0 or blk != def_block or in_graph_region(c, def_block):
        return 0
    if outside:
        x = OP(c, def_op).next
        while x >= 0 and x != a:
            x = OP(c, x).next
        ok = x == a
    else:
        ok = order[def_op] < order[a]
    if not ok:
        return fail(c, op, f"operand #{i} is used before it is defined "
                           f"(its definition does not dominate this use)")
    return 0


cdef bint in_graph_region(Context c, int32_t block) noexcept:
    """Blocks of graph regions (and of unregistered ops, which may be graphs, as in MLIR) impose
    no order on their ops."""
    cdef int32_t r = BLK(c, block).region
    if r < 0:
        return False
    cdef NameRec* row = c.names + OP(c, REG(c, r).op).name
    return not row.registered or row.traits & T_GRAPH_REGION != 0


cdef int check_op(Context c, int32_t root, int32_t op, int32_t* order) except -1:
    cdef OpRec* o = OP(c, op)
    cdef NameRec* row = c.names + o.name
    cdef int32_t i, u, v, r, b, nblocks, last, t0
    cdef UseRec* use
    if not row.registered and not c.allow_unregistered:                          # V1
        return fail(c, op, "is not registered and this Context does not allow it")
    if row.registered:                                                           # V2
        if o.n_operands < row.min_operands or (row.max_operands >= 0 and
                                               o.n_operands > row.max_operands):
            return fail(c, op, f"expects {arity_text(row.min_operands, row.max_operands)} "
                               f"operands, got {o.n_operands}")
        if o.n_results < row.min_results or (row.max_results >= 0 and
                                             o.n_results > row.max_results):
            return fail(c, op, f"expects {arity_text(row.min_results, row.max_results)} "
                               f"results, got {o.n_results}")
        if row.regions >= 0 and o.n_regions != row.regions:
            return fail(c, op, f"expects {row.regions} regions, got {o.n_regions}")
    for i in range(o.n_operands):
        u = o.operands + i
        use = USE(c, u)
        v = use.value
        if v < 0:                                                                # V3
            return fail(c, op, f"operand #{i} is null")
        if VAL(c, v).kind != VALUE_RESULT and VAL(c, v).kind != VALUE_ARGUMENT:
            return fail(c, op, f"operand #{i} is not a live value")
        if use.owner != op or (use.prev >= 0 and (USE(c, use.prev).next != u or   # V4
                                                  USE(c, use.prev).value != v)) or \
                (use.prev < 0 and VAL(c, v).first_use != u) or \
                (use.next >= 0 and USE(c, use.next).prev != u):
            return fail(c, op, f"operand #{i} is not linked in its value's use list")
        check_dominance(c, root, op, i, v, order)                                      # V5
    if row.registered and row.traits & T_TERMINATOR and o.next >= 0:              # V6
        return fail(c, op, "is a terminator but is not the last op of its block")
    for r in range(o.regions, o.regions + o.n_regions):
        nblocks = 0
        b = REG(c, r).first_block
        while b >= 0:
            nblocks += 1
            if row.registered and not row.traits & T_NO_TERMINATOR:
                last = BLK(c, b).last_op
                if last < 0 or not c.names[OP(c, last).name].traits & T_TERMINATOR:
                    return fail(c, op, f"region #{r - o.regions}: a block does not end with a "
                                       f"terminator")
            b = BLK(c, b).next
        if row.traits & T_SINGLE_BLOCK and nblocks > 1:                          # V7
            return fail(c, op, f"region #{r - o.regions} must hold one block, holds {nblocks}")
    if row.traits & T_SAME_TYPE and o.n_operands + o.n_results > 0:               # V8
        t0 = VAL(c, USE(c, o.operands).value).type if o.n_operands else VAL(c, o.results).type
        for i in range(o.n_operands):
            if VAL(c, USE(c, o.operands + i).value).type != t0:
                return fail(c, op, "requires all operands and results to have one type")
        for i in range(o.n_results):
            if VAL(c, o.results + i).type != t0:
                return fail(c, op, "requires all operands and results to have one type")
    if row.checked_in_python:                                                    # V9
        check_in_python(c, op)
    return 0


cdef int check_in_python(Context c, int32_t op) except -1:
    row = c.op_defs[OP(c, op).name]
    h = None
    # The schema and the inference read the op's attributes and operand and result types alone,
    # and changing any of them bumps the op's epoch (a new op gets a new one): an op that passed
    # them at this epoch passes again. The row's own verify may read more, so it always runs.
    epoch = OP(c, op).epoch
    if c.checked.get(op) != epoch:
        h = op_handle(c, op)
        attrs = h.attributes
        for name, (kinds, required) in row.attributes.items():
            if name not in attrs:
                if required:
                    fail(c, op, f"requires attribute '{name}'")
            elif not isinstance(attrs[name], kinds):
                fail(c, op, f"attribute '{name}' must be {_kind_names(kinds)}, "
                            f"got {attrs[name]!r}")
        if row.infer is not None:
            try:
                inferred = tuple(row.infer(h.operand_types, dict(attrs)))
            except VerifyError:
                raise
            except Exception as e:
                fail(c, op, f"type inference failed: {e}")
            declared = h.result_types
            if inferred != declared:
                fail(c, op, f"result types {_types(declared)} differ from the inferred "
                            f"{_types(inferred)}")
        c.checked[op] = epoch
    if row.verify is not None:
        message = row.verify(h if h is not None else op_handle(c, op))
        if message:
            fail(c, op, message)
    return 0


def _kind_names(kinds):
    if isinstance(kinds, tuple):
        return " or ".join(k.__name__ for k in kinds)
    return kinds.__name__


def _types(ts):
    return "(" + ", ".join(map(str, ts)) + ")"


def verify(Operation root not None):
    """Raise VerifyError for the first broken rule in `root` and everything nested in it."""
    cdef Context c = root.context
    cdef int32_t r = root.check()
    cdef int32_t* order = <int32_t*>PyMem_Malloc((c.ops.top + 1) * sizeof(int32_t))
    if order == NULL:
        raise MemoryError()
    cdef int32_t op
    cdef OpRec* o
    try:
        op = r
        while op >= 0:                     # number ops by position in their block
            o = OP(c, op)
            order[op] = order[o.prev] + 1 if o.prev >= 0 and op != r else 0
            op = walk_next(c, r, op, False)
        op = r
        clock = c.clock
        while op >= 0:
            check_op(c, r, op, order)
            if c.clock != clock:     # a Python hook changed the IR: our numbering is stale
                raise VerifyError(f"a verify or type-inference hook of '{c.op_names[OP(c, op).name]}'"
                                  f" changed the IR during verification")
            op = walk_next(c, r, op, False)
    finally:
        PyMem_Free(order)
