"""Lowering of `elementwise` and `shape` work items to a `kl.kernel`: a grid-stride loop over
the elements of the item's output shape; each thread computes every output at its element,
reading the item's inputs through the composed index maps of the shape/layout analysis
(broadcast, transpose, slice, reverse, reshape, pad and concatenate become index arithmetic;
nothing is materialized in between).

Index expressions are built symbolically first (affine functions of the output index, with
floor divisions and remainders for general reshapes) and turned into kl ops once each, so an
operand read through the same map twice is loaded once. Where a pad or concatenate guard may
fail, the operand's index is clamped into range before the load and a select picks the
padding value (or the other operand) instead.

Parameters: the item's inputs, then its outputs (pointers), then `n`, the element count (i64).
Not lowered here (UnsupportedError, so the item runs on the host under the exact tier):
gather, non-splat constants, compares with a non-default compare_type.
"""
import numpy as np

import math

from accy.errors import UnsupportedError
from accy.lowering.kl import KernelBuilder, ptr_type, scalar
from accy.passes.shape_layout import row_major_strides
from accy.tensor.dialect import default_compare_type

BINARY = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div",
          "remainder": "rem", "maximum": "max", "minimum": "min", "power": "pow",
          "and": "and", "or": "or", "xor": "xor", "shift_left": "shl"}
UNARY = {"negate": "neg", "abs": "abs", "not": "not", "sign": "sign", "sqrt": "sqrt",
         "rsqrt": "rsqrt", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log",
         "log1p": "log1p", "tanh": "tanh", "logistic": "logistic", "erf": "erf", "sin": "sin",
         "cos": "cos", "floor": "floor", "ceil": "ceil", "round_nearest_even": "rint"}


# what the PTX emitter computes only for f32, f16 and bf16 (accy/lowering/ptx.py)
F64_ON_HOST = frozenset(("exp", "exp2", "expm1", "log", "log1p", "tanh", "logistic", "erf",
                         "sin", "cos", "power"))


def start_kernel(context, block, outline, item):
    """A KernelBuilder for `outline`'s kernel taking the item's inputs and outputs (pointers),
    then one i64 per outline scalar, and {value: its pointer parameter}."""
    params = [ptr_type(v.type.dtype) for v in item.inputs + item.outputs]
    kb = KernelBuilder(context, block, outline.name,
                       params + [scalar("i64")] * len(outline.scalars))
    return kb, dict(zip(list(item.inputs) + list(item.outputs), kb.params))


def lower_elementwise(context, block, outline, item, layout, target=None):
    """Write the kernel of `item` (kind elementwise or shape) into `block` (a module body)."""
    root = item.outputs[0].type.shape
    if any(v.type.shape != root for v in item.outputs):
        raise UnsupportedError(f"work item {item.id}: outputs of different shapes")
    kb, pointers = start_kernel(context, block, outline, item)
    n = kb.params[len(pointers)]            # the outline's one scalar: the element count

    def body(kb, linear):
        lowering = Lowering(kb, layout, pointers, item)
        lowering.root = lowering.unravel(linear, root)
        at_root = identity_index(len(root))
        for v in item.outputs:
            kb.store(lowering.value(v, at_root, False), pointers[v], linear)

    kb.for_(kb.global_index(), n, kb.grid_size(), [], body)
    return kb.finish(), math.prod(root)


