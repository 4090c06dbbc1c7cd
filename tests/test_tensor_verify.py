"""The tensor dialect (docs/tensor-ops.md): every numbered constraint (C1..LAST) broken in IR text
and named by the verifier (and, for rule constraints, by the Emitter); a valid instance of every
op that verifies and round-trips through both text forms with an unchanged fingerprint; constants
with edge values kept bit-exactly; `reduce_kind`; result type inference."""
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import accy._core.context as core
import accy.tensor  # noqa: F401  (registers the tensor dialect before any Context sees it)
from accy._core.registry import DIALECTS
from accy._core.types import DTYPES, FLOAT_DTYPES, numpy_dtype
from accy.errors import ShapeError, TypeError as AccyTypeError, VerifyError
from accy.ir import Builder, Context, DenseAttr, FunctionType, Module, TensorType, parse
from accy.tensor import Emitter, reduce_kind
from accy.tensor.dialect import BINARY, UNARY

DOC = Path(__file__).resolve().parent.parent / "docs" / "tensor-ops.md"
LAST = 59           # the highest constraint number docs/tensor-ops.md defines
PTX = '".visible .entry k(.param .u64 a, .param .u64 b)\\n{\\n  ret;\\n}"'


# ---- text helpers -----------------------------------------------------------------------------

def tt(spec):
    """'4x8xf32' -> 'tensor<4x8xf32>' (a rank-0 type is just the dtype: 'f32')."""
    return f"tensor<{spec}>"


def module_text(args, body, terminate=True):
    """A module holding `builtin.func @main(args)` whose entry block holds `body` (then a
    `builtin.return` unless `terminate` is False). `args`: 'x:4x8xf32 i:f32'."""
    pairs = [a.split(":") for a in args.split()]
    sig = ", ".join(tt(t) for _, t in pairs)
    block = (f"  ^bb0({', '.join(f'%{n}: {tt(t)}' for n, t in pairs)}):\n" if pairs else "")
    ret = "    builtin.return\n" if terminate else ""
    return (f'builtin.module ({{\n  builtin.func <{{function_type = ({sig}) -> (), '
            f'sym_name = "main"}}> ({{\n{block}{body.rstrip()}\n{ret}  }})\n}})\n')


def region(args, *lines):
    """One region block: `^bb0(args)` then `lines` (the body, its yield included)."""
    pairs = [a.split(":") for a in args.split()]
    head = ", ".join(f"%{n}: {tt(t)}" for n, t in pairs)
    return "{\n    ^bb0(" + head + "):\n" + "".join(f"      {x}\n" for x in lines) + "    }"


def red(args, *lines):
    return f"({region(args, *lines)})"


SUM_F32 = red("a:f32 b:f32", "%s = tensor.add %a, %b : tensor<f32>", "tensor.yield %s")
COND_TRUE = region("c:4xf32", "%t = tensor.constant <{value = dense<true> : tensor<i1>}> : "
                              "tensor<i1>", "tensor.yield %t")
BODY_ID = region("d:4xf32", "tensor.yield %d")


def dims(batch, lc, rc):
    """A dot_general dimension dictionary: the leading `batch` dims batched, lhs dim `lc`
    contracted with rhs dim `rc`."""
    b = list(range(batch))
    return (f"{{lhs_batching_dimensions = {b}, lhs_contracting_dimensions = [{lc}], "
            f"rhs_batching_dimensions = {b}, rhs_contracting_dimensions = [{rc}]}}")


def raised(scores, values, arg, yields=None, value_dtype="f32", sum_dtype=None):
    """A raised attention of %q with itself whose score block takes `arg` and yields it (or
    a constant of type `yields`), its sum taken in `sum_dtype` when given."""
    name, spec = arg.split(":")
    body = [f"tensor.yield %{name}"] if yields is None else [
        f"%z = tensor.constant <{{value = dense<0.0> : {tt(yields)}}}> : {tt(yields)}",
        "tensor.yield %z"]
    total = f'sum_dtype = "{sum_dtype}", ' if sum_dtype else ""
    return (f'%r = tensor.attention %q, %q, %q <{{score_dtype = "f32", scores = {scores}, '
            f'{total}value_dtype = "{value_dtype}", values = {values}}}> : '
            f'tensor<1x2x8x16xf32> ({region(arg, *body)})')


def dg(lb, rb, lc, rc, result, acc=None):
    """A dot_general of %a and %b with these dimension lists, declared result and accumulation."""
    attrs = (f"lhs_batching_dimensions = {lb}, rhs_batching_dimensions = {rb}, "
             f"lhs_contracting_dimensions = {lc}, rhs_contracting_dimensions = {rc}")
    attrs += f', accumulation_type = "{acc}"' if acc else ""
    return f"%r = tensor.dot_general %a, %b <{{{attrs}}}> : {tt(result)}"


def kcall(attrs):
    return f"%r = tensor.kernel_call %x <{{{attrs}}}> : tensor<4xf32>"


KC = f"ptx = {PTX}, kernel = \"k\""


# ---- the broken cases: (code, args, body) -------------------------------------------------------
# The op that breaks the rule is the last one before `builtin.return` (for the Emitter check).

