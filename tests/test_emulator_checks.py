"""What the emulator reports instead of running on: shared-memory races a missing barrier leaves
(invisible in lockstep execution, so found by tracking the last warp to touch each address
between barriers), barriers some threads skip, arguments that do not match the parameters,
launches beyond CUDA's limits, and kernels that never finish. The correct versions run clean."""
import numpy as np
import pytest

from accy.runtime.emulator import KernelFault, PtxError
from emulator_helpers import load


def _run(ptx, name, *args, block=(64, 1, 1), grid=(1, 1, 1)):
    dev, fn = load(ptx, "checks", name)
    pointers = [dev.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    fn(*pointers, block=block, grid=grid)
    return dev, pointers


def test_tree_sum_with_barriers_runs_and_without_them_is_a_race(ptx, rng):
    x = rng.standard_normal(512).astype(np.float32)
    dev, (px, po, _) = _run(ptx, "tree_sum", x, np.zeros(2, np.float32), np.int32(1),
                            block=(256, 1, 1), grid=(2, 1, 1))
    got = dev.from_device(po, 2, np.float32)
    assert np.allclose(got, x.reshape(2, 256).astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    with pytest.raises(KernelFault, match=r"kernel tree_sum, line \d+ .*race on shared memory.*"
                                          r"warp \d+ after warp \d+ wrote it"):
        _run(ptx, "tree_sum", x, np.zeros(2, np.float32), np.int32(0), block=(256, 1, 1),
             grid=(2, 1, 1))


@pytest.mark.parametrize("name", ["mirror", "overwrite_in_loop"])
def test_cross_warp_races_are_reported(ptx, rng, name):
    x = rng.standard_normal(192).astype(np.float32)
    args = (np.zeros(64, np.float32),) if name == "mirror" else (x, np.zeros(64, np.float32))
    _run(ptx, name, *args, np.int32(1))                     # with the barrier: clean
    with pytest.raises(KernelFault, match=f"kernel {name}, line .*race on shared memory"):
        _run(ptx, name, *args, np.int32(0))


def test_a_barrier_that_half_the_block_skips_is_a_deadlock(ptx):
    with pytest.raises(KernelFault, match=r"deadlock: the barrier is reached by only part of "
                                          r"block 0; thread 32"):
        _run(ptx, "guarded_barrier", np.zeros(64, np.float32))


def test_struct_parameters_pass_as_bytes(ptx, rng):
    x = rng.standard_normal(100).astype(np.float32)
    params = np.array([(1.5, -3, 0.0)], dtype=[("scale", "<f4"), ("shift", "<i4"),
                                               ("unused", "<f8")])
    dev, (px, py, *_) = _run(ptx, "affine", x, np.zeros(100, np.float32), params.tobytes(),
                             np.int32(100), block=(128, 1, 1))
    fused = (x.astype(np.float64) * 1.5 - 3).astype(np.float32)     # nvcc contracts to fma
    assert np.array_equal(dev.from_device(py, 100, np.float32), fused)


@pytest.mark.parametrize("bad", [np.float64(1.0), 100, b"\0" * 8])
def test_arguments_must_match_the_parameters(ptx, bad):
    dev, fn = load(ptx, "checks", "tree_sum")
    x, out = dev.to_device(np.ones(256, np.float32)), dev.mem_alloc(4)
    with pytest.raises(KernelFault, match="parameter 2"):
        fn(x, out, bad, block=(256, 1, 1))


@pytest.mark.parametrize("launch", [dict(grid=(1, 70000, 1)), dict(block=(1, 1, 128)),
                                    dict(block=(32, 33, 1)), dict(shared=1 << 20)])
def test_launches_beyond_cuda_limits_are_refused(ptx, launch):
    dev, fn = load(ptx, "checks", "mirror")
    with pytest.raises(KernelFault):
        fn(dev.mem_alloc(4 * 64), np.int32(1), **launch)


def test_a_kernel_that_never_finishes_is_stopped(ptx):
    dev, fn = load(ptx, "checks", "spin")
    flag = dev.to_device(np.zeros(1, np.int32))
    with pytest.raises(KernelFault, match="endless loop.*Now at line"):
        fn(flag, block=(32, 1, 1), time_limit=0.5)


def test_lineinfo_output_loads(ptx, tmp_path):
    import shutil
    import subprocess
    from pathlib import Path
    src = Path(__file__).parent / "emulator_kernels" / "checks.cu"
    out = tmp_path / "k.ptx"
    subprocess.run([shutil.which("nvcc"), "-arch=sm_90", "-ptx", "-lineinfo", str(src), "-o",
                    str(out)], check=True, capture_output=True)
    from accy.runtime.emulator import Emulator
    dev = Emulator()
    module = dev.module_from_buffer(out.read_text())
    y = dev.mem_alloc(4 * 64)
    module.get_function("mirror")(y, np.int32(1), block=(64, 1, 1))
    assert np.array_equal(dev.from_device(y, 64, np.float32), np.arange(63, -1, -1))


def test_undeclared_registers_are_load_errors():
    from accy.runtime.emulator import Emulator
    text = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
            "  .reg .b32 %r<2>;\n  mov.u32 %r9, 1;\n  ret;\n}\n")
    with pytest.raises(PtxError, match=r"line 7: undeclared register %r9"):
        Emulator().module_from_buffer(text)


def test_reading_past_a_parameter_is_an_error():
    from accy.runtime.emulator import Emulator
    text = (".version 8.0\n.target sm_90\n.address_size 64\n"
            ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<2>;\n"
            "  ld.param.u32 %r1, [out+8];\n  ret;\n}\n")
    dev = Emulator()
    with pytest.raises(KernelFault, match=r"line 7: ld.param of 4 bytes at offset 8 of a 8-byte"):
        dev.module_from_buffer(text).get_function("k")(dev.mem_alloc(4))
