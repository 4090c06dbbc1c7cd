"""The throughput schedules of elementwise and shape work items (accy/lowering/elementwise.py):
`vector` (128-bit loads and stores at the item's own position, scalar lanes for the rest, a
scalar tail), `tiled_transpose` (32 x 32 tiles through shared memory) and `serial` (1-byte
dtypes only); gathers addressed through their loaded indices. Every case goes through
`accy.compile`, runs on the emulator (outputs and arena poisoned, misaligned accesses fault)
and must match the reference bit for bit: these kinds never reassociate (a chain through an
f32 transcendental: within its ulp bound). Each kernel must
report the schedule the case expects (a silent fallback fails), and every PTX text assembles
with ptxas for sm_80 and sm_90 without spills."""
import ml_dtypes  # noqa: F401  (bf16 arrays)
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.runtime.program import Ref
from accy._core.types import numpy_dtype
from accy.ir import parse

from tensor_helpers import assert_close_ulp

FLOATS = ("f32", "f16", "bf16", "f64")
WIDE = FLOATS + ("i32", "i64", "i16")


def draw(rng, shape, dtype):
    """Fresh random values, never zero (a zero could hide an element no thread wrote)."""
    if dtype in FLOATS:
        x = rng.standard_normal(shape) * 3
        return np.where(np.abs(x) < 0.1, 0.5, x).astype(numpy_dtype(dtype))
    if dtype == "i1":
        return rng.random(shape) < 0.5
    low = 1 if dtype == "u8" else -100
    x = rng.integers(low, 100, shape)
    return np.where(x == 0, 7, x).astype(numpy_dtype(dtype))


def bits(a):
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def check(fn, args, schedules, ptxas, ulps=0):
    """Compile `fn` (or a module), check the kernels' schedules, assemble the PTX and compare
    the emulator with the reference bit for bit (within `ulps` of it: a chain through an f32
    transcendental)."""
    exe = accy.compile(fn, *args) if callable(fn) else accy.compile(fn)
    assert not exe.fallbacks, exe.report()
    assert [k.schedule for k in exe.kernels] == schedules, exe.report()
    ptxas(exe.ptx)
    got, want = exe.run(*args, device="emulator"), exe.run(*args, device="reference")
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if ulps:
            assert_close_ulp(g, w.astype(np.float64), str(g.dtype).replace("float", "f"), ulps)
        else:
            np.testing.assert_array_equal(bits(g), bits(w))
    return exe


# ---- vector -----------------------------------------------------------------------------------

SIZES = [1, 3, 37, 1000, 2051]      # 1000: whole vectors, not whole blocks; 2051: odd


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", WIDE)
def test_vector_schedule_per_dtype_and_size(dtype, size, rng, ptxas):
    x, y = draw(rng, (size,), dtype), draw(rng, (size,), dtype)
    exe = check(lambda x, y: ops.maximum(x * y - x, y), [x, y], ["vector"], ptxas)
    width = 16 // numpy_dtype(dtype).itemsize
    assert (f".v{min(width, 4)}." in exe.ptx) == (size >= width)   # (8 halves: 4 words)
    assert exe.kernels[0].launch.grid == (-(-size // (256 * width)), 1, 1)


@pytest.mark.parametrize("dtype", ["i8", "u8", "i1"])
def test_one_byte_dtypes_stay_serial(dtype, rng, ptxas):
    x, y = draw(rng, (37,), dtype), draw(rng, (37,), dtype)
    fn = (lambda x, y: x ^ y) if dtype == "i1" else (lambda x, y: x * y + x)
    check(fn, [x, y], ["serial"], ptxas)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (37, 29), (16, 64)], ids=str)
@pytest.mark.parametrize("dtype", ["f32", "bf16", "i64"])
def test_broadcasts_are_scalar_lanes_beside_vectors(dtype, shape, rng, ptxas):
    """A row, a column and a scalar broadcast: loaded per lane, the rest as vectors."""
    rows, cols = shape
    args = [draw(rng, shape, dtype), draw(rng, (cols,), dtype), draw(rng, (rows, 1), dtype),
            draw(rng, (), dtype)]
    check(lambda x, r, c, s: (x * r + c) * s - x, args, ["vector"], ptxas)


@pytest.mark.parametrize("size", [3, 37, 1001])
@pytest.mark.parametrize("ins,out", [("f16", "f32"), ("f32", "f16"), ("bf16", "f64"),
                                     ("i8", "f32"), ("f32", "i1"), ("i32", "i64"),
                                     ("f64", "bf16")])
def test_mixed_input_and_output_dtypes(ins, out, size, rng, ptxas):
    """The width follows the widest vectored access; 1-byte accesses are scalar lanes."""
    x, y = draw(rng, (size,), ins), draw(rng, (size,), ins)
    if out == "i1":
        fn = lambda x, y: x < y          # noqa: E731
    else:
        fn = lambda x, y: (x * y).astype(out) + x.astype(out)   # noqa: E731
    check(fn, [x, y], ["vector"], ptxas)


