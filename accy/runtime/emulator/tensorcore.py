"""Warp-level matrix and asynchronous-copy instructions: mma.sync, wmma, ldmatrix / stmatrix and
cp.async (with commit_group / wait_group / wait_all).

Warp-wide instructions (`.sync.aligned`) need every lane of each warp that issues them: the
threads that run one are grouped by warp (all warps at once, as numpy arrays of shape
(warps, 32)), and a warp with a lane missing (diverged, guarded off, exited, or a block whose size
is not a multiple of 32) is a KernelFault naming the warp and the count of lanes present.

mma.sync uses the PTX ISA's register fragment layouts exactly ("Matrix Fragments for mma.m16n8k16
/ m16n8k8 / m16n8k4"; groupID = laneid >> 2, threadID_in_group = laneid % 4; the first element of
a .f16x2 / .bf16x2 register is its low half). Supported:
    m16n8k16.row.col  .f32.f16.f16.f32  .f32.bf16.bf16.f32  .f16.f16.f16.f16
    m16n8k8.row.col   .f32.f16.f16.f32  .f32.bf16.bf16.f32  .f16.f16.f16.f16  .f32.tf32.tf32.f32
    m16n8k4.row.col   .f32.tf32.tf32.f32
    m16n8k32 / m16n8k16 / m8n8k16 .row.col{.satfinite} .s32.{s8,u8}.{s8,u8}.s32
Integer products are exact: A·B + C wraps to 32 bits, or with .satfinite clamps to the s32
range ("Matrix Fragments for mma.m16n8k32 / m16n8k16 with integer type / m8n8k16": four 8-bit
elements to a register, the first in the low byte; C/D as the f32 accumulators, or for
m8n8k16 two registers: row groupID, columns 2*threadID_in_group + i).
Float arithmetic: D = A·B + C with every product exact (f16, bf16 and tf32 products fit f64) and the
K products plus C summed in f64 (numpy matmul order), then rounded once to the D type (round to
nearest even). Hardware accumulates in at least f32 precision in an unspecified order, so results
agree with a GPU to within f32 accumulation error, not bit for bit. .tf32 operands are read from
.b32 registers keeping the 19 high bits (the low 13 mantissa bits are ignored, as the tensor
cores do; round with cvt.rna.tf32.f32 first for correctly rounded inputs).

wmma (m16n16k16 .f16 / .bf16 with .f32 or .f16 accumulators, .s8 / .u8 with .s32 ones
(.satfinite as for mma); load.a/b/c, mma, store.d, .row and
.col, any state space): fragments are opaque in PTX, so this emulator picks one fixed layout that
load, mma and store agree on: each 16x16 fragment is two mma.m16n8k16 fragments side by side
(A: the m16n8k16 A layout; B: the k16 B layout for columns 0-7 then 8-15; C/D: the f32 (or f16)
accumulator layout for columns 0-7 then 8-15; .s8/.u8: the m16n8k16 integer A layout, B and
the .s32 C/D likewise side by side). .f16 A/B fragments have 8 registers (16 elements)
per lane, as nvcc declares: registers 4-7 repeat registers 0-3 and mma reads 0-3. Element-wise
code that treats every fragment element alike (fill_fragment, scaling) works with any layout.
The address and stride must be the same in every lane of the warp (the ISA requires it).

ldmatrix / stmatrix .m8n8.x1/.x2/.x4{.trans}.b16: lanes 8i..8i+7 give the row addresses of
matrix i (16-byte aligned); register i of lane l holds row l>>2, columns 2(l%4) and 2(l%4)+1 of
matrix i (with .trans, of its transpose).

cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}:
the copy happens at issue (lockstep makes that a valid schedule); src-size < cp-size zero-fills.
Until the issuing thread's cp.async.wait_group / wait_all covers the copy, its destination bytes
are pending: a read or write of them by any thread (or another cp.async onto them) is a
MemoryFault ("read of shared memory before cp.async.wait_group"), the race a GPU would make.
"""
import numpy as np

from accy.runtime.emulator.instructions import op, unsupported
from accy.runtime.emulator.machine import KernelFault, VIEW
from accy.runtime.emulator.memory import MemoryFault, SharedMemory
from accy.runtime.emulator.ptx import Imm, Reg, Vector, TYPE_BYTES

_LANE = np.arange(32)
_G, _T = _LANE >> 2, _LANE & 3


# ---- fragments ------------------------------------------------------------------------------

