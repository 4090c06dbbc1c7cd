"""The cases of the StableHLO corpus (tests/stablehlo/, written by tools/stablehlo_corpus.py):
for each NAME, `NAME.mlir` (the pretty form JAX prints), `NAME.generic.mlir` (the same module in
MLIR's generic form) and `NAME.npz`, which holds

- `arg0`, `arg1`, ...: the inputs, in the order of `main`'s arguments;
- `out0`, `out1`, ...: JAX's outputs, in the order of `main`'s results;
- `finite`: a bool scalar, false where the case makes NaN or inf outputs on purpose.

numpy's .npy format has no bfloat16, so a bf16 array is stored as its bits (uint16) under the
name with `.bf16` appended (`arg1.bf16`); `load_case` gives it back as ml_dtypes.bfloat16. Every
other array has its own dtype (float32, float16, int32, uint32, uint8, bool).
"""
import pathlib
import re
from typing import NamedTuple

import ml_dtypes
import numpy as np

CORPUS = pathlib.Path(__file__).parent / "stablehlo"


class Case(NamedTuple):
    pretty: str
    generic: str
    inputs: list
    outputs: list
    finite: bool


def names():
    """Every case, by its .npz."""
    return sorted(p.name[:-len(".npz")] for p in CORPUS.glob("*.npz"))


def read_arrays(path):
    """name -> array of an .npz in the corpus's layout, bf16 bits viewed as bf16."""
    arrays = {}
    with np.load(path, allow_pickle=False) as data:
        for key in data.files:
            name, _, tag = key.partition(".")
            if tag not in ("", "bf16"):
                raise ValueError(f"{path.name}: entry {key!r} has an unknown dtype tag")
            arrays[name] = data[key].view(ml_dtypes.bfloat16) if tag else data[key]
    return arrays


def numbered(arrays, prefix):
    count = sum(bool(re.fullmatch(prefix + r"\d+", key)) for key in arrays)
    return [arrays[f"{prefix}{k}"] for k in range(count)]      # a gap is a KeyError


def load_case(name):
    arrays = read_arrays(CORPUS / f"{name}.npz")
    return Case((CORPUS / f"{name}.mlir").read_text(),
                (CORPUS / f"{name}.generic.mlir").read_text(),
                numbered(arrays, "arg"), numbered(arrays, "out"), bool(arrays["finite"]))
