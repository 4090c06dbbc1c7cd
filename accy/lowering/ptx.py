"""The PTX emitter: legal `kl.kernel` ops (accy/lowering/kl.py) -> one PTX module text, op by
op through the templates below and the control flow of loops and branches.

    ptx = emit_module(kernels, arch="sm_90", ptx_version="8.0", math_tier="exact")

`kernels` is a list of `kl.kernel` ops (or one, or a module holding them). The emitter
translates legal kl (accy/lowering/legalize.pyx: division by constants, range facts, i1
arithmetic and f16/bf16 widening are rewritten there); `emit_kernel` first legalizes, in
place, a kernel not yet marked `legal`, so a caller may hand `emit_module` any kl (the
compiler's ptx stage relies on it; a kernel whose text its `kernel_text` takes from the compile
cache is not legalized, nor emitted). `arch` (or the
`target` keyword) may also be an `accy.passes.target.TargetProfile` (its arch, ptx_version and
math_tier are used). sm_80 or later (min.NaN, bf16 cvt/fma), PTX ISA 7.8 or later. The text has
`.version`, `.target`, `.address_size 64` and one `.visible .entry` per kernel, named by its
`sym_name` (with `.maxntid` and `.minnctapersm 1` when it declares `max_threads`: registers
bounded by what one block of that many threads may hold, not squeezed for occupancy, as
CUDA's `__launch_bounds__(n, 1)`). Emission is deterministic: registers and labels are
numbered in walk order, so the same kernels give byte-identical text in any process. The
handlers below write each op signature's text once per process; later ops of that signature
replay it (accy/lowering/assembler.pyx), byte for byte. Every kl
op means what the tensor op of the same name means in `accy.reference` (docs/tensor-ops.md
"Numerics"); an (op, dtype) the emitter cannot do exactly raises `UnsupportedError` naming
both, never wrong code.

Parameters and registers:
- a pointer `!kl.ptr<T>` is `.param .u64`, loaded and turned into a global address
  (`cvta.to.global.u64`); a scalar is `.param` of its memory type (f16/bf16 `.b16`, i1 `.u8`).
- registers: `%p` pred (i1), `%rs` b16 (f16, bf16), `%r` b32 (i32; i16, i8 and u8 too, kept
  sign-extended (i16, i8) or zero-extended (u8) to 32 bits: `kl.wrap`, which legalize puts
  after every op that may leave the range, re-extends in place, so wrapping is exact), `%rd` b64 (i64, addresses), `%f` f32, `%fd` f64.
- `kl.load`/`kl.store`: `ld.global`/`st.global` (`ld.shared`/`st.shared` through a
  `!kl.shared` pointer) at pointer + index * itemsize (`mad.lo.s64`), guarded `@%p` when the
  op has a predicate (a masked load's register is zeroed first); `kl.vload`/`kl.vstore`:
  one `ld/st.v2`/`.v4` (8 two-byte elements as 4 b32 words split with `mov.b32 {lo, hi}`).
- `kl.shared`: a `.shared .align 16 .b8 <kernel>_smem<k>[bytes]` array (a dynamic one:
  `.extern .shared .align 16 .b8 <kernel>_smem<k>[]` at module scope, where ptxas takes it,
  just before its kernel; at most one per kernel, as every extern shared array a kernel
  touches starts at one address), addressed through its 64-bit shared-window address; `kl.view`: `add.s64` of the byte offset; `kl.barrier`:
  `bar.sync 0`; `kl.fence`: `fence.acq_rel.gpu`; `kl.shuffle`: `shfl.sync` with
  the full mask (xor is `.bfly`; 64-bit values as two words; 16-bit and i1 through a b32);
  `kl.vote`: `vote.sync.any/all.pred`, `vote.sync.ballot.b32`; `kl.atomic`: `atom.add/min/max`
  (`.s32`, `.u64`, `.s64`, `.f32`, `.f64`), exch as bits; `kl.atomic_cas`: `atom.cas.b32/b64`.
- tensor cores: `kl.ldmatrix` -> `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16`;
  `kl.mma` -> `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`; `kl.pack` /
  `kl.unpack` -> `mov.b32` to / from `{lo, hi}`; m16n8k8 `tf32` ->
  `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`, `kl.to_tf32` -> `cvt.rna.tf32.f32` (into
  a b32 register). `kl.cp_async` -> `cp.async.cg` (16 bytes) or
  `cp.async.ca` (4, 8) `.shared.global [dst], [src], bytes, src_bytes`; `kl.cp_async_wait` ->
  `cp.async.commit_group` + `cp.async.wait_group pending`.
- `kl.for`: the induction variable and carried values live in registers; the guard `iv < hi`
  (signed) is at the top, the step and `bra.uni` back at the bottom. `kl.while`: the carried
  values in registers, `@continue bra` back to the top at the bottom. `kl.if`: `@!p bra` to the
  else part; both parts copy their yields into the result registers.

What each op becomes (`INT`, `FLOAT`, `FAST` below are the templates):
- integers (computed in s32/u32/s64): add sub mul -> add/sub/mul.lo; fma -> mad.lo; min max ->
  min/max; and or xor not -> bitwise; neg abs sign; div/rem -> div/rem guarded for the
  reference's x/0 = -1, x%0 = x, MIN/-1 = MIN, MIN%-1 = 0 (unguarded with `safe_divisor`);
  shl/shr -> shift by the amount clamped to the bit width (amounts out of [0, bits) give 0 or
  the sign fill; an `immediate` amount, which legalize writes in range, is one shift);
  `kl.mul_hi` -> mul.hi; popc/clz -> popc/clz.b32 (small integers masked to their bits, clz
  less the 32 - bits above them) or .b64; pow -> a square-and-multiply loop (negative exponents: 1 for base 1,
  +-1 for base -1, else 0). An `immediate` constant is no register: its users' instructions
  hold the literal.
- i1: or/and/xor/not -> or/and/xor/not.pred (legalize makes add, mul, min, max, select and
  compares of i1 into these and u8 compares).
- f32/f64: + - * / sqrt fma -> add/sub/mul/div/sqrt/fma.rn (exact tier; .rn also keeps ptxas
  from contracting), neg abs -> neg/abs, floor ceil rint -> cvt.rmi/rpi/rni, sign -> setp +
  selp, min/max -> min.NaN.f32 / min.f64 with a NaN select, and on equal operands the bitwise
  or/and of the two (so min(-0, +0) = -0, max = +0 whatever the hardware picks), round_afz ->
  trunc plus sign(x) where |x - trunc(x)| >= 1/2 (exact), rem -> exact
  fmod (math.py), is_finite -> testp.finite, compares -> setp (NE is .neu: true on NaN);
  f64 rsqrt -> sqrt.rn + rcp.rn (the reference's own two roundings, bit-exact).
- f16/bf16: fma is the native fma.rn.f16/bf16; neg/abs flip/clear the sign bit; the
  transcendentals widen the operand themselves (below); legalize has widened every other op to
  f32 converts around the f32 op (f16 -> f32 is cvt.f32.f16, bf16 a 16-bit shift; back by
  cvt.rn).
- transcendentals on f32, f16, bf16: exp, log, tanh, logistic, erf, sin and cos by the f32
  cores of `accy.lowering.math32` (f16/bf16 widened to f32, the core's last sum rounded to
  odd, then cvt.rn to the half type: one rounding in all), the rest (exp2 expm1 log1p tan
  cbrt atan2 pow, and rsqrt) with the operand widened to f64, the function evaluated by `accy.lowering.math` in IEEE f64 arithmetic
  (~2^-50 relative error, pow ~2^-44), rounded once to the dtype (bf16: f64 -> f32 rounded to
  odd, then cvt.rn.bf16.f32). Max error vs the reference, `ULP_BOUND`:

      exp exp2 expm1 log log1p tanh logistic erf sin cos pow   1 ulp
      tan cbrt atan2                                             1 ulp
      rsqrt (the reference's own sqrt.rn.f64 + rcp.rn.f64)      0 ulp (bit-exact)

  The f32 cores meet it on every f32 input (checked exhaustively; 0.01-0.7% of all f32
  results, a few % on some ranges of ordinary magnitude, are the reference's neighbour; on
  f16/bf16 every result is the reference's but logistic of one f16 value). The f64 ones
  were measured on 600k random f32 operands per function (wide ranges: subnormals,
  overflow, |x| up to 3e38 for sin/cos) and every f16/bf16 bit pattern: 0 ulp everywhere
  except pow on f16/bf16, 1 ulp where the exact power is a rounding midpoint (f16
  1.5^7 = 17.0859375).
- fast tier (f32, and f16/bf16 through f32): add/sub/mul/fma .ftz, div.full.ftz,
  sqrt.approx.ftz, rsqrt.approx.ftz, ex2.approx.ftz (exp, exp2, logistic with rcp.approx),
  lg2.approx.ftz (log), tanh.approx, sin/cos.approx.ftz; expm1, log1p, erf, pow and rem stay
  exact. f64 is the same in both tiers. `kl.exp2 {approx}` is ex2.approx.ftz.f32 in both.
- bitcast: a mov between register classes of one width (i16 from f16/bf16 sign-extended,
  i8 <-> u8 re-extended).
- convert: float->float and int->float round once (cvt.rn; int->bf16 and f64->bf16 through an
  f32 rounded to odd, since sm_80 has no direct form); float->int `cvt.rzi` (saturating), clamped
  for i16/i8/u8, NaN -> 0 (a `selp` on `setp.nan` from f64 or to i64, where cvt.rzi gives
  1 << (width - 1)); int->int truncates and re-extends; to i1 `x != 0` (setp.ne/.neu);
  from i1 0 or 1 (selp).

Unsupported (UnsupportedError): transcendentals and pow on f64 (the compiler runs such a kernel
on the host); float-only ops (sqrt, exp, ..., floor, is_finite) on integers and i1; bitwise
and shift ops on floats; arithmetic on i1 other than the logical ones above (sub, div, rem,
pow, neg, abs, sign, shl, shr, fma); any op not in kl. Legalize leaves such ops as they are,
for the emitter to refuse here.
"""
import re
import struct

