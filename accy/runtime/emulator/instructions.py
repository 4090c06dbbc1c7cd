"""PTX instruction semantics: `compile(instruction, machine)` turns a decoded instruction into a
function of the threads that run it (`run`: a slice or an index array), which returns None
(fall through), a PC to jump to, or "exit".

Float arithmetic follows IEEE round-to-nearest-even per instruction (f16/bf16 computed in f32
and rounded once: f32 holds 2p + 2 bits of each, so that is the correctly rounded result);
`.ftz` flushes f32 subnormal inputs and results to signed zero; integer arithmetic wraps.
An instruction or modifier outside this table is an error naming it, never ignored.
"""
import numpy as np

from accy.runtime.emulator.machine import KernelFault, VIEW, SIGNED, STORAGE
from accy.runtime.emulator.ptx import Address, PredPair, Reg, Vector, TYPE_BYTES

TYPES = set(TYPE_BYTES) - {"pred"}
SPACES = ("global", "shared", "param", "const", "local")
CACHE_HINTS = {"ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt", "volatile", "relaxed", "acquire",
               "release", "weak", "sys", "gpu", "cta", "L1::evict_last", "L1::evict_first",
               "L1::no_allocate", "L2::64B", "L2::128B", "L2::256B", "L2::evict_last",
               "L2::evict_first", "L2::cache_hint", "unified"}
ROUNDING = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"}


def _type(ins, mods=None):
    """The instruction's (last) type suffix."""
    for m in reversed(mods if mods is not None else ins.mods):
        if m in TYPE_BYTES:
            return m
    raise KernelFault(f"no type in '{ins.text}'")


def _unsupported(ins, what):
    raise KernelFault(f"unsupported {what} in `{ins.text}` (line {ins.line})")


def _check_mods(ins, allowed):
    for m in ins.mods:
        if m not in allowed and m not in TYPE_BYTES:
            _unsupported(ins, f"modifier .{m}")


def _is_float(t):
    return t in ("f16", "bf16", "f32", "f64", "tf32")


def _ftz(x):
    """Flush f32 subnormals to zero, keeping the sign."""
    tiny = np.abs(x) < np.float32(1.1754944e-38)
    return np.where(tiny & (x != 0), np.copysign(np.float32(0), x), x)


def _float_math(t, fn, ins, ftz):
    """fn on f32/f64 values; f16/bf16 computed in f32 and rounded once."""
    view = VIEW[t]

    def compute(*xs):
        with np.errstate(all="ignore"):
            if t in ("f16", "bf16"):
                return fn(*(x.astype(np.float32) for x in xs)).astype(view)
            if ftz and t == "f32":
                return _ftz(fn(*map(_ftz, xs)).astype(np.float32))
            return fn(*xs).astype(view)
    return compute


def _int_mul(t, mode):
    """mul/mad .lo, .hi or .wide on type t: (function, result type)."""
    w = TYPE_BYTES[t]
    signed = t.startswith("s")
    wide = {1: np.int16, 2: np.int32, 4: np.int64, 8: None}[w] if signed else \
        {1: np.uint16, 2: np.uint32, 4: np.uint64, 8: None}[w]
    if mode == "wide":
        return (lambda a, b: a.astype(wide) * b.astype(wide)), ("s" if signed else "u") + str(16 * w)
    if mode == "hi":
        if w == 8:
            def hi64(a, b):
                return np.array([(int(x) * int(y)) >> 64 for x, y in zip(a, b)],
                                np.int64 if signed else np.uint64)
            return hi64, t
        return (lambda a, b: ((a.astype(np.int64 if signed else np.uint64) *
                               b.astype(np.int64 if signed else np.uint64)) >> (8 * w))
                .astype(VIEW[t])), t
    return (lambda a, b: a * b), t


def _minmax(fn, t):
    if _is_float(t):        # PTX min/max: a NaN operand loses to a number
        return lambda a, b: np.where(np.isnan(a), b, np.where(np.isnan(b), a, fn(a, b)))
    return fn


