"""Blockers the end-to-end corpus (tools/corpus, docs/corpus.md) met in public TF1 programs, each reduced
to the TF1 idiom and checked against TF 1.15's numbers (tests/fixtures/corpus/make_sparse.py):
Kipf's GCN builds `tf.sparse_placeholder(tf.float32, shape=tf.constant(shape, tf.int64))`; GAT's sparse
variant multiplies a SparseTensor by dense tensors that broadcast to it (`adj * f`); both lean on
`tf.gather_nd` of a constant at indices known only at run time."""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tinyflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "corpus")
spec = importlib.util.spec_from_file_location("make_sparse", os.path.join(FIXTURES, "make_sparse.py"))
make_sparse = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_sparse)   # the same graph-building code the oracle ran (it imports numpy only)

with open(os.path.join(FIXTURES, "sparse.json")) as f:
    TF115 = json.load(f)


def test_sparse_placeholder_tensor_shape_and_sparse_dense_cwise_match_tf115():
    with tf.Graph().as_default():
        fetches, static, placeholders = make_sparse.build(tf)
        assert static == {k: TF115[k] for k in static}   # static shapes and the dense_shape op, as TF
        with tf.Session() as sess:
            out = sess.run(fetches, make_sparse.feed_dict(placeholders))
    for key, value in out.items():
        np.testing.assert_allclose(value, TF115[key], rtol=1e-6, err_msg=key)


def test_sparse_dense_cwise_rejects_a_dense_operand_of_higher_rank():
    sp = tf.SparseTensor([[0, 1]], [1.0], [3, 4])
    with pytest.raises(ValueError, match="SparseDenseCwiseMul"):
        sp * tf.zeros([2, 3, 4])


KERAS_SCRIPT = r'''
import tensorflow.keras as kr
print(kr.preprocessing.sequence.pad_sequences([[1, 2], [3]], 4).tolist())
'''


@pytest.mark.slow
def test_runner_aliases_tensorflow_keras_module(tmp_path):
    """gaussic's THUCNews CNN/RNN classifiers: `import tensorflow.keras as kr` (the declared tree serves it)."""
    script = tmp_path / "uses_tf_keras.py"
    script.write_text(KERAS_SCRIPT)
    out = subprocess.run([sys.executable, "-m", "tinyflow", str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[[0, 0, 1, 2], [0, 0, 0, 3]]"   # TF 1.15's


def test_sparse_retain_add_softmax_match_tf115():
    """tf.sparse_retain (GCN), tf.sparse_add and tf.sparse_softmax (GAT's sparse variant)."""
    with tf.Graph().as_default():
        fetches = make_sparse.build_missing(tf)
        with tf.Session() as sess:
            out = sess.run(fetches)
    for key, value in out.items():
        np.testing.assert_allclose(value, TF115["missing"][key], rtol=1e-6, err_msg=key)


def test_fill_and_random_ops_take_a_shape_fed_at_run_time():
    """GCN's sparse dropout draws `tf.random_uniform(noise_shape)` with noise_shape a placeholder (as does
    `tf.zeros(fed_shape)`): TF builds such shapes at run time; the op runs between jitted segments.
    A seeded draw gives the values of the same draw with the shape written in the graph."""
    n = tf.placeholder(tf.int32, [1])
    zeros, ones = tf.zeros(n), tf.fill(n, 2.0)
    fed = tf.random_uniform(n, seed=7)
    ints = tf.random_uniform(n, maxval=10, dtype=tf.int32, seed=3)
    with tf.Session() as sess:
        z, o, r, i = sess.run([zeros, ones, fed, ints], {n: [5]})
        assert sess.run(tf.shape(fed), {n: [3]}).tolist() == [3]
    with tf.Graph().as_default():
        static = tf.random_uniform([5], seed=7), tf.random_uniform([5], maxval=10, dtype=tf.int32, seed=3)
        with tf.Session() as sess:
            r_static, i_static = sess.run(static)
    np.testing.assert_array_equal(z, np.zeros(5, np.float32))
    np.testing.assert_array_equal(o, np.full(5, 2.0, np.float32))
    np.testing.assert_array_equal(r, r_static)
    np.testing.assert_array_equal(i, i_static)
