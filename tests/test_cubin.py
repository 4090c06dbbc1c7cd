"""The cubin artifact (target artifact_format = "cubin"): one ptxas call assembles every kernel
of the module, the bytes are an ELF file kept on the Executable, a GPU loads them instead of
the PTX, `accy compile --cubin` writes them; a missing or failing ptxas is a clear error; the
report shows registers and spills from `ptxas -v`. Also the PyCUDA device's host copies
(bf16 included) and cubin arch check, on a stand-in driver."""
import os
import stat

import ml_dtypes
import numpy as np
import pytest

import accy
import accy.ops as ops
from accy import compiler
from accy.lowering import ptxas as ptxas_module
from accy.lowering.ptxas import PtxasError, find_ptxas, parse_resources
from accy.runtime import devices
from accy.runtime.devices import DeviceUnavailable, _PyCudaDevice
from accy.runtime.emulator.driver import Emulator

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas is not installed")
CUBIN = {"arch": "sm_90", "artifact_format": "cubin"}


def three_kernels(x):
    return ops.softmax(x) * 2, ops.cumsum(x, axis=1), ops.sum(x, axis=0)


@pytest.fixture
def x(rng):
    return rng.standard_normal((6, 40)).astype(np.float32)


@pytest.fixture
def ptxas_calls(monkeypatch):
    """The ptxas command lines run from now on (each is still run), counted at the one function
    that starts ptxas."""
    calls, real = [], ptxas_module._run

    def run(cmd, *args, **kwargs):
        calls.append(cmd)
        return real(cmd, *args, **kwargs)
    monkeypatch.setattr(ptxas_module, "_run", run)
    return calls


@needs_ptxas
def test_one_ptxas_call_assembles_every_kernel(x, ptxas_calls):
    exe = accy.compile(three_kernels, x, target=CUBIN)
    assert len(exe.kernels) == 3 and len(ptxas_calls) == 1
    assert "-arch=sm_90" in ptxas_calls[0] and "-v" in ptxas_calls[0]
    assert exe.cubin.startswith(b"\x7fELF") and len(exe.cubin) > 1000
    assert set(exe.resources()) == {k.name for k in exe.kernels}
    report = exe.report()
    assert len(ptxas_calls) == 1            # the report reuses the call that made the cubin
    assert f"cubin {len(exe.cubin)} bytes" in report and "ptxas" in report.splitlines()[-1]


@needs_ptxas
def test_the_default_target_makes_no_cubin_and_the_report_runs_ptxas_once(x, ptxas_calls):
    exe = accy.compile(three_kernels, x)
    assert exe.cubin is None and not ptxas_calls
    report = exe.report()
    exe.report()
    assert len(ptxas_calls) == 1
    lines = [line for line in report.splitlines() if line.startswith("  kernel")]
    assert len(lines) == 3 and all("registers, spills 0/0 bytes stored/loaded" in line
                                   for line in lines), report


def test_without_ptxas_the_cubin_is_a_clear_error(x, monkeypatch):
    monkeypatch.setattr(ptxas_module, "find_ptxas", lambda: None)
    with pytest.raises(PtxasError, match="needs ptxas, which is not installed"):
        accy.compile(three_kernels, x, target=CUBIN)
    report = accy.compile(three_kernels, x).report()
    assert "(registers and spills: ptxas is not installed)" in report


def fake_ptxas(script, monkeypatch, tmp_path):
    """accy finds a ptxas that runs `script` (a shell script's body)."""
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\n" + script)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(ptxas_module, "find_ptxas", lambda: str(fake))


def test_a_failing_ptxas_is_an_error_with_its_messages(x, monkeypatch, tmp_path):
    fake_ptxas("echo 'ptxas fatal   : Unresolved extern function' >&2\nexit 255\n",
               monkeypatch, tmp_path)
    with pytest.raises(PtxasError, match="(?s)rejects the PTX module.*Unresolved extern"):
        accy.compile(three_kernels, x, target=CUBIN)


