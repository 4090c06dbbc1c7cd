"""Regenerate tests/stablehlo/: small JAX functions lowered to StableHLO, each as

    NAME.mlir           the pretty form, as jax.jit(f).lower(*inputs).as_text() prints it
    NAME.generic.mlir   the same module in MLIR's generic form (what accy's parser reads)
    NAME.npz            the inputs and JAX's outputs (layout: tests/stablehlo_cases.py)

plus a few printed with their locations (NAME.loc.generic.mlir, softmax.loc.mlir) and one
module as jax.export writes it (exported.generic.mlir). tests/test_stablehlo_corpus.py reads
them. Inputs are drawn from a generator seeded by the case's name, so a rerun writes the same
bytes and adding a case changes no other.

Needs jax and jaxlib (the `bench` extra); CI does not run this script, it only reads the files.

    python tools/stablehlo_corpus.py            # rewrite tests/stablehlo/
    python tools/stablehlo_corpus.py --check    # and check each file against MLIR itself

--check has MLIR (jaxlib's) read accy's generic print of each generic file: MLIR must print it
exactly as it prints the file, so accy kept every op, type and attribute MLIR sees. It also has
MLIR read each pretty file: its generic print must be the case's generic file, but for the
all-empty `arg_attrs`/`res_attrs` of the generic form, which the pretty form cannot spell.
"""
import argparse
import io
import pathlib
import re
import sys
import zipfile
import zlib

import ml_dtypes
import numpy as np

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
from jax import export, lax
from jax._src.interpreters import mlir as jax_mlir
from jax._src.lib.mlir import ir

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "stablehlo"
# Locations name the source file; keep its name only (no directories in committed text).
jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")

# ---- inputs: each argument is drawn by a function of the case's generator ----------------------


def normal(*shape, dtype=np.float32, scale=1.0, mean=0.0):
    return lambda rng: (mean + scale * rng.standard_normal(shape)).astype(dtype)


def uniform(low, high, *shape):
    return lambda rng: rng.uniform(low, high, shape).astype(np.float32)


def integers(low, high, *shape, dtype=np.int32):
    """Integers in [low, high); where low < 0 (indices JAX normalizes) at least one is negative."""
    def draw(rng):
        while True:
            a = rng.integers(low, high, shape, dtype=dtype)
            if a.any() and (low >= 0 or (a < 0).any()):
                return a
    return draw


def rows(n, k):
    """k distinct rows of an n-row array, some as negative indices (x.at[r].set: no collisions)."""
    def draw(rng):
        while True:
            a = (rng.permutation(n)[:k] - n * rng.integers(0, 2, k)).astype(np.int32)
            if (a < 0).any() and (a >= 0).any():
                return a
    return draw


def mask(*shape):
    """Booleans, both values present (or true for a scalar)."""
    def draw(rng):
        while True:
            a = rng.random(shape) < 0.5
            if a.any() and (a.size == 1 or not a.all()):
                return a
    return draw


# ---- the functions ---------------------------------------------------------------------------


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


def cumulative(x):
    return (jnp.cumsum(x, axis=0), lax.cummax(x, axis=0), jnp.cumprod(x, axis=1),
            lax.cumsum(x, axis=1, reverse=True), lax.cummin(x, axis=0, reverse=True))


def rnn_scan(xs, h0, w, u, b):
    def step(h, x):
        h = jnp.tanh(h @ w + x @ u + b)
        return h, h
    return lax.scan(step, h0, xs)


def fori_loop(x, n):
    fixed = lax.fori_loop(0, 4, lambda i, y: y * 0.9 + i.astype(jnp.float32), x)
    traced = lax.fori_loop(0, n, lambda i, y: y + jnp.cos(y), x)
    return fixed, traced


def while_loop(x):
    def body(state):
        k, y = state
        return k + 1, y * 0.5 + jnp.sin(y)
    return lax.while_loop(lambda s: s[0] < 5, body, (0, x))[1]


def argmax(x):
    return jnp.argmax(x, axis=1), jnp.max(x, axis=0)


def indexing(x, i, s, j, k):
    return (x[i], x[s], x[2], x[:, 1], x[1:3, ::2], jnp.take(x, j, axis=1),
            jnp.take_along_axis(x, k, axis=1))


def scatter(x, i, v, r, vs):
    return (x.at[i].set(v), x.at[i].add(v), x.at[r].set(vs), x.at[r].add(vs),
            lax.dynamic_update_slice(x, vs[:2], (i, jnp.int32(0))))


