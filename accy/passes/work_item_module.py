"""A work item as a module of its own: the runtime's host fallbacks run one through the
reference interpreter, and tests check a plan item by item that way.

    module = work_item_module(item)
    outputs = reference.run(module, *inputs)
"""
from accy._core.context import Builder, Context, Module
from accy._core.types import FunctionType


def work_item_module(item, context=None):
    """A new module whose `builtin.func @main` computes `item` alone: its inputs are the
    arguments, its ops are cloned in order, its outputs are the results."""
    ctx = context if context is not None else Context()
    module = Module.create(ctx)
    ins = [v.type for v in item.inputs]
    func = Builder(ctx).at_end(module.body).create("builtin.func", attributes={
        "sym_name": "main", "function_type": FunctionType(ins, [v.type for v in item.outputs])})
    block = func.regions[0].add_block(ins)
    builder = Builder(ctx).at_end(block)
    mapping = dict(zip(item.inputs, block.arguments))
    for op in item.ops:
        clone = builder.insert(op.clone(ctx, mapping))
        mapping.update(zip(op.results, clone.results))
    builder.create("builtin.return", [mapping[v] for v in item.outputs])
    return module
