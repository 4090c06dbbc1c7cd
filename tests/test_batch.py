"""accy.compile_many and `accy batch`: results in the jobs' order, each failure in its own place
with its error's type and message (tracing, IR text, target, the compiler in a worker, a job
that is not one), lambdas and closures, every kind of executor (in the caller, accy's spawn
pool, a ThreadPoolExecutor, a Dask LocalCluster of two worker processes), results the same as
accy.compile's, a worker process that dies, and the command end to end."""
import concurrent.futures as cf
import json
import multiprocessing
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.batch import compile_batch
from accy.cache import Cache
from accy.batch.dispatch import dispatch
from accy.batch.executors import SpawnPool, Workers
from accy.__main__ import batch_stems, main

from batch_helpers import echo_or_die
from cli_helpers import function_ir

X = np.zeros((6, 40), np.float32)       # tracing reads shapes and dtypes only
ROWS = (1, 2, 3, 4, 5)


SOFTMAX_STABLEHLO = (pathlib.Path(__file__).parent / "stablehlo" /
                     "softmax.generic.mlir").read_text()


def _user_bug(t):
    return {}["no such key"]


def mixed_jobs():
    """(jobs, what each must give: None for an Executable, else (error type, words of its
    message))."""
    scale = 3.0
    return [
        ((lambda t: ops.softmax(t) * scale, (X,)), None),                        # a closure
        ((lambda t: t @ t, (X,)), ("ShapeError", "contracting dims differ")),
        (accy.Job(module="builtin.module ({ nonsense", name="bad ir"), ("ParseError", "1:")),
        (accy.Job(function=lambda t: t + 1, args=(X,), target="sm_70"),
         ("TargetError", "sm_70")),
        (accy.Job(function=lambda t: ops.exp(t), args=(X.astype(np.float64),),
                  target={"arch": "sm_90", "math_tier": "fast"}),                # in the worker
         ("AnalysisError", "cannot be lowered under the 'fast' math tier")),
        (accy.Job(module=function_ir("double", "6x40")), None),                  # IR text
        ((_user_bug, (X,)), ("KeyError", "test_batch.py:")),
        ("not a job", ("TypeError", "(function, example_args) pair")),
        ((lambda t: ops.sum(t, axis=1), (X,)), None),
        (accy.Job(module=SOFTMAX_STABLEHLO, name="stablehlo"), None),             # StableHLO
        (accy.Job(module=SOFTMAX_STABLEHLO.replace('"stablehlo.exponential"',
                                                   '"stablehlo.fft"')),
         ("UnsupportedError", "stablehlo.fft is not supported")),
    ] + [((lambda t, r=r: t[:r] * 2, (X,)), None) for r in ROWS]                # in order


def check_mixed(results, expected):
    assert len(results) == len(expected)
    for (job, want), got in zip(expected, results):
        if want is None:
            assert isinstance(got, accy.Executable), got
        else:
            assert isinstance(got, accy.CompileFailure), (want, got)
            assert got.error_type == want[0] and want[1] in got.message, (want, got)
            assert got.job is job
    for r, exe in zip(ROWS, results[-len(ROWS):]):       # each result is its own job's
        assert exe.results[0][0] == (r, 40)


def test_in_process_order_and_failures():
    expected = mixed_jobs()
    results = accy.compile_many([job for job, _ in expected], workers=0)
    check_mixed(results, expected)
    assert "Traceback" in results[6].traceback and results[1].traceback == ""
    assert str(results[1]).startswith("ShapeError: ")


def test_spawn_pool_of_two_workers():
    expected = mixed_jobs()
    outcomes = compile_batch([job for job, _ in expected], workers=2)
    check_mixed([o.result for o in outcomes], expected)
    assert all(o.seconds > 0 and not o.cache_hit for o in outcomes)


def test_thread_pool_executor():
    expected = mixed_jobs()
    with cf.ThreadPoolExecutor(2) as executor:
        check_mixed(accy.compile_many([job for job, _ in expected], executor=executor),
                    expected)


