"""The analysis cache (accy._core.analysis) and how the pass manager uses it: values computed
once and then served from the cache, never stale (mutations of the op, of ops nested in it and
of the ops whose analyses were read), invalidation by passes and by hand (dependents included),
the budget (LRU eviction, pins, uncached values), exactly-once cleanups, failing and misbehaving
analyses, and the preservation rules of the pass manager (flat and nested pipelines)."""
import hashlib
import itertools
import os
import subprocess
import sys
from collections import Counter
from types import SimpleNamespace

import pytest

from accy._core.analysis import AnalysisCache, AnalysisScope
from accy.errors import AnalysisError, PassError
from accy.ir import Builder, Capacity, Context, Module
from accy.passes.core import AnalysisDescriptor, Pass, WorkContract, stable_id
from accy.passes.manager import PassManager
from accy.passes.pipeline import Nest
from ir_helpers import F32, build_func

LOCAL = AnalysisDescriptor("test.cache.local")      # on a leaf op: reads nothing
FUNC = AnalysisDescriptor("test.cache.func")        # on a func: reads LOCAL of its leaves
MOD = AnalysisDescriptor("test.cache.module")       # on the module: reads FUNC of every func
PEER = AnalysisDescriptor("test.cache.peer")        # on a func: reads FUNC of the other func
SHAPE = AnalysisDescriptor("test.cache.shape")      # on a func: reads nothing (counts its ops)
_SERIAL = itertools.count(1)


class Val:
    """A computed value: which analysis on which op, the op's epoch when computed, the values
    the computation read, and a serial unique over the whole test run."""

    def __init__(self, name, op, deps=()):
        self.name, self.op, self.epoch, self.deps = name, op, op.epoch, tuple(deps)
        self.serial = next(_SERIAL)

    def current(self):
        """Whether the IR this value (and every value it read) was computed from is unchanged."""
        return self.op.epoch == self.epoch and all(d.current() for d in self.deps)

    def __repr__(self):
        return f"<{self.name}#{self.serial}>"


class Rec:
    """Compute functions for the descriptors above, with call counts and cleanup checks."""

    def __init__(self, ir):
        self.ir = ir
        self.calls = Counter()
        self.cleaned = []               # values, in cleanup order
        self.computed = []

    def cleanup(self, value):
        assert value not in self.cleaned, f"{value} cleaned up twice"
        self.cleaned.append(value)

    def make(self, name, op, deps=()):
        self.calls[name] += 1
        v = Val(name, op, deps)
        self.computed.append(v)
        return v

    # compute functions -----------------------------------------------------------------------
    def local(self, op, scope):
        return self.make("local", op)

    def func(self, op, scope):
        return self.make("func", op, [self.get(scope, leaf, LOCAL)
                                      for leaf in op.walk(name="test.source")])

    def module(self, op, scope):
        return self.make("module", op, [self.get(scope, f, FUNC) for f in self.ir.funcs])

    def peer(self, op, scope):
        other = [f for f in self.ir.funcs if f != op][0]
        return self.make("peer", op, [self.get(scope, other, FUNC)])

    def shape(self, op, scope):
        return self.make("shape", op)

    def get(self, where, op, desc):
        """`desc` on `op` through `where` (the cache or a scope)."""
        compute = {LOCAL: self.local, FUNC: self.func, MOD: self.module, PEER: self.peer,
                   SHAPE: self.shape}[desc]
        return where.get_analysis(op, desc, compute, self.cleanup)

    def live(self):
        """Computed values not cleaned up (yet)."""
        return [v for v in self.computed if v not in self.cleaned]


def add_leaf(ctx, func):
    return Builder(ctx).at_end(func.regions[0].blocks[0]).create("test.source", (), (F32,))


@pytest.fixture
def ir(ctx):
    """A module with funcs f0 and f1, each holding two `test.source` leaves."""
    module = Module.create(ctx)
    funcs, leaves = [], {}
    for name in ("f0", "f1"):
        _, func, _, _ = build_func(ctx, name, module=module)
        funcs.append(func)
        leaves[func] = [add_leaf(ctx, func) for _ in range(2)]
    return SimpleNamespace(ctx=ctx, module=module, funcs=funcs, leaves=leaves)


@pytest.fixture
def rec(ir):
    return Rec(ir)


def PM(items, **kw):
    """A PassManager that does not verify (the funcs here have no terminators)."""
    return PassManager(items, verify_each=False, **kw)


def stats(cache, *names):
    s = cache.statistics()
    return tuple(s[n] for n in names)


def sized(name, nbytes):
    """A descriptor whose values are estimated at `nbytes` bytes each."""
    return AnalysisDescriptor(name, WorkContract((name, 1), estimate=lambda value: nbytes))


# ---- computing once, hits -----------------------------------------------------------------------

def test_computes_once_then_hits(ir, rec):
    cache = AnalysisCache(ir.ctx)
    leaf = ir.leaves[ir.funcs[0]][0]
    v = rec.get(cache, leaf, LOCAL)
    assert isinstance(v, Val) and v.op == leaf
    assert stats(cache, "hits", "misses", "recomputes", "entries") == (0, 1, 0, 1)
    for n in range(1, 4):
        assert rec.get(cache, leaf, LOCAL) is v
        assert stats(cache, "hits", "misses", "recomputes") == (n, 1, 0)
    assert rec.calls["local"] == 1
    # get_cached_analysis and contains see it; get_cached_analysis counts as a hit, contains not
    assert cache.get_cached_analysis(leaf, LOCAL) is v
    assert cache.contains(leaf, LOCAL)
    assert stats(cache, "hits", "misses") == (4, 1)
    # nothing cached for another analysis or another op: nothing is computed by these
    assert cache.get_cached_analysis(leaf, FUNC) is None
    assert cache.get_cached_analysis(ir.leaves[ir.funcs[0]][1], LOCAL) is None
    assert not cache.contains(ir.funcs[0], LOCAL)
    assert stats(cache, "hits", "misses", "entries") == (4, 1, 1)
    assert rec.cleaned == []
    cache.close()
    assert rec.cleaned == [v]


def test_nested_gets_count_and_are_cached(ir, rec):
    cache = AnalysisCache(ir.ctx)
    m = rec.get(cache, ir.module, MOD)
    assert [d.name for d in m.deps] == ["func", "func"]
    assert all([dd.name for dd in d.deps] == ["local", "local"] for d in m.deps)
    # 1 module + 2 funcs + 4 leaves, each computed once; every get was a miss
    assert rec.calls == Counter(module=1, func=2, local=4)
    assert stats(cache, "hits", "misses", "entries") == (0, 7, 7)
    # the dependencies are cached too: asking for them is a hit
    for f, d in zip(ir.funcs, m.deps):
        assert rec.get(cache, f, FUNC) is d
    assert rec.get(cache, ir.module, MOD) is m
    assert stats(cache, "hits", "misses") == (3, 7)
    assert rec.calls == Counter(module=1, func=2, local=4)
    assert {(op, name) for op, name in cache.keys()} == (
        {(ir.module, MOD.name)} | {(f, FUNC.name) for f in ir.funcs}
        | {(leaf, LOCAL.name) for f in ir.funcs for leaf in ir.leaves[f]})
    cache.close()
    assert sorted(v.serial for v in rec.cleaned) == sorted(v.serial for v in rec.computed)


