"""tf.train.Supervisor against TF 1.15 (tests/fixtures/distributed/record_supervisor.py): the default ops and
a finalized graph, managed_session's restore-or-init, the standard services' files and events (graph,
START, summaries, CHECKPOINT, STOP), the trained values; a second session restores the checkpoint."""
import glob
import json
import os
import re

import numpy as np
import pytest

import tinyflow as tf

TF = json.load(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                                 "distributed", "supervisor.json")))


def _run(logdir):
    tf.reset_default_graph()
    w = tf.Variable(np.ones(3, np.float32), name="w")
    gs = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(w * w)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    tf.summary.scalar("loss", loss)
    sv = tf.train.Supervisor(logdir=logdir)
    out = {"finalized": tf.get_default_graph().finalized, "save_path": os.path.basename(sv.save_path),
           "save_model_secs": sv.save_model_secs, "save_summaries_secs": sv.save_summaries_secs,
           "global_step": sv.global_step.name}
    with pytest.raises(RuntimeError) as e:
        tf.constant(1)
    out["finalized_error"] = str(e.value)
    with sv.managed_session() as sess:
        out["start_step"] = int(sess.run(gs))
        for _ in range(5):
            if sv.should_stop():
                break
            sess.run(train)
        out["end"] = [int(sess.run(gs)), sess.run(w).tolist()]
    out["should_stop"] = sv.should_stop()
    out["files"] = sorted(re.sub(r"tfevents\..*", "tfevents", f) for f in os.listdir(logdir))
    events = []
    for f in sorted(glob.glob(os.path.join(logdir, "events*"))):
        for ev in tf.train.summary_iterator(f):
            what = ev.WhichOneof("what")
            events.append([what, ev.session_log.status if what == "session_log" else
                           [v.tag for v in ev.summary.value] if what == "summary" else None])
    out["events"] = events
    return out, sess


def test_supervisor_trains_and_writes_as_tf(tmp_path):
    first, _ = _run(str(tmp_path))
    want = TF["first"]
    for key in ("finalized", "save_path", "save_model_secs", "save_summaries_secs", "global_step", "finalized_error",
                "start_step", "should_stop", "files", "events"):
        assert first[key] == want[key], key
    assert first["end"][0] == want["end"][0]
    np.testing.assert_allclose(first["end"][1], want["end"][1], rtol=1e-6)
    # a second supervisor restores the checkpoint of the first (TF's first save races the first steps:
    # its step is 0 or a little more; here the first save runs before the first step)
    second, _ = _run(str(tmp_path))
    assert second["start_step"] == 0 and second["end"][0] == 5
    assert set(TF["second_files"]) >= set(second["files"]) >= set(TF["first"]["files"])
    assert second["files"].count("events.out.tfevents") == 2


def test_an_error_in_the_block_stops_and_is_raised(tmp_path):
    tf.reset_default_graph()
    tf.Variable(1.0)
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
    with pytest.raises(ValueError, match="boom"):
        with sv.managed_session():
            raise ValueError("boom")
    assert sv.should_stop()
    tf.reset_default_graph()
    tf.Variable(1.0)
    sv = tf.train.Supervisor(logdir=None, save_model_secs=0)
    with sv.managed_session() as sess:   # an end of input ends training quietly, as in TF
        raise tf.errors.OutOfRangeError(None, None, "end of input")
    assert sv.should_stop() and sess._closed


def test_a_non_chief_alone_is_an_error():
    tf.reset_default_graph()
    tf.Variable(1.0)
    sv = tf.train.Supervisor(is_chief=False)
    with pytest.raises(tf.errors.UnavailableError, match="waits for a chief"):
        sv.prepare_or_wait_for_session()
