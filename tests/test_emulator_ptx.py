"""Hand-written PTX on the emulator (tests/emulator_kernels/*.ptx): the edge cases of cvt
rounding, .ftz, NaN in min/max/setp, predication, wide/high multiplies, shifts and integer
division, and deliberately broken kernels that must be reported with the kernel, the PTX line
and instruction, the block and thread, and the address. Every .ptx file there must also be
accepted by ptxas."""
import os
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from accy.lowering.ptxas import find_ptxas
from accy.runtime.emulator import Emulator, KernelFault, PtxError

from child_process import run_bounded

KERNELS = Path(__file__).parent / "emulator_kernels"
PTX_FILES = sorted(KERNELS.glob("*.ptx"))
BF16 = np.dtype(ml_dtypes.bfloat16)
FLT_MIN = np.float32(np.finfo(np.float32).tiny)


def source(name):
    return (KERNELS / name).read_text()


def line_of(name, text, kernel=None):
    """The 1-based line of the first line of `name` holding `text` (after `.entry kernel`)."""
    lines = source(name).splitlines()
    start = 0
    if kernel is not None:
        start = next(i for i, s in enumerate(lines) if re.search(rf"\.entry {kernel}\(", s))
    return next(i + 1 for i, s in enumerate(lines) if i >= start and s.strip() == text)


def load(name, kernel):
    dev = Emulator()
    return dev, dev.module_from_buffer(source(name)).get_function(kernel)


def words(x):
    return np.asarray(x).view(np.uint32) if np.asarray(x).dtype.itemsize == 4 else x


def bits_equal(actual, expected, what=""):
    """Bit-exact float comparison, any NaN matching any NaN."""
    actual, expected = np.asarray(actual, np.float32), np.asarray(expected, np.float32)
    both_nan = np.isnan(actual) & np.isnan(expected)
    bad = np.nonzero((actual.view(np.uint32) != expected.view(np.uint32)) & ~both_nan)[0]
    assert not bad.size, (f"{what}: {bad.size} mismatches, first at {bad[0]}: got "
                          f"{actual[bad[0]]!r}, expected {expected[bad[0]]!r}")


@pytest.mark.parametrize("path", PTX_FILES, ids=[p.name for p in PTX_FILES])
def test_ptxas_accepts(path):
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas is not installed: the CUDA toolkit is needed to check the PTX")
    done = run_bounded([ptxas, "-arch=sm_90", str(path), "-o", os.devnull],
                       capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ---- cvt ---------------------------------------------------------------------------------------

SPECIAL_FLOATS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
                  0.49999997, 1e-45, -1e-45, 254.5, 255.5, 256.0, 300.7, -1.0, -0.7, 32767.5,
                  -32768.7, 40000.0, 2147483520.0, 2147483648.0, -2147483648.0, -3e9, 4294967040.0,
                  4294967296.0, 1e20, 0.99999994, 1.0000001]


def _floats(rng, n=128):
    f = (rng.standard_normal(n) * rng.choice([1, 100, 1e5, 1e10], n)).astype(np.float32)
    f[:len(SPECIAL_FLOATS)] = SPECIAL_FLOATS
    f[40:60] = np.round(f[40:60]) + 0.5                 # ties between integers
    return f


def _to_int(v, lo, hi):
    return np.clip(np.where(np.isnan(v), 0, v), lo, hi).astype(np.int64)


