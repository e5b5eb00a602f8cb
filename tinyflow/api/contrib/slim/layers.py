"""slim's layers (tf.contrib.layers as TF 1.15 has them), each decorated by add_arg_scope, with TF's
variable names (Conv/weights, Conv/biases, fully_connected/weights, SeparableConv2d/depthwise_weights,
...), MODEL_VARIABLES, and outputs collected under their scope's name (utils.convert_collection_to_dict)."""
from tinyflow.api.contrib.layers import normalization as _bn
from tinyflow.api.contrib.layers import layers as _more
from tinyflow.api import layers as _core
from tinyflow.api.contrib.slim import initializers as _init
from tinyflow.api.contrib.slim.arg_scope import add_arg_scope
from tinyflow.api.contrib.slim.utils import collect_named_outputs
from tinyflow.graph.core import GraphKeys, add_to_collections, name_scope
from tinyflow.ops import conv_ops, init_ops, nn_ops
from tinyflow.ops.core import array_ops, math_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core.base import convert_to_tensor


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(x) for x in v]


def _model_variable(name, shape, dtype, initializer, regularizer, trainable, collections):
    var = vs.get_variable(name, shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                          trainable=trainable)
    _add_once([GraphKeys.MODEL_VARIABLES] + list(collections or []), var)
    return var


def _add_once(collections, var):
    from tinyflow.graph.core import get_collection
    for c in collections:
        if var not in get_collection(c):
            add_to_collections([c], var)


def _finish(out, x_dtype, num_outputs, normalizer_fn, normalizer_params, biases_initializer, biases_regularizer,
            activation_fn, trainable, variables_collections, data_format=None):
    if normalizer_fn is not None:
        out = normalizer_fn(out, **(normalizer_params or {}))
    elif biases_initializer is not None:
        b = _model_variable("biases", [num_outputs], x_dtype, biases_initializer, biases_regularizer, trainable,
                            variables_collections)
        out = nn_ops.bias_add(out, b, data_format=data_format)
    return activation_fn(out) if activation_fn is not None else out


def _input4(inputs, what):
    x = convert_to_tensor(inputs)
    if x.shape.ndims != 4 or x.shape[-1].value is None:
        raise ValueError("%s needs 4-D NHWC inputs with a known channel dimension, got %s" % (what, x.shape))
    return x


@add_arg_scope
def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1,
                  activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                  weights_initializer=_init.xavier_initializer(), weights_regularizer=None,
                  biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                  variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """activation_fn(normalizer_fn(conv(inputs, weights)) or + biases): variables `Conv/weights`
    [kh, kw, in, out] and `Conv/biases`; `rate` > 1 is an atrous convolution (stride 1)."""
    if data_format not in (None, "NHWC"):
        raise NotImplementedError("tinyflow's slim.conv2d supports data_format NHWC only")
    with vs.variable_scope(scope, "Conv", [inputs], reuse=reuse) as sc:
        x = _input4(inputs, "conv2d")
        kh, kw = _pair(kernel_size)
        sh, sw = _pair(stride)
        rh, rw = _pair(rate)
        if (rh, rw) != (1, 1) and (sh, sw) != (1, 1):
            raise ValueError("Only one of rate or stride can be larger than one")
        w = _model_variable("weights", [kh, kw, x.shape[-1].value, num_outputs], x.dtype, weights_initializer,
                            weights_regularizer, trainable, variables_collections)
        out = conv_ops.conv2d(x, w, [1, sh, sw, 1], padding.upper(), dilations=[1, rh, rw, 1])
        out = _finish(out, x.dtype, num_outputs, normalizer_fn, normalizer_params, biases_initializer,
                      biases_regularizer, activation_fn, trainable, variables_collections)
        return collect_named_outputs(outputs_collections, sc.name, out)


conv2d = convolution2d


