"""sort and argsort along one axis, as numpy's stable sorts: ascending, NaN last, ties (and
-0.0 next to +0.0) in their original order. Both build one `tensor.sort` whose comparator is
that order; argsort sorts an iota of i32 indices along with the values."""
from accy._core.types import FLOAT_DTYPES, TensorType
from accy.frontend.elementwise import tensor_of
from accy.frontend.shapes import normalize_axis, ravel
from accy.frontend.tensor import Tensor, emitter


def _ascending(dtype):
    """lhs before rhs: lhs < rhs, or rhs is NaN and lhs is not (floats)."""
    def comparator(e, lhs, rhs, *indices):
        less = e.compare(lhs, rhs, "LT")
        if dtype not in FLOAT_DTYPES:
            return less
        nan_after = e.op("tensor.and", e.compare(rhs, rhs, "NE"), e.compare(lhs, lhs, "EQ"))
        return e.op("tensor.or", less, nan_after)
    return comparator


def _sorted(name, x, axis, with_indices):
    x = tensor_of(x)
    if axis is None:
        x, axis = ravel(x), 0
    if x.ndim == 0:
        x = ravel(x)
    axis = normalize_axis(name, axis, x.ndim)
    e = emitter()
    inputs = [x.value]
    if with_indices:
        inputs.append(e.op("tensor.iota", iota_dimension=axis,
                           result_type=TensorType("i32", x.shape)))
    return [Tensor(v) for v in e.sort(inputs, axis, _ascending(x.dtype))]


def sort(x, axis=-1):
    """x sorted along `axis` (None: flattened), stably, NaN last."""
    return _sorted("sort", x, axis, False)[0]


def argsort(x, axis=-1):
    """The i32 indices that sort x along `axis` (None: flattened), stably, NaN last."""
    return _sorted("argsort", x, axis, True)[1]
