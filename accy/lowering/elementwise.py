"""Lowering of `elementwise` and `shape` work items to a `kl.kernel`. Each thread computes
every output of the item at its elements, reading the item's inputs through the composed index
maps of the shape/layout analysis (broadcast, transpose, slice, reverse, reshape, pad,
concatenate and gather become index arithmetic; nothing is materialized in between).

Index expressions are built symbolically first (affine functions of the output index, with
floor divisions and remainders for general reshapes, and loaded values for gathered dims) and
turned into kl ops once each, so an operand read through the same map twice is loaded once.
Where a pad or concatenate guard may fail, the operand's index is clamped into range before
the load and a select picks the padding value (or the other operand) instead. A gather loads
its index, converts it to i64 and clamps it into the gathered dim (the reference's rule for
out-of-range indices, in both modes), then reads the data there.

Before writing any op the lowering lists the item's input reads (`Lowering.reads`) and picks
a schedule from them:
- `tiled_transpose`: some input is read across the output's rows (its stride along the
  output's innermost dim is neither 0 nor +-1) and at stride +-1 along another output dim `a`:
  a transpose (batched, reshaped, with elementwise ops fused, ...). Blocks of 32 x 8 threads
  take 32 x 32 tiles of (a, innermost dim) per batch index: they read those inputs along `a`
  (coalesced) into 32 x 33 shared tiles (padded against bank conflicts), wait at a barrier,
  then compute and write the outputs along the innermost dim (coalesced), reading every other
  input directly. Grid (tiles along the innermost dim, tiles along `a`, batch), each dim a
  grid-stride loop; tile edges are guarded.
- `vector`: when some output or some input read at the item's own row-major position has a
  2-, 4- or 8-byte dtype, each thread takes one vector of `16 / the widest such itemsize`
  elements per grid-stride step: each such read is one `kl.vload` and each such output one
  `kl.vstore` (every buffer starts 256-byte aligned, so every vector is aligned); the other
  reads (broadcasts, moved or guarded elements, 1-byte dtypes) and 1-byte stores are scalar
  per lane, and values at constant indices are computed once per vector. A scalar tail loop
  takes the last n % width elements. The outline's domain for that width: blocks of 256
  threads, one per 256 vectors.
- `serial`: otherwise (only 1-byte dtypes, or no elements): one element per thread and
  grid-stride step, the baseline launch.

Parameters: the item's inputs (a dense constant among them: its constant buffer), then its
outputs (pointers), then `n`, the element count (i64). A splat constant is an immediate.
Not lowered here (UnsupportedError, so the item runs on the host under the exact tier):
compares with a non-default compare_type, f64 transcendentals.
"""
import math
from functools import lru_cache

from accy._core.types import numpy_dtype
from accy.errors import AccyError, UnsupportedError
from accy.lowering.kl import VECTOR_WIDTHS, KernelBuilder, pointee, ptr_type, scalar
from accy.passes.outline import GRID_X_LIMIT, GRID_YZ_LIMIT, THREADS, Launch
from accy.passes.schedule import dense_constant
from accy.passes.shape_layout import row_major_strides
from accy.tensor.semantics import default_compare_type

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

VECTOR_BYTES = 16           # one 128-bit access
TILE = 32                   # tiled transpose: tile edge, and the threads along it
TILE_ROWS = 8               # ... threads across it (a block of 32 x 8 = 256 threads)
STATIC_SHARED = 48 * 1024   # bytes of static shared memory a block may declare


def start_kernel(context, block, outline, item):
    """A KernelBuilder for `outline`'s kernel taking the item's inputs and outputs (pointers),
    then one i64 per outline scalar, and {value: its pointer parameter}."""
    params = [ptr_type(v.type.dtype) for v in item.inputs + item.outputs]
    kb = KernelBuilder(context, block, outline.name,
                       params + [scalar("i64")] * len(outline.scalars))
    return kb, dict(zip(list(item.inputs) + list(item.outputs), kb.params))


def lower_elementwise(context, block, outline, item, layout, target=None):
    """Write the kernel of `item` (kind elementwise or shape) into `block` (a module body);
    returns it with its schedule (see the module doc)."""
    root = item.outputs[0].type.shape
    if any(v.type.shape != root for v in item.outputs):
        raise UnsupportedError(f"work item {item.id}: outputs of different shapes")
    kb, pointers = start_kernel(context, block, outline, item)
    n = math.prod(root)
    item_lowering = Lowering(kb, layout, pointers, item)
    if n == 0:
        return _serial(kb, item_lowering, root)
    item_lowering.root = (None,) * len(root)    # (only its rank is read: nothing is written)
    reads = item_lowering.reads(item.outputs)
    tiles = _transpose_plan(root, reads)
    if tiles is not None:
        return _tiled_transpose(kb, item_lowering, root, *tiles)
    width, vectored = _vector_plan(item, root, reads)
    if width:
        return _vector(kb, item_lowering, root, width, vectored)
    return _serial(kb, item_lowering, root)


