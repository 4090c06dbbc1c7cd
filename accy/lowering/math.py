"""Transcendental functions for the PTX emitter's exact math tier, written as PTX.

Each core takes an f64 register holding a value that is exactly representable in f32 (every
f32, f16 and bf16 value is) and returns an f64 register with the function's value to about
2^-50 relative error (pow: 2^-44); the emitter then rounds it once to the op's dtype
(cvt.rn). The result is therefore the correctly rounded one or, when the exact value lies
within that error of a rounding midpoint, its neighbour: at most 1 ulp from the reference
(which rounds numpy's f64 value once), and in practice almost always bit-identical (pow is
1 ulp off where the exact power is a rounding midpoint of the dtype, e.g. f16 1.5^7). `rsqrt`
is the same two IEEE f64 operations the reference performs (sqrt.rn.f64, rcp.rn.f64), so it
is bit-exact. f64 operands are not covered (the argument reductions below rely on 24-bit
significands): the emitter refuses f64 transcendentals. On f32, f16 and bf16 the emitter
takes exp, log, tanh, logistic, erf, sin and cos from `accy.lowering.math32` (f32 arithmetic);
math32 falls back on sin and cos below for |x| >= 2^17.

    ULP_BOUND[name]      max |ulp| distance from the reference, f32 / f16 / bf16 results

Algorithms (every step IEEE f64, `fma.rn.f64` Horner evaluation; no tables in memory):
- exp:  k = rint(x log2 e), r = x - k ln2 (two-part ln2, fma), |r| <= ln2/2; e^r by its Taylor
  polynomial to r^13 (truncation < 2^-57); times 2^k built in the exponent bits. The argument is
  clamped to [-200, 200] first (far outside f32 range; NaN passes).
- exp2: k = rint(x), r = x - k (exact), 2^r = e^(r ln2) as above.
- expm1: as exp, then 2^k expm1(r) + (2^k - 1) with expm1(r) = r (1 + r/2 + ... + r^12/13!);
  k = 0 gives expm1(x) with relative accuracy for tiny x.
- log, log1p: x = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact); log(1 + f) = 2 atanh(s),
  s = f / (2 + f), the odd series to s^21 (|s| <= 0.1716, truncation < 2^-60). log1p uses
  f = x itself on (-0.29, 0.41) (so tiny x stay accurate) and 1 + x (exact for f32 x) outside.
- tanh: e = expm1(2|x|) (|x| clamped to 20), tanh = e / (e + 2), sign copied from x.
- logistic: 1 / (1 + exp(-x)), the reference's own formula.
- erf: |x| < 1: x P(x^2), P a degree-11 Chebyshev fit of erf(x)/x; 1 <= |x| < 4: a degree-26
  Chebyshev fit of erf on [1, 4] in t = (|x| - 2.5) / 1.5; |x| >= 4: +-1 (f32 rounds erf(4) to 1).
  Both fits were computed with mpmath (40 digits) by `mpmath.chebyfit`; max error 3e-16.
- sin, cos: |x| < 2^40: k = rint(x 2/pi), r = x - k pi/2 with pi/2 in three f64 parts (the first
  fma is exact, each later one rounds once relative to its own result); |x| >= 2^40
  (branch): the fraction of x 2/pi mod 4 from ten 24-bit chunks of 2/pi, each product exact and
  reduced mod 4 exactly, summed in double-double (a Payne-Hanek reduction without tables);
  then sin/cos of r by Taylor polynomials to r^17 / r^18, picked and signed by k mod 4.
- tan: the sin/cos reduction and polynomials above, s/c in even quadrants, -c/s in odd ones.
- atan2(y, x): t = min(|x|, |y|) / max(|x|, |y|) (0 for two zeros, 1 for two infinities);
  atan(t) by two angle halvings t / (1 + sqrt(1 + t^2)) to |t| <= tan(pi/16) and the odd
  series to t^23; pi/2 - a when |y| > |x|, pi - a when x's sign bit is set, y's sign.
- cbrt: exp(log|x| / 3) by the cores above, one Newton step on y^3 = |x| (the error squares
  to about 2^-52), x's sign; zeros, infinities and NaN are x.
- pow: exp(y ln|x|) (t = y ln|x| clamped to [-200, 200]), with C99/numpy's special
  cases: y = 0 or x = 1 give 1, x = -1 with y = +-inf gives 1, a negative finite x with a finite
  non-integer y gives NaN, and the sign is negative for a negative x (or -0) and odd integer y.
- fmod (float `rem`, exact in every tier, f32 and f64): integer long division of the
  significands, up to 40 (f32) or 11 (f64) quotient bits per step (`rem.u64`), then scaled back
  exactly; the result takes x's sign. NaN for x = +-inf, y = 0 or a NaN operand; x itself when
  |x| < |y|.
Zeros keep their sign where the function is odd (expm1, log1p, tanh, erf, sin: f(-0) = -0).
"""
import math
import struct

