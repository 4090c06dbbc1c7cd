"""Compiling many jobs at once (docs/batch.md).

    results = accy.compile_many([(f, (x,)), (g, (x, y)), accy.Job(module=text)], workers=2)
    # each an Executable or a CompileFailure, in the jobs' order

The caller traces each function (or parses each IR text) and sets its target; workers get the
module text, compile it and send the executable back as bundle bytes (docs/runtime.md). A job
that fails, while tracing or compiling, is a CompileFailure in its place; the others go on.
"""
import time
from functools import partial

from accy.batch.dispatch import dispatch
from accy.batch.executors import dask_executor, workers_for
from accy.batch.jobs import CompileFailure, Job, Outcome, as_job, failure, prepare
from accy.batch.progress import Progress
from accy.batch.worker import compile_texts, context_settings
from accy.cache import cache_for, executable_key
from accy.errors import AccyError
from accy.passes.target import read_target_profile
from accy.runtime.bundle import read

__all__ = ["compile_many", "compile_batch", "Job", "CompileFailure", "Outcome",
           "dask_executor"]


def compile_many(jobs, workers=None, executor=None, cache=None, progress=None, target=None):
    """An Executable or a CompileFailure for each job, in order. A job is a `(function,
    example_args)` pair or an `accy.Job`. `workers`: the number of processes of accy's own
    pool (default one per CPU; 0 compiles in this process); `executor`: any
    concurrent.futures.Executor, a `distributed.Client` or `accy.dask_executor(address)`,
    used instead (left running). `cache`: as accy.compile takes it (None: the default cache);
    a job found there is served in the caller, the others are compiled by workers that read
    and write the same folder. `progress`: a bar on standard error (None: only on a
    terminal). `target`: for the jobs that name none."""
    return [o.result for o in compile_batch(jobs, workers, executor, cache, progress, target)]


def compile_batch(jobs, workers=None, executor=None, cache=None, progress=None, target=None):
    """compile_many's jobs, each as an `Outcome`: its result with the seconds it took and
    whether the compile cache served it."""
    jobs = list(jobs)
    store = cache_for(cache)
    pool = workers_for(executor, workers)
    bar = Progress(len(jobs), progress)
    outcomes = [None] * len(jobs)
    prepared = {}
    pending = {}        # key digest -> the index of the job sent to a worker for it, until
    digests = {}        # it is answered; index -> digest of each job sent
    copies = {}         # index of a job sent -> later jobs with its key, answered with it

    def settle(index, result, seconds, cache_hit=False):
        outcomes[index] = Outcome(jobs[index], result, seconds, cache_hit)
        bar.done(cached=cache_hit, failed=isinstance(result, CompileFailure))

    def answer(index, result):
        ok, payload, seconds, cache_hit = result
        pending.pop(digests.pop(index, None), None)
        for i, hit in [(index, cache_hit)] + [(i, cache_hit) for i in copies.pop(index, ())]:
            before = prepared[i].seconds
            if not ok:
                settle(i, CompileFailure(*payload[:2], jobs[i], payload[2]), before + seconds)
                continue
            t0 = time.perf_counter()
            try:
                exe = read(payload, parse_modules=False)   # a worker's own print
            except AccyError as e:      # bytes a worker of another accy build sent
                settle(i, failure(e, jobs[i]), before + seconds)
                continue
            exe.rebuild = prepared[i].rebuild
            settle(i, exe, before + seconds + time.perf_counter() - t0, hit)

    def texts():
        for index, given in enumerate(jobs):
            t0 = time.perf_counter()
            try:
                p = prepared[index] = prepare(as_job(given), target)
                key = executable_key(p.module) if store is not None else None
                digest = key.digest() if key is not None else None
                exe = None if digest is None or digest in pending else store.executable(
                    digest, key.arguments, read_target_profile(p.module))
            except Exception as e:  # noqa: BLE001 - a job's failure is data for the caller
                settle(index, failure(e, given), time.perf_counter() - t0)
                continue
            if exe is not None:                 # served here, with no worker round trip
                exe.rebuild = p.rebuild
                lookup = time.perf_counter() - t0 - p.seconds
                exe.timings = {"tensor": p.seconds * 1e3, "cache": lookup * 1e3}
                settle(index, exe, time.perf_counter() - t0, True)
            elif digest in pending:             # the same graph as a job in a worker's hands
                copies.setdefault(pending[digest], []).append(index)
            else:
                if digest is not None:
                    pending[digest] = index
                    digests[index] = digest
                pool.start()                    # at the first miss: none when all hit
                yield index, (p.module.print(), context_settings(p.module.context))

    shared = False if store is None else store if pool.in_caller else (store.path,
                                                                        store.max_bytes)
    try:
        dispatch(texts(), len(jobs), pool, partial(compile_texts, cache=shared), answer)
    finally:
        pool.close()
        bar.close()
    if None in outcomes:        # every path above settles its job; this would be accy's bug
        raise AccyError(f"compile_many lost job {outcomes.index(None)}'s result")
    return outcomes
