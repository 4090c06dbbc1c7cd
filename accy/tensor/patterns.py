"""Canonicalization patterns of the tensor dialect: chains of shape ops collapse into one, so
later stages see one index map per access (the frontend's keepdims reshapes disappear into the
broadcasts that follow them), and a dot reads a transposed operand through its dimension
numbers. Each pattern is exact: it only renames which input element an output element
reads."""
from accy._core.context import Operation
from accy.passes.rewrite import Pattern

_DOT_SIDES = (("lhs_batching_dimensions", "lhs_contracting_dimensions"),
              ("rhs_batching_dimensions", "rhs_contracting_dimensions"))


def _producer(op, name):
    """The op named `name` defining `op`'s first operand, or None."""
    return _producer_of(op.operands[0], name)


def _producer_of(value, name):
    inner = value.owner
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
    inner = op.operands[0].owner
    name = inner.name if isinstance(inner, Operation) else None
    if name == "tensor.broadcast_in_dim":
        inner_dims = inner.attributes["broadcast_dimensions"]
    elif name == "tensor.reshape":
        inner_dims = _unit_dims_only(inner)
        if inner_dims is None:
            return False
    else:
        return False
    dims = op.attributes["broadcast_dimensions"]
    rewriter.replace_op_with(op, "tensor.broadcast_in_dim", [inner.operands[0]],
                             attributes={"broadcast_dimensions": tuple(dims[d] for d in inner_dims)})
    return True


def _dot_of_transpose(op, rewriter):
    """A transposed dot operand read through the dot's dimension numbers instead (XLA's
    transpose folding), where the transpose keeps the order of that operand's free dims, which
    is the result's dim order: `a @ b.T` then reads b as it lies in memory, so a K-major
    operand reaches the tensor-core path rather than a strided read."""
    attrs = {name: op.attributes[name] for name in op.attributes}
    operands = list(op.operands)
    changed = False
    for side, keys in enumerate(_DOT_SIDES):
        inner = _producer_of(operands[side], "tensor.transpose")
        if inner is None:
            continue
        perm = inner.attributes["permutation"]
        batch, contract = (tuple(attrs.get(key, ())) for key in keys)
        free = [perm[d] for d in range(len(perm)) if d not in batch + contract]
        if free != sorted(free):
            continue
        attrs[keys[0]], attrs[keys[1]] = (tuple(perm[d] for d in dims)
                                          for dims in (batch, contract))
        operands[side] = inner.operands[0]
        changed = True
    if changed:
        rewriter.replace_op_with(op, "tensor.dot_general", operands, attributes=attrs)
    return changed


PATTERNS = {
    "reshape": (Pattern(_reshape_of_reshape, "tensor.reshape"),),
    "transpose": (Pattern(_transpose_of_transpose, "tensor.transpose"),),
    "broadcast_in_dim": (Pattern(_broadcast_of_shape_op, "tensor.broadcast_in_dim"),),
    "dot_general": (Pattern(_dot_of_transpose, "tensor.dot_general"),),
}