_FLOAT_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
              "gt": np.greater, "ge": np.greater_equal}
_INT_CMP = {**_FLOAT_CMP, "lo": np.less, "ls": np.less_equal, "hi": np.greater,
            "hs": np.greater_equal}
_COMBINE = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def _compare(op, t):
    if _is_float(t):
        if op in ("num", "nan"):
            return (lambda a, b: ~(np.isnan(a) | np.isnan(b))) if op == "num" else \
                (lambda a, b: np.isnan(a) | np.isnan(b))
        unordered = op.endswith("u") and op[:-1] in _FLOAT_CMP
        base = _FLOAT_CMP[op[:-1] if unordered else op]

        def cmp(a, b):
            nan = np.isnan(a) | np.isnan(b)
            with np.errstate(invalid="ignore"):
                r = base(a, b)
            return (r | nan) if unordered else (r & ~nan)
        return cmp
    return _INT_CMP[op]


class Handlers:
    """The instruction table: opcode -> builder(instruction, machine) -> fn(run)."""

    def __init__(self):
        self.table = {}

    def compile(self, ins, m):
        builder = self.table.get(ins.opcode)
        if builder is None:
            raise KernelFault(f"kernel {m.kernel.name}, line {ins.line}: unsupported instruction "
                              f"'{ins.opcode}' in `{ins.text}`")
        try:
            return builder(ins, m)
        except KernelFault as e:
            if str(e).startswith("kernel "):
                raise
            raise KernelFault(f"kernel {m.kernel.name}, line {ins.line}: {e}") from None

    def register(self, *names):
        def add(builder):
            for n in names:
                self.table[n] = builder
            return builder
        return add


HANDLERS = Handlers()
op = HANDLERS.register


def _operands(ins, count):
    if len(ins.operands) != count:
        raise KernelFault(f"'{ins.opcode}' takes {count} operands, got {len(ins.operands)}")
    return ins.operands


def _elementwise(ins, m, t, fn, n_in):
    d, *srcs = _operands(ins, n_in + 1)

    def run(r):
        m.write(d, fn(*(m.read(s, t, r) for s in srcs)), t, r)
    return run


# ---- data movement ------------------------------------------------------------------------------

@op("mov")
def _mov(ins, m):
    t = _type(ins)
    d, s = _operands(ins, 2)
    if isinstance(d, Vector) or isinstance(s, Vector):
        return _mov_pack(ins, m, t, d, s)

    def run(r):
        m.write(d, m.read(s, t, r), t, r)
    return run


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


def _space(ins):
    for s in SPACES:
        if s in ins.mods:
            return s
    return "generic"


def _vector(ins):
    for v in ("v2", "v4", "v8"):
        if v in ins.mods:
            return int(v[1:])
    return 1


@op("ld", "ldu")
def _ld(ins, m):
    _check_mods(ins, set(SPACES) | CACHE_HINTS | {"v2", "v4"})
    t, space, n = _type(ins), _space(ins), _vector(ins)
    d, a = _operands(ins, 2)
    targets = d.items if isinstance(d, Vector) else (d,)
    w = TYPE_BYTES[t]
    if space == "param":
        raw, offset = m.param_bytes(a)

        def run_param(r):
            for i, tgt in enumerate(targets):
                chunk = raw[offset + i * w: offset + (i + 1) * w]
                value = np.frombuffer(chunk.ljust(w, b"\0"), VIEW[t])[0]
                m.write(tgt, np.full(m._count(r), value, VIEW[t]), t, r)
        return run_param
    if space in ("const", "local"):
        _unsupported(ins, f".{space} memory")

    def run(r):
        base = m.address(a, r)
        for i, tgt in enumerate(targets):
            m.write(tgt, m.load(space, base + np.uint64(i * w), t, r), t, r)
    return run


