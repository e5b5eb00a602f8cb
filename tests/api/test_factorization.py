"""tf.contrib.factorization's KMeans graph and KMeansClustering Estimator against TF 1.15's recorded numbers
(tests/fixtures/factorization/make_kmeans.py made kmeans.json)."""
import json
import os

import numpy as np
import pytest

import tinyflow as tf

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "factorization", "kmeans.json")))
POINTS = np.array(FIX["points"], np.float32)
INIT = np.array(FIX["init"], np.float32)
KMeans = tf.contrib.factorization.KMeans


def _graph_run(metric, mini_batch, steps, batches, initial=INIT, **kw):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 2])
    all_scores, idx, scores, initialized, init_op, train_op = KMeans(
        x, 3, initial_clusters=initial, distance_metric=metric, use_mini_batch=mini_batch, **kw).training_graph()
    centers = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
    rec = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert not sess.run(initialized)
        sess.run(init_op, {x: points_for_init(batches)})
        assert sess.run(initialized)
        for s in range(steps):
            feed = {x: batches[s % len(batches)]}
            a, i, sc = sess.run([all_scores[0], idx[0], scores[0]], feed)
            sess.run(train_op, feed)
            rec.append({"all_scores": a, "idx": i, "scores": sc, "centers": sess.run(centers)})
        names = sorted(v.op.name for v in tf.global_variables())
    return rec, names


def points_for_init(batches):
    return POINTS


@pytest.mark.parametrize("case,metric,mini,steps,split", [
    ("full_euclid", "squared_euclidean", False, 4, False), ("full_cosine", "cosine", False, 3, False)])
def test_kmeans_graph_matches_tf(case, metric, mini, steps, split):
    batches = [POINTS[:12], POINTS[12:]] if split else [POINTS]
    rec, names = _graph_run(metric, mini, steps, batches)
    want = FIX[case]
    assert names == want["variables"]
    for got, exp in zip(rec, want["steps"]):
        np.testing.assert_array_equal(got["idx"], exp["idx"])
        assert got["idx"].dtype == np.int64
        np.testing.assert_allclose(got["all_scores"], exp["all_scores"], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got["scores"], exp["scores"], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got["centers"], exp["centers"], rtol=1e-5, atol=1e-5)


