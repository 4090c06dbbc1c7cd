"""The op registry: one row of data per op kind; dialects register rows, the core knows none.

A row says an op's arity, region count (or VARIADIC: any, its verify checks the count),
attribute schema, traits, and optionally a type inference and a verify function. Traits carry
the common checks and inference so that most ops need no Python code at all (the core checks
them at C speed).
"""
import operator
from dataclasses import dataclass, field

# Trait bits (mirrored by the core; keep the values stable).
TERMINATOR = 1 << 0                     # must be the last op of its block
PURE = 1 << 1                           # no side effects: dead if its results are unused
COMMUTATIVE = 1 << 2
ELEMENTWISE = 1 << 3
ISOLATED_FROM_ABOVE = 1 << 4            # regions may not use values defined outside the op
NO_TERMINATOR = 1 << 5                  # blocks of its regions need no terminator
SINGLE_BLOCK = 1 << 6                   # each region holds at most one block
SAME_OPERANDS_AND_RESULT_TYPE = 1 << 7  # also infers the result type from the first operand
SYMBOL = 1 << 8                         # defines a symbol through its `sym_name` attribute
SYMBOL_TABLE = 1 << 9                   # symbols of its region are unique and can be looked up
GRAPH_REGION = 1 << 10                  # its regions are graphs: no order among a block's ops
CONSTANT = 1 << 11                      # no operands, one result: its `value` attribute; folds
                                        # produce attributes that the dialect's CONSTANT op holds

TRAIT_NAMES = {
    "terminator": TERMINATOR, "pure": PURE, "commutative": COMMUTATIVE, "elementwise": ELEMENTWISE,
    "isolated_from_above": ISOLATED_FROM_ABOVE, "no_terminator": NO_TERMINATOR,
    "single_block": SINGLE_BLOCK, "same_operands_and_result_type": SAME_OPERANDS_AND_RESULT_TYPE,
    "symbol": SYMBOL, "symbol_table": SYMBOL_TABLE, "graph_region": GRAPH_REGION,
    "constant": CONSTANT,
}
VARIADIC = -1


@dataclass(frozen=True)
class OpDef:
    """One op kind.

    operands/results: an exact count, or (min, max) with max = VARIADIC for no upper bound.
    attributes: name -> (python classes accepted, required?). Not to be changed once a
        Context has verified ops of this kind.
    infer(operand_types, attributes) -> tuple of result types; used when a builder gives none.
        A pure function of its arguments: the verifier checks an op against it again only
        when the op's epoch has moved.
    verify(op) -> None or an error message (for checks the traits cannot express); run on
        every verify, so it may read beyond the op (a call's callee).
    fold(op, constants) -> None (no fold) or one replacement per result: a Value, or an
        attribute that the dialect's CONSTANT op materializes. `constants` holds, per operand,
        the `value` attribute of the CONSTANT op defining it, or None. Folds must be exact and
        depend only on the op and those constants (the driver does not call a fold again on
        an op when neither changed). A fold with `constants_only = True` is only called when
        an operand is a constant or two operands are the same value.
    canonicalize: patterns `fn(op, rewriter) -> bool` that `canonicalize` applies to this op.
    """
    name: str
    operands: object = 0
    results: object = 0
    regions: int = 0
    attributes: dict = field(default_factory=dict)
    traits: int = 0
    infer: object = None
    verify: object = None
    fold: object = None
    canonicalize: tuple = ()

    def __post_init__(self):
        if "." not in self.name:
            raise ValueError(f"op names are 'dialect.op', got '{self.name}'")
        for what in ("operands", "results"):
            object.__setattr__(self, what, _arity(getattr(self, what)))
        if not (self.regions == VARIADIC or 0 <= operator.index(self.regions) <= 65535):
            raise ValueError(f"regions must be between 0 and 65535 or VARIADIC, got "
                             f"{self.regions!r}")
        object.__setattr__(self, "canonicalize", tuple(self.canonicalize))
        if self.traits & CONSTANT and (self.operands != (0, 0) or self.results != (1, 1)):
            raise ValueError(f"'{self.name}': a CONSTANT op has no operands and one result")

    @property
    def dialect(self):
        return self.name.split(".", 1)[0]


def _arity(spec):
    lo, hi = (spec, spec) if isinstance(spec, int) else spec
    lo, hi = operator.index(lo), operator.index(hi)
    if not (0 <= lo < 2**31 and (hi == VARIADIC or lo <= hi < 2**31)):
        raise ValueError(f"arity must be n or (min, max) with 0 <= min <= max, or max = VARIADIC; "
                         f"got {spec!r}")
    return (lo, hi)


REGISTRY = {}   # op name -> OpDef
DIALECTS = {}   # dialect name -> tuple of op names


def register_dialect(name, rows):
    """Register a dialect's rows. Registering the same dialect twice replaces its rows."""
    for old in DIALECTS.get(name, ()):
        REGISTRY.pop(old, None)
    for row in rows:
        if row.dialect != name:
            raise ValueError(f"op '{row.name}' does not belong to dialect '{name}'")
        REGISTRY[row.name] = row
    DIALECTS[name] = tuple(r.name for r in rows)


def lookup(name):
    return REGISTRY.get(name)


def constant_op(dialect):
    """The name of `dialect`'s CONSTANT op (what folded attributes become), or None."""
    for name in DIALECTS.get(dialect, ()):
        if REGISTRY[name].traits & CONSTANT:
            return name
    return None
