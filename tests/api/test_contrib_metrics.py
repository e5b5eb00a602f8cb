"""tf.contrib.metrics against TF 1.15's recorded numbers (tests/fixtures/contrib_metrics/make_fixture.py):
the value after each of two update batches, then the final value, with contrib's (predictions, labels)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib_metrics", "contrib_metrics.json")
with open(FIXTURE) as f:
    TF = json.load(f)
IN = {k: [np.asarray(a, np.int64 if k == "CLS" else np.float32) for a in v] for k, v in TF["inputs"].items()}


def _run(build):
    out = []
    with tf.Graph().as_default():
        t = dict(p=tf.placeholder(tf.float32, [6]), l=tf.placeholder(tf.float32, [6]),
                 w=tf.placeholder(tf.float32, [6]), y=tf.placeholder(tf.float32, [6]),
                 z=tf.placeholder(tf.float32, [6]), v=tf.placeholder(tf.float32, [3, 4]),
                 v2=tf.placeholder(tf.float32, [3, 4]), lg=tf.placeholder(tf.float32, [5, 4]),
                 c=tf.placeholder(tf.int64, [5]))
        value, update = build(t)
        keys = dict(p="P", l="L", w="W", y="Y", z="Z", v="V", v2="V2", lg="LOGITS", c="CLS")
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for i in range(2):
                out.append(sess.run(update, {t[k]: IN[name][i] for k, name in keys.items()}))
            out.append(sess.run(value))
    return out


m = tf.contrib.metrics
CASES = {
    "streaming_auc": lambda t: m.streaming_auc(t["p"], t["l"], num_thresholds=50),
    "streaming_auc_pr_weighted": lambda t: m.streaming_auc(t["p"], t["l"], weights=t["w"], curve="PR"),
    "streaming_mean_absolute_error": lambda t: m.streaming_mean_absolute_error(t["z"], t["y"]),
    "streaming_root_mean_squared_error": lambda t: m.streaming_root_mean_squared_error(t["z"], t["y"], t["w"]),
    "streaming_covariance": lambda t: m.streaming_covariance(t["z"], t["y"]),
    "streaming_covariance_weighted": lambda t: m.streaming_covariance(t["z"], t["y"], weights=t["w"]),
    "streaming_pearson_correlation": lambda t: m.streaming_pearson_correlation(t["z"], t["y"]),
    "streaming_pearson_correlation_weighted": lambda t: m.streaming_pearson_correlation(t["z"], t["y"], t["w"]),
    "f1_score": lambda t: m.f1_score(t["l"], t["p"]),
    "f1_score_weighted": lambda t: m.f1_score(t["l"], t["p"], weights=t["w"], num_thresholds=20),
    "streaming_mean_tensor": lambda t: m.streaming_mean_tensor(t["v"]),
    "streaming_mean_tensor_weighted": lambda t: m.streaming_mean_tensor(t["v"], weights=tf.abs(t["v2"])),
    "streaming_percentage_less": lambda t: m.streaming_percentage_less(t["z"], 0.1),
    "streaming_mean_relative_error": lambda t: m.streaming_mean_relative_error(t["z"], t["y"], t["p"] - 0.5),
    "streaming_mean_cosine_distance": lambda t: m.streaming_mean_cosine_distance(
        tf.nn.l2_normalize(t["v"], 1), tf.nn.l2_normalize(t["v2"], 1), dim=1),
    "streaming_recall_at_k": lambda t: m.streaming_recall_at_k(t["lg"], t["c"], 2),
    "streaming_precision_at_thresholds": lambda t: m.streaming_precision_at_thresholds(
        t["p"], t["l"], [0.2, 0.5, 0.8]),
    "streaming_recall_at_thresholds": lambda t: m.streaming_recall_at_thresholds(
        t["p"], t["l"], [0.2, 0.5, 0.8], weights=t["w"]),
    "streaming_true_positives_at_thresholds": lambda t: m.streaming_true_positives_at_thresholds(
        t["p"], t["l"], thresholds=[0.3, 0.6]),
    "streaming_false_positive_rate": lambda t: m.streaming_false_positive_rate(t["p"] > 0.5, t["l"]),
    "streaming_false_negative_rate": lambda t: m.streaming_false_negative_rate(t["p"] > 0.5, t["l"], t["w"]),
}
AT_K = {
    "streaming_sparse_precision_at_k": lambda t: m.streaming_sparse_precision_at_k(t["lg"], t["c"], 2),
    "streaming_sparse_recall_at_k": lambda t: m.streaming_sparse_recall_at_k(t["lg"], t["c"], 2),
    "streaming_sparse_average_precision_at_k": lambda t: m.streaming_sparse_average_precision_at_k(
        t["lg"], t["c"], 3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_streaming_metric_matches_tf(name):
    got = _run(CASES[name])
    for g, want in zip(got, TF[name]):
        np.testing.assert_allclose(g, want, rtol=2e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", sorted(AT_K))
def test_sparse_at_k_over_tf_metrics(name):
    tf_name = {"streaming_sparse_precision_at_k": "precision_at_k", "streaming_sparse_recall_at_k": "recall_at_k",
               "streaming_sparse_average_precision_at_k": "average_precision_at_k"}[name]
    if not hasattr(tf.metrics, tf_name):
        with pytest.raises(NotImplementedError, match=tf_name):
            _run(AT_K[name])
        pytest.skip("tf.metrics.%s is not in this tinyflow yet (the contrib name wraps it)" % tf_name)
    for g, want in zip(_run(AT_K[name]), TF[name]):
        np.testing.assert_allclose(g, want, rtol=1e-6, err_msg=name)


def test_covariance_is_nan_until_two_samples_and_names_variables():
    with tf.Graph().as_default():
        value, update = m.streaming_covariance(tf.constant([1.0]), tf.constant([2.0]), metrics_collections=["mc"])
        names = sorted(v.op.name for v in tf.local_variables())
        assert names == ["covariance/comoment", "covariance/count", "covariance/mean_label",
                         "covariance/mean_prediction"]
        assert tf.get_collection("mc") == [value]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert np.isnan(sess.run(update))


def test_accuracy_aggregate_and_namespace():
    with tf.Graph().as_default():
        acc = m.accuracy(tf.constant([1, 2, 3, 4]), tf.constant([1, 2, 0, 4]),
                         weights=tf.constant([1.0, 0.5, 2.0, 1.0]))
        names_to_values, names_to_updates = m.aggregate_metric_map({
            "mae": m.streaming_mean_absolute_error(tf.constant([1.0, 3.0]), tf.constant([2.0, 2.0])),
            "mean": m.streaming_mean(tf.constant([4.0, 6.0]))})
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run(names_to_updates) == {"mae": 1.0, "mean": 5.0}
            np.testing.assert_allclose(sess.run(acc), TF["accuracy"], rtol=1e-6)
        with pytest.raises(ValueError, match="Dtypes"):
            m.accuracy(tf.constant([1.0]), tf.constant([1]))
    assert tf.contrib.slim.metrics.streaming_auc is m.streaming_auc
    assert m.confusion_matrix is tf.confusion_matrix
    assert set(names_to_values) == {"mae", "mean"}
