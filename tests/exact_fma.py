"""An exact fma reference for the emulator's tests: a * b + c in rational arithmetic
(fractions.Fraction), rounded once to nearest-even in an IEEE binary format, with gradual
underflow (subnormals), overflow to infinity and IEEE's signs of zero; and input sets built
around fma's hard cases."""
import math
from fractions import Fraction

import numpy as np

# elem -> (significand bits including the leading one, smallest normal exponent, largest exponent)
FORMATS = {"f16": (11, -14, 15), "bf16": (8, -126, 127), "f32": (24, -126, 127),
           "f64": (53, -1022, 1023)}


def round_nearest_even(x, elem):
    """The Fraction x != 0 rounded to nearest-even in format elem, as a float (+-inf past the
    largest finite value; a result below half the smallest subnormal is a zero of x's sign)."""
    precision, emin, emax = FORMATS[elem]
    negative, x = x < 0, abs(x)
    num, den = x.numerator, x.denominator
    e = num.bit_length() - den.bit_length()         # 2^e <= x < 2^(e + 1) after the fix-up
    if (num << max(-e, 0)) < (den << max(e, 0)):
        e -= 1
    quantum = max(e, emin) - precision + 1          # the exponent of one ulp at x
    scaled_num, scaled_den = num << max(-quantum, 0), den << max(quantum, 0)
    units, rest = divmod(scaled_num, scaled_den)
    if 2 * rest > scaled_den or (2 * rest == scaled_den and units % 2 == 1):
        units += 1
    if units and units.bit_length() - 1 + quantum > emax:      # rounded up to 2^(emax + 1)
        return -math.inf if negative else math.inf
    value = math.ldexp(float(units), quantum)       # exact: units has <= precision + 1 bits
    return -value if negative else value


def fma_nearest_even(a, b, c, elem):
    """IEEE fma(a, b, c) rounded to nearest-even in elem, for floats a, b, c of that format."""
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return math.nan                          # inf * 0
        product = math.copysign(math.inf, a) * math.copysign(1.0, b)
        return math.nan if math.isinf(c) and c != product else product
    if math.isinf(c):
        return c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact != 0:
        return round_nearest_even(exact, elem)
    product_negative = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
    if (a == 0 or b == 0) and c == 0 and product_negative and math.copysign(1.0, c) < 0:
        return -0.0                                  # -0 + -0; every other exact zero is +0
    return 0.0


def _random_bits(rng, view, shape):
    uint = np.dtype(f"u{view.itemsize}")
    return rng.integers(0, 2 ** (8 * view.itemsize), shape, dtype=np.uint64).astype(uint).view(view)


def _signs(rng, n):
    return np.where(rng.random(n) < 0.5, -1.0, 1.0)


def hard_cases(elem, view, rng, n):
    """(a, b, c) arrays of dtype view, groups of n lanes each: random bit patterns; c = -(a * b)
    rounded (cancellation); c a power of two 1 bit to 3 precisions below the product (ties and
    the sticky bit); c = +-smallest subnormal; products exactly halfway between two values
    (c = 0 or +-tiny: the tie and its breaking); subnormal operands and products; products
    near overflow with c = +-largest value; zero factors among ordinary lanes (IEEE's zero
    signs). Lanes a group's design does not reach (overflowed scalings) are still valid."""
    precision, emin, emax = FORMATS[elem]
    tiny = math.ldexp(1.0, emin - precision + 1)
    groups = [_random_bits(rng, view, (3, n))]
    with np.errstate(all="ignore"):
        a, b = (rng.standard_normal(n) * np.exp2(rng.integers(-emax // 3, emax // 3, n))
                for _ in range(2))
        a, b = a.astype(view).astype(np.float64), b.astype(view).astype(np.float64)
        product = a * b                     # exact for the narrow types, rounded for f64
        groups.append((a, b, -product))
        exponent = np.floor(np.log2(np.abs(product)))
        below = rng.integers(1, 3 * precision + 3, n)
        groups.append((a, b, _signs(rng, n) * np.exp2(exponent - below)))
        groups.append((a, b, _signs(rng, n) * tiny))
        # odd significands whose product has precision + 1 bits: exactly halfway
        half = (precision + 1) // 2
        ma = rng.integers(2 ** (half - 1), 2 ** half, n) | 1
        mb = rng.integers(2 ** (precision - half), 2 ** (precision - half + 1), n) | 1
        shift = rng.integers(-emax // 2, emax // 2 - precision, (2, n))
        ta = _signs(rng, n) * np.ldexp(ma.astype(np.float64), shift[0])
        tb = np.ldexp(mb.astype(np.float64), shift[1])
        tc = np.where(rng.random(n) < 0.5, 0.0, _signs(rng, n) * tiny)
        groups.append((ta, tb, tc))
        # subnormals: operands and products below the smallest normal
        sa = _signs(rng, n) * rng.random(n) * math.ldexp(1.0, emin + 2)
        sb = _signs(rng, n) * np.exp2(rng.uniform(-precision - 2, 2, n))
        sc = _signs(rng, n) * rng.random(n) * math.ldexp(1.0, emin + 1)
        groups.append((sa, sb, sc))
        # near overflow: products around the largest value, c = +-largest or +-half of it
        largest = math.ldexp(2.0 - math.ldexp(1.0, 1 - precision), emax)
        na = _signs(rng, n) * np.exp2(rng.uniform(emax / 2 - 1, emax / 2 + 0.5, n))
        nb = np.exp2(rng.uniform(emax / 2 - 1, emax / 2 + 0.5, n))
        nc = _signs(rng, n) * largest * np.where(rng.random(n) < 0.5, 1.0, 0.5)
        groups.append((na, nb, nc))
        # zero factors of either sign among ordinary lanes, c sometimes a zero of either sign
        za, zb, zc = rng.standard_normal((3, n))
        zero = rng.random((2, n)) < 0.3
        za[zero[0]] *= 0.0
        zb[zero[1]] *= 0.0
        zc = np.where(rng.random(n) < 0.3, zc * 0.0, zc)
        groups.append((za, zb, zc))
        return np.concatenate([np.asarray(g, np.float64) for g in groups], axis=1).astype(view)


def reference_fma(cases, elem):
    """fma_nearest_even over the lanes of (a, b, c) arrays, as float64 values."""
    wide = cases.astype(np.float64)
    return np.array([fma_nearest_even(float(a), float(b), float(c), elem)
                     for a, b, c in wide.T], dtype=np.float64)