def sort(x):
    return jnp.sort(x, axis=0), jnp.argsort(x, axis=1)


def cond(p, x):
    return lax.cond(p, lambda y: y * 2.0, lambda y: -y, x)


def switch(i, x):
    return lax.switch(i, [lambda y: y + 1.0, lambda y: y * y, jnp.sin], x)


def attention(q, k, v):
    scores = q @ k.T / jnp.sqrt(jnp.float32(q.shape[-1]))
    mask = jnp.tril(jnp.ones((q.shape[0], k.shape[0]), bool))
    scores = jnp.where(mask, scores, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v


SEQ, MODEL, HEADS, LAYERS = 8, 16, 2, 2


def transformer(x, ln, wqkv, wo, w1, b1, w2, b2):
    """A pre-LN decoder of LAYERS blocks; each layer's weights are one slice of a stacked array
    (ln: [layer, which norm, gamma or beta, MODEL])."""
    def heads(t):
        return t.reshape(SEQ, HEADS, MODEL // HEADS).transpose(1, 0, 2)
    causal = jnp.tril(jnp.ones((SEQ, SEQ), bool))
    for layer in range(LAYERS):
        h = layer_norm(x, ln[layer, 0, 0], ln[layer, 0, 1])
        q, k, v = (heads(t) for t in jnp.split(h @ wqkv[layer], 3, axis=-1))
        scores = q @ k.transpose(0, 2, 1) / jnp.sqrt(jnp.float32(MODEL // HEADS))
        weights = jax.nn.softmax(jnp.where(causal, scores, -jnp.inf), axis=-1)
        x = x + (weights @ v).transpose(1, 0, 2).reshape(SEQ, MODEL) @ wo[layer]
        h = layer_norm(x, ln[layer, 1, 0], ln[layer, 1, 1])
        x = x + jax.nn.gelu(h @ w1[layer] + b1[layer]) @ w2[layer] + b2[layer]
    return x


def math(x, y, a, b):
    """x in (-1.2, 1.2), y positive, a any int32, b a shift amount (the bitcast of a is kept
    finite: exponent below 127)."""
    return (jnp.tan(x), jss.erf(x), jss.erfc(x), jnp.arctan2(x, y), jnp.expm1(x), jnp.log1p(y),
            jnp.cbrt(x), lax.logistic(x), jnp.remainder(x, y - 1.5), jnp.remainder(a, b + 1),
            jnp.power(y, x), jnp.sign(x), jnp.round(x * 3.0), jnp.floor(x), jnp.ceil(x),
            jnp.isfinite(x / (y - y[0])), jnp.exp2(x), jnp.square(x), jnp.abs(a),
            a << b, a >> b, lax.shift_right_logical(a, b), lax.population_count(a),
            lax.clz(a), ~a, a & b, a | b, a ^ b, jnp.clip(x, -0.5, 0.5),
            lax.bitcast_convert_type(x, jnp.int32),
            lax.bitcast_convert_type(a & 0x3F7FFFFF, jnp.float32))


def chlo_extra(x, y):
    """CHLO ops beyond those of `math` (x in (-0.9, 0.9), y > 1)."""
    return (jnp.sinh(x), jnp.cosh(x), jnp.arcsin(x), jnp.arccos(x), jnp.arctan(x),
            jnp.arcsinh(x), jnp.arccosh(y), jnp.arctanh(x), jss.gammaln(y), jss.digamma(y),
            jnp.nextafter(x, y), *lax.top_k(x, 3))


def shapes(x, y):
    return (jnp.concatenate([x, y], axis=0),
            lax.pad(x, jnp.float32(0.5), ((-1, 2, 1), (1, 0, 0))), jnp.flip(x, axis=1),
            x.T.reshape(2, 6), x[:, None, :] - y[None, :, :],
            jnp.arange(12, dtype=jnp.float32).reshape(3, 4) * x, jnp.arange(4) + y.shape[0])


def converts(x, big, i, b):
    return (x.astype(jnp.bfloat16), x.astype(jnp.float16), x.astype(jnp.int32),
            big.astype(jnp.uint8), x.astype(bool), x.astype(jnp.bfloat16).astype(jnp.float16),
            x.astype(jnp.float16).astype(jnp.float32), i.astype(jnp.float32), i.astype(jnp.uint8),
            i.astype(bool), i.astype(jnp.uint8).astype(jnp.int32), b.astype(jnp.float32),
            b.astype(jnp.int32), b.astype(jnp.bfloat16), big.astype(jnp.uint8).astype(jnp.float16))


TABLE = np.linspace(-1.0, 1.0, 128, dtype=np.float32)   # > 100 elements: MLIR prints it as hex


def constants(x, pixels, keep):
    y = x * TABLE + pixels.astype(jnp.float32) / 255.0
    return jnp.where(keep, y, jnp.nan), (x > 0).astype(jnp.uint8)


def mlp_bf16(x, w):
    h = jax.nn.relu((x.astype(jnp.bfloat16) @ w) * jnp.bfloat16(0.1))
    return h.astype(jnp.float16) + jnp.float16(0.3)


D, F = MODEL, 2 * MODEL
CASES = {      # name -> (function, its arguments' draws[, False where outputs are not all finite])
    "mlp": (mlp, (normal(4, 8), normal(8, 16), normal(16), normal(16, 3), normal(3))),
    "softmax": (softmax, (normal(4, 10, scale=3.0),)),
    "layer_norm": (layer_norm, (normal(4, 32), normal(32), normal(32))),
    "rms_norm": (rms_norm, (normal(4, 32), normal(32))),
    "gelu": (gelu, (normal(16, scale=2.0),)),
    "cumulative": (cumulative, (uniform(-1.5, 1.5, 5, 3),)),
    "rnn_scan": (rnn_scan, (normal(5, 3), normal(4), normal(4, 4, scale=0.5),
                            normal(3, 4, scale=0.5), normal(4))),
    "fori_loop": (fori_loop, (normal(4), integers(1, 5))),
    "while_loop": (while_loop, (normal(4),)),
    "argmax": (argmax, (normal(4, 6),)),
    "indexing": (indexing, (normal(5, 3), integers(-5, 5, 3), integers(-5, 0), integers(-3, 3, 4),
                            integers(-3, 3, 5, 2))),
    "scatter": (scatter, (normal(5, 3), integers(-5, 0), normal(3), rows(5, 3), normal(3, 3))),
    "sort": (sort, (normal(4, 3),)),
    "cond": (cond, (mask(), normal(3))),
    "switch": (switch, (integers(1, 3), normal(3))),
    "attention": (attention, (normal(6, 8), normal(6, 8), normal(6, 8))),
    "transformer": (transformer, (normal(SEQ, D), normal(LAYERS, 2, 2, D, scale=0.3, mean=1.0),
                                  normal(LAYERS, D, 3 * D, scale=D ** -0.5),
                                  normal(LAYERS, D, D, scale=D ** -0.5),
                                  normal(LAYERS, D, F, scale=D ** -0.5),
                                  normal(LAYERS, F, scale=0.1),
                                  normal(LAYERS, F, D, scale=F ** -0.5),
                                  normal(LAYERS, D, scale=0.1))),
    "math": (math, (uniform(-1.2, 1.2, 8), uniform(0.5, 3.0, 8),
                    integers(-2 ** 31, 2 ** 31 - 1, 8), integers(0, 32, 8))),
    "chlo_extra": (chlo_extra, (uniform(-0.9, 0.9, 8), uniform(1.1, 4.0, 8))),
    "shapes": (shapes, (normal(3, 4), normal(2, 4))),
    "converts": (converts, (uniform(-60.0, 60.0, 8), uniform(0.0, 255.0, 8),
                            integers(-1000, 1000, 8), mask(8))),
    "constants": (constants, (normal(128), integers(0, 256, 128, dtype=np.uint8), mask(128)),
                  False),
    "mlp_bf16": (mlp_bf16, (normal(4, 8), normal(8, 4, dtype=ml_dtypes.bfloat16))),
}
WITH_LOCATIONS = ("softmax", "attention")      # also printed with their locations (.loc.)
PRETTY_WITH_LOCATIONS = ("softmax",)

# ---- writing ---------------------------------------------------------------------------------

MLIR_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "int32": "i32",
               "uint32": "ui32", "uint8": "ui8", "bool": "i1"}


def mlir_type(a):
    return f"tensor<{''.join(f'{d}x' for d in a.shape)}{MLIR_DTYPES[a.dtype.name]}>"


def main_signature(module):
    """main's argument and result types, as MLIR prints them."""
    main = next(op for op in module.body.operations
                if ir.StringAttr(op.attributes["sym_name"]).value == "main")
    ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    return [str(t) for t in ftype.inputs], [str(t) for t in ftype.results]


def npz_bytes(arrays):
    """An .npz of `arrays` (name -> array), bf16 ones as their bits under NAME.bf16; the zip
    entries carry a fixed date so that the same arrays give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, a in arrays.items():
            if a.dtype == ml_dtypes.bfloat16:
                name, a = f"{name}.bf16", a.view(np.uint16)
            with z.open(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), "w") as f:
                np.lib.format.write_array(f, a, allow_pickle=False)
    return buffer.getvalue()


def case_files(name, fn, draws, finite=True):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inputs = [np.asarray(draw(rng)) for draw in draws]
    jitted = jax.jit(fn)
    lowered = jitted.lower(*inputs)
    outputs = [np.asarray(a) for a in jax.tree_util.tree_leaves(jitted(*inputs))]
    module = lowered.compiler_ir("stablehlo")
    # the npz's order is main's: no argument dropped, the results flattened as main returns them
    expected = [mlir_type(a) for a in inputs], [mlir_type(a) for a in outputs]
    if main_signature(module) != expected:
        raise SystemExit(f"{name}: main is {main_signature(module)}, the arrays are {expected}")
    if finite != all(np.isfinite(a.astype(np.float64)).all() for a in outputs):
        raise SystemExit(f"{name}: the table says finite={finite}, the outputs do not")
    files = {f"{name}.mlir": lowered.as_text(),
             f"{name}.generic.mlir": module.operation.get_asm(print_generic_op_form=True),
             f"{name}.npz": npz_bytes({**{f"arg{k}": a for k, a in enumerate(inputs)},
                                       **{f"out{k}": a for k, a in enumerate(outputs)},
                                       "finite": np.array(finite)})}
    if name in WITH_LOCATIONS:
        files[f"{name}.loc.generic.mlir"] = module.operation.get_asm(print_generic_op_form=True,
                                                                     enable_debug_info=True)
    if name in PRETTY_WITH_LOCATIONS:
        files[f"{name}.loc.mlir"] = lowered.as_text(debug_info=True)
    return files


def exported_text():
    """What jax.export writes (its module attributes), re-printed in the generic form."""
    exported = export.export(jax.jit(lambda x: jnp.tanh(x) * 2.0))(
        jax.ShapeDtypeStruct((3,), jnp.float32))
    with jax_mlir.make_ir_context() as ctx:
        module = ir.Module.parse(exported.mlir_module(), ctx)
        return module.operation.get_asm(print_generic_op_form=True)


def corpus():
    files = {"exported.generic.mlir": exported_text()}
    for name, (fn, draws, *finite) in CASES.items():
        files.update(case_files(name, fn, draws, *finite))
    return files


def check(out):
    """MLIR re-reads accy's print of each generic file and prints what it prints for the file;
    each pretty file, read by MLIR, prints as its generic file."""
    from accy.ir import Context, parse     # only --check needs accy built
    ctx = jax_mlir.make_ir_context()

    def mlir_generic(text):
        return ir.Module.parse(text, ctx).operation.get_asm(print_generic_op_form=True)

    def without_empty_attrs(text):
        return re.sub(r"(arg|res)_attrs = \[\{\}(, \{\})*\], ", "", text)

    bad = 0
    for path in sorted(out.glob("*.generic.mlir")):
        text = path.read_text()
        ours = parse(text, Context(allow_unregistered=True)).print(generic=True)
        same = mlir_generic(ours) == mlir_generic(text)
        bad += not same
        print(f"{path.name:32} {'same' if same else 'DIFFERENT'}")
    for path in sorted(set(out.glob("*.mlir")) - set(out.glob("*.generic.mlir"))):
        generic = out / f"{path.name.split('.')[0]}.generic.mlir"
        expected = without_empty_attrs(mlir_generic(generic.read_text()))
        same = mlir_generic(path.read_text()) == expected
        bad += not same
        print(f"{path.name:32} {'same module' if same else 'DIFFERENT'} as {generic.name}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="check the files against MLIR")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    files = corpus()
    for stale in {*OUT.glob("*.mlir"), *OUT.glob("*.npz")} - {OUT / name for name in files}:
        stale.unlink()
    for name, data in files.items():
        (OUT / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    print(f"wrote {len(files)} files to tests/{OUT.name}/ (jax {jax.__version__})")
    if args.check:
        sys.exit(1 if check(OUT) else 0)


if __name__ == "__main__":
    main()
