"""TinyFlow's API beside TF's: variables whose shape is known only after inference, the layers that
create their own weights, and `tf.infer_variable_shapes`.

TinyFlow (TF's API on NNVM and Torch7) let a script say only what TF cannot infer itself:

    x = tf.placeholder(tf.float32)
    fc1 = tf.nn.linear(x, num_hidden=100, name="fc1")          # creates fc1_weight [100, ?]
    ...
    for v, name, shape in tf.infer_variable_shapes(loss, feed_dict={x: [100, 784]}):
        sess.run(tf.assign(v, tf.normal(shape, 0.01)))

A weight is a variable with a partly unknown shape; `passes/infer.py` fills it with its backward
sweep (a MatMul knows its weight's input dimension from its data): the backward rules those
layers need are declared with the ops they emit (`infer_back`, ops/back_shapes.py). As in TinyFlow, such a
variable has no initial value: the script assigns one once its shape is known (its `initializer`
is a no-op, so tf.initialize_all_variables() leaves it alone).

The layers live in tinyflow/nn.py, which decides per call whether TF's or TinyFlow's meaning
applies: a call TF 1.15's signature accepts means what it means in TF; a call TF would reject
(a required argument missing, a TinyFlow-only keyword) takes TinyFlow's meaning.
"""
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, Tensor, get_default_graph
from tinyflow.graph.registry import register_op
from tinyflow.graph.shapes import TensorShape
from tinyflow.passes import infer as infer_pass
from tinyflow.ops import nn_ops, random_ops, state_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops.core.base import convert_to_tensor, make_op

__all__ = ["infer_variable_shapes", "normal", "pad", "equal", "not_equal", "reduce_mean", "reduce_sum"]


def auto_variable(name, shape, dtype=dt.float32):
    """A trainable variable of a possibly partial `shape` whose value the script assigns later."""
    return state_ops.Variable(name=name, shape=TensorShape(shape), dtype=dtype)


# ---- tf.infer_variable_shapes ------------------------------------------------------------------------
def _variables_of(graph):
    by_op = {}
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
        for v in graph.get_collection(key):
            if isinstance(v, state_ops.Variable):
                by_op.setdefault(v.op, v)
    return by_op


def infer_variable_shapes(net, feed_dict):
    """Infers the shape of every variable `net` uses from the shapes of its feeds, and fills it in.

    net: the tensor (or op, or list) the variables feed, e.g. the loss. feed_dict: {placeholder:
    shape}. Yields (variable, name, shape) per variable, in creation order, shape a list of ints;
    raises ValueError naming the first variable whose shape the feeds do not determine. Variables
    filled here still need a value: assign one (TinyFlow: tf.assign(v, tf.normal(shape, stdev))).
    """
    shapes = infer_pass.infer(net, feed_shapes=feed_dict)
    graph = next(iter(shapes)).graph if shapes else get_default_graph()
    by_op = _variables_of(graph)
    found = []
    for t, (shape, _) in shapes.items():
        if t.op.type == "VariableV2":
            if not shape.is_fully_defined():
                raise ValueError("Cannot infer the shape of variable '%s': known so far %s; not sufficient "
                                 "information in feed_dict" % (t.op.name, shape.as_proto_str()))
            found.append((t.op._id, t, shape))
    result = []
    for _, t, shape in sorted(found, key=lambda e: e[0]):
        if t.shape.as_tuple() != shape.as_tuple():
            t.set_shape(shape)
            t.op.attrs["shape"] = t.shape
        result.append((by_op.get(t.op, t), t.op.name, shape.as_list()))
    return iter(result)


# ---- tf.normal and TinyFlow's tf.pad -------------------------------------------------------------------
def normal(shape, stdev=1.0, dtype=dt.float32, seed=None, name=None):
    """TinyFlow's tf.normal(shape, stdev): normal samples with mean 0 and standard deviation stdev."""
    return random_ops.random_normal(shape, stddev=stdev, dtype=dtype, seed=seed, name=name)


