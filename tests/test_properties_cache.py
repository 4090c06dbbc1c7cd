"""Model-based property test of the analysis cache (accy._core.analysis.AnalysisCache).

A module with a few funcs, each holding a few `test.source` leaves, and five analyses that read
one another across ops:

    LEAF   on a leaf       reads nothing
    USER   on a leaf       reads FUNC of its parent func (when attached) and LEAF of a partner leaf
    FUNC   on a func       reads LEAF of every leaf in it
    NEXT   on a func       reads FUNC of the next func (a sibling)
    MOD    on the module   reads FUNC of every func and NEXT of the first
    FAIL   on a func       reads FUNC and NEXT of it, then raises

Random sequences of gets (through the cache, or through a scope holding an active lease), IR
changes (attributes, new leaves, erasures, detach and re-attach), finish_pass with random roots
and preserved sets, invalidate, leases, and a small budget (entries and bytes) run against a
pure-Python model that knows, for every computed value, the epoch of its op and the values it
read, and when each (op, analysis) was last invalidated. The model decides, before each get,
whether it must be a hit, a miss, or a recompute of a stale entry, which values the cache holds
and in what LRU order, which values are pinned, and which cleanup is legitimate when it runs.

Invariants checked: a returned value is never stale or cleaned up; the budget holds at every
point (also from inside computations and cleanups); an eviction takes the least recently used
unpinned entry and only when the new value does not fit; a value is returned uncached only when it
cannot fit; cleanups run exactly once per computed value (all of them by close()), never for a
value still cached or pinned; every counter equals the model's count; keys() equals the model's
LRU order. (An erased op's record may be reused by a new op: the generation in the cache's key
keeps the erased op's entry apart; it stays, stale, until evicted or dropped.)
"""
import itertools
from collections import OrderedDict

from hypothesis import HealthCheck, Phase, settings, strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule)

from accy._core.analysis import AnalysisCache, AnalysisScope
from accy.errors import AccyError, AnalysisError
from accy.ir import Builder, Capacity, Context, Module
from accy.passes.core import AnalysisDescriptor, WorkContract
from ir_helpers import F32, build_func

NAMES = ("leaf", "user", "func", "next", "mod", "fail")
ON = {"leaf": "leaf", "user": "leaf", "func": "func", "next": "func", "mod": "module",
      "fail": "func"}
MAX_LEAVES = 8


class MVal:
    """A computed value as the model sees it."""

    __slots__ = ("serial", "key", "epoch", "fp", "deps", "time", "nbytes", "leases", "cleaned",
                 "state", "lease")

    def __init__(self, serial, key, epoch, fp, deps, time, nbytes):
        self.serial, self.key, self.epoch, self.fp = serial, key, epoch, fp
        self.deps, self.time, self.nbytes = tuple(deps), time, nbytes
        self.leases = set()       # leases that asked for it while it was held
        self.cleaned = 0
        self.state = "new"        # new -> held | transient -> gone
        self.lease = 0            # for a transient: the lease of the scope that computed it

    def __repr__(self):
        return f"<{self.key[1]}#{self.serial} {self.state}>"


class Failure(Exception):
    pass