def test_hit_path_through_a_scope_and_keys_in_lru_order(ir, rec):
    cache = AnalysisCache(ir.ctx)
    a, b = ir.leaves[ir.funcs[0]]
    va, vb = rec.get(cache, a, LOCAL), rec.get(cache, b, LOCAL)
    assert cache.keys() == [(b, LOCAL.name), (a, LOCAL.name)]      # most recently used first
    scope = AnalysisScope(cache, a)
    assert scope.get_analysis(a, LOCAL, rec.local) is va           # a hit, a now the most recent
    assert cache.keys() == [(a, LOCAL.name), (b, LOCAL.name)]
    assert scope.get_cached_analysis(b, LOCAL) is vb
    assert cache.keys() == [(b, LOCAL.name), (a, LOCAL.name)]
    assert cache.contains(a, LOCAL)                                # contains does not reorder
    assert cache.keys() == [(b, LOCAL.name), (a, LOCAL.name)]
    assert stats(cache, "hits", "misses", "recomputes") == (2, 2, 0)
    assert rec.calls["local"] == 2
    cache.close()


# ---- never stale --------------------------------------------------------------------------------

def test_mutating_the_op_forces_recompute_and_cleans_the_old_value(ir, rec):
    cache = AnalysisCache(ir.ctx)
    leaf = ir.leaves[ir.funcs[0]][0]
    v1 = rec.get(cache, leaf, LOCAL)
    leaf.set_attribute("tag", 1)
    assert not cache.contains(leaf, LOCAL)
    assert cache.get_cached_analysis(leaf, LOCAL) is None          # stale: None, nothing computed
    assert rec.calls["local"] == 1 and rec.cleaned == []
    v2 = rec.get(cache, leaf, LOCAL)
    assert v2 is not v1 and v2.current() and not v1.current()
    assert rec.cleaned == [v1]                                     # replaced: cleaned up now
    assert stats(cache, "hits", "misses", "recomputes", "entries") == (0, 1, 1, 1)
    assert rec.get(cache, leaf, LOCAL) is v2
    assert stats(cache, "hits", "misses", "recomputes") == (1, 1, 1)
    cache.close()
    assert rec.cleaned == [v1, v2]


def test_mutating_a_nested_op_forces_recompute_of_the_ancestors(ir, rec):
    cache = AnalysisCache(ir.ctx)
    f0, f1 = ir.funcs
    m1 = rec.get(cache, ir.module, MOD)
    g0, g1 = m1.deps
    ir.leaves[f0][1].set_attribute("tag", 7)
    # the module and f0 changed (epochs of every ancestor), f1 did not
    assert not cache.contains(ir.module, MOD) and not cache.contains(f0, FUNC)
    assert cache.contains(f1, FUNC) and cache.contains(ir.leaves[f0][0], LOCAL)
    m2 = rec.get(cache, ir.module, MOD)
    assert m2 is not m1 and m2.current()
    assert m2.deps[1] is g1                                        # f1's value was a hit
    assert m2.deps[0] is not g0
    assert m2.deps[0].deps[0] is g0.deps[0]                        # the untouched leaf: a hit
    assert rec.calls == Counter(module=2, func=3, local=5)
    assert set(rec.cleaned) == {m1, g0, g0.deps[1]}
    cache.close()


def test_adding_and_erasing_nested_ops_forces_recompute(ir, rec):
    cache = AnalysisCache(ir.ctx)
    f0 = ir.funcs[0]
    v1 = rec.get(cache, f0, FUNC)
    new = add_leaf(ir.ctx, f0)
    v2 = rec.get(cache, f0, FUNC)
    assert v2 is not v1 and len(v2.deps) == 3 and v1 in rec.cleaned
    new.erase()
    v3 = rec.get(cache, f0, FUNC)
    assert v3 is not v2 and len(v3.deps) == 2 and v2 in rec.cleaned
    assert stats(cache, "recomputes") == (2,)
    cache.close()


def test_mutating_a_dependency_op_forces_recompute(ir, rec):
    """PEER on f0 reads FUNC on f1: a change in f1 does not touch f0's epoch, yet PEER on f0 must
    be recomputed (the cache remembers the ops its computation read)."""
    cache = AnalysisCache(ir.ctx)
    f0, f1 = ir.funcs
    p1 = rec.get(cache, f0, PEER)
    epoch0 = f0.epoch
    ir.leaves[f1][0].set_attribute("tag", 1)
    assert f0.epoch == epoch0
    assert not cache.contains(f0, PEER)
    assert cache.get_cached_analysis(f0, PEER) is None
    p2 = rec.get(cache, f0, PEER)
    assert p2 is not p1 and p2.current()
    assert p1 in rec.cleaned
    assert rec.calls == Counter(peer=2, func=2, local=3)
    cache.close()


def test_transitive_dependency_change_forces_recompute(ir, rec):
    """PEER on f0 reads FUNC on f1 which reads LOCAL on f1's leaves: a change to a leaf op of f1
    that only LOCAL read reaches PEER on f0 (dependencies are flattened)."""
    cache = AnalysisCache(ir.ctx)
    f0, f1 = ir.funcs
    leaf = ir.leaves[f1][1]
    p1 = rec.get(cache, f0, PEER)
    leaf.detach()
    leaf.move_to_end(f1.regions[0].blocks[0])                     # the op itself changed too
    assert not cache.contains(f0, PEER)
    p2 = rec.get(cache, f0, PEER)
    assert p2 is not p1 and p2.current()
    cache.close()


def test_erasing_a_detached_dependency_op_forces_recompute(ir, rec):
    """FUNC-like analysis on f0 reading LOCAL of a detached op `d`: erasing `d` (which bumps no
    epoch of an attached op) must still make the value stale, whatever the Context clock did."""
    cache = AnalysisCache(ir.ctx)
    f0, f1 = ir.funcs
    d = ir.leaves[f1][0]
    d.detach()
    reader = AnalysisDescriptor("test.cache.reads-detached")

    def compute(op, scope):
        return rec.make("reader", op, [rec.get(scope, d, LOCAL)])

    v1 = cache.get_analysis(f0, reader, compute, rec.cleanup)
    assert cache.get_analysis(f0, reader, compute, rec.cleanup) is v1
    d.erase()
    # the value read an analysis of an op that no longer exists: it must not be served
    assert not cache.contains(f0, reader)
    assert cache.get_cached_analysis(f0, reader) is None
    cache.close()


def test_get_cached_analysis_inside_a_compute_is_a_dependency(ir, rec):
    """A computation that reads another analysis with get_cached_analysis depends on it as much
    as one that uses get_analysis."""
    f0, f1 = ir.funcs
    cache = AnalysisCache(ir.ctx)
    s1 = rec.get(cache, f1, SHAPE)
    peek = AnalysisDescriptor("test.cache.peek")

    def compute(op, scope):
        return rec.make("peek", op, [scope.get_cached_analysis(f1, SHAPE)])

    v = cache.get_analysis(f0, peek, compute, rec.cleanup)
    assert v.deps == (s1,)
    assert cache.get_analysis(f0, peek, compute, rec.cleanup) is v
    f1.set_attribute("tag", 1)                          # f0's epoch does not change
    assert not cache.contains(f0, peek)
    v2 = cache.get_analysis(f0, peek, compute, rec.cleanup)
    assert v2 is not v and v2.deps == (None,)           # SHAPE on f1 is stale: not served
    cache.close()


