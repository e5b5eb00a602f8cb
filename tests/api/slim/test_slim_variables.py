"""slim's variable helpers and tf.contrib.framework against TF 1.15
(tests/fixtures/slim/variables_oracle.py printed the answers asserted here)."""
import os

import numpy as np
import pytest

import tinyflow as tf
import tinyflow.api.contrib.framework as framework
import tinyflow.api.contrib.slim as slim

CKPT = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "slim", "net.ckpt")


def names(vs):
    return [v.op.name for v in vs]


def test_variable_queries_match_tf():
    with tf.Graph().as_default():
        with tf.variable_scope("a"):
            slim.model_variable("weights", [2, 3], initializer=tf.ones_initializer())
            b = slim.variable("bias", [3], collections=["extra"])
            slim.local_variable(0.0, name="count")
        with tf.variable_scope("b"):
            slim.model_variable("weights", [1], trainable=False)
        gs = framework.get_or_create_global_step()
        assert names(slim.get_variables()) == ["a/weights", "b/weights", "global_step"]
        assert names(slim.get_variables("a")) == ["a/weights"]
        assert names(slim.get_model_variables()) == ["a/weights", "b/weights"]
        assert names(slim.get_trainable_variables()) == ["a/weights", "a/bias"]
        assert names(slim.get_local_variables()) == ["a/count"]
        assert names(tf.get_collection("extra")) == ["a/bias"]
        assert names(slim.get_variables_by_name("weights")) == ["a/weights", "b/weights"]
        assert names(slim.get_variables_by_suffix("ights")) == ["a/weights", "b/weights"]
        assert names(slim.get_variables_to_restore(include=["a"], exclude=["a/bias"])) == ["a/weights"]
        assert slim.get_unique_variable("b/weights").op.name == "b/weights"
        assert names(framework.filter_variables(slim.get_variables(), include_patterns=["weights"],
                                                exclude_patterns=["^b"])) == ["a/weights"]
        assert gs.op.name == "global_step" and framework.get_global_step() is gs
        with pytest.raises(ValueError, match="Couldn't find variable nope"):
            slim.get_unique_variable("nope")
        with pytest.raises(TypeError, match="include is provided but is not a list or a tuple."):
            slim.get_variables_to_restore(include="a")
        op, feed = slim.assign_from_checkpoint(CKPT, {"logits/biases": b})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(b.assign([5.0, 5.0, 5.0]))
            sess.run(op, feed)
            np.testing.assert_array_equal(sess.run(b), [0.0, 0.0, 0.0])


def test_checkpoint_reading():
    assert framework.list_variables(CKPT)[:3] == [("conv1/conv1_1/BatchNorm/beta", [4]),
                                                 ("conv1/conv1_1/BatchNorm/gamma", [4]),
                                                 ("conv1/conv1_1/BatchNorm/moving_mean", [4])]
    np.testing.assert_array_equal(framework.load_variable(CKPT, "logits/biases"), [0.0, 0.0, 0.0])


def test_assign_from_checkpoint_fn_missing_variables():
    with tf.Graph().as_default():
        with tf.variable_scope("logits"):
            slim.model_variable("biases", [3], initializer=tf.ones_initializer())
            slim.model_variable("not_in_ckpt", [1])
        with pytest.raises(ValueError):
            slim.assign_from_checkpoint(CKPT, slim.get_model_variables())
        fn = slim.assign_from_checkpoint_fn(CKPT, slim.get_model_variables(), ignore_missing_vars=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            fn(sess)
            np.testing.assert_array_equal(sess.run("logits/biases:0"), [0.0, 0.0, 0.0])


def test_framework_nest_and_helpers():
    assert framework.nest.is_sequence([1, 2]) and not framework.nest.is_sequence(1)
    assert framework.nest.flatten({"a": (1, 2), "b": 3}) == [1, 2, 3]
    with tf.Graph().as_default():
        with tf.name_scope("outer"):
            assert framework.get_name_scope() == "outer"
        assert framework.is_tensor(tf.constant(1.0)) and not framework.is_tensor(1.0)
