"""Device memory of the emulator, checked like compute-sanitizer: global memory is a set of
allocations at 64-bit device addresses (256-byte aligned, with unmapped gaps between them);
shared memory is one byte array per block with a record of which bytes were written. An access
outside every allocation, a misaligned access, or a read of unwritten shared memory raises
MemoryFault with the address; the machine adds the kernel, instruction and thread."""
import bisect

import numpy as np

from accy.errors import AccyError

GLOBAL_BASE = 0x7F0000000000     # first device address handed out
GAP = 1 << 16                    # unmapped bytes between allocations: overruns hit nothing
SHARED_WINDOW = 0x10000000000    # generic addresses [window, window + 2^32) are shared memory
LOCAL_WINDOW = 0x20000000000     # ... and [window, window + 2^32) the thread's local memory
WINDOW_SIZE = 1 << 32


class LaneFault(AccyError):
    """A fault of some of the threads running an instruction; `lanes` index those threads
    among them (the machine turns that into block and thread)."""

    def __init__(self, message, lanes=None, addresses=None, thread=None):
        self.lanes = lanes
        self.addresses = addresses
        self.thread = thread        # or the launch-wide index of the thread to blame
        super().__init__(message)


class MemoryFault(LaneFault):
    """An invalid device memory access (out of bounds, misaligned, uninitialized, a race)."""


class OutOfMemory(AccyError, MemoryError):
    """An allocation larger than the host's memory can hold."""


