"""A multi-layer perceptron with tf.layers, dropout and Adam; checkpoints with tf.train.Saver.

    python examples/mlp.py [--data_dir DIR] [--epochs N] [--checkpoint_dir DIR]

Two hidden ReLU layers (tf.layers.dense) with dropout while training (a boolean placeholder),
sparse softmax cross entropy (tf.losses) plus an L2 penalty on the kernels, Adam. After each epoch
it saves a checkpoint; at the end it restores the latest one into a new session, checks that it
predicts exactly as the trained model did, and shows a confusion matrix as the final figure.
"""
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinyflow as tf  # noqa: E402
from data import argument_parser, read_data_sets, save_figure  # noqa: E402


def build(pixels, hidden=(128, 64), rate=0.2, l2=1e-4):
    """Returns the placeholders, logits, loss, train op and accuracy of the MLP."""
    x = tf.placeholder(tf.float32, [None, pixels], name="x")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    training = tf.placeholder_with_default(False, [], name="training")
    h = x
    for units in hidden:
        h = tf.layers.dense(h, units, activation=tf.nn.relu,
                            kernel_regularizer=lambda w: l2 * tf.nn.l2_loss(w))
        h = tf.layers.dropout(h, rate=rate, training=training)
    logits = tf.layers.dense(h, 10)
    tf.losses.sparse_softmax_cross_entropy(labels, logits)
    loss = tf.losses.get_total_loss()  # cross entropy + the kernels' regularization losses
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss, global_step=global_step)
    prediction = tf.argmax(logits, 1)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(prediction, labels), tf.float32))
    return x, labels, training, loss, train_op, prediction, accuracy


def main():
    parser = argument_parser(__doc__.splitlines()[0], epochs=30, batch_size=64)
    parser.add_argument("--checkpoint_dir", default=None, help="where to keep checkpoints (default: a temp dir)")
    args = parser.parse_args()
    tf.set_random_seed(args.seed)
    data = read_data_sets(args.data_dir, one_hot=False, seed=args.seed)
    x, labels, training, loss, train_op, prediction, accuracy = build(data.train.images.shape[1])
    saver = tf.train.Saver(max_to_keep=1)
    ckpt_dir = args.checkpoint_dir or tempfile.mkdtemp(prefix="tinyflow_mlp_")
    test_feed = {x: data.test.images, labels: data.test.labels}

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(1, args.epochs + 1):
            losses = [sess.run([train_op, loss], {x: bx, labels: by, training: True})[1]
                      for bx, by in data.train.batches(args.batch_size)]
            acc, trained_pred = sess.run([accuracy, prediction], test_feed)
            print("epoch %2d/%d  loss %.4f  test accuracy %.4f" % (epoch, args.epochs, np.mean(losses), acc))
            path = saver.save(sess, os.path.join(ckpt_dir, "mlp"), global_step=epoch)

    # A fresh session knows nothing: restore the best checkpoint into it.
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(ckpt_dir))
        acc, pred = sess.run([accuracy, prediction], test_feed)
    assert (pred == trained_pred).all(), "the restored model predicts differently"
    print("restored %s: same predictions as the trained model" % path)
    confusion = np.zeros((10, 10), np.int64)
    np.add.at(confusion, (data.test.labels, pred), 1)
    print("\nconfusion matrix (rows: true digit, columns: predicted):\n")
    print("     " + " ".join("%4d" % j for j in range(10)))
    for i in range(10):
        print("%4d " % i + " ".join("%4d" % c for c in confusion[i]))
    wrong = np.flatnonzero(pred != data.test.labels)[:16]
    save_figure(args.figure, data.test.images[wrong], data.side,
                captions=["%d→%d" % (data.test.labels[i], pred[i]) for i in wrong], title="misclassified digits")
    print("\naccuracy: %.4f" % acc)
    if not args.checkpoint_dir:
        shutil.rmtree(ckpt_dir)


if __name__ == "__main__":
    main()
