"""Xception, InceptionResNetV2, NASNetMobile and NASNetLarge as keras_applications 1.0.8 builds them under
TF 1.15: the same layer names (the unnamed ones numbered in the same order), shapes and parameter counts.
Xception and NASNet need tf.keras.layers.SeparableConv2D."""
from tinyflow.api.keras import backend, layers
from tinyflow.api.keras.applications import common
from tinyflow.api.keras.applications.models import _start
from tinyflow.api.keras.models import Model


def _weights_file(weights, prefix, include_top, notop="_notop"):
    """Where the weights are (checked first: a missing ImageNet file fails before the model is built)."""
    return common.weights_file(weights, prefix + ("" if include_top else notop) + ".h5")


# ---- Xception ------------------------------------------------------------------------------------
def _sepconv_bn(x, filters, name, axis, relu=True):
    """[relu] -> 3x3 separable convolution -> batch norm, named name_act / name / name_bn."""
    if relu:
        x = layers.Activation("relu", name=name + "_act")(x)
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=axis, name=name + "_bn")(x)


def _xception_down(x, block, filters, axis):
    """Two separable convolutions and a stride-2 max pool, plus a strided 1x1 convolution shortcut."""
    residual = layers.Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    residual = layers.BatchNormalization(axis=axis)(residual)
    prefix = "block%d_sepconv" % block
    x = _sepconv_bn(x, filters[0], prefix + "1", axis, relu=block != 2)   # block 2 follows a relu already
    x = _sepconv_bn(x, filters[1], prefix + "2", axis)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block%d_pool" % block)(x)
    return layers.add([x, residual])


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
             **kwargs):
    """Xception (Chollet 2016): depthwise separable convolutions with residual connections; default input
    299x299, at least 71x71."""
    img_input, _ = _start(include_top, weights, input_tensor, input_shape, classes, 299, 71)
    weights = _weights_file(weights, "xception_weights_tf_dim_ordering_tf_kernels", include_top)
    axis = -1 if backend.image_data_format() == "channels_last" else 1
    x = img_input
    for i, (filters, strides) in enumerate(((32, (2, 2)), (64, (1, 1))), start=1):
        x = layers.Conv2D(filters, (3, 3), strides=strides, use_bias=False, name="block1_conv%d" % i)(x)
        x = layers.BatchNormalization(axis=axis, name="block1_conv%d_bn" % i)(x)
        x = layers.Activation("relu", name="block1_conv%d_act" % i)(x)
    for block, filters in ((2, (128, 128)), (3, (256, 256)), (4, (728, 728))):   # entry flow
        x = _xception_down(x, block, filters, axis)
    for block in range(5, 13):   # middle flow
        residual = x
        for i in range(1, 4):
            x = _sepconv_bn(x, 728, "block%d_sepconv%d" % (block, i), axis)
        x = layers.add([x, residual])
    x = _xception_down(x, 13, (728, 1024), axis)   # exit flow
    for i, filters in enumerate((1536, 2048), start=1):
        x = _sepconv_bn(x, filters, "block14_sepconv%d" % i, axis, relu=False)
        x = layers.Activation("relu", name="block14_sepconv%d_act" % i)(x)
    x = common.classifier_top(x, include_top, pooling, classes)
    return common.load_weights(Model(img_input, x, name="xception"), weights)


