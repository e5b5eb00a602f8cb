"""tf.estimator.TrainSpec / EvalSpec / train_and_evaluate, on one machine: train for
`throttle_secs` (or between checkpoints), evaluate the new checkpoint, repeat until max_steps."""
import collections
import os
import time

from tinyflow.api import tf_names as _tf


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    """What train_and_evaluate trains on: input_fn, max_steps (None: until the input ends), hooks."""

    def __new__(cls, input_fn, max_steps=None, hooks=None):
        if not callable(input_fn):
            raise TypeError("`input_fn` must be callable, given: {}".format(input_fn))
        if max_steps is not None and max_steps <= 0:
            raise ValueError("Must specify max_steps > 0, given: {}".format(max_steps))
        return super().__new__(cls, input_fn, max_steps, tuple(hooks or ()))


class EvalSpec(collections.namedtuple("EvalSpec", ["input_fn", "steps", "name", "hooks", "exporters",
                                                   "start_delay_secs", "throttle_secs"])):
    """What train_and_evaluate evaluates on: input_fn, steps (None: until the input ends), name, hooks."""

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None, start_delay_secs=120,
                throttle_secs=600):
        if not callable(input_fn):
            raise TypeError("`input_fn` must be callable, given: {}".format(input_fn))
        if steps is not None and steps <= 0:
            raise ValueError("Must specify steps > 0, given: {}".format(steps))
        if throttle_secs < 0:
            raise ValueError("Must specify throttle_secs >= 0, given: {}".format(throttle_secs))
        from tinyflow.api.estimator.export import check_exporters
        return super().__new__(cls, input_fn, steps, name, tuple(hooks or ()), check_exporters(exporters),
                               start_delay_secs, throttle_secs)


class _EvaluateAfterSave:
    """A CheckpointSaverListener that evaluates each new checkpoint (at most every throttle_secs)."""

    def __init__(self, estimator, eval_spec, max_steps=None):
        self._estimator, self._spec, self._max_steps = estimator, eval_spec, max_steps
        self._last_time, self.last_step, self.metrics, self.export_results = None, None, None, []

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        now = time.time()
        if global_step_value == 0 or global_step_value == self.last_step:
            return False
        if self._last_time is not None and now - self._last_time < self._spec.throttle_secs:
            return False
        self.evaluate(global_step_value)
        self._last_time = now
        return False

    def end(self, session, global_step_value):
        pass

    def evaluate(self, step, is_the_final_export=False):
        self.metrics = self._estimator.evaluate(self._spec.input_fn, steps=self._spec.steps,
                                                hooks=list(self._spec.hooks), name=self._spec.name)
        self.last_step = step
        # TF's exporters run after each evaluation, into model_dir/export/<name>; the export of the
        # checkpoint at max_steps (or the last one) is the final export
        is_the_final_export = is_the_final_export or (self._max_steps is not None and step >= self._max_steps)
        checkpoint = self._estimator.latest_checkpoint()
        self.export_results = [e.export(self._estimator, os.path.join(self._estimator.model_dir, "export", e.name),
                                        checkpoint, self.metrics, is_the_final_export) for e in self._spec.exporters]


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains `estimator` until train_spec.max_steps (or the end of its input), evaluating each new
    checkpoint (at most every eval_spec.throttle_secs) and the final one, as TF's local executor;
    returns (the last evaluation's metrics, the last exports' results: one per EvalSpec exporter)."""
    if not isinstance(train_spec, TrainSpec):
        raise TypeError("`train_spec` must have type `tf.estimator.TrainSpec`. Got: {}".format(type(train_spec)))
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {}".format(type(eval_spec)))
    config = estimator.config
    if not (config.save_checkpoints_steps or config.save_checkpoints_secs):
        raise ValueError("train_and_evaluate needs checkpoints: set RunConfig.save_checkpoints_steps or "
                         "save_checkpoints_secs.")
    listener = _EvaluateAfterSave(estimator, eval_spec, train_spec.max_steps)
    estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks), max_steps=train_spec.max_steps,
                    saving_listeners=[listener])
    step = _global_step(estimator)
    if listener.last_step != step:
        listener.evaluate(step, is_the_final_export=True)
    return listener.metrics, listener.export_results


def _global_step(estimator):
    path = estimator.latest_checkpoint()
    return int(_tf.train.load_variable(path, "global_step")) if path else 0
