"""Neural-network ops (tf.nn): activations, softmax and cross entropies, normalization, dropout,
embedding lookup and top-k. Convolution and pooling live in conv_ops.py and are re-exported here.
Each op: one register_op with all its rules, next to its TF-style builder; the rest are built from
other ops, as TF builds them."""
import numbers

import jax
import jax.numpy as jnp
import numpy as np

from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import ShapeError, get_default_graph
from tinyflow.graph.registry import register_op, same_as_input, shape_of_input
from tinyflow.graph.shapes import TensorShape
from tinyflow.ops import back_shapes
from tinyflow.ops.core import math_ops as M, sequence_ops
from tinyflow.ops import conv_ops, pooling_ops
from tinyflow.ops.core.base import broadcast_shapes, constant_value_of, convert_to_tensor, make_op, normalize_axis
from tinyflow.ops.conv_ops import *  # noqa: F401,F403
from tinyflow.ops.conv_ops import bias_add, convert_like
from tinyflow.ops.pooling_ops import *  # noqa: F401,F403

__all__ = conv_ops.__all__ + pooling_ops.__all__ + [
    "relu", "relu6", "elu", "selu", "softplus", "softsign", "leaky_relu", "sigmoid", "tanh",
    "softmax", "log_softmax", "softmax_cross_entropy_with_logits_v2", "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
    "weighted_cross_entropy_with_logits", "log_poisson_loss", "l2_loss", "l2_normalize", "moments",
    "batch_normalization", "fused_batch_norm", "dropout", "embedding_lookup", "in_top_k", "top_k",
    "crelu", "swish", "relu_layer", "xw_plus_b", "zero_fraction", "sufficient_statistics", "normalize_moments",
    "weighted_moments", "batch_norm_with_global_normalization",
]

sigmoid = M.sigmoid
tanh = M.tanh


def _scope(name, default):
    return get_default_graph().name_scope(name or default)


def _expand(t, axis):
    from tinyflow.ops.core.array_ops import expand_dims
    return expand_dims(t, axis)


def _is_zeros(t):
    """True for the ZerosLike (or None) that tf.gradients feeds for an output nobody differentiated."""
    return t is None or t.op.type == "ZerosLike"


# ---- activations -----------------------------------------------------------------------------------
def _activation(op_type, lower, grad, doc):
    register_op(op_type, shape=shape_of_input(0), dtype=same_as_input(0), grad=grad, inplace=((0, 0),),
                lower=lambda a, x: lower(x).astype(x.dtype), infer_back=back_shapes.same_shape)

    def builder(features, name=None):
        return make_op(op_type, [convert_to_tensor(features, name="features")], name=name or op_type)
    builder.__name__ = op_type.lower()
    builder.__doc__ = doc
    return builder


def _where_negative(t, yes, no):
    return M.where_v2(M.less(t, M.zeros_like_scalar(t)), yes, no)


def _where_positive(t, yes, no):
    return M.where_v2(M.greater(t, M.zeros_like_scalar(t)), yes, no)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946

relu = _activation("Relu", lambda x: jnp.maximum(x, 0),
                   lambda op, g: [_where_positive(op.outputs[0], g, M.zeros_like(g))], "max(features, 0).")
relu6 = _activation(
    "Relu6", lambda x: jnp.clip(x, 0, 6),
    lambda op, g: [M.where_v2(M.logical_and(M.greater(op.inputs[0], M.zeros_like_scalar(g)),
                                            M.less(op.inputs[0], M.scalar_like(6, g))), g, M.zeros_like(g))],
    "min(max(features, 0), 6).")
elu = _activation(
    "Elu", lambda x: jnp.where(x > 0, x, jnp.expm1(jnp.minimum(x, 0))),
    lambda op, g: [_where_negative(op.outputs[0], M.multiply(g, M.add(op.outputs[0], M.ones_like_scalar(g))), g)],
    "features if > 0, else exp(features) - 1.")
