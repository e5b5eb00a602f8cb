"""More of tf.train's session-run hooks (TF 1.15): FeedFnHook, FinalOpsHook, GlobalStepWaiterHook, and
CheckpointSaverListener (what CheckpointSaverHook calls around each save)."""
import time

from tinyflow.api import logging as tf_logging
from tinyflow.api.train.hooks import SessionRunArgs, SessionRunHook
from tinyflow.api.train.step import get_global_step


class FeedFnHook(SessionRunHook):
    """Feeds feed_fn()'s dict to every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` (a tensor, list or dict) when the session ends; their values in final_ops_values."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops, self._final_ops_feed_dict, self._final_ops_values = final_ops, final_ops_feed_dict, None

    final_ops_values = property(lambda self: self._final_ops_values)

    def end(self, session):
        if self._final_ops is not None:
            self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)


class GlobalStepWaiterHook(SessionRunHook):
    """Delays the first run until the global step reaches wait_until_step (a worker starting after the
    chief has trained a while)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use _GlobalStepWaiterHook.")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        tf_logging.info("Waiting for global step %d before starting training.", self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = int(run_context.session.run(self._global_step_tensor))
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                tf_logging.info("Waiting for global step %d before starting training. Current step is %d.",
                                self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(0.5)


class CheckpointSaverListener:
    """Called by CheckpointSaverHook: begin(), before_save / after_save(session, global_step_value) around
    each save (after_save returning True stops training), end(session, global_step_value)."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass
