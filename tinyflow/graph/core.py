"""The graph IR: Graph, Operation, Tensor; the default-graph stack, name scopes, control
dependencies and collections, with TF1's naming rules. No JAX here.

An Operation is created by `Graph.create_op`, which looks up the op's OpDef, runs its dtype and
shape rules on the inputs (so every tensor has a static shape at construction) and records it.
Ops are stored in creation order, which is a topological order: an op's inputs and control inputs
always exist before it.
"""
import contextlib
import re
import threading

import numpy as np

from tinyflow.graph import dtypes as _dt
from tinyflow.graph.backend import NotFoldable, backend
from tinyflow.graph.registry import get_op_def
from tinyflow.graph.shapes import TensorShape, as_shape


class GraphKeys:
    """Standard collection names (TF's)."""
    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    LOSSES = "losses"
    SUMMARIES = "summaries"
    UPDATE_OPS = "update_ops"
    GLOBAL_STEP = "global_step"
    TRAIN_OP = "train_op"
    INIT_OP = "init_op"
    SAVERS = "savers"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ACTIVATIONS = "activations"
    WEIGHTS = "weights"
    BIASES = "biases"
    ASSET_FILEPATHS, CONCATENATED_VARIABLES, COND_CONTEXT = "asset_filepaths", "concatenated_variables", "cond_context"
    EVAL_STEP, LOCAL_INIT_OP, LOCAL_RESOURCES, READY_OP = "eval_step", "local_init_op", "local_resources", "ready_op"
    READY_FOR_LOCAL_INIT_OP, RESOURCES, SAVEABLE_OBJECTS = "ready_for_local_init_op", "resources", "saveable_objects"
    SUMMARY_OP, TABLE_INITIALIZERS, WHILE_CONTEXT = "summary_op", "table_initializer", "while_context"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"


class ShapeError(ValueError):
    """Raised by a shape rule; create_op adds TF's ' for 'name' (op: 'Type') with input shapes' tail."""


