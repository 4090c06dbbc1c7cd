"""The compile cache (accy/cache.py, docs/batch.md): each part of the key changes it, the key is
the same in fresh processes, what a hit (or a reused kernel) gives is byte for byte what a
compile without the cache gives, and the folder stays sound and bounded under many writers, a
writer killed mid-write, damaged entries, and a folder that cannot be written."""
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import warnings
import zlib

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy import cache as cache_module
from accy.__main__ import main
from accy.cache import (ENVIRONMENT, NOT_IN_KEY, PACKAGE, Cache, CacheError, CacheWarning,
                        ExecutableKey, KernelKey, cache_for, executable_key, kernel_fingerprint,
                        source_digest)
from accy.compiler import _begin, compilation
from accy.ir import Capacity, Context, parse
from accy.passes.target import TargetProfile

from bundles import SAMPLES
from cache_helpers import GRAPH_COUNT, SAMPLED, graph, outcome
from child_process import limit_cpu, run_bounded

TESTS = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def cache(tmp_path):
    return Cache(tmp_path / "cache")


def key_of(fn, arrays, target=None, start="tensor"):
    return executable_key(_begin(fn, arrays, target, start).module, start)


def add_one(x):
    return ops.exp(x) + 1.0


X = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8) + 0.5


def counted_state(folder):
    """The byte count in a cache folder's lock file (after its CRC is checked)."""
    with open(os.path.join(folder, "lock"), "rb") as f:
        text, _, crc = f.read().decode("ascii").rpartition("\n")
    assert crc == f"{zlib.crc32(text.encode()):08x}"
    return json.loads(text)


# ---- the key: each part changes it ---------------------------------------------------------

OTHER_VALUE = {     # ExecutableKey field -> a value other than any real key's
    "module": "0" * 64, "start": "prepared", "arguments": (((4, 9), "f32"),),
    "target": {"arch": "sm_80"}, "context": {"allow_unregistered": True},
    "ptxas": "ptxas 0.0", "environment": (("ACCY_VERIFY_KERNELS", "0"),), "format": 0,
    "accy_version": "0.0.0", "sources": "1" * 64, "numpy": "0.0", "ml_dtypes": "0.0", "python": "cpython-00",
}


def test_every_key_field_is_covered_here():
    assert set(OTHER_VALUE) == {f.name for f in dataclasses.fields(ExecutableKey)}


@pytest.mark.parametrize("name", sorted(OTHER_VALUE))
def test_each_executable_key_field_changes_the_digest(name):
    key = key_of(add_one, [X])
    assert getattr(key, name) != OTHER_VALUE[name]
    assert dataclasses.replace(key, **{name: OTHER_VALUE[name]}).digest() != key.digest()


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(KernelKey)])
def test_each_kernel_key_field_changes_the_digest(name):
    key = KernelKey("a" * 64, "sm_90", "8.0", "exact", 1, "0.1.0", "b" * 64, "2.0", "0.5",
                    "cpython-311")
    other = {"format": 2}.get(name, "other")
    assert dataclasses.replace(key, **{name: other}).digest() != key.digest()


TARGET_CHANGES = {
    "arch": "sm_80", "ptx_version": "8.3", "artifact_format": "cubin", "math_tier": "fast",
    "row_pipeline_schedules": [{"row_length": 8, "dtype": "f32", "threads_per_row": 8,
                                "elements_per_thread": 1}],
    "scan_schedules": [{"length": 8, "dtype": "f32", "threads": 32, "elements_per_thread": 1}],
    "dot_schedules": [{"m": 64, "n": 64, "k": 64, "dtype": "f16", "tile_m": 64, "tile_n": 64,
                       "tile_k": 32, "stages": 2, "splits": 1}],
    "attention_schedules": [{"seq_q": 64, "seq_k": 64, "head_dim": 64, "dtype": "f16",
                             "block_q": 64, "block_k": 32}],
}


def test_every_target_field_is_covered_here():
    assert set(TARGET_CHANGES) == {f.name for f in dataclasses.fields(TargetProfile)}


@pytest.mark.parametrize("name", sorted(TARGET_CHANGES))
def test_each_target_field_changes_the_key(name):
    base = key_of(add_one, [X], target={})
    changed = key_of(add_one, [X], target={name: TARGET_CHANGES[name]})
    assert changed.target[name] != base.target[name]
    assert changed.digest() != base.digest()


