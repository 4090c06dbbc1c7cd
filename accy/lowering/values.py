"""The values of a work item's ops as kl values, shared by every kind's lowering: `Lowering`
computes them at symbolic indices of the item's root shape, loading the item's inputs through
the composed index maps of the shape/layout analysis; `start_kernel` opens a kernel taking the
item's buffers and the outline's scalars.

Index expressions are named tuples, built symbolically first and turned into kl ops once each
(`Lowering.materialize`), so a value read through the same map twice is loaded once:
`Affine(coeffs, offset)` over the root dims, `Sum(terms, offset)` of (coefficient, expression)
terms, `FloorDiv(expr, divisor)`, `Mod(expr, modulus)` and `Leaf(value)` (a kl i64 value: a
loaded, gathered index). Each carries its kind as its last field, so that expressions of two
kinds with equal fields (a floor division and a remainder by the same number) never compare
or hash equal as the tuples they are.
"""
from functools import lru_cache
from typing import NamedTuple

from accy.errors import AccyError, UnsupportedError
from accy.lowering.kl import KernelBuilder, ptr_type, scalar
from accy.passes.schedule import dense_constant
from accy.passes.shape_layout import row_major_strides
from accy.tensor.semantics import default_compare_type


class Affine(NamedTuple):
    """sum(coeffs[j] * root[j]) + offset."""
    coeffs: tuple
    offset: int
    kind: str = "affine"


class Sum(NamedTuple):
    """sum(c * expr for c, expr in terms) + offset."""
    terms: tuple
    offset: int
    kind: str = "sum"


class FloorDiv(NamedTuple):
    expr: tuple
    divisor: int
    kind: str = "floordiv"


class Mod(NamedTuple):
    expr: tuple
    modulus: int
    kind: str = "mod"


class Leaf(NamedTuple):
    """A kl i64 value computed beforehand (None while only listing reads)."""
    value: object
    kind: str = "leaf"


BINARY = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div",
          "remainder": "rem", "maximum": "max", "minimum": "min", "power": "pow",
          "and": "and", "or": "or", "xor": "xor", "shift_left": "shl", "atan2": "atan2"}
UNARY = {"negate": "neg", "abs": "abs", "not": "not", "sign": "sign", "sqrt": "sqrt",
         "rsqrt": "rsqrt", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log",
         "log1p": "log1p", "tanh": "tanh", "logistic": "logistic", "erf": "erf", "sin": "sin",
         "cos": "cos", "floor": "floor", "ceil": "ceil", "round_nearest_even": "rint",
         "round_nearest_afz": "round_afz", "cbrt": "cbrt", "tan": "tan", "popcnt": "popc",
         "count_leading_zeros": "clz"}


# op -> the operand it reads at loaded indices (not through an index map)
DATA_OPERAND = {"tensor.gather": 0, "tensor.dynamic_slice": 0, "tensor.dynamic_update_slice": 1}

# what the PTX emitter computes only for f32, f16 and bf16 (accy/lowering/ptx.py)
F64_ON_HOST = frozenset(("exp", "exp2", "expm1", "log", "log1p", "tanh", "logistic", "erf",
                         "sin", "cos", "power", "cbrt", "tan", "atan2"))

def start_kernel(context, block, outline, item):
    """A KernelBuilder for `outline`'s kernel taking the item's inputs and outputs (pointers),
    then one i64 per outline scalar, and {value: its pointer parameter}."""
    params = [ptr_type(v.type.dtype) for v in item.inputs + item.outputs]
    kb = KernelBuilder(context, block, outline.name,
                       params + [scalar("i64")] * len(outline.scalars))
    return kb, dict(zip(list(item.inputs) + list(item.outputs), kb.params))


# ---- the values of a work item's ops ----------------------------------------------------------

