"""Loops and branches with JAX's semantics: a loop is traced into one `tensor.iterate` (the cond
and body functions are called once, each inside its own region, with Tensors standing for the
loop-carried values), `switch` and `cond` into one `tensor.case` (each branch function called
once inside its own region on the operands). They may use Tensors from the enclosing trace
(regions see values defined above)."""
import numpy as np

from accy._core.types import INT_DTYPES
from accy.errors import ShapeError, TypeError as DTypeError
from accy.frontend.elementwise import add, astype, clip, less, tensor_of
from accy.frontend.tensor import Tensor, as_dtype, default_dtype, emitter, emitting, flatten, \
    lift


def _carried(op, out, types, structured):
    """body_fun's result `out` as values of init_val's `types` (Python numbers take the carried
    dtype); errors speak of init_val as the user wrote it (`structured`: a tuple/list)."""
    leaves = flatten(out)[0]
    if len(leaves) != len(types):
        raise DTypeError(f"'{op}' body_fun must return init_val's structure ({len(types)} "
                         f"values), got {len(leaves)}")
    values = []
    for i, (leaf, t) in enumerate(zip(leaves, types)):
        x = lift(leaf)
        x = x if isinstance(x, Tensor) else as_dtype(x, t.dtype, op)
        if x.value.type != t:
            where = f"init_val[{i}]" if structured else "init_val"
            raise DTypeError(f"'{op}' body_fun returned {x.value.type} for {where}, which is {t}")
        values.append(x.value)
    return values


def _loop(op, init_val, cond, body, hidden=()):
    """One tensor.iterate carrying the `hidden` Tensors (fori_loop's counter), then init_val's
    values. `cond(hidden, val)` is the condition, `body(hidden, val)` gives (hidden, val) anew;
    returns (hidden, val) after the loop."""
    leaves, rebuild = flatten(init_val)
    inits = list(hidden) + [tensor_of(leaf) for leaf in leaves]
    types = [t.value.type for t in inits]
    n = len(hidden)

    def split(values):
        tensors = [Tensor(v) for v in values]
        return tensors[:n], rebuild(tensors[n:])

    def cond_region(e, *values):
        with emitting(e):
            c = lift(cond(*split(values)))
            c = c if isinstance(c, Tensor) else as_dtype(c, "i1", op)
            if c.dtype != "i1" or c.shape != ():
                raise DTypeError(f"'{op}' cond_fun must return a boolean scalar, got "
                                 f"{c.value.type}")
            return c.value

    def body_region(e, *values):
        with emitting(e):
            new_hidden, out = body(*split(values))
            return [t.value for t in new_hidden] + _carried(
                op, out, types[n:], isinstance(init_val, (tuple, list)))

    outs = [Tensor(v) for v in
            emitter().iterate([t.value for t in inits], cond_region, body_region)]
    return outs[:n], rebuild(outs[n:])


def while_loop(cond_fun, body_fun, init_val):
    """`val = init_val; while cond_fun(val): val = body_fun(val)`. `init_val` is a Tensor (or an
    array or Python number) or a tuple/list of them; body_fun returns the same structure and
    types; cond_fun returns a boolean scalar."""
    return _loop("while_loop", init_val, lambda _, val: cond_fun(val),
                 lambda _, val: ((), body_fun(val)))[1]


def _bounds(lower, upper):
    """fori_loop's bounds as Tensors of the dtype it counts in: the bounds' promoted int dtype,
    at least i32 (i64 when a bound is i64 or a Python int outside i32): an i32 counter would
    wrap an i64 bound."""
    bounds, dtypes = [lift(b) for b in (lower, upper)], []
    for bound, b in zip((lower, upper), bounds):
        if isinstance(b, Tensor) and b.ndim:
            raise ShapeError(f"'fori_loop' bounds must be scalars, got shape {b.shape}")
        dtype = b.dtype if isinstance(b, Tensor) else \
            default_dtype(np.asarray(b)) if type(b) is int else None
        if dtype not in INT_DTYPES:
            raise DTypeError(f"'fori_loop' bounds must be integers, got {bound!r}")
        dtypes.append(dtype)
    dtype = "i64" if "i64" in dtypes else "i32"
    return [as_dtype(b, dtype, "fori_loop") for b in bounds]


def fori_loop(lower, upper, body_fun, init_val):
    """`val = init_val; for i in range(lower, upper): val = body_fun(i, val)`, with `i` a Tensor
    carried through the loop, in the dtype of `_bounds`."""
    start, stop = _bounds(lower, upper)

    def body(counter, val):
        (i,) = counter
        return [add(i, 1)], body_fun(i, val)
    return _loop("fori_loop", init_val, lambda counter, _: less(counter[0], stop), body,
                 [start])[1]


def switch(index, branches, *operands):
    """`branches[index](*operands)`, as jax.lax.switch: `index` (an integer scalar) is clamped
    into the branches' range; every branch returns the structure and types of the first."""
    branches = list(branches)
    if not branches:
        raise ShapeError("'switch' needs at least one branch")
    i = lift(index)
    i = i if isinstance(i, Tensor) else as_dtype(i, "i32", "switch")
    if i.ndim or i.dtype not in INT_DTYPES:
        raise DTypeError(f"'switch' index must be an integer scalar, got {i.value.type}")
    i = clip(astype(i, "i32"), 0, len(branches) - 1)
    return _case("switch", i, branches, operands)


def cond(pred, true_fun, false_fun, *operands):
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`, as jax.lax.cond (`pred` a
    boolean or integer scalar; nonzero is true)."""
    p = lift(pred)
    p = p if isinstance(p, Tensor) else as_dtype(p, "i1", "cond")
    if p.ndim:
        raise DTypeError(f"'cond' pred must be a scalar, got {p.value.type}")
    return _case("cond", astype(astype(p, "i1"), "i32"), [false_fun, true_fun], operands)


def _case(op, index, branches, operands):
    structure = []

    def region(fn):
        def build(e):
            with emitting(e):
                leaves, rebuild = flatten(fn(*operands))
                if not structure:
                    structure.append(rebuild)
                return [tensor_of(leaf).value for leaf in leaves]
        return build
    outs = emitter().case(index.value, [region(fn) for fn in branches])
    return structure[0]([Tensor(v) for v in outs])
