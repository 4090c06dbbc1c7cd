"""PTX instruction semantics: `compile(instruction, machine)` turns a decoded instruction into a
function of the threads that run it (`run`: a slice or an index array), which returns None
(fall through), a PC to jump to, or "exit".

Floating point (PTX ISA 8.x):
- Every IEEE instruction (add sub mul fma mad div sqrt rcp cvt, on f16/bf16/f32/f64 and the
  packed f16x2/bf16x2) is rounded once, exactly, in the requested mode .rn/.rz/.rm/.rp. The
  technique: the operation is evaluated in f64 as a pair (q, s) -- q the f64 value rounded to
  nearest, s the sign of (exact - q), found with error-free transformations (TwoSum, Dekker's
  TwoProduct; a division's or square root's remainder) -- and, for a narrower destination, q
  is first made round-to-odd (stepped one f64 ulp toward the exact value when inexact and
  even), which makes the final rounding to f32/f16/bf16 in any mode exact. The rare lanes
  whose f64 transforms under- or overflow are computed with Python fractions. The common
  .rn f32/f64/f16/bf16 add/sub/mul/div/sqrt use numpy's own (correctly rounded) arithmetic.
- `.ftz` flushes subnormal f32 (and f16, where the instruction has .ftz) inputs and results to
  signed zero; `.sat` clamps to [+0, 1] with NaN -> +0; `.relu` clamps negatives to +0 and
  gives the canonical NaN for NaN.
- NaN payloads are not specified by PTX for arithmetic and are not canonicalized here
  (numpy keeps a quiet input NaN); min/max and .NaN/.relu forms give canonical NaNs.
- The .approx instructions (ex2 lg2 sin cos tanh rsqrt rcp.approx sqrt.approx div.approx/full)
  are computed accurately in f64 and rounded: within the hardware's documented ~2 ulp, but
  not its bit pattern. div.approx.f32 keeps the documented quirk: 2^126 < |b| < 2^128 gives 0
  (NaN for an infinite a).
Warp-synchronous instructions (shfl vote redux match .sync, bar.warp.sync) need every lane their
membermask names (of those the block has) to run the same instruction with them, each thread
in its own mask, and a shfl's source lane in the reader's mask: anything else would hang or
read an undefined value on a GPU and is a KernelFault naming the thread.
Integer arithmetic wraps; integer division by zero is undefined in PTX and gives -1 (signed)
or all ones (unsigned) here, and `rem` by zero gives the dividend.
The SIMD video instructions (vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4, with
.sat, the .add accumulate, destination masks and .asel/.bsel selectors) follow the ISA's
semantics exactly; the scalar video instructions (vadd, vshl, vmad, ...) are not supported.
An instruction or modifier outside this table is an error naming it, never ignored.
"""
import math
from fractions import Fraction

import numpy as np

from accy.runtime.emulator.machine import KernelFault, VIEW, SIGNED, STORAGE
from accy.runtime.emulator.memory import LaneFault, LOCAL_WINDOW, MemoryFault, SHARED_WINDOW, \
    WINDOW_SIZE
from accy.runtime.emulator.ptx import Imm, PredPair, PtxError, Selected, Vector, TYPE_BYTES

TYPES = set(TYPE_BYTES) - {"pred"}
SPACES = ("global", "shared", "param", "const", "local")
SCOPES = {"cta", "gpu", "sys", "cluster"}
SEMANTICS = {"relaxed", "acquire", "release", "acq_rel", "weak", "sc", "volatile", "mmio"}
CACHE_HINTS = {"ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt", "volatile", "relaxed", "acquire",
               "release", "weak", "sys", "gpu", "cta", "L1::evict_last", "L1::evict_first",
               "L1::evict_normal", "L1::evict_unchanged", "L1::no_allocate", "L2::64B",
               "L2::128B", "L2::256B", "L2::evict_last", "L2::evict_first", "L2::evict_normal",
               "L2::cache_hint", "unified", "mmio"}
ROUNDING = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"}
FROUND = ("rn", "rz", "rm", "rp")
IROUND = ("rni", "rzi", "rmi", "rpi")
PACKED = {"f16x2": "f16", "bf16x2": "bf16", "u16x2": "u16", "s16x2": "s16"}


# ---- helpers -------------------------------------------------------------------------------

def _type(ins, mods=None):
    """The instruction's (last) type suffix."""
    for m in reversed(mods if mods is not None else ins.mods):
        if m in TYPE_BYTES or m in PACKED:
            return m
    raise KernelFault(f"no type in '{ins.text}'")


def unsupported(ins, what):
    """A form of `ins` the emulator does not model: a PtxError naming the line and the
    instruction (the kernel's name is added by Handlers.compile)."""
    raise PtxError(f"line {ins.line}: unsupported {what} in `{ins.text}`")


def _check_mods(ins, allowed):
    for m in ins.mods:
        if m not in allowed and m not in TYPE_BYTES and m not in PACKED:
            unsupported(ins, f"modifier .{m}")


def _is_float(t):
    return t in ("f16", "bf16", "f32", "f64", "tf32", "f16x2", "bf16x2")


def _operands(ins, count):
    if len(ins.operands) != count:
        raise KernelFault(f"'{ins.opcode}' takes {count} operands, got {len(ins.operands)}")
    return ins.operands


def _mode(ins, allowed=FROUND, default="rn"):
    modes = [x for x in ins.mods if x in ROUNDING]
    if len(modes) > 1:
        unsupported(ins, "combination of rounding modes")
    if modes and modes[0] not in allowed:
        unsupported(ins, f"rounding .{modes[0]}")
    return modes[0] if modes else default


# Smallest normal by numpy dtype name (by name: bf16's dtype is loaded only with bf16 code);
# exact in its type, so comparing an array with it converts it exactly.
_TINY = {"float32": 2.0 ** -126, "float16": 2.0 ** -14, "float64": 2.0 ** -1022,
         "bfloat16": 2.0 ** -126}


def _ftz(x):
    """Flush subnormals of x's float type to zero, keeping the sign."""
    tiny = _TINY[x.dtype.name]
    with np.errstate(invalid="ignore"):
        sub = (np.abs(x) < tiny) & (x != 0)
    if not sub.any():
        return x
    return np.where(sub, np.copysign(np.zeros((), x.dtype), x), x).astype(x.dtype)


def _sat(x):
    """Clamp to [+0, 1]; NaN -> +0."""
    with np.errstate(invalid="ignore"):
        return np.where(x > 1, np.ones((), x.dtype),
                        np.where(x > 0, x, np.zeros((), x.dtype))).astype(x.dtype)


_CANON = {"float32": np.uint32(0x7FFFFFFF), "float16": np.uint16(0x7FFF),
          "float64": np.uint64(0x7FFFFFFFFFFFFFFF), "bfloat16": np.uint16(0x7FFF)}


def _canonical_nan(dtype):
    return np.array(_CANON[np.dtype(dtype).name]).view(dtype)


def _relu(x):
    nan = np.isnan(x)
    with np.errstate(invalid="ignore"):
        out = np.where(x < 0, np.zeros((), x.dtype), x)
    return np.where(nan, _canonical_nan(x.dtype), out).astype(x.dtype)


def _unpack(x, elem):
    """A b32 array of packed pairs as a 2N array of `elem` (low halves at even indices)."""
    return np.ascontiguousarray(x).view(VIEW[elem])


def _pack(x):
    return np.ascontiguousarray(x).view(np.uint32)


# ---- exact f64 arithmetic: (q, s) = (round-to-nearest f64 result, sign(exact - q)) -------

_SPLIT = 134217729.0           # 2^27 + 1


def _two_sum_err(a, b, s):
    bb = s - a
    return (a - (s - bb)) + (b - bb)


def _split(x):
    c = _SPLIT * x
    hi = c - (c - x)
    return hi, x - hi


def _two_prod_err(a, b, p):
    ah, al = _split(a)
    bh, bl = _split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _overflowed(q, *inputs):
    """Lanes whose f64 result is infinite from finite inputs (exact is finite, |exact| < |q|)."""
    out = np.isinf(q)
    for x in inputs:
        out &= np.isfinite(x)
    return out


def _frac_float(e):
    try:
        return float(e)
    except OverflowError:
        return math.inf if e > 0 else -math.inf


def _fix_lanes(lanes, exact, q, s, set_q=False):
    """Recompute s (and q) for `lanes` with exact rational arithmetic; exact(i) -> Fraction."""
    for i in np.nonzero(lanes)[0]:
        e = exact(i)
        if set_q:
            q[i] = _frac_float(e) if e != 0 else 0.0
        qi = float(q[i])
        if math.isinf(qi):
            s[i] = -math.copysign(1.0, qi)
        else:
            d = e - Fraction(qi)
            s[i] = (d > 0) - (d < 0)


def _add_exact(a, b, mode="rn"):
    with np.errstate(all="ignore"):
        q = a + b
        s = np.sign(_two_sum_err(a, b, q))
    finite = np.isfinite(q)
    s = np.where(finite, s, np.where(_overflowed(q, a, b), -np.sign(q), 0.0))
    if mode == "rm":
        q = _zero_sign_rm(q, s, a, b)
    return q, s


def _zero_sign_rm(q, s, a, b):
    """IEEE: an exact zero sum is -0 when rounding down, unless both operands are +0."""
    zero = (q == 0) & (s == 0)
    if zero.any():
        both_pos_zero = (a == 0) & (b == 0) & ~np.signbit(a) & ~np.signbit(b)
        q = np.where(zero & ~both_pos_zero, -0.0, q)
    return q


def _mul_exact(a, b, narrow=False):
    with np.errstate(all="ignore"):
        q = a * b
        if narrow:                         # <= 24-bit significands: the f64 product is exact
            return q, np.zeros_like(q)
        s = np.sign(_two_prod_err(a, b, q))
    aa, ab, aq = np.abs(a), np.abs(b), np.abs(q)
    with np.errstate(invalid="ignore"):
        safe = (aa < 2.0 ** 995) & (ab < 2.0 ** 995) & (aq > 2.0 ** -960)
    special = ~np.isfinite(q) | (a == 0) | (b == 0)
    s = np.where(special, np.where(_overflowed(q, a, b), -np.sign(q), 0.0), s)
    bad = ~safe & ~special
    if bad.any():
        s = s.copy()
        _fix_lanes(bad, lambda i: Fraction(float(a[i])) * Fraction(float(b[i])), q, s)
    return q, s


def _div_exact(a, b):
    with np.errstate(all="ignore"):
        q = a / b
        ph = q * b
        pl = _two_prod_err(q, b, ph)
        r = a - ph                          # exact (Sterbenz) in the safe range
        s = np.sign(r - pl) * np.sign(b)
    with np.errstate(invalid="ignore"):
        aq, ab, aa = np.abs(q), np.abs(b), np.abs(a)
        safe = (aq > 2.0 ** -900) & (aq < 2.0 ** 900) & (ab > 2.0 ** -900) & \
            (ab < 2.0 ** 900) & (aa > 2.0 ** -900) & (aa < 2.0 ** 900)
    special = ~np.isfinite(q) | (a == 0) | ~np.isfinite(b)
    s = np.where(special, np.where(_overflowed(q, a, b) & (b != 0), -np.sign(q), 0.0), s)
    bad = ~safe & ~special
    if bad.any():
        s = s.copy()
        _fix_lanes(bad, lambda i: Fraction(float(a[i])) / Fraction(float(b[i])), q, s)
    return q, s


