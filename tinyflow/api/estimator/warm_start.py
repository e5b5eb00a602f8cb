"""tf.estimator.WarmStartSettings: start training from another model's checkpoint."""
import collections
import re

import numpy as np

from tinyflow.api import tf_names as _tf


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info", "var_name_to_prev_var_name"])):
    """Which checkpoint (file or folder) and which variables (a regex, or a list of names) to warm-start."""

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
                var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        if var_name_to_vocab_info:
            raise NotImplementedError("tinyflow: WarmStartSettings(var_name_to_vocab_info=...) is not supported.")
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start, None,
                               dict(var_name_to_prev_var_name or {}))


def _wanted(name, pattern):
    if pattern is None:
        return False
    if isinstance(pattern, str):
        return re.match(pattern, name) is not None
    return any(re.match(p, name) is not None for p in pattern)


def warm_start_init_fn(warm_start_from, then=None):
    """A Scaffold init_fn that loads the matching trainable variables from the warm-start checkpoint."""
    settings = warm_start_from if isinstance(warm_start_from, WarmStartSettings) else \
        WarmStartSettings(str(warm_start_from))
    variables = [v for v in _tf.trainable_variables() if _wanted(v.op.name, settings.vars_to_warm_start)]
    path = settings.ckpt_to_initialize_from

    def init_fn(scaffold, sess):
        stored = dict(_tf.train.list_variables(path))
        for v in variables:
            prev = settings.var_name_to_prev_var_name.get(v.op.name, v.op.name)
            if prev not in stored:
                raise ValueError("Tensor {} is not found in {} checkpoint (warm-starting {}).".format(prev, path,
                                                                                                 v.op.name))
            value = np.asarray(_tf.train.load_variable(path, prev))
            if list(value.shape) != v.shape.as_list():
                raise ValueError("Shape of variable {} ({}) does not match the checkpoint's {} ({}).".format(
                    v.op.name, v.shape, prev, list(value.shape)))
            v.load(value, sess)
        if then is not None:
            then(scaffold, sess)
    return init_fn


from tinyflow.api.train.warm_starting import VocabInfo, warm_start  # noqa: E402,F401 (tf.estimator.VocabInfo)
