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
    import tinyflow.api   # the tf. namespace (its lazy names included)
    return tinyflow.api


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
                   ("Ceil", "ceil", None), ("Round", "round", None), ("Sign", "sign", None),
                   ("Log1p", "log1p", None),
                   ("Sin", "sin", None), ("Cos", "cos", None), ("Erf", "erf", None),
                   ("LogicalNot", "logical_not", None),
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


# ---- what TF's training graphs hold: variables, their updates, gradient ops ------------------------
@converts("VariableV2")
def _variable(b, node):
    from tinyflow.ops.core.base import make_op
    shape = b.attr("shape")
    if not shape.is_fully_defined():
        raise ValueError("variable shape %s is not fully defined" % shape)
    return [make_op("VariableV2", [], {"shape": shape, "dtype": b.attr("dtype")}, name=b.name)]


def _ref(b, i):
    t = b.x(i)
    if t.op.type != "VariableV2":
        raise ValueError("input %d must be a variable (VariableV2 or VarHandleOp), not %s" % (i, t.op.type))
    return t


# TF 1.15's resource variables (ResourceVariable: premade Estimators, Keras layers, use_resource=True) are
# tinyflow variables: the VarHandleOp is the variable, ReadVariableOp a read, AssignVariableOp an Assign.
@converts("VarHandleOp")
def _var_handle(b, node):
    return _variable(b, node)


@converts("ReadVariableOp")
def _read_variable(b, node):
    return [_tf().identity(_ref(b, 0), name=b.name)]


@converts("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp")
def _assign_variable(b, node):
    tf = _tf()
    fn = {"AssignVariableOp": tf.assign, "AssignAddVariableOp": tf.assign_add,
          "AssignSubVariableOp": tf.assign_sub}[node.op]
    return [fn(_ref(b, 0), b.x(1), name=b.name).op]   # (TF's op has no outputs)


@converts("VarIsInitializedOp", "IsVariableInitialized")
def _is_initialized(b, node):
    from tinyflow.ops.core.base import make_op
    return [make_op("IsVariableInitialized", [], {"vars": [_ref(b, 0).op]}, name=b.name)]


@converts("ResourceGather")
def _resource_gather(b, node):
    if b.attr("batch_dims", 0):
        raise ValueError("batch_dims=%d is not supported by tinyflow's ResourceGather" % b.attr("batch_dims"))
    return [_tf().gather(_ref(b, 0), b.x(1), name=b.name)]


@converts("Where")
def _where(b, node):
    return [_tf().where(b.x(0), name=b.name)]


@converts("Assign", "AssignAdd", "AssignSub")
def _assign(b, node):
    tf = _tf()
    fn = {"Assign": tf.assign, "AssignAdd": tf.assign_add, "AssignSub": tf.assign_sub}[node.op]
    kwargs = {"validate_shape": b.attr("validate_shape", True)} if node.op == "Assign" else {}
    return [fn(_ref(b, 0), b.x(1), name=b.name, **kwargs)]


# TF's Apply* ops: the first n inputs are variables, the rest tensors, in the same order as tinyflow's
_APPLY = {"ApplyGradientDescent": 1, "ApplyMomentum": 2, "ApplyAdagrad": 2, "ApplyAdam": 3, "ApplyRMSProp": 3,
          "ApplyCenteredRMSProp": 4, "ApplyAdadelta": 3, "ApplyFtrl": 3, "ApplyFtrlV2": 3,
          "ApplyProximalGradientDescent": 1, "ApplyProximalAdagrad": 2}


def _apply(b, node):
    from tinyflow.ops.core.base import make_op
    from tinyflow.api.train import training_ops  # noqa: F401 (registers the Apply* ops)
    if b.attr("use_nesterov", False):
        raise ValueError("use_nesterov=True is not supported by tinyflow's %s" % node.op)
    op_type = node.op[len("Resource"):] if node.op.startswith("Resource") else node.op
    n = _APPLY[op_type]
    inputs = [_ref(b, i) for i in range(n)] + [b.x(i) for i in range(n, b.num_inputs)]
    attrs = {"use_locking": b.attr("use_locking", False)}
    if op_type in ("ApplyMomentum",):
        attrs["use_nesterov"] = False
    if op_type in ("ApplyFtrl", "ApplyFtrlV2"):
        attrs["sqrt_power"] = False
    out = make_op(op_type, inputs, attrs, name=b.name)
    return [out.op if op_type != node.op else out]   # TF's ResourceApply* ops have no outputs


