"""accy.compile's own wording: a builtin.module handed over as a plain Operation is told what
to pass, and an analysis failing while accy.compile takes the plans is named as an analysis
failure, not as a failure 'in pass accy.compile' (no pass runs then)."""
import numpy as np
import pytest

import accy
import accy.ir as ir

from cli_helpers import function_ir


def test_a_module_as_a_plain_operation_is_told_what_to_pass():
    module = ir.parse(function_ir("f"), ir.Context())
    parent = next(iter(module.body)).parent_op
    assert type(parent) is ir.Operation and parent.name == "builtin.module"
    with pytest.raises(accy.TypeError, match="got a builtin.module as a plain Operation.*"
                                             "pass that Module"):
        accy.compile(parent)
    x = np.random.default_rng(11).standard_normal((4, 8)).astype(np.float32)
    np.testing.assert_array_equal(accy.compile(module).run(x, device="emulator")[0], 2 * x)


def test_an_analysis_failing_in_compile_names_no_pass(monkeypatch):
    from accy.passes import schedule

    def broken(*args):
        raise RuntimeError("planner bug")
    monkeypatch.setattr(schedule, "compute_schedule_plan", broken)
    with pytest.raises(accy.AccyError, match="analysis 'SchedulePlanAnalysis' failed on "
                                             "builtin.func: RuntimeError: planner bug") as e:
        accy.compile(ir.parse(function_ir("f"), ir.Context()))
    assert "in pass" not in str(e.value)
