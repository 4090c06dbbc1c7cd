"""ptxas, NVIDIA's PTX assembler: finding it, assembling a whole PTX module into a cubin in one
call (ptxas costs ~25 ms per call, whatever the number of kernels), and reading the resource
usage `ptxas -v` prints for each kernel (registers, spills, stack, shared memory).

    ptxas = find_ptxas()                     # None when it is not installed
    out = assemble(ptx, "sm_90")             # Assembled: cubin bytes, resources by kernel name
    out.resources["main$k0$elementwise"].registers

ptxas is looked up in the absolute folders of PATH, then in an installed `nvidia-cuda-nvcc`
wheel (`pip install --no-deps nvidia-cuda-nvcc`), which ships the same binary. Nothing found
through the current folder runs: relative and empty PATH entries are skipped (a shell reads
them as the current folder), and the wheel is found by its installed metadata in this Python's
site-packages folders, not through sys.path (whose '' or script folder may be the current one).
The wheel lookup reads every installed distribution's metadata, so its answer is kept for the
process (per set of site folders); the PATH search runs on every call, so a changed PATH is seen.
`assemble` raises PtxasError when ptxas is missing, rejects the module (with ptxas's own
messages) or runs past its time limit: ACCY_PTXAS_TIMEOUT seconds (at most MAX_TIMEOUT_S),
DEFAULT_TIMEOUT_S when unset. ptxas runs in its own process group, which is killed when the
limit passes or when anything interrupts the wait (Ctrl-C included); its output goes to a file,
not a pipe, so a process that left the group and still holds that output cannot keep accy
waiting. (POSIX only: process groups and killpg.)
"""
import functools
import importlib.metadata
import math
import os
import re
import shutil
import signal
import site
import subprocess
import sysconfig
import tempfile
import time
from dataclasses import dataclass

from accy.errors import AccyError


class PtxasError(AccyError):
    """ptxas is not installed, or it rejected a PTX module."""


DEFAULT_TIMEOUT_S = 300
MAX_TIMEOUT_S = 1_000_000       # about 11.6 days; waits past 2**31 ms overflow the OS's timers
TIMEOUT_VARIABLE = "ACCY_PTXAS_TIMEOUT"


def find_ptxas():
    """The absolute path of a ptxas executable, or None: PATH's absolute folders first, then
    the nvidia-cuda-nvcc wheel."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if os.path.isabs(folder):
            found = shutil.which("ptxas", path=folder)
            if found:
                return found
    return _wheel_ptxas(tuple(_site_folders()))


def _site_folders():
    """The folders pip installs this Python's packages into (absolute paths)."""
    paths = sysconfig.get_paths()
    folders = [*site.getsitepackages(), paths["purelib"], paths["platlib"]]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [f for f in dict.fromkeys(folders) if os.path.isabs(f) and os.path.isdir(f)]


@functools.lru_cache(maxsize=None)
def _wheel_ptxas(folders):
    """bin/ptxas of an nvidia-cuda-nvcc distribution (any CUDA major) installed in `folders`,
    from its RECORD, or None."""
    for dist in importlib.metadata.distributions(path=list(folders)):
        if not (dist.metadata["Name"] or "").lower().replace("_", "-").startswith(
                "nvidia-cuda-nvcc"):
            continue
        for file in dist.files or ():
            if file.name == "ptxas" and file.parent.name == "bin":
                path = os.path.abspath(dist.locate_file(file))
                if os.access(path, os.X_OK):
                    return path
    return None


def ptxas_timeout():
    """Seconds a ptxas call may run: ACCY_PTXAS_TIMEOUT (a positive number, at most
    MAX_TIMEOUT_S), else DEFAULT_TIMEOUT_S."""
    text = os.environ.get(TIMEOUT_VARIABLE)
    if text is None:
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT_S):
        raise PtxasError(f"{TIMEOUT_VARIABLE} must be a positive number of seconds, at most "
                         f"{MAX_TIMEOUT_S}, got {text!r}")
    return seconds


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


def assemble(ptx, arch, ptxas=None, timeout=None):
    """`ptx` (one module, any number of kernels) assembled for `arch` by one ptxas call, which
    may run `timeout` seconds (default: `ptxas_timeout()`)."""
    timeout = timeout if timeout is not None else ptxas_timeout()
    ptxas = ptxas or find_ptxas()
    if ptxas is None:
        raise PtxasError("the cubin artifact needs ptxas, which is not installed (install the "
                         "CUDA toolkit, or `pip install --no-deps nvidia-cuda-nvcc`)")
    with tempfile.TemporaryDirectory(prefix="accy-ptxas-") as folder:
        source, target = os.path.join(folder, "module.ptx"), os.path.join(folder, "module.cubin")
        with open(source, "w", encoding="utf-8") as f:
            f.write(ptx)
        t0 = time.perf_counter()
        returncode, log = _run([ptxas, f"-arch={arch}", "-v", source, "-o", target], timeout,
                               os.path.join(folder, "log.txt"))
        ms = (time.perf_counter() - t0) * 1e3
        if returncode != 0:
            raise PtxasError(f"ptxas -arch={arch} rejects the PTX module (exit "
                             f"{returncode}):\n{log}")
        try:
            with open(target, "rb") as f:
                cubin = f.read()
        except OSError:
            cubin = b""
    if not cubin.startswith(b"\x7fELF"):
        raise PtxasError(f"ptxas -arch={arch} wrote no cubin (an ELF file):\n{log}")
    return Assembled(cubin, parse_resources(log), ms, log)


def _run(command, timeout, log_path):
    """(exit status, stdout + stderr) of ptxas, whose output goes to the file `log_path`;
    PtxasError when it cannot start or runs past `timeout` seconds. When the wait ends in any
    other way (KeyboardInterrupt included) its process group is killed too, then the exception
    goes on."""
    with open(log_path, "w+b") as log:
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as e:
            raise PtxasError(f"ptxas ({command[0]}) could not be run: {e}") from None
        try:
            process.wait(timeout)
        except BaseException as e:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:      # the group has already ended
                pass
            process.wait()
            if not isinstance(e, subprocess.TimeoutExpired):
                raise
            raise PtxasError(f"ptxas ({command[0]}) did not finish within {timeout:g} s and "
                             f"was stopped; set {TIMEOUT_VARIABLE} to allow it more seconds "
                             f"(at most {MAX_TIMEOUT_S})") from None
        log.seek(0)
        return process.returncode, log.read().decode("utf-8", "replace").strip()
