"""Regenerate tests/stablehlo/: small JAX functions lowered to StableHLO and printed in MLIR's
generic form, the text accy's parser is tested on (tests/test_stablehlo_corpus.py).

Needs jax and jaxlib (the `bench` extra); CI does not run this script, it only reads the files.

    python tools/stablehlo_corpus.py            # rewrite tests/stablehlo/*.generic.mlir
    python tools/stablehlo_corpus.py --check    # and check each file against MLIR itself

--check has MLIR (jaxlib's) read accy's generic print of each file: MLIR must print it exactly
as it prints the file, so accy kept every op, type and attribute MLIR sees.
"""
import argparse
import pathlib
import sys

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "stablehlo"
# Locations name the source file; keep its name only (no directories in committed text).
jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")


def f32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def mlp(x, w1, b1, w2, b2):
    return jax.nn.relu(x @ w1 + b1) @ w2 + b2


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def layer_norm(x, gamma, beta):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta


def rms_norm(x, gamma):
    return x * lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-6) * gamma


def gelu(x):
    return jax.nn.gelu(x, approximate=True), jax.nn.gelu(x, approximate=False)


def cumsum(x):
    return jnp.cumsum(x, axis=0), jnp.cumprod(x, axis=1)


def argmax(x):
    return jnp.argmax(x, axis=1), jnp.max(x, axis=0)


def gather(x, i):
    return x[i], jnp.take_along_axis(x[:2], i[:, None] % 3, axis=1), x[1:3, ::2]


def scatter(x, i, v):
    return x.at[i].set(v), x.at[i].add(v)


def sort(x):
    return jnp.sort(x, axis=0), jnp.argsort(x, axis=1)


def while_loop(x):
    def body(state):
        k, y = state
        return k + 1, y * 0.5 + jnp.sin(y)
    return lax.while_loop(lambda s: s[0] < 5, body, (0, x))[1]


def cond(p, x):
    return lax.cond(p, lambda y: y * 2.0, lambda y: -y, x)


def attention(q, k, v):
    scores = q @ k.T / jnp.sqrt(jnp.float32(q.shape[-1]))
    mask = jnp.tril(jnp.ones((q.shape[0], k.shape[0]), bool))
    scores = jnp.where(mask, scores, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v


TABLE = np.linspace(-1.0, 1.0, 128, dtype=np.float32)   # > 100 elements: MLIR prints it as hex


def constants(x, pixels, keep):
    y = x * TABLE + pixels.astype(jnp.float32) / 255.0
    return jnp.where(keep, y, jnp.nan), (x > 0).astype(jnp.uint8)


def mlp_bf16(x, w):
    h = jax.nn.relu((x.astype(jnp.bfloat16) @ w) * jnp.bfloat16(0.1))
    return h.astype(jnp.float16) + jnp.float16(0.3)


CASES = {      # name -> (function, example arguments)
    "mlp": (mlp, (f32(4, 8), f32(8, 16), f32(16), f32(16, 3), f32(3))),
    "softmax": (softmax, (f32(4, 10),)),
    "layer_norm": (layer_norm, (f32(4, 32), f32(32), f32(32))),
    "rms_norm": (rms_norm, (f32(4, 32), f32(32))),
    "gelu": (gelu, (f32(16),)),
    "cumsum": (cumsum, (f32(5, 3),)),
    "argmax": (argmax, (f32(4, 6),)),
    "gather": (gather, (f32(5, 3), jax.ShapeDtypeStruct((2,), jnp.int32))),
    "scatter": (scatter, (f32(5, 3), jax.ShapeDtypeStruct((), jnp.int32), f32(3))),
    "sort": (sort, (f32(4, 3),)),
    "while_loop": (while_loop, (f32(4),)),
    "cond": (cond, (jax.ShapeDtypeStruct((), jnp.bool_), f32(3))),
    "attention": (attention, (f32(6, 8), f32(6, 8), f32(6, 8))),
    "constants": (constants, (f32(128), jax.ShapeDtypeStruct((128,), jnp.uint8),
                              jax.ShapeDtypeStruct((128,), jnp.bool_))),
    "mlp_bf16": (mlp_bf16, (f32(4, 8), jax.ShapeDtypeStruct((8, 4), jnp.bfloat16))),
}
WITH_LOCATIONS = ("softmax", "attention")      # also printed with their locations (.loc.)


def generic_text(fn, args, debug_info=False):
    module = jax.jit(fn).lower(*args).compiler_ir("stablehlo")
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=debug_info)


def exported_text():
    """What jax.export writes (its module attributes), re-printed in the generic form."""
    from jax import export
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir
    exported = export.export(jax.jit(lambda x: jnp.tanh(x) * 2.0))(f32(3))
    with jax_mlir.make_ir_context() as ctx:
        module = ir.Module.parse(exported.mlir_module(), ctx)
        return module.operation.get_asm(print_generic_op_form=True)


def corpus():
    texts = {f"{name}.generic.mlir": generic_text(fn, args) for name, (fn, args) in CASES.items()}
    for name in WITH_LOCATIONS:
        fn, args = CASES[name]
        texts[f"{name}.loc.generic.mlir"] = generic_text(fn, args, debug_info=True)
    texts["exported.generic.mlir"] = exported_text()
    return texts


def check(paths):
    """MLIR re-reads accy's print of each file and prints what it prints for the file."""
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir
    from accy.ir import Context, parse
    ctx = jax_mlir.make_ir_context()
    bad = 0
    for path in paths:
        text = path.read_text()
        expected = ir.Module.parse(text, ctx).operation.get_asm(print_generic_op_form=True)
        ours = parse(text, Context(allow_unregistered=True)).print(generic=True)
        got = ir.Module.parse(ours, ctx).operation.get_asm(print_generic_op_form=True)
        same = got == expected
        bad += not same
        print(f"{path.name:32} {'same' if same else 'DIFFERENT'}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="check the files against MLIR")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    texts = corpus()
    for name, text in texts.items():
        (OUT / name).write_text(text)
    print(f"wrote {len(texts)} files to tests/{OUT.name}/ (jax {jax.__version__})")
    if args.check:
        sys.exit(1 if check(sorted(OUT.glob("*.mlir"))) else 0)


if __name__ == "__main__":
    main()