def test_mini_batch_kmeans():
    """Mini-batch steps against numpy's mini-batch update (each center moves to its running mean, counts start
    at 1). TF 1.15's own centers are not a reference here: its counts' scatter_add is unordered with the gather
    of the old counts, so its learning rate is 1/(old + n) or 1/(old + 2n) from run to run (the fixture script
    records one such run); the first step's scores, before any update, are TF's."""
    batches = [POINTS[:12], POINTS[12:]]
    rec, names = _graph_run("squared_euclidean", True, 4, batches)
    assert names == FIX["mini_euclid"]["variables"]
    first = FIX["mini_euclid"]["steps"][0]
    np.testing.assert_array_equal(rec[0]["idx"], first["idx"])
    np.testing.assert_allclose(rec[0]["all_scores"], first["all_scores"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rec[0]["scores"], first["scores"], rtol=1e-5, atol=1e-5)
    centers, counts = INIT.astype(np.float64), np.ones(3)
    for s, got in enumerate(rec):
        b = batches[s % 2]
        idx = ((b[:, None] - centers[None]) ** 2).sum(-1).argmin(1)
        np.testing.assert_array_equal(got["idx"], idx)
        for j in np.unique(idx):
            n = (idx == j).sum()
            centers[j] += (b[idx == j].sum(0) - n * centers[j]) / (counts[j] + n)
            counts[j] += n
        np.testing.assert_allclose(got["centers"], centers, rtol=1e-5, atol=1e-5)


def test_mini_batch_steps_per_iteration_syncs():
    """With mini_batch_steps_per_iteration=2 the centers used for assignment change every second step only."""
    tf.reset_default_graph()
    x = tf.constant(POINTS)
    _, _, _, _, init_op, train_op = KMeans(x, 3, initial_clusters=INIT, use_mini_batch=True,
                                           mini_batch_steps_per_iteration=2).training_graph()
    by_name = {v.op.name: v for v in tf.global_variables()}
    assert sorted(by_name) == ["Variable", "clusters", "clusters_updated", "initialized", "update_in_steps"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(init_op)
        seen = []
        for _ in range(4):
            sess.run(train_op)
            seen.append(sess.run(by_name["clusters"]))
    # update_in_steps starts at 2: no sync on steps 1 and 2, the sync of step 3 copies the updated centers
    np.testing.assert_array_equal(seen[0], INIT)
    np.testing.assert_array_equal(seen[1], INIT)
    assert not np.allclose(seen[2], INIT)
    np.testing.assert_array_equal(seen[3], seen[2])


def test_init_op_runs_once():
    tf.reset_default_graph()
    x = tf.constant(POINTS)
    _, _, _, _, init_op, train_op = KMeans(x, 3, initial_clusters=INIT).training_graph()
    centers = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(init_op)
        sess.run(train_op)
        after = sess.run(centers)
        sess.run(init_op)   # already initialized: the centers stay
        np.testing.assert_array_equal(sess.run(centers), after)


@pytest.mark.slow
@pytest.mark.parametrize("init", ["random", "kmeans_plus_plus"])
def test_seeded_init_is_a_valid_repeatable_clustering(init):
    def run():
        tf.reset_default_graph()
        x = tf.constant(POINTS)
        _, idx, scores, _, init_op, train_op = KMeans(x, 3, initial_clusters=init, random_seed=7).training_graph()
        centers = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op)
            first = sess.run(centers)
            for _ in range(10):
                sess.run(train_op)
            return first, sess.run(centers), sess.run(idx[0]), sess.run(scores[0])
    first, centers, idx, scores = run()
    # initial centers are input points; the final ones are the means of their clusters
    assert all(np.any(np.all(np.isclose(POINTS, c), 1)) for c in first)
    for j in range(3):
        if np.any(idx == j):
            np.testing.assert_allclose(centers[j], POINTS[idx == j].mean(0), rtol=1e-4, atol=1e-4)
    d = ((POINTS[:, None] - centers[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(idx, d.argmin(1))
    np.testing.assert_allclose(scores, d.min(1), rtol=1e-4, atol=1e-4)
    again = run()
    np.testing.assert_array_equal(again[0], first)
    np.testing.assert_array_equal(again[1], centers)


def test_bad_arguments():
    x = tf.constant(POINTS)
    with pytest.raises(ValueError, match="Unsupported initialization algorithm 'nope'"):
        KMeans(x, 3, initial_clusters="nope")
    with pytest.raises(ValueError, match="Unsupported distance metric 'l1'"):
        KMeans(x, 3, distance_metric="l1")


@pytest.mark.slow
def test_kmeans_clustering_estimator_matches_tf(tmp_path):
    def input_fn():
        return tf.train.limit_epochs(tf.convert_to_tensor(POINTS), num_epochs=1)

    est = tf.contrib.factorization.KMeansClustering(3, model_dir=str(tmp_path), initial_clusters=INIT,
                                                    use_mini_batch=False)
    est.train(input_fn, steps=3)
    est.train(input_fn)
    est.train(input_fn)
    want = FIX["estimator"]
    # one step per train call (limit_epochs gives the points once); TF 1.15 records 6 (want["global_step"]):
    # its step that meets the end of input still runs the global step's assign_add, which has no input edge
    assert est.get_variable_value("global_step") == 3 and want["global_step"] == 6
    np.testing.assert_allclose(est.cluster_centers(), want["centers"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(est.score(input_fn), want["score"], rtol=1e-5)
    assert [int(i) for i in est.predict_cluster_index(input_fn)] == want["index"]
    np.testing.assert_allclose(np.array(list(est.transform(input_fn))), want["transform"], rtol=1e-4, atol=1e-4)
