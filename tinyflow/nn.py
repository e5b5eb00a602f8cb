"""tf.nn: activations, softmax and cross entropies, convolution and pooling (re-exports of
ops/nn_ops.py)."""
from .ops.math_ops import sigmoid, tanh  # noqa: F401
from .ops.nn_ops import *  # noqa: F401,F403