selu = _activation(
    "Selu", lambda x: _SELU_SCALE * jnp.where(x > 0, x, _SELU_ALPHA * jnp.expm1(jnp.minimum(x, 0))),
    lambda op, g: [_where_negative(op.outputs[0],
                                   M.multiply(g, M.add(op.outputs[0], M.scalar_like(_SELU_SCALE * _SELU_ALPHA, g))),
                                   M.multiply(g, M.scalar_like(_SELU_SCALE, g)))],
    "scale * (features if > 0 else alpha * (exp(features) - 1)), the self-normalizing constants.")
softplus = _activation("Softplus", lambda x: jnp.logaddexp(x, 0),
                       lambda op, g: [M.multiply(g, M.sigmoid(op.inputs[0]))], "log(exp(features) + 1), stably.")
softsign = _activation(
    "Softsign", lambda x: x / (1 + jnp.abs(x)),
    lambda op, g: [M.realdiv(g, M.square(M.add(M.abs(op.inputs[0]), M.ones_like_scalar(g))))],
    "features / (abs(features) + 1).")


def _leaky_grad(op, g):
    return [_where_positive(op.inputs[0], g, M.multiply(g, M.scalar_like(float(np.float32(op.attrs["alpha"])), g)))]


register_op("LeakyRelu", shape=shape_of_input(0), dtype=same_as_input(0), grad=_leaky_grad, inplace=((0, 0),),
            lower=lambda a, x: jnp.where(x > 0, x, x * np.asarray(np.float32(a["alpha"]), x.dtype)))  # a float attr


def leaky_relu(features, alpha=0.2, name=None):
    """features if > 0, else alpha * features."""
    with _scope(name, "LeakyRelu") as scope:
        x = convert_to_tensor(features, name="features")
        if x.dtype.is_integer:
            x = M.to_float(x)
        return make_op("LeakyRelu", [x], {"alpha": float(alpha)}, name=scope)


def crelu(features, name=None, axis=-1):
    """concat([relu(x), relu(-x)], axis): keeps both signs, doubling the depth."""
    from tinyflow.ops.core.array_ops import concat
    with _scope(name, "CRelu") as scope:
        x = convert_to_tensor(features, name="features")
        return relu(concat([x, M.negative(x)], axis), name=scope)


def swish(features):
    """features * sigmoid(features)."""
    with _scope(None, "swish") as scope:
        x = convert_to_tensor(features, name="features")
        return M.multiply(x, M.sigmoid(x), name=scope)


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases."""
    with _scope(name, "xw_plus_b") as scope:
        return bias_add(M.matmul(x, weights), biases, name=scope)


def relu_layer(x, weights, biases, name=None):
    """relu(matmul(x, weights) + biases)."""
    with _scope(name, "relu_layer") as scope:
        return relu(bias_add(M.matmul(x, weights), biases), name=scope)


def zero_fraction(value, name=None):
    """The fraction of zeros in `value`, as a float32 scalar."""
    with _scope(name, "zero_fraction"):
        x = convert_to_tensor(value, name="value")
        zero = M.zeros_like_scalar(x) if x.dtype != dt.bool_ else False
        return M.reduce_mean(M.cast(M.equal(x, zero), dt.float32))


# ---- softmax ---------------------------------------------------------------------------------------
def _softmax_grad(op, g):
    y = op.outputs[0]
    ax = op.attrs["axis"]
    return [M.multiply(M.subtract(g, M.reduce_sum(M.multiply(g, y), axis=ax, keepdims=True)), y)]


def _log_softmax_grad(op, g):
    y = op.outputs[0]
    ax = op.attrs["axis"]
    return [M.subtract(g, M.multiply(M.exp(y), M.reduce_sum(g, axis=ax, keepdims=True)))]


register_op("Softmax", shape=shape_of_input(0), dtype=same_as_input(0), grad=_softmax_grad,
            lower=lambda a, x: jax.nn.softmax(x, axis=a["axis"]))
register_op("LogSoftmax", shape=shape_of_input(0), dtype=same_as_input(0), grad=_log_softmax_grad,
            lower=lambda a, x: jax.nn.log_softmax(x, axis=a["axis"]))


def _axis_of(x, axis):
    """A softmax axis, normalized when the rank is known; TF's error when out of range."""
    axis = -1 if axis is None else int(axis)
    if x.shape.ndims is not None:
        if x.shape.ndims == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0 for input %s" % x.name)
        axis = normalize_axis(axis, x.shape.ndims, "dim")
    return axis


