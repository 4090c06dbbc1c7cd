# cython: language_level=3
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

The walk and the range facts read the IR's records (ops, values and types by id), so an op
that needs no rewrite costs no handle; the rewrites build with the IR's Builder.
"""
from libc.stdint cimport int32_t

from accy._core.context cimport (ARGS, BLK, OP, REG, USE, VAL, Context, Operation, Value,
                                 op_handle)

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


# what the walk does with an op, by name
cdef enum:
    OTHER = 0
    ARITH = 1           # an op of ARITHMETIC
    CONSTANT = 2
    SPECIAL = 3
    CONVERT = 4
    SELECT = 5
    COMPARE = 6
    FOR = 7
    NESTED = 8          # kl.while, kl.if: only their blocks
KINDS = {"kl.constant": CONSTANT, "kl.special": SPECIAL, "kl.convert": CONVERT,
         "kl.select": SELECT, "kl.cmp": COMPARE, "kl.for": FOR, "kl.while": NESTED,
         "kl.if": NESTED}


def legalize(kernels):
    """Rewrite every `kl.kernel` of `kernels` (an op, a list, or a module) into legal kl, in
    place (see the module docstring); returns the list of kernel ops."""
    ops = kernel_ops(kernels)
    for kernel in ops:
        if not kernel.attributes.get("legal", False):
            _Legalizer(kernel).walk()
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


cdef object _bound(str name, str dtype, int32_t a_id, int32_t b_id, dict bounds, dict consts):
    """An upper bound of integer op `name`'s result when it is known to lie in [0, bound]
    (`bounds`: such bounds of values, by id; `consts`: integer constants; `b_id` is -1 for a
    unary op), else None. A sum or product counts only while its bound stays within the
    dtype, so arithmetic that may wrap (a hash of an int64 iota) is never taken for
    non-negative."""
    a = bounds.get(a_id)
    b = bounds.get(b_id) if b_id >= 0 else None
    top = (1 << (BITS[dtype] - 1)) - 1 if dtype != "u8" else 255
    if name == "add" or name == "mul":
        out = None if a is None or b is None else a + b if name == "add" else a * b
    elif name == "rem":                     # the sign of the dividend, below the divisor
        c = consts.get(b_id)
        out = a if a is None or not c else min(a, abs(c) - 1)
    elif name == "div":                     # x / 0 is -1: a positive constant divisor only
        c = consts.get(b_id, 0)
        out = a // c if a is not None and c > 0 else None
    elif name == "shr":                     # logical: shifted down
        out = a if a is None else a >> max(0, min(consts.get(b_id, 0), 63))
    elif name == "min":
        out = None if a is None or b is None else min(a, b)
    elif name == "max":
        out = None if a is None and b is None else top if a is None or b is None else max(a, b)
    elif name == "and":                     # the sign bit cleared by either
        out = b if a is None else a if b is None else min(a, b)
    else:
        out = None
    return out if out is not None and out <= top else None


cdef inline int32_t operand(Context c, int32_t op, int32_t i):
    return USE(c, OP(c, op).operands + i).value


cdef class _Legalizer:
    """Rewrites one kernel, walking its ops in order with the range facts found so far."""
    cdef Context context
    cdef object kernel
    cdef object entry           # the kernel's entry Block
    cdef dict immediates        # (value, dtype) -> its immediate constant, at the entry
    cdef dict consts            # integer value id -> its constant
    cdef dict bounds            # integer value id -> b when it is known to lie in [0, b]
    cdef list kinds             # op-name id -> (its kind, its name less "kl.")
    cdef list dtypes            # type id -> the dtype of a scalar type, None for others

    def __init__(self, kernel):
        self.context = kernel.context
        self.kernel = kernel
        self.entry = kernel.regions[0].entry
        self.immediates = {}
        self.consts = {}
        self.bounds = {}
        self.kinds = []
        self.dtypes = []

    def walk(self):
        cdef int32_t kernel = (<Operation>self.kernel).check()
        self.block(REG(self.context, OP(self.context, kernel).regions).first_block)

    cdef tuple kind(self, int32_t name):
        while len(self.kinds) <= name:
            self.kinds.append(None)
        found = self.kinds[name]
        if found is None:
            full = self.context.op_names[name]
            kind = ARITH if full in ARITHMETIC else KINDS.get(full, OTHER)
            found = self.kinds[name] = (kind, full[3:])
        return <tuple>found

    cdef object dtype(self, int32_t value):
        """The dtype of a scalar kl value; None for a pointer (which the emitter refuses where
        it is no operand)."""
        cdef int32_t t = VAL(self.context, value).type
        while len(self.dtypes) <= t:
            self.dtypes.append(False)
        found = self.dtypes[t]
        if found is False:
            found = self.dtypes[t] = getattr(self.context.types[t], "dtype", None)
        return found

    cdef block(self, int32_t block):
        cdef Context c = self.context
        cdef int32_t op = BLK(c, block).first_op, i, kind
        cdef list ops = []
        while op >= 0:                  # the ops the walk started with: not those it makes
            ops.append(op)
            op = OP(c, op).next
        for op in ops:
            kind, name = self.kind(OP(c, op).name)
            if kind == ARITH:
                self.arithmetic(op, name)
            elif kind == CONSTANT:
                self.constant(op)
            elif kind == SPECIAL:
                self.bounds[OP(c, op).results] = SPECIAL_BOUNDS.get(
                    c.op_attrs[op]["register"], 2**31 - 1)
            elif kind == CONVERT:
                self.convert(op)
            elif kind == SELECT:
                self.select(op)
            elif kind == COMPARE:
                self.compare(op)
            elif kind == FOR:
                self.loop(op)
            if kind == FOR or kind == NESTED:
                for i in range(OP(c, op).n_regions):
                    self.block(REG(c, OP(c, op).regions + i).first_block)

    # ---- building ---------------------------------------------------------------------------
    def _replace(self, op, value):
        """Use `value` for `op`'s result (carrying its range fact) and erase `op`."""
        result = op.results[0]
        cdef int32_t old = (<Value>result).id
        if old in self.bounds:
            self.bounds[(<Value>value).id] = self.bounds.pop(old)
        self.consts.pop(old, None)      # its id may name a new value once it is erased
        result.replace_all_uses_with(value)
        op.erase()

    def _at(self, op):
        return Builder(self.context).before_op(op)

    @staticmethod
    def _make(at, name, operands, dtype, **attributes):
        return at.create(f"kl.{name}", list(operands), [scalar(dtype)],
                         attributes or None).results[0]

    # ---- facts ------------------------------------------------------------------------------
    cdef constant(self, int32_t op):
        cdef int32_t value = OP(self.context, op).results
        if self.dtype(value) in BITS:
            c = int(self.context.op_attrs[op]["value"].array)
            self.consts[value] = c
            if c >= 0:
                self.bounds[value] = c

    cdef loop(self, int32_t op):
        cdef Context c = self.context
        cdef int32_t lo = operand(c, op, 0), hi = operand(c, op, 1), step = operand(c, op, 2)
        cdef int32_t body
        if lo in self.bounds and step in self.bounds:       # it grows from lo, below hi,
            top = max(0, self.bounds.get(hi, 2**63 - 1) - 1)  # as long as iv + step cannot
            if top + self.bounds[step] < 2**63:                # wrap past 2^63 and go on
                body = REG(c, OP(c, op).regions).first_block
                self.bounds[ARGS(c, BLK(c, body).args)[0]] = top

    # ---- rewrites ---------------------------------------------------------------------------
    cdef convert(self, int32_t op):
        cdef Context c = self.context
        cdef int32_t source = operand(c, op, 0), result = OP(c, op).results
        src, dst = self.dtype(source), self.dtype(result)
        bound = self.bounds.get(source)
        if bound is not None and dst in BITS and bound < 1 << (BITS[dst] - (dst != "u8")):
            self.bounds[result] = bound             # the same value in the new dtype
        if dst in SMALL and src in BITS and src != dst:
            self.wrap(op_handle(c, op))
        if src in HALF and dst not in ("f32", "f64", src):
            handle = op_handle(c, op)
            at = self._at(handle)
            wide = self._make(at, "convert", handle.operands, "f32")
            self._replace(handle, self._make(at, "convert", [wide], dst))

    cdef select(self, int32_t op):
        cdef Context c = self.context
        cdef int32_t result = OP(c, op).results, a = operand(c, op, 1), b = operand(c, op, 2)
        if self.dtype(result) == "i1":
            handle = op_handle(c, op)
            x, y, z = handle.operands
            at = self._at(handle)
            p = self._make(at, "and", [x, y], "i1")
            q = self._make(at, "and", [self._make(at, "not", [x], "i1"), z], "i1")
            self._replace(handle, self._make(at, "or", [p, q], "i1"))
        elif a in self.bounds and b in self.bounds:
            self.bounds[result] = max(self.bounds[a], self.bounds[b])

    cdef compare(self, int32_t op):
        dtype = self.dtype(operand(self.context, op, 0))
        wide = "u8" if dtype == "i1" else "f32" if dtype in HALF else None
        if wide is not None:
            handle = op_handle(self.context, op)
            at = self._at(handle)
            x, y = (self._make(at, "convert", [v], wide) for v in handle.operands)
            self._replace(handle, self._make(at, "cmp", [x, y], "i1",
                                             predicate=handle.attributes["predicate"]))

    cdef arithmetic(self, int32_t op, str name):
        cdef Context c = self.context
        cdef int32_t n = OP(c, op).n_operands, result = OP(c, op).results
        cdef int32_t a = operand(c, op, 0), b = operand(c, op, 1) if n > 1 else -1
        dtype = self.dtype(a)
        if dtype in WIDE_FLOATS:                # nothing to rewrite, no range fact
            return
        attrs = c.op_attrs.get(op)
        if dtype == "i1":
            if name in BOOL:
                handle = op_handle(c, op)
                self._replace(handle, self._make(self._at(handle), BOOL[name], handle.operands,
                                                 "i1"))
        elif dtype in BITS:
            # no range fact for a sign-filling shift
            bound = None if name == "shr" and attrs and attrs.get("arithmetic", False) else \
                _bound(name, dtype, a, b, self.bounds, self.consts)
            if bound is not None:
                self.bounds[result] = bound
            if (name == "div" or name == "rem") and self.consts.get(b, 0) not in (0, -1):
                self.by_constant(op_handle(c, op), name, dtype)
            if dtype in SMALL and name in WRAPPING:
                self.wrap(op_handle(c, op))
        elif dtype in HALF and name not in HALF_NATIVE:
            handle = op_handle(c, op)
            at = self._at(handle)
            wide = [self._make(at, "convert", [v], "f32") for v in handle.operands]
            out = self._make(at, name, wide, "i1" if name == "is_finite" else "f32")
            self._replace(handle, out if name == "is_finite" else
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
        bound = self.bounds.get((<Value>result).id)
        if bound is not None:
            self.bounds[(<Value>wrapped.results[0]).id] = bound

    def by_constant(self, op, name, dtype):
        """Truncating a / c or a % c for a constant c (not 0 or -1): for i32 and i64 by shifts
        or a multiply-high (no sign correction when a is known >= 0), for the small integers
        one unguarded hardware division."""
        if dtype not in ("i32", "i64"):
            op.set_attribute("safe_divisor", True)
            return
        a, divisor = op.operands
        c, nonneg = self.consts[(<Value>divisor).id], (<Value>a).id in self.bounds
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
