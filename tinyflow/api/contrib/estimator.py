"""Small tf.contrib namespaces real TF1 code imports:

- tf.contrib.estimator: clip_gradients_by_norm (an optimizer whose gradients are clipped by their global
  norm first), add_metrics and forward_features (an estimator with more eval metrics / predictions);
- tf.contrib.staging.StagingArea: TF's put / get API as a pass-through inside one step (get() gives what
  put() was given in the same graph: XLA has no cross-step staging buffer, so there is no one-step delay);
- tf.contrib.memory_stats: BytesInUse / MaxBytesInUse / BytesLimit as int64 scalars read on the host when the
  op runs, from JAX's allocator statistics of the first device (0 where the device reports none, as on CPU).
"""
import types

from tinyflow.api import tf_names as _tf
from tinyflow.api.estimator.estimator import Estimator, _fn_args
from tinyflow.api.train.optimizer import Optimizer
from tinyflow.graph.core import control_dependencies
from tinyflow.ops.clip_ops import clip_by_global_norm
from tinyflow.ops.core.array_ops import no_op


# ---- tf.contrib.estimator ------------------------------------------------------------------------------
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


estimator = types.ModuleType(__name__ + ".estimator", "tf.contrib.estimator")
estimator.__dict__.update(clip_gradients_by_norm=clip_gradients_by_norm, add_metrics=add_metrics,
                          forward_features=forward_features)


# ---- tf.contrib.staging --------------------------------------------------------------------------------
class StagingArea:
    """TF's StagingArea API (put / get / peek / size / clear) as a pass-through inside one step: get()
    gives the tensors the last put() was given (after that put runs), not the previous step's."""

    def __init__(self, dtypes, shapes=None, names=None, shared_name=None, capacity=0, memory_limit=0):
        self._dtypes = [_tf.as_dtype(d) for d in (dtypes if isinstance(dtypes, (list, tuple)) else [dtypes])]
        self._names = list(names) if names is not None else None
        if self._names is not None and len(self._names) != len(self._dtypes):
            raise ValueError("StagingArea names size must match dtypes size")
        self._staged = None

    names = property(lambda self: self._names)
    dtypes = property(lambda self: list(self._dtypes))

    def put(self, values, name=None):
        """Stages `values` (a list, or a dict by the area's names); returns the put op."""
        if isinstance(values, dict):
            if self._names is None:
                raise ValueError("StagingArea has no names, but put() was given a dict")
            if sorted(values) != sorted(self._names):
                raise ValueError("Keys in put() %s do not match the StagingArea names %s" % (sorted(values),
                                                                                             self._names))
            flat = [values[n] for n in self._names]
        else:
            flat = list(values) if isinstance(values, (list, tuple)) else [values]
        if len(flat) != len(self._dtypes):
            raise ValueError("put() given %d values, the StagingArea holds %d" % (len(flat), len(self._dtypes)))
        flat = [_tf.convert_to_tensor(v) for v in flat]
        for v, dtype in zip(flat, self._dtypes):
            if v.dtype.base_dtype != dtype:
                raise ValueError("Type mismatch in put(): %s vs the StagingArea's %s" % (v.dtype, dtype))
        put = _tf.group(*flat, name=name or "StagingArea_put")
        self._staged = (flat, put)
        return put

    def get(self, name=None):
        """The staged tensors (a list, or a dict by names), after the put that staged them."""
        return self.peek(0, name)

    def peek(self, index, name=None):
        if self._staged is None:
            raise ValueError("StagingArea.get() before any put(): tinyflow's StagingArea passes put()'s tensors "
                             "through in the same graph, so put() must come first")
        flat, put = self._staged
        with control_dependencies([put]):
            out = [_tf.identity(v) for v in flat]
        return dict(zip(self._names, out)) if self._names is not None else (out if len(out) > 1 else out[0])

    def size(self, name=None):
        return _tf.constant(0 if self._staged is None else 1, _tf.int32)

    def clear(self, name=None):
        return no_op(name=name or "StagingArea_clear")


staging = types.ModuleType(__name__ + ".staging", "tf.contrib.staging")
staging.StagingArea = StagingArea


# ---- tf.contrib.memory_stats ---------------------------------------------------------------------------
def _device_stat(key):
    def read():
        import jax
        import numpy as np
        stats = jax.devices()[0].memory_stats() or {}
        return np.int64(stats.get(key, 0))
    from tinyflow.ops.script_ops import py_func
    out = py_func(read, [], _tf.int64, stateful=True)
    out.set_shape([])
    return out


def BytesInUse():
    """The bytes the device allocator holds now (int64 scalar, read when the op runs)."""
    return _device_stat("bytes_in_use")


def MaxBytesInUse():
    """The peak bytes the device allocator has held (int64 scalar, read when the op runs)."""
    return _device_stat("peak_bytes_in_use")


def BytesLimit():
    """The bytes the device allocator may hold (int64 scalar)."""
    return _device_stat("bytes_limit")


memory_stats = types.ModuleType(__name__ + ".memory_stats", "tf.contrib.memory_stats")
memory_stats.__dict__.update(BytesInUse=BytesInUse, MaxBytesInUse=MaxBytesInUse, BytesLimit=BytesLimit)