@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                    weights_initializer=_init.xavier_initializer(), weights_regularizer=None,
                    biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                    variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """activation_fn(inputs @ weights + biases) over the last dimension; `fully_connected/weights`."""
    if not isinstance(num_outputs, int):
        raise ValueError("num_outputs type should be one of %s, got %s." % ((int,), type(num_outputs)))
    with vs.variable_scope(scope, "fully_connected", [inputs], reuse=reuse) as sc:
        x = convert_to_tensor(inputs)
        depth = x.shape[-1].value if x.shape.ndims else None
        if depth is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        w = _model_variable("weights", [depth, num_outputs], x.dtype, weights_initializer, weights_regularizer,
                            trainable, variables_collections)
        if x.shape.ndims == 2:
            out = math_ops.matmul(x, w)
        else:
            from tinyflow.ops.matrix_ops import tensordot
            out = tensordot(x, w, [[x.shape.ndims - 1], [0]])
        out = _finish(out, x.dtype, num_outputs, normalizer_fn, normalizer_params, biases_initializer,
                      biases_regularizer, activation_fn, trainable, variables_collections)
        return collect_named_outputs(outputs_collections, sc.name, out)


@add_arg_scope
def separable_convolution2d(inputs, num_outputs, kernel_size, depth_multiplier=1, stride=1, padding="SAME",
                            data_format=None, rate=1, activation_fn=nn_ops.relu, normalizer_fn=None,
                            normalizer_params=None, weights_initializer=_init.xavier_initializer(),
                            pointwise_initializer=None, weights_regularizer=None,
                            biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                            variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """A depthwise convolution (`depthwise_weights` [kh, kw, in, depth_multiplier]) then, when
    num_outputs is not None, a 1x1 one (`pointwise_weights`); scope SeparableConv2d."""
    if data_format not in (None, "NHWC"):
        raise NotImplementedError("tinyflow's slim.separable_conv2d supports data_format NHWC only")
    with vs.variable_scope(scope, "SeparableConv2d", [inputs], reuse=reuse) as sc:
        x = _input4(inputs, "separable_conv2d")
        kh, kw = _pair(kernel_size)
        sh, sw = _pair(stride)
        rate = _pair(rate)
        channels = x.shape[-1].value
        dw = _model_variable("depthwise_weights", [kh, kw, channels, depth_multiplier], x.dtype,
                             weights_initializer, weights_regularizer, trainable, variables_collections)
        if num_outputs is not None:
            pw = _model_variable("pointwise_weights", [1, 1, channels * depth_multiplier, num_outputs], x.dtype,
                                 pointwise_initializer or weights_initializer, weights_regularizer, trainable,
                                 variables_collections)
            out = conv_ops.separable_conv2d(x, dw, pw, [1, sh, sw, 1], padding.upper(), rate=rate)
        else:
            num_outputs = channels * depth_multiplier
            out = conv_ops.depthwise_conv2d(x, dw, [1, sh, sw, 1], padding.upper(), rate=rate)
        out = _finish(out, x.dtype, num_outputs, normalizer_fn, normalizer_params, biases_initializer,
                      biases_regularizer, activation_fn, trainable, variables_collections)
        return collect_named_outputs(outputs_collections, sc.name, out)


separable_conv2d = separable_convolution2d


@add_arg_scope
def convolution2d_in_plane(inputs, kernel_size, stride=1, padding="SAME", activation_fn=nn_ops.relu,
                           normalizer_fn=None, normalizer_params=None, weights_initializer=_init.xavier_initializer(),
                           weights_regularizer=None, biases_initializer=init_ops.zeros_initializer(),
                           biases_regularizer=None, reuse=None, variables_collections=None, outputs_collections=None,
                           trainable=True, scope=None):
    """One [kh, kw] filter (`ConvInPlane/weights` [kh, kw, 1, 1]) applied to every channel on its own."""
    with vs.variable_scope(scope, "ConvInPlane", [inputs], reuse=reuse) as sc:
        x = _input4(inputs, "conv2d_in_plane")
        kh, kw = _pair(kernel_size)
        sh, sw = _pair(stride)
        channels = x.shape[-1].value
        w = _model_variable("weights", [kh, kw, 1, 1], x.dtype, weights_initializer, weights_regularizer, trainable,
                            variables_collections)
        depthwise = array_ops.tile(w, [1, 1, channels, 1])
        out = conv_ops.depthwise_conv2d(x, depthwise, [1, sh, sw, 1], padding.upper())
        out = _finish(out, x.dtype, channels, normalizer_fn, normalizer_params, biases_initializer,
                      biases_regularizer, activation_fn, trainable, variables_collections)
        return collect_named_outputs(outputs_collections, sc.name, out)


conv2d_in_plane = convolution2d_in_plane


@add_arg_scope
def convolution2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format="NHWC",
                            activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                            weights_initializer=_init.xavier_initializer(), weights_regularizer=None,
                            biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                            variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """The transposed convolution: `Conv2d_transpose/weights` [kh, kw, out, in]; output size
    in * stride (SAME) or in * stride + max(kernel - stride, 0) (VALID)."""
    if data_format not in (None, "NHWC"):
        raise NotImplementedError("tinyflow's slim.conv2d_transpose supports data_format NHWC only")
    with vs.variable_scope(scope, "Conv2d_transpose", [inputs], reuse=reuse) as sc:
        x = _input4(inputs, "conv2d_transpose")
        kh, kw = _pair(kernel_size)
        sh, sw = _pair(stride)
        w = _model_variable("weights", [kh, kw, num_outputs, x.shape[-1].value], x.dtype, weights_initializer,
                            weights_regularizer, trainable, variables_collections)
        pad = padding.upper()

        def size(n, k, s):
            return n * s if pad == "SAME" else n * s + max(k - s, 0)
        h, wd = x.shape[1].value, x.shape[2].value
        batch = x.shape[0].value
        if batch is None or h is None or wd is None:
            dyn = array_ops.shape(x)
            batch = dyn[0] if batch is None else batch
            h = dyn[1] if h is None else h
            wd = dyn[2] if wd is None else wd
            out_shape = array_ops.stack([batch, size(h, kh, sh), size(wd, kw, sw), num_outputs])
        else:
            out_shape = [batch, size(h, kh, sh), size(wd, kw, sw), num_outputs]
        out = conv_ops.conv2d_transpose(x, w, out_shape, [1, sh, sw, 1], padding=pad)
        out = _finish(out, x.dtype, num_outputs, normalizer_fn, normalizer_params, biases_initializer,
                      biases_regularizer, activation_fn, trainable, variables_collections)
        return collect_named_outputs(outputs_collections, sc.name, out)


conv2d_transpose = convolution2d_transpose


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None, updates_collections=GraphKeys.UPDATE_OPS,
               is_training=True, reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC", zero_debias_moving_mean=False, scope=None,
               renorm=False, renorm_clipping=None, renorm_decay=0.99, adjustment=None):
    """tf.contrib.layers.batch_norm (BatchNorm/beta, gamma, moving_mean, moving_variance)."""
    out = _bn.batch_norm(inputs, decay=decay, center=center, scale=scale, epsilon=epsilon,
                         activation_fn=activation_fn, param_initializers=param_initializers,
                         param_regularizers=param_regularizers, updates_collections=updates_collections,
                         is_training=is_training, reuse=reuse, variables_collections=variables_collections,
                         trainable=trainable, batch_weights=batch_weights, fused=fused, data_format=data_format,
                         zero_debias_moving_mean=zero_debias_moving_mean, scope=scope, renorm=renorm,
                         renorm_clipping=renorm_clipping, renorm_decay=renorm_decay, adjustment=adjustment)
    return collect_named_outputs(outputs_collections, out.op.name.rsplit("/", 1)[0], out)