def pad(tensor=None, paddings=None, mode="CONSTANT", name=None, constant_values=0, dim=None, pad=None, x=None):
    """tf.pad. TF's call (paddings given) pads as TF does. TinyFlow's call tf.pad(x, dim=d, pad=p) pads
    dimension d with |p| zeros as Torch's nn.Padding does: at its end when p > 0, at its start when p < 0
    (so pad(pad(x, dim=d, pad=-3), dim=d, pad=3) has 3 zeros on both sides)."""
    tensor = x if tensor is None else tensor
    if paddings is not None or (dim is None and pad is None):
        return array_ops.pad(tensor, paddings, mode=mode, name=name, constant_values=constant_values)
    t = convert_to_tensor(tensor, name="x")
    dim, p = int(dim or 0), int(pad or 0)
    rank = t.shape.ndims
    if rank is None:  # TinyFlow's scripts pad placeholders of unknown rank: resolve `dim` when lowering
        return make_op("TinyFlowPad", [t], {"dim": dim, "pad": p}, name=name or "pad")
    if not -rank <= dim < rank:
        raise ValueError("tf.pad(x, dim=%d): x has rank %d" % (dim, rank))
    widths = np.zeros((rank, 2), np.int32)
    widths[dim % rank] = _pad_widths(p)
    return array_ops.pad(t, widths, name=name or "pad")


def _pad_widths(p):
    """(before, after) of TinyFlow's pad=p: |p| zeros before when p < 0, p zeros after when p > 0."""
    return (-p, 0) if p < 0 else (0, p)


def _tinyflow_pad_dim(attrs, ndims):
    d = attrs["dim"]
    if not -ndims <= d < ndims:
        raise ValueError("tf.pad(x, dim=%d): x has rank %d" % (d, ndims))
    return d % ndims


def _tinyflow_pad_shape(shapes, attrs, values):
    s = shapes[0]
    if s.ndims is None:
        return [TensorShape(None)]
    d = _tinyflow_pad_dim(attrs, s.ndims)
    dims = s.as_list()
    if dims[d] is not None:
        dims[d] += abs(attrs["pad"]) * (-1 if attrs.get("unpad") else 1)
    return [TensorShape(dims)]


def _tinyflow_pad_lower(attrs, x):
    """The rank is concrete here: pad `dim` with zeros (or, for the gradient, cut the padded places off)."""
    import jax.numpy as jnp
    d = _tinyflow_pad_dim(attrs, x.ndim)
    before, after = _pad_widths(attrs["pad"])
    if attrs.get("unpad"):
        index = [slice(None)] * x.ndim
        index[d] = slice(before, x.shape[d] - after)
        return x[tuple(index)]
    widths = [(0, 0)] * x.ndim
    widths[d] = (before, after)
    return jnp.pad(x, widths)


register_op("TinyFlowPad", shape=_tinyflow_pad_shape, dtype=lambda d, a: [d[0]],
            grad=lambda op, g: [make_op("TinyFlowPad", [g], dict(op.attrs, unpad=not op.attrs.get("unpad")))],
            lower=_tinyflow_pad_lower)


# ---- TinyFlow's comparisons and reductions (TF rejects these calls; TinyFlow's scripts make them) ------
def _numeric_pair(x, y):
    """x and y as tensors of one dtype: an integer tensor meets a floating one as that float, as
    TinyFlow's `tf.equal(tf.argmax(y, 1), label)` (int64 against float labels) expects."""
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if x.dtype != y.dtype and x.dtype.is_integer and y.dtype.is_floating:
        x = math_ops.cast(x, y.dtype)
    elif x.dtype != y.dtype and y.dtype.is_integer and x.dtype.is_floating:
        y = math_ops.cast(y, x.dtype)
    return x, y


