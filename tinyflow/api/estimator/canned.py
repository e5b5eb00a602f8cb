"""TF 1.15's premade estimators: DNN, Linear and DNN+Linear classifiers and regressors.

Variable names are TF's ("dnn/hiddenlayer_0/kernel", "dnn/logits/bias", "linear/linear_model/x/weights",
"linear/linear_model/bias_weights"), and so are the default optimizers (DNN: Adagrad with learning
rate 0.05; Linear: Ftrl with min(0.2, 1/sqrt(number of columns))) and the loss reduction (SUM).
"""
import math

from tinyflow.api import feature_column
from tinyflow.api import tf_names as _tf
from tinyflow.api.estimator.estimator import Estimator
from tinyflow.api.estimator.head import Head
from tinyflow.api.estimator.model_fn import ModeKeys

_OPTIMIZERS = {"Adagrad": lambda lr: _tf.train.AdagradOptimizer(lr), "Adam": lambda lr: _tf.train.AdamOptimizer(lr),
               "Ftrl": lambda lr: _tf.train.FtrlOptimizer(lr), "RMSProp": lambda lr: _tf.train.RMSPropOptimizer(lr),
               "SGD": lambda lr: _tf.train.GradientDescentOptimizer(lr)}


def _optimizer(opt, learning_rate):
    """An optimizer from a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an instance or a callable."""
    if isinstance(opt, str):
        if opt not in _OPTIMIZERS:
            raise ValueError("Unsupported optimizer name: {}. Supported names are: {}".format(
                opt, tuple(sorted(_OPTIMIZERS))))
        return _OPTIMIZERS[opt](learning_rate)
    if callable(opt) and not isinstance(opt, _tf.train.Optimizer):
        opt = opt()
    if not isinstance(opt, _tf.train.Optimizer):
        raise ValueError("The given object is not an Optimizer instance. Given: {}".format(opt))
    return opt


def _head(n_classes, weight_column, label_vocabulary, loss_reduction, label_dimension=None):
    if label_dimension is not None:
        return Head("regression", label_dimension=label_dimension, weight_column=weight_column,
                    loss_reduction=loss_reduction)
    if n_classes is None or n_classes < 2:
        raise ValueError("n_classes must be > 1 for classification: %s." % n_classes)
    return Head("binary" if n_classes == 2 else "multi_class", n_classes=n_classes, weight_column=weight_column,
                label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)


def _as_partitioned(variables):
    """Marks the variables TF 1.15's DNN and linear models create through a partitioner (one partition,
    `<name>/part_0`): their optimizer slots take TF's checkpoint keys (train/optimizer.py), so model_dirs
    move between TF and tinyflow."""
    for v in variables:
        v._tf_partitioned = True


def _check_features(features):
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. Given type: {}".format(type(features)))


def dnn_logits(features, hidden_units, feature_columns, units, activation_fn, dropout, mode, batch_norm=False):
    """The DNN tower: input_layer, hidden Dense layers (Glorot-uniform kernels), a logits layer."""
    with _tf.variable_scope("input_from_feature_columns"):
        net = feature_column.input_layer(features, feature_columns)
    training = mode == ModeKeys.TRAIN
    for i, n in enumerate(hidden_units):
        with _tf.variable_scope("hiddenlayer_%d" % i) as scope:
            net = _tf.layers.dense(net, n, activation=activation_fn,
                                   kernel_initializer=_tf.glorot_uniform_initializer(), name=scope)
            if batch_norm:
                net = _tf.layers.batch_normalization(net, momentum=0.999, training=training, name="batchnorm_%d" % i)
            if dropout is not None and training:
                net = _tf.layers.dropout(net, rate=dropout, training=True)
    with _tf.variable_scope("logits") as scope:
        return _tf.layers.dense(net, units, activation=None, kernel_initializer=_tf.glorot_uniform_initializer(),
                                name=scope)


def linear_logits(features, feature_columns, units, sparse_combiner):
    return feature_column.linear_model(features, feature_columns, units=units, sparse_combiner=sparse_combiner)


class _Premade(Estimator):
    def __init__(self, model_fn, feature_columns, model_dir, config, warm_start_from, label_vocabulary=None):
        super().__init__(model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)
        self._feature_columns_for_strings = list(feature_columns)
        self._label_vocabulary = label_vocabulary


def _feature_columns(columns):
    columns = list(columns or [])
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    return columns


class _DNNBase(_Premade):
    def __init__(self, head, hidden_units, feature_columns, model_dir, optimizer, activation_fn, dropout, config,
                 warm_start_from, batch_norm):
        feature_columns = _feature_columns(feature_columns)
        hidden_units = list(hidden_units)

        def model_fn(features, labels, mode, config):
            _check_features(features)
            with _tf.variable_scope("dnn"):  # (the head too, as TF's: its ops and the optimizer's slots in dnn/)
                logits = dnn_logits(features, hidden_units, feature_columns, head.logits_dimension, activation_fn,
                                    dropout, mode, batch_norm)
                _as_partitioned(_tf.trainable_variables())
                opt = _optimizer(optimizer, 0.05) if mode == ModeKeys.TRAIN else None
                return head.create_estimator_spec(features, mode, logits, labels, optimizer=opt)
        super().__init__(model_fn, feature_columns, model_dir, config, warm_start_from, head.label_vocabulary)


