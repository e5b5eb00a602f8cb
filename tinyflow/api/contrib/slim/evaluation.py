"""slim.evaluation (TF 1.15): evaluate_once restores a checkpoint, runs eval_op num_evals times and
returns final_op's value, logging as TF does and writing the summaries to logdir; evaluation_loop
does so for each new checkpoint of a directory."""
import time

from tinyflow.api import logging
from tinyflow.graph.core import get_default_graph

_USE_DEFAULT = 0


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def evaluate_once(master, checkpoint_path, logdir, num_evals=1, initial_op=None, initial_op_feed_dict=None,
                  eval_op=None, eval_op_feed_dict=None, final_op=None, final_op_feed_dict=None,
                  summary_op=_USE_DEFAULT, summary_op_feed_dict=None, variables_to_restore=None,
                  session_config=None, hooks=None):
    """One evaluation of the checkpoint checkpoint_path; the value of final_op (None without one)."""
    from tinyflow.api import summary
    from tinyflow.api.train.saver import Saver
    from tinyflow.api.train.step import get_global_step
    from tinyflow.ops import state_ops
    from tinyflow.runtime.session import Session
    graph = get_default_graph()
    if summary_op == _USE_DEFAULT:
        summary_op = summary.merge_all()
    saver = Saver(variables_to_restore)
    local_init = state_ops.local_variables_initializer()
    logging.info("Starting evaluation at " + _now())
    with Session(graph=graph, config=session_config) as sess:
        sess.run(state_ops.global_variables_initializer())
        saver.restore(sess, checkpoint_path)
        sess.run(local_init)
        if initial_op is not None:
            sess.run(initial_op, initial_op_feed_dict)
        log_every = max(num_evals // 10, 1) if num_evals else 1
        if eval_op is not None:
            for i in range(num_evals or 0):
                sess.run(eval_op, eval_op_feed_dict)
                if (i + 1) % log_every == 0 or i + 1 == num_evals:
                    logging.info("Evaluation [%d/%d]", i + 1, num_evals)
        final = sess.run(final_op, final_op_feed_dict) if final_op is not None else None
        if summary_op is not None and logdir:
            step = get_global_step(graph)
            step = int(sess.run(step)) if step is not None else 0
            writer = summary.FileWriter(logdir, graph)
            writer.add_summary(sess.run(summary_op, summary_op_feed_dict), step)
            writer.flush()
    logging.info("Finished evaluation at " + _now())
    return final


def evaluation_loop(master, checkpoint_dir, logdir, num_evals=1, initial_op=None, initial_op_feed_dict=None,
                    init_fn=None, eval_op=None, eval_op_feed_dict=None, final_op=None, final_op_feed_dict=None,
                    summary_op=_USE_DEFAULT, summary_op_feed_dict=None, variables_to_restore=None,
                    eval_interval_secs=60, max_number_of_evaluations=None, session_config=None, timeout=None,
                    timeout_fn=None, hooks=None):
    """evaluate_once on each new checkpoint of checkpoint_dir (at most max_number_of_evaluations, or
    until `timeout` seconds pass without one); the last final_op value."""
    from tinyflow.api.contrib.training import checkpoints_iterator
    final, count = None, 0
    for path in checkpoints_iterator(checkpoint_dir, eval_interval_secs, timeout, timeout_fn):
        final = evaluate_once(master, path, logdir, num_evals, initial_op, initial_op_feed_dict, eval_op,
                              eval_op_feed_dict, final_op, final_op_feed_dict, summary_op, summary_op_feed_dict,
                              variables_to_restore, session_config, hooks)
        count += 1
        if max_number_of_evaluations is not None and count >= max_number_of_evaluations:
            break
    return final