import numpy as np

from accy.errors import UnsupportedError
from accy.lowering import math as _math
from accy.lowering import math32 as _math32
from accy.lowering.assembler import DECLARED, REGISTERS, Assembler
from accy.lowering.kl import KL_BINARY, KL_UNARY, MMA_SHAPES, pointee, space
from accy.lowering.legalize import kernel_ops, legalize

ULP_BOUND = _math.ULP_BOUND
MATH_TIERS = ("exact", "fast")
TRANSCENDENTAL = ("exp", "exp2", "expm1", "log", "log1p", "tanh", "logistic", "erf", "sin",
                  "cos", "rsqrt", "cbrt", "tan", "atan2")

# dtype -> (register class, arithmetic type, load/param type, store type, bytes)
STORAGE = {
    "f64": ("fd", "f64", "f64", "f64", 8), "f32": ("f", "f32", "f32", "f32", 4),
    "f16": ("rs", "f16", "b16", "b16", 2), "bf16": ("rs", "bf16", "b16", "b16", 2),
    "i64": ("rd", "s64", "s64", "b64", 8), "i32": ("r", "s32", "s32", "b32", 4),
    "i16": ("r", "s32", "s16", "b16", 2), "i8": ("r", "s32", "s8", "b8", 1),
    "u8": ("r", "u32", "u8", "b8", 1), "i1": ("p", "pred", "u8", "b8", 1),
}
SMALL = {"i8": "cvt.s32.s8 {d}, {d}", "i16": "cvt.s32.s16 {d}, {d}", "u8": "and.b32 {d}, {d}, 255"}
BITS = {"i64": 64, "i32": 32, "i16": 16, "i8": 8, "u8": 8}

# ---- templates --------------------------------------------------------------------------------
# {d} result, {a} {b} {c} operands; {t} the arithmetic type (s32 u32 s64 / f32 f64), {w} the
# register width, {n} the dtype's bits; {v0}.. temporaries of the result's register class,
# {p0}.. predicates, {r0}.. b32 registers, {L0}.. labels. A dict picks by signedness ("s"/"u").

# integer power by squaring: v1 = a ** v0 (v0 >= 0), v2 the running square
_POW_LOOP = """mov.b{w} {v1}, 1
                    mov.b{w} {v2}, {a}
                    {L0}:
                    setp.eq.{t} {p1}, {v0}, 0
                    @{p1} bra {L1}
                    and.b{w} {v3}, {v0}, 1
                    setp.ne.{t} {p2}, {v3}, 0
                    @{p2} mul.lo.{t} {v1}, {v1}, {v2}
                    mul.lo.{t} {v2}, {v2}, {v2}
                    shr.u{w} {v0}, {v0}, 1
                    bra.uni {L0}
                    {L1}:"""

INT = {
    "add": "add.{t} {d}, {a}, {b}",
    "sub": "sub.{t} {d}, {a}, {b}",
    "mul": "mul.lo.{t} {d}, {a}, {b}",
    "fma": "mad.lo.{t} {d}, {a}, {b}, {c}",
    "min": "min.{t} {d}, {a}, {b}",
    "max": "max.{t} {d}, {a}, {b}",
    "and": "and.b{w} {d}, {a}, {b}",
    "or": "or.b{w} {d}, {a}, {b}",
    "xor": "xor.b{w} {d}, {a}, {b}",
    "not": "not.b{w} {d}, {a}",
    "neg": "neg.s{w} {d}, {a}",
    "abs": {"s": "abs.{t} {d}, {a}", "u": "mov.b{w} {d}, {a}"},
    "sign": {"s": """setp.gt.{t} {p0}, {a}, 0
                     selp.{t} {v0}, 1, 0, {p0}
                     setp.lt.{t} {p1}, {a}, 0
                     selp.{t} {d}, -1, {v0}, {p1}""",
             "u": """setp.ne.{t} {p0}, {a}, 0
                     selp.{t} {d}, 1, 0, {p0}"""},
    "div": {"s": """setp.eq.{t} {p0}, {b}, 0
                    setp.eq.{t} {p1}, {b}, -1
                    or.pred {p2}, {p0}, {p1}
                    selp.{t} {v0}, 1, {b}, {p2}
                    div.{t} {v1}, {a}, {v0}
                    neg.{t} {v2}, {a}
                    selp.{t} {v1}, {v2}, {v1}, {p1}
                    selp.{t} {d}, -1, {v1}, {p0}""",
            "u": """setp.eq.{t} {p0}, {b}, 0
                    selp.{t} {v0}, 1, {b}, {p0}
                    div.{t} {v1}, {a}, {v0}
                    selp.{t} {d}, 255, {v1}, {p0}"""},
    "rem": {"s": """setp.eq.{t} {p0}, {b}, 0
                    setp.eq.{t} {p1}, {b}, -1
                    or.pred {p2}, {p0}, {p1}
                    selp.{t} {v0}, 1, {b}, {p2}
                    rem.{t} {v1}, {a}, {v0}
                    selp.{t} {v1}, 0, {v1}, {p1}
                    selp.{t} {d}, {a}, {v1}, {p0}""",
            "u": """setp.eq.{t} {p0}, {b}, 0
                    selp.{t} {v0}, 1, {b}, {p0}
                    rem.{t} {v1}, {a}, {v0}
                    selp.{t} {d}, {a}, {v1}, {p0}"""},
    "shl": """min.u{w} {v0}, {b}, {n}
              cvt.u32.u{w} {r0}, {v0}
              shl.b{w} {d}, {a}, {r0}""",
    "shr": """and.b{w} {v1}, {a}, {mask}
              min.u{w} {v0}, {b}, {n}
              cvt.u32.u{w} {r0}, {v0}
              shr.u{w} {d}, {v1}, {r0}""",
    "shra": """cvt.s{w}.s{n} {v1}, {a}
               min.u{w} {v0}, {b}, {n1}
               cvt.u32.u{w} {r0}, {v0}
               shr.s{w} {d}, {v1}, {r0}""",
    "pow": {"s": """setp.lt.{t} {p0}, {b}, 0
                    selp.{t} {v0}, 0, {b}, {p0}
                    """ + _POW_LOOP + """
                    and.b{w} {v3}, {b}, 1
                    setp.ne.{t} {p3}, {v3}, 0
                    selp.{t} {v4}, -1, 1, {p3}
                    setp.eq.{t} {p4}, {a}, -1
                    selp.{t} {v4}, {v4}, 0, {p4}
                    setp.eq.{t} {p5}, {a}, 1
                    selp.{t} {v4}, 1, {v4}, {p5}
                    selp.{t} {d}, {v4}, {v1}, {p0}""",
            "u": """mov.b{w} {v0}, {b}
                    """ + _POW_LOOP + """
                    mov.b{w} {d}, {v1}"""},
}

