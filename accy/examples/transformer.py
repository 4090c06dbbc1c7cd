"""The bundled model: one pre-norm transformer block (layer norm, causal attention, a gelu MLP,
two residual adds), traced by `accy.jit`, and the same block written directly in numpy (float64)
to check the reference result against."""
import math

import numpy as np

import accy
import accy.ops as ops

BATCH, SEQ, HEADS, HEAD_DIM = 2, 16, 4, 8
WIDTH = HEADS * HEAD_DIM


@accy.jit
def block(x, ln_w, ln_b, wqkv, wo, w1, w2):
    h = ops.layer_norm(x, ln_w, ln_b)
    q, k, v = (ops.transpose((h @ w).reshape(BATCH, SEQ, HEADS, HEAD_DIM), (0, 2, 1, 3))
               for w in (wqkv[0], wqkv[1], wqkv[2]))
    a = ops.attention(q, k, v, causal=True)
    x = x + ops.transpose(a, (0, 2, 1, 3)).reshape(BATCH, SEQ, WIDTH) @ wo
    return x + ops.gelu(ops.layer_norm(x, ln_w, ln_b) @ w1) @ w2


def example_inputs(seed=0):
    rng = np.random.default_rng(seed)

    def draw(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    return (draw(BATCH, SEQ, WIDTH), 1 + draw(WIDTH, scale=0.1), draw(WIDTH, scale=0.1),
            draw(3, WIDTH, WIDTH, scale=WIDTH ** -0.5), draw(WIDTH, WIDTH, scale=WIDTH ** -0.5),
            draw(WIDTH, 4 * WIDTH, scale=WIDTH ** -0.5),
            draw(4 * WIDTH, WIDTH, scale=(4 * WIDTH) ** -0.5))


def block_numpy(x, ln_w, ln_b, wqkv, wo, w1, w2):
    """The block in float64 numpy, written without accy."""
    x, ln_w, ln_b, wqkv, wo, w1, w2 = (np.asarray(a, np.float64)
                                       for a in (x, ln_w, ln_b, wqkv, wo, w1, w2))

    def norm(t):
        mu = t.mean(-1, keepdims=True)
        return (t - mu) / np.sqrt(((t - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * ln_w + ln_b

    def heads(t):
        return t.reshape(BATCH, SEQ, HEADS, HEAD_DIM).transpose(0, 2, 1, 3)
    h = norm(x)
    q, k, v = (heads(h @ w) for w in wqkv)
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(HEAD_DIM)
    scores = np.where(np.tril(np.ones((SEQ, SEQ), bool)), scores, -np.inf)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    a = (p / p.sum(-1, keepdims=True)) @ v
    x = x + a.transpose(0, 2, 1, 3).reshape(BATCH, SEQ, WIDTH) @ wo
    u = norm(x) @ w1
    erf = np.vectorize(math.erf)
    return x + (0.5 * u * (1 + erf(u / math.sqrt(2)))) @ w2