def test_the_module_fingerprint_covers_ops_attributes_and_every_constant_byte():
    big = np.linspace(0, 1, 2000, dtype=np.float32)
    nudged = big.copy()
    nudged[1234] = np.nextafter(nudged[1234], np.float32(2))
    nan, other_nan = np.array([np.nan] * 8, np.float32), np.array([np.nan] * 8, np.float32)
    other_nan.view(np.uint32)[3] |= 1           # another NaN payload
    y = np.ones((2000,), np.float32)
    v = np.ones((8,), np.float32)
    cases = [
        [key_of(lambda x: x + big, [y]), key_of(lambda x: x + nudged, [y])],
        [key_of(lambda x: x * nan, [v]), key_of(lambda x: x * other_nan, [v])],
        [key_of(lambda x: x + 0.0, [v]), key_of(lambda x: x + -0.0, [v])],
        [key_of(lambda x: ops.sum(x, 0), [X]), key_of(lambda x: ops.sum(x, 1), [X])],
        [key_of(lambda x: ops.transpose(x, (1, 0)) * 2, [X]),
         key_of(lambda x: ops.reshape(x, (8, 4)) * 2, [X])],
        [key_of(lambda x: x + 1, [X]), key_of(lambda x: x * 1, [X])],
    ]
    for first, second in cases:
        assert first.module != second.module and first.digest() != second.digest()


def test_the_module_fingerprint_ignores_names_and_contexts():
    module = _begin(add_one, [X], None, "tensor").module
    text = module.print()
    renamed = re.sub(r"%(\d+)", lambda m: f"%v{int(m.group(1)) * 7 + 3}", text)
    assert renamed != text
    again = parse(renamed, Context())
    assert executable_key(again).digest() == executable_key(module).digest()
    assert key_of(lambda a: ops.exp(a) + 1.0, [X]).digest() == key_of(add_one, [X]).digest()


def test_a_module_sent_as_text_has_the_key_of_the_function_traced():
    # what a batch worker compiles: the caller's traced module, printed, parsed again there
    target = {"arch": "sm_80", "math_tier": "fast"}
    module = accy.jit(add_one).lower(X)
    for text in (module.print(), module.print(generic=True)):
        assert key_of(parse(text, Context()), [], target).digest() == \
            key_of(add_one, [X], target).digest()


def test_the_argument_signature_changes_the_key():
    base = key_of(lambda x: x * 2, [X])
    for other in (X.reshape(8, 4), X.astype(np.float16), X[:2]):
        key = key_of(lambda x: x * 2, [other])
        assert key.arguments != base.arguments and key.digest() != base.digest()


def test_accys_version_changes_the_key(monkeypatch):
    base = key_of(add_one, [X])
    monkeypatch.setattr("accy.version.VERSION", "9.9.9")
    key = key_of(add_one, [X])
    assert key.accy_version == "9.9.9" and key.digest() != base.digest()


def test_a_change_to_a_lowerings_source_or_an_extension_changes_the_digest(tmp_path):
    files = sorted(cache_module._code_files(PACKAGE))
    assert "lowering/elementwise.py" in files and any(f.endswith(".so") for f in files)
    copy = tmp_path / "accy"
    for rel in files:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(PACKAGE, rel), copy / rel)
    digest = source_digest.__wrapped__
    assert digest(str(copy)) == source_digest() == key_of(add_one, [X]).sources
    (copy / "__pycache__").mkdir()
    (copy / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"compiled")
    assert digest(str(copy)) == source_digest()     # bytecode is not source
    with open(copy / "lowering" / "elementwise.py", "a") as f:
        f.write("\n# a changed lowering\n")
    edited = digest(str(copy))
    assert edited != source_digest()
    extension = next(copy / rel for rel in files if rel.endswith(".so"))
    extension.write_bytes(extension.read_bytes() + b"\0")
    assert digest(str(copy)) not in (edited, source_digest())


def test_a_changed_source_digest_misses_the_entry_stored_before(cache, monkeypatch):
    accy.compile(add_one, X, cache=cache)
    assert accy.compile(add_one, X, cache=cache).timings.keys() == {"tensor", "cache"}
    monkeypatch.setattr(cache_module, "source_digest", lambda root=PACKAGE: "e" * 64)
    exe = accy.compile(add_one, X, cache=cache)
    assert "ptx" in exe.timings and cache.stats()["misses"] == 2 and cache.hits == 1


