"""tf.train.Supervisor: TF1's older training loop manager (before MonitoredTrainingSession).

As TF 1.15's: the constructor builds the default ops (init_op, local_init_op, ready_op, a Saver,
summary_op = merge_all, the global step) and finalizes the graph; `managed_session()` restores the
latest checkpoint of `logdir` or runs init_op (and init_fn), runs local_init_op, and, for a chief with
a logdir, writes graph.pbtxt and the graph to an event file with a START SessionLog and starts the
standard services: every `save_summaries_secs` the summary_op and global_step/sec summaries, every
`save_model_secs` a checkpoint `logdir/model.ckpt-<step>` with a CHECKPOINT SessionLog. Each service
runs in its own thread, first at once, as TF's: a summary op that reads the input queue waits there
for the queue runners (started next) rather than blocking the start, and the first round races the
first steps, as in TF. Leaving the block stops the services, writes a STOP
SessionLog and closes the writer; it saves no final checkpoint (call sv.saver.save, as TF scripts do).
An exception inside the block stops the supervisor and is raised again (TF's request_stop), except
OutOfRangeError, which ends training quietly as in TF.
"""
import contextlib
import os
import threading
import time

from tinyflow.api import logging as tf_logging
from tinyflow.graph import errors
from tinyflow.graph.core import GraphKeys, get_default_graph

USE_DEFAULT = 0   # TF's Supervisor.USE_DEFAULT


