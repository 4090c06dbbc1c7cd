"""accy: a tensor compiler for NVIDIA GPUs (Cython IR core, Python passes, PTX out)."""
from accy import ir
from accy.errors import AccyError, ParseError, VerifyError, CapacityError, IRError

__version__ = "0.1.0"
__all__ = ["ir", "AccyError", "ParseError", "VerifyError", "CapacityError", "IRError"]