def _sqrt_exact(a):
    with np.errstate(all="ignore"):
        q = np.sqrt(a)
        ph = q * q
        pl = _two_prod_err(q, q, ph)
        s = np.sign((a - ph) - pl)
        safe = (a > 2.0 ** -900) & (a < 2.0 ** 900)
    special = ~np.isfinite(q) | (a <= 0)
    s = np.where(special, 0.0, s)
    bad = ~safe & ~special
    if bad.any():
        s = s.copy()
        for i in np.nonzero(bad)[0]:
            d = Fraction(float(a[i])) - Fraction(float(q[i])) ** 2
            s[i] = (d > 0) - (d < 0)       # sqrt is monotone: sign(a - q^2) = sign(sqrt(a) - q)
    return q, s


def _ro(q, s):
    """Round-to-odd from (q, s): step inexact even results one ulp toward the exact value.
    s is the sign of exact - q or any number of that sign (only s != 0 and s * inf are read),
    so _fma_narrow_rn passes the TwoSum error itself, which is exactly exact - q."""
    even = (q.view(np.uint64) & np.uint64(1)) == 0
    step = (s != 0) & even & np.isfinite(q)
    if not step.any():
        return q
    return np.where(step, np.nextafter(q, s * np.inf), q)


def _fma_sum(a, b, c):
    """f64 a * b + c rounded to nearest, z = th + v, exact while the lanes are in
    _fma_exact's safe range; with the pieces _fma_exact takes the error's sign from."""
    uh = a * b
    ul = _two_prod_err(a, b, uh)
    th = c + uh
    tl = _two_sum_err(c, uh, th)
    v0 = tl + ul
    e2 = _two_sum_err(tl, ul, v0)
    v = _ro(v0, np.sign(e2))
    return uh, th, v0, e2, v, th + v


def _fma_safe(a, b, c, uh):
    """Lanes where _fma_sum's z and the error sign _fma_settle takes from its pieces are exact:
    a and b small enough for Dekker's split (< 2^995), a product uh and a c (unless zero) far
    from overflow and from the subnormals (the error terms neither overflow nor underflow).
    Not finite or a zero product: outside (_fma_settle handles those lanes by themselves)."""
    aa, ab, ac, au = np.abs(a), np.abs(b), np.abs(c), np.abs(uh)
    return (aa < 2.0 ** 995) & (ab < 2.0 ** 995) & (au > 2.0 ** -900) & (au < 2.0 ** 900) & \
        (ac < 2.0 ** 900) & ((ac > 2.0 ** -900) | (c == 0))


def _fma_f64_rn(a, b, c):
    """fma.rn.f64: when every lane is safe or a finite zero product, _fma_sum's z and the zero
    products' uh + c (round to nearest needs no error sign, and the fix-ups change only the
    other lanes); else _fma_settle on the pieces already computed."""
    pieces = _fma_sum(a, b, c)
    uh, z = pieces[0], pieces[-1]
    safe = _fma_safe(a, b, c, uh)
    if safe.all():
        return z
    zero_product = (a == 0) | (b == 0)
    zero_sum = uh + c           # exact for a zero product: c, or IEEE's sign of a zero sum
    if (safe | zero_product & np.isfinite(zero_sum)).all():   # finite zero_sum: a, b, c are
        return np.where(zero_product, zero_sum, z)
    return _fma_settle(a, b, c, pieces, safe, zero_product, "rn")[0]


def _fma_exact(a, b, c, narrow=False, mode="rn"):
    if narrow:                              # the product is exact in f64
        with np.errstate(all="ignore"):
            p = a * b
        return _add_exact(p, c, mode)
    with np.errstate(all="ignore"):
        pieces = _fma_sum(a, b, c)
        return _fma_settle(a, b, c, pieces, _fma_safe(a, b, c, pieces[0]),
                           (a == 0) | (b == 0), mode)


def _fma_settle(a, b, c, pieces, safe, zero_product, mode):
    """(z, s) of f64 a * b + c from _fma_sum's pieces and _fma_safe's lanes: the error sign
    from the pieces, IEEE results for infinities, NaNs and zero products, exact rational
    arithmetic for the other lanes outside the safe range (errors ignored)."""
    uh, th, v0, e2, v, z = pieces
    e3 = _two_sum_err(th, v, z)
    s2 = np.where(v != v0, -np.sign(e2), np.sign(e2))
    s = np.where(e3 != 0, np.sign(e3), s2)
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    # infinities and NaNs: a finite product plus an infinite c is c
    special = np.where(np.isfinite(a) & np.isfinite(b), c + 0.0 * a * b, uh + c)
    z = np.where(finite, z, special)
    s = np.where(finite, s, 0.0)
    # exact zeros: the product's sign combines with c's (IEEE)
    if zero_product.any():
        zz = finite & zero_product
        z = np.where(zz, uh + c, z)
        s = np.where(zz, 0.0, s)
    bad = finite & ~safe & ~zero_product
    if bad.any():
        z, s = z.copy(), s.copy()
        _fix_lanes(bad, lambda i: Fraction(float(a[i])) * Fraction(float(b[i])) +
                   Fraction(float(c[i])), z, s, set_q=True)
    if mode == "rm":
        z = _zero_sign_rm(z, s, np.where(zero_product, uh, 1.0), c)
    return z, s


def _fma_narrow_rn(a, b, c):
    """_finish's input for fma.rn on 16/32-bit floats (as f64, errors ignored), the common
    case of _fma_exact(narrow=True) in fewer steps: the product is exact, so the f64 sum and
    its TwoSum error give the round-to-odd value. _add_exact's fix-ups only change the error
    sign where the sum is not finite, which round-to-odd leaves as it is."""
    p = a * b
    q = p + c
    return _ro(q, _two_sum_err(p, c, q))


# ---- rounding (q, s) into a destination type ----------------------------------------------

def _step_directed(r, back, x, mode):
    """r: x rounded to nearest in r's type, back = r as f64, x: f64 (exact or round-to-odd);
    step r one ulp for the directed mode."""
    if mode == "rn":
        return r
    with np.errstate(invalid="ignore"):
        if mode == "rp":
            up, down = back < x, None
        elif mode == "rm":
            up, down = None, back > x
        else:                                                 # rz
            up, down = (back < x) & (x < 0), (back > x) & (x > 0)
    dt = r.dtype
    if up is not None and up.any():
        r = np.where(up, np.nextafter(r, np.array(np.inf, dt)), r).astype(dt)
    if down is not None and down.any():
        r = np.where(down, np.nextafter(r, np.array(-np.inf, dt)), r).astype(dt)
    return r


def _ro_f32(x):
    """f64 -> f32 rounded to odd (exact when representable)."""
    with np.errstate(over="ignore"):
        r = x.astype(np.float32)
    back = r.astype(np.float64)
    inexact = (back != x) & np.isfinite(x)
    if not inexact.any():
        return r
    even = (r.view(np.uint32) & np.uint32(1)) == 0
    # overflow to inf: the odd neighbour is FLT_MAX
    toward = np.where(back < x, np.float32(np.inf), np.float32(-np.inf))
    return np.where(inexact & (even | np.isinf(r)), np.nextafter(r, toward), r).astype(np.float32)


def _round_f64(x, dt, mode="rn"):
    """f64 values x (exact, or rounded to odd at f64) rounded once into float type dt."""
    view = np.dtype(VIEW[dt])
    if view == np.float64:
        return x
    with np.errstate(over="ignore", invalid="ignore"):
        if view == np.float32 or view == np.float16:
            r = x.astype(view)
        else:                                          # bf16: through f32 rounded to odd
            r = _ro_f32(x).astype(view)
        if mode == "rn":
            return r
        return _step_directed(r, r.astype(np.float64), x, mode)


def _finish(q, s, dt, mode):
    """(q, s) rounded into float type dt with mode."""
    if np.dtype(VIEW[dt]) == np.float64:
        if mode == "rn" or s is None:
            return q
        up = {"rp": s > 0, "rm": None, "rz": (s > 0) & (q < 0)}[mode]
        down = {"rp": None, "rm": s < 0, "rz": (s < 0) & (q > 0)}[mode]
        if up is not None and up.any():
            q = np.where(up, np.nextafter(q, np.inf), q)
        if down is not None and down.any():
            q = np.where(down, np.nextafter(q, -np.inf), q)
        return q
    if s is not None:
        q = _ro(q, s)
    return _round_f64(q, dt, mode)


# ---- float instruction builder -------------------------------------------------------------

_NATIVE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def _exact_op(kind, elem, mode):
    narrow = elem != "f64"
    if kind == "add":
        return lambda a, b: _add_exact(a, b, mode)
    if kind == "sub":
        return lambda a, b: _add_exact(a, -b, mode)
    if kind == "mul":
        return lambda a, b: _mul_exact(a, b, narrow)
    if kind == "div":
        return _div_exact
    if kind == "sqrt":
        return _sqrt_exact
    if kind == "rcp":
        return lambda a: _div_exact(np.ones_like(a), a)
    if kind == "fma":
        return lambda a, b, c: _fma_exact(a, b, c, narrow, mode)
    raise KernelFault(f"no exact form of {kind}")


def _float_fn(kind, elem, mode="rn", ftz=False, sat=False, relu=False):
    """fn(*arrays of elem) -> array of elem, rounded once with mode."""
    view = np.dtype(VIEW[elem])
    flush = ftz and elem in ("f32", "f16")
    if mode == "rn" and kind in ("add", "sub", "mul", "div") and elem in ("f32", "f64", "f16"):
        core = _NATIVE[kind]
    elif mode == "rn" and kind == "sqrt" and elem in ("f32", "f64", "f16"):
        core = np.sqrt
    elif mode == "rn" and kind in ("add", "sub", "mul", "div") and elem == "bf16":
        native = _NATIVE[kind]
        core = lambda a, b: native(a.astype(np.float32), b.astype(np.float32)).astype(view)  # noqa
    elif mode == "rn" and kind == "fma" and elem in ("f32", "f16", "bf16"):
        def core(a, b, c):
            return _round_f64(_fma_narrow_rn(*(x.astype(np.float64) for x in (a, b, c))), elem)
    elif mode == "rn" and kind == "fma" and elem == "f64":
        core = _fma_f64_rn
    else:
        exact = _exact_op(kind, elem, mode)

        def core(*xs):
            q, s = exact(*(x.astype(np.float64) for x in xs))
            return _finish(q, s, elem, mode)

    def fn(*xs):                    # under the machine's errstate: no warnings
        if flush:
            xs = [_ftz(x) for x in xs]
        out = np.asarray(core(*xs)).astype(view, copy=False)
        if flush:
            out = _ftz(out)
        if sat:
            out = _sat(out)
        if relu:
            out = _relu(out)
        return out
    return fn


def _packed_fn(fn, t):
    """fn on elements lifted to the packed type t (f16x2 ...) when t is packed."""
    if t not in PACKED:
        return fn
    elem = PACKED[t]
    return lambda *xs: _pack(fn(*(_unpack(x, elem) for x in xs)))


def _elementwise(ins, m, t, fn, n_in):
    d, *srcs = _operands(ins, n_in + 1)
    if t in PACKED:
        t = "b32"

    put = m.writer(d, t)
    if n_in == 1:
        (get,) = (m.reader(s, t) for s in srcs)
        return lambda r: put(fn(get(r)), r)
    if n_in == 2:
        get_a, get_b = (m.reader(s, t) for s in srcs)
        return lambda r: put(fn(get_a(r), get_b(r)), r)
    gets = [m.reader(s, t) for s in srcs]
    return lambda r: put(fn(*(get(r) for get in gets)), r)


