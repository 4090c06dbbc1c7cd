"""libaccyrt from Python, through ctypes: bundles opened and checked by C, sessions run by C, on
the CUDA device the library brings or on a device table whose entries are Python callbacks
into a device object with the emulator's PyCUDA-shaped interface (accy/runtime/devices.py).

    bundle = Bundle.from_bytes(data)            # or Bundle.open(path); .arguments, .results
    device = PythonDevice(Emulator(), fill=0xFF)    # or cuda_device()
    session = Session(bundle, device)
    session.run(inputs, outputs)                # device addresses, one per argument / result

The library is loaded on first use; a missing one is LibraryUnavailable. A status from C is
raised as a CrtError subclass (a bad bundle as accy.BundleError) with the C message. Every handle
is freed when its Python object is collected (or by `close()`); a session keeps its bundle and
device alive. An exception inside a Python device entry is turned into a status (it never
unwinds through C) and comes back as the cause of the CrtError that the C call returns.
"""
import ctypes
import os
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from accy.errors import AccyError, BundleError, UnsupportedError
from accy.runtime import native

# accyrt_code
OK, INVALID_ARGUMENT, BAD_BUNDLE, UNSUPPORTED, DEVICE, OUT_OF_MEMORY, IO = range(7)


class LibraryUnavailable(AccyError):
    """libaccyrt is not built or cannot be loaded here."""


