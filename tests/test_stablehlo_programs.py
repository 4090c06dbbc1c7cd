"""Every program of the StableHLO corpus (tests/stablehlo/) imported by accy.stablehlo from both
text forms (the same module from each), run on the reference against JAX's outputs, then
compiled and run on the emulator with no host fallbacks; and the pretty-form samples
(tests/stablehlo_pretty/) import from both forms alike or are refused alike."""
import pathlib
import re

import numpy as np
import pytest

import accy
from accy import stablehlo
from accy.reference import run

from stablehlo_cases import load_case, names

# Largest |accy - jax| / (1 + |jax|) per output dtype: JAX's CPU kernels and accy's round each op
# once but may order a reduction or evaluate a transcendental differently.
TOLERANCE = {np.dtype(np.float32): 3e-6, np.dtype(np.float16): 2e-3, np.dtype(np.float64): 1e-12}
BF16_TOLERANCE = 1.6e-2


def _match(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    tol = TOLERANCE.get(want.dtype, BF16_TOLERANCE)
    g, w = got.astype(np.float64), want.astype(np.float64)
    assert np.array_equal(np.isnan(g), np.isnan(w)), what
    ok = ~np.isnan(w)
    assert np.array_equal(np.isinf(g[ok]) * np.sign(g[ok]), np.isinf(w[ok]) * np.sign(w[ok])), what
    finite = ok & np.isfinite(w)
    worst = np.max(np.abs(g[finite] - w[finite]) / (1 + np.abs(w[finite])), initial=0.0)
    assert worst <= tol, f"{what}: {worst:.2e} > {tol:.0e}"


def _outputs(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


@pytest.mark.parametrize("name", names())
def test_corpus_program_matches_jax(name):
    case = load_case(name)
    module = stablehlo.load(case.generic)
    assert stablehlo.load(case.pretty).fingerprint() == module.fingerprint()
    got = _outputs(run(module, *case.inputs))
    assert len(got) == len(case.outputs)
    for k, (g, w) in enumerate(zip(got, case.outputs, strict=True)):
        _match(g, w, f"{name} reference out{k}")
    exe = accy.compile(module)
    assert not exe.fallbacks, [str(f) for f in exe.fallbacks]
    for k, (g, w) in enumerate(zip(_outputs(exe.run(*case.inputs, device="emulator")),
                                   case.outputs, strict=True)):
        _match(g, w, f"{name} emulator out{k}")


SAMPLES = pathlib.Path(__file__).parent / "stablehlo_pretty"


def _imported(text):
    try:
        return stablehlo.load(text).fingerprint()
    except accy.AccyError as e:        # the same refusal, each naming its own text's lines
        return type(e).__name__, re.sub(r"line \d+", "line N", getattr(e, "message", str(e)))


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.generic.mlir")), ids=lambda p: p.name)
def test_pretty_samples_import_as_their_generic_form(path):
    pretty = path.with_name(path.name.replace(".generic.mlir", ".mlir")).read_text()
    assert _imported(pretty) == _imported(path.read_text())