class Lowering:
    """Computes the values of a work item's ops at symbolic indices of the item's root shape
    (`root`: one kl i64 value per root dim), loading the item's inputs through the composed
    index maps. Everything it builds is remembered per scope: `push()` before writing the
    body of a loop whose root dims change, `pop()` after it, so a value computed inside the
    loop is never reused outside it.

    `memo` holds what does not depend on the element: each op's operand reads, each input
    read's address and each linear combination (`linear_at`) at given index expressions;
    `sibling` makes Lowerings sharing it.
    `invariant`: a dict shared by lowerings of one block (the lanes of a vector) holding the
    values at constant indices, computed once for all."""

    def __init__(self, kb, layout, pointers, item, invariant=None, memo=None):
        self.kb, self.layout, self.pointers, self.item = kb, layout, pointers, item
        self.invariant = invariant
        self.memo = {} if memo is None else memo
        self.inputs = self.memo.get(_INPUTS)
        if self.inputs is None:
            self.inputs = self.memo[_INPUTS] = frozenset(item.inputs)
            self.memo[_RECIPES] = {}
        self.recipes = self.memo[_RECIPES]
        # a value's operands are lowered by recursion, a few frames an op of the chain below
        # it; a large item's are lowered leaves first instead (`_leaves_first`)
        self.deep = len(item.ops) > DEEP_ITEM_OPS
        # the scopes, as one table each with an undo log: what an inner scope set is undone
        # when it is popped (what it shadowed comes back), so a lookup is one probe
        self.values = {}            # (value, index exprs, clamped), or a value -> kl value
        self.exprs = {}             # index expression -> kl i64 value
        self.undo = []              # (table, key, what it held before or _MISSING)
        self.marks = []             # where each open inner scope's undo entries start
        self.root = []
        self.position = None        # the expression of the root's row-major position

    def sibling(self, invariant=None):
        """A new Lowering of the same item sharing this one's `memo`."""
        return Lowering(self.kb, self.layout, self.pointers, self.item, invariant, self.memo)

    def push(self):
        self.marks.append(len(self.undo))

    def pop(self):
        start, undo = self.marks.pop(), self.undo
        while len(undo) > start:
            table, key, before = undo.pop()
            if before is _MISSING:
                del table[key]
            else:
                table[key] = before

    def _set(self, table, key, value):
        if self.marks:
            self.undo.append((table, key, table.get(key, _MISSING)))
        table[key] = value

    def remember(self, v, value):
        """Make `value` the value of `v` wherever the current scope reads it: the result of
        a reduce (for the thread's row), a dot_general or a scan step (at the thread's
        element), which the planner lets the item read only there."""
        self._set(self.values, v, value)

    def preload(self, key, value):
        """Make `value` what the input read `key` (input, index exprs, clamped; see `reads`)
        gives in the current scope: a lane of a vector, an element of a shared tile."""
        self._set(self.values, key, value)

    def at_linear(self, base, shape, offset=0, row=None):
        """Make the root the row-major multi-index of position `base + offset` in `shape`
        (written lazily: an item that only reads at its own position needs no division).
        `row`: the root of position `base`, when `base + offset` is in its row."""
        self.root = _Unraveled(self.kb, base, offset, shape, row)
        self.position = position_expression(shape)

    def reads(self, values):
        """Every input read that computing `values` at the root's own index makes, without
        writing anything: {(input, index exprs, clamped): the read's row-major position as
        an index expression (see `address`), or None for a clamped read}. A gathered index
        is a placeholder here."""
        todo = [(v, identity_index(len(self.root)), False) for v in reversed(values)]
        found, seen = {}, set()
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            v, idx, clamped = key
            if v in self.inputs:
                if 0 not in v.type.shape:
                    found[key] = None if clamped else self.address(v, idx)
                continue
            op = v.owner
            if op.name in ("tensor.constant", "tensor.iota"):
                continue
            if op.name == "tensor.gather":
                todo.append((op.operands[0], _gathered(op, idx, Leaf(None)), clamped))
            elif op.name == "tensor.dynamic_slice":
                todo.append((op.operands[0], _offset(idx, [Leaf(None)] * len(idx)), clamped))
            elif op.name == "tensor.dynamic_update_slice":
                todo.append((op.operands[1], (Leaf(None),) * len(idx), True))
            todo += [read[:3] for read in reversed(self.operand_reads(op, idx, clamped))]
        return found

    # ---- index expressions (Affine | Sum | FloorDiv | Mod | Leaf; all evaluate to i64) ----

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
        found = self.exprs.get(e)
        if found is not None:
            return found
        kb = self.kb
        if e == self.position:
            out = self.root.linear
        elif isinstance(e, Leaf):
            out = e.value
        elif isinstance(e, Affine):
            terms = [(c, self.root[j]) for j, c in enumerate(e.coeffs) if c]
            out = self._combine(terms, e.offset)
        elif isinstance(e, Sum):
            out = self._combine([(c, self.materialize(x)) for c, x in e.terms], e.offset)
        elif isinstance(e, FloorDiv):
            out = kb.op("div", self.materialize(e.expr), kb.constant(e.divisor, "i64"))
        else:
            out = kb.op("rem", self.materialize(e.expr), kb.constant(e.modulus, "i64"))
        self._set(self.exprs, e, out)
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
            linear = self.linear_at(idx)
            out = tuple(_div(linear(e.coeffs, e.offset), e.divisor) for e in m.exprs)
            guards = [(linear(g.expr.coeffs, g.expr.offset), g.expr.divisor, g.size)
                      for g in m.guards]
            return out, guards
        if m.kind == "reshape":
            strides = row_major_strides(m.out_shape)
            lin = self.linear_at(idx)(strides, 0)
            out = []
            for s, size in zip(row_major_strides(m.in_shape), m.in_shape):
                out.append(Affine((0,) * len(self.root), 0) if size == 1 else
                           Mod(_div(lin, s), size))
            return tuple(out), []
        raise UnsupportedError(f"an index map of kind '{m.kind}' is not lowered inside a chain")

    def linear_at(self, idx):
        """`linear(coeffs, offset)`: Σ coeffs[j] * idx[j] + offset at index expressions `idx`,
        remembered in the memo's table for `idx`. A key holding `idx` hashes all of its rank x
        rank coefficients, so the table is looked up once here, and an index map calls this
        once, not once per expression (that made lowering cubic in the rank)."""
        rank = len(self.root)
        key = ("linear", rank, idx)
        table = self.memo.get(key)
        if table is None:
            table = self.memo[key] = {}

        def linear(coeffs, offset):
            found = table.get((coeffs, offset))
            if found is None:
                found = table[(coeffs, offset)] = _linear(rank, coeffs, idx, offset)
            return found
        return linear

    def address(self, v, idx):
        """The row-major position in input `v` at index expressions `idx`, as one expression
        (unit dims are always read at 0)."""
        found = self.memo.get((v, idx))
        if found is None:
            shape = v.type.shape
            found = self.memo[(v, idx)] = self.linear_at(idx)(
                tuple(s if n != 1 else 0 for s, n in zip(row_major_strides(shape), shape)), 0)
        return found

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
        values = self.values
        found = values.get(v)               # a remembered hero result
        if found is not None:
            return found
        key = (v, idx, clamped)
        found = values.get(key)
        if found is not None:
            return found
        recipe = self.recipes.get(key)
        if recipe is None:
            recipe = self.recipes[key] = self._recipe(v, idx, clamped)
        if self.invariant is not None and recipe[4]:
            found = self.invariant.get(key)
            if found is None:
                if self.deep and recipe[3]:
                    self._leaves_first(recipe[3])
                found = self.invariant[key] = self._value(key, recipe)
            return found
        if self.deep and recipe[3]:
            self._leaves_first(recipe[3])
        found = self._value(key, recipe)
        if self.marks:
            self.undo.append((values, key, _MISSING))
        values[key] = found
        return found

    def _leaves_first(self, reads):
        """Lower the values `reads` (a recipe's operand reads) need, each after its own
        operands, in the order recursion would (left to right, depth first) but with an
        explicit stack: each `value` call then finds its operands made (it walks them again,
        finding nothing to do), so a chain of plain ops recurses a level deep. (A gathered or
        updated operand is still read by recursion, a few frames a step.)"""
        stack = [(operand, sub, c, False) for operand, sub, c, _ in reversed(reads)]
        while stack:
            v, idx, clamped, ready = stack.pop()
            if ready:
                self.value(v, idx, clamped)
                continue
            below = self._operand_reads_to_lower(v, idx, clamped)
            if below is None:
                continue                    # made already: nothing to lower
            stack.append((v, idx, clamped, True))
            stack += [(operand, sub, c, False) for operand, sub, c, _ in reversed(below)]

    def _operand_reads_to_lower(self, v, idx, clamped):
        """What `value(v, idx, clamped)` would lower first: None when it would return a value
        made already, else its recipe's operand reads (() for a leaf)."""
        key = (v, idx, clamped)
        if v in self.values or key in self.values:
            return None
        recipe = self.recipes.get(key)
        if recipe is None:
            recipe = self.recipes[key] = self._recipe(v, idx, clamped)
        if self.invariant is not None and recipe[4] and key in self.invariant:
            return None
        return recipe[3] or ()

    def _value(self, key, recipe):
        op, name, dtype, reads, _, direct = recipe
        v, idx, clamped = key
        kb = self.kb
        if op is None:
            return self._load(v, idx, clamped)
        if name == "constant":      # a splat (the planner reads dense ones from memory)
            return kb.constant(self.splat(v), dtype)
        if name == "iota":
            return kb.convert(self.materialize(idx[op.attributes["iota_dimension"]]), dtype)
        args = [self.value(operand, sub, c) for operand, sub, c, _ in reads]
        if direct is not None:
            return args[0] if direct is MOVE else kb.op(direct, *args)
        if name == "gather":
            return self._gather(op, args[0], idx, clamped)
        if name == "dynamic_slice":
            starts = self._starts(args, op.operand_types[0].shape, v.type.shape)
            return self.value(op.operands[0], _offset(idx, [Leaf(k) for k in starts]), clamped)
        if name == "dynamic_update_slice":
            return self._update(op, args[0], args[1:], idx)
        if name == "pad":
            guards = reads[0][3]
            return kb.op("select", self.condition(guards), *args) if guards else args[0]
        if name == "concatenate":
            out = args[-1]
            for x, read in zip(reversed(args[:-1]), reversed(reads[:-1])):
                out = kb.op("select", self.condition(read[3]), x, out)
            return out
        return self.compute(op, name, args, dtype)

    def _recipe(self, v, idx, clamped):
        """What `value` needs of `v` at `idx`, found once per item: (the op defining it, its
        name without the dialect, its dtype, its operand reads, whether `idx` is constant,
        `direct_op` of it), the op None for an input."""
        constant = all(isinstance(e, Affine) and not any(e.coeffs) for e in idx)
        if v in self.inputs:
            return None, None, None, None, constant, None
        op = v.owner
        name, dtype = op.name.removeprefix("tensor."), v.type.dtype
        reads = None if name in ("constant", "iota") else self.operand_reads(op, idx, clamped)
        return op, name, dtype, reads, constant, direct_op(name, dtype)

    def splat(self, v):
        """The element of constant `v` (a splat), found once per item."""
        key = ("splat", v)
        found = self.memo.get(key)
        if found is None:
            op = v.owner
            if dense_constant(op):
                raise AccyError(f"internal error: a dense constant {v.type} reached the "
                                f"elementwise lowering as an immediate (the schedule plan "
                                f"reads dense constants from constant buffers)")
            array = op.attributes["value"].array.reshape(-1)
            found = self.memo[key] = array[0].item() if array.size else 0
        return found

    def operand_reads(self, op, idx, clamped):
        """(operand, its index expressions, clamped, guards) for each operand of `op` read at
        `idx` through its index map: a read under a guard that may fail (pad, concatenate)
        is clamped into range, and a select drops it where the guard fails. The operand read
        at loaded indices is left out (`DATA_OPERAND`: read by `_gather`, `_value`,
        `_update`)."""
        key = (op, idx, clamped)
        found = self.memo.get(key)
        if found is None:
            skip = DATA_OPERAND.get(op.name)
            found = []
            for i, operand in enumerate(op.operands):
                if i == skip:
                    continue
                m = self.layout.index_map(op, i)
                if m is None:
                    raise UnsupportedError(f"'{op.name}' has no index map to lower through")
                sub, guards = self.apply(m, idx)
                found.append((operand, sub, clamped or bool(guards), guards))
            self.memo[key] = found
        return found

    def _load(self, v, idx, clamped):
        kb = self.kb
        shape = v.type.shape
        if 0 in shape:      # an empty operand is only ever read where a guard fails
            return kb.constant(0, v.type.dtype)
        if not clamped:
            return kb.load(self.pointers[v], self.materialize(self.address(v, idx)))
        terms = []
        for stride, e, n in zip(row_major_strides(shape), idx, shape):
            if n == 1:
                continue
            # a guarded read: keep the address in range; a select drops it
            c = kb.op("min", kb.op("max", self.materialize(e), kb.constant(0, "i64")),
                      kb.constant(n - 1, "i64"))
            terms.append((stride, c))
        return kb.load(self.pointers[v], self._combine(terms, 0))

    def _gather(self, op, index, idx, clamped):
        """The data at the loaded `index`, clamped into the gathered dim as the reference
        clamps out-of-range indices (after converting them to i64, as it does)."""
        kb = self.kb
        k = kb.convert(index, "i64")
        top = op.operand_types[0].shape[op.attributes["axis"]] - 1
        k = kb.op("min", kb.op("max", k, kb.constant(0, "i64")), kb.constant(top, "i64"))
        return self.value(op.operands[0], _gathered(op, idx, Leaf(k)), clamped)

    def _starts(self, starts, big, small):
        """A dynamic slice's start index values, each converted to i64 and clamped into
        [0, big - small] (the reference's rule)."""
        kb = self.kb
        return [kb.op("min", kb.op("max", kb.convert(s, "i64"), kb.constant(0, "i64")),
                      kb.constant(b - n, "i64")) for s, b, n in zip(starts, big, small)]

    def _update(self, op, x, starts, idx):
        """A dynamic_update_slice at `idx`: the update at idx - start where that is inside
        it (its load clamped into range), else the operand `x`."""
        kb = self.kb
        update = op.operand_types[1].shape
        ok, at = None, []
        for k, e, n in zip(self._starts(starts, op.result_types[0].shape, update), idx, update):
            j = kb.op("sub", self.materialize(e), k)
            inside = kb.op("and", kb.cmp("GE", j, kb.constant(0, "i64")),
                           kb.cmp("LT", j, kb.constant(n, "i64")))
            ok = inside if ok is None else kb.op("and", ok, inside)
            at.append(Leaf(j))
        if ok is None:              # rank 0: the update is the result
            return self.value(op.operands[1], (), False)
        return kb.op("select", ok, self.value(op.operands[1], tuple(at), True), x)

    def compute(self, op, name, args, dtype):
        """The value of elementwise or element-moving `op` (named `name`) from its operand
        values `args`."""
        kb = self.kb
        direct = direct_op(name, dtype)
        if direct is not None:
            return args[0] if direct is MOVE else kb.op(direct, *args)
        if name in ("shift_right_arithmetic", "shift_right_logical"):
            return kb.op("shr", *args, arithmetic=name.endswith("arithmetic"))
        if dtype == "f64" and name in F64_ON_HOST:
            raise UnsupportedError(f"'{op.name}' on f64 (the PTX emitter has no f64 "
                                   f"transcendentals)")
        if name == "is_finite":
            return kb.is_finite(args[0])
        if name == "compare":
            a = op.attributes
            operand_dtype = op.operand_types[0].dtype
            if a.get("compare_type", default_compare_type(operand_dtype)) != \
                    default_compare_type(operand_dtype):
                raise UnsupportedError("a compare with a non-default compare_type")
            return kb.cmp(a["comparison_direction"], *args)
        if name == "clamp":
            lo, x, hi = args
            return kb.op("min", kb.op("max", x, lo), hi)
        if name == "convert":
            return kb.convert(args[0], dtype)
        if name == "bitcast_convert":
            return kb.bitcast(args[0], dtype)
        raise UnsupportedError(f"'{op.name}' is not lowered in an elementwise kernel")