@op("st")
def _st(ins, m):
    _check_mods(ins, set(SPACES) | CACHE_HINTS | {"v2", "v4"})
    t, space = _type(ins), _space(ins)
    a, s = _operands(ins, 2)
    sources = s.items if isinstance(s, Vector) else (s,)
    w = TYPE_BYTES[t]
    if space in ("const", "local", "param"):
        _unsupported(ins, f".{space} stores")

    def run(r):
        base = m.address(a, r)
        for i, src in enumerate(sources):
            m.store(space, base + np.uint64(i * w), m.read(src, t, r), t, r)
    return run


@op("cvta")
def _cvta(ins, m):
    """Global addresses are generic addresses here; shared offsets live in a window."""
    from accy.runtime.emulator.memory import SHARED_WINDOW
    t = _type(ins)
    d, s = _operands(ins, 2)
    to = "to" in ins.mods
    shared = "shared" in ins.mods

    def run(r):
        v = m.read(s, t, r).astype(np.uint64)
        if shared:
            v = v - np.uint64(SHARED_WINDOW) if to else v + np.uint64(SHARED_WINDOW)
        m.write(d, v.astype(VIEW[t]), t, r)
    return run


# ---- arithmetic -----------------------------------------------------------------------------------

_BINARY = {"add": np.add, "sub": np.subtract, "and": np.bitwise_and, "or": np.bitwise_or,
           "xor": np.bitwise_xor}


@op("add", "sub")
def _add(ins, m):
    t = _type(ins)
    _check_mods(ins, {"rn", "ftz", "sat", "cc", "s32"})
    rounding = [x for x in ins.mods if x in ROUNDING and x != "rn"]
    if rounding:
        _unsupported(ins, f"rounding .{rounding[0]}")
    fn = _BINARY[ins.opcode]
    if _is_float(t):
        fn = _float_math(t, fn, ins, "ftz" in ins.mods)
        if "sat" in ins.mods:
            inner = fn
            fn = lambda a, b: np.clip(inner(a, b), 0, 1).astype(inner(a, b).dtype)  # noqa: E731
    elif "sat" in ins.mods:
        inner = fn
        fn = lambda a, b: np.clip(inner(a.astype(np.int64), b.astype(np.int64)),  # noqa: E731
                                  -2**31, 2**31 - 1).astype(np.int32)
    return _elementwise(ins, m, t, fn, 2)


@op("and", "or", "xor")
def _logic(ins, m):
    t = _type(ins)
    if t == "pred":
        fn = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[ins.opcode]
    else:
        fn = _BINARY[ins.opcode]
    return _elementwise(ins, m, t, fn, 2)


@op("not")
def _not(ins, m):
    t = _type(ins)
    return _elementwise(ins, m, t, np.logical_not if t == "pred" else np.invert, 1)


@op("mul")
def _mul(ins, m):
    t = _type(ins)
    if _is_float(t):
        return _elementwise(ins, m, t, _float_math(t, np.multiply, ins, "ftz" in ins.mods), 2)
    mode = next((x for x in ins.mods if x in ("lo", "hi", "wide")), "lo")
    fn, rt = _int_mul(t, mode)
    d, a, b = _operands(ins, 3)

    def run(r):
        m.write(d, fn(m.read(a, t, r), m.read(b, t, r)), rt, r)
    return run


@op("mad", "fma")
def _mad(ins, m):
    t = _type(ins)
    d, a, b, c = _operands(ins, 4)
    if _is_float(t):
        def fused(x, y, z):       # one rounding: exact product and sum in f64 for f32/f16
            if x.dtype == np.float64:
                return _fma64(x, y, z)
            return x.astype(np.float64) * y.astype(np.float64) + z.astype(np.float64)
        fn = _float_math(t, fused, ins, "ftz" in ins.mods)

        def run_f(r):
            m.write(d, fn(m.read(a, t, r), m.read(b, t, r), m.read(c, t, r)), t, r)
        return run_f
    mode = next((x for x in ins.mods if x in ("lo", "hi", "wide")), "lo")
    mul, rt = _int_mul(t, mode)

    def run(r):
        m.write(d, mul(m.read(a, t, r), m.read(b, t, r)) + m.read(c, rt, r), rt, r)
    return run


