"""accy.compile end to end for elementwise, shape, reduction and row_pipeline work items:
traced functions become kl kernels and PTX, run on the CPU emulator (outputs and arena start
poisoned), and match the reference interpreter; every PTX text is assembled by ptxas for sm_80
and sm_90. Items of other kinds run as host fallbacks under the exact tier and still give the
reference's numbers."""
import functools
import json
import subprocess
import sys

import ml_dtypes  # noqa: F401  (bf16 arrays)
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.runtime.devices import DeviceUnavailable, cuda_available
from accy.runtime.program import Copy, Launch, Loop, Ref

from compile_helpers import check, draw
from ptxas_check import assemble


def sum_atol(x):
    """How far a float sum of x's elements folded in another order (the parallel schedules'
    fixed tree, not the reference's sequential fold) may land: 8 eps(f32) sqrt(n) sum |x|
    (f16 and bf16 sums accumulate in f32)."""
    return 8 * 2.0 ** -23 * np.sqrt(x.size) * float(np.abs(x.astype(np.float64)).sum())


SHAPES = [(1,), (7, 13), (1000,), (1, 5, 1), (3, 600)]


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i32", "i8"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_arithmetic_chain(dtype, shape, rng):
    def fn(x, y):
        return ops.maximum(x * y + x, y - x)
    check(fn, [draw(rng, shape, dtype), draw(rng, shape, dtype)],
          kinds=["elementwise"])


@pytest.mark.parametrize("dtype", ["f32", "bf16", "i32"])
def test_broadcast_transpose_slice_reverse(dtype, rng):
    def fn(x, b):
        return (ops.transpose(x)[::-1, 1:] + b[::-1, None]) * 2
    check(fn, [draw(rng, (5, 9), dtype), draw(rng, (9,), dtype)])


def test_pad_concatenate_and_iota(rng):
    def fn(x, y):
        z = ops.concatenate([x, y], axis=0)
        return ops.pad(z, ((1, 2), (0, 3)), constant_values=-1.5) + ops.arange(10)[None, :7]
    exe = check(fn, [draw(rng, (3, 4), "f32"), draw(rng, (4, 4), "f32")])
    assert [k.kind for k in exe.kernels] == ["shape"]


def test_compare_select_convert(rng):
    def fn(x, y):
        return ops.where(x < y, x.astype("f16"), (y * 2).astype("f16")).astype("i32")
    check(fn, [draw(rng, (64,), "f32"), draw(rng, (64,), "f32")])


def test_unary_math_within_tolerance(rng):
    x = np.abs(draw(rng, (500,), "f32")) + 0.1
    check(lambda x: ops.tanh(ops.log(x)) + ops.exp(-x), [x], exact=False)


ATTENTION = ((1, 2, 8, 4), "f64")


def decomposed_attention(q, k, v):
    """softmax(q·kᵀ)·v from primitive ops: raised into one attention, a flash_attention item,
    which runs on the host in f64 (the PTX emitter has no f64 exp)."""
    return ops.softmax(q @ ops.transpose(k, (0, 1, 3, 2))) @ v


def test_other_kinds_fall_back_to_the_host(rng):
    q, k, v = (draw(rng, *ATTENTION) for _ in range(3))
    exe = check(lambda q, k, v: decomposed_attention(q, k, v) * 2 + 1, [q, k, v], exact=False)
    assert [f.kind for f in exe.fallbacks] == ["flash_attention"]
    assert "attention on f64" in exe.report()


def test_a_mix_of_kernels_and_fallbacks_through_one_arena(rng):
    def fn(x, q, k, v):
        h = ops.exp(x) * 0.5                            # elementwise kernel
        s = ops.sum(h, axis=1)                          # reduction kernel
        a = decomposed_attention(q * h[0, 0], k, v)     # attention pattern: host
        return (h.T * 3)[::-1], s + 1, ops.tanh(a)
    exe = check(fn, [draw(rng, (8, 16), "f32")] + [draw(rng, *ATTENTION) for _ in range(3)], exact=False)
    assert exe.fallbacks and exe.kernels


