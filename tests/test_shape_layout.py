"""ShapeLayoutAnalysis: index maps checked against the reference interpreter (each input element
holds its own flat index, so the output says exactly which input element it read), composition
of chains of shape ops, layouts and vector widths, the analysis over traced models, its text,
and the `shape` pass."""
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings, strategies as st

import accy
import accy.ops as ops
import accy.reference
from accy._core.registry import ELEMENTWISE
from accy.ir import TensorType
from accy.passes import AnalysisCache, AnalysisDescriptor, PassManager
from accy.passes.shape_layout import (
    RULES, SHAPE_LAYOUT, AffineMap, ChainMap, GatherMap, Layout, OffsetMap, ReshapeMap, buffer_layout,
    compute_shape_layout, identity_map, reshape_map, row_major_strides)
from tensor_helpers import module_of

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
PAD = -1            # the pad value: no input element holds it (they hold their indices, >= 0)
BASE = 10000        # operand k of a concatenate holds k * BASE + its flat index

dims = st.integers(1, 4)
shapes = st.lists(dims, min_size=1, max_size=3).map(tuple)


# ---- helpers ---------------------------------------------------------------------------------

def all_indices(shape):
    """Every index of `shape`, row-major, as an (n, rank) int array."""
    n = math.prod(shape)
    if not shape:
        return np.zeros((1, 0), np.int64)
    return np.stack(np.unravel_index(np.arange(n), shape), -1).astype(np.int64)


def numbered(shape, base=0):
    return (np.arange(math.prod(shape)) + base).astype(np.int32).reshape(shape)


def func_of(module):
    return module.body.operations[0]


def one_op(in_shapes, build):
    """A one-op module on i32 inputs numbered from k * BASE; returns (analysis, op, output)."""
    m = module_of([TensorType("i32", s) for s in in_shapes], lambda e, *xs: [build(e, *xs)])
    (out,) = accy.reference.run(m, *[numbered(s, k * BASE) for k, s in enumerate(in_shapes)])
    analysis = compute_shape_layout(func_of(m))
    op = [o for o in func_of(m).regions[0].blocks[0].operations
          if o.name not in ("tensor.constant", "builtin.return")][0]
    return analysis, op, out


def check_map(index_map, in_shape, out, base=0, **apply_kw):
    """For every output index: valid exactly where the reference put an element of this input,
    and then the input index is the one holding that element."""
    assert index_map.out_shape == out.shape and index_map.in_shape == tuple(in_shape)
    outs = all_indices(out.shape)
    got, valid = index_map.apply(outs, **apply_kw)
    values = out.reshape(-1).astype(np.int64) - base
    expected_valid = (values >= 0) & (values < math.prod(in_shape))
    np.testing.assert_array_equal(valid, expected_valid)
    if expected_valid.any():
        want = all_indices(in_shape)[values[expected_valid]]
        np.testing.assert_array_equal(got[expected_valid], want)


def check_op(in_shapes, build, operands=None):
    analysis, op, out = one_op(in_shapes, build)
    for k in operands if operands is not None else range(len(in_shapes)):
        check_map(analysis.index_map(op, k), in_shapes[k], out, base=k * BASE)
    return analysis, op


# ---- one shape op at a time ------------------------------------------------------------------

@st.composite
def broadcasts(draw):
    x = tuple(draw(st.lists(dims, max_size=3)))
    out_rank = draw(st.integers(len(x), len(x) + 2))
    mapped = sorted(draw(st.permutations(range(out_rank)))[:len(x)])
    y = [draw(st.integers(1, 3)) for _ in range(out_rank)]
    for n, d in zip(x, mapped):
        y[d] = n if n != 1 else draw(st.integers(1, 3))        # size-1 dims expand
    return x, tuple(mapped), tuple(y)


@SETTINGS
@given(broadcasts())
def test_broadcast_in_dim(case):
    x, mapped, y = case
    check_op([x], lambda e, v: e.op("tensor.broadcast_in_dim", v, broadcast_dimensions=mapped,
                                    result_type=TensorType("i32", y)))


@SETTINGS
@given(shapes.flatmap(lambda s: st.tuples(st.just(s), st.permutations(range(len(s))))))
def test_transpose(case):
    x, perm = case
    check_op([x], lambda e, v: e.op("tensor.transpose", v, permutation=tuple(perm)))