class CrtError(AccyError):
    """A status from libaccyrt; `code` is its accyrt_code."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


class CrtInvalidArgument(CrtError, ValueError):
    pass


class CrtBadBundle(CrtError, BundleError):
    pass


class CrtUnsupported(CrtError, UnsupportedError):
    pass


class CrtDeviceError(CrtError):
    pass


class CrtOutOfMemory(CrtError, MemoryError):
    pass


class CrtIOError(CrtError, OSError):
    pass


_ERRORS = {INVALID_ARGUMENT: CrtInvalidArgument, BAD_BUNDLE: CrtBadBundle,
           UNSUPPORTED: CrtUnsupported, DEVICE: CrtDeviceError, OUT_OF_MEMORY: CrtOutOfMemory,
           IO: CrtIOError}

# ---- the header's types ---------------------------------------------------------------------

_status_p = ctypes.c_void_p
_u32_3 = ctypes.POINTER(ctypes.c_uint32)
_ENTRIES = (      # accyrt_device's function pointers, in order, after struct_size and self
    ("load_module", (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                     ctypes.POINTER(ctypes.c_void_p))),
    ("unload_module", (ctypes.c_void_p, ctypes.c_void_p)),
    ("get_function", (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                      ctypes.POINTER(ctypes.c_void_p))),
    ("alloc", (ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64))),
    ("free", (ctypes.c_void_p, ctypes.c_uint64)),
    ("copy_htod", (ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64,
                   ctypes.c_void_p)),
    ("copy_dtoh", (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
                   ctypes.c_void_p)),
    ("copy_dtod", (ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64,
                   ctypes.c_void_p)),
    ("memset", (ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint8, ctypes.c_uint64,
                ctypes.c_void_p)),
    ("launch", (ctypes.c_void_p, ctypes.c_void_p, _u32_3, _u32_3, ctypes.c_uint32,
                ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint32)),
    ("synchronize", (ctypes.c_void_p, ctypes.c_void_p)),
    ("capability", (ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))),
)
_ENTRY_TYPES = {name: ctypes.CFUNCTYPE(_status_p, *args) for name, args in _ENTRIES}


class _DeviceTable(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("self", ctypes.c_void_p)] + [
        (name, _ENTRY_TYPES[name]) for name, _ in _ENTRIES]


class _TensorInfo(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("dtype", ctypes.c_char_p),
                ("rank", ctypes.c_uint32), ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("nbytes", ctypes.c_uint64)]


_handle_p = ctypes.POINTER(ctypes.c_void_p)
_SIGNATURES = {     # name: (restype, argtypes)
    "accyrt_status_code": (ctypes.c_int, [_status_p]),
    "accyrt_status_message": (ctypes.c_char_p, [_status_p]),
    "accyrt_status_free": (None, [_status_p]),
    "accyrt_status_new": (_status_p, [ctypes.c_int, ctypes.c_char_p]),
    "accyrt_bundle_open_file": (_status_p, [ctypes.c_char_p, _handle_p]),
    "accyrt_bundle_open_memory": (_status_p, [ctypes.c_void_p, ctypes.c_size_t, _handle_p]),
    "accyrt_bundle_free": (None, [ctypes.c_void_p]),
    "accyrt_bundle_num_arguments": (ctypes.c_size_t, [ctypes.c_void_p]),
    "accyrt_bundle_num_results": (ctypes.c_size_t, [ctypes.c_void_p]),
    "accyrt_bundle_argument": (_status_p, [ctypes.c_void_p, ctypes.c_size_t,
                                           ctypes.POINTER(_TensorInfo)]),
    "accyrt_bundle_result": (_status_p, [ctypes.c_void_p, ctypes.c_size_t,
                                         ctypes.POINTER(_TensorInfo)]),
    "accyrt_bundle_target": (ctypes.c_char_p, [ctypes.c_void_p]),
    "accyrt_bundle_accy_version": (ctypes.c_char_p, [ctypes.c_void_p]),
    "accyrt_cuda_device_open": (_status_p, [ctypes.c_int,
                                            ctypes.POINTER(ctypes.POINTER(_DeviceTable))]),
    "accyrt_cuda_device_close": (None, [ctypes.POINTER(_DeviceTable)]),
    "accyrt_session_create": (_status_p, [ctypes.c_void_p, ctypes.POINTER(_DeviceTable),
                                          _handle_p]),
    "accyrt_session_run": (_status_p, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                                       ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint64),
                                       ctypes.c_size_t, ctypes.c_void_p]),
    "accyrt_session_free": (None, [ctypes.c_void_p]),
}

_LIBRARY = None
_LIBRARY_LOCK = threading.Lock()


def library():
    """The loaded libaccyrt, its functions declared; LibraryUnavailable when it cannot be."""
    global _LIBRARY
    with _LIBRARY_LOCK:
        if _LIBRARY is None:
            _LIBRARY = _load()
        return _LIBRARY


def _load():
    try:
        path = native.get_library()
    except AccyError as e:
        raise LibraryUnavailable(f"libaccyrt is not available: {e}") from None
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise LibraryUnavailable(f"libaccyrt could not be loaded from {path}: {e} (reinstall "
                                 f"accy with a C compiler: pip install .)") from None
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            raise LibraryUnavailable(f"{path} does not export {name}: it is not the libaccyrt "
                                     f"of this accy") from None
        function.restype, function.argtypes = restype, argtypes
    return lib


def _raise_status(lib, status, cause=None):
    """Raise the CrtError of a non-NULL status, freeing it; `cause` (the exception a Python
    device entry raised while C ran) becomes its __cause__."""
    code = lib.accyrt_status_code(status)
    message = (lib.accyrt_status_message(status) or b"").decode("utf-8", "replace")
    lib.accyrt_status_free(status)
    if cause is not None and not isinstance(cause, Exception):
        raise cause                     # KeyboardInterrupt, SystemExit: not a device error
    raise _ERRORS.get(code, CrtError)(f"libaccyrt: {message}", code) from cause


# ---- bundles --------------------------------------------------------------------------------

@dataclass(frozen=True)
class TensorSpec:
    dtype: str
    shape: tuple
    nbytes: int


class Bundle:
    """A bundle opened and checked by libaccyrt (immutable; threads may share it)."""

    def __init__(self, lib, handle):
        self._lib, self._handle = lib, handle
        self._free = weakref.finalize(self, lib.accyrt_bundle_free, handle)
        self._sessions = 0          # live sessions point into the C bundle: close waits for them
        self._closing = False
        # sessions made, freed and the close from several threads (a session's finalizer may
        # run inside a `with` of the same thread: re-entrant)
        self._lock = threading.RLock()
        self.arguments = self._specs(lib.accyrt_bundle_num_arguments, lib.accyrt_bundle_argument)
        self.results = self._specs(lib.accyrt_bundle_num_results, lib.accyrt_bundle_result)
        self.target = lib.accyrt_bundle_target(handle).decode()
        self.accy_version = lib.accyrt_bundle_accy_version(handle).decode()

    @classmethod
    def open(cls, path):
        """The bundle in the file at `path`."""
        lib = library()
        handle = ctypes.c_void_p()
        status = lib.accyrt_bundle_open_file(os.fsencode(path), ctypes.byref(handle))
        if status:
            _raise_status(lib, status)
        return cls(lib, handle)

    @classmethod
    def from_bytes(cls, data):
        """The bundle in `data` (bytes-like; C copies it)."""
        lib = library()
        data = bytes(data)
        handle = ctypes.c_void_p()
        status = lib.accyrt_bundle_open_memory(data, len(data), ctypes.byref(handle))
        if status:
            _raise_status(lib, status)
        return cls(lib, handle)

    def _specs(self, count, query):
        specs = []
        for i in range(count(self._handle)):
            info = _TensorInfo(struct_size=ctypes.sizeof(_TensorInfo))
            status = query(self._handle, i, ctypes.byref(info))
            if status:
                _raise_status(self._lib, status)
            specs.append(TensorSpec(info.dtype.decode(), tuple(info.dims[:info.rank]),
                                    info.nbytes))
        return tuple(specs)

    @property
    def handle(self):
        if self._closing or not self._free.alive:
            raise AccyError("this bundle is closed")
        return self._handle

    def close(self):
        """Free the C bundle now, or when the last session made from it is freed."""
        with self._lock:
            self._closing = True
            if not self._sessions:
                self._free()

    def _session_freed(self):
        with self._lock:
            self._sessions -= 1
            if self._closing and not self._sessions:
                self._free()


# ---- devices --------------------------------------------------------------------------------

class Device:
    """An accyrt_device table (`table`, a pointer to it), with Python calls through its
    entries: what a caller needs to place arguments and read results."""

    table = None
    _errors = None          # a PythonDevice's: exceptions its entries raised, per thread

    def _call(self, name, *args):
        table = self.table.contents
        entry = getattr(table, name)
        if not entry:
            raise AccyError(f"this device table has no {name} entry")
        status = entry(table.self, *args)
        if status:
            _raise_status(library(), status, self.take_error())

    def take_error(self):
        """The exception a Python entry raised during the last C call on this thread, once."""
        return None

    def alloc(self, nbytes):
        address = ctypes.c_uint64()
        self._call("alloc", int(nbytes), ctypes.byref(address))
        return address.value

    def free(self, address):
        self._call("free", int(address))

    def upload(self, address, array):
        """Copy a C-contiguous array to `address`."""
        array = np.ascontiguousarray(array)
        if array.nbytes:
            self._call("copy_htod", int(address), array.ctypes.data, array.nbytes, None)

    def download(self, array, address):
        """Fill a C-contiguous array from `address` (returns once its bytes are there)."""
        if not array.flags.c_contiguous or not array.flags.writeable:
            raise ValueError("download needs a writeable C-contiguous array")
        if array.nbytes:
            self._call("copy_dtoh", array.ctypes.data, int(address), array.nbytes, None)

    def synchronize(self, stream=None):
        self._call("synchronize", stream)


class TableDevice(Device):
    """A device table made in C by the caller (a test's or a benchmark's), at `address`;
    `owner` (its library, say) is kept alive with it."""

    def __init__(self, address, owner=None):
        if not address:
            raise ValueError("a device table needs a non-NULL address")
        self.table = ctypes.cast(address, ctypes.POINTER(_DeviceTable))
        self.owner = owner


class CudaDevice(Device):
    """libaccyrt's device for GPU `ordinal`, through the CUDA driver it loads itself."""

    def __init__(self, ordinal=0):
        lib = library()
        table = ctypes.POINTER(_DeviceTable)()
        status = lib.accyrt_cuda_device_open(int(ordinal), ctypes.byref(table))
        if status:
            _raise_status(lib, status)
        self.table = table
        # at exit finalizers run newest first: every session made with it is freed before
        self._close = weakref.finalize(self, lib.accyrt_cuda_device_close, table)

    def capability(self):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._call("capability", ctypes.byref(major), ctypes.byref(minor))
        return major.value, minor.value