def test_results_that_are_arguments_are_copies(rng):
    x = draw(rng, (5,), "f32")
    exe = accy.compile(lambda x: (x, x * 2), x)
    a, b = exe.run(x, device="emulator")
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, x * 2)


def test_bad_arguments_are_clear_errors(rng):
    x = draw(rng, (4, 6), "f32")
    exe = accy.compile(lambda x: x + 1, x)
    with pytest.raises(accy.TypeError, match="argument 0 must be f32"):
        exe.run(x.astype(np.float64), device="emulator")
    with pytest.raises(accy.ShapeError, match=r"argument 0 must have shape \(4, 6\)"):
        exe.run(x[:3], device="emulator")
    with pytest.raises(ValueError, match="not C-contiguous"):
        exe.run(np.asfortranarray(x), device="emulator")
    with pytest.raises(ValueError, match="takes 1 arrays"):
        exe.run(x, x, device="emulator")
    with pytest.raises(ValueError, match="device must be one of"):
        exe.run(x, device="tpu")


@pytest.mark.skipif(cuda_available(), reason="this machine has a GPU")
def test_no_gpu_is_a_clear_error(rng):
    x = draw(rng, (4,), "f32")
    with pytest.raises(DeviceUnavailable, match="device 'cuda'"):
        accy.compile(lambda x: x + 1, x).run(x, device="cuda")


@pytest.mark.skipif(cuda_available(), reason="this machine has a GPU")
def test_no_gpu_keeps_failing_clearly_when_asked_again(rng):
    """The reason is remembered (asking the driver again costs), and still raised each time."""
    x = draw(rng, (4,), "f32")
    exe = accy.compile(lambda x: x + 1, x)
    for _ in range(2):
        with pytest.raises(DeviceUnavailable, match="device 'cuda'"):
            exe.run(x, device="cuda")


def test_compile_traces_a_jit_function_and_not_a_decorator_wrapping_one(rng):
    """accy.compile of an accy.jit function traces the function it wraps; a decorator made
    with functools.wraps around a Jit (which copies the Jit's attributes onto it) is an
    ordinary function: its own body is traced."""
    x = rng.standard_normal(8).astype(np.float32)

    def f(x):
        return x * 2
    jf = accy.jit(f)

    @functools.wraps(jf)
    def g(x):
        return f(x) + 100
    np.testing.assert_array_equal(accy.compile(jf, x).run(x, device="reference"), x * 2)
    np.testing.assert_array_equal(accy.compile(g, x).run(x, device="reference"),
                                  x * 2 + 100)


def test_jit_runs_its_compiled_kernels_on_the_device_asked_for(rng):
    """`accy.jit(device="emulator")` compiles once per signature and runs the PTX (a kernel
    that wrote nothing would leave the poison); the default runs on a GPU when there is one,
    else on the reference interpreter."""
    def f(x, y):
        return ops.tanh(x * y) + 1

    on_emulator, default = accy.jit(device="emulator")(f), accy.jit(f)
    assert on_emulator.device == "emulator" and default.device is None
    x, y = draw(rng, (5, 3), "f32"), draw(rng, (5, 3), "f32")
    want = accy.compile(f, x, y).run(x, y, device="reference")
    for _ in range(2):    # tanh within 1 ulp (|tanh| < 1), then + 1
        np.testing.assert_allclose(on_emulator(x, y), want, rtol=0, atol=2.0 ** -23)
    assert len(on_emulator._executables) == 1
    np.testing.assert_allclose(default(x, y), want, rtol=0, atol=2.0 ** -23)
    assert bool(default._executables) == cuda_available()
    with pytest.raises(ValueError, match="device must be one of"):
        accy.jit(f, device="tpu")


def test_ptx_is_byte_identical_across_processes(rng):
    code = ("import numpy as np, accy, accy.ops as ops\n"
            "x = np.zeros((7, 5), np.float32)\n"
            "print(accy.compile(lambda x, b: ops.tanh(x * 2 + b[None, :]).T, x,"
            " np.zeros(5, np.float32)).ptx, end='')\n")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] and ".entry main$k0$" in runs[0]


