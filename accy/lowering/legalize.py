"""Legalization: kl -> legal kl, the form the PTX emitter (accy/lowering/ptx.py) translates
op by op.

    legalize(kernels)       # in place; returns the list of kl.kernel ops

`kernels` is a `kl.kernel` op, a list of them or a module holding them. Each kernel is
rewritten in place (no copy) in one walk and marked `legal`; a kernel already marked is left
as it is, so legalizing twice is one walk. What the rewrites do (each keeps the op's meaning,
docs/tensor-ops.md "Numerics"):

- range facts: an integer value known to lie in [0, b] (thread and block ids under CUDA's
  launch limits, non-negative constants, a loop's induction variable growing from a bounded
  start below its bound, and what sums, products, quotients, remainders, shifts, min, max,
  and, select and converts make of them while they stay within the dtype) is tracked through
  the walk; it lets a division by a constant drop its sign correction.
- division and remainder by a constant (not 0 or -1): i32 and i64 become shifts or a
  multiply-high by a magic number (Hacker's Delight, 10-1), written with `kl.mul_hi` and
  `immediate` constants; ptxas strength-reduces neither (it calls a division routine of about
  a hundred instructions (64-bit) or inlines a reciprocal sequence (32-bit), even for a
  literal). i16, i8 and u8 keep one hardware division, marked `safe_divisor` (no guard for
  the reference's x / 0 and MIN / -1).
- small-integer re-extension: an i16, i8 or u8 op that may leave the dtype's range in the
  32-bit register the emitter computes it in (add, sub, mul, fma, not, neg, abs, div, shifts,
  pow, and a convert from another integer) is followed by `kl.wrap`, which takes its uses.
- i1 arithmetic: add and max become or, mul and min become and; `select` on i1 becomes
  (c and a) or (not c and b); a compare of i1 values compares them as u8 (0, 1).
- f16/bf16 widening: arithmetic other than fma, neg, abs and the transcendentals (which the
  emitter's math library evaluates from any float dtype), compares, `is_finite` and converts
  to integers, i1 or the other 16-bit float go through f32: each operand converted to f32,
  the op in f32, the result rounded once back (cvt.rn), as the reference rounds it.

Ops the emitter cannot translate are left as they are, for it to refuse by name.
"""
from accy._core.context import Builder
from accy.errors import UnsupportedError
from accy.lowering.kl import KL_BINARY, KL_UNARY, _literal, scalar

BITS = {"i64": 64, "i32": 32, "i16": 16, "i8": 8, "u8": 8}
HALF = ("f16", "bf16")
WIDE_FLOATS = ("f32", "f64")
# ops the emitter computes on f16/bf16 itself: native, bitwise on the sign, or from the math
# library (which widens the operand as it needs); the integer-only ones it refuses
HALF_NATIVE = {"fma", "neg", "abs", "exp", "exp2", "expm1", "log", "log1p", "tanh",
               "logistic", "erf", "sin", "cos", "rsqrt", "pow", "cbrt", "tan", "atan2", "and",
               "or", "xor", "not", "popc", "clz", "shl", "shr"}
BOOL = {"add": "or", "max": "or", "mul": "and", "min": "and"}     # i1 arithmetic as logic
SMALL = ("i16", "i8", "u8")
# small-integer ops the emitter computes in 32 bits that need a kl.wrap after them (min, max,
# and, or, xor, sign and rem keep a value in range; ops it refuses need none)
WRAPPING = {"add", "sub", "mul", "fma", "not", "neg", "abs", "div", "shl", "shr", "pow"}
ARITHMETIC = {f"kl.{name}" for name in KL_BINARY + KL_UNARY + ("fma",)}

# the largest values of the special registers under CUDA's launch limits (others: below 2^31)
SPECIAL_BOUNDS = {"tid.x": 1023, "tid.y": 1023, "tid.z": 63, "ntid.x": 1024, "ntid.y": 1024,
                  "ntid.z": 64, "ctaid.x": 2**31 - 2, "ctaid.y": 65534, "ctaid.z": 65534,
                  "nctaid.x": 2**31 - 1, "nctaid.y": 65535, "nctaid.z": 65535}


