"""TF 1.15's tf.data.experimental transformations tinyflow adds in data/sampling.py, checked against what
they must give (numpy / counting)."""
import sqlite3

import numpy as np
import pytest

import tinyflow as tf

X = tf.data.experimental


def _values(datasets, n=50):
    nexts = [d.make_one_shot_iterator().get_next() for d in datasets]
    out = [[] for _ in datasets]
    with tf.Session() as sess:
        for i, nxt in enumerate(nexts):
            try:
                for _ in range(n):
                    out[i].append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                pass
    return out


def test_transformations(tmp_path):
    tf.reset_default_graph()
    db = str(tmp_path / "t.sqlite")
    con = sqlite3.connect(db)
    con.execute("create table t (a text, b integer, c real)")
    con.executemany("insert into t values (?, ?, ?)", [("x", 1, 0.5), ("y", 2, 1.5)])
    con.commit()
    con.close()
    reducer = X.Reducer(lambda key: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s * 10)
    got = _values([
        tf.data.Dataset.range(10).apply(X.take_while(lambda x: x < 4)),
        tf.data.Dataset.range(10).apply(X.group_by_reducer(lambda x: x % 3, reducer)),
        tf.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0, 4.0]).map(
            lambda x: tf.check_numerics(1.0 / x, "inf")).apply(X.ignore_errors()),
        X.sample_from_datasets([tf.data.Dataset.from_tensors(np.int64(1)).repeat(6),
                                tf.data.Dataset.from_tensors(np.int64(2)).repeat(4)], [0.3, 0.7], seed=1),
        X.SqlDataset("sqlite", db, "select a, b, c from t", (tf.string, tf.int32, tf.float64)),
        tf.data.Dataset.range(400).apply(X.rejection_resample(lambda x: tf.cast(x % 4 // 3, tf.int32), [0.5, 0.5],
                                                              seed=2)),
        X.RandomDataset(seed=4).take(3),
    ], n=400)
    assert got[0] == [0, 1, 2, 3]
    assert got[1] == [180, 120, 150]   # keys in first-seen order: 0 (0+3+6+9), 1 (1+4+7), 2 (2+5+8)
    np.testing.assert_allclose(got[2], [1.0, 0.5, 0.25])
    assert sorted(got[3]) == [1] * 6 + [2] * 4   # every element of both, interleaved at random
    assert got[3] != sorted(got[3])
    assert [(a, int(b), float(c)) for a, b, c in got[4]] == [(b"x", 1, 0.5), (b"y", 2, 1.5)]
    classes = np.array([c for c, _ in got[5]])
    assert all(c == x % 4 // 3 for c, x in got[5])
    assert 0.35 < classes.mean() < 0.65   # resampled from 1/4 of class 1 towards 1/2
    assert len(set(got[6])) == 3


def test_cardinality_and_errors():
    tf.reset_default_graph()
    D = tf.data.Dataset
    counts = [X.cardinality(d) for d in (D.range(10).batch(3), D.range(10).batch(3, drop_remainder=True),
                                         D.range(10).repeat(), D.range(10).filter(lambda x: x > 2),
                                         D.from_tensor_slices(np.zeros((7, 2))).skip(2).take(3),
                                         D.zip((D.range(4), D.range(9).repeat(2))), D.range(3).concatenate(D.range(2)),
                                         D.range(10).map(lambda x: x * 2).shard(3, 1))]
    with tf.Session() as sess:
        assert [int(c) for c in sess.run(counts)] == [4, 3, X.INFINITE_CARDINALITY, X.UNKNOWN_CARDINALITY, 3, 4, 5, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="not supported by SqlDataset"):
        X.SqlDataset("mysql", "db", "select 1", tf.int32)
    with pytest.raises(ValueError, match="scalar boolean"):
        D.range(3).apply(X.take_while(lambda x: x + 1))
