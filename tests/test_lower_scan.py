"""The scan schedules of accy/lowering/scan.py end to end: traced programs compiled with a
target profile that forces each schedule (serial, column, warp, block, lookback), run on the
emulator (outputs poisoned) against the reference interpreter, for running sums, products and
maxima, exclusive and reverse scans, with fused producers and consumers, over dtypes and
shapes (tiny rows, odd lengths, rows over many tiles and many blocks, strided rows, unit dims,
many rows). Each test asserts the schedule that ran, so a silent fallback fails, and every
PTX text goes through ptxas for sm_80 and sm_90 with no spills.

Integer results and maxima must match bit for bit; float sums and products may differ from
the sequential reference by rounding, within a bound that grows with the row's length."""
import math

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.runtime.program import Ref
from accy._core.types import numpy_dtype
from accy.frontend.tensor import Tensor, emitter
from accy.lowering.scan import FLAGS, Workspace
from accy.runtime.emulator.driver import Emulator

from ptxas_check import assemble

DTYPES = ("f32", "f16", "bf16", "i32", "i64")
WIDE = {"f16": "f32", "bf16": "f32"}        # sums and products accumulate in f32, as cumsum does

# name -> (shape, scan axis, threads, elements per thread (None: the default schedule), the
# schedule expected)
LAYOUTS = {
    "serial_length_1": ((6, 1), 1, None, None, "serial"),
    "serial_length_3": ((5, 3), 1, 32, 4, "serial"),
    "warp_length_3": ((5, 3), 1, 32, 1, "warp"),
    "warp": ((3, 37), 1, 32, 2, "warp"),
    "warp_default": ((2, 3, 33), 2, None, None, "warp"),
    "warp_many_tiles": ((264, 70), 1, 32, 1, "warp"),
    "block_length_2": ((4, 2), 1, 64, 1, "block"),
    "block": ((2, 3, 301), 2, 128, 3, "block"),
    "block_many_tiles": ((264, 150), 1, 64, 1, "block"),
    "lookback": ((2, 5000), 1, 64, 3, "lookback"),
    "lookback_warp_blocks": ((1, 5000), 1, 32, 4, "lookback"),
    "lookback_strided": ((1000, 3), 0, 64, 2, "lookback"),
    "lookback_unit_dims": ((1, 777, 1), 1, 64, 4, "lookback"),
    "column": ((40, 33), 0, None, None, "column"),
    "column_middle": ((3, 20, 40), 1, 64, 2, "column"),
}


def scan(x, kind, axis, init, exclusive=False, reverse=False):
    """A tensor.scan of `kind` with its attributes, accumulating f16/bf16 sums and products in
    f32 (as the frontend's cumsum does)."""
    acc = WIDE.get(x.dtype, x.dtype) if kind in ("sum", "prod") else x.dtype
    e = emitter()
    value = e.scan(x.astype(acc).value, e.constant(np.array(init), acc), axis, kind,
                   exclusive=exclusive, reverse=reverse)
    return Tensor(value).astype(x.dtype)


# name -> (fn(x, axis), combine kind for the tolerance)
PROGRAMS = {
    "cumsum": (lambda x, a: ops.cumsum(x, axis=a), "sum"),
    "cumprod": (lambda x, a: ops.cumprod(x, axis=a), "prod"),
    "cummax": (lambda x, a: ops.cummax(x, axis=a), "max"),
    "exclusive_sum": (lambda x, a: scan(x, "sum", a, 2, exclusive=True), "sum"),
    "reverse_max": (lambda x, a: scan(x, "max", a, 0, reverse=True), "max"),
    "exclusive_reverse_fused": (lambda x, a: scan(x * 2 - 1, "sum", a, 1, exclusive=True,
                                                  reverse=True) + x, "sum"),
}


def draw(rng, shape, dtype, kind):
    """Fresh random inputs (never all zeros): products near 1 (floats) or small nonzero
    integers, so long rows neither overflow nor vanish."""
    if dtype.startswith("i"):
        if kind == "prod":
            values = rng.choice(np.array([-3, -2, -1, 1, 2, 3]), shape)
        else:
            values = rng.integers(-1000, 1000, shape)
        return values.astype(numpy_dtype(dtype))
    if kind == "prod":
        return (1 + 0.02 * rng.standard_normal(shape)).astype(numpy_dtype(dtype))
    return (rng.standard_normal(shape) * 3).astype(numpy_dtype(dtype))


def target(length, threads, per_thread):
    if threads is None:
        return None
    return {"scan_schedules": [{"length": length, "dtype": d, "threads": threads,
                                "elements_per_thread": per_thread} for d in DTYPES]}


def compile_scan(fn, x, axis, layout):
    shape, _, threads, per_thread, want = layout
    exe = accy.compile(lambda x: fn(x, axis), x, target=target(shape[axis], threads, per_thread))
    assemble(exe.ptx)
    assert [k.kind for k in exe.kernels] == ["scan"] and not exe.fallbacks, exe.report()
    assert exe.kernels[0].schedule == want, exe.report()
    return exe