BOOL = ("and", "or", "xor")     # i1 binary ops (legalize turns add, mul, min, max into these)
SHIFT = {"shl": "shl.b", "shr": "shr.u", "shra": "shr.s"}   # by an immediate: one instruction

# f32/f64: {rnd} is .rn (exact) or .ftz (fast f32); {div}/{sqrt} the division/root forms
FLOAT = {
    "add": "add{rnd}.{t} {d}, {a}, {b}",
    "sub": "sub{rnd}.{t} {d}, {a}, {b}",
    "mul": "mul{rnd}.{t} {d}, {a}, {b}",
    "fma": "fma.rn{ftz}.{t} {d}, {a}, {b}, {c}",
    "div": "div{div}.{t} {d}, {a}, {b}",
    "sqrt": "sqrt{sqrt}.{t} {d}, {a}",
    "neg": "neg.{t} {d}, {a}",
    "abs": "abs.{t} {d}, {a}",
    "floor": "cvt.rmi.{t}.{t} {d}, {a}",
    "ceil": "cvt.rpi.{t}.{t} {d}, {a}",
    "rint": "cvt.rni.{t}.{t} {d}, {a}",
    # ties away from zero: trunc(x), plus sign(x) where |x - trunc(x)| >= 1/2 (exact in x's type)
    "round_afz": """cvt.rzi.{t}.{t} {v0}, {a}
                    sub.rn.{t} {v1}, {a}, {v0}
                    abs.{t} {v1}, {v1}
                    setp.ge.{t} {p0}, {v1}, {half}
                    copysign.{t} {v2}, {a}, {one}
                    add.rn.{t} {v2}, {v0}, {v2}
                    selp.{t} {d}, {v2}, {v0}, {p0}""",
    "sign": """setp.gt.{t} {p0}, {a}, {zero}
               selp.{t} {v0}, {one}, {a}, {p0}
               setp.lt.{t} {p1}, {a}, {zero}
               selp.{t} {d}, {mone}, {v0}, {p1}""",
    "min": """{minmax}
              setp.eq.{t} {p0}, {a}, {b}
              or.b{w} {v1}, {a}, {b}
              selp.{t} {d}, {v1}, {v0}, {p0}""",
    "max": """{minmax}
              setp.eq.{t} {p0}, {a}, {b}
              and.b{w} {v1}, {a}, {b}
              selp.{t} {d}, {v1}, {v0}, {p0}""",
}
MINMAX = {"f32": "{op}.NaN.f32 {v0}, {a}, {b}",
          "f64": """{op}.f64 {v0}, {a}, {b}
                    setp.nan.f64 {p9}, {a}, {b}
                    selp.f64 {v0}, {nan}, {v0}, {p9}"""}
FAST = {    # fast tier, f32 only
    "exp": "mul.ftz.f32 {f0}, {a}, 0f3FB8AA3B\nex2.approx.ftz.f32 {d}, {f0}",
    "exp2": "ex2.approx.ftz.f32 {d}, {a}",
    "log": "lg2.approx.ftz.f32 {f0}, {a}\nmul.ftz.f32 {d}, {f0}, 0f3F317218",
    "tanh": "tanh.approx.f32 {d}, {a}",
    "logistic": """mul.ftz.f32 {f0}, {a}, 0fBFB8AA3B
                   ex2.approx.ftz.f32 {f1}, {f0}
                   add.ftz.f32 {f2}, {f1}, 0f3F800000
                   rcp.approx.ftz.f32 {d}, {f2}""",
    "sin": "sin.approx.ftz.f32 {d}, {a}",
    "cos": "cos.approx.ftz.f32 {d}, {a}",
    "rsqrt": "rsqrt.approx.ftz.f32 {d}, {a}",
}
FLOAT_IMM = {"f32": {"zero": "0f00000000", "one": "0f3F800000", "mone": "0fBF800000",
                     "nan": "0f7FC00000", "half": "0f3F000000"},
             "f64": {"zero": _math.D(0.0), "one": _math.D(1.0), "mone": _math.D(-1.0),
                     "nan": _math.NAN, "half": _math.D(0.5)}}
COMPARE = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt", "GE": "ge"}
ONE_BITS = {"f16": "0x3C00", "bf16": "0x3F80"}


def emit_module(kernels, arch="sm_90", ptx_version="8.0", math_tier="exact", target=None,
                kernel_text=None):
    """One PTX module holding every `kl.kernel` of `kernels` (see the module docstring).
    `target` (or `arch` itself) may be a TargetProfile, whose fields then win. `kernel_text`
    (default `emit_kernel`) gives each kernel's text from (kernel op, math tier): the compile
    cache passes one that reuses the text of a kernel emitted before."""
    target = target if target is not None else arch if hasattr(arch, "arch") else None
    if target is not None:
        arch, ptx_version, math_tier = target.arch, target.ptx_version, target.math_tier
    m = re.fullmatch(r"sm_(\d+)a?", str(arch))
    if not m or int(m.group(1)) < 80:
        raise UnsupportedError(f"the PTX emitter targets sm_80 or later, got arch {arch!r}")
    if not re.fullmatch(r"\d+\.\d+", str(ptx_version)) or \
            tuple(map(int, str(ptx_version).split("."))) < (7, 8):
        raise UnsupportedError(f"the PTX emitter writes PTX ISA 7.8 or later, got "
                               f"ptx_version {ptx_version!r}")
    if math_tier not in MATH_TIERS:
        raise UnsupportedError(f"math_tier must be one of {', '.join(MATH_TIERS)}, got "
                               f"{math_tier!r}")
    ops = kernel_ops(kernels)
    names = [op.attributes["sym_name"] for op in ops]
    for name in names:
        if names.count(name) > 1:
            raise UnsupportedError(f"two kernels are named {name!r}")
        if not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
            raise UnsupportedError(f"kernel name {name!r} is not a PTX identifier")
    parts = ["//\n// Generated by the accy PTX emitter\n//\n", f".version {ptx_version}",
             f".target {arch}", ".address_size 64", ""]
    parts += [(kernel_text or emit_kernel)(op, math_tier) for op in ops]
    return "\n".join(parts)


