"""Device memory of the emulator, checked like compute-sanitizer: global memory is a set of
allocations at 64-bit device addresses (256-byte aligned, with unmapped gaps between them);
shared memory is one byte array per block with a record of which bytes were written. An access
outside every allocation, a misaligned access, or a read of unwritten shared memory raises
MemoryFault with the address; the machine adds the kernel, instruction and thread."""
import numpy as np

from accy.errors import AccyError

GLOBAL_BASE = 0x7F0000000000     # first device address handed out
GAP = 1 << 16                    # unmapped bytes between allocations: overruns hit nothing
SHARED_WINDOW = 0x10000000000    # generic addresses [window, window + 2^32) are shared memory
LOCAL_WINDOW = 0x20000000000     # ... and [window, window + 2^32) the thread's local memory
WINDOW_SIZE = 1 << 32


class MemoryFault(AccyError):
    """An invalid device memory access (out of bounds, misaligned, uninitialized)."""

    def __init__(self, message, lanes=None, addresses=None):
        self.lanes = lanes           # indices (into the launch's threads) of offending accesses
        self.addresses = addresses
        super().__init__(message)


class GlobalMemory:
    """Allocations addressed by device pointers."""

    def __init__(self):
        self.bases = []          # sorted
        self.buffers = {}        # base -> np.uint8 array
        self.next = GLOBAL_BASE

    def alloc(self, nbytes):
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ValueError(f"cannot allocate {nbytes} bytes")
        base = self.next
        self.next = base + ((max(nbytes, 1) + 255) // 256) * 256 + GAP
        self.bases.append(base)
        self.buffers[base] = np.zeros(nbytes, np.uint8)
        return base

    def free(self, base):
        if base not in self.buffers:
            raise MemoryFault(f"free of {base:#x}, which is not an allocation")
        del self.buffers[base]
        self.bases.remove(base)

    def buffer(self, base):
        return self.buffers[base]

    def locate(self, addresses, width):
        """(allocation index per address, byte offset) for accesses of `width` bytes; raises
        MemoryFault naming the first bad access."""
        addresses = np.asarray(addresses, np.uint64)
        bases = np.array(self.bases, np.uint64)
        which = np.searchsorted(bases, addresses, side="right").astype(np.int64) - 1
        ok = which >= 0
        safe = np.where(ok, which, 0)
        offsets = addresses - bases[safe] if len(bases) else addresses
        sizes = np.array([self.buffers[b].size for b in self.bases], np.uint64)[safe] \
            if len(bases) else np.zeros(addresses.shape, np.uint64)
        ok &= offsets + np.uint64(width) <= sizes
        if not ok.all():
            bad = np.nonzero(~ok)[0]
            raise MemoryFault(f"out-of-bounds access of {width} bytes at {int(addresses[bad[0]]):#x} "
                              f"({len(bad)} bad accesses)", bad, addresses[bad])
        if width > 1 and (addresses % np.uint64(width)).any():
            bad = np.nonzero(addresses % np.uint64(width))[0]
            raise MemoryFault(f"misaligned access of {width} bytes at {int(addresses[bad[0]]):#x}",
                              bad, addresses[bad])
        return which, offsets.astype(np.int64)

    def load(self, addresses, dtype):
        dtype = np.dtype(dtype)
        which, offsets = self.locate(addresses, dtype.itemsize)
        out = np.empty(len(offsets), dtype)
        for a in np.unique(which):
            sel = which == a
            view = self.buffers[self.bases[a]].view(np.uint8)
            out[sel] = _gather(view, offsets[sel], dtype)
        return out

    def store(self, addresses, values, dtype):
        dtype = np.dtype(dtype)
        which, offsets = self.locate(addresses, dtype.itemsize)
        values = np.asarray(values, dtype)
        for a in np.unique(which):
            sel = which == a
            _scatter(self.buffers[self.bases[a]], offsets[sel], values[sel], dtype)


def _gather(buf, offsets, dtype):
    """Elements of `dtype` at byte `offsets` (aligned) of uint8 array `buf`."""
    w = dtype.itemsize
    if len(buf) % w == 0:
        return buf.view(dtype)[offsets // w]
    index = offsets[:, None] + np.arange(w)
    return np.ascontiguousarray(buf[index]).view(dtype).reshape(-1)


def _scatter(buf, offsets, values, dtype):
    """Store `values` at byte `offsets`; the last of several stores to one place wins (thread
    order), as one of the racing writes would on a GPU."""
    w = dtype.itemsize
    if len(buf) % w == 0:
        buf.view(dtype)[offsets // w] = values
        return
    index = offsets[:, None] + np.arange(w)
    buf[index] = np.ascontiguousarray(values).view(np.uint8).reshape(-1, w)


class SharedMemory:
    """Per-block shared memory (or per-thread local memory: one row per owner) with a
    written-bytes record (reads of unwritten bytes fault)."""

    def __init__(self, blocks, nbytes):
        self.nbytes = nbytes
        self.data = np.zeros((blocks, max(nbytes, 1)), np.uint8)
        self.written = np.zeros((blocks, max(nbytes, 1)), bool)

    def _index(self, block, offsets, width):
        offsets = np.asarray(offsets, np.int64)
        bad = (offsets < 0) | (offsets + width > self.nbytes)
        if bad.any():
            i = np.nonzero(bad)[0]
            raise MemoryFault(f"shared memory access of {width} bytes at offset {int(offsets[i[0]])} "
                              f"outside the block's {self.nbytes} bytes", i, offsets[i])
        if width > 1 and (offsets % width).any():
            i = np.nonzero(offsets % width)[0]
            raise MemoryFault(f"misaligned shared access of {width} bytes at offset "
                              f"{int(offsets[i[0]])}", i, offsets[i])
        return block[:, None] * self.data.shape[1] + offsets[:, None] + np.arange(width)

    def load(self, block, offsets, dtype):
        dtype = np.dtype(dtype)
        index = self._index(block, offsets, dtype.itemsize)
        written = self.written.reshape(-1)[index]
        if not written.all():
            i = np.nonzero(~written.all(axis=1))[0]
            raise MemoryFault(f"read of uninitialized shared memory at offset "
                              f"{int(np.asarray(offsets)[i[0]])}", i, np.asarray(offsets)[i])
        return np.ascontiguousarray(self.data.reshape(-1)[index]).view(dtype).reshape(-1)

    def store(self, block, offsets, values, dtype):
        dtype = np.dtype(dtype)
        index = self._index(block, offsets, dtype.itemsize)
        raw = np.ascontiguousarray(np.asarray(values, dtype)).view(np.uint8).reshape(-1,
                                                                                     dtype.itemsize)
        self.data.reshape(-1)[index] = raw
        self.written.reshape(-1)[index] = True
