"""slim.nets.resnet_utils (TF 1.15): the Block description, conv2d_same, subsample, stack_blocks_dense
(with atrous convolution for an output_stride) and resnet_arg_scope, shared by resnet_v1 and resnet_v2."""
import collections

from tinyflow.api.contrib.slim import initializers, layers
from tinyflow.api.contrib.slim.arg_scope import add_arg_scope, arg_scope
from tinyflow.api.contrib.slim.utils import collect_named_outputs
from tinyflow.api.contrib.slim.utils import convert_collection_to_dict
from tinyflow.graph.core import GraphKeys
from tinyflow.ops import nn_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops, math_ops


class Block(collections.namedtuple("Block", ["scope", "unit_fn", "args"])):
    """A ResNet block: its variable scope name, the unit function (a bottleneck) and a list of
    keyword-argument dicts, one per unit (depth, depth_bottleneck, stride)."""


def subsample(inputs, factor, scope=None):
    """inputs spatially subsampled by `factor` (a 1x1 max pool of that stride), or inputs itself."""
    if factor == 1:
        return inputs
    return layers.max_pool2d(inputs, [1, 1], stride=factor, scope=scope)


def conv2d_same(inputs, num_outputs, kernel_size, stride, rate=1, scope=None):
    """A strided conv2d whose output size does not depend on the input's parity: for stride > 1 the
    input is zero-padded explicitly (as a SAME conv of stride 1 would be) and convolved VALID."""
    if stride == 1:
        return layers.conv2d(inputs, num_outputs, kernel_size, stride=1, rate=rate, padding="SAME", scope=scope)
    effective = kernel_size + (kernel_size - 1) * (rate - 1)
    pad_beg = (effective - 1) // 2
    pad_end = effective - 1 - pad_beg
    inputs = array_ops.pad(inputs, [[0, 0], [pad_beg, pad_end], [pad_beg, pad_end], [0, 0]])
    return layers.conv2d(inputs, num_outputs, kernel_size, stride=stride, rate=rate, padding="VALID", scope=scope)


@add_arg_scope
def stack_blocks_dense(net, blocks, output_stride=None, outputs_collections=None):
    """Applies the units of each Block in turn (scopes <block>/unit_<i>). With an output_stride, the
    units past that stride run with stride 1 and a growing atrous rate instead."""
    current_stride = 1
    rate = 1
    for block in blocks:
        with vs.variable_scope(block.scope, "block", [net]) as sc:
            for i, unit in enumerate(block.args):
                if output_stride is not None and current_stride > output_stride:
                    raise ValueError("The target output_stride cannot be reached.")
                with vs.variable_scope("unit_%d" % (i + 1), values=[net]):
                    if output_stride is not None and current_stride == output_stride:
                        net = block.unit_fn(net, rate=rate, **dict(unit, stride=1))
                        rate *= unit.get("stride", 1)
                    else:
                        net = block.unit_fn(net, rate=1, **unit)
                        current_stride *= unit.get("stride", 1)
            net = collect_named_outputs(outputs_collections, sc.name, net)
    if output_stride is not None and current_stride != output_stride:
        raise ValueError("The target output_stride cannot be reached.")
    return net


def resnet_arg_scope(weight_decay=0.0001, batch_norm_decay=0.997, batch_norm_epsilon=1e-5, batch_norm_scale=True):
    """The arg_scope ResNets are built in: L2-regularized variance-scaling conv2d weights, batch norm
    (updates in UPDATE_OPS) and ReLU after each conv2d, SAME max pooling."""
    batch_norm_params = {"decay": batch_norm_decay, "epsilon": batch_norm_epsilon, "scale": batch_norm_scale,
                         "updates_collections": GraphKeys.UPDATE_OPS}
    with arg_scope([layers.conv2d], weights_regularizer=initializers.l2_regularizer(weight_decay),
                   weights_initializer=initializers.variance_scaling_initializer(), activation_fn=nn_ops.relu,
                   normalizer_fn=layers.batch_norm, normalizer_params=batch_norm_params):
        with arg_scope([layers.batch_norm], **batch_norm_params):
            with arg_scope([layers.max_pool2d], padding="SAME") as arg_sc:
                return arg_sc


def resnet(inputs, blocks, bottleneck, default_scope, preactivation, num_classes=None, is_training=True,
           global_pool=True, output_stride=None, include_root_block=True, reuse=None, scope=None):
    """The ResNet body both versions share: root block (7x7/2 conv1, 3x3/2 pool1), the blocks, for v2
    (`preactivation`) a final batch norm `postnorm`, the global average pool5 and 1x1 `logits`.
    Returns (net, end_points): every conv2d, unit and block output under its scope's name, and
    'predictions' (softmax) when there are logits."""
    with vs.variable_scope(scope, default_scope, [inputs], reuse=reuse) as sc:
        end_points_collection = sc.original_name_scope + "_end_points"
        with arg_scope([layers.conv2d, bottleneck, stack_blocks_dense], outputs_collections=end_points_collection):
            with arg_scope([layers.batch_norm], is_training=is_training):
                net = inputs
                if include_root_block:
                    if output_stride is not None:
                        if output_stride % 4 != 0:
                            raise ValueError("The output_stride needs to be a multiple of 4.")
                        output_stride /= 4
                    if preactivation:  # v2's first conv is followed by the first unit's pre-activation
                        with arg_scope([layers.conv2d], activation_fn=None, normalizer_fn=None):
                            net = conv2d_same(net, 64, 7, stride=2, scope="conv1")
                    else:
                        net = conv2d_same(net, 64, 7, stride=2, scope="conv1")
                    net = layers.max_pool2d(net, [3, 3], stride=2, scope="pool1")
                net = stack_blocks_dense(net, blocks, output_stride)
                if preactivation:
                    net = layers.batch_norm(net, activation_fn=nn_ops.relu, scope="postnorm")
                if global_pool:
                    net = math_ops.reduce_mean(net, [1, 2], name="pool5", keepdims=True)
                if num_classes is not None:
                    net = layers.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None,
                                        scope="logits")
                end_points = convert_collection_to_dict(end_points_collection)
                if num_classes is not None:
                    end_points["predictions"] = layers.softmax(net, scope="predictions")
                return net, end_points
