"""The emulator's per-step cost and the fast paths that keep it low: an instruction's operands
are resolved when it is compiled (a step is then its numpy work, whatever the lane count: serial
kernels pay it per instruction), global accesses inside one allocation skip the allocation
search, special registers are computed when first read. Each fast path must give what the
general one gives: values, NaN payloads, faults naming the thread and address."""
import sys

import numpy as np
import pytest

from accy.runtime.emulator import Emulator, KernelFault
from accy.runtime.emulator.instructions import HANDLERS, _finish, _float_fn, _fma_exact
from accy.runtime.emulator.machine import VIEW, Machine
from accy.runtime.emulator.ptx import parse
from exact_fma import hard_cases, reference_fma
from ptxas_check import assemble

HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n"

# one thread: y[i] = x[0] + ... + x[i], a loop of nine instructions per element
SERIAL_SUM = HEADER + r"""
.visible .entry serial_sum(.param .u64 px, .param .u64 py, .param .u32 pn)
{
 .reg .pred %p<2>;
 .reg .b32 %r<4>;
 .reg .f32 %f<3>;
 .reg .b64 %rd<6>;
 ld.param.u64 %rd1, [px];
 ld.param.u64 %rd2, [py];
 ld.param.u32 %r1, [pn];
 cvta.to.global.u64 %rd1, %rd1;
 cvta.to.global.u64 %rd2, %rd2;
 mov.u32 %r2, 0;
 mov.f32 %f1, 0f00000000;
LOOP:
 mul.wide.u32 %rd3, %r2, 4;
 add.s64 %rd4, %rd1, %rd3;
 ld.global.f32 %f2, [%rd4];
 add.rn.f32 %f1, %f1, %f2;
 add.s64 %rd5, %rd2, %rd3;
 st.global.f32 [%rd5], %f1;
 add.s32 %r2, %r2, 1;
 setp.lt.u32 %p1, %r2, %r1;
 @%p1 bra LOOP;
 ret;
}
"""

# thread i reads a[i] (even i) or b[i] (odd i): one load over two allocations; then stores
# the NaN immediate 0f7FC00123 to c[i] and that value + 1 to d[min(i, n)]
TWO_BUFFERS = HEADER + r"""
.visible .entry two_buffers(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd,
                            .param .u32 pn)
{
 .reg .pred %p<2>;
 .reg .b32 %r<4>;
 .reg .f32 %f<4>;
 .reg .b64 %rd<10>;
 ld.param.u64 %rd1, [pa];
 ld.param.u64 %rd2, [pb];
 ld.param.u64 %rd3, [pc];
 ld.param.u64 %rd4, [pd];
 ld.param.u32 %r3, [pn];
 mov.u32 %r1, %tid.x;
 and.b32 %r2, %r1, 1;
 setp.eq.u32 %p1, %r2, 0;
 selp.b64 %rd5, %rd1, %rd2, %p1;
 mul.wide.u32 %rd6, %r1, 4;
 add.s64 %rd7, %rd5, %rd6;
 ld.global.f32 %f1, [%rd7];
 add.s64 %rd8, %rd3, %rd6;
 mov.f32 %f2, 0f7FC00123;
 st.global.f32 [%rd8], %f2;
 add.f32 %f3, %f1, 0f3F800000;
 min.u32 %r2, %r1, %r3;
 mul.wide.u32 %rd6, %r2, 4;
 add.s64 %rd9, %rd4, %rd6;
 st.global.f32 [%rd9], %f3;
 ret;
}
"""