def test_report_names_kernels_and_times():
    exe = accy.compile(lambda x: ops.exp(x) + 1, np.zeros(8, np.float32))
    text = exe.report()
    assert "1 kernels, 0 host fallbacks" in text and "main$k0$elementwise" in text
    assert "compile time:" in text and "ptx" in text


def test_scalars_in_and_out(rng):
    a, b = np.float32(rng.standard_normal()), np.float32(rng.standard_normal())
    check(lambda a, b: a * b + 1, [np.asarray(a), np.asarray(b)],
          kinds=["elementwise"])
    x = draw(rng, (9,), "f32")
    check(lambda x: ops.sum(x), [x], exact=False, atol=sum_atol(x),
          kinds=["reduction"])


# ---- reductions and row pipelines (accy/lowering/rows.py; tests/test_lower_rows.py has more) ----

ROW_CASES = {
    "sum_rows": lambda x: ops.sum(x, axis=-1),
    "max_keepdims": lambda x: ops.max(x, axis=-1, keepdims=True) * 2,
    "column_sum": lambda x: ops.sum(x * x, axis=0),
    "all_dims": lambda x: ops.sum(x),
    "argmax": lambda x: ops.argmax(x, axis=-1),
    "sum_and_max": lambda x: (ops.sum(x, axis=-1), ops.min(x, axis=-1)),
    "centered": lambda x: x - ops.mean(x, axis=-1, keepdims=True),
}
ROW_SHAPES = [(1, 1), (7, 13), (3, 1, 5), (2, 700)]
SUMMED = {"sum_rows": lambda x: x, "column_sum": lambda x: x * x, "all_dims": lambda x: x,
          "sum_and_max": lambda x: x, "centered": lambda x: x / x.shape[-1]}  # what is summed


@pytest.mark.parametrize("shape", ROW_SHAPES, ids=str)
@pytest.mark.parametrize("case,dtype", [(c, d) for c in sorted(ROW_CASES)
                                        for d in ("f32", "bf16", "i32")
                                        if not (c == "centered" and d == "i32")])
def test_reductions_match_the_reference(case, dtype, shape, rng):
    """Bit for bit for integers, max and argmax (any order gives the same); float sums within
    what another fold order may change (and 2 ulp of a bf16 result rounded from it)."""
    x = draw(rng, shape, dtype)
    exact = dtype == "i32" or case not in SUMMED
    exe = check(ROW_CASES[case], [x], exact=exact,
                rtol=2 ** -7 if dtype == "bf16" else 1e-5,
                atol=0 if exact else sum_atol(SUMMED[case](x)))
    assert not exe.fallbacks, exe.report()


@pytest.mark.parametrize("name,fn", [
    ("softmax", lambda x: ops.softmax(x)),
    ("log_softmax", lambda x: ops.log_softmax(x)),
    ("layer_norm", lambda x, w, b: ops.layer_norm(x, w, b)),
    ("rms_norm", lambda x, w: ops.rms_norm(x, w)),
])
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_row_pipelines_run_as_one_kernel(name, fn, dtype, rng):
    x = draw(rng, (5, 67), dtype)
    args = [x] + [draw(rng, (67,), dtype) for _ in range(fn.__code__.co_argcount - 1)]
    exe = accy.compile(fn, *args)
    assemble(exe.ptx)
    assert [k.kind for k in exe.kernels] == ["row_pipeline"] and not exe.fallbacks
    got, want = exe.run(*args, device="emulator"), exe.run(*args, device="reference")
    tol = {"f32": 1e-5, "f16": 2e-3, "bf16": 2e-2}[dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol,
                               atol=tol)


def test_the_fast_tier_has_no_host_fallback(rng):
    x = draw(rng, (4, 8), "f32")
    exe = accy.compile(lambda x: ops.exp(x) * 2, x, target={"math_tier": "fast"})
    assemble(exe.ptx)
    assert "ex2.approx" in exe.ptx and exe.target.math_tier == "fast"
    np.testing.assert_allclose(exe.run(x, device="emulator"), np.exp(x) * 2, rtol=1e-5)
    q = draw(rng, *ATTENTION)
    with pytest.raises(accy.AccyError, match="cannot be lowered under the 'fast' math tier"):
        accy.compile(lambda q: decomposed_attention(q, q, q), q, target={"math_tier": "fast"})


