"""The reference interpreter: runs a tensor-level module with numpy, exactly as
docs/tensor-ops.md ("Numerics") defines each op. It is the oracle every emitted kernel is
checked against, so it favours exactness over speed:

- f16/bf16/f32 elementwise math is evaluated in f64 and rounded once to the op's dtype
  (`round_to`; bf16 through round-to-odd, since a plain f64 -> f32 -> bf16 cast rounds twice);
- integers wrap, with XLA's rules for division by zero and out-of-range shifts;
- float `sum`/`prod` reductions and scans fold sequentially in row-major order in the op's
  dtype; other reductions are order-independent and use numpy directly;
- dot_general multiplies and sums in f64 (integers: in the accumulation dtype, wrapping),
  rounds once to the accumulation dtype, then converts to the result dtype;
- `attention` runs its decomposition (`accy.tensor.decompose`).

    outputs = accy.reference.run(module, x, w)      # a tuple of numpy arrays
"""
import math

import numpy as np

import accy.tensor  # noqa: F401  (registers the tensor dialect)
from accy._core.builtin import lookup_symbol
from accy._core.context import Block, Builder, Context
from accy._core.registry import ELEMENTWISE, CONSTANT
from accy._core.types import FLOAT_DTYPES, INT_DTYPES, TensorType, numpy_dtype, round_float
from accy.errors import UnsupportedError, ShapeError, TypeError as DTypeError
from accy.tensor import reduce_kind
from accy.tensor.build import Emitter, KIND_OPS
from accy.tensor.dialect import accumulation_type, default_compare_type, dot_dimensions
from accy.tensor.decompose import emit_attention

MAX_CALL_DEPTH = 200
MAX_ARRAY_BYTES = 2**62         # numpy refuses ("array is too big") beyond about this


def run(module, *arrays, function="main", max_iterations=None):
    """Run `function` of `module` on `arrays`; returns a tuple with one numpy array per result.
    `max_iterations` bounds every `tensor.iterate` loop (None: unbounded)."""
    func = _find_function(module, function)
    entry = func.regions[0].entry
    if entry is None:
        raise UnsupportedError(f"@{function} is a declaration without a body")
    args = _check_arguments(function, entry.arguments, arrays)
    try:
        return tuple(np.array(a) for a in Interpreter(max_iterations).call(func, args))
    except MemoryError:
        raise UnsupportedError(f"@{function} needs more memory than the reference interpreter "
                               f"could allocate (it holds every value as a numpy array)") from None


def _find_function(module, name):
    for op in module.body if hasattr(module, "body") else module.regions[0].entry:
        if op.name == "builtin.func" and op.attributes.get("sym_name") == name:
            return op
    raise UnsupportedError(f"the module has no function @{name}")


def _check_arguments(function, params, arrays):
    if len(arrays) != len(params):
        raise DTypeError(f"@{function} takes {len(params)} arguments, got {len(arrays)}")
    out = []
    for i, (p, a) in enumerate(zip(params, arrays)):
        t = p.type
        try:
            arr = np.asarray(a)
        except ValueError as e:         # ragged nested lists
            raise DTypeError(f"argument {i} of @{function} is not an array: {e}") from None
        if arr.dtype != numpy_dtype(t.dtype):
            raise DTypeError(f"argument {i} of @{function} must be {t.dtype}, got {arr.dtype}")
        if arr.shape != t.shape:
            raise ShapeError(f"argument {i} of @{function} must have shape {t.shape}, "
                             f"got {arr.shape}")
        out.append(arr)
    return out


# ---- rounding ---------------------------------------------------------------------------------

round_to = round_float     # every float result is rounded once from f64


def _f64(x):
    return np.asarray(x).astype(np.float64)


def _float_op(fn):
    """An op on float operands: evaluate `fn` in f64, round once to the operands' dtype."""
    def apply(op, *xs):
        with np.errstate(all="ignore"):
            return round_to(np.asarray(fn(*map(_f64, xs)), np.float64), op.result_types[0].dtype)
    return apply


