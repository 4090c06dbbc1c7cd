"""Programs that used to lose a work item to the host: a rank-0 value beside a reduction or row
pipeline, dense constants, loops inside loops. Each compiles to kernels only (no host
fallback under the exact tier, and it compiles under the fast tier), its PTX assembles, and
the emulator's results match the reference interpreter on fresh random inputs."""
import gc
import weakref

import ml_dtypes  # noqa: F401  (bf16 arrays)
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy import compiler
from accy._core.types import numpy_dtype

from ptxas_check import assemble

FAST = {"math_tier": "fast"}


def draw(rng, shape, dtype="f32"):
    if dtype in ("f32", "f16", "bf16", "f64"):
        return (rng.standard_normal(shape) * 2).astype(numpy_dtype(dtype))
    if dtype == "i1":
        return rng.random(shape) < 0.5
    return rng.integers(-50, 50, shape, dtype=numpy_dtype(dtype))


def compiled(fn, args, rtol=1e-5, atol=1e-5, fast_atol=None):
    """`fn` compiled under both tiers: kernels only, PTX assembled, the emulator's results
    those of the reference (floats within rtol/atol, or `fast_atol` under the fast tier;
    others exactly). The exact tier's executable."""
    exe = accy.compile(fn, *args)
    assert not exe.fallbacks, exe.report()
    fast = accy.compile(fn, *args, target=FAST)
    for e, tol in ((exe, atol), (fast, fast_atol or atol)):
        assemble(e.ptx)
        got = e.run(*args, device="emulator")
        want = e.run(*args, device="reference")
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            if g.dtype.kind == "f" or g.dtype == ml_dtypes.bfloat16:
                np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                           rtol=rtol, atol=tol)
            else:
                np.testing.assert_array_equal(g, w)
    return exe


# ---- a rank-0 result beside a row item ----------------------------------------------------------

def test_a_scalar_result_beside_a_reduction_is_its_own_item(rng):
    x, s = draw(rng, (4, 8)), np.asarray(rng.standard_normal(), np.float32)
    exe = compiled(lambda x, s: (ops.sum(x, -1), s + 1), [x, s])
    assert sorted(k.kind for k in exe.kernels) == ["elementwise", "reduction"]


def test_a_scalar_read_inside_a_row_pipeline_and_returned(rng):
    """The scalar feeds the row pipeline and is a result too: computed once, by its own item,
    which the row pipeline reads."""
    def fn(x, s):
        t = s * 3 + 1
        return ops.softmax(x * t, -1), t
    exe = compiled(fn, [draw(rng, (4, 8)), np.asarray(rng.standard_normal(), np.float32)])
    assert sorted(k.kind for k in exe.kernels) == ["elementwise", "row_pipeline"]


@pytest.mark.parametrize("body", ["softmax", "layer_norm", "minus_max"])
def test_a_fori_loop_whose_body_holds_a_row_pipeline(body, rng):
    rows = {"softmax": lambda c: ops.softmax(c * 1.5, -1),
            "layer_norm": lambda c: ops.layer_norm(c) * 0.5 + c,
            "minus_max": lambda c: c - ops.max(c, -1, keepdims=True)}[body]

    def fn(x, n):
        return ops.fori_loop(0, n, lambda i, c: rows(c), x)
    exe = compiled(fn, [draw(rng, (4, 8)), np.asarray(3, np.int32)])
    assert "row_pipeline" in {k.kind for k in exe.kernels if k.scope}


def test_a_while_loop_counting_beside_a_row_pipeline(rng):
    def fn(x, n):
        def body(state):
            i, c = state
            return i + 1, ops.softmax(c, -1) * 2.0
        return ops.while_loop(lambda state: state[0] < n, body, (np.int32(0), x))
    compiled(fn, [draw(rng, (4, 8)), np.asarray(4, np.int32)])


# ---- dense constants: constant buffers ----------------------------------------------------------

def _mixed(dtype, shape, rng):
    """A constant of `dtype` with several distinct elements (never a splat)."""
    values = draw(rng, shape, dtype)
    flat = values.reshape(-1)
    flat[:2] = np.array([1, 0]).astype(flat.dtype)
    return values


