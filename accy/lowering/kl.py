"""The kernel language (`kl`): the IR the per-kind lowerings write, `legalize`
(accy/lowering/legalize.pyx) rewrites into legal kl and the PTX emitter reads.
One `kl.kernel` is one GPU kernel, written for one thread: scalar SSA values, explicit thread
and block ids, loads and stores through pointer parameters, structured loops and branches.

Types: a scalar is a rank-0 tensor type (`tensor<f32>`, `tensor<i64>`, `tensor<i1>`, ...); a
pointer to global memory holding elements of a dtype is `!kl.ptr<f32>` (`ptr_type`), one to the
block's shared memory `!kl.shared<f32>` (`shared_type`). Index arithmetic is i64.

Ops (rows below; `KL_BINARY`, `KL_UNARY` name the arithmetic):
- `kl.kernel {sym_name, max_threads?}`: one region, one block whose arguments are the
  parameters (pointers, then scalars), ending with `kl.return`. `max_threads`: the most
  threads a block of it is launched with, when it is known (the emitter writes `.maxntid` and
  `.minnctapersm 1`, so ptxas keeps each thread's registers within what a block that large
  may hold). `legal`: legalize has rewritten it (the emitter legalizes a kernel without it).
- `kl.special {register}`: a thread/block register as i32 (`tid.x`, `ntid.x`, `ctaid.x`,
  `nctaid.x`, and .y/.z).
- `kl.constant {value, immediate?}`: a scalar literal (a rank-0 DenseAttr, exact in every
  dtype). `immediate` (legal kl: an i32 or i64 operand legalize writes next to its one user)
  is held in the user's instruction, no register; as a shift amount it lies in [0, bits).
- arithmetic on operands of one type: `kl.add` ... (`KL_BINARY`), `kl.neg` ... (`KL_UNARY`),
  `kl.fma` (a * b + c rounded once for floats; wrapping for integers), `kl.select %c, %a, %b`,
  `kl.cmp {predicate}` -> i1 (EQ, NE, LT, LE, GT, GE; every predicate but NE is false on NaN;
  i1 compares as unsigned, false < true), `kl.convert` (the tensor dialect's `convert`
  semantics), `kl.bitcast` (the bits read as another dtype of the same width:
  `bitcast_convert`), `kl.popc` / `kl.clz` (the tensor dialect's `popcnt` and
  `count_leading_zeros`, of the dtype's own bits), `kl.round_afz` (`round_nearest_afz`),
  `kl.shr {arithmetic}`, `kl.exp2 {approx}` (f32 only: the hardware's
  approximation in any math tier, about 2 ulp with subnormal results flushed to zero, for
  kernels whose results are approximate anyway, such as an online softmax), `kl.max {approx}`
  and `kl.min {approx}` (f32 only: the hardware's one-instruction max/min, where a NaN operand
  gives the other and a zero result's sign is either; for a running maximum that a NaN
  reaches another way). Legal kl also has `kl.mul_hi` (i32, i64: the high half of the
  signed double-width product) and `kl.div {safe_divisor}` / `kl.rem {safe_divisor}` (the
  divisor is never 0 or -1: the hardware division, no guard). Its i16, i8 and u8 arithmetic
  and converts compute in 32 bits; `kl.wrap %x` (right after the op making x, its one user)
  wraps the result into the dtype's range.
- memory: `kl.load %ptr, %index[, %pred]` -> element; `kl.store %value, %ptr, %index[,
  %pred]`. Indices count elements (i64); the pointer is global or shared. With an i1
  predicate, a lane where it is false touches no memory (its address may be anywhere): its
  load gives zero, its store writes nothing. `kl.vload {}` -> `width` elements at
  `index, index + 1, ...` in one access, `kl.vstore %values..., %ptr, %index` likewise: the
  caller promises `index` is a multiple of the width and the buffer is aligned to
  width * itemsize (2, 4 or 8 elements, at most 16 bytes; 8 only for 2-byte dtypes).
  `kl.shared {count, dynamic?}` -> `!kl.shared<T>`: a block-wide array of `count` elements
  (16-byte aligned), one per op in the kernel. A `dynamic` one (at most one per kernel) is
  sized at launch instead: the kernel's dynamic shared memory, which the launch must give at
  least `count` elements' bytes (`Launch.shared_bytes`); static arrays are capped at 48 KB a
  block, dynamic memory may take up to the architecture's opt-in limit
  (`accy.passes.outline.MAX_SHARED`). `kl.view %ptr, %offset` -> a pointer of the same space
  to elements of another dtype, `offset` (i64) bytes past `ptr`: one buffer holding arrays of
  several dtypes (a kernel's scratch workspace); the caller keeps each access aligned.
- block and warp: `kl.barrier` (every thread of the block waits; all must reach it),
  `kl.shuffle {mode} %value, %lane` (mode down, up, xor or idx; all 32 lanes take part;
  down/up keep the own value where the source lane is outside the warp),
  `kl.vote {mode} %pred` (any, all -> i1; ballot -> i32).
- `kl.fence`: a device-wide acquire-release memory fence (other blocks that see a write made
  after it, through an atomic, also see the writes made before it; a reader's fence after
  such an atomic lets its later loads see them).
- tensor cores (`MMA_SHAPES`; the register layouts are the PTX ISA's "Matrix Fragments for
  mma.m16n8k16"; every lane of the warp takes part): `kl.ldmatrix {count, trans} %ptr,
  %index` -> `count` (1, 2 or 4) i32 registers: lanes 8i..8i+7 give, as their element index
  into a `!kl.shared<f16|bf16>` array (16-byte aligned rows), the rows of 8x8 matrix i;
  register i of lane l holds matrix i's row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 (with
  `trans`, of its transpose), the first in the low half. `kl.mma {shape, ab} %a..., %b...,
  %c...` -> the f32 fragment of D = A B + C (m16n8k16: 4 i32 A registers, 2 i32 B registers
  of packed `ab` pairs (f16 or bf16), 4 f32 C values -> 4 f32; products exact, summed with
  at least f32 precision in an unspecified order). `kl.pack %lo, %hi` -> the i32 holding two
  f16 or bf16 values (lo in the low half); `kl.unpack %word` -> them again.
  m16n8k8 with ab `tf32` (`MMA_AB`): 4 A, 2 B i32 registers of one tf32 each, in the layouts
  of "Matrix Fragments for mma.m16n8k8" (.tf32); `kl.to_tf32 %f32` -> the i32 holding the value
  rounded to tf32 (10 mantissa bits, to nearest, ties away from zero: `cvt.rna`), the form a
  tf32 register must take (the tensor cores ignore the low 13 bits, so an unrounded f32 would
  be truncated instead).
- asynchronous copies: `kl.cp_async {bytes} %dst, %dst_index, %src, %src_index, %src_bytes`
  copies `bytes` (4, 8 or 16) bytes from global `src` to shared `dst` (indices count elements;
  both addresses aligned to `bytes`) reading only the first `src_bytes` (an i32, 0 to `bytes`)
  and zero-filling the rest, so 0 reads nothing; it completes asynchronously.
  `kl.cp_async_wait {pending}` closes the group of copies the thread issued since the last
  one and waits until at most `pending` of its groups are still in flight; the copies of the
  others are then done (another thread sees them after a `kl.barrier`). Touching a
  destination before its wait is a race.
- atomics on global or shared memory, giving the old value: `kl.atomic {op} %ptr, %index,
  %value` (op add on i32/i64/f32/f64, min/max on i32/i64, exch on 4- and 8-byte dtypes),
  `kl.atomic_cas %ptr, %index, %compare, %value` (4- and 8-byte integers). The exact tier never
  uses float atomics for results, whose order would make sums vary run to run.
- control: `kl.for %lo, %hi, %step, %inits... -> results` with one block taking the induction
  variable (i64) and the carried values, ending with `kl.yield` of the next carried values; it
  runs while `iv < hi` (signed) and `step` must be positive; `{unroll = false}` asks ptxas
  to keep it a loop (`.pragma "nounroll"`: a software pipeline unrolled over a few known trips
  holds every trip's values at once and can run out of registers);
  `kl.if %cond -> results` with a then and an else region, each ending with `kl.yield`;
  `kl.while %inits... -> results`, a do-while loop: one block taking the carried values and
  ending with `kl.yield %continue, %next...` (an i1, then the next carried values); the block
  runs again while `continue` holds, and the results are the last carried values (the loop
  for a trip count known only at run time, such as a spin-wait on a flag).

Semantics of each op are those of the tensor dialect op of the same name (docs/tensor-ops.md);
the emitter maps them to PTX for the target's math tier.
"""
from accy._core.registry import (CONSTANT, ISOLATED_FROM_ABOVE, OpDef, PURE,
                                 SAME_OPERANDS_AND_RESULT_TYPE, SINGLE_BLOCK, SYMBOL, TERMINATOR,
                                 VARIADIC, register_dialect)
