"""StableHLO (parsed as unregistered ops) to the tensor dialect: one table row per op name.

`import_module` builds a fresh Module whose `builtin.func @main` is the StableHLO module's
public entry, with every `func.call` inlined, every op checked by its tensor rule as it is made,
and each op's declared result type compared with what accy infers.
"""
import re

import numpy as np

from accy._core.attributes import DenseAttr
from accy._core.context import Builder, Context, Module
from accy._core.types import FunctionType, TensorType
from accy.errors import AccyError, ShapeError, TypeError as DTypeError, UnsupportedError
from accy.stablehlo import chlo, forms
from accy.tensor.build import Emitter, reduce_kind, identity

# StableHLO name -> tensor name, for the ops that map one to one with no attributes
SAME = ("add subtract multiply divide remainder power maximum minimum and or xor shift_left "
        "shift_right_arithmetic shift_right_logical atan2 negate abs sign not popcnt "
        "count_leading_zeros log sqrt rsqrt tanh logistic floor ceil "
        "round_nearest_even round_nearest_afz cbrt tan is_finite select clamp").split()
RENAMED = {"exponential": "exp", "exponential_minus_one": "expm1", "log_plus_one": "log1p",
           "sine": "sin", "cosine": "cos"}
DIRECT = {**{f"stablehlo.{n}": f"tensor.{n}" for n in SAME},
          **{f"stablehlo.{n}": f"tensor.{t}" for n, t in RENAMED.items()},
          "chlo.erf": "tensor.erf", "chlo.tan": "tensor.tan"}
# ops whose result type is given, not inferred
TYPED = {"stablehlo.convert": "tensor.convert", "stablehlo.bitcast_convert": "tensor.bitcast_convert",
         "stablehlo.reshape": "tensor.reshape"}


MAX_DEPTH = 64          # regions and inlined calls, one inside the other
# The dialects an imported program's ops come from (accy's own IR has builtin and tensor ops).
IMPORTED_DIALECTS = frozenset(("stablehlo", "chlo", "func", "sdy", "mhlo"))
# compare_type -> the dtypes it compares (StableHLO: SIGNED for signed integers, UNSIGNED for
# unsigned ones and i1, FLOAT and TOTALORDER for floats)
COMPARE_TYPES = {"SIGNED": ("i8", "i16", "i32", "i64"), "UNSIGNED": ("u8", "i1"),
                 "FLOAT": ("f16", "bf16", "f32", "f64"), "TOTALORDER": ("f16", "bf16", "f32",
                                                                       "f64")}


