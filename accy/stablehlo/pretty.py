"""StableHLO's pretty form (JAX's `as_text()`) rewritten as MLIR's generic form, which accy's
parser reads (docs/stablehlo-pretty.md).

    to_generic(text) -> str    the module as MLIR prints it with print_generic_op_form
    is_pretty(text) -> bool    whether the text is in the pretty form

A tokenizer and a recursive-descent reader that copies types and most attributes as written
and respells what a custom format spells its own way. Most ops follow a row of the format
table (_ROWS); the module, functions, constant, while, reduce and optimization_barrier have
readers of their own.
"""
import itertools
import re

from accy import errors

_TOKEN = re.compile(r"""
    [ \t\r\n]+ | //[^\n]*
  | (?P<s>"(?:[^"\\\n]|\\.)*")
  | (?P<v>%[A-Za-z0-9_$.\-]+(?:\#[0-9]+)?)
  | (?P<b>\^[A-Za-z0-9_$.\-]+)
  | (?P<y>@(?:[A-Za-z0-9_$.\-]+|"(?:[^"\\\n]|\\.)*"))
  | (?P<h>\#[A-Za-z0-9_$.\-]+)
  | (?P<t>![A-Za-z0-9_$.\-]+)
  | (?P<n>0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?)
  | (?P<i>[A-Za-z_][A-Za-z0-9_$.]*)
  | (?P<p>->|[()\[\]{}<>,:=?*+\-|])
  | (?P<x>.)
""", re.X | re.S)
_CLOSE = {"(": ")", "[": "]", "{": "}", "<": ">"}
_LEADING = re.compile(r"(?:\s+|//[^\n]*|[#!][A-Za-z0-9_$.\-]+[ \t]*=[^\n]*)*")
_DIMS = re.compile(r"(?:(?:[0-9]+|\?|\*)x)*")
MAX_NESTING = 100        # regions, attributes and types inside each other (the reader recurses)
# reduce's `applies` form takes a commutative binary op of its own dialect
_COMMUTATIVE = {"add", "multiply", "maximum", "minimum", "and", "or", "xor"}
_WINDOW = {"stride": "window_strides", "pad": "padding", "lhs_dilate": "lhs_dilation",
           "rhs_dilate": "rhs_dilation", "reverse": "window_reversal"}
_FUNC_OWN = {"sym_name", "sym_visibility", "function_type", "arg_attrs", "res_attrs", "no_inline"}
_MODULE_OWN = {"sym_name", "sym_visibility"}


def is_pretty(text):
    """Whether `text` (a module) is in the pretty form: its first op, after comments and alias
    definitions, is not a quoted op name."""
    rest = text[_LEADING.match(text).end():]
    return rest[:1] not in ('"', "")


def to_generic(text):
    """`text`, a module in StableHLO's pretty form (with or without locations), in MLIR's
    generic form. Ops already in the generic form are kept; so the generic form reads too."""
    return translate(text)[0]


def translate(text):
    """(to_generic(text), where each generic line comes from: its 1-based line number -> the
    character offset in `text` of the op it spells (the head and the closing line of an op with
    regions both map to the op); lines that spell no op, such as block labels, are absent)."""
    if not isinstance(text, str):
        raise errors.TypeError(f"to_generic takes the module's text (a str), not {type(text)}")
    reader = _Reader(text)
    generic = reader.module()
    origins, pending = {}, {line: list(reversed(at)) for line, at in reader.spelled.items()}
    for number, line in enumerate(generic.splitlines(), 1):
        at = pending.get(line.strip())
        if at:
            origins[number] = at.pop()
    return generic, origins


# ---- the op formats -----------------------------------------------------------------------------
#
# A format is a sequence of words, read in order:
#   %            one operand                 %*   operands, comma separated (maybe none)
#   %,*          operands, each followed by a comma
#   NAME=KIND    the attribute NAME, written as KIND (_Reader.kind_KIND; `KIND:ARG` passes ARG)
#   {}           an optional attribute dictionary
#   (? ... ?)    an optional group, present when its first word (a literal) is next
#   ^(           a region whose entry block's arguments are listed before it, `(%a: t) {...}`
#   :KIND        the op's types, written as KIND (_Reader.types_<KIND>)
#   anything else is a literal token.
# Each row: dialect, op names, format, and the attributes an attribute dictionary may give that
# are the op's own (held as properties) besides those its format names.

