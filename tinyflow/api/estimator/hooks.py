"""The hooks an Estimator adds around its sessions: step rate, summaries, a fixed number of eval batches."""
from tinyflow.api import tf_names as _tf
from tinyflow.api.train.hooks import StepCounterHook  # noqa: F401 (tf.estimator.StepCounterHook)


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


class SummarySaverHook(_tf.train.SessionRunHook):
    """Writes the graph's merged summaries every `save_steps` steps to output_dir.

    When every summary reads scalars only (tf.summary.scalar), the hook fetches those scalars at
    every step and builds the summary on the host when one is due: the training step keeps ONE
    fetch set, so it is compiled once, not again for the steps that write summaries."""

    def __init__(self, save_steps=100, output_dir=None, summary_op=None):
        self._save_steps, self._output_dir, self._summary_op = save_steps, output_dir, summary_op

    def begin(self):
        if self._summary_op is None:
            self._summary_op = _tf.summary.merge_all()
        self._step = _tf.train.get_global_step()
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
        self._due = self._runs % self._save_steps == 0
        self._runs += 1
        if self._leaves is not None:
            return _tf.train.SessionRunArgs({"leaves": self._leaves, "step": self._step})
        return _tf.train.SessionRunArgs({"summary": self._summary_op, "step": self._step}) if self._due else None

    def after_run(self, run_context, run_values):
        if not self._due:
            return
        results = run_values.results
        if self._leaves is not None:
            summary = _host_value(run_context.session, self._summary_op.op,
                                  dict(zip(self._leaves, results["leaves"])))
        else:
            summary = results["summary"]
        _tf.summary.FileWriterCache.get(self._output_dir).add_summary(summary, int(results["step"]) + 1)

    def end(self, session):
        if self._output_dir and self._summary_op is not None:
            _tf.summary.FileWriterCache.get(self._output_dir).flush()


def _host_computed(op):
    from tinyflow.graph.registry import get_op_def
    from tinyflow.graph.registry import FromFetched
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


def write_eval_summaries(eval_dir, results):
    """Writes each scalar result of an evaluation as a summary at its global step (TF's eval/ folder)."""
    values = []
    for key, value in sorted(results.items()):
        if key != "global_step" and getattr(value, "ndim", 0) == 0:
            values.append(_tf.summary.Summary.Value(tag=key, simple_value=float(value)))
    writer = _tf.summary.FileWriterCache.get(eval_dir)
    writer.add_summary(_tf.summary.Summary(value=values), int(results.get("global_step", 0)))
    writer.flush()
