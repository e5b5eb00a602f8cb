"""What TF 1.15's environment ran, the runner runs (issue 27 item 8): `python -m tinyflow -m package.module args`,
numpy 1.x's names that numpy 2 removed (with one warning), and a hint naming the package when a script imports one
that TF 1.15's install always brought (six, termcolor, ...)."""
import subprocess
import pytest
import sys

MODULE = '''import sys
import numpy as np
import tensorflow as tf
x = np.zeros(3, dtype=np.float)
print("ARGV", sys.argv[1:], sys.argv[0].endswith("train.py"), __name__)
print("NP", x.dtype, np.asscalar(np.array([4])), np.int(2.7), np.object is object, np.NaN != np.NaN,
      np.cast[np.int32]([1.5]).dtype, np.product([2, 3]), np.float_ is np.float64)
with tf.Session() as s:
    print("TF", s.run(tf.constant(2.0) * 3))
'''


@pytest.mark.slow
def test_module_runs_with_numpy_1_names(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "train.py").write_text(MODULE)
    out = subprocess.run([sys.executable, "-m", "tinyflow", "-m", "pkg.train", "a", "--b"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ARGV ['a', '--b'] True __main__" in out.stdout
    assert "NP float64 4 2 True True int32 6 True" in out.stdout
    assert "TF 6.0" in out.stdout
    assert out.stderr.count("was removed in numpy 2") == 1 and "np.float was removed" in out.stderr
    missing = subprocess.run([sys.executable, "-m", "tinyflow", "-m", "pkg.nothere"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1 and "tinyflow: No module named pkg.nothere" in missing.stderr


def test_import_tinyflow_leaves_numpy_alone():
    code = "import tinyflow, numpy as np\nprint(hasattr(np, 'asscalar'))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr[-1500:]


def test_a_missing_tf1_environment_package_is_named(capsys):
    from tinyflow.cli.runner import print_trimmed_traceback
    try:
        raise ModuleNotFoundError("No module named 'termcolor'", name="termcolor")
    except ModuleNotFoundError as e:
        print_trimmed_traceback(e)
    err = capsys.readouterr().err
    assert "ModuleNotFoundError: No module named 'termcolor'" in err
    assert "termcolor came with TensorFlow 1.15" in err and "pip install termcolor" in err
