"""Device functions on the emulator: nvcc's PTX for CUDA C that calls .func code
(tests/emulator_kernels/functions.cu, compiled with `nvcc -arch=sm_90 -ptx`): the math
library's double functions (argument reduction and pow are separate functions, the reduction
with a local-memory stack array), precise float ones, __noinline__ functions with several
arguments and a result, recursion, and calls taken by only some lanes. Results are compared
with numpy in float64 within the CUDA math library's documented error bounds."""
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from accy.runtime.emulator import Emulator, KernelFault, PtxError, calls
from accy.runtime.emulator.ptx import SCOPED
from emulator_helpers import load
from ptxas_check import PTXAS, assemble

# CUDA C Programming Guide, "Mathematical Functions" (maximum ulp error, full range); numpy's
# float64 libm result stands in for the exact value, so one more ulp is allowed for it.
ULP_F64 = {"sin": 2, "cos": 2, "pow": 2, "exp": 1, "log": 1}
ULP_F32 = {"sin": 2, "cos": 2, "pow": 4, "exp": 2, "log": 1}
FUNCTIONS = ("sin", "cos", "pow", "exp", "log")


def ulps(actual, expected):
    """|actual - expected| in units of the last place of `expected`'s type."""
    spacing = np.spacing(np.abs(expected)).astype(np.float64)
    return np.abs(actual.astype(np.float64) - expected.astype(np.float64)) / spacing


def _math_inputs(rng, n, dtype, scales):
    x = (rng.standard_normal(n) * rng.choice(scales, n)).astype(dtype)
    e = rng.uniform(-3, 3, n).astype(dtype)
    return x, e


@pytest.mark.parametrize("dtype, bounds, scales, scale_exp", [
    (np.float64, ULP_F64, [1, 10, 1e3, 1e6, 1e12, 1e300], 100.0),   # >= 2^31: the slow path
    (np.float32, ULP_F32, [1, 10, 1e3, 1e6, 1e30], 10.0)])
def test_math_library_functions(ptx, rng, dtype, bounds, scales, scale_exp):
    n = 300
    x, e = _math_inputs(rng, n, dtype, scales)
    kernel = "math_f64" if dtype == np.float64 else "math_f32"
    dev, fn = load(ptx, "functions", kernel)
    out = dev.mem_alloc(5 * n * x.itemsize)
    fn(dev.to_device(x), dev.to_device(e), out, np.int32(n), block=(64, 1, 1), grid=(5, 1, 1))
    got = dev.from_device(out, (n, 5), dtype)
    x64, e64 = x.astype(np.float64), e.astype(np.float64)
    exp_arg = (e * dtype(scale_exp)).astype(np.float64)       # the product rounds in dtype
    with np.errstate(over="ignore"):
        expected = np.stack([np.sin(x64), np.cos(x64), np.abs(x64) ** e64, np.exp(exp_arg),
                             np.log(np.abs(x64))], 1).astype(dtype)
    for k, name in enumerate(FUNCTIONS):
        finite = np.isfinite(expected[:, k])
        np.testing.assert_array_equal(got[~finite, k], expected[~finite, k])
        err = ulps(got[finite, k], expected[finite, k])
        assert err.max() <= bounds[name] + 1, \
            f"{name}: {err.max()} ulp at x={x[finite][err.argmax()]!r}"


