"""The pass manager: runs a pipeline on an op, with a shared analysis cache, instrumentation,
verification after each pass that changed the IR, and failures reported by pass name."""
from collections import Counter

from accy._core.analysis import AnalysisCache
from accy._core.context import Operation
from accy.errors import AccyError, AnalysisError, PassError
from accy.passes.core import Pass, PassContext, PassFailure
from accy.passes.pipeline import Nest, parse_pipeline, pipeline_text


class PassManager:
    """`PassManager("canonicalize,func(cse,dce)")` or `PassManager([pass, Nest(...)])`.

    `run(op, cache=None)` runs the pipeline on `op`; with no cache a fresh one is used and closed
    after the run (pass one to keep analyses for later). If the pipeline is exactly one nest
    whose op name is `op`'s own (`builtin.module(cse)` run on a module), it is anchored on `op`
    instead of nesting, as in mlir-opt. `verify_each` verifies after every pass that changed
    the IR (by epoch). Instruments get the hooks of `accy.passes.instruments.Instrument`.
    """

    def __init__(self, pipeline=(), *, instruments=(), verify_each=True):
        self.items = parse_pipeline(pipeline) if isinstance(pipeline, str) else tuple(pipeline)
        for item in _walk_items(self.items):
            if not isinstance(item, (Pass, Nest)):
                raise TypeError(f"a pipeline holds Pass and Nest items, got {item!r}")
        self.instruments = list(instruments)
        self.verify_each = verify_each

    def text(self):
        """The pipeline as canonical text (what reproducers record)."""
        return pipeline_text(self.items)

    def __repr__(self):
        return f"PassManager({self.text()!r})"

    def run(self, op, cache=None):
        """Run the pipeline on `op`. Returns {pass name: statistics Counter}; raises PassError
        (naming the failing pass) when a pass fails."""
        if not isinstance(op, Operation):
            raise TypeError(f"PassManager.run takes an Operation, got {type(op).__name__}")
        own = cache is None
        if own:
            cache = AnalysisCache(op.context)
        elif cache.context is not op.context:
            raise PassError("the analysis cache belongs to another Context than the op")
        items = self.items
        if len(items) == 1 and isinstance(items[0], Nest) and items[0].op_name == op.name:
            items = items[0].items
        run = _Run(self, cache)
        saved = cache.instruments
        cache.instruments = list(self.instruments)
        try:
            for ins in self.instruments:
                ins.before_pipeline(self, op, cache)
            run.items(items, op)
        finally:
            try:
                for ins in self.instruments:
                    ins.after_pipeline(self, op, cache)
            finally:
                cache.instruments = saved
                if own:
                    cache.close()
        return run.statistics


def _walk_items(items):
    for item in items:
        yield item
        if isinstance(item, Nest):
            yield from _walk_items(item.items)


class _Run:
    def __init__(self, manager, cache):
        self.manager, self.cache = manager, cache
        self.instruments = manager.instruments
        self.statistics = {}

    def items(self, items, op):
        """Run `items` on `op`; returns what every pass preserved (True: all)."""
        preserved = True
        for item in items:
            if isinstance(item, Nest):
                got = self.nest(item, op)
            else:
                got = self.one(item, op)
            preserved = _intersect(preserved, got)
        return preserved

    def nest(self, nest, op):
        for ins in self.instruments:
            ins.before_nest(nest, op)
        children = [child for region in op.regions for block in region for child in block
                    if child.name == nest.op_name]
        preserved = True
        for child in children:
            if not _alive(child):
                err = PassError(f"a pass of the nested pipeline '{nest.text()}' erased a "
                                f"'{nest.op_name}' op it had not reached yet", nest.text(),
                                op.name)
                for ins in self.instruments:
                    ins.on_failure(None, op, err)   # no one pass to blame
                raise err
            preserved = _intersect(preserved, self.items(nest.items, child))
        # as the adaptor pass it is, the nest invalidates what its passes did not all preserve
        self.cache.finish_pass(op, preserved)
        for ins in self.instruments:
            ins.after_nest(nest, op)
        return preserved

    def one(self, p, op):
        cache = self.cache
        name = op.name                  # the pass may erase the op before it fails
        lease = cache.begin_lease()
        error = cause = None
        epoch = op.epoch
        ctx = PassContext(cache, op, p, lease)
        try:
            for ins in self.instruments:
                ins.before_pass(p, op)
            if p.anchor is not None and name != p.anchor:
                error = f"pass '{p.name}' runs on '{p.anchor}' ops, not on '{name}'"
            elif p.run(op, ctx) is False:
                error = f"pass '{p.name}' failed on '{name}'"
        except (PassFailure, AnalysisError) as e:
            error, cause = f"pass '{p.name}' failed on '{name}': {e}", e
        except AccyError as e:
            error, cause = f"pass '{p.name}' failed on '{name}': {type(e).__name__}: {e}", e
        except Exception as e:
            error, cause = f"pass '{p.name}' crashed on '{name}': {type(e).__name__}: {e}", e
        finally:
            try:
                cache.end_lease(lease)
            except AnalysisError as e:      # a failing cleanup must not hide the pass's error
                if error is None:
                    error, cause = f"pass '{p.name}' failed on '{name}': {e}", e
                else:
                    error += f"\n  (also: {e})"
        try:
            changed = op.epoch != epoch
        except AccyError:
            error = error or f"pass '{p.name}' erased the op it ran on"
            changed = True
        if error is None and changed and self.manager.verify_each:
            try:
                op.verify()
            except AccyError as e:
                error, cause = f"pass '{p.name}' left invalid IR on '{name}': {e}", e
        if error is not None:
            self.fail(p, op, name, error, cause)
        cache.finish_pass(op, ctx.preserved)
        stats = self.statistics.get(p.name)
        if stats is None:
            stats = self.statistics[p.name] = Counter()
        if ctx.statistics:
            stats.update(ctx.statistics)
        for ins in self.instruments:
            ins.after_pass(p, op, changed, ctx.statistics)
        return ctx.preserved

    def fail(self, p, op, op_name, message, cause):
        err = PassError(message, p.name, op_name)
        err.__cause__ = cause
        try:    # the IR may be anything now: nothing cached about it can be trusted
            self.cache.finish_pass(op, ()) if _alive(op) else self.cache.invalidate()
        except AccyError as e:
            err.message += f"\n  (and while dropping its analyses: {e})"
        for ins in self.instruments:
            ins.on_failure(p, op, err)
        raise err


def _alive(op):
    try:
        op.epoch
        return True
    except AccyError:
        return False


def _intersect(a, b):
    if a is True:
        return b
    if b is True:
        return a
    return a & b