def test_native_hit_loop_counts_hits_only_while_fresh(ir, rec):
    from accy._core.analysis import hit_loop
    cache = AnalysisCache(ir.ctx)
    f0 = ir.funcs[0]
    g = rec.get(cache, f0, FUNC)
    assert hit_loop(cache, f0, FUNC, 1000) == 1000
    assert stats(cache, "hits", "misses", "recomputes") == (1000, 3, 0)
    assert hit_loop(cache, f0, SHAPE, 10) == 0                   # nothing cached
    ir.leaves[f0][0].set_attribute("tag", 1)
    assert hit_loop(cache, f0, FUNC, 10) == 0                    # stale: never served
    assert stats(cache, "hits", "misses", "recomputes") == (1000, 3, 0)
    assert rec.get(cache, f0, FUNC) is not g
    assert hit_loop(cache, f0, FUNC, 5) == 5
    cache.close()
    with pytest.raises(AnalysisError, match="closed"):
        hit_loop(cache, f0, FUNC, 1)


def test_keys_never_name_an_op_that_has_no_entry(ir, rec):
    """An entry left behind by an erased op is not reported under a new op that took over its
    record: keys() lists only ops that get_cached_analysis / contains would find."""
    cache = AnalysisCache(ir.ctx)
    f0 = ir.funcs[0]
    x = ir.leaves[f0][0]
    rec.get(cache, x, LOCAL)
    x.erase()
    y = add_leaf(ir.ctx, f0)                            # may reuse x's record
    assert not cache.contains(y, LOCAL)
    assert cache.get_cached_analysis(y, LOCAL) is None
    assert (y, LOCAL.name) not in cache.keys()
    for op, name in cache.keys():
        try:
            op.epoch
        except Exception:
            continue                                    # an erased handle: fine
        assert op != y
    cache.close()


# ---- finish_pass and invalidate -----------------------------------------------------------------

def test_finish_pass_drops_unpreserved_on_root_and_below_and_their_dependents(ir, rec):
    cache = AnalysisCache(ir.ctx)
    f0, f1 = ir.funcs
    m = rec.get(cache, ir.module, MOD)                  # reads FUNC(f0, f1), which read LOCAL
    p = rec.get(cache, f1, PEER)                        # on f1, reads FUNC(f0)
    s0, s1 = rec.get(cache, f0, SHAPE), rec.get(cache, f1, SHAPE)
    assert stats(cache, "entries") == (10,)                 # PEER's read of FUNC(f0): a hit
    # a pass on f0 that preserved SHAPE and LOCAL: FUNC(f0) goes; so do the module analysis and
    # PEER on f1 (outside f0) that read it; f1's own entries and f0's SHAPE stay
    cache.finish_pass(f0, {SHAPE.id, LOCAL.id})
    assert not cache.contains(f0, FUNC)
    assert not cache.contains(ir.module, MOD) and not cache.contains(f1, PEER)
    assert cache.contains(f1, FUNC) and cache.contains(f0, SHAPE) and cache.contains(f1, SHAPE)
    assert all(cache.contains(leaf, LOCAL) for f in ir.funcs for leaf in ir.leaves[f])
    assert set(rec.cleaned) == {m.deps[0], m, p}
    assert stats(cache, "invalidations", "entries") == (3, 7)
    # the survivors are served as they are
    assert rec.get(cache, f0, SHAPE) is s0 and rec.get(cache, f1, SHAPE) is s1
    assert rec.get(cache, f1, FUNC) is m.deps[1]
    cache.close()


def test_finish_pass_drops_transitive_readers_and_only_below_root(ir, rec):
    cache = AnalysisCache(ir.ctx)
    f0, f1 = ir.funcs
    m = rec.get(cache, ir.module, MOD)
    # a pass on a leaf of f1 that preserved nothing: LOCAL on that leaf goes, and everything that
    # read it transitively (FUNC(f1) directly, MOD through FUNC(f1)); f0's entries stay
    leaf = ir.leaves[f1][0]
    cache.finish_pass(leaf, ())
    assert not cache.contains(leaf, LOCAL)
    assert not cache.contains(f1, FUNC) and not cache.contains(ir.module, MOD)
    assert cache.contains(f0, FUNC) and cache.contains(ir.leaves[f1][1], LOCAL)
    assert set(rec.cleaned) == {m, m.deps[1], m.deps[1].deps[0]}
    assert stats(cache, "invalidations") == (3,)
    cache.close()


def test_finish_pass_preserving_everything_keeps_everything(ir, rec):
    cache = AnalysisCache(ir.ctx)
    m = rec.get(cache, ir.module, MOD)
    cache.finish_pass(ir.module, True)
    cache.finish_pass(ir.module, {MOD.id, FUNC.id, LOCAL.id})
    assert stats(cache, "entries", "invalidations") == (7, 0)
    assert rec.get(cache, ir.module, MOD) is m
    cache.finish_pass(ir.module, set())
    assert stats(cache, "entries", "invalidations") == (0, 7)
    assert len(rec.cleaned) == 7
    cache.close()
    assert len(rec.cleaned) == 7


def test_finish_pass_does_not_keep_a_preserved_analysis_whose_ir_changed(ir, rec):
    cache = AnalysisCache(ir.ctx)
    f0 = ir.funcs[0]
    s = rec.get(cache, f0, SHAPE)
    add_leaf(ir.ctx, f0)
    cache.finish_pass(ir.module, True)
    s2 = rec.get(cache, f0, SHAPE)
    assert s2 is not s and s in rec.cleaned
    cache.close()


@pytest.mark.parametrize("which", ["op+desc", "op", "desc", "all"])
def test_invalidate_drops_matching_entries_and_dependents(ir, rec, which):
    cache = AnalysisCache(ir.ctx)
    f0, f1 = ir.funcs
    m = rec.get(cache, ir.module, MOD)
    p = rec.get(cache, f1, PEER)                        # reads FUNC(f0)
    s0 = rec.get(cache, f0, SHAPE)
    g0, g1 = m.deps
    before = set(rec.live())
    if which == "op+desc":
        cache.invalidate(f0, FUNC)
        gone = {g0, m, p}
    elif which == "op":
        cache.invalidate(f0)
        gone = {g0, s0, m, p}
    elif which == "desc":
        cache.invalidate(desc=FUNC)
        gone = {g0, g1, m, p}
    else:
        cache.invalidate()
        gone = before
    assert set(rec.cleaned) == gone
    assert stats(cache, "invalidations", "entries") == (len(gone), len(before) - len(gone))
    for v in before:
        desc = {"local": LOCAL, "func": FUNC, "module": MOD, "peer": PEER, "shape": SHAPE}[v.name]
        assert cache.contains(v.op, desc) == (v not in gone)
        if v not in gone:
            assert cache.get_cached_analysis(v.op, desc) is v
    cache.close()
    assert sorted(v.serial for v in rec.cleaned) == sorted(v.serial for v in rec.computed)


def test_invalidate_reaches_readers_of_an_evicted_analysis(ir, rec):
    """Eviction must not change what invalidation means: FUNC(f0) read LOCAL(leaf); LOCAL(leaf)
    was then evicted (budget); invalidating LOCAL on that leaf must still drop FUNC(f0), exactly
    as `finish_pass` does (it decides by what each entry read, not by what is still cached)."""
    f0 = ir.funcs[0]
    leaf = ir.leaves[f0][0]
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_entries=3))
    g = rec.get(cache, f0, FUNC)                        # LOCAL(a), LOCAL(b), FUNC(f0)
    rec.get(cache, ir.funcs[1], SHAPE)                  # evicts LOCAL(a), the least recent
    assert not cache.contains(leaf, LOCAL) and cache.contains(f0, FUNC)
    cache.invalidate(leaf, LOCAL)
    assert not cache.contains(f0, FUNC)
    assert rec.get(cache, f0, FUNC) is not g
    cache.close()


