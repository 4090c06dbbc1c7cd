"""Building tensor-dialect IR: `Emitter` creates checked ops at a Builder's insertion point, with
the region bodies (reduce, scan, iterate, sort, scatter, case) built from Python callables; `reduce_kind` names a
body that is one of the standard reductions.

The frontend, the attention decomposition and the tests all build IR through this one place, so
every op is checked by its rule when it is created, not only when the module is verified.
"""
import functools

import numpy as np

from accy._core.attributes import DenseAttr
from accy._core.context import Block, Builder, Context
from accy._core.types import FLOAT_DTYPES, TensorType, numpy_dtype, round_float
from accy.errors import ShapeError, TypeError as DTypeError
from accy.tensor.dialect import result_types

# kind -> the binary op of its body
KIND_OPS = {"sum": "tensor.add", "prod": "tensor.multiply", "max": "tensor.maximum",
            "min": "tensor.minimum", "and": "tensor.and", "or": "tensor.or"}
_OP_KINDS = {op: kind for kind, op in KIND_OPS.items()}


def identity(kind, dtype):
    """The init value that makes `kind` a reduction of just the elements."""
    np_dtype = numpy_dtype(dtype)
    if kind in ("max", "min", "argmax", "argmin"):
        low = kind in ("max", "argmax")
        if dtype in FLOAT_DTYPES:
            return np.array(-np.inf if low else np.inf, np_dtype)
        info = np.iinfo(np_dtype) if dtype != "i1" else None
        if info is None:
            return np.array(not low, np_dtype)
        return np.array(info.min if low else info.max, np_dtype)
    return np.array({"sum": 0, "or": 0, "prod": 1, "and": -1 if dtype != "i1" else 1}[kind]
                    ).astype(np_dtype)


def constant_attr(value, dtype):
    """The DenseAttr of a `dtype` constant holding `value` (a number or an array): floats
    rounded once, also for bf16."""
    array = np.asarray(value)
    if dtype in FLOAT_DTYPES and array.dtype.kind in "fiu":
        array = round_float(array.astype(np.float64), dtype)
    return DenseAttr(array.astype(numpy_dtype(dtype)), dtype)


@functools.lru_cache(maxsize=None)
def identity_attr(kind, dtype):
    """The DenseAttr of `identity(kind, dtype)` (immutable, so made once per kind and dtype)."""
    return constant_attr(identity(kind, dtype), dtype)