MOVE = "move"           # `direct_op` of an op whose value is its operand's (moved elsewhere)


@lru_cache(maxsize=None)
def direct_op(name, dtype):
    """The kl op that computes tensor op `name` (without the dialect) on `dtype` from its
    operand values alone (`kb.op(kl, *args)`), MOVE for an op that moves its operand's
    value, else None (the op needs more, or is not lowered on `dtype`)."""
    if name in ("broadcast_in_dim", "reshape", "transpose", "slice", "reverse"):
        return MOVE
    if name in BINARY:
        return BINARY[name]
    if name in UNARY and not (dtype == "f64" and name in F64_ON_HOST):
        return UNARY[name]
    return "select" if name == "select" else None


# the memo's entries for the item's inputs and for `Lowering._recipe` (its other keys are
# tuples and values)
_INPUTS, _RECIPES = "inputs", "recipes"
DEEP_ITEM_OPS = 64      # an item of more ops lowers operands leaves first (a few frames an op)
_MISSING = object()     # what an undo entry restores for a key that was not there


@lru_cache(maxsize=64)
def identity_index(rank):
    """Index expressions reading a value of the root's shape at the root's own index."""
    return tuple(Affine(tuple(int(j == d) for j in range(rank)), 0) for d in range(rank))


@lru_cache(maxsize=1024)
def position_expression(shape):
    """The row-major position in a root of `shape` as an index expression (unit dims, always
    0, have coefficient 0 as in every normalized map)."""
    return Affine(tuple(s if n != 1 else 0 for s, n in zip(row_major_strides(shape), shape)), 0)


