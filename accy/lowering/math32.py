"""The exact math tier's exp, log, tanh, logistic, erf, sin and cos in f32 arithmetic, as PTX.

Each core takes an f32 register and returns an f32 register within 1 ulp of the correctly
rounded value (`math.ULP_BOUND`), using only instructions IEEE 754 defines to the bit (add, mul,
fma, div .rn, conversions, integer bit operations): the emulator, C and the GPU all compute
the same bits. The bound was checked on every f32 input (`python tests/math32_model.py`, which
compiles the very instructions these cores write to C); f16 and bf16 operands
go through the same cores with their last sum rounded to odd, so that the rounding to the
half type is a single one (every bit pattern is checked in the tests).
The polynomials come from `tools/fit_math32.py`.

Each result is one last rounding of a value carried with an error far below half an ulp: a
constant term added last (1 + r t), a sum kept as two floats (Fast2Sum, TwoSum and the exact
remainders of fma) where a rounded part would be of the result's own size.
- exp: k = rint(x log2 e), r = x - k ln2_hi (exact by fma), e^r = (1 + r) + r^2 T2(r) with
  1 + r as a pair (Fast2Sum), times e^(-k ln2_lo) = 1 - k ln2_lo in the small part; the
  pair summed and scaled by 2^k as two powers of two (a subnormal result rounds twice).
  x is clamped to [-104, 89], past which the result is 0 or inf.
- log: x = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact); e ln2_hi + f as a float pair
  (ln2_hi has 16 bits, so e ln2_hi is exact, and Fast2Sum gives the rounding of the sum);
  then e ln2_lo - f^2/2 + f^3 P(f) is added to the pair's small part. Subnormals are scaled
  by 2^23 first.
- tanh: |x| < 0.55: x + x^3 P(x^2); else 1 - 2 / (e^2|x| + 1) with e^2|x| kept as a pair from
  the exp core, the quotient corrected by its exact remainder, and 1 - q by Fast2Sum; |x| is
  clamped to 10 (tanh rounds to 1 past 9.01); x's sign.
- logistic: E = e^-|x| (|x| clamped to 104) as a pair from the exp core, scaled like exp;
  (x >= 0 ? 1 : E) / (1 + E) with 1 + E as a pair (Fast2Sum) and the quotient corrected by
  its remainder (n - q d, from one reciprocal).
- erf: |x| < 1: x + x V(x^2); |x| < 4: 1 + p(|x| - 2.5) (the argument is exact); else 1; x's
  sign.
- sin, cos: |x| < 2^17: n = rint(x 2/pi), x - n pi/2 with pi/2 in three f32 parts, as a pair
  (the first fma is exact, n pi/2's next part by TwoSum); sin(r) = r_hi + (r_lo + r^3 S),
  cos(r) = (1 - r^2/2 by Fast2Sum) + r^4 C, less r_hi r_lo; picked and signed by n mod 4.
  Larger |x|, infinities and NaN branch to the f64 core (math.py: a three-part f64 pi/2
  below 2^40, Payne-Hanek above) and round its result once (f16 operands never need it:
  huge=False leaves the branch out).
"""
import math
import struct
from fractions import Fraction

from accy.lowering import math as _math64


def F(x):
    """An f32 immediate: x rounded to the nearest f32."""
    return "0f%08X" % struct.unpack("<I", struct.pack("<f", x))[0]


def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _f32_parts(value, count):
    """`count` f32 values whose sum is the Fraction `value` to about 24 * count bits."""
    parts = []
    for _ in range(count):
        part = _f32(float(value))
        parts.append(part)
        value -= Fraction(part)
    return tuple(parts)


LOG2E = 1.442695
LN2 = sum(Fraction(h) for h in (_math64.LN2, _math64.LN2_LO))
LN2_HI, LN2_LO = _f32_parts(LN2, 2)
LN2_HI16 = struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack(
    "<f", LN2_HI))[0] & 0xFFFFFF00))[0]             # 16 significant bits: e ln2_hi16 is exact
