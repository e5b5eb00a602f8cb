"""The convolutional classifier head of alexnet_v2, overfeat and the VGGs: fc6 (a VALID conv over the
last feature map), dropout6, fc7 (1x1), dropout7, fc8 (1x1, no activation), then the end_points dict
and, with spatial_squeeze, the logits squeezed to [batch, num_classes] (end_points[<scope>/fc8])."""
from tinyflow.api.contrib.slim import layers
from tinyflow.api.contrib.slim.utils import convert_collection_to_dict
from tinyflow.ops.core import array_ops


def conv_head(net, sc, end_points_collection, fc6, fc7_depth, num_classes, is_training, dropout_keep_prob,
              spatial_squeeze, fc8_kwargs):
    """fc6 = (depth, kernel); returns (logits, end_points)."""
    net = layers.conv2d(net, fc6[0], fc6[1], padding="VALID", scope="fc6")
    net = layers.dropout(net, dropout_keep_prob, is_training=is_training, scope="dropout6")
    net = layers.conv2d(net, fc7_depth, [1, 1], scope="fc7")
    net = layers.dropout(net, dropout_keep_prob, is_training=is_training, scope="dropout7")
    net = layers.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None, scope="fc8",
                        **fc8_kwargs)
    end_points = convert_collection_to_dict(end_points_collection)
    if spatial_squeeze:
        net = array_ops.squeeze(net, [1, 2], name="fc8/squeezed")
        end_points[sc.name + "/fc8"] = net
    return net, end_points