X = "x:4xf32"
M = "x:4x8xf32"
CASES = [
    # C1 dtype classes (binary, unary, is_finite), pretty and generic forms
    ("C1", "p:4xi1", "%r = tensor.subtract %p, %p : tensor<4xi1>"),
    ("C1", "p:4xi1", '%r = "tensor.shift_left"(%p, %p) : (tensor<4xi1>, tensor<4xi1>) -> '
                     'tensor<4xi1>'),
    ("C1", "h:4xbf16", "%r = tensor.and %h, %h : tensor<4xbf16>"),
    ("C1", "n:4xi32", "%r = tensor.exp %n : tensor<4xi32>"),
    ("C1", X, "%r = tensor.not %x : tensor<4xf32>"),
    ("C1", "p:4xi1", "%r = tensor.negate %p : tensor<4xi1>"),
    ("C1", "n:4xu8", "%r = tensor.is_finite %n : tensor<4xi1>"),
    # C2, C3 compare
    ("C2", X, '%r = tensor.compare %x, %x <{comparison_direction = "XX"}> : tensor<4xi1>'),
    ("C2", X, '%r = tensor.compare %x, %x <{comparison_direction = "eq"}> : tensor<4xi1>'),
    ("C3", X, '%r = tensor.compare %x, %x <{comparison_direction = "LT", '
              'compare_type = "SIGNED"}> : tensor<4xi1>'),
    ("C3", "n:4xi32", '%r = "tensor.compare"(%n, %n) <{comparison_direction = "LT", '
                      'compare_type = "FLOAT"}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>'),
    ("C3", "n:4xu8", '%r = tensor.compare %n, %n <{comparison_direction = "EQ", '
                     'compare_type = "BOGUS"}> : tensor<4xi1>'),
    # C4, C5 select
    ("C4", X, "%r = tensor.select %x, %x, %x : tensor<4xf32>"),
    ("C4", "p:2xi1 x:4xf32", "%r = tensor.select %p, %x, %x : tensor<4xf32>"),
    ("C5", "p:i1 x:4xf32 h:4xf16", "%r = tensor.select %p, %x, %h : tensor<4xf32>"),
    ("C5", "p:i1 x:4xf32 y:1xf32", "%r = tensor.select %p, %x, %y : tensor<4xf32>"),
    # C6 clamp
    ("C6", "l:f16 x:4xf32", "%r = tensor.clamp %l, %x, %x : tensor<4xf32>"),
    ("C6", "l:2xf32 x:4xf32", "%r = tensor.clamp %x, %x, %l : tensor<4xf32>"),
    # C7 convert
    ("C7", X, "%r = tensor.convert %x : tensor<2x2xf16>"),
    # C48, C49 bitcast_convert
    ("C48", X, "%r = tensor.bitcast_convert %x : tensor<2x2xi32>"),
    ("C49", X, "%r = tensor.bitcast_convert %x : tensor<4xf16>"),
    ("C49", X, "%r = tensor.bitcast_convert %x : tensor<4xi64>"),
    ("C49", "p:4xi1", "%r = tensor.bitcast_convert %p : tensor<4xu8>"),
    # C50 - C52 dynamic_slice, dynamic_update_slice
    ("C50", "x:4x8xf32 i:i32", "%r = tensor.dynamic_slice %x, %i <{slice_sizes = [2, 2]}> : "
                              "tensor<2x2xf32>"),
    ("C50", "x:4x8xf32 i:i32 j:i64", "%r = tensor.dynamic_slice %x, %i, %j <{slice_sizes = "
                                    "[2, 2]}> : tensor<2x2xf32>"),
    ("C50", "x:4x8xf32 i:f32", "%r = tensor.dynamic_slice %x, %i, %i <{slice_sizes = [2, 2]}> : "
                              "tensor<2x2xf32>"),
    ("C50", "x:4x8xf32 i:1xi32", "%r = tensor.dynamic_slice %x, %i, %i <{slice_sizes = [2, 2]}> "
                                ": tensor<2x2xf32>"),
    ("C51", "x:4x8xf32 i:i32", "%r = tensor.dynamic_slice %x, %i, %i <{slice_sizes = [5, 2]}> : "
                              "tensor<5x2xf32>"),
    ("C51", "x:4x8xf32 i:i32", "%r = tensor.dynamic_slice %x, %i, %i <{slice_sizes = [2]}> : "
                              "tensor<2xf32>"),
    ("C52", "x:4x8xf32 u:2x9xf32 i:i32", "%r = tensor.dynamic_update_slice %x, %u, %i, %i : "
                                        "tensor<4x8xf32>"),
    ("C52", "x:4x8xf32 u:2x2xf16 i:i32", "%r = tensor.dynamic_update_slice %x, %u, %i, %i : "
                                        "tensor<4x8xf32>"),
    ("C52", "x:4x8xf32 u:8xf32 i:i32", "%r = tensor.dynamic_update_slice %x, %u, %i, %i : "
                                      "tensor<4x8xf32>"),
    ("C50", "x:4x8xf32 u:2x2xf32 i:i32", "%r = tensor.dynamic_update_slice %x, %u, %i : "
                                        "tensor<4x8xf32>"),
    # C53, C54 sort
    ("C53", "x:4x8xf32 y:8xi32", '%r:2 = "tensor.sort"(%x, %y) <{dimension = 0}> '
     + red("a:f32 b:f32 c:i32 d:i32", "%t = tensor.compare %a, %b <{comparison_direction = "
           '"LT"}> : tensor<i1>', "tensor.yield %t")
     + " : (tensor<4x8xf32>, tensor<8xi32>) -> (tensor<4x8xf32>, tensor<8xi32>)"),
    ("C53", M, '%r = "tensor.sort"(%x) <{dimension = 2}> '
     + red("a:f32 b:f32", '%t = tensor.compare %a, %b <{comparison_direction = "LT"}> : '
           'tensor<i1>', "tensor.yield %t") + " : (tensor<4x8xf32>) -> tensor<4x8xf32>"),
    ("C53", "s:f32", '%r = "tensor.sort"(%s) <{dimension = 0}> '
     + red("a:f32 b:f32", '%t = tensor.compare %a, %b <{comparison_direction = "LT"}> : '
           'tensor<i1>', "tensor.yield %t") + " : (tensor<f32>) -> tensor<f32>"),
    ("C54", M, '%r = "tensor.sort"(%x) <{dimension = 1}> '
     + red("a:f32", "%t = tensor.is_finite %a : tensor<i1>", "tensor.yield %t")
     + " : (tensor<4x8xf32>) -> tensor<4x8xf32>"),
    ("C54", M, '%r = "tensor.sort"(%x) <{dimension = 1}> '
     + red("a:f32 b:f32", "tensor.yield %a") + " : (tensor<4x8xf32>) -> tensor<4x8xf32>"),
    # C55 - C57 scatter
    ("C55", "x:4x8xf32 i:3xf32 u:3x8xf32", '%r = "tensor.scatter"(%x, %i, %u) <{axis = 0}> '
     + red("a:f32 b:f32", "tensor.yield %b")
     + " : (tensor<4x8xf32>, tensor<3xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>"),
    ("C55", "x:4x8xf32 i:3xi32 u:3x8xf32", '%r = "tensor.scatter"(%x, %i, %u) <{axis = 2}> '
     + red("a:f32 b:f32", "tensor.yield %b")
     + " : (tensor<4x8xf32>, tensor<3xi32>, tensor<3x8xf32>) -> tensor<4x8xf32>"),
    ("C56", "x:4x8xf32 i:3xi32 u:8x3xf32", '%r = "tensor.scatter"(%x, %i, %u) <{axis = 0}> '
     + red("a:f32 b:f32", "tensor.yield %b")
     + " : (tensor<4x8xf32>, tensor<3xi32>, tensor<8x3xf32>) -> tensor<4x8xf32>"),
    ("C56", "x:4x8xf32 i:3xi32 u:3x8xf16", '%r = "tensor.scatter"(%x, %i, %u) <{axis = 0}> '
     + red("a:f32 b:f32", "tensor.yield %b")
     + " : (tensor<4x8xf32>, tensor<3xi32>, tensor<3x8xf16>) -> tensor<4x8xf32>"),
    ("C57", "x:4x8xf32 i:3xi32 u:3x8xf32", '%r = "tensor.scatter"(%x, %i, %u) <{axis = 0}> '
     + red("a:f32 b:f32", "%t = tensor.compare %a, %b <{comparison_direction = \"LT\"}> : "
           "tensor<i1>", "tensor.yield %t")
     + " : (tensor<4x8xf32>, tensor<3xi32>, tensor<3x8xf32>) -> tensor<4x8xf32>"),
    ("C57", "x:4x8xf32 i:3xi32 u:3x8xf32", '%r = "tensor.scatter"(%x, %i, %u) <{axis = 0}> '
     + red("a:f16 b:f16", "tensor.yield %b")
     + " : (tensor<4x8xf32>, tensor<3xi32>, tensor<3x8xf32>) -> tensor<4x8xf32>"),
    # C58, C59 case
    ("C58", "x:4xf32 f:f32", '%r = "tensor.case"(%f) ({\n    tensor.yield %x\n  }) : '
                            '(tensor<f32>) -> tensor<4xf32>'),
    ("C58", "x:4xf32 i:2xi32", '%r = "tensor.case"(%i) ({\n    tensor.yield %x\n  }) : '
                              '(tensor<2xi32>) -> tensor<4xf32>'),
    ("C59", "x:4xf32 i:i32", '%r = "tensor.case"(%i) : (tensor<i32>) -> tensor<4xf32>'),
    ("C59", "x:4xf32 i:i32", '%r = "tensor.case"(%i) ({\n    tensor.yield %x\n  }, {\n    '
                            '%n = tensor.negate %i : tensor<i32>\n    tensor.yield %n\n  }) : '
                            '(tensor<i32>) -> tensor<4xf32>'),
    ("C59", "x:4xf32 i:i32", '%r = "tensor.case"(%i) ({\n  ^bb0(%a: tensor<4xf32>):\n    '
                            'tensor.yield %a\n  }) : (tensor<i32>) -> tensor<4xf32>'),
    # C8, C9 iota
    ("C8", "", "%r = tensor.iota <{iota_dimension = 0}> : tensor<f32>"),
    ("C8", "", "%r = tensor.iota <{iota_dimension = 0}> : tensor<4xi1>"),
    ("C9", "", "%r = tensor.iota <{iota_dimension = 2}> : tensor<4x3xi32>"),
    ("C9", "", "%r = tensor.iota <{iota_dimension = -1}> : tensor<4xi32>"),
    # C10 reshape
    ("C10", M, "%r = tensor.reshape %x : tensor<31xf32>"),
    ("C10", M, "%r = tensor.reshape %x : tensor<32xf16>"),
    # C11 transpose
    ("C11", M, "%r = tensor.transpose %x <{permutation = [0, 0]}> : tensor<4x4xf32>"),
    ("C11", M, "%r = tensor.transpose %x <{permutation = [1, 2]}> : tensor<8x4xf32>"),
    ("C11", M, "%r = tensor.transpose %x <{permutation = [0]}> : tensor<4xf32>"),
    # C12..C14 broadcast_in_dim
    ("C12", X, "%r = tensor.broadcast_in_dim %x <{broadcast_dimensions = [0, 1]}> : "
               "tensor<4x4xf32>"),
    ("C12", X, "%r = tensor.broadcast_in_dim %x <{broadcast_dimensions = [1]}> : tensor<2x4xf16>"),
    ("C13", "x:1x4xf32", "%r = tensor.broadcast_in_dim %x <{broadcast_dimensions = [2, 1]}> : "
                         "tensor<4x4x4xf32>"),
    ("C13", "x:1x4xf32", "%r = tensor.broadcast_in_dim %x <{broadcast_dimensions = [1, 1]}> : "
                         "tensor<4x4xf32>"),
    ("C13", X, "%r = tensor.broadcast_in_dim %x <{broadcast_dimensions = [2]}> : tensor<4x4xf32>"),
    ("C13", X, "%r = tensor.broadcast_in_dim %x <{broadcast_dimensions = [-1]}> : tensor<4xf32>"),
    ("C14", "x:3xf32", "%r = tensor.broadcast_in_dim %x <{broadcast_dimensions = [1]}> : "
                       "tensor<2x4xf32>"),
    # C15, C16 slice
    ("C15", M, "%r = tensor.slice %x <{start_indices = [0], limit_indices = [4, 8]}> : "
               "tensor<4x8xf32>"),
    ("C15", M, "%r = tensor.slice %x <{start_indices = [0, 0], limit_indices = [4, 8], "
               "strides = [1, 1, 1]}> : tensor<4x8xf32>"),
    ("C16", M, "%r = tensor.slice %x <{start_indices = [3, 0], limit_indices = [2, 8]}> : "
               "tensor<0x8xf32>"),
    ("C16", M, "%r = tensor.slice %x <{start_indices = [0, 0], limit_indices = [4, 9]}> : "
               "tensor<4x9xf32>"),
    ("C16", M, "%r = tensor.slice %x <{start_indices = [0, 0], limit_indices = [4, 8], "
               "strides = [1, 0]}> : tensor<4x8xf32>"),
    ("C16", M, "%r = tensor.slice %x <{start_indices = [-1, 0], limit_indices = [4, 8]}> : "
               "tensor<5x8xf32>"),
    # C17, C18 concatenate
    ("C17", "x:4xf32 h:4xf16", "%r = tensor.concatenate %x, %h <{dimension = 0}> : tensor<8xf32>"),
    ("C17", "x:4xf32 y:1x4xf32", "%r = tensor.concatenate %x, %y <{dimension = 0}> : "
                                 "tensor<8xf32>"),
    ("C17", M, "%r = tensor.concatenate %x, %x <{dimension = 2}> : tensor<4x8xf32>"),
    ("C17", M, "%r = tensor.concatenate %x <{dimension = -1}> : tensor<4x8xf32>"),
    ("C18", "x:4x8xf32 y:3x7xf32", "%r = tensor.concatenate %x, %y <{dimension = 0}> : "
                                   "tensor<7x8xf32>"),
    # C19, C20 pad
    ("C19", "x:4x8xf32 v:f16", "%r = tensor.pad %x, %v <{edge_padding_low = [0, 0], "
                               "edge_padding_high = [0, 0]}> : tensor<4x8xf32>"),
    ("C19", "x:4x8xf32 v:1xf32", "%r = tensor.pad %x, %v <{edge_padding_low = [0, 0], "
                                 "edge_padding_high = [0, 0]}> : tensor<4x8xf32>"),
    ("C20", "x:4x8xf32 v:f32", "%r = tensor.pad %x, %v <{edge_padding_low = [0], "
                               "edge_padding_high = [0, 0]}> : tensor<4x8xf32>"),
    ("C20", "x:4x8xf32 v:f32", "%r = tensor.pad %x, %v <{edge_padding_low = [0, 0], "
                               "edge_padding_high = [0, 0], interior_padding = [0, -1]}> : "
                               "tensor<4x1xf32>"),
    ("C20", "x:4x8xf32 v:f32", "%r = tensor.pad %x, %v <{edge_padding_low = [-3, 0], "
                               "edge_padding_high = [-2, 0]}> : tensor<0x8xf32>"),
    # C21 reverse
    ("C21", M, "%r = tensor.reverse %x <{dimensions = [0, 0]}> : tensor<4x8xf32>"),
    ("C21", M, "%r = tensor.reverse %x <{dimensions = [2]}> : tensor<4x8xf32>"),
    # C22, C23 gather
    ("C22", "x:4x8xf32 i:3xf32", "%r = tensor.gather %x, %i <{axis = 0}> : tensor<3x8xf32>"),
    ("C22", "x:4x8xf32 i:3xi1", "%r = tensor.gather %x, %i <{axis = 0}> : tensor<3x8xf32>"),
    ("C22", "x:4x8xf32 i:3xi32", "%r = tensor.gather %x, %i <{axis = 2}> : tensor<4x8x3xf32>"),
    ("C22", "x:4x8xf32 i:3xi32", '%r = tensor.gather %x, %i <{axis = 0, mode = "clip"}> : '
                                 'tensor<3x8xf32>'),
    ("C23", "x:4x8xf32 i:4xi32", '%r = tensor.gather %x, %i <{axis = 0, mode = "along_axis"}> : '
                                 'tensor<4xf32>'),
    ("C23", "x:4x8xf32 i:2x7xi32", '%r = tensor.gather %x, %i <{axis = 0, mode = "along_axis"}>'
                                   ' : tensor<2x7xf32>'),
    # C24..C29 dot_general
    ("C24", "a:2x3x4xf32 b:2x4x5xf32", dg("[0]", "[]", "[2]", "[1]", "2x3x5xf32")),
    ("C24", "a:3x4xf32 b:4x5xf32", dg("[]", "[]", "[1]", "[0, 1]", "3xf32")),
    ("C25", "a:3x4xf32 b:4x5xf32", dg("[]", "[]", "[2]", "[0]", "3x5xf32")),
    ("C25", "a:4x4xf32 b:4x4xf32", dg("[0]", "[0]", "[0]", "[1]", "4xf32")),
    ("C25", "a:3x4xf32 b:4x5xf32", dg("[]", "[]", "[1]", "[-1]", "3x5xf32")),
    ("C26", "a:3x4xf32 b:5x6xf32", dg("[]", "[]", "[1]", "[0]", "3x6xf32")),
    ("C26", "a:2x3x4xf32 b:7x4x5xf32", dg("[0]", "[0]", "[2]", "[1]", "2x3x5xf32")),
    ("C27", "a:3x4xf32 b:4x5xf16", dg("[]", "[]", "[1]", "[0]", "3x5xf32")),
    ("C27", "a:3x4xi1 b:4x5xi1", dg("[]", "[]", "[1]", "[0]", "3x5xi1")),
    ("C27", "a:3x4xf32 b:4x5xf32", dg("[]", "[]", "[1]", "[0]", "3x5xi32")),
    ("C27", "a:3x4xi8 b:4x5xi8", dg("[]", "[]", "[1]", "[0]", "3x5xi1")),
    ("C28", "a:3x4xf32 b:4x5xf32", dg("[]", "[]", "[1]", "[0]", "5x3xf32")),
    ("C28", "a:2x3x4xf32 b:2x4x5xf32", dg("[0]", "[0]", "[2]", "[1]", "3x2x5xf32")),
    ("C29", "a:3x4xf32 b:4x5xf32", dg("[]", "[]", "[1]", "[0]", "3x5xf32", "f16")),
    ("C29", "a:3x4xf32 b:4x5xf32", dg("[]", "[]", "[1]", "[0]", "3x5xf32", "i64")),
    ("C29", "a:3x4xi8 b:4x5xi8", dg("[]", "[]", "[1]", "[0]", "3x5xi8", "f32")),
    ("C29", "a:3x4xf32 b:4x5xf32", dg("[]", "[]", "[1]", "[0]", "3x5xf32", "f8")),
    # C30..C33 reduce
    ("C30", "x:4x8xf32 i:f32", f"%r = tensor.reduce %x, %x, %i <{{dimensions = [1]}}> : "
                               f"tensor<4xf32> {SUM_F32}"),
    ("C31", "x:4x8xf32 i:f16", f"%r = tensor.reduce %x, %i <{{dimensions = [1]}}> : "
                               f"tensor<4xf32> {SUM_F32}"),
    ("C31", "x:4x8xf32 i:1xf32", f"%r = tensor.reduce %x, %i <{{dimensions = [1]}}> : "
                                 f"tensor<4xf32> {SUM_F32}"),
    ("C31", "x:4x8xf32 y:4x7xf32 i:f32",
     "%r:2 = tensor.reduce %x, %y, %i, %i <{dimensions = [1]}> : tensor<4xf32>, tensor<4xf32> "
     + red("a:f32 b:f32 c:f32 d:f32", "tensor.yield %a, %b")),
    ("C32", "x:4x8xf32 i:f32", f"%r = tensor.reduce %x, %i <{{dimensions = [1, 1]}}> : "
                               f"tensor<4xf32> {SUM_F32}"),
    ("C32", "x:4x8xf32 i:f32", f"%r = tensor.reduce %x, %i <{{dimensions = [2]}}> : "
                               f"tensor<4x8xf32> {SUM_F32}"),
    ("C33", "x:4x8xf32 i:f32", "%r = tensor.reduce %x, %i <{dimensions = [1]}> : tensor<4xf32> "
     + red("a:f16 b:f16", "tensor.yield %a")),
    ("C33", "x:4x8xf32 i:f32", "%r = tensor.reduce %x, %i <{dimensions = [1]}> : tensor<4xf32> "
     + red("a:f32", "tensor.yield %a")),
    ("C33", "x:4x8xf32 i:f32", "%r = tensor.reduce %x, %i <{dimensions = [1]}> : tensor<4xf32> "
     + red("a:f32 b:f32", "tensor.yield %a, %b")),
    ("C33", "x:4x8xf32 i:f32", "%r = tensor.reduce %x, %i <{dimensions = [1]}> : tensor<4xf32> "
     + red("a:f32 b:f32", "%c = tensor.convert %a : tensor<f16>", "tensor.yield %c")),
    ("C33", "x:4x8xf32 i:f32", "%r = tensor.reduce %x, %i <{dimensions = [1]}> : tensor<4xf32> "
     + red("a:f32 b:f32", "builtin.return")),
    ("C33", "x:4x8xf32 i:f32", "%r = tensor.reduce %x, %i <{dimensions = [1]}> : tensor<4xf32> "
                               "({\n    })"),
    # C34, C35 scan
    ("C34", "x:4x8xf32 i:f16", f"%r = tensor.scan %x, %i <{{dimension = 1}}> : "
                               f"tensor<4x8xf32> {SUM_F32}"),
    ("C34", "x:4x8xf32 i:2xf32", f"%r = tensor.scan %x, %i <{{dimension = 1}}> : "
                                 f"tensor<4x8xf32> {SUM_F32}"),
    ("C34", "x:4x8xf32 i:f32", f"%r = tensor.scan %x, %i <{{dimension = 2}}> : "
                               f"tensor<4x8xf32> {SUM_F32}"),
    ("C35", "x:4x8xf32 i:f32", "%r = tensor.scan %x, %i <{dimension = 1}> : tensor<4x8xf32> "
     + red("a:f32 b:f32 c:f32", "tensor.yield %a")),
    ("C35", "x:4x8xf32 i:f32", "%r = tensor.scan %x, %i <{dimension = 1}> : tensor<4x8xf32> "
     + red("a:f32 b:f32", "tensor.yield %a, %b")),
    ("C35", "x:4x8xf32 i:f32", "%r = tensor.scan %x, %i <{dimension = 1}> : tensor<4x8xf32> "
     + red("a:f32 b:f32", "tensor.yield")),
    ("C35", "x:4x8xf32 i:f32", "%r = tensor.scan %x, %i <{dimension = 1}> : tensor<4x8xf32> "
     + red("a:f32 b:f32", "builtin.return")),
    # C36..C38 iterate
    ("C36", X, f"%r = tensor.iterate %x : tensor<4xf16> ({COND_TRUE}, {BODY_ID})"),
    ("C36", X, f"%r:2 = tensor.iterate %x : tensor<4xf32>, tensor<4xf32> ({COND_TRUE}, {BODY_ID})"),
    ("C37", X, "%r = tensor.iterate %x : tensor<4xf32> ("
     + region("c:4xf32", "%t = tensor.constant <{value = dense<1.0> : tensor<f32>}> : tensor<f32>",
              "tensor.yield %t") + f", {BODY_ID})"),
    ("C37", X, "%r = tensor.iterate %x : tensor<4xf32> ("
     + region("c:4xf32", "%t = tensor.constant <{value = dense<true> : tensor<2xi1>}> : "
                         "tensor<2xi1>", "tensor.yield %t") + f", {BODY_ID})"),
    ("C37", X, "%r = tensor.iterate %x : tensor<4xf32> ("
     + region("c:4xf16", "%t = tensor.constant <{value = dense<true> : tensor<i1>}> : tensor<i1>",
              "tensor.yield %t, %t") + f", {BODY_ID})"),
    ("C37", X, "%r = tensor.iterate %x : tensor<4xf32> ("
     + region("c:4xf32", "%t = tensor.constant <{value = dense<true> : tensor<i1>}> : tensor<i1>",
              "tensor.yield %t, %t") + f", {BODY_ID})"),
    ("C38", X, f"%r = tensor.iterate %x : tensor<4xf32> ({COND_TRUE}, "
     + region("d:4xf32", "%n = tensor.convert %d : tensor<4xf16>", "tensor.yield %n") + ")"),
    ("C38", X, f"%r = tensor.iterate %x : tensor<4xf32> ({COND_TRUE}, "
     + region("d:4xf32 e:4xf32", "tensor.yield %d") + ")"),
    ("C38", X, f"%r = tensor.iterate %x : tensor<4xf32> ({COND_TRUE}, "
     + region("d:4xf32", "tensor.yield") + ")"),
    # C39..C41 attention
    ("C39", "q:2x8x16xf32",
     "%r = tensor.attention %q, %q, %q <{scale = 0.25}> : tensor<2x8x16xf32>"),
    ("C39", "q:1x2x8x16xf32 k:1x2x8x16xf16",
     "%r = tensor.attention %q, %k, %k <{scale = 0.25}> : tensor<1x2x8x16xf32>"),
    ("C39", "q:1x2x8x16xi32", "%r = tensor.attention %q, %q, %q <{scale = 0.25}> : "
                              "tensor<1x2x8x16xi32>"),
    ("C40", "q:1x2x8x16xf32 k:2x2x8x16xf32",
     "%r = tensor.attention %q, %k, %k <{scale = 0.25}> : tensor<1x2x8x16xf32>"),
    ("C40", "q:1x2x8x16xf32 k:1x2x8x16xf32 v:1x2x9x16xf32",
     "%r = tensor.attention %q, %k, %v <{scale = 0.25}> : tensor<1x2x8x16xf32>"),
    ("C40", "q:1x2x8x16xf32 k:1x2x8x32xf32",
     "%r = tensor.attention %q, %k, %k <{scale = 0.25}> : tensor<1x2x8x32xf32>"),
    ("C41", "q:1x2x8x16xf32 m:1x1x8x8xf16",
     "%r = tensor.attention %q, %q, %q, %m <{scale = 0.25}> : tensor<1x2x8x16xf32>"),
    ("C41", "q:1x2x8x16xf32 m:1x1x4x8xf32",
     "%r = tensor.attention %q, %q, %q, %m <{scale = 0.25}> : tensor<1x2x8x16xf32>"),
    ("C41", "q:1x2x8x16xf32 m:1x8x8xf32",
     "%r = tensor.attention %q, %q, %q, %m <{scale = 0.25}> : tensor<1x2x8x16xf32>"),
    # C45 - C47 a raised attention (its dots' dimensions, dtypes and score region)
    ("C45", "q:1x2x8x16xf32", raised(dims(1, 3, 3), dims(2, 3, 2), "s:1x2x8x8xf32")),
    ("C45", "q:1x2x8x16xf32", raised(dims(2, 3, 1), dims(2, 3, 2), "s:1x2x8x8xf32")),
    ("C47", "q:1x2x8x16xf32", raised(dims(2, 3, 3), dims(2, 3, 2), "s:1x2x8x8xf32",
                                     yields="1x2x8x16xf32")),
    ("C47", "q:1x2x8x16xf32", raised(dims(2, 3, 3), dims(2, 3, 2), "s:1x2x8x8xf32",
                                     sum_dtype="f16")),       # narrower than the scores
    ("C47", "q:1x2x8x16xf32", raised(dims(2, 3, 3), dims(2, 3, 2), "s:1x2x8x8xf32",
                                     sum_dtype="i32")),
    ("C46", "q:1x2x8x16xf32", raised(dims(2, 3, 3), dims(2, 2, 2), "s:1x2x8x8xf32")),
    ("C46", "q:1x2x8x16xf32", raised(dims(2, 3, 3), dims(2, 3, 2), "s:1x2x8x8xf32",
                                     value_dtype="i32")),
    # C42, C43 kernel_call
    ("C42", X, kcall(f'ptx = {PTX}, kernel = "other", grid = [1, 1, 1], block = [1, 1, 1]')),
    ("C42", X, kcall(f'ptx = {PTX}, kernel = "", grid = [1, 1, 1], block = [1, 1, 1]')),
    ("C42", X, kcall('ptx = "", kernel = "k", grid = [1, 1, 1], block = [1, 1, 1]')),
    ("C42", X, kcall('ptx = ".visible .entry k(.param .u64 a)", kernel = "k", grid = [1, 1, 1], '
                     'block = [1, 1, 1]')),                          # one parameter for two
    ("C43", X, kcall(f"{KC}, grid = [1, 65536, 1], block = [1, 1, 1]")),
    ("C43", X, kcall(f"{KC}, grid = [1, 1, 1], block = [1, 1, 65]")),
    ("C43", X, kcall(f"{KC}, grid = [1, 0, 1], block = [1, 1, 1]")),
    ("C43", X, kcall(f"{KC}, grid = [1, 1, 1], block = [32, 32, 2]")),
    ("C43", X, kcall(f"{KC}, grid = [1, 1], block = [1, 1, 1]")),
    ("C43", X, kcall(f"{KC}, grid = [1, 1, 1], block = [1, 1, 1], shared_bytes = -1")),
    # C44 yield outside a region op
    ("C44", X, "tensor.yield %x"),
    # "attr": attribute kinds the schema accepts but the rule does not
    ("attr", M, '%r = tensor.transpose %x <{permutation = [1, "a"]}> : tensor<8x4xf32>'),
    ("attr", M, "%r = tensor.slice %x <{start_indices = [0, 0], limit_indices = [4, 8], "
                "strides = [1.0, 1]}> : tensor<4x8xf32>"),
    ("attr", "", "%r = tensor.iota <{iota_dimension = true}> : tensor<4xi32>"),
    ("attr", "x:4x8xf32 i:f32", f"%r = tensor.scan %x, %i <{{dimension = true}}> : "
                                f"tensor<4x8xf32> {SUM_F32}"),
]
CASE_IDS = [f"{code}-{sum(c[0] == code for c in CASES[:i])}" for i, (code, *_) in
            enumerate(CASES)]
