"""ptxas, NVIDIA's PTX assembler: finding it, assembling a whole PTX module into a cubin in one
call (ptxas costs ~25 ms per call, whatever the number of kernels), and reading the resource
usage `ptxas -v` prints for each kernel (registers, spills, stack, shared memory).

    ptxas = find_ptxas()                     # None when it is not installed
    out = assemble(ptx, "sm_90")             # Assembled: cubin bytes, resources by kernel name
    out.resources["main$k0$elementwise"].registers

ptxas is looked up on PATH, then in the `nvidia-cuda-nvcc` wheel (`pip install --no-deps
nvidia-cuda-nvcc`), which ships the same binary. `assemble` raises PtxasError when ptxas is
missing or rejects the module (with ptxas's own messages).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from accy.errors import AccyError


class PtxasError(AccyError):
    """ptxas is not installed, or it rejected a PTX module."""


def find_ptxas():
    """The path of a ptxas executable, or None: PATH first, then the nvidia-cuda-nvcc wheel."""
    found = shutil.which("ptxas")
    if found:
        return found
    for site in sys.path:
        for path in sorted(glob.glob(os.path.join(site, "nvidia", "cu*", "bin", "ptxas")) +
                           glob.glob(os.path.join(site, "nvidia", "cuda_nvcc", "bin", "ptxas"))):
            if os.access(path, os.X_OK):
                return path
    return None


@dataclass(frozen=True)
class KernelResources:
    """What `ptxas -v` reports for one kernel (bytes for the last four)."""
    registers: int
    spill_stores: int
    spill_loads: int
    stack: int
    shared: int


@dataclass(frozen=True)
class Assembled:
    cubin: bytes
    resources: dict         # kernel name -> KernelResources
    ms: float               # the ptxas call's wall time
    log: str                # ptxas's -v output


_ENTRY = re.compile(r"(?:Compiling entry function|Function properties for) '?([^'\s]+)'?")
_NUMBERS = {"registers": re.compile(r"Used (\d+) registers"),
            "spill_stores": re.compile(r"(\d+) bytes spill stores"),
            "spill_loads": re.compile(r"(\d+) bytes spill loads"),
            "stack": re.compile(r"(\d+) bytes stack frame"),
            "shared": re.compile(r"(\d+) bytes smem")}


def parse_resources(log):
    """{kernel name: KernelResources} from `ptxas -v` output."""
    fields, current = {}, None
    for line in log.splitlines():
        m = _ENTRY.search(line)
        if m:
            current = fields.setdefault(m.group(1), dict.fromkeys(_NUMBERS, 0))
            continue
        if current is None:
            continue
        for key, pattern in _NUMBERS.items():
            found = pattern.search(line)
            if found:
                current[key] = int(found.group(1))
    return {name: KernelResources(**values) for name, values in fields.items()}


def assemble(ptx, arch, ptxas=None):
    """`ptx` (one module, any number of kernels) assembled for `arch` by one ptxas call."""
    ptxas = ptxas or find_ptxas()
    if ptxas is None:
        raise PtxasError("the cubin artifact needs ptxas, which is not installed (install the "
                         "CUDA toolkit, or `pip install --no-deps nvidia-cuda-nvcc`)")
    with tempfile.TemporaryDirectory(prefix="accy-ptxas-") as folder:
        source, target = os.path.join(folder, "module.ptx"), os.path.join(folder, "module.cubin")
        with open(source, "w", encoding="utf-8") as f:
            f.write(ptx)
        t0 = time.perf_counter()
        try:
            done = subprocess.run([ptxas, f"-arch={arch}", "-v", source, "-o", target],
                                  capture_output=True, text=True)
        except OSError as e:
            raise PtxasError(f"ptxas ({ptxas}) could not be run: {e}") from None
        ms = (time.perf_counter() - t0) * 1e3
        log = (done.stdout + done.stderr).strip()
        if done.returncode != 0:
            raise PtxasError(f"ptxas -arch={arch} rejects the PTX module (exit "
                             f"{done.returncode}):\n{log}")
        try:
            with open(target, "rb") as f:
                cubin = f.read()
        except OSError:
            cubin = b""
    if not cubin.startswith(b"\x7fELF"):
        raise PtxasError(f"ptxas -arch={arch} wrote no cubin (an ELF file):\n{log}")
    return Assembled(cubin, parse_resources(log), ms, log)
