"""Records TF 1.15's sparse updates (sparse_updates.json): every tf.train optimizer (and an Optimizer subclass
with its own _apply_sparse) trains an embedding table, whose
gradient is an IndexedSlices with repeated ids, three steps; the table after each step and the slots at
the end. The same code runs under tinyflow in tests/api/test_optimizers.py.
Run with TF 1.15: ~/.tf1-oracle/bin/python tests/data/make_sparse_updates.py"""
import json
import os

import numpy as np

R = np.random.RandomState(7)
TABLE = R.randn(8, 3).astype(np.float32)
W = R.randn(3, 2).astype(np.float32)
Y = R.randn(6, 2).astype(np.float32)
IDS = [[1, 3, 1, 5, 1, 0], [2, 2, 7, 3, 3, 3], [0, 1, 6, 6, 4, 1]]   # row 5: step 1 only; 3: steps 1 and 2


def squares_sgd(tf):
    """An Optimizer subclass whose _apply_sparse squares the gradient's rows: TF sums a repeated id's rows
    before it (Optimizer._apply_sparse_duplicate_indices), so a row gets (g1 + g2)^2, not g1^2 + g2^2."""
    class SquaresSGD(tf.train.Optimizer):
        def __init__(self):
            super(SquaresSGD, self).__init__(False, "SquaresSGD")

        def _apply_dense(self, grad, var):
            return tf.assign_sub(var, 0.1 * grad * grad)

        def _apply_sparse(self, grad, var):
            return tf.scatter_sub(var, grad.indices, 0.1 * grad.values * grad.values)
    return SquaresSGD()


def optimizers(tf):
    """name -> optimizer, for the `tf` module given (TF 1.15's or tinyflow's)."""
    gs = tf.constant(3, tf.int64)
    return {
        "GradientDescent": tf.train.GradientDescentOptimizer(0.1),
        "Momentum": tf.train.MomentumOptimizer(0.1, 0.9),
        "MomentumNesterov": tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
        "RMSProp": tf.train.RMSPropOptimizer(0.05, momentum=0.5),
        "RMSPropCentered": tf.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.3, centered=True),
        "Adagrad": tf.train.AdagradOptimizer(0.1),
        "AdagradDA": tf.train.AdagradDAOptimizer(0.1, gs, l1_regularization_strength=0.01,
                                                 l2_regularization_strength=0.02),
        "Adadelta": tf.train.AdadeltaOptimizer(0.5),
        "Ftrl": tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        "FtrlPower": tf.train.FtrlOptimizer(0.1, learning_rate_power=-0.7, l1_regularization_strength=0.01),
        "FtrlV2": tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01, l2_regularization_strength=0.02,
                                         l2_shrinkage_regularization_strength=0.3),
        "ProximalAdagrad": tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01,
                                                             l2_regularization_strength=0.02),
        "ProximalGradientDescent": tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.01,
                                                                             l2_regularization_strength=0.02),
        "Adam": tf.train.AdamOptimizer(0.1),
    }


def build(tf, names=None):
    """(ids placeholder, train op, {name: (table, optimizer)}): one table per optimizer (those in `names`, or
    all), a constant weight."""
    ids = tf.placeholder(tf.int32, [6])
    opts = optimizers(tf)
    opts["SquaresSGD"] = squares_sgd(tf)
    models, steps = {}, []
    for name in sorted(names or opts):
        with tf.variable_scope(name):
            table = tf.get_variable("table", initializer=TABLE)
        loss = tf.reduce_sum(tf.square(tf.matmul(tf.nn.embedding_lookup(table, ids), W) - Y))
        steps.append(opts[name].minimize(loss))
        models[name] = (table, opts[name])
    return ids, tf.group(*steps), models


def run(tf, names=None):
    """{name: {"steps": [table after each step], "slots": {slot name: table's}}}."""
    ids, train, models = build(tf, names)
    out = {name: {"steps": []} for name in models}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step_ids in IDS:
            sess.run(train, {ids: step_ids})
            values = sess.run({name: t for name, (t, _) in models.items()})
            for name, v in values.items():
                out[name]["steps"].append(v.tolist())
        slots = sess.run({name: {s: opt.get_slot(t, s) for s in opt.get_slot_names()}
                          for name, (t, opt) in models.items()})
        for name in models:
            out[name]["slots"] = {s: v.tolist() for s, v in slots[name].items()}
    return out


if __name__ == "__main__":
    import tensorflow as tf
    tf.logging.set_verbosity(tf.logging.ERROR)
    out = {"table": TABLE.tolist(), "w": W.tolist(), "y": Y.tolist(), "ids": IDS, "results": run(tf)}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sparse_updates.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print("wrote sparse_updates.json:", sorted(out["results"]))