LN2_LO16 = _f32(float(LN2 - Fraction(LN2_HI16)))
TWO_OVER_PI = _f32(2 / math.pi)
PIO2_PARTS = _f32_parts(sum(Fraction(p) for p in _math64.PIO2), 3)
SQRT_HALF_BITS = 0x3F3504F3
SINCOS_F32_BELOW = 2.0 ** 17        # past it (and inf, NaN) the f64 core reduces the argument
ONE, ZERO = F(1.0), F(0.0)

# polynomial coefficients, highest degree first (tools/fit_math32.py)
EXP = (0.00019739568, 0.0013935098, 0.008333571, 0.041666463, 0.16666666, 0.5)
LOG = (0.06750956, -0.11671449, 0.11883568, -0.12406032, 0.14220327, -0.16667996, 0.20002073,
       -0.2500001, 0.33333313)
TANH = (0.0021446012, -0.008193792, 0.021711286, -0.053949144, 0.13333227, -0.3333333)
ERF_SMALL = (7.806903e-05, -0.0007997853, 0.005187162, -0.026853347, 0.11283579, -0.37612626,
             0.12837917)
ERF_LARGE = (-3.4916906e-07, 8.875533e-07, 3.446352e-06, -1.5700056e-05, 7.805709e-06,
             8.10446e-05, -0.0002534988, 0.00025881027, 0.00054459315, -0.0027976134,
             0.006116564, -0.008622584, 0.008350216, -0.0054456913, 0.0021782783,
             -0.0004069523)
SIN = (2.8205814e-06, -0.0001985208, 0.008333378, -0.16666667)
COS = (-2.8704312e-07, 2.482041e-05, -0.0013888977, 0.041666668)


class _F32(_math64.Arith):
    """f32 shorthands; `odd`: a core's last sum rounds to odd (for a result rounded again, to
    f16 or bf16)."""
    t = "f32"
    imm = staticmethod(F)

    def __init__(self, k, odd):
        super().__init__(k)
        self.odd = odd

    def neg(self, a):
        return self.op("neg.f32", a)

    def total(self, a, b):
        """a + b: the core's last rounding (any magnitudes).
        Rounded to odd, it is the truncated sum with its last bit set when inexact (TwoSum
        finds that out), so that one more rounding to 11 or 8 bits is a single rounding of
        a + b itself."""
        s = self.add(a, b)
        if not self.odd:
            return s
        back = self.sub(s, a)
        err = self.add(self.sub(a, self.sub(s, back)), self.sub(b, back))
        low = self.op("mov.b32", self.op("add.rz.f32", a, b), cls="r")
        odd = self.op("selp.b32", self.op("or.b32", low, 1), low, self.op("setp.ne.f32", err,
                                                                         ZERO))
        return self.op("mov.b32", odd, cls="f")

    def total_fma(self, a, b, c):
        """a b + c as the core's last rounding (rounded to odd: c + (a b rounded))."""
        return self.total(c, self.mul(a, b)) if self.odd else self.fma(a, b, c)

    def power_of_two(self, exponent):
        """2^exponent for an s32 register in [-126, 127]."""
        return self.op("mov.b32", self.op("shl.b32", self.op("add.s32", exponent, 127), 23),
                       cls="f")


def _exp_parts(f, x):
    """(hi, lo, k): e^x = (hi + lo) 2^k, k an s32 register, with r = x - k ln2_hi (exact):
    hi = 1 + r rounded, lo its rounding error (Fast2Sum: 1 >= |r|) plus r^2 T2(r) and the
    factor e^(-k ln2_lo) = 1 - k ln2_lo (its square is far below 2^-24). lo is at most 0.1
    and carries the roundings of its own terms: hi + lo is within 0.16 ulp of e^(x - k ln2)
    (measured on [1/8, 0.34], [2, 2.25], [32, 33]; mean 0.01 to 0.03 ulp)."""
    n = f.op("cvt.rni.f32.f32", f.mul(x, F(LOG2E)))
    r = f.fma(n, F(-LN2_HI), x)                 # exact
    hi = f.add(ONE, r)
    lo = f.fma(f.mul(r, r), f.horner(r, EXP), f.sub(r, f.sub(hi, ONE)))
    lo = f.fma(f.mul(n, F(-LN2_LO)), hi, lo)
    return hi, lo, f.op("cvt.rni.s32.f32", n)


