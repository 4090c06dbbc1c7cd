"""An exception while the user's function is traced: from `accy compile`/`accy run` one
`accy: error:` line naming the exception and the user's own line, never a traceback; from the
API the user's exception as it is. Example inputs that do not fit the function's parameters
are an accy error from both, before tracing."""
import functools
import inspect

import numpy as np
import pytest

import accy
from accy.frontend.trace import _takes, check_arity
from cli_helpers import cli_error

USER = ("import numpy as np\n"
        "def raises(x):\n"
        "    y = x * 2\n"
        "    raise ValueError('user bug while tracing')\n"
        "def numpy_call(x):\n"
        "    return np.sin(x)\n"
        "def no_method(x):\n"
        "    return x.no_such_method()\n"
        "def helper(x):\n"
        "    return x[0, 0, 0]\n"
        "def through_a_helper(x):\n"
        "    return helper(x) + 1\n"
        "def two(x, y):\n"
        "    return x + y\n"
        "def example_inputs():\n"
        "    return [np.random.default_rng(1).standard_normal(4).astype(np.float32)]\n")


@pytest.mark.parametrize("func, message", [
    ("raises", "tracing raises raised ValueError: user bug while tracing (at user.py:4)"),
    ("numpy_call", "tracing numpy_call raised TypeError: operand 'Tensor' does not support "
                   "ufuncs"),
    ("no_method", "tracing no_method raised AttributeError: 'Tensor' object has no attribute "
                  "'no_such_method' (at user.py:8)"),
    ("two", "two(x, y) cannot take the 1 example argument given (missing a required "
            "argument: 'y')"),
])
def test_an_exception_while_tracing_is_one_error_line(func, message, tmp_path, monkeypatch,
                                                      capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "user.py").write_text(USER)
    for command in ("compile", "run"):
        err = cli_error(capsys, command, f"user.py:{func}", one_line=True)
        assert message in err, err
    if func == "numpy_call":
        assert "(at user.py:6)" in err


def test_the_line_named_is_the_innermost_in_the_users_file(tmp_path, monkeypatch, capsys):
    """An accy error raised by a helper of the user's keeps its own located message."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "user.py").write_text(USER)
    err = cli_error(capsys, "compile", "user.py:through_a_helper", one_line=True)
    assert "(at user.py:10)" in err, err


def test_the_api_raises_the_users_exception_as_it_is():
    x = np.random.default_rng(2).standard_normal(4).astype(np.float32)

    def raises(x):
        raise ValueError("user bug")
    with pytest.raises(ValueError, match="^user bug$"):
        accy.compile(raises, x)
    with pytest.raises(AttributeError, match="no_such_method"):
        accy.compile(lambda x: x.no_such_method(), x)


@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_api_checks_the_number_of_example_arguments(count):
    xs = [np.random.default_rng(3).standard_normal(4).astype(np.float32)] * count

    def two(x, y):
        return x + y
    with pytest.raises(accy.TypeError, match=rf"two\(x, y\) cannot take the {count} example "
                                              rf"arguments? given"):
        accy.compile(two, *xs)
    with pytest.raises(accy.TypeError, match=r"two\(x, y\) cannot take"):
        accy.jit(two).lower(*xs)


def test_defaults_and_star_args_are_accepted():
    rng = np.random.default_rng(4)
    x, y = (rng.standard_normal(4).astype(np.float32) for _ in range(2))
    exe = accy.compile(lambda x, *rest, scale=2: sum(rest, x * scale), x, y)
    np.testing.assert_allclose(exe.run(x, y, device="emulator"),
                               2 * x.astype(np.float64) + y, rtol=1e-6)


def _inner(x, y):
    return x + y


@functools.wraps(_inner)
def _wrapper(*args):
    return _inner(*args)


class _Callable:
    def __call__(self, x):
        return x


@pytest.mark.parametrize("fn", [
    lambda: 0, lambda x: x, lambda x, y=1: x, lambda x, *rest: x, lambda *rest: 0,
    lambda x, /, y: x, lambda x, *, k: x, lambda x, *, k=1: x, lambda x, **kw: x,
    _wrapper, _Callable(), functools.partial(_inner, 1)])
def test_the_quick_arity_check_agrees_with_inspect(fn):
    """Whether the example arguments fit is read off a plain function's code: the same answer
    as inspect's binding, for every kind of parameter; a signature inspect finds elsewhere
    (functools.wraps) and other callables go through inspect."""
    for count in range(4):
        try:
            inspect.signature(fn).bind(*range(count))
            fits = True
        except TypeError:
            fits = False
        if _takes(fn, count):
            assert fits, count
        if fits:
            check_arity(fn, count)
        else:
            with pytest.raises(accy.TypeError, match="cannot take"):
                check_arity(fn, count)
