"""slim.nets.vgg (TF 1.15): VGG-11 (vgg_a), VGG-16 (vgg_16, vgg_d) and VGG-19 (vgg_19, vgg_e) with their
fully connected layers as convolutions, TF's scopes (vgg_16/conv1/conv1_1/weights, ..., vgg_16/fc8)
and end_points. Classification wants 224x224 inputs."""
from tinyflow.api.contrib.slim import initializers, layers
from tinyflow.api.contrib.slim.arg_scope import arg_scope
from tinyflow.api.contrib.slim.nets._head import conv_head
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops import variable_scope as vs


def vgg_arg_scope(weight_decay=0.0005):
    """ReLU conv2d/fully_connected with L2-regularized weights and zero biases; SAME conv2d."""
    with arg_scope([layers.conv2d, layers.fully_connected], activation_fn=nn_ops.relu,
                   weights_regularizer=initializers.l2_regularizer(weight_decay),
                   biases_initializer=init_ops.zeros_initializer()):
        with arg_scope([layers.conv2d], padding="SAME") as arg_sc:
            return arg_sc


def _vgg(inputs, repeats, num_classes, is_training, dropout_keep_prob, spatial_squeeze, scope, default_scope,
         collected, by_name_scope):
    """Five stages of `repeats[i]` 3x3 convs (64, 128, 256, 512, 512) each followed by a 2x2 max pool."""
    with vs.variable_scope(scope, default_scope, [inputs]) as sc:
        # TF names the collection after the name scope for vgg_a/vgg_16, after the variable scope for vgg_19
        end_points_collection = (sc.original_name_scope if by_name_scope else sc.name) + "_end_points"
        with arg_scope(collected, outputs_collections=end_points_collection):
            net = inputs
            for i, (n, depth) in enumerate(zip(repeats, [64, 128, 256, 512, 512])):
                net = layers.repeat(net, n, layers.conv2d, depth, [3, 3], scope="conv%d" % (i + 1))
                net = layers.max_pool2d(net, [2, 2], scope="pool%d" % (i + 1))
            return conv_head(net, sc, end_points_collection, (4096, [7, 7]), 4096, num_classes, is_training,
                             dropout_keep_prob, spatial_squeeze, {})


def vgg_a(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5, spatial_squeeze=True,
          scope="vgg_a"):
    """Oxford Net VGG 11-Layers version A; returns (logits, end_points)."""
    return _vgg(inputs, [1, 1, 2, 2, 2], num_classes, is_training, dropout_keep_prob, spatial_squeeze, scope,
                "vgg_a", [layers.conv2d, layers.max_pool2d], True)


vgg_a.default_image_size = 224


def vgg_16(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5, spatial_squeeze=True,
           scope="vgg_16"):
    """Oxford Net VGG 16-Layers version D; returns (logits, end_points)."""
    return _vgg(inputs, [2, 2, 3, 3, 3], num_classes, is_training, dropout_keep_prob, spatial_squeeze, scope,
                "vgg_16", [layers.conv2d, layers.fully_connected, layers.max_pool2d], True)


vgg_16.default_image_size = 224


def vgg_19(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5, spatial_squeeze=True,
           scope="vgg_19"):
    """Oxford Net VGG 19-Layers version E; returns (logits, end_points)."""
    return _vgg(inputs, [2, 2, 4, 4, 4], num_classes, is_training, dropout_keep_prob, spatial_squeeze, scope,
                "vgg_19", [layers.conv2d, layers.fully_connected, layers.max_pool2d], False)


vgg_19.default_image_size = 224

vgg_d = vgg_16
vgg_e = vgg_19