def equal(x, y, name=None):
    """tf.equal; an integer and a floating tensor compare as floats (TinyFlow), where TF raises."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        x, y = _numeric_pair(x, y)
    return math_ops.equal(x, y, name=name)


def not_equal(x, y, name=None):
    """tf.not_equal; an integer and a floating tensor compare as floats (TinyFlow), where TF raises."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        x, y = _numeric_pair(x, y)
    return math_ops.not_equal(x, y, name=name)


def _bool_reduction(tf_reduce):
    def reduce(input_tensor, *args, **kwargs):
        t = convert_to_tensor(input_tensor) if not isinstance(input_tensor, Tensor) else input_tensor
        if isinstance(t, Tensor) and t.dtype == dt.bool_:  # TF rejects bool; TinyFlow counts True as 1.0
            t = math_ops.cast(t, dt.float32)
        return tf_reduce(t, *args, **kwargs)
    reduce.__name__ = tf_reduce.__name__
    reduce.__doc__ = "%s; over a bool tensor it reduces 1.0/0.0 as float32 (TinyFlow), where TF raises." % (
        tf_reduce.__name__)
    return reduce


reduce_mean = _bool_reduction(math_ops.reduce_mean)
reduce_sum = _bool_reduction(math_ops.reduce_sum)


# ---- TinyFlow's layers (tf.nn dispatches here) ---------------------------------------------------------
def _layer(name, default):
    g = get_default_graph()
    return name if name else g.unique_name(default, mark_as_used=True)


def linear(x, num_hidden, no_bias=True, name=None):
    """TinyFlow's fully connected layer: x [batch, in] @ <name>_weight[num_hidden, in]^T
    (+ <name>_bias [num_hidden] unless no_bias). The weights' shapes come from inference."""
    name = _layer(name, "linear")
    x = convert_to_tensor(x, name="data")
    w = auto_variable(name + "_weight", [int(num_hidden), None], x.dtype)
    b = None if no_bias else auto_variable(name + "_bias", [int(num_hidden)], x.dtype)
    with get_default_graph().name_scope(name + "/"):
        y = make_op("MatMul", [x, w.value()], {"transpose_a": False, "transpose_b": True}, name="MatMul")
        if b is not None:
            y = nn_ops.bias_add(y, b.value(), name="BiasAdd")
    return y


def _hw(seq, what):
    seq = [int(v) for v in seq]
    if len(seq) != 4 or seq[0] != 1 or seq[3] != 1:
        raise ValueError("TinyFlow's %s must be [1, h, w, 1], got %s" % (what, seq))
    return seq[1], seq[2]


def _same_pad(k, padding):
    # TinyFlow ran Torch's modules: SAME pads (k - 1) // 2 on each side, VALID none
    return (k - 1) // 2 if padding.upper() == "SAME" else 0


def conv2d(x, num_filter, ksize=(1, 1, 1, 1), strides=(1, 1, 1, 1), padding="SAME", data_format="NCHW",
           no_bias=True, name=None):
    """TinyFlow's convolution on NCHW data with <name>_weight [num_filter, C, kh, kw] (and
    <name>_bias [num_filter] unless no_bias); SAME pads (k - 1) // 2 on each side, as Torch."""
    if data_format != "NCHW":
        raise ValueError("TinyFlow's conv2d runs on NCHW data, got data_format=%r" % data_format)
    name = _layer(name, "conv2d")
    kh, kw = _hw(ksize, "ksize")
    sh, sw = _hw(strides, "strides")
    x = convert_to_tensor(x, name="data")
    w = auto_variable(name + "_weight", [int(num_filter), None, kh, kw], x.dtype)
    b = None if no_bias else auto_variable(name + "_bias", [int(num_filter)], x.dtype)
    ph, pw = _same_pad(kh, padding), _same_pad(kw, padding)
    with get_default_graph().name_scope(name + "/"):
        filt = array_ops.transpose(w.value(), [2, 3, 1, 0], name="weight_hwio")  # TF's filter layout
        pads = [[0, 0], [0, 0], [ph, ph], [pw, pw]] if (ph or pw) else "VALID"
        y = nn_ops.conv2d(x, filt, strides=[1, 1, sh, sw], padding=pads, data_format="NCHW", name="Conv2D")
        if b is not None:
            y = nn_ops.bias_add(y, b.value(), data_format="NCHW", name="BiasAdd")
    return y