def test_cvt_float_to_int_rounding_saturation_nan(rng):
    f = _floats(rng)
    n = len(f)
    dev, fn = load("edge_cases.ptx", "cvt_f2i")
    pf, po = dev.to_device(f), dev.mem_alloc(32 * n)
    fn(pf, po, block=(n, 1, 1))
    got = dev.from_device(po, (n, 8), np.uint32)
    x = f.astype(np.float64)
    s32 = (-2**31, 2**31 - 1)
    expected = [
        ("cvt.rni.s32.f32", _to_int(np.rint(x), *s32)),
        ("cvt.rzi.s32.f32", _to_int(np.trunc(x), *s32)),
        ("cvt.rmi.s32.f32", _to_int(np.floor(x), *s32)),
        ("cvt.rpi.s32.f32", _to_int(np.ceil(x), *s32)),
        ("cvt.rni.u32.f32", _to_int(np.rint(x), 0, 2**32 - 1)),
        ("cvt.rzi.s16.f32", _to_int(np.trunc(x), -2**15, 2**15 - 1)),
        ("cvt.rni.u8.f32", _to_int(np.rint(x), 0, 255)),
    ]
    for j, (what, e) in enumerate(expected):
        np.testing.assert_array_equal(got[:, j], e.astype(np.uint32),
                                      err_msg=f"{what} of {f.tolist()}")
    # cvt.sat.f32.f32 clamps to [0, 1] and turns NaN into +0 (the sign of a zero result is not
    # checked: PTX does not say whether -0.0 saturates to +0.0)
    sat = np.where(np.isnan(f), np.float32(0), np.clip(f, 0, 1)).astype(np.float32)
    got_sat = got[:, 7].view(np.float32)
    np.testing.assert_array_equal(got_sat, sat, err_msg="cvt.sat.f32.f32")
    assert not np.signbit(got_sat[np.isnan(f)]).any(), "cvt.sat.f32.f32: NaN -> +0"


def test_cvt_float_to_float(rng):
    f = _floats(rng)
    f[100:128] = (rng.standard_normal(28) * 1e-3).astype(np.float32)   # rounding to f16/bf16
    n = len(f)
    dev, fn = load("edge_cases.ptx", "cvt_f2f")
    pf, po = dev.to_device(f), dev.mem_alloc(20 * n)
    fn(pf, po, block=(n, 1, 1))
    got = dev.from_device(po, (n, 5), np.uint32)
    for j, (what, rounding) in enumerate([("rni", np.rint), ("rzi", np.trunc),
                                          ("rmi", np.floor), ("rpi", np.ceil)]):
        bits_equal(got[:, j].view(np.float32), rounding(f), f"cvt.{what}.f32.f32")
    half = (got[:, 4] & 0xFFFF).astype(np.uint16).view(np.float16)
    bf = (got[:, 4] >> 16).astype(np.uint16).view(BF16)
    with np.errstate(over="ignore"):                    # large values round to inf
        bits_equal(half.astype(np.float32), f.astype(np.float16).astype(np.float32),
                   "cvt.rn.f16.f32")
    bits_equal(bf.astype(np.float32), f.astype(BF16).astype(np.float32), "cvt.rn.bf16.f32")


# ---- .ftz --------------------------------------------------------------------------------------

def _flush(x):
    x = np.asarray(x, np.float32)
    return np.where((np.abs(x) < FLT_MIN) & (x != 0), np.copysign(np.float32(0), x), x)


def test_ftz_on_add_and_mul(rng):
    a = (rng.standard_normal(64) * 1e-38).astype(np.float32)        # many subnormals
    b = (rng.standard_normal(64) * 1e-38).astype(np.float32)
    a[:8] = [1e-40, -1e-40, 1e-40, 1e-20, -1e-20, 2e-38, -1e-45, 3.0]
    b[:8] = [0.0, -0.0, 1e-40, 1e-20, 1e-20, -1.5e-38, 0.0, 1e-39]
    dev, fn = load("edge_cases.ptx", "ftz")
    pa, pb, po = dev.to_device(a), dev.to_device(b), dev.mem_alloc(16 * 64)
    fn(pa, pb, po, block=(64, 1, 1))
    got = dev.from_device(po, (64, 4), np.float32)
    bits_equal(got[:, 0], a + b, "add.f32")
    bits_equal(got[:, 1], _flush(_flush(a) + _flush(b)), "add.ftz.f32")
    bits_equal(got[:, 2], a * b, "mul.f32")
    bits_equal(got[:, 3], _flush(_flush(a) * _flush(b)), "mul.ftz.f32")
    # spelled out: a subnormal input or result becomes a zero of its sign
    assert got[0, 0] == np.float32(1e-40) and got[0, 1] == 0
    assert np.signbit(got[1, 1]) and got[1, 1] == 0               # -1e-40 + -0 -> -0
    assert got[3, 2] == np.float32(1e-20) * np.float32(1e-20) and got[3, 3] == 0
    assert np.signbit(got[4, 3])                                   # -1e-40 -> -0
    assert got[5, 0] != 0 and got[5, 1] == 0                       # 2e-38 - 1.5e-38: subnormal


# ---- NaN in min/max/setp ------------------------------------------------------------------------

