"""The ptxas process: the time limit holds even when a child of ptxas leaves its process group
and keeps ptxas's output open, an interrupted wait (Ctrl-C, any exception) leaves no ptxas
running, the time limit has a documented maximum, and the wheel lookup is done once.

The fake ptxas scripts here never finish on their own. Nothing waits on a fixed sleep: the
limited wait starts only once the script has said (by a file it renames into place) that all
its processes are set up, and a process's death is read from a FIFO it holds open for writing
(EOF once every writer is gone)."""
import os
import signal
import subprocess
import tempfile
import threading
import time

import pytest

from accy.lowering import ptxas

GIVE_UP_S = 120     # only a hanging assemble (the defect) ever reaches it


class Setup:
    """A fake ptxas in `tmp_path` whose main process holds the FIFO `alive` open (and is the
    only process that does), with `extra` shell lines run first; it renames `ready` into place
    when set up, then sleeps for ever."""

    def __init__(self, tmp_path, extra=""):
        self.folder = tmp_path
        self.ready, fifo = tmp_path / "ready", tmp_path / "alive"
        os.mkfifo(fifo)
        self.reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # before a writer opens it
        self.script = tmp_path / "bin" / "ptxas"
        self.script.parent.mkdir()
        self.script.write_text(f'#!/bin/sh\n{extra}exec 3>"{fifo}"\necho $$ > "{tmp_path}/pid"\n'
                               f'mv "{tmp_path}/pid" "{self.ready}"\nexec sleep 100000\n')
        self.script.chmod(0o755)

    def ptxas_alive(self):
        """Whether a process still holds the FIFO (read without blocking)."""
        try:
            return os.read(self.reader, 1) != b""
        except BlockingIOError:
            return True

    def ptxas_gone(self, within_s=10):
        """Whether the FIFO is released within `within_s`: a killed process group's members
        are gone once the kernel has torn them down, which a loaded machine may delay after
        assemble has returned."""
        deadline = time.monotonic() + within_s
        while self.ptxas_alive():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def wait_until_ready(self, process):
        while not self.ready.exists() and process.poll() is None:
            os.sched_yield()


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Temporary folders (accy-ptxas-*) made under tmp_path."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def limited_wait(setup, monkeypatch, then):
    """Popen whose limited wait (whichever of wait/communicate accy uses) first waits for the
    fake ptxas to be set up, then calls `then(process, method, args)`."""
    class Synchronized(subprocess.Popen):
        def wait(self, timeout=None):
            if timeout is None:
                return super().wait()
            setup.wait_until_ready(self)
            return then(self, super().wait, ())

        def communicate(self, input=None, timeout=None):
            if timeout is None:
                return super().communicate(input)
            setup.wait_until_ready(self)
            return then(self, super().communicate, (input,))
    monkeypatch.setattr(ptxas.subprocess, "Popen", Synchronized)


