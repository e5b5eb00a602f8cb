"""A TF1 while frame as one tf.while_loop, a TF1 cond as one tf.cond (see import_frames.py).

Loop: each Merge(Enter, NextIteration) is a loop variable entering with the Enter's input; the cond
function builds LoopCond's input from the Merges, the body builds each NextIteration's input from
the Switches' outputs 1; Exit(Switch:0) is the loop's output. Enter nodes with is_constant are the
loop's invariants (outer tensors the bodies capture). A TensorArray of unknown element shape that
enters unwritten gets its zeros from a probe: the body's nodes built once outside the loop on the
initial values, only for the shape of what it writes (dead code XLA drops).

Cond: one tf.cond per (pred, nesting level); a branch builds the input of each of the cond's Merges
that comes from its side; Merge output 1 (value_index) is computed from the pred.
"""
from tinyflow.api.tf_files.import_frames import Scope, err, parse_input
from tinyflow.api.tf_files.ops_table import _tf  # the tf.* builders (the op table's exemption from the layers)
from tinyflow.api.tf_files.tensor_arrays import ImportedTensorArray


def _loop_parts(builder, unit):
    a, frame = builder.a, unit[1]
    direct = [n for n in builder.members(unit) if a.frame[n.name] == frame]
    first = direct[0]
    merges = [n for n in direct if n.op == "Merge"]
    conds = [n for n in direct if n.op == "LoopCond"]
    if len(conds) != 1:
        raise err(first, "while-loop frame '%s' has %d LoopCond nodes, expected 1" % (frame, len(conds)))
    switches = {parse_input(n.input[0])[0]: n for n in direct if n.op == "Switch"}
    exits = {parse_input(n.input[0])[0]: n for n in direct if n.op == "Exit"}
    loop_vars = []
    for m in merges:
        if not a.is_loop_merge(m):
            continue
        ins = [a.by_name[parse_input(i)[0]] for i in m.input if not i.startswith("^")]
        enter = [n for n in ins if n.op == "Enter"][0]
        nxt = [n for n in ins if n.op == "NextIteration"][0]
        sw = switches.get(m.name)
        if sw is None or parse_input(sw.input[1])[0] != conds[0].name:
            raise err(m, "loop variable of frame '%s' has no Switch on the loop's LoopCond" % frame)
        loop_vars.append((m, enter, nxt, sw, exits.get(sw.name)))
    var_enters = {v[1].name for v in loop_vars}
    invariants = []
    for n in direct:
        if n.op == "Enter" and a.by_name[parse_input(n.input[0])[0]].op == "StackV2":
            continue  # a gradient's stack (its pushes are never built: see build_grad_loop)
        if n.op == "Enter" and n.name not in var_enters:
            if not (n.attr["is_constant"].b if "is_constant" in n.attr else False):
                raise err(n, "Enter node that is not constant and feeds no loop variable (Merge) of frame '%s'"
                          % frame)
            invariants.append(n)
    if not loop_vars:
        raise err(first, "while-loop frame '%s' has no loop variable" % frame)
    for n in direct:
        if n.op == "Switch" and n not in [v[3] for v in loop_vars]:
            if a.is_loop_switch(n):
                raise err(n, "Switch on the LoopCond of frame '%s' whose input is not a loop variable" % frame)
    return conds[0], loop_vars, invariants


def _flat(v):
    return v.flow if isinstance(v, ImportedTensorArray) else v


