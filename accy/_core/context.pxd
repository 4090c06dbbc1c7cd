# Storage of the IR: every entity is a fixed-size record in a growable array, addressed by a
# 32-bit id. Other Cython modules (text, verify, future passes) and C extensions read the records
# directly through these declarations; Python sees thin handles (context + id + generation).
cimport cython
from libc.stdint cimport int32_t, uint16_t, uint32_t, uint64_t

cdef enum ValueKind:
    VALUE_FREE = 0
    VALUE_RESULT = 1
    VALUE_ARGUMENT = 2
    VALUE_PLACEHOLDER = 3       # a forward reference while parsing; never in finished IR

ctypedef struct OpRec:
    int32_t name                # op-name id; -1 when the slot is free
    uint32_t gen                # bumped when the slot is freed: stale handles are detected
    int32_t block               # parent block, -1 when detached
    int32_t prev
    int32_t next
    int32_t operands            # first slot in Context.uses (one UseRec per operand)
    int32_t n_operands
    int32_t results             # first slot in Context.values
    int32_t regions             # first slot in Context.regions
    uint16_t n_results
    uint16_t n_regions
    uint64_t epoch              # Context clock value of the last change in or below this op

ctypedef struct UseRec:        # one operand slot: the op that uses it and the value it holds
    int32_t value               # -1 when null
    int32_t owner
    int32_t prev                # neighbours in the value's use list
    int32_t next

ctypedef struct ValueRec:
    int32_t type                # type id, -1 when unknown (placeholder)
    int32_t owner               # op (result) or block (argument)
    int32_t index
    int32_t first_use
    uint32_t gen
    int32_t kind                # ValueKind

ctypedef struct BlockRec:
    int32_t region              # parent region, -1 when detached
    uint32_t gen
    int32_t live
    int32_t prev
    int32_t next
    int32_t first_op
    int32_t last_op
    int32_t args                # first slot in Context.args (value ids)
    int32_t n_args
    int32_t cap_args

ctypedef struct RegionRec:
    int32_t op                  # parent op
    int32_t first_block
    int32_t last_block

ctypedef struct NameRec:       # what the core needs from an op kind's registry row, per name id
    uint32_t traits
    int32_t registered
    int32_t min_operands
    int32_t max_operands        # -1: variadic
    int32_t min_results
    int32_t max_results
    int32_t regions
    int32_t checked_in_python   # has infer, verify or an attribute schema
    int32_t bare_name           # the name can be written unquoted (pretty form)

@cython.final
cdef class Pool:
    cdef char* data
    cdef Py_ssize_t itemsize
    cdef int32_t top
    cdef int32_t cap
    cdef Py_ssize_t live
    cdef int32_t** free_stacks
    cdef int32_t* free_n
    cdef int32_t* free_cap
    cdef dict large_free
    cdef int reserve(self, Py_ssize_t extra) except -1
    cdef int32_t alloc(self, int32_t n) except -2
    cdef int release(self, int32_t start, int32_t n) except -1

@cython.final
cdef class IdMap:
    cdef int32_t* p
    cdef Py_ssize_t cap
    cdef int32_t* touched
    cdef Py_ssize_t n_touched, touched_cap
    cdef bint busy
    cdef int ensure(self, Py_ssize_t size) except -1
    cdef int set(self, int32_t key, int32_t value) except -1
    cdef void reset(self) noexcept

cdef class Context:
    cdef Pool ops, uses, values, blocks, regions, args
    cdef readonly bint allow_unregistered
    cdef readonly object capacity
    cdef Py_ssize_t max_ops, max_values, max_blocks, max_attr_bytes
    cdef Py_ssize_t attr_bytes
    cdef list op_names
    cdef dict op_name_ids
    cdef list op_defs
    cdef NameRec* names
    cdef int32_t names_cap
    cdef readonly list types
    cdef dict type_ids
    cdef list type_strs
    cdef dict op_attrs          # op id -> attribute dict, for ops that have attributes
    cdef IdMap vmap, bmap, omap # scratch id maps reused by clone (reset after each use)
    cdef uint64_t clock
    cdef dict checked           # op id -> its epoch when verify last passed its schema and inference

    cdef set_limits(self, capacity)
    cdef int32_t name_id(self, str name) except -1
    cdef int32_t type_id(self, object t) except -1
    cdef str type_str(self, int32_t t)
    cdef int check_capacity(self, Py_ssize_t ops, Py_ssize_t values, Py_ssize_t blocks,
                            Py_ssize_t attr_bytes) except -1

