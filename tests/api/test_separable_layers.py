"""tf.layers.separable_conv2d / SeparableConv1D / separable_conv1d against TF 1.15's outputs and variable
names and shapes for fixed kernels (tests/fixtures/conv3d/make_separable.py)."""
import os

import numpy as np

import tinyflow as tf

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "conv3d", "separable.npz"))


def test_separable_layers_match_tf():
    a = tf.layers.separable_conv2d(tf.constant(F["x2"]), 4, (3, 2), strides=(2, 2), padding="same", depth_multiplier=2,
                                   depthwise_initializer=tf.constant_initializer(F["dk2"]),
                                   pointwise_initializer=tf.constant_initializer(F["pk2"]),
                                   bias_initializer=tf.constant_initializer(0.25), activation=tf.nn.relu)
    b = tf.layers.SeparableConv1D(5, 3, dilation_rate=2, depthwise_initializer=tf.constant_initializer(F["dk1"]),
                                  pointwise_initializer=tf.constant_initializer(F["pk1"])).apply(tf.constant(F["x1"]))
    c = tf.layers.separable_conv1d(tf.constant(F["x1"]), 5, 3, strides=2, padding="same",
                                   depthwise_initializer=tf.constant_initializer(F["dk1"]),
                                   pointwise_initializer=tf.constant_initializer(F["pk1"]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([a, b, c])
    for g, k in zip(got, ["sep2", "sep1", "sep1s"]):
        np.testing.assert_allclose(g, F[k], rtol=1e-4, atol=1e-5, err_msg=k)
    assert [v.name for v in tf.global_variables()] == list(F["names"])
    assert [str(v.shape.as_list()) for v in tf.global_variables()] == list(F["shapes"])


def test_compute_average_loss_and_input_spec_as_tf():
    loss = tf.constant([1.0, 2.0, 4.0])
    with tf.Session() as s:
        got = s.run([tf.nn.compute_average_loss(loss), tf.nn.compute_average_loss(loss, sample_weight=[0.5, 1.0, 2.0]),
                     tf.nn.compute_average_loss(loss, global_batch_size=8),
                     tf.nn.compute_average_loss(tf.constant([[1.0, 3.0], [2.0, 2.0]]), sample_weight=0.5)])
    np.testing.assert_allclose(got, [2.3333333, 3.5, 0.875, 2.0], rtol=1e-6)   # TF 1.15's numbers
    spec = tf.layers.InputSpec(ndim=4, axes={-1: 3})
    assert (spec.ndim, spec.axes, spec.shape, spec.dtype) == (4, {-1: 3}, None, None)
    assert repr(spec) == "InputSpec(ndim=4, axes={-1: 3})"
    assert tf.layers.InputSpec(shape=(None, 3)).ndim == 2
