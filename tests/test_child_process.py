"""The bounds tests put on child processes (tests/child_process.py): a child that never ends is
stopped by its CPU budget or, asleep, by the backstop, and one child per run of items reports
each item's own outcome, around a crash and after a failing exit."""
import sys

import pytest

from child_process import each_in_child, run_bounded

ECHO = """
import json, os, sys
for item in json.load(sys.stdin):
    if item == "abort":
        os.abort()
    print(item, flush=True)
sys.exit(3 if item == "exit 3" else 0)
"""


def test_a_child_past_its_cpu_budget_is_stopped():
    with pytest.raises(pytest.fail.Exception, match="used its 1 s of CPU time without ending"):
        run_bounded([sys.executable, "-c", "while True: pass"], cpu_seconds=1)


def test_a_sleeping_child_is_stopped_by_the_backstop():
    with pytest.raises(pytest.fail.Exception, match="did not end within 1 s"):
        run_bounded([sys.executable, "-c", "import time; time.sleep(600)"], backstop_seconds=1)


def test_a_child_that_ends_is_returned_as_it_ended():
    done = run_bounded([sys.executable, "-c", "import sys; print('out'); sys.exit(4)"],
                       capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (4, "out\n")


def test_items_after_a_crash_get_their_own_outcomes():
    outcomes = each_in_child(ECHO, ["a", "abort", "b", "abort", "c"])
    assert outcomes[::2] == ["a", "b", "c"]
    assert all(o.startswith("child died with status -6") for o in outcomes[1::2]), outcomes


def test_a_failing_exit_after_every_line_is_reported():
    assert each_in_child(ECHO, ["a", "exit 3"]) == ["a", "exit 3, then the child died with "
                                                    "status 3: "]
    assert each_in_child(ECHO, ["a", "b"]) == ["a", "b"]
