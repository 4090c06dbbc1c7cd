"""The `builtin` dialect: module, func, return, call."""
from .attributes import DictAttr, SymbolRefAttr
from .registry import (OpDef, VARIADIC, register_dialect, TERMINATOR, PURE, NO_TERMINATOR,
                       SINGLE_BLOCK, SYMBOL, SYMBOL_TABLE, ISOLATED_FROM_ABOVE,
                       GRAPH_REGION)
from .types import FunctionType


def _verify_module(op):
    if len(op.regions[0].blocks) != 1:
        return "must hold exactly one block"
    return None


def _verify_func(op):
    ftype = op.attributes["function_type"]
    visibility = op.attributes.get("sym_visibility", "public")
    if visibility not in ("public", "private", "nested"):
        return f"sym_visibility is 'public', 'private' or 'nested', not {visibility!r}"
    for name, types in (("arg_attrs", ftype.inputs), ("res_attrs", ftype.results)):
        per = op.attributes.get(name)
        if per is not None and (len(per) != len(types) or
                                not all(isinstance(d, DictAttr) for d in per)):
            return (f"{name} is one dictionary per function "
                    f"{'input' if name == 'arg_attrs' else 'result'} ({len(types)}), got {per!r}")
    entry = op.regions[0].entry
    if entry is None:
        return None                     # a declaration: no body
    arg_types = tuple(a.type for a in entry.arguments)
    if arg_types != ftype.inputs:
        return (f"entry block argument types ({', '.join(map(str, arg_types))}) differ from "
                f"the function inputs ({', '.join(map(str, ftype.inputs))})")
    return None


def _function_type(op):
    """The op's `function_type` when it is a well-formed one (its own verifier reports it)."""
    ftype = op.attributes.get("function_type")
    return ftype if isinstance(ftype, FunctionType) else None


def _verify_return(op):
    func = op.parent_op
    if func is None or func.name != "builtin.func":
        return "must be inside a builtin.func"
    if _function_type(func) is None:
        return "is inside a builtin.func without a valid function_type"
    expected = func.attributes["function_type"].results
    if op.operand_types != expected:
        return (f"returns ({', '.join(map(str, op.operand_types))}) but the function returns "
                f"({', '.join(map(str, expected))})")
    return None


def lookup_symbol(op, name):
    """The op named `name` in the nearest enclosing symbol table of `op`, or None."""
    table = op.parent_op
    while table is not None and table.name != "builtin.module":
        table = table.parent_op
    if table is None:
        return None
    for candidate in table.regions[0].entry or ():
        if candidate.attributes.get("sym_name") == name:
            return candidate
    return None


def _verify_call(op):
    callee = lookup_symbol(op, op.attributes["callee"].name)
    if callee is None or callee.name != "builtin.func":
        return f"calls unknown function @{op.attributes['callee'].name}"
    ftype = _function_type(callee)
    if ftype is None:
        return f"calls @{op.attributes['callee'].name}, which has no valid function_type"
    if op.operand_types != ftype.inputs or op.result_types != ftype.results:
        return f"types do not match the callee's signature {ftype}"
    return None


register_dialect("builtin", [
    OpDef("builtin.module", regions=1, attributes={"sym_name": (str, False)},
          traits=NO_TERMINATOR | SINGLE_BLOCK | SYMBOL_TABLE | ISOLATED_FROM_ABOVE | GRAPH_REGION,
          verify=_verify_module),
    OpDef("builtin.func", regions=1,
          attributes={"sym_name": (str, True), "function_type": (FunctionType, True),
                      "sym_visibility": (str, False), "arg_attrs": (tuple, False),
                      "res_attrs": (tuple, False)},
          traits=ISOLATED_FROM_ABOVE | SYMBOL, verify=_verify_func),
    OpDef("builtin.return", operands=(0, VARIADIC), traits=TERMINATOR | PURE,
          verify=_verify_return),
    OpDef("builtin.call", operands=(0, VARIADIC), results=(0, VARIADIC),
          attributes={"callee": (SymbolRefAttr, True)}, verify=_verify_call),
])