def _fma64(x, y, z):
    """f64 fused multiply-add, exactly rounded (through Python's fractions when inexact)."""
    import math
    if hasattr(math, "fma"):
        return np.array([math.fma(a, b, c) for a, b, c in zip(x, y, z)], np.float64)
    from fractions import Fraction
    out = []
    for a, b, c in zip(x.tolist(), y.tolist(), z.tolist()):
        if all(map(math.isfinite, (a, b, c))):
            out.append(float(Fraction(a) * Fraction(b) + Fraction(c)))
        else:
            out.append(a * b + c)
    return np.array(out, np.float64)


@op("div")
def _div(ins, m):
    t = _type(ins)
    if _is_float(t):
        return _elementwise(ins, m, t, _float_math(t, np.divide, ins, "ftz" in ins.mods), 2)

    def idiv(a, b):
        safe = np.where(b == 0, 1, b)
        q = np.trunc(a.astype(np.float64) / safe.astype(np.float64)) if TYPE_BYTES[t] < 8 else \
            np.array([_trunc_div(int(x), int(y)) for x, y in zip(a, safe)])
        return np.where(b == 0, np.array(-1).astype(a.dtype) if t.startswith("s") else
                        np.iinfo(a.dtype).max, q.astype(a.dtype))
    return _elementwise(ins, m, t, idiv, 2)


def _trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


@op("rem")
def _rem(ins, m):
    t = _type(ins)
    return _elementwise(ins, m, t, lambda a, b: np.where(b == 0, a, np.fmod(a, np.where(
        b == 0, 1, b))).astype(a.dtype), 2)


@op("min", "max")
def _minmax_op(ins, m):
    t = _type(ins)
    fn = _minmax(np.minimum if ins.opcode == "min" else np.maximum, t)
    return _elementwise(ins, m, t, fn, 2)


@op("neg", "abs")
def _neg(ins, m):
    t = _type(ins)
    fn = np.negative if ins.opcode == "neg" else np.abs
    if _is_float(t) and "ftz" in ins.mods:
        inner = fn
        fn = lambda x: _ftz(inner(x))  # noqa: E731
    return _elementwise(ins, m, t, fn, 1)


@op("shl", "shr")
def _shift(ins, m):
    t = _type(ins)
    d, a, b = _operands(ins, 3)
    bits = 8 * TYPE_BYTES[t]
    left = ins.opcode == "shl"

    def run(r):
        x = m.read(a, t, r)
        n = m.read(b, "u32", r).astype(np.int64)
        big = n >= bits
        n = np.minimum(n, bits - 1).astype(x.dtype)
        if left:
            out = np.where(big, 0, x << n)
        elif t.startswith("s"):
            out = np.where(big, np.where(x < 0, -1, 0), x >> n)
        else:
            out = np.where(big, 0, x >> n)
        m.write(d, out.astype(x.dtype), t, r)
    return run


@op("popc", "clz", "brev")
def _bits(ins, m):
    t = _type(ins)
    bits = 8 * TYPE_BYTES[t]
    d, a = _operands(ins, 2)

    def run(r):
        x = m.read(a, t, r).astype(np.uint64)
        if ins.opcode == "popc":
            out = sum(((x >> np.uint64(k)) & np.uint64(1)) for k in range(bits))
        elif ins.opcode == "clz":
            out = np.full(x.shape, bits, np.uint64)
            for k in range(bits):
                out = np.where((x >> np.uint64(k)) & np.uint64(1), np.uint64(bits - 1 - k), out)
        else:
            out = np.zeros(x.shape, np.uint64)
            for k in range(bits):
                out |= ((x >> np.uint64(k)) & np.uint64(1)) << np.uint64(bits - 1 - k)
            m.write(d, out.astype(VIEW[t]), t, r)
            return
        m.write(d, out.astype(np.uint32), "u32", r)
    return run