def _fake_ptxas(folder, version):
    folder.mkdir()
    script = folder / "ptxas"
    script.write_text(f"#!/bin/sh\necho 'fake ptxas, release {version}'\n")
    script.chmod(0o755)
    return str(folder)


def test_the_ptxas_version_changes_the_key_of_a_cubin_only(tmp_path, monkeypatch):
    cubin = {"artifact_format": "cubin"}
    path = os.environ.get("PATH", "")
    monkeypatch.setenv("PATH", _fake_ptxas(tmp_path / "a", "1.0") + os.pathsep + path)
    first, first_ptx = key_of(add_one, [X], cubin), key_of(add_one, [X])
    monkeypatch.setenv("PATH", _fake_ptxas(tmp_path / "b", "2.0") + os.pathsep + path)
    second, second_ptx = key_of(add_one, [X], cubin), key_of(add_one, [X])
    assert (first.ptxas, second.ptxas) == ("fake ptxas, release 1.0", "fake ptxas, release 2.0")
    assert first.digest() != second.digest()
    assert first_ptx.ptxas == second_ptx.ptxas == "" and first_ptx.digest() == second_ptx.digest()


@pytest.mark.parametrize("name", sorted(ENVIRONMENT))
def test_each_environment_knob_changes_the_key(name, monkeypatch):
    monkeypatch.delenv(name, raising=False)
    base = key_of(add_one, [X])
    monkeypatch.setenv(name, "1")
    assert key_of(add_one, [X]).digest() != base.digest()


def test_every_environment_variable_accy_reads_is_in_the_key_or_said_not_to_be():
    named = set()
    for root, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith((".py", ".pyx")):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    text = f.read()
                named |= set(re.findall(r"\bACCY_[A-Z0-9_]+\b", text))
                named |= set(re.findall(r"(?:environ\.get|getenv|environ)\s*[(\[]\s*[\"']([^\"']+)",
                                        text))
    assert "ACCY_VERIFY_KERNELS" in named and "PATH" in named
    assert named <= set(ENVIRONMENT) | set(NOT_IN_KEY)
    assert not set(ENVIRONMENT) & set(NOT_IN_KEY)


def test_the_context_and_the_start_stage_change_the_key():
    module = _begin(add_one, [X], None, "tensor").module
    base = executable_key(module).digest()
    small = module.clone(Context(capacity=Capacity(max_analysis_entries=7)))
    loose = module.clone(Context(allow_unregistered=True))
    assert len({base, executable_key(small).digest(), executable_key(loose).digest(),
                executable_key(module, "prepared").digest()}) == 4


