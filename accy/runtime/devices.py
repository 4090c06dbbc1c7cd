"""The devices an Executable runs on, behind one PyCUDA-shaped interface (`mem_alloc`,
`memcpy_htod`, `memcpy_dtoh`, `module_from_buffer(ptx).get_function(name)`, launches with
`block=`, `grid=`, `shared=`): the CPU emulator of `accy.runtime.emulator`, and a GPU through
PyCUDA (the optional `[cuda]` extra, imported only when asked for), which also loads cubins
(`runs_cubin(arch)` says which) and zeroes memory in place (`memset_d8`). A launch asking for
more than 48 KB of dynamic shared memory (`shared=`) opts its function in first, as CUDA
requires; the emulator takes up to 227 KB without one.

    device = open_device("emulator")        # or "cuda"
"""
import atexit

import numpy as np

from accy.errors import AccyError
from accy.passes.target import ARCHS

DEVICES = ("cuda", "emulator", "reference")


class DeviceUnavailable(AccyError):
    """The device asked for is not there: PyCUDA, the NVIDIA driver or a GPU is missing."""


def open_device(name):
    """A device object for `name` ("cuda" or "emulator")."""
    if name == "emulator":
        from accy.runtime.emulator.driver import Emulator
        return Emulator()
    if name == "cuda":
        return _cuda()
    raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {name!r}")


def cuda_available():
    """Whether `open_device("cuda")` would work here."""
    try:
        _cuda()
    except DeviceUnavailable:
        return False
    return True


def best_device():
    return "cuda" if cuda_available() else "emulator"


_CUDA = None
_CUDA_ERROR = None          # why the GPU could not be opened, kept: asking again is costly


def _cuda():
    global _CUDA, _CUDA_ERROR
    if _CUDA is not None:
        return _CUDA
    if _CUDA_ERROR is not None:
        raise DeviceUnavailable(_CUDA_ERROR)
    try:
        _CUDA = _open_cuda()
    except DeviceUnavailable as e:
        _CUDA_ERROR = str(e)
        raise
    return _CUDA


def _open_cuda():
    try:
        import pycuda.driver as drv
    except ImportError as e:
        raise DeviceUnavailable(f"device 'cuda' needs PyCUDA and an NVIDIA driver (pip install "
                                f"accy[cuda] on a machine with a GPU): {e}") from None
    try:
        drv.init()
        if drv.Device.count() == 0:
            raise DeviceUnavailable("device 'cuda': the driver sees no GPU")
        context = drv.Device(0).retain_primary_context()
        context.push()
    except drv.Error as e:
        raise DeviceUnavailable(f"device 'cuda': the driver reports {e}") from None
    atexit.register(_release, context)     # PyCUDA aborts at exit if a context is still pushed
    return _PyCudaDevice(drv)


def _release(context):
    """Pop the GPU's primary context at exit, as `pycuda.autoprimaryctx` does."""
    from pycuda.tools import clear_context_caches
    context.pop()
    clear_context_caches()


def _bytes_view(array):
    """A C-contiguous array as flat bytes, sharing its memory: PyCUDA takes buffers through
    the buffer protocol, which refuses dtypes such as ml_dtypes' bfloat16."""
    if not array.flags.c_contiguous:
        raise ValueError("device copies need C-contiguous arrays")
    return array.reshape(-1).view(np.uint8)


class _PyCudaDevice:
    """PyCUDA's driver module with the emulator's method names: allocations are kept alive
    here, addresses are plain ints, so `address + offset` works as on the emulator."""

    def __init__(self, drv):
        self.drv = drv
        self.allocations = {}

    def mem_alloc(self, nbytes):
        alloc = self.drv.mem_alloc(max(int(nbytes), 1))
        self.allocations[int(alloc)] = alloc
        return int(alloc)

    def mem_free(self, pointer):
        self.allocations.pop(int(pointer)).free()

    def memcpy_htod(self, pointer, array):
        self.drv.memcpy_htod(int(pointer), _bytes_view(np.ascontiguousarray(array)))

    def memcpy_dtoh(self, array, pointer):
        self.drv.memcpy_dtoh(_bytes_view(array), int(pointer))

    def memset_d8(self, pointer, value, nbytes):
        self.drv.memset_d8(int(pointer), int(value), int(nbytes))

    def memcpy_dtod(self, target, source, nbytes):
        self.drv.memcpy_dtod(int(target), int(source), int(nbytes))

    def module_from_buffer(self, image):
        """A module from PTX text or a cubin's bytes."""
        return _PyCudaModule(self.drv, self.drv.module_from_buffer(
            image.encode() if isinstance(image, str) else image))

    def capability(self):
        return tuple(self.drv.Context.get_device().compute_capability())

    def arch(self):
        """The newest arch accy targets that this GPU runs (PTX for it JITs here): its own,
        or the newest older one accy knows (sm_86 for an sm_87, sm_90 for a newer GPU)."""
        have = self.capability()
        fits = [a for a in ARCHS if not a.endswith("a") and _numbers(a) <= have]
        if not fits:
            raise DeviceUnavailable(f"device 'cuda': compute capability {have[0]}.{have[1]} "
                                    f"is older than accy's oldest target, {ARCHS[0]}")
        return fits[-1]

    def runs_ptx(self, arch):
        """Whether PTX written for `arch` loads here: an arch at most this GPU's (an `a`
        arch only on its own)."""
        if arch.endswith("a"):
            return self.capability() == _numbers(arch)
        return _numbers(arch) <= self.capability()

    def runs_cubin(self, arch):
        """Whether this GPU runs machine code built for `arch` ("sm_90", "sm_90a"): the same
        major version and a minor version at least the cubin's; an `a` arch only on its own."""
        major, minor = self.capability()
        want = _numbers(arch)
        if arch.endswith("a"):
            return (major, minor) == want
        return major == want[0] and minor >= want[1]

    def synchronize(self):
        self.drv.Context.synchronize()


def _numbers(arch):
    """(major, minor) of an arch name: "sm_86" -> (8, 6), "sm_90a" -> (9, 0)."""
    digits = arch[len("sm_"):].rstrip("a")
    return int(digits[:-1]), int(digits[-1])


DEFAULT_DYNAMIC_SHARED = 48 * 1024      # what a launch may ask for without opting in


class _PyCudaModule:
    """A PyCUDA module whose functions opt in to the dynamic shared memory a launch asks for."""

    def __init__(self, drv, module):
        self.drv, self.module = drv, module

    def get_function(self, name):
        return _PyCudaFunction(self.drv, self.module.get_function(name))

    def __getattr__(self, name):
        return getattr(self.module, name)


class _PyCudaFunction:
    def __init__(self, drv, function):
        self.drv, self.function = drv, function
        self.allowed = DEFAULT_DYNAMIC_SHARED

    def __call__(self, *args, shared=0, **launch):
        if shared > self.allowed:
            self.function.set_attribute(
                self.drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, int(shared))
            self.allowed = int(shared)
        return self.function(*args, shared=shared, **launch)

    def __getattr__(self, name):
        return getattr(self.function, name)
