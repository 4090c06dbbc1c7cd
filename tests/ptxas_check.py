"""The tests' one ptxas check: every emitted PTX text a test touches is assembled for sm_80
and sm_90 (its `.target` line set to each), with no errors, no warnings and no register
spills; each distinct text once per session. ptxas is found as accy finds it (PATH, then the
nvidia-cuda-nvcc wheel) and is required: an unchecked kernel would pass silently."""
import os
import re
import subprocess
import tempfile

from accy.lowering.ptxas import find_ptxas

PTXAS = find_ptxas()
ARCHS = ("sm_80", "sm_90")
_DONE = set()


def assemble(ptx):
    if not ptx or ptx in _DONE:
        return
    assert PTXAS, "ptxas is needed to check emitted PTX (CUDA toolkit or nvidia-cuda-nvcc)"
    with tempfile.TemporaryDirectory() as folder:
        for arch in ARCHS:
            path = os.path.join(folder, f"{arch}.ptx")
            with open(path, "w", encoding="utf-8") as f:
                f.write(re.sub(r"^\.target sm_\d+a?", f".target {arch}", ptx, flags=re.M))
            done = subprocess.run([PTXAS, f"-arch={arch}", "-v", path, "-o",
                                   os.path.join(folder, "k.cubin")], capture_output=True,
                                  text=True)
            assert done.returncode == 0, f"ptxas -arch={arch} rejects:\n{done.stderr[-3000:]}"
            assert "warning" not in done.stderr.lower(), f"ptxas -arch={arch}:\n{done.stderr}"
            spills = re.findall(r"(\d+) bytes spill (?:stores|loads)", done.stderr)
            assert all(s == "0" for s in spills), f"spills for {arch}:\n{done.stderr}"
    _DONE.add(ptx)
