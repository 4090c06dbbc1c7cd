"""The PTX emulator runs what nvcc writes: CUDA C kernels (tests/emulator_kernels/*.cu) are
compiled with `nvcc -arch=sm_90 -ptx` at test time, run on the emulator, and compared with numpy
on fresh random inputs. Exact operations are compared bit for bit; approximate ones (__expf,
rsqrtf, __fdividef, reductions in another order) with tolerances that fit the math."""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from emulator_helpers import load

BF16 = np.dtype(ml_dtypes.bfloat16)
F32_EPS = float(np.finfo(np.float32).eps)


def blocks(n, size):
    return ((n + size - 1) // size, 1, 1)


def bits_equal(actual, expected):
    """Bit-exact comparison (NaNs compare by pattern only where both are NaN)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    both_nan = np.isnan(actual.astype(np.float64)) & np.isnan(expected.astype(np.float64))
    a = np.where(both_nan, 0, actual.view(f"u{actual.itemsize}"))
    e = np.where(both_nan, 0, expected.view(f"u{expected.itemsize}"))
    bad = np.nonzero(a != e)[0]
    assert not bad.size, (f"{bad.size} mismatches, first at {bad[0]}: got {actual[bad[0]]!r}, "
                          f"expected {expected[bad[0]]!r}")


def round_f32(value):
    """A Fraction rounded once to float32 (round to nearest, ties to even)."""
    guess = np.float32(float(value))
    best = None
    for c in (np.nextafter(guess, np.float32(-np.inf)), guess,
              np.nextafter(guess, np.float32(np.inf))):
        if not np.isfinite(c):
            continue
        err = abs(Fraction(float(c)) - value)
        key = (err, int(np.array(c).view(np.uint32)) & 1)    # ties: the even significand
        if best is None or key < best[0]:
            best = (key, c)
    return best[1]


def exact_fma(a, b, c):
    return np.array([round_f32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                     for x, y, z in zip(a, b, c)], np.float32)


def matmul_close(actual, a, b):
    """|C - A@B| within a K-term f32 summation bound of |A|@|B|."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    bound = (a.shape[1] + 2) * F32_EPS * (np.abs(a64) @ np.abs(b64)) + 1e-30
    err = np.abs(actual.astype(np.float64) - ref)
    worst = np.unravel_index(err.argmax(), err.shape)
    assert (err <= bound).all(), f"error {err[worst]} at {worst}, bound there {bound[worst]}"


# ---- (1) vector add in f32, f16, bf16 --------------------------------------------------------

def test_vadd_f32(ptx, rng):
    n = 1000
    a, b = rng.standard_normal((2, n)).astype(np.float32)
    dev, fn = load(ptx, "elementwise", "vadd_f32")
    pa, pb, pc = dev.to_device(a), dev.to_device(b), dev.mem_alloc(4 * n)
    stats = fn(pa, pb, pc, np.int32(n), block=(256, 1, 1), grid=blocks(n, 256))
    bits_equal(dev.from_device(pc, n, np.float32), a + b)
    assert stats.steps > 0 and stats.thread_instructions >= n


@pytest.mark.parametrize("kernel, pairs", [("vadd_f16", False), ("vadd_f16x2", True)])
def test_vadd_f16(ptx, rng, kernel, pairs):
    n = 1000
    a, b = (rng.standard_normal((2, n)) * 10).astype(np.float16)
    dev, fn = load(ptx, "elementwise", kernel)
    pa, pb, pc = dev.to_device(a), dev.to_device(b), dev.mem_alloc(2 * n)
    count = n // 2 if pairs else n
    fn(pa, pb, pc, np.int32(count), block=(128, 1, 1), grid=blocks(count, 128))
    expected = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float16)
    bits_equal(dev.from_device(pc, n, np.float16), expected)


def test_f16_through_float_math(ptx, rng):
    n = 777
    a, b = (rng.standard_normal((2, n)) * 4).astype(np.float16)
    dev, fn = load(ptx, "elementwise", "f16_float_math")
    pa, pb, pc = dev.to_device(a), dev.to_device(b), dev.mem_alloc(2 * n)
    fn(pa, pb, pc, np.int32(n), block=(256, 1, 1), grid=blocks(n, 256))
    expected = (a.astype(np.float32) * b.astype(np.float32) + np.float32(1)).astype(np.float16)
    bits_equal(dev.from_device(pc, n, np.float16), expected)


