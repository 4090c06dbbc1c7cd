"""Shared fixtures and hooks: the `test` dialect of ir_helpers (registered once per session), a
Context, Module and Builder (`ctx`, `module`, `builder`), a random generator (`rng`), ptxas
(`ptxas`), the CUDA test kernels' PTX (`ptx`), and skipping `gpu` tests without a GPU."""
import os
import shutil
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from accy.ir import Builder, Context, Module, register_dialect

from ir_helpers import TEST_ROWS
from ptxas_check import assemble

# every kernel the tests compile is verified (kernelization skips it outside tests and
# debugging: accy.lowering.kernelize.verify_kernels)
os.environ["ACCY_VERIFY_KERNELS"] = "1"

# no compile cache unless a test asks for one (tests/test_cache.py passes its own Cache): a test
# of a compile stage, or one that patches a lowering, must see that stage run, and a hit would
# hide it (the key's source digest is read once per process, so it does not see a patch). The
# default folder is one of the session's (made only if a test uses it, removed at the end), so
# that nothing, child processes included (they inherit both, and keep the folder when they
# import this file), touches the user's ~/.cache/accy.
SESSION_PREFIX = os.path.join(tempfile.gettempdir(), "accy-test-cache-")
os.environ["ACCY_CACHE"] = "0"
if not os.environ.get("ACCY_CACHE_DIR", "").startswith(SESSION_PREFIX):
    os.environ["ACCY_CACHE_DIR"] = f"{SESSION_PREFIX}{os.getpid()}"
SESSION_CACHE = os.environ["ACCY_CACHE_DIR"]

# property tests are bounded by their example counts, not by the clock: no deadline per example
# and no health check on slow generation (a loaded machine is slower, not wrong)
settings.register_profile("accy", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("accy")


@pytest.fixture(scope="session", autouse=True)
def session_cache_folder():
    """The session's default cache folder (named above), removed at the end if made."""
    yield SESSION_CACHE
    shutil.rmtree(SESSION_CACHE, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def test_dialect():
    """Register the `test` dialect once for the whole session."""
    register_dialect("test", TEST_ROWS)
    return TEST_ROWS


@pytest.fixture
def ctx():
    return Context()


@pytest.fixture
def module(ctx):
    return Module.create(ctx)


@pytest.fixture
def builder(ctx, module):
    return Builder(ctx).at_end(module.body)


@pytest.fixture(scope="session")
def ptx(tmp_path_factory):
    """PTX of the CUDA test kernels (tests/emulator_kernels/*.cu), compiled once per session."""
    from emulator_helpers import compile_kernels
    return compile_kernels(tmp_path_factory.mktemp("nvcc_ptx"))


@pytest.fixture
def rng():
    """A fresh generator; its seed is printed, so that a failing test's output gives it."""
    seed = np.random.SeedSequence().entropy
    print(f"rng seed: {seed}")
    return np.random.default_rng(seed)


@pytest.fixture(scope="session")
def ptxas():
    """assemble(text): ptxas for sm_80 and sm_90, no errors, warnings or spills (ptxas_check)."""
    return assemble


def pytest_collection_modifyitems(config, items):
    """Tests marked `gpu` need a usable CUDA device (PyCUDA, a driver and a GPU): without one
    they are skipped, with the reason `open_device("cuda")` gives."""
    gpu = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu:
        return
    from accy.runtime.devices import DeviceUnavailable, open_device
    try:
        open_device("cuda")
    except DeviceUnavailable as e:
        skip = pytest.mark.skip(reason=f"no usable CUDA device: {e}")
        for item in gpu:
            item.add_marker(skip)