REGION_CODES = {"C33", "C35", "C37", "C38", "C44", "C47", "C54", "C57", "C59"}   # checked on the IR only, not by the rule


def broken_op(module):
    func = module.body.first_op
    ops = [op for op in func.regions[0].entry.operations if op.name != "builtin.return"]
    return ops[-1]


def case_module(args, body):
    terminate = not body.startswith("tensor.yield")
    return parse(module_text(args, body, terminate), verify=False)


@pytest.mark.parametrize("code,args,body", CASES, ids=CASE_IDS)
def test_verifier_names_the_broken_constraint(code, args, body):
    module = case_module(args, body)
    name = broken_op(module).name
    with pytest.raises(VerifyError) as info:
        module.verify()
    message = info.value.message
    assert re.match(rf"'{name}' (type inference failed: )?\({code}\) ", message), message
    assert name in info.value.op_text


@pytest.mark.parametrize("code,args,body", [c for c in CASES if c[0] not in REGION_CODES],
                         ids=[i for i, c in zip(CASE_IDS, CASES) if c[0] not in REGION_CODES])
def test_emitter_refuses_the_same_op(code, args, body):
    """The same op (operand types, attributes, declared result types) built through Emitter."""
    op = broken_op(case_module(args, body))
    ctx = Context()
    m = Module.create(ctx)
    f = Builder(ctx).at_end(m.body).create("builtin.func", attributes={
        "sym_name": "main", "function_type": FunctionType(op.operand_types, ())})
    block = f.regions[0].add_block(list(op.operand_types))
    e = Emitter(Builder(ctx).at_end(block))
    before = ctx.num_operations
    with pytest.raises((ShapeError, AccyTypeError)) as info:
        e.ops(op.name, list(block.arguments), op.result_types, dict(op.attributes))
    assert f"({code})" in str(info.value) and f"'{op.name}'" in str(info.value)
    assert ctx.num_operations == before                 # nothing was created