def test_dask_local_cluster_of_two_worker_processes(tmp_path):
    distributed = pytest.importorskip("distributed")
    expected = mixed_jobs()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        check_mixed(accy.compile_many([job for job, _ in expected], executor=client), expected)
        pids = set(client.run(os.getpid).values())
        assert len(pids) == 2 and os.getpid() not in pids
        executor = accy.dask_executor(client)           # the Client is the caller's: left open
        check_mixed(accy.compile_many([job for job, _ in expected], executor=executor),
                    expected)
        executor.shutdown()
        assert client.status == "running"
        (tmp_path / "double.mlir").write_text(function_ir("double", "6x40"))
        assert main(["batch", str(tmp_path / "double.mlir"), "-o", str(tmp_path / "out"),
                     "--scheduler", cluster.scheduler_address]) == 0
        assert accy.load(str(tmp_path / "out" / "double.accy")).function == "double"


def test_results_equal_accy_compile(rng):
    def layer(x, w, b):
        return ops.layer_norm(x, w, b) * 0.5

    x = rng.standard_normal((5, 24)).astype(np.float32)
    w, b = (rng.standard_normal(24).astype(np.float32) for _ in range(2))
    sources = [(layer, (x, w, b)), (lambda x: (ops.softmax(x), x + 1), (x,)),
               (lambda x: [ops.cumsum(x, axis=1)], (x,))]
    batch = accy.compile_many(sources + [accy.Job(module=function_ir("double", "5x24"))],
                              workers=0)
    single = [accy.compile(fn, *args) for fn, args in sources]
    single.append(accy.compile(accy.ir.parse(function_ir("double", "5x24"))))
    for got, want in zip(batch, single):
        assert got.ptx == want.ptx and got.program.text() == want.program.text()
        assert got.module_text == want.module_text and got.rebuild is want.rebuild
    result = batch[0].run(x, w, b, device="emulator")
    x64 = x.astype(np.float64)
    mean, var = x64.mean(-1, keepdims=True), x64.var(-1, keepdims=True)
    expected = ((x64 - mean) / np.sqrt(var + 1e-5) * w + b) * 0.5
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-5)
    pair = batch[1].run(x, device="emulator")               # the output structure kept
    assert isinstance(pair, tuple) and len(pair) == 2
    assert isinstance(batch[2].run(x, device="emulator"), list)


def test_cache_shared_by_workers_and_served_in_the_caller(tmp_path):
    graphs = [(lambda t, r=r: ops.softmax(t[:r]) + r, (X,)) for r in ROWS]
    cache = Cache(tmp_path / "cache")
    cold = compile_batch(graphs, workers=2, cache=cache)
    assert not any(o.cache_hit for o in cold) and cache.stats()["hits"] == 0
    assert len(os.listdir(tmp_path / "cache" / "executables")) > 0    # written by the workers
    dead = cf.ThreadPoolExecutor(1)
    dead.shutdown()                     # a job sent to it would fail: every one is a hit here
    warm = compile_batch(graphs, executor=dead, cache=Cache(tmp_path / "cache"))
    assert all(o.cache_hit and isinstance(o.result, accy.Executable) for o in warm)
    for c, w in zip(cold, warm):
        assert c.result.ptx == w.result.ptx and c.result.program.text() == w.result.program.text()
        assert set(w.result.timings) == {"tensor", "cache"}
    off = compile_batch(graphs[:1], executor=dead, cache=False)    # no cache: sent, and refused
    assert off[0].result.error_type == "RuntimeError" and not off[0].cache_hit


def test_a_graph_twice_in_a_batch_is_compiled_once(tmp_path):
    cache = Cache(tmp_path)
    same = (lambda t: ops.exp(t) * 2, (X,))
    with cf.ThreadPoolExecutor(2) as executor:      # threads share the caller's Cache object
        outcomes = compile_batch([same, (lambda t: t - 1, (X,)), same, same],
                                 executor=executor, cache=cache)
    # a copy waiting for the first's compile is answered with it, no hit; one traced after
    # that compile was stored is a hit
    assert [o.cache_hit for o in outcomes[:2]] == [False, False]
    assert cache.stats()["misses"] == 4       # two graphs: a look-up here, one in the worker
    first, _, second, third = (o.result for o in outcomes)
    assert first is not second and first.ptx == second.ptx == third.ptx