def _softmax_op(op_type, logits, axis, name):
    x = convert_to_tensor(logits, name="logits")
    return make_op(op_type, [x], {"axis": _axis_of(x, axis)}, name=name or op_type)


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / sum(exp(logits), axis), computed stably."""
    return _softmax_op("Softmax", logits, dim if axis is None else axis, name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(sum(exp(logits), axis)), computed stably."""
    return _softmax_op("LogSoftmax", logits, dim if axis is None else axis, name)


# ---- softmax cross entropy -------------------------------------------------------------------------
def _xent_lower(a, logits, labels):
    ax = a["axis"]
    logp = jax.nn.log_softmax(logits, axis=ax)
    loss = -jnp.sum(labels * logp, axis=ax)
    return loss, jnp.exp(logp) - labels   # TF's kernel: softmax - labels, even when labels do not sum to 1


def _xent_shape(shapes, attrs, values):
    s = broadcast_shapes(shapes[0], shapes[1])
    if s.ndims is None:
        return [s, s]
    return [TensorShape([d for i, d in enumerate(s.as_list()) if i != attrs["axis"] % s.ndims]), s]


def _xent_grad(op, g_loss, g_backprop):
    """TF's rule: d loss/d logits = softmax - labels (its kernel's backprop, exact when labels sum to 1);
    d loss/d labels = -log_softmax.
    When the backprop output itself was differentiated (second order), its exact terms are added."""
    logits, labels = op.inputs
    ax = op.attrs["axis"]
    g = _expand(g_loss, ax)
    g_logits = M.multiply(g, op.outputs[1])
    g_labels = M.multiply(g, M.negative(log_softmax(logits, axis=ax)))
    if not _is_zeros(g_backprop):
        s = softmax(logits, axis=ax)
        gs = M.reduce_sum(M.multiply(g_backprop, s), axis=ax, keepdims=True)
        g_logits = M.add(g_logits, M.multiply(M.subtract(g_backprop, gs), s))
        g_labels = M.add(g_labels, M.subtract(gs, g_backprop))
    return [M.sum_to(g_logits, logits), M.sum_to(g_labels, labels)]


register_op("SoftmaxCrossEntropyWithLogits", shape=_xent_shape, dtype=lambda d, a: [d[0], d[0]], grad=_xent_grad,
            lower=_xent_lower)


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=None, name=None, dim=None):
    """-sum(labels * log_softmax(logits), axis), computed stably; gradients flow to labels too."""
    axis = -1 if axis is None and dim is None else (dim if axis is None else axis)
    with _scope(name, "softmax_cross_entropy_with_logits") as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = M.cast(convert_to_tensor(labels, name="labels"), logits.dtype)
        attrs = {"axis": _axis_of(logits, axis)}
        if labels.shape.ndims != logits.shape.ndims and labels.shape.ndims is not None \
                and logits.shape.ndims is not None:
            return _xent_flattened(logits, labels, attrs["axis"], scope)
        return make_op("SoftmaxCrossEntropyWithLogits", [logits, labels], attrs, name=scope)[0]


