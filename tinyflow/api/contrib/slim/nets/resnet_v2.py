"""slim.nets.resnet_v2 (TF 1.15): ResNet-50/101/152/200 v2 (pre-activation bottlenecks), with TF's
scopes (resnet_v2_50/block1/unit_1/bottleneck_v2/preact/..., postnorm, logits) and end_points."""
from tinyflow.api.contrib.slim import layers
from tinyflow.api.contrib.slim.arg_scope import add_arg_scope
from tinyflow.api.contrib.slim.utils import collect_named_outputs
from tinyflow.api.contrib.slim.nets import resnet_utils
from tinyflow.api.contrib.slim.utils import last_dimension
from tinyflow.ops import nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import math_ops

resnet_arg_scope = resnet_utils.resnet_arg_scope


@add_arg_scope
def bottleneck(inputs, depth, depth_bottleneck, stride, rate=1, outputs_collections=None, scope=None):
    """shortcut + (1x1 -> 3x3 (stride, rate) -> 1x1 convs of relu(batch_norm(inputs)) `preact`); the
    shortcut is a 1x1 projection of preact when the depth changes, else inputs subsampled."""
    with vs.variable_scope(scope, "bottleneck_v2", [inputs]) as sc:
        depth_in = last_dimension(inputs.get_shape(), min_rank=4)
        preact = layers.batch_norm(inputs, activation_fn=nn_ops.relu, scope="preact")
        if depth == depth_in:
            shortcut = resnet_utils.subsample(inputs, stride, "shortcut")
        else:
            shortcut = layers.conv2d(preact, depth, [1, 1], stride=stride, normalizer_fn=None, activation_fn=None,
                                     scope="shortcut")
        residual = layers.conv2d(preact, depth_bottleneck, [1, 1], stride=1, scope="conv1")
        residual = resnet_utils.conv2d_same(residual, depth_bottleneck, 3, stride, rate=rate, scope="conv2")
        residual = layers.conv2d(residual, depth, [1, 1], stride=1, normalizer_fn=None, activation_fn=None,
                                 scope="conv3")
        output = math_ops.add(shortcut, residual)
        return collect_named_outputs(outputs_collections, sc.name, output)


def resnet_v2(inputs, blocks, num_classes=None, is_training=True, global_pool=True, output_stride=None,
              include_root_block=True, reuse=None, scope=None):
    """A ResNet v2 of the given Blocks; returns (net, end_points) (see resnet_utils.resnet)."""
    return resnet_utils.resnet(inputs, blocks, bottleneck, "resnet_v2", True, num_classes, is_training,
                               global_pool, output_stride, include_root_block, reuse, scope)


resnet_v2.default_image_size = 224


def resnet_v2_block(scope, base_depth, num_units, stride):
    """A Block of `num_units` v2 bottlenecks (depth 4 * base_depth), the last one of stride `stride`."""
    unit = {"depth": base_depth * 4, "depth_bottleneck": base_depth, "stride": 1}
    return resnet_utils.Block(scope, bottleneck, [unit] * (num_units - 1) + [dict(unit, stride=stride)])


def _net(name, units):
    def net(inputs, num_classes=None, is_training=True, global_pool=True, output_stride=None, reuse=None,
            scope=name):
        blocks = [resnet_v2_block("block%d" % (i + 1), base_depth=64 * 2 ** i, num_units=n,
                                  stride=1 if i == 3 else 2) for i, n in enumerate(units)]
        return resnet_v2(inputs, blocks, num_classes, is_training, global_pool, output_stride,
                         include_root_block=True, reuse=reuse, scope=scope)
    net.__name__ = net.__qualname__ = name
    net.__doc__ = "%s: blocks of %s bottleneck units; returns (net, end_points)." % (name, units)
    return net


resnet_v2_50 = _net("resnet_v2_50", [3, 4, 6, 3])
resnet_v2_101 = _net("resnet_v2_101", [3, 4, 23, 3])
resnet_v2_152 = _net("resnet_v2_152", [3, 8, 36, 3])
resnet_v2_200 = _net("resnet_v2_200", [3, 24, 36, 3])
