"""tf.contrib.slim against TF 1.15 (tests/fixtures/slim/make_slim_fixture.py wrote the numbers and
the checkpoint): a small CNN under arg_scope gives TF's variables, collections and outputs, and
create_train_op gives TF's losses."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf
import tinyflow.api.contrib.slim as slim

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "slim")
FIX = json.load(open(os.path.join(HERE, "slim_net.json")))
CKPT = os.path.join(HERE, "net.ckpt")


def net(x, is_training, keep_prob=0.5):
    # the same network as make_slim_fixture.py
    with slim.arg_scope([slim.conv2d, slim.fully_connected, slim.separable_conv2d],
                        weights_regularizer=slim.l2_regularizer(0.0005), normalizer_fn=slim.batch_norm,
                        normalizer_params={"is_training": is_training, "decay": 0.9, "scale": True}):
        with slim.arg_scope([slim.max_pool2d], padding="SAME"), \
                slim.arg_scope([slim.conv2d], outputs_collections="end_points"):
            h = slim.repeat(x, 2, slim.conv2d, 4, [3, 3], scope="conv1")
            h = slim.max_pool2d(h, [2, 2], scope="pool1")
            h = slim.conv2d(h, 6, [3, 3], rate=2, scope="conv2")
            h = slim.avg_pool2d(h, 2)
            h = slim.separable_conv2d(h, 8, [3, 3], depth_multiplier=2, scope="sep")
            h = slim.flatten(h)
            h = slim.stack(h, slim.fully_connected, [16, 12], scope="fc")
            h = slim.dropout(h, keep_prob, is_training=is_training)
            return slim.fully_connected(h, 3, activation_fn=None, normalizer_fn=None, scope="logits")


def test_variables_and_collections_match_tf():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 8, 8, 3])
        net(x, False)
        names = [[v.op.name, v.shape.as_list()] for v in tf.global_variables()]
        assert names == FIX["variables"]
        assert [v.op.name for v in slim.get_model_variables()] == FIX["model_variables"]
        assert [v.op.name for v in tf.trainable_variables()] == FIX["trainable"]
        assert len(tf.losses.get_regularization_losses()) == FIX["regularization_losses"]
        assert sorted(slim.utils.convert_collection_to_dict("end_points")) == FIX["end_points"]
        restore = [v.op.name for v in slim.get_variables_to_restore(exclude=["logits"])]
        assert restore == FIX["to_restore_excl_logits"]
        assert list(slim.arg_scoped_arguments(slim.conv2d)) == FIX["arg_scoped_conv2d"]


def test_inference_from_tf_checkpoint():
    x_val = np.array(FIX["x"], np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 8, 8, 3])
        logits = net(x, False)
        init_fn = slim.assign_from_checkpoint_fn(CKPT, slim.get_variables_to_restore())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            init_fn(sess)
            out = sess.run(logits, {x: x_val})
    np.testing.assert_allclose(out, FIX["logits_inference"], rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_create_train_op_losses_match_tf():
    x_val = np.array(FIX["x"], np.float32)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [4, 8, 8, 3])
        logits = net(x, True, keep_prob=1.0)
        slim.losses.sparse_softmax_cross_entropy(logits, np.array(FIX["labels"]))
        total = slim.losses.get_total_loss()
        train_op = slim.learning.create_train_op(total, tf.train.GradientDescentOptimizer(0.1),
                                                 clip_gradient_norm=5.0)
        init_fn = slim.assign_from_checkpoint_fn(CKPT, slim.get_model_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            init_fn(sess)
            losses = [float(sess.run(train_op, {x: x_val})) for _ in range(3)]
            step = sess.run(tf.train.get_global_step())
            mean = sess.run(g.get_tensor_by_name("conv2/BatchNorm/moving_mean:0"))
    np.testing.assert_allclose(losses, FIX["train_losses"], rtol=1e-4)
    assert step == FIX["global_step"]
    np.testing.assert_allclose(mean, FIX["moving_mean_conv2"], rtol=1e-4, atol=1e-6)


def test_conv2d_transpose_in_plane_unit_norm_softmax():
    x_val = np.array(FIX["x"], np.float32)
    with tf.Graph().as_default():
        y = slim.conv2d_transpose(tf.constant(x_val[:, :4, :4, :]), 2, [3, 3], stride=2,
                                  weights_initializer=tf.constant_initializer(0.1), scope="deconv")
        z = slim.unit_norm(tf.constant(x_val[0, 0]), 1)
        s = slim.softmax(tf.constant(x_val[0, 0]))
        inplane = slim.conv2d_in_plane(tf.constant(x_val), [2, 3], stride=2,
                                       weights_initializer=tf.constant_initializer([[1.0, -2.0, 0.5], [0.3, 0.0, 1.5]]),
                                       biases_initializer=tf.constant_initializer(0.1))
        assert [[v.op.name, v.shape.as_list()] for v in tf.global_variables()] == FIX["deconv_vars"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            yv, zv, sv, iv = sess.run([y, z, s, inplane])
    np.testing.assert_allclose(yv, FIX["deconv"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(zv, FIX["unit_norm"], rtol=1e-5)
    np.testing.assert_allclose(sv, FIX["softmax"], rtol=1e-5)
    np.testing.assert_allclose(iv, FIX["in_plane"], rtol=1e-5, atol=1e-6)


if __name__ == "__main__":
    pytest.main([__file__])
