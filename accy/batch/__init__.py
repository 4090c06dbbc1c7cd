"""Compiling many jobs at once (docs/batch.md).

    results = accy.compile_many([(f, (x,)), (g, (x, y)), accy.Job(module=text)], workers=2)
    # each an Executable or a CompileFailure, in the jobs' order

The caller traces each function (or parses each IR text) and sets its target; workers get the
module text, compile it and send the executable back as bundle bytes (docs/runtime.md). A job
that fails, while tracing or compiling, is a CompileFailure in its place; the others go on.
"""
import time

from accy.batch.dispatch import dispatch
from accy.batch.executors import dask_executor, workers_for
from accy.batch.jobs import CompileFailure, Job, Outcome, as_job, failure, job_name, prepare
from accy.batch.progress import Progress
from accy.batch.worker import compile_texts
from accy.runtime.bundle import read

__all__ = ["compile_many", "compile_batch", "Job", "CompileFailure", "Outcome",
           "dask_executor", "job_name"]


def compile_many(jobs, workers=None, executor=None, cache=None, progress=None, target=None):
    """An Executable or a CompileFailure for each job, in order. A job is a `(function,
    example_args)` pair or an `accy.Job`. `workers`: the number of processes of accy's own
    pool (default one per CPU; 0 compiles in this process); `executor`: any
    concurrent.futures.Executor, a `distributed.Client` or `accy.dask_executor(address)`,
    used instead (left running). `progress`: a bar on standard error (None: only on a
    terminal). `target`: for the jobs that name none."""
    return [o.result for o in compile_batch(jobs, workers, executor, cache, progress, target)]


def compile_batch(jobs, workers=None, executor=None, cache=None, progress=None, target=None):
    """compile_many's jobs, each as an `Outcome`: its result with the seconds it took and
    whether the compile cache served it."""
    jobs = list(jobs)
    pool = workers_for(executor, workers)
    bar = Progress(len(jobs), progress)
    outcomes = [None] * len(jobs)
    prepared = {}

    def settle(index, result, seconds, cache_hit=False):
        outcomes[index] = Outcome(jobs[index], result, seconds, cache_hit)
        bar.done(cached=cache_hit, failed=isinstance(result, CompileFailure))

    def answer(index, result):
        ok, payload, seconds, cache_hit = result
        before = prepared[index].seconds
        if not ok:
            settle(index, CompileFailure(*payload[:2], jobs[index], payload[2]),
                   before + seconds)
            return
        t0 = time.perf_counter()
        exe = read(payload)
        exe.rebuild = prepared[index].rebuild
        settle(index, exe, before + seconds + time.perf_counter() - t0, cache_hit)

    def texts():
        for index, given in enumerate(jobs):
            t0 = time.perf_counter()
            try:
                prepared[index] = prepare(as_job(given), target)
            except Exception as e:  # noqa: BLE001 - a job's failure is data for the caller
                settle(index, failure(e, given), time.perf_counter() - t0)
            else:
                yield index, prepared[index].text

    try:
        pool.start()
        dispatch(texts(), len(jobs), pool, compile_texts, answer)
    finally:
        pool.close()
        bar.close()
    return outcomes
