"""The tensor dialect (what users write and later stages compile) and helpers to build it."""
from accy.tensor import dialect  # noqa: F401  (registers the dialect)
from accy.tensor.build import Emitter, reduce_kind, identity

__all__ = ["Emitter", "reduce_kind", "identity", "dialect"]