@st.composite
def slices(draw):
    x = draw(shapes)
    starts = [draw(st.integers(0, n)) for n in x]
    limits = [draw(st.integers(s, n)) for s, n in zip(starts, x)]
    strides = [draw(st.integers(1, 3)) for _ in x]
    return x, tuple(starts), tuple(limits), tuple(strides)


@SETTINGS
@given(slices())
def test_slice_with_strides(case):
    x, starts, limits, strides = case
    check_op([x], lambda e, v: e.op("tensor.slice", v, start_indices=starts,
                                    limit_indices=limits, strides=strides))


@SETTINGS
@given(shapes.flatmap(lambda s: st.tuples(st.just(s), st.sets(st.integers(0, len(s) - 1)))))
def test_reverse(case):
    x, reversed_dims = case
    check_op([x], lambda e, v: e.op("tensor.reverse", v, dimensions=tuple(sorted(reversed_dims))))


@st.composite
def unit_reshapes(draw):
    """Insert and remove unit dims only."""
    x = draw(st.lists(st.integers(1, 4), max_size=4).map(tuple))
    kept = [n for n in x if n != 1]
    y = []
    for n in kept + [None]:
        y += [1] * draw(st.integers(0, 1))
        if n is not None:
            y.append(n)
    return x, tuple(y)


@st.composite
def general_reshapes(draw):
    x = draw(shapes)
    left, y = math.prod(x), []
    while left > 1 and len(y) < 3:
        d = draw(st.sampled_from([k for k in range(2, left + 1) if left % k == 0]))
        y.append(d)
        left //= d
    if left > 1:
        y.append(left)
    return x, tuple(draw(st.permutations(y)))


def _reshape(x, y):
    return check_op([x], lambda e, v: e.op("tensor.reshape", v, result_type=TensorType("i32", y)))


@SETTINGS
@given(unit_reshapes())
def test_reshape_of_unit_dims_is_affine(case):
    analysis, op = _reshape(*case)
    assert isinstance(analysis.index_map(op, 0), AffineMap)


@SETTINGS
@given(general_reshapes())
def test_general_reshape(case):
    _reshape(*case)


def test_reshape_kinds():
    assert isinstance(reshape_map((6,), (2, 3)), AffineMap)            # splits: affine
    assert reshape_map((6,), (2, 3)).matrix == ((3, 1),)
    assert isinstance(reshape_map((2, 3), (6,)), ReshapeMap)           # merges: not affine
    assert isinstance(reshape_map((2, 3), (3, 2)), ReshapeMap)
    assert reshape_map((4, 1, 8), (4, 8)).matrix == ((1, 0), (0, 0), (0, 1))
    assert reshape_map((3, 4), (3, 4)).is_identity


@st.composite
def pads(draw):
    x = draw(shapes)
    low = tuple(draw(st.integers(-2, 2)) for _ in x)
    high = tuple(draw(st.integers(-2, 2)) for _ in x)
    interior = tuple(draw(st.integers(0, 2)) for _ in x)
    assume(all(lo + hi + n + (n - 1) * it >= 0 for lo, hi, n, it in zip(low, high, x, interior)))
    return x, low, high, interior


def _pad(e, v, low, high, interior):
    return e.op("tensor.pad", v, e.constant(PAD, "i32"), edge_padding_low=low,
                edge_padding_high=high, interior_padding=interior)


@SETTINGS
@given(pads())
def test_pad_with_negative_edges_and_interior(case):
    x, low, high, interior = case
    analysis, op = check_op([x], lambda e, v: _pad(e, v, low, high, interior))
    value = analysis.index_map(op, 1)           # the padding value: read everywhere
    assert value.in_shape == () and not value.guards


def test_a_crop_only_pad_is_a_plain_offset():
    analysis, op = check_op([(5, 4)], lambda e, v: _pad(e, v, (-1, 0), (-2, 0), (0, 0)))
    m = analysis.index_map(op, 0)
    assert m.guards == () and m.offset == (1, 0)


@st.composite
def concatenates(draw):
    rank = draw(st.integers(1, 3))
    dim = draw(st.integers(0, rank - 1))
    other = [draw(dims) for _ in range(rank)]
    shapes_ = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(other)
        s[dim] = draw(dims)
        shapes_.append(tuple(s))
    return shapes_, dim


@SETTINGS
@given(concatenates())
def test_concatenate_each_operand(case):
    in_shapes, dim = case
    check_op(in_shapes, lambda e, *xs: e.op("tensor.concatenate", *xs, dimension=dim))