def test_every_documented_constraint_has_cases():
    documented = set(re.findall(r"\bC(\d+)\b", DOC.read_text()))
    assert documented == {str(i) for i in range(1, LAST + 1)}
    assert {c for c, *_ in CASES} == {f"C{i}" for i in range(1, LAST + 1)} | {"attr"}
    source = Path(accy.tensor.dialect.__file__).read_text()
    assert {f"C{i}" for i in range(1, LAST + 1)} <= set(re.findall(r"\bC\d+\b", source))


def test_constraints_the_text_cannot_reach():
    """C17 with no operand (V2 stops it in text), `(attr)` on attention (its schema stops it in
    text), and iterate with nothing to carry are refused by the Emitter; C44 at module level."""
    m, e, args = build_module(["4xf32"])
    with pytest.raises(ShapeError, match=r"'tensor.concatenate' \(C17\)"):
        e.ops("tensor.concatenate", [], None, {"dimension": 0})
    q = e.op("tensor.reshape", args[0], result_type=TensorType("f32", (1, 1, 2, 2)))
    with pytest.raises(ShapeError, match=r"'tensor.attention' \(attr\)"):
        e.op("tensor.attention", q, q, q, scale=0.5, causal=1)
    with pytest.raises(ShapeError, match="at least one"):
        e.iterate([], lambda e: None, lambda e: ())
    text = module_text("q:1x1x2x2xf32", "%r = tensor.attention %q, %q, %q <{scale = 0.5, causal "
                                        "= 1}> : tensor<1x1x2x2xf32>")
    with pytest.raises(VerifyError, match="'causal' must be bool"):
        parse(text)
    with pytest.raises(VerifyError, match="expects at least 1 operand"):
        parse(module_text("", "%r = tensor.concatenate <{dimension = 0}> : tensor<4xf32>"))
    top = parse("builtin.module ({\n  tensor.yield\n})\n", verify=False)   # C44 at the top
    with pytest.raises(VerifyError, match=r"'tensor.yield' \(C44\)"):
        top.verify()


