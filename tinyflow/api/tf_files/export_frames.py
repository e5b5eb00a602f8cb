"""tinyflow's tf.cond and tf.while_loop written as TF1 frames, so TF 1.15 imports them (a frozen RNN).

An If (StatelessIf) becomes TF1's cond: Switch(x, pred_id) for each captured tensor, each branch's
ops under NAME/true/ and NAME/false/ (an op without inputs waits on the branch's pivot, so it is dead
when its branch is), a Merge per output. A While (StatelessWhile) becomes TF1's loop: Enter, Merge,
the cond's ops, LoopCond, Switch, Identity, the body's ops, NextIteration, Exit; captured tensors
enter with is_constant; maximum_iterations is one more loop variable, a counter. The op's outputs
are an IdentityN named as the op, so its consumers need no renaming. Bodies are exported with the
same node_def as the top level (passed in: this module does not import export_graph.py).
"""
import numpy as np

from tinyflow.formats import convert

_BOOL, _INT32 = convert.BY_ENUM[10], convert.BY_ENUM[3]


def _add(gd, name, op_type, inputs, **attrs):
    n = gd.node.add(name=name, op=op_type)
    n.input.extend(inputs)
    for k, v in attrs.items():
        convert.set_attr(n.attr[k], v)
    return n


def _const(gd, name, value, control=None):
    n = _add(gd, name, "Const", ["^" + control] if control else [], dtype=_INT32)
    convert.from_numpy(np.asarray(value, np.int32), n.attr["value"].tensor)
    return name


def _ref(name):
    """A NodeDef input string for 'node:index'."""
    node, _, idx = name.rpartition(":")
    return node if idx == "0" else name


def _body(subfn, gd, node_def, prefix, inputs, pivot):
    """Appends subfn's ops under `prefix`, its input placeholders read as `inputs`; returns the input
    strings of its outputs."""
    from tinyflow.formats.protos import graph_pb2
    from tinyflow.graph.registry import get_op_def
    args = {t.op.name: inp for t, inp in zip(subfn.inputs, inputs)}
    needed, stack = set(), [t.op for t in subfn.outputs]
    while stack:  # only what the outputs need (a lifted variable's initializer stays behind, unused)
        op = stack.pop()
        if op in needed or op.graph is not subfn.graph:
            continue
        needed.add(op)
        stack.extend([t.op for t in op.inputs] + list(op.control_inputs))
    tmp = graph_pb2().GraphDef()
    for op in subfn.graph.get_operations():
        if op in needed and op.name not in args:
            if get_op_def(op.type).needs_key:
                raise ValueError("cannot export %s: the random op %s in a tf.cond or tf.while_loop body has no TF1 "
                                 "form in tinyflow's exporter" % (subfn.graph.name, op.name))
            node_def(op, tmp)

    def rename(inp):
        control = inp.startswith("^")
        node, _, idx = inp.lstrip("^").partition(":")
        if node in args:
            return ("^" + args[node].split(":")[0]) if control else args[node] if not idx or idx == "0" else None
        return ("^" if control else "") + local(node) + (":" + idx if idx else "")
    inner = subfn.graph.name.rstrip("/") + "/"

    def local(name):  # the body's ops are named under its scope already: not twice
        return prefix + (name[len(inner):] if name.startswith(inner) else name)
    for n in tmp.node:
        new = gd.node.add()
        new.CopyFrom(n)
        new.name = local(n.name)
        del new.input[:]
        ins = [rename(i) for i in n.input]
        if any(i is None for i in ins):
            raise ValueError("cannot export %s: it reads a body argument's output other than 0" % n.name)
        new.input.extend(ins)
        if not any(not i.startswith("^") for i in ins):  # a constant: dead or alive with its branch / iteration
            new.input.append("^" + pivot)
    outs = []
    for t in subfn.outputs:
        outs.append(args[t.op.name] if t.op.name in args else _ref(local(t.op.name) + ":%d" % t.value_index))
    return outs


