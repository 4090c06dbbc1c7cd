"""Fit the polynomials of accy/lowering/math32.py (the exact tier's f32 transcendentals).

Each polynomial is a near-minimax fit of its target function in f64 (Lawson's iteratively
reweighted least squares on Chebyshev points, error weighted as the core uses the polynomial),
with the coefficients rounded to f32 one at a time from the lowest degree up, refitting the
higher ones after each rounding so that they absorb the rounding of the ones below.

    python tools/fit_math32.py          # prints each fit's coefficients and its weighted error

The printed tuples are what math32.py holds (highest degree first). Whether the cores built
from them meet their ulp bound is not judged here: tests/test_ptx_emitter.py and
`python tests/math32_model.py` (every f32 input) check the cores themselves.
"""
import math

import numpy as np

POINTS = 4000


def _chebyshev_points(lo, hi, n=POINTS):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def fit(target, weight, lo, hi, degree, fixed=()):
    """Coefficients (lowest degree first) of p(t) ~ target(t) on [lo, hi] minimizing
    max |weight(t) (p(t) - target(t))|; `fixed` pins the lowest ones (exact values)."""
    t = _chebyshev_points(lo, hi)
    g, w = target(t), weight(t)
    coeffs = list(fixed)
    while len(coeffs) <= degree:
        known = sum(c * t ** i for i, c in enumerate(coeffs))
        free = np.stack([t ** i for i in range(len(coeffs), degree + 1)], axis=1)
        lawson = np.ones_like(t)
        for _ in range(60):
            s = np.sqrt(lawson) * w
            sol, *_ = np.linalg.lstsq(free * s[:, None], (g - known) * s, rcond=None)
            err = np.abs(w * (free @ sol + known - g))
            lawson = lawson * err
            lawson /= lawson.sum()
        coeffs.append(float(np.float32(sol[0])))
    return coeffs


def weighted_error(coeffs, target, weight, lo, hi):
    t = np.linspace(lo, hi, 200_001)
    p = sum(c * t ** i for i, c in enumerate(coeffs))
    return float(np.max(np.abs(weight(t) * (p - target(t)))))


def _safe(f, at_zero):
    def g(t):
        with np.errstate(divide="ignore", invalid="ignore"):
            v = f(t)
        return np.where(t == 0, at_zero, v)
    return g


erf = np.vectorize(math.erf)

FITS = {
    # exp: e^r = 1 + r + r^2 T2(r), |r| <= ln2/2 (+ the rounding of k), weighted as the
    # error of r T(r) = r (1 + r T2(r)) relative to e^r; math32 holds T2 (the fit less its
    # pinned constant 1)
    "EXP": (_safe(lambda r: np.expm1(r) / r, 1.0), lambda r: np.abs(r) / np.exp(r),
            -0.3466 * 1.001, 0.3466 * 1.001, 6, (1.0,)),
    # log: log1p(f) = f - f^2/2 + f^3 P(f), f in [sqrt(1/2) - 1, sqrt(2) - 1]
    "LOG": (_safe(lambda f: (np.log1p(f) - f + f * f / 2) / f ** 3, 1 / 3),
            _safe(lambda f: np.abs(f ** 3 / np.log1p(f)), 0.0),
            math.sqrt(0.5) - 1, math.sqrt(2) - 1, 8, ()),
    # tanh, |x| < 0.55: tanh(x) = x + x^3 P(x^2), fitted in z = x^2
    "TANH": (_safe(lambda z: (np.tanh(np.sqrt(z)) - np.sqrt(z)) / z ** 1.5, -1 / 3),
             _safe(lambda z: z ** 1.5 / np.tanh(np.sqrt(z)), 0.0), 0.0, 0.55 ** 2, 5, ()),
    # erf, |x| < 1: erf(x) = x + x V(x^2), fitted in z = x^2
    "ERF_SMALL": (_safe(lambda z: erf(np.sqrt(z)) / np.sqrt(z) - 1, 2 / math.sqrt(math.pi) - 1),
                  _safe(lambda z: np.sqrt(z) / erf(np.sqrt(z)), math.sqrt(math.pi) / 2),
                  0.0, 1.0, 6, ()),
    # erf, 1 <= |x| < 4: erf(x) = 1 + p(t), t = |x| - 2.5 (exact; absolute error)
    "ERF_LARGE": (lambda t: erf(2.5 + t) - 1, lambda t: np.ones_like(t), -1.5, 1.5, 15, ()),
    # sin(r) = r + r^3 S(r^2), |r| <= 0.8
    "SIN": (_safe(lambda z: (np.sin(np.sqrt(z)) - np.sqrt(z)) / z ** 1.5, -1 / 6),
            _safe(lambda z: z ** 1.5 / np.sin(np.sqrt(z)), 0.0), 0.0, 0.64, 3, ()),
    # cos(r) = 1 - r^2/2 + r^4 C(r^2), |r| <= 0.8
    "COS": (_safe(lambda z: (np.cos(np.sqrt(z)) - 1 + z / 2) / z ** 2, 1 / 24),
            lambda z: z ** 2 / np.cos(np.sqrt(z)), 0.0, 0.64, 3, ()),
}


def main():
    for name, (target, weight, lo, hi, degree, fixed) in FITS.items():
        coeffs = fit(target, weight, lo, hi, degree, fixed)
        err = weighted_error(coeffs, target, weight, lo, hi)
        text = ", ".join(str(np.float32(c)) for c in reversed(coeffs))
        print(f"{name} = ({text})   # weighted error 2^{math.log2(err):.1f}")


if __name__ == "__main__":
    main()
