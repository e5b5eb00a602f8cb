"""tf.train.warm_start and VocabInfo (TF 1.15): variables initialized from another model's checkpoint."""
import collections
import re

from tinyflow.api.train.tf_checkpoint import init_from_checkpoint
from tinyflow.ops import state_ops


class VocabInfo(collections.namedtuple("VocabInfo", ["new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab",
                                                     "old_vocab_size", "backup_initializer", "axis"])):
    """How a warm-started embedding's vocabulary changed (tf.train.VocabInfo / tf.estimator.VocabInfo)."""

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError("The only supported values for the axis argument are 0 and 1.  Provided axis: {}"
                             .format(axis))
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size,
                               backup_initializer, axis)


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None):
    """Makes the initializers of the chosen variables load them from the checkpoint (tf.train.warm_start):
    vars_to_warm_start a regex over the trainable variables, a list of regexes or Variables over the global
    ones, or None (nothing); var_name_to_prev_var_name renames them in the checkpoint."""
    if var_name_to_vocab_info:
        raise NotImplementedError("TF 1.15 has tf.train.warm_start(var_name_to_vocab_info=...); tinyflow does not "
                                  "implement vocabulary remapping: warm-start the embedding without it, or load "
                                  "its rows yourself (tf.train.load_variable)")
    renames = dict(var_name_to_prev_var_name or {})
    if vars_to_warm_start is None:
        return
    if isinstance(vars_to_warm_start, str):
        chosen = [v for v in state_ops.trainable_variables() if re.match(vars_to_warm_start, v.op.name)]
    elif all(isinstance(v, str) for v in vars_to_warm_start):
        chosen = [v for v in state_ops.global_variables()
                  if any(re.match(p, v.op.name) for p in vars_to_warm_start)]
    else:
        chosen = list(vars_to_warm_start)
    if chosen:
        init_from_checkpoint(ckpt_to_initialize_from, {renames.get(v.op.name, v.op.name): v for v in chosen})