def _xent_flattened(logits, labels, axis, scope):
    """Labels of another rank than the logits (a script's `labels=[y]` is [1, N, C]): TF's wrapper
    flattens both to 2-D, [-1, C], lets the op broadcast them, and reshapes the loss to the logits'
    shape without its class axis. Broadcasting the two shapes instead would reduce the wrong axis."""
    from tinyflow.ops.core.array_ops import reshape, shape
    if axis != logits.shape.ndims - 1:
        raise ValueError("softmax_cross_entropy_with_logits: labels of rank %d and logits of rank %d need "
                         "axis=-1 (got axis=%d)" % (labels.shape.ndims, logits.shape.ndims, axis))
    flat = [reshape(t, [-1, t.shape[-1].value if t.shape[-1].value is not None else shape(t)[-1]])
            for t in (logits, labels)]
    cost = make_op("SoftmaxCrossEntropyWithLogits", flat, {"axis": 1})[0]
    out_shape = logits.shape[:-1]
    cost = reshape(cost, out_shape.as_list() if out_shape.is_fully_defined() else shape(logits)[:-1], name=scope)
    cost.set_shape(out_shape)
    return cost


def _named_arguments(fn_name, sentinel, labels, logits):
    """TF's check that the cross-entropy functions are called with labels= and logits= by name."""
    if sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `%s` with named arguments (labels=..., logits=..., ...)" % fn_name)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """The v1 form: like v2, but no gradient flows into labels."""
    _named_arguments("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    from tinyflow.ops.core.array_ops import stop_gradient
    with _scope(name, "softmax_cross_entropy_with_logits_sg") as scope:
        labels = stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim if axis is None else axis,
                                                name=scope)


def _sparse_xent_lower(a, logits, labels):
    n = logits.shape[-1]
    logp = jax.nn.log_softmax(logits, axis=-1)
    onehot = jax.nn.one_hot(labels, n, dtype=logits.dtype)
    valid = (labels >= 0) & (labels < n)  # out-of-range labels give NaN (TF's GPU behaviour)
    loss = jnp.where(valid, -jnp.sum(onehot * logp, axis=-1), jnp.nan).astype(logits.dtype)
    backprop = jnp.where(valid[..., None], jnp.exp(logp) - onehot, jnp.nan).astype(logits.dtype)
    return loss, backprop


def _sparse_xent_shape(shapes, attrs, values):
    logits, labels = shapes
    if logits.ndims is None:
        return [labels, logits]
    batch = logits[:-1]
    if not batch.is_compatible_with(labels):
        raise ShapeError("Dimensions must be equal, but are %s and %s" % (
            labels.as_proto_str(), batch.as_proto_str()))
    batch = batch.merge_with(labels)
    return [batch, batch.concatenate(logits[-1:])]


def _sparse_xent_dtype(dtypes, attrs):
    if dtypes[1] not in (dt.int32, dt.int64):
        raise TypeError("Value passed to parameter 'labels' has DataType %s not in list of allowed values: "
                        "int32, int64" % dtypes[1].name)
    if not dtypes[0].is_floating:
        raise TypeError("Value passed to parameter 'features' has DataType %s not in list of allowed values: "
                        "float16, bfloat16, float32, float64" % dtypes[0].name)
    return [dtypes[0], dtypes[0]]


def _sparse_xent_grad(op, g_loss, g_backprop):
    g_logits = M.multiply(_expand(g_loss, -1), op.outputs[1])
    if not _is_zeros(g_backprop):
        s = softmax(op.inputs[0])
        gs = M.reduce_sum(M.multiply(g_backprop, s), axis=-1, keepdims=True)
        g_logits = M.add(g_logits, M.multiply(M.subtract(g_backprop, gs), s))
    return [g_logits, None]


def _sparse_xent_check(a, logits, labels):
    n = logits.shape[-1]
    return jnp.all((labels >= 0) & (labels < n)), labels, jnp.array(n, np.int64)


def _sparse_xent_message(op, labels, n):
    bad = labels.reshape(-1)[((labels < 0) | (labels >= n)).reshape(-1)][0]
    return ("Received a label value of %d which is outside the valid range of [0, %d).  Label values: %s"
            % (bad, n, " ".join(str(int(v)) for v in labels.reshape(-1))))


register_op("SparseSoftmaxCrossEntropyWithLogits", shape=_sparse_xent_shape, dtype=_sparse_xent_dtype,
            grad=_sparse_xent_grad, lower=_sparse_xent_lower, check=_sparse_xent_check,
            check_message=_sparse_xent_message)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """-log_softmax(logits)[label]: labels are int32/int64 class indices of rank rank(logits) - 1."""
    _named_arguments("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with _scope(name, "SparseSoftmaxCrossEntropyWithLogits") as scope:
        labels = convert_to_tensor(labels, name="labels")
        logits = convert_to_tensor(logits, name="logits")
        ls, gs = labels.shape, logits.shape
        if gs.ndims == 0:
            raise ValueError("Logits cannot be scalars - received shape %s." % gs)
        if gs.ndims is not None and ls.ndims is not None and ls.ndims != gs.ndims - 1:
            raise ValueError("Rank mismatch: Rank of labels (received %s) should equal rank of logits minus 1 "
                             "(received %s)." % (ls.ndims, gs.ndims))
        if ls.is_fully_defined() and gs.ndims is not None and gs[:-1].is_fully_defined() and ls != gs[:-1]:
            raise ValueError("Shape mismatch: The shape of labels (received %s) should equal the shape of logits "
                             "except for the last dimension (received %s)." % (ls, gs))
        return make_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], name=scope)[0]


# ---- elementwise losses (compositions, as TF builds them) ------------------------------------------
def _same_shape(labels, logits):
    try:
        labels.shape.merge_with(logits.shape)
    except ValueError:
        raise ValueError("logits and labels must have the same shape (%s vs %s)" % (logits.shape, labels.shape))


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """max(x, 0) - x * z + log(1 + exp(-abs(x))): the stable logistic loss of logits x, labels z."""
    _named_arguments("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with _scope(name, "logistic_loss") as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_like(labels, logits, name="labels")
        _same_shape(labels, logits)
        zeros = M.zeros_like(logits)
        cond = M.greater_equal(logits, zeros)
        relu_logits = M.where_v2(cond, logits, zeros)
        neg_abs = M.where_v2(cond, M.negative(logits), logits)
        return M.add(M.subtract(relu_logits, M.multiply(logits, labels)), M.log1p(M.exp(neg_abs)), name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None):
    """The logistic loss with positive examples weighted by `pos_weight`, computed stably."""
    labels = targets if labels is None else labels
    with _scope(name, "logistic_loss") as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_like(labels, logits, name="labels")
        _same_shape(labels, logits)
        one = M.ones_like_scalar(logits)
        log_weight = M.add(one, M.multiply(M.subtract(convert_to_tensor(pos_weight, dtype=logits.dtype), one), labels))
        soft = M.add(M.log1p(M.exp(M.negative(M.abs(logits)))), relu(M.negative(logits)))
        return M.add(M.multiply(M.subtract(one, labels), logits), M.multiply(log_weight, soft), name=scope)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets (+ Stirling's term for targets > 1 when compute_full_loss)."""
    with _scope(name, "log_poisson_loss") as scope:
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_like(targets, log_input, name="targets")
        _same_shape(targets, log_input)
        result = M.subtract(M.exp(log_input), M.multiply(log_input, targets))
        if not compute_full_loss:
            return M.identity(result, name=scope)
        half = M.scalar_like(0.5, targets)
        stirling = M.add(M.subtract(M.multiply(targets, M.log(targets)), targets),
                         M.multiply(half, M.log(M.multiply(M.scalar_like(2 * np.pi, targets), targets))))
        one = M.ones_like_scalar(targets)
        keep = M.logical_and(M.greater_equal(targets, M.zeros_like_scalar(targets)), M.less_equal(targets, one))
        return M.add(result, M.where_v2(keep, M.zeros_like(targets), stirling), name=scope)


