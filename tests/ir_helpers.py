"""The tests' small `test` dialect (TEST_ROWS: arithmetic with exact folds, a constant, a
canonicalization pattern, region and verifier shapes; registered once per session by conftest's
`test_dialect` fixture) and builders of IR over it: `build_func`, `counts`, F32 and I32."""
import numpy as np

from accy.ir import (Builder, DenseAttr, FunctionType, Module, OpDef, Operation, TensorType,
                     VARIADIC, traits)
from accy.passes.folding import BinaryFold
from accy.passes.rewrite import Pattern

F32 = TensorType("f32", (4,))
I32 = TensorType("i32", (4,))


def _infer_constant(operand_types, attributes):
    value = attributes["value"]
    return (value.type,)


def divide_toward_zero(x, y):
    """test.div: integers divide rounding toward zero (as C does), floats as IEEE division."""
    if x.dtype.kind in "iu":
        # floor division, then one step toward zero where it rounded down an inexact negative
        # quotient (no abs: |INT_MIN| overflows); y has no zero, the fold refuses x / 0
        q = x // y
        return q + ((x % y != 0) & ((x < 0) != (y < 0))).astype(x.dtype)
    return x / y


# Exact folds (see accy.passes.folding): int x+0 -> x, float x+(-0.0) -> x (not x+0.0);
# x-0 -> x for both (x - (+0.0) is x even for x = -0.0); x*1 -> x; int x*0 -> 0; int x-x -> 0;
# x/1 -> x; integer division by a zero element is never folded.
ADD_FOLD = BinaryFold(np.add, right_identity=0, float_right_identity=-0.0,
                      left_identity=0, float_left_identity=-0.0)
SUB_FOLD = BinaryFold(np.subtract, right_identity=0, float_right_identity=0.0, int_self=0)
MUL_FOLD = BinaryFold(np.multiply, right_identity=1, float_right_identity=1.0,
                      left_identity=1, float_left_identity=1.0, int_absorbing=0)
DIV_FOLD = BinaryFold(divide_toward_zero, right_identity=1, float_right_identity=1.0, divides=True)


def _neg_neg(op, rewriter):
    """test.neg(test.neg(x)) -> x"""
    inner = op.operands[0].owner          # an Operation, or a Block for a block argument
    if not isinstance(inner, Operation) or inner.name != "test.neg":
        return False
    rewriter.replace_op(op, [inner.operands[0]])
    return True


NEG_NEG = Pattern(_neg_neg, "test.neg")
_ARITH = traits.PURE | traits.SAME_OPERANDS_AND_RESULT_TYPE


def _verify_positive(op):
    if op.attributes["n"] <= 0:
        return f"needs n > 0, got {op.attributes['n']}"
    return None


TEST_ROWS = [
    # pure commutative binary op with an exact fold; result type inferred from the first operand
    OpDef("test.add", operands=2, results=1, traits=_ARITH | traits.COMMUTATIVE, fold=ADD_FOLD),
    # the dialect's one CONSTANT op (what folds materialize), with a required dense `value`;
    # result type inferred from it
    OpDef("test.constant", results=1, attributes={"value": (DenseAttr, True)},
          traits=traits.PURE | traits.CONSTANT, infer=_infer_constant),
    # more arithmetic with exact folds: a - b, a * b (commutative), a / b (toward zero)
    OpDef("test.sub", operands=2, results=1, traits=_ARITH, fold=SUB_FOLD),
    OpDef("test.mul", operands=2, results=1, traits=_ARITH | traits.COMMUTATIVE, fold=MUL_FOLD),
    OpDef("test.div", operands=2, results=1, traits=_ARITH, fold=DIV_FOLD),
    # unary, no fold, one canonicalization pattern: neg(neg(x)) -> x
    OpDef("test.neg", operands=1, results=1, traits=_ARITH, canonicalize=(NEG_NEG,)),
    # an op with a required int attribute checked by its own verify function
    OpDef("test.count", attributes={"n": (int, True)}, verify=_verify_positive),
    # a terminator with any number of operands
    OpDef("test.yield", operands=(0, VARIADIC), traits=traits.TERMINATOR),
    # one region whose blocks end with a terminator; any operands and results
    OpDef("test.loop", operands=(0, VARIADIC), results=(0, VARIADIC), regions=1),
    # one region, blocks need no terminator (a graph-like container)
    OpDef("test.graph", regions=1, traits=traits.NO_TERMINATOR),
    # one region, isolated from above
    OpDef("test.isolated", regions=1, traits=traits.NO_TERMINATOR | traits.ISOLATED_FROM_ABOVE),
    # one region that may hold one block only
    OpDef("test.single", regions=1, traits=traits.NO_TERMINATOR | traits.SINGLE_BLOCK),
    # an op producing a value of any type, for sources of values
    OpDef("test.source", results=1),
    # an op with two results
    OpDef("test.pair", results=2),
    # a side-effecting sink taking any operands
    OpDef("test.sink", operands=(0, VARIADIC)),
    # an op whose schema accepts any value for `a` (so `a` prints as a property `<{a = ...}>`)
    OpDef("test.attrs", attributes={"a": (object, False)}),
]


def build_func(ctx, name="f", inputs=(F32, F32), results=(F32,), module=None):
    """A module (new unless given) holding `builtin.func @name` with an entry block; returns
    (module, func, entry block, builder at the end of the entry block)."""
    module = module or Module.create(ctx)
    b = Builder(ctx).at_end(module.body)
    func = b.create("builtin.func", attributes={
        "sym_name": name, "function_type": FunctionType(inputs, results)})
    entry = b.create_block(func.regions[0], inputs)
    return module, func, entry, b


def counts(ctx):
    """The Context's live record counts, to check that a failed operation changed nothing."""
    return (ctx.num_operations, ctx.num_values, ctx.num_blocks, ctx.attribute_bytes)
