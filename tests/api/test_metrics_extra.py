"""tf.metrics.mean_iou, precision_at_k, recall_at_k (sparse_precision_at_k) against TF 1.15's recorded
update results and values over two batches (tests/fixtures/metrics_extra/make_metrics_extra.py)."""
import os

import numpy as np

import tinyflow as tf

F = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "metrics_extra", "metrics_extra.npz"))


def test_mean_iou_and_top_k_metrics_match_tf():
    L, P, W = tf.placeholder(tf.int64, [3, 5]), tf.placeholder(tf.int64, [3, 5]), tf.placeholder(tf.float32, [3, 5])
    X, C = tf.placeholder(tf.float32, [6, 7]), tf.placeholder(tf.int64, [6])
    M, RW = tf.placeholder(tf.int64, [6, 2]), tf.placeholder(tf.float32, [6])
    metrics = {
        "iou": tf.metrics.mean_iou(L, P, 4), "iou_w": tf.metrics.mean_iou(L, P, 4, weights=W),
        "p3": tf.metrics.precision_at_k(C, X, 3), "r3": tf.metrics.recall_at_k(C, X, 3),
        "p2m": tf.metrics.sparse_precision_at_k(M, X, 2), "r2m": tf.metrics.recall_at_k(M, X, 2),
        "p3w": tf.metrics.precision_at_k(C, X, 3, weights=RW), "r1w": tf.metrics.recall_at_k(M, X, 1, weights=RW),
        "p2c": tf.metrics.precision_at_k(M, X, 2, class_id=3), "r2c": tf.metrics.recall_at_k(M, X, 2, class_id=3),
    }
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        for i in range(2):
            feed = {L: F["lab%d" % i], P: F["pred%d" % i], W: F["w%d" % i], X: F["logits%d" % i], C: F["cls%d" % i],
                    M: F["multi%d" % i], RW: F["rw%d" % i]}
            ups = s.run({k: v[1] for k, v in metrics.items()}, feed)
            for k, v in ups.items():
                np.testing.assert_allclose(v, F["%s_update%d" % (k, i)], rtol=1e-6, err_msg=k)
        values = s.run({k: v[0] for k, v in metrics.items()})
    for k, v in values.items():
        np.testing.assert_allclose(v, F[k], rtol=1e-6, err_msg=k)
        assert np.asarray(v).dtype == F[k].dtype, k
    assert len(tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES)) == 2 + 2 * 8
