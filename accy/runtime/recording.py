"""Two device objects with the emulator's PyCUDA-shaped interface (accy/runtime/devices.py),
for tests and benchmarks: `NullDevice` does nothing (what is left of a run is the runtime's own
host cost), and `Recorder` logs every call it forwards to another device, so that two runtimes'
device traffic for one program can be compared.

    dev = Recorder(Emulator())
    exe.run(x, device=dev)              # the Python runtime; or through libaccyrt (docs/runtime.md)
    [c for c in dev.calls if c[0] == "launch"]
        # ("launch", kernel name, grid, block, shared bytes, params: 8 bytes each)
"""
import numpy as np

NULL_BASE = 1 << 32          # the NullDevice's first address: far from 0, so a missed offset shows
NULL_ALIGN = 256


class NullDevice:
    """Allocations are addresses only; copies, memsets and launches do nothing (a copy to the
    host leaves the host buffer as it is: a loop's flag, 0, ends the loop)."""

    def __init__(self):
        self.next = NULL_BASE
        self.live = set()

    def mem_alloc(self, nbytes):
        address = self.next
        self.next += (max(int(nbytes), 1) + NULL_ALIGN - 1) // NULL_ALIGN * NULL_ALIGN
        self.live.add(address)
        return address

    def mem_free(self, pointer):
        self.live.remove(int(pointer))

    def memcpy_htod(self, pointer, array):
        pass

    def memcpy_dtoh(self, array, pointer):
        pass

    def memcpy_dtod(self, target, source, nbytes):
        pass

    def memset_d8(self, pointer, value, nbytes):
        pass

    def module_from_buffer(self, image):
        return _NullModule()

    def synchronize(self):
        pass


class _NullModule:
    def get_function(self, name):
        return _null_launch


def _null_launch(*args, block=(1, 1, 1), grid=(1, 1, 1), shared=0):
    pass


class Recorder:
    """Forwards every call to `inner` (a device object) and logs it in `calls`, in order:

        ("load", "ptx" | "cubin")                ("function", kernel name)
        ("alloc", nbytes, address)               ("free", address)
        ("htod", address, bytes)                 ("dtoh", address, nbytes)
        ("dtod", target, source, nbytes)         ("memset", address, value, nbytes)
        ("launch", name, grid, block, shared bytes, params)     ("synchronize",)

    grid and block are 3-tuples of ints; params a tuple of each parameter's 8 bytes (a pointer
    or an i64 scalar, little-endian), however the runtime passed it. Other attributes (the
    emulator's `memory`, a GPU's `capability`) are the inner device's."""

    def __init__(self, inner=None):
        self.inner = inner if inner is not None else NullDevice()
        self.calls = []

    def __getattr__(self, name):
        if name == "inner":                 # not set yet (copying, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    def launches(self):
        return [c for c in self.calls if c[0] == "launch"]

    def mem_alloc(self, nbytes):
        address = self.inner.mem_alloc(nbytes)
        self.calls.append(("alloc", int(nbytes), int(address)))
        return address

    def mem_free(self, pointer):
        self.calls.append(("free", int(pointer)))
        self.inner.mem_free(pointer)

    def memcpy_htod(self, pointer, array):
        data = np.ascontiguousarray(array).reshape(-1).view(np.uint8).tobytes()
        self.calls.append(("htod", int(pointer), data))
        self.inner.memcpy_htod(pointer, array)

    def memcpy_dtoh(self, array, pointer):
        self.calls.append(("dtoh", int(pointer), array.nbytes))
        self.inner.memcpy_dtoh(array, pointer)

    def memcpy_dtod(self, target, source, nbytes):
        self.calls.append(("dtod", int(target), int(source), int(nbytes)))
        self.inner.memcpy_dtod(target, source, nbytes)

    def memset_d8(self, pointer, value, nbytes):
        self.calls.append(("memset", int(pointer), int(value), int(nbytes)))
        memset = getattr(self.inner, "memset_d8", None)
        if memset is not None:
            memset(pointer, value, nbytes)
        else:
            self.inner.memcpy_htod(pointer, np.full(int(nbytes), value, np.uint8))

    def module_from_buffer(self, image):
        self.calls.append(("load", "ptx" if isinstance(image, str) else "cubin"))
        return _RecordedModule(self, self.inner.module_from_buffer(image))

    def synchronize(self):
        self.calls.append(("synchronize",))
        sync = getattr(self.inner, "synchronize", None)
        if sync is not None:
            sync()


class _RecordedModule:
    def __init__(self, recorder, module):
        self.recorder, self.module = recorder, module

    def get_function(self, name):
        self.recorder.calls.append(("function", name))
        return _RecordedFunction(self.recorder, name, self.module.get_function(name))


class _RecordedFunction:
    def __init__(self, recorder, name, function):
        self.recorder, self.name, self.function = recorder, name, function

    def __call__(self, *args, block=(1, 1, 1), grid=(1, 1, 1), shared=0):
        self.recorder.calls.append(("launch", self.name, _dims(grid), _dims(block), int(shared),
                                    tuple(_param_bytes(a) for a in args)))
        return self.function(*args, block=block, grid=grid, shared=shared)


def _dims(dims):
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))


def _param_bytes(value):
    """A launch parameter's bytes: a numpy scalar's own, bytes as given, an int (a device
    pointer) as 8 little-endian bytes."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, np.generic):
        return value.tobytes()
    return int(value).to_bytes(8, "little", signed=int(value) < 0)
