"""The chlo ops JAX emits, as tensor ops: each a function (emitter, op's operand values, op's
attributes, declared result types) -> result values, built in the operand's dtype so that
nothing runs on the host (docs/stablehlo.md gives each one's accuracy)."""
import math

from accy._core.types import FLOAT_DTYPES, INT_DTYPES, TensorType
from accy.errors import UnsupportedError

TOTAL_ORDER_INT = {"f16": "i16", "bf16": "i16", "f32": "i32", "f64": "i64"}
BIG = 1e9       # above it, sqrt(x*x + 1) is |x| in f32 and f64 (and x*x may overflow)
NARROW = ("f16", "bf16")
# above it, e^|x| overflows though cosh and sinh do not yet: e^(|x| - ln 2) instead
EXP_LIMIT = {"f32": 88.0, "f64": 709.0}

# The Lanczos approximation of the gamma function, g = 7 with 9 terms (the common double-precision
# choice): gamma(z + 1) = sqrt(2 pi) t^(z + 1/2) e^-t A(z), t = z + g + 1/2.
LANCZOS_G = 7.0
LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
           -176.61502916214059, 12.507343278686905, -0.13857109526572012,
           9.9843695780195716e-6, 1.5056327351493116e-7)


class _Ops:
    """`o.name(*values)` makes tensor.name; `o.c(v)` a constant of x's type."""

    def __init__(self, e, like):
        self.e, self.dtype, self.shape = e, like.type.dtype, like.type.shape

    def __getattr__(self, name):        # and_, or_: Python's keywords
        return lambda *args: self.e.op("tensor." + name.rstrip("_"), *args)

    def c(self, value, dtype=None):
        return self.e.full(value, dtype or self.dtype, self.shape)

    def cmp(self, x, y, direction):
        return self.e.compare(x, y, direction)


def total_order_key(e, x):
    """An integer whose signed order is IEEE's total order of the float x (-NaN < -inf < ... <
    -0 < +0 < ... < +inf < +NaN): negative floats have their magnitude bits flipped."""
    if x.type.dtype not in FLOAT_DTYPES:
        return x
    itype = TOTAL_ORDER_INT[x.type.dtype]
    o = _Ops(e, x)
    bits = e.op("tensor.bitcast_convert", x, result_type=TensorType(itype, x.type.shape))
    width = int(itype[1:])
    sign = o.shift_right_arithmetic(bits, o.c(width - 1, itype))
    return o.xor(bits, o.and_(sign, o.c((1 << (width - 1)) - 1, itype)))


def _unary(build, wide=True):
    """A rule of one float operand; with `wide`, f16 and bf16 are computed in f32 and rounded
    once (their range is too small for the intermediate steps, and a chain of their roundings
    too coarse), as XLA does."""
    def rule(e, operands, attrs, results):
        (x,) = operands
        dtype = x.type.dtype
        if dtype not in FLOAT_DTYPES:
            raise UnsupportedError(f"takes a float operand, got {x.type}")
        if not (wide and dtype in NARROW):
            return [build(_Ops(e, x), x)]
        w = e.convert(x, "f32")
        return [e.convert(build(_Ops(e, w), w), dtype)]
    return rule


def _cosh(o, x):
    a = o.abs(x)
    near = o.multiply(o.c(0.5), o.add(o.exp(x), o.exp(o.negate(x))))
    far = o.exp(o.subtract(a, o.c(math.log(2))))
    return o.select(o.cmp(a, o.c(EXP_LIMIT[o.dtype]), "GT"), far, near)


def _sinh(o, x):
    a = o.abs(x)
    near = o.multiply(o.c(0.5), o.subtract(o.expm1(x), o.expm1(o.negate(x))))
    far = o.multiply(o.sign(x), o.exp(o.subtract(a, o.c(math.log(2)))))
    return o.select(o.cmp(a, o.c(EXP_LIMIT[o.dtype]), "GT"), far, near)


def _asinh(o, x):
    a = o.abs(x)
    small = o.log1p(o.add(a, o.divide(o.multiply(x, x),
                                      o.add(o.c(1), o.sqrt(o.add(o.c(1), o.multiply(x, x)))))))
    large = o.add(o.log(a), o.c(math.log(2)))
    return o.multiply(o.sign(x), o.select(o.cmp(a, o.c(BIG), "GT"), large, small))


def _acosh(o, x):
    small = o.log(o.add(x, o.sqrt(o.multiply(o.subtract(x, o.c(1)), o.add(x, o.c(1))))))
    return o.select(o.cmp(x, o.c(BIG), "GT"), o.add(o.log(x), o.c(math.log(2))), small)


def _lanczos(o, z):
    """(t, A(z - 1), A'(z - 1)) of the Lanczos sum at z - 1, for z >= 1/2."""
    zm1 = o.subtract(z, o.c(1))
    a, da = o.c(LANCZOS[0]), o.c(0)
    for i, coefficient in enumerate(LANCZOS[1:], start=1):
        d = o.add(zm1, o.c(i))
        term = o.divide(o.c(coefficient), d)
        a = o.add(a, term)
        da = o.subtract(da, o.divide(term, d))
    return o.add(zm1, o.c(LANCZOS_G + 0.5)), a, da


def _reflected(o, x):
    """(x < 1/2, the argument the approximation takes: 1 - x there, else x)."""
    reflect = o.cmp(x, o.c(0.5), "LT")
    return reflect, o.select(reflect, o.subtract(o.c(1), x), x)