class _Unraveled:
    """The row-major multi-index of position `base + offset` in `shape` as a sequence of kl
    i64 values, each dim (and the position itself, `linear`) written when first used. `row`:
    the multi-index of `base` when `base + offset` lies in its row (of the innermost non-unit
    dim): then only that dim differs."""

    def __init__(self, kb, base, offset, shape, row=None):
        self.kb, self.base, self.offset, self.shape, self.row = kb, base, offset, shape, row
        self.strides, self.outer, self.inner = _unravel_facts(shape)
        self.dims = [None] * len(shape)
        self._linear = None

    def __len__(self):
        return len(self.shape)

    @property
    def linear(self):
        if self._linear is None:
            kb = self.kb
            self._linear = self.base if not self.offset else \
                kb.op("add", self.base, kb.constant(self.offset, "i64"))
        return self._linear

    def __getitem__(self, d):
        found = self.dims[d]
        if found is None:
            kb, n, stride = self.kb, self.shape[d], self.strides[d]
            if self.row is not None:    # base's row: only the inner dim moves, by offset
                found = self.row[d] if d != self.inner else \
                    kb.op("add", self.row[d], kb.constant(self.offset, "i64"))
            elif n == 1:
                found = kb.constant(0, "i64")
            else:
                found = self.linear if stride == 1 else \
                    kb.op("div", self.linear, kb.constant(stride, "i64"))
                if d != self.outer:     # (the outermost dim needs no remainder: linear < n)
                    found = kb.op("rem", found, kb.constant(n, "i64"))
            self.dims[d] = found
        return found


