"""The mapping table: TF NodeDef op type -> how tinyflow builds it. One place for every op type.

A converter is fn(b, node) -> list of output Tensors, where `b` (a _Node in import_graph.py) gives
the node's inputs (b.x(i)), constant input values (b.const(i)), attrs (b.attr(name, default)) and
the name to give the op (b.name). Attrs a converter does not read (T, _output_shapes, _class,
use_cudnn_on_gpu...) are type information tinyflow infers itself.
"""
import numpy as np

CONVERTERS = {}


def converts(*op_types):
    def deco(fn):
        for t in op_types:
            CONVERTERS[t] = fn
        return fn
    return deco


def _tf():
    import tinyflow
    return tinyflow


def _unary(fn_name, module=None):
    def conv(b, node):
        tf = _tf()
        fn = getattr(getattr(tf, module) if module else tf, fn_name)
        return [fn(b.x(0), name=b.name)]
    return conv


for _t, _f, _m in [("Relu", "relu", "nn"), ("Relu6", "relu6", "nn"), ("Elu", "elu", "nn"), ("Selu", "selu", "nn"),
                   ("Softplus", "softplus", "nn"), ("Softsign", "softsign", "nn"), ("Sigmoid", "sigmoid", None),
                   ("Tanh", "tanh", None), ("Exp", "exp", None), ("Log", "log", None), ("Sqrt", "sqrt", None),
                   ("Rsqrt", "rsqrt", None), ("Square", "square", None), ("Neg", "negative", None),
                   ("Abs", "abs", None), ("Reciprocal", "reciprocal", None), ("Floor", "floor", None),
                   ("Ceil", "ceil", None), ("Round", "round", None), ("Sign", "sign", None), ("Log1p", "log1p", None),
                   ("Sin", "sin", None), ("Cos", "cos", None), ("Erf", "erf", None), ("LogicalNot", "logical_not", None),
                   ("StopGradient", "stop_gradient", None), ("ZerosLike", "zeros_like", None),
                   ("OnesLike", "ones_like", None), ("IsNan", "is_nan", None), ("IsFinite", "is_finite", None)]:
    CONVERTERS[_t] = _unary(_f, _m)


def _binary(fn_name):
    def conv(b, node):
        return [getattr(_tf(), fn_name)(b.x(0), b.x(1), name=b.name)]
    return conv


for _t, _f in [("Add", "add"), ("AddV2", "add"), ("Sub", "subtract"), ("Mul", "multiply"), ("RealDiv", "realdiv"),
               ("Div", "div"), ("FloorDiv", "floordiv"), ("FloorMod", "floormod"), ("Maximum", "maximum"),
               ("Minimum", "minimum"), ("Pow", "pow"), ("SquaredDifference", "squared_difference"),
               ("DivNoNan", "div_no_nan"), ("Equal", "equal"), ("NotEqual", "not_equal"), ("Less", "less"),
               ("LessEqual", "less_equal"), ("Greater", "greater"), ("GreaterEqual", "greater_equal"),
               ("LogicalAnd", "logical_and"), ("LogicalOr", "logical_or"), ("BiasAddV1", "add")]:
    CONVERTERS[_t] = _binary(_f)


@converts("Const")
def _const(b, node):
    return [_tf().constant(b.attr("value"), dtype=b.attr("dtype"), name=b.name)]


@converts("Placeholder")
def _placeholder(b, node):
    return [_tf().placeholder(b.attr("dtype"), shape=b.attr("shape", None), name=b.name)]


@converts("PlaceholderWithDefault")
def _placeholder_with_default(b, node):
    return [_tf().placeholder_with_default(b.x(0), shape=b.attr("shape"), name=b.name)]


@converts("Identity", "Snapshot")
def _identity(b, node):
    return [_tf().identity(b.x(0), name=b.name)]


@converts("NoOp")
def _noop(b, node):
    return [_tf().no_op(name=b.name)]


@converts("Conv2D")
def _conv2d(b, node):
    return [_tf().nn.conv2d(b.x(0), b.x(1), strides=b.attr("strides"), padding=b.attr("padding"),
                            data_format=b.attr("data_format", "NHWC"), dilations=b.attr("dilations", [1, 1, 1, 1]),
                            name=b.name)]


@converts("DepthwiseConv2dNative")
def _depthwise(b, node):
    return [_tf().nn.depthwise_conv2d_native(b.x(0), b.x(1), strides=b.attr("strides"), padding=b.attr("padding"),
                                             data_format=b.attr("data_format", "NHWC"),
                                             dilations=b.attr("dilations", [1, 1, 1, 1]), name=b.name)]


@converts("BiasAdd")
def _bias_add(b, node):
    return [_tf().nn.bias_add(b.x(0), b.x(1), data_format=b.attr("data_format", "NHWC"), name=b.name)]


