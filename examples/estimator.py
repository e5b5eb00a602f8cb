"""tf.estimator on the digits: a premade DNNClassifier and the same network as a custom model_fn,
each trained, evaluated, resumed from its model_dir and asked for predictions.

    python examples/estimator.py [--data_dir DIR] [--epochs N] [--model_dir DIR]

The features go in as `tf.feature_column.numeric_column("pixels", shape=[side*side])`; the input_fns
are `tf.estimator.inputs.numpy_input_fn` (premade) and a tf.data pipeline (custom). Training runs in
two train() calls: the second one restores the checkpoint the first left in model_dir and continues
the global step. The final figure is the first test digits with their predicted classes.
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tinyflow as tf  # noqa: E402
from data import argument_parser, read_data_sets, text_images  # noqa: E402


def model_fn(features, labels, mode, params):
    """The DNNClassifier's network by hand: input_layer, ReLU layers, logits, softmax cross entropy."""
    net = tf.feature_column.input_layer(features, params["columns"])
    for units in params["hidden"]:
        net = tf.layers.dense(net, units, activation=tf.nn.relu)
    logits = tf.layers.dense(net, 10)
    classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"class_ids": classes,
                                                             "probabilities": tf.nn.softmax(logits)})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdamOptimizer(params["learning_rate"]).minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops={"accuracy": tf.metrics.accuracy(labels, classes)})


def main():
    p = argument_parser("tf.estimator: DNNClassifier and a custom model_fn on the digits", epochs=6, batch_size=64)
    p.add_argument("--model_dir", default=None, help="where the checkpoints go (default: a temporary folder)")
    args = p.parse_args()
    tf.logging.set_verbosity(tf.logging.WARN)
    data = read_data_sets(args.data_dir, one_hot=False, seed=args.seed)
    train_x, train_y = {"pixels": data.train.images}, data.train.labels.astype(np.int64)
    test_x, test_y = {"pixels": data.test.images}, data.test.labels.astype(np.int64)
    columns = [tf.feature_column.numeric_column("pixels", shape=[data.train.images.shape[1]])]
    root = args.model_dir or tempfile.mkdtemp()
    config = tf.estimator.RunConfig(tf_random_seed=args.seed, save_checkpoints_steps=200)
    half = max(1, args.epochs // 2)

    premade = tf.estimator.DNNClassifier([128, 64], columns, n_classes=10, model_dir=os.path.join(root, "premade"),
                                         optimizer=tf.train.AdamOptimizer(1e-3), config=config)

    def custom_input(epochs):
        def input_fn():
            ds = tf.data.Dataset.from_tensor_slices((train_x, train_y)).shuffle(2000, seed=args.seed)
            return ds.repeat(epochs).batch(args.batch_size)
        return input_fn
    custom = tf.estimator.Estimator(model_fn, model_dir=os.path.join(root, "custom"), config=config,
                                    params={"columns": columns, "hidden": [128, 64], "learning_rate": 1e-3})
    eval_input = tf.estimator.inputs.numpy_input_fn(test_x, test_y, batch_size=256, shuffle=False)
    for name, est, train_input in (
            ("premade DNNClassifier", premade, lambda: tf.estimator.inputs.numpy_input_fn(
                train_x, train_y, batch_size=args.batch_size, num_epochs=half, shuffle=True)),
            ("custom model_fn", custom, lambda: custom_input(half))):
        est.train(train_input())
        first = est.evaluate(eval_input)
        est.train(train_input())  # resumes from the checkpoint in model_dir
        metrics = est.evaluate(eval_input)
        print("%-22s step %4d accuracy %.3f -> step %4d accuracy %.3f (loss %.3f)" % (
            name, first["global_step"], first["accuracy"], metrics["global_step"], metrics["accuracy"],
            metrics["loss"]))
    preds = list(premade.predict(tf.estimator.inputs.numpy_input_fn({"pixels": data.test.images[:8]},
                                                                    shuffle=False)))
    print(text_images(data.test.images[:8], data.side,
                                ["%d (%d)" % (p["class_ids"][0], y) for p, y in zip(preds, test_y[:8])]))
    print("accuracy: %.4f" % metrics["accuracy"])


if __name__ == "__main__":
    main()