@SETTINGS
@given(st.data())
def test_gather_reads_through_the_indices(data):
    x = data.draw(shapes)
    axis = data.draw(st.integers(0, len(x) - 1))
    mode = data.draw(st.sampled_from(["take", "along_axis"]))
    if mode == "take":
        idx_shape = tuple(data.draw(st.lists(dims, max_size=2)))
    else:
        idx_shape = tuple(data.draw(dims) if i == axis else n for i, n in enumerate(x))
    seed = data.draw(st.integers(0, 2**32 - 1))
    idx = np.random.default_rng(seed).integers(-2, x[axis] + 2, idx_shape).astype(np.int32)
    m = module_of([TensorType("i32", x), TensorType("i32", idx_shape)],
                  lambda e, v, i: [e.op("tensor.gather", v, i, axis=axis, mode=mode)])
    (out,) = accy.reference.run(m, numbered(x), idx)
    analysis = compute_shape_layout(func_of(m))
    op = func_of(m).regions[0].blocks[0].operations[0]
    data_map, index_map = analysis.index_map(op, 0), analysis.index_map(op, 1)
    assert isinstance(data_map, GatherMap) and isinstance(index_map, AffineMap)
    check_map(data_map, x, out, indices=idx)
    with pytest.raises(ValueError, match="indices"):
        data_map.apply(all_indices(out.shape))
    # the indices operand: the output reads x at the clamped index found there
    where, valid = index_map.apply(all_indices(out.shape))
    assert valid.all()
    read = np.clip(idx[tuple(where.T)] if idx.ndim else np.broadcast_to(idx, len(where)),
                   0, x[axis] - 1)
    np.testing.assert_array_equal(read, all_indices(x)[out.reshape(-1)][:, axis])


@SETTINGS
@given(st.data())
def test_dynamic_slices_read_through_the_clamped_starts(data):
    """dynamic_slice's operand and dynamic_update_slice's operand and update (numbered from
    BASE), at starts anywhere (clamped), against the reference."""
    x = data.draw(shapes)
    small = tuple(data.draw(st.integers(0, n)) for n in x)
    starts = [np.int32(data.draw(st.integers(-2, n + 2))) for n in x]
    s = [TensorType("i32", ())] * len(x)
    m = module_of([TensorType("i32", x)] + s, lambda e, v, *k: [
        e.op("tensor.dynamic_slice", v, *k, slice_sizes=small)])
    (out,) = accy.reference.run(m, numbered(x), *starts)
    op = func_of(m).regions[0].blocks[0].operations[0]
    data_map = compute_shape_layout(func_of(m)).index_map(op, 0)
    assert isinstance(data_map, OffsetMap)
    check_map(data_map, x, out, indices=starts)
    m = module_of([TensorType("i32", x), TensorType("i32", small)] + s, lambda e, v, u, *k: [
        e.op("tensor.dynamic_update_slice", v, u, *k)])
    (out,) = accy.reference.run(m, numbered(x), numbered(small, BASE), *starts)
    op = func_of(m).regions[0].blocks[0].operations[0]
    analysis = compute_shape_layout(func_of(m))
    assert analysis.index_map(op, 0).is_identity
    check_map(analysis.index_map(op, 1), small, out, base=BASE, indices=starts)
    with pytest.raises(ValueError, match="start indices"):
        analysis.index_map(op, 1).apply(all_indices(out.shape))


def test_elementwise_operands_and_scalar_operands():
    shape = (3, 4)

    def build(e, x, lo, hi):
        pred = e.compare(lo, hi, "LT")                                   # rank 0
        return e.op("tensor.select", pred, e.op("tensor.clamp", lo, x, hi), x)
    m = module_of([TensorType("f32", shape), TensorType("f32", ()), TensorType("f32", ())], build)
    a = compute_shape_layout(func_of(m))
    cmp_, clamp, select = func_of(m).regions[0].blocks[0].operations[:3]
    assert a.index_map(cmp_, 0).is_identity                              # () -> ()
    assert a.index_map(clamp, 1).is_identity and a.index_map(select, 2).is_identity
    for op, k in ((clamp, 0), (clamp, 2), (select, 0)):
        m_ = a.index_map(op, k)
        assert m_.in_shape == () and m_.is_broadcast and not m_.is_identity
        got, valid = m_.apply(all_indices(shape))
        assert got.shape == (12, 0) and valid.all()


