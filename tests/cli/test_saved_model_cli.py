"""python -m tinyflow.cli.saved_model_cli prints what TF 1.15's saved_model_cli prints (its output for the
fixture recorded below) and runs a signature on literal inputs."""
import os

import numpy as np

from tinyflow.cli import saved_model_cli

D = os.path.join(os.path.dirname(__file__), "..", "fixtures", "saved_model")

# TF 1.15: saved_model_cli show --dir tf_two_tags --tag_set serve --signature_def serving_default
TF_SHOW_SIGNATURE = """The given SavedModel SignatureDef contains the following input(s):
  inputs['x'] tensor_info:
      dtype: DT_FLOAT
      shape: (-1, 3)
      name: x:0
The given SavedModel SignatureDef contains the following output(s):
  outputs['y'] tensor_info:
      dtype: DT_FLOAT
      shape: (-1, 2)
      name: y:0
Method name is: tensorflow/serving/predict
"""


def test_show_as_tf(capsys):
    assert saved_model_cli.main(["show", "--dir", os.path.join(D, "tf_two_tags")]) == 0
    assert capsys.readouterr().out == "The given SavedModel contains the following tag-sets:\nserve\ngpu, train\n"
    saved_model_cli.main(["show", "--dir", os.path.join(D, "tf_two_tags"), "--tag_set", "serve", "--signature_def",
                          "serving_default"])
    assert capsys.readouterr().out == TF_SHOW_SIGNATURE
    assert saved_model_cli.main(["show", "--dir", os.path.join(D, "tf_two_tags"), "--tag_set", "nope"]) == 1
    assert "could not be found in SavedModel" in capsys.readouterr().err


def test_run_prints_and_saves(capsys, tmp_path):
    args = ["run", "--dir", os.path.join(D, "tf_simple"), "--tag_set", "serve", "--signature_def", "serving_default",
            "--input_exprs", "x=[[1.0,2.0,3.0]]"]
    assert saved_model_cli.main(args) == 0
    # TF 1.15's saved_model_cli run prints [[-1.156911   1.7540227]] and [[0.05161571 0.9483843 ]]
    assert "Result for output key logits:\n[[-1.156911   1.7540227]]" in capsys.readouterr().out
    assert saved_model_cli.main(args + ["--outdir", str(tmp_path)]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "probs.npy"), [[0.05161571, 0.9483843]], rtol=1e-6)
    assert saved_model_cli.main(args[:-2] + ["--input_exprs", "x=__import__('os')"]) == 1  # literals only


def test_tf1_saved_model_imports_under_the_runner(tmp_path):
    """A TF1 serving script's imports (tensorflow.python.saved_model.*, tensorflow.contrib.predictor) run."""
    import subprocess
    import sys
    script = tmp_path / "s.py"
    script.write_text(
        "from tensorflow.python.saved_model import tag_constants, signature_constants\n"
        "from tensorflow.python.saved_model import builder as saved_model_builder\n"
        "from tensorflow.contrib import predictor\n"
        "import tensorflow as tf\n"
        "assert saved_model_builder.SavedModelBuilder is tf.saved_model.builder.SavedModelBuilder\n"
        "p = predictor.from_saved_model(%r, tags=[tag_constants.SERVING],\n"
        "                               signature_def_key=signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY)\n"
        "probs = p({'x': [[1.0, 2.0, 3.0]]})['probs']\n"
        "print('OUT', [[round(float(v), 5) for v in row] for row in probs])\n" % os.path.join(D, "tf_simple"))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], env=dict(os.environ, PYTHONPATH=root),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "OUT [[0.05162, 0.94838]]" in out.stdout  # TF 1.15's probs for this input
