"""Regenerate tests/stablehlo_pretty/: StableHLO modules in the pretty form (NAME.mlir) and MLIR's
generic print of each (NAME.generic.mlir), the test data of tests/test_stablehlo_pretty.py.

Needs jax and jaxlib (the `bench` extra); CI does not run this script, it only reads the files.

    python tools/stablehlo_pretty_samples.py            # rewrite tests/stablehlo_pretty/
    python tools/stablehlo_pretty_samples.py --check    # and check accy's reading with MLIR

Three kinds of sample:
  * JAX's: small functions lowered by jax and printed by `as_text()` (a few with
    `debug_info=True`: NAME.loc.mlir); MLIR reads that text and prints it generically.
  * SPEC: modules written here in the pretty form, for the ops and forms JAX does not print
    that way; MLIR reads each and prints it in both forms (NAME.mlir is MLIR's pretty print).
  * handwritten.mlir: a module written as a person might (no module around it, untyped
    integers, unsorted attributes, comments), kept as written.

--check has MLIR read accy's translation (accy.stablehlo.pretty.to_generic) of each NAME.mlir:
MLIR must print it exactly as it prints NAME.mlir itself, so the two are the same module.
"""
import argparse
import os
import pathlib
import re
import sys

# two host devices, for the sharded samples; set before jax starts
os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + \
    " --xla_force_host_platform_device_count=2"

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import export, lax  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "stablehlo_pretty"
# Locations name the source file; keep its name only (no directories in committed text).
jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")


def f32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def i32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.int32)


def typed(dtype, *shape):
    return jax.ShapeDtypeStruct(shape, dtype)


def elementwise(x, y):
    return (jnp.sin(x) + y * 2.0, x - y, x / y, jnp.maximum(x, y), jnp.minimum(x, y),
            jnp.exp(x), jnp.log(y), jnp.tanh(x), jnp.sqrt(y), lax.rsqrt(y), jnp.abs(x), -x,
            jnp.sign(x), jnp.floor(x), jnp.ceil(x), jnp.round(x), lax.round(x), x ** y,
            jnp.arctan2(x, y), jnp.remainder(x, y), jax.nn.sigmoid(x), jnp.expm1(x),
            jnp.log1p(y), jnp.cbrt(x), jnp.cos(x), jnp.tan(x), lax.is_finite(x),
            lax.reduce_precision(x, 5, 10), jnp.clip(x, -1.0, 1.0), jnp.where(x > y, x, y),
            lax.clamp(jnp.float32(0), x, jnp.float32(1)))


def integers(a, b, u):
    return (a // b, a % b, a >> 1, a << 2, lax.shift_right_logical(a, b), a & b, a | b, a ^ b,
            ~a, lax.population_count(a), lax.clz(a), a < b, u > 3, u.astype(jnp.float32),
            lax.bitcast_convert_type(a, jnp.float32), (a > 0) & (b > 0), a.astype(jnp.int8))


def special(x):
    return (lax.erf(x), lax.erfc(x), lax.erf_inv(x), lax.lgamma(x), lax.digamma(x),
            lax.nextafter(x, x), lax.zeta(x, x), lax.polygamma(x, x), lax.bessel_i1e(x),
            jnp.sinh(x), jnp.cosh(x), jnp.arcsin(x), jnp.arccos(x), jnp.arctan(x),
            jnp.arcsinh(x), jnp.arccosh(x), jnp.arctanh(x), lax.top_k(x, 2))


TABLE = np.linspace(-1.0, 1.0, 128, dtype=np.float32)   # > 100 elements: MLIR prints it as hex


def constants(x, pixels, keep):
    y = x * TABLE + pixels.astype(jnp.float32) / 255.0
    return (jnp.where(keep, y, jnp.nan), x + jnp.inf, (x > 0).astype(jnp.uint8),
            x[:3] + jnp.array([jnp.nan, 1.5, -jnp.inf], jnp.float32),
            jnp.where(jnp.array([True, False, True]), x[:3], 0.0),
            x[:12].reshape(3, 4) + jnp.arange(12, dtype=jnp.float32).reshape(3, 4),
            x[:2].astype(jnp.bfloat16) * jnp.bfloat16(0.1),
            x[:2].astype(jnp.float16) + jnp.float16(0.3), jnp.int32(7) + pixels[:1])