def _float_instruction(ins, m, kind, n_in, allowed=(), modes=FROUND, default="rn"):
    t = _type(ins)
    _check_mods(ins, set(modes) | {"ftz", "sat", "relu"} | set(allowed))
    mode = _mode(ins, modes, default)
    elem = PACKED.get(t, t)
    if elem == "f64" and ("sat" in ins.mods or "ftz" in ins.mods):
        unsupported(ins, ".sat/.ftz on .f64 (not defined by PTX)")
    if "relu" in ins.mods and elem not in ("f16", "bf16"):
        unsupported(ins, f".relu on .{elem}")
    fn = _float_fn(kind, elem, mode, "ftz" in ins.mods, "sat" in ins.mods, "relu" in ins.mods)
    return _elementwise(ins, m, t, _packed_fn(fn, t), n_in)


# ---- data movement ------------------------------------------------------------------------------

class Handlers:
    """The instruction table: opcode -> builder(instruction, machine) -> fn(run)."""

    def __init__(self):
        self.table = {}

    def check(self, kernel):
        """PtxError for the first instruction of `kernel` with no handler (at load time)."""
        for ins in kernel.instructions:
            if ins.opcode not in self.table:
                raise PtxError(f"kernel {kernel.name}, line {ins.line}: unsupported instruction "
                               f"'{ins.opcode}' in `{ins.text}`")

    def compile(self, ins, m):
        builder = self.table.get(ins.opcode)
        if builder is None:
            self.check(m.kernel)
        try:
            return builder(ins, m)
        except (KernelFault, PtxError) as e:
            if str(e).startswith("kernel "):
                raise
            where = "" if str(e).startswith("line ") else f"line {ins.line}: "
            raise type(e)(f"kernel {m.kernel.name}, {where}{e}") from None

    def register(self, *names):
        def add(builder):
            for n in names:
                self.table[n] = builder
            return builder
        return add


HANDLERS = Handlers()
op = HANDLERS.register


@op("mov")
def _mov(ins, m):
    t = _type(ins)
    d, s = _operands(ins, 2)
    if isinstance(d, Vector) or isinstance(s, Vector):
        return _mov_pack(ins, m, t, d, s)

    get, put = m.reader(s, t), m.writer(d, t)
    return lambda r: put(get(r), r)


def _mov_pack(ins, m, t, d, s):
    """mov.b64 {lo, hi}, %rd / mov.b32 %r, {a, b}: split or join register halves."""
    w = TYPE_BYTES[t]
    if isinstance(s, Vector):
        part = w // len(s.items)
        pt = f"b{8 * part}"

        def join(r):
            acc = np.zeros(m._count(r), STORAGE[w])
            for i, item in enumerate(s.items):
                acc |= m.read(item, pt, r).astype(STORAGE[w]) << STORAGE[w](8 * part * i)
            m.write(d, acc, f"b{8 * w}", r)
        return join
    part = w // len(d.items)
    pt = f"b{8 * part}"

    def split(r):
        value = m.read(s, f"b{8 * w}", r)
        for i, item in enumerate(d.items):
            m.write(item, (value >> STORAGE[w](8 * part * i)).astype(STORAGE[part]), pt, r)
    return split


def _normalize_space(ins):
    """`shared::cta` is `shared`; `shared::cluster` needs clusters (unsupported)."""
    mods = []
    for x in ins.mods:
        if x == "shared::cta":
            x = "shared"
        elif x == "shared::cluster":
            unsupported(ins, "state space .shared::cluster")
        mods.append(x)
    return tuple(mods)


def _space(ins, mods=None):
    mods = mods if mods is not None else ins.mods
    for s in SPACES:
        if s in mods:
            return s
    return "generic"


_MEMORY_MODS = set(SPACES) | CACHE_HINTS | {"v2", "v4"}


def _memory_form(ins):
    """ld/ldu/st: (type, state space, the two operands), checking the modifiers and dropping
    the cache-policy operand of .L2::cache_hint."""
    mods = _normalize_space(ins)
    for x in mods:
        if x not in _MEMORY_MODS and x not in TYPE_BYTES:
            unsupported(ins, f"modifier .{x}")
    ops = ins.operands
    if len(ops) == 3 and "L2::cache_hint" in mods:
        ops = ops[:2]                       # the cache policy operand
    if len(ops) != 2:
        raise KernelFault(f"'{ins.opcode}' takes 2 operands, got {len(ops)}")
    return _type(ins, mods), _space(ins, mods), ops


@op("ld", "ldu")
def _ld(ins, m):
    t, space, (d, a) = _memory_form(ins)
    targets = d.items if isinstance(d, Vector) else (d,)
    w = TYPE_BYTES[t]
    if space == "param":
        raw, offset = m.param_bytes(a)
        if not 0 <= offset <= offset + len(targets) * w <= len(raw):
            raise KernelFault(f"ld.param of {len(targets) * w} bytes at offset {offset} of a "
                              f"{len(raw)}-byte parameter")
        values = [np.frombuffer(raw[offset + i * w: offset + (i + 1) * w], VIEW[t])[0]
                  for i in range(len(targets))]

        puts = [m.writer(tgt, t) for tgt in targets]

        def run_param(r):
            for put, value in zip(puts, values):
                put(np.full(m._count(r), value, VIEW[t]), r)
        return run_param
    address, puts = m.addresser(a), [m.writer(tgt, t) for tgt in targets]
    if len(targets) == 1:
        (put,) = puts

        def run_one(r):
            base = address(r)
            m.count(ins, space, base, w, r)
            put(m.load(space, base, t, r), r)
        return run_one

    def run(r):
        base = address(r)
        _aligned_vector(base, len(targets) * w)
        m.count(ins, space, base, len(targets) * w, r)
        for i, put in enumerate(puts):
            put(m.load(space, base + np.uint64(i * w), t, r), r)
    return run


@op("st")
def _st(ins, m):
    t, space, (a, s) = _memory_form(ins)
    sources = s.items if isinstance(s, Vector) else (s,)
    w = TYPE_BYTES[t]
    if space in ("const", "param"):
        unsupported(ins, f".{space} stores")

    address, gets = m.addresser(a), [m.reader(src, t) for src in sources]
    if len(sources) == 1:
        (get,) = gets

        def run_one(r):
            base = address(r)
            m.count(ins, space, base, w, r)
            m.store(space, base, get(r), t, r)
        return run_one

    def run(r):
        base = address(r)
        _aligned_vector(base, len(sources) * w)
        m.count(ins, space, base, len(sources) * w, r)
        for i, get in enumerate(gets):
            m.store(space, base + np.uint64(i * w), get(r), t, r)
    return run


def _aligned_vector(base, nbytes):
    """A .v2/.v4 access moves its `nbytes` at once: its address must be a multiple of that,
    not only of the element size (a GPU faults on a 16-byte load at an 8-byte boundary)."""
    bad = np.nonzero(np.asarray(base, np.uint64) % np.uint64(nbytes))[0]
    if len(bad):
        raise MemoryFault(f"misaligned vector access of {nbytes} bytes at "
                          f"{int(np.asarray(base)[bad[0]]):#x}", bad,
                          np.asarray(base)[bad])


@op("prefetch", "prefetchu")
def _prefetch(ins, m):
    return lambda r: None


@op("cvta")
def _cvta(ins, m):
    """Global and .const addresses are generic addresses here; shared and local offsets live
    in windows of the generic space."""
    mods = _normalize_space(ins)
    t = _type(ins, mods)
    d, s = _operands(ins, 2)
    to = "to" in mods
    window = SHARED_WINDOW if "shared" in mods else LOCAL_WINDOW if "local" in mods else 0
    if "param" in mods:
        unsupported(ins, "cvta of a .param address")
    get, put = m.reader(s, t), m.writer(d, t)

    def run(r):
        v = get(r).astype(np.uint64)
        if window:
            v = v - np.uint64(window) if to else v + np.uint64(window)
        put(v.astype(VIEW[t]), r)
    return run


def _in_window(v, base):
    return (v >= np.uint64(base)) & (v < np.uint64(base + WINDOW_SIZE))


@op("isspacep")
def _isspacep(ins, m):
    """A generic address is shared or local by its window, else global (.const and .param
    variables have no generic windows here: always false)."""
    mods = _normalize_space(ins)
    space = _space(ins, mods)
    d, a = _operands(ins, 2)

    def run(r):
        v = m.read(a, "u64", r)
        shared, local = _in_window(v, SHARED_WINDOW), _in_window(v, LOCAL_WINDOW)
        if space == "shared":
            out = shared
        elif space == "local":
            out = local
        elif space == "global":
            out = ~(shared | local)
        else:
            out = np.zeros(v.shape, bool)
        m.write(d, out, "pred", r)
    return run


# ---- integer arithmetic -------------------------------------------------------------------------

def _cc(m):
    """The per-thread carry flag (CC.CF) of add.cc/addc/sub.cc/subc/mad.cc/madc."""
    cc = getattr(m, "_carry_flag", None)
    if cc is None:
        cc = m._carry_flag = np.zeros(m.T, np.uint8)
    return cc


def _add_carry(x, y, cin):
    """x + y + cin on unsigned arrays (wrapping) and the carry out of it."""
    s1 = x + y
    out = s1 + cin
    return out, (s1 < x) | (out < s1)


def _int_add(ins, m, t, sub, carry_in, carry_out):
    d, a, b = _operands(ins, 3)
    w = TYPE_BYTES[t]
    u = STORAGE[w]
    cc = _cc(m) if carry_in or carry_out else None

    def run(r):
        x = m.read(a, t, r).view(u) if w > 1 else m.read(a, t, r)
        y = m.read(b, t, r).view(u)
        cin = cc[r].astype(u) if carry_in else u(0)
        if sub:
            out = x - y - cin
            if carry_out:             # borrow out
                cc[r] = (x < y) | ((x == y) & (cin != 0))
        else:
            out, carry = _add_carry(x, y, cin)
            if carry_out:
                cc[r] = carry
        m.write(d, out.view(VIEW[t]), t, r)
    return run


@op("add", "sub")
def _add(ins, m):
    t = _type(ins)
    if _is_float(t):
        return _float_instruction(ins, m, ins.opcode, 2, allowed=())
    _check_mods(ins, {"sat", "cc"})
    if "cc" in ins.mods:
        return _int_add(ins, m, t, ins.opcode == "sub", False, True)
    if t in ("u16x2", "s16x2"):
        elem = PACKED[t]
        fn = np.add if ins.opcode == "add" else np.subtract
        return _elementwise(ins, m, "b32", lambda a, b: _pack(fn(_unpack(a, elem),
                                                                  _unpack(b, elem))), 2)
    fn = np.add if ins.opcode == "add" else np.subtract
    if "sat" in ins.mods:
        if t != "s32":
            unsupported(ins, ".sat on a non-s32 integer type")
        return _elementwise(ins, m, t, lambda a, b: np.clip(fn(a.astype(np.int64),
                                                               b.astype(np.int64)),
                                                            -2**31, 2**31 - 1).astype(np.int32), 2)
    return _elementwise(ins, m, t, fn, 2)


@op("addc", "subc")
def _addc(ins, m):
    t = _type(ins)
    _check_mods(ins, {"cc"})
    return _int_add(ins, m, t, ins.opcode == "subc", True, "cc" in ins.mods)


_BITWISE = {"and": (np.bitwise_and, np.logical_and), "or": (np.bitwise_or, np.logical_or),
            "xor": (np.bitwise_xor, np.logical_xor)}


@op("and", "or", "xor")
def _logic(ins, m):
    t = _type(ins)
    _check_mods(ins, set())
    fn = _BITWISE[ins.opcode][1 if t == "pred" else 0]
    return _elementwise(ins, m, t, fn, 2)


