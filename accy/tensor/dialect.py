"""The `tensor` dialect: registry rows, type rules and the numbered constraints of
docs/tensor-ops.md.

Each op has a *rule* `rule(in_types, attrs, out_types)` that checks the operands and attributes
and returns the result types; `out_types` is None when the caller wants them inferred (ops whose
result type is a free choice, such as `convert` or `reshape`, then need it given). Rules raise
`accy.ShapeError` / `accy.TypeError` whose message starts with the constraint number. The
verifier calls the same rule (through `infer` or `verify`), so the frontend and the verifier
cannot disagree.
"""
import re

from accy._core.attributes import DenseAttr, DictAttr, FloatAttr
from accy._core.registry import (OpDef, VARIADIC, register_dialect, PURE, COMMUTATIVE,
                                 ELEMENTWISE, SAME_OPERANDS_AND_RESULT_TYPE, TERMINATOR,
                                 SINGLE_BLOCK, CONSTANT)
from accy._core.types import DTYPES, FLOAT_DTYPES, INT_DTYPES, TensorType
from accy.errors import ShapeError, TypeError as DTypeError
from accy.tensor.folds import fold_for
from accy.tensor.patterns import PATTERNS
from accy.tensor.semantics import DOT_DIMENSIONS, accumulation_type, default_compare_type

NUMERIC = FLOAT_DTYPES | INT_DTYPES
ANY = frozenset(DTYPES)
INT_OR_BOOL = INT_DTYPES | {"i1"}
_CLASS_NAMES = {ANY: "any dtype", NUMERIC: "a numeric dtype", FLOAT_DTYPES: "a float dtype",
                INT_DTYPES: "an integer dtype", INT_OR_BOOL: "an integer or i1 dtype"}

# name -> (dtype class, commutative)
BINARY = {
    "add": (ANY, True), "subtract": (NUMERIC, False), "multiply": (ANY, True),
    "divide": (NUMERIC, False), "remainder": (NUMERIC, False), "power": (NUMERIC, False),
    "maximum": (ANY, True), "minimum": (ANY, True), "and": (INT_OR_BOOL, True),
    "or": (INT_OR_BOOL, True), "xor": (INT_OR_BOOL, True), "shift_left": (INT_DTYPES, False),
    "shift_right_arithmetic": (INT_DTYPES, False), "shift_right_logical": (INT_DTYPES, False),
    "atan2": (FLOAT_DTYPES, False),
}
FLOAT_UNARY = ("exp", "exp2", "log", "log1p", "expm1", "sqrt", "rsqrt", "tanh", "logistic", "erf",
               "sin", "cos", "floor", "ceil", "round_nearest_even", "cbrt", "tan",
               "round_nearest_afz")
UNARY = {"negate": NUMERIC, "abs": NUMERIC, "sign": NUMERIC, "not": INT_OR_BOOL,
         "popcnt": INT_DTYPES, "count_leading_zeros": INT_DTYPES,
         **{name: FLOAT_DTYPES for name in FLOAT_UNARY}}
DIRECTIONS = ("EQ", "NE", "LT", "LE", "GT", "GE")
COMPARE_TYPES = ("FLOAT", "SIGNED", "UNSIGNED")
GATHER_MODES = ("take", "along_axis")
REGION_OPS = ("tensor.reduce", "tensor.scan", "tensor.iterate", "tensor.attention",
              "tensor.sort", "tensor.scatter", "tensor.case")


def _shape_error(code, message):
    return ShapeError(f"({code}) {message}")


def _dtype_error(code, message):
    return DTypeError(f"({code}) {message}")


def scalar(dtype):
    return TensorType(dtype, ())


def _tensor(t, what="operand"):
    if not isinstance(t, TensorType):
        raise DTypeError(f"the {what} must be a tensor, got {t}")
    return t


def _dims(attrs, name, default=None):
    value = attrs.get(name, default)
    if not isinstance(value, tuple) or not all(type(v) is int for v in value):
        raise _shape_error("attr", f"'{name}' must be a list of integers, got {value!r}")
    return value


def _int(attrs, name, default=None):
    value = attrs.get(name, default)
    if type(value) is not int:
        raise _shape_error("attr", f"'{name}' must be an integer, got {value!r}")
    return value


def _one_type(ins, what="operands"):
    first = ins[0]
    for t in ins[1:]:
        if t != first:
            raise DTypeError(f"{what} must have one type, got {first} and {t}")
    return first


def _check_class(code, dtype, allowed):
    if dtype not in allowed:
        raise _dtype_error(code, f"expects {_CLASS_NAMES[allowed]}, got {dtype}")


def _declared(outs, what):
    if outs is None:
        raise DTypeError(f"the result type is not implied by the operands; give the {what}")
    return outs


# ---- rules -------------------------------------------------------------------------------------

def _binary(allowed):
    def rule(ins, attrs, outs):
        t = _tensor(_one_type(ins))
        _check_class("C1", t.dtype, allowed)
        return (t,)
    return rule


def _unary(allowed):
    def rule(ins, attrs, outs):
        t = _tensor(ins[0])
        _check_class("C1", t.dtype, allowed)
        return (t,)
    return rule


