"""Shape ops with numpy's conventions: reshape (-1), transpose, static indexing, concatenate,
pad, take, take_along_axis; dynamic_slice and dynamic_update_slice as jax.lax has them; scatter
(JAX's x.at[i].set/add). Every bad axis, shape or index is an `accy.ShapeError` naming the op.
"""
import operator

import numpy as np

from accy._core.types import INT_DTYPES, TensorType
from accy.errors import ShapeError, TypeError as DTypeError
from accy.frontend.elementwise import add, apply, broadcast_shapes, broadcast_to, less, \
    tensor_of, where
from accy.frontend.promotion import result_dtype
from accy.frontend.tensor import Tensor, as_dtype, emitter, lift


def normalize_axis(op, axis, ndim):
    """`axis` (negative counts from the end) as an index in `range(ndim)`."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise DTypeError(f"'{op}' axis must be an int, got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise ShapeError(f"'{op}' axis {axis} is out of range for rank {ndim}")
    return axis % ndim


def normalize_axes(op, axes, ndim):
    """A sorted tuple of distinct axes for `axes` (an int, a sequence, or None: every axis)."""
    if axes is None:
        return tuple(range(ndim))
    axes = [normalize_axis(op, a, ndim) for a in (axes if isinstance(axes, (tuple, list))
                                                 else (axes,))]
    if len(set(axes)) != len(axes):
        raise ShapeError(f"'{op}' repeats an axis in {axes}")
    return tuple(sorted(axes))


def reshape(x, *shape):
    """`x` with a new shape (a tuple or separate ints; one -1 takes the remaining size)."""
    x = tensor_of(x)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    try:
        shape = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise DTypeError(f"'reshape' shape must be ints, got {shape}") from None
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        raise ShapeError(f"'reshape' shape {shape} may hold one -1 and no other negative size")
    if -1 in shape:
        known = _product(d for d in shape if d != -1)
        if known == 0 or x.size % known:
            raise ShapeError(f"'reshape' cannot reshape {x.shape} to {shape}")
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    if _product(shape) != x.size:
        raise ShapeError(f"'reshape' cannot reshape {x.shape} ({x.size} elements) to {shape}")
    return Tensor(emitter().reshape(x.value, shape))


def _product(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def transpose(x, axes=None):
    """`x` with its axes permuted (default: reversed)."""
    x = tensor_of(x)
    if axes is None:
        axes = tuple(reversed(range(x.ndim)))
    axes = tuple(normalize_axis("transpose", a, x.ndim) for a in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise ShapeError(f"'transpose' axes {axes} are not a permutation of {x.ndim} axes")
    if axes == tuple(range(x.ndim)):
        return x
    return apply("tensor.transpose", x, permutation=axes)


def expand_dims(x, axis):
    """`x` with size-1 axes inserted at `axis` (an int or a tuple, positions in the result)."""
    x = tensor_of(x)
    axes = normalize_axes("expand_dims", axis, x.ndim + len(axis if isinstance(
        axis, (tuple, list)) else (axis,)))
    dims = iter(x.shape)
    shape = tuple(1 if i in axes else next(dims) for i in range(x.ndim + len(axes)))
    return reshape(x, shape)


def squeeze(x, axis=None):
    """`x` without the size-1 `axis` (default: every size-1 axis)."""
    x = tensor_of(x)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes("squeeze", axis, x.ndim)
    if any(x.shape[a] != 1 for a in axes):
        raise ShapeError(f"'squeeze' axes {axes} of {x.shape} are not all of size 1")
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def ravel(x):
    return reshape(x, -1)


# ---- indexing ---------------------------------------------------------------------------------

def getitem(x, index):
    """numpy's x[index] for static ints (negative count from the end), slices (any step), None,
    one Ellipsis, and at most one integer array (a Tensor, numpy array or list: a gather along its
    axis, as `take`). The basic items are a slice, a reverse (negative steps) and one reshape that
    drops the int axes and inserts the None axes."""
    index = index if isinstance(index, tuple) else (index,)
    index = tuple(tensor_of(i) if isinstance(i, (np.ndarray, list)) else i for i in index)
    for item in index:
        if _is_bool(item):
            raise DTypeError(f"'getitem' boolean masks are not supported in static indexing "
                             f"(their result shape depends on the data); use accy.ops.where, or "
                             f"ints, got {item!r}")
        if not (item is None or item is Ellipsis or isinstance(item, slice) or _is_int(item)
                or _is_array(item)):
            raise DTypeError(f"'getitem' supports static ints, slices, None, Ellipsis and one "
                             f"integer array; got {item!r}")
    arrays = [k for k, item in enumerate(index) if _is_array(item)]
    if len(arrays) > 1:
        raise ShapeError("'getitem' takes at most one integer-array index (gather along several "
                         "axes with accy.ops.take_along_axis)")
    if sum(item is Ellipsis for item in index) > 1:
        raise ShapeError("'getitem' allows one Ellipsis")
    used = sum(item is not None and item is not Ellipsis for item in index)
    if used > x.ndim:
        raise ShapeError(f"'getitem' has {used} indices for rank {x.ndim}")
    fill = (slice(None),) * (x.ndim - used)
    at = next((k for k, item in enumerate(index) if item is Ellipsis), len(index))
    expanded = index[:at] + fill + index[at + 1:]
    if not arrays:
        return _basic_index(x, expanded)

    k = arrays[0] + (len(fill) - 1 if arrays[0] > at else 0)   # the array's place in `expanded`
    y = _basic_index(x, expanded[:k] + (slice(None),) + expanded[k + 1:])
    axis = sum(item is None or isinstance(item, slice) for item in expanded[:k])
    idx = index[arrays[0]]
    out = _take("getitem", y, idx, axis)
    # numpy puts the index's dims first when the ints and the array are not next to each other
    # (a slice, None or Ellipsis between them), else where the array stands
    advanced = [j for j, item in enumerate(index) if _is_int(item) or _is_array(item)]
    if not all(_is_int(index[j]) or _is_array(index[j])
               for j in range(advanced[0], advanced[-1] + 1)):
        moved = tuple(range(axis, axis + idx.ndim))
        out = transpose(out, moved + tuple(d for d in range(out.ndim) if d not in moved))
    return out


def _basic_index(x, index):
    """x[index] for an index of ints, slices and None with one int or slice per axis."""
    start, limit, strides, reverse, out_shape = [], [], [], [], []
    axis = 0
    for item in index:
        if item is None:
            out_shape.append(1)
            continue
        dim = x.shape[axis]
        if isinstance(item, slice):
            lo, count, step = _slice_range(item, dim)
            if count == 0:
                lo, step = 0, 1
            elif step < 0:              # take the same elements ascending, then reverse them
                lo, step = lo + (count - 1) * step, -step
                reverse.append(axis)
            out_shape.append(count)
        else:
            i = operator.index(item)
            if not -dim <= i < dim:
                raise ShapeError(f"'getitem' index {i} is out of range for axis {axis} of "
                                 f"size {dim}")
            lo, count, step = i % dim, 1, 1
        start.append(lo)
        limit.append(lo + (count - 1) * step + 1 if count else lo)
        strides.append(step)
        axis += 1
    value = x.value
    if (tuple(start), tuple(limit), tuple(strides)) != ((0,) * x.ndim, x.shape, (1,) * x.ndim):
        value = emitter().op("tensor.slice", value, start_indices=tuple(start),
                             limit_indices=tuple(limit), strides=tuple(strides))
    if reverse:
        value = emitter().op("tensor.reverse", value, dimensions=tuple(reverse))
    return Tensor(emitter().reshape(value, out_shape))


def _is_bool(item):
    """A bool or an array of them: a mask in numpy (`operator.index(True)` is 1), refused here."""
    return isinstance(item, (bool, np.bool_)) or isinstance(item, Tensor) and item.dtype == "i1"


def _is_int(item):
    try:
        operator.index(item)
    except TypeError:
        return False
    return True


def _is_array(item):
    return isinstance(item, Tensor)


def _slice_range(item, dim):
    """(first index, element count, step) of a Python slice over `dim` elements."""
    try:
        lo, hi, step = item.indices(dim)
    except (TypeError, ValueError) as e:
        raise ShapeError(f"'getitem' bad slice {item}: {e}") from None
    return lo, len(range(lo, hi, step)), step


# ---- joining and padding ------------------------------------------------------------------------

def concatenate(xs, axis=0):
    """`xs` (promoted to one dtype) joined along `axis`."""
    if not isinstance(xs, (list, tuple)) or not xs:
        raise ShapeError("'concatenate' needs a non-empty list or tuple of arrays")
    xs = [lift(x) for x in xs]
    dtype = result_dtype(*(x.dtype if isinstance(x, Tensor) else type(x) for x in xs))
    xs = [as_dtype(x, dtype, "concatenate") for x in xs]
    if any(x.ndim == 0 for x in xs):
        raise ShapeError("'concatenate' cannot join rank-0 arrays")
    axis = normalize_axis("concatenate", axis, xs[0].ndim)
    return apply("tensor.concatenate", *xs, dimension=axis)


def pad(x, pad_width, constant_values=0):
    """numpy's constant pad: `pad_width` is n, (n,), (before, after) or one (before, after) pair
    per axis; sizes are >= 0."""
    x = tensor_of(x)
    pairs = _pad_pairs(pad_width, x.ndim)
    value = as_dtype(lift(constant_values), x.dtype, "pad")
    if value.ndim:
        raise ShapeError("'pad' constant_values must be a scalar")
    return apply("tensor.pad", x, value, edge_padding_low=tuple(p[0] for p in pairs),
                 edge_padding_high=tuple(p[1] for p in pairs))


def _pad_pairs(pad_width, ndim):
    try:
        widths = np.asarray(pad_width)
        if widths.dtype.kind not in "iu":
            raise ValueError
        pairs = np.broadcast_to(widths, (ndim, 2))
    except ValueError:
        raise ShapeError(f"'pad' pad_width {pad_width!r} must be ints shaped n, (n,), "
                         f"(before, after) or one pair per axis ({ndim})") from None
    if (pairs < 0).any():
        raise ShapeError(f"'pad' pad_width {pad_width!r} must be >= 0")
    return [tuple(int(v) for v in p) for p in pairs]


# ---- gathers ----------------------------------------------------------------------------------

def _indices(op, idx, dim):
    """Integer indices with negative ones mapped into `[0, dim)` (numpy's wraparound; the gather
    then clamps what is still out of range). Narrow ints widen to i32 first: `dim` may not fit
    them (an i8 index into 200 elements)."""
    if idx.dtype not in INT_DTYPES:
        raise DTypeError(f"'{op}' indices must have an integer dtype, got {idx.dtype}")
    idx = as_dtype(idx, result_dtype(idx.dtype, "i32"))
    return where(less(idx, 0), add(idx, dim), idx)


def _take(op, x, idx, axis):
    return apply("tensor.gather", x, _indices(op, idx, x.shape[axis]), axis=axis, mode="take")


def take(x, indices, axis=None):
    """x's elements at `indices` along `axis` (None: of the flattened x), as numpy.take."""
    x = tensor_of(x)
    if axis is None:
        x, axis = ravel(x), 0
    return _take("take", x, tensor_of(indices), normalize_axis("take", axis, x.ndim))