def _store_outputs(kb, lowering, linear):
    """Store every output of the item at the root position `linear` (scalar stores)."""
    at_root = identity_index(len(lowering.root))
    for v in lowering.item.outputs:
        kb.store(lowering.value(v, at_root, False), lowering.pointers[v], linear)


# Each schedule below takes `item_lowering`, the item's Lowering that listed its reads, and
# makes a sibling of it (sharing what it worked out) for each element it writes.

def _element_loop(kb, item_lowering, root, first, stride):
    """A grid-stride loop over the root positions [first, n), one element per step."""
    def body(kb, linear):
        lowering = item_lowering.sibling()
        lowering.at_linear(linear, root)
        _store_outputs(kb, lowering, linear)
    kb.for_(first, kb.constant(math.prod(root), "i64"), stride, [], body)


def _serial(kb, item_lowering, root):
    _element_loop(kb, item_lowering, root, kb.global_index(), kb.grid_size())
    return kb.finish(), math.prod(root)


# ---- vector -----------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _vectorizable(dtype):
    return numpy_dtype(dtype).itemsize in VECTOR_WIDTHS


def _vector_plan(item, root, reads):
    """(width, the reads that move as vectors), or (0, ()) when nothing would."""
    here = position_expression(root)
    vectored = [key for key, address in reads.items()
                if address == here and _vectorizable(key[0].type.dtype)]
    sizes = [numpy_dtype(v.type.dtype).itemsize for v in item.outputs
             if _vectorizable(v.type.dtype)]
    sizes += [numpy_dtype(key[0].type.dtype).itemsize for key in vectored]
    if not sizes:
        return 0, ()
    return VECTOR_BYTES // max(sizes), vectored


