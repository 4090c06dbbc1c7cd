"""Pass instrumentation: hooks around passes, nests and analyses, and the built-in instruments
(timing report, IR printing, crash reproducer)."""
import os
import sys
import tempfile
import time

REPRODUCER_TAG = "// accy-pipeline: "
UNREGISTERED_TAG = "// accy-allow-unregistered: "
OP_PATH_TAG = "// accy-run-on: "


class Instrument:
    """Base class: every hook does nothing. The pass manager calls them in this order:
    before_pipeline, (before_pass, [before/after_analysis...], after_pass | on_failure), nests
    around their passes, after_pipeline (also after a failure). on_failure gets pass_ None for
    a failure no single pass caused (a nest that lost an op it was to visit)."""

    def before_pipeline(self, manager, op, cache): pass
    def after_pipeline(self, manager, op, cache): pass
    def before_pass(self, pass_, op): pass
    def after_pass(self, pass_, op, changed, statistics): pass
    def on_failure(self, pass_, op, error): pass
    def before_nest(self, nest, op): pass
    def after_nest(self, nest, op): pass
    def before_analysis(self, descriptor, op): pass
    def after_analysis(self, descriptor, op): pass


class _Node:
    """A line of the timing report. Children are keyed by name and occurrence among the
    children run on one op, so a pass that appears twice in a pipeline gets two lines, while
    the runs of a nest over many ops add up in one."""
    __slots__ = ("name", "seconds", "children", "seen", "op")

    def __init__(self, name):
        self.name, self.seconds, self.children, self.seen, self.op = name, 0.0, {}, {}, None

    def child(self, name, op):
        if op != self.op:
            self.seen, self.op = {}, op
        n = self.seen[name] = self.seen.get(name, 0) + 1
        node = self.children.get((name, n))
        if node is None:
            node = self.children[(name, n)] = _Node(name)
        return node


class Timing(Instrument):
    """Wall time per pass, per nest and per analysis (`(A) Name`, under the pass that asked),
    summed over the ops a nest runs on; pass statistics; analysis cache counters. The report
    is written to `stream` (default stderr) after the pipeline, and kept in `self.report`."""

    def __init__(self, stream=None):
        self.stream = stream
        self.report = ""

    def before_pipeline(self, manager, op, cache):
        self.root = _Node("Total")
        self.stack = [(self.root, time.perf_counter())]
        self.statistics = {}
        self.cache_before = cache.statistics()

    def _enter(self, name, op):
        self.stack.append((self.stack[-1][0].child(name, op), time.perf_counter()))

    def _leave(self):
        node, t0 = self.stack.pop()
        node.seconds += time.perf_counter() - t0

    def before_pass(self, pass_, op):
        self._enter(pass_.name, op)

    def after_pass(self, pass_, op, changed, statistics):
        self._leave()
        if statistics:
            self.statistics.setdefault(pass_.name, {}).update(
                {k: self.statistics.get(pass_.name, {}).get(k, 0) + v
                 for k, v in statistics.items()})

    def on_failure(self, pass_, op, error):
        if pass_ is not None and len(self.stack) > 1 and self.stack[-1][0].name == pass_.name:
            self._leave()           # (not if an earlier instrument failed before this one ran)

    def before_nest(self, nest, op):
        self._enter(f"'{nest.op_name}' Pipeline", op)

    def after_nest(self, nest, op):
        self._leave()

    def before_analysis(self, descriptor, op):
        self._enter(f"(A) {descriptor.name}", op)

    def after_analysis(self, descriptor, op):
        self._leave()

    def after_pipeline(self, manager, op, cache):
        while len(self.stack) > 1:          # a failure left nests open
            self._leave()
        self._leave()
        total = self.root.seconds or 1e-12
        bar = "===" + "-" * 73 + "==="
        lines = [bar, "... Execution time report ...".center(79), bar,
                 f"  Total Execution Time: {self.root.seconds:.4f} seconds", "",
                 "  ----Wall Time----  ----Name----"]

        def emit(node, depth):
            for child in node.children.values():
                lines.append(f"  {child.seconds:8.4f} ({100 * child.seconds / total:5.1f}%)  "
                             f"{'  ' * depth}{child.name}")
                emit(child, depth + 1)
        emit(self.root, 0)
        lines.append(f"  {self.root.seconds:8.4f} (100.0%)  Total")
        stats = cache.statistics()
        for key in ("hits", "misses", "recomputes", "evictions", "invalidations", "uncached"):
            stats[key] -= self.cache_before[key]        # this run's share of a reused cache
        lines += ["", "  Analysis cache: " + ", ".join(f"{v} {k}" for k, v in stats.items())]
        for name, counters in self.statistics.items():
            lines.append(f"  Statistics of {name}: "
                         + ", ".join(f"{v} {k}" for k, v in sorted(counters.items())))
        self.report = "\n".join(lines) + "\n"
        (self.stream or sys.stderr).write(self.report)