from accy._core.attributes import DenseAttr
from accy._core.context import Builder
from accy._core.types import TensorType, numpy_dtype
from accy.lowering.kl_writer import (KernelWriter, literal as _literal, pointee, ptr_type,
                                     scalar, shared_type, space)

KL_BINARY = ("add", "sub", "mul", "div", "rem", "min", "max", "pow", "and", "or", "xor", "shl",
             "shr", "atan2")
KL_UNARY = ("neg", "abs", "not", "sign", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log",
            "log1p", "tanh", "logistic", "erf", "sin", "cos", "floor", "ceil", "rint",
            "is_finite", "cbrt", "tan", "round_afz", "popc", "clz")
SPECIAL_REGISTERS = tuple(f"{r}.{a}" for r in ("tid", "ntid", "ctaid", "nctaid")
                          for a in "xyz")
PREDICATES = ("EQ", "NE", "LT", "LE", "GT", "GE")


VECTOR_WIDTHS = {8: (2,), 4: (2, 4), 2: (2, 4, 8)}     # itemsize -> widths of one access
SHUFFLE_MODES = ("down", "up", "xor", "idx")
VOTE_MODES = ("any", "all", "ballot")
MMA_SHAPES = {"m16n8k16": (4, 2, 4),   # shape -> i32 registers of A, of B; f32 of C and D
              "m16n8k8": (4, 2, 4)}    # (tf32: one element a register)