def shapes(x, i):
    return (x.reshape(6, 2), x.T, x[1:3, ::2], jnp.concatenate([x, x], 0),
            jnp.pad(x, ((1, 2), (0, 1))), lax.pad(x, 0.0, [(1, 1, 1), (0, 0, 0)]),
            jnp.flip(x, 0), jnp.broadcast_to(x[:, :1], (4, 3)), x[None, :, None],
            jnp.arange(5), lax.dynamic_slice(x, (i, 0), (2, 3)),
            lax.dynamic_update_slice(x, jnp.ones((2, 3)), (i, 0)), jnp.tile(x, 2))


def dots(a, b, c, h, w):
    return (a @ b, jnp.einsum("bij,bjk->bik", c, c),
            jnp.dot(a, b, precision=lax.Precision.HIGHEST),
            lax.dot(a, b, precision="F32_F32_F32"),
            lax.dot(h, w, preferred_element_type=jnp.float32), jax.vmap(jnp.dot)(c[0], c[1]),
            jnp.outer(a[0], b[:, 0]))


def reductions(x):
    return (x.sum(1), x.max(0), x.min(), x.prod(), jnp.any(x > 0, axis=0), jnp.all(x > 0),
            jnp.argmax(x, 1), jnp.argmin(x, 0), jax.nn.logsumexp(x, 1),
            (x.astype(jnp.int32)).sum(0))


def windows(x):
    return (jnp.cumsum(x, 0), lax.cummax(x, 1), jnp.cumprod(x, 0), lax.cumlogsumexp(x, 0),
            lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "SAME"),
            jax.grad(lambda y: lax.reduce_window(y, -jnp.inf, lax.max, (2, 2), (2, 2),
                                                 "VALID").sum())(x[:4, :2]))


def loops(x):
    def body(state):
        k, y = state
        return k + 1, y * 0.5 + jnp.sin(y)
    w = lax.while_loop(lambda s: s[0] < 5, body, (0, x))[1]
    f = lax.fori_loop(0, 3, lambda k, y: y + k, x)
    s = lax.scan(lambda c, y: (c + y, c * y), 0.0, x)
    return w, f, s, lax.map(jnp.sin, x.reshape(2, 2))


def branches(p, k, x):
    return (lax.cond(p, lambda y: y * 2.0, lambda y: -y, x),
            lax.switch(k, [lambda y: y * 2.0, lambda y: -y, jnp.sin], x),
            lax.cond(p, lambda y, z: (y + z, y), lambda y, z: (y - z, z), x, x))


def sorting(x, k):
    return (jnp.sort(x, 0), jnp.argsort(x, axis=1), lax.sort((x, x), num_keys=1),
            jnp.sort(k), jnp.searchsorted(x[:, 0], x[:2, 1]))


def indexing(x, i, j, v):
    return (x[i], jnp.take_along_axis(x[:2], i[:, None] % 3, axis=1), x[j, 1:],
            x.at[i[0]].set(v), x.at[i[0]].add(v), x.at[i].max(v[None]), x.at[i].mul(v[None]),
            x.at[i].get(mode="fill", fill_value=0.0))


def calls(x):
    inner = jax.jit(lambda y: (jnp.sin(y) * 2, y + 1))
    return inner(x)[0] + inner(x + 1)[1], lax.optimization_barrier((x, x + 1)), \
        jax.checkpoint(lambda y: jnp.sin(jnp.sin(y)))(x)


def conv(x, w):
    return (lax.conv_general_dilated(x, w, (1, 1), "SAME"),
            lax.conv_general_dilated(x, w, (2, 1), ((1, 0), (0, 2)), lhs_dilation=(1, 2),
                                     rhs_dilation=(2, 1),
                                     dimension_numbers=("NCHW", "OIHW", "NHWC")),
            lax.conv_general_dilated(x, w[:3, :1], (1, 1), "VALID", feature_group_count=3))


