"""tf.contrib.estimator: clip_gradients_by_norm (an optimizer whose gradients are clipped by their global
norm first), add_metrics and forward_features (an estimator with more eval metrics / predictions)."""
from tinyflow.api.estimator.estimator import Estimator, _fn_args
from tinyflow.api.train.optimizer import Optimizer
from tinyflow.ops.clip_ops import clip_by_global_norm


class _TransformGradients(Optimizer):
    """`optimizer`, with transform_grads_fn applied to its (gradient, variable) pairs before they apply."""

    def __init__(self, optimizer, transform_grads_fn, name):
        super().__init__(False, name)
        self._optimizer, self._transform_grads_fn = optimizer, transform_grads_fn

    def compute_gradients(self, *args, **kwargs):
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._optimizer.apply_gradients(self._transform_grads_fn(list(grads_and_vars)), global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._optimizer.variables()


def clip_gradients_by_norm(optimizer, clip_norm):
    """`optimizer` with its gradients clipped by their global norm (tf.clip_by_global_norm) first."""
    def clip(grads_and_vars):
        gradients, variables = zip(*grads_and_vars)
        return list(zip(clip_by_global_norm(list(gradients), clip_norm)[0], variables))
    return _TransformGradients(optimizer, clip, "ClipByNorm" + optimizer.get_name())


def _wrap(estimator, transform):
    if not isinstance(estimator, Estimator):
        raise TypeError("estimator should be a tf.estimator.Estimator, given %s" % type(estimator))
    base_fn, base_args = estimator.model_fn, _fn_args(estimator.model_fn)

    def model_fn(features, labels, mode, config):
        kwargs = {k: v for k, v in (("labels", labels), ("mode", mode), ("config", config),
                                    ("params", estimator.params)) if k in base_args}
        return transform(base_fn(features=features, **kwargs), features, labels, config)
    return Estimator(model_fn, model_dir=estimator.model_dir, config=estimator.config)


def add_metrics(estimator, metric_fn):
    """A copy of `estimator` whose evaluation also reports metric_fn's metrics: metric_fn takes any of
    (labels, predictions, features, config) by name and returns {name: (value, update_op)}."""
    args = _fn_args(metric_fn)
    for a in args:
        if a not in ("labels", "predictions", "features", "config"):
            raise ValueError("metric_fn (%s) has an unsupported argument %r: it can take labels, predictions, "
                             "features, config" % (metric_fn, a))

    def transform(spec, features, labels, config):
        if spec.mode != "eval":
            return spec
        given = {"labels": labels, "predictions": spec.predictions, "features": features, "config": config}
        ops = dict(spec.eval_metric_ops)
        ops.update(metric_fn(**{a: given[a] for a in args}))
        return spec._replace(eval_metric_ops=ops)
    return _wrap(estimator, transform)


def forward_features(estimator, keys=None, sparse_default_values=None):
    """A copy of `estimator` whose predictions dict also holds the features `keys` (all when None)."""
    if isinstance(keys, str):
        keys = [keys]

    def transform(spec, features, labels, config):
        if spec.mode != "infer" or not isinstance(spec.predictions, dict):
            return spec
        wanted = list(features) if keys is None else keys
        for k in wanted:
            if k not in features:
                raise ValueError("Feature %s is not in the features dict." % k)
            if k in spec.predictions:
                raise ValueError("Cannot forward feature key (%s). Since it does exist in predictions." % k)
        return spec._replace(predictions=dict(spec.predictions, **{k: features[k] for k in wanted}))
    return _wrap(estimator, transform)
