"""CIFAR-10 tutorial-style CNN (conv 5x5 64, max-pool 3x3/2, LRN, conv 5x5 64, LRN, max-pool 3x3/2,
dense 384, 192, softmax), on random 24x24x3 images: the layout of TF's cifar10 tutorial model."""
import numpy as np
import tensorflow as tf

from _timing import Steps

BATCH, STEPS = 64, 20


def conv(x, shape, name):
    with tf.variable_scope(name):
        w = tf.get_variable("w", shape, initializer=tf.truncated_normal_initializer(stddev=5e-2))
        b = tf.get_variable("b", [shape[-1]], initializer=tf.constant_initializer(0.1))
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], padding="SAME"), b))


def dense(x, n, name, relu=True):
    with tf.variable_scope(name):
        w = tf.get_variable("w", [x.shape[1].value, n], initializer=tf.truncated_normal_initializer(stddev=0.04))
        b = tf.get_variable("b", [n], initializer=tf.constant_initializer(0.1))
        y = tf.matmul(x, w) + b
        return tf.nn.relu(y) if relu else y


def main():
    rng = np.random.RandomState(0)
    images = rng.rand(BATCH * 4, 24, 24, 3).astype(np.float32)
    labels = rng.randint(0, 10, BATCH * 4).astype(np.int64)
    x = tf.placeholder(tf.float32, [BATCH, 24, 24, 3])
    y = tf.placeholder(tf.int64, [BATCH])
    h = conv(x, [5, 5, 3, 64], "conv1")
    h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], padding="SAME")
    h = tf.nn.lrn(h, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    h = conv(h, [5, 5, 64, 64], "conv2")
    h = tf.nn.lrn(h, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], padding="SAME")
    h = dense(tf.reshape(h, [BATCH, -1]), 384, "local3")
    h = dense(h, 192, "local4")
    logits = dense(h, 10, "softmax_linear", relu=False)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    steps = Steps()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(STEPS):
            j = (i % 4) * BATCH
            feed = {x: images[j:j + BATCH], y: labels[j:j + BATCH]}
            value = steps.run(lambda: sess.run([train, loss], feed)[1])
    steps.report(loss=float(value))


if __name__ == "__main__":
    main()
