"""An input pipeline's position in checkpoints (TF 1.15's tf.data.experimental.make_saveable_from_iterator
and CheckpointInputPipelineHook).

TF serializes the whole state of the iterator's C++ kernels into a variant tensor. tinyflow's datasets are
Python generators, which cannot be saved: a checkpoint holds instead how many elements the iterator has
given since it was (re)started, under TF's key `<iterator>:0-state` (int64, where TF's is a variant: the two
do not read each other's iterator state). Restoring starts the iterator again over the same dataset and
values and skips that many elements; the pipeline being deterministic (a seeded shuffle included), the next
element is the one that followed when the checkpoint was written."""
import os

import numpy as np

from tinyflow.api.data import iterator_ops
from tinyflow.api.train.hooks import CheckpointSaverHook
from tinyflow.api.train.saver import Saver
from tinyflow.formats.checkpoint import latest_checkpoint
from tinyflow.graph import dtypes as dt
from tinyflow.graph import errors
from tinyflow.graph.core import get_default_graph
from tinyflow.graph.serialize import register_runtime_only


@register_runtime_only
class _IteratorSaveable:
    """What tf.train.Saver saves of an iterator: its position (the Saver's saveable protocol)."""

    def __init__(self, iterator):
        self._iterator = iterator
        self._checkpoint_key = iterator._name + ":0-state"
        self.name = iterator._name

    def _checkpoint_value(self, session):
        progress = iterator_ops._PROGRESS.get(session, {}).get(self._iterator)
        return dt.int64, np.array(progress[2] if progress else 0, np.int64)

    def _checkpoint_restore(self, session, value):
        it, taken = self._iterator, int(np.asarray(value))
        progress = iterator_ops._PROGRESS.get(session, {}).get(it)
        if progress is not None:
            dataset, run = progress[0], progress[1]
        elif it._one_shot:
            dataset, run = it._dataset, iterator_ops.Run(session=session)
        else:
            if taken == 0:
                return
            raise errors.FailedPreconditionError(
                None, None, "Restoring the position of iterator %s: run its initializer before restoring (its "
                "dataset's values come from the initializer)" % it._name)
        run.state.clear()   # a new pass: shuffles draw again from their seeds
        elements = iterator_ops._start(session, it, dataset, run)
        for _ in range(taken):
            next(elements)
        iterator_ops._PROGRESS[session][it][2] = taken


def make_saveable_from_iterator(iterator):
    """A saveable of `iterator` for tf.train.Saver (add it to the SAVEABLE_OBJECTS collection, or to a
    Saver's var_list)."""
    if not isinstance(iterator, iterator_ops.Iterator):
        raise TypeError("make_saveable_from_iterator: expected a tf.data Iterator, got %r" % (iterator,))
    return _IteratorSaveable(iterator)


class CheckpointInputPipelineHook:
    """Saves the positions of the graph's iterators beside the estimator's checkpoints ("input.ckpt-<step>",
    state file "checkpoint_input" in model_dir, at the estimator's save_checkpoints_steps / secs); the
    first step restores the latest one, or writes the first."""

    def __init__(self, estimator):
        config = estimator.config
        prefix = "input"
        if getattr(config, "num_worker_replicas", 1) > 1:
            prefix += "_{}_{}".format(config.task_type, config.task_id)
        self._checkpoint_saver_hook = CheckpointSaverHook(
            estimator.model_dir, save_secs=config.save_checkpoints_secs, save_steps=config.save_checkpoints_steps,
            checkpoint_basename=prefix + ".ckpt")
        self._latest_filename = "checkpoint_" + prefix
        self._first_run = True

    def begin(self):
        hook = self._checkpoint_saver_hook
        if hook._saver is None and hook._scaffold is None:
            saveables = [_IteratorSaveable(i) for i in iterator_ops._ITERATORS.get(get_default_graph(), [])]
            hook._saver = _CustomSaver(saveables, self._latest_filename)
        hook.begin()

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        hook = self._checkpoint_saver_hook
        if self._first_run:
            latest = latest_checkpoint(os.path.dirname(hook._save_path), latest_filename=self._latest_filename)
            if latest:
                hook._get_saver().restore(run_context.session, latest)
            else:
                step = int(run_context.session.run(hook._step))
                hook._save(run_context.session, step)
                hook._timer.update_last_triggered_step(step)
            self._first_run = False
        return hook.before_run(run_context)

    def after_run(self, run_context, run_values):
        self._checkpoint_saver_hook.after_run(run_context, run_values)

    def end(self, session):
        self._checkpoint_saver_hook.end(session)


class _CustomSaver(Saver):
    """A Saver of the iterators with a state file of its own ("checkpoint_input"), and no meta graph."""

    def __init__(self, var_list, latest_filename):
        super().__init__(var_list, allow_empty=True)
        self._latest_filename = latest_filename

    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        return super().save(sess, save_path, global_step, latest_filename or self._latest_filename,
                            meta_graph_suffix, False, write_state, strip_default_attrs)
