"""VGG16, VGG19, ResNet50/101/152 (v1 and v2), InceptionV3, DenseNet121/169/201 as keras_applications 1.0.8 builds
them under TF 1.15 (tf.keras.applications.ResNet50 is keras_applications.resnet's, the "conv2_block1_1_conv"
naming): the same layer names, order, shapes and parameter counts."""
from tinyflow.api.keras import backend, layers
from tinyflow.api.keras.applications import common
from tinyflow.api.keras.models import Model


def _start(include_top, weights, input_tensor, input_shape, classes, default_size, min_size):
    common.check_weights(weights, include_top, classes)
    shape = common.obtain_input_shape(input_shape, default_size=default_size, min_size=min_size,
                                      data_format=backend.image_data_format(), require_flatten=include_top,
                                      weights=weights)
    img_input, _ = common.model_input(input_tensor, shape)
    return img_input, 3 if backend.image_data_format() == "channels_last" else 1


def _vgg(convs, name, include_top, weights, input_tensor, input_shape, pooling, classes, fname):
    img_input, _ = _start(include_top, weights, input_tensor, input_shape, classes, 224, 32)
    x = img_input
    for block, (filters, n) in enumerate(zip((64, 128, 256, 512, 512), convs), start=1):
        for i in range(1, n + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name="block%d_conv%d" % (block, i))(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name="block%d_pool" % block)(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = layers.Dense(classes, activation="softmax", name="predictions")(x)
    x = common.pool_top(x, include_top, pooling)
    model = Model(img_input, x, name=name)
    return common.load_weights(model, weights, fname + ("" if include_top else "_notop") + ".h5")


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
          **kwargs):
    """VGG16 (Simonyan & Zisserman 2014): 13 3x3 convolutions in 5 blocks, then 3 dense layers."""
    return _vgg((2, 2, 3, 3, 3), "vgg16", include_top, weights, input_tensor, input_shape, pooling, classes,
                "vgg16_weights_tf_dim_ordering_tf_kernels")


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
          **kwargs):
    """VGG19: 16 3x3 convolutions in 5 blocks, then 3 dense layers."""
    return _vgg((2, 2, 4, 4, 4), "vgg19", include_top, weights, input_tensor, input_shape, pooling, classes,
                "vgg19_weights_tf_dim_ordering_tf_kernels")


# ---- ResNet (keras_applications.resnet_common, v1) ------------------------------------------------
def _block1(x, filters, bn_axis, stride=1, conv_shortcut=True, name=None):
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.Conv2D(filters, 3, padding="SAME", name=name + "_2_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_3_bn")(x)
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def _resnet(depths, name, include_top, weights, input_tensor, input_shape, pooling, classes):
    img_input, bn_axis = _start(include_top, weights, input_tensor, input_shape, classes, 224, 32)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for stage, (filters, blocks) in enumerate(zip((64, 128, 256, 512), depths), start=2):
        prefix = "conv%d" % stage
        x = _block1(x, filters, bn_axis, stride=1 if stage == 2 else 2, name=prefix + "_block1")
        for i in range(2, blocks + 1):
            x = _block1(x, filters, bn_axis, conv_shortcut=False, name=prefix + "_block" + str(i))
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation="softmax", name="probs")(x)
    x = common.pool_top(x, include_top, pooling, "avg_pool", "max_pool")
    model = Model(img_input, x, name=name)
    return common.load_weights(model, weights, name + "_weights_tf_dim_ordering_tf_kernels" +
                               ("" if include_top else "_notop") + ".h5")


def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
             **kwargs):
    """ResNet-50 v1 (He et al. 2015), keras_applications.resnet's layout."""
    return _resnet((3, 4, 6, 3), "resnet50", include_top, weights, input_tensor, input_shape, pooling, classes)


def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
              **kwargs):
    return _resnet((3, 4, 23, 3), "resnet101", include_top, weights, input_tensor, input_shape, pooling, classes)


def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
              **kwargs):
    return _resnet((3, 8, 36, 3), "resnet152", include_top, weights, input_tensor, input_shape, pooling, classes)


