"""A driver-like surface over the emulator, shaped like PyCUDA's, so that an executable can
treat the emulator and a real GPU as two devices behind one interface:

    dev = Emulator()                          # Emulator(counters=True): memory transactions
    a = dev.to_device(x)                      # or mem_alloc + memcpy_htod
    fn = dev.module_from_buffer(ptx).get_function("vadd")
    fn(a, b, c, np.int32(n), block=(256, 1, 1), grid=(64, 1, 1))
    y = dev.from_device(c, x.shape, x.dtype)  # or memcpy_dtoh
"""
import bisect
from dataclasses import dataclass

import numpy as np

from accy.runtime.emulator import tensorcore  # noqa: F401  (registers mma, ldmatrix, cp.async)
from accy.runtime.emulator.calls import link
from accy.runtime.emulator.counters import MemoryCounters
from accy.runtime.emulator.instructions import HANDLERS
from accy.runtime.emulator.machine import KernelFault, Machine, TIME_LIMIT
from accy.runtime.emulator.memory import GlobalMemory
from accy.runtime.emulator.ptx import parse


class DevicePointer(int):
    """A device address (an int, as PyCUDA's DeviceAllocation converts to)."""


@dataclass
class LaunchStats:
    steps: int                  # instructions issued (lockstep steps)
    thread_instructions: int    # instructions times the threads that were at them
    memory: MemoryCounters = None   # per instruction, when the device counts transactions


class Emulator:
    """A CPU device: global memory plus modules loaded from PTX text. With `counters`, each
    launch counts its memory transactions (accy.runtime.emulator.counters): its LaunchStats,
    also kept in `launches` as (kernel name, stats), in launch order."""

    def __init__(self, counters=False):
        self.memory = GlobalMemory()
        self.counters = counters
        self.launches = []

    def mem_alloc(self, nbytes):
        return DevicePointer(self.memory.alloc(nbytes))

    def mem_free(self, pointer):
        self.memory.free(int(pointer))

    def memcpy_htod(self, pointer, array):
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        buf = self._buffer(pointer, raw.size)
        buf[:raw.size] = raw

    def memcpy_dtoh(self, array, pointer):
        if not array.flags.c_contiguous:
            raise KernelFault("memcpy_dtoh needs a C-contiguous host array")
        raw = array.reshape(-1).view(np.uint8)     # a view: writing it writes `array`
        raw[:] = self._buffer(pointer, raw.size)[:raw.size]

    def memcpy_dtod(self, target, source, nbytes):
        """Copy `nbytes` between device addresses (as PyCUDA's memcpy_dtod, target first)."""
        self._buffer(target, nbytes)[:nbytes] = self._buffer(source, nbytes)[:nbytes].copy()

    def to_device(self, array):
        array = np.ascontiguousarray(array)
        pointer = self.mem_alloc(array.nbytes)
        self.memcpy_htod(pointer, array)
        return pointer

    def from_device(self, pointer, shape, dtype):
        out = np.empty(shape, dtype)
        self.memcpy_dtoh(out, pointer)
        return out

    def _buffer(self, pointer, nbytes):
        """The `nbytes` of device memory from `pointer` on, which may point inside an
        allocation (as a CUDA copy may)."""
        address = int(pointer)
        i = bisect.bisect_right(self.memory.bases, address) - 1
        if i >= 0:
            base = self.memory.bases[i]
            buf = self.memory.buffers[base]
            if address - base + nbytes <= buf.size:
                return buf[address - base:]
        raise KernelFault(f"{address:#x} is not inside an allocation with at least {nbytes} "
                          f"bytes from there")

    def module_from_buffer(self, ptx):
        """Load PTX text; a PtxError names the line of anything the emulator cannot read or
        link (get_function, of an instruction it does not have; the first launch, of a form of
        one it does not support)."""
        if isinstance(ptx, bytes):
            ptx = ptx.decode()
        return EmulatedModule(self, link(parse(ptx)))


class EmulatedModule:
    """A loaded module: its .global/.const variables live in device memory (initialized from
    their initializers, else zero) for as long as the device does."""

    def __init__(self, device, module):
        self.device, self.module = device, module
        self.globals = {}
        for v in module.variables:
            if v.space in ("global", "const"):
                pointer = device.mem_alloc(v.size)
                if v.init:
                    device.memcpy_htod(pointer, np.frombuffer(v.init, np.uint8)[:v.size])
                self.globals[v.name] = int(pointer)

    def get_global(self, name):
        """(device pointer, size in bytes) of a module variable, as PyCUDA's get_global."""
        for v in self.module.variables:
            if v.name == name and name in self.globals:
                return DevicePointer(self.globals[name]), v.size
        raise KernelFault(f"the module has no .global/.const variable '{name}'")

    def get_function(self, name):
        if name not in self.module.kernels:
            raise KernelFault(f"the module has no kernel '{name}' (it has "
                              f"{', '.join(self.module.kernels) or 'none'})")
        HANDLERS.check(self.module.kernels[name])
        return EmulatedFunction(self, self.module.kernels[name])


class EmulatedFunction:
    def __init__(self, module, kernel):
        self.module, self.kernel = module, kernel

    def __call__(self, *args, block=(1, 1, 1), grid=(1, 1, 1), shared=0,
                 time_limit=TIME_LIMIT):
        """Launch on every thread of `grid` x `block` (CUDA's limits apply) with `shared`
        dynamic shared bytes; returns LaunchStats. A launch still running after `time_limit`
        seconds (or MAX_STEPS instructions) is reported as an endless loop."""
        block, grid = _dims(block, "block", BLOCK_LIMITS), _dims(grid, "grid", GRID_LIMITS)
        if block[0] * block[1] * block[2] > 1024:
            raise KernelFault(f"a block holds at most 1024 threads, got {block}")
        if not 0 <= int(shared) <= MAX_SHARED:
            raise KernelFault(f"dynamic shared memory must be 0 to {MAX_SHARED} bytes, got "
                              f"{shared}")
        machine = Machine(self.module.module, self.kernel, grid, block, int(shared), args,
                          self.module.device.memory, HANDLERS, self.module.globals)
        if machine.shared.nbytes > MAX_SHARED:
            raise KernelFault(f"kernel {self.kernel.name} needs {machine.shared.nbytes} bytes of "
                              f"shared memory; a block may have {MAX_SHARED}")
        device = self.module.device
        if device.counters:
            machine.counters = MemoryCounters()
        machine.run(time_limit)
        stats = LaunchStats(machine.steps, machine.thread_instructions, machine.counters)
        if device.counters:
            device.launches.append((self.kernel.name, stats))
        return stats


GRID_LIMITS = (2**31 - 1, 65535, 65535)     # CUDA's launch limits (as on sm_80..sm_90)
BLOCK_LIMITS = (1024, 1024, 64)
MAX_SHARED = 227 * 1024                     # per block, with the opt-in (sm_90)


def _dims(value, what, limits):
    value = tuple(int(v) for v in value) + (1,) * (3 - len(value))
    if len(value) != 3 or any(not 1 <= v <= hi for v, hi in zip(value, limits)):
        raise KernelFault(f"{what} must be 1 to 3 sizes within {limits}, got {value}")
    return value