# ---- elementwise semantics --------------------------------------------------------------------

def _max(a, b):
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), b, a), np.maximum(a, b))


def _min(a, b):
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, np.where(np.signbit(a), a, b), np.minimum(a, b))


def _sign(x):
    return np.where(x == 0, x, np.sign(x))


_erf = np.frompyfunc(math.erf, 1, 1)

FLOAT_FNS = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "remainder": np.fmod, "power": np.power, "maximum": _max, "minimum": _min,
    "negate": np.negative, "abs": np.abs, "sign": _sign, "exp": np.exp, "exp2": np.exp2,
    "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "tanh": np.tanh,
    "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "erf": lambda x: np.asarray(_erf(x), np.float64), "sin": np.sin, "cos": np.cos,
    "floor": np.floor, "ceil": np.ceil, "round_nearest_even": np.rint,
}


def _unsigned(x):
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _signed(dtype):
    return dtype.kind == "i"


def _int_divide(a, b):
    """Truncating division; x / 0 = -1, INT_MIN / -1 = INT_MIN (wrapping), as XLA."""
    minus_one = (b == -1) if _signed(a.dtype) else np.zeros(b.shape, bool)
    safe = np.where((b == 0) | minus_one, 1, b).astype(a.dtype)
    q = (a - np.fmod(a, safe)) // safe
    return np.where(b == 0, np.array(-1).astype(a.dtype),
                    np.where(minus_one, np.negative(a), q)).astype(a.dtype)


def _int_remainder(a, b):
    """Remainder with the dividend's sign; x % 0 = x, INT_MIN % -1 = 0."""
    minus_one = (b == -1) if _signed(a.dtype) else np.zeros(b.shape, bool)
    safe = np.where((b == 0) | minus_one, 1, b).astype(a.dtype)
    return np.where(b == 0, a, np.fmod(a, safe)).astype(a.dtype)


def _int_power(a, b):
    """Wrapping exponentiation by squaring; negative exponents as docs/tensor-ops.md says."""
    result = np.ones(np.broadcast(a, b).shape, a.dtype)
    base = np.array(a, copy=True)
    e = np.where(b < 0, 0, b).astype(np.int64) if _signed(b.dtype) else b.astype(np.int64)
    for _ in range(64):
        result = np.where(e & 1, result * base, result).astype(a.dtype)
        base = (base * base).astype(a.dtype)
        e = e >> 1
    if _signed(b.dtype):
        odd = (b & 1).astype(bool)
        negative = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(a.dtype)
        result = np.where(b < 0, negative, result)
    return result.astype(a.dtype)


def _shift(kind):
    def shift(a, b):
        bits = a.dtype.itemsize * 8
        amount = b.astype(np.int64)
        valid = (amount >= 0) & (amount < bits)
        safe = np.where(valid, amount, 0).astype(a.dtype)
        if kind == "left":
            out, fill = a << safe, 0
        elif kind == "logical":
            out, fill = _unsigned(_unsigned(a) >> _unsigned(safe)).view(a.dtype), 0
        else:                           # sign fill, reading the bits as signed (also u8)
            signed = a.view(np.dtype(f"i{a.dtype.itemsize}"))
            out = (signed >> safe.view(signed.dtype)).view(a.dtype)
            fill = np.where(signed < 0, -1, 0).astype(signed.dtype).view(a.dtype)
        return np.where(valid, out, fill).astype(a.dtype)
    return shift


INT_FNS = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": _int_divide,
    "remainder": _int_remainder, "power": _int_power, "maximum": np.maximum,
    "minimum": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "shift_left": _shift("left"), "shift_right_arithmetic": _shift("arithmetic"),
    "shift_right_logical": _shift("logical"), "negate": np.negative, "abs": np.abs,
    "sign": np.sign, "not": np.invert,
}
BOOL_FNS = {
    "add": np.logical_or, "or": np.logical_or, "maximum": np.logical_or,
    "multiply": np.logical_and, "and": np.logical_and, "minimum": np.logical_and,
    "xor": np.logical_xor, "not": np.logical_not,
}


