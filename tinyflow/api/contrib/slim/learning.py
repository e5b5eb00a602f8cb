"""slim.learning (TF 1.15): create_train_op (update ops first, gradient multipliers and per-gradient
norm clipping, the loss checked for inf/nan) and train, slim's training loop with its logging
("global step N: loss = L (T sec/step)") and its checkpoints and summaries in logdir."""
import os
import time

from tinyflow.api import logging
from tinyflow.api.contrib.slim import variables as _vars
from tinyflow.graph.core import GraphKeys, add_to_collection, control_dependencies, get_collection
from tinyflow.graph.core import get_default_graph, name_scope
from tinyflow.ops import clip_ops, state_ops
from tinyflow.ops.core import array_ops
from tinyflow.ops import logging_ops

_USE_GLOBAL_STEP = 0
_USE_DEFAULT = 0


def multiply_gradients(grads_and_vars, gradient_multipliers):
    """Scales the gradient of each variable (or variable name) of gradient_multipliers."""
    if not isinstance(grads_and_vars, list):
        raise ValueError("`grads_and_vars` must be a list.")
    if not gradient_multipliers:
        raise ValueError("`gradient_multipliers` is empty.")
    out = []
    for grad, var in grads_and_vars:
        key = var if var in gradient_multipliers else var.op.name
        if grad is not None and key in gradient_multipliers:
            from tinyflow.ops.core import math_ops
            grad = math_ops.multiply(grad, gradient_multipliers[key])
        out.append((grad, var))
    return out


def clip_gradient_norms(gradients_to_variables, max_norm):
    """Clips each gradient to the norm max_norm (each on its own, not the global norm)."""
    return [(clip_ops.clip_by_norm(g, max_norm) if g is not None else None, v) for g, v in gradients_to_variables]


def add_gradients_summaries(grads_and_vars):
    """Histograms of each gradient and of its norm; the list of summaries."""
    from tinyflow.api import summary
    out = []
    for grad, var in grads_and_vars:
        if grad is not None:
            out.append(summary.histogram(var.op.name + "/gradient", grad))
            out.append(summary.scalar(var.op.name + "/gradient_norm", clip_ops.global_norm([grad])))
        else:
            logging.info("Var %s has no gradient", var.op.name)
    return out


def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None, variables_to_train=None,
                    clip_gradient_norm=0, summarize_gradients=False, gate_gradients=1, aggregation_method=None,
                    colocate_gradients_with_ops=False, gradient_multipliers=None, check_numerics=True):
    """A tensor that, when run, applies one step of `optimizer` to total_loss and returns the loss
    (computed before the step). The UPDATE_OPS (batch norm's moving averages) run first."""
    if global_step is _USE_GLOBAL_STEP:
        global_step = _vars.get_or_create_global_step()
    global_update_ops = set(get_collection(GraphKeys.UPDATE_OPS))
    if update_ops is None:
        update_ops = global_update_ops
    else:
        update_ops = set(update_ops)
    if not global_update_ops.issubset(update_ops):
        logging.warning("update_ops in create_train_op does not contain all the update_ops in GraphKeys.UPDATE_OPS")
    if update_ops:
        with control_dependencies(sorted(update_ops, key=lambda op: op.name)):
            barrier = array_ops.no_op(name="update_barrier")
        with control_dependencies([barrier]):
            total_loss = array_ops.identity(total_loss)
    if variables_to_train is None:
        variables_to_train = get_collection(GraphKeys.TRAINABLE_VARIABLES)
    else:
        trainable = set(get_collection(GraphKeys.TRAINABLE_VARIABLES))
        for v in variables_to_train:
            if v not in trainable:
                raise ValueError("Variable %s is not trainable" % v.op.name)
    grads = optimizer.compute_gradients(total_loss, variables_to_train, gate_gradients=gate_gradients,
                                        aggregation_method=aggregation_method)
    if gradient_multipliers:
        with name_scope("multiply_grads"):
            grads = multiply_gradients(grads, gradient_multipliers)
    if clip_gradient_norm > 0:
        with name_scope("clip_grads"):
            grads = clip_gradient_norms(grads, clip_gradient_norm)
    if summarize_gradients:
        with name_scope("summarize_grads"):
            add_gradients_summaries(grads)
    grad_updates = optimizer.apply_gradients(grads, global_step=global_step)
    with name_scope("train_op"):
        if check_numerics:
            total_loss = logging_ops.check_numerics(total_loss, "LossTensor is inf or nan")
        with control_dependencies([grad_updates]):
            train_op = array_ops.identity(total_loss, name="train_op")
    train_ops = get_collection(GraphKeys.TRAIN_OP)
    if train_op not in train_ops:
        add_to_collection(GraphKeys.TRAIN_OP, train_op)
    return train_op


def train_step(sess, train_op, global_step, train_step_kwargs):
    """One step: runs train_op and the global step, logs every log_every_n_steps steps, and says
    whether to stop (number_of_steps reached)."""
    start = time.time()
    total_loss, np_global_step = sess.run([train_op, global_step])
    elapsed = time.time() - start
    if "should_log" in train_step_kwargs and np_global_step % train_step_kwargs["log_every_n_steps"] == 0:
        logging.info("global step %d: loss = %.4f (%.3f sec/step)", np_global_step, total_loss, elapsed)
    should_stop = False
    if "should_stop" in train_step_kwargs:
        should_stop = np_global_step >= train_step_kwargs["number_of_steps"]
    return total_loss, should_stop