@pytest.mark.parametrize("name", sorted(BINARY) + sorted(UNARY) + ["is_finite"])
def test_elementwise_dtype_classes(name):
    """C1 for every dtype: the op takes exactly its documented class."""
    allowed = (BINARY[name][0] if name in BINARY else UNARY[name] if name in UNARY
               else FLOAT_DTYPES)
    for dtype in DTYPES:
        ops = "%x, %x" if name in BINARY else "%x"
        rt = tt("2x3xi1" if name == "is_finite" else f"2x3x{dtype}")
        text = module_text(f"x:2x3x{dtype}", f"%r = tensor.{name} {ops} : {rt}")
        if dtype in allowed:
            parse(text).verify()
        else:
            with pytest.raises(VerifyError, match=rf"'tensor.{name}' .*\(C1\)"):
                parse(text)


# ---- valid instances of every op: verify and round-trip -------------------------------------

def build_module(arg_specs):
    """A module with `builtin.func @main(args)` and an Emitter in its entry block."""
    ctx = Context()
    m = Module.create(ctx)
    types = [TensorType(s.split("x")[-1], [int(d) for d in s.split("x")[:-1]]) for s in arg_specs]
    f = Builder(ctx).at_end(m.body).create("builtin.func", attributes={
        "sym_name": "main", "function_type": FunctionType(types, ())})
    block = f.regions[0].add_block(types)
    return m, Emitter(Builder(ctx).at_end(block)), list(block.arguments)


def finish(m, e, results):
    """Return `results` from @main (fixing its function type) and verify."""
    func = m.body.first_op
    func.set_attribute("function_type", FunctionType(
        func.attributes["function_type"].inputs, [v.type for v in results]))
    e.builder.create("builtin.return", list(results))
    m.verify()
    return m


def assert_round_trips(m):
    for generic in (False, True):
        text = m.print(generic=generic)
        again = parse(text)
        assert again.print(generic=generic) == text
        assert again.print(generic=not generic) == m.print(generic=not generic)
        assert again.fingerprint() == m.fingerprint()
        assert parse(text, Context()).fingerprint() == m.fingerprint()


def _dtypes(cls):
    return sorted(cls)


def _elementwise(name):
    cls = BINARY[name][0] if name in BINARY else UNARY[name]
    m, e, args = build_module([f"2x3x{d}" for d in _dtypes(cls)])
    return m, e, [e.op(f"tensor.{name}", *([x] * (2 if name in BINARY else 1))) for x in args]


def _compare():
    m, e, args = build_module([f"3x{d}" for d in _dtypes(DTYPES)])
    out = []
    for x in args:
        for d in ("EQ", "NE", "LT", "LE", "GT", "GE"):
            out.append(e.compare(x, x, d))
    out.append(e.op("tensor.compare", args[0], args[0], comparison_direction="LT",
                    compare_type="FLOAT" if args[0].type.dtype in FLOAT_DTYPES else "SIGNED"))
    i32 = [a for a in args if a.type.dtype == "i32"][0]
    out.append(e.op("tensor.compare", i32, i32, comparison_direction="GE",
                    compare_type="UNSIGNED"))
    return m, e, out


def _select():
    m, e, (p, p0, a, h) = build_module(["2x3xi1", "i1", "2x3xbf16", "2x3xi8"])
    return m, e, [e.op("tensor.select", p, a, a), e.op("tensor.select", p0, h, h),
                  e.op("tensor.select", p, p, p)]


def _clamp():
    m, e, (lo, x, hi) = build_module(["i8", "2x3xi8", "2x3xi8"])
    return m, e, [e.op("tensor.clamp", lo, x, hi), e.op("tensor.clamp", hi, x, lo)]


def _convert():
    m, e, (x, p, u) = build_module(["2x3xf32", "2x3xi1", "2x3xu8"])
    return m, e, [e.convert(x, "bf16"), e.convert(p, "f16"), e.convert(u, "i64"),
                  e.convert(x, "i1")]


