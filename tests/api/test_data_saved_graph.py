"""A graph that reads a Dataset saves without a warning: the iterator (a Python object of the running
program) is left out of tinyflow's JSON graph, and running the loaded graph's IteratorGetNext says so."""
import warnings

import numpy as np
import pytest

import tinyflow as tf


def test_saver_skips_iterators_quietly_and_the_loaded_op_says_it_was_not_saved(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices(np.arange(4.0, dtype=np.float32))
    it = ds.make_initializable_iterator()
    one_shot = ds.make_one_shot_iterator().get_next()
    v = tf.Variable(2.0)
    y = it.get_next() * v
    with tf.Session() as sess, warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning about the iterator
        sess.run([tf.global_variables_initializer(), it.initializer])
        assert sess.run([y, one_shot]) == [0.0, 0.0]
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(path + ".meta")
    g = tf.get_default_graph()
    assert g.get_tensor_by_name(y.name).op.type == "Mul"
    with tf.Session() as sess:
        saver.restore(sess, path)
        assert sess.run(g.get_tensor_by_name(v.name)) == 2.0
        with pytest.raises(tf.errors.FailedPreconditionError, match="its iterator was not saved in the graph file"):
            sess.run(g.get_tensor_by_name(y.name))
