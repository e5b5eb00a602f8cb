"""TF1's queue-based input pipeline: queues, readers, producers, batching, runners, coordinator.

Behaviour (values, shapes, names, error classes and messages) as TF 1.15 shows it for the same
calls; the CSV pipeline is the classic script (string_input_producer -> TextLineReader ->
decode_csv -> shuffle_batch -> linear model), whose step count and solution TF 1.15 matches
(120 steps, w = [2, -3], b = 0.5)."""
import os
from paths import TESTS as _TESTS  # the tests/ folder
import threading
import time

import numpy as np
import pytest

import tinyflow as tf



@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


@pytest.fixture(autouse=True)
def no_hang():
    """A test that blocks on a queue fails after 60 s instead of hanging the suite."""
    import signal

    def fail(*_):
        raise TimeoutError("test blocked for 60 s")
    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def run_pipeline(sess, fetch, limit=10000):
    """Runs `fetch` with queue runners until OutOfRangeError; returns the values."""
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    out = []
    try:
        for _ in range(limit):
            out.append(sess.run(fetch))
    except tf.errors.OutOfRangeError:
        pass
    finally:
        coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
    return out


def test_fifo_queue_as_tf(graph):
    q = tf.FIFOQueue(3, [tf.int32], shapes=[[]])
    assert q.name == "fifo_queue" and q.dtypes == [tf.int32] and q.names is None
    enq = q.enqueue_many([[1, 2, 3]])
    dq, dqm = q.dequeue(), q.dequeue_many(2)
    assert dq.name == "fifo_queue_Dequeue:0" and dq.shape.as_list() == []
    assert dqm.name == "fifo_queue_DequeueMany:0" and dqm.shape.as_list() == [2]
    with tf.Session() as s:
        s.run(enq)
        assert s.run(q.size()) == 3
        assert s.run(dqm).tolist() == [1, 2]
        assert s.run(dq) == 3
        s.run(q.close())
        assert s.run(q.is_closed())
        with pytest.raises(tf.errors.OutOfRangeError, match="FIFOQueue '_0_fifo_queue' is closed and has "
                           r"insufficient elements \(requested 1, current size 0\)"):
            s.run(dq)
        with pytest.raises(tf.errors.CancelledError, match="FIFOQueue '_0_fifo_queue' is closed."):
            s.run(enq)


def test_queue_of_mixed_components_and_dequeue_up_to(graph):
    q2 = tf.FIFOQueue(10, [tf.float32, tf.string])
    assert [t.shape.ndims for t in q2.dequeue()] == [None, None]
    q3 = tf.FIFOQueue(5, tf.int32, shapes=[])
    named = tf.FIFOQueue(5, [tf.int32, tf.string], shapes=[[], []], names=["n", "s"])
    with tf.Session() as s:
        s.run(q2.enqueue([1.0, "a"]))
        assert s.run(q2.dequeue()) == [1.0, b"a"]
        s.run(q3.enqueue_many([[1, 2]]))
        s.run(q3.close())
        with pytest.raises(tf.errors.OutOfRangeError, match=r"requested 3, current size 2"):
            s.run(q3.dequeue_many(3))
        assert s.run(q3.dequeue_up_to(3)).tolist() == [1, 2]
        s.run(named.enqueue({"n": 4, "s": "x"}))
        assert s.run(named.dequeue()) == {"n": 4, "s": b"x"}
    with pytest.raises(ValueError, match="do not match names"):
        named.enqueue({"n": 1})


def test_random_shuffle_queue_keeps_min_after_dequeue(graph):
    q = tf.RandomShuffleQueue(20, 5, tf.int32, shapes=[[]], seed=3)
    with tf.Session() as s:
        s.run(q.enqueue_many([list(range(10))]))
        first = s.run(q.dequeue_many(5))  # 5 may leave: 5 remain
        assert s.run(q.size()) == 5
        s.run(q.close())
        rest = s.run(q.dequeue_up_to(10))
    got = list(first) + list(rest)
    assert sorted(got) == list(range(10)) and got != list(range(10))


def test_string_input_producer_epochs(graph):
    fq = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    assert fq.name == "input_producer"
    assert [v.name for v in tf.local_variables()] == ["input_producer/limit_epochs/epochs:0"]
    assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 1
    d = fq.dequeue()
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        assert run_pipeline(s, d) == [b"a", b"b", b"c", b"a", b"b", b"c"]


def test_shuffled_epochs_are_permutations(graph):
    items = [str(i) for i in range(8)]
    fq = tf.train.string_input_producer(items, num_epochs=3, shuffle=True, seed=5)
    d = fq.dequeue()
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        got = [x.decode() for x in run_pipeline(s, d)]
    assert len(got) == 24
    epochs = [got[i:i + 8] for i in (0, 8, 16)]
    assert all(sorted(e) == items for e in epochs) and epochs[0] != items


def test_uninitialized_epochs_is_reported_by_join(graph):
    d = tf.train.string_input_producer(["a"], num_epochs=1).dequeue()
    with tf.Session() as s:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(s, coord)
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(d)  # the runner failed and cancelled the queue
        with pytest.raises(tf.errors.FailedPreconditionError, match="epochs"):
            coord.join(threads, stop_grace_period_secs=10)