def _bitcast_convert():
    m, e, (x, h, p, u) = build_module(["2x3xf32", "2x3xbf16", "2x3xi1", "2x3xu8"])
    return m, e, [e.op("tensor.bitcast_convert", x, result_type=TensorType("i32", (2, 3))),
                  e.op("tensor.bitcast_convert", h, result_type=TensorType("i16", (2, 3))),
                  e.op("tensor.bitcast_convert", p, result_type=TensorType("i1", (2, 3))),
                  e.op("tensor.bitcast_convert", u, result_type=TensorType("i8", (2, 3)))]


def _dynamic_slice():
    m, e, (x, i, j) = build_module(["4x5xf16", "i32", "u8"])
    return m, e, [e.op("tensor.dynamic_slice", x, i, i, slice_sizes=(2, 5)),
                  e.op("tensor.dynamic_slice", x, j, j, slice_sizes=(0, 1))]


def _dynamic_update_slice():
    m, e, (x, u, i) = build_module(["4x5xi8", "2x5xi8", "i64"])
    return m, e, [e.op("tensor.dynamic_update_slice", x, u, i, i)]


def _sort():
    m, e, (x, p) = build_module(["4x5xbf16", "4x5xi1"])

    def comparator(e, a, b, c, d):
        return e.op("tensor.or", e.compare(a, b, "GT"), e.compare(c, d, "LT"))
    return m, e, [*e.sort([x, p], 1, comparator),
                  *e.sort([p], 0, lambda e, a, b: e.compare(a, b, "LT"))]


def _scatter():
    m, e, (x, i, u, j, v) = build_module(["4x5xf16", "2x3xu8", "4x2x3xf16", "i64", "5xf16"])
    return m, e, [e.scatter(x, i, u, 1, "add"), e.scatter(x, j, v, 0, "set"),
                  e.scatter(x, j, v, 0, lambda e, a, b: e.op("tensor.maximum", a, b))]


def _case():
    m, e, (i, x, u) = build_module(["i32", "4xf16", "u8"])
    return m, e, [*e.case(i, [lambda e: [x, i], lambda e: [e.op("tensor.negate", x), i]]),
                  *e.case(u, [lambda e: [e.op("tensor.abs", x)]])]


def _constant():
    m, e, _ = build_module([])
    return m, e, [e.constant(np.arange(6).reshape(2, 3), d) for d in _dtypes(DTYPES)]


def _iota():
    m, e, _ = build_module([])
    return m, e, [e.op("tensor.iota", iota_dimension=1, result_type=TensorType(d, (2, 5)))
                  for d in ("u8", "f16", "i64", "bf16")]


def _reshape():
    m, e, (x,) = build_module(["2x3xbf16"])
    return m, e, [e.reshape(x, (6,)), e.reshape(x, (3, 1, 2)), e.reshape(e.reshape(x, (6,)),
                                                                        (1, 6))]


def _transpose():
    m, e, (x,) = build_module(["2x3x4xu8"])
    return m, e, [e.op("tensor.transpose", x, permutation=(1, 2, 0))]


def _broadcast():
    m, e, (x, s) = build_module(["1x3xi8", "f16"])
    return m, e, [e.broadcast(x, (4, 2, 3), (1, 2)), e.broadcast(s, (2, 2))]


def _slice():
    m, e, (x,) = build_module(["7x5xf16"])
    return m, e, [e.op("tensor.slice", x, start_indices=(1, 0), limit_indices=(7, 5),
                       strides=(3, 2)),
                  e.op("tensor.slice", x, start_indices=(2, 5), limit_indices=(2, 5))]


def _concatenate():
    m, e, (a, b) = build_module(["2x3xi1", "2x1xi1"])
    return m, e, [e.op("tensor.concatenate", a, b, a, dimension=1)]


def _pad():
    m, e, (x, v) = build_module(["3x4xbf16", "bf16"])
    return m, e, [e.op("tensor.pad", x, v, edge_padding_low=(1, -1), edge_padding_high=(2, -2),
                       interior_padding=(2, 0))]


def _reverse():
    m, e, (x,) = build_module(["3x4xi8"])
    return m, e, [e.op("tensor.reverse", x, dimensions=(1, 0)),
                  e.op("tensor.reverse", x, dimensions=())]


def _gather():
    m, e, (x, i, j) = build_module(["5x6xf16", "2x3xu8", "5x9xi64"])
    return m, e, [e.op("tensor.gather", x, i, axis=1),
                  e.op("tensor.gather", x, j, axis=1, mode="along_axis")]


def _dot_general():
    m, e, (a, b, c, d) = build_module(["2x3x4xbf16", "2x4x5xbf16", "3x4xi8", "4x5xi8"])
    return m, e, [
        e.op("tensor.dot_general", a, b, lhs_batching_dimensions=(0,),
             rhs_batching_dimensions=(0,), lhs_contracting_dimensions=(2,),
             rhs_contracting_dimensions=(1,), result_type=TensorType("f32", (2, 3, 5))),
        e.op("tensor.dot_general", c, d, lhs_contracting_dimensions=(1,),
             rhs_contracting_dimensions=(0,), accumulation_type="i32",
             result_type=TensorType("i32", (3, 5))),
        e.op("tensor.dot_general", c, d, result_type=TensorType("i8", (3, 4, 4, 5)))]


def _reduce():
    m, e, (x, p) = build_module(["4x5xf16", "4x5xi1"])
    return m, e, [e.reduce_kind(x, (1,), "max"), e.reduce_kind(p, (0, 1), "or"),
                  *e.argreduce(x, 0, "argmin", "u8")]


def _scan():
    m, e, (x,) = build_module(["4x5xi8"])
    return m, e, [e.scan(x, e.constant(0, "i8"), 1, "sum"),
                  e.scan(x, e.constant(1, "i8"), 0, "prod", exclusive=True, reverse=True)]


def _iterate():
    m, e, (x, n) = build_module(["4xf32", "i32"])
    lim = e.constant(10, "i32")         # used inside the regions: defined above the op

    def cond(e, v, i):
        return e.compare(i, lim, "LT")

    def body(e, v, i):
        return e.op("tensor.add", v, v), e.op("tensor.add", i, e.constant(1, "i32"))
    return m, e, list(e.iterate([x, n], cond, body))


def _attention():
    m, e, (q, k, v, mask) = build_module(["1x2x8x16xbf16", "1x2x6x16xbf16", "1x2x6x4xbf16",
                                          "1x1x8x6xbf16"])
    return m, e, [e.op("tensor.attention", q, k, v, scale=0.25, causal=True),
                  e.op("tensor.attention", q, k, v, mask, scale=0.125)]


def _kernel_call():
    m, e, (x,) = build_module(["4xf32"])
    ptx = (".version 8.0\n.target sm_90\n"
           ".visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c)\n{\n ret;\n}")
    r = e.ops("tensor.kernel_call", [x], (TensorType("f32", (4,)), TensorType("i1", (4,))),
              {"ptx": ptx, "kernel": "k", "grid": (2**31 - 1, 1, 1), "block": (256, 2, 2),
               "shared_bytes": 0})
    return m, e, list(r)


VALID = {
    **{f"tensor.{n}": (lambda n=n: _elementwise(n)) for n in list(BINARY) + list(UNARY)},
    "tensor.is_finite": lambda: (lambda m, e, a: (m, e, [e.op("tensor.is_finite", x) for x in a]))(
        *build_module([f"3x{d}" for d in _dtypes(FLOAT_DTYPES)])),
    "tensor.compare": _compare, "tensor.select": _select, "tensor.clamp": _clamp,
    "tensor.convert": _convert, "tensor.bitcast_convert": _bitcast_convert,
    "tensor.constant": _constant, "tensor.iota": _iota,
    "tensor.reshape": _reshape, "tensor.transpose": _transpose,
    "tensor.broadcast_in_dim": _broadcast, "tensor.slice": _slice,
    "tensor.concatenate": _concatenate, "tensor.pad": _pad, "tensor.reverse": _reverse,
    "tensor.gather": _gather, "tensor.dynamic_slice": _dynamic_slice,
    "tensor.dynamic_update_slice": _dynamic_update_slice, "tensor.dot_general": _dot_general, "tensor.reduce": _reduce,
    "tensor.scan": _scan, "tensor.sort": _sort, "tensor.scatter": _scatter, "tensor.case": _case,
    "tensor.iterate": _iterate,
    "tensor.attention": _attention,
    "tensor.kernel_call": _kernel_call, "tensor.yield": _reduce,
}


@pytest.mark.parametrize("name", DIALECTS["tensor"])
def test_every_op_verifies_and_round_trips(name):
    assert name in VALID, f"no valid instance of {name}: add one to VALID"
    m = finish(*VALID[name]())
    assert any(True for _ in m.walk(name=name))
    assert_round_trips(m)