@pytest.mark.parametrize("dtype,size", [("f32", 1001), ("f16", 37), ("i64", 5)])
def test_in_place_output_of_a_donated_argument(dtype, size, rng, ptxas):
    x, y = draw(rng, (size,), dtype), draw(rng, (size,), dtype)
    module = accy.jit(lambda x, y: x * 3 + y).lower(x, y)
    next(iter(module.body)).set_attribute("accy.donate", (0,))
    exe = check(module, [x, y], ["vector"], ptxas)
    program = exe.program
    assert program.results[0].ref == Ref(program.arguments[0]), program.text()  # in place


def test_loop_kernels_read_and_write_buffers_at_arena_offsets(rng, ptxas):
    """An iterate's state buffers (37 f16 each) lie at 256-byte offsets of the arena."""
    x, y = draw(rng, (37,), "f16"), draw(rng, (37,), "f16")
    exe = check(lambda x, y: ops.fori_loop(0, 3, lambda i, v: v * 0.5 + y, x) * 3 - x,
                [x, y], ["vector"] * 6, ptxas)
    arena = exe.program.slot("arena").id
    assert any(isinstance(p, Ref) and p.slot == arena and p.offset
               for launch in exe.program.launches() for p in launch.params), exe.program.text()


# ---- tiled transpose --------------------------------------------------------------------------

@pytest.mark.parametrize("shape,schedule", [
    ((33, 65), "tiled_transpose"), ((64, 32), "tiled_transpose"), ((5, 9), "tiled_transpose"),
    ((1, 1), "vector"), ((1, 100), "vector"), ((100, 1), "vector"),    # nothing moves across
], ids=str)
@pytest.mark.parametrize("dtype", ["f32", "f16", "f64"])
def test_two_dim_transpose_with_fused_elementwise(shape, schedule, dtype, rng,
                                                  ptxas):
    x, b = draw(rng, shape, dtype), draw(rng, shape[:1], dtype)
    check(lambda x, b: ops.transpose(x) * 2 + b, [x, b], [schedule], ptxas)


@pytest.mark.parametrize("shape,perm", [((3, 33, 17), (0, 2, 1)), ((2, 1, 40, 3), (0, 1, 3, 2)),
                                        ((4, 5, 6), (2, 1, 0)), ((2, 70, 3, 35), (0, 3, 2, 1))],
                         ids=str)
def test_batched_transpose(shape, perm, rng, ptxas):
    x = draw(rng, shape, "f32")
    out = tuple(shape[p] for p in perm)
    r = draw(rng, out[-1:], "f32")
    # tanh within 1 ulp, times r: within 2 ulp of the reference's product
    check(lambda x, r: ops.tanh(ops.transpose(x, perm)) * r, [x, r], ["tiled_transpose"],
          ptxas, ulps=2)


def test_transpose_of_bools_and_several_transposed_inputs(rng, ptxas):
    """i1 is staged as u8; two transposed inputs share the tiles' walk."""
    m, x, y = draw(rng, (40, 9), "i1"), draw(rng, (40, 9), "bf16"), draw(rng, (9, 40), "bf16")
    check(lambda m, x, y: (ops.where(ops.transpose(m), ops.transpose(x), y),
                           ops.logical_not(ops.transpose(m))), [m, x, y],
          ["tiled_transpose"], ptxas)


# ---- gather -----------------------------------------------------------------------------------

@pytest.mark.parametrize("idx_dtype", ["i32", "i64", "i8"])
def test_take_with_indices_in_and_out_of_range(idx_dtype, rng, ptxas):
    """numpy's negative indices wrap once; what is still out of range clamps."""
    x = draw(rng, (7, 9), "f32")
    i = rng.integers(-20, 20, (5, 3)).astype(numpy_dtype(idx_dtype))
    check(lambda x, i: ops.take(x, i, axis=1) * 2, [x, i], ["vector"], ptxas)
    j = rng.integers(-9, 9, (4,)).astype(numpy_dtype(idx_dtype))
    check(lambda x, j: ops.take(x, j, axis=0) - x[0], [x, j], ["vector"], ptxas)


def test_take_along_axis_with_fused_producers(rng, ptxas):
    x = draw(rng, (7, 9), "f16")
    j = rng.integers(-30, 30, (7, 4)).astype(np.int64)
    check(lambda x, j: ops.take_along_axis(-x, j, axis=1) + 1, [x, j], ["vector"], ptxas)


