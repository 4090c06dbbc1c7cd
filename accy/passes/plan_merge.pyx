# cython: language_level=3
"""The fusion planner's merge phases over one block's `PlanGraph`: union-find groups of
planned nodes (`Groups`) grown by `group` (cheap elementwise pairs, epilogues, producer ->
consumer merges and siblings; each merge judged by `plan_judges` and kept acyclic), and
`item_order`, the groups in an order that runs every producer first.

    groups = group(g)
    for root in item_order(g, groups):
        groups.members[root], groups.judged.get(root)
"""
import heapq

from accy.passes.plan_graph cimport PlanGraph, PlanNode
from accy.passes.plan_graph import position
from accy.passes.plan_judges import HEROES, check_rules, compatible, escaping_free, judge, \
    reduction_rules, trailing


cdef class Groups:
    """Union-find over the planned nodes of graph `g`, with the item graph kept for the cycle
    check. `judged`: root -> (kind, hero node[, reduction space]) of its last merge."""
    cdef public PlanGraph g
    cdef public dict parent, members, span, judged, heroes, succ, pred
    cdef public set fixed, refused

    def __init__(self, PlanGraph g):
        cdef PlanNode n
        self.g = g
        self.parent = {n: n for n in g.planned}
        self.members = {n: [n] for n in g.planned}
        self.span = {n: n.index for n in g.planned}     # root -> first op's index
        self.fixed = set()
        self.refused = set()
        self.judged = {}
        self.heroes = {n: {n.role: [n]} for n in g.planned if n.role in HEROES}
        self.succ = {n: set() for n in g.planned}
        self.pred = {n: set() for n in g.planned}
        for n in g.planned:
            for r in n.readers:
                if r in self.succ:
                    (<set>self.succ[n]).add(r)
                    (<set>self.pred[r]).add(n)

    cpdef find(self, n):
        parent = self.parent
        root = parent[n]
        while root is not parent[root]:
            root = parent[root]
        while n is not root:
            parent[n], n = root, parent[n]
        return root

    def union(self, a, b):
        """Merge groups `a` and `b` (roots); returns the new root."""
        cdef dict edges, back
        cdef set moved
        if len(self.members[a]) < len(self.members[b]):
            a, b = b, a
        self.parent[b] = a
        self.members[a] += self.members.pop(b)
        self.heroes[a] = _joined(self.heroes.pop(a, None), self.heroes.pop(b, None))
        self.span[a] = min(self.span[a], self.span.pop(b))
        for edges, back in ((self.succ, self.pred), (self.pred, self.succ)):
            moved = edges.pop(b)
            for other in moved:
                (<set>back[other]).discard(b)
                if other is not a:
                    (<set>back[other]).add(a)
            mine = <set>edges[a]
            mine |= moved
            mine.discard(a)
            mine.discard(b)
        return a

    cdef bint reaches(self, a, b, bint skip_direct) except -1:
        """Whether group `b` is reachable from group `a` (not through the direct edge a->b when
        `skip_direct`). No pruning by program position: a merged group spans many ops, so one
        that starts after `b` may still lead into `b` through another."""
        succ = self.succ
        stack = [s for s in <set>succ[a] if not (skip_direct and s is b)]
        seen = set(stack)
        while stack:
            cur = stack.pop()
            if cur is b:
                return True
            for s in <set>succ[cur]:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        return False

    cdef bint _cycle(self, a, b, bint producer_consumer) except -1:
        """Whether merging `a` and `b` would close a cycle: a path between them through a
        third group. For a producer `a` of consumer `b`, only a -> ... -> b can exist (the
        graph is acyclic), and not at all when `b` is `a`'s only successor."""
        cdef set out
        if producer_consumer:
            out = self.succ[a]
            return not (len(out) == 1 and b in out) and self.reaches(a, b, True)
        return self.reaches(a, b, False) or self.reaches(b, a, False)

    cdef bint _feeds_only(self, a, b, target) except -1:
        """Whether group `a` feeds group `b` only through node `target`."""
        cdef PlanNode n
        for n in self.members[a]:
            for r in n.readers:
                if r in self.parent and r is not target and self.find(r) is b:
                    return False
        return True

    def try_merge(self, a, b, bint producer_consumer):
        cdef PlanNode n
        if a is b or a in self.fixed or b in self.fixed:
            return False
        ha, hb = self.heroes.get(a), self.heroes.get(b)
        if ha and hb and not ("reduce" in ha and "reduce" in hb and len(ha) == len(hb) == 1):
            return False        # two heroes that never share an item (see compatible)
        if producer_consumer and hb and "dot" in hb and not ha and \
                self._feeds_only(a, b, hb["dot"][0]) and \
                any(n.name != "tensor.convert" for n in self.members[a]):
            return False        # only converts join a dot_general from its operands' side
        # groups only grow: a pair refused at these sizes is refused again
        key = (a, b, len(self.members[a]), len(self.members[b]))
        if key in self.refused:
            return False
        heroes = _joined(ha, hb)
        if not compatible(heroes) or self._cycle(a, b, producer_consumer):
            judged = None
        elif "reduce" in heroes:
            judged = self._join_reductions(a, b, heroes)
        else:
            judged = judge(self.g, set(self.members[a] + self.members[b]), heroes)
        if judged is None:
            self.refused.add(key)
            return False
        self.judged[self.union(a, b)] = judged
        return True

    cdef _join_reductions(self, a, b, dict heroes):
        """The reduction judge of the union of `a` and `b`, checking only what the union adds
        to an item that is already valid: the members of the other group, and the reads from
        the base group into them."""
        cdef PlanNode n
        sa, sb = self.reduction_space(a), self.reduction_space(b)
        if sa is not None and sb is not None and sa[0] != sb[0]:
            return None
        base, other = (a, b) if sa is not None else (b, a)
        if sa is not None and sb is not None and len(self.members[a]) < len(self.members[b]):
            base, other = b, a              # check the smaller side
        space, back = self.reduction_space(base)
        if other in self.heroes and "reduce" in self.heroes[other]:
            back = back or self.reduction_space(other)[1]
        members = set(self.members[a] + self.members[b])
        added = self.members[other]
        flows = check_rules(self.g, added, members, space)
        if flows is None or escaping_free(added, members, space):
            return None
        back = back or flows
        added_set = set(added)
        for n in added:
            for r in n.readers:
                if r in members and r not in added_set:
                    for p, ok, flows in reduction_rules(self.g, r, space):
                        if p is n:
                            if not ok:
                                return None
                            back = back or flows
        if back and not trailing(space):
            return None
        return ("row_pipeline" if back else "reduction"), min(heroes["reduce"], key=position), \
            (space, back)

    def reduction_space(self, root):
        """((F, D), a row result flows back) of a group holding reductions, else None."""
        cdef PlanNode n
        if root not in self.heroes or "reduce" not in self.heroes[root]:
            return None
        judged = self.judged.get(root)
        if judged is not None and len(judged) == 3:
            return judged[2]
        n = self.heroes[root]["reduce"][0]          # a single reduce
        return (n.operand_shapes[0], tuple(sorted(n.op.attributes["dimensions"]))), False