def _compare(ins, attrs, outs):
    t = _tensor(_one_type(ins))
    if attrs.get("comparison_direction") not in DIRECTIONS:
        raise _shape_error("C2", f"comparison_direction must be one of {', '.join(DIRECTIONS)}, "
                                 f"got {attrs.get('comparison_direction')!r}")
    kind = attrs.get("compare_type", default_compare_type(t.dtype))
    if kind not in COMPARE_TYPES or (kind == "FLOAT") != (t.dtype in FLOAT_DTYPES):
        raise _dtype_error("C3", f"compare_type {kind!r} does not fit {t.dtype}")
    return (TensorType("i1", t.shape),)


def _is_finite(ins, attrs, outs):
    t = _tensor(ins[0])
    _check_class("C1", t.dtype, FLOAT_DTYPES)
    return (TensorType("i1", t.shape),)


def _select(ins, attrs, outs):
    pred, a, b = map(_tensor, ins)
    if pred.dtype != "i1" or pred.shape not in ((), a.shape):
        raise _dtype_error("C4", f"pred must be i1 of rank 0 or shape {a.shape}, got {pred}")
    if a != b:
        raise _dtype_error("C5", f"on_true and on_false must have one type, got {a} and {b}")
    return (a,)


def _clamp(ins, attrs, outs):
    lo, x, hi = map(_tensor, ins)
    for bound in (lo, hi):
        if bound.dtype != x.dtype or bound.shape not in ((), x.shape):
            raise _dtype_error("C6", f"min and max must be {x.dtype} of rank 0 or shape "
                                     f"{x.shape}, got {bound}")
    return (x,)


def _convert(ins, attrs, outs):
    x = _tensor(ins[0])
    (y,) = _declared(outs, "result dtype")
    if _tensor(y, "result").shape != x.shape:
        raise _shape_error("C7", f"result shape {y.shape} differs from the operand's {x.shape}")
    return (y,)


def _bitcast_convert(ins, attrs, outs):
    x = _tensor(ins[0])
    (y,) = _declared(outs, "result dtype")
    if _tensor(y, "result").shape != x.shape:
        raise _shape_error("C48", f"result shape {y.shape} differs from the operand's {x.shape}")
    if bit_width(y.dtype) != bit_width(x.dtype):
        raise _dtype_error("C49", f"cannot bitcast {x.dtype} ({bit_width(x.dtype)} bits) to "
                                  f"{y.dtype} ({bit_width(y.dtype)} bits): only dtypes of one "
                                  f"bit width (StableHLO's reshaping of the last dim between "
                                  f"widths is not supported)")
    return (y,)


def bit_width(dtype):
    """The bits of one element of `dtype` (i1: 1)."""
    return DTYPES[dtype][1]


def _constant(ins, attrs, outs):
    value = attrs.get("value")
    if not isinstance(value, DenseAttr):
        raise DTypeError(f"'value' must be a dense attribute, got {value!r}")
    return (value.type,)


def _iota(ins, attrs, outs):
    (y,) = _declared(outs, "result type")
    if _tensor(y, "result").rank < 1 or y.dtype not in NUMERIC:
        raise _dtype_error("C8", f"the result must have rank >= 1 and a numeric dtype, got {y}")
    d = _int(attrs, "iota_dimension")
    if not 0 <= d < y.rank:
        raise _shape_error("C9", f"iota_dimension {d} is out of range for rank {y.rank}")
    return (y,)


def _reshape(ins, attrs, outs):
    x = _tensor(ins[0])
    (y,) = _declared(outs, "result shape")
    if _tensor(y, "result").dtype != x.dtype or y.num_elements != x.num_elements:
        raise _shape_error("C10", f"cannot reshape {x} to {y} (dtype and element count must "
                                  f"be kept)")
    return (y,)


def _transpose(ins, attrs, outs):
    x = _tensor(ins[0])
    perm = _dims(attrs, "permutation")
    if sorted(perm) != list(range(x.rank)):
        raise _shape_error("C11", f"permutation {list(perm)} is not a permutation of "
                                  f"0..{x.rank - 1}")
    return (TensorType(x.dtype, tuple(x.shape[p] for p in perm)),)


def _broadcast_in_dim(ins, attrs, outs):
    x = _tensor(ins[0])
    (y,) = _declared(outs, "result shape")
    dims = _dims(attrs, "broadcast_dimensions")
    if _tensor(y, "result").dtype != x.dtype or len(dims) != x.rank:
        raise _shape_error("C12", f"broadcast_dimensions {list(dims)} must have one entry per "
                                  f"operand dim ({x.rank}) and the dtype must be kept")
    if any(not 0 <= d < y.rank for d in dims) or any(a >= b for a, b in zip(dims, dims[1:])):
        raise _shape_error("C13", f"broadcast_dimensions {list(dims)} must be increasing and "
                                  f"< {y.rank}")
    for i, d in enumerate(dims):
        if x.shape[i] not in (1, y.shape[d]):
            raise _shape_error("C14", f"operand dim {i} of size {x.shape[i]} cannot broadcast "
                                      f"to {y.shape[d]}")
    return (y,)