class PythonDevice(Device):
    """A device table whose entries call `device`, an object with the emulator's interface
    (`accy.runtime.emulator.driver.Emulator`, `recording.Recorder`, `recording.NullDevice`).
    Modules and functions are handed to C as small integers (a function's handle lasts until
    its module is unloaded). With `fill`, every allocation
    starts as that byte (0xFF on the emulator, as the Python runtime fills its arena and
    results: NaN in any float dtype, so an element no kernel writes shows). The table has a
    `capability` entry when the device tells its compute capability (else C loads the PTX)."""

    def __init__(self, device, fill=None):
        self.device, self.fill = device, fill
        self._handles = {}             # handle -> a module or a function
        self._functions = {}           # module handle -> its functions' handles
        self._next_handle = 1
        self._errors = threading.local()
        entries = {name: _ENTRY_TYPES[name](self._guard(getattr(self, "_" + name)))
                   for name, _ in _ENTRIES
                   if name != "capability" or hasattr(device, "capability")}
        self._entries = entries         # the callbacks must live as long as the table
        self._table = _DeviceTable(struct_size=ctypes.sizeof(_DeviceTable), self=None,
                                   **entries)
        self.table = ctypes.pointer(self._table)

    def take_error(self):
        error = getattr(self._errors, "pending", None)
        self._errors.pending = None
        return error

    def _guard(self, entry):
        """`entry` as a callback that returns NULL, or a status for any exception it raises."""
        def callback(_self, *args):
            try:
                entry(*args)
                return None
            except BaseException as e:      # nothing may unwind into C
                self._errors.pending = e
                return library().accyrt_status_new(DEVICE, _describe(e).encode("utf-8",
                                                                              "replace"))
        return callback

    def _handle(self, value):
        handle = self._next_handle
        self._next_handle += 1
        self._handles[handle] = value
        return handle

    def _load_module(self, image, size, is_cubin, out):
        data = ctypes.string_at(image, size)
        if not is_cubin:
            data = data.rstrip(b"\0").decode("utf-8")
        out[0] = self._handle(self.device.module_from_buffer(data))

    def _unload_module(self, module):
        for function in self._functions.pop(module, ()):    # a module's functions go with it
            del self._handles[function]
        del self._handles[module]

    def _get_function(self, module, name, out):
        handle = self._handle(self._handles[module].get_function(name.decode()))
        self._functions.setdefault(module, []).append(handle)
        out[0] = handle

    def _alloc(self, nbytes, out):
        address = int(self.device.mem_alloc(nbytes))
        if self.fill is not None and nbytes:
            self.device.memcpy_htod(address, np.full(nbytes, self.fill, np.uint8))
        out[0] = address

    def _free(self, address):
        self.device.mem_free(address)

    def _copy_htod(self, target, source, nbytes, stream):
        if nbytes:
            self.device.memcpy_htod(target, np.frombuffer(ctypes.string_at(source, nbytes),
                                                          np.uint8))

    def _copy_dtoh(self, target, source, nbytes, stream):
        if nbytes:
            host = np.ctypeslib.as_array(ctypes.cast(target, ctypes.POINTER(ctypes.c_uint8)),
                                         (nbytes,))
            self.device.memcpy_dtoh(host, source)

    def _copy_dtod(self, target, source, nbytes, stream):
        if nbytes:
            self.device.memcpy_dtod(target, source, nbytes)

    def _memset(self, target, value, nbytes, stream):
        memset = getattr(self.device, "memset_d8", None)
        if memset is not None:
            memset(target, value, nbytes)
        elif nbytes:
            self.device.memcpy_htod(target, np.full(nbytes, value, np.uint8))

    def _launch(self, function, grid, block, shared, stream, params, num_params):
        args = [ctypes.string_at(params[i], 8) for i in range(num_params)]
        self._handles[function](*args, grid=tuple(grid[:3]), block=tuple(block[:3]),
                                shared=shared)

    def _synchronize(self, stream):
        sync = getattr(self.device, "synchronize", None)
        if sync is not None:
            sync()

    def _capability(self, major, minor):
        major[0], minor[0] = self.device.capability()