def complex_fft(z):
    return jnp.fft.fft(z), jnp.fft.rfft(z.real), z.real, z.imag, lax.complex(z.real, z.imag), \
        jnp.abs(z), z * z


def linalg(a, b):
    return jnp.linalg.cholesky(a), lax.linalg.triangular_solve(a, b, left_side=True, lower=True)


def callbacks(x):
    jax.debug.print("x {}", x)
    return jax.pure_callback(lambda y: y, jax.ShapeDtypeStruct((3,), jnp.float32), x) + 1


def random_bits(key, x):
    return lax.rng_bit_generator(key, (3,))[1], jax.random.normal(jax.random.key(0), (3,)) + x


def composite(x):
    return lax.composite(lambda y, *, alpha: y * alpha, name="my.scale")(x, alpha=2.0)


def layer_norm(x, g, b):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * g + b


def transformer(x, params):
    """Two pre-norm blocks: causal attention (4 heads) and a GELU MLP."""
    for wq, wk, wv, wo, w1, w2, g1, g2 in params:
        h = layer_norm(x, g1, 0.0)
        q, k, v = (jnp.einsum("td,dhe->hte", h, w) for w in (wq, wk, wv))
        s = jnp.einsum("hte,hse->hts", q, k) / jnp.sqrt(jnp.float32(q.shape[-1]))
        mask = jnp.tril(jnp.ones((x.shape[0], x.shape[0]), bool))
        a = jax.nn.softmax(jnp.where(mask, s, -jnp.inf), axis=-1)
        x = x + jnp.einsum("hts,hse,hed->td", a, v, wo)
        x = x + jax.nn.gelu(layer_norm(x, g2, 0.0) @ w1) @ w2
    return x


def block_params(d=32, heads=4, hidden=64):
    e = d // heads
    return (f32(d, heads, e), f32(d, heads, e), f32(d, heads, e), f32(heads, e, d),
            f32(d, hidden), f32(hidden, d), f32(d), f32(d))


CASES = {      # name -> (function, example arguments)
    "elementwise": (elementwise, (f32(4), f32(4))),
    "integers": (integers, (i32(4), i32(4), typed(jnp.uint8, 4))),
    "special": (special, (f32(4),)),
    "constants": (constants, (f32(128), typed(jnp.uint8, 128), typed(jnp.bool_, 128))),
    "shapes": (shapes, (f32(4, 3), i32())),
    "dots": (dots, (f32(4, 8), f32(8, 3), f32(2, 3, 3), typed(jnp.bfloat16, 4, 8),
                    typed(jnp.bfloat16, 8, 3))),
    "reductions": (reductions, (f32(4, 6),)),
    "windows": (windows, (f32(5, 3),)),
    "loops": (loops, (f32(4),)),
    "branches": (branches, (typed(jnp.bool_), i32(), f32(3))),
    "sorting": (sorting, (f32(4, 3), i32(5))),
    "indexing": (indexing, (f32(5, 3), i32(2), i32(2, 2), f32(3))),
    "calls": (calls, (f32(3),)),
    "conv": (conv, (f32(1, 3, 8, 8), f32(4, 3, 3, 3))),
    "complex_fft": (complex_fft, (typed(jnp.complex64, 8),)),
    "linalg": (linalg, (f32(3, 3), f32(3, 2))),
    "callbacks": (callbacks, (f32(3),)),
    "random_bits": (random_bits, (typed(jnp.uint32, 4), f32(3))),
    "composite": (composite, (f32(3),)),
    "transformer": (transformer, (f32(8, 32), (block_params(), block_params()))),
}
WITH_LOCATIONS = ("reductions", "loops", "transformer")      # also printed as NAME.loc.mlir


def sharded_cases():
    """Sharded programs (shardy's sdy ops and attributes), on two host devices."""
    mesh = Mesh(np.array(jax.devices()[:2]), ("x",))
    rows = NamedSharding(mesh, P("x"))
    sharded = jax.jit(lambda x: jax.lax.with_sharding_constraint(jnp.sin(x) * 2, rows),
                      in_shardings=rows, out_shardings=rows)
    summed = jax.jit(jax.shard_map(lambda x: lax.psum(x, "x"), mesh=mesh, in_specs=P("x"),
                                   out_specs=P()))
    return {"sharded": sharded.lower(f32(8, 4)).as_text(),
            "shard_map": summed.lower(f32(8, 4)).as_text()}


