"""Compiled executables on a real GPU (device "cuda", tests marked `gpu`, skipped cleanly where
no CUDA device is usable) against the reference interpreter, on fresh random inputs with
dtype-appropriate tolerances: every reference graph of `accy/examples/graphs.py` and a few
single-kind programs. The same bodies run on the emulator (small shapes), so they are checked
everywhere; the GPU runs them at shapes that span many blocks. Also: the cubin artifact on the
device, `Executable.bind` (launching again on resident buffers), and the dry run of
bench/gpu/check.py."""
import importlib.util
import os

import ml_dtypes  # noqa: F401  (bf16 arrays)
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy._core.types import numpy_dtype
from accy.examples.graphs import GRAPHS
from accy.lowering.ptxas import find_ptxas

DEVICES = [pytest.param("cuda", marks=pytest.mark.gpu), "emulator"]
TOLERANCE = {"f32": 2e-5, "f16": 2e-3, "bf16": 2e-2}


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


def draw(rng, shape, dtype, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(numpy_dtype(dtype))


def compare(exe, args, device, dtype="f32"):
    got, want = exe.run(*args, device=device), exe.run(*args, device="reference")
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    tol = TOLERANCE[dtype]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        # absolute error relative to the output's scale: a sum folded in another order (a
        # parallel schedule) differs by rounding of its partial sums, not of its result
        scale = max(1.0, float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)))
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, err_msg=exe.report())
    return got


def arguments(module, rng):
    """Fresh inputs for a traced module's function: floats ~N(0, 0.5²), a loop count of 3."""
    (func,) = [op for op in module.body if op.name == "builtin.func"]
    out = []
    for a in func.regions[0].blocks[0].arguments:
        t = a.type
        out.append(np.asarray(3, np.int32) if t.dtype == "i32" else draw(rng, t.shape, t.dtype,
                                                                          0.5))
    return out


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_reference_graphs(name, device, rng):
    module = GRAPHS[name](small=True)
    exe = accy.compile(module)
    compare(exe, arguments(module, rng), device)


# rows, cols: small on the emulator; on a GPU many blocks, ragged edges, a grid-stride loop
def shape(device):
    return (5, 37) if device == "emulator" else (1031, 1537)


PROGRAMS = {
    "chain": (lambda x, y, z: ops.tanh(x * y + z) + ops.exp(z * 0.5) * x, 3),
    "softmax": (lambda x: ops.softmax(x), 1),
    "layer_norm": (lambda x, w, b: ops.layer_norm(x, w, b), "norm"),
    "rms_norm": (lambda x, w: ops.rms_norm(x, w), "norm"),
    "row_sum": (lambda x: ops.sum(x, axis=-1), 1),
    "column_sum": (lambda x: ops.sum(x, axis=0), 1),
    "cumsum": (lambda x: ops.cumsum(x, axis=1), 1),
    "transpose": (lambda x: ops.transpose(x) * 2, 1),
}


def program_args(name, rows, cols, dtype, rng):
    fn, arity = PROGRAMS[name]
    if arity == "norm":
        arity = fn.__code__.co_argcount
        return [draw(rng, (rows, cols), dtype)] + [draw(rng, (cols,), dtype)
                                                   for _ in range(arity - 1)]
    return [draw(rng, (rows, cols), dtype) for _ in range(arity)]


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_elementwise_chain(dtype, device, rng):
    args = program_args("chain", *shape(device), dtype, rng)
    exe = accy.compile(PROGRAMS["chain"][0], *args)
    assert [k.kind for k in exe.kernels] == ["elementwise"]
    compare(exe, args, device, dtype)


@pytest.mark.parametrize("name", [n for n in PROGRAMS if n != "chain"])
def test_single_kind_programs(name, device, rng):
    args = program_args(name, *shape(device), "f32", rng)
    exe = accy.compile(PROGRAMS[name][0], *args)
    assert not exe.fallbacks, exe.report()
    compare(exe, args, device)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_matmul(dtype, device, rng):
    m, k, n = (4, 9, 6) if device == "emulator" else (129, 257, 65)
    a, b = draw(rng, (m, k), dtype), draw(rng, (k, n), dtype)
    exe = accy.compile(lambda a, b: a @ b, a, b)
    assert [x.kind for x in exe.kernels] == ["dot_general"]
    compare(exe, [a, b], device, dtype)


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
def test_the_cubin_artifact_runs(device, rng):
    """With artifact_format = cubin a GPU of the target's arch loads ptxas's cubin (the
    emulator keeps running the PTX)."""
    args = program_args("softmax", *shape(device), "f32", rng)
    exe = accy.compile(PROGRAMS["softmax"][0], *args, target={"artifact_format": "cubin"})
    assert exe.cubin.startswith(b"\x7fELF")
    compare(exe, args, device)


def test_bind_launches_again_on_resident_buffers(device, rng):
    x, y = (draw(rng, shape(device), "f32") for _ in range(2))
    exe = accy.compile(lambda x, y: ops.softmax(x * y) + ops.sum(y, axis=-1, keepdims=True),
                       x, y)
    want = exe.run(x, y, device="reference")
    with exe.bind(x, y, device=device) as bound:
        assert bound.argument_address(0) and bound.result_address(0)
        for _ in range(2):
            bound.launch()
            # the row sum (of ~1500 elements here) folds in another order than the reference's
            scale = float(np.max(np.abs(want)))
            np.testing.assert_allclose(bound.results(), want, rtol=2e-5, atol=2e-5 * scale)


def _check_module():
    path = os.path.join(os.path.dirname(__file__), "..", "bench", "gpu", "check.py")
    spec = importlib.util.spec_from_file_location("gpu_check", path)
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    return check


def test_check_dry_run(capsys):
    """bench/gpu/check.py --dry-run builds every executable it times, at small sizes, and runs
    each on the emulator against the reference."""
    check = _check_module()
    assert check.main(["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert all(case.name in out for case in check.CASES) and "FAILED" not in out


def test_check_dry_run_tunes_matrix_products_and_attention(capsys):
    """--tune adds each matrix product under every schedule of TUNE and each attention under
    every one of TUNE_ATTENTION, as generated schedules; each takes the tensor cores and
    matches the reference."""
    check = _check_module()
    assert check.main(["--dry-run", "--tune", "--only", "matmul f16", "attention d64"]) == 0
    out = capsys.readouterr().out
    tuned = [line for line in out.splitlines() if " stages]" in line]
    assert len(tuned) == len(check.TUNE) and "FAILED" not in out
    assert all("dot_general:mma" in line for line in tuned)
    tuned = [line for line in out.splitlines() if " keys]" in line]
    assert len(tuned) == len(check.TUNE_ATTENTION)
    assert all("flash_attention:flash" in line for line in tuned)