def _describe(error):
    try:
        text = str(error)
    except Exception:       # a __str__ that fails still gives a status
        text = "(no message)"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


_CUDA = None
_CUDA_ERROR = None      # why GPU 0 did not open, kept: trying again costs a dlopen each time


def cuda_device():
    """The CudaDevice of GPU 0, opened once per process (a failure is raised again as it
    was, without a second try)."""
    global _CUDA, _CUDA_ERROR
    if _CUDA is None:
        if _CUDA_ERROR is not None:
            kind, message, code = _CUDA_ERROR
            raise kind(message, code)
        try:
            _CUDA = CudaDevice(0)
        except CrtError as e:
            _CUDA_ERROR = type(e), str(e), e.code
            raise
    return _CUDA


# ---- sessions -------------------------------------------------------------------------------

class Session:
    """A bundle's host program ready to run on `device` (modules loaded, arena and scratch
    allocated, constants uploaded). Runs from several threads take turns."""

    def __init__(self, bundle, device):
        lib = library()
        handle = ctypes.c_void_p()
        with bundle._lock:          # no close of the bundle between its check and the count
            status = lib.accyrt_session_create(bundle.handle, device.table,
                                               ctypes.byref(handle))
            if status:
                _raise_status(lib, status, device.take_error())
            bundle._sessions += 1
        self._lib, self._handle, self.bundle, self.device = lib, handle, bundle, device
        # the finalizer's arguments keep the bundle and the device until the session is freed
        self._free = weakref.finalize(self, _free_session, lib, handle, bundle, device)
        # runs from two threads would interleave their steps on one arena, and a close during
        # a run would free what C is using: one at a time (a device entry of the run that calls
        # back into the session is refused, not deadlocked)
        self._lock = threading.RLock()
        self._running = False

    def run(self, inputs, outputs, stream=None):
        """Run the host program once: `inputs` the arguments' device addresses, `outputs` the
        results'. Kernels are issued on `stream` (an int handle, None: the default stream)."""
        inputs, outputs = _addresses(inputs), _addresses(outputs)
        with self._lock:
            self._check_idle("run")
            self._running = True
            try:
                status = self._lib.accyrt_session_run(self._handle, inputs, len(inputs),
                                                      outputs, len(outputs), stream)
            finally:
                self._running = False
        if status:
            _raise_status(self._lib, status, self.device.take_error())

    def close(self):
        """Free the session's device memory and modules now (after a run another thread has
        in progress)."""
        with self._lock:
            if self._running:
                raise AccyError("a session cannot be closed from inside its own run")
            self._free()

    def _check_idle(self, what):
        if not self._free.alive:
            raise AccyError("this session is closed")
        if self._running:
            raise AccyError(f"a session cannot {what} from inside its own run")


_ADDRESS_ARRAYS = [ctypes.c_uint64 * n for n in range(17)]


def _addresses(values):
    n = len(values)
    return (_ADDRESS_ARRAYS[n] if n < len(_ADDRESS_ARRAYS) else ctypes.c_uint64 * n)(*values)


def _free_session(lib, handle, bundle, device):
    lib.accyrt_session_free(handle)
    device.take_error()     # an entry's failure while freeing has nowhere to go
    bundle._session_freed()
