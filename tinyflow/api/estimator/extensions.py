"""tf.estimator's helpers around an Estimator (TF 1.15): add_metrics, the parse-example specs of the premade
estimators, early stopping (stop_if_* hooks reading the evaluations' event files), the logit-fn builders
of the premade models, and the raw supervised input receiver."""
import glob
import os
import re

from tinyflow.api import feature_column
from tinyflow.api import metrics as metrics_lib
from tinyflow.api import tf_names as _tf
from tinyflow.api.estimator.estimator import Estimator, _fn_args
from tinyflow.api.estimator.model_fn import ModeKeys
from tinyflow.api.train.hooks import SecondOrStepTimer, SessionRunHook


def add_metrics(estimator, metric_fn):
    """A new Estimator over the same model_dir whose evaluation also reports metric_fn's metrics:
    metric_fn takes any of (labels, predictions, features, config) and returns {name: (value, update_op)}."""
    args = _fn_args(metric_fn)
    unknown = set(args) - {"labels", "predictions", "features", "config"}
    if "predictions" not in args:
        raise ValueError("metric_fn (%s) must include predictions argument." % metric_fn)
    if unknown:
        raise ValueError("metric_fn (%s) has following not expected args: %s" % (metric_fn, sorted(unknown)))

    def new_model_fn(features, labels, mode, config):
        spec = estimator._call_model_fn(features, labels, mode)
        if mode != ModeKeys.EVAL:
            return spec
        given = {"labels": labels, "predictions": spec.predictions, "features": features, "config": config}
        metrics = dict(spec.eval_metric_ops)
        metrics.update(metric_fn(**{k: v for k, v in given.items() if k in args}))
        return spec._replace(eval_metric_ops=metrics)
    return Estimator(new_model_fn, model_dir=estimator.model_dir, config=estimator.config,
                     warm_start_from=estimator._warm_start_from)


def _with_label_and_weight(feature_columns, label_key, label_spec, weight_column):
    spec = feature_column.make_parse_example_spec(feature_columns)
    if label_key in spec:
        raise ValueError("label should not be used as feature. label_key: {}, features: {}".format(label_key,
                                                                                                    spec.keys()))
    spec[label_key] = label_spec
    if weight_column is not None:
        if isinstance(weight_column, str):
            weight_column = feature_column.numeric_column(weight_column)
        spec.update(feature_column.make_parse_example_spec([weight_column]))
    return spec


def classifier_parse_example_spec(feature_columns, label_key, label_dtype=None, label_default=None,
                                  weight_column=None):
    """The parse spec of tf.Examples for a premade classifier: the columns', the label (shape [1]) and the
    weight's."""
    label_dtype = label_dtype or _tf.int64
    return _with_label_and_weight(feature_columns, label_key, _tf.FixedLenFeature((1,), label_dtype,
                                                                                   label_default), weight_column)


def regressor_parse_example_spec(feature_columns, label_key, label_dtype=None, label_default=None,
                                 label_dimension=1, weight_column=None):
    """The parse spec of tf.Examples for a premade regressor: the label of shape [label_dimension]."""
    label_dtype = label_dtype or _tf.float32
    return _with_label_and_weight(feature_columns, label_key, _tf.FixedLenFeature((label_dimension,), label_dtype,
                                                                                   label_default), weight_column)


# ---- early stopping ------------------------------------------------------------------------------------
def read_eval_metrics(eval_dir):
    """{global step: {metric: value}} of the evaluations summarized in eval_dir's event files, by step."""
    from tinyflow.formats.events import summary_iterator
    results = {}
    for path in sorted(glob.glob(os.path.join(eval_dir, "*.tfevents.*"))):
        for event in summary_iterator(path):
            if event.HasField("summary"):
                for value in event.summary.value:
                    if value.HasField("simple_value"):
                        results.setdefault(event.step, {})[value.tag] = value.simple_value
    return dict(sorted(results.items()))