MMA_TYPES = ("f16", "bf16")
MMA_AB = {"m16n8k16": MMA_TYPES, "m16n8k8": ("tf32",)}     # shape -> its A and B types
LDMATRIX_COUNTS = (1, 2, 4)
CP_ASYNC_BYTES = (4, 8, 16)
ATOMIC_OPS = {"add": ("i32", "i64", "f32", "f64"), "min": ("i32", "i64"),
              "max": ("i32", "i64"), "exch": ("i32", "i64", "f32", "f64")}


def _is_scalar(t):
    return isinstance(t, TensorType) and t.shape == ()


def _scalars(op):
    bad = [str(t) for t in tuple(op.operand_types) + tuple(op.result_types) if not _is_scalar(t)]
    return f"operands and results must be scalars (rank-0 tensors), got {', '.join(bad)}" \
        if bad else None


def _verify_kernel(op):
    entry = op.regions[0].entry
    if entry is None:
        return "needs a body"
    for a in entry.arguments:
        if space(a.type) != "global" and not _is_scalar(a.type):
            return f"parameters are global pointers or scalars, got {a.type}"
    last = entry.last_op
    if last is None or last.name != "kl.return":
        return "must end with kl.return"
    return None


def _verify_cmp(op):
    t = op.operand_types
    if len(t) != 2 or t[0] != t[1] or not _is_scalar(t[0]):
        return "compares two scalars of one type"
    if op.result_types != (scalar("i1"),):
        return "gives an i1 scalar"
    return None


def _verify_select(op):
    c, a, b = op.operand_types
    if c != scalar("i1") or a != b or op.result_types != (a,):
        return "takes an i1 condition and two values of the result's type"
    return None