def test_gathers_by_constant_index_lists(rng):
    def fn(x):
        return x[:, [0, 2]], ops.take(x, [3, 1, 1], axis=0) * 2.0
    x = draw(rng, (4, 5))
    exe = compiled(fn, [x])
    assert {k.kind for k in exe.kernels} == {"shape"}
    indices = [np.frombuffer(s.data, np.int32).tolist() for s in exe.program.constants()]
    assert indices == [[0, 2], [3, 1, 1]]
    plans = compiler.compilation(fn, x, stop="plans").plans
    text = plans.buffers.text()
    assert "constant %" in text and "constants: %" in plans.schedule.text(), text


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i32", "i1"])
def test_a_dense_constant_of_each_dtype(dtype, rng):
    c = _mixed(dtype, (3, 4), rng)
    if dtype == "i1":
        fn = (lambda x: (x ^ c, ops.logical_not(c) | x))
    else:
        fn = (lambda x: (x + c, x * c[0]))
    tol = {"f16": 1e-3, "bf16": 1e-2}.get(dtype, 1e-6)
    exe = compiled(fn, [draw(rng, (3, 4), dtype)], rtol=tol, atol=tol)
    assert exe.program.constants()


def test_a_dense_constant_in_a_reduction_and_returned(rng):
    c = _mixed("f32", (8,), rng)
    x = draw(rng, (4, 8))
    exe = compiled(lambda x: (ops.sum(x * c, -1), ops.softmax(x + c, -1), c), [x],
                   atol=8 * 2.0 ** -23 * 8 * float(np.abs(x * c).sum()))
    assert [k.kind for k in exe.kernels] == ["row_pipeline"]


def test_a_constant_matrix_in_a_dot(rng):
    w = _mixed("f32", (8, 16), rng)
    x = draw(rng, (32, 8))
    tf32 = 2.0 ** -10 * float((np.abs(x) @ np.abs(w)).max())     # the fast tier's mma
    exe = compiled(lambda x: ops.tanh(x @ w + w[0]), [x], rtol=1e-5, atol=1e-5, fast_atol=tf32)
    assert "dot_general" in {k.kind for k in exe.kernels}


def test_dense_constants_inside_a_loop_body(rng):
    """Constants of the body's own block (its buffer plan's), and one of the function's block
    that starts a carried value (the loop copies it into its state buffer)."""
    start = _mixed("f32", (3, 4), rng)

    def fn(x, n):
        def body(i, c):
            acc, carried = c
            scale = np.array([0.5, -0.25, 0.75, 1.0], np.float32)
            return acc * scale + carried[0], carried * np.array([1, 2, 0, 1], np.float32)
        return ops.fori_loop(0, n, body, (x, ops.asarray(start)))
    args = [draw(rng, (3, 4)), np.asarray(3, np.int32)]
    exe = compiled(fn, args)
    buffers = compiler.compilation(fn, *args, stop="plans").plans.buffers
    ((_, body),) = buffers.nested.values()
    assert "constant" in {b.kind for b in body.buffers}
    assert "constant" in {b.kind for b in buffers.buffers}
    assert len(exe.program.constants()) == 3        # every block's constants, uploaded once



def test_a_weight_inside_a_loop_counts_in_the_estimate_and_stays_out_of_reprs(rng):
    """The cache budget's estimate of the buffer plan counts the constant bytes of its loops'
    plans; no repr prints a constant's bytes (an executable holding weights printed megabytes)."""
    from accy.passes.bufferize import BUFFER_PLAN
    w = draw(rng, (256, 256))
    c = compiler.compilation(lambda x, n: ops.fori_loop(0, n, lambda i, v: ops.tanh(v @ w), x),
                             draw(rng, (4, 256)), np.asarray(2, np.int32))
    ((_, body),) = c.plans.buffers.nested.values()
    (constant,) = [b for b in body.buffers if b.kind == "constant"]
    assert constant.nbytes == w.nbytes
    assert BUFFER_PLAN.work_contract.estimate(c.plans.buffers) > w.nbytes
    (slot,) = c.executable.program.constants()
    assert slot.data == w.tobytes()
    assert len(repr(constant)) < 300 and len(repr(slot)) < 300
    assert len(repr(c.executable.program)) < w.nbytes and len(repr(c.executable)) < w.nbytes

def test_a_constant_is_uploaded_once_per_device(rng):
    from accy.runtime.emulator.driver import Emulator
    c = np.array([1.5, -2.25, 3.125, 7.0], np.float32)
    exe = accy.compile(lambda x: x * c + 1, draw(rng, (2, 4)))
    assert not exe.fallbacks
    device, uploads = Emulator(), []
    htod = device.memcpy_htod
    device.memcpy_htod = lambda p, a: (uploads.append(np.asarray(a).tobytes()), htod(p, a))
    for _ in range(2):
        x = draw(rng, (2, 4))
        np.testing.assert_allclose(exe.run(x, device=device), x * c + 1, rtol=1e-6)
    assert sum(c.tobytes() in u for u in uploads) == 1
    with exe.bind(x, device="emulator") as bound:        # another device: its own upload
        bound.launch()
        bound.launch()
        np.testing.assert_allclose(bound.results(), x * c + 1, rtol=1e-6)