def emit_kernel(kernel, math_tier, symbol=None):
    """The PTX text of one `kl.kernel` (legalized first, in place, unless marked `legal`): its
    `.entry` and the module-scope declarations it needs. `symbol` stands for the kernel's name
    wherever the text holds it (its entry, parameters and shared arrays), so that the text of
    a kernel emitted under a stand-in is its text under any name once the stand-in is replaced;
    errors still name the kernel."""
    legalize([kernel])
    return _Kernel(kernel, math_tier, symbol).text()


def _template_lines(text):
    """A template's lines, each split into literal text and placeholder names (odd items),
    parsed once per template text."""
    found = _TEMPLATES.get(text)
    if found is None:
        found = _TEMPLATES[text] = [_PLACEHOLDER.split(line.strip())
                                    for line in text.strip().splitlines() if line.strip()]
    return found


_TEMPLATES = {}


def _prebound(text, static):
    """`_template_lines(text)` with the placeholders `static` binds written into the literal
    text (as `template` would write them), for a template emitted many times with them."""
    lines = []
    for parts in _template_lines(text):
        out = [parts[0]]
        for i in range(1, len(parts), 2):
            name = parts[i]
            if name in static:
                out[-1] += str(static[name]) + parts[i + 1]
            else:
                out += [name, parts[i + 1]]
        lines.append(out)
    return lines


SELECT_TYPE = {"rs": "b16", "r": "b32", "rd": "b64", "f": "f32", "fd": "f64"}   # selp.{type}
_PREBOUND = {}          # (op, dtype, variant) -> its `_prebound` template lines
_OPCODE = {}            # the same key -> the opcode when those lines are one `opcode d, a[, b]`


def _one_instruction(lines):
    """The opcode of prebound template `lines` that are one instruction `opcode {d}, {a}` or
    `opcode {d}, {a}, {b}` (emitted by `op` directly, skipping the template machinery)."""
    if len(lines) == 1:
        parts = lines[0]
        if parts[1::2] in (["d", "a"], ["d", "a", "b"]) and parts[0].endswith(" ") and \
                all(sep == ", " for sep in parts[2:-1:2]) and parts[-1] == "":
            return parts[0][:-1]
    return None


def _int_imm(value):
    v = int(value)
    if -2**31 <= v < 2**31:
        return str(v)
    return "0x%016X" % (v & (2**64 - 1))


_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_ZERO = {"rs": "0", "r": "0", "rd": "0", "f": "0f00000000", "fd": "0d0000000000000000"}
_TEMP = re.compile(r"^(p|rs|rd|r|fd|f|v)(\d+)$")


def _temp_kind(name):
    """What an unbound template placeholder stands for: the register class of a temporary
    ({r0}: "r", {v0}: "v", the template's own class), "label" ({L0}), else None."""
    found = _TEMP_KINDS.get(name)
    if found is None:
        t = _TEMP.match(name)
        found = t.group(1) if t else "label" if re.fullmatch(r"L\d+", name) else ""
        _TEMP_KINDS[name] = found
    return found or None


_TEMP_KINDS = {}


_SCALAR_DTYPES = {}     # a kl value's type -> its dtype, once checked to be a scalar emitted here


# ops whose text depends on more than their signature (accy/lowering/assembler.pyx): they
# emit nested blocks and move values between registers by name, or declare module-level arrays
UNRECORDED = {"kl.for", "kl.while", "kl.if", "kl.shared"}
_HANDLERS = {}          # kl op name -> (its handler, whether it is recorded)
_RECORDINGS = {tier: {} for tier in MATH_TIERS}     # per tier: signature -> recorded text