def _verify_load(op):
    ptr, index, *pred = op.operand_types
    dtype = pointee(ptr)
    if dtype is None or index != scalar("i64") or op.result_types != (scalar(dtype),):
        return "loads an element of the pointer's dtype at an i64 index"
    if pred and pred[0] != scalar("i1"):
        return "its predicate is an i1"
    return None


def _verify_store(op):
    value, ptr, index, *pred = op.operand_types
    dtype = pointee(ptr)
    if dtype is None or index != scalar("i64") or value != scalar(dtype):
        return "stores a value of the pointer's dtype at an i64 index"
    if pred and pred[0] != scalar("i1"):
        return "its predicate is an i1"
    return None


def _verify_vload(op):
    ptr, index = op.operand_types
    dtype, width = pointee(ptr), len(op.result_types)
    if dtype is None or index != scalar("i64") or \
            any(t != scalar(dtype) for t in op.result_types):
        return "loads elements of the pointer's dtype at an i64 index"
    if width not in VECTOR_WIDTHS.get(numpy_dtype(dtype).itemsize if dtype != "i1" else 1, ()):
        return f"cannot load {width} x {dtype} in one access"
    return None


def _verify_vstore(op):
    *values, ptr, index = op.operand_types
    dtype = pointee(ptr)
    if dtype is None or index != scalar("i64") or any(t != scalar(dtype) for t in values):
        return "stores elements of the pointer's dtype at an i64 index"
    if len(values) not in VECTOR_WIDTHS.get(numpy_dtype(dtype).itemsize
                                           if dtype != "i1" else 1, ()):
        return f"cannot store {len(values)} x {dtype} in one access"
    return None


def _verify_shared(op):
    (t,) = op.result_types
    count = op.attributes["count"]
    if space(t) != "shared" or pointee(t) == "i1" or count <= 0:
        return "gives a !kl.shared pointer to a positive count of non-i1 elements"
    return None


def _verify_shuffle(op):
    value, lane = op.operand_types
    if op.attributes["mode"] not in SHUFFLE_MODES:
        return f"mode must be one of {', '.join(SHUFFLE_MODES)}"
    if not _is_scalar(value) or lane != scalar("i32") or op.result_types != (value,):
        return "shuffles a scalar by an i32 lane or delta"
    return None


def _verify_vote(op):
    mode = op.attributes["mode"]
    if mode not in VOTE_MODES:
        return f"mode must be one of {', '.join(VOTE_MODES)}"
    want = scalar("i32") if mode == "ballot" else scalar("i1")
    if tuple(op.operand_types) != (scalar("i1"),) or op.result_types != (want,):
        return f"takes an i1 and gives {'an i32' if mode == 'ballot' else 'an i1'}"
    return None


def _verify_atomic(op):
    ptr, index, value = op.operand_types
    kind, dtype = op.attributes["op"], pointee(ptr)
    if kind not in ATOMIC_OPS:
        return f"op must be one of {', '.join(ATOMIC_OPS)}"
    if dtype not in ATOMIC_OPS[kind]:
        return f"atomic {kind} does not take {dtype}"
    if index != scalar("i64") or value != scalar(dtype) or op.result_types != (value,):
        return "takes an i64 index and a value of the pointer's dtype, gives the old value"
    return None


def _verify_atomic_cas(op):
    ptr, index, compare, value = op.operand_types
    dtype = pointee(ptr)
    if dtype not in ("i32", "i64") or index != scalar("i64") or \
            compare != scalar(dtype) or value != compare or op.result_types != (value,):
        return "compares and swaps an i32 or i64 element at an i64 index, giving the old value"
    return None


def _verify_ldmatrix(op):
    ptr, index = op.operand_types
    count = op.attributes["count"]
    if count not in LDMATRIX_COUNTS:
        return f"count must be one of {', '.join(map(str, LDMATRIX_COUNTS))}"
    if space(ptr) != "shared" or pointee(ptr) not in MMA_TYPES or index != scalar("i64"):
        return "reads a !kl.shared<f16> or <bf16> array at an i64 element index"
    if tuple(op.result_types) != (scalar("i32"),) * count:
        return f"gives {count} i32 registers"
    return None


