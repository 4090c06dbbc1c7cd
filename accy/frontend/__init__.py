"""The tracing frontend: Python functions over `Tensor`s traced into tensor-dialect IR
(`trace.py`, the compiler's first stage), and `accy.jit` (`jit.py`, above the compiler).
docs/frontend.md documents it; `accy.ops` is its public function set."""
from accy.frontend import methods  # noqa: F401  (installs Tensor's operators)
from accy.frontend.tensor import Tensor

__all__ = ["Tensor"]