def _two_constants(rng):
    """An executable with two dense constants, and an argument for it."""
    c, d = _mixed("f32", (2, 4), rng), _mixed("f32", (2, 4), rng)
    exe = accy.compile(lambda x: x * c + d, draw(rng, (2, 4)))
    assert len(exe.program.constants()) == 2
    return exe, draw(rng, (2, 4)), (c, d)


def test_a_run_on_a_new_emulator_frees_its_constants_and_keeps_no_device(rng, monkeypatch):
    """device="emulator" opens a device for one run (or one Bound): its constants are freed
    with the run's buffers, and the executable keeps none of these devices alive."""
    import accy.runtime.executable as executable
    opened, open_device = [], executable.open_device
    monkeypatch.setattr(executable, "open_device",
                        lambda name: opened.append(open_device(name)) or opened[-1])
    exe, x, (c, d) = _two_constants(rng)
    for _ in range(4):
        np.testing.assert_allclose(exe.run(x, device="emulator"), x * c + d, rtol=1e-6)
    with exe.bind(x, device="emulator") as bound:
        bound.launch()
    assert len(opened) == 5
    assert [len(dev.memory.buffers) for dev in opened] == [0] * 5
    gone = [weakref.ref(dev) for dev in opened]
    del opened[:], bound
    gc.collect()
    assert [r() for r in gone] == [None] * 5


def test_constants_on_a_device_live_until_the_executable_goes(rng):
    """On a device the caller holds the constants are uploaded once and kept across runs;
    collecting the executable frees them; a device dropped while the executable lives goes."""
    from accy.runtime.emulator.driver import Emulator
    exe, x, (c, d) = _two_constants(rng)
    device = Emulator()
    for _ in range(3):
        np.testing.assert_allclose(exe.run(x, device=device), x * c + d, rtol=1e-6)
        assert len(device.memory.buffers) == 2      # the two constants, nothing else
    assert exe.constants(device) is exe.constants(device)
    other = Emulator()
    exe.run(x, device=other)
    other_gone = weakref.ref(other)
    del other
    gc.collect()
    assert other_gone() is None
    del exe
    gc.collect()
    assert device.memory.buffers == {}


class _Forwarding:
    """A device object forwarding to an emulator; its subclasses' `__slots__` decide whether
    it has a __dict__ and takes weak references."""
    __slots__ = ("inner",)

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize("slots", [(), ("__dict__",)])
def test_a_device_that_cannot_keep_values_gets_them_per_run(slots, rng):
    """A device object without a __dict__ or weak references cannot hold the executable's
    modules and constants: each run loads and uploads afresh and frees what it uploaded."""
    from accy.runtime.emulator.driver import Emulator
    device_type = type("Device", (_Forwarding,), {"__slots__": slots})
    with pytest.raises(TypeError):
        weakref.ref(device_type(None))
    exe, x, (c, d) = _two_constants(rng)
    inner = Emulator()
    device = device_type(inner)
    for _ in range(2):
        np.testing.assert_allclose(exe.run(x, device=device), x * c + d, rtol=1e-6)
        assert inner.memory.buffers == {}
    del exe
    gc.collect()
    assert inner.memory.buffers == {}


def test_a_failed_constant_upload_frees_what_it_allocated(rng):
    from accy.errors import AccyError
    from accy.runtime.emulator.driver import Emulator

    class SecondAllocationFails(Emulator):
        def mem_alloc(self, nbytes):
            if len(self.memory.buffers) == 1:
                raise AccyError("out of device memory")
            return super().mem_alloc(nbytes)
    exe, x, _ = _two_constants(rng)
    device = SecondAllocationFails()
    with pytest.raises(AccyError, match="out of device memory"):
        exe.run(x, device=device)
    assert device.memory.buffers == {}

# ---- loops inside loops: host loops run by the enclosing loop's body ----------------------------