# ---- l2 and normalization --------------------------------------------------------------------------
register_op("L2Loss", shape=lambda s, a, v: [TensorShape([])], dtype=same_as_input(0),
            grad=lambda op, g: [M.multiply(g, op.inputs[0])],
            lower=lambda a, x: (jnp.sum(jnp.square(x)) / 2).astype(x.dtype))


def l2_loss(t, name=None):
    """sum(t ** 2) / 2."""
    return make_op("L2Loss", [convert_to_tensor(t, name="t")], name=name or "L2Loss")


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""
    axis = dim if axis is None else axis
    with _scope(name, "l2_normalize") as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = M.reduce_sum(M.square(x), axis, keepdims=True)
        inv = M.rsqrt(M.maximum(square_sum, M.scalar_like(epsilon, x)))
        return M.multiply(x, inv, name=scope)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over `axes` (the biased variance, as TF)."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with _scope(name, "moments"):
        x = convert_to_tensor(x, name="x")
        y = M.cast(x, dt.float32) if x.dtype == dt.float16 else x
        from tinyflow.ops.core.array_ops import squeeze, stop_gradient
        mean = M.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = M.reduce_mean(M.squared_difference(y, stop_gradient(mean)), axes, keepdims=True, name="variance")
        if not keep:
            mean, variance = squeeze(mean, axes), squeeze(variance, axes)
        if x.dtype == dt.float16:
            return M.cast(mean, dt.float16), M.cast(variance, dt.float16)
        return mean, variance


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of x - shift, sum of (x - shift) ** 2, shift) over `axes`."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with _scope(name, "sufficient_statistics"):
        x = convert_to_tensor(x, name="x")
        if not x.shape.is_fully_defined():
            raise ValueError("tinyflow's sufficient_statistics needs a fully defined shape, got %s" % x.shape)
        axes_list = [axes] if isinstance(axes, int) else list(axes)
        count = convert_to_tensor(float(np.prod([x.shape[a].value for a in axes_list])), dtype=x.dtype,
                                  name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, dtype=x.dtype, name="shift")
            xs = M.subtract(x, shift)
        else:
            xs = x
        m_ss = M.reduce_sum(xs, axes_list, keepdims=keep, name="mean_ss")
        v_ss = M.reduce_sum(M.square(xs), axes_list, keepdims=keep, name="var_ss")
        return count, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics."""
    with _scope(name, "normalize"):
        divisor = M.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = M.multiply(mean_ss, divisor, name="shifted_mean")
            mean = M.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = M.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = M.subtract(M.multiply(variance_ss, divisor), M.square(shifted_mean), name="variance")
        return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over `axes`, each element weighted by (broadcast) frequency_weights."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    from tinyflow.ops.core.array_ops import squeeze
    with _scope(name, "weighted_moments"):
        x = convert_to_tensor(x, name="x")
        w = M.cast(convert_to_tensor(frequency_weights, name="frequency_weights"), x.dtype)
        wx = M.multiply(w, x)
        sum_w = M.reduce_sum(M.add(w, M.zeros_like(x)), axes, keepdims=True)
        mean = M.realdiv(M.reduce_sum(wx, axes, keepdims=True), sum_w)
        var = M.realdiv(M.reduce_sum(M.multiply(w, M.squared_difference(x, mean)), axes, keepdims=True), sum_w)
        if not keep:
            mean, var = squeeze(mean, axes), squeeze(var, axes)
        return mean, var


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, as TF composes it."""
    with _scope(name, "batchnorm"):
        x = convert_to_tensor(x, name="x")
        inv = M.rsqrt(M.add(variance, M.scalar_like(variance_epsilon, convert_to_tensor(variance))))
        if scale is not None:
            inv = M.multiply(inv, scale)
        shift = M.subtract(offset, M.multiply(mean, inv)) if offset is not None else M.negative(M.multiply(mean, inv))
        return M.add(M.multiply(x, M.cast(inv, x.dtype)), M.cast(shift, x.dtype))


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None, mean=None,
                                         variance=None):
    """The old batch normalization: (t - m) / sqrt(v + eps) * gamma (if scale_after_normalization) + beta."""
    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None, variance_epsilon,
                               name=name or "batchnorm")


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None):
    """(y, batch mean, batch variance) of a 4-D x. Training: the batch's statistics (the returned variance
    is Bessel-corrected, as TF); inference: the given mean and variance."""
    with _scope(name, "FusedBatchNorm"):
        x = convert_to_tensor(x, name="x")
        axes = [0, 2, 3] if data_format == "NCHW" else [0, 1, 2]
        view = [1, -1, 1, 1] if data_format == "NCHW" else [-1]
        from tinyflow.ops.core.array_ops import reshape
        if is_training:
            mean, variance = moments(x, axes)
        elif mean is None or variance is None:
            raise ValueError("Both 'mean' and 'variance' must be a 1D tensor when is_training is False.")
        epsilon = max(epsilon, 1.001e-5)  # TF raises tiny epsilons to cuDNN's minimum
        y = batch_normalization(x, reshape(mean, view), reshape(variance, view), reshape(offset, view),
                                reshape(scale, view), epsilon)
        if is_training:  # TF returns the unbiased batch variance (n / (n - 1)), though y used the biased one
            from tinyflow.ops.core.array_ops import size
            n = M.realdiv(M.cast(size(x), x.dtype), M.cast(size(mean), x.dtype))
            one = M.ones_like_scalar(n)
            variance = M.multiply(variance, M.realdiv(n, M.maximum(M.subtract(n, one), one)))
            # TF's FusedBatchNormGrad ignores the gradients reaching the batch mean and variance outputs
            from tinyflow.ops.core.array_ops import stop_gradient
            mean, variance = stop_gradient(mean), stop_gradient(variance)
        return y, mean, variance