class _Kernel(Assembler):
    """Emits one kernel; `op`, `emit`, `label`, `place` and `template` are also the interface
    accy.lowering.math writes its functions with."""

    def __init__(self, kernel, tier, symbol=None):
        super().__init__(kernel.context, _HANDLERS, _RECORDINGS[tier])
        self.kernel = kernel
        self.name = kernel.attributes["sym_name"]         # for messages
        self.symbol = symbol or self.name                # in the text
        self.tier = tier
        self.shared = []            # .shared declarations of the kernel
        self.extern = []            # its dynamic shared array, declared at module scope

    @staticmethod
    def handler(name):
        """(The function that emits kl op `name`, called with the kernel and the op, whether
        the op is recorded): its `_op_<name>`, `_arith` for the arithmetic ops, else one that
        raises."""
        short = name[3:] if name.startswith("kl.") else None
        method = getattr(_Kernel, f"_op_{short}", None) if short else None
        if method is None and (short in KL_BINARY or short in KL_UNARY):
            def method(kernel, op):
                kernel._arith(op, short)
        if method is None:
            return _Kernel._unsupported_op, False
        return method, name not in UNRECORDED

    # ---- templates (the rest of the assembler interface is Assembler's) ---------------------
    def template(self, text, vcls, **bind):
        """Emit a template (see INT); fresh temporaries for {v0} (class vcls), {p0}, ..."""
        self._emit_lines(_template_lines(text), vcls, bind)

    def _emit_lines(self, lines, vcls, bind):
        temps = {}
        for parts in lines:
            out = list(parts)
            for i in range(1, len(parts), 2):
                name = parts[i]
                if name in bind:
                    out[i] = str(bind[name])
                    continue
                if name not in temps:
                    kind = _temp_kind(name)
                    if kind == "label":
                        temps[name] = self.label()
                    elif kind is not None:
                        temps[name] = self.new(vcls if kind == "v" else kind)
                    else:
                        raise KeyError(f"template placeholder {{{name}}} is unbound")
                out[i] = temps[name]
            line = "".join(out)
            if not line:
                continue
            if line.endswith(":"):
                self.place(line[:-1])
            else:
                self.emit(line)

    # ---- kernel -----------------------------------------------------------------------------
    def text(self):
        entry = self.kernel.regions[0].entry
        params = []
        for i, arg in enumerate(entry.arguments):
            pname = f"{self.symbol}_param_{i}"
            dtype = pointee(arg.type)
            if dtype is not None:
                if dtype not in STORAGE:
                    raise UnsupportedError(f"kernel {self.name}: a pointer to {dtype}")
                params.append(f"\t.param .u64 {pname}")
                raw = self.op("ld.param.u64", f"[{pname}]")
                self.define(arg, self.op("cvta.to.global.u64", raw))
                continue
            dtype = self._dtype(arg)
            cls, _, mem, _, _ = STORAGE[dtype]
            params.append(f"\t.param .{mem} {pname}")
            if dtype == "i1":
                byte = self.op("ld.param.u8", f"[{pname}]", cls="r")
                self.define(arg, self.op("setp.ne.u32", byte, 0))
            else:
                self.define(arg, self.op(f"ld.param.{mem}", f"[{pname}]", cls=cls))
        self.block(entry)
        counts = self.register_counts()
        decls = [f"\t.reg .{t} \t%{cls}<{counts[cls]}>;" for cls, t in REGISTERS
                 if counts[cls]] + self.shared
        bound = self.kernel.attributes.get("max_threads")
        head = "".join(self.extern) + f".visible .entry {self.symbol}(\n" + ",\n".join(params) + "\n)\n" + \
            (f".maxntid {bound}, 1, 1\n.minnctapersm 1\n" if bound else "") + "{\n"
        return head + "\n".join(decls) + "\n\n" + "\n".join(self.lines) + "\n}\n"

    def _dtype(self, value):
        t = value.type
        found = _SCALAR_DTYPES.get(t)
        if found is None:
            if pointee(t) is not None or getattr(t, "shape", None) != ():
                raise UnsupportedError(f"kernel {self.name}: {t} is not a scalar")
            if t.dtype not in STORAGE:
                raise UnsupportedError(f"kernel {self.name}: dtype {t.dtype}")
            found = _SCALAR_DTYPES[t] = t.dtype
        return found

    def _op_yield(self, op):
        pass                            # the enclosing op moves the yielded values

    def _op_return(self, op):
        self.emit("ret")

    def _unsupported_op(self, op):
        raise UnsupportedError(f"kernel {self.name}: the PTX emitter does not support "
                               f"op '{op.name}'")

    # ---- structure --------------------------------------------------------------------------
    def _op_special(self, op):
        self.define(op.results[0], self.op("mov.u32", "%" + op.attributes["register"]))

    def _op_constant(self, op):
        value = op.results[0]
        dtype = self._dtype(value)
        array = np.asarray(op.attributes["value"].array)
        cls = STORAGE[dtype][0]
        if op.attributes.get("immediate", False):      # written into its users' instructions
            return self.define(value, _int_imm(int(array)))
        if dtype == "i1":
            return self.define(value, self.op("mov.pred", int(bool(array)), cls="p"))
        if dtype in ("f16", "bf16"):
            bits = int(array.reshape(1).view(np.uint16)[0])
            return self.define(value, self.op("mov.b16", "0x%04X" % bits, cls=cls))
        if dtype in ("f32", "f64"):
            imm = "0f%08X" % struct.unpack("<I", struct.pack("<f", float(array)))[0] \
                if dtype == "f32" else _math.D(float(array))
            return self.define(value, self.op(f"mov.{dtype}", imm))
        width = 64 if dtype == "i64" else 32
        return self.define(value, self.op(f"mov.b{width}", _int_imm(int(array)), cls=cls))

    def _address(self, ptr, index, nbytes):
        base, idx = self.reg(ptr), self.reg(index)
        if nbytes == 1:
            return self.op("add.s64", base, idx)
        return self.op("mad.lo.s64", idx, nbytes, base)

    def _op_load(self, op):
        dtype = self._dtype(op.results[0])
        cls, _, mem, _, nbytes = STORAGE[dtype]
        where = space(op.operands[0].type)
        addr = self._address(op.operands[0], op.operands[1], nbytes)
        guard, cls = self._guard(op, 2), ("r" if dtype == "i1" else cls)
        d = self.new(cls)
        if guard:                       # a masked lane keeps the zero
            self.emit(f"mov.{DECLARED[cls]} {d}, {_ZERO[cls]}")
        self.emit(f"{guard}ld.{where}.{'u8' if dtype == 'i1' else mem} {d}, [{addr}]")
        self.define(op.results[0], self.op("setp.ne.u32", d, 0) if dtype == "i1" else d)

    def _op_store(self, op):
        value, ptr, index = op.operands[:3]
        dtype = self._dtype(value)
        _, _, _, st, nbytes = STORAGE[dtype]
        addr = self._address(ptr, index, nbytes)
        v = self.reg(value)
        if dtype == "i1":
            v = self.op("selp.u32", 1, 0, v)
        self.emit(f"{self._guard(op, 3)}st.{space(ptr.type)}.{st} [{addr}], {v}")

    def _guard(self, op, position):
        """`@%p ` when operand `position` (an access's predicate) is there, else ''."""
        return f"@{self.reg(op.operands[position])} " if len(op.operands) > position else ""

    # ---- vector access, shared memory, warps, atomics ---------------------------------------
    # 2-byte elements move as b16 (8 of them as 4 b32 words, split by mov); 4- and 8-byte
    # ones as their register type. i16 lives sign-extended in a b32 register.
    @staticmethod
    def _vector_type(dtype, width):
        """(PTX vector type, register class, number of registers) of one access."""
        cls, _, _, _, nbytes = STORAGE[dtype]
        if nbytes == 2:
            return ("b32", "r", 4) if width == 8 else ("b16", "rs", width)
        return {"f": "f32", "fd": "f64", "r": "b32", "rd": "b64"}[cls], cls, width

    def _op_vload(self, op):
        dtype = self._dtype(op.results[0])
        width = len(op.results)
        nbytes = STORAGE[dtype][4]
        typ, cls, n = self._vector_type(dtype, width)
        regs = [self.new(cls) for _ in range(n)]
        addr = self._address(op.operands[0], op.operands[1], nbytes)
        self.emit(f"ld.{space(op.operands[0].type)}.v{n}.{typ} {{{', '.join(regs)}}}, "
                  f"[{addr}]")
        if typ == "b32" and nbytes == 2:                # 8 halves from 4 words
            halves = []
            for word in regs:
                lo, hi = self.new("rs"), self.new("rs")
                self.emit(f"mov.b32 {{{lo}, {hi}}}, {word}")
                halves += [lo, hi]
            regs = halves
        for r, reg in zip(op.results, regs):
            if dtype == "i16":
                reg = self.op("cvt.s32.s16", reg, cls="r")
            self.define(r, reg)

    def _op_vstore(self, op):
        *values, ptr, index = op.operands
        dtype = self._dtype(values[0])
        nbytes = STORAGE[dtype][4]
        regs = [self.reg(v) for v in values]
        if dtype == "i16":
            regs = [self.op("cvt.u16.u32", r, cls="rs") for r in regs]
        typ, _, n = self._vector_type(dtype, len(values))
        if typ == "b32" and nbytes == 2:
            words = []
            for lo, hi in zip(regs[::2], regs[1::2]):
                word = self.new("r")
                self.emit(f"mov.b32 {word}, {{{lo}, {hi}}}")
                words.append(word)
            regs = words
        addr = self._address(ptr, index, nbytes)
        self.emit(f"st.{space(ptr.type)}.v{n}.{typ} [{addr}], {{{', '.join(regs)}}}")

    def _op_shared(self, op):
        dtype = pointee(op.results[0].type)
        name = f"{self.symbol}_smem{len(self.shared) + len(self.extern)}"   # one numbering
        if op.attributes.get("dynamic", False):
            if self.extern:
                raise UnsupportedError(f"kernel {self.name}: two dynamic shared arrays")
            self.extern.append(f".extern .shared .align 16 .b8 {name}[];\n")
        else:
            size = op.attributes["count"] * STORAGE[dtype][4]
            self.shared.append(f"\t.shared .align 16 .b8 {name}[{size}];")
        self.define(op.results[0], self.op("mov.u64", name))

    def _op_view(self, op):
        self.define(op.results[0], self.op("add.s64", *(self.reg(v) for v in op.operands)))

    def _op_barrier(self, op):
        self.emit("bar.sync 0")

    def _op_fence(self, op):
        self.emit("fence.acq_rel.gpu")

    # ---- tensor cores and asynchronous copies -----------------------------------------------
    def _op_ldmatrix(self, op):
        a = op.attributes
        regs = [self.new("r") for _ in op.results]
        addr = self._address(op.operands[0], op.operands[1], 2)
        trans = ".trans" if a.get("trans", False) else ""
        self.emit(f"ldmatrix.sync.aligned.m8n8.x{a['count']}{trans}.shared.b16 "
                  f"{{{', '.join(regs)}}}, [{addr}]")
        for r, reg in zip(op.results, regs):
            self.define(r, reg)

    def _op_mma(self, op):
        a = op.attributes
        na, nb, _ = MMA_SHAPES[a["shape"]]
        regs = [self.reg(v) for v in op.operands]
        groups = (regs[:na], regs[na:na + nb], regs[na + nb:])
        d = [self.new("f") for _ in op.results]
        ab = a["ab"]
        self.emit(f"mma.sync.aligned.{a['shape']}.row.col.f32.{ab}.{ab}.f32 "
                  + ", ".join("{" + ", ".join(g) + "}" for g in (d,) + groups))
        for r, reg in zip(op.results, d):
            self.define(r, reg)

    def _op_to_tf32(self, op):
        self.define(op.results[0], self.op("cvt.rna.tf32.f32", self.reg(op.operands[0]),
                                           cls="r"))

    def _op_pack(self, op):
        lo, hi = (self.reg(v) for v in op.operands)
        self.define(op.results[0], self.op("mov.b32", f"{{{lo}, {hi}}}", cls="r"))

    def _op_unpack(self, op):
        lo, hi = self.new("rs"), self.new("rs")
        self.emit(f"mov.b32 {{{lo}, {hi}}}, {self.reg(op.operands[0])}")
        self.define(op.results[0], lo)
        self.define(op.results[1], hi)

    def _op_cp_async(self, op):
        dst, dst_index, src, src_index, src_bytes = op.operands
        itemsize = STORAGE[pointee(dst.type)][4]
        nbytes = op.attributes["bytes"]
        to = self._address(dst, dst_index, itemsize)
        fro = self._address(src, src_index, itemsize)
        level = "cg" if nbytes == 16 else "ca"      # .cg (L2 only) takes 16 bytes alone
        self.emit(f"cp.async.{level}.shared.global [{to}], [{fro}], {nbytes}, "
                  f"{self.reg(src_bytes)}")

    def _op_cp_async_wait(self, op):
        self.emit("cp.async.commit_group")
        self.emit(f"cp.async.wait_group {op.attributes['pending']}")

    def _as_word(self, reg, dtype):
        """A b32 register holding a 32-bit-or-smaller value's bits."""
        cls = STORAGE[dtype][0]
        if cls == "p":
            return self.op("selp.u32", 1, 0, reg)
        if cls == "rs":
            return self.op("cvt.u32.u16", reg, cls="r")
        if cls == "f":
            return self.op("mov.b32", reg, cls="r")
        return reg

    def _from_word(self, word, dtype):
        cls = STORAGE[dtype][0]
        if cls == "p":
            return self.op("setp.ne.u32", word, 0)
        if cls == "rs":
            return self.op("cvt.u16.u32", word, cls="rs")
        if cls == "f":
            return self.op("mov.b32", word, cls="f")
        return word

    def _op_shuffle(self, op):
        value, lane = op.operands
        dtype = self._dtype(value)
        mode = op.attributes["mode"]
        clamp = 0 if mode == "up" else 31
        lane = self.reg(lane)

        def shfl(word):
            return self.op(f"shfl.sync.{'bfly' if mode == 'xor' else mode}.b32", word, lane,
                           clamp, "0xffffffff", cls="r")
        if STORAGE[dtype][4] == 8:
            bits = self.reg(value) if dtype == "i64" else self.op("mov.b64", self.reg(value),
                                                                   cls="rd")
            lo, hi = self.new("r"), self.new("r")
            self.emit(f"mov.b64 {{{lo}, {hi}}}, {bits}")
            out = self.new("rd")
            self.emit(f"mov.b64 {out}, {{{shfl(lo)}, {shfl(hi)}}}")
            if dtype == "f64":
                out = self.op("mov.b64", out, cls="fd")
            return self.define(op.results[0], out)
        self.define(op.results[0], self._from_word(shfl(self._as_word(self.reg(value), dtype)),
                                                   dtype))

    def _op_vote(self, op):
        mode = op.attributes["mode"]
        typ = "b32" if mode == "ballot" else "pred"
        self.define(op.results[0],
                    self.op(f"vote.sync.{mode}.{typ}", self.reg(op.operands[0]), "0xffffffff"))

    _ATOMIC_TYPE = {("add", "i32"): "s32", ("add", "i64"): "u64", ("add", "f32"): "f32",
                    ("add", "f64"): "f64", ("min", "i32"): "s32", ("min", "i64"): "s64",
                    ("max", "i32"): "s32", ("max", "i64"): "s64"}

    def _op_atomic(self, op):
        ptr, index, value = op.operands
        dtype, kind = self._dtype(value), op.attributes["op"]
        nbytes = STORAGE[dtype][4]
        addr = self._address(ptr, index, nbytes)
        typ = self._ATOMIC_TYPE.get((kind, dtype))
        if typ is not None:
            return self.define(op.results[0], self.op(f"atom.{space(ptr.type)}.{kind}.{typ}",
                                                      f"[{addr}]", self.reg(value)))
        bits = "r" if nbytes == 4 else "rd"             # exch moves bits
        v = self.op(f"mov.b{8 * nbytes}", self.reg(value), cls=bits)
        old = self.op(f"atom.{space(ptr.type)}.exch.b{8 * nbytes}", f"[{addr}]", v, cls=bits)
        self.define(op.results[0], self.op(f"mov.b{8 * nbytes}", old,
                                           cls=STORAGE[dtype][0]))

    def _op_atomic_cas(self, op):
        ptr, index, compare, value = op.operands
        dtype = self._dtype(value)
        nbytes = STORAGE[dtype][4]
        addr = self._address(ptr, index, nbytes)
        self.define(op.results[0], self.op(f"atom.{space(ptr.type)}.cas.b{8 * nbytes}",
                                           f"[{addr}]", self.reg(compare), self.reg(value),
                                           cls="r" if nbytes == 4 else "rd"))

    def _copy(self, moves):
        """Parallel copy [(dest, src)] (through temporaries when a source is overwritten)."""
        moves = [(d, s) for d, s in moves if d != s]
        dests = {d for d, _ in moves}
        if any(s in dests for _, s in moves):
            moves = [(d, self._mov(s)) for d, s in moves]
        for d, s in moves:
            self._mov(s, d)

    def _mov(self, src, dest=None):
        cls = (dest or src)[1:].rstrip("0123456789")
        return self.op(f"mov.{DECLARED[cls]}", src, dest=dest, cls=cls)

    def _op_for(self, op):
        lo, hi, step, *inits = op.operands
        body = op.regions[0].entry
        iv, *carried = body.arguments
        self.define(iv, self._mov(self.reg(lo)))
        regs = [self.define(a, self._mov(self.reg(v))) for a, v in zip(carried, inits)]
        top, end = self.label(), self.label()
        self.place(top)
        if not op.attributes.get("unroll", True):
            self.emit('.pragma "nounroll"')
        self.emit(f"@{self.op('setp.ge.s64', self.reg(iv), self.reg(hi))} bra {end}")
        self.block(body)
        self._copy(list(zip(regs, [self.reg(v) for v in body.last_op.operands])))
        self.op("add.s64", self.reg(iv), self.reg(step), dest=self.reg(iv))
        self.emit(f"bra.uni {top}")
        self.place(end)
        for r, reg in zip(op.results, regs):
            self.define(r, reg)

    def _op_while(self, op):
        body = op.regions[0].entry
        regs = [self.define(a, self._mov(self.reg(v)))
                for a, v in zip(body.arguments, op.operands)]
        top = self.label()
        self.place(top)
        self.block(body)
        go, *nexts = [self.reg(v) for v in body.last_op.operands]
        if go in regs:                  # a carried flag: keep it from the copy below
            go = self._mov(go)
        self._copy(list(zip(regs, nexts)))
        self.emit(f"@{go} bra {top}")
        for r, reg in zip(op.results, regs):
            self.define(r, reg)

    def _op_if(self, op):
        results = [self.new(STORAGE[self._dtype(r)][0]) for r in op.results]
        other, end = self.label(), self.label()
        self.emit(f"@!{self.reg(op.operands[0])} bra {other}")
        for i, region in enumerate(op.regions):
            if i:
                self.place(other)
            self.block(region.entry)
            self._copy(list(zip(results, [self.reg(v) for v in region.entry.last_op.operands])))
            if not i:
                self.emit(f"bra.uni {end}")
        self.place(end)
        for r, reg in zip(op.results, results):
            self.define(r, reg)

    # ---- arithmetic -------------------------------------------------------------------------
    def _unsupported(self, name, dtype, why=""):
        raise UnsupportedError(f"kernel {self.name}: the PTX emitter does not support op "
                               f"{name} on dtype {dtype}" + (f" ({why})" if why else ""))

    def _op_fma(self, op):
        self._arith(op, "fma")

    def _op_select(self, op):
        (result,), operands = op.results, op.operands
        c, a, b = (self.reg(v) for v in operands)
        cls = STORAGE[self._dtype(result)][0]
        self.define(result, self.op(f"selp.{SELECT_TYPE[cls]}", a, b, c))

    def _op_is_finite(self, op):
        dtype = self._dtype(op.operands[0])
        if dtype not in ("f32", "f64"):
            self._unsupported("is_finite", dtype)
        self.define(op.results[0], self.op(f"testp.finite.{dtype}", self.reg(op.operands[0])))

    def _op_cmp(self, op):
        a, b = op.operands
        (result,) = op.results
        dtype = self._dtype(a)
        pred = COMPARE[op.attributes["predicate"]]
        if dtype in ("f64", "f32"):
            pred = "neu" if pred == "ne" else pred
        self.define(result, self.op(f"setp.{pred}.{STORAGE[dtype][1]}", self.reg(a),
                                    self.reg(b)))

    def _arith(self, op, name):
        # op.results / op.operands make new handles on each access: read them once
        (result,), operands = op.results, op.operands
        dtype = self._dtype(result)
        if name == "shr" and op.attributes.get("arithmetic", False):
            name = "shra"
        args = [self.reg(v) for v in operands]
        if dtype == "i1":
            d = self._bool(name, args)
        elif dtype in BITS:
            d = self._int(name, dtype, args, name in ("div", "rem") and
                          op.attributes.get("safe_divisor", False))
        elif name in ("max", "min") and op.attributes.get("approx", False):
            d = self.op(f"{name}.f32", *args)
        elif name == "exp2" and op.attributes.get("approx", False):
            d = self._f32_fast(name, args[0])
        else:
            d = self._float(name, dtype, args)
        self.define(result, d)

    def _bool(self, name, args):
        if name == "not":
            return self.op("not.pred", args[0])
        if name not in BOOL:
            self._unsupported(name, "i1")
        return self.op(f"{name}.pred", *args)

    def _int(self, name, dtype, args, safe_divisor):
        """Integer op `name` on registers `args`; `safe_divisor`: a div or rem whose divisor
        is never 0 or -1, the plain hardware division."""
        cls, t, _, _, _ = STORAGE[dtype]
        if name in ("popc", "clz"):
            return self._bit_count(name, dtype, args[0])
        if name not in INT and name != "shra":
            self._unsupported(name if name != "shra" else "shr", dtype, "a float-only op")
        if name in SHIFT and args[1][0] != "%":    # a legalizer's immediate: within [0, bits)
            return self.op(f"{SHIFT[name]}{64 if dtype == 'i64' else 32}", *args, cls=cls)
        key = (name, dtype, safe_divisor)
        opcode = _OPCODE.get(key)
        if opcode is not None:
            return self.op(opcode, *args, cls=cls)
        lines = _PREBOUND.get(key)
        if lines is None:
            text = INT["shra" if name == "shra" else name]
            if isinstance(text, dict):
                text = text["u" if dtype == "u8" else "s"]
            if safe_divisor:
                text = f"{name}.{{t}} {{d}}, {{a}}, {{b}}"
            w, n = (64 if dtype == "i64" else 32), BITS[dtype]
            for line, alias, needed in (("cvt.u32.u{w} {r0}, {v0}", ("{r0}", "{v0}"), w == 64),
                                        ("and.b{w} {v1}, {a}, {mask}", ("{v1}", "{a}"), n < w),
                                        ("cvt.s{w}.s{n} {v1}, {a}", ("{v1}", "{a}"), n < w)):
                if not needed and line in text:         # a no-op at this width: drop it
                    text = text.replace(line, "").replace(*alias)
            lines = _PREBOUND[key] = _prebound(
                text, dict(t=t, w=w, n=n, n1=n - 1, mask=(1 << n) - 1))
            if _one_instruction(lines):
                _OPCODE[key] = _one_instruction(lines)
        d = self.new(cls)
        bind = dict(zip("abc", args))
        bind["d"] = d
        self._emit_lines(lines, cls, bind)
        return d

    def _bit_count(self, name, dtype, x):
        """popc / clz of the dtype's own bits (a small integer's register holds it extended
        to 32 bits: masked first); the count is a u32, widened for i64."""
        n = BITS[dtype]
        w = 64 if n == 64 else 32
        if n < w:
            x = self.op("and.b32", x, (1 << n) - 1)
        count = self.op(f"{name}.b{w}", x, cls="r")
        if name == "clz" and n < w:
            count = self.op("sub.s32", count, w - n)
        return self.op("cvt.u64.u32", count) if w == 64 else count

    def _op_bitcast(self, op):
        """The operand's bits in a register of the result's class: a move between classes
        of one width; i16 <-> f16/bf16 and i8 <-> u8 re-extend as the small integers are
        kept (sign- or zero-extended to 32 bits)."""
        (source,), (result,) = op.operands, op.results
        src, dst = self._dtype(source), self._dtype(result)
        x = self.reg(source)
        src_cls, dst_cls = STORAGE[src][0], STORAGE[dst][0]
        if src == dst or (src_cls == dst_cls == "rs"):
            d = self._mov(x)
        elif dst == "i16":
            d = self.op("cvt.s32.s16", x, cls="r")
        elif src == "i16":
            d = self.op("cvt.u16.u32", x, cls="rs")
        elif dst == "u8":
            d = self.op("and.b32", x, 255)
        elif dst == "i8":
            d = self.op("cvt.s32.s8", x, cls="r")
        else:
            d = self.op(f"mov.b{STORAGE[dst][4] * 8}", x, cls=dst_cls)
        self.define(result, d)

    def _op_wrap(self, op):
        """Re-extend, in place, the register of the one op result `kl.wrap` follows."""
        x = self.reg(op.operands[0])
        self.template(SMALL[self._dtype(op.results[0])], "r", d=x)
        self.define(op.results[0], x)

    def _op_mul_hi(self, op):
        (result,), (a, b) = op.results, op.operands
        t = STORAGE[self._dtype(result)][1]
        self.define(result, self.op(f"mul.hi.{t}", self.reg(a), self.reg(b)))

    # ---- floats -----------------------------------------------------------------------------
    def widen32(self, x, dtype):
        if dtype == "f16":
            return self.op("cvt.f32.f16", x)
        wide = self.op("shl.b32", self.op("cvt.u32.u16", x), 16)
        return self.op("mov.b32", wide, cls="f")

    def narrow32(self, x, dtype):
        return self.op(f"cvt.rn.{dtype}.f32", x)

    def widen64(self, x, dtype):
        if dtype == "f32":
            return self.op("cvt.f64.f32", x)
        if dtype == "f16":
            return self.op("cvt.f64.f16", x)
        return self.op("cvt.f64.f32", self.widen32(x, dtype))

    def narrow64(self, x, dtype):
        if dtype in ("f32", "f16"):
            return self.op(f"cvt.rn.{dtype}.f64", x)
        return self.narrow32(self.round_to_odd_f32(x), "bf16")

    def round_to_odd_f32(self, x):
        """f64 -> f32 rounded to odd (toward zero, then the last bit set when inexact): a
        following cvt.rn to bf16 then rounds once, as from the exact value."""
        f = self.op("cvt.rz.f32.f64", x)
        inexact = self.op("setp.neu.f64", self.op("cvt.f64.f32", f), x)
        bits = self.op("mov.b32", f, cls="r")
        odd = self.op("selp.b32", self.op("or.b32", bits, 1), bits, inexact)
        return self.op("mov.b32", odd, cls="f")

    def _float(self, name, dtype, args):
        if name in ("and", "or", "xor", "not", "shl", "shr", "shra"):
            self._unsupported("shr" if name == "shra" else name, dtype, "an integer-only op")
        if dtype in ("f16", "bf16"):    # legalize widened the rest to f32
            if name == "fma":
                return self.op(f"fma.rn.{dtype}", *args)
            if name in ("neg", "abs"):
                return self.op(f"{'xor' if name == 'neg' else 'and'}.b16", args[0],
                               "0x8000" if name == "neg" else "0x7FFF")
            if name in TRANSCENDENTAL or name == "pow":
                if self.tier == "fast" and name in FAST:
                    return self.narrow32(self._f32_fast(name, self.widen32(args[0], dtype)),
                                         dtype)
                if name in _math32.CORES:
                    return self.narrow32(_math32.CORES[name](
                        self, self.widen32(args[0], dtype), odd=True, huge=dtype != "f16"),
                        dtype)
                return self.narrow64(self._core(name, [self.widen64(a, dtype) for a in args]),
                                     dtype)
        if name in TRANSCENDENTAL or name == "pow":
            if dtype == "f64":
                if name == "rsqrt":
                    return _math.rsqrt(self, args[0])
                self._unsupported(name, dtype, "f64 transcendentals run on the host")
            if self.tier == "fast" and name in FAST:
                return self._f32_fast(name, args[0])
            if name in _math32.CORES:
                return _math32.CORES[name](self, args[0])
            return self.narrow64(self._core(name, [self.widen64(a, dtype) for a in args]),
                                 dtype)
        if name == "rem":
            return _math.fmod(self, args[0], args[1], dtype)
        if name not in FLOAT:
            self._unsupported(name, dtype)
        fast = self.tier == "fast" and dtype == "f32"
        cls = STORAGE[dtype][0]
        key = (name, dtype, fast)
        lines = _PREBOUND.get(key)
        if lines is None:
            text = FLOAT[name].replace("{minmax}", MINMAX[dtype].replace("{op}", name))
            lines = _PREBOUND[key] = _prebound(text, dict(
                t=dtype, w=64 if dtype == "f64" else 32,
                rnd=".ftz" if fast else ".rn", ftz=".ftz" if fast else "",
                div=".full.ftz" if fast else ".rn", sqrt=".approx.ftz" if fast else ".rn",
                **FLOAT_IMM[dtype]))
        d = self.new(cls)
        bind = dict(zip("abc", args))
        bind["d"] = d
        self._emit_lines(lines, cls, bind)
        return d

    def _f32_fast(self, name, x):
        d = self.new("f")
        self.template(FAST[name], "f", d=d, a=x)
        return d

    def _core(self, name, args):
        return _math.CORES[name](self, *args)

    # ---- convert ----------------------------------------------------------------------------
    def _op_convert(self, op):
        (source,), (result,) = op.operands, op.results
        src, dst = self._dtype(source), self._dtype(result)
        self.define(result, self.convert(self.reg(source), src, dst))

    def convert(self, x, src, dst):
        floats = ("f64", "f32", "f16", "bf16")
        if src == dst:
            return self._mov(x)
        if dst == "i1":
            if src in floats:
                return self.op(f"setp.neu.{src}", x, FLOAT_IMM[src]["zero"])
            return self.op(f"setp.ne.{STORAGE[src][1]}", x, 0)
        if src == "i1":
            if dst in ("f16", "bf16"):
                return self.op("selp.b16", ONE_BITS[dst], "0x0000", x)
            if dst in ("f32", "f64"):
                return self.op(f"selp.{dst}", FLOAT_IMM[dst]["one"], FLOAT_IMM[dst]["zero"], x)
            return self.op(f"selp.{STORAGE[dst][1]}", 1, 0, x)
        if src in floats and dst in floats:
            if src == "f64":
                return self.narrow64(x, dst)
            if dst == "f64":
                return self.widen64(x, src)
            return self.narrow32(x, dst) if src == "f32" else self.widen32(x, src)
        if dst in floats:                               # from an integer
            it = {"i64": "s64", "u8": "u32"}.get(src, "s32")
            if dst != "bf16":
                return self.op(f"cvt.rn.{dst}.{it}", x)
            if src != "i64":                            # exact in f64, then one rounding
                return self.narrow64(self.op(f"cvt.rn.f64.{it}", x), "bf16")
            f = self.op("cvt.rz.f32.s64", x)            # to odd: toward zero + sticky bit
            inexact = self.op("setp.ne.s64", self.op("cvt.rzi.s64.f32", f), x)
            bits = self.op("mov.b32", f, cls="r")
            odd = self.op("selp.b32", self.op("or.b32", bits, 1), bits, inexact)
            return self.narrow32(self.op("mov.b32", odd, cls="f"), "bf16")
        if src in floats:                               # float -> integer, saturating
            it = {"i64": "s64", "u8": "u32"}.get(dst, "s32")
            v = self.op(f"cvt.rzi.{it}.{src}", x)
            if src == "f64" or dst == "i64":    # the ISA gives 1 << (width - 1) for a NaN here
                v = self.op(f"selp.b{it[1:]}", 0, v, self.op(f"setp.nan.{src}", x, x))
            if dst == "u8":
                return self.op("min.u32", v, 255)
            if dst in ("i32", "i64"):
                return v
            lo, hi = (-128, 127) if dst == "i8" else (-32768, 32767)
            return self.op("min.s32", self.op("max.s32", v, lo), hi)
        # integer -> integer: extend, or truncate (legalize re-extends a small destination)
        if dst == "i64":
            return self.op("cvt.u64.u32" if src == "u8" else "cvt.s64.s32", x)
        return self.op("cvt.u32.u64", x) if src == "i64" else self._mov(x)