def _scoped(default_name, scope, inputs, outputs_collections, body):
    with name_scope(scope, default_name, [inputs]) as sc:
        return collect_named_outputs(outputs_collections, sc, body(sc))


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    """Max pooling with a square or [h, w] window (stride 2, VALID by default, as TF)."""
    return _scoped("MaxPool2D", scope, inputs, outputs_collections, lambda sc: _more.max_pool2d(
        inputs, kernel_size, stride, padding, data_format, scope=sc))


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    """Average pooling with a square or [h, w] window (stride 2, VALID by default, as TF)."""
    return _scoped("AvgPool2D", scope, inputs, outputs_collections, lambda sc: _more.avg_pool2d(
        inputs, kernel_size, stride, padding, data_format, scope=sc))


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True, outputs_collections=None, scope=None,
            seed=None):
    """Dropout keeping `keep_prob` of the units when is_training (a bool or a bool tensor)."""
    return _scoped("Dropout", scope, inputs, outputs_collections, lambda sc: _more.dropout(
        inputs, keep_prob, noise_shape, is_training, scope=sc, seed=seed))


@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0, outputs_collections=None, scope=None):
    """float32 one-hot vectors of integer labels."""
    return _scoped("OneHotEncoding", scope, labels, outputs_collections, lambda sc: _more.one_hot_encoding(
        labels, num_classes, on_value, off_value, scope=sc))


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """[batch, d1, d2, ...] -> [batch, d1 * d2 * ...]."""
    return _scoped("Flatten", scope, inputs, outputs_collections, lambda sc: _core.flatten(inputs))