def test_finish_pass_reaches_readers_of_an_evicted_analysis(ir, rec):
    f0 = ir.funcs[0]
    leaf = ir.leaves[f0][0]
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_entries=3))
    g = rec.get(cache, f0, FUNC)
    rec.get(cache, ir.funcs[1], SHAPE)
    assert not cache.contains(leaf, LOCAL) and cache.contains(f0, FUNC)
    cache.finish_pass(leaf, ())
    assert not cache.contains(f0, FUNC)
    assert rec.get(cache, f0, FUNC) is not g
    cache.close()


# ---- the budget ---------------------------------------------------------------------------------

def test_budget_smaller_than_the_working_set(ctx, rec):
    """12 leaves, room for 3 entries: every value is still right (recomputed as needed), the
    cache never holds more than 3 (checked from inside computations and cleanups too), and the
    evictions are counted."""
    module, func, entry, _ = build_func(ctx)
    leaves = [add_leaf(ctx, func) for _ in range(12)]
    cache = AnalysisCache(ctx, Capacity(max_analysis_entries=3))
    seen = []

    def check(*_):
        seen.append(cache.entries_held)
        assert cache.entries_held <= 3

    def compute(op, scope):
        check()
        return rec.make("local", op)

    def cleanup(v):
        check()
        rec.cleanup(v)

    for rnd in range(3):
        for leaf in leaves:
            v = cache.get_analysis(leaf, LOCAL, compute, cleanup)
            assert v.op == leaf and v.current() and v not in rec.cleaned
            check()
        leaves[rnd].set_attribute("tag", rnd)           # some change in between
    assert max(seen) == 3
    n = 36
    assert rec.calls["local"] == n                       # round robin over 12 > 3: all misses
    assert stats(cache, "hits", "misses", "recomputes", "evictions", "entries") == (
        0, n, 0, n - 3, 3)
    assert len(rec.cleaned) == n - 3
    # the three most recent are held, most recent first; asking again is a hit
    assert cache.keys() == [(leaf, LOCAL.name) for leaf in reversed(leaves[-3:])]
    assert cache.get_analysis(leaves[-1], LOCAL, compute, cleanup) is rec.computed[-1]
    cache.close()
    assert len(rec.cleaned) == n


def test_byte_budget_evicts_least_recently_used(ir, rec):
    desc = sized("test.cache.sized", 100)
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_bytes=250))
    leaves = ir.leaves[ir.funcs[0]] + ir.leaves[ir.funcs[1]]
    vals = [cache.get_analysis(leaf, desc, rec.local, rec.cleanup) for leaf in leaves[:2]]
    assert stats(cache, "entries", "bytes", "peak bytes") == (2, 200, 200)
    cache.get_analysis(leaves[0], desc, rec.local, rec.cleanup)     # leaves[0] most recent now
    v3 = cache.get_analysis(leaves[2], desc, rec.local, rec.cleanup)
    assert rec.cleaned == [vals[1]]                                 # the least recently used
    assert stats(cache, "entries", "bytes", "peak bytes", "evictions") == (2, 200, 200, 1)
    assert cache.keys() == [(leaves[2], desc.name), (leaves[0], desc.name)]
    assert cache.get_analysis(leaves[2], desc, rec.local, rec.cleanup) is v3
    cache.close()
    assert stats(cache, "bytes", "entries", "peak bytes") == (0, 0, 200)


def test_value_larger_than_the_budget_is_returned_uncached(ir, rec):
    big = sized("test.cache.big", 1000)
    small = sized("test.cache.small", 10)
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_bytes=500))
    leaf = ir.leaves[ir.funcs[0]][0]
    s = cache.get_analysis(leaf, small, rec.local, rec.cleanup)
    b1 = cache.get_analysis(leaf, big, rec.local, rec.cleanup)
    b2 = cache.get_analysis(leaf, big, rec.local, rec.cleanup)
    assert b1 is not b2 and rec.calls["local"] == 3
    assert stats(cache, "uncached", "entries", "bytes", "evictions") == (2, 1, 10, 0)
    assert not cache.contains(leaf, big) and cache.contains(leaf, small)
    assert rec.cleaned == []                 # uncached outside any lease: cleaned at close()
    cache.close()
    assert sorted(v.serial for v in rec.cleaned) == sorted(v.serial for v in (s, b1, b2))


def test_zero_entry_budget_caches_nothing(ir, rec):
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_entries=0))
    m = rec.get(cache, ir.module, MOD)
    assert m.current()
    assert stats(cache, "entries", "uncached", "bytes") == (0, 7, 0)
    rec.get(cache, ir.module, MOD)
    assert rec.calls == Counter(module=2, func=4, local=8)
    cache.close()
    assert len(rec.cleaned) == 14


def test_budget_from_the_context_capacity(rec):
    ctx = Context(capacity=Capacity(max_analysis_entries=1))
    module = Module.create(ctx)
    cache = AnalysisCache(ctx)
    assert cache.max_entries == 1 and cache.max_bytes == Capacity().max_analysis_bytes
    rec.get(cache, module, LOCAL)
    rec.get(cache, module, SHAPE)
    assert stats(cache, "entries", "evictions") == (1, 1)
    cache.close()
    override = AnalysisCache(ctx, Capacity(max_analysis_entries=5, max_analysis_bytes=77))
    assert (override.max_entries, override.max_bytes) == (5, 77)
    override.close()


# ---- pins (leases) ------------------------------------------------------------------------------

def test_leased_entries_are_pinned_and_uncached_values_cleaned_at_end_lease(ir, rec):
    leaves = ir.leaves[ir.funcs[0]] + ir.leaves[ir.funcs[1]]
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_entries=2))
    lease = cache.begin_lease()
    scope = AnalysisScope(cache, ir.module, "p", lease)
    got = [rec.get(scope, leaf, LOCAL) for leaf in leaves]
    # the first two are held (pinned), the other two did not fit: returned uncached
    assert stats(cache, "entries", "evictions", "uncached") == (2, 0, 2)
    assert rec.cleaned == []                            # nothing used by the pass is cleaned
    assert cache.contains(leaves[0], LOCAL) and cache.contains(leaves[1], LOCAL)
    # outside the lease, a third value does not fit either (all else pinned)
    extra = rec.get(cache, ir.funcs[0], SHAPE)
    assert stats(cache, "entries", "evictions", "uncached") == (2, 0, 3)
    assert rec.cleaned == []
    cache.end_lease(lease)
    assert set(rec.cleaned) == set(got[2:])             # the pass's uncached values
    # unpinned now: a new value evicts the least recently used
    rec.get(cache, ir.funcs[1], SHAPE)
    assert set(rec.cleaned) == set(got[2:]) | {got[0]}
    assert stats(cache, "evictions") == (1,)
    cache.close()
    assert sorted(v.serial for v in rec.cleaned) == sorted(v.serial for v in got + [extra]
                                                           + [rec.computed[-1]])


def test_a_hit_through_a_lease_pins_the_entry(ir, rec):
    a, b = ir.leaves[ir.funcs[0]]
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_entries=2))
    va, vb = rec.get(cache, a, LOCAL), rec.get(cache, b, LOCAL)    # a is the least recent
    lease = cache.begin_lease()
    scope = AnalysisScope(cache, a, "p", lease)
    assert scope.get_cached_analysis(a, LOCAL) is va                # pins a, as a get would
    rec.get(cache, b, LOCAL)                                        # b most recent again
    rec.get(cache, ir.funcs[0], SHAPE)                              # must evict b, not a
    assert rec.cleaned == [vb]
    cache.end_lease(lease)
    cache.close()


