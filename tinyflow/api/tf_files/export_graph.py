"""graph.as_graph_def(): a tinyflow graph as TF's GraphDef protobuf.

Ops keep their type and name. Attrs are written in TF's form: tinyflow's private attrs ("_type",
"_shape") are dropped, the attrs TF's op definitions require are added ("T": the dtype of input
0), and the few ops where tinyflow keeps an attr that TF takes as an input (a reduction's axis,
ExpandDims' axis, ArgMax's dimension) get that input as a Const node. TensorFlow imports the
result for the inference ops the importer maps; tinyflow's own training ops (Unreduce,
SumToShape...) have no TF counterpart, so a training graph reads back in tinyflow only.
"""
import numpy as np

from tinyflow.formats import convert
from tinyflow.formats.protos import graph_pb2
from tinyflow.graph import dtypes as dt
from tinyflow.graph.shapes import TensorShape

# ops with no "T" attr in TF (their dtypes are in other attrs)
_NO_T = {"Const", "Placeholder", "VariableV2", "NoOp", "Cast", "ScalarSummary", "HistogramSummary", "MergeSummary",
         "PlaceholderWithDefault", "Fill", "Range", "Shape"}
_DROP = {"MaxPool": ("dilations",), "AvgPool": ("dilations",), "MaxPoolGrad": ("dilations",),
         "Softmax": ("axis",), "LogSoftmax": ("axis",), "SoftmaxCrossEntropyWithLogits": ("axis",),
         "SparseSoftmaxCrossEntropyWithLogits": ("axis",), "AssignAdd": ("validate_shape",),
         "AssignSub": ("validate_shape",)}
_T_FROM = {"Select": 1, "SelectV2": 1, "Conv2DBackpropInput": 1, "ScalarSummary": 1, "HistogramSummary": 1,
           "StridedSliceGrad": 4, "Split": 1}
_REDUCTIONS = {"Sum", "Mean", "Max", "Min", "Prod", "All", "Any"}


def _input_name(t):
    return t.op.name if t.value_index == 0 else "%s:%d" % (t.op.name, t.value_index)


def _const_node(gd, name, value):
    n = gd.node.add(name=name, op="Const")
    value = np.asarray(value, np.int32)
    convert.from_numpy(value, n.attr["value"].tensor)
    n.attr["dtype"].type = convert.BY_ENUM[3].as_datatype_enum
    return name


def _axis_value(op, attr):
    axis = op.attrs.get(attr)
    if axis is None:  # every axis
        rank = op.inputs[0].shape.ndims
        if rank is None:
            raise ValueError("cannot export %s: reduction over every axis of an input of unknown rank" % op.name)
        return list(range(rank))
    return axis


def _add(gd, name, op_type, inputs, **attrs):
    n = gd.node.add(name=name, op=op_type)
    n.input.extend(inputs)
    for k, v in attrs.items():
        convert.set_attr(n.attr[k], v)
    return name


def _sum_to_shape(op, gd):
    """SumToShape(g, like) as TF's gradients write it: Reshape(Sum(g, BroadcastGradientArgs(...)[1]), Shape(like))."""
    g, like = op.inputs
    T, i32 = g.dtype, convert.BY_ENUM[3]
    n = op.name
    sg = _add(gd, n + "/Shape", "Shape", [_input_name(g)], T=g.dtype, out_type=i32)
    sl = _add(gd, n + "/Shape_1", "Shape", [_input_name(like)], T=like.dtype, out_type=i32)
    bga = _add(gd, n + "/BroadcastGradientArgs", "BroadcastGradientArgs", [sg, sl], T=i32)
    total = _add(gd, n + "/Sum", "Sum", [_input_name(g), bga + ":1"], T=T, Tidx=i32, keep_dims=False)
    return gd.node[-1], _add(gd, n, "Reshape", [total, sl], T=T, Tshape=i32)


