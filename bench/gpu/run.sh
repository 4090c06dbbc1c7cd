#!/usr/bin/env bash
# The GPU check, on a machine with an NVIDIA GPU and no network access whose python3 (3.12)
# has torch, numpy, ml_dtypes, pytest and cython but no PyCUDA:
#   1. installs PyCUDA and what it needs from the wheels in wheels/ (made elsewhere by
#      bench/gpu/build_wheels.sh; pip install --no-index),
#   2. installs accy from this checkout (editable; else its Cython extension built in place),
#   3. runs the tests marked gpu (pytest -m gpu),
#   4. runs bench/gpu/check.py (accy's kernels against torch; its arguments are passed on),
#      which writes its table to $OUT/gpu_table.md when OUT is set.
#
#   bash bench/gpu/run.sh [check.py options, e.g. --scale 0.5]
#
# Settings (environment): PYTHON (default python3), WHEELS (default wheels/ in the checkout).
# Exits non-zero when a step fails; the check still runs after failing tests.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY=${PYTHON:-python3}
WHEELS=${WHEELS:-$ROOT/wheels}
cd "$ROOT"
step() { echo; echo "## $*"; }
die() { echo "run.sh: $*" >&2; exit 1; }

step "python: $("$PY" -V 2>&1) ($(command -v "$PY"))"
"$PY" -c 'import torch, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda,
"gpu", torch.cuda.get_device_name() if torch.cuda.is_available() else None)' \
    || die "$PY needs torch and numpy"

step "PyCUDA"
if "$PY" -c 'import pycuda' 2>/dev/null; then
    echo "already installed"
else
    ls "$WHEELS"/pycuda-*.whl >/dev/null 2>&1 || die "no PyCUDA wheel in $WHEELS: run \
bench/gpu/build_wheels.sh on a machine with network access and bring its wheels/ along"
    "$PY" -m pip install --quiet --no-index --find-links "$WHEELS" pycuda \
        || die "pip could not install PyCUDA from $WHEELS"
fi

step "accy (from $ROOT)"
if ! "$PY" -m pip install --quiet --no-build-isolation --no-deps -e "$ROOT"; then
    echo "an editable install failed; building the Cython extension in place"
    "$PY" setup.py --quiet build_ext --inplace || die "accy's extension does not build"
fi
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
"$PY" -c 'from accy.runtime.devices import open_device; open_device("cuda"); print("device cuda: ok")' \
    || die "accy cannot open the GPU"

status=0
step "pytest -m gpu"
"$PY" -m pytest -m gpu tests -q -rs -p no:cacheprovider -o addopts="" || status=1

step "bench/gpu/check.py $*"
PYTHONUNBUFFERED=1 "$PY" bench/gpu/check.py "$@" || status=1
exit $status
