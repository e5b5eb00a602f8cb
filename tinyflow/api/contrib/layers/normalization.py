"""tf.contrib.layers.batch_norm with TF 1.15's signature, variable names (Scope/beta, gamma,
moving_mean, moving_variance), and update rules; layer_norm (BERT's normalization).

TF takes one of two paths: the fused kernel (rank 2 or 4, the default) normalizes with the batch's
biased variance but updates moving_variance with the Bessel-corrected one (n / (n - 1)), and raises
epsilon to cuDNN's 1.001e-5; the plain path (rank 3, or fused=False) uses the biased variance for
both. Updates go to `updates_collections` (UPDATE_OPS), or run with the output when it is None.
"""
from tinyflow.graph import dtypes as dt
from tinyflow.graph.core import GraphKeys, add_to_collections, control_dependencies
from tinyflow.api.layers import _static_bool
from tinyflow.ops import init_ops, nn_ops, state_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.base import convert_to_tensor
from tinyflow.ops.core.indexing_ops import where


def _variable(name, shape, dtype, initializer, regularizer, trainable, collections):
    var = vs.get_variable(name, shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                          trainable=trainable)
    add_to_collections([GraphKeys.MODEL_VARIABLES] + list(collections or []), var)
    return var


def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None, updates_collections=GraphKeys.UPDATE_OPS,
               is_training=True, reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC", zero_debias_moving_mean=False, scope=None,
               renorm=False, renorm_clipping=None, renorm_decay=0.99, adjustment=None):
    """Batch normalization over every axis but the channels' (last for NHWC, 1 for NCHW)."""
    if batch_weights is not None or renorm or adjustment is not None or zero_debias_moving_mean:
        raise NotImplementedError("tinyflow's batch_norm has no batch_weights, renorm, adjustment or "
                                  "zero_debias_moving_mean")
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    x = convert_to_tensor(inputs)
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("Inputs %s has undefined rank." % x.name)
    channel = 1 if data_format == "NCHW" and rank > 2 else rank - 1
    params_shape = x.shape[channel:channel + 1]
    if not params_shape.is_fully_defined():
        raise ValueError("Inputs %s has undefined `C` dimension %s." % (x.name, params_shape))
    fused = (fused is None or fused) and rank in (2, 4)
    initializers, regularizers = param_initializers or {}, param_regularizers or {}
    collections = variables_collections if isinstance(variables_collections, dict) else \
        {k: variables_collections for k in ("beta", "gamma", "moving_mean", "moving_variance")}
    dtype = dt.float32 if fused else x.dtype.base_dtype
    with vs.variable_scope(scope, "BatchNorm", [x], reuse=reuse):
        params = {}
        order = (("beta", center, init_ops.zeros_initializer()), ("gamma", scale, init_ops.ones_initializer()))
        if rank != 2 and updates_collections == GraphKeys.UPDATE_OPS:
            order = order[::-1]  # TF builds these with its BatchNormalization layer: gamma first
        for name, on, default in order:
            if on:
                params[name] = _variable(name, params_shape, dtype, initializers.get(name, default),
                                         regularizers.get(name), trainable, collections.get(name))
        moving_mean = _variable("moving_mean", params_shape, dtype,
                                initializers.get("moving_mean", init_ops.zeros_initializer()), None, False,
                                collections.get("moving_mean"))
        moving_variance = _variable("moving_variance", params_shape, dtype,
                                    initializers.get("moving_variance", init_ops.ones_initializer()), None, False,
                                    collections.get("moving_variance"))
        axes = [a for a in range(rank) if a != channel]
        view = [1] * rank
        view[channel] = params_shape[0].value
        training = _static_bool(is_training)
        eps = max(epsilon, 1.001e-5) if fused else epsilon
        offset = params.get("beta")
        gamma = params.get("gamma")

        def normalize(mean, variance):
            return nn_ops.batch_normalization(
                x, array_ops.reshape(mean, view), array_ops.reshape(variance, view),
                None if offset is None else array_ops.reshape(offset, view),
                None if gamma is None else array_ops.reshape(gamma, view), eps)

        if training is False:
            outputs = normalize(moving_mean, moving_variance)
        else:
            mean, variance = nn_ops.moments(x, axes)
            outputs = normalize(mean, variance)
            update_variance = variance
            if fused:  # the fused kernel hands back the unbiased variance for the moving average
                n = math_ops.cast(math_ops.realdiv(array_ops.size(x), params_shape[0].value), variance.dtype)
                update_variance = math_ops.multiply(variance, math_ops.realdiv(n, math_ops.maximum(
                    math_ops.subtract(n, 1.0), 1.0)))
            if training is None:  # a bool tensor: pick per run; "updating" with the moving values is a no-op
                pred = convert_to_tensor(is_training, dtype=dt.bool_)
                outputs = where(pred, outputs, normalize(moving_mean, moving_variance))
                mean = where(pred, mean, moving_mean)
                update_variance = where(pred, update_variance, moving_variance)
            one_minus_decay = 1.0 - decay
            updates = [state_ops.assign_sub(moving, math_ops.multiply(math_ops.subtract(moving, value),
                                                                      one_minus_decay))
                       for moving, value in ((moving_mean, mean), (moving_variance, update_variance))]
            if updates_collections is None:
                with control_dependencies(updates):
                    outputs = array_ops.identity(outputs)
            else:
                add_to_collections(updates_collections, updates[0])
                add_to_collections(updates_collections, updates[1])
        outputs.set_shape(x.shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        if outputs_collections:
            add_to_collections(outputs_collections, outputs)
        return outputs


def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None, variables_collections=None,
               outputs_collections=None, trainable=True, begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """(x - mean) / sqrt(variance + 1e-12) * gamma + beta, the moments over dimensions
    begin_norm_axis.., gamma and beta over dimensions begin_params_axis.."""
    with vs.variable_scope(scope, "LayerNorm", reuse=reuse):
        inputs = convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is None:
            raise ValueError("Inputs %s has undefined rank." % inputs.name)
        begin_norm_axis = begin_norm_axis + rank if begin_norm_axis < 0 else begin_norm_axis
        if begin_params_axis >= rank or begin_norm_axis >= rank:
            raise ValueError("begin_params_axis (%d) and begin_norm_axis (%d) must be < rank(inputs) (%d)"
                             % (begin_params_axis, begin_norm_axis, rank))
        params_shape = inputs.shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError("Inputs %s: shape(inputs)[%s:] is not fully defined: %s"
                             % (inputs.name, begin_params_axis, inputs.shape))
        beta = gamma = None
        if center:
            beta = vs.get_variable("beta", params_shape.as_list(), dtype=inputs.dtype,
                                   initializer=init_ops.zeros_initializer(), trainable=trainable)
        if scale:
            gamma = vs.get_variable("gamma", params_shape.as_list(), dtype=inputs.dtype,
                                    initializer=init_ops.ones_initializer(), trainable=trainable)
        mean, variance = nn_ops.moments(inputs, list(range(begin_norm_axis, rank)), keep_dims=True)
        out = nn_ops.batch_normalization(inputs, mean, variance, offset=beta, scale=gamma, variance_epsilon=1e-12)
        return activation_fn(out) if activation_fn is not None else out