# ---- DenseNet ------------------------------------------------------------------------------------
# ---- ResNetV2 (keras_applications.resnet_common: pre-activation blocks, stack2) ------------------------
def _block2(x, filters, bn_axis, stride=1, conv_shortcut=False, name=None):
    preact = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_preact_bn")(x)
    preact = layers.Activation("relu", name=name + "_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, 3, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def _resnet_v2(depths, name, include_top, weights, input_tensor, input_shape, pooling, classes):
    img_input, bn_axis = _start(include_top, weights, input_tensor, input_shape, classes, 224, 32)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    for stage, (filters, blocks) in enumerate(zip((64, 128, 256, 512), depths), start=2):
        prefix = "conv%d" % stage
        x = _block2(x, filters, bn_axis, conv_shortcut=True, name=prefix + "_block1")
        for i in range(2, blocks):
            x = _block2(x, filters, bn_axis, name=prefix + "_block" + str(i))
        x = _block2(x, filters, bn_axis, stride=1 if stage == 5 else 2, name=prefix + "_block" + str(blocks))
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="post_bn")(x)
    x = layers.Activation("relu", name="post_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation="softmax", name="probs")(x)
    x = common.pool_top(x, include_top, pooling, "avg_pool", "max_pool")
    model = Model(img_input, x, name=name)
    return common.load_weights(model, weights, name + "_weights_tf_dim_ordering_tf_kernels" +
                               ("" if include_top else "_notop") + ".h5")


def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000,
               **kwargs):
    """ResNet-50 v2 (He et al. 2016, identity mappings: pre-activation blocks)."""
    return _resnet_v2((3, 4, 6, 3), "resnet50v2", include_top, weights, input_tensor, input_shape, pooling, classes)


def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, **kwargs):
    return _resnet_v2((3, 4, 23, 3), "resnet101v2", include_top, weights, input_tensor, input_shape, pooling,
                      classes)


def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, **kwargs):
    return _resnet_v2((3, 8, 36, 3), "resnet152v2", include_top, weights, input_tensor, input_shape, pooling,
                      classes)


def _dense_conv_block(x, growth_rate, bn_axis, name):
    x1 = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_0_bn")(x)
    x1 = layers.Activation("relu", name=name + "_0_relu")(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=name + "_1_conv")(x1)
    x1 = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_1_bn")(x1)
    x1 = layers.Activation("relu", name=name + "_1_relu")(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False, name=name + "_2_conv")(x1)
    return layers.Concatenate(axis=bn_axis, name=name + "_concat")([x, x1])


def _transition_block(x, reduction, bn_axis, name):
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name=name + "_bn")(x)
    x = layers.Activation("relu", name=name + "_relu")(x)
    x = layers.Conv2D(int(backend.int_shape(x)[bn_axis] * reduction), 1, use_bias=False, name=name + "_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def _densenet(blocks, name, include_top, weights, input_tensor, input_shape, pooling, classes):
    img_input, bn_axis = _start(include_top, weights, input_tensor, input_shape, classes, 224, 32)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="conv1/bn")(x)
    x = layers.Activation("relu", name="conv1/relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for i, n in enumerate(blocks):
        for j in range(n):
            x = _dense_conv_block(x, 32, bn_axis, name="conv%d_block%d" % (i + 2, j + 1))
        if i < 3:
            x = _transition_block(x, 0.5, bn_axis, name="pool%d" % (i + 2))
    x = layers.BatchNormalization(axis=bn_axis, epsilon=1.001e-5, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation="softmax", name="fc1000")(x)
    x = common.pool_top(x, include_top, pooling, "avg_pool", "max_pool")
    model = Model(img_input, x, name=name)
    return common.load_weights(model, weights, name + "_weights_tf_dim_ordering_tf_kernels" +
                               ("" if include_top else "_notop") + ".h5")


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, **kwargs):
    """DenseNet-121 (Huang et al. 2016): dense blocks of 6, 12, 24, 16 layers, growth rate 32."""
    return _densenet([6, 12, 24, 16], "densenet121", include_top, weights, input_tensor, input_shape, pooling,
                     classes)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, **kwargs):
    return _densenet([6, 12, 32, 32], "densenet169", include_top, weights, input_tensor, input_shape, pooling,
                     classes)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, **kwargs):
    return _densenet([6, 12, 48, 32], "densenet201", include_top, weights, input_tensor, input_shape, pooling,
                     classes)