_ROWS = (
    ("stablehlo", "abs ceil convert count_leading_zeros floor imag not negate popcnt real "
                  "round_nearest_afz round_nearest_even sign", "% {} :same", ""),
    ("stablehlo", "cbrt cosine exponential exponential_minus_one log log_plus_one logistic rsqrt "
                  "sine sqrt tan tanh", "% {} :same", "result_accuracy"),
    ("stablehlo", "add atan2 divide maximum minimum multiply power remainder shift_left "
                  "shift_right_arithmetic shift_right_logical subtract and or xor",
     "% , % {} :same", ""),
    ("stablehlo", "clamp", "% , % , % {} :same", ""),
    ("stablehlo", "after_all", "%* {} :same", ""),
    ("stablehlo", "create_token", "{} :same", ""),
    ("stablehlo", "complex", "% , % {} :complex", ""),
    ("stablehlo", "select", "% , % , % {} :select", ""),
    ("stablehlo", "tuple", "%* {} :tuple", ""),
    ("stablehlo", "is_finite bitcast_convert reshape dynamic_reshape dynamic_update_slice "
                  "real_dynamic_slice dynamic_pad", "%* {} :fn", ""),
    ("stablehlo", "get_tuple_element", "% [ index=integer:i32 ] {} :fn", ""),
    ("stablehlo", "iota", "dim = iota_dimension=integer:i64 {} :result", ""),
    ("stablehlo", "dynamic_iota", "% , dim = iota_dimension=integer:i64 {} :fn", ""),
    ("stablehlo", "replica_id partition_id", "{} :result", ""),
    ("stablehlo", "compare", "comparison_direction=enum:comparison_direction , % , % "
                             "(? , compare_type=enum:comparison_type ?) {} :fn", ""),
    ("stablehlo", "slice", "% start_indices=slices {} :fn", "limit_indices strides"),
    ("stablehlo", "dynamic_slice", "% , %,* sizes = slice_sizes=i64s {} :fn", ""),
    ("stablehlo", "broadcast", "% , sizes = broadcast_sizes=i64s {} :fn", ""),
    ("stablehlo", "broadcast_in_dim", "% , dims = broadcast_dimensions=i64s {} :fn", ""),
    ("stablehlo", "dynamic_broadcast_in_dim", "% , % , dims = broadcast_dimensions=i64s {} :fn",
     "known_expanding_dimensions known_nonexpanding_dimensions"),
    ("stablehlo", "cholesky", "% (? , lower = lower=boolean ?) {} :same", ""),
    ("stablehlo", "concatenate", "%,* dim = dimension=integer:i64 {} :fn", ""),
    ("stablehlo", "composite", "name=string %* {} :fn",
     "composite_attributes decomposition version"),
    ("stablehlo", "convolution", "( %* ) dim_numbers = dimension_numbers=conv , "
                                 "window = { window_strides=window } {} :fn",
     "padding lhs_dilation rhs_dilation window_reversal feature_group_count batch_group_count "
     "precision_config"),
    ("stablehlo", "custom_call", "call_target_name=symbol_name ( %* ) {} :fn",
     "api_version backend_config called_computations has_side_effect operand_layouts "
     "output_operand_aliases result_layouts"),
    ("stablehlo", "dot", "% , % precision_config=precision {} :fn", ""),
    ("stablehlo", "dot_general", "% , % , dot_dimension_numbers=dot_dims "
                                 "precision_config=precision:algorithm {} :fn", "algorithm"),
    ("stablehlo", "einsum", "% , % , config = einsum_config=string {} :fn", ""),
    ("stablehlo", "unary_einsum", "% , config = einsum_config=string {} :fn", ""),
    ("stablehlo", "fft", "% , type = fft_type=enum:fft_type , length = fft_length=i64s {} :fn",
     ""),
    ("stablehlo", "get_dimension_size", "% , dim = dimension=integer:i64 {} :fn", ""),
    ("stablehlo", "set_dimension_size", "% , % , dim = dimension=integer:i64 {} :fn", ""),
    ("stablehlo", "reverse", "% , dims = dimensions=i64s {} :same", ""),
    ("stablehlo", "pad", "% , % , low = edge_padding_low=i64s , high = edge_padding_high=i64s , "
                         "interior = interior_padding=i64s {} :fn", ""),
    ("stablehlo", "transpose", "% , dims = permutation=i64s {} :fn", ""),
    ("stablehlo", "rng", "% , % , % , distribution = rng_distribution=enum:rng_distribution "
                         "{} :fn", ""),
    ("stablehlo", "rng_bit_generator", "% , algorithm = rng_algorithm=enum:rng_algorithm {} :fn",
     ""),
    ("stablehlo", "reduce_precision", "% , format = exponent_bits=exponent_mantissa {} :same",
     "mantissa_bits"),
    ("stablehlo", "return", "%* {} :listed", ""),
    ("func", "return", "%* {} :listed", ""),
    ("func", "call", "callee=symbol ( %* ) {} :fn", "arg_attrs res_attrs no_inline"),
    ("chlo", "acos acosh asin asinh atan atanh bessel_i1e conj cosh sinh tan digamma erf erf_inv "
             "erfc is_inf is_neg_inf is_pos_inf lgamma square _asin_acos_kernel",
     "% {} :arrow", ""),
    ("chlo", "next_after polygamma zeta mulhi", "% , % {} :arrow", ""),
    ("chlo", "broadcast_add broadcast_atan2 broadcast_divide broadcast_maximum broadcast_minimum "
             "broadcast_multiply broadcast_next_after broadcast_polygamma broadcast_power "
             "broadcast_remainder broadcast_shift_left broadcast_shift_right_arithmetic "
             "broadcast_shift_right_logical broadcast_subtract broadcast_zeta broadcast_and "
             "broadcast_or broadcast_xor broadcast_complex", "% , % {} :arrow",
     "broadcast_dimensions"),
    ("chlo", "broadcast_compare", "% , % {} :arrow",
     "broadcast_dimensions comparison_direction compare_type"),
    ("chlo", "broadcast_select", "% , % , % {} :arrow", ""),
    ("chlo", "constant", "{} value=value", ""),
    ("chlo", "top_k", "( % , k = k=integer:i64 (? , is_stable = is_stable=boolean ?) ) {} :arrow",
     ""),
    ("sdy", "mesh", "sym_name=symbol_name = mesh=stripped:#sdy.mesh {}", ""),
    ("sdy", "sharding_constraint reshard", "% sharding=stripped:#sdy.sharding {} :result", ""),
    ("sdy", "return", "{} %* :listed", ""),
    ("sdy", "manual_computation",
     "( %* ) in_shardings = in_shardings=stripped:#sdy.sharding_per_value< "
     "out_shardings = out_shardings=stripped:#sdy.sharding_per_value< "
     "manual_axes = manual_axes=stripped:#sdy<manual_axes ^( {} :fn", ""),
)