def take_along_axis(x, indices, axis):
    """numpy.take_along_axis: `indices` has x's rank; the other axes broadcast."""
    x = tensor_of(x)
    idx = tensor_of(indices)
    if axis is None:
        x, axis = ravel(x), 0
        if idx.ndim != 1:
            raise ShapeError("'take_along_axis' with axis=None needs 1-D indices")
    if idx.ndim != x.ndim:
        raise ShapeError(f"'take_along_axis' indices {idx.shape} must have x's rank {x.ndim}")
    axis = normalize_axis("take_along_axis", axis, x.ndim)
    others = broadcast_shapes("take_along_axis", _with(x.shape, axis, 1), _with(idx.shape, axis, 1))
    x = broadcast_to(x, _with(others, axis, x.shape[axis]), "take_along_axis")
    idx = broadcast_to(idx, _with(others, axis, idx.shape[axis]), "take_along_axis")
    idx = _indices("take_along_axis", idx, x.shape[axis])
    return apply("tensor.gather", x, idx, axis=axis, mode="along_axis")


# ---- dynamic slices ---------------------------------------------------------------------------

def _starts(op, starts, ndim):
    """One rank-0 integer Tensor per dim (ints lift to i32), all widened to one dtype."""
    try:
        starts = [tensor_of(s) for s in starts]
    except TypeError:
        raise DTypeError(f"'{op}' start_indices must be a sequence of scalars") from None
    if len(starts) != ndim:
        raise ShapeError(f"'{op}' needs {ndim} start indices, got {len(starts)}")
    for s in starts:
        if s.ndim or s.dtype not in INT_DTYPES:
            raise DTypeError(f"'{op}' start indices must be integer scalars, got {s.dtype} of "
                             f"shape {s.shape}")
    dtype = result_dtype(*(s.dtype for s in starts), "i32")
    return [as_dtype(s, dtype) for s in starts]


