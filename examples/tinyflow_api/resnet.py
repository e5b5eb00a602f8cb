"""TinyFlow's cifar_resnet.py, on digits: a small ResNet with batch normalization (NCHW); every
weight, gamma and beta is created by its layer and shaped by tf.infer_variable_shapes.

    python examples/tinyflow_api/resnet.py [--data_dir DIR] [--epochs N]
"""
from common import argument_parser, init_auto_variables, load, tf, train


def conv_factory(x, filter_size, out_filters):
    x = tf.nn.conv2d(x, num_filter=out_filters, ksize=[1, filter_size, filter_size, 1], padding="SAME")
    x = tf.nn.batch_normalization(x)
    return tf.nn.relu(x)


def residual_factory(x, in_filters, out_filters):
    conv1 = conv_factory(x, 3, out_filters)
    conv2 = conv_factory(conv1, 3, out_filters)
    shortcut = x if in_filters == out_filters else conv_factory(x, 1, out_filters)
    return tf.nn.relu(shortcut + conv2)


def main(argv=None):
    args = argument_parser(__doc__, epochs=5).parse_args(argv)
    data = load(args, image=True)
    x = tf.placeholder(tf.float32)
    h = tf.tanh(tf.nn.conv2d(x, num_filter=16, ksize=[1, 3, 3, 1], padding="SAME"))
    h = residual_factory(h, 16, 16)
    h = residual_factory(h, 16, 32)
    h = tf.nn.avg_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME", data_format="NCHW")
    fc1 = tf.nn.linear(tf.nn.flatten_layer(h), num_hidden=10, name="fc1")
    label = tf.placeholder(tf.float32)
    cross_entropy = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(fc1, label)
    train_step = tf.train.AdamOptimizer(0.002).minimize(cross_entropy)
    sess = tf.Session(config="gpu")
    side = data.train.images.shape[2]
    init_auto_variables(sess, cross_entropy, {x: [args.batch_size, 1, side, side], label: [args.batch_size]},
                        stdev=0.1)
    sess.run(tf.initialize_all_variables())  # as TinyFlow's script: leaves the assigned weights alone
    return train(sess, x, label, fc1, cross_entropy, train_step, data, args.epochs, args.batch_size)


if __name__ == "__main__":
    main()
