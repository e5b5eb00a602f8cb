"""tf.logging as TF 1.15's: the logger "tensorflow", `INFO:tensorflow:` lines on stderr, log_every_n /
log_first_n per calling line; the Estimator's and MonitoredTrainingSession's hooks log TF's lines
(checked against TF 1.15's lines for the same run: tests/fixtures/logging/estimator_tf.log)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf
from paths import ROOT, TESTS

FIXTURES = os.path.join(TESTS, "fixtures", "logging")


def _run(code_or_args, *, env=None):
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    environ = dict(os.environ, PYTHONPATH=ROOT, **(env or {}))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=environ,
                          timeout=300)


@pytest.mark.slow
def test_logging_writes_tf_lines_to_stderr_from_info_after_set_verbosity():
    out = _run("import tinyflow as tf\n"
               "tf.logging.info('hidden %d', 1)\n"          # Python's default level: WARN
               "tf.logging.warning('careful %s', 'now')\n"
               "tf.logging.set_verbosity(tf.logging.INFO)\n"
               "tf.logging.info('step %d', 7)\n"
               "tf.logging.vlog(tf.logging.DEBUG, 'debug hidden')\n"
               "tf.logging.TaskLevelStatusMessage('status')\n"
               "print(tf.logging.get_verbosity(), tf.get_logger().name)\n")
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == ["WARNING:tensorflow:careful now", "INFO:tensorflow:step 7",
                                       "ERROR:tensorflow:status"]
    assert out.stdout.split() == [str(tf.logging.INFO), "tensorflow"]


@pytest.mark.slow
def test_logging_leaves_a_configured_root_logger_to_print():
    out = _run("import logging, tinyflow as tf\n"
               "logging.basicConfig(format='root %(name)s %(message)s')\n"
               "tf.logging.warn('once')\n")
    assert out.stderr.splitlines() == ["root tensorflow once"]   # not twice


def test_log_every_n_and_first_n_count_per_line(caplog):
    tf.logging.set_verbosity(tf.logging.INFO)
    try:
        with caplog.at_level(tf.logging.INFO, logger="tensorflow"):
            for i in range(7):
                tf.logging.log_every_n(tf.logging.INFO, "every %d", 3, i)
                tf.logging.log_first_n(tf.logging.INFO, "first %d", 2, i)
            tf.logging.log_if(tf.logging.INFO, "if %s", False, "no")
            tf.logging.log_if(tf.logging.INFO, "if %s", True, "yes")
    finally:
        tf.logging.set_verbosity(tf.logging.WARN)
    messages = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
    # TF 1.15's lines for this loop: its counter is keyed by the frame that called the caller, so the two
    # calls of one function share it (recorded with the oracle)
    assert messages == ["every 0", "first 0", "every 3", "every 6", "if yes"]
    with pytest.raises(NotImplementedError):
        tf.logging.flush()
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR, tf.logging.FATAL) == (
        10, 20, 30, 40, 50)


def _shape(line):
    """A log line with its numbers, dates and the model folder taken out: what must match TF's."""
    if line.startswith("INFO:tensorflow:Using config: "):
        return "INFO:tensorflow:Using config: {...}"
    return re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", line)


@pytest.mark.slow
def test_estimator_logs_tf_lines(tmp_path):
    """The same Estimator run logs TF 1.15's lines, in TF's order, and saves without a RuntimeWarning."""
    model_dir = str(tmp_path / "model")
    out = _run(["-W", "error::RuntimeWarning", "-m", "tinyflow", os.path.join(FIXTURES, "estimator_run.py"),
                model_dir])
    assert out.returncode == 0, out.stderr[-3000:]
    ours = [line.replace(model_dir, "MODEL_DIR") for line in out.stderr.splitlines()]
    assert "Warning" not in out.stderr
    with open(os.path.join(FIXTURES, "estimator_tf.log")) as f:
        tf_lines = f.read().splitlines()
    # TF writes the evaluation's checkpoint path as a text summary; tinyflow's eval summaries are scalars
    tf_lines = [line for line in tf_lines if "'checkpoint_path' summary" not in line]
    assert [_shape(line) for line in ours if line.startswith("INFO:tensorflow:")] == [_shape(x) for x in tf_lines]
    # the numbers TF logs for the same data and initial weights (float32 rounding aside)
    losses = [float(m) for m in re.findall(r"loss = ([\d.e-]+), step", out.stderr)]
    tf_losses = [float(m) for m in re.findall(r"loss = ([\d.e-]+), step", "\n".join(tf_lines))]
    np.testing.assert_allclose(losses, tf_losses, rtol=1e-5)


def test_monitored_training_session_logs_saves_and_step_rate(tmp_path, caplog):
    step = tf.train.get_or_create_global_step()
    v = tf.Variable(1.0)
    train = tf.group(tf.assign_add(v, 1.0), tf.assign_add(step, 1))
    tf.logging.set_verbosity(tf.logging.INFO)
    try:
        with caplog.at_level(tf.logging.INFO, logger="tensorflow"):
            with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_checkpoint_steps=3,
                                                   log_step_count_steps=2,
                                                   hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
                while not sess.should_stop():
                    sess.run(train)
    finally:
        tf.logging.set_verbosity(tf.logging.WARN)
    lines = [_shape(r.getMessage().replace(str(tmp_path), "DIR")) for r in caplog.records if r.name == "tensorflow"]
    assert lines == ["Create CheckpointSaverHook.", "Graph was finalized.", "Running local_init_op.",
                     "Done running local_init_op.", "Saving checkpoints for N into DIR/model.ckpt.",
                     "global_step/sec: N", "Saving checkpoints for N into DIR/model.ckpt.", "global_step/sec: N",
                     "Saving checkpoints for N into DIR/model.ckpt."]
    saves = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Saving")]
    assert [int(s.split()[3]) for s in saves] == [0, 3, 5]


def test_logging_tensor_hook_line_has_tf_shape(caplog):
    x = tf.Variable(0.5)
    step = tf.train.get_or_create_global_step()
    inc = tf.assign_add(step, 1)
    hook = tf.train.LoggingTensorHook({"x": x, "b": tf.constant([1e-9, 2.0])}, every_n_iter=2)
    tf.logging.set_verbosity(tf.logging.INFO)
    try:
        with caplog.at_level(tf.logging.INFO, logger="tensorflow"):
            with tf.train.MonitoredSession(hooks=[hook]) as sess:
                for _ in range(3):
                    sess.run(inc)
    finally:
        tf.logging.set_verbosity(tf.logging.WARN)
    lines = [r.getMessage() for r in caplog.records if "x = " in r.getMessage()]
    assert lines[0] == "b = [0. 2.], x = 0.5"   # sorted tags, numpy printed with suppress=True, as TF
    assert re.fullmatch(r"b = \[0\. 2\.\], x = 0\.5 \(\d+\.\d{3} sec\)", lines[1])