# ---- constants: edge values round-trip bit-exactly --------------------------------------------

_UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}


def _float_edges(dtype):
    np_dtype = numpy_dtype(dtype)
    bits = 8 * np_dtype.itemsize
    info = ml_dtypes.finfo(np_dtype)
    values = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, info.max, -info.max,
                       info.tiny, info.smallest_subnormal, -info.smallest_subnormal,
                       info.tiny - info.smallest_subnormal, 1 / 3, 1e-3], np.float64)
    arr = values.astype(np_dtype)
    payload = {16: [0x7C01, 0xFE01, 0x7F81], 32: [0x7F800001, 0xFFC00123],
               64: [0x7FF0000000000001, 0xFFF8000000000ABC]}[bits]
    if dtype == "bf16":
        payload = [0x7F81, 0xFFC1]
    nans = np.array(payload, _UINT[bits]).view(np_dtype)
    return np.concatenate([arr, nans])


def _edges(dtype):
    if dtype in FLOAT_DTYPES:
        return _float_edges(dtype)
    if dtype == "i1":
        return np.array([True, False, True])
    info = np.iinfo(numpy_dtype(dtype))
    return np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1]).astype(
        numpy_dtype(dtype))


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_constants_round_trip_bit_exactly(dtype):
    edges = _edges(dtype)
    arrays = [edges, edges.reshape(1, -1, 1)]
    arrays += [np.array(v) for v in edges]                  # rank 0: every edge alone
    arrays += [np.full((2, 3), v) for v in edges[:4]]       # splats (one printed value)
    arrays += [np.resize(edges, 1500)]                      # past the list limit: hex form
    arrays += [np.zeros((0,), edges.dtype), np.zeros((2, 0), edges.dtype)]
    m, e, _ = build_module([])
    attrs = [DenseAttr(a.astype(numpy_dtype(dtype)), dtype) for a in arrays]
    for a in attrs:
        e.op("tensor.constant", value=a)
    finish(m, e, [])
    assert_round_trips(m)
    for generic in (False, True):
        again = parse(m.print(generic=generic))
        got = [op.attributes["value"] for op in again.walk(name="tensor.constant")]
        assert len(got) == len(attrs)
        for want, have in zip(attrs, got):
            assert have.type == want.type
            assert have.array.tobytes() == want.array.tobytes()


# ---- reduce_kind ------------------------------------------------------------------------------

def _reduce_op(dtype, body, n=1, scan=False):
    m, e, args = build_module([f"4x5x{dtype}"] * n)
    inits = [e.constant(0, dtype) for _ in range(n)]
    if scan:
        return e.scan(args[0], inits[0], 1, body).owner
    return e.reduce(args, inits, (1,), body)[0].owner


@pytest.mark.parametrize("kind,dtypes", [
    ("sum", ("f32", "i32", "bf16", "i1")), ("prod", ("f16", "u8")), ("max", ("f32", "i8")),
    ("min", ("f64", "i64")), ("and", ("i32", "i1")), ("or", ("u8", "i1"))])
def test_reduce_kind_names_emitter_bodies(kind, dtypes):
    for dtype in dtypes:
        m, e, (x,) = build_module([f"4x5x{dtype}"])
        op = e.reduce_kind(x, (0,), kind).owner
        assert reduce_kind(op) == kind
        scan = e.scan(x, e.constant(0, dtype), 1, kind).owner
        assert reduce_kind(scan) == kind
        finish(m, e, [])
        again = parse(m.print())             # the parsed body is recognized too
        assert [reduce_kind(o) for o in again.walk(name="tensor.reduce")] == [kind]
        assert [reduce_kind(o) for o in again.walk(name="tensor.scan")] == [kind]


@pytest.mark.parametrize("kind", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["f32", "bf16", "i32", "u8"])
def test_reduce_kind_names_arg_bodies(kind, dtype):
    m, e, (x,) = build_module([f"4x5x{dtype}"])
    values, index = e.argreduce(x, 1, kind)
    assert reduce_kind(values.owner) == kind
    other = "argmin" if kind == "argmax" else "argmax"
    assert reduce_kind(e.argreduce(x, 0, other, "i64")[0].owner) == other



@pytest.mark.parametrize("dtype", ["i32", "f32"])
@pytest.mark.parametrize("op,kind", [("add", "sum"), ("multiply", "prod"), ("maximum", "max"),
                                     ("minimum", "min")])
def test_reduce_kind_commutative_body_written_elem_acc(op, kind, dtype):
    body = lambda e, acc, x: e.op(f"tensor.{op}", x, acc)      # noqa: E731
    assert reduce_kind(_reduce_op(dtype, body)) == kind
    assert reduce_kind(_reduce_op(dtype, body, scan=True)) == kind


def test_reduce_kind_and_or_written_elem_acc():
    for op in ("and", "or"):
        body = lambda e, acc, x, op=op: e.op(f"tensor.{op}", x, acc)   # noqa: E731
        assert reduce_kind(_reduce_op("i1", body)) == op


NOT_KINDS = {
    "acc*acc+x": lambda e, a, x: e.op("tensor.add", e.op("tensor.multiply", a, a), x),
    "acc-x": lambda e, a, x: e.op("tensor.subtract", a, x),
    "x-acc": lambda e, a, x: e.op("tensor.subtract", x, a),
    "acc+acc": lambda e, a, x: e.op("tensor.add", a, a),
    "x*x": lambda e, a, x: e.op("tensor.multiply", x, x),
    "acc": lambda e, a, x: a,
    "x": lambda e, a, x: x,
    "max-then-unused": lambda e, a, x: (e.op("tensor.negate", x), e.op("tensor.maximum", a, x))[1],
    "acc+const": lambda e, a, x: e.op("tensor.add", a, e.constant(1, a.type.dtype)),
}


@pytest.mark.parametrize("dtype", ["i32", "f32"])
@pytest.mark.parametrize("body", NOT_KINDS.values(), ids=NOT_KINDS.keys())
def test_reduce_kind_none_for_other_bodies(body, dtype):
    assert reduce_kind(_reduce_op(dtype, body)) is None
    assert reduce_kind(_reduce_op(dtype, body, scan=True)) is None


def test_reduce_kind_none_for_two_input_sums():
    body = lambda e, a, b, x, y: (e.op("tensor.add", a, x), e.op("tensor.add", b, y))  # noqa
    assert reduce_kind(_reduce_op("i32", body, n=2)) is None


# ---- result type inference --------------------------------------------------------------------

def _inferred(arg_specs, name, *operand_idx, **attrs):
    m, e, args = build_module(arg_specs)
    v = e.op(name, *[args[i] for i in operand_idx], **attrs)
    finish(m, e, [v])                  # the verifier agrees with the inferred type
    return v.type.dtype, v.type.shape


@pytest.mark.parametrize("args,name,operands,attrs,want", [
    # slice: ceil((limit - start) / stride)
    (["10x7xf32"], "slice", (0,), dict(start_indices=(1, 0), limit_indices=(10, 7),
                                       strides=(3, 2)), ("f32", (3, 4))),
    (["10x7xf32"], "slice", (0,), dict(start_indices=(0, 2), limit_indices=(10, 2),
                                       strides=(4, 5)), ("f32", (3, 0))),
    (["10xi8"], "slice", (0,), dict(start_indices=(9,), limit_indices=(10,), strides=(100,)),
     ("i8", (1,))),
    # pad: low + high + dim + max(dim - 1, 0) * interior, negative edges crop
    (["3x4xf16", "f16"], "pad", (0, 1), dict(edge_padding_low=(1, -1), edge_padding_high=(2, -2),
                                             interior_padding=(2, 0)), ("f16", (10, 1))),
    (["0x1xf16", "f16"], "pad", (0, 1), dict(edge_padding_low=(1, 0), edge_padding_high=(1, 0),
                                             interior_padding=(5, 3)), ("f16", (2, 1))),
    (["4xu8", "u8"], "pad", (0, 1), dict(edge_padding_low=(-4,), edge_padding_high=(0,)),
     ("u8", (0,))),
    # gather: take inserts the indices' shape at axis; along_axis gives the indices' shape
    (["5x6x7xbf16", "2x3xi32"], "gather", (0, 1), dict(axis=1), ("bf16", (5, 2, 3, 7))),
    (["5x6x7xbf16", "i32"], "gather", (0, 1), dict(axis=2), ("bf16", (5, 6))),
    (["5x6x7xbf16", "5x9x7xu8"], "gather", (0, 1), dict(axis=1, mode="along_axis"),
     ("bf16", (5, 9, 7))),
    # transpose: y.shape[i] = x.shape[perm[i]]
    (["2x3x4xi1"], "transpose", (0,), dict(permutation=(2, 0, 1)), ("i1", (4, 2, 3))),
    # concatenate
    (["2x3xf32", "2x5xf32"], "concatenate", (0, 1, 0), dict(dimension=1), ("f32", (2, 11))),
    # compare and is_finite give i1
    (["2x3xu8"], "compare", (0, 0), dict(comparison_direction="GT"), ("i1", (2, 3))),
])
def test_inferred_result_types(args, name, operands, attrs, want):
    assert _inferred(args, f"tensor.{name}", *operands, **attrs) == want


