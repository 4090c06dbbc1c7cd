"""Shared by the emulator tests: the CUDA test kernels (tests/emulator_kernels/*.cu) compiled
once per session with `nvcc -arch=sm_90 -ptx` (the `ptx` fixture, in conftest.py), and `load`."""
import shutil
from pathlib import Path

import pytest

from accy.runtime.emulator import Emulator

from child_process import run_bounded

KERNELS = Path(__file__).parent / "emulator_kernels"


def compile_kernels(out):
    """PTX text of every tests/emulator_kernels/*.cu by stem, compiled into `out` (one nvcc at
    a time, each bounded by its CPU time: a few seconds in all); skips the test if nvcc is
    missing."""
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH: the CUDA toolkit is needed to compile the test kernels")
    texts = {}
    for cu in sorted(KERNELS.glob("*.cu")):
        target = out / f"{cu.stem}.ptx"
        done = run_bounded(["nvcc", "-arch=sm_90", "-ptx", str(cu), "-o", str(target)],
                           capture_output=True, text=True)
        assert done.returncode == 0, f"nvcc failed on {cu.name}:\n{done.stderr}"
        texts[cu.stem] = target.read_text()
    return texts


def load(ptx, module, kernel):
    """(a fresh device, the kernel) from the PTX of tests/emulator_kernels/<module>.cu."""
    dev = Emulator()
    return dev, dev.module_from_buffer(ptx[module]).get_function(kernel)
