"""One kernel launch: every thread of the grid in lockstep as numpy arrays.

Registers hold raw bits (uint8/16/32/64, bool for predicates), one array element per thread;
an instruction reads them as its type. Each step runs the instruction at the lowest program
counter among live threads, for the threads at that PC (the rule that keeps structured
divergence and loops correct; with device functions, the first call stack, then PC:
calls.CallStack.next_group). While all live threads share one PC (the common case) the PC is
a scalar and instructions run on whole arrays without index gathers.
"""
import functools
import time

import numpy as np

from accy._core.types import numpy_dtype
from accy.errors import AccyError
from accy.runtime.emulator.memory import LaneFault, SharedMemory, SHARED_WINDOW, \
    LOCAL_WINDOW, WINDOW_SIZE
from accy.runtime.emulator.ptx import Imm, NotPred, Reg, Special, Symbol, TYPE_BYTES


class _Views(dict):
    """PTX type -> numpy type that reads its bits; bf16's (ml_dtypes) is looked up on first
    read, so that a kernel without bf16 never loads ml_dtypes."""

    def __missing__(self, key):
        if key != "bf16":
            raise KeyError(key)
        self[key] = numpy_dtype("bf16")
        return self[key]

    def __contains__(self, key):
        return key == "bf16" or dict.__contains__(self, key)


STORAGE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
VIEW = _Views({"b8": np.uint8, "u8": np.uint8, "s8": np.int8, "b16": np.uint16, "u16": np.uint16,
               "s16": np.int16, "f16": np.float16, "b32": np.uint32, "u32": np.uint32,
               "s32": np.int32, "f32": np.float32, "f16x2": np.uint32, "bf16x2": np.uint32,
               "tf32": np.float32, "b64": np.uint64, "u64": np.uint64, "s64": np.int64,
               "f64": np.float64, "pred": np.bool_})
MAX_STEPS = 20_000_000           # instruction steps per launch before it counts as a hang
TIME_LIMIT = 600.0               # seconds per launch, likewise (a spin-wait on many threads)


class KernelFault(AccyError):
    """A kernel did something invalid (bad memory access, deadlock, unsupported instruction);
    names the kernel, the PTX line and instruction, a thread and the address."""