def _elementwise(name):
    short = name.split(".", 1)[1]

    def apply(op, *xs):
        dtype = op.result_types[0].dtype
        if dtype in FLOAT_DTYPES:
            return _float_op(FLOAT_FNS[short])(op, *xs)
        table = BOOL_FNS if dtype == "i1" else INT_FNS
        with np.errstate(all="ignore"):
            return np.asarray(table[short](*xs)).astype(numpy_dtype(dtype))
    return apply


_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
            "GT": np.greater, "GE": np.greater_equal}


def _compare(op, a, b):
    attrs = op.attributes
    dtype = op.operand_types[0].dtype
    kind = attrs.get("compare_type", default_compare_type(dtype))
    if dtype == "i1" and kind == "SIGNED":
        a, b = -a.astype(np.int8), -b.astype(np.int8)      # a signed 1-bit true is -1
    elif kind == "UNSIGNED" and dtype != "i1":
        a, b = _unsigned(a), _unsigned(b)
    elif kind == "SIGNED" and dtype == "u8":
        a, b = a.view(np.int8), b.view(np.int8)
    with np.errstate(invalid="ignore"):
        return _COMPARE[attrs["comparison_direction"]](a, b)


def _clamp(op, lo, x, hi):
    fn = _elementwise("tensor.maximum")
    return _elementwise("tensor.minimum")(op, fn(op, x, lo), hi)


def convert(x, dtype):
    """x converted to `dtype` by the rules of `tensor.convert`."""
    with np.errstate(all="ignore"):
        return _convert(np.asarray(x), dtype)


def _convert(x, dtype):
    src = x.dtype
    target = numpy_dtype(dtype)
    if dtype == "i1":
        return x != 0
    if src == np.bool_:
        return x.astype(target)
    if dtype in FLOAT_DTYPES:
        if src.kind in "iu" and dtype != "bf16":
            return x.astype(target)         # numpy's int -> float cast rounds once
        if src == np.int64:
            return _i64_to_bf16(x)
        return round_to(_f64(x), dtype)
    if src.kind in "iu":
        return x.astype(target)             # wraps
    info = np.iinfo(target)
    with np.errstate(invalid="ignore"):
        t = np.trunc(_f64(x))
        high, low = t >= float(info.max), t <= float(info.min)     # NaN is neither
        inside = np.where(high | low | np.isnan(t), 0, t).astype(np.int64)
    return np.where(high, info.max, np.where(low, info.min, inside)).astype(target)


def _i64_to_bf16(x):
    """i64 -> bf16 rounded once, in integers (through f64 would round twice above 2**53)."""
    negative = x < 0
    n = np.where(negative, -(x + 1), x).astype(np.uint64) + np.where(negative, 1, 0).astype(
        np.uint64)                                          # |x| without overflow at INT_MIN
    bits = sum(((n >> np.uint64(k)) > 0).astype(np.int64) for k in range(64))
    shift = np.maximum(bits - 8, 0).astype(np.uint64)      # keep bf16's 8 significant bits
    kept = n >> shift
    rest = n - (kept << shift)
    half = np.uint64(1) << (np.maximum(shift, 1) - np.uint64(1))
    up = (shift > 0) & ((rest > half) | ((rest == half) & (kept & np.uint64(1) == 1)))
    rounded = (kept + up.astype(np.uint64)).astype(np.float64) * np.exp2(shift.astype(np.float64))
    return np.where(negative, -rounded, rounded).astype(numpy_dtype("bf16"))


# ---- shape ops ----------------------------------------------------------------------------------