class Fragment:
    """Where each register element of each lane sits in a rows x cols matrix.

    index[r, h, lane]: flat (row-major) matrix index of element h of register r in `lane`;
    per: elements per 32-bit register (2 for 16-bit types); primary: the registers read when
    gathering (the others repeat them)."""

    def __init__(self, rows, cols, index, per, primary=None):
        self.rows, self.cols, self.per = rows, cols, per
        self.index = np.asarray(index, np.int64)
        self.nregs = self.index.shape[0]
        self.primary = list(range(self.nregs)) if primary is None else list(primary)
        cover = np.sort(self.index[self.primary].reshape(-1))
        assert np.array_equal(cover, np.arange(rows * cols)), "fragment must cover the matrix"


def _frag(rows, cols, nregs, per, where):
    """where(reg, half, groupID, threadID_in_group) -> (row, col) arrays over lanes."""
    index = np.empty((nregs, per, 32), np.int64)
    for r in range(nregs):
        for h in range(per):
            row, col = where(r, h, _G, _T)
            index[r, h] = np.asarray(row) * cols + np.asarray(col)
    return Fragment(rows, cols, index, per)


def _side_by_side(left, right_cols, cols, duplicate=False):
    """A 16-column fragment from an 8-column one: its registers for columns 0-7, then the same
    layout for columns 8-15 (`right_cols` registers each); optionally all registers again."""
    r, c = np.divmod(left.index, left.cols)
    first = r * cols + c
    index = np.concatenate([first, first + right_cols])
    primary = None
    if duplicate:
        primary = range(index.shape[0])
        index = np.concatenate([index, index])
    return Fragment(left.rows, cols, index, left.per, primary)