def _identity_n(gd, op, inputs):
    _add(gd, op.name, "IdentityN", inputs, T=[t.dtype for t in op.outputs])


def export_if(op, gd, node_def):
    name = op.name
    pred = _ref(op.inputs[0].op.name + ":%d" % op.inputs[0].value_index)
    pred_id = _add(gd, name + "/pred_id", "Identity", [pred], T=_BOOL).name
    _add(gd, name + "/Switch", "Switch", [pred, pred], T=_BOOL)
    pivots = {1: _add(gd, name + "/switch_t", "Identity", [name + "/Switch:1"], T=_BOOL).name,
              0: _add(gd, name + "/switch_f", "Identity", [name + "/Switch"], T=_BOOL).name}
    switches = []
    for j, t in enumerate(op.inputs[1:]):
        sw = _add(gd, "%s/Switch_%d" % (name, j + 1), "Switch", [_ref("%s:%d" % (t.op.name, t.value_index)),
                                                               pred_id], T=t.dtype).name
        switches.append(sw)
    then_fn, else_fn = op.attrs["branches"]
    outs = {}
    for b, fn, where in ((1, then_fn, "true"), (0, else_fn, "false")):
        ins = [sw + ":1" if b else sw for sw in switches]
        outs[b] = _body(fn, gd, node_def, "%s/%s/" % (name, where), ins, pivots[b])
    merges = []
    for k, t in enumerate(op.outputs):
        merges.append(_add(gd, "%s/Merge_%d" % (name, k), "Merge", [outs[0][k], outs[1][k]], T=t.dtype, N=2).name)
    _identity_n(gd, op, merges)


def export_while(op, gd, node_def):
    a = op.attrs
    n, nc, name = a["n_vars"], a["n_captured"], op.name
    frame = name + "/while_context"
    inits = [_ref("%s:%d" % (t.op.name, t.value_index)) for t in op.inputs]
    dtypes = [t.dtype for t in op.inputs[:n]]
    if a["has_max"]:  # the bound: a counter as one more loop variable
        inits.insert(n, _const(gd, name + "/iteration_counter", 0))
        dtypes.append(_INT32)
    m = len(dtypes)
    enter = dict(frame_name=frame, is_constant=False, parallel_iterations=10)
    for k in range(m):
        _add(gd, "%s/Enter_%d" % (name, k), "Enter", [inits[k]], T=dtypes[k], **enter)
        _add(gd, "%s/Merge_%d" % (name, k), "Merge", ["%s/Enter_%d" % (name, k), "%s/NextIteration_%d" % (name, k)],
             T=dtypes[k], N=2)
    caps = []
    for j in range(nc):
        t = op.inputs[n + j]
        caps.append(_add(gd, "%s/captured_%d" % (name, j), "Enter", [inits[n + (1 if a["has_max"] else 0) + j]],
                         T=t.dtype, frame_name=frame, is_constant=True, parallel_iterations=10).name)
    merges = ["%s/Merge_%d" % (name, k) for k in range(m)]
    keep_going = _body(a["cond"], gd, node_def, name + "/cond/", merges[:n] + caps, merges[0])[0]
    if a["has_max"]:
        limit = _add(gd, name + "/max_iterations", "Enter", [inits[-1]], T=_INT32, frame_name=frame, is_constant=True,
                     parallel_iterations=10).name
        below = _add(gd, name + "/below_max", "Less", [merges[n], limit], T=_INT32).name
        keep_going = _add(gd, name + "/keep_going", "LogicalAnd", [keep_going, below]).name
    _add(gd, name + "/LoopCond", "LoopCond", [keep_going])
    idents = []
    for k in range(m):
        _add(gd, "%s/Switch_%d" % (name, k), "Switch", [merges[k], name + "/LoopCond"], T=dtypes[k])
        idents.append(_add(gd, "%s/Identity_%d" % (name, k), "Identity", ["%s/Switch_%d:1" % (name, k)],
                           T=dtypes[k]).name)
    nexts = _body(a["body"], gd, node_def, name + "/body/", idents[:n] + caps, idents[0])
    if a["has_max"]:
        one = _const(gd, name + "/one", 1, idents[0])
        nexts.append(_add(gd, name + "/next_count", "Add", [idents[n], one], T=_INT32).name)
    exits = []
    for k in range(m):
        _add(gd, "%s/NextIteration_%d" % (name, k), "NextIteration", [nexts[k]], T=dtypes[k])
        exits.append(_add(gd, "%s/Exit_%d" % (name, k), "Exit", ["%s/Switch_%d" % (name, k)], T=dtypes[k]).name)
    _identity_n(gd, op, exits[:n])


