"""The compiler's stage table (accy/compiler.py) and `accy compile --emit/--from`: every stage
of the transformer block prints, deterministically; compiling resumes from printed prepared
IR, kl and PTX to the same PTX; a stage's output that a compilation does not hold (never
reached, resumed past, or rewritten in place by a later stage) is a StageError that says
which, and the command line says the same in one line."""
import numpy as np
import pytest

from accy.compiler import STAGES, StageError, compilation, resume_kl, resume_ptx
from accy.examples import transformer
from accy.ir import parse
from accy.__main__ import main

from cli_helpers import cli_error

BLOCK = "accy.examples.transformer:block"
ARGS = transformer.example_inputs()


def block_compilation(stop="host"):
    return compilation(transformer.block, *ARGS, target="sm_90", stop=stop)


@pytest.fixture(scope="module")
def full():
    return block_compilation()


@pytest.mark.parametrize("stage", [s.name for s in STAGES])
def test_every_stage_prints_the_same_text_twice(stage):
    first, again = block_compilation(stage), block_compilation(stage)
    assert first.done[-1] == stage
    text = first.text(stage)
    assert text and text == again.text(stage)


def test_the_host_program_lists_the_blocks_launches_and_runs(full, rng):
    program = full.program
    text = full.text("host")
    launches = program.launches()
    assert text.startswith(f"host program: {len(program.slots)} slots")
    assert len(launches) == len(full.executable.kernels) >= 5
    for launch in launches:
        assert f"launch {launch.kernel} " in text and launch.kernel in full.ptx
    args = [a + 0.1 * rng.standard_normal(a.shape).astype(a.dtype) for a in ARGS]
    got = full.executable.run(*args, device="emulator")
    want = transformer.block_numpy(*args)
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64),
                               rtol=2e-3, atol=2e-3)


def test_compiling_resumes_from_printed_prepared_ir_kl_and_ptx(full, ptxas):
    prepared = block_compilation("prepared").text("prepared")
    again = compilation(parse(prepared), target="sm_90", start="prepared")
    assert again.ptx == full.ptx and again.text("host") == full.text("host")
    kl = block_compilation("kl").text("kl")
    assert resume_kl(kl, target="sm_90", stop="ptx").ptx == full.ptx
    cubin = resume_ptx(full.ptx, target={"arch": "sm_90", "artifact_format": "cubin"})
    assert cubin.cubin[:4] == b"\x7fELF"
    ptxas(full.ptx)


def test_a_stage_a_compilation_does_not_hold_is_a_stage_error(full):
    with pytest.raises(StageError, match="'kl' has not run"):
        block_compilation("plans").text("kl")
    with pytest.raises(StageError, match="'ptx' rewrote it in place"):
        full.text("kl")                 # legalized since: not what the kl stage printed
    with pytest.raises(StageError, match="'prepared' rewrote it in place"):
        full.text("tensor")
    with pytest.raises(StageError, match="no stage 'llvm'"):
        full.text("llvm")
    resumed = resume_kl(block_compilation("kl").text("kl"), target="sm_90", stop="ptx")
    for stage in ("tensor", "plans"):
        with pytest.raises(StageError, match="resumed from a later stage"):
            resumed.text(stage)
    with pytest.raises(StageError, match="needs the plans"):
        resumed.run("host")


def test_the_command_prints_a_stage_and_resumes_from_printed_kl(tmp_path, capsys, full):
    assert main(["compile", BLOCK, "--target", "sm_90", "--emit", "host"]) == 0
    assert capsys.readouterr().out == full.text("host")
    assert main(["compile", BLOCK, "--target", "sm_90", "--emit", "kl"]) == 0
    kl = tmp_path / "block.mlir"
    kl.write_text(capsys.readouterr().out)
    assert main(["compile", str(kl), "--from", "kl", "--target", "sm_90", "--emit", "ptx"]) == 0
    assert capsys.readouterr().out == full.ptx
    err = cli_error(capsys, "compile", str(kl), "--from", "kl", "--emit", "host",
                    one_line=True)
    assert "needs the plans" in err
    err = cli_error(capsys, "compile", str(kl), "--from", "kl", "--emit", "kl", one_line=True)
    assert "is not a stage after kl" in err