@pytest.mark.parametrize("launch_stack", [None, 1024])
def test_noinline_function_with_several_arguments(ptx, rng, monkeypatch, launch_stack):
    """With MAX_LAUNCH_STACK patched below the bytes of the launch's call frames (250 threads'
    frames for blend()): it holds only recursive calls' frames, and nothing recurses here."""
    if launch_stack is not None:
        monkeypatch.setattr(calls, "MAX_LAUNCH_STACK", launch_stack)
    n = 250
    a = rng.standard_normal(n)
    b = rng.standard_normal(n).astype(np.float32)
    d = rng.integers(-10**12, 10**12, n)
    table = rng.standard_normal(8).astype(np.float32)
    dev, fn = load(ptx, "functions", "noinline_args")
    out = dev.mem_alloc(8 * n)
    fn(dev.to_device(a), dev.to_device(b), dev.to_device(d), dev.to_device(table), out,
       np.int32(n), block=(64, 1, 1), grid=(4, 1, 1))
    i = np.arange(n)
    c = i * 3 - 50
    # each operation of blend() rounds in f64 as written: a*b + c*d - p[c & 7] + s
    expected = a * b.astype(np.float64) + c.astype(np.float64) * d.astype(np.float64) \
        - table[c & 7].astype(np.float64) + ((i * 7) & 255)
    np.testing.assert_array_equal(dev.from_device(out, n, np.float64), expected)


def _i32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _walk(n, k):
    """walk() of functions.cu in Python, with int32 wrapping."""
    buf = [_i32(n * j + k) for j in range(8)]
    if n <= 0:
        return buf[k & 7]
    left = _walk(n - 1, _i32(k + buf[(n + k) & 7]))
    right = _walk(n - 2, left ^ buf[_i32(k * 3) & 7])
    return _i32(_i32(left * 31) + right) ^ buf[_i32(left + k) & 7]


def test_recursion_with_local_arrays(ptx, rng):
    """Each thread recurses to its own depth (up to 2^8 calls), so the call stacks of a warp
    diverge; every activation keeps its own registers and local array."""
    n = 130
    depth = rng.integers(-1, 9, n).astype(np.int32)
    seed = rng.integers(-1000, 1000, n).astype(np.int32)
    dev, fn = load(ptx, "functions", "recursive")
    out = dev.mem_alloc(4 * n)
    fn(dev.to_device(depth), dev.to_device(seed), out, np.int32(n), block=(64, 1, 1),
       grid=(3, 1, 1))
    expected = np.array([_walk(int(p), int(q)) for p, q in zip(depth, seed)], np.int32)
    np.testing.assert_array_equal(dev.from_device(out, n, np.int32), expected)


def _descend(n, x):
    """functions.cu's descend: level k (n down to 1) adds its x plus arr[k & 7]'s offset."""
    total = sum(x + (n - k) + (k & 7) for k in range(n, 0, -1))
    return total + x + n + ((x + n) & 7)


def test_deep_recursion(ptx, rng):
    """Recursion 2000 to 2003 levels deep, the depth differing by lane (so the warp's call
    stacks diverge at the bottom), each level with its own local array."""
    n = 64
    depth = (2000 + rng.integers(0, 4, n)).astype(np.int32)
    seed = rng.integers(-10**5, 10**5, n).astype(np.int32)
    dev, fn = load(ptx, "functions", "deep_recursion")
    out = dev.mem_alloc(4 * n)
    fn(dev.to_device(depth), dev.to_device(seed), out, block=(n, 1, 1))
    expected = np.array([_descend(int(d), int(x)) for d, x in zip(depth, seed)], np.int32)
    np.testing.assert_array_equal(dev.from_device(out, n, np.int32), expected)


def test_divergent_calls_then_barrier_and_shuffle(ptx, rng):
    """Only lanes tid % 3 == 0 call; the others wait for them at __syncthreads and the
    shuffle, as on a GPU (the callers must not be left behind inside the function)."""
    size, grid = 128, 2
    x = rng.standard_normal(size * grid).astype(np.float32)
    dev, fn = load(ptx, "functions", "divergent_calls")
    out = dev.mem_alloc(x.nbytes)
    fn(dev.to_device(x), out, block=(size, 1, 1), grid=(grid, 1, 1))
    tid = np.arange(size * grid) % size
    v = x.copy()
    for i in np.flatnonzero(tid % 3 == 0):
        r = np.float64(0)
        for j in range((tid[i] & 3) + 1):   # fma.rn.f32: the f64 product is exact, the sum
            # almost always (a double rounding differs about once in 2^29)
            r = np.float64(np.float32(r * np.float64(x[i]) + (j + 1)))
        v[i] = np.float32(r)
    block = v.reshape(grid, size)
    expected = block[:, np.arange(size) ^ 1] + block[:, (np.arange(size) + 1) % size]
    np.testing.assert_array_equal(dev.from_device(out, size * grid, np.float32),
                                  expected.reshape(-1))