class _StopOnPredicateHook(SessionRunHook):
    """Asks training to stop once should_stop_fn() is True (checked every run_every_secs or _steps)."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = SecondOrStepTimer(every_secs=run_every_secs, every_steps=run_every_steps)

    def begin(self):
        self._global_step = _tf.train.get_global_step()

    def before_run(self, run_context):
        from tinyflow.api.train.hooks import SessionRunArgs
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results)
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._should_stop_fn():
                _tf.logging.info("Requesting early stopping at global step %d", step)
                run_context.request_stop()


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60, run_every_steps=None):
    """A training hook stopping once should_stop_fn() (no arguments) returns True."""
    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. Got: {}".format(type(estimator)))
    return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)


def _threshold_hook(estimator, metric_name, eval_dir, min_steps, run_every_secs, run_every_steps, passes):
    eval_dir = eval_dir or estimator.eval_dir()

    def should_stop():
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            if metric_name not in metrics:
                raise ValueError("Metric {} not found in eval metrics at step {}.".format(metric_name, step))
            if passes(metrics[metric_name]):
                return True
        return False
    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0, run_every_secs=60,
                        run_every_steps=None):
    """Stops training once an evaluation's metric_name is above threshold."""
    return _threshold_hook(estimator, metric_name, eval_dir, min_steps, run_every_secs, run_every_steps,
                           lambda v: v > threshold)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0, run_every_secs=60,
                       run_every_steps=None):
    """Stops training once an evaluation's metric_name is below threshold."""
    return _threshold_hook(estimator, metric_name, eval_dir, min_steps, run_every_secs, run_every_steps,
                           lambda v: v < threshold)


def _no_progress_hook(estimator, metric_name, max_steps, eval_dir, min_steps, run_every_secs, run_every_steps,
                      better):
    eval_dir = eval_dir or estimator.eval_dir()

    def should_stop():
        best, best_step = None, None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            if metric_name not in metrics:
                raise ValueError("Metric {} not found in eval metrics at step {}.".format(metric_name, step))
            value = metrics[metric_name]
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps:
                return True
        return False
    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase, eval_dir=None, min_steps=0,
                             run_every_secs=60, run_every_steps=None):
    """Stops training once metric_name has not risen for max_steps_without_increase steps of evaluations."""
    return _no_progress_hook(estimator, metric_name, max_steps_without_increase, eval_dir, min_steps,
                             run_every_secs, run_every_steps, lambda v, best: v > best)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease, eval_dir=None, min_steps=0,
                             run_every_secs=60, run_every_steps=None):
    """Stops training once metric_name has not fallen for max_steps_without_decrease steps of evaluations."""
    return _no_progress_hook(estimator, metric_name, max_steps_without_decrease, eval_dir, min_steps,
                             run_every_secs, run_every_steps, lambda v, best: v < best)


class _StopAtCheckpointStepHook(SessionRunHook):
    def __init__(self, model_dir, last_step):
        self._model_dir, self._last_step = model_dir, last_step

    def after_run(self, run_context, run_values):
        path = _tf.train.latest_checkpoint(self._model_dir)
        match = re.search(r"-(\d+)$", path or "")
        if match and int(match.group(1)) >= self._last_step:
            run_context.request_stop()


def make_stop_at_checkpoint_step_hook(estimator, last_step, wait_after_file_check_secs=30):
    """A hook (for evaluation loops of other workers) stopping once model_dir has a checkpoint at last_step."""
    return _StopAtCheckpointStepHook(estimator.model_dir, last_step)


# ---- the premade models' logits, as functions ------------------------------------------------------------
def call_logit_fn(logit_fn, features, mode, params, config):
    """logit_fn called with the arguments it names (features, mode, params, config); its logits checked."""
    args = _fn_args(logit_fn)
    given = {"features": features, "mode": mode, "params": params, "config": config}
    logits = logit_fn(**{k: v for k, v in given.items() if k in args})
    values = logits.values() if isinstance(logits, dict) else [logits]
    if not all(isinstance(v, _tf.Tensor) for v in values):
        raise ValueError("logit_fn should return a Tensor or a dictionary mapping strings to Tensors.  "
                         "logit_fn returned: {}".format(logits))
    return logits


def dnn_logit_fn_builder(units, hidden_units, feature_columns, activation_fn, dropout, input_layer_partitioner=None,
                         batch_norm=False):
    """fn(features, mode) -> the DNN premade model's logits (its variables in the current scope)."""
    from tinyflow.api.estimator.canned import dnn_logits
    if not (isinstance(units, int) and units > 0):
        raise ValueError("units must be a positive int.  Given type: {}".format(type(units)))

    def dnn_logit_fn(features, mode):
        return dnn_logits(features, list(hidden_units), list(feature_columns), units, activation_fn, dropout, mode,
                          batch_norm)
    return dnn_logit_fn