def _unreduce(op, gd):
    """Unreduce(g, x): g broadcast back over x's reduced axes (/ their size for a mean), in TF ops."""
    g, x = op.inputs
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("cannot export %s: input of unknown rank" % op.name)
    axis = op.attrs["axis"]
    axes = sorted({a % rank for a in ([axis] if isinstance(axis, int) else (axis or range(rank)))}) if rank else []
    if axis is not None and not isinstance(axis, int) and len(axis) == 0:
        axes = []
    T, i32 = g.dtype, convert.BY_ENUM[3]
    n = op.name
    sx = _add(gd, n + "/Shape", "Shape", [_input_name(x)], T=x.dtype, out_type=i32)
    keep = [0 if i in axes else 1 for i in range(rank)]
    kshape = _add(gd, n + "/kept_shape", "Add", [
        _add(gd, n + "/kept", "Mul", [sx, _const_node(gd, n + "/keep_mask", keep)], T=i32),
        _const_node(gd, n + "/reduced_mask", [1 - k for k in keep])], T=i32)
    shaped = _add(gd, n + "/Reshape", "Reshape", [_input_name(g), kshape], T=T, Tshape=i32)
    if not op.attrs.get("mean"):
        return gd.node[-1], _add(gd, n, "BroadcastTo", [shaped, sx], T=T, Tidx=i32)
    tiled = _add(gd, n + "/BroadcastTo", "BroadcastTo", [shaped, sx], T=T, Tidx=i32)
    all_axes = _const_node(gd, n + "/all_axes", [0])
    count = _add(gd, n + "/count", "RealDiv", [
        _add(gd, n + "/size", "Cast", [_add(gd, n + "/Prod", "Prod", [sx, all_axes], T=i32, Tidx=i32,
                                             keep_dims=False)], SrcT=i32, DstT=T),
        _add(gd, n + "/kept_size", "Cast", [_add(gd, n + "/Prod_1", "Prod", [kshape, all_axes], T=i32, Tidx=i32,
                                                  keep_dims=False)], SrcT=i32, DstT=T)], T=T)
    return gd.node[-1], _add(gd, n, "RealDiv", [tiled, count], T=T)


def _string_const(gd, name, value):
    n = gd.node.add(name=name, op="Const")
    convert.from_numpy(np.array(value, object), n.attr["value"].tensor, dt.string)
    n.attr["dtype"].type = dt.string.as_datatype_enum
    return name


def _summary(op, gd):
    """A summary op as TF's graph has it: the tag (and a text summary's metadata) as string Const inputs."""
    inputs = [_string_const(gd, op.name + "/tag", op.attrs["tag"])] + [_input_name(t) for t in op.inputs]
    attrs = {"T": op.inputs[0].dtype}
    if op.type == "ImageSummary":
        attrs["max_images"] = op.attrs["max_images"]
    elif op.type == "AudioSummaryV2":
        attrs = {"max_outputs": op.attrs["max_outputs"]}
    elif op.type == "TensorSummaryV2":
        inputs.append(_string_const(gd, op.name + "/serialized_summary_metadata", op.attrs["metadata"]))
    _add(gd, op.name, op.type, inputs, **attrs)
    gd.node[-1].attr["_output_shapes"].list.shape.add()   # a scalar string


def _frames(kind):
    def export(op, gd):
        from tinyflow.api.tf_files import export_frames
        if kind == "if":
            return export_frames.export_if(op, gd, node_def)
        if kind == "while":
            return export_frames.export_while(op, gd, node_def)
        return getattr(export_frames, "export_" + kind)(op, gd)
    return export


def _parse_example(op, gd):
    """tf.parse_example's op as TF's ParseExample: its keys as string Const inputs (outputs in TF's
    order, which is tinyflow's while there is at most one sparse key)."""
    sparse, dense = op.attrs["sparse"], op.attrs["dense"]
    if op.attrs.get("single") or len(sparse) > 1:
        raise ValueError("cannot export %s: TF's ParseExample orders the outputs of several sparse keys "
                         "differently (or a ParseSingleExample)" % op.name)
    n = op.name
    inputs = [_input_name(op.inputs[0]), _string_const(gd, n + "/names", [])]
    inputs += [_string_const(gd, "%s/sparse_keys_%d" % (n, i), k) for i, (k, _) in enumerate(sparse)]
    inputs += [_string_const(gd, "%s/dense_keys_%d" % (n, i), k) for i, (k, _, _) in enumerate(dense)]
    inputs += [_input_name(t) for t in op.inputs[1:]]
    _add(gd, n, "ParseExample", inputs, Nsparse=len(sparse), Ndense=len(dense), sparse_types=[t for _, t in sparse],
         Tdense=[t for _, t, _ in dense], dense_shapes=[TensorShape(shape) for _, _, shape in dense])


