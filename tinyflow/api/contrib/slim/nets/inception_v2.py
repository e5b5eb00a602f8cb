"""slim.nets.inception_v2 (TF 1.15): Inception with batch normalization (Ioffe & Szegedy 2015), TF's
scopes (InceptionV2/Conv2d_1a_7x7/depthwise_weights, ..., InceptionV2/Logits/Conv2d_1c_1x1) and
end_points; depth_multiplier/min_depth scale every layer's depth."""
from tinyflow.api.contrib.slim import initializers, layers
from tinyflow.api.contrib.slim.arg_scope import arg_scope
from tinyflow.api.contrib.slim.nets._inception import (avg_pool, batch_norm_params, conv, depth_function, max_pool,
                                                       reduced_kernel_size_for_small_input, run, sepconv, trunc_normal)
from tinyflow.graph.core import GraphKeys
from tinyflow.ops import nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops

_reduced_kernel_size_for_small_input = reduced_kernel_size_for_small_input


def _mixed(b0, b1, b2, b3, pool=avg_pool):
    """Branches 1x1 | 1x1 -> 3x3 | 1x1 -> 3x3 -> 3x3 | 3x3 pool -> 1x1 of the given depths."""
    return [[conv(b0, [1, 1], "Conv2d_0a_1x1")],
            [conv(b1[0], [1, 1], "Conv2d_0a_1x1", weights_initializer=trunc_normal(0.09)),
             conv(b1[1], [3, 3], "Conv2d_0b_3x3")],
            [conv(b2[0], [1, 1], "Conv2d_0a_1x1", weights_initializer=trunc_normal(0.09)),
             conv(b2[1], [3, 3], "Conv2d_0b_3x3"), conv(b2[1], [3, 3], "Conv2d_0c_3x3")],
            [pool([3, 3], ("AvgPool" if pool is avg_pool else "MaxPool") + "_0a_3x3"),
             conv(b3, [1, 1], "Conv2d_0b_1x1", weights_initializer=trunc_normal(0.1))]]


def _reduction(b0, b1):
    """Grid reduction: 1x1 -> 3x3/2 | 1x1 -> 3x3 -> 3x3/2 | 3x3/2 max pool."""
    return [[conv(b0[0], [1, 1], "Conv2d_0a_1x1", weights_initializer=trunc_normal(0.09)),
             conv(b0[1], [3, 3], "Conv2d_1a_3x3", stride=2)],
            [conv(b1[0], [1, 1], "Conv2d_0a_1x1", weights_initializer=trunc_normal(0.09)),
             conv(b1[1], [3, 3], "Conv2d_0b_3x3"), conv(b1[1], [3, 3], "Conv2d_1a_3x3", stride=2)],
            [max_pool([3, 3], "MaxPool_1a_3x3", stride=2)]]


def _base(depthwise_multiplier):
    return [
        ("Conv2d_1a_7x7", sepconv(64, [7, 7], "Conv2d_1a_7x7", depth_multiplier=depthwise_multiplier, stride=2,
                                  weights_initializer=trunc_normal(1.0))),
        ("MaxPool_2a_3x3", max_pool([3, 3], "MaxPool_2a_3x3", stride=2)),
        ("Conv2d_2b_1x1", conv(64, [1, 1], "Conv2d_2b_1x1", weights_initializer=trunc_normal(0.1))),
        ("Conv2d_2c_3x3", conv(192, [3, 3], "Conv2d_2c_3x3")),
        ("MaxPool_3a_3x3", max_pool([3, 3], "MaxPool_3a_3x3", stride=2)),
        ("Mixed_3b", _mixed(64, (64, 64), (64, 96), 32)),
        ("Mixed_3c", _mixed(64, (64, 96), (64, 96), 64)),
        ("Mixed_4a", _reduction((128, 160), (64, 96))),
        ("Mixed_4b", _mixed(224, (64, 96), (96, 128), 128)),
        ("Mixed_4c", _mixed(192, (96, 128), (96, 128), 128)),
        ("Mixed_4d", _mixed(160, (128, 160), (128, 160), 96)),
        ("Mixed_4e", _mixed(96, (128, 192), (160, 192), 96)),
        ("Mixed_5a", _reduction((128, 192), (192, 256))),
        ("Mixed_5b", _mixed(352, (192, 320), (160, 224), 128)),
        ("Mixed_5c", _mixed(352, (192, 320), (192, 224), 128, pool=max_pool)),
    ]


def inception_v2_base(inputs, final_endpoint="Mixed_5c", min_depth=16, depth_multiplier=1.0, scope=None):
    """The Inception v2 network up to `final_endpoint`; returns (net, end_points)."""
    end_points = {}
    depth = depth_function(depth_multiplier, min_depth)
    with vs.variable_scope(scope, "InceptionV2", [inputs]):
        with arg_scope([layers.conv2d, layers.max_pool2d, layers.avg_pool2d, layers.separable_conv2d],
                       stride=1, padding="SAME"):
            net, done = run(inputs, _base(min(int(depth(64) / 3), 8)), final_endpoint, end_points, depth)
            if done:
                return net, end_points
    raise ValueError("Unknown final endpoint %s" % final_endpoint)


def inception_v2(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.8, min_depth=16,
                 depth_multiplier=1.0, prediction_fn=layers.softmax, spatial_squeeze=True, reuse=None,
                 scope="InceptionV2"):
    """Inception v2 with its classifier (average pool, dropout, 1x1 conv logits); returns
    (logits, end_points)."""
    if depth_multiplier <= 0:
        raise ValueError("depth_multiplier is not greater than zero.")
    with vs.variable_scope(scope, "InceptionV2", [inputs, num_classes], reuse=reuse) as scope:
        with arg_scope([layers.batch_norm, layers.dropout], is_training=is_training):
            net, end_points = inception_v2_base(inputs, scope=scope, min_depth=min_depth,
                                                depth_multiplier=depth_multiplier)
            with vs.variable_scope("Logits"):
                kernel_size = reduced_kernel_size_for_small_input(net, [7, 7])
                net = layers.avg_pool2d(net, kernel_size, padding="VALID",
                                        scope="AvgPool_1a_{}x{}".format(*kernel_size))
                net = layers.dropout(net, keep_prob=dropout_keep_prob, scope="Dropout_1b")
                logits = layers.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None,
                                       scope="Conv2d_1c_1x1")
                if spatial_squeeze:
                    logits = array_ops.squeeze(logits, [1, 2], name="SpatialSqueeze")
            end_points["Logits"] = logits
            end_points["Predictions"] = prediction_fn(logits, scope="Predictions")
    return logits, end_points


inception_v2.default_image_size = 224


def inception_v2_arg_scope(weight_decay=0.00004, batch_norm_var_collection="moving_vars"):
    """L2-regularized weights; ReLU conv2d with variance-scaling weights and batch norm."""
    with arg_scope([layers.conv2d, layers.fully_connected],
                   weights_regularizer=initializers.l2_regularizer(weight_decay)):
        with arg_scope([layers.conv2d], weights_initializer=initializers.variance_scaling_initializer(),
                       activation_fn=nn_ops.relu, normalizer_fn=layers.batch_norm,
                       normalizer_params=batch_norm_params(0.9997, 0.001, GraphKeys.UPDATE_OPS,
                                                           batch_norm_var_collection)) as sc:
            return sc