def _lgamma(o, x):
    reflect, z = _reflected(o, x)
    t, a, _ = _lanczos(o, z)
    value = o.add(o.add(o.c(0.5 * math.log(2 * math.pi)),
                        o.multiply(o.subtract(z, o.c(0.5)), o.log(t))),
                  o.subtract(o.log(a), t))
    # lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
    sin = o.abs(o.sin(o.multiply(o.c(math.pi), x)))
    return o.select(reflect, o.subtract(o.log(o.divide(o.c(math.pi), sin)), value), value)


def _digamma(o, x):
    reflect, z = _reflected(o, x)
    t, a, da = _lanczos(o, z)
    value = o.add(o.subtract(o.log(t), o.divide(o.c(LANCZOS_G), t)), o.divide(da, a))
    # digamma(x) = digamma(1 - x) - pi / tan(pi x)
    px = o.multiply(o.c(math.pi), x)
    return o.select(reflect, o.subtract(value, o.divide(o.c(math.pi), o.tan(px))), value)


def _binary_same(fn):
    def rule(e, operands, attrs, results):
        x, y = operands
        if x.type != y.type or x.type.dtype not in FLOAT_DTYPES:
            raise UnsupportedError(f"takes two float operands of one type, got {x.type} and "
                                   f"{y.type}")
        return [fn(e, _Ops(e, x), x, y)]
    return rule


def _next_after(e, o, x, y):
    """The float after x toward y: one step of x's bits (0 steps to the smallest denormal of
    y's sign); y when they are equal; NaN when either is."""
    itype = TOTAL_ORDER_INT[x.type.dtype]
    as_int = lambda v: e.op("tensor.bitcast_convert", v,         # noqa: E731
                            result_type=TensorType(itype, v.type.shape))
    bits = as_int(x)
    away = o.cmp(o.cmp(x, y, "LT"), o.cmp(x, o.c(0), "GT"), "EQ")    # |x| grows
    stepped = o.add(bits, o.select(away, o.c(1, itype), o.c(-1, itype)))
    width = int(itype[1:])
    sign_y = o.and_(as_int(y), o.c(-(1 << (width - 1)), itype))
    tiny = o.or_(sign_y, o.c(1, itype))
    out = o.select(o.cmp(x, o.c(0), "EQ"), tiny, stepped)
    out = e.op("tensor.bitcast_convert", out, result_type=x.type)
    out = o.select(o.cmp(x, y, "EQ"), y, out)
    nan = o.or_(o.cmp(x, x, "NE"), o.cmp(y, y, "NE"))
    return o.select(nan, o.add(x, y), out)


def _top_k(e, operands, attrs, results):
    """The k largest along the last dim, largest first, ties by the lower index (a stable
    sort by IEEE's total order, descending), and their indices."""
    (x,) = operands
    k = getattr(attrs.get("k"), "value", attrs.get("k"))
    if len(results) != 2 or x.type.rank == 0 or results[1].dtype not in INT_DTYPES:
        raise UnsupportedError("top_k takes a tensor of rank >= 1 and gives its values and "
                               "their integer indices")
    if type(k) is not int or not 0 <= k <= x.type.shape[-1]:
        raise UnsupportedError(f"top_k needs k, an integer within the last dim "
                               f"({x.type.shape[-1]}), got {k!r}")
    last = x.type.rank - 1
    index = e.op("tensor.iota", iota_dimension=last,
                 result_type=TensorType(results[1].dtype, x.type.shape))

    def before(inner, a, b, ai, bi):
        return inner.compare(total_order_key(inner, a), total_order_key(inner, b), "GT")
    values, indices = e.sort([x, index], last, before)
    limits = x.type.shape[:last] + (k,)
    cut = dict(start_indices=(0,) * (last + 1), limit_indices=limits,
               strides=(1,) * (last + 1))
    return [e.op("tensor.slice", values, **cut), e.op("tensor.slice", indices, **cut)]


RULES = {
    "chlo.square": _unary(lambda o, x: o.multiply(x, x), wide=False),
    "chlo.erfc": _unary(lambda o, x: o.subtract(o.c(1), o.erf(x))),
    "chlo.sinh": _unary(_sinh),
    "chlo.cosh": _unary(_cosh),
    "chlo.atan": _unary(lambda o, x: o.atan2(x, o.c(1))),
    "chlo.asin": _unary(lambda o, x: o.atan2(x, o.sqrt(o.multiply(o.subtract(o.c(1), x),
                                                                  o.add(o.c(1), x))))),
    "chlo.acos": _unary(lambda o, x: o.atan2(o.sqrt(o.multiply(o.subtract(o.c(1), x),
                                                               o.add(o.c(1), x))), x)),
    "chlo.atanh": _unary(lambda o, x: o.multiply(o.c(0.5), o.subtract(o.log1p(x),
                                                                      o.log1p(o.negate(x))))),
    "chlo.asinh": _unary(_asinh),
    "chlo.acosh": _unary(_acosh),
    "chlo.lgamma": _unary(_lgamma),
    "chlo.digamma": _unary(_digamma),
    "chlo.is_inf": _unary(lambda o, x: o.cmp(o.abs(x), o.c(math.inf), "EQ"), wide=False),
    "chlo.is_pos_inf": _unary(lambda o, x: o.cmp(x, o.c(math.inf), "EQ"), wide=False),
    "chlo.is_neg_inf": _unary(lambda o, x: o.cmp(x, o.c(-math.inf), "EQ"), wide=False),
    "chlo.next_after": _binary_same(_next_after),
    "chlo.top_k": _top_k,
}
