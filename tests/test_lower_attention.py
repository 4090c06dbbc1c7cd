"""Attention lowering (accy/lowering/attention.py): the flash kernel ("flash" schedule: Q in
mma fragments, K/V tiles through a cp.async double buffer, S = Q·Kᵀ and P·V on mma.sync,
an online softmax in f32) for f16/bf16 with head dims 64 and 128, on the composite
`ops.attention` and on the decomposed pattern raised into one (never a host
fallback), causal, not, or with an additive mask, at sequence lengths that are not
multiples of the tiles; the thread-per-row kernel ("serial") for the rest. Results are
compared with numpy's float64 softmax(q·kᵀ·scale + mask)·v within the error of f16/bf16
probabilities and f32 sums (the serial kernel's also with the reference interpreter's, bit
for bit); every PTX text goes through ptxas for sm_80 and sm_90 with no register spills.
Inputs are fresh normal values, never zeros."""
import math

import ml_dtypes
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.frontend.trace import signature, trace
from accy.passes import PassManager

from ptxas_check import assemble
from tensor_helpers import assert_within, f64

NP = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}
UNIT = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8, "f32": 2.0 ** -24}     # unit roundoff


def draw(rng, shape, dtype):
    """Fresh normal values (never zero) rounded to `dtype`."""
    return rng.standard_normal(shape).astype(NP[dtype])