@pytest.mark.parametrize("lhs,rhs,dims,want", [
    # (batch, lhs free, rhs free), each free group in operand dimension order
    ("7x2x4x3", "2x4x6", ((1,), (0,), (2,), (1,)), (2, 7, 3, 6)),
    ("3x4", "4x5", ((), (), (1,), (0,)), (3, 5)),
    ("3x4", "5x4", ((), (), (1,), (1,)), (3, 5)),
    ("3x4", "5", ((), (), (), ()), (3, 4, 5)),
    ("4x3", "4x5", ((), (), (0,), (0,)), (3, 5)),
    # batch dims follow the batching lists' order (StableHLO)
    ("2x5x3", "3x2x9", ((2, 0), (0, 1), (), ()), (3, 2, 5, 9)),
])
def test_dot_general_result_shape(lhs, rhs, dims, want):
    names = ("lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
             "rhs_contracting_dimensions")
    attrs = dict(zip(names, dims))
    got = accy.tensor.dialect.result_types(
        "tensor.dot_general", [TensorType("f32", [int(d) for d in s.split("x")])
                               for s in (lhs, rhs)], attrs)
    assert got == (TensorType("f32", want),)
    m, e, (a, b) = build_module([f"{lhs}xf32", f"{rhs}xf32"])
    finish(m, e, [e.op("tensor.dot_general", a, b, result_type=got[0], **attrs)])


@pytest.mark.parametrize("dims,want", [((0, 2), (3,)), ((), (2, 3, 4)), ((2, 1, 0), ()),
                                       ((1,), (2, 4))])
def test_reduce_result_shape(dims, want):
    m, e, (x, y) = build_module(["2x3x4xf32", "2x3x4xi32"])
    outs = e.reduce([x, y], [e.constant(0, "f32"), e.constant(0, "i32")], dims,
                    lambda e, a, b, u, v: (e.op("tensor.add", a, u), e.op("tensor.add", b, v)))
    assert [v.type for v in outs] == [TensorType("f32", want), TensorType("i32", want)]
    finish(m, e, list(outs))


def test_attention_and_scan_result_types():
    assert _inferred(["1x2x8x16xf16", "1x2x6x16xf16", "1x2x6x4xf16"], "tensor.attention",
                     0, 1, 2, scale=0.5) == ("f16", (1, 2, 8, 4))
    m, e, (x,) = build_module(["3x4xu8"])
    assert e.scan(x, e.constant(0, "u8"), 0, "max").type == TensorType("u8", (3, 4))


def test_a_low_precision_attention_takes_an_f32_mask():
    """C41: a mask may have the compute dtype (f32 for f16/bf16), so -1e9 stays finite."""
    m, e, (q, mask) = build_module(["1x2x4x8xf16", "1x1x4x4xf32"])
    finish(m, e, [e.op("tensor.attention", q, q, q, mask, scale=0.5)])


# ---- the rules answer each question once; the Emitter checks attributes once ---------------

def test_emitter_checks_each_attribute_once(monkeypatch):
    """The builder checks the attributes and hands them to the Emitter's rule: one check of each
    value per op, not one in the Emitter and another in the builder."""
    m, e, (x,) = build_module(["2x3x4xf32"])
    seen = []
    check = core.check_attribute
    monkeypatch.setattr(core, "check_attribute", lambda v: seen.append(v) or check(v))
    y = e.op("tensor.transpose", x, permutation=[2, 0, 1])   # a list: checked into a tuple
    z = e.op("tensor.slice", y, start_indices=(0, 0, 1), limit_indices=(4, 2, 3))
    assert seen == [[2, 0, 1], (0, 0, 1), (4, 2, 3)]
    assert y.owner.attributes["permutation"] == (2, 0, 1)
    assert z.type == TensorType("f32", (4, 2, 2))
    finish(m, e, [z])


def test_builder_infer_hook_sees_checked_attributes_and_makes_nothing_on_error():
    m, e, (x,) = build_module(["3x4xf32"])
    b, ctx = e.builder, m.context
    seen = []
    op = b.create("tensor.transpose", [x], attributes={"permutation": [1, 0]},
                  infer=lambda attrs: seen.append(dict(attrs)) or (TensorType("f32", (4, 3)),))
    assert seen == [{"permutation": (1, 0)}] and op.result_types == (TensorType("f32", (4, 3)),)
    before = ctx.num_operations

    def refuse(attrs):
        raise ShapeError("no")
    with pytest.raises(ShapeError, match="no"):
        b.create("tensor.transpose", [x], attributes={"permutation": (1, 0)}, infer=refuse)
    with pytest.raises(TypeError, match="not both"):
        b.create("tensor.negate", [x], [x.type], infer=lambda attrs: (x.type,))
    assert ctx.num_operations == before


@pytest.mark.parametrize("name,good,bad", [
    ("tensor.iota", {"iota_dimension": 1}, {"iota_dimension": True}),
    ("tensor.scan", {"dimension": 0, "exclusive": True}, {"dimension": 0, "exclusive": 1}),
    ("tensor.transpose", {"permutation": (1, 0)}, {"permutation": (True, False)}),
])
def test_cached_rule_tells_equal_values_of_other_types_apart(name, good, bad):
    """True == 1 and hash alike; a rule that refuses a bool for an int (or an int for a bool)
    still refuses it after answering the other."""
    rule = accy.tensor.dialect.RULES[name]
    t = TensorType("i32", (3, 4))
    ins, outs = {"tensor.iota": ((), (t,)), "tensor.scan": ((t, TensorType("i32", ())), None),
                 "tensor.transpose": ((t,), None)}[name]
    for _ in range(2):
        assert rule(ins, good, outs) == rule.__wrapped__(ins, good, outs)
        with pytest.raises(ShapeError):
            rule(ins, bad, outs)


def test_cached_rule_answers_as_the_rule_and_raises_each_time(monkeypatch):
    monkeypatch.setattr(accy.tensor.dialect, "_RESULTS", {})
    rules, f32 = accy.tensor.dialect.RULES, TensorType("f32", (2, 3))
    questions = [
        ("tensor.add", (f32, f32), {}, None),
        ("tensor.reduce", (f32, TensorType("f32", ())), {"dimensions": (1,)}, None),
        ("tensor.broadcast_in_dim", (TensorType("f32", (3,)),), {"broadcast_dimensions": (1,)},
         (f32,)),
        ("tensor.compare", (f32, f32), {"comparison_direction": "LT"}, None),
    ]
    for _ in range(2):
        for name, ins, attrs, outs in questions:
            # the verifier lists attributes in its own order: the answer is the same
            for order in (attrs, dict(reversed(list(attrs.items())))):
                assert rules[name](ins, order, outs) == rules[name].__wrapped__(ins, attrs, outs)
    assert len(accy.tensor.dialect._RESULTS) == len(questions)
    for _ in range(2):
        with pytest.raises(ShapeError, match="C32"):
            rules["tensor.reduce"]((f32, TensorType("f32", ())), {"dimensions": (2,)}, None)
    assert len(accy.tensor.dialect._RESULTS) == len(questions)


def test_rule_cache_is_bounded_and_skips_constants_and_long_text(monkeypatch):
    monkeypatch.setattr(accy.tensor.dialect, "_RESULTS", {})
    monkeypatch.setattr(accy.tensor.dialect, "MAX_CACHED_RESULTS", 4)
    rules = accy.tensor.dialect.RULES
    for n in range(1, 11):
        t = TensorType("f32", (n,))
        assert rules["tensor.negate"]((t,), {}, None) == (t,)
        assert len(accy.tensor.dialect._RESULTS) <= 4
    accy.tensor.dialect._RESULTS.clear()
    value = DenseAttr(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert rules["tensor.constant"]((), {"value": value}, None) == (TensorType("f32", (2, 3)),)
    ptx = ".visible .entry k(.param .u64 a, .param .u64 b)\n{\n" + "  ret;\n" * 100 + "}"
    t = TensorType("f32", (4,))
    assert rules["tensor.kernel_call"]((t,), {"ptx": ptx, "kernel": "k", "grid": (1, 1, 1),
                                             "block": (32, 1, 1)}, (t,)) == (t,)
    assert accy.tensor.dialect._RESULTS == {}
