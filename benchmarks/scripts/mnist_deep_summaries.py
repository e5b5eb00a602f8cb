"""Deep MNIST tutorial (conv 5x5 32, pool, conv 5x5 64, pool, dense 1024, dropout, softmax; Adam) on
random 28x28 images, writing a scalar and histogram summaries every step, and evaluating accuracy."""
import shutil
import tempfile

import numpy as np
import tensorflow as tf

from _timing import Steps

BATCH, STEPS = 50, 20


def weight(shape):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def conv_pool(x, w, b):
    h = tf.nn.relu(tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME") + b)
    return tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def main():
    rng = np.random.RandomState(0)
    images = rng.rand(BATCH * 4, 784).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, BATCH * 4)]
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    keep_prob = tf.placeholder(tf.float32)
    w1, w2, w3, w4 = weight([5, 5, 1, 32]), weight([5, 5, 32, 64]), weight([7 * 7 * 64, 1024]), weight([1024, 10])
    h = conv_pool(tf.reshape(x, [-1, 28, 28, 1]), w1, bias([32]))
    h = conv_pool(h, w2, bias([64]))
    h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 64]), w3) + bias([1024]))
    logits = tf.matmul(tf.nn.dropout(h, keep_prob), w4) + bias([10])
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=logits))
    train = tf.train.AdamOptimizer(1e-4).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1)), tf.float32))
    tf.summary.scalar("cross_entropy", loss)
    for name, v in (("conv1", w1), ("conv2", w2), ("fc1", w3), ("fc2", w4)):
        tf.summary.histogram(name, v)
    tf.summary.histogram("activations", h)
    merged = tf.summary.merge_all()
    logdir = tempfile.mkdtemp()
    steps = Steps()
    try:
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(logdir, sess.graph)
            sess.run(tf.global_variables_initializer())
            for i in range(STEPS):
                j = (i % 4) * BATCH
                feed = {x: images[j:j + BATCH], y_: labels[j:j + BATCH], keep_prob: 0.5}
                summary = steps.run(lambda: sess.run([train, merged], feed)[1])
                writer.add_summary(summary, i)
            acc = sess.run(accuracy, {x: images, y_: labels, keep_prob: 1.0})
            writer.close()
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    steps.report(accuracy=float(acc))


if __name__ == "__main__":
    main()