def exported_cases():
    """What jax.export writes: its module attributes and, with a symbolic shape, dynamic ops."""
    fixed = export.export(jax.jit(lambda x: jnp.tanh(x) * 2.0))(f32(3))
    poly = export.export(jax.jit(lambda x: jnp.sum(jnp.sin(x), axis=0) + x[0]))(
        jax.ShapeDtypeStruct(export.symbolic_shape("b, 4"), jnp.float32))
    return {"exported": fixed.mlir_module(), "exported_poly": poly.mlir_module()}


# Written here in the pretty form: the forms JAX does not print, each op's as its format says.
SPEC = {
    "spec_ops": """
module @spec_ops {
  func.func public @main(%x: tensor<4xf32>, %m: tensor<2x2xf32>, %t: tuple<tensor<f32>, tensor<i32>>, %s: tensor<1xi64>, %p: tensor<4xi1>, %img: tensor<1x2x4xf32>, %ker: tensor<2x2x3xf32>) -> tensor<4xf32> {
    %a = stablehlo.after_all : !stablehlo.token
    %tok = stablehlo.create_token : !stablehlo.token
    %a2 = stablehlo.after_all %a, %tok : !stablehlo.token
    %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<i32>
    %tu = stablehlo.tuple %e, %e : tuple<tensor<i32>, tensor<i32>>
    %ch = stablehlo.cholesky %m, lower = true : tensor<2x2xf32>
    %ch2 = stablehlo.cholesky %m : tensor<2x2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %o = stablehlo.constant dense<1.0> : tensor<f32>
    %r = stablehlo.rng %z, %o, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
    %state, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<1xi64>) -> (tensor<1xi64>, tensor<3xui32>)
    %ein = stablehlo.einsum %m, %m, config = "ab,bc->ac" : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %uein = stablehlo.unary_einsum %m, config = "ab->ba" : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %b = stablehlo.broadcast %x, sizes = [2] : (tensor<4xf32>) -> tensor<2x4xf32>
    %rep = stablehlo.replica_id : tensor<ui32>
    %part = stablehlo.partition_id : tensor<ui32>
    %d0 = stablehlo.dot %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %d1 = stablehlo.dot %m, %m, precision = [DEFAULT, HIGHEST] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %d2 = stablehlo.dot_general %m, %m, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %d3 = stablehlo.dot_general %x, %x, contracting_dims = [] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    %c0 = stablehlo.compare EQ, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %sel = stablehlo.select %p, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %cl = stablehlo.clamp %z, %x, %o : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %cx = stablehlo.complex %x, %x : tensor<4xcomplex<f32>>
    %cx2 = stablehlo.complex %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %fin = stablehlo.is_finite %x : (tensor<4xf32>) -> tensor<4xi1>
    %acc = stablehlo.cosine %x {result_accuracy = #stablehlo.result_accuracy<ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
    %rp = stablehlo.reduce_precision %x, format = e8m7 : tensor<4xf32>
    %rv = stablehlo.reverse %m, dims = [0, 1] : tensor<2x2xf32>
    %sl = stablehlo.slice %x [1:4:2] : (tensor<4xf32>) -> tensor<2xf32>
    %add = stablehlo.add %x, %x {mhlo.sharding = "{replicated}", mhlo.frontend_attributes = {who = "me"}} : tensor<4xf32>
    stablehlo.optimization_barrier ()
    %ob = stablehlo.optimization_barrier %x : tensor<4xf32>
    %cc = stablehlo.custom_call @my_target(%x, %m) {api_version = 4 : i32, backend_config = {level = 3 : i32}, has_side_effect = true, mhlo.frontend_attributes = {a = "b"}} : (tensor<4xf32>, tensor<2x2xf32>) -> tensor<4xf32>
    stablehlo.custom_call @"odd.name"() : () -> ()
    %bc = chlo.broadcast_add %x, %b {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %bcmp = chlo.broadcast_compare %x, %z {comparison_direction = #chlo<comparison_direction GT>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
    %bsel = chlo.broadcast_select %bcmp, %x, %z : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %cconst = chlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %sq = chlo.square %x : tensor<4xf32> -> tensor<4xf32>
    %cv = stablehlo.convolution(%img, %ker) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[1, 1]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4xf32>, tensor<2x2x3xf32>) -> tensor<1x2x4xf32>
    %f = stablehlo.fft %cx, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %sum = stablehlo.add %sel, %cl : tensor<4xf32>
    stablehlo.return %sum : tensor<4xf32>
  }
}
""",
    "spec_chlo": """
module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%x: tensor<4xf32>, %y: tensor<2x4xf32>, %i: tensor<4xi32>, %c: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
    %0 = stablehlo.logistic %x : tensor<4xf32>
    %1 = chlo.conj %c : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    %2 = chlo.tan %x : tensor<4xf32> -> tensor<4xf32>
    %3 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>
    %4 = chlo.is_neg_inf %x : tensor<4xf32> -> tensor<4xi1>
    %5 = chlo.is_pos_inf %x : tensor<4xf32> -> tensor<4xi1>
    %6 = chlo._asin_acos_kernel %c : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    %7 = chlo.mulhi %i, %i : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
    %8 = chlo.broadcast_atan2 %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %9 = chlo.broadcast_divide %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %10 = chlo.broadcast_maximum %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %11 = chlo.broadcast_minimum %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %12 = chlo.broadcast_multiply %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %13 = chlo.broadcast_next_after %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %14 = chlo.broadcast_polygamma %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %15 = chlo.broadcast_power %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %16 = chlo.broadcast_remainder %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %17 = chlo.broadcast_shift_left %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %18 = chlo.broadcast_shift_right_arithmetic %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %19 = chlo.broadcast_shift_right_logical %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %20 = chlo.broadcast_subtract %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %21 = chlo.broadcast_zeta %x, %y : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %22 = chlo.broadcast_and %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %23 = chlo.broadcast_or %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %24 = chlo.broadcast_xor %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %25 = chlo.broadcast_complex %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %26 = sdy.reshard %x <@mesh, [{"x"}]> : tensor<4xf32>
    return %26 : tensor<4xf32>
  }
}
""",
    "spec_dynamic": """
module {
  func.func @dynamic(%x: tensor<?xf32>, %shape: tensor<1xi64>, %n: tensor<i32>) -> tensor<?xf32> {
    %iota = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
    %size = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
    %set = stablehlo.set_dimension_size %x, %n, dim = 0 : (tensor<?xf32>, tensor<i32>) -> tensor<?xf32>
    %b = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
    %r = stablehlo.dynamic_reshape %x, %shape : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
    %s = stablehlo.real_dynamic_slice %x, %shape, %shape, %shape : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %p = stablehlo.dynamic_pad %x, %z, %shape, %shape, %shape : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
    %four = stablehlo.constant dense<1.0> : tensor<4xf32>
    %yes = stablehlo.constant dense<true> : tensor<i1>
    %sel = stablehlo.select %yes, %x, %four : (tensor<i1>, tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    %sum = stablehlo.add %iota, %b : tensor<?xf32>
    %mixed = stablehlo.add %sum, %four : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
    return %mixed : tensor<?xf32>
  }
}
""",
    "spec_regions": """
module @spec_regions attributes {mhlo.num_partitions = 1 : i32} {
  func.func private @decl(tensor<f32> {mhlo.sharding = "{replicated}"}) -> (tensor<f32> {jax.result_info = "r"})
  func.func private @helper(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {no_inline, mhlo.kind = "helper"} {
    return %b, %a : tensor<f32>, tensor<f32>
  }
  func.func @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<i1>) -> (tensor<4xf32>, tensor<f32>) {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %o = stablehlo.constant dense<1> : tensor<i32>
    %r:2 = stablehlo.reduce(%x init: %z), (%i init: %o) across dimensions = [0] {mhlo.note = "pairs"} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {
      %s = stablehlo.add %a, %b : tensor<f32>
      %m = stablehlo.multiply %c, %d : tensor<i32>
      stablehlo.return %s, %m : tensor<f32>, tensor<i32>
    }
    %mx = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %w:2 = stablehlo.while(%k = %o, %v = %x) : tensor<i32>, tensor<4xf32> attributes {mhlo.loop = "outer"}
    cond {
      %lim = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %k, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %k1 = stablehlo.add %k, %o : tensor<i32>
      %v1 = stablehlo.sine %v : tensor<4xf32>
      stablehlo.return %k1, %v1 : tensor<i32>, tensor<4xf32>
    }
    stablehlo.while() cond {
      %t = stablehlo.constant dense<false> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      stablehlo.return
    }
    %if = "stablehlo.if"(%p) ({
      stablehlo.return %z : tensor<f32>
    }, {
      %h:2 = func.call @helper(%z, %mx) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      stablehlo.return %h#1 : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    %d = call @decl(%if) : (tensor<f32>) -> tensor<f32>
    %sum = stablehlo.add %d, %r#0 : tensor<f32>
    func.return %w#1, %sum : tensor<4xf32>, tensor<f32>
  }
}
""",
}

