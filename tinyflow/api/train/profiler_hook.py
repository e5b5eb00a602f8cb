"""tf.train.ProfilerHook: Chrome-trace files `timeline-<step>.json` every save_steps steps (or save_secs).

TF's timeline holds each kernel's start and duration from the executor's step stats. tinyflow runs a
step as one compiled XLA program, so there are no per-op kernels to report: each traced file holds one
complete event ("ph": "X") named after the step, spanning the step's wall time as the hook sees it (from
its before_run to its after_run: the session run and the other hooks' work around it), with the step's
fetches (tensor and op names) in its args. Open it in chrome://tracing or Perfetto as TF's files are.
For per-op device time, use XLA's profiler (jax.profiler) instead.
"""
import json
import os
import time

from tinyflow.api import gfile
from tinyflow.api import logging as tf_logging
from tinyflow.api.train.hooks import SecondOrStepTimer, SessionRunArgs, SessionRunHook, _global_step_or_fail


def _names(fetches):
    """The names of a run's fetches (nested lists, tuples and dicts of tensors and ops), in order."""
    if isinstance(fetches, dict):
        return [n for k in fetches for n in _names(fetches[k])]
    if isinstance(fetches, (list, tuple)):
        return [n for f in fetches for n in _names(f)]
    return [getattr(fetches, "name", str(fetches))]


class ProfilerHook(SessionRunHook):
    """Captures a step's timing every N steps or seconds, as `timeline-<global step>.json` in output_dir."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._output_dir = output_dir
        self._show_dataflow, self._show_memory = show_dataflow, show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_or_fail("ProfilerHook")

    def before_run(self, run_context):
        self._request_summary = self._next_step is not None and self._timer.should_trigger_for_step(self._next_step)
        self._start = time.time()
        return SessionRunArgs({"global_step": self._global_step_tensor})

    def after_run(self, run_context, run_values):
        end = time.time()
        stale_global_step = int(run_values.results["global_step"])
        if self._next_step is None:
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            self._save(global_step, self._output_file.format(global_step), run_context.original_args.fetches,
                       end - self._start)
        self._next_step = global_step + 1

    def _save(self, step, save_path, fetches, seconds):
        tf_logging.info("Saving timeline for %d into '%s'.", step, save_path)
        if self._output_dir and not gfile.Exists(self._output_dir):
            gfile.MakeDirs(self._output_dir)
        trace = {"traceEvents": [
            {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "tinyflow step (one XLA program)"}},
            {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "Session.run"}},
            {"name": "step_%d" % step, "cat": "Step", "ph": "X", "pid": 0, "tid": 0,
             "ts": int(self._start * 1e6), "dur": max(int(seconds * 1e6), 1),
             "args": {"global_step": step, "fetches": _names(fetches)}}]}
        with gfile.GFile(save_path, "w") as f:
            f.write(json.dumps(trace, separators=(",", ":")))