class Emitter:
    """Creates tensor ops with `builder` (at its insertion point). Every method returns Values."""

    def __init__(self, builder):
        self.builder = builder
        self.context = builder.context

    def op(self, name, *operands, result_type=None, **attributes):
        """A one-result op; the result type is inferred unless the op needs it given."""
        outs = None if result_type is None else (result_type,)
        (value,) = self.ops(name, operands, outs, attributes)
        return value

    def ops(self, name, operands, result_types_=None, attributes=None, regions=None):
        if attributes:
            attributes = {k: v for k, v in attributes.items() if v is not None}
        operands = list(operands)

        def rule(checked):              # the builder checks the attributes, once, then asks
            try:
                return result_types(name, [v.type for v in operands], checked, result_types_)
            except (ShapeError, DTypeError) as e:
                raise type(e)(f"'{name}' {e}") from None
        return self.builder.create(name, operands, None, attributes, regions, infer=rule).results

    # -- conveniences ------------------------------------------------------------------------
    def constant(self, value, dtype):
        """A constant of `dtype` holding `value` (a number or an array)."""
        return self.op("tensor.constant", value=constant_attr(value, dtype))

    def convert(self, x, dtype):
        if x.type.dtype == dtype:
            return x
        return self.op("tensor.convert", x, result_type=TensorType(dtype, x.type.shape))

    def broadcast(self, x, shape, dims=None):
        """`x` broadcast to `shape`; its dims map to `dims` (default: the trailing ones)."""
        shape = tuple(shape)
        if dims is None:
            dims = tuple(range(len(shape) - x.type.rank, len(shape)))
        if x.type.shape == shape and tuple(dims) == tuple(range(len(shape))):
            return x
        return self.op("tensor.broadcast_in_dim", x, broadcast_dimensions=tuple(dims),
                       result_type=TensorType(x.type.dtype, shape))

    def full(self, value, dtype, shape):
        return self.broadcast(self.constant(value, dtype), shape)

    def reshape(self, x, shape):
        shape = tuple(shape)
        if x.type.shape == shape:
            return x
        return self.op("tensor.reshape", x, result_type=TensorType(x.type.dtype, shape))

    def compare(self, x, y, direction):
        return self.op("tensor.compare", x, y, comparison_direction=direction)

    # -- region ops --------------------------------------------------------------------------
    def _regions(self, op, bodies):
        """Build `op`'s regions, one block each from (arg_types, fn(emitter, *args) -> yielded
        values), then check the region constraints (C33, C35, C37, C38). If a body raises or
        breaks them, the half-built op is erased (as a bad operand creates none) and the error
        goes on, so a caller that catches it can keep building valid IR."""
        try:
            for region, (arg_types, fn) in zip(op.regions, bodies):
                block = region.add_block(list(arg_types))
                inner = Emitter(Builder(self.context).at_end(block))
                results = fn(inner, *block.arguments)
                results = results if isinstance(results, (tuple, list)) else (results,)
                inner.builder.create("tensor.yield", list(results))
            message = op.op_def.verify(op)
            if message:
                raise DTypeError(f"'{op.name}' {message}")
        except BaseException:
            op.erase(force=True)
            raise

    def reduce(self, inputs, inits, dimensions, body):
        """reduce(inputs, inits) with `body(emitter, *accs, *elems) -> new accs`."""
        operands = list(inputs) + list(inits)
        outs = self.ops("tensor.reduce", operands, attributes={"dimensions": tuple(dimensions)})
        self._regions(outs[0].owner, [([v.type for v in inits] * 2, body)])
        return outs

    def reduce_kind(self, x, dimensions, kind):
        """A reduction by a named kind (sum, prod, max, min, and, or) with its identity init."""
        init = self.op("tensor.constant", value=identity_attr(kind, x.type.dtype))
        return self.reduce([x], [init], dimensions, kind_body(kind))[0]

    def argreduce(self, x, dimension, kind, index_dtype="i32"):
        """(values, indices) of the max (`argmax`) or min (`argmin`) along `dimension`; ties
        and NaN pick the first index, as numpy does."""
        index = self.op("tensor.iota", iota_dimension=dimension,
                        result_type=TensorType(index_dtype, x.type.shape))
        inits = [self.op("tensor.constant", value=identity_attr(kind, x.type.dtype)),
                 self.constant(0, index_dtype)]
        return self.reduce([x, index], inits, (dimension,), arg_body(kind, x.type.dtype))

    def scan(self, x, init, dimension, body, exclusive=False, reverse=False):
        """scan along `dimension`; `body` is a kind name or `body(emitter, acc, elem) -> acc`."""
        if isinstance(body, str):
            body = kind_body(body)
        (out,) = self.ops("tensor.scan", [x, init], attributes={
            "dimension": dimension, "exclusive": bool(exclusive), "reverse": bool(reverse)})
        self._regions(out.owner, [([init.type] * 2, body)])
        return out

    def sort(self, inputs, dimension, comparator):
        """Sort `inputs` together along `dimension`, stably, by `comparator(emitter, lhs0,
        rhs0, lhs1, rhs1, ...) -> i1 value` (true when lhs goes before rhs)."""
        outs = self.ops("tensor.sort", list(inputs), attributes={"dimension": dimension})
        pairs = [TensorType(v.type.dtype, ()) for v in inputs for _ in range(2)]
        self._regions(outs[0].owner, [(pairs, comparator)])
        return outs

    def scatter(self, x, indices, updates, axis, update):
        """x with each slice of `updates` combined into x at `indices` along `axis` by
        `update(emitter, current, new) -> value`, or by the named "set" or "add"."""
        if update == "set":
            update = lambda e, current, new: new     # noqa: E731
        elif update == "add":
            update = kind_body("sum")
        (out,) = self.ops("tensor.scatter", [x, indices, updates], attributes={"axis": axis})
        t = TensorType(x.type.dtype, ())
        self._regions(out.owner, [((t, t), update)])
        return out

    def case(self, index, branches):
        """tensor.case: `branches[index]` (the last one for an index out of range), each
        `fn(emitter) -> values`, built into a block of its own first: the results take the
        types the first branch yields."""
        blocks, yields = [], []
        for fn in branches:
            block = Block.create(self.context, [])
            inner = Emitter(Builder(self.context).at_end(block))
            results = fn(inner)
            results = list(results) if isinstance(results, (tuple, list)) else [results]
            inner.builder.create("tensor.yield", results)
            blocks.append(block)
            yields.append(results)
        types = [v.type for v in yields[0]] if yields else []
        try:
            types = result_types("tensor.case", [index.type], {}, types)
        except (ShapeError, DTypeError) as e:
            for block in blocks:
                block.erase()
            raise type(e)(f"'tensor.case' {e}") from None
        op = self.builder.create("tensor.case", [index], types, None, len(blocks))
        for region, block in zip(op.regions, blocks):
            region.append(block)
        message = op.op_def.verify(op)
        if message:
            op.erase(force=True)
            raise DTypeError(f"'tensor.case' {message}")
        return op.results

    def iterate(self, inits, cond, body):
        """while cond(*vals): vals = body(*vals); `cond(emitter, *vals) -> i1 value`."""
        if not inits:
            raise ShapeError("'tensor.iterate' needs at least one loop-carried value")
        outs = self.ops("tensor.iterate", list(inits))
        types = [v.type for v in inits]
        self._regions(outs[0].owner, [(types, cond), (types, body)])
        return outs


