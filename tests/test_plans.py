"""The schedule plan (fusion), kernel outlines and buffer plan: golden dumps of the reference
graphs, the kinds they get, each fusion rule on a small program, the passes and their cache,
and the buffer plan's packing, in-place reuse and donation."""
import os
import pathlib

import ml_dtypes
import numpy as np
import pytest

import accy.ops as ops
from accy import reference
from accy.compiler import compilation
from accy._core.analysis import AnalysisCache
from accy.compiler import PREPARE
from accy.examples.graphs import GRAPHS
from accy.frontend.trace import trace
from accy.ir import DictAttr, IntAttr, parse, print_op
from accy.passes import PassManager
from accy.passes.bufferize import ARENA_KINDS, BUFFER_PLAN, BufferPlanError
from accy.passes.outline import OUTLINE_PLAN
from accy.passes.plan_graph import CHEAP, ScheduleError
from accy.passes.plans import prepare
from accy.passes.schedule import KINDS, SCHEDULE_PLAN
from accy.passes.shape_layout import SHAPE_LAYOUT
from accy.passes.target import ARCH_FACTS

from ir_helpers import build_func
from plan_helpers import run_items

GOLDEN = pathlib.Path(__file__).parent / "golden" / "plans"
UPDATE = os.environ.get("ACCY_UPDATE_GOLDEN") == "1"

EXPECTED_KINDS = {
    "mlp": ["dot_general"], "softmax": ["row_pipeline"], "layer_norm": ["row_pipeline"],
    "rms_norm": ["row_pipeline"], "attention": ["flash_attention"],
    "cumsum": ["scan"], "while_matmul_tanh": ["elementwise", "iterate"],
    "transformer": (["row_pipeline", "dot_general", "dot_general", "dot_general",
                     "flash_attention", "dot_general", "row_pipeline", "dot_general",
                     "dot_general"] * 2),
}


def planned(module, pipeline=PREPARE):
    PassManager(pipeline).run(module)
    (plans,) = prepare(module)
    return plans


def lowered(fn, *signatures):
    return trace(fn, list(signatures))[0]


def kinds(plans):
    return [item.kind for item in plans.schedule.items]


def inputs_for(module, rng):
    func = next(iter(module.body))
    out = []
    for a in func.regions[0].blocks[0].arguments:
        t = a.type
        if t.dtype.startswith("i"):
            out.append(np.asarray(3, np.dtype("int32")))
        else:
            out.append(rng.standard_normal(t.shape).astype(np.float32))
    return out


# ---- reference graphs ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_reference_graph_golden(name):
    """The schedule, outline and buffer plans of each reference graph, byte for byte. A golden
    file only proves the output did not change: read a diff before regenerating it
    (ACCY_UPDATE_GOLDEN=1)."""
    plans = planned(GRAPHS[name]())
    text = plans.text(layout=False)
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    assert kinds(plans) == EXPECTED_KINDS[name]


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_reference_graph_items_match_whole_graph(name, rng):
    """Small versions: running the work items one by one through their buffers gives the
    whole-graph reference's numbers bit for bit, and the kinds do not depend on the size."""
    module = GRAPHS[name](small=True)
    plans = planned(module)
    assert kinds(plans) == EXPECTED_KINDS[name]
    arrays = inputs_for(module, rng)
    whole = reference.run(module, *arrays)
    for got, want in zip(run_items(plans, arrays), whole):
        np.testing.assert_array_equal(got, want)


def test_items_reading_a_dense_constant_match_the_whole_function(rng):
    """A dense constant is in no item: the items read it from its buffer, like an argument."""
    c = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    module = lowered(lambda x: (ops.sum(x * c, -1), x + 1), ((3, 4), "f32"))
    plans = planned(module)
    assert [op.name for op in plans.schedule.constants] == ["tensor.constant"]
    arrays = inputs_for(module, rng)
    for got, want in zip(run_items(plans, arrays), reference.run(module, *arrays)):
        np.testing.assert_array_equal(got, want)


