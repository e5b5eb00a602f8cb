"""tf.contrib.factorization's k-means: the KMeans graph builder and the KMeansClustering Estimator.

TF 1.15's algorithm and variable names (`clusters`, `initialized`, the mini-batch counts), with one
difference XLA asks for: TF keeps the centers in a variable of unknown shape that starts empty and
grows as init_op picks centers batch after batch; here the variable has its final shape [k, dim] from the
start (k and the points' dimension must be known when the graph is built), and init_op picks all k
centers from one batch (a batch of fewer than k points is an InvalidArgumentError when init_op runs).
Random and k-means++ initial centers are drawn with tinyflow's random ops: valid and repeatable for a
fixed seed, not TF's draws; given initial centers (a tensor or array) give TF's numbers step by step.
"""
import math

from tinyflow.api import summary
from tinyflow.api import metrics
from tinyflow.api.estimator import export as _export
from tinyflow.api.estimator.estimator import Estimator
from tinyflow.api.estimator.model_fn import EstimatorSpec
from tinyflow.api.feature_column import input_layer
from tinyflow.api.train.hooks import SessionRunArgs, SessionRunHook
from tinyflow.api.train.step import get_global_step
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import control_dependencies
from tinyflow.ops import nn_ops, random_ops, state_ops
from tinyflow.ops.check_ops import assert_greater_equal
from tinyflow.ops.core import array_ops, indexing_ops, math_ops, sequence_ops
from tinyflow.ops.core.base import constant, convert_to_tensor

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
CLUSTERS_VAR_NAME = "clusters"


def _normalize(x):
    return nn_ops.l2_normalize(x, axis=1)


def _squared_distances(x, centers):
    """||x||^2 - 2 x.c + ||c||^2 for every row of x and every center, as TF computes it."""
    return (math_ops.reduce_sum(math_ops.square(x), 1, keepdims=True)
            - 2 * math_ops.matmul(x, centers, transpose_b=True)
            + array_ops.transpose(math_ops.reduce_sum(math_ops.square(centers), 1, keepdims=True)))


