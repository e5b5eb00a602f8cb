"""TinyFlow's mnist_softmax.py: softmax regression with explicit variables.

    python examples/tinyflow_api/softmax_regression.py [--data_dir DIR] [--epochs N]
"""
from common import argument_parser, load, tf, train


def main(argv=None):
    args = argument_parser(__doc__, epochs=10).parse_args(argv)
    data = load(args)
    pixels = data.train.images.shape[1]
    x = tf.placeholder(tf.float32)
    W = tf.Variable(tf.zeros([pixels, 10]))
    logits = tf.matmul(x, W)
    y = tf.nn.softmax(logits)
    label = tf.placeholder(tf.float32)
    y_ = tf.one_hot(tf.cast(label, tf.int32), 10)
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y + 1e-9), reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    sess = tf.Session(config="gpu")
    sess.run(tf.initialize_all_variables())
    return train(sess, x, label, logits, cross_entropy, train_step, data, args.epochs, args.batch_size)


if __name__ == "__main__":
    main()