def train(train_op, logdir, train_step_fn=train_step, train_step_kwargs=_USE_DEFAULT, log_every_n_steps=1,
          graph=None, master="", is_chief=True, global_step=None, number_of_steps=None, init_op=_USE_DEFAULT,
          init_feed_dict=None, local_init_op=_USE_DEFAULT, init_fn=None, ready_op=_USE_DEFAULT,
          summary_op=_USE_DEFAULT, save_summaries_secs=600, summary_writer=_USE_DEFAULT, startup_delay_steps=0,
          saver=None, save_interval_secs=600, sync_optimizer=None, session_config=None, session_wrapper=None,
          trace_every_n_steps=None, ignore_live_threads=False):
    """slim's training loop: restores the latest checkpoint of logdir (or initializes, then calls
    init_fn(sess)), runs train_step_fn until it says stop (number_of_steps), writes summaries every
    save_summaries_secs and checkpoints logdir/model.ckpt-N every save_interval_secs and at the end.
    Returns the last loss."""
    from tinyflow.api import summary
    from tinyflow.api.train.queue_runner import start_queue_runners
    from tinyflow.api.train.coordinator import Coordinator
    from tinyflow.api.train.saver import Saver
    from tinyflow.formats.checkpoint import latest_checkpoint
    from tinyflow.runtime.session import Session
    if train_op is None:
        raise ValueError("train_op cannot be None.")
    if logdir is None:
        if summary_op != _USE_DEFAULT:
            raise ValueError("Cannot provide summary_op because logdir=None")
        if saver is not None:
            raise ValueError("Cannot provide saver because logdir=None")
    if sync_optimizer is not None:
        raise NotImplementedError("tinyflow's slim.learning.train has no sync_optimizer")
    graph = graph or get_default_graph()
    with graph.as_default():
        if global_step is None:
            global_step = _vars.get_or_create_global_step()
        saver = saver or Saver()
        if init_op == _USE_DEFAULT:
            init_op = state_ops.global_variables_initializer()
        if local_init_op == _USE_DEFAULT:
            from tinyflow.api.aliases import tables_initializer
            local_init_op = state_ops.group(state_ops.local_variables_initializer(), tables_initializer())
        if summary_op == _USE_DEFAULT:
            summary_op = summary.merge_all()
        if summary_writer == _USE_DEFAULT and logdir is not None:
            summary_writer = summary.FileWriter(logdir, graph)
        # TF fetches the global step's ref with the train op, so it reads the step after the update;
        # here the read is ordered after the train op explicitly
        with control_dependencies([train_op]):
            step_after = array_ops.identity(global_step, name="global_step_after_train_op")
        if train_step_kwargs == _USE_DEFAULT:
            train_step_kwargs = {}
            if number_of_steps:
                train_step_kwargs["should_stop"] = True
                train_step_kwargs["number_of_steps"] = number_of_steps
            if log_every_n_steps > 0:
                train_step_kwargs["should_log"] = True
                train_step_kwargs["log_every_n_steps"] = log_every_n_steps
    save_path = os.path.join(logdir, "model.ckpt") if logdir else None
    total_loss = None
    sess = Session(graph=graph, config=session_config)
    try:
        ckpt = latest_checkpoint(logdir) if logdir and os.path.isdir(logdir) else None
        if ckpt:
            logging.info("Restoring parameters from %s", ckpt)
            saver.restore(sess, ckpt)
        else:
            if init_op is not None:
                sess.run(init_op, init_feed_dict)
            if init_fn is not None:
                init_fn(sess)
        if local_init_op is not None:
            logging.info("Running local_init_op.")
            sess.run(local_init_op)
            logging.info("Done running local_init_op.")
        if logdir:
            logging.info("Starting Session.")
        if save_path and is_chief and save_interval_secs:
            # the Supervisor's checkpoint thread saves once as it starts, then every save_interval_secs
            logging.info("Saving checkpoint to path %s", save_path)
            saver.save(sess, save_path, global_step=global_step)
        logging.info("Starting Queues.")
        coord = Coordinator()
        threads = start_queue_runners(sess, coord=coord)
        last_summary = last_save = time.time()
        if summary_op is not None and summary_writer not in (None, _USE_DEFAULT):  # the summary thread's first run
            summary_writer.add_summary(*sess.run([summary_op, global_step]))
        try:
            while True:
                total_loss, should_stop = train_step_fn(sess, train_op, step_after, train_step_kwargs)
                now = time.time()
                if summary_op is not None and summary_writer not in (None, _USE_DEFAULT) and \
                        now - last_summary >= save_summaries_secs:
                    value, step = sess.run([summary_op, global_step])
                    summary_writer.add_summary(value, step)
                    last_summary = now
                if save_path and save_interval_secs and now - last_save >= save_interval_secs:
                    logging.info("Saving checkpoint to path %s", save_path)
                    saver.save(sess, save_path, global_step=global_step)
                    last_save = now
                if should_stop:
                    break
        finally:
            coord.request_stop()
            coord.join(threads)
        logging.info("Stopping Training.")
        if save_path and is_chief:
            logging.info("Finished training! Saving model to disk.")
            saver.save(sess, save_path, global_step=global_step)
        if summary_writer not in (None, _USE_DEFAULT):
            summary_writer.flush()
    finally:
        sess.close()
    return total_loss