_COMPOSITE = {"ParseExample": _parse_example, "SumToShape": _sum_to_shape, "Unreduce": _unreduce,
              "ScalarSummary": _summary,
              "HistogramSummary": _summary, "ImageSummary": _summary, "AudioSummaryV2": _summary,
              "TensorSummaryV2": _summary, "StatelessIf": _frames("if"), "If": _frames("if"),
              "StatelessWhile": _frames("while"), "While": _frames("while"),
              "TensorListGetItem": _frames("get_item"), "TensorListSetItem": _frames("set_item"),
              "TensorListTakeItem": _frames("take_item")}


# tinyflow's own helpers that TF's graph has inside another op (a histogram's buckets: its summary op)
_OWN = frozenset({"HistogramBuckets"})


def node_def(op, gd):
    """Appends the NodeDef(s) of one tinyflow op to the GraphDef gd."""
    if op.type in _COMPOSITE:
        _COMPOSITE[op.type](op, gd)
        n = gd.node[-1]
        n.input.extend("^" + c.name for c in op.control_inputs)
        return n
    n = gd.node.add(name=op.name, op=op.type)
    n.input.extend(_input_name(t) for t in op.inputs)
    attrs = {k: v for k, v in op.attrs.items() if (not k.startswith("_") or k == "_gradient_op_type")  # TF's own
             and k not in _DROP.get(op.type, ())}
    if op.type in _REDUCTIONS:
        n.input.append(_const_node(gd, op.name + "/reduction_indices", _axis_value(op, "axis")))
        attrs = {"keep_dims": bool(attrs.get("keep_dims", False)), "Tidx": convert.BY_ENUM[3]}
    elif op.type in ("ArgMax", "ArgMin"):
        n.input.append(_const_node(gd, op.name + "/dimension", attrs.pop("axis")))
        attrs["Tidx"] = convert.BY_ENUM[3]
    elif op.type == "ExpandDims":
        n.input.append(_const_node(gd, op.name + "/dim", attrs.pop("axis")))
        attrs["Tdim"] = convert.BY_ENUM[3]
    elif op.type == "Squeeze":
        attrs = {"squeeze_dims": list(attrs.get("axis") or ())}
    elif op.type in ("Reshape", "Transpose", "Tile", "Pad", "Slice", "StridedSlice", "ConcatV2", "GatherV2"):
        index_attr = {"Reshape": "Tshape", "Transpose": "Tperm", "Tile": "Tmultiples", "Pad": "Tpaddings",
                      "Slice": "Index", "StridedSlice": "Index", "ConcatV2": "Tidx", "GatherV2": "Taxis"}[op.type]
        attrs[index_attr] = op.inputs[-1].dtype
        if op.type == "ConcatV2":
            attrs["N"] = len(op.inputs) - 1
        if op.type == "GatherV2":
            attrs["Tparams"], attrs["Tindices"] = op.inputs[0].dtype, op.inputs[1].dtype
    elif op.type == "SplitV":
        attrs["Tlen"] = op.inputs[1].dtype
    elif op.type == "StridedSliceGrad":  # (shape, begin, end, strides: Index; dy: T)
        attrs["Index"] = op.inputs[0].dtype
    elif op.type in ("Pack", "AddN", "MergeSummary"):
        attrs["N"] = len(op.inputs)
    elif op.type == "Fill":
        attrs = {"T": op.inputs[1].dtype, "index_type": op.inputs[0].dtype}
    elif op.type == "Shape":
        attrs = {"T": op.inputs[0].dtype, "out_type": attrs.get("out_type", op.outputs[0].dtype)}
    elif op.type == "Const":
        attrs = {"value": np.asarray(attrs["value"]), "dtype": op.outputs[0].dtype}
    elif op.type == "Placeholder":
        attrs.setdefault("shape", op.outputs[0].shape)
    elif op.type == "PlaceholderWithDefault":
        attrs = {"dtype": op.outputs[0].dtype, "shape": op.outputs[0].shape}
    if op.type not in _NO_T and op.inputs and "T" not in attrs and op.type != "GatherV2":
        attrs["T"] = op.inputs[_T_FROM.get(op.type, 0)].dtype
    for k, v in attrs.items():
        if v is None:
            continue
        if not convert.set_attr(n.attr[k], v):
            del n.attr[k]  # a tinyflow-only value (a nested graph, a Python function): not in the GraphDef
    n.input.extend("^" + c.name for c in op.control_inputs)
    if op.outputs:
        sh = n.attr["_output_shapes"].list
        for t in op.outputs:
            convert.shape_proto(t.shape, sh.shape.add())
    return n