class Supervisor:
    """TF 1.15's tf.train.Supervisor (see the module docstring)."""

    USE_DEFAULT = USE_DEFAULT

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT, is_chief=True,
                 init_op=USE_DEFAULT, init_feed_dict=None, local_init_op=USE_DEFAULT, logdir=None,
                 summary_op=USE_DEFAULT, saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120, checkpoint_basename="model.ckpt",
                 session_manager=None, summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        from tinyflow.api import summary as summary_lib
        from tinyflow.api.train.coordinator import Coordinator
        from tinyflow.api.train.saver import default_saver
        from tinyflow.ops import state_ops
        self._graph = graph if graph is not None else get_default_graph()
        with self._graph.as_default():
            self._init_op = state_ops.global_variables_initializer() if init_op is USE_DEFAULT else init_op
            if ready_op is USE_DEFAULT:
                ready_op = state_ops.report_uninitialized_variables()
            self._ready_op = ready_op
            if local_init_op is USE_DEFAULT:
                from tinyflow.api.aliases import tables_initializer
                local_init_op = state_ops.group(state_ops.local_variables_initializer(), tables_initializer())
            self._local_init_op = local_init_op
            if saver is USE_DEFAULT:
                saver = default_saver() if self._graph.get_collection(GraphKeys.GLOBAL_VARIABLES) else None
            self._saver = saver
            self._summary_op = summary_lib.merge_all() if summary_op is USE_DEFAULT else summary_op
            if global_step is USE_DEFAULT:
                steps = self._graph.get_collection(GraphKeys.GLOBAL_STEP)
                global_step = steps[0] if steps else None
            self._global_step = global_step
        self._is_chief, self._logdir = is_chief, logdir
        self._init_feed_dict, self._init_fn = init_feed_dict, init_fn
        self._save_summaries_secs, self._save_model_secs = save_summaries_secs, save_model_secs
        self._stop_grace_secs = stop_grace_secs
        self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        if summary_writer is USE_DEFAULT:
            summary_writer = summary_lib.FileWriter(logdir) if is_chief and logdir else None
        self._summary_writer = summary_writer
        self._coord = Coordinator()
        self._threads = []
        self._graph.finalize()

    graph = property(lambda self: self._graph)
    is_chief = property(lambda self: self._is_chief)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    local_init_op = property(lambda self: self._local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)
    logdir = property(lambda self: self._logdir)
    session_manager = property(lambda self: None)

    # ---- the session --------------------------------------------------------------------------------
    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False, max_wait_secs=7200,
                                    start_standard_services=True):
        """A Session restored from logdir's latest checkpoint, or initialized; the standard services
        started (a chief with a logdir) and the graph's queue runners."""
        from tinyflow.api.train.monitored_session import _processes
        from tinyflow.formats.checkpoint import latest_checkpoint
        from tinyflow.runtime.session import Session
        if not self._is_chief and _processes() == 1:
            raise errors.UnavailableError(None, None, "tinyflow: Supervisor(is_chief=False) waits for a chief to "
                                          "initialize the model, and this job has one process: make it the chief")
        self._coord.clear_stop()
        sess = Session(master, graph=self._graph, config=config)
        path = latest_checkpoint(self._logdir) if self._logdir and self._saver is not None else None
        if path:
            self._saver.restore(sess, path)
        else:
            if wait_for_checkpoint:
                raise errors.DeadlineExceededError(None, None, "tinyflow: no checkpoint in %s" % self._logdir)
            if self._init_op is not None:
                sess.run(self._init_op, feed_dict=self._init_feed_dict)
            if self._init_fn:
                self._init_fn(sess)
        if self._local_init_op is not None:
            sess.run(self._local_init_op)
        if self._is_chief and start_standard_services:
            self.start_standard_services(sess)
        self.start_queue_runners(sess)
        return sess

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """The Session of prepare_or_wait_for_session, stopped and closed when the block ends."""
        sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                start_standard_services=start_standard_services)
        try:
            yield sess
        except Exception as e:  # noqa: BLE001 (TF's: the coordinator re-raises what is not an end of input)
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                sess.close()

    # ---- the standard services ----------------------------------------------------------------------
    def start_standard_services(self, sess):
        """Writes the graph and a START SessionLog, then the summary, step counter and checkpoint
        services (each runs once now, then every save_summaries_secs / save_model_secs)."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only chief supervisors "
                               "can write events.")
        if not self._logdir:
            tf_logging.warning("Standard services need a 'logdir' passed to the SessionManager")
            return []
        from tinyflow.api.summary import SessionLog
        from tinyflow.api.tf_files.graph_util import write_graph
        write_graph(self._graph.as_graph_def(), self._logdir, "graph.pbtxt")
        step = self._step(sess)
        if self._summary_writer is not None:
            from tinyflow.api.train.saver import export_meta_graph
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(export_meta_graph(graph=self._graph, saver=self._saver))
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), step)
        services = []
        if self._save_summaries_secs and self._summary_writer is not None:
            if self._global_step is not None:
                services.append((self._save_summaries_secs, self._step_counter(sess)))
            if self._summary_op is not None:
                services.append((self._save_summaries_secs, lambda: self.summary_computed(
                    sess, sess.run(self._summary_op), self._step(sess))))
        threads = [self.loop(interval, service) for interval, service in services]
        if self._saver is not None and self._save_model_secs:
            # TF's services are threads that usually finish their first pass before the first step:
            # the summaries, then the checkpoint of step 0. Here the first save runs before the first
            # step (it reads only variables), after the summaries' first pass unless that waits on an
            # input queue whose runners start later (then it goes on without it).
            for thread in threads:
                thread.first_done.wait(2.0)
            self._checkpoint(sess)
            threads.append(self.loop(self._save_model_secs, lambda: self._checkpoint(sess), first=False))
        return threads

    def _step(self, sess):
        return int(sess.run(self._global_step)) if self._global_step is not None else 0

    def _step_counter(self, sess):
        last = [self._step(sess), time.time()]

        def count():
            step, now = self._step(sess), time.time()
            rate = (step - last[0]) / (now - last[1]) if now > last[1] else 0.0
            last[:] = [step, now]
            from tinyflow.api.summary import Summary
            tag = "%s/sec" % self._global_step.op.name
            self.summary_computed(sess, Summary(value=[Summary.Value(tag=tag, simple_value=rate)]).SerializeToString(),
                                  step)
        return count

    def _checkpoint(self, sess):
        from tinyflow.api.summary import SessionLog
        tf_logging.info("Saving checkpoint to path %s", self._save_path)
        self._saver.save(sess, self._save_path, global_step=self._global_step)
        if self._summary_writer is not None and self._global_step is not None:
            self._summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._save_path), self._step(sess))

    def summary_computed(self, sess, summary, global_step=None):
        """Writes a summary computed in sess (at global_step, or the current step)."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = self._step(sess)
        self._summary_writer.add_summary(summary, global_step)

    def loop(self, timer_interval_secs, target, args=None, kwargs=None, first=True):
        """Starts a thread calling target(*args, **kwargs) every timer_interval_secs until the stop."""
        def run():
            with self._coord.stop_on_exception():
                try:
                    if first:
                        target(*(args or ()), **(kwargs or {}))
                finally:
                    thread.first_done.set()
                while not self._coord.wait_for_stop(timer_interval_secs):
                    target(*(args or ()), **(kwargs or {}))
        thread = threading.Thread(target=run, daemon=True)
        thread.first_done = threading.Event()   # set once the first pass has run (or was skipped)
        thread.start()
        self._threads.append(thread)
        return thread

    def start_queue_runners(self, sess, queue_runners=None):
        from tinyflow.api.train.queue_runner import start_queue_runners
        threads = start_queue_runners(sess, self._coord)
        self._threads.extend(threads)
        return threads

    # ---- stopping -----------------------------------------------------------------------------------
    def should_stop(self):
        return self._coord.should_stop()

    def request_stop(self, ex=None):
        self._coord.request_stop(ex)

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stops the services and joins them; writes a STOP SessionLog and closes the writer. Raises
        the exception a request_stop() was given (not an end of input)."""
        self._coord.request_stop()
        try:
            self._coord.join(self._threads if threads is None else threads, self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            self._threads = []
            if close_summary_writer and self._summary_writer is not None:
                from tinyflow.api.summary import SessionLog
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