cdef inline OpRec* OP(Context c, int32_t i):
    return (<OpRec*>c.ops.data) + i
cdef inline UseRec* USE(Context c, int32_t i):
    return (<UseRec*>c.uses.data) + i
cdef inline ValueRec* VAL(Context c, int32_t i):
    return (<ValueRec*>c.values.data) + i
cdef inline BlockRec* BLK(Context c, int32_t i):
    return (<BlockRec*>c.blocks.data) + i
cdef inline RegionRec* REG(Context c, int32_t i):
    return (<RegionRec*>c.regions.data) + i
cdef inline int32_t* ARGS(Context c, int32_t i):
    return (<int32_t*>c.args.data) + i

cdef inline int32_t parent_op(Context c, int32_t op):
    cdef int32_t b = OP(c, op).block
    if b < 0:
        return -1
    cdef int32_t r = BLK(c, b).region
    if r < 0:
        return -1
    return REG(c, r).op

# Mutation and walks for Cython/C callers; all keep use lists exact and bump epochs.
cdef void touch(Context c, int32_t op)
cdef int32_t create_op(Context c, int32_t name, const int32_t* operands, int32_t n_operands,
                       const int32_t* result_types, int32_t n_results, int32_t n_regions,
                       object attrs) except -1
# create_op without the capacity check, for a caller that made it (`nbytes`: the attributes'
# bytes when it has them, -1: computed)
cdef int32_t build_op(Context c, int32_t name, const int32_t* operands, int32_t n_operands,
                      const int32_t* result_types, int32_t n_results, int32_t n_regions,
                      object attrs, Py_ssize_t nbytes=*) except -1
cdef int32_t create_block(Context c, const int32_t* arg_types, int32_t n_args) except -1
cdef int32_t add_argument(Context c, int32_t block, int32_t type) except -1
cdef int insert_op(Context c, int32_t op, int32_t block, int32_t before) except -1
cdef void append_op(Context c, int32_t op, int32_t block) noexcept
cdef void append_block(Context c, int32_t block, int32_t region) noexcept
cdef int insert_block(Context c, int32_t block, int32_t region, int32_t before) except -1
cdef int unlink_op(Context c, int32_t op) except -1
cdef int erase_op(Context c, int32_t op, bint force) except -1
cdef int set_operand(Context c, int32_t op, int32_t index, int32_t value) except -1
cdef int replace_all_uses(Context c, int32_t old, int32_t new) except -1
cdef int drop_uses_of(Context c, int32_t value) except -1
cdef int32_t new_placeholder(Context c, int32_t type) except -1
# a detached deep copy of op `root` of `src` in `dst`; operands defined outside it read through
# `mapping` ({value id: value id}), else (within one Context) themselves
cdef int32_t clone_op(Context src, int32_t root, Context dst, dict mapping) except -1
cdef int free_placeholder(Context c, int32_t value) except -1

# Walk iterators: `op = walk_first(c, root, post)`; while op >= 0: ...; op = walk_next(...)
cdef int32_t walk_first(Context c, int32_t root, bint post) noexcept
cdef int32_t walk_next(Context c, int32_t root, int32_t cur, bint post) noexcept

cdef class Operation:
    cdef readonly Context context
    cdef int32_t id
    cdef uint32_t gen
    cdef int32_t check(self) except -1
    cdef move(self, int32_t block, int32_t before)
    cdef int32_t anchor_block(self, other) except -2

cdef class Value:
    cdef readonly Context context
    cdef int32_t id
    cdef uint32_t gen
    cdef int32_t check(self) except -1

cdef class Block:
    cdef readonly Context context
    cdef int32_t id
    cdef uint32_t gen
    cdef int32_t check(self) except -1

cdef class Module(Operation):
    pass

cdef class Region:
    cdef readonly Context context
    cdef int32_t op
    cdef uint32_t op_gen
    cdef int32_t index
    cdef int32_t check(self) except -1

cdef Operation op_handle(Context c, int32_t op)
cdef Value value_handle(Context c, int32_t v)
cdef Block block_handle(Context c, int32_t b)
cdef Region region_handle(Context c, int32_t op, int32_t index)
cdef Module as_module(Context c, int32_t op)
cdef int erase_block(Context c, int32_t block, bint force) except -1