HANDWRITTEN = """\
// no module around the functions: MLIR puts them in one
func.func @main(%x: tensor<4xf32>,   %y: tensor<4xf32>) -> tensor<4xf32>
    attributes {z.last = 1, a.first = 2, m.mid = [1, 2], n.nested = {b = 1, a = 0x10}} {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]>
      : tensor<4xf32>
  %0 = stablehlo.add %x,%y : tensor<4xf32>   // a comment
  %1 = stablehlo.multiply %0, %c {z.b = 2, z.a = 1.5} : tensor<4xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>
  %s = stablehlo.slice %2 [0:4:1] : (tensor<4xf32>) -> tensor<4xf32>
  %3 = call @twice(%s) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
func.func private @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.add %a, %a : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""


def jax_texts():
    texts = {}
    for name, (fn, args) in CASES.items():
        lowered = jax.jit(fn).lower(*args)
        texts[name] = lowered.as_text()
        if name in WITH_LOCATIONS:
            texts[f"{name}.loc"] = lowered.as_text(debug_info=True)
    return {**texts, **sharded_cases(), **exported_cases()}


def samples():
    """{file name: text}: each pretty sample and MLIR's generic print of it."""
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir
    ctx = jax_mlir.make_ir_context()

    def generic(text):
        module = ir.Module.parse(text, ctx)
        return module.operation.get_asm(print_generic_op_form=True,
                                        enable_debug_info="loc(" in text)

    pretty = jax_texts()
    for name, text in SPEC.items():
        pretty[name] = ir.Module.parse(text, ctx).operation.get_asm()
    pretty["handwritten"] = HANDWRITTEN
    files = {}
    for name, text in pretty.items():
        files[f"{name}.mlir"] = text
        files[f"{name}.generic.mlir"] = generic(text)
    return files