class KMeans:
    """Creates the graph for k-means clustering (full-batch Lloyd steps or mini-batch k-means)."""

    def __init__(self, inputs, num_clusters, initial_clusters=RANDOM_INIT, distance_metric=SQUARED_EUCLIDEAN_DISTANCE,
                 use_mini_batch=False, mini_batch_steps_per_iteration=1, random_seed=0,
                 kmeans_plus_plus_num_retries=2, kmc2_chain_length=200):
        if isinstance(initial_clusters, str) and initial_clusters not in (RANDOM_INIT, KMEANS_PLUS_PLUS_INIT,
                                                                          KMC2_INIT):
            raise ValueError("Unsupported initialization algorithm '%s'" % initial_clusters)
        if distance_metric not in (SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE):
            raise ValueError("Unsupported distance metric '%s'" % distance_metric)
        if isinstance(initial_clusters, str) and initial_clusters == KMC2_INIT:
            raise NotImplementedError("KMeans: initial_clusters='kmc2' (k-MC2 chains) is not supported by tinyflow; "
                                      "use 'kmeans_plus_plus' or 'random'")
        self._inputs = [convert_to_tensor(i) for i in (inputs if isinstance(inputs, list) else [inputs])]
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._use_mini_batch = use_mini_batch
        self._mini_batch_steps_per_iteration = int(mini_batch_steps_per_iteration)
        self._random_seed = random_seed
        self._kmeans_plus_plus_num_retries = kmeans_plus_plus_num_retries

    def _clusters_l2_normalized(self):
        return self._distance_metric == COSINE_DISTANCE and (
            not self._use_mini_batch or self._mini_batch_steps_per_iteration > 1)

    def _infer_graph(self, inputs, clusters):
        """(all_scores, scores, cluster_idx) per input, as TF's nearest_neighbors gives them."""
        all_scores, scores, idx = [], [], []
        if self._distance_metric == COSINE_DISTANCE and not self._clusters_l2_normalized():
            clusters = _normalize(clusters)
        for inp in inputs:
            if self._distance_metric == COSINE_DISTANCE:
                all_scores.append(1 - math_ops.matmul(inp, clusters, transpose_b=True))
                distances = 0.5 * _squared_distances(inp, clusters)
            else:
                distances = _squared_distances(inp, clusters)
                all_scores.append(distances)
            scores.append(math_ops.reduce_min(distances, 1))
            idx.append(math_ops.argmin(distances, 1, output_type=dt.int64))
        return all_scores, scores, idx

    # ---- initial centers ---------------------------------------------------------------------------------
    def _random(self, points, k):
        n = array_ops.shape(points, out_type=dt.int64)[0]
        indices = random_ops.random_uniform([k], 0, n, dtype=dt.int64, seed=self._random_seed)
        return indexing_ops.gather(points, indices)

    def _kmeans_plus_plus(self, points, k):
        """k-means++: each new center drawn with probability proportional to the squared distance to the
        nearest center so far, the best (lowest total potential) of 1 + num_retries draws kept."""
        retries = self._kmeans_plus_plus_num_retries
        trials = 1 + (retries if retries >= 0 else 2 + int(math.log(max(k, 1))))
        first = self._random(points, 1)
        centers = first
        nearest = math_ops.reduce_sum(math_ops.square(points - first), 1)   # [n]
        for _ in range(k - 1):
            logits = math_ops.log(math_ops.maximum(nearest, 1e-30))[None]
            candidates = random_ops.multinomial(logits, trials, seed=self._random_seed)[0]   # [trials]
            cand_points = indexing_ops.gather(points, candidates)                            # [trials, d]
            cand_d = math_ops.maximum(_squared_distances(cand_points, points), 0.0)           # [trials, n]
            new_nearest = math_ops.minimum(cand_d, nearest[None])
            best = math_ops.argmin(math_ops.reduce_sum(new_nearest, 1), 0)
            centers = array_ops.concat([centers, indexing_ops.gather(cand_points, best[None])], 0)
            nearest = indexing_ops.gather(new_nearest, best)
        return centers

    def _choose_initial_centers(self, k):
        points = array_ops.concat(self._inputs, 0) if len(self._inputs) > 1 else self._inputs[0]
        if self._distance_metric == COSINE_DISTANCE and isinstance(self._initial_clusters, str) \
                and self._initial_clusters == KMEANS_PLUS_PLUS_INIT:
            points = _normalize(points)
        if isinstance(self._initial_clusters, str):
            check = assert_greater_equal(array_ops.shape(points)[0], k, message=(
                "KMeans init_op: a batch of fewer points than num_clusters=%d" % k))
            with control_dependencies([check]):
                points = array_ops.identity(points)
            if self._initial_clusters == RANDOM_INIT:
                return self._random(points, k)
            return self._kmeans_plus_plus(points, k)
        if callable(self._initial_clusters):
            return self._initial_clusters(self._inputs, k)
        return self._initial_clusters

    def training_graph(self):
        """Returns (all_scores, cluster_idx, scores, cluster_centers_initialized, init_op, training_op):
        lists (one item per input) of the distances to every center, the nearest center's index and its
        distance; the bool variable init_op sets; the op choosing the initial centers; one training step."""
        if isinstance(self._initial_clusters, str) or callable(self._initial_clusters):
            k = self._num_clusters
            if not isinstance(k, int):
                k = int(getattr(k, "value", k)) if not hasattr(k, "op") else k
            if not isinstance(k, int):
                raise ValueError("KMeans: num_clusters must be a Python integer in tinyflow (XLA needs the "
                                 "centers' shape when the graph is built)")
        else:
            self._initial_clusters = convert_to_tensor(self._initial_clusters, dtype=dt.float32)
            k = self._initial_clusters.shape.as_list()[0]
            if k is None:
                raise ValueError("KMeans: initial_clusters must have a known number of rows")
        dim = self._inputs[0].shape.as_list()[-1]
        if dim is None:
            raise ValueError("KMeans: the inputs' last dimension must be known (got %s)" % self._inputs[0].shape)
        centers = state_ops.Variable(array_ops.zeros([k, dim]), name=CLUSTERS_VAR_NAME)
        initialized = state_ops.Variable(False, dtype=dt.bool_, name="initialized")
        updated, update_in_steps, counts = centers, None, None
        if self._use_mini_batch and self._mini_batch_steps_per_iteration > 1:
            updated = state_ops.Variable(array_ops.zeros([k, dim]), name="clusters_updated")
            update_in_steps = state_ops.Variable(self._mini_batch_steps_per_iteration, dtype=dt.int64,
                                                 name="update_in_steps")
            counts = state_ops.Variable(array_ops.zeros([k], dtype=dt.int64))
        elif self._use_mini_batch:
            counts = state_ops.Variable(array_ops.ones([k], dtype=dt.int64))
        init_op = self._init_op(k, centers, updated, initialized)

        inputs, cluster_centers = self._inputs, centers.value()
        if self._distance_metric == COSINE_DISTANCE:
            inputs = [_normalize(i) for i in inputs]
        all_scores, scores, cluster_idx = self._infer_graph(inputs, cluster_centers)
        if self._use_mini_batch:
            sync = self._sync_op(update_in_steps, centers, updated, counts)
            with control_dependencies([sync]):
                training_op = self._mini_batch_training_op(inputs, cluster_idx, updated, counts)
        else:
            training_op = self._full_batch_training_op(inputs, k, cluster_idx, centers)
        return all_scores, cluster_idx, scores, initialized, init_op, training_op

    def _init_op(self, k, centers, updated, initialized):
        """Picks the k initial centers once: run again, it leaves the centers as they are."""
        chosen = convert_to_tensor(self._choose_initial_centers(k), dtype=dt.float32)
        if self._distance_metric == COSINE_DISTANCE:
            chosen = _normalize(chosen)
        new = math_ops.where_v2(initialized, centers.value(), chosen)
        assigned = [state_ops.assign(centers, new)]
        if updated is not centers:
            assigned.append(state_ops.assign(updated, new))
        with control_dependencies(assigned):
            return state_ops.assign(initialized, True).op

    def _sync_op(self, update_in_steps, centers, updated, counts):
        """Every mini_batch_steps_per_iteration steps: copy the updated centers back, reset the counts."""
        if update_in_steps is None:
            return state_ops.group()
        now = math_ops.less_equal(update_in_steps.value(), 0)
        source = _normalize(updated.value()) if self._distance_metric == COSINE_DISTANCE else updated.value()
        ops = [state_ops.assign(centers, math_ops.where_v2(now, source, centers.value())),
               state_ops.assign(counts, math_ops.where_v2(now, array_ops.zeros_like(counts.value()), counts.value()))]
        with control_dependencies(ops):
            steps = math_ops.where_v2(now, constant(self._mini_batch_steps_per_iteration - 1, dt.int64),
                                      update_in_steps.value() - 1)
            return state_ops.assign(update_in_steps, steps)

    def _mini_batch_training_op(self, inputs, cluster_idx_list, cluster_centers, total_counts):
        update_ops = []
        for inp, cluster_idx in zip(inputs, cluster_idx_list):
            unique_ids, unique_idx = sequence_ops.unique(array_ops.reshape(cluster_idx, [-1]))
            num_unique = array_ops.size(unique_ids)
            old_counts = indexing_ops.gather(total_counts, unique_ids)
            old_centers = indexing_ops.gather(cluster_centers, unique_ids)
            count_updates = indexing_ops.unsorted_segment_sum(
                array_ops.ones_like(unique_idx, dtype=dt.int64), unique_idx, num_unique)
            center_updates = indexing_ops.unsorted_segment_sum(inp, unique_idx, num_unique)
            center_updates -= math_ops.cast(count_updates, inp.dtype)[:, None] * old_centers
            rate = math_ops.reciprocal(math_ops.cast(old_counts + count_updates, inp.dtype))
            center_updates *= rate[:, None]
            update_ops += [state_ops.scatter_add(total_counts, unique_ids, count_updates),
                           state_ops.scatter_add(cluster_centers, unique_ids, center_updates)]
        return state_ops.group(*update_ops)

    def _full_batch_training_op(self, inputs, k, cluster_idx_list, cluster_centers):
        sums, counts = [], []
        for inp, cluster_idx in zip(inputs, cluster_idx_list):
            sums.append(indexing_ops.unsorted_segment_sum(inp, cluster_idx, k))
            ones = array_ops.ones_like(inp[:, :1])
            counts.append(indexing_ops.unsorted_segment_sum(ones, cluster_idx, k))
        new_centers = math_ops.add_n(sums) / (math_ops.add_n(counts) + 1e-6)
        if self._clusters_l2_normalized():
            new_centers = _normalize(new_centers)
        return state_ops.assign(cluster_centers, new_centers).op


