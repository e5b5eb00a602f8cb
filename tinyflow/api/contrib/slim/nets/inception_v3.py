"""slim.nets.inception_v3 (TF 1.15): Inception v3 (Szegedy et al. 2015) with TF's scopes
(InceptionV3/Mixed_6b/Branch_1/Conv2d_0b_1x7/weights, ..., InceptionV3/AuxLogits, InceptionV3/Logits) and
end_points; depth_multiplier/min_depth scale every layer's depth. Classification wants 299x299 inputs."""
from tinyflow.api.contrib.slim import initializers, layers
from tinyflow.api.contrib.slim.arg_scope import arg_scope
from tinyflow.api.contrib.slim.nets._inception import (avg_pool, batch_norm_params, conv, depth_function, max_pool,
                                                       reduced_kernel_size_for_small_input, run, split, trunc_normal)
from tinyflow.graph.core import GraphKeys
from tinyflow.ops import nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops

_reduced_kernel_size_for_small_input = reduced_kernel_size_for_small_input

_STEM = [  # VALID unless said
    ("Conv2d_1a_3x3", conv(32, [3, 3], "Conv2d_1a_3x3", stride=2)),
    ("Conv2d_2a_3x3", conv(32, [3, 3], "Conv2d_2a_3x3")),
    ("Conv2d_2b_3x3", conv(64, [3, 3], "Conv2d_2b_3x3", padding="SAME")),
    ("MaxPool_3a_3x3", max_pool([3, 3], "MaxPool_3a_3x3", stride=2)),
    ("Conv2d_3b_1x1", conv(80, [1, 1], "Conv2d_3b_1x1")),
    ("Conv2d_4a_3x3", conv(192, [3, 3], "Conv2d_4a_3x3")),
    ("MaxPool_5a_3x3", max_pool([3, 3], "MaxPool_5a_3x3", stride=2)),
]


def _mixed_35(pool_depth, b1_scopes=("Conv2d_0a_1x1", "Conv2d_0b_5x5")):
    """35x35 blocks: 1x1 | 1x1 -> 5x5 | 1x1 -> 3x3 -> 3x3 | avg pool -> 1x1."""
    return [[conv(64, [1, 1], "Conv2d_0a_1x1")],
            [conv(48, [1, 1], b1_scopes[0]), conv(64, [5, 5], b1_scopes[1])],
            [conv(64, [1, 1], "Conv2d_0a_1x1"), conv(96, [3, 3], "Conv2d_0b_3x3"), conv(96, [3, 3], "Conv2d_0c_3x3")],
            [avg_pool([3, 3], "AvgPool_0a_3x3"), conv(pool_depth, [1, 1], "Conv2d_0b_1x1")]]


def _mixed_17(c):
    """17x17 blocks with factorized 7x7 convolutions of `c` inner channels."""
    return [[conv(192, [1, 1], "Conv2d_0a_1x1")],
            [conv(c, [1, 1], "Conv2d_0a_1x1"), conv(c, [1, 7], "Conv2d_0b_1x7"), conv(192, [7, 1], "Conv2d_0c_7x1")],
            [conv(c, [1, 1], "Conv2d_0a_1x1"), conv(c, [7, 1], "Conv2d_0b_7x1"), conv(c, [1, 7], "Conv2d_0c_1x7"),
             conv(c, [7, 1], "Conv2d_0d_7x1"), conv(192, [1, 7], "Conv2d_0e_1x7")],
            [avg_pool([3, 3], "AvgPool_0a_3x3"), conv(192, [1, 1], "Conv2d_0b_1x1")]]


def _mixed_8(b1_second_scope):
    """8x8 blocks with expanded (1x3 and 3x1 side by side) filter banks."""
    return [[conv(320, [1, 1], "Conv2d_0a_1x1")],
            [conv(384, [1, 1], "Conv2d_0a_1x1"),
             split(conv(384, [1, 3], "Conv2d_0b_1x3"), conv(384, [3, 1], b1_second_scope))],
            [conv(448, [1, 1], "Conv2d_0a_1x1"), conv(384, [3, 3], "Conv2d_0b_3x3"),
             split(conv(384, [1, 3], "Conv2d_0c_1x3"), conv(384, [3, 1], "Conv2d_0d_3x1"))],
            [avg_pool([3, 3], "AvgPool_0a_3x3"), conv(192, [1, 1], "Conv2d_0b_1x1")]]


_VALID2 = {"stride": 2, "padding": "VALID"}
_MIXED = [  # SAME unless said
    ("Mixed_5b", _mixed_35(32)),
    ("Mixed_5c", _mixed_35(64, ("Conv2d_0b_1x1", "Conv_1_0c_5x5"))),  # TF's scope names, as they are
    ("Mixed_5d", _mixed_35(64)),
    ("Mixed_6a", [[conv(384, [3, 3], "Conv2d_1a_1x1", **_VALID2)],
                  [conv(64, [1, 1], "Conv2d_0a_1x1"), conv(96, [3, 3], "Conv2d_0b_3x3"),
                   conv(96, [3, 3], "Conv2d_1a_1x1", **_VALID2)],
                  [max_pool([3, 3], "MaxPool_1a_3x3", **_VALID2)]]),
    ("Mixed_6b", _mixed_17(128)),
    ("Mixed_6c", _mixed_17(160)),
    ("Mixed_6d", _mixed_17(160)),
    ("Mixed_6e", _mixed_17(192)),
    ("Mixed_7a", [[conv(192, [1, 1], "Conv2d_0a_1x1"), conv(320, [3, 3], "Conv2d_1a_3x3", **_VALID2)],
                  [conv(192, [1, 1], "Conv2d_0a_1x1"), conv(192, [1, 7], "Conv2d_0b_1x7"),
                   conv(192, [7, 1], "Conv2d_0c_7x1"), conv(192, [3, 3], "Conv2d_1a_3x3", **_VALID2)],
                  [max_pool([3, 3], "MaxPool_1a_3x3", **_VALID2)]]),
    ("Mixed_7b", _mixed_8("Conv2d_0b_3x1")),
    ("Mixed_7c", _mixed_8("Conv2d_0c_3x1")),
]