def test_sync_inside_a_function_reached_from_two_call_sites(ptx, rng):
    """__shfl_xor_sync and __syncwarp inside functions the odd and even lanes reach through
    different call sites (h(g(v)) and g(h(v))), and __syncthreads inside one each warp calls
    from its own branch: the lanes meet at the instruction whatever their call stacks."""
    n = 64
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    dev, fn = load(ptx, "functions", "sync_in_two_call_sites")
    out = dev.mem_alloc(12 * n)
    fn(dev.to_device(x), out, block=(n, 1, 1))
    got = dev.from_device(out, (n, 3), np.int32).astype(np.int64)
    t, v = np.arange(n), x.astype(np.int64)
    odd = t % 2 == 1
    partner = t ^ 1
    given = np.where(odd, v, v + 100)                   # what each lane passes to pair_sum
    pair = given[partner] + given
    a = np.where(odd, v * 7 + 3 + pair, pair * (v * 7 + 3))
    b = np.where(odd, v * 7 + 4, (v + 1) * 7 + 3)
    mirrored = np.where(t < 32, v, v + 1000)[63 - t]
    c = np.where(t < 32, mirrored * 2, mirrored + 1)
    np.testing.assert_array_equal(got, np.stack([a, b, c], 1))


def test_diverged_calls_without_meeting_instructions_sort_no_groups(ptx, rng, monkeypatch):
    """Odd threads loop in one function, even ones in another: each diverged step picks the
    first (call stack, PC) group with a cheap search; the set of all groups (np.unique) is
    built only when that group is at a barrier or warp-synchronous instruction, and this
    kernel has none (building it on every step made such kernels about 15 times slower)."""
    n, k = 256, 40
    x = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    dev, fn = load(ptx, "functions", "two_loops")
    out = dev.mem_alloc(4 * n)
    unique, searches = np.unique, []
    monkeypatch.setattr(np, "unique", lambda *a, **kw: searches.append(1) or unique(*a, **kw))
    fn(dev.to_device(x), out, np.int32(k), block=(128, 1, 1), grid=(2, 1, 1))
    monkeypatch.undo()
    assert not searches
    v = x.astype(np.uint64)
    for _ in range(k):
        v = np.where(np.arange(n) % 2 == 1, v * 3 + (v >> 5), v * 5 + (v >> 3)) % 2 ** 32
    np.testing.assert_array_equal(dev.from_device(out, n, np.uint32), v.astype(np.uint32))