@pytest.mark.parametrize("inner_first", [False, True])
def test_an_outer_lease_keeps_its_pin_when_an_inner_one_ends(ir, rec, inner_first):
    """A pass (lease 1) runs a nested pipeline (lease 2); both ask for the same analysis, in
    either order. When the inner run ends, the outer one still runs and has asked for it: the
    entry must stay pinned."""
    x = ir.leaves[ir.funcs[0]][0]
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_entries=2))
    outer = cache.begin_lease()
    if not inner_first:
        v = rec.get(AnalysisScope(cache, x, "outer", outer), x, LOCAL)
    inner = cache.begin_lease()
    got = rec.get(AnalysisScope(cache, x, "inner", inner), x, LOCAL)
    if inner_first:
        v = got
        assert rec.get(AnalysisScope(cache, x, "outer", outer), x, LOCAL) is v
    else:
        assert got is v
    cache.end_lease(inner)
    rec.get(cache, ir.funcs[0], SHAPE)
    rec.get(cache, ir.funcs[1], SHAPE)                  # needs room: v is pinned by `outer`
    assert v not in rec.cleaned
    assert cache.contains(x, LOCAL)
    cache.end_lease(outer)
    cache.close()


def test_leases_end_in_reverse_order(ir):
    cache = AnalysisCache(ir.ctx)
    a = cache.begin_lease()
    b = cache.begin_lease()
    assert a != b
    with pytest.raises(AnalysisError, match="reverse order"):
        cache.end_lease(a)
    cache.end_lease(b)
    cache.end_lease(a)
    with pytest.raises(AnalysisError):
        cache.end_lease(a)
    cache.close()


# ---- failing and misbehaving analyses -----------------------------------------------------------

def test_failing_compute_drops_what_it_made_and_raises_analysis_error(ir, rec):
    cache = AnalysisCache(ir.ctx)
    f0 = ir.funcs[0]
    keep = rec.get(cache, ir.leaves[f0][0], LOCAL)     # cached before: survives the failure
    bad = AnalysisDescriptor("test.cache.bad")
    boom = ValueError("boom")

    def compute(op, scope):
        rec.get(scope, op, FUNC)                        # FUNC(f0) and LOCAL(second leaf) made
        raise boom

    with pytest.raises(AnalysisError) as info:
        cache.get_analysis(f0, bad, compute, rec.cleanup)
    err = info.value
    assert err.__cause__ is boom
    assert err.analysis_name == bad.name and err.pass_name == ""
    assert bad.name in str(err) and "ValueError" in str(err) and "boom" in str(err)
    assert not cache.contains(f0, bad)
    made = [v for v in rec.computed if v is not keep]
    assert {v.name for v in made} == {"func", "local"}
    assert set(rec.cleaned) == set(made)                # cleaned, and only those
    assert stats(cache, "entries") == (1,) and cache.contains(ir.leaves[f0][0], LOCAL)
    # a retry computes again (nothing was cached for the failure)
    ok = cache.get_analysis(f0, bad, lambda op, scope: rec.make("bad", op), rec.cleanup)
    assert ok.name == "bad"
    cache.close()
    assert sorted(v.serial for v in rec.cleaned) == sorted(v.serial for v in rec.computed)


def test_failure_of_a_nested_analysis_names_it_and_the_pass(ir, rec):
    cache = AnalysisCache(ir.ctx)
    inner = AnalysisDescriptor("test.cache.inner")
    outer = AnalysisDescriptor("test.cache.outer")

    def inner_compute(op, scope):
        return {}["missing"]

    def outer_compute(op, scope):
        return scope.get_analysis(ir.funcs[0], inner, inner_compute)

    scope = AnalysisScope(cache, ir.module, "my-pass", 0)
    with pytest.raises(AnalysisError) as info:
        scope.get_analysis(ir.module, outer, outer_compute)
    err = info.value
    assert err.analysis_name == inner.name and err.pass_name == "my-pass"
    assert "my-pass" in str(err) and inner.name in str(err)
    assert isinstance(err.__cause__, KeyError)
    assert stats(cache, "entries") == (0,)
    cache.close()


def test_uncached_values_of_a_failing_compute_are_cleaned(ir, rec):
    big = sized("test.cache.big", 1000)
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_bytes=100))
    leaf = ir.leaves[ir.funcs[0]][0]
    lease = cache.begin_lease()
    scope = AnalysisScope(cache, leaf, "p", lease)

    def compute(op, scope):
        scope.get_analysis(op, big, rec.local, rec.cleanup)     # uncached (too big)
        raise RuntimeError("late failure")

    with pytest.raises(AnalysisError):
        scope.get_analysis(leaf, LOCAL, compute)
    assert len(rec.cleaned) == 1                         # not waiting for the end of the lease
    cache.end_lease(lease)
    assert len(rec.cleaned) == 1
    cache.close()


def test_an_analysis_error_from_a_compute_passes_through_unchanged(ir):
    cache = AnalysisCache(ir.ctx)
    mine = AnalysisError("mine", "p", "x")

    def compute(op, scope):
        raise mine

    with pytest.raises(AnalysisError) as info:
        cache.get_analysis(ir.module, LOCAL, compute)
    assert info.value is mine
    cache.close()


def test_base_exceptions_propagate_as_they_are(ir, rec):
    cache = AnalysisCache(ir.ctx)

    def compute(op, scope):
        rec.get(scope, ir.funcs[0], SHAPE)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cache.get_analysis(ir.module, LOCAL, compute)
    assert stats(cache, "entries") == (0,) and len(rec.cleaned) == 1
    # the cache still works (no compute frame left behind: nothing counts as a dependency)
    v = rec.get(cache, ir.funcs[0], SHAPE)
    ir.leaves[ir.funcs[1]][0].set_attribute("tag", 1)
    assert rec.get(cache, ir.funcs[0], SHAPE) is v
    cache.close()


def test_cycle_is_an_analysis_error(ir, rec):
    cache = AnalysisCache(ir.ctx)
    a = AnalysisDescriptor("test.cache.cycle-a")
    b = AnalysisDescriptor("test.cache.cycle-b")

    def compute_a(op, scope):
        rec.get(scope, op, SHAPE)
        return scope.get_analysis(op, b, compute_b, rec.cleanup)

    def compute_b(op, scope):
        return scope.get_analysis(op, a, compute_a, rec.cleanup)

    f0 = ir.funcs[0]
    with pytest.raises(AnalysisError, match="depends on itself") as info:
        cache.get_analysis(f0, a, compute_a, rec.cleanup)
    assert info.value.analysis_name == a.name
    assert stats(cache, "entries") == (0,)
    assert [v.name for v in rec.cleaned] == ["shape"]
    # the same analysis on another op is no cycle
    other = AnalysisDescriptor("test.cache.chain")

    def chain(op, scope):
        parent = op.parent_op
        deps = [] if parent is None else [scope.get_analysis(parent, other, chain, rec.cleanup)]
        return rec.make("chain", op, deps)

    v = cache.get_analysis(ir.leaves[f0][0], other, chain, rec.cleanup)
    assert [d.op for d in v.deps] == [f0] and v.deps[0].deps[0].op == ir.module
    cache.close()