def reference(q, k, v, scale, mask=None, causal=False, score_dtype=None):
    """softmax(q·kᵀ·scale + mask)·v in float64 (the dot rounded to `score_dtype` first when
    the program rounds it), and P·|v|, the scale of the error of rounded probabilities."""
    s = np.einsum("...id,...jd->...ij", f64(q), f64(k))
    if score_dtype is not None:
        s = f64(s.astype(NP[score_dtype]))
    s = s * scale
    if mask is not None:
        s = s + f64(mask)
    if causal:
        i, j = np.indices(s.shape[-2:])
        s = np.where(j > i, -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return p @ f64(v), p @ np.abs(f64(v))


def assert_close(got, q, k, v, scale, dtype, **kw):
    """`got` is the attention within the error of probabilities rounded to `dtype` (and of
    scores from f32 sums of d products, each exact), of f32 sums over the keys, and of the
    result's rounding to `dtype`."""
    want, weight = reference(q, k, v, scale, **kw)
    u, d, sk = UNIT[dtype], q.shape[-1], k.shape[-2]
    score = d * 2.0 ** -23 * scale * np.einsum("...id,...jd->...ij", np.abs(f64(q)),
                                               np.abs(f64(k))).max(-1, keepdims=True)
    if kw.get("score_dtype"):       # the dot rounded to that dtype: one rounding either way
        score += UNIT[kw["score_dtype"]] * scale * np.abs(
            np.einsum("...id,...jd->...ij", f64(q), f64(k))).max(-1, keepdims=True)
    bound = 2 * ((u + 2 * score + sk * 2.0 ** -23) * weight + u * np.abs(want)) + 1e-6
    assert_within(got, want, bound)


def assert_like_the_reference(got, want, v):
    """The serial path computes in the reference's order and dtypes: its bits, except that an
    f32 exp is within 1 ulp (f16's is correctly rounded), which moves each weight by a few
    units of f32 roundoff and the result by as many times max |v|."""
    if got.dtype != np.float32:
        np.testing.assert_array_equal(got, want)
        return
    assert_within(got, f64(want), 8 * 2.0 ** -24 * np.abs(f64(v)).max())


def decomposed(fn, args):
    """The module of `fn` with its attention composite replaced by the primitive ops it
    means (the decompose-attention pass): the pattern `raise-attention` raises back into one
    attention, a flash_attention item."""
    module, _ = trace(fn, [signature(a) for a in args])
    PassManager("decompose-attention").run(module)
    return module


def one(result):
    return result[0] if isinstance(result, tuple) else result


def compile_and_run(program, args, schedule):
    """Compile, check the attention kernel's schedule, that nothing runs on the host and the
    PTX; the result on the emulator, and the executable."""
    exe = accy.compile(program, *args)
    assemble(exe.ptx)
    attention = [k for k in exe.kernels if k.kind == "flash_attention"]
    assert [k.schedule for k in attention] == [schedule], exe.report()
    assert exe.fallbacks == (), exe.report()
    return one(exe.run(*args, device="emulator")), exe


# ---- the flash path -------------------------------------------------------------------------

# (form, mask, batch, heads, seq_q, seq_k, head dim, dtype): every sequence length with each
# mask, both head dims and dtypes, both forms; a few with seq_q != seq_k
FLASH_CASES = [
    ("composite", "none", 1, 1, 1, 1, 64, "f16"),
    ("decomposed", "causal", 1, 2, 17, 17, 128, "bf16"),
    ("composite", "additive", 2, 1, 64, 64, 64, "bf16"),
    ("decomposed", "none", 1, 1, 100, 100, 128, "f16"),
    ("composite", "causal", 1, 1, 130, 130, 64, "f16"),
    ("decomposed", "additive", 1, 1, 130, 130, 128, "bf16"),
    ("composite", "causal", 1, 2, 100, 100, 128, "bf16"),
    ("decomposed", "causal", 1, 1, 64, 64, 64, "f16"),
    ("composite", "none", 1, 1, 17, 130, 128, "f16"),
    ("composite", "causal", 1, 1, 17, 100, 64, "f16"),
    ("decomposed", "causal", 1, 1, 130, 64, 64, "bf16"),
    ("composite", "additive", 1, 1, 1, 130, 128, "f16"),
    ("decomposed", "none", 2, 1, 64, 17, 64, "bf16"),
    ("decomposed", "additive", 1, 2, 17, 100, 64, "f16"),
    ("composite", "causal", 1, 1, 1, 1, 128, "bf16"),
]


@pytest.mark.parametrize("form,mask,b,h,sq,sk,d,dtype", FLASH_CASES,
                         ids=["-".join(map(str, c)) for c in FLASH_CASES])
def test_flash_matches_numpy(form, mask, b, h, sq, sk, d, dtype, rng):
    q, k, v = draw(rng, (b, h, sq, d), dtype), draw(rng, (b, h, sk, d), dtype), \
        draw(rng, (b, h, sk, d), dtype)
    args = [q, k, v]
    if mask == "additive":
        args.append(rng.standard_normal((h, sq, sk)).astype(np.float32))
    causal = mask == "causal"

    def fn(q, k, v, *m):
        return ops.attention(q, k, v, mask=m[0] if m else None, causal=causal)
    program = decomposed(fn, args) if form == "decomposed" else fn
    got, _ = compile_and_run(program, args, "flash")
    assert got.dtype == NP[dtype] and got.shape == q.shape
    assert_close(got, q, k, v, 1 / math.sqrt(d), dtype, causal=causal,
                 mask=args[3] if mask == "additive" else None)


def _attention_schedule(seq_q, seq_k, d, block_q, block_k, dtype="bf16"):
    return {"attention_schedules": [{"seq_q": seq_q, "seq_k": seq_k, "head_dim": d,
                                     "dtype": dtype, "block_q": block_q, "block_k": block_k}]}


@pytest.mark.parametrize("d,causal,block_q,block_k", [
    (64, False, 64, 64), (128, True, 64, 64),          # the default blocks
    (64, True, 128, 64), (128, False, 128, 64), (64, False, 64, 32), (128, True, 64, 32)])
def test_flash_memory_traffic(d, causal, block_q, block_k, rng):
    """The flash kernel's ldmatrix and cp.async are free of shared-memory bank conflicts (the
    padded rows) and its K/V/Q copies take the fewest 32-byte sectors, with the default
    blocks and a generated schedule's. Known excess: the result goes out as pairs of 16-bit
    values, 16 bytes of each row per instruction, so each 32-byte sector is written by two
    instructions (asserted as such, so a change shows)."""
    from accy.runtime.emulator.driver import Emulator
    q, k, v = (draw(rng, (1, 1, 128, d), "bf16") for _ in range(3))
    exe = accy.compile(lambda q, k, v: ops.attention(q, k, v, causal=causal), q, k, v,
                       target=_attention_schedule(128, 128, d, block_q, block_k))
    launch = exe.kernels[0].launch
    assert launch.block == (2 * block_q, 1, 1) and launch.grid == (128 // block_q, 1, 1)
    # two stages of K and V tiles: static shared memory up to 48 KB, else dynamic (the
    # launch asks for it)
    stages = 2 * 2 * 2 * block_k * (d + 8)
    assert launch.shared_bytes == (0 if stages <= 48 * 1024 else stages)
    device = Emulator(counters=True)
    got = exe.run(q, k, v, device=device)
    assert_close(one(got), q, k, v, 1 / math.sqrt(d), "bf16", causal=causal)
    ((_, stats),) = device.launches
    seen = set()
    for (space, text), t in stats.memory.by_instruction.items():
        op = text.split()[0]
        seen.add(op)
        if (space, op) == ("global", "st.global.v2.b16"):
            assert t.actual == 2 * t.ideal, (text, t)
        else:
            assert t.actual == t.ideal, (space, text, t)
    assert {"cp.async.cg.shared.global", "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "st.global.v2.b16"} <= seen


@pytest.mark.parametrize("form,mask,sq,sk,d,block_q,block_k", [
    ("composite", "causal", 200, 200, 64, 128, 64),
    ("composite", "none", 130, 70, 128, 128, 64),
    ("decomposed", "additive", 100, 130, 64, 64, 32),
    ("decomposed", "causal", 150, 150, 128, 128, 64),
])
def test_a_generated_attention_schedule_sets_the_blocks(form, mask, sq, sk, d, block_q,
                                                        block_k, rng):
    """The target's generated schedule for the sequence lengths, head dim and dtype decides
    the query rows of a block (16 a warp) and the keys of a tile; the result is the same
    attention, at lengths that are not multiples of either."""
    q, k, v = draw(rng, (1, 2, sq, d), "bf16"), draw(rng, (1, 2, sk, d), "bf16"), \
        draw(rng, (1, 2, sk, d), "bf16")
    args = [q, k, v]
    if mask == "additive":
        args.append(rng.standard_normal((2, sq, sk)).astype(np.float32))
    causal = mask == "causal"

    def fn(q, k, v, *m):
        return ops.attention(q, k, v, mask=m[0] if m else None, causal=causal)
    program = decomposed(fn, args) if form == "decomposed" else fn
    exe = accy.compile(program, *args, target=_attention_schedule(sq, sk, d, block_q, block_k))
    assemble(exe.ptx)
    (kernel,) = [k for k in exe.kernels if k.kind == "flash_attention"]
    assert kernel.schedule == "flash" and kernel.launch.block == (2 * block_q, 1, 1)
    assert kernel.launch.grid[:2] == (-(-sq // block_q), 2)
    got = one(exe.run(*args, device="emulator"))
    assert_close(got, q, k, v, 1 / math.sqrt(d), "bf16", causal=causal,
                 mask=args[3] if mask == "additive" else None)


def test_a_pattern_written_with_ops_takes_the_flash_path(rng):
    """Scores from an f16 matmul, softmax in f32 behind a causal `where` on aranges, the
    probabilities back to f16 for the second matmul: recognized as causal and run flash."""
    b, h, s, d = 1, 2, 100, 64

    def fn(q, k, v):
        scores = (q @ ops.transpose(k, (0, 1, 3, 2))).astype("float32") * (1 / math.sqrt(d))
        keep = ops.arange(s)[None, :] <= ops.arange(s)[:, None]
        p = ops.softmax(ops.where(keep, scores, -math.inf))
        return p.astype("float16") @ v
    q, k, v = (draw(rng, (b, h, s, d), "f16") for _ in range(3))
    got, _ = compile_and_run(fn, [q, k, v], "flash")
    assert_close(got, q, k, v, 1 / math.sqrt(d), "f16", causal=True, score_dtype="f16")


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_a_softmax_in_the_inputs_dtype_is_still_the_pattern(dtype, rng):
    """`ops.softmax` on f16/bf16 scores sums through a convert to f32 and back: still one
    flash kernel, not two matmuls around a row pipeline."""
    b, h, s, d = 1, 2, 33, 64

    def fn(q, k, v):
        return ops.softmax(q @ ops.transpose(k, (0, 1, 3, 2)) * 0.125) @ v
    q, k, v = (draw(rng, (b, h, s, d), dtype) for _ in range(3))
    got, exe = compile_and_run(fn, [q, k, v], "flash")
    assert len(exe.kernels) == 1, exe.report()
    assert_close(got, q, k, v, 0.125, dtype, score_dtype=dtype)


@pytest.mark.parametrize("sum_dtype", ["int32", "float16"])
def test_a_sum_of_converted_exps_that_changes_them_is_not_the_pattern(sum_dtype, rng):
    """exp summed as truncated integers (or rounded to f16 from f32) is not softmax's sum:
    the pattern is not raised, and the kernels the planner makes instead match the reference."""
    def fn(q, k, v):
        scores = (q @ ops.transpose(k, (0, 1, 3, 2))).astype("float32") * 0.125
        e = ops.exp(scores - ops.max(scores, axis=-1, keepdims=True))
        total = ops.sum(e.astype(sum_dtype), axis=-1, keepdims=True).astype("float32")
        return (e / total).astype("float16") @ v
    q, k, v = (draw(rng, (1, 1, 40, 64), "f16") for _ in range(3))
    exe = accy.compile(fn, q, k, v)
    assemble(exe.ptx)
    assert "flash_attention" not in {kernel.kind for kernel in exe.kernels}, exe.report()
    got, want = one(exe.run(q, k, v, device="emulator")), one(exe.run(q, k, v, device="reference"))
    np.testing.assert_allclose(f64(got), f64(want), rtol=2e-2, atol=2e-2)


def test_a_mask_of_iotas_that_is_not_causal_masks_every_tile(rng):
    """Keys j >= i kept (not the causal mask): no tile is skipped, the select runs on all."""
    s, d = 100, 64

    def fn(q, k, v):
        scores = (q @ ops.transpose(k, (0, 1, 3, 2))).astype("float32") * 0.125
        keep = ops.arange(s)[None, :] >= ops.arange(s)[:, None]
        return ops.softmax(ops.where(keep, scores, -math.inf)).astype("float16") @ v
    q, k, v = (draw(rng, (1, 1, s, d), "f16") for _ in range(3))
    got, _ = compile_and_run(fn, [q, k, v], "flash")
    i, j = np.indices((s, s))
    assert_close(got, q, k, v, 0.125, "f16", score_dtype="f16",
                 mask=np.where(j >= i, 0.0, -np.inf))


def test_heads_split_from_one_projection_and_shared_keys(rng):
    """q read through reshape + transpose of a (batch, seq, heads * d) buffer and k, v of
    one head broadcast over all heads: strided reads, still the flash kernel."""
    b, s, h, d = 1, 64, 2, 64

    def fn(x, k, v):
        q = ops.transpose(x.reshape(b, s, h, d), (0, 2, 1, 3))
        return ops.attention(q, ops.broadcast_to(k, (b, h, s, d)),
                             ops.broadcast_to(v, (b, h, s, d)), causal=True)
    x, k, v = draw(rng, (b, s, h * d), "bf16"), draw(rng, (b, 1, s, d), "bf16"), \
        draw(rng, (b, 1, s, d), "bf16")
    got, _ = compile_and_run(fn, [x, k, v], "flash")
    q = x.reshape(b, s, h, d).transpose(0, 2, 1, 3)
    kk, vv = np.broadcast_to(k, (b, h, s, d)), np.broadcast_to(v, (b, h, s, d))
    assert_close(got, q, kk, vv, 1 / math.sqrt(d), "bf16", causal=True)


# ---- the serial path ------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["composite", "decomposed"])
@pytest.mark.parametrize("dtype,d,mask", [("f32", 8, "causal"), ("f32", 4, "additive"),
                                          ("f16", 5, "causal")])
def test_the_rest_takes_the_serial_path(form, dtype, d, mask, rng):
    """f32, and f16 with a head dim other than 64 and 128: a thread per query row, in the
    reference's order and dtypes (its result; see assert_like_the_reference)."""
    b, h, s = 1, 2, 9
    args = [draw(rng, (b, h, s, d), dtype) for _ in range(3)]
    if mask == "additive":
        args.append(rng.standard_normal((s, s)).astype(np.float32))

    def fn(q, k, v, *m):
        return ops.attention(q, k, v, mask=m[0] if m else None, causal=mask == "causal")
    program = decomposed(fn, args) if form == "decomposed" else fn
    got, exe = compile_and_run(program, args, "serial")
    assert_close(got, *args[:3], 1 / math.sqrt(d), dtype, causal=mask == "causal",
                 mask=args[3] if mask == "additive" else None)
    assert_like_the_reference(got, one(exe.run(*args, device="reference")), args[2])


def test_the_bundled_attention_graph_runs_as_one_kernel(rng):
    """GRAPHS["attention"] (f32, written from primitive ops): one serial kernel that matches
    the reference interpreter (assert_like_the_reference)."""
    from accy.examples.graphs import GRAPHS
    module = GRAPHS["attention"](small=True)
    args = [draw(rng, (1, 2, 8, 4), "f32") for _ in range(3)]
    exe = accy.compile(module)
    assert [(k.kind, k.schedule) for k in exe.kernels] == [("flash_attention", "serial")]
    assert exe.fallbacks == ()
    assert_like_the_reference(one(exe.run(*args, device="emulator")),
                              one(exe.run(*args, device="reference")), args[2])


def test_f64_runs_on_the_host(rng):
    """The PTX emitter has no f64 exp: the item is a host fallback under the exact tier."""
    args = [draw(rng, (1, 1, 5, 4), "f32").astype(np.float64) for _ in range(3)]
    exe = accy.compile(decomposed(lambda q, k, v: ops.attention(q, k, v), args))
    assert [f.kind for f in exe.fallbacks] == ["flash_attention"] and "f64" in exe.report()
