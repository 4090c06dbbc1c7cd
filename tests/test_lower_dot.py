"""dot_general lowering (accy/lowering/dot.py): the tensor-core path ("mma" schedule: cp.async
pipeline, ldmatrix, mma.sync m16n8k16, fused epilogue) on f16/bf16 operands, plain, batched and
with either operand transposed, at shapes that are not multiples of the tiles, against numpy's
float64 matmul within f32 accumulation error; split-K ("mma split-k") for few tiles over a long
K; f32 operands under the fast tier ("mma tf32": m16n8k8 on tf32-rounded operands, within
tf32 rounding error); the FMA path ("serial") for what the tensor cores do not take. Kernels run on the CPU emulator over fresh random inputs; every PTX text goes
through ptxas for sm_80 and sm_90 with no register spills."""
from dataclasses import replace

import ml_dtypes
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.frontend.linalg import einsum
from accy.lowering import dot as dot_lowering
from accy.passes import target as target_module
from ptxas_check import assemble
from tensor_helpers import assert_within, f64

NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}
UNIT = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8, "f32": 2.0 ** -24}     # unit roundoff


def draw(rng, shape, dtype, scale=1.0):
    """Fresh normal values (never zero) rounded to `dtype`."""
    return (rng.standard_normal(shape) * scale).astype(NP[dtype])


def compile_and_run(fn, args, schedule, target=None):
    """Compile `fn` (for `target`), check its dot_general kernel's schedule and its PTX, run
    it on the emulator; returns (result, executable)."""
    exe = accy.compile(fn, *args, target=target)
    assemble(exe.ptx)
    dots = [k for k in exe.kernels if k.kind == "dot_general"]
    assert [k.schedule for k in dots] == [schedule], exe.report()
    assert not exe.fallbacks
    return exe.run(*args, device="emulator"), exe


def dot_error_bound(spec, a, b, k):
    """How far an f32 sum of the k products (each exact) may be from the exact dot: k units
    of f32 roundoff times the sum of |products| (slack for any summation order)."""
    return k * 2.0 ** -23 * np.einsum(spec, np.abs(f64(a)), np.abs(f64(b)))


# ---- plain, batched, transposed; edges ------------------------------------------------------

# name: (einsum spec, lhs shape, rhs shape); M x N x K in the name
MMA_CASES = {
    "plain_1x1x16": ("ik,kj->ij", (1, 16), (16, 1)),
    "plain_128x64x96": ("ik,kj->ij", (128, 96), (96, 64)),
    "rhs_t_17x9x24": ("ik,jk->ij", (17, 24), (9, 24)),
    "rhs_t_65x130x40": ("ik,jk->ij", (65, 40), (130, 40)),
    "lhs_t_128x64x96": ("ki,kj->ij", (96, 128), (96, 64)),
    "both_t_24x40x8": ("ki,jk->ij", (8, 24), (40, 8)),
    "batched_3x33x40x160": ("bik,bkj->bij", (3, 33, 160), (3, 160, 40)),
    "batch_inside_2x17x9x16": ("ibk,bjk->bij", (17, 2, 16), (2, 9, 16)),
}


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("case", sorted(MMA_CASES))
def test_tensor_cores_match_numpy(case, dtype, rng):
    spec, lhs_shape, rhs_shape = MMA_CASES[case]
    a, b = draw(rng, lhs_shape, dtype), draw(rng, rhs_shape, dtype)
    got, _ = compile_and_run(lambda x, y: einsum(spec, x, y), [a, b], "mma")
    want = np.einsum(spec, f64(a), f64(b))
    k = lhs_shape[spec.index("k")]
    assert got.dtype == NP[dtype] and got.shape == want.shape
    bound = UNIT[dtype] * np.abs(want) + dot_error_bound(spec, a, b, k)
    assert_within(got, want, bound, case)


