"""Frontend benchmark: how fast accy traces, verifies, prints and runs (reference) tensor programs,
next to JAX (CPU) tracing and lowering the same programs and numpy computing them.

Workloads (each written once with `accy.ops`, once with `jax.numpy`/`jax.nn`, once in numpy):
  add_scale    ((x + y) * 0.5 + z) * 2.0 - y on 64x256 f32
  softmax      softmax over the rows of a 64x256 f32
  layer_norm   layer norm over the rows of a 64x256 f32, with weight and bias
  mlp_gelu     gelu(x @ w1 + b) @ w2, x 64x256, w1 256x512, w2 512x256 (exact, erf gelu)
  transformer  the bundled block (accy/examples/transformer.py; JAX: jax.nn.dot_product_attention)
Each workload is checked once, before timing, to give the same numbers in accy (reference
interpreter), JAX (jitted, CPU) and numpy (|difference| <= 1e-5 + 1e-5 * |value|).

Measures, in milliseconds, best of --repeats runs (garbage collector off while timed):
  trace       accy `jit(f).lower(*args)`: a fresh trace into a new module, then verify.
              JAX `jax.jit(f).lower(*args)`: trace to a jaxpr and lower to StableHLO (no XLA
              compile). JAX caches traces by the Python function, not by the jit object (a
              fresh `jax.jit(f)` of the same `f` hits that cache), so every run starts after an
              untimed `jax.clear_caches()` ("cold"). Informational rows: a fresh `jax.jit` of a
              new wrapper function with JAX's caches warm ("new fn": the library's own jitted
              helpers, e.g. `jax.nn.gelu`, stay cached) and `jax.make_jaxpr(f)(*args)`, cold
              (trace only).
  print       accy `module.print()` against JAX `lowered.as_text()` (StableHLO text).
  call        accy's cached call: a second call of the jitted function (cache hit, then the
              numpy reference interpreter) against numpy computing the same thing directly. The
              reference is an oracle, not a fast path: the number is informational (note column).
Ratio columns say how many times slower the peer is than accy (> 1: accy is faster). Target:
accy's trace is faster than JAX's cold `jax.jit(...).lower` for every workload.
numpy's BLAS runs on one thread (OPENBLAS_NUM_THREADS / MKL_NUM_THREADS default to 1 here): at
these shapes threads buy nothing, and on small machines a threaded OpenBLAS made a 64x256 @
256x512 matmul take tens of milliseconds, for numpy and for accy's reference alike.

    python bench/frontend.py                 # every workload, JAX when installed
    python bench/frontend.py --repeats 20 --workload softmax
    python bench/frontend.py --profile       # also cProfile accy's lower of the transformer
"""
import argparse
import math
import os
import sys

