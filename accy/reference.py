"""The reference interpreter: runs a tensor-level module with numpy, exactly as
docs/tensor-ops.md ("Numerics") defines each op. It is the oracle every emitted kernel is
checked against, so it favours exactness over speed:

- ops without regions compute what `accy.tensor.semantics` says (the same evaluators the
  folds use): f16/bf16/f32 elementwise math in f64 rounded once, wrapping integers, dot_general
  in f64 rounded once to the accumulation dtype;
- float `sum`/`prod` reductions and scans fold sequentially in row-major order in the op's
  dtype; other reductions are order-independent and use numpy directly;
- `attention` runs its decomposition (`accy.tensor.decompose`); a raised one runs its own
  score block between its scores dot and its softmax.

    outputs = accy.reference.run(module, x, w)      # a tuple of numpy arrays
"""
import numpy as np

import accy.tensor  # noqa: F401  (registers the tensor dialect)
from accy._core.builtin import lookup_symbol
from accy._core.context import Block, Builder, Context
from accy._core.registry import ELEMENTWISE, CONSTANT
from accy._core.types import FLOAT_DTYPES, INT_DTYPES, TensorType, numpy_dtype
from accy.errors import UnsupportedError, ShapeError, TypeError as DTypeError
from accy.tensor import reduce_kind
from accy.tensor.build import Emitter, KIND_OPS
from accy.tensor.decompose import emit_attention, emit_raised_values, emit_scores
from accy.tensor.semantics import EVALUATORS, take_along

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
    return take_along(values, position, -1)[..., 0], take_along(index, position, -1)[..., 0]


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
    combine = EVALUATORS[KIND_OPS[kind]]
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


def _sort(self, op, xs, env):
    """Each element's place in its row: the elements the comparator puts strictly before it
    (before it and not after), plus the earlier ones it ties with (neither strictly goes
    first): a stable sort for a strict weak order, and a place in the row for any comparator.
    The comparator runs once on every (i, j) pair of a row."""
    axis = op.attributes["dimension"]
    rows = [np.moveaxis(x, axis, -1) for x in xs]
    args = [a for r in rows for a in (r[..., :, None], r[..., None, :])]
    shape = rows[0].shape + rows[0].shape[-1:]
    goes_first = _compare_pairs(self, op, [np.broadcast_to(a, shape) for a in args], env)
    swapped = np.swapaxes(goes_first, -1, -2)
    before = goes_first & ~swapped              # before[i, j]: i strictly goes before j
    after = swapped & ~goes_first               # after[i, j]: j strictly goes before i
    n = shape[-1]
    earlier = np.arange(n)[None, :] < np.arange(n)[:, None]        # j < i
    rank = after.sum(-1) + (earlier & ~after & ~before).sum(-1)
    outs = []
    for r in rows:
        out = r.copy()          # a place no element takes (a comparator that is no order)
        np.put_along_axis(out, rank, r, -1)
        outs.append(np.ascontiguousarray(np.moveaxis(out, -1, axis)))
    return outs


def _compare_pairs(self, op, args, env):
    """The comparator's i1 result on whole arrays of operand pairs (element by element when
    its ops are not all elementwise)."""
    block = op.regions[0].entry
    if all(o.has_trait(ELEMENTWISE) or o.has_trait(CONSTANT) or o.name == "tensor.yield"
           for o in block.operations):
        return np.broadcast_to(np.asarray(self.block(block, args, env)[0], bool), args[0].shape)
    out = np.empty(args[0].shape, bool)
    for index in np.ndindex(*out.shape):
        out[index] = bool(self.block(block, [np.asarray(a[index]) for a in args], env)[0])
    return out


def _scatter(self, op, args, env):
    """The update region applied at each index in row-major order of the indices, to whole
    slices (the dims before and after the axis) at once; out-of-range indices are skipped."""
    x, idx, updates = args
    axis = op.attributes["axis"]
    out = np.array(x, copy=True)
    flat = updates.reshape(x.shape[:axis] + (idx.size,) + x.shape[axis + 1:])
    step = self.step_function(op, env)
    for i, k in enumerate(idx.reshape(-1).astype(np.int64)):
        if 0 <= k < x.shape[axis]:
            at = (slice(None),) * axis + (k,)
            out[at] = step([out[at]], [flat[(slice(None),) * axis + (i,)]])[0]
    return [out]


def _case(self, op, args, env):
    """The branch the index names; the last one for an index out of range."""
    index, n = int(args[0]), len(op.regions)
    return [np.asarray(v) for v in self.body(op, index if 0 <= index < n else n - 1, [], env)]


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
    """Run the decomposition on the operands (built once per call in a scratch Context); a
    raised attention's score block runs where it is, on the scores, between its scores dot
    and its softmax (it may read values defined above the op)."""
    a = op.attributes
    if "scores" not in a:
        return _scratch(self, op.operand_types, args, lambda e, *ins: emit_attention(
            e, *ins[:3], mask=ins[3] if len(ins) == 4 else None, scale=a["scale"].value,
            causal=a.get("causal", False)))
    q, k, v = args
    types = op.operand_types
    (s,) = _scratch(self, types[:2], [q, k], lambda e, q, k: emit_scores(e, op, q, k))
    (z,) = self.block(op.regions[0].entry, [s], env)
    z_type = op.regions[0].entry.last_op.operand_types[0]
    return _scratch(self, (z_type, types[2]), [z, v],
                    lambda e, z, v: emit_raised_values(e, op, z, v))


def _scratch(self, types, args, emit):
    """Run what `emit(emitter, *arguments)` builds in a scratch block taking `types`."""
    block = Block.create(Context(), [TensorType(t.dtype, t.shape) for t in types])
    e = Emitter(Builder(block.context).at_end(block))
    e.builder.create("tensor.yield", [emit(e, *block.arguments)])
    return self.block(block, args, {})


def _kernel_call(self, op, args, env):
    raise UnsupportedError(
        f"the reference interpreter cannot run tensor.kernel_call of '{op.attributes['kernel']}' "
        f"(user PTX); run the compiled executable on the GPU or the emulator instead")


def _lift(fn):
    """A handler from a plain `fn(op, *operands) -> array`."""
    return lambda self, op, xs, env: [np.asarray(fn(op, *xs))]


HANDLERS = {
    **{name: _lift(evaluate) for name, evaluate in EVALUATORS.items()},
    "tensor.reduce": _reduce,
    "tensor.scan": _scan,
    "tensor.iterate": _iterate,
    "tensor.sort": _sort,
    "tensor.scatter": _scatter,
    "tensor.case": _case,
    "tensor.attention": _attention,
    "tensor.kernel_call": _kernel_call,
    "builtin.call": _call,
}