for _t in _APPLY:
    CONVERTERS[_t] = CONVERTERS["Resource" + _t] = _apply


@converts("TruncatedNormal", "RandomStandardNormal", "RandomUniform")
def _random(b, node):
    tf = _tf()
    fn = {"TruncatedNormal": tf.truncated_normal, "RandomStandardNormal": tf.random_normal,
          "RandomUniform": tf.random_uniform}[node.op]
    seed = b.attr("seed2", 0) or None
    return [fn(b.x(0), dtype=b.attr("dtype"), seed=seed, name=b.name)]


@converts("BroadcastGradientArgs")
def _bga(b, node):
    from tinyflow.api.tf_files.tf_ops import bga
    return list(bga(b.x(0), b.x(1), name=b.name))


_reduce_const = CONVERTERS["Sum"]


def _reduce_any(b, node):
    if b.const(1, required=False) is not None or node.op in ("All", "Any"):
        return _reduce_const(b, node)
    from tinyflow.api.tf_files.tf_ops import dynamic_reduce
    return [dynamic_reduce(b.x(0), b.x(1), node.op, b.attr("keep_dims", False), name=b.name)]


for _t in ("Sum", "Mean", "Max", "Min", "Prod"):
    CONVERTERS[_t] = _reduce_any


@converts("Tile")
def _tile_any(b, node):
    m = b.const(1, required=False)
    return [_tf().tile(b.x(0), m.tolist() if m is not None else b.x(1), name=b.name)]


@converts("Fill")
def _fill_any(b, node):
    d = b.const(0, required=False)
    return [_tf().fill(d.tolist() if d is not None else b.x(0), b.x(1), name=b.name)]


@converts("Slice")
def _slice_any(b, node):
    begin, size = b.const(1, required=False), b.const(2, required=False)
    return [_tf().slice(b.x(0), begin.tolist() if begin is not None else b.x(1),
                        size.tolist() if size is not None else b.x(2), name=b.name)]


@converts("ShapeN")
def _shape_n(b, node):
    tf = _tf()
    with b.scope():
        return [tf.shape(b.x(i), out_type=b.attr("out_type", tf.int32)) for i in range(b.num_inputs)]


@converts("ReluGrad")
def _relu_grad(b, node):
    tf = _tf()
    g, x = b.x(0), b.x(1)
    with b.scope():
        return [tf.where(tf.greater(x, tf.zeros_like(x)), g, tf.zeros_like(g))]


@converts("BiasAddGrad")
def _bias_add_grad(b, node):
    from tinyflow.ops.core.base import make_op
    return [make_op("BiasAddGrad", [b.x(0)], {"data_format": b.attr("data_format", "NHWC")}, name=b.name)]


@converts("MaxPoolGrad")
def _max_pool_grad(b, node):
    from tinyflow.ops.core.base import make_op
    return [make_op("MaxPoolGrad", [b.x(0), b.x(1), b.x(2)],
                    {"ksize": b.attr("ksize"), "strides": b.attr("strides"), "padding": b.attr("padding"),
                     "data_format": b.attr("data_format", "NHWC"), "dilations": [1, 1, 1, 1]}, name=b.name)]


@converts("Conv2DBackpropInput", "Conv2DBackpropFilter")
def _conv_backprop(b, node):
    tf = _tf()
    kw = dict(strides=b.attr("strides"), padding=b.attr("padding"), data_format=b.attr("data_format", "NHWC"),
              dilations=b.attr("dilations", [1, 1, 1, 1]), name=b.name)
    sizes = b.const(0 if node.op == "Conv2DBackpropInput" else 1, required=False)
    if node.op == "Conv2DBackpropInput":
        return [tf.nn.conv2d_backprop_input(sizes.tolist() if sizes is not None else b.x(0), b.x(1), b.x(2), **kw)]
    return [tf.nn.conv2d_backprop_filter(b.x(0), sizes.tolist() if sizes is not None else b.x(1), b.x(2), **kw)]


