"""Runs one of these TF 1.x benchmark scripts under TF 2.x as a TF1 user would today: `tensorflow` is
`tensorflow.compat.v1` with the v2 behaviour disabled, and `tf.keras` the legacy Keras of the `tf_keras`
package (TF_USE_LEGACY_KERAS=1). Used by benchmarks/_common.tf2_run.

    $TF2_PYTHON compat_v1.py SCRIPT [ARGS...]
"""
import os
import runpy
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
sys.modules["tensorflow"] = tf   # the script's `import tensorflow as tf`
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), sys.argv[1])
sys.argv = [script] + sys.argv[2:]
runpy.run_path(script, run_name="__main__")