def legalize(kernels):
    """Rewrite every `kl.kernel` of `kernels` (an op, a list, or a module) into legal kl, in
    place (see the module docstring); returns the list of kernel ops."""
    ops = kernel_ops(kernels)
    for kernel in ops:
        if not kernel.attributes.get("legal", False):
            _Legalizer(kernel).block(kernel.regions[0].entry)
            kernel.set_attribute("legal", True)
    return ops


def kernel_ops(kernels):
    """The `kl.kernel` ops of `kernels`: one such op, a list of them or a module."""
    if getattr(kernels, "name", None) == "kl.kernel":
        return [kernels]
    ops = list(kernels.body if hasattr(kernels, "body") else kernels)     # a module, or a list
    for op in ops:
        if op.name != "kl.kernel":
            raise UnsupportedError(f"legalize and emit_module take kl.kernel ops, got "
                                   f"'{op.name}'")
    return ops


def signed_magic(d, width):
    """(multiplier, shift) with trunc(n / d) = (mulhi(n, multiplier) >> shift) + (n < 0) for
    every signed `width`-bit n, for d >= 2 not a power of two (Hacker's Delight, 10-1); a
    multiplier of 2^(width-1) or more is used as negative with n added back."""
    two = 1 << (width - 1)
    anc = two - 1 - two % d             # the largest n with n % d == d - 1, less one step
    p = width - 1
    q1, r1 = divmod(two, anc)
    q2, r2 = divmod(two, d)
    while True:
        p += 1
        q1, r1 = 2 * q1, 2 * r1
        if r1 >= anc:
            q1, r1 = q1 + 1, r1 - anc
        q2, r2 = 2 * q2, 2 * r2
        if r2 >= d:
            q2, r2 = q2 + 1, r2 - d
        delta = d - r2
        if not (q1 < delta or (q1 == delta and r1 == 0)):
            return q2 + 1, p - width


def _bound(name, dtype, operands, bounds, consts):
    """An upper bound of integer op `name`'s result when it is known to lie in [0, bound]
    (`bounds`: such bounds of values; `consts`: integer constants), else None. A sum or
    product counts only while its bound stays within the dtype, so arithmetic that may wrap
    (a hash of an int64 iota) is never taken for non-negative."""
    a = bounds.get(operands[0])
    b = bounds.get(operands[1]) if len(operands) > 1 else None
    top = (1 << (BITS[dtype] - 1)) - 1 if dtype != "u8" else 255
    if name in ("add", "mul"):
        out = None if a is None or b is None else a + b if name == "add" else a * b
    elif name == "rem":                     # the sign of the dividend, below the divisor
        c = consts.get(operands[1])
        out = a if a is None or not c else min(a, abs(c) - 1)
    elif name == "div":                     # x / 0 is -1: a positive constant divisor only
        c = consts.get(operands[1], 0)
        out = a // c if a is not None and c > 0 else None
    elif name == "shr":                     # logical: shifted down
        out = a if a is None else a >> max(0, min(consts.get(operands[1], 0), 63))
    elif name == "min":
        out = None if a is None or b is None else min(a, b)
    elif name == "max":
        out = None if a is None and b is None else top if a is None or b is None else max(a, b)
    elif name == "and":                     # the sign bit cleared by either
        out = None if a is None and b is None else min(x for x in (a, b) if x is not None)
    else:
        out = None
    return out if out is not None and out <= top else None


def _dtype(value):
    """The dtype of a scalar kl value; None for a pointer (which the emitter refuses where it
    is no operand)."""
    return getattr(value.type, "dtype", None)