@pytest.mark.parametrize("trips", [(3, 2), (2, 0), (0, 2)])
def test_a_loop_inside_a_loop(trips, rng):
    """The inner loop reads the outer counter and a value the outer body computed, holds a row
    pipeline and a dense constant, and its result is the outer body's yield."""
    def fn(x, n, m):
        def outer(i, c):
            shifted = c * 0.5 + i.astype("f32")
            weights = np.array([1.0, -1.0, 0.5, 2.0, 0.0, 1.0, 3.0, -2.0], np.float32)
            return ops.fori_loop(0, m, lambda j, d: ops.softmax(d + shifted, -1) * weights
                                 + j.astype("f32"), c)
        return ops.fori_loop(0, n, outer, x)
    exe = compiled(fn, [draw(rng, (4, 8)), *(np.asarray(t, np.int32) for t in trips)])
    assert any(k.scope and len(k.scope) == 4 for k in exe.kernels), exe.report()


def test_an_inner_loop_passing_outer_values_on(rng):
    """Three levels deep: the innermost body yields the outer body's argument `b`, which the
    outer body reads again after its inner loops (its binding must outlive them)."""
    def fn(x, n):
        def outer(i, c):
            a, b = c
            t = a + 1.0

            def middle(j, d):
                p, q = d
                return ops.fori_loop(0, 2, lambda k, e: (e[0] * 0.5 + t, b), (p, q))
            p, q = ops.fori_loop(0, n, middle, (a, t))
            return p, q + b
        return ops.fori_loop(0, n, outer, (x, x * 2.0))
    compiled(fn, [draw(rng, (3, 5)), np.asarray(2, np.int32)])


def test_the_report_names_loops_and_fallbacks_at_any_depth(rng):
    """A line per loop, naming the kernels of its own blocks, and the whole scope path of
    each kernel and host fallback (an f64 exp inside the inner loop's body runs on the host)."""
    def fn(x, n):
        def outer(i, c):
            return ops.fori_loop(0, n, lambda j, d: ops.exp(d) * 0.5 + ops.sum(d, -1,
                                                                                keepdims=True),
                                 c * 2.0)
        return ops.fori_loop(0, n, outer, x)
    x, n = draw(rng, (3, 4), "f64") * 0.1, np.asarray(2, np.int32)
    exe = accy.compile(fn, x, n)
    report = exe.report().splitlines()
    loops = [line for line in report if line.startswith("  loop")]
    assert [line.split(":")[0] for line in loops] == [
        "  loop   item 1", "  loop   item 2 (in item 1's body)"], report
    assert "$body$k2$" not in loops[0] and "main$k1$body$k2$body$k0$elementwise" in loops[1]
    (fallback,) = exe.fallbacks
    assert fallback.scope == (1, "body", 2, "body")
    assert f"  host   item {fallback.work_item} (in item 1's body, item 2's body): " \
           f"{fallback.kind}" in "\n".join(report)
    assert "item 0 (in item 1's body, item 2's cond)," in "\n".join(report)
    np.testing.assert_allclose(exe.run(x, n, device="emulator"),
                               exe.run(x, n, device="reference"), rtol=1e-12, atol=1e-12)


def test_a_dense_constant_the_planner_missed_is_an_internal_error(rng, monkeypatch):
    """The elementwise lowering takes a constant as an immediate only when it is a splat: a
    dense one that reached it (here: a planner told every constant is a splat) is an error,
    not its first element everywhere."""
    import accy.lowering.values  # noqa: F401  (its own dense_constant, unpatched)
    import accy.passes.plan_graph as plan_graph
    from accy.errors import AccyError
    c = _mixed("f32", (2, 4), rng)
    monkeypatch.setattr(plan_graph, "dense_constant", lambda op: False)
    with pytest.raises(AccyError, match="internal error: a dense constant"):
        accy.compile(lambda x: x + c, draw(rng, (2, 4)))


def test_folding_never_grows_a_dense_constant(rng):
    """A broadcast bias and an outer product of two constant vectors stay small constant
    buffers read through broadcasts (folded, they were full-shape buffers); a slice of a
    constant, which shrinks it, is still folded."""
    bias, a, b = (_mixed("f32", (n,), rng) for n in (64, 8, 4))

    def fn(x):
        outer = ops.asarray(a)[:, None] * ops.asarray(b)
        return x + bias, x[:8, :4] * outer, x[0, :2] + ops.asarray(b)[1:3]
    exe = compiled(fn, [draw(rng, (64, 64))])
    constants = sorted(s.nbytes for s in exe.program.constants())
    assert constants == [2 * 4, b.nbytes, a.nbytes, bias.nbytes]
