"""The tracing frontend: `jit` traces Python functions over `Tensor`s into tensor-dialect IR.
docs/frontend.md documents it; `accy.ops` is its public function set."""
from accy.frontend import methods  # noqa: F401  (installs Tensor's operators)
from accy.frontend.jit import Jit, jit
from accy.frontend.tensor import Tensor

__all__ = ["jit", "Jit", "Tensor"]
