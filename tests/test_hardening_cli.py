"""Hostile or careless input to the `accy` command and the compile API: files land only where
asked, only the installed ptxas runs (and never forever), and every mistake is one clear
`accy: error:` line (or an accy error from the API), never a traceback."""
import ctypes
import os
import signal
import subprocess
import sys
import time

import pytest

import accy
from accy.__main__ import main, output_stem

from child_process import run_bounded
from cli_helpers import cli_error, function_ir


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder)
                  for d, _, names in os.walk(folder) for f in names)


@pytest.mark.parametrize("sym_name", [
    "/tmp/accy-escape-absolute", "../escaped", "../../escaped", "a/../../b", "a/b", "..", ".",
    "", "-rf", ".hidden", "a\\00b", "a\\\\b", "x" * 400, "caf\u00e9 name",
])
def test_compile_writes_only_into_the_output_folder(sym_name, tmp_path, capsys):
    source = tmp_path / "f.mlir"
    source.write_text(function_ir(sym_name))
    out = tmp_path / "a" / "out"
    assert main(["compile", str(source), "-o", str(out)]) == 0, capsys.readouterr().err
    assert not os.path.exists("/tmp/accy-escape-absolute.ptx")
    written = files_under(tmp_path)
    assert "f.mlir" in written
    inside = [w for w in written if w != "f.mlir"]
    assert len(inside) == 3 and all(os.path.dirname(w) == os.path.join("a", "out")
                                    for w in inside), written
    stem = output_stem(sym_name.replace("\\00", "\0").replace("\\\\", "\\"))
    assert sorted(os.path.basename(w) for w in inside) == [stem + ".accy", stem + ".ptx",
                                                           stem + ".report.txt"]


def test_a_link_planted_in_the_output_folder_is_replaced_not_followed(tmp_path, capsys):
    """An output name that is a symbolic link to a file elsewhere: the link is replaced by the
    output, the file it pointed to keeps its bytes."""
    source = tmp_path / "f.mlir"
    source.write_text(function_ir("f"))
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    for suffix in (".ptx", ".accy", ".report.txt"):
        (elsewhere / ("victim" + suffix)).write_text("not yours")
        os.symlink(elsewhere / ("victim" + suffix), out / ("f" + suffix))
    assert main(["compile", str(source), "-o", str(out)]) == 0, capsys.readouterr().err
    for suffix in (".ptx", ".accy", ".report.txt"):
        assert (elsewhere / ("victim" + suffix)).read_text() == "not yours"
        assert not os.path.islink(out / ("f" + suffix))
    assert ".entry" in (out / "f.ptx").read_text()
    assert accy.load(out / "f.accy").ptx == (out / "f.ptx").read_text()
    assert sorted(os.listdir(out)) == ["f.accy", "f.ptx", "f.report.txt"]    # no temporary left


@pytest.mark.parametrize("name, stem", [
    ("main", "main"), ("layer_norm-2.v1", "layer_norm-2.v1"), ("../x", "_.._x+h"),
    ("/abs", "_abs+h"), ("a\0b", "a_b+h"), ("", "_+h"), ("-o", "_-o+h"), (".", "_.+h"),
    ("a b\\c", "a_b_c+h"),
])
def test_output_stem_rule(name, stem):
    """Kept as it is, or changed and then marked by '+h' and 8 hex digits of a hash."""
    got = output_stem(name)
    if stem.endswith("+h"):
        assert got.startswith(stem) and len(got) == len(stem) + 8, got
        assert int(got[-8:], 16) >= 0
    else:
        assert got == stem
    assert len(output_stem("n" * 1000)) == 200