def gather_module(x_type, idx_type, axis, mode):
    """A raw tensor.gather (no wraparound in front): every out-of-range index clamps."""
    x_shape, dtype = x_type
    i_shape, i_dtype = idx_type
    out = (x_shape[:axis] + i_shape + x_shape[axis + 1:]) if mode == "take" else i_shape

    def t(shape, d):
        return f"tensor<{''.join(f'{n}x' for n in shape)}{d}>"
    x, i, y = t(x_shape, dtype), t(i_shape, i_dtype), t(out, dtype)
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = ({x}, {i}) -> {y}, sym_name = "main"}}> ({{
  ^bb0(%0: {x}, %1: {i}):
    %2 = tensor.gather %0, %1 <{{axis = {axis}, mode = "{mode}"}}> : {y}
    builtin.return %2
  }})
}})""")


@pytest.mark.parametrize("mode,x_shape,i_shape,axis", [
    ("take", (6, 5), (3, 4), 0), ("take", (6, 5), (7,), 1), ("take", (6, 5), (), 1),
    ("along_axis", (6, 5), (6, 8), 1), ("along_axis", (6, 5), (3, 5), 0)], ids=str)
@pytest.mark.parametrize("i_dtype", ["i8", "u8", "i64"])
def test_raw_gather_clamps_like_the_reference(mode, x_shape, i_shape, axis, i_dtype, rng,
                                              ptxas):
    low, high = (0, 255) if i_dtype == "u8" else (-128, 127)
    i = rng.integers(low, high, i_shape).astype(numpy_dtype(i_dtype))
    i.reshape(-1)[:2] = [1, 2][:i.size]      # some in range
    x = draw(rng, x_shape, "f32")
    check(gather_module((x_shape, "f32"), (i_shape, i_dtype), axis, mode), [x, i], ["vector"],
          ptxas)


# ---- pad, concatenate, slice, reverse -----------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f32", "f16", "i64"])
def test_concatenate_pad_slice_reverse_as_index_maps(dtype, rng, ptxas):
    x, y = draw(rng, (3, 37), dtype), draw(rng, (4, 37), dtype)
    z = draw(rng, (7, 5), dtype)
    check(lambda x, y: ops.concatenate([x, y], axis=0)[::-1] + 1, [x, y], ["vector"], ptxas)
    w = draw(rng, (7, 37), dtype)       # read at the output's own position: vectors
    exe = check(lambda x, y, w: ops.concatenate([x, y], axis=0) * w, [x, y, w], ["vector"],
                ptxas)
    assert ".global.v" in exe.ptx
    check(lambda x, y, z: ops.concatenate([ops.concatenate([x, y], axis=0), z], axis=1),
          [x, y, z], ["vector"], ptxas)
    check(lambda x: ops.pad(x[:, 1:-2:3], ((1, 2), (3, 0)), constant_values=5) * 2, [x],
          ["vector"], ptxas)
    check(lambda x: x[1:, 2:] - x[:-1, :-2][:, ::-1], [x], ["vector"], ptxas)


def _lane_invariant_row_chain(x, s):
    # a value every vector lane reads at one index (a row of a broadcast reshape), 80+ ops
    row = ops.broadcast_to(ops.reshape(ops.reshape(s, (6,)), (6, 1)), (6, 8))[2]
    y = x
    for _ in range(40):
        y = y * row + x
    return y


def _softmax_of_chain(x):
    y = x
    for _ in range(30):
        y = ops.tanh(y) * 0.5 + y
    return ops.softmax(y)


def _gathered_chain(x, p):
    y = x
    for _ in range(40):
        y = ops.take(y * 0.5 + x, p)
    return y


@pytest.mark.parametrize("fn, shapes", [
    (_lane_invariant_row_chain, [(64, 8), (2, 3)]),
    (_softmax_of_chain, [(5, 67)]),
    (_gathered_chain, [(64,), None]),
], ids=["lane_invariant", "softmax", "gather"])
def test_leaves_first_lowering_writes_what_recursion_writes(fn, shapes, rng, monkeypatch):
    """A large item's operands are lowered leaves first (values.DEEP_ITEM_OPS); forced on
    every item, the PTX is the recursion's, byte for byte."""
    from accy.lowering import values
    args = [rng.standard_normal(s).astype(np.float32) if s is not None
            else rng.permutation(64).astype(np.int32) for s in shapes]
    ptx = {}
    for deep in (10 ** 9, 0):
        monkeypatch.setattr(values, "DEEP_ITEM_OPS", deep)
        ptx[deep] = accy.compile(fn, *args, target={"arch": "sm_80"}, cache=False).ptx
    assert ptx[0] == ptx[10 ** 9]


def test_a_chain_too_deep_for_one_kernel_runs_on_the_host(rng):
    # take() chains read the gathered operand by recursion: past Python's limit the item is
    # a host fallback saying why, not a failed compile
    def chain(x, p):
        y = x
        for _ in range(600):
            y = ops.take(y * 0.5 + x, p)
        return y
    x = rng.standard_normal(64).astype(np.float32)
    p = rng.permutation(64).astype(np.int32)
    exe = accy.compile(chain, x, p, target={"arch": "sm_80"}, cache=False)
    assert [f.reason for f in exe.fallbacks] and \
        all("nest too deep" in f.reason for f in exe.fallbacks), exe.report()
    np.testing.assert_allclose(exe.run(x, p, device="emulator").astype(np.float64),
                               exe.run(x, p, device="reference").astype(np.float64),
                               rtol=1e-6, atol=1e-6)