def _nan_pairs(rng):
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    b[10:20] = a[10:20]                                            # equal pairs
    a[:6] = [np.nan, 1.0, np.nan, np.inf, -np.inf, np.nan]
    b[:6] = [1.0, np.nan, np.nan, np.nan, 2.0, -np.inf]
    return a, b


def _run_on_pairs(kernel, a, b, words, dtype):
    """Run edge_cases.ptx's `kernel` on 64 threads (a, b) -> (64, words) results."""
    dev, fn = load("edge_cases.ptx", kernel)
    out = dev.mem_alloc(4 * words * 64)
    fn(dev.to_device(a), dev.to_device(b), out, block=(64, 1, 1))
    return dev.from_device(out, (64, words), dtype)


def test_nan_in_min_max_and_setp(rng):
    a, b = _nan_pairs(rng)
    got = _run_on_pairs("nan_compare", a, b, 12, np.uint32)
    bits_equal(got[:, 0].view(np.float32), np.fmin(a, b), "min.f32")    # NaN loses to a number
    bits_equal(got[:, 1].view(np.float32), np.fmax(a, b), "max.f32")
    nan = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        expected = [("lt", a < b), ("ltu", (a < b) | nan), ("num", ~nan), ("nan", nan),
                    ("ge", a >= b), ("geu", (a >= b) | nan), ("eq", a == b),
                    ("equ", (a == b) | nan), ("ne", (a != b) & ~nan), ("neu", (a != b) | nan)]
    for j, (what, e) in enumerate(expected, start=2):
        np.testing.assert_array_equal(got[:, j], e.astype(np.uint32),
                                      err_msg=f"setp.{what}.f32 on {a[:6]}, {b[:6]}")


def test_min_max_nan_modifier_propagates(rng):
    a, b = _nan_pairs(rng)
    got = _run_on_pairs("nan_propagate", a, b, 2, np.float32)
    bits_equal(got[:, 0], np.minimum(a, b), "min.NaN.f32")
    bits_equal(got[:, 1], np.maximum(a, b), "max.NaN.f32")


# ---- predication and selp 

def test_predicated_stores_and_selp(rng):
    n = 96
    x = rng.integers(-30, 30, n).astype(np.int32)
    x[:3] = [-1, 0, 9]
    dev, fn = load("edge_cases.ptx", "predicated")
    sentinel = np.full(n, 0x7EADBEEF, np.int32)
    px, pneg, ppos = dev.to_device(x), dev.to_device(sentinel), dev.to_device(sentinel)
    psel = dev.mem_alloc(8 * n)
    fn(px, pneg, ppos, psel, block=(n, 1, 1))
    neg, pos = dev.from_device(pneg, n, np.int32), dev.from_device(ppos, n, np.int32)
    np.testing.assert_array_equal(neg, np.where(x < 0, x, sentinel))        # @%p1 st
    np.testing.assert_array_equal(pos, np.where(x < 0, sentinel, x))        # @!%p1 st
    sel = dev.from_device(psel, (n, 2), np.int32)
    np.testing.assert_array_equal(sel[:, 0], np.where(x < 0, 100, -100))    # selp.s32
    # %p2|%p3 = x < 10 and its negation; %p4 = (x > -10) and %p2
    np.testing.assert_array_equal(sel[:, 1], 2 * (x >= 10) + ((x > -10) & (x < 10)))


def test_label_in_front_of_a_scope():
    n = 40
    dev, fn = load("edge_cases.ptx", "label_scope")
    out = dev.mem_alloc(4 * n)
    fn(out, block=(n, 1, 1))
    i = np.arange(n, dtype=np.uint32)
    np.testing.assert_array_equal(dev.from_device(out, n, np.uint32),
                                  np.where(i < 3, i, i + 100) * 2 + 1)


def test_32_bit_address_register_plus_offset_wraps(rng):
    """A 32-bit base register below a variable plus an offset that reaches it wraps at 2^32,
    for shared scalar, vector and atomic accesses and a local one (it faulted at 2^32 + x)."""
    n = 128
    x = rng.integers(0, 2**32 - 1, n, dtype=np.uint32)
    dev, fn = load("edge_cases.ptx", "wrapped_addresses")
    out = dev.mem_alloc(8 * n)
    fn(dev.to_device(x), out, block=(n, 1, 1))
    np.testing.assert_array_equal(dev.from_device(out, (n, 2), np.uint32),
                                  np.stack([x, x + np.uint32(1)], 1))