class Importer:
    """Translates one StableHLO module's entry; `values` maps its Values to the new ones."""

    def __init__(self, module, lines):
        self.functions = {}
        for op in module.body.operations:
            if op.name == "func.func":
                name = op.attributes.get("sym_name")
                if not isinstance(name, str) or len(op.regions) != 1:
                    raise UnsupportedError("a func.func needs a sym_name and one region")
                self.functions[name] = op
        self.line_of = _lines_of_ops(module, lines)
        self.values = {}
        self.calls = []             # the func.call stack (no recursion)
        self.depth = 0              # blocks being translated, one inside the other

    # -- the entry -------------------------------------------------------------------------
    def entry(self):
        public = [f for f in self.functions.values()
                  if f.attributes.get("sym_visibility", "public") == "public"]
        named = [f for f in public if f.attributes["sym_name"] == "main"]
        func = (named or public or [None])[0] if len(named) == 1 or len(public) == 1 else None
        if func is None:
            raise UnsupportedError(f"a StableHLO module needs one public function (or a public "
                                   f"@main) as its entry, found "
                                   f"{sorted(f.attributes['sym_name'] for f in public) or 'none'}")
        return func

    def run(self):
        func = self.entry()
        block = func.regions[0].entry
        if block is None:
            raise UnsupportedError(f"the entry @{func.attributes['sym_name']} has no body")
        ctx = Context()
        module = Module.create(ctx)
        ins = [_tensor_type(a.type, "argument") for a in block.arguments]
        main = Builder(ctx).at_end(module.body).create("builtin.func", attributes={
            "sym_name": "main", "function_type": FunctionType(ins, [])})
        new_block = main.regions[0].add_block(ins)
        emitter = Emitter(Builder(ctx).at_end(new_block))
        results = self.block(emitter, block, new_block.arguments)
        declared = func.attributes.get("function_type")
        got = [v.type for v in results]
        if not isinstance(declared, FunctionType) or list(declared.results) != got:
            raise DTypeError(f"@{func.attributes['sym_name']} declares the results "
                             f"{getattr(declared, 'results', '?')}, its body returns "
                             f"({', '.join(map(str, got))})")
        emitter.builder.create("builtin.return", results)
        main.set_attribute("function_type", FunctionType(ins, [v.type for v in results]))
        module.verify()
        return module

    def block(self, emitter, block, args):
        """Translate `block`'s ops with its arguments bound to `args`; returns what its
        terminator returns."""
        have, given = [a.type for a in block.arguments], [v.type for v in args]
        if have != given:
            raise UnsupportedError(f"a block takes ({', '.join(map(str, have))}) where its op "
                                   f"gives it ({', '.join(map(str, given))})")
        if self.depth >= MAX_DEPTH:
            raise UnsupportedError(f"regions and calls are nested more than {MAX_DEPTH} deep")
        self.depth += 1
        try:
            for old, new in zip(block.arguments, args):
                self.values[old] = new
            for op in block.operations:
                if op.name in ("func.return", "stablehlo.return", "return"):
                    return self._operands(op)
                self.op(emitter, op)
            raise UnsupportedError("a block without a terminator")
        finally:
            self.depth -= 1

    def body(self, region):
        """A region body as Emitter's builders take it: fn(emitter, *args) -> values."""
        blocks = region.blocks
        if len(blocks) != 1:
            raise forms.Refused("regions of more than one block are not supported")
        return lambda e, *args: self.block(e, blocks[0], args)

    def op(self, emitter, op):
        name = op.name
        line = self.line_of.get(op, "?")
        try:
            rule = ROWS.get(name)
            if rule is None and len(op.results) != 1:
                raise UnsupportedError(f"declares {len(op.results)} results, not one")
            _check_shape(op)
            if rule is None:
                if name in DIRECT:
                    results = [emitter.op(DIRECT[name], *self._operands(op))]
                elif name in TYPED:
                    results = [emitter.op(TYPED[name], *self._operands(op),
                                          result_type=_result(op))]
                else:
                    raise UnsupportedError(_unsupported(op))
            else:
                results = rule(self, emitter, op)
        except AccyError as e:
            raise type(e)(f"line {line}: '{name}': {e}") if _plain(e) else e from None
        if len(results) != len(op.results):
            raise UnsupportedError(f"line {line}: '{name}' gives {len(results)} results, "
                                   f"the text declares {len(op.results)}")
        for old, new in zip(op.results, results):
            if _tensor_type(old.type, "result") != new.type:
                raise DTypeError(f"line {line}: '{name}' declares the result type {old.type}, "
                                 f"accy infers {new.type}")
            self.values[old] = new

    def _operands(self, op):
        return [self._value(v) for v in op.operands]

    def _value(self, v):
        new = self.values.get(v)
        if new is None:
            raise UnsupportedError("uses a value before it is defined (or one defined in "
                                   "another function)")
        return new


def _check_shape(op):
    """The op has as many operands and regions as its row takes (the parser reads any)."""
    low, high, regions = ARITY.get(op.name, (0, None, 0))
    n = len(op.operands)
    if n < low or (high is not None and n > high):
        want = f"{low}" if low == high else f"{low} or more" if high is None else \
            f"{low} to {high}"
        raise UnsupportedError(f"takes {want} operands, got {n}")
    if len(op.regions) != regions and not (regions is None and op.regions):
        raise UnsupportedError(f"takes {regions if regions is not None else 'one or more'} "
                               f"regions, got {len(op.regions)}")


def _plain(e):
    """Errors that carry no position of their own (a ParseError or VerifyError keeps its own)."""
    return type(e) in (UnsupportedError, forms.Refused, ShapeError, DTypeError)


def _unsupported(op):
    if op.name == "stablehlo.custom_call":
        target = op.attributes.get("call_target_name", "?")
        return f"custom_call @{target} is not supported: accy compiles StableHLO ops only"
    return f"{op.name} is not supported (docs/stablehlo.md lists the ops accy imports)"


def _tensor_type(t, what):
    if not isinstance(t, TensorType):
        raise UnsupportedError(f"the {what} type {t} is not a tensor type accy supports")
    return t


def _result(op, i=0):
    if i >= len(op.results):
        raise UnsupportedError(f"declares {len(op.results)} results, needs {i + 1}")
    return _tensor_type(op.results[i].type, "result")


# -- rows: fn(importer, emitter, op) -> result values --------------------------------------------
_REQUIRED = object()