class _Legalizer:
    """Rewrites one kernel, walking its ops in order with the range facts found so far."""

    def __init__(self, kernel):
        self.context = kernel.context
        self.entry = kernel.regions[0].entry
        self.immediates = {}        # (value, dtype) -> its immediate constant, at the entry
        self.consts = {}            # integer kl Value -> its constant
        self.bounds = {}            # integer kl Value -> b when it is known to lie in [0, b]

    def block(self, block):
        for op in block.operations:
            name = op.name
            if name in ARITHMETIC:
                self.arithmetic(op, name[3:])
            elif name == "kl.constant":
                self.constant(op)
            elif name == "kl.special":
                self.bounds[op.results[0]] = SPECIAL_BOUNDS.get(op.attributes["register"],
                                                                2**31 - 1)
            elif name == "kl.convert":
                self.convert(op)
            elif name == "kl.select":
                self.select(op)
            elif name == "kl.cmp":
                self.compare(op)
            elif name == "kl.for":
                self.loop(op)
            if name in ("kl.for", "kl.while", "kl.if"):
                for region in op.regions:
                    self.block(region.entry)

    # ---- building ---------------------------------------------------------------------------
    def _replace(self, op, value):
        """Use `value` for `op`'s result (carrying its range fact) and erase `op`."""
        result = op.results[0]
        if result in self.bounds:
            self.bounds[value] = self.bounds[result]
        result.replace_all_uses_with(value)
        op.erase()

    def _at(self, op):
        return Builder(self.context).before_op(op)

    @staticmethod
    def _make(at, name, operands, dtype, **attributes):
        return at.create(f"kl.{name}", list(operands), [scalar(dtype)],
                         attributes or None).results[0]

    # ---- facts ------------------------------------------------------------------------------
    def constant(self, op):
        value = op.results[0]
        dtype = _dtype(value)
        if dtype in BITS:
            c = int(op.attributes["value"].array)
            self.consts[value] = c
            if c >= 0:
                self.bounds[value] = c

    def loop(self, op):
        lo, hi, step = op.operands[:3]
        if lo in self.bounds and step in self.bounds:       # it grows from lo, below hi,
            top = max(0, self.bounds.get(hi, 2**63 - 1) - 1)  # as long as iv + step cannot
            if top + self.bounds[step] < 2**63:                # wrap past 2^63 and go on
                self.bounds[op.regions[0].entry.arguments[0]] = top

    # ---- rewrites ---------------------------------------------------------------------------
    def convert(self, op):
        (source,), (result,) = op.operands, op.results
        src, dst = _dtype(source), _dtype(result)
        bound = self.bounds.get(source)
        if bound is not None and dst in BITS and bound < 1 << (BITS[dst] - (dst != "u8")):
            self.bounds[result] = bound             # the same value in the new dtype
        if dst in SMALL and src in BITS and src != dst:
            self.wrap(op)
        if src in HALF and dst not in ("f32", "f64", src):
            at = self._at(op)
            wide = self._make(at, "convert", [source], "f32")
            self._replace(op, self._make(at, "convert", [wide], dst))

    def select(self, op):
        (result,), (c, a, b) = op.results, op.operands
        dtype = _dtype(result)
        if dtype == "i1":
            at = self._at(op)
            x = self._make(at, "and", [c, a], "i1")
            y = self._make(at, "and", [self._make(at, "not", [c], "i1"), b], "i1")
            return self._replace(op, self._make(at, "or", [x, y], "i1"))
        if a in self.bounds and b in self.bounds:
            self.bounds[result] = max(self.bounds[a], self.bounds[b])

    def compare(self, op):
        dtype = _dtype(op.operands[0])
        wide = "u8" if dtype == "i1" else "f32" if dtype in HALF else None
        if wide is not None:
            at = self._at(op)
            x, y = (self._make(at, "convert", [v], wide) for v in op.operands)
            self._replace(op, self._make(at, "cmp", [x, y], "i1",
                                         predicate=op.attributes["predicate"]))

    def arithmetic(self, op, name):
        operands = op.operands
        dtype = _dtype(operands[0])
        if dtype in WIDE_FLOATS:                # nothing to rewrite, no range fact
            return
        result = op.results[0]
        if dtype == "i1":
            if name in BOOL:
                self._replace(op, self._make(self._at(op), BOOL[name], operands, "i1"))
        elif dtype in BITS:
            # no range fact for a sign-filling shift
            bound = None if name == "shr" and op.attributes.get("arithmetic", False) else \
                _bound(name, dtype, operands, self.bounds, self.consts)
            if bound is not None:
                self.bounds[result] = bound
            if name in ("div", "rem") and self.consts.get(operands[1], 0) not in (0, -1):
                self.by_constant(op, name, dtype)
            if dtype in SMALL and name in WRAPPING:
                self.wrap(op)
        elif dtype in HALF and name not in HALF_NATIVE:
            at = self._at(op)
            wide = [self._make(at, "convert", [v], "f32") for v in operands]
            out = self._make(at, name, wide, "i1" if name == "is_finite" else "f32")
            self._replace(op, out if name == "is_finite" else
                          self._make(at, "convert", [out], dtype))

    def immediate(self, value, dtype):
        """The `immediate` constant `value` of `dtype`, made once per kernel at the start of
        its entry block (so it dominates every use; it costs no instruction: its users hold
        it)."""
        key = (value, dtype)
        found = self.immediates.get(key)
        if found is None:
            found = self.immediates[key] = self._make(
                Builder(self.context).at_start(self.entry), "constant", [], dtype,
                value=_literal(value, dtype), immediate=True)
        return found

    def wrap(self, op):
        """Put a `kl.wrap` of `op`'s result right after it, taking the result's uses."""
        result = op.results[0]
        wrapped = Builder(self.context).after_op(op).create("kl.wrap", [result],
                                                             [result.type])
        result.replace_all_uses_with(wrapped.results[0])
        wrapped.set_operand(0, result)          # the wrap itself keeps the raw result
        if result in self.bounds:
            self.bounds[wrapped.results[0]] = self.bounds[result]

    def by_constant(self, op, name, dtype):
        """Truncating a / c or a % c for a constant c (not 0 or -1): for i32 and i64 by shifts
        or a multiply-high (no sign correction when a is known >= 0), for the small integers
        one unguarded hardware division."""
        if dtype not in ("i32", "i64"):
            op.set_attribute("safe_divisor", True)
            return
        a, divisor = op.operands
        c, nonneg = self.consts[divisor], a in self.bounds
        at, w = self._at(op), BITS[dtype]

        def imm(value):
            return self.immediate(value, dtype)

        def make(kind, *operands, **attributes):
            return self._make(at, kind, operands, dtype, **attributes)

        size = abs(c)
        if size == 1:
            q = a if c == 1 else make("neg", a)
        elif size & (size - 1) == 0 and nonneg:
            if name == "rem":
                return self._replace(op, make("and", a, imm(size - 1)))
            q = make("shr", a, imm(size.bit_length() - 1))
        elif size & (size - 1) == 0:                   # 2^k: bias negative a by 2^k - 1
            k = size.bit_length() - 1
            sign = make("shr", a, imm(w - 1), arithmetic=True)
            biased = make("add", a, make("shr", sign, imm(w - k)))
            if name == "rem":
                return self._replace(op, make("sub", a, make("and", biased, imm(-size))))
            q = make("shr", biased, imm(k), arithmetic=True)
        else:
            m, shift = signed_magic(size, w)
            q = make("mul_hi", a, imm(m - (1 << w) if m >> (w - 1) else m))
            if m >> (w - 1):                           # the multiplier wrapped to negative
                q = make("add", q, a)
            if shift:
                q = make("shr", q, imm(shift), arithmetic=True)
            if not nonneg:
                q = make("add", q, make("shr", a, imm(w - 1)))   # +1 if a < 0
        if name == "div":
            return self._replace(op, q if c > 0 or size == 1 else make("neg", q))
        self._replace(op, make("sub", a, make("mul", q, imm(size))))