def test_complete_warp_or_block_does_not_run_a_partial_one_with_it(ptx, rng):
    """Lanes 0-15 of warp 0 reach pair_sum's shuffle first, then all of warp 1 through
    another call site, lanes 16-31 of warp 0 only after a loop: warp 1 must run the shuffle
    alone, not with the half of warp 0 already there (a false fault: lane 31 not executing
    it). Likewise a complete block 0 and half of block 1 at mirrored()'s barrier."""
    x = rng.integers(-1000, 1000, 64).astype(np.int32)
    t, v = np.arange(64), x.astype(np.int64)
    lane, warp = t % 32, t // 32
    loop = v + lane * (lane - 1) // 2                   # v += i for i < lane
    dev, fn = load(ptx, "functions", "partial_warp_meets")
    out = dev.mem_alloc(4 * 64)
    fn(dev.to_device(x), out, block=(64, 1, 1))
    given = np.select([warp == 1, lane < 16], [v, 2 * v], 3 * loop)
    np.testing.assert_array_equal(dev.from_device(out, 64, np.int32), given + given[t ^ 1])

    x = rng.integers(-1000, 1000, 128).astype(np.int32)
    v, block = x.astype(np.int64).reshape(2, 64), np.arange(64)
    dev, fn = load(ptx, "functions", "partial_block_meets")
    out = dev.mem_alloc(4 * 128)
    fn(dev.to_device(x), out, block=(64, 1, 1), grid=(2, 1, 1))
    given = np.stack([v[0], np.where(block < 32, 2 * v[1],
                                     3 * (v[1] + block * (block - 1) // 2))])
    np.testing.assert_array_equal(dev.from_device(out, 128, np.int32),
                                  given[:, 63 - block].reshape(-1))


def test_waiting_lanes_run_the_group_they_wait_for_not_a_spinning_one(ptx, rng, monkeypatch):
    """Even lanes of warp 0 wait at a shuffle for the odd ones; warps 2 and 3 spin, at an
    earlier PC than the odd lanes, on a flag thread 0 sets after the shuffle: the scheduler
    must run the odd lanes (the group the waiting one waits for), not the spinning warps,
    which held it to the step limit. It finishes in a few hundred steps; the limit is cut to
    5000."""
    from accy.runtime.emulator import machine
    monkeypatch.setattr(machine, "MAX_STEPS", 5000)
    x = rng.integers(-1000, 1000, 96).astype(np.int32)
    dev, fn = load(ptx, "functions", "spin_while_lanes_wait")
    out = dev.to_device(np.zeros(96, np.int32))
    fn(dev.to_device(x), out, dev.to_device(np.zeros(1, np.int32)), block=(96, 1, 1))
    t, v = np.arange(32), x[:32].astype(np.int64)
    given = np.where(t % 2 == 0, v, 10 * v)
    expected = np.concatenate([given + given[t ^ 1], np.zeros(32), np.ones(32)])
    np.testing.assert_array_equal(dev.from_device(out, 96, np.int32), expected)


def test_groups_waiting_for_each_other_fault_naming_a_lane(ptx, rng):
    """Odd lanes at __syncwarp, even ones at a full-warp shuffle: every group waits for
    another, so the first runs and faults at once, naming a lane it waited for."""
    x = rng.integers(-1000, 1000, 32).astype(np.int32)
    dev, fn = load(ptx, "functions", "crossed_meets")
    with pytest.raises(KernelFault, match=r"kernel crossed_meets, line \d+ `(shfl|bar\.warp)"
                                          r"\.sync.*lane \d+"):
        fn(dev.to_device(x), dev.mem_alloc(4 * 32), block=(32, 1, 1))


def test_calls_through_function_pointers(ptx, rng):
    """Each thread calls one of three functions through a pointer (an indirect call with a
    .callprototype); one of them calls a fourth."""
    n = 200
    x = rng.standard_normal(n).astype(np.float32)
    which = rng.integers(0, 3, n).astype(np.int32)
    dev, fn = load(ptx, "functions", "pointer_calls")
    out = dev.mem_alloc(4 * n)
    fn(dev.to_device(x), dev.to_device(which), out, np.int32(n), block=(64, 1, 1),
       grid=(4, 1, 1))
    k = np.arange(n) & 7
    x64 = x.astype(np.float64)
    poly = np.zeros(n)
    for j in range(4):                  # poly(): fma.rn.f32 steps, the f64 product exact
        step = (poly * x64 + (j + 1)).astype(np.float32).astype(np.float64)
        poly = np.where((k & 3) >= j, step, poly)
    expected = np.select([which == 0, which == 1],
                         [(x64 * x64 + k).astype(np.float32), (x64 * 0.5 - k).astype(np.float32)],
                         poly.astype(np.float32))
    np.testing.assert_array_equal(dev.from_device(out, n, np.float32), expected)


# ---- hand-written forms (tests/emulator_kernels/calls.ptx, checked by ptxas in
# test_emulator_ptx.py) and errors

def _calls():
    dev = Emulator()
    text = (Path(__file__).parent / "emulator_kernels" / "calls.ptx").read_text()
    return dev, dev.module_from_buffer(text)


def test_guarded_call_early_return_and_no_result(rng):
    n = 96
    x = rng.integers(-200, 200, n).astype(np.int32)
    dev, module = _calls()
    out, counter = dev.mem_alloc(4 * n), dev.to_device(np.zeros(1, np.uint32))
    module.get_function("guarded_calls")(dev.to_device(x), out, counter, block=(n, 1, 1))
    i = np.arange(n)
    expected = np.where(i % 2 == 1, np.minimum(x + i, 100), x)
    np.testing.assert_array_equal(dev.from_device(out, n, np.int32), expected)
    assert dev.from_device(counter, 1, np.uint32)[0] == n


def test_indirect_call_with_a_prototype_and_no_argument_list(rng):
    """`call (r), %rd, prototype;`: a function pointer to a function without parameters."""
    n = 48
    x = rng.integers(-10 ** 6, 10 ** 6, n).astype(np.int32)
    dev, module = _calls()
    out = dev.mem_alloc(4 * n)
    module.get_function("pointer_without_arguments")(dev.to_device(x), out, block=(n, 1, 1))
    np.testing.assert_array_equal(dev.from_device(out, n, np.int32), x + 7)


def test_endless_recursion_is_a_fault_not_a_hang():
    dev, module = _calls()
    with pytest.raises(KernelFault, match=r"kernel endless, line \d+ `call \(d1\), down, "
                                          r"\(d0\)`.*nested 4096 deep"):
        module.get_function("endless")(dev.mem_alloc(4), block=(2, 1, 1))


def test_runaway_recursion_with_local_frames_faults_at_the_stack_limit():
    """1024 threads recursing with 256-byte frames fault once their call stacks (frames and
    saved registers) would pass MAX_LAUNCH_STACK: about 1000 levels, long before the
    per-thread limit (1 MiB, 4096 levels) would be reached."""
    from accy.runtime.emulator.calls import MAX_LAUNCH_STACK
    dev, module = _calls()
    with pytest.raises(KernelFault, match="more than the emulator's") as fault:
        module.get_function("endless_frames")(dev.mem_alloc(4), block=(1024, 1, 1))
    total, frames, saved = map(int, re.search(r"need (\d+) bytes \((\d+) of local memory "
                                              r"for 1024 threads' frames, (\d+) of saved",
                                              str(fault.value)).groups())
    assert total == frames + saved > MAX_LAUNCH_STACK
    # it tripped at the first frame or save past the limit: one frame (256 bytes a thread)
    # or one level's saved register (8 bytes a thread) before, it fit
    assert total - 1024 * 256 <= MAX_LAUNCH_STACK


def test_parameter_address_is_a_local_address():
    n = 40
    dev, module = _calls()
    out = dev.mem_alloc(4 * n)
    module.get_function("param_address")(out, block=(n, 1, 1))
    np.testing.assert_array_equal(dev.from_device(out, n, np.int32), 2 * (np.arange(n) + 21))


def test_callee_reading_an_earlier_frames_bytes_is_uninitialized():
    """A new frame's bytes are unwritten, whatever an earlier activation in the same place
    wrote (read_frame would read fill_frame's 7)."""
    dev, module = _calls()
    with pytest.raises(KernelFault, match=r"ld.local.u32 %r1, \[stale_buf\]`.*read of "
                                          r"uninitialized local memory"):
        module.get_function("stale_frame")(dev.mem_alloc(4), block=(2, 1, 1))


def test_indirect_call_to_something_else_is_a_fault():
    dev, module = _calls()
    with pytest.raises(KernelFault, match=r"kernel bad_pointer, line \d+ `call \(q2\), %rd2, "
                                          r"\(q0, q1\), proto`, block 0 thread 0: indirect call "
                                          r"to 0x1234, which is none of the functions this call "
                                          r"can reach \(clamp_add\)"):
        module.get_function("bad_pointer")(np.uint64(0x1234), block=(1, 1, 1))


EXTERN_CALL = """\
.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 r) elsewhere(.param .b32 x);
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r1;
    {
    .param .b32 a;
    .param .b32 b;
    st.param.b32 [a], 1;
    call (b), elsewhere, (a);
    ld.param.b32 %r1, [b];
    }
    ret;
}
"""


def test_call_to_a_function_without_body_is_named(tmp_path):
    # valid PTX for separate compilation (ptxas -c); a loaded module cannot run it
    path = tmp_path / "extern.ptx"
    path.write_text(EXTERN_CALL)
    done = subprocess.run([PTXAS, "-arch=sm_90", "-c", str(path), "-o", os.devnull],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with pytest.raises(PtxError, match=r"line 12: the called function elsewhere is declared "
                                       r"without a body"):
        Emulator().module_from_buffer(EXTERN_CALL)


POINTER_TABLE = """\
.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) one(.param .b32 x)
{
    .reg .b32 %r1;
    ld.param.b32 %r1, [x];
    st.param.b32 [r], %r1;
    ret;
}
.global .align 8 .u64 table[1] = {one};
.visible .entry k(.param .u64 p)
{
    ret;
}
"""


def test_function_address_in_an_initializer_is_named():
    assemble(POINTER_TABLE)
    with pytest.raises(PtxError, match=r"line 11: only numbers are supported as initializers"):
        Emulator().module_from_buffer(POINTER_TABLE)



HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def test_function_with_reg_parameters_loads_until_called():
    """.reg parameters are not modelled, but only a call to such a function is an error: a
    module that merely defines one loads and runs."""
    text = HEAD + """\
.func (.reg .b32 r) unused(.reg .b32 a) { mov.b32 r, a; ret; }
.visible .entry k(.param .u64 p)
{
    .reg .b64 %rd1;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd1, %rd1;
    st.global.u32 [%rd1], 5;
    ret;
}
"""
    assemble(text)
    dev = Emulator()
    out = dev.mem_alloc(4)
    dev.module_from_buffer(text).get_function("k")(out, block=(1, 1, 1))
    assert dev.from_device(out, 1, np.uint32)[0] == 5


# Not valid PTX (ptxas rejects each; on the .param variable of a kernel without calls it
# crashes), so not texts ptxas checks: the emulator must refuse them at load, naming the
# kernel and the names as written.
BAD_LINKS = [
    ("{ .reg .b32 %y; { .param .b32 p0; st.param.b32 [p0], 5; ld.param.b32 %y, [p0]; } ret; }",
     r"kernel k, line 5: the .param variable p0 is declared but the kernel makes no call"),
    ("{ .reg .b32 %y; { .param .b64 p0; .param .b32 r0; st.param.b64 [p0], 1; "
     "call (r0), f, (p0); ld.param.b32 %y, [r0]; } ret; }",
     r"kernel k, line 5: p0 is not a .param variable of 4 bytes, as f needs"),
    ("{ call g, (); ret; }", r"kernel k, line 5: the called function g is not defined"),
    ("{ .reg .b32 %y; { .param .b32 p0; .param .b32 r0; st.param.b32 [p0], 1; "
     "call (r0), f, p0; ld.param.b32 %y, [r0]; } ret; }",
     r"line 5: a call's arguments go in parentheses, `\(p0\)`, after the target"),
    ("{ .reg .b32 %y; { .param .b32 r0; call (r0), f, (x__p3); ld.param.b32 %y, [r0]; } "
     "ret; }", r"kernel k, line 5: x__p3 is not a .param variable of 4 bytes, as f needs"),
]


@pytest.mark.parametrize("body, message", BAD_LINKS,
                         ids=["param_without_call", "argument_size", "undefined", "no_parens",
                              "undeclared_argument"])
def test_link_errors_name_kernel_and_declared_names(body, message):
    text = HEAD + ".func (.param .b32 r) f(.param .b32 a) { st.param.b32 [r], 3; ret; }\n" + \
        f".visible .entry k(.param .u64 o) {body}\n"
    with pytest.raises(PtxError, match=message) as error:
        Emulator().module_from_buffer(text)
    assert SCOPED not in str(error.value)       # the names as written, not as scoped
