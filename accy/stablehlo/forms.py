"""StableHLO's attribute forms, read from the text accy's parser keeps opaque
(`#stablehlo<comparison_direction LT>`, `#stablehlo.gather<offset_dims = [1], ...>`), and the
gather, scatter and reduce_window forms that have a tensor op (docs/stablehlo.md)."""
import re

from accy._core.attributes import DenseArrayAttr, DenseAttr, OpaqueAttr
from accy.errors import UnsupportedError

_ENUM = re.compile(r"#stablehlo<\s*(\w+)\s+(\w+)\s*>\Z")
_FIELD = re.compile(r"\s*(\w+)\s*=\s*(\[[^\]]*\]|[^,\[\]]+?)\s*(?:,|\Z)")
_INT = re.compile(r"\s*-?\d+\s*\Z")
# the fields each dimension-numbers attribute may have
FIELDS = {
    "gather": ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
               "start_indices_batching_dims", "start_index_map", "index_vector_dim"),
    "scatter": ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                "scatter_indices_batching_dims", "scatter_dims_to_operand_dims",
                "index_vector_dim"),
    "dot": ("lhs_batching_dimensions", "rhs_batching_dimensions",
            "lhs_contracting_dimensions", "rhs_contracting_dimensions"),
}


def enum(attr, kind):
    """The value of an enum attribute `#stablehlo<kind VALUE>` (None when absent)."""
    if attr is None:
        return None
    m = _ENUM.match(attr.text) if isinstance(attr, OpaqueAttr) else None
    if m is None or m.group(1) != kind:
        raise UnsupportedError(f"expected #stablehlo<{kind} ...>, got {attr!r}")
    return m.group(2)


def fields(attr, name):
    """The fields of `#stablehlo.name<a = [1, 2], b = 3>` as {a: (1, 2), b: 3}; missing lists
    are empty (MLIR does not print them)."""
    text = attr.text if isinstance(attr, OpaqueAttr) else ""
    prefix = f"#stablehlo.{name}<"
    if not (text.startswith(prefix) and text.endswith(">")):
        raise UnsupportedError(f"expected {prefix}...>, got {attr!r}")
    body, out, pos = text[len(prefix):-1], {}, 0
    while pos < len(body):
        m = _FIELD.match(body, pos)
        if m is None or m.group(1) not in FIELDS[name] or m.group(1) in out:
            raise UnsupportedError(f"cannot read {attr.text!r}: expected its fields "
                                   f"({', '.join(FIELDS[name])}) as `name = [...]` or "
                                   f"`name = N`, once each")
        key, value = m.group(1), m.group(2)
        items = value[1:-1].split(",") if value.startswith("[") else [value]
        items = [v for v in items if v.strip()] if value.startswith("[") else items
        if not all(_INT.match(v) for v in items):
            raise UnsupportedError(f"cannot read {attr.text!r}: {key} holds integers")
        numbers = tuple(int(v) for v in items)
        out[key] = numbers if value.startswith("[") else numbers[0]
        pos = m.end()
    return out


def ints(attr):
    """A list of integers as the generic form spells it (`array<i64: ...>`, a dense tensor)."""
    if isinstance(attr, DenseArrayAttr):
        return tuple(int(v) for v in attr.values)
    if isinstance(attr, DenseAttr):
        return tuple(int(v) for v in attr.array.reshape(-1).tolist())
    if isinstance(attr, (tuple, list)):
        return tuple(int(v) for v in attr)
    raise UnsupportedError(f"expected a list of integers, got {attr!r}")


def _need(attrs, name):
    value = attrs.get(name)
    if value is None:
        raise UnsupportedError(f"needs the attribute {name}")
    return value


# -- gather --------------------------------------------------------------------------------------
class Refused(UnsupportedError):
    """A form of a supported op that has no tensor op; the importer adds the op and its line."""


def _drop(seq, i):
    return tuple(v for k, v in enumerate(seq) if k != i)


def _index_vector(idx_shape, ivd):
    """The indices' batch shape once the index vector dim (size 1, or absent) is dropped."""
    if ivd == len(idx_shape):
        return tuple(idx_shape)
    if ivd < len(idx_shape) and idx_shape[ivd] == 1:
        return _drop(idx_shape, ivd)
    raise Refused(f"only one indexed dim is supported (index_vector_dim {ivd} of indices "
                  f"{list(idx_shape)})")