# mma.m16n8k16, .f16 / .bf16 (A 16x16, B 16x8 as K x N, C/D 16x8)
A_K16 = _frag(16, 16, 4, 2, lambda r, h, g, t: (g + 8 * (r % 2), 2 * t + h + 8 * (r // 2)))
B_K16 = _frag(16, 8, 2, 2, lambda r, h, g, t: (2 * t + h + 8 * r, g))
# mma.m16n8k8, .f16 / .bf16
A_K8 = _frag(16, 8, 2, 2, lambda r, h, g, t: (g + 8 * r, 2 * t + h))
B_K8 = _frag(8, 8, 1, 2, lambda r, h, g, t: (2 * t + h, g))
# mma.m16n8k8 and m16n8k4, .tf32
A_K8_TF32 = _frag(16, 8, 4, 1, lambda r, h, g, t: (g + 8 * (r % 2), t + 4 * (r // 2)))
B_K8_TF32 = _frag(8, 8, 2, 1, lambda r, h, g, t: (t + 4 * r, g))
A_K4_TF32 = _frag(16, 4, 2, 1, lambda r, h, g, t: (g + 8 * r, t))
B_K4_TF32 = _frag(4, 8, 1, 1, lambda r, h, g, t: (t, g))
# accumulators C / D (16x8): .f32 (4 registers) and .f16 (2 x .f16x2)
C_F32 = _frag(16, 8, 4, 1, lambda r, h, g, t: (g + 8 * (r // 2), 2 * t + r % 2))
C_F16 = _frag(16, 8, 2, 2, lambda r, h, g, t: (g + 8 * r, 2 * t + h))
# integer mma (.s8 / .u8, four to a register; .s32 accumulators): m8n8k16, m16n8k16, m16n8k32
A_M8K16_I8 = _frag(8, 16, 1, 4, lambda r, h, g, t: (g, 4 * t + h))
B_K16_I8 = _frag(16, 8, 1, 4, lambda r, h, g, t: (4 * t + h, g))
C_M8_S32 = _frag(8, 8, 2, 1, lambda r, h, g, t: (g, 2 * t + r))
A_K16_I8 = _frag(16, 16, 2, 4, lambda r, h, g, t: (g + 8 * r, 4 * t + h))
A_K32_I8 = _frag(16, 32, 4, 4, lambda r, h, g, t: (g + 8 * (r % 2), 4 * t + h + 16 * (r // 2)))
B_K32_I8 = _frag(32, 8, 2, 4, lambda r, h, g, t: (4 * t + h + 16 * r, g))
INT_MMA_SHAPES = {"m8n8k16": (A_M8K16_I8, B_K16_I8, C_M8_S32),
                  "m16n8k16": (A_K16_I8, B_K16_I8, C_F32),
                  "m16n8k32": (A_K32_I8, B_K32_I8, C_F32)}
INTEGER = ("s8", "u8")

MMA_SHAPES = {
    # shape: {atype: (A, B, K)}
    "m16n8k16": {"f16": (A_K16, B_K16), "bf16": (A_K16, B_K16)},
    "m16n8k8": {"f16": (A_K8, B_K8), "bf16": (A_K8, B_K8), "tf32": (A_K8_TF32, B_K8_TF32)},
    "m16n8k4": {"tf32": (A_K4_TF32, B_K4_TF32)},
}
ACCUMULATORS = {"f32": C_F32, "f16": C_F16}

# wmma.m16n16k16 (this emulator's fixed layout; see the module docstring)
WMMA = {
    ("a", "f16"): Fragment(16, 16, np.concatenate([A_K16.index, A_K16.index]), 2, range(4)),
    ("a", "bf16"): A_K16,
    ("b", "f16"): _side_by_side(B_K16, 8, 16, duplicate=True),
    ("b", "bf16"): _side_by_side(B_K16, 8, 16),
    ("c", "f32"): _side_by_side(C_F32, 8, 16),
    ("c", "f16"): _side_by_side(C_F16, 8, 16),
    ("a", "s8"): A_K16_I8, ("a", "u8"): A_K16_I8,
    ("b", "s8"): _side_by_side(B_K16_I8, 8, 16), ("b", "u8"): _side_by_side(B_K16_I8, 8, 16),
    ("c", "s32"): _side_by_side(C_F32, 8, 16),
}


def _values(raw, etype, part):
    """Element `part` of 32-bit register bits `raw` as float64 (etype f16/bf16/f32/tf32, or
    s8/u8/s32: exact integers)."""
    if etype in ("f16", "bf16"):
        return ((raw >> np.uint32(16 * part)) & np.uint32(0xFFFF)).astype(np.uint16) \
            .view(VIEW[etype]).astype(np.float64)
    if etype in INTEGER:
        return ((raw >> np.uint32(8 * part)) & np.uint32(0xFF)).astype(np.uint8) \
            .view(VIEW[etype]).astype(np.float64)
    if etype == "s32":
        return raw.view(np.int32).astype(np.float64)
    if etype == "tf32":
        raw = raw & np.uint32(0xFFFFE000)
    return raw.view(np.float32).astype(np.float64)


def _bits(values, etype):
    """float values rounded to etype, as uint32 (16-bit types: uint16 bits widened; s32: exact
    integers, wrapped to 32 bits; s8/u8: in range)."""
    if etype in ("s32",) + INTEGER:
        return np.asarray(values).astype(np.int64).astype(np.uint32) & \
            np.uint32(0xFFFFFFFF if etype == "s32" else 0xFF)
    with np.errstate(all="ignore"):
        v = np.asarray(values).astype(VIEW[etype])
    return v.view(np.uint16).astype(np.uint32) if v.dtype.itemsize == 2 else v.view(np.uint32)


def gather(m, regs, frag, etype, run, nw):
    """The (nw, rows*cols) float64 matrices held by `regs` (a fragment) in each warp."""
    mat = np.empty((nw, frag.rows * frag.cols))
    for r in frag.primary:
        raw = m.read(regs[r], "b32", run).reshape(nw, 32)
        for h in range(frag.per):
            mat[:, frag.index[r, h]] = _values(raw, etype, h)
    return mat


def scatter(m, regs, frag, etype, mat, run):
    """Write (nw, rows*cols) matrices into the fragment registers, rounding to etype."""
    bits = _bits(mat, etype)
    width = 32 // frag.per
    for r in range(frag.nregs):
        word = bits[:, frag.index[r, 0]]
        for h in range(1, frag.per):
            word = word | (bits[:, frag.index[r, h]] << np.uint32(width * h))
        m.write(regs[r], word.reshape(-1), "b32", run)


# ---- warps ------------------------------------------------------------------------------------

def warps(m, run, what):
    """Number of warps in `run`, checking that it is made of whole warps (lane 0..31 in order),
    so that `m.threads(run).reshape(nw, 32)` is the warps' threads."""
    if isinstance(run, slice) and run == slice(None) and m.block_size % 32 == 0:
        return m.T // 32
    threads = m.threads(run)
    n = len(threads)
    if n % 32 == 0 and n:
        lanes = m.special["laneid"][threads].reshape(-1, 32)
        w = m.warp_of[threads].reshape(-1, 32)
        if (lanes == _LANE).all() and (w == w[:, :1]).all():
            return n // 32
    w = m.warp_of[threads]
    ids, counts = np.unique(w, return_counts=True)
    bad = np.nonzero(counts < 32)[0]
    wid = int(ids[bad[0]]) if len(bad) else int(ids[0])
    count = int(counts[bad[0]]) if len(bad) else 32
    per_block = (m.block_size + 31) // 32
    raise KernelFault(f"{what} with only {count} lanes of warp {wid % per_block} (block "
                      f"{wid // per_block}) active: a .sync.aligned instruction needs all 32 "
                      f"lanes of the warp")


def _remap(fault, position):
    """A MemoryFault whose lanes index a larger access array, re-raised with `position(k)`
    mapping access k to its thread's position in the run (what the machine reports)."""
    lanes = None if fault.lanes is None else np.asarray([position(int(k)) for k in fault.lanes])
    return MemoryFault(str(fault), lanes, fault.addresses)


def _regs(operand, count, what):
    items = operand.items if isinstance(operand, Vector) else (operand,)
    if len(items) != count:
        raise KernelFault(f"{what} takes {count} registers, got {len(items)}")
    return items


def _types(ins):
    return [x for x in ins.mods if x in TYPE_BYTES]


def _check(ins, allowed):
    for x in ins.mods:
        if x not in allowed and x not in TYPE_BYTES:
            unsupported(ins, f"modifier .{x}")


# ---- mma.sync -----------------------------------------------------------------------------------

@op("mma")
def _mma(ins, m):
    types = _types(ins)
    integer = len(types) == 4 and types[1] in INTEGER
    shapes = INT_MMA_SHAPES if integer else MMA_SHAPES
    shape = next((x for x in ins.mods if x.startswith("m") and x in shapes), None)
    _check(ins, {"sync", "aligned", "row", "col", shape} | ({"satfinite"} if integer else set()))
    if shape is None or len(types) != 4 or "sync" not in ins.mods or "aligned" not in ins.mods:
        unsupported(ins, f"mma form (supported: mma.sync.aligned.{{{','.join(MMA_SHAPES)}}}"
                         f".row.col with f16, bf16 or tf32 inputs, "
                         f"{{{','.join(INT_MMA_SHAPES)}}}.row.col with s8/u8 ones)")
    dtype, atype, btype, ctype = types
    layouts = [x for x in ins.mods if x in ("row", "col")]
    if layouts != ["row", "col"]:
        raise KernelFault(f"mma.{shape} needs the .row.col layout, got `{ins.text}`")
    if integer:
        return _mma_int(ins, m, shape, types)
    if atype != btype or atype not in MMA_SHAPES[shape] or dtype not in ACCUMULATORS or \
            ctype not in ACCUMULATORS or (atype != "f16" and (dtype, ctype) != ("f32", "f32")) \
            or (atype == "f16" and dtype != ctype):
        unsupported(ins, f"mma type combination .{dtype}.{atype}.{btype}.{ctype}")
    fa, fb = MMA_SHAPES[shape][atype]
    fc, fd = ACCUMULATORS[ctype], ACCUMULATORS[dtype]
    d, a, b, c = (ins.operands + (None,) * 4)[:4]
    if len(ins.operands) != 4:
        raise KernelFault(f"mma takes 4 operands (d, a, b, c), got {len(ins.operands)}")
    d, a, b, c = (_regs(d, fd.nregs, "mma D"), _regs(a, fa.nregs, "mma A"),
                  _regs(b, fb.nregs, "mma B"), _regs(c, fc.nregs, "mma C"))
    M, K, N = fa.rows, fa.cols, fb.cols

    def run(r):
        nw = warps(m, r, "mma.sync")
        A = gather(m, a, fa, atype, r, nw).reshape(nw, M, K)
        B = gather(m, b, fb, btype, r, nw).reshape(nw, K, N)
        C = gather(m, c, fc, ctype, r, nw).reshape(nw, M, N)
        D = np.matmul(A, B) + C
        scatter(m, d, fd, dtype, D.reshape(nw, M * N), r)
    return run


def _mma_int(ins, m, shape, types):
    """D = A·B + C exactly (products and sums are integers well inside f64's 2^53), wrapped to
    32 bits, or with .satfinite clamped to the s32 range."""
    dtype, atype, btype, ctype = types
    if btype not in INTEGER or (dtype, ctype) != ("s32", "s32"):
        unsupported(ins, f"mma type combination .{dtype}.{atype}.{btype}.{ctype} (integer mma "
                         f"is .s32.{{s8,u8}}.{{s8,u8}}.s32)")
    fa, fb, fc = INT_MMA_SHAPES[shape]
    if len(ins.operands) != 4:
        raise KernelFault(f"mma takes 4 operands (d, a, b, c), got {len(ins.operands)}")
    d, a, b, c = ins.operands
    d, a, b, c = (_regs(d, fc.nregs, "mma D"), _regs(a, fa.nregs, "mma A"),
                  _regs(b, fb.nregs, "mma B"), _regs(c, fc.nregs, "mma C"))
    return _int_product(m, (d, a, b, c), (fa, fb, fc), (atype, btype), "satfinite" in ins.mods,
                        "mma.sync")


def _int_product(m, regs, frags, types, saturate, what):
    """The run function of an integer (i)mma: D = A·B + C on s8/u8 fragments, s32 C and D."""
    d, a, b, c = regs
    fa, fb, fc = frags
    M, K, N = fa.rows, fa.cols, fb.cols

    def run(r):
        nw = warps(m, r, what)
        A = gather(m, a, fa, types[0], r, nw).reshape(nw, M, K)
        B = gather(m, b, fb, types[1], r, nw).reshape(nw, K, N)
        C = gather(m, c, fc, "s32", r, nw).reshape(nw, M, N)
        D = np.matmul(A, B) + C
        if saturate:
            D = np.clip(D, -2.0 ** 31, 2.0 ** 31 - 1)
        scatter(m, d, fc, "s32", D.reshape(nw, M * N), r)
    return run


# ---- wmma ---------------------------------------------------------------------------------------

def _space(ins):
    for x in ins.mods:
        if x in ("global", "shared", "shared::cta"):
            return "shared" if x.startswith("shared") else x
        if x in ("local", "const", "param"):
            unsupported(ins, f"state space .{x}")
    return "generic"


def _uniform(m, values, nw, what):
    """The per-warp value of `values` (nw*32), which must agree across each warp's lanes."""
    v = values.reshape(nw, 32)
    if not (v == v[:, :1]).all():
        w = int(np.nonzero((v != v[:, :1]).any(axis=1))[0][0])
        raise KernelFault(f"{what} differs across the lanes of a warp ({w}th warp issuing): "
                          f"wmma needs one value per warp")
    return v[:, 0]


def _warp_threads(m, r, nw):
    """Thread index of lane 0 of each warp (for shared-memory block lookups)."""
    return m.threads(r).reshape(nw, 32)[:, 0]


def _matrix_addresses(base, stride, layout, rows, cols, esize):
    """(nw, rows*cols) addresses of a row- or column-major matrix with a stride in elements."""
    i, j = np.divmod(np.arange(rows * cols, dtype=np.uint64), np.uint64(cols))
    s = stride.astype(np.uint64)[:, None]
    offset = i * s + j if layout == "row" else j * s + i
    return base[:, None] + offset * np.uint64(esize)


@op("wmma")
def _wmma(ins, m):
    kind = ins.mods[0] if ins.mods else ""
    if "m16n16k16" not in ins.mods:
        unsupported(ins, "wmma shape (only m16n16k16)")
    if kind in ("load", "store"):
        return _wmma_memory(ins, m, kind)
    if kind == "mma":
        return _wmma_mma(ins, m)
    unsupported(ins, "wmma operation")


def _wmma_memory(ins, m, kind):
    which = ins.mods[1]
    _check(ins, {kind, which, "sync", "aligned", "row", "col", "m16n16k16", "global", "shared",
                 "shared::cta"})
    (etype,) = _types(ins) or [None]
    layout = next((x for x in ins.mods if x in ("row", "col")), None)
    if (kind == "load" and which not in ("a", "b", "c")) or (kind == "store" and which != "d") \
            or layout is None:
        unsupported(ins, "wmma form")
    frag = WMMA.get(("c" if which == "d" else which, etype))
    if frag is None:
        unsupported(ins, f"wmma fragment .{which}.{etype}")
    space = _space(ins)
    ops = ins.operands
    if len(ops) not in (2, 3):
        raise KernelFault(f"wmma.{kind} takes 2 or 3 operands")
    stride_op = ops[2] if len(ops) == 3 else Imm(16)
    regs, addr = (ops[0], ops[1]) if kind == "load" else (ops[1], ops[0])
    regs = _regs(regs, frag.nregs, f"wmma.{kind}.{which}.{etype}")
    esize = TYPE_BYTES[etype]

    def run(r):
        nw = warps(m, r, f"wmma.{kind}")
        base = _uniform(m, m.address(addr, r), nw, "the address")
        stride = _uniform(m, m.read(stride_op, "u32", r), nw, "the stride")
        where = _matrix_addresses(base, stride, layout, frag.rows, frag.cols, esize).reshape(-1)
        owner = np.repeat(_warp_threads(m, r, nw), frag.rows * frag.cols)
        try:
            if kind == "load":
                values = m.load(space, where, etype, owner).astype(np.float64)
                scatter(m, regs, frag, etype, values.reshape(nw, -1), r)
            else:
                values = gather(m, regs, frag, etype, r, nw).astype(VIEW[etype]).reshape(-1)
                m.store(space, where, values, etype, owner)
        except MemoryFault as e:
            raise _remap(e, lambda k: k // 256 * 32) from None
    return run


def _wmma_mma(ins, m):
    types = _types(ins)
    integer = len(types) == 4 and types[1] in INTEGER
    _check(ins, {"mma", "sync", "aligned", "row", "col", "m16n16k16"} |
           ({"satfinite"} if integer else set()))
    if len(types) == 2:                     # .dtype.ctype: f16 inputs
        dtype, ctype = types
        atype = "f16"
    elif len(types) == 4 and types[1] == types[2]:
        dtype, atype, _, ctype = types
    else:
        unsupported(ins, "wmma.mma types")
    fa, fb = WMMA.get(("a", atype)), WMMA.get(("b", atype))
    fc, fd = WMMA.get(("c", ctype)), WMMA.get(("c", dtype))
    if None in (fa, fb, fc, fd) or (atype == "bf16" and (dtype, ctype) != ("f32", "f32")):
        unsupported(ins, "wmma.mma types")
    if len(ins.operands) != 4:
        raise KernelFault("wmma.mma takes 4 operands (d, a, b, c)")
    d, a, b, c = ins.operands
    d, a, b, c = (_regs(d, fd.nregs, "wmma D"), _regs(a, fa.nregs, "wmma A"),
                  _regs(b, fb.nregs, "wmma B"), _regs(c, fc.nregs, "wmma C"))
    if integer:
        if (dtype, ctype) != ("s32", "s32"):
            unsupported(ins, "wmma.mma types")
        return _int_product(m, (d, a, b, c), (fa, fb, fc), (atype, atype),
                            "satfinite" in ins.mods, "wmma.mma")

    def run(r):
        nw = warps(m, r, "wmma.mma")
        A = gather(m, a, fa, atype, r, nw).reshape(nw, 16, 16)
        B = gather(m, b, fb, atype, r, nw).reshape(nw, 16, 16)
        C = gather(m, c, fc, ctype, r, nw).reshape(nw, 16, 16)
        scatter(m, d, fd, dtype, (np.matmul(A, B) + C).reshape(nw, 256), r)
    return run


# ---- ldmatrix / stmatrix ------------------------------------------------------------------------

def _matrix_count(ins):
    count = next((int(x[1:]) for x in ins.mods if x in ("x1", "x2", "x4")), None)
    if count is None or "m8n8" not in ins.mods or _types(ins) != ["b16"]:
        unsupported(ins, "form (m8n8 .x1/.x2/.x4 .b16 only)")
    _check(ins, {"sync", "aligned", "m8n8", "x1", "x2", "x4", "trans", "shared", "shared::cta"})
    return count


def _row_addresses(m, addr, r, nw, count):
    """(nw, count, 8) row addresses (lanes 8i..8i+7 for matrix i), checked 16-byte aligned."""
    rows = m.address(addr, r).reshape(nw, 32)[:, :8 * count]
    if (rows % np.uint64(16)).any():
        w, lane = (int(x[0]) for x in np.nonzero(rows % np.uint64(16)))
        raise MemoryFault(f"misaligned matrix row address {int(rows[w, lane]):#x} (16-byte "
                          f"alignment needed)", np.array([w * 32 + lane]))
    return rows.reshape(nw, count, 8)


def _element_index(trans):
    """For lane l and half h: (row, col) of the 8x8 matrix it holds."""
    row, col = np.repeat(_G[:, None], 2, 1), 2 * _T[:, None] + np.arange(2)
    return (col, row) if trans else (row, col)


@op("ldmatrix", "stmatrix")
def _matrix_move(ins, m):
    """ldmatrix / stmatrix: 8x8 b16 matrices between shared memory (a row address per lane)
    and the warp's registers (each lane holds two elements of each matrix)."""
    store = ins.opcode == "stmatrix"
    count = _matrix_count(ins)
    space = _space(ins)
    regs_operand, addr = (ins.operands[1], ins.operands[0]) if store else ins.operands
    regs = _regs(regs_operand, count, f"{ins.opcode} .x{count}")
    er, ec = _element_index("trans" in ins.mods)

    def run(r):
        nw = warps(m, r, ins.opcode)
        rows = _row_addresses(m, addr, r, nw, count)
        where = (rows[..., None] + np.arange(0, 16, 2, dtype=np.uint64)).reshape(-1)
        lanes = m.threads(r).reshape(nw, 32)[:, :8 * count]
        m.count(ins, space, rows.reshape(-1), 16, lanes.reshape(-1))   # a 16-byte row a lane
        owner = np.repeat(lanes, 8).reshape(-1)
        try:
            if store:
                mats = np.empty((nw, count, 8, 8), np.uint16)
                for i, reg in enumerate(regs):
                    word = m.read(reg, "b32", r).reshape(nw, 32)
                    mats[:, i][:, er, ec] = np.stack(
                        [word & np.uint32(0xFFFF), word >> np.uint32(16)], -1).astype(np.uint16)
                m.store(space, where, mats.reshape(-1), "b16", owner)
                return
            mats = m.load(space, where, "b16", owner).reshape(nw, count, 8, 8)
        except MemoryFault as e:        # the k-th element access belongs to lane ...
            raise _remap(e, lambda k: k // (64 * count) * 32 + k // 8 % (8 * count)) from None
        for i, reg in enumerate(regs):
            halves = mats[:, i][:, er, ec].astype(np.uint32)               # (nw, 32, 2)
            m.write(reg, (halves[..., 0] | halves[..., 1] << np.uint32(16)).reshape(-1),
                    "b32", r)
    return run


# ---- cp.async --------------------------------------------------------------------------------

class AsyncShared(SharedMemory):
    """Shared memory that knows which bytes have a cp.async copy still pending; reading or
    writing them faults. Replaces a machine's SharedMemory (same arrays) at the first cp.async."""

    @classmethod
    def wrap(cls, shared, threads):
        new = cls.__new__(cls)
        new.__dict__.update(shared.__dict__)
        new.pending = np.zeros(shared.data.size, np.int32)   # copies in flight per byte
        new.in_flight = 0                                       # bytes with pending > 0, roughly
        new.commits = np.zeros(threads, np.int64)               # groups committed per thread
        new.records = []                                        # [threads, group, index, done]
        return new

    def _pending_check(self, block, offsets, width, verb):
        if not self.in_flight:
            return
        index = self._index(block, offsets, width).reshape(len(np.asarray(offsets)), width)
        hit = self.pending[index].any(axis=1)
        if hit.any():
            i = np.nonzero(hit)[0]
            raise MemoryFault(f"{verb} of shared memory before cp.async.wait_group: offset "
                              f"{int(np.asarray(offsets)[i[0]])} has a cp.async copy in flight",
                              i, np.asarray(offsets)[i])

    def load(self, block, offsets, dtype, **kw):
        self._pending_check(block, offsets, np.dtype(dtype).itemsize, "read")
        return super().load(block, offsets, dtype, **kw)

    def store(self, block, offsets, values, dtype, **kw):
        self._pending_check(block, offsets, np.dtype(dtype).itemsize, "write")
        return super().store(block, offsets, values, dtype, **kw)

    def issue(self, threads, block, offsets, raw):
        """Copy raw (n, size) bytes to the threads' destinations and mark them pending."""
        size = raw.shape[1]
        self._pending_check(block, offsets, size, "cp.async write")
        index = self._index(block, offsets, size)
        self.data.reshape(-1)[index] = raw
        self.written.reshape(-1)[index] = True
        np.add.at(self.pending, index.reshape(-1), 1)
        self.in_flight += index.size
        self.records.append([threads, self.commits[threads].copy(), index,
                             np.zeros(len(threads), bool)])

    def wait(self, threads, keep):
        """Complete the copies of `threads` in all but their `keep` newest committed groups
        (keep None: every copy, committed or not)."""
        mask = np.zeros(len(self.commits), bool)
        mask[threads] = True
        alive = []
        for rec in self.records:
            t, group, index, done = rec
            sel = mask[t] & ~done
            if keep is not None:
                sel &= group < self.commits[t] - keep
            if sel.any():
                np.subtract.at(self.pending, index[sel].reshape(-1), 1)
                self.in_flight -= index[sel].size
                done |= sel
            if not done.all():
                alive.append(rec)
        self.records = alive


def _async_shared(m):
    if not isinstance(m.shared, AsyncShared):
        m.shared = AsyncShared.wrap(m.shared, m.T)
    return m.shared


@op("cp")
def _cp(ins, m):
    if not ins.mods or ins.mods[0] != "async" or (len(ins.mods) > 1 and
                                                  ins.mods[1] in ("bulk", "mbarrier")):
        unsupported(ins, "cp form (cp.async.ca/.cg, commit_group, wait_group and wait_all are "
                         "supported)")
    shared = _async_shared(m)
    rest = ins.mods[1:]
    if rest == ("commit_group",):
        def commit(r):
            shared.commits[m.threads(r)] += 1
        return commit
    if rest == ("wait_group",):
        (n,) = ins.operands
        if not isinstance(n, Imm):
            raise KernelFault("cp.async.wait_group takes an integer constant")
        keep = int(n.value)
        return lambda r: shared.wait(m.threads(r), keep)
    if rest == ("wait_all",):
        def wait_all(r):
            t = m.threads(r)
            shared.commits[t] += 1
            shared.wait(t, None)
        return wait_all
    return _cp_async(ins, m, shared)


def _cp_async(ins, m, shared):
    level = next((x for x in ins.mods if x in ("ca", "cg")), None)
    hints = {"L2::64B", "L2::128B", "L2::256B", "L2::cache_hint"}
    for x in ins.mods[1:]:
        if x not in hints | {"ca", "cg", "shared", "shared::cta", "global"}:
            unsupported(ins, f"modifier .{x}")
    if level is None or "global" not in ins.mods or not ({"shared", "shared::cta"} &
                                                         set(ins.mods)):
        unsupported(ins, "cp.async form")
    ops = list(ins.operands)
    if "L2::cache_hint" in ins.mods:
        ops = ops[:-1]                            # the cache policy: a hint
    if len(ops) not in (3, 4) or not isinstance(ops[2], Imm):
        raise KernelFault(f"cp.async takes [dst], [src], cp-size{{, src-size}}: `{ins.text}`")
    dst, src, size = ops[0], ops[1], int(ops[2].value)
    extra = ops[3] if len(ops) == 4 else None
    if size not in ((16,) if level == "cg" else (4, 8, 16)):
        raise KernelFault(f"cp.async.{level} cp-size {size} is not allowed")
    ignore = isinstance(extra, Reg) and m.reg_types.get(extra.name) == "pred"
    if isinstance(extra, Imm) and not 0 <= int(extra.value) <= size:
        raise KernelFault(f"cp.async src-size {extra.value} exceeds cp-size {size}")
    memory = m.memory
    cols = np.arange(size)

    def run(r):
        threads = m.threads(r)
        d = m.address(dst, r).astype(np.int64)
        s = m.address(src, r)
        if extra is None:
            count = np.full(len(threads), size, np.int64)
        elif ignore:
            count = np.where(m.read(extra, "pred", r), 0, size)
        else:
            count = m.read(extra, "u32", r).astype(np.int64)
            if (count > size).any():
                raise MemoryFault(f"cp.async src-size {int(count.max())} exceeds cp-size {size}",
                                  np.nonzero(count > size)[0])
        m.count(ins, "shared", d, size, threads)
        reading = count > 0                         # a zero-filled copy reads nothing
        m.count(ins, "global", s[reading], size, threads[reading])
        raw = np.zeros((len(threads), size), np.uint8)
        full = count == size
        if full.any():
            sel = np.nonzero(full)[0]
            try:
                which, offsets = memory.locate(s[sel], size)
            except MemoryFault as e:
                raise _remap(e, lambda k: int(sel[k])) from None
            for a in np.unique(which):
                here = which == a
                buf = memory.buffers[memory.bases[a]]
                raw[sel[here]] = buf[offsets[here][:, None] + cols]
        part = np.nonzero(~full & (count > 0))[0]
        if len(part):
            if (s[part] % np.uint64(size)).any():
                bad = part[np.nonzero(s[part] % np.uint64(size))[0]]
                raise MemoryFault(f"misaligned cp.async source {int(s[bad[0]]):#x} ({size}-byte "
                                  f"alignment needed)", bad)
            for j in range(int(count[part].max())):
                sel = part[count[part] > j]
                try:
                    raw[sel, j] = memory.load(s[sel] + np.uint64(j), np.uint8)
                except MemoryFault as e:
                    raise _remap(e, lambda k: int(sel[k])) from None
        shared.issue(threads, m.block_of[threads], d, raw)
    return run