def _iota(op):
    t = op.result_types[0]
    d = op.attributes["iota_dimension"]
    shape = [1] * t.rank
    shape[d] = t.shape[d]
    values = np.arange(t.shape[d]).reshape(shape)
    return np.broadcast_to(convert(values, t.dtype), t.shape)


def _broadcast_in_dim(op, x):
    t = op.result_types[0]
    shape = [1] * t.rank
    for i, d in enumerate(op.attributes["broadcast_dimensions"]):
        shape[d] = x.shape[i]
    return np.broadcast_to(x.reshape(shape), t.shape)


def _slice(op, x):
    a = op.attributes
    strides = a.get("strides", (1,) * x.ndim)
    return x[tuple(slice(s, l, st) for s, l, st in
                   zip(a["start_indices"], a["limit_indices"], strides))]


def _pad(op, x, value):
    a = op.attributes
    low, high = a["edge_padding_low"], a["edge_padding_high"]
    interior = a.get("interior_padding", (0,) * x.ndim)
    grown = [max(lo, 0) + max(hi, 0) + d + max(d - 1, 0) * it
             for lo, hi, it, d in zip(low, high, interior, x.shape)]
    out = np.full(grown, value, x.dtype)
    out[tuple(slice(max(lo, 0), max(lo, 0) + (d - 1) * (it + 1) + 1 if d else max(lo, 0), it + 1)
              for lo, it, d in zip(low, interior, x.shape))] = x
    return out[tuple(slice(max(-lo, 0), g - max(-hi, 0))
                     for lo, hi, g in zip(low, high, grown))]


def _gather(op, x, idx):
    a = op.attributes
    axis = a["axis"]
    idx = np.clip(idx.astype(np.int64), 0, x.shape[axis] - 1)
    if a.get("mode", "take") == "take":
        return np.take(x, idx, axis=axis)
    return _take_along(x, idx, axis)


def _take_along(x, idx, axis):
    """np.take_along_axis(x, idx, axis) for `idx` of x's shape except at `axis`, at any rank:
    numpy makes one index array per dimension and takes at most 63, so the other dimensions
    are merged into one (a 2-D take)."""
    x, idx = np.moveaxis(x, axis, -1), np.moveaxis(idx, axis, -1)
    rows = math.prod(idx.shape[:-1])
    taken = np.take_along_axis(x.reshape(rows, x.shape[-1]), idx.reshape(rows, idx.shape[-1]), 1)
    return np.moveaxis(taken.reshape(idx.shape), -1, axis)


def _dot_general(op, lhs, rhs):
    lb, rb, lc, rc = dot_dimensions(op.attributes)
    lf = [d for d in range(lhs.ndim) if d not in lb + lc]
    rf = [d for d in range(rhs.ndim) if d not in rb + rc]
    batch = [lhs.shape[d] for d in lb]
    k = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    m = int(np.prod([lhs.shape[d] for d in lf], dtype=np.int64))
    n = int(np.prod([rhs.shape[d] for d in rf], dtype=np.int64))
    nb = int(np.prod(batch, dtype=np.int64))
    a = np.transpose(lhs, list(lb) + lf + list(lc)).reshape(nb, m, k)
    b = np.transpose(rhs, list(rb) + list(rc) + rf).reshape(nb, k, n)
    acc = accumulation_type(op.attributes, op.operand_types[0].dtype)
    out_t = op.result_types[0]
    if acc in FLOAT_DTYPES:
        product = round_to(np.matmul(_f64(a), _f64(b)), acc)
    else:
        wide = numpy_dtype(acc)
        with np.errstate(all="ignore"):     # wrapping sums: exact in any order
            product = np.matmul(a.astype(wide), b.astype(wide))
    return convert(product, out_t.dtype).reshape(out_t.shape)


# ---- the interpreter ---------------------------------------------------------------------------