# ---- InceptionV3 ---------------------------------------------------------------------------------
def _conv2d_bn(x, filters, num_row, num_col, bn_axis, padding="same", strides=(1, 1), name=None):
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding, use_bias=False,
                      name=None if name is None else name + "_conv")(x)
    x = layers.BatchNormalization(axis=bn_axis, scale=False, name=None if name is None else name + "_bn")(x)
    return layers.Activation("relu", name=name)(x)


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, **kwargs):
    """Inception v3 (Szegedy et al. 2015), default input 299x299."""
    img_input, ax = _start(include_top, weights, input_tensor, input_shape, classes, 299, 75)

    def cbn(x, f, r, c, **kw):
        return _conv2d_bn(x, f, r, c, ax, **kw)

    def avg_branch(x, f):
        return cbn(layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x), f, 1, 1)

    x = cbn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = cbn(x, 32, 3, 3, padding="valid")
    x = cbn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = cbn(x, 80, 1, 1, padding="valid")
    x = cbn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_f in enumerate((32, 64, 64)):   # mixed 0, 1, 2: 35 x 35 x 256 / 288
        b1 = cbn(x, 64, 1, 1)
        b5 = cbn(cbn(x, 48, 1, 1), 64, 5, 5)
        b3 = cbn(cbn(cbn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
        x = layers.concatenate([b1, b5, b3, avg_branch(x, pool_f)], axis=ax, name="mixed%d" % i)
    b3 = cbn(x, 384, 3, 3, strides=(2, 2), padding="valid")   # mixed 3: 17 x 17 x 768
    b3d = cbn(cbn(cbn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, strides=(2, 2), padding="valid")
    x = layers.concatenate([b3, b3d, layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], axis=ax, name="mixed3")
    for i, f in enumerate((128, 160, 160, 192)):   # mixed 4..7
        b1 = cbn(x, 192, 1, 1)
        b7 = cbn(cbn(cbn(x, f, 1, 1), f, 1, 7), 192, 7, 1)
        b7d = cbn(cbn(cbn(cbn(cbn(x, f, 1, 1), f, 7, 1), f, 1, 7), f, 7, 1), 192, 1, 7)
        x = layers.concatenate([b1, b7, b7d, avg_branch(x, 192)], axis=ax, name="mixed%d" % (4 + i))
    b3 = cbn(cbn(x, 192, 1, 1), 320, 3, 3, strides=(2, 2), padding="valid")   # mixed 8: 8 x 8 x 1280
    b7 = cbn(cbn(cbn(cbn(x, 192, 1, 1), 192, 1, 7), 192, 7, 1), 192, 3, 3, strides=(2, 2), padding="valid")
    x = layers.concatenate([b3, b7, layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], axis=ax, name="mixed8")
    for i in range(2):   # mixed 9, 10: 8 x 8 x 2048
        b1 = cbn(x, 320, 1, 1)
        b3 = cbn(x, 384, 1, 1)
        b3 = layers.concatenate([cbn(b3, 384, 1, 3), cbn(b3, 384, 3, 1)], axis=ax, name="mixed9_" + str(i))
        b3d = cbn(cbn(x, 448, 1, 1), 384, 3, 3)
        b3d = layers.concatenate([cbn(b3d, 384, 1, 3), cbn(b3d, 384, 3, 1)], axis=ax)
        x = layers.concatenate([b1, b3, b3d, avg_branch(x, 192)], axis=ax, name="mixed" + str(9 + i))
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation="softmax", name="predictions")(x)
    x = common.pool_top(x, include_top, pooling)
    model = Model(img_input, x, name="inception_v3")
    return common.load_weights(model, weights, "inception_v3_weights_tf_dim_ordering_tf_kernels" +
                               ("" if include_top else "_notop") + ".h5")
