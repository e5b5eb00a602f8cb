"""tf.train.MonitoredSession and MonitoredTrainingSession: a Session that initializes or restores
the variables when it starts, runs hooks around every run and knows when training should stop.

    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=[tf.train.StopAtStepHook(last_step=100)]) as sess:
        while not sess.should_stop():
            sess.run(train_op)

Unlike TF, the graph is not finalized when the session starts (the log still says "Graph was finalized."
at that point, as TF's does: scripts and tests read these lines).
"""
from tinyflow.graph import errors
from tinyflow.runtime.session import Session
from tinyflow.ops import state_ops
from tinyflow.api import logging as tf_logging
from tinyflow.api.aliases import tables_initializer
from tinyflow.formats.checkpoint import get_checkpoint_state
from tinyflow.api.train.hooks import (CheckpointSaverHook, SessionRunArgs, SessionRunContext, SessionRunValues,
                                      StepCounterHook)
from tinyflow.api.train.saver import default_saver

USE_DEFAULT = object()


class Scaffold:
    """What a monitored session needs to start: init ops, an init function, a Saver."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None, ready_for_local_init_op=None,
                 local_init_op=None, summary_op=None, saver=None, copy_from_scaffold=None):
        self._init_op, self._init_feed_dict, self._init_fn = init_op, init_feed_dict, init_fn
        self._local_init_op, self._saver = local_init_op, saver
        self._ready_op, self._summary_op = ready_op, summary_op

    def finalize(self):
        """Creates the default ops and saver where none was given."""
        if self._init_op is None:
            self._init_op = state_ops.global_variables_initializer()
        if self._local_init_op is None:
            # TF's default: the local variables and the lookup tables (a vocabulary in an input_fn)
            self._local_init_op = state_ops.group(state_ops.local_variables_initializer(), tables_initializer())
        if self._saver is None:
            self._saver = default_saver()
        tf_logging.info("Graph was finalized.")
        return self

    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    init_fn = property(lambda self: self._init_fn)
    local_init_op = property(lambda self: self._local_init_op)
    saver = property(lambda self: self._saver)
    ready_op = property(lambda self: self._ready_op)
    summary_op = property(lambda self: self._summary_op)


class SessionCreator:
    """The interface of MonitoredSession's session creators: create_session() -> a Session."""

    def create_session(self):
        raise NotImplementedError("create_session is not implemented for {}.".format(self))