# ---- comparisons and selects ----------------------------------------------------------------

@op("setp")
def _setp(ins, m):
    t = _type(ins)
    cmp_name = next(x for x in ins.mods if x not in TYPE_BYTES and x != "ftz")
    combine = next((x for x in ins.mods if x in _COMBINE and x != cmp_name), None)
    cmp = _compare(cmp_name, t)
    ops = ins.operands
    d, a, b = ops[:3]
    c = ops[3] if combine else None

    def run(r):
        value = cmp(m.read(a, t, r), m.read(b, t, r))
        if isinstance(d, PredPair):
            first, second = d.value, d.pred
            other = ~value
        else:
            first, second, other = d, None, None
        if combine:
            cv = m.read(c, "pred", r)
            value = _COMBINE[combine](value, cv)
            if second is not None:
                other = _COMBINE[combine](other, cv)
        m.write(first, value, "pred", r)
        if second is not None:
            m.write(second, other, "pred", r)
    return run


@op("selp")
def _selp(ins, m):
    t = _type(ins)
    d, a, b, c = _operands(ins, 4)

    def run(r):
        m.write(d, np.where(m.read(c, "pred", r), m.read(a, t, r), m.read(b, t, r)), t, r)
    return run


# ---- conversions ------------------------------------------------------------------------------

@op("cvt")
def _cvt(ins, m):
    types = [x for x in ins.mods if x in TYPE_BYTES]
    if len(types) != 2:
        _unsupported(ins, "cvt form")
    dt, st = types
    mode = next((x for x in ins.mods if x in ROUNDING), None)
    sat = "sat" in ins.mods
    ftz = "ftz" in ins.mods
    d, a = _operands(ins, 2)

    def run(r):
        m.write(d, convert(m.read(a, st, r), st, dt, mode, sat, ftz), dt, r)
    return run


_INT_ROUND = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil, None: np.trunc}


def convert(x, st, dt, mode, sat, ftz=False):
    """PTX cvt: float -> int rounds by mode (default toward zero) and saturates, NaN -> 0;
    int -> int truncates or extends (.sat clamps); to float rounds to nearest even."""
    dview = VIEW[dt]
    with np.errstate(all="ignore"):
        if _is_float(st) and ftz and st == "f32":
            x = _ftz(x)
        if _is_float(dt):
            if mode not in (None, "rn") and not (_is_float(st) and mode in ("rni", "rzi", "rmi",
                                                                            "rpi")):
                if _is_float(st) and TYPE_BYTES[st] <= TYPE_BYTES[dt]:
                    pass
                else:
                    raise KernelFault(f"cvt rounding .{mode} to {dt} is not supported")
            if _is_float(st) and mode in ("rni", "rzi", "rmi", "rpi"):
                x = _INT_ROUND[mode](x)
            if dt == "bf16" and x.dtype != np.float32:
                from accy._core.types import round_float
                out = round_float(x.astype(np.float64), "bf16")
            else:
                out = x.astype(np.float64).astype(dview) if st != "f32" or dt != "bf16" \
                    else x.astype(dview)
            if sat:
                out = np.clip(np.nan_to_num(out, nan=0), 0, 1).astype(dview)
            if ftz and dt == "f32":
                out = _ftz(out)
            return out
        if _is_float(st):
            info = np.iinfo(dview)
            v = _INT_ROUND[mode](x.astype(np.float64))
            v = np.where(np.isnan(v), 0, v)
            high, low = v >= float(info.max), v <= float(info.min)
            inside = np.where(high | low, 0, v).astype(np.int64 if info.min < 0 else np.uint64)
            return np.where(high, info.max, np.where(low, info.min, inside)).astype(dview)
        if sat:
            info = np.iinfo(dview)
            wide = x.astype(np.float64) if x.dtype.itemsize == 8 else x.astype(np.int64)
            return np.clip(wide, info.min, info.max).astype(dview)
        return x.astype(dview)


