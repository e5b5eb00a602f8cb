"""TinyFlow's mnist_mlp_auto_shape_inference.py: the layers create their weights, whose shapes
tf.infer_variable_shapes finds from the shape of one batch.

    python examples/tinyflow_api/mlp_auto_shape.py [--data_dir DIR] [--epochs N]
"""
from common import argument_parser, init_auto_variables, load, tf, train


def main(argv=None):
    args = argument_parser(__doc__, epochs=10).parse_args(argv)
    data = load(args)
    x = tf.placeholder(tf.float32)
    fc1 = tf.nn.linear(x, num_hidden=100, name="fc1", no_bias=False)
    relu1 = tf.nn.relu(fc1)
    fc2 = tf.nn.linear(relu1, num_hidden=10, name="fc2")
    label = tf.placeholder(tf.float32)
    cross_entropy = tf.nn.mean_sparse_softmax_cross_entropy_with_logits(fc2, label)
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    sess = tf.Session(config="gpu")
    init_auto_variables(sess, cross_entropy, {x: [args.batch_size, data.train.images.shape[1]],
                                              label: [args.batch_size]}, stdev=0.1)
    return train(sess, x, label, fc2, cross_entropy, train_step, data, args.epochs, args.batch_size)


if __name__ == "__main__":
    main()