os.environ["JAX_PLATFORMS"] = "cpu"     # before any import of jax: trace and lower for the CPU
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):    # before numpy: see the docstring
    os.environ.setdefault(_var, "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np

import accy
import accy.ops as ops
from accy._core.context import count_ops
from accy.examples import transformer as tx
from ir_core import best_of, print_table

TRACE_TARGET = 1.0      # JAX cold lower / accy trace must exceed this


def _erf():
    try:
        from scipy.special import erf
        return erf
    except ImportError:     # numpy has no erf; scipy comes with jax
        return np.vectorize(math.erf, otypes=[np.float32])


np_erf = _erf()


def rng_inputs(*shapes, seed=0):
    """f32 normal draws; a tuple (shape, scale) is scaled (weights: fan-in ** -0.5)."""
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        shape, scale = s if isinstance(s[0], tuple) else (s, 1.0)
        out.append((rng.standard_normal(shape) * scale).astype(np.float32))
    return tuple(out)


# ---- accy ----------------------------------------------------------------------------------

def accy_add_scale(x, y, z):
    return ((x + y) * 0.5 + z) * 2.0 - y


def accy_softmax(x):
    return ops.softmax(x, axis=-1)


def accy_layer_norm(x, w, b):
    return ops.layer_norm(x, w, b)


def accy_mlp_gelu(x, w1, b, w2):
    return ops.gelu(x @ w1 + b) @ w2


# ---- numpy (f32) ---------------------------------------------------------------------------

def np_add_scale(x, y, z):
    return ((x + y) * np.float32(0.5) + z) * np.float32(2.0) - y


def np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_layer_norm(x, w, b, eps=1e-5):
    c = x - x.mean(-1, keepdims=True)
    return c / np.sqrt((c * c).mean(-1, keepdims=True) + np.float32(eps)) * w + b


def np_gelu(u):
    return np.float32(0.5) * u * (1 + np_erf(u * np.float32(1 / math.sqrt(2))))


def np_mlp_gelu(x, w1, b, w2):
    return np_gelu(x @ w1 + b) @ w2


def np_transformer(x, ln_w, ln_b, wqkv, wo, w1, w2):
    B, S, H, D, W = tx.BATCH, tx.SEQ, tx.HEADS, tx.HEAD_DIM, tx.WIDTH
    h = np_layer_norm(x, ln_w, ln_b)
    q, k, v = ((h @ w).reshape(B, S, H, D).transpose(0, 2, 1, 3) for w in wqkv)
    s = q @ k.transpose(0, 1, 3, 2) * np.float32(1 / math.sqrt(D))
    s = np.where(np.tril(np.ones((S, S), bool)), s, np.float32(-np.inf))
    a = np_softmax(s) @ v
    x = x + a.transpose(0, 2, 1, 3).reshape(B, S, W) @ wo
    return x + np_gelu(np_layer_norm(x, ln_w, ln_b) @ w1) @ w2


# ---- JAX (imported lazily) -----------------------------------------------------------------

def jax_functions():
    """{workload: the JAX function}; raises ImportError when JAX is missing."""
    import jax
    import jax.numpy as jnp

    def add_scale(x, y, z):
        return ((x + y) * 0.5 + z) * 2.0 - y

    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

    def layer_norm(x, w, b, eps=1e-5):
        c = x - jnp.mean(x, -1, keepdims=True)
        return c * jax.lax.rsqrt(jnp.mean(c * c, -1, keepdims=True) + eps) * w + b

    def mlp_gelu(x, w1, b, w2):
        return jax.nn.gelu(x @ w1 + b, approximate=False) @ w2

    def transformer(x, ln_w, ln_b, wqkv, wo, w1, w2):
        B, S, H, D, W = tx.BATCH, tx.SEQ, tx.HEADS, tx.HEAD_DIM, tx.WIDTH
        h = layer_norm(x, ln_w, ln_b)
        q, k, v = ((h @ w).reshape(B, S, H, D) for w in (wqkv[0], wqkv[1], wqkv[2]))
        a = jax.nn.dot_product_attention(q, k, v, is_causal=True)   # (batch, seq, heads, dim)
        x = x + a.reshape(B, S, W) @ wo
        return x + jax.nn.gelu(layer_norm(x, ln_w, ln_b) @ w1, approximate=False) @ w2

    return {"add_scale": add_scale, "softmax": softmax, "layer_norm": layer_norm,
            "mlp_gelu": mlp_gelu, "transformer": transformer}


class JaxPeer:
    name = "JAX"

    def __init__(self, repeats):
        import jax
        self.jax, self.repeats = jax, repeats
        self.functions = jax_functions()
        self.version = jax.__version__

    def run(self, name, args):
        return np.asarray(self.jax.jit(self.functions[name])(*args))

    def lower_cold(self, name, args):
        f = self.functions[name]
        return best_of(lambda _: self.jax.jit(f).lower(*args), self.repeats,
                       setup=self.jax.clear_caches)

    def lower_new_fn(self, name, args):
        f = self.functions[name]
        return best_of(lambda g: self.jax.jit(g).lower(*args), self.repeats,
                       setup=lambda: lambda *a: f(*a))

    def jaxpr_cold(self, name, args):
        f = self.functions[name]
        return best_of(lambda _: self.jax.make_jaxpr(f)(*args), self.repeats,
                       setup=self.jax.clear_caches)


WORKLOADS = {   # name: (accy function, numpy function, inputs)
    "add_scale": (accy_add_scale, np_add_scale, lambda: rng_inputs((64, 256), (64, 256),
                                                                   (64, 256))),
    "softmax": (accy_softmax, np_softmax, lambda: rng_inputs((64, 256))),
    "layer_norm": (accy_layer_norm, np_layer_norm,
                   lambda: rng_inputs((64, 256), ((256,), 0.1), ((256,), 0.1))),
    "mlp_gelu": (accy_mlp_gelu, np_mlp_gelu,
                 lambda: rng_inputs((64, 256), ((256, 512), 256 ** -0.5), ((512,), 0.1),
                                    ((512, 256), 512 ** -0.5))),
    "transformer": (tx.block.__wrapped__, np_transformer, tx.example_inputs),
}


def check(name, results, tol=1e-5):
    """Every result agrees with accy's to |difference| <= tol + tol * |value|."""
    ref = results["accy"]
    notes = []
    for peer, r in results.items():
        if peer == "accy":
            continue
        err = np.abs(np.asarray(r, np.float64) - ref)
        if not np.all(err <= tol + tol * np.abs(ref)):
            raise SystemExit(f"{name}: accy and {peer} disagree (max |difference| {err.max():.3g})")
        notes.append(f"{peer} {err.max():.1e}")
    print(f"# {name}: same numbers, max |accy - peer|: " + ", ".join(notes))


def ms(t):
    return None if t is None else t * 1e3


def fmt(x):
    if x is None:
        return "-"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def measure(name, jax_peer, repeats):
    """Rows of the table for one workload."""
    accy_fn, np_fn, inputs = WORKLOADS[name]
    args = inputs()
    jitted = accy.jit(accy_fn)
    first = np.asarray(jitted(*args))     # traces once (a miss): the timed calls below are hits
    results = {"accy": first, "numpy": np_fn(*args)}
    if jax_peer:
        results["JAX"] = jax_peer.run(name, args)
    check(name, results)

    t_trace, module = best_of(lambda: jitted.lower(*args), repeats)
    t_print = best_of(module.print, repeats)[0]
    t_call = best_of(lambda: jitted(*args), repeats)[0]
    assert jitted.cache_info().misses == 1
    t_numpy = best_of(lambda: np_fn(*args), repeats)[0]
    label = f"{name} ({count_ops(module) - 3} ops)"     # less module, func and return

    def row(measure, accy_t, peer, peer_t, target=None, note=""):
        a, p = ms(accy_t), ms(peer_t)
        ratio = "-" if p is None else f"{p / a:.1f}x" if p / a >= 0.95 else f"{p / a:.2f}x"
        if target is None:
            goal = "-"
        else:
            goal = f"> {target:g}x {'ok' if p is not None and p / a > target else 'MISSED'}"
        return [label, measure, fmt(a), peer, fmt(p), ratio, goal, note]

    rows = []
    if jax_peer:
        t_lower, lowered = jax_peer.lower_cold(name, args)
        eqns = len(jax_peer.jax.make_jaxpr(jax_peer.functions[name])(*args).jaxpr.eqns)
        rows += [
            row("trace", t_trace, "jax.jit.lower, cold", t_lower, TRACE_TARGET,
                f"{eqns} jaxpr eqns (top level)"),
            row("trace", t_trace, "jax.jit.lower, new fn", jax_peer.lower_new_fn(name, args)[0]),
            row("trace", t_trace, "make_jaxpr, cold", jax_peer.jaxpr_cold(name, args)[0]),
            row("print", t_print, "lowered.as_text", best_of(lowered.as_text, repeats)[0]),
        ]
    else:
        rows += [row("trace", t_trace, "-", None), row("print", t_print, "-", None)]
    rows.append(row("call", t_call, "numpy", t_numpy,
                    note=f"accy reference = {t_call / t_numpy:.0f}x numpy"))
    return rows


def profile_transformer(top=10):
    """cProfile of accy's lower of the transformer block: the top entries inside accy, by
    cumulative time."""
    import cProfile
    import pstats
    args = tx.example_inputs()
    tx.block.lower(*args)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(50):
        tx.block.lower(*args)
    prof.disable()
    module = tx.block.lower(*args)
    t_lower = best_of(lambda: tx.block.lower(*args), 20)[0]
    t_verify = best_of(module.verify, 20)[0]
    stats = pstats.Stats(prof)
    accy_dir = os.path.dirname(os.path.abspath(accy.__file__))
    entries = [(key, v) for key, v in stats.stats.items()
               if os.path.abspath(key[0]).startswith(accy_dir)]
    entries.sort(key=lambda e: -e[1][3])
    total = stats.total_tt
    rows = []
    for (path, line, func), (cc, nc, tt, ct, _) in entries[:top]:
        where = f"{os.path.relpath(path, os.path.dirname(accy_dir))}:{line}({func})"
        rows.append([where, nc // 50, f"{tt / 50 * 1e3:.3f}", f"{ct / 50 * 1e3:.3f}",
                     f"{ct / total:.0%}"])
    print_table(f"cProfile of transformer lower, per lower (total {total / 50 * 1e3:.2f} ms "
                "under the profiler)", ["function (accy)", "calls", "own ms", "cumulative ms",
                                        "share"], rows)
    print(f"# module.verify (Cython: its own time is invisible to cProfile) takes "
          f"{t_verify * 1e3:.3f} of {t_lower * 1e3:.3f} ms per lower without the profiler")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", "--repeat", type=int, default=10)
    ap.add_argument("--workload", action="append", choices=list(WORKLOADS),
                    help="workload(s) to run (default: all)")
    ap.add_argument("--no-peers", action="store_true", help="accy and numpy only")
    ap.add_argument("--profile", action="store_true",
                    help="also profile accy's lower of the transformer block")
    args = ap.parse_args()
    jax_peer = None
    if not args.no_peers:
        try:
            jax_peer = JaxPeer(args.repeats)
        except ImportError as e:
            print(f"# JAX not measured: {e}")
    rows = []
    for name in args.workload or WORKLOADS:
        rows += measure(name, jax_peer, args.repeats)
    head = ["workload", "measure (ms)", "accy", "peer", "peer (ms)", "peer/accy", "target",
            "note"]
    peer = f"JAX {jax_peer.version} (CPU) and numpy" if jax_peer else "numpy"
    print_table(f"accy against {peer}, best of {args.repeats}", head, rows)
    if args.profile:
        profile_transformer()


if __name__ == "__main__":
    main()