class Lowering:
    """Computes the values of a work item's ops at symbolic indices of the item's root shape
    (`root`: one kl i64 value per root dim), loading the item's inputs through the composed
    index maps. Everything it builds is remembered per scope: `push()` before writing the
    body of a loop whose root dims change, `pop()` after it, so a value computed inside the
    loop is never reused outside it."""

    def __init__(self, kb, layout, pointers, item):
        self.kb, self.layout, self.pointers, self.item = kb, layout, pointers, item
        self.inputs = set(item.inputs)
        self.scopes = [({}, {})]    # per scope: (value, index exprs, clamped) -> kl value,
        self.root = []              # and index expression -> kl i64 value

    def push(self):
        self.scopes.append(({}, {}))

    def pop(self):
        self.scopes.pop()

    def _find(self, which, key):
        for scope in reversed(self.scopes):
            if key in scope[which]:
                return scope[which][key]
        return None

    def remember(self, v, value):
        """Make `value` the value of `v` wherever the current scope reads it: the result of
        a reduce (for the thread's row), a dot_general or a scan step (at the thread's
        element), which the planner lets the item read only there."""
        self.scopes[-1][0][v] = value

    # ---- index expressions -------------------------------------------------------------------
    # ("affine", coeffs over the root dims, offset) | ("sum", ((coeff, expr), ...), offset)
    # | ("floordiv", expr, d) | ("mod", expr, n); all evaluate to i64

    def unravel(self, linear, shape):
        """The row-major multi-index of `linear` in `shape` (kl i64 values)."""
        kb, dims, rest = self.kb, [], linear
        for size in reversed(shape):
            if size == 1:
                dims.append(kb.constant(0, "i64"))
                continue
            s = kb.constant(size, "i64")
            dims.append(kb.op("rem", rest, s))
            rest = kb.op("div", rest, s)
        return list(reversed(dims))

    def materialize(self, e):
        found = self._find(1, e)
        if found is not None:
            return found
        kb = self.kb
        kind = e[0]
        if kind == "affine":
            terms = [(c, self.root[j]) for j, c in enumerate(e[1]) if c]
            out = self._combine(terms, e[2])
        elif kind == "sum":
            out = self._combine([(c, self.materialize(x)) for c, x in e[1]], e[2])
        elif kind == "floordiv":
            out = kb.op("div", self.materialize(e[1]), kb.constant(e[2], "i64"))
        else:
            out = kb.op("rem", self.materialize(e[1]), kb.constant(e[2], "i64"))
        self.scopes[-1][1][e] = out
        return out

    def _combine(self, terms, offset):
        kb, acc = self.kb, None
        for c, x in terms:
            t = x if c == 1 else kb.op("mul", x, kb.constant(c, "i64"))
            acc = t if acc is None else kb.op("add", acc, t)
        if acc is None:
            return kb.constant(offset, "i64")
        return acc if offset == 0 else kb.op("add", acc, kb.constant(offset, "i64"))

    def apply(self, m, idx):
        """(index expressions of the map's input, guard conditions) for output expressions
        `idx` through index map `m`."""
        if m.kind == "chain":
            guards = []
            for part in m.maps:
                idx, g = self.apply(part, idx)
                guards += g
            return idx, guards
        if m.kind == "affine":
            out = tuple(_div(self.linear(e.coeffs, idx, e.offset), e.divisor) for e in m.exprs)
            guards = [(self.linear(g.expr.coeffs, idx, g.expr.offset), g.expr.divisor, g.size)
                      for g in m.guards]
            return out, guards
        if m.kind == "reshape":
            strides = row_major_strides(m.out_shape)
            lin = self.linear(strides, idx, 0)
            out = []
            for s, size in zip(row_major_strides(m.in_shape), m.in_shape):
                out.append(("affine", (0,) * len(self.root), 0) if size == 1 else
                           ("mod", _div(lin, s), size))
            return tuple(out), []
        raise UnsupportedError(f"an index map of kind '{m.kind}' (gather) is not lowered")

    def linear(self, coeffs, idx, offset):
        return _linear(len(self.root), coeffs, idx, offset)

    def condition(self, guards):
        """The i1 that holds where every guard does."""
        kb, ok = self.kb, None
        for num, d, size in guards:
            x = self.materialize(num)
            parts = []
            if d != 1:
                parts.append(kb.cmp("EQ", kb.op("rem", x, kb.constant(d, "i64")),
                                    kb.constant(0, "i64")))
                x = kb.op("div", x, kb.constant(d, "i64"))
            parts.append(kb.cmp("GE", x, kb.constant(0, "i64")))
            parts.append(kb.cmp("LT", x, kb.constant(size, "i64")))
            for p in parts:
                ok = p if ok is None else kb.op("and", ok, p)
        return ok

    # ---- values --------------------------------------------------------------------------------

    def value(self, v, idx, clamped):
        found = self._find(0, v)            # a remembered hero result
        if found is not None:
            return found
        key = (v, idx, clamped)
        found = self._find(0, key)
        if found is None:
            found = self.scopes[-1][0][key] = self._value(v, idx, clamped)
        return found

    def _value(self, v, idx, clamped):
        kb = self.kb
        if v in self.inputs:
            shape = v.type.shape
            if 0 in shape:      # an empty operand is only ever read where a guard fails
                return kb.constant(0, v.type.dtype)
            terms = []
            for stride, e, n in zip(row_major_strides(shape), idx, shape):
                if n == 1:
                    continue
                c = self.materialize(e)
                if clamped:     # a guarded read: keep the address in range; a select drops it
                    c = kb.op("min", kb.op("max", c, kb.constant(0, "i64")),
                              kb.constant(n - 1, "i64"))
                terms.append((stride, c))
            return kb.load(self.pointers[v], self._combine(terms, 0))
        op = v.owner
        name = op.name.removeprefix("tensor.")
        dtype = v.type.dtype
        if name == "constant":
            array = op.attributes["value"].array.reshape(-1)
            if array.size and not (array.view(np.uint8).reshape(array.size, -1) ==
                                   array.view(np.uint8).reshape(array.size, -1)[0]).all():
                raise UnsupportedError("a constant with many values (not a splat)")
            return kb.constant(array[0].item() if array.size else 0, dtype)
        if name == "iota":
            return kb.convert(self.materialize(idx[op.attributes["iota_dimension"]]), dtype)
        maps = [self.layout.index_map(op, i) for i in range(len(op.operands))]
        if any(m is None for m in maps):
            raise UnsupportedError(f"'{op.name}' has no index map to lower through")
        if name in ("pad", "concatenate"):
            return self._guarded(op, maps, idx)
        args = []
        for operand, m in zip(op.operands, maps):
            sub, guards = self.apply(m, idx)
            args.append(self.value(operand, sub, clamped or bool(guards)))
        return self.compute(op, name, args, dtype)

    def _guarded(self, op, maps, idx):
        kb = self.kb
        if op.name == "tensor.pad":
            sub, guards = self.apply(maps[0], idx)
            inner = self.value(op.operands[0], sub, True)
            pad_sub, _ = self.apply(maps[1], idx)
            fill = self.value(op.operands[1], pad_sub, False)
            return kb.op("select", self.condition(guards), inner, fill) if guards else inner
        out = None
        for operand, m in reversed(list(zip(op.operands, maps))):
            sub, guards = self.apply(m, idx)
            x = self.value(operand, sub, True)
            out = x if out is None else kb.op("select", self.condition(guards), x, out)
        return out

    def compute(self, op, name, args, dtype):
        """The value of elementwise or element-moving `op` (named `name`) from its operand
        values `args`."""
        kb = self.kb
        if name in ("broadcast_in_dim", "reshape", "transpose", "slice", "reverse"):
            return args[0]
        if name in BINARY:
            return kb.op(BINARY[name], *args)
        if name in ("shift_right_arithmetic", "shift_right_logical"):
            return kb.op("shr", *args, arithmetic=name.endswith("arithmetic"))
        if dtype == "f64" and name in F64_ON_HOST:
            raise UnsupportedError(f"'{op.name}' on f64 (the PTX emitter has no f64 "
                                   f"transcendentals)")
        if name in UNARY:
            return kb.op(UNARY[name], *args)
        if name == "is_finite":
            return kb.is_finite(args[0])
        if name == "compare":
            a = op.attributes
            operand_dtype = op.operand_types[0].dtype
            if a.get("compare_type", default_compare_type(operand_dtype)) != \
                    default_compare_type(operand_dtype):
                raise UnsupportedError("a compare with a non-default compare_type")
            return kb.cmp(a["comparison_direction"], *args)
        if name == "select":
            return kb.op("select", *args)
        if name == "clamp":
            lo, x, hi = args
            return kb.op("min", kb.op("max", x, lo), hi)
        if name == "convert":
            return kb.convert(args[0], dtype)
        raise UnsupportedError(f"'{op.name}' is not lowered in an elementwise kernel")


def identity_index(rank):
    """Index expressions reading a value of the root's shape at the root's own index."""
    return tuple(("affine", tuple(int(j == d) for j in range(rank)), 0) for d in range(rank))


def _linear(rank, coeffs, idx, offset):
    """Σ coeffs[j] * idx[j] + offset as one expression over `rank` root dims (affine when
    every idx is)."""
    if all(e[0] == "affine" for e in idx):
        total = [0] * rank
        off = offset
        for c, e in zip(coeffs, idx):
            if c:
                off += c * e[2]
                for j, a in enumerate(e[1]):
                    total[j] += c * a
        return ("affine", tuple(total), off)
    terms = tuple((c, e) for c, e in zip(coeffs, idx) if c)
    return ("sum", terms, offset)


def _div(e, d):
    return e if d == 1 else ("floordiv", e, d)

