"""Where a batch's jobs run: accy's own process pool (spawned processes that import accy
only), any concurrent.futures.Executor, or Dask's distributed scheduler (the optional
`distributed` package, imported only here and only when asked for).

Every kind is a `Workers`: `submit(fn, *args)` gives a concurrent.futures.Future, `slots` says
how many calls may usefully run at once, `start()` starts it early and `restart()` replaces a
broken pool (only accy's own pool can be replaced).
"""
import concurrent.futures as cf
import multiprocessing
import os
import sys

from accy.batch import worker
from accy.errors import AccyError


class Workers:
    """A caller's executor, used as it is (never shut down here). `in_caller`: whether its
    calls run in the caller's process (threads), so that they may share its objects."""

    def __init__(self, executor, slots, in_caller=False):
        self.executor = executor
        self.slots = slots
        self.in_caller = in_caller

    def submit(self, fn, *args):
        return self.executor.submit(fn, *args)

    def start(self):
        pass

    def restart(self):
        return False

    def close(self):
        pass


class SpawnPool(Workers):
    """accy's own pool: `count` processes started with multiprocessing's spawn method, so
    that nothing of the caller's process (its threads, locks, open devices) is copied into
    them; replaced when one of its processes dies."""

    def __init__(self, count):
        super().__init__(None, count)
        self.started = None         # the first process's answer, while the pool starts

    def start(self):
        """Start the processes (they import accy while the caller traces its jobs)."""
        if self.executor is None:
            _check_main_reruns()
            self.executor = cf.ProcessPoolExecutor(
                self.slots, mp_context=multiprocessing.get_context("spawn"))
            self.started = self.executor.submit(worker.identity)

    def submit(self, fn, *args):
        self.start()
        if self.started is not None:
            _wait_started(self.executor, self.started)
            self.started = None
        return self.executor.submit(fn, *args)

    def restart(self):
        self.close()
        return True

    def close(self):
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = self.started = None


class InProcess(Workers):
    """No pool: each call runs in the caller, when it is submitted."""

    def __init__(self):
        super().__init__(None, 1, in_caller=True)

    def submit(self, fn, *args):
        future = cf.Future()
        try:
            future.set_result(fn(*args))
        except Exception as e:  # noqa: BLE001 - given to the caller through the future
            future.set_exception(e)
        return future


def _check_main_reruns():
    """An AccyError when the main module is a file that spawned processes cannot run again
    (a program read from standard input: its __file__ is '<stdin>')."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if getattr(main, "__spec__", None) is None and path is not None \
            and not os.path.isfile(path):
        raise AccyError(f"accy's process pool cannot start from this program ({path}): each "
                        f"spawned process first runs the main module again, and there is no "
                        f"such file. Pass workers=0 (compile in this process) or an executor "
                        f"(a ThreadPoolExecutor), or run the program from a file")


def _wait_started(executor, started):
    """Wait for a new pool's first process to answer: a pool whose processes die as they start
    (spawn runs the main module again in each: an unguarded script calls compile_many again
    there) is an AccyError here, not a failure of a job."""
    try:
        started.result()
    except cf.BrokenExecutor:
        executor.shutdown(wait=False, cancel_futures=True)
        raise AccyError("accy's worker processes died as they started (their errors are "
                        "above). Each spawned process first runs the main module again: a "
                        "script needs its compile_many call under `if __name__ == "
                        "\"__main__\":`") from None


def workers_for(executor, count):
    """The Workers of compile_many's `executor` and `workers` arguments: accy's pool of
    `count` processes (default: one per CPU; 0: none, compile in the caller) when `executor`
    is None; a `distributed.Client`
    through its concurrent.futures executor; any other Executor as it is."""
    if count is not None and (not isinstance(count, int) or isinstance(count, bool)
                              or count < 0):
        raise AccyError(f"workers must be a number of processes (0: compile in this "
                        f"process), got {count!r}")
    if executor is None:
        return InProcess() if count == 0 else SpawnPool(count or os.cpu_count() or 1)
    if isinstance(executor, DaskExecutor):
        return Workers(executor, executor.slots())
    if _is_dask_client(executor):
        wrapped = DaskExecutor(executor, owns_client=False)
        return Workers(wrapped, wrapped.slots())
    if not isinstance(executor, cf.Executor):
        raise AccyError(f"executor must be a concurrent.futures.Executor or a "
                        f"distributed.Client, got {type(executor).__name__}")
    return Workers(executor, count or getattr(executor, "_max_workers", None)
                   or os.cpu_count() or 1, in_caller=isinstance(executor, cf.ThreadPoolExecutor))


def _is_dask_client(obj):
    return type(obj).__module__.split(".")[0] == "distributed" and hasattr(obj, "get_executor")


class DaskExecutor(cf.Executor):
    """A concurrent.futures.Executor over a Dask distributed Client: each call is a task of
    its own (`pure=False`: never merged with an equal one). `shutdown` closes the Client when
    this executor opened it."""

    def __init__(self, client, owns_client):
        self.client = client
        self.owns_client = owns_client
        self._executor = client.get_executor(pure=False)

    def slots(self):
        """The threads of the cluster's workers (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, fn, *args, **kwargs):
        return self._executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True, *, cancel_futures=False):
        self._executor.shutdown(wait=wait and not cancel_futures)
        if self.owns_client:
            self.client.close()


def dask_executor(scheduler, **client_options):
    """An Executor running compile_many's jobs on Dask's distributed scheduler: `scheduler`
    is its address ("tcp://host:8786"; the returned executor's shutdown closes the Client it
    opened) or a `distributed.Client` (left open). Needs the `distributed` package
    (`pip install "accy[distributed]"`)."""
    try:
        import distributed
    except ImportError:
        raise AccyError("accy.dask_executor needs Dask's distributed scheduler: "
                        "pip install \"accy[distributed]\"") from None
    if isinstance(scheduler, distributed.Client):
        return DaskExecutor(scheduler, owns_client=False)
    if not isinstance(scheduler, str):
        raise AccyError(f"dask_executor takes a scheduler address ('tcp://host:8786') or a "
                        f"distributed.Client, got {type(scheduler).__name__}")
    try:
        client = distributed.Client(scheduler, **client_options)
    except (OSError, TimeoutError) as e:
        raise AccyError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    return DaskExecutor(client, owns_client=True)