@converts("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")
def _fused_batch_norm_grad(b, node):
    """The gradients of FusedBatchNorm. Inference mode (is_training=False): the statistics are the
    inputs, constants. Training mode: they are the batch's (recomputed here from x, the biased
    variance the forward pass normalized with), so dx has the two extra terms of their gradient."""
    tf = _tf()
    if b.attr("data_format", "NHWC") != "NHWC":
        raise ValueError("FusedBatchNormGrad supports data_format NHWC only")
    dy, x, scale, mean, var = (b.x(i) for i in range(5))
    axes = [0, 1, 2]
    with b.scope():
        if b.attr("is_training", True):
            mean = tf.reduce_mean(x, axis=axes)
            var = tf.reduce_mean(tf.square(x - mean), axis=axes)
        inv = tf.rsqrt(var + max(b.attr("epsilon", 1e-4), 1.001e-5))
        x_hat = (x - mean) * inv
        dscale = tf.reduce_sum(dy * x_hat, axis=axes)
        doffset = tf.reduce_sum(dy, axis=axes)
        if b.attr("is_training", True):
            dx = (scale * inv) * (dy - tf.reduce_mean(dy, axis=axes) - x_hat * tf.reduce_mean(dy * x_hat, axis=axes))
        else:
            dx = dy * (scale * inv)
        zero = tf.zeros_like(scale)
    return [dx, dscale, doffset, zero, zero]


def _summary_node(b, op_type, inputs, **attrs):
    """A summary op of TF's GraphDef (its tag a string Const input 0) as tinyflow's (the tag an attr)."""
    tag = np.asarray(b.const(0), object).reshape(-1)
    if tag.size != 1:
        raise ValueError("tinyflow needs one tag (a scalar string Const), not %d" % tag.size)
    attrs["tag"] = tag[0].decode() if isinstance(tag[0], bytes) else str(tag[0])
    return [_tf().summary.imported(op_type, b.name, inputs, attrs)]


@converts("ScalarSummary")
def _scalar_summary(b, node):
    return _summary_node(b, "ScalarSummary", [b.x(1)])


@converts("HistogramSummary")
def _histogram_summary(b, node):
    return _summary_node(b, "HistogramSummary", [b.x(1)])


@converts("ImageSummary")
def _image_summary(b, node):
    return _summary_node(b, "ImageSummary", [b.x(1)], max_images=int(b.attr("max_images", 3)))


@converts("AudioSummaryV2")
def _audio_summary(b, node):
    return _summary_node(b, "AudioSummaryV2", [b.x(1), b.x(2)], max_outputs=int(b.attr("max_outputs", 3)))


@converts("TensorSummaryV2")
def _tensor_summary(b, node):
    metadata = np.asarray(b.const(2), object).reshape(-1)[0]
    return _summary_node(b, "TensorSummaryV2", [b.x(1)], metadata=bytes(metadata))


@converts("Range")
def _range(b, node):
    args = [b.const(i, required=False) for i in range(3)]
    args = [b.x(i) if a is None else a.item() for i, a in enumerate(args)]
    return [_tf().range(*args, dtype=b.attr("Tidx", None), name=b.name)]


@converts("MergeSummary")
def _merge_summary(b, node):
    return [_tf().summary.imported("MergeSummary", b.name, [b.x(i) for i in range(b.num_inputs)], {})]


@converts("BroadcastTo")
def _broadcast_to(b, node):
    shape = b.const(1, required=False)
    return [_tf().broadcast_to(b.x(0), shape.tolist() if shape is not None else b.x(1), name=b.name)]


