"""The worker's half of a batch: module texts in, bundle bytes out. What a worker process (a
spawned process, a thread, a Dask worker) runs; it needs nothing from the caller but these
arguments, so any executor can run it.

    compile_texts(texts, cache) -> [(True, bundle bytes, seconds, cache hit)
                                    or (False, (error type, message, traceback), seconds, False)]
"""
import os
import time
import traceback

from accy.cache import Cache
from accy.compiler import compile as compile_module
from accy._core.capacity import Capacity
from accy._core.context import DEFAULT_CAPACITY, Context
from accy._core.text import parse
from accy.errors import AccyError
from accy.runtime.bundle_writer import write
from accy.version import VERSION


_CACHES = {}        # (folder, bound) -> this worker process's Cache of that folder


def compile_texts(texts, cache=False):
    """Compile each module text (IR with its target set; or (text, context_settings(...)) to
    parse it in a Context like the job's) on its own, with `cache`: False
    for none, an accy.cache.Cache (the caller's, in its own process), or a (folder, bound)
    pair (in another process: one Cache per folder there, so that its kernel texts in
    memory serve every chunk). One that fails gives its error, and the others still
    compile."""
    if isinstance(cache, tuple):
        if cache not in _CACHES:
            _CACHES[cache] = Cache(*cache)
        cache = _CACHES[cache]
    return [_compile_text(text, cache) for text in texts]


def context_settings(context):
    """What a worker needs to parse a job's text in a Context like its own: None for the
    defaults, else (allow_unregistered, Capacity limits)."""
    if not context.allow_unregistered and context.capacity == DEFAULT_CAPACITY:
        return None
    return bool(context.allow_unregistered), context.capacity.as_limits()


def _compile_text(job, cache):
    t0 = time.perf_counter()
    text, settings = job if isinstance(job, tuple) else (job, None)
    try:
        context = Context() if settings is None else Context(
            allow_unregistered=settings[0], capacity=Capacity(**settings[1]))
        exe = compile_module(parse(text, context), cache=cache)
        hit = set(exe.timings) == {"tensor", "cache"}       # what a cache hit's timings hold
        return True, write(exe), time.perf_counter() - t0, hit
    except Exception as e:  # noqa: BLE001 - a job's failure is data for the caller
        trace = "" if isinstance(e, AccyError) else "".join(traceback.format_exception(e))
        return False, (type(e).__name__, str(e), trace), time.perf_counter() - t0, False


def identity():
    """(accy version, process id): what a new worker answers first, to show it started."""
    return VERSION, os.getpid()