ULP_BOUND = {"exp": 1, "exp2": 1, "expm1": 1, "log": 1, "log1p": 1, "tanh": 1, "logistic": 1,
             "erf": 1, "sin": 1, "cos": 1, "pow": 1, "rsqrt": 0, "cbrt": 1, "tan": 1,
             "atan2": 1}


def D(x):
    """An f64 immediate (exact bits of the Python float x)."""
    return "0d%016X" % struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def _hex(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


LOG2E = _hex(0x3FF71547652B82FE)
LN2 = _hex(0x3FE62E42FEFA39EF)
LN2_LO = _hex(0x3C7ABC9E3B39803F)              # ln 2 - LN2
TWO_OVER_PI = _hex(0x3FE45F306DC9C883)
PIO2 = (_hex(0x3FF921FB54442D18), _hex(0x3C91A62633145C07), _hex(0xB91F1976B7ED8FBC))
# 2/pi = sum of these: chunk i holds bits 24i+1 .. 24i+24 after the binary point (exact doubles)
TWO_OVER_PI_CHUNKS = tuple(_hex(b) for b in (
    0x3FE45F3060000000, 0x3E5B939100000000, 0x3CB529FC00000000, 0x3B43ABE880000000,
    0x39EEA69BA0000000, 0x38681B6C40000000, 0x36E2B32780000000, 0x3550E41040000000,
    0x33EFCA2C60000000, 0x32657BD760000000))
SQRT2 = _hex(0x3FF6A09E667F3BCD)
PI = _hex(0x400921FB54442D18)

# polynomial coefficients, highest degree first
EXP_TAYLOR = tuple(1 / math.factorial(n) for n in range(13, -1, -1))        # e^r
EXPM1_TAYLOR = tuple(1 / math.factorial(n + 1) for n in range(12, -1, -1))  # expm1(r) / r
ATANH_SERIES = tuple(1 / (2 * n + 1) for n in range(10, -1, -1))           # atanh(s) / s in s^2
SIN_TAYLOR = tuple((-1) ** n / math.factorial(2 * n + 1) for n in range(8, 0, -1))   # in r^2
COS_TAYLOR = tuple((-1) ** n / math.factorial(2 * n) for n in range(9, 0, -1))
ATAN_SERIES = tuple((-1) ** n / (2 * n + 1) for n in range(11, -1, -1))    # atan(u) / u in u^2
ERF_SMALL = (-7.795898827002142e-10, 1.3720064546777686e-08, -1.6208483801871705e-07,
             1.6447424703317362e-06, -1.492473690741966e-05, 0.00012055294904839707,
             -0.0008548325975389692, 0.0052239776071164225, -0.02686617064323777,
             0.11283791670945006, -0.37612638903183543, 1.1283791670955126)
ERF_LARGE = (1.8043844679925314e-08, -3.648559835519234e-08, -1.584977560434252e-07,
             5.193404962280302e-07, 2.9286554365826184e-07, -3.379862764652032e-06,
             3.904879258710437e-06, 9.890941908915842e-06, -3.519356866189958e-05,
             1.774678156386726e-05, 0.00011777724992231321, -0.00028079809879940775,
             5.292719123132065e-05, 0.0009129504082683543, -0.0018268251954008255,
             0.0004443377605460443, 0.00454408085778101, -0.009621810936320844,
             0.006680691538799639, 0.009267584393851759, -0.03187655195049985,
             0.04645361299766838, -0.043650773834654016, 0.028181552230164046,
             -0.012252848795735214, 0.003267426345529266, 0.999593047982555)
INF, NAN = D(math.inf), "0d7FF8000000000000"
ONE = D(1.0)


class Arith:
    """Shorthands for the float instructions of type `t` on the kernel emitter `k` (see
    ptx._Kernel.op); `imm` writes a Python float as an immediate of that type."""
    t = "f64"
    imm = staticmethod(D)

    def __init__(self, k):
        self.k = k

    def op(self, opcode, *srcs, **kw):
        return self.k.op(opcode, *srcs, **kw)

    def fma(self, a, b, c):
        return self.op(f"fma.rn.{self.t}", a, b, c)

    def mul(self, a, b):
        return self.op(f"mul.rn.{self.t}", a, b)

    def add(self, a, b):
        return self.op(f"add.rn.{self.t}", a, b)

    def sub(self, a, b):
        return self.op(f"sub.rn.{self.t}", a, b)

    def setp(self, cmp, a, b):
        return self.op(f"setp.{cmp}.{self.t}", a, b)

    def sel(self, p, a, b):
        """p ? a : b"""
        return self.op(f"selp.{self.t}", a, b, p)

    def where(self, cmp, a, b, then, other):
        """(a cmp b) ? then : other (false for NaN operands except with .nan/.neu)."""
        return self.sel(self.setp(cmp, a, b), then, other)

    def horner(self, t, coeffs):
        y = self.fma(self.imm(coeffs[0]), t, self.imm(coeffs[1]))
        for c in coeffs[2:]:
            y = self.fma(y, t, self.imm(c))
        return y


class _F64(Arith):
    """f64 shorthands, and the cores' own helpers."""

    def clamp(self, x, bound):
        """x limited to [-bound, bound]; NaN stays NaN."""
        x = self.where("gt", x, D(bound), D(bound), x)
        return self.where("lt", x, D(-bound), D(-bound), x)

    def pow2(self, k):
        """2^k for an integral f64 k in [-1022, 1023], built in the exponent bits."""
        i = self.op("cvt.rni.s64.f64", k)
        bits = self.op("shl.b64", self.op("add.s64", i, 1023), 52)
        return self.op("mov.b64", bits, cls="fd")

    def keep_zero(self, x, y):
        """y, but x itself where x is +-0 (odd functions: f(-0) = -0)."""
        return self.where("eq", x, D(0.0), x, y)


# ---- exponentials -----------------------------------------------------------------------------

def _reduce_ln2(f, x):
    """(k, r): x = k ln2 + r, |r| <= ln2/2 (about), k integral."""
    k = f.op("cvt.rni.f64.f64", f.mul(x, D(LOG2E)))
    r = f.fma(k, D(-LN2), x)
    return k, f.fma(k, D(-LN2_LO), r)


def _exp(f, x):
    """e^x for x in [-200, 200] (or NaN)."""
    k, r = _reduce_ln2(f, x)
    return f.mul(f.horner(r, EXP_TAYLOR), f.pow2(k))


def _expm1(f, x):
    """e^x - 1 for x in [-200, 200] (or NaN); relative accuracy near 0, but +0 for -0."""
    k, r = _reduce_ln2(f, x)
    q = f.mul(r, f.horner(r, EXPM1_TAYLOR))
    s = f.pow2(k)
    return f.fma(s, q, f.sub(s, ONE))


def exp(k, x):
    f = _F64(k)
    return _exp(f, f.clamp(x, 200.0))


def exp2(k, x):
    f = _F64(k)
    x = f.clamp(x, 300.0)
    n = f.op("cvt.rni.f64.f64", x)
    r = f.mul(f.sub(x, n), D(LN2))
    return f.mul(f.horner(r, EXP_TAYLOR), f.pow2(n))


def expm1(k, x):
    f = _F64(k)
    return f.keep_zero(x, _expm1(f, f.clamp(x, 200.0)))


def logistic(k, x):
    f = _F64(k)
    e = _exp(f, f.clamp(f.op("neg.f64", x), 200.0))
    return f.op("rcp.rn.f64", f.add(e, ONE))


def tanh(k, x):
    f = _F64(k)
    a = f.op("abs.f64", x)
    a = f.where("gt", a, D(20.0), D(20.0), a)
    e = _expm1(f, f.add(a, a))
    return f.op("copysign.f64", x, f.op("div.rn.f64", e, f.add(e, D(2.0))))


# ---- logarithms -------------------------------------------------------------------------------

def _split(f, x):
    """(f, e) with x = 2^e (1 + f), 1 + f in [sqrt(1/2), sqrt(2)), for a positive normal x."""
    k = f.k
    bits = k.op("mov.b64", x, cls="rd")
    e = k.op("add.s64", k.op("shr.u64", bits, 52), -1023)
    m = k.op("mov.b64", k.op("or.b64", k.op("and.b64", bits, 0x000FFFFFFFFFFFFF),
                             0x3FF0000000000000), cls="fd")
    high = f.setp("ge", m, D(SQRT2))
    m = f.sel(high, f.mul(m, D(0.5)), m)
    e = f.sel(high, f.add(k.op("cvt.rn.f64.s64", e), ONE), k.op("cvt.rn.f64.s64", e))
    return f.sub(m, ONE), e


def _log1p_f(f, x, e):
    """e ln2 + log(1 + x) for |x| small enough that s = x / (2 + x) is within +-0.1716."""
    s = f.op("div.rn.f64", x, f.add(x, D(2.0)))
    p = f.horner(f.mul(s, s), ATANH_SERIES)
    return f.fma(e, D(LN2), f.fma(e, D(LN2_LO), f.mul(f.add(s, s), p)))


def _log_specials(f, x, y, zero_at):
    """NaN below `zero_at`, -inf at it, +inf at +inf, NaN for NaN x; y elsewhere."""
    y = f.where("lt", x, D(zero_at), NAN, y)
    y = f.where("eq", x, D(zero_at), D(-math.inf), y)
    y = f.where("eq", x, INF, INF, y)
    return f.where("nan", x, x, x, y)


def log(k, x):
    f = _F64(k)
    m, e = _split(f, x)
    return _log_specials(f, x, _log1p_f(f, m, e), 0.0)


def log1p(k, x):
    f = _F64(k)
    m, e = _split(f, f.add(x, ONE))
    small = k.op("and.pred", f.setp("gt", x, D(-0.29)), f.setp("lt", x, D(0.41)))
    y = _log1p_f(f, f.sel(small, x, m), f.sel(small, D(0.0), e))
    return f.keep_zero(x, _log_specials(f, x, y, -1.0))


def pow(k, x, y):  # noqa: A001 - the op's name
    f = _F64(k)
    ax = f.op("abs.f64", x)
    m, e = _split(f, ax)
    lg = _log_specials(f, ax, _log1p_f(f, m, e), 0.0)          # ln|x|
    r = _exp(f, f.clamp(f.mul(y, lg), 200.0))
    finite_y = k.op("testp.finite.f64", y)
    integral = k.op("and.pred", finite_y, f.setp("eq", f.op("cvt.rmi.f64.f64", y), y))
    half = f.mul(y, D(0.5))
    odd = k.op("and.pred", integral, f.setp("ne", f.op("cvt.rmi.f64.f64", half), half))
    negative = k.op("setp.lt.s64", k.op("mov.b64", x, cls="rd"), 0)   # sign bit, -0 too
    r = f.sel(k.op("and.pred", negative, odd), f.op("neg.f64", r), r)
    bad = k.op("and.pred", k.op("and.pred", f.setp("lt", x, D(0.0)),
                                k.op("testp.finite.f64", x)),
               k.op("and.pred", finite_y, k.op("not.pred", integral)))
    r = f.sel(bad, NAN, r)
    one = k.op("or.pred", f.setp("eq", y, D(0.0)), f.setp("eq", x, ONE))
    one = k.op("or.pred", one, k.op("and.pred", f.setp("eq", x, D(-1.0)),
                                    k.op("testp.infinite.f64", y)))
    return f.sel(one, ONE, r)


# ---- erf --------------------------------------------------------------------------------------

def erf(k, x):
    f = _F64(k)
    a = f.op("abs.f64", x)
    small = f.mul(x, f.horner(f.mul(x, x), ERF_SMALL))
    t = f.mul(f.sub(a, D(2.5)), D(2 / 3))
    large = f.op("copysign.f64", x, f.horner(t, ERF_LARGE))
    y = f.where("lt", a, ONE, small, large)
    return f.where("ge", a, D(4.0), f.op("copysign.f64", x, ONE), y)


# ---- sin and cos ------------------------------------------------------------------------------

def _two_sum(f, a, b):
    s = f.add(a, b)
    bb = f.sub(s, a)
    return s, f.add(f.sub(a, f.sub(s, bb)), f.sub(b, bb))


def _reduce_pio2(f, x):
    """(r, q): x = (4n + q) pi/2 + r with |r| about <= pi/4, q in 0..3 (a u32 register)."""
    k = f.k
    n = f.op("cvt.rni.f64.f64", f.mul(x, D(TWO_OVER_PI)))
    r = f.fma(n, D(-PIO2[0]), x)                            # exact
    r = f.fma(n, D(-PIO2[1]), r)
    r = f.fma(n, D(-PIO2[2]), r)
    q = k.op("cvt.u32.u64", k.op("cvt.rni.s64.f64", n))
    done = k.label()
    k.emit(f"@{f.setp('lt', f.op('abs.f64', x), D(2.0 ** 40))} bra {done}")
    # |x| >= 2^40 (or inf/NaN): x 2/pi mod 4 from exact products with 24-bit chunks of 2/pi
    ax = f.op("abs.f64", x)
    hi, lo = D(0.0), D(0.0)
    for c in TWO_OVER_PI_CHUNKS:
        p = f.mul(ax, D(c))
        p = f.fma(f.op("cvt.rmi.f64.f64", f.mul(p, D(0.25))), D(-4.0), p)   # p mod 4, exact
        hi, err = _two_sum(f, hi, p)
        lo = f.add(lo, err)
    n = f.op("cvt.rni.f64.f64", hi)
    frac, frac_lo = _two_sum(f, f.sub(hi, n), lo)
    big = f.fma(frac, D(PIO2[0]), f.fma(frac, D(PIO2[1]), f.mul(frac_lo, D(PIO2[0]))))
    qb = k.op("cvt.u32.u64", k.op("cvt.rni.s64.f64", n))
    negative = f.setp("lt", x, D(0.0))
    f.op("selp.f64", f.op("neg.f64", big), big, negative, dest=r)
    f.op("selp.b32", k.op("neg.s32", qb), qb, negative, dest=q)
    k.place(done)
    return r, q


def _sincos(k, x, shift):
    """sin(x) (shift 0) or cos(x) (shift 1 = sin(x + pi/2))."""
    f = _F64(k)
    r, q = _reduce_pio2(f, x)
    if shift:
        q = k.op("add.u32", q, shift)
    z = f.mul(r, r)
    s = f.fma(f.mul(r, z), f.horner(z, SIN_TAYLOR), r)
    c = f.fma(z, f.horner(z, COS_TAYLOR), ONE)
    v = f.sel(k.op("setp.ne.u32", k.op("and.b32", q, 1), 0), c, s)
    v = f.sel(k.op("setp.ne.u32", k.op("and.b32", q, 2), 0), f.op("neg.f64", v), v)
    return f.sel(k.op("testp.finite.f64", x), v, NAN)


def sin(k, x):
    return _F64(k).keep_zero(x, _sincos(k, x, 0))


def cos(k, x):
    return _sincos(k, x, 1)


def tan(k, x):
    """sin(r) / cos(r) of the reduced argument, or -cos(r) / sin(r) in odd quadrants."""
    f = _F64(k)
    r, q = _reduce_pio2(f, x)
    z = f.mul(r, r)
    s = f.fma(f.mul(r, z), f.horner(z, SIN_TAYLOR), r)
    c = f.fma(z, f.horner(z, COS_TAYLOR), ONE)
    odd = k.op("setp.ne.u32", k.op("and.b32", q, 1), 0)
    t = f.op("div.rn.f64", f.sel(odd, c, s), f.sel(odd, s, c))
    t = f.sel(odd, f.op("neg.f64", t), t)
    return f.keep_zero(x, f.sel(k.op("testp.finite.f64", x), t, NAN))


# ---- atan2 ------------------------------------------------------------------------------------

def _atan_unit(f, t):
    """atan(t) for t in [0, 1]: two angle halvings, u = t / (1 + sqrt(1 + t^2)), bring t
    within tan(pi/16) ~ 0.199; then 4 u times the odd series to u^23 (truncation < 2^-55)."""
    for _ in range(2):
        t = f.op("div.rn.f64", t, f.add(ONE, f.op("sqrt.rn.f64", f.fma(t, t, ONE))))
    return f.mul(D(4.0), f.mul(t, f.horner(f.mul(t, t), ATAN_SERIES)))


def atan2(k, y, x):
    """The angle of (x, y) in [-pi, pi]: atan(min / max) of the magnitudes, reflected into
    the octant, the half plane of x (its sign bit: -0 counts as negative) and the sign of y;
    the special cases of C's atan2 (zeros, infinities) follow from the same steps."""
    f = _F64(k)
    ax, ay = f.op("abs.f64", x), f.op("abs.f64", y)
    steep = f.setp("gt", ay, ax)
    hi, lo = f.sel(steep, ay, ax), f.sel(steep, ax, ay)
    t = f.op("div.rn.f64", lo, hi)
    t = f.where("eq", hi, D(0.0), D(0.0), t)
    both_inf = k.op("and.pred", k.op("testp.infinite.f64", ax), k.op("testp.infinite.f64", ay))
    t = f.sel(both_inf, ONE, t)
    a = _atan_unit(f, t)
    a = f.sel(steep, f.sub(D(PI / 2), a), a)
    negative_x = k.op("setp.lt.s64", k.op("mov.b64", x, cls="rd"), 0)
    a = f.sel(negative_x, f.sub(D(PI), a), a)
    return f.where("nan", x, y, NAN, f.op("copysign.f64", y, a))


# ---- cbrt -------------------------------------------------------------------------------------

def cbrt(k, x):
    """exp(log|x| / 3), one Newton step on y^3 = |x| in f64, x's sign; zeros, infinities and
    NaN are x itself."""
    f = _F64(k)
    a = f.op("abs.f64", x)
    m, e = _split(f, a)
    y = _exp(f, f.mul(_log1p_f(f, m, e), D(1 / 3)))
    y2 = f.mul(y, y)
    y = f.sub(y, f.op("div.rn.f64", f.fma(y2, y, f.op("neg.f64", a)), f.mul(y2, D(3.0))))
    y = f.op("copysign.f64", x, y)
    special = k.op("or.pred", f.setp("eq", a, D(0.0)), k.op("testp.infinite.f64", a))
    return f.sel(k.op("or.pred", special, f.setp("nan", x, x)), x, y)


def rsqrt(k, x):
    """1 / sqrt(x) exactly as the reference computes it in f64."""
    return k.op("rcp.rn.f64", k.op("sqrt.rn.f64", x))


# ---- fmod -------------------------------------------------------------------------------------

def fmod(k, x, y, t):
    """C's fmod(x, y) on registers of float type t (f32 or f64), exact."""
    w, mbits, chunk = (32, 23, 40) if t == "f32" else (64, 52, 11)
    cls = "r" if w == 32 else "rd"
    ax, ay = k.op(f"abs.{t}", x), k.op(f"abs.{t}", y)

    def parts(v):
        """(significand as u64 with the implicit bit, biased exponent >= 1 as u32)."""
        bits = k.op(f"mov.b{w}", v, cls=cls)
        e = k.op(f"shr.u{w}", bits, mbits)
        frac = k.op(f"and.b{w}", bits, (1 << mbits) - 1)
        normal = k.op(f"setp.ne.u{w}", e, 0)
        m = k.op(f"selp.b{w}", k.op(f"or.b{w}", frac, 1 << mbits), frac, normal)
        e = k.op(f"max.u{w}", e, 1)
        return k.op(f"cvt.u64.u{w}", m), k.op(f"cvt.u32.u{w}", e)
    mx, ex = parts(ax)
    my, ey = parts(ay)
    zero = "0f00000000" if t == "f32" else D(0.0)
    run = k.op("and.pred", k.op(f"setp.ge.{t}", ax, ay),
               k.op("and.pred", k.op(f"testp.finite.{t}", ax), k.op(f"setp.gt.{t}", ay, zero)))
    my = k.op("selp.b64", my, 1, run)
    d = k.op("selp.b32", k.op("sub.s32", ex, ey), 0, run)
    r = k.op("rem.u64", mx, my)
    top, end = k.label(), k.label()
    k.place(top)
    k.emit(f"@{k.op('setp.le.s32', d, 0)} bra {end}")
    s = k.op("min.s32", d, chunk)
    k.op("shl.b64", r, s, dest=r)
    k.op("rem.u64", r, my, dest=r)
    k.op("sub.s32", d, s, dest=d)
    k.emit(f"bra.uni {top}")
    k.place(end)
    # r * 2^(ey - bias - mbits): exact (the result is representable)
    normal_scale = k.op(f"shl.b{w}", k.op(f"cvt.u{w}.u32", k.op("sub.s32", ey, mbits)), mbits)
    sub_scale = k.op(f"shl.b{w}", 1, k.op("sub.s32", ey, 1))
    scale = k.op(f"selp.b{w}", normal_scale, sub_scale, k.op("setp.gt.s32", ey, mbits))
    value = k.op(f"mul.rn.{t}", k.op(f"cvt.rn.{t}.u64", r),
                 k.op(f"mov.b{w}", scale, cls="f" if w == 32 else "fd"))
    value = k.op(f"copysign.{t}", x, value)
    nan = "0f7FC00000" if w == 32 else NAN
    invalid = k.op("or.pred", k.op(f"setp.nan.{t}", x, y),
                   k.op("or.pred", k.op(f"testp.infinite.{t}", x), k.op(f"setp.eq.{t}", y, zero)))
    other = k.op(f"selp.{t}", nan, x, invalid)
    return k.op(f"selp.{t}", value, other, run)



# op name -> core(k, *f64 registers) -> f64 register (the exact tier's transcendentals)
CORES = {"exp": exp, "exp2": exp2, "expm1": expm1, "log": log, "log1p": log1p, "tanh": tanh,
         "logistic": logistic, "erf": erf, "sin": sin, "cos": cos, "pow": pow, "rsqrt": rsqrt,
         "cbrt": cbrt, "tan": tan, "atan2": atan2}