def export_get_item(op, gd):
    """TensorListGetItem(list, i) (tinyflow's dense list): GatherV2(list, i, axis 0)."""
    lst, i = op.inputs
    axis = _add(gd, op.name + "/axis", "Const", [], dtype=_INT32, value=np.array(0, np.int32)).name
    _add(gd, op.name, "GatherV2", [_ref("%s:%d" % (lst.op.name, lst.value_index)),
                                   _ref("%s:%d" % (i.op.name, i.value_index)), axis],
         Tparams=lst.dtype, Tindices=i.dtype, Taxis=_INT32, batch_dims=0)


def export_set_item(op, gd):
    """TensorListSetItem(list, i, item): TensorScatterUpdate(list, [[i]], [item])."""
    lst, i, item = op.inputs
    dim = _add(gd, op.name + "/dim", "Const", [], dtype=_INT32, value=np.array(0, np.int32)).name
    row = _add(gd, op.name + "/row", "ExpandDims", [_ref("%s:%d" % (i.op.name, i.value_index)), dim],
               T=i.dtype, Tdim=_INT32).name
    idx = _add(gd, op.name + "/index", "ExpandDims", [row, dim], T=i.dtype, Tdim=_INT32).name
    upd = _add(gd, op.name + "/update", "ExpandDims", [_ref("%s:%d" % (item.op.name, item.value_index)), dim],
               T=item.dtype, Tdim=_INT32).name
    _add(gd, op.name, "TensorScatterUpdate", [_ref("%s:%d" % (lst.op.name, lst.value_index)), idx, upd],
         T=lst.dtype, Tindices=i.dtype)


def export_take_item(op, gd):
    """TensorListTakeItem(list, i) -> (list with row i zeroed, list[i]): a GatherV2 of the row and a
    TensorScatterUpdate of zeros, as the IdentityN of the two."""
    lst, i = op.inputs
    lst_ref, i_ref = _ref("%s:%d" % (lst.op.name, lst.value_index)), _ref("%s:%d" % (i.op.name, i.value_index))
    axis = _add(gd, op.name + "/axis", "Const", [], dtype=_INT32, value=np.array(0, np.int32)).name
    item = _add(gd, op.name + "/item", "GatherV2", [lst_ref, i_ref, axis], Tparams=lst.dtype, Tindices=i.dtype,
                Taxis=_INT32, batch_dims=0).name
    row = _add(gd, op.name + "/row", "ExpandDims", [i_ref, axis], T=i.dtype, Tdim=_INT32).name
    idx = _add(gd, op.name + "/index", "ExpandDims", [row, axis], T=i.dtype, Tdim=_INT32).name
    zeros = _add(gd, op.name + "/zeros", "ZerosLike", [item], T=lst.dtype).name
    upd = _add(gd, op.name + "/update", "ExpandDims", [zeros, axis], T=lst.dtype, Tdim=_INT32).name
    rest = _add(gd, op.name + "/rest", "TensorScatterUpdate", [lst_ref, idx, upd], T=lst.dtype,
                Tindices=i.dtype).name
    _identity_n(gd, op, [rest, item])
