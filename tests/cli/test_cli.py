"""The command lines: --help and --version on every entry point (runner, memory, coverage) without a
traceback; the runner's help names the tools and every TINYFLOW_* setting; uncaught errors show the
user's frames (all with TINYFLOW_FULL_TRACEBACK=1); python -m tinyflow.memory aliases tensorflow as the
runner does; install hints name packages that resolve to the right project."""
import os
import re
import subprocess
import sys

import pytest

import tinyflow
from paths import ROOT
from tinyflow.cli import coverage, memory, runner

PACKAGE = os.path.join(ROOT, "tinyflow")
VERSION_LINE = re.compile(r"tinyflow %s \(TensorFlow 1\.15\.\d+ API, jax [\d.]+\w*\)" % re.escape(
    tinyflow.TINYFLOW_VERSION))


def _python(*args, env=None, cwd=ROOT):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          env=dict(os.environ, PYTHONPATH=ROOT, **(env or {})))


def _package_sources():
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name)) as f:
                    yield os.path.join(folder, name), f.read()


@pytest.mark.parametrize("main", [runner.main, memory.main])
@pytest.mark.parametrize("option", ["--version", "-V"])
def test_version(main, option, capsys):
    assert main([option]) == 0
    assert VERSION_LINE.fullmatch(capsys.readouterr().out.strip())


def test_coverage_help_and_version(capsys):
    for option in ("--help", "--version"):
        with pytest.raises(SystemExit) as e:
            coverage.main([option])
        assert e.value.code == 0
    out = capsys.readouterr().out
    assert "usage: python -m tinyflow.coverage" in out and "--missing MODULE" in out
    assert VERSION_LINE.search(out)


def test_runner_help_lists_the_tools_and_every_setting(capsys):
    assert runner.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert "python -m tinyflow.memory" in text and "python -m tinyflow.coverage" in text and "--version" in text
    read = set()
    for _, source in _package_sources():   # every TINYFLOW_* the package reads from the environment
        read |= set(re.findall(r"\b(TINYFLOW_[A-Z0-9_]+)", source))
    read -= {"TINYFLOW_VERSION"}   # tinyflow's version constant, not a setting
    assert read and all(re.search(r"^  %s\b" % name, text, re.M) for name in read), sorted(read)


def test_memory_help_and_bad_arguments(capsys):
    assert memory.main(["--help"]) == 0
    assert ("usage: python -m tinyflow.memory [--plot DIR] [--planner FILE|NAME] [--csv DIR] [--solution FILE]"
            in capsys.readouterr().out)
    with pytest.raises(SystemExit, match="unknown option --bad"):
        memory.main(["--bad"])
    with pytest.raises(SystemExit, match="no script missing.py"):
        memory.main(["missing.py"])
    with pytest.raises(SystemExit, match="no script missing.py"):
        runner.main(["missing.py"])
    with pytest.raises(SystemExit, match="unknown option --bad"):
        runner.main(["--bad", "x.py"])


def test_install_hints_name_packages_that_resolve_to_the_right_project():
    """`tinyflow` on the package index is another project: never `pip install 'tinyflow[...]'`."""
    bad = [path for path, source in _package_sources() if re.search(r"pip install [\"']?tinyflow\[", source)]
    assert bad == []
    with open(os.path.join(PACKAGE, "ops", "image_codec_ops.py")) as f:
        assert "pip install pillow" in f.read()


_FAILING = """import tensorflow as tf

def build():
    return tf.placeholder(tf.float32, [2]) * 2

y = build()
with tf.Session() as sess:
    sess.run(y)
"""


@pytest.mark.slow
def test_uncaught_error_shows_the_users_frames(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_FAILING)
    out = _python("-m", "tinyflow", str(script))
    assert out.returncode == 1 and out.stdout == ""
    frames = re.findall(r'^  File "([^"]+)", line (\d+)', out.stderr, re.M)
    assert frames == [(str(script), "8")]   # the script's line, not runpy's or the Session's
    assert "tinyflow.graph.errors.InvalidArgumentError: You must feed a value for placeholder tensor" in out.stderr
    assert "TINYFLOW_FULL_TRACEBACK=1" in out.stderr
    full = _python("-m", "tinyflow", str(script), env={"TINYFLOW_FULL_TRACEBACK": "1"})
    assert full.returncode == 1 and "runpy" in full.stderr and os.path.join("tinyflow", "runtime") in full.stderr


@pytest.mark.slow
def test_entry_points_answer_help_and_version_as_processes():
    # (every option of every entry point is checked in-process above: one of each kind as a process here)
    for module, option in (("tinyflow", "-V"), ("tinyflow.memory", "--help"), ("tinyflow.coverage", "--version")):
        out = _python("-m", module, option)
        assert out.returncode == 0 and "Traceback" not in out.stderr, (module, option, out.stderr)
        assert ("usage:" in out.stdout) if option == "--help" else VERSION_LINE.fullmatch(out.stdout.strip())
    table = _python("-m", "tinyflow.coverage")   # the old path runs the module with its own __file__
    assert table.returncode == 0 and "| `tf.flags` |" in table.stdout, table.stderr


@pytest.mark.slow
def test_memory_runs_a_compat_v1_script(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import tensorflow.compat.v1 as tf\n"
                      "from tensorflow.compat.v1 import layers\n"
                      "x = tf.placeholder(tf.float32, [4, 3])\n"
                      "y = layers.dense(x, 2)\n"
                      "with tf.Session() as s:\n"
                      "    s.run(tf.global_variables_initializer())\n"
                      "    print(s.run(y, {x: [[1.0] * 3] * 4}).shape)\n")
    out = _python("-m", "tinyflow.memory", str(script))
    assert out.returncode == 0, out.stderr
    assert "(4, 2)" in out.stdout and "[1]" in out.stdout and "[2]" in out.stdout   # its two fetch sets' reports
