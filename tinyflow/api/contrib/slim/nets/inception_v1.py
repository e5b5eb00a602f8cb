"""slim.nets.inception_v1 (TF 1.15): GoogLeNet (Szegedy et al. 2014) with TF's scopes
(InceptionV1/Mixed_3b/Branch_1/Conv2d_0b_3x3/weights, ..., InceptionV1/Logits/Conv2d_0c_1x1) and
end_points (Conv2d_1a_7x7 ... Mixed_5c, Logits, Predictions). Classification wants 224x224 inputs."""
from tinyflow.api.contrib.slim import initializers, layers
from tinyflow.api.contrib.slim.arg_scope import arg_scope
from tinyflow.api.contrib.slim.nets._inception import batch_norm_params, conv, max_pool, run, trunc_normal
from tinyflow.graph.core import GraphKeys
from tinyflow.ops import nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops


def _mixed(b0, b1, b2, b3, b2_scope="Conv2d_0b_3x3"):
    """Branches 1x1 | 1x1 -> 3x3 | 1x1 -> 3x3 | 3x3 max pool -> 1x1 of the given depths."""
    return [[conv(b0, [1, 1], "Conv2d_0a_1x1")],
            [conv(b1[0], [1, 1], "Conv2d_0a_1x1"), conv(b1[1], [3, 3], "Conv2d_0b_3x3")],
            [conv(b2[0], [1, 1], "Conv2d_0a_1x1"), conv(b2[1], [3, 3], b2_scope)],  # TF's 5b says Conv2d_0a_3x3
            [max_pool([3, 3], "MaxPool_0a_3x3"), conv(b3, [1, 1], "Conv2d_0b_1x1")]]


_BASE = [
    ("Conv2d_1a_7x7", conv(64, [7, 7], "Conv2d_1a_7x7", stride=2)),
    ("MaxPool_2a_3x3", max_pool([3, 3], "MaxPool_2a_3x3", stride=2)),
    ("Conv2d_2b_1x1", conv(64, [1, 1], "Conv2d_2b_1x1")),
    ("Conv2d_2c_3x3", conv(192, [3, 3], "Conv2d_2c_3x3")),
    ("MaxPool_3a_3x3", max_pool([3, 3], "MaxPool_3a_3x3", stride=2)),
    ("Mixed_3b", _mixed(64, (96, 128), (16, 32), 32)),
    ("Mixed_3c", _mixed(128, (128, 192), (32, 96), 64)),
    ("MaxPool_4a_3x3", max_pool([3, 3], "MaxPool_4a_3x3", stride=2)),
    ("Mixed_4b", _mixed(192, (96, 208), (16, 48), 64)),
    ("Mixed_4c", _mixed(160, (112, 224), (24, 64), 64)),
    ("Mixed_4d", _mixed(128, (128, 256), (24, 64), 64)),
    ("Mixed_4e", _mixed(112, (144, 288), (32, 64), 64)),
    ("Mixed_4f", _mixed(256, (160, 320), (32, 128), 128)),
    ("MaxPool_5a_2x2", max_pool([2, 2], "MaxPool_5a_2x2", stride=2)),
    ("Mixed_5b", _mixed(256, (160, 320), (32, 128), 128, b2_scope="Conv2d_0a_3x3")),
    ("Mixed_5c", _mixed(384, (192, 384), (48, 128), 128)),
]


def inception_v1_base(inputs, final_endpoint="Mixed_5c", scope="InceptionV1"):
    """The Inception v1 network up to `final_endpoint`; returns (net, end_points)."""
    end_points = {}
    with vs.variable_scope(scope, "InceptionV1", [inputs]):
        with arg_scope([layers.conv2d, layers.fully_connected], weights_initializer=trunc_normal(0.01)):
            with arg_scope([layers.conv2d, layers.max_pool2d], stride=1, padding="SAME"):
                net, done = run(inputs, _BASE, final_endpoint, end_points)
                if done:
                    return net, end_points
    raise ValueError("Unknown final endpoint %s" % final_endpoint)


def inception_v1(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.8, prediction_fn=layers.softmax,
                 spatial_squeeze=True, reuse=None, scope="InceptionV1"):
    """Inception v1 with its classifier (7x7 average pool, dropout, 1x1 conv logits); returns
    (logits, end_points)."""
    with vs.variable_scope(scope, "InceptionV1", [inputs, num_classes], reuse=reuse) as scope:
        with arg_scope([layers.batch_norm, layers.dropout], is_training=is_training):
            net, end_points = inception_v1_base(inputs, scope=scope)
            with vs.variable_scope("Logits"):
                net = layers.avg_pool2d(net, [7, 7], stride=1, scope="MaxPool_0a_7x7")
                net = layers.dropout(net, dropout_keep_prob, scope="Dropout_0b")
                logits = layers.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None,
                                       scope="Conv2d_0c_1x1")
                if spatial_squeeze:
                    logits = array_ops.squeeze(logits, [1, 2], name="SpatialSqueeze")
                end_points["Logits"] = logits
                end_points["Predictions"] = prediction_fn(logits, scope="Predictions")
    return logits, end_points


inception_v1.default_image_size = 224


def inception_v1_arg_scope(weight_decay=0.00004, use_batch_norm=True, batch_norm_var_collection="moving_vars"):
    """L2-regularized weights; ReLU conv2d with variance-scaling weights and (use_batch_norm) batch norm."""
    if use_batch_norm:
        normalizer_fn = layers.batch_norm
        normalizer_params = batch_norm_params(0.9997, 0.001, GraphKeys.UPDATE_OPS, batch_norm_var_collection)
    else:
        normalizer_fn, normalizer_params = None, {}
    with arg_scope([layers.conv2d, layers.fully_connected],
                   weights_regularizer=initializers.l2_regularizer(weight_decay)):
        with arg_scope([layers.conv2d], weights_initializer=initializers.variance_scaling_initializer(),
                       activation_fn=nn_ops.relu, normalizer_fn=normalizer_fn,
                       normalizer_params=normalizer_params) as sc:
            return sc