class Interpreter:
    """Evaluates ops block by block; values live in one dict per call (SSA: no clashes)."""

    def __init__(self, max_iterations=None):
        self.max_iterations = max_iterations
        self.depth = 0

    def call(self, func, args):
        self.depth += 1
        if self.depth > MAX_CALL_DEPTH:
            raise UnsupportedError(f"calls nest deeper than {MAX_CALL_DEPTH} (recursion?)")
        try:
            return self.block(func.regions[0].entry, args, {})
        finally:
            self.depth -= 1

    def block(self, block, args, env):
        """Run `block` with its arguments bound to `args`; returns its terminator's operands."""
        for a, value in zip(block.arguments, args):
            env[a] = value
        for op in block.operations:
            name = op.name
            operands = [env[v] for v in op.operands]
            if name in ("builtin.return", "tensor.yield"):
                return operands
            fn = HANDLERS.get(name)
            if fn is None:
                raise UnsupportedError(f"the reference interpreter cannot run '{name}'")
            for t in op.result_types:
                if t.num_elements * numpy_dtype(t.dtype).itemsize > MAX_ARRAY_BYTES:
                    raise UnsupportedError(f"'{name}' makes a {t}, larger than numpy can hold")
            results = fn(self, op, operands, env)
            for r, value in zip(op.results, results):
                env[r] = value
        raise UnsupportedError("a block ended without a terminator")

    def body(self, op, region_index, args, env):
        return self.block(op.regions[region_index].entry, args, env)

    def fold(self, op, xs, inits, axes, env):
        """Sequential fold of `xs` over `axes` (moved last, row-major) from `inits`."""
        flat = [_last_axis(x, axes) for x in xs]
        accs = [np.broadcast_to(i, flat[0].shape[:-1]).copy() for i in inits]
        step = self.step_function(op, env)
        for j in range(flat[0].shape[-1]):
            accs = step(accs, [x[..., j] for x in flat])
        return accs

    def step_function(self, op, env):
        """acc' = body(acc, e) as a function of arrays: the body's ops run on whole arrays when
        they are all elementwise (or constants); otherwise element by element."""
        block = op.regions[0].entry
        vectorized = all(o.has_trait(ELEMENTWISE) or o.has_trait(CONSTANT)
                         or o.name == "tensor.yield" for o in block.operations)
        if vectorized:      # a body may yield a constant or an outer value: broadcast it
            return lambda accs, es: [np.broadcast_to(np.asarray(r), np.shape(a)) for a, r in
                                     zip(accs, self.block(block, accs + es, env))]

        def each(accs, es):
            shape = np.shape(accs[0])
            outs = [np.empty(shape, a.dtype) for a in accs]
            for index in np.ndindex(*shape):
                args = [np.asarray(a[index]) for a in accs + es]
                for out, r in zip(outs, self.block(block, args, env)):
                    out[index] = r
            return outs
        return each


def _order_free(kind, dtype):
    """numpy's reduction for `kind` on `dtype` when its result cannot depend on the order
    (None for float sum/prod, which fold sequentially)."""
    if dtype == "i1":
        return {"sum": np.any, "max": np.any, "or": np.any,
                "prod": np.all, "min": np.all, "and": np.all}.get(kind)
    if dtype in INT_DTYPES:
        return {"sum": np.add.reduce, "prod": np.multiply.reduce, "max": np.maximum.reduce,
                "min": np.minimum.reduce, "and": np.bitwise_and.reduce,
                "or": np.bitwise_or.reduce}.get(kind)
    if kind in ("max", "min"):
        return _float_extreme(kind)
    return None


def _float_extreme(kind):
    """max/min over axes with NaN propagating and +0.0 above -0.0, as `maximum` says."""
    def reduce(x, axis):
        fn = np.maximum.reduce if kind == "max" else np.minimum.reduce
        r = fn(x, axis=axis)
        zero = (x == 0) & (np.signbit(x) == (kind == "min"))   # the zero that wins
        winner = np.array(0.0 if kind == "max" else -0.0, x.dtype)
        return np.where((r == 0) & np.any(zero, axis=axis), winner, r)
    return reduce


