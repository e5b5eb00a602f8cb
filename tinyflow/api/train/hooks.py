"""Session-run hooks (tf.train.SessionRunHook and the common ones): code that runs around every
MonitoredSession.run, may add fetches to it and may ask the training loop to stop."""
import collections
import os
import time

import numpy as np

from tinyflow.api import logging as tf_logging
from tinyflow.api import summary
from tinyflow.api.train.saver import default_saver
from tinyflow.api.train.step import get_global_step


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run: fetches (any fetch structure) and feeds."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The run in progress, as a hook sees it: the caller's args, the session, request_stop()."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    original_args = property(lambda self: self._original_args)
    session = property(lambda self: self._session)
    stop_requested = property(lambda self: self._stop_requested)

    def request_stop(self):
        self._stop_requested = True


SessionRunValues = collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])


class SessionRunHook:
    """Base class: every method is optional."""

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        pass

    def end(self, session):
        pass


class SecondOrStepTimer:
    """Triggers every `every_secs` seconds or every `every_steps` steps (exactly one of them)."""

    def __init__(self, every_secs=None, every_steps=None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("Either every_secs or every_steps should be provided.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self):
        self._last_time, self._last_step = None, None

    def should_trigger_for_step(self, step):
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._every_secs is not None:
            return time.time() >= self._last_time + self._every_secs
        return step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step):
        now = time.time()
        elapsed = None if self._last_time is None else (now - self._last_time, step - self._last_step)
        self._last_time, self._last_step = now, step
        return elapsed

    def last_triggered_step(self):
        return self._last_step


def _global_step_or_fail(hook):
    step = get_global_step()
    if step is None:
        raise RuntimeError("Global step should be created to use %s." % hook)
    return step


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches last_step (or num_steps more than at the start)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._step = _global_step_or_fail("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._step)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            # the fetched step is the value before this run's increment: read the current one
            if run_context.session.run(self._step) >= self._last_step:
                run_context.request_stop()


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint when the session starts, every save_secs or save_steps, and at the end."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None, checkpoint_basename="model.ckpt",
                 scaffold=None, listeners=None):
        tf_logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver, self._scaffold = saver, scaffold
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = list(listeners or [])

    def begin(self):
        self._step = _global_step_or_fail("CheckpointSaverHook")
        os.makedirs(os.path.dirname(self._save_path) or ".", exist_ok=True)
        for listener in self._listeners:
            if hasattr(listener, "begin"):
                listener.begin()

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        return default_saver()

    def after_create_session(self, session, coord):
        step = int(session.run(self._step))
        self._save(session, step)
        self._timer.update_last_triggered_step(step)

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        if self._timer.should_trigger_for_step(int(run_values.results) + 1):
            step = int(run_context.session.run(self._step))
            if self._timer.should_trigger_for_step(step):
                self._timer.update_last_triggered_step(step)
                if self._save(run_context.session, step):
                    run_context.request_stop()

    def end(self, session):
        step = int(session.run(self._step))
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            if hasattr(listener, "end"):
                listener.end(session, step)

    def _save(self, session, step):
        """Saves; returns True when a listener asks to stop."""
        for listener in self._listeners:
            listener.before_save(session, step)
        tf_logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step)
        stop = False
        for listener in self._listeners:
            stop = bool(listener.after_save(session, step)) or stop
        return stop


class LoggingTensorHook(SessionRunHook):
    """Logs the values of some tensors every N steps or seconds (and/or at the end)."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError("invalid every_n_iter=%s." % every_n_iter)
        if not isinstance(tensors, dict):
            tensors = {(t if isinstance(t, str) else t.name): t for t in tensors}
        self._tensors = tensors
        self._formatter = formatter
        self._at_end = at_end
        self._timer = None if only_log_at_end else SecondOrStepTimer(every_secs=every_n_secs,
                                                                     every_steps=every_n_iter)

    def begin(self):
        self._iter = 0
        if self._timer:
            self._timer.reset()

    def before_run(self, run_context):
        self._should_log = bool(self._timer) and self._timer.should_trigger_for_step(self._iter)
        return SessionRunArgs(self._tensors) if self._should_log else None

    def _emit(self, values, elapsed=None):
        """TF's line: `loss = 0.1584287, step = 1`, then ` (0.059 sec)` since the last one."""
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        try:
            if self._formatter:
                tf_logging.info(self._formatter(values))
            elif elapsed is not None:
                tf_logging.info("%s (%.3f sec)", ", ".join("%s = %s" % (k, values[k]) for k in sorted(values)),
                                elapsed[0])
            else:
                tf_logging.info("%s", ", ".join("%s = %s" % (k, values[k]) for k in sorted(values)))
        finally:
            np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_log:
            self._emit(run_values.results, self._timer.update_last_triggered_step(self._iter))
        self._iter += 1

    def end(self, session):
        if self._at_end:
            self._emit(session.run(self._tensors))


