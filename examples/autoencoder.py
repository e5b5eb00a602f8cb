"""A fully-connected autoencoder: digits squeezed through a small code and reconstructed.

    python examples/autoencoder.py [--data_dir DIR] [--epochs N] [--code N]

The encoder and decoder are tf.layers.dense stacks built in variable scopes; the decoder ends in a
sigmoid (pixels are in [0, 1]), the loss is tf.losses.mean_squared_error, the optimizer RMSProp.
Each epoch prints the training and test reconstruction errors; the final figure shows test digits
above their reconstructions.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinyflow as tf  # noqa: E402
from data import argument_parser, read_data_sets, save_figure, text_images  # noqa: E402


def encoder(x, sizes):
    with tf.variable_scope("encoder"):
        for units in sizes:
            x = tf.layers.dense(x, units, activation=tf.nn.relu)
        return x


def decoder(code, sizes, pixels):
    with tf.variable_scope("decoder"):
        for units in sizes:
            code = tf.layers.dense(code, units, activation=tf.nn.relu)
        return tf.layers.dense(code, pixels, activation=tf.nn.sigmoid)


def main():
    parser = argument_parser(__doc__.splitlines()[0], epochs=40, batch_size=64)
    parser.add_argument("--code", type=int, default=12, help="size of the code layer")
    args = parser.parse_args()
    tf.set_random_seed(args.seed)
    data = read_data_sets(args.data_dir, one_hot=False, seed=args.seed)
    pixels = data.train.images.shape[1]

    x = tf.placeholder(tf.float32, [None, pixels], name="x")
    code = encoder(x, [pixels // 2, args.code])
    reconstruction = decoder(code, [pixels // 2], pixels)
    loss = tf.losses.mean_squared_error(x, reconstruction)
    train_op = tf.train.RMSPropOptimizer(3e-3).minimize(loss)
    print("variables:", ", ".join("%s %s" % (v.op.name, v.shape.as_list()) for v in tf.trainable_variables()))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(1, args.epochs + 1):
            losses = [sess.run([train_op, loss], {x: bx})[1] for bx, _ in data.train.batches(args.batch_size)]
            test_loss = sess.run(loss, {x: data.test.images})
            print("epoch %2d/%d  train mse %.5f  test mse %.5f" % (epoch, args.epochs, np.mean(losses), test_loss))
        shown = data.test.images[:8]
        rebuilt = sess.run(reconstruction, {x: shown})
    print("\ntest digits (top) and their reconstructions from a %d-number code (bottom):\n" % args.code)
    print(text_images(np.concatenate([shown, rebuilt]), data.side,
                      captions=["original"] * 8 + ["rebuilt"] * 8))
    save_figure(args.figure, np.concatenate([shown, rebuilt]), data.side, title="autoencoder reconstructions")
    print("test mse: %.5f" % test_loss)


if __name__ == "__main__":
    main()