def test_one_kernel_targets_and_ideal_bytes():
    for name in ("softmax", "layer_norm", "rms_norm", "cumsum"):
        plans = planned(GRAPHS[name]())
        assert plans.schedule.bytes <= 1.10 * plans.schedule.ideal_bytes, name
    for name in ("softmax", "layer_norm", "rms_norm", "mlp", "attention"):
        assert len(planned(GRAPHS[name]()).schedule.items) == 1


def test_plans_are_deterministic():
    a = planned(GRAPHS["transformer"]()).text()
    b = planned(parse(print_op(GRAPHS["transformer"]()))).text()
    assert a == b


# ---- fusion rules -------------------------------------------------------------------------------

F32 = "f32"


def test_siblings_share_an_item_without_duplicating_the_producer():
    plans = planned(lowered(lambda x: (ops.exp(x) + 1, ops.exp(x) * 2, ops.tanh(x)),
                            ((4, 8), F32)))
    (item,) = plans.schedule.items
    assert item.kind == "elementwise" and len(item.outputs) == 3
    assert [op.name for op in item.ops].count("tensor.exp") == 1


def test_expensive_producer_is_not_recomputed_through_a_broadcast():
    plans = planned(lowered(lambda x, a: x + ops.exp(a)[None, :], ((64, 8), F32), ((8,), F32)))
    assert kinds(plans) == ["elementwise", "elementwise"]
    exp_item = plans.schedule.items[0]
    assert [op.name for op in exp_item.ops] == ["tensor.exp"]
    # a cheap producer is fused and recomputed per use
    plans = planned(lowered(lambda x, a: x + (a * 2)[None, :], ((64, 8), F32), ((8,), F32)))
    assert kinds(plans) == ["elementwise"]


def test_transpose_feeding_a_reduction_along_the_other_axis_is_materialized():
    plans = planned(lowered(lambda x: ops.sum(ops.transpose(x) * 2, axis=1), ((16, 8), F32)))
    assert kinds(plans) == ["shape", "reduction"]
    # a transpose that keeps the innermost dim is read in place
    plans = planned(lowered(lambda x: ops.sum(ops.transpose(x, (1, 0, 2)), axis=2),
                            ((4, 3, 8), F32)))
    assert kinds(plans) == ["reduction"]


def test_concatenate_pad_gather_make_shape_items():
    plans = planned(lowered(lambda x, y: ops.concatenate([x, y]) * 2, ((3, 4), F32),
                            ((2, 4), F32)))
    assert kinds(plans) == ["shape"]
    assert plans.schedule.items[0].hero.name == "tensor.concatenate"


def test_row_pipeline_needs_trailing_dims_column_reduction_does_not_broadcast_back():
    plans = planned(lowered(lambda x: ops.sum(x, axis=0), ((16, 8), F32)))
    assert kinds(plans) == ["reduction"]
    plans = planned(lowered(lambda x: x - ops.mean(x, axis=0, keepdims=True), ((16, 8), F32)))
    assert kinds(plans) == ["reduction", "elementwise"]
    plans = planned(lowered(lambda x: x - ops.mean(x, axis=1, keepdims=True), ((16, 8), F32)))
    assert kinds(plans) == ["row_pipeline"]


def test_sibling_reductions_and_argmax_share_an_item():
    plans = planned(lowered(lambda x: (ops.sum(x, axis=1), ops.max(x, axis=1)), ((6, 8), F32)))
    (item,) = plans.schedule.items
    assert item.kind == "reduction" and len(item.outputs) == 2
    plans = planned(lowered(lambda x: ops.argmax(x, axis=1), ((6, 8), F32)))
    assert kinds(plans) == ["reduction"]


