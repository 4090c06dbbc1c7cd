"""The parallel schedules of reduction and row_pipeline items (accy/lowering/rows.py) end to
end: each case is compiled by accy.compile for sm_80, its PTX assembled by ptxas for sm_80 and
sm_90 (no spills; the `ptxas` fixture of test_ptx_emitter), run on the emulator (outputs
poisoned) against the reference interpreter, and the schedule that ran is asserted, so a
silent fall back to the serial schedule fails. Integers, max/min, argmax/argmin and
order-dependent bodies match bit for bit; float sums and row pipelines within what a different
(fixed) order of summing the row may change: tolerances from the dtype and the row length."""
import math
from dataclasses import replace

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy import compiler
from accy.ir import parse
from accy.lowering import rows
from accy.passes import target as target_module
from accy.passes.target import RowSchedule

from compile_helpers import draw
from tensor_helpers import assert_close_ulp

@pytest.fixture(autouse=True)
def warp_first_schedules(monkeypatch):
    """The cases below name the schedule each shape takes under a warp-first row schedule (a
    warp per row up to 1024 elements, 8 elements a thread in registers), which reaches every
    storage mode at small sizes; the default holds rows in registers up to 8192 elements
    (test_default_schedule_holds_rows_in_registers)."""
    def warp_first(row_length, dtype):
        threads = 32 if row_length <= 1024 else \
            min(1024, 1 << max(0, -(-row_length // 8) - 1).bit_length())
        return RowSchedule(row_length, dtype, threads,
                           max(1, min(8, -(-row_length // threads))))
    monkeypatch.setattr(target_module, "default_row_schedule", warp_first)


EPS = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "float16": 2.0 ** -10,
       "bfloat16": 2.0 ** -7}
REDUCING = ("reduction", "row_pipeline")


def run(fn, args, schedule, ptxas, target=None):
    """Results on the emulator and the reference (as tuples); the one reduction kernel ran
    `schedule`."""
    exe = accy.compile(fn, *args, target=dict(target or {}, arch="sm_80"))
    ptxas(exe.ptx)
    assert [k.schedule for k in exe.kernels if k.kind in REDUCING] == [schedule], exe.report()
    assert not exe.fallbacks, exe.report()
    got, want = exe.run(*args, device="emulator"), exe.run(*args, device="reference")
    return (got, want) if isinstance(got, tuple) else ((got,), (want,))


def limit_static_shared(monkeypatch, nbytes):
    """Let a block of the tests' target (sm_80) declare only `nbytes` of static shared memory."""
    facts = target_module.ARCH_FACTS["sm_80"]
    monkeypatch.setitem(target_module.ARCH_FACTS, "sm_80", replace(facts, static_shared=nbytes))


def assert_exact(got, want):
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g.reshape(-1).view(np.uint8), w.reshape(-1).view(np.uint8))


def assert_close(g, w, length, scale, acc, rounded=0):
    """|g - w| within 8 eps(acc) sqrt(length) scale (a sum of `length` terms of magnitude
    `scale` taken in another order, in dtype `acc`) plus 2 ulp of g's dtype at |w| and at
    `rounded` (a row value of that magnitude rounded to g's dtype on the way: a row
    pipeline's sum in f16 or bf16)."""
    assert g.dtype == w.dtype and g.shape == w.shape
    out = EPS[str(g.dtype)]
    g, w = g.astype(np.float64), w.astype(np.float64)
    bound = 8 * EPS[acc] * math.sqrt(length) * scale + 2 * out * (np.abs(w) + rounded)
    bad = ~(np.abs(g - w) <= bound)
    assert not bad.any(), (f"{bad.sum()} of {bad.size} off, worst {np.abs(g - w)[bad].max()} "
                           f"(bound {np.asarray(bound * np.ones_like(w))[bad].min()})")


def check_sums(got, want, x, axes):
    """Exact for integers; for floats within the tolerance of a sum over `axes` of x (f16 and
    bf16 sums accumulate in f32)."""
    for g, w in zip(got, want):
        if g.dtype.kind != "f":
            assert_exact((g,), (w,))
            continue
        scale = np.abs(x.astype(np.float64)).sum(axis=axes).reshape(g.shape)
        acc = "float64" if g.dtype == np.float64 else "float32"
        assert_close(g, w, math.prod(x.shape[a] for a in axes), scale, acc)


@pytest.mark.parametrize("name,shape,schedule", [
    ("sum", (9, 200), "warp per row, registers"),
    ("sum", (3, 1024), "block per row, registers"),        # 256 threads x 4
    ("softmax", (3, 1024), "block per row, registers"),
    ("layer_norm", (2, 1500), "block per row, registers"),
    ("rms_norm", (1, 8192), "block per row, registers"),   # 1024 threads x 8
    ("softmax", (1, 10000), "block per row, shared"),
], ids=str)
def test_default_schedule_holds_rows_in_registers(name, shape, schedule, monkeypatch, rng,
                                                  ptxas):
    monkeypatch.undo()          # the target's own default schedule
    fn = {"sum": lambda x: ops.sum(x, axis=-1), "softmax": ops.softmax,
          "layer_norm": ops.layer_norm, "rms_norm": ops.rms_norm}[name]
    x = draw(rng, shape, "f32")
    got, want = run(fn, [x], schedule, ptxas)
    scale = np.abs(x.astype(np.float64)).sum(axis=-1) if name == "sum" else 1.0
    assert_close(got[0], want[0], shape[-1], scale, "float32")


# ---- row reductions: a warp or a block per row -----------------------------------------------

ROW_CASES = {
    "sum": lambda x: ops.sum(x, axis=-1),
    "max": lambda x: ops.max(x, axis=-1, keepdims=True),
    "argmax": lambda x: ops.argmax(x, axis=-1),
    "argmin": lambda x: ops.argmin(x, axis=-1),
    "sum_and_min": lambda x: (ops.sum(x, axis=-1), ops.min(x, axis=-1)),
}
ROW_SHAPES = {       # shape -> schedule under the default row schedule
    (1, 1): "warp per row, registers",
    (1, 3): "warp per row, registers",
    (37, 5): "warp per row, registers",         # not a multiple of 8 rows per block
    (3, 1, 5): "warp per row, registers",       # a size-1 dim
    (5, 33): "warp per row, registers",         # a second element for one lane only
    (3, 700): "warp per row, streamed",
    (2, 1500): "block per row, registers",
}
ROW_DTYPES = [("sum", "f32"), ("sum", "f16"), ("sum", "bf16"), ("sum", "i32"), ("sum", "f64"),
              ("max", "bf16"), ("max", "i32"), ("argmax", "f32"), ("argmin", "f16"),
              ("sum_and_min", "f32")]


@pytest.mark.parametrize("shape", sorted(ROW_SHAPES), ids=str)
@pytest.mark.parametrize("case,dtype", ROW_DTYPES)
def test_row_reductions(case, dtype, shape, rng, ptxas):
    x = draw(rng, shape, dtype)
    got, want = run(ROW_CASES[case], [x], ROW_SHAPES[shape], ptxas)
    check_sums(got, want, x, (len(shape) - 1,))


@pytest.mark.parametrize("shape,schedule", [((9, 13), "warp per row, registers"),
                                            ((2, 1500), "block per row, registers"),
                                            ((40, 3), "column")], ids=str)
def test_boolean_max_through_shuffles_and_shared_memory(shape, schedule, rng, ptxas):
    x = rng.random(shape) < 0.02
    axis = 0 if schedule == "column" else 1
    got, want = run(lambda x: ops.max(x, axis=axis), [x], schedule, ptxas)
    assert_exact(got, want)


# ---- row pipelines: registers, shared memory, streamed -----------------------------------------

PIPELINES = {
    "softmax": (lambda x: ops.softmax(x), 0),
    "log_softmax": (lambda x: ops.log_softmax(x), 0),
    "layer_norm": (lambda x, w, b: ops.layer_norm(x, w, b), 2),
    "rms_norm": (lambda x, w: ops.rms_norm(x, w), 1),
}


def check_pipeline(name, dtype, shape, schedule, rng, ptxas, target=None):
    fn, weights = PIPELINES[name]
    args = [draw(rng, shape, dtype)] + [draw(rng, shape[-1:], dtype) for _ in range(weights)]
    (got,), (want,) = run(fn, args, schedule, ptxas, target)
    scale = np.abs(want.astype(np.float64)).max() + 1
    assert_close(got, want, shape[-1], scale, "float32", rounded=scale)


PIPELINE_SHAPES = {(5, 67): "warp per row, registers", (3, 700): "warp per row, shared",
                   (2, 1500): "block per row, registers"}


@pytest.mark.parametrize("shape", sorted(PIPELINE_SHAPES), ids=str)
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_row_pipelines(name, dtype, shape, rng, ptxas):
    check_pipeline(name, dtype, shape, PIPELINE_SHAPES[shape], rng, ptxas)


@pytest.mark.parametrize("name,dtype,shape,schedule", [
    ("softmax", "f32", (2, 10000), "block per row, shared"),        # 40 kB of row in shared
    ("layer_norm", "bf16", (1, 10000), "block per row, shared"),
    ("softmax", "f32", (1, 13000), "block per row, streamed"),      # over 48 kB: read again
])
def test_long_row_pipelines(name, dtype, shape, schedule, rng, ptxas):
    check_pipeline(name, dtype, shape, schedule, rng, ptxas)


@pytest.mark.parametrize("name", ["layer_norm", "log_softmax"])
@pytest.mark.parametrize("shape,schedule", [((3, 700), "warp per row, streamed"),
                                            ((2, 9000), "block per row, streamed")], ids=str)
def test_row_pipelines_streamed_when_shared_memory_is_short(name, shape, schedule, monkeypatch,
                                                            rng, ptxas):
    limit_static_shared(monkeypatch, 1024)
    check_pipeline(name, "f16", shape, schedule, rng, ptxas)


@pytest.mark.parametrize("limit,schedule,exps", [
    (target_module.ARCH_FACTS["sm_80"].static_shared, "warp per row, shared", 2),
    (1024, "warp per row, streamed", 4)])
def test_shared_rows_keep_what_later_passes_read(limit, schedule, exps, monkeypatch, rng,
                                                 ptxas):
    """softmax keeps x in shared memory in the pass of its max and exp(x - max) in the pass
    of its sum, so the output pass divides without computing exp again: exp is written for
    one pass (its first element and its loop), where a streamed row computes it in two."""
    limit_static_shared(monkeypatch, limit)
    x = draw(rng, (3, 700), "f32")
    kl = compiler.compilation(lambda x: ops.softmax(x), x, target="sm_80", stop="kl").text("kl")
    assert kl.count("kl.exp ") == exps
    check_pipeline("softmax", "f32", (3, 700), schedule, rng, ptxas)


@pytest.mark.parametrize("threads,per_thread,shape,schedule", [
    (4, 2, (70, 37), "warp per row, shared"),       # 64 rows of 4 threads per block
    (1, 8, (9, 5), "warp per row, registers"),      # a thread per row, 256 rows per block
    (64, 1, (3, 100), "block per row, shared"),
    (96, 3, (4, 200), "block per row, registers"),  # 3 warps: not a power of two
])
def test_the_targets_row_schedule_is_followed(threads, per_thread, shape, schedule, rng,
                                              ptxas):
    target = {"row_pipeline_schedules": [{"row_length": shape[-1], "dtype": "f32",
                                          "threads_per_row": threads,
                                          "elements_per_thread": per_thread}]}
    check_pipeline("layer_norm", "f32", shape, schedule, rng, ptxas, target)


# ---- column reductions ------------------------------------------------------------------------

COLUMN_CASES = [((7, 13), (0,)), ((100, 7), (0,)), ((70, 33), (0,)), ((1, 5), (0,)),
                ((5, 40, 3), (0, 2))]


@pytest.mark.parametrize("case,dtype,shape,axes", [
    (case, dtype, shape, axes) for case, dtype in [("sum", "f32"), ("sum", "f16"), ("sum", "i32"),
                                                   ("max", "bf16"), ("argmax", "f32")]
    for shape, axes in COLUMN_CASES if case != "argmax" or len(axes) == 1], ids=str)
def test_column_reductions(case, dtype, shape, axes, rng, ptxas):
    fn = {"sum": lambda x: ops.sum(x * 2, axis=axes), "max": lambda x: ops.max(x, axis=axes),
          "argmax": lambda x: ops.argmax(x, axis=axes[0])}[case]
    x = draw(rng, shape, dtype)
    got, want = run(fn, [x], "column", ptxas)
    check_sums(got, want, x * 2 if case == "sum" else x, axes)


# ---- split rows: several blocks per row, combined by the last ---------------------------------

@pytest.mark.parametrize("case,dtype,shape", [
    ("sum", "f32", (1, 40000)), ("sum", "i32", (3, 33000)), ("sum", "f16", (2, 34000)),
    ("max", "bf16", (2, 35000)), ("argmax", "f32", (1, 40000)),
    ("sum_and_min", "f32", (1, 50000)),
], ids=str)
def test_split_rows(case, dtype, shape, rng, ptxas):
    x = draw(rng, shape, dtype)
    got, want = run(ROW_CASES[case], [x], "split row", ptxas)
    check_sums(got, want, x, (1,))


def test_a_whole_array_split_over_blocks(rng, ptxas):
    x = draw(rng, (70001,), "f32")
    got, want = run(lambda x: (ops.sum(x), ops.argmin(x)), [x], "split row", ptxas)
    check_sums(got, want, x, (0,))


# ---- bodies that are only associative: contiguous slices, combined in order -------------------

def reduce_module(shape, dims, body):
    """A module reducing `dims` of two i32 arrays of `shape` with a two-accumulator `body`
    (ops on %a, %b (accumulators) and %c, %d (elements), yielding two values), from 1, 0."""
    t = f"tensor<{'x'.join(map(str, shape))}xi32>"
    r = f"tensor<{'x'.join(str(n) for d, n in enumerate(shape) if d not in dims)}xi32>"
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = ({t}, {t}) -> ({r}, {r}), sym_name = "main"}}> ({{
  ^bb0(%x: {t}, %y: {t}):
    %one = tensor.constant <{{value = dense<1> : tensor<i32>}}> : tensor<i32>
    %zero = tensor.constant <{{value = dense<0> : tensor<i32>}}> : tensor<i32>
    %r0, %r1 = tensor.reduce %x, %y, %one, %zero <{{dimensions = {list(dims)}}}> : {r}, {r} ({{
    ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>):
{body}
    }})
    builtin.return %r0, %r1
  }})
}})""")


# (a, b) composes maps t -> a t + b, the accumulated one first: associative, not commutative
COMPOSE = """      %p = tensor.multiply %a, %c : tensor<i32>
      %q = tensor.multiply %b, %c : tensor<i32>
      %s = tensor.add %q, %d : tensor<i32>
      tensor.yield %p, %s"""
LAST = "      tensor.yield %c, %d"           # the last element wins


@pytest.mark.parametrize("body", [COMPOSE, LAST], ids=["compose", "last"])
@pytest.mark.parametrize("shape,dims,schedule", [
    ((5, 37), (1,), "warp per row, registers"), ((3, 700), (1,), "warp per row, streamed"),
    ((2, 1500), (1,), "block per row, registers"), ((37, 6), (0,), "column"),
    ((1, 40000), (1,), "split row")], ids=str)
def test_order_dependent_bodies_keep_the_order(body, shape, dims, schedule, rng, ptxas):
    args = [rng.integers(-3, 4, shape, dtype=np.int32) for _ in range(2)]
    got, want = run(reduce_module(shape, dims, body), args, schedule, ptxas)
    assert_exact(got, want)


# ---- full-shape outputs beside the reductions, capped grids, the serial fallback ----------------

@pytest.mark.parametrize("fn,args,schedule", [
    (lambda x: (ops.exp(x) * 0.5, ops.sum(ops.exp(x) * 0.5, axis=1)), [(6, 20)],
     "warp per row, registers"),     # exp: within 1 ulp (the others are exact)
    (lambda x: (x * 2, ops.sum(x * 2, axis=0)), [(50, 7)], "column"),
    (lambda x: (x * 2, ops.max(x * 2, axis=1)), [(1, 40000)], "split row"),
    (lambda x, r: (x + r, ops.rms_norm(x + r)), [(3, 700), (3, 700)], "warp per row, shared"),
], ids=["warp", "column", "split", "pipeline"])
def test_full_shape_outputs_beside_the_reductions(fn, args, schedule, rng, ptxas):
    arrays = [draw(rng, s, "f32") for s in args]
    got, want = run(fn, arrays, schedule, ptxas)
    if schedule.startswith("warp"):
        assert_close_ulp(got[0], want[0].astype(np.float64), "f32", 1)
    else:
        np.testing.assert_array_equal(got[0], want[0])
    assert_close(got[1], want[1], args[0][-1], np.abs(want[1]).max() + 1, "float32")


@pytest.mark.parametrize("fn,shape,schedule", [
    (lambda x: ops.sum(x, axis=1), (37, 5), "warp per row, registers"),
    (lambda x: ops.softmax(x), (5, 1500), "block per row, registers"),
    (lambda x: ops.sum(x, axis=0), (5, 100), "column"),
], ids=["warp", "block", "column"])
def test_capped_grids_stride_over_the_rows(fn, shape, schedule, monkeypatch, rng, ptxas):
    monkeypatch.setattr(rows, "MAX_BLOCKS", 2)
    x = draw(rng, shape, "f32")
    exe = accy.compile(fn, x, target="sm_80")
    ptxas(exe.ptx)
    (k,) = exe.kernels
    assert k.schedule == schedule and k.launch.grid == (2, 1, 1), exe.report()
    got, want = exe.run(x, device="emulator"), exe.run(x, device="reference")
    assert_close(got, want, shape[-1], np.abs(want).max() + 1, "float32")


@pytest.mark.parametrize("shape", [(3, 0), (0, 5)], ids=str)
def test_empty_rows_run_serially(shape, ptxas):
    x = np.zeros(shape, np.float32)
    got, want = run(lambda x: ops.sum(x, axis=1), [x], "serial", ptxas)
    assert_exact(got, want)


def _deep_chain(layers):
    """y <- y * 0.5 + x, `layers` times (each step halves the error before it)."""
    def chain(x):
        y = x
        for _ in range(layers):
            y = y * 0.5 + x
        return y
    return chain


@pytest.mark.parametrize("reduce", [False, True], ids=["elementwise", "softmax"])
def test_a_fused_chain_deeper_than_recursion_allows(reduce, rng, ptxas):
    # 250 layers are 500 fused ops: lowered operand by operand they recursed past Python's
    # limit; a large item's operands are lowered leaves first
    chain = _deep_chain(250)
    fn = (lambda x: ops.softmax(chain(x))) if reduce else chain
    x = draw(rng, (5, 67), "f32")
    exe = accy.compile(fn, x, target={"arch": "sm_80"})
    ptxas(exe.ptx)
    assert not exe.fallbacks and len(exe.kernels) == 1, exe.report()
    got, want = exe.run(x, device="emulator"), exe.run(x, device="reference")
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=1e-5, atol=1e-6)
    exact = 2 * x.astype(np.float64)                  # the chain's limit, reached long before
    if not reduce:
        np.testing.assert_allclose(got.astype(np.float64), exact, rtol=1e-5, atol=1e-6)