class CacheMachine(RuleBasedStateMachine):

    @initialize(n_funcs=st.integers(1, 3), leaves=st.lists(st.integers(0, 3), min_size=3,
                                                            max_size=3),
                max_entries=st.sampled_from([0, 1, 2, 3, 4, 5, 6, 1000]),
                max_bytes=st.sampled_from([10**9, 10**9, 60, 120, 200, 400]),
                sizes=st.lists(st.integers(1, 90), min_size=len(NAMES), max_size=len(NAMES)),
                n_leases=st.integers(0, 3))
    def setup(self, n_funcs, leaves, max_entries, max_bytes, sizes, n_leases):
        self.ctx = Context()
        self.module = Module.create(self.ctx)
        self.funcs, self.leaves, self.detached = [], [], set()
        for i in range(n_funcs):
            _, func, _, _ = build_func(self.ctx, f"f{i}", module=self.module)
            self.funcs.append(func)
            for _ in range(leaves[i]):
                self.new_leaf(func)
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self.cache = AnalysisCache(self.ctx, Capacity(max_analysis_entries=max_entries,
                                                      max_analysis_bytes=max_bytes))
        self.size_of = dict(zip(NAMES, sizes))
        self.descs = {n: AnalysisDescriptor(
            f"prop.{n}", WorkContract((f"prop.{n}", 1), estimate=self.estimate))
            for n in NAMES}
        computes = {"leaf": self.c_leaf, "user": self.c_user, "func": self.c_func,
                    "next": self.c_next, "mod": self.c_mod, "fail": self.c_fail}
        self.computes = {n: self.counted(f) for n, f in computes.items()}
        # the model
        self.serials = itertools.count(1)
        self.values = []                    # every value computed, in order
        self.held = {}                      # key -> MVal the cache must hold
        self.lru = OrderedDict()            # key -> None, least recently used first
        self.transients = []                # values returned uncached, not cleaned yet
        self.leases = []                    # active leases, innermost last
        self.last_inval = {}                # key -> tick of its last invalidation
        self.tick = 0
        self.frames = []                    # per get in progress: what it saw
        self.phase = "idle"
        self.ending = None                  # the lease being ended
        self.pending_nbytes = None
        self.exp = dict(hits=0, misses=0, recomputes=0, uncached=0)
        self.n_computes = 0
        self.n_lookups = 0                  # gets + successful get_cached_analysis
        self.cleaned = dict(stale=0, evicted=0, invalidated=0, transient=0, discarded=0)
        self.closed = False
        self.failing = False
        for _ in range(n_leases):           # passes already running (nested pipelines)
            self.begin_lease()
        self.abandoned = False
        self.recent = []                    # keys asked for lately (drawn again more often)

    # ---- IR helpers --------------------------------------------------------------------------

    def new_leaf(self, func):
        op = Builder(self.ctx).at_end(func.regions[0].blocks[0]).create(
            "test.source", (), (F32,))
        self.leaves.append(op)
        return op

    def ops_of(self, kind):
        return {"leaf": self.leaves, "func": self.funcs, "module": [self.module]}[kind]

    def all_ops(self):
        return [self.module] + self.funcs + self.leaves

    def func_leaves(self, func):
        return list(func.walk(name="test.source"))

    @staticmethod
    def alive(op):
        try:
            op.epoch
            return True
        except AccyError:
            return False

    # ---- the analyses ------------------------------------------------------------------------

    def estimate(self, value):
        self.check_budget()
        assert isinstance(value, MVal) and value.state == "new"
        self.pending_nbytes = value.nbytes
        return value.nbytes

    def counted(self, compute):
        def run(op, scope):
            self.n_computes += 1
            self.check_budget()
            frame = self.frames[-1]
            assert frame["key"][0] == op, "compute called for another op than asked"
            assert frame["computed"] is None, "computed twice in one get"
            frame["lease"] = scope.lease
            mark = next(self.serials)
            try:
                return compute(op, scope)
            except BaseException:
                # the cache drops what this compute made (values with serials from `mark` on)
                self.fail_mark = mark if not self.failing else min(self.fail_mark, mark)
                self.failing = True
                raise
        return run

    def make(self, name, op, deps):
        self.check_budget()
        frame = self.frames[-1]
        assert frame["key"] == (op, name), "compute called for another key than asked"
        assert frame["computed"] is None, "computed twice in one get"
        if frame["lease"]:     # what a pass asked for is pinned: not cleaned up while it runs
            assert not any(d.cleaned for d in deps), "a leased compute read a cleaned-up value"
        serial = next(self.serials)
        v = MVal(serial, (op, name), op.epoch, op.fingerprint(), deps, self.tick,
                 self.size_of[name] + serial % 7)
        self.values.append(v)
        frame["computed"] = v
        return v

    def c_leaf(self, op, scope):
        return self.make("leaf", op, [])

    def c_user(self, op, scope):
        deps = []
        parent = op.parent_op
        if parent is not None:
            deps.append(self.get(scope, parent, "func"))
        partner = self.leaves[(self.leaves.index(op) + 1) % len(self.leaves)]
        deps.append(self.get(scope, partner, "leaf"))
        return self.make("user", op, deps)

    def c_func(self, op, scope):
        return self.make("func", op, [self.get(scope, leaf, "leaf")
                                      for leaf in self.func_leaves(op)])

    def c_next(self, op, scope):
        nxt = self.funcs[(self.funcs.index(op) + 1) % len(self.funcs)]
        return self.make("next", op, [self.get(scope, nxt, "func")])

    def c_mod(self, op, scope):
        deps = [self.get(scope, f, "func") for f in self.funcs]
        deps.append(self.get(scope, self.funcs[0], "next"))
        return self.make("mod", op, deps)

    def c_fail(self, op, scope):
        self.get(scope, op, "func")
        self.get(scope, op, "next")
        raise Failure(f"fail on {op.name}")

    # ---- the model's judgements --------------------------------------------------------------

    def stale(self, v):
        op, name = v.key
        if not self.alive(op) or op.epoch != v.epoch:
            return True
        if self.last_inval.get(v.key, -1) > v.time:
            return True
        return any(self.stale(d) for d in v.deps)

    def check_unchanged(self, v):
        """A value the model deems fresh: its IR (and its dependencies') is unchanged."""
        assert v.key[0].fingerprint() == v.fp, f"{v} fresh by epoch but its op changed"
        for d in v.deps:
            self.check_unchanged(d)

    def pinned(self, v):
        return bool(v.leases & set(self.leases))

    def held_bytes(self):
        return sum(v.nbytes for v in self.held.values())

    def check_budget(self):
        c = self.cache
        assert c.entries_held <= self.max_entries, (c.entries_held, self.max_entries)
        assert c.bytes_held <= self.max_bytes, (c.bytes_held, self.max_bytes)

    def cleanup(self, v):
        if self.abandoned:                  # a failed example's cache, closed without checks
            return
        self.check_budget()
        assert isinstance(v, MVal)
        assert v.cleaned == 0, f"{v} cleaned up twice"
        v.cleaned += 1
        if v.state == "held":
            assert self.held.get(v.key) is v
            if self.phase == "close":
                pass
            elif self.failing and v.serial >= self.fail_mark:
                self.cleaned["discarded"] += 1          # made by the failed compute
            elif any(f["replacing"] is v for f in self.frames):
                self.cleaned["stale"] += 1              # found stale by a get: replaced
            elif self.phase == "invalidate":
                assert self.stale(v), f"invalidation dropped {v}, which is still valid"
                self.cleaned["invalidated"] += 1
            else:
                # an eviction: while inserting a value, of the least recently used unpinned entry,
                # and only as long as the new value does not fit
                assert self.phase in ("get", "fail"), f"{v} dropped in phase {self.phase}"
                assert not self.pinned(v), f"evicted {v}, pinned by {v.leases & set(self.leases)}"
                older = list(self.lru)[:list(self.lru).index(v.key)]
                assert all(self.pinned(self.held[k]) for k in older), \
                    f"evicted {v} before older unpinned entries"
                assert (len(self.held) + 1 > self.max_entries
                        or self.held_bytes() + self.pending_nbytes > self.max_bytes), \
                    f"evicted {v} though the new value fit"
                self.cleaned["evicted"] += 1
            del self.held[v.key]
            del self.lru[v.key]
        elif v.state == "transient":
            if self.failing and v.serial >= self.fail_mark:
                self.cleaned["discarded"] += 1
            else:
                assert self.phase == "close" or (self.phase == "end_lease"
                                                 and v.lease == self.ending), \
                    f"uncached {v} (lease {v.lease}) cleaned in phase {self.phase}"
                self.cleaned["transient"] += 1
            self.transients.remove(v)
        else:
            raise AssertionError(f"cleanup of {v}, which the cache does not hold")
        v.state = "gone"

    # ---- gets --------------------------------------------------------------------------------

    def get(self, where, op, name, lease=None):
        """`name` on `op` through `where` (the cache or a scope), checked against the model."""
        if lease is None:
            lease = where.lease if isinstance(where, AnalysisScope) else 0
        key = (op, name)
        cur = self.held.get(key)
        expect = "miss" if cur is None else "recompute" if self.stale(cur) else "hit"
        frame = {"key": key, "computed": None, "inner_uncached": 0, "lease": lease,
                 "replacing": cur if expect == "recompute" else None}
        self.frames.append(frame)
        before = self.cache.uncached
        try:
            v = where.get_analysis(op, self.descs[name], self.computes[name], self.cleanup)
        finally:
            self.frames.pop()
            self.n_lookups += 1
            delta = self.cache.uncached - before
            if self.frames:
                self.frames[-1]["inner_uncached"] += delta
            own = delta - frame["inner_uncached"]
            if expect == "hit":
                self.exp["hits"] += 1
            else:
                self.exp[{"miss": "misses", "recompute": "recomputes"}[expect]] += 1
                if cur is not None:
                    assert cur.cleaned == 1, f"stale {cur} replaced but not cleaned up"
        self.check_budget()
        if expect == "hit":
            assert frame["computed"] is None, f"{cur} was fresh, yet recomputed"
            assert v is cur
            self.lru.move_to_end(key)
        else:
            assert frame["computed"] is not None, \
                f"{name} on {op.name}: served {v}, expected a {expect} ({cur} stale)"
            assert v is frame["computed"]
            assert own in (0, 1), own
            if own:
                self.exp["uncached"] += 1
                # uncached only if evicting every unpinned entry would not make room (and
                # then nothing is evicted for it)
                pinned = [h for h in self.held.values() if self.pinned(h)]
                assert (v.nbytes > self.max_bytes or self.max_entries == 0
                        or len(pinned) + 1 > self.max_entries
                        or sum(h.nbytes for h in pinned) + v.nbytes > self.max_bytes), \
                    f"{v} returned uncached though it could be held"
                v.state, v.lease = "transient", lease
                self.transients.append(v)
            else:
                assert key not in self.held
                v.state = "held"
                self.held[key] = v
                self.lru[key] = None
        if lease and v.state == "held":
            v.leases.add(lease)
        assert v.cleaned == 0, f"returned {v}, already cleaned up"
        assert not self.stale(v), f"returned stale {v}"
        self.check_unchanged(v)
        return v

    def where(self, data, op):
        """The cache, or a scope holding one of the active leases."""
        if not self.leases or data.draw(st.integers(0, 2), label="via cache (0)") == 0:
            return self.cache
        lease = data.draw(st.sampled_from(self.leases), label="lease")
        return AnalysisScope(self.cache, op, "prop-pass", lease)

    def draw_key(self, data, names=NAMES[:-1]):
        recent = [k for k in self.recent if k[0] in self.ops_of(ON[k[1]])]
        if recent and data.draw(st.booleans(), label="a recent key"):
            return data.draw(st.sampled_from(recent), label="key")
        name = data.draw(st.sampled_from([n for n in names if self.ops_of(ON[n])]), label="name")
        op = data.draw(st.sampled_from(self.ops_of(ON[name])), label="op")
        self.recent = ([(op, name)] + [k for k in self.recent if k != (op, name)])[:3]
        return op, name

    # ---- rules: analyses ---------------------------------------------------------------------

    @rule(data=st.data())
    def get_analysis(self, data):
        op, name = self.draw_key(data)
        self.phase = "get"
        self.get(self.where(data, op), op, name)
        self.phase = "idle"

    @rule(data=st.data())
    def get_failing_analysis(self, data):
        op = data.draw(st.sampled_from(self.funcs), label="op")
        where = self.where(data, op)
        self.phase, self.failing = "fail", False
        made_before = len(self.values)
        try:
            self.get(where, op, "fail")
        except AnalysisError as e:
            assert e.analysis_name == self.descs["fail"].name
            assert isinstance(e.__cause__, Failure)
            assert e.pass_name == (where.pass_name if isinstance(where, AnalysisScope) else "")
        else:
            raise AssertionError("a failing analysis did not raise")
        self.phase, self.failing = "idle", False
        for v in self.values[made_before:]:
            assert v.cleaned == 1 and v.state == "gone", f"{v} made by a failed compute, kept"

    @rule(data=st.data())
    def get_cached_analysis(self, data):
        op, name = self.draw_key(data)
        where = self.where(data, op)
        key = (op, name)
        cur = self.held.get(key)
        expected = cur if cur is not None and not self.stale(cur) else None
        self.phase = "get"
        got = where.get_cached_analysis(op, self.descs[name])
        self.phase = "idle"
        assert got is expected
        if got is not None:
            self.n_lookups += 1
            self.exp["hits"] += 1
            self.lru.move_to_end(key)
            if isinstance(where, AnalysisScope) and where.lease:
                got.leases.add(where.lease)

    @rule(data=st.data())
    def contains(self, data):
        op, name = self.draw_key(data)
        cur = self.held.get((op, name))
        assert self.cache.contains(op, self.descs[name]) == (
            cur is not None and not self.stale(cur))

    # ---- rules: IR changes -------------------------------------------------------------------

    @precondition(lambda self: self.leaves)
    @rule(data=st.data(), value=st.integers(0, 3))
    def set_leaf_attribute(self, data, value):
        data.draw(st.sampled_from(self.leaves), label="leaf").set_attribute("tag", value)

    @rule(data=st.data(), value=st.integers(0, 3))
    def set_func_attribute(self, data, value):
        data.draw(st.sampled_from(self.funcs), label="func").set_attribute("tag", value)

    @precondition(lambda self: len(self.leaves) < MAX_LEAVES)
    @rule(data=st.data())
    def add_leaf(self, data):
        self.new_leaf(data.draw(st.sampled_from(self.funcs), label="func"))

    @precondition(lambda self: self.leaves)
    @rule(data=st.data())
    def erase_leaf(self, data):
        leaf = data.draw(st.sampled_from(self.leaves), label="leaf")
        self.leaves.remove(leaf)
        self.detached.discard(leaf)
        leaf.erase()

    @precondition(lambda self: len(self.detached) < len(self.leaves))
    @rule(data=st.data())
    def detach_leaf(self, data):
        leaf = data.draw(st.sampled_from([x for x in self.leaves if x not in self.detached]),
                         label="leaf")
        leaf.detach()
        self.detached.add(leaf)

    @precondition(lambda self: self.detached)
    @rule(data=st.data())
    def attach_leaf(self, data):
        leaf = data.draw(st.sampled_from(sorted(self.detached, key=self.leaves.index)),
                         label="leaf")
        func = data.draw(st.sampled_from(self.funcs), label="func")
        leaf.move_to_end(func.regions[0].blocks[0])
        self.detached.discard(leaf)

    # ---- rules: invalidation -----------------------------------------------------------------

    def invalidated(self, keys):
        self.tick += 1
        for key in keys:
            self.last_inval[key] = self.tick

    @rule(data=st.data())
    def finish_pass(self, data):
        attached = [x for x in self.leaves if x not in self.detached]
        root = data.draw(st.sampled_from([self.module] + self.funcs + attached), label="root")
        if data.draw(st.booleans(), label="preserve all"):
            preserved = True
        else:
            preserved = data.draw(st.sets(st.sampled_from(NAMES)), label="preserved")
            self.invalidated([(op, n) for op in root.walk() for n in NAMES
                              if n not in preserved])
        ids = True if preserved is True else {self.descs[n].id for n in preserved}
        self.phase = "invalidate"
        self.cache.finish_pass(root, ids)
        self.phase = "idle"

    @rule(data=st.data())
    def invalidate(self, data):
        op = data.draw(st.sampled_from([None] + self.all_ops()), label="op")
        name = data.draw(st.sampled_from((None,) + NAMES), label="name")
        self.invalidated([(o, n) for o in self.all_ops() for n in NAMES
                          if (op is None or o == op) and (name is None or n == name)])
        self.phase = "invalidate"
        self.cache.invalidate(op, None if name is None else self.descs[name])
        self.phase = "idle"

    # ---- rules: leases -----------------------------------------------------------------------

    @precondition(lambda self: len(self.leases) < 3)
    @rule()
    def begin_lease(self):
        lease = self.cache.begin_lease()
        assert lease and lease not in self.leases
        self.leases.append(lease)

    @precondition(lambda self: self.leases)
    @rule()
    def end_lease(self):
        self.ending = self.leases[-1]
        self.phase = "end_lease"
        self.cache.end_lease(self.ending)
        self.phase = "idle"
        self.leases.pop()
        assert not any(v.lease == self.ending for v in self.transients), \
            "uncached values of the lease not cleaned at its end"

    # ---- invariants --------------------------------------------------------------------------

    @invariant()
    def agrees_with_model(self):
        if not hasattr(self, "cache") or self.closed:
            return
        self.check_budget()
        s = self.cache.statistics()
        for name, n in self.exp.items():
            assert s[name] == n, (name, s[name], n)
        assert s["hits"] + s["misses"] + s["recomputes"] == self.n_lookups
        assert s["misses"] + s["recomputes"] == self.n_computes
        assert s["entries"] == len(self.held)
        assert s["bytes"] == self.held_bytes()
        assert s["bytes"] <= s["peak bytes"] <= self.max_bytes
        assert s["evictions"] == self.cleaned["evicted"]
        assert s["invalidations"] == self.cleaned["invalidated"]
        assert s["recomputes"] == self.cleaned["stale"]
        cleaned = sum(v.cleaned for v in self.values)
        assert cleaned == sum(self.cleaned.values())
        assert len(self.values) == cleaned + len(self.held) + len(self.transients)
        # keys() lists every entry, most recently used first, under the op it was computed for
        keys = self.cache.keys()
        assert [n for _, n in keys] == [self.descs[n].name for _, n in reversed(self.lru)]
        assert all(h == op for (h, _), (op, _) in zip(keys, reversed(self.lru)))

    def teardown(self):
        if not hasattr(self, "cache"):
            return
        try:
            self.close_and_check()
        finally:
            if not self.cache.closed:       # the example failed: release without checking
                self.abandoned = True
                try:
                    self.cache.close()
                except AnalysisError:
                    pass

    def close_and_check(self):
        while self.leases:                          # passes end before the cache closes
            self.end_lease()
        self.agrees_with_model()
        self.phase = "close"
        self.closed = True
        self.cache.close()
        assert self.cache.closed
        s = self.cache.statistics()
        assert s["entries"] == 0 and s["bytes"] == 0
        for v in self.values:
            assert v.cleaned == 1 and v.state == "gone", f"{v} not cleaned up exactly once"
        assert not self.held and not self.transients


CacheMachine.TestCase.settings = settings(
    max_examples=250, stateful_step_count=100, deadline=None, report_multiple_bugs=False,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestAnalysisCacheModel = CacheMachine.TestCase
