"""Helpers for tests that compile functions with `accy.compile`: random inputs of any dtype
(`draw`) and `check`, which compiles, assembles the PTX with ptxas and compares the emulator's
results with the reference interpreter's."""
import ml_dtypes  # noqa: F401  (bf16 arrays)
import numpy as np

import accy
from accy._core.types import numpy_dtype

from ptxas_check import assemble


def draw(rng, shape, dtype):
    if dtype in ("f32", "f16", "bf16", "f64"):
        return (rng.standard_normal(shape) * 3).astype(numpy_dtype(dtype))
    if dtype == "i1":
        return rng.random(shape) < 0.5
    info = np.iinfo(numpy_dtype(dtype))
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape,
                        dtype=numpy_dtype(dtype))


def check(fn, arrays, exact=True, kinds=None, rtol=1e-5, atol=1e-6):
    exe = accy.compile(fn, *arrays)
    assemble(exe.ptx)
    if kinds is not None:
        assert sorted(k.kind for k in exe.kernels) == sorted(kinds), exe.report()
    got = exe.run(*arrays, device="emulator")
    want = exe.run(*arrays, device="reference")
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if exact:
            raw = (lambda a: a.reshape(-1).view(np.uint8) if a.dtype.kind != "f" else a)
            np.testing.assert_array_equal(raw(g), raw(w))
        else:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                       rtol=rtol, atol=atol)
    return exe