_UPDATES = ("Assign", "AssignAdd", "AssignSub", "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterNdUpdate",
            "ScatterNdAdd")


def _order_reads_before_updates(gd):
    """tinyflow's rule: a read not ordered after an update sees the variable's value at the start of
    the run. TF updates variables in place, whenever an update is ready, so the GraphDef says it
    with control inputs: an update of v waits for every read of v (through Identity too) that is
    not after it and is needed by some op that also needs the update (the same training step)."""
    nodes = list(gd.node)
    index = {n.name: i for i, n in enumerate(nodes)}
    src = [[index[i.lstrip("^").split(":")[0]] for i in n.input if i.lstrip("^").split(":")[0] in index
            and not (n.op == "Merge" and nodes[index[i.lstrip("^").split(":")[0]]].op == "NextIteration")]
           for n in nodes]  # (without the edges that close a TF1 while loop)
    order, seen = [], set()
    for i in range(len(nodes)):  # topological order (inputs first)
        stack = [(i, 0)]
        while stack:
            j, k = stack.pop()
            if j in seen:
                continue
            if k < len(src[j]):
                stack.append((j, k + 1))
                if src[j][k] not in seen:
                    stack.append((src[j][k], 0))
            else:
                seen.add(j)
                order.append(j)
    anc = [0] * len(nodes)  # bitsets: ancestors (self included)
    for j in order:
        a = 1 << j
        for s in src[j]:
            a |= anc[s]
        anc[j] = a
    desc = [1 << j for j in range(len(nodes))]
    for j in reversed(order):
        for s in src[j]:
            desc[s] |= desc[j]
    consumers = [[] for _ in nodes]
    for r, inputs in enumerate(src):
        for s in inputs:
            consumers[s].append(r)
    for u, n in enumerate(nodes):
        if n.op not in _UPDATES and not n.op.startswith("Apply"):
            continue
        refs = {index[i.split(":")[0]] for i in n.input[:4] if i.split(":")[0] in index
                and nodes[index[i.split(":")[0]]].op == "VariableV2"}
        readers, frontier = set(), set(refs)
        while frontier:  # consumers of the variable, looking through Identity
            nxt = set()
            for r in {r for s in frontier for r in consumers[s]}:
                m = nodes[r]
                if r != u and r not in readers and not m.op.startswith("Apply") and m.op not in _UPDATES:
                    readers.add(r)
                    if m.op == "Identity":
                        nxt.add(r)
            frontier = nxt
        for r in sorted(readers):
            if desc[u] >> r & 1 or anc[u] >> r & 1:
                continue  # after the update (it sees the new value), or already before it
            if desc[r] & desc[u]:  # needed in the same step
                n.input.append("^" + nodes[r].name)
                a = anc[r]
                while a:  # every ancestor of r now comes before u and what follows u
                    low = a & -a
                    desc[low.bit_length() - 1] |= desc[u]
                    a ^= low
                anc[u] |= anc[r]


def as_graph_def(graph, from_version=None, add_shapes=False):
    """The GraphDef of a tinyflow graph (TF's protobuf message)."""
    gd = graph_pb2().GraphDef()
    gd.versions.producer = 27  # TF 1.15's GraphDef version
    for op in graph.get_operations():
        if op.type not in _OWN:
            node_def(op, gd)
    _order_reads_before_updates(gd)
    if not add_shapes:
        for n in gd.node:
            if "_output_shapes" in n.attr:
                del n.attr["_output_shapes"]
    return gd