def test_a_ptxas_that_writes_no_cubin_is_an_error(x, monkeypatch, tmp_path):
    fake_ptxas("exit 0\n", monkeypatch, tmp_path)
    with pytest.raises(PtxasError, match="wrote no cubin"):
        accy.compile(three_kernels, x, target=CUBIN)


def test_resources_are_read_from_ptxas_v():
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'main$k1$scan' for 'sm_90'
ptxas info    : Function properties for main$k1$scan
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 512 bytes smem, 380 bytes cmem[0]
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
"""
    r = parse_resources(log)
    assert (r["main$k1$scan"].registers, r["main$k1$scan"].spill_stores,
            r["main$k1$scan"].spill_loads, r["main$k1$scan"].stack,
            r["main$k1$scan"].shared) == (255, 8, 4, 16, 512)
    assert r["k2"].registers == 8 and r["k2"].spill_stores == 0


class _CubinDevice(Emulator):
    """The emulator, claiming to run cubins: records what each module was loaded from, and
    runs the PTX in their place."""

    def __init__(self, ptx):
        super().__init__()
        self.ptx, self.images = ptx, []

    def runs_cubin(self, arch):
        return arch == "sm_90"

    def module_from_buffer(self, image):
        self.images.append(image)
        return super().module_from_buffer(self.ptx if isinstance(image, bytes) else image)


@needs_ptxas
def test_a_device_that_runs_the_arch_loads_the_cubin(x):
    exe = accy.compile(three_kernels, x, target=CUBIN)
    device = _CubinDevice(exe.ptx)
    exe.loaded(device)
    assert device.images == [exe.cubin]
    plain = Emulator()                  # no runs_cubin: the PTX
    assert exe.loaded(plain)
    other = accy.compile(three_kernels, x, target={"arch": "sm_80", "artifact_format": "cubin"})
    device = _CubinDevice(other.ptx)
    other.loaded(device)
    assert device.images == [other.ptx]     # a cubin for another arch is not loaded


@needs_ptxas
def test_compile_command_writes_the_cubin(tmp_path):
    from accy.__main__ import main
    assert main(["compile", "accy.examples.transformer:block", "--cubin", "-o",
                 str(tmp_path)]) == 0
    cubin = (tmp_path / "block.cubin").read_bytes()
    assert cubin.startswith(b"\x7fELF")
    assert accy.load(tmp_path / "block.accy").cubin == cubin
    report = (tmp_path / "block.report.txt").read_text()
    assert "registers" in report and "ptxas" in report
    assert main(["compile", "accy.examples.transformer:block", "-o", str(tmp_path / "p")]) == 0
    assert sorted(os.listdir(tmp_path / "p")) == ["block.accy", "block.ptx", "block.report.txt"]
    assert accy.load(tmp_path / "p" / "block.accy").cubin is None


class _FakeDriver:
    """PyCUDA's driver as far as _PyCudaDevice uses it: copies take buffers through the buffer
    protocol (as PyCUDA does), memory is a bytearray."""

    def __init__(self, capability=(9, 0)):
        self.memory = bytearray(1024)
        test = self

        class Context:
            @staticmethod
            def get_device():
                class Device:
                    def compute_capability(self):
                        return test.capability
                return Device()
        self.Context, self.capability = Context, capability

    def memcpy_htod(self, pointer, buffer):
        data = memoryview(buffer).cast("B")
        self.memory[pointer:pointer + len(data)] = data

    def memcpy_dtoh(self, buffer, pointer):
        view = memoryview(buffer).cast("B")
        view[:] = self.memory[pointer:pointer + len(view)]

    def memset_d8(self, pointer, value, count):
        self.memory[pointer:pointer + count] = bytes([value]) * count


def test_the_cuda_device_copies_bf16_and_scalars():
    device = _PyCudaDevice(_FakeDriver())
    x = np.arange(10, dtype=np.float32).astype(ml_dtypes.bfloat16)
    device.memcpy_htod(16, x)
    back = np.empty_like(x)
    device.memcpy_dtoh(back, 16)
    assert back.tobytes() == x.tobytes()
    flag = np.zeros((), np.bool_)
    device.memcpy_htod(100, np.ones((), np.bool_))
    device.memcpy_dtoh(flag, 100)
    assert flag
    device.memset_d8(16, 0, 20)
    device.memcpy_dtoh(back, 16)
    assert not back.any()


@pytest.mark.parametrize("capability,arch,runs", [
    ((9, 0), "sm_90", True), ((9, 0), "sm_90a", True), ((9, 0), "sm_80", False),
    ((8, 6), "sm_80", True), ((8, 6), "sm_89", False), ((8, 9), "sm_86", True),
    ((10, 0), "sm_90a", False), ((10, 0), "sm_90", False),
])
def test_the_cuda_device_runs_cubins_of_its_own_major_arch(capability, arch, runs):
    assert _PyCudaDevice(_FakeDriver(capability)).runs_cubin(arch) is runs


def test_the_report_says_why_it_has_no_registers_when_ptxas_fails(x, monkeypatch, tmp_path):
    exe = accy.compile(three_kernels, x)
    fake_ptxas("echo 'ptxas fatal   : broken' >&2\nexit 1\n", monkeypatch, tmp_path)
    assert "(registers and spills: ptxas -arch=sm_90 rejects the PTX module" in exe.report()


@pytest.mark.parametrize("capability,arch", [((8, 0), "sm_80"), ((8, 7), "sm_86"),
                                             ((8, 9), "sm_89"), ((9, 0), "sm_90"),
                                             ((10, 0), "sm_90"), ((12, 0), "sm_90")])
def test_a_gpu_is_compiled_for_an_arch_it_runs(capability, arch, monkeypatch):
    """`accy.jit`, the main job and `accy run` keep the module's own target (or the default
    sm_90) where the GPU runs it, and otherwise take the GPU's arch (target_for), keeping the
    module's other target fields."""
    device = _PyCudaDevice(_FakeDriver(capability))
    assert device.arch() == arch
    monkeypatch.setattr(compiler, "open_device", lambda name: device)
    runs_default = capability >= (9, 0)
    assert compiler.target_for("cuda") == (None if runs_default else {"arch": arch})
    own = {"arch": "sm_80", "math_tier": "fast"}
    assert compiler.target_for("cuda", own) is None              # every GPU here runs sm_80
    own = {"arch": "sm_90a", "math_tier": "fast"}
    assert compiler.target_for("cuda", own) == (None if capability == (9, 0) else
                                               {"arch": arch, "math_tier": "fast"})
    assert compiler.target_for("emulator", own) is None


def test_a_gpu_older_than_every_target_is_unavailable():
    with pytest.raises(DeviceUnavailable, match="compute capability 7.5"):
        _PyCudaDevice(_FakeDriver((7, 5))).arch()


@pytest.mark.parametrize("capability,arch,runs", [
    ((8, 0), "sm_90", False), ((9, 0), "sm_80", True), ((8, 6), "sm_89", False),
    ((9, 0), "sm_90a", True), ((10, 0), "sm_90a", False), ((10, 0), "sm_90", True),
])
def test_ptx_loads_on_gpus_at_least_its_arch(capability, arch, runs):
    assert _PyCudaDevice(_FakeDriver(capability)).runs_ptx(arch) is runs


def test_ptx_for_a_newer_arch_than_the_gpu_is_a_clear_error(x):
    exe = accy.compile(three_kernels, x, target="sm_90")
    with pytest.raises(DeviceUnavailable, match="compiled for sm_90.*target='sm_80'"):
        exe.loaded(_PyCudaDevice(_FakeDriver((8, 0))))
