"""tf.nn: activations, softmax and cross entropies, convolution and pooling (ops/nn_ops.py), candidate
samplers and sampled losses (ops/candidate_sampling_ops.py), and
TinyFlow's layers (tinyflow_api.py).

Where TF and TinyFlow share a name (conv2d, max_pool, avg_pool, batch_normalization), the call
decides: a call TF 1.15's signature accepts means what it means in TF; a call TF would reject (a
required argument missing, a TinyFlow-only keyword such as num_filter) takes TinyFlow's meaning.
"""
from tinyflow.ops.core.math_ops import sigmoid, tanh  # noqa: F401
from tinyflow.ops.nn_ops import *  # noqa: F401,F403
from tinyflow.ops.candidate_sampling_ops import *  # noqa: F401,F403
from tinyflow.ops import nn_ops as _tf
from tinyflow.api import tinyflow_api as _tiny
from tinyflow.api.tinyflow_api import flatten_layer, linear, mean_sparse_softmax_cross_entropy_with_logits  # noqa: F401
from tinyflow.api.sparse_ops import embedding_lookup_sparse  # noqa: F401
from tinyflow.ops.conv3d_ops import conv3d, conv3d_transpose  # noqa: F401


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True, data_format=None,
           dilations=[1, 1, 1, 1], name=None, filters=None, num_filter=None, ksize=None, no_bias=None):
    """TF: conv2d(input, filter, strides, padding, data_format="NHWC") with a [h, w, in, out] filter.
    TinyFlow (no filter, or num_filter/ksize/no_bias given): conv2d(x, num_filter=, ksize=[1, h, w, 1],
    strides=[1, 1, 1, 1], padding="SAME", no_bias=True, name=) on NCHW data, creating its weights."""
    if (filter is None and filters is None) or num_filter is not None or ksize is not None or no_bias is not None:
        if num_filter is None:
            raise ValueError("conv2d needs a filter (TF) or num_filter (TinyFlow)")
        return _tiny.conv2d(input, num_filter, ksize or [1, 1, 1, 1], strides or [1, 1, 1, 1], padding or "SAME",
                            data_format or "NCHW", True if no_bias is None else no_bias, name)
    return _tf.conv2d(input, filter, strides, padding, use_cudnn_on_gpu, data_format or "NHWC", dilations, name,
                      filters)


def _pool(kind, value, ksize, strides, padding, data_format, name, input):
    value = input if value is None else value
    if ksize is None or strides is None or padding is None or _tinyflow_nchw(ksize, strides, data_format):
        return getattr(_tiny, kind)(value, ksize or [1, 1, 1, 1], strides or [1, 1, 1, 1], padding or "SAME",
                                    data_format or "NCHW", name)
    return getattr(_tf, kind)(value, ksize, strides, padding, data_format or "NHWC", name)


def _tinyflow_nchw(ksize, strides, data_format):
    """TF reads NCHW ksize/strides as [1, C, H, W] and rejects pooling over C; TinyFlow's scripts pass
    [1, h, w, 1] with data_format='NCHW', which therefore takes TinyFlow's meaning."""
    if data_format != "NCHW":
        return False
    k, s = list(ksize), list(strides)
    return len(k) == 4 and len(s) == 4 and k[3] == 1 and s[3] == 1 and (k[1] != 1 or s[1] != 1)


def max_pool(value=None, ksize=None, strides=None, padding=None, data_format=None, name=None, input=None):
    """TF: max_pool(value, ksize, strides, padding, data_format="NHWC"). TinyFlow (strides or padding
    left out): NCHW data, strides [1, 1, 1, 1] and SAME padding by default."""
    return _pool("max_pool", value, ksize, strides, padding, data_format, name, input)


def avg_pool(value=None, ksize=None, strides=None, padding=None, data_format=None, name=None, input=None):
    """TF: avg_pool(value, ksize, strides, padding, data_format="NHWC"). TinyFlow (strides or padding
    left out): NCHW data, strides [1, 1, 1, 1] and SAME padding by default."""
    return _pool("avg_pool", value, ksize, strides, padding, data_format, name, input)


def batch_normalization(x, mean=None, variance=None, offset=None, scale=None, variance_epsilon=None, name=None):
    """TF: batch_normalization(x, mean, variance, offset, scale, variance_epsilon). TinyFlow
    (batch_normalization(data)): NCHW data normalized by the batch's statistics, with its own
    <name>_gamma and <name>_beta."""
    if mean is None and variance is None and variance_epsilon is None:
        return _tiny.batch_normalization(x, name=name)
    return _tf.batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name)


# tf.nn.rnn_cell and the RNN functions live in rnn_cell.py / rnn.py, which build on tf.layers (which
# itself imports this module): they are loaded on first use.
_RNN = {"dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn", "raw_rnn",
        "static_state_saving_rnn"}


def __getattr__(name):
    import importlib
    if name == "rnn_cell":
        return importlib.import_module("tinyflow.rnn_cell")
    if name in _RNN:
        return getattr(importlib.import_module("tinyflow.rnn"), name)
    raise AttributeError("module 'tinyflow.nn' has no attribute %r" % name)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (the batch size, one replica, by default)."""
    from tinyflow.ops.core import array_ops, math_ops
    from tinyflow.ops.core.base import convert_to_tensor
    loss = convert_to_tensor(per_example_loss, name="per_example_loss")
    dtype = loss.dtype
    if sample_weight is not None:
        loss = math_ops.cast(loss * convert_to_tensor(sample_weight, dtype=dtype, name="sample_weight"), dtype)
    if global_batch_size is None:
        global_batch_size = array_ops.shape(loss)[0]
    return math_ops.reduce_sum(loss) / math_ops.cast(global_batch_size, dtype)


from tinyflow.api.nn_more import *  # noqa: E402,F401,F403 (CTC, candidate samplers, dilation2d, ...)