@op("not")
def _not(ins, m):
    t = _type(ins)
    _check_mods(ins, set())
    return _elementwise(ins, m, t, np.logical_not if t == "pred" else np.invert, 1)


@op("cnot")
def _cnot(ins, m):
    t = _type(ins)
    return _elementwise(ins, m, t, lambda a: (a == 0).astype(a.dtype), 1)


@op("lop3")
def _lop3(ins, m):
    t = _type(ins)
    _check_mods(ins, set())
    d, a, b, c, lut = _operands(ins, 5)
    if not isinstance(lut, Imm):
        unsupported(ins, "lop3 with a non-immediate lookup table")
    table = int(lut.value) & 0xFF
    terms = [i for i in range(8) if table >> i & 1]

    def run(r):
        x, y, z = (m.read(o, t, r) for o in (a, b, c))
        out = np.zeros_like(x)
        for i in terms:
            out |= (x if i & 4 else ~x) & (y if i & 2 else ~y) & (z if i & 1 else ~z)
        m.write(d, out, t, r)
    return run


_M32 = np.uint64(0xFFFFFFFF)


def _mul_hi_u64(a, b):
    """High 64 bits of the 128-bit product of uint64 arrays, vectorized via 32-bit halves."""
    s32 = np.uint64(32)
    a0, a1 = a & _M32, a >> s32
    b0, b1 = b & _M32, b >> s32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s32) + (p01 & _M32) + (p10 & _M32)
    return p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32)


def _mul_hi_64(a, b, signed):
    if not signed:
        return _mul_hi_u64(a, b)
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    hi = _mul_hi_u64(ua, ub)
    hi = hi - np.where(a < 0, ub, np.uint64(0)) - np.where(b < 0, ua, np.uint64(0))
    return hi.view(np.int64)


def _int_mul(t, mode):
    """mul/mad .lo, .hi or .wide on type t: (function, result type)."""
    w = TYPE_BYTES[t]
    signed = t.startswith("s")
    if mode == "wide":
        if w == 8:
            raise KernelFault(".wide is not defined for 64-bit types")
        wide = SIGNED[2 * w] if signed else STORAGE[2 * w]
        return (lambda a, b: a.astype(wide) * b.astype(wide)), ("s" if signed else "u") + str(16 * w)
    if mode == "hi":
        if w == 8:
            return (lambda a, b: _mul_hi_64(a, b, signed)), t
        big = np.int64 if signed else np.uint64
        return (lambda a, b: ((a.astype(big) * b.astype(big)) >> big(8 * w)).astype(VIEW[t])), t
    return (lambda a, b: a * b), t


@op("mul")
def _mul(ins, m):
    t = _type(ins)
    if _is_float(t):
        return _float_instruction(ins, m, "mul", 2)
    _check_mods(ins, {"lo", "hi", "wide"})
    mode = next((x for x in ins.mods if x in ("lo", "hi", "wide")), "lo")
    fn, rt = _int_mul(t, mode)
    d, a, b = _operands(ins, 3)
    get_a, get_b, put = m.reader(a, t), m.reader(b, t), m.writer(d, rt)

    def run(r):
        with np.errstate(over="ignore"):
            put(fn(get_a(r), get_b(r)), r)
    return run


@op("mul24", "mad24")
def _mul24(ins, m):
    t = _type(ins)
    _check_mods(ins, {"lo", "hi", "sat"})
    if "sat" in ins.mods:
        unsupported(ins, "mad24 .sat")
    hi = "hi" in ins.mods
    signed = t == "s32"
    n = 4 if ins.opcode == "mad24" else 3
    d, a, b, *c = _operands(ins, n)

    def f24(x):
        x = x.astype(np.int64) & 0xFFFFFF
        return np.where(x & 0x800000, x - (1 << 24), x) if signed else x

    def run(r):
        p = f24(m.read(a, t, r)) * f24(m.read(b, t, r))      # <= 48 bits: exact in int64
        out = (p >> 16) if hi else p
        if c:
            out = out + m.read(c[0], t, r).astype(np.int64)
        m.write(d, (out & 0xFFFFFFFF).astype(np.uint32), "u32", r)
    return run


@op("mad", "fma")
def _mad(ins, m):
    t = _type(ins)
    if _is_float(t):
        return _float_instruction(ins, m, "fma", 3)
    _check_mods(ins, {"lo", "hi", "wide", "sat", "cc"})
    mode = next((x for x in ins.mods if x in ("lo", "hi", "wide")), "lo")
    mul, rt = _int_mul(t, mode)
    d, a, b, c = _operands(ins, 4)
    sat = "sat" in ins.mods
    if sat and (t != "s32" or mode != "hi"):
        unsupported(ins, ".sat (defined only for mad.hi.sat.s32)")
    if "cc" in ins.mods:
        return _madc(ins, m, t, mul, rt, False)
    get_a, get_b, get_c, put = m.reader(a, t), m.reader(b, t), m.reader(c, rt), m.writer(d, rt)

    def run(r):
        with np.errstate(over="ignore"):
            p = mul(get_a(r), get_b(r))
            if sat:
                v = np.clip(p.astype(np.int64) + get_c(r).astype(np.int64),
                            -2**31, 2**31 - 1).astype(np.int32)
            else:
                v = p + get_c(r)
            put(v, r)
    return run


def _madc(ins, m, t, mul, rt, carry_in):
    d, a, b, c = _operands(ins, 4)
    cc = _cc(m)
    u = STORAGE[TYPE_BYTES[rt]]
    carry_out = "cc" in ins.mods

    def run(r):
        with np.errstate(over="ignore"):
            p = np.asarray(mul(m.read(a, t, r), m.read(b, t, r))).view(u)
            z = m.read(c, rt, r).view(u)
            out, carry = _add_carry(p, z, cc[r].astype(u) if carry_in else u(0))
            if carry_out:
                cc[r] = carry
            m.write(d, out.view(VIEW[rt]), rt, r)
    return run


@op("madc")
def _madc_op(ins, m):
    t = _type(ins)
    _check_mods(ins, {"lo", "hi", "cc"})
    mode = "hi" if "hi" in ins.mods else "lo"
    mul, rt = _int_mul(t, mode)
    return _madc(ins, m, t, mul, rt, True)


@op("sad")
def _sad(ins, m):
    t = _type(ins)
    d, a, b, c = _operands(ins, 4)

    def run(r):
        x, y = m.read(a, t, r), m.read(b, t, r)
        m.write(d, np.where(x > y, x - y, y - x) + m.read(c, t, r), t, r)
    return run


@op("dp4a", "dp2a")
def _dp4a(ins, m):
    types = [x for x in ins.mods if x in ("u32", "s32")]
    if len(types) != 2:
        unsupported(ins, "dp4a/dp2a form")
    at, bt = types
    d, a, b, c = _operands(ins, 4)
    signed_out = "s32" in types
    four = ins.opcode == "dp4a"
    hi = "hi" in ins.mods

    def run(r):
        x = m.read(a, "b32", r)
        y = m.read(b, "b32", r)
        if four:
            va = np.ascontiguousarray(x).view(np.int8 if at == "s32" else np.uint8).reshape(-1, 4)
            vb = np.ascontiguousarray(y).view(np.int8 if bt == "s32" else np.uint8).reshape(-1, 4)
        else:
            va = np.ascontiguousarray(x).view(np.int16 if at == "s32" else np.uint16).reshape(-1, 2)
            vb8 = np.ascontiguousarray(y).view(np.int8 if bt == "s32" else np.uint8).reshape(-1, 4)
            vb = vb8[:, 2:] if hi else vb8[:, :2]
        acc = (va.astype(np.int64) * vb.astype(np.int64)).sum(axis=1)
        out = acc + m.read(c, "s32" if signed_out else "u32", r).astype(np.int64)
        m.write(d, (out & 0xFFFFFFFF).astype(np.uint32), "u32", r)
    return run


def _avrg(a, b):
    """Rounded average: half-way rounds away from zero (toward +inf for a non-negative sum)."""
    total = a + b
    return np.where(total >= 0, (total + 1) >> 1, total >> 1)


_VIDEO = {"vadd": np.add, "vsub": np.subtract, "vavrg": _avrg,
          "vabsdiff": lambda a, b: np.abs(a - b), "vmin": np.minimum, "vmax": np.maximum}
_VSET = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
         "gt": np.greater, "ge": np.greater_equal}


def _selector(ins, operand, lanes, default):
    """(register, element positions) of a video operand: `%r.b3210` lists byte positions
    (`%r.h10` half-word ones), the last digit for element 0."""
    if not isinstance(operand, Selected):
        return operand, default
    kind, digits = operand.selector[0], operand.selector[1:]
    if kind != ("b" if lanes == 4 else "h"):
        unsupported(ins, f"selector .{operand.selector}")
    return operand.reg, [int(x) for x in reversed(digits)]


@op(*(f"{name}{lanes}" for name in list(_VIDEO) + ["vset"] for lanes in (2, 4)))
def _video_simd(ins, m):
    """The SIMD video instructions (PTX ISA "SIMD Video Instructions"): 2 half-word or 4 byte
    lanes chosen from the 8 bytes {b, a} by .asel / .bsel, sign- or zero-extended by type,
    combined exactly, .sat clamped to the lane range of .dtype, then either merged into c's
    other lanes by the destination mask or (.add) summed onto c. (vset's description takes
    the other lanes from b, its semantics from c: c here, as for the others.)"""
    name, lanes = ins.opcode[:-1], int(ins.opcode[-1])
    width = 32 // lanes
    types = [x for x in ins.mods if x in ("u32", "s32")]
    compare = [x for x in ins.mods if x in _VSET]
    _check_mods(ins, {"sat", "add"} | set(compare))
    if name == "vset":              # vset.atype.btype.cmp: 0 or 1 per lane, unsigned
        if len(types) != 2 or len(compare) != 1 or "sat" in ins.mods:
            unsupported(ins, "vset form")
        dtype, (atype, btype) = "u32", types
    else:
        if len(types) != 3 or compare:
            unsupported(ins, f"{ins.opcode} form")
        dtype, atype, btype = types
    accumulate, sat = "add" in ins.mods, "sat" in ins.mods
    if accumulate and sat:
        unsupported(ins, ".sat with the .add accumulate")
    d, a, b, c = _operands(ins, 4)
    d, mask = _selector(ins, d, lanes, list(range(lanes)))
    a, asel = _selector(ins, a, lanes, list(range(lanes)))
    b, bsel = _selector(ins, b, lanes, list(range(lanes, 2 * lanes)))
    if len(asel) != lanes or len(bsel) != lanes or max(asel + bsel) >= 2 * lanes or \
            max(mask) >= lanes:
        unsupported(ins, "selector")
    fn = _VSET[compare[0]] if name == "vset" else _VIDEO[name]
    low = (1 << width) - 1
    if dtype == "s32":
        lo, hi = -(1 << width - 1), (1 << width - 1) - 1
    else:
        lo, hi = 0, low

    def lane(pool, position, signed):
        v = (pool >> np.uint64(width * position)) & np.uint64(low)
        v = v.astype(np.int64)
        return np.where(v > low >> 1, v - (low + 1), v) if signed else v

    def run(r):
        pool = m.read(b, "b32", r).astype(np.uint64) << np.uint64(32) | \
            m.read(a, "b32", r).astype(np.uint64)
        cv = m.read(c, "b32", r).astype(np.int64)
        out = cv if accumulate else np.zeros(len(cv), np.int64)
        for i in range(lanes):
            with np.errstate(all="ignore"):
                t = np.asarray(fn(lane(pool, asel[i], atype == "s32"),
                                  lane(pool, bsel[i], btype == "s32"))).astype(np.int64)
            if sat:
                t = np.clip(t, lo, hi)
            if accumulate:
                if i in mask:
                    out = out + t
            else:
                piece = t if i in mask else cv >> (width * i)
                out = out | ((piece & low) << (width * i))
        m.write(d, (out & 0xFFFFFFFF).astype(np.uint32), "u32", r)
    return run