def test_non_fusible_operands_have_no_map():
    def build(e, x, w):
        d = e.op("tensor.dot_general", x, w, lhs_contracting_dimensions=(1,),
                 rhs_contracting_dimensions=(0,), lhs_batching_dimensions=(),
                 rhs_batching_dimensions=())
        return e.reduce_kind(d, (1,), "sum")
    m = module_of([TensorType("f32", (2, 3)), TensorType("f32", (3, 4))], build)
    a = compute_shape_layout(func_of(m))
    for op in func_of(m).walk():
        if op.name in ("tensor.dot_general", "tensor.reduce", "builtin.return", "tensor.yield"):
            assert all(a.index_map(op, i) is None for i in range(len(op.operands)))


# ---- predicates ------------------------------------------------------------------------------

def test_predicates():
    assert identity_map((3, 4)).is_identity
    t = AffineMap.make((4, 3), (3, 4), [((0, 1), 0, 1), ((1, 0), 0, 1)])
    assert t.is_transpose and not t.is_identity and not t.is_broadcast
    b = AffineMap.make((4,), (3, 4), [((0, 1), 0, 1)])
    assert b.is_broadcast and not b.is_transpose and not b.is_identity
    unit = AffineMap.make((1, 4), (4, 1), [((0, 0), 0, 1), ((1, 0), 0, 1)])
    assert not unit.is_transpose and not unit.is_broadcast      # moves a unit dim only
    s = AffineMap.make((8,), (4,), [((2,), 1, 1)])
    assert not (s.is_identity or s.is_broadcast or s.is_transpose)
    assert not ReshapeMap((2, 3), (6,)).is_identity


# ---- composition -----------------------------------------------------------------------------