def _need(op, name):
    value = op.attributes.get(name)
    if value is None:
        raise UnsupportedError(f"needs the attribute {name}")
    return value


def _int(op, name, default=_REQUIRED):
    a = _need(op, name) if default is _REQUIRED else op.attributes.get(name, default)
    a = getattr(a, "value", a)
    if type(a) is not int:
        raise UnsupportedError(f"the attribute {name} must be an integer, got {a!r}")
    return a


def _attr_ints(op, name, default=_REQUIRED):
    a = _need(op, name) if default is _REQUIRED else op.attributes.get(name)
    return default if a is None else forms.ints(a)


def _constant(imp, e, op):
    value = op.attributes.get("value")
    if not isinstance(value, DenseAttr):
        raise UnsupportedError(f"a constant needs a dense value, got {value!r}")
    return [e.op("tensor.constant", value=value)]


def _compare(imp, e, op):
    x, y = imp._operands(op)
    direction = forms.enum(_need(op, "comparison_direction"), "comparison_direction")
    kind = forms.enum(op.attributes.get("compare_type"), "comparison_type")
    if kind is not None and x.type.dtype not in COMPARE_TYPES.get(kind, ()):
        raise DTypeError(f"compare_type {kind} does not compare {x.type.dtype} (it compares "
                         f"{', '.join(COMPARE_TYPES.get(kind, ())) or 'nothing'})")
    if kind == "TOTALORDER":
        x, y = chlo.total_order_key(e, x), chlo.total_order_key(e, y)
        kind = "SIGNED"
    return [e.op("tensor.compare", x, y, comparison_direction=direction, compare_type=kind)]


def _iota(imp, e, op):
    return [e.op("tensor.iota", iota_dimension=_int(op, "iota_dimension"),
                 result_type=_result(op))]


def _broadcast(imp, e, op):
    (x,) = imp._operands(op)
    return [e.op("tensor.broadcast_in_dim", x, result_type=_result(op),
                 broadcast_dimensions=_attr_ints(op, "broadcast_dimensions"))]


def _transpose(imp, e, op):
    (x,) = imp._operands(op)
    return [e.op("tensor.transpose", x, permutation=_attr_ints(op, "permutation"))]


def _slice(imp, e, op):
    (x,) = imp._operands(op)
    return [e.op("tensor.slice", x, start_indices=_attr_ints(op, "start_indices"),
                 limit_indices=_attr_ints(op, "limit_indices"),
                 strides=_attr_ints(op, "strides", None))]


def _concatenate(imp, e, op):
    return [e.op("tensor.concatenate", *imp._operands(op),
                 dimension=_int(op, "dimension"))]


def _pad(imp, e, op):
    x, value = imp._operands(op)
    return [e.op("tensor.pad", x, value, edge_padding_low=_attr_ints(op, "edge_padding_low"),
                 edge_padding_high=_attr_ints(op, "edge_padding_high"),
                 interior_padding=_attr_ints(op, "interior_padding", None))]


def _reverse(imp, e, op):
    (x,) = imp._operands(op)
    return [e.op("tensor.reverse", x, dimensions=_attr_ints(op, "dimensions"))]


def _dynamic_slice(imp, e, op):
    return [e.op("tensor.dynamic_slice", *imp._operands(op),
                 slice_sizes=_attr_ints(op, "slice_sizes"))]


def _dynamic_update_slice(imp, e, op):
    return [e.op("tensor.dynamic_update_slice", *imp._operands(op))]


def _dot_general(imp, e, op):
    lhs, rhs = imp._operands(op)
    dims = forms.fields(_need(op, "dot_dimension_numbers"), "dot")
    for name in ("algorithm",):
        if name in op.attributes:
            raise forms.Refused(f"dot_general's {name} is not supported")
    names = ("lhs_batching_dimensions", "rhs_batching_dimensions",
             "lhs_contracting_dimensions", "rhs_contracting_dimensions")
    return [e.op("tensor.dot_general", lhs, rhs, result_type=_result(op),
                 **{n: dims.get(n, ()) for n in names})]


def _dot(imp, e, op):
    lhs, rhs = imp._operands(op)
    if lhs.type.rank not in (1, 2) or rhs.type.rank not in (1, 2):
        raise forms.Refused("stablehlo.dot takes rank-1 or rank-2 operands")
    return [e.op("tensor.dot_general", lhs, rhs, result_type=_result(op),
                 lhs_contracting_dimensions=(lhs.type.rank - 1,),
                 rhs_contracting_dimensions=(0,))]