KEY_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from test_cache import key_cases
print(json.dumps([key.digest() for key in key_cases()]))
"""


def key_cases():
    big = np.arange(3000, dtype=np.float32) * 0.5
    return [key_of(*graph(3)), key_of(*graph(57), target=TARGET_CHANGES),
            key_of(lambda x: ops.softmax(x, -1), [X], target={"math_tier": "fast"}),
            key_of(lambda x: x * big, [np.ones(3000, np.float32)]),
            key_of(SAMPLES["kernel_call"][0], [])]


def test_the_key_is_the_same_in_fresh_processes():
    mine = [key.digest() for key in key_cases()]
    assert len(set(mine)) == len(mine)
    for seed in ("1", "2"):
        done = run_bounded([sys.executable, "-c", KEY_CHILD, TESTS], capture_output=True,
                           text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == mine


def test_a_kernels_fingerprint_leaves_its_name_out():
    [kernel] = compilation(lambda x: ops.exp(x) * 2, X, stop="kl").kl.body
    before = kernel_fingerprint(kernel)
    kernel.set_attribute("sym_name", "another$name")
    assert kernel_fingerprint(kernel) == before
    [other] = compilation(lambda x: ops.exp(x) * 3, X, stop="kl").kl.body
    assert kernel_fingerprint(other) != before


# ---- what the cache gives is what compiling gives -------------------------------------------

def _sample(name):
    fn, inputs, target = SAMPLES[name]
    return fn, inputs(np.random.default_rng(zlib.crc32(name.encode()))), target


def test_hits_and_reused_kernels_give_byte_identical_executables(cache):
    references = {}
    for name in SAMPLES:                  # misses: kernels shared between samples reused
        fn, arrays, target = _sample(name)
        references[name] = accy.compile(fn, *arrays, target=target, cache=False)
        assert outcome(accy.compile(fn, *arrays, target=target, cache=cache)) == \
            outcome(references[name]), name
    assert cache.misses == len(SAMPLES) and cache.kernel_hits > 0
    for name in SAMPLES:                  # hits
        fn, arrays, target = _sample(name)
        exe = accy.compile(fn, *arrays, target=target, cache=cache)
        assert exe.timings.keys() == {"tensor", "cache"}, name
        assert outcome(exe, arrays) == outcome(references[name], arrays), name
        assert exe.kernels == references[name].kernels
        assert exe.fallbacks == references[name].fallbacks
        assert exe.rebuild is references[name].rebuild      # the output structure
    assert cache.hits == len(SAMPLES)


def test_a_kernel_repeated_in_one_executable_is_emitted_once(cache):
    fn, arrays, _ = _sample("transformer")
    reference = accy.compile(fn, *arrays, cache=False)
    exe = accy.compile(fn, *arrays, cache=cache)
    assert exe.ptx == reference.ptx and len(exe.kernels) == 9
    assert cache.kernel_hits >= 1 and cache.kernel_hits + cache.kernel_misses == 9


def test_graphs_that_share_a_kernel_share_its_text(cache):
    w = np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)
    accy.compile(lambda x: ops.softmax(x, -1), X, cache=cache)     # main$k0$row_pipeline
    accy.compile(lambda x, w: x @ w, X, w, cache=cache)            # main$k0$dot_general
    both = lambda x, w: ops.softmax(x, -1) @ w                     # noqa: E731
    exe = accy.compile(both, X, w, cache=cache)                    # ... and main$k1$dot_general
    assert cache.misses == 3 and (cache.kernel_hits, cache.kernel_misses) == (2, 2)
    assert [k.name for k in exe.kernels] == ["main$k0$row_pipeline", "main$k1$dot_general"]
    assert exe.ptx == accy.compile(both, X, w, cache=False).ptx


def test_misses_and_hits_give_the_golden_ptx(cache):
    from test_kernels_golden import CASES, GOLDEN
    again = Cache(cache.path)
    for store in (cache, again):    # misses (each kernel emitted under the stand-in), then hits
        for case, (fn, args, _, _) in CASES.items():
            golden = (GOLDEN / "ptx" / f"{case}.ptx").read_text(encoding="utf-8")
            assert accy.compile(fn, *args, target="sm_90", cache=store).ptx == golden, case
    assert (cache.misses, again.hits) == (len(CASES), len(CASES))


def test_a_hit_takes_the_callers_output_structure(cache):
    as_tuple = accy.compile(lambda x: (x + 1, x * 2), X, cache=cache)
    as_list = accy.compile(lambda x: [x + 1, x * 2], X, cache=cache)
    assert cache.hits == 1
    assert isinstance(as_tuple.run(X, device="reference"), tuple)
    assert isinstance(as_list.run(X, device="reference"), list)


# ---- many writers, killed writers, damaged entries ------------------------------------------

HAMMER_PROCESSES, HAMMER_PER_PROCESS, HAMMER_BOUND = 8, 100, 64 << 10


def test_hammer_many_processes_one_folder_a_tiny_bound(tmp_path):
    folder = str(tmp_path / "shared")
    children = []
    for p in range(HAMMER_PROCESSES):     # each graph compiled by 4 processes, in 4 orders
        indices = [(p * 25 + j * (1 + 2 * (p % 3))) % GRAPH_COUNT
                   for j in range(HAMMER_PER_PROCESS)]
        children.append(subprocess.Popen(
            [sys.executable, os.path.join(TESTS, "cache_helpers.py"), folder,
             str(HAMMER_BOUND), *map(str, indices)], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, preexec_fn=limit_cpu()))
    references = {}
    for i in range(GRAPH_COUNT):
        fn, arrays = graph(i)
        references[str(i)] = outcome(accy.compile(fn, *arrays, cache=False),
                                     arrays if i in SAMPLED else None)
    reports = []
    for child in children:
        out, err = child.communicate(timeout=600)
        assert child.returncode == 0, err[-2000:]
        reports.append(json.loads(out))
    compared = set()
    for report in reports:
        for i, got in report["outcomes"].items():
            assert got == references[i], f"graph {i}"
            compared.add(i)
    assert len(compared) == GRAPH_COUNT
    stats = {k: sum(r["stats"][k] for r in reports) for k in reports[0]["stats"]}
    assert stats["hits"] > 0 and stats["evictions"] > 0 and stats["kernel_hits"] > 0
    info = Cache(folder, HAMMER_BOUND).info()
    assert 0 < info.bytes <= HAMMER_BOUND and info.temporary == 0
    assert counted_state(folder) == {"bytes": info.bytes, "pending": []}


def test_threads_sharing_a_cache(tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    shared = Cache(tmp_path / "threads", max_bytes=48 << 10)
    indices = [i // 4 for i in range(120)]       # each graph 4 times in a row: hits

    def compiled(i, cache):
        fn, arrays = graph(i)
        return outcome(accy.compile(fn, *arrays, cache=cache))
    references = {i: compiled(i, False) for i in set(indices)}
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda i: compiled(i, shared), indices))
    assert got == [references[i] for i in indices]
    info = shared.info()
    assert shared.hits > 0 and shared.evictions > 0 and info.bytes <= shared.max_bytes
    assert counted_state(shared.path) == {"bytes": info.bytes, "pending": []}


KILLED_CHILD = """
import os, signal, sys
sys.path.insert(0, sys.argv[3])
import accy
from accy.cache import Cache
from cache_helpers import graph
mode, folder = sys.argv[1], sys.argv[2]
real_replace, real_fdopen = os.replace, os.fdopen

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def replace(src, dst):
    if dst.endswith(".accy") and mode == "before-rename":
        die()
    real_replace(src, dst)
    if dst.endswith(".accy") and mode == "after-rename":
        die()