@lru_cache(maxsize=1024)
def _unravel_facts(shape):
    """(row-major strides, the outermost and the innermost non-unit dim) of `shape`."""
    dims = [d for d, n in enumerate(shape) if n != 1]
    return row_major_strides(shape), (dims[0] if dims else None), (dims[-1] if dims else None)


def _gathered(op, idx, leaf):
    """The data's index expressions for a gather's output at `idx`: the gathered dim is
    `leaf` (the loaded, clamped index), the index dims (`take`) or dim (`along_axis`) of
    the output are dropped."""
    axis = op.attributes["axis"]
    taken = len(op.operand_types[1].shape) if op.attributes.get("mode", "take") == "take" \
        else 1
    return tuple(idx[:axis]) + (leaf,) + tuple(idx[axis + taken:])


def _offset(idx, starts):
    """Index expressions `idx + starts` (dim by dim)."""
    return tuple(Sum(((1, e), (1, k)), 0) for e, k in zip(idx, starts))


def _linear(rank, coeffs, idx, offset):
    """Σ coeffs[j] * idx[j] + offset as one expression over `rank` root dims (affine when
    every idx is)."""
    if all(isinstance(e, Affine) for e in idx):
        total = [0] * rank
        off = offset
        for c, e in zip(coeffs, idx):
            if c:
                off += c * e.offset
                for j, a in enumerate(e.coeffs):
                    total[j] += c * a
        return Affine(tuple(total), off)
    terms = tuple((c, e) for c, e in zip(coeffs, idx) if c)
    return Sum(terms, offset)


def _div(e, d):
    return e if d == 1 else FloorDiv(e, d)

