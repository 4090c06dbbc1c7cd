"""The f32 cores of accy/lowering/math32.py as C: the instructions a core writes, translated one
for one (each instruction's IEEE meaning: fmaf, rintf, a cast rounds to nearest even), compiled
with contraction off. tests/test_ptx_emitter.py checks that the C gives the emulator's bits;
then the C checks the cores against a reference on as many inputs as one cares to run:

    python tests/math32_model.py                 # every f32 input of every core (minutes)
    python tests/math32_model.py exp --stride 97

The reference is the function in double (glibc), rounded once to f32, or in long double where
the double lands within 2^-45 of a rounding midpoint; a result is judged by its distance in
ulps from it (ordered integers; a zero of the wrong sign, or NaN against a number, counts as
2^31; NaN equals NaN).
"""
import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

from accy.lowering import math32
from accy.lowering.math import ULP_BOUND
from accy.lowering.assembler import dest_class

C_TYPES = {"p": "int", "rs": "uint16_t", "r": "uint32_t", "rd": "uint64_t", "f": "float",
           "fd": "double"}
REFERENCE = {"exp": "exp", "log": "log", "tanh": "tanh", "logistic": "logistic", "erf": "erf",
             "sin": "sin", "cos": "cos"}

# opcode -> C expression of its operands A, B, C (the destination's type is the register's)
FLOAT_OPS = {
    "fma.rn": "fma{s}(A, B, C)", "mul.rn": "A * B", "add.rn": "A + B", "sub.rn": "A - B",
    "div.rn": "A / B", "neg": "-A", "abs": "fabs{s}(A)", "copysign": "copysign{s}(B, A)",
    "mov": "A", "sqrt.rn": "sqrt{s}(A)",
    "rcp.rn": "1 / A", "selp": "C ? A : B",
    "setp.lt": "A < B", "setp.le": "A <= B", "setp.gt": "A > B", "setp.ge": "A >= B",
    "setp.eq": "A == B", "setp.ne": "(A < B || A > B)", "setp.neu": "!(A == B)",
    "setp.nan": "(isnan(A) || isnan(B))", "testp.finite": "isfinite(A)",
    "testp.infinite": "isinf(A)",
}
OPS = {
    "cvt.rni.f32.f32": "rintf(A)", "cvt.rni.f64.f64": "rint(A)", "cvt.rmi.f64.f64": "floor(A)",
    "cvt.rni.s32.f32": "cvt_s32_f32(A)", "cvt.rni.s64.f64": "cvt_s64_f64(A)",
    "cvt.rn.f32.s32": "(float)(int32_t)A", "cvt.rn.f64.s64": "(double)(int64_t)A",
    "cvt.f64.f32": "(double)A", "cvt.rn.f32.f64": "(float)A", "cvt.u32.u64": "(uint32_t)A",
    "shl.b32": "A << B", "shr.s32": "(uint32_t)((int32_t)A >> B)", "and.b32": "A & B",
    "or.b32": "A | B", "add.s32": "A + B", "sub.s32": "A - B", "add.u32": "A + B",
    "neg.s32": "0u - A", "selp.b32": "C ? A : B", "selp.s32": "C ? A : B",
    "setp.ne.u32": "A != B", "setp.lt.s64": "(int64_t)A < (int64_t)B",
    "shl.b64": "A << B", "shr.u64": "A >> B", "and.b64": "A & B", "or.b64": "A | B",
    "add.s64": "A + B", "and.pred": "A && B", "or.pred": "A || B", "not.pred": "!A",
}
for _t, _s in (("f32", "f"), ("f64", "")):
    for _name, _expr in FLOAT_OPS.items():
        OPS[f"{_name}.{_t}"] = _expr.replace("{s}", _s)
OPS = {k: re.sub(r"\b[ABC]\b", lambda m: "{%d}" % "ABC".index(m.group()), v)
       for k, v in OPS.items()}

