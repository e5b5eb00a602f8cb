"""tf.contrib.learn's Estimator API (TF 1.15 still ships it), over tinyflow's tf.estimator:

    def model_fn(features, targets, mode, params):
        ...
        return tf.contrib.learn.ModelFnOps(mode, predictions=..., loss=..., train_op=...)
    est = tf.contrib.learn.Estimator(model_fn=model_fn, params={"lr": 0.1})
    est.fit(x=X, y=Y, steps=100)                        # or input_fn=...
    est.evaluate(input_fn=..., metrics={"mae": tf.contrib.learn.MetricSpec(metric_fn, prediction_key="y")})
    est.predict(x=X)                                    # an iterable of single examples

A learn model_fn gets (features, labels) positionally (its second argument may be named targets), and
mode / params / config / model_dir by name; it returns ModelFnOps or (predictions, loss, train_op).
The learn premade estimators (DNNClassifier, ..., LinearRegressor) are tf.estimator's with the learn
names of their arguments and fit / predict_classes / predict_proba / predict_scores; they build
tf.estimator's graphs (variable names), not those of the learn versions.
"""
import collections

import numpy as np

from tinyflow.api import tf_names as _tf
from tinyflow.api.estimator import canned as _canned
from tinyflow.api.estimator import estimator as _core
from tinyflow.api.estimator.inputs import numpy_input_fn
from tinyflow.api.estimator.model_fn import EstimatorSpec, RunConfig as _CoreRunConfig

__all__ = ["DNNClassifier", "DNNRegressor", "Estimator", "LinearClassifier", "LinearRegressor", "MetricSpec",
           "ModelFnOps", "PredictionKey", "ProblemType", "RunConfig"]


class PredictionKey:
    """The keys of a learn head's predictions dict."""
    CLASSES = "classes"
    PROBABILITIES = "probabilities"
    LOGITS = "logits"
    LOGISTIC = "logistic"
    SCORES = "scores"
    TOP_K = "top_k"
    GENERIC = "output"


class ProblemType:
    """The problem a learn model solves (for its export signatures)."""
    UNSPECIFIED = 0
    CLASSIFICATION = 1
    LINEAR_REGRESSION = 2
    LOGISTIC_REGRESSION = 3


class RunConfig(_CoreRunConfig):
    """tf.contrib.learn.RunConfig: tf.estimator.RunConfig, also taking learn's session options
    (gpu_memory_fraction, num_cores, log_device_placement, ...: accepted, without effect on XLA)."""

    def __init__(self, master=None, num_cores=0, log_device_placement=False, gpu_memory_fraction=1,
                 tf_random_seed=None, save_summary_steps=100, save_checkpoints_secs=None, save_checkpoints_steps=None,
                 keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 protocol=None, evaluation_master="", model_dir=None, session_config=None, **unused):
        kwargs = dict(model_dir=model_dir, tf_random_seed=tf_random_seed, save_summary_steps=save_summary_steps,
                      keep_checkpoint_max=keep_checkpoint_max, log_step_count_steps=log_step_count_steps,
                      session_config=session_config)
        if save_checkpoints_steps is not None:
            kwargs["save_checkpoints_steps"] = save_checkpoints_steps
        elif save_checkpoints_secs is not None:
            kwargs["save_checkpoints_secs"] = save_checkpoints_secs
        super().__init__(**kwargs)
        self.num_cores, self.gpu_memory_fraction = num_cores, gpu_memory_fraction