def test_a_target_arch_reaches_the_ptx(rng):
    x = draw(rng, (4,), "f32")
    assert ".target sm_80" in accy.compile(lambda x: x + 1, x, target="sm_80").ptx
    with pytest.raises(accy.AccyError, match="arch must be one of"):
        accy.compile(lambda x: x + 1, x, target="sm_70")


# ---- scans (the schedules themselves: tests/test_lower_scan.py) -------------------------------

@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis,shape", [(1, (3, 5)), (0, (6, 4)), (1, (2, 1)), (2, (2, 3, 33))])
@pytest.mark.parametrize("dtype,body,init", [("f32", "add", "0.0"), ("i32", "multiply", "1"),
                                             ("bf16", "maximum", "-1.0")])
def test_scans_match_the_reference(dtype, body, init, axis, shape, reverse, exclusive, rng):
    from accy.ir import parse
    t = f"tensor<{'x'.join(map(str, shape))}x{dtype}>"
    module = parse(f"""builtin.module ({{
  builtin.func <{{function_type = ({t}) -> {t}, sym_name = "main"}}> ({{
  ^bb0(%0: {t}):
    %1 = tensor.constant <{{value = dense<{init}> : tensor<{dtype}>}}> : tensor<{dtype}>
    %2 = tensor.scan %0, %1 <{{dimension = {axis}, exclusive = {str(exclusive).lower()}, reverse = {str(reverse).lower()}}}> : {t} ({{
    ^bb0(%3: tensor<{dtype}>, %4: tensor<{dtype}>):
      %5 = tensor.{body} %3, %4 : tensor<{dtype}>
      tensor.yield %5
    }})
    builtin.return %2
  }})
}})""")
    x = draw(rng, shape, dtype)
    if dtype == "i32":
        x = (x % 3 + 1).astype(np.int32)
    exe = accy.compile(module)
    assemble(exe.ptx)
    assert [k.kind for k in exe.kernels] == ["scan"] and not exe.fallbacks
    (got,), (want,) = exe.run(x, device="emulator"), exe.run(x, device="reference")
    if dtype == "f32":      # a parallel schedule sums in another order: rounding differs
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    else:                   # integer products and maxima are exact in any order
        np.testing.assert_array_equal(got, want)


def test_scan_with_prologue_and_epilogue_is_one_kernel(rng):
    exe = check(lambda x: ops.cumsum(ops.exp(x) * 2, axis=1) + 1, [draw(rng, (4, 50), "f32")], exact=False, kinds=["scan"])
    assert not exe.fallbacks


# ---- dot_general on the FMA path (a thread per output element) ---------------------------------

DOT_CASES = {
    "matmul": (lambda a, b: a @ b, [(9, 13), (13, 6)]),
    "batched": (lambda a, b: a @ b, [(3, 5, 7), (3, 7, 4)]),
    "transposed_operand": (lambda a, b: a @ ops.transpose(b, (0, 2, 1)), [(2, 5, 7), (2, 3, 7)]),
    "vector": (lambda a, b: a @ b, [(7,), (7, 3)]),
    "broadcast_batch": (lambda a, b: a @ b, [(4, 3, 6), (6, 5)]),
    "epilogue": (lambda x, w, b, r: ops.tanh(x @ w + b) * 0.5 + r, [(8, 16), (16, 12), (12,),
                                                                      (8, 12)]),
}


@pytest.mark.parametrize("dtype", ["f32", "bf16", "i32"])
@pytest.mark.parametrize("case", sorted(DOT_CASES))
def test_dot_general_matches_the_reference(case, dtype, rng):
    fn, shapes = DOT_CASES[case]
    if dtype == "i32" and case == "epilogue":
        fn = lambda x, w, b, r: (x @ w + b) * 3 - r      # noqa: E731 (no tanh on ints)
    exe = check(fn, [draw(rng, s, dtype) for s in shapes], exact=dtype != "f32" or
                case != "epilogue")
    assert "dot_general" in [k.kind for k in exe.kernels] and not exe.fallbacks


