"""Tracing: a Python function run on Tensors standing for its arguments, recorded as a
verified tensor-level module whose `builtin.func @main` computes it (the compiler's first
stage, and what `accy.jit` runs)."""
import builtins
import inspect
import types

import numpy as np

from accy._core.types import dtype_of_numpy, numpy_dtype
from accy.errors import ShapeError, TypeError as DTypeError
from accy.frontend.elementwise import tensor_of
from accy.frontend.location import locate
from accy.frontend.promotion import weak_kind
from accy.frontend.tensor import Tensor, default_dtype, flatten, tracing
from accy.ir import Builder, Context, FunctionType, Module, TensorType
from accy.tensor import Emitter


def signature(arg):
    """(shape, dtype) of one argument: a numpy array or scalar keeps its dtype, a Python number
    takes its default dtype (`default_dtype`: f32, i32 or i1; i64 for an int outside i32), a
    list numpy's (i64, f64)."""
    if type(arg) is np.ndarray:         # the common case, asked once per argument per trace
        try:
            return arg.shape, dtype_of_numpy(arg.dtype)
        except ValueError:
            raise DTypeError(f"an argument of numpy dtype {arg.dtype} has no accy dtype") \
                from None
    if isinstance(arg, Tensor):
        raise DTypeError("a jit function is called with arrays, not traced Tensors")
    try:
        array = np.asarray(arg)
    except ValueError:
        raise DTypeError(f"an argument is not a rectangular array: {arg!r}") from None
    if not isinstance(arg, np.generic) and weak_kind(arg) is not None:
        return (), default_dtype(array)
    try:
        return array.shape, dtype_of_numpy(array.dtype)
    except ValueError:
        raise DTypeError(f"an argument of numpy dtype {array.dtype} has no accy dtype") from None


def check_arity(fn, count):
    """An accy TypeError naming `fn` and its parameters when it cannot be called with `count`
    positional arguments (checked before tracing, so the error is not a traceback from
    inside the trace); nothing when Python cannot tell fn's parameters."""
    if _takes(fn, count):
        return
    try:
        parameters = inspect.signature(fn)
    except (TypeError, ValueError):         # a builtin or C callable: the call itself tells
        return
    try:
        parameters.bind(*range(count))
    except builtins.TypeError as e:
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        raise DTypeError(f"{name}{parameters} cannot take the {count} example argument"
                         f"{'' if count == 1 else 's'} given ({e}); give one array per "
                         f"parameter") from None


def _takes(fn, count):
    """Whether plain Python function `fn` surely takes `count` positional arguments, read off
    its code (inspect.signature, which also says why not, costs twenty times more); False
    when it cannot tell: another callable, or a signature inspect takes from elsewhere
    (`__wrapped__`, `__signature__`)."""
    if type(fn) is not types.FunctionType or "__wrapped__" in fn.__dict__ or \
            "__signature__" in fn.__dict__:
        return False
    code = fn.__code__
    if code.co_kwonlyargcount > len(fn.__kwdefaults__ or ()):    # a keyword it must be given
        return False
    positional = code.co_argcount
    return positional - len(fn.__defaults__ or ()) <= count and \
        (count <= positional or bool(code.co_flags & inspect.CO_VARARGS))


def trace(fn, signatures):
    """A verified module whose `builtin.func @main` computes `fn` on arguments of `signatures`,
    and the function that rebuilds fn's output structure from the results."""
    check_arity(fn, len(signatures))
    ctx = Context()
    module = Module.create(ctx)
    ins = [TensorType(dtype, shape) for shape, dtype in signatures]
    # its function_type is set once the results are known (nothing reads it while tracing)
    func = Builder(ctx).at_end(module.body).create("builtin.func",
                                                   attributes={"sym_name": "main"})
    block = func.regions[0].add_block(ins)
    builder = Builder(ctx).at_end(block)
    try:
        with tracing(Emitter(builder)):
            leaves, rebuild = flatten(fn(*(Tensor(a) for a in block.arguments)))
            values = [tensor_of(leaf).value for leaf in leaves]
    except (ShapeError, DTypeError) as e:
        locate(e)       # name the user's line that made the bad op
        raise
    builder.create("builtin.return", values)
    func.set_attribute("function_type", FunctionType(ins, [v.type for v in values]))
    module.verify()
    return module, rebuild