def test_compute_that_mutates_its_op_is_an_analysis_error(ir, rec):
    cache = AnalysisCache(ir.ctx)
    f0 = ir.funcs[0]
    bad = AnalysisDescriptor("test.cache.mutates")
    cleaned = []

    def compute(op, scope):
        rec.get(scope, f0, FUNC)
        ir.leaves[f0][0].set_attribute("tag", 1)       # nested in the op analysed
        return "value"

    with pytest.raises(AnalysisError, match="changed the IR") as info:
        cache.get_analysis(ir.module, bad, compute, cleaned.append)
    assert info.value.analysis_name == bad.name
    assert cleaned == ["value"]                         # the value's cleanup ran
    assert not cache.contains(ir.module, bad)
    assert stats(cache, "entries") == (0,)              # FUNC(f0) and its LOCALs dropped
    assert len(rec.cleaned) == 3
    cache.close()
    assert cleaned == ["value"]


def test_estimate_errors_are_analysis_errors(ir, rec):
    cache = AnalysisCache(ir.ctx)
    neg = sized("test.cache.negative", -5)
    with pytest.raises(AnalysisError, match="estimat") as info:
        cache.get_analysis(ir.module, neg, rec.local, rec.cleanup)
    assert info.value.analysis_name == neg.name
    assert rec.cleaned == rec.computed and len(rec.cleaned) == 1
    assert stats(cache, "entries") == (0,)
    cache.close()


# ---- cleanups that raise ------------------------------------------------------------------------

class Boom(Exception):
    pass


def raising_cleanup(log):
    def cleanup(value):
        log.append(value)
        raise Boom(f"cannot release {value!r}")
    return cleanup


def test_cleanup_raising_on_invalidate_leaves_the_cache_consistent(ir, rec):
    cache = AnalysisCache(ir.ctx)
    log = []
    f0, f1 = ir.funcs
    a = cache.get_analysis(f0, SHAPE, rec.shape, raising_cleanup(log))
    b = cache.get_analysis(f1, SHAPE, rec.shape, raising_cleanup(log))
    m = rec.get(cache, ir.module, MOD)
    with pytest.raises(AnalysisError) as info:
        cache.invalidate(desc=SHAPE)
    assert info.value.analysis_name == SHAPE.name
    assert isinstance(info.value.__cause__, Boom)
    assert sorted(v.serial for v in log) == sorted([a.serial, b.serial])   # both ran, once each
    assert not cache.contains(f0, SHAPE) and not cache.contains(f1, SHAPE)
    assert stats(cache, "entries", "invalidations") == (7, 2)
    assert rec.get(cache, ir.module, MOD) is m          # the rest is untouched
    # nothing left pending: later calls do not raise it again
    cache.invalidate(ir.funcs[0], SHAPE)
    rec.get(cache, f0, SHAPE)
    cache.close()
    assert len(log) == 2


def test_cleanup_raising_on_replacement_eviction_and_close(ir, rec):
    log = []
    leaf = ir.leaves[ir.funcs[0]][0]
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_entries=1))
    v1 = cache.get_analysis(leaf, LOCAL, rec.local, raising_cleanup(log))
    leaf.set_attribute("tag", 1)
    with pytest.raises(AnalysisError, match="cleanup"):            # replacement
        cache.get_analysis(leaf, LOCAL, rec.local, raising_cleanup(log))
    assert log == [v1] and stats(cache, "entries", "recomputes") == (0, 1)
    v2 = cache.get_analysis(leaf, LOCAL, rec.local, raising_cleanup(log))
    assert v2.current() and cache.contains(leaf, LOCAL)
    with pytest.raises(AnalysisError, match="cleanup"):            # eviction
        rec.get(cache, ir.funcs[0], SHAPE)
    assert log == [v1, v2] and stats(cache, "entries", "evictions") == (1, 1)
    s = rec.get(cache, ir.funcs[0], SHAPE)                          # it was cached
    assert rec.calls["shape"] == 1 and s.name == "shape"
    cache.get_analysis(leaf, PEER, lambda op, sc: "p", raising_cleanup(log))   # evicts SHAPE
    with pytest.raises(AnalysisError, match="cleanup"):            # close
        cache.close()
    assert log == [v1, v2, "p"] and cache.closed
    assert stats(cache, "entries", "bytes") == (0, 0)
    cache.close()                                                   # once is enough
    assert log == [v1, v2, "p"]


def test_cleanup_raising_at_end_lease(ir, rec):
    log = []
    big = sized("test.cache.big", 1000)
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_bytes=10))
    lease = cache.begin_lease()
    scope = AnalysisScope(cache, ir.module, "p", lease)
    v = scope.get_analysis(ir.module, big, rec.local, raising_cleanup(log))
    assert log == []
    with pytest.raises(AnalysisError, match="cleanup"):
        cache.end_lease(lease)
    assert log == [v]
    b = cache.begin_lease()                             # the lease did end
    cache.end_lease(b)
    cache.close()
    assert log == [v]


def test_failing_compute_with_failing_cleanup_reports_the_compute_error_once(ir):
    """A compute fails after a nested analysis was cached; dropping that entry runs a cleanup that
    fails too. The caller gets the compute's error (its analysis, its cause), and the cleanup
    failure does not surface later from an unrelated call."""
    cache = AnalysisCache(ir.ctx)
    log = []
    outer = AnalysisDescriptor("test.cache.outer")
    boom = ValueError("outer failed")

    def compute(op, scope):
        scope.get_analysis(op, SHAPE, lambda o, s: "shape", raising_cleanup(log))
        raise boom

    with pytest.raises(AnalysisError) as info:
        cache.get_analysis(ir.funcs[0], outer, compute)
    assert log == ["shape"]
    assert info.value.analysis_name == outer.name
    assert info.value.__cause__ is boom
    # an unrelated, successful get afterwards raises nothing
    assert cache.get_analysis(ir.funcs[1], SHAPE, lambda o, s: "fine") == "fine"
    cache.close()


# ---- misuse: other Context, closed cache --------------------------------------------------------

def test_op_of_another_context(ir, rec):
    cache = AnalysisCache(ir.ctx)
    other = Module.create(Context())
    with pytest.raises(AnalysisError, match="another Context"):
        rec.get(cache, other, LOCAL)
    for call in (lambda: cache.get_cached_analysis(other, LOCAL),
                 lambda: cache.contains(other, LOCAL),
                 lambda: cache.finish_pass(other, ()),
                 lambda: cache.invalidate(other),
                 lambda: AnalysisScope(cache, other)):
        with pytest.raises(AnalysisError, match="another Context"):
            call()
    scope = AnalysisScope(cache, ir.module)
    with pytest.raises(AnalysisError, match="another Context"):
        rec.get(scope, other, LOCAL)

    def compute(op, scope):                             # asked for from inside a computation
        return rec.get(scope, other, LOCAL)

    with pytest.raises(AnalysisError, match="another Context"):
        cache.get_analysis(ir.module, MOD, compute)
    assert rec.calls == Counter() and stats(cache, "entries") == (0,)
    cache.close()


def test_closed_cache_refuses_use(ir, rec):
    cache = AnalysisCache(ir.ctx)
    m = rec.get(cache, ir.module, MOD)
    scope = AnalysisScope(cache, ir.module, "p", 0)
    cache.close()
    assert cache.closed and len(rec.cleaned) == 7 and m in rec.cleaned
    assert stats(cache, "entries", "bytes") == (0, 0)
    for call in (lambda: rec.get(cache, ir.module, MOD),
                 lambda: rec.get(scope, ir.module, MOD),
                 lambda: cache.get_cached_analysis(ir.module, MOD),
                 lambda: scope.get_cached_analysis(ir.module, MOD),
                 lambda: cache.contains(ir.module, MOD),
                 lambda: cache.finish_pass(ir.module, ()),
                 lambda: cache.invalidate(ir.module),
                 lambda: cache.invalidate(),
                 lambda: cache.begin_lease()):
        with pytest.raises(AnalysisError, match="closed"):
            call()
    assert rec.calls["module"] == 1
    cache.close()                                       # idempotent
    assert len(rec.cleaned) == 7


