"""tf.contrib.layers (TF 1.15): the layers tutorials call (fully_connected, conv2d, pooling, dropout,
batch_norm, layer_norm, optimize_loss: this file, layers.py, normalization.py, optimizers.py), slim's
layers that contrib.layers shares with it (stack, repeat, softmax,
convolution2d, separable_conv2d, conv2d_transpose, bias_add, unit_norm, apply_regularization, ...),
the summaries (summarize_activation(s), summarize_tensor(s), summarize_collection) and the old
feature-column API (feature_column.py)."""
import re
import sys
import types

from tinyflow.api.contrib.layers import normalization as _bn
from tinyflow.api.contrib.layers import feature_column as feature_column  # noqa: F401
from tinyflow.api.contrib.layers import optimizers as _extra
from tinyflow.api.contrib.layers import layers as _more
from tinyflow.api import layers as _layers
from tinyflow.api import summary as _summary
from tinyflow.api.contrib.layers.feature_column import *  # noqa: F401,F403 (the old feature-column API)
from tinyflow.api.contrib.layers.layers import (l1_regularizer, l2_regularizer, variance_scaling_initializer,  # noqa
                                                xavier_initializer)
from tinyflow.graph.core import GraphKeys, get_collection
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import math_ops
from tinyflow.ops.core.base import convert_to_tensor

def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                    weights_initializer=None, weights_regularizer=None, biases_initializer=None,
                    biases_regularizer=None, reuse=None, variables_collections=None, outputs_collections=None,
                    trainable=True, scope=None):
    """activation_fn(inputs @ weights + biases) over the last dimension, ReLU by default."""
    with vs.variable_scope(scope, default_name="fully_connected", reuse=reuse):
        x = convert_to_tensor(inputs)
        depth = x.shape[-1].value if x.shape.ndims else None
        if depth is None:
            raise ValueError("The last dimension of the inputs to fully_connected should be defined.")
        w = vs.get_variable("weights", [depth, num_outputs], dtype=x.dtype,
                            initializer=weights_initializer or xavier_initializer(dtype=x.dtype),
                            regularizer=weights_regularizer, trainable=trainable)
        if x.shape.ndims == 2:
            out = math_ops.matmul(x, w)
        else:
            from tinyflow.ops.matrix_ops import tensordot
            out = tensordot(x, w, [[x.shape.ndims - 1], [0]])
        if normalizer_fn is not None:
            out = normalizer_fn(out, **(normalizer_params or {}))
        else:
            b = vs.get_variable("biases", [num_outputs], dtype=x.dtype,
                                initializer=biases_initializer or init_ops.zeros_initializer(),
                                regularizer=biases_regularizer, trainable=trainable)
            out = nn_ops.bias_add(out, b)
        return activation_fn(out) if activation_fn is not None else out


# tf.contrib.layers' own (tutorial) versions first, then what it shares with slim
flatten, batch_norm = _layers.flatten, _bn.batch_norm
conv2d, max_pool2d, avg_pool2d, dropout = _more.conv2d, _more.max_pool2d, _more.avg_pool2d, _more.dropout
one_hot_encoding, optimize_loss, layer_norm = _more.one_hot_encoding, _extra.optimize_loss, _bn.layer_norm
OPTIMIZER_CLS_NAMES, OPTIMIZER_SUMMARIES = _extra.OPTIMIZER_CLS_NAMES, _extra.OPTIMIZER_SUMMARIES
xavier_initializer_conv2d = xavier_initializer
convolution2d = conv2d
# (from slim's own modules, not its package: slim's package imports this one)
from tinyflow.api.contrib.slim.initializers import apply_regularization, l1_l2_regularizer  # noqa: E402,F401
from tinyflow.api.contrib.slim.layers import (bias_add, conv2d_in_plane, conv2d_transpose,  # noqa: E402,F401
                                              convolution2d_in_plane, convolution2d_transpose, repeat, separable_conv2d,
                                              separable_convolution2d, softmax, stack, unit_norm)
from tinyflow.api.contrib.slim import initializers, utils  # noqa: E402
from tinyflow.api.contrib.slim import variables as _slim_variables  # noqa: E402
regularizers = initializers


# ---- summaries (tf.contrib.layers.summaries) ----------------------------------------------------
def summarize_tensor(tensor, tag=None):
    """A scalar summary of a scalar tensor, else a histogram; tagged "<op name>_summary" by default."""
    tensor = convert_to_tensor(tensor)
    tag = tag or "%s_summary" % tensor.op.name
    if tensor.shape.ndims == 0:
        return _summary.scalar(tag, tensor)
    return _summary.histogram(tag, tensor)


def summarize_activation(op):
    """A histogram "<op>/activation" of an activation, and for Relu/Softplus/Relu6 the fraction of
    its inputs below zero ("<op>/zeros"; Relu6 also "<op>/sixes", above six)."""
    op = convert_to_tensor(op)
    if op.op.type in ("Relu", "Softplus", "Relu6"):
        x = op.op.inputs[0]
        _summary.scalar("%s/zeros" % op.op.name, math_ops.reduce_mean(math_ops.to_float(math_ops.less(
            x, math_ops.cast(0.0, x.dtype)))))
    if op.op.type == "Relu6":
        x = op.op.inputs[0]
        _summary.scalar("%s/sixes" % op.op.name, math_ops.reduce_mean(math_ops.to_float(math_ops.greater(
            x, math_ops.cast(6.0, x.dtype)))))
    return _summary.histogram("%s/activation" % op.op.name, op)


def summarize_tensors(tensors, summarizer=summarize_tensor):
    """summarizer(t) of each tensor."""
    return [summarizer(tensor) for tensor in tensors]


def summarize_collection(collection, name_filter=None, summarizer=summarize_tensor):
    """summarizer(t) of each tensor of a collection whose name matches the regex name_filter."""
    tensors = [t for t in get_collection(collection)
               if name_filter is None or re.match(name_filter, t.op.name)]
    return summarize_tensors(tensors, summarizer)


def summarize_activations(name_filter=None, summarizer=summarize_activation):
    """summarize_activation of the tensors of the ACTIVATIONS collection."""
    return summarize_collection(GraphKeys.ACTIVATIONS, name_filter, summarizer)


summaries = types.ModuleType(__name__ + ".summaries", "tf.contrib.layers.summaries")
summaries.__dict__.update(summarize_tensor=summarize_tensor, summarize_activation=summarize_activation,
                          summarize_tensors=summarize_tensors, summarize_collection=summarize_collection,
                          summarize_activations=summarize_activations)
sys.modules[summaries.__name__] = summaries


def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None, regularizer=None,
                   trainable=True, scope=None, reuse=None):
    """The embeddings of `ids` ([batch, length] ints -> [batch, length, embed_dim]) from a model variable
    `<scope>/embeddings` of shape [vocab_size, embed_dim] (scope "EmbedSequence" by default, as TF)."""
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("Must specify vocab size and embedding dimension when not reusing. Got vocab_size=%s "
                         "and embed_dim=%s" % (vocab_size, embed_dim))
    with vs.variable_scope(scope, "EmbedSequence", reuse=reuse):
        embeddings = _slim_variables.model_variable("embeddings", shape=[vocab_size, embed_dim],
                                                    initializer=initializer, regularizer=regularizer,
                                                    trainable=trainable)
        return nn_ops.embedding_lookup(embeddings, ids)
