"""MobileNet and MobileNetV2 as keras_applications 1.0.8 builds them under TF 1.15: the same layer names, order,
shapes and parameter counts; weights=None, a local .h5 path, or 'imagenet' from Keras' cache ~/.keras/models."""
import warnings

from tinyflow.api.keras import backend, layers
from tinyflow.api.keras.applications import common
from tinyflow.api.keras.models import Model


def _start(include_top, weights, input_tensor, input_shape, classes, sizes, read_tensor=False):
    """The checked input shape and input tensor, with the default size keras_applications picks (a square input
    of one of `sizes`, else 224), and the rows the weights file is named by. `read_tensor`: without an
    input_shape, the size of a Keras input_tensor counts (MobileNetV2)."""
    common.check_weights(weights, include_top, classes)
    first = backend.image_data_format() == "channels_first"
    if read_tensor and input_shape is None and getattr(input_tensor, "_keras_history", None) is not None:
        shape = backend.int_shape(input_tensor)
        rows, cols = shape[2:4] if first else shape[1:3]
    elif input_shape is not None:
        rows, cols = input_shape[1:3] if first else input_shape[0:2]
    else:
        rows = cols = None
    default_size = rows if rows == cols and rows in sizes else 224
    shape = common.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                      data_format=backend.image_data_format(), require_flatten=include_top,
                                      weights=weights)
    rows, cols = shape[1:3] if first else shape[0:2]
    if weights == "imagenet" and (rows != cols or rows not in sizes):
        rows = 224
        warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in %s. Weights for input shape "
                      "(224, 224) will be loaded as the default." % (list(sizes),))
    img_input, _ = common.model_input(input_tensor, shape)
    return img_input, rows, 1 if first else -1


# ---- MobileNet (v1) ------------------------------------------------------------------------------
def _depthwise_conv_block(x, filters, alpha, depth_multiplier, channel_axis, strides=(1, 1), block_id=1):
    if strides != (1, 1):
        x = layers.ZeroPadding2D(((0, 1), (0, 1)), name="conv_pad_%d" % block_id)(x)
    x = layers.DepthwiseConv2D((3, 3), padding="same" if strides == (1, 1) else "valid",
                               depth_multiplier=depth_multiplier, strides=strides, use_bias=False,
                               name="conv_dw_%d" % block_id)(x)
    x = layers.BatchNormalization(axis=channel_axis, name="conv_dw_%d_bn" % block_id)(x)
    x = layers.ReLU(6., name="conv_dw_%d_relu" % block_id)(x)
    x = layers.Conv2D(int(filters * alpha), (1, 1), padding="same", use_bias=False, strides=(1, 1),
                      name="conv_pw_%d" % block_id)(x)
    x = layers.BatchNormalization(axis=channel_axis, name="conv_pw_%d_bn" % block_id)(x)
    return layers.ReLU(6., name="conv_pw_%d_relu" % block_id)(x)


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True, weights="imagenet",
              input_tensor=None, pooling=None, classes=1000, **kwargs):
    """MobileNet (Howard et al. 2017): depthwise separable convolutions, width `alpha`, default input 224x224."""
    img_input, rows, channel_axis = _start(include_top, weights, input_tensor, input_shape, classes,
                                           (128, 160, 192, 224))
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1")
        if alpha not in [0.25, 0.50, 0.75, 1.0]:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of`0.25`, `0.50`, `0.75` or "
                             "`1.0` only.")
    x = layers.ZeroPadding2D(padding=((0, 1), (0, 1)), name="conv1_pad")(img_input)
    x = layers.Conv2D(int(32 * alpha), (3, 3), padding="valid", use_bias=False, strides=(2, 2), name="conv1")(x)
    x = layers.BatchNormalization(axis=channel_axis, name="conv1_bn")(x)
    x = layers.ReLU(6., name="conv1_relu")(x)
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    for block_id, (filters, stride) in enumerate(blocks, start=1):
        x = _depthwise_conv_block(x, filters, alpha, depth_multiplier, channel_axis, (stride, stride), block_id)
    if include_top:
        shape = (int(1024 * alpha), 1, 1) if channel_axis == 1 else (1, 1, int(1024 * alpha))
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Reshape(shape, name="reshape_1")(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        x = layers.Activation("softmax", name="act_softmax")(x)
    x = common.pool_top(x, include_top, pooling)
    model = Model(img_input, x, name="mobilenet_%0.2f_%s" % (alpha, rows))
    alpha_text = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0"}.get(alpha, "2_5")
    return common.load_weights(model, weights, "mobilenet_%s_%d_tf%s.h5" % (alpha_text, rows or 224,
                                                                           "" if include_top else "_no_top"))


# ---- MobileNetV2 ---------------------------------------------------------------------------------
def _make_divisible(v, divisor, min_value=None):
    """The channel count nearest v that is a multiple of `divisor` (and not 10% below v)."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id, channel_axis):
    in_channels = backend.int_shape(inputs)[channel_axis]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x, prefix = inputs, "block_{}_".format(block_id)

    def bn(t, name):
        return layers.BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name=prefix + name)(t)

    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False, activation=None,
                          name=prefix + "expand")(x)
        x = layers.ReLU(6., name=prefix + "expand_relu")(bn(x, "expand_BN"))
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=common.correct_pad(x, 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid", name=prefix + "depthwise")(x)
    x = layers.ReLU(6., name=prefix + "depthwise_relu")(bn(x, "depthwise_BN"))
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False, activation=None,
                      name=prefix + "project")(x)
    x = bn(x, "project_BN")
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


_V2_BLOCKS = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6), (64, 1, 6),
              (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6),
              (320, 1, 6)]   # (filters, stride, expansion) of blocks 0..16


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet", input_tensor=None, pooling=None,
                classes=1000, **kwargs):
    """MobileNetV2 (Sandler et al. 2018): inverted residual blocks with linear bottlenecks, width `alpha`."""
    img_input, rows, channel_axis = _start(include_top, weights, input_tensor, input_shape, classes,
                                           (96, 128, 160, 192, 224), read_tensor=True)
    if weights == "imagenet" and alpha not in [0.35, 0.50, 0.75, 1.0, 1.3, 1.4]:
        raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.35`, `0.50`, `0.75`, `1.0`, "
                         "`1.3` or `1.4` only.")
    x = layers.ZeroPadding2D(padding=common.correct_pad(img_input, 3), name="Conv1_pad")(img_input)
    x = layers.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="valid",
                      use_bias=False, name="Conv1")(x)
    x = layers.BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = layers.ReLU(6., name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_V2_BLOCKS):
        x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id, channel_axis)
    x = layers.Conv2D(_make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280, kernel_size=1, use_bias=False,
                      name="Conv_1")(x)
    x = layers.BatchNormalization(axis=channel_axis, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = layers.ReLU(6., name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dense(classes, activation="softmax", use_bias=True, name="Logits")(x)
    x = common.pool_top(x, include_top, pooling)
    model = Model(img_input, x, name="mobilenetv2_%0.2f_%s" % (alpha, rows))
    return common.load_weights(model, weights, "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_%s_%s%s.h5"
                               % (alpha, rows, "" if include_top else "_no_top"))
