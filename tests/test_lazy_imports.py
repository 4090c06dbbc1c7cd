"""What `import accy` loads: not ml_dtypes (about half a second of ufunc registration in 0.7.0)
until a bf16 value is needed, and not the compiler, the runtime or batch compiles until their
names are used. Each check runs in a fresh process, since this one has loaded everything."""
import importlib
import json
import os
import sys

import pytest

import accy

from child_process import run_bounded

HEAVY = ("ml_dtypes", "accy.compiler", "accy.cache", "accy.batch", "accy.runtime.emulator",
         "accy.runtime.executable", "concurrent.futures", "multiprocessing", "tqdm")

# Prints, as JSON, {"before": [the HEAVY modules loaded after the setup lines], ...} and what
# the test's own lines add to `result`.
PRELUDE = """
import json, sys
HEAVY = {heavy!r}
loaded = lambda: [m for m in HEAVY if m in sys.modules]
result = {{}}
{setup}
result["before"] = loaded()
{body}
print(json.dumps(result))
"""


def in_child(body, setup="import accy", env=None):
    code = PRELUDE.format(heavy=HEAVY, setup=setup, body=body)
    done = run_bounded([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_import_accy_loads_no_heavy_module():
    result = in_child("")
    assert result["before"] == []


def test_names_load_on_first_use():
    result = in_child("""
import accy.ops
result["ops"] = loaded()
accy.compile
result["compile"] = [m for m in ("accy.compiler", "accy.cache") if m in sys.modules]
""")
    assert result["ops"] == [] and result["compile"] == ["accy.compiler", "accy.cache"]


def test_f32_compile_and_emulator_run_need_no_ml_dtypes(tmp_path):
    body = """
import numpy as np
import accy.ops as ops
rng = np.random.default_rng()
x = rng.standard_normal((6, 40)).astype(np.float32) * 3
w = rng.standard_normal((40, 24)).astype(np.float32)
fn = lambda x, w: ops.softmax(x @ w, axis=-1) + ops.layer_norm(x @ w, axis=-1)
for _ in range(2):                      # a miss, then a hit of the compile cache
    exe = accy.compile(fn, x, w, target="sm_90")
got = exe.run(x, w, device="emulator")
ref = exe.run(x, w, device="reference")
y = x.astype(np.float64) @ w.astype(np.float64)
e = np.exp(y - y.max(-1, keepdims=True))
want = e / e.sum(-1, keepdims=True) + (y - y.mean(-1, keepdims=True)) / np.sqrt(
    y.var(-1, keepdims=True) + 1e-5)
result["dtype"] = str(got.dtype)
result["error"] = float(np.abs(got.astype(np.float64) - want).max())
result["scale"] = float(np.abs(want).max())
result["vs_reference"] = float(np.abs(got.astype(np.float64) - ref.astype(np.float64)).max())
result["after"] = loaded()
"""
    result = in_child(body, env={**os.environ, "ACCY_CACHE": "1", "ACCY_CACHE_DIR": str(tmp_path)})
    assert result["dtype"] == "float32"
    assert result["error"] <= 1e-5 * max(1.0, result["scale"]), result
    assert result["vs_reference"] <= 1e-5 * max(1.0, result["scale"]), result
    assert "ml_dtypes" not in result["after"], result["after"]
    assert any(tmp_path.iterdir()), "the compile cache stored nothing"


def test_bf16_graph_loads_ml_dtypes_and_runs():
    body = """
import numpy as np
import accy.ops as ops
from accy._core.types import numpy_dtype, round_float
rng = np.random.default_rng()
bf16 = numpy_dtype("bf16")
result["after_dtype"] = loaded()
x, y = ((rng.standard_normal((7, 13)) * 3).astype(bf16) for _ in range(2))
exe = accy.compile(lambda x, y: ops.maximum(x * y + x, y - x), x, y, target="sm_90")
got = exe.run(x, y, device="emulator")
ref = exe.run(x, y, device="reference")
x64, y64 = x.astype(np.float64), y.astype(np.float64)
bf = lambda v: round_float(v, "bf16").astype(np.float64)      # each op rounds once to bf16
want = np.maximum(bf(bf(x64 * y64) + x64), bf(y64 - x64))
result["dtype"] = str(got.dtype)
result["same_as_reference"] = bool((got.view(np.uint16) == ref.view(np.uint16)).all())
result["same_as_numpy"] = bool((got.astype(np.float64) == want).all())
"""
    result = in_child(body)
    assert result["before"] == []
    assert "ml_dtypes" in result["after_dtype"]
    assert result["dtype"] == "bfloat16", result
    assert result["same_as_reference"] and result["same_as_numpy"], result


def test_parsing_loads_ml_dtypes_only_for_a_bf16_constant():
    body = """
from accy.ir import parse
text = '''builtin.module ({
  builtin.func <{function_type = () -> tensor<2xDT>, sym_name = "c"}> ({
    %0 = tensor.constant <{value = dense<[1.5, -2.0]> : tensor<2xDT>}> : tensor<2xDT>
    builtin.return %0
  })
})'''
f32 = parse(text.replace("DT", "f32"))
result["f32"] = loaded()
bf16 = parse(text.replace("DT", "bf16"))
result["bf16"] = loaded()
const = next(op for op in bf16.walk() if op.name == "tensor.constant")
result["values"] = const.attributes["value"].array.astype(float).tolist()
result["dtype"] = str(const.attributes["value"].array.dtype)
"""
    result = in_child(body, setup="import accy.ir, accy.tensor")
    assert result["before"] == [] and result["f32"] == []
    assert result["bf16"] == ["ml_dtypes"]
    assert result["dtype"] == "bfloat16" and result["values"] == [1.5, -2.0]


@pytest.mark.parametrize("name", sorted(accy._LAZY))
def test_lazy_name_is_the_defining_modules(name):
    assert getattr(accy, name) is getattr(importlib.import_module(accy._LAZY[name]), name)
    assert name in dir(accy)


def test_every_public_name_and_submodule_resolves():
    for name in accy.__all__:
        assert getattr(accy, name) is not None
    for name in accy._SUBMODULES:
        assert getattr(accy, name) is importlib.import_module(f"accy.{name}")
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        accy.not_a_name