def test_a_transposed_operand_written_with_ops_takes_the_tensor_cores(rng):
    """`q @ k.T` through accy.ops: the transpose is folded into the dot's dimension numbers
    (canonicalize), so k is read K-major as it lies, on the tensor cores."""
    q, k = draw(rng, (2, 40, 64), "bf16"), draw(rng, (2, 24, 64), "bf16")
    got, exe = compile_and_run(lambda x, y: x @ ops.transpose(y, (0, 2, 1)), [q, k], "mma")
    assert len(exe.kernels) == 1
    spec = "bik,bjk->bij"
    want = np.einsum(spec, f64(q), f64(k))
    assert_within(got, want, UNIT["bf16"] * np.abs(want) + dot_error_bound(spec, q, k, 64))


# ---- memory transactions (the emulator's counters) -------------------------------------------

def memory_traffic(fn, args):
    """{(space, opcode): (wavefronts or sectors taken, fewest possible)} of the one kernel of
    `fn` on `args`, counted by the emulator."""
    from accy.runtime.emulator.driver import Emulator
    exe = accy.compile(fn, *args)
    device = Emulator(counters=True)
    exe.run(*args, device=device)
    ((_, stats),) = device.launches
    out = {}
    for (space, text), t in stats.memory.by_instruction.items():
        key = (space, text.split()[0])
        actual, ideal = out.get(key, (0, 0))
        out[key] = (actual + t.actual, ideal + t.ideal)
    return out, exe


# operand layouts at sizes whose rows start on 32-byte sectors (else a row's first and last
# sectors are shared with its neighbours': an excess no kernel could avoid)
TRAFFIC_CASES = {"plain": ("ik,kj->ij", (128, 96), (96, 64)),
                 "rhs_t": ("ik,jk->ij", (128, 96), (64, 96)),
                 "lhs_t": ("ki,kj->ij", (96, 128), (96, 64))}


@pytest.mark.parametrize("bk", [32, 64])
@pytest.mark.parametrize("tiles", ["SMALL", "MEDIUM", "LARGE"])
@pytest.mark.parametrize("case", sorted(TRAFFIC_CASES))
def test_tensor_core_memory_traffic(tiles, case, bk, rng, monkeypatch):
    """Every shared-memory access of the tensor-core kernel is free of bank conflicts (the
    operand swizzle for cp.async and ldmatrix, the staging swizzle for the accumulators
    written as pairs and read back 8 floats a lane), and every global access takes the fewest
    32-byte sectors (coalesced), in each tile configuration, operand layout and stage depth
    (64-deep K-major rows are 8 chunks: the full 3-bit swizzle)."""
    config = getattr(dot_lowering, tiles)       # as shipped; 64-deep stages two at a time
    config = config if bk == 32 else replace(config, bk=bk, stages=2)
    monkeypatch.setattr(dot_lowering, "_tiles", lambda m, n, batch, sms: config)
    spec, lhs_shape, rhs_shape = TRAFFIC_CASES[case]
    a, b = draw(rng, lhs_shape, "bf16"), draw(rng, rhs_shape, "bf16")
    traffic, exe = memory_traffic(lambda x, y: einsum(spec, x, y), [a, b])
    assert exe.kernels[0].schedule == "mma"
    # the stages it was asked for (so a 64-deep request is not quietly run 32 deep)
    stages = exe.kernels[0].launch.shared_bytes // ((config.bm + config.bn) * bk * 2)
    assert stages == config.stages, (stages, config)
    opcodes = {op for _, op in traffic}
    assert {"cp.async.cg.shared.global", "st.shared.v2.f32", "ld.shared.v4.f32",
            "st.global.v4.b32"} <= opcodes, traffic
    assert any(op.startswith("ldmatrix") for op in opcodes), traffic
    for (space, op), (actual, ideal) in traffic.items():
        assert actual == ideal, (space, op, actual, ideal)


# ---- fused epilogues -------------------------------------------------------------------------

def _gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


