# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""IR storage, handles, mutation, walks and clone.

Records live in `Pool`s (growable arrays with per-size free lists); ids are stable for a record's
life and handles carry a generation so that using an erased entity is an error, never a crash.
Every id reaching these functions from Python comes from a handle that `check()` validated.
"""
from cpython.mem cimport PyMem_Malloc, PyMem_Realloc, PyMem_Free
from libc.string cimport memset, memcpy
from libc.stdint cimport int32_t, uint32_t, uint64_t, uintptr_t
cimport cython
import operator
import re
from collections.abc import Mapping
from types import MappingProxyType
from collections import namedtuple

from accy.errors import CapacityError, IRError, VerifyError
from accy._core import registry as _registry
from accy._core.types import Type
from accy._core.attributes import (check_attribute, check_text, attribute_bytes,
                                   copy_attributes, PropertyDict)
from accy._core.capacity import Capacity

DEFAULT_CAPACITY = Capacity()   # frozen: one instance serves every Context made without one

cdef enum:
    SMALL_SIZES = 32
    MAX_RECORDS = 2147483000

Use = namedtuple("Use", ["operation", "index"])
_BARE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*\Z")   # what the parser reads unquoted
# op name -> (its registry row, its NameRec as bytes): what a Context records of a name when it
# first meets it, worked out once per process (a name whose row was registered again since is
# worked out again)
cdef dict _NAME_RECS = {}


cdef int name_rec(NameRec* n, str name, object row) except -1:
    """Fill `n` with what the core needs of op `name` and its registry `row` (None:
    unregistered)."""
    memset(n, 0, sizeof(NameRec))
    n.max_operands = -1
    n.max_results = -1
    n.regions = -1
    if row is not None:
        n.registered = 1
        n.traits = row.traits
        n.min_operands, n.max_operands = row.operands
        n.min_results, n.max_results = row.results
        n.regions = row.regions
        n.checked_in_python = (row.infer is not None or row.verify is not None
                               or bool(row.attributes))
    n.bare_name = _BARE_NAME.match(name) is not None
    return 0
_EMPTY = MappingProxyType({})

# Trait bits the core checks itself (values from accy._core.registry).
cdef uint32_t T_SAME_TYPE = _registry.SAME_OPERANDS_AND_RESULT_TYPE


cdef class Pool:
    """A growable array of fixed-size records; ranges of a given length are recycled."""

    def __cinit__(self, Py_ssize_t itemsize):
        self.itemsize = itemsize
        self.free_stacks = <int32_t**>PyMem_Malloc(SMALL_SIZES * sizeof(int32_t*))
        self.free_n = <int32_t*>PyMem_Malloc(SMALL_SIZES * sizeof(int32_t))
        self.free_cap = <int32_t*>PyMem_Malloc(SMALL_SIZES * sizeof(int32_t))
        if not self.free_stacks or not self.free_n or not self.free_cap:
            raise MemoryError()
        memset(self.free_stacks, 0, SMALL_SIZES * sizeof(int32_t*))
        memset(self.free_n, 0, SMALL_SIZES * sizeof(int32_t))
        memset(self.free_cap, 0, SMALL_SIZES * sizeof(int32_t))
        self.large_free = {}

    def __dealloc__(self):
        cdef int i
        if self.free_stacks:
            for i in range(SMALL_SIZES):
                PyMem_Free(self.free_stacks[i])
        PyMem_Free(self.free_stacks)
        PyMem_Free(self.free_n)
        PyMem_Free(self.free_cap)
        PyMem_Free(self.data)

    cdef int reserve(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t need = <Py_ssize_t>self.top + extra
        if need <= self.cap:
            return 0
        if need > MAX_RECORDS:
            raise CapacityError("an IR table would exceed 2**31 records")
        cdef Py_ssize_t newcap = self.cap + (self.cap >> 1)
        if newcap < need:
            newcap = need
        if newcap < 64:
            newcap = 64
        if newcap > MAX_RECORDS:
            newcap = MAX_RECORDS
        cdef char* p = <char*>PyMem_Realloc(self.data, newcap * self.itemsize)
        if p == NULL:
            raise MemoryError()
        self.data = p
        self.cap = <int32_t>newcap
        return 0

    cdef int32_t alloc(self, int32_t n) except -2:
        cdef int32_t start
        if n <= 0:
            return 0
        if n < SMALL_SIZES:
            if self.free_n[n] > 0:
                self.free_n[n] -= 1
                self.live += n
                return self.free_stacks[n][self.free_n[n]]
        else:
            lst = self.large_free.get(n)
            if lst:
                self.live += n
                return lst.pop()
        self.reserve(n)
        start = self.top
        # Fresh records start zeroed (generation 0); zeroing here, not at growth, touches only
        # memory about to be written anyway.
        memset(self.data + start * self.itemsize, 0, n * self.itemsize)
        self.top += n
        self.live += n
        return start

    cdef int release(self, int32_t start, int32_t n) except -1:
        cdef int32_t* s
        cdef int32_t newcap
        if n <= 0:
            return 0
        self.live -= n
        if n >= SMALL_SIZES:
            self.large_free.setdefault(n, []).append(start)
            return 0
        if self.free_n[n] == self.free_cap[n]:
            newcap = self.free_cap[n] * 2 if self.free_cap[n] else 16
            s = <int32_t*>PyMem_Realloc(self.free_stacks[n], newcap * sizeof(int32_t))
            if s == NULL:
                raise MemoryError()
            self.free_stacks[n] = s
            self.free_cap[n] = newcap
        self.free_stacks[n][self.free_n[n]] = start
        self.free_n[n] += 1
        return 0

    @property
    def allocated_bytes(self):
        return self.cap * self.itemsize + sum(self.free_cap[i] for i in range(SMALL_SIZES)) * 4


cdef class IdMap:
    """An id -> id map over a dense id space, kept for reuse: only touched entries are reset,
    so one use costs what it maps, not the size of the Context."""

    def __dealloc__(self):
        PyMem_Free(self.p)
        PyMem_Free(self.touched)

    cdef int ensure(self, Py_ssize_t size) except -1:
        cdef int32_t* q
        cdef Py_ssize_t newcap, i
        if size <= self.cap:
            return 0
        newcap = max(size, self.cap * 2, 64)
        q = <int32_t*>PyMem_Realloc(self.p, newcap * sizeof(int32_t))
        if q == NULL:
            raise MemoryError()
        for i in range(self.cap, newcap):
            q[i] = -1
        self.p = q
        self.cap = newcap
        return 0

    cdef int set(self, int32_t key, int32_t value) except -1:
        cdef int32_t* q
        if self.p[key] == -1:
            if self.n_touched == self.touched_cap:
                self.touched_cap = max(64, 2 * self.touched_cap)
                q = <int32_t*>PyMem_Realloc(self.touched, self.touched_cap * sizeof(int32_t))
                if q == NULL:
                    raise MemoryError()
                self.touched = q
            self.touched[self.n_touched] = key
            self.n_touched += 1
        self.p[key] = value
        return 0

    cdef void reset(self) noexcept:
        cdef Py_ssize_t i
        for i in range(self.n_touched):
            self.p[self.touched[i]] = -1
        self.n_touched = 0
        self.busy = False


cdef class Context:
    """Owns every operation, value, block and region of the IR built in it.

    allow_unregistered: accept op names that no dialect registers (as MLIR's flag).
    capacity: a `Capacity`; exceeding a limit raises CapacityError and changes nothing.
    """

    def __cinit__(self, *args, **kwargs):
        self.ops = Pool(sizeof(OpRec))
        self.uses = Pool(sizeof(UseRec))
        self.values = Pool(sizeof(ValueRec))
        self.blocks = Pool(sizeof(BlockRec))
        self.regions = Pool(sizeof(RegionRec))
        self.args = Pool(sizeof(int32_t))
        self.op_names = []
        self.op_name_ids = {}
        self.op_defs = []
        self.types = []
        self.type_ids = {}
        self.type_strs = []
        self.op_attrs = {}
        self.checked = {}
        self.vmap = IdMap()
        self.bmap = IdMap()
        self.omap = IdMap()
        self.capacity = DEFAULT_CAPACITY
        self.set_limits(self.capacity)

    def __init__(self, *, allow_unregistered=False, capacity=None):
        if self.clock or self.op_names:
            raise IRError("a Context is initialized once")
        if capacity is None:
            capacity = DEFAULT_CAPACITY
        elif not isinstance(capacity, Capacity):
            raise TypeError("capacity must be an accy.ir.Capacity")
        self.allow_unregistered = bool(allow_unregistered)
        self.capacity = capacity
        self.set_limits(capacity)

    cdef set_limits(self, capacity):
        self.max_ops = capacity.max_operations
        self.max_values = capacity.max_values
        self.max_blocks = capacity.max_blocks
        self.max_attr_bytes = capacity.max_attribute_bytes

    def __dealloc__(self):
        PyMem_Free(self.names)

    cdef int32_t name_id(self, str name) except -1:
        cdef object found = self.op_name_ids.get(name)
        if found is not None:
            return found
        row = _registry.lookup(name)
        cdef NameRec rec
        cached = _NAME_RECS.get(name)
        if cached is not None and cached[0] is row:
            memcpy(&rec, <char*>(<bytes>cached[1]), sizeof(NameRec))
        else:
            if not check_text(name, "an operation name"):
                raise VerifyError("an operation name cannot be empty")
            name_rec(&rec, name, row)
            if len(_NAME_RECS) > 4096:
                _NAME_RECS.clear()
            _NAME_RECS[name] = (row, (<char*>&rec)[:sizeof(NameRec)])
        if row is None and not self.allow_unregistered:
            raise VerifyError(f"unregistered operation '{name}' (this Context does not allow "
                              f"unregistered operations)")
        cdef int32_t i = len(self.op_names)
        cdef NameRec* n
        if i == self.names_cap:
            n = <NameRec*>PyMem_Realloc(self.names, (2 * i + 16) * sizeof(NameRec))
            if n == NULL:
                raise MemoryError()
            self.names = n
            self.names_cap = 2 * i + 16
        self.names[i] = rec
        self.op_names.append(name)
        self.op_defs.append(row)
        self.op_name_ids[name] = i
        return i

    cdef int32_t type_id(self, object t) except -1:
        cdef object found = self.type_ids.get(t)
        if found is not None:
            return found
        if not isinstance(t, Type):
            raise TypeError(f"expected an accy type, got {t!r}")
        cdef int32_t i = len(self.types)
        self.types.append(t)
        self.type_strs.append(str(t))
        self.type_ids[t] = i
        return i

    cdef str type_str(self, int32_t t):
        if t < 0:
            return "<<unknown>>"
        return self.type_strs[t]

    cdef int check_capacity(self, Py_ssize_t ops, Py_ssize_t values, Py_ssize_t blocks,
                            Py_ssize_t attr_bytes) except -1:
        if self.ops.live + ops > self.max_ops:
            raise CapacityError(f"Capacity.max_operations={self.max_ops} would be exceeded "
                                f"({self.ops.live} live, {ops} more requested)")
        if self.values.live + values > self.max_values:
            raise CapacityError(f"Capacity.max_values={self.max_values} would be exceeded "
                                f"({self.values.live} live, {values} more requested)")
        if self.blocks.live + blocks > self.max_blocks:
            raise CapacityError(f"Capacity.max_blocks={self.max_blocks} would be exceeded "
                                f"({self.blocks.live} live, {blocks} more requested)")
        if self.attr_bytes + attr_bytes > self.max_attr_bytes:
            raise CapacityError(f"Capacity.max_attribute_bytes={self.max_attr_bytes} would be "
                                f"exceeded ({self.attr_bytes} held, {attr_bytes} more requested)")
        return 0

    # ---- Python API -------------------------------------------------------------------------
    @property
    def num_operations(self):
        return self.ops.live

    @property
    def num_values(self):
        return self.values.live

    @property
    def num_blocks(self):
        return self.blocks.live

    @property
    def attribute_bytes(self):
        return self.attr_bytes

    def memory_bytes(self):
        """Bytes of record storage this Context holds (tables, not Python attribute objects)."""
        return sum(p.allocated_bytes for p in
                   (self.ops, self.uses, self.values, self.blocks, self.regions, self.args))

    def op_def(self, str name):
        """The registry row for `name` as this Context sees it, or None when unregistered.
        A Context takes a name's row when it first meets the name and keeps it: register
        dialects before building IR with them."""
        found = self.op_name_ids.get(name)
        return self.op_defs[found] if found is not None else _registry.lookup(name)

    def __repr__(self):
        return f"<accy.ir.Context {self.ops.live} ops, {self.values.live} values>"


# ---- records: linking and freeing ---------------------------------------------------------------

cdef void touch(Context c, int32_t op):
    """Bump the epoch of `op` and of every op above it to a new clock value."""
    c.clock += 1
    cdef uint64_t now = c.clock
    cdef OpRec* o
    while op >= 0:
        o = OP(c, op)
        o.epoch = now
        op = parent_op(c, op)


cdef inline void link_use(Context c, int32_t u, int32_t v):
    cdef UseRec* r = USE(c, u)
    cdef ValueRec* val = VAL(c, v)
    r.value = v
    r.prev = -1
    r.next = val.first_use
    if val.first_use >= 0:
        USE(c, val.first_use).prev = u
    val.first_use = u


cdef inline void unlink_use(Context c, int32_t u):
    cdef UseRec* r = USE(c, u)
    cdef int32_t v = r.value
    if v < 0:
        return
    if r.prev >= 0:
        USE(c, r.prev).next = r.next
    else:
        VAL(c, v).first_use = r.next
    if r.next >= 0:
        USE(c, r.next).prev = r.prev
    r.value = -1
    r.prev = -1
    r.next = -1


cdef Py_ssize_t dict_attr_bytes(object attrs) except -1:
    if not attrs:
        return 0
    cdef Py_ssize_t n = 0
    for k, v in attrs.items():
        n += len(k) + attribute_bytes(v)
    return n


cdef int32_t create_op(Context c, int32_t name, const int32_t* operands, int32_t n_operands,
                       const int32_t* result_types, int32_t n_results, int32_t n_regions,
                       object attrs) except -1:
    """A detached op. Operand ids must be live values of `c` (or -1 for a null operand)."""
    if n_results > 65535 or n_regions > 65535:
        raise IRError("an operation has at most 65535 results and 65535 regions")
    cdef Py_ssize_t nbytes = dict_attr_bytes(attrs)
    c.check_capacity(1, n_results, 0, nbytes)
    return build_op(c, name, operands, n_operands, result_types, n_results, n_regions, attrs,
                    nbytes)


cdef int32_t build_op(Context c, int32_t name, const int32_t* operands, int32_t n_operands,
                      const int32_t* result_types, int32_t n_results, int32_t n_regions,
                      object attrs, Py_ssize_t nbytes=-1) except -1:
    """create_op without the capacity check (callers checked the whole batch); `nbytes` is
    dict_attr_bytes(attrs) when the caller has it (-1: computed here)."""
    c.ops.reserve(1)
    c.uses.reserve(n_operands)
    c.values.reserve(n_results)
    c.regions.reserve(n_regions)
    cdef int32_t op = c.ops.alloc(1)
    init_op(c, op, name, c.uses.alloc(n_operands), n_operands, c.values.alloc(n_results),
            n_results, c.regions.alloc(n_regions), n_regions)
    cdef int32_t i
    if result_types != NULL:
        for i in range(n_results):
            VAL(c, OP(c, op).results + i).type = result_types[i]
    if operands != NULL:
        for i in range(n_operands):
            if operands[i] >= 0:
                link_use(c, OP(c, op).operands + i, operands[i])
    if attrs:
        c.op_attrs[op] = attrs
        c.attr_bytes += nbytes if nbytes >= 0 else dict_attr_bytes(attrs)
    return op


cdef void init_op(Context c, int32_t op, int32_t name, int32_t u0, int32_t n_operands,
                  int32_t v0, int32_t n_results, int32_t r0, int32_t n_regions) noexcept:
    """Fill allocated records: a detached op, null operands, results of unknown type."""
    cdef int32_t i
    cdef OpRec* o = OP(c, op)
    o.name = name
    o.block = -1
    o.prev = -1
    o.next = -1
    o.operands = u0
    o.n_operands = n_operands
    o.results = v0
    o.n_results = n_results
    o.regions = r0
    o.n_regions = n_regions
    c.clock += 1
    o.epoch = c.clock
    cdef ValueRec* v
    for i in range(n_results):
        v = VAL(c, v0 + i)
        v.type = -1
        v.owner = op
        v.index = i
        v.first_use = -1
        v.kind = VALUE_RESULT
    cdef RegionRec* r
    for i in range(n_regions):
        r = REG(c, r0 + i)
        r.op = op
        r.first_block = -1
        r.last_block = -1
    cdef UseRec* ur
    for i in range(n_operands):
        ur = USE(c, u0 + i)
        ur.owner = op
        ur.value = -1
        ur.prev = -1
        ur.next = -1


cdef int32_t create_block(Context c, const int32_t* arg_types, int32_t n_args) except -1:
    c.check_capacity(0, n_args, 1, 0)
    cdef int32_t b = build_block(c, n_args)
    cdef int32_t i
    if arg_types != NULL:
        for i in range(n_args):
            VAL(c, ARGS(c, BLK(c, b).args)[i]).type = arg_types[i]
    return b


cdef int32_t build_block(Context c, int32_t n_args) except -1:
    """A detached block with `n_args` arguments of unknown type, without the capacity check."""
    c.blocks.reserve(1)
    c.values.reserve(n_args)
    c.args.reserve(n_args)
    cdef int32_t b = c.blocks.alloc(1)
    cdef int32_t a0 = c.args.alloc(n_args)
    cdef int32_t i
    for i in range(n_args):
        ARGS(c, a0)[i] = c.values.alloc(1)
    init_block(c, b, a0, n_args)
    return b


cdef void init_block(Context c, int32_t b, int32_t a0, int32_t n_args) noexcept:
    """Fill allocated records: a detached block whose argument slots hold allocated values."""
    cdef BlockRec* blk = BLK(c, b)
    blk.region = -1
    blk.live = 1
    blk.prev = -1
    blk.next = -1
    blk.first_op = -1
    blk.last_op = -1
    blk.args = a0
    blk.n_args = n_args
    blk.cap_args = n_args
    cdef int32_t i
    cdef ValueRec* val
    for i in range(n_args):
        val = VAL(c, ARGS(c, a0)[i])
        val.type = -1
        val.owner = b
        val.index = i
        val.first_use = -1
        val.kind = VALUE_ARGUMENT


cdef int32_t add_argument(Context c, int32_t block, int32_t type) except -1:
    c.check_capacity(0, 1, 0, 0)
    cdef BlockRec* blk = BLK(c, block)
    cdef int32_t newcap, a
    if blk.n_args == blk.cap_args:
        newcap = blk.cap_args * 2 if blk.cap_args >= 2 else 4
        a = c.args.alloc(newcap)
        blk = BLK(c, block)
        if blk.n_args:
            memcpy(ARGS(c, a), ARGS(c, blk.args), blk.n_args * sizeof(int32_t))
        c.args.release(blk.args, blk.cap_args)
        blk.args = a
        blk.cap_args = newcap
    c.values.reserve(1)
    cdef int32_t v = c.values.alloc(1)
    blk = BLK(c, block)
    cdef ValueRec* val = VAL(c, v)
    val.type = type
    val.owner = block
    val.index = blk.n_args
    val.first_use = -1
    val.kind = VALUE_ARGUMENT
    ARGS(c, blk.args)[blk.n_args] = v
    blk.n_args += 1
    if blk.region >= 0:
        touch(c, REG(c, blk.region).op)
    return v


cdef int32_t new_placeholder(Context c, int32_t type) except -1:
    c.check_capacity(0, 1, 0, 0)
    cdef int32_t v = c.values.alloc(1)
    cdef ValueRec* val = VAL(c, v)
    val.type = type
    val.owner = -1
    val.index = 0
    val.first_use = -1
    val.kind = VALUE_PLACEHOLDER
    return v


cdef inline void mark_value_free(Context c, int32_t v) noexcept:
    cdef ValueRec* val = VAL(c, v)
    val.kind = VALUE_FREE
    val.gen += 1
    val.first_use = -1


cdef inline int free_value(Context c, int32_t v) except -1:
    mark_value_free(c, v)
    return c.values.release(v, 1)


cdef int free_placeholder(Context c, int32_t value) except -1:
    if VAL(c, value).first_use >= 0:
        raise IRError("a forward reference still has uses")
    return free_value(c, value)


cdef int32_t block_ancestor_op_is(Context c, int32_t block, int32_t op):
    """1 when `op` contains `block` (at any depth)."""
    cdef int32_t r, p
    while block >= 0:
        r = BLK(c, block).region
        if r < 0:
            return 0
        p = REG(c, r).op
        if p == op:
            return 1
        block = OP(c, p).block
    return 0


cdef int insert_op(Context c, int32_t op, int32_t block, int32_t before) except -1:
    """Link detached `op` into `block` before op `before` (-1: at the end)."""
    cdef OpRec* o = OP(c, op)
    if o.block >= 0:
        raise IRError("operation is already in a block; detach or move it")
    if block_ancestor_op_is(c, block, op):
        raise IRError("cannot insert an operation into its own region (that makes a cycle)")
    if before >= 0 and OP(c, before).block != block:
        raise IRError("insertion point is not in the target block")
    cdef BlockRec* b = BLK(c, block)
    cdef int32_t prev = b.last_op if before < 0 else OP(c, before).prev
    o.prev = prev
    o.next = before
    o.block = block
    if prev >= 0:
        OP(c, prev).next = op
    else:
        b.first_op = op
    if before >= 0:
        OP(c, before).prev = op
    else:
        b.last_op = op
    touch(c, op)
    return 0


cdef void append_op(Context c, int32_t op, int32_t block) noexcept:
    """Link detached `op` at the end of detached/new `block`, without checks or epoch bumps:
    for code that builds fresh IR (parser, clone)."""
    cdef OpRec* o = OP(c, op)
    cdef BlockRec* b = BLK(c, block)
    o.prev = b.last_op
    o.next = -1
    o.block = block
    if b.last_op >= 0:
        OP(c, b.last_op).next = op
    else:
        b.first_op = op
    b.last_op = op


cdef void append_block(Context c, int32_t block, int32_t region) noexcept:
    """Link detached `block` at the end of a fresh op's region (see append_op)."""
    cdef BlockRec* b = BLK(c, block)
    cdef RegionRec* r = REG(c, region)
    b.prev = r.last_block
    b.next = -1
    b.region = region
    if r.last_block >= 0:
        BLK(c, r.last_block).next = block
    else:
        r.first_block = block
    r.last_block = block


cdef int unlink_op(Context c, int32_t op) except -1:
    cdef OpRec* o = OP(c, op)
    cdef int32_t block = o.block
    if block < 0:
        return 0
    cdef int32_t parent = parent_op(c, op)
    cdef BlockRec* b = BLK(c, block)
    if o.prev >= 0:
        OP(c, o.prev).next = o.next
    else:
        b.first_op = o.next
    if o.next >= 0:
        OP(c, o.next).prev = o.prev
    else:
        b.last_op = o.prev
    o.block = -1
    o.prev = -1
    o.next = -1
    if parent >= 0:
        touch(c, parent)
    return 0


cdef int insert_block(Context c, int32_t block, int32_t region, int32_t before) except -1:
    cdef BlockRec* b = BLK(c, block)
    if b.region >= 0:
        raise IRError("block is already in a region")
    cdef int32_t owner = REG(c, region).op
    if _op_inside_block(c, owner, block):
        raise IRError("cannot insert a block into a region of an op it contains (cycle)")
    cdef RegionRec* r = REG(c, region)
    cdef int32_t prev = r.last_block if before < 0 else BLK(c, before).prev
    if before >= 0 and BLK(c, before).region != region:
        raise IRError("insertion point is not in the target region")
    b.prev = prev
    b.next = before
    b.region = region
    if prev >= 0:
        BLK(c, prev).next = block
    else:
        r.first_block = block
    if before >= 0:
        BLK(c, before).prev = block
    else:
        r.last_block = block
    touch(c, r.op)
    return 0


cdef int _op_inside_block(Context c, int32_t op, int32_t block):
    while op >= 0:
        if OP(c, op).block == block:
            return 1
        op = parent_op(c, op)
    return 0


cdef int unlink_block(Context c, int32_t block) except -1:
    cdef BlockRec* b = BLK(c, block)
    cdef int32_t region = b.region
    if region < 0:
        return 0
    cdef RegionRec* r = REG(c, region)
    if b.prev >= 0:
        BLK(c, b.prev).next = b.next
    else:
        r.first_block = b.next
    if b.next >= 0:
        BLK(c, b.next).prev = b.prev
    else:
        r.last_block = b.prev
    b.region = -1
    b.prev = -1
    b.next = -1
    touch(c, r.op)
    return 0


cdef int set_operand(Context c, int32_t op, int32_t index, int32_t value) except -1:
    cdef int32_t u = OP(c, op).operands + index
    unlink_use(c, u)
    if value >= 0:
        link_use(c, u, value)
    touch(c, op)
    return 0


cdef int replace_all_uses(Context c, int32_t old, int32_t new) except -1:
    if old == new:
        return 0
    cdef int32_t u = VAL(c, old).first_use
    cdef int32_t nxt
    while u >= 0:
        nxt = USE(c, u).next
        unlink_use(c, u)
        link_use(c, u, new)
        touch(c, USE(c, u).owner)
        u = nxt
    return 0


# ---- walks ------------------------------------------------------------------------------------

cdef inline int32_t first_op_in_regions(Context c, int32_t op, int32_t from_region) noexcept:
    cdef OpRec* o = OP(c, op)
    cdef int32_t r, b
    for r in range(o.regions + from_region, o.regions + o.n_regions):
        b = REG(c, r).first_block
        while b >= 0:
            if BLK(c, b).first_op >= 0:
                return BLK(c, b).first_op
            b = BLK(c, b).next
    return -1


cdef inline int32_t following_in_parent(Context c, int32_t op) noexcept:
    """The op after `op`'s subtree in pre-order, without leaving `op`'s parent op."""
    cdef OpRec* o = OP(c, op)
    if o.next >= 0:
        return o.next
    if o.block < 0:
        return -1
    cdef int32_t b = BLK(c, o.block).next
    while b >= 0:
        if BLK(c, b).first_op >= 0:
            return BLK(c, b).first_op
        b = BLK(c, b).next
    cdef int32_t r = BLK(c, o.block).region
    if r < 0:
        return -1
    cdef int32_t p = REG(c, r).op
    return first_op_in_regions(c, p, r - OP(c, p).regions + 1)


cdef inline int32_t descend(Context c, int32_t op) noexcept:
    cdef int32_t n
    while True:
        n = first_op_in_regions(c, op, 0)
        if n < 0:
            return op
        op = n


cdef int32_t walk_first(Context c, int32_t root, bint post) noexcept:
    return descend(c, root) if post else root


cdef int32_t walk_next(Context c, int32_t root, int32_t cur, bint post) noexcept:
    cdef int32_t n
    if post:
        if cur == root:
            return -1
        n = following_in_parent(c, cur)
        if n >= 0:
            return descend(c, n)
        return parent_op(c, cur)
    n = first_op_in_regions(c, cur, 0)
    if n >= 0:
        return n
    while cur != root and cur >= 0:
        n = following_in_parent(c, cur)
        if n >= 0:
            return n
        cur = parent_op(c, cur)
    return -1


cdef list subtree_ops(Context c, int32_t root):
    cdef list out = []
    cdef int32_t op = root
    while op >= 0:
        out.append(op)
        op = walk_next(c, root, op, False)
    return out


# ---- erase ------------------------------------------------------------------------------------

cdef int free_block_storage(Context c, int32_t block) except -1:
    cdef BlockRec* b = BLK(c, block)
    cdef int32_t i, n = b.n_args, a0 = b.args, cap = b.cap_args
    for i in range(n):
        free_value(c, ARGS(c, a0)[i])
    b = BLK(c, block)
    b.live = 0
    b.gen += 1
    b.first_op = -1
    b.last_op = -1
    b.region = -1
    c.args.release(a0, cap)
    c.blocks.release(block, 1)
    return 0


cdef int drop_uses_of(Context c, int32_t value) except -1:
    cdef int32_t u = VAL(c, value).first_use, nxt, owner
    while u >= 0:
        nxt = USE(c, u).next
        owner = USE(c, u).owner
        unlink_use(c, u)
        touch(c, owner)
        u = nxt
    return 0


cdef int free_op_storage(Context c, int32_t op) except -1:
    """Free one op's records; its operand uses must already be dropped, its blocks freed."""
    cdef OpRec* o = OP(c, op)
    cdef int32_t i, n_res = o.n_results, v0 = o.results
    for i in range(n_res):
        mark_value_free(c, v0 + i)
    c.values.release(v0, n_res)          # results were allocated as one range
    o = OP(c, op)
    attrs = c.op_attrs.pop(op, None)
    if attrs:
        c.attr_bytes -= dict_attr_bytes(attrs)
    c.uses.release(o.operands, o.n_operands)
    c.regions.release(o.regions, o.n_regions)
    o = OP(c, op)
    o.name = -1
    o.gen += 1
    c.clock += 1                         # even a detached op's end is news to what read it
    o.block = -1
    o.n_operands = 0
    o.n_results = 0
    o.n_regions = 0
    c.ops.release(op, 1)
    return 0


cdef list op_values(Context c, int32_t op):
    """Results of `op` and arguments of the blocks in its regions (not deeper)."""
    cdef OpRec* o = OP(c, op)
    cdef list out = list(range(o.results, o.results + o.n_results))
    cdef int32_t r, b, i
    for r in range(o.regions, o.regions + o.n_regions):
        b = REG(c, r).first_block
        while b >= 0:
            for i in range(BLK(c, b).n_args):
                out.append(ARGS(c, BLK(c, b).args)[i])
            b = BLK(c, b).next
    return out


cdef int erase_subtrees(Context c, list ops, list extra_values) except -1:
    """Erase every op of `ops` (whole subtrees in pre-order, roots already unlinked) and the
    `extra_values` (arguments of erased blocks); outside uses of their values become null."""
    cdef list values = list(extra_values)
    cdef int32_t x, i, r, b, nb
    for x in ops:
        values.extend(op_values(c, x))
    for x in ops:
        for i in range(OP(c, x).n_operands):
            unlink_use(c, OP(c, x).operands + i)
    for x in values:
        drop_uses_of(c, x)
    for x in reversed(ops):
        for r in range(OP(c, x).regions, OP(c, x).regions + OP(c, x).n_regions):
            b = REG(c, r).first_block
            while b >= 0:
                nb = BLK(c, b).next
                free_block_storage(c, b)
                b = nb
        free_op_storage(c, x)
    return 0


cdef int erase_op(Context c, int32_t op, bint force) except -1:
    cdef OpRec* o = OP(c, op)
    cdef int32_t i
    cdef int32_t u
    if o.n_regions == 0:
        if not force:
            for i in range(o.n_results):
                u = VAL(c, o.results + i).first_use
                while u >= 0:
                    if USE(c, u).owner != op:       # the op's own uses go with it
                        raise IRError(f"cannot erase '{c.op_names[o.name]}': result #{i} still "
                                      f"has uses (replace them first, or erase with force=True)")
                    u = USE(c, u).next
        unlink_op(c, op)
        o = OP(c, op)
        for i in range(o.n_operands):
            unlink_use(c, o.operands + i)
        for i in range(o.n_results):
            drop_uses_of(c, OP(c, op).results + i)
        return free_op_storage(c, op)
    ops = subtree_ops(c, op)
    if not force:
        erase_check_only(c, ops, f"'{c.op_names[o.name]}'")
    unlink_op(c, op)
    return erase_subtrees(c, ops, [])


cdef int erase_check_only(Context c, list ops, str what, list extra_values=None) except -1:
    """Refuse (IRError) when a value defined by `ops` (or in `extra_values`) is used outside."""
    cdef set inside = set(ops)
    cdef int32_t x, v, u
    cdef list values = list(extra_values or ())
    for x in ops:
        values.extend(op_values(c, x))
    for v in values:
        u = VAL(c, v).first_use
        while u >= 0:
            if USE(c, u).owner not in inside:
                raise IRError(f"cannot erase {what}: a value it defines is still used by "
                              f"'{c.op_names[OP(c, USE(c, u).owner).name]}' "
                              f"(replace the uses first, or erase with force=True)")
            u = USE(c, u).next
    return 0


cdef int erase_block(Context c, int32_t block, bint force) except -1:
    cdef list ops = []
    cdef int32_t op = BLK(c, block).first_op
    while op >= 0:
        ops.extend(subtree_ops(c, op))
        op = OP(c, op).next
    cdef list args = [ARGS(c, BLK(c, block).args)[i] for i in range(BLK(c, block).n_args)]
    if not force:
        erase_check_only(c, ops, "the block", args)
    unlink_block(c, block)
    op = BLK(c, block).first_op
    while op >= 0:           # detach the top-level ops so nothing points into the freed block
        OP(c, op).block = -1
        op = OP(c, op).next
    erase_subtrees(c, ops, args)
    return free_block_storage(c, block)


# ---- clone ------------------------------------------------------------------------------------

cdef class _Scratch:
    """Owns temporary C arrays for one operation; freed however the operation ends."""
    cdef list ptrs

    def __cinit__(self):
        self.ptrs = []

    cdef int32_t* ints(self, Py_ssize_t n, int32_t fill) except NULL:
        cdef int32_t* p = <int32_t*>PyMem_Malloc((n if n > 0 else 1) * sizeof(int32_t))
        if p == NULL:
            raise MemoryError()
        self.ptrs.append(<Py_ssize_t>p)
        cdef Py_ssize_t i
        for i in range(n):
            p[i] = fill
        return p

    def __dealloc__(self):
        for p in self.ptrs:
            PyMem_Free(<void*><Py_ssize_t>p)


cdef IdMap scratch_map(IdMap owned):
    """`owned` when free (the usual case), else a fresh map (a re-entrant clone)."""
    if owned.busy:
        owned = IdMap()
    owned.busy = True
    return owned


cdef int32_t clone_op(Context src, int32_t root, Context dst, dict mapping) except -1:
    """Deep copy of `root` (detached) into `dst`. Values used inside but defined outside map
    through `mapping` ({value id in src: value id in dst}), else to themselves when `dst` is
    `src`."""
    cdef IdMap vm = scratch_map(src.vmap), bm = scratch_map(src.bmap), om = scratch_map(src.omap)
    try:
        vm.ensure(src.values.top)
        bm.ensure(src.blocks.top)
        om.ensure(src.ops.top)
        return clone_with_maps(src, root, dst, mapping, vm, bm, om)
    finally:
        vm.reset()
        bm.reset()
        om.reset()


cdef int32_t clone_with_maps(Context src, int32_t root, Context dst, dict mapping,
                             IdMap vm, IdMap bm, IdMap om) except -1:
    cdef _Scratch s = _Scratch()
    cdef int32_t n = 0, op, i, j, r, b, v, nb, new
    cdef int32_t* vmap = vm.p
    cdef int32_t* bmap = bm.p
    op = root
    while op >= 0:                 # number the subtree's ops: om[op] = pre-order index
        om.set(op, n)
        n += 1
        op = walk_next(src, root, op, False)
    cdef int32_t* ops = om.touched      # the ops in pre-order (om is not written again)
    cdef int32_t* newops = s.ints(n, -1)
    cdef int32_t* tmap = s.ints(len(src.types), -1)
    cdef int32_t* nmap = s.ints(len(src.op_names), -1)
    cdef Py_ssize_t n_vals = 0, n_uses = 0, n_blocks = 0, n_regs = 0, n_args = 0, abytes = 0
    cdef OpRec* o
    cdef dict attrs_of = {}        # pre-order index -> attributes, for ops that have them
    cdef int32_t* has_attrs = s.ints(n, 0)
    if len(src.op_attrs) <= n:
        for key, attrs in src.op_attrs.items():
            if om.p[<int32_t>key] >= 0:
                attrs_of[om.p[<int32_t>key]] = attrs
                has_attrs[om.p[<int32_t>key]] = 1
    for i in range(n):
        op = ops[i]
        o = OP(src, op)
        n_vals += o.n_results
        n_uses += o.n_operands
        n_regs += o.n_regions
        for j in range(o.n_results):
            vm.set(o.results + j, -2)
        if len(src.op_attrs) > n:
            attrs = src.op_attrs.get(op)
            if attrs:
                attrs_of[i] = attrs
                has_attrs[i] = 1
        for r in range(o.regions, o.regions + o.n_regions):
            b = REG(src, r).first_block
            while b >= 0:
                n_blocks += 1
                n_vals += BLK(src, b).n_args
                n_args += BLK(src, b).n_args
                for j in range(BLK(src, b).n_args):
                    vm.set(ARGS(src, BLK(src, b).args)[j], -2)
                b = BLK(src, b).next
    for attrs in attrs_of.values():
        abytes += dict_attr_bytes(attrs)
    # Values from outside the subtree: map them before allocating anything.
    for i in range(n):
        o = OP(src, ops[i])
        for j in range(o.n_operands):
            v = USE(src, o.operands + j).value
            if v < 0 or vmap[v] != -1:
                continue
            mapped = mapping.get(v) if mapping is not None else None
            if mapped is not None:
                vm.set(v, mapped)
            elif src is dst:
                vm.set(v, v)
            else:
                raise IRError(f"'{src.op_names[o.name]}' uses a value defined outside the cloned "
                              f"op; pass mapping={{outside_value: value_in_target}}")
    # Names and types in the target first: nothing below can fail half-way.
    for i in range(n):
        o = OP(src, ops[i])
        if nmap[o.name] < 0:
            nmap[o.name] = o.name if src is dst else dst.name_id(src.op_names[o.name])
        for j in range(o.n_results):
            _map_type(src, dst, tmap, VAL(src, o.results + j).type)
        for r in range(o.regions, o.regions + o.n_regions):
            b = REG(src, r).first_block
            while b >= 0:
                for j in range(BLK(src, b).n_args):
                    _map_type(src, dst, tmap, VAL(src, ARGS(src, BLK(src, b).args)[j]).type)
                b = BLK(src, b).next
    dst.check_capacity(n, n_vals, n_blocks, abytes)
    dst.ops.reserve(n)
    dst.uses.reserve(n_uses)
    dst.values.reserve(n_vals)
    dst.regions.reserve(n_regs)
    dst.blocks.reserve(n_blocks)
    dst.args.reserve(n_args)
    cdef int32_t nargs
    try:
        for i in range(n):
            op = ops[i]
            o = OP(src, op)
            new = build_op(dst, nmap[o.name], NULL, o.n_operands, NULL, o.n_results,
                           o.n_regions, copy_attributes(attrs_of[i]) if has_attrs[i] else None)
            newops[i] = new
            o = OP(src, op)
            for j in range(o.n_results):
                vmap[o.results + j] = OP(dst, new).results + j
                VAL(dst, OP(dst, new).results + j).type = tmap_of(src, dst, tmap,
                                                                 VAL(src, o.results + j).type)
            if i > 0:
                append_op(dst, new, bmap[o.block])
            for r in range(o.n_regions):
                b = REG(src, OP(src, op).regions + r).first_block
                while b >= 0:
                    nargs = BLK(src, b).n_args
                    nb = build_block(dst, nargs)
                    bm.set(b, nb)
                    for j in range(nargs):
                        v = ARGS(src, BLK(src, b).args)[j]
                        vmap[v] = ARGS(dst, BLK(dst, nb).args)[j]
                        VAL(dst, vmap[v]).type = tmap_of(src, dst, tmap, VAL(src, v).type)
                    append_block(dst, nb, OP(dst, new).regions + r)
                    b = BLK(src, b).next
        for i in range(n):
            o = OP(src, ops[i])
            for j in range(o.n_operands):
                v = USE(src, o.operands + j).value
                if v >= 0:
                    link_use(dst, OP(dst, newops[i]).operands + j, vmap[v])
    except BaseException:
        if newops[0] >= 0:
            erase_op(dst, newops[0], True)
        raise
    touch(dst, newops[0])        # the root's epoch is not older than anything inside it
    return newops[0]


cdef inline int32_t _map_type(Context src, Context dst, int32_t* tmap, int32_t t) except -2:
    if t < 0 or src is dst:
        return t
    if tmap[t] < 0:
        tmap[t] = dst.type_id(src.types[t])
    return tmap[t]


cdef inline int32_t tmap_of(Context src, Context dst, int32_t* tmap, int32_t t) noexcept:
    """A type id already mapped by _map_type."""
    return t if t < 0 or src is dst else tmap[t]


# ---- handles ----------------------------------------------------------------------------------

cdef Operation op_handle(Context c, int32_t op):
    cdef Operation h = Operation.__new__(Operation)
    h.context = c
    h.id = op
    h.gen = OP(c, op).gen
    return h


cdef Value value_handle(Context c, int32_t v):
    cdef Value h = Value.__new__(Value)
    h.context = c
    h.id = v
    h.gen = VAL(c, v).gen
    return h


cdef Block block_handle(Context c, int32_t b):
    cdef Block h = Block.__new__(Block)
    h.context = c
    h.id = b
    h.gen = BLK(c, b).gen
    return h


cdef Region region_handle(Context c, int32_t op, int32_t index):
    cdef Region h = Region.__new__(Region)
    h.context = c
    h.op = op
    h.op_gen = OP(c, op).gen
    h.index = index
    return h


cdef inline int32_t value_id(Context c, object v) except -2:
    """The id of Value `v` of Context `c` (None gives -1, a null operand)."""
    if v is None:
        return -1
    if not isinstance(v, Value):
        raise TypeError(f"expected a Value, got {type(v).__name__}")
    cdef Value h = <Value>v
    if h.context is not c:
        raise IRError("value belongs to another Context")
    h.check()
    return h.id


cdef int32_t op_id(Context c, object op) except -1:
    if not isinstance(op, Operation):
        raise TypeError(f"expected an Operation, got {type(op).__name__}")
    cdef Operation h = <Operation>op
    if h.context is not c:
        raise IRError("operation belongs to another Context")
    return h.check()


cdef int32_t block_id(Context c, object b) except -1:
    if not isinstance(b, Block):
        raise TypeError(f"expected a Block, got {type(b).__name__}")
    cdef Block h = <Block>b
    if h.context is not c:
        raise IRError("block belongs to another Context")
    return h.check()


@cython.auto_pickle(False)
cdef class OpIterator:
    """Ops collected up front (so the IR may change during iteration); erased ones are skipped."""
    cdef Context c
    cdef list ids
    cdef list gens
    cdef Py_ssize_t pos

    def __iter__(self):
        return self

    def __next__(self):
        cdef int32_t op
        cdef OpRec* o
        while self.pos < len(self.ids):
            op = self.ids[self.pos]
            self.pos += 1
            o = OP(self.c, op)
            if o.name >= 0 and o.gen == <uint32_t>self.gens[self.pos - 1]:
                return op_handle(self.c, op)
        raise StopIteration

    def __len__(self):
        return len(self.ids) - self.pos


cdef OpIterator make_iterator(Context c, list ids):
    cdef OpIterator it = OpIterator.__new__(OpIterator)
    it.c = c
    it.ids = ids
    it.gens = [OP(c, i).gen for i in ids]
    it.pos = 0
    return it


# The verifier and the text forms walk this module's storage (they cimport it), so they sit
# above it: accy/_core/__init__.py hands their entry points down once both are loaded, for the
# handles' verify, print and fingerprint.
cdef object _verify = None
cdef object _print_op = None
cdef object _fingerprint = None


def install_verifier_and_printer(verify, print_op, fingerprint):
    """Give `Operation.verify`, `.print` and `.fingerprint` their implementations
    (`verify.verify`, `text.print_op`, `text.fingerprint`)."""
    global _verify, _print_op, _fingerprint
    _verify, _print_op, _fingerprint = verify, print_op, fingerprint



cdef inline Py_hash_t handle_hash(object context, uint64_t a, uint64_t b, uint64_t c) noexcept:
    """A handle's hash from its context's address and its fields, mixed in C (a tuple's hash
    cost a fifth of a microsecond per dict lookup); never -1, which CPython reserves."""
    cdef uint64_t h = <uint64_t><uintptr_t><void*>context
    h ^= a * 0x9E3779B97F4A7C15ULL
    h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ULL
    h ^= b * 0x94D049BB133111EBULL + c
    h = (h ^ (h >> 29)) * 0x9E3779B97F4A7C15ULL
    return <Py_hash_t>((h ^ (h >> 32)) >> 2)


@cython.auto_pickle(False)
cdef class Operation:
    """A handle to one operation: (context, id, generation). Equal handles name the same op."""

    cdef int32_t check(self) except -1:
        if self.context is None or not 0 <= self.id < self.context.ops.top:
            raise IRError("not a handle made by accy")
        cdef OpRec* o = OP(self.context, self.id)
        if o.name < 0 or o.gen != self.gen:
            raise IRError("this operation was erased")
        return self.id

    def __eq__(self, other):
        if not isinstance(other, Operation):
            return NotImplemented
        cdef Operation h = <Operation>other
        return h.context is self.context and h.id == self.id and h.gen == self.gen

    def __hash__(self):
        return handle_hash(self.context, <uint32_t>self.id, self.gen, 0)

    def __repr__(self):
        try:
            self.check()
        except IRError:
            return "<accy.ir.Operation (erased)>"
        cdef OpRec* o = OP(self.context, self.id)
        return f"<accy.ir.Operation {self.context.op_names[o.name]}>"

    def __str__(self):
        return self.print()

    @property
    def name(self):
        return self.context.op_names[OP(self.context, self.check()).name]

    @property
    def is_registered(self):
        return bool(self.context.names[OP(self.context, self.check()).name].registered)

    @property
    def op_def(self):
        """The registry row of this op, or None when unregistered."""
        return self.context.op_defs[OP(self.context, self.check()).name]

    def has_trait(self, int trait):
        return bool(self.context.names[OP(self.context, self.check()).name].traits & trait)

    @property
    def operands(self):
        cdef Context c = self.context
        cdef OpRec* o = OP(c, self.check())
        cdef int32_t i, v
        out = []
        for i in range(o.n_operands):
            v = USE(c, o.operands + i).value
            out.append(value_handle(c, v) if v >= 0 else None)
        return tuple(out)

    @property
    def results(self):
        cdef Context c = self.context
        cdef OpRec* o = OP(c, self.check())
        return tuple([value_handle(c, o.results + i) for i in range(o.n_results)])

    @property
    def result(self):
        """The single result (error unless the op has exactly one)."""
        cdef OpRec* o = OP(self.context, self.check())
        if o.n_results != 1:
            raise IRError(f"'{self.context.op_names[o.name]}' has {o.n_results} results, not 1")
        return value_handle(self.context, o.results)

    @property
    def result_types(self):
        return tuple(v.type for v in self.results)

    @property
    def operand_types(self):
        return tuple(v.type if v is not None else None for v in self.operands)

    @property
    def attributes(self):
        """A read-only view; change attributes with set_attribute/remove_attribute."""
        attrs = self.context.op_attrs.get(self.check())
        return MappingProxyType(attrs) if attrs else _EMPTY

    def set_attribute(self, str name, value):
        cdef Context c = self.context
        cdef int32_t op = self.check()
        check_text(name, "an attribute name")
        value = check_attribute(value)
        old = c.op_attrs.get(op) or {}
        new = copy_attributes(old)
        new[name] = value
        cdef Py_ssize_t delta = dict_attr_bytes(new) - dict_attr_bytes(old)
        c.check_capacity(0, 0, 0, delta)
        c.op_attrs[op] = new
        c.attr_bytes += delta
        touch(c, op)

    def remove_attribute(self, str name):
        cdef Context c = self.context
        cdef int32_t op = self.check()
        d = c.op_attrs.get(op)
        if not d or name not in d:
            raise KeyError(name)
        d = copy_attributes(d)
        c.attr_bytes -= len(name) + attribute_bytes(d.pop(name))
        if d:
            c.op_attrs[op] = d
        else:
            del c.op_attrs[op]
        touch(c, op)

    @property
    def regions(self):
        cdef OpRec* o = OP(self.context, self.check())
        return tuple([region_handle(self.context, self.id, i) for i in range(o.n_regions)])

    @property
    def parent(self):
        """The block holding this op, or None when detached."""
        cdef int32_t b = OP(self.context, self.check()).block
        return block_handle(self.context, b) if b >= 0 else None

    @property
    def parent_op(self):
        cdef int32_t p = parent_op(self.context, self.check())
        return op_handle(self.context, p) if p >= 0 else None

    @property
    def next(self):
        cdef int32_t n = OP(self.context, self.check()).next
        return op_handle(self.context, n) if n >= 0 else None

    @property
    def prev(self):
        cdef int32_t n = OP(self.context, self.check()).prev
        return op_handle(self.context, n) if n >= 0 else None

    @property
    def epoch(self):
        """Changes whenever this op or anything below it changes (never repeats a value)."""
        return OP(self.context, self.check()).epoch

    @property
    def uses(self):
        """Uses of all results, as (operation, operand index) pairs."""
        out = []
        for v in self.results:
            out.extend(v.uses)
        return out

    def walk(self, order="pre", name=None):
        """Iterate over this op and every op nested in it, pre- or post-order, optionally only
        ops named `name`. The set of ops is fixed when the walk starts; erased ones are skipped."""
        cdef Context c = self.context
        cdef int32_t root = self.check()
        cdef bint post
        if order == "pre":
            post = False
        elif order == "post":
            post = True
        else:
            raise ValueError("order must be 'pre' or 'post'")
        cdef int32_t want = -1
        if name is not None:
            found = c.op_name_ids.get(name)
            if found is None:
                return make_iterator(c, [])
            want = found
        cdef list ids = []
        cdef int32_t op = walk_first(c, root, post)
        while op >= 0:
            if want < 0 or OP(c, op).name == want:
                ids.append(op)
            op = walk_next(c, root, op, post)
        return make_iterator(c, ids)

    def erase(self, force=False):
        """Erase this op and everything nested in it. Refused while a result (or a value defined
        inside) has uses outside, unless `force`, which leaves those operands null."""
        erase_op(self.context, self.check(), force)

    def detach(self):
        """Remove this op from its block, keeping it (and its uses) alive."""
        unlink_op(self.context, self.check())
        return self

    cdef move(self, int32_t block, int32_t before):
        """Move this op into `block` before op `before` (-1: at the end)."""
        cdef Context c = self.context
        cdef int32_t op = self.check()
        if before == op:
            return self
        if block_ancestor_op_is(c, block, op):
            raise IRError("cannot move an operation into its own region (that makes a cycle)")
        unlink_op(c, op)
        insert_op(c, op, block, before)
        return self

    cdef int32_t anchor_block(self, other) except -2:
        """The op to move next to, or -1 when it is this op (nothing to do)."""
        cdef int32_t anchor = op_id(self.context, other)
        if anchor == self.check():
            return -1
        if OP(self.context, anchor).block < 0:
            raise IRError("cannot move next to a detached operation")
        return anchor

    def move_before(self, other):
        cdef int32_t anchor = self.anchor_block(other)
        return self if anchor < 0 else self.move(OP(self.context, anchor).block, anchor)

    def move_after(self, other):
        cdef int32_t anchor = self.anchor_block(other)
        if anchor < 0:
            return self
        return self.move(OP(self.context, anchor).block, OP(self.context, anchor).next)

    def move_to_end(self, block):
        return self.move(block_id(self.context, block), -1)

    def move_to_start(self, block):
        cdef int32_t b = block_id(self.context, block)
        return self.move(b, BLK(self.context, b).first_op)

    def set_operand(self, index, value):
        cdef Context c = self.context
        cdef int32_t op = self.check()
        cdef int32_t v = value_id(c, value)
        index = operator.index(index)
        if not 0 <= index < OP(c, op).n_operands:
            raise IndexError(f"operand index {index} out of range "
                             f"({OP(c, op).n_operands} operands)")
        set_operand(c, op, <int32_t>index, v)


    def set_operands(self, values):
        """Replace the whole operand list (its length may change)."""
        cdef Context c = self.context
        cdef int32_t op = self.check()
        ids = [value_id(c, v) for v in values]
        cdef int32_t n = len(ids), i, u0 = -1
        if n != OP(c, op).n_operands:
            u0 = c.uses.alloc(n)                     # may fail: nothing has changed yet
        cdef OpRec* o = OP(c, op)
        for i in range(o.n_operands):
            unlink_use(c, o.operands + i)
        if n != o.n_operands:
            c.uses.release(o.operands, o.n_operands)
            o.operands = u0
            o.n_operands = n
            for i in range(n):
                USE(c, u0 + i).owner = op
                USE(c, u0 + i).value = -1
        for i in range(n):
            if ids[i] >= 0:
                link_use(c, OP(c, op).operands + i, ids[i])
        touch(c, op)

    def replace_all_uses_with(self, values):
        """Make every user of this op's results use `values` (an Operation or a sequence)."""
        cdef Context c = self.context
        cdef int32_t op = self.check()
        if isinstance(values, Operation):
            values = values.results
        elif isinstance(values, Value):
            values = (values,)
        values = tuple(values)
        if len(values) != OP(c, op).n_results:
            raise IRError(f"replacing {OP(c, op).n_results} results with {len(values)} values")
        ids = [value_id(c, v) for v in values]
        for i, v in enumerate(ids):
            if v < 0:
                raise TypeError("replacement values cannot be None")
        for i, v in enumerate(ids):
            replace_all_uses(c, OP(c, op).results + i, v)

    def clone(self, context=None, mapping=None):
        """A deep, detached copy, in this Context or into `context`. Values from outside the op
        map through `mapping` ({Value: Value}) or, within one Context, to themselves."""
        cdef Context dst = self.context if context is None else context
        ids = None
        if mapping is not None:       # to plain ids first: no user code runs during the copy
            ids = {value_id(self.context, k): value_id(dst, v) for k, v in dict(mapping).items()}
        return op_handle(dst, clone_op(self.context, self.check(), dst, ids))

    def verify(self):
        """Raise VerifyError for the first broken rule in this op and below."""
        self.check()
        _verify(self)

    def print(self, generic=False):
        """Text of this op: accy's pretty form, or MLIR's generic form."""
        self.check()
        return _print_op(self, generic)

    def fingerprint(self):
        """sha256 hex of this op's structure: independent of names, ids and process."""
        self.check()
        return _fingerprint(self)


@cython.auto_pickle(False)
cdef class Module(Operation):
    """A `builtin.module` op: one region, one block, holding the program."""

    @staticmethod
    def create(Context context=None):
        if context is None:
            context = Context()
        cdef int32_t name = context.name_id("builtin.module")
        context.check_capacity(1, 0, 1, 0)
        cdef int32_t op = create_op(context, name, NULL, 0, NULL, 0, 1, None)
        cdef int32_t b = create_block(context, NULL, 0)
        insert_block(context, b, OP(context, op).regions, -1)
        return as_module(context, op)

    @property
    def body(self):
        cdef OpRec* o = OP(self.context, self.check())
        if o.n_regions < 1 or REG(self.context, o.regions).first_block < 0:
            raise IRError("module has no body block")
        return block_handle(self.context, REG(self.context, o.regions).first_block)

    def clone(self, context=None, mapping=None):
        """As `Operation.clone`, the copy as a Module (with its `body`)."""
        cdef Operation op = Operation.clone(self, context, mapping)
        return as_module(op.context, op.id)

    def __repr__(self):
        return "<accy.ir.Module>"


cdef Module as_module(Context c, int32_t op):
    cdef Module h = Module.__new__(Module)
    h.context = c
    h.id = op
    h.gen = OP(c, op).gen
    return h


@cython.auto_pickle(False)
cdef class Value:
    """A handle to an SSA value: an op result or a block argument."""

    cdef int32_t check(self) except -1:
        if self.context is None or not 0 <= self.id < self.context.values.top:
            raise IRError("not a handle made by accy")
        cdef ValueRec* v = VAL(self.context, self.id)
        if v.kind == VALUE_FREE or v.kind == VALUE_PLACEHOLDER or v.gen != self.gen:
            raise IRError("this value was erased")
        return self.id

    def __eq__(self, other):
        if not isinstance(other, Value):
            return NotImplemented
        cdef Value h = <Value>other
        return h.context is self.context and h.id == self.id and h.gen == self.gen

    def __hash__(self):
        return handle_hash(self.context, <uint32_t>self.id, self.gen, 1)

    def __repr__(self):
        try:
            self.check()
        except IRError:
            return "<accy.ir.Value (erased)>"
        cdef ValueRec* v = VAL(self.context, self.id)
        kind = "argument" if v.kind == VALUE_ARGUMENT else "result"
        return f"<accy.ir.Value {kind} #{v.index}: {self.context.type_str(v.type)}>"

    @property
    def type(self):
        cdef int32_t t = VAL(self.context, self.check()).type
        return self.context.types[t] if t >= 0 else None

    def set_type(self, t):
        cdef Context c = self.context
        cdef int32_t v = self.check()
        cdef int32_t tid = c.type_id(t)
        VAL(c, v).type = tid
        owner = self.owner
        if isinstance(owner, Operation):
            touch(c, (<Operation>owner).id)
        elif BLK(c, VAL(c, v).owner).region >= 0:
            touch(c, REG(c, BLK(c, VAL(c, v).owner).region).op)
        cdef int32_t u = VAL(c, v).first_use          # users see a new operand type
        while u >= 0:
            touch(c, USE(c, u).owner)
            u = USE(c, u).next

    @property
    def is_block_argument(self):
        return VAL(self.context, self.check()).kind == VALUE_ARGUMENT

    @property
    def owner(self):
        """The defining Operation, or the Block for a block argument."""
        cdef ValueRec* v = VAL(self.context, self.check())
        if v.kind == VALUE_RESULT:
            return op_handle(self.context, v.owner)
        if v.kind == VALUE_ARGUMENT:
            return block_handle(self.context, v.owner)
        return None

    @property
    def index(self):
        return VAL(self.context, self.check()).index

    @property
    def uses(self):
        """The (operation, operand index) pairs that use this value."""
        cdef Context c = self.context
        cdef int32_t u = VAL(c, self.check()).first_use
        cdef UseRec* r
        out = []
        while u >= 0:
            r = USE(c, u)
            out.append(Use(op_handle(c, r.owner), u - OP(c, r.owner).operands))
            u = r.next
        return out

    @property
    def has_uses(self):
        return VAL(self.context, self.check()).first_use >= 0

    @property
    def num_uses(self):
        cdef int32_t u = VAL(self.context, self.check()).first_use
        cdef Py_ssize_t n = 0
        while u >= 0:
            n += 1
            u = USE(self.context, u).next
        return n

    def replace_all_uses_with(self, other):
        cdef Context c = self.context
        cdef int32_t v = self.check()
        cdef int32_t w = value_id(c, other)
        if w < 0:
            raise TypeError("replacement value cannot be None")
        replace_all_uses(c, v, w)


@cython.auto_pickle(False)
cdef class Block:
    """A handle to a block: arguments and a list of operations."""

    cdef int32_t check(self) except -1:
        if self.context is None or not 0 <= self.id < self.context.blocks.top:
            raise IRError("not a handle made by accy")
        cdef BlockRec* b = BLK(self.context, self.id)
        if not b.live or b.gen != self.gen:
            raise IRError("this block was erased")
        return self.id

    @staticmethod
    def create(Context context not None, arg_types=()):
        """A detached block; insert it with Region.append / insert_before."""
        ids = [context.type_id(t) for t in arg_types]
        cdef int32_t b = create_block(context, NULL, len(ids))
        for i, t in enumerate(ids):
            VAL(context, ARGS(context, BLK(context, b).args)[i]).type = t
        return block_handle(context, b)

    def __eq__(self, other):
        if not isinstance(other, Block):
            return NotImplemented
        cdef Block h = <Block>other
        return h.context is self.context and h.id == self.id and h.gen == self.gen

    def __hash__(self):
        return handle_hash(self.context, <uint32_t>self.id, self.gen, 2)

    def __repr__(self):
        return f"<accy.ir.Block with {len(self.arguments)} arguments>"

    @property
    def arguments(self):
        cdef Context c = self.context
        cdef BlockRec* b = BLK(c, self.check())
        return tuple([value_handle(c, ARGS(c, b.args)[i]) for i in range(b.n_args)])

    def add_argument(self, t):
        cdef Context c = self.context
        cdef int32_t b = self.check()
        return value_handle(c, add_argument(c, b, c.type_id(t)))

    @property
    def operations(self):
        """The ops of this block, in order (a list fixed at the time of the call)."""
        cdef Context c = self.context
        cdef int32_t op = BLK(c, self.check()).first_op
        out = []
        while op >= 0:
            out.append(op_handle(c, op))
            op = OP(c, op).next
        return out

    def __iter__(self):
        return iter(self.operations)

    def __len__(self):
        cdef int32_t op = BLK(self.context, self.check()).first_op
        cdef Py_ssize_t n = 0
        while op >= 0:
            n += 1
            op = OP(self.context, op).next
        return n

    @property
    def first_op(self):
        cdef int32_t op = BLK(self.context, self.check()).first_op
        return op_handle(self.context, op) if op >= 0 else None

    @property
    def last_op(self):
        cdef int32_t op = BLK(self.context, self.check()).last_op
        return op_handle(self.context, op) if op >= 0 else None

    @property
    def parent(self):
        """The region holding this block, or None when detached."""
        cdef int32_t r = BLK(self.context, self.check()).region
        if r < 0:
            return None
        cdef int32_t op = REG(self.context, r).op
        return region_handle(self.context, op, r - OP(self.context, op).regions)

    @property
    def parent_op(self):
        cdef int32_t r = BLK(self.context, self.check()).region
        return op_handle(self.context, REG(self.context, r).op) if r >= 0 else None

    def erase(self, force=False):
        """Erase this block, its arguments and its ops (refused while they have outside uses,
        unless `force`)."""
        erase_block(self.context, self.check(), force)

    def detach(self):
        unlink_block(self.context, self.check())
        return self


@cython.auto_pickle(False)
cdef class Region:
    """A handle to a region: a list of blocks owned by an op."""

    cdef int32_t check(self) except -1:
        if self.context is None or not 0 <= self.op < self.context.ops.top:
            raise IRError("not a handle made by accy")
        cdef OpRec* o = OP(self.context, self.op)
        if o.name < 0 or o.gen != self.op_gen or not 0 <= self.index < o.n_regions:
            raise IRError("the operation holding this region was erased")
        return o.regions + self.index

    def __eq__(self, other):
        if not isinstance(other, Region):
            return NotImplemented
        cdef Region h = <Region>other
        return (h.context is self.context and h.op == self.op and h.op_gen == self.op_gen
                and h.index == self.index)

    def __hash__(self):
        return handle_hash(self.context, <uint32_t>self.op | (<uint64_t><uint32_t>self.index << 32),
                           self.op_gen, 3)

    def __repr__(self):
        return f"<accy.ir.Region #{self.index} with {len(self.blocks)} blocks>"

    @property
    def parent(self):
        self.check()
        return op_handle(self.context, self.op)

    @property
    def blocks(self):
        cdef Context c = self.context
        cdef int32_t b = REG(c, self.check()).first_block
        out = []
        while b >= 0:
            out.append(block_handle(c, b))
            b = BLK(c, b).next
        return out

    def __iter__(self):
        return iter(self.blocks)

    def __len__(self):
        return len(self.blocks)

    @property
    def entry(self):
        """The first block, or None for an empty region."""
        cdef int32_t b = REG(self.context, self.check()).first_block
        return block_handle(self.context, b) if b >= 0 else None

    def append(self, block):
        cdef int32_t r = self.check()
        insert_block(self.context, block_id(self.context, block), r, -1)
        return block

    def insert_before(self, block, before):
        cdef int32_t r = self.check()
        insert_block(self.context, block_id(self.context, block), r,
                     block_id(self.context, before))
        return block

    def add_block(self, arg_types=()):
        """Create a block with arguments of `arg_types` at the end of this region."""
        self.check()
        return self.append(Block.create(self.context, arg_types))


@cython.auto_pickle(False)
cdef class Builder:
    """Creates ops and inserts them at an insertion point (none: ops stay detached)."""
    cdef readonly Context context
    cdef int32_t block
    cdef uint32_t block_gen
    cdef int32_t before
    cdef uint32_t before_gen

    def __init__(self, Context context not None):
        self.context = context
        self.block = -1
        self.before = -1

    def at_end(self, block):
        self.block = block_id(self.context, block)
        self.block_gen = BLK(self.context, self.block).gen
        self.before = -1
        return self

    def at_start(self, block):
        self.block = block_id(self.context, block)
        self.block_gen = BLK(self.context, self.block).gen
        self.before = BLK(self.context, self.block).first_op
        if self.before >= 0:
            self.before_gen = OP(self.context, self.before).gen
        return self

    def before_op(self, op):
        cdef int32_t o = op_id(self.context, op)
        if OP(self.context, o).block < 0:
            raise IRError("cannot insert before a detached operation")
        self.block = OP(self.context, o).block
        self.block_gen = BLK(self.context, self.block).gen
        self.before = o
        self.before_gen = OP(self.context, o).gen
        return self

    def after_op(self, op):
        cdef int32_t o = op_id(self.context, op)
        if OP(self.context, o).block < 0:
            raise IRError("cannot insert after a detached operation")
        self.block = OP(self.context, o).block
        self.block_gen = BLK(self.context, self.block).gen
        self.before = OP(self.context, o).next
        if self.before >= 0:
            self.before_gen = OP(self.context, self.before).gen
        return self

    def detached(self):
        """Create ops without inserting them."""
        self.block = -1
        self.before = -1
        return self

    @property
    def insertion_block(self):
        self.check_point()
        return block_handle(self.context, self.block) if self.block >= 0 else None

    cdef int check_point(self) except -1:
        cdef Context c = self.context
        if self.block < 0:
            return 0
        if not BLK(c, self.block).live or BLK(c, self.block).gen != self.block_gen:
            raise IRError("the builder's insertion block was erased")
        if self.before >= 0 and (OP(c, self.before).name < 0 or
                                 OP(c, self.before).gen != self.before_gen or
                                 OP(c, self.before).block != self.block):
            raise IRError("the builder's insertion point moved or was erased")
        return 0

    def insert(self, op):
        """Insert a detached op at the insertion point."""
        cdef int32_t o = op_id(self.context, op)
        self.check_point()
        if self.block < 0:
            raise IRError("the builder has no insertion point")
        insert_op(self.context, o, self.block, self.before)
        return op

    def create(self, str name, operands=(), result_types=None, attributes=None, regions=None,
               infer=None):
        """Create op `name`. Result types are inferred from the registry when not given;
        `regions` defaults to the registered count (0 for unregistered ops). An unregistered op
        given a PropertyDict keeps which attributes are its properties. `infer`, instead of
        `result_types`, is called with the checked attributes (a dict) before the op is made
        and gives its result types: a dialect's builder checks the op's rule there, on the
        attributes as the op will hold them, without checking them a second time."""
        cdef Context c = self.context
        cdef int32_t nid = c.name_id(name)
        cdef NameRec* row = c.names + nid
        cdef int32_t buf[8]
        cdef int32_t tbuf[8]
        cdef int32_t* ops = buf
        cdef int32_t* tys = tbuf
        cdef _Scratch s = None
        cdef Py_ssize_t n = len(operands), nr, i
        if n > 8:
            s = _Scratch()
            ops = s.ints(n, -1)
        for i in range(n):
            ops[i] = value_id(c, operands[i])
        if attributes:
            if not isinstance(attributes, Mapping):
                raise TypeError("attributes must be a mapping of names to attribute values")
            given = attributes
            attributes = {check_text(k, "an attribute name"): check_attribute(v)
                          for k, v in attributes.items()}
            if type(given) is PropertyDict and c.op_defs[nid] is None:
                attributes = PropertyDict(attributes, (<object>given).properties)
        else:
            attributes = None
        if infer is not None:
            if result_types is not None:
                raise TypeError("give result_types or infer, not both")
            result_types = infer(attributes if attributes is not None else {})
            for i in range(n):           # the hook may have changed the IR
                ops[i] = value_id(c, operands[i])
        elif result_types is None:
            result_types = infer_result_types(c, nid, ops, n, attributes)
            for i in range(n):           # an inference hook may have changed the IR
                ops[i] = value_id(c, operands[i])
        nr = len(result_types)
        if nr > 8:
            if s is None:
                s = _Scratch()
            tys = s.ints(nr, -1)
        for i in range(nr):
            tys[i] = c.type_id(result_types[i])
        cdef int32_t nreg
        if regions is None:
            nreg = row.regions if row.regions > 0 else 0
        else:
            if not 0 <= regions <= 65535:
                raise ValueError("regions must be between 0 and 65535")
            nreg = regions
        self.check_point()
        cdef int32_t op = create_op(c, nid, ops, <int32_t>n, tys, <int32_t>nr, nreg, attributes)
        if self.block >= 0:
            insert_op(c, op, self.block, self.before)
        return op_handle(c, op)

    def create_block(self, region, arg_types=()):
        """Append a new block to `region` and move the insertion point to its end."""
        if not isinstance(region, Region):
            raise TypeError(f"expected a Region, got {type(region).__name__}")
        block = region.add_block(arg_types)
        self.at_end(block)
        return block


cdef object infer_result_types(Context c, int32_t nid, int32_t* ops, Py_ssize_t n, object attrs):
    cdef NameRec* row = c.names + nid
    if row.traits & T_SAME_TYPE and n > 0 and ops[0] >= 0:
        if row.max_results == 1 or row.min_results == 1:
            return (c.types[VAL(c, ops[0]).type],)
    opdef = c.op_defs[nid]
    if opdef is not None and opdef.infer is not None:
        types = tuple(c.types[VAL(c, ops[i]).type] if ops[i] >= 0 else None for i in range(n))
        return tuple(opdef.infer(types, attrs or {}))
    if row.registered and row.max_results == 0:
        return ()
    raise IRError(f"cannot infer result types of '{c.op_names[nid]}'; pass result_types")


def count_ops(Operation root not None, name=None):
    """How many ops `root` holds (itself included), optionally only those named `name`.
    A C-speed walk through the cdef API, as passes written in Cython walk."""
    cdef Context c = root.context
    cdef int32_t r = root.check()
    cdef int32_t want = -1
    if name is not None:
        found = c.op_name_ids.get(name)
        if found is None:
            return 0
        want = found
    cdef Py_ssize_t n = 0
    cdef int32_t op = walk_first(c, r, False)
    while op >= 0:
        if want < 0 or OP(c, op).name == want:
            n += 1
        op = walk_next(c, r, op, False)
    return n


def op_statistics(Operation root not None):
    """{op name: count} for `root` and everything nested in it (like mlir-opt's op stats)."""
    cdef Context c = root.context
    cdef int32_t r = root.check()
    cdef dict counts = {}
    cdef int32_t op = walk_first(c, r, False)
    while op >= 0:
        counts[OP(c, op).name] = counts.get(OP(c, op).name, 0) + 1
        op = walk_next(c, r, op, False)
    return {c.op_names[k]: v for k, v in sorted(counts.items(), key=lambda kv: c.op_names[kv[0]])}
