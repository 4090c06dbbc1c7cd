"""The reference graphs the preparation plans are measured on (`bench/plans.py`) and golden
dumps are kept for: an MLP layer, softmax, layer_norm, rms_norm, an attention block written
from primitive ops, a transformer (2 layers, d=256, seq=128), cumsum, and a while loop of a
matmul and tanh. Each `GRAPHS` entry traces to a module for its (shape, dtype) arguments;
`small=True` gives sizes the reference interpreter runs in a blink.

    module = GRAPHS["softmax"](small=True)
"""
import math

import accy.ops as ops
from accy.frontend.trace import trace


def _module(fn, *signatures):
    return trace(fn, list(signatures))[0]


def mlp(small=False, dtype="f32"):
    """gelu(x @ w + b): one dot_general with its bias and activation epilogue."""
    m, k, n = (8, 16, 32) if small else (512, 1024, 4096)
    return _module(lambda x, w, b: ops.gelu(x @ w + b),
                   ((m, k), dtype), ((k, n), dtype), ((n,), dtype))


def softmax(small=False, dtype="f32"):
    rows, cols = (6, 40) if small else (4096, 1024)
    return _module(lambda x: ops.softmax(x), ((rows, cols), dtype))


def layer_norm(small=False, dtype="f32"):
    rows, cols = (6, 40) if small else (4096, 1024)
    return _module(lambda x, w, b: ops.layer_norm(x, w, b),
                   ((rows, cols), dtype), ((cols,), dtype), ((cols,), dtype))


def rms_norm(small=False, dtype="f32"):
    rows, cols = (6, 40) if small else (4096, 1024)
    return _module(lambda x, w: ops.rms_norm(x, w), ((rows, cols), dtype), ((cols,), dtype))


def attention(small=False, dtype="f32"):
    """softmax(q·kᵀ/√d with a causal mask)·v written from matmul, where and softmax: the
    decomposed pattern the planner recognizes as one flash_attention item."""
    b, h, s, d = (1, 2, 8, 4) if small else (4, 16, 1024, 64)

    def fn(q, k, v):
        scores = (q @ ops.transpose(k, (0, 1, 3, 2))) * (1 / math.sqrt(d))
        causal = ops.arange(s)[None, :] <= ops.arange(s)[:, None]
        scores = ops.where(causal, scores, -math.inf)
        return ops.softmax(scores) @ v
    sig = ((b, h, s, d), dtype)
    return _module(fn, sig, sig, sig)


def transformer(small=False, dtype="f32", layers=2):
    """`layers` pre-norm transformer blocks (layer norm, causal attention, a gelu MLP, two
    residual adds) over (1, seq, width) activations."""
    seq, width, heads = (8, 16, 2) if small else (128, 256, 4)
    head = width // heads

    def split(t):
        return ops.transpose(t.reshape(1, seq, heads, head), (0, 2, 1, 3))

    def fn(x, *weights):
        for i in range(layers):
            ln_w, ln_b, wq, wk, wv, wo, w1, w2 = weights[8 * i:8 * i + 8]
            h = ops.layer_norm(x, ln_w, ln_b)
            a = ops.attention(split(h @ wq), split(h @ wk), split(h @ wv), causal=True)
            x = x + ops.transpose(a, (0, 2, 1, 3)).reshape(1, seq, width) @ wo
            x = x + ops.gelu(ops.layer_norm(x, ln_w, ln_b) @ w1) @ w2
        return x
    per_layer = [((width,), dtype), ((width,), dtype)] + [((width, width), dtype)] * 4 + [
        ((width, 4 * width), dtype), ((4 * width, width), dtype)]
    return _module(fn, ((1, seq, width), dtype), *per_layer * layers)


def cumsum(small=False, dtype="f32"):
    rows, cols = (5, 33) if small else (1024, 4096)
    return _module(lambda x: ops.cumsum(x, axis=1), ((rows, cols), dtype))


def while_matmul_tanh(small=False, dtype="f32"):
    """x = tanh(x @ w) while the step counter is below n: a data-dependent trip count."""
    n = 16 if small else 256

    def fn(x, w, steps):
        return ops.while_loop(lambda c: c[0] < steps,
                              lambda c: (c[0] + 1, ops.tanh(c[1] @ w)), (0, x))[1]
    return _module(fn, ((n, n), dtype), ((n, n), dtype), ((), "i32"))


GRAPHS = {
    "mlp": mlp, "softmax": softmax, "layer_norm": layer_norm, "rms_norm": rms_norm,
    "attention": attention, "transformer": transformer, "cumsum": cumsum,
    "while_matmul_tanh": while_matmul_tanh,
}
