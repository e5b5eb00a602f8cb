"""tf.compat: `tf.compat.v1` is tinyflow itself (tinyflow only speaks TF1), plus TF2's switches as no-ops."""
import types

import tinyflow as _tf

v1 = _tf
v2 = types.SimpleNamespace()


def _no_op(*args, **kwargs):
    """Accepted for compatibility: tinyflow always runs graphs the TF1 way."""


_tf.disable_eager_execution = _no_op
_tf.disable_v2_behavior = _no_op
_tf.enable_resource_variables = _no_op
_tf.executing_eagerly = lambda: False
