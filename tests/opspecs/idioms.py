"""TinyFlowPad: TinyFlow's tf.pad(x, dim=, pad=) on a tensor of unknown rank, resolved when lowering."""
import numpy as np

from . import OpSpec


def _unknown_rank(tf, x):
    return tf.placeholder_with_default(x, shape=None)


SPECS = [
    OpSpec("tinyflow_pad_grow", lambda tf, x: tf.pad(_unknown_rank(tf, x), dim=1, pad=2),
           [np.arange(6.0).reshape(2, 3)], numpy=lambda x: np.pad(x, [(0, 0), (0, 2)]), grad=True),
    OpSpec("tinyflow_pad_front", lambda tf, x: tf.pad(_unknown_rank(tf, x), dim=-1, pad=-2),
           [np.arange(12.0).reshape(2, 2, 3)], numpy=lambda x: np.pad(x, [(0, 0), (0, 0), (2, 0)]), grad=True),
]
