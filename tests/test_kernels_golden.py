"""Golden kl and PTX of a few small kernels, one of each kind of lowering: an elementwise chain,
a row reduction, a softmax row pipeline, a scan with a prologue and an epilogue, a dot_general
and an attention, each compiled by `accy.compile(fn, *args, target="sm_90")`.

Each case's printed kl module (tests/golden/kl/<case>.mlir) and PTX module
(tests/golden/ptx/<case>.ptx) are compared byte for byte with the compiler's; the kl golden
must also parse and print as itself. Every golden PTX is assembled by ptxas for sm_80 and sm_90
(ptxas_check) and its kernels run on the emulator against the reference interpreter.

A golden file only proves that the output did not change: read the diff before regenerating
the files (ACCY_UPDATE_GOLDEN=1, as for tests/golden/plans/).
"""
import functools
import os
import pathlib

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.compiler import compilation
from accy.ir import Context, parse

from ptxas_check import assemble

GOLDEN = pathlib.Path(__file__).parent / "golden"
UPDATE = os.environ.get("ACCY_UPDATE_GOLDEN") == "1"


def f32(*shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# case -> (function, its arguments, the kernels' (kind, schedule), how results compare: "exact"
# (bit for bit) or (rtol, atol) for sums folded in another order than the reference's)
CASES = {
    "elementwise": (lambda x, y: ops.maximum(x * y + x, y - x),
                    (f32(7, 13, seed=1), f32(7, 13, seed=2)),
                    [("elementwise", "vector")], "exact"),
    "row_sum": (lambda x: ops.sum(x, axis=-1), (f32(7, 13, seed=3),),
                [("reduction", "warp per row, registers")], (1e-5, 1e-5)),
    "softmax": (lambda x: ops.softmax(x), (f32(5, 67, seed=4),),
                [("row_pipeline", "warp per row, registers")], (1e-5, 1e-6)),
    "scan": (lambda x: ops.cumsum(ops.exp(x) * 2, axis=1) + 1, (f32(4, 50, seed=5),),
             [("scan", "warp")], (1e-5, 1e-4)),
    "dot_general": (lambda a, b: a @ b, (f32(9, 13, seed=6), f32(13, 6, seed=7)),
                    [("dot_general", "serial")], "exact"),
    "attention": (lambda q, k, v: ops.attention(q, k, v, causal=True),
                  tuple(f32(2, 3, 9, 5, seed=s) for s in (8, 9, 10)),
                  [("flash_attention", "serial")], (1e-6, 1e-6)),    # exp: within 1 ulp
}


@functools.cache
def compiled(case):
    fn, args, _, _ = CASES[case]
    return accy.compile(fn, *args, target="sm_90")


def kl_text(case):
    """The printed kl module of a case's kernels, as the kl stage leaves it (before legalize)."""
    fn, args, _, _ = CASES[case]
    return compilation(fn, *args, target="sm_90", stop="kl").kl.print()


def check_golden(path, text):
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{path} differs"


@pytest.mark.parametrize("case", CASES)
def test_kl_golden(case):
    text = kl_text(case)
    check_golden(GOLDEN / "kl" / f"{case}.mlir", text)
    assert parse(text, Context()).print() == text


@pytest.mark.parametrize("case", CASES)
def test_ptx_golden(case):
    check_golden(GOLDEN / "ptx" / f"{case}.ptx", compiled(case).ptx)


@pytest.mark.parametrize("case", CASES)
def test_golden_ptx_assembles_and_runs(case):
    """The golden PTX itself (the executable's, equal to it) assembles and computes the
    reference's results on the emulator, with the kernels the case names and no fallback."""
    _, args, kernels, compare = CASES[case]
    exe = compiled(case)
    assert exe.ptx == (GOLDEN / "ptx" / f"{case}.ptx").read_text(encoding="utf-8")
    assemble(exe.ptx)
    assert [(k.kind, k.schedule) for k in exe.kernels] == kernels, exe.report()
    assert not exe.fallbacks, exe.report()
    got, want = exe.run(*args, device="emulator"), exe.run(*args, device="reference")
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if compare == "exact":
            np.testing.assert_array_equal(g.reshape(-1).view(np.uint8),
                                          w.reshape(-1).view(np.uint8))
        else:
            rtol, atol = compare
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
