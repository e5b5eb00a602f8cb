"""TF 1.15's premade estimators over a head the user gives (DNNEstimator, LinearEstimator,
DNNLinearCombinedEstimator) and the Baseline models (a learned bias, no features): the model functions
of canned.py with any head of heads.py (or the premade ones' Head)."""
from tinyflow.api import tf_names as _tf
from tinyflow.api.estimator.canned import (_CombinedBase, _DNNBase, _LinearBase, _optimizer, _Premade, _head,
                                           _check_features)
from tinyflow.api.estimator.model_fn import ModeKeys


class DNNEstimator(_DNNBase):
    """A feed-forward network over the feature columns, trained and evaluated by `head`."""

    def __init__(self, head, hidden_units, feature_columns, model_dir=None, optimizer="Adagrad",
                 activation_fn=_tf.nn.relu, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, batch_norm=False):
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer, activation_fn, dropout, config,
                         warm_start_from, batch_norm)


class LinearEstimator(_LinearBase):
    """A linear model over the feature columns, trained and evaluated by `head`."""

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None, partitioner=None,
                 sparse_combiner="sum", warm_start_from=None):
        super().__init__(head, feature_columns, model_dir, optimizer, config, warm_start_from, sparse_combiner)


class DNNLinearCombinedEstimator(_CombinedBase):
    """Wide & deep over `head`: a linear model (Ftrl) and a DNN (Adagrad) whose logits add up."""

    def __init__(self, head, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=_tf.nn.relu, dnn_dropout=None, input_layer_partitioner=None, config=None,
                 linear_sparse_combiner="sum", batch_norm=False, warm_start_from=None):
        super().__init__(head, model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                         dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout, config, warm_start_from,
                         linear_sparse_combiner, batch_norm)


def _batch_size(features, weight_column):
    """The batch size of the features: the weight column's, else the first feature's (a SparseTensor's
    dense_shape[0])."""
    if weight_column is not None:
        values = features[weight_column if isinstance(weight_column, str) else weight_column.key]
    else:
        values = features[sorted(features)[0]]
    if hasattr(values, "dense_shape"):
        return _tf.cast(values.dense_shape[0], _tf.int32)
    return _tf.shape(_tf.convert_to_tensor(values))[0]


class BaselineEstimator(_Premade):
    """Predicts the same logits for every example: a bias ("baseline/bias") learned from the labels alone
    (the prior class distribution, or the mean label)."""

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None, warm_start_from=None):
        weight_column = getattr(head, "_weight_column", None)

        def model_fn(features, labels, mode, config):
            _check_features(features)
            with _tf.variable_scope("baseline"):
                bias = _tf.get_variable("bias", shape=[head.logits_dimension], initializer=_tf.zeros_initializer())
                batch = _batch_size(features, weight_column)
                logits = _tf.tile(_tf.reshape(bias, [1, -1]), _tf.stack([batch, 1]))
                opt = _optimizer(optimizer, 0.3) if mode == ModeKeys.TRAIN else None
                return head.create_estimator_spec(features, mode, logits, labels, optimizer=opt)
        super().__init__(model_fn, [], model_dir, config, warm_start_from, getattr(head, "label_vocabulary", None))


class BaselineClassifier(BaselineEstimator):
    """Predicts the class distribution seen in training for every example."""

    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None, optimizer="Ftrl",
                 config=None, loss_reduction="weighted_sum"):
        super().__init__(_head(n_classes, weight_column, label_vocabulary, loss_reduction), model_dir, optimizer,
                         config)


class BaselineRegressor(BaselineEstimator):
    """Predicts the mean label seen in training for every example."""

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None, optimizer="Ftrl", config=None,
                 loss_reduction="weighted_sum"):
        super().__init__(_head(None, weight_column, None, loss_reduction, label_dimension), model_dir, optimizer,
                         config)
