"""`Capacity`: the memory limits an embedding host puts on a Context and its analysis cache."""
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Capacity:
    """Upper bounds on what one Context may hold. Exceeding one raises CapacityError and changes
    nothing. The defaults are generous (millions of operations); hosts lower them."""
    max_operations: int = 16_000_000
    max_values: int = 32_000_000
    max_blocks: int = 4_000_000
    max_attribute_bytes: int = 4 << 30
    max_analysis_bytes: int = 1 << 30
    max_analysis_entries: int = 100_000

    def __post_init__(self):
        for name, value in self.as_limits().items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Capacity.{name} must be a non-negative int, got {value!r}")
            if name in ("max_operations", "max_values", "max_blocks") and value >= 2**31 - 1:
                raise ValueError(f"Capacity.{name} must be below 2**31 - 1 (ids are 32-bit)")

    def as_limits(self):
        """The limits as a plain dict (name -> int), for caches and child contexts."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