# ---- what TF's losses put in training graphs ------------------------------------------------------
@converts("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent(b, node):
    from tinyflow.ops.core.base import make_op
    return list(make_op("SparseSoftmaxCrossEntropyWithLogits", [b.x(0), b.x(1)], name=b.name))


@converts("PreventGradient")
def _prevent_gradient(b, node):
    from tinyflow.api.tf_files.tf_ops import prevent_gradient
    return [prevent_gradient(b.x(0), b.attr("message", ""), name=b.name)]


# ---- TF1 control flow: frames become tf.while_loop / tf.cond (import_loops.py), never single nodes ---
def _structural(b, node):
    raise ValueError("a %s node must be part of a while loop or tf.cond frame" % node.op)


for _t in ("Enter", "Exit", "NextIteration", "LoopCond", "Switch", "Merge"):
    CONVERTERS[_t] = _structural


@converts("Split")
def _split(b, node):
    return list(_tf().split(b.x(1), b.attr("num_split"), axis=int(b.const(0)), name=b.name))


@converts("SplitV")
def _split_v(b, node):
    return list(_tf().split(b.x(0), [int(s) for s in b.const(1)], axis=int(b.const(2)), name=b.name))


@converts("Assert")
def _assert(b, node):
    data = []
    for i in range(1, b.num_inputs):
        c = b.const(i, required=False)
        if c is not None and np.asarray(c).dtype.kind in "SOU":  # TF's message pieces: kept as text
            data.append(b"".join(np.asarray(c).reshape(-1)[:1]).decode("utf-8", "replace"))
        else:
            data.append(b.x(i))
    return [_tf().Assert(b.x(0), data, summarize=b.attr("summarize", 3), name=b.name)]


@converts("ReverseSequence")
def _reverse_sequence(b, node):
    return [_tf().reverse_sequence(b.x(0), b.x(1), seq_axis=b.attr("seq_dim"), batch_axis=b.attr("batch_dim", 0),
                                   name=b.name)]


@converts("SigmoidGrad", "TanhGrad")
def _activation_grad(b, node):
    tf = _tf()
    y, dy = b.x(0), b.x(1)
    with b.scope():
        local = y * (1 - y) if node.op == "SigmoidGrad" else 1 - y * y
    return [tf.multiply(dy, local, name=b.name)]


@converts("ConcatOffset")
def _concat_offset(b, node):
    """The offset of each input of a ConcatV2 along its axis (TF's gradient of concat slices with them)."""
    tf = _tf()
    axis, shapes = int(b.const(0)), [b.x(i) for i in range(1, b.num_inputs)]
    rank = shapes[0].shape.as_list()[0]
    if rank is None:
        raise ValueError("ConcatOffset needs shapes of known length")
    mask = np.eye(rank, dtype=np.int32)[axis % rank]
    out, total = [], None
    with b.scope():
        for s in shapes:
            out.append(tf.zeros_like(s) if total is None else total * mask)
            size = s[axis % rank]
            total = size if total is None else total + size
    return out


@converts("ControlTrigger")
def _control_trigger(b, node):
    return [_tf().no_op(name=b.name)]


@converts("StackV2")
def _stack(b, node):
    """TF's while-loop gradients push forward values on stacks and pop them in the gradient loop;
    tinyflow replaces that gradient loop by its own (import_loops.build_grad_loop): the stack stays unused."""
    return [_tf().no_op(name=b.name)]


@converts("StackPushV2", "StackPopV2")
def _stack_op(b, node):
    raise ValueError("tinyflow imports stacks only as the accumulators of TF's while-loop gradients")


@converts("IdentityN")
def _identity_n(b, node):
    tf = _tf()
    with b.scope():
        return [tf.identity(b.x(i)) for i in range(b.num_inputs)]


@converts("TensorScatterUpdate")
def _tensor_scatter_update(b, node):
    """tensor with the slices at indices replaced by updates (unique indices: TF's rule for a defined result)."""
    tf = _tf()
    x, indices, updates = b.x(0), b.x(1), b.x(2)
    with b.scope():
        shape = tf.shape(x, out_type=indices.dtype)
        covered = tf.scatter_nd(indices, tf.ones_like(updates), shape)
        return [tf.add(x * (1 - covered), tf.scatter_nd(indices, updates, shape), name=b.name)]


@converts("RsqrtGrad")
def _rsqrt_grad(b, node):
    tf = _tf()
    y, dy = b.x(0), b.x(1)
    with b.scope():
        local = -0.5 * y * y * y
    return [tf.multiply(dy, local, name=b.name)]


@converts("DynamicStitch", "ParallelDynamicStitch")
def _dynamic_stitch(b, node):
    n = b.attr("N")
    return [_tf().dynamic_stitch([b.x(i) for i in range(n)], [b.x(n + i) for i in range(n)], name=b.name)]


# ---- what TF 1.15 puts into serving graphs (the parsing receiver's ParseExample, a head's AsString) ---------
def _text(value):
    value = np.asarray(value).reshape(()).item()
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


@converts("ParseExample")
def _parse_example(b, node):
    """TF's ParseExample (serialized, names, sparse_keys, dense_keys, dense_defaults) as tf.parse_example;
    outputs in TF's order: every sparse key's indices, then values, then shapes, then the dense values."""
    from tinyflow.ops.parsing_ops import FixedLenFeature, VarLenFeature, parse_example
    ns, nd = b.attr("Nsparse", 0), b.attr("Ndense", 0)
    sparse_keys = [_text(b.const(2 + i)) for i in range(ns)]
    dense_keys = [_text(b.const(2 + ns + i)) for i in range(nd)]
    features = {k: VarLenFeature(t) for k, t in zip(sparse_keys, b.attr("sparse_types", []))}
    for i, (key, dtype, shape) in enumerate(zip(dense_keys, b.attr("Tdense", []), b.attr("dense_shapes", []))):
        default = np.asarray(b.const(2 + ns + nd + i))
        features[key] = FixedLenFeature(shape, dtype, default_value=None if default.size == 0 else default)
    out = parse_example(b.x(0), features, name=b.name)
    return ([out[k].indices for k in sparse_keys] + [out[k].values for k in sparse_keys]
            + [out[k].dense_shape for k in sparse_keys] + [out[k] for k in dense_keys])


@converts("AsString")
def _as_string(b, node):
    return [_tf().as_string(b.x(0), precision=b.attr("precision", -1), scientific=b.attr("scientific", False),
                            shortest=b.attr("shortest", False), width=b.attr("width", -1),
                            fill=b.attr("fill", ""), name=b.name)]


@converts("Size")
def _size(b, node):
    return [_tf().size(b.x(0), out_type=b.attr("out_type", _tf().int32), name=b.name)]


# ---- issue 37's ops: complex numbers, FFTs, special functions, scatters, space/batch ------------------------
for _t, _f, _m in [("Conj", "conj", None), ("Real", "real", None), ("Imag", "imag", None), ("Angle", "angle", None),
                   ("ComplexAbs", "abs", None), ("FFT", "fft", None), ("IFFT", "ifft", None), ("FFT2D", "fft2d", None),
                   ("IFFT2D", "ifft2d", None), ("FFT3D", "fft3d", None), ("IFFT3D", "ifft3d", None),
                   ("BesselI0e", "bessel_i0e", "math"), ("BesselI1e", "bessel_i1e", "math"),
                   ("MatrixExponential", "expm", "linalg")]:
    CONVERTERS[_t] = _unary(_f, _m)
for _t, _f in [("Complex", "complex"), ("Igamma", "igamma"), ("Igammac", "igammac"), ("Zeta", "zeta"),
               ("NextAfter", "nextafter"), ("MulNoNan", "multiply_no_nan")]:
    CONVERTERS[_t] = (lambda f: lambda b, node: [getattr(_tf().math, f)(b.x(0), b.x(1), name=b.name)])(_f)


def _fft_length_op(fn_name):
    def conv(b, node):
        return [getattr(_tf().signal, fn_name)(b.x(0), b.const(1), name=b.name)]
    return conv


for _t in ("RFFT", "IRFFT", "RFFT2D", "IRFFT2D", "RFFT3D", "IRFFT3D"):
    CONVERTERS[_t] = _fft_length_op(_t.lower())


@converts("Betainc")
def _betainc(b, node):
    return [_tf().math.betainc(b.x(0), b.x(1), b.x(2), name=b.name)]


@converts("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub")
def _tensor_scatter(b, node):
    fn = {"TensorScatterUpdate": "tensor_scatter_update", "TensorScatterAdd": "tensor_scatter_add",
          "TensorScatterSub": "tensor_scatter_sub"}[node.op]
    return [getattr(_tf(), fn)(b.x(0), b.x(1), b.x(2), name=b.name)]


@converts("SpaceToBatchND", "BatchToSpaceND")
def _space_batch(b, node):
    fn = "space_to_batch_nd" if node.op == "SpaceToBatchND" else "batch_to_space_nd"
    return [getattr(_tf(), fn)(b.x(0), b.const(1), b.const(2), name=b.name)]


@converts("UnravelIndex")
def _unravel_index(b, node):
    return [_tf().unravel_index(b.x(0), b.x(1), name=b.name)]


@converts("LowerBound", "UpperBound")
def _bound(b, node):
    return [_tf().searchsorted(b.x(0), b.x(1), side="left" if node.op == "LowerBound" else "right",
                               out_type=b.attr("out_type", np.int32), name=b.name)]