@pytest.mark.parametrize("kernel, pairs", [("vadd_bf16", False), ("vadd_bf16x2", True)])
def test_vadd_bf16(ptx, rng, kernel, pairs):
    n = 1000
    a, b = (rng.standard_normal((2, n)) * 10).astype(BF16)
    dev, fn = load(ptx, "elementwise", kernel)
    pa, pb, pc = dev.to_device(a), dev.to_device(b), dev.mem_alloc(2 * n)
    count = n // 2 if pairs else n
    fn(pa, pb, pc, np.int32(count), block=(128, 1, 1), grid=blocks(count, 128))
    expected = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32).astype(BF16)
    bits_equal(dev.from_device(pc, n, BF16).view(np.uint16), expected.view(np.uint16))


def test_bf16_through_float_math(ptx, rng):
    n = 777
    a, b = (rng.standard_normal((2, n)) * 4).astype(BF16)
    dev, fn = load(ptx, "elementwise", "bf16_float_math")
    pa, pb, pc = dev.to_device(a), dev.to_device(b), dev.mem_alloc(2 * n)
    fn(pa, pb, pc, np.int32(n), block=(256, 1, 1), grid=blocks(n, 256))
    expected = (a.astype(np.float32) * b.astype(np.float32) + np.float32(1)).astype(BF16)
    bits_equal(dev.from_device(pc, n, BF16).view(np.uint16), expected.view(np.uint16))


# ---- (2) grid-stride loop ---------------------------------------------------------------------

def test_grid_stride_loop(ptx, rng):
    n = 3000                              # 4 blocks of 128 threads: ~6 trips each
    x, y = rng.standard_normal((2, n)).astype(np.float32)
    dev, fn = load(ptx, "elementwise", "grid_stride")
    px, py = dev.to_device(x), dev.to_device(y)
    fn(px, py, np.int32(n), block=(128, 1, 1), grid=(4, 1, 1))
    bits_equal(dev.from_device(py, n, np.float32), np.float32(2) * x + y)


# ---- (3) block reduction with shuffles and shared memory -------------------------------------

def test_block_reduction(ptx, rng):
    n, size = 2000, 256
    grid = blocks(n, size)
    x = rng.standard_normal(n).astype(np.float32)
    dev, fn = load(ptx, "reductions", "block_reduce")
    px, partial = dev.to_device(x), dev.mem_alloc(4 * grid[0])
    total = dev.to_device(np.zeros(1, np.float32))
    fn(px, partial, total, np.int32(n), block=(size, 1, 1), grid=grid)
    padded = np.zeros(grid[0] * size, np.float64)
    padded[:n] = x
    sums = padded.reshape(grid[0], size).sum(axis=1)
    bound = size * F32_EPS * np.abs(padded).reshape(grid[0], size).sum(axis=1)
    got = dev.from_device(partial, grid[0], np.float32)
    assert (np.abs(got - sums) <= bound).all(), (got, sums)
    assert abs(dev.from_device(total, 1, np.float32)[0] - x.astype(np.float64).sum()) <= \
        n * F32_EPS * np.abs(x).sum()


# ---- (4) shared-memory tiled transpose --------------------------------------------------------