def dynamic_slice(x, start_indices, slice_sizes):
    """x[s0:s0+n0, s1:s1+n1, ...] for starts known at run time (jax.lax.dynamic_slice): each
    start is clamped into [0, dim - size], so the slice always lies inside x."""
    x = tensor_of(x)
    starts = _starts("dynamic_slice", start_indices, x.ndim)
    sizes = tuple(operator.index(n) for n in slice_sizes)
    return apply("tensor.dynamic_slice", x, *starts, slice_sizes=sizes)


def dynamic_update_slice(x, update, start_indices):
    """x with `update` written at run-time starts, clamped as dynamic_slice clamps them
    (jax.lax.dynamic_update_slice); `update` takes x's dtype."""
    x = tensor_of(x)
    update = as_dtype(tensor_of(update), x.dtype)
    starts = _starts("dynamic_update_slice", start_indices, x.ndim)
    return apply("tensor.dynamic_update_slice", x, update, *starts)


# ---- scatter ----------------------------------------------------------------------------------

SCATTER_MODES = ("set", "add")


def scatter(x, indices, updates, axis=0, mode="set"):
    """x with `updates` written (`set`) or added (`add`) at `indices` along `axis`, as
    x.at[..., indices, ...].set/add in JAX: `updates` broadcasts to x.shape[:axis] +
    indices.shape + x.shape[axis+1:] and takes x's dtype; negative indices count from the end;
    indices still out of range are dropped; with repeated indices, `set` keeps the last update
    and `add` adds them all in order."""
    x, idx = tensor_of(x), tensor_of(indices)
    if mode not in SCATTER_MODES:
        raise ShapeError(f"'scatter' mode must be set or add, got {mode!r}")
    axis = normalize_axis("scatter", axis, x.ndim)
    idx = _indices("scatter", idx, x.shape[axis])
    shape = tuple(x.shape[:axis]) + tuple(idx.shape) + tuple(x.shape[axis + 1:])
    updates = broadcast_to(as_dtype(tensor_of(updates), x.dtype), shape, "scatter")
    return Tensor(emitter().scatter(x.value, idx.value, updates.value, axis, mode))


def _with(shape, axis, size):
    return tuple(shape[:axis]) + (size,) + tuple(shape[axis + 1:])


def iota(dtype, shape, axis):
    return Tensor(emitter().op("tensor.iota", iota_dimension=axis,
                               result_type=TensorType(dtype, shape)))