class ModelFnOps(collections.namedtuple("ModelFnOps", [
        "predictions", "loss", "train_op", "eval_metric_ops", "output_alternatives", "training_chief_hooks",
        "training_hooks", "scaffold", "mode"])):
    """What a learn model_fn returns: the ops of one mode (checked as tf.estimator.EstimatorSpec)."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None, output_alternatives=None,
                training_chief_hooks=None, training_hooks=None, scaffold=None):
        spec = EstimatorSpec(mode, predictions if predictions is not None else ({} if mode != "infer" else None),
                             loss, train_op, eval_metric_ops, None, training_chief_hooks, training_hooks, scaffold)
        return super().__new__(cls, predictions, spec.loss, train_op, spec.eval_metric_ops, output_alternatives,
                               spec.training_chief_hooks, spec.training_hooks, spec.scaffold, mode)

    def estimator_spec(self, default_serving_output_alternative_key=None):
        """This as a tf.estimator.EstimatorSpec."""
        predictions = self.predictions if self.predictions is not None else {}
        return EstimatorSpec(self.mode, predictions, self.loss, self.train_op, self.eval_metric_ops, None,
                             self.training_chief_hooks, self.training_hooks, self.scaffold)


def _args(fn):
    return _core._fn_args(fn)


class MetricSpec:
    """A metric for learn's evaluate(metrics=...): metric_fn over predictions[prediction_key],
    labels[label_key] and features[weight_key] (each key only where that is a dict)."""

    def __init__(self, metric_fn, prediction_key=None, label_key=None, weight_key=None):
        if not callable(metric_fn):
            raise ValueError("metric_fn must be callable, given: %r" % (metric_fn,))
        self.metric_fn, self.prediction_key = metric_fn, prediction_key
        self.label_key, self.weight_key = label_key, weight_key

    @staticmethod
    def _pick(value, key, what):
        if key is None:
            if isinstance(value, dict):
                if len(value) != 1:
                    raise ValueError("MetricSpec without %s_key, but %ss is a dict of %d: %s"
                                     % (what, what, len(value), sorted(value)))
                return list(value.values())[0]
            return value
        if not isinstance(value, dict):
            raise ValueError("MetricSpec with %s_key=%r, but %ss is not a dict: %s" % (what, key, what, value))
        if key not in value:
            raise KeyError("%s_key %r not in %ss: %s" % (what, key, what, sorted(value)))
        return value[key]

    def create_metric_ops(self, inputs, labels, predictions):
        """(value, update_op) of metric_fn on this model's tensors."""
        p = self._pick(predictions, self.prediction_key, "prediction")
        lab = self._pick(labels, self.label_key, "label")
        kwargs = {}
        if self.weight_key is not None:
            kwargs["weights"] = inputs[self.weight_key]
        args = _args(self.metric_fn)
        if "predictions" in args and "labels" in args:
            return self.metric_fn(predictions=p, labels=lab, **kwargs)
        return self.metric_fn(p, lab, **kwargs)   # learn's positional order: (predictions, labels)


def _as_model_fn_ops(result, mode):
    if isinstance(result, ModelFnOps):
        return result
    if isinstance(result, EstimatorSpec):
        return ModelFnOps(result.mode, result.predictions, result.loss, result.train_op, result.eval_metric_ops,
                          None, result.training_chief_hooks, result.training_hooks, result.scaffold)
    if isinstance(result, tuple) and len(result) == 3:
        predictions, loss, train_op = result
        return ModelFnOps(mode, predictions, loss, train_op)
    raise ValueError("model_fn should return a ModelFnOps or (predictions, loss, train_op). Given: %s"
                     % type(result))


class _OnceWithoutInputPipeline(_tf.train.SessionRunHook):
    """learn's predict runs an input_fn without a queue or a tf.data iterator once (its features are fixed
    tensors: there is no end of input to wait for), as TF 1.15's learn Estimator does."""

    def begin(self):
        from tinyflow.graph.core import get_default_graph
        graph = get_default_graph()
        self._once = not _tf.get_collection(_tf.GraphKeys.QUEUE_RUNNERS) and not any(
            op.type in ("IteratorGetNext", "QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2")
            for op in graph.get_operations())

    def after_run(self, run_context, run_values):
        if self._once:
            run_context.request_stop()