def test_bad_arguments():
    with pytest.raises(accy.AccyError, match="workers must be"):
        accy.compile_many([], workers=-1)
    with pytest.raises(accy.AccyError, match="concurrent.futures.Executor"):
        accy.compile_many([], executor=object())
    with pytest.raises(accy.TypeError, match="cache must be"):
        accy.compile_many([], workers=0, cache=3)
    (both,) = accy.compile_many([accy.Job(function=abs, module="x")], workers=0)
    assert both.error_type == "TypeError" and "exactly one" in both.message
    assert accy.compile_many([], workers=0) == []


def test_dask_missing_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)      # import distributed fails
    with pytest.raises(accy.AccyError, match=r"pip install \"accy\[distributed\]\""):
        accy.dask_executor("tcp://127.0.0.1:1")


def test_progress_bar_counts(capsys):
    accy.compile_many([(lambda t: t + 1, (X,)), (lambda t: t @ t, (X,))], workers=0,
                      progress=True)
    err = capsys.readouterr().err
    assert "2/2" in err and "cached 0, failed 1" in err
    accy.compile_many([(lambda t: t + 1, (X,))], workers=0)    # not a terminal: no bar
    assert capsys.readouterr().err == ""


def test_a_dead_worker_fails_its_job_only():
    answers = {}
    texts = {i: text for i, text in enumerate(["a", "b", "die", "c", "d", "e"])}
    pool = SpawnPool(2)
    try:
        dispatch(texts.items(), len(texts), pool, echo_or_die, answers.__setitem__)
    finally:
        pool.close()
    assert answers.pop(2)[1][0] == "WorkerCrashed"
    assert answers == {i: (True, texts[i], 0.0, False) for i in answers} and len(answers) == 5


def test_a_broken_executor_of_the_callers_fails_what_is_left():
    answers = {}
    texts = {i: text for i, text in enumerate(["a", "die", "b"])}
    with cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
        dispatch(texts.items(), len(texts), Workers(ex, 1), echo_or_die,
                 answers.__setitem__)
    assert answers[1][1][0] == "BrokenProcessPool" and len(answers) == 3
    assert answers[0] == (True, "a", 0.0, False)     # done before the crash