@pytest.mark.parametrize("rows, cols", [(70, 45), (33, 100)])
def test_tiled_transpose(ptx, rng, rows, cols):
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    dev, fn = load(ptx, "tiles", "transpose")
    pa, pb = dev.to_device(a), dev.mem_alloc(a.nbytes)
    fn(pa, pb, np.int32(rows), np.int32(cols), block=(32, 8, 1),
       grid=((cols + 31) // 32, (rows + 31) // 32, 1))
    bits_equal(dev.from_device(pb, (cols, rows), np.float32).reshape(-1), a.T.reshape(-1))


# ---- (5) inclusive scans -----------------------------------------------------------------------

def _block_scan(x, size):
    out = np.empty_like(x)
    for s in range(0, len(x), size):
        out[s:s + size] = np.cumsum(x[s:s + size].astype(np.int64)).astype(np.int32)
    return out


@pytest.mark.parametrize("module, kernel", [("reductions", "scan_shared"),
                                            ("scan_warp", "scan_warp")])
def test_block_inclusive_scan(ptx, rng, module, kernel):
    n, size = 1000, 256
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    dev, fn = load(ptx, module, kernel)
    px, py = dev.to_device(x), dev.mem_alloc(4 * n)
    fn(px, py, np.int32(n), block=(size, 1, 1), grid=blocks(n, size))
    np.testing.assert_array_equal(dev.from_device(py, n, np.int32), _block_scan(x, size))


# ---- (6) atomic histograms 

@pytest.mark.parametrize("kernel", ["hist_global", "hist_shared"])
def test_atomic_histogram(ptx, rng, kernel):
    n, nbins = 4000, 37
    x = rng.integers(0, 1 << 20, n).astype(np.int32)
    dev, fn = load(ptx, "reductions", kernel)
    px, pbins = dev.to_device(x), dev.to_device(np.zeros(nbins, np.int32))
    fn(px, pbins, np.int32(n), np.int32(nbins), block=(128, 1, 1), grid=(6, 1, 1),
       shared=4 * nbins)
    np.testing.assert_array_equal(dev.from_device(pbins, nbins, np.int32),
                                  np.bincount(x % nbins, minlength=nbins))


# ---- (7) softmax rows 

@pytest.mark.parametrize("kernel, rtol", [("softmax_expf", 1e-5), ("softmax_fast", 5e-5)])
def test_softmax_rows(ptx, rng, kernel, rtol):
    rows, cols = 5, 300
    x = (rng.standard_normal((rows, cols)) * 3).astype(np.float32)
    dev, fn = load(ptx, "softmax", kernel)
    px, py = dev.to_device(x), dev.mem_alloc(x.nbytes)
    fn(px, py, np.int32(cols), block=(128, 1, 1), grid=(rows, 1, 1))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    got = dev.from_device(py, (rows, cols), np.float32)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=1e-9)


# ---- (8) tiled f32 matmul 

def test_tiled_matmul(ptx, rng):
    m, n, k = 37, 29, 45
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    dev, fn = load(ptx, "tiles", "matmul_tiled")
    pa, pb, pc = dev.to_device(a), dev.to_device(b), dev.mem_alloc(4 * m * n)
    fn(pa, pb, pc, np.int32(m), np.int32(n), np.int32(k), block=(16, 16, 1),
       grid=((n + 15) // 16, (m + 15) // 16, 1))
    matmul_close(dev.from_device(pc, (m, n), np.float32), a, b)


# ---- (9) tensor cores: mma.sync m16n8k16 bf16 -> f32 

def _bf16_operands(rng, m, n, k):
    a = rng.standard_normal((m, k)).astype(BF16)
    bt = rng.standard_normal((n, k)).astype(BF16)
    return a, bt


def test_mma_sync_bf16(ptx, rng):
    m, n, k = 32, 16, 48
    a, bt = _bf16_operands(rng, m, n, k)
    dev, fn = load(ptx, "tensorcore", "mma_bf16")
    pa, pb, pc = dev.to_device(a), dev.to_device(bt), dev.mem_alloc(4 * m * n)
    fn(pa, pb, pc, np.int32(m), np.int32(n), np.int32(k), block=(64, 1, 1), grid=(2, 1, 1))
    matmul_close(dev.from_device(pc, (m, n), np.float32), a.astype(np.float32),
                 bt.astype(np.float32).T)


def test_mma_sync_bf16_cp_async_ldmatrix(ptx, rng):
    m, n, k = 32, 16, 32
    a, bt = _bf16_operands(rng, m, n, k)
    dev, fn = load(ptx, "tensorcore", "mma_bf16_ldmatrix")
    pa, pb, pc = dev.to_device(a), dev.to_device(bt), dev.mem_alloc(4 * m * n)
    fn(pa, pb, pc, np.int32(m), np.int32(n), np.int32(k), block=(32, 1, 1),
       grid=((m // 16) * (n // 8), 1, 1))
    matmul_close(dev.from_device(pc, (m, n), np.float32), a.astype(np.float32),
                 bt.astype(np.float32).T)


def test_wmma_bf16(ptx, rng):
    m, n, k = 32, 32, 32
    a = rng.standard_normal((m, k)).astype(BF16)
    b = rng.standard_normal((k, n)).astype(BF16)
    dev, fn = load(ptx, "tensorcore", "wmma_bf16")
    pa, pb, pc = dev.to_device(a), dev.to_device(b), dev.mem_alloc(4 * m * n)
    fn(pa, pb, pc, np.int32(m), np.int32(n), np.int32(k), block=(128, 1, 1), grid=(1, 1, 1))
    matmul_close(dev.from_device(pc, (m, n), np.float32), a.astype(np.float32),
                 b.astype(np.float32))


# ---- (10) divergence 

def _divergent_reference(x):
    out = np.empty_like(x)
    for i, v in enumerate(int(v) for v in x):
        r = int(np.fmod(v, 3))               # C's remainder (sign of the dividend)
        if r == 0:
            acc = v * 7
        elif r == 1:
            acc = -v
            if v & 16:
                acc ^= 0x55
        else:
            out[i] = v + 1000
            continue
        for k in range(v & 15):
            acc = acc * 3 + k
            if acc > 100000 or acc < -100000:
                break
        out[i] = acc
    return out


def test_divergent_kernel(ptx, rng):
    n = 1000
    x = rng.integers(-5000, 5000, n).astype(np.int32)
    dev, fn = load(ptx, "elementwise", "divergent")
    px, py = dev.to_device(x), dev.to_device(np.full(n + 24, -7, np.int32))
    fn(px, py, np.int32(n), block=(128, 1, 1), grid=(8, 1, 1))
    y = dev.from_device(py, n + 24, np.int32)
    np.testing.assert_array_equal(y[:n], _divergent_reference(x))
    assert (y[n:] == -7).all()              # the threads past n returned before storing


# ---- integer ops, conversions, float math 

def _clz32(u):
    return np.array([32 - int(v).bit_length() for v in u], np.int32)


def test_int_ops(ptx, rng):
    n = 300
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a[:4] = [0, -1, -2**31, 2**31 - 1]
    b[:4] = [5, 31, 7, -3]
    dev, fn = load(ptx, "scalar_ops", "int_ops")
    pa, pb, po = dev.to_device(a), dev.to_device(b), dev.mem_alloc(4 * 12 * n)
    fn(pa, pb, po, np.int32(n), block=(128, 1, 1), grid=blocks(n, 128))
    got = dev.from_device(po, (n, 12), np.int32)
    x, y = a.astype(np.int64), b.astype(np.int64)
    ux, uy = a.view(np.uint32).astype(np.uint64), b.view(np.uint32).astype(np.uint64)
    s = (b & 31).astype(np.uint32)
    d = (b | 1).astype(np.int64)
    q = np.array([abs(p) // abs(r) * (1 if (p >= 0) == (r >= 0) else -1)
                  for p, r in zip(x.tolist(), d.tolist())], np.int64)
    expected = [
        (x * y).astype(np.int32),
        ((x * y) >> 32).astype(np.int32),
        ((ux * uy) >> np.uint64(32)).astype(np.uint32).view(np.int32),
        a >> s.astype(np.int32),
        (a.view(np.uint32) >> s).view(np.int32),
        (a.view(np.uint32) << s).view(np.int32),
        (a & b) ^ (a | ~b),
        np.array([bin(int(v)).count("1") for v in a.view(np.uint32)], np.int32),
        _clz32(a.view(np.uint32)),
        np.array([int(f"{int(v):032b}"[::-1], 2) for v in a.view(np.uint32)],
                 np.uint32).view(np.int32),
        q.astype(np.int32),
        (x - q * d).astype(np.int32),
    ]
    for j, e in enumerate(expected):
        np.testing.assert_array_equal(got[:, j], e, err_msg=f"output {j}")


def _lanes(x, count, signed):
    """(n, count) int64 lanes of uint32 words, low lane first."""
    view = {(4, False): np.uint8, (4, True): np.int8, (2, False): np.uint16, (2, True): np.int16}
    return x.view(view[count, signed]).reshape(-1, count).astype(np.int64)


def _pack(lanes):
    """Lanes (n, count), each wrapped to its width, as uint32 words."""
    width = 32 // lanes.shape[1]
    shifts = np.arange(lanes.shape[1], dtype=np.int64) * width
    return ((lanes & ((1 << width) - 1)) << shifts).sum(axis=1).astype(np.uint32)


def test_simd_intrinsics(ptx, rng):
    n = 256
    a, b = rng.integers(0, 2**32, (2, n), dtype=np.uint64).astype(np.uint32)
    a[:4] = [0x80808080, 0x7F7F7F7F, 0xFFFFFFFF, 0x80007FFF]
    b[:4] = [0x7F7F7F7F, 0x80808080, 0, 0x7FFF8000]
    dev, fn = load(ptx, "scalar_ops", "simd_intrinsics")
    out = dev.mem_alloc(4 * 14 * n)
    fn(dev.to_device(a), dev.to_device(b), out, np.int32(n), block=(128, 1, 1), grid=(2, 1, 1))
    got = dev.from_device(out, (n, 14), np.uint32)
    u4, s4, u2, s2 = (_lanes(a, 4, False), _lanes(b, 4, False)), \
        (_lanes(a, 4, True), _lanes(b, 4, True)), (_lanes(a, 2, False), _lanes(b, 2, False)), \
        (_lanes(a, 2, True), _lanes(b, 2, True))
    expected = [
        _pack(np.abs(u4[0] - u4[1])), _pack(np.abs(s4[0] - s4[1])),
        np.abs(u4[0] - u4[1]).sum(1).astype(np.uint32),
        np.abs(s4[0] - s4[1]).sum(1).astype(np.uint32),
        _pack(np.abs(s4[0])), _pack(u4[0] + u4[1]), _pack(np.clip(s4[0] + s4[1], -128, 127)),
        _pack((u4[0] + u4[1] + 1) >> 1), _pack((u4[0] + u4[1]) >> 1), _pack(u2[0] - u2[1]),
        _pack(np.maximum(s2[0], s2[1])), _pack((u2[0] > u2[1]).astype(np.int64)),
        _pack(np.abs(u2[0] - u2[1])), np.abs(s2[0] - s2[1]).sum(1).astype(np.uint32)]
    for j, e in enumerate(expected):
        np.testing.assert_array_equal(got[:, j], e, err_msg=f"output {j}")


def _float_inputs(rng, n):
    special = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 3e9, 4.5e9, 2.5, -2.5, 0.5, 1.5,
                        -0.5, -1.0, -0.0, 2147483520.0, -2147483648.0, 4294967040.0],
                       np.float32)
    f = (rng.standard_normal(n) * 1000).astype(np.float32)
    f[:len(special)] = special
    f[len(special):40] = np.round(f[len(special):40]) + 0.5      # exact halves: ties
    return f


def _int_inputs(rng, n):
    k = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    k[:6] = [2**24 + 1, -(2**24 + 1), 2**31 - 1, -2**31, 2**24 + 3, 0]
    return k


def test_float_to_int_conversions(ptx, rng):
    n = 256
    f = _float_inputs(rng, n)
    dev, fn = load(ptx, "scalar_ops", "float_to_int")
    pf, po = dev.to_device(f), dev.mem_alloc(4 * 5 * n)
    fn(pf, po, np.int32(n), block=(128, 1, 1), grid=blocks(n, 128))
    got = dev.from_device(po, (n, 5), np.int32)

    def to_int(v, lo, hi):
        return np.clip(np.where(np.isnan(v), 0, v), lo, hi).astype(np.int64)
    f64 = f.astype(np.float64)
    for j, rounded in enumerate([np.rint(f64), np.trunc(f64), np.floor(f64), np.ceil(f64)]):
        np.testing.assert_array_equal(got[:, j], to_int(rounded, -2**31, 2**31 - 1)
                                      .astype(np.int32), err_msg=f"rounding {j} of {f}")
    np.testing.assert_array_equal(got[:, 4], to_int(np.rint(f64), 0, 2**32 - 1)
                                  .astype(np.uint32).view(np.int32), err_msg="float -> uint")


def _int_to_float(ptx, k, kernel, outputs):
    """scalar_ops' `kernel` on ints `k`: (n, outputs) f32 results."""
    n = len(k)
    dev, fn = load(ptx, "scalar_ops", kernel)
    out = dev.mem_alloc(4 * outputs * n)
    fn(dev.to_device(k), out, np.int32(n), block=(128, 1, 1), grid=blocks(n, 128))
    return dev.from_device(out, (n, outputs), np.float32)


def test_int_to_float_conversions(ptx, rng):
    k = _int_inputs(rng, 256)
    got = _int_to_float(ptx, k, "int_to_float", 2)
    bits_equal(got[:, 0], k.astype(np.float32))
    bits_equal(got[:, 1], k.view(np.uint32).astype(np.float32))


def test_int_to_float_round_toward_zero(ptx, rng):
    k = _int_inputs(rng, 256)
    rn = k.astype(np.float32)
    away = np.abs(rn.astype(np.float64)) > np.abs(k.astype(np.float64))
    bits_equal(_int_to_float(ptx, k, "int_to_float_rz", 1)[:, 0],
               np.where(away, np.nextafter(rn, np.float32(0)), rn).astype(np.float32))


def test_float_exact_ops(ptx, rng):
    n = 200
    a, b, c = rng.standard_normal((3, n)).astype(np.float32)
    b[0] = 0.0                                   # x / 0 -> inf
    dev, fn = load(ptx, "scalar_ops", "float_exact")
    pa, pb, pc, po = dev.to_device(a), dev.to_device(b), dev.to_device(c), dev.mem_alloc(12 * n)
    fn(pa, pb, pc, po, np.int32(n), block=(128, 1, 1), grid=blocks(n, 128))
    got = dev.from_device(po, (n, 3), np.float32)
    with np.errstate(divide="ignore"):
        bits_equal(got[:, 0], a / b)
    bits_equal(got[:, 1], a * b + c)
    bits_equal(got[:, 2], a * a - c)


def test_fmaf_rounds_once(ptx, rng):
    n = 200
    a, b, c = rng.standard_normal((3, n)).astype(np.float32)
    # 24929 * 673 = 2^24 + 1 is a tie in f32; +-2^-30 breaks it (computing a*b+c in f64 and
    # rounding that to f32 gives 2^24 both times)
    a[:2], b[:2], c[:2] = 24929.0, 673.0, [2.0 ** -30, -2.0 ** -30]
    dev, fn = load(ptx, "scalar_ops", "fma_f32")
    pa, pb, pc, po = dev.to_device(a), dev.to_device(b), dev.to_device(c), dev.mem_alloc(4 * n)
    fn(pa, pb, pc, po, np.int32(n), block=(128, 1, 1), grid=blocks(n, 128))
    got = dev.from_device(po, n, np.float32)
    bits_equal(got, exact_fma(a, b, c))
    assert got[0] == 16777218.0 and got[1] == 16777216.0, got[:2]


def test_float_sqrt_rsqrt_fdividef(ptx, rng):
    n = 200
    a, b = rng.standard_normal((2, n)).astype(np.float32)
    dev, fn = load(ptx, "scalar_ops", "float_approx")
    pa, pb, po = dev.to_device(a), dev.to_device(b), dev.mem_alloc(12 * n)
    fn(pa, pb, po, np.int32(n), block=(128, 1, 1), grid=blocks(n, 128))
    got = dev.from_device(po, (n, 3), np.float32)
    bits_equal(got[:, 0], np.sqrt(np.abs(a)))
    np.testing.assert_allclose(got[:, 1], 1 / np.sqrt(np.abs(a).astype(np.float64) + 1),
                               rtol=2e-7)
    np.testing.assert_allclose(got[:, 2], a.astype(np.float64) / b, rtol=4e-7)


def test_min_max_with_nan(ptx, rng):
    n = 64
    a, b = rng.standard_normal((2, n)).astype(np.float32)
    a[0], b[1], a[2], b[2] = np.nan, np.nan, np.nan, np.nan
    a[3], b[4] = np.inf, -np.inf
    dev, fn = load(ptx, "scalar_ops", "minmax_nan")
    pa, pb, po = dev.to_device(a), dev.to_device(b), dev.mem_alloc(8 * n)
    fn(pa, pb, po, np.int32(n), block=(64, 1, 1))
    got = dev.from_device(po, (n, 2), np.float32)
    bits_equal(got[:, 0], np.fmin(a, b))
    bits_equal(got[:, 1], np.fmax(a, b))
    assert np.isnan(got[2]).all() and got[0, 0] == b[0] and got[1, 1] == a[1]


def test_ldg_and_float4(ptx, rng):
    n4 = 300
    x = rng.standard_normal(4 * n4).astype(np.float32)
    s = rng.standard_normal(1).astype(np.float32)
    dev, fn = load(ptx, "scalar_ops", "ldg_float4")
    px, ps, py = dev.to_device(x), dev.to_device(s), dev.mem_alloc(x.nbytes)
    fn(px, ps, py, np.int32(n4), block=(64, 1, 1), grid=blocks(n4, 64))
    v = x.reshape(n4, 4)
    expected = np.stack([v[:, 0] * s[0], v[:, 1] + s[0], v[:, 2] - s[0], v[:, 3]], axis=1)
    bits_equal(dev.from_device(py, 4 * n4, np.float32), expected.reshape(-1))


def test_warp_vote(ptx, rng):
    n, threads = 200, 256                 # 8 warps; lanes past n vote with v = 0
    x = rng.integers(-150, 150, n).astype(np.int32)
    x[0:32] = rng.integers(1, 150, 32)        # warp 0: all positive, one > 100 at least
    x[0] = 120
    x[32:64] = rng.integers(-50, 50, 32)      # warp 1: none > 100, all > -100
    dev, fn = load(ptx, "scalar_ops", "warp_vote")
    px, po = dev.to_device(x), dev.mem_alloc(12 * n)
    fn(px, po, np.int32(n), block=(64, 1, 1), grid=(threads // 64, 1, 1))
    got = dev.from_device(po, (n, 3), np.uint32)
    v = np.zeros(threads, np.int64)
    v[:n] = x
    warps = v.reshape(-1, 32)
    ballot = ((warps > 0).astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1)
    expected = np.stack([np.repeat(ballot, 32), np.repeat((warps > 100).any(axis=1), 32),
                         np.repeat((warps > -100).all(axis=1), 32)], axis=1)[:n]
    np.testing.assert_array_equal(got, expected.astype(np.uint32))


def test_activemask(ptx):
    dev, fn = load(ptx, "scalar_ops", "active_mask")
    po = dev.mem_alloc(4 * 96)
    fn(po, block=(48, 1, 1), grid=(2, 1, 1))         # warps of 32 and 16 threads
    per_block = [0xFFFFFFFF] * 32 + [0xFFFF] * 16
    np.testing.assert_array_equal(dev.from_device(po, 96, np.uint32), per_block * 2)


def test_atomics_cas_loop_exch_min_max(ptx, rng):
    n = 500
    x = rng.standard_normal(n).astype(np.float32)
    k = rng.integers(-10**6, 10**6, n).astype(np.int32)
    dev, fn = load(ptx, "scalar_ops", "atomics")
    px, pk = dev.to_device(x), dev.to_device(k)
    pmax = dev.to_device(np.array([-np.inf], np.float32))
    pstats = dev.to_device(np.array([2**31 - 1, -2**31, 0, 0, 0], np.int32))
    pslots = dev.to_device(np.full(n, -1, np.int32))
    fn(px, pk, pmax, pstats, pslots, np.int32(n), block=(128, 1, 1), grid=blocks(n, 128))
    assert dev.from_device(pmax, 1, np.float32)[0] == x.max()
    stats = dev.from_device(pstats, 5, np.int32)
    bits = np.bitwise_or.reduce(np.left_shift(np.uint32(1), (k & 31).astype(np.uint32)))
    assert stats.tolist() == [k.min(), k.max(), int(bits.view(np.int32)), n, 12345]
    np.testing.assert_array_equal(np.sort(dev.from_device(pslots, n, np.int32)), np.arange(n))
