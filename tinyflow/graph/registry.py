"""The op registry: every op type is one OpDef holding all of its rules. No JAX here.

Passes look rules up here and never switch on op type; OpDef's docstring lists every rule and the
pass that reads it.
"""
from tinyflow.graph import errors

NOT_SET = object()  # grad=NOT_SET: nobody said; grad=None: "not differentiable"


class HostRule:
    """OpDef.host: the Session computes the op in Python, never inside the jitted step.

    One protocol for every kind: `rule(session, op, inputs) -> [value per output]`, values as numpy
    (strings as object arrays of bytes). The class says WHEN the Session calls the rule:

      class         the Session calls it                                   e.g.
      ------------  -----------------------------------------------------  ---------------------------
      SessionValue  when it is fetched; reads the Session's own state,     is_variable_initialized,
                    not its inputs (runtime/session.py)                    report_uninitialized_variables
      FromFetched   after the jitted step, on its inputs' values fetched   summaries, an iterator's
                    by the step (runtime/session.py)                       initializer (MakeIterator)
      Fed           before each run; reads the Session's state, and its   a tf.data iterator's next
                    outputs are fed to the step (passes/prune: "fed")      element (IteratorGetNext)
      Staged        in the host stage, between jitted steps, on its        tf.strings ops, readers,
                    inputs' values (passes/host_split.py splits the run,   queues, file ops
                    runtime/host_stage.py runs it); XLA has no strings,
                    files or queues, so its `lower` only raises. A graph
                    holding one marks itself for the host stage
                    (Graph.create_op)
    """

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, session, op, inputs=()):
        return self.fn(session, op, inputs)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, getattr(self.fn, "__name__", "rule"))


class SessionValue(HostRule):
    """Computed when fetched, from the Session's own state."""


class FromFetched(HostRule):
    """Computed after the jitted step from its inputs' fetched values."""


class Fed(HostRule):
    """Made before each run; its outputs are fed to the step."""


class Staged(HostRule):
    """Run by the host stage between jitted steps (strings, files, queues)."""


class OpDef:
    """All the rules of one op type, declared once at `register_op` and frozen after it.

    Each field and the pass or layer that reads it (NNVM's op_attr_types.h, in one table):

      field        rule or flag                                          read by
      -----------  ----------------------------------------------------  ---------------------------
      shape        shape(in_shapes, attrs, values) -> [TensorShape]      Graph.create_op, passes/infer
      dtype        dtype(in_dtypes, attrs) -> [DType]                    Graph.create_op
      infer_shape  like `shape`, for shape inference with fed shapes    passes/infer (forward sweep;
                   only: may be more specific than construction allows   default: `shape`)
                   (a while loop's outputs through its body)
      infer_back   infer_back(in_shapes, out_shapes, attrs, values)      passes/infer (backward sweep)
                   -> [TensorShape or None per input]
      grad         grad(op, *out_grads) -> [Tensor or None per input];   passes/gradients
                   None: not differentiable; NOT_SET: nobody said
      lower        lower(attrs, *arrays) -> array or tuple of arrays     lower/ (the generated function)
      fold         None: never folded while building; True: fold by      graph/core.constant_value,
                   evaluating `lower` on constant inputs (small integer  passes/infer (through the
                   values: shape computations); or fold(op, values) ->   backend's evaluator)
                   output 0 as numpy or None, a numpy rule of its own
                   (values: the inputs' constant values, None if unknown)
      numpy        numpy(attrs, *numpy arrays) -> like `lower`, or None:   lower/ (a static step's value
                   the same value with numpy; must raise where `check`   while tracing: no XLA program
                   fails                                                 compiled per op)
      inplace      (input, output) pairs whose buffer the output may      passes/memory
                   reuse
      ref_inputs   inputs that are variable references this op updates;  passes/state, lower/
                   `lower` gets their current values and returns their
                   new values (in order); output 0 is the first new value
      overwrites   the op ignores the current value of its refs (Assign) passes/state
      needs_key    random op: `lower(attrs, key, *inputs)` gets the run's lower/
                   PRNG counter first
      static       the output depends only on input *shapes* (Shape,     lower/ (computed while tracing),
                   Size, Rank)                                           passes/infer
      stateful     never pruned as common subexpression, never folded    lower/, passes
      check        check(attrs, *arrays) -> (ok, *data): a condition TF  lower/ (inside the jitted step),
                   checks when the op runs (Assert, an index in range)   runtime/ (raises on failure)
      check_message  check_message(op, *numpy data) -> the message of     runtime/
                   the InvalidArgumentError when ok is False
      check_error  the OpError class of that failure, when TF's is not   runtime/
                   InvalidArgumentError (CountUpTo: OutOfRangeError)
      check_when   None: the check runs wherever the op does; else        passes/prune
                   check_when(op) -> bool, whether this op needs it
      check_of_run the check reads what the op's run found: `lower` gets   lower/, runtime/eager
                   attrs["_check"] True and returns one more value after
                   its outputs, and `check(attrs, that value)` (control
                   flow: a branch taken that could not be traced)
      callback     the lowering calls back into Python on the host        runtime/ (such a step never
                   (py_func, Print): it can fail after dispatch          donates its variables)
      host         None: XLA runs the op; else a HostRule (SessionValue,   runtime/session.py, passes/prune,
                   FromFetched, Fed or Staged, above): the Session        passes/host_split.py,
                   computes the op in Python, never in the jitted step    runtime/host_stage.py
      dynamic_shape  the output SHAPE (or a static slice the lowering      lower/program (splits the
                   makes) depends on input VALUES (Where, Unique, Pad):   step into jitted segments
                   True, or dynamic_shape(op, known) -> bool where        around the op: lower/
                   known[i] says input i's value is known while tracing;  segments.py)
                   when it holds, the op runs on concrete values between
                   two jitted segments
    """

    _FIELDS = ("name", "shape", "dtype", "grad", "lower", "inplace", "ref_inputs", "overwrites", "needs_key",
               "static", "stateful", "host", "infer_back", "check", "check_message", "fold", "callback",
               "dynamic_shape", "infer_shape", "numpy", "check_when", "check_error", "check_of_run")

    def __init__(self, name, shape, dtype, grad=NOT_SET, lower=None, inplace=(), ref_inputs=(),
                 overwrites=False, needs_key=False, static=False, stateful=False, host=None,
                 infer_back=None, check=None, check_message=None, fold=None, callback=False, dynamic_shape=False,
                 infer_shape=None, numpy=None, check_when=None, check_error=None, check_of_run=False):
        if host is not None and not isinstance(host, HostRule):
            raise TypeError("OpDef(%s): host= takes a HostRule (SessionValue, FromFetched, Fed or Staged), got %r"
                            % (name, host))
        values = dict(name=name, shape=shape, dtype=dtype, grad=grad, lower=lower, inplace=tuple(inplace),
                      ref_inputs=tuple(ref_inputs), overwrites=overwrites, needs_key=needs_key, static=static,
                      stateful=stateful or bool(ref_inputs) or needs_key or callback, host=host,
                      infer_back=infer_back, check=check, check_message=check_message, fold=fold,
                      callback=callback, dynamic_shape=dynamic_shape, infer_shape=infer_shape, numpy=numpy,
                      check_when=check_when, check_error=check_error or errors.InvalidArgumentError,
                      check_of_run=check_of_run)
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, key, value):
        raise AttributeError("OpDef(%s) is frozen: declare every rule at register_op" % self.name)

    def __repr__(self):
        return "OpDef(%s)" % self.name