def test_dot_general_epilogue_and_convert_prologue():
    plans = planned(lowered(lambda x, w, b, r: ops.tanh(x @ w + b) * 0.5 + r,
                            ((8, 16), F32), ((16, 4), F32), ((4,), F32), ((8, 4), F32)))
    (item,) = plans.schedule.items
    assert item.kind == "dot_general" and item.hero.name == "tensor.dot_general"
    plans = planned(lowered(lambda x, w: x.astype("f32") @ w, ((8, 16), "f16"), ((16, 4), F32)))
    assert kinds(plans) == ["dot_general"]
    # an elementwise producer of a residual runs in the epilogue; one of an operand does not
    plans = planned(lowered(lambda x, w, r: x @ w + r * 2, ((8, 8), F32), ((8, 8), F32),
                            ((8, 8), F32)))
    assert kinds(plans) == ["dot_general"]
    plans = planned(lowered(lambda x, w: (x * 2) @ w, ((8, 8), F32), ((8, 8), F32)))
    assert kinds(plans) == ["elementwise", "dot_general"]
    # a reduction after a dot_general is another kernel
    plans = planned(lowered(lambda x, w: ops.softmax(x @ w), ((8, 16), F32), ((16, 4), F32)))
    assert kinds(plans) == ["dot_general", "row_pipeline"]


def test_merges_never_close_a_cycle():
    """mul feeds both the dot and the add after it: fusing mul into the add's item would make
    that item both feed and read the dot's."""
    plans = planned(lowered(lambda x, w: (x * 2) @ w + x * 2, ((8, 8), F32), ((8, 8), F32)))
    assert kinds(plans) == ["elementwise", "dot_general"]
    seen = set()
    for item in plans.schedule.items:
        assert all(v in seen or v.is_block_argument for v in item.inputs)
        seen.update(item.outputs)


def test_scan_with_prologue_and_epilogue():
    plans = planned(lowered(lambda x: ops.cumsum(ops.exp(x), axis=1) * 2, ((4, 16), F32)))
    (item,) = plans.schedule.items
    assert item.kind == "scan" and {"tensor.exp", "tensor.scan", "tensor.multiply"} <= {
        op.name for op in item.ops}


def test_attention_composite_and_decomposed_are_one_flash_item():
    sig = ((1, 2, 16, 8), F32)
    module = lowered(lambda q, k, v: ops.attention(q, k, v, causal=True), sig, sig, sig)
    assert kinds(planned(module)) == ["flash_attention"]
    module = lowered(lambda q, k, v: ops.attention(q, k, v, causal=True), sig, sig, sig)
    plans = planned(module, "decompose-attention," + PREPARE)
    (item,) = plans.schedule.items
    assert item.kind == "flash_attention" and item.hero.name == "tensor.attention"
    assert "scores" in item.hero.attributes         # the pattern, raised
    assert not {"tensor.dot_general", "tensor.reduce"} & {op.name for op in item.ops}
    # the probabilities leave the pattern: no flash item
    plans = planned(lowered(lambda q, k, v: (ops.softmax(q @ ops.transpose(k, (0, 1, 3, 2)))
                                             @ v, ops.softmax(q @ ops.transpose(k, (0, 1, 3, 2)))),
                            sig, sig, sig))
    assert "flash_attention" not in kinds(plans)


def test_iterate_is_planned_recursively():
    plans = planned(GRAPHS["while_matmul_tanh"](small=True))
    loop = plans.schedule.items[-1]
    assert loop.kind == "iterate" and len(loop.plans) == 2
    cond, body = loop.plans
    assert [i.kind for i in cond.items] == ["elementwise"]
    assert [i.kind for i in body.items] == ["elementwise", "dot_general"]
    assert [k.name for k in plans.outlines.kernels()] == [
        "main$k0$elementwise", "main$k1$cond$k0$elementwise", "main$k1$body$k0$elementwise",
        "main$k1$body$k1$dot_general"]


def test_dead_ops_are_left_out():
    plans = planned(lowered(lambda x: (ops.exp(x), ops.tanh(x))[0], ((4,), F32)), pipeline="")
    assert [op.name for op in plans.schedule.unused] == ["tensor.tanh"]
    assert all("tensor.tanh" not in [op.name for op in i.ops] for i in plans.schedule.items)


def test_every_kind_is_known_and_cheap_ops_are_copied():
    plans = planned(GRAPHS["transformer"](small=True))
    counts = {}
    for item in plans.schedule.items:
        assert item.kind in KINDS and item.outputs
        for op in item.ops:
            counts[op] = counts.get(op, 0) + 1
    assert all(n == 1 for op, n in counts.items() if op.name not in CHEAP)