# an op line that is not in the generic form: its name not quoted
UNQUOTED = re.compile(r"^ *(?:%[^=\n]* = )?[A-Za-z_]", re.M)


def check(paths):
    """MLIR reads accy's translation of each pretty file and prints what it prints for the file;
    the translation has no op in the pretty form."""
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir
    sys.path.insert(0, str(ROOT))
    from accy.stablehlo.pretty import to_generic
    ctx = jax_mlir.make_ir_context()
    bad = 0
    for path in paths:
        text = path.read_text()
        ours = to_generic(text)
        expected = ir.Module.parse(text, ctx).operation.get_asm(print_generic_op_form=True)
        got = ir.Module.parse(ours, ctx).operation.get_asm(print_generic_op_form=True)
        same = got == expected and not UNQUOTED.search(ours)
        bad += not same
        print(f"{path.name:32} {'same' if same else 'DIFFERENT'}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="check accy's reading against MLIR")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    files = samples()
    for name, text in files.items():
        (OUT / name).write_text(text)
    print(f"wrote {len(files)} files to tests/{OUT.name}/ (jax {jax.__version__})")
    if args.check:
        pretty = sorted(p for p in OUT.glob("*.mlir") if not p.name.endswith(".generic.mlir"))
        sys.exit(1 if check(pretty) else 0)


if __name__ == "__main__":
    main()
