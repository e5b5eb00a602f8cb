"""An LSTM digit classifier written the TF1 way: tf.nn.rnn_cell, tf.nn.dynamic_rnn, tf.metrics,
tf.summary and tf.train.Saver. Each image is a sequence of its rows.

    python examples/lstm.py                   # scikit-learn's 8x8 digits: 8 steps of 8 pixels
    python examples/lstm.py --data_dir DIR    # MNIST IDX files: 28 steps of 28 pixels
    python examples/lstm.py --logdir /tmp/lstm  # also TensorBoard summaries and a checkpoint

Prints the loss and the streaming training accuracy per epoch and, last, the test accuracy
("accuracy: 0.9...").
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinyflow as tf  # noqa: E402
from data import argument_parser, read_data_sets  # noqa: E402


def main():
    p = argument_parser(__doc__.splitlines()[0], epochs=10, batch_size=64)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--logdir", default=None, help="write summaries and a checkpoint here")
    args = p.parse_args()
    data = read_data_sets(args.data_dir, one_hot=False, seed=args.seed)
    side = data.side
    tf.set_random_seed(args.seed)

    images = tf.placeholder(tf.float32, [None, side * side], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    rows = tf.reshape(images, [-1, side, side])                      # [batch, time, features]
    cell = tf.nn.rnn_cell.BasicLSTMCell(args.hidden)
    _, state = tf.nn.dynamic_rnn(cell, rows, dtype=tf.float32)       # a tf.while_loop over the rows
    logits = tf.layers.dense(state.h, 10, name="classifier")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    global_step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
    predictions = tf.argmax(logits, 1)
    accuracy, update_accuracy = tf.metrics.accuracy(labels, predictions)
    tf.summary.scalar("loss", loss)
    summaries = tf.summary.merge_all()

    start = time.time()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        writer = tf.summary.FileWriter(args.logdir) if args.logdir else None
        for epoch in range(1, args.epochs + 1):
            sess.run(tf.local_variables_initializer())  # the streaming accuracy restarts each epoch
            losses = []
            for bx, by in data.train.batches(args.batch_size):
                _, l, _, s, step = sess.run([train, loss, update_accuracy, summaries, global_step],
                                            {images: bx, labels: by})
                losses.append(l)
                if writer:
                    writer.add_summary(s, step)
            print("epoch %2d/%d  loss %.4f  train accuracy %.4f" % (epoch, args.epochs, np.mean(losses),
                                                                   sess.run(accuracy)))
        test = np.mean(sess.run(predictions, {images: data.test.images}) == data.test.labels)
        if args.logdir:
            writer.close()
            print("saved", tf.train.Saver().save(sess, os.path.join(args.logdir, "lstm"), global_step=global_step))
    print("trained in %.1f s" % (time.time() - start))
    print("accuracy: %.4f" % test)


if __name__ == "__main__":
    main()