@st.composite
def shape_ops(draw, shape):
    """(build(e, v), out_shape) of a random shape op on a value of `shape`."""
    rank = len(shape)
    kind = draw(st.sampled_from(["broadcast", "transpose", "slice", "reverse", "reshape",
                                 "reshape_general", "reshape_general", "pad"]))
    if kind == "broadcast":
        out_rank = rank + (draw(st.integers(0, 1)) if rank < 4 else 0)
        mapped = tuple(sorted(draw(st.permutations(range(out_rank)))[:rank]))
        y = [draw(st.integers(1, 3)) for _ in range(out_rank)]
        for n, d in zip(shape, mapped):
            y[d] = n if n != 1 else draw(st.integers(1, 3))
        return (lambda e, v: e.op("tensor.broadcast_in_dim", v, broadcast_dimensions=mapped,
                                  result_type=TensorType("i32", tuple(y)))), tuple(y)
    if kind == "transpose":
        perm = tuple(draw(st.permutations(range(rank))))
        return (lambda e, v: e.op("tensor.transpose", v, permutation=perm)), \
            tuple(shape[p] for p in perm)
    if kind == "slice":
        starts = tuple(draw(st.integers(0, n - 1)) for n in shape)
        limits = tuple(draw(st.integers(s + 1, n)) for s, n in zip(starts, shape))
        strides = tuple(draw(st.integers(1, 2)) for _ in shape)
        return (lambda e, v: e.op("tensor.slice", v, start_indices=starts, limit_indices=limits,
                                  strides=strides)), \
            tuple(-(-(lim - s) // st_) for s, lim, st_ in zip(starts, limits, strides))
    if kind == "reverse":
        rdims = tuple(sorted(draw(st.sets(st.integers(0, rank - 1)))))
        return (lambda e, v: e.op("tensor.reverse", v, dimensions=rdims)), shape
    if kind in ("reshape", "reshape_general"):
        if kind == "reshape":
            y = list(shape)
            y.insert(draw(st.integers(0, rank)), 1)
        else:
            # the prime factors in any order, some neighbours merged: mostly not affine
            y = list(draw(st.permutations([p for n in shape for p in _factors(n)] or [1])))
            for _ in range(draw(st.integers(0, len(y) - 1))):
                k = draw(st.integers(0, len(y) - 2))
                y[k:k + 2] = [y[k] * y[k + 1]]
        y = tuple(y)
        return (lambda e, v: e.op("tensor.reshape", v, result_type=TensorType("i32", y))), y
    low = tuple(draw(st.integers(-1, 2)) for _ in shape)
    high = tuple(draw(st.integers(-1, 2)) for _ in shape)
    interior = tuple(draw(st.integers(0, 1)) for _ in shape)
    y = tuple(lo + hi + n + (n - 1) * it for lo, hi, n, it in zip(low, high, shape, interior))
    assume(all(n >= 1 for n in y))
    return (lambda e, v: _pad(e, v, low, high, interior)), y


def _factors(n):
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def check_chain(x, steps):
    """Run the chain of shape ops `steps` (build functions) on x; the composition of their
    index maps must say where each output element came from. Returns the composed map."""
    def chain(e, v):
        for build in steps:
            v = build(e, v)
        return v
    m = module_of([TensorType("i32", x)], lambda e, v: [chain(e, v)])
    (out,) = accy.reference.run(m, numbered(x))
    a = compute_shape_layout(func_of(m))
    ops_ = [o for o in func_of(m).regions[0].blocks[0].operations
            if o.name not in ("tensor.constant", "builtin.return")]
    composed = a.index_map(ops_[-1], 0)
    for op in reversed(ops_[:-1]):
        composed = composed.compose(a.index_map(op, 0))
    check_map(composed, x, out)
    if {a.index_map(op, 0).kind for op in ops_} == {"affine"}:
        assert isinstance(composed, AffineMap)          # affine o affine stays affine
    return composed


@settings(SETTINGS, max_examples=150)
@given(st.data())
def test_composed_chains_agree_with_the_reference(data):
    x = data.draw(shapes)
    steps, shape = [], x
    for _ in range(data.draw(st.integers(2, 3))):
        build, shape = data.draw(shape_ops(shape))
        steps.append(build)
    event(check_chain(x, steps).kind)


def test_a_chain_through_pad_and_a_general_reshape():
    composed = check_chain((2, 3), [
        lambda e, v: _pad(e, v, (1, -1), (0, 2), (1, 1)),                    # -> 4 x 6
        lambda e, v: e.op("tensor.reshape", v, result_type=TensorType("i32", (3, 8))),
        lambda e, v: e.op("tensor.reverse", v, dimensions=(1,)),
        lambda e, v: e.op("tensor.transpose", v, permutation=(1, 0))])
    assert isinstance(composed, ChainMap) and [m.kind for m in composed.maps] == \
        ["affine", "reshape", "affine"]                 # reverse and transpose merged


def test_compose_shapes_and_kinds():
    t = AffineMap.make((4, 3), (3, 4), [((0, 1), 0, 1), ((1, 0), 0, 1)])
    assert t.compose(AffineMap.make((3, 4), (4, 3), [((0, 1), 0, 1), ((1, 0), 0, 1)])) \
        .is_identity                                     # transpose twice
    r = ReshapeMap((2, 3), (6,))
    assert isinstance(AffineMap.make((6,), (6,), [((-1,), 5, 1)]).compose(r), ChainMap)
    assert isinstance(ReshapeMap((6,), (3, 2)).compose(r), ReshapeMap)   # one linearization
    assert identity_map((6,)).compose(r) == r
    with pytest.raises(ValueError, match="compose"):
        t.compose(identity_map((3, 4)))
    # a pad with interior 1, then a stride-2 slice over the data: a plain identity again
    pad = AffineMap.make((3,), (5,), [((1,), 0, 2)], guarded=(0,))
    sl = AffineMap.make((5,), (3,), [((2,), 0, 1)])
    assert sl.compose(pad) == identity_map((3,))


def test_a_chain_through_a_gather_skips_invalid_elements():
    # pad(gather(x)): where the pad map is invalid its index is out of the gather's range; the
    # chain must not look it up
    x, idx = (5, 3), np.array([4, 0, 9, -1], np.int32)

    def build(e, v, i):
        g = e.op("tensor.gather", v, i, axis=0)
        return [_pad(e, g, (-1, 2), (3, 0), (1, 0))]
    m = module_of([TensorType("i32", x), TensorType("i32", idx.shape)], build)
    (out,) = accy.reference.run(m, numbered(x), idx)
    a = compute_shape_layout(func_of(m))
    gather, pad = [o for o in func_of(m).regions[0].blocks[0].operations
                   if o.name in ("tensor.gather", "tensor.pad")]
    chain = a.index_map(pad, 0).compose(a.index_map(gather, 0))
    assert isinstance(chain, ChainMap)
    check_map(chain, x, out, indices=idx)


# ---- layouts ---------------------------------------------------------------------------------

def test_strides_and_contiguity():
    assert row_major_strides((2, 3, 4)) == (12, 4, 1)
    assert row_major_strides(()) == ()
    assert row_major_strides((5, 1, 2)) == (2, 2, 1)
    lay = buffer_layout((2, 3, 4), "f32")
    assert lay.strides == (12, 4, 1) and lay.contiguous and lay.alignment == 256
    assert lay.nbytes == 96 and lay.itemsize == 4


@pytest.mark.parametrize("dtype,inner,width", [
    ("f32", 1, 1), ("f32", 3, 1), ("f32", 4, 4), ("f32", 8, 4), ("f32", 1024, 4),
    ("f16", 1, 1), ("f16", 3, 1), ("f16", 4, 4), ("f16", 8, 8), ("f16", 1024, 8),
    ("i8", 1, 1), ("i8", 3, 1), ("i8", 4, 4), ("i8", 8, 8), ("i8", 1024, 16),
    ("f64", 1024, 2), ("i1", 6, 2),
])
def test_vector_width(dtype, inner, width):
    assert buffer_layout((5, inner), dtype).vector_width() == width


def test_vector_width_limits():
    assert buffer_layout((), "f32").vector_width() == 1
    assert buffer_layout((4, 1024), "f32").vector_width(max_bytes=8) == 2
    assert Layout((1024,), "f32", (1,), True, 4).vector_width() == 1      # only 4-byte aligned
    assert Layout((4, 8), "f32", (16, 1), False, 256).vector_width() == 1  # strided rows


# ---- the analysis over traced models ---------------------------------------------------------

def _model(x):
    return ops.softmax(x, -1), ops.layer_norm(x), x[::-1, 1:3].T


def _trace():
    return accy.jit(_model).lower(np.zeros((4, 8), np.float32))


def _values(func):
    for op in func.walk():
        if op != func:
            yield from op.results
        for region in op.regions:
            for block in region.blocks:
                yield from block.arguments


def test_a_traced_model_is_covered():
    m = _trace()
    func = func_of(m)
    a = compute_shape_layout(func)
    values = list(_values(func))
    assert set(a.layouts) == set(values)
    for v in values:
        assert a.layouts[v].shape == v.type.shape and a.layouts[v].dtype == v.type.dtype
    mapped = 0
    for op in func.walk():
        fusible = op.name in RULES or op.has_trait(ELEMENTWISE)
        for i in range(len(op.operands)):
            assert (a.index_map(op, i) is not None) == fusible, (op.name, i)
            mapped += fusible
    assert mapped == len(a.index_maps) > 0


def test_text_is_deterministic_and_numbered_as_printed():
    m1, m2 = _trace(), _trace()
    t1 = compute_shape_layout(func_of(m1)).text()
    assert t1 == compute_shape_layout(func_of(m2)).text()
    printed = m1.print()
    heads = re.findall(r"^\s*(%\d+(?:, %\d+)* = [\w.]+(?: %\d+(?:, %\d+)*)?)$", t1, re.M)
    assert len(heads) > 20
    for head in heads:                    # "%7 = tensor.broadcast_in_dim %6" as printed
        assert re.search(re.escape(head) + r"\b", printed), head
    assert "[broadcast]" in t1 and "[transpose]" in t1 and "-d0 + 3" in t1


def test_the_shape_pass_computes_and_preserves_analyses():
    m = _trace()
    func = func_of(m)
    other = AnalysisDescriptor("test.shape_layout.other")
    cache = AnalysisCache(m.context)
    before = cache.get_analysis(func, other, lambda op, scope: object())
    fingerprint = m.fingerprint()
    PassManager("shape").run(m, cache=cache)
    assert m.fingerprint() == fingerprint
    assert cache.get_cached_analysis(func, other) is before          # survived the pass
    analysis = cache.get_cached_analysis(func, SHAPE_LAYOUT)
    assert analysis is not None and analysis.text() == compute_shape_layout(func).text()
    PassManager("shape,shape").run(m, cache=cache)
    assert cache.get_cached_analysis(func, SHAPE_LAYOUT) is analysis  # computed once
    m.body.operations[0].set_attribute("note", 1)                     # a change: recomputed
    PassManager("func(shape)").run(m, cache=cache)
    assert cache.get_cached_analysis(func, SHAPE_LAYOUT) is not analysis