# kinds whose sequential fold numpy runs itself: ufunc.accumulate steps left to right and rounds
# to the dtype at each step; for + and * of f16/bf16 that step is computed in f32, which holds
# at least 2p + 2 bits, so it is the one correct rounding the f64 evaluation gives.
SEQUENTIAL = {"sum": np.add, "prod": np.multiply}


def _running(kind, x, init):
    """(..., n + 1) running results of folding the last axis of `x` from `init` by `kind`."""
    start = np.broadcast_to(init, x.shape[:-1] + (1,)).astype(x.dtype)
    with np.errstate(all="ignore"):
        return SEQUENTIAL[kind].accumulate(np.concatenate([start, x], -1), axis=-1, dtype=x.dtype)


def _last_axis(x, axes):
    """`x` with `axes` (sorted, row-major) moved last and flattened into one."""
    axes = sorted(axes)
    moved = np.moveaxis(x, axes, range(x.ndim - len(axes), x.ndim))
    outer = moved.shape[:moved.ndim - len(axes)]
    return moved.reshape(outer + (int(np.prod([x.shape[d] for d in axes], dtype=np.int64)),))


def _arg_winner(kind, values, index, is_float):
    """(value, index) of the element an argmax/argmin body keeps among the last axis: a NaN if
    there is one, else the largest (smallest); ties go to the smallest index."""
    extreme = np.max if kind == "argmax" else np.min
    nan = np.isnan(values) if is_float else np.zeros(values.shape, bool)
    with np.errstate(invalid="ignore"):
        best = extreme(values, axis=-1, keepdims=True)
        wins = np.where(nan.any(-1, keepdims=True), nan, values == best)
    big = np.iinfo(np.int64).max
    position = np.argmin(np.where(wins, index.astype(np.int64), big), axis=-1)[..., None]
    return _take_along(values, position, -1)[..., 0], _take_along(index, position, -1)[..., 0]


def _reduce(self, op, xs, env):
    n = len(xs) // 2
    inputs, inits = xs[:n], xs[n:]
    dims = tuple(op.attributes["dimensions"])
    kind = reduce_kind(op)
    dtype = op.operand_types[0].dtype
    shape = op.result_types[0].shape
    if not (kind and inputs[0].size and all(inputs[0].shape[d] for d in dims)):
        return [np.asarray(a).reshape(t.shape) for a, t in
                zip(self.fold(op, inputs, inits, dims, env), op.result_types)]
    if kind in ("argmax", "argmin"):
        winner = _arg_winner(kind, *(_last_axis(x, dims) for x in inputs),
                             is_float=dtype in FLOAT_DTYPES)
        step = self.step_function(op, env)
        return [np.asarray(r).reshape(t.shape) for r, t in
                zip(step([np.broadcast_to(i, shape) for i in inits], list(winner)),
                    op.result_types)]
    if kind in SEQUENTIAL and dtype in FLOAT_DTYPES:
        return [_running(kind, _last_axis(inputs[0], dims), inits[0])[..., -1].reshape(shape)]
    with np.errstate(all="ignore"):
        reduced = np.asarray(_order_free(kind, dtype)(inputs[0], axis=dims)).astype(
            inputs[0].dtype)
    combine = _elementwise("tensor." + KIND_OPS[kind].split(".")[1])
    return [np.asarray(combine(op, inits[0], reduced)).reshape(shape)]