@converts("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def _fused_batch_norm(b, node):
    tf = _tf()
    is_training = b.attr("is_training", True)
    with b.scope():
        y, mean, var = tf.nn.fused_batch_norm(b.x(0), b.x(1), b.x(2), None if is_training else b.x(3),
                                              None if is_training else b.x(4), epsilon=b.attr("epsilon", 1e-4),
                                              data_format=b.attr("data_format", "NHWC"), is_training=is_training)
    out = [y, mean, var, mean, var]
    return out + ([mean] if node.op == "FusedBatchNormV3" else [])


@converts("MaxPool", "AvgPool")
def _pool(b, node):
    fn = _tf().nn.max_pool if node.op == "MaxPool" else _tf().nn.avg_pool
    return [fn(b.x(0), ksize=b.attr("ksize"), strides=b.attr("strides"), padding=b.attr("padding"),
               data_format=b.attr("data_format", "NHWC"), name=b.name)]


@converts("MatMul")
def _matmul(b, node):
    return [_tf().matmul(b.x(0), b.x(1), transpose_a=b.attr("transpose_a", False),
                         transpose_b=b.attr("transpose_b", False), name=b.name)]


@converts("BatchMatMul", "BatchMatMulV2")
def _batch_matmul(b, node):
    return [_tf().matmul(b.x(0), b.x(1), adjoint_a=b.attr("adj_x", False), adjoint_b=b.attr("adj_y", False),
                         name=b.name)]


@converts("Softmax", "LogSoftmax")
def _softmax(b, node):
    fn = _tf().nn.softmax if node.op == "Softmax" else _tf().nn.log_softmax
    return [fn(b.x(0), name=b.name)]


@converts("Reshape")
def _reshape(b, node):
    shape = b.const(1, required=False)
    return [_tf().reshape(b.x(0), [int(d) for d in shape] if shape is not None else b.x(1), name=b.name)]


def _axes(b, i):
    v = b.const(i)
    return int(v) if np.ndim(v) == 0 else [int(a) for a in v]


@converts("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")
def _reduce(b, node):
    fn = getattr(_tf(), "reduce_" + {"Sum": "sum", "Mean": "mean", "Max": "max", "Min": "min", "Prod": "prod",
                                      "All": "all", "Any": "any"}[node.op])
    return [fn(b.x(0), axis=_axes(b, 1), keepdims=b.attr("keep_dims", False), name=b.name)]


@converts("ArgMax", "ArgMin")
def _argmax(b, node):
    fn = _tf().argmax if node.op == "ArgMax" else _tf().argmin
    return [fn(b.x(0), axis=int(b.const(1)), output_type=b.attr("output_type", None) or _tf().int64, name=b.name)]


@converts("ConcatV2")
def _concat(b, node):
    n = b.num_inputs - 1
    return [_tf().concat([b.x(i) for i in range(n)], axis=int(b.const(n)), name=b.name)]


@converts("Pack")
def _pack(b, node):
    return [_tf().stack([b.x(i) for i in range(b.num_inputs)], axis=b.attr("axis", 0), name=b.name)]


@converts("Squeeze")
def _squeeze(b, node):
    return [_tf().squeeze(b.x(0), axis=b.attr("squeeze_dims", []) or None, name=b.name)]


@converts("ExpandDims")
def _expand_dims(b, node):
    return [_tf().expand_dims(b.x(0), axis=int(b.const(1)), name=b.name)]


@converts("Transpose")
def _transpose(b, node):
    return [_tf().transpose(b.x(0), perm=[int(p) for p in b.const(1)], name=b.name)]


@converts("Shape")
def _shape(b, node):
    return [_tf().shape(b.x(0), out_type=b.attr("out_type", _tf().int32), name=b.name)]


@converts("Cast")
def _cast(b, node):
    return [_tf().cast(b.x(0), b.attr("DstT"), name=b.name)]


@converts("Pad", "MirrorPad")
def _pad(b, node):
    mode = b.attr("mode", "CONSTANT") if node.op == "MirrorPad" else "CONSTANT"
    return [_tf().pad(b.x(0), b.const(1).tolist(), mode=mode, name=b.name)]


@converts("StridedSlice")
def _strided_slice(b, node):
    return [_tf().strided_slice(b.x(0), b.const(1).tolist(), b.const(2).tolist(), b.const(3).tolist(),
                                begin_mask=b.attr("begin_mask", 0), end_mask=b.attr("end_mask", 0),
                                ellipsis_mask=b.attr("ellipsis_mask", 0), new_axis_mask=b.attr("new_axis_mask", 0),
                                shrink_axis_mask=b.attr("shrink_axis_mask", 0), name=b.name)]


@converts("Slice")
def _slice(b, node):
    return [_tf().slice(b.x(0), b.const(1).tolist(), b.const(2).tolist(), name=b.name)]


@converts("Tile")
def _tile(b, node):
    return [_tf().tile(b.x(0), b.const(1).tolist(), name=b.name)]


@converts("Fill")
def _fill(b, node):
    return [_tf().fill(b.const(0).tolist(), b.x(1), name=b.name)]


@converts("GatherV2")
def _gather(b, node):
    return [_tf().gather(b.x(0), b.x(1), axis=int(b.const(2)), name=b.name)]


@converts("Select", "SelectV2")
def _select(b, node):
    fn = _tf().where if node.op == "Select" else _tf().where_v2
    return [fn(b.x(0), b.x(1), b.x(2), name=b.name)]


@converts("AddN")
def _add_n(b, node):
    return [_tf().add_n([b.x(i) for i in range(b.num_inputs)], name=b.name)]


@converts("LeakyRelu")
def _leaky(b, node):
    return [_tf().nn.leaky_relu(b.x(0), alpha=b.attr("alpha", 0.2), name=b.name)]


@converts("SoftmaxCrossEntropyWithLogits")
def _xent(b, node):
    tf = _tf()
    with b.scope():
        loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=b.x(1), logits=b.x(0))
        backprop = tf.subtract(tf.nn.softmax(b.x(0)), b.x(1))
    return [loss, backprop]