def build_loop(builder, scope, unit):
    tf, a, frame = _tf(), builder.a, unit[1]
    loop_cond, loop_vars, invariants = _loop_parts(builder, unit)
    inits = [builder.value(scope, e.input[0], e) for _, e, _, _, _ in loop_vars]
    fixed = {n.name: builder.value(scope, n.input[0], n) for n in invariants}
    ctx = a.frame_ctx[frame]

    def seeded(values, body):
        s = Scope(frame, ctx, scope)
        for (m, e, _, sw, _), v in zip(loop_vars, values):
            s.env[m.name] = ([v, None], None)
            if body:
                s.env[sw.name] = ([v, v], None)
        for name, v in fixed.items():
            s.env[name] = ([v], None)
        return s

    def body_values(s):
        nexts = [nx for _, _, nx, _, _ in loop_vars]
        builder.build_scope(s, [parse_input(nx.input[0])[0] for nx in nexts], nexts[0])
        return [builder.value(s, nx.input[0], nx) for nx in nexts]

    # TensorArrays entering unwritten with an unknown element shape: the body shows what it writes
    lazy = [k for k, v in enumerate(inits) if isinstance(v, ImportedTensorArray) and v.flow is None]
    if lazy:
        probes = list(inits)
        for k in lazy:
            probes[k] = inits[k].with_flow(None)
            probes[k].probe = []
        with tf.get_default_graph().name_scope(builder.prefix + frame.rsplit("/", 1)[0] + "/probe"):
            try:
                body_values(seeded(probes, True))
            except Exception as e:
                raise err(loop_vars[0][0], "could not find the element shape of a TensorArray entering frame "
                          "'%s' unwritten: %s" % (frame, e)) from None
        for k in lazy:
            if not probes[k].probe:
                raise err(loop_vars[k][0], "a TensorArray enters frame '%s' unwritten, without an element shape, and "
                          "the body writes nothing to it" % frame)
            inits[k] = inits[k].with_flow(inits[k].zeros_like_element(probes[k].probe[0]))

    def rewrap(flat):
        return [init.with_flow(t) if isinstance(init, ImportedTensorArray) else t for init, t in zip(inits, flat)]

    def cond_fn(*flat):
        s = seeded(rewrap(flat), False)
        builder.build_scope(s, [parse_input(loop_cond.input[0])[0]], loop_cond)
        return builder.value(s, loop_cond.input[0], loop_cond)

    def body_fn(*flat):
        outs = body_values(seeded(rewrap(flat), True))
        for (m, _, nx, _, _), o, init in zip(loop_vars, outs, inits):
            if isinstance(init, ImportedTensorArray) != isinstance(o, ImportedTensorArray):
                raise err(nx, "loop variable '%s' changes between a TensorArray and a tensor" % m.name)
        return [_flat(o) for o in outs]

    outs = tf.while_loop(cond_fn, body_fn, [_flat(v) for v in inits], return_same_structure=True,
                         name=builder.prefix + frame.rsplit("/", 1)[0])
    outs = rewrap(list(outs))
    op = next((o.op for o in outs if not isinstance(o, ImportedTensorArray)), None)
    for (m, _, _, _, ex), o in zip(loop_vars, outs):
        if ex is not None:
            scope.env[ex.name] = ([o], op)
    builder.loops[frame] = {"op": op, "exits": {ex.name: k for k, (_, _, _, _, ex) in enumerate(loop_vars) if ex},
                            "enters": {e.name: k for k, (_, e, _, _, _) in enumerate(loop_vars)},
                            "fixed": fixed, "is_ta": [isinstance(v, ImportedTensorArray) for v in inits]}


# ---- TF's gradient of a while loop: tinyflow's own ---------------------------------------------------
def _named_after(name, names):
    """The name in `names` that TF's gradient code named `name` after ('.../<that>_grad/...')."""
    hits = [x for x in names if "/%s_grad/" % x in "/" + name]
    return max(hits, key=len) if hits else None


def grad_loop_inputs(builder, unit):
    """The Enter nodes of TF's gradient loop that bring in the gradients of the forward loop's Exits."""
    a = builder.a
    return [n for n in builder.members(unit) if a.frame[n.name] == unit[1] and n.op == "Enter"
            and n.name.endswith("_grad/b_exit")]


def build_grad_loop(builder, scope, unit):
    """TF's gradient frame of a while loop (stacks pushed in the forward loop, popped here) is not run
    as it is: its Exits are the gradients, with respect to the forward loop's inputs, that tinyflow's
    own gradient rule of the forward While op computes from the same incoming gradients."""
    tf, a = _tf(), builder.a
    fwd = builder.loops.get(a.grad_of[unit[1]])
    if fwd is None or fwd["op"] is None:
        raise err(builder.members(unit)[0], "the forward loop of gradient frame '%s' was not imported" % unit[1])
    op = fwd["op"]
    grads = [None] * len(op.outputs)
    for e in grad_loop_inputs(builder, unit):
        exit_name = _named_after(e.name, fwd["exits"])
        if exit_name is None:
            raise err(e, "cannot tell which Exit of the forward loop this gradient enters for")
        k = fwd["exits"][exit_name]
        g = builder.value(scope, e.input[0], e)
        if fwd["is_ta"][k]:  # TF's gradient of a TensorArray's flow: zeros unless TensorArrayGrad is used
            if g.op.type not in ("Const", "Fill", "ZerosLike"):
                raise err(e, "a gradient through a TensorArray loop variable is not supported by tinyflow's importer")
            continue
        grads[k] = g
    grads = [tf.zeros_like(o) if g is None and o.dtype.is_floating else g for g, o in zip(grads, op.outputs)]
    from tinyflow.graph.registry import get_op_def
    gin = get_op_def(op.type).grad(op, *grads)
    n = op.attrs["n_vars"]
    captured = list(op.inputs[n:n + op.attrs["n_captured"]])
    for ex in builder.members(unit):
        if a.frame[ex.name] != unit[1] or ex.op != "Exit":
            continue
        enter = _named_after(ex.name, list(fwd["enters"]) + list(fwd["fixed"]))
        if enter is None:
            continue  # TF's own bookkeeping (the loop counter): nothing outside reads it
        if enter in fwd["enters"]:
            i = fwd["enters"][enter]
        else:
            t = fwd["fixed"][enter]
            i = next((n + j for j, c in enumerate(captured) if c is t), None)
        g = gin[i] if i is not None else None
        if g is None:
            like = op.inputs[i] if i is not None else fwd["fixed"][enter]
            g = tf.zeros_like(like)
        scope.env[ex.name] = ([g], g.op)


