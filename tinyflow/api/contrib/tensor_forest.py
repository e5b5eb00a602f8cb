"""tf.contrib.tensor_forest, the random-forest tutorial's API: ForestHParams and RandomForestGraphs.

TF 1.15 grows its trees online in C++ resource ops: every leaf collects the examples that reach it and,
after `split_after_samples` of them, splits on the best (Gini) of `num_splits_to_consider` random
candidate splits (a feature, and a threshold taken from a collected example), until a tree has
`max_nodes` nodes. XLA has no place for trees that grow, so tinyflow keeps the forest on the host:
training_graph's op and inference_graph's probabilities call into numpy (tf.py_func) with the same online
scheme. The trees are random like TF's, never the same trees (compare accuracy, not nodes), and they live
in the Python process: a Saver does not checkpoint them.
"""
import math
import random
import sys
import types

import numpy as np

from tinyflow.api.contrib.learn import estimators as _learn
from tinyflow.api import metrics
from tinyflow.api.train.step import get_global_step
from tinyflow.graph import dtypes as dt
from tinyflow.ops import nn_ops, script_ops, state_ops
from tinyflow.ops.core import array_ops, math_ops


_LEAF_MODEL_TYPES = {"all_dense": (0, 0), "all_sparse": (1, 1), "sparse_then_dense": (3, 4)}
_FINISH_TYPES = {"basic": 0, "hoeffding": 2, "bootstrap": 3}
_PRUNING_TYPES = {"none": 0, "half": 1, "quarter": 2, "10_percent": 3, "hoeffding": 4}


class ForestHParams:
    """The forest's hyperparameters; fill() derives the ones left unset (TF 1.15's defaults)."""

    def __init__(self, num_trees=100, max_nodes=10000, bagging_fraction=1.0, num_splits_to_consider=0,
                 feature_bagging_fraction=1.0, max_fertile_nodes=0, split_after_samples=250,
                 valid_leaf_threshold=1, dominate_method="bootstrap", dominate_fraction=0.99,
                 model_name="all_dense", split_finish_name="basic", split_pruning_name="none",
                 prune_every_samples=0, early_finish_check_every_samples=0, collate_examples=False,
                 checkpoint_stats=False, use_running_stats_method=False, initialize_average_splits=False,
                 inference_tree_paths=False, param_file=None, split_name="less_or_equal", **kwargs):
        self.__dict__.update({k: v for k, v in locals().items() if k not in ("self", "kwargs")})
        self.__dict__.update(kwargs)

    def values(self):
        return self.__dict__

    def fill(self):
        """Sets the derived parameters (num_classes and num_features must be given)."""
        if not hasattr(self, "num_classes") or not hasattr(self, "num_features"):
            raise AttributeError("'ForestHParams' object has no attribute '%s'"
                                 % ("num_classes" if not hasattr(self, "num_classes") else "num_features"))
        self.bagged_num_features = int(self.feature_bagging_fraction * self.num_features)
        self.bagged_features = None
        if self.feature_bagging_fraction < 1.0:
            self.bagged_features = [random.sample(range(self.num_features), self.bagged_num_features)
                                    for _ in range(self.num_trees)]
        self.regression = getattr(self, "regression", False)
        if self.regression:
            raise NotImplementedError("tensor_forest: regression forests are not supported by tinyflow "
                                      "(classification only)")
        self.num_outputs = 1
        self.num_output_columns = self.num_classes + 1
        self.num_splits_to_consider = self.num_splits_to_consider or min(
            max(10, math.floor(math.sqrt(self.num_features))), 1000)
        self.base_random_seed = getattr(self, "base_random_seed", 0)
        # TF's proto enum values; the trees here always split as 'basic' finish with no pruning, which the
        # other settings only speed up in TF
        self.leaf_model_type, self.stats_model_type = _LEAF_MODEL_TYPES[self.model_name]
        self.finish_type = _FINISH_TYPES[self.split_finish_name]
        self.pruning_type = _PRUNING_TYPES[self.split_pruning_name]
        if self.pruning_type == 0:
            self.prune_every_samples = 0
        else:
            self.prune_every_samples = self.prune_every_samples or int(self.split_after_samples) / 2
        if self.finish_type == 0:
            self.early_finish_check_every_samples = 0
        else:
            self.early_finish_check_every_samples = (self.early_finish_check_every_samples
                                                     or int(self.split_after_samples) / 4)
        if self.split_name != "less_or_equal":
            raise NotImplementedError("tensor_forest: split_name=%r is not supported by tinyflow "
                                      "('less_or_equal' is)" % self.split_name)
        self.split_type = 0
        return self