class Tensor:
    """One output of an Operation: a symbolic value with a dtype and a (possibly partial) static shape."""

    # numpy must defer to our reflected operators (np.float32(2) * tensor -> tensor).
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = as_shape(shape)
        self._consumers = []

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._value_index)
    dtype = property(lambda self: self._dtype)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: "")

    @property
    def name(self):
        return "%s:%d" % (self._op.name, self._value_index)

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape (ValueError if incompatible), as TF's set_shape."""
        self._shape = self._shape.merge_with(as_shape(shape))

    def consumers(self):
        return list(self._consumers)

    def eval(self, feed_dict=None, session=None):
        """Runs this tensor in `session` (default: the default session)."""
        return session_for(session, self).run(self, feed_dict)

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self._shape, self._dtype.name)

    def __str__(self):  # TF1: Tensor("mul:0", shape=(2, ?), dtype=float32)
        return 'Tensor("%s", shape=%s, dtype=%s)' % (self.name, self._shape, self._dtype.name)

    # TF1: tensors compare and hash by identity (tf.equal is the op); object's C slots keep the
    # Session.run hot path, which hashes fetches and feed keys, fast.
    __hash__ = object.__hash__
    __eq__ = object.__eq__

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` "
                        "instead of `if t:` to test if a tensor is defined, and use TensorFlow ops such as "
                        "tf.cond to execute subgraphs conditioned on the value of a tensor.")

    def __iter__(self):
        shape = self._shape
        if shape.ndims is None or shape[0].value is None:
            raise TypeError("Tensor objects are only iterable when the first dimension is known.")
        return (self[i] for i in range(shape[0].value))

    def __len__(self):
        raise TypeError("len is not well defined for symbolic Tensors. (%s) Please call `x.shape` rather "
                        "than `len(x)` for shape information." % self.name)

    def _as_graph_element(self):
        return self


class Operation:
    """A node of the graph: its type, inputs, attrs, control inputs and output tensors."""

    def __init__(self, graph, op_type, name, inputs, attrs, control_inputs):
        self._graph = graph
        self._type = op_type
        self._name = name
        self._inputs = tuple(inputs)
        self.attrs = dict(attrs)
        self._control_inputs = tuple(control_inputs)
        self._outputs = ()
        self._id = None  # creation index in the graph: a topological order

    # The IR passes read (a pass never needs a private name): inputs and control_inputs are tuples,
    # outputs a new list (TF's builders return it); index is the creation index, a topological
    # order; opdef holds the op type's rules.
    graph = property(lambda self: self._graph)
    type = property(lambda self: self._type)
    name = property(lambda self: self._name)
    inputs = property(lambda self: self._inputs)
    outputs = property(lambda self: list(self._outputs))
    control_inputs = property(lambda self: self._control_inputs)
    index = property(lambda self: self._id)
    device = property(lambda self: "")
    opdef = property(lambda self: get_op_def(self._type))
    op_def = opdef

    @property
    def node_def(self):
        return {"name": self._name, "op": self._type, "input": [t.name for t in self._inputs]
                + ["^" + c.name for c in self._control_inputs], "attr": dict(self.attrs)}

    def values(self):
        """The outputs of this op, as a tuple (TF's Operation.values())."""
        return tuple(self._outputs)

    def get_attr(self, name):
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError("Operation '%s' has no attr named '%s'." % (self._name, name)) from None

    def _add_control_input(self, op):
        if op not in self._control_inputs:
            if op._id > self._id:
                raise ValueError("A control input must be created before the op it controls.")
            self._control_inputs += (op,)

    def run(self, feed_dict=None, session=None):
        """Runs this op in `session` (default: the default session)."""
        session_for(session, self).run(self, feed_dict)

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self._name, self._type)

    def _as_graph_element(self):
        return self


# TF 1.15's rules (ops.py _VALID_OP_NAME_REGEX / _VALID_SCOPE_NAME_REGEX; no '>' in 1.15), ASCII
# only: "x\u00b2" and "\ufb01lter" are not valid names, so no two legal names are equal after
# Unicode normalisation.
_VALID_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/]*\Z")  # \Z: not even a trailing newline
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/]*\Z")


def _check_name_part(name, in_scope):
    """A name the user gave an op or scope: at the root it must be a valid op name, inside a scope a
    valid scope name (TF's rule and message)."""
    if name and not (_VALID_SCOPE_NAME if in_scope else _VALID_NAME).match(name):
        raise ValueError("'%s' is not a valid scope name" % name)


class Graph:
    """A TF1 graph: ops in creation order, names, scopes, control dependencies and collections."""

    def __init__(self):
        self._ops = []
        self._by_name = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._control_stack = []  # list of lists of ops (None entry clears)
        self._collections = {}
        self._finalized = False
        self.seed = None
        self._lock = threading.Lock()
        self._variable_store = None  # used by variable_scope (nn layer)
        self._host_stage = False  # holds string or queue ops: Session.run stages them (runtime/host_stage.py)
        self._gradient_overrides = {}  # gradient_override_map: op type -> the registered gradient's name

    # ---- ops -----------------------------------------------------------------------------------
    def create_op(self, op_type, inputs, attrs=None, name=None, dtypes=None):
        """Creates an op of a registered type: runs its dtype and shape rules, names it, records it.

        Inputs must be Tensors of this graph. Raises ValueError (TF's wording) when the shape rule
        rejects the input shapes.
        """
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        opdef = get_op_def(op_type)
        attrs = dict(attrs or {})
        if op_type in self._gradient_overrides:  # TF's private attr: passes/gradients reads it
            attrs["_gradient_op_type"] = self._gradient_overrides[op_type]
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError("Input to op '%s' must be a Tensor, got %r" % (op_type, t))
            if t.graph is not self:
                raise ValueError("Tensor %s must be from the same graph as the op being created (%s)."
                                 % (t.name, op_type))
        if name and name.endswith("/"):  # a name scope's own name: used exactly, as in TF
            name = name[:-1]
            if name in self._by_name:
                raise ValueError("Duplicate node name in graph: '%s'" % name)
            self._names_in_use.setdefault(name.lower(), 1)
        else:
            _check_name_part(name, bool(self._name_stack))  # before the name is marked as used
            name = self.unique_name(name or op_type)
        if not _VALID_NAME.match(name):
            raise ValueError("'%s' is not a valid node name" % name)
        op = Operation(self, op_type, name, inputs, attrs, self._current_control_inputs(inputs))
        out_dtypes = dtypes or opdef.dtype([t.dtype for t in inputs], attrs)
        try:
            shapes = opdef.shape([t.shape for t in inputs], attrs, [constant_value(t) for t in inputs])
        except ShapeError as e:
            raise ValueError("%s for '%s' (op: '%s') with input shapes: %s." % (
                str(e).rstrip("."), name, op_type, ", ".join(t.shape.as_proto_str() for t in inputs))) from None
        if len(shapes) != len(out_dtypes):
            raise AssertionError("%s: shape rule gave %d outputs, dtype rule %d" % (op_type, len(shapes),
                                                                                    len(out_dtypes)))
        op._outputs = tuple(Tensor(op, i, _dt.as_dtype(d), s) for i, (d, s) in enumerate(zip(out_dtypes, shapes)))
        if not self._host_stage and (opdef.host_stage is not None or (
                opdef.host is None and opdef.host_compute is None and any(t.dtype is _dt.string for t in op._outputs))):
            self._host_stage = True  # XLA has no strings, files or queues: runs may need the host stage
        with self._lock:
            op._id = len(self._ops)
            self._ops.append(op)
            self._by_name[name] = op
        for t in inputs:
            t._consumers.append(op)
        return op

    def get_operations(self):
        return list(self._ops)

    @property
    def ops(self):
        """Every op, in creation order (a topological order), as a tuple."""
        return tuple(self._ops)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolves a Tensor, Operation or name ("op" or "op:0") to an element of this graph."""
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, (Tensor, Operation)):
            obj = obj._as_graph_element()
        if isinstance(obj, (Tensor, Operation)):
            if obj.graph is not self:
                raise ValueError("%s is not an element of this graph." % obj)
            if isinstance(obj, Tensor) and not allow_tensor:
                raise TypeError("Can not convert a Tensor into a Operation.")
            if isinstance(obj, Operation) and not allow_operation:
                raise TypeError("Can not convert a Operation into a Tensor.")
            return obj
        if not isinstance(obj, str):
            raise TypeError("Can not convert a %s into a %s." % (
                type(obj).__name__, "Tensor or Operation" if allow_operation else "Tensor"))
        if ":" in obj and allow_tensor:
            op_name, _, idx = obj.rpartition(":")
            try:
                idx = int(idx)
            except ValueError:
                raise ValueError("The name %r looks a like a Tensor name, but is not a valid one." % obj) from None
            if op_name not in self._by_name:
                raise KeyError("The name %r refers to a Tensor which does not exist. The operation, %r, "
                               "does not exist in the graph." % (obj, op_name))
            outs = self._by_name[op_name].outputs
            if idx >= len(outs):
                raise KeyError("The name %r refers to a Tensor which does not exist. The operation, %r, "
                               "exists but only has %d outputs." % (obj, op_name, len(outs)))
            return outs[idx]
        if ":" not in obj and allow_operation:
            if obj not in self._by_name:
                raise KeyError("The name %r refers to an Operation not in the graph." % obj)
            return self._by_name[obj]
        if allow_tensor and not allow_operation:
            raise ValueError("The name %r refers to an Operation, not a Tensor. Tensor names must be of the "
                             "form \"<op_name>:<output_index>\"." % obj)
        raise ValueError("The name %r refers to a Tensor, not an Operation." % obj)

    def finalize(self):
        self._finalized = True

    finalized = property(lambda self: self._finalized)

    def _unsafe_unfinalize(self):
        self._finalized = False

    @property
    def version(self):
        return len(self._ops)

    # ---- names ---------------------------------------------------------------------------------
    def unique_name(self, name, mark_as_used=True):
        """TF's naming: prefix the current name scope; a taken name gets _1, _2, ..."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while "%s_%d" % (base, i) in self._names_in_use:
                i += 1
            if mark_as_used:
                self._names_in_use["%s_%d" % (base, i)] = 1
            name = "%s_%d" % (name, i)
        return name

    def get_name_scope(self):
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Enters a name scope. A name ending in '/' is used as is; None or '' resets to the root."""
        old = self._name_stack
        if name is None or name == "":
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            _check_name_part(name, bool(old))
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield (new + "/") if new else ""
        finally:
            self._name_stack = old

    # ---- control dependencies ------------------------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside depend on `control_inputs` (ops or tensors); None clears the stack."""
        if control_inputs is None:
            saved, self._control_stack = self._control_stack, []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for c in control_inputs:
            if hasattr(c, "_as_graph_element") and not isinstance(c, (Tensor, Operation)):
                c = c._as_graph_element()
            if isinstance(c, Tensor):
                c = c.op
            if not isinstance(c, Operation):
                raise TypeError("Control input must be Operation or Tensor: %s" % (c,))
            ops.append(c)
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops of a type in `op_type_map` ({op type: name}) created inside take the gradient registered
        as that name with tf.RegisterGradient (or that op type's own gradient) instead of theirs."""
        for k, v in op_type_map.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_overrides)
        self._gradient_overrides.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_overrides = saved

    def _current_control_inputs(self, inputs):
        if not self._control_stack:
            return []
        direct = {t.op for t in inputs}
        out = []
        for frame in self._control_stack:
            for op in frame:
                if op not in direct and op not in out:
                    out.append(op)
        return out

    # ---- collections ---------------------------------------------------------------------------
    def add_to_collection(self, name, value):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        for n in ([names] if isinstance(names, str) else set(names)):
            self.add_to_collection(n, value)

    def get_collection(self, name, scope=None):
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pat = re.compile(scope)
        return [i for i in items if pat.match(getattr(i, "name", "") or "")]

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def clear_collection(self, name):
        self._collections.pop(name, None)

    def get_all_collection_keys(self):
        return [k for k in self._collections if isinstance(k, str)]

    # ---- default graph -------------------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        _stack.append(self)
        try:
            yield self
        finally:
            _stack.remove(self) if _stack[-1] is not self else _stack.pop()

    # ---- the graph as a file: computed by the modules registered for it (register_graph_codec) -----
    def to_json(self, indent=None):
        """The whole graph as JSON text (ops, attrs, control deps, collections, variables)."""
        return _codec("to_json")(self, indent)

    @staticmethod
    def from_json(text):
        """A Graph rebuilt from `to_json`'s text."""
        return _codec("from_json")(text)

    def as_graph_def(self, from_version=None, add_shapes=False):
        """The graph as TF's GraphDef protobuf message."""
        return _codec("as_graph_def")(self, from_version, add_shapes)

    def __repr__(self):
        return "<tinyflow.Graph with %d ops>" % len(self._ops)


_CODECS = {}  # name -> function, see register_graph_codec


def register_graph_codec(name, fn):
    """What Graph.to_json / from_json / as_graph_def call. graph/serialize.py registers the JSON pair
    (graph/__init__.py imports it, so they are always there); the tf. namespace registers
    as_graph_def, whose GraphDef is TF's protobuf, made by the frontend (api/tf_files/)."""
    _CODECS[name] = fn


def _codec(name):
    fn = _CODECS.get(name)
    if fn is None:
        raise NotImplementedError("tinyflow: Graph.%s is given by tinyflow's frontend; import tinyflow first" % name)
    return fn


_default = [Graph()]
_stack = []


def get_default_graph():
    """The innermost graph of `as_default()` blocks, else the global default graph."""
    return _stack[-1] if _stack else _default[0]


def reset_default_graph():
    """Replaces the global default graph with a new empty one (not inside an as_default block)."""
    if _stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
                             "cleared graph, exit the nesting and create a new graph.")
    _default[0] = type(_default[0])()  # eager mode's default graph stays eager


def name_scope(name, default_name=None, values=None):
    """`tf.name_scope(name, default_name, values)` on the graph of `values` or the default graph."""
    g = _graph_of(values) or get_default_graph()
    return g.name_scope(name if name is not None else default_name)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def _graph_of(values):
    for v in values or ():
        g = getattr(v, "graph", None)
        if isinstance(g, Graph):
            return g
    return None


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def constant_value(tensor):
    """The value of `tensor` as numpy when it is known at graph-building time, else None.

    Known: outputs of Const, and of ops whose OpDef says how to fold them (`fold`): a numpy rule of
    their own (Shape of a fully known shape), or `fold=True`, evaluated by the backend's evaluator
    (graph/backend.py) on the constant values of their inputs. A value once known is remembered.
    """
    if not isinstance(tensor, Tensor):
        return None
    eager_value = getattr(tensor, "_const_value", None)  # an eager tensor knows its value
    if eager_value is not None:
        return eager_value()
    op = tensor.op
    if op.type == "Const":
        return op.attrs["value"]
    known = getattr(tensor, "_value", None)
    if known is not None:
        return known
    rule = get_op_def(op.type).fold
    if rule is None:
        return None
    value = _evaluate(op, tensor) if rule is True else rule(op, _InputValues(op))
    if value is not None:   # only a known value is kept: a shape refined later may make one known
        tensor._value = value
    return value


class _InputValues:
    """An op's inputs' constant values, each computed when a fold rule first asks for it: a rule that
    stops at the first unknown input never walks the rest of the graph."""

    def __init__(self, op):
        self._inputs, self._known = op.inputs, {}

    def __len__(self):
        return len(self._inputs)

    def __getitem__(self, i):
        if i not in self._known:
            self._known[i] = constant_value(self._inputs[i])
        return self._known[i]

    def __iter__(self):
        return (self[i] for i in range(len(self._inputs)))


def _evaluate(op, tensor):
    """op's output `tensor` from its inputs' constant values through the backend's evaluator: only
    small integer and bool values (the shape computations shape rules ask for)."""
    n = tensor.shape.num_elements()
    evaluator = backend()
    if evaluator is None or n is None or n > 1000 or not (tensor.dtype.is_integer or tensor.dtype.is_bool):
        return None
    values = []
    for t in op.inputs:   # stop at the first input known only at run time
        values.append(constant_value(t))
        if values[-1] is None:
            return None
    try:
        return evaluator.fold(op, values)[tensor.value_index]
    except NotFoldable:
        return None


def constant_value_as_shape(tensor):
    """The shape a 1-D int tensor describes, as far as it is known while building (TF's
    tensor_util.constant_value_as_shape): [n, 3] with n fed gives (?, 3); a -1 counts as unknown."""
    value = constant_value(tensor)
    if value is not None:
        return TensorShape([None if d < 0 else int(d) for d in np.asarray(value).reshape(-1)])
    op = tensor.op
    if op.type == "Shape":
        return op.inputs[0].shape
    if op.type == "Pack" and op.attrs.get("axis", 0) == 0:
        dims = [constant_value(t) for t in op.inputs]
        return TensorShape([None if d is None or int(d) < 0 else int(d) for d in dims])
    if op.type == "ConcatV2":
        out = TensorShape([])
        for t in op.inputs[:-1]:
            out = out.concatenate(constant_value_as_shape(t))
        return out
    n = tensor.shape[0].value if tensor.shape.ndims == 1 else None
    return TensorShape(None if n is None else [None] * n)


# ---- the default-session stack (here, so graph/ never imports the client layer) ----------------
_default_sessions = []


def get_default_session():
    """The innermost session of a `with sess:` / `as_default()` block (or an InteractiveSession)."""
    return _default_sessions[-1] if _default_sessions else None


def session_for(session, element):
    """`session`, or the default session, checked to run `element` (Tensor.eval, Operation.run)."""
    sess = session or get_default_session()
    if sess is None:
        raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use `with "
                         "sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    if sess.graph is not element.graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph is different "
                         "from the session's graph.")
    return sess
