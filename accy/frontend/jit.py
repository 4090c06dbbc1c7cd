"""`accy.jit`: trace a Python function on example inputs into a verified `builtin.func @main`,
tracing once per input signature, and run it on the best device present: a GPU (the traced
module compiled once per signature by `accy.compile`), else the reference interpreter (numpy,
far faster on a CPU than running the PTX on the emulator). `accy.jit(device=...)` picks one of
"cuda", "emulator" (the compiled PTX on the CPU emulator) or "reference"."""
import builtins
import collections
import functools
import inspect

import numpy as np

from accy._core.types import dtype_of_numpy, numpy_dtype
from accy.errors import ShapeError, TypeError as DTypeError
from accy.frontend.elementwise import tensor_of
from accy.frontend.location import locate
from accy.frontend.promotion import weak_kind
from accy.frontend.tensor import Tensor, default_dtype, flatten, tracing
from accy.ir import Builder, Context, FunctionType, Module, TensorType
from accy.tensor import Emitter

CacheInfo = collections.namedtuple("CacheInfo", "hits misses size")


def signature(arg):
    """(shape, dtype) of one argument: a numpy array or scalar keeps its dtype, a Python number
    takes its default dtype (`default_dtype`: f32, i32 or i1; i64 for an int outside i32), a
    list numpy's (i64, f64)."""
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


def trace(fn, signatures):
    """A verified module whose `builtin.func @main` computes `fn` on arguments of `signatures`,
    and the function that rebuilds fn's output structure from the results."""
    check_arity(fn, len(signatures))
    ctx = Context()
    module = Module.create(ctx)
    ins = [TensorType(dtype, shape) for shape, dtype in signatures]
    func = Builder(ctx).at_end(module.body).create("builtin.func", attributes={
        "sym_name": "main", "function_type": FunctionType(ins, [])})
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


class Jit:
    """A traced function: `lower(*examples)` gives a fresh verified module; calling it runs the
    module for those arguments (traced once per tuple of argument (shape, dtype); see
    `cache_info()`) and returns numpy arrays in fn's output structure."""

    def __init__(self, fn, device=None):
        from accy.runtime.devices import DEVICES
        if device is not None and device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
        functools.update_wrapper(self, fn)
        self.device = device
        self._cache = {}            # tuple of (shape, dtype) per argument -> (module, rebuild)
        self._executables = {}      # (the same key, device) -> its Executable, once compiled
        self._hits = self._misses = 0

    def lower(self, *args):
        return trace(self.__wrapped__, [signature(a) for a in args])[0]

    def __call__(self, *args):
        from accy import reference      # imported on the first run: lowering does not need it
        key = tuple(signature(a) for a in args)
        entry = self._cache.get(key)
        if entry is None:
            self._misses += 1
            entry = self._cache[key] = trace(self.__wrapped__, key)
        else:
            self._hits += 1
        module, rebuild = entry
        arrays = [np.asarray(a, numpy_dtype(dtype)) for a, (_, dtype) in zip(args, key)]
        device = self.device or _default_device()
        if device == "reference":
            return rebuild(list(reference.run(module, *arrays)))
        exe = self._executables.get((key, device))
        if exe is None:
            from accy.runtime.devices import target_for
            from accy.runtime.executable import compile as compile_module
            exe = self._executables[(key, device)] = compile_module(module,
                                                                    target=target_for(device))
        return rebuild(list(exe.run(*arrays, device=device)))

    def cache_info(self):
        return CacheInfo(self._hits, self._misses, len(self._cache))


def _default_device():
    from accy.runtime.devices import cuda_available
    return "cuda" if cuda_available() else "reference"


def jit(fn=None, *, device=None):
    """Trace `fn` (Tensors in, a Tensor or a tuple/list of them out) into accy IR; calls run on
    `device` (default: a GPU when there is one, else the reference interpreter). As a
    decorator: `@accy.jit` or `@accy.jit(device="emulator")`."""
    if fn is None:
        return lambda f: Jit(f, device)
    return Jit(fn, device)