class _Tree:
    """One online tree: arrays of nodes (feature, threshold, children) and, per leaf, its class counts and
    the examples collected until it splits."""

    def __init__(self, params, seed):
        self.p, self.rng = params, np.random.RandomState(seed)
        self.feature, self.threshold, self.left = [-1], [0.0], [-1]
        self.counts = [np.zeros(params.num_classes)]
        self.buffer = {0: []}

    def leaves(self, x):
        node = np.zeros(len(x), np.int64)
        while True:
            inner = np.array([self.left[n] >= 0 for n in node], bool)
            if not inner.any():
                return node
            f = np.array(self.feature)[node[inner]]
            go_right = x[inner, f] > np.array(self.threshold)[node[inner]]
            node[inner] = np.array(self.left)[node[inner]] + go_right

    def train(self, x, y):
        for i, leaf in enumerate(self.leaves(x)):
            self.counts[leaf][y[i]] += 1
            if leaf in self.buffer:
                self.buffer[leaf].append((x[i], y[i]))
                if len(self.buffer[leaf]) >= self.p.split_after_samples and len(self.left) + 2 <= self.p.max_nodes:
                    self._split(leaf)

    def _split(self, leaf):
        xs = np.array([b[0] for b in self.buffer[leaf]])
        ys = np.array([b[1] for b in self.buffer[leaf]])
        best, best_score = None, _gini(np.bincount(ys, minlength=self.p.num_classes)) * len(ys)
        for _ in range(self.p.num_splits_to_consider):
            f = self.rng.randint(xs.shape[1])
            t = xs[self.rng.randint(len(xs)), f]
            right = xs[:, f] > t
            score = sum(_gini(np.bincount(ys[m], minlength=self.p.num_classes)) * m.sum() for m in (~right, right))
            if score < best_score - 1e-12:
                best, best_score = (f, t, right), score
        if best is None:   # nothing separates these examples: the leaf stays, and stops collecting
            del self.buffer[leaf]
            return
        f, t, right = best
        first = len(self.left)
        self.feature[leaf], self.threshold[leaf], self.left[leaf] = f, t, first
        for side in (~right, right):
            self.feature.append(-1)
            self.threshold.append(0.0)
            self.left.append(-1)
            self.counts.append(np.bincount(ys[side], minlength=self.p.num_classes).astype(float))
            self.buffer[len(self.left) - 1] = list(zip(xs[side], ys[side]))
        del self.buffer[leaf]

    def probabilities(self, x):
        counts = np.array(self.counts)[self.leaves(x)]
        return (counts + 1.0) / (counts.sum(1, keepdims=True) + self.p.num_classes)   # smoothed: no leaf is 0/0

    def size(self):
        return len(self.left)


def _gini(counts):
    total = counts.sum()
    return 0.0 if total == 0 else 1.0 - ((counts / total) ** 2).sum()


class RandomForestGraphs:
    """Builds the graphs that train a random forest and evaluate it (TF 1.15's tensor_forest API)."""

    def __init__(self, params, tree_configs=None, tree_stats=None, device_assigner=None, variables=None,
                 tree_variables_class=None, tree_graphs=None, training=True):
        self.params = params
        seed = params.base_random_seed
        self._trees = [_Tree(params, (seed + i) if seed else None) for i in range(params.num_trees)]

    def _tree_data(self, i, x):
        bagged = self.params.bagged_features
        return x[:, bagged[i]] if bagged else x

    def _train(self, x, y):
        y = np.asarray(y).reshape(-1).astype(np.int64)
        if y.size and (y.min() < 0 or y.max() >= self.params.num_classes):
            raise ValueError("tensor_forest: labels must be in [0, %d), got %s"
                             % (self.params.num_classes, sorted(set(y.tolist()))[:5]))
        for i, tree in enumerate(self._trees):
            xs, ys = self._tree_data(i, x), y
            if self.params.bagging_fraction < 1.0:
                keep = tree.rng.uniform(size=len(y)) < self.params.bagging_fraction
                xs, ys = xs[keep], ys[keep]
            tree.train(xs, ys)
        return np.int64(sum(t.size() for t in self._trees))

    def _predict(self, x):
        probs = np.stack([t.probabilities(self._tree_data(i, x)) for i, t in enumerate(self._trees)], 1)
        return probs.astype(np.float32)

    def _features(self, input_data):
        if isinstance(input_data, dict):
            input_data = array_ops.concat([math_ops.cast(input_data[k], dt.float32) for k in sorted(input_data)], 1)
        return math_ops.cast(input_data, dt.float32)

    def training_graph(self, input_data, input_labels, num_trainers=1, trainer_id=0, **tree_kwargs):
        """An op that feeds one batch to every tree (each leaf splits once it has collected enough)."""
        x = self._features(input_data)
        sizes = script_ops.py_func(self._train, [x, input_labels], dt.int64, name="train_forest")
        sizes.set_shape([])
        # the host call must be an output of the step, or XLA drops it as unused: its result goes to a
        # variable outside every collection (assigned, never read)
        size = state_ops.Variable(0, dtype=dt.int64, trainable=False, collections=[], name="forest_size")
        return state_ops.group(state_ops.assign(size, sizes), name="train")

    def inference_graph(self, input_data, **inference_args):
        """(probabilities [batch, num_classes], tree_paths, variance), TF's triple."""
        x = self._features(input_data)
        all_predict = script_ops.py_func(self._predict, [x], dt.float32, name="forest_probabilities")
        all_predict.set_shape([x.shape[0], self.params.num_trees, self.params.num_classes])
        average = math_ops.reduce_sum(all_predict, 1) / float(self.params.num_trees)
        expected_squares = math_ops.reduce_sum(all_predict * all_predict, 1) / float(self.params.num_trees)
        variance = math_ops.maximum(0.0, expected_squares - average * average)
        paths = array_ops.zeros_like(all_predict[:, :, :0])   # no tree paths (inference_tree_paths is TF-only)
        return array_ops.identity(average, name="probabilities"), paths, variance

    def average_size(self):
        """The mean number of nodes of the trees."""
        size = script_ops.py_func(lambda: np.float32(np.mean([t.size() for t in self._trees])), [], dt.float32)
        size.set_shape([])
        return size

    def training_loss(self, features, labels, name="training_loss"):
        """TF's loss for the forest: minus the average tree size."""
        return math_ops.negative(self.average_size(), name=name)

    def validation_loss(self, features, labels):
        return math_ops.negative(self.average_size())

    def get_all_resource_handles(self):
        return []


