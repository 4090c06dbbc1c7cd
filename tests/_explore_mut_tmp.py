"""Stateful property test of IR mutation. Random sequences of create, erase (of ops and blocks,
forced or not), set_operand(s), add_argument, replace_all_uses_with, moves, detach and clone are
applied both to accy and to a pure-Python model (ops with operands, results and regions; blocks
with arguments and op order; the uses of each value follow from the operands), and after every
step accy must agree with the model: operands, uses, op order, parents and counts."""
from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from accy.ir import Builder, Context, IRError, Module, TensorType, Value

TYPES = [TensorType("f32", [2]), TensorType("i32"), TensorType("f16", [1, 3])]
MAX_OPS = 150          # clones stop when the model holds this many ops


@dataclass
class MOp:
    name: str
    operands: list                       # model value ids, None for a null operand
    results: list                        # model value ids
    regions: list                        # per region: list of model block ids
    parent: object = None                # model block id, None when detached


@dataclass
class MBlock:
    args: list
    parent: object = None                # model op id owning the region holding the block
    ops: list = field(default_factory=list)


class MutationMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.ctx = Context(allow_unregistered=True)
        self.ops, self.blocks, self.vtypes = {}, {}, {}      # model id -> MOp / MBlock / type
        self.h_op, self.h_val, self.h_blk = {}, {}, {}      # model id -> accy handle
        self.m_op, self.m_val, self.m_blk = {}, {}, {}      # accy handle -> model id
        self.next_id = 0
        self.dead = []                          # handles of erased ops, blocks and values
        module = Module.create(self.ctx)
        self.root = self.add_op(module, [])
        self.root_body = self.ops[self.root].regions[0][0]

    # -- model bookkeeping --
    def fresh(self):
        self.next_id += 1
        return self.next_id

    def add_value(self, handle):
        vid = self.fresh()
        self.h_val[vid], self.m_val[handle], self.vtypes[vid] = handle, vid, handle.type
        return vid

    def add_op(self, handle, operands, parent=None):
        """Register op `handle` (whose blocks and results exist) with model operands."""
        mid = self.fresh()
        self.h_op[mid], self.m_op[handle] = handle, mid
        results = [self.add_value(v) for v in handle.results]
        regions = []
        for region in handle.regions:
            regions.append([])
            for blk in region.blocks:
                bid = self.fresh()
                self.h_blk[bid], self.m_blk[blk] = blk, bid
                self.blocks[bid] = MBlock([self.add_value(a) for a in blk.arguments], mid)
                regions[-1].append(bid)
        self.ops[mid] = MOp(handle.name, list(operands), results, regions, parent)
        return mid

    def subtree(self, mid):
        out = [mid]
        for region in self.ops[mid].regions:
            for bid in region:
                for child in self.blocks[bid].ops:
                    out.extend(self.subtree(child))
        return out

    def defined_values(self, ops):
        out = []
        for o in ops:
            out.extend(self.ops[o].results)
            out.extend(a for region in self.ops[o].regions for b in region
                       for a in self.blocks[b].args)
        return out

    def contains_block(self, mid, bid):
        """True when op `mid` holds block `bid` at any depth (moving `mid` there is a cycle)."""
        while bid is not None:
            owner = self.blocks[bid].parent
            if owner == mid:
                return True
            bid = self.ops[owner].parent if owner is not None else None
        return False

    def unlink(self, mid):
        parent = self.ops[mid].parent
        if parent is not None:
            self.blocks[parent].ops.remove(mid)
            self.ops[mid].parent = None

    def link(self, mid, bid, index):
        self.blocks[bid].ops.insert(index, mid)
        self.ops[mid].parent = bid

    def expected_uses(self):
        uses = {v: Counter() for v in self.vtypes}
        for mid, op in self.ops.items():
            for i, v in enumerate(op.operands):
                if v is not None:
                    uses[v][(mid, i)] += 1
        return uses

    def hv(self, vid):
        return None if vid is None else self.h_val[vid]

    # -- drawing --
    def draw_value(self, data, allow_none=False):
        choices = sorted(self.vtypes) + ([None] if allow_none else [])
        return data.draw(st.sampled_from(choices)) if choices else None

    def draw_op(self, data, root=True):
        return data.draw(st.sampled_from(sorted(o for o in self.ops if root or o != self.root)))

    # -- rules --
    @rule(data=st.data(), n_operands=st.integers(0, 3), n_results=st.integers(0, 2),
          n_regions=st.integers(0, 2),
          where=st.sampled_from(["detached", "end", "start", "before"]))
    def create(self, data, n_operands, n_results, n_regions, where):
        operands = [self.draw_value(data, allow_none=True) for _ in range(n_operands)]
        result_types = [data.draw(st.sampled_from(TYPES)) for _ in range(n_results)]
        b = Builder(self.ctx)
        bid = data.draw(st.sampled_from(sorted(self.blocks)))
        index = None
        if where == "end":
            b.at_end(self.h_blk[bid])
            index = len(self.blocks[bid].ops)
        elif where == "start":
            b.at_start(self.h_blk[bid])
            index = 0
        elif where == "before" and self.blocks[bid].ops:
            index = data.draw(st.integers(0, len(self.blocks[bid].ops) - 1))
            b.before_op(self.h_op[self.blocks[bid].ops[index]])
        else:
            b.detached()
        op = b.create(f"t.op{n_regions}", [self.hv(v) for v in operands], result_types,
                      {"k": n_operands}, regions=n_regions)
        for region in op.regions:
            for _ in range(data.draw(st.integers(0, 2))):
                region.add_block(data.draw(st.lists(st.sampled_from(TYPES), max_size=2)))
        mid = self.add_op(op, operands)
        if index is not None:
            self.link(mid, bid, index)

    def erase_refused(self, erase, force, ops, defined):
        """Run `erase(force)` on an op or block whose subtree holds `ops` and defines `defined`:
        a non-forced erase must be refused iff a value is used outside (then nothing changes),
        else outside uses become null."""
        inside, defined = set(ops), set(defined)
        outside = [(o, i) for o in self.ops if o not in inside
                   for i, v in enumerate(self.ops[o].operands) if v in defined]
        if outside and not force:
            try:
                erase()
            except IRError:
                return True              # refused: the invariants check that nothing changed
            raise AssertionError(f"erase with outside uses {outside} was not refused")
        erase(force=force)
        for o, i in outside:
            self.ops[o].operands[i] = None
        return False

    def forget(self, ops, defined, blocks):
        for o in ops:
            blocks = blocks + [b for region in self.ops[o].regions for b in region]
            self.dead.append(self.h_op[o])
            del self.m_op[self.h_op.pop(o)], self.ops[o]
        for bid in blocks:
            self.dead.append(self.h_blk[bid])
            del self.m_blk[self.h_blk.pop(bid)], self.blocks[bid]
        for v in defined:
            self.dead.append(self.h_val[v])
            del self.m_val[self.h_val.pop(v)], self.vtypes[v]

    @precondition(lambda self: len(self.ops) > 1)
    @rule(data=st.data(), force=st.booleans())
    def erase(self, data, force):
        mid = self.draw_op(data, root=False)
        ops = self.subtree(mid)
        defined = self.defined_values(ops)
        if not self.erase_refused(self.h_op[mid].erase, force, ops, defined):
            self.unlink(mid)
            self.forget(ops, defined, [])

    @precondition(lambda self: len(self.blocks) > 1)
    @rule(data=st.data(), force=st.booleans())
    def erase_block(self, data, force):
        bid = data.draw(st.sampled_from(sorted(b for b in self.blocks if b != self.root_body)))
        blk = self.blocks[bid]
        ops = [o for top in blk.ops for o in self.subtree(top)]
        defined = blk.args + self.defined_values(ops)
        if not self.erase_refused(self.h_blk[bid].erase, force, ops, defined):
            for region in self.ops[blk.parent].regions if blk.parent is not None else ():
                if bid in region:
                    region.remove(bid)
            self.forget(ops, defined, [bid])

    @precondition(lambda self: any(op.operands for op in self.ops.values()))
    @rule(data=st.data())
    def set_operand(self, data):
        mid = data.draw(st.sampled_from(sorted(o for o in self.ops if self.ops[o].operands)))
        index = data.draw(st.integers(0, len(self.ops[mid].operands) - 1))
        v = self.draw_value(data, allow_none=True)
        self.h_op[mid].set_operand(index, self.hv(v))
        self.ops[mid].operands[index] = v

    @rule(data=st.data(), n=st.integers(0, 3))
    def set_operands(self, data, n):
        mid = self.draw_op(data)
        values = [self.draw_value(data, allow_none=True) for _ in range(n)]
        self.h_op[mid].set_operands([self.hv(v) for v in values])
        self.ops[mid].operands = values

    @rule(data=st.data(), t=st.sampled_from(TYPES))
    def add_argument(self, data, t):
        bid = data.draw(st.sampled_from(sorted(self.blocks)))
        self.blocks[bid].args.append(self.add_value(self.h_blk[bid].add_argument(t)))

    @precondition(lambda self: self.vtypes)
    @rule(data=st.data(), whole_op=st.booleans())
    def replace_all_uses_with(self, data, whole_op):
        with_results = sorted(o for o in self.ops if self.ops[o].results)
        if whole_op and with_results:              # Operation.replace_all_uses_with(values)
            mid = data.draw(st.sampled_from(with_results))
            old = self.ops[mid].results
            new = [self.draw_value(data) for _ in old]
            self.h_op[mid].replace_all_uses_with([self.h_val[v] for v in new])
        else:                                      # Value.replace_all_uses_with(value)
            old, new = [self.draw_value(data)], [self.draw_value(data)]
            self.h_val[old[0]].replace_all_uses_with(self.h_val[new[0]])
        for a, b in zip(old, new):
            for op in self.ops.values():
                op.operands = [b if v == a else v for v in op.operands]

    @precondition(lambda self: len(self.ops) > 1)
    @rule(data=st.data(), after=st.booleans())
    def move(self, data, after):
        mid, anchor = self.draw_op(data, root=False), self.draw_op(data)
        handle, target = self.h_op[mid], self.h_op[anchor]
        move = handle.move_after if after else handle.move_before
        if anchor == mid:
            assert move(target) is handle
            return
        bid = self.ops[anchor].parent
        if bid is None or self.contains_block(mid, bid):    # detached anchor or a cycle
            try:
                move(target)
            except IRError:
                return
            raise AssertionError("move next to a detached op or into the op itself not refused")
        assert move(target) is handle
        self.unlink(mid)
        self.link(mid, bid, self.blocks[bid].ops.index(anchor) + after)

    @precondition(lambda self: len(self.ops) > 1)
    @rule(data=st.data(), at_end=st.booleans())
    def move_to_block(self, data, at_end):
        mid = self.draw_op(data, root=False)
        bid = data.draw(st.sampled_from(sorted(self.blocks)))
        handle = self.h_op[mid]
        move = handle.move_to_end if at_end else handle.move_to_start
        if self.contains_block(mid, bid):
            try:
                move(self.h_blk[bid])
            except IRError:
                return
            raise AssertionError("move into the op's own region not refused")
        assert move(self.h_blk[bid]) is handle
        self.unlink(mid)
        self.link(mid, bid, len(self.blocks[bid].ops) if at_end else 0)

    @precondition(lambda self: len(self.ops) > 1)
    @rule(data=st.data())
    def detach(self, data):
        mid = self.draw_op(data, root=False)
        self.h_op[mid].detach()
        self.unlink(mid)

    @precondition(lambda self: len(self.ops) < MAX_OPS)
    @rule(data=st.data())
    def clone(self, data):
        mid = self.draw_op(data)
        sub = self.subtree(mid)
        if len(self.ops) + len(sub) > MAX_OPS:
            return
        new = self.h_op[mid].clone()
        vmap = {}

        def register(src, handle, parent):        # walk the model and the clone side by side
            nid = self.add_op(handle, self.ops[src].operands, parent)
            vmap.update(zip(self.defined_values([src]), self.defined_values([nid])))
            for src_region, region in zip(self.ops[src].regions, self.ops[nid].regions):
                for src_bid, bid in zip(src_region, region):
                    children = self.h_blk[bid].operations
                    assert len(children) == len(self.blocks[src_bid].ops)
                    for child_src, child in zip(self.blocks[src_bid].ops, children):
                        self.blocks[bid].ops.append(register(child_src, child, bid))
            return nid

        root = register(mid, new, None)
        for o in self.subtree(root):          # operands defined inside the clone map to the copy
            self.ops[o].operands = [vmap.get(v, v) for v in self.ops[o].operands]

    # -- checks --
    @invariant()
    def counts_match(self):
        assert self.ctx.num_operations == len(self.ops)
        assert self.ctx.num_values == len(self.vtypes)
        assert self.ctx.num_blocks == len(self.blocks)

    @invariant()
    def structure_matches(self):
        name = lambda mapping, h: None if h is None else mapping[h]  # noqa: E731
        for mid, op in self.ops.items():
            h = self.h_op[mid]
            assert h.name == op.name
            assert [name(self.m_val, v) for v in h.operands] == op.operands, f"operands of {mid}"
            assert [self.m_val[v] for v in h.results] == op.results
            assert [[self.m_blk[b] for b in r.blocks] for r in h.regions] == op.regions
            assert name(self.m_blk, h.parent) == op.parent
        for bid, blk in self.blocks.items():
            h = self.h_blk[bid]
            assert [self.m_op[o] for o in h.operations] == blk.ops, f"op order of block {bid}"
            assert [self.m_val[a] for a in h.arguments] == blk.args
            assert name(self.m_op, h.parent_op) == blk.parent

    @invariant()
    def uses_match(self):
        expected = self.expected_uses()
        for vid, handle in self.h_val.items():
            got = Counter((self.m_op[u.operation], u.index) for u in handle.uses)
            assert got == expected[vid], f"uses of value {vid}"
            assert handle.num_uses == sum(got.values()) and handle.type == self.vtypes[vid]

    @invariant()
    def erased_handles_raise(self):
        for h in self.dead[-8:]:
            with pytest.raises(IRError):
                getattr(h, "type" if isinstance(h, Value) else "parent")


MutationMachine.TestCase.settings = settings(max_examples=4000, stateful_step_count=60,
                                             deadline=None)
TestMutation = MutationMachine.TestCase