def _slice(ins, attrs, outs):
    x = _tensor(ins[0])
    start, limit = _dims(attrs, "start_indices"), _dims(attrs, "limit_indices")
    strides = _dims(attrs, "strides", (1,) * x.rank)
    if not len(start) == len(limit) == len(strides) == x.rank:
        raise _shape_error("C15", f"start_indices, limit_indices and strides need {x.rank} "
                                  f"entries each")
    shape = []
    for s, l, st, d in zip(start, limit, strides, x.shape):
        if not (0 <= s <= l <= d and st >= 1):
            raise _shape_error("C16", f"slice [{s}:{l}:{st}] is out of range for a dim of {d}")
        shape.append(-(-(l - s) // st))
    return (TensorType(x.dtype, shape),)


def _concatenate(ins, attrs, outs):
    if not ins:
        raise _shape_error("C17", "needs at least one operand")
    ins = [_tensor(t) for t in ins]
    first, dim = ins[0], _int(attrs, "dimension")
    if not 0 <= dim < first.rank or any(t.dtype != first.dtype or t.rank != first.rank
                                        for t in ins):
        raise _shape_error("C17", f"operands must share dtype and rank, with 0 <= dimension "
                                  f"({dim}) < rank")
    for t in ins:
        if any(a != b for i, (a, b) in enumerate(zip(t.shape, first.shape)) if i != dim):
            raise _shape_error("C18", f"shapes {first.shape} and {t.shape} differ outside "
                                      f"dimension {dim}")
    shape = list(first.shape)
    shape[dim] = sum(t.shape[dim] for t in ins)
    return (TensorType(first.dtype, shape),)


def _pad(ins, attrs, outs):
    x, value = _tensor(ins[0]), _tensor(ins[1])
    if value != scalar(x.dtype):
        raise _dtype_error("C19", f"padding_value must be {scalar(x.dtype)}, got {value}")
    low, high = _dims(attrs, "edge_padding_low"), _dims(attrs, "edge_padding_high")
    interior = _dims(attrs, "interior_padding", (0,) * x.rank)
    if not len(low) == len(high) == len(interior) == x.rank or any(i < 0 for i in interior):
        raise _shape_error("C20", f"padding lists need {x.rank} entries and interior >= 0")
    shape = [lo + hi + d + max(d - 1, 0) * it
             for lo, hi, it, d in zip(low, high, interior, x.shape)]
    if any(d < 0 for d in shape):
        raise _shape_error("C20", f"padding gives a negative dim: {shape}")
    return (TensorType(x.dtype, shape),)


def _reverse(ins, attrs, outs):
    x = _tensor(ins[0])
    dims = _dims(attrs, "dimensions")
    if len(set(dims)) != len(dims) or any(not 0 <= d < x.rank for d in dims):
        raise _shape_error("C21", f"dimensions {list(dims)} must be unique and < {x.rank}")
    return (x,)


def _gather(ins, attrs, outs):
    x, idx = _tensor(ins[0]), _tensor(ins[1], "indices")
    axis, mode = _int(attrs, "axis"), attrs.get("mode", "take")
    if idx.dtype not in INT_DTYPES:
        raise _shape_error("C22", f"indices must have an integer dtype, got {idx.dtype}")
    if not 0 <= axis < x.rank:
        raise _shape_error("C22", f"axis {axis} is out of range for rank {x.rank}")
    if mode not in GATHER_MODES:
        raise _shape_error("C22", f"mode must be take or along_axis, got {mode!r}")
    if x.shape[axis] == 0 and idx.num_elements:
        raise _shape_error("C22", f"cannot gather from the empty axis {axis}")
    if mode == "take":
        return (TensorType(x.dtype, x.shape[:axis] + idx.shape + x.shape[axis + 1:]),)
    if idx.rank != x.rank or any(a != b for i, (a, b) in enumerate(zip(idx.shape, x.shape))
                                 if i != axis):
        raise _shape_error("C23", f"along_axis indices {idx.shape} must match {x.shape} "
                                  f"except at axis {axis}")
    return (TensorType(x.dtype, idx.shape),)


def _start_indices(starts, rank):
    """C50: one rank-0 start index per dim, all of one integer dtype."""
    dtypes = {t.dtype for t in starts}
    if len(starts) != rank or any(t.rank for t in starts) or len(dtypes) > 1 or \
            not dtypes <= INT_DTYPES:
        raise _shape_error("C50", f"needs {rank} start indices, rank-0 tensors of one integer "
                                  f"dtype; got ({', '.join(map(str, starts))})")


def _dynamic_slice(ins, attrs, outs):
    x = _tensor(ins[0])
    _start_indices([_tensor(t, "start index") for t in ins[1:]], x.rank)
    sizes = _dims(attrs, "slice_sizes")
    if len(sizes) != x.rank or any(not 0 <= s <= d for s, d in zip(sizes, x.shape)):
        raise _shape_error("C51", f"slice_sizes {list(sizes)} needs {x.rank} entries within "
                                  f"the dims {list(x.shape)}")
    return (TensorType(x.dtype, sizes),)


def _dynamic_update_slice(ins, attrs, outs):
    x, update = _tensor(ins[0]), _tensor(ins[1], "update")
    if update.dtype != x.dtype or update.rank != x.rank or \
            any(u > d for u, d in zip(update.shape, x.shape)):
        raise _dtype_error("C52", f"the update must have {x.dtype}, rank {x.rank} and dims "
                                  f"within {list(x.shape)}, got {update}")
    _start_indices([_tensor(t, "start index") for t in ins[2:]], x.rank)
    return (x,)


# dtype -> the dtypes that hold every one of its values (what an accumulation may be)
HOLDS = {"f16": ("f16", "f32", "f64"), "bf16": ("bf16", "f32", "f64"), "f32": ("f32", "f64"),
         "f64": ("f64",), "u8": ("u8", "i16", "i32", "i64"), "i8": ("i8", "i16", "i32", "i64"),
         "i16": ("i16", "i32", "i64"), "i32": ("i32", "i64"), "i64": ("i64",)}


def _dot_general(ins, attrs, outs):
    lhs, rhs = _tensor(ins[0], "lhs"), _tensor(ins[1], "rhs")
    lb, rb, lc, rc = (_dims(attrs, name, ()) for name in DOT_DIMENSIONS)
    if len(lb) != len(rb) or len(lc) != len(rc):
        raise _shape_error("C24", "batching and contracting lists must pair up")
    for dims, t, side in ((lb + lc, lhs, "lhs"), (rb + rc, rhs, "rhs")):
        if len(set(dims)) != len(dims) or any(not 0 <= d < t.rank for d in dims):
            raise _shape_error("C25", f"{side} dims {list(dims)} must be unique and < {t.rank}")
    for a, b in zip(lb + lc, rb + rc):
        if lhs.shape[a] != rhs.shape[b]:
            raise _shape_error("C26", f"lhs dim {a} ({lhs.shape[a]}) and rhs dim {b} "
                                      f"({rhs.shape[b]}) must have one size")
    if lhs.dtype != rhs.dtype or lhs.dtype == "i1":
        raise _dtype_error("C27", f"lhs and rhs must share a numeric dtype, got {lhs.dtype} "
                                  f"and {rhs.dtype}")
    shape = (tuple(lhs.shape[d] for d in lb)
             + tuple(s for i, s in enumerate(lhs.shape) if i not in lb + lc)
             + tuple(s for i, s in enumerate(rhs.shape) if i not in rb + rc))
    dtype = lhs.dtype if outs is None else _tensor(outs[0], "result").dtype
    if (dtype in FLOAT_DTYPES) != (lhs.dtype in FLOAT_DTYPES) or dtype == "i1":
        raise _dtype_error("C27", f"result dtype {dtype} is not of the operands' class")
    if outs is not None and outs[0].shape != shape:
        raise _shape_error("C28", f"result shape must be {shape}, got {outs[0].shape}")
    acc = accumulation_type(attrs, lhs.dtype)
    if acc not in HOLDS.get(lhs.dtype, ()):
        raise _dtype_error("C29", f"accumulation_type {acc!r} must hold every {lhs.dtype} value "
                                  f"(one of {', '.join(HOLDS[lhs.dtype])})")
    return (TensorType(dtype, shape),)


def _reduce(ins, attrs, outs):
    n = len(ins) // 2
    if len(ins) % 2 or n == 0:
        raise _shape_error("C30", f"needs inputs and as many inits, got {len(ins)} operands")
    xs, inits = [_tensor(t) for t in ins[:n]], [_tensor(t, "init") for t in ins[n:]]
    for x, init in zip(xs, inits):
        if x.shape != xs[0].shape or init != scalar(x.dtype):
            raise _shape_error("C31", f"inputs must share a shape and each init be the rank-0 "
                                      f"type of its input; got {x} with init {init}")
    dims = _dims(attrs, "dimensions")
    rank = xs[0].rank
    if len(set(dims)) != len(dims) or any(not 0 <= d < rank for d in dims):
        raise _shape_error("C32", f"dimensions {list(dims)} must be unique and < {rank}")
    shape = tuple(s for i, s in enumerate(xs[0].shape) if i not in dims)
    return tuple(TensorType(x.dtype, shape) for x in xs)


def _scan(ins, attrs, outs):
    x, init = _tensor(ins[0]), _tensor(ins[1], "init")
    d = _int(attrs, "dimension")
    if init != scalar(x.dtype) or not 0 <= d < x.rank:
        raise _shape_error("C34", f"init must be {scalar(x.dtype)} (got {init}) and 0 <= "
                                  f"dimension ({d}) < {x.rank}")
    for flag in ("exclusive", "reverse"):
        if type(attrs.get(flag, False)) is not bool:
            raise _shape_error("attr", f"'{flag}' must be a bool")
    return (x,)


def _sort(ins, attrs, outs):
    xs = [_tensor(t) for t in ins]
    d = _int(attrs, "dimension")
    if not xs or any(x.shape != xs[0].shape for x in xs) or not 0 <= d < xs[0].rank:
        raise _shape_error("C53", f"needs operands of one shape, rank >= 1, and 0 <= dimension "
                                  f"({d}) < rank; got ({', '.join(map(str, xs))})")
    if type(attrs.get("is_stable", True)) is not bool:
        raise _shape_error("attr", "'is_stable' must be a bool")
    return tuple(xs)


def _scatter(ins, attrs, outs):
    x, idx, updates = _tensor(ins[0]), _tensor(ins[1], "indices"), _tensor(ins[2], "updates")
    axis = _int(attrs, "axis")
    if idx.dtype not in INT_DTYPES or not 0 <= axis < x.rank:
        raise _shape_error("C55", f"indices must have an integer dtype (got {idx.dtype}) and "
                                  f"0 <= axis ({axis}) < {x.rank}")
    want = TensorType(x.dtype, x.shape[:axis] + idx.shape + x.shape[axis + 1:])
    if updates != want:
        raise _shape_error("C56", f"updates must be {want}, got {updates}")
    return (x,)


def _case(ins, attrs, outs):
    index = _tensor(ins[0], "index")
    if index.rank or index.dtype not in INT_DTYPES:
        raise _dtype_error("C58", f"the index must be a rank-0 integer tensor, got {index}")
    return tuple(_declared(outs, "result types"))


def _iterate(ins, attrs, outs):
    if outs is None:
        return tuple(ins)
    if tuple(outs) != tuple(ins):
        raise DTypeError(f"(C36) results {list(map(str, outs))} must have the operand types "
                         f"{list(map(str, ins))}")
    return tuple(ins)


# float -> float conversions that keep every value: a sum of exps taken in the wider dtype
# still sums the exps themselves (a raised attention's sum_dtype)
EXACT_WIDENING = frozenset({("f16", "f32"), ("bf16", "f32"), ("f16", "f64"), ("bf16", "f64"),
                            ("f32", "f64")})
ATTENTION_COMPUTE = {"f16": "f32", "bf16": "f32"}     # low-precision attention computes in f32


def _attention(ins, attrs, outs):
    if "scores" in attrs:
        return _raised_attention(ins, attrs, outs)
    q, k, v = (_tensor(t, n) for t, n in zip(ins, "qkv"))
    if any(t.rank != 4 for t in (q, k, v)) or not (q.dtype == k.dtype == v.dtype) or \
            q.dtype not in FLOAT_DTYPES:
        raise _dtype_error("C39", f"q, k, v must be rank 4 of one float dtype, got {q}, {k}, {v}")
    (b, h, sq, d), (kb, kh, sk, kd), (vb, vh, vs, dv) = q.shape, k.shape, v.shape
    if not (b == kb == vb and h == kh == vh and sk == vs and d == kd):
        raise _shape_error("C40", f"shapes do not fit: q {q.shape}, k {k.shape}, v {v.shape}")
    if len(ins) == 4:
        mask = _tensor(ins[3], "mask")
        full = (b, h, sq, sk)
        dtypes = {q.dtype, ATTENTION_COMPUTE.get(q.dtype, q.dtype)}
        if mask.dtype not in dtypes or mask.rank != 4 or any(m not in (1, f)
                                                             for m, f in zip(mask.shape, full)):
            raise _shape_error("C41", f"mask must be {' or '.join(sorted(dtypes))} with dims 1 "
                                      f"or {full}, got {mask}")
    if not isinstance(attrs.get("scale"), FloatAttr) or type(attrs.get("causal", False)) is not bool:
        raise _shape_error("attr", "needs a float 'scale' and a bool 'causal'")
    return (TensorType(q.dtype, (b, h, sq, dv)),)


def attention_score_type(ins, attrs):
    """The type of the scores (q·k by the `scores` dot) of a raised attention (checked: C45)."""
    q, k = _tensor(ins[0], "q"), _tensor(ins[1], "k")
    dims = _dict(attrs, "scores")
    dtype = attrs.get("score_dtype")
    if dims is None or not isinstance(dtype, str) or dtype not in FLOAT_DTYPES \
            or q.dtype not in FLOAT_DTYPES:
        raise _shape_error("C45", "a raised attention needs a 'scores' dict of dot_general "
                                  "dimensions and a float 'score_dtype', on float q and k")
    nb = q.rank - 2
    batch = tuple(range(nb))
    if nb < 0 or k.rank != q.rank or tuple(dims.get(n, ()) for n in DOT_DIMENSIONS[:3]) != \
            (batch, batch, (nb + 1,)) or tuple(dims.get(DOT_DIMENSIONS[3], ())) not in \
            ((nb,), (nb + 1,)):
        raise _shape_error("C45", f"the scores dot must batch the leading {nb} dims and "
                                  f"contract q's last dim with one of k's last two, got {dims}")
    return _dot_general((q, k), dims, (TensorType(dtype, _dot_shape(q, k, dims)),))[0]


def attention_dims(op):
    """(batch dims, seq_q, seq_k, head dim, value dim) of a composite or raised attention."""
    q = op.operand_types[0]
    *batch, sq, d = q.shape
    if "scores" in op.attributes:
        sk = attention_score_type(op.operand_types, dict(op.attributes)).shape[-1]
    else:
        sk = op.operand_types[1].shape[-2]
    return tuple(batch), sq, sk, d, op.result_types[0].shape[-1]


def _dict(attrs, name):
    value = attrs.get(name)
    return dict(value.items()) if isinstance(value, DictAttr) else None


def _dot_shape(lhs, rhs, dims):
    lb, rb, lc, rc = (tuple(dims.get(n, ())) for n in DOT_DIMENSIONS)
    return (tuple(lhs.shape[d] for d in lb)
            + tuple(s for i, s in enumerate(lhs.shape) if i not in lb + lc)
            + tuple(s for i, s in enumerate(rhs.shape) if i not in rb + rc))


def _raised_attention(ins, attrs, outs):
    """A decomposed pattern raised into one op: the scores dot, the `score` region (scores ->
    z), softmax over the last dim (the sum in `sum_dtype` when given), p converted to v's
    dtype, the `values` dot (C45, C46; its region: C47)."""
    if len(ins) != 3 or "scale" in attrs or "causal" in attrs:
        raise _shape_error("C45", "a raised attention takes q, k, v and no scale, mask or "
                                  "causal")
    scores = attention_score_type(ins, attrs)
    v = _tensor(ins[2], "v")
    dims = _dict(attrs, "values")
    nb = scores.rank - 2
    batch = tuple(range(nb))
    if dims is None or tuple(dims.get(n, ()) for n in DOT_DIMENSIONS[:3]) != \
            (batch, batch, (nb + 1,)) or v.rank != scores.rank or \
            tuple(dims.get(DOT_DIMENSIONS[3], ())) not in ((nb,), (nb + 1,)):
        raise _shape_error("C46", f"the values dot must batch the leading {nb} dims and "
                                  f"contract the keys with one of v's last two, got {dims}")
    dtype = attrs.get("value_dtype")
    if dtype not in FLOAT_DTYPES:
        raise _shape_error("C46", f"'value_dtype' must be a float dtype, got {dtype!r}")
    p = TensorType(v.dtype, scores.shape)
    return _dot_general((p, v), dims, (TensorType(dtype, _dot_shape(p, v, dims)),))


def _attention_regions(op):
    """The composite has no region; the raised form one, `score`: scores -> z (C47)."""
    raised = "scores" in op.attributes
    if len(op.regions) != int(raised):
        return f"(C47) a{' raised' if raised else ' composite'} attention holds " \
               f"{int(raised)} regions, got {len(op.regions)}"
    if not raised:
        return None
    scores = attention_score_type(op.operand_types, dict(op.attributes))
    block = op.regions[0].blocks[0] if len(op.regions[0].blocks) == 1 else None
    last = block.last_op if block is not None else None
    z = last.operand_types if last is not None and last.name == "tensor.yield" else ()
    if len(z) != 1 or z[0].shape != scores.shape or z[0].dtype not in FLOAT_DTYPES:
        return f"(C47) the score block yields one float tensor of the scores' shape " \
               f"{scores.shape}"
    sum_dtype = op.attributes.get("sum_dtype", z[0].dtype)
    if sum_dtype != z[0].dtype and (z[0].dtype, sum_dtype) not in EXACT_WIDENING:
        return f"(C47) 'sum_dtype' must be the scores' dtype {z[0].dtype} or a float dtype " \
               f"that holds every {z[0].dtype} value, got {sum_dtype!r}"
    return _body_signature(op.regions[0], (scores,), z, "C47", "score")


def _kernel_call(ins, attrs, outs):
    outs = _declared(outs, "result types")
    ptx, kernel = attrs.get("ptx"), attrs.get("kernel")
    params = _entry_params(ptx, kernel) if isinstance(ptx, str) and isinstance(kernel, str) \
        else None
    if params is None:
        raise _shape_error("C42", f"'kernel' ({kernel!r}) must name a .entry of the 'ptx' text")
    if params != len(ins) + len(outs):
        raise _shape_error("C42", f".entry {kernel} takes {params} parameters; the call passes "
                                  f"{len(ins)} operands and {len(outs)} results")
    grid, block = attrs.get("grid"), attrs.get("block")
    shared = attrs.get("shared_bytes", 0)
    ok = all(isinstance(g, tuple) and len(g) == 3 and all(type(x) is int and 1 <= x <= hi
                                                        for x, hi in zip(g, limits))
             for g, limits in ((grid, GRID_LIMITS), (block, BLOCK_LIMITS)))
    if not ok or block[0] * block[1] * block[2] > 1024 or type(shared) is not int or shared < 0:
        raise _shape_error("C43", f"grid must be 3 integers in [1, {GRID_LIMITS}], block 3 in "
                                  f"[1, {BLOCK_LIMITS}] with at most 1024 threads, "
                                  f"shared_bytes >= 0; got {grid}, {block}, {shared}")
    return tuple(outs)


GRID_LIMITS = (2**31 - 1, 65535, 65535)     # CUDA's launch limits, per dimension
BLOCK_LIMITS = (1024, 1024, 64)
_ENTRY = r"\.entry\s+{}\s*\(([^)]*)\)"


def _entry_params(ptx, kernel):
    """How many parameters `.entry kernel(...)` declares in `ptx`, or None without one."""
    found = re.search(_ENTRY.format(re.escape(kernel)), ptx) if kernel else None
    return None if found is None else len(re.findall(r"\.param\b", found.group(1)))


# ---- region checks (after the rule) -------------------------------------------------------------

def _body_signature(region, arg_types, yield_types, code, what):
    """The one block of `region` takes `arg_types` and yields `yield_types`."""
    blocks = region.blocks
    if len(blocks) != 1:
        return f"({code}) the {what} region must hold one block"
    block = blocks[0]
    args = tuple(a.type for a in block.arguments)
    if args != tuple(arg_types):
        return (f"({code}) the {what} block must take ({', '.join(map(str, arg_types))}), "
                f"got ({', '.join(map(str, args))})")
    last = block.last_op
    if last is None or last.name != "tensor.yield":
        return f"({code}) the {what} block must end with tensor.yield"
    if tuple(last.operand_types) != tuple(yield_types):
        return (f"({code}) the {what} block must yield ({', '.join(map(str, yield_types))}), "
                f"got ({', '.join(map(str, last.operand_types))})")
    return None


def _reduce_regions(op):
    inits = op.operand_types[len(op.operand_types) // 2:]
    return _body_signature(op.regions[0], inits + inits, inits, "C33", "body")


def _scan_regions(op):
    init = op.operand_types[1]
    return _body_signature(op.regions[0], (init, init), (init,), "C35", "body")


def _sort_regions(op):
    pairs = [scalar(t.dtype) for t in op.operand_types for _ in range(2)]
    return _body_signature(op.regions[0], pairs, (scalar("i1"),), "C54", "comparator")


def _scatter_regions(op):
    t = scalar(op.operand_types[0].dtype)
    return _body_signature(op.regions[0], (t, t), (t,), "C57", "update")


def _case_regions(op):
    if not len(op.regions):
        return "(C59) a case needs at least one branch region"
    for region in op.regions:
        found = _body_signature(region, (), op.result_types, "C59", "branch")
        if found:
            return found
    return None


def _iterate_regions(op):
    carried = op.operand_types
    return (_body_signature(op.regions[0], carried, (scalar("i1"),), "C37", "cond")
            or _body_signature(op.regions[1], carried, carried, "C38", "body"))


def _yield_parent(op):
    parent = op.parent_op
    if parent is None or parent.name not in REGION_OPS:
        return ("(C44) must end a region of tensor.reduce, tensor.scan, tensor.iterate, "
                "tensor.attention, tensor.sort, tensor.scatter or tensor.case")
    return None


# ---- rows ---------------------------------------------------------------------------------------

def _verifier(rule, infers, regions):
    """OpDef.verify: the rule against the declared types (ops it cannot infer), then regions."""
    def verify(op):
        if not infers:
            try:
                declared = op.result_types
                if tuple(rule(op.operand_types, dict(op.attributes), declared)) != declared:
                    return "result types differ from what the operands imply"
            except (ShapeError, DTypeError) as e:
                return str(e)
        return regions(op) if regions else None
    return verify


RULES = {}      # op name -> rule(in_types, attrs, out_types) -> result types
INFERS = set()  # ops whose result types follow from operands and attributes alone

# (op name, in types, attributes key, out types) -> result types, of rules that passed: a rule
# is a pure function of its arguments, and the builder, the verifier and each trace of the
# same shapes ask it the same questions. Cleared when full.
_RESULTS = {}
MAX_CACHED_RESULTS = 1 << 14
# attribute values a key holds as they are: small, immutable, and equal only when the rule
# cannot tell them apart (a tuple is keyed only when all of its items are ints)
_KEYED = frozenset({bool, int, str, tuple, FloatAttr, TensorType})
MAX_KEYED_TEXT = 256        # longer strings (a kernel_call's PTX) are not kept alive by a key


def _attributes_key(attrs):
    """A hashable key for `attrs` that tells apart what the rules tell apart (True from 1: the
    value's type is in it), or None when a value is of another kind (a dense constant, a
    dictionary) or large: such ops are not cached."""
    key = []
    for name, value in attrs.items():
        kind = type(value)
        if kind not in _KEYED or kind is tuple and value and set(map(type, value)) != _INT \
                or kind is str and len(value) > MAX_KEYED_TEXT:
            return None
        key.append((name, kind, value))
    return frozenset(key)           # the verifier's copy may list them in another order


_INT = {int}


def _cached(name, rule):
    """`rule` answering each question once: its result types by (in types, attributes, out
    types); errors are not cached (each call raises afresh)."""
    def cached(ins, attrs, outs=None):      # (as OpDef.infer: no declared types)
        akey = _attributes_key(attrs) if attrs else ()
        if akey is None:
            return tuple(rule(ins, attrs, outs))
        key = (name, tuple(ins), akey, None if outs is None else tuple(outs))
        found = _RESULTS.get(key)
        if found is None:
            found = tuple(rule(ins, attrs, outs))
            if len(_RESULTS) >= MAX_CACHED_RESULTS:
                _RESULTS.clear()
            _RESULTS[key] = found
        return found
    cached.__wrapped__ = rule
    return cached


def _row(name, operands, rule, results=1, infers=True, traits=PURE, attributes=None,
         regions=0, region_check=None):
    full = "tensor." + name
    rule = RULES[full] = _cached(full, rule)
    fold = fold_for(name, bool(traits & ELEMENTWISE)) if results == 1 else None
    if infers:
        INFERS.add(full)
    return OpDef(full, operands=operands, results=results, regions=regions,
                 attributes=attributes or {}, traits=traits,
                 infer=rule if infers else None,
                 verify=_verifier(rule, infers, region_check)
                 if (not infers or region_check) else None, fold=fold,
                 canonicalize=PATTERNS.get(name, ()))


_EW = PURE | ELEMENTWISE
_DIMS = (tuple, True)


def _rows():
    rows = [_row(n, 2, _binary(cls), traits=_EW | SAME_OPERANDS_AND_RESULT_TYPE
                 | (COMMUTATIVE if comm else 0)) for n, (cls, comm) in BINARY.items()]
    rows += [_row(n, 1, _unary(cls), traits=_EW | SAME_OPERANDS_AND_RESULT_TYPE)
             for n, cls in UNARY.items()]
    rows += [
        _row("is_finite", 1, _is_finite, traits=_EW),
        _row("compare", 2, _compare, traits=_EW, attributes={
            "comparison_direction": (str, True), "compare_type": (str, False)}),
        _row("select", 3, _select, traits=_EW),
        _row("clamp", 3, _clamp, traits=_EW),
        _row("convert", 1, _convert, infers=False, traits=_EW),
        _row("bitcast_convert", 1, _bitcast_convert, infers=False, traits=_EW),
        _row("constant", 0, _constant, traits=PURE | CONSTANT,
             attributes={"value": (DenseAttr, True)}),
        _row("iota", 0, _iota, infers=False, attributes={"iota_dimension": (int, True)}),
        _row("reshape", 1, _reshape, infers=False),
        _row("transpose", 1, _transpose, attributes={"permutation": _DIMS}),
        _row("broadcast_in_dim", 1, _broadcast_in_dim, infers=False,
             attributes={"broadcast_dimensions": _DIMS}),
        _row("slice", 1, _slice, attributes={"start_indices": _DIMS, "limit_indices": _DIMS,
                                             "strides": (tuple, False)}),
        _row("concatenate", (1, VARIADIC), _concatenate, attributes={"dimension": (int, True)}),
        _row("pad", 2, _pad, attributes={"edge_padding_low": _DIMS, "edge_padding_high": _DIMS,
                                         "interior_padding": (tuple, False)}),
        _row("reverse", 1, _reverse, attributes={"dimensions": _DIMS}),
        _row("gather", 2, _gather, attributes={"axis": (int, True), "mode": (str, False)}),
        _row("dynamic_slice", (1, VARIADIC), _dynamic_slice, attributes={"slice_sizes": _DIMS}),
        _row("dynamic_update_slice", (2, VARIADIC), _dynamic_update_slice),
        _row("dot_general", 2, _dot_general, infers=False, attributes={
            "lhs_batching_dimensions": (tuple, False), "rhs_batching_dimensions": (tuple, False),
            "lhs_contracting_dimensions": (tuple, False),
            "rhs_contracting_dimensions": (tuple, False), "accumulation_type": (str, False)}),
        _row("reduce", (2, VARIADIC), _reduce, results=(1, VARIADIC), regions=1,
             attributes={"dimensions": _DIMS}, traits=PURE | SINGLE_BLOCK,
             region_check=_reduce_regions),
        _row("scan", 2, _scan, regions=1, traits=PURE | SINGLE_BLOCK, attributes={
            "dimension": (int, True), "exclusive": (bool, False), "reverse": (bool, False)},
            region_check=_scan_regions),
        _row("sort", (1, VARIADIC), _sort, results=(1, VARIADIC), regions=1,
             traits=PURE | SINGLE_BLOCK, attributes={"dimension": (int, True),
                                                     "is_stable": (bool, False)},
             region_check=_sort_regions),
        _row("scatter", 3, _scatter, regions=1, traits=PURE | SINGLE_BLOCK,
             attributes={"axis": (int, True)}, region_check=_scatter_regions),
        _row("case", 1, _case, results=(0, VARIADIC), regions=VARIADIC, infers=False,
             traits=PURE | SINGLE_BLOCK, region_check=_case_regions),
        _row("iterate", (0, VARIADIC), _iterate, results=(0, VARIADIC), regions=2, infers=False,
             traits=SINGLE_BLOCK,
             region_check=_iterate_regions),
        _row("attention", (3, 4), _attention, regions=VARIADIC, attributes={
            "scale": (FloatAttr, False), "causal": (bool, False), "scores": (DictAttr, False),
            "score_dtype": (str, False), "values": (DictAttr, False),
            "value_dtype": (str, False), "sum_dtype": (str, False)}, region_check=_attention_regions),
        _row("kernel_call", (0, VARIADIC), _kernel_call, results=(1, VARIADIC), infers=False,
             traits=0, attributes={"ptx": (str, True), "kernel": (str, True),
                                   "grid": (tuple, True), "block": (tuple, True),
                                   "shared_bytes": (int, False)}),
        OpDef("tensor.yield", operands=(0, VARIADIC), traits=TERMINATOR | PURE,
              verify=_yield_parent),
    ]
    return rows


register_dialect("tensor", _rows())


def result_types(name, in_types, attrs, out_types=None):
    """The result types of op `name` (checked), as the verifier will see them."""
    return RULES[name](tuple(in_types), attrs, out_types)