class TensorForestEstimator(_learn.Estimator):
    """tf.contrib.learn's random-forest classifier: fit / evaluate / predict (keys logits, probabilities,
    classes, prediction_variance as TF's). The trees live in this object (shared by every graph the
    Estimator builds), so a new TensorForestEstimator on the same model_dir starts with empty trees; TF's
    early stopping (early_stopping_rounds) is not there: training runs the steps / epochs it is given."""

    def __init__(self, params, device_assigner=None, model_dir=None, feature_engineering_fn=None,
                 graph_builder_class=RandomForestGraphs, config=None, weights_name=None, keys_name=None,
                 feature_importance_summary=False, early_stopping_rounds=100, early_stopping_loss_threshold=0.001,
                 num_trainers=1, trainer_id=0, report_feature_importances=False, local_eval=False, version=None,
                 head=None, include_all_in_serving=False):
        forest = graph_builder_class(params)

        def model_fn(features, labels, mode):
            if isinstance(features, dict):
                features = array_ops.concat([array_ops.reshape(math_ops.cast(features[k], dt.float32),
                                                               [-1, _width(features[k])]) for k in sorted(features)], 1)
            logits, _, variance = forest.inference_graph(features)
            classes = math_ops.argmax(logits, 1)
            predictions = {"logits": logits, "probabilities": nn_ops.softmax(logits), "classes": classes,
                           "prediction_variance": variance}
            loss = train_op = metrics_ops = None
            if labels is not None:
                labels = array_ops.reshape(math_ops.cast(labels, dt.int32), [-1])
                loss = math_ops.reduce_mean(nn_ops.sparse_softmax_cross_entropy_with_logits(
                    labels=labels, logits=logits))
                train_op = state_ops.group(forest.training_graph(features, labels),
                                           state_ops.assign_add(get_global_step(), 1))
                metrics_ops = {"accuracy": metrics.accuracy(labels, classes)}
            return _learn.ModelFnOps(mode, predictions=predictions, loss=loss, train_op=train_op,
                                     eval_metric_ops=metrics_ops)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config,
                         feature_engineering_fn=feature_engineering_fn)


def _width(t):
    dims = t.shape.as_list() if t.shape.ndims is not None else [None]
    return int(np.prod(dims[1:])) if len(dims) > 1 and None not in dims[1:] else 1


# `from tensorflow.contrib.tensor_forest.python import tensor_forest`: this module is that file too
tensor_forest = sys.modules[__name__]
python = types.ModuleType(__name__ + ".python", "tf.contrib.tensor_forest.python")
python.tensor_forest = tensor_forest
random_forest = tensor_forest   # tensorflow.contrib.tensor_forest.client.random_forest
client = types.ModuleType(__name__ + ".client", "tf.contrib.tensor_forest.client")
client.random_forest = tensor_forest
__all__ = ["ForestHParams", "RandomForestGraphs", "TensorForestEstimator"]
