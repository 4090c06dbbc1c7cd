"""accy's IR: contexts, operations, values, blocks, regions, types, attributes, text.

    from accy.ir import Context, Module, Builder, TensorType, parse
    ctx = Context()
    module = Module.create(ctx)
"""
from accy._core import builtin as _builtin  # noqa: F401  (registers the builtin dialect)
from accy._core.attributes import (IntAttr, FloatAttr, DictAttr, DenseAttr, DenseArrayAttr,
                                   OpaqueAttr, PropertyDict, SymbolRefAttr, UnitAttr, UNIT)
from accy._core.capacity import Capacity
from accy._core.context import (Context, Operation, Module, Value, Block, Region, Builder, Use,
                                OpIterator)
from accy._core.registry import OpDef, register_dialect, VARIADIC
from accy._core import registry as traits
from accy._core.text import parse, print_op
from accy._core.types import (Type, TensorType, FunctionType, OpaqueType, DTYPES,
                              register_type_kind, numpy_dtype)
from accy._core.verify import verify
from accy.errors import AccyError, ParseError, VerifyError, CapacityError, IRError

__all__ = [
    "Context", "Capacity", "Operation", "Module", "Value", "Block", "Region", "Builder", "Use",
    "parse", "print_op", "verify", "Type", "TensorType", "FunctionType", "OpaqueType", "DTYPES",
    "register_type_kind", "numpy_dtype", "IntAttr", "FloatAttr", "DictAttr", "DenseAttr",
    "DenseArrayAttr", "OpaqueAttr", "PropertyDict", "SymbolRefAttr", "UnitAttr", "UNIT",
    "OpDef", "register_dialect", "VARIADIC", "traits",
    "AccyError", "ParseError", "VerifyError", "CapacityError", "IRError",
]