def kind_body(kind):
    op = KIND_OPS[kind]
    return lambda e, acc, x: e.op(op, acc, x)


def arg_body(kind, dtype):
    """Body of an argmax/argmin reduce: keep (value, index) unless the element wins."""
    better = "GT" if kind == "argmax" else "LT"

    def body(e, av, ai, ev, ei):
        either = lambda a, b: e.op("tensor.or", a, b)   # noqa: E731
        both = lambda a, b: e.op("tensor.and", a, b)    # noqa: E731
        earlier = e.compare(ei, ai, "LT")
        pick = either(e.compare(ev, av, better), both(e.compare(ev, av, "EQ"), earlier))
        if dtype in FLOAT_DTYPES:       # NaN wins, the first NaN most of all
            e_nan, a_nan = e.compare(ev, ev, "NE"), e.compare(av, av, "NE")
            pick = either(both(e.op("tensor.not", a_nan), either(pick, e_nan)),
                          both(both(a_nan, e_nan), earlier))
        return (e.op("tensor.select", pick, ev, av), e.op("tensor.select", pick, ei, ai))
    return body


def _structure(block):
    """The body's ops as a comparable tuple: names, operand positions, attributes, types."""
    index = {a: ("arg", i) for i, a in enumerate(block.arguments)}
    out = []
    for n, op in enumerate(block.operations):
        out.append((op.name, tuple(index.get(v, ("outer",)) for v in op.operands),
                    tuple(sorted(op.attributes.items())), tuple(op.result_types)))
        for k, r in enumerate(op.results):
            index[r] = ("op", n, k)
    return tuple(out)


_TEMPLATES = {}


def _template(kind, types):
    """The structure of the body `kind_body`/`arg_body` builds for init `types` (cached)."""
    key = (kind, types)
    if key not in _TEMPLATES:
        block = Block.create(Context(), types * 2)
        inner = Emitter(Builder(block.context).at_end(block))
        body = kind_body(kind) if kind in KIND_OPS else arg_body(kind, types[0].dtype)
        res = body(inner, *block.arguments)
        inner.builder.create("tensor.yield", list(res if isinstance(res, tuple) else (res,)))
        _TEMPLATES[key] = _structure(block)
    return _TEMPLATES[key]


def reduce_kind(op):
    """The named kind of a reduce or scan op's body (sum, prod, max, min, and, or, argmax,
    argmin), or None for any other body."""
    n = len(op.operands) // 2 if op.name == "tensor.reduce" else 1
    inits = tuple(op.operand_types[len(op.operand_types) - n:])
    blocks = op.regions[0].blocks
    if len(blocks) != 1:
        return None
    found = _structure(blocks[0])
    kinds = KIND_OPS if n == 1 else ("argmax", "argmin") if n == 2 else ()
    for kind in kinds:
        try:
            if found == _template(kind, inits):
                return kind
        except (ShapeError, DTypeError):
            continue                    # the kind's op does not take this dtype
    if n == 1 and len(found) == 2 and found[0][0] in _OP_KINDS and \
            found[0][1] == (("arg", 1), ("arg", 0)) and found[1][1] == (("op", 0, 0),):
        return _OP_KINDS[found[0][0]]       # commutative body written (e, acc)
    return None