class GlobalMemory:
    """Allocations addressed by device pointers."""

    def __init__(self):
        self.bases = []          # sorted
        self.buffers = {}        # base -> np.uint8 array
        self.next = GLOBAL_BASE
        self._table = None       # (bases, sizes) as uint64 arrays, rebuilt after (de)allocation

    def alloc(self, nbytes):
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ValueError(f"cannot allocate {nbytes} bytes")
        try:
            buffer = np.zeros(nbytes, np.uint8)
        except MemoryError:
            raise OutOfMemory(f"the emulator cannot allocate {nbytes} bytes: the host's memory "
                              f"cannot hold them") from None
        base = self.next
        self.next = base + ((max(nbytes, 1) + 255) // 256) * 256 + GAP
        self.bases.append(base)
        self.buffers[base] = buffer
        self._table = None
        return base

    def free(self, base):
        if base not in self.buffers:
            raise MemoryFault(f"free of {base:#x}, which is not an allocation")
        del self.buffers[base]
        self.bases.remove(base)
        self._table = None

    def buffer(self, base):
        return self.buffers[base]

    def locate(self, addresses, width):
        """(allocation index per address, byte offset) for accesses of `width` bytes; raises
        MemoryFault naming the first bad access."""
        addresses = np.asarray(addresses, np.uint64)
        if self._table is None:
            self._table = (np.array(self.bases, np.uint64),
                           np.array([self.buffers[b].size for b in self.bases], np.uint64))
        bases, sizes = self._table
        which = np.searchsorted(bases, addresses, side="right").astype(np.int64) - 1
        ok = which >= 0
        safe = np.where(ok, which, 0)
        offsets = addresses - bases[safe] if len(bases) else addresses
        sizes = sizes[safe] if len(bases) else np.zeros(addresses.shape, np.uint64)
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

    def _within_one(self, addresses, width):
        """(buffer, byte offsets) when every access lies, aligned, inside one allocation (the
        common case, checked by its lowest and highest address); else None, and `locate`
        sorts the accesses out (and names any bad one)."""
        addresses = np.asarray(addresses, np.uint64)
        if len(addresses) == 1:
            low = high = int(addresses[0])
        elif len(addresses):
            low, high = int(addresses.min()), int(addresses.max())
        else:
            return None
        i = bisect.bisect_right(self.bases, low) - 1
        if i < 0:
            return None
        base = self.bases[i]
        buf = self.buffers[base]
        if high + width > base + buf.size or width > 1 and (addresses % np.uint64(width)).any():
            return None
        return buf, (addresses - np.uint64(base)).astype(np.int64)

    def load(self, addresses, dtype):
        dtype = np.dtype(dtype)
        one = self._within_one(addresses, dtype.itemsize)
        if one is not None:
            return _gather(*one, dtype)
        which, offsets = self.locate(addresses, dtype.itemsize)
        out = np.empty(len(offsets), dtype)
        for a in np.unique(which):
            sel = which == a
            view = self.buffers[self.bases[a]].view(np.uint8)
            out[sel] = _gather(view, offsets[sel], dtype)
        return out

    def store(self, addresses, values, dtype):
        dtype = np.dtype(dtype)
        one = self._within_one(addresses, dtype.itemsize)
        if one is not None:
            _scatter(*one, np.asarray(values, dtype), dtype)
            return
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


_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class SharedMemory:
    """Per-block shared memory (or per-thread local memory: one row per owner) with a
    written-bytes record (reads of unwritten bytes fault). Rows are padded to 16 bytes so an
    aligned access of up to 8 bytes is one element of a typed view: no per-byte indices.

    With `racecheck`, it also finds the races a missing barrier causes, as compute-sanitizer's
    racecheck does, though lockstep execution hides their effect: for each address it keeps
    the warp that last wrote it and the warp that last read it, with the block's barrier
    epoch at the time; another warp's access in the same epoch (write after read, read after
    write, write after write) is a race. Warps are the unit: lanes of one warp are taken to run
    together, and atomics are never races."""

    def __init__(self, rows, nbytes, racecheck=False, what="shared memory"):
        self.nbytes = nbytes
        self.what = what
        self.row = max(16, -(-nbytes // 16) * 16)
        self.data = np.zeros((rows, self.row), np.uint8)
        self.written = np.zeros((rows, self.row), np.uint8)
        self.racecheck = racecheck
        if racecheck:       # per address: (barrier epoch << 6) | (warp + 1) of the last access
            self.epoch = np.zeros(rows, np.int32)       # barriers each block has passed
            self.last_write = np.zeros(rows * self.row, np.int32)
            self.last_read = np.zeros(rows * self.row, np.int32)

    def grow(self, nbytes, most=None):
        """Make each row hold at least `nbytes` (a deeper call stack), keeping the contents;
        accesses stay checked against `nbytes`. Rows that must grow at least double (a stack
        one frame deeper on each call is copied O(log depth) times), to `most` bytes at most."""
        if nbytes <= self.nbytes:
            return
        row = -(-nbytes // 16) * 16
        if row > self.row:
            row = max(row, min(2 * self.row, (most or 2 * self.row) // 16 * 16))
            pad = ((0, 0), (0, row - self.row))
            self.data, self.written = np.pad(self.data, pad), np.pad(self.written, pad)
            self.row = row
        self.nbytes = nbytes

    def forget(self, owner, start, nbytes):
        """Bytes [start, start + nbytes) of rows `owner` become unwritten (a new call frame:
        reading what an earlier activation left there faults)."""
        self.written[owner, start:start + nbytes] = 0

    def copy(self, owner, source, target, nbytes):
        """Move `nbytes` from offset `source` to `target` of rows `owner`, with their written
        record (a call's arguments and results: bytes never written stay unreadable)."""
        for array in (self.data, self.written):
            array[owner, target:target + nbytes] = array[owner, source:source + nbytes]

    def barrier(self, rows):
        """The blocks `rows` passed a barrier: what came before is ordered with what follows."""
        if self.racecheck:
            self.epoch[rows] += 1

    def _races(self, owner, offsets, warps, write):
        """Fault on another warp's unsynchronized access to the same addresses; then record
        this one."""
        at = owner * self.row + np.asarray(offsets, np.int64)
        mine = (self.epoch[owner] << 6) | (warps.astype(np.int32) + 1)
        checks = ((self.last_write, "wrote"), (self.last_read, "read")) if write else \
            ((self.last_write, "wrote"),)
        for last, verb in checks:
            other = last[at]
            race = (other >> 6 == mine >> 6) & (other != 0) & (other != mine)
            if race.any():
                i = np.flatnonzero(race)
                raise MemoryFault(
                    f"race on shared memory at offset {int(np.asarray(offsets)[i[0]])}: "
                    f"{'written' if write else 'read'} by warp {int(warps[i[0]])} after warp "
                    f"{int(other[i[0]] & 63) - 1} {verb} it, with no barrier between (a missing "
                    f"bar.sync / __syncthreads)", i, np.asarray(offsets)[i])
        (self.last_write if write else self.last_read)[at] = mine

    def _check(self, offsets, width):
        if not len(offsets):
            return
        if offsets.min() < 0 or offsets.max() + width > self.nbytes:
            i = np.nonzero((offsets < 0) | (offsets + width > self.nbytes))[0]
            raise MemoryFault(f"{self.what} access of {width} bytes at offset "
                              f"{int(offsets[i[0]])} outside its {self.nbytes} bytes",
                              i, offsets[i])
        if width > 1 and (offsets % width).any():
            i = np.nonzero(offsets % width)[0]
            raise MemoryFault(f"misaligned {self.what} access of {width} bytes at offset "
                              f"{int(offsets[i[0]])}", i, offsets[i])

    def _index(self, owner, offsets, width):
        """Flat byte indices, (accesses, width), of checked accesses."""
        offsets = np.asarray(offsets, np.int64)
        self._check(offsets, width)
        return owner[:, None] * self.row + offsets[:, None] + np.arange(width)

    def _elements(self, owner, offsets, width):
        """Flat element indices into the width-byte views, of checked aligned accesses."""
        offsets = np.asarray(offsets, np.int64)
        self._check(offsets, width)
        return (owner * self.row + offsets) // width

    def load(self, owner, offsets, dtype, warps=None):
        """`dtype` values at `offsets` of rows `owner`; `warps` (the accessing threads' warps
        within their block) turns on the race check for this access."""
        dtype = np.dtype(dtype)
        w = dtype.itemsize
        if warps is not None and self.racecheck:
            self._check(np.asarray(offsets, np.int64), w)
            self._races(owner, offsets, warps, write=False)
        if w > 8:
            index = self._index(owner, offsets, w)
            if not self.written.reshape(-1)[index].all():
                self._uninitialized(offsets, ~self.written.reshape(-1)[index].all(axis=1))
            return np.ascontiguousarray(self.data.reshape(-1)[index]).view(dtype).reshape(-1)
        flat = self._elements(owner, offsets, w)
        written = self.written.reshape(-1).view(_UINT[w])[flat]
        full = _UINT[w](int.from_bytes(b"\x01" * w, "little"))
        if not (written == full).all():
            self._uninitialized(offsets, written != full)
        return self.data.reshape(-1).view(dtype)[flat]

    def store(self, owner, offsets, values, dtype, warps=None):
        dtype = np.dtype(dtype)
        w = dtype.itemsize
        values = np.asarray(values, dtype)
        if warps is not None and self.racecheck:
            self._check(np.asarray(offsets, np.int64), w)
            self._races(owner, offsets, warps, write=True)
        if w > 8:
            index = self._index(owner, offsets, w)
            self.data.reshape(-1)[index] = np.ascontiguousarray(values).view(np.uint8).reshape(-1, w)
            self.written.reshape(-1)[index] = 1
            return
        flat = self._elements(owner, offsets, w)
        self.data.reshape(-1).view(dtype)[flat] = values
        self.written.reshape(-1).view(_UINT[w])[flat] = int.from_bytes(b"\x01" * w, "little")

    def _uninitialized(self, offsets, bad):
        i = np.nonzero(bad)[0]
        offsets = np.asarray(offsets)
        raise MemoryFault(f"read of uninitialized {self.what} at offset {int(offsets[i[0]])}",
                          i, offsets[i])