def test_a_child_that_leaves_the_group_with_the_output_open_does_not_hold_the_limit(
        in_tmp, monkeypatch):
    """The script starts a `setsid` child that inherits ptxas's output: killing the group
    cannot reach it, and accy must not wait for it to close that output."""
    setup = Setup(in_tmp, extra=f'setsid sleep 100000 3>&- &\necho $! > "{in_tmp}/escaped"\n')
    limited_wait(setup, monkeypatch, lambda process, wait, args: wait(*args, timeout=0.001))
    escaped = []

    def give_up():      # ends the escaped child, so a defective assemble returns at last
        escaped.append(int((in_tmp / "escaped").read_text()))
        os.kill(escaped[0], signal.SIGKILL)
    watchdog = threading.Timer(GIVE_UP_S, give_up)
    watchdog.start()
    try:
        with pytest.raises(ptxas.PtxasError, match="did not finish within"):
            ptxas.assemble("// nothing\n", "sm_90", ptxas=str(setup.script), timeout=1)
    finally:
        watchdog.cancel()
    assert not escaped, "assemble waited for the escaped child to close ptxas's output"
    assert setup.ptxas_gone(), "ptxas still runs"
    assert not list(in_tmp.glob("accy-ptxas-*")), "the temporary folder is left"
    try:                                    # it escaped on purpose; it may be gone already
        os.kill(int((in_tmp / "escaped").read_text()), signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("raised", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_wait_stops_ptxas_and_goes_on(raised, in_tmp, monkeypatch):
    """Ctrl-C (a KeyboardInterrupt in the wait; ptxas, in its own session, gets no SIGINT), or
    any other exception, while ptxas runs: ptxas is killed and the exception goes on as it is
    (only the time limit becomes a PtxasError)."""
    setup = Setup(in_tmp)

    def interrupt(process, wait, args):
        raise raised("interrupted")
    limited_wait(setup, monkeypatch, interrupt)
    with pytest.raises(raised, match="interrupted"):
        ptxas.assemble("// nothing\n", "sm_90", ptxas=str(setup.script), timeout=100)
    alive = not setup.ptxas_gone()
    if alive:
        os.kill(int(setup.ready.read_text()), signal.SIGKILL)
    assert not alive, "ptxas still runs"
    assert not list(in_tmp.glob("accy-ptxas-*")), "the temporary folder is left"


@pytest.mark.parametrize("value", [str(ptxas.MAX_TIMEOUT_S + 1), "2147484", "1e12", "1e300"])
def test_a_ptxas_timeout_past_the_maximum_is_a_clear_error(value, monkeypatch):
    monkeypatch.setenv("ACCY_PTXAS_TIMEOUT", value)
    with pytest.raises(ptxas.PtxasError, match=f"at most {ptxas.MAX_TIMEOUT_S}, got '{value}'"):
        ptxas.ptxas_timeout()


def test_the_largest_ptxas_timeout_runs_ptxas(monkeypatch):
    monkeypatch.setenv("ACCY_PTXAS_TIMEOUT", str(ptxas.MAX_TIMEOUT_S))
    assert ptxas.ptxas_timeout() == ptxas.MAX_TIMEOUT_S
    script = "#!/bin/sh\nexit 3\n"
    with tempfile.TemporaryDirectory() as folder:
        fake = os.path.join(folder, "ptxas")
        with open(fake, "w") as f:
            f.write(script)
        os.chmod(fake, 0o755)
        with pytest.raises(ptxas.PtxasError, match=r"rejects the PTX module \(exit 3\)"):
            ptxas.assemble("// nothing\n", "sm_90", ptxas=fake)


@pytest.mark.skipif(ptxas.find_ptxas() is None, reason="ptxas is not installed")
def test_the_cli_with_a_too_large_timeout_says_so(tmp_path, monkeypatch, capsys):
    """Without --cubin the report names the bad value where the ptxas figures would be; with
    --cubin it is one error line."""
    from accy.__main__ import main
    from test_hardening_cli import function_ir
    monkeypatch.setenv("ACCY_PTXAS_TIMEOUT", "3000000")
    (tmp_path / "f.mlir").write_text(function_ir("f"))
    message = ("ACCY_PTXAS_TIMEOUT must be a positive number of seconds, at most "
               f"{ptxas.MAX_TIMEOUT_S}")
    assert main(["compile", str(tmp_path / "f.mlir"), "-o", str(tmp_path)]) == 0
    assert f"(registers and spills: {message}" in capsys.readouterr().out
    assert main(["compile", str(tmp_path / "f.mlir"), "-o", str(tmp_path), "--cubin"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"accy: error: {message}") and "Traceback" not in err


def test_the_wheel_lookup_reads_the_metadata_once_per_site_folders(tmp_path, monkeypatch):
    calls = []
    real = ptxas.importlib.metadata.distributions

    def distributions(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)
    monkeypatch.setattr(ptxas.importlib.metadata, "distributions", distributions)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    folders = [str(tmp_path / "a")]
    (tmp_path / "a").mkdir()
    monkeypatch.setattr(ptxas, "_site_folders", lambda: folders)
    assert ptxas.find_ptxas() is None and ptxas.find_ptxas() is None
    assert len(calls) == 1
    bin_folder = tmp_path / "bin"           # a changed PATH is seen at once
    bin_folder.mkdir()
    (bin_folder / "ptxas").write_text("#!/bin/sh\n")
    (bin_folder / "ptxas").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_folder))
    assert ptxas.find_ptxas() == str(bin_folder / "ptxas")
