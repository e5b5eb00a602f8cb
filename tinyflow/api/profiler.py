"""tf.profiler (TF 1.15): parameter counts and float-operation counts of a graph, as TF's profiler reports
them (tfprof's "scope" view: one child per op or variable, totals at the root).

Parameters: the elements of the trainable variables (ProfileOptionBuilder.trainable_variables_parameter).
FLOPs: TF's registered formulas (profiler/internal/flops_registry.py) for the ops that have one -- MatMul
2*m*n*k, element-wise ops their output's size, reductions in - out (+ out for Mean), BiasAdd, AddN,
Softmax 5/element, L2Loss 3n-1, Conv2D 2*out*kh*kw*in, pools kernel area * out -- counted only where the
shapes are fully known; ops without a formula (AddV2, Relu, ...) count 0 as in TF. Timing and memory
(time_and_memory) need TF's step stats, which tinyflow does not have: that view reports 0 times and bytes.
"""
import math
import re
import sys

from tinyflow.graph.core import GraphKeys, get_default_graph

_ELEMENTWISE = {"Add": 1, "Sub": 1, "Mul": 1, "RealDiv": 1, "Maximum": 1, "Minimum": 1, "Pow": 1,
                "SquaredDifference": 2, "Equal": 1, "NotEqual": 1, "Greater": 1, "GreaterEqual": 1, "Less": 1,
                "LessEqual": 1, "BiasAdd": 1, "AssignAdd": 1, "AssignSub": 1, "RsqrtGrad": 4}
_UNARY = {"Reciprocal": 1, "Square": 1, "Rsqrt": 2, "Log": 1, "Neg": 1, "Softmax": 5}
_REDUCE = {"Sum": 0, "Mean": 1, "ArgMax": 0, "ArgMin": 0, "BiasAddGrad": 0}


def _size(tensor):
    shape = tensor.shape
    if shape.dims is None or not shape.is_fully_defined():
        return None
    return math.prod(shape.as_list())


def _flops(op):
    """TF's flops of one op, or None (no formula, or shapes not fully known)."""
    t = op.type
    out = op.outputs[0] if op.outputs else None
    if t in _ELEMENTWISE:
        n = _size(out)
        return None if n is None else n * _ELEMENTWISE[t]
    if t in _UNARY or t == "L2Loss":
        n = _size(op.inputs[0])
        return None if n is None else (3 * n - 1 if t == "L2Loss" else n * _UNARY[t])
    if t in _REDUCE:
        n, m = _size(op.inputs[0]), _size(out)
        return None if n is None or m is None else n + m * (_REDUCE[t] - 1)
    if t == "AddN":
        n = _size(out)
        return None if n is None else n * (len(op.inputs) - 1)
    if t in ("MatMul", "BatchMatMul", "BatchMatMulV2"):
        a = op.inputs[0].shape
        if not a.is_fully_defined() or _size(out) is None:
            return None
        transpose = op.get_attr("transpose_a") if t == "MatMul" else op.get_attr("adj_x")
        k = a.as_list()[-2 if transpose else -1]
        return 2 * k * _size(out)
    if t in ("Conv2D", "DepthwiseConv2dNative"):
        f = op.inputs[1].shape
        if not f.is_fully_defined() or _size(out) is None:
            return None
        kh, kw, cin = f.as_list()[:3]
        return 2 * _size(out) * kh * kw * (cin if t == "Conv2D" else 1)
    if t in ("MaxPool", "AvgPool"):
        n = _size(out)
        return None if n is None else n * math.prod(op.get_attr("ksize"))
    return None


class GraphNodeProto:
    """tfprof's result node: name, parameters/total_parameters, float_ops/total_float_ops, children."""

    def __init__(self, name, parameters=0, float_ops=0, children=()):
        self.name = name
        self.parameters = self.total_parameters = parameters
        self.float_ops = self.total_float_ops = float_ops
        self.exec_micros = self.total_exec_micros = 0
        self.requested_bytes = self.total_requested_bytes = 0
        self.children = list(children)
        if self.children:
            self.total_parameters = sum(c.total_parameters for c in self.children)
            self.total_float_ops = sum(c.total_float_ops for c in self.children)


