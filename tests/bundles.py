"""Sample executables of every kind a bundle holds, and a folder of their bundles: the corpus of
the bundle tests and of the C runtime's.

    SAMPLES                         name -> what it compiles (a function or module, its inputs)
    compiled(name)                  (Executable, inputs), compiled once per process
    write_samples(folder)           for every sample: NAME.accy, its inputs NAME.arg<i>.bin and
                                    the emulator's results NAME.result<i>.bin (raw C-order
                                    bytes; the bundle's manifest gives dtypes and shapes)

    python tests/bundles.py DIR     write_samples(DIR)

Inputs are drawn from a generator seeded by the sample's name (never zeros), so a folder
written twice holds the same bytes.
"""
import functools
import json
import os
import sys
import zlib

import ml_dtypes  # noqa: F401  (bf16 arrays)
import numpy as np

import accy
import accy.ops as ops
from accy._core.types import numpy_dtype
from accy.examples import transformer
from accy.examples.graphs import GRAPHS
from accy.ir import parse
from accy.runtime.bundle import write as write_bundle

# a kernel_call's own module: y = 3 * x over 256 f32 elements (2 blocks of 128)
TRIPLE_PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry triple(.param .u64 src, .param .u64 dst)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<7>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  mul.wide.s32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  mul.f32 %f2, %f1, 0f40400000;
  st.global.f32 [%rd5], %f2;
  ret;
}
"""


def _kernel_call_module():
    return parse(f"""builtin.module ({{
  builtin.func <{{function_type = (tensor<256xf32>) -> tensor<256xf32>, sym_name = "main"}}> ({{
  ^bb0(%0: tensor<256xf32>):
    %1 = tensor.exp %0 : tensor<256xf32>
    %2 = tensor.kernel_call %1 <{{block = [128, 1, 1], grid = [2, 1, 1], kernel = "triple", ptx = {json.dumps(TRIPLE_PTX)}}}> : tensor<256xf32>
    %3 = tensor.negate %2 : tensor<256xf32>
    builtin.return %3
  }})
}})""")


def _while(x, n):
    def body(state):
        i, c = state
        return i + 1, ops.softmax(c, -1) * 2.0
    return ops.while_loop(lambda state: state[0] < n, body, (np.int32(0), x))


def _nested_with_host_step(x, n):
    """Two loops, the inner body's f64 row pipeline on the host (no f64 exp kernel)."""
    def outer(i, c):
        return ops.fori_loop(0, n, lambda j, d: ops.exp(-d * d) * 0.5
                             + ops.sum(d, -1, keepdims=True) * 0.1, c * 2.0)
    return ops.fori_loop(0, n, outer, x)


def _attention_f64(q, k, v):
    """Attention in f64: no kernel at all, one host step (and no ptx section)."""
    return ops.attention(q, k, v)


def _constants(x):
    c = np.arange(12, dtype=np.float32).reshape(3, 4) * 0.25 + 1
    return x + c, ops.take(x, [2, 0, 0], axis=0) * 2.0


def _mixed_dtypes(a, b, m):
    return (a.astype("f32") * 2).astype("bf16"), ops.where(m, b, b * 3), ops.logical_not(m)


def _draw(rng, shape, dtype):
    if dtype == "i1":
        return rng.random(shape) < 0.5
    if dtype in ("i8", "i32", "i64"):
        values = rng.integers(1, 50, shape) * rng.choice([-1, 1], shape)
        return values.astype(numpy_dtype(dtype))
    return (rng.standard_normal(shape) + 0.25).astype(numpy_dtype(dtype))


def _int(value):
    return lambda rng: np.asarray(value, np.int32)


def _arrays(*specs):
    return lambda rng: [s(rng) if callable(s) else _draw(rng, *s) for s in specs]