def test_an_op_without_a_rule_is_an_error(ctx, builder):
    _, func, block, _ = build_func(ctx, inputs=(), results=())
    b = builder.at_end(block)
    b.create("test.count", attributes={"n": IntAttr(1)})
    b.create("builtin.return", [])
    from accy.passes.schedule import compute_schedule_plan
    from accy.passes.shape_layout import compute_shape_layout
    with pytest.raises(ScheduleError, match="no rule for 'test.count'"):
        compute_schedule_plan(func, compute_shape_layout(func))


# ---- outlines -----------------------------------------------------------------------------------

def test_outline_signature_names_and_launch_from_the_target():
    module = GRAPHS["softmax"](small=True)
    plans = planned(module)
    (k,) = plans.outlines.kernels()
    assert k.name == "main$k0$row_pipeline" and k.kind == "row_pipeline" and k.work_item == 0
    assert [(p.role, p.dtype, p.shape) for p in k.params] == [("in", F32, (6, 40)),
                                                              ("out", F32, (6, 40))]
    assert [(s.name, s.value) for s in k.scalars] == [("rows", 6), ("row_length", 40)]
    assert k.launch.block == (256, 1, 1)        # default: a warp per row, 8 rows per block
    module = GRAPHS["softmax"](small=True)
    module.set_attribute("accy.target", DictAttr({"row_pipeline_schedules": (DictAttr({
        "row_length": 40, "dtype": F32, "threads_per_row": 64, "elements_per_thread": 1}),)}))
    (k,) = planned(module).outlines.kernels()
    assert k.launch.block == (64, 1, 1) and k.launch.grid == (6, 1, 1)


def test_outline_of_a_dot_general():
    plans = planned(GRAPHS["mlp"]())
    (k,) = plans.outlines.kernels()
    assert [(s.name, s.value) for s in k.scalars] == [("m", 512), ("n", 4096), ("k", 1024),
                                                      ("batch", 1)]
    assert k.launch.grid == (32, 4, 1)


def _f(shape, dtype=np.float32):
    return np.ones(shape, dtype)


BF16 = ml_dtypes.bfloat16


LAUNCH_CASES = {      # a program, its arguments, and the schedules its kernels take
    "vector": (lambda x: x * 2 + 1, [_f((1000,))], ["vector"]),
    "tiled transpose": (lambda x: ops.transpose(x) * 2, [_f((64, 96))], ["tiled_transpose"]),
    "serial elementwise": (lambda x: x + x, [_f((300,), np.int8)], ["serial"]),
    "warp per row": (lambda x: ops.softmax(x, -1), [_f((64, 40))], ["warp per row, registers"]),
    "block per row": (lambda x: ops.softmax(x, -1), [_f((64, 1000))],
                      ["block per row, registers"]),
    "column": (lambda x: ops.sum(x, 0), [_f((1000, 64))], ["column"]),
    "split row": (lambda x: ops.sum(x), [_f((1 << 20,))], ["split row"]),
    "scan": (lambda x: ops.cumsum(x, axis=1), [_f((600, 64))], ["warp"]),
    "lookback": (lambda x: ops.cumsum(x, axis=1), [_f((2, 20000))], ["lookback"]),
    "mma": (lambda x, y: x @ y, [_f((2048, 128), BF16), _f((128, 2048), BF16)], ["mma"]),
    "split-k": (lambda x, y: x @ y, [_f((64, 4096), BF16), _f((4096, 64), BF16)],
                ["mma split-k"]),
    "fma": (lambda x, y: x @ y, [_f((16, 24)), _f((24, 8))], ["serial"]),
    "flash": (lambda q, k, v: ops.attention(q, k, v),
              [_f((1, 2, 80, 64), BF16) for _ in "qkv"], ["flash"]),
    "serial attention": (lambda q, k, v: ops.attention(q, k, v),
                         [_f((1, 2, 8, 16)) for _ in "qkv"], ["serial"]),
}