# ---- integer multiply, shifts, division 

def _i32(rng, n):
    v = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    v[:4] = [-2**31, 2**31 - 1, -1, 0]
    return v


def _i64(rng, n):
    v = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64, endpoint=True)
    v[:4] = [-2**63, 2**63 - 1, -1, 3]
    return v


def _wrap(values, bits, signed):
    out = []
    for v in values:
        v &= (1 << bits) - 1
        if signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return out


def test_mul_hi_lo_wide(rng):
    n = 64
    a, b, c, d = _i32(rng, n), _i32(rng, n)[::-1].copy(), _i64(rng, n), _i64(rng, n)[::-1].copy()
    dev, fn = load("edge_cases.ptx", "int_mul")
    ptrs = [dev.to_device(v) for v in (a, b, c, d)]
    p32, p64 = dev.mem_alloc(16 * n), dev.mem_alloc(48 * n)
    fn(*ptrs, p32, p64, block=(n, 1, 1))
    g32 = dev.from_device(p32, (n, 4), np.int32).tolist()
    g64 = dev.from_device(p64, (n, 6), np.int64).tolist()
    for i in range(n):
        x, y, z, w = int(a[i]), int(b[i]), int(c[i]), int(d[i])
        ux, uy, uz, uw = x & 0xFFFFFFFF, y & 0xFFFFFFFF, z & (2**64 - 1), w & (2**64 - 1)
        assert g32[i] == _wrap([x * y, (x * y) >> 32, (ux * uy) >> 32, x * y + x], 32, True), i
        assert g64[i] == _wrap([x * y, ux * uy, (z * w) >> 64, (uz * uw) >> 64, z * w,
                                x * y + z], 64, True), (i, x, y, z, w)


def test_shifts_signed_unsigned_and_past_width(rng):
    n = 96
    a, c = _i32(rng, n), _i64(rng, n)
    s = rng.integers(0, 80, n).astype(np.uint32)
    s[:8] = [0, 31, 32, 33, 63, 64, 65, 0xFFFFFFFF]
    dev, fn = load("edge_cases.ptx", "shifts")
    pa, ps, pc = dev.to_device(a), dev.to_device(s), dev.to_device(c)
    p32, p64 = dev.mem_alloc(16 * n), dev.mem_alloc(24 * n)
    fn(pa, ps, pc, p32, p64, block=(n, 1, 1))
    g32 = dev.from_device(p32, (n, 4), np.int32).tolist()
    g64 = dev.from_device(p64, (n, 3), np.int64).tolist()
    for i in range(n):
        x, z, k = int(a[i]), int(c[i]), int(s[i])
        k32, k64 = min(k, 32), min(k, 64)             # amounts past the width clamp to it
        ux, uz = x & 0xFFFFFFFF, z & (2**64 - 1)
        assert g32[i] == _wrap([x >> k32, ux >> k32, ux << k32, ux >> k32], 32, True), (i, x, k)
        assert g64[i] == _wrap([z >> k64, uz >> k64, uz << k64], 64, True), (i, z, k)


def _run_int_div(rng):
    n = 64
    a, c = _i32(rng, n), _i64(rng, n)
    b = rng.integers(-1000, 1000, n).astype(np.int32)
    d = rng.integers(-10**12, 10**12, n).astype(np.int64)
    b[:8] = [0, 0, 0, 0, -1, 7, -7, 1]
    d[:8] = [0, 0, 0, 0, -1, 7, -7, 1]
    a[4:8] = [2**31 - 1, -9, 9, -5]
    c[4:8] = [2**63 - 1, -9, 9, -5]            # -9 and -5 as u64: quotients past 2^63
    dev, fn = load("edge_cases.ptx", "int_div")
    ptrs = [dev.to_device(v) for v in (a, b, c, d)]
    p32, p64 = dev.mem_alloc(16 * n), dev.mem_alloc(24 * n)
    fn(*ptrs, p32, p64, block=(n, 1, 1))          # must not raise, whatever x / 0 gives
    return (a, b, c, d), dev.from_device(p32, (n, 4), np.uint32).tolist(), \
        dev.from_device(p64, (n, 3), np.uint64).tolist()