def test_the_transformer_block_runs_as_kernels(rng):
    from accy.examples import transformer
    args = transformer.example_inputs()
    exe = accy.compile(transformer.block, *args)
    assemble(exe.ptx)
    assert not exe.fallbacks and len(exe.kernels) == 9
    got, want = exe.run(*args, device="emulator"), exe.run(*args, device="reference")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# ---- attention (a thread per query row) ------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", [(1, 1, 1, 3), (2, 3, 9, 5), (1, 2, 17, 8)], ids=str)
def test_attention_matches_the_reference(shape, causal, dtype, rng):
    q, k, v = (draw(rng, shape, dtype) for _ in range(3))
    # the reference's order and dtypes: its bits, but for f32 exp's 1 ulp (f16/bf16 exp is
    # correctly rounded)
    exe = check(lambda q, k, v: ops.attention(q, k, v, causal=causal), [q, k, v],
                exact=dtype != "f32", kinds=["flash_attention"], rtol=1e-6, atol=1e-6)
    assert not exe.fallbacks


@pytest.mark.parametrize("mask_shape", [(9, 9), (2, 1, 9, 9), (9,)], ids=str)
def test_attention_with_an_additive_mask(mask_shape, rng):
    q, k, v = (draw(rng, (2, 2, 9, 4), "f32") for _ in range(3))
    check(lambda q, k, v, m: ops.attention(q, k, v, mask=m),
          [q, k, v, draw(rng, mask_shape, "f32")], exact=False, kinds=["flash_attention"],
          rtol=1e-6, atol=1e-6)


def test_more_elements_than_one_grid_covers(rng):
    """Serial kernels (here i8: no vector schedule) stride over what their capped grid does
    not cover (4096 blocks of 256)."""
    from accy.lowering.launch import MAX_BLOCKS, THREADS
    n = MAX_BLOCKS * THREADS + 1000
    exe = check(lambda x: x * 2 + 1, [draw(rng, (n,), "i8")], kinds=["elementwise"])
    assert exe.kernels[0].launch.grid == (MAX_BLOCKS, 1, 1)
    assert exe.kernels[0].schedule == "serial"


# ---- kernel_call: user PTX passed through ------------------------------------------------------

USER_PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry twice(.param .u64 a, .param .u64 b)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r1, %r1, %r2, %r3;
  mul.wide.s32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, %f1;
  st.global.f32 [%rd5], %f2;
  ret;
}
"""


def kernel_call_module(ptx):
    from accy.ir import parse
    quoted = json.dumps(ptx)         # the IR text's string escapes are JSON's
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = (tensor<256xf32>) -> tensor<256xf32>, sym_name = "main"}}> ({{
  ^bb0(%0: tensor<256xf32>):
    %1 = tensor.exp %0 : tensor<256xf32>
    %2 = tensor.kernel_call %1 <{{block = [128, 1, 1], grid = [2, 1, 1], kernel = "twice", ptx = {quoted}}}> : tensor<256xf32>
    %3 = tensor.negate %2 : tensor<256xf32>
    builtin.return %3
  }})
}})""")


def test_kernel_call_runs_the_users_ptx_between_our_kernels(rng):
    exe = accy.compile(kernel_call_module(USER_PTX))
    assert [k.kind for k in exe.kernels] == ["elementwise", "kernel_call", "elementwise"]
    (user,) = [k for k in exe.kernels if k.kind == "kernel_call"]
    assert user.name == "twice" and user.launch.grid == (2, 1, 1) and user.ptx == USER_PTX
    x = draw(rng, (256,), "f32")
    (y,) = exe.run(x, device="emulator")
    np.testing.assert_allclose(y, -2 * np.exp(x.astype(np.float64)), rtol=1e-6)


def test_kernel_call_ptx_that_does_not_assemble_is_an_error():
    broken = USER_PTX.replace("add.f32 %f2, %f1, %f1;", "add.f32 %f2, %f1, %nope;")
    with pytest.raises(accy.AccyError, match="does not assemble"):
        accy.compile(kernel_call_module(broken))


# ---- regressions from review ----------------------------------------------------------------