def _vector(kb, item_lowering, root, width, vectored):
    from accy.lowering.kernelize import Schedule     # (kernelize imports this module)
    item, pointers = item_lowering.item, item_lowering.pointers
    n = math.prod(root)
    count = n // width
    at_root = identity_index(len(root))
    # when the innermost non-unit dim holds whole vectors, lanes differ in that dim only
    sizes = [size for size in root if size != 1]
    whole_rows = bool(sizes) and sizes[-1] % width == 0

    def body(kb, vector):
        base = kb.op("mul", vector, kb.constant(width, "i64"))
        lanes = {}                  # input -> its vector, loaded once however often it is read
        for key in vectored:
            if key[0] not in lanes:
                lanes[key[0]] = kb.vload(pointers[key[0]], base, width)
        invariant, lowerings = {}, []
        values = {v: [] for v in item.outputs}
        for lane in range(width):
            lowering = item_lowering.sibling(invariant)
            lowering.at_linear(base, root, lane,
                               lowerings[0].root if lane and whole_rows else None)
            for key in vectored:
                lowering.preload(key, lanes[key[0]][lane])
            for v in item.outputs:
                values[v].append(lowering.value(v, at_root, False))
            lowerings.append(lowering)
        for v, xs in values.items():        # stored after every lane is read: in place is safe
            if _vectorizable(v.type.dtype):
                kb.vstore(xs, pointers[v], base)
                continue
            for x, lowering in zip(xs, lowerings):
                kb.store(x, pointers[v], lowering.root.linear)

    first, stride = kb.global_index(), kb.grid_size()
    if count:
        kb.for_(first, kb.constant(count, "i64"), stride, [], body)
    if n % width:
        tail = kb.op("add", first, kb.constant(count * width, "i64")) if count else first
        _element_loop(kb, item_lowering, root, tail, stride)
    # the outline's domain for this width (the outline knows only the output's dtype)
    blocks = min(max(1, -(-n // (THREADS * width))), GRID_X_LIMIT)
    return kb.finish(), Schedule(Launch((blocks, 1, 1), (THREADS, 1, 1)), "vector")


# ---- tiled transpose --------------------------------------------------------------------------

def _transpose_plan(root, reads):
    """(a, inner, staged reads) for a tiled transpose (see the module doc), or None: `inner`
    is the output's innermost non-unit dim, `a` the output dim the staged reads walk at
    stride +-1; the staged reads fit the static shared memory."""
    inner = next((d for d in reversed(range(len(root))) if root[d] != 1), None)
    if inner is None:
        return None
    a, staged, used = None, [], 0
    for key, address in reads.items():
        if address is None or address[0] != "affine" or abs(address[1][inner]) <= 1:
            continue            # clamped, gathered or reshaped; or coalesced along the rows
        along = [d for d, c in enumerate(address[1]) if abs(c) == 1 and root[d] != 1]
        if not along or (a is not None and along[-1] != a):
            continue
        size = TILE * (TILE + 1) * numpy_dtype(_staged_dtype(key[0].type.dtype)).itemsize
        if used + size > STATIC_SHARED:
            break
        a, used = along[-1], used + size
        staged.append(key)
    return (a, inner, staged) if staged else None


def _staged_dtype(dtype):
    return "u8" if dtype == "i1" else dtype         # (shared memory holds no i1)


def _tiled_transpose(kb, item_lowering, root, a, inner, staged):
    from accy.lowering.kernelize import Schedule     # (kernelize imports this module)
    batch = [d for d in range(len(root)) if d not in (a, inner)]
    batches = math.prod(root[d] for d in batch)
    tiles_a, tiles_b = -(-root[a] // TILE), -(-root[inner] // TILE)
    shared = {key: kb.shared(_staged_dtype(key[0].type.dtype), TILE * (TILE + 1))
              for key in staged}
    tx, ty = (kb.convert(kb.special(f"tid.{axis}"), "i64") for axis in "xy")
    const = {n: kb.constant(n, "i64") for n in (TILE, TILE + 1, TILE_ROWS, root[a], root[inner])}

    def tile(kb, z, ta, tb):
        index = dict(zip(batch, item_lowering.unravel(z, [root[d] for d in batch])))
        a0, b0 = (kb.op("mul", t, const[TILE]) for t in (ta, tb))

        def rows(reading, write):
            """For each row j of the tile this thread takes: `write(lowering, slot)` at the
            element (a0 + tx, b0 + j) when `reading`, else (a0 + j, b0 + tx), if it is in
            range; `slot` is the element's place in a shared tile."""
            def row(kb, j):
                at_a, at_b = (tx, j) if reading else (j, tx)
                dims = dict(index)
                dims[a], dims[inner] = kb.op("add", a0, at_a), kb.op("add", b0, at_b)
                ok = kb.op("and", kb.cmp("LT", dims[a], const[root[a]]),
                           kb.cmp("LT", dims[inner], const[root[inner]]))

                def then(kb):
                    lowering = item_lowering.sibling()
                    lowering.root = [dims[d] for d in range(len(root))]
                    write(lowering, kb.op("add", kb.op("mul", at_b, const[TILE + 1]), at_a))
                kb.if_(ok, then)
            kb.for_(ty, const[TILE], const[TILE_ROWS], [], row)

        def stage(lowering, slot):
            for key, tile in shared.items():
                kb.store(kb.convert(lowering.value(*key), pointee(tile.type)), tile, slot)

        def compute(lowering, slot):
            for key, tile in shared.items():
                lowering.preload(key, kb.convert(kb.load(tile, slot), key[0].type.dtype))
            _store_outputs(kb, lowering, lowering.materialize(position_expression(root)))

        rows(True, stage)
        kb.barrier()
        rows(False, compute)
        kb.barrier()            # the tile is read before the block's next tile overwrites it

    def grid(axis, count, body):
        """A grid-stride loop over [0, count) along the grid's `axis`, then `body`."""
        return lambda kb, *outer: kb.for_(
            kb.convert(kb.special(f"ctaid.{axis}"), "i64"), kb.constant(count, "i64"),
            kb.convert(kb.special(f"nctaid.{axis}"), "i64"), [],
            lambda kb, i: body(kb, *outer, i))

    tiles = grid("y", tiles_a, grid("x", tiles_b, tile))
    if batches == 1:
        tiles(kb, None)         # (no batch index to walk)
    else:
        grid("z", batches, tiles)(kb)
    launch = Launch((min(tiles_b, GRID_X_LIMIT), min(tiles_a, GRID_YZ_LIMIT),
                     min(batches, GRID_YZ_LIMIT)), (TILE, TILE_ROWS, 1))
    return kb.finish(), Schedule(launch, "tiled_transpose")


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
        self.inputs = set(item.inputs)
        self.invariant = invariant
        self.memo = {} if memo is None else memo
        self.scopes = [({}, {})]    # per scope: (value, index exprs, clamped) -> kl value,
        self.root = []              # and index expression -> kl i64 value
        self.position = None        # the expression of the root's row-major position

    def sibling(self, invariant=None):
        """A new Lowering of the same item sharing this one's `memo`."""
        return Lowering(self.kb, self.layout, self.pointers, self.item, invariant, self.memo)

    def push(self):
        self.scopes.append(({}, {}))

    def pop(self):
        self.scopes.pop()

    def _find(self, which, key):
        for scope in reversed(self.scopes):
            found = scope[which].get(key)       # one lookup (one hash of `key`) per scope
            if found is not None:
                return found
        return None

    def remember(self, v, value):
        """Make `value` the value of `v` wherever the current scope reads it: the result of
        a reduce (for the thread's row), a dot_general or a scan step (at the thread's
        element), which the planner lets the item read only there."""
        self.scopes[-1][0][v] = value

    def preload(self, key, value):
        """Make `value` what the input read `key` (input, index exprs, clamped; see `reads`)
        gives in the current scope: a lane of a vector, an element of a shared tile."""
        self.scopes[-1][0][key] = value

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
                todo.append((op.operands[0], _gathered(op, idx, ("leaf", None)), clamped))
            todo += [read[:3] for read in reversed(self.operand_reads(op, idx, clamped))]
        return found

    # ---- index expressions -------------------------------------------------------------------
    # ("affine", coeffs over the root dims, offset) | ("sum", ((coeff, expr), ...), offset)
    # | ("floordiv", expr, d) | ("mod", expr, n) | ("leaf", kl value); all evaluate to i64

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
        if e == self.position:
            out = self.root.linear
        elif kind == "leaf":
            out = e[1]
        elif kind == "affine":
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
                out.append(("affine", (0,) * len(self.root), 0) if size == 1 else
                           ("mod", _div(lin, s), size))
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
        found = self._find(0, v)            # a remembered hero result
        if found is not None:
            return found
        key = (v, idx, clamped)
        found = self._find(0, key)
        if found is not None:
            return found
        if self.invariant is not None and all(e[0] == "affine" and not any(e[1]) for e in idx):
            found = self.invariant.get(key)
            if found is None:
                found = self.invariant[key] = self._value(v, idx, clamped)
            return found
        found = self.scopes[-1][0][key] = self._value(v, idx, clamped)
        return found

    def _value(self, v, idx, clamped):
        kb = self.kb
        if v in self.inputs:
            return self._load(v, idx, clamped)
        op = v.owner
        name = op.name.removeprefix("tensor.")
        dtype = v.type.dtype
        if name == "constant":      # a splat (the planner reads dense ones from memory)
            if dense_constant(op):
                raise AccyError(f"internal error: a dense constant {v.type} reached the "
                                f"elementwise lowering as an immediate (the schedule plan "
                                f"reads dense constants from constant buffers)")
            array = op.attributes["value"].array.reshape(-1)
            return kb.constant(array[0].item() if array.size else 0, dtype)
        if name == "iota":
            return kb.convert(self.materialize(idx[op.attributes["iota_dimension"]]), dtype)
        reads = self.operand_reads(op, idx, clamped)
        args = [self.value(operand, sub, c) for operand, sub, c, _ in reads]
        if name == "gather":
            return self._gather(op, args[0], idx, clamped)
        if name == "pad":
            guards = reads[0][3]
            return kb.op("select", self.condition(guards), *args) if guards else args[0]
        if name == "concatenate":
            out = args[-1]
            for x, read in zip(reversed(args[:-1]), reversed(reads[:-1])):
                out = kb.op("select", self.condition(read[3]), x, out)
            return out
        return self.compute(op, name, args, dtype)

    def operand_reads(self, op, idx, clamped):
        """(operand, its index expressions, clamped, guards) for each operand of `op` read at
        `idx` through its index map: a read under a guard that may fail (pad, concatenate)
        is clamped into range, and a select drops it where the guard fails. A gather's data
        operand is left out: it is read at the loaded index (`_gather`)."""
        key = (op, idx, clamped)
        found = self.memo.get(key)
        if found is None:
            operands = op.operands[1:] if op.name == "tensor.gather" else op.operands
            found = []
            for i, operand in enumerate(operands, len(op.operands) - len(operands)):
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
        return self.value(op.operands[0], _gathered(op, idx, ("leaf", k)), clamped)

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


@lru_cache(maxsize=64)
def identity_index(rank):
    """Index expressions reading a value of the root's shape at the root's own index."""
    return tuple(("affine", tuple(int(j == d) for j in range(rank)), 0) for d in range(rank))


@lru_cache(maxsize=1024)
def position_expression(shape):
    """The row-major position in a root of `shape` as an index expression (unit dims, always
    0, have coefficient 0 as in every normalized map)."""
    return ("affine", tuple(s if n != 1 else 0 for s, n in
                            zip(row_major_strides(shape), shape)), 0)


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

