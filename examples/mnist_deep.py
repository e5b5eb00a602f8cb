"""The TensorFlow 1 "Deep MNIST for experts" convolutional network, on tinyflow.

    python examples/mnist_deep.py [--data_dir DIR] [--epochs N]

conv 5x5x32 -> max pool 2x2 -> conv 5x5x64 -> max pool 2x2 -> fully connected 1024 -> dropout ->
10 logits, trained with Adam on the softmax cross entropy, as in the tutorial. The images are
8x8 digits (28x28 with --data_dir), so the map after the two poolings is 2x2 (7x7). The final
figure shows test digits with the network's guess (and the truth when it is wrong).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinyflow as tf  # noqa: E402
from data import argument_parser, read_data_sets, save_figure, text_images  # noqa: E402


def weight_variable(shape):
    """A weight variable initialized with a little noise (breaks symmetry)."""
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias_variable(shape):
    """A bias variable slightly positive, so the ReLUs start alive."""
    return tf.Variable(tf.constant(0.1, shape=shape))


def conv2d(x, W):
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def deepnn(x, side):
    """The tutorial's network: returns (logits, keep_prob placeholder)."""
    with tf.name_scope("reshape"):
        x_image = tf.reshape(x, [-1, side, side, 1])
    with tf.name_scope("conv1"):
        h_conv1 = tf.nn.relu(conv2d(x_image, weight_variable([5, 5, 1, 32])) + bias_variable([32]))
    with tf.name_scope("pool1"):
        h_pool1 = max_pool_2x2(h_conv1)
    with tf.name_scope("conv2"):
        h_conv2 = tf.nn.relu(conv2d(h_pool1, weight_variable([5, 5, 32, 64])) + bias_variable([64]))
    with tf.name_scope("pool2"):
        h_pool2 = max_pool_2x2(h_conv2)
    reduced = -(-side // 4)  # two SAME poolings of stride 2
    with tf.name_scope("fc1"):
        flat = tf.reshape(h_pool2, [-1, reduced * reduced * 64])
        h_fc1 = tf.nn.relu(tf.matmul(flat, weight_variable([reduced * reduced * 64, 1024])) + bias_variable([1024]))
    with tf.name_scope("dropout"):
        keep_prob = tf.placeholder_with_default(1.0, [])
        h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
    with tf.name_scope("fc2"):
        logits = tf.matmul(h_fc1_drop, weight_variable([1024, 10])) + bias_variable([10])
    return logits, keep_prob


def main():
    parser = argument_parser(__doc__.splitlines()[0], epochs=6, batch_size=50)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    args = parser.parse_args()
    tf.set_random_seed(args.seed)
    mnist = read_data_sets(args.data_dir, one_hot=True, seed=args.seed)

    x = tf.placeholder(tf.float32, [None, mnist.train.images.shape[1]])
    y_ = tf.placeholder(tf.float32, [None, 10])
    y_conv, keep_prob = deepnn(x, mnist.side)
    with tf.name_scope("loss"):
        cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y_conv))
    with tf.name_scope("adam_optimizer"):
        train_step = tf.train.AdamOptimizer(args.learning_rate).minimize(cross_entropy)
    with tf.name_scope("accuracy"):
        prediction = tf.argmax(y_conv, 1)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(prediction, tf.argmax(y_, 1)), tf.float32))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(1, args.epochs + 1):
            losses = [sess.run([train_step, cross_entropy], {x: bx, y_: by, keep_prob: 0.5})[1]
                      for bx, by in mnist.train.batches(args.batch_size)]
            print("epoch %2d/%d  loss %.4f  test accuracy %.4f" % (
                epoch, args.epochs, np.mean(losses),
                sess.run(accuracy, {x: mnist.test.images, y_: mnist.test.labels})))
        # Evaluate in chunks: a full MNIST test set through the convolutions at once is large.
        preds = np.concatenate([sess.run(prediction, {x: mnist.test.images[i:i + 1000]})
                                for i in range(0, mnist.test.num_examples, 1000)])
    truth = mnist.test.labels.argmax(1)
    shown = np.arange(16)
    captions = ["%d" % preds[i] if preds[i] == truth[i] else "%d(!%d)" % (preds[i], truth[i]) for i in shown]
    print("\ntest digits and the network's guesses:\n")
    print(text_images(mnist.test.images[shown], mnist.side, captions))
    save_figure(args.figure, mnist.test.images[shown], mnist.side, captions, title="deep MNIST guesses")
    print("accuracy: %.4f" % (preds == truth).mean())


if __name__ == "__main__":
    main()
