"""The building blocks of the Inception nets, as data: a layer is a tuple, a Mixed block a list of
branches (each a list of layers run in scope Branch_<i>, their outputs concatenated on channels), and a
base a list of (end_point, layer or block). run() builds them in TF's order, so the variables are
created in TF's order and under TF's names."""
from tinyflow.api.contrib.slim import layers
from tinyflow.ops import init_ops
from tinyflow.ops import variable_scope as vs
from tinyflow.ops.core import array_ops


def trunc_normal(stddev):
    return init_ops.truncated_normal_initializer(0.0, stddev)


def conv(depth, kernel, scope, **kwargs):
    """A conv2d of `depth` (scaled by the net's depth function) outputs."""
    return ("conv", depth, kernel, scope, kwargs)


def sepconv(depth, kernel, scope, **kwargs):
    return ("sepconv", depth, kernel, scope, kwargs)


def max_pool(kernel, scope, **kwargs):
    return ("max", None, kernel, scope, kwargs)


def avg_pool(kernel, scope, **kwargs):
    return ("avg", None, kernel, scope, kwargs)


def split(*layers_):
    """Layers applied to the same input, their outputs concatenated on channels (Inception v3's 7b/7c)."""
    return ("split", None, None, None, {"layers": layers_})


def _layer(net, spec, depth):
    kind, d, kernel, scope, kwargs = spec
    if kind == "conv":
        return layers.conv2d(net, depth(d), kernel, scope=scope, **kwargs)
    if kind == "sepconv":
        return layers.separable_conv2d(net, depth(d), kernel, scope=scope, **kwargs)
    if kind == "max":
        return layers.max_pool2d(net, kernel, scope=scope, **kwargs)
    if kind == "avg":
        return layers.avg_pool2d(net, kernel, scope=scope, **kwargs)
    return array_ops.concat([_layer(net, s, depth) for s in kwargs["layers"]], 3)


def mixed(net, branches, depth):
    outputs = []
    for i, branch in enumerate(branches):
        with vs.variable_scope("Branch_%d" % i):
            out = net
            for spec in branch:
                out = _layer(out, spec, depth)
            outputs.append(out)
    return array_ops.concat(outputs, 3)


def run(net, base, final_endpoint, end_points, depth=lambda d: d):
    """Builds `base` on `net` up to final_endpoint; returns (net, whether final_endpoint was reached)."""
    for end_point, spec in base:
        if isinstance(spec, tuple):
            net = _layer(net, spec, depth)
        else:
            with vs.variable_scope(end_point):
                net = mixed(net, spec, depth)
        end_points[end_point] = net
        if end_point == final_endpoint:
            return net, True
    return net, False


def depth_function(depth_multiplier, min_depth):
    if depth_multiplier <= 0:
        raise ValueError("depth_multiplier is not greater than zero.")
    return lambda d: max(int(d * depth_multiplier), min_depth)


def reduced_kernel_size_for_small_input(input_tensor, kernel_size):
    """kernel_size clipped to the input's static spatial size (unchanged when that is unknown)."""
    shape = input_tensor.get_shape().as_list()
    if shape[1] is None or shape[2] is None:
        return kernel_size
    return [min(shape[1], kernel_size[0]), min(shape[2], kernel_size[1])]


def batch_norm_params(decay, epsilon, updates_collections, var_collection, **extra):
    """The batch-norm arguments of the Inception arg_scopes (moving statistics in `var_collection`)."""
    params = {"decay": decay, "epsilon": epsilon, "updates_collections": updates_collections,
              "variables_collections": {"beta": None, "gamma": None, "moving_mean": [var_collection],
                                        "moving_variance": [var_collection]}}
    params.update(extra)
    return params
