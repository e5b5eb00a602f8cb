"""What the TinyFlow examples share: the data (examples/data.py) and the train/evaluate loop."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tinyflow as tf  # noqa: E402
from data import argument_parser, read_data_sets  # noqa: E402,F401


def load(args, image=False):
    """Digits (or MNIST) with float class labels, as TinyFlow's get_mnist(onehot=False) gave them;
    images as [N, 1, side, side] (NCHW) when `image`."""
    data = read_data_sets(args.data_dir, one_hot=False, seed=args.seed)
    for part in (data.train, data.test):
        part.labels = part.labels.astype(np.float32)
        if image:
            part.images = part.images.reshape(-1, 1, data.side, data.side)
    return data


def train(sess, x, label, logits, loss, train_step, data, epochs, batch_size):
    """Runs the epochs, printing the mean loss of each, then the test accuracy (returned)."""
    for epoch in range(epochs):
        losses = [sess.run([loss, train_step], {x: bx, label: by})[0] for bx, by in data.train.batches(batch_size)]
        print("epoch[%d] cross_entropy=%g" % (epoch, np.mean(losses)))
    # TinyFlow compared the int64 argmax with the float labels directly; TF 1.15 wants one dtype
    correct = tf.equal(tf.argmax(logits, 1), tf.cast(label, tf.int64))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    acc = sess.run(accuracy, {x: data.test.images, label: data.test.labels})
    print("test accuracy %.3f" % acc)
    return acc


def init_auto_variables(sess, loss, known_shape, stdev):
    """TinyFlow's idiom: infer every variable's shape from the feed shapes, then assign it."""
    init_step = []
    for v, name, shape in tf.infer_variable_shapes(loss, feed_dict=known_shape):
        init_step.append(tf.assign(v, tf.normal(shape, stdev)))
        print("shape[%s]=%s" % (name, shape))
    sess.run(init_step)