# name: (traced function, numpy float64 function of (dot, bias, residual), result dtype given
# the operand dtype)
EPILOGUES = {
    "bias_tanh": (lambda x, w, b, r: ops.tanh(x @ w + b),
                  lambda d, b, r: np.tanh(d + b), lambda dt: dt),
    "bias_gelu": (lambda x, w, b, r: ops.gelu(x @ w + b, approximate=True),
                  lambda d, b, r: _gelu(d + b), lambda dt: dt),
    "scaled_residual": (lambda x, w, b, r: (x @ w) * 0.5 + r,
                        lambda d, b, r: d * 0.5 + r, lambda dt: dt),
    "convert": (lambda x, w, b, r: ops.astype(x @ w + b, "f16" if x.dtype == "bf16" else "f32"),
                lambda d, b, r: d + b, lambda dt: "f16" if dt == "bf16" else "f32"),
}


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("case", sorted(EPILOGUES))
def test_fused_epilogues(case, dtype, rng):
    """One kernel computes the dot and its epilogue (M 33, N 24, K 40: edge tiles on both
    sides). Each op of the epilogue rounds to the dtype, so the bound allows a few units of
    roundoff of every term on top of the dot's own error."""
    fn, numpy_fn, result = EPILOGUES[case]
    m, n, k = 33, 24, 40
    x, w = draw(rng, (m, k), dtype, k ** -0.5), draw(rng, (k, n), dtype)
    b, r = draw(rng, (n,), dtype), draw(rng, (m, n), dtype)
    got, exe = compile_and_run(fn, [x, w, b, r], "mma")
    assert len(exe.kernels) == 1, exe.report()
    d = f64(x) @ f64(w)
    want = numpy_fn(d, f64(b), f64(r))
    out = result(dtype)
    assert got.dtype == NP[out] and got.shape == want.shape
    unit = max(UNIT[out], UNIT[dtype])
    bound = 6 * unit * (np.abs(d) + np.abs(f64(b)) + np.abs(f64(r)) + 1) + \
        2 * dot_error_bound("ik,kj->ij", x, w, k)
    assert_within(got, want, bound, case)


@pytest.mark.parametrize("n", [24, 26])
def test_an_epilogue_with_outputs_of_two_widths(n, rng):
    """One kernel writes the biased dot (bf16) and its tanh in f32: 4 columns a thread (16
    bytes of f32, 8 of bf16) when N is a multiple of 4, one at a time otherwise (w is N x K,
    read K-major, so any N takes the tensor cores)."""
    def fn(x, w, b):
        y = x @ ops.transpose(w, (1, 0)) + b
        return y, ops.astype(ops.tanh(y), "f32")
    x, w, b = draw(rng, (33, 40), "bf16", 40 ** -0.5), draw(rng, (n, 40), "bf16"), \
        draw(rng, (n,), "bf16")
    (y, t), exe = compile_and_run(fn, [x, w, b], "mma")
    assert len(exe.kernels) == 1, exe.report()
    assert ("st.global.v4.f32" in exe.ptx) == (n % 4 == 0)
    d = f64(x) @ f64(w).T + f64(b)
    bound = 4 * UNIT["bf16"] * (np.abs(d) + 1) + 2 * dot_error_bound("ik,jk->ij", x, w, 40)
    assert y.dtype == NP["bf16"] and t.dtype == np.float32
    assert_within(y, d, bound, "dot + bias")
    assert_within(t, np.tanh(d), bound, "tanh")


def test_large_tiles_stage_results_in_two_bands(rng, monkeypatch):
    """With enough blocks to fill the GPU the kernel takes 128 x 256 tiles of 8 warps and
    three stages in dynamic shared memory; its epilogue stages the results in two bands of 64
    rows (the pipeline's memory holds one). The grid runs over the tiles in ctaid.x."""
    facts = target_module.ARCH_FACTS["sm_90"]          # the default target's
    monkeypatch.setitem(target_module.ARCH_FACTS, "sm_90", replace(facts, sms=1))
    x, w = draw(rng, (130, 40), "bf16"), draw(rng, (40, 136), "bf16")
    r = draw(rng, (130, 136), "bf16")
    got, exe = compile_and_run(lambda x, w, r: x @ w + r, [x, w, r], "mma")
    (kernel,) = exe.kernels
    assert kernel.launch.block == (256, 1, 1) and kernel.launch.grid == (2, 1, 1)
    assert kernel.launch.shared_bytes == 3 * (128 + 256) * 32 * 2
    d = f64(x) @ f64(w)
    want = d + f64(r)
    bound = 3 * UNIT["bf16"] * (np.abs(d) + np.abs(f64(r))) + \
        dot_error_bound("ik,kj->ij", x, w, 40)
    assert_within(got, want, bound, "large tiles")