def _exp_pair(f, x):
    """_exp_parts with lo below half an ulp of hi (Fast2Sum), for a pair used as one."""
    hi, lo, e = _exp_parts(f, x)
    s = f.add(hi, lo)
    return s, f.sub(lo, f.sub(s, hi)), e


def _scale(f, x, e):
    """x 2^e for an s32 e in [-150, 128], as two normal powers of two: exact but for the
    last product's rounding into the subnormals (so a subnormal exp rounds twice: within
    the bound, checked on every input)."""
    half = f.k.op("shr.s32", e, 1)
    rest = f.k.op("sub.s32", e, half)          # both in [-75, 64]
    return f.mul(f.mul(x, f.power_of_two(half)), f.power_of_two(rest))


def exp(k, x, odd=False, huge=True):
    f = _F32(k, odd)
    x = f.where("gt", x, F(89.0), F(89.0), x)
    x = f.where("lt", x, F(-104.0), F(-104.0), x)
    hi, lo, e = _exp_parts(f, x)
    return _scale(f, f.total(hi, lo), e)


def logistic(k, x, odd=False, huge=True):
    """(x >= 0 ? 1 : E) / (1 + E), E = e^-|x| as a pair: the quotient corrected by its
    remainder, the denominator's rounding by Fast2Sum (1 >= E)."""
    f = _F32(k, odd)
    a = f.op("abs.f32", x)
    a = f.where("gt", a, F(104.0), F(104.0), a)
    hi, lo, e = _exp_pair(f, f.neg(a))
    e_hi, e_lo = _scale(f, hi, e), _scale(f, lo, e)
    d = f.add(e_hi, ONE)
    d_lo = f.add(f.sub(e_hi, f.sub(d, ONE)), e_lo)
    positive = f.op("setp.ge.f32", x, ZERO)
    n = f.sel(positive, ONE, e_hi)
    n_lo = f.sel(positive, ZERO, e_lo)
    reciprocal = f.op("div.rn.f32", ONE, d)
    q = f.mul(n, reciprocal)
    q_lo = f.mul(f.fma(f.neg(q), d_lo, f.add(f.fma(f.neg(q), d, n), n_lo)), reciprocal)
    return f.total(q, q_lo)


def log(k, x, odd=False, huge=True):
    f = _F32(k, odd)
    tiny = f.op("setp.lt.f32", x, F(2.0 ** -126))
    xs = f.op("selp.f32", f.mul(x, F(2.0 ** 23)), x, tiny)
    d = k.op("sub.s32", k.op("mov.b32", xs, cls="r"), SQRT_HALF_BITS)
    e = k.op("add.s32", k.op("shr.s32", d, 23), k.op("selp.s32", -23, 0, tiny))
    m = k.op("mov.b32", k.op("add.s32", k.op("and.b32", d, 0x7FFFFF), SQRT_HALF_BITS), cls="f")
    fm = f.sub(m, ONE)                          # exact
    ef = f.op("cvt.rn.f32.s32", e)
    hi = f.fma(ef, F(LN2_HI16), fm)
    err = f.add(f.fma(ef, F(LN2_HI16), f.neg(hi)), fm)     # Fast2Sum: |e ln2_hi16| >= |f|
    u = f.fma(fm, f.horner(fm, LOG), F(-0.5))
    g = f.fma(f.mul(fm, fm), u, f.fma(ef, F(LN2_LO16), err))
    y = f.total(hi, g)
    y = f.where("lt", x, ZERO, F(math.nan), y)
    y = f.where("eq", x, ZERO, F(-math.inf), y)
    y = f.where("eq", x, F(math.inf), F(math.inf), y)
    return f.where("nan", x, x, x, y)


