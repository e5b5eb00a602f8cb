"""The conv net of tests/fixtures/tf1/make.py, built with tinyflow (same names, same ops)."""
import json
import os

import numpy as np

import tinyflow as tf

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "tf1")


def data():
    with np.load(os.path.join(FIX, "data.npz"), allow_pickle=False) as z:
        return z["x"], z["y"], z["x_test"]


def expected():
    with open(os.path.join(FIX, "expected.json")) as f:
        return json.load(f)


def convnet():
    """Returns (x, y, probs, loss, train_op) in the default graph."""
    x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    with tf.variable_scope("conv"):
        w = tf.get_variable("w", [3, 3, 1, 4])
        b = tf.get_variable("b", [4])
        h = tf.nn.bias_add(tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME"), b)
    with tf.variable_scope("bn"):
        gamma = tf.get_variable("gamma", [4])
        beta = tf.get_variable("beta", [4])
        mean = tf.get_variable("moving_mean", [4], trainable=False)
        var = tf.get_variable("moving_variance", [4], trainable=False)
        h, _, _ = tf.nn.fused_batch_norm(h, gamma, beta, mean, var, epsilon=1e-3, is_training=False)
    h = tf.nn.relu(h)
    h = tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    h = tf.reshape(h, [-1, 64])
    with tf.variable_scope("fc"):
        w2 = tf.get_variable("w", [64, 3])
        b2 = tf.get_variable("b", [3])
        logits = tf.nn.bias_add(tf.matmul(h, w2), b2, name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    loss = tf.losses.softmax_cross_entropy(y, logits)
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=step, name="train_op")
    return x, y, probs, loss, train_op