def test_output_stems_of_different_names_differ(tmp_path, capsys):
    """'a/b', 'a_b', 'a\\b' and names differing past the length cap: one file set each."""
    long = "y" * 300
    names = ["a/b", "a_b", "a\\\\b", "a b", long + "1", long + "2"]
    for i, sym_name in enumerate(names):
        source = tmp_path / f"f{i}.mlir"
        source.write_text(function_ir(sym_name))
        assert main(["compile", str(source), "-o", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    written = os.listdir(tmp_path / "out")
    assert len(written) == 3 * len(names) and sorted(written)[0].startswith("a_b"), written
    assert "a_b.ptx" in written and all(len(w) <= 255 for w in written)


def test_a_long_function_name_gives_bounded_kernel_names():
    import accy
    import accy.ir as ir
    from accy.passes.outline import MAX_PREFIX
    from ptxas_check import assemble
    name = "z" * 1_000_000
    exe = accy.compile(ir.parse(function_ir(name), ir.Context()))
    assert len(exe.ptx) < 10_000 and name not in exe.ptx
    prefixes = {k.name.split("$k")[0] for k in exe.kernels}
    assert len(prefixes) == 1 and len(prefixes.pop()) == MAX_PREFIX
    assemble(exe.ptx)
    other = accy.compile(ir.parse(function_ir(name[:-1] + "y"), ir.Context()))
    assert {k.name for k in other.kernels}.isdisjoint(k.name for k in exe.kernels)


@pytest.mark.parametrize("name", ["main", "f", "layer_norm", "a" * 100])
def test_short_kernel_names_are_as_they_were(name):
    """A name that is already a PTX identifier of at most MAX_PREFIX characters is kept
    exactly, so the cap changes no PTX of such programs."""
    import accy
    import accy.ir as ir
    exe = accy.compile(ir.parse(function_ir(name), ir.Context()))
    assert [k.name for k in exe.kernels] == [f"{name}$k0$elementwise"]


def test_outputs_an_earlier_run_left_are_removed(tmp_path, capsys):
    """A --cubin run then a plain one: the .cubin goes; only the exact names of this stem, in
    the output folder."""
    source = tmp_path / "f.mlir"
    source.write_text(function_ir("f"))
    out = tmp_path / "out"
    out.mkdir()
    neighbours = ["f.cubin.bak", "f.txt", "g.cubin", "ff.cubin"]
    for other in neighbours:
        (out / other).write_text("not ours")
    (tmp_path / "f.cubin").write_text("outside the output folder")
    assert main(["compile", str(source), "-o", str(out), "--cubin"]) == 0
    assert {"f.ptx", "f.cubin", "f.accy", "f.report.txt"} <= set(os.listdir(out))
    capsys.readouterr()
    assert main(["compile", str(source), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert sorted(os.listdir(out)) == sorted(neighbours + ["f.accy", "f.ptx", "f.report.txt"])
    assert f"# removed {out / 'f.cubin'}: left by an earlier run" in printed
    assert (tmp_path / "f.cubin").read_text() == "outside the output folder"
    assert main(["compile", str(source), "-o", str(out)]) == 0
    assert "# removed" not in capsys.readouterr().out


def fake_ptxas(path, body):
    """An executable shell script at `path` standing in for ptxas."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


PLANTED = 'echo ran > "$(dirname "$0")/RAN"\nexit 1\n'
PLANTED_PTXAS = ["nvidia/cu12/bin/ptxas", "nvidia/cu13/bin/ptxas", "nvidia/cuda_nvcc/bin/ptxas",
                 "bin/ptxas", "ptxas"]
FIND_AND_REPORT = ("import numpy as np, accy\n"
                   "from accy.lowering.ptxas import find_ptxas\n"
                   "print('found', find_ptxas())\n"
                   "x = np.random.default_rng(1).standard_normal(8).astype(np.float32)\n"
                   "print(accy.compile(lambda x: x * 2, x).report())\n")


@pytest.mark.parametrize("how", [["-c", FIND_AND_REPORT], ["-m", "accy", "compile", "f.mlir"]])
def test_a_ptxas_in_the_current_folder_never_runs(how, tmp_path):
    """ptxas is not on PATH, PATH has relative and empty entries, and the current folder holds
    ptxas where a sys.path or PATH search through '' would find one: none of them runs."""
    for planted in PLANTED_PTXAS:
        fake_ptxas(tmp_path / planted, PLANTED)
    (tmp_path / "f.mlir").write_text(function_ir("f"))
    no_ptxas = tmp_path.parent / (tmp_path.name + "-bin")
    no_ptxas.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": os.pathsep.join(["", "bin", ".", "nvidia/cu12/bin",
                                                  str(no_ptxas)])}
    env.pop("PYTHONPATH", None)
    r = run_bounded([sys.executable, *how], cwd=tmp_path, env=env, capture_output=True,
                    text=True)
    assert r.returncode == 0, r.stderr
    ran = [p for p in PLANTED_PTXAS if (tmp_path / p).parent.joinpath("RAN").exists()]
    assert ran == [], f"ran {ran}"
    assert "ptxas is not installed" in r.stdout
    if how[0] == "-c":
        assert "found None" in r.stdout


def test_ptxas_from_the_installed_wheel_is_found_by_its_metadata(tmp_path, monkeypatch):
    from accy.lowering import ptxas
    site = tmp_path / "site-packages"
    binary = fake_ptxas(site / "nvidia" / "cuda_nvcc" / "bin" / "ptxas", "exit 0\n")
    info = site / "nvidia_cuda_nvcc_cu12-12.4.131.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nvidia-cuda-nvcc-cu12\n"
                                   "Version: 12.4.131\n")
    (info / "RECORD").write_text("nvidia/cuda_nvcc/bin/ptxas,,\n"
                                 f"{info.name}/METADATA,,\n{info.name}/RECORD,,\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(ptxas, "_site_folders", lambda: [str(site)])
    assert ptxas.find_ptxas() == str(binary)
    monkeypatch.setattr(ptxas, "_site_folders", lambda: [])
    assert ptxas.find_ptxas() is None


PR_SET_CHILD_SUBREAPER = 36        # linux/prctl.h


def reaping_orphans(on):
    """Make this process the one that adopts its descendants' orphans (Linux's child
    subreaper), so that it can wait for a grandchild; `on=False` undoes it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def test_a_hanging_ptxas_is_stopped_with_a_clear_error(tmp_path, monkeypatch):
    """A ptxas that never finishes (here: a script whose child sleeps) is killed, with its
    children, after ACCY_PTXAS_TIMEOUT seconds; accy.compile raises PtxasError. ptxas's time
    limit starts only once the script has started its child and written the child's pid (so
    however slowly the script runs, the kill finds the child), and this process adopts the
    orphaned child to see how it ended: by SIGKILL, not by its 600 s sleep running out."""
    import numpy as np
    import accy
    from accy.lowering.ptxas import PtxasError
    child_pid = tmp_path / "child_pid"
    fake_ptxas(tmp_path / "bin" / "ptxas",
               f'sleep 600 &\necho $! > "{child_pid}.tmp"\nmv "{child_pid}.tmp" "{child_pid}"\n'
               "wait\n")

    class Started(subprocess.Popen):
        """Returns once the script has written the pid (atomically: a rename) or ended."""
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            while not child_pid.exists() and self.poll() is None:
                time.sleep(0.01)
    monkeypatch.setattr(subprocess, "Popen", Started)
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    monkeypatch.setenv("ACCY_PTXAS_TIMEOUT", "2")
    x = np.random.default_rng(2).standard_normal(16).astype(np.float32)
    reaping_orphans(True)
    try:
        with pytest.raises(PtxasError, match="did not finish within 2 s.*ACCY_PTXAS_TIMEOUT"):
            accy.compile(lambda x: x + 1, x, target={"arch": "sm_90", "artifact_format": "cubin"})
        # ours once the shell is gone (ChildProcessError if ptxas's wait left the shell running)
        _, status = os.waitpid(int(child_pid.read_text()), 0)
    finally:
        reaping_orphans(False)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, \
        f"ptxas's child ended with status {status:#x}, not killed"


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "inf"])
def test_a_bad_ptxas_timeout_is_a_clear_error(value, monkeypatch):
    from accy.lowering.ptxas import PtxasError, ptxas_timeout
    monkeypatch.setenv("ACCY_PTXAS_TIMEOUT", value)
    with pytest.raises(PtxasError, match="ACCY_PTXAS_TIMEOUT must be a positive number"):
        ptxas_timeout()


def run_accy(*args, stdin=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "accy", *args], capture_output=True,
                          input=stdin, cwd=cwd)


