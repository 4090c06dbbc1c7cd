"""Child processes a test needs to end: bounded by the work they do, not by the clock.

A test whose point is that something terminates (a parser fed hostile text, a command run from
the shell) must neither stall the suite when it hangs nor fail on a loaded machine. So the
child gets a budget of CPU time (RLIMIT_CPU: a busy machine gives it fewer CPU seconds per
second, never more work per CPU second) and only a very generous wall-clock backstop, for a
child that sleeps or deadlocks and so uses no CPU."""
import json
import resource
import signal
import subprocess
import sys

import pytest

CPU_SECONDS = 120           # far above any child here (the largest takes about 2 s)
BACKSTOP_SECONDS = 600


def limit_cpu(seconds=CPU_SECONDS):
    """A `preexec_fn` giving the child (and what it starts) `seconds` of CPU time: then it gets
    SIGXCPU (which ends a process by default), and SIGKILL 5 s later."""
    def limit():
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        cap = seconds + 5 if hard == resource.RLIM_INFINITY else min(hard, seconds + 5)
        resource.setrlimit(resource.RLIMIT_CPU, (min(seconds, cap), cap))
    return limit


def run_bounded(args, cpu_seconds=CPU_SECONDS, backstop_seconds=BACKSTOP_SECONDS, **kwargs):
    """subprocess.run(args, **kwargs) for a child that must end; the test fails, saying which
    bound it hit, when the child used `cpu_seconds` of CPU time or ran `backstop_seconds`."""
    try:
        done = subprocess.run(args, preexec_fn=limit_cpu(cpu_seconds),
                              timeout=backstop_seconds, **kwargs)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args[0]} did not end within {backstop_seconds} s (asleep or "
                    f"deadlocked?) and was killed", pytrace=False)
    if done.returncode == -signal.SIGXCPU:
        pytest.fail(f"{args[0]} used its {cpu_seconds} s of CPU time without ending and was "
                    f"stopped (a hang?)", pytrace=False)
    return done


def each_in_child(code, items, **kwargs):
    """One outcome line per item of `items` from Python `code` run in child processes (through
    run_bounded, with `kwargs`): `code` reads a JSON list of items from stdin and prints one
    line per item, flushed. A child that dies at an item gives it "child died with status N:
    <its stderr's end>" and a new child goes on from the next item; a child that printed every
    line and then exited with a non-zero status has that added to its last item's line."""
    outcomes = []
    while len(outcomes) < len(items):
        rest = items[len(outcomes):]
        done = run_bounded([sys.executable, "-c", code], input=json.dumps(rest), text=True,
                           capture_output=True, **kwargs)
        lines = done.stdout.splitlines()
        assert len(lines) <= len(rest), f"more lines than items: {lines}"
        outcomes += lines
        died = f"child died with status {done.returncode}: {done.stderr[-300:]}"
        if len(lines) < len(rest):
            outcomes.append(died)
        elif done.returncode:
            outcomes[-1] += f", then the {died}"
    return outcomes