class ChiefSessionCreator(SessionCreator):
    """Creates a Session and restores the latest checkpoint, or initializes the variables."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._scaffold = scaffold or Scaffold()
        self._config = config
        self._checkpoint_dir, self._checkpoint_path = checkpoint_dir, checkpoint_filename_with_path

    def create_session(self):
        s = self._scaffold.finalize()
        sess = Session(config=self._config)
        path = self._checkpoint_path or (_named_checkpoint(self._checkpoint_dir) if self._checkpoint_dir else None)
        if path:
            s.saver.restore(sess, path)
        else:
            sess.run(s.init_op, feed_dict=s.init_feed_dict)
            if s.init_fn:
                s.init_fn(s, sess)
        tf_logging.info("Running local_init_op.")
        sess.run(s.local_init_op)
        tf_logging.info("Done running local_init_op.")
        return sess


def _named_checkpoint(checkpoint_dir):
    """The checkpoint the `checkpoint` state file of checkpoint_dir names, or None when it has none. As
    TF's SessionManager, a named checkpoint that is missing is not skipped: restoring it raises
    ("The passed save_path is not a valid checkpoint"), never a silent fresh start from step 0."""
    state = get_checkpoint_state(checkpoint_dir)
    return state.model_checkpoint_path if state is not None and state.model_checkpoint_path else None


class MonitoredSession:
    """A session that runs hooks around each run; `should_stop()` once a hook asked for it."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._sess = (session_creator or ChiefSessionCreator()).create_session()
        from tinyflow.api.train.coordinator import Coordinator
        from tinyflow.api.train.queue_runner import start_queue_runners
        self._coord = Coordinator()  # as TF, the graph's queue runners run for the session's life
        self._threads = start_queue_runners(self._sess, self._coord)
        self._grace = stop_grace_period_secs
        for h in self._hooks:
            h.after_create_session(self._sess, None)
        self._stop = False
        self._closed = False

    graph = property(lambda self: self._sess.graph)

    def _tf_sess(self):
        return self._sess

    def should_stop(self):
        return self._stop or self._closed or self._coord.should_stop()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs `fetches` together with what the hooks ask for; returns the caller's results."""
        if self._closed:
            raise RuntimeError("Run called even after should_stop requested.")
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._sess)
        merged, feeds = {"caller": fetches}, dict(feed_dict or {})
        for i, h in enumerate(self._hooks):
            args = h.before_run(context)
            if args is None:
                continue
            if args.fetches is not None:
                merged[i] = args.fetches
            for k, v in (args.feed_dict or {}).items():
                if k in feeds:
                    raise RuntimeError("Same tensor is fed by a SessionRunHook and user. Conflict(s): %s" % [k])
                feeds[k] = v
        results = self._sess.run(merged, feed_dict=feeds, options=options, run_metadata=run_metadata)
        for i, h in enumerate(self._hooks):
            h.after_run(context, SessionRunValues(results.get(i), options, run_metadata))
        self._stop = self._stop or context.stop_requested
        return results["caller"]

    def close(self):
        self._close(None)

    def _close(self, exception_type):
        if self._closed:
            return
        try:
            if exception_type is None:
                for h in self._hooks:
                    h.end(self._sess)
        finally:
            self._closed = True
            self._coord.request_stop()
            try:
                self._coord.join(self._threads, self._grace, ignore_live_threads=True)
            finally:
                self._sess.close()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close(exception_type)
        return exception_type is None  # swallow the end-of-input errors, as TF does


class SingularMonitoredSession(MonitoredSession):
    """A MonitoredSession with a ChiefSessionCreator; raw_session() gives the underlying Session."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        super().__init__(ChiefSessionCreator(scaffold, master, config, checkpoint_dir, checkpoint_filename_with_path),
                         hooks)

    def raw_session(self):
        return self._sess


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,
                             chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT, save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None, stop_grace_period_secs=120,
                             log_step_count_steps=100, max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None):
    """A MonitoredSession for training: restores from / saves to checkpoint_dir (every 600 s by default) and
    logs global_step/sec every log_step_count_steps steps. Hooks run in TF's order: chief_only_hooks, the
    step counter, the checkpoint saver, then `hooks`. Summaries are not written by tinyflow here."""
    if save_checkpoint_secs is USE_DEFAULT and save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_secs, save_checkpoint_steps = 600, None
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    all_hooks = []
    # A data-parallel job of several processes (tf.train.Server, tf.distribute): every step runs in
    # every process, so each gets the chief's hooks (the same fetches in every run) and restores
    # the chief's checkpoint; process 0 alone writes files (Saver, summaries)
    together = _processes() > 1
    if is_chief or together:
        all_hooks += list(chief_only_hooks or [])
        summary_dir = summary_dir or checkpoint_dir
        if summary_dir and log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(StepCounterHook(every_n_steps=log_step_count_steps,
                                             output_dir=summary_dir if is_chief else None))
        if checkpoint_dir and ((save_checkpoint_secs or 0) > 0 or (save_checkpoint_steps or 0) > 0):
            all_hooks.append(CheckpointSaverHook(checkpoint_dir, save_secs=save_checkpoint_secs or None,
                                                 save_steps=save_checkpoint_steps or None, scaffold=scaffold))
    all_hooks += list(hooks or [])
    creator = ChiefSessionCreator(scaffold, master, config, checkpoint_dir if is_chief or together else None)
    return MonitoredSession(creator, all_hooks, stop_grace_period_secs)


def _processes():
    """The processes of this job (1 unless tf.distribute.initialize or tf.train.Server joined one)."""
    from jax._src import distributed
    return distributed.global_state.num_processes or 1 if distributed.global_state.client is not None else 1