def test_a_sibling_output_never_clobbers_a_donated_input():
    x, y = np.arange(6, dtype=np.float32), np.full(6, 10, np.float32)
    module = accy.jit(lambda x, y: (y * 2, x + y)).lower(x, y)
    next(iter(module.body)).set_attribute("accy.donate", (0,))
    exe = accy.compile(module)
    got, want = exe.run(x, y, device="emulator"), exe.run(x, y, device="reference")
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_sibling_output_never_clobbers_an_arena_input(rng):
    def fn(x, y, w):
        looped = ops.fori_loop(0, 3, lambda i, v: v * 0.5 + 1.0, x)
        return (y * 2) @ w, (looped + y) @ w
    args = [draw(rng, (4, 4), "f32"), draw(rng, (4, 4), "f32"), draw(rng, (4, 3), "f32")]
    exe = accy.compile(fn, *args)
    for g, w in zip(exe.run(*args, device="emulator"), exe.run(*args, device="reference")):
        np.testing.assert_allclose(g, w, rtol=1e-6)


@pytest.mark.parametrize("fn,exact", [
    (lambda x: x + np.arange(4, dtype=np.float32), True),
    (lambda x: ops.take(x, [2, 0], axis=1), True),
    (lambda x: ops.sum(x * np.arange(4, dtype=np.float32), axis=1), False),   # a kernel now
    (lambda x: ops.reshape(ops.sum(x, axis=1), (3, 1)) * 2, False),     # a parallel sum
], ids=["dense constant", "gather", "dense constant in a reduction", "reshaped row result"])
def test_what_a_lowering_cannot_do_falls_back_cleanly(fn, exact, rng):
    x = draw(rng, (3, 4), "f32")
    check(fn, [x], exact=exact, atol=sum_atol(2 * x))


def test_empty_operands_and_results(rng):
    check(lambda x: ops.pad(x, (2, 3), constant_values=1.0), [np.zeros((0,), np.float32)])
    check(lambda a, b: ops.concatenate([a, b], axis=0), [np.zeros((0, 3), np.float32),
                                                         draw(rng, (2, 3), "f32")])
    check(lambda x: ops.log_softmax(x), [np.zeros((0, 6), np.float32)])


def test_reduce_dims_in_any_order_fold_row_major(rng):
    """dimensions [2, 0]: the positions are numbered row-major in (0, 2) all the same (the
    column schedule folds them in another order, so within a sum's tolerance); magnitudes
    1e6, 1 and 1e-3 along dim 0 make a wrong pairing show."""
    from accy.ir import parse
    t = "tensor<3x4x5xf32>"
    module = parse(f"""builtin.module ({{
  builtin.func <{{function_type = ({t}) -> tensor<4xf32>, sym_name = "main"}}> ({{
  ^bb0(%0: {t}):
    %1 = tensor.constant <{{value = dense<0.0> : tensor<f32>}}> : tensor<f32>
    %2 = tensor.reduce %0, %1 <{{dimensions = [2, 0]}}> : tensor<4xf32> ({{
    ^bb0(%3: tensor<f32>, %4: tensor<f32>):
      %5 = tensor.add %3, %4 : tensor<f32>
      tensor.yield %5
    }})
    builtin.return %2
  }})
}})""")
    x = (draw(rng, (3, 4, 5), "f32") * np.array([1e6, 1, 1e-3], np.float32)[:, None, None])
    exe = accy.compile(module)
    (g,), (w,) = exe.run(x, device="emulator"), exe.run(x, device="reference")
    np.testing.assert_allclose(g, w, rtol=1e-6, atol=max(sum_atol(x[:, j]) for j in range(4)))


def test_f64_transcendentals_run_on_the_host():
    exe = check(lambda x: ops.exp(x) + 1, [np.linspace(0, 1, 5)])
    assert [f.kind for f in exe.fallbacks] == ["elementwise"] and "f64" in exe.report()


def test_a_recomputed_weight_that_is_also_a_result(rng):
    def fn(x, b):
        c = b * 2
        return ops.sum(x[:, :5] * c, axis=1), c
    x, b = draw(rng, (4, 8), "f32"), draw(rng, (5,), "f32")
    check(fn, [x, b], exact=False, atol=sum_atol(x[:, :5] * b * 2))