@pytest.mark.parametrize("case", sorted(LAUNCH_CASES))
def test_each_kernel_gets_the_launch_its_plan_recorded(case):
    """The outline stores each kind's plan (its schedule, launch and workspace) and the
    lowering follows it: every kernel runs with the launch, schedule name and workspace its
    plan recorded."""
    fn, args, schedules = LAUNCH_CASES[case]
    c = compilation(fn, *args, target="sm_90", stop="kl")   # (holds the kernels' IR)
    kernels = c.kernelization.kernels
    assert [k.schedule for k in kernels] == schedules
    for k in kernels:
        plan = k.outline.schedule
        assert (k.launch, k.schedule, k.workspace) == (plan.launch, plan.name, plan.workspace)


# ---- buffers ------------------------------------------------------------------------------------

def overlapping_pairs(plan):
    packed = [b for b in plan.buffers if b.kind in ARENA_KINDS and b.alias_of is None]
    for i, a in enumerate(packed):
        for b in packed[i + 1:]:
            if a.first <= b.last and b.first <= a.last:
                yield a, b


def test_arena_never_overlaps_live_buffers_and_meets_the_peak():
    for name in ("transformer", "while_matmul_tanh", "attention"):
        plan = planned(GRAPHS[name]()).buffers
        for a, b in overlapping_pairs(plan):
            assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset, (a, b)
        assert all(b.offset % 256 == 0 for b in plan.buffers if b.offset is not None)
        assert plan.peak_bytes <= plan.arena_bytes <= 1.05 * plan.peak_bytes


def test_in_place_output_donation_and_copies(rng):
    sig = ((1, 2, 16, 8), F32)
    plans = planned(lowered(lambda q, k, v: ops.exp(ops.attention(q, k, v)) + 1, sig, sig, sig))
    assert kinds(plans) == ["flash_attention", "elementwise"]
    out = plans.buffers.buffer_of[plans.schedule.items[0].outputs[0]]
    assert out.kind == "arena"
    # the elementwise output is a function result: it gets its own output buffer
    result = plans.buffers.buffer_of[plans.schedule.items[1].outputs[0]]
    assert result.kind == "output" and result.alias_of is None
    module = lowered(lambda x: ops.exp(x) * 2, ((64,), F32))
    next(iter(module.body)).set_attribute("accy.donate", (0,))
    plans = planned(module)
    (res,) = [b for b in plans.buffers.buffers if b.kind == "output"]
    assert res.alias_of is plans.buffers.buffers[0] and res.alias_of.donated
    plans = planned(lowered(lambda x: (x, x), ((4,), F32)))
    outs = [b for b in plans.buffers.buffers if b.kind == "output"]
    assert [b.copy_of.kind for b in outs] == ["input", "input"]


def test_in_place_reuse_of_an_arena_buffer():
    sig = ((1, 2, 16, 8), F32)
    plans = planned(lowered(lambda q, k, v, w: ops.tanh(ops.exp(ops.attention(q, k, v)) * w)
                            .reshape(2, 128) @ ops.ones((128, 4)),
                            sig, sig, sig, sig))
    assert kinds(plans)[:2] == ["flash_attention", "elementwise"]
    att, ew = plans.schedule.items[:2]
    a, e = (plans.buffers.buffer_of[item.outputs[0]] for item in (att, ew))
    assert e.alias_of is a and a.last >= e.last


def test_malformed_donation_is_an_error():
    module = lowered(lambda x: ops.exp(x), ((4,), F32))
    next(iter(module.body)).set_attribute("accy.donate", (3,))
    with pytest.raises(BufferPlanError, match="accy.donate"):
        planned(module)


# ---- passes and the analysis cache -----------------------------------------------------------

def test_passes_cache_their_analyses_and_preserve_them():
    module = GRAPHS["layer_norm"](small=True)
    cache = AnalysisCache(module.context)
    PassManager("canonicalize,cse,shape,schedule,outline,bufferize").run(module, cache)
    func = next(iter(module.body))
    found = [cache.get_cached_analysis(func, d) for d in (SHAPE_LAYOUT, SCHEDULE_PLAN,
                                                          OUTLINE_PLAN, BUFFER_PLAN)]
    assert all(f is not None for f in found)
    assert found[2].schedule is found[1]
    # changing the IR makes every plan stale
    PassManager("canonicalize").run(module, cache)
    func.set_attribute("sym_name", "renamed")
    assert cache.get_cached_analysis(func, SCHEDULE_PLAN) is None
    cache.close()