def tanh(k, x, odd=False, huge=True):
    f = _F32(k, odd)
    z = f.mul(x, x)
    small = f.total_fma(f.mul(x, z), f.horner(z, TANH), x)
    a = f.op("abs.f32", x)
    a2 = f.mul(f.where("gt", a, F(10.0), F(10.0), a), F(2.0))
    hi, lo, e = _exp_pair(f, a2)
    scale = f.power_of_two(e)
    e_hi, e_lo = f.mul(hi, scale), f.mul(lo, scale)
    d_hi = f.add(e_hi, ONE)                     # e^2|x| + 1 as a pair (Fast2Sum, e_hi >= 1)
    d_lo = f.add(f.add(f.sub(e_hi, d_hi), ONE), e_lo)
    q = f.op("div.rn.f32", F(2.0), d_hi)
    remainder = f.fma(f.neg(q), d_hi, F(2.0))    # exact
    q_lo = f.mul(f.fma(f.neg(q), d_lo, remainder), f.mul(q, F(0.5)))
    s = f.sub(ONE, q)
    s_err = f.sub(f.sub(ONE, s), q)             # Fast2Sum: 1 >= q
    large = f.total(s, f.sub(s_err, q_lo))
    return f.op("copysign.f32", x, f.where("lt", a, F(0.55), small, large))


def erf(k, x, odd=False, huge=True):
    f = _F32(k, odd)
    a = f.op("abs.f32", x)
    small = f.total_fma(x, f.horner(f.mul(x, x), ERF_SMALL), x)
    large = f.op("copysign.f32", x, f.total(ONE, f.horner(f.sub(a, F(2.5)), ERF_LARGE)))
    y = f.where("lt", a, ONE, small, large)
    return f.where("ge", a, F(4.0), f.op("copysign.f32", x, ONE), y)


def _sincos(k, x, shift, odd, huge):
    """sin(x) (shift 0) or cos(x) (shift 1 = sin(x + pi/2))."""
    f = _F32(k, odd)
    p1, p2, p3 = PIO2_PARTS
    n = f.op("cvt.rni.f32.f32", f.mul(x, F(TWO_OVER_PI)))
    r1 = f.fma(f.neg(n), F(p1), x)             # exact
    c_hi = f.mul(n, F(p2))
    c_lo = f.fma(n, F(p3), f.fma(n, F(p2), f.neg(c_hi)))
    r_hi = f.sub(r1, c_hi)                      # TwoSum(r1, -c_hi), less c_lo
    back = f.sub(r_hi, r1)
    r_lo = f.sub(f.sub(f.sub(r1, f.sub(r_hi, back)), f.add(c_hi, back)), c_lo)
    z = f.mul(r_hi, r_hi)
    s = f.total(r_hi, f.fma(f.mul(r_hi, z), f.horner(z, SIN), r_lo))
    half_z = f.mul(z, F(0.5))
    w = f.sub(ONE, half_z)
    tail = f.fma(f.fma(r_hi, r_hi, f.neg(z)), F(-0.5), f.sub(f.sub(ONE, w), half_z))
    tail = f.fma(f.neg(r_hi), r_lo, tail)
    c = f.total(w, f.fma(f.mul(z, z), f.horner(z, COS), tail))
    q = k.op("add.u32", k.op("cvt.rni.s32.f32", n), shift)
    v = f.op("selp.f32", c, s, k.op("setp.ne.u32", k.op("and.b32", q, 1), 0))
    v = f.op("selp.f32", f.neg(v), v, k.op("setp.ne.u32", k.op("and.b32", q, 2), 0))
    if not shift:
        v = f.where("eq", x, ZERO, x, v)        # sin(-0) = -0
    if not huge:
        return v
    done = k.label()
    k.emit(f"@{f.op('setp.lt.f32', f.op('abs.f32', x), F(SINCOS_F32_BELOW))} bra {done}")
    wide = (_math64.cos if shift else _math64.sin)(k, k.op("cvt.f64.f32", x))
    if odd:
        k.op("mov.f32", k.round_to_odd_f32(wide), dest=v)
    else:
        k.op("cvt.rn.f32.f64", wide, dest=v)
    k.place(done)
    return v


def sin(k, x, odd=False, huge=True):
    return _sincos(k, x, 0, odd, huge)


def cos(k, x, odd=False, huge=True):
    return _sincos(k, x, 1, odd, huge)


# op name -> core(k, f32 register, odd=False, huge=True) -> f32 register. odd: round the last
# sum to odd (the result is rounded again, to f16 or bf16); huge: |x| may reach 2^17 (not for
# f16 operands; only sin and cos look at it)
CORES = {"exp": exp, "log": log, "tanh": tanh, "logistic": logistic, "erf": erf, "sin": sin,
         "cos": cos}