class _LearnMethods:
    """learn's fit / evaluate / predict (numpy x and y, or an input_fn) over tf.estimator's train / evaluate /
    predict; evaluate(metrics=...) adds MetricSpecs (or metric functions) to the model's eval metrics."""
    _metric_specs = None

    @staticmethod
    def _input_fn(x, y, input_fn, batch_size, shuffle, epochs):
        if (x is None) == (input_fn is None):
            raise ValueError("Either x or input_fn must be provided (not both).")
        if input_fn is not None:
            if y is not None or batch_size is not None:
                raise ValueError("Inputs cannot be provided via both input_fn and x, y or batch_size.")
            return input_fn
        return numpy_input_fn(np.asarray(x), None if y is None else np.asarray(y),
                              batch_size=32 if batch_size is None else batch_size, shuffle=shuffle,
                              num_epochs=epochs)

    def fit(self, x=None, y=None, input_fn=None, steps=None, batch_size=None, monitors=None, max_steps=None):
        """Trains `steps` steps (or to max_steps) on x / y or input_fn's batches; returns self."""
        self.train(self._input_fn(x, y, input_fn, batch_size, True, None), hooks=monitors, steps=steps,
                   max_steps=max_steps)
        return self

    partial_fit = fit

    def evaluate(self, x=None, y=None, input_fn=None, feed_fn=None, batch_size=None, steps=None, metrics=None,
                 name=None, checkpoint_path=None, hooks=None, log_progress=True):
        """{metric: value} with "loss" and "global_step", over x / y (one pass) or input_fn."""
        if feed_fn is not None:
            raise NotImplementedError("tinyflow: learn's evaluate(feed_fn=...) is not supported")
        if metrics is not None and not isinstance(metrics, dict):
            raise ValueError("Metrics argument should be None or dict. Got %s." % metrics)
        self._metric_specs = metrics
        try:
            return super().evaluate(self._input_fn(x, y, input_fn, batch_size, False, 1), steps=steps,
                                    hooks=hooks, checkpoint_path=checkpoint_path, name=name)
        finally:
            self._metric_specs = None

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None, as_iterable=True,
                iterate_batches=False):
        """The predictions of x (or input_fn's features): an iterable of single examples (or of batches
        with iterate_batches), or with as_iterable=False the whole result at once."""
        fn = self._input_fn(x, None, input_fn, batch_size, False, 1)
        results = super().predict(fn, predict_keys=outputs, hooks=[_OnceWithoutInputPipeline()],
                                  yield_single_examples=not iterate_batches)
        if as_iterable:
            return results
        batches = list(super().predict(fn, predict_keys=outputs, hooks=[_OnceWithoutInputPipeline()],
                                       yield_single_examples=False))
        if not batches:
            return batches
        if isinstance(batches[0], dict):
            return {k: np.concatenate([b[k] for b in batches]) for k in batches[0]}
        return np.concatenate(batches)

    def _add_metric_specs(self, spec, features, labels):
        if not self._metric_specs or spec.mode != "eval":
            return spec
        ops = dict(spec.eval_metric_ops)
        for name, metric in self._metric_specs.items():
            if isinstance(metric, MetricSpec):
                ops[name] = metric.create_metric_ops(features, labels, spec.predictions)
            else:
                ops[name] = metric(spec.predictions, labels)
        return spec._replace(eval_metric_ops=ops)


class Estimator(_LearnMethods, _core.Estimator):
    """tf.contrib.learn.Estimator: a learn model_fn (returning ModelFnOps) trained by fit, measured by
    evaluate, applied by predict, with checkpoints in model_dir."""

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None, feature_engineering_fn=None):
        if not callable(model_fn):
            raise ValueError("model_fn must be provided to Estimator.")
        args = _args(model_fn)
        if params is not None and "params" not in args:
            raise ValueError("Estimator's model_fn (%s) does not have a params argument, but params (%s) were "
                             "passed to the Estimator's constructor." % (model_fn, params))
        self._learn_model_fn, self._learn_params = model_fn, params
        self._feature_engineering_fn = feature_engineering_fn or (lambda features, labels: (features, labels))
        super().__init__(self._core_model_fn, model_dir=model_dir, config=config)

    params = property(lambda self: self._learn_params)

    def _core_model_fn(self, features, labels, mode, config):
        features, labels = self._feature_engineering_fn(features, labels)
        args = _args(self._learn_model_fn)
        kwargs = {k: v for k, v in (("mode", mode), ("params", self._learn_params), ("config", config),
                                    ("model_dir", self.model_dir)) if k in args}
        ops = _as_model_fn_ops(self._learn_model_fn(features, labels, **kwargs), mode)
        return self._add_metric_specs(ops.estimator_spec(), features, labels)


