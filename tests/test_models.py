"""Small models traced with accy.jit: printed, parsed back, verified and run through
accy.reference against numpy written independently (float64)."""
import math

import numpy as np
import pytest

import accy
import accy.ops as ops
from accy.ir import parse

from tensor_helpers import softmax64

RNG = np.random.default_rng()



def randn(*shape, scale=1.0):
    """Normal values, none exactly zero, as f32."""
    x = RNG.standard_normal(shape) * scale
    return np.where(x == 0, 0.5, x).astype(np.float32)


def erf64(x):
    return np.vectorize(math.erf)(x)


def layer_norm64(x, g, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) * g + b


# ---- models (accy) and their numpy twins --------------------------------------------------------

def mlp(x, w1, b1, w2, b2):
    return ops.gelu(x @ w1 + b1) @ w2 + b2


def mlp64(x, w1, b1, w2, b2):
    h = x @ w1 + b1
    return (0.5 * h * (1 + erf64(h / math.sqrt(2)))) @ w2 + b2


def classifier(x, w, b):
    logits = ops.matmul(x, w) + b
    return ops.softmax(logits), logits.argmax(axis=-1)


def classifier64(x, w, b):
    logits = x @ w + b
    return softmax64(logits), logits.argmax(-1)


def residual_norm(x, w1, b1, w2, b2, g, beta):
    return ops.layer_norm(x + mlp(x, w1, b1, w2, b2), g, beta)


def residual_norm64(x, w1, b1, w2, b2, g, beta):
    return layer_norm64(x + mlp64(x, w1, b1, w2, b2), g, beta)


HEADS = 2


def attention_block(x, wq, wk, wv, wo):
    b, s, d = x.shape

    def heads(t):               # (b, s, d) -> (b, heads, s, d / heads)
        return t.reshape(b, s, HEADS, d // HEADS).transpose(0, 2, 1, 3)
    y = ops.attention(heads(x @ wq), heads(x @ wk), heads(x @ wv), causal=True)
    return y.transpose(0, 2, 1, 3).reshape(b, s, d) @ wo


def attention_block64(x, wq, wk, wv, wo):
    b, s, d = x.shape
    dh = d // HEADS
    out = np.zeros((b, s, d))
    for n in range(b):
        for h in range(HEADS):
            cols = slice(h * dh, (h + 1) * dh)
            q, k, v = (x[n] @ w[:, cols] for w in (wq, wk, wv))
            scores = q @ k.T / math.sqrt(dh)
            scores[np.triu_indices(s, 1)] = -np.inf         # key j > query i
            out[n, :, cols] = softmax64(scores) @ v
    return out @ wo


def running_mean(x):
    return ops.cumsum(x, axis=1) / ops.arange(1, x.shape[1] + 1)


def running_mean64(x):
    out = np.empty_like(x)
    for j in range(x.shape[1]):
        out[:, j] = x[:, :j + 1].sum(1) / (j + 1)
    return out


def newton_sqrt(a):
    """sqrt by Newton's iteration until |y² - a| < 1e-4 everywhere (at most 50 steps)."""
    def cond(state):
        i, y = state
        return (i < 50) & (abs(y * y - a).max() > 1e-4)

    def body(state):
        i, y = state
        return i + 1, 0.5 * (y + a / y)
    steps, y = ops.while_loop(cond, body, (0, ops.ones_like(a)))
    return y, steps


def newton_sqrt64(a):
    return np.sqrt(a)


def rnn(xs, wx, wh, h0):
    """h_t = tanh(x_t·Wx + h_{t-1}·Wh) over the time axis of xs (t, batch, features)."""
    def step(t, h):
        return ops.tanh(ops.take(xs, t, axis=0) @ wx + h @ wh)
    return ops.fori_loop(0, xs.shape[0], step, h0)


def rnn64(xs, wx, wh, h0):
    h = h0
    for x in xs:
        h = np.tanh(x @ wx + h @ wh)
    return h


def _mlp_args():
    return randn(8, 16), randn(16, 32, scale=0.25), randn(32), randn(32, 4, scale=0.2), randn(4)


MODELS = [
    ("mlp_gelu", mlp, mlp64, _mlp_args),
    ("softmax_classifier", classifier, classifier64,
     lambda: (randn(6, 10), randn(10, 5, scale=0.5), randn(5))),
    ("residual_layer_norm", residual_norm, residual_norm64,
     lambda: (randn(8, 16), randn(16, 32, scale=0.25), randn(32), randn(32, 16, scale=0.2),
              randn(16), randn(16), randn(16))),
    ("attention_block", attention_block, attention_block64,
     lambda: (randn(2, 5, 8), *(randn(8, 8, scale=0.4) for _ in range(4)))),
    ("running_mean_cumsum", running_mean, running_mean64, lambda: (randn(3, 7),)),
    ("newton_while_loop", newton_sqrt, newton_sqrt64,
     lambda: (RNG.uniform(0.5, 20.0, (3, 4)).astype(np.float32),)),
    ("rnn_fori_loop", rnn, rnn64,
     lambda: (randn(6, 2, 3), randn(3, 4, scale=0.5), randn(4, 4, scale=0.5), randn(2, 4))),
]


@pytest.mark.parametrize("name, model, model64, make", MODELS, ids=[m[0] for m in MODELS])
def test_model(name, model, model64, make):
    args = make()
    jitted = accy.jit(model)
    module = jitted.lower(*args)
    text = module.print()
    module.verify()
    reparsed = parse(text)
    reparsed.verify()
    assert reparsed.print() == text
    got = jitted(*args)
    want = model64(*(a.astype(np.float64) for a in args))
    if name == "newton_while_loop":      # converged well before the cap, to f32 accuracy
        (got, steps), want = got, want
        assert 0 < steps < 50
        np.testing.assert_allclose(got, want, rtol=1e-5)
    elif name == "softmax_classifier":
        (probs, labels), (want_probs, want_labels) = got, want
        np.testing.assert_allclose(probs, want_probs, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(labels, want_labels)
    else:
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert jitted(*make()) is not None and jitted.cache_info().misses == 1   # same signature


def test_loops_see_the_enclosing_trace_and_run_the_right_count():
    def count_until(x, limit):
        # the body adds `x` (from the enclosing trace) until the total passes `limit`
        def body(state):
            n, total = state
            return n + 1, total + x.sum()
        return ops.while_loop(lambda s: s[1] < limit, body, (0, 0.0))
    x, limit = RNG.uniform(0.5, 1.5, 4).astype(np.float32), np.float32(10.0)
    n, total = accy.jit(count_until)(x, limit)
    step = x.astype(np.float64).sum()
    assert n.dtype == np.int32 and (n - 1) * step < 10.0 + 1e-4 and n * step > 10.0 - 1e-4
    np.testing.assert_allclose(total, n * step, rtol=1e-5)
