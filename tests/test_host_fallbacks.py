"""Programs that used to lose a work item to the host: a rank-0 value beside a reduction or row
pipeline, dense constants, loops inside loops. Each compiles to kernels only (no host
fallback under the exact tier, and it compiles under the fast tier), its PTX assembles, and
the emulator's results match the reference interpreter on fresh random inputs."""
import ml_dtypes  # noqa: F401  (bf16 arrays)
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy._core.types import numpy_dtype

from ptxas_check import assemble

FAST = {"math_tier": "fast"}


def draw(rng, shape, dtype="f32"):
    if dtype in ("f32", "f16", "bf16", "f64"):
        return (rng.standard_normal(shape) * 2).astype(numpy_dtype(dtype))
    if dtype == "i1":
        return rng.random(shape) < 0.5
    return rng.integers(-50, 50, shape, dtype=numpy_dtype(dtype))


def compiled(fn, args, rtol=1e-5, atol=1e-5):
    """`fn` compiled under both tiers: kernels only, PTX assembled, the emulator's results
    those of the reference (floats within rtol/atol, others exactly). The exact tier's
    executable."""
    exe = accy.compile(fn, *args)
    assert not exe.fallbacks, exe.report()
    fast = accy.compile(fn, *args, target=FAST)
    for e in (exe, fast):
        assemble(e.ptx)
        got = e.run(*args, device="emulator")
        want = e.run(*args, device="reference")
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            if g.dtype.kind == "f" or g.dtype == ml_dtypes.bfloat16:
                np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                           rtol=rtol, atol=atol)
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