# name: (einsum spec, lhs shape, rhs shape): edges past every tile size, K past a stage
# (72: a partial last stage) or short of the pipeline (40: stages zero-filled past K); plain
# stages A K-major and B free-major, `ki,jk` the other way round
TILE_CASES = {
    "plain_130x264x72": ("ik,kj->ij", (130, 72), (72, 264)),
    "transposed_136x200x40": ("ki,jk->ij", (40, 136), (200, 40)),
    "batched_2x72x136x40": ("bik,bkj->bij", (2, 72, 40), (2, 40, 136)),
}


@pytest.mark.parametrize("tiles", ["SMALL", "MEDIUM", "LARGE"])
@pytest.mark.parametrize("case", sorted(TILE_CASES))
def test_each_tile_configuration(tiles, case, rng, monkeypatch):
    """Every tile configuration, forced, on edge tiles of both operand layouts (the swizzled
    rows of 4 chunks when K-major, of 8 to 32 when free-major) and batched: the launch it was
    written for, the result within f32 accumulation error."""
    config = getattr(dot_lowering, tiles)
    monkeypatch.setattr(dot_lowering, "_tiles", lambda m, n, batch, sms: config)
    spec, lhs_shape, rhs_shape = TILE_CASES[case]
    a, b = draw(rng, lhs_shape, "bf16"), draw(rng, rhs_shape, "bf16")
    got, exe = compile_and_run(lambda x, y: einsum(spec, x, y), [a, b], "mma")
    (kernel,) = exe.kernels
    want = np.einsum(spec, f64(a), f64(b))
    m, n = want.shape[-2:]
    assert kernel.launch.block == (config.threads, 1, 1)
    assert kernel.launch.grid == (-(-m // config.bm) * -(-n // config.bn), 1,
                                  want.size // (m * n))
    bound = UNIT["bf16"] * np.abs(want) + dot_error_bound(spec, a, b, lhs_shape[spec.index("k")])
    assert_within(got, want, bound, f"{tiles} {case}")


def test_tiles_by_problem_size():
    """The largest tiles whose blocks fill the GPU's SMs: 128 x 256 for big products, 128 x
    128 when those would leave SMs idle, 64 x 64 for small ones (the default target's 132)."""
    def tiles(m, n, batch):
        return dot_lowering._tiles(m, n, batch, target_module.ARCH_FACTS["sm_90"].sms)
    assert tiles(4096, 4096, 1) is dot_lowering.LARGE
    assert tiles(65536, 256, 1) is dot_lowering.LARGE
    assert tiles(2048, 2048, 1) is dot_lowering.MEDIUM
    assert tiles(512, 512, 1) is dot_lowering.SMALL
    assert tiles(1024, 1024, 32) is dot_lowering.LARGE


def _dot_schedule(m, n, k, dtype, tile_m, tile_n, stages, splits, arch="sm_90", tile_k=32):
    return {"arch": arch, "dot_schedules": [{"m": m, "n": n, "k": k, "dtype": dtype,
                                             "tile_m": tile_m, "tile_n": tile_n,
                                             "tile_k": tile_k, "stages": stages,
                                             "splits": splits}]}


@pytest.mark.parametrize("tile_m,tile_n,tile_k,stages,splits,schedule", [
    (128, 256, 32, 4, 1, "mma"),        # more stages than the default's 3
    (64, 64, 32, 2, 1, "mma"),
    (128, 128, 32, 3, 3, "mma split-k"),    # split-K where the default would not split
    (128, 256, 64, 3, 1, "mma"),        # 64-deep stages
    (64, 64, 64, 4, 2, "mma split-k"),
])
def test_a_generated_dot_schedule_sets_tiles_stages_and_slices(tile_m, tile_n, tile_k, stages,
                                                               splits, schedule, rng):
    """The target's generated schedule for the dot's M, N, K and dtype decides its tiles,
    stage depth, pipeline stages and K slices (the launch shows them), and the result is the
    same dot."""
    a, b = draw(rng, (2, 130, 200), "bf16"), draw(rng, (2, 200, 72), "bf16")
    target = _dot_schedule(130, 72, 200, "bf16", tile_m, tile_n, stages, splits,
                           tile_k=tile_k)
    got, exe = compile_and_run(lambda x, y: x @ y, [a, b], schedule, target=target)
    (kernel,) = exe.kernels
    tiles = -(-130 // tile_m) * -(-72 // tile_n)
    assert kernel.launch.grid == (tiles, splits, 2)
    assert kernel.launch.block == (32 * (8 if tile_n == 256 else 4), 1, 1)
    assert kernel.launch.shared_bytes >= (tile_m + tile_n) * tile_k * 2 * stages
    spec = "bik,bkj->bij"
    want = np.einsum(spec, f64(a), f64(b))
    assert_within(got, want, UNIT["bf16"] * np.abs(want) + dot_error_bound(spec, a, b, 200))
    # another shape of the same module keeps the default rule
    other = accy.compile(lambda x, y: x @ y, a[:, :, :192], b[:, :192], target=target)
    assert other.kernels[0].launch.grid[1] == 1 and other.kernels[0].launch.block == (128, 1, 1)


def test_a_generated_split_must_give_that_many_slices(rng):
    """K = 96 in 32-deep stages makes 1, 2 or 3 slices, never 4: asking for 4 is an error
    naming the schedule rather than a kernel that runs another split than asked."""
    a, b = draw(rng, (64, 96), "bf16"), draw(rng, (96, 64), "bf16")
    with pytest.raises(accy.AccyError, match=r"K = 96 cannot be cut into 4 slices of whole "
                                             r"32-deep stages \(slices of 32 give 3\)"):
        accy.compile(lambda x, y: x @ y, a, b,
                     target=_dot_schedule(64, 64, 96, "bf16", 64, 64, 3, 4))
    got, exe = compile_and_run(lambda x, y: x @ y, [a, b], "mma split-k",
                               target=_dot_schedule(64, 64, 96, "bf16", 64, 64, 3, 3))
    assert exe.kernels[0].launch.grid == (1, 3, 1)
    want = f64(a) @ f64(b)
    assert_within(got, want, UNIT["bf16"] * np.abs(want) + dot_error_bound("ik,kj->ij", a, b,
                                                                            96))


def test_a_generated_dot_schedule_must_fit_shared_memory(rng):
    """8 stages of 128 x 256 bf16 tiles (192 KiB) fit an sm_90's shared memory, not an
    sm_86's: an error naming the schedule (a TargetError, from the dot's plan when the outline
    is made), at compile time."""
    a, b = draw(rng, (256, 64), "bf16"), draw(rng, (64, 256), "bf16")
    accy.compile(lambda x, y: x @ y, a, b, target=_dot_schedule(256, 256, 64, "bf16", 128, 256,
                                                                 8, 1))
    with pytest.raises(accy.AccyError, match=r"TargetError: accy.target.dot_schedules entry "
                                             r"for 256 x 256 x 64 bf16: 8 stages .* sm_86 "
                                             r"allows 99 KiB"):
        accy.compile(lambda x, y: x @ y, a, b, target=_dot_schedule(256, 256, 64, "bf16", 128,
                                                                     256, 8, 1, arch="sm_86"))


# ---- split-K ---------------------------------------------------------------------------------

# name: (einsum spec, lhs shape, rhs shape, K slices): few tiles over a long K, with edges in M,
# N and K (a short last slice, a slice ending inside a stage) and both staging layouts
SPLIT_CASES = {
    "plain_40x72x1000": ("ik,kj->ij", (40, 1000), (1000, 72), 7),
    "rhs_t_17x9x296": ("ik,jk->ij", (17, 296), (9, 296), 2),
    "lhs_t_72x24x392": ("ki,kj->ij", (392, 72), (392, 24), 3),
    "batched_2x33x40x520": ("bik,bkj->bij", (2, 33, 520), (2, 520, 40), 4),
}


@pytest.mark.parametrize("dtype", ["bf16", "f16"])
@pytest.mark.parametrize("case", sorted(SPLIT_CASES))
def test_split_k(case, dtype, rng):
    """Too few tiles to fill the GPU over a long K: the blocks of a tile each multiply a slice
    of K, and the last to finish sums the f32 partials (in slice order) and computes the fused
    epilogue (a bias and tanh), within f32 accumulation error plus the epilogue's roundoff."""
    spec, lhs_shape, rhs_shape, splits = SPLIT_CASES[case]
    k = lhs_shape[spec.index("k")]
    a, w = draw(rng, lhs_shape, dtype, k ** -0.5), draw(rng, rhs_shape, dtype)
    n = rhs_shape[spec.split("->")[0].split(",")[1].index("j")]
    bias = draw(rng, (n,), dtype)
    got, exe = compile_and_run(lambda x, y, b: ops.tanh(einsum(spec, x, y) + b),
                               [a, w, bias], "mma split-k")
    (kernel,) = exe.kernels
    assert kernel.launch.grid[1] == splits and kernel.workspace > 0, exe.report()
    d = np.einsum(spec, f64(a), f64(w))
    want = np.tanh(d + f64(bias))
    assert got.dtype == NP[dtype] and got.shape == want.shape
    bound = 6 * UNIT[dtype] * (np.abs(d) + np.abs(f64(bias)) + 1) + \
        2 * dot_error_bound(spec, a, w, k)
    assert_within(got, want, bound, case)


def test_split_k_slices():
    """K is split only when the tiles (over every batch entry) leave SMs idle and K holds at
    least two slices of MIN_SLICE: into as many slices as bring the blocks to SMS or just past
    it, each a whole number of stages."""
    sms, bk = target_module.ARCH_FACTS["sm_90"].sms, dot_lowering.BK

    def depth(blocks, k):
        return dot_lowering._slice_depth(blocks, k, sms)
    assert depth(sms, 8192) == 8192                         # the tiles fill the GPU
    assert depth(2, 2 * dot_lowering.MIN_SLICE - 8) == 2 * dot_lowering.MIN_SLICE - 8
    for blocks, k in ((16, 8192), (1, 4096), (100, 4096), (3, 1000)):
        d = depth(blocks, k)
        splits = -(-k // d)
        assert d % bk == 0 and d >= dot_lowering.MIN_SLICE and splits >= 2
        assert blocks * splits < 2 * sms and (blocks * splits >= sms or
                                              splits == k // dot_lowering.MIN_SLICE)


# ---- tf32: f32 operands under the fast tier --------------------------------------------------

FAST = {"math_tier": "fast"}


def tf32(x):
    """f32 `x` rounded to tf32 as cvt.rna does (10 mantissa bits, ties away from zero)."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    return ((bits + np.uint32(1 << 12)) & np.uint32(0xFFFFE000)).view(np.float32)


def tf32_error_bound(spec, a, b, k):
    """How far the kernel's dot may be from numpy's on the unrounded f32 operands: each
    operand rounded to tf32 is off by at most 2^-11 relative, so a product by at most
    2^-10 (plus 2^-22), bounded by 2^-9 of |a| |b|; then the f32 sum's error."""
    return 2.0 ** -9 * np.einsum(spec, np.abs(f64(a)), np.abs(f64(b))) + \
        dot_error_bound(spec, a, b, k)


def assert_tf32_dot(got, spec, a, b, what, bias=0.0):
    """`got` (the dot plus `bias`, rounded to f32) within f32 accumulation error of the exact
    dot of the tf32-rounded operands (so they were rounded, not truncated), and within
    `tf32_error_bound` of the dot of the f32 operands; plus the f32 roundings of the sum."""
    k = a.shape[spec.split(",")[0].index("k")]
    ra, rb = tf32(a), tf32(b)
    for exact, bound, name in (
            (np.einsum(spec, f64(ra), f64(rb)), dot_error_bound(spec, ra, rb, k), "rounded"),
            (np.einsum(spec, f64(a), f64(b)), tf32_error_bound(spec, a, b, k), "f32")):
        assert_within(got, exact + bias, bound + 2.0 ** -23 * (np.abs(exact) + np.abs(bias)),
                     f"{what} ({name} operands)")


# name: (einsum spec, lhs shape, rhs shape); K-major operands need K % 4 == 0 (4 f32 make one
# 16-byte chunk), free-major ones their free extent % 4, and then any K works (zero-filled
# past K): free_major has K = 10
TF32_CASES = {
    "plain_33x24x40": ("ik,kj->ij", (33, 40), (40, 24)),
    "k_not_8_16x20x12": ("ik,kj->ij", (16, 12), (12, 20)),
    "rhs_t_17x9x24": ("ik,jk->ij", (17, 24), (9, 24)),
    "lhs_t_68x72x72": ("ki,kj->ij", (72, 68), (72, 72)),
    "both_t_20x44x12": ("ki,jk->ij", (12, 20), (44, 12)),
    "free_major_20x44x10": ("ki,kj->ij", (10, 20), (10, 44)),
    "batched_2x20x12x36": ("bik,bkj->bij", (2, 20, 36), (2, 36, 12)),
}


@pytest.mark.parametrize("case", sorted(TF32_CASES))
def test_tf32_tensor_cores_under_the_fast_tier(case, rng):
    """f32 operands under the fast tier: mma m16n8k8 on tf32-rounded operands, f32 results
    within `tf32_error_bound` of numpy's f64 dot of the f32 operands."""
    spec, lhs_shape, rhs_shape = TF32_CASES[case]
    a, b = draw(rng, lhs_shape, "f32"), draw(rng, rhs_shape, "f32")
    got, exe = compile_and_run(lambda x, y: einsum(spec, x, y), [a, b], "mma tf32", FAST)
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in exe.ptx
    assert got.dtype == np.float32
    assert_tf32_dot(got, spec, a, b, case)


@pytest.mark.parametrize("tiles", ["SMALL", "MEDIUM", "LARGE"])
def test_tf32_each_tile_configuration(tiles, rng, monkeypatch):
    """Every tile configuration on f32 stages, forced, with a bias epilogue: stages within
    STAGE_BUDGET (LARGE keeps 2, MEDIUM 3), a free-major rhs whose rows of 32 and 64 chunks
    take the copy loop's two swizzle phases."""
    config = getattr(dot_lowering, tiles)
    monkeypatch.setattr(dot_lowering, "_tiles", lambda m, n, batch, sms: config)
    x, w, bias = draw(rng, (70, 40), "f32"), draw(rng, (40, 132), "f32"), draw(rng, (132,), "f32")
    got, exe = compile_and_run(lambda x, w, b: x @ w + b, [x, w, bias], "mma tf32", FAST)
    (kernel,) = exe.kernels
    stages = {"SMALL": 3, "MEDIUM": 3, "LARGE": 2}[tiles]
    assert kernel.launch.block == (config.threads, 1, 1)
    assert kernel.launch.shared_bytes == stages * (config.bm + config.bn) * 32 * 4
    assert_tf32_dot(got, "ik,kj->ij", x, w, tiles, f64(bias))


def test_tf32_split_k(rng):
    """Few tiles over a long K split K on the tf32 path as on the 16-bit one."""
    x, w = draw(rng, (40, 1000), "f32", 1000 ** -0.5), draw(rng, (1000, 72), "f32")
    got, exe = compile_and_run(lambda x, w: x @ w, [x, w], "mma tf32 split-k", FAST)
    assert exe.kernels[0].launch.grid[1] == 7
    assert_tf32_dot(got, "ik,kj->ij", x, w, "split-k")


@pytest.mark.parametrize("tier,shapes,schedule", [
    ("exact", [(16, 32), (32, 16)], "serial"),      # tf32 only where the tier allows it
    ("fast", [(16, 10), (10, 16)], "serial"),       # K-major rows of 10 f32: unaligned
    ("fast", [(16, 32), (32, 18)], "serial"),       # K x N rows of 18 f32: unaligned
])
def test_tf32_only_under_the_fast_tier_on_aligned_rows(tier, shapes, schedule, rng):
    args = [draw(rng, s, "f32") for s in shapes]
    got, exe = compile_and_run(lambda a, b: a @ b, args, schedule, {"math_tier": tier})
    np.testing.assert_allclose(got, f64(args[0]) @ f64(args[1]), rtol=1e-4, atol=1e-4)


# ---- the FMA path ------------------------------------------------------------------------------

FMA_CASES = {   # name: (function, shapes, dtype)
    "rhs_rows_unaligned_17x9x24": (lambda a, b: a @ b, [(17, 24), (24, 9)], "bf16"),
    "k_unaligned_16x16x12": (lambda a, b: a @ b, [(16, 12), (12, 16)], "f16"),
    "f32": (lambda a, b: a @ b, [(16, 32), (32, 16)], "f32"),
    "converted_operand": (lambda a, b: ops.astype(a, "bf16") @ b, [(16, 32), (32, 16)],
                          "bf16"),
}


@pytest.mark.parametrize("case", sorted(FMA_CASES))
def test_the_rest_takes_the_fma_path(case, rng):
    """Unaligned rows, f32 and operands computed inside the item stay on the FMA path, which
    matches the reference bit for bit under the exact tier."""
    fn, shapes, dtype = FMA_CASES[case]
    args = [draw(rng, s, dtype) for s in shapes]
    if case == "converted_operand":
        args[0] = draw(rng, shapes[0], "f32")
    got, exe = compile_and_run(fn, args, "serial")
    want = exe.run(*args, device="reference")
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def _dot_accumulating_in(dtype):
    """x @ y as a tensor.dot_general with an f32 result whose accumulation_type is `dtype`."""
    from accy.frontend.tensor import Tensor, emitter
    from accy.ir import TensorType

    def fn(x, y):
        return Tensor(emitter().op(
            "tensor.dot_general", x.value, y.value, lhs_batching_dimensions=(),
            rhs_batching_dimensions=(), lhs_contracting_dimensions=(1,),
            rhs_contracting_dimensions=(0,), accumulation_type=dtype,
            result_type=TensorType("f32", (x.shape[0], y.shape[1]))))
    return fn


@pytest.mark.parametrize("accumulation,schedule", [("f16", "mma"), ("f64", "serial")])
def test_the_accumulation_type_rounds_the_sum(accumulation, schedule, rng):
    """f16 operands, an f32 result: the sum is rounded to the op's accumulation type first,
    on both paths (an f16 accumulation gives f16 values); an f64 accumulation keeps the FMA
    path and its f64 sums."""
    x, y = draw(rng, (24, 32), "f16"), draw(rng, (32, 16), "f16")
    got, exe = compile_and_run(_dot_accumulating_in(accumulation), [x, y], schedule)
    want = exe.run(x, y, device="reference")
    assert got.dtype == np.float32
    if schedule == "serial":
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
        return
    np.testing.assert_array_equal(got.astype(np.float16).astype(np.float32), got)
    # both round a sum to f16, ours an f32 one: near a midpoint they may take the two sides,
    # one f16 ulp (2u relative) apart
    bound = 2 * UNIT["f16"] * np.abs(f64(want)) + dot_error_bound("ik,kj->ij", x, y, 32)
    assert_within(got, f64(want), bound, accumulation)