cdef dict _joined(x, y):
    """Two role -> nodes dicts in one (either may be None)."""
    if not x or not y:
        return dict(x or y or {})
    out = {role: list(nodes) for role, nodes in x.items()}
    for role, nodes in y.items():
        out[role] = out.get(role, []) + nodes
    return out


def group(PlanGraph g):
    """The `Groups` of graph `g` once no merge is left."""
    cdef Groups groups = Groups(g)
    cdef PlanNode n, r, hero, p
    groups.fixed |= {n for n in g.planned if n.role == "alone"}
    # a cheap elementwise op read only by an elementwise op of its shape joins it without a
    # judge: the pair is a valid loop, and wherever the reader goes later the op is valid too
    # (same shape, so the same space; cheap, so free to recompute). Not into a convert, which
    # a dot_general may want alone as its prologue.
    for n in g.planned:
        if n.role == "ew" and not n.expensive and len(n.readers) == 1:
            r = n.readers[0]
            a, b = groups.find(n), groups.find(r) if r in groups.parent else None
            if b is not None and a is not b and a not in groups.fixed and \
                    b not in groups.fixed and r.role == "ew" and r.name != "tensor.convert" and \
                    r.shape == n.shape and any(x[1] is n and not x[2] for x in r.access):
                groups.judged[groups.union(a, b)] = None
    # epilogues first: a dot_general or scan takes its elementwise consumers before any
    # reduction can (a residual add then rides on the matmul's output instead of making the
    # next row pipeline read both of its operands)
    for hero in g.planned:
        if hero.role in ("dot", "scan"):
            queue, seen = list(hero.readers), set()
            while queue:
                r = queue.pop(0)
                if r in seen or r.role != "ew":
                    continue
                seen.add(r)
                if groups.try_merge(groups.find(hero), groups.find(r), True):
                    queue += r.readers
    # producer -> consumer merges, visiting consumers from the last op back, until no merge is
    # left (a merge refused early may become valid once the producer joined another group)
    edges = [(p, n) for n in reversed(g.planned) for p, _ in n.producers
             if p in groups.parent]
    while edges:
        refused = []
        for p, n in edges:
            a, b = groups.find(p), groups.find(n)
            if a is not b and not groups.try_merge(a, b, True):
                refused.append((p, n))
        edges = refused if len(refused) < len(edges) else []
    # siblings: groups reading one value merge when the union is a valid work item
    for readers in g.value_readers.values():       # (in first-read order)
        if len(readers) < 2:
            continue
        roots = []
        for r in readers:
            root = groups.find(r)
            if root not in roots:
                roots.append(root)
        for i in range(1, len(roots)):
            for j in range(i):
                a, b = groups.find(roots[j]), groups.find(roots[i])
                if groups.try_merge(a, b, False):
                    break
    return groups


def item_order(PlanGraph g, Groups groups):
    """The roots of `groups` in a topological order of the item graph, earliest program
    position first among the ready."""
    roots = []
    for n in g.planned:
        root = groups.find(n)
        if root not in roots:
            roots.append(root)
    indeg = {r: len(groups.pred[r]) for r in roots}
    rank = {r: i for i, r in enumerate(roots)}
    heap = [(groups.span[r], rank[r]) for r in roots if indeg[r] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        r = roots[heapq.heappop(heap)[1]]
        order.append(r)
        for s in sorted(groups.succ[r], key=rank.__getitem__):
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(heap, (groups.span[s], rank[s]))
    assert len(order) == len(roots), "the work item graph has a cycle"
    return order