def _pool(kind, x, ksize, strides, padding, data_format, name):
    if data_format != "NCHW":
        raise ValueError("TinyFlow's %s runs on NCHW data, got data_format=%r" % (kind, data_format))
    kh, kw = _hw(ksize, "ksize")
    sh, sw = _hw(strides, "strides")
    ph, pw = _same_pad(kh, padding), _same_pad(kw, padding)
    x = convert_to_tensor(x, name="data")
    with get_default_graph().name_scope(name or kind):
        if ph or pw:  # Torch's padding: -inf never wins a max; zeros count in an average
            fill = -np.inf if kind == "max_pool" else 0
            x = array_ops.pad(x, [[0, 0], [0, 0], [ph, ph], [pw, pw]], constant_values=fill)
        f = nn_ops.max_pool if kind == "max_pool" else nn_ops.avg_pool
        return f(x, [1, 1, kh, kw], [1, 1, sh, sw], "VALID", data_format="NCHW")


def max_pool(x, ksize, strides=(1, 1, 1, 1), padding="SAME", data_format="NCHW", name=None):
    """TinyFlow's max pooling on NCHW data (ksize and strides as [1, h, w, 1])."""
    return _pool("max_pool", x, ksize, strides, padding, data_format, name)


def avg_pool(x, ksize, strides=(1, 1, 1, 1), padding="SAME", data_format="NCHW", name=None):
    """TinyFlow's average pooling on NCHW data; SAME's zero padding counts in the average (Torch)."""
    return _pool("avg_pool", x, ksize, strides, padding, data_format, name)


def flatten_layer(x, name=None):
    """[batch, d1, d2, ...] -> [batch, d1 * d2 * ...]."""
    x = convert_to_tensor(x, name="data")
    with get_default_graph().name_scope(name or "flatten_layer"):
        s = x.shape
        if s.ndims is not None and s[1:].is_fully_defined():
            return array_ops.reshape(x, [-1, int(np.prod(s.as_list()[1:]))])
        n = array_ops.shape(x)[:1]
        return array_ops.reshape(x, array_ops.concat([n, [-1]], 0))


def batch_normalization(x, name=None, epsilon=1e-5):
    """TinyFlow's batch normalization of NCHW data with the batch's statistics (training mode),
    scaled by <name>_gamma [C] and shifted by <name>_beta [C]."""
    name = _layer(name, "batch_normalization")
    x = convert_to_tensor(x, name="data")
    gamma = auto_variable(name + "_gamma", [None], x.dtype)
    beta = auto_variable(name + "_beta", [None], x.dtype)
    with get_default_graph().name_scope(name + "/"):
        mean, var = nn_ops.moments(x, [0, 2, 3], keep_dims=True)
        y = math_ops.multiply(math_ops.subtract(x, mean), math_ops.rsqrt(var + np.asarray(epsilon, x.dtype.np)))
        y = math_ops.multiply(y, array_ops.reshape(gamma.value(), [1, -1, 1, 1]))
        return nn_ops.bias_add(y, beta.value(), data_format="NCHW")


def mean_sparse_softmax_cross_entropy_with_logits(logits, label, name=None):
    """The mean over the batch of the softmax cross entropy of `logits` against class indices
    `label` (any numeric dtype, as TinyFlow's float labels)."""
    with get_default_graph().name_scope(name or "mean_sparse_softmax_cross_entropy_with_logits"):
        label = convert_to_tensor(label, name="label")
        if label.dtype not in (dt.int32, dt.int64):
            label = math_ops.cast(label, dt.int32)
        xent = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=label, logits=logits)
        return math_ops.reduce_mean(xent)
