"""`accy.jit`: trace a Python function on example inputs into a verified `builtin.func @main`,
tracing once per input signature, and run it on the best device present: a GPU (the traced
module compiled once per signature by `accy.compile`), else the reference interpreter (numpy,
far faster on a CPU than running the PTX on the emulator). `accy.jit(device=...)` picks one of
"cuda", "emulator" (the compiled PTX on the CPU emulator) or "reference"."""
import collections
import functools

import numpy as np

from accy import reference
from accy._core.types import numpy_dtype
from accy.compiler import compile as compile_module, target_for
from accy.frontend.trace import signature, trace
from accy.runtime.devices import DEVICES, cuda_available

CacheInfo = collections.namedtuple("CacheInfo", "hits misses size")


class Jit:
    """A traced function: `lower(*examples)` gives a fresh verified module; calling it runs the
    module for those arguments (traced once per tuple of argument (shape, dtype); see
    `cache_info()`) and returns numpy arrays in fn's output structure."""

    def __init__(self, fn, device=None):
        if device is not None and device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
        functools.update_wrapper(self, fn)
        self._function = fn
        self.device = device
        self._cache = {}            # tuple of (shape, dtype) per argument -> (module, rebuild)
        self._executables = {}      # (the same key, device) -> its Executable, once compiled
        self._hits = self._misses = 0

    @property
    def __accy_function__(self):
        """What accy.compile traces when given this Jit. A property of the class, so that a
        decorator wrapping a Jit (functools.wraps copies the instance's __dict__) does not
        pass for it: the wrapper's own body is what gets traced."""
        return self._function

    def lower(self, *args):
        return trace(self.__wrapped__, [signature(a) for a in args])[0]

    def __call__(self, *args):
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
            exe = self._executables[(key, device)] = compile_module(module,
                                                                    target=target_for(device))
        return rebuild(list(exe.run(*arrays, device=device)))

    def cache_info(self):
        return CacheInfo(self._hits, self._misses, len(self._cache))


def _default_device():
    return "cuda" if cuda_available() else "reference"


def jit(fn=None, *, device=None):
    """Trace `fn` (Tensors in, a Tensor or a tuple/list of them out) into accy IR; calls run on
    `device` (default: a GPU when there is one, else the reference interpreter). As a
    decorator: `@accy.jit` or `@accy.jit(device="emulator")`."""
    if fn is None:
        return lambda f: Jit(f, device)
    return Jit(fn, device)