@op("div")
def _div(ins, m):
    t = _type(ins)
    if _is_float(t):
        return _float_div(ins, m, t)
    _check_mods(ins, set())

    def idiv(a, b):
        zero = b == 0
        safe = np.where(zero, np.ones((), a.dtype), b)
        if t.startswith("s"):
            u = STORAGE[a.dtype.itemsize]
            q = np.abs(a).view(u) // np.abs(safe).view(u)     # |MIN| is right as unsigned
            q = np.where((a < 0) != (safe < 0), (~q + u(1)), q).view(a.dtype)
            return np.where(zero, np.array(-1, a.dtype), q).astype(a.dtype)
        return np.where(zero, np.iinfo(a.dtype).max, a // safe).astype(a.dtype)

    def run_fn(a, b):
        with np.errstate(all="ignore"):
            return idiv(a, b)
    return _elementwise(ins, m, t, run_fn, 2)


def _float_div(ins, m, t):
    if "approx" in ins.mods or "full" in ins.mods:
        if t != "f32":
            unsupported(ins, f"div.approx/.full on .{t}")
        _check_mods(ins, {"approx", "full", "ftz"})
        ftz = "ftz" in ins.mods
        approx = "approx" in ins.mods

        def fn(a, b):
            with np.errstate(all="ignore"):
                if ftz:
                    a, b = _ftz(a), _ftz(b)
                out = (a.astype(np.float64) / b.astype(np.float64)).astype(np.float32)
                if approx:               # documented: 2^126 < |b| < 2^128 gives 0 (NaN for inf a)
                    big = (np.abs(b) > np.float32(2.0 ** 126)) & np.isfinite(b)
                    out = np.where(big, np.where(np.isinf(a), np.float32(np.nan),
                                                 np.float32(0) * a * b), out)
                return _ftz(out) if ftz else out
        return _elementwise(ins, m, t, fn, 2)
    if t in ("f32", "f64"):
        return _float_instruction(ins, m, "div", 2)
    unsupported(ins, f"div on .{t}")


@op("rem")
def _rem(ins, m):
    t = _type(ins)
    _check_mods(ins, set())

    def fn(a, b):
        with np.errstate(all="ignore"):
            zero = b == 0
            safe = np.where(zero | (b == -1) if t.startswith("s") else zero,
                            np.ones((), a.dtype), b)
            out = np.fmod(a, safe)
            if t.startswith("s"):
                out = np.where(b == -1, np.zeros((), a.dtype), out)
            return np.where(zero, a, out).astype(a.dtype)
    return _elementwise(ins, m, t, fn, 2)


# ---- min / max ----------------------------------------------------------------------------------

def _float_minmax(is_min, nan_mode, xorsign):
    def fn(a, b):
        with np.errstate(invalid="ignore"):
            if xorsign:
                sign = np.signbit(a) ^ np.signbit(b)
                a, b = np.abs(a), np.abs(b)
            if is_min:
                pick_a = (a < b) | ((a == b) & np.signbit(a))
            else:
                pick_a = (a > b) | ((a == b) & ~np.signbit(a))
            out = np.where(pick_a, a, b)
            na, nb = np.isnan(a), np.isnan(b)
            out = np.where(na, b, np.where(nb, a, out))
            nan = (na | nb) if nan_mode else (na & nb)
            out = np.where(nan, _canonical_nan(a.dtype), out).astype(a.dtype)
            if xorsign:
                out = np.where(np.isnan(out), out, np.copysign(out, np.where(sign, -1.0, 1.0)
                                                               .astype(out.dtype)))
            return out.astype(a.dtype)
    return fn


@op("min", "max")
def _minmax_op(ins, m):
    t = _type(ins)
    is_min = ins.opcode == "min"
    if _is_float(t):
        _check_mods(ins, {"ftz", "NaN", "xorsign", "abs"})
        if "abs" in ins.mods and "xorsign" not in ins.mods:
            unsupported(ins, ".abs without .xorsign (three-input min/max)")
        if len(ins.operands) != 3:
            unsupported(ins, "three-input min/max")
        elem = PACKED.get(t, t)
        core = _float_minmax(is_min, "NaN" in ins.mods, "xorsign" in ins.mods)
        ftz = "ftz" in ins.mods and elem in ("f32", "f16")
        fn = (lambda a, b: _ftz(core(_ftz(a), _ftz(b)))) if ftz else core
        return _elementwise(ins, m, t, _packed_fn(fn, t), 2)
    _check_mods(ins, {"relu"})
    base = np.minimum if is_min else np.maximum
    relu = "relu" in ins.mods
    fn = (lambda a, b: np.maximum(base(a, b), 0).astype(a.dtype)) if relu else base
    return _elementwise(ins, m, t, _packed_fn(fn, t), 2)


@op("neg", "abs")
def _neg(ins, m):
    t = _type(ins)
    _check_mods(ins, {"ftz"})
    if _is_float(t):
        elem = PACKED.get(t, t)
        bits = 8 * TYPE_BYTES[elem]
        u = STORAGE[bits // 8]
        sign = u(1 << (bits - 1))
        neg = ins.opcode == "neg"
        ftz = "ftz" in ins.mods and elem in ("f32", "f16")

        def fn(x):                           # a sign-bit operation (NaNs keep their payload)
            v = np.ascontiguousarray(_ftz(x) if ftz else x).view(u)
            return (v ^ sign if neg else v & ~sign).view(x.dtype)
        return _elementwise(ins, m, t, _packed_fn(fn, t), 1)
    if t in PACKED:
        unsupported(ins, f"{ins.opcode} on .{t}")
    return _elementwise(ins, m, t, np.negative if ins.opcode == "neg" else np.abs, 1)


@op("copysign")
def _copysign(ins, m):
    t = _type(ins)
    _check_mods(ins, set())
    u = STORAGE[TYPE_BYTES[t]]
    sign = u(1 << (8 * TYPE_BYTES[t] - 1))

    def fn(a, b):                             # the sign of a, the rest of b
        return ((b.view(u) & ~sign) | (a.view(u) & sign)).view(a.dtype)
    return _elementwise(ins, m, t, fn, 2)


@op("testp")
def _testp(ins, m):
    t = _type(ins)
    kind = next((x for x in ins.mods if x in ("finite", "infinite", "number", "notanumber",
                                                "normal", "subnormal")), None)
    if kind is None:
        unsupported(ins, "testp form")
    d, a = _operands(ins, 2)

    def run(r):
        x = m.read(a, t, r)
        with np.errstate(invalid="ignore"):
            ax = np.abs(x)
            out = {"finite": lambda: np.isfinite(x), "infinite": lambda: np.isinf(x),
                   "number": lambda: ~np.isnan(x), "notanumber": lambda: np.isnan(x),
                   "normal": lambda: np.isfinite(x) & (ax >= _TINY[x.dtype.name]),
                   "subnormal": lambda: (ax < _TINY[x.dtype.name]) & (x != 0)}[kind]()
        m.write(d, out, "pred", r)
    return run


# ---- shifts and bits ------------------------------------------------------------------------------

@op("shl", "shr")
def _shift(ins, m):
    t = _type(ins)
    _check_mods(ins, set())
    d, a, b = _operands(ins, 3)
    bits = 8 * TYPE_BYTES[t]
    left = ins.opcode == "shl"
    get_a, get_b, put = m.reader(a, t), m.reader(b, "u32"), m.writer(d, t)

    def run(r):
        x = get_a(r)
        n = get_b(r)
        big = n >= bits
        n = np.minimum(n, bits - 1).astype(x.dtype)
        if left:
            out = np.where(big, 0, x << n)
        elif t.startswith("s"):
            out = np.where(big, np.where(x < 0, -1, 0), x >> n)
        else:
            out = np.where(big, 0, x >> n)
        put(out.astype(x.dtype), r)
    return run


@op("shf")
def _shf(ins, m):
    _check_mods(ins, {"l", "r", "wrap", "clamp"})
    left = "l" in ins.mods
    clamp = "clamp" in ins.mods
    d, a, b, c = _operands(ins, 4)

    def run(r):
        lo = m.read(a, "b32", r).astype(np.uint64)
        hi = m.read(b, "b32", r).astype(np.uint64)
        n = m.read(c, "u32", r)
        n = np.minimum(n, 32) if clamp else n & 31
        n = n.astype(np.uint64)
        both = (hi << np.uint64(32)) | lo
        if left:
            out = np.where(n == 32, lo, (both << n) >> np.uint64(32))
        else:
            out = np.where(n == 32, hi, both >> n)
        m.write(d, (out & _M32).astype(np.uint32), "b32", r)
    return run


def _popcount(x):
    """Bit counts of a uint64 array (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.uint32)


def _clz(x, bits):
    """Leading zeros of the low `bits` of uint64 array x."""
    x = x.astype(np.uint64)
    for s in (1, 2, 4, 8, 16, 32):
        x = x | (x >> np.uint64(s))
    return (np.uint32(bits) - _popcount(x)).astype(np.uint32)


def _brev(x, bits):
    x = x.astype(np.uint64)
    for s, mask in ((1, 0x5555555555555555), (2, 0x3333333333333333), (4, 0x0F0F0F0F0F0F0F0F),
                    (8, 0x00FF00FF00FF00FF), (16, 0x0000FFFF0000FFFF), (32, 0x00000000FFFFFFFF)):
        mk = np.uint64(mask)
        x = ((x >> np.uint64(s)) & mk) | ((x & mk) << np.uint64(s))
    return x >> np.uint64(64 - bits)


@op("popc", "clz", "brev", "bfind")
def _bits(ins, m):
    t = _type(ins)
    _check_mods(ins, {"shiftamt"})
    bits = 8 * TYPE_BYTES[t]
    d, a = _operands(ins, 2)
    kind = ins.opcode

    def run(r):
        v = m.read(a, t, r)
        x = v.view(STORAGE[bits // 8]).astype(np.uint64)
        if kind == "popc":
            m.write(d, _popcount(x), "u32", r)
        elif kind == "clz":
            m.write(d, _clz(x, bits), "u32", r)
        elif kind == "brev":
            m.write(d, _brev(x, bits).astype(STORAGE[bits // 8]), f"b{bits}", r)
        else:                                            # bfind
            if t.startswith("s"):
                x = np.where(v < 0, ~x & np.uint64((1 << bits) - 1), x)
            pos = np.uint32(bits - 1) - _clz(x, bits)    # wraps to 0xffffffff when x == 0
            if "shiftamt" in ins.mods:
                pos = np.where(x == 0, pos, np.uint32(bits - 1) - pos).astype(np.uint32)
            m.write(d, pos, "u32", r)
    return run


def _low_mask(n, width):
    """(1 << n) - 1 for n in [0, width] as uint64 (n == 64 gives all ones)."""
    n = n.astype(np.uint64)
    full = n >= np.uint64(64)
    return np.where(full, np.uint64(0xFFFFFFFFFFFFFFFF),
                    (np.uint64(1) << np.minimum(n, np.uint64(63))) - np.uint64(1))


@op("bfe")
def _bfe(ins, m):
    t = _type(ins)
    _check_mods(ins, set())
    d, a, b, c = _operands(ins, 4)
    bits = 8 * TYPE_BYTES[t]
    signed = t.startswith("s")
    u = STORAGE[bits // 8]

    def run(r):
        x = m.read(a, t, r).view(u).astype(np.uint64)
        pos = (m.read(b, "u32", r) & 0xFF).astype(np.uint64)
        ln = (m.read(c, "u32", r) & 0xFF).astype(np.uint64)
        B = np.uint64(bits)
        # bits actually taken from a: min(len, bits - pos) when pos < bits
        take = np.where(pos < B, np.minimum(ln, B - np.minimum(pos, B)), np.uint64(0))
        field = (x >> np.minimum(pos, B - np.uint64(1))) & _low_mask(take, bits)
        field = np.where(pos < B, field, np.uint64(0))
        if signed:
            top = np.minimum(pos + ln - np.uint64(1), B - np.uint64(1))
            sbit = np.where(ln == 0, np.uint64(0), (x >> np.where(ln == 0, np.uint64(0), top))
                            & np.uint64(1))
            fill = ~_low_mask(take, bits) & np.uint64((1 << bits) - 1 if bits < 64 else
                                                      0xFFFFFFFFFFFFFFFF)
            field = np.where(sbit == 1, field | fill, field)
        m.write(d, (field & np.uint64((1 << bits) - 1 if bits < 64 else 0xFFFFFFFFFFFFFFFF))
                .astype(u).view(VIEW[t]), t, r)
    return run


@op("bfi")
def _bfi(ins, m):
    t = _type(ins)
    _check_mods(ins, set())
    f, a, b, c, dd = _operands(ins, 5)
    bits = 8 * TYPE_BYTES[t]
    u = STORAGE[bits // 8]

    def run(r):
        x = m.read(a, t, r).view(u).astype(np.uint64)
        y = m.read(b, t, r).view(u).astype(np.uint64)
        pos = (m.read(c, "u32", r) & 0xFF).astype(np.uint64)
        ln = (m.read(dd, "u32", r) & 0xFF).astype(np.uint64)
        B = np.uint64(bits)
        ok = pos < B
        take = np.where(ok, np.minimum(ln, B - np.minimum(pos, B)), np.uint64(0))
        p = np.where(ok, pos, np.uint64(0))
        mask = _low_mask(take, bits) << p
        out = (y & ~mask) | ((x << p) & mask)
        full = np.uint64((1 << bits) - 1 if bits < 64 else 0xFFFFFFFFFFFFFFFF)
        m.write(f, (out & full).astype(u).view(VIEW[t]), t, r)
    return run


_PRMT_MODES = {
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}   # per c[1:0]: the source byte of d.b0, d.b1, d.b2, d.b3


@op("prmt")
def _prmt(ins, m):
    _check_mods(ins, set(_PRMT_MODES))
    mode = next((x for x in ins.mods if x in _PRMT_MODES), None)
    d, a, b, c = _operands(ins, 4)
    table = np.array(_PRMT_MODES[mode], np.uint64) if mode else None

    def run(r):
        src = (m.read(b, "b32", r).astype(np.uint64) << np.uint64(32)) | \
            m.read(a, "b32", r).astype(np.uint64)
        ctl = m.read(c, "b32", r).astype(np.uint64)
        out = np.zeros(src.shape, np.uint64)
        for i in range(4):
            if mode is None:
                sel = (ctl >> np.uint64(4 * i)) & np.uint64(0xF)
                byte = (src >> ((sel & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
                sign = (sel & np.uint64(8)) != 0
                byte = np.where(sign, np.where(byte & np.uint64(0x80), np.uint64(0xFF),
                                               np.uint64(0)), byte)
            else:
                sel = table[(ctl & np.uint64(3)).astype(np.int64), i]
                byte = (src >> (sel * np.uint64(8))) & np.uint64(0xFF)
            out |= byte << np.uint64(8 * i)
        m.write(d, out.astype(np.uint32), "b32", r)
    return run


# ---- transcendental and reciprocal ----------------------------------------------------------------

_APPROX = {"ex2": np.exp2, "lg2": np.log2, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
           "rsqrt": lambda x: 1.0 / np.sqrt(x)}


@op("ex2", "lg2", "sin", "cos", "tanh", "rsqrt")
def _approx(ins, m):
    t = _type(ins)
    _check_mods(ins, {"approx", "ftz"})
    if "approx" not in ins.mods:
        unsupported(ins, f"{ins.opcode} without .approx")
    elem = PACKED.get(t, t)
    if elem == "f64" and ins.opcode != "rsqrt":
        unsupported(ins, f"{ins.opcode}.approx.f64")
    f = _APPROX[ins.opcode]
    ftz = "ftz" in ins.mods and elem in ("f32", "f16", "f64")
    view = np.dtype(VIEW[elem])

    def fn(x):
        with np.errstate(all="ignore"):
            if ftz and elem != "f64":
                x = _ftz(x)
            elif ftz:             # rsqrt.approx.ftz.f64: f64 subnormal inputs flush
                x = np.where(np.abs(x) < 2.0 ** -1022, np.copysign(0.0, x), x)
            out = _round_f64(f(x.astype(np.float64)), elem) if elem != "f64" else f(x)
            out = np.asarray(out).astype(view)
            return _ftz(out) if ftz and elem != "f64" else out
    return _elementwise(ins, m, t, _packed_fn(fn, t), 1)


@op("sqrt")
def _sqrt(ins, m):
    t = _type(ins)
    if "approx" in ins.mods:
        _check_mods(ins, {"approx", "ftz"})
        if t != "f32":
            unsupported(ins, f"sqrt.approx.{t}")
        fn = _float_fn("sqrt", "f32", "rn", "ftz" in ins.mods)
        return _elementwise(ins, m, t, fn, 1)
    return _float_instruction(ins, m, "sqrt", 1)


@op("rcp")
def _rcp(ins, m):
    t = _type(ins)
    if "approx" in ins.mods:
        _check_mods(ins, {"approx", "ftz"})
        ftz = "ftz" in ins.mods

        def fn(x):
            with np.errstate(all="ignore"):
                if t == "f32":
                    if ftz:
                        x = _ftz(x)
                    out = (1.0 / x.astype(np.float64)).astype(np.float32)
                    return _ftz(out) if ftz else out
                if ftz:
                    x = np.where(np.abs(x) < 2.0 ** -1022, np.copysign(0.0, x), x)
                out = 1.0 / x
                return np.where(np.abs(out) < 2.0 ** -1022, np.copysign(0.0, out), out) \
                    if ftz else out
        return _elementwise(ins, m, t, fn, 1)
    return _float_instruction(ins, m, "rcp", 1)


# ---- comparisons and selects ----------------------------------------------------------------

_FLOAT_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
              "gt": np.greater, "ge": np.greater_equal}
_INT_CMP = {**_FLOAT_CMP, "lo": np.less, "ls": np.less_equal, "hi": np.greater,
            "hs": np.greater_equal}
_COMBINE = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
_CMP_NAMES = set(_INT_CMP) | {"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}


def _compare(op, t):
    if _is_float(t):
        if op in ("num", "nan"):
            return (lambda a, b: ~(np.isnan(a) | np.isnan(b))) if op == "num" else \
                (lambda a, b: np.isnan(a) | np.isnan(b))
        unordered = op.endswith("u") and op[:-1] in _FLOAT_CMP
        if not unordered and op not in _FLOAT_CMP:
            raise KernelFault(f"comparison .{op} is not defined on .{t}")
        base = _FLOAT_CMP[op[:-1] if unordered else op]

        def cmp(a, b):
            nan = np.isnan(a) | np.isnan(b)
            with np.errstate(invalid="ignore"):
                r = base(a, b)
            return (r | nan) if unordered else (r & ~nan)
        return cmp
    if op not in _INT_CMP:
        raise KernelFault(f"comparison .{op} is not defined on .{t}")
    return _INT_CMP[op]


def _compare_setup(ins, t):
    _check_mods(ins, _CMP_NAMES | set(_COMBINE) | {"ftz"})
    names = [x for x in ins.mods if x in _CMP_NAMES]
    if not names:
        unsupported(ins, "comparison form")
    cmp_name = names[0]
    combine = next((x for x in ins.mods if x in _COMBINE and x != cmp_name), None)
    elem = PACKED.get(t, t)
    if t in ("b16", "b32", "b64") and cmp_name not in ("eq", "ne"):
        # b types compare as unsigned
        elem = "u" + t[1:]
    cmp = _compare(cmp_name, elem)
    if "ftz" in ins.mods and elem in ("f32", "f16"):
        inner = cmp
        cmp = lambda a, b: inner(_ftz(a), _ftz(b))  # noqa: E731
    return elem, cmp, combine


@op("setp")
def _setp(ins, m):
    t = _type(ins)
    elem, cmp, combine = _compare_setup(ins, t)
    ops = ins.operands
    if len(ops) != (4 if combine else 3):
        raise KernelFault(f"setp takes {4 if combine else 3} operands, got {len(ops)}")
    d, a, b = ops[:3]
    c = ops[3] if combine else None
    packed = t in PACKED
    read_t = "b32" if packed else elem
    get_a, get_b = m.reader(a, read_t), m.reader(b, read_t)
    get_c = m.reader(c, "pred") if combine else None
    first, second = (d.value, d.pred) if isinstance(d, PredPair) else (d, None)
    put_first = m.writer(first, "pred")
    put_second = m.writer(second, "pred") if second is not None else None
    if not packed and not combine and second is None:
        return lambda r: put_first(cmp(get_a(r), get_b(r)), r)

    def run(r):
        x, y = get_a(r), get_b(r)
        if packed:
            v = cmp(_unpack(x, elem), _unpack(y, elem))
            value, other = v[0::2], v[1::2]            # p: the low halves, q: the high halves
        else:
            value = cmp(x, y)
            other = ~value
        if packed and second is None:
            raise KernelFault("setp on a packed type needs two predicates p|q")
        if combine:
            cv = get_c(r)
            value = _COMBINE[combine](value, cv)
            other = _COMBINE[combine](other, cv)
        put_first(value, r)
        if second is not None:
            put_second(other, r)
    return run


@op("set")
def _set(ins, m):
    types = [x for x in ins.mods if x in TYPE_BYTES or x in PACKED]
    if len(types) != 2:
        unsupported(ins, "set form")
    dt, st = types
    mods = tuple(x for x in ins.mods if x not in (dt,))
    fake = type(ins)(ins.line, ins.text, ins.opcode, mods, ins.operands, ins.guard, ins.negate)
    elem, cmp, combine = _compare_setup(fake, st)
    ops = ins.operands
    d, a, b = ops[:3]
    c = ops[3] if combine else None
    packed = st in PACKED

    def run(r):
        if packed:
            v = cmp(_unpack(m.read(a, "b32", r), elem), _unpack(m.read(b, "b32", r), elem))
        else:
            v = cmp(m.read(a, elem, r), m.read(b, elem, r))
        if combine:
            cv = m.read(c, "pred", r)
            v = _COMBINE[combine](v, np.repeat(cv, 2) if packed else cv)
        if packed:
            half = np.where(v, np.uint16(0x3C00 if dt == "f16x2" else 0x3F80 if dt == "bf16x2"
                                         else 0xFFFF), np.uint16(0)).astype(np.uint16)
            m.write(d, _pack(half), "b32", r)
        elif dt == "f32":
            m.write(d, np.where(v, np.float32(1), np.float32(0)), "f32", r)
        else:
            m.write(d, np.where(v, np.uint32(0xFFFFFFFF), np.uint32(0)), "u32", r)
    return run


@op("selp")
def _selp(ins, m):
    t = _type(ins)
    d, a, b, c = _operands(ins, 4)

    get_a, get_b, get_c, put = m.reader(a, t), m.reader(b, t), m.reader(c, "pred"), \
        m.writer(d, t)
    return lambda r: put(np.where(get_c(r), get_a(r), get_b(r)), r)


@op("slct")
def _slct(ins, m):
    types = [x for x in ins.mods if x in TYPE_BYTES]
    if len(types) != 2:
        unsupported(ins, "slct form")
    _check_mods(ins, {"ftz"})
    dt, ct = types
    d, a, b, c = _operands(ins, 4)
    ftz = "ftz" in ins.mods

    def run(r):
        cv = m.read(c, ct, r)
        if ftz and ct == "f32":
            cv = _ftz(cv)
        with np.errstate(invalid="ignore"):
            take_a = cv >= 0                   # NaN selects b
        m.write(d, np.where(take_a, m.read(a, dt, r), m.read(b, dt, r)), dt, r)
    return run


# ---- conversions ------------------------------------------------------------------------------

_INT_ROUND = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil, None: np.trunc}


def _int_to_exact(x, st):
    """An integer array as (q, s) in f64."""
    if TYPE_BYTES[st] <= 4:
        return x.astype(np.float64), None
    if st.startswith("s"):
        hi = (x >> np.int64(32)).astype(np.float64) * 4294967296.0
    else:
        hi = (x >> np.uint64(32)).astype(np.float64) * 4294967296.0
    lo = (x.view(np.uint64) & _M32).astype(np.float64)
    return _add_exact(hi, lo)


def _nan_to_int(st, dt):
    """The integer a NaN converts to (PTX ISA, cvt, "Integer Notes"): zero, except from .f64
    or to a 64-bit type, where it is 1 << (width - 1): MININT signed, (MAXINT >> 1) + 1
    unsigned."""
    if st != "f64" and dt not in ("s64", "u64"):
        return 0
    top = 1 << (8 * TYPE_BYTES[dt] - 1)
    return -top if dt.startswith("s") else top


def _float_to_int(x, dview, mode, nan_value):
    """Rounded by the integer mode, clamped to the range (±inf to the ends)."""
    info = np.iinfo(dview)
    with np.errstate(invalid="ignore"):
        v = _INT_ROUND[mode](x.astype(np.float64))
        nan = np.isnan(v)
        high = v >= float(info.max + 1)
        low = v < float(info.min)
        inside = np.where(high | low | nan, 0, v).astype(np.int64 if info.min < 0 else np.uint64)
        out = np.where(high, dview(info.max), np.where(low, dview(info.min), inside.astype(dview)))
        return np.where(nan, dview(nan_value), out).astype(dview)


def _int_to_int(x, st, dt, sat):
    dview = np.dtype(VIEW[dt])
    if not sat:
        return x.astype(dview)
    info = np.iinfo(dview)
    if np.dtype(x.dtype).kind == "i":
        v = x.astype(np.int64)
        return np.clip(v, max(info.min, -2**63), min(info.max, 2**63 - 1)).astype(dview)
    v = x.astype(np.uint64)
    return np.minimum(v, np.uint64(min(info.max, 2**64 - 1))).astype(dview)


def _tf32(x, mode, satfinite=False, relu=False):
    """f32 -> tf32 (10 explicit mantissa bits, in an f32 bit pattern)."""
    bits = x.view(np.uint32)
    nan = np.isnan(x)
    if mode == "rna":
        out = (bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    elif mode == "rn":
        out = (bits + np.uint32(0xFFF) + ((bits >> np.uint32(13)) & np.uint32(1))) & \
            np.uint32(0xFFFFE000)
    elif mode == "rz":
        out = bits & np.uint32(0xFFFFE000)
    else:
        raise PtxError(f"cvt .{mode} to tf32 is not supported")
    inf = np.isinf(x)
    out = np.where(inf, bits, out)
    out = np.where(nan, np.uint32(0x7FFFFFFF), out).view(np.float32)
    if satfinite:
        big = np.isinf(out) & ~nan
        out = np.where(big, np.copysign(np.array(0x7F7FE000, np.uint32).view(np.float32), out),
                       out)
    if relu:
        out = _relu(out.astype(np.float32))
    return out.astype(np.float32)


# bf16's largest finite is f32's with the low 16 bits cleared (bf16 is f32's top half)
_FLOAT_MAX = {"f16": 65504.0, "bf16": float(np.array(0x7F7F0000, np.uint32).view(np.float32)),
              "f32": float(np.finfo(np.float32).max), "f64": float(np.finfo(np.float64).max)}


def convert(x, st, dt, mode, sat, ftz=False, relu=False, satfinite=False):
    """PTX cvt of array x (type st) to type dt. Float -> int rounds by the integer mode (default
    toward zero) and always saturates (.sat changes nothing), NaN as _nan_to_int; int -> int
    truncates or sign/zero-extends (.sat clamps);
    to a float type rounds once with .rn/.rz/.rm/.rp (default .rn); .rni/.rzi/.rmi/.rpi on a
    float destination round to an integral value."""
    dview = np.dtype(VIEW[dt])
    with np.errstate(all="ignore"):
        if _is_float(st) and ftz and st in ("f32", "f16"):
            x = _ftz(x)
        if dt == "tf32":
            out = _tf32(x.astype(np.float32), mode or "rna", satfinite, relu)
            return out
        if _is_float(dt):
            if _is_float(st):
                v = x.astype(np.float64)
                if mode in IROUND:
                    v = _INT_ROUND[mode](v)
                    fmode = "rn"
                else:
                    fmode = mode or "rn"
                out = _round_f64(v, dt, fmode)
            else:
                q, s = _int_to_exact(x, st)
                out = _finish(q, s, dt, mode if mode in FROUND else "rn")
            out = np.asarray(out).astype(dview)
            if satfinite:
                mx = np.asarray(_FLOAT_MAX[dt]).astype(dview)
                out = np.where(np.isinf(out), np.copysign(mx, out), out).astype(dview)
            if relu:
                out = _relu(out)
            if sat:
                out = _sat(out)
            if ftz and dt in ("f32", "f16"):
                out = _ftz(out)
            return out
        if _is_float(st):
            return _float_to_int(x, dview.type, mode, _nan_to_int(st, dt))
        return _int_to_int(x, st, dt, sat)


_CVT_MODS = ROUNDING | {"sat", "ftz", "relu", "satfinite", "rna"}


@op("cvt")
def _cvt(ins, m):
    for x in ins.mods:
        if x not in _CVT_MODS and x not in TYPE_BYTES and x not in PACKED:
            unsupported(ins, f"modifier .{x}")
    types = [x for x in ins.mods if x in TYPE_BYTES or x in PACKED]
    if len(types) != 2:
        unsupported(ins, "cvt form")
    dt, st = types
    modes = [x for x in ins.mods if x in ROUNDING or x == "rna"]
    if len(modes) > 1:
        unsupported(ins, "two rounding modes")
    mode = modes[0] if modes else None
    if mode == "rna" and dt != "tf32":
        unsupported(ins, "rounding .rna (only for tf32)")
    if _is_float(dt) and not _is_float(st) and mode in IROUND:
        unsupported(ins, f"integer rounding .{mode} to a float type from an integer")
    if not _is_float(dt) and mode in FROUND:
        unsupported(ins, f"rounding .{mode} to an integer type")
    sat, ftz = "sat" in ins.mods, "ftz" in ins.mods
    relu, satfinite = "relu" in ins.mods, "satfinite" in ins.mods
    if dt in ("f16x2", "bf16x2"):
        if st != "f32":
            unsupported(ins, f"cvt to .{dt} from .{st}")
        d, a, b = _operands(ins, 3)
        elem = PACKED[dt]

        def run_pair(r):       # a to the upper half, b to the lower
            hi = convert(m.read(a, "f32", r), "f32", elem, mode, sat, ftz, relu, satfinite)
            lo = convert(m.read(b, "f32", r), "f32", elem, mode, sat, ftz, relu, satfinite)
            out = np.empty(2 * len(hi), VIEW[elem])
            out[0::2], out[1::2] = lo, hi
            m.write(d, _pack(out), "b32", r)
        return run_pair
    if dt in PACKED or st in PACKED:
        unsupported(ins, f"cvt .{dt}.{st}")
    d, a = _operands(ins, 2)
    get, put = m.reader(a, st), m.writer(d, dt)
    return lambda r: put(convert(get(r), st, dt, mode, sat, ftz, relu, satfinite), r)


# ---- control ------------------------------------------------------------------------------------

@op("bra")
def _bra(ins, m):
    _check_mods(ins, {"uni"})
    (label,) = _operands(ins, 1)
    target = m.kernel.labels.get(getattr(label, "name", None))
    if target is None:
        raise KernelFault(f"branch to unknown label {label}")
    return lambda r: target


@op("exit")
def _exit(ins, m):
    return lambda r: "exit"


@op("trap")
def _trap(ins, m):
    def run(r):
        raise KernelFault(f"trap executed at line {ins.line}")
    return run


@op("nanosleep", "pmevent", "brkpt")
def _noop(ins, m):
    return lambda r: None


@op("bar", "barrier")
def _bar(ins, m):
    mods = set(ins.mods)
    if "warp" in mods:
        return _bar_warp(ins, m)
    if "cluster" in mods:
        unsupported(ins, "cluster barriers")
    if "arrive" in mods:
        return lambda r: None
    if "red" in mods:
        return _bar_red(ins, m)
    _check_mods(ins, {"sync", "aligned"})
    if len(ins.operands) > 1:          # a thread count: only the whole block is modelled
        count = ins.operands[1]
        if not (isinstance(count, Imm) and int(count.value) == m.block_size):
            unsupported(ins, "bar.sync with a thread count other than the block size")

    def run(r):
        m.check_barrier(r, ins)
    return run


def _bar_warp(ins, m):
    """bar.warp.sync membermask (__syncwarp): lockstep execution needs no waiting, but every
    lane the mask names must be here."""
    _check_mods(ins, {"warp", "sync"})
    (mask_op,) = _operands(ins, 1)

    def run(r):
        _warp_setup(m, r, mask_op, "bar.warp.sync")
    return run


def _bar_red(ins, m):
    kind = next((x for x in ins.mods if x in ("popc", "and", "or")), None)
    if kind is None:
        unsupported(ins, "bar.red form")
    ops = ins.operands
    if len(ops) != 3:
        unsupported(ins, "bar.red with a thread count")
    d, _, c = ops

    def run(r):
        m.check_barrier(r, ins)
        p = m.read(c, "pred", r)
        blocks = m.block_of[m.threads(r)]
        count = np.bincount(blocks, weights=p.astype(np.float64), minlength=m.blocks)
        total = np.bincount(blocks, minlength=m.blocks)
        if kind == "popc":
            m.write(d, count[blocks].astype(np.uint32), "u32", r)
        elif kind == "and":
            m.write(d, (count == total)[blocks], "pred", r)
        else:
            m.write(d, (count > 0)[blocks], "pred", r)
    return run


@op("membar", "fence")
def _fence(ins, m):
    return lambda r: None


# ---- warp-level -------------------------------------------------------------------------------

def _warp_setup(m, r, mask_operand, what):
    """(threads, warp index, lane, membermask or None) for the running threads. With a
    membermask, each running thread must be in its own mask, and every lane a mask names (that
    exists in the block) must be running this instruction too: a lane that exited, is at
    another instruction or is guarded off would leave the warp waiting on a GPU."""
    threads = m.threads(r)
    warp = m.warp_of[threads]
    lane = m.special["laneid"][threads]
    if mask_operand is None:
        return threads, warp, lane, None
    mask = m.read(mask_operand, "b32", r).astype(np.int64)
    outside = ((mask >> lane) & 1) == 0
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise LaneFault(f"{what}: lane {int(lane[i])} is not in its own membermask "
                        f"{int(mask[i]):#010x}", [i])
    if not isinstance(r, slice):       # a slice: every thread of the launch runs it
        m.check_warp_lanes(r, mask, what)
    return threads, warp, lane, mask


def _lane_bits(m, warp, lane):
    """Per warp of the launch: the mask of the lanes among threads (warp, lane) (distinct
    threads: the sum of their bits is exact in f64)."""
    bits = np.bincount(warp, weights=(np.int64(1) << lane).astype(np.float64),
                       minlength=int(m.warp_of[-1]) + 1)
    return bits.astype(np.int64)


def _warp_form(ins, modes, operands):
    """(mode, operands, membermask operand or None) of vote/shfl: one of `modes`, and
    `operands` operands plus the membermask with `.sync`."""
    mode = next((x for x in ins.mods if x in modes), None)
    if mode is None:
        unsupported(ins, f"{ins.opcode} form")
    _check_mods(ins, set(modes) | {"sync"})
    sync = "sync" in ins.mods
    ops = ins.operands
    if len(ops) != operands + sync:
        raise KernelFault(f"{ins.opcode} takes {operands + sync} operands, got {len(ops)}")
    return mode, ops[:operands], ops[operands] if sync else None


@op("vote")
def _vote(ins, m):
    mode, (d, a), mask_op = _warp_form(ins, ("all", "any", "uni", "ballot"), 2)
    nwarps = int(m.warp_of[-1]) + 1

    def run(r):
        threads, warp, lane, mask = _warp_setup(m, r, mask_op, "vote.sync")
        p = m.read(a, "pred", r)
        if mode == "ballot":
            m.write(d, _lane_bits(m, warp[p], lane[p])[warp].astype(np.uint32), "b32", r)
            return
        count = np.bincount(warp, minlength=nwarps)
        true = np.bincount(warp, weights=p.astype(np.float64), minlength=nwarps)
        result = {"all": true == count, "any": true > 0,
                  "uni": (true == 0) | (true == count)}[mode]
        m.write(d, result[warp], "pred", r)
    return run


@op("activemask")
def _activemask(ins, m):
    (d,) = _operands(ins, 1)

    def run(r):
        threads = m.threads(r)
        warp = m.warp_of[threads]
        lanes = _lane_bits(m, warp, m.special["laneid"][threads])[warp]
        m.write(d, lanes.astype(np.uint32), "b32", r)
    return run


# integer add/min/max/and/or/xor (redux.sync and the atomics) and their identities
_INT_OPS = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
            "or": np.bitwise_or, "xor": np.bitwise_xor}


def _identity(kind, dtype):
    """The x with kind(x, y) == y for every y of integer type dtype."""
    info = np.iinfo(dtype)
    return {"add": 0, "or": 0, "xor": 0, "min": info.max, "max": info.min,
            "and": -1 if info.min < 0 else info.max}[kind]


@op("redux")
def _redux(ins, m):
    t = _type(ins)
    kind = next((x for x in ins.mods if x in _INT_OPS), None)
    _check_mods(ins, set(_INT_OPS) | {"sync"})
    if kind is None or t not in ("u32", "s32", "b32"):
        unsupported(ins, "redux form")
    d, a, mask_op = _operands(ins, 3)
    nwarps = int(m.warp_of[-1]) + 1
    ufunc = _INT_OPS[kind]

    def run(r):
        threads, warp, lane, mask = _warp_setup(m, r, mask_op, "redux.sync")
        x = m.read(a, t, r)
        acc = np.full(nwarps, _identity(kind, x.dtype), x.dtype)
        ufunc.at(acc, warp, x)                       # integer add wraps, as PTX's
        m.write(d, acc[warp], t, r)
    return run


@op("match")
def _match(ins, m):
    t = _type(ins)
    kind = "any" if "any" in ins.mods else "all" if "all" in ins.mods else None
    _check_mods(ins, {"any", "all", "sync"})
    if kind is None:
        unsupported(ins, "match form")
    d, a, mask_op = _operands(ins, 3)
    value_reg, pred_reg = (d.value, d.pred) if isinstance(d, PredPair) else (d, None)

    def run(r):
        threads, warp, lane, mask = _warp_setup(m, r, mask_op, "match.sync")
        x = m.read(a, t, r).astype(np.uint64)
        # group threads by (warp, value); the result is the lane mask of the group
        key = np.stack([warp.astype(np.uint64), x], axis=1)
        _, group = np.unique(key, axis=0, return_inverse=True)
        group = group.reshape(-1)
        bits = np.zeros(group.max() + 1 if len(group) else 0, np.uint64)
        np.bitwise_or.at(bits, group, np.uint64(1) << lane.astype(np.uint64))
        same = bits[group] & mask.astype(np.uint64)
        if kind == "any":
            m.write(value_reg, same.astype(np.uint32), "b32", r)
            return
        nwarps = int(m.warp_of[-1]) + 1
        groups_per_warp = np.zeros(nwarps, np.int64)
        first = np.unique(group, return_index=True)[1]
        np.add.at(groups_per_warp, warp[first], 1)
        all_same = groups_per_warp[warp] == 1
        m.write(value_reg, np.where(all_same, mask, 0).astype(np.uint32), "b32", r)
        if pred_reg is not None:
            m.write(pred_reg, all_same, "pred", r)
    return run


@op("shfl")
def _shfl(ins, m):
    mode, (d, a, b, c), mask_op = _warp_form(ins, ("up", "down", "bfly", "idx"), 4)
    t = _type(ins)
    sync = mask_op is not None
    value_reg, pred_reg = (d.value, d.pred) if isinstance(d, PredPair) else (d, None)
    what = "shfl.sync" if sync else "shfl"

    def run(r):
        threads, warp, lane, mask = _warp_setup(m, r, mask_op, what)
        bval = m.read(b, "u32", r).astype(np.int64) & 31
        cval = m.read(c, "u32", r).astype(np.int64)
        segmask = (cval >> 8) & 31
        max_lane = (lane & segmask) | (cval & 31 & ~segmask)
        min_lane = lane & segmask
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~segmask)
            ok = j <= max_lane
        # a source lane past the end of a partial last warp does not exist: the own value
        j = np.where(ok & (m.local[threads] - lane + j < m.block_size), j, lane)
        # the source lane must take part: be in the reader's membermask (without one: active)
        allowed = mask if mask is not None else _lane_bits(m, warp, lane)[warp]
        absent = ((allowed >> j) & 1) == 0
        if absent.any():
            i = int(np.flatnonzero(absent)[0])
            where = f"in its membermask {int(mask[i]):#010x}" if mask is not None else \
                "executing it"
            raise LaneFault(f"{what}: lane {int(lane[i])} reads lane {int(j[i])}, which is not "
                            f"{where} (the value would be undefined)", [i])
        m.write(value_reg, m.read(a, t, threads - lane + j), t, r)
        if pred_reg is not None:
            m.write(pred_reg, ok, "pred", r)
    return run


# ---- atomics ---------------------------------------------------------------------------------

def _float_or_int(kind):
    """fn(type, ftz) -> fn(old, value) of atomic add/min/max: IEEE (add rounded once, .f32
    flushing subnormals with ftz) on a float type, wrapping integer arithmetic otherwise."""
    def make(t, ftz):
        if not _is_float(t):
            return _INT_OPS[kind]
        if kind == "add":
            return _float_fn("add", t, ftz=ftz)
        return _float_minmax(kind == "min", False, False)
    return make


def _exch(old, v):
    return v


def _inc(old, v):
    return np.where(old >= v, np.uint32(0), old + np.uint32(1))


def _dec(old, v):
    return np.where((old == 0) | (old > v), v, old - np.uint32(1))


# atomic op -> (the types it is defined on: the classes "int", "float" and "packed" (.f16x2,
# .bf16x2: the op on each half) or type names, fn(type or packed element type, ftz) -> the
# function of (old, value) giving the new value); cas is handled on its own
_ATOMIC = {
    "add": ({"int", "float", "packed"}, _float_or_int("add")),
    "min": ({"int", "float", "packed"}, _float_or_int("min")),
    "max": ({"int", "float", "packed"}, _float_or_int("max")),
    "and": ({"int"}, lambda t, ftz: _INT_OPS["and"]),
    "or": ({"int"}, lambda t, ftz: _INT_OPS["or"]),
    "xor": ({"int"}, lambda t, ftz: _INT_OPS["xor"]),
    "exch": ({"int", "float"}, lambda t, ftz: _exch),
    "inc": ({"u32"}, lambda t, ftz: _inc),
    "dec": ({"u32"}, lambda t, ftz: _dec),
}
_ATOMIC_OPS = set(_ATOMIC) | {"cas"}


def _atomic_fn(ins, kind, t, ftz):
    """(type the memory is accessed as, fn(old, value) -> new)."""
    allowed, make = _ATOMIC[kind]
    cls = "packed" if t in ("f16x2", "bf16x2") else "float" if _is_float(t) else "int"
    if cls not in allowed and t not in allowed:
        unsupported(ins, f"atomic .{kind} on .{t}")
    if cls != "packed":
        return t, make(t, ftz)
    elem = PACKED[t]
    core = make(elem, False)
    return "b32", lambda old, v: _pack(core(_unpack(old, elem), _unpack(v, elem)))


@op("atom", "red")
def _atom(ins, m):
    mods = _normalize_space(ins)
    for x in mods:
        if x not in _ATOMIC_OPS | SCOPES | SEMANTICS | {"global", "shared", "noftz",
                                                              "L2::cache_hint"} \
                and x not in TYPE_BYTES and x not in PACKED:
            unsupported(ins, f"modifier .{x}")
    t = _type(ins, mods)
    space = _space(ins, mods)
    kind = next((x for x in mods if x in _ATOMIC_OPS), None)
    if kind is None:
        unsupported(ins, "atomic operation")
    ops = ins.operands
    if "L2::cache_hint" in mods:
        ops = ops[:-1]
    if ins.opcode == "atom":
        want = 4 if kind == "cas" else 3
        if len(ops) != want:
            raise KernelFault(f"atom.{kind} takes {want} operands, got {len(ops)}")
        d, a, b = ops[:3]
        c = ops[3] if kind == "cas" else None
    else:
        if len(ops) != 2 or kind == "cas":
            raise KernelFault("red takes 2 operands")
        d, (a, b), c = None, ops[:2], None
    if t in ("f16", "bf16", "f16x2", "bf16x2") and kind == "add" and "noftz" not in mods:
        unsupported(ins, f"atom.add.{t} without .noftz")
    # atom.add.f32 flushes subnormals on global memory (PTX ISA), not on shared memory
    ftz = t == "f32" and space != "shared"
    mem_t, fn = (t, None) if kind == "cas" else _atomic_fn(ins, kind, t, ftz)

    def run(r):
        addresses = m.address(a, r)
        if kind == "cas":             # atom.cas d, [a], b, c: *a = (*a == b) ? c : *a
            old = m.atomic(space, addresses, m.read(c, t, r), t, r, None, m.read(b, t, r))
        else:
            old = m.atomic(space, addresses, m.read(b, mem_t, r), mem_t, r, fn)
        if d is not None:
            m.write(d, old, mem_t, r)
    return run