def _reduce(imp, e, op):
    operands = imp._operands(op)
    n = len(operands) // 2
    return list(e.reduce(operands[:n], operands[n:], _attr_ints(op, "dimensions"),
                         imp.body(op.regions[0])))


def _reduce_window(imp, e, op):
    operands = imp._operands(op)
    if len(operands) != 2:
        raise forms.Refused("variadic reduce_windows are not supported")
    x, init = operands
    d, reverse = forms.scan_plan(x.type.shape, op.attributes)
    out = e.scan(x, init, d, imp.body(op.regions[0]), reverse=reverse)
    kind = reduce_kind(out.owner)
    # The window is padded with init: the scan equals it when init is the body's identity.
    if kind is None or not _is_value(init, identity(kind, x.type.dtype)):
        out.owner.erase()
        raise forms.Refused("a cumulative reduce_window needs a sum, product, max or min body "
                            "with its identity as the init value")
    return [out]


def _is_value(v, expected):
    owner = v.owner
    while owner is not None and owner.name == "tensor.broadcast_in_dim" and not v.type.rank:
        v = owner.operands[0]
        owner = v.owner
    if owner is None or owner.name != "tensor.constant":
        return False
    array = owner.attributes["value"].array
    return array.size == 1 and np.array_equal(array.reshape(()), expected, equal_nan=True)


def _gather(imp, e, op):
    x, idx = imp._operands(op)
    out = _result(op)
    mode, axis, batch, perm, cut = forms.gather_plan(x.type.shape, idx.type.shape, out.shape,
                                                     op.attributes)
    y = e.op("tensor.gather", x, e.reshape(idx, batch), axis=axis, mode=mode)
    if cut is not None:
        limits = tuple(s if c is None else c for s, c in zip(y.type.shape, cut))
        y = e.op("tensor.slice", y, start_indices=(0,) * len(limits), limit_indices=limits,
                 strides=(1,) * len(limits))
    if perm is not None:
        y = e.op("tensor.transpose", y, permutation=perm)
    return [y]


def _scatter(imp, e, op):
    operands = imp._operands(op)
    if len(operands) != 3:
        raise forms.Refused("variadic scatters are not supported")
    x, idx, updates = operands
    axis, batch, order = forms.scatter_plan(x.type.shape, idx.type.shape, updates.type.shape,
                                            op.attributes)
    if order is not None:
        updates = e.op("tensor.transpose", updates, permutation=order)
    return [e.scatter(x, e.reshape(idx, batch), updates, axis, imp.body(op.regions[0]))]


def _sort(imp, e, op):
    operands = imp._operands(op)
    d = _int(op, "dimension", -1)
    rank = operands[0].type.rank if operands else 0
    return list(e.sort(operands, d + rank if -rank <= d < 0 else d, imp.body(op.regions[0])))


def _while(imp, e, op):
    cond, body = op.regions
    return list(e.iterate(imp._operands(op), imp.body(cond), imp.body(body)))


def _case(imp, e, op):
    (index,) = imp._operands(op)
    return list(e.case(index, [imp.body(r) for r in op.regions]))


def _if(imp, e, op):
    (pred,) = imp._operands(op)
    index = e.op("tensor.select", pred, e.constant(0, "i32"), e.constant(1, "i32"))
    return list(e.case(index, [imp.body(r) for r in op.regions]))


def _barrier(imp, e, op):
    return imp._operands(op)


def _call(imp, e, op):
    callee = getattr(_need(op, "callee"), "name", None)
    func = imp.functions.get(callee)
    if func is None or func.regions[0].entry is None:
        raise UnsupportedError(f"calls @{callee}, which the module does not define")
    if callee in imp.calls:
        raise UnsupportedError(f"@{callee} calls itself (recursion cannot be inlined)")
    entry = func.regions[0].entry
    operands = imp._operands(op)
    if [a.type for a in entry.arguments] != [v.type for v in operands]:
        raise UnsupportedError(f"passes ({', '.join(str(v.type) for v in operands)}) to "
                               f"@{callee}, which takes "
                               f"({', '.join(str(a.type) for a in entry.arguments)})")
    imp.calls.append(callee)
    try:
        return imp.block(e, entry, operands)
    finally:
        imp.calls.pop()


def _chlo(rule):
    return lambda imp, e, op: rule(e, imp._operands(op), op.attributes,
                                   [_result(op, i) for i in range(len(op.results))])