def linear_logit_fn_builder(units=1, feature_columns=(), sparse_combiner="sum"):
    """fn(features) -> the linear premade model's logits."""
    from tinyflow.api.estimator.canned import linear_logits

    def linear_logit_fn(features):
        return linear_logits(features, list(feature_columns), units, sparse_combiner)
    return linear_logit_fn


class SupervisedInputReceiver:
    """Features, labels and the receiver tensors that feed them (an exported train/eval graph's inputs)."""

    def __init__(self, features, labels, receiver_tensors):
        self.features, self.labels, self.receiver_tensors = features, labels, receiver_tensors


def build_raw_supervised_input_receiver_fn(features, labels, default_batch_size=None):
    """A receiver fn making one placeholder (batch size default_batch_size) per feature and label tensor."""
    if isinstance(features, dict) and isinstance(labels, dict) and set(features) & set(labels):
        raise ValueError("Features and labels must have distinct keys. Found overlapping keys: {}".format(
            set(features) & set(labels)))

    def placeholders(tensors, default_name):
        one = not isinstance(tensors, dict)
        items = {default_name: tensors} if one else tensors
        made = {k: _tf.placeholder(t.dtype, [default_batch_size] + t.shape.as_list()[1:], name=k)
                for k, t in items.items()}
        return (made[default_name] if one else made), made

    def supervised_input_receiver_fn():
        feats, f_recv = placeholders(features, "input")
        labs, l_recv = placeholders(labels, "label")
        return SupervisedInputReceiver(feats, labs, dict(f_recv, **l_recv))
    return supervised_input_receiver_fn


class InMemoryEvaluatorHook(SessionRunHook):
    """Evaluates the model being trained every every_n_iter steps (and at the end) without a checkpoint:
    the training session's variable values are loaded into an evaluation graph built once."""

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None, every_n_iter=100):
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError("invalid every_n_iter={}.".format(every_n_iter))
        self._estimator, self._input_fn, self._steps = estimator, input_fn, steps
        self._hooks, self._name, self._every_n_iter = list(hooks or []), name, every_n_iter
        self._graph = None

    def begin(self):
        self._timer = SecondOrStepTimer(every_steps=self._every_n_iter)
        self._train_vars = {v.op.name: v for v in _tf.global_variables()}
        self._global_step = _tf.train.get_global_step()

    def _build(self):
        self._graph = _tf.Graph()
        with self._graph.as_default():
            _tf.train.get_or_create_global_step()
            features, labels = self._estimator._call_input_fn(self._input_fn, ModeKeys.EVAL)
            spec = self._estimator._call_model_fn(features, labels, ModeKeys.EVAL)
            metrics = dict(spec.eval_metric_ops)
            if "loss" not in metrics:
                metrics["loss"] = metrics_lib.mean(spec.loss)
            self._values = {k: v[0] for k, v in metrics.items()}
            self._update = _tf.group(*[v[1] for v in metrics.values()])
            self._eval_vars = {v.op.name: v for v in _tf.global_variables()}
            self._local_init = _tf.group(_tf.local_variables_initializer(), _tf.tables_initializer())

    def _evaluate(self, session):
        if self._graph is None:
            self._build()
        names = sorted(set(self._train_vars) & set(self._eval_vars))
        values = session.run([self._train_vars[n] for n in names])
        with self._graph.as_default(), _tf.Session(graph=self._graph) as sess:
            for n, value in zip(names, values):
                self._eval_vars[n].load(value, sess)
            sess.run(self._local_init)
            step = 0
            try:
                while self._steps is None or step < self._steps:
                    sess.run(self._update)
                    step += 1
            except _tf.errors.OutOfRangeError:
                pass
            results = sess.run(self._values)
        from tinyflow.api.estimator.hooks import write_eval_summaries
        results["global_step"] = int(session.run(self._global_step))
        write_eval_summaries(self._estimator.eval_dir(self._name), results)
        self.results = results
        return results

    def after_run(self, run_context, run_values):
        step = int(run_context.session.run(self._global_step))
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            self._evaluate(run_context.session)

    def end(self, session):
        self._evaluate(session)