def test_a_script_without_a_main_guard_is_told(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text("import numpy as np, accy\n"
                      "accy.compile_many([(lambda x: x + 1, (np.ones(4, np.float32),))], "
                      "workers=1)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode != 0
    assert "died as they started" in done.stderr.splitlines()[-1], done.stderr
    assert "if __name__ == \"__main__\":" in done.stderr.splitlines()[-1], done.stderr


# ---- accy batch ---------------------------------------------------------------------------

MODELS = textwrap.dedent("""
    import numpy as np
    import accy.ops as ops

    def example_inputs():
        return [np.ones((6, 40), np.float32)]

    def soft(x):
        return ops.softmax(x)

    def bad(x):
        return x @ x
""")


def tree(root):
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}


def test_batch_command_end_to_end(tmp_path, capsys, rng):
    src = tmp_path / "src"
    src.mkdir()
    (src / "models.py").write_text(MODELS)
    (src / "double.mlir").write_text(function_ir("double", "6x40"))
    (src / "main.mlir").write_text(function_ir("a/b", "6x40"))
    before = tree(tmp_path)
    out = tmp_path / "out"
    sources = [str(src / "models.py") + ":soft", str(src / "double.mlir"),
               str(src / "double.mlir"), str(src / "main.mlir")]
    assert main(["batch", *sources, "-o", str(out), "-j", "0"]) == 0
    assert tree(tmp_path) - before == {"out/models.soft.accy", "out/double.accy",
                                       "out/double+2.accy", "out/main.accy",
                                       "out/summary.jsonl"}
    lines = [json.loads(line) for line in (out / "summary.jsonl").read_text().splitlines()]
    assert [r["job"] for r in lines] == sources
    assert all(r["status"] == "ok" and r["error"] is None and r["kernels"] == 1
               and r["seconds"] > 0 and r["cache_hit"] is False for r in lines)
    exe = accy.load(str(out / lines[0]["bundle"]))
    x = rng.standard_normal((6, 40)).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    np.testing.assert_allclose(exe.run(x, device="emulator"), e / e.sum(-1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    assert "1 failed" not in capsys.readouterr().out

    # a failing source (tracing, a missing file): exit 1, the others still written, and the
    # bundle an earlier run left under a failed source's stem removed
    (out / "models.bad.accy").write_bytes(b"an earlier run's")
    failing = [str(src / "models.py") + ":bad", str(src / "nothing.py") + ":f",
               str(src / "double.mlir")]
    assert main(["batch", *failing, "-o", str(out), "-j", "0", "--target", "sm_80"]) == 1
    lines = [json.loads(line) for line in (out / "summary.jsonl").read_text().splitlines()]
    assert [r["status"] for r in lines] == ["failed", "failed", "ok"]
    assert lines[0]["error"]["type"] == "ShapeError" and "models.py:" in \
        lines[0]["error"]["message"]
    assert lines[1]["error"]["type"] == "OSError" and lines[1]["bundle"] is None
    assert not (out / "models.bad.accy").exists()
    assert accy.load(str(out / "double.accy")).target.arch == "sm_80"
    captured = capsys.readouterr()
    assert "accy: error: " + failing[0] + ": ShapeError" in captured.err
    assert "3 jobs: 1 compiled (0 from the cache), 2 failed" in captured.out


def test_batch_command_with_the_default_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ACCY_CACHE", "1")
    monkeypatch.setenv("ACCY_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "double.mlir").write_text(function_ir("double", "6x40"))
    argv = ["batch", str(tmp_path / "double.mlir"), "-o", str(tmp_path / "out"), "-j", "0"]
    for hit in (False, True):
        assert main(argv) == 0
        (line,) = (tmp_path / "out" / "summary.jsonl").read_text().splitlines()
        assert json.loads(line)["cache_hit"] is hit
    assert "1 compiled (1 from the cache)" in capsys.readouterr().out


def test_batch_stems_are_safe_and_unique():
    assert batch_stems(["m.py:f", "n/m.py:f", "pkg.mod:g", "x.mlir", "y/x.mlir"]) == \
        ["m.f", "m.f+2", "pkg.mod.g", "x", "x+2"]
    weird = batch_stems(["../../evil.mlir", "a b.mlir", ".hidden.mlir"])
    assert all("/" not in s and not s.startswith(".") for s in weird)
    assert weird[0] == "evil" and weird[1].startswith("a_b+h")


def test_a_batch_of_cache_hits_starts_no_workers(tmp_path, monkeypatch):
    from accy.batch import executors
    cache = Cache(tmp_path)
    jobs = [(lambda t: ops.exp(t) * 3, (X,)), (lambda t: t - 3, (X,))]
    compile_batch(jobs, workers=0, cache=cache)
    started = []
    monkeypatch.setattr(executors.SpawnPool, "start", lambda self: started.append(self))
    outcomes = compile_batch(jobs, workers=2, cache=cache)
    assert [o.cache_hit for o in outcomes] == [True, True] and not started


def test_a_module_job_compiles_in_a_context_like_its_own():
    """A Job(module=...) whose Context bounds it is compiled under the same bound by the
    worker: it fails there as accy.compile fails on it (the worker parsed it in a default
    Context and compiled what accy.compile refuses)."""
    from accy.ir import Capacity, Context, parse
    text = accy.compile(lambda t: ops.exp(t) * 2, X, cache=False).module_text
    module = parse(text, Context(capacity=Capacity(max_operations=12)))
    with pytest.raises(accy.AccyError) as direct:
        accy.compile(module, cache=False)
    (outcome,) = compile_batch([accy.Job(module=module)], workers=0, cache=False)
    assert isinstance(outcome.result, accy.batch.CompileFailure)
    assert outcome.result.error_type == type(direct.value).__name__