class Machine:
    def __init__(self, module, kernel, grid, block, shared_bytes, params, memory, handlers,
                 globals_=None):
        self.module, self.kernel, self.memory = module, kernel, memory
        self.handlers = handlers
        gx, gy, gz = grid
        bx, by, bz = block
        self.block_size = bx * by * bz
        self.blocks = gx * gy * gz
        n = self.T = self.blocks * self.block_size
        t = self.all_threads = np.arange(n, dtype=np.int64)
        local, blk = t % self.block_size, t // self.block_size
        self.block_of = blk
        self.local = local
        # per-thread special registers, each computed when an instruction first reads it
        # (a launch of a million threads would spend most of its time on unused ones)
        self.special = _Specials({
            "tid.x": lambda: local % bx, "tid.y": lambda: (local // bx) % by,
            "tid.z": lambda: local // (bx * by), "ctaid.x": lambda: blk % gx,
            "ctaid.y": lambda: (blk // gx) % gy, "ctaid.z": lambda: blk // (gx * gy),
            "laneid": lambda: local % 32, "warpid": lambda: local // 32,
            # %lanemask_eq/lt/le/gt/ge: bits by lane position
            "lanemask_eq": lambda: np.int64(1) << self.special["laneid"],
            "lanemask_lt": lambda: (np.int64(1) << self.special["laneid"]) - 1,
            "lanemask_le": lambda: (np.int64(2) << self.special["laneid"]) - 1,
            "lanemask_gt": lambda: 0xFFFFFFFF ^ ((np.int64(2) << self.special["laneid"]) - 1),
            "lanemask_ge": lambda: 0xFFFFFFFF ^ ((np.int64(1) << self.special["laneid"]) - 1)})
        self.consts = {"ntid.x": bx, "ntid.y": by, "ntid.z": bz, "nctaid.x": gx,
                       "nctaid.y": gy, "nctaid.z": gz, "nwarpid": (self.block_size + 31) // 32,
                       "dynamic_smem_size": shared_bytes, "smid": 0, "nsmid": 1, "gridid": 0}
        self.regs = {name: np.zeros(n, np.bool_ if dt == "pred" else STORAGE[TYPE_BYTES[dt]])
                     for name, dt in kernel.registers.items()}
        self.reg_types = kernel.registers
        self.pc_of = {id(ins): pc for pc, ins in enumerate(kernel.instructions)}
        self.params = self._param_block(params)
        self.symbols, shared_size = self._layout_shared(shared_bytes)
        self.shared = SharedMemory(self.blocks, shared_size, racecheck=True)
        self.consts["total_smem_size"] = shared_size
        # .local variables: one private window per thread, laid out like shared memory
        self.local_symbols, local_size = _layout(v for v in kernel.variables
                                                 if v.space == "local")
        self.local_memory = SharedMemory(n, local_size, what="local memory")
        self.globals = globals_ or {}       # module .global/.const variable -> device address
        self.done = np.zeros(n, bool)
        self.pc = 0                   # the one PC while converged, else None
        self.pcs = None               # else each thread's PC; finished threads at `finished`
        self.finished = len(kernel.instructions) + 1
        self.clock = 0
        self.steps = 0
        self.thread_instructions = 0
        self.counters = None            # a counters.MemoryCounters while counting
        self.call_stack = None          # a calls.CallStack once a device function is called
        self._readers, self._writers = {}, {}     # (id(operand), dtype) -> (operand, fn)

    @functools.cached_property
    def warp_of(self):
        """Each thread's warp, numbered across the launch."""
        return self.block_of * ((self.block_size + 31) // 32) + self.local // 32

    @functools.cached_property
    def warp_in_block(self):
        """Each thread's warp within its block (for the shared race check)."""
        return (self.local // 32).astype(np.int8)

    # ---- setup ---------------------------------------------------------------------------
    def _param_block(self, values):
        """Each parameter's bytes, as a driver passes them: a numpy scalar's own bytes (its
        size must be the parameter's), `bytes` of exactly that size (a struct), or a device
        pointer / Python int for a 64-bit integer parameter. Nothing is converted."""
        params = {}
        if len(values) != len(self.kernel.params):
            raise KernelFault(f"kernel {self.kernel.name} takes {len(self.kernel.params)} "
                              f"parameters, got {len(values)}")
        for i, ((name, dtype, size, _), value) in enumerate(zip(self.kernel.params, values)):
            if isinstance(value, (bytes, bytearray)):
                raw = bytes(value)
            elif isinstance(value, np.generic):
                raw = value.tobytes()
            elif isinstance(value, int) and not isinstance(value, bool) and size == 8 and \
                    dtype in ("u64", "s64", "b64"):
                raw = int(value).to_bytes(8, "little", signed=value < 0)
            else:
                raise KernelFault(f"kernel {self.kernel.name}: parameter {i} ({name}, .{dtype}, "
                                  f"{size} bytes) needs a numpy scalar, bytes or (for a 64-bit "
                                  f"pointer) a device pointer; got {type(value).__name__}")
            if len(raw) != size:
                raise KernelFault(f"kernel {self.kernel.name}: parameter {i} ({name}) is "
                                  f"{size} bytes, the argument {len(raw)} "
                                  f"({getattr(value, 'dtype', type(value).__name__)})")
            params[name] = raw
        return params

    def _layout_shared(self, dynamic):
        """Offsets of the kernel's (and module's) shared variables; extern `[]` ones get the
        dynamic bytes, placed last."""
        for v in self.kernel.variables:
            if v.space not in ("shared", "local"):
                raise KernelFault(f"kernel {self.kernel.name}: .{v.space} variables inside a "
                                  f"kernel are not supported ({v.name})")
        return _layout((v for v in self.module.variables + self.kernel.variables
                        if v.space == "shared"), dynamic)

    # ---- operands --------------------------------------------------------------------------
    # An instruction resolves its operands once, when it is compiled: reader/writer/addresser
    # give functions of the threads `idx` with the operand's kind, register array and type
    # conversion already looked up (a step then costs only its numpy work). read/write/address
    # are the same, resolved on each call (cached per operand).
    def read(self, operand, dtype, idx):
        """Operand as an array of `dtype` (a PTX type name) for threads `idx`."""
        return self.reader(operand, dtype)(idx)

    def write(self, operand, value, dtype, idx):
        self.writer(operand, dtype)(value, idx)

    def address(self, operand, idx):
        """The uint64 addresses of an Address operand for threads `idx`."""
        return self.addresser(operand)(idx)

    def reader(self, operand, dtype):
        """fn(idx) -> the operand as an array of `dtype` for threads `idx`."""
        return self._resolved(self._readers, operand, dtype, self._make_reader)

    def writer(self, operand, dtype):
        """fn(value, idx): store `value` (of PTX type `dtype`) into the operand for `idx`."""
        return self._resolved(self._writers, operand, dtype, self._make_writer)

    def addresser(self, operand):
        """fn(idx) -> the uint64 addresses of an Address operand for threads `idx`."""
        return self._resolved(self._readers, operand, "address", self._make_addresser)

    @staticmethod
    def _resolved(cache, operand, dtype, make):
        key = (id(operand), dtype)      # the operand is kept, so its id stays its own
        hit = cache.get(key)
        if hit is None or hit[0] is not operand:
            hit = cache[key] = (operand, make(operand, dtype))
        return hit[1]

    def _make_reader(self, operand, dtype):
        if dtype not in VIEW:
            return _fails(f"cannot read {operand} as .{dtype}")
        view = VIEW[dtype]
        count = self._count
        if isinstance(operand, Reg) and operand.name in self.regs:
            reg, reg_type = self.regs[operand.name], self.reg_types[operand.name]
            typed = _typed_view(reg, reg_type, dtype)
            if typed is not None:               # the same bits: index a view of that type
                return typed.__getitem__
            convert = _reader_of(reg_type, dtype)
            return lambda idx: convert(reg[idx])
        if isinstance(operand, NotPred) and operand.pred.name in self.regs:
            reg = self.regs[operand.pred.name]
            return lambda idx: ~reg[idx].astype(bool)
        if isinstance(operand, Imm) or isinstance(operand, Special) and \
                operand.name in self.consts:
            one, threads = self._constant(operand, dtype), self.T     # the value for one thread
            return lambda idx: one.repeat(threads if isinstance(idx, slice) else len(idx))
        if isinstance(operand, Special) and operand.name in self.special:
            values = self.special[operand.name].astype(view)
            return lambda idx: values.copy() if isinstance(idx, slice) else values[idx]
        if isinstance(operand, Special):             # the clocks; unsupported ones fault here
            return lambda idx: self._special(operand.name, idx).astype(view)
        if isinstance(operand, Symbol):              # a variable's address
            return lambda idx: np.full(count(idx), self.symbol_address(operand.name),
                                       dtype=view)
        return _fails(f"cannot read operand {operand}")

    def _constant(self, operand, dtype):
        """An immediate or a constant special register as a one-element array of `dtype`."""
        view = VIEW[dtype]
        if isinstance(operand, Special):
            return np.full(1, self.consts[operand.name], np.int64).astype(view)
        if dtype == "pred":
            return np.full(1, bool(operand.value))
        value = operand.value
        if operand.is_float and not dtype.startswith(("f", "bf", "tf")):
            bits = np.array(value, np.float32 if TYPE_BYTES[dtype] == 4 else np.float64)
            return np.full(1, bits.view(STORAGE[bits.itemsize])).astype(view, copy=False)
        if not operand.is_float:
            value = np.array(value & ((1 << 8 * np.dtype(view).itemsize) - 1)
                             if np.dtype(view).kind in "ui" else value)
            if np.dtype(view).kind == "i":
                value = value.astype(STORAGE[np.dtype(view).itemsize]).view(view)
            elif np.dtype(view).kind == "u":
                value = value.astype(view)
        return np.full(1, value, dtype=view)

    def _make_writer(self, operand, dtype):
        if isinstance(operand, Reg) and operand.name == "_":
            return lambda value, idx: None
        if not isinstance(operand, Reg):
            return _fails(f"cannot write to {operand}")
        if dtype not in VIEW:
            return _fails(f"cannot write {operand} as .{dtype}")
        reg, reg_type = self.regs[operand.name], self.reg_types[operand.name]
        convert, typed = _storer_of(dtype, reg_type), _typed_view(reg, reg_type, dtype)
        if typed is None:
            def put(value, idx):
                reg[idx] = convert(np.asarray(value))
            return put
        view = typed.dtype

        def put_typed(value, idx):          # a value of the type: its bits as they are
            if type(value) is np.ndarray and value.dtype == view:
                typed[idx] = value
            else:
                reg[idx] = convert(np.asarray(value))
        return put_typed

    def _make_addresser(self, operand, _):
        base = operand.base
        if isinstance(base, Reg):
            # the register's bits plus the offset, modulo the register's width (a 32-bit
            # shared address minus 128 plus 128 is the address again), then zero-extended
            reg = self.regs[base.name]
            if reg.dtype.itemsize == 8:
                offset = np.uint64(operand.offset % (1 << 64))
                return lambda idx: reg[idx] + offset
            offset = reg.dtype.type(operand.offset % (1 << 8 * reg.dtype.itemsize))
            return lambda idx: (reg[idx] + offset).astype(np.uint64)
        count = self._count
        if isinstance(base, Symbol):
            return lambda idx: np.full(count(idx), self.symbol_address(base.name) +
                                       operand.offset, np.uint64)
        return lambda idx: np.full(count(idx), operand.offset, np.uint64)

    def _special(self, name, idx):
        """A special register that changes between reads (the clocks); _make_reader serves the
        per-thread and constant ones."""
        if name in ("clock", "clock64", "globaltimer"):
            self.clock += 1
            return np.full(self._count(idx), self.clock, np.int64)
        raise KernelFault(f"special register %{name} is not supported")

    def _count(self, idx):
        return self.T if isinstance(idx, slice) else len(idx)

    # ---- addresses -----------------------------------------------------------------------------
    def symbol_address(self, name):
        """A variable's address in its own space: a shared or local offset, or a device
        address for module .global/.const variables."""
        for table in (self.symbols, self.local_symbols, self.globals):
            if name in table:
                return table[name]
        raise KernelFault(f"{name} is not a variable of this kernel or module")

    def param_bytes(self, operand):
        base = operand.base
        if not isinstance(base, Symbol) or base.name not in self.params:
            raise KernelFault(f"ld.param needs a parameter name, got {operand}")
        return self.params[base.name], operand.offset

    def load(self, space, addresses, dtype, idx, atomic=False):
        return self._access(space, addresses, np.dtype(VIEW[dtype]), idx, None, atomic)

    def store(self, space, addresses, values, dtype, idx, atomic=False):
        self._access(space, addresses, np.dtype(VIEW[dtype]), idx, np.asarray(values), atomic)

    def _access(self, space, addresses, dtype, idx, values=None, atomic=False):
        """Load (values None) or store at `addresses` of `space`; generic addresses are split
        by window: shared, local, else global."""
        if space == "generic":
            windows = np.zeros(len(addresses), np.int8)
            for code, base in ((1, SHARED_WINDOW), (2, LOCAL_WINDOW)):
                windows[(addresses >= base) & (addresses < base + WINDOW_SIZE)] = code
            if not windows.any():
                space = "global"
            elif (windows == windows[0]).all():
                space = "shared" if windows[0] == 1 else "local"
                addresses = addresses - np.uint64(SHARED_WINDOW if windows[0] == 1
                                                  else LOCAL_WINDOW)
            else:                       # a mix of spaces in one instruction: split it
                threads = self.threads(idx)
                out = np.empty(len(addresses), dtype) if values is None else None
                for code in np.unique(windows):
                    sel = windows == code
                    try:
                        sub = self._access("generic", addresses[sel], dtype, threads[sel],
                                           None if values is None else values[sel], atomic)
                    except LaneFault as e:       # name the lane among all of this access
                        raise LaneFault(str(e), np.flatnonzero(sel)[e.lanes], e.addresses) \
                            from None
                    if out is not None:
                        out[sel] = sub
                return out
        if space in ("global", "const"):
            return self.memory.load(addresses, dtype) if values is None else \
                self.memory.store(addresses, values, dtype)
        offsets = addresses.astype(np.int64)
        if space == "shared":
            memory, owner = self.shared, self._blocks(idx)
            kw = {} if atomic else {"warps": self.warp_in_block[idx]}
        else:
            memory, owner, kw = self.local_memory, self.threads(idx), {}
        return memory.load(owner, offsets, dtype, **kw) if values is None else \
            memory.store(owner, offsets, values, dtype, **kw)

    def count(self, ins, space, addresses, width, idx):
        """Record one execution of memory instruction `ins` (each thread of `idx` moving
        `width` bytes from `addresses` of `space`) when the launch counts transactions."""
        if self.counters is None or space not in ("shared", "global", "generic"):
            return
        threads = self.threads(idx)
        addresses = np.asarray(addresses, np.uint64)
        spaces = [(space, np.ones(len(addresses), bool), 0)]
        if space == "generic":
            shared = (addresses >= SHARED_WINDOW) & (addresses < SHARED_WINDOW + WINDOW_SIZE)
            local = (addresses >= LOCAL_WINDOW) & (addresses < LOCAL_WINDOW + WINDOW_SIZE)
            spaces = [("shared", shared, SHARED_WINDOW), ("global", ~shared & ~local, 0)]
        for name, sel, base in spaces:
            if sel.any():
                self.counters.record(ins.text, name, self.warp_of[threads[sel]],
                                     self.special["laneid"][threads[sel]],
                                     addresses[sel] - np.uint64(base), width)

    def _blocks(self, idx):
        return self.block_of[idx]

    def threads(self, idx):
        """Thread indices of `idx` (a slice of all threads, or an index array)."""
        return self.all_threads if isinstance(idx, slice) else idx

    # ---- synchronization and atomics ------------------------------------------------------------
    def check_warp_lanes(self, run, masks, what):
        """Warp-synchronous ops (shfl/vote/redux/match .sync): every lane named in a running
        thread's membermask (and present in its warp) must be running the instruction too;
        a lane that exited or is elsewhere would make the GPU wait forever or read garbage."""
        threads = self.threads(run)
        warp = self.warp_of[threads]
        lane = self.special["laneid"][threads].astype(np.uint64)
        present = np.zeros(int(self.warp_of[-1]) + 1, np.uint64)
        np.bitwise_or.at(present, warp, np.uint64(1) << lane)
        first_lane_thread = threads - lane.astype(np.int64)
        lanes_in_warp = np.minimum(self.block_size - self.local[first_lane_thread], 32)
        exists = np.where(lanes_in_warp >= 32, np.uint64(0xFFFFFFFF),
                          (np.uint64(1) << lanes_in_warp.astype(np.uint64)) - np.uint64(1))
        masks = np.broadcast_to(np.asarray(masks, np.uint64), threads.shape)
        missing = masks & exists & ~present[warp]
        if missing.any():
            i = int(np.flatnonzero(missing)[0])
            absent = int(missing[i]).bit_length() - 1
            raise LaneFault(f"{what}: lane {absent} of the membermask {int(masks[i]):#x} is not "
                            f"executing it (it exited, or is at another instruction)", [i])

    def check_barrier(self, run, ins):
        """bar.sync: every live thread of each arriving block must arrive (threads that exited
        count as arrived; a thread at another instruction, or whose guard kept it out, would
        leave the block waiting forever on a GPU). Passing it starts a new race-check epoch."""
        threads = self.threads(run)
        blocks = np.unique(self.block_of[threads])
        arrived = np.bincount(self.block_of[threads], minlength=self.blocks)
        alive = np.bincount(self.block_of[~self.done], minlength=self.blocks)
        short = blocks[arrived[blocks] != alive[blocks]]
        if len(short):
            b = int(short[0])
            running = np.zeros(self.T, bool)
            running[threads] = True
            t = int(np.flatnonzero((self.block_of == b) & ~self.done & ~running)[0])
            if self.pcs is None or self.pcs[t] == self.pc_of[id(ins)]:
                where = "is here, but its guard keeps it from the barrier"
            else:
                other = self.kernel.instructions[min(int(self.pcs[t]),
                                                     len(self.kernel.instructions) - 1)]
                where = f"is at line {other.line} `{other.text}`"
            raise LaneFault(f"deadlock: the barrier is reached by only part of block {b}; "
                            f"thread {t % self.block_size} {where}", thread=t)
        self.shared.barrier(blocks)

    def atomic(self, space, addresses, values, dtype, idx, fn, compare=None):
        """Read-modify-write at `addresses`, one thread at a time in thread order where
        addresses repeat; returns the old values. Integer adds resolve in one pass (a running
        sum per location); few hot locations fold one by one (a numpy ufunc as one
        `accumulate`); many locations go in rounds of one thread per location."""
        threads = self.threads(idx)
        key = addresses.astype(np.uint64)
        if space == "shared":
            key = self.block_of[threads].astype(np.uint64) << np.uint64(32) | key
        view = VIEW[dtype]
        old = np.empty(len(threads), view)
        order = np.argsort(key, kind="stable")          # by location, then thread order
        sorted_key = key[order]
        starts = np.r_[0, np.flatnonzero(sorted_key[1:] != sorted_key[:-1]) + 1]
        sizes = np.diff(np.r_[starts, len(order)])
        first = order[starts]

        def access(sel, values=None):                   # a fault names its thread among all
            try:
                if values is None:
                    return self.load(space, addresses[sel], dtype, threads[sel], atomic=True)
                self.store(space, addresses[sel], values, dtype, threads[sel], atomic=True)
            except LaneFault as e:
                raise LaneFault(str(e), np.asarray(sel)[e.lanes], e.addresses) from None

        with np.errstate(all="ignore"):
            if fn is np.add and compare is None and np.dtype(view).kind in "iu":
                base = access(first)
                sorted_values = values[order].astype(view)
                running = np.cumsum(sorted_values, dtype=view)
                before = running - sorted_values                          # exclusive
                group = np.repeat(np.arange(len(starts)), sizes)
                old[order] = base[group] + (before - before[starts][group])
                access(first, base + running[starts + sizes - 1] - before[starts])
                return old
            rounds = int(sizes.max()) if len(sizes) else 0
            if len(starts) < rounds:        # few hot locations: fold each in thread order
                base = access(first)
                for g, (start, size) in enumerate(zip(starts, sizes)):
                    who = order[start:start + size]
                    if isinstance(fn, np.ufunc) and compare is None:
                        seq = fn.accumulate(np.r_[base[g:g + 1], values[who].astype(view)],
                                            dtype=view)
                        old[who] = seq[:-1]
                        base[g] = seq[-1]
                        continue
                    current = base[g:g + 1]
                    for k in who:           # CAS and lambdas: one element at a time
                        old[k] = current[0]
                        if compare is not None:
                            current = np.where(current == compare[k], values[k:k + 1], current)
                        else:
                            current = np.asarray(fn(current, values[k:k + 1])).astype(view)
                    base[g] = current[0]
                access(first, base)
                return old
            rank = np.arange(len(order)) - np.repeat(starts, sizes)
            by_rank = order[np.argsort(rank, kind="stable")]
            bounds = np.r_[0, np.cumsum(np.bincount(rank))]
            for r in range(rounds):
                sel = np.sort(by_rank[bounds[r]:bounds[r + 1]])   # one thread per location
                current = access(sel)
                old[sel] = current
                if compare is not None:
                    new = np.where(current == compare[sel], values[sel], current)
                else:
                    new = np.asarray(fn(current, values[sel])).astype(view)
                access(sel, new)
        return old

    # ---- execution -------------------------------------------------------------------------------
    def run(self, time_limit=TIME_LIMIT):
        """Run the launch to its end. Instructions run with numpy's floating-point errors
        ignored: a kernel's overflows and invalid operations are values (inf, NaN), not
        warnings (so an instruction need not set that up on each step)."""
        with np.errstate(all="ignore"):
            self._run(time_limit)

    def _run(self, time_limit):
        deadline = time.monotonic() + time_limit
        instructions = self.kernel.instructions
        compiled = [self.handlers.compile(ins, self) for ins in instructions]
        unguarded = [ins.guard is None for ins in instructions]
        n = len(instructions)
        live, live_count = slice(None), self.T      # the live threads while converged
        while True:
            self.steps += 1
            # the clock is read every 1024 steps, and on every diverged step (those can be
            # slow: a wide launch's groups found one by one)
            if self.steps > MAX_STEPS or ((self.steps & 1023 == 0 or self.pc is None) and
                                          time.monotonic() > deadline):
                where = instructions[min(self.pc if self.pc is not None else
                                         int(self.pcs[~self.done].min()), n - 1)]
                raise KernelFault(f"kernel {self.kernel.name} ran {self.steps} steps "
                                  f"({time_limit:.0f} s at most): an endless loop? Now at line "
                                  f"{where.line} `{where.text}`")
            pc = self.pc
            if pc is not None and pc < n and unguarded[pc]:
                # converged and unguarded (most steps): run it for all live threads here,
                # without the general step's guard and PC bookkeeping (_step and _advance's
                # rules for this case, restated: a change to one is a change to both)
                self.thread_instructions += live_count
                try:
                    target = compiled[pc](live)
                except (LaneFault, KernelFault) as e:
                    raise self._fault(e, instructions[pc], live) from None
                if target is None:
                    self.pc = pc + 1
                    continue
                if target != "exit":
                    self.pc = target
                    continue
                self.done[live] = True      # the live threads are all that had not finished
                return
            if pc is not None:
                at = live
            else:
                if self.call_stack is None:         # (finished threads wait past the end)
                    pc = int(self.pcs.min())
                    at = np.flatnonzero(self.pcs == pc)
                else:                   # threads inside a call before those after it
                    pc, at = self.call_stack.next_group(self.pcs)
                if pc > n:
                    return
                if len(at) == self.T - np.count_nonzero(self.done) and \
                        (self.call_stack is None or self.call_stack.one_stack(at)):
                    # everyone is back together
                    self.pc, self.pcs = pc, None
                    live = slice(None) if len(at) == self.T else at
                    live_count = len(at)
                    continue
            if pc >= n:                                  # ran off the end: as `ret`
                self.done[at] = True
                if self.pc is not None:
                    return
                self.pcs[at] = self.finished
                continue
            exited = self._step(compiled[pc], instructions[pc], pc, at)
            if exited and self.pc is not None:
                alive = ~self.done
                if not alive.any():
                    return
                live = np.nonzero(alive)[0]
                live_count = len(live)

    def _step(self, fn, ins, pc, at):
        """Run `ins` for threads `at` (all at `pc`) and move their PCs on; True when some
        threads exited."""
        self.thread_instructions += self._count(at)
        run = at
        if ins.guard is not None:
            pred = self.regs[ins.guard.name][at]
            if ins.negate:
                pred = ~pred
            if not pred.all():
                run = np.nonzero(pred)[0] if isinstance(at, slice) else at[pred]
        try:
            target = fn(run)
        except (LaneFault, KernelFault) as e:
            raise self._fault(e, ins, run) from None
        return self._advance(pc, at, run, target)

    def _fault(self, error, ins, run):
        """The KernelFault to raise for `error` raised by `ins` running for threads `run`:
        naming the kernel, the line, the instruction and the thread to blame."""
        if isinstance(error, LaneFault):
            if error.thread is not None:
                thread = error.thread
            else:
                lane = error.lanes[0] if error.lanes is not None and len(error.lanes) else 0
                thread = int(self.threads(run)[lane])
            return KernelFault(self.where(ins, thread, str(error)))
        if str(error).startswith("kernel "):
            return error
        threads = self.threads(run)
        return KernelFault(self.where(ins, int(threads[0]) if len(threads) else 0, str(error)))

    def where(self, ins, thread, message):
        b, t = divmod(thread, self.block_size)
        return (f"kernel {self.kernel.name}, line {ins.line} `{ins.text}`, block {b} thread {t}: "
                f"{message}")

    def _advance(self, pc, at, run, target):
        """target None: every thread of `at` goes to pc + 1; an int: the threads of `run` jump
        there and the rest go on; "exit": the threads of `run` finish. (_run repeats these
        rules inline for a converged unguarded step: keep the two alike.)"""
        everyone = run is at
        if target == "exit":
            self.done[run] = True
            target = None
            exited = True
        else:
            exited = False
        if target is None or everyone:
            next_pc = pc + 1 if target is None else target
            if self.pc is not None:
                self.pc = next_pc
            else:
                self.pcs[at] = next_pc
                if exited:
                    self.pcs[run] = self.finished
            return exited
        if self.pc is not None:                 # a branch taken by some: diverge
            self.pcs = np.where(self.done, self.finished, self.pc).astype(np.int64)
            self.pc = None
        self.pcs[at] = pc + 1
        self.pcs[run] = target
        return exited


class _Specials(dict):
    """name -> per-thread array, computed from its maker on first use and kept."""

    def __init__(self, makers):
        super().__init__()
        self.makers = makers

    def __contains__(self, name):
        return name in self.makers

    def __missing__(self, name):
        value = self[name] = self.makers[name]()
        return value


def _layout(variables, dynamic=0):
    """(name -> offset, total bytes) for variables of one space; extern `[]` ones (size 0)
    get the `dynamic` bytes and go last."""
    offset, symbols = 0, {}
    for v in sorted(variables, key=lambda v: v.size == 0):
        align = max(v.align, 16 if v.size == 0 else 1)
        offset = (offset + align - 1) // align * align
        symbols[v.name] = offset
        offset += v.size if v.size else dynamic
    return symbols, offset


def _fails(message):
    """An operand function that raises `message` when an instruction runs it (an instruction
    that never runs never faults)."""
    def fail(*_):
        raise KernelFault(message)
    return fail


def _typed_view(reg, reg_type, dtype):
    """The register array viewed as PTX type `dtype` where that reads and writes its bits
    unchanged (the same width, neither a predicate: those are read as copies); else None."""
    if reg_type == "pred" or dtype == "pred":
        return None
    view = np.dtype(VIEW[dtype])
    return reg.view(view) if view.itemsize == reg.dtype.itemsize else None


def _reader_of(reg_type, dtype):
    """fn(register bits) -> the bits read as PTX type `dtype` where that is not a view
    (_typed_view): a predicate, or a register truncated or zero-extended to another width."""
    view = np.dtype(VIEW[dtype])
    if reg_type == "pred" or dtype == "pred":
        return (lambda raw: raw.astype(bool)) if dtype == "pred" else \
            (lambda raw: raw.astype(view))
    bits = STORAGE[view.itemsize]
    return lambda raw: raw.astype(bits).view(view)


def _storer_of(dtype, reg_type):
    """fn(value of PTX type `dtype`) -> the bits of a `reg_type` register (extending by the
    type's signedness when the register is wider)."""
    if reg_type == "pred":
        return lambda value: value.astype(bool)
    store = np.dtype(STORAGE[TYPE_BYTES[reg_type]])
    if dtype == "pred":
        as_type = lambda value: value.astype(np.uint8)  # noqa: E731
        kind, width = "u", 1
    else:
        view = np.dtype(VIEW[dtype])
        as_type = lambda value: value.astype(view, copy=False)  # noqa: E731
        kind, width = view.kind, view.itemsize
    if width == store.itemsize:
        return lambda value: as_type(value).view(store)
    if kind == "i":
        signed = SIGNED[store.itemsize]
        return lambda value: as_type(value).astype(signed).view(store)
    bits = STORAGE[width]
    return lambda value: as_type(value).view(bits).astype(store)
