"""Seeded random ops draw TF 1.15's values bit for bit (ops/philox.py): the cases of
tests/fixtures/random/make_tf115.py, built the same way under tinyflow, against what TF recorded
(tf115.npz), run after run."""
import importlib.util
import os

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "random")
_spec = importlib.util.spec_from_file_location("make_tf115", os.path.join(HERE, "make_tf115.py"))
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)
RECORDED = dict(np.load(os.path.join(HERE, "tf115.npz")))
NOT_TF = set()


def _wrong(got, names):
    wrong = []
    for k, ref in sorted(RECORDED.items()):
        if k.split("/")[0] not in names:
            continue
        v = got[k]
        if v.dtype != ref.dtype or v.shape != ref.shape or not np.array_equal(v, ref):
            wrong.append("%s: %s vs TF %s" % (k, v.ravel()[:3], ref.ravel()[:3]))
    return wrong


def test_op_seeded_cases_in_one_graph():
    """Op-seeded ops of every kind in one graph and one jitted function, run twice: each op's
    stream advances by its own executions (odd sizes: the 4-wide blocks and Box-Muller pairs cut)."""
    names = ["uniform_range_11", "uniform_int32_9", "normal_f32_5", "dropout", "shuffle",
             "shuffle_rows"]   # truncated: the slow test
    with tf.Graph().as_default():
        fetches = [eval(make.CASES[n][1])(tf) for n in names]
        with tf.Session() as sess:
            runs = [sess.run(fetches) for _ in range(2)]
    got = {"%s/%d/%d" % (n, r, i): v for r, values in enumerate(runs)
           for n, vs in zip(names, values) for i, v in enumerate(vs)}
    got = {k: v for k, v in got.items() if k in RECORDED}
    assert not _wrong(got, set(names)), "\n".join(_wrong(got, set(names)))


def test_a_run_of_other_ops_does_not_advance_an_op():
    """TF's generator is the op's own: running another fetch set in between leaves it where it was."""
    with tf.Graph().as_default():
        a = tf.random_uniform([7], seed=66478)
        b = tf.random_normal([5], seed=7)
        with tf.Session() as sess:
            first = sess.run(a)
            sess.run(b)
            sess.run(b)
            second = sess.run(a)
    np.testing.assert_array_equal(first, RECORDED["uniform_f32_7/0/0"])
    np.testing.assert_array_equal(second, RECORDED["uniform_f32_7/1/0"])


@pytest.mark.slow
def test_every_case_matches_tf_bit_for_bit():
    """All cases, each its own graph and session (graph seeds, initializers, layers): every run."""
    got = make.record(tf)
    assert set(got) == set(RECORDED)
    wrong = _wrong(got, set(make.CASES) - NOT_TF)
    assert not wrong, "\n".join(wrong)


def test_graph_seed_alone_gives_tf_op_seeds():
    """With only the graph seed set, an op's seed is the graph's op count when it is made, as TF's
    (graph._last_id, each variable's /read counted): TF 1.15 gave these seed pairs."""
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        h = tf.layers.dense(tf.layers.dense(tf.placeholder(tf.float32, [None, 5]), 4), 3)
        tf.get_variable("v", [2, 3], initializer=tf.truncated_normal_initializer(stddev=0.1))
        tf.nn.dropout(h, rate=0.5)
        seeds = [(op.attrs["seed"], op.attrs["seed2"]) for op in g.get_operations()
                 if op.type in ("RandomUniform", "TruncatedNormal")]
    assert seeds == [(1, 4), (1, 20), (1, 36), (1, 46)]
    assert tf.random.get_seed(2 ** 31 + 5)[1] == 6   # truncated modulo 2^31 - 1, as TF does
