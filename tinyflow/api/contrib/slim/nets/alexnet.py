"""slim.nets.alexnet (TF 1.15): AlexNet v2 ("One weird trick", no LRN) with its fully connected layers
as convolutions, TF's scopes (alexnet_v2/conv1/weights, ..., alexnet_v2/fc8) and end_points.
Classification wants 224x224 inputs."""
from tinyflow.api.contrib.slim import initializers, layers
from tinyflow.api.contrib.slim.arg_scope import arg_scope
from tinyflow.api.contrib.slim.nets._head import conv_head
from tinyflow.ops import init_ops, nn_ops
from tinyflow.ops import variable_scope as vs


def trunc_normal(stddev):
    return init_ops.truncated_normal_initializer(0.0, stddev)


def alexnet_v2_arg_scope(weight_decay=0.0005):
    """ReLU conv2d/fully_connected, L2-regularized weights, biases 0.1; SAME conv2d, VALID max pool."""
    with arg_scope([layers.conv2d, layers.fully_connected], activation_fn=nn_ops.relu,
                   biases_initializer=init_ops.constant_initializer(0.1),
                   weights_regularizer=initializers.l2_regularizer(weight_decay)):
        with arg_scope([layers.conv2d], padding="SAME"):
            with arg_scope([layers.max_pool2d], padding="VALID") as arg_sc:
                return arg_sc


def alexnet_v2(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5, spatial_squeeze=True,
               scope="alexnet_v2"):
    """AlexNet version 2; returns (logits, end_points)."""
    with vs.variable_scope(scope, "alexnet_v2", [inputs]) as sc:
        end_points_collection = sc.original_name_scope + "_end_points"
        with arg_scope([layers.conv2d, layers.fully_connected, layers.max_pool2d],
                       outputs_collections=[end_points_collection]):
            net = layers.conv2d(inputs, 64, [11, 11], 4, padding="VALID", scope="conv1")
            net = layers.max_pool2d(net, [3, 3], 2, scope="pool1")
            net = layers.conv2d(net, 192, [5, 5], scope="conv2")
            net = layers.max_pool2d(net, [3, 3], 2, scope="pool2")
            net = layers.conv2d(net, 384, [3, 3], scope="conv3")
            net = layers.conv2d(net, 384, [3, 3], scope="conv4")
            net = layers.conv2d(net, 256, [3, 3], scope="conv5")
            net = layers.max_pool2d(net, [3, 3], 2, scope="pool5")
            with arg_scope([layers.conv2d], weights_initializer=trunc_normal(0.005),
                           biases_initializer=init_ops.constant_initializer(0.1)):
                return conv_head(net, sc, end_points_collection, (4096, [5, 5]), 4096, num_classes, is_training,
                                 dropout_keep_prob, spatial_squeeze,
                                 {"biases_initializer": init_ops.zeros_initializer()})


alexnet_v2.default_image_size = 224