def _learn_premade(core_cls, classifier):
    """A learn premade estimator: core_cls with learn's argument names and methods."""

    class Premade(_LearnMethods, core_cls):
        def __init__(self, *args, weight_column_name=None, label_keys=None, gradient_clip_norm=None,
                     enable_centered_bias=False, feature_engineering_fn=None, embedding_lr_multipliers=None,
                     input_layer_min_slice_size=None, _joint_weight=False, **kwargs):
            if gradient_clip_norm is not None or feature_engineering_fn is not None or embedding_lr_multipliers:
                raise NotImplementedError("tinyflow: learn %s's gradient_clip_norm / feature_engineering_fn / "
                                          "embedding_lr_multipliers are not supported" % core_cls.__name__)
            if weight_column_name is not None:
                kwargs["weight_column"] = weight_column_name
            if label_keys is not None:
                kwargs["label_vocabulary"] = label_keys
            super().__init__(*args, **kwargs)

        def _call_model_fn(self, features, labels, mode):
            spec = super()._call_model_fn(features, labels, mode)
            return self._add_metric_specs(spec, features, labels)

        if classifier:
            def predict_classes(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
                """The predicted class ids."""
                return _key(self.predict(x, input_fn, batch_size, ["class_ids"], as_iterable), "class_ids", True)

            def predict_proba(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
                """The predicted class probabilities."""
                return _key(self.predict(x, input_fn, batch_size, ["probabilities"], as_iterable), "probabilities")
        else:
            def predict_scores(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
                """The predicted values."""
                return _key(self.predict(x, input_fn, batch_size, ["predictions"], as_iterable), "predictions",
                            True)

    Premade.__name__ = Premade.__qualname__ = core_cls.__name__
    Premade.__doc__ = "tf.contrib.learn.%s: tf.estimator.%s with learn's fit / evaluate / predict." % (
        core_cls.__name__, core_cls.__name__)
    return Premade


def _key(result, key, squeeze=False):
    def one(v):
        v = v[key]
        return v.reshape(v.shape[:-1]) if squeeze and v.ndim and v.shape[-1] == 1 else v
    return one(result) if isinstance(result, dict) else (one(r) for r in result)


DNNClassifier = _learn_premade(_canned.DNNClassifier, True)
DNNRegressor = _learn_premade(_canned.DNNRegressor, False)
LinearClassifier = _learn_premade(_canned.LinearClassifier, True)
LinearRegressor = _learn_premade(_canned.LinearRegressor, False)


# ---- Experiment and learn_runner -------------------------------------------------------------------
class Experiment:
    """An estimator with its train and eval input_fns: train(), evaluate(), train_and_evaluate() (then the
    export strategies), test(); learn_runner.run calls one of them by name (the schedule)."""

    def __init__(self, estimator, train_input_fn, eval_input_fn, eval_metrics=None, train_steps=None, eval_steps=100,
                 train_monitors=None, eval_hooks=None, local_eval_frequency=None, eval_delay_secs=120,
                 continuous_eval_throttle_secs=60, min_eval_frequency=None, delay_workers_by_global_step=False,
                 export_strategies=None, train_steps_per_iteration=None, checkpoint_and_export=False,
                 saving_listeners=None, check_interval_secs=5):
        if not isinstance(estimator, _core.Estimator):
            raise ValueError("`estimator` must implement `tf.contrib.learn.Evaluable` and `tf.contrib.learn."
                             "Trainable`; got %s" % type(estimator))
        self._estimator, self._train_input_fn, self._eval_input_fn = estimator, train_input_fn, eval_input_fn
        self._eval_metrics, self._train_steps, self._eval_steps = eval_metrics, train_steps, eval_steps
        self._train_monitors, self._eval_hooks = list(train_monitors or []), list(eval_hooks or [])
        strategies = export_strategies or []
        self._export_strategies = list(strategies) if isinstance(strategies, (list, tuple)) else [strategies]

    estimator = property(lambda self: self._estimator)
    train_steps = property(lambda self: self._train_steps)
    eval_steps = property(lambda self: self._eval_steps)

    def train(self, delay_secs=None):
        """Trains train_steps steps (until the input ends when None)."""
        return self._estimator.fit(input_fn=self._train_input_fn, steps=self._train_steps,
                                   monitors=self._train_monitors) if isinstance(self._estimator, _LearnMethods) \
            else self._estimator.train(self._train_input_fn, hooks=self._train_monitors, steps=self._train_steps)

    def evaluate(self, delay_secs=None, name=None):
        """Evaluates eval_steps batches of the eval input_fn (with eval_metrics) on the latest checkpoint."""
        if isinstance(self._estimator, _LearnMethods):
            return self._estimator.evaluate(input_fn=self._eval_input_fn, steps=self._eval_steps,
                                            metrics=self._eval_metrics, name=name, hooks=self._eval_hooks)
        return self._estimator.evaluate(self._eval_input_fn, steps=self._eval_steps, hooks=self._eval_hooks,
                                        name=name)

    def train_and_evaluate(self):
        """train(), then evaluate() and the export strategies: (eval result, export results)."""
        self.train()
        result = self.evaluate()
        exports = [s.export(self._estimator, _export_dir(self._estimator, s)) for s in self._export_strategies]
        return result, exports

    local_run = train_and_evaluate

    def test(self):
        """One training step and one evaluation step (a smoke test of the experiment)."""
        self._estimator.train(self._train_input_fn, steps=1)
        return self._estimator.evaluate(self._eval_input_fn, steps=1)


def _export_dir(estimator, strategy):
    import os
    return os.path.join(estimator.model_dir, "export", strategy.name)


def run(experiment_fn, output_dir=None, schedule=None, run_config=None, hparams=None):
    """learn_runner.run: builds the Experiment (experiment_fn(run_config, hparams), or the old
    experiment_fn(output_dir)) and runs its `schedule` method (train_and_evaluate by default)."""
    if not callable(experiment_fn):
        raise TypeError("Experiment builder %s is not callable." % experiment_fn)
    if output_dir is not None:
        if run_config is not None:
            raise ValueError("Cannot provide both `output_dir` and `run_config`")
        experiment = experiment_fn(output_dir)
    else:
        if run_config is None:
            raise ValueError("`run_config` must be provided (or the old `output_dir`).")
        experiment = experiment_fn(run_config, hparams)
    if not isinstance(experiment, Experiment):
        raise TypeError("Experiment builder did not return an Experiment instance, got %s instead." % type(experiment))
    schedule = schedule or "train_and_evaluate"
    task = getattr(experiment, schedule, None)
    if not callable(task):
        raise ValueError("Schedule references non-existent task %s" % schedule)
    return task()


# ---- export strategies (tf.contrib.learn.utils) -------------------------------------------------------
class InputFnOps(collections.namedtuple("InputFnOps", ["features", "labels", "default_inputs"])):
    """What a learn serving_input_fn returns: features, labels (None) and the placeholders fed."""


class ExportStrategy(collections.namedtuple("ExportStrategy", ["name", "export_fn", "strip_default_attrs"])):
    """A named way to export an estimator: export(estimator, export_path, checkpoint_path) -> the export dir."""

    def __new__(cls, name, export_fn, strip_default_attrs=None):
        return super().__new__(cls, name, export_fn, strip_default_attrs)

    def export(self, estimator, export_path, checkpoint_path=None, eval_result=None):
        return self.export_fn(estimator, export_path, checkpoint_path)


def make_export_strategy(serving_input_fn, default_output_alternative_key=None, assets_extra=None, as_text=False,
                         exports_to_keep=5, strip_default_attrs=None):
    """An ExportStrategy "Servo" that writes a SavedModel of the estimator (its serving_input_fn may return
    learn's InputFnOps or a ServingInputReceiver)."""
    from tinyflow.api.estimator.export import ServingInputReceiver

    def receiver_fn():
        received = serving_input_fn()
        if isinstance(received, InputFnOps):
            return ServingInputReceiver(received.features, received.default_inputs)
        return received

    def export_fn(estimator, export_dir_base, checkpoint_path=None):
        return estimator.export_savedmodel(export_dir_base, receiver_fn, assets_extra=assets_extra, as_text=as_text,
                                           checkpoint_path=checkpoint_path)
    return ExportStrategy("Servo", export_fn, strip_default_attrs)