def _launch(text, name, args, block):
    assemble(text)
    dev = Emulator()
    pointers = [dev.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    stats = dev.module_from_buffer(text).get_function(name)(*pointers, block=(block, 1, 1))
    return dev, pointers, stats


def test_a_serial_step_costs_a_bounded_number_of_python_calls(rng):
    """A one-thread loop: the Python calls per instruction (function and builtin calls, as a
    profiler sees them) stay few; resolving operands on every step took more than 30."""
    x = rng.standard_normal(256).astype(np.float32)
    _launch(SERIAL_SUM, "serial_sum", [x, np.zeros(256, np.float32), np.uint32(256)], 1)
    dev = Emulator()
    px, py = dev.to_device(x), dev.mem_alloc(x.nbytes)
    fn = dev.module_from_buffer(SERIAL_SUM).get_function("serial_sum")
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")
    sys.setprofile(count)
    try:
        stats = fn(px, py, np.uint32(256), block=(1, 1, 1))
    finally:
        sys.setprofile(None)
    assert stats.thread_instructions == 7 + 9 * 256 + 1
    assert calls / stats.steps < 16, f"{calls / stats.steps:.1f} Python calls per step"
    got = dev.from_device(py, 256, np.float32)
    assert np.array_equal(got, np.add.accumulate(x))        # in order, rounded each step
    assert np.allclose(got, np.cumsum(x.astype(np.float64)), rtol=1e-4, atol=1e-4)


def test_one_access_over_two_allocations_and_constant_nan_bits(rng):
    n = 64
    a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    dev, (_, _, pc, pd, _), _ = _launch(
        TWO_BUFFERS, "two_buffers",
        [a, b, np.zeros(n, np.uint32), np.zeros(n, np.float32), np.uint32(n - 1)], n)
    picked = np.where(np.arange(n) % 2 == 0, a, b)
    got = dev.from_device(pd, n, np.float32)
    assert np.array_equal(got, picked + np.float32(1))
    assert np.allclose(got, picked.astype(np.float64) + 1, rtol=1e-6, atol=1e-6)
    assert np.all(dev.from_device(pc, n, np.uint32) == 0x7FC00123)   # the payload kept


def test_an_access_past_the_end_of_its_allocation_names_the_thread():
    """The last thread's store reaches one element past d: the fast in-one-allocation path
    must leave it to the full check, which names the thread and the address."""
    n = 64
    assemble(TWO_BUFFERS)
    dev = Emulator()
    x = dev.to_device(np.ones(n, np.float32))
    c, d = dev.mem_alloc(4 * n), dev.mem_alloc(4 * (n - 1))
    fn = dev.module_from_buffer(TWO_BUFFERS).get_function("two_buffers")
    with pytest.raises(KernelFault, match=rf"kernel two_buffers, line \d+ `st\.global\.f32 "
                                          rf"\[%rd9\], %f3`, block 0 thread 63: out-of-bounds "
                                          rf"access of 4 bytes at {int(d) + 4 * (n - 1):#x} "
                                          rf"\(1 bad accesses\)"):
        fn(x, x, c, d, np.uint32(n), block=(n, 1, 1))


def test_special_registers_are_computed_only_when_read(rng):
    """A launch of 4096 threads that reads %tid.x computes that table and no other."""
    assemble(TWO_BUFFERS)
    module = parse(TWO_BUFFERS)
    dev = Emulator()
    n = 64
    args = [dev.to_device(rng.standard_normal(n).astype(np.float32)) for _ in range(4)] + \
        [np.uint32(n - 1)]
    machine = Machine(module, module.kernels["two_buffers"], (64, 1, 1), (n, 1, 1), 0, args,
                      dev.memory, HANDLERS)
    assert dict(machine.special) == {}
    machine.run()
    assert set(dict(machine.special)) == {"tid.x"}
    got = dev.from_device(args[3], n, np.float32)
    picked = np.where(np.arange(n) % 2 == 0, dev.from_device(args[0], n, np.float32),
                      dev.from_device(args[1], n, np.float32))
    assert np.array_equal(got, picked + np.float32(1))


@pytest.mark.parametrize("elem", ["f32", "f16", "bf16"])
def test_the_round_to_nearest_narrow_fma_is_the_exact_route(elem, rng):
    """fma.rn on 16/32-bit floats takes a shorter route than the general exact one
    (_fma_exact, rounded by _finish); on random bit patterns (NaN payloads, infinities,
    subnormals, zeros) and near cancellations both give the same bits."""
    view = np.dtype(VIEW[elem])
    uint = np.dtype(f"u{view.itemsize}")
    x = rng.integers(0, 2 ** (8 * view.itemsize), (3, 20000), dtype=np.uint64).astype(uint) \
        .view(view)
    with np.errstate(all="ignore"):          # as the machine runs instructions
        x[2, :2000] = -(x[0, :2000].astype(np.float64) * x[1, :2000].astype(np.float64)) \
            .astype(view)                           # c = -(a * b) rounded
        wide = [v.astype(np.float64) for v in x]
        general = np.asarray(_finish(*_fma_exact(*wide, narrow=True), elem, "rn")).astype(view)
        fast = _float_fn("fma", elem, "rn")(*x)
        # and near the f64 value: within half an ulp of the type (its precision, its
        # smallest subnormal) plus the f64 sum's own rounding
        got, product = fast.astype(np.float64), wide[0] * wide[1]
        near = product + wide[2]
        bits, tiny = {"f32": (24, 2.0 ** -149), "f16": (11, 2.0 ** -24),
                      "bf16": (8, 2.0 ** -133)}[elem]
        bound = np.abs(near) * 2.0 ** -bits + tiny + \
            np.maximum(np.abs(product), np.abs(wide[2])) * 2.0 ** -52
        finite = np.isfinite(got) & np.isfinite(near)
        error = np.abs(got - near)
    assert fast.dtype == view
    assert np.array_equal(fast.view(uint), general.view(uint))
    assert finite.sum() > 10000
    assert np.all(error[finite] <= bound[finite])


@pytest.mark.parametrize("elem, per_group", [("f16", 2500), ("bf16", 2500), ("f32", 500),
                                             ("f64", 500)])
def test_fma_rn_is_the_exactly_rounded_value(elem, per_group, rng):
    """fma.rn, by the round-to-nearest route the emulator takes (on whole arrays and on four
    lanes at a time: f64's takes a shortcut when all of a call's lanes allow it) and by the
    general exact route, is a * b + c rounded once to nearest-even: bit for bit against a
    Fraction reference on fma's hard cases (cancellation, ties and sticky bits, subnormals,
    overflow, zero signs) and random bit patterns. A double rounding is one ulp off here."""
    seed = int(rng.integers(2 ** 32))
    view = np.dtype(VIEW[elem])
    uint = np.dtype(f"u{view.itemsize}")
    cases = hard_cases(elem, view, np.random.default_rng(seed), per_group)
    want = reference_fma(cases, elem)
    fma = _float_fn("fma", elem, "rn")
    with np.errstate(all="ignore"):          # as the machine runs instructions
        routes = {
            "rn route": fma(*cases),
            "rn route, 4 lanes a call": np.concatenate(
                [fma(*cases[:, i:i + 4]) for i in range(0, cases.shape[1], 4)]),
            "general route": np.asarray(_finish(*_fma_exact(
                *cases.astype(np.float64), narrow=elem != "f64"), elem, "rn")).astype(view)}
    nan = np.isnan(want)
    want_bits = want[~nan].astype(view).view(uint)
    for route, got in routes.items():
        assert got.dtype == view
        wrong = np.flatnonzero(np.isnan(got.astype(np.float64)) != nan)
        if not len(wrong):
            wrong = np.flatnonzero(~nan)[got[~nan].view(uint) != want_bits]
        assert not len(wrong), (
            f"seed {seed}, {route}: {len(wrong)} wrong, e.g. fma.rn.{elem}"
            f"({', '.join(repr(float(x)) for x in cases[:, wrong[0]])}) = "
            f"{float(got[wrong[0]])!r}, exactly rounded {want[wrong[0]]!r}")


@pytest.mark.parametrize("spread", ["bit patterns", "unit", "wide exponents"])
def test_the_round_to_nearest_f64_fma_is_the_exact_route(spread, rng):
    """fma.rn.f64 skips the error sign and, when every lane is in range, the fix-ups of the
    general route: the same bits, on whole arrays (one lane out of range sends all of them the
    general way) and on slices of four lanes (most taking the short one)."""
    if spread == "bit patterns":
        x = rng.integers(0, 2 ** 64 - 1, (3, 4000), dtype=np.uint64).view(np.float64)
    else:
        x = rng.standard_normal((3, 4000))
        if spread == "wide exponents":
            x *= np.exp2(rng.integers(-400, 400, x.shape))
    fma = _float_fn("fma", "f64", "rn")
    with np.errstate(all="ignore"):
        x[2, :400] = -(x[0, :400] * x[1, :400])      # near cancellation
        for part in [x] + [x[:, i:i + 4] for i in range(0, 4000, 4)]:
            general = np.asarray(_finish(*_fma_exact(*part), "f64", "rn"))
            assert np.array_equal(fma(*part).view(np.uint64), general.view(np.uint64))
        got, product = fma(*x), x[0] * x[1]
    if spread == "unit":       # and within the rounding of the f64 product and sum
        bound = (np.abs(product) + np.abs(x[2])) * 2.0 ** -52
        assert np.all(np.abs(got - (product + x[2])) <= bound)
