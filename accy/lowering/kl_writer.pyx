# cython: language_level=3
"""Writing `kl` ops straight into the IR core's records: kl's scalar and pointer types, its
literals, and `KernelWriter`, the part of `KernelBuilder` (accy/lowering/kl.py) that creates
ops. A lowering writes a thousand ops a kernel, so each is made through the core's cdef API:
op names and result types interned once per kernel as ids, a result's type read from its
operand's record, each op's attribute dictionary checked once per distinct set of values and
then shared (attributes are immutable; setting one copies the dictionary).
"""
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int32_t, uint32_t

from accy._core.context cimport (BLK, OP, REG, USE, VAL, VALUE_ARGUMENT, VALUE_RESULT, Block,
                                 Context, Operation, Value, block_handle, build_op, clone_op,
                                 create_block, insert_block, insert_op, op_handle,
                                 value_handle, walk_next)

import numpy as np

from accy._core.attributes import DenseAttr, attribute_bytes, check_attribute, check_text
from accy._core.context import Builder
from accy._core.types import OpaqueType, TensorType, numpy_dtype, round_float
from accy.errors import IRError

# ---- types -------------------------------------------------------------------------------------

cdef dict _SCALARS = {}
cdef dict _POINTERS = {}


def scalar(str dtype):
    """The type of a `dtype` scalar (rank 0), made once per dtype."""
    t = _SCALARS.get(dtype)
    if t is None:
        t = _SCALARS[dtype] = TensorType(dtype, ())
    return t


def ptr_type(str dtype):
    """The type of a pointer to global memory holding `dtype` elements."""
    return _pointer("!kl.ptr<", dtype)


def shared_type(str dtype):
    """The type of a pointer to the block's shared memory holding `dtype` elements."""
    return _pointer("!kl.shared<", dtype)


cdef object _pointer(str prefix, str dtype):
    key = (prefix, dtype)
    t = _POINTERS.get(key)
    if t is None:
        t = _POINTERS[key] = OpaqueType(f"{prefix}{dtype}>")
    return t


def pointee(t):
    """The element dtype of a `!kl.ptr<...>` or `!kl.shared<...>` type, else None."""
    text = getattr(t, "text", None)
    if text is None:
        return None
    for prefix in ("!kl.ptr<", "!kl.shared<"):
        if text.startswith(prefix):
            return text[len(prefix):-1]
    return None


def space(t):
    """'global' or 'shared' for a pointer type, else None."""
    text = getattr(t, "text", "")
    return "global" if text.startswith("!kl.ptr<") else \
        "shared" if text.startswith("!kl.shared<") else None


# ---- literals ----------------------------------------------------------------------------------

cdef dict _LITERALS = {}    # (type name, repr of the value, dtype) -> (DenseAttr, a constant's
                            # attributes holding it, their bytes); repr keeps -0.0, nan, 1 vs 1.0
                            # apart


def _scalar_literal(value, dtype):
    if dtype in ("f16", "bf16", "f32", "f64"):
        array = np.asarray(round_float(float(value), dtype))
    else:
        array = np.asarray(value, numpy_dtype(dtype))
    return DenseAttr(array, dtype)


cdef tuple _literal(value, str dtype):
    value = value.item() if hasattr(value, "item") else value
    key = (type(value).__name__, repr(value), dtype)
    found = _LITERALS.get(key)
    if found is None:
        if len(_LITERALS) > 4096:
            _LITERALS.clear()
        attrs = {"value": _scalar_literal(value, dtype)}
        found = _LITERALS[key] = (attrs["value"], attrs, _bytes(attrs))
    return found


def literal(value, str dtype):
    """The rank-0 DenseAttr of `value` as `dtype` (floats rounded once), shared: attributes
    are immutable, and kernels use the same few literals again and again."""
    return _literal(value, dtype)[0]


# ---- the writer --------------------------------------------------------------------------------

cdef dict _ATTRIBUTES = {}  # ((name, type, value), ...) -> (checked dict, its bytes): attribute
                            # sets do not depend on a Context, and kernels use few of them

cdef class _Tables:
    """What every writer of one kernel shares: the kernel's constants and the ids its context
    gave names and types."""
    cdef dict constants         # literal key -> the kl.constant's value
    cdef dict names             # op name, short ("add") or full ("kl.for") -> name id
    cdef dict scalars           # dtype -> type id of its scalar
    cdef dict elements          # pointer type id -> type id of its element's scalar

    def __cinit__(self):
        self.constants, self.names, self.scalars, self.elements = {}, {}, {}, {}