def _verify_mma(op):
    shape, ab = op.attributes["shape"], op.attributes["ab"]
    if shape not in MMA_SHAPES:
        return f"shape must be one of {', '.join(MMA_SHAPES)}"
    if ab not in MMA_AB[shape]:
        return f"ab must be one of {', '.join(MMA_AB[shape])}"
    na, nb, nc = MMA_SHAPES[shape]
    want = (scalar("i32"),) * (na + nb) + (scalar("f32"),) * nc
    if tuple(op.operand_types) != want or tuple(op.result_types) != want[na + nb:]:
        return f"{shape} takes {na} i32 A, {nb} i32 B and {nc} f32 C registers and gives " \
               f"{nc} f32"
    return None


def _verify_to_tf32(op):
    if tuple(op.operand_types) != (scalar("f32"),) or op.result_types != (scalar("i32"),):
        return "rounds an f32 to tf32, giving its bits as an i32"
    return None


def _verify_pack(op):
    lo, hi = op.operand_types
    if lo != hi or lo not in (scalar(t) for t in MMA_TYPES) or \
            op.result_types != (scalar("i32"),):
        return "packs two f16 or bf16 values of one dtype into an i32"
    return None


def _verify_unpack(op):
    lo, hi = op.result_types
    if lo != hi or lo not in (scalar(t) for t in MMA_TYPES) or \
            tuple(op.operand_types) != (scalar("i32"),):
        return "unpacks an i32 into two f16 or bf16 values of one dtype"
    return None


def _verify_cp_async(op):
    dst, dst_index, src, src_index, src_bytes = op.operand_types
    nbytes = op.attributes["bytes"]
    if nbytes not in CP_ASYNC_BYTES:
        return f"bytes must be one of {', '.join(map(str, CP_ASYNC_BYTES))}"
    if space(dst) != "shared" or space(src) != "global" or pointee(dst) != pointee(src) or \
            pointee(dst) == "i1":
        return "copies from a global pointer to a shared one of the same dtype"
    if (dst_index, src_index, src_bytes) != (scalar("i64"), scalar("i64"), scalar("i32")):
        return "takes i64 element indices and an i32 count of source bytes"
    if nbytes % numpy_dtype(pointee(dst)).itemsize:
        return f"{nbytes} bytes is not a whole number of {pointee(dst)} elements"
    return None


def _verify_cp_async_wait(op):
    if op.attributes["pending"] < 0:
        return "pending must be 0 or more"
    return None


def _verify_view(op):
    ptr, offset = op.operand_types
    (out,) = op.result_types
    if space(ptr) is None or space(out) != space(ptr) or offset != scalar("i64"):
        return "views a pointer at an i64 byte offset as a pointer of the same space"
    return None


def _verify_while(op):
    carried = tuple(op.operand_types)
    if tuple(op.result_types) != carried:
        return "gives the carried values"
    body = op.regions[0].entry
    if body is None or tuple(a.type for a in body.arguments) != carried:
        return "its block takes the carried values"
    last = body.last_op
    if last is None or last.name != "kl.yield" or \
            tuple(last.operand_types) != (scalar("i1"),) + carried:
        return "its block ends with kl.yield of an i1 (continue) and the carried values"
    return None


def _verify_for(op):
    types = op.operand_types
    if len(types) < 3 or any(t != scalar("i64") for t in types[:3]):
        return "takes i64 lower bound, upper bound and step, then the carried values"
    carried = tuple(types[3:])
    if tuple(op.result_types) != carried:
        return "gives the carried values"
    body = op.regions[0].entry
    if body is None or tuple(a.type for a in body.arguments) != (scalar("i64"),) + carried:
        return "its block takes the i64 induction variable and the carried values"
    last = body.last_op
    if last is None or last.name != "kl.yield" or tuple(last.operand_types) != carried:
        return "its block ends with kl.yield of the carried values"
    return None


