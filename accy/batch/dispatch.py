"""Sending module texts to Workers and taking their answers back, in chunks, a few chunks per
worker slot in flight at a time (so a long batch holds few futures and shows steady progress).

A worker process that dies (a crash, the OOM killer) breaks accy's own pool. The pool is then
started again, and each job that was in flight is tried once more on its own; a job that
breaks a pool while it runs alone is a CompileFailure ("WorkerCrashed"), and every other job
still compiles. A caller's executor that breaks cannot be replaced: its unfinished jobs fail
with the error it raised.
"""
import concurrent.futures as cf
from collections import deque

IN_FLIGHT_PER_SLOT = 2
MAX_CHUNK = 8


def dispatch(texts, workers, run, answer):
    """Compile `texts` ({job index: module text}) on `workers`, each chunk by `run` (a
    picklable function of a list of texts, as accy.batch.worker.compile_texts); call
    answer(index, result) with each job's result in run's form as it arrives, in any order."""
    if not texts:
        return
    indices = list(texts)
    size = max(1, min(MAX_CHUNK, len(indices) // (workers.slots * IN_FLIGHT_PER_SLOT * 4)))
    queue = deque((tuple(indices[i:i + size]), False) for i in range(0, len(indices), size))
    in_flight = {}          # future -> (chunk of indices, whether it runs alone)
    suspects = set()        # jobs in flight when a pool broke: each is tried alone once more
    while queue or in_flight:
        while queue and len(in_flight) < workers.slots * IN_FLIGHT_PER_SLOT \
                and not any(alone for _, alone in in_flight.values()):
            chunk, alone = queue[0]
            if alone and in_flight:
                break
            queue.popleft()
            future = workers.submit(run, [texts[i] for i in chunk])
            in_flight[future] = (chunk, alone)
        done, _ = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
        broken = None
        for future in done:
            chunk, alone = in_flight.pop(future)
            try:
                results = future.result()
            except cf.BrokenExecutor as e:
                broken = e
                in_flight[future] = (chunk, alone)       # handled with the rest below
                continue
            except Exception as e:  # noqa: BLE001 - the executor's error, for these jobs only
                results = [_failed(e)] * len(chunk)
            for index, result in zip(chunk, results):
                answer(index, result)
        if broken is not None:
            _recover(broken, workers, in_flight, queue, suspects, answer)


def _recover(error, workers, in_flight, queue, suspects, answer):
    """After `workers` broke: the jobs in flight are tried again alone (first), or fail."""
    lost = [i for chunk, _ in in_flight.values() for i in chunk]
    in_flight.clear()
    if not workers.restart():
        remaining = lost + [i for chunk, _ in queue for i in chunk]
        queue.clear()
        for index in remaining:
            answer(index, _failed(error))
        return
    retry = []
    for index in lost:
        if index in suspects:
            answer(index, (False, ("WorkerCrashed", "the worker process compiling this job "
                                   "died (a crash, or killed for memory); every other job "
                                   "was compiled again without it", ""), 0.0, False))
        else:
            suspects.add(index)
            retry.append(index)
    queue.extendleft(((index,), True) for index in reversed(retry))


def _failed(error):
    return False, (type(error).__name__, str(error) or repr(error), ""), 0.0, False