# ---- InceptionResNetV2 ---------------------------------------------------------------------------
def _irv2_conv(x, filters, kernel_size, axis, strides=1, padding="same", activation="relu", use_bias=False,
               name=None):
    """Convolution -> batch norm (without scale, when there is no bias) -> activation; name, name_bn, name_ac."""
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(axis=axis, scale=False, name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


def _branches(x, specs, axis):
    """Each spec is a chain of (filters, kernel, [strides, padding]) convolutions from x; 'max'/'avg' pool."""
    outs = []
    for chain in specs:
        y = x
        for spec in chain:
            if spec == "max":
                y = layers.MaxPooling2D(3, strides=2, padding="valid")(y)
            elif spec == "avg":
                y = layers.AveragePooling2D(3, strides=1, padding="same")(y)
            else:
                y = _irv2_conv(y, spec[0], spec[1], axis, *spec[2:])
        outs.append(y)
    return outs


_IRV2_BLOCKS = {
    "block35": [[(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]],
    "block17": [[(192, 1)], [(128, 1), (160, (1, 7)), (192, (7, 1))]],
    "block8": [[(192, 1)], [(192, 1), (224, (1, 3)), (256, (3, 1))]],
}


def _inception_resnet_block(x, scale, block_type, block_idx, axis, activation="relu"):
    """x + scale * (1x1 convolution of the concatenated branches), then the activation."""
    name = "%s_%d" % (block_type, block_idx)
    mixed = layers.Concatenate(axis=axis, name=name + "_mixed")(_branches(x, _IRV2_BLOCKS[block_type], axis))
    up = _irv2_conv(mixed, backend.int_shape(x)[axis], 1, axis, activation=None, use_bias=True, name=name + "_conv")
    # a Lambda as in Keras (its config records the function the way TF 1.15's does)
    x = layers.Lambda(lambda inputs, scale: inputs[0] + inputs[1] * scale, output_shape=backend.int_shape(x)[1:],
                      arguments={"scale": scale}, name=name)([x, up])
    if activation is not None:
        x = layers.Activation(activation, name=name + "_ac")(x)
    return x


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                      classes=1000, **kwargs):
    """Inception-ResNet v2 (Szegedy et al. 2016); default input 299x299, at least 75x75."""
    img_input, _ = _start(include_top, weights, input_tensor, input_shape, classes, 299, 75)
    weights = _weights_file(weights, "inception_resnet_v2_weights_tf_dim_ordering_tf_kernels", include_top)
    axis = 3 if backend.image_data_format() == "channels_last" else 1
    x = _branches(img_input, [[(32, 3, 2, "valid"), (32, 3, 1, "valid"), (64, 3), "max", (80, 1, 1, "valid"),
                               (192, 3, 1, "valid"), "max"]], axis)[0]   # stem
    x = layers.Concatenate(axis=axis, name="mixed_5b")(_branches(
        x, [[(96, 1)], [(48, 1), (64, 5)], [(64, 1), (96, 3), (96, 3)], ["avg", (64, 1)]], axis))   # 35 x 35 x 320
    for i in range(1, 11):
        x = _inception_resnet_block(x, 0.17, "block35", i, axis)
    x = layers.Concatenate(axis=axis, name="mixed_6a")(_branches(
        x, [[(384, 3, 2, "valid")], [(256, 1), (256, 3), (384, 3, 2, "valid")], ["max"]], axis))   # 17 x 17 x 1088
    for i in range(1, 21):
        x = _inception_resnet_block(x, 0.1, "block17", i, axis)
    x = layers.Concatenate(axis=axis, name="mixed_7a")(_branches(
        x, [[(256, 1), (384, 3, 2, "valid")], [(256, 1), (288, 3, 2, "valid")],
            [(256, 1), (288, 3), (320, 3, 2, "valid")], ["max"]], axis))   # 8 x 8 x 2080
    for i in range(1, 10):
        x = _inception_resnet_block(x, 0.2, "block8", i, axis)
    x = _inception_resnet_block(x, 1., "block8", 10, axis, activation=None)
    x = _irv2_conv(x, 1536, 1, axis, name="conv_7b")
    x = common.classifier_top(x, include_top, pooling, classes)
    return common.load_weights(Model(img_input, x, name="inception_resnet_v2"), weights)


# ---- NASNet-A ------------------------------------------------------------------------------------
def _nas_bn(x, name):
    return layers.BatchNormalization(axis=-1, momentum=0.9997, epsilon=1e-3, name=name)(x)


def _nas_conv(x, filters, name):
    return layers.Conv2D(filters, (1, 1), padding="same", use_bias=False, name=name, kernel_initializer="he_normal")(x)


def _sep_block(x, filters, kernel_size=(3, 3), strides=(1, 1), block_id=None):
    """Two [relu -> separable convolution -> batch norm]; a stride-2 one is zero-padded as TF's 'same'.
    (keras_applications passes kernel_initializer='he_normal', which SeparableConv2D does not use.)"""
    x = layers.Activation("relu")(x)
    padding = "same"
    if strides == (2, 2):
        x = layers.ZeroPadding2D(padding=common.correct_pad(x, kernel_size),
                                 name="separable_conv_1_pad_%s" % block_id)(x)
        padding = "valid"
    x = layers.SeparableConv2D(filters, kernel_size, strides=strides, name="separable_conv_1_%s" % block_id,
                               padding=padding, use_bias=False)(x)
    x = layers.Activation("relu")(_nas_bn(x, "separable_conv_1_bn_%s" % block_id))
    x = layers.SeparableConv2D(filters, kernel_size, name="separable_conv_2_%s" % block_id, padding="same",
                               use_bias=False)(x)
    return _nas_bn(x, "separable_conv_2_bn_%s" % block_id)


def _half(x, name):
    return layers.AveragePooling2D((1, 1), strides=(2, 2), padding="valid", name=name)(x)


def _adjust_block(p, ip, filters, block_id):
    """The previous cell's output p brought to ip's spatial size (a factorized reduction) or to filters."""
    if p is None:
        return ip
    p_shape, ip_shape = backend.int_shape(p), backend.int_shape(ip)
    if p_shape[-2] != ip_shape[-2]:
        p = layers.Activation("relu", name="adjust_relu_1_%s" % block_id)(p)
        p1 = _half(p, "adjust_avg_pool_1_%s" % block_id)
        p1 = _nas_conv(p1, filters // 2, "adjust_conv_1_%s" % block_id)
        p2 = layers.ZeroPadding2D(padding=((0, 1), (0, 1)))(p)   # shifted by one row and column
        p2 = layers.Cropping2D(cropping=((1, 0), (1, 0)))(p2)
        p2 = _nas_conv(_half(p2, "adjust_avg_pool_2_%s" % block_id), filters // 2, "adjust_conv_2_%s" % block_id)
        return _nas_bn(layers.concatenate([p1, p2], axis=-1), "adjust_bn_%s" % block_id)
    if p_shape[-1] != filters:
        p = _nas_conv(layers.Activation("relu")(p), filters, "adjust_conv_projection_%s" % block_id)
        return _nas_bn(p, "adjust_bn_%s" % block_id)
    return p


def _cell_input(ip, p, filters, kind, block_id):
    p = _adjust_block(p, ip, filters, block_id)
    h = _nas_conv(layers.Activation("relu")(ip), filters, "%s_conv_1_%s" % (kind, block_id))
    return p, _nas_bn(h, "%s_bn_1_%s" % (kind, block_id))


def _avg3(x, name, strides=(1, 1), padding="same"):
    return layers.AveragePooling2D((3, 3), strides=strides, padding=padding, name=name)(x)


def _normal_a_cell(ip, p, filters, block_id):
    """NASNet-A's normal cell (Fig. 4 of Zoph et al. 2017): five added pairs, concatenated with p."""
    p, h = _cell_input(ip, p, filters, "normal", block_id)
    n = "normal_%s_" + block_id
    x1 = layers.add([_sep_block(h, filters, (5, 5), block_id=n % "left1"),
                     _sep_block(p, filters, block_id=n % "right1")], name=n % "add_1")
    x2 = layers.add([_sep_block(p, filters, (5, 5), block_id=n % "left2"),
                     _sep_block(p, filters, (3, 3), block_id=n % "right2")], name=n % "add_2")
    x3 = layers.add([_avg3(h, n % "left3"), p], name=n % "add_3")
    x4 = layers.add([_avg3(p, n % "left4"), _avg3(p, n % "right4")], name=n % "add_4")
    x5 = layers.add([_sep_block(h, filters, block_id=n % "left5"), h], name=n % "add_5")
    return layers.concatenate([p, x1, x2, x3, x4, x5], axis=-1, name=n % "concat"), ip


def _reduction_a_cell(ip, p, filters, block_id):
    """NASNet-A's reduction cell: stride-2 separable convolutions and pools, four sums concatenated."""
    p, h = _cell_input(ip, p, filters, "reduction", block_id)
    n = "reduction_%s_" + block_id
    h3 = layers.ZeroPadding2D(padding=common.correct_pad(h, 3), name=n % "pad_1")(h)
    x1 = layers.add([_sep_block(h, filters, (5, 5), (2, 2), n % "left1"),
                     _sep_block(p, filters, (7, 7), (2, 2), n % "right1")], name=n % "add_1")
    x2 = layers.add([layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid", name=n % "left2")(h3),
                     _sep_block(p, filters, (7, 7), (2, 2), n % "right2")], name=n % "add_2")
    x3 = layers.add([_avg3(h3, n % "left3", (2, 2), "valid"), _sep_block(p, filters, (5, 5), (2, 2), n % "right3")],
                    name=n % "add3")
    x4 = layers.add([x2, _avg3(x1, n % "left4")])
    x5 = layers.add([_sep_block(x1, filters, (3, 3), block_id=n % "left4"),
                     layers.MaxPooling2D((3, 3), strides=(2, 2), padding="valid", name=n % "right5")(h3)],
                    name=n % "add4")
    return layers.concatenate([x2, x3, x4, x5], axis=-1, name=n % "concat"), ip


def NASNet(input_shape=None, penultimate_filters=4032, num_blocks=6, stem_block_filters=96, skip_reduction=True,
           filter_multiplier=2, include_top=True, weights=None, input_tensor=None, pooling=None, classes=1000,
           default_size=None, **kwargs):
    """keras_applications' NASNet-A of N blocks @ P penultimate filters (not in tf.keras.applications, as in
    TF 1.15: NASNetMobile and NASNetLarge are it with their numbers)."""
    common.check_weights(weights, include_top, classes)
    if isinstance(input_shape, tuple) and None in input_shape and weights == "imagenet":
        raise ValueError("When specifying the input shape of a NASNet and loading `ImageNet` weights, the "
                         "input_shape argument must be static (no None entries). Got: `input_shape=" +
                         str(input_shape) + "`.")
    default_size = default_size or 331
    # keras_applications asks for a static shape even without the top (require_flatten=True)
    shape = common.obtain_input_shape(input_shape, default_size=default_size, min_size=32,
                                      data_format=backend.image_data_format(), require_flatten=True, weights=weights)
    if penultimate_filters % (24 * (filter_multiplier ** 2)) != 0:
        raise ValueError("For NASNet-A models, the `penultimate_filters` must be a multiple of 24 * "
                         "(`filter_multiplier` ** 2). Current value: %d" % penultimate_filters)
    if weights == "imagenet" and default_size not in (224, 331):
        raise ValueError("ImageNet weights can only be loaded with NASNetLarge or NASNetMobile")
    weights = _weights_file(weights, "nasnet_mobile" if default_size == 224 else "nasnet_large", include_top, "_no_top")
    img_input, _ = common.model_input(input_tensor, shape)
    filters = penultimate_filters // 24
    x = layers.Conv2D(stem_block_filters, (3, 3), strides=(2, 2), padding="valid", use_bias=False, name="stem_conv1",
                      kernel_initializer="he_normal")(img_input)
    x = _nas_bn(x, "stem_bn1")
    x, p = _reduction_a_cell(x, None, filters // filter_multiplier ** 2, "stem_1")
    x, p = _reduction_a_cell(x, p, filters // filter_multiplier, "stem_2")
    for stage in range(3):
        if stage:
            x, p0 = _reduction_a_cell(x, p, filters, "reduce_%d" % (stage * num_blocks))
            p = p if skip_reduction else p0
        for i in range(num_blocks):
            x, p = _normal_a_cell(x, p, filters, "%d" % (stage * num_blocks + (stage > 0) + i))
        filters *= filter_multiplier
    x = layers.Activation("relu")(x)
    x = common.classifier_top(x, include_top, pooling, classes, avg_name=None)
    return common.load_weights(Model(img_input, x, name="NASNet"), weights)


def NASNetMobile(input_shape=None, include_top=True, weights="imagenet", input_tensor=None, pooling=None, classes=1000,
                 **kwargs):
    """NASNet-A Mobile (4 @ 1056, Zoph et al. 2017); input 224x224 by default, at least 32x32."""
    return NASNet(input_shape, 1056, 4, 32, False, 2, include_top, weights, input_tensor, pooling, classes, 224)


def NASNetLarge(input_shape=None, include_top=True, weights="imagenet", input_tensor=None, pooling=None, classes=1000,
                **kwargs):
    """NASNet-A Large (6 @ 4032); input 331x331 by default, at least 32x32."""
    return NASNet(input_shape, 4032, 6, 96, True, 2, include_top, weights, input_tensor, pooling, classes, 331)