_REGISTRY = {}
_OLD_HOST = {"host_compute": "FromFetched", "host_feed": "Fed", "host_stage": "Staged"}   # before HostRule


def register_op(name, shape, dtype, **rules):
    """Registers op type `name` with its rules (see OpDef); returns the OpDef."""
    for old, kind in _OLD_HOST.items():
        if old in rules:
            raise TypeError("register_op(%r): %s= is gone; say host=%s(rule) (graph/registry.py, HostRule)"
                            % (name, old, kind))
    if name in _REGISTRY:
        raise KeyError("Op type %r is already registered" % name)
    opdef = OpDef(name, shape, dtype, **rules)
    _REGISTRY[name] = opdef
    return opdef


def get_op_def(name):
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError("Op type not registered '%s'" % name) from None


_GRADIENTS = {}   # tf.RegisterGradient / tf.NotDifferentiable: name -> grad(op, *output grads) (None: no gradient)


def register_gradient(name, fn):
    """tf.RegisterGradient(name)(fn): the gradient of ops of type `name`, or of ops a graph's
    gradient_override_map maps to `name`. As in TF, a gradient is registered once: a built-in op's
    own gradient cannot be replaced (override it with gradient_override_map instead)."""
    if name in _GRADIENTS or (name in _REGISTRY and _REGISTRY[name].grad is not NOT_SET):
        raise KeyError("Registering two gradient with name '%s'! (Previous registration was in tinyflow's %s)"
                       % (name, "op registry" if name in _REGISTRY else "gradient registry"))
    _GRADIENTS[name] = fn


def gradient_of(op):
    """The gradient rule of an op: grad(op, *output grads) -> one gradient per input; None (not
    differentiable) or NOT_SET (none defined). The op's `_gradient_op_type` attr (gradient_override_map)
    names a registered gradient or another op type whose rule it takes."""
    name = op.attrs.get("_gradient_op_type", op.type) if hasattr(op, "attrs") else op.type
    if name in _GRADIENTS:
        fn = _GRADIENTS[name]
        return None if fn is None else lambda op, *grads: _as_list(fn(op, *grads))
    if name not in _REGISTRY:
        raise LookupError("gradient registry has no entry for: %s" % name)
    return _REGISTRY[name].grad


def _as_list(grads):   # TF's gradient functions may return one tensor for a one-input op
    return list(grads) if isinstance(grads, (list, tuple)) else [grads]


def registered_ops():
    """All OpDefs, by name."""
    return dict(_REGISTRY)


# Small rule builders shared by many ops.
def same_as_input(i=0):
    """dtype rule: one output with the dtype of input i."""
    return lambda dtypes, attrs: [dtypes[i]]


def from_attr(key):
    """dtype rule: one output with the dtype in attrs[key]."""
    return lambda dtypes, attrs: [attrs[key]]


def shape_of_input(i=0):
    """shape rule: one output with the shape of input i."""
    return lambda shapes, attrs, values: [shapes[i]]
