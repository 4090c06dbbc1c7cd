"""accy: a tensor compiler for NVIDIA GPUs (Cython IR core, Python passes, PTX out)."""
from accy import ir
from accy.errors import AccyError, ParseError, VerifyError, CapacityError, IRError, ShapeError, \
    BundleError, TypeError  # noqa: A004 - accy.TypeError (also a builtins.TypeError); not in __all__
from accy import ops
from accy.compiler import compile  # noqa: A004 - accy.compile
from accy.batch import CompileFailure, Job, compile_many, dask_executor
from accy.frontend.jit import jit
from accy.runtime.bundle import load
from accy import stablehlo
from accy.stablehlo import from_jax
from accy.runtime.devices import DeviceUnavailable
from accy.runtime.executable import Executable
from accy.runtime.native import get_include, get_library
from accy.version import VERSION

__version__ = VERSION
__all__ = ["ir", "ops", "stablehlo", "from_jax", "jit", "compile", "compile_many", "Job", "CompileFailure",
           "dask_executor", "load", "Executable", "DeviceUnavailable", "AccyError",
           "ParseError", "VerifyError", "CapacityError", "IRError", "ShapeError", "BundleError",
           "get_include", "get_library"]
