"""tf.estimator.TrainSpec / EvalSpec / train_and_evaluate, on one machine: train for
`throttle_secs` (or between checkpoints), evaluate the new checkpoint, repeat until max_steps."""
import collections
import time

import tinyflow as _tf


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
        if exporters:
            raise NotImplementedError("tinyflow: EvalSpec exporters (SavedModel export) are not supported yet.")
        return super().__new__(cls, input_fn, steps, name, tuple(hooks or ()), (), start_delay_secs, throttle_secs)


class _StopAfterSecs(_tf.train.SessionRunHook):
    """Ends a train() call after `secs` seconds (so that an evaluation can run), as TF's local executor."""

    def __init__(self, secs):
        self._secs = secs

    def begin(self):
        self._start = time.time()

    def after_run(self, run_context, run_values):
        if time.time() - self._start >= self._secs:
            run_context.request_stop()


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains `estimator` and evaluates it after each checkpoint-saving period until train_spec.max_steps;
    returns (the last evaluation's metrics, export results [])."""
    if not isinstance(train_spec, TrainSpec):
        raise TypeError("`train_spec` must have type `tf.estimator.TrainSpec`. Got: {}".format(type(train_spec)))
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {}".format(type(eval_spec)))
    config = estimator.config
    metrics = None
    while True:
        step_before = _global_step(estimator)
        if train_spec.max_steps is not None and step_before >= train_spec.max_steps:
            break
        hooks = list(train_spec.hooks)
        steps = None
        if config.save_checkpoints_steps:
            steps = config.save_checkpoints_steps  # evaluate after each checkpoint
        elif eval_spec.throttle_secs:
            hooks.append(_StopAfterSecs(max(eval_spec.throttle_secs, config.save_checkpoints_secs or 0)))
        if train_spec.max_steps is not None:
            target = train_spec.max_steps if steps is None else min(train_spec.max_steps, step_before + steps)
            estimator.train(train_spec.input_fn, hooks=hooks, max_steps=target)
        else:
            estimator.train(train_spec.input_fn, hooks=hooks, steps=steps)
        metrics = estimator.evaluate(eval_spec.input_fn, steps=eval_spec.steps, hooks=list(eval_spec.hooks),
                                     name=eval_spec.name)
        if _global_step(estimator) == step_before:
            break  # the training input is exhausted
        if train_spec.max_steps is None and steps is None:
            break
    return metrics, []


def _global_step(estimator):
    path = estimator.latest_checkpoint()
    return int(_tf.train.load_variable(path, "global_step")) if path else 0