# ---- dropout ---------------------------------------------------------------------------------------
def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes each element with probability `rate` (= 1 - keep_prob) and scales the rest by 1 / keep_prob.

    A rate of 0 (keep_prob 1.0) returns `x` itself. `noise_shape` broadcasts one decision over dims."""
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'rate' and 'keep_prob'.")
    if keep_prob is not None:
        try:
            rate = 1 - keep_prob
        except TypeError:
            raise ValueError("keep_prob must be a floating point number or Tensor (got %r)" % (keep_prob,))
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    with _scope(name, "dropout") as scope:
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("x has to be a floating point tensor since it's going to be scaled. Got a %s tensor "
                             "instead." % x.dtype.name)
        if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
            raise ValueError("rate must be a scalar tensor or a float in the range [0, 1), got %g" % rate)
        rate = convert_to_tensor(rate, dtype=x.dtype, name="rate")
        if rate.shape.ndims not in (None, 0):
            raise ValueError("Shape must be rank 0 but is rank %d for 'dropout' (rate)" % rate.shape.ndims)
        if constant_value_of(rate) is not None and float(constant_value_of(rate)) == 0:
            return x
        from tinyflow.ops.core.array_ops import shape as shape_of
        from tinyflow.ops.random_ops import random_uniform
        noise = random_uniform(shape_of(x) if noise_shape is None else noise_shape, seed=seed, dtype=x.dtype)
        scale = M.realdiv(M.ones_like_scalar(x), M.subtract(M.ones_like_scalar(x), rate))
        keep = M.cast(M.greater_equal(noise, rate), x.dtype)
        out = M.multiply(M.multiply(x, scale), keep, name=scope)
        out.set_shape(x.shape)  # as TF: a shapeless keep_prob placeholder must not lose x's shape
        return out


# ---- embedding lookup ------------------------------------------------------------------------------
def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Rows `ids` of `params` (a tensor, or a list of shards split by `partition_strategy`).

    Shards are concatenated and ids mapped to rows of the concatenation, so the gradient reaches each
    shard through the concat."""
    from tinyflow.ops.core.array_ops import concat
    from tinyflow.ops.core.indexing_ops import gather
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Need at least one param")
    if partition_strategy not in ("mod", "div"):
        raise ValueError("Unrecognized partition strategy: " + partition_strategy)
    shards = list(params) if isinstance(params, (list, tuple)) else [params]
    with _scope(name, "embedding_lookup") as scope:
        shards = [convert_to_tensor(p, name="params") for p in shards]
        ids = convert_to_tensor(ids, name="ids")
        if len(shards) == 1:
            table, rows = shards[0], ids
        else:
            table, rows = concat(shards, 0), _shard_rows(shards, ids, partition_strategy)
        out = gather(table, rows, name=None if max_norm is not None else scope)
        if max_norm is not None:
            out = _clip_rows(out, ids, max_norm, scope)
        return out