def test_slice_input_producer(graph):
    n, w = tf.train.slice_input_producer([tf.constant([1, 2, 3]), tf.constant(["x", "y", "z"])], num_epochs=1,
                                         shuffle=False)
    assert n.shape.as_list() == [] and n.dtype == tf.int32 and w.dtype == tf.string
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        assert run_pipeline(s, [n, w]) == [[1, b"x"], [2, b"y"], [3, b"z"]]


def test_batch_structure_names_and_shapes(graph):
    x = tf.constant([1.0, 2.0, 3.0])
    b = tf.train.batch([x], 2)
    assert isinstance(b, tf.Tensor) and b.name == "batch:0" and b.shape.as_list() == [2, 3]
    d = tf.train.batch({"a": x, "b": tf.constant(1)}, 2)
    assert d["a"].name == "batch_1:0" and d["b"].name == "batch_1:1" and d["b"].shape.as_list() == [2]
    small = tf.train.batch([x, tf.constant("s")], 4, allow_smaller_final_batch=True)
    assert [t.shape.as_list() for t in small] == [[None, 3], [None]]
    with tf.Session() as s:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(s, coord)
        vb, vd, vs = s.run([b, d, small])
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert vb.shape == (2, 3) and vd["b"].tolist() == [1, 1]
    assert vs[1].tolist() == [b"s"] * 4


def test_allow_smaller_final_batch(graph):
    idx = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
    b = tf.train.batch([idx], 2, allow_smaller_final_batch=True)
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        assert [v.tolist() for v in run_pipeline(s, b)] == [[0, 1], [2, 3], [4]]


def write_csvs(directory, rng):
    files = []
    for k in range(2):
        p = os.path.join(directory, "part%d.csv" % k)
        files.append(p)
        with open(p, "w") as f:
            f.write("x1,x2,y\n")
            for _ in range(20):
                x1, x2 = rng.uniform(-1, 1, 2)
                f.write("%.4f,%.4f,%.4f\n" % (x1, x2, 2 * x1 - 3 * x2 + 0.5))
    return files


@pytest.mark.slow
def test_classic_csv_pipeline_trains_a_linear_model(graph, tmp_path):
    files = write_csvs(str(tmp_path), np.random.RandomState(0))
    fq = tf.train.string_input_producer(files, num_epochs=30, shuffle=True, seed=1)
    reader = tf.TextLineReader(skip_header_lines=1)
    key, value = reader.read(fq)
    x1, x2, y = tf.decode_csv(value, [[0.0], [0.0], [0.0]])
    xb, yb = tf.train.shuffle_batch([tf.stack([x1, x2]), y], batch_size=10, capacity=200, min_after_dequeue=50,
                                    seed=2)
    assert xb.shape.as_list() == [10, 2] and yb.shape.as_list() == [10]
    w = tf.Variable(tf.zeros([2, 1]))
    b = tf.Variable(0.0)
    loss = tf.reduce_mean(tf.square(tf.squeeze(tf.matmul(xb, w), 1) + b - yb))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        steps = 0
        try:
            while not coord.should_stop():
                sess.run(train)
                steps += 1
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        got_w, got_b = sess.run([w, b])
    assert steps == 120  # 2 files x 20 rows x 30 epochs / 10, as TF 1.15 (w=[2, -3.0001], b=0.50003)
    np.testing.assert_allclose(got_w.ravel(), [2.0, -3.0], atol=1e-3)
    assert got_b == pytest.approx(0.5, abs=1e-3)


def test_reader_keys_and_whole_file_reader(graph, tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("h\nl1\nl2\n")
    q = tf.train.string_input_producer([str(p)], num_epochs=1, shuffle=False)
    key, value = tf.TextLineReader(skip_header_lines=1).read(q)
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        lines = run_pipeline(s, [key, value])
    # a graph of its own: start_queue_runners starts every runner of a graph, and a second pipeline's
    # runner started (and stopped) with the first one may have spent its one epoch already
    with tf.Graph().as_default():
        q2 = tf.train.string_input_producer([str(p)], num_epochs=1, shuffle=False)
        name, contents = tf.WholeFileReader().read(q2)
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            whole = run_pipeline(s, [name, contents])
    assert lines == [[("%s:2" % p).encode(), b"l1"], [("%s:3" % p).encode(), b"l2"]]
    assert whole == [[str(p).encode(), b"h\nl1\nl2\n"]]


def test_tfrecord_reader_with_parse_example(graph):
    path = os.path.join(_TESTS, "fixtures", "strings", "examples.tfrecord")
    q = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
    _, serialized = tf.TFRecordReader().read(q)
    batch = tf.train.batch([serialized], 3)
    parsed = tf.parse_example(batch, {"id": tf.FixedLenFeature([], tf.int64),
                                      "xy": tf.FixedLenFeature([2], tf.float32)})
    total = tf.reduce_sum(parsed["xy"]) + tf.cast(tf.reduce_sum(parsed["id"]), tf.float32)
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        got = run_pipeline(s, [parsed["id"], total])
    assert len(got) == 1 and got[0][0].tolist() == [0, 1, 2]
    q2 = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
    key, _ = tf.TFRecordReader().read(q2)
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        keys = run_pipeline(s, key)
    assert keys == [("%s:%d" % (path, off)).encode() for off in (0, 81, 165)]  # byte offsets, as TF
    assert got[0][1] == pytest.approx(0 + 0 + 0.5 - 1 + 1 - 2 + 3)


def test_request_stop_releases_a_blocked_enqueue(graph):
    q = tf.FIFOQueue(2, tf.int32, shapes=[])
    enq = q.enqueue(1)
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [enq, enq]))
    with tf.Session() as s:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(s, coord)
        deadline = time.time() + 10
        while s.run(q.size()) < 2 and time.time() < deadline:
            time.sleep(0.01)
        assert s.run(q.size()) == 2  # full: both threads are blocked in enqueue
        t0 = time.time()
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        assert time.time() - t0 < 5
        assert not any(t.is_alive() for t in threads)