def _scan(self, op, xs, env):
    x, init = xs
    a = op.attributes
    axis = a["dimension"]
    if a.get("reverse", False):
        x = np.flip(x, axis)
    moved = np.moveaxis(x, axis, -1)
    kind = reduce_kind(op)
    if kind in SEQUENTIAL and op.operand_types[0].dtype != "i1":
        running = _running(kind, moved, init)
        out = running[..., :-1] if a.get("exclusive", False) else running[..., 1:]
        out = np.moveaxis(out, -1, axis)
        return [np.flip(out, axis) if a.get("reverse", False) else out]
    acc = np.broadcast_to(init, moved.shape[:-1]).copy()
    step = self.step_function(op, env)
    out = np.empty_like(moved)
    for j in range(moved.shape[-1]):
        if a.get("exclusive", False):
            out[..., j] = acc
            (acc,) = step([acc], [moved[..., j]])
        else:
            (acc,) = step([acc], [moved[..., j]])
            out[..., j] = acc
    out = np.moveaxis(out, -1, axis)
    return [np.flip(out, axis) if a.get("reverse", False) else out]


def _iterate(self, op, values, env):
    count = 0
    while bool(self.body(op, 0, values, env)[0]):
        if self.max_iterations is not None and count >= self.max_iterations:
            raise UnsupportedError(f"tensor.iterate ran more than {self.max_iterations} "
                                   f"iterations (max_iterations)")
        values = [np.asarray(v) for v in self.body(op, 1, values, env)]
        count += 1
    return values


def _call(self, op, args, env):
    callee = lookup_symbol(op, op.attributes["callee"].name)
    return self.call(callee, args)


def _attention(self, op, args, env):
    """Run the decomposition on the operands (built once per call in a scratch Context)."""
    types = [TensorType(t.dtype, t.shape) for t in op.operand_types]
    block = Block.create(Context(), types)
    e = Emitter(Builder(block.context).at_end(block))
    a = op.attributes
    ins = block.arguments
    out = emit_attention(e, *ins[:3], mask=ins[3] if len(ins) == 4 else None,
                         scale=a["scale"].value, causal=a.get("causal", False))
    e.builder.create("tensor.yield", [out])
    return self.block(block, args, {})


def _kernel_call(self, op, args, env):
    raise UnsupportedError(
        f"the reference interpreter cannot run tensor.kernel_call of '{op.attributes['kernel']}' "
        f"(user PTX); run the compiled executable on the GPU or the emulator instead")


def _lift(fn):
    """A handler from a plain `fn(op, *operands) -> array`."""
    return lambda self, op, xs, env: [np.asarray(fn(op, *xs))]


HANDLERS = {
    **{f"tensor.{n}": _lift(_elementwise(f"tensor.{n}"))
       for n in set(FLOAT_FNS) | set(INT_FNS) | set(BOOL_FNS)},
    "tensor.is_finite": _lift(lambda op, x: np.isfinite(x)),
    "tensor.compare": _lift(_compare),
    "tensor.select": _lift(lambda op, p, a, b: np.where(p, a, b)),
    "tensor.clamp": _lift(_clamp),
    "tensor.convert": _lift(lambda op, x: convert(x, op.result_types[0].dtype)),
    "tensor.constant": _lift(lambda op: op.attributes["value"].array),
    "tensor.iota": _lift(_iota),
    "tensor.reshape": _lift(lambda op, x: x.reshape(op.result_types[0].shape)),
    "tensor.transpose": _lift(lambda op, x: np.transpose(x, op.attributes["permutation"])),
    "tensor.broadcast_in_dim": _lift(_broadcast_in_dim),
    "tensor.slice": _lift(_slice),
    "tensor.concatenate": _lift(lambda op, *xs: np.concatenate(xs, op.attributes["dimension"])),
    "tensor.pad": _lift(_pad),
    "tensor.reverse": _lift(lambda op, x: np.flip(x, tuple(op.attributes["dimensions"]))),
    "tensor.gather": _lift(_gather),
    "tensor.dot_general": _lift(_dot_general),
    "tensor.reduce": _reduce,
    "tensor.scan": _scan,
    "tensor.iterate": _iterate,
    "tensor.attention": _attention,
    "tensor.kernel_call": _kernel_call,
    "builtin.call": _call,
}