class ProfileOptionBuilder:
    """Builds tfprof's options (dicts); the three presets are TF's."""

    @staticmethod
    def trainable_variables_parameter():
        return _options(account_type_regexes=["_trainable_variables"], select=["params"], order_by="name",
                        min_bytes=0, min_micros=0)

    @staticmethod
    def float_operation():
        return _options(min_float_ops=1, select=["float_ops"], order_by="float_ops", min_bytes=0, min_micros=0)

    @staticmethod
    def time_and_memory(min_micros=1, min_bytes=1, min_accelerator_micros=0, min_cpu_micros=0,
                        min_peak_bytes=0, min_residual_bytes=0, min_output_bytes=0):
        return _options(min_micros=min_micros, min_bytes=min_bytes, min_accelerator_micros=min_accelerator_micros,
                        min_cpu_micros=min_cpu_micros, min_peak_bytes=min_peak_bytes,
                        min_residual_bytes=min_residual_bytes, min_output_bytes=min_output_bytes,
                        select=["micros", "bytes"], order_by="micros")

    def __init__(self, options=None):
        self._options = dict(options) if options is not None else _options()

    def build(self):
        return dict(self._options)

    def with_max_depth(self, max_depth):
        self._options["max_depth"] = max_depth
        return self

    def with_min_float_operations(self, min_float_ops):
        self._options["min_float_ops"] = min_float_ops
        return self

    def select(self, attributes):
        self._options["select"] = list(attributes)
        return self

    def order_by(self, attribute):
        self._options["order_by"] = attribute
        return self

    def with_empty_output(self):
        self._options["output"] = "none"
        return self

    def with_stdout_output(self):
        self._options["output"] = "stdout"
        return self

    def account_displayed_op_only(self, is_true):
        self._options["account_displayed_op_only"] = is_true
        return self

    def with_node_names(self, start_name_regexes=None, show_name_regexes=None, hide_name_regexes=None,
                        trim_name_regexes=None):
        for key, value in (("start_name_regexes", start_name_regexes), ("show_name_regexes", show_name_regexes),
                           ("hide_name_regexes", hide_name_regexes), ("trim_name_regexes", trim_name_regexes)):
            if value is not None:
                self._options[key] = list(value)
        return self


def _options(**kwargs):
    base = {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0, "min_float_ops": 0,
            "min_occurrence": 0, "order_by": "name", "account_type_regexes": [".*"],
            "start_name_regexes": [".*"], "trim_name_regexes": [], "show_name_regexes": [".*"],
            "hide_name_regexes": [], "account_displayed_op_only": True, "select": ["micros"], "step": -1,
            "output": "stdout"}
    base.update(kwargs)
    return base


def profile(graph=None, run_meta=None, op_log=None, cmd="scope", options=None):
    """The root GraphNodeProto of tfprof's scope view for `options` (params or float_ops, see the module)."""
    graph = graph or get_default_graph()
    options = options or _options()
    select = set(options.get("select", []))
    children = []
    if "params" in select:
        trainable = "_trainable_variables" in options.get("account_type_regexes", [])
        variables = graph.get_collection(GraphKeys.TRAINABLE_VARIABLES if trainable else GraphKeys.GLOBAL_VARIABLES)
        for v in variables:
            n = _size(v) or 0
            if n >= options.get("min_params", 0):
                children.append(GraphNodeProto(v.op.name, parameters=n))
    if "float_ops" in select:
        for op in graph.get_operations():
            n = _flops(op)
            if n is not None and n >= max(options.get("min_float_ops", 0), 1):
                children.append(GraphNodeProto(op.name, float_ops=n))
    show = [re.compile(r) for r in options.get("show_name_regexes", [".*"])]
    children = [c for c in children if any(r.fullmatch(c.name) for r in show)]
    children.sort(key=lambda c: c.name)
    root = GraphNodeProto("_TFProfRoot", children=children)
    if options.get("output", "stdout").startswith("stdout"):
        _report(root, select)
    return root