cdef class Segment:
    """Ops a KernelWriter recorded (`recorded`): the first and last of a run at the end of a
    block, each with its record's generation (an erased op is noticed), and the values from
    outside the run its ops read (`reads`, ids)."""
    cdef Context context
    cdef int32_t first, last
    cdef uint32_t first_gen, last_gen
    cdef list reads

    cdef bint live(self, int32_t op, uint32_t gen) noexcept:
        return 0 <= op < self.context.ops.top and OP(self.context, op).name >= 0 and \
            OP(self.context, op).gen == gen


cdef bint _live_value(Context c, object v):
    return 0 <= v < c.values.top and VAL(c, <int32_t>v).kind in (VALUE_RESULT, VALUE_ARGUMENT)


cdef class ValueMap:
    """The values a replayed segment reads instead of others (`KernelWriter.value_map`), and
    the copies' results, by id in one Context; a value is checked live where it is read."""
    cdef Context context
    cdef dict ids


cdef class KernelWriter:
    """Creates kl ops at an insertion point: the end of a block, or (`hoisting`) after an
    anchor op, each op after the one made before it. Constants are made once per kernel, at
    the top of its entry block (`constant`)."""
    cdef readonly Context context
    cdef _Tables tables
    cdef int32_t entry              # the kernel's entry block
    cdef int32_t block              # the insertion block ...
    cdef uint32_t block_gen
    cdef bint after                 # ... at its end, or after `anchor` (-1: at its start)
    cdef int32_t anchor
    cdef uint32_t anchor_gen
    cdef int32_t last_constant      # the constant this writer made last (-1: none yet)
    cdef uint32_t last_constant_gen
    cdef bint recording             # `record`: noting the ops placed at the end of `rec_block`
    cdef int32_t rec_block, rec_first, rec_count

    def __init__(self, Context context not None, Block entry not None):
        if entry.context is not context:
            raise IRError("the entry block belongs to another Context")
        self.context = context
        self.tables = _Tables()
        self.entry = entry.check()
        self.last_constant = -1
        self._point(self.entry, False, -1)

    cdef void _point(self, int32_t block, bint after, int32_t anchor) noexcept:
        self.block, self.block_gen = block, BLK(self.context, block).gen
        self.after, self.anchor = after, anchor
        if anchor >= 0:
            self.anchor_gen = OP(self.context, anchor).gen

    # ---- insertion points ----------------------------------------------------------------

    def enter(self, Block block not None):
        """Write at the end of `block` from now on; returns the point left, for `leave`."""
        if block.context is not self.context:
            raise IRError("the block belongs to another Context")
        saved = (self.block, self.block_gen, self.after, self.anchor, self.anchor_gen)
        self._point(block.check(), False, -1)
        return saved

    def leave(self, tuple saved):
        """Write at the point `enter` left again."""
        self.block, self.block_gen, self.after, self.anchor, self.anchor_gen = saved

    def hoisting(self):
        """A writer of the same kernel that writes before whatever this one writes next: after
        the last op this one has written so far, each op after the one before it. It shares
        this writer's constants; the constants it makes follow the last this writer had made
        when it was taken."""
        self._check_point()
        cdef KernelWriter w = type(self).__new__(type(self))
        w.context, w.tables, w.entry = self.context, self.tables, self.entry
        w.last_constant, w.last_constant_gen = self.last_constant, self.last_constant_gen
        w._point(self.block, True, self.anchor if self.after else
                 BLK(self.context, self.block).last_op)
        if hasattr(self, "__dict__"):      # a subclass's own fields
            w.__dict__.update(self.__dict__)
        return w

    cdef int _check_point(self) except -1:
        cdef Context c = self.context
        if not BLK(c, self.block).live or BLK(c, self.block).gen != self.block_gen:
            raise IRError("the writer's insertion block was erased")
        if self.after and self.anchor >= 0 and (
                OP(c, self.anchor).name < 0 or OP(c, self.anchor).gen != self.anchor_gen or
                OP(c, self.anchor).block != self.block):
            raise IRError("the writer's insertion point moved or was erased")
        return 0

    cdef void _noted(self, int32_t op) noexcept:
        """While recording: one more op of this writer's (the segment's first when it is the
        first at the end of the recorded block)."""
        if self.rec_first < 0 and not self.after and self.block == self.rec_block:
            self.rec_first = op
        self.rec_count += 1

    cdef int _place(self, int32_t op) except -1:
        """Link new `op` in at the insertion point."""
        cdef Context c = self.context
        self._check_point()
        if not self.after:
            insert_op(c, op, self.block, -1)
            if self.recording:
                self._noted(op)
            return 0
        insert_op(c, op, self.block, OP(c, self.anchor).next if self.anchor >= 0 else
                  BLK(c, self.block).first_op)
        self.anchor, self.anchor_gen = op, OP(c, op).gen
        return 0

    # ---- segments: ops written once and copied ---------------------------------------------

    def record(self):
        """Note the ops this writer places from now on, until `recorded`: the ones at the end
        of its block (with what they hold) are a segment to `replay`."""
        self._check_point()
        if self.after:
            raise IRError("a writer records only at the end of its block")
        self.recording, self.rec_block, self.rec_first, self.rec_count = True, self.block, -1, 0

    def recorded(self):
        """The Segment written since `record` (None when it placed nothing). IRError when the
        ops from its first on, nested ones included, are not all this writer's (another writer
        inserted among them): a replay would copy what it did not write."""
        cdef Context c = self.context
        cdef int32_t top, op, j, v, b
        cdef Py_ssize_t n = 0
        self.recording = False
        if self.rec_first < 0:
            return None
        inside, used = set(), []
        top = self.rec_first
        while top >= 0:
            op = top
            while op >= 0:
                n += 1
                inside.add(op)
                for j in range(OP(c, op).n_operands):
                    used.append(USE(c, OP(c, op).operands + j).value)
                op = walk_next(c, top, op, False)
            top = OP(c, top).next
        if self.block != self.rec_block or n != self.rec_count:
            raise IRError("the recorded segment holds ops another writer inserted")
        reads = set()
        for v in used:
            if v < 0:
                continue
            if VAL(c, v).kind == VALUE_RESULT:
                if VAL(c, v).owner in inside:
                    continue
            else:
                b = VAL(c, v).owner
                if BLK(c, b).region >= 0 and REG(c, BLK(c, b).region).op in inside:
                    continue
            reads.add(v)
        cdef Segment seg = Segment.__new__(Segment)
        seg.context = c
        seg.reads = list(reads)
        seg.first, seg.last = self.rec_first, BLK(c, self.rec_block).last_op
        seg.first_gen, seg.last_gen = OP(c, seg.first).gen, OP(c, seg.last).gen
        return seg

    def value_map(self, pairs):
        """A ValueMap for `replay`: {value: the value a copy reads in its place}, from
        (Value, Value) pairs of this writer's Context."""
        cdef ValueMap m = ValueMap.__new__(ValueMap)
        m.context, m.ids = self.context, {}
        for a, b in pairs:
            i, j = self._id(a), self._id(b)
            if i != j:
                m.ids[i] = j
        return m

    def replay(self, Segment segment, ValueMap mapping not None):
        """A copy of `segment`'s ops (None: none), in order, at the insertion point; an operand
        defined outside the segment reads through `mapping` (else itself), to which each
        copied op adds its results."""
        if segment is None:
            return
        cdef Context c = self.context
        if segment.context is not c or mapping.context is not c:
            raise IRError("the segment or the mapping belongs to another Context")
        cdef int32_t op = segment.first, last = segment.last, new, j, nxt
        if not (segment.live(op, segment.first_gen) and segment.live(last, segment.last_gen)
                and OP(c, op).block == OP(c, last).block and OP(c, op).block >= 0):
            raise IRError("the segment's ops were erased or moved")
        cdef dict ids = mapping.ids
        for v in segment.reads:
            found = ids.get(v)
            if found is not None and not _live_value(c, found):
                raise IRError("a value the mapping names was erased")
        while True:
            if op < 0:
                raise IRError("the segment's ops were erased or moved")
            nxt = OP(c, op).next
            new = clone_op(c, op, c, ids)
            self._place(new)
            for j in range(OP(c, op).n_results):
                ids[OP(c, op).results + j] = OP(c, new).results + j
            if op == last:
                return
            op = nxt

    def mapped(self, values, ValueMap mapping not None):
        """Each of `values` through `mapping`: the copy's value where it has one."""
        cdef Context c = self.context
        if mapping.context is not c:
            raise IRError("the mapping belongs to another Context")
        out = []
        for v in values:
            found = mapping.ids.get(self._id(v))
            if found is not None and not _live_value(c, found):
                raise IRError("a value the mapping names was erased")
            out.append(v if found is None else value_handle(c, found))
        return out

    # ---- ids -----------------------------------------------------------------------------

    cdef int32_t _kl_name(self, str name) except -1:
        """The name id of `kl.<name>`."""
        found = self.tables.names.get(name)
        if found is None:
            found = self.tables.names[name] = self.context.name_id("kl." + name)
        return found

    cdef int32_t _name(self, str name) except -1:
        found = self.tables.names.get(name)
        if found is None:
            found = self.tables.names[name] = self.context.name_id(name)
        return found

    cdef int32_t _scalar(self, str dtype) except -1:
        found = self.tables.scalars.get(dtype)
        if found is None:
            found = self.tables.scalars[dtype] = self.context.type_id(scalar(dtype))
        return found

    cdef int32_t _element(self, int32_t pointer) except -1:
        """The type id of the scalar a pointer of type id `pointer` points at."""
        found = self.tables.elements.get(pointer)
        if found is None:
            t = self.context.types[pointer]
            dtype = pointee(t)
            if dtype is None:
                raise IRError(f"expected a !kl.ptr or !kl.shared pointer, got {t}")
            found = self.tables.elements[pointer] = self._scalar(dtype)
        return found

    cdef int32_t _id(self, object v) except -1:
        if not isinstance(v, Value):
            raise TypeError(f"expected a Value, got {type(v).__name__}")
        cdef Value h = <Value>v
        if h.context is not self.context:
            raise IRError("value belongs to another Context")
        return h.check()

    cdef int32_t _type(self, object v) except -1:
        return VAL(self.context, self._id(v)).type

    cdef tuple _attributes(self, dict given):
        """(the checked attribute dict, its bytes) of `given`, shared by every op given the
        same names, types and values when those are str, bool or int (kl's own attributes;
        anything else, a float whose -0.0 equals 0.0 say, is checked every time)."""
        if not given:
            return None, 0
        key = []
        for k, v in given.items():
            t = type(v)
            if t is not str and t is not bool and t is not int:
                return _checked(given)
            key.append((k, t, v))
        key = tuple(key)
        found = _ATTRIBUTES.get(key)
        if found is None:
            if len(_ATTRIBUTES) > 4096:
                _ATTRIBUTES.clear()
            found = _ATTRIBUTES[key] = _checked(given)
        return found

    # ---- making ops ----------------------------------------------------------------------

    cdef int32_t _make(self, int32_t name, object operands, int32_t count, int32_t result,
                       dict attributes) except -1:
        """An op `name` on `operands` (a tuple or list of Values) with `count` results of type
        id `result`, placed at the insertion point."""
        cdef int32_t small[16]
        cdef int32_t* types = &small[0]
        cdef int32_t i
        if count > 16:
            types = <int32_t*>PyMem_Malloc(count * sizeof(int32_t))
            if types == NULL:
                raise MemoryError()
        for i in range(count):
            types[i] = result
        try:
            return self._make_typed(name, operands, types, count, attributes)
        finally:
            if types != &small[0]:
                PyMem_Free(types)

    cdef int32_t _make_typed(self, int32_t name, object operands, int32_t* types,
                             int32_t count, dict attributes) except -1:
        cdef Context c = self.context
        cdef tuple given = tuple(operands) if type(operands) is not tuple else <tuple>operands
        cdef Py_ssize_t n = len(given), i
        cdef int32_t small[8]
        cdef int32_t* ids = &small[0]
        if n > 8:
            ids = <int32_t*>PyMem_Malloc(n * sizeof(int32_t))
            if ids == NULL:
                raise MemoryError()
        try:
            for i in range(n):
                ids[i] = self._id(given[i])
            attrs, nbytes = self._attributes(attributes)
            c.check_capacity(1, count, 0, nbytes)
            op = build_op(c, name, ids, <int32_t>n, types, count,
                          c.names[name].regions if c.names[name].regions > 0 else 0,
                          attrs, nbytes)
        finally:
            if ids != &small[0]:
                PyMem_Free(ids)
        self._place(op)
        return op

    cdef Value _one(self, int32_t name, object operands, int32_t result, dict attributes):
        cdef int32_t op = self._make(name, operands, 1, result, attributes)
        return value_handle(self.context, OP(self.context, op).results)

    cdef list _results(self, int32_t op):
        cdef int32_t first = OP(self.context, op).results
        return [value_handle(self.context, first + i)
                for i in range(OP(self.context, op).n_results)]

    # ---- the ops -------------------------------------------------------------------------

    def emit(self, str name, operands=(), result_types=None, **attributes):
        """Op `name` (a full name) with `result_types` (inferred by the registry when None);
        returns the op."""
        cdef Context c = self.context
        cdef int32_t i, n
        cdef int32_t* types = NULL
        if result_types is None:        # the registry's inference, through a Builder
            self._check_point()
            b = Builder(c)
            if not self.after:
                b.at_end(block_handle(c, self.block))
            elif self.anchor >= 0:
                b.after_op(op_handle(c, self.anchor))
            else:
                b.at_start(block_handle(c, self.block))
            op = b.create(name, list(operands), attributes=attributes or None)
            if self.recording:
                self._noted((<Operation>op).id)
            if self.after:
                self.anchor, self.anchor_gen = (<Operation>op).id, (<Operation>op).gen
            return op
        n = len(result_types)
        if n:
            types = <int32_t*>PyMem_Malloc(n * sizeof(int32_t))
            if types == NULL:
                raise MemoryError()
        try:
            for i in range(n):
                types[i] = c.type_id(result_types[i])
            return op_handle(c, self._make_typed(self._name(name), operands, types, n,
                                                 attributes))
        finally:
            PyMem_Free(types)

    def loop(self, str name, operands, carried, **attributes):
        """Loop op `name` (kl.for, kl.while) on `operands`, its results typed as the values
        `carried` (a loop carries a kernel's many accumulators: their types are read from
        their records, not hashed as objects)."""
        cdef Py_ssize_t n = len(carried), i
        cdef int32_t* types = <int32_t*>PyMem_Malloc((n + 1) * sizeof(int32_t))
        if types == NULL:
            raise MemoryError()
        try:
            for i in range(n):
                types[i] = self._type(carried[i])
            return op_handle(self.context, self._make_typed(self._name(name), operands,
                                                            types, <int32_t>n, attributes))
        finally:
            PyMem_Free(types)

    def loop_body(self, Operation loop not None, carried, bint induction):
        """The body of `loop`, a new block at the end of its region: an i64 induction
        variable first when `induction`, then arguments typed as the values `carried`."""
        cdef Context c = self.context
        if loop.context is not c:
            raise IRError("the loop belongs to another Context")
        cdef int32_t op = loop.check()
        if OP(c, op).n_regions != 1:
            raise IRError("a loop has one region")
        cdef Py_ssize_t n = len(carried), i, first = 1 if induction else 0
        cdef int32_t* types = <int32_t*>PyMem_Malloc((n + 1) * sizeof(int32_t))
        if types == NULL:
            raise MemoryError()
        try:
            if induction:
                types[0] = self._scalar("i64")
            for i in range(n):
                types[first + i] = self._type(carried[i])
            b = create_block(c, types, <int32_t>(n + first))
        finally:
            PyMem_Free(types)
        insert_block(c, b, OP(c, op).regions, -1)
        return block_handle(c, b)

    def op(self, str name, *operands, **attributes):
        """An arithmetic op (`KL_BINARY`, `KL_UNARY`, fma, select) on scalars, typed as its
        last operand."""
        if not operands:
            raise IRError(f"kl.{name} needs operands")
        return self._one(self._kl_name(name), operands, self._type(operands[-1]), attributes)

    def cmp(self, str predicate, a, b):
        return self._one(self._kl_name("cmp"), (a, b), self._scalar("i1"),
                         {"predicate": predicate})

    def is_finite(self, a):
        return self._one(self._kl_name("is_finite"), (a,), self._scalar("i1"), None)

    def convert(self, value, str dtype):
        cdef int32_t t = self._scalar(dtype)
        if self._type(value) == t:
            return value
        return self._one(self._kl_name("convert"), (value,), t, None)

    def bitcast(self, value, str dtype):
        """`value`'s bits read as `dtype` (of the same bit width)."""
        cdef int32_t t = self._scalar(dtype)
        if self._type(value) == t:
            return value
        return self._one(self._kl_name("bitcast"), (value,), t, None)

    def constant(self, value, str dtype):
        """A scalar literal, made once per kernel at the top of its entry block (so it
        dominates every use, in loops and branches too)."""
        if type(value) is int:      # the common case (indices, strides): the int is its key
            key = (value, dtype)
        else:
            value = value.item() if hasattr(value, "item") else value
            key = (value, dtype) if type(value) is int else \
                (type(value).__name__, repr(value), dtype)  # repr keeps -0.0, nan, 1 vs 1.0
        found = self.tables.constants.get(key)
        if found is not None:
            return found
        cdef Context c = self.context
        if self.last_constant >= 0 and (OP(c, self.last_constant).name < 0 or
                                        OP(c, self.last_constant).gen != self.last_constant_gen):
            raise IRError("the kernel's constants were erased")
        cdef int32_t before = OP(c, self.last_constant).next if self.last_constant >= 0 else \
            BLK(c, self.entry).first_op
        _, attrs, nbytes = _literal(value, dtype)     # (one dict for every such constant)
        cdef int32_t t = self._scalar(dtype)
        c.check_capacity(1, 1, 0, nbytes)
        cdef int32_t op = build_op(c, self._kl_name("constant"), NULL, 0, &t, 1, 0, attrs,
                                   nbytes)
        insert_op(c, op, self.entry, before)
        self.last_constant, self.last_constant_gen = op, OP(c, op).gen
        found = self.tables.constants[key] = value_handle(c, OP(c, op).results)
        return found

    def i64(self, value):
        """The i64 literal `value` (`constant(value, "i64")`: indices and strides)."""
        return self.constant(value, "i64")

    def special(self, str register):
        return self._one(self._kl_name("special"), (), self._scalar("i32"),
                         {"register": register})

    def load(self, ptr, index, pred=None):
        """`kl.load`; with an i1 `pred`, a lane where it is false reads nothing and gets 0."""
        return self._one(self._kl_name("load"), (ptr, index) if pred is None else
                         (ptr, index, pred), self._element(self._type(ptr)), None)

    def store(self, value, ptr, index, pred=None):
        """`kl.store`; with an i1 `pred`, a lane where it is false writes nothing."""
        self._make(self._kl_name("store"), (value, ptr, index) if pred is None else
                   (value, ptr, index, pred), 0, -1, None)

    def vload(self, ptr, index, int width):
        return self._results(self._make(self._kl_name("vload"), (ptr, index), width,
                                        self._element(self._type(ptr)), None))

    def vstore(self, values, ptr, index):
        self._make(self._kl_name("vstore"), list(values) + [ptr, index], 0, -1, None)

    def shuffle(self, str mode, value, lane):
        """`kl.shuffle`: `lane` an i32 (a lane for idx, a delta or mask for the others)."""
        lane = self.convert(lane, "i32")
        return self._one(self._kl_name("shuffle"), (value, lane), self._type(value),
                         {"mode": mode})

    def ldmatrix(self, ptr, index, int count, trans=False):
        """`kl.ldmatrix`: `count` i32 registers of 8x8 matrices whose rows this warp's lanes
        point at (`index`, per lane) in shared array `ptr`."""
        return self._results(self._make(self._kl_name("ldmatrix"), (ptr, index), count,
                                        self._scalar("i32"),
                                        {"count": count, "trans": bool(trans)}))

    def mma(self, a, b, c, str ab, str shape="m16n8k16"):
        """`kl.mma`: the f32 D fragment of A B + C (registers as lists)."""
        return self._results(self._make(self._kl_name("mma"), list(a) + list(b) + list(c),
                                        len(c), self._scalar("f32"),
                                        {"shape": shape, "ab": ab}))

    def to_tf32(self, value):
        """`kl.to_tf32`: the i32 bits of f32 `value` rounded to tf32, an mma .tf32 operand."""
        return self._one(self._kl_name("to_tf32"), (value,), self._scalar("i32"), None)

    def pack(self, lo, hi):
        return self._one(self._kl_name("pack"), (lo, hi), self._scalar("i32"), None)

    def unpack(self, word, str dtype):
        """The two `dtype` (f16 or bf16) values of i32 `word`, low half first."""
        return self._results(self._make(self._kl_name("unpack"), (word,), 2,
                                        self._scalar(dtype), None))

    def cp_async(self, dst, dst_index, src, src_index, nbytes, src_bytes):
        """`kl.cp_async`: copy `nbytes` bytes global -> shared, reading `src_bytes` (an i32
        value) of them and zero-filling the rest."""
        self._make(self._kl_name("cp_async"), (dst, dst_index, src, src_index, src_bytes), 0,
                   -1, {"bytes": int(nbytes)})


cdef tuple _checked(dict given):
    """(attribute dict, bytes) of `given`, each name and value checked as Builder.create
    checks them."""
    attrs = {check_text(k, "an attribute name"): check_attribute(v) for k, v in given.items()}
    return attrs, _bytes(attrs)


cdef Py_ssize_t _bytes(dict attrs) except -1:
    cdef Py_ssize_t n = 0
    for k, v in attrs.items():
        n += len(k) + attribute_bytes(v)
    return n

