"""accy: a tensor compiler for NVIDIA GPUs (Cython IR core, Python passes, PTX out).

Importing accy loads the IR, `accy.ops` and accy's dialects (builtin, tensor, kl: any accy IR
text parses); the compiler, the runtime and batch compiles load on first use of their names
(PEP 562), so that an embedding host or a worker pays for the parts it uses.
"""
import importlib

from accy import ir, ops
from accy.errors import AccyError, ParseError, VerifyError, CapacityError, IRError, ShapeError, \
    BundleError, TypeError  # noqa: A004 - accy.TypeError (also a builtins.TypeError); not in __all__
from accy.lowering import kl as _kl  # noqa: F401  (registers the kl dialect)
from accy.version import VERSION

# public name -> the module that defines it
_LAZY = {
    "compile": "accy.compiler", "compile_many": "accy.batch", "Job": "accy.batch",
    "CompileFailure": "accy.batch", "dask_executor": "accy.batch", "jit": "accy.frontend.jit",
    "load": "accy.runtime.bundle", "Executable": "accy.runtime.executable",
    "DeviceUnavailable": "accy.runtime.devices", "get_include": "accy.runtime.native",
    "get_library": "accy.runtime.native", "from_jax": "accy.stablehlo",
}
# subpackages and modules that are attributes of `accy` without an import of their own
_SUBMODULES = frozenset(("batch", "cache", "compiler", "examples", "files", "frontend",
                         "lowering", "passes", "reference", "runtime", "safe_names", "stablehlo",
                         "tensor"))

__version__ = VERSION
__all__ = ["ir", "ops", "stablehlo", "from_jax", "jit", "compile", "compile_many", "Job",
           "CompileFailure", "dask_executor", "load", "Executable", "DeviceUnavailable", "AccyError",
           "ParseError", "VerifyError", "CapacityError", "IRError", "ShapeError", "BundleError",
           "get_include", "get_library"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"accy.{name}")
    else:
        raise AttributeError(f"module 'accy' has no attribute '{name}'")
    globals()[name] = value         # later lookups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)