def test_coordinator_reports_exceptions(graph):
    coord = tf.train.Coordinator()

    def work():
        with coord.stop_on_exception():
            raise ValueError("boom")
    t = threading.Thread(target=work)
    t.start()
    with pytest.raises(ValueError, match="boom"):
        coord.join([t])
    coord2 = tf.train.Coordinator()
    coord2.request_stop(tf.errors.OutOfRangeError(None, None, "done"))
    coord2.join([])  # the end of the input is a clean stop
    assert coord2.should_stop()


def test_monitored_session_runs_queue_runners(graph):
    """As in TF, a MonitoredSession initializes local variables, starts the queue runners, and ends
    its with-block quietly when the input runs out."""
    d = tf.train.string_input_producer(["a", "b"], num_epochs=2, shuffle=False).dequeue()
    got = []
    with tf.train.MonitoredSession() as sess:
        while not sess.should_stop():
            got.append(sess.run(d))
    assert got == [b"a", b"b", b"a", b"b"]


def test_match_filenames_once_feeds_a_producer(graph, tmp_path):
    for n in ("b.csv", "a.csv", "c.txt"):
        (tmp_path / n).write_text("1\n")
    names = tf.train.match_filenames_once(str(tmp_path / "*.csv"))
    q = tf.train.string_input_producer(names, num_epochs=1, shuffle=False)
    _, line = tf.TextLineReader().read(q)
    with tf.Session() as s:
        s.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        assert [os.path.basename(x.decode()) for x in s.run(names)] == ["a.csv", "b.csv"]
        assert run_pipeline(s, line) == [b"1", b"1"]


def test_a_step_whose_dequeue_fails_changes_nothing(graph):
    q = tf.FIFOQueue(4, tf.float32, shapes=[])
    v = tf.Variable(0.0)
    step = tf.assign_add(v, q.dequeue())
    with tf.Session() as s:
        s.run(v.initializer)
        s.run(q.enqueue_many([[1.0, 2.0]]))
        s.run(q.close())
        assert s.run(step) == 1.0 and s.run(step) == 3.0
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(step)
        assert s.run(v) == 3.0


def test_group_of_host_and_jitted_ops(graph):
    q = tf.FIFOQueue(4, tf.string, shapes=[])
    v = tf.Variable(0)
    both = tf.group(q.enqueue("x"), tf.assign_add(v, 1))
    with tf.Session() as s:
        s.run(v.initializer)
        s.run(both)
        s.run(both)
        assert s.run(q.size()) == 2 and s.run(v) == 2


def test_pipeline_graph_saves_and_runs_after_import_meta_graph(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("1,2\n3,4\n")
    g = tf.Graph()
    with g.as_default():
        q = tf.train.string_input_producer([str(data)], num_epochs=1, shuffle=False)
        _, line = tf.TextLineReader().read(q)
        a, b = tf.decode_csv(line, [[0], [0]])
        tf.train.batch([a + b], 2, name="total")
        w = tf.Variable(1)
        with tf.Session() as s:
            s.run(w.initializer)
            path = tf.train.Saver().save(s, str(tmp_path / "model"))
    g2 = tf.Graph()
    with g2.as_default():
        saver = tf.train.import_meta_graph(path + ".meta")
        assert len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)) == 2
        with tf.Session() as s:
            saver.restore(s, path)
            s.run(tf.local_variables_initializer())
            got = run_pipeline(s, "total:0")
    assert [v.tolist() for v in got] == [[3, 7]]


def test_a_starved_dequeue_warns(graph, monkeypatch):
    from tinyflow.ops import queue_ops
    monkeypatch.setattr(queue_ops, "_PATIENCE", 0.05)
    q = tf.FIFOQueue(2, tf.int32, shapes=[])
    d = q.dequeue()
    with tf.Session() as s:
        threading.Timer(0.3, lambda: s.run(q.enqueue(5))).start()
        with pytest.warns(RuntimeWarning, match="are its queue runners started"):
            assert s.run(d) == 5