def inception_v3_base(inputs, final_endpoint="Mixed_7c", min_depth=16, depth_multiplier=1.0, scope=None):
    """The Inception v3 network up to `final_endpoint`; returns (net, end_points)."""
    end_points = {}
    depth = depth_function(depth_multiplier, min_depth)
    with vs.variable_scope(scope, "InceptionV3", [inputs]):
        net = inputs
        for padding, base in (("VALID", _STEM), ("SAME", _MIXED)):
            with arg_scope([layers.conv2d, layers.max_pool2d, layers.avg_pool2d], stride=1, padding=padding):
                net, done = run(net, base, final_endpoint, end_points, depth)
                if done:
                    return net, end_points
    raise ValueError("Unknown final endpoint %s" % final_endpoint)


def inception_v3(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.8, min_depth=16,
                 depth_multiplier=1.0, prediction_fn=layers.softmax, spatial_squeeze=True, reuse=None,
                 scope="InceptionV3"):
    """Inception v3 with its auxiliary classifier (on Mixed_6e) and classifier; returns
    (logits, end_points) (end_points with AuxLogits, PreLogits, Logits, Predictions)."""
    if depth_multiplier <= 0:
        raise ValueError("depth_multiplier is not greater than zero.")
    depth = depth_function(depth_multiplier, min_depth)
    with vs.variable_scope(scope, "InceptionV3", [inputs, num_classes], reuse=reuse) as scope:
        with arg_scope([layers.batch_norm, layers.dropout], is_training=is_training):
            net, end_points = inception_v3_base(inputs, scope=scope, min_depth=min_depth,
                                                depth_multiplier=depth_multiplier)
            with arg_scope([layers.conv2d, layers.max_pool2d, layers.avg_pool2d], stride=1, padding="SAME"):
                with vs.variable_scope("AuxLogits"):
                    aux = layers.avg_pool2d(end_points["Mixed_6e"], [5, 5], stride=3, padding="VALID",
                                            scope="AvgPool_1a_5x5")
                    aux = layers.conv2d(aux, depth(128), [1, 1], scope="Conv2d_1b_1x1")
                    kernel_size = reduced_kernel_size_for_small_input(aux, [5, 5])
                    aux = layers.conv2d(aux, depth(768), kernel_size, weights_initializer=trunc_normal(0.01),
                                        padding="VALID", scope="Conv2d_2a_{}x{}".format(*kernel_size))
                    aux = layers.conv2d(aux, num_classes, [1, 1], activation_fn=None, normalizer_fn=None,
                                        weights_initializer=trunc_normal(0.001), scope="Conv2d_2b_1x1")
                    if spatial_squeeze:
                        aux = array_ops.squeeze(aux, [1, 2], name="SpatialSqueeze")
                    end_points["AuxLogits"] = aux
            with vs.variable_scope("Logits"):
                kernel_size = reduced_kernel_size_for_small_input(net, [8, 8])
                net = layers.avg_pool2d(net, kernel_size, padding="VALID",
                                        scope="AvgPool_1a_{}x{}".format(*kernel_size))
                net = layers.dropout(net, keep_prob=dropout_keep_prob, scope="Dropout_1b")
                end_points["PreLogits"] = net
                logits = layers.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None,
                                       scope="Conv2d_1c_1x1")
                if spatial_squeeze:
                    logits = array_ops.squeeze(logits, [1, 2], name="SpatialSqueeze")
            end_points["Logits"] = logits
            end_points["Predictions"] = prediction_fn(logits, scope="Predictions")
    return logits, end_points


inception_v3.default_image_size = 299


def inception_v3_arg_scope(weight_decay=0.00004, batch_norm_var_collection="moving_vars", batch_norm_decay=0.9997,
                           batch_norm_epsilon=0.001, updates_collections=GraphKeys.UPDATE_OPS,
                           use_fused_batchnorm=True):
    """L2-regularized weights; ReLU conv2d with variance-scaling weights and batch norm."""
    params = batch_norm_params(batch_norm_decay, batch_norm_epsilon, updates_collections, batch_norm_var_collection,
                               fused=use_fused_batchnorm)
    with arg_scope([layers.conv2d, layers.fully_connected],
                   weights_regularizer=initializers.l2_regularizer(weight_decay)):
        with arg_scope([layers.conv2d], weights_initializer=initializers.variance_scaling_initializer(),
                       activation_fn=nn_ops.relu, normalizer_fn=layers.batch_norm, normalizer_params=params) as sc:
            return sc
