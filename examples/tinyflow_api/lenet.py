"""TinyFlow's mnist_lenet.py: LeNet on NCHW images, weights created by the layers and shaped by
tf.infer_variable_shapes.

    python examples/tinyflow_api/lenet.py [--data_dir DIR] [--epochs N]
"""
from common import argument_parser, init_auto_variables, load, tf, train


def main(argv=None):
    args = argument_parser(__doc__, epochs=10).parse_args(argv)
    data = load(args, image=True)
    x = tf.placeholder(tf.float32)
    conv1 = tf.nn.conv2d(x, num_filter=20, ksize=[1, 5, 5, 1], name="conv1", no_bias=False)
    tanh1 = tf.tanh(conv1)
    pool1 = tf.nn.max_pool(tanh1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    conv2 = tf.nn.conv2d(pool1, num_filter=50, ksize=[1, 5, 5, 1], name="conv2", no_bias=False)
    tanh2 = tf.tanh(conv2)
    pool2 = tf.nn.max_pool(tanh2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1])
    flatten = tf.nn.flatten_layer(pool2)
    fc1 = tf.nn.linear(flatten, num_hidden=500, name="fc1")
    tanh3 = tf.tanh(fc1)
    fc2 = tf.nn.linear(tanh3, num_hidden=10, name="fc2")
    label = tf.placeholder(tf.float32)
    cross_entropy = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(fc2, label)
    train_step = tf.train.GradientDescentOptimizer(0.1).minimize(cross_entropy)
    sess = tf.Session(config="gpu")
    side = data.train.images.shape[2]
    init_auto_variables(sess, cross_entropy, {x: [args.batch_size, 1, side, side], label: [args.batch_size]},
                        stdev=0.1)
    return train(sess, x, label, fc2, cross_entropy, train_step, data, args.epochs, args.batch_size)


if __name__ == "__main__":
    main()