NOT_UTF8 = b"builtin.module ({\n  \xff\xfe.op\n})\n"


@pytest.mark.parametrize("how", ["file", "stdin", "reproducer"])
def test_text_that_is_not_utf8_is_a_parse_error_with_its_byte_offset(how, tmp_path):
    data = (b"// accy-pipeline: canonicalize\n" + NOT_UTF8) if how == "reproducer" else NOT_UTF8
    offset = data.index(b"\xff")
    (tmp_path / "bad.mlir").write_bytes(data)
    args = {"file": ["opt", "bad.mlir"], "stdin": ["opt", "-"],
            "reproducer": ["opt", "bad.mlir", "--run-reproducer"]}[how]
    r = run_accy(*args, stdin=data if how == "stdin" else None, cwd=tmp_path)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 1 and "Traceback" not in err, err
    assert err.startswith("accy: error: ") and "not valid UTF-8" in err
    assert f"at byte offset {offset}" in err


@pytest.mark.parametrize("text", [
    b"x" * 10_000_000,                                          # one 10 MB op name
    b"%0 = " + b"a" * 10_000_000,
    b'builtin.module ({\n  "t.op"() {k = "' + b"s" * 10_000_000,  # an unterminated string
    b"builtin.module ({\n" + b" " * 10_000_000 + b"bad.op\n})",  # a 10 MB line
    b"%0 = t.op : tensor<" + b"f" * 10_000_000 + b">",
    b"\xc3\xa9" * 5_000_000,
])
def test_a_10mb_token_or_line_gives_an_error_of_bounded_length(text):
    r = run_accy("opt", "-", stdin=text)
    err = r.stderr.decode("utf-8")
    assert r.returncode == 1 and err.startswith("accy: error: ") and "Traceback" not in err
    assert len(err) < 1200, err[:2000]