# ---- text helpers -------------------------------------------------------------------------------

def _unquoted(name):
    return name[1:-1] if name.startswith('"') else name


def _key(item):
    return _unquoted(item[0])


def _dict_text(items):
    return "{" + ", ".join(k if v is None else f"{k} = {v}"
                           for k, v in sorted(items.items(), key=_key)) + "}"


def _fn_text(ins, outs):
    single = len(outs) == 1 and not outs[0].startswith("(")
    return f"({', '.join(ins)}) -> " + (outs[0] if single else f"({', '.join(outs)})")


def _int(tok):
    """An integer literal: decimal (leading zeros too) or 0x hex."""
    return int(tok, 16) if tok.startswith("0x") else int(tok)


def _i64s(values):
    return f"array<i64: {', '.join(values)}>" if values else "array<i64>"


def _split_top(body):
    """`body` split at its commas outside brackets."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(body):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}" and body[k - 1:k + 1] != "->":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:k].strip())
            start = k + 1
    parts.append(body[start:].strip())
    return [p for p in parts if p]


class _Op:
    """An op as the generic form spells it; each field's text is ready to print."""
    __slots__ = ("name", "operands", "successors", "props", "regions", "attrs", "ins", "outs",
                 "loc")

    def __init__(self, name):
        self.name = name
        self.operands, self.props, self.regions, self.attrs = [], {}, [], {}
        self.ins, self.outs, self.successors, self.loc = [], [], "", ""

    def lines(self, indent, results):
        pad = "  " * indent
        head = f'{pad}{results}"{self.name}"({", ".join(self.operands)}){self.successors}'
        if self.props:
            head += f" <{_dict_text(self.props)}>"
        tail = (f" {_dict_text(self.attrs)}" if self.attrs else "")
        tail += f" : {_fn_text(self.ins, self.outs)}{self.loc}"
        if not self.regions:
            return [head + tail]
        out = [head + " ({"]
        for k, region in enumerate(self.regions):
            if k:
                out.append(pad + "}, {")
            out.extend(region)
        out.append(pad + "})" + tail)
        return out


# ---- the reader ---------------------------------------------------------------------------------

def _fail(text, pos, message):
    raise error_at(text, pos, message)


def error_at(text, pos, message):
    """A ParseError at character `pos` of `text`, with the line and a caret under the column."""
    line = text.count("\n", 0, pos) + 1
    line_start = text.rfind("\n", 0, pos) + 1
    line_end = text.find("\n", pos)
    line_text = text[line_start:line_end if line_end >= 0 else len(text)]
    col = caret = pos - line_start + 1
    if len(line_text) > 160:             # a window of a long line around the column
        lo = max(0, col - 80)
        line_text, caret = line_text[lo:lo + 160], caret - lo
    return errors.ParseError(message, line, col, line_text + "\n" + " " * (caret - 1) + "^")


def _tokens(text):
    """The tokens of `text` as three lists (kind, text, start), ending in an end token 'e'."""
    kinds, toks, starts = [], [], []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind is not None:
            if kind == "x":
                unclosed = text.startswith(('"', '@"'), m.start())
                what = "an unclosed string" if unclosed else repr(m.group())
                _fail(text, m.start(), f"unexpected character: {what}")
            kinds.append(kind)
            toks.append(m.group())
            starts.append(m.start())
    kinds.append("e")
    toks.append("")
    starts.append(len(text))
    return kinds, toks, starts


