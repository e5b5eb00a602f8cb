"""The TensorFlow 1 softmax-regression tutorial ("MNIST for ML beginners"), on tinyflow.

    python examples/mnist_softmax.py                # scikit-learn's 8x8 digits, no download
    python examples/mnist_softmax.py --data_dir DIR # MNIST IDX files

y = softmax(x W + b) with W and b starting at zero, trained by gradient descent (rate 0.5) on the
mean softmax cross entropy; prints the test accuracy ("accuracy: 0.9...") and, as its final
figure, the learned weights of each class as 8x8 (or 28x28) templates.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinyflow as tf  # noqa: E402
from data import argument_parser, read_data_sets, save_figure, text_images  # noqa: E402


def main():
    args = argument_parser(__doc__.splitlines()[0], epochs=20).parse_args()
    mnist = read_data_sets(args.data_dir, one_hot=True, seed=args.seed)
    pixels = mnist.train.images.shape[1]

    # The model: placeholders for a batch of images and their one-hot labels, W and b from zero.
    x = tf.placeholder(tf.float32, [None, pixels])
    W = tf.Variable(tf.zeros([pixels, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.matmul(x, W) + b
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

    sess = tf.InteractiveSession()
    tf.global_variables_initializer().run()
    for epoch in range(1, args.epochs + 1):
        losses = [sess.run([train_step, cross_entropy], feed_dict={x: bx, y_: by})[1]
                  for bx, by in mnist.train.batches(args.batch_size)]
        print("epoch %2d/%d  loss %.4f  train accuracy %.4f" % (
            epoch, args.epochs, np.mean(losses),
            sess.run(accuracy, feed_dict={x: mnist.train.images, y_: mnist.train.labels})))

    acc = sess.run(accuracy, feed_dict={x: mnist.test.images, y_: mnist.test.labels})
    # The final figure: each class's weights, scaled to [0, 1] (dark = evidence for the class).
    w = W.eval()
    templates = ((w - w.min()) / (w.max() - w.min() + 1e-12)).T
    print("\nlearned templates (weights of each class):\n")
    print(text_images(templates, mnist.side, captions=range(10), per_row=5))
    save_figure(args.figure, templates, mnist.side, captions=range(10), title="softmax regression weights")
    print("accuracy: %.4f" % acc)
    sess.close()


if __name__ == "__main__":
    main()