def test_compile_of_an_ir_file_draws_no_inputs(tmp_path, capsys):
    """10^6 x 10^6 f32 (4 TB of arguments): compiled from the signature alone."""
    source = tmp_path / "big.mlir"
    source.write_text(function_ir("big", "1000000x1000000"))
    assert main(["compile", str(source), "-o", str(tmp_path)]) == 0, capsys.readouterr().err
    assert ".entry" in (tmp_path / "big.ptx").read_text()


def test_run_of_an_ir_file_with_too_large_inputs_is_a_clear_error(tmp_path, capsys):
    source = tmp_path / "big.mlir"
    source.write_text(function_ir("big", "1000000x1000000"))
    assert main(["run", str(source), "--device", "emulator"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("accy: error: ") and "4000000000000 bytes" in err
    assert "example_inputs()" in err


def test_run_of_an_ir_file_checks_its_random_inputs(tmp_path, capsys):
    source = tmp_path / "small.mlir"
    source.write_text(function_ir("small", "5x7"))
    assert main(["run", str(source), "--device", "emulator"]) == 0
    assert "# ok: small on emulator matches the reference" in capsys.readouterr().out


@pytest.mark.parametrize("dtype", ["i8", "i1", "f16", "f32"])
def test_random_inputs_take_their_own_size_plus_one_chunk(dtype):
    """The 4 GiB cap is the peak: a 1-byte dtype is not drawn whole in float32 first (5x)."""
    import tracemalloc
    import accy.ir as ir
    from accy.__main__ import DRAW_CHUNK, random_inputs
    t = f"tensor<4096x4096x{dtype}>"
    func = list(ir.parse(function_ir("f", "4096x4096").replace("tensor<4096x4096xf32>", t),
                         ir.Context(), verify=False).body)[0]
    nbytes = 4096 * 4096 * ir.numpy_dtype(func.regions[0].blocks[0].arguments[0].type.dtype
                                          ).itemsize
    tracemalloc.start()
    try:
        (array,) = random_inputs("f.mlir", func)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert array.nbytes == nbytes and (dtype == "i1" or array.astype(float).std() > 0.3)
    assert peak <= nbytes + 4 * DRAW_CHUNK + (1 << 20), (peak, nbytes)


@pytest.mark.parametrize("shape", ["9223372036854775807", "2305843009213693952",
                                   "3037000499x3037000499", "4x576460752303423488"])
def test_a_buffer_past_2_63_bytes_is_a_clear_error(shape, tmp_path, capsys):
    import accy
    import accy.ir as ir
    from accy.errors import AccyError
    text = function_ir("huge", shape)
    with pytest.raises(AccyError, match=r"needs \d+ bytes, more than a buffer can hold"):
        accy.compile(ir.parse(text, ir.Context()))
    (tmp_path / "huge.mlir").write_text(text)
    assert main(["compile", str(tmp_path / "huge.mlir"), "-o", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("accy: error: ") and "more than a buffer can hold" in err


def test_the_largest_buffer_still_compiles():
    import accy
    import accy.ir as ir
    exe = accy.compile(ir.parse(function_ir("edge", "2305843009213693951"), ir.Context()))
    assert {s.nbytes for s in exe.program.slots} == {2**63 - 4}


GOOD_PY = ("import numpy as np\n"
           "def double(x):\n"
           "    return x * 2\n"
           "def example_inputs():\n"
           "    return [np.random.default_rng(3).standard_normal((3, 5)).astype(np.float32)]\n")


@pytest.mark.parametrize("source, message", [
    (":f", "SOURCE is FILE.py:FUNC"),
    ("mod:", "SOURCE is FILE.py:FUNC"),
    ("nonexistent_pkg.mod:f", "no module named 'nonexistent_pkg'"),
    ("nonexistent_pkg:f", "nonexistent_pkg: no module"),
    (".relative:f", "not a module name"),
    ("good.py", "a Python file needs the function to compile: good.py:FUNC"),
    ("missing.py:f", "missing.py: no such file"),
    ("good.py:nothing", "has no function 'nothing'"),
    ("not_a_sequence.py:double", "example_inputs() must return a list or tuple of double's "
                                 "arguments, got int"),
    ("raises_in_inputs.py:double", "example_inputs() raised ValueError: no inputs today"),
    ("raises_on_import.py:double", "raises_on_import.py: importing it raised RuntimeError: "
                                   "boom at import"),
    ("hardening_pkg.needs_missing:double", "hardening_pkg.needs_missing: importing it raised "
                                           "ModuleNotFoundError: No module named "
                                           "'accy_missing_dependency'"),
    ("hardening_pkg.broken:double", "hardening_pkg.broken: importing it raised ZeroDivisionError"),
])
def test_bad_sources_are_one_clear_error_line(source, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.py").write_text(GOOD_PY)
    (tmp_path / "not_a_sequence.py").write_text(GOOD_PY + "example_inputs = lambda: 5\n")
    (tmp_path / "raises_in_inputs.py").write_text(
        GOOD_PY + "def example_inputs():\n    raise ValueError('no inputs today')\n")
    (tmp_path / "raises_on_import.py").write_text("raise RuntimeError('boom at import')\n")
    package = tmp_path / "hardening_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "needs_missing.py").write_text("import accy_missing_dependency\n" + GOOD_PY)
    (package / "broken.py").write_text("1 / 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for command in ("compile", "run"):
        assert message in cli_error(capsys, command, source)


def test_an_existing_file_with_a_colon_in_its_path_is_an_ir_file(tmp_path, monkeypatch,
                                                                capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "co:lon").mkdir()
    (tmp_path / "co:lon" / "x.mlir").write_text(function_ir("x", "3x4"))
    assert main(["run", "co:lon/x.mlir", "--device", "emulator"]) == 0, capsys.readouterr().err
    assert "# ok: x on emulator matches the reference" in capsys.readouterr().out
    assert "SOURCE is" in cli_error(capsys, "run", "co:lon/missing.mlir")


def test_the_api_names_what_it_takes():
    import numpy as np
    import accy
    x = np.random.default_rng(4).standard_normal(6).astype(np.float32)
    with pytest.raises(accy.AccyError, match="takes a function, an accy.jit function or a "
                                             "module, got int"):
        accy.compile(42, x)
    with pytest.raises(accy.AccyError, match="target must be an arch name.*got int 90"):
        accy.compile(lambda x: x + 1, x, target=90)
    with pytest.raises(accy.AccyError, match="target must be an arch name.*got list"):
        accy.compile(lambda x: x + 1, x, target=["sm_90"])


def test_a_compile_inside_a_trace_cannot_use_the_outer_tensors():
    import numpy as np
    import accy
    x = np.random.default_rng(5).standard_normal(4).astype(np.float32)

    def outer(t):
        accy.compile(lambda y: y + t, x)        # t belongs to outer's trace
        return t * 2

    with pytest.raises(accy.AccyError, match=r"made in another accy.jit trace.*"
                                             r"\(at test_hardening_cli.py:\d+\)"):
        accy.compile(outer, x)
    exe = accy.compile(lambda t: t * 2, x)     # the failed trace left no state behind
    np.testing.assert_array_equal(exe.run(x, device="emulator"), x * 2)


def chain_module(allow_unregistered=False):
    import accy.ir as ir
    return ir.parse(function_ir("main", "6x10"), ir.Context(allow_unregistered=allow_unregistered))


@pytest.mark.parametrize("target, fails", [
    (None, False), ("sm_80", False), ({"arch": "sm_90", "math_tier": "fast"}, False),
    ("sm_1", True), ({"arch": "sm_90", "no_such_field": 1}, True),
])
def test_compile_leaves_the_callers_module_as_it_was(target, fails):
    import accy
    module = chain_module()
    text, fingerprint = module.print(), module.fingerprint()
    if fails:
        with pytest.raises(accy.AccyError):
            accy.compile(module, target=target)
    else:
        exe = accy.compile(module, target=target)
        import accy.ir as ir
        # the executable holds the compiled copy's text, never the caller's IR (nor any IR)
        assert not [v for v in vars(exe).values()
                    if isinstance(v, (ir.Module, ir.Operation, ir.Context))]
        assert "builtin.func" in exe.module_text
    assert module.print() == text and module.fingerprint() == fingerprint


def test_executables_of_one_module_own_their_modules():
    import numpy as np
    import accy
    module = chain_module(allow_unregistered=True)
    a, b = accy.compile(module, target="sm_80"), accy.compile(module, target="sm_90")
    assert a.target.arch == "sm_80" and "sm_80" in a.module_text
    assert b.target.arch == "sm_90" and "sm_80" not in b.module_text
    x = np.random.default_rng(6).standard_normal((6, 10)).astype(np.float32)
    for exe in (a, b):
        for device in ("emulator", "reference"):
            np.testing.assert_allclose(exe.run(x, device=device)[0], 2 * x, rtol=0)


def test_a_closed_bound_says_so():
    import numpy as np
    import accy
    x = np.random.default_rng(7).standard_normal((6, 10)).astype(np.float32)
    exe = accy.compile(chain_module())
    bound = exe.bind(x, device="emulator")
    bound.launch()
    np.testing.assert_allclose(bound.results()[0], 2 * x, rtol=0)
    bound.close()
    for call in (bound.launch, bound.results, lambda: bound.argument_address(0),
                 lambda: bound.result_address(0)):
        with pytest.raises(accy.AccyError, match="this Bound is closed"):
            call()
    bound.close()                                   # closing again does nothing
    with exe.bind(x, device="emulator") as again:   # the executable binds anew
        again.launch()
        np.testing.assert_allclose(again.results()[0], 2 * x, rtol=0)


def test_a_kernel_call_only_program_writes_no_empty_ptx(tmp_path, capsys):
    import json
    import numpy as np
    import accy
    import accy.ir as ir
    from test_compile import USER_PTX
    text = ("builtin.module ({\n"
            '  builtin.func <{function_type = (tensor<256xf32>) -> tensor<256xf32>, '
            'sym_name = "user"}> ({\n'
            "  ^bb0(%0: tensor<256xf32>):\n"
            "    %1 = tensor.kernel_call %0 <{block = [128, 1, 1], grid = [2, 1, 1], "
            f'kernel = "twice", ptx = {json.dumps(USER_PTX)}}}> : tensor<256xf32>\n'
            "    builtin.return %1\n"
            "  })\n"
            "})\n")
    (tmp_path / "user.mlir").write_text(text)
    out = tmp_path / "out"
    assert main(["compile", str(tmp_path / "user.mlir"), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert sorted(os.listdir(out)) == ["user.accy", "user.report.txt"]
    assert "no PTX written" in printed and "kernel twice: kernel_call" in printed
    (out / "user.ptx").write_text("an earlier run's PTX")
    assert main(["compile", str(tmp_path / "user.mlir"), "-o", str(out)]) == 0
    assert sorted(os.listdir(out)) == ["user.accy", "user.report.txt"]
    assert f"# removed {out / 'user.ptx'}" in capsys.readouterr().out
    exe = accy.compile(ir.parse(text, ir.Context()))
    assert exe.ptx == "" and [k.ptx for k in exe.kernels] == [USER_PTX]
    x = np.random.default_rng(8).standard_normal(256).astype(np.float32)
    np.testing.assert_array_equal(exe.run(x, device="emulator")[0], 2 * x)


def several_kinds(x, w, n):
    """A row pipeline, a matrix product, a reduction and a host loop: many analyses."""
    import accy.ops as ops
    y = ops.softmax(x @ w) * 2
    return ops.fori_loop(0, n, lambda i, c: c * 0.5 + y, y), y.sum(axis=1)


@pytest.mark.parametrize("limit", [{"max_analysis_entries": n} for n in range(0, 9)] +
                         [{"max_analysis_bytes": n} for n in (0, 64, 512, 2048, 8192, 32768)])
def test_compile_under_a_small_analysis_capacity(limit):
    """The analysis cache evicts (or cannot hold) the plans accy.compile takes: it compiles
    all the same, its kernels are lowered from the very plans the executable holds, and they
    compute the same."""
    import numpy as np
    import accy
    import accy.ir as ir
    from ptxas_check import assemble
    rng = np.random.default_rng(9)
    args = [rng.standard_normal((8, 24)).astype(np.float32),
            rng.standard_normal((24, 16)).astype(np.float32), np.asarray(3, np.int32)]
    module = accy.jit(several_kinds).lower(*args)
    small = module.clone(ir.Context(capacity=ir.Capacity(**limit)))
    from accy import compiler
    c = compiler.compilation(small)
    exe, outlines = c.executable, c.plans.outlines.kernels()
    assert len(c.kernelization.kernels) == len(exe.kernels) == len(outlines) > 0
    assert all(k.outline is o for k, o in zip(c.kernelization.kernels, outlines))
    assert exe.ptx == accy.compile(module).ptx
    assemble(exe.ptx)
    want = accy.compile(module).run(*args, device="reference")
    for got, expected in zip(exe.run(*args, device="emulator"), want):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