# ---- control ------------------------------------------------------------------------------------

@op("bra")
def _bra(ins, m):
    (label,) = _operands(ins, 1)
    target = m.kernel.labels.get(getattr(label, "name", None))
    if target is None:
        raise KernelFault(f"branch to unknown label {label}")
    return lambda r: target


@op("ret", "exit")
def _ret(ins, m):
    return lambda r: "exit"


@op("bar", "barrier")
def _bar(ins, m):
    if "warp" in ins.mods:
        return lambda r: None

    def run(r):
        m.check_barrier(r, ins)
    return run


@op("membar", "fence")
def _fence(ins, m):
    return lambda r: None


# ---- warp-level -------------------------------------------------------------------------------

@op("shfl")
def _shfl(ins, m):
    mode = next(x for x in ins.mods if x in ("up", "down", "bfly", "idx"))
    t = _type(ins)
    d, a, b, c = ins.operands[:4]
    value_reg, pred_reg = (d.value, d.pred) if isinstance(d, PredPair) else (d, None)

    def run(r):
        threads = np.arange(m.T)[r] if isinstance(r, slice) else r
        lane = m.special["laneid"][threads]
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
        j = np.where(ok, j, lane)
        source = threads - lane + j
        source = np.where(m.local[threads] - lane + j < m.block_size, source, threads)
        values = m.read(a, t, source)
        m.write(value_reg, values, t, r)
        if pred_reg is not None:
            m.write(pred_reg, ok, "pred", r)
    return run


@op("vote")
def _vote(ins, m):
    mode = next(x for x in ins.mods if x in ("all", "any", "uni", "ballot"))
    d, a = ins.operands[:2]

    def run(r):
        threads = np.arange(m.T)[r] if isinstance(r, slice) else r
        p = m.read(a, "pred", r)
        warp = m.warp_of[threads]
        if mode == "ballot":
            lane = m.special["laneid"][threads].astype(np.uint64)
            bits = np.zeros(m.warp_of.max() + 1, np.uint64)
            np.bitwise_or.at(bits, warp, p.astype(np.uint64) << lane)
            m.write(d, bits[warp].astype(np.uint32), "b32", r)
            return
        count = np.zeros(m.warp_of.max() + 1, np.int64)
        true = np.zeros_like(count)
        np.add.at(count, warp, 1)
        np.add.at(true, warp, p.astype(np.int64))
        result = {"all": true == count, "any": true > 0,
                  "uni": (true == 0) | (true == count)}[mode]
        m.write(d, result[warp], "pred", r)
    return run


# ---- atomics ---------------------------------------------------------------------------------

_ATOMIC = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
           "or": np.bitwise_or, "xor": np.bitwise_xor, "exch": lambda old, v: v,
           "inc": None, "dec": None, "cas": None}


@op("atom", "red")
def _atom(ins, m):
    t = _type(ins)
    space = _space(ins)
    kind = next((x for x in ins.mods if x in _ATOMIC), None)
    if kind is None or kind in ("inc", "dec"):
        _unsupported(ins, "atomic operation")
    ops = ins.operands
    if ins.opcode == "atom":
        d, a, b = ops[:3]
        c = ops[3] if kind == "cas" else None
    else:
        d, (a, b), c = None, ops[:2], None
    fn = _minmax(_ATOMIC[kind], t) if kind in ("min", "max") else _ATOMIC[kind]

    def run(r):
        addresses = m.address(a, r)
        values = m.read(b, t, r)
        compare = m.read(c, t, r) if c is not None else None
        old = m.atomic(space, addresses, values, t, r, fn, compare)
        if d is not None:
            m.write(d, old, t, r)
    return run
