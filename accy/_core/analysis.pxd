# The analysis cache: values computed by analyses, keyed by (op id, analysis id), never returned
# stale (op epochs), bounded by a budget (LRU eviction), cleaned up exactly once.
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from accy._core.context cimport Context, Operation
from accy._core.idtable cimport IdTable

ctypedef struct EntryRec:
    uint64_t aid                # the analysis's stable id
    uint64_t epoch              # the op's epoch when the value was computed
    uint64_t checked            # the Context clock when the entry was last found fresh
    uint64_t serial             # unique per computed value
    int64_t nbytes              # estimated size, from the analysis's work contract
    int32_t op
    uint32_t gen
    int32_t lru_prev            # towards the most recently used; -1 at the head
    int32_t lru_next            # towards the least recently used; also links the free list
    int32_t lease               # the pass run that last asked for it (pinned while it runs)
    int32_t live

cdef class AnalysisScope

cdef class AnalysisCache:
    cdef readonly Context context
    cdef EntryRec* entries
    cdef int32_t cap, top, free_head
    cdef IdTable table          # (op, analysis) -> entry index
    cdef list values, cleanups, descs, deps
    cdef int32_t lru_head, lru_tail
    cdef readonly Py_ssize_t entries_held, max_entries
    cdef readonly int64_t bytes_held, max_bytes, peak_bytes
    cdef readonly Py_ssize_t hits, misses, recomputes, evictions, invalidations, uncached
    cdef uint64_t next_serial
    cdef list frames            # analyses being computed, innermost last
    cdef int32_t leases[64]     # the pass runs in progress (nested pipelines), innermost last
    cdef int32_t n_leases, next_lease
    cdef list transients        # values the budget could not hold: (lease, value, cleanup, desc)
    cdef public list instruments
    cdef list pending           # (cleanup, value, descriptor) of dropped values, run by flush
    cdef list errors            # cleanup failures, raised once the cache is consistent again
    cdef readonly bint closed

    # The hit path for Cython passes: the index of a fresh entry (now leased and most recently
    # used), or -1; then `<object>cache.values[index]` (or `value_at`) is the value.
    cdef int32_t find_fresh(self, int32_t op, uint64_t aid, int32_t lease) except -2
    cdef object value_at(self, int32_t index)

    cdef int32_t find(self, int32_t op, uint64_t aid) noexcept
    cdef int32_t alloc_entry(self) except -1
    cdef void lru_unlink(self, int32_t idx) noexcept
    cdef void lru_push(self, int32_t idx) noexcept
    cdef bint pinned(self, int32_t idx) noexcept
    cdef bint fresh(self, int32_t idx) noexcept
    cdef void use(self, int32_t idx, int32_t lease) noexcept
    cdef void drop(self, int32_t idx)
    cdef void run_cleanup(self, cleanup, value, desc)
    cdef int flush(self) except -1
    cdef str flush_quietly(self)
    cdef int32_t insert(self, int32_t op, uint32_t gen, uint64_t epoch, uint64_t aid, desc,
                        value, cleanup, int64_t nbytes, deps, int32_t lease) except -2
    cdef void record(self, int32_t idx)
    cdef int check_op(self, Operation op) except -1
    cdef object get(self, Operation op, desc, compute, cleanup, AnalysisScope scope)
    cdef object compute(self, Operation op, int32_t o, uint64_t aid, desc, compute, cleanup,
                        AnalysisScope scope)
    cdef void discard_since(self, uint64_t mark)
    cdef bint below(self, int32_t op, int32_t root) noexcept
    cdef int drop_selected(self, int32_t op, uint64_t aid, frozenset preserved) except -1
    cdef bint selected(self, int32_t op, uint64_t aid, int32_t root, uint64_t want,
                       frozenset preserved)

cdef class AnalysisScope:
    cdef readonly AnalysisCache cache
    cdef readonly Operation op
    cdef readonly str pass_name
    cdef readonly int32_t lease
    cdef readonly object preserved      # a frozenset of analysis ids, or True for all