# a target with a generated schedule of every kind (the row one used by "scheduled")
SCHEDULED = {
    "arch": "sm_90", "ptx_version": "8.3",
    "row_pipeline_schedules": [{"row_length": 512, "dtype": "f32", "threads_per_row": 128,
                                "elements_per_thread": 4}],
    "scan_schedules": [{"length": 4096, "dtype": "f32", "threads": 512,
                        "elements_per_thread": 8}],
    "dot_schedules": [{"m": 4096, "n": 4096, "k": 4096, "dtype": "bf16", "tile_m": 128,
                       "tile_n": 256, "tile_k": 32, "stages": 4, "splits": 1}],
    "attention_schedules": [{"seq_q": 4096, "seq_k": 4096, "head_dim": 64, "dtype": "bf16",
                             "block_q": 128, "block_k": 64}],
}

# name -> (function or module, inputs(rng) -> arrays, target)
SAMPLES = {
    "elementwise": (lambda x, y: x * y + 1, _arrays(((64,), "f32"), ((64,), "f32")), None),
    "rows": (lambda x: (ops.sum(x, -1), ops.softmax(x, -1)), _arrays(((4, 8), "f32")), None),
    "scan": (lambda x: ops.cumsum(x, -1), _arrays(((4, 16), "f32")), None),
    "dot": (lambda a, b: a @ b, _arrays(((8, 16), "f32"), ((16, 8), "f32")), None),
    "dot_mma": (lambda a, b: a @ b, _arrays(((64, 64), "f16"), ((64, 64), "f16")), None),
    "attention": (GRAPHS["attention"](small=True), _arrays(*[((1, 2, 8, 4), "f32")] * 3), None),
    "fori_loop": (lambda x, n: ops.fori_loop(0, n, lambda i, c: ops.softmax(c * 1.5, -1), x),
                  _arrays(((4, 8), "f32"), _int(3)), None),
    "while_loop": (_while, _arrays(((4, 8), "f32"), _int(4)), None),
    "nested_host": (_nested_with_host_step, _arrays(((3, 4), "f64"), _int(2)), None),
    "host_only": (_attention_f64, _arrays(*[((1, 1, 5, 4), "f64")] * 3), None),
    "kernel_call": (_kernel_call_module(), _arrays(((256,), "f32")), None),
    "constants": (_constants, _arrays(((3, 4), "f32")), None),
    "copies": (lambda x: [x, x * 2], _arrays(((5,), "f32")), None),
    "no_kernels": (lambda x, n: (x, x, n), _arrays(((2, 3), "i64"), _int(7)), None),
    "dtypes": (_mixed_dtypes, _arrays(((6,), "i8"), ((6,), "bf16"), ((6,), "i1")), None),
    "cubin": (lambda x: ops.exp(x) * 2, _arrays(((64,), "f32")),
              {"arch": "sm_90", "artifact_format": "cubin"}),
    "scheduled": (lambda x: ops.softmax(x, -1), _arrays(((2, 512), "f32")), SCHEDULED),
    "fast_sm80": (lambda x: ops.tanh(x) + ops.exp(-x), _arrays(((64,), "f32")),
                  {"arch": "sm_80", "math_tier": "fast"}),
    "transformer": (transformer.block, lambda rng: list(transformer.example_inputs()), None),
}


@functools.cache
def compiled(name):
    """(Executable, inputs) of sample `name`."""
    fn, inputs, target = SAMPLES[name]
    arrays = inputs(np.random.default_rng(zlib.crc32(name.encode())))
    return accy.compile(fn, *arrays, target=target), arrays


def write_samples(folder):
    """Write every sample's bundle, inputs and emulator results into `folder`; the paths."""
    os.makedirs(folder, exist_ok=True)
    written = []
    for name in SAMPLES:
        exe, arrays = compiled(name)
        results = exe.run(*arrays, device="emulator")
        results = results if isinstance(results, (tuple, list)) else (results,)
        files = {f"{name}.accy": write_bundle(exe)}
        files.update((f"{name}.arg{i}.bin", np.ascontiguousarray(a).tobytes())
                     for i, a in enumerate(arrays))
        files.update((f"{name}.result{i}.bin", np.ascontiguousarray(r).tobytes())
                     for i, r in enumerate(results))
        for file, data in files.items():
            with open(os.path.join(folder, file), "wb") as f:
                f.write(data)
            written.append(os.path.join(folder, file))
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/bundles.py DIR")
    print("\n".join(write_samples(sys.argv[1])))