PRELUDE = r"""
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
static inline float f32_bits(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double f64_bits(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }
static inline uint32_t bits_f32(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t bits_f64(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }
/* PTX's cvt.rni to a signed integer: NaN -> 0, out of range saturates */
#define CVT_RNI(name, F, RINT, U, S, BITS)                      \
    static inline U name(F x) {                                \
        const F limit = (F)((U)1 << (BITS - 1));               \
        if (isnan(x)) return 0;                                \
        F r = RINT(x);                                         \
        if (r >= limit) return (U)-1 >> 1;                     \
        if (r < -limit) return (U)1 << (BITS - 1);             \
        return (U)(S)r;                                        \
    }
CVT_RNI(cvt_s32_f32, float, rintf, uint32_t, int32_t, 32)
CVT_RNI(cvt_s64_f64, double, rint, uint64_t, int64_t, 64)
static inline double logistic(double x) { return 1 / (1 + exp(-x)); }
static inline long double logisticl(long double x) { return 1 / (1 + expl(-x)); }
static inline int64_t ordinal(float f) {
    int32_t i = (int32_t)bits_f32(f);
    return i < 0 ? -(int64_t)(i & 0x7FFFFFFF) - 1 : i;
}
"""

CHECK = r"""
/* counts[0..2]: results 0, 1, more ulps from the reference; worst[0]: the largest distance,
   worst[1]: an input with it */
void check_NAME(uint64_t start, uint64_t stop, uint64_t stride, uint64_t *counts,
                uint64_t *worst) {
    for (uint64_t i = start; i < stop; i += stride) {
        float x = f32_bits((uint32_t)i);
        float y = core_NAME(x);
        double d = REF((double)x);
        float want = (float)d;
        if (isfinite(want) && want != 0.0f) {
            double below = ((double)want + (double)nextafterf(want, -INFINITY)) / 2;
            double above = ((double)want + (double)nextafterf(want, INFINITY)) / 2;
            double margin = fabs(d) * 0x1p-45;
            if (fabs(d - below) < margin || fabs(d - above) < margin)
                want = (float)REFl((long double)x);
        }
        uint64_t dist;
        if (isnan(want) || isnan(y)) dist = (isnan(want) && isnan(y)) ? 0 : 1u << 31;
        else if (y == 0 && want == 0) dist = signbit(y) == signbit(want) ? 0 : 1u << 31;
        else dist = (uint64_t)llabs(ordinal(y) - ordinal(want));
        counts[dist == 0 ? 0 : dist == 1 ? 1 : 2]++;
        if (dist > worst[0]) { worst[0] = dist; worst[1] = i; }
    }
}
void run_NAME(const float *x, float *y, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) y[i] = core_NAME(x[i]);
}
"""


class _Recorder:
    """The emitter interface the cores write through (new, label, place, emit, op), keeping
    the lines."""

    def __init__(self):
        self.lines, self.counts, self.labels = [], {}, 0

    def new(self, cls):
        n = self.counts.get(cls, 0)
        self.counts[cls] = n + 1
        return f"%{cls}{n}"

    def label(self):
        self.labels += 1
        return f"$L__{self.labels}"

    def place(self, label):
        self.lines.append(label + ":")

    def emit(self, text):
        self.lines.append(text)

    def op(self, opcode, *srcs, cls=None, dest=None):
        if dest is None:
            dest = self.new(cls if cls is not None else dest_class(opcode))
        self.lines.append((opcode, dest, [str(s) for s in srcs]))
        return dest


def _operand(text):
    if text.startswith("%"):
        return "v_" + text[1:]
    if text.startswith("0f"):
        return f"f32_bits(0x{text[2:]}u)"
    if text.startswith("0d"):
        return f"f64_bits(0x{text[2:]}ull)"
    return f"({text})" if text[0] in "-0123456789" else text


def _is_float(register):
    return register.startswith("%f") or register == "%in"


def _statement(opcode, dest, srcs):
    if opcode in ("mov.b32", "mov.b64"):          # a bit cast between register classes
        (src,) = srcs
        w = opcode[-2:]
        if _is_float(src):
            return f"{_operand(dest)} = bits_f{w}({_operand(src)});"
        if _is_float(dest):
            return f"{_operand(dest)} = f{w}_bits({_operand(src)});"
        return f"{_operand(dest)} = {_operand(src)};"
    return f"{_operand(dest)} = {OPS[opcode].format(*map(_operand, srcs))};"