class StepCounterHook(SessionRunHook):
    """Logs `global_step/sec: N` every `every_n_steps` steps (or every_n_secs seconds) and writes it as
    a summary to output_dir (or summary_writer)."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._output_dir, self._writer = output_dir, summary_writer

    def begin(self):
        self._step = _global_step_or_fail("StepCounterHook")
        self._timer.reset()

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        # the fetched step is the value before this run's increment (TF reads it after): +1
        step = int(run_values.results) + 1
        if not self._timer.should_trigger_for_step(step):
            return
        elapsed = self._timer.update_last_triggered_step(step)
        if elapsed is None or elapsed[1] <= 0:
            return
        rate = elapsed[1] / max(elapsed[0], 1e-9)
        tf_logging.info("global_step/sec: %g", rate)
        writer = self._writer
        if writer is None and self._output_dir:
            from tinyflow.api.summary import FileWriterCache
            writer = FileWriterCache.get(self._output_dir)
        if writer is not None:
            from tinyflow.formats.tf_protos import Summary
            writer.add_summary(Summary(value=[Summary.Value(tag="global_step/sec", simple_value=rate)]), step)


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Raises NanLossDuringTrainingError (or requests a stop) when the loss becomes NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss, self._fail = loss_tensor, fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            if self._fail:
                raise NanLossDuringTrainingError
            tf_logging.warning("Model diverged with loss = NaN.")
            run_context.request_stop()


class SummarySaverHook(SessionRunHook):
    """Writes the graph's merged summaries (or `summary_op`, or the scaffold's) every `save_steps` steps
    or `save_secs` seconds to output_dir (or to `summary_writer`).

    When every summary reads scalars only (tf.summary.scalar), the hook fetches those scalars at
    every step and builds the summary on the host when one is due: the training step keeps ONE
    fetch set, so it is compiled once, not again for the steps that write summaries."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None, scaffold=None,
                 summary_op=None):
        if (save_steps is None) == (save_secs is None):
            raise ValueError("Exactly one of save_steps or save_secs should be set.")
        if (scaffold is None) == (summary_op is None) and summary_op is not None:
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._save_steps, self._save_secs, self._output_dir = save_steps, save_secs, output_dir
        self._writer, self._scaffold, self._summary_op = summary_writer, scaffold, summary_op
        self._last = None

    def begin(self):
        if self._summary_op is None and self._scaffold is not None:
            self._summary_op = self._scaffold.summary_op
        if self._summary_op is None:
            self._summary_op = summary.merge_all()
        self._step = get_global_step()
        self._runs = 0
        self._leaves = None
        if self._summary_op is not None:
            leaves = _summary_leaves(self._summary_op)
            if all(t.shape.ndims == 0 for t in leaves):
                self._leaves = leaves

    def before_run(self, run_context):
        if self._summary_op is None:
            return None
        # every save_steps-th run of this session, starting with the first (as TF's SummarySaverHook)
        if self._save_steps is not None:
            self._due = self._runs % self._save_steps == 0
        else:
            self._due = self._last is None or time.time() - self._last >= self._save_secs
            self._last = time.time() if self._due else self._last
        self._runs += 1
        if self._leaves is not None:
            return SessionRunArgs({"leaves": self._leaves, "step": self._step})
        return SessionRunArgs({"summary": self._summary_op, "step": self._step}) if self._due else None

    def after_run(self, run_context, run_values):
        if not self._due:
            return
        results = run_values.results
        if self._leaves is not None:
            summary = _host_value(run_context.session, self._summary_op.op,
                                  dict(zip(self._leaves, results["leaves"])))
        else:
            summary = results["summary"]
        self._summary_writer().add_summary(summary, int(results["step"]) + 1)

    def _summary_writer(self):
        return self._writer if self._writer is not None else summary.FileWriterCache.get(self._output_dir)

    def end(self, session):
        if (self._output_dir or self._writer is not None) and self._summary_op is not None:
            self._summary_writer().flush()


def _host_computed(op):
    """The op's host rule when the Session computes it from fetched values (a summary), else None."""
    from tinyflow.graph.registry import FromFetched, get_op_def
    rule = get_op_def(op.type).host
    return rule if isinstance(rule, FromFetched) else None


def _summary_leaves(summary):
    """The tensors a summary op (and the summaries it merges) computes its value from."""
    out = []
    for t in summary.op.inputs:
        for leaf in (_summary_leaves(t) if _host_computed(t.op) else [t]):
            if leaf not in out:
                out.append(leaf)
    return out


def _host_value(session, op, leaf_values):
    """A summary op's value from its leaves' fetched values, by the ops' own host rules."""
    values = [_host_value(session, t.op, leaf_values) if _host_computed(t.op) else leaf_values[t] for t in op.inputs]
    return _host_computed(op)(session, op, values)[0]
