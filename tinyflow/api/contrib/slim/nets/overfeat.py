"""slim.nets.overfeat (TF 1.15): OverFeat with its fully connected layers as convolutions, TF's scopes
(overfeat/conv1/weights, ..., overfeat/fc8) and end_points. Classification wants 231x231 inputs."""
from tinyflow.api.contrib.slim import initializers, layers
from tinyflow.api.contrib.slim.arg_scope import arg_scope
from tinyflow.api.contrib.slim.nets._head import conv_head
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops import variable_scope as vs


def trunc_normal(stddev):
    return init_ops.truncated_normal_initializer(0.0, stddev)


def overfeat_arg_scope(weight_decay=0.0005):
    """ReLU conv2d/fully_connected, L2-regularized weights, zero biases; SAME conv2d, VALID max pool."""
    with arg_scope([layers.conv2d, layers.fully_connected], activation_fn=nn_ops.relu,
                   weights_regularizer=initializers.l2_regularizer(weight_decay),
                   biases_initializer=init_ops.zeros_initializer()):
        with arg_scope([layers.conv2d], padding="SAME"):
            with arg_scope([layers.max_pool2d], padding="VALID") as arg_sc:
                return arg_sc


def overfeat(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5, spatial_squeeze=True,
             scope="overfeat"):
    """The OverFeat network (Sermanet et al. 2014); returns (logits, end_points)."""
    with vs.variable_scope(scope, "overfeat", [inputs]) as sc:
        end_points_collection = sc.name + "_end_points"
        with arg_scope([layers.conv2d, layers.fully_connected, layers.max_pool2d],
                       outputs_collections=end_points_collection):
            net = layers.conv2d(inputs, 64, [11, 11], 4, padding="VALID", scope="conv1")
            net = layers.max_pool2d(net, [2, 2], scope="pool1")
            net = layers.conv2d(net, 256, [5, 5], padding="VALID", scope="conv2")
            net = layers.max_pool2d(net, [2, 2], scope="pool2")
            net = layers.conv2d(net, 512, [3, 3], scope="conv3")
            net = layers.conv2d(net, 1024, [3, 3], scope="conv4")
            net = layers.conv2d(net, 1024, [3, 3], scope="conv5")
            net = layers.max_pool2d(net, [2, 2], scope="pool5")
            with arg_scope([layers.conv2d], weights_initializer=trunc_normal(0.005),
                           biases_initializer=init_ops.constant_initializer(0.1)):
                return conv_head(net, sc, end_points_collection, (3072, [6, 6]), 4096, num_classes, is_training,
                                 dropout_keep_prob, spatial_squeeze,
                                 {"biases_initializer": init_ops.zeros_initializer()})