@add_arg_scope
def bias_add(inputs, activation_fn=None, initializer=init_ops.zeros_initializer(), regularizer=None, reuse=None,
             variables_collections=None, outputs_collections=None, trainable=True, data_format="NHWC", scope=None):
    """inputs + `BiasAdd/biases` (over the channels), then activation_fn."""
    with vs.variable_scope(scope, "BiasAdd", [inputs], reuse=reuse) as sc:
        x = convert_to_tensor(inputs)
        channels = x.shape[1 if data_format == "NCHW" else -1].value
        b = _model_variable("biases", [channels], x.dtype, initializer, regularizer, trainable,
                            variables_collections)
        out = nn_ops.bias_add(x, b, data_format=data_format)
        out = activation_fn(out) if activation_fn is not None else out
        return collect_named_outputs(outputs_collections, sc.name, out)


@add_arg_scope
def softmax(logits, scope=None):
    """Softmax over the last dimension, for logits of any rank."""
    with vs.variable_scope(scope, "softmax", [logits]):
        return nn_ops.softmax(convert_to_tensor(logits))


@add_arg_scope
def unit_norm(inputs, dim, epsilon=1e-7, scope=None):
    """inputs / sqrt(sum(inputs ** 2 over dim) + epsilon)."""
    with vs.variable_scope(scope, "UnitNorm", [inputs]):
        x = convert_to_tensor(inputs)
        if x.shape.ndims is None:
            raise ValueError("The input rank must be known.")
        if not 0 <= dim < x.shape.ndims:
            raise ValueError("dim must be positive but smaller than the input rank.")
        norm = math_ops.sqrt(math_ops.add(math_ops.reduce_sum(math_ops.square(x), dim, keepdims=True), epsilon))
        return math_ops.truediv(x, norm)


def _layer_name(layer):
    if hasattr(layer, "__name__"):
        return layer.__name__
    if hasattr(layer, "func") and hasattr(layer.func, "__name__"):
        return layer.func.__name__
    return None


def repeat(inputs, repetitions, layer, *args, **kwargs):
    """Applies `layer` `repetitions` times, in scopes scope/scope_1, scope/scope_2, ..."""
    scope = kwargs.pop("scope", None)
    with vs.variable_scope(scope, "Repeat", [inputs]):
        outputs = convert_to_tensor(inputs)
        if scope is None:
            scope = _layer_name(layer) or "repeat"
        for i in range(repetitions):
            kwargs["scope"] = scope + "_" + str(i + 1)
            outputs = layer(outputs, *args, **kwargs)
        return outputs


def stack(inputs, layer, stack_args, **kwargs):
    """Applies `layer` once per entry of stack_args (its positional arguments), in scopes
    scope/scope_1, scope/scope_2, ..."""
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with vs.variable_scope(scope, "Stack", [inputs]):
        outputs = convert_to_tensor(inputs)
        if scope is None:
            scope = _layer_name(layer) or "stack"
        for i, layer_args in enumerate(stack_args):
            kwargs["scope"] = scope + "_" + str(i + 1)
            if not isinstance(layer_args, (list, tuple)):
                layer_args = [layer_args]
            outputs = layer(outputs, *layer_args, **kwargs)
        return outputs