def _verify_if(op):
    if tuple(op.operand_types) != (scalar("i1"),):
        return "takes an i1 condition"
    for region in op.regions:
        block = region.entry
        if block is None:
            return "needs a then and an else block"
        last = block.last_op
        if last is None or last.name != "kl.yield" or \
                tuple(last.operand_types) != tuple(op.result_types):
            return "each block ends with kl.yield of the results"
    return None


def _verify_approx(op):
    if op.attributes.get("approx", False) and op.result_types != (scalar("f32"),):
        return "approx is for f32 only"
    return _scalars(op)


def _verify_special(op):
    if op.attributes["register"] not in SPECIAL_REGISTERS:
        return f"register must be one of {', '.join(SPECIAL_REGISTERS)}"
    if op.result_types != (scalar("i32"),):
        return "gives an i32"
    return None


_BITS = {"f64": 64, "i64": 64, "f32": 32, "i32": 32, "f16": 16, "bf16": 16, "i16": 16,
         "i8": 8, "u8": 8, "i1": 1}


def _verify_bitcast(op):
    found = _scalars(op)
    if found:
        return found
    src, dst = op.operand_types[0].dtype, op.result_types[0].dtype
    if _BITS[src] != _BITS[dst]:
        return f"kl.bitcast needs one bit width, got {src} and {dst}"
    return None


def _verify_constant(op):
    value = op.attributes["value"]
    if value.type.shape != () or op.result_types != (scalar(value.type.dtype),):
        return "holds a rank-0 value of its result's dtype"
    return None


def _verify_mul_hi(op):
    if op.result_types not in ((scalar("i32"),), (scalar("i64"),)):
        return "multiplies i32 or i64 values"
    return None


def _verify_wrap(op):
    if op.result_types not in tuple((scalar(d),) for d in ("i16", "i8", "u8")):
        return "wraps i16, i8 or u8 values"
    return None


def _verify_predicate(op):
    if op.attributes["predicate"] not in PREDICATES:
        return f"predicate must be one of {', '.join(PREDICATES)}"
    return _verify_cmp(op)


_SAME = PURE | SAME_OPERANDS_AND_RESULT_TYPE


