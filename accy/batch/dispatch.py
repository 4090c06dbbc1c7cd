"""Sending module texts to Workers and taking their answers back, in chunks, a few chunks per
worker slot in flight at a time (so a long batch holds few futures and shows steady progress).

A worker process that dies (a crash, the OOM killer) breaks accy's own pool. The pool is then
started again, and each job that was in flight is tried once more on its own; a job that
breaks a pool while it runs alone is a CompileFailure ("WorkerCrashed"), and every other job
still compiles. A caller's executor that breaks cannot be replaced: its unfinished jobs fail
with the error it raised.
"""
import concurrent.futures as cf
import itertools
from collections import deque

from accy.errors import AccyError

IN_FLIGHT_PER_SLOT = 2
MAX_CHUNK = 8


def dispatch(texts, count, workers, run, answer):
    """Compile `texts` (an iterable of (job index, module text), about `count` of them, taken
    as they are needed: while workers compile, the caller makes the next ones) on `workers`,
    each chunk by `run` (a picklable function of a list of texts, as
    accy.batch.worker.compile_texts); call answer(index, result) with each job's result in
    run's form as it arrives, in any order."""
    window = workers.slots * IN_FLIGHT_PER_SLOT
    size = max(1, min(MAX_CHUNK, count // (window * 4)))
    source, made = iter(texts), {}
    queue = deque()         # (chunk of indices, whether it runs alone), made but not sent
    in_flight = {}          # future -> (chunk, alone)
    suspects = set()        # jobs in flight when a pool broke: each is tried alone once more
    more = True
    while True:
        while queue and len(in_flight) < window \
                and not any(alone for _, alone in in_flight.values()):
            chunk, alone = queue[0]
            if alone and in_flight:
                break
            queue.popleft()
            try:
                in_flight[workers.submit(run, [made[i] for i in chunk])] = (chunk, alone)
            except AccyError:           # accy's pool could not start: no job can compile
                raise
            except Exception as e:  # noqa: BLE001 - e.g. an executor already shut down
                for index in chunk:
                    answer(index, _failed(e))
        ahead = more and len(queue) < window
        if ahead:                       # make the next chunk while the workers compile
            chunk = []
            for index, text in itertools.islice(source, size):
                made[index] = text
                chunk.append(index)
            more = len(chunk) == size
            if chunk:
                queue.append((tuple(chunk), False))
        if not in_flight:
            if queue or more:
                continue
            return
        done, _ = cf.wait(in_flight, timeout=0 if ahead else None,
                          return_when=cf.FIRST_COMPLETED)
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
                made.pop(index, None)
                answer(index, result)
        if broken is not None and not _recover(broken, workers, in_flight, queue, suspects,
                                               answer):
            for index, _ in source:
                answer(index, _failed(broken))
            return


def _recover(error, workers, in_flight, queue, suspects, answer):
    """After `workers` broke: the jobs in flight are tried again alone (first), and True; or,
    when `workers` cannot be restarted, they and the queued ones fail, and False."""
    lost = [i for chunk, _ in in_flight.values() for i in chunk]
    in_flight.clear()
    if not workers.restart():
        remaining = lost + [i for chunk, _ in queue for i in chunk]
        queue.clear()
        for index in remaining:
            answer(index, _failed(error))
        return False
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
    return True


def _failed(error):
    return False, (type(error).__name__, str(error) or repr(error), ""), 0.0, False