class _Reader:
    def __init__(self, text):
        self.text = text
        self.kinds, self.toks, self.starts = _tokens(text)
        self.i = 0
        self.op_name = None          # the op being read, named by errors
        self.depth = 0
        self.dialects = [""]         # the default dialect of each region being read
        self.type_aliases = {}       # `!name = type`, for the readers that look into a type
        self.last = None             # the name of the op read last
        self.spelled = {}            # a generic line (stripped) -> the ops' offsets, read order
        prefix = "%_"                # names for the values MLIR makes: none is in the text
        while prefix in text:
            prefix += "_"
        self.fresh = (f"{prefix}{k}" for k in itertools.count())

    # -- tokens --

    def error(self, message, at=None):
        if self.op_name:
            message = f"{self.op_name}: {message}"
        _fail(self.text, self.starts[self.i if at is None else at], message)

    def found(self):
        tok = self.toks[self.i]
        return f"'{tok[:40]}'" if tok else "the end of the text"

    def accept(self, tok):
        if self.toks[self.i] == tok:
            self.i += 1
            return True
        return False

    def expect(self, tok):
        if self.toks[self.i] != tok:
            self.error(f"expected '{tok}', found {self.found()}")
        self.i += 1

    def take(self, kind, what):
        if self.kinds[self.i] != kind:
            self.error(f"expected {what}, found {self.found()}")
        self.i += 1
        return self.toks[self.i - 1]

    def since(self, start):
        """The source text of the tokens from `start` to the current one, on one line (a
        comment inside would hide the rest of the generic op's line)."""
        end = self.i - 1
        text = self.text[self.starts[start]:self.starts[end] + len(self.toks[end])]
        if "\n" not in text:
            return text
        toks, starts, parts = self.toks, self.starts, [self.toks[start]]
        for k in range(start + 1, self.i):
            if starts[k] > starts[k - 1] + len(toks[k - 1]):
                parts.append(" ")
            parts.append(toks[k])
        return "".join(parts)

    def group(self):
        """Skips the bracketed group opening here: <>, (), [] and {} nest; '->' is an arrow."""
        toks, kinds, i, open_at = self.toks, self.kinds, self.i, []
        while True:
            tok = toks[i]
            if kinds[i] == "p":
                if tok in _CLOSE:
                    open_at.append(i)
                elif tok in ")]}>":
                    if _CLOSE[toks[open_at[-1]]] != tok:
                        self.error(f"'{toks[open_at[-1]]}' is not closed (found '{tok}' first)",
                                   open_at[-1])
                    open_at.pop()
                    if not open_at:
                        self.i = i + 1
                        return
            elif kinds[i] == "e":
                self.error(f"'{toks[open_at[-1]]}' is never closed", open_at[-1])
            i += 1

    def nest(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.error(f"nested more than {MAX_NESTING} deep")

    # -- values, types, attributes, locations --

    def value(self):
        return self.take("v", "a value (%name)")

    def values(self):
        out = []
        if self.kinds[self.i] == "v":
            out.append(self.value())
            while self.accept(","):
                out.append(self.value())
        return out

    def integer(self):
        negative = self.accept("-")
        tok = self.take("n", "an integer")
        if "." in tok:
            self.error(f"expected an integer, found '{tok}'", self.i - 1)
        return str(-_int(tok) if negative else _int(tok))

    def integers(self):
        self.expect("[")
        out = []
        if not self.accept("]"):
            out.append(self.integer())
            while self.accept(","):
                out.append(self.integer())
            self.expect("]")
        return out

    def type(self):
        start, tok = self.i, self.toks[self.i]
        if tok == "(":
            self.fn_type()
        elif self.kinds[start] in ("i", "t"):
            self.i += 1
            if self.toks[self.i] == "<":
                self.group()
        else:
            self.error(f"expected a type, found {self.found()}")
        return self.since(start)

    def delimited_types(self, close):
        out = []
        if not self.accept(close):
            out.append(self.type())
            while self.accept(","):
                out.append(self.type())
            self.expect(close)
        return out

    def fn_type(self):
        """`(ins) -> outs`, as two lists of type texts."""
        self.nest()
        self.expect("(")
        ins = self.delimited_types(")")
        self.expect("->")
        outs = self.delimited_types(")") if self.accept("(") else [self.type()]
        self.depth -= 1
        return ins, outs

    def type_list(self):
        out = [self.type()]
        while self.accept(","):
            out.append(self.type())
        return out

    def dict(self):
        """An attribute dictionary `{k = v, unit_name}`: {key text: value text or None}."""
        self.nest()
        self.expect("{")
        items = {}
        if not self.accept("}"):
            while True:
                if self.kinds[self.i] not in ("i", "s"):
                    self.error(f"expected an attribute name, found {self.found()}")
                key = self.toks[self.i]
                if key in items:
                    self.error(f"attribute '{key}' is given twice")
                self.i += 1
                items[key] = self.attr(True) if self.accept("=") else None
                if self.accept("}"):
                    break
                self.expect(",")
        self.depth -= 1
        return items

    def attr(self, in_dict=False):
        """An attribute's text. An untyped integer in a dictionary is an i64, as MLIR reads it
        (and prints it: `1 : i64`); everything else keeps its spelling."""
        tok, start = self.toks[self.i], self.i
        if tok == "{":
            return _dict_text(self.dict())
        if tok == "[":
            self.nest()
            self.i += 1
            items = []
            if not self.accept("]"):
                items.append(self.attr())
                while self.accept(","):
                    items.append(self.attr())
                self.expect("]")
            self.depth -= 1
            return f"[{', '.join(items)}]"
        if tok == "-" or self.kinds[start] == "n":
            self.accept("-")
            number = self.take("n", "a number")
            if self.toks[self.i] != ":" and in_dict and "." not in number:
                return f"{_int(number) * (-1 if tok == '-' else 1)} : i64"
        else:
            self.primary()
        if self.accept(":"):
            self.type()
        return self.since(start)

    def primary(self):
        """An attribute without its `: type`."""
        kind, tok = self.kinds[self.i], self.toks[self.i]
        if tok == "(":
            self.fn_type()                              # a function type
        elif kind in ("s", "y", "h", "t", "i"):
            self.i += 1
            while kind == "y" and self.toks[self.i] == ":" and self.toks[self.i + 1] == ":" \
                    and self.kinds[self.i + 2] == "y":  # a nested symbol, @a::@b
                self.i += 3
            while kind != "s" and self.toks[self.i] in ("<", "(", "["):
                self.group()                            # dense<..>, loc(..), distinct[0]<..>
        else:
            self.error(f"expected an attribute, found {self.found()}")

    def loc(self):
        if self.toks[self.i] == "loc" and self.toks[self.i + 1] == "(":
            start = self.i
            self.i += 1
            self.group()
            return " " + self.since(start)
        return ""

    def block_arg(self):
        start = self.i
        self.take("v", "a block argument (%name)")
        self.expect(":")
        self.type()
        self.loc()
        return self.since(start)

    def block_args(self):
        self.expect("(")
        out = []
        if not self.accept(")"):
            out.append(self.block_arg())
            while self.accept(","):
                out.append(self.block_arg())
            self.expect(")")
        return out

    def symbol_text(self):
        tok = self.take("y", "a symbol (@name)")
        return tok[1:] if tok[1] == '"' else f'"{tok[1:]}"'

    # -- ops and regions --

    def module(self):
        before, ops, after, names = [], [], [], []
        while self.kinds[self.i] != "e":
            if self.kinds[self.i] in ("h", "t") and self.toks[self.i + 1] == "=":
                start = self.i
                self.i += 2
                if self.kinds[start] == "h":
                    self.attr()
                else:
                    self.type_aliases[self.toks[start]] = self.type()
                after.append(self.since(start))
            else:
                before += after
                after = []
                ops += self.op(0)
                names.append(self.last)
        if names != ["builtin.module"]:     # MLIR puts the ops in a module of its own
            ops = ['"builtin.module"() ({', *("  " + line for line in ops), "}) : () -> ()"]
        return "\n".join(before + ops + after) + "\n"

    def region(self, indent, args, dialect):
        """A region `{...}` as lines; `args`, when given, are its entry block's arguments."""
        self.nest()
        self.dialects.append(dialect)
        pad = "  " * indent
        self.expect("{")
        lines = []
        if self.kinds[self.i] == "b" and args:
            self.error("the entry block's arguments are given before the region")
        if args:
            lines.append(f"{pad}^bb0({', '.join(args)}):")
        while not self.accept("}"):
            if self.kinds[self.i] == "b":
                start = self.i
                self.i += 1
                if self.toks[self.i] == "(":
                    self.block_args()
                self.expect(":")
                lines.append(pad + self.since(start))
            elif self.kinds[self.i] == "e":
                self.error("a region is never closed")
            else:
                lines += self.op(indent + 1)
        self.dialects.pop()
        self.depth -= 1
        return lines

    def op(self, indent):
        """One op, its results and location, as generic-form lines at `indent`."""
        outer, self.op_name = self.op_name, None     # errors name the op once it is known
        start, results = self.i, ""
        if self.kinds[start] == "v":
            while True:
                if "#" in self.take("v", "a result name"):
                    self.error("a result name has no '#'", self.i - 1)
                if self.accept(":"):
                    self.integer()
                if not self.accept(","):
                    break
            results = self.since(start) + " = "
            self.expect("=")
        kind, tok = self.kinds[self.i], self.toks[self.i]
        if kind == "s":
            name = tok[1:-1]
        elif kind == "i":
            name = self.resolve(tok)
        else:
            self.error(f"expected an op, found {self.found()}")
        self.op_name, op = name, _Op(name)
        self.i += 1
        if kind == "s":
            self.generic(op, indent)
        elif name in _SPECIAL:
            _SPECIAL[name](self, op, indent)
        else:
            fmt = _FORMATS[name]
            self.steps(op, fmt.steps, fmt.own, indent)
        op.loc = op.loc or self.loc()
        self.op_name, self.last = outer, name
        lines = op.lines(indent, results)
        for line in {lines[0], lines[-1]}:
            self.spelled.setdefault(line.strip(), []).append(self.starts[start])
        return lines

    def resolve(self, tok):
        """The full name of an op written `tok`: a name without a dialect is the region's
        default dialect's (func.func's body: func) or builtin's."""
        names = [tok] if "." in tok else [f"{self.dialects[-1]}.{tok}", f"builtin.{tok}"]
        for name in names:
            if name in _FORMATS or name in _SPECIAL:
                return name
        self.error(f"unknown op '{tok}': accy does not know its pretty form (MLIR prints an op "
                   "without one in the generic form, its name quoted)")

    def generic(self, op, indent):
        self.expect("(")
        op.operands = self.values()
        self.expect(")")
        if self.toks[self.i] == "[":
            start = self.i
            self.group()
            op.successors = self.since(start)
        if self.accept("<"):
            op.props = self.dict()
            self.expect(">")
        if self.accept("("):
            op.regions.append(self.region(indent, None, ""))
            while self.accept(","):
                op.regions.append(self.region(indent, None, ""))
            self.expect(")")
        if self.toks[self.i] == "{":
            op.attrs = self.dict()
        self.expect(":")
        op.ins, op.outs = self.fn_type()

    def attr_dict(self, op, own):
        """An optional attribute dictionary, split into the op's own attributes and the rest."""
        if self.toks[self.i] == "{":
            for key, value in self.dict().items():
                place = op.props if _unquoted(key) in own else op.attrs
                if key in place:
                    self.error(f"attribute '{key}' is given twice")
                place[key] = value

    def steps(self, op, steps, own, indent):
        for step in steps:
            kind = step[0]
            if kind == "lit":
                self.expect(step[1])
            elif kind == "%":
                op.operands.append(self.value())
            elif kind == "%*":
                op.operands += self.values()
            elif kind == "%,*":
                while self.kinds[self.i] == "v":
                    op.operands.append(self.value())
                    self.expect(",")
            elif kind == "attr":
                step[2](self, op, step[1], step[3])
            elif kind == "{}":
                self.attr_dict(op, own)
            elif kind == "?":
                if self.toks[self.i] == step[1][0][1]:
                    self.steps(op, step[1], own, indent)
            elif kind == "^(":
                op.regions.append(self.region(indent, self.block_args(), ""))
            else:
                step[1](self, op)

    # -- attribute kinds of FORMATS --

    def kind_i64s(self, op, name, _):
        op.props[name] = _i64s(self.integers())

    def kind_integer(self, op, name, width):
        op.props[name] = f"{self.integer()} : {width}"

    def kind_boolean(self, op, name, _):
        if self.toks[self.i] not in ("true", "false"):
            self.error(f"expected true or false, found {self.found()}")
        op.props[name] = self.toks[self.i]
        self.i += 1

    def kind_string(self, op, name, _):
        op.props[name] = self.take("s", "a string")

    def kind_symbol(self, op, name, _):
        op.props[name] = self.take("y", "a symbol (@name)")

    def kind_symbol_name(self, op, name, _):
        op.props[name] = self.symbol_text()

    def kind_enum(self, op, name, mnemonic):
        word = self.take("i", f"a {mnemonic}")
        op.props[name] = f"#{op.name.split('.')[0]}<{mnemonic} {word}>"

    def kind_stripped(self, op, name, prefix):
        """An attribute printed without its dialect prefix: `<...>`, or a `[...]`/`{...}` body
        whose attribute is spelled `prefix` + body + `>`."""
        if self.toks[self.i] not in ("<", "[", "{"):
            self.error(f"expected '<', '[' or '{{', found {self.found()}")
        start = self.i
        self.group()
        op.props[name] = prefix + self.since(start) + (">" if "<" in prefix else "")

    def kind_value(self, op, name, _):
        start = self.i
        self.primary()
        value = self.since(start)
        self.expect(":")
        op.outs = [self.type()]
        op.props[name] = f"{value} : {op.outs[0]}"

    def kind_slices(self, op, name, _):
        self.expect("[")
        ranges = []
        if not self.accept("]"):
            while True:
                begin = self.integer()
                self.expect(":")
                limit = self.integer()
                ranges.append((begin, limit, self.integer() if self.accept(":") else "1"))
                if self.accept("]"):
                    break
                self.expect(",")
        columns = list(zip(*ranges)) or [(), (), ()]
        for key, values in zip((name, "limit_indices", "strides"), columns):
            op.props[key] = _i64s(values)

    def kind_dot_dims(self, op, name, _):
        dims = {}
        for part in ("batching", "contracting"):
            if part == "contracting" or self.toks[self.i] == "batching_dims":
                self.expect(f"{part}_dims")
                self.expect("=")
                dims[f"lhs_{part}_dimensions"] = self.integers()
                self.expect("x")
                dims[f"rhs_{part}_dimensions"] = self.integers()
                if part == "batching":
                    self.expect(",")
        order = ("lhs_batching_dimensions", "rhs_batching_dimensions",
                 "lhs_contracting_dimensions", "rhs_contracting_dimensions")
        body = ", ".join(f"{k} = [{', '.join(dims[k])}]" for k in order if dims.get(k))
        op.props[name] = f"#stablehlo.dot<{body}>"

    def kind_precision(self, op, name, algorithm):
        """`, precision = [DEFAULT, HIGH]` and, with `algorithm`, `, algorithm = <...>`."""
        if self.toks[self.i] != ",":
            return
        self.i += 1
        if not (algorithm and self.toks[self.i] == "algorithm"):
            self.expect("precision")
            self.expect("=")
            self.expect("[")
            words = []
            if not self.accept("]"):
                words.append(self.take("i", "a precision"))
                while self.accept(","):
                    words.append(self.take("i", "a precision"))
                self.expect("]")
            op.props[name] = f"[{', '.join(f'#stablehlo<precision {w}>' for w in words)}]"
            if not (algorithm and self.accept(",")):
                return
        self.expect("algorithm")
        self.expect("=")
        self.kind_stripped(op, "algorithm", "#stablehlo.dot_algorithm")

    def kind_conv(self, op, name, _):
        """`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: spatial dimensions and b, f, i, o."""
        layouts = []
        for sep in ("x", "->", None):
            self.expect("[")
            dims = []
            while not dims or self.accept(","):
                dims.append(self.integer() if self.kinds[self.i] == "n"
                            else self.take("i", "a dimension"))
            self.expect("]")
            layouts.append(f"[{', '.join(dims)}]")
            if sep:
                self.expect(sep)
        op.props[name] = f"#stablehlo.conv<{layouts[0]}x{layouts[1]}->{layouts[2]}>"

    def kind_window(self, op, _name, _):
        while self.kinds[self.i] == "i":
            word = self.toks[self.i]
            key = _WINDOW.get(word)
            if key is None or key in op.props:
                self.error(f"unexpected '{word}' in a convolution's window")
            self.i += 1
            self.expect("=")
            if word == "pad":
                self.expect("[")
                rows = []
                if not self.accept("]"):
                    rows.append(self.integers())
                    while self.accept(","):
                        rows.append(self.integers())
                    self.expect("]")
                if any(len(row) != 2 for row in rows):
                    self.error("a window's pad rows are [low, high] pairs")
                flat = {v for row in rows for v in row}
                body = (next(iter(flat)) if len(flat) == 1 else
                        "[" + ", ".join(f"[{a}, {b}]" for a, b in rows) + "]")
                op.props[key] = f"dense<{body if rows else ''}> : tensor<{len(rows)}x2xi64>"
            elif word == "reverse":
                self.expect("[")
                flags = []
                while not self.accept("]"):
                    if flags:
                        self.expect(",")
                    if self.toks[self.i] in ("true", "false"):
                        flags.append(self.toks[self.i])
                        self.i += 1
                    else:
                        flags.append("true" if int(self.integer()) else "false")
                op.props[key] = f"array<i1: {', '.join(flags)}>" if flags else "array<i1>"
            else:
                op.props[key] = _i64s(self.integers())
            if not self.accept(","):
                break

    def kind_exponent_mantissa(self, op, name, _):
        word = self.take("i", "a format (e5m10)")
        m = re.fullmatch(r"e([0-9]+)m([0-9]+)", word)
        if not m:
            self.error(f"expected a format e#m#, found '{word}'", self.i - 1)
        op.props[name] = f"{int(m.group(1))} : i32"
        op.props["mantissa_bits"] = f"{int(m.group(2))} : i32"

    # -- type kinds of FORMATS: they fill op.ins and op.outs --

    def types_fn(self, op):
        self.expect(":")
        op.ins, op.outs = self.fn_type()

    def types_same(self, op):
        """One type for every operand and the result, or a function type."""
        self.expect(":")
        if self.toks[self.i] == "(":
            op.ins, op.outs = self.fn_type()
        else:
            t = self.type()
            op.ins, op.outs = [t] * len(op.operands), [t]

    def types_result(self, op):
        self.expect(":")
        t = self.type()
        op.ins, op.outs = [t] * len(op.operands), [t]

    def types_select(self, op):
        self.expect(":")
        if self.toks[self.i] == "(":
            op.ins, op.outs = self.fn_type()
        else:
            pred = self.type()
            self.expect(",")
            t = self.type()
            op.ins, op.outs = [pred, t, t], [t]

    def types_complex(self, op):
        self.expect(":")
        if self.toks[self.i] == "(":
            op.ins, op.outs = self.fn_type()
        else:
            t = self.type()
            real = re.sub(r"complex<([^<>]*)>", r"\1", self.type_aliases.get(t, t))
            op.ins, op.outs = [real, real], [t]

    def types_tuple(self, op):
        self.expect(":")
        start = self.i
        t = self.type()
        members = self.type_aliases.get(t, t)
        if not (members.startswith("tuple<") and members.endswith(">")):
            self.error(f"expected a tuple type, found '{t}'", start)
        op.ins, op.outs = _split_top(members[6:-1]), [t]

    def types_arrow(self, op):
        """`t -> r`, `t1, t2 -> r`, `(t1, t2) -> r` or `t -> (r1, r2)`."""
        self.expect(":")
        if self.toks[self.i] == "(":
            op.ins, op.outs = self.fn_type()
            return
        op.ins = self.type_list()
        self.expect("->")
        op.outs = self.delimited_types(")") if self.accept("(") else [self.type()]

    def types_listed(self, op):
        """A terminator's optional `: t1, t2`, its operands' types."""
        if self.accept(":"):
            op.ins = self.type_list()

    # -- ops with readers of their own --

    def read_module(self, op, indent):
        if self.kinds[self.i] == "y":
            op.props["sym_name"] = self.symbol_text()
        if self.accept("attributes"):
            self.attr_dict(op, _MODULE_OWN)
        op.regions.append(self.region(indent, None, ""))

    def read_func(self, op, indent):
        if self.toks[self.i] in ("public", "private", "nested"):
            op.props["sym_visibility"] = f'"{self.toks[self.i]}"'
            self.i += 1
        op.props["sym_name"] = self.symbol_text()
        self.expect("(")
        args, arg_types, arg_attrs = [], [], []
        while not self.accept(")"):
            if args:
                self.expect(",")
            name = self.value() if self.kinds[self.i] == "v" else None
            if name:
                self.expect(":")
            arg_types.append(self.type())
            arg_attrs.append(self.dict() if self.toks[self.i] == "{" else {})
            loc = self.loc()
            args.append(name and f"{name}: {arg_types[-1]}{loc}")
        res_types, res_attrs = [], []
        if self.accept("->"):
            if self.accept("("):
                while not self.accept(")"):
                    if res_types:
                        self.expect(",")
                    res_types.append(self.type())
                    res_attrs.append(self.dict() if self.toks[self.i] == "{" else {})
            else:
                res_types.append(self.type())
        if self.accept("attributes"):
            self.attr_dict(op, _FUNC_OWN)
        op.props["function_type"] = _fn_text(arg_types, res_types)
        for key, dicts in (("arg_attrs", arg_attrs), ("res_attrs", res_attrs)):
            if any(dicts):
                op.props[key] = f"[{', '.join(_dict_text(d) for d in dicts)}]"
        if self.toks[self.i] == "{":
            if None in args:
                self.error("a function with a body names its arguments (%name: type)")
            op.regions.append(self.region(indent, args, "func"))
        else:
            op.regions.append([])               # a declaration: an empty body

    def read_constant(self, op, indent):
        if self.accept("("):                    # printed generically inside: `() <{...}> : ...`
            self.expect(")")
            if self.accept("<"):
                op.props = self.dict()
                self.expect(">")
            self.attr_dict(op, ())
            self.expect(":")
            op.ins, op.outs = self.fn_type()
        else:
            self.attr_dict(op, ())
            self.kind_value(op, "value", None)

    def read_while(self, op, indent):
        self.expect("(")
        args = []
        while not self.accept(")"):
            if args:
                self.expect(",")
            args.append(self.value())
            self.expect("=")
            op.operands.append(self.value())
        if op.operands:
            self.expect(":")
            start = self.i
            op.ins = op.outs = self.type_list()
            if len(op.ins) != len(args):
                self.error(f"{len(args)} loop values but {len(op.ins)} types", start)
        if self.accept("attributes"):
            self.attr_dict(op, ())
        entry = [f"{a}: {t}" for a, t in zip(args, op.ins)]
        self.expect("cond")
        op.regions.append(self.region(indent, entry, ""))
        self.expect("do")
        op.regions.append(self.region(indent, entry, ""))

    def read_reduce(self, op, indent):
        inits = []
        while True:                             # (%input init: %init), ...
            self.expect("(")
            op.operands.append(self.value())
            self.expect("init")
            self.expect(":")
            inits.append(self.value())
            self.expect(")")
            if not self.accept(","):
                break
        op.operands += inits
        applied = None
        if self.accept("applies"):
            start = self.i
            if self.kinds[start] not in ("i", "s"):
                self.error(f"expected an op name, found {self.found()}")
            applied = self.toks[start].strip('"')
            self.i += 1
            dialect, _, short = applied.partition(".")
            if dialect != "stablehlo" or short not in _COMMUTATIVE:
                self.error(f"'applies' takes a commutative binary stablehlo op, not '{applied}'",
                           start)
        self.expect("across")
        self.expect("dimensions")
        self.expect("=")
        op.props["dimensions"] = _i64s(self.integers())
        self.attr_dict(op, {"dimensions"})
        self.expect(":")
        op.ins, op.outs = self.fn_type()
        if applied:
            op.loc = self.loc()
            op.regions.append(self.applied(indent, applied, op))
            return
        self.expect("reducer")
        firsts, seconds = [], []
        while self.accept("("):
            firsts.append(self.block_arg())
            self.expect(",")
            seconds.append(self.block_arg())
            self.expect(")")
        op.regions.append(self.region(indent, firsts + seconds, ""))

    def applied(self, indent, name, op):
        """The region MLIR builds for `applies NAME`: NAME of two scalars of the first input's
        element type, returned; all with the reduce's location."""
        first = self.type_aliases.get(op.ins[0], op.ins[0]) if op.ins else "()"
        tensor = first.startswith("tensor<") and first.endswith(">")
        parts = _split_top(first[7:-1]) if tensor else []
        if not parts:
            self.error(f"reduces a tensor, not '{first}'", self.i - 1)
        body, loc = parts[0], op.loc
        scalar = f"tensor<{body[_DIMS.match(body).end():]}>"
        lhs, rhs, result = next(self.fresh), next(self.fresh), next(self.fresh)
        pad, inner = "  " * indent, "  " * (indent + 1)
        return [f"{pad}^bb0({lhs}: {scalar}{loc}, {rhs}: {scalar}{loc}):",
                f'{inner}{result} = "{name}"({lhs}, {rhs}) : ({scalar}, {scalar}) -> {scalar}{loc}',
                f'{inner}"stablehlo.return"({result}) : ({scalar}) -> (){loc}']

    def read_barrier(self, op, indent):
        self.attr_dict(op, ())
        if self.accept("("):
            self.expect(")")
        else:
            op.operands = self.values()
            self.expect(":")
            op.ins = op.outs = self.type_list()


_SPECIAL = {"builtin.module": _Reader.read_module, "func.func": _Reader.read_func,
            "stablehlo.constant": _Reader.read_constant, "stablehlo.while": _Reader.read_while,
            "stablehlo.reduce": _Reader.read_reduce,
            "stablehlo.optimization_barrier": _Reader.read_barrier}


class _Format:
    """A row's format as steps (its kinds resolved to the reader's methods), and the names of
    the attributes the op holds as properties."""
    __slots__ = ("steps", "own")

    def __init__(self, text, own):
        stack, steps = [], []
        for word in text.split():
            if word == "(?":
                stack.append(steps)
                steps = []
            elif word == "?)":
                group, steps = steps, stack.pop()
                steps.append(("?", group))
            elif word.startswith(":"):
                steps.append((":", getattr(_Reader, "types_" + word[1:])))
            elif "=" in word and word != "=":
                name, _, kind = word.partition("=")
                kind, _, arg = kind.partition(":")
                steps.append(("attr", name, getattr(_Reader, "kind_" + kind), arg))
            elif word in ("%", "%*", "%,*", "{}", "^("):
                steps.append((word,))
            else:
                steps.append(("lit", word))
        self.steps = tuple(steps)
        self.own = frozenset(own.split()) | {s[1] for s in _flat(steps) if s[0] == "attr"}


def _flat(steps):
    for step in steps:
        yield from _flat(step[1]) if step[0] == "?" else (step,)


_FORMATS = {f"{dialect}.{name}": _Format(fmt, own)
            for dialect, names, fmt, own in _ROWS for name in names.split()}
OPS = tuple(sorted({*_FORMATS, *_SPECIAL}))    # the ops whose pretty form accy reads