def assert_close(got, want, x, axis, kind):
    """Integers and maxima bit for bit; float sums and products (accumulated in f32) within a
    rounding bound: 8 f32 epsilons times sqrt(length) times the largest running sum (or
    product) of magnitudes the row can reach, plus two units of the output's own rounding."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if kind == "max" or got.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
        return
    magnitude = np.abs(x.astype(np.float64))
    reach = np.prod(np.maximum(magnitude, 1), axis=axis, keepdims=True) if kind == "prod" \
        else np.sum(magnitude, axis=axis, keepdims=True) + 3     # + the init's
    out_eps = 2.0 ** -7 if got.dtype == numpy_dtype("bf16") else float(np.finfo(got.dtype).eps)
    want64 = want.astype(np.float64)
    tol = 8 * float(np.finfo(np.float32).eps) * math.sqrt(x.shape[axis]) * reach + \
        2 * out_eps * np.abs(want64)
    err = np.abs(got.astype(np.float64) - want64)
    assert np.all(err <= tol), f"max error {err.max()}, {np.sum(err > tol)} elements over"


def check(layout, program, dtype, rng):
    fn, kind = PROGRAMS[program]
    shape, axis = LAYOUTS[layout][:2]
    x = draw(rng, shape, dtype, kind)
    exe = compile_scan(fn, x, axis, LAYOUTS[layout])
    got, want = exe.run(x, device="emulator"), exe.run(x, device="reference")
    assert_close(got, want, x, axis, kind)
    return exe


# every layout runs every program, the dtype turning with both (each layout sees every dtype)
ROTATED = [(layout, program, DTYPES[(i + j) % len(DTYPES)])
           for i, layout in enumerate(LAYOUTS) for j, program in enumerate(PROGRAMS)]


@pytest.mark.parametrize("layout,program,dtype", ROTATED, ids=["-".join(c) for c in ROTATED])
def test_every_layout_and_program(layout, program, dtype, rng):
    check(layout, program, dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("program", list(PROGRAMS))
@pytest.mark.parametrize("layout", ["warp", "lookback"])
def test_every_dtype_and_program(layout, program, dtype, rng):
    check(layout, program, dtype, rng)


def test_lookback_takes_a_workspace(rng):
    exe = check("lookback", "cumsum", "f32", rng)
    (kernel,) = exe.kernels
    tiles = 2 * -(-5000 // (64 * 3))
    assert kernel.launch.grid == (tiles, 1, 1) and kernel.workspace >= 16 + 12 * tiles


def test_lookback_stops_at_the_nearest_inclusive_prefix(rng):
    """On the emulator every block publishes before any looks back, so each walk reaches its
    row's first tile. This launch starts mid-row from a prepared workspace instead: tiles 0-5
    are done (3 with its inclusive prefix, 4 and 5 with only their aggregates, 0-2 with wrong
    prefixes no walk may reach), the counter at 6; the four blocks, scanning tiles 6-9, must
    stop at tile 3 and fold the aggregates of 4 and 5 onto its prefix."""
    x = draw(rng, (1, 1280), "i32", "sum")
    exe = compile_scan(PROGRAMS["cumsum"][0], x, 1, ((1, 1280), 1, 32, 4, "lookback"))
    (kernel,) = exe.kernels
    ws = Workspace(10, "i32")
    work = np.zeros(ws.bytes // 4, np.int32)
    sums = x.reshape(10, 128).sum(axis=1, dtype=np.int32)
    work[0] = 6
    work[FLAGS:FLAGS + 6] = [2, 2, 2, 2, 1, 1]
    work[ws.aggregates // 4:][4:6] = sums[4:6]
    work[ws.prefixes // 4:][:4] = [10 ** 6] * 3 + [sums[:4].sum(dtype=np.int32)]
    dev = Emulator()
    px, pout, pwork = dev.to_device(x), dev.to_device(np.full_like(x, -1)), dev.to_device(work)
    (launch,) = exe.program.launches()
    kinds = [exe.program.slots[p.slot].kind for p in launch.params if isinstance(p, Ref)]
    assert kinds == ["argument", "result", "scratch"]
    pointers = [px, pout]
    scalars = [np.int64(p) for p in launch.params if isinstance(p, int)]
    dev.module_from_buffer(exe.ptx).get_function(kernel.name)(
        *pointers, *scalars, pwork, block=kernel.launch.block, grid=(4, 1, 1))
    got = dev.from_device(pout, x.shape, x.dtype)
    np.testing.assert_array_equal(got[:, 768:], np.cumsum(x, axis=1, dtype=np.int32)[:, 768:])


def test_every_output_is_written(rng):
    """A scan with two outputs of its shape (one read through a producer again) and a fused
    consumer: the block schedule writes both at every element."""
    def fn(x):
        c = ops.cumsum(ops.exp(x) * 2, axis=1)
        return c, c * x + 1
    x = draw(rng, (3, 200), "f32", "sum")
    exe = accy.compile(fn, x, target=target(200, 128, 2))
    assemble(exe.ptx)
    assert [k.schedule for k in exe.kernels] == ["block"], exe.report()
    for got, want in zip(exe.run(x, device="emulator"), exe.run(x, device="reference")):
        assert_close(got, want, np.exp(x) * 2, 1, "sum")


def test_a_body_not_known_to_be_associative_stays_serial(rng):
    """logcumsumexp's body (max + log1p(exp(min - max))) is not reassociated: the serial
    schedule runs it, as the reference does but for exp's 1 ulp at each of the 40 steps."""
    x = draw(rng, (3, 40), "f32", "sum")
    exe = accy.compile(lambda x: ops.logcumsumexp(x, axis=1), x, target=target(40, 32, 1))
    assemble(exe.ptx)
    assert [k.schedule for k in exe.kernels] == ["serial"], exe.report()
    np.testing.assert_allclose(exe.run(x, device="emulator"), exe.run(x, device="reference"),
                               rtol=2e-5, atol=1e-6)