class PrintIR(Instrument):
    """Print the op a pass ran on after every pass (`mode="all"`), or only after the passes
    that changed its fingerprint (`mode="change"`; the epoch says when there is no need to
    fingerprint). Written to `stream` (default stderr)."""

    def __init__(self, mode="all", stream=None, generic=False):
        if mode not in ("all", "change"):
            raise ValueError("PrintIR mode is 'all' or 'change'")
        self.mode, self.stream, self.generic = mode, stream, generic
        self.known = {}                     # op -> (epoch, fingerprint) last seen

    def before_pass(self, pass_, op):
        if self.mode == "change":
            seen = self.known.get(op)
            if seen is None or seen[0] != op.epoch:
                self.known[op] = (op.epoch, op.fingerprint())

    def after_pass(self, pass_, op, changed, statistics):
        if self.mode == "change":
            epoch, fingerprint = self.known[op]
            if op.epoch == epoch:
                return
            now = op.fingerprint()
            self.known[op] = (op.epoch, now)
            if now == fingerprint:
                return
        (self.stream or sys.stderr).write(
            f"// -----// IR Dump After {pass_.text()} ({op.name}) //----- //\n"
            f"{op.print(generic=self.generic)}\n")


class CrashReproducer(Instrument):
    """On a failure, write `path`: the pipeline and the IR it was given, which
    `accy opt PATH --run-reproducer` replays. The error's `reproducer` names the file."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def before_pipeline(self, manager, op, cache):
        # the whole IR the op lives in (symbols it refers to included), and where the op is
        top, path = op, []
        while top.parent_op is not None:
            block = top.parent
            region = block.parent
            path.append(f"{region_index(region)}:{block_index(block)}:{op_index(top)}")
            top = top.parent_op
        self.pipeline = manager.text()
        self.input = top.print()
        self.path_to_op = " ".join(reversed(path))
        self.unregistered = op.context.allow_unregistered

    def on_failure(self, pass_, op, error):
        first_line = str(error).splitlines()[0]
        text = (f"// accy crash reproducer: replay with `accy opt FILE --run-reproducer`\n"
                f"{REPRODUCER_TAG}{self.pipeline}\n"
                f"{UNREGISTERED_TAG}{'true' if self.unregistered else 'false'}\n"
                + (f"{OP_PATH_TAG}{self.path_to_op}\n" if self.path_to_op else "")
                + f"// error: {first_line}\n{self.input}\n")
        try:
            folder = os.path.dirname(os.path.abspath(self.path))
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".accy-repro-")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError as e:                # the pass failure must not be lost to this one
            error.message += f"\n  (no reproducer written: {e})"
            return
        error.reproducer = self.path


def read_reproducer(text):
    """(pipeline, allow_unregistered, op path) from a reproducer's header; ValueError if it has
    none. The op path (see `find_op`) locates the op the pipeline ran on; "" is the top op."""
    pipeline, unregistered, path = None, False, ""
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        if line.startswith(REPRODUCER_TAG):
            pipeline = line[len(REPRODUCER_TAG):]
        elif line.startswith(UNREGISTERED_TAG):
            unregistered = line[len(UNREGISTERED_TAG):].strip() == "true"
        elif line.startswith(OP_PATH_TAG):
            path = line[len(OP_PATH_TAG):].strip()
    if pipeline is None:
        raise ValueError("not an accy reproducer (no '// accy-pipeline:' line)")
    return pipeline, unregistered, path


def find_op(top, path):
    """The op at `path` below `top`: space-separated steps region:block:op (indices)."""
    op = top
    for step in path.split():
        try:
            r, b, o = (int(x) for x in step.split(":"))
            op = list(list(op.regions[r])[b])[o]
        except (ValueError, IndexError):
            raise ValueError(f"the reproducer's op path '{path}' does not lead to an op") from None
    return op


def region_index(region):
    return list(region.parent.regions).index(region)


def block_index(block):
    return list(block.parent).index(block)


def op_index(op):
    return list(op.parent).index(op)
