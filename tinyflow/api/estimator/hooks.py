"""The hooks an Estimator adds around its sessions: step rate, summaries, a fixed number of eval batches."""
from tinyflow.api import tf_names as _tf
from tinyflow.api.train.hooks import StepCounterHook, SummarySaverHook  # noqa: F401 (tf.estimator's names)


class StopAfterNEvalsHook(_tf.train.SessionRunHook):
    """Requests a stop after `num_evals` runs (evaluate(steps=N)), logging `Evaluation [i/N]` as TF does
    (every run below 20, else every tenth of N)."""

    def __init__(self, num_evals):
        self._num_evals, self._done = num_evals, 0
        self._log_frequency = 1 if num_evals < 20 else num_evals // 10

    def after_run(self, run_context, run_values):
        self._done += 1
        if self._done % self._log_frequency == 0 or self._done == self._num_evals:
            _tf.logging.info("Evaluation [%d/%d]", self._done, self._num_evals)
        if self._done >= self._num_evals:
            run_context.request_stop()


def write_eval_summaries(eval_dir, results):
    """Writes each scalar result of an evaluation as a summary at its global step (TF's eval/ folder)."""
    values = []
    for key, value in sorted(results.items()):
        if key != "global_step" and getattr(value, "ndim", 0) == 0:
            values.append(_tf.summary.Summary.Value(tag=key, simple_value=float(value)))
    writer = _tf.summary.FileWriterCache.get(eval_dir)
    writer.add_summary(_tf.summary.Summary(value=values), int(results.get("global_step", 0)))
    writer.flush()
