"""The programs bench/rank.py times and tests/test_rank_limit.py runs at the largest rank: an
elementwise chain, a reduction, a transpose and a broadcast, each for an input of any rank."""
import accy.ops as ops


def shape_of(rank):
    """Mostly 1s, a 2 every eighth dimension: 2^(rank / 8) elements, small at any rank."""
    return tuple(2 if i % 8 == 3 else 1 for i in range(rank))


def chain(x):
    return ops.tanh(ops.exp(x) * x + 1.5) - x


def reduction(x):
    return ops.sum(x * x, axis=tuple(range(1, x.ndim, 2)))


def transpose(x):
    return ops.transpose(x, tuple(reversed(range(x.ndim)))) * 2.0


def broadcast(x):
    return x + ops.reshape(ops.sum(x, axis=0), (1,) + x.shape[1:])


KINDS = {"chain": chain, "reduction": reduction, "transpose": transpose, "broadcast": broadcast}
