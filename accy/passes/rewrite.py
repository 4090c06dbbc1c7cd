"""The pattern API: a `Pattern` matches ops by name and rewrites them through a
`PatternRewriter`; `apply_patterns_greedily` (the driver, in the core) runs patterns and folds to
a fixed point. An op kind's own folds and patterns live in its registry row (`OpDef.fold`,
`OpDef.canonicalize`)."""
from dataclasses import dataclass

from accy._core.rewrite import (PatternRewriter, RewriteError, apply_patterns_greedily,
                                eliminate_dead_code)
from accy._core.cse import eliminate_common_subexpressions

__all__ = ["Pattern", "pattern", "PatternRewriter", "RewriteError", "apply_patterns_greedily",
           "eliminate_dead_code", "eliminate_common_subexpressions"]


@dataclass(frozen=True)
class Pattern:
    """`fn(op, rewriter) -> bool` (True: it changed the IR, through the rewriter) for ops named
    `root` (None: every op). Higher `benefit` is tried first."""
    fn: object
    root: str = None
    benefit: int = 1

    @property
    def name(self):
        return getattr(self.fn, "__name__", repr(self.fn))

    def __call__(self, op, rewriter):
        return self.fn(op, rewriter)


def pattern(root=None, benefit=1):
    """Decorator: `@pattern("test.add")` turns a function into a `Pattern`."""
    return lambda fn: Pattern(fn, root, benefit)