def test_closing_from_inside_a_compute(ir, rec):
    cache = AnalysisCache(ir.ctx)

    def compute(op, scope):
        rec.get(scope, ir.funcs[0], SHAPE)
        cache.close()
        return rec.make("late", op)

    with pytest.raises(AnalysisError, match="closed"):
        cache.get_analysis(ir.module, LOCAL, compute, rec.cleanup)
    assert sorted(v.serial for v in rec.cleaned) == sorted(v.serial for v in rec.computed)


# ---- descriptors --------------------------------------------------------------------------------

def test_descriptor_ids_are_stable_across_processes():
    names = ["test.cache.local", "liveness", "dominance", "ü-analysis"]
    expected = [int.from_bytes(hashlib.blake2b(n.encode(), digest_size=8).digest(), "little")
                for n in names]
    assert [AnalysisDescriptor(n).id for n in names] == expected
    assert [stable_id(n) for n in names] == expected
    assert expected[1] == 322845136405580702          # blake2b-64 of 'liveness', little end
    code = ("import sys; from accy.passes.core import AnalysisDescriptor; "
            "print(*[AnalysisDescriptor(n).id for n in sys.argv[1:]])")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed,
                   PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        out = subprocess.run([sys.executable, "-c", code, *names], env=env, check=True,
                             capture_output=True, text=True).stdout.split()
        assert [int(x) for x in out] == expected
    assert all(0 <= i < 2**64 for i in expected) and len(set(expected)) == len(expected)


def test_descriptors_with_one_name_are_one_analysis(ir, rec):
    cache = AnalysisCache(ir.ctx)
    a1 = AnalysisDescriptor("test.cache.same")
    a2 = AnalysisDescriptor("test.cache.same", WorkContract(("other", 2)))
    assert a1.id == a2.id
    v = cache.get_analysis(ir.module, a1, rec.local)
    assert cache.get_analysis(ir.module, a2, rec.local) is v
    assert rec.calls["local"] == 1
    with pytest.raises(ValueError):
        AnalysisDescriptor("")
    cache.close()


# ---- through the pass manager -------------------------------------------------------------------

def test_pass_manager_preserved_analyses_survive_others_are_recomputed(ir, rec):
    """Pass 1 computes MODX (on the module, reading SHAPE on each func) and preserves everything;
    pass 2 preserves SHAPE only; pass 3 finds MODX recomputed and SHAPE served from the cache."""
    modx = AnalysisDescriptor("test.cache.modx")

    def compute_modx(op, scope):
        return rec.make("modx", op, [scope.get_analysis(f, SHAPE, rec.shape, rec.cleanup)
                                     for f in ir.funcs])

    seen = {}

    def pass1(op, pctx):
        seen[1] = pctx.get_analysis(op, modx, compute_modx, rec.cleanup)
        pctx.preserve_all_analyses()

    def pass2(op, pctx):
        pctx.preserve(SHAPE)

    def pass3(op, pctx):
        before = cache.statistics()
        seen[3] = pctx.get_analysis(op, modx, compute_modx, rec.cleanup)
        seen["shapes"] = [pctx.get_analysis(f, SHAPE, rec.shape, rec.cleanup) for f in ir.funcs]
        after = cache.statistics()
        seen["delta"] = {k: after[k] - before[k] for k in ("hits", "misses", "recomputes")}
        pctx.preserve_all_analyses()

    cache = AnalysisCache(ir.ctx)
    PM([Pass("p1", pass1), Pass("p2", pass2), Pass("p3", pass3)]).run(
        ir.module, cache=cache)
    assert rec.calls == Counter(modx=2, shape=2)        # MODX twice, SHAPE once per func
    assert seen[3] is not seen[1] and seen[1] in rec.cleaned
    assert seen[3].deps == seen[1].deps == tuple(seen["shapes"])
    # pass 3: MODX a miss (it was dropped, not found stale), its 2 SHAPE reads and 2 more: hits
    assert seen["delta"] == {"hits": 4, "misses": 1, "recomputes": 0}
    assert stats(cache, "invalidations") == (1,)
    assert cache.contains(ir.module, modx)              # p3 preserved everything
    cache.close()


def test_pass_manager_epoch_change_wins_over_preservation(ir, rec):
    f0, f1 = ir.funcs
    got = []

    def analyze(op, pctx):
        got.append(rec.get(pctx, op, MOD))
        pctx.preserve_all_analyses()

    def mutate(op, pctx):
        ir.leaves[f0][0].set_attribute("tag", 3)
        pctx.preserve_all_analyses()

    cache = AnalysisCache(ir.ctx)
    PM([Pass("a", analyze), Pass("m", mutate), Pass("b", analyze)]).run(
        ir.module, cache=cache)
    first, second = got
    assert second is not first
    assert second.deps[1] is first.deps[1]              # FUNC(f1): a hit
    assert second.deps[0] is not first.deps[0]          # FUNC(f0): recomputed
    assert second.deps[0].deps[1] is first.deps[0].deps[1]   # the untouched leaf: a hit
    assert rec.calls == Counter(module=2, func=3, local=5)
    assert stats(cache, "recomputes", "invalidations") == (3, 0)
    cache.close()


def test_pass_manager_not_preserving_drops_everything_below_the_op(ir, rec):
    def analyze(op, pctx):
        rec.get(pctx, op, MOD)

    cache = AnalysisCache(ir.ctx)
    PM([Pass("a", analyze)]).run(ir.module, cache=cache)
    assert stats(cache, "entries", "invalidations") == (0, 7)
    assert len(rec.cleaned) == 7
    cache.close()


def test_pass_manager_preserving_an_analysis_whose_input_was_not_preserved(ir, rec):
    """FUNC read LOCAL; a pass that preserves FUNC but not LOCAL loses FUNC too."""
    def analyze(op, pctx):
        rec.get(pctx, ir.funcs[0], FUNC)
        pctx.preserve_all_analyses()

    def keep_func(op, pctx):
        pctx.preserve(FUNC)

    cache = AnalysisCache(ir.ctx)
    PM([Pass("a", analyze), Pass("k", keep_func), Pass("b", analyze)]).run(
        ir.module, cache=cache)
    assert rec.calls == Counter(func=2, local=4)
    cache.close()


def test_pass_manager_leases_pin_what_a_pass_uses(ir, rec):
    leaves = ir.leaves[ir.funcs[0]] + ir.leaves[ir.funcs[1]]
    during = {}

    def use_all(op, pctx):
        vals = [rec.get(pctx, leaf, LOCAL) for leaf in leaves]
        during["cleaned"] = list(rec.cleaned)
        during["stats"] = stats(cache, "entries", "uncached", "evictions")
        during["vals"] = vals
        pctx.preserve_all_analyses()

    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_entries=3))
    rec.get(cache, ir.funcs[0], SHAPE)                  # unpinned: may be evicted by the pass
    PM([Pass("use", use_all)]).run(ir.module, cache=cache)
    assert during["cleaned"] == [rec.computed[0]]       # only the unpinned SHAPE value
    assert during["stats"] == (3, 1, 1)
    vals = during["vals"]
    assert set(rec.cleaned) == {rec.computed[0], vals[3]}   # the uncached one: at pass end
    assert stats(cache, "entries") == (3,)
    cache.close()
    assert len(rec.cleaned) == 5