def _tdiv(p, q):
    r = abs(p) // abs(q)
    return r if (p >= 0) == (q >= 0) else -r


def test_integer_division_32_including_by_zero(rng):
    (a, b, _, _), g32, _ = _run_int_div(rng)
    for i in range(len(a)):
        x, y = int(a[i]), int(b[i])
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        if y == 0:
            # PTX leaves x / 0 unspecified; the unsigned results are what the hardware gives
            assert g32[i][2:] == [0xFFFFFFFF, ux], i
        else:
            q = _tdiv(x, y)
            assert g32[i] == _wrap([q, x - q * y, ux // uy, ux % uy], 32, False), (i, x, y)


def test_integer_division_64_including_by_zero(rng):
    (_, _, c, d), _, g64 = _run_int_div(rng)
    for i in range(len(c)):
        z, w = int(c[i]), int(d[i])
        uz, uw = z & (2**64 - 1), w & (2**64 - 1)
        if w == 0:
            assert g64[i][2] == 2**64 - 1, i
        else:
            q = _tdiv(z, w)
            assert g64[i] == _wrap([q, z - q * w, uz // uw], 64, False), (i, z, w, g64[i])


# ---- broken kernels: precise reports 

def _fault(name, kernel, args, **launch):
    dev, fn = load(name, kernel)
    with pytest.raises(KernelFault) as info:
        fn(*[a(dev) if callable(a) else a for a in args], **launch)
    return str(info.value)


GLOBAL_FAULTS = [
    # kernel, faulting instruction, block size, thread, address - first allocation, kind
    ("oob_store", "st.global.u32 [%rd3], %r1;", 41, 40, 4 * 40, "out-of-bounds"),
    ("misaligned_load", "ld.global.u32 %r2, [%rd5];", 32, 5, 22, "misaligned"),
    ("oob_generic_load", "ld.u32 %r2, [%rd5];", 32, 7, -4, "out-of-bounds"),
]


@pytest.mark.parametrize("kernel,instruction,block,thread,offset,kind", GLOBAL_FAULTS,
                         ids=[f[0] for f in GLOBAL_FAULTS])
def test_bad_global_accesses_name_kernel_line_thread_and_address(kernel, instruction, block,
                                                                 thread, offset, kind):
    """The first argument is a 40-int allocation (kernels that read take its values as input,
    and the second, if any, is where they write)."""
    bases = []

    def first(dev):
        bases.append(dev.to_device(np.arange(40, dtype=np.int32)))
        return bases[0]
    args = [first] if kernel == "oob_store" else [first, lambda dev: dev.mem_alloc(128)]
    msg = _fault("faults.ptx", kernel, args, block=(block, 1, 1))
    line = line_of("faults.ptx", instruction, kernel)
    assert f"kernel {kernel}" in msg and f"line {line}" in msg, msg
    assert instruction.rstrip(";") in msg and f"block 0 thread {thread}" in msg, msg
    assert kind in msg and f"{bases[0] + offset:#x}" in msg, msg


def test_read_of_uninitialized_shared_memory():
    msg = _fault("faults.ptx", "uninit_shared", [lambda dev: dev.mem_alloc(4 * 64)],
                 block=(32, 1, 1), grid=(2, 1, 1))
    line = line_of("faults.ptx", "ld.shared.f32 %f1, [%r5];", "uninit_shared")
    assert "kernel uninit_shared" in msg and f"line {line}" in msg, msg
    assert "ld.shared.f32 %f1, [%r5]" in msg, msg
    assert "block 1 thread 16" in msg and "uninitialized" in msg, msg
    assert "offset 64" in msg, msg


def test_shared_store_past_the_array():
    msg = _fault("faults.ptx", "oob_shared_store", [lambda dev: dev.mem_alloc(4)],
                 block=(17, 1, 1))
    line = line_of("faults.ptx", "st.shared.u32 [%r4], %r1;", "oob_shared_store")
    assert "kernel oob_shared_store" in msg and f"line {line}" in msg, msg
    assert "block 0 thread 16" in msg and "offset 64" in msg, msg


def test_barrier_in_divergent_code_is_a_deadlock():
    msg = _fault("faults.ptx", "divergent_barrier", [lambda dev: dev.mem_alloc(4 * 64)],
                 block=(64, 1, 1))
    bar = line_of("faults.ptx", "bar.sync 0;", "divergent_barrier")
    assert "kernel divergent_barrier" in msg and f"line {bar}" in msg, msg
    assert "bar.sync 0" in msg and "deadlock" in msg and "block 0" in msg, msg
    # names a thread that did not arrive, and the instruction it is at
    assert "thread 16 is at line" in msg and "mul.wide.u32 %rd2, %r1, 4" in msg, msg


def test_instruction_after_a_label_reports_its_own_line():
    msg = _fault("faults.ptx", "divergent_barrier", [lambda dev: dev.mem_alloc(4 * 64)],
                 block=(64, 1, 1))
    skipped_to = line_of("faults.ptx", "mul.wide.u32 %rd2, %r1, 4;", "divergent_barrier")
    assert f"thread 16 is at line {skipped_to} `mul.wide.u32" in msg, msg


UNKNOWN_INSTRUCTION = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry bogus(
    .param .u64 p_out
)
{
    .reg .b32 %r<3>;

    mov.u32 %r1, %tid.x;
    frobnicate.b32 %r2, %r1;
    ret;
}
"""


def test_unknown_instruction_is_named_with_its_line():
    # not valid PTX (so not a file ptxas checks): the emulator must refuse it, never skip it
    module = Emulator().module_from_buffer(UNKNOWN_INSTRUCTION)
    with pytest.raises(PtxError, match=r"kernel bogus, line 12: unsupported instruction "
                                       r"'frobnicate' in `frobnicate.b32 %r2, %r1`"):
        module.get_function("bogus")


def test_b128_registers_are_a_ptx_error_naming_their_line():
    # valid PTX (ld/st.global.b128, mov.b128); a launch failed with a bare KeyError: 16
    line = line_of("b128_registers.ptx", ".reg .b128 %q<3>;", None)
    with pytest.raises(PtxError, match=rf"line {line}: \.b128 registers are not supported by "
                                       rf"the emulator: hold the 128 bits in two \.b64"):
        Emulator().module_from_buffer(source("b128_registers.ptx"))


def test_unsupported_forms_are_ptx_errors_naming_line_and_instruction():
    dev = Emulator()
    module = dev.module_from_buffer(source("faults.ptx"))
    line = line_of("faults.ptx", "vadd.s32.s32.s32 %r2, %r1, %r1;", "scalar_video")
    with pytest.raises(PtxError, match=rf"kernel scalar_video, line {line}: unsupported "
                                       rf"instruction 'vadd' in `vadd.s32.s32.s32 %r2, %r1, %r1`"):
        module.get_function("scalar_video")
    fn = module.get_function("int4_mma")
    line = next(i + 1 for i, s in enumerate(source("faults.ptx").splitlines())
                if "m16n8k64" in s)
    with pytest.raises(PtxError, match=rf"kernel int4_mma, line {line}: unsupported .* in "
                                       rf"`mma\.sync\.aligned\.m16n8k64\.row\.col\.s32\.s4"):
        fn(dev.mem_alloc(4), block=(32, 1, 1))


def test_missing_kernel_and_wrong_arguments_are_reported():
    dev = Emulator()
    module = dev.module_from_buffer(source("faults.ptx"))
    with pytest.raises(KernelFault, match="no kernel 'nope'"):
        module.get_function("nope")
    with pytest.raises(KernelFault, match="takes 1 parameters, got 2"):
        module.get_function("oob_store")(dev.mem_alloc(4), np.int32(1), block=(1, 1, 1))


def test_octal_immediates_are_read_as_ptx_reads_them():
    from accy.runtime.emulator.ptx import PtxError, parse_immediate
    assert parse_immediate("017").value == 15 and parse_immediate("-010").value == -8
    assert parse_immediate("0").value == 0 and parse_immediate("0x1F").value == 31
    with pytest.raises(PtxError, match="not an octal number"):
        parse_immediate("09")


def test_an_allocation_the_host_cannot_hold_is_an_accy_error():
    from accy.errors import AccyError
    from accy.runtime.emulator.driver import Emulator
    device = Emulator()
    with pytest.raises(AccyError, match="cannot allocate"):
        device.mem_alloc(1 << 62)
    assert device.memory.bases == []        # nothing half-made