class HalfWriter:
    def __init__(self, f):
        self.f = f
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        self.f.close()
    def write(self, data):
        if data[:8] == b"ACCYBNDL":
            self.f.write(data[:len(data) // 2])
            self.f.flush()
            die()
        self.f.write(data)

os.replace = replace
if mode == "mid-write":
    os.fdopen = lambda *a, **k: HalfWriter(real_fdopen(*a, **k))
fn, arrays = graph(int(sys.argv[4]))
accy.compile(fn, *arrays, cache=Cache(folder))
print("not killed")
"""


@pytest.mark.parametrize("mode", ["mid-write", "before-rename", "after-rename"])
def test_a_writer_killed_mid_write_leaves_nothing_that_is_served(tmp_path, mode):
    folder = str(tmp_path / "cache")
    Cache(folder).prune()                 # an empty folder with its lock file
    fn, arrays = graph(11)
    reference = outcome(accy.compile(fn, *arrays, cache=False), arrays)
    done = run_bounded([sys.executable, "-c", KILLED_CHILD, mode, folder, TESTS, "11"],
                       capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr
    assert counted_state(folder)["pending"]         # the killed writer's record
    after = Cache(folder)
    key = key_of(fn, arrays).digest()
    served = after.executable(key, key_of(fn, arrays).arguments, TargetProfile())
    assert (served is not None) == (mode == "after-rename")
    if served is not None:
        assert outcome(served, arrays) == reference
    assert outcome(accy.compile(fn, *arrays, cache=after), arrays) == reference
    after.prune()                         # settles the killed writer's record
    info = after.info()
    assert info.temporary == 0 and counted_state(folder) == {"bytes": info.bytes, "pending": []}
    assert after.executable(key, key_of(fn, arrays).arguments, TargetProfile()) is not None


def _entries(folder, kind):
    root = os.path.join(folder, kind)
    return sorted(os.path.join(root, shard, name) for shard in os.listdir(root)
                  for name in os.listdir(os.path.join(root, shard)))


def _truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def _flip(path):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[len(data) // 2] ^= 0x40
        f.seek(0)
        f.write(data)


@pytest.mark.parametrize("damage", [_truncate, _flip, lambda path: open(path, "wb").close()])
def test_a_damaged_executable_entry_is_dropped_and_compiled_again(cache, damage):
    fn, arrays = graph(42)
    reference = outcome(accy.compile(fn, *arrays, cache=False), arrays)
    accy.compile(fn, *arrays, cache=cache)
    [entry] = _entries(cache.path, "executables")
    damage(entry)
    fresh = Cache(cache.path)
    assert outcome(accy.compile(fn, *arrays, cache=fresh), arrays) == reference
    assert (fresh.hits, fresh.misses) == (0, 1)
    assert outcome(accy.compile(fn, *arrays, cache=fresh), arrays) == reference
    assert fresh.hits == 1                # the damaged entry was replaced by a whole one
    assert counted_state(cache.path)["bytes"] == fresh.info().bytes


def test_damaged_kernel_entries_are_dropped_and_emitted_again(cache):
    fn, arrays, _ = _sample("transformer")
    reference = accy.compile(fn, *arrays, cache=False)
    accy.compile(fn, *arrays, cache=cache)
    for entry in _entries(cache.path, "executables"):
        os.unlink(entry)
    kernels = _entries(cache.path, "kernels")
    for i, entry in enumerate(kernels):
        (_truncate if i % 2 else _flip)(entry)
    fresh = Cache(cache.path)             # nothing in its memory
    exe = accy.compile(fn, *arrays, cache=fresh)
    assert exe.ptx == reference.ptx
    assert fresh.kernel_misses == len(kernels)
    assert fresh.kernel_hits == 9 - len(kernels)    # the repeated kernel, from memory


def test_another_executables_bundle_under_a_key_is_not_served(cache):
    fn_a, arrays_a = graph(1)
    fn_b, arrays_b = graph(2)             # other shapes
    accy.compile(fn_a, *arrays_a, cache=cache)
    [entry_a] = _entries(cache.path, "executables")
    key_b = key_of(fn_b, arrays_b).digest()
    planted = os.path.join(cache.path, "executables", key_b[:2], key_b + ".accy")
    os.makedirs(os.path.dirname(planted), exist_ok=True)
    shutil.copy(entry_a, planted)
    reference = outcome(accy.compile(fn_b, *arrays_b, cache=False))
    assert outcome(accy.compile(fn_b, *arrays_b, cache=cache)) == reference
    assert cache.hits == 0 and cache.misses == 2


# ---- the bound, and a folder that cannot be written ----------------------------------------

def test_the_least_recently_used_entries_go_first(cache):
    for i in range(4):
        fn, arrays = graph(i)
        accy.compile(fn, *arrays, cache=cache)
    entries = _entries(cache.path, "executables") + _entries(cache.path, "kernels")
    for age, entry in enumerate(sorted(entries)):        # every entry days old
        os.utime(entry, ns=(10**18 + age * 10**9,) * 2)
    fn, arrays = graph(0)
    accy.compile(fn, *arrays, cache=cache)              # a hit: graph 0 used now
    key_0 = key_of(fn, arrays).digest()
    size = os.path.getsize(os.path.join(cache.path, "executables", key_0[:2], key_0 + ".accy"))
    assert cache.prune(size) == (len(entries) - 1, size)
    assert [os.path.basename(e) for e in _entries(cache.path, "executables")] == \
        [key_0 + ".accy"]


def test_a_bound_of_a_few_entries_holds(tmp_path):
    small = Cache(tmp_path / "small", max_bytes=40 << 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        for i in range(0, 60, 3):
            fn, arrays = graph(i)
            assert outcome(accy.compile(fn, *arrays, cache=small)) == \
                outcome(accy.compile(fn, *arrays, cache=False))
    info = small.info()
    assert small.evictions > 0 and 0 < info.bytes <= small.max_bytes
    assert counted_state(small.path)["bytes"] == info.bytes


def test_a_bound_smaller_than_any_entry_stores_nothing_and_warns_once(tmp_path):
    tiny = Cache(tmp_path / "tiny", max_bytes=64)
    with pytest.warns(CacheWarning, match="at most 64 bytes") as caught:
        for i in range(3):
            fn, arrays = graph(i)
            assert outcome(accy.compile(fn, *arrays, cache=tiny)) == \
                outcome(accy.compile(fn, *arrays, cache=False))
    assert len(caught) == 1 and tiny.misses == 3 and tiny.info().bytes == 0


def test_a_folder_that_cannot_be_created_compiles_without_it(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    nowhere = Cache(tmp_path / "file" / "cache")
    with pytest.warns(CacheWarning, match="cannot be written") as caught:
        for i in range(3):
            fn, arrays = graph(i)
            assert outcome(accy.compile(fn, *arrays, cache=nowhere)) == \
                outcome(accy.compile(fn, *arrays, cache=False))
    assert len(caught) == 1 and nowhere.misses == 3


def test_a_symbolic_link_in_the_folder_is_not_followed_to_write(cache, tmp_path):
    fn, arrays = graph(8)
    shard = key_of(fn, arrays).digest()[:2]
    outside = tmp_path / "outside"
    outside.mkdir()
    os.makedirs(os.path.join(cache.path, "executables"))
    os.symlink(outside, os.path.join(cache.path, "executables", shard))
    with pytest.warns(CacheWarning, match="symbolic link"):
        assert outcome(accy.compile(fn, *arrays, cache=cache)) == \
            outcome(accy.compile(fn, *arrays, cache=False))
    assert os.listdir(outside) == []


@pytest.mark.parametrize("error", [30, 28])             # EROFS, ENOSPC
def test_a_read_only_or_full_folder_still_serves_its_entries(cache, monkeypatch, error):
    fn, arrays = graph(5)
    accy.compile(fn, *arrays, cache=cache)

    def refuse(*args, **kwargs):
        raise OSError(error, os.strerror(error))
    monkeypatch.setattr(cache_module, "_create", refuse)
    reader = Cache(cache.path)
    with pytest.warns(CacheWarning, match="cannot be written") as caught:
        assert outcome(accy.compile(fn, *arrays, cache=reader)) == \
            outcome(accy.compile(fn, *arrays, cache=False))
        for i in (6, 7):
            other, other_arrays = graph(i)
            accy.compile(other, *other_arrays, cache=reader)
    assert len(caught) == 1 and (reader.hits, reader.misses) == (1, 2)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a folder whatever its mode: "
                    "the two tests above cover a folder that cannot be written")
def test_a_folder_without_write_permission_still_serves_its_entries(cache):
    fn, arrays = graph(5)
    accy.compile(fn, *arrays, cache=cache)
    for root, folders, _ in os.walk(cache.path):
        for name in folders:
            os.chmod(os.path.join(root, name), 0o555)
    os.chmod(cache.path, 0o555)
    try:
        reader = Cache(cache.path)
        with pytest.warns(CacheWarning):
            accy.compile(fn, *arrays, cache=reader)
            other, other_arrays = graph(6)
            accy.compile(other, *other_arrays, cache=reader)
        assert (reader.hits, reader.misses) == (1, 1)
    finally:
        for root, folders, _ in os.walk(cache.path):
            os.chmod(root, 0o755)


# ---- the default cache, the argument, the command ------------------------------------------

def test_the_default_cache_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCY_CACHE", "1")
    monkeypatch.setenv("ACCY_CACHE_DIR", str(tmp_path / "default"))
    monkeypatch.delenv("ACCY_CACHE_MAX_BYTES", raising=False)
    accy.compile(add_one, X)
    default = cache_for(None)
    assert default is cache_for(None) and default.path == str(tmp_path / "default")
    assert default.info().executables == 1 and default.max_bytes == cache_module.DEFAULT_MAX_BYTES
    monkeypatch.setenv("ACCY_CACHE_MAX_BYTES", "12345")
    assert cache_for(None).max_bytes == 12345
    monkeypatch.setenv("ACCY_CACHE", "0")
    assert cache_for(None) is None
    accy.compile(lambda x: x * 5, X)
    assert default.info().executables == 1
    for name, value in (("ACCY_CACHE", "yes"), ("ACCY_CACHE_MAX_BYTES", "1 GiB")):
        monkeypatch.setenv("ACCY_CACHE", "1")
        monkeypatch.setenv(name, value)
        with pytest.raises(CacheError, match=name):
            accy.compile(add_one, X)


def test_the_cache_argument(tmp_path):
    assert cache_for(False) is None
    assert cache_for(str(tmp_path / "a")) is cache_for(tmp_path / "a")
    with pytest.raises(accy.TypeError, match="cache must be"):
        accy.compile(add_one, X, cache=1)
    with pytest.raises(CacheError, match="max_bytes"):
        Cache(tmp_path, max_bytes=0)
    import pickle
    again = pickle.loads(pickle.dumps(Cache(tmp_path / "b", max_bytes=4096)))
    assert (again.path, again.max_bytes, again.hits) == (str(tmp_path / "b"), 4096, 0)


def test_accy_cache_info_prune_and_clear(tmp_path, capsys):
    folder = Cache(tmp_path / "cli")
    for i in range(3):
        fn, arrays = graph(i)
        accy.compile(fn, *arrays, cache=folder)
    total = folder.info().bytes
    assert main(["cache", "info", "--dir", folder.path]) == 0
    assert f"3 executables, " in capsys.readouterr().out
    assert main(["cache", "prune", "--max-bytes", str(total // 2), "--dir", folder.path]) == 0
    out = capsys.readouterr().out
    left = folder.info().bytes
    assert left <= total // 2 and f"{left} bytes left" in out
    assert main(["cache", "clear", "--dir", folder.path]) == 0
    assert "removed" in capsys.readouterr().out and folder.info().bytes == 0
    assert main(["cache", "prune", "--max-bytes", "0", "--dir", folder.path]) == 1
    assert "max_bytes must be a positive" in capsys.readouterr().err


def test_a_process_whose_files_changed_since_import_shares_no_entries(monkeypatch):
    """A long-lived process whose accy was upgraded under it runs the old code: its digest is
    its own, never the new files' (which would file old output under the new build's key)."""
    from accy import cache as module
    module.source_digest.cache_clear()
    monkeypatch.setattr(module, "_IMPORTED_STATS", {})
    try:
        with pytest.warns(module.CacheWarning, match="changed since this process imported"):
            first = module.source_digest()
        module.source_digest.cache_clear()
        with pytest.warns(module.CacheWarning):
            assert module.source_digest() != first
        assert first.startswith("changed-since-import-")
    finally:
        module.source_digest.cache_clear()


def test_a_lock_held_too_long_stops_stores_for_a_while(tmp_path, monkeypatch, rng):
    """A writer that cannot take the folder's lock in time compiles without storing, warns
    once, and does not wait on the lock again for LOCK_BACKOFF_S (a stuck holder would make
    every miss wait LOCK_TIMEOUT_S)."""
    monkeypatch.setattr(cache_module, "LOCK_TIMEOUT_S", 0.05)
    cache = Cache(tmp_path)
    held = cache_module._FOLDER_LOCKS.setdefault(os.path.realpath(cache.path),
                                                 cache_module.threading.Lock())
    waits = []
    real = Cache._under_lock
    monkeypatch.setattr(Cache, "_under_lock", lambda self, work, timeout=0.05: (
        waits.append(timeout), real(self, work, timeout))[1])
    x = rng.standard_normal(32).astype(np.float32)
    assert held.acquire(timeout=5)
    try:
        with pytest.warns(CacheWarning, match="lock was held"):
            accy.compile(lambda t: t * 5.0, x, cache=cache)
        first = len(waits)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            accy.compile(lambda t: t - 5.0, x, cache=cache)
        assert first >= 1 and len(waits) == first     # no second wait on the lock
    finally:
        held.release()
    assert cache.info().executables == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_while_a_lock_is_held_does_not_wait_for_it(tmp_path, rng):
    """A fork while another thread holds the folder's thread lock and the Cache's counter
    lock: the child's compile stores and counts with locks of its own, never hangs."""
    cache = Cache(tmp_path)
    folder = cache_module._FOLDER_LOCKS.setdefault(os.path.realpath(cache.path),
                                                   cache_module.threading.Lock())
    x = rng.standard_normal(32).astype(np.float32)
    with folder, cache._guard:
        pid = os.fork()
        if pid == 0:            # the child: exit 0 only when its compile stored the entry
            code = 1
            try:
                accy.compile(lambda t: t * 7.0, x, cache=cache)
                code = 0 if cache.info().executables == 1 else 2
            finally:
                os._exit(code)
    deadline = 60
    import time
    while deadline > 0:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
        deadline -= 0.1
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child waited on a lock its parent's thread held")
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
