"""Tensor's operators and methods, installed from tables onto `Tensor` (the functions live with
their kind of op; the class itself stays free of import cycles)."""
from accy.frontend import elementwise as ew, linalg, reductions, shapes
from accy.frontend.tensor import Tensor

# Python operator -> function; each also gets its reflected form (`__radd__`: add(other, self))
BINARY = {
    "add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "truediv": ew.true_divide,
    "floordiv": ew.floor_divide, "mod": ew.remainder, "pow": ew.power, "matmul": linalg.matmul,
    "and": ew.bitwise_and, "or": ew.bitwise_or, "xor": ew.bitwise_xor,
    "lshift": ew.left_shift, "rshift": ew.right_shift,
}
# comparisons: Python reflects these itself (3 < x calls x.__gt__(3))
COMPARISONS = {"lt": ew.less, "le": ew.less_equal, "gt": ew.greater, "ge": ew.greater_equal,
               "eq": ew.equal, "ne": ew.not_equal}
UNARY = {"neg": ew.negative, "pos": ew.tensor_of, "abs": ew.absolute, "invert": ew.invert}
METHODS = {
    "sum": reductions.sum, "prod": reductions.prod, "mean": reductions.mean,
    "max": reductions.max, "min": reductions.min, "argmax": reductions.argmax,
    "argmin": reductions.argmin, "astype": ew.astype, "reshape": shapes.reshape,
    "__getitem__": shapes.getitem,
}


def _reflected(fn):
    return lambda self, other: fn(other, self)


def _transpose(self, *axes):
    """x.transpose(), x.transpose(1, 0) or x.transpose((1, 0)), as numpy."""
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = axes[0]
    return shapes.transpose(self, tuple(axes) or None)


def install():
    for name, fn in BINARY.items():
        setattr(Tensor, f"__{name}__", fn)
        setattr(Tensor, f"__r{name}__", _reflected(fn))
    for table in (COMPARISONS, UNARY):
        for name, fn in table.items():
            setattr(Tensor, f"__{name}__", fn)
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    Tensor.transpose = _transpose
    Tensor.T = property(shapes.transpose)


install()