ROWS = {
    "stablehlo.constant": _constant, "stablehlo.compare": _compare, "stablehlo.iota": _iota,
    "stablehlo.broadcast_in_dim": _broadcast, "stablehlo.transpose": _transpose,
    "stablehlo.slice": _slice, "stablehlo.concatenate": _concatenate, "stablehlo.pad": _pad,
    "stablehlo.reverse": _reverse, "stablehlo.dynamic_slice": _dynamic_slice,
    "stablehlo.dynamic_update_slice": _dynamic_update_slice,
    "stablehlo.dot_general": _dot_general, "stablehlo.dot": _dot, "stablehlo.reduce": _reduce,
    "stablehlo.reduce_window": _reduce_window, "stablehlo.gather": _gather,
    "stablehlo.scatter": _scatter, "stablehlo.sort": _sort, "stablehlo.while": _while,
    "stablehlo.case": _case, "stablehlo.if": _if, "stablehlo.optimization_barrier": _barrier,
    "func.call": _call, "call": _call,
    **{name: _chlo(rule) for name, rule in chlo.RULES.items()},
}
_BINARY = {f"stablehlo.{n}" for n in SAME[:SAME.index("negate")]}
# name -> (fewest operands, most (None: any), regions (None: one or more)); the rest take 0
# to any operands and no region (constant, iota, barrier, func.call check their own)
ARITY = {
    **{name: (2, 2, 0) if name in _BINARY else (1, 1, 0) for name in DIRECT},
    "stablehlo.select": (3, 3, 0), "stablehlo.clamp": (3, 3, 0),
    **{name: (1, 1, 0) for name in TYPED},
    **{name: (1, 1, 0) for name in chlo.RULES}, "chlo.next_after": (2, 2, 0),
    "stablehlo.constant": (0, 0, 0), "stablehlo.iota": (0, 0, 0),
    "stablehlo.compare": (2, 2, 0), "stablehlo.broadcast_in_dim": (1, 1, 0),
    "stablehlo.transpose": (1, 1, 0), "stablehlo.slice": (1, 1, 0),
    "stablehlo.concatenate": (1, None, 0), "stablehlo.pad": (2, 2, 0),
    "stablehlo.reverse": (1, 1, 0), "stablehlo.dynamic_slice": (1, None, 0),
    "stablehlo.dynamic_update_slice": (2, None, 0), "stablehlo.dot_general": (2, 2, 0),
    "stablehlo.dot": (2, 2, 0), "stablehlo.reduce": (2, None, 1),
    "stablehlo.reduce_window": (2, None, 1), "stablehlo.gather": (2, 2, 0),
    "stablehlo.scatter": (3, None, 1), "stablehlo.sort": (1, None, 1),
    "stablehlo.while": (1, None, 2), "stablehlo.case": (1, 1, None), "stablehlo.if": (1, 1, 2),
}
SUPPORTED = frozenset(ROWS) | frozenset(DIRECT) | frozenset(TYPED)

_OP_START = re.compile(r'^[^"\n]*?(?:=\s*|^\s*)"?([A-Za-z_][\w$]*\.[\w.$]+)"?', re.M)
# the op a pretty reduce's `applies stablehlo.add` makes in its body, on the reduce's line
_APPLIES = re.compile(r"\bapplies\s+([A-Za-z_][\w$]*\.[\w.$]+)")
_PRETTY_CALL = re.compile(r"^[^\"\n]*?=\s*call\s+@", re.M)      # `%0 = call @f(...)`


def op_lines(text):
    """Each op name -> the 1-based lines where ops of that name start, in text order (the
    order the parser reads them, and the importer walks them)."""
    lines = {}
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    found = [(m.start(1), m.group(1)) for m in _OP_START.finditer(text)]
    found += [(m.start(1), m.group(1)) for m in _APPLIES.finditer(text)]
    found += [(m.start(), "func.call") for m in _PRETTY_CALL.finditer(text)]
    for pos, name in sorted(found):
        lines.setdefault(name, []).append(_bisect(starts, pos))
    return lines


def _lines_of_ops(module, lines):
    """Each op of `module` -> its line: the k-th op of a name in the parser's order starts on
    the k-th line `lines` holds for that name."""
    out, counts = {}, {}
    for top in module.body.operations:
        for op in top.walk():
            k = counts.get(op.name, 0)
            counts[op.name] = k + 1
            found = lines.get(op.name, ())
            if k < len(found):
                out[op] = found[k]
    return out


def _bisect(starts, pos):
    lo, hi = 0, len(starts)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if starts[mid] <= pos:
            lo = mid
        else:
            hi = mid
    return lo + 1