def test_cli_prints_the_plans(tmp_path, capsys):
    from accy.__main__ import main
    path = tmp_path / "softmax.mlir"
    path.write_text(print_op(GRAPHS["softmax"](small=True)))
    assert main(["opt", str(path), "--pipeline", "canonicalize,cse,shape,schedule,outline,"
                 "bufferize", "--print-plans"]) == 0
    out = capsys.readouterr().out
    for needle in ("// SchedulePlanAnalysis @main: 1 work items", "// item 0 row_pipeline",
                   "// KernelOutlinePlan @main: 1 kernels", "main$k0$row_pipeline",
                   "// BufferPlanAnalysis @main: arena 0 bytes"):
        assert needle in out


# ---- regressions from review ----------------------------------------------------------------

def test_a_path_through_a_wide_item_is_seen_by_the_cycle_check():
    """Sibling merges make items span far apart ops; a merge that closes a cycle through such
    an item must be refused (the plan used to fail with a cyclic item graph)."""
    def f(x1, x2, x3):
        b = (x1 * 3.0) @ x2
        s2 = ((x2 * 2.0) @ x3) @ x3
        return b, x1 + ops.transpose(s2)
    sig = ((4, 4), F32)
    plans = planned(lowered(f, sig, sig, sig))
    seen = set(plans.schedule.block.arguments)
    for item in plans.schedule.items:
        assert all(v in seen for v in item.inputs)
        seen.update(item.outputs)


T4 = (0, 1, 3, 2)


def _probs(s, max_by_column=False):
    m = ops.max(s, axis=-1)
    e = ops.exp(s - (m[:, :, None, :] if max_by_column else m[:, :, :, None]))
    return e / ops.sum(e, axis=-1)[:, :, :, None]


@pytest.mark.parametrize("fn", [
    lambda q, k, v: ops.transpose(_probs(q @ ops.transpose(k, T4)), T4) @ v,
    lambda q, k, v: _probs(q @ ops.transpose(k, T4), max_by_column=True) @ v,
    lambda q, k, v: _probs((lambda s: s + ops.transpose(s, T4))(q @ ops.transpose(k, T4))) @ v,
], ids=["probabilities transposed", "max broadcast by column", "scores plus their transpose"])
def test_look_alikes_of_attention_are_not_flash_items(fn):
    sig = ((1, 2, 8, 8), F32)
    assert "flash_attention" not in kinds(planned(lowered(fn, sig, sig, sig)))
    good = lowered(lambda q, k, v: _probs(q @ ops.transpose(k, T4) * 0.5) @ v, sig, sig, sig)
    assert kinds(planned(good)) == ["flash_attention"]


def test_attention_sum_must_start_from_zero():
    sig = ((1, 2, 8, 8), F32)
    text = print_op(lowered(lambda q, k, v: _probs(q @ ops.transpose(k, T4)) @ v, sig, sig, sig))
    assert kinds(planned(parse(text))) == ["flash_attention"]
    # the sum's init (the second 0.0 constant feeding a reduce) becomes 100.0
    head, sep, tail = text.rpartition("dense<0.0>")
    assert kinds(planned(parse(head + "dense<100.0>" + tail))) != ["flash_attention"]


def test_no_in_place_write_when_elements_move_inside_the_item():
    module = lowered(lambda x: (ops.exp(x) * 2)[::-1], ((64,), F32))
    next(iter(module.body)).set_attribute("accy.donate", (0,))
    plans = planned(module)
    assert all(b.alias_of is None for b in plans.buffers.buffers)
    # an item that reads its input reversed never writes over it
    sig = ((1, 2, 16, 8), F32)
    plans = planned(lowered(lambda q, k, v, w: (ops.exp(ops.attention(q, k, v))[:, :, ::-1, :]
                                                * 2).reshape(2, 128) @ w,
                            sig, sig, sig, ((128, 4), F32)))
    for item in plans.schedule.items:
        if "tensor.reverse" in [op.name for op in item.ops]:
            assert all(plans.buffers.buffer_of[v].alias_of is None for v in item.outputs)