def _shard_rows(shards, ids, strategy):
    """Row of each id in the concatenation of the shards (TF's mod/div partitioning)."""
    sizes = [p.shape[0].value if p.shape.ndims else None for p in shards]
    if any(s is None for s in sizes):
        raise ValueError("embedding_lookup with several shards needs their first dimensions known")
    n = len(shards)
    if strategy == "div":
        return ids  # div shards are contiguous ranges: a row of the concatenation is the id itself
    from tinyflow.ops.core.indexing_ops import gather
    offsets = convert_to_tensor(np.cumsum([0] + sizes[:-1]).astype(ids.dtype.np))
    k = M.scalar_like(n, ids)
    return M.add(gather(offsets, M.floormod(ids, k)), M.floordiv(ids, k))


def _clip_rows(rows, ids, max_norm, name):
    axes = list(range(ids.shape.ndims, rows.shape.ndims)) if rows.shape.ndims is not None else -1
    norm = M.sqrt(M.reduce_sum(M.square(rows), axes, keepdims=True))
    scale = M.minimum(M.ones_like_scalar(rows), M.realdiv(M.scalar_like(max_norm, rows), norm))
    return M.multiply(rows, scale, name=name)


# ---- top-k -----------------------------------------------------------------------------------------
def _in_top_k_shape(shapes, attrs, values):
    p, t, k = shapes
    if p.ndims is not None and p.ndims != 2:
        raise ShapeError("Shape must be rank 2 but is rank %d" % p.ndims)
    if t.ndims is not None and t.ndims != 1:
        raise ShapeError("Shape must be rank 1 but is rank %d" % t.ndims)
    if k.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % k.ndims)
    batch = TensorShape([p[0] if p.ndims else None])
    if not batch.is_compatible_with(t if t.ndims is not None else TensorShape([None])):
        raise ShapeError("Dimensions must be equal, but are %s and %s" % (p[0], t[0]))
    return [batch.merge_with(t) if t.ndims is not None else batch]