def test_an_executable_loads_its_modules_once_per_device(rng):
    from accy.runtime.devices import open_device
    x = draw(rng, (8,), "f32")
    exe = accy.compile(lambda x: x + 1, x)
    dev = open_device("emulator")
    assert exe.loaded(dev) is exe.loaded(dev)


# ---- iterate: a host loop over device kernels ------------------------------------------------

@pytest.mark.parametrize("steps", [0, 1, 4])
def test_while_loop_of_matmul_and_tanh(steps, rng):
    from accy.examples.graphs import GRAPHS
    exe = accy.compile(GRAPHS["while_matmul_tanh"](small=True))
    assemble(exe.ptx)
    assert not exe.fallbacks and "a host loop launching" in exe.report()
    assert {k.kind for k in exe.kernels if k.scope} == {"elementwise", "dot_general"}
    x, w = draw(rng, (16, 16), "f32") * 0.3, draw(rng, (16, 16), "f32") * 0.3
    args = [x, w, np.asarray(steps, np.int32)]
    (got,), (want,) = exe.run(*args, device="emulator"), exe.run(*args, device="reference")
    # tanh within 1 ulp each step, carried through the matmuls (|values| <= 1; seen: 4e-7)
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)


def test_fori_loop_with_captured_values_and_unchanged_carries(rng):
    def fn(x, b, n):
        def body(i, c):
            acc, keep = c
            return acc * 0.5 + b + i.astype("f32"), keep
        return ops.fori_loop(0, n, body, (x, x * 2))
    args = [draw(rng, (5, 3), "f32"), draw(rng, (5, 3), "f32"), np.asarray(3, np.int32)]
    exe = accy.compile(fn, *args)
    assemble(exe.ptx)
    for got, want in zip(exe.run(*args, device="emulator"), exe.run(*args, device="reference")):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("trips", [0, 3])
def test_loop_program_writes_made_yields_in_place_and_copies_the_rest(trips, rng):
    """The host program's loop (accy/lowering/host_program.py): a yield the body's kernels
    make goes straight into its next state slot; an unchanged carry, a captured outer value and
    a value yielded a second time are copied after the body. All four, then the results."""
    def fn(x, b, n):
        def body(i, c):
            acc, keep, outer, again = c
            new = acc * 0.5 + i.astype("f32")
            return new, keep, b, new
        return ops.fori_loop(0, n, body, (x, x * 2, x, x))
    args = [draw(rng, (5, 3), "f32"), draw(rng, (5, 3), "f32"), np.asarray(trips, np.int32)]
    exe = accy.compile(fn, *args)
    (loop,) = [s for s in exe.program.steps if isinstance(s, Loop)]
    # the carried values: fori_loop's counter, then acc, keep, outer, again
    assert len(loop.states) == 5 and loop.flag.slot == exe.program.slot("arena").id
    current = [Ref(p.current) for p in loop.states]
    following = [Ref(p.next) for p in loop.states]
    written = {p for s in loop.body if isinstance(s, Launch) for p in s.params}
    copies = [s for s in loop.body if isinstance(s, Copy)]
    assert {following[0], following[1]} <= written                  # counter, new: in place
    assert [c.target for c in copies] == following[2:]              # keep, outer, again
    assert copies[0].source == current[2]                           # keep: the carry itself
    assert copies[1].source not in current + following              # outer: from outside
    assert copies[2].source == following[1]                         # again: new's copy
    for got, want in zip(exe.run(*args, device="emulator"), exe.run(*args, device="reference")):
        np.testing.assert_array_equal(got, want)


def test_a_loop_body_with_a_host_fallback(rng):
    def fn(q, n):
        return ops.fori_loop(0, n, lambda i, c: decomposed_attention(c, c, c) * 0.5, q)
    args = [draw(rng, *ATTENTION), np.asarray(2, np.int32)]
    exe = accy.compile(fn, *args)
    assert [f.scope[1] for f in exe.fallbacks] == ["body"]
    got, want = exe.run(*args, device="emulator"), exe.run(*args, device="reference")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