@pytest.mark.parametrize("fn", [
    lambda x: ops.exp(x)[0:1, :] + x,
    lambda x: (lambda y: y[0:-4] + y[1:-3] + y[2:-2] + y[3:-1] + y[4:])(ops.exp(x[0])),
    lambda x: ops.cumsum(ops.exp(x), axis=1) + (ops.exp(x)[0] * 2)[None, :],
], ids=["row of exp broadcast", "stencil of exp", "scan with a broadcast row of exp"])
def test_an_expensive_op_is_computed_once_per_element(fn):
    plans = planned(lowered(fn, ((64, 64), F32)))
    assert len(plans.schedule.items) >= 2
    exp_items = [i for i in plans.schedule.items
                 if "tensor.exp" in [op.name for op in i.ops]]
    for item in exp_items:
        (exp,) = [op for op in item.ops if op.name == "tensor.exp"]
        readers = [op for op in item.ops if exp.results[0] in op.operands]
        assert all(op.result_types[0].shape == exp.result_types[0].shape and
                   op.name not in CHEAP for op in readers), item.ops


@pytest.mark.parametrize("shape,fn", [
    ((4096, 4096), lambda x: ops.sum(x)),
    ((16, 1 << 22), lambda x: ops.sum(x, axis=1)),
    ((4, 100000), lambda x: ops.softmax(x)),
])
def test_launch_domains_fit_the_hardware(shape, fn):
    (k,) = planned(lowered(fn, (shape, F32))).outlines.kernels()
    assert k.launch.shared_bytes <= ARCH_FACTS["sm_80"].max_shared_per_block
    assert k.launch.block[0] * k.launch.block[1] * k.launch.block[2] <= 1024
    if k.kind == "reduction":
        scalars = dict((s.name, s.value) for s in k.scalars)
        assert k.launch.grid[0] == scalars["splits"] > 1


def test_loop_carried_values_get_two_buffers_in_the_arena():
    plans = planned(GRAPHS["while_matmul_tanh"](small=True))
    state = [b for b in plans.buffers.buffers if b.kind == "loop_state"]
    assert [b.nbytes for b in state] == [4, 4, 1024, 1024]
    assert [b.kind for b in plans.buffers.buffers].count("loop_flag") == 1
    for a, b in overlapping_pairs(plans.buffers):
        assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset


def test_kernel_names_differ_across_functions_and_kernel_calls_keep_theirs():
    a = lowered(lambda x: ops.exp(x), ((4,), F32))
    b = lowered(lambda x: ops.exp(x), ((4,), F32))
    next(iter(a.body)).set_attribute("sym_name", "f.x")
    next(iter(b.body)).set_attribute("sym_name", "f_x")
    names = [planned(m).outlines.kernels()[0].name for m in (a, b)]
    assert names[0] != names[1] and all(set(n) <= set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$") for n in names)


def test_a_kernel_call_is_an_item_of_its_own_with_the_users_launch():
    ptx = (".version 8.0\n.target sm_90\n.address_size 64\n"
           ".visible .entry scale2(.param .u64 a, .param .u64 b) { ret; }\n")
    attrs = f'block = [128, 1, 1], grid = [2, 1, 1], kernel = "scale2", ptx = {ptx!r}'
    module = parse(f"""builtin.module ({{
  builtin.func <{{function_type = (tensor<256xf32>) -> tensor<256xf32>, sym_name = "main"}}> ({{
  ^bb0(%0: tensor<256xf32>):
    %1 = tensor.exp %0 : tensor<256xf32>
    %2 = tensor.kernel_call %1 <{{{attrs}}}> : tensor<256xf32>
    %3 = tensor.exp %2 : tensor<256xf32>
    builtin.return %3
  }})
}})""".replace("'", '"'))
    plans = planned(module)
    assert kinds(plans) == ["elementwise", "kernel_call", "elementwise"]
    (k,) = [k for k in plans.outlines.kernels() if k.kind == "kernel_call"]
    assert k.name == "scale2" and k.launch.grid == (2, 1, 1) and k.launch.block == (128, 1, 1)
    assert [p.role for p in k.params] == ["in", "out"]
