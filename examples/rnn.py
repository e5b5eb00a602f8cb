"""A recurrent network trained through tf.while_loop: each image is a sequence of its rows.

    python examples/rnn.py                # scikit-learn's 8x8 digits: 8 steps of 8 pixels, no download
    python examples/rnn.py --data_dir DIR # MNIST IDX files: 28 steps of 28 pixels

h_{t+1} = tanh(x_t W + h_t U + b) for t = 0..T-1 runs inside one tf.while_loop (T static, given as
maximum_iterations, so its gradient is a bounded scan over the saved per-step states); the class
logits are h_T V + c. Trained with Adam on the mean sparse softmax cross entropy; prints the loss
per epoch and, last, the test accuracy ("accuracy: 0.9...").
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinyflow as tf  # noqa: E402
from data import argument_parser, read_data_sets  # noqa: E402


def time_major(images, side):
    """[N, side*side] images -> [side (time), N, side] sequences of rows."""
    return images.reshape(-1, side, side).transpose(1, 0, 2)


def main():
    p = argument_parser(__doc__.splitlines()[0], epochs=15, batch_size=64)
    p.add_argument("--hidden", type=int, default=64)
    args = p.parse_args()
    data = read_data_sets(args.data_dir, one_hot=False, seed=args.seed)
    side = data.side
    tf.set_random_seed(args.seed)

    x = tf.placeholder(tf.float32, [side, None, side], name="rows")  # time-major
    labels = tf.placeholder(tf.int64, [None], name="labels")
    W = tf.Variable(tf.random_normal([side, args.hidden], stddev=0.3), name="W")
    U = tf.Variable(tf.random_normal([args.hidden, args.hidden], stddev=1.0 / np.sqrt(args.hidden)), name="U")
    b = tf.Variable(tf.zeros([args.hidden]), name="b")
    V = tf.Variable(tf.random_normal([args.hidden, 10], stddev=0.1), name="V")
    c = tf.Variable(tf.zeros([10]), name="c")

    def step(t, h):
        x_t = tf.gather(x, t)  # [batch, side]: row t of every image
        return t + 1, tf.tanh(tf.matmul(x_t, W) + tf.matmul(h, U) + b)

    h0 = tf.zeros(tf.stack([tf.shape(x)[1], args.hidden]))
    _, h = tf.while_loop(lambda t, h: t < side, step, [tf.constant(0), h0], maximum_iterations=side,
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, args.hidden])])
    logits = tf.matmul(h, V) + c
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))

    start = time.time()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(1, args.epochs + 1):
            losses = [sess.run([train, loss], {x: time_major(bx, side), labels: by})[1]
                      for bx, by in data.train.batches(args.batch_size)]
            print("epoch %2d/%d  loss %.4f" % (epoch, args.epochs, np.mean(losses)))
        acc = sess.run(accuracy, {x: time_major(data.test.images, side), labels: data.test.labels})
    print("trained in %.1f s" % (time.time() - start))
    print("accuracy: %.4f" % acc)


if __name__ == "__main__":
    main()
