"""Loops with JAX's semantics, traced into one `tensor.iterate`: the cond and body functions are
called once, each inside its own region, with Tensors standing for the loop-carried values. They
may use Tensors from the enclosing trace (regions see values defined above)."""
from accy.errors import TypeError as DTypeError
from accy._core.types import INT_DTYPES
from accy.frontend.elementwise import add, less, tensor_of
from accy.frontend.tensor import Tensor, as_dtype, dtype_of, emitter, emitting, lift


def _structure(value):
    """(leaves, rebuild): a Tensor-like value or a tuple/list of them, and how to rebuild it."""
    if isinstance(value, (tuple, list)):
        kind = type(value) if type(value) in (tuple, list) else tuple
        return list(value), kind
    return [value], lambda leaves: leaves[0]


def _carried(op, leaves, types, what):
    """`leaves` as values of the carried `types` (Python scalars take the carried dtype)."""
    if len(leaves) != len(types):
        raise DTypeError(f"'{op}' {what} returned {len(leaves)} values for {len(types)} "
                         f"loop-carried values")
    values = []
    for i, (leaf, t) in enumerate(zip(leaves, types)):
        x = lift(leaf)
        x = x if isinstance(x, Tensor) else as_dtype(x, t.dtype)
        if x.value.type != t:
            raise DTypeError(f"'{op}' {what} returned {x.value.type} for loop-carried value {i} "
                             f"of type {t}")
        values.append(x.value)
    return values


def _loop(op, cond_fun, body_fun, init_val):
    leaves, rebuild = _structure(init_val)
    inits = [tensor_of(leaf) for leaf in leaves]
    types = [t.value.type for t in inits]

    def cond(e, *values):
        with emitting(e):
            c = lift(cond_fun(rebuild([Tensor(v) for v in values])))
            c = c if isinstance(c, Tensor) else as_dtype(c, "i1")
            if c.dtype != "i1" or c.shape != ():
                raise DTypeError(f"'{op}' cond_fun must return a boolean scalar, got "
                                 f"{c.value.type}")
            return c.value

    def body(e, *values):
        with emitting(e):
            out = body_fun(rebuild([Tensor(v) for v in values]))
            return _carried(op, _structure(out)[0], types, "body_fun")

    outs = emitter().iterate([t.value for t in inits], cond, body)
    return rebuild([Tensor(v) for v in outs])


def while_loop(cond_fun, body_fun, init_val):
    """`val = init_val; while cond_fun(val): val = body_fun(val)`. `init_val` is a Tensor (or an
    array or Python number) or a tuple/list of them; body_fun returns the same structure and
    types; cond_fun returns a boolean scalar."""
    return _loop("while_loop", cond_fun, body_fun, init_val)


def fori_loop(lower, upper, body_fun, init_val):
    """`val = init_val; for i in range(lower, upper): val = body_fun(i, val)`, with `i` an i32
    Tensor carried through the loop."""
    bounds = []
    for bound in (lower, upper):
        b = lift(bound)
        if dtype_of(b) is not int and dtype_of(b) not in INT_DTYPES:
            raise DTypeError(f"'fori_loop' bounds must be integers, got {bound!r}")
        bounds.append(as_dtype(b, "i32"))
    start, stop = bounds
    leaves, rebuild = _structure(init_val)

    def body(state):
        out = body_fun(state[0], rebuild(state[1:]))
        return (add(state[0], 1), *_structure(out)[0])
    result = _loop("fori_loop", lambda state: less(state[0], stop), body, (start, *leaves))
    return rebuild(list(result[1:]))
