"""What a batch compiles and what it gives back: `Job`, `CompileFailure`, `Outcome`, and the
caller's half of a job (`prepare`): tracing or parsing it into the module text a worker
compiles.

Functions are traced here, in the caller, so that they need not be picklable (lambdas and
closures are jobs too) and every worker gets the same thing: the tensor module's text with its
target set.
"""
import os
import time
import traceback
from dataclasses import dataclass, field

from accy import stablehlo
from accy._core.context import Context, Module
from accy._core.text import parse
from accy.compiler import compilation
from accy.errors import AccyError, TypeError as DTypeError
from accy.frontend.location import user_line


@dataclass(frozen=True)
class Job:
    """One compile: a `function` traced on `args` (their shapes and dtypes), or a `module` (an
    accy.ir.Module, its IR text, or StableHLO text), for `target` (as accy.compile takes it; None: the batch's
    target, else the module's own). `name` is what reports call it."""
    function: object = None
    args: tuple = ()
    module: object = None
    target: object = None
    name: str = None


@dataclass(frozen=True)
class CompileFailure:
    """A job that did not compile: the exception's type name and message, and the job as it
    was given. `traceback` is set for an exception that is not an AccyError (a bug in the
    traced function, or in accy)."""
    error_type: str
    message: str
    job: object
    traceback: str = field(default="", repr=False)

    def __str__(self):
        return f"{self.error_type}: {self.message}"


@dataclass(frozen=True)
class Outcome:
    """A job's result (an Executable or a CompileFailure), the seconds it took (tracing,
    compiling and loading; not the time it waited for a worker) and whether the compile cache
    served it."""
    job: object
    result: object
    seconds: float
    cache_hit: bool = False


@dataclass(frozen=True)
class Prepared:
    """A job made ready: its tensor module with its target set (looked up in the cache, else
    printed for a worker), and the traced function's output structure."""
    module: object
    rebuild: object
    seconds: float


def as_job(job):
    """The Job of a `(function, example_args)` pair or a Job; DTypeError otherwise."""
    if isinstance(job, Job):
        if (job.function is None) == (job.module is None):
            raise DTypeError("a Job names a function (with its args) or a module, exactly "
                             "one of them")
        return job
    if isinstance(job, tuple) and len(job) == 2 and callable(job[0]) \
            and isinstance(job[1], (tuple, list)):
        return Job(function=job[0], args=tuple(job[1]))
    raise DTypeError(f"a job is a (function, example_args) pair or an accy.Job, got "
                     f"{type(job).__name__}")


def prepare(job, target):
    """The Prepared form of Job `job` (a function traced, IR text parsed, a module copied, the
    target set on it: job.target, else `target`, else the module's own); raises what tracing,
    parsing or the target raise."""
    t0 = time.perf_counter()
    source = job.function if job.function is not None else job.module
    if isinstance(source, str):
        source = stablehlo.load(source) if stablehlo.is_stablehlo(source) else \
            parse(source, Context())
    elif job.function is None and not isinstance(source, Module):
        raise DTypeError(f"a Job's module is an accy.ir.Module or IR text, got "
                         f"{type(source).__name__}")
    c = compilation(source, *job.args, target=job.target if job.target is not None else target,
                    stop="tensor")
    return Prepared(c.module, c.rebuild, time.perf_counter() - t0)


def failure(error, job):
    """The CompileFailure of `error` raised for `job`. An exception raised in the traced
    function's own code (not an accy error) names its innermost line there."""
    if isinstance(error, AccyError):
        return CompileFailure(type(error).__name__, str(error), job)
    message = str(error)
    fn = job.function if isinstance(job, Job) else job[0] if isinstance(job, tuple) and job \
        else None
    code = getattr(getattr(getattr(fn, "__accy_function__", fn), "__wrapped__", fn),
                   "__code__", None)
    where = code and user_line(error.__traceback__, {os.path.abspath(code.co_filename)})
    if where:
        message += f" (at {where})"
    return CompileFailure(type(error).__name__, message, job,
                          "".join(traceback.format_exception(error)))