def _in_top_k_lower(a, pred, targets, k):
    n = pred.shape[1]
    valid = (targets >= 0) & (targets < n)
    target_pred = jnp.take_along_axis(pred, jnp.clip(targets, 0, n - 1)[:, None].astype(jnp.int32), axis=1)
    higher = jnp.sum(pred > target_pred, axis=1)
    return valid & jnp.all(jnp.isfinite(pred), axis=1) & (higher < k)


def _in_top_k_dtype(dtypes, attrs):
    if dtypes[1] not in (dt.int32, dt.int64):
        raise TypeError("Value passed to parameter 'targets' has DataType %s not in list of allowed values: "
                        "int32, int64" % dtypes[1].name)
    return [dt.bool_]


register_op("InTopKV2", shape=_in_top_k_shape, dtype=_in_top_k_dtype, grad=None, lower=_in_top_k_lower)


def in_top_k(predictions, targets, k, name=None):
    """Whether targets[i] is among the k largest predictions[i] (ties count in its favour; non-finite
    predictions give False)."""
    with _scope(name, "in_top_k") as scope:
        predictions = convert_to_tensor(predictions, name="predictions")
        targets = convert_to_tensor(targets, name="targets")
        k = convert_to_tensor(k, dtype=targets.dtype, name="k")
        return make_op("InTopKV2", [predictions, targets, k], name=scope)


# top_k lives in the core (sort and argsort are built from it); tf.nn names it too
top_k = sequence_ops.top_k
TopKV2 = sequence_ops.TopKV2
