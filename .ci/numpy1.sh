#!/usr/bin/env bash
# CI, the oldest supported stack: numpy 1.26 with jax/jaxlib 0.7.1 (the newest jax that installs with
# numpy 1; pip resolves it for `numpy<2`) in a clean virtualenv with `pip install .` plus pytest. It
# runs a short subset of the suite against the INSTALLED package (a copy of tests/ outside the
# checkout): what differs on that jaxlib (XLA compiler options it lacks), control flow, unknown
# dimensions, image decoding (Pillow is core), exit behaviours, checkpoints.
#     .ci/numpy1.sh               (VENV=/tmp/tf-numpy1-venv by default; $TINYFLOW_NUMPY1_VENV to change)
# Fails when any step fails. A fresh virtualenv's install takes most of its time (3-4 min here, mostly
# downloads); a kept one ~20 s, and the tests ~1 min on 2 busy cores (see the timings printed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${TINYFLOW_NUMPY1_VENV:-/tmp/tf-numpy1-venv}"
WORK="$(mktemp -d /tmp/tf-numpy1-run.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
STACK=("numpy==1.26.4" "jax==0.7.1" "jaxlib==0.7.1")
TESTS=(
    tests/lower/test_compiler_options.py tests/ops/test_control_flow.py tests/api/test_unknown_dims_tf115.py
    tests/api/test_image_decode_resize.py tests/api/test_tf1_program_blockers.py tests/api/test_tffiles_checkpoint.py
)

start=$SECONDS
# the stack is pinned, so a virtualenv left by an earlier run that holds it is reused (only tinyflow is
# installed again): downloading jaxlib and scipy is most of a fresh one's time
if ! "$VENV/bin/python" -c "import numpy, jax, jaxlib, pytest
assert (numpy.__version__, jax.__version__, jaxlib.__version__) == ('1.26.4', '0.7.1', '0.7.1')" 2>/dev/null; then
    rm -rf "$VENV"
    python -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check "${STACK[@]}" "$ROOT" pytest
echo "numpy1: venv + pip install ${STACK[*]} . pytest: $((SECONDS - start)) s"
"$VENV/bin/python" - <<'PY'
import jax, numpy
assert numpy.__version__.startswith("1.26"), numpy.__version__
assert jax.__version__ == "0.7.1", jax.__version__
PY

cp -r "$ROOT/tests" "$WORK/"
cp "$ROOT/pyproject.toml" "$WORK/"   # pytest's settings (rootdir, -q)
cd "$WORK"
"$VENV/bin/python" -c "import tinyflow, sys; assert tinyflow.__file__.startswith(sys.prefix), tinyflow.__file__"
t=$SECONDS
"$VENV/bin/python" -m pytest -p no:cacheprovider -rs -m "not slow" "${TESTS[@]}"
echo "numpy1: the subset of the tests: $((SECONDS - t)) s"
echo "numpy1: all passed in $((SECONDS - start)) s"
