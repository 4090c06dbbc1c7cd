# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The analysis cache the passes share.

An entry holds one analysis value for one op, keyed by (op id, analysis id). It remembers the op's
generation and epoch when computed and, flattened, every (op, generation, epoch) and every
(op, analysis) that the compute read through the cache. Freshness is therefore exact: an entry is
fresh while none of those ops changed, and the check is one compare while the Context's clock has
not moved since the entry was last found fresh. Invalidation by a pass (whatever it did not
preserve, on its op and below) also falls on every entry that read an invalidated analysis.

The budget (entries and estimated bytes, from `Capacity.as_limits()`) is kept by evicting the
least recently used entries that no running pass asked for. A value the budget cannot hold is
returned uncached and cleaned up when the pass that asked for it ends (or when the cache closes).
Each computed value's cleanup runs exactly once: on eviction, invalidation, replacement, or
`close()` (also called when the cache is garbage collected).
"""
from cpython.mem cimport PyMem_Realloc, PyMem_Free
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
cimport cython
import sys

from accy.errors import AnalysisError
from accy._core.context cimport Context, Operation, OpRec, OP, parent_op
from accy._core.idtable cimport idtable_init, idtable_free, idtable_put, idtable_remove

cdef enum:
    MAX_LEASES = 64


cdef inline uint64_t mix(int32_t op, uint32_t gen, uint64_t aid) noexcept:
    cdef uint64_t h = (((<uint64_t>gen) << 32) | <uint32_t>op) * <uint64_t>0x9E3779B97F4A7C15 ^ aid
    h ^= h >> 31
    h *= <uint64_t>0xBF58476D1CE4E5B9
    h ^= h >> 29
    return h


cdef inline bint op_unchanged(Context c, int32_t op, uint32_t gen, uint64_t epoch) noexcept:
    if op < 0 or op >= c.ops.top:
        return False
    cdef OpRec* o = OP(c, op)
    return o.name >= 0 and o.gen == gen and o.epoch == epoch


@cython.final
cdef class _Frame:
    """An analysis being computed: what it has read so far."""
    cdef int32_t op
    cdef uint64_t aid
    cdef uint64_t mark          # entries made from here on were made for this compute
    cdef dict ops               # op id -> (generation, epoch) of every op read
    cdef set keys               # (op id, analysis id) of every analysis read


@cython.auto_pickle(False)
cdef class AnalysisCache:
    """Analysis values keyed by (op, analysis descriptor); see the module docstring.

    `AnalysisCache(context, capacity=None)`: the budget comes from `capacity` (default: the
    Context's) through `Capacity.as_limits()`.
    """

    def __cinit__(self, Context context not None, capacity=None):
        self.context = context
        self.free_head = -1
        self.lru_head = self.lru_tail = -1
        idtable_init(&self.table, 16)
        self.values, self.cleanups, self.descs, self.deps = [], [], [], []
        self.frames, self.transients, self.instruments, self.errors = [], [], [], []
        self.pending = []
        self.next_lease = 1
        self.next_serial = 1

    def __init__(self, Context context not None, capacity=None):
        limits = (capacity if capacity is not None else context.capacity).as_limits()
        self.max_entries = limits["max_analysis_entries"]
        self.max_bytes = limits["max_analysis_bytes"]

    def __dealloc__(self):
        PyMem_Free(self.entries)
        idtable_free(&self.table)

    def __del__(self):
        if not self.closed:
            try:
                self.close()
            except Exception as e:      # nowhere to raise from a finalizer
                print(f"accy: {e}", file=sys.stderr)

    def __repr__(self):
        return (f"<accy AnalysisCache {self.entries_held} entries, {self.bytes_held} bytes, "
                f"{self.hits} hits, {self.misses} misses>")

    # ---- storage -------------------------------------------------------------------------------

    cdef int32_t find(self, int32_t op, uint64_t aid) noexcept:
        """The entry of analysis `aid` on the op now in record `op` (an entry of an erased op
        whose record was reused is not it: the generation is part of the key), or -1."""
        cdef uint32_t gen = OP(self.context, op).gen
        cdef uint64_t h = mix(op, gen, aid)
        cdef Py_ssize_t i = h & self.table.mask
        cdef int32_t k
        while self.table.slots[i] >= 0:
            k = self.table.slots[i]
            if (self.table.hashes[i] == h and self.entries[k].op == op
                    and self.entries[k].gen == gen and self.entries[k].aid == aid):
                return k
            i = (i + 1) & self.table.mask
        return -1

    cdef int32_t alloc_entry(self) except -1:
        cdef int32_t idx, n
        cdef EntryRec* p
        if self.free_head >= 0:
            idx = self.free_head
            self.free_head = self.entries[idx].lru_next
            return idx
        if self.top == self.cap:
            n = max(16, self.cap * 2)
            p = <EntryRec*>PyMem_Realloc(self.entries, n * sizeof(EntryRec))
            if not p:
                raise MemoryError()
            self.entries, self.cap = p, n
        idx = self.top
        self.top += 1
        self.values.append(None)
        self.cleanups.append(None)
        self.descs.append(None)
        self.deps.append(None)
        return idx

    cdef void lru_unlink(self, int32_t idx) noexcept:
        cdef EntryRec* e = &self.entries[idx]
        if e.lru_prev >= 0:
            self.entries[e.lru_prev].lru_next = e.lru_next
        else:
            self.lru_head = e.lru_next
        if e.lru_next >= 0:
            self.entries[e.lru_next].lru_prev = e.lru_prev
        else:
            self.lru_tail = e.lru_prev

    cdef void lru_push(self, int32_t idx) noexcept:
        cdef EntryRec* e = &self.entries[idx]
        e.lru_prev = -1
        e.lru_next = self.lru_head
        if self.lru_head >= 0:
            self.entries[self.lru_head].lru_prev = idx
        else:
            self.lru_tail = idx
        self.lru_head = idx

    cdef bint pinned(self, int32_t idx) noexcept:
        cdef int32_t lease = self.entries[idx].lease, i
        if lease:
            for i in range(self.n_leases):
                if self.leases[i] == lease:
                    return True
        return False

    cdef bint fresh(self, int32_t idx) noexcept:
        cdef EntryRec* e = &self.entries[idx]
        cdef Context c = self.context
        if e.checked == c.clock:
            return True
        if not op_unchanged(c, e.op, e.gen, e.epoch):
            return False
        d = self.deps[idx]
        cdef tuple triples
        cdef Py_ssize_t j
        if d is not None:
            triples = <tuple>(<tuple>d)[0]
            for j in range(0, len(triples), 3):
                if not op_unchanged(c, triples[j], triples[j + 1], triples[j + 2]):
                    return False
        e.checked = c.clock
        return True

    cdef void use(self, int32_t idx, int32_t lease) noexcept:
        if self.lru_head != idx:
            self.lru_unlink(idx)
            self.lru_push(idx)
        # runs nest and leases grow with depth: the smallest running lease that asked ends
        # last, so it holds the pin
        cdef int32_t held = self.entries[idx].lease
        if lease and held != lease and (lease < held or not self.pinned(idx)):
            self.entries[idx].lease = lease
        self.hits += 1

    cdef void drop(self, int32_t idx):
        """Remove an entry, then run its cleanup (failures are kept for `raise_errors`)."""
        cdef EntryRec* e = &self.entries[idx]
        idtable_remove(&self.table, idx, mix(e.op, e.gen, e.aid))
        self.lru_unlink(idx)
        self.entries_held -= 1
        self.bytes_held -= e.nbytes
        e.live = 0
        e.lru_next = self.free_head
        self.free_head = idx
        if self.cleanups[idx] is not None:
            self.pending.append((self.cleanups[idx], self.values[idx], self.descs[idx]))
        self.values[idx] = self.cleanups[idx] = self.descs[idx] = self.deps[idx] = None

    cdef void run_cleanup(self, cleanup, value, desc):
        if cleanup is not None:
            self.pending.append((cleanup, value, desc))

    cdef str flush_quietly(self):
        """Run pending cleanups; their failures come back as text to append to another error."""
        try:
            self.flush()
        except AnalysisError as e:
            notes = [str(e)] + [str(x) for x in self.errors]
            self.errors.clear()
            return "".join(f"\n  (also: {n})" for n in notes)
        return ""

    cdef int flush(self) except -1:
        """Run the cleanups of what was dropped, once the cache is consistent (a cleanup may
        use the cache), then raise the first cleanup failure as an AnalysisError."""
        while self.pending:
            cleanup, value, desc = self.pending.pop(0)
            try:
                cleanup(value)
            except Exception as e:
                err = AnalysisError(f"cleanup of analysis '{desc.name}' failed: "
                                    f"{type(e).__name__}: {e}", analysis_name=desc.name)
                err.__cause__ = e
                self.errors.append(err)
        if self.errors:
            err = self.errors[0]
            self.errors.clear()
            raise err
        return 0

    cdef int32_t insert(self, int32_t op, uint32_t gen, uint64_t epoch, uint64_t aid, desc,
                        value, cleanup, int64_t nbytes, deps, int32_t lease) except -2:
        """Cache a computed value, evicting as the budget needs; -1 when it cannot be held."""
        cdef int32_t cur, prev, idx
        cdef Py_ssize_t entries = self.entries_held
        cdef int64_t held = self.bytes_held
        if nbytes > self.max_bytes or self.max_entries == 0:
            return -1
        cur = self.lru_tail                 # first make sure evicting can make room at all
        while cur >= 0 and (entries + 1 > self.max_entries or held + nbytes > self.max_bytes):
            if not self.pinned(cur):
                entries -= 1
                held -= self.entries[cur].nbytes
            cur = self.entries[cur].lru_prev
        if entries + 1 > self.max_entries or held + nbytes > self.max_bytes:
            return -1
        cur = self.lru_tail
        while cur >= 0 and (self.entries_held + 1 > self.max_entries
                            or self.bytes_held + nbytes > self.max_bytes):
            prev = self.entries[cur].lru_prev
            if not self.pinned(cur):
                self.drop(cur)
                self.evictions += 1
            cur = prev
        if self.entries_held + 1 > self.max_entries or self.bytes_held + nbytes > self.max_bytes:
            return -1
        idx = self.alloc_entry()
        cdef EntryRec* e = &self.entries[idx]
        e.op, e.gen, e.epoch, e.aid = op, gen, epoch, aid
        e.checked = self.context.clock
        e.serial = self.next_serial
        self.next_serial += 1
        e.nbytes, e.lease, e.live = nbytes, lease, 1
        self.values[idx], self.cleanups[idx], self.descs[idx] = value, cleanup, desc
        self.deps[idx] = deps
        idtable_put(&self.table, idx, mix(op, gen, aid))
        self.lru_push(idx)
        self.entries_held += 1
        self.bytes_held += nbytes
        if self.bytes_held > self.peak_bytes:
            self.peak_bytes = self.bytes_held
        return idx

    # ---- lookups -------------------------------------------------------------------------------

    cdef int32_t find_fresh(self, int32_t op, uint64_t aid, int32_t lease) except -2:
        cdef int32_t idx = self.find(op, aid)
        if idx < 0 or not self.fresh(idx):
            return -1
        self.use(idx, lease)
        if self.frames:
            self.record(idx)
        return idx

    cdef object value_at(self, int32_t index):
        return self.values[index]

    cdef void record(self, int32_t idx):
        """Note that the innermost analysis being computed read entry `idx`."""
        cdef _Frame f = <_Frame>self.frames[len(self.frames) - 1]
        cdef EntryRec* e = &self.entries[idx]
        f.ops[e.op] = (e.gen, e.epoch)
        f.keys.add((e.op, e.aid))
        d = self.deps[idx]
        if d is not None:
            merge(f, d)

    cdef int check_op(self, Operation op) except -1:
        if self.closed:
            raise AnalysisError("the analysis cache was closed")
        if op.context is not self.context:
            raise AnalysisError("the operation belongs to another Context than the one this "
                                "analysis cache (and pass run) works on")
        return op.check()

    cdef object get(self, Operation op, desc, compute, cleanup, AnalysisScope scope):
        cdef int32_t o = self.check_op(op)
        cdef uint64_t aid = desc.id
        cdef int32_t lease = scope.lease
        cdef int32_t idx = self.find(o, aid)
        if idx >= 0:
            if self.fresh(idx):
                self.use(idx, lease)
                if self.frames:
                    self.record(idx)
                return self.values[idx]
            self.recomputes += 1
            self.drop(idx)                      # replaced: the old value is cleaned up now
            self.flush()
        else:
            self.misses += 1
        return self.compute(op, o, aid, desc, compute, cleanup, scope)

    cdef object compute(self, Operation op, int32_t o, uint64_t aid, desc, compute, cleanup,
                        AnalysisScope scope):
        cdef _Frame f
        for f in self.frames:
            if f.op == o and f.aid == aid:
                raise AnalysisError(f"analysis '{desc.name}' depends on itself (a cycle through "
                                    f"the analyses being computed)", scope.pass_name, desc.name)
        cdef Context c = self.context
        cdef uint32_t gen = OP(c, o).gen
        cdef uint64_t epoch = OP(c, o).epoch
        f = _Frame()
        f.op, f.aid, f.mark, f.ops, f.keys = o, aid, self.next_serial, {}, set()
        self.frames.append(f)
        started = False
        try:
            for ins in self.instruments:
                ins.before_analysis(desc, op)
            started = True
            value = compute(op, scope)
        except BaseException as e:
            self.frames.pop(len(self.frames) - 1)
            self.discard_since(f.mark)
            if started:
                for ins in self.instruments:
                    ins.after_analysis(desc, op)
            also = self.flush_quietly()         # the compute's error is the one to report
            if isinstance(e, AnalysisError) or not isinstance(e, Exception):
                raise
            raise AnalysisError(f"analysis '{desc.name}' failed on {op.name}"
                                f"{_in_pass(scope.pass_name)}: {type(e).__name__}: {e}{also}",
                                scope.pass_name, desc.name) from e
        self.frames.pop(len(self.frames) - 1)
        try:
            for ins in self.instruments:
                ins.after_analysis(desc, op)
            if self.closed:
                raise AnalysisError(f"the analysis cache was closed while analysis "
                                    f"'{desc.name}' was being computed")
            if not op_unchanged(c, o, gen, epoch):
                raise AnalysisError(f"analysis '{desc.name}' changed the IR of the op it "
                                    f"analyses{_in_pass(scope.pass_name)}; analyses must only "
                                    f"read the IR", scope.pass_name, desc.name)
            nbytes = _estimate(desc, value)
        except BaseException:
            self.discard_since(f.mark)
            self.run_cleanup(cleanup, value, desc)
            self.flush_quietly()
            raise
        deps = None
        if f.ops:
            deps = (tuple(x for op_id, ge in f.ops.items() for x in (op_id, ge[0], ge[1])),
                    tuple(f.keys))
        idx = self.insert(o, gen, epoch, aid, desc, value, cleanup, nbytes, deps, scope.lease)
        if idx < 0:
            self.uncached += 1
            if cleanup is not None:         # only kept to be cleaned up; nothing to do else
                self.transients.append((scope.lease, self.next_serial, value, cleanup, desc))
            self.next_serial += 1
        if self.frames:
            parent = <_Frame>self.frames[len(self.frames) - 1]
            parent.ops[o] = (gen, epoch)
            parent.keys.add((o, aid))
            if deps is not None:
                merge(parent, deps)
        self.flush()
        return value

    cdef void discard_since(self, uint64_t mark):
        """Drop what a failed compute made: entries and uncached values from `mark` on."""
        cdef int32_t k
        for k in range(self.top):
            if self.entries[k].live and self.entries[k].serial >= mark:
                self.drop(k)
        keep = []
        for t in self.transients:
            if t[1] >= mark:
                self.run_cleanup(t[3], t[2], t[4])
            else:
                keep.append(t)
        self.transients = keep

    # ---- Python API ----------------------------------------------------------------------------

    def get_analysis(self, Operation op not None, desc, compute, cleanup=None):
        """The value of analysis `desc` on `op`, computed by `compute(op, scope)` when the cache
        holds no fresh one. Outside a pass; passes use `PassContext.get_analysis`."""
        return self.get(op, desc, compute, cleanup, AnalysisScope(self, op))

    def get_cached_analysis(self, Operation op not None, desc):
        """The cached value if it is fresh, else None (nothing is computed)."""
        cdef int32_t idx = self.find_fresh(self.check_op(op), desc.id, 0)
        return self.values[idx] if idx >= 0 else None

    def contains(self, Operation op not None, desc):
        """Whether a fresh value is cached (does not count as a hit or touch the LRU order)."""
        cdef int32_t idx = self.find(self.check_op(op), desc.id)
        return idx >= 0 and self.fresh(idx)

    def begin_lease(self):
        """Start a pass run: entries it asks for stay pinned until `end_lease`."""
        if self.closed:
            raise AnalysisError("the analysis cache was closed")
        if self.n_leases == MAX_LEASES:
            raise AnalysisError(f"pass runs nested deeper than {MAX_LEASES}")
        cdef int32_t lease = self.next_lease
        self.next_lease += 1
        self.leases[self.n_leases] = lease
        self.n_leases += 1
        return lease

    def end_lease(self, int32_t lease):
        """End a pass run: unpin its entries and clean up the values the budget could not hold."""
        if self.n_leases == 0 or self.leases[self.n_leases - 1] != lease:
            raise AnalysisError("pass runs must end in the reverse order they began")
        self.n_leases -= 1
        keep = []
        for t in self.transients:
            if t[0] == lease:
                self.run_cleanup(t[3], t[2], t[4])
            else:
                keep.append(t)
        self.transients = keep
        self.flush()

    def finish_pass(self, Operation root not None, preserved):
        """Invalidate, after a pass on `root`, every entry on `root` or below whose analysis is
        not in `preserved` (a set of analysis ids, or True for all), and every entry anywhere
        that read such an analysis; also (unless all is preserved) every entry of an op that no
        longer exists."""
        cdef int32_t r = self.check_op(root)
        if preserved is not True:
            self.drop_selected(r, 0, frozenset(preserved))

    cdef int drop_selected(self, int32_t op, uint64_t aid, frozenset preserved) except -1:
        """Drop the selected entries and every entry that read a selected (op, analysis),
        whether or not that is still cached, then flush. With `preserved` (a pass ended on
        `op`): (op, analysis) pairs on `op` or below whose analysis is not preserved, and
        entries of ops that no longer exist. Without: pairs on `op` (any op when -1) of
        analysis `aid` (any when 0)."""
        cdef int32_t k, dop
        cdef uint64_t daid
        cdef bint gone
        cdef Context c = self.context
        for k in range(self.top):
            if not self.entries[k].live:
                continue
            dop, daid = self.entries[k].op, self.entries[k].aid
            gone = self.selected(dop, daid, op, aid, preserved)
            if preserved is not None and not gone:
                gone = OP(c, dop).name < 0 or OP(c, dop).gen != self.entries[k].gen
            if not gone and self.deps[k] is not None:
                for dop, daid in (<tuple>self.deps[k])[1]:
                    if self.selected(dop, daid, op, aid, preserved):
                        gone = True
                        break
            if gone:
                self.drop(k)
                self.invalidations += 1
        return self.flush()

    cdef bint selected(self, int32_t op, uint64_t aid, int32_t root, uint64_t want,
                       frozenset preserved):
        if preserved is not None:
            return aid not in preserved and self.below(op, root)
        return (root < 0 or op == root) and (want == 0 or aid == want)

    cdef bint below(self, int32_t op, int32_t root) noexcept:
        """Whether `op` is `root` or nested in it (an erased op counts: its entries are dead)."""
        cdef Context c = self.context
        if op >= c.ops.top or OP(c, op).name < 0:
            return True
        while op >= 0:
            if op == root:
                return True
            op = parent_op(c, op)
        return False

    def invalidate(self, Operation op=None, desc=None):
        """Drop the entries of `desc` (all analyses when None) on `op` (all ops when None), and
        every entry that read one of them."""
        if self.closed:
            raise AnalysisError("the analysis cache was closed")
        self.drop_selected(self.check_op(op) if op is not None else -1,
                           desc.id if desc is not None else 0, None)

    def close(self):
        """Clean up every value (as a Context teardown does); the cache cannot be used after."""
        if self.closed:
            return
        self.closed = True
        cdef int32_t k
        for k in range(self.top):
            if self.entries[k].live:
                self.drop(k)
        for t in self.transients:
            self.run_cleanup(t[3], t[2], t[4])
        self.transients = []
        self.flush()

    def statistics(self):
        """Counters: hits, misses, recomputes (stale entries found), evictions, invalidations,
        uncached (values the budget could not hold), entries and bytes held, peak bytes."""
        return {"hits": self.hits, "misses": self.misses, "recomputes": self.recomputes,
                "evictions": self.evictions, "invalidations": self.invalidations,
                "uncached": self.uncached, "entries": self.entries_held,
                "bytes": self.bytes_held, "peak bytes": self.peak_bytes}

    def keys(self):
        """(op handle, analysis name) of every entry, most recently used first. An entry of an
        erased op (kept until evicted, invalidated or dropped by a pass) has an erased handle."""
        out = []
        cdef int32_t k = self.lru_head
        cdef Operation h
        while k >= 0:
            h = Operation.__new__(Operation)
            h.context, h.id, h.gen = self.context, self.entries[k].op, self.entries[k].gen
            out.append((h, self.descs[k].name))
            k = self.entries[k].lru_next
        return out


cdef void merge(_Frame f, tuple deps):
    cdef tuple triples = deps[0]
    cdef Py_ssize_t j
    for j in range(0, len(triples), 3):
        f.ops[triples[j]] = (triples[j + 1], triples[j + 2])
    f.keys.update(deps[1])


cdef str _in_pass(str name):
    return f" in pass '{name}'" if name else ""


cdef int64_t _estimate(desc, value) except -1:
    contract = desc.work_contract
    estimate = contract.estimate if contract is not None else None
    try:
        n = estimate(value) if estimate is not None else sys.getsizeof(value)
        if not isinstance(n, int) or not 0 <= n < 2**62:
            raise ValueError(f"the estimate must be an int in [0, 2**62), got {n!r}")
    except Exception as e:
        raise AnalysisError(f"estimating the size of analysis '{desc.name}' failed: {e}",
                            analysis_name=desc.name) from e
    return n


@cython.auto_pickle(False)
cdef class AnalysisScope:
    """How a computation asks the cache for analyses: on behalf of a pass run (its lease pins
    what it asked for, its name goes into errors) or of a caller outside any pass."""

    def __init__(self, AnalysisCache cache not None, Operation op not None, str pass_name="",
                 int lease=0):
        if op.context is not cache.context:
            raise AnalysisError(f"{pass_name or 'the caller'} was handed an op of another "
                                f"Context than its analysis cache's")
        self.cache, self.op, self.pass_name, self.lease = cache, op, pass_name, lease
        self.preserved = frozenset()

    def get_analysis(self, Operation op not None, desc, compute, cleanup=None):
        """The value of analysis `desc` on `op`: cached, or computed by `compute(op, scope)`
        (which may ask for other analyses through `scope`; they become its dependencies)."""
        if self.cache is None:
            raise AnalysisError("this analysis scope was not initialised (call its __init__)")
        return self.cache.get(op, desc, compute, cleanup, self)

    def get_cached_analysis(self, Operation op not None, desc):
        """The cached value if it is fresh, else None (nothing is computed)."""
        cdef AnalysisCache c = self.cache
        if c is None:
            raise AnalysisError("this analysis scope was not initialised (call its __init__)")
        cdef int32_t idx = c.find_fresh(c.check_op(op), desc.id, self.lease)
        return c.values[idx] if idx >= 0 else None

    def preserve_all_analyses(self):
        """Keep every analysis valid after this pass (its entries stay unless the IR they read
        changed: an epoch change always wins)."""
        self.preserved = True

    def preserve(self, *descriptors):
        """Keep these analyses valid after this pass."""
        if self.preserved is not True:
            self.preserved = self.preserved | frozenset(d.id for d in descriptors)

    def is_preserved(self, desc):
        return self.preserved is True or desc.id in self.preserved


def hit_loop(AnalysisCache cache not None, Operation op not None, desc, Py_ssize_t n):
    """Ask for a cached analysis `n` times from Cython (for benchmarks): the native hit path."""
    cdef int32_t o = cache.check_op(op)
    cdef uint64_t aid = desc.id
    cdef Py_ssize_t i, found = 0
    for i in range(n):
        if cache.find_fresh(o, aid, 0) >= 0:
            found += 1
    return found
