# A hash set of int32 ids with their 64-bit hashes: open addressing, linear probing, deletion by
# backward shifting (no tombstones). Callers probe it themselves with their own equality:
#     i = h & t.mask
#     while t.slots[i] >= 0: (match when t.hashes[i] == h and same(t.slots[i])); i = (i+1) & t.mask
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memset
from libc.stdint cimport int32_t, uint64_t

ctypedef struct IdTable:
    int32_t* slots              # -1: empty
    uint64_t* hashes
    Py_ssize_t mask
    Py_ssize_t count

cdef inline int idtable_init(IdTable* t, Py_ssize_t size) except -1:
    """`size` must be a power of two."""
    t.slots = <int32_t*>PyMem_Malloc(size * sizeof(int32_t))
    t.hashes = <uint64_t*>PyMem_Malloc(size * sizeof(uint64_t))
    if not t.slots or not t.hashes:
        PyMem_Free(t.slots)
        PyMem_Free(t.hashes)
        t.slots, t.hashes = NULL, NULL
        raise MemoryError()
    memset(t.slots, 0xFF, size * sizeof(int32_t))
    t.mask, t.count = size - 1, 0
    return 0

cdef inline void idtable_free(IdTable* t) noexcept:
    PyMem_Free(t.slots)
    PyMem_Free(t.hashes)
    t.slots, t.hashes = NULL, NULL

cdef inline void idtable_place(IdTable* t, int32_t id, uint64_t h) noexcept:
    cdef Py_ssize_t i = h & t.mask
    while t.slots[i] >= 0:
        i = (i + 1) & t.mask
    t.slots[i], t.hashes[i] = id, h

cdef inline int idtable_put(IdTable* t, int32_t id, uint64_t h) except -1:
    """Add `id` (not already present), growing to keep the table at most half full."""
    cdef IdTable old
    cdef Py_ssize_t i
    if (t.count + 1) * 2 > t.mask + 1:
        old = t[0]
        idtable_init(t, (old.mask + 1) * 2)
        for i in range(old.mask + 1):
            if old.slots[i] >= 0:
                idtable_place(t, old.slots[i], old.hashes[i])
        t.count = old.count
        idtable_free(&old)
    idtable_place(t, id, h)
    t.count += 1
    return 0

cdef inline void idtable_remove(IdTable* t, int32_t id, uint64_t h) noexcept:
    """Remove `id` (present, with hash `h`)."""
    cdef Py_ssize_t i = h & t.mask, j, home
    while t.slots[i] != id:
        i = (i + 1) & t.mask
    t.slots[i] = -1
    t.count -= 1
    j = i
    while True:
        j = (j + 1) & t.mask
        if t.slots[j] < 0:
            return
        home = t.hashes[j] & t.mask
        # the id at j may move into the hole at i unless its home lies cyclically in (i, j]
        if (j > i and (home <= i or home > j)) or (j < i and home <= i and home > j):
            t.slots[i], t.hashes[i] = t.slots[j], t.hashes[j]
            t.slots[j] = -1
            i = j