def build_cond(builder, scope, unit):
    tf, a = _tf(), builder.a
    _, frame, ctx, pred_inp, _ = unit
    members = builder.members(unit)
    merges = [n for n in members if n.op == "Merge" and not a.is_loop_merge(n) and a.ctx[n.name] == ctx]
    switches = [n for n in members if n.op == "Switch" and not a.is_loop_switch(n) and a.ctx[n.name] == ctx
                and a.pred_of(n) == pred_inp]
    if not merges:
        return  # nothing leaves the cond: its nodes cannot run
    pred = builder.value(scope, pred_inp, switches[0] if switches else merges[0])

    def side_input(m, b):
        for inp in m.input:
            if inp.startswith("^"):
                continue
            src, idx, _ = parse_input(inp)
            if a.input_ctx(a.by_name[src], idx)[len(ctx)] == (pred_inp, b):
                return inp
        raise err(m, "no input from the %s branch" % ("true" if b else "false"))

    def branch(b, select=False):
        def fn():
            s = Scope(frame, ctx + ((pred_inp, b),), scope)
            if select:
                s.select = tf.logical_not(pred) if b == 0 else pred
            for sw in switches:
                d = builder.value(scope, sw.input[0], sw)
                if isinstance(d, ImportedTensorArray):
                    raise err(sw, "a TensorArray through a tf.cond is not supported by tinyflow's importer")
                s.env[sw.name] = ([d, d], None)
            ins = [side_input(m, b) for m in merges]
            builder.build_scope(s, [parse_input(i)[0] for i in ins], merges[0])
            outs = [builder.value(s, i, m) for i, m in zip(ins, merges)]
            for o, m in zip(outs, merges):
                if isinstance(o, ImportedTensorArray):
                    raise err(m, "a TensorArray through a tf.cond is not supported by tinyflow's importer")
            return outs
        return fn

    if any(n.op in _UPDATES for n in members):  # tinyflow updates no variable inside a branch: select form
        outs = _select_form(builder, pred, branch)
        op = None
    else:
        name = builder.prefix + merges[0].name.rsplit("/", 1)[0] if "/" in merges[0].name else None
        outs = tf.cond(pred, branch(1), branch(0), strict=True, name=name)
        op = outs[0].op
    for m, o in zip(merges, outs):
        op = op if op is not None else o.op
        first_true = a.input_ctx(*_src(a, m.input[0]))[len(ctx)][1] == 1
        index = tf.cast(tf.logical_not(pred) if first_true else pred, tf.int32)
        scope.env[m.name] = ([o, index], op)


_UPDATES = ("Assign", "AssignAdd", "AssignSub", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp")


def _select_form(builder, pred, branch):
    """A cond whose branches update variables (TF's batch norm moving averages under `is_training`):
    both branches' ops run, each update writes its new value only where its branch is taken
    (import_build.build_node reads Scope.select), and each Merge selects by the predicate."""
    tf = _tf()
    ones, zeros = branch(1, True)(), branch(0, True)()
    return [tf.where_v2(pred, t, f) for t, f in zip(ones, zeros)]


def conditional_update(node, select, ref, value):
    """An Assign/AssignAdd/AssignSub of a branch in select form: the variable keeps its value unless
    the branch is taken."""
    tf = _tf()
    kind = node.op.replace("VariableOp", "")  # AssignVariableOp: Assign, AssignAddVariableOp: AssignAdd
    new = {"Assign": lambda: value, "AssignAdd": lambda: ref + value, "AssignSub": lambda: ref - value}[kind]()
    out = tf.assign(ref, tf.where_v2(select, new, ref))
    return out if kind == node.op else out.op


def _src(a, inp):
    src, idx, _ = parse_input(inp)
    return a.by_name[src], idx
