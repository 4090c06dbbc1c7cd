"""Canonicalization patterns of the tensor dialect: chains of shape ops collapse into one, so
later stages see one index map per access (the frontend's keepdims reshapes disappear into the
broadcasts that follow them). Each pattern is exact: it only renames which input element an
output element reads."""
from accy._core.context import Operation
from accy.passes.rewrite import Pattern


def _producer(op, name):
    """The op named `name` defining `op`'s first operand, or None."""
    inner = op.operands[0].owner
    return inner if isinstance(inner, Operation) and inner.name == name else None


def _reshape_of_reshape(op, rewriter):
    inner = _producer(op, "tensor.reshape")
    if inner is None:
        return False
    rewriter.replace_op_with(op, "tensor.reshape", [inner.operands[0]])
    return True


def _transpose_of_transpose(op, rewriter):
    inner = _producer(op, "tensor.transpose")
    if inner is None:
        return False
    first, second = inner.attributes["permutation"], op.attributes["permutation"]
    rewriter.replace_op_with(op, "tensor.transpose", [inner.operands[0]],
                             attributes={"permutation": tuple(first[p] for p in second)})
    return True


def _unit_dims_only(reshape):
    """Where each input dim lands in the output of a reshape that only inserts or drops unit
    dims around an input with no unit dims (None for any other reshape)."""
    source, target = reshape.operand_types[0].shape, reshape.result_types[0].shape
    if 1 in source or tuple(d for d in target if d != 1) != source:
        return None
    return tuple(i for i, d in enumerate(target) if d != 1)


def _broadcast_of_shape_op(op, rewriter):
    dims = op.attributes["broadcast_dimensions"]
    inner = _producer(op, "tensor.broadcast_in_dim")
    if inner is not None:
        inner_dims = inner.attributes["broadcast_dimensions"]
    else:
        inner = _producer(op, "tensor.reshape")
        inner_dims = _unit_dims_only(inner) if inner is not None else None
        if inner_dims is None:
            return False
    rewriter.replace_op_with(op, "tensor.broadcast_in_dim", [inner.operands[0]],
                             attributes={"broadcast_dimensions": tuple(dims[d] for d in inner_dims)})
    return True


PATTERNS = {
    "reshape": (Pattern(_reshape_of_reshape, "tensor.reshape"),),
    "transpose": (Pattern(_transpose_of_transpose, "tensor.transpose"),),
    "broadcast_in_dim": (Pattern(_broadcast_of_shape_op, "tensor.broadcast_in_dim"),),
}
