"""tf.train.SessionManager, SessionCreator / WorkerSessionCreator and basic_train_loop (TF 1.15): a Session
restored from the latest checkpoint or initialized, then checked ready by `ready_op`."""
import time

from tinyflow.api import logging as tf_logging
from tinyflow.graph import errors
from tinyflow.graph.core import get_default_graph
from tinyflow.ops.state_ops import report_uninitialized_variables
from tinyflow.api.train.monitored_session import Scaffold, SessionCreator, _named_checkpoint
from tinyflow.runtime.session import Session


def _not_ready(sess, op, feed_dict=None):
    """None when `op` (report_uninitialized_variables-like: names of what is missing) reports nothing."""
    if op is None:
        return None
    missing = sess.run(op, feed_dict=feed_dict)
    if getattr(missing, "size", len(missing) if hasattr(missing, "__len__") else 0) == 0:
        return None
    return "Variables not initialized: " + ", ".join(m.decode() if isinstance(m, bytes) else str(m)
                                                     for m in list(getattr(missing, "flat", missing)))


class SessionManager:
    """Creates Sessions: `prepare_session` restores the latest checkpoint of checkpoint_dir (or the one given)
    or runs init_op / init_fn, then local_init_op, and checks the model is ready (ready_op reports nothing)."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                             "ready_for_local_init_op [%s]" % ready_for_local_init_op)
        self._local_init_op, self._ready_op = local_init_op, ready_op
        self._ready_for_local_init_op, self._graph = ready_for_local_init_op, graph or get_default_graph()
        self._recovery_wait_secs, self._local_init_feed_dict = recovery_wait_secs, local_init_feed_dict

    def _restore(self, sess, saver, checkpoint_dir, checkpoint_filename_with_path, wait_for_checkpoint,
                 max_wait_secs):
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return True
        if not saver or not checkpoint_dir:
            return False
        path, waited = _named_checkpoint(checkpoint_dir), 0
        while path is None and wait_for_checkpoint and waited < max_wait_secs:
            tf_logging.info("Waiting for checkpoint to be available.")
            time.sleep(self._recovery_wait_secs)
            waited += self._recovery_wait_secs
            path = _named_checkpoint(checkpoint_dir)
        if path is None:
            return False
        saver.restore(sess, path)
        return True

    def _local_init(self, sess):
        """Runs local_init_op unless ready_for_local_init_op reports something missing; (ran, message)."""
        if self._local_init_op is None:
            return True, None
        message = _not_ready(sess, self._ready_for_local_init_op)
        if message is not None:
            return False, message
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict)
        return True, None

    def recover_session(self, master="", saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """(sess, initialized): a Session restored from a checkpoint when there is one; `initialized` says the
        model is ready in it."""
        sess = Session(graph=self._graph, config=config)
        if not self._restore(sess, saver, checkpoint_dir, checkpoint_filename_with_path, wait_for_checkpoint,
                             max_wait_secs):
            return sess, False
        ran, _ = self._local_init(sess)
        if not ran or _not_ready(sess, self._ready_op) is not None:
            return sess, False
        return sess, True

    def prepare_session(self, master="", init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False, max_wait_secs=7200,
                        config=None, init_feed_dict=None, init_fn=None):
        """A ready Session: restored, or initialized by init_op (with init_feed_dict) and init_fn(sess)."""
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        sess = Session(graph=self._graph, config=config)
        restored = self._restore(sess, saver, checkpoint_dir, checkpoint_filename_with_path, wait_for_checkpoint,
                                 max_wait_secs)
        if not restored:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        ran, message = self._local_init(sess)
        if not ran:
            raise RuntimeError("Init operations did not make model ready for local_init.  Init op: %s, init fn: "
                               "%s, error: %s" % (getattr(init_op, "name", init_op), init_fn, message))
        message = _not_ready(sess, self._ready_op)
        if message is not None:
            raise RuntimeError("Init operations did not make model ready.  Init op: %s, init fn: %s, "
                               "local_init_op: %s, error: %s" % (getattr(init_op, "name", init_op), init_fn,
                                                                 getattr(self._local_init_op, "name", None),
                                                                 message))
        return sess

    def wait_for_session(self, master="", config=None, max_wait_secs=float("Inf")):
        """A Session in which the model is ready (another process initialized it): waits up to max_wait_secs,
        then None."""
        start = time.time()
        while True:
            sess = Session(graph=self._graph, config=config)
            ran, _ = self._local_init(sess)
            if ran and _not_ready(sess, self._ready_op) is None:
                return sess
            sess.close()
            if time.time() - start + self._recovery_wait_secs > max_wait_secs:
                raise errors.DeadlineExceededError(None, None, "Session was not ready after waiting %d secs."
                                                       % max_wait_secs)
            time.sleep(self._recovery_wait_secs)


class WorkerSessionCreator(SessionCreator):
    """A non-chief worker's sessions: waits until the chief has initialized (or restored) the model."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold, self._master, self._config = scaffold or Scaffold(), master, config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        s = self._scaffold.finalize()
        ready = s.ready_op if s.ready_op is not None else report_uninitialized_variables()
        return SessionManager(local_init_op=s.local_init_op, ready_op=ready, graph=get_default_graph(),
                              recovery_wait_secs=1).wait_for_session(self._master, config=self._config,
                                                                     max_wait_secs=self._max_wait_secs)


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Runs train_step_fn(session, *args, **kwargs) in the supervisor's managed session until it should stop."""
    with supervisor.managed_session(master) as sess:
        while not supervisor.should_stop():
            train_step_fn(sess, *(args or []), **(kwargs or {}))
