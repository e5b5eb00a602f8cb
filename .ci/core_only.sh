#!/usr/bin/env bash
# CI, a plain install: a clean virtualenv with only `pip install .` (the core dependencies: jax, jaxlib,
# numpy, optax, protobuf, google-crc32c, absl-py, pillow, six, termcolor) plus pytest. It runs the declared core subset of the
# suite against the INSTALLED package (a copy of tests/ outside the checkout, so the checkout's source
# is never imported): saving and restoring checkpoints, meta graphs, GraphDefs, event files, TF 1.15's
# files both ways. A test that needs an extra skips and says why (-rs). Then examples/mlp.py and
# examples/estimator.py train on a small IDX data set written here (their default data needs sklearn).
#     .ci/core_only.sh            (VENV=/tmp/tf-core-venv by default; $TINYFLOW_CORE_VENV to change)
# Fails when any step fails. Most of its time is pip installing jax and jaxlib (see the timings printed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${TINYFLOW_CORE_VENV:-/tmp/tf-core-venv}"
WORK="$(mktemp -d /tmp/tf-core-run.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
# the core subset: every TF file format, read and written (keep it short: the install dominates)
CORE_TESTS=(
    tests/api/test_tffiles_checkpoint.py tests/api/test_tffiles_meta.py tests/api/test_tffiles_graph_def.py
    tests/api/test_tffiles_untrusted.py tests/api/test_tffiles_fuzz.py tests/api/test_tffiles_filewriter.py
    tests/api/test_app_summary.py tests/api/test_idioms_summary.py tests/api/test_formats_tf115.py
    tests/api/test_strings_tfrecord.py tests/api/test_image_decode_resize.py
)

start=$SECONDS
rm -rf "$VENV"
python -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "$ROOT" pytest
echo "core_only: clean venv + pip install . pytest: $((SECONDS - start)) s"

# nothing beyond the core dependencies came in (an extra would hide what a plain install lacks)
"$VENV/bin/python" - <<'EOF'
import importlib.util
extras = [m for m in ("tensorboard", "tensorflow", "sklearn", "hypothesis", "pandas", "matplotlib")
          if importlib.util.find_spec(m) is not None]
assert not extras, "the core-only virtualenv holds extras: %s" % extras
EOF

cp -r "$ROOT/tests" "$ROOT/examples" "$WORK/"
cp "$ROOT/pyproject.toml" "$WORK/"   # pytest's settings (rootdir, -q)
cd "$WORK"
"$VENV/bin/python" -c "import tinyflow, sys; assert tinyflow.__file__.startswith(sys.prefix), tinyflow.__file__"
t=$SECONDS
"$VENV/bin/python" -m pytest -p no:cacheprovider -rs "${CORE_TESTS[@]}"
echo "core_only: core subset of the tests: $((SECONDS - t)) s"

# the examples, on a small IDX data set (8x8 images whose bright row is the label)
t=$SECONDS
"$VENV/bin/python" - "$WORK/idx" <<'EOF'
import os, struct, sys
import numpy as np
out = sys.argv[1]
os.makedirs(out)
rng = np.random.RandomState(0)
for prefix, n in (("train", 600), ("t10k", 100)):
    labels = rng.randint(0, 8, n).astype(np.uint8)
    images = (rng.rand(n, 8, 8) * 60).astype(np.uint8)
    images[np.arange(n), labels, :] = 250
    for kind, data in (("images-idx3", images), ("labels-idx1", labels)):
        with open(os.path.join(out, "%s-%s-ubyte" % (prefix, kind)), "wb") as f:
            f.write(struct.pack(">HBB", 0, 8, data.ndim) + struct.pack(">" + "I" * data.ndim, *data.shape))
            f.write(data.tobytes())
EOF
"$VENV/bin/python" examples/mlp.py --data_dir "$WORK/idx" --epochs 2 --checkpoint_dir "$WORK/mlp"
"$VENV/bin/python" examples/estimator.py --data_dir "$WORK/idx" --epochs 1 --model_dir "$WORK/est"
# what they left: TF's checkpoints and meta graphs, and event files holding the Estimator's summaries
"$VENV/bin/python" - "$WORK" <<'EOF'
import glob, os, sys
import tinyflow as tf
work = sys.argv[1]
assert glob.glob(os.path.join(work, "mlp", "*.index")), "examples/mlp.py left no checkpoint"
for model in ("premade", "custom"):
    d = os.path.join(work, "est", model)
    assert tf.train.latest_checkpoint(d) and glob.glob(os.path.join(d, "*.meta")), d
    tags = set()
    for path in glob.glob(os.path.join(d, "**", "events.out.tfevents.*"), recursive=True):
        tags |= {v.tag for e in tf.train.summary_iterator(path) for v in e.summary.value}
    assert {"loss", "accuracy"} <= tags, (d, sorted(tags))
print("core_only: checkpoints, meta graphs and event files (%s) of the examples read back" % sorted(tags))
EOF
echo "core_only: examples/mlp.py and examples/estimator.py: $((SECONDS - t)) s"
echo "core_only: all passed in $((SECONDS - start)) s"