# ---- the Estimator ---------------------------------------------------------------------------------------
class _LossRelativeChangeHook(SessionRunHook):
    """Stops training once the loss changes by less than `tolerance` (relative) between steps."""

    def __init__(self, loss_tensor, tolerance):
        self._loss_tensor, self._tolerance, self._prev_loss = loss_tensor, tolerance, None

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        loss = run_values.results
        if self._prev_loss and abs(loss - self._prev_loss) / (1 + abs(self._prev_loss)) < self._tolerance:
            run_context.request_stop()
        self._prev_loss = loss


class _InitializeClustersHook(SessionRunHook):
    """Runs init_op once the session exists, until the centers are initialized."""

    def __init__(self, init_op, is_initialized_var):
        self._init_op, self._is_initialized_var = init_op, is_initialized_var

    def after_create_session(self, session, coord):
        if not session.run(self._is_initialized_var):
            session.run(self._init_op)


def _parse_features(features, feature_columns):
    if not isinstance(features, dict):
        return features
    if feature_columns:
        return input_layer(features, feature_columns)
    return array_ops.concat([features[k] for k in sorted(features)], 1)


class KMeansClustering(Estimator):
    """An Estimator for k-means clustering (TF 1.15's tf.contrib.factorization.KMeansClustering)."""

    SQUARED_EUCLIDEAN_DISTANCE = SQUARED_EUCLIDEAN_DISTANCE
    COSINE_DISTANCE = COSINE_DISTANCE
    RANDOM_INIT = RANDOM_INIT
    KMEANS_PLUS_PLUS_INIT = KMEANS_PLUS_PLUS_INIT
    SCORE = "score"
    CLUSTER_INDEX = "cluster_index"
    ALL_DISTANCES = "all_distances"
    CLUSTER_CENTERS_VAR_NAME = CLUSTERS_VAR_NAME

    def __init__(self, num_clusters, model_dir=None, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, random_seed=0, use_mini_batch=True,
                 mini_batch_steps_per_iteration=1, kmeans_plus_plus_num_retries=2, relative_tolerance=None,
                 config=None, feature_columns=None):
        if isinstance(initial_clusters, str) and initial_clusters not in (RANDOM_INIT, KMEANS_PLUS_PLUS_INIT):
            raise ValueError("Unsupported initialization algorithm '%s'" % initial_clusters)
        if distance_metric not in (SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE):
            raise ValueError("Unsupported distance metric '%s'" % distance_metric)

        def model_fn(features, mode, config):
            points = _parse_features(features, feature_columns)
            (all_distances, predictions, losses, is_initialized, init_op, training_op) = KMeans(
                points, num_clusters, initial_clusters=initial_clusters, distance_metric=distance_metric,
                use_mini_batch=use_mini_batch, mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
                random_seed=random_seed, kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries).training_graph()
            loss = math_ops.reduce_sum(losses)
            summary.scalar("loss/raw", loss)
            incr_step = state_ops.assign_add(get_global_step(), 1)
            with control_dependencies([training_op, incr_step]):
                train_op = array_ops.identity(loss)
            hooks = [_InitializeClustersHook(init_op, is_initialized)]
            if relative_tolerance is not None:
                hooks.append(_LossRelativeChangeHook(loss, relative_tolerance))
            outputs = {self.ALL_DISTANCES: _export.PredictOutput(all_distances[0]),
                       self.CLUSTER_INDEX: _export.PredictOutput(predictions[0]),
                       "serving_default": _export.PredictOutput(predictions[0])}
            return EstimatorSpec(mode=mode, predictions={self.ALL_DISTANCES: all_distances[0],
                                                         self.CLUSTER_INDEX: predictions[0]},
                                 loss=loss, train_op=train_op, eval_metric_ops={self.SCORE: metrics.mean(loss)},
                                 training_hooks=hooks, export_outputs=outputs)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)

    def _predict_one_key(self, input_fn, predict_key):
        for result in self.predict(input_fn=input_fn, predict_keys=[predict_key]):
            yield result[predict_key]

    def predict_cluster_index(self, input_fn):
        """Yields the index of the nearest cluster center of each input point."""
        return self._predict_one_key(input_fn, self.CLUSTER_INDEX)

    def score(self, input_fn):
        """The sum of the distances of the first batch's points to their nearest centers."""
        return self.evaluate(input_fn=input_fn, steps=1)[self.SCORE]

    def transform(self, input_fn):
        """Yields each input point's distances to every cluster center."""
        return self._predict_one_key(input_fn, self.ALL_DISTANCES)

    def cluster_centers(self):
        """The cluster centers, read from the latest checkpoint."""
        return self.get_variable_value(self.CLUSTER_CENTERS_VAR_NAME)


__all__ = ["KMeans", "KMeansClustering", "COSINE_DISTANCE", "SQUARED_EUCLIDEAN_DISTANCE", "RANDOM_INIT",
           "KMEANS_PLUS_PLUS_INIT", "KMC2_INIT"]