def _report(root, select):
    key = "params" if "params" in select else "flops"
    value = (lambda n: n.total_parameters) if key == "params" else (lambda n: n.total_float_ops)
    lines = ["node name | # %s" % ("parameters" if key == "params" else "float_ops"),
             "_TFProfRoot (--/%d %s)" % (value(root), key)]
    lines += ["  %s (%d/%d %s)" % (c.name, value(c), value(c), key) for c in root.children]
    sys.stdout.write("\n".join(lines) + "\n")



# ---- tf.profiler.Profiler, advise, write_op_log: tfprof's views as its protos (tensorflow.tfprof) ----------
def _protos():
    from tinyflow.formats import tf_protos
    return tf_protos


def __getattr__(name):
    """AdviceProto, MultiGraphNodeProto, OpLogProto: tfprof's messages, built on first use."""
    if name in ("AdviceProto", "MultiGraphNodeProto", "OpLogProto"):
        return getattr(_protos(), name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def _accounted(graph, options):
    """{op name: (op type, parameters, float_ops)} of the ops the options account (the trainable
    variables only for `_trainable_variables`): what every view adds up."""
    trainable_only = "_trainable_variables" in options.get("account_type_regexes", [".*"])
    variables = {v.op.name: _size(v) or 0 for v in graph.get_collection(
        GraphKeys.TRAINABLE_VARIABLES if trainable_only else GraphKeys.GLOBAL_VARIABLES)}
    out = {}
    for op in graph.get_operations():
        if op.name in variables:
            out[op.name] = (op.type, variables[op.name], 0)
        elif not trainable_only:
            out[op.name] = (op.type, 0, _flops(op) or 0)
    return out


def _shown(options, params, flops):
    return params >= options.get("min_params", 0) and flops >= options.get("min_float_ops", 0)


def _fill(node, name, params, flops, children):
    node.name, node.parameters, node.float_ops = name, params, flops
    node.total_parameters = params + sum(c.total_parameters for c in children)
    node.total_float_ops = flops + sum(c.total_float_ops for c in children)
    for c in children:
        node.children.add().CopyFrom(c)
    return node


def _tree(names, parents, values, options):
    """GraphNodeProto roots of the nodes `names` (parents[n]: its parents' list; values[n]: (params,
    flops) of an accounted node, absent otherwise): a hidden node's shown descendants move up to the
    nearest shown ancestor, as tfprof displays a tree; children in the `order_by` order."""
    order = {"float_ops": lambda g: (-g.total_float_ops, g.name),
             "params": lambda g: (-g.total_parameters, g.name)}.get(options.get("order_by"), lambda g: g.name)
    kids = {}
    for n in names:
        for p in parents.get(n, ()):
            kids.setdefault(p, []).append(n)
    seen = set()

    def build(n):
        seen.add(n)
        below = sorted([c for k in sorted(kids.get(n, ())) if k not in seen for c in build(k)], key=order)
        params, flops = values.get(n, (0, 0))
        if (n in values or below) and _shown(options, params, flops):   # accounted, or above accounted ones
            return [_fill(_protos().GraphNodeProto(), n, params, flops, below)]
        return below
    roots = [n for n in names if not any(p in names for p in parents.get(n, ()))]
    return sorted([c for r in sorted(roots) if r not in seen for c in build(r)], key=order)


class Profiler:
    """tfprof's profiler over a graph (TF 1.15's tf.profiler.Profiler): the scope, graph and op views of
    parameters and float operations, as TF's `profile_*` return them. Times and memory need TF's step
    stats (RunMetadata) of a traced run, which tinyflow has not: add_step keeps them, the views count 0."""

    def __init__(self, graph=None, op_log=None):
        self._graph = graph or get_default_graph()
        self._op_log, self._steps = op_log, {}

    def add_step(self, step, run_meta):
        self._steps[step] = run_meta

    def _root(self, options, proto, children):
        root = _fill(proto, "_TFProfRoot", 0, 0, children)
        if options.get("output", "stdout").startswith("stdout"):
            _report(root, set(options.get("select", [])))
        return root

    def profile_name_scope(self, options):
        """The scope view: a node per name scope and op, nested by name."""
        options = dict(_options(), **options)
        values = {n: (p, f) for n, (_, p, f) in _accounted(self._graph, options).items()}
        names = set(values)
        for n in list(values):
            parts = n.split("/")
            names.update("/".join(parts[:i]) for i in range(1, len(parts)))
        parents = {n: ["/".join(n.split("/")[:-1])] for n in names if "/" in n}
        return self._root(options, _protos().GraphNodeProto(), _tree(sorted(names), parents, values, options))

    def profile_graph(self, options):
        """The graph view: a node per op, its inputs below it, from the graph's outputs."""
        options = dict(_options(), **options)
        values = {n: (p, f) for n, (_, p, f) in _accounted(self._graph, options).items()}
        ops = self._graph.get_operations()
        names = [op.name for op in ops]
        # an op's "parents" in the view are the ops reading it (its consumers)
        parents = {}
        for op in ops:
            for t in op.inputs:
                parents.setdefault(t.op.name, []).append(op.name)
        return self._root(options, _protos().GraphNodeProto(), _tree(set(names), parents, values, options))

    def profile_operations(self, options):
        """The op view: a node per op type (its ops as graph_nodes), each the child of the one before in
        the `order_by` order, so a node's totals count it and the types after it."""
        options = dict(_options(), **options)
        by_type = {}
        for name, (kind, params, flops) in _accounted(self._graph, options).items():
            group = by_type.setdefault(kind, [0, 0, []])
            group[0] += params
            group[1] += flops
            group[2].append(_fill(_protos().GraphNodeProto(), name, params, flops, []))
        key = {"float_ops": lambda k: (-by_type[k][1], k), "params": lambda k: (-by_type[k][0], k)}.get(
            options.get("order_by"), lambda k: k)
        kinds = [k for k in sorted(by_type, key=key) if _shown(options, *by_type[k][:2])]
        below = []
        for kind in reversed(kinds):
            params, flops, nodes = by_type[kind]
            node = _fill(_protos().MultiGraphNodeProto(), kind, params, flops, below)
            node.graph_nodes.extend(sorted(nodes, key=lambda g: g.name))
            below = [node]
        return self._root(options, _protos().MultiGraphNodeProto(), below)

    def advise(self, options):
        """An AdviceProto with a (here empty) report per requested checker: TF's checkers read the step
        stats of traced runs, which tinyflow does not record."""
        advice = _protos().AdviceProto()
        for checker in options:
            advice.checkers[checker].CopyFrom(_protos().AdviceProto.Checker())
        return advice



_ALL_ADVICE = {"ExpensiveOperationChecker": {}, "AcceleratorUtilizationChecker": {}, "JobChecker": {},
              "OperationChecker": {}}


def advise(graph=None, run_meta=None, options=0):
    """tf.profiler.advise: TF 1.15's default checkers' AdviceProto (empty reports: see Profiler.advise)."""
    return Profiler(graph).advise({k: {} for k in _ALL_ADVICE if k != "JobChecker"} if options == 0 else options)


def write_op_log(graph, log_dir, op_log=None, run_meta=None, add_trace=True):
    """Writes log_dir/tfprof_log: an OpLogProto with each op's float operations and the trainable
    variables' type, merged into `op_log` (TF's; add_trace's Python tracebacks are not recorded)."""
    import os
    from tinyflow.api import gfile
    log = _protos().OpLogProto()
    if op_log is not None:
        log.CopyFrom(op_log)
    entries = {e.name: e for e in log.log_entries}
    trainable = [v.op.name for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)]
    for op in graph.get_operations():
        flops = _flops(op)
        if flops and op.name not in trainable:
            entry = entries.get(op.name) or log.log_entries.add(name=op.name)
            entry.float_ops = flops
    for name in trainable:
        entry = entries.get(name) or log.log_entries.add(name=name)
        if "_trainable_variables" not in entry.types:
            entry.types.append("_trainable_variables")
    log.id_to_string[0] = "none"
    gfile.MakeDirs(log_dir)
    with gfile.GFile(os.path.join(log_dir, "tfprof_log"), "wb") as f:
        f.write(log.SerializeToString())