# The vector path: a thread's E consecutive elements move as one kl.vload / kl.vstore when the
# row is contiguous and holds whole vectors. name -> (layout as in LAYOUTS, dtype, the PTX
# vector access expected (None: none may appear))
VECTOR = {
    "f32_warp": (((5, 120), 1, 32, 4, "warp"), "f32", "v4.f32"),
    "f32_block_partial_tile": (((3, 200), 1, 64, 4, "block"), "f32", "v4.f32"),
    "f32_lookback": (((2, 1000), 1, 64, 4, "lookback"), "f32", "v4.f32"),
    "f32_unit_dims": (((3, 200, 1), 1, 64, 4, "block"), "f32", "v4.f32"),
    "f32_warp_many_tiles": (((264, 136), 1, 32, 4, "warp"), "f32", "v4.f32"),
    "f32_pairs": (((4, 62), 1, 32, 2, "warp"), "f32", "v2.f32"),
    "f16_warp": (((4, 200), 1, 32, 8, "warp"), "f16", "v4.b32"),
    "bf16_block": (((3, 100), 1, 64, 4, "block"), "bf16", "v4.b16"),
    "bf16_lookback": (((1, 2048), 1, 32, 8, "lookback"), "bf16", "v4.b32"),
    "i64_warp": (((5, 62), 1, 32, 2, "warp"), "i64", "v2.b64"),
    "i64_lookback": (((1, 3000), 1, 64, 2, "lookback"), "i64", "v2.b64"),
    "f32_row_not_whole_vectors": (((5, 126), 1, 32, 4, "warp"), "f32", None),
    "f16_row_not_whole_vectors": (((3, 204), 1, 64, 8, "block"), "f16", None),
    "i64_odd_row": (((1, 3001), 1, 64, 2, "lookback"), "i64", None),
    "f32_strided_rows": (((40, 4), 0, 32, 4, "warp"), "f32", None),
    "f32_e3": (((4, 95), 1, 32, 3, "warp"), "f32", None),
}
VECTOR_CASES = [(name, program) for name in VECTOR
                for program in ("cumsum", "cummax", "exclusive_reverse_fused")]


@pytest.mark.parametrize("name,program", VECTOR_CASES, ids=["-".join(c) for c in VECTOR_CASES])
def test_vector_loads_and_stores(name, program, rng):
    layout, dtype, access = VECTOR[name]
    fn, kind = PROGRAMS[program]
    shape, axis = layout[:2]
    x = draw(rng, shape, dtype, kind)
    exe = compile_scan(fn, x, axis, layout)
    if access is None:
        assert "ld.global.v" not in exe.ptx and "st.global.v" not in exe.ptx
    else:
        assert f"ld.global.{access}" in exe.ptx and f"st.global.{access}" in exe.ptx
    assert_close(exe.run(x, device="emulator"), exe.run(x, device="reference"), x, axis, kind)


def test_vector_loads_only_reads_at_the_position(rng):
    """A producer reading a row broadcast along the rows: x moves as vectors, the broadcast
    operand stays scalar (and a consumer reads x again from the vector)."""
    def fn(x, y):
        c = ops.cumsum(x * y, axis=1)
        return c, c + x
    x, y = draw(rng, (6, 256), "f32", "sum"), draw(rng, (1, 256), "f32", "sum")
    exe = accy.compile(fn, x, y, target=target(256, 64, 4))
    assemble(exe.ptx)
    assert [k.schedule for k in exe.kernels] == ["block"], exe.report()
    assert exe.ptx.count("ld.global.v4.f32") == 1 and exe.ptx.count("st.global.v4.f32") == 2
    assert "ld.global.f32" in exe.ptx
    for got, want in zip(exe.run(x, y, device="emulator"), exe.run(x, y, device="reference")):
        assert_close(got, want, x * y, 1, "sum")