def _rows():
    rows = [
        OpDef("kl.kernel", regions=1, attributes={"sym_name": (str, True),
                                                  "max_threads": (int, False),
                                                  "legal": (bool, False)},
              traits=ISOLATED_FROM_ABOVE | SYMBOL | SINGLE_BLOCK, verify=_verify_kernel),
        OpDef("kl.return", traits=TERMINATOR),
        OpDef("kl.special", results=1, attributes={"register": (str, True)}, traits=PURE,
              verify=_verify_special),
        OpDef("kl.constant", results=1, attributes={"value": (DenseAttr, True),
                                                    "immediate": (bool, False)},
              traits=PURE | CONSTANT, verify=_verify_constant),
        OpDef("kl.mul_hi", operands=2, results=1, traits=_SAME, verify=_verify_mul_hi),
        OpDef("kl.wrap", operands=1, results=1, traits=_SAME, verify=_verify_wrap),
        OpDef("kl.fma", operands=3, results=1, traits=_SAME, verify=_scalars),
        OpDef("kl.select", operands=3, results=1, traits=PURE, verify=_verify_select),
        OpDef("kl.cmp", operands=2, results=1, attributes={"predicate": (str, True)},
              traits=PURE, verify=_verify_predicate),
        OpDef("kl.convert", operands=1, results=1, traits=PURE, verify=_scalars),
        OpDef("kl.bitcast", operands=1, results=1, traits=PURE, verify=_verify_bitcast),
        OpDef("kl.load", operands=(2, 3), results=1, traits=PURE, verify=_verify_load),
        OpDef("kl.store", operands=(3, 4), verify=_verify_store),
        OpDef("kl.vload", operands=2, results=(2, VARIADIC), traits=PURE,
              verify=_verify_vload),
        OpDef("kl.vstore", operands=(4, VARIADIC), verify=_verify_vstore),
        OpDef("kl.shared", results=1, attributes={"count": (int, True),
                                                  "dynamic": (bool, False)},
              verify=_verify_shared),
        OpDef("kl.view", operands=2, results=1, traits=PURE, verify=_verify_view),
        OpDef("kl.barrier"),
        OpDef("kl.fence"),
        OpDef("kl.shuffle", operands=2, results=1, attributes={"mode": (str, True)},
              verify=_verify_shuffle),
        OpDef("kl.vote", operands=1, results=1, attributes={"mode": (str, True)},
              verify=_verify_vote),
        OpDef("kl.atomic", operands=3, results=1, attributes={"op": (str, True)},
              verify=_verify_atomic),
        OpDef("kl.atomic_cas", operands=4, results=1, verify=_verify_atomic_cas),
        OpDef("kl.ldmatrix", operands=2, results=(1, VARIADIC),
              attributes={"count": (int, True), "trans": (bool, False)},
              verify=_verify_ldmatrix),
        OpDef("kl.mma", operands=(10, VARIADIC), results=(4, VARIADIC),
              attributes={"shape": (str, True), "ab": (str, True)}, verify=_verify_mma),
        OpDef("kl.pack", operands=2, results=1, traits=PURE, verify=_verify_pack),
        OpDef("kl.to_tf32", operands=1, results=1, traits=PURE, verify=_verify_to_tf32),
        OpDef("kl.unpack", operands=1, results=2, traits=PURE, verify=_verify_unpack),
        OpDef("kl.cp_async", operands=5, attributes={"bytes": (int, True)},
              verify=_verify_cp_async),
        OpDef("kl.cp_async_wait", attributes={"pending": (int, True)},
              verify=_verify_cp_async_wait),
        OpDef("kl.for", operands=(3, VARIADIC), results=(0, VARIADIC), regions=1,
              attributes={"unroll": (bool, False)}, traits=SINGLE_BLOCK, verify=_verify_for),
        OpDef("kl.while", operands=(0, VARIADIC), results=(0, VARIADIC), regions=1,
              traits=SINGLE_BLOCK, verify=_verify_while),
        OpDef("kl.if", operands=1, results=(0, VARIADIC), regions=2, traits=SINGLE_BLOCK,
              verify=_verify_if),
        OpDef("kl.yield", operands=(0, VARIADIC), traits=TERMINATOR),
    ]
    binary_attributes = {"shr": {"arithmetic": (bool, False)}, "max": {"approx": (bool, False)},
                         "min": {"approx": (bool, False)},
                         "div": {"safe_divisor": (bool, False)},
                         "rem": {"safe_divisor": (bool, False)}}
    rows += [OpDef(f"kl.{name}", operands=2, results=1, traits=_SAME,
                   verify=_verify_approx if name in ("max", "min") else _scalars,
                   attributes=binary_attributes.get(name, {}))
             for name in KL_BINARY]
    rows += [OpDef(f"kl.{name}", operands=1, results=1,
                   traits=PURE if name == "is_finite" else _SAME,
                   verify=_verify_approx if name == "exp2" else _scalars,
                   attributes={"approx": (bool, False)} if name == "exp2" else {})
             for name in KL_UNARY]
    return rows


register_dialect("kl", _rows())