class DNNClassifier(_DNNBase):
    """A feed-forward classifier: hidden_units ReLU layers over the feature columns' input_layer."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Adagrad", activation_fn=_tf.nn.relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None, loss_reduction="weighted_sum",
                 batch_norm=False):
        super().__init__(_head(n_classes, weight_column, label_vocabulary, loss_reduction), hidden_units,
                         feature_columns, model_dir, optimizer, activation_fn, dropout, config, warm_start_from,
                         batch_norm)


class DNNRegressor(_DNNBase):
    """A feed-forward regressor (squared error) over the feature columns' input_layer."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Adagrad", activation_fn=_tf.nn.relu, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction="weighted_sum", batch_norm=False):
        super().__init__(_head(None, weight_column, None, loss_reduction, label_dimension), hidden_units,
                         feature_columns, model_dir, optimizer, activation_fn, dropout, config, warm_start_from,
                         batch_norm)


class _LinearBase(_Premade):
    def __init__(self, head, feature_columns, model_dir, optimizer, config, warm_start_from, sparse_combiner):
        feature_columns = _feature_columns(feature_columns)
        learning_rate = min(0.2, 1.0 / math.sqrt(len(feature_columns)))

        def model_fn(features, labels, mode, config):
            _check_features(features)
            with _tf.variable_scope("linear"):
                logits = linear_logits(features, feature_columns, head.logits_dimension, sparse_combiner)
                _as_partitioned(_tf.trainable_variables())
                opt = _optimizer(optimizer, learning_rate) if mode == ModeKeys.TRAIN else None
                return head.create_estimator_spec(features, mode, logits, labels, optimizer=opt)
        super().__init__(model_fn, feature_columns, model_dir, config, warm_start_from, head.label_vocabulary)


class LinearClassifier(_LinearBase):
    """A linear (logistic / softmax) classifier over the feature columns."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None, loss_reduction="weighted_sum",
                 sparse_combiner="sum"):
        super().__init__(_head(n_classes, weight_column, label_vocabulary, loss_reduction), feature_columns,
                         model_dir, optimizer, config, warm_start_from, sparse_combiner)


class LinearRegressor(_LinearBase):
    """A linear regressor (squared error) over the feature columns."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None, optimizer="Ftrl",
                 config=None, partitioner=None, warm_start_from=None, loss_reduction="weighted_sum",
                 sparse_combiner="sum"):
        super().__init__(_head(None, weight_column, None, loss_reduction, label_dimension), feature_columns,
                         model_dir, optimizer, config, warm_start_from, sparse_combiner)


class _CombinedBase(_Premade):
    def __init__(self, head, model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer,
                 dnn_hidden_units, dnn_activation_fn, dnn_dropout, config, warm_start_from, linear_sparse_combiner,
                 batch_norm):
        linear_columns, dnn_columns = list(linear_feature_columns or []), list(dnn_feature_columns or [])
        if not linear_columns and not dnn_columns:
            raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
        if dnn_columns and not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is specified. Given: {}, {}"
                             .format(dnn_hidden_units, dnn_columns))
        linear_rate = min(0.005, 1.0 / math.sqrt(max(len(linear_columns), 1)))  # TF's combined defaults

        def model_fn(features, labels, mode, config):
            _check_features(features)
            parts, groups = [], []
            if dnn_columns:
                with _tf.variable_scope("dnn") as scope:
                    parts.append(dnn_logits(features, list(dnn_hidden_units), dnn_columns, head.logits_dimension,
                                            dnn_activation_fn, dnn_dropout, mode, batch_norm))
                    groups.append((scope.name, dnn_optimizer, 0.001))
            if linear_columns:
                with _tf.variable_scope("linear") as scope:
                    parts.append(linear_logits(features, linear_columns, head.logits_dimension, linear_sparse_combiner))
                    groups.append((scope.name, linear_optimizer, linear_rate))
            logits = parts[0] if len(parts) == 1 else _tf.add_n(parts)

            def train_op_fn(loss):
                ops = []
                for scope_name, opt, rate in groups:
                    var_list = _tf.get_collection(_tf.GraphKeys.TRAINABLE_VARIABLES, scope_name + "/")
                    ops.append(_optimizer(opt, rate).minimize(loss, var_list=var_list))
                with _tf.control_dependencies(ops):
                    return _tf.assign_add(_tf.train.get_global_step(), 1).op
            return head.create_estimator_spec(features, mode, logits, labels, train_op_fn=train_op_fn)
        super().__init__(model_fn, linear_columns + dnn_columns, model_dir, config, warm_start_from,
                         head.label_vocabulary)


class DNNLinearCombinedClassifier(_CombinedBase):
    """Wide & deep: a linear model (Ftrl) and a DNN (Adagrad) whose logits add up."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl", dnn_feature_columns=None,
                 dnn_optimizer="Adagrad", dnn_hidden_units=None, dnn_activation_fn=_tf.nn.relu, dnn_dropout=None,
                 n_classes=2, weight_column=None, label_vocabulary=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction="weighted_sum", batch_norm=False,
                 linear_sparse_combiner="sum"):
        super().__init__(_head(n_classes, weight_column, label_vocabulary, loss_reduction), model_dir,
                         linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer,
                         dnn_hidden_units, dnn_activation_fn, dnn_dropout, config, warm_start_from,
                         linear_sparse_combiner, batch_norm)


class DNNLinearCombinedRegressor(_CombinedBase):
    """Wide & deep regression: a linear model and a DNN whose outputs add up."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl", dnn_feature_columns=None,
                 dnn_optimizer="Adagrad", dnn_hidden_units=None, dnn_activation_fn=_tf.nn.relu, dnn_dropout=None,
                 label_dimension=1, weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction="weighted_sum", batch_norm=False,
                 linear_sparse_combiner="sum"):
        super().__init__(_head(None, weight_column, None, loss_reduction, label_dimension), model_dir,
                         linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer,
                         dnn_hidden_units, dnn_activation_fn, dnn_dropout, config, warm_start_from,
                         linear_sparse_combiner, batch_norm)