def gather_plan(x_shape, idx_shape, out_shape, attrs):
    """How a StableHLO gather is a tensor.gather: ("take" | "along_axis", axis, indices shape,
    permutation of the take's result into the gather's (or None), slice sizes to cut after)."""
    f = fields(attrs.get("dimension_numbers"), "gather")
    sizes = ints(_need(attrs, "slice_sizes"))
    rank = len(x_shape)
    if len(sizes) != rank:
        raise Refused(f"slice_sizes {list(sizes)} needs one size per operand dim ({rank})")
    smap, collapsed = f.get("start_index_map", ()), f.get("collapsed_slice_dims", ())
    if len(smap) != 1:
        raise Refused(f"only one indexed dim is supported, start_index_map = {list(smap)}")
    axis = smap[0]
    if not 0 <= axis < rank:
        raise Refused(f"start_index_map = {list(smap)} names no operand dim")
    batch = _index_vector(idx_shape, f.get("index_vector_dim", 0))
    obd, ibd = f.get("operand_batching_dims", ()), f.get("start_indices_batching_dims", ())
    if obd or ibd:      # take_along_axis: every other dim is a batch dim of both, in order
        others = _drop(range(rank), axis)
        if obd != others or ibd != others or collapsed != (axis,) or \
                f.get("offset_dims", ()) or any(s != 1 for s in sizes) or \
                tuple(out_shape) != batch or len(batch) != rank:
            raise Refused("batched gathers other than take_along_axis's are not supported")
        return "along_axis", axis, batch, None, None
    if collapsed != (axis,) or sizes[axis] != 1:
        raise Refused(f"only gathers that collapse their indexed dim are supported "
                      f"(collapsed_slice_dims = {list(collapsed)}, start_index_map = [{axis}])")
    # The take's result dims: x's dims before the axis, the batch dims, x's dims after.
    kept = _drop(range(rank), axis)
    take_labels = [("x", d) for d in kept if d < axis] + [("b", i) for i in range(len(batch))] + \
        [("x", d) for d in kept if d > axis]
    offset = f.get("offset_dims", ())
    out_rank = len(offset) + len(batch)
    if len(offset) != len(kept) or list(offset) != sorted(set(offset)) or \
            any(not 0 <= d < out_rank for d in offset) or len(out_shape) != out_rank:
        raise Refused(f"offset_dims = {list(offset)} must name every kept dim of the operand, "
                      f"in order, within the result's {len(out_shape)} dims")
    labels, b, k = [], 0, 0
    for pos in range(len(offset) + len(batch)):
        if pos in offset:
            labels.append(("x", kept[k]))
            k += 1
        else:
            labels.append(("b", b))
            b += 1
    perm = tuple(take_labels.index(lab) for lab in labels)
    cut = tuple(sizes[lab[1]] if lab[0] == "x" else None for lab in take_labels)
    if all(c is None or c == x_shape[d[1]] for c, d in zip(cut, take_labels)):
        cut = None
    return "take", axis, batch, (None if perm == tuple(range(len(perm))) else perm), cut


def scatter_plan(x_shape, idx_shape, updates_shape, attrs):
    """How a StableHLO scatter is a tensor.scatter: (axis, indices shape, permutation of the
    updates into tensor.scatter's layout, or None)."""
    f = fields(attrs.get("scatter_dimension_numbers"), "scatter")
    inserted, smap = f.get("inserted_window_dims", ()), f.get("scatter_dims_to_operand_dims", ())
    if f.get("input_batching_dims") or f.get("scatter_indices_batching_dims"):
        raise Refused("batched scatters are not supported")
    if len(smap) != 1 or inserted != smap:
        raise Refused(f"only scatters into one inserted dim are supported "
                      f"(inserted_window_dims = {list(inserted)}, scatter_dims_to_operand_dims "
                      f"= {list(smap)})")
    axis = smap[0]
    if not 0 <= axis < len(x_shape):
        raise Refused(f"scatter_dims_to_operand_dims = {list(smap)} names no operand dim")
    batch = _index_vector(idx_shape, f.get("index_vector_dim", 0))
    window = f.get("update_window_dims", ())
    kept = _drop(range(len(x_shape)), axis)
    if len(window) != len(kept) or list(window) != sorted(set(window)) or \
            len(updates_shape) != len(window) + len(batch) or \
            any(not 0 <= w < len(updates_shape) for w in window) or \
            any(updates_shape[w] != x_shape[d] for w, d in zip(window, kept)):
        raise Refused("only scatters of whole windows (update_window_dims covering every other "
                      "operand dim at its full size) are supported")
    scatter_pos = [p for p in range(len(updates_shape)) if p not in window]
    # tensor.scatter wants x's dims before the axis, the batch dims, x's dims after.
    order = [w for w, d in zip(window, kept) if d < axis] + scatter_pos + \
        [w for w, d in zip(window, kept) if d > axis]
    return axis, batch, (None if order == list(range(len(order))) else tuple(order))


def scan_plan(x_shape, attrs):
    """(dimension, reverse) of a reduce_window that is a cumulative scan: one window dim the
    whole axis long, padded by its length - 1 on one side; every stride and dilation 1."""
    rank = len(x_shape)
    window = ints(_need(attrs, "window_dimensions"))
    if len(window) != rank:
        raise Refused(f"window_dimensions {list(window)} needs one size per dim ({rank})")
    ones = (1,) * rank
    for name in ("window_strides", "base_dilations", "window_dilations"):
        if name in attrs and ints(attrs[name]) != ones:
            raise Refused(f"only cumulative reduce_windows are supported ({name} must be 1)")
    pad = ints(attrs["padding"]) if "padding" in attrs else (0,) * (2 * rank)
    if len(pad) != 2 * rank:
        raise Refused(f"padding needs a (low, high) pair per dim ({rank})")
    pairs = [pad[2 * i:2 * i + 2] for i in range(rank)]
    long = [d for d in range(rank) if window[d] != 1]
    if not long and all(p == (0, 0) for p in pairs):
        unit = [d for d in range(rank) if x_shape[d] == 1]      # a cumsum over a length-1 axis
        if unit:
            return unit[0], False
    if len(long) == 1:
        d = long[0]
        n = x_shape[d]
        if window[d] == n and all(pairs[i] == (0, 0) for i in range(rank) if i != d):
            if pairs[d] == (n - 1, 0):
                return d, False
            if pairs[d] == (0, n - 1):
                return d, True
    raise Refused("only the cumulative reduce_windows of cumsum, cumprod, cummax and cummin "
                  "are supported (one window dim the axis long, padded by its length - 1 on one "
                  "side)")
