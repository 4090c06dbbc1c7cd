"""Float sums where they overflow, as docs/compile.md ("Order of float sums") tells them: the
reference's result is a sequential f32 fold's, bit for bit; the block-per-row kernel runs the
T = 128 threads the docs name, and a Python model of its documented order (thread t folds
elements t, t + T, ..., then the partials are combined) has partials of +inf and -inf, so that
every combination is NaN, which the kernel gives (its own partials are not observed). Rows
that stay finite agree within rounding."""
import numpy as np

import accy
import accy.ops as ops

from ptxas_check import assemble

OVERFLOWING = np.tile(np.float32([3e38, 3e38, -3e38, 0]), 100)


def sequential(row):
    """The left fold of `row` from 0 in f32, one rounding per step."""
    total = np.float32(0)
    with np.errstate(over="ignore", invalid="ignore"):
        for x in row:
            total = np.float32(total + x)
    return total


def test_an_overflowing_sum_follows_each_sides_documented_order(rng):
    x = (rng.standard_normal((8, OVERFLOWING.size)) * 3).astype(np.float32)
    x[0] = OVERFLOWING
    exe = accy.compile(lambda x: ops.sum(x, axis=1), x)
    assemble(exe.ptx)
    (kernel,) = exe.kernels
    assert kernel.schedule == "block per row, registers", exe.report()
    threads = kernel.launch.block[0]
    assert threads == 128, kernel.launch             # the T docs/compile.md names
    want, got = exe.run(x, device="reference"), exe.run(x, device="emulator")

    assert [sequential(row) for row in x] == list(want)     # bit for bit, inf included
    assert want[0] == np.inf
    partials = [sequential(x[0, t::threads]) for t in range(threads)]     # the model
    assert np.inf in partials and -np.inf in partials       # so every combination is NaN
    assert np.isnan(got[0])

    rows = x[1:].astype(np.float64)
    atol = 8 * 2.0 ** -23 * np.sqrt(rows.shape[1]) * np.abs(rows).sum(axis=1)
    assert np.all(np.abs(got[1:].astype(np.float64) - want[1:]) <= atol), (got[1:], want[1:])