class KernelBuilder(KernelWriter):
    """Writes one `kl.kernel` at the end of `block` (a module body):

        kb = KernelBuilder(ctx, module.body, "scale", [ptr_type("f32"), scalar("i64")])
        x, n = kb.params
        i = kb.global_index()
        kb.store(kb.op("mul", kb.load(x, i), kb.constant(2.0, "f32")), x, i)
        kernel = kb.finish()

    The ops themselves are written by `KernelWriter` (accy/lowering/kl_writer.pyx); this
    class adds the kernel, its structured control flow and the ops kernels rarely use."""

    def __init__(self, context, block, name, param_types):
        self.kernel = Builder(context).at_end(block).create(
            "kl.kernel", attributes={"sym_name": name})
        entry = self.kernel.regions[0].add_block(list(param_types))
        super().__init__(context, entry)
        self.params = list(entry.arguments)

    def shared(self, dtype, count, dynamic=False):
        """A block-wide shared array of `count` `dtype` elements; `dynamic`: the kernel's
        dynamic shared memory (the launch gives its bytes)."""
        extra = {"dynamic": True} if dynamic else {}
        return self.emit("kl.shared", (), [shared_type(dtype)], count=int(count),
                         **extra).results[0]

    def view(self, ptr, offset, dtype):
        """A pointer to `dtype` elements `offset` (an i64 value) bytes past `ptr`."""
        t = ptr_type(dtype) if space(ptr.type) == "global" else shared_type(dtype)
        return self.emit("kl.view", (ptr, offset), [t]).results[0]

    def barrier(self):
        self.emit("kl.barrier", (), [])

    def fence(self):
        self.emit("kl.fence", (), [])

    def vote(self, mode, pred):
        t = scalar("i32") if mode == "ballot" else scalar("i1")
        return self.emit("kl.vote", (pred,), [t], mode=mode).results[0]

    def atomic(self, op, ptr, index, value):
        return self.emit("kl.atomic", (ptr, index, value), [value.type], op=op).results[0]

    def atomic_cas(self, ptr, index, compare, value):
        return self.emit("kl.atomic_cas", (ptr, index, compare, value),
                         [value.type]).results[0]

    def cp_async_wait(self, pending):
        """`kl.cp_async_wait`: close this thread's group of copies and wait until at most
        `pending` groups are in flight."""
        self.emit("kl.cp_async_wait", (), [], pending=int(pending))

    def global_index(self, axis="x"):
        """ctaid * ntid + tid along `axis`, as i64."""
        block = self.convert(self.special(f"ctaid.{axis}"), "i64")
        size = self.convert(self.special(f"ntid.{axis}"), "i64")
        tid = self.convert(self.special(f"tid.{axis}"), "i64")
        return self.op("add", self.op("mul", block, size), tid)

    def grid_size(self, axis="x"):
        """nctaid * ntid along `axis`, as i64: the stride of a grid-stride loop."""
        return self.op("mul", self.convert(self.special(f"nctaid.{axis}"), "i64"),
                       self.convert(self.special(f"ntid.{axis}"), "i64"))

    def for_(self, lo, hi, step, inits, body, unroll=True):
        """`kl.for`: `body(kb, iv, *carried)` writes the body and returns the next carried
        values; returns the loop's results. `unroll=False`: ptxas keeps the loop."""
        loop = self.loop("kl.for", [lo, hi, step] + list(inits), inits,
                         **({} if unroll else {"unroll": False}))
        block = self.loop_body(loop, inits, True)
        saved = self.enter(block)
        try:
            out = body(self, *block.arguments) or ()
            self.emit("kl.yield", list(out), [])
        finally:
            self.leave(saved)
        return list(loop.results)

    def while_(self, inits, body):
        """`kl.while`: `body(kb, *carried)` writes the body and returns (continue, next
        carried values...); returns the loop's results."""
        loop = self.loop("kl.while", list(inits), inits)
        block = self.loop_body(loop, inits, False)
        saved = self.enter(block)
        try:
            self.emit("kl.yield", list(body(self, *block.arguments)), [])
        finally:
            self.leave(saved)
        return list(loop.results)

    def if_(self, cond, then, otherwise=None, result_types=()):
        """`kl.if`: `then(kb)` and `otherwise(kb)` write the branches and return the results."""
        op = self.emit("kl.if", [cond], list(result_types))
        for region, fn in zip(op.regions, (then, otherwise)):
            saved = self.enter(region.add_block([]))
            try:
                out = fn(self) if fn is not None else ()
                self.emit("kl.yield", list(out or ()), [])
            finally:
                self.leave(saved)
        return list(op.results)

    def finish(self):
        self.emit("kl.return", (), [])
        return self.kernel