def test_nested_pipeline_runs_on_each_func_and_invalidates_as_an_adaptor(ir, rec):
    ran = []

    def analyze(op, pctx):
        rec.get(pctx, op, MOD)
        pctx.preserve_all_analyses()

    def on_func(op, pctx):
        ran.append(op)
        assert op.name == "builtin.func"
        assert rec.get(pctx, op, FUNC).op == op
        pctx.preserve(FUNC, LOCAL)

    def check(op, pctx):
        cached["mod"] = cache.contains(op, MOD)
        cached["func"] = [cache.contains(f, FUNC) for f in ir.funcs]

    cached = {}
    cache = AnalysisCache(ir.ctx)
    PM([Pass("analyze", analyze), Nest("builtin.func", (Pass("on-func", on_func),)),
                 Pass("check", check)]).run(ir.module, cache=cache)
    assert ran == ir.funcs
    assert rec.calls == Counter(module=1, func=2, local=4)    # the funcs' FUNC were hits
    # the nest preserved FUNC and LOCAL (all its passes did): MOD on the module was dropped
    assert cached == {"mod": False, "func": [True, True]}
    cache.close()


def test_nested_pipeline_not_preserving_drops_per_func_and_the_module(ir, rec):
    def analyze(op, pctx):
        rec.get(pctx, op, MOD)
        rec.get(pctx, op, SHAPE)
        pctx.preserve_all_analyses()

    def mutate_f0(op, pctx):
        if op == ir.funcs[0]:
            ir.leaves[op][0].set_attribute("tag", 1)
        pctx.preserve_all_analyses()

    def drop_nothing_kept(op, pctx):
        pass

    cache = AnalysisCache(ir.ctx)
    PM([Pass("analyze", analyze),
                 Nest("builtin.func", (Pass("mutate", mutate_f0),))]).run(ir.module, cache=cache)
    # everything preserved, but f0 (and the module) changed
    assert cache.contains(ir.funcs[1], FUNC) and not cache.contains(ir.funcs[0], FUNC)
    assert not cache.contains(ir.module, MOD)
    assert cache.contains(ir.module, SHAPE) is False    # the module's epoch changed too
    PM([Pass("analyze", analyze),
                 Nest("builtin.func", (Pass("nothing", drop_nothing_kept),))]).run(
        ir.module, cache=cache)
    # the nest kept nothing: every entry on the module and below is gone
    assert stats(cache, "entries") == (0,)
    cache.close()
    assert sorted(v.serial for v in rec.cleaned) == sorted(v.serial for v in rec.computed)


def test_pass_asking_for_an_op_of_another_context_fails(ir, rec):
    other = Module.create(Context())

    def bad(op, pctx):
        rec.get(pctx, other, LOCAL)

    cache = AnalysisCache(ir.ctx)
    with pytest.raises(PassError) as info:
        PM([Pass("bad", bad)]).run(ir.module, cache=cache)
    assert info.value.pass_name == "bad"
    assert isinstance(info.value.__cause__, AnalysisError)
    assert "another Context" in str(info.value)
    cache.close()
    with pytest.raises(PassError, match="another Context"):
        PM([]).run(other, cache=AnalysisCache(ir.ctx))


def test_pass_with_a_failing_analysis_names_pass_and_analysis(ir, rec):
    bad = AnalysisDescriptor("test.cache.failing")

    def compute(op, scope):
        rec.get(scope, op, SHAPE)
        raise ZeroDivisionError("nope")

    def p(op, pctx):
        pctx.get_analysis(op, bad, compute)

    cache = AnalysisCache(ir.ctx)
    with pytest.raises(PassError) as info:
        PM([Pass("needs-analysis", p)]).run(ir.module, cache=cache)
    err = info.value
    assert err.pass_name == "needs-analysis"
    cause = err.__cause__
    assert isinstance(cause, AnalysisError)
    assert cause.pass_name == "needs-analysis" and cause.analysis_name == bad.name
    assert isinstance(cause.__cause__, ZeroDivisionError)
    assert stats(cache, "entries") == (0,) and len(rec.cleaned) == 1
    cache.close()


def test_pass_manager_with_its_own_cache_closes_it(ir, rec):
    def analyze(op, pctx):
        rec.get(pctx, op, MOD)
        pctx.preserve_all_analyses()

    PM([Pass("a", analyze)]).run(ir.module)
    assert len(rec.cleaned) == 7                         # closed after the run


def test_an_op_reusing_an_erased_ops_record_is_a_miss(ir, rec):
    """The generation is part of the key: the new op's first get is a miss; the erased op's
    entry stays (stale, under an erased handle) until a pass end or eviction drops it."""
    cache = AnalysisCache(ir.ctx)
    f0 = ir.funcs[0]
    x = ir.leaves[f0][0]
    old = rec.get(cache, x, LOCAL)
    x.erase()
    y = add_leaf(ir.ctx, f0)
    misses = cache.misses
    new = rec.get(cache, y, LOCAL)
    assert new is not old and cache.misses == misses + 1 and cache.recomputes == 0
    assert old not in rec.cleaned and cache.entries_held == 2
    cache.finish_pass(ir.module, {LOCAL.id})            # preserved, but its op is gone
    assert old in rec.cleaned and new not in rec.cleaned and cache.entries_held == 1
    cache.close()


def test_a_value_that_cannot_fit_evicts_nothing(ir, rec):
    """Pinned entries leave too little room: the new value is returned uncached, and the
    unpinned entries are not evicted for nothing."""
    big = AnalysisDescriptor("test.cache.big", WorkContract(("big", 1), estimate=lambda v: 50))
    small = AnalysisDescriptor("test.cache.small", WorkContract(("small", 1),
                                                                estimate=lambda v: 30))
    f0, f1 = ir.funcs
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_bytes=100))
    lease = cache.begin_lease()
    scope = AnalysisScope(cache, f0, "p", lease)
    pinned = scope.get_analysis(f0, small, lambda o, s: ["pinned"], rec.cleanup)
    scope.get_analysis(f1, small, lambda o, s: ["pinned too"], rec.cleanup)
    free = cache.get_analysis(ir.module, small, lambda o, s: ["unpinned"], rec.cleanup)
    assert cache.bytes_held == 90
    lost = scope.get_analysis(ir.module, big, lambda o, s: ["too big now"], rec.cleanup)
    assert cache.uncached == 1 and cache.evictions == 0 and free not in rec.cleaned
    assert cache.contains(ir.module, small) and pinned not in rec.cleaned
    cache.end_lease(lease)
    assert lost in rec.cleaned                          # uncached: cleaned when the run ends
    cache.close()


def test_an_uncached_value_without_cleanup_is_not_kept(ir):
    """Outside a pass, a value too big for the budget and with nothing to clean up is not held
    until close(): once the caller drops it, it is gone (the budget bounds memory)."""
    import gc
    import weakref

    class Big:
        pass
    huge = AnalysisDescriptor("test.cache.huge", WorkContract(("huge", 1), estimate=lambda v: 10))
    cache = AnalysisCache(ir.ctx, Capacity(max_analysis_bytes=5))
    value = cache.get_analysis(ir.module, huge, lambda o, s: Big())
    ref = weakref.ref(value)
    assert cache.uncached == 1 and cache.entries_held == 0
    del value
    gc.collect()
    assert ref() is None
    cache.close()