def core_c(name):
    """C source of `float core_<name>(float x)`: the instructions math32.CORES[name] writes."""
    rec = _Recorder()
    out = math32.CORES[name](rec, "%in")
    body = []
    for line in rec.lines:
        if isinstance(line, str):
            if line.endswith(":"):
                body.append(f"{line[1:-1]}:;")
                continue
            guard, _, target = line.rpartition(" ")
            if guard.startswith("@") and guard.endswith(" bra"):
                body.append(f"if ({_operand(guard[1:-4])}) goto {target[1:]};")
            elif guard in ("bra", "bra.uni"):
                body.append(f"goto {target[1:]};")
            else:
                raise ValueError(f"no C for the line {line!r}")
            continue
        opcode, dest, srcs = line
        body.append(_statement(opcode, dest, srcs))
    decls = [f"{C_TYPES[cls]} " + ", ".join(f"v_{cls}{i}" for i in range(n)) + ";"
             for cls, n in rec.counts.items()]
    return (f"float core_{name}(float x) {{\n    float v_in = x;\n    "
            + "\n    ".join(decls + body) + f"\n    return {_operand(out)};\n}}\n")


def build(names, folder, native=False):
    """ctypes library of the cores `names` with their check_/run_ entry points."""
    parts = [PRELUDE]
    for name in names:
        parts.append(core_c(name))
        parts.append(CHECK.replace("NAME", name).replace("REFl", REFERENCE[name] + "l")
                     .replace("REF", REFERENCE[name]))
    source = os.path.join(folder, "math32_model.c")
    library = os.path.join(folder, "math32_model.so")
    with open(source, "w") as out:
        out.write("\n".join(parts))
    flags = ["-O2", "-std=c11", "-ffp-contract=off", "-fno-fast-math", "-fPIC", "-shared",
             "-Wall", "-Werror", "-Wno-unused-label", "-Wno-unused-but-set-variable"]
    if native:
        flags.append("-march=native")
    subprocess.run([shutil.which("cc") or "cc", *flags, source, "-o", library, "-lm"],
                   check=True)
    lib = ctypes.CDLL(library)
    u64, ptr = ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64)
    fptr = ctypes.POINTER(ctypes.c_float)
    for name in names:
        getattr(lib, f"check_{name}").argtypes = [u64, u64, u64, ptr, ptr]
        getattr(lib, f"run_{name}").argtypes = [fptr, fptr, u64]
    return lib


def run(lib, name, x):
    """The C core on a float32 array."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    y = np.empty_like(x)
    fptr = ctypes.POINTER(ctypes.c_float)
    getattr(lib, f"run_{name}")(x.ctypes.data_as(fptr), y.ctypes.data_as(fptr), x.size)
    return y


def check(lib, name, stride=1, threads=1, start=0, stop=1 << 32):
    """({distance 0, 1, more: count}, worst distance, an input bit pattern with it) over the
    f32 bit patterns start, start + stride, ... below stop."""
    span = -(-(stop - start) // stride)
    bounds = [start + stride * (span * t // threads) for t in range(threads + 1)]
    results = [((ctypes.c_uint64 * 3)(), (ctypes.c_uint64 * 2)()) for _ in range(threads)]
    fn = getattr(lib, f"check_{name}")
    workers = [threading.Thread(target=fn, args=(bounds[t], min(bounds[t + 1], stop), stride,
                                                 *results[t]))
               for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    counts = [sum(r[0][i] for r in results) for i in range(3)]
    worst = max(results, key=lambda r: r[1][0])[1]
    return dict(zip((0, 1, "more"), counts)), int(worst[0]), int(worst[1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help=f"cores ({', '.join(math32.CORES)}; "
                        "default: all)")
    parser.add_argument("--stride", type=int, default=1)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    names = args.names or list(math32.CORES)
    with tempfile.TemporaryDirectory() as folder:
        lib = build(names, folder, native=True)
        print("| core | inputs | 0 ulp | 1 ulp | more | worst (input) | seconds |")
        print("|---|---|---|---|---|---|---|")
        failed = False
        for name in names:
            t0 = time.perf_counter()
            counts, worst, at = check(lib, name, args.stride, args.threads)
            total = sum(counts.values())
            failed |= worst > ULP_BOUND[name]
            print(f"| {name} | {total:,} | {counts[0]:,} | {counts[1]:,} | {counts['more']:,} "
                  f"| {worst} (0x{at:08X}) | {time.perf_counter() - t0:.0f} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
